//! The processes that share one search: [`Single`] (this process alone, every collective an
//! identity) or, with the cargo feature `mpi`, [`Mpi`] (the processes of an MPI job).
//!
//! The ranks are dealt to the processes in small units ([`RankDeal`]); each process keeps
//! the table of its units. The level driver ([`super::run_in`]) runs the same on all
//! of them and asks the group only to add up counts, merge the antipode samples, agree on
//! stopping and failing, and swap the neighbours that belong to another process. Every
//! method is collective: all processes call it at the same point of the search, from the
//! thread that started the search (never from worker threads).

use rayon::prelude::*;

use super::Mailbox;
use super::outbox::empty_with_room;
use crate::rank::StateRanking;
use crate::table::{CELLS_PER_WORD, DistanceTable};
use crate::{Error, Result};
use strength_reduce::StrengthReducedU64;

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
    /// Sends `by_owner[p]` (its pieces, one after another) to process `p`; what each process
    /// sent here is left in `mailbox.received`. The mailbox's memory serves again.
    fn swap(&self, by_owner: &[Vec<&[u64]>], mailbox: &mut Mailbox<u64>);
    /// [`Processes::swap`] of bytes.
    fn swap_bytes(&self, by_owner: &[Vec<&[u8]>], mailbox: &mut Mailbox<u8>);
    /// Every process's `mine`, one after another, into `all` (its memory serves again);
    /// returns where each one starts.
    fn gather(&self, mine: &[u64], all: &mut Vec<u64>) -> Vec<u64>;
}

/// What every process sent to this one, in one buffer, by sender.
pub struct Received<T> {
    /// Everything received, sender by sender.
    pub items: Vec<T>,
    /// Where each sender's items start in `items`, and the end.
    bounds: Vec<usize>,
}

impl<T> Received<T> {
    /// Received items, `counts[p]` from process `p`, one after another.
    pub fn new(items: Vec<T>, counts: impl IntoIterator<Item = usize>) -> Received<T> {
        let mut received = Received { items, bounds: Vec::new() };
        received.set_counts(counts);
        received
    }

    /// Says how many of the items came from each process, `counts[p]` from process `p`.
    pub(crate) fn set_counts(&mut self, counts: impl IntoIterator<Item = usize>) {
        self.bounds.clear();
        self.bounds.push(0);
        self.bounds.extend(counts.into_iter().scan(0, |end, c| {
            *end += c;
            Some(*end)
        }));
        assert_eq!(self.bounds.last(), Some(&self.items.len()), "the counts add up to the items");
    }

    /// Each sender's items.
    pub fn parts(&self) -> Vec<&[T]> {
        self.bounds.windows(2).map(|w| &self.items[w[0]..w[1]]).collect()
    }
}

/// A swap of one process with itself: what it sends is what it receives.
fn to_itself<T: Copy>(by_owner: &[Vec<&[T]>], mailbox: &mut Mailbox<T>) {
    let counts = mailbox.lay_out(by_owner);
    std::mem::swap(&mut mailbox.sending, &mut mailbox.received.items);
    mailbox.received.set_counts(counts);
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

/// Fails on every process: process 0 with `e` (which every process found alike), the others
/// naming process 0, so the message is printed once.
pub fn fail_from_root<T>(processes: &dyn Processes, e: Error) -> Result<T> {
    let local = if processes.index() == 0 { Err(e) } else { Ok(()) };
    match agree(processes, local) {
        Err(e) => Err(e),
        Ok(()) => Err(Error::OtherProcess { process: 0, processes: processes.count() }),
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
    fn swap(&self, by_owner: &[Vec<&[u64]>], mailbox: &mut Mailbox<u64>) {
        to_itself(by_owner, mailbox);
    }
    fn swap_bytes(&self, by_owner: &[Vec<&[u8]>], mailbox: &mut Mailbox<u8>) {
        to_itself(by_owner, mailbox);
    }
    fn gather(&self, mine: &[u64], all: &mut Vec<u64>) -> Vec<u64> {
        all.clear();
        all.extend_from_slice(mine);
        vec![0]
    }
}

/// How the ranks `0..n_states` are dealt to the processes: in units of [`RankDeal::unit`]
/// ranks, round-robin (unit `k` to process `k % parts`). Each process's table holds its units
/// one after another. Dealing small units, rather than cutting one block per process, spreads
/// every level's boards evenly: with contiguous blocks one process did 1.7 times the other's
/// work in some levels of Spinpossible 2x5, and the other waited.
#[derive(Clone, Debug)]
pub struct RankDeal {
    n_states: u64,
    unit: u64,
    parts: usize,
    /// `unit` and `parts` as divisors by multiplication: locating a rank is on the step
    /// kernels' hot path, where two hardware divisions cost more than the rest of a look.
    by_unit: UnitDivisor,
    by_parts: StrengthReducedU64,
    /// `log2` of `unit` and of `parts` when both are powers of two: then shifts do.
    shifts: Option<(u32, u32)>,
}

/// Division by the unit of a deal. While every rank fits 32 bits (tables of up to 2^32
/// entries), one multiplication does: with `c = ceil(2^64 / d)`, the quotient of a 32-bit
/// `n` by a 32-bit `d` is the high word of `c n` (Lemire, Kaser and Kurz, "Faster remainder
/// by direct computation", 2019). The strength-reduced 64-bit division takes about three
/// times the multiplications, and NRP (3,4,2) locates a rank for most moves of every board
/// under several processes.
#[derive(Clone, Copy, Debug)]
enum UnitDivisor {
    Narrow { c: u64, d: u64 },
    Wide(StrengthReducedU64),
}

impl UnitDivisor {
    /// Division by `d`, of numerators below `limit`.
    fn new(d: u64, limit: u64) -> UnitDivisor {
        if d >= 2 && limit <= 1 << 32 {
            UnitDivisor::Narrow { c: u64::MAX / d + 1, d }
        } else {
            UnitDivisor::Wide(StrengthReducedU64::new(d))
        }
    }

    /// `(n / d, n % d)`.
    #[inline(always)]
    fn div_rem(self, n: u64) -> (u64, u64) {
        match self {
            UnitDivisor::Narrow { c, d } => {
                let q = ((c as u128 * n as u128) >> 64) as u64;
                (q, n - q * d)
            }
            UnitDivisor::Wide(by) => StrengthReducedU64::div_rem(n, by),
        }
    }
}

impl PartialEq for RankDeal {
    fn eq(&self, other: &RankDeal) -> bool {
        (self.n_states, self.unit, self.parts) == (other.n_states, other.unit, other.parts)
    }
}
impl Eq for RankDeal {}

/// Units dealt to each process, about (half as many where the unit rounds up to a power of
/// two, fewer where the alignment asks for longer units): enough for every level to spread
/// evenly.
const UNITS_PER_PROCESS: u64 = 1 << 10;
/// The largest unit, in ranks: long enough that consecutive ranks stay consecutive for the
/// step kernels.
const MAX_UNIT: u64 = 1 << 17;

impl RankDeal {
    /// The deal of `n_states` ranks to `parts` processes, in units of a multiple of `align`
    /// ranks and of two groups of the table (one unit when alone).
    pub fn new(n_states: u64, parts: usize, align: u64) -> RankDeal {
        let unit = if parts <= 1 {
            n_states.max(1)
        } else {
            // Whole words of a frontier copy (two groups of a table): a copy lays units
            // out in rank order by copying words.
            let least = lcm(align, 2 * CELLS_PER_WORD);
            let aim = (n_states / (parts as u64 * UNITS_PER_PROCESS)).min(MAX_UNIT);
            if least.is_power_of_two() {
                // A power of two: locating a rank takes shifts, not divisions.
                aim.next_power_of_two().max(least)
            } else {
                aim.div_ceil(least).max(1) * least
            }
        };
        RankDeal::with_unit(n_states, parts, unit)
    }

    /// The deal of `n_states` ranks to `parts` processes in units of `unit` ranks, as a part
    /// of a table file records it.
    pub fn with_unit(n_states: u64, parts: usize, unit: u64) -> RankDeal {
        let (unit, parts) = (unit.max(1), parts.max(1));
        let (by_unit, by_parts) =
            (UnitDivisor::new(unit, n_states), StrengthReducedU64::new(parts as u64));
        let shifts = (unit.is_power_of_two() && parts.is_power_of_two())
            .then(|| (unit.trailing_zeros(), parts.trailing_zeros()));
        RankDeal { n_states, unit, parts, by_unit, by_parts, shifts }
    }

    /// The deal of a ranking: units of whole classes for a ranking of classes, of whole
    /// XOR runs or cell runs where the ranking has them (so every step finds a run inside
    /// one process, and its boards at consecutive table indices).
    pub fn of<S: StateRanking>(ranking: &S, parts: usize) -> RankDeal {
        // Alone, a process holds every rank in one unit: no alignment to ask for (asking
        // would build the runs' tables, 1.2 GB for a pyraminx's fibres, even where a search
        // goes board by board).
        if parts <= 1 {
            return RankDeal::new(ranking.n_states(), parts, 1);
        }
        let classes = ranking.class_ranking().map_or(1, |c| c.deal_unit());
        let runs = ranking.xor_block_bits().map_or(1, |bits| 1u64 << bits);
        let cells = ranking.cell_runs().map_or(1, |c| c.len);
        RankDeal::new(ranking.n_states(), parts, lcm(lcm(classes, runs), cells))
    }

    /// The process that holds a rank.
    #[inline(always)]
    pub fn owner(&self, rank: u64) -> usize {
        self.locate(rank).0
    }

    /// The process that holds a rank, and the rank's index in its table.
    #[inline(always)]
    pub fn locate(&self, rank: u64) -> (usize, u64) {
        if let Some((u, p)) = self.shifts {
            let k = rank >> u;
            let (round, owner) = (k >> p, k & ((1 << p) - 1));
            return (owner as usize, round << u | rank & ((1 << u) - 1));
        }
        let (k, at) = self.by_unit.div_rem(rank);
        let (round, owner) = StrengthReducedU64::div_rem(k, self.by_parts);
        (owner as usize, round * self.unit + at)
    }

    /// The rank at index `i` of process `p`'s table.
    #[inline(always)]
    pub fn rank(&self, p: usize, i: u64) -> u64 {
        if let Some((u, q)) = self.shifts {
            return ((i >> u << q) + p as u64) << u | i & ((1 << u) - 1);
        }
        let (round, at) = self.by_unit.div_rem(i);
        (round * self.parts as u64 + p as u64) * self.unit + at
    }

    /// Ranks process `p` holds.
    pub fn len(&self, p: usize) -> u64 {
        let units = self.n_states.div_ceil(self.unit);
        let parts = self.parts as u64;
        let p = p as u64;
        if p >= units {
            return 0;
        }
        let mine = (units - p).div_ceil(parts);
        let last_is_mine = (units - 1) % parts == p;
        let short = if last_is_mine { units * self.unit - self.n_states } else { 0 };
        mine * self.unit - short
    }

    /// The smallest rank process `p` holds (`n_states` if none).
    pub fn first(&self, p: usize) -> u64 {
        (p as u64 * self.unit).min(self.n_states)
    }

    /// Every process's items, gathered one process after another (process `p`'s from
    /// `starts[p]`, each item standing for `per_item` consecutive ranks of its table), put
    /// back in rank order. `per_item` divides the unit when there are several processes.
    pub fn in_rank_order<T: Copy + Default + Send + Sync>(
        &self,
        gathered: &[T],
        starts: &[u64],
        per_item: u64,
    ) -> Vec<T> {
        let mut ordered = Vec::new();
        self.in_rank_order_into(gathered, starts, per_item, &mut ordered);
        ordered
    }

    /// [`RankDeal::in_rank_order`] into `ordered`, whose memory serves again.
    pub fn in_rank_order_into<T: Copy + Default + Send + Sync>(
        &self,
        gathered: &[T],
        starts: &[u64],
        per_item: u64,
        ordered: &mut Vec<T>,
    ) {
        let items = self.n_states.div_ceil(per_item) as usize;
        if self.parts == 1 {
            // One unit of every rank, whatever its length.
            empty_with_room(ordered, items);
            ordered.extend_from_slice(&gathered[..items]);
            return;
        }
        assert!(self.unit.is_multiple_of(per_item), "units are whole items");
        let per_unit = (self.unit / per_item) as usize;
        // Every item is written below: memory of the right length is not cleared first.
        if ordered.len() != items {
            empty_with_room(ordered, items);
            ordered.resize(items, T::default());
        }
        ordered.par_chunks_mut(per_unit).enumerate().for_each(|(unit, to)| {
            let (p, round) = (unit % self.parts, unit / self.parts);
            let from = starts[p] as usize + round * per_unit;
            to.copy_from_slice(&gathered[from..from + to.len()]);
        });
    }

    /// Number of processes.
    pub fn parts(&self) -> usize {
        self.parts
    }

    /// Fails unless every process deals as process 0 does (same ranks, units and processes):
    /// each process routes boards by its own deal, so a mismatch would leave processes
    /// waiting for each other's messages forever.
    pub fn check_agreed(&self, processes: &dyn Processes) -> Result<()> {
        let words = [self.n_states, self.unit, self.parts as u64];
        let mine: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let root = processes.broadcast(mine.clone());
        let local = if root == mine {
            Ok(())
        } else {
            let text = |bytes: &[u8]| {
                let words: Vec<u64> = bytes
                    .chunks_exact(8)
                    .map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes")))
                    .collect();
                match words[..] {
                    [n, unit, parts] if bytes.len() == 24 => {
                        format!("{n} ranks in units of {unit} over {parts} processes")
                    }
                    _ => format!("a deal of {} bytes", bytes.len()),
                }
            };
            Err(Error::DealMismatch {
                expected: text(&root),
                found: text(&mine),
                process: processes.index(),
            })
        };
        agree(processes, local)
    }

    /// Ranks per unit.
    pub fn unit(&self) -> u64 {
        self.unit
    }

    /// The most ranks a process holds (process 0's).
    pub fn largest(&self) -> u64 {
        self.len(0)
    }
}

fn lcm(a: u64, b: u64) -> u64 {
    let (mut x, mut y) = (a, b);
    while y != 0 {
        (x, y) = (y, x % y);
    }
    a / x * b
}

/// The whole table of a search over `processes`, each holding its part of `deal`: every
/// process gathers every part (the marks only), for a small table that must be read whole
/// (the antipodes of a search by classes). Collective.
pub fn gather_table(
    table: &DistanceTable,
    deal: &RankDeal,
    processes: &dyn Processes,
) -> Result<DistanceTable> {
    let mine: Vec<u64> = (0..table.n_groups()).map(|g| table.group_cells(g)).collect();
    let mut all = Vec::new();
    let starts = processes.gather(&mine, &mut all);
    let whole = DistanceTable::in_memory(deal.n_states)?;
    for (g, cells) in deal.in_rank_order(&all, &starts, CELLS_PER_WORD).into_iter().enumerate() {
        whole.set_group_cells(g, cells);
    }
    Ok(whole)
}

#[cfg(test)]
mod tests {
    use super::{Mailbox, Processes, RankDeal, Single, UnitDivisor};

    /// Process 1 of two, whose process 0 broadcasts `root` (the other collectives as if
    /// process 0 agreed with everything).
    struct SecondOfTwo {
        root: Vec<u8>,
    }

    impl Processes for SecondOfTwo {
        fn index(&self) -> usize {
            1
        }
        fn count(&self) -> usize {
            2
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
            failed.then_some(1)
        }
        fn broadcast(&self, _: Vec<u8>) -> Vec<u8> {
            self.root.clone()
        }
        fn smallest(&self, smallest: &[u64]) -> Vec<u64> {
            smallest.to_vec()
        }
        fn swap(&self, by_owner: &[Vec<&[u64]>], mailbox: &mut Mailbox<u64>) {
            Single.swap(by_owner, mailbox)
        }
        fn swap_bytes(&self, by_owner: &[Vec<&[u8]>], mailbox: &mut Mailbox<u8>) {
            Single.swap_bytes(by_owner, mailbox)
        }
        fn gather(&self, mine: &[u64], all: &mut Vec<u64>) -> Vec<u64> {
            Single.gather(mine, all)
        }
    }

    #[test]
    fn processes_dealing_differently_fail_at_once_saying_how() {
        let deal = RankDeal::with_unit(1000, 2, 64);
        let words = |n: u64, unit: u64| -> Vec<u8> {
            [n, unit, 2].iter().flat_map(|w| w.to_le_bytes()).collect()
        };
        let agreeing = SecondOfTwo { root: words(1000, 64) };
        assert!(deal.check_agreed(&agreeing).is_ok());
        let other_unit = SecondOfTwo { root: words(1000, 128) };
        let message = deal.check_agreed(&other_unit).unwrap_err().to_string();
        assert_eq!(
            message,
            "the processes of the MPI job deal the ranks differently: expected process 0's 1000 \
             ranks in units of 128 over 2 processes, found 1000 ranks in units of 64 over 2 \
             processes on process 1 (run one build on one definition everywhere)"
        );
        let other_size = SecondOfTwo { root: words(999, 64) };
        assert!(deal.check_agreed(&other_size).is_err());
        let garbled = SecondOfTwo { root: vec![1, 2, 3] };
        let message = deal.check_agreed(&garbled).unwrap_err().to_string();
        assert!(message.contains("expected process 0's a deal of 3 bytes"), "{message}");
        assert!(RankDeal::with_unit(1000, 1, 64).check_agreed(&Single).is_ok());
    }

    #[test]
    fn the_deal_covers_the_ranks_once_in_aligned_units() {
        // The last two deal in powers of two (located by shifts).
        let cases = [
            (100u64, 3usize, 1u64),
            (100, 4, 7),
            (5, 4, 3),
            (1, 3, 1),
            (1 << 20, 2, 720),
            (1 << 20, 4, 1),
            (1000, 2, 64),
        ];
        for (n, parts, align) in cases {
            let deal = RankDeal::new(n, parts, align);
            assert!(deal.unit().is_multiple_of(align) && deal.unit().is_multiple_of(32));
            assert_eq!(deal.shifts.is_some(), align.is_power_of_two() && parts.is_power_of_two());
            let mut seen = vec![false; n as usize];
            for p in 0..parts {
                assert_eq!(deal.first(p), (p as u64 * deal.unit()).min(n));
                for i in 0..deal.len(p) {
                    let r = deal.rank(p, i);
                    assert!(r < n && !seen[r as usize], "{n} {parts} {align}: rank {r}");
                    seen[r as usize] = true;
                    assert_eq!(deal.locate(r), (p, i));
                    assert_eq!(deal.owner(r), p);
                }
            }
            assert!(seen.iter().all(|&s| s), "{n} {parts} {align}");
            assert_eq!(deal.largest(), deal.len(0));
        }
        // Either division, on numerators up to 2^32 - 1 and units up to 2^32 - 1.
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..100_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let (d, n) = ((x >> 32).max(2), x & 0xFFFF_FFFF);
            for by in [UnitDivisor::new(d, 1 << 32), UnitDivisor::new(d, u64::MAX)] {
                assert_eq!(by.div_rem(n), (n / d, n % d), "{n} / {d} by {by:?}");
            }
        }
        for (d, n) in [(2, 0xFFFF_FFFF), (0xFFFF_FFFF, 0xFFFF_FFFE), (0xFFFF_FFFF, 0xFFFF_FFFF)] {
            assert_eq!(UnitDivisor::new(d, 1 << 32).div_rem(n), (n / d, n % d));
        }
        // Many units each, so every level spreads evenly.
        let deal = RankDeal::new(120_199_680, 2, 720);
        assert!(deal.len(0) / deal.unit() >= 256, "unit {}", deal.unit());
    }
}

#[cfg(feature = "mpi")]
pub use mpi_group::Mpi;

#[cfg(feature = "mpi")]
mod mpi_group {
    use mpi::collective::SystemOperation;
    use mpi::datatype::{Partition, PartitionMut};
    use mpi::topology::SimpleCommunicator;
    use mpi::traits::*;

    use super::{Mailbox, Processes};
    use crate::bfs::SAMPLE;
    use crate::bfs::outbox::empty_with_room;

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
        fn swap(&self, by_owner: &[Vec<&[u64]>], mailbox: &mut Mailbox<u64>) {
            swap_by_owner(&self.world, by_owner, mailbox);
        }
        fn swap_bytes(&self, by_owner: &[Vec<&[u8]>], mailbox: &mut Mailbox<u8>) {
            swap_by_owner(&self.world, by_owner, mailbox);
        }
        fn gather(&self, mine: &[u64], all: &mut Vec<u64>) -> Vec<u64> {
            let mut counts = vec![0i32; self.count()];
            self.world.all_gather_into(&count_of(mine.len()), &mut counts[..]);
            let displs = offsets(&counts);
            let total: usize = counts.iter().map(|&c| c as usize).sum();
            // A send buffer at a real address: an empty Vec's can read as MPI_IN_PLACE.
            let spare = [0u64];
            let mine = if mine.is_empty() { &spare[..0] } else { mine };
            empty_with_room(all, total + 1);
            all.resize(total + 1, 0);
            {
                let mut recv = PartitionMut::new(&mut all[..], &counts[..], &displs[..]);
                self.world.all_gather_varcount_into(mine, &mut recv);
            }
            all.truncate(total);
            displs.iter().map(|&d| d as u64).collect()
        }
    }

    /// Sends `by_owner[p]` to process `p`; what each process sent here is left in
    /// `mailbox.received`.
    fn swap_by_owner<T: Equivalence + Copy + Default>(
        world: &SimpleCommunicator,
        by_owner: &[Vec<&[T]>],
        mailbox: &mut Mailbox<T>,
    ) {
        let parts = world.size() as usize;
        let lens = mailbox.lay_out(by_owner);
        let counts: Vec<i32> =
            (0..parts).map(|p| count_of(lens.get(p).copied().unwrap_or(0))).collect();
        let mut incoming = vec![0i32; parts];
        world.all_to_all_into(&counts[..], &mut incoming[..]);
        // One spare element each: an empty Vec of bytes points at address 1, which Open MPI
        // reads as MPI_IN_PLACE.
        let send = &mut mailbox.sending;
        send.push(T::default());
        let displs = offsets(&counts);
        let in_displs = offsets(&incoming);
        let total: usize = incoming.iter().map(|&c| c as usize).sum();
        let received = &mut mailbox.received.items;
        empty_with_room(received, (total + 1).next_power_of_two());
        received.resize(total + 1, T::default());
        {
            let send = Partition::new(&send[..], &counts[..], &displs[..]);
            let mut recv = PartitionMut::new(&mut received[..], &incoming[..], &in_displs[..]);
            world.all_to_all_varcount_into(&send, &mut recv);
        }
        received.truncate(total);
        mailbox.received.set_counts(incoming.iter().map(|&c| c as usize));
    }

    /// A buffer length as an MPI count (rounds keep buffers far below 2^31 items, and a
    /// frontier copy reaches it at 128 GiB per process).
    fn count_of(len: usize) -> i32 {
        i32::try_from(len).expect("a buffer for one process stays below 2^31 items")
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
