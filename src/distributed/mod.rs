//! One search across the processes of an MPI job (`mpirun -np P twirl bfs ...`).
//!
//! The ranks are cut into `P` contiguous blocks ([`RankBlocks`]); process `p` keeps the table
//! of block `p` in memory. A level is a forward step in rounds: every process expands the
//! boards of the current level in a slice of its table, marks the neighbours it owns at once
//! and buffers the others by owner; then all processes swap their buffers (`MPI_Alltoallv`)
//! and mark what they received. A round covers at most [`ROUND_GROUPS`] groups of each
//! table, so the buffers stay bounded whatever the level's size. The level's counts, the
//! excess of symmetric classes and the antipode samples are then reduced over all processes,
//! so every process holds the same [`Outcome`] as the local engine would.
//!
//! With a ranking of classes, blocks hold whole classes: the moves that keep the key cells
//! (a class's entries lie together) stay inside a process, and so do the twins of a class
//! that a symmetric representative repeats.
//!
//! Once the frontier outgrows the boards still unseen, a level is a backward step instead:
//! each process looks at its unseen boards, checks their neighbours it owns at once and asks
//! the owners about the others (one rank out, one byte back per neighbour). Tables stay in
//! memory, or each in its own table file with the job's record beside them ([`job`]).

pub mod job;

use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use mpi::collective::SystemOperation;
use mpi::datatype::{Partition, PartitionMut};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use rayon::prelude::*;

use crate::bfs::{Direction, Level, Outcome, SAMPLE, level_boards, should_go_backward};
use crate::rank::{Ranking, StateRanking, StateSpace};
use crate::table::{DistanceTable, mark_of};
use crate::{Error, Result};

/// Table groups (32 ranks each) a process expands per round: 2^15 groups, about a million
/// ranks, whose neighbours (at most 12 per board of the level) make at most 100 MB of buffers.
pub const ROUND_GROUPS: usize = 1 << 15;

/// Groups per parallel task inside a round.
const TASK_GROUPS: usize = 1 << 8;

/// The MPI environment, when this process was started by `mpirun` (or another launcher
/// that sets the Open MPI or PMI variables); `None` otherwise, so a plain run never touches
/// MPI. Keep it alive until the end of `main`: dropping it finalizes MPI.
pub fn init_if_launched() -> Option<mpi::environment::Universe> {
    let launched = ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"]
        .iter()
        .any(|v| std::env::var_os(v).is_some());
    if !launched {
        return None;
    }
    // Only the main thread calls MPI; the search's worker threads never do.
    mpi::initialize_with_threading(mpi::Threading::Funneled).map(|(universe, _)| universe)
}

/// The communicator of all processes, when MPI runs with more than one.
pub fn world_of_many() -> Option<SimpleCommunicator> {
    if !mpi::environment::is_initialized() {
        return None;
    }
    let world = SimpleCommunicator::world();
    (world.size() > 1).then_some(world)
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

    /// The blocks of a state space: whole classes for a ranking of classes.
    pub fn of(space: &StateSpace, parts: usize) -> RankBlocks {
        let align = match &space.ranking {
            Ranking::Classes(c) => c.rest_count(),
            _ => 1,
        };
        RankBlocks::new(space.n_states(), parts, align)
    }

    /// The process that owns a rank.
    #[inline(always)]
    pub fn owner(&self, rank: u64) -> usize {
        (rank / self.block) as usize
    }

    /// The ranks of process `p`.
    pub fn range(&self, p: usize) -> Range<u64> {
        let lo = (p as u64 * self.block).min(self.n_states);
        lo..(lo + self.block).min(self.n_states)
    }

    /// Number of processes.
    pub fn parts(&self) -> usize {
        self.parts
    }
}

/// What one level sent between processes, summed over all of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Traffic {
    /// How the level was expanded.
    pub direction: Direction,
    /// Neighbour ranks sent to another process: to be marked (forward steps) or asked
    /// about (backward steps).
    pub ranks_sent: u64,
    /// Bytes sent: eight per rank, and one back per question.
    pub bytes_sent: u64,
    /// Exchange rounds.
    pub rounds: u64,
}

/// Called on every process after each level (distance, boards, seconds, traffic).
pub type LevelDone<'a> = &'a dyn Fn(u32, u64, f64, Traffic);

/// Where a search continues: the finished levels, and the boards the unfinished one had
/// already marked on all processes together (see [`job`]).
pub struct Resume {
    /// The finished levels.
    pub outcome: Outcome,
    /// Boards of the next level marked before the stop, over all processes.
    pub partial: u64,
}

/// The durable record of a search in table files (see [`job::PartJournal`]). Every method is
/// collective: all processes call it at the same point, and it fails on all of them if it
/// fails on one.
pub trait Journal {
    /// Makes the finished levels of `outcome` durable.
    fn level_done(&self, table: &DistanceTable, outcome: &Outcome) -> Result<()>;
    /// Makes the marks so far durable and records the level under way.
    fn under_way(&self, table: &DistanceTable) -> Result<()>;
    /// Whether a checkpoint inside the level is due (process 0 decides).
    fn due(&self) -> bool;
}

/// How a search across processes runs: the communicator, the worker threads, the stop flag,
/// the report of each level, the journal of a search in files, and (tests only) a pause.
pub struct Run<'a> {
    /// All processes of the job.
    pub world: &'a SimpleCommunicator,
    /// Worker threads per process.
    pub threads: usize,
    /// Set by Ctrl-C or SIGTERM on any process.
    pub stop: &'a AtomicBool,
    /// Called after each level.
    pub level_done: LevelDone<'a>,
    /// The record of a search in table files; `None` in memory.
    pub journal: Option<&'a dyn Journal>,
    /// Tests only: in the level after this distance, wait after the first round (up to a
    /// minute, until stopped or killed), so a test can stop the job mid-level.
    pub pause_after_level: Option<u32>,
}

/// Searches `space` from the solved board's rank `start` across the processes of
/// `run.world`, this process keeping its block of ranks in `table` (see [`RankBlocks`]),
/// from the beginning or from `resume`. Every process returns the same outcome and the
/// traffic of each level searched now. When `run.stop` is set on any process (Ctrl-C,
/// SIGTERM), all of them stop after the current round, with an outcome that says
/// `complete: false`.
pub fn search(
    space: &StateSpace,
    start: u64,
    table: &DistanceTable,
    resume: Option<Resume>,
    run: &Run<'_>,
) -> Result<(Outcome, Vec<Traffic>)> {
    if space.n_reachable() != space.n_states() {
        return Err(Error::Unsupported(format!(
            "the moves generate {} of the {} boards the table ranks: such a search runs in one \
             process only",
            space.n_reachable(),
            space.n_states()
        )));
    }
    match &space.ranking {
        Ranking::Layout(l) => search_in(l, space, start, table, resume, run),
        Ranking::Enumerated(e) => search_in(e, space, start, table, resume, run),
        Ranking::Multiset(m) => search_in(m, space, start, table, resume, run),
        Ranking::Classes(c) => search_in(c, space, start, table, resume, run),
    }
}

/// What the processes agree on after each round: stop, or write a checkpoint first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AfterRound {
    Go,
    Checkpoint,
    Stop,
}

/// Whether any process was asked to stop, or process 0 finds a checkpoint due (a
/// collective: every process calls it).
fn after_round(world: &SimpleCommunicator, stop: &AtomicBool, due: bool) -> AfterRound {
    let mine = stop.load(Ordering::Relaxed) as u32 | ((due && world.rank() == 0) as u32) << 1;
    let mut any = 0u32;
    world.all_reduce_into(&mine, &mut any, SystemOperation::bitwise_or());
    match any {
        0 => AfterRound::Go,
        2 => AfterRound::Checkpoint,
        _ => AfterRound::Stop,
    }
}

/// Every process's result, agreed: `Ok` on all only if `Ok` on all. A failing process keeps
/// its own error; the others get [`Error::OtherProcess`], naming the first that failed.
pub fn agree<T>(world: &SimpleCommunicator, local: Result<T>) -> Result<T> {
    let mine = if local.is_err() { world.rank() } else { i32::MAX };
    let mut first = 0i32;
    world.all_reduce_into(&mine, &mut first, SystemOperation::min());
    match local {
        Ok(_) if first != i32::MAX => {
            Err(Error::OtherProcess { process: first as usize, processes: world.size() as usize })
        }
        other => other,
    }
}

/// The first level: the solved board, and the twins of its class.
fn first_level<S: StateRanking>(
    ranking: &S,
    start: u64,
    table: &DistanceTable,
    mine: &Range<u64>,
    world: &SimpleCommunicator,
    pool: &rayon::ThreadPool,
) -> Outcome {
    let t0 = Instant::now();
    let mut level = Level::default();
    if mine.contains(&start) {
        table.mark_if_unseen(start - mine.start, mark_of(0));
        level.note(start);
    }
    let classes = ranking.class_ranking();
    let mut excess = 0;
    if let Some(c) = classes {
        let (twins, by_mark) =
            pool.install(|| c.complete_level_in(table, mine.clone(), mark_of(0), true));
        level = level.merge(twins);
        excess = by_mark;
    }
    let (found, excess, antipodes) = reduce_level(world, level, excess);
    let mut out = Outcome {
        histogram: vec![found],
        level_seconds: vec![t0.elapsed().as_secs_f64()],
        directions: Vec::new(),
        antipodes,
        unique_histogram: None,
        complete: false,
        boards: None,
    };
    if let Some(c) = classes {
        out.boards = Some(vec![level_boards(c, &out.histogram, &[], excess)]);
    }
    out
}

/// The level-synchronous search, monomorphic in the ranking.
fn search_in<S: StateRanking>(
    ranking: &S,
    space: &StateSpace,
    start: u64,
    table: &DistanceTable,
    resume: Option<Resume>,
    run: &Run<'_>,
) -> Result<(Outcome, Vec<Traffic>)> {
    let world = run.world;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(run.threads)
        .build()
        .map_err(|e| Error::ThreadPool(e.to_string()))?;
    let blocks = RankBlocks::of(space, world.size() as usize);
    let me = world.rank() as usize;
    let mine = blocks.range(me);
    let (mut out, mut partial) = match resume {
        Some(r) => (r.outcome, r.partial),
        None => {
            let out = first_level(ranking, start, table, &mine, world, &pool);
            if let Some(journal) = run.journal {
                journal.level_done(table, &out)?;
            }
            (out, 0)
        }
    };
    out.complete = false;
    let classes = ranking.class_ranking();
    let mut traffic = Vec::new();
    let step = Exchange { ranking, blocks: &blocks, mine, table, me, pool: &pool };
    let mut direction = out.directions.last().copied().unwrap_or(Direction::Forward);
    loop {
        let d = out.histogram.len() as u32 - 1;
        if out.states() == ranking.n_reachable() {
            break;
        }
        let t = Instant::now();
        // Board by board, as the local engine without runs: backward once the frontier
        // times 2 exceeds the unseen boards.
        let unseen = ranking.n_reachable() - out.states() - partial;
        if should_go_backward(out.histogram[d as usize], unseen, 2) {
            direction = Direction::Backward;
        }
        let (cur, next) = (mark_of(d), mark_of(d + 1));
        let pause = run.pause_after_level == Some(d);
        let expanded = match direction {
            Direction::Forward => step.forward(run, cur, next, pause),
            Direction::Backward => step.backward(run, cur, next, pause),
        };
        let Some((mut level, local_traffic)) = expanded? else {
            return Ok((out, traffic));
        };
        let mut excess = 0;
        if let Some(c) = classes {
            let forward = direction == Direction::Forward;
            let (twins, by_mark) =
                pool.install(|| c.complete_level_in(table, step.mine.clone(), next, forward));
            level = level.merge(twins);
            excess = by_mark;
        }
        let (found, excess, antipodes) = reduce_level(world, level, excess);
        let found = found + std::mem::take(&mut partial);
        let level_traffic = Traffic {
            ranks_sent: sum_all(world, local_traffic.ranks_sent),
            bytes_sent: sum_all(world, local_traffic.bytes_sent),
            ..local_traffic
        };
        if found == 0 {
            break;
        }
        let secs = t.elapsed().as_secs_f64();
        out.histogram.push(found);
        out.level_seconds.push(secs);
        out.directions.push(direction);
        out.antipodes = antipodes;
        if let (Some(c), Some(boards)) = (classes, &mut out.boards) {
            boards.push(level_boards(c, &out.histogram, boards, excess));
        }
        if let Some(journal) = run.journal {
            journal.level_done(table, &out)?;
        }
        traffic.push(level_traffic);
        let boards = *out.board_histogram().last().expect("a level");
        (run.level_done)(d + 1, boards, secs, level_traffic);
    }
    out.complete = true;
    Ok((out, traffic))
}

/// The sum of a count over all processes.
fn sum_all(world: &SimpleCommunicator, x: u64) -> u64 {
    let mut total = 0u64;
    world.all_reduce_into(&x, &mut total, SystemOperation::sum());
    total
}

/// The level's count, the classes' excess (summed) and the smallest ranks found (merged),
/// the same on every process.
fn reduce_level(world: &SimpleCommunicator, level: Level, excess: u64) -> (u64, u64, Vec<u64>) {
    let (found, smallest) = level.into_parts();
    let mut sample = [u64::MAX; SAMPLE];
    sample[..smallest.len()].copy_from_slice(&smallest);
    let mut all = vec![0u64; SAMPLE * world.size() as usize];
    world.all_gather_into(&sample[..], &mut all[..]);
    all.sort_unstable();
    all.retain(|&r| r != u64::MAX);
    all.truncate(SAMPLE);
    (sum_all(world, found), sum_all(world, excess), all)
}

/// What a forward step across processes works with.
struct Exchange<'a, S> {
    ranking: &'a S,
    blocks: &'a RankBlocks,
    /// This process's ranks; its table holds rank `r` at `r - mine.start`.
    mine: Range<u64>,
    table: &'a DistanceTable,
    /// This process's number.
    me: usize,
    pool: &'a rayon::ThreadPool,
}

/// The questions of a backward step: per owner, the neighbours asked about and the unseen
/// board that asks each; and the boards found without asking.
struct Asks {
    queries: Vec<Vec<u64>>,
    askers: Vec<Vec<u64>>,
    found: Level,
}

/// Neighbour ranks bound for each process, and the boards found locally.
struct Outgoing {
    by_owner: Vec<Vec<u64>>,
    found: Level,
}

impl<S: StateRanking> Exchange<'_, S> {
    /// Rounds per level: the same on every process (the largest block decides).
    fn rounds(&self) -> u64 {
        let largest = self.blocks.range(0);
        let groups = (largest.end - largest.start).max(1).div_ceil(32) as usize;
        groups.div_ceil(ROUND_GROUPS) as u64
    }

    /// Runs `round` on each slice of at most [`ROUND_GROUPS`] groups of this process's
    /// table (every process the same number of times, since rounds are collective), with
    /// the stop and checkpoint check after each. `round` returns its finds and the ranks it
    /// sent away. `Ok(None)` when a process was asked to stop.
    fn in_rounds(
        &self,
        run: &Run<'_>,
        direction: Direction,
        pause: bool,
        mut round: impl FnMut(Range<usize>) -> (Level, u64),
    ) -> Result<Option<(Level, Traffic)>> {
        let mut level = Level::default();
        let mut sent = 0u64;
        let n_groups = if self.mine.is_empty() { 0 } else { self.table.n_groups() };
        let rounds = self.rounds();
        for r in 0..rounds as usize {
            let first = (r * ROUND_GROUPS).min(n_groups);
            let (found, out) = round(first..(first + ROUND_GROUPS).min(n_groups));
            level = level.merge(found);
            sent += out;
            if pause && r == 0 {
                pause_until_stopped(run.stop);
            }
            let due = run.journal.is_some_and(|j| j.due());
            match after_round(run.world, run.stop, due) {
                AfterRound::Go => {}
                AfterRound::Checkpoint => {
                    if let Some(journal) = run.journal {
                        journal.under_way(self.table)?;
                    }
                }
                AfterRound::Stop => return Ok(None),
            }
        }
        // A forward rank is eight bytes; a question is a rank out and a byte back.
        let per_rank = if direction == Direction::Forward { 8 } else { 9 };
        let traffic = Traffic { direction, ranks_sent: sent, bytes_sent: sent * per_rank, rounds };
        Ok(Some((level, traffic)))
    }

    /// One forward step: every board marked `cur` sends its neighbours to `next`. `None`
    /// when a process was asked to stop.
    fn forward(
        &self,
        run: &Run<'_>,
        cur: u8,
        next: u8,
        pause: bool,
    ) -> Result<Option<(Level, Traffic)>> {
        let world = run.world;
        self.in_rounds(run, Direction::Forward, pause, |groups| {
            let out = self.pool.install(|| self.expand(groups, cur, next));
            let sent = out.by_owner.iter().map(|v| v.len() as u64).sum::<u64>();
            let received = swap(world, out.by_owner);
            let marked = self.pool.install(|| {
                received
                    .par_chunks(1 << 12)
                    .map(|chunk| {
                        let mut found = Level::default();
                        for &r in chunk {
                            if self.table.mark_if_unseen(r - self.mine.start, next) {
                                found.note(r);
                            }
                        }
                        found
                    })
                    .reduce(Level::default, Level::merge)
            });
            (out.found.merge(marked), sent)
        })
    }

    /// One backward step: every unseen board with a neighbour marked `cur` joins `next`.
    /// `None` when a process was asked to stop.
    fn backward(
        &self,
        run: &Run<'_>,
        cur: u8,
        next: u8,
        pause: bool,
    ) -> Result<Option<(Level, Traffic)>> {
        let world = run.world;
        self.in_rounds(run, Direction::Backward, pause, |groups| {
            let asks = self.pool.install(|| self.ask(groups, cur, next));
            let sent = asks.queries.iter().map(|q| q.len() as u64).sum::<u64>();
            let received = swap_by_owner(world, &asks.queries);
            // Answers in the order asked: 1 where the neighbour is at the current distance.
            let answers: Vec<Vec<u8>> = self.pool.install(|| {
                received
                    .par_iter()
                    .map(|qs| {
                        qs.iter()
                            .map(|&r| (self.table.get(r - self.mine.start) == cur) as u8)
                            .collect()
                    })
                    .collect()
            });
            let replies = swap_by_owner(world, &answers);
            let mut found = asks.found;
            for (askers, replies) in asks.askers.iter().zip(&replies) {
                for (&u, &yes) in askers.iter().zip(replies) {
                    if yes == 1 && self.table.mark_if_unseen(u - self.mine.start, next) {
                        found.note(u);
                    }
                }
            }
            (found, sent)
        })
    }

    /// The first half of a backward step over `groups`: unseen boards with a neighbour of
    /// their own process at `cur` are marked `next`; the others' remote neighbours become
    /// questions to their owners.
    fn ask(&self, groups: Range<usize>, cur: u8, next: u8) -> Asks {
        let parts = self.blocks.parts();
        let empty = || Asks {
            queries: vec![Vec::new(); parts],
            askers: vec![Vec::new(); parts],
            found: Level::default(),
        };
        tasks(groups)
            .into_par_iter()
            .map(|task| {
                let mut out = empty();
                let mut remote: Vec<(usize, u64)> = Vec::with_capacity(self.ranking.n_moves());
                for group in task {
                    for i in self.table.unseen(group) {
                        let u = i + self.mine.start;
                        let s = self.ranking.unrank(u);
                        remote.clear();
                        let mut near = false;
                        for m in 0..self.ranking.n_moves() {
                            let r = self.ranking.rank(&self.ranking.solve_step(&s, m));
                            let owner = self.blocks.owner(r);
                            if owner != self.me {
                                remote.push((owner, r));
                            } else if self.table.get(r - self.mine.start) == cur {
                                near = true;
                                break;
                            }
                        }
                        if near {
                            if self.table.mark_if_unseen(i, next) {
                                out.found.note(u);
                            }
                            continue;
                        }
                        for &(owner, r) in &remote {
                            out.queries[owner].push(r);
                            out.askers[owner].push(u);
                        }
                    }
                }
                out
            })
            .reduce(empty, |mut a, b| {
                for (x, y) in a.queries.iter_mut().zip(b.queries) {
                    x.extend(y);
                }
                for (x, y) in a.askers.iter_mut().zip(b.askers) {
                    x.extend(y);
                }
                a.found = a.found.merge(b.found);
                a
            })
    }

    /// Expands the boards marked `cur` in `groups` of this process's table.
    fn expand(&self, groups: Range<usize>, cur: u8, next: u8) -> Outgoing {
        let (parts, me) = (self.blocks.parts(), self.me);
        let empty = || Outgoing { by_owner: vec![Vec::new(); parts], found: Level::default() };
        tasks(groups)
            .into_par_iter()
            .map(|task| {
                let mut out = empty();
                for group in task {
                    for i in self.table.marked(group, cur) {
                        let s = self.ranking.unrank(i + self.mine.start);
                        for m in 0..self.ranking.n_moves() {
                            let r = self.ranking.rank(&self.ranking.scramble_step(&s, m));
                            let owner = self.blocks.owner(r);
                            if owner != me {
                                out.by_owner[owner].push(r);
                            } else if self.table.mark_if_unseen(r - self.mine.start, next) {
                                out.found.note(r);
                            }
                        }
                    }
                }
                out
            })
            .reduce(empty, |mut a, b| {
                for (x, y) in a.by_owner.iter_mut().zip(b.by_owner) {
                    x.extend(y);
                }
                a.found = a.found.merge(b.found);
                a
            })
    }
}

/// Sends each process the ranks bound for it and returns those sent here.
fn swap(world: &SimpleCommunicator, by_owner: Vec<Vec<u64>>) -> Vec<u64> {
    swap_by_owner(world, &by_owner).concat()
}

/// Sends `by_owner[p]` to process `p`; returns what each process sent here, by sender.
fn swap_by_owner<T: Equivalence + Copy + Default>(
    world: &SimpleCommunicator,
    by_owner: &[Vec<T>],
) -> Vec<Vec<T>> {
    let parts = by_owner.len();
    let counts: Vec<i32> = by_owner.iter().map(|v| count_of(v.len())).collect();
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

/// Tests only: waits until stopped, or a minute.
fn pause_until_stopped(stop: &AtomicBool) {
    let t0 = Instant::now();
    while !stop.load(Ordering::Relaxed) && t0.elapsed() < std::time::Duration::from_secs(60) {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// `groups` cut into parallel tasks of [`TASK_GROUPS`].
fn tasks(groups: Range<usize>) -> Vec<Range<usize>> {
    groups.clone().step_by(TASK_GROUPS).map(|g| g..(g + TASK_GROUPS).min(groups.end)).collect()
}

/// A buffer length as an MPI count (rounds keep buffers far below 2^31 ranks).
fn count_of(len: usize) -> i32 {
    i32::try_from(len).expect("a round's buffer for one process stays below 2^31 ranks")
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
