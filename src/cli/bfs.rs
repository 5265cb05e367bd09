//! `twirl bfs` and `twirl resume`: parse the arguments, run a search (in memory, or a job in
//! a table file through [`twirl::job`]) and print its distance histogram.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::bail;
use clap::Args;

use twirl::bfs::{
    self, Config, Direction, NoJournal, Outcome, Processes, Progress, SearchSpace, Single, Traffic,
};
use twirl::checkpoint::checkpoint_path;
use twirl::job::outputs::{OutputKind, check_output};
use twirl::job::parts::part_path;
use twirl::job::{Finished, Job, Requested, Resumed, SessionEnd, SessionSettings};
use twirl::puzzle::Puzzle;
use twirl::puzzle::goals::Goals;
use twirl::rank::{StateSpace, SymmetryMode};
use twirl::report::{Findings, GoalsReport, Report};
use twirl::symmetry::antipodes::Listing;
use twirl::table::{DistanceTable, table_bytes, unique_bytes};

use super::progress::Bar;
use super::sizes::{available_memory, human, parse_size};
use super::{INTERRUPTED, PuzzleArgs, stop_flag};

/// Arguments of `twirl bfs`.
#[derive(Args)]
pub struct BfsArgs {
    #[command(flatten)]
    puzzle: PuzzleArgs,
    /// Keep the table in FILE (in memory while searching if it fits, else memory-mapped, so
    /// it may exceed RAM): a self-describing file that
    /// `twirl distance`, `solve` and `export` read. Progress is recorded in FILE.checkpoint
    /// after every distance and every --checkpoint-every seconds; an interrupted search
    /// continues with --resume (or `twirl resume FILE`).
    #[arg(long, value_name = "FILE")]
    table: Option<PathBuf>,
    /// Continue the interrupted search in --table FILE from its last checkpoint.
    #[arg(long, requires = "table")]
    resume: bool,
    /// Also count, at every distance, the boards with exactly one shortest solution (one more
    /// bit per board, plus one while searching; searches board by board).
    #[arg(long)]
    unique: bool,
    /// Largest in-memory table allowed (e.g. 8G): the whole table of the search (each
    /// process's block of it under mpirun); with --table FILE the table is a mapped file
    /// and this is not checked. (In `solve` and `sample` it bounds each pattern table.)
    /// Default: 90% of the memory available.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    max_memory: Option<u64>,
    /// Search board by board, without moving runs of ranks at once (slower; for comparison).
    #[arg(long)]
    board_by_board: bool,
    /// One table entry per class of boards under the puzzle's symmetries (the maps of the
    /// board that keep its move set; `twirl info` lists them): about 4x smaller tables on
    /// rectangles, 8x on squares, twice that again where a board and its inverse share an
    /// entry (moves closed under inverses, at most 10 cells: Spinpossible 2x5 and 3x3), with
    /// the histogram still counted in boards. `auto`: on when the puzzle has symmetries and
    /// the ranking allows it, except with --unique, for groups of fewer than 131,072 boards
    /// (finding their classes costs more than it saves), and for puzzles whose boards move in
    /// XOR runs, or over a projection's fibres in runs, while their classes could not
    /// (searching boards is faster there: `on` trades that speed for memory). With
    /// --goals, classes leave inversion out and keep distances only if every symmetry maps
    /// the goal set onto itself: else `auto` searches boards, `on` refuses, saying which
    /// goal a symmetry takes outside the set.
    #[arg(long, value_enum, default_value_t = SymmetryArg::Auto)]
    symmetry: SymmetryArg,
    #[command(flatten)]
    session: SessionArgs,
}

impl BfsArgs {
    /// The largest table allowed in memory: --max-memory, or 90% of the memory available.
    fn memory_limit(&self) -> Option<u64> {
        self.max_memory.or_else(|| available_memory().map(|m| m / 10 * 9))
    }
}

/// The values of `--symmetry`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SymmetryArg {
    /// On when the puzzle has symmetries and the ranking allows it.
    Auto,
    /// On, or an error saying why not.
    On,
    /// One entry per board.
    Off,
}

impl SymmetryArg {
    fn mode(self) -> SymmetryMode {
        match self {
            SymmetryArg::Auto => SymmetryMode::Auto,
            SymmetryArg::On => SymmetryMode::On,
            SymmetryArg::Off => SymmetryMode::Off,
        }
    }
}

/// Arguments of `twirl resume`.
#[derive(Args)]
pub struct ResumeArgs {
    /// The table file of the interrupted search (`twirl bfs ... --table FILE`).
    #[arg(value_name = "FILE")]
    table: PathBuf,
    #[command(flatten)]
    session: SessionArgs,
}

/// Settings shared by a new and a resumed search.
#[derive(Args, Clone)]
pub struct SessionArgs {
    /// Worker threads (default: one per core). As many as the cores the process may use
    /// are pinned one to a core (not under MPI).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Also write the result as JSON to FILE (`-`: standard output; never over an input,
    /// a table or its checkpoint or parts).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Also draw the distance histogram as an SVG picture (`-`: standard output).
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,
    /// Replace existing --json and --plot files, and with `bfs --table` an existing table
    /// (the search starts over; not with --resume).
    #[arg(long)]
    force: bool,
    /// Draw the plot with a logarithmic count axis.
    #[arg(long)]
    log_scale: bool,
    /// With a table file: seconds between checkpoints inside a long distance (0: after every
    /// task, for tests).
    #[arg(long, value_name = "SECONDS", default_value_t = 300)]
    checkpoint_every: u64,
    /// No progress bar and no messages on stderr.
    #[arg(long, short)]
    quiet: bool,
    /// Search from a set of goals instead of the solved board: FILE gives one goal per line,
    /// a board in the puzzle's notation (as `distance` reads it) or a move sequence from
    /// solved (as `apply` reads it); blank lines and `#` comments are skipped; `-` reads
    /// standard input. Distance 0 holds the distinct goals and every board is counted at
    /// the moves it needs to reach the nearest goal (in `cw`, moves towards the goal). A
    /// table records the goal set: a resume must give the same goals, and `distance`
    /// and `solve` refuse the table (they answer distances to solved; `twirl
    /// boards` lists its boards by distance). Not with --unique.
    #[arg(long, value_name = "FILE", allow_hyphen_values = true)]
    goals: Option<String>,
    /// List up to N antipodes (boards at the largest distance, God's number), those of
    /// smallest rank in the ranking of boards; 0 lists none. Their count is always exact,
    /// whatever N. Any number is listed where the search kept its whole last distance (at
    /// most 16,384 boards, or classes of boards); beyond that, the 10 the search keeps, or
    /// for a table of classes of at most 2^25 entries those read from it.
    #[arg(long, value_name = "N", default_value_t = twirl::bfs::SAMPLE)]
    antipodes: usize,
    /// Tests only: after finishing distance N, wait (up to a minute) for Ctrl-C or SIGTERM,
    /// so a test can interrupt the search at a known point.
    #[arg(long, value_name = "N", hide = true)]
    test_pause_after: Option<u32>,
}

impl SessionArgs {
    fn threads(&self) -> anyhow::Result<usize> {
        Ok(match self.threads {
            Some(0) => bail!("--threads must be at least 1"),
            Some(n) => n,
            None => super::default_threads(),
        })
    }

    fn settings(&self, board_by_board: bool) -> anyhow::Result<SessionSettings> {
        Ok(SessionSettings {
            threads: self.threads()?,
            runs: !board_by_board,
            checkpoint_interval: Duration::from_secs(self.checkpoint_every),
            pause_after_level: self.test_pause_after,
            frontier_copy: true,
            antipodes: self.antipodes,
        })
    }

    /// Refuses the --json and --plot paths before any work (see [`check_output`]): not the
    /// table, its checkpoint or parts, not the definition searched, not each other.
    fn check_outputs(&self, table: Option<&Path>, puzzle: Option<&Puzzle>) -> anyhow::Result<()> {
        let ck = table.map(checkpoint_path);
        super::claim_stdout([&self.json, &self.plot])?;
        let mut inputs: Vec<&Path> = table.into_iter().chain(ck.as_deref()).collect();
        inputs.extend(puzzle.and_then(Puzzle::defined).map(|d| Path::new(&d.path)));
        inputs.extend(self.goals.as_deref().filter(|g| *g != "-").map(Path::new));
        if let Some(json) = &self.json {
            check_output(json, OutputKind::Json, &inputs, self.force)?;
            inputs.push(json);
        }
        if let Some(plot) = &self.plot {
            check_output(plot, OutputKind::Svg, &inputs, self.force)?;
        }
        Ok(())
    }

    /// The table and the flags that shape a resumed run's outputs, as a command line: a run
    /// resumed without them would write neither --json nor --plot (and refuse a table of
    /// goals without --goals).
    fn resume_flags(&self, table: &Path) -> String {
        let mut words = vec![shell_word(table)];
        let goals = self.goals.as_ref().map(PathBuf::from);
        for (flag, value) in [("--json", &self.json), ("--plot", &self.plot), ("--goals", &goals)] {
            if let Some(v) = value {
                words.extend([flag.to_string(), shell_word(v)]);
            }
        }
        if self.log_scale {
            words.push("--log-scale".into());
        }
        if self.antipodes != twirl::bfs::SAMPLE {
            words.push(format!("--antipodes {}", self.antipodes));
        }
        if self.force && (self.json.is_some() || self.plot.is_some()) {
            words.push("--force".into());
        }
        if self.quiet {
            words.push("-q".into());
        }
        words.join(" ")
    }

    /// The goals of --goals, read for `puzzle`.
    fn read_goals(&self, puzzle: &Puzzle) -> anyhow::Result<Option<Goals>> {
        Ok(self.goals.as_deref().map(|g| Goals::read(puzzle, g)).transpose()?)
    }

    fn say(&self, msg: &str) {
        if !self.quiet {
            // A closed stderr must not stop the search.
            let _ = writeln!(std::io::stderr(), "{msg}");
        }
    }
}

/// What `twirl bfs` and `twirl resume` do, decided from their arguments before any work;
/// [`Plan::execute`] runs it on one process or on each process of an MPI job alike.
enum Plan<'a> {
    /// A search with the table in memory (each process's block of it), from the goals.
    InMemory(&'a BfsArgs, Puzzle, Option<Goals>),
    /// A new search in a table file (one file per process), from the goals.
    NewTable(&'a BfsArgs, Puzzle, Option<Goals>, &'a Path),
    /// Continue the search in a table file (checked against the puzzle and flags of `bfs
    /// --resume` when given; `twirl resume` takes both from the table).
    Resume {
        path: &'a Path,
        expected: Option<(Puzzle, Requested)>,
        session: &'a SessionArgs,
        board_by_board: bool,
    },
}

/// The processes of this search: those of the MPI job under mpirun, or this one alone.
fn processes() -> Box<dyn Processes> {
    #[cfg(feature = "mpi")]
    if let Some(world) = twirl::distributed::world_of_many() {
        return Box::new(world);
    }
    Box::new(Single)
}

/// Runs `twirl bfs`; returns the exit code.
pub fn run(args: &BfsArgs) -> anyhow::Result<i32> {
    // Catch signals from the start: one that arrives while the table is being made stops the
    // search at its first durable point instead of killing the process mid-creation.
    stop_flag(args.session.quiet);
    super::bound_setup_threads(args.session.threads);
    let puzzle = args.puzzle.searchable_puzzle()?;
    if args.session.force && args.resume {
        bail!(
            "--force with --resume: expected one of them (--force starts the search in --table \
             over; to replace outputs of a resumed search use `twirl resume TABLE --force`)"
        );
    }
    if args.unique && args.session.goals.is_some() {
        bail!(
            "--unique with --goals: expected one of them (unique shortest solutions are counted \
             from the solved board only)"
        );
    }
    args.session.check_outputs(args.table.as_deref(), Some(&puzzle))?;
    let goals = match args.resume {
        // A resume reads them for the puzzle the table holds.
        true => None,
        false => args.session.read_goals(&puzzle)?,
    };
    let plan = match &args.table {
        Some(path) if args.resume => Plan::Resume {
            path,
            expected: Some((
                puzzle,
                Requested { symmetry: args.symmetry.mode(), unique: args.unique },
            )),
            session: &args.session,
            board_by_board: args.board_by_board,
        },
        Some(path) => Plan::NewTable(args, puzzle, goals, path),
        None => Plan::InMemory(args, puzzle, goals),
    };
    plan.execute(&*processes())
}

/// Runs `twirl resume`.
pub fn run_resume(args: &ResumeArgs) -> anyhow::Result<i32> {
    stop_flag(args.session.quiet);
    super::bound_setup_threads(args.session.threads);
    args.session.check_outputs(Some(&args.table), None)?;
    let plan = Plan::Resume {
        path: &args.table,
        expected: None,
        session: &args.session,
        board_by_board: false,
    };
    plan.execute(&*processes())
}

impl Plan<'_> {
    /// Runs the plan as one of `processes`; process 0 prints and writes the outputs.
    fn execute(self, processes: &dyn Processes) -> anyhow::Result<i32> {
        let result = match self {
            Plan::InMemory(args, puzzle, goals) => {
                search_in_memory(args, &puzzle, goals.as_ref(), processes)
            }
            Plan::NewTable(args, puzzle, goals, path) => {
                new_table(args, &puzzle, goals.as_ref(), path, processes)
            }
            Plan::Resume { path, expected, session, board_by_board } => {
                let expected = expected.as_ref().map(|(p, r)| (p, *r));
                resume_table(path, expected, session, board_by_board, processes)
            }
        };
        said_by_another(processes, result)
    }
}

/// An error that only names another process (which printed the reason) ends this one
/// quietly, so a failure is told once.
fn said_by_another(processes: &dyn Processes, result: anyhow::Result<i32>) -> anyhow::Result<i32> {
    match result {
        Err(e)
            if processes.index() != 0
                && matches!(e.downcast_ref(), Some(twirl::Error::OtherProcess { .. })) =>
        {
            Ok(2)
        }
        other => other,
    }
}

/// The progress of a search on each process: process 0 draws the bar (one process only)
/// and prints each finished level, and the traffic of each level between processes.
struct Rows<'a> {
    bar: &'a Bar,
    session: &'a SessionArgs,
    root: bool,
}

impl Progress for Rows<'_> {
    fn level_started(&self, distance: u32, frontier: u64, direction: Direction) {
        self.bar.level_started(distance, frontier, direction)
    }
    fn found(&self, n: u64) {
        self.bar.found(n)
    }
    fn level_done(&self, distance: u32, boards: u64, seconds: f64) {
        if self.root {
            self.bar.print_row(distance, boards, seconds);
        }
    }
    fn level_traffic(&self, d: u32, t: &Traffic) {
        let step = match t.direction {
            Direction::Forward => "forward",
            Direction::Backward => "backward",
        };
        self.session.say(&format!(
            "distance {d} ({step}): {} ranks sent between processes ({}) in {} rounds",
            t.ranks_sent,
            human(t.bytes_sent),
            t.rounds
        ));
    }
}

/// Whether each of `count` processes may hold a copy of the frontier of `n_states` ranks
/// beside `own` bytes of its own table, within `max_memory` (--max-memory), or else within
/// the memory available shared by the job's processes on this machine; says which way
/// backward steps will go.
fn frontier_copy_fits(
    session: &SessionArgs,
    n_states: u64,
    count: usize,
    own: u64,
    max_memory: Option<u64>,
) -> bool {
    let bytes = twirl::bfs::frontier_copy_bytes(n_states, count);
    let room =
        max_memory.or_else(|| available_memory().map(|m| m / 10 * 9 / processes_on_this_machine()));
    if room.is_none_or(|room| own + bytes <= room) {
        let each = human(bytes);
        session.say(&format!("backward steps read a copy of the frontier ({each} per process)"));
        true
    } else {
        session.say(&format!(
            "backward steps ask the other processes: a copy of the frontier needs {} per \
             process, beside {} of table, and {} may be used",
            human(bytes),
            human(own),
            human(room.unwrap_or(0))
        ));
        false
    }
}

/// Processes of this MPI job on this machine, as Open MPI or MPICH tell it (else one).
fn processes_on_this_machine() -> u64 {
    ["OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"]
        .iter()
        .find_map(|v| std::env::var(v).ok()?.parse().ok())
        .unwrap_or(1u64)
        .max(1)
}

/// `session` as process 0 of `processes` says it: the others are quiet.
fn quiet_unless_root(session: &SessionArgs, processes: &dyn Processes) -> SessionArgs {
    SessionArgs { quiet: session.quiet || processes.index() != 0, ..session.clone() }
}

/// A search with its table in memory: each process keeps the units of ranks dealt to it.
fn search_in_memory(
    args: &BfsArgs,
    puzzle: &Puzzle,
    goals: Option<&Goals>,
    processes: &dyn Processes,
) -> anyhow::Result<i32> {
    let threads = args.session.threads()?;
    let count = processes.count();
    let root = processes.index() == 0;
    let session = quiet_unless_root(&args.session, processes);
    let mut space = Goals::space_for_search(goals, puzzle, args.symmetry.mode(), args.unique)?;
    let limit = args.memory_limit();
    let block_bytes = |space: &StateSpace| {
        let n = space.deal(count).largest();
        table_bytes(n) + if args.unique { unique_bytes(n) } else { 0 }
    };
    if args.symmetry == SymmetryArg::Auto
        && space.entry_classes().is_none()
        && limit.is_some_and(|l| block_bytes(&space) > l)
    {
        // Boards were chosen for speed, but only classes fit.
        if let Ok(classes) = Goals::space_for_search(goals, puzzle, SymmetryMode::On, args.unique) {
            space = classes;
        }
    }
    let n_states = space.n_states();
    let bytes = table_bytes(n_states) + if args.unique { unique_bytes(n_states) } else { 0 };
    let bits = if args.unique { "4 bits" } else { "2 bits" };
    let each = block_bytes(&space);
    if count == 1 {
        session.say(&format!(
            "table: {} x {bits} = {} in memory",
            describe_entries(&space),
            human(bytes)
        ));
    } else {
        session.say(&format!(
            "table: {} x {bits} = {} in {count} processes ({} each)",
            describe_entries(&space),
            human(bytes),
            human(each)
        ));
    }
    if let Some(limit) = limit.filter(|&l| each > l) {
        if count == 1 {
            bail!(
                "the table needs {} but only {} may be used in memory (raise --max-memory or use \
                 --table FILE)",
                human(bytes),
                human(limit)
            );
        }
        bail!(
            "each of the {count} processes needs {} of table but only {} may be used in \
             memory (raise --max-memory, run more processes or use --table FILE)",
            human(each),
            human(limit)
        );
    }
    // A process dealt no rank still gets a table of one entry that nothing marks.
    let n = space.deal(count).len(processes.index()).max(1);
    let table = if args.unique {
        DistanceTable::in_memory_unique(n)?
    } else {
        DistanceTable::in_memory(n)?
    };
    let frontier_copy = count > 1
        && !args.unique
        && frontier_copy_fits(&session, n_states, count, each, args.max_memory);
    let stop = stop_flag(session.quiet);
    let config = Config {
        runs: !args.board_by_board,
        unique: args.unique,
        stop: Some(stop),
        frontier_copy,
        ..Config::new(threads)
    };
    let head = Head { puzzle, space: &space, bytes, goals: goals.map(|g| g.record.count) };
    let bar = start_output(&head, &session, None, root, count == 1);
    let rows = Rows { bar: &bar, session: &session, root };
    let t0 = Instant::now();
    let starts = Goals::starts(goals, puzzle, &space)?;
    let outcome =
        bfs::run_in(&space, &starts, &table, &config, &rows, &NoJournal, None, processes)?;
    bar.finish();
    if !outcome.complete {
        let what = if count == 1 { "the table was" } else { "the tables were" };
        session.say(&format!("stopped ({what} in memory; nothing is saved)"));
        return Ok(INTERRUPTED);
    }
    let elapsed = t0.elapsed().as_secs_f64();
    let listing = Listing { at_most: args.session.antipodes, from_goals: goals.is_some() };
    // Only a JSON report says how many classes there are.
    let count_classes = args.session.json.is_some();
    let findings =
        Findings::of_search(puzzle, &space, &outcome, &table, processes, listing, count_classes)?;
    if !root {
        return Ok(0);
    }
    let mut report = Report::new(
        puzzle,
        &space,
        &outcome,
        &findings,
        elapsed,
        threads * count,
        table_bytes(space.n_states()),
    );
    report.goals = goals.map(|g| GoalsReport::of(g, puzzle));
    write_outputs(&report, &session)?;
    print_summary(&report, false)?;
    Ok(0)
}

/// Starts a new search in a table file (one per process under mpirun).
fn new_table(
    args: &BfsArgs,
    puzzle: &Puzzle,
    goals: Option<&Goals>,
    path: &Path,
    processes: &dyn Processes,
) -> anyhow::Result<i32> {
    let (mode, unique, force) = (args.symmetry.mode(), args.unique, args.session.force);
    let job = Job::start_in(processes, path, puzzle, mode, goals, unique, force)?;
    run_job(job, goals, path, &args.session, args.board_by_board, processes)
}

/// Continues the search in a table file (its parts under mpirun).
fn resume_table(
    path: &Path,
    expected: Option<(&Puzzle, Requested)>,
    session: &SessionArgs,
    board_by_board: bool,
    processes: &dyn Processes,
) -> anyhow::Result<i32> {
    let count = processes.count();
    let (puzzle, requested) = (expected.map(|e| e.0), expected.map(|e| e.1));
    let resumed = Job::resume_in(processes, path, puzzle, requested, session.antipodes)?;
    // `twirl resume` learns the definition searched only from the table.
    let searched = match &resumed {
        Resumed::Complete(finished) => &finished.puzzle,
        Resumed::Continue(job) => job.puzzle(),
    };
    // Every process checks before process 0 may write the outputs: one that checked after
    // would find them written and refuse them.
    let checked = session.check_outputs(Some(path), Some(searched));
    let first_failed = processes.first_failed(checked.is_err());
    checked?;
    if let Some(process) = first_failed {
        return Err(twirl::Error::OtherProcess { process, processes: count }.into());
    }
    let goals = session.read_goals(searched)?;
    let recorded = match &resumed {
        Resumed::Complete(finished) => finished.goals.as_ref(),
        Resumed::Continue(job) => job.goals(),
    };
    Goals::check_same(path, recorded, goals.as_ref())?;
    match resumed {
        // Process 0 reports.
        Resumed::Complete(finished) if processes.index() == 0 => {
            let threads = session.threads()? * count;
            report_complete(path, &finished, goals.as_ref(), threads, session)
        }
        Resumed::Complete(_) => Ok(0),
        Resumed::Continue(job) => {
            let r = job.resumed_from().expect("a resumed job");
            let unit = if job.space().entry_classes().is_some() { "entries" } else { "boards" };
            let (d, partial) = (r.histogram.len(), job.resumed_partial());
            let (spec, metric) = (job.puzzle().spec.named(), job.puzzle().metric);
            let across = if count == 1 { String::new() } else { format!(" in {count} processes") };
            let found = if partial == 0 {
                String::new()
            } else {
                format!("; {partial} {unit} of distance {d} were found before the stop")
            };
            quiet_unless_root(session, processes).say(&format!(
                "resuming {spec} {metric}{across}: distances 0..{} finished ({} of {} {unit}){found}",
                d - 1,
                r.states(),
                job.space().n_reachable(),
            ));
            run_job(*job, goals.as_ref(), path, session, board_by_board, processes)
        }
    }
}

/// What a table's entries are: boards, or classes of boards and how.
pub(super) fn describe_entries(space: &StateSpace) -> String {
    match space.describe_classes() {
        None if space.n_reachable() < space.n_states() => format!(
            "{} entries (every board the invariants allow; the moves reach {})",
            space.n_states(),
            space.n_reachable()
        ),
        None => format!("{} boards", space.n_states()),
        Some(classes) => {
            format!("{} entries (classes of boards under {classes})", space.n_states())
        }
    }
}

/// Runs a job to its end or to a stop (Ctrl-C, SIGTERM: exit code 130 on every process).
fn run_job(
    job: Job,
    goals: Option<&Goals>,
    path: &Path,
    session: &SessionArgs,
    board_by_board: bool,
    processes: &dyn Processes,
) -> anyhow::Result<i32> {
    let (count, root) = (processes.count(), processes.index() == 0);
    let session = quiet_unless_root(session, processes);
    let mut settings = session.settings(board_by_board)?;
    let n_states = job.space().n_states();
    // The tables are mapped files, read through the page cache.
    settings.frontier_copy =
        count > 1 && !job.unique() && frontier_copy_fits(&session, n_states, count, 0, None);
    let bytes = table_bytes(n_states) + if job.unique() { unique_bytes(n_states) } else { 0 };
    if job.resumed_from().is_none() {
        let bits = if job.unique() { "4 bits" } else { "2 bits" };
        let files = match count {
            1 => path.display().to_string(),
            _ => format!(
                "{count} files {}",
                part_path(path, 0, count)
                    .display()
                    .to_string()
                    .replace(".part-0-of-", ".part-*-of-")
            ),
        };
        session.say(&format!(
            "table: {} x {bits} = {} in {files}",
            describe_entries(job.space()),
            human(bytes)
        ));
    }
    let head = Head {
        puzzle: job.puzzle(),
        space: job.space(),
        bytes: table_bytes(n_states),
        goals: job.goals().map(|g| g.count),
    };
    let bar = start_output(&head, &session, job.resumed_from(), root, count == 1);
    let rows = Rows { bar: &bar, session: &session, root };
    let stop = stop_flag(session.quiet);
    let end = job.run(&settings, &rows, stop);
    bar.finish();
    match end? {
        SessionEnd::Stopped { levels_done } => {
            let resume = match count {
                1 => format!("twirl resume {}", session.resume_flags(path)),
                _ => format!("mpirun -np {count} twirl resume {}", session.resume_flags(path)),
            };
            session.say(&format!(
                "stopped: distances 0..{} are finished and saved. Continue with: {resume}",
                levels_done.saturating_sub(1),
            ));
            Ok(INTERRUPTED)
        }
        SessionEnd::Finished(finished) if root => {
            report_finished(&finished, goals, settings.threads * count, &session)
        }
        SessionEnd::Finished(_) => Ok(0),
    }
}

/// Reports a search found already complete on resume: its head, rows and results.
fn report_complete(
    path: &Path,
    finished: &Finished,
    goals: Option<&Goals>,
    threads: usize,
    session: &SessionArgs,
) -> anyhow::Result<i32> {
    session.say(&format!("{}: the search is already complete", path.display()));
    print_head(&Head {
        puzzle: &finished.puzzle,
        space: &finished.space,
        bytes: table_bytes(finished.space.n_states()),
        goals: finished.goals.as_ref().map(|g| g.count),
    });
    print_histogram_rows(finished.outcome.board_histogram());
    report_finished(finished, goals, threads, session)
}

fn report_finished(
    finished: &Finished,
    goals: Option<&Goals>,
    threads: usize,
    session: &SessionArgs,
) -> anyhow::Result<i32> {
    let mut report = finished.report(threads);
    report.goals = goals.map(|g| GoalsReport::of(g, &finished.puzzle));
    write_outputs(&report, session)?;
    print_summary(&report, finished.already_complete)?;
    Ok(0)
}

fn write_outputs(report: &Report, session: &SessionArgs) -> anyhow::Result<()> {
    if let Some(path) = &session.json {
        write_json(path, report)?;
    }
    if let Some(path) = &session.plot {
        super::plot::write_plot(path, report, session.log_scale)?;
    }
    Ok(())
}

/// A path as one shell word: quoted when it holds anything but plain characters.
fn shell_word(path: &Path) -> String {
    let s = path.display().to_string();
    let plain = |c: char| c.is_ascii_alphanumeric() || "/._-+,:@%=".contains(c);
    if !s.is_empty() && s.chars().all(plain) {
        s
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// What the head line says: the puzzle, its boards (and a table of classes' entries), the
/// table's size, the goals (a search from several).
struct Head<'a> {
    puzzle: &'a Puzzle,
    space: &'a StateSpace,
    bytes: u64,
    goals: Option<u64>,
}

/// The head line (see [`Head`]) and the titles of the per-distance table.
fn print_head(head: &Head) {
    let Head { puzzle, space, bytes, goals } = head;
    let mut out = super::report_out();
    let entries = match space.entry_classes() {
        Some(_) => format!(" entries={}", space.n_states()),
        None => String::new(),
    };
    let goals = goals.map(|n| format!(" goals={n}")).unwrap_or_default();
    let _ = writeln!(
        out,
        "# {} metric={} boards={}{entries}{goals} table_bytes={}",
        puzzle.spec.named(),
        puzzle.metric,
        space.n_boards(),
        bytes
    );
    let _ =
        writeln!(out, "{:>8} {:>16} {:>16} {:>10}", "distance", "boards", "cumulative", "seconds");
}

/// Prints the head of the per-distance table (and the rows already finished, on a resume)
/// and returns the progress bar.
fn start_output(
    head: &Head,
    session: &SessionArgs,
    resume: Option<&Outcome>,
    print: bool,
    progress: bool,
) -> Bar {
    let unit = if head.space.entry_classes().is_some() { "entries" } else { "boards" };
    let bar = Bar::new(head.space.n_reachable(), unit, progress && !session.quiet);
    if !print {
        return bar;
    }
    print_head(head);
    match resume {
        None => bar.print_row(0, head.goals.unwrap_or(1), 0.0),
        Some(r) => {
            for (d, &n) in r.board_histogram().iter().enumerate() {
                bar.print_row(d as u32, n, r.level_seconds.get(d).copied().unwrap_or(0.0));
            }
        }
    }
    bar
}

/// Prints a histogram as the per-distance table (for a table already complete).
fn print_histogram_rows(histogram: &[u64]) {
    let bar = Bar::new(histogram.iter().sum(), "boards", false);
    for (d, &n) in histogram.iter().enumerate() {
        bar.print_row(d as u32, n, 0.0);
    }
}

/// Writes JSON where [`check_output`] allowed it: `-` standard output, a pipe or device
/// through, a file durably (a reader never sees half of it).
pub fn write_json(path: &Path, value: &impl serde::Serialize) -> anyhow::Result<()> {
    let text = serde_json::to_string_pretty(value)? + "\n";
    twirl::job::outputs::write_output(path, text.as_bytes())?;
    Ok(())
}

/// The lines after the per-distance table (which is printed as the search goes). For a
/// search finished earlier the time is the one recorded in the table, said as such.
fn print_summary(r: &Report, earlier: bool) -> anyhow::Result<()> {
    let mut out = super::report_out();
    if let Some(g) = &r.goals {
        writeln!(
            out,
            "# distances to the nearest of {} goals ({}, digest {})",
            g.count, g.file, g.digest
        )?;
    }
    writeln!(out, "# God's number: {} ({} antipodes)", r.gods_number, r.antipodes)?;
    let listed = r.antipode_boards.len() as u64;
    if listed > 0 && listed < r.antipodes {
        writeln!(out, "# antipodes listed below: {listed} of {}", r.antipodes)?;
    }
    for b in &r.antipode_boards {
        writeln!(out, "# antipode: {b}")?;
    }
    if let (Some(u), Some(total)) = (&r.unique_histogram, r.unique_total) {
        let row: Vec<String> = u.iter().map(|n| n.to_string()).collect();
        writeln!(
            out,
            "# unique shortest solutions: {total} boards; by distance: {}",
            row.join(" ")
        )?;
    }
    if earlier {
        writeln!(
            out,
            "# the search had finished earlier, in {:.3} s (nothing was searched now)",
            r.elapsed_seconds
        )?;
    } else {
        let rate = r.states as f64 / r.elapsed_seconds.max(1e-9);
        writeln!(
            out,
            "# {:.3} s, {:.3e} boards/s, {} threads",
            r.elapsed_seconds, rate, r.threads
        )?;
    }
    Ok(())
}
