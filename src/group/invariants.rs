//! What the moves can never change: the invariants that bound the reachable set.
//!
//! Worked out from the moves alone, for any puzzle in the [`Puzzle`] shape:
//! 1. **Orbits** — the cells a tile can travel between. A tile never leaves its home's orbit.
//! 2. **Tied orientation** — in each orbit, the largest `d` dividing `orient_mod` such that a
//!    tile's orientation modulo `d` is fixed by the cell it stands on: there is a potential `f`
//!    on cells with `twist ≡ f(to) - f(from) (mod d)` for every move and cell. (NRP with 2x2
//!    blocks: every quarter turn moves a tile to a cell of the other colour and turns it once,
//!    so orientation mod 2 is tied to the checkerboard colour.) What remains free is the
//!    *reduced orientation* `u = (o - f(cell) + f(home)) / d`, modulo `e = orient_mod / d`.
//! 3. **Coupling** — the sign of each orbit's permutation and the sum of the reduced
//!    orientations in each orbit change under a move by amounts that do not depend on the
//!    board, so they form a homomorphism onto a small abelian group `A`. Its image `H`, spanned
//!    by the moves' images, gives every parity and orientation-sum constraint within and
//!    across orbits.
//!
//! These invariants give an upper bound on the group ([`Invariants::model_order`]): the
//! boards that keep tiles in their orbits, tied orientation and `(signs, sums)` in `H`. The
//! bound is exact for most puzzles; [`crate::rank`] checks it against the exact group order
//! from a stabilizer chain before trusting it.

use bitvec::vec::BitVec;
use num_bigint::BigUint;

use crate::puzzle::Puzzle;

/// The cells one tile can reach, and its orientation freedom there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Orbit {
    /// The cells, in increasing order.
    pub cells: Vec<u8>,
    /// `d`: a tile's orientation modulo `d` is fixed by its cell.
    pub tied_mod: u8,
    /// `e = orient_mod / d`: how many reduced orientations a tile can have.
    pub free_mod: u8,
}

/// One coordinate of the abelian invariant group `A`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coord {
    /// The sign (0 even, 1 odd) of the permutation of an orbit's tiles.
    Sign(usize),
    /// The sum of an orbit's reduced orientations, modulo the orbit's `free_mod`.
    Sum(usize),
}

impl Coord {
    /// `sign(O1)`, `orientation sum(O2)`.
    pub fn name(self) -> String {
        match self {
            Coord::Sign(j) => format!("sign(O{})", j + 1),
            Coord::Sum(j) => format!("orientation sum(O{})", j + 1),
        }
    }

    /// The coordinate at value `x`: `sign(O1) = 1 (an odd permutation)`, `orientation
    /// sum(O2) = 2 (mod 3)`, where orbit `j`'s sums are taken mod `free_mod(j)`.
    pub fn describe_value(self, x: u64, free_mod: impl Fn(usize) -> u8) -> String {
        match self {
            Coord::Sign(_) => {
                let parity = if x == 1 { "odd" } else { "even" };
                format!("{} = {x} (an {parity} permutation)", self.name())
            }
            Coord::Sum(j) => format!("{} = {x} (mod {})", self.name(), free_mod(j)),
        }
    }
}

/// The invariants of a puzzle's moves.
#[derive(Clone, Debug)]
pub struct Invariants {
    /// Orientations a tile can take.
    pub orient_mod: u8,
    /// The orbits, ordered by their smallest cell.
    pub orbits: Vec<Orbit>,
    /// `orbit_of[cell]`: the orbit a cell belongs to.
    pub orbit_of: Vec<u8>,
    /// `local[cell]`: the cell's index within its orbit.
    pub local: Vec<u8>,
    /// `potential[cell]`: `f(cell)` modulo `orient_mod` (see the module docs).
    pub potential: Vec<u8>,
    /// The coordinates of `A`, signs first, in mixed radix order (the first is most significant).
    pub coords: Vec<Coord>,
    /// The radix of each coordinate.
    pub radices: Vec<u8>,
    /// The codes (mixed radix over `coords`) of the elements of `H`, sorted.
    pub coupling: Vec<u32>,
    /// Per move: `reduced_twist[m][cell]`, the change of the reduced orientation of the tile
    /// leaving `cell`, modulo its orbit's `free_mod`.
    pub reduced_twist: Vec<Vec<u8>>,
}

/// `(a + b - c) mod k` for orientations below `k`. `k` may be up to 127 (a definition's
/// lcm), where three terms no longer fit a byte, so the sum is taken in 16 bits.
#[inline]
pub fn orient_sum(k: u8, a: u8, b: u8, c: u8) -> u8 {
    ((a as u16 + b as u16 + k as u16 - c as u16) % k as u16) as u8
}

/// `(a + b) mod r` for `a` and `b` below `r`, in 16 bits (`r` may pass 128).
fn add_mod(a: u8, b: u8, r: u8) -> u8 {
    ((a as u16 + b as u16) % r as u16) as u8
}

/// Largest `A` we enumerate; real puzzles need a few thousand at most.
pub const MAX_COUPLING_SPACE: u64 = 1 << 22;

impl Invariants {
    /// The reduced orientation of a piece standing on `cell` with orientation `orient`,
    /// counted from `home`, the potential of its (label's first) home, in steps of the
    /// cell's `tied_mod`; `None` where the cell fixes the orientation modulo `tied_mod` to
    /// another value. [`Invariants::shown_orientation`] undoes it.
    #[inline]
    pub fn reduced_orientation(&self, cell: usize, orient: u8, home: u8) -> Option<u8> {
        let (k, tied) = (self.orient_mod, self.orbits[self.orbit_of[cell] as usize].tied_mod);
        let raw = orient_sum(k, orient % k, home, self.potential[cell]);
        raw.is_multiple_of(tied).then(|| raw / tied)
    }

    /// The orientation a board shows for a piece on `cell` with reduced orientation `turn`
    /// (see [`Invariants::reduced_orientation`]).
    #[inline]
    pub fn shown_orientation(&self, cell: usize, turn: u8, home: u8) -> u8 {
        let tied = self.orbits[self.orbit_of[cell] as usize].tied_mod;
        orient_sum(self.orient_mod, turn * tied, self.potential[cell], home)
    }

    /// Works out the invariants of the puzzle's moves.
    pub fn of(puzzle: &Puzzle) -> crate::Result<Invariants> {
        let n = puzzle.n_positions();
        let k = puzzle.orient_mod;
        let (orbit_cells, orbit_of) = orbits(n, puzzle);
        let mut local = vec![0u8; n];
        for cells in &orbit_cells {
            for (i, &c) in cells.iter().enumerate() {
                local[c as usize] = i as u8;
            }
        }
        // Potential: spread f along moves from each orbit's first cell; every edge that
        // disagrees with f lowers the tied modulus to the gcd of the disagreements.
        let mut potential = vec![0u8; n];
        let mut orbits = Vec::new();
        for cells in &orbit_cells {
            let mut known = vec![false; n];
            known[cells[0] as usize] = true;
            let mut queue = vec![cells[0] as usize];
            while let Some(i) = queue.pop() {
                for m in &puzzle.moves {
                    let j = m.perm[i] as usize;
                    if !known[j] {
                        known[j] = true;
                        potential[j] = (potential[i] + m.twist[i]) % k;
                        queue.push(j);
                    }
                }
            }
            let mut tied = k;
            for &c in cells {
                let i = c as usize;
                for m in &puzzle.moves {
                    let j = m.perm[i] as usize;
                    let gap = orient_sum(k, potential[i], m.twist[i], potential[j]);
                    tied = gcd(tied, gap);
                }
            }
            orbits.push(Orbit { cells: cells.clone(), tied_mod: tied, free_mod: k / tied });
        }
        let reduced_twist: Vec<Vec<u8>> = puzzle
            .moves
            .iter()
            .map(|m| {
                (0..n)
                    .map(|i| {
                        let j = m.perm[i] as usize;
                        let d = orbits[orbit_of[i] as usize].tied_mod;
                        orient_sum(k, m.twist[i], potential[i], potential[j]) / d
                    })
                    .collect()
            })
            .collect();

        let mut coords = Vec::new();
        let mut radices = Vec::new();
        for (j, o) in orbits.iter().enumerate() {
            if o.cells.len() >= 2 {
                coords.push(Coord::Sign(j));
                radices.push(2);
            }
        }
        for (j, o) in orbits.iter().enumerate() {
            if o.free_mod > 1 {
                coords.push(Coord::Sum(j));
                radices.push(o.free_mod);
            }
        }
        let space = radices.iter().try_fold(1u64, |acc, &r| {
            acc.checked_mul(r as u64).filter(|&s| s <= MAX_COUPLING_SPACE)
        });
        let Some(space) = space else {
            let combinations: BigUint = radices.iter().map(|&r| BigUint::from(r)).product();
            return Err(crate::Error::Unsupported(format!(
                "expected at most {MAX_COUPLING_SPACE} combinations of the orbits' parities and \
                 orientation sums to index, found {combinations} ({} orbits)",
                orbits.len()
            )));
        };
        let mut inv = Invariants {
            orient_mod: k,
            orbits,
            orbit_of,
            local,
            potential,
            coords,
            radices,
            coupling: Vec::new(),
            reduced_twist,
        };
        let images: Vec<Vec<u8>> =
            (0..puzzle.moves.len()).map(|m| inv.move_image(puzzle, m)).collect();
        inv.coupling = inv.span(&images, space as usize);
        Ok(inv)
    }

    /// The image in `A` of move `m`: per coordinate, the sign or sum change it causes.
    fn move_image(&self, puzzle: &Puzzle, m: usize) -> Vec<u8> {
        let mv = &puzzle.moves[m];
        self.coords
            .iter()
            .map(|&c| match c {
                Coord::Sign(j) => self.orbit_sign(j, mv),
                Coord::Sum(j) => {
                    let e = self.orbits[j].free_mod as u32;
                    let s: u32 = self.orbits[j]
                        .cells
                        .iter()
                        .map(|&c| self.reduced_twist[m][c as usize] as u32)
                        .sum();
                    (s % e) as u8
                }
            })
            .collect()
    }

    /// A board's vector in `A` (the sign of each orbit's permutation, the sum of each orbit's
    /// reduced orientations), or why it has none: a tile off its orbit, or an orientation
    /// its cell does not allow.
    pub fn board_vector(
        &self,
        board: &crate::puzzle::Board,
    ) -> std::result::Result<Vec<u8>, String> {
        let k = self.orient_mod;
        let mut sums = vec![0u32; self.orbits.len()];
        for (p, (&t, &o)) in board.tiles.iter().zip(&board.orient).enumerate() {
            let t = t as usize;
            let (op, ot) = (self.orbit_of[p] as usize, self.orbit_of[t] as usize);
            if op != ot {
                return Err(format!(
                    "tile {} stands on cell {}, which it can never reach: the moves keep it on the {} cells of \
                     orbit O{} ({}), and cell {} is in orbit O{}",
                    t + 1,
                    p + 1,
                    self.orbits[ot].cells.len(),
                    ot + 1,
                    cell_list(&self.orbits[ot].cells),
                    p + 1,
                    op + 1
                ));
            }
            let orbit = &self.orbits[op];
            let raw = orient_sum(k, o % k, self.potential[t], self.potential[p]);
            if !raw.is_multiple_of(orbit.tied_mod) {
                return Err(format!(
                    "tile {} on cell {} is turned in a way it can never be there: on that cell its \
                     orientation mod {} is fixed by the moves",
                    t + 1,
                    p + 1,
                    orbit.tied_mod
                ));
            }
            sums[op] += (raw / orbit.tied_mod) as u32;
        }
        Ok(self
            .coords
            .iter()
            .map(|&c| match c {
                Coord::Sign(j) => {
                    let cells = &self.orbits[j].cells;
                    let perm: Vec<u8> = cells
                        .iter()
                        .map(|&c| self.local[board.tiles[c as usize] as usize])
                        .collect();
                    sign(&perm)
                }
                Coord::Sum(j) => (sums[j] % self.orbits[j].free_mod as u32) as u8,
            })
            .collect())
    }

    /// The sign (0 even, 1 odd) of a move restricted to orbit `j`. It does not depend on the
    /// order in which the orbit's cells are listed.
    pub fn orbit_sign(&self, j: usize, m: &crate::puzzle::Move) -> u8 {
        let perm: Vec<u8> =
            self.orbits[j].cells.iter().map(|&c| self.local[m.perm[c as usize] as usize]).collect();
        sign(&perm)
    }

    /// The signs a move gives every orbit of at least two cells, as a sign code (the sign
    /// coordinates of `A`, first orbit most significant).
    pub fn sign_code(&self, m: &crate::puzzle::Move) -> u32 {
        (0..self.orbits.len())
            .filter(|&j| self.orbits[j].cells.len() >= 2)
            .fold(0, |code, j| code * 2 + self.orbit_sign(j, m) as u32)
    }

    /// Encodes a vector of `A` as its mixed-radix code.
    pub fn encode(&self, v: &[u8]) -> u32 {
        v.iter().zip(&self.radices).fold(0u32, |acc, (&x, &r)| acc * r as u32 + x as u32)
    }

    /// Decodes a mixed-radix code of `A`.
    pub fn decode(&self, mut code: u32) -> Vec<u8> {
        let mut v = vec![0u8; self.radices.len()];
        for i in (0..v.len()).rev() {
            v[i] = (code % self.radices[i] as u32) as u8;
            code /= self.radices[i] as u32;
        }
        v
    }

    /// All sums of the given vectors (the subgroup they span), as sorted codes.
    ///
    /// Generator by generator: where `j` is the least multiple of `g` already in the span `H`,
    /// the span grows to the `j` disjoint cosets `H + t g`, `t < j`, each element written
    /// once, with no lookup (a search from 0 looked each up once per generator and
    /// allocated for each: 1.2 s of a 5 s listing of six dials turning modulo 12).
    fn span(&self, gens: &[Vec<u8>], space: usize) -> Vec<u32> {
        let add = |a: &[u8], b: &[u8]| -> Vec<u8> {
            a.iter().zip(b).zip(&self.radices).map(|((&x, &y), &r)| add_mod(x, y, r)).collect()
        };
        let mut in_span = vec![false; space];
        in_span[0] = true;
        let mut out = vec![0u32];
        let mut digits = vec![0u8; self.radices.len()];
        for g in gens {
            let mut shifts: Vec<Vec<u8>> = Vec::new();
            let mut shift = g.clone();
            while !in_span[self.encode(&shift) as usize] {
                shifts.push(shift.clone());
                shift = add(&shift, g);
            }
            let h = out.len();
            for shift in &shifts {
                for i in 0..h {
                    let mut code = out[i];
                    for c in (0..digits.len()).rev() {
                        let r = self.radices[c] as u32;
                        digits[c] = add_mod((code % r) as u8, shift[c], r as u8);
                        code /= r;
                    }
                    let code = self.encode(&digits);
                    in_span[code as usize] = true;
                    out.push(code);
                }
            }
        }
        out.sort_unstable();
        out
    }

    /// The number of boards that satisfy every invariant: an upper bound on the group order.
    pub fn model_order(&self) -> BigUint {
        let orbits = self.orbits.iter().map(|o| (o.cells.len(), o.free_mod));
        model_count(BigUint::from(self.coupling.len()), orbits)
    }

    /// The constraints `H` imposes, in words: a generating set of the linear conditions that
    /// every reachable board satisfies (`sign(O1) + sign(O2) = 0 (mod 2)`). Empty when the
    /// parities and orientation sums are all free.
    pub fn constraints(&self) -> Vec<String> {
        self.constraint_functionals()
            .iter()
            .map(|lam| self.describe_functional(lam, self.lcm()))
            .collect()
    }

    /// The constraints (as in [`Invariants::constraints`]) that a vector of `A` breaks.
    pub fn broken_constraints(&self, v: &[u8]) -> Vec<String> {
        self.constraint_functionals()
            .iter()
            .filter(|lam| !self.pairs_to_zero(lam, v))
            .map(|lam| self.describe_functional(lam, self.lcm()))
            .collect()
    }

    /// The least common multiple of the radices of `A`: functionals take values modulo it.
    fn lcm(&self) -> u32 {
        self.radices.iter().fold(1u32, |a, &r| a / gcd32(a, r as u32) * r as u32)
    }

    /// Whether functional `lam` vanishes on `v`: `Σ λ_c v_c (lcm / r_c) ≡ 0 (mod lcm)`.
    fn pairs_to_zero(&self, lam: &[u8], v: &[u8]) -> bool {
        let lcm = self.lcm();
        let s: u32 = lam
            .iter()
            .zip(v)
            .zip(&self.radices)
            .map(|((&l, &x), &r)| l as u32 * x as u32 * (lcm / r as u32))
            .sum();
        s.is_multiple_of(lcm)
    }

    /// A generating set of the functionals vanishing on `H`, chosen greedily in code order.
    fn constraint_functionals(&self) -> Vec<Vec<u8>> {
        let space: u32 = self.radices.iter().map(|&r| r as u32).product();
        let elements: Vec<Vec<u8>> = self.coupling.iter().map(|&c| self.decode(c)).collect();
        let vanishes = |lam: &[u8]| elements.iter().all(|v| self.pairs_to_zero(lam, v));
        let mut chosen: Vec<Vec<u8>> = Vec::new();
        let mut covered = BitVec::<usize>::repeat(false, space as usize);
        covered.set(0, true);
        for code in 1..space {
            let lam = self.decode(code);
            if covered[code as usize] || !vanishes(&lam) {
                continue;
            }
            chosen.push(lam);
            // Mark everything the chosen functionals span.
            let gens = chosen.clone();
            for c in self.span(&gens, space as usize) {
                covered.set(c as usize, true);
            }
        }
        chosen
    }

    fn describe_functional(&self, lam: &[u8], lcm: u32) -> String {
        let factors: Vec<u32> =
            lam.iter().zip(&self.radices).map(|(&l, &r)| l as u32 * (lcm / r as u32)).collect();
        // `2*x = 0 (mod 6)` reads better as `x = 0 (mod 3)`: divide by the common factor.
        let common = factors.iter().fold(lcm, |g, &f| gcd32(g, f));
        let modulus = lcm / common;
        let mut terms = Vec::new();
        for (&f, &c) in factors.iter().zip(&self.coords) {
            if f == 0 {
                continue;
            }
            let name = c.name();
            let factor = f / common;
            terms.push(if factor == 1 { name } else { format!("{factor}*{name}") });
        }
        format!("{} = 0 (mod {modulus})", terms.join(" + "))
    }
}

/// `1 3 6 8` (1-based cells).
pub fn cell_list(cells: &[u8]) -> String {
    cells.iter().map(|c| (c + 1).to_string()).collect::<Vec<_>>().join(" ")
}

/// Orbits of cells under the moves, ordered by their smallest cell, and each cell's orbit.
pub(crate) fn orbits(n: usize, puzzle: &Puzzle) -> (Vec<Vec<u8>>, Vec<u8>) {
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    for m in &puzzle.moves {
        for i in 0..n {
            let (a, b) = (find(&mut parent, i), find(&mut parent, m.perm[i] as usize));
            if a != b {
                parent[a.max(b)] = a.min(b);
            }
        }
    }
    let mut orbit_of = vec![u8::MAX; n];
    let mut cells: Vec<Vec<u8>> = Vec::new();
    for i in 0..n {
        let root = find(&mut parent, i);
        if orbit_of[root] == u8::MAX {
            orbit_of[root] = cells.len() as u8;
            cells.push(Vec::new());
        }
        orbit_of[i] = orbit_of[root];
        cells[orbit_of[i] as usize].push(i as u8);
    }
    (cells, orbit_of)
}

/// Sign of a permutation of `0..len`: 0 even, 1 odd.
pub fn sign(perm: &[u8]) -> u8 {
    sign_by(perm.len(), |i| perm[i] as usize)
}

/// Sign of the permutation of `0..len` taking `i` to `image(i)`, whatever its element type:
/// 0 even, 1 odd.
pub fn sign_by(len: usize, image: impl Fn(usize) -> usize) -> u8 {
    let mut seen = vec![false; len];
    let mut parity = 0;
    for start in 0..len {
        let mut cycle = 0;
        let mut i = start;
        while !seen[i] {
            seen[i] = true;
            i = image(i);
            cycle += 1;
        }
        if cycle > 0 {
            parity ^= (cycle + 1) & 1;
        }
    }
    parity as u8
}

fn gcd(a: u8, b: u8) -> u8 {
    if b == 0 { a } else { gcd(b, a % b) }
}

fn gcd32(a: u32, b: u32) -> u32 {
    if b == 0 { a } else { gcd32(b, a % b) }
}

/// The boards the invariants allow: the coupling's `coupling` sign-and-sum values times, per
/// orbit of `(cells, free orientation modulus)`, its arrangements within one sign class
/// (`n!/2`) and its free orientations but the one the sum fixes.
pub fn model_count(coupling: BigUint, orbits: impl Iterator<Item = (usize, u8)>) -> BigUint {
    let mut total = coupling;
    for (n, free_mod) in orbits {
        total *= factorial(n);
        if n >= 2 {
            total /= 2u32;
        }
        if free_mod > 1 {
            total *= BigUint::from(free_mod).pow(n as u32 - 1);
        }
    }
    total
}

/// `n!` as a big integer.
pub fn factorial(n: usize) -> BigUint {
    (1..=n).fold(BigUint::from(1u32), |acc, i| acc * i)
}

/// The orders of `items` that read the same: the product of the factorials of the numbers
/// of equal items (the exchanges of alike pieces' labels).
pub(crate) fn exchanges_of_alike<T: Ord>(mut items: Vec<T>) -> BigUint {
    items.sort_unstable();
    items.chunk_by(|a, b| a == b).map(|run| factorial(run.len())).product()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inv(spec: &str) -> Invariants {
        Invariants::of(&Puzzle::parse(spec, None).unwrap()).unwrap()
    }

    #[test]
    fn nrp_443_has_two_colour_orbits_with_linked_signs() {
        let i = inv("nrp:4x4:3");
        assert_eq!(i.orbits.len(), 2);
        assert_eq!(i.orbits[0].cells, vec![0, 2, 5, 7, 8, 10, 13, 15]);
        assert_eq!(i.model_order(), BigUint::from(812_851_200u64));
        assert_eq!(i.constraints(), vec!["sign(O1) + sign(O2) = 0 (mod 2)"]);
    }

    #[test]
    fn orientation_is_tied_for_two_by_two_blocks() {
        let i = inv("nrp:3x3:2:orient");
        assert_eq!(i.orbits.len(), 1);
        assert_eq!((i.orbits[0].tied_mod, i.orbits[0].free_mod), (2, 2));
        assert_eq!(i.model_order(), BigUint::from(92_897_280u64));
        // Three-by-three blocks turn their centre in place: nothing is tied.
        let j = inv("nrp:3x4:3:orient");
        assert!(j.orbits.iter().all(|o| o.tied_mod == 1 && o.free_mod == 4));
    }

    #[test]
    fn spin_models() {
        assert_eq!(inv("spin:3x3").model_order(), BigUint::from(185_794_560u64));
        // 1x2 spins: orientation tied to the colour, permutations unrestricted: S_9.
        assert_eq!(inv("spin:3x3:1x2").model_order(), BigUint::from(362_880u64));
        // 1x2 + 2x2: even number of flipped tiles.
        let i = inv("spin:3x3:1x2,2x2");
        assert_eq!(i.model_order(), BigUint::from(185_794_560u64 / 2));
        assert_eq!(i.constraints(), vec!["orientation sum(O1) = 0 (mod 2)"]);
    }

    #[test]
    fn sign_of_permutations() {
        assert_eq!(sign(&[0, 1, 2]), 0);
        assert_eq!(sign(&[1, 0, 2]), 1);
        assert_eq!(sign(&[1, 2, 0]), 0);
        assert_eq!(sign(&[1, 2, 3, 0]), 1);
    }
}
