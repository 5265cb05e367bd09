//! The distance table: two bits per rank, in a memory map.
//!
//! A cell holds a *mark*: [`UNSEEN`] (0), or `1 + distance mod 3` ([`mark_of`]). Three
//! residues are enough for a level-synchronous search: a board's neighbours lie within one
//! level of it. This module is the only code that knows the packing: 32 cells per
//! little-endian `u64` word, rank `r` in bits `2*(r % 32)..` of word `r / 32`. Cells past the
//! last rank are filled with [`PADDING`] so they never look unseen, and are masked out when a
//! caller asks for a mark.
//!
//! The search sees ranks, marks and *groups*: the table's ranks cut into groups of
//! consecutive ranks (one word each), the unit of a scan. [`DistanceTable::marked`] gives the
//! ranks of a group that hold a mark as a [`RankSet`]; a worker that alone writes a group
//! marks a set at once with [`DistanceTable::set_owned`], any other writer through the atomic
//! [`DistanceTable::mark_if_unseen`] and [`DistanceTable::mark_unseen`]. [`RunMask`] does
//! the same for aligned runs of ranks that moves shuffle by XOR.
//!
//! A search counting unique shortest solutions (`--unique`) keeps two more bits per rank after
//! the marks, 64 ranks per word, reached through [`UniqueBits`]: *multi* (the board has two or
//! more shortest solutions) and *fresh* (the board was found in the level under way; see
//! [`crate::bfs::unique`]).

pub mod file;
pub mod format;
mod offset_map;
mod run_mask;
pub mod stored;

use std::sync::atomic::{AtomicU64, Ordering};

pub use file::{Storage, available_memory};
pub use offset_map::OffsetMap;
pub use run_mask::RunMask;
pub use stored::TableFile;

/// The mark of a board not reached yet.
pub const UNSEEN: u8 = 0;
/// The mark of cells past the last rank.
pub const PADDING: u8 = 3;
/// Cells per 64-bit word: the ranks of one group.
pub(crate) const CELLS_PER_WORD: u64 = 32;

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

/// Asks the cache for the line at `ptr` (a hint: any address will do, even out of range).
#[inline(always)]
pub(crate) fn prefetch_at<T>(ptr: *const T) {
    #[cfg(target_arch = "x86_64")]
    prefetch_with::<{ std::arch::x86_64::_MM_HINT_T0 }, T>(ptr);
    #[cfg(not(target_arch = "x86_64"))]
    let _ = ptr;
}

/// Asks the level-2 cache for the lines holding ranks `ranks` (a hint, as [`prefetch_at`]).
#[inline]
pub(crate) fn prefetch_range_l2(table: &DistanceTable, ranks: std::ops::Range<u64>) {
    let words = table.words();
    let (first, last) = (ranks.start / CELLS_PER_WORD, ranks.end.div_ceil(CELLS_PER_WORD));
    for w in (first..last).step_by(8) {
        #[cfg(target_arch = "x86_64")]
        prefetch_with::<{ std::arch::x86_64::_MM_HINT_T1 }, _>(
            words.as_ptr().wrapping_add(w as usize),
        );
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (words, w);
    }
}

/// The prefetch instruction with cache hint `HINT`, for both functions above.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn prefetch_with<const HINT: i32, T>(ptr: *const T) {
    // SAFETY: prefetching is a hint and never faults, even for an out-of-range address.
    unsafe { std::arch::x86_64::_mm_prefetch::<HINT>(ptr as *const i8) }
}

/// Every low bit of the 32 cells of a word.
const LOW_BITS: u64 = 0x5555_5555_5555_5555;

/// For each cell of `word` equal to `mark`, the cell's low bit set.
#[inline(always)]
fn cells_equal(word: u64, mark: u8) -> u64 {
    let pattern = LOW_BITS * mark as u64;
    let diff = word ^ pattern;
    !(diff | (diff >> 1)) & LOW_BITS
}

/// Some ranks of one group, as the low bit of each one's cell in the group's word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RankSet {
    /// The group's first rank.
    first: u64,
    cells: u64,
}

impl RankSet {
    /// The same ranks moved by `by` (from a table holding part of the ranks to ranks of the
    /// whole space: `by` may wrap, as the difference of two ranks).
    #[inline(always)]
    pub fn shifted(self, by: u64) -> RankSet {
        RankSet { first: self.first.wrapping_add(by), ..self }
    }

    /// The group's first rank.
    #[inline(always)]
    pub fn first(&self) -> u64 {
        self.first
    }

    /// The empty set of a group.
    #[inline(always)]
    pub fn empty_of(group: usize) -> RankSet {
        RankSet { first: group as u64 * CELLS_PER_WORD, cells: 0 }
    }

    /// The ranks of `group` whose cells' low bits `cells` holds.
    #[inline(always)]
    pub fn of_cells(group: usize, cells: u64) -> RankSet {
        debug_assert_eq!(cells & !LOW_BITS, 0);
        RankSet { first: group as u64 * CELLS_PER_WORD, cells }
    }

    /// Whether the set has no rank.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.cells == 0
    }

    /// Number of ranks in the set.
    #[inline(always)]
    pub fn len(&self) -> u64 {
        self.cells.count_ones() as u64
    }

    /// The set as the low bits of the group's cells (bit `2j` for the group's rank `j`).
    #[inline(always)]
    pub fn cells(&self) -> u64 {
        self.cells
    }

    /// Adds a rank of the set's group.
    #[inline(always)]
    pub fn insert(&mut self, rank: u64) {
        debug_assert!(rank - self.first < CELLS_PER_WORD);
        self.cells |= 1 << (2 * (rank - self.first));
    }
}

/// The ranks of the set, smallest first.
impl Iterator for RankSet {
    type Item = u64;
    #[inline(always)]
    fn next(&mut self) -> Option<u64> {
        if self.cells == 0 {
            return None;
        }
        let rank = self.first + self.cells.trailing_zeros() as u64 / 2;
        self.cells &= self.cells - 1;
        Some(rank)
    }
}

impl DistanceTable {
    /// A new table over zero-filled storage (every cell unseen); `unique`: the storage also
    /// holds the multi and fresh bits.
    pub fn new(storage: Storage, n_states: u64, unique: bool) -> DistanceTable {
        let t = DistanceTable::attach(storage, n_states, unique);
        let tail = n_states % CELLS_PER_WORD;
        if tail != 0 {
            let last = &t.words()[(n_states / CELLS_PER_WORD) as usize];
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

    /// The cells of group `group` (32 ranks, two bits each).
    #[inline(always)]
    pub fn group_cells(&self, group: usize) -> u64 {
        self.words()[group].load(Ordering::Relaxed)
    }

    /// Sets the cells of group `group` (for a table assembled from other tables' groups).
    pub fn set_group_cells(&self, group: usize, cells: u64) {
        self.words()[group].store(cells, Ordering::Relaxed);
    }

    /// Bytes in use: the marks, and the multi and fresh bits if kept.
    pub fn used_bytes(&self) -> &[u8] {
        let n =
            table_bytes(self.n_states) + if self.unique { unique_bytes(self.n_states) } else { 0 };
        &self.storage.bytes()[..n as usize]
    }

    /// The multi and fresh bits. Panics if the table keeps none (a search checks
    /// [`DistanceTable::has_unique_bits`] first).
    #[inline(always)]
    pub fn unique_bits(&self) -> UniqueBits<'_> {
        assert!(self.unique, "this table keeps no unique-solution bits");
        let start = self.n_groups();
        let len = bit_words(self.n_states);
        let words = &self.storage.words()[start..start + 2 * len];
        let (multi, fresh) = words.split_at(len);
        UniqueBits { multi, fresh }
    }

    /// Whether a board has two or more shortest solutions (tables with unique bits).
    #[inline(always)]
    pub fn is_multi(&self, rank: u64) -> bool {
        self.unique_bits().is_multi(rank)
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
    fn words(&self) -> &[AtomicU64] {
        self.storage.words()
    }

    /// Number of groups of ranks (see [`DistanceTable::marked`]).
    pub fn n_groups(&self) -> usize {
        self.n_states.div_ceil(CELLS_PER_WORD) as usize
    }

    /// The low bits of the cells of word `w` that hold ranks (all but the padding).
    #[inline(always)]
    fn valid_cells(&self, w: usize) -> u64 {
        let first = w as u64 * CELLS_PER_WORD;
        let n = (self.n_states - first).min(CELLS_PER_WORD);
        if n == CELLS_PER_WORD { LOW_BITS } else { LOW_BITS & ((1u64 << (2 * n)) - 1) }
    }

    /// The ranks of a group holding `mark`.
    #[inline(always)]
    pub fn marked(&self, group: usize, mark: u8) -> RankSet {
        let cells = cells_equal(self.words()[group].load(Ordering::Relaxed), mark);
        RankSet { first: group as u64 * CELLS_PER_WORD, cells: cells & self.valid_cells(group) }
    }

    /// The unseen ranks of a group.
    #[inline(always)]
    pub fn unseen(&self, group: usize) -> RankSet {
        // Padding is never unseen: no mask needed.
        let cells = cells_equal(self.words()[group].load(Ordering::Relaxed), UNSEEN);
        RankSet { first: group as u64 * CELLS_PER_WORD, cells }
    }

    /// Gives unseen ranks of one group a mark, for a caller that alone writes the group (no
    /// atomic read-modify-write).
    #[inline(always)]
    pub fn set_owned(&self, ranks: RankSet, mark: u8) {
        if ranks.is_empty() {
            return;
        }
        let word = &self.words()[(ranks.first / CELLS_PER_WORD) as usize];
        word.store(word.load(Ordering::Relaxed) | (ranks.cells * mark as u64), Ordering::Relaxed);
    }

    /// Marks the ranks of `ranks` still unseen; returns those this call marked. Safe to race
    /// with other calls setting the same mark.
    #[inline(always)]
    pub fn mark_unseen(&self, ranks: RankSet, mark: u8) -> RankSet {
        let word = &self.words()[(ranks.first / CELLS_PER_WORD) as usize];
        let new = ranks.cells & cells_equal(word.load(Ordering::Relaxed), UNSEEN);
        if new == 0 {
            return RankSet { cells: 0, ..ranks };
        }
        let old = word.fetch_or(new * mark as u64, Ordering::Relaxed);
        RankSet { cells: new & cells_equal(old, UNSEEN), ..ranks }
    }

    /// The mark of a rank.
    #[inline(always)]
    pub fn get(&self, rank: u64) -> u8 {
        let w = self.words()[(rank / CELLS_PER_WORD) as usize].load(Ordering::Relaxed);
        ((w >> (2 * (rank % CELLS_PER_WORD))) & 3) as u8
    }

    /// The mark of a rank, read so that what the marking thread wrote before marking it
    /// (with [`DistanceTable::mark_if_unseen`]) is visible too.
    #[inline(always)]
    pub fn get_acquire(&self, rank: u64) -> u8 {
        let w = self.words()[(rank / CELLS_PER_WORD) as usize].load(Ordering::Acquire);
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
        prefetch_at(self.words().as_ptr().wrapping_add((rank / CELLS_PER_WORD) as usize));
    }

    /// Counts the cells holding each mark (index = mark).
    pub fn count_marks(&self) -> [u64; 4] {
        use rayon::prelude::*;
        let mut counts = self.words()[..self.n_groups()]
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
        counts[PADDING as usize] -= self.n_groups() as u64 * CELLS_PER_WORD - self.n_states;
        counts
    }

    /// Counts the ranks marked `mark` whose multi bit is clear (tables with unique bits).
    pub fn count_marked_single(&self, mark: u8) -> u64 {
        use rayon::prelude::*;
        let bits = self.unique_bits();
        (0..self.n_groups())
            .into_par_iter()
            .map(|w| (self.marked(w, mark).cells & !bits.multi_cells(w)).count_ones() as u64)
            .sum()
    }

    /// Clears every fresh bit (the level they belong to is finished).
    pub fn clear_fresh(&self) {
        use rayon::prelude::*;
        // Only words that hold bits: untouched pages of a file-backed table stay clean.
        self.unique_bits().fresh.par_iter().for_each(|w| {
            if w.load(Ordering::Relaxed) != 0 {
                w.store(0, Ordering::Relaxed)
            }
        });
    }

    /// Unmarks the fresh ranks (found in an unfinished level), clears their multi bits and
    /// then every fresh bit.
    pub fn unmark_fresh(&self) {
        use rayon::prelude::*;
        let bits = self.unique_bits();
        (0..self.n_groups()).into_par_iter().with_min_len(1024).for_each(|w| {
            let f = bits.fresh_cells(w);
            if f != 0 {
                let cells = f | (f << 1);
                self.words()[w].fetch_and(!cells, Ordering::Relaxed);
            }
        });
        for (m, f) in bits.multi.iter().zip(bits.fresh) {
            let fresh = f.swap(0, Ordering::Relaxed);
            if fresh != 0 {
                m.fetch_and(!fresh, Ordering::Relaxed);
            }
        }
    }

    /// Flushes a file-backed table to disk.
    pub fn flush(&self) -> crate::Result<()> {
        self.storage.flush()
    }
}

/// The multi and fresh bits of a table: one bit per rank each, shared by the workers.
#[derive(Clone, Copy)]
pub struct UniqueBits<'a> {
    multi: &'a [AtomicU64],
    fresh: &'a [AtomicU64],
}

impl UniqueBits<'_> {
    /// Whether the board has two or more shortest solutions (as counted so far).
    #[inline(always)]
    pub fn is_multi(&self, rank: u64) -> bool {
        bit_of(self.multi, rank)
    }

    /// Records a second shortest solution.
    #[inline(always)]
    pub fn set_multi(&self, rank: u64) {
        set_bit(self.multi, rank);
    }

    /// Whether the board was found in the level under way.
    #[inline(always)]
    pub fn is_fresh(&self, rank: u64) -> bool {
        bit_of(self.fresh, rank)
    }

    /// Sets the fresh bit; returns whether this call set it (false: it was set already).
    #[inline(always)]
    pub fn claim_fresh(&self, rank: u64) -> bool {
        !set_bit(self.fresh, rank)
    }

    /// The multi bits of group `w`, at the low bits of their cells.
    #[inline(always)]
    fn multi_cells(&self, w: usize) -> u64 {
        spread_bits(self.multi, w)
    }

    /// The fresh bits of group `w`, at the low bits of their cells.
    #[inline(always)]
    fn fresh_cells(&self, w: usize) -> u64 {
        spread_bits(self.fresh, w)
    }
}

/// Bit `rank` of a one-bit-per-rank array.
#[inline(always)]
fn bit_of(words: &[AtomicU64], rank: u64) -> bool {
    (words[(rank / 64) as usize].load(Ordering::Relaxed) >> (rank % 64)) & 1 == 1
}

/// Sets bit `rank`; returns whether it was set before.
#[inline(always)]
fn set_bit(words: &[AtomicU64], rank: u64) -> bool {
    let bit = 1u64 << (rank % 64);
    words[(rank / 64) as usize].fetch_or(bit, Ordering::Relaxed) & bit != 0
}

/// The bits of the 32 ranks of mark word `w` in a one-bit array, moved to the low bits of
/// their 2-bit cells (to combine with [`cells_equal`]).
#[inline(always)]
fn spread_bits(words: &[AtomicU64], w: usize) -> u64 {
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
    fn groups_scan_and_mark_sets() {
        let t = DistanceTable::in_memory(70).unwrap();
        assert_eq!(t.n_groups(), 3);
        // The last group holds ranks 64..69; its padding is neither unseen nor marked 3.
        assert_eq!(t.unseen(2).collect::<Vec<_>>(), (64..70).collect::<Vec<_>>());
        assert!(t.marked(2, PADDING).is_empty());
        let mut set = RankSet::empty_of(1);
        set.insert(33);
        set.insert(63);
        assert_eq!(set.len(), 2);
        t.set_owned(set, 2);
        assert_eq!(t.marked(1, 2).collect::<Vec<_>>(), vec![33, 63]);
        assert_eq!(t.unseen(1).len(), 30);
        // Atomic marking of a set returns only the ranks that were still unseen.
        let mut more = RankSet::empty_of(1);
        more.insert(33);
        more.insert(40);
        assert_eq!(t.mark_unseen(more, 3).collect::<Vec<_>>(), vec![40]);
        assert_eq!(t.get(33), 2);
        assert_eq!(t.get(40), 3);
        assert_eq!(t.count_marks(), [67, 0, 2, 1]);
    }

    #[test]
    fn unique_bits_line_up_with_cells() {
        let t = DistanceTable::in_memory_unique(100).unwrap();
        let bits = t.unique_bits();
        for r in [0u64, 31, 32, 63, 64, 99] {
            assert!(!bits.is_multi(r));
            bits.set_multi(r);
            assert!(t.is_multi(r));
            assert!(bits.claim_fresh(r));
            assert!(!bits.claim_fresh(r));
        }
        assert!(!t.is_multi(1));
        assert!(!bits.is_fresh(1) && bits.is_fresh(0));
        // Word 1 of the marks holds ranks 32..63: cells 0 and 31 of it.
        assert_eq!(bits.multi_cells(1), 1 | 1 << 62);
        assert_eq!(bits.multi_cells(3), 1 << 6);
        // Ranks marked 1 without the multi bit: 5 marked, 2 of them multi.
        for r in [0u64, 1, 2, 31, 50] {
            t.mark_if_unseen(r, 1);
        }
        assert_eq!(t.count_marked_single(1), 3);
        // Unmarking the fresh ranks takes back 0 and 31 (the fresh marked ones) and clears
        // the multi bits of every fresh rank.
        t.unmark_fresh();
        assert_eq!(t.count_marks()[1], 3);
        assert!(!t.is_multi(0) && !t.is_multi(99) && !bits.is_fresh(0));
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
