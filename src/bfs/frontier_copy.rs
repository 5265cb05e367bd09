//! A copy of the whole frontier on every process, for backward steps under several
//! processes.
//!
//! A backward step looks at the neighbours of unseen boards, and most of them belong to other
//! processes. Asking their owners costs a question and an answer for each, several times the
//! work of the look itself. When the frontier fits one bit per rank of the whole space, each
//! process instead packs the boards at distance `d` of its table, the processes gather all
//! of them, and every look is answered locally: the level then runs without questions.

use rayon::prelude::*;

use super::Processes;
use crate::table::{DistanceTable, RunMask, prefetch_at};

/// Every process's boards at distance `d`, one bit per rank.
pub struct FrontierCopy {
    /// The processes' bits one after another, each from a word boundary. A word holds two
    /// groups of a table (64 ranks) in the table's own layout, the first group in the low
    /// bits of its cells and the second in the high bits, so a run loads with a shift and a
    /// mask per group.
    bits: Vec<u64>,
    /// Where each process's bits start in `bits`.
    starts: Vec<u64>,
}

impl FrontierCopy {
    /// Bytes of a copy of `n_states` ranks over `parts` processes.
    pub fn bytes(n_states: u64, parts: usize) -> u64 {
        (n_states.div_ceil(64) + parts as u64) * 8
    }

    /// Packs the boards marked `mark` in this process's table and gathers every process's
    /// (each table's groups in order, two a word).
    pub fn gather(
        table: &DistanceTable,
        mark: u8,
        processes: &dyn Processes,
        pool: &rayon::ThreadPool,
    ) -> FrontierCopy {
        let mine = pool.install(|| share(table, mark));
        let (bits, word_starts) = processes.gather(mine);
        FrontierCopy::of_shares(bits, &word_starts)
    }

    /// The copy of the gathered `bits`, process `p`'s share from word `word_starts[p]`.
    fn of_shares(bits: Vec<u64>, word_starts: &[u64]) -> FrontierCopy {
        FrontierCopy { bits, starts: word_starts.iter().map(|&w| w * 64).collect() }
    }

    /// The position of index `i` of process `owner`'s table.
    #[inline(always)]
    fn bit_of(&self, owner: usize, i: u64) -> u64 {
        self.starts[owner] + i
    }

    /// Asks the cache for the word holding bit `bit`.
    #[inline(always)]
    fn prefetch(&self, bit: u64) {
        prefetch_at(self.bits.as_ptr().wrapping_add((bit / 64) as usize));
    }

    /// A token for [`FrontierCopy::holds_token`] of index `i` of process `owner`'s table,
    /// with the word it reads prefetched.
    #[inline(always)]
    pub fn token(&self, owner: usize, i: u64) -> u64 {
        let bit = self.bit_of(owner, i);
        self.prefetch(bit);
        bit
    }

    /// Prefetches the bits of the run of `2^bits` indices of process `owner`'s table
    /// starting at `first`.
    #[inline(always)]
    pub fn prefetch_run(&self, owner: usize, first: u64, bits: u32) {
        let start = self.bit_of(owner, first);
        // One word in eight: a cache line each.
        for line in (0..1u64 << bits).step_by(512) {
            self.prefetch(start + line);
        }
    }

    /// Whether the rank of a [`FrontierCopy::token`] is at distance `d`.
    #[inline(always)]
    pub fn holds_token(&self, token: u64) -> bool {
        // Index `i` of a share: group `i / 32` (low or high bits), cell `i % 32`.
        let shift = 2 * (token % 32) + (token / 32) % 2;
        (self.bits[(token / 64) as usize] >> shift) & 1 == 1
    }

    /// Whether index `i` of process `owner`'s table is at distance `d`.
    #[inline(always)]
    pub fn holds(&self, owner: usize, i: u64) -> bool {
        self.holds_token(self.bit_of(owner, i))
    }

    /// Loads into `mask` the boards at distance `d` of the run of indices of process
    /// `owner`'s table starting at `first` (aligned to the run); returns whether there is
    /// any.
    #[inline(always)]
    pub fn load_run(&self, mask: &mut RunMask, owner: usize, first: u64) -> bool {
        mask.load_paired(&self.bits, self.bit_of(owner, first) / 32)
    }
}

/// One process's share of a copy: the ranks of `table` marked `mark`, two groups a word.
fn share(table: &DistanceTable, mark: u8) -> Vec<u64> {
    let groups = table.n_groups();
    (0..groups.div_ceil(2))
        .into_par_iter()
        .map(|w| {
            let low = table.marked(2 * w, mark).cells();
            let high = if 2 * w + 1 < groups { table.marked(2 * w + 1, mark).cells() } else { 0 };
            low | high << 1
        })
        .collect()
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
        let mut bits = Vec::new();
        let mut starts = Vec::new();
        for t in &tables {
            starts.push(bits.len() as u64);
            bits.extend(share(t, 2));
        }
        let copy = FrontierCopy::of_shares(bits, &starts);
        for r in 0..n {
            let (p, i) = deal.locate(r);
            assert_eq!(copy.holds(p, i), tables[p].get(i) == 2, "rank {r}");
            assert_eq!(copy.holds_token(copy.token(p, i)), copy.holds(p, i));
        }
        let (mut from_copy, mut from_table) = (RunMask::new(7), RunMask::new(7));
        for first in (0..n - (1 << 7)).step_by(1 << 7) {
            let (p, i) = deal.locate(first);
            let any = copy.load_run(&mut from_copy, p, i);
            assert_eq!(any, from_table.load(&tables[p], i >> 7, 2));
            assert_eq!(from_copy.cells(), from_table.cells(), "run at {first}");
        }
    }
}
