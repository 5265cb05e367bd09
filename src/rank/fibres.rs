//! Dense ranks of the boards of a group smaller than its invariants, by a projection and
//! its fibres: for identical pieces in such a group (the trapentrix, 38 cells, where the
//! working form holds 32; the 235 cuboid), whose boards are not group elements, so that
//! neither the invariants' layout nor the stabilizer chain counts them.
//!
//! Every orbit of cells has a coordinate: the arrangement of its labels (a multiset
//! permutation) and each cell's reduced orientation. The orbits are split in two: the
//! *outer* ones, whose coordinates together are the projection `π`, and the *inner* ones.
//! The boards `B` are one orbit of the group `G`, so
//! - the projections the moves reach, `π(B)`, are found by a search over the outer
//!   coordinates alone, which also gives, for each reached `a`, an element `t_a` of `G` (a
//!   word of moves) taking the solved projection `a_0` to `a`;
//! - the fibre over `a_0`, `F_0 = {c : (a_0, c) ∈ B}`, is the orbit of the solved inner
//!   coordinates under `H`, the elements of `G` that keep `a_0`. Schreier's lemma gives
//!   `H`'s generators, `t_a m t_{a m}^-1` for every reached `a` and move `m`, of which a
//!   stabilizer chain keeps the few that generate the rest;
//! - `(a, c)` is a board exactly when `c t_a^-1 ∈ F_0` (`t_a^-1` takes the board to one
//!   over `a_0`, and `G` keeps `B`), so `|B| = |π(B)| |F_0|` and the rank of `(a, c)` is
//!   `index(a) |F_0| + position of c t_a^-1 in F_0`.
//!
//! Moves change a state's outer index and inner coordinates by per-move tables; a rank maps
//! the inner coordinates through the stored `t_a^-1`. `|B|` divides `|G|` (orbit-stabilizer),
//! which the build checks.

use std::collections::HashMap;
use std::sync::OnceLock;

use num_bigint::BigUint;
use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};
use strength_reduce::StrengthReducedU64;

use super::StateRanking;
use super::bit_rank::BitRank;
use super::multiset::Arrangements;
use super::runs::{CellRuns, OffsetTable, RunMove};
use crate::group::invariants::{Invariants, cell_list, exchanges_of_alike};
use crate::group::stabchain::{Perm, StabChain};
use crate::puzzle::{Board, Puzzle};
use crate::{Error, Result};

/// Most cells an orbit may have: a piece is a byte, its value below 32 and its turn below 8.
const MAX_ORBIT_CELLS: usize = 32;
const VALUE_BITS: u32 = 5;
const VALUE_MASK: u8 = (1 << VALUE_BITS) - 1;
/// Most inner orbits (a state holds their coordinates inline).
pub const MAX_INNER: usize = 4;
/// Most entries of one orbit's per-move tables ([`OrbitCoord::tabulate`]): orbits past it
/// move by computing (outer orbits only: inner ones must have tables).
const MAX_MOVE_TABLE: u64 = 1 << 24;
/// Most entries of one inner orbit's table of maps ([`MapTable`]).
const MAX_MAP_TABLE: u64 = 1 << 25;
/// Orbits considered for the inner side (subsets of them are tried).
const MAX_ELIGIBLE: usize = 12;
/// Splits whose projections are searched to choose between them.
const SPLITS_EVALUATED: usize = 12;

/// Splits whose projections all pass [`MAX_OUTER`] before any fits, after which no more
/// are tried.
const FAILED_SPLITS_GIVE_UP: usize = 3;

/// Reasons a refusal gives in full, of one per split tried.
const SHOWN_REASONS: usize = 2;
/// Most projections the moves may reach (each keeps its moves and two maps of the inner
/// cells).
const MAX_OUTER: usize = 1 << 22;
/// Outer spaces of at most this many values are searched with a dense index (64 MiB).
const MAX_DENSE_INDEX: u64 = 1 << 24;
/// Larger outer spaces of at most this many values are searched with a bitmap of them (128
/// MiB, and 64 MiB of counts to rank the keys by), larger ones with a hash map.
const MAX_BITMAP_SPACE: u64 = 1 << 30;
/// Most boards over the solved projection.
const MAX_FIBRE: usize = 1 << 26;
/// Inner spaces of at most this many values mark the fibre in a bitmap (a rank counts its
/// bits); larger ones search a sorted list.
const MAX_BITMAP: u64 = 1 << 30;

/// Most bytes of the offset tables that walk the fibres as runs ([`fibre_runs`]), and at
/// most a quarter of the memory available (256 MiB where the system does not tell): the
/// 235's take 30 MB; the trapentrix's took 1.5 GB over whole fibres, 2 MB over its last
/// inner orbit.
const MAX_RUN_TABLES: u64 = 1 << 31;

/// Fewest ranks of a run over the last inner orbit alone ([`fibre_runs`]): each run ranks its
/// image runs once per move, which its boards must repay.
const MIN_LAST_ORBIT_RUN: u64 = 256;

/// The bytes the offset tables of runs may take here (see [`MAX_RUN_TABLES`]).
fn run_tables_bound() -> u64 {
    crate::table::available_memory().map_or(1 << 28, |m| (m / 4).min(MAX_RUN_TABLES))
}

/// One orbit's pieces: `value | turn << VALUE_BITS` per cell, in the orbit's cell order.
type Pieces = [u8; MAX_ORBIT_CELLS];

/// One orbit's coordinate.
#[derive(Clone, Debug)]
struct OrbitCoord {
    /// The cells, increasing.
    cells: Vec<u8>,
    /// `value_of[label]`: the label's value in this orbit (`u8::MAX`: not one of its labels).
    value_of: Vec<u8>,
    /// `labels[value]`.
    labels: Vec<u8>,
    /// `counts[value]`: how many pieces carry it.
    counts: Vec<u8>,
    arrangements: Arrangements,
    free_mod: u8,
    tied_mod: u8,
    /// `potential[value]`: the orientation potential of the label's first home (a reduced
    /// orientation is counted from it, as [`super::Multiset`] counts).
    potential: Vec<u8>,
    /// `unseen[value]`: the label's orientation is not seen (its turn stays 0).
    unseen: Vec<bool>,
    /// `free_mod^cells`: the orientation digits, one per cell.
    orient_space: u64,
    size: u64,
    /// `moves[value * maps + m]`: the value moved by the `m`-th of the puzzle's moves, then
    /// undone ones ([`OrbitCoord::tabulate`]); empty past [`MAX_MOVE_TABLE`] entries.
    moves: Vec<u32>,
    /// The moves restricted to the orbit (local `perm`, `twist`), for values past the table.
    local_moves: Vec<(Vec<u8>, Vec<u8>)>,
    /// `decoded[value]`, up to [`MAX_DECODED`] values: unranking walks the arrangements'
    /// table place by place, which the set-up's maps would do for every value.
    decoded: Vec<Pieces>,
}

/// Most values of an orbit whose pieces are kept decoded (2 MiB).
const MAX_DECODED: u64 = 1 << 16;

impl OrbitCoord {
    fn new(puzzle: &Puzzle, inv: &Invariants, j: usize) -> Result<OrbitCoord> {
        let o = &inv.orbits[j];
        let n = o.cells.len();
        let solved = puzzle.solved();
        let refuse = |why: String| {
            Err(Error::Unsupported(format!("the orbit of cells {}: {why}", cell_list(&o.cells))))
        };
        if n > MAX_ORBIT_CELLS {
            return refuse(format!("{n} cells, more than {MAX_ORBIT_CELLS}"));
        }
        if o.free_mod > 8 {
            return refuse(format!("orientations free modulo {}, more than 8", o.free_mod));
        }
        let mut labels: Vec<u8> = o.cells.iter().map(|&c| solved.tiles[c as usize]).collect();
        labels.sort_unstable();
        labels.dedup();
        if labels.len() > 1 << VALUE_BITS {
            return refuse(format!("{} distinct labels, more than 32", labels.len()));
        }
        let mut value_of = vec![u8::MAX; 256];
        for (v, &l) in labels.iter().enumerate() {
            value_of[l as usize] = v as u8;
        }
        let unseen_of = puzzle.defined().map(|d| d.unseen_orientations());
        let unseen: Vec<bool> = labels
            .iter()
            .map(|&l| unseen_of.is_some_and(|u| u.get(l as usize).copied().unwrap_or(false)))
            .collect();
        let mut counts = vec![0u8; labels.len()];
        let mut potential = vec![0u8; labels.len()];
        let mut homed = vec![false; labels.len()];
        for &c in &o.cells {
            let label = solved.tiles[c as usize];
            let v = value_of[label as usize] as usize;
            counts[v] += 1;
            let f = inv.potential[c as usize];
            if !homed[v] {
                (homed[v], potential[v]) = (true, f);
            } else if !unseen[v] && !(potential[v] + inv.orient_mod - f).is_multiple_of(o.tied_mod)
            {
                // A piece's orientation modulo `tied_mod` tells its home's potential (as
                // `Multiset` refuses the same orbits).
                let homes: Vec<u8> = o
                    .cells
                    .iter()
                    .copied()
                    .filter(|&h| solved.tiles[h as usize] == label)
                    .collect();
                return refuse(format!(
                    "the identical pieces solved on cells {} have homes whose orientations the \
                     moves tie differently, so the moves tell them apart",
                    cell_list(&homes)
                ));
            }
        }
        let too_large = || refuse("more arrangements than 64-bit ranks count".into());
        let Some(arrangements) = Arrangements::new(&counts) else { return too_large() };
        let orient_space = (o.free_mod as u64).checked_pow(n as u32);
        let Some(size) = orient_space.and_then(|s| s.checked_mul(arrangements.count())) else {
            return too_large();
        };
        Ok(OrbitCoord {
            cells: o.cells.clone(),
            value_of,
            labels,
            counts,
            arrangements,
            free_mod: o.free_mod,
            tied_mod: o.tied_mod,
            potential,
            unseen,
            orient_space: orient_space.unwrap_or(1),
            size,
            moves: Vec::new(),
            local_moves: Vec::new(),
            decoded: Vec::new(),
        })
        .map(|mut o: OrbitCoord| {
            if o.size <= MAX_DECODED {
                o.decoded = (0..o.size).map(|v| o.unrank(v)).collect();
            }
            o
        })
    }

    /// Tabulates the moves (maps of every cell) on this orbit's values, where they are few.
    fn tabulate(&mut self, moves: &[CellMap], local: &[u8]) {
        self.local_moves = moves
            .iter()
            .map(|m| {
                let perm = self.cells.iter().map(|&c| local[m.perm[c as usize] as usize]);
                (perm.collect(), self.cells.iter().map(|&c| m.twist[c as usize]).collect())
            })
            .collect();
        let n = self.local_moves.len();
        if self.size.saturating_mul(n as u64) > MAX_MOVE_TABLE {
            return;
        }
        let mut table = vec![0u32; self.size as usize * n];
        for (v, row) in table.chunks_mut(n).enumerate() {
            let p = self.unrank(v as u64);
            for (out, (perm, twist)) in row.iter_mut().zip(&self.local_moves) {
                *out = self.rank(&self.apply(&p, perm, twist)) as u32;
            }
        }
        self.moves = table;
    }

    /// The coordinate without its moves ([`OrbitCoord::tabulate`]), for a ranking that no
    /// longer steps it.
    fn without_moves(&self) -> OrbitCoord {
        OrbitCoord { moves: Vec::new(), local_moves: Vec::new(), ..self.clone() }
    }

    /// A value moved by the `m`-th move of [`OrbitCoord::tabulate`].
    #[inline]
    fn step(&self, value: u64, m: usize) -> u64 {
        match self.moves.is_empty() {
            false => self.moves[value as usize * self.local_moves.len() + m] as u64,
            true => {
                let (perm, twist) = &self.local_moves[m];
                self.rank(&self.apply(&self.unrank(value), perm, twist))
            }
        }
    }

    #[inline]
    fn rank(&self, p: &Pieces) -> u64 {
        let n = self.cells.len();
        let arrangement = self.arrangements.rank(|i| (p[i] & VALUE_MASK) as usize);
        let e = self.free_mod as u64;
        let turns = p[..n].iter().fold(0u64, |acc, &x| acc * e + (x >> VALUE_BITS) as u64);
        arrangement * self.orient_space + turns
    }

    #[inline]
    fn unrank(&self, value: u64) -> Pieces {
        if let Some(p) = self.decoded.get(value as usize) {
            return *p;
        }
        let mut p = [0u8; MAX_ORBIT_CELLS];
        let (arrangement, mut turns) = (value / self.orient_space, value % self.orient_space);
        self.arrangements.unrank(arrangement, |i, x| p[i] = x as u8);
        let e = self.free_mod as u64;
        for x in p[..self.cells.len()].iter_mut().rev() {
            *x |= ((turns % e) as u8) << VALUE_BITS;
            turns /= e;
        }
        p
    }

    /// The pieces moved by a map of this orbit's cells: the piece on local cell `i` goes to
    /// `perm[i]`, turned by `twist[i]`.
    #[inline]
    fn apply(&self, p: &Pieces, perm: &[u8], twist: &[u8]) -> Pieces {
        let mut out = [0u8; MAX_ORBIT_CELLS];
        let e = self.free_mod;
        for i in 0..self.cells.len() {
            let value = p[i] & VALUE_MASK;
            let turn = match self.unseen[value as usize] {
                true => 0,
                false => ((p[i] >> VALUE_BITS) + twist[i]) % e,
            };
            out[perm[i] as usize] = value | (turn << VALUE_BITS);
        }
        out
    }

    /// Every value of the orbit, in order, moved by a map of its cells (as [`OrbitCoord::apply`]
    /// reads it): one row of a table of maps.
    fn values_moved<'a>(
        &'a self,
        perm: &'a [u8],
        twist: &'a [u8],
    ) -> impl Iterator<Item = u32> + 'a {
        (0..self.size).map(move |v| self.rank(&self.apply(&self.unrank(v), perm, twist)) as u32)
    }

    /// The orbit's pieces on a board, or why the board cannot be one of the puzzle's.
    fn pieces_of(&self, inv: &Invariants, board: &Board) -> Result<Pieces> {
        let bad = |reason: String| Err(Error::InvalidBoard(reason));
        let mut p = [0u8; MAX_ORBIT_CELLS];
        let mut counts = vec![0u8; self.labels.len()];
        for (i, &c) in self.cells.iter().enumerate() {
            let cell = c as usize;
            let label = board.tiles[cell];
            let v = self.value_of[label as usize];
            if v == u8::MAX {
                return bad(format!(
                    "the piece solved on cell {} cannot reach cell {}: the cells {} hold the \
                     pieces solved on cells {} only",
                    label as usize + 1,
                    cell + 1,
                    cell_list(&self.cells),
                    cell_list(&self.labels)
                ));
            }
            counts[v as usize] += 1;
            if self.unseen[v as usize] {
                p[i] = v;
                continue;
            }
            let home = self.potential[v as usize];
            let Some(turn) = inv.reduced_orientation(cell, board.orient[cell], home) else {
                return bad(format!(
                    "the piece solved on cell {} cannot stand on cell {} with that orientation: \
                     orientation mod {} is fixed by the cell",
                    label as usize + 1,
                    cell + 1,
                    self.tied_mod
                ));
            };
            p[i] = v | (turn << VALUE_BITS);
        }
        if let Some(v) = (0..counts.len()).find(|&v| counts[v] != self.counts[v]) {
            return bad(format!(
                "the cells {} hold {} pieces like the one solved on cell {}, and every \
                 reachable board has {}",
                cell_list(&self.cells),
                counts[v],
                self.labels[v] as usize + 1,
                self.counts[v]
            ));
        }
        Ok(p)
    }

    /// Writes the orbit's pieces onto a board.
    fn put_on(&self, inv: &Invariants, p: &Pieces, board: &mut Board) {
        for (i, &c) in self.cells.iter().enumerate() {
            let (v, turn) = ((p[i] & VALUE_MASK) as usize, p[i] >> VALUE_BITS);
            let cell = c as usize;
            board.tiles[cell] = self.labels[v];
            board.orient[cell] = match self.unseen[v] {
                true => 0,
                false => inv.shown_orientation(cell, turn, self.potential[v]),
            };
        }
    }
}

/// A map of some cells (every orbit's cells onto themselves): the piece on the `i`-th cell
/// goes to the `perm[i]`-th, turned by `twist[i]` (reduced orientations).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct CellMap {
    perm: Vec<u8>,
    twist: Vec<u8>,
}

impl CellMap {
    fn identity(n: usize) -> CellMap {
        CellMap { perm: (0..n as u8).collect(), twist: vec![0; n] }
    }

    /// First `self`, then `next`; `modulus[i]` the free orientations of the `i`-th cell.
    fn then(&self, next: &CellMap, modulus: &[u8]) -> CellMap {
        let at = self.perm.iter().map(|&j| j as usize);
        CellMap {
            perm: at.clone().map(|j| next.perm[j]).collect(),
            twist: (at.zip(&self.twist).zip(modulus))
                .map(|((j, &t), &e)| (t + next.twist[j]) % e)
                .collect(),
        }
    }

    fn inverse(&self, modulus: &[u8]) -> CellMap {
        let n = self.perm.len();
        let mut out = CellMap { perm: vec![0; n], twist: vec![0; n] };
        for (i, ((&j, &t), &e)) in self.perm.iter().zip(&self.twist).zip(modulus).enumerate() {
            out.perm[j as usize] = i as u8;
            out.twist[j as usize] = (e - t % e) % e;
        }
        out
    }

    fn is_identity(&self) -> bool {
        self.twist.iter().all(|&t| t == 0)
            && self.perm.iter().enumerate().all(|(i, &p)| p as usize == i)
    }
}

/// Some orbits taken together: their coordinates as one mixed-radix key, the first most
/// significant.
#[derive(Clone, Debug)]
struct Side {
    /// Indices into the ranking's orbits.
    orbits: Vec<usize>,
    /// `offset[k]`: where the `k`-th orbit's cells start among the side's cells.
    offset: Vec<usize>,
    /// The cells of the side, orbit by orbit.
    cells: Vec<u8>,
    /// `modulus[i]`: the free orientations of the side's `i`-th cell.
    modulus: Vec<u8>,
    space: u64,
    /// Each orbit's values, as a divisor: a key is read digit by digit, and a division by a
    /// variable took a quarter of the projections' search.
    sizes: Vec<StrengthReducedU64>,
}

impl Side {
    fn new(coords: &[OrbitCoord], orbits: Vec<usize>) -> Option<Side> {
        let (mut offset, mut cells, mut modulus, mut space) = (vec![], vec![], vec![], 1u64);
        for &j in &orbits {
            offset.push(cells.len());
            cells.extend(&coords[j].cells);
            modulus.extend(std::iter::repeat_n(coords[j].free_mod, coords[j].cells.len()));
            space = space.checked_mul(coords[j].size)?;
        }
        let sizes = orbits.iter().map(|&j| StrengthReducedU64::new(coords[j].size)).collect();
        Some(Side { orbits, offset, cells, modulus, space, sizes })
    }

    /// A puzzle move restricted to the side's cells (orbits are kept by every move).
    fn restrict(&self, perm: &[u8], twist: &[u8], local: &[u8]) -> CellMap {
        let (mut p, mut t) = (Vec::new(), Vec::new());
        for (k, _) in self.orbits.iter().enumerate() {
            for &c in &self.cells[self.offset[k]..self.orbit_end(k)] {
                let to = perm[c as usize] as usize;
                p.push((self.offset[k] + local[to] as usize) as u8);
                t.push(twist[c as usize]);
            }
        }
        CellMap { perm: p, twist: t }
    }

    /// Where the `k`-th orbit's cells end among the side's.
    fn orbit_end(&self, k: usize) -> usize {
        self.offset.get(k + 1).copied().unwrap_or(self.cells.len())
    }

    /// A map of the side's cells on its `k`-th orbit alone, as a map of that orbit's cells.
    fn orbit_map(&self, k: usize, s: &CellMap) -> CellMap {
        let n = self.orbit_end(k) - self.offset[k];
        let (perm, twist) = self.orbit_part(k, &s.perm, &s.twist);
        CellMap { perm: perm[..n].to_vec(), twist: twist.to_vec() }
    }

    /// A map of the side's cells (`perm` and `twist` as [`CellMap`] holds them) on its `k`-th
    /// orbit alone: where each of the orbit's cells goes, counted within the orbit (the first
    /// `n` entries, `n` its cells), and their twists.
    #[inline]
    fn orbit_part<'a>(
        &self,
        k: usize,
        perm: &[u8],
        twist: &'a [u8],
    ) -> ([u8; MAX_ORBIT_CELLS], &'a [u8]) {
        let (start, end) = (self.offset[k], self.orbit_end(k));
        let mut local = [0u8; MAX_ORBIT_CELLS];
        for (out, &p) in local.iter_mut().zip(&perm[start..end]) {
            *out = p - start as u8;
        }
        (local, &twist[start..end])
    }

    /// The key of per-orbit values.
    fn key(&self, coords: &[OrbitCoord], values: impl Iterator<Item = u64>) -> u64 {
        values.zip(&self.orbits).fold(0, |acc, (v, &j)| acc * coords[j].size + v)
    }

    /// The per-orbit values of a key, into `out` (one per orbit of the side).
    #[inline]
    fn values_into(&self, coords: &[OrbitCoord], mut key: u64, out: &mut [u64]) {
        for k in (0..self.orbits.len()).rev() {
            let size = coords[self.orbits[k]].size;
            out[k] = key % size;
            key /= size;
        }
    }

    /// The key moved by the `m`-th move of [`OrbitCoord::tabulate`].
    #[inline]
    fn step(&self, coords: &[OrbitCoord], mut key: u64, m: usize) -> u64 {
        let (mut out, mut weight) = (0u64, 1u64);
        for (&j, &size) in self.orbits.iter().zip(&self.sizes).rev() {
            let (rest, value) = StrengthReducedU64::div_rem(key, size);
            let o = &coords[j];
            out += o.step(value, m) * weight;
            (key, weight) = (rest, weight * o.size);
        }
        out
    }

    /// The key of a state moved by a map of the side's cells.
    fn mapped(&self, coords: &[OrbitCoord], key: u64, map: &CellMap) -> u64 {
        let mut values = vec![0u64; self.orbits.len()];
        self.values_into(coords, key, &mut values);
        let mut out = 0u64;
        for (k, &j) in self.orbits.iter().enumerate() {
            let o = &coords[j];
            let (perm, twist) = self.orbit_part(k, &map.perm, &map.twist);
            let moved = o.apply(&o.unrank(values[k]), &perm[..o.cells.len()], twist);
            out = out * o.size + o.rank(&moved);
        }
        out
    }
}

/// A board in the ranking's working form: the index of its projection among those the moves
/// reach, and its inner orbits' coordinates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FibreState {
    pub(crate) outer: u32,
    pub(crate) inner: [u32; MAX_INNER],
}

/// The fibre over the solved projection: its keys, and a way to find a key's place.
#[derive(Clone, Debug)]
struct Fibre {
    len: u64,
    /// The keys, increasing, where there is no bitmap.
    keys: Vec<u64>,
    /// For inner spaces up to [`MAX_BITMAP`]: a bit per key, and per 512 bits the keys
    /// before them.
    bits: Vec<u64>,
    before: Vec<u64>,
}

impl Fibre {
    /// The fibre of sorted keys.
    fn new(mut keys: Vec<u64>, space: u64) -> Fibre {
        let len = keys.len() as u64;
        let (mut bits, mut before) = (Vec::new(), Vec::new());
        if space <= MAX_BITMAP {
            bits = vec![0u64; space.div_ceil(64) as usize];
            for &k in &keys {
                bits[(k / 64) as usize] |= 1 << (k % 64);
            }
            let mut count = 0u64;
            for block in bits.chunks(8) {
                before.push(count);
                count += block.iter().map(|w| w.count_ones() as u64).sum::<u64>();
            }
            keys = Vec::new();
        }
        Fibre { len, keys, bits, before }
    }

    fn len(&self) -> u64 {
        self.len
    }

    /// The place of a key in the fibre, if it is one of its keys.
    #[inline]
    fn position(&self, key: u64) -> Option<u64> {
        if self.bits.is_empty() {
            return self.keys.binary_search(&key).ok().map(|i| i as u64);
        }
        let word = (key / 64) as usize;
        let bit = 1u64 << (key % 64);
        if self.bits.get(word)? & bit == 0 {
            return None;
        }
        let block = word / 8;
        let mut count = self.before[block];
        for w in &self.bits[block * 8..word] {
            count += w.count_ones() as u64;
        }
        Some(count + (self.bits[word] & (bit - 1)).count_ones() as u64)
    }
}

/// The projections the moves reach, found by a search over the outer coordinates.
struct Projections {
    /// Their keys, in the order found (the solved one first).
    keys: Vec<u64>,
    /// `moves[a * maps + m]`: the index of projection `a` moved by the `m`-th map.
    moves: Vec<u32>,
    /// `parent[b] = (a, m)`: `b` was first found as `a` moved by the `m`-th map.
    parent: Vec<(u32, u32)>,
}

impl Projections {
    /// The projections `a0` reaches under the `maps`, or `None` past `most` of them.
    fn search(
        coords: &[OrbitCoord],
        outer: &Side,
        a0: u64,
        (maps, most): (usize, usize),
    ) -> Option<Projections> {
        if outer.space > MAX_DENSE_INDEX && outer.space <= MAX_BITMAP_SPACE {
            return Projections::search_by_bitmap(coords, outer, a0, (maps, most));
        }
        let mut p = Projections { keys: vec![a0], moves: Vec::new(), parent: vec![(0, 0)] };
        // Found so far, by key: a dense index where the outer space is small (this search
        // runs for several splits), else a map.
        let mut dense = match outer.space <= MAX_DENSE_INDEX {
            true => vec![u32::MAX; outer.space as usize],
            false => Vec::new(),
        };
        let mut sparse = FxHashMap::default();
        let mut index_of = |key: u64, next: u32| match dense.get_mut(key as usize) {
            Some(i) if *i == u32::MAX => {
                *i = next;
                next
            }
            Some(i) => *i,
            None => *sparse.entry(key).or_insert(next),
        };
        index_of(a0, 0);
        let mut i = 0;
        while i < p.keys.len() {
            for m in 0..maps {
                let b = outer.step(coords, p.keys[i], m);
                let next = p.keys.len() as u32;
                let index = index_of(b, next);
                if index == next {
                    if p.keys.len() >= most {
                        return None;
                    }
                    p.keys.push(b);
                    p.parent.push((i as u32, m as u32));
                }
                p.moves.push(index);
            }
            i += 1;
        }
        Some(p)
    }

    /// [`Projections::search`] over an outer space too large for a dense index: the keys
    /// found are marked in a bitmap of the space, a bit per value, and indexed afterwards by
    /// their rank among the marked ones. A hash map of millions of keys was most of the
    /// eliac's `info` (a split's search took 2-3 s, most of it failing past the limit).
    fn search_by_bitmap(
        coords: &[OrbitCoord],
        outer: &Side,
        a0: u64,
        (maps, most): (usize, usize),
    ) -> Option<Projections> {
        let mut seen = vec![0u64; outer.space.div_ceil(64) as usize];
        // Marks `key` seen: whether it was not.
        let mark = |seen: &mut [u64], key: u64| {
            let (word, bit) = (&mut seen[(key / 64) as usize], 1u64 << (key % 64));
            let new = *word & bit == 0;
            *word |= bit;
            new
        };
        let mut p = Projections { keys: vec![a0], moves: Vec::new(), parent: vec![(0, 0)] };
        mark(&mut seen, a0);
        // A few keys' images at a time, their words asked of the cache before any is
        // marked: the bitmap outgrows the cache, and each mark was a wait for a line. Keys
        // are still taken, and their images marked, in the order found.
        const AHEAD: usize = 16;
        let mut moved = Vec::with_capacity(AHEAD * maps);
        let mut i = 0;
        while i < p.keys.len() {
            let end = (i + AHEAD).min(p.keys.len());
            moved.clear();
            for a in i..end {
                for m in 0..maps {
                    let b = outer.step(coords, p.keys[a], m);
                    crate::table::prefetch_at(seen.as_ptr().wrapping_add((b / 64) as usize));
                    moved.push(b);
                }
            }
            for (x, &b) in moved.iter().enumerate() {
                if mark(&mut seen, b) {
                    if p.keys.len() >= most {
                        return None;
                    }
                    p.keys.push(b);
                    p.parent.push(((i + x / maps) as u32, (x % maps) as u32));
                }
            }
            i = end;
        }
        let ranks = BitRank::from_words(seen);
        let mut index = vec![0u32; p.keys.len()];
        for (i, &key) in p.keys.iter().enumerate() {
            index[ranks.rank(key) as usize] = i as u32;
        }
        // The images again, a few keys at a time as above: each reads its rank's words,
        // then its index.
        let mut moves = vec![0u32; p.keys.len() * maps];
        let chunks = moves.par_chunks_mut(AHEAD * maps).enumerate();
        chunks.for_each_init(Vec::new, |images, (c, out)| {
            let keys = &p.keys[c * AHEAD..(c * AHEAD + out.len() / maps)];
            images.clear();
            for x in 0..out.len() {
                let b = outer.step(coords, keys[x / maps], x % maps);
                ranks.prefetch(b);
                images.push(b);
            }
            for (o, &b) in out.iter_mut().zip(images.iter()) {
                *o = ranks.rank(b);
                crate::table::prefetch_at(index.as_ptr().wrapping_add(*o as usize));
            }
            for o in out.iter_mut() {
                *o = index[*o as usize];
            }
        });
        p.moves = moves;
        Some(p)
    }
}

/// `t_a^-1` and `t_a` on one inner orbit as a table, where their distinct restrictions to
/// it are few enough: a rank then maps that orbit's value by one read.
#[derive(Clone, Debug)]
struct MapTable {
    /// `table[id * size + value]`: the value moved by the map `id`; `u16` where values fit.
    narrow: Vec<u16>,
    wide: Vec<u32>,
    size: usize,
    /// `ids[2 a]`: the id of `t_a^-1`; `ids[2 a + 1]`: of `t_a`.
    ids: Vec<u32>,
}

impl MapTable {
    #[inline(always)]
    fn map(&self, a: usize, toward: usize, value: u32) -> u32 {
        let i = self.ids[2 * a + toward] as usize * self.size + value as usize;
        match self.narrow.is_empty() {
            false => self.narrow[i] as u32,
            true => self.wide[i],
        }
    }
}

/// Every inner orbit's [`MapTable`] in one array, where each is narrow: a map of an orbit's
/// value is then one read of its row's start and one of the value.
#[derive(Clone, Debug)]
struct FlatMaps {
    /// `start[(2 a + toward) * inner orbits + k]`: where the row of projection `a`'s map
    /// (`toward`: [`TO_SOLVED`] or [`TO_REACHED`]) for the `k`-th inner orbit begins.
    start: Vec<u32>,
    values: Vec<u16>,
}

impl FlatMaps {
    fn new(tables: &[Option<MapTable>]) -> Option<FlatMaps> {
        let mut bases = Vec::with_capacity(tables.len());
        let mut values = Vec::new();
        for t in tables {
            let t = t.as_ref().filter(|t| !t.narrow.is_empty())?;
            bases.push(values.len());
            values.extend(&t.narrow);
        }
        if values.len() > u32::MAX as usize {
            return None;
        }
        let maps = tables[0].as_ref()?.ids.len();
        let mut start = Vec::with_capacity(maps * tables.len());
        for i in 0..maps {
            for (t, base) in tables.iter().flatten().zip(&bases) {
                start.push((base + t.ids[i] as usize * t.size) as u32);
            }
        }
        Some(FlatMaps { start, values })
    }
}

/// Which of a projection's maps: `t_a^-1`, to the fibre over the solved projection...
const TO_SOLVED: usize = 0;
/// ... or `t_a`, from it.
const TO_REACHED: usize = 1;

/// Dense ranks by a projection and its fibres (see the module docs).
#[derive(Clone, Debug)]
pub struct FibreRanking {
    n_cells: usize,
    invariants: Invariants,
    coords: Vec<OrbitCoord>,
    outer: Side,
    inner: Side,
    /// The reached projections' keys, in the order the search found them.
    outer_keys: Vec<u64>,
    outer_index: FxHashMap<u64, u32>,
    /// `outer_moves[a * 2M + m]`: the index of projection `a` moved by move `m` (solving
    /// direction), then by move `m` undone (`M + m`).
    outer_moves: Vec<u32>,
    /// Per inner orbit, its maps as a table where it fits, unless `flat_maps` holds them.
    map_tables: Vec<Option<MapTable>>,
    /// The same, in one array, where every table is narrow.
    flat_maps: Option<FlatMaps>,
    /// The place values of the inner orbits' values in an inner key.
    inner_weights: [u64; MAX_INNER],
    /// The inner orbits' per-move tables ([`OrbitCoord::tabulate`]) in one array, each
    /// starting at its `inner_move_base` (past the inner orbits: base 0, where the array
    /// starts with one row of zeros, so their values stay 0).
    inner_moves: Vec<u32>,
    inner_move_base: [usize; MAX_INNER],
    /// Divides a rank by the fibre's size.
    fibre_divisor: StrengthReducedU64,
    /// Per reached projection `a`, [`TO_SOLVED`] then [`TO_REACHED`]: the map on the inner
    /// cells, `perm` then `twist` (`inner.cells.len()` bytes each), for orbits without a
    /// table.
    maps: Vec<u8>,
    fibre: Fibre,
    /// The inner values of the fibre's keys, in order.
    fibre_values: Vec<[u32; MAX_INNER]>,
    /// `t_a` on the inner cells, per reached projection, and the moves then the moves
    /// undone on them: what the runs' tables are made of.
    reached: Vec<CellMap>,
    inner_maps: Vec<CellMap>,
    /// The values the last inner orbit takes over the fibre, increasing, where the fibre is
    /// these times the values of the other inner orbits it holds ([`last_orbit_factor`]).
    last_values: Option<Vec<u32>>,
    /// Fewest of those values for runs over them ([`MIN_LAST_ORBIT_RUN`]; tests try both
    /// shapes).
    min_last_run: u64,
    /// The ranks over each projection as a run, where their tables fit ([`fibre_runs`]),
    /// else the bound they pass; made when a search first asks (`info`, `check` and
    /// `distance` never do: whole fibres' tables can take gigabytes).
    runs: OnceLock<std::result::Result<CellRuns, u64>>,
    n_moves: usize,
    n_states: u64,
}

impl FibreRanking {
    /// The ranking of the boards the puzzle's moves reach, `group_order` being their group's
    /// order and `fewest_boards` at most their number. Fails with the reason when no split of
    /// the orbits fits the limits above.
    pub fn new(
        puzzle: &Puzzle,
        invariants: &Invariants,
        group_order: &BigUint,
        fewest_boards: u64,
    ) -> Result<Self> {
        Self::within(puzzle, invariants, group_order, fewest_boards, MAX_FIBRE)
    }

    /// [`FibreRanking::new`] with fibres of at most `fibre_limit` boards (the tests try
    /// limits at the fibres' own sizes).
    fn within(
        puzzle: &Puzzle,
        invariants: &Invariants,
        group_order: &BigUint,
        fewest_boards: u64,
        fibre_limit: usize,
    ) -> Result<Self> {
        let (coords, moves, solved_values) = tabulated(puzzle, invariants)?;
        // Boards are at most the projections times the boards over each.
        let most_boards = |projections: u64| projections.saturating_mul(fibre_limit as u64);
        if fewest_boards > most_boards(MAX_OUTER as u64) {
            return Err(Error::TooLarge(format!(
                "at least {fewest_boards} boards: more than the {MAX_OUTER} projections a \
                 ranking by fibres holds times the {fibre_limit} boards over each"
            )));
        }
        let splits = candidate_splits(&coords);
        let mut why = Vec::new();
        // The projections of the cheapest splits, scored by how their maps would tabulate;
        // the best one's search is kept, the others are searched again if it fails.
        let key_of = |side: &Side| side.key(&coords, side.orbits.iter().map(|&j| solved_values[j]));
        let mut scored = Vec::new();
        let mut best: Option<((usize, u64), Projections)> = None;
        // A projection on more orbits reaches at least as many values: past the limit on
        // some orbits, every projection holding them is too (the arecibo's 12 splits took a
        // minute to fail one by one).
        let mut too_many: Vec<&[usize]> = Vec::new();
        for (i, (outer, inner)) in splits.iter().take(SPLITS_EVALUATED).enumerate() {
            if too_many.iter().any(|failed| failed.iter().all(|j| outer.orbits.contains(j))) {
                continue;
            }
            // The splits come cheapest first: when the first few all pass the limit, the
            // dearer ones are not tried (each is seconds of search to fail).
            if scored.is_empty() && too_many.len() >= FAILED_SPLITS_GIVE_UP {
                break;
            }
            if projections_exceed(puzzle, &coords, outer, MAX_OUTER as u64) {
                too_many.push(&outer.orbits);
                why.push(too_many_projections(outer).to_string());
                continue;
            }
            // Its projections are at most the arrangements of the outer cells: too few to
            // spread the boards within the fibres' limit (eliac's splits, seconds each).
            if fewest_boards > most_boards(outer.space) {
                why.push(too_large_fibres(&inner.cells, fibre_limit, fewest_boards, outer.space));
                continue;
            }
            // A split reaching more projections than one that scores better cannot score
            // better itself: its search stops there (a pyraminx with alike edges held
            // 645 MB for a split it did not take, 324 projections being the best).
            let sizes: Vec<u64> = inner.orbits.iter().map(|&j| coords[j].size).collect();
            let most = best.as_ref().map_or(MAX_OUTER, |(s, _)| most_scoring_below(*s, &sizes));
            match Projections::search(&coords, outer, key_of(outer), (moves.len(), most)) {
                Some(p) => {
                    let reached = p.keys.len() as u64;
                    let score = split_score(reached, &sizes);
                    scored.push((score, i, reached));
                    if best.as_ref().is_none_or(|(s, _)| score < *s) {
                        best = Some((score, p));
                    }
                }
                // Worse than the best: tried only if that fails, its projections unknown.
                None if most < MAX_OUTER => {
                    scored.push((split_score(most as u64 + 1, &sizes), i, MAX_OUTER as u64))
                }
                None => {
                    too_many.push(&outer.orbits);
                    why.push(too_many_projections(outer).to_string());
                }
            }
        }
        scored.sort();
        let parts = (invariants, &coords[..], &moves[..], &solved_values[..]);
        // Boards number more than this: a fibre past the limit over `r` projections means
        // more than `r * fibre_limit` boards, and then no split reaching at most `r`
        // projections fits either (the eliac's ten builds took 14 s each to fail).
        let mut boards_above = fewest_boards.saturating_sub(1);
        for (rank, (_, i, reached)) in scored.into_iter().enumerate() {
            let (outer, inner) = splits[i].clone();
            let most_boards = most_boards(reached);
            if most_boards <= boards_above {
                why.push(too_large_fibres(&inner.cells, fibre_limit, boards_above + 1, reached));
                continue;
            }
            let projections = match (rank, best.take()) {
                (0, Some((_, p))) => p,
                _ => match Projections::search(
                    &coords,
                    &outer,
                    key_of(&outer),
                    (moves.len(), MAX_OUTER),
                ) {
                    Some(p) => p,
                    None => {
                        why.push(too_many_projections(&outer).to_string());
                        continue;
                    }
                },
            };
            let build = (outer, inner, projections, fibre_limit);
            match FibreRanking::build(puzzle, parts, build, group_order) {
                Ok(r) => return Ok(r),
                Err(e) => {
                    if let Error::TooLarge(_) = e {
                        boards_above = boards_above.max(most_boards);
                    }
                    why.push(e.to_string())
                }
            }
        }
        if why.is_empty() {
            why.push(match coords.len() {
                1 => "its cells form one orbit: there is nothing to split".to_string(),
                _ => format!(
                    "no split of its orbits into a projection and at most {MAX_INNER} orbits \
                     over it whose moves fit tables of {MAX_MOVE_TABLE} entries"
                ),
            });
        }
        why.sort();
        why.dedup();
        // One line a person can read: the first reasons, and how many more.
        if why.len() > SHOWN_REASONS {
            let more = why.len() - SHOWN_REASONS;
            why.truncate(SHOWN_REASONS);
            why.push(format!("and {more} more splits of its orbits"));
        }
        Err(Error::Unsupported(why.join("; ")))
    }

    fn build(
        puzzle: &Puzzle,
        (invariants, coords, moves, solved_values): (
            &Invariants,
            &[OrbitCoord],
            &[CellMap],
            &[u64],
        ),
        (outer, inner, projections, fibre_limit): (Side, Side, Projections, usize),
        group_order: &BigUint,
    ) -> Result<FibreRanking> {
        let n_moves = puzzle.moves.len();
        let inner_maps: Vec<CellMap> =
            moves.iter().map(|m| inner.restrict(&m.perm, &m.twist, &invariants.local)).collect();
        // `t_a` on the inner cells, along the search's first paths.
        let ni = inner.cells.len();
        let mut reached = vec![CellMap::identity(ni)];
        for &(a, m) in &projections.parent[1..] {
            reached.push(reached[a as usize].then(&inner_maps[m as usize], &inner.modulus));
        }

        // Generators of the maps that keep the solved projection, on the inner cells.
        let degree: usize = inner.modulus.iter().map(|&e| e as usize).sum();
        let points = |m: &CellMap| points_of(m, &inner.modulus, degree);
        let (mut kept, mut chain): (Vec<CellMap>, Option<StabChain>) = (Vec::new(), None);
        // The fibre is their group's orbit of the solved coordinates, so at least the group's
        // order over the most of it that can keep those (exchanges of alike pieces, any
        // turns): past the limit, neither this loop nor the listing goes on (the eliac's took
        // 50 s to fail).
        let most_fibre = BigUint::from(fibre_limit) * most_keeping(puzzle, invariants, &inner);
        for (a, t) in reached.iter().enumerate() {
            for (m, map) in inner_maps.iter().enumerate().take(n_moves) {
                let b = projections.moves[a * moves.len() + m] as usize;
                let s = t
                    .then(map, &inner.modulus)
                    .then(&reached[b].inverse(&inner.modulus), &inner.modulus);
                if s.is_identity() || chain.as_ref().is_some_and(|c| c.contains(&points(&s))) {
                    continue;
                }
                kept.push(s);
                let gens: Vec<Perm> = kept.iter().map(points).collect();
                let c = StabChain::new(degree, &gens);
                if c.order() > most_fibre {
                    return Err(fibre_too_large(&inner, fibre_limit));
                }
                chain = Some(c);
            }
        }

        // The fibre over the solved projection: the orbit of the solved inner coordinates.
        let c0 = inner.key(coords, inner.orbits.iter().map(|&j| solved_values[j]));
        let fibre = orbit_of(coords, &inner, c0, &kept, fibre_limit)?;
        let mut fibre = fibre;
        fibre.sort_unstable();
        let fibre_values: Vec<[u32; MAX_INNER]> = fibre
            .iter()
            .map(|&key| {
                let mut values = [0u64; MAX_INNER];
                inner.values_into(coords, key, &mut values);
                values.map(|v| v as u32)
            })
            .collect();
        let fibre = Fibre::new(fibre, inner.space);
        let last_values = last_orbit_factor(coords, &inner, &fibre_values);

        let n_states = (projections.keys.len() as u64)
            .checked_mul(fibre.len())
            .ok_or_else(|| Error::TooLarge("more boards than 64-bit ranks count".into()))?;
        // Orbit-stabilizer: the boards are the group's orbit of the solved board.
        if (group_order % BigUint::from(n_states)) != BigUint::ZERO {
            return Err(Error::Unsupported(format!(
                "internal check failed: {n_states} boards found by projection and fibres do not \
                 divide the group order {group_order}"
            )));
        }

        let mut maps = Vec::with_capacity(reached.len() * 4 * ni);
        for t in &reached {
            for m in [t.inverse(&inner.modulus), t.clone()] {
                maps.extend(&m.perm);
                maps.extend(&m.twist);
            }
        }
        let mut map_tables: Vec<Option<MapTable>> =
            (0..inner.orbits.len()).map(|k| map_table(coords, &inner, k, &maps)).collect();
        // The flat copy serves every rank: the tables need not be kept twice.
        let flat_maps = FlatMaps::new(&map_tables);
        if flat_maps.is_some() {
            map_tables.iter_mut().for_each(|t| *t = None);
        }
        // The maps' bytes serve only orbits without a table (tests keep them, to check the
        // tables against them).
        let tabled = flat_maps.is_some() || map_tables.iter().all(|t| t.is_some());
        if tabled && !cfg!(test) {
            maps = Vec::new();
        }
        let mut inner_weights = [0u64; MAX_INNER];
        let mut weight = 1u64;
        for (k, &j) in inner.orbits.iter().enumerate().rev() {
            inner_weights[k] = weight;
            weight *= coords[j].size;
        }
        // Unused slots read value 0's row, all zeros: their values stay 0.
        let mut inner_moves = vec![0u32; 2 * n_moves];
        let mut inner_move_base = [0usize; MAX_INNER];
        for (k, &j) in inner.orbits.iter().enumerate() {
            inner_move_base[k] = inner_moves.len();
            inner_moves.extend(&coords[j].moves);
        }
        let fibre_divisor = StrengthReducedU64::new(fibre.len());
        Ok(FibreRanking {
            n_cells: puzzle.n_positions(),
            invariants: invariants.clone(),
            // Their move tables served the set-up: `inner_moves` holds the inner ones.
            coords: coords.iter().map(OrbitCoord::without_moves).collect(),
            outer,
            inner,
            outer_index: projections.keys.iter().enumerate().map(|(i, &k)| (k, i as u32)).collect(),
            outer_keys: projections.keys,
            outer_moves: projections.moves,
            flat_maps,
            map_tables,
            inner_weights,
            inner_moves,
            inner_move_base,
            fibre_divisor,
            maps,
            fibre,
            fibre_values,
            reached,
            inner_maps,
            last_values,
            min_last_run: MIN_LAST_ORBIT_RUN,
            runs: OnceLock::new(),
            n_moves,
            n_states,
        })
    }

    /// Number of projections the moves reach.
    pub fn n_projections(&self) -> u64 {
        self.outer_keys.len() as u64
    }

    /// Number of boards over each projection.
    pub fn fibre_len(&self) -> u64 {
        self.fibre.len()
    }

    /// `"cells 1 2 3 ... (N of M values)"` for the projection, and the fibre's cells.
    pub fn describe(&self) -> (String, String) {
        (
            format!(
                "cells {} ({} of {} values)",
                cell_list(&self.outer.cells),
                self.outer_keys.len(),
                self.outer.space
            ),
            format!(
                "cells {} ({} of {} values)",
                cell_list(&self.inner.cells),
                self.fibre.len(),
                self.inner.space
            ),
        )
    }

    /// How a search walks the ranks: `"runs of N ranks (the boards over each projection), K
    /// offset tables"`, or why board by board.
    pub fn describe_search(&self) -> String {
        let over = match self.run_last_values() {
            None => "the boards over each projection".to_string(),
            Some(_) => {
                let k = self.inner.orbits.len() - 1;
                format!(
                    "the boards over each projection and value of cells {}",
                    cell_list(&self.inner.cells[..self.inner.offset[k]])
                )
            }
        };
        match self.run_tables() {
            Ok(tables) => format!(
                "runs of {} ranks ({over}), moved by {tables} offset tables",
                self.run_len()
            ),
            Err(bound) => format!(
                "board by board (the offset tables of runs over each projection would take \
                 more than {} MiB: a quarter of the memory available, at most {} MiB)",
                bound >> 20,
                MAX_RUN_TABLES >> 20
            ),
        }
    }

    /// The last inner orbit's values where runs go over them alone ([`fibre_runs`]): where the
    /// fibre is their product with the other orbits' values and they are enough to repay a
    /// run. The trapentrix's runs of 504 ranks take 2 MB of tables where runs over its
    /// whole fibres took 1.5 GB; the 235's last orbit has 24 values, too few.
    fn run_last_values(&self) -> Option<&[u32]> {
        let last = self.last_values.as_deref()?;
        (last.len() as u64 >= self.min_last_run).then_some(last)
    }

    /// Ranks per run ([`FibreRanking::run_last_values`]).
    fn run_len(&self) -> u64 {
        self.run_last_values().map_or(self.fibre.len(), |l| l.len() as u64)
    }

    /// How many offset tables walk the ranks as runs, or the bound in bytes they pass
    /// (counted without making them where a search has not).
    fn run_tables(&self) -> std::result::Result<usize, u64> {
        let bound = run_tables_bound();
        let last = self.run_last_values();
        match self.runs.get() {
            Some(runs) => runs.as_ref().map(|r| r.shared.len()).map_err(|&b| b),
            None => schreier_elements(
                &self.inner,
                (&self.reached, &self.inner_maps, &self.outer_moves),
                last.map(|_| self.inner.orbits.len() - 1),
                most_tables(self.run_len(), bound),
            )
            .map(|(elements, _)| elements.len())
            .ok_or(bound),
        }
    }

    /// Whether a search walks the ranks over each projection as runs (their tables fit).
    pub fn walks_runs(&self) -> bool {
        self.run_tables().is_ok()
    }

    /// The bytes of the offset tables that walk the runs, where they fit.
    pub fn run_table_bytes(&self) -> Option<u64> {
        let tables = self.run_tables().ok()? as u64;
        let len = self.run_len();
        Some(tables * len * offset_width(len))
    }

    /// Inner values mapped by projection `a`'s `t_a^-1` ([`TO_SOLVED`]) or `t_a`
    /// ([`TO_REACHED`]).
    #[inline]
    fn map_inner(&self, a: usize, inner: &[u32; MAX_INNER], toward: usize) -> [u32; MAX_INNER] {
        let mut out = [0u32; MAX_INNER];
        let n = self.inner.orbits.len();
        if let Some(flat) = &self.flat_maps {
            let row = &flat.start[(2 * a + toward) * n..(2 * a + toward + 1) * n];
            for ((out, &start), &v) in out.iter_mut().zip(row).zip(inner) {
                *out = flat.values[start as usize + v as usize] as u32;
            }
            return out;
        }
        let ni = self.inner.cells.len();
        for (k, &j) in self.inner.orbits.iter().enumerate() {
            out[k] = match &self.map_tables[k] {
                Some(t) => t.map(a, toward, inner[k]),
                None => {
                    let o = &self.coords[j];
                    let at = (2 * a + toward) * 2 * ni;
                    let (perm, twist) = self.maps[at..at + 2 * ni].split_at(ni);
                    let (local, twist) = self.inner.orbit_part(k, perm, twist);
                    let p = o.unrank(inner[k] as u64);
                    o.rank(&o.apply(&p, &local[..o.cells.len()], twist)) as u32
                }
            };
        }
        out
    }

    /// The inner key of inner values.
    #[inline]
    fn inner_key(&self, values: &[u32; MAX_INNER]) -> u64 {
        // Weights past the inner orbits are 0.
        values.iter().zip(&self.inner_weights).map(|(&v, &w)| v as u64 * w).sum()
    }

    /// The key of a board's projection and its inner orbits' values, whether the moves
    /// reach it or not, or why its pieces are not those of the ranking's orbits.
    pub(crate) fn coordinates_of(&self, board: &Board) -> Result<(u64, [u32; MAX_INNER])> {
        if board.tiles.len() != self.n_cells || board.orient.len() != self.n_cells {
            return Err(Error::InvalidBoard(format!(
                "expected {} pieces and orientations, found {} and {}",
                self.n_cells,
                board.tiles.len(),
                board.orient.len()
            )));
        }
        let mut values = vec![0u64; self.coords.len()];
        for (j, o) in self.coords.iter().enumerate() {
            values[j] = o.rank(&o.pieces_of(&self.invariants, board)?);
        }
        let outer = self.outer.key(&self.coords, self.outer.orbits.iter().map(|&j| values[j]));
        let mut inner = [0u32; MAX_INNER];
        for (k, &j) in self.inner.orbits.iter().enumerate() {
            inner[k] = values[j] as u32;
        }
        Ok((outer, inner))
    }

    /// The index of a projection among those the moves reach, if they reach it.
    pub(crate) fn projection_index(&self, key: u64) -> Option<u32> {
        self.outer_index.get(&key).copied()
    }

    /// The working form of a board, or why no board the moves reach is this one.
    pub fn state_of(&self, board: &Board) -> Result<FibreState> {
        let (outer, inner) = self.coordinates_of(board)?;
        let unreachable = || {
            Error::InvalidBoard(format!(
                "the moves reach {} boards (identical pieces told apart only by label), fewer \
                 than the orbits, parities and orientation sums allow, and this is not one of \
                 them",
                self.n_states
            ))
        };
        let a = self.projection_index(outer).ok_or_else(unreachable)?;
        let state = FibreState { outer: a, inner };
        self.place(&state).map(|_| state).ok_or_else(unreachable)
    }

    /// The place of a state's inner values in the fibre over its projection, `None` when
    /// they are not over it (no board the moves reach).
    #[inline]
    pub(crate) fn place(&self, s: &FibreState) -> Option<u64> {
        let a = s.outer as usize;
        self.fibre.position(self.inner_key(&self.map_inner(a, &s.inner, TO_SOLVED)))
    }

    /// The cells of each inner orbit (0-based), in the order of a state's inner values.
    pub(crate) fn inner_orbit_cells(&self) -> Vec<Vec<u8>> {
        self.inner.orbits.iter().map(|&j| self.coords[j].cells.clone()).collect()
    }

    /// The number of values of each inner orbit.
    pub(crate) fn inner_orbit_sizes(&self) -> Vec<u64> {
        self.inner.orbits.iter().map(|&j| self.coords[j].size).collect()
    }

    /// The board of a working form.
    pub fn board_of(&self, s: &FibreState) -> Board {
        let mut board = Board { tiles: vec![0; self.n_cells], orient: vec![0; self.n_cells] };
        let mut outer = vec![0u64; self.outer.orbits.len()];
        self.outer.values_into(&self.coords, self.outer_keys[s.outer as usize], &mut outer);
        for (k, &j) in self.outer.orbits.iter().enumerate() {
            let o = &self.coords[j];
            o.put_on(&self.invariants, &o.unrank(outer[k]), &mut board);
        }
        for (k, &j) in self.inner.orbits.iter().enumerate() {
            let o = &self.coords[j];
            o.put_on(&self.invariants, &o.unrank(s.inner[k] as u64), &mut board);
        }
        board
    }

    #[inline(always)]
    fn step(&self, s: &FibreState, m: usize) -> FibreState {
        let moves = 2 * self.n_moves;
        let mut out = *s;
        out.outer = self.outer_moves[s.outer as usize * moves + m];
        for ((out, &v), &base) in out.inner.iter_mut().zip(&s.inner).zip(&self.inner_move_base) {
            *out = self.inner_moves[base + v as usize * moves + m];
        }
        out
    }
}

/// The orbit of an inner key under maps of the inner cells: each orbit's values move by a
/// table per map where they are few, the keys found are marked in a bitmap where the inner
/// space is small. More than `limit` keys fail as too large.
fn orbit_of(
    coords: &[OrbitCoord],
    inner: &Side,
    start: u64,
    maps: &[CellMap],
    limit: usize,
) -> Result<Vec<u64>> {
    // `tables[k][g * size + v]`, or empty for an orbit whose values are computed.
    let tables: Vec<Vec<u32>> = (inner.orbits.iter().enumerate())
        .map(|(k, &j)| {
            let o = &coords[j];
            if o.size.saturating_mul(maps.len() as u64) > MAX_MAP_TABLE {
                return Vec::new();
            }
            let mut table = Vec::with_capacity(o.size as usize * maps.len());
            for g in maps {
                let (perm, twist) = inner.orbit_part(k, &g.perm, &g.twist);
                table.extend(o.values_moved(&perm[..o.cells.len()], twist));
            }
            table
        })
        .collect();
    let image = |key: u64, g: usize| -> u64 {
        if tables.iter().any(|t| t.is_empty()) {
            return inner.mapped(coords, key, &maps[g]);
        }
        let (mut rest, mut out, mut weight) = (key, 0u64, 1u64);
        for (k, &j) in inner.orbits.iter().enumerate().rev() {
            let size = coords[j].size;
            let v = rest % size;
            out += tables[k][g * size as usize + v as usize] as u64 * weight;
            (rest, weight) = (rest / size, weight * size);
        }
        out
    };
    let mut marks = match inner.space <= MAX_BITMAP {
        true => vec![0u64; inner.space.div_ceil(64) as usize],
        false => Vec::new(),
    };
    let mut seen = FxHashSet::default();
    let mut first_time = |key: u64| match marks.is_empty() {
        false => {
            let (word, bit) = ((key / 64) as usize, 1u64 << (key % 64));
            let new = marks[word] & bit == 0;
            marks[word] |= bit;
            new
        }
        true => seen.insert(key),
    };
    first_time(start);
    let mut found = vec![start];
    let mut i = 0;
    while i < found.len() {
        for g in 0..maps.len() {
            let c = image(found[i], g);
            if first_time(c) {
                if found.len() >= limit {
                    return Err(fibre_too_large(inner, limit));
                }
                found.push(c);
            }
        }
        i += 1;
    }
    Ok(found)
}

fn fibre_too_large(inner: &Side, limit: usize) -> Error {
    Error::TooLarge(format!(
        "more than {limit} boards of cells {} go with one projection",
        cell_list(&inner.cells)
    ))
}

/// The most maps of the side's cells that keep the solved board's coordinates there: those
/// exchanging alike pieces within an orbit, each piece turned any way.
fn most_keeping(puzzle: &Puzzle, invariants: &Invariants, side: &Side) -> BigUint {
    let tiles = &puzzle.solved().tiles;
    let alike = side.cells.iter().map(|&c| (invariants.orbit_of[c as usize], tiles[c as usize]));
    let turns: BigUint = side.modulus.iter().map(|&m| BigUint::from(m.max(1))).product();
    exchanges_of_alike(alike.collect()) * turns
}

/// The table of the `k`-th inner orbit's maps ([`MapTable`]), if their distinct restrictions
/// to it are few enough; `maps` as [`FibreRanking`] keeps them.
fn map_table(coords: &[OrbitCoord], inner: &Side, k: usize, maps: &[u8]) -> Option<MapTable> {
    let o = &coords[inner.orbits[k]];
    let (ni, n) = (inner.cells.len(), o.cells.len());
    let mut ids = Vec::with_capacity(maps.len() / ni);
    let mut distinct: HashMap<Vec<u8>, u32> = HashMap::new();
    let mut locals: Vec<Vec<u8>> = Vec::new();
    for map in maps.chunks(2 * ni) {
        let (perm, twist) = map.split_at(ni);
        let (perm, twist) = inner.orbit_part(k, perm, twist);
        let mut local = perm[..n].to_vec();
        local.extend(twist);
        let next = distinct.len() as u32;
        let id = *distinct.entry(local.clone()).or_insert(next);
        if id == next {
            locals.push(local);
            if (locals.len() as u64).saturating_mul(o.size) > MAX_MAP_TABLE {
                return None;
            }
        }
        ids.push(id);
    }
    if (locals.len() as u64).saturating_mul(o.size) > MAX_MAP_TABLE {
        return None;
    }
    let size = o.size as usize;
    let mut wide = vec![0u32; locals.len() * size];
    wide.par_chunks_mut(size).zip(&locals).for_each(|(row, local)| {
        let (perm, twist) = local.split_at(n);
        for (out, v) in row.iter_mut().zip(o.values_moved(perm, twist)) {
            *out = v;
        }
    });
    let narrow = match o.size <= 1 << 16 {
        true => std::mem::take(&mut wide).into_iter().map(|v| v as u16).collect(),
        false => Vec::new(),
    };
    Some(MapTable { narrow, wide, size, ids })
}

/// The ranks over each projection as runs: a move `m` takes the boards over `a` onto those over
/// `a m`, the board `F_0[x] t_a` to `F_0[x] s t_(a m)`, where `s = t_a m t_{a m}^-1` keeps the
/// solved projection and so maps the fibre onto itself.
///
/// - `last` `None`: a run is a projection's `|F_0|` ranks, and offset
///   `x` goes to the place in `F_0` of `F_0[x] s`: one table per distinct `s` on the inner
///   cells (134 for the 235's 576 projections and 16 moves and undoings), shared by every
///   move.
/// - `last` the last inner orbit's values: `s` moves each inner
///   orbit on its own, so a run is a projection's ranks of one value of the other orbits, and
///   its offsets, the last orbit's places, go by `s` on that orbit alone: one table of
///   `last.len()` offsets per distinct such map.
///
/// `Err(bound)` when the tables would take more than `bound` bytes. `moves` as the set-up
/// holds them: the maps `t_a` on the inner cells, the moves and then the moves undone on
/// them, and the projections' moves by those.
fn fibre_runs(
    coords: &[OrbitCoord],
    inner: &Side,
    moves: (&[CellMap], &[CellMap], &[u32]),
    (fibre, fibre_values): (&Fibre, &[[u32; MAX_INNER]]),
    last: Option<&[u32]>,
    bound: u64,
) -> std::result::Result<CellRuns, u64> {
    let last_orbit = inner.orbits.len() - 1;
    let len = last.map_or(fibre.len(), |l| l.len() as u64);
    let Some((elements, by_run)) =
        schreier_elements(inner, moves, last.map(|_| last_orbit), most_tables(len, bound))
    else {
        return Err(bound);
    };
    let shared = match last {
        None => fibre_tables(coords, inner, &elements, fibre, fibre_values),
        Some(last) => last_orbit_tables(&coords[inner.orbits[last_orbit]], &elements, last),
    };
    // Moves in solving direction are the first half of the maps, their undoings the second.
    let half = moves.1.len() / 2;
    let run_moves = |range: std::ops::Range<usize>| -> Vec<RunMove> {
        range
            .map(|m| RunMove { index: m % half, offsets: Vec::new(), by_run: by_run[m].clone() })
            .collect()
    };
    Ok(CellRuns {
        len,
        classes: 1,
        solve: run_moves(0..half),
        scramble: run_moves(half..moves.1.len()),
        rest: Vec::new(),
        cells: Vec::new(),
        then: Vec::new(),
        shared,
        by_run_span: fibre.len() / len,
    })
}

/// The offset tables of runs over whole fibres, one per element `s`. An element whose inverse
/// came first gets the inverse of that one's table: no fibre places to look up (the moves'
/// undoings make most of them).
fn fibre_tables(
    coords: &[OrbitCoord],
    inner: &Side,
    elements: &[CellMap],
    fibre: &Fibre,
    fibre_values: &[[u32; MAX_INNER]],
) -> Vec<OffsetTable> {
    let ids: HashMap<&CellMap, usize> = elements.iter().zip(0..).collect();
    let inverse_of: Vec<Option<usize>> = (elements.iter().enumerate())
        .map(|(id, s)| ids.get(&s.inverse(&inner.modulus)).copied().filter(|&i| i < id))
        .collect();
    let mut shared: Vec<Option<OffsetTable>> = (elements.par_iter().zip(&inverse_of))
        .map(|(s, inverse)| match inverse {
            Some(_) => None,
            None => Some(OffsetTable::new(offsets_by(coords, inner, s, fibre, fibre_values))),
        })
        .collect();
    for (id, inverse) in inverse_of.iter().enumerate() {
        if let Some(Some(table)) = inverse.map(|i| &shared[i]) {
            let back = table.inverse().expect("an element's table permutes the fibre's places");
            shared[id] = Some(back);
        }
    }
    shared.into_iter().map(|t| t.expect("every table built")).collect()
}

/// The offset tables of runs over the last inner orbit, one per element `s` on that orbit
/// (`o`): the place among `last` of each of its values moved by `s`.
fn last_orbit_tables(o: &OrbitCoord, elements: &[CellMap], last: &[u32]) -> Vec<OffsetTable> {
    let mut place_of = vec![u32::MAX; o.size as usize];
    for (x, &v) in last.iter().enumerate() {
        place_of[v as usize] = x as u32;
    }
    let moved = |s: &CellMap, v: u32| o.rank(&o.apply(&o.unrank(v as u64), &s.perm, &s.twist));
    (elements.par_iter())
        .map(|s| {
            let places = last.iter().map(|&v| place_of[moved(s, v) as usize]);
            let places: Vec<u32> = places.collect();
            assert!(
                places.iter().all(|&x| x != u32::MAX),
                "the fibre's group maps the last orbit's values onto themselves"
            );
            OffsetTable::new(places)
        })
        .collect()
}

/// The values of the last inner orbit over the fibre, increasing, where the fibre is exactly
/// every pairing of them with the values of the other inner orbits it holds (and those are
/// more than one): its keys, sorted with the last orbit least significant, then repeat these
/// values in order for each value of the others. The trapentrix's fibre of 254,016 boards is
/// 504 x 504, the pyraminx's with edges `1 1 2 2 3 3` 81 x 2,880; the skewb's with centres
/// `1 1 2 2 3 3` is no product (104,976 boards of 972 x 972).
fn last_orbit_factor(
    coords: &[OrbitCoord],
    inner: &Side,
    fibre_values: &[[u32; MAX_INNER]],
) -> Option<Vec<u32>> {
    let k = inner.orbits.len().checked_sub(1).filter(|&k| k > 0)?;
    let mut seen = vec![false; coords[inner.orbits[k]].size as usize];
    fibre_values.iter().for_each(|v| seen[v[k] as usize] = true);
    let last: Vec<u32> = (0..seen.len() as u32).filter(|&v| seen[v as usize]).collect();
    let n = last.len();
    let product = fibre_values.len() > n
        && fibre_values.len().is_multiple_of(n)
        && fibre_values
            .chunks(n)
            .all(|run| (run.iter().zip(&last)).all(|(v, &l)| v[k] == l && v[..k] == run[0][..k]));
    product.then_some(last)
}

/// How many offset tables of runs of `len` ranks fit in `bound` bytes.
fn most_tables(len: u64, bound: u64) -> u64 {
    bound / (len * offset_width(len)).max(1)
}

/// Bytes per offset in tables of runs of `len` ranks ([`OffsetTable::new`] narrows them).
fn offset_width(len: u64) -> u64 {
    if len <= 1 << 16 { 2 } else { 4 }
}

/// The distinct Schreier elements `t_a m t_(a m)^-1` on the inner cells (on the `on_orbit`-th
/// inner orbit alone, if given), in the order found, and per map (moves, then moves undone)
/// the index of each projection's element; `None` past `most` elements.
fn schreier_elements(
    inner: &Side,
    (reached, inner_maps, projection_moves): (&[CellMap], &[CellMap], &[u32]),
    on_orbit: Option<usize>,
    most: u64,
) -> Option<(Vec<CellMap>, Vec<Vec<u32>>)> {
    let n_maps = inner_maps.len();
    let inverses: Vec<CellMap> = reached.iter().map(|t| t.inverse(&inner.modulus)).collect();
    let mut distinct: HashMap<CellMap, u32> = HashMap::new();
    let mut by_run = vec![Vec::with_capacity(reached.len()); n_maps];
    for (a, t) in reached.iter().enumerate() {
        for (m, map) in inner_maps.iter().enumerate() {
            let b = projection_moves[a * n_maps + m] as usize;
            let s = t.then(map, &inner.modulus).then(&inverses[b], &inner.modulus);
            let s = match on_orbit {
                Some(k) => inner.orbit_map(k, &s),
                None => s,
            };
            let next = distinct.len() as u32;
            by_run[m].push(*distinct.entry(s).or_insert(next));
            if distinct.len() as u64 > most {
                return None;
            }
        }
    }
    let mut elements: Vec<(CellMap, u32)> = distinct.into_iter().collect();
    elements.sort_unstable_by_key(|&(_, id)| id);
    Some((elements.into_iter().map(|(s, _)| s).collect(), by_run))
}

/// The places in the fibre of its boards moved by `s`, an element that keeps the solved
/// projection (see [`fibre_runs`]).
fn offsets_by(
    coords: &[OrbitCoord],
    inner: &Side,
    s: &CellMap,
    fibre: &Fibre,
    fibre_values: &[[u32; MAX_INNER]],
) -> Vec<u32> {
    // Each inner orbit's values moved by `s`, as a table (an inner orbit has move tables, so
    // few values).
    let moved: Vec<Vec<u32>> = (inner.orbits.iter().enumerate())
        .map(|(k, &j)| {
            let o = &coords[j];
            let (perm, twist) = inner.orbit_part(k, &s.perm, &s.twist);
            o.values_moved(&perm[..o.cells.len()], twist).collect()
        })
        .collect();
    (fibre_values.iter())
        .map(|values| {
            let key = (moved.iter().zip(values).zip(&inner.orbits))
                .fold(0u64, |acc, ((t, &v), &j)| acc * coords[j].size + t[v as usize] as u64);
            fibre.position(key).expect("the fibre's group maps the fibre onto itself") as u32
        })
        .collect()
}

/// A map of cells as a permutation of points, one point per cell and reduced orientation.
fn points_of(m: &CellMap, modulus: &[u8], degree: usize) -> Perm {
    let mut first = Vec::with_capacity(modulus.len());
    let mut at = 0u16;
    for &e in modulus {
        first.push(at);
        at += e as u16;
    }
    let mut out = vec![0u16; degree];
    for i in 0..modulus.len() {
        let (to, e) = (m.perm[i] as usize, modulus[i]);
        for u in 0..e {
            out[(first[i] + u as u16) as usize] = first[to] + ((u + m.twist[i]) % e) as u16;
        }
    }
    out
}

/// Each orbit's coordinate with its moves tabulated, the moves (every move, then every move
/// undone, as maps of all cells with reduced twists), and each orbit's solved value.
fn tabulated(
    puzzle: &Puzzle,
    invariants: &Invariants,
) -> Result<(Vec<OrbitCoord>, Vec<CellMap>, Vec<u64>)> {
    let mut coords = (0..invariants.orbits.len())
        .map(|j| OrbitCoord::new(puzzle, invariants, j))
        .collect::<Result<Vec<_>>>()?;
    let modulus: Vec<u8> = (0..puzzle.n_positions())
        .map(|c| invariants.orbits[invariants.orbit_of[c] as usize].free_mod)
        .collect();
    let solve = puzzle
        .moves
        .iter()
        .zip(&invariants.reduced_twist)
        .map(|(m, t)| CellMap { perm: m.perm.clone(), twist: t.clone() });
    let solve: Vec<CellMap> = solve.collect();
    let moves: Vec<CellMap> =
        solve.iter().cloned().chain(solve.iter().map(|m| m.inverse(&modulus))).collect();
    let solved = puzzle.solved();
    let mut solved_values = Vec::with_capacity(coords.len());
    for o in coords.iter_mut() {
        o.tabulate(&moves, &invariants.local);
        solved_values.push(o.rank(&o.pieces_of(invariants, &solved)?));
    }
    Ok((coords, moves, solved_values))
}

/// Why a split cannot hold `boards` boards over at most `projections` projections.
fn too_large_fibres(inner: &[u8], fibre_limit: usize, boards: u64, projections: u64) -> String {
    format!(
        "more than {fibre_limit} boards of cells {} go with one projection (at least {boards} \
         boards over at most {projections} projections)",
        cell_list(inner),
    )
}

/// How a split reaching `reached` projections tabulates, the less the better: its inner
/// orbits (of `sizes` values) whose table of maps would pass [`MAX_MAP_TABLE`] entries, then
/// the entries of the others. It never falls as `reached` grows.
fn split_score(reached: u64, sizes: &[u64]) -> (usize, u64) {
    let (mut untabled, mut entries) = (0, 0u64);
    for &size in sizes {
        match reached.saturating_mul(size) {
            e if e <= MAX_MAP_TABLE => entries += e,
            _ => untabled += 1,
        }
    }
    (untabled, entries)
}

/// The most projections a split of inner orbits of `sizes` values may reach and still score
/// below `best` ([`split_score`] never falls, so a search for the bound halves the range).
fn most_scoring_below(best: (usize, u64), sizes: &[u64]) -> usize {
    let (mut low, mut high) = (0usize, MAX_OUTER);
    while low < high {
        let mid = (low + high).div_ceil(2);
        match split_score(mid as u64, sizes) < best {
            true => low = mid,
            false => high = mid - 1,
        }
    }
    low
}

/// Why a split is refused when its projections pass [`MAX_OUTER`].
fn too_many_projections(outer: &Side) -> Error {
    Error::TooLarge(format!(
        "the moves reach more than {MAX_OUTER} projections on cells {}",
        cell_list(&outer.cells)
    ))
}

/// Whether the moves surely reach more than `limit` projections on `outer`, told from the
/// orders of the groups they generate on its orbits and unions of them
/// ([`super::board_count::fewest_projections`], milliseconds). Searching the projections up
/// to the limit took seconds per split (the arecibo's `info`, 25 s).
fn projections_exceed(puzzle: &Puzzle, coords: &[OrbitCoord], outer: &Side, limit: u64) -> bool {
    let orbits: Vec<Vec<u8>> = outer.orbits.iter().map(|&j| coords[j].cells.clone()).collect();
    super::board_count::fewest_projections(puzzle, &orbits) > BigUint::from(limit)
}

/// The ways to split the orbits into outer and inner, cheapest first: by the bytes a dense
/// index of the outer space and a bitmap of the inner space would take (their reached
/// parts are what the build keeps, and are not known before it runs).
fn candidate_splits(coords: &[OrbitCoord]) -> Vec<(Side, Side)> {
    // Inner orbits move by tables and have more than one value (others only fill slots);
    // past a dozen such orbits, the largest dozen.
    let mut eligible: Vec<usize> =
        (0..coords.len()).filter(|&j| !coords[j].moves.is_empty() && coords[j].size > 1).collect();
    eligible.sort_by_key(|&j| std::cmp::Reverse(coords[j].size));
    eligible.truncate(MAX_ELIGIBLE);
    eligible.sort_unstable();
    let mut out: Vec<(u128, Side, Side)> = Vec::new();
    for mask in 1u32..1 << eligible.len() {
        if mask.count_ones() as usize > MAX_INNER {
            continue;
        }
        let inner: Vec<usize> = (eligible.iter().enumerate())
            .filter(|(i, _)| mask >> i & 1 == 1)
            .map(|(_, &j)| j)
            .collect();
        let outer: Vec<usize> = (0..coords.len()).filter(|j| !inner.contains(j)).collect();
        if outer.is_empty() {
            continue;
        }
        let (Some(o), Some(i)) = (Side::new(coords, outer), Side::new(coords, inner)) else {
            continue;
        };
        let cost = o.space as u128 * 4 + i.space as u128 / 8;
        out.push((cost, o, i));
    }
    out.sort_by_key(|(cost, _, _)| *cost);
    out.into_iter().map(|(_, o, i)| (o, i)).collect()
}

impl StateRanking for FibreRanking {
    type State = FibreState;
    fn n_states(&self) -> u64 {
        self.n_states
    }
    fn n_moves(&self) -> usize {
        self.n_moves
    }
    #[inline]
    fn rank(&self, s: &FibreState) -> u64 {
        let place = self.place(s);
        debug_assert!(place.is_some(), "a state off the fibre");
        s.outer as u64 * self.fibre.len() + place.unwrap_or(0)
    }
    #[inline]
    fn unrank(&self, rank: u64) -> FibreState {
        let (a, f) = StrengthReducedU64::div_rem(rank, self.fibre_divisor);
        let a = a as usize;
        let inner = self.map_inner(a, &self.fibre_values[f as usize], TO_REACHED);
        FibreState { outer: a as u32, inner }
    }
    #[inline(always)]
    fn solve_step(&self, s: &FibreState, m: usize) -> FibreState {
        self.step(s, m)
    }
    #[inline(always)]
    fn scramble_step(&self, s: &FibreState, m: usize) -> FibreState {
        self.step(s, self.n_moves + m)
    }
    fn cell_runs(&self) -> Option<&CellRuns> {
        let runs = self.runs.get_or_init(|| {
            fibre_runs(
                &self.coords,
                &self.inner,
                (&self.reached, &self.inner_maps, &self.outer_moves),
                (&self.fibre, &self.fibre_values),
                self.run_last_values(),
                run_tables_bound(),
            )
        });
        runs.as_ref().ok()
    }
    fn unrank_in_run(&self, bases: &[FibreState], _parity: usize, offset: u64) -> FibreState {
        let a = bases[0].outer;
        // A run shorter than the fibre starts at its first board's place in it.
        let start = match self.run_len() == self.fibre.len() {
            true => 0,
            false => self.place(&bases[0]).expect("a run starts on a board"),
        };
        let values = &self.fibre_values[(start + offset) as usize];
        FibreState { outer: a, inner: self.map_inner(a as usize, values, TO_REACHED) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::group::analysis::Analysis;
    use crate::rank::Enumerated;
    use crate::rank::test_puzzles::{TWINS, TWINS_AND_RINGS, defined};
    use std::collections::HashSet;

    /// Two orbits moved alike, the first of pieces that turn (mod 3), the second of pieces
    /// 1 1 2 2: a group smaller than its invariants, with identical pieces and twists (T
    /// turns two of A's pieces alone).
    const TURNING_TWINS: &str = "\
Set A 4 3
Set B 4 1
Solved
A
1 2 3 4
0 0 0 0
B
1 1 2 2
End
Move X
A
2 1 3 4
1 2 0 0
B
2 1 3 4
End
Move Y
A
1 3 2 4
0 1 2 0
B
1 3 2 4
End
Move Z
A
1 2 4 3
0 0 2 1
B
1 2 4 3
End
Move T
A
1 2 3 4
1 2 0 0
B
1 2 3 4
End
";

    /// Identical pieces whose homes the moves tie to different orientations (A's 3-cycle
    /// turns two of them, so the piece on its first cell arrives turned on the other two)
    /// are told apart by the moves: the fibres refuse them, naming their homes, where they
    /// took the solved board for an impossible one.
    #[test]
    fn identical_pieces_told_apart_by_their_orientation_are_refused() {
        let puzzle = defined(
            "Set A 3 2\nSet B 2 1\nSolved\nA\n1 1 1\n0 0 0\nB\n1 2\nEnd\n\
             Move X\nA\n3 1 2\n1 1 0\nEnd\nMove Y\nB\n2 1\nEnd\n",
        );
        let analysis = Analysis::of(&puzzle).unwrap();
        match FibreRanking::new(&puzzle, &analysis.invariants, &analysis.group_order, 1) {
            Err(Error::Unsupported(why)) => {
                assert!(why.contains("identical pieces solved on cells 1 2 3 have homes"), "{why}")
            }
            other => panic!("expected a refusal, found {:?}", other.map(|f| f.n_states())),
        }
    }

    /// The ranks over each projection walked as runs, over whole fibres and over the last
    /// inner orbit: each move's offset tables give the ranks of its images, and a search by
    /// runs, forward and backward, finds the histogram found board by board.
    #[test]
    fn fibres_walked_as_runs_agree_with_their_boards() {
        use crate::bfs::{self, Config, Direction, NoProgress};
        use crate::table::DistanceTable;
        // (puzzle, fewest values of the last orbit for runs over it, projections, run
        // length, tables): TWINS has one inner orbit, TWINS_AND_RINGS's fibre is 96 x 24.
        for (text, min_last_run, projections, len, tables) in [
            (TWINS, 1, 24, 1, 1),
            (TWINS_AND_RINGS, u64::MAX, 6, 2304, 15),
            (TWINS_AND_RINGS, 1, 6, 24, 6),
        ] {
            let puzzle = defined(text);
            let analysis = Analysis::of(&puzzle).unwrap();
            let mut f =
                FibreRanking::new(&puzzle, &analysis.invariants, &analysis.group_order, 1).unwrap();
            f.min_last_run = min_last_run;
            let runs = f.cell_runs().expect("runs");
            assert_eq!(
                (f.n_projections(), runs.len, runs.shared.len()),
                (projections, len, tables)
            );
            assert_eq!(runs.by_run_span * runs.len, f.fibre_len());
            crate::rank::runs::check_against_direct_ranks(&f, puzzle.moves.len(), "fibres");
            let search = |runs: bool, direction: Option<Direction>| {
                let table = DistanceTable::in_memory(f.n_states()).unwrap();
                let config = Config { runs, direction, ..Config::new(2) };
                bfs::run(&f, 0, &table, &config, &NoProgress).unwrap().histogram
            };
            let by_boards = search(false, None);
            assert_eq!(by_boards.iter().sum::<u64>(), f.n_states());
            for direction in [Direction::Forward, Direction::Backward] {
                assert_eq!(search(true, Some(direction)), by_boards, "{direction:?}");
            }
        }
    }

    /// The fibre limit is exact: a fibre of the limit's size is built, and a limit one
    /// below refuses it, early (the kept group's order over the most maps keeping the solved
    /// coordinates) or by listing, or takes another split within it. Once a fibre failed,
    /// splits reaching too few projections to hold the boards are refused unbuilt.
    #[test]
    fn fibre_limits_refuse_exactly_the_fibres_past_them() {
        // TWINS_AND_RINGS with rings C and D of alike pieces: over D, V keeps C's solved
        // pieces (it exchanges two alike), so the kept group is larger than the fibre and
        // the early bound must count that (with the exchanges left out it refused this
        // fibre of 144 at a limit of 144).
        let alike_ring = TWINS_AND_RINGS.replacen("C\n1 2 3 4", "C\n1 1 2 2", 1).replacen(
            "D\n1 2 3 4",
            "D\n1 1 2 2",
            1,
        );
        // Whether a split reaches a projection per board (a fibre of one board).
        let puzzles =
            [(TWINS_AND_RINGS, (2304, 13_824), false), (&alike_ring[..], (144, 864), true)];
        for (text, sizes, whole) in puzzles {
            let puzzle = defined(text);
            let analysis = Analysis::of(&puzzle).unwrap();
            let (inv, order) = (&analysis.invariants, &analysis.group_order);
            let f = FibreRanking::new(&puzzle, inv, order, 1).unwrap();
            let (fibre, boards) = (f.fibre_len(), f.n_states());
            assert_eq!((fibre, boards), sizes, "{}", f.describe().0);
            for fewest in [1, boards] {
                let at = FibreRanking::within(&puzzle, inv, order, fewest, fibre as usize).unwrap();
                assert_eq!((at.fibre_len(), at.n_states()), (fibre, boards));
                match FibreRanking::within(&puzzle, inv, order, fewest, fibre as usize - 1) {
                    Ok(other) => assert!(other.fibre_len() < fibre && other.n_states() == boards),
                    Err(e) => {
                        let why = e.to_string();
                        let limit = fibre - 1;
                        assert!(
                            why.contains(&format!("more than {limit} boards of cells")),
                            "{why}"
                        );
                    }
                }
            }
            // Every board known, a limit of one board per projection: each split reaching
            // (or whose outer cells have) fewer projections than there are boards is refused
            // unbuilt.
            match FibreRanking::within(&puzzle, inv, order, boards, 1) {
                Ok(one) => assert!(whole && one.n_projections() == boards),
                Err(e) => {
                    let (why, skipped) =
                        (e.to_string(), format!("(at least {boards} boards over at most"));
                    assert!(!whole && why.contains(&skipped), "{why}");
                }
            }
        }
    }

    /// The group on a side's cells bounds its projections from below: never past the
    /// number the search reaches, and on some split of each puzzle exactly that number. The
    /// search by a bitmap finds the same projections in the same order.
    #[test]
    fn projection_bounds_never_pass_the_projections_reached() {
        for text in [TWINS, TURNING_TWINS, TWINS_AND_RINGS] {
            let puzzle = defined(text);
            let analysis = Analysis::of(&puzzle).unwrap();
            let (coords, moves, solved) = tabulated(&puzzle, &analysis.invariants).unwrap();
            let mut exact = 0;
            for (outer, _) in candidate_splits(&coords) {
                let key = outer.key(&coords, outer.orbits.iter().map(|&j| solved[j]));
                let found =
                    Projections::search(&coords, &outer, key, (moves.len(), MAX_OUTER)).unwrap();
                // The search by a bitmap (for large outer spaces) finds them alike.
                let by_bitmap =
                    Projections::search_by_bitmap(&coords, &outer, key, (moves.len(), MAX_OUTER))
                        .unwrap();
                assert_eq!(
                    (&by_bitmap.keys, &by_bitmap.moves, &by_bitmap.parent),
                    (&found.keys, &found.moves, &found.parent),
                    "{text}"
                );
                let reached = found.keys.len() as u64;
                assert!(!projections_exceed(&puzzle, &coords, &outer, reached), "{text}");
                exact += projections_exceed(&puzzle, &coords, &outer, reached - 1) as usize;
            }
            assert!(exact > 0, "{text}");
        }
    }

    /// Every rank is a distinct board of the listing, ranks back, and each move (and its
    /// undoing) agrees with the puzzle's; a board of the invariants' space that the moves do
    /// not reach is refused.
    #[test]
    fn fibres_rank_exactly_the_listed_boards() {
        for (text, boards) in [(TWINS, 24u64), (TURNING_TWINS, 648), (TWINS_AND_RINGS, 13_824)] {
            let puzzle = defined(text);
            let analysis = Analysis::of(&puzzle).unwrap();
            assert!(!analysis.invariants_are_exact());
            let listed = Enumerated::new(&puzzle).unwrap();
            let f =
                FibreRanking::new(&puzzle, &analysis.invariants, &analysis.group_order, 1).unwrap();
            assert_eq!((f.n_states(), listed.n_states()), (boards, boards));
            assert_eq!(f.n_projections() * f.fibre_len(), boards);
            // Without the maps' tables (maps computed) and without the fibre's bitmap (a
            // sorted list searched): the same ranks.
            let mut computed = f.clone();
            computed.map_tables.iter_mut().for_each(|t| *t = None);
            computed.flat_maps = None;
            assert!(f.flat_maps.is_some());
            let keys: Vec<u64> = f.fibre_values.iter().map(|v| f.inner_key(v)).collect();
            assert!(keys.is_sorted() && f.fibre.keys.is_empty());
            computed.fibre = Fibre { len: f.fibre.len, keys, bits: Vec::new(), before: Vec::new() };
            assert!(!f.fibre.bits.is_empty());
            let mut seen = HashSet::new();
            for r in 0..f.n_states() {
                assert_eq!(computed.unrank(r), f.unrank(r));
                assert_eq!(computed.rank(&f.unrank(r)), r);
                let s = f.unrank(r);
                assert_eq!(f.rank(&s), r);
                let b = f.board_of(&s);
                assert!(listed.rank_of(&b).is_some(), "{b:?}");
                assert_eq!(f.state_of(&b).unwrap(), s);
                assert!(seen.insert(b.clone()));
                for (m, mv) in puzzle.moves.iter().enumerate() {
                    let moved = f.solve_step(&s, m);
                    assert_eq!(f.board_of(&moved), puzzle.apply(&b, mv));
                    assert_eq!(f.scramble_step(&moved, m), s);
                }
            }
            // B's alike pieces alone exchanged with A's: in the invariants' space, not reached.
            let mut b = puzzle.solved();
            b.tiles.swap(4, 6);
            b.tiles.swap(5, 7);
            let err = f.state_of(&b).unwrap_err().to_string();
            assert!(listed.rank_of(&b).is_none() && err.contains("not one of them"), "{err}");
            // A piece on the wrong orbit.
            b.tiles.swap(0, 4);
            assert!(f.state_of(&b).unwrap_err().to_string().contains("cannot reach cell"));
        }
    }
}
