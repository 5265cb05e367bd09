//! The processes that share one search: [`Single`] (this process alone, every collective an
//! identity) or, with the cargo feature `mpi`, [`Mpi`] (the processes of an MPI job).
//!
//! The ranks are cut into one contiguous block per process ([`RankBlocks`]); each process
//! keeps the table of its block. The level driver ([`super::run_in`]) runs the same on all
//! of them and asks the group only to add up counts, merge the antipode samples, agree on
//! stopping and failing, and swap the neighbours that belong to another process. Every
//! method is collective: all processes call it at the same point of the search, from the
//! thread that started the search (never from worker threads).

use crate::rank::StateRanking;
use crate::{Error, Result};

/// A group of processes searching together (see the module docs).
pub trait Processes {
    /// This process's number, `0..count()`.
    fn index(&self) -> usize;
    /// Number of processes.
    fn count(&self) -> usize;
    /// The sum of `x` over all processes.
    fn sum(&self, x: u64) -> u64;
    /// The sums of each of four counts over all processes.
    fn sum_each(&self, x: [u64; 4]) -> [u64; 4];
    /// Whether `x` holds on every process.
    fn all(&self, x: bool) -> bool;
    /// Whether `x` holds on some process.
    fn any(&self, x: bool) -> bool;
    /// The lowest process where `failed` holds, if any.
    fn first_failed(&self, failed: bool) -> Option<usize>;
    /// Process 0's bytes, on every process (the others pass anything).
    fn broadcast(&self, bytes: Vec<u8>) -> Vec<u8>;
    /// The smallest ranks (at most [`super::SAMPLE`], sorted) among every process's `smallest`.
    fn smallest(&self, smallest: &[u64]) -> Vec<u64>;
    /// Sends `by_owner[p]` to process `p`; returns what each process sent here, by sender.
    fn swap(&self, by_owner: &[Vec<u64>]) -> Vec<Vec<u64>>;
    /// [`Processes::swap`] of bytes.
    fn swap_bytes(&self, by_owner: &[Vec<u8>]) -> Vec<Vec<u8>>;
}

/// Every process's result, agreed: `Ok` on all only if `Ok` on all. A failing process keeps
/// its own error; the others get [`Error::OtherProcess`], naming the first that failed.
pub fn agree<T>(processes: &dyn Processes, local: Result<T>) -> Result<T> {
    match (processes.first_failed(local.is_err()), local) {
        (Some(process), Ok(_)) => {
            Err(Error::OtherProcess { process, processes: processes.count() })
        }
        (_, local) => local,
    }
}

/// This process alone: every collective is an identity.
pub struct Single;

impl Processes for Single {
    fn index(&self) -> usize {
        0
    }
    fn count(&self) -> usize {
        1
    }
    fn sum(&self, x: u64) -> u64 {
        x
    }
    fn sum_each(&self, x: [u64; 4]) -> [u64; 4] {
        x
    }
    fn all(&self, x: bool) -> bool {
        x
    }
    fn any(&self, x: bool) -> bool {
        x
    }
    fn first_failed(&self, failed: bool) -> Option<usize> {
        failed.then_some(0)
    }
    fn broadcast(&self, bytes: Vec<u8>) -> Vec<u8> {
        bytes
    }
    fn smallest(&self, smallest: &[u64]) -> Vec<u64> {
        smallest.to_vec()
    }
    fn swap(&self, by_owner: &[Vec<u64>]) -> Vec<Vec<u64>> {
        by_owner.to_vec()
    }
    fn swap_bytes(&self, by_owner: &[Vec<u8>]) -> Vec<Vec<u8>> {
        by_owner.to_vec()
    }
}

/// The split of `0..n_states` into one contiguous block per process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RankBlocks {
    n_states: u64,
    block: u64,
    parts: usize,
}

impl RankBlocks {
    /// `parts` blocks of a multiple of `align` ranks each (the last one shorter, trailing
    /// ones possibly empty).
    pub fn new(n_states: u64, parts: usize, align: u64) -> RankBlocks {
        let units = n_states.div_ceil(align).max(1);
        let block = units.div_ceil(parts as u64) * align;
        RankBlocks { n_states, block, parts }
    }

    /// The blocks of a ranking: whole classes for a ranking of classes, whole XOR runs where
    /// the ranking has them (so every step finds its runs inside one process).
    pub fn of<S: StateRanking>(ranking: &S, parts: usize) -> RankBlocks {
        let classes = ranking.class_ranking().map_or(1, |c| c.rest_count());
        let runs = ranking.xor_block_bits().map_or(1, |bits| 1u64 << bits);
        RankBlocks::new(ranking.n_states(), parts, lcm(classes, runs))
    }

    /// The process that owns a rank.
    #[inline(always)]
    pub fn owner(&self, rank: u64) -> usize {
        (rank / self.block) as usize
    }

    /// The ranks of process `p`.
    pub fn range(&self, p: usize) -> std::ops::Range<u64> {
        let lo = (p as u64 * self.block).min(self.n_states);
        lo..(lo + self.block).min(self.n_states)
    }

    /// Number of processes.
    pub fn parts(&self) -> usize {
        self.parts
    }

    /// The most ranks a process holds.
    pub fn largest(&self) -> u64 {
        self.block.min(self.n_states)
    }
}

fn lcm(a: u64, b: u64) -> u64 {
    let (mut x, mut y) = (a, b);
    while y != 0 {
        (x, y) = (y, x % y);
    }
    a / x * b
}

#[cfg(feature = "mpi")]
pub use mpi_group::Mpi;

#[cfg(feature = "mpi")]
mod mpi_group {
    use mpi::collective::SystemOperation;
    use mpi::datatype::{Partition, PartitionMut};
    use mpi::topology::SimpleCommunicator;
    use mpi::traits::*;

    use super::Processes;
    use crate::bfs::SAMPLE;

    /// Merges samples of ranks into the [`SAMPLE`] smallest, sorted.
    fn merge_smallest(all: &mut Vec<u64>) {
        all.sort_unstable();
        all.dedup();
        all.truncate(SAMPLE);
    }

    /// The processes of an MPI job (see the module docs); MPI must be initialized.
    pub struct Mpi {
        world: SimpleCommunicator,
    }

    impl Mpi {
        /// All processes of the job.
        pub fn world() -> Mpi {
            Mpi { world: SimpleCommunicator::world() }
        }
    }

    impl Processes for Mpi {
        fn index(&self) -> usize {
            self.world.rank() as usize
        }
        fn count(&self) -> usize {
            self.world.size() as usize
        }
        fn sum(&self, x: u64) -> u64 {
            let mut total = 0u64;
            self.world.all_reduce_into(&x, &mut total, SystemOperation::sum());
            total
        }
        fn sum_each(&self, x: [u64; 4]) -> [u64; 4] {
            let mut total = [0u64; 4];
            self.world.all_reduce_into(&x[..], &mut total[..], SystemOperation::sum());
            total
        }
        fn all(&self, x: bool) -> bool {
            let mut r = 0u32;
            self.world.all_reduce_into(&(x as u32), &mut r, SystemOperation::min());
            r == 1
        }
        fn any(&self, x: bool) -> bool {
            let mut r = 0u32;
            self.world.all_reduce_into(&(x as u32), &mut r, SystemOperation::max());
            r == 1
        }
        fn first_failed(&self, failed: bool) -> Option<usize> {
            let mine = if failed { self.world.rank() } else { i32::MAX };
            let mut first = 0i32;
            self.world.all_reduce_into(&mine, &mut first, SystemOperation::min());
            (first != i32::MAX).then_some(first as usize)
        }
        fn broadcast(&self, mut bytes: Vec<u8>) -> Vec<u8> {
            let root = self.world.process_at_rank(0);
            let mut len = bytes.len() as u64;
            root.broadcast_into(&mut len);
            // One spare byte: Open MPI reads the address of an empty buffer as MPI_IN_PLACE.
            bytes.resize(len as usize + 1, 0);
            root.broadcast_into(&mut bytes[..]);
            bytes.truncate(len as usize);
            bytes
        }
        fn smallest(&self, smallest: &[u64]) -> Vec<u64> {
            let mut sample = [u64::MAX; SAMPLE];
            sample[..smallest.len()].copy_from_slice(smallest);
            let mut all = vec![0u64; SAMPLE * self.count()];
            self.world.all_gather_into(&sample[..], &mut all[..]);
            all.retain(|&r| r != u64::MAX);
            merge_smallest(&mut all);
            all
        }
        fn swap(&self, by_owner: &[Vec<u64>]) -> Vec<Vec<u64>> {
            swap_by_owner(&self.world, by_owner)
        }
        fn swap_bytes(&self, by_owner: &[Vec<u8>]) -> Vec<Vec<u8>> {
            swap_by_owner(&self.world, by_owner)
        }
    }

    /// Sends `by_owner[p]` to process `p`; returns what each process sent here, by sender.
    fn swap_by_owner<T: Equivalence + Copy + Default>(
        world: &SimpleCommunicator,
        by_owner: &[Vec<T>],
    ) -> Vec<Vec<T>> {
        let parts = world.size() as usize;
        let counts: Vec<i32> =
            (0..parts).map(|p| count_of(by_owner.get(p).map_or(0, |v| v.len()))).collect();
        let mut incoming = vec![0i32; parts];
        world.all_to_all_into(&counts[..], &mut incoming[..]);
        // One spare element each: an empty Vec of bytes points at address 1, which Open MPI
        // reads as MPI_IN_PLACE.
        let mut send: Vec<T> = by_owner.concat();
        send.push(T::default());
        let displs = offsets(&counts);
        let in_displs = offsets(&incoming);
        let total: usize = incoming.iter().map(|&c| c as usize).sum();
        let mut received = vec![T::default(); total + 1];
        {
            let send = Partition::new(&send[..], &counts[..], &displs[..]);
            let mut recv = PartitionMut::new(&mut received[..], &incoming[..], &in_displs[..]);
            world.all_to_all_varcount_into(&send, &mut recv);
        }
        let mut rest = &received[..];
        incoming
            .iter()
            .map(|&c| {
                let (part, tail) = rest.split_at(c as usize);
                rest = tail;
                part.to_vec()
            })
            .collect()
    }

    /// A buffer length as an MPI count (rounds keep buffers far below 2^31 items).
    fn count_of(len: usize) -> i32 {
        i32::try_from(len).expect("a round's buffer for one process stays below 2^31 items")
    }

    /// The start of each part, from the parts' lengths.
    fn offsets(counts: &[i32]) -> Vec<i32> {
        counts
            .iter()
            .scan(0i32, |acc, &c| {
                let at = *acc;
                *acc += c;
                Some(at)
            })
            .collect()
    }
}
