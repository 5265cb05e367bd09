//! Hidden couplings: the values of a layout's upper digits that the moves reach.
//!
//! A [`Layout`](super::Layout) rank is `upper * orient_count + orientation digits`, where
//! `upper` holds the orbits' permutation ranks and the index of their signs and orientation
//! sums in the coupling group found from the invariants. Some groups tie these together in
//! ways no parity or linear sum shows: in the skewb each corner tetrad's total twist follows
//! its permutation, in twsearch's pyraminx the tetrads' arrangements follow each other. Such a
//! group reaches only part of the `upper` values (1/9 in the skewb) and a layout over all of
//! them would hold 9 entries per board.
//!
//! The upper digits are a coordinate the moves act on by themselves: a move permutes the
//! tiles and adds fixed twists, so the new permutations and sums depend on the old ones
//! alone, never on single orientation digits. The values it reaches are found by a search
//! over that coordinate (by per-move tables on each orbit where they fit, else by any board
//! of each value), and ranks then count only those:
//! `index(upper) * orient_count + orientation digits`, dense when the orientation digits are
//! free given `upper` (the group order says whether they are).

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use super::bit_rank::BitRank;
use super::layout::{CellMoves, Cells};
use crate::table::prefetch_at;

/// Largest space of upper values searched: a bit per value while searching, and four bytes
/// per reachable value after.
pub(crate) const MAX_UPPER_SPACE: u64 = 1 << 24;

/// Values of a level expanded together (see [`ReachableUpper::search`]).
const CHUNK: usize = 64;

/// How the moves (in solving direction) act on upper values: a finite group's products reach
/// its inverses, so these alone find every value.
pub(crate) trait UpperSteps: Sync {
    /// Calls `visit` with each move's neighbour of value `u`, moves in order.
    fn neighbours(&self, u: u64, visit: impl FnMut(u64));
}

/// The moves applied to a board of each value: `board_of(u)` is any board of value `u`
/// and `upper` a board's value.
pub(crate) struct BoardSteps<'a, U, B> {
    pub moves: &'a CellMoves,
    pub upper: U,
    pub board_of: B,
}

impl<U, B> UpperSteps for BoardSteps<'_, U, B>
where
    U: Fn(&Cells) -> u64 + Sync,
    B: Fn(u64) -> Cells + Sync,
{
    fn neighbours(&self, u: u64, mut visit: impl FnMut(u64)) {
        let board = (self.board_of)(u);
        for m in 0..self.moves.len() {
            visit((self.upper)(&self.moves.solve_step(&board, m)));
        }
    }
}

/// The reachable upper values, in increasing order, and the index of each.
#[derive(Clone, Debug)]
pub(crate) struct ReachableUpper {
    /// The reachable values, each indexed by how many lie below it (a bit per value of the
    /// space: 2 MiB for the mastermorphix's 16 million, where an index per value took 64),
    /// and found from its index by [`BitRank::select`] where not listed.
    found: BitRank,
    /// The values in order where they are few ([`MAX_LISTED`]): a boards search finds the
    /// value of every rank it expands, and a read of the list is quicker than a select.
    listed: Option<Vec<u32>>,
}

/// Most reachable values listed beside the bitmap (a megabyte).
const MAX_LISTED: u64 = 1 << 18;

impl ReachableUpper {
    /// The values (below `space`) that `steps` reach from `first`; `None` when `space`
    /// exceeds [`MAX_UPPER_SPACE`].
    ///
    /// Searched level by level in parallel, a level kept as values (4 bytes each).
    pub(crate) fn search(
        space: u64,
        first: u64,
        steps: &impl UpperSteps,
    ) -> Option<ReachableUpper> {
        if space > MAX_UPPER_SPACE {
            return None;
        }
        let words: Vec<AtomicU64> = (0..space.div_ceil(64)).map(|_| AtomicU64::new(0)).collect();
        // Whether this call set the bit of `u` (each value enters one level once). Most
        // neighbours are found already: a plain load spares them the atomic write.
        let claim = |u: u64| {
            let (word, bit) = (&words[(u / 64) as usize], 1u64 << (u % 64));
            word.load(Relaxed) & bit == 0 && word.fetch_or(bit, Relaxed) & bit == 0
        };
        claim(first);
        let mut level = vec![first as u32];
        while !level.is_empty() {
            // A chunk's neighbours are all found (their words asked of the cache) before
            // any is claimed: a large space's bits miss the cache, and the misses overlap.
            level = level
                .par_chunks(CHUNK)
                .fold(
                    || (Vec::new(), Vec::new()),
                    |(mut next, mut found), chunk| {
                        found.clear();
                        for &u in chunk {
                            steps.neighbours(u as u64, |v| {
                                prefetch_at(words.as_ptr().wrapping_add((v / 64) as usize));
                                found.push(v);
                            });
                        }
                        // A value beyond the space (tables gone wrong) is dropped: the
                        // values found then fall short of the group, and the whole space
                        // is ranked instead.
                        let new = found.iter().filter(|&&v| v < space && claim(v));
                        next.extend(new.map(|&v| v as u32));
                        (next, found)
                    },
                )
                .map(|(next, _)| next)
                .reduce(Vec::new, |mut a, mut b| {
                    if a.len() < b.len() {
                        std::mem::swap(&mut a, &mut b);
                    }
                    a.append(&mut b);
                    a
                });
        }
        Some(ReachableUpper::from_bits(words.into_iter().map(AtomicU64::into_inner).collect()))
    }

    /// The values whose bits are set in `words` (bit `u % 64` of word `u / 64`).
    pub(crate) fn from_bits(words: Vec<u64>) -> ReachableUpper {
        let found = BitRank::from_words(words).with_select();
        let listed = (found.len() <= MAX_LISTED).then(|| found.iter().map(|u| u as u32).collect());
        ReachableUpper { found, listed }
    }

    /// Number of reachable values.
    pub(crate) fn len(&self) -> u64 {
        self.found.len()
    }

    /// The index of a reachable value (`u32::MAX` for another).
    #[inline(always)]
    pub(crate) fn index(&self, upper: u64) -> u32 {
        if self.found.contains(upper) { self.found.rank(upper) } else { u32::MAX }
    }

    /// Asks the cache for what [`ReachableUpper::index`] reads for `upper` (a hint).
    #[inline(always)]
    pub(crate) fn prefetch_index(&self, upper: u64) {
        self.found.prefetch(upper);
    }

    /// The value with index `i`.
    #[inline(always)]
    pub(crate) fn upper(&self, i: u64) -> u64 {
        match &self.listed {
            Some(list) => list[i as usize] as u64,
            None => self.found.select(i),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{MAX_LISTED, ReachableUpper};

    /// Values and indexes undo each other, with the values listed (few) and found by select
    /// (more than [`MAX_LISTED`]).
    #[test]
    fn reachable_values_and_their_indexes_agree() {
        for count in [1000u64, MAX_LISTED + 12_345] {
            let mut x = 0x9E37_79B9_7F4A_7C15u64;
            let mut values = Vec::new();
            let mut v = 0u64;
            for _ in 0..count {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                v += 1 + x % 40;
                values.push(v);
            }
            let mut words = vec![0u64; (v / 64 + 1) as usize];
            values.iter().for_each(|&u| words[(u / 64) as usize] |= 1 << (u % 64));
            let reachable = ReachableUpper::from_bits(words);
            assert_eq!(reachable.listed.is_some(), count <= MAX_LISTED);
            assert_eq!(reachable.len(), count);
            for (i, &u) in values.iter().enumerate() {
                assert_eq!(reachable.upper(i as u64), u, "value {i} of {count}");
                assert_eq!(reachable.index(u), i as u32);
                assert_eq!(
                    reachable.index(u + 1),
                    if values.get(i + 1) == Some(&(u + 1)) { i as u32 + 1 } else { u32::MAX }
                );
            }
        }
    }
}
