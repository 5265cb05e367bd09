//! The group of a definition of any number of pieces ([`Defined`] past the 255 cells of the
//! search's boards): the invariants of its moves, the exact group order from a stabilizer
//! chain, solvability of a board with the reason, and the number of distinct boards where
//! pieces are identical.
//!
//! The same analysis as [`super::invariants`] and [`super::analysis`] make for small
//! puzzles, on [`WideMove`]s, with two changes that size forces:
//! - the coupling of orbit signs and orientation sums is found by elimination
//!   ([`super::lattice`]), not by listing the group `A` of all combinations (2^91 * 3 of them
//!   on a 20x20x20 cube);
//! - the chain acts on `orientations` points per cell of each set (the set's own count), not
//!   on `K` per cell for the lcm `K` of all sets: a cube's one-orientation centres stay one
//!   point each, so a 20x20x20 chain has 2,184 points, not 6,504.

use num_bigint::BigUint;

use super::invariants::{Coord, factorial, model_count};
use super::lattice::Span;
use super::relabel_cosets::RelabelCosets;
use super::stabchain::{Perm, StabChain};
use crate::puzzle::defined::Defined;
use crate::puzzle::wide::{WideBoard, WideMove};
use crate::{Error, Result};

/// The cells one tile can reach, and its orientation freedom there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WideOrbit {
    /// The cells, in increasing order (0-based).
    pub cells: Vec<u16>,
    /// A tile's orientation modulo `tied_mod` is fixed by its cell.
    pub tied_mod: u8,
    /// `orient_mod / tied_mod`: the reduced orientations a tile can take.
    pub free_mod: u8,
}

/// The analysis of a wide definition's moves.
pub struct WideAnalysis {
    /// The orbits, ordered by their smallest cell.
    pub orbits: Vec<WideOrbit>,
    /// The number of boards the invariants allow (an upper bound on `group_order`).
    pub model_order: BigUint,
    /// The exact order of the group the declared moves generate.
    pub group_order: BigUint,
    /// Seconds the stabilizer chain took.
    pub chain_seconds: f64,
    orient_mod: u8,
    orbit_of: Vec<u32>,
    local: Vec<u32>,
    potential: Vec<u8>,
    coords: Vec<Coord>,
    radices: Vec<u64>,
    coupling: Span,
    chain: StabChain,
    /// `first_point[cell]`: the cell's first point in the chain; its set's orientation
    /// count `points[cell]` of them follow.
    first_point: Vec<u32>,
    points: Vec<u8>,
    /// The number of points.
    degree: usize,
}

impl WideAnalysis {
    /// Analyses the declared moves of a definition (every metric generates the same group).
    /// Fails past 65,536 chain points.
    pub fn of(d: &Defined) -> Result<WideAnalysis> {
        let moves = d.base_moves();
        let n = d.n_cells();
        let k = d.orient_mod();
        let (orbits, orbit_of, potential) = orbits_and_potentials(n, k, moves);
        let local = local_indices(n, &orbits);
        let mut coords: Vec<Coord> =
            (0..orbits.len()).filter(|&j| orbits[j].cells.len() >= 2).map(Coord::Sign).collect();
        coords.extend((0..orbits.len()).filter(|&j| orbits[j].free_mod > 1).map(Coord::Sum));
        let radices: Vec<u64> = coords
            .iter()
            .map(|&c| match c {
                Coord::Sign(_) => 2,
                Coord::Sum(j) => u64::from(orbits[j].free_mod),
            })
            .collect();
        let mut a = WideAnalysis {
            orbits,
            model_order: BigUint::ZERO,
            group_order: BigUint::ZERO,
            chain_seconds: 0.0,
            orient_mod: k,
            orbit_of,
            local,
            potential,
            coords,
            radices,
            coupling: Span::of(&[], &[]),
            chain: StabChain::new(0, &[]),
            first_point: Vec::new(),
            points: d.cell_orientations(),
            degree: 0,
        };
        let images: Vec<Vec<u64>> = moves.iter().map(|m| a.move_vector(m)).collect();
        a.coupling = Span::of(&a.radices, &images);
        a.model_order = a.model();
        let mut next = 0u32;
        a.first_point = a
            .points
            .iter()
            .map(|&c| {
                let first = next;
                next += u32::from(c);
                first
            })
            .collect();
        let degree = next as usize;
        a.degree = degree;
        if degree > 1 << 16 {
            return Err(Error::Unsupported(format!(
                "a stabilizer chain holds at most 65536 points (a cell per orientation), this \
                 definition has {degree}"
            )));
        }
        let gens: Vec<Perm> = moves.iter().map(|m| a.point_move(m)).collect();
        let started = std::time::Instant::now();
        // The invariants' bound ends the chain as soon as it is reached (the common case).
        a.chain = StabChain::with_upper_bound(degree, &gens, &a.model_order);
        a.chain_seconds = started.elapsed().as_secs_f64();
        a.group_order = a.chain.order();
        Ok(a)
    }

    /// Whether the invariants describe the group exactly.
    pub fn invariants_are_exact(&self) -> bool {
        self.group_order == self.model_order
    }

    /// The parity and orientation-sum conditions every reachable board meets, in words
    /// (`sign(O1) + sign(O2) = 0 (mod 2)`), as `twirl info` prints them for small puzzles.
    pub fn constraints(&self) -> Vec<String> {
        self.coupling
            .conditions()
            .iter()
            .map(|c| self.describe(&c.coefficients, c.modulus))
            .collect()
    }

    fn describe(&self, coefficients: &[u64], modulus: u64) -> String {
        let terms: Vec<String> = coefficients
            .iter()
            .zip(&self.coords)
            .filter(|(f, _)| **f != 0)
            .map(|(&f, &c)| {
                let name = c.name();
                if f == 1 { name } else { format!("{f}*{name}") }
            })
            .collect();
        format!("{} = 0 (mod {modulus})", terms.join(" + "))
    }

    /// `|O|! / 2` per orbit (signs are counted by the coupling), free orientations but one
    /// per orbit (the sum, likewise), times the coupling.
    fn model(&self) -> BigUint {
        let orbits = self.orbits.iter().map(|o| (o.cells.len(), o.free_mod));
        model_count(self.coupling.order().clone(), orbits)
    }

    /// A move's image in `A`: per coordinate, the sign or sum change it causes.
    fn move_vector(&self, m: &WideMove) -> Vec<u64> {
        let k = self.orient_mod;
        let mut sums = vec![0u64; self.orbits.len()];
        for (i, (&j, &t)) in m.perm.iter().zip(&m.twist).enumerate() {
            let o = self.orbit_of[i] as usize;
            let raw = turn(k, t, self.potential[i], self.potential[usize::from(j)]);
            sums[o] += u64::from(raw / self.orbits[o].tied_mod);
        }
        self.vector(&sums, |c| usize::from(m.perm[c]))
    }

    /// The vector of `A` from each orbit's orientation sum and where each cell's tile goes
    /// (or comes from: a permutation and its inverse have one sign).
    fn vector(&self, sums: &[u64], image: impl Fn(usize) -> usize) -> Vec<u64> {
        self.coords
            .iter()
            .map(|&c| match c {
                Coord::Sign(j) => {
                    let cells = &self.orbits[j].cells;
                    let perm: Vec<u32> =
                        cells.iter().map(|&c| self.local[image(usize::from(c))]).collect();
                    sign(&perm)
                }
                Coord::Sum(j) => sums[j] % u64::from(self.orbits[j].free_mod),
            })
            .collect()
    }

    /// A move on the chain's points: point `o` of cell `i` goes to point `o + twist` (in its
    /// set's steps) of cell `perm[i]`.
    fn point_move(&self, m: &WideMove) -> Perm {
        let mut p = vec![0u16; self.degree];
        for (i, (&j, &t)) in m.perm.iter().zip(&m.twist).enumerate() {
            let c = u32::from(self.points[i]);
            let step = u32::from(self.orient_mod) / c;
            for o in 0..c {
                let to = (o + u32::from(t) / step) % c;
                p[(self.first_point[i] + o) as usize] =
                    (self.first_point[usize::from(j)] + to) as u16;
            }
        }
        p
    }

    /// The board as the group element that makes it from the solved board: tile `t` (its
    /// points) goes to its cell, turned. `None` when a tile stands on a cell of another set.
    fn board_element(&self, tiles: &[u16], orient: &[u8]) -> Option<Perm> {
        let mut p = vec![0u16; self.degree];
        for (cell, (&t, &o)) in tiles.iter().zip(orient).enumerate() {
            let t = usize::from(t);
            let c = u32::from(self.points[cell]);
            if u32::from(self.points[t]) != c {
                return None;
            }
            let step = u32::from(self.orient_mod) / c;
            for j in 0..c {
                let to = (j + u32::from(o) / step) % c;
                p[(self.first_point[t] + j) as usize] = (self.first_point[cell] + to) as u16;
            }
        }
        Some(p)
    }

    /// Whether a board of distinct pieces is solvable; if not, the reasons, worded as for
    /// small puzzles ([`super::solvable`]).
    pub fn check(&self, board: &WideBoard) -> std::result::Result<(), Vec<String>> {
        if let Some(p) = self.board_element(&board.tiles, &board.orient)
            && self.chain.contains(&p)
        {
            return Ok(());
        }
        Err(self.reasons(board, &self.coupling))
    }

    /// Why a board is not reachable: a tile off its orbit, an orientation its cell forbids,
    /// the conditions of `span` it breaks, or else the group being smaller than its
    /// invariants.
    fn reasons(&self, board: &WideBoard, span: &Span) -> Vec<String> {
        let v = match self.board_vector(board) {
            Err(reason) => return vec![reason],
            Ok(v) => v,
        };
        let broken: Vec<String> = span
            .conditions()
            .iter()
            .filter(|c| !c.holds(&v))
            .map(|c| self.describe(&c.coefficients, c.modulus))
            .collect();
        if broken.is_empty() {
            return vec![format!(
                "the board keeps every orbit, parity and orientation invariant, but the moves \
                 generate only {} of the {} boards those invariants allow, and this is not one \
                 of them",
                self.group_order, self.model_order
            )];
        }
        let values = self.describe_vector(&v);
        broken.into_iter().map(|c| format!("the moves keep {c}, but here {values}")).collect()
    }

    /// A board's vector in `A`, or why it has none.
    fn board_vector(&self, board: &WideBoard) -> std::result::Result<Vec<u64>, String> {
        let k = self.orient_mod;
        let mut sums = vec![0u64; self.orbits.len()];
        let mut from = vec![0usize; board.tiles.len()];
        for (p, (&t, &o)) in board.tiles.iter().zip(&board.orient).enumerate() {
            let t = usize::from(t);
            from[p] = t;
            let (op, ot) = (self.orbit_of[p] as usize, self.orbit_of[t] as usize);
            if op != ot {
                return Err(format!(
                    "tile {} stands on cell {}, which it can never reach: the moves keep it on \
                     the {} cells of orbit O{}, and cell {} is in orbit O{}",
                    t + 1,
                    p + 1,
                    self.orbits[ot].cells.len(),
                    ot + 1,
                    p + 1,
                    op + 1
                ));
            }
            let orbit = &self.orbits[op];
            let raw = turn(k, o % k, self.potential[t], self.potential[p]);
            if !raw.is_multiple_of(orbit.tied_mod) {
                return Err(format!(
                    "tile {} on cell {} is turned in a way it can never be there: on that cell \
                     its orientation mod {} is fixed by the moves",
                    t + 1,
                    p + 1,
                    orbit.tied_mod
                ));
            }
            sums[op] += u64::from(raw / orbit.tied_mod);
        }
        Ok(self.vector(&sums, |c| from[c]))
    }

    fn describe_vector(&self, v: &[u64]) -> String {
        let parts: Vec<String> = (self.coords.iter().zip(v))
            .map(|(&c, &x)| c.describe_value(x, |j| self.orbits[j].free_mod))
            .collect();
        parts.join(", ")
    }

    /// Identical pieces (and pieces whose orientation is not seen) of a definition, as they
    /// bear on boards: `None` when twirl cannot count or judge its boards at this size (the
    /// group smaller than its invariants, or identical pieces whose cells fix their
    /// orientations differently).
    pub fn identical(&self, d: &Defined) -> std::result::Result<Identical, String> {
        Identical::of(self, d)
    }
}

/// What identical pieces make of a wide definition's boards: they are not group elements,
/// so boards are judged and counted from the invariants where these describe the group
/// exactly (`G` is then every element keeping them, and a swap of identical pieces is one),
/// and otherwise from the cosets of `G` that the relabellings meet ([`RelabelCosets`]).
pub struct Identical {
    /// `members[tile][orbit]`: the cells of that orbit solved with that (home) tile.
    members: std::collections::BTreeMap<(u16, u32), Vec<u16>>,
    /// `unseen[tile]`: its orientation is not seen.
    unseen: Vec<bool>,
    /// The coupling with the images of the swaps and turns that change no board.
    widened: Span,
    /// `|Y|`: the swaps of identical pieces and turns of unseen ones, each giving the solved
    /// board.
    relabellings: BigUint,
    /// The cosets `G y`, where the group is smaller than its invariants.
    cosets: Option<RelabelCosets>,
}

impl Identical {
    fn of(a: &WideAnalysis, d: &Defined) -> std::result::Result<Identical, String> {
        let solved = d.solved_tiles();
        let unseen = d.unseen_orientations().to_vec();
        let mut members: std::collections::BTreeMap<(u16, u32), Vec<u16>> = Default::default();
        for (cell, &t) in solved.iter().enumerate() {
            members.entry((t, a.orbit_of[cell])).or_default().push(cell as u16);
        }
        let mut extra: Vec<Vec<u64>> = Vec::new();
        let mut relabellings = BigUint::from(1u32);
        let unit = |coord: Coord| -> Vec<u64> {
            a.coords.iter().map(|&c| u64::from(c == coord)).collect()
        };
        for (&(t, orbit), cells) in &members {
            let o = &a.orbits[orbit as usize];
            let d0 = o.tied_mod;
            let pot = |c: u16| a.potential[usize::from(c)] % d0;
            if cells.iter().any(|&c| pot(c) != pot(cells[0])) {
                return Err(format!(
                    "identical pieces labelled as tile {} stand on cells whose orientation the \
                     moves fix differently; twirl cannot count or judge such boards past {} cells",
                    t + 1,
                    crate::puzzle::defined::MAX_CELLS
                ));
            }
            relabellings *= factorial(cells.len());
            if cells.len() >= 2 {
                extra.push(unit(Coord::Sign(orbit as usize)));
            }
            if unseen[usize::from(t)] && o.free_mod > 1 {
                relabellings *= BigUint::from(o.free_mod).pow(cells.len() as u32);
                extra.push(unit(Coord::Sum(orbit as usize)));
            }
        }
        let mut gens: Vec<Vec<u64>> = Vec::new();
        // The generators of the coupling are not kept: its conditions stand for them, so
        // span again from the moves' images (cheap) and the relabellings.
        for m in d.base_moves() {
            gens.push(a.move_vector(m));
        }
        gens.extend(extra);
        let widened = Span::of(&a.radices, &gens);
        let cosets = match a.invariants_are_exact() {
            true => None,
            false => {
                let gens = relabelling_generators(a, d, &members, &unseen);
                Some(RelabelCosets::search(&a.chain, &gens)?)
            }
        };
        Ok(Identical { members, unseen, widened, relabellings, cosets })
    }

    /// The number of distinct boards: `|G| / |G ∩ Y|`, where `|G ∩ Y|` is `|Y|` times the
    /// share of `Y`'s images the coupling keeps.
    pub fn distinct_boards(&self, a: &WideAnalysis) -> BigUint {
        match &self.cosets {
            Some(cosets) => &a.group_order * cosets.count() / &self.relabellings,
            None => {
                &a.group_order * self.widened.order() / (&self.relabellings * a.coupling.order())
            }
        }
    }

    /// Whether a board is solvable, with the reasons when it is not: its pieces are given
    /// distinct names within each orbit (any will do: swaps of identical ones are in the
    /// group), unseen orientations set to what the cell allows, and the board's vector
    /// checked against the coupling widened by those relabellings.
    pub fn check(
        &self,
        a: &WideAnalysis,
        board: &WideBoard,
    ) -> std::result::Result<(), Vec<String>> {
        let k = a.orient_mod;
        let mut left = self.members.clone();
        let mut named = board.clone();
        for (p, &t) in board.tiles.iter().enumerate() {
            let orbit = a.orbit_of[p];
            let Some(cell) = left.get_mut(&(t, orbit)).and_then(|cells| cells.pop()) else {
                let home = a.orbit_of[usize::from(t)] as usize;
                return Err(vec![format!(
                    "a piece like tile {} stands on cell {} in orbit O{}, where the solved \
                     board has fewer of them: the moves keep those pieces on the cells of their \
                     orbits (tile {}'s is O{})",
                    t + 1,
                    p + 1,
                    orbit + 1,
                    t + 1,
                    home + 1
                )]);
            };
            named.tiles[p] = cell;
            if self.unseen[usize::from(t)] {
                // The turn that keeps the cell's fixed part: the relabellings take up the rest.
                named.orient[p] = turn(k, a.potential[p], 0, a.potential[usize::from(cell)]);
            }
        }
        let solvable = match (a.board_vector(&named), &self.cosets) {
            (Ok(v), None) => self.widened.contains(&v),
            (Ok(_), Some(cosets)) => a
                .board_element(&named.tiles, &named.orient)
                .is_some_and(|x| cosets.relabels_into_group(&x, &a.chain)),
            (Err(_), _) => false,
        };
        match solvable {
            true => Ok(()),
            false => Err(a.reasons(&named, &self.widened)),
        }
    }
}

/// Generators of the relabellings `Y`: per kind of identical pieces in an orbit, a swap of
/// two and a cycle through all; per kind whose orientation is not seen, the smallest turn
/// its cells allow, of one piece.
fn relabelling_generators(
    a: &WideAnalysis,
    d: &Defined,
    members: &std::collections::BTreeMap<(u16, u32), Vec<u16>>,
    unseen: &[bool],
) -> Vec<Perm> {
    let n = d.n_cells();
    let mut moves = Vec::new();
    for (&(t, orbit), cells) in members {
        let mut cycle = |c: &[u16]| {
            let mut m = WideMove::identity(n);
            for (j, &from) in c.iter().enumerate() {
                m.perm[usize::from(from)] = c[(j + 1) % c.len()];
            }
            moves.push(m);
        };
        if cells.len() >= 2 {
            cycle(&cells[..2]);
        }
        if cells.len() >= 3 {
            cycle(cells);
        }
        let o = &a.orbits[orbit as usize];
        if unseen[usize::from(t)] && o.free_mod > 1 {
            let mut m = WideMove::identity(n);
            m.twist[usize::from(cells[0])] = o.tied_mod;
            moves.push(m);
        }
    }
    moves.iter().map(|m| a.point_move(m)).collect()
}

/// `(a + b - c) mod k`.
fn turn(k: u8, a: u8, b: u8, c: u8) -> u8 {
    ((u16::from(a) + u16::from(b) + u16::from(k) - u16::from(c) % u16::from(k)) % u16::from(k))
        as u8
}

/// Orbits of cells under the moves (by their smallest cell), each cell's orbit, and a
/// potential per cell whose disagreements along the moves give each orbit's tied modulus
/// (see [`super::invariants`]).
fn orbits_and_potentials(
    n: usize,
    k: u8,
    moves: &[WideMove],
) -> (Vec<WideOrbit>, Vec<u32>, Vec<u8>) {
    let mut orbit_of = vec![u32::MAX; n];
    let mut potential = vec![0u8; n];
    let mut orbits = Vec::new();
    for start in 0..n {
        if orbit_of[start] != u32::MAX {
            continue;
        }
        let id = orbits.len() as u32;
        orbit_of[start] = id;
        let mut cells = vec![start as u16];
        let mut at = 0;
        // Breadth first along the moves: a finite group's orbit is its generators' closure.
        while at < cells.len() {
            let i = usize::from(cells[at]);
            for m in moves {
                let j = usize::from(m.perm[i]);
                if orbit_of[j] == u32::MAX {
                    orbit_of[j] = id;
                    potential[j] = turn(k, potential[i], m.twist[i], 0);
                    cells.push(j as u16);
                }
            }
            at += 1;
        }
        let mut tied = k;
        for &c in &cells {
            let i = usize::from(c);
            for m in moves {
                let j = usize::from(m.perm[i]);
                tied = gcd8(tied, turn(k, potential[i], m.twist[i], potential[j]));
            }
        }
        cells.sort_unstable();
        orbits.push(WideOrbit { cells, tied_mod: tied, free_mod: k / tied });
    }
    (orbits, orbit_of, potential)
}

/// Each cell's index within its orbit.
fn local_indices(n: usize, orbits: &[WideOrbit]) -> Vec<u32> {
    let mut local = vec![0u32; n];
    for o in orbits {
        for (i, &c) in o.cells.iter().enumerate() {
            local[usize::from(c)] = i as u32;
        }
    }
    local
}

/// Sign of a permutation of `0..len`: 0 even, 1 odd.
fn sign(perm: &[u32]) -> u64 {
    u64::from(super::invariants::sign_by(perm.len(), |i| perm[i] as usize))
}

fn gcd8(a: u8, b: u8) -> u8 {
    if b == 0 { a } else { gcd8(b, a % b) }
}

#[cfg(test)]
#[path = "wide_tests.rs"]
mod tests;
