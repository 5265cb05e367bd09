//! A copy of the whole frontier on every process, for backward steps under several
//! processes.
//!
//! A backward step looks at the neighbours of unseen boards, and most of them belong to other
//! processes. Asking their owners costs a question and an answer for each, several times the
//! work of the look itself. When the frontier fits one bit per rank of the whole space, each
//! process instead packs the boards at distance `d` of its table, the processes gather all
//! of them, and every look is answered locally: the level then runs without questions.

use rayon::prelude::*;

use super::{Processes, RankDeal};
use crate::table::{CELLS_PER_WORD, DistanceTable, RunMask, prefetch_at};

/// Ranks per word of a copy: two groups of a table.
pub const RANKS_PER_WORD: u64 = 2 * CELLS_PER_WORD;

/// Every process's boards at distance `d`, one bit per rank, in rank order.
pub struct FrontierCopy {
    /// Word `w` holds ranks `64 w ..64 w + 64`: two groups of a table in the table's own
    /// layout, the first group in the low bits of its cells and the second in the high
    /// bits, so a run loads with a shift and a mask per group. In rank order, a look needs
    /// no owner (units are whole words, see [`RankDeal::new`]).
    bits: Vec<u64>,
}

impl FrontierCopy {
    /// Bytes each process spends on a copy of `n_states` ranks over `parts` processes: its
    /// own share, the gathered shares and the copy in rank order ([`CopyMemory`], kept
    /// from the first backward level on).
    pub fn bytes(n_states: u64, parts: usize) -> u64 {
        let words = n_states.div_ceil(RANKS_PER_WORD);
        (2 * (words + parts as u64) + words.div_ceil(parts as u64)) * 8
    }

    /// Packs the boards marked `mark` in this process's table, gathers every process's
    /// (each table's groups in order, two a word) and lays them out in rank order.
    /// The copy is made in `memory`, and goes back to it with [`FrontierCopy::give_back`].
    pub fn gather(
        table: &DistanceTable,
        mark: u8,
        deal: &RankDeal,
        processes: &dyn Processes,
        pool: &rayon::ThreadPool,
        memory: &mut CopyMemory,
    ) -> FrontierCopy {
        pool.install(|| share(table, mark, &mut memory.share));
        let word_starts = processes.gather(&memory.share, &mut memory.shares);
        let mut bits = std::mem::take(&mut memory.bits);
        pool.install(|| {
            deal.in_rank_order_into(&memory.shares, &word_starts, RANKS_PER_WORD, &mut bits)
        });
        FrontierCopy { bits }
    }

    /// Returns the copy's memory, for the next level's copy.
    pub fn give_back(self, memory: &mut CopyMemory) {
        memory.bits = self.bits;
    }

    /// Asks the cache for the word holding `rank`.
    #[inline(always)]
    pub fn prefetch(&self, rank: u64) {
        prefetch_at(self.bits.as_ptr().wrapping_add((rank / RANKS_PER_WORD) as usize));
    }

    /// Prefetches the bits of the run of `2^bits` ranks starting at `first`.
    #[inline(always)]
    pub fn prefetch_run(&self, first: u64, bits: u32) {
        // One word in eight: a cache line each.
        for line in (0..1u64 << bits).step_by(512) {
            self.prefetch(first + line);
        }
    }

    /// Whether `rank` is at distance `d`.
    #[inline(always)]
    pub fn holds(&self, rank: u64) -> bool {
        // Rank `r`: group `r / 32` (low or high bits of its word), cell `r % 32`.
        let shift = 2 * (rank % 32) + (rank / 32) % 2;
        (self.bits[(rank / RANKS_PER_WORD) as usize] >> shift) & 1 == 1
    }

    /// Loads into `mask` the boards at distance `d` of the run of ranks starting at `first`
    /// (aligned to the run); returns whether there is any.
    #[inline(always)]
    pub fn load_run(&self, mask: &mut RunMask, first: u64) -> bool {
        mask.load_paired(&self.bits, first / CELLS_PER_WORD)
    }
}

/// The memory of a frontier copy, kept from one backward level to the next: this process's
/// share, every process's shares and the copy. Taken fresh each level, Spinpossible 2x5
/// under two processes spent 0.8 s of system time on its page faults.
#[derive(Default)]
pub struct CopyMemory {
    share: Vec<u64>,
    shares: Vec<u64>,
    bits: Vec<u64>,
}

/// One process's share of a copy, into `share`: the ranks of `table` marked `mark`, two
/// groups a word.
fn share(table: &DistanceTable, mark: u8, share: &mut Vec<u64>) {
    let groups = table.n_groups();
    share.clear();
    share.par_extend((0..groups.div_ceil(2)).into_par_iter().map(|w| {
        let low = table.marked(2 * w, mark).cells();
        let high = if 2 * w + 1 < groups { table.marked(2 * w + 1, mark).cells() } else { 0 };
        low | high << 1
    }));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bfs::RankDeal;
    use crate::random::SplitMix;

    /// Three processes' tables with random marks, gathered as MPI would: every rank's bit
    /// and every run's mask read from the copy match its owner's table.
    #[test]
    fn a_copy_reads_every_process_s_marks() {
        let n = 200_000u64;
        let deal = RankDeal::new(n, 3, 1 << 7);
        assert!(deal.unit().is_multiple_of(RANKS_PER_WORD));
        let mut rng = SplitMix::for_board(11, 0);
        let tables: Vec<DistanceTable> = (0..3)
            .map(|p| {
                let t = DistanceTable::in_memory(deal.len(p)).unwrap();
                for i in 0..deal.len(p) {
                    let mark = (rng.next_u64() % 4) as u8;
                    if mark != 0 {
                        t.mark_if_unseen(i, mark);
                    }
                }
                t
            })
            .collect();
        let (mut bits, mut starts, mut one) = (Vec::new(), Vec::new(), Vec::new());
        for t in &tables {
            starts.push(bits.len() as u64);
            share(t, 2, &mut one);
            bits.extend_from_slice(&one);
        }
        let copy = FrontierCopy { bits: deal.in_rank_order(&bits, &starts, RANKS_PER_WORD) };
        for r in 0..n {
            let (p, i) = deal.locate(r);
            assert_eq!(copy.holds(r), tables[p].get(i) == 2, "rank {r}");
        }
        let (mut from_copy, mut from_table) = (RunMask::new(7), RunMask::new(7));
        for first in (0..n - (1 << 7)).step_by(1 << 7) {
            let (p, i) = deal.locate(first);
            let any = copy.load_run(&mut from_copy, first);
            assert_eq!(any, from_table.load(&tables[p], i >> 7, 2));
            assert_eq!(from_copy.cells(), from_table.cells(), "run at {first}");
        }
    }
}
