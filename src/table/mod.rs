//! The distance table: two bits per rank, in a memory map.
//!
//! A cell holds a *mark*: [`UNSEEN`] (0), or `1 + distance mod 3`. Three residues are enough
//! for a level-synchronous search: a board's neighbours lie within one level of it. This
//! module is the only code that knows the packing: 32 cells per little-endian `u64` word,
//! rank `r` in bits `2*(r % 32)..` of word `r / 32`. Cells past the last rank are filled
//! with [`PADDING`] so they never look unseen; since that is also a distance mark, readers
//! looking for a mark mask them with [`DistanceTable::valid_cells`].
//!
//! A search counting unique shortest solutions (`--unique`) keeps two more bits per rank after
//! the marks, 64 ranks per word: *multi* (the board has two or more shortest solutions) and
//! *fresh* (the board was found in the level under way; see [`crate::bfs`]).

pub mod file;
pub mod format;
pub mod stored;

use std::sync::atomic::{AtomicU64, Ordering};

pub use file::Storage;
pub use stored::TableFile;

/// The mark of a board not reached yet.
pub const UNSEEN: u8 = 0;
/// The mark of cells past the last rank.
pub const PADDING: u8 = 3;
/// Cells per 64-bit word.
pub const CELLS_PER_WORD: u64 = 32;

/// The mark of a board at a distance.
#[inline(always)]
pub fn mark_of(distance: u32) -> u8 {
    (distance % 3) as u8 + 1
}

/// Two bits per rank, and optionally the multi and fresh bits.
pub struct DistanceTable {
    storage: Storage,
    n_states: u64,
    unique: bool,
}

/// Bytes a table of `n_states` cells needs.
pub fn table_bytes(n_states: u64) -> u64 {
    n_states.div_ceil(CELLS_PER_WORD) * 8
}

/// Bytes of the multi and fresh bits of `n_states` ranks.
pub fn unique_bytes(n_states: u64) -> u64 {
    2 * bit_words(n_states) as u64 * 8
}

/// Words of a one-bit-per-rank array.
fn bit_words(n_states: u64) -> usize {
    n_states.div_ceil(64) as usize
}

/// Every low bit of the 32 cells of a word.
const LOW_BITS: u64 = 0x5555_5555_5555_5555;

/// For each cell of `word` equal to `mark`, the cell's low bit set.
#[inline(always)]
pub fn cells_equal(word: u64, mark: u8) -> u64 {
    let pattern = LOW_BITS * mark as u64;
    let diff = word ^ pattern;
    !(diff | (diff >> 1)) & LOW_BITS
}

impl DistanceTable {
    /// A new table over zero-filled storage (every cell unseen); `unique`: the storage also
    /// holds the multi and fresh bits.
    pub fn new(storage: Storage, n_states: u64, unique: bool) -> DistanceTable {
        let t = DistanceTable::attach(storage, n_states, unique);
        let words = t.words();
        let tail = n_states % CELLS_PER_WORD;
        if tail != 0 {
            let last = &words[(n_states / CELLS_PER_WORD) as usize];
            let pad = (LOW_BITS * PADDING as u64) & !((1u64 << (2 * tail)) - 1);
            last.fetch_or(pad, Ordering::Relaxed);
        }
        t
    }

    /// A table over storage that already holds one (a table file being resumed or read).
    pub fn attach(storage: Storage, n_states: u64, unique: bool) -> DistanceTable {
        let needed = table_bytes(n_states) + if unique { unique_bytes(n_states) } else { 0 };
        assert!(storage.len_bytes() as u64 >= needed);
        DistanceTable { storage, n_states, unique }
    }

    /// A table in anonymous memory.
    pub fn in_memory(n_states: u64) -> crate::Result<DistanceTable> {
        Ok(DistanceTable::new(Storage::anonymous(table_bytes(n_states))?, n_states, false))
    }

    /// A table with multi and fresh bits in anonymous memory.
    pub fn in_memory_unique(n_states: u64) -> crate::Result<DistanceTable> {
        let bytes = table_bytes(n_states) + unique_bytes(n_states);
        Ok(DistanceTable::new(Storage::anonymous(bytes)?, n_states, true))
    }

    /// Whether the table keeps the multi and fresh bits.
    pub fn has_unique_bits(&self) -> bool {
        self.unique
    }

    /// The storage (for flushing, checksums and export).
    pub fn storage(&self) -> &Storage {
        &self.storage
    }

    /// Bytes in use: the marks, and the multi and fresh bits if kept.
    pub fn used_bytes(&self) -> &[u8] {
        let n =
            table_bytes(self.n_states) + if self.unique { unique_bytes(self.n_states) } else { 0 };
        &self.storage.bytes()[..n as usize]
    }

    /// The multi bits: one per rank, set when the board has two or more shortest solutions.
    #[inline(always)]
    pub fn multi_words(&self) -> &[AtomicU64] {
        assert!(self.unique, "this table keeps no unique-solution bits");
        let start = self.n_words();
        &self.storage.words()[start..start + bit_words(self.n_states)]
    }

    /// The fresh bits: one per rank, set for boards found in the level under way.
    #[inline(always)]
    pub fn fresh_words(&self) -> &[AtomicU64] {
        assert!(self.unique, "this table keeps no unique-solution bits");
        let start = self.n_words() + bit_words(self.n_states);
        &self.storage.words()[start..start + bit_words(self.n_states)]
    }

    /// Whether a board has two or more shortest solutions (tables with unique bits).
    #[inline(always)]
    pub fn is_multi(&self, rank: u64) -> bool {
        bit_of(self.multi_words(), rank)
    }

    /// Number of ranks.
    pub fn n_states(&self) -> u64 {
        self.n_states
    }

    /// Size of the table body in bytes.
    pub fn len_bytes(&self) -> u64 {
        table_bytes(self.n_states)
    }

    /// The words, for shared atomic access. With unique bits the slice runs on past the
    /// marks (into the multi and fresh words): index it by mark word only.
    #[inline(always)]
    pub fn words(&self) -> &[AtomicU64] {
        self.storage.words()
    }

    /// Number of words.
    pub fn n_words(&self) -> usize {
        self.n_states.div_ceil(CELLS_PER_WORD) as usize
    }

    /// The low bits of the cells of word `w` that hold ranks (all but the padding).
    #[inline(always)]
    pub fn valid_cells(&self, w: usize) -> u64 {
        let first = w as u64 * CELLS_PER_WORD;
        let n = (self.n_states - first).min(CELLS_PER_WORD);
        if n == CELLS_PER_WORD { LOW_BITS } else { LOW_BITS & ((1u64 << (2 * n)) - 1) }
    }

    /// The mark of a rank.
    #[inline(always)]
    pub fn get(&self, rank: u64) -> u8 {
        let w = self.words()[(rank / CELLS_PER_WORD) as usize].load(Ordering::Relaxed);
        ((w >> (2 * (rank % CELLS_PER_WORD))) & 3) as u8
    }

    /// Marks an unseen rank; returns whether this call was the one that marked it. Safe to
    /// race with other calls setting the same mark (all writers of one level do).
    #[inline(always)]
    pub fn mark_if_unseen(&self, rank: u64, mark: u8) -> bool {
        let word = &self.words()[(rank / CELLS_PER_WORD) as usize];
        let shift = 2 * (rank % CELLS_PER_WORD);
        if (word.load(Ordering::Relaxed) >> shift) & 3 != UNSEEN as u64 {
            return false;
        }
        // Release: whatever the caller wrote before marking (the fresh bit of a unique search)
        // is visible to a thread that sees the mark with an Acquire load. Free on x86.
        let old = word.fetch_or((mark as u64) << shift, Ordering::AcqRel);
        (old >> shift) & 3 == UNSEEN as u64
    }

    /// Hints that a rank's word will be needed soon.
    #[inline(always)]
    pub fn prefetch(&self, rank: u64) {
        let ptr = self.words().as_ptr().wrapping_add((rank / CELLS_PER_WORD) as usize);
        #[cfg(target_arch = "x86_64")]
        // SAFETY: prefetching is a hint and never faults, even for an out-of-range address.
        unsafe {
            std::arch::x86_64::_mm_prefetch(ptr as *const i8, std::arch::x86_64::_MM_HINT_T0);
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = ptr;
    }

    /// Counts the cells holding each mark (index = mark).
    pub fn count_marks(&self) -> [u64; 4] {
        use rayon::prelude::*;
        let mut counts = self.words()[..self.n_words()]
            .par_chunks(1 << 16)
            .map(|chunk| {
                let mut c = [0u64; 4];
                for w in chunk {
                    let w = w.load(Ordering::Relaxed);
                    for (m, slot) in c.iter_mut().enumerate() {
                        *slot += cells_equal(w, m as u8).count_ones() as u64;
                    }
                }
                c
            })
            .reduce(|| [0; 4], |a, b| [a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3]]);
        counts[PADDING as usize] -= self.n_words() as u64 * CELLS_PER_WORD - self.n_states;
        counts
    }

    /// Flushes a file-backed table to disk.
    pub fn flush(&self) -> crate::Result<()> {
        self.storage.flush()
    }
}

/// Bit `rank` of a one-bit-per-rank array.
#[inline(always)]
pub fn bit_of(words: &[AtomicU64], rank: u64) -> bool {
    (words[(rank / 64) as usize].load(Ordering::Relaxed) >> (rank % 64)) & 1 == 1
}

/// Sets bit `rank`; returns whether it was set before.
#[inline(always)]
pub fn set_bit(words: &[AtomicU64], rank: u64) -> bool {
    let bit = 1u64 << (rank % 64);
    words[(rank / 64) as usize].fetch_or(bit, Ordering::Relaxed) & bit != 0
}

/// The bits of the 32 ranks of mark word `w` in a one-bit array, moved to the low bits of
/// their 2-bit cells (to combine with [`cells_equal`]).
#[inline(always)]
pub fn spread_bits(words: &[AtomicU64], w: usize) -> u64 {
    let half = (words[w / 2].load(Ordering::Relaxed) >> (32 * (w % 2))) & 0xFFFF_FFFF;
    // Interleave a zero after every bit: 32 bits -> the even bits of 64.
    let mut x = half;
    x = (x | (x << 16)) & 0x0000_FFFF_0000_FFFF;
    x = (x | (x << 8)) & 0x00FF_00FF_00FF_00FF;
    x = (x | (x << 4)) & 0x0F0F_0F0F_0F0F_0F0F;
    x = (x | (x << 2)) & 0x3333_3333_3333_3333;
    (x | (x << 1)) & LOW_BITS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_at_word_boundaries() {
        let t = DistanceTable::in_memory(70).unwrap();
        assert_eq!(t.count_marks(), [70, 0, 0, 0]);
        for r in [0u64, 31, 32, 63, 64, 69] {
            assert!(t.mark_if_unseen(r, mark_of(r as u32)));
            assert!(!t.mark_if_unseen(r, 1));
            assert_eq!(t.get(r), mark_of(r as u32));
        }
        assert_eq!(t.get(1), UNSEEN);
        assert_eq!(t.get(70 - 1), mark_of(69));
        let c = t.count_marks();
        assert_eq!(c.iter().sum::<u64>(), 70);
        assert_eq!(c[0], 64);
    }

    #[test]
    fn unique_bits_line_up_with_cells() {
        let t = DistanceTable::in_memory_unique(100).unwrap();
        for r in [0u64, 31, 32, 63, 64, 99] {
            assert!(!set_bit(t.multi_words(), r));
            assert!(set_bit(t.multi_words(), r));
            assert!(t.is_multi(r));
        }
        assert!(!t.is_multi(1));
        assert!(!bit_of(t.fresh_words(), 0));
        // Word 1 of the marks holds ranks 32..63: cells 0 and 31 of it.
        assert_eq!(spread_bits(t.multi_words(), 1), 1 | 1 << 62);
        assert_eq!(spread_bits(t.multi_words(), 3), 1 << 6);
    }

    #[test]
    fn cells_equal_finds_each_mark() {
        let w: u64 = 0b11_10_01_00;
        assert_eq!(cells_equal(w, 0) & 0xFF, 0b00_00_00_01);
        assert_eq!(cells_equal(w, 1) & 0xFF, 0b00_00_01_00);
        assert_eq!(cells_equal(w, 2) & 0xFF, 0b00_01_00_00);
        assert_eq!(cells_equal(w, 3) & 0xFF, 0b01_00_00_00);
    }
}
