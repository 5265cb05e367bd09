//! Masks over aligned runs of ranks, for rankings whose moves map a whole run onto another
//! with the offsets permuted by XOR ([`crate::rank::StateRanking::xor_block_bits`]).
//!
//! A [`RunMask`] holds one bit per rank of a run of `2^k` ranks (`k >= 5`, whole groups),
//! in the table's own layout (the low bit of each 2-bit cell), so loading it from the table,
//! shuffling it by XOR and marking it back are a few word operations per 32 ranks.

use std::sync::atomic::Ordering;

use super::{CELLS_PER_WORD, DistanceTable, RankSet, cells_equal};

/// One bit per rank of an aligned run of `2^bits` ranks.
#[derive(Clone, Debug)]
pub struct RunMask {
    bits: u32,
    pub(super) cells: Vec<u64>,
}

impl RunMask {
    /// An empty mask of runs of `2^bits` ranks (`bits >= 5`: a run is whole groups).
    pub fn new(bits: u32) -> RunMask {
        assert!(1u64 << bits >= CELLS_PER_WORD, "a run must cover whole groups");
        RunMask { bits, cells: vec![0; ((1u64 << bits) / CELLS_PER_WORD) as usize] }
    }

    /// Loads the ranks of run `run` that hold `mark`; returns whether there is any.
    #[inline(always)]
    pub fn load(&mut self, table: &DistanceTable, run: u64, mark: u8) -> bool {
        let start = run as usize * self.cells.len();
        let words = &table.words()[start..start + self.cells.len()];
        let mut any = 0;
        for (m, w) in self.cells.iter_mut().zip(words) {
            *m = cells_equal(w.load(Ordering::Relaxed), mark);
            any |= *m;
        }
        any != 0
    }

    /// The mask's words: the low bit of each rank's cell, 32 ranks a word (to send it to
    /// another process).
    pub fn cells(&self) -> &[u64] {
        &self.cells
    }

    /// Takes the words of [`RunMask::cells`] back.
    pub fn set_cells(&mut self, cells: &[u64]) {
        self.cells.copy_from_slice(cells);
    }

    /// Empties the mask.
    #[inline(always)]
    pub fn clear(&mut self) {
        self.cells.iter_mut().for_each(|c| *c = 0);
    }

    /// Adds `other` with its offsets moved by XOR: offset `x` gets `other`'s bit of `x ^ c`.
    #[inline(always)]
    pub fn or_xor_shuffled(&mut self, other: &RunMask, c: u64) {
        let (hi, lo) = ((c / CELLS_PER_WORD) as usize, c % CELLS_PER_WORD);
        for (j, o) in self.cells.iter_mut().enumerate() {
            *o |= xor_cells(other.cells[j ^ hi], lo);
        }
    }

    /// Adds the ranks of `other`.
    #[inline(always)]
    pub fn or(&mut self, other: &RunMask) {
        self.cells.iter_mut().zip(&other.cells).for_each(|(a, b)| *a |= b);
    }

    /// Keeps only the ranks also in `other`.
    #[inline(always)]
    pub fn intersect(&mut self, other: &RunMask) {
        self.cells.iter_mut().zip(&other.cells).for_each(|(a, b)| *a &= b);
    }

    /// Whether every rank of `other` is in `self`.
    #[inline(always)]
    pub fn covers(&self, other: &RunMask) -> bool {
        self.cells.iter().zip(&other.cells).all(|(a, o)| o & !a == 0)
    }

    /// The mask as the sets of ranks of the groups of run `run`.
    #[inline(always)]
    pub fn sets(&self, run: u64) -> impl Iterator<Item = RankSet> + '_ {
        let first = run << self.bits;
        self.cells
            .iter()
            .enumerate()
            .map(move |(j, &cells)| RankSet { first: first + j as u64 * CELLS_PER_WORD, cells })
    }
}

/// Swaps cells `i` and `i ^ c` of a word's 32 two-bit cells (`c < 32`).
#[inline(always)]
fn xor_cells(mut w: u64, c: u64) -> u64 {
    const KEEP: [u64; 5] = [
        0x3333_3333_3333_3333,
        0x0F0F_0F0F_0F0F_0F0F,
        0x00FF_00FF_00FF_00FF,
        0x0000_FFFF_0000_FFFF,
        0x0000_0000_FFFF_FFFF,
    ];
    for (b, &keep) in KEEP.iter().enumerate() {
        if (c >> b) & 1 == 1 {
            let s = 2 << b;
            w = ((w & keep) << s) | ((w >> s) & keep);
        }
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xor_cells_is_the_xor_permutation() {
        let w: u64 = (0..32u64).fold(0, |acc, i| acc | ((i % 4) << (2 * i)));
        for c in 0..32u64 {
            let s = xor_cells(w, c);
            for i in 0..32u64 {
                assert_eq!((s >> (2 * i)) & 3, ((i ^ c) % 4), "c={c} i={i}");
            }
        }
    }

    #[test]
    fn shuffles_across_groups() {
        let mut mask = RunMask::new(7);
        mask.cells[0] = 1;
        let mut out = RunMask::new(7);
        out.or_xor_shuffled(&mask, 3 * 32 + 5);
        assert_eq!(out.cells, vec![0, 0, 0, 1 << 10]);
        // Run 2 of 128 ranks: the set bit is rank 256 + 3 * 32 + 5.
        let ranks: Vec<u64> = out.sets(2).flatten().collect();
        assert_eq!(ranks, vec![256 + 101]);
        assert!(out.covers(&RunMask::new(7)) && !mask.covers(&out));
    }

    #[test]
    fn loads_and_marks_a_run() {
        let t = DistanceTable::in_memory(256).unwrap();
        t.mark_if_unseen(64 + 7, 1);
        let mut m = RunMask::new(6);
        assert!(m.load(&t, 1, 1));
        assert_eq!(m.sets(1).flatten().collect::<Vec<_>>(), vec![71]);
        assert!(!m.load(&t, 0, 1));
        let mut unseen = RunMask::new(6);
        unseen.load(&t, 1, 0);
        assert_eq!(unseen.sets(1).map(|s| s.len()).sum::<u64>(), 63);
    }
}
