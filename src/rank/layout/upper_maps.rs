//! Maps of a layout's upper values by tables, orbit by orbit: the moves, and the elements
//! of a symmetry group.
//!
//! A layout's upper value holds each orbit's permutation (its rank within its sign class and
//! its sign) and the orbits' orientation sums (with the signs, an element of the coupling
//! group). A move permutes each orbit's cells among themselves and adds the same twists
//! whatever tiles it carries; a symmetry (conjugation, and inversion) carries each orbit's
//! permutation onto one orbit's and the sums onto sums. Either way each orbit's permutation
//! goes on its own, and the sums by themselves. One table per map and orbit (`n!` entries)
//! and one per map over the sums then give a value's image without building a board.
//!
//! What uses them: the search for the values the moves reach
//! ([`ReachableUpper`](crate::rank::couplings::ReachableUpper)), and the classes of whole
//! arrangements under a symmetry group. On the mastermorphix, whose upper values are whole
//! boards, the first took 55 ns per value and move by boards, the second 60 ns per image.

use rayon::prelude::*;
use strength_reduce::StrengthReducedU32;

use super::{Cells, Layout, TILE_BITS};
use crate::group::stabchain::StabChain;
use crate::rank::couplings::{ReachableUpper, UpperSteps};
use crate::rank::perm::unrank_in_sign_class;
use crate::rank::spread_sample;

/// Most table entries over all maps and orbits (8 bytes each).
const MAX_ENTRIES: usize = 1 << 22;

/// An orbit of at least two cells: its permutation digit and where its tables start.
#[derive(Clone, Debug)]
struct OrbitDigit {
    /// The radix of its permutation digit (`n!/2`), divided by without a division.
    radix: StrengthReducedU32,
    /// Where its sign sits in the sign code.
    sign_shift: u32,
    /// Where its table starts within a map's.
    offset: usize,
    /// Its place value in an upper value.
    place: u32,
}

impl OrbitDigit {
    /// A table entry: the place value of permutation digit `r` (low half) and the sign
    /// code of `sign` (high half), summed over the orbits into an image.
    #[inline]
    fn entry(&self, r: u64, sign: u64) -> u64 {
        (r * self.place as u64) | (sign << (32 + self.sign_shift))
    }
}

/// Per-map tables on a layout's upper values (see the module docs).
#[derive(Clone, Debug)]
pub(crate) struct UpperMaps {
    /// Orbits of at least two cells, most significant first.
    orbits: Vec<OrbitDigit>,
    n_maps: usize,
    /// Entries of one map's tables: the sum of the orbits' `n!`.
    per_map: usize,
    /// `perm[m * per_map + offset + 2 * r + sign]`: the permutations map `m` makes of the
    /// orbit's `(r, sign)` (the other orbits left solved) as their place values in the upper
    /// value (low 32 bits) plus their sign code (high 32 bits). Summed over the orbits, the
    /// low half is the image's upper value without its coupling index and the high half its
    /// sign code.
    perm: Vec<u64>,
    /// `sums[m * sums_space + code]`: the orientation sums' code after map `m`.
    sums: Vec<u32>,
    sums_space: u32,
    /// `sums_space` and the coupling group's order, divided by without a division.
    sums_divisor: StrengthReducedU32,
    coupling_divisor: StrengthReducedU32,
    /// The layout's coupling group: codes of its elements, and the element of a code.
    coupling: Vec<u32>,
    coupling_index: Vec<u32>,
}

impl UpperMaps {
    /// The tables of `n_maps` maps of boards, `map(board, m)` the `m`-th, for `layout`'s
    /// upper values; `None` when they would be too large, the upper values do not fit 32
    /// bits, or a sample of values shows a map that does not act orbit by orbit.
    pub(crate) fn new(
        layout: &Layout,
        n_maps: usize,
        map: impl Fn(&Cells, usize) -> Cells + Sync,
    ) -> Option<UpperMaps> {
        let space = layout.upper_space();
        let signed: Vec<usize> =
            (0..layout.orbits.len()).filter(|&j| layout.orbits[j].cells.len() >= 2).collect();
        let per_map: usize = signed.iter().map(|&j| 2 * layout.orbits[j].perm_radix as usize).sum();
        let sums_space = layout.sums_space as usize;
        let entries = (per_map + sums_space).checked_mul(n_maps)?;
        // 32 cells hold at most 16 orbits of two or more: the guard keeps `table_indices`'
        // array and the targets' bits in range should boards grow.
        if space > u32::MAX as u64 || entries > MAX_ENTRIES || signed.len() > MAX_ORBIT_DIGITS {
            return None;
        }
        let solved = layout.solved();
        let c = layout.coupling.len() as u64;
        // Place values: the last orbit's permutation digit is the least significant, above
        // the coupling index.
        let mut place = vec![0u64; signed.len()];
        let mut p = c;
        for (k, &j) in signed.iter().enumerate().rev() {
            place[k] = p;
            p *= layout.orbits[j].perm_radix;
        }
        let mut orbits = Vec::new();
        let mut offset = 0;
        for (i, &j) in signed.iter().enumerate() {
            let o = &layout.orbits[j];
            let radix = StrengthReducedU32::new(o.perm_radix as u32);
            let sign_shift = (signed.len() - 1 - i) as u32;
            orbits.push(OrbitDigit { radix, sign_shift, offset, place: place[i] as u32 });
            offset += 2 * o.perm_radix as usize;
        }
        // Each signed orbit's digits in a board.
        let digits = |s: &Cells| -> Vec<(u64, u32)> {
            signed.iter().map(|&j| layout.orbit_rank(s, &layout.orbits[j])).collect()
        };
        // Each map's tables on its own thread: a small board's set-up is mostly these.
        let per_map_tables: Vec<(Vec<u64>, Vec<u32>)> = (0..n_maps)
            .into_par_iter()
            .map(|m| {
                // A move changes every orbit's digits even on the solved board: an orbit's
                // entries hold only the orbit its own tiles go to, the one whose digits then
                // differ from the solved board's image. No two orbits may go to one.
                let image_of_solved = digits(&map(&solved, m));
                let mut targets_taken = 0u32;
                let mut perm = Vec::with_capacity(per_map);
                for &j in &signed {
                    let o = &layout.orbits[j];
                    let board_of = |x: u64| {
                        let mut board = solved;
                        unrank_in_sign_class(x / 2, (x % 2) as u32, o.cells.len(), |i, t| {
                            board.0[o.cells[i] as usize] = o.cells[t as usize]
                        });
                        board
                    };
                    let image_of_odd = digits(&map(&board_of(1), m));
                    let mut targets =
                        (0..signed.len()).filter(|&k| image_of_odd[k] != image_of_solved[k]);
                    let (Some(k), None) = (targets.next(), targets.next()) else { return None };
                    if targets_taken & 1 << k != 0 {
                        return None;
                    }
                    targets_taken |= 1 << k;
                    // Only the target orbit's digit changes with `x`.
                    let target = &layout.orbits[signed[k]];
                    for x in 0..2 * o.perm_radix {
                        let (r, sign) = layout.orbit_rank(&map(&board_of(x), m), target);
                        perm.push(orbits[k].entry(r, sign as u64));
                    }
                }
                let sums = (0..layout.sums_space)
                    .map(|code| layout.orientation_digits(&map(&layout.with_sums(code), m)).0)
                    .collect();
                Some((perm, sums))
            })
            .collect::<Option<_>>()?;
        let (perm, sums): (Vec<Vec<u64>>, Vec<Vec<u32>>) = per_map_tables.into_iter().unzip();
        let (perm, sums) = (perm.concat(), sums.concat());
        let tables = UpperMaps {
            orbits,
            n_maps,
            per_map,
            perm,
            sums,
            sums_space: layout.sums_space,
            sums_divisor: StrengthReducedU32::new(layout.sums_space),
            coupling_divisor: StrengthReducedU32::new(c as u32),
            coupling: layout.coupling.clone(),
            coupling_index: layout.coupling_index.clone(),
        };
        tables.agrees_with(layout, space, map).then_some(tables)
    }

    /// Whether the tables give the maps' own images on pseudo-random values (every digit
    /// and coupling element in play): 4,096 values, fewer down to 128 when there are more
    /// than 4 maps, so that the images checked stay near 16,384 (a map that does not act
    /// orbit by orbit breaks most values; a small board's whole set-up would otherwise be
    /// this check: 65,536 images took 1.5 ms of the skewb diamond's 20).
    fn agrees_with(
        &self,
        layout: &Layout,
        space: u64,
        map: impl Fn(&Cells, usize) -> Cells + Sync,
    ) -> bool {
        let samples = (16_384 / self.n_maps as u64).clamp(128, 4096).min(space);
        (0..samples).into_par_iter().all(|i| {
            let u = spread_sample(i, space);
            let board = layout.board_of_upper(u, 0);
            let mut expected =
                (0..self.n_maps).map(|m| layout.upper_and_orientation(&map(&board, m)).0);
            let mut same = true;
            self.images(u, |v| same &= expected.next() == Some(v));
            same
        })
    }

    /// Each orbit's index into a map's table (its permutation digit and sign) in upper value
    /// `u`, and `u`'s sums' code.
    #[inline]
    fn table_indices(&self, u: u64) -> ([usize; MAX_ORBIT_DIGITS], u32) {
        let (mut p, h) = StrengthReducedU32::div_rem(u as u32, self.coupling_divisor);
        let code = self.coupling[h as usize];
        let (signs, sums) = StrengthReducedU32::div_rem(code, self.sums_divisor);
        let mut at = [0usize; MAX_ORBIT_DIGITS];
        for (a, o) in at.iter_mut().zip(&self.orbits).rev() {
            let r;
            (p, r) = StrengthReducedU32::div_rem(p, o.radix);
            *a = o.offset + 2 * r as usize + (signs >> o.sign_shift & 1) as usize;
        }
        (at, sums)
    }

    /// The upper value of the orbits' table entries summed (`acc`) and a sums' code. A code
    /// outside the coupling group (tables that disagree) gives a value past every space.
    #[inline]
    fn value_of(&self, acc: u64, sums: u32) -> u64 {
        let code = ((acc >> 32) as u32).wrapping_mul(self.sums_space).wrapping_add(sums);
        let h = self.coupling_index.get(code as usize).copied().unwrap_or(u32::MAX);
        acc as u32 as u64 + h as u64
    }

    /// Calls `visit` with the image of upper value `u` under each map, in order.
    #[inline]
    pub(crate) fn images(&self, u: u64, mut visit: impl FnMut(u64)) {
        let (at, sums) = self.table_indices(u);
        for m in 0..self.n_maps {
            let table = &self.perm[m * self.per_map..(m + 1) * self.per_map];
            let acc: u64 = at[..self.orbits.len()].iter().map(|&a| table[a]).sum();
            visit(self.value_of(acc, self.sums[m * self.sums_space as usize + sums as usize]));
        }
    }
}

impl UpperMaps {
    /// The upper values the maps reach from `first` (below `space`), by enumerating the group
    /// they generate through its stabilizer chain instead of searching: one table read per
    /// orbit and element, where a search reads every map's image of every value and marks
    /// each (the mastermorphix's 5,308,416 values: ms). The group acts on points: each orbit's
    /// `(r, sign)` values and the sums' codes, moved as the tables move them. Every element
    /// is a product of one coset representative per level of the chain, so the images of
    /// `first`'s points under every product are the values reached (each once where the
    /// action on values is faithful, as it is here). For maps that keep each orbit, as moves
    /// do; `None` where the points or the group are too many, or a map's tables do not move
    /// each orbit's points among themselves as a permutation (then search).
    pub(crate) fn reach_by_chain(&self, first: u64, space: u64) -> Option<ReachableUpper> {
        // The points: each orbit's `(r, sign)` values where its entries sit in a map's
        // table, then the sums' codes.
        let (orbits, sums_space, per_map) = (&self.orbits, self.sums_space as usize, self.per_map);
        let degree = per_map + sums_space;
        if degree > MAX_CHAIN_POINTS || orbits.len() > MAX_ORBIT_DIGITS {
            return None;
        }
        // What each orbit's point adds to an upper value: its table entry.
        let mut worth = vec![0u64; per_map];
        for o in orbits {
            for x in 0..2 * o.radix.get() as usize {
                worth[o.offset + x] = o.entry(x as u64 / 2, x as u64 % 2);
            }
        }
        let mut gens = Vec::with_capacity(self.n_maps);
        for m in 0..self.n_maps {
            let table = &self.perm[m * per_map..(m + 1) * per_map];
            let mut g = vec![u16::MAX; degree];
            for o in orbits {
                for x in 0..2 * o.radix.get() as usize {
                    // The entry must be a value of this orbit (maps that keep each orbit, as
                    // moves do): its encoding again, from the digits read.
                    let entry = table[o.offset + x];
                    let (r, sign) = (entry as u32 / o.place, (entry >> (32 + o.sign_shift)) & 1);
                    if entry != o.entry(r as u64, sign) || r >= o.radix.get() {
                        return None;
                    }
                    g[o.offset + x] = (o.offset + 2 * r as usize + sign as usize) as u16;
                }
            }
            for code in 0..sums_space {
                g[per_map + code] = (per_map + self.sums[m * sums_space + code] as usize) as u16;
            }
            let mut hit = vec![false; degree];
            for &p in &g {
                if p as usize >= degree || std::mem::replace(&mut hit[p as usize], true) {
                    return None;
                }
            }
            gens.push(g);
        }
        let chain = StabChain::new(degree, &gens);
        let lengths = chain.orbit_lengths();
        let order: u64 = lengths.iter().try_fold(1u64, |a, &l| a.checked_mul(l as u64))?;
        let reps: usize = lengths.iter().sum();
        if order > 2 * space || reps.saturating_mul(degree) > MAX_CHAIN_ENTRIES {
            return None;
        }
        // Each level's inverse coset representatives, whole, the deepest level first. Every
        // element is `r_0 r_1 ... r_last` (one representative a level) in exactly one way, so
        // its inverse `r_last^-1 ... r_0^-1` runs over the group as well, and the values
        // reached are the same: walked so, the innermost loop runs over the deepest level,
        // whose elements fix the most points (what those add to a value is summed once for
        // the loop, below; the mastermorphix in 0.89x the time).
        let mut levels: Vec<Vec<u16>> = Vec::with_capacity(lengths.len());
        for (i, &len) in lengths.iter().enumerate().rev() {
            let mut level = vec![0u16; len * degree];
            for (k, inv) in level.chunks_mut(degree).enumerate() {
                chain.rep_inv_into(i, k, inv);
            }
            levels.push(level);
        }
        // `first`'s points: each orbit's value, and the sums' code.
        let (at, sums) = self.table_indices(first);
        let n_points = orbits.len() + 1;
        let mut first_points = [0u16; MAX_POINTS_TRACKED];
        for (p, &a) in first_points.iter_mut().zip(&at[..orbits.len()]) {
            *p = a as u16;
        }
        first_points[orbits.len()] = (per_map + sums as usize) as u16;

        // An element is `r_last ... r_1 r_0` (the deepest level's representative first):
        // tasks take the representatives of the deeper levels, then walk the first ones.
        // Enough tasks to share out (at least 64, or 256 while they stay few): the skewb's
        // 51,840 elements as that many tasks took 3 MB, half its peak over the process's own.
        let mut tasks = vec![first_points];
        let mut depth = levels.len();
        while depth > 0 && tasks.len() < 256 {
            let next = tasks.len() * (levels[depth - 1].len() / degree);
            if tasks.len() >= 64 && next > MAX_TASKS {
                break;
            }
            depth -= 1;
            let mut more = Vec::with_capacity(next);
            for t in &tasks {
                more.extend(levels[depth].chunks(degree).map(|rep| moved(t, rep, n_points)));
            }
            tasks = more;
        }
        // The points some representative of the innermost level moves (see `walk`).
        let mut inner_moves = vec![false; degree];
        if depth > 0 {
            for rep in levels[0].chunks(degree) {
                for (p, &q) in rep.iter().enumerate() {
                    inner_moves[p] |= q as usize != p;
                }
            }
        }
        // A bitmap per thread, joined after: the values land all over the space, and
        // atomic writes there would wait for each line in turn.
        let per_thread = tasks.len().div_ceil(rayon::current_num_threads().max(1));
        let parts: Vec<Option<Vec<u64>>> = (tasks.par_chunks(per_thread))
            .map(|tasks| {
                let mut words = vec![0u64; space.div_ceil(64) as usize];
                let mut failed = false;
                // Values are marked `AHEAD` leaves after their word is asked of the cache:
                // the bitmap outgrows the core's cache, and each mark was a wait for a line.
                let mut pending = [u64::MAX; AHEAD];
                let mut slot = 0;
                for t in tasks {
                    walk(&levels, degree, depth, t, n_points, &mut |q, reps| {
                        // The points the innermost level leaves alone add the same to every
                        // leaf: summed once.
                        let (mut fixed, mut moving, mut m) = (0u64, [0u16; MAX_POINTS_TRACKED], 0);
                        for &p in &q[..n_points - 1] {
                            if inner_moves[p as usize] {
                                moving[m] = p;
                                m += 1;
                            } else {
                                fixed += worth[p as usize];
                            }
                        }
                        for last in reps.chunks(degree) {
                            let acc: u64 = fixed
                                + moving[..m]
                                    .iter()
                                    .map(|&p| worth[last[p as usize] as usize])
                                    .sum::<u64>();
                            let sums = last[q[n_points - 1] as usize] as usize - per_map;
                            let u = self.value_of(acc, sums as u32);
                            if u >= space {
                                failed = true;
                                return;
                            }
                            crate::table::prefetch_at(
                                words.as_ptr().wrapping_add((u / 64) as usize),
                            );
                            let due = std::mem::replace(&mut pending[slot], u);
                            slot = (slot + 1) % AHEAD;
                            if due != u64::MAX {
                                mark(&mut words, due);
                            }
                        }
                    });
                }
                for due in pending.into_iter().filter(|&d| d != u64::MAX) {
                    mark(&mut words, due);
                }
                (!failed).then_some(words)
            })
            .collect();
        let mut parts = parts.into_iter().collect::<Option<Vec<_>>>()?.into_iter();
        let mut words = parts.next()?;
        for part in parts {
            words.iter_mut().zip(&part).for_each(|(w, p)| *w |= p);
        }
        Some(ReachableUpper::from_bits(words))
    }
}

/// Leaves between asking the cache for a value's word and marking it there.
const AHEAD: usize = 16;
/// Most points the group of upper values acts on in [`UpperMaps::reach_by_chain`].
const MAX_CHAIN_POINTS: usize = 1 << 13;
/// Most tasks [`UpperMaps::reach_by_chain`] splits its walk into, once it has 64.
const MAX_TASKS: usize = 1 << 14;
/// Most entries of the coset representatives kept whole (2 bytes each).
const MAX_CHAIN_ENTRIES: usize = 1 << 24;
/// Most orbits an upper value holds digits of.
const MAX_ORBIT_DIGITS: usize = 16;
/// Points followed through a product: one per orbit, and the sums.
const MAX_POINTS_TRACKED: usize = MAX_ORBIT_DIGITS + 1;

/// Sets bit `u` of a bitmap (bit `u % 64` of word `u / 64`).
#[inline(always)]
fn mark(words: &mut [u64], u: u64) {
    words[(u / 64) as usize] |= 1 << (u % 64);
}

/// Points moved by a permutation.
#[inline(always)]
fn moved(points: &[u16; MAX_POINTS_TRACKED], rep: &[u16], n: usize) -> [u16; MAX_POINTS_TRACKED] {
    let mut out = [0u16; MAX_POINTS_TRACKED];
    for (o, &p) in out[..n].iter_mut().zip(&points[..n]) {
        *o = rep[p as usize];
    }
    out
}

/// Calls `leaves(points, reps)` for every product of one representative of each of levels
/// `1..depth`, the deepest of them first, with the points it moves `points` to and the
/// representatives `reps` of level 0 that complete it (each `degree` points, applied last;
/// the identity alone where `depth` is 0).
fn walk(
    levels: &[Vec<u16>],
    degree: usize,
    depth: usize,
    points: &[u16; MAX_POINTS_TRACKED],
    n: usize,
    leaves: &mut impl FnMut(&[u16], &[u16]),
) {
    match depth {
        0 => leaves(&points[..n], &crate::group::stabchain::identity(degree)),
        // The leaves read their points through the last representative themselves: an
        // array of moved points, written point by point and read whole, would stall.
        1 => leaves(&points[..n], &levels[0]),
        _ => {
            for rep in levels[depth - 1].chunks(degree) {
                walk(levels, degree, depth - 1, &moved(points, rep, n), n, leaves);
            }
        }
    }
}

impl UpperSteps for UpperMaps {
    #[inline]
    fn neighbours(&self, u: u64, visit: impl FnMut(u64)) {
        self.images(u, visit)
    }
}

impl Layout {
    /// The solved arrangement with orientation sums of code `code`: each orbit's sum on its
    /// last tile (whatever parity and sum constraints say: only maps read it).
    fn with_sums(&self, mut code: u32) -> Cells {
        let mut out = self.solved();
        for o in self.orbits.iter().rev().filter(|o| o.free_mod > 1) {
            let e = o.free_mod as u32;
            let tile = *o.orient_tiles.last().expect("an orbit has a tile");
            out.0[tile as usize] |= ((code % e) as u8) << TILE_BITS;
            code /= e;
        }
        out
    }

    /// The moves' tables on upper values, in solving direction ([`UpperMaps`]).
    pub(crate) fn upper_moves(&self) -> Option<UpperMaps> {
        UpperMaps::new(self, self.moves.len(), |s, m| self.moves.solve_step(s, m))
    }
}
