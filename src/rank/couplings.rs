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
//! over that coordinate (any board stands for its value), and ranks then count only those:
//! `index(upper) * orient_count + orientation digits`, dense when the orientation digits are
//! free given `upper` (the group order says whether they are).

use bitvec::vec::BitVec;

use super::layout::{Cells, CompiledMove};

/// Largest space of upper values searched: its index takes 4 bytes per value.
pub(crate) const MAX_UPPER_SPACE: u64 = 1 << 24;

/// The reachable upper values, in increasing order, and the index of each.
#[derive(Clone, Debug)]
pub(crate) struct ReachableUpper {
    /// `index_of[upper]`: the value's index among the reachable ones, or `u32::MAX`.
    index_of: Vec<u32>,
    /// `upper_of[i]`: the `i`-th reachable value.
    upper_of: Vec<u32>,
}

impl ReachableUpper {
    /// The values of `upper` (below `space`) that `moves` reach from `start`, each applied by
    /// `apply`; `None` when `space` exceeds [`MAX_UPPER_SPACE`].
    pub(crate) fn search(
        space: u64,
        start: Cells,
        moves: &[CompiledMove],
        apply: impl Fn(&Cells, &CompiledMove) -> Cells,
        upper: impl Fn(&Cells) -> u64,
    ) -> Option<ReachableUpper> {
        if space > MAX_UPPER_SPACE {
            return None;
        }
        // A bit per value while searching: an eighth of the index, so it stays in cache
        // (the index, four bytes a value, made every probe a miss: 0.1 s of the skewb's).
        let mut found: BitVec = BitVec::repeat(false, space as usize);
        found.set(upper(&start) as usize, true);
        // One board per value found: the moves act on values, so any board of a value
        // gives the same next values.
        let mut queue = vec![start];
        while let Some(board) = queue.pop() {
            for m in moves {
                let next = apply(&board, m);
                let u = upper(&next) as usize;
                if !found.replace(u, true) {
                    queue.push(next);
                }
            }
        }
        let upper_of: Vec<u32> = found.iter_ones().map(|u| u as u32).collect();
        let mut index_of = vec![u32::MAX; space as usize];
        for (i, &u) in upper_of.iter().enumerate() {
            index_of[u as usize] = i as u32;
        }
        Some(ReachableUpper { index_of, upper_of })
    }

    /// Number of reachable values.
    pub(crate) fn len(&self) -> u64 {
        self.upper_of.len() as u64
    }

    /// The index of a reachable value (`u32::MAX` for another).
    #[inline(always)]
    pub(crate) fn index(&self, upper: u64) -> u32 {
        self.index_of[upper as usize]
    }

    /// The value with index `i`.
    #[inline(always)]
    pub(crate) fn upper(&self, i: u64) -> u64 {
        self.upper_of[i as usize] as u64
    }
}
