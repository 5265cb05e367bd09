//! Level-synchronous breadth-first search over the rank space, filling a [`DistanceTable`].
//!
//! Level `d+1` is found from level `d` in one of two directions:
//! - [`expand_frontier`] (forward): every board marked `d` applies each move's inverse and
//!   marks the unseen results. Writes land anywhere, so they are atomic ORs on table words.
//! - [`expand_unseen`] (backward): every unseen board applies each move and looks for a
//!   neighbour marked `d`. Each task writes only words it owns; no atomics needed beyond
//!   plain loads and stores.
//!
//! Early levels are small and go forward; once the frontier is large next to what is left
//! unseen the search switches backward for good. Because the backward step asks "does a
//! move take this board into level `d`", distances are moves needed to *solve* a board, which
//! is what a directed move set (clockwise turns only) needs.
//!
//! Both steps work on a contiguous range of table words, so the table is split among threads
//! without changing them; among processes, each holds its own table of the ranks dealt to it
//! ([`RankDeal`]) and the steps map table indices to ranks and back ([`Part`]).
//!
//! Long searches: a [`Journal`] hears of every finished level (to make it durable) and of
//! every finished task (to flush now and then); a stop flag ends the search between tasks. A
//! search resumes from a table holding finished levels and part of the next (the [`Outcome`]
//! recorded so far, `complete: false`): the
//! part is recounted from the marks, since a level's marks only ever grow.
//!
//! With [`Config::unique`] the search also counts shortest solutions, saturating at two: see
//! [`unique`].
//!
//! One driver serves one process and the processes of an MPI job alike ([`processes`]): each
//! keeps the table of the ranks dealt to it, expands its own boards with the same steps, and
//! sends the neighbours another process owns to it (forward) or asks their owner about them
//! (backward; or reads them from a copy of the frontier), in rounds ([`exchange`]). With one
//! process every neighbour is its own and a level is one round with nothing to send.

use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use strength_reduce::StrengthReducedU64;

mod blocks;
pub mod exchange;
mod frontier_copy;
mod kept;
mod outbox;
pub mod processes;
mod run_graph;
mod run_wise;
pub mod unique;

use crate::rank::runs::{OffsetTable, RunMove};
use crate::rank::{CellRuns, Ranking, StateRanking, StateSpace};
use crate::symmetry::EntryClasses;
use crate::table::{DistanceTable, RankSet, mark_of};

pub use exchange::Traffic;
use frontier_copy::FrontierCopy;
pub use kept::KEEP_AT_MOST;
use kept::KeptRanks;
pub use outbox::Mailbox;
use outbox::{Outbox, Outboxes};
pub use processes::{Processes, RankDeal, Single};
use run_graph::RunGraph;

/// Bytes each of `parts` processes spends on a copy of the frontier of `n_states` ranks
/// ([`Config::frontier_copy`]).
pub fn frontier_copy_bytes(n_states: u64, parts: usize) -> u64 {
    FrontierCopy::bytes(n_states, parts)
}

/// How a level was expanded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// From the frontier outwards.
    Forward,
    /// From the unseen boards back to the frontier.
    Backward,
}

/// Receives progress reports; the CLI draws a bar, tests ignore them.
pub trait Progress: Sync {
    /// A level is about to be expanded.
    fn level_started(&self, _distance: u32, _frontier: u64, _direction: Direction) {}
    /// `n` more boards were found.
    fn found(&self, _n: u64) {}
    /// A level is finished.
    fn level_done(&self, _distance: u32, _boards: u64, _seconds: f64) {}
    /// Whether to skip the remaining tasks (the search is being stopped).
    fn should_stop(&self) -> bool {
        false
    }
    /// A task finished (the journal may flush).
    fn task_done(&self) {}
    /// The work waits for another process (`what` says for what).
    fn waiting(&self, _what: &str) {}
    /// What a level sent between processes, summed over all of them (searches over more
    /// than one process).
    fn level_traffic(&self, _distance: u32, _traffic: &Traffic) {}
}

/// Ignores progress.
pub struct NoProgress;
impl Progress for NoProgress {}

/// Makes a search durable: told of every finished level and, between tasks (one process) or
/// rounds (several), given the chance to flush the table and record that work is under way.
/// `level_done` and `under_way` are collective: every process calls them at the same point,
/// and they fail on all if they fail on one.
pub trait Journal: Sync {
    /// Levels `0..=outcome.gods_number()` are finished and written to the table.
    fn level_done(
        &self,
        table: &DistanceTable,
        outcome: &Outcome,
        processes: &dyn Processes,
    ) -> crate::Result<()>;
    /// A task finished; called from worker threads while others keep writing.
    fn tick(&self, _table: &DistanceTable) {}
    /// Whether a checkpoint inside the level is due (between rounds; process 0 decides).
    fn due(&self) -> bool {
        false
    }
    /// Makes the marks so far durable and records the level under way.
    fn under_way(&self, _table: &DistanceTable, _processes: &dyn Processes) -> crate::Result<()> {
        Ok(())
    }
}

/// Keeps nothing.
pub struct NoJournal;
impl Journal for NoJournal {
    fn level_done(
        &self,
        _table: &DistanceTable,
        _outcome: &Outcome,
        _processes: &dyn Processes,
    ) -> crate::Result<()> {
        Ok(())
    }
}

/// The caller's progress, plus the stop flag and the journal's ticks.
struct Hooked<'a> {
    inner: &'a dyn Progress,
    journal: &'a dyn Journal,
    table: &'a DistanceTable,
    stop: Option<&'a AtomicBool>,
}

impl Progress for Hooked<'_> {
    fn level_started(&self, distance: u32, frontier: u64, direction: Direction) {
        self.inner.level_started(distance, frontier, direction)
    }
    fn found(&self, n: u64) {
        self.inner.found(n)
    }
    fn level_done(&self, distance: u32, boards: u64, seconds: f64) {
        self.inner.level_done(distance, boards, seconds)
    }
    fn should_stop(&self) -> bool {
        self.stop.is_some_and(|s| s.load(Ordering::Relaxed))
    }
    fn task_done(&self) {
        self.journal.tick(self.table)
    }
    fn level_traffic(&self, distance: u32, traffic: &Traffic) {
        self.inner.level_traffic(distance, traffic)
    }
}

/// Settings of a search.
#[derive(Clone, Debug)]
pub struct Config {
    /// Worker threads (0: one per core).
    pub threads: usize,
    /// Move whole runs of ranks where the ranking allows (XOR runs, cell runs); `false`
    /// searches board by board, for comparison and tests.
    pub runs: bool,
    /// Also count the boards with exactly one shortest solution (needs a table with unique
    /// bits; searches board by board).
    pub unique: bool,
    /// Set to stop the search between tasks; the outcome then says `complete: false`.
    pub stop: Option<Arc<AtomicBool>>,
    /// Expand every level in this direction instead of switching by frontier size (tests
    /// compare the two steps with it).
    pub direction: Option<Direction>,
    /// Under several processes, answer backward steps from a copy of the whole frontier on
    /// each process (one bit per rank of the space) instead of asking the owners; callers
    /// turn it off where that copy would not fit in memory.
    pub frontier_copy: bool,
    /// Work out every run's image runs once per search where they fit ([`RunGraph`]);
    /// `false` works them out each time a step walks into a run, for comparison and tests.
    pub run_graph: bool,
    /// Tests only: in the level after this distance, wait after the first exchange round
    /// (up to a minute, until stopped), so a test can stop a search over several processes
    /// with part of a level marked.
    pub pause_in_level: Option<u32>,
}

impl Config {
    /// `threads` workers (0: one per core), runs on.
    pub fn new(threads: usize) -> Config {
        Config {
            threads,
            runs: true,
            unique: false,
            stop: None,
            direction: None,
            frontier_copy: true,
            run_graph: true,
            pause_in_level: None,
        }
    }
}

/// What a search found.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// Boards at each distance.
    pub histogram: Vec<u64>,
    /// Seconds spent on each level (level 0: the start).
    pub level_seconds: Vec<f64>,
    /// Direction used for each level after the first.
    pub directions: Vec<Direction>,
    /// The smallest ranks (up to [`SAMPLE`]) at the largest distance. After a resume inside
    /// the last level, boards found before the interruption may be missing from them.
    pub antipodes: Vec<u64>,
    /// Every rank this process holds at the largest distance, when the whole distance is at
    /// most [`KEEP_AT_MOST`] entries, all found in this session (none before a resume).
    pub last_level: Option<Vec<u64>>,
    /// Boards with exactly one shortest solution at each distance (unique searches).
    pub unique_histogram: Option<Vec<u64>>,
    /// Whether the search ran to the end (false: stopped; the table holds the levels in
    /// `histogram` and part of the next).
    pub complete: bool,
    /// With a ranking of classes ([`StateRanking::class_ranking`]), where `histogram`
    /// counts table entries: the boards at each distance.
    pub boards: Option<Vec<u64>>,
}

impl Outcome {
    /// Total boards reached.
    pub fn states(&self) -> u64 {
        self.histogram.iter().sum()
    }

    /// The largest distance.
    pub fn gods_number(&self) -> u32 {
        self.histogram.len() as u32 - 1
    }

    /// Boards at each distance: `histogram`, or with a ranking of classes `boards`.
    pub fn board_histogram(&self) -> &[u64] {
        self.boards.as_deref().unwrap_or(&self.histogram)
    }
}

/// The boards at the last distance of `histogram` (entries of a ranking of classes), from
/// `excess`, by how many boards `order` per entry overcounts every entry with that
/// distance's mark (see [`EntryClasses::complete_level_in`]), and the boards of the earlier
/// distances.
pub(crate) fn level_boards(
    classes: &dyn EntryClasses,
    histogram: &[u64],
    boards: &[u64],
    excess: u64,
) -> u64 {
    let d = histogram.len() - 1;
    let earlier = classes.recorded_excess(&histogram[..d], boards)[mark_of(d as u32) as usize];
    classes.order() * histogram[d] - (excess - earlier)
}

/// Number of antipodes kept as examples.
pub const SAMPLE: usize = 10;

/// A forward step by runs fills image runs ([`run_wise::expand_frontier_by_image_runs`])
/// once the frontier holds at least this fraction of the table's entries: it reads every
/// run once per move whatever the frontier, and saves a locked write per board marked. The
/// turnstile's densest forward step (1.1 G of 6.3 G entries) takes 4.3 s against 7.4; at
/// 5% the two are 3.0 s against 2.4.
const FILL_IMAGE_RUNS_FROM: u64 = 10;

/// The inverse tables that [`FILL_IMAGE_RUNS_FROM`] needs take at most this share of the
/// table's bytes (the turnstile's 4.4 MB for a 1.5 GB table; the 235's 15 MB for 7.6 MB are
/// refused, its peak otherwise up from 32 to 47 MiB for no gain in time), or at most
/// [`INVERSES_ALWAYS`].
const INVERSES_SHARE: u64 = 8;

/// Bytes of inverse tables allowed whatever the table's size.
const INVERSES_ALWAYS: u64 = 1 << 20;

/// Every run's image runs ([`RunGraph`], one per direction a search steps in) take at most
/// this share of the table's bytes, or at most [`GRAPH_ALWAYS`]: puzzlerchallenger's 350 KB
/// a direction for a table of 180 KB, the turnstile's 3.4 MB for 397 MB. Small, as a table
/// may be given 90% of the memory available (`bfs` in memory): long runs make small graphs
/// (12 bytes per run and move), and short ones on a large table gain too little to crowd it.
const GRAPH_SHARE: u64 = 64;

/// Bytes of each [`RunGraph`] allowed whatever the table's size.
const GRAPH_ALWAYS: u64 = 4 << 20;

/// Groups of ranks per parallel task: 2^12 groups = 131072 boards.
pub(crate) const TASK_GROUPS: u64 = 1 << 12;

/// Groups of ranks per task at least, where a level has too few groups for [`TASK_GROUPS`]
/// to give each worker [`TASKS_PER_WORKER`] tasks.
const MIN_TASK_GROUPS: u64 = 64;

/// Tasks per worker a level is cut into at least, while tasks stay above [`MIN_TASK_GROUPS`].
const TASKS_PER_WORKER: u64 = 8;

/// A level whose step ranks fewer neighbours than this (its frontier or unseen entries times
/// the moves, [`RUN_WISE_SHARE`] of that for a step by runs, with its table's groups counted
/// a 32nd each) runs on one thread: waking the workers costs more (the master pyramorphix's
/// first seven levels took about 0.1 ms each on two threads, 0.02-0.05 ms on one).
const SERIAL_WORK: u64 = 2048;

/// What a neighbour a step by runs ([`run_wise`]) reaches counts for in [`SERIAL_WORK`]: a
/// few ns against 20-90 board by board (the master pyramorphix's classes). A group of the
/// table is scanned in about one: puzzlerchallenger's 22,987 groups counted an eighth each
/// woke both workers for levels 2 to 5 (13 to 1,175 entries), which took 0.60 ms so and 0.31
/// ms on one thread; its level 6 (5,320 entries) took 0.17 ms on two and 0.23 on one.
const RUN_WISE_SHARE: u64 = 4;

/// One session of a search (from its start or a resume to its end or a stop): the settings,
/// the progress, the journal and the processes that share it. ("Runs" are stretches of
/// ranks.)
#[derive(Clone, Copy)]
pub struct Session<'a> {
    /// Settings.
    pub config: &'a Config,
    /// Where progress goes (and which says when to stop).
    pub progress: &'a dyn Progress,
    /// The durable record.
    pub journal: &'a dyn Journal,
    /// The processes searching together; this one's table holds the units of ranks dealt to it.
    pub processes: &'a dyn Processes,
}

/// What the engine searches: a state space whose levels it can expand. Every
/// [`StateRanking`] is one (the engine runs monomorphic on its working states), and so is a
/// puzzle's [`StateSpace`], which picks its ranking once and hands over to it.
pub trait SearchSpace: Sync {
    /// Runs the levels of a search with the worker threads of `pool` (see [`run_journaled`]).
    fn search_levels(
        &self,
        starts: &[u64],
        table: &DistanceTable,
        session: Session<'_>,
        pool: &rayon::ThreadPool,
        resume: Option<Outcome>,
    ) -> crate::Result<Outcome>;

    /// How the ranks are dealt to `parts` processes.
    fn deal(&self, parts: usize) -> RankDeal;
}

impl<R: StateRanking> SearchSpace for R {
    fn search_levels(
        &self,
        starts: &[u64],
        table: &DistanceTable,
        session: Session<'_>,
        pool: &rayon::ThreadPool,
        resume: Option<Outcome>,
    ) -> crate::Result<Outcome> {
        search(self, starts, table, session, pool, resume)
    }

    fn deal(&self, parts: usize) -> RankDeal {
        RankDeal::of(self, parts)
    }
}

impl SearchSpace for StateSpace {
    fn search_levels(
        &self,
        starts: &[u64],
        table: &DistanceTable,
        session: Session<'_>,
        pool: &rayon::ThreadPool,
        resume: Option<Outcome>,
    ) -> crate::Result<Outcome> {
        match &self.ranking {
            Ranking::Layout(l) => search(l, starts, table, session, pool, resume),
            Ranking::Enumerated(e) => search(e, starts, table, session, pool, resume),
            Ranking::Multiset(m) => match m.coordinate_tables() {
                Some(t) => search(t, starts, table, session, pool, resume),
                None => search(m, starts, table, session, pool, resume),
            },
            Ranking::Chain(c) => search(c, starts, table, session, pool, resume),
            Ranking::Fibres(f) => search(f, starts, table, session, pool, resume),
            Ranking::Classes(c) => search(c, starts, table, session, pool, resume),
            Ranking::CoordClasses(c) => search(c, starts, table, session, pool, resume),
            Ranking::FibreClasses(c) => search(c, starts, table, session, pool, resume),
            Ranking::FlipClasses(c) => search(c, starts, table, session, pool, resume),
        }
    }

    fn deal(&self, parts: usize) -> RankDeal {
        match &self.ranking {
            Ranking::Layout(l) => RankDeal::of(l, parts),
            Ranking::Enumerated(e) => RankDeal::of(e, parts),
            // Searched by its digit tables where it has them: their runs shape the deal.
            Ranking::Multiset(m) => match m.coordinate_tables() {
                Some(t) => RankDeal::of(t, parts),
                None => RankDeal::of(m, parts),
            },
            Ranking::Chain(c) => RankDeal::of(c, parts),
            Ranking::Fibres(f) => RankDeal::of(f, parts),
            Ranking::Classes(c) => RankDeal::of(c, parts),
            Ranking::CoordClasses(c) => RankDeal::of(c, parts),
            Ranking::FibreClasses(c) => RankDeal::of(c, parts),
            Ranking::FlipClasses(c) => RankDeal::of(c, parts),
        }
    }
}

/// Searches from `start` (the solved board's rank) until no new board is found.
pub fn run<S: SearchSpace + ?Sized>(
    space: &S,
    start: u64,
    table: &DistanceTable,
    config: &Config,
    progress: &dyn Progress,
) -> crate::Result<Outcome> {
    run_journaled(space, start, table, config, progress, &NoJournal, None)
}

/// [`run`] with a journal, optionally resuming from finished levels already in `table`.
pub fn run_journaled<S: SearchSpace + ?Sized>(
    space: &S,
    start: u64,
    table: &DistanceTable,
    config: &Config,
    progress: &dyn Progress,
    journal: &dyn Journal,
    resume: Option<Outcome>,
) -> crate::Result<Outcome> {
    run_in(space, &[start], table, config, progress, journal, resume, &Single)
}

/// [`run_journaled`] as one of `processes`, from the boards of ranks `starts` (distance 0:
/// the solved board, or the goals of `bfs --goals`; repeated ranks count once): `table`
/// holds this process's units of ranks ([`SearchSpace::deal`]), `starts` are ranks of the
/// whole space, the same on every process. Every process returns the same outcome; a stop
/// on any process stops all of them.
#[allow(clippy::too_many_arguments)]
pub fn run_in<S: SearchSpace + ?Sized>(
    space: &S,
    starts: &[u64],
    table: &DistanceTable,
    config: &Config,
    progress: &dyn Progress,
    journal: &dyn Journal,
    resume: Option<Outcome>,
    processes: &dyn Processes,
) -> crate::Result<Outcome> {
    let local = if config.unique && !table.has_unique_bits() {
        Err(crate::Error::NoUniqueBits)
    } else {
        let mut pool = rayon::ThreadPoolBuilder::new().num_threads(config.threads);
        // Processes of one search may share a node's cores.
        let alone = processes.count() == 1;
        if let Some(pin) = crate::pinning::one_per_core(config.threads).filter(|_| alone) {
            pool = pool.start_handler(pin);
        }
        pool.build().map_err(|e| crate::Error::ThreadPool(e.to_string()))
    };
    let pool = processes::agree(processes, local)?;
    let hooked = Hooked { inner: progress, journal, table, stop: config.stop.as_deref() };
    if processes.count() == 1 {
        // On a worker of the pool: each level's steps start there without a hand-over, and
        // a small one runs there alone (`Step::serial`). The caller's `processes` need not
        // be shareable with the pool's threads: one process is a `Single` there.
        return pool.install(|| {
            let processes = &processes::Single;
            let session = Session { config, progress: &hooked, journal, processes };
            space.search_levels(starts, table, session, &pool, resume)
        });
    }
    let session = Session { config, progress: &hooked, journal, processes };
    space.search_levels(starts, table, session, &pool, resume)
}

/// The level driver (see the module docs), monomorphic in the ranking.
fn search<S: StateRanking>(
    space: &S,
    starts: &[u64],
    table: &DistanceTable,
    session: Session<'_>,
    pool: &rayon::ThreadPool,
    resume: Option<Outcome>,
) -> crate::Result<Outcome> {
    let Session { config, progress, journal, processes } = session;
    let refused = if config.unique && space.class_ranking().is_some() {
        Err(crate::Error::Unsupported(
            "unique solutions cannot be counted on a table of symmetry classes".into(),
        ))
    } else {
        Ok(())
    };
    processes::agree(processes, refused)?;
    let part = Part::of(space, processes);
    part.deal.check_agreed(processes)?;
    let use_runs = config.runs && !config.unique;
    let kernel = match (config.unique, space.xor_block_bits().filter(|_| use_runs)) {
        (true, _) => Kernel::Unique,
        (false, Some(bits)) => Kernel::Xor(bits),
        (false, None) => Kernel::Boards(use_runs.then(|| space.cell_runs()).flatten()),
    };
    // The runs a step walks move by move ([`run_wise`]), where it can.
    let run_wise_runs = match kernel {
        Kernel::Boards(Some(runs)) if run_wise::applies(runs, part.parts()) => Some(runs),
        _ => None,
    };
    let classes = space.class_ranking();
    let t0 = Instant::now();
    let (mut out, mut partial) = match resume {
        None => {
            let mut level = Level::default();
            // Each process marks the starts it holds; two goals of one class share an entry.
            for &start in starts {
                if let Some(i) = part.local(start)
                    && table.mark_if_unseen(i, mark_of(0))
                {
                    level.note(start);
                }
            }
            let mut excess = 0;
            if let Some(classes) = classes {
                let (twins, by_mark) =
                    pool.install(|| part.complete_classes(classes, table, mark_of(0), true, true));
                level = level.merge(twins);
                excess = by_mark;
            }
            let (found, excess) = (processes.sum(level.found), processes.sum(excess));
            progress.found(level.found);
            let mut out = Outcome {
                histogram: vec![found],
                level_seconds: vec![t0.elapsed().as_secs_f64()],
                directions: Vec::new(),
                antipodes: processes.smallest(&level.smallest),
                last_level: None,
                unique_histogram: config.unique.then(|| vec![1]),
                complete: false,
                boards: None,
            };
            out.last_level = every_rank_found(level.kept, found, processes);
            if let Some(classes) = classes {
                out.boards = Some(vec![level_boards(classes, &out.histogram, &[], excess)]);
            }
            journal.level_done(table, &out, processes)?;
            (out, 0)
        }
        Some(mut out) => {
            let partial = prepare_resume(table, &out.histogram, processes)?;
            progress.found(out.states() + partial);
            out.unique_histogram = out.unique_histogram.filter(|_| config.unique);
            out.complete = false;
            (out, partial)
        }
    };
    // A search ends when every reachable rank is found (or a distance finds none); a
    // backward step visits every unseen rank, the unreachable ones of a group smaller than
    // its invariants included, and is weighed by them.
    let (reachable, n) = (space.n_reachable(), space.n_states());
    let mut seen = out.states() + partial;
    let mut direction = match out.directions.last() {
        Some(&d) => d,
        None => Direction::Forward,
    };
    let mut buffers = exchange::Buffers::default();
    let mut inverses: Option<Option<run_wise::InverseTables>> = None;
    let mut graphs: [Option<Option<RunGraph>>; 2] = [None, None];
    loop {
        let d = out.histogram.len() as u32 - 1;
        let frontier = out.histogram[d as usize];
        if reachable == out.states() {
            break;
        }
        let unseen = n - seen;
        let factor = match kernel {
            // Under inversion a forward step sends every run's inverse as well.
            Kernel::Xor(_) if space.class_ranking().is_some_and(|c| c.inverts()) => 512,
            Kernel::Xor(_) => 128,
            Kernel::Boards(Some(_)) => 4,
            // A forward step expands every board's inverse as well: twice the work.
            Kernel::Boards(None) if space.class_ranking().is_some_and(|c| c.inverts()) => 4,
            Kernel::Boards(None) | Kernel::Unique => 2,
        };
        if should_go_backward(frontier, unseen, factor) {
            direction = Direction::Backward;
        }
        if let Some(forced) = config.direction {
            direction = forced;
        }
        progress.level_started(d + 1, frontier, direction);
        let t = Instant::now();
        let mut step = Step::new(space, table, d, progress, &part);
        let expanded = match direction {
            Direction::Forward => frontier,
            Direction::Backward => unseen,
        };
        let neighbours = expanded.saturating_mul(space.n_moves() as u64);
        let neighbours = match run_wise_runs {
            Some(_) => neighbours / RUN_WISE_SHARE,
            None => neighbours,
        };
        step.serial =
            processes.count() == 1 && neighbours + part.n_groups() as u64 / 32 < SERIAL_WORK;
        if let Some(runs) = run_wise_runs
            && direction == Direction::Forward
            && frontier.saturating_mul(FILL_IMAGE_RUNS_FROM) >= n
        {
            let most = (table.len_bytes() / INVERSES_SHARE).max(INVERSES_ALWAYS);
            let built = inverses.get_or_insert_with(|| run_wise::InverseTables::of(runs, most));
            step.by_image_runs = built.as_ref();
        }
        if let Some(runs) = run_wise_runs
            && config.run_graph
        {
            // Filling image runs reads the backward images of a forward step.
            let reads = if step.by_image_runs.is_some() { Direction::Backward } else { direction };
            let most = (table.len_bytes() / GRAPH_SHARE).max(GRAPH_ALWAYS);
            let [forward, backward] = &mut graphs;
            let slot = if reads == Direction::Forward { forward } else { backward };
            let built = slot.get_or_insert_with(|| {
                pool.install(|| RunGraph::of(space, &part, runs, reads, most))
            });
            step.run_graph = built.as_ref();
        }
        let expanded = exchange::expand_level(
            &step,
            kernel,
            direction,
            (d, unseen),
            session,
            pool,
            &mut buffers,
        )?;
        let Some((mut level, traffic)) = expanded else {
            return Ok(out);
        };
        let resumed = std::mem::take(&mut partial);
        let mut excess = 0;
        if let Some(classes) = classes {
            // A forward step marks one entry of each class it meets: mark the others.
            let forward = direction == Direction::Forward;
            let (twins, by_mark) = pool
                .install(|| part.complete_classes(classes, table, step.next, forward, step.serial));
            level.absorb(twins);
            excess = by_mark;
        }
        let found = processes.sum(level.found) + resumed;
        let excess = processes.sum(excess);
        let antipodes = processes.smallest(&level.smallest);
        if found == 0 {
            break;
        }
        out.last_level = every_rank_found(level.kept, found, processes);
        let secs = t.elapsed().as_secs_f64();
        out.histogram.push(found);
        out.level_seconds.push(secs);
        out.directions.push(direction);
        out.antipodes = antipodes;
        if let (Some(classes), Some(boards)) = (classes, &mut out.boards) {
            boards.push(level_boards(classes, &out.histogram, boards, excess));
        }
        if let Some(uh) = &mut out.unique_histogram {
            let single = processes.sum(table.count_marked_single(step.next));
            uh.push(unique::count_level(single, d + 1, uh));
            table.clear_fresh();
        }
        seen += found - resumed;
        journal.level_done(table, &out, processes)?;
        if processes.count() > 1 {
            progress.level_traffic(d + 1, &traffic);
        }
        let boards = *out.board_histogram().last().expect("a level");
        progress.level_done(d + 1, boards, secs);
    }
    out.complete = true;
    Ok(out)
}

/// This process's ranks of a level that found `found` ranks (over all processes, with those
/// found before a resume), sorted, if every process kept them all and they are all of the
/// level. Collective.
fn every_rank_found(kept: KeptRanks, found: u64, processes: &dyn Processes) -> Option<Vec<u64>> {
    let [n, overflowed, _, _] =
        processes.sum_each([kept.len().unwrap_or(0), kept.len().is_none() as u64, 0, 0]);
    let mut all = kept.all().filter(|_| overflowed == 0 && n == found)?;
    // Workers merge in any order; a level's ranks are a set.
    all.sort_unstable();
    Some(all)
}

/// How the boards of a level are expanded: which step kernels run.
#[derive(Clone, Copy)]
pub(crate) enum Kernel<'a> {
    /// Board by board, with cell runs for the moves that keep a run's cells.
    Boards(Option<&'a CellRuns>),
    /// Whole XOR runs of `2^bits` ranks.
    Xor(u32),
    /// Board by board, counting shortest solutions.
    Unique,
}

/// The ranks this process's table holds (its units of the [`RankDeal`]), and the owners of
/// the others.
pub struct Part {
    index: usize,
    len: u64,
    deal: RankDeal,
}

impl Part {
    /// This process's part of `space`'s ranks.
    fn of<S: StateRanking>(space: &S, processes: &dyn Processes) -> Part {
        let deal = RankDeal::of(space, processes.count());
        Part { index: processes.index(), len: deal.len(processes.index()), deal }
    }

    /// [`EntryClasses::complete_level_in`] on the classes this process holds.
    fn complete_classes(
        &self,
        classes: &dyn EntryClasses,
        table: &DistanceTable,
        mark: u8,
        mark_twins: bool,
        small_level: bool,
    ) -> (Level, u64) {
        if self.deal.parts() == 1 {
            classes.complete_level_in(table, &Some, mark, mark_twins, small_level)
        } else {
            classes.complete_level_in(table, &|e| self.local(e), mark, mark_twins, small_level)
        }
    }

    /// The table index of `rank`, if this process holds it.
    #[inline(always)]
    fn local(&self, rank: u64) -> Option<u64> {
        match self.place(rank) {
            Place::Here(i) => Some(i),
            Place::There(..) => None,
        }
    }

    /// Where `rank` is held: here, or by which process at which index (what goes into an
    /// outbox or is read from a [`FrontierCopy`], so nobody locates the rank again).
    #[inline(always)]
    fn place(&self, rank: u64) -> Place {
        if self.deal.parts() == 1 {
            return Place::Here(rank);
        }
        match self.deal.locate(rank) {
            (owner, i) if owner == self.index => Place::Here(i),
            (owner, i) => Place::There(owner, i),
        }
    }

    /// The rank at table index `i`.
    #[inline(always)]
    fn rank(&self, i: u64) -> u64 {
        if self.deal.parts() == 1 { i } else { self.deal.rank(self.index, i) }
    }

    /// What turns a table index of `group` into its rank, added (wrapping): a group lies
    /// inside one unit, where ranks follow indices. Kernels take it once per group, where a
    /// rank each would cost a division by the deal's unit.
    #[inline(always)]
    fn rank_offset(&self, group: usize) -> u64 {
        let first = group as u64 * crate::table::CELLS_PER_WORD;
        self.rank(first).wrapping_sub(first)
    }

    /// The ranks of a set of table indices (one group, so inside one unit).
    #[inline(always)]
    fn ranks(&self, set: RankSet) -> RankSet {
        set.shifted(self.rank(set.first()) - set.first())
    }

    /// Groups of the table holding ranks.
    fn n_groups(&self) -> usize {
        self.len.div_ceil(crate::table::CELLS_PER_WORD) as usize
    }

    /// Number of processes.
    fn parts(&self) -> usize {
        self.deal.parts()
    }
}

/// Where a rank is held (see [`Part::place`]).
#[derive(Clone, Copy)]
enum Place {
    /// At this index of this process's table.
    Here(u64),
    /// By this process, at this index of its table.
    There(usize, u64),
}

/// Readies a table for resuming after the levels of `histogram`: recounts the boards of the
/// unfinished level (after dropping those whose count of solutions may be incomplete, for
/// unique searches) and checks the marks against the record.
fn prepare_resume(
    table: &DistanceTable,
    histogram: &[u64],
    processes: &dyn Processes,
) -> crate::Result<u64> {
    if table.has_unique_bits() {
        // Boards found in an unfinished forward level may miss visitors: find them again.
        table.unmark_fresh();
    }
    let counts = processes.sum_each(table.count_marks());
    match marks_beyond(&counts, histogram) {
        Some(partial) => Ok(partial),
        None => Err(crate::Error::BadTable {
            path: "the table".into(),
            reason: format!(
                "its marks ({:?} boards per mark) do not match the checkpoint's histogram {:?}",
                &counts[1..],
                histogram
            ),
        }),
    }
}

/// The boards of the level after `histogram` already marked, given the table's boards per
/// mark: `None` unless every other mark counts exactly the histogram's boards (and that one
/// at least as many).
pub fn marks_beyond(counts: &[u64; 4], histogram: &[u64]) -> Option<u64> {
    let next = histogram.len();
    let mut expected = [0u64; 4];
    for (j, &h) in histogram.iter().enumerate() {
        expected[mark_of(j as u32) as usize] += h;
    }
    let next_mark = mark_of(next as u32) as usize;
    let mismatch = (1..4)
        .any(|m| if m == next_mark { counts[m] < expected[m] } else { counts[m] != expected[m] });
    (!histogram.is_empty() && !mismatch).then(|| counts[next_mark] - expected[next_mark])
}

/// The forward step costs one probe per frontier board and move; the backward one up to one
/// per unseen board and move, fewer for boards found early, and less again when runs of boards
/// move together (a backward run stops at its first full cover). Go backward once the frontier
/// times `factor` exceeds the unseen boards. Measured factors: 2 board by board (NRP (3,4,2)),
/// 4 with cell runs (NRP (3,4,2) and (4,4,3); 8 sends its level 10 backward, 13 s against
/// 2.5 s), 128 with XOR runs (Spinpossible 2x5, by boards and by classes: its level 7 takes
/// 4.7 s backward against 7.2 s forward by classes, and any factor from 48 to 200 takes the
/// same directions; Spinpossible 3x3 by classes: level 6 takes 0.09 s backward against
/// 0.12 s forward, the direction factors from 96 up take). 512 with XOR runs of classes
/// under inversion, whose forward steps send each run's inverse too: Spinpossible 2x5's
/// level 6 takes 2.4 s backward against 4.4 s forward (by boards it is a tie, 8.6 s
/// against 8.2 s).
pub(crate) fn should_go_backward(frontier: u64, unseen: u64, factor: u64) -> bool {
    frontier.saturating_mul(factor) > unseen
}

/// Splits `range` into tasks of `task_len` items and runs `task` on each, on every worker
/// thread of the pool it is called in (on the calling thread alone if `serial`; a task owns
/// its items' table groups); reports each task's finds and merges them.
///
/// Workers claim tasks in order, so the tasks done always form a prefix of `range`:
/// [`LevelCount::reached`] says where it ends. Claims stop when the search is asked to stop
/// and, under a [`Budget`], once the outboxes hold its words or its time is up (the tasks
/// already claimed still finish, so a pass overshoots by at most a task per worker).
pub(crate) fn in_tasks(
    range: std::ops::Range<u64>,
    task_len: u64,
    progress: &dyn Progress,
    budget: Option<&Budget<'_>>,
    serial: bool,
    task: impl Fn(std::ops::Range<u64>, &mut Level) + Sync,
) -> LevelCount {
    let n_tasks = (range.end - range.start).div_ceil(task_len);
    let (next, words) = (AtomicU64::new(0), AtomicU64::new(0));
    let claim = || {
        if progress.should_stop() || budget.is_some_and(|b| b.spent(words.load(Relaxed))) {
            return None;
        }
        let i = next.fetch_add(1, Relaxed);
        (i < n_tasks).then_some(i)
    };
    // Each worker adds its tasks' finds to one level, and their items to one outbox.
    let work = || {
        let outbox = budget.map(|b| b.outboxes.take()).unwrap_or_default();
        let mut mine = Level { outbox, ..Level::default() };
        while let Some(i) = claim() {
            let lo = range.start + i * task_len;
            let (found, held) = (mine.found, mine.outbox.words());
            task(lo..(lo + task_len).min(range.end), &mut mine);
            words.fetch_add(mine.outbox.words() - held, Relaxed);
            progress.found(mine.found - found);
            progress.task_done();
        }
        mine
    };
    let levels = if serial { vec![work()] } else { rayon::broadcast(|_| work()) };
    let mut outboxes = Vec::with_capacity(levels.len());
    let mut level = Level::default();
    for mut l in levels {
        outboxes.push(std::mem::take(&mut l.outbox));
        level = level.merge(l);
    }
    let reached = (range.start + next.load(Relaxed).min(n_tasks) * task_len).min(range.end);
    let Level { found, smallest, kept, .. } = level;
    LevelCount { found, smallest, kept, outboxes, reached }
}

/// How far one pass of a step over several processes goes before they exchange: until its
/// workers' outboxes hold `words` words, or until `until`.
pub(crate) struct Budget<'a> {
    pub(crate) words: u64,
    pub(crate) until: Instant,
    /// Where the workers' outboxes come from.
    pub(crate) outboxes: &'a Outboxes,
}

impl Budget<'_> {
    fn spent(&self, words: u64) -> bool {
        words >= self.words || Instant::now() >= self.until
    }
}

/// What a step expanding level `d` into `d + 1` works with: the ranking, the table, the
/// marks of the two levels, where to report and the ranks this process holds.
pub struct Step<'a, S> {
    /// The ranking searched.
    pub space: &'a S,
    /// The table being filled (this process's part).
    pub table: &'a DistanceTable,
    /// The mark of level `d`.
    pub cur: u8,
    /// The mark of level `d + 1`.
    pub next: u8,
    /// Where finds are reported (and which says when to stop).
    pub progress: &'a dyn Progress,
    /// The ranks the table holds.
    pub part: &'a Part,
    /// Under several processes: where a pass stops before the processes exchange.
    pub(crate) budget: Option<&'a Budget<'a>>,
    /// Under several processes, backward: every process's boards at distance `d`.
    pub(crate) copy: Option<&'a FrontierCopy>,
    /// Forward over a dense frontier: the inverse tables that let the step fill image runs
    /// instead of pushing into them ([`run_wise::expand_frontier_by_image_runs`]).
    pub(crate) by_image_runs: Option<&'a run_wise::InverseTables<'a>>,
    /// Stepping by runs: every run's image runs under the moves the step reads, where they
    /// were worked out once ([`RunGraph`]).
    pub(crate) run_graph: Option<&'a RunGraph>,
    /// A level too small to wake the workers for ([`SERIAL_WORK`]): its tasks run on the
    /// calling thread ([`in_tasks`]).
    pub(crate) serial: bool,
}

impl<S> Clone for Step<'_, S> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<S> Copy for Step<'_, S> {}

impl<'a, S: StateRanking> Step<'a, S> {
    /// The step from level `d`.
    pub fn new(
        space: &'a S,
        table: &'a DistanceTable,
        d: u32,
        progress: &'a dyn Progress,
        part: &'a Part,
    ) -> Self {
        let (cur, next) = (mark_of(d), mark_of(d + 1));
        Step {
            space,
            table,
            cur,
            next,
            progress,
            part,
            budget: None,
            copy: None,
            by_image_runs: None,
            run_graph: None,
            serial: false,
        }
    }

    /// [`in_tasks`] over groups of the table, [`TASK_GROUPS`] per task (fewer in small
    /// tables).
    fn in_group_tasks(
        &self,
        groups: std::ops::Range<usize>,
        task: impl Fn(std::ops::Range<usize>, &mut Level) + Sync,
    ) -> LevelCount {
        let range = groups.start as u64..groups.end as u64;
        // A small table would be one task, on one thread: a few tasks per worker at least.
        let workers = rayon::current_num_threads() as u64;
        let per_worker = (range.end - range.start) / (workers * TASKS_PER_WORKER);
        let task_len = per_worker.clamp(MIN_TASK_GROUPS, TASK_GROUPS);
        in_tasks(range, task_len, self.progress, self.budget, self.serial, |t, level| {
            task(t.start as usize..t.end as usize, level)
        })
    }
}

/// What one worker's tasks (or a whole level) found, and what they leave to other processes.
#[derive(Default)]
pub struct Level {
    found: u64,
    /// The smallest ranks found, sorted, at most [`SAMPLE`].
    smallest: Vec<u64>,
    /// Every rank found, while the level is small.
    kept: KeptRanks,
    outbox: Outbox,
}

impl Level {
    pub(crate) fn note(&mut self, rank: u64) {
        self.found += 1;
        self.kept.add(rank);
        self.note_smallest(rank);
    }

    fn note_smallest(&mut self, rank: u64) {
        if self.smallest.len() < SAMPLE || rank < *self.smallest.last().unwrap() {
            let at = self.smallest.partition_point(|&r| r < rank);
            self.smallest.insert(at, rank);
            self.smallest.truncate(SAMPLE);
        }
    }

    /// Notes every rank of a set, looking at each only while it may be among the smallest.
    #[inline]
    pub(crate) fn note_set(&mut self, ranks: RankSet) {
        let mut smallest = ranks;
        let Some(first) = smallest.next() else { return };
        self.found += ranks.len();
        self.kept.add_set(ranks);
        if self.smallest.len() < SAMPLE || first < *self.smallest.last().unwrap() {
            ranks.for_each(|r| self.note_smallest(r));
        }
    }

    /// Adds another's finds (the outboxes stay apart: see [`in_tasks`]).
    pub(crate) fn merge(mut self, other: Level) -> Level {
        debug_assert_eq!(other.outbox.words(), 0, "outboxes are not merged");
        self.found += other.found;
        self.smallest.extend(other.smallest);
        self.smallest.sort_unstable();
        self.smallest.truncate(SAMPLE);
        self.kept.merge(other.kept);
        self
    }
}

/// The frame of both board-by-board steps: tasks over `groups`, each given the moves it
/// tries board by board (those outside the cell runs, or all) and, with cell runs, its own
/// [`RunImages`] for `direction`. Generic in `task`, so each step's loop stays monomorphic.
#[inline]
fn in_board_tasks<'r, S: StateRanking>(
    step: &Step<'_, S>,
    runs: Option<&'r CellRuns>,
    groups: std::ops::Range<usize>,
    direction: Direction,
    task: impl Fn(std::ops::Range<usize>, &[usize], Option<RunImages<'r, S>>, &mut Level) + Sync,
) -> LevelCount {
    let rest: Vec<usize> =
        runs.map_or_else(|| (0..step.space.n_moves()).collect(), |r| r.rest.clone());
    step.in_group_tasks(groups, |t, level| {
        task(t, &rest, runs.map(|r| RunImages::new(r, direction)), level)
    })
}

/// The board of `rank`: unranked from the current run's first boards when walking runs.
#[inline(always)]
fn current_board<S: StateRanking>(
    space: &S,
    images: &Option<RunImages<'_, S>>,
    rank: u64,
) -> S::State {
    match images {
        Some(images) => images.board(space),
        None => space.unrank(rank),
    }
}

/// Ranks buffered before their table words are touched, so the prefetches have landed.
const PIPELINE: usize = 256;

/// Forward step over a range of groups: boards marked `d` send each inverse move's result to
/// level `d+1` if it is unseen (neighbours another process holds go to its outbox).
pub fn expand_frontier<S: StateRanking>(
    step: &Step<'_, S>,
    runs: Option<&CellRuns>,
    groups: std::ops::Range<usize>,
) -> LevelCount {
    let (space, table, part) = (step.space, step.table, step.part);
    in_board_tasks(step, runs, groups, Direction::Forward, |task, rest, mut images, level| {
        let mut pending: Vec<u64> = Vec::with_capacity(PIPELINE + space.n_moves());
        // A board's neighbours, ranked together (see [`StateRanking::rank_all`]).
        let (mut near, mut ranks): (Vec<S::State>, Vec<u64>) = (Vec::new(), Vec::new());
        let flush = |pending: &mut Vec<u64>, level: &mut Level| {
            for &i in pending.iter() {
                if table.mark_if_unseen(i, step.next) {
                    level.note(part.rank(i));
                }
            }
            pending.clear();
        };
        // A neighbour held here waits, prefetched, in `pending`; another goes to its owner.
        let aim = |place: Place, pending: &mut Vec<u64>, level: &mut Level| match place {
            Place::Here(i) => {
                table.prefetch(i);
                pending.push(i);
            }
            Place::There(owner, j) => level.outbox.to(owner, part.parts()).push(j),
        };
        for group in task {
            let to_rank = part.rank_offset(group);
            for i in table.marked(group, step.cur) {
                let rank = i.wrapping_add(to_rank);
                if let Some(images) = &mut images {
                    images.go_to(space, part, rank);
                    // Image runs lie anywhere in the table: prefetched like the others.
                    for k in 0..images.n_moves() {
                        aim(images.neighbour_place(k), &mut pending, &mut *level);
                    }
                }
                if !rest.is_empty() {
                    let s = current_board(space, &images, rank);
                    near.clear();
                    near.extend(rest.iter().map(|&m| space.scramble_step(&s, m)));
                    // Under inversion the inverse's images too (no cell runs then).
                    if let Some((inverse, _)) = space.inverse_in_runs(&s) {
                        debug_assert!(images.is_none(), "cell runs with inversion");
                        near.extend(rest.iter().map(|&m| space.scramble_step(&inverse, m)));
                    }
                    ranks.resize(near.len(), 0);
                    space.rank_all(&near, &mut ranks);
                    for &r in &ranks {
                        aim(part.place(r), &mut pending, &mut *level);
                    }
                }
                if pending.len() >= PIPELINE {
                    flush(&mut pending, &mut *level);
                }
            }
        }
        flush(&mut pending, &mut *level);
    })
}

/// The image runs of the current run under the moves that keep its cells (see
/// [`CellRuns`]), recomputed when the search walks into another run.
struct RunImages<'a, S: StateRanking> {
    runs: &'a CellRuns,
    moves: &'a [RunMove],
    direction: Direction,
    /// The current run's ranks: `start..start + runs.len`.
    start: u64,
    parity: usize,
    /// `images[class * moves.len() + k]`: the image run of move `k` for an offset class.
    images: Vec<u64>,
    /// `offsets[class * moves.len() + k]`: the offset table of that image run (which of the
    /// move's tables, [`StateRanking::run_image`]), and the map applied after it, if any
    /// ([`CellRuns::tables`]).
    offsets: Vec<(&'a OffsetTable, Option<&'a OffsetTable>)>,
    /// Where each image run starts in the tables of the processes: a run lies inside one
    /// unit of the deal, so its boards are found from it by their offsets, without locating
    /// each one.
    placed: Vec<Place>,
    /// Offset of the current board within its run.
    offset: u64,
    /// `class * moves.len()` for the current board's offset class.
    class_base: usize,
    /// `maps[class * moves.len() + k]`: which map of offsets that table names (what a
    /// [`RunGraph`] keeps).
    maps: Vec<u32>,
    /// The run's first board of each offset class (none where the images come from `graph`).
    bases: Vec<S::State>,
    /// Every run's image runs, where the search worked them out once.
    graph: Option<&'a RunGraph>,
    /// Division by the runs' length and by their offset classes, without a divide
    /// instruction (up to 45 cycles on Zen 1, and a run search divides ranks all the time).
    by_len: StrengthReducedU64,
    by_classes: StrengthReducedU64,
}

impl<'a, S: StateRanking> RunImages<'a, S> {
    /// The image runs of `runs`.
    fn new(runs: &'a CellRuns, direction: Direction) -> RunImages<'a, S> {
        let moves = match direction {
            Direction::Forward => &runs.scramble[..],
            Direction::Backward => &runs.solve[..],
        };
        RunImages {
            by_len: StrengthReducedU64::new(runs.len),
            by_classes: StrengthReducedU64::new(runs.classes),
            runs,
            moves,
            direction,
            start: 0,
            parity: 0,
            images: Vec::new(),
            offsets: Vec::new(),
            placed: Vec::new(),
            offset: 0,
            class_base: 0,
            maps: Vec::new(),
            bases: Vec::new(),
            graph: None,
        }
    }

    /// The same, reading each run's images from `graph` (of `direction`'s moves) where one
    /// was made: such images never unrank a board ([`RunImages::board`] is not for them).
    fn with_graph(mut self, graph: Option<&'a RunGraph>) -> RunImages<'a, S> {
        self.graph = graph.filter(|g| g.direction() == self.direction);
        self
    }

    fn n_moves(&self) -> usize {
        self.moves.len()
    }

    /// Moves to the board of rank `rank` (ranks mostly increase, so runs change rarely),
    /// `part` holding the tables' ranks.
    #[inline]
    fn go_to(&mut self, space: &S, part: &Part, rank: u64) {
        let len = self.runs.len;
        if !self.holds(rank) {
            let run = rank / self.by_len;
            self.start = run * len;
            self.images.clear();
            self.offsets.clear();
            self.placed.clear();
            self.maps.clear();
            self.bases.clear();
            if let Some(graph) = self.graph {
                let (image_runs, maps) = graph.row(run);
                let moves = self.moves.iter().cycle();
                for ((&image_run, &map), rm) in image_runs.iter().zip(maps).zip(moves) {
                    self.images.push(image_run);
                    self.offsets.push(self.runs.tables(rm, map as usize, run));
                    self.placed.push(part.place(image_run * len));
                }
                self.maps.extend_from_slice(maps);
            } else {
                for class in 0..self.runs.classes {
                    let base = space.unrank(self.start + class);
                    self.bases.push(base);
                    if class == 0 {
                        self.parity = space.run_parity(&base);
                    }
                    for rm in self.moves {
                        let image = match self.direction {
                            Direction::Forward => space.scramble_step(&base, rm.index),
                            Direction::Backward => space.solve_step(&base, rm.index),
                        };
                        let (rank, map) = space.run_image(&image, self.parity);
                        let image_run = rank / self.by_len;
                        self.images.push(image_run);
                        self.offsets.push(self.runs.tables(rm, map, run));
                        self.placed.push(part.place(image_run * len));
                        self.maps.push(u32::try_from(map).expect("maps of offsets fit 32 bits"));
                    }
                }
            }
        }
        self.offset = rank - self.start;
        self.class_base = (self.offset % self.by_classes) as usize * self.moves.len();
    }

    /// Whether `rank` lies in the current run (none before the first [`RunImages::go_to`]).
    #[inline(always)]
    fn holds(&self, rank: u64) -> bool {
        !self.placed.is_empty() && rank >= self.start && rank - self.start < self.runs.len
    }

    /// The current board, unranked from the run's first boards.
    #[inline]
    fn board(&self, space: &S) -> S::State {
        debug_assert!(self.graph.is_none(), "images read from a graph have no boards");
        space.unrank_in_run(&self.bases, self.parity, self.offset)
    }

    /// The rank of the current board's neighbour by move `k`.
    #[inline(always)]
    fn neighbour(&self, k: usize) -> u64 {
        let run = self.images[self.class_base + k];
        let (table, then) = self.offsets[self.class_base + k];
        run * self.runs.len + table.get_then(self.offset as usize, then)
    }

    /// Where the current board's neighbour by move `k` is held.
    #[inline(always)]
    fn neighbour_place(&self, k: usize) -> Place {
        let (table, then) = self.offsets[self.class_base + k];
        let offset = table.get_then(self.offset as usize, then);
        match self.placed[self.class_base + k] {
            Place::Here(i) => Place::Here(i + offset),
            Place::There(owner, j) => Place::There(owner, j + offset),
        }
    }
}

/// Boards found by one expansion step, with the smallest of their ranks.
pub struct LevelCount {
    /// Number of boards newly marked.
    pub found: u64,
    /// Up to [`SAMPLE`] of the smallest new ranks, sorted.
    pub smallest: Vec<u64>,
    /// Every new rank, while they are few.
    kept: KeptRanks,
    /// What the step leaves to other processes: one outbox for each worker.
    pub(crate) outboxes: Vec<Outbox>,
    /// Where the items done end: the step covered its range up to here (less than all of it
    /// when it stopped at its [`Budget`] or was asked to stop).
    pub(crate) reached: u64,
}

impl From<LevelCount> for Level {
    fn from(c: LevelCount) -> Level {
        Level { found: c.found, smallest: c.smallest, kept: c.kept, outbox: Outbox::default() }
    }
}

impl LevelCount {
    /// Nothing found yet.
    pub(crate) fn empty() -> LevelCount {
        LevelCount {
            found: 0,
            smallest: Vec::new(),
            kept: KeptRanks::default(),
            outboxes: Vec::new(),
            reached: 0,
        }
    }

    /// Adds what another pass over the same level found.
    pub(crate) fn absorb(&mut self, other: Level) {
        let mine = Level {
            found: self.found,
            smallest: std::mem::take(&mut self.smallest),
            kept: std::mem::take(&mut self.kept),
            outbox: Outbox::default(),
        };
        let merged = mine.merge(other);
        self.found = merged.found;
        self.smallest = merged.smallest;
        self.kept = merged.kept;
    }
}

/// Unseen boards per batch whose neighbours are ranked and prefetched together.
const BATCH: usize = 8;
/// Moves tried per round: a board found in an early round skips the rest.
const ROUND: usize = 4;
/// A backward neighbour another process is asked about.
const ASKED: u64 = u64::MAX;
/// The flag of a backward neighbour read from the [`FrontierCopy`] (by its rank).
const COPIED: u64 = 1 << 63;

/// Backward step over a range of groups: each unseen board joins level `d+1` if some move
/// takes it to a board marked `d`. A board that finds none among the neighbours held here
/// asks the owners of the others (in its outbox).
pub fn expand_unseen<S: StateRanking>(
    step: &Step<'_, S>,
    runs: Option<&CellRuns>,
    groups: std::ops::Range<usize>,
) -> LevelCount {
    let (space, table, part) = (step.space, step.table, step.part);
    in_board_tasks(step, runs, groups, Direction::Backward, |task, rest, mut images, level| {
        // Each pending board: its table index, its working state, and whether it is still
        // unseen.
        let mut batch: Vec<(u64, S::State, bool)> = Vec::with_capacity(BATCH);
        let mut neighbours = [0u64; BATCH * ROUND];
        // A round's neighbours and their ranks (see [`StateRanking::rank_all`]).
        let (mut near, mut ranks) = (Vec::with_capacity(BATCH * ROUND), [0u64; BATCH * ROUND]);
        // Neighbours held by other processes, by the batch entry that would ask about them.
        let mut remote: Vec<(usize, usize, u64)> = Vec::new();
        let ask = |level: &mut Level, i: u64, owner: usize, j: u64| {
            level.outbox.ask(owner, part.parts(), j, &[i]);
        };
        // A neighbour: its table index, or its rank in the frontier copy, or asked about.
        let at_cur = |j: u64| match j {
            ASKED => false,
            j if j & COPIED != 0 => step.copy.is_some_and(|c| c.holds(j & !COPIED)),
            j => table.get(j) == step.cur,
        };
        for group in task {
            let to_rank = part.rank_offset(group);
            let mut unseen = table.unseen(group);
            let mut found = RankSet::empty_of(group);
            while !unseen.is_empty() {
                batch.clear();
                remote.clear();
                while batch.len() < BATCH {
                    let Some(i) = unseen.next() else { break };
                    let rank = i.wrapping_add(to_rank);
                    let before = remote.len();
                    if let Some(images) = &mut images {
                        // Moves that keep the run's cells: neighbours from tables, nearby.
                        images.go_to(space, part, rank);
                        let mut hit = false;
                        for k in 0..images.n_moves() {
                            // With a copy every look reads it, by rank: no owner to find.
                            let here = match step.copy {
                                Some(copy) => copy.holds(images.neighbour(k)),
                                None => match images.neighbour_place(k) {
                                    Place::Here(j) => table.get(j) == step.cur,
                                    Place::There(p, j) => {
                                        remote.push((batch.len(), p, j));
                                        false
                                    }
                                },
                            };
                            if here {
                                hit = true;
                                break;
                            }
                        }
                        if hit {
                            remote.truncate(before);
                            found.insert(i);
                            level.note(rank);
                            continue;
                        }
                    }
                    if rest.is_empty() {
                        for (_, p, j) in remote.drain(before..) {
                            ask(&mut *level, i, p, j);
                        }
                    } else {
                        batch.push((i, current_board(space, &images, rank), true));
                    }
                }
                let mut alive = batch.len();
                for first in (0..rest.len()).step_by(ROUND) {
                    let moves = &rest[first..(first + ROUND).min(rest.len())];
                    // The round's neighbours of the boards still unseen, ranked together.
                    near.clear();
                    for (_, s, unseen) in &batch {
                        if *unseen {
                            near.extend(moves.iter().map(|&m| space.solve_step(s, m)));
                        }
                    }
                    space.rank_all(&near, &mut ranks[..near.len()]);
                    let mut ranked = ranks.iter();
                    for (b, (_, _, unseen)) in batch.iter().enumerate() {
                        if !unseen {
                            continue;
                        }
                        for k in 0..moves.len() {
                            let r = *ranked.next().expect("a rank per neighbour");
                            neighbours[b * ROUND + k] = match step.copy {
                                Some(copy) => {
                                    copy.prefetch(r);
                                    COPIED | r
                                }
                                None => match part.place(r) {
                                    Place::Here(j) => {
                                        table.prefetch(j);
                                        j
                                    }
                                    Place::There(p, j) => {
                                        remote.push((b, p, j));
                                        ASKED
                                    }
                                },
                            };
                        }
                    }
                    for (b, (i, _, unseen)) in batch.iter_mut().enumerate() {
                        if !*unseen {
                            continue;
                        }
                        let near = &neighbours[b * ROUND..b * ROUND + moves.len()];
                        if near.iter().any(|&j| at_cur(j)) {
                            found.insert(*i);
                            level.note(i.wrapping_add(to_rank));
                            *unseen = false;
                            alive -= 1;
                        }
                    }
                    if alive == 0 {
                        break;
                    }
                }
                for &(b, p, j) in &remote {
                    let (i, _, unseen) = &batch[b];
                    if *unseen {
                        ask(&mut *level, *i, p, j);
                    }
                }
            }
            // This task owns the group: no other writer can race with the store.
            table.set_owned(found, step.next);
        }
    })
}

#[cfg(test)]
mod tests;

/// Searches a whole puzzle from its solved board.
pub fn search_puzzle(
    puzzle: &crate::puzzle::Puzzle,
    space: &StateSpace,
    table: &DistanceTable,
    config: &Config,
    progress: &dyn Progress,
) -> crate::Result<Outcome> {
    let start = space.rank_board(&puzzle.solved())?;
    run(space, start, table, config, progress)
}
