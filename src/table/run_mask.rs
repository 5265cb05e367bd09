//! Masks over aligned runs of ranks, for rankings whose moves map a whole run onto another
//! with the offsets permuted by XOR ([`crate::rank::StateRanking::xor_block_bits`]).
//!
//! A [`RunMask`] holds one bit per rank of a run of `2^k` ranks (`k >= 5`, whole groups),
//! in the table's own layout (the low bit of each 2-bit cell), so loading it from the table,
//! shuffling it by XOR and marking it back are a few word operations per 32 ranks.

use std::sync::atomic::Ordering;

use super::{CELLS_PER_WORD, DistanceTable, LOW_BITS, RankSet, cells_equal};

/// Bits of a message header naming the run; the rest say how the mask follows.
const HEADER_RUN_BITS: u32 = 44;
/// The header's form of a mask sent as its words (any other: the number of offsets).
const DENSE: u64 = (1 << (64 - HEADER_RUN_BITS)) - 1;

/// One bit per rank of an aligned run of `2^bits` ranks.
#[derive(Debug)]
pub struct RunMask {
    bits: u32,
    pub(super) cells: Vec<u64>,
}

/// By hand, so that `clone_from` (once per run in the steps) keeps the storage it has.
impl Clone for RunMask {
    fn clone(&self) -> RunMask {
        RunMask { bits: self.bits, cells: self.cells.clone() }
    }

    fn clone_from(&mut self, source: &RunMask) {
        self.bits = source.bits;
        self.cells.clone_from(&source.cells);
    }
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

    /// Loads a run from `paired`, words that each hold two groups of ranks (group `2w` in
    /// the low bits of word `w`'s cells, group `2w + 1` in the high bits), the run starting
    /// at group `group`; returns whether there is any rank.
    #[inline(always)]
    pub fn load_paired(&mut self, paired: &[u64], group: u64) -> bool {
        let mut any = 0;
        for (j, m) in self.cells.iter_mut().enumerate() {
            let g = group + j as u64;
            *m = (paired[(g / 2) as usize] >> (g % 2)) & LOW_BITS;
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

    /// Appends the mask of table run `run` to a message for another process: a header (the
    /// run, and how the mask follows), then the mask's words or, when shorter, the offsets
    /// it holds, four 16-bit offsets a word. Early levels' masks hold a few boards of
    /// hundreds, where the offsets are several times shorter. See [`RunMask::read_message`].
    pub fn write_message(&self, run: u64, out: &mut Vec<u64>) {
        debug_assert!(run < 1 << HEADER_RUN_BITS);
        let n: u32 = self.cells.iter().map(|c| c.count_ones()).sum();
        let sparse = self.bits <= 16 && n.div_ceil(4) < self.cells.len() as u32;
        if !sparse {
            out.push(run | DENSE << HEADER_RUN_BITS);
            out.extend_from_slice(&self.cells);
            return;
        }
        out.push(run | (n as u64) << HEADER_RUN_BITS);
        let (mut word, mut held) = (0u64, 0);
        for (j, &cells) in self.cells.iter().enumerate() {
            let mut c = cells;
            while c != 0 {
                let offset = j as u64 * CELLS_PER_WORD + c.trailing_zeros() as u64 / 2;
                c &= c - 1;
                word |= offset << (16 * held);
                held += 1;
                if held == 4 {
                    out.push(word);
                    (word, held) = (0, 0);
                }
            }
        }
        if held > 0 {
            out.push(word);
        }
    }

    /// The words of the message whose header is `header`, the header included.
    pub fn message_words(&self, header: u64) -> usize {
        match header >> HEADER_RUN_BITS {
            DENSE => 1 + self.cells.len(),
            n => 1 + (n as usize).div_ceil(4),
        }
    }

    /// Reads one message of [`RunMask::write_message`] from the start of `words`; returns
    /// the run and the words it took.
    pub fn read_message(&mut self, words: &[u64]) -> (u64, usize) {
        let (run, form) = (words[0] & ((1 << HEADER_RUN_BITS) - 1), words[0] >> HEADER_RUN_BITS);
        let used = self.message_words(words[0]);
        if form == DENSE {
            self.cells.copy_from_slice(&words[1..used]);
            return (run, used);
        }
        self.clear();
        for k in 0..form as usize {
            let offset = (words[1 + k / 4] >> (16 * (k % 4))) & 0xFFFF;
            self.cells[(offset / CELLS_PER_WORD) as usize] |= 1 << (2 * (offset % CELLS_PER_WORD));
        }
        (run, used)
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
    fn messages_carry_masks_sparse_or_dense() {
        let mut rng = crate::random::SplitMix::for_board(3, 0);
        for bits in [5u32, 6, 9, 10, 12] {
            for density in [0u64, 1, 4, 16, 64] {
                let mut mask = RunMask::new(bits);
                for c in mask.cells.iter_mut() {
                    for j in 0..CELLS_PER_WORD {
                        if rng.next_u64() % 64 < density {
                            *c |= 1 << (2 * j);
                        }
                    }
                }
                let run = rng.next_u64() >> 24;
                let mut out = vec![7];
                mask.write_message(run, &mut out);
                out.push(9);
                let mut back = RunMask::new(bits);
                back.cells.iter_mut().for_each(|c| *c = !0);
                let (r, used) = back.read_message(&out[1..]);
                assert_eq!((r, back.cells.clone()), (run, mask.cells.clone()), "{bits} {density}");
                assert_eq!(used, out.len() - 2);
                assert!(used <= 1 + mask.cells.len());
            }
        }
    }

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
