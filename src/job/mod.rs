//! Long searches kept in a table file: start one, run it (stopping at a durable point when
//! asked), resume it, and read the result back, without the command line.
//!
//! A job's files are checked against each other before anything is written. The table's
//! header must name a puzzle this build makes and the ranking this build computes. On a
//! resume the checkpoint must agree with the header (puzzle, metric, board count, ranking,
//! the histogram the header records, at most one level ahead of it) and with the marks
//! (recounted from the table), and its antipodes must be boards at its last distance. A
//! disagreement is refused, naming the file and how it disagrees; nothing is ever repaired by
//! starting over: that takes [`Job::start`] with `force`, which checks the disk like any
//! start. A finished table goes through [`open_table`], as for every reader.
//!
//! ```
//! # use std::sync::{Arc, atomic::AtomicBool};
//! use twirl::job::{Job, Resumed, RunEnd, RunSettings};
//! use twirl::puzzle::Puzzle;
//! let dir = tempfile::tempdir().unwrap();
//! let path = dir.path().join("t.tbl");
//! let job = Job::start(&path, &Puzzle::parse("nrp:2x3:2", None).unwrap(), false, false).unwrap();
//! let stop = Arc::new(AtomicBool::new(false));
//! let RunEnd::Finished(done) = job.run(&RunSettings::new(1), &twirl::bfs::NoProgress, stop).unwrap()
//! else { panic!("not stopped") };
//! assert_eq!(done.outcome.histogram, vec![1, 4, 10, 22, 42, 33, 7, 1]);
//! let Ok(Resumed::Complete(again)) = Job::resume(&path, None) else { panic!() };
//! assert_eq!(again.outcome.histogram, done.outcome.histogram);
//! ```

pub mod outputs;
pub(crate) mod resume;
pub mod verified;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::bfs::{self, Config, Direction, Outcome, Progress};
use crate::checkpoint::{Checkpoint, FileJournal, checkpoint_path};
use crate::durable::{TempPath, free_disk, with_suffix};
use crate::puzzle::{Board, Puzzle};
use crate::rank::{StateSpace, SymmetryMode};
use crate::report::Report;
use crate::symmetry::antipodes::smallest_antipodes;
use crate::table::format::{HEADER_BYTES, Header};
use crate::table::{TableFile, table_bytes, unique_bytes};
use crate::{Error, Result};

pub use verified::{VerifiedTable, open_table};

/// How a job runs; none of it is recorded in the table.
#[derive(Clone, Debug)]
pub struct RunSettings {
    /// Worker threads.
    pub threads: usize,
    /// Move runs of ranks at once (see [`Config::runs`]).
    pub runs: bool,
    /// Time between checkpoints inside a long distance.
    pub checkpoint_interval: Duration,
    /// Tests only: after finishing this distance, wait (up to a minute) until stopped, so a
    /// test can interrupt a run at a known point.
    pub pause_after_level: Option<u32>,
    /// Under several processes, backward steps read a copy of the frontier (see
    /// [`Config::frontier_copy`]).
    pub frontier_copy: bool,
}

impl RunSettings {
    /// `threads` workers, runs on, a checkpoint every five minutes.
    pub fn new(threads: usize) -> RunSettings {
        RunSettings {
            threads,
            runs: true,
            checkpoint_interval: Duration::from_secs(300),
            pause_after_level: None,
            frontier_copy: true,
        }
    }
}

/// A search in a table file, ready to run.
pub struct Job {
    file: TableFile,
    puzzle: Puzzle,
    space: StateSpace,
    record: Checkpoint,
    resume: Option<Outcome>,
}

/// What a resume asks of a table besides its puzzle (`bfs --table FILE --resume` with its
/// flags): a table that holds otherwise is refused, since the search would go on as the
/// table was made and silently drop the request. `twirl resume FILE` asks nothing: it takes
/// both from the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Requested {
    /// `--symmetry`: `On` needs a table of classes, `Off` one of boards, `Auto` takes either.
    pub symmetry: SymmetryMode,
    /// `--unique`: the table must have unique-solution bits exactly when it is given.
    pub unique: bool,
}

/// What [`Job::resume`] found.
pub enum Resumed {
    /// An unfinished search, checked and ready to continue.
    Continue(Box<Job>),
    /// The search had finished; the table passed [`open_table`].
    Complete(Box<Finished>),
}

/// How [`Job::run`] ended.
pub enum RunEnd {
    /// The search is complete and its table sealed with a checksum.
    Finished(Box<Finished>),
    /// Stopped at a durable point: distances `0..levels_done` are saved.
    Stopped {
        /// Number of finished distances.
        levels_done: usize,
    },
}

/// A finished search.
pub struct Finished {
    /// The puzzle.
    pub puzzle: Puzzle,
    /// Its ranking.
    pub space: StateSpace,
    /// Histogram, antipodes, unique counts (level timings only for a search run now).
    pub outcome: Outcome,
    /// Wall-clock seconds of the search over every run.
    pub elapsed_seconds: f64,
    /// Whether the table was already complete (nothing was searched now).
    pub already_complete: bool,
    /// The antipodes to list, read from the table (see
    /// [`crate::symmetry::antipodes::smallest_antipodes`]); `None` lists what the outcome
    /// alone gives.
    pub antipode_boards: Option<Vec<Board>>,
}

impl Finished {
    /// The report of the search (`threads` as run).
    pub fn report(&self, threads: usize) -> Report {
        let n = self.space.n_states();
        let report = Report::new(
            &self.puzzle.spec.to_string(),
            &self.puzzle,
            &self.space,
            &self.outcome,
            self.elapsed_seconds,
            threads,
            table_bytes(n),
        );
        match &self.antipode_boards {
            Some(boards) => report.with_antipodes(&self.puzzle, boards),
            None => report,
        }
    }
}

impl Job {
    /// Starts a new search of `puzzle` in a table file at `path`. An existing file is
    /// replaced only with `force`; the disk must have room for the whole table.
    pub fn start(path: &Path, puzzle: &Puzzle, unique: bool, force: bool) -> Result<Job> {
        Job::start_with(path, puzzle, unique, force, SymmetryMode::Off)
    }

    /// [`Job::start`], ranking classes of boards under the puzzle's symmetries as `symmetry`
    /// asks (see [`StateSpace::for_search`]).
    pub fn start_with(
        path: &Path,
        puzzle: &Puzzle,
        unique: bool,
        force: bool,
        symmetry: SymmetryMode,
    ) -> Result<Job> {
        check_replaceable(path, force)?;
        let space = StateSpace::for_search(puzzle, symmetry, unique)?;
        let n = space.n_states();
        let file_bytes = HEADER_BYTES + table_bytes(n) + if unique { unique_bytes(n) } else { 0 };
        // The new table is made beside the old one and renamed over it when ready, so the
        // disk must hold both for a moment.
        if let Some(free) = free_disk(path).filter(|&f| file_bytes > f) {
            return Err(Error::TooLarge(format!(
                "the table needs {file_bytes} bytes but the disk holding {} has {free} free",
                path.display()
            )));
        }
        // Made as `FILE.partial` (removed on failure) and renamed into place with its
        // header: a process killed meanwhile leaves no half-made table under the name.
        let tmp = TempPath::new(with_suffix(path, ".partial"));
        let mut file = TableFile::create(tmp.path(), puzzle, space.ranking_record(), unique)?;
        tmp.persist(path)?;
        file.path = path.to_path_buf();
        let record = Checkpoint::new(&file.header);
        record.write(&checkpoint_path(path))?;
        Ok(Job { file, puzzle: puzzle.clone(), space, record, resume: None })
    }

    /// Opens the search in the table file at `path` to continue it, after checking the
    /// table and its checkpoint against each other (see the module docs); `expected`, when
    /// given, is the puzzle the caller means.
    pub fn resume(path: &Path, expected: Option<&Puzzle>) -> Result<Resumed> {
        Job::resume_as(path, expected, None)
    }

    /// [`Job::resume`], refusing a table that does not hold what `requested` asks (see
    /// [`Requested`]) before anything is written.
    pub fn resume_as(
        path: &Path,
        expected: Option<&Puzzle>,
        requested: Option<Requested>,
    ) -> Result<Resumed> {
        let ck_path = checkpoint_path(path);
        let record = match ck_path.try_exists() {
            Ok(true) => Some(Checkpoint::read(&ck_path)?),
            _ => None,
        };
        if let Some(r) = record.as_ref().filter(|r| r.parts > 0) {
            return Err(Error::Refused {
                path: ck_path,
                reason: format!(
                    "expected the record of a search in one table file, found one split over \
                     {} MPI processes: continue it with `mpirun -np {} twirl resume {}`",
                    r.parts,
                    r.parts,
                    path.display()
                ),
            });
        }
        if !path.exists() {
            let reason = match first_part_beside(path) {
                Some(count) => format!(
                    "no such table file, but parts of a table searched by {count} MPI \
                     processes are beside it: read them with `mpirun -np {count} twirl resume {}`",
                    path.display()
                ),
                None => "no such table file".into(),
            };
            return Err(Error::BadTable { path: path.into(), reason });
        }
        let file = TableFile::open(path, true)?;
        verified::refuse_part(&file)?;
        if let Some(p) = expected {
            file.check_puzzle(p)?;
        }
        // Before the stale checkpoint of a finished table is removed: a refusal changes nothing.
        if let Some(r) = requested {
            resume::check_requested(&file, r)?;
        }
        if file.header.complete {
            drop(file);
            let table = open_table(path)?;
            if let Some(record) = &record {
                resume::check_identity(record, &ck_path, &table.file)?;
                if record.histogram != table.file.header.histogram {
                    return Err(resume::histogram_disagrees(
                        &ck_path,
                        &record.histogram,
                        &table.file,
                    ));
                }
                // The search finished after writing this record; it is stale.
                std::fs::remove_file(&ck_path).map_err(|e| Error::io(&ck_path, e))?;
            }
            let outcome = finished_outcome(&table.file.header, &table.space);
            let elapsed_seconds = table.file.header.elapsed_seconds;
            let antipodes =
                smallest_antipodes(&table.puzzle, &table.space, &outcome, Some(&table.file.table))?;
            return Ok(Resumed::Complete(Box::new(Finished {
                puzzle: table.puzzle,
                space: table.space,
                outcome,
                elapsed_seconds,
                already_complete: true,
                antipode_boards: Some(antipodes),
            })));
        }
        let (puzzle, space) = verified::puzzle_and_space(&file)?;
        let Some(record) = record else {
            return Err(Error::BadTable {
                path: path.into(),
                reason: format!(
                    "cannot be resumed: its checkpoint {} is missing{}",
                    ck_path.display(),
                    start_again_hint(&file)
                ),
            });
        };
        let resume = resume::check_record(&record, &ck_path, &file, &space)?;
        Ok(Resumed::Continue(Box::new(Job { file, puzzle, space, record, resume: Some(resume) })))
    }

    /// The puzzle searched.
    pub fn puzzle(&self) -> &Puzzle {
        &self.puzzle
    }

    /// Its ranking.
    pub fn space(&self) -> &StateSpace {
        &self.space
    }

    /// The table file.
    pub fn path(&self) -> &Path {
        &self.file.path
    }

    /// Bytes of the table file.
    pub fn file_bytes(&self) -> u64 {
        self.file.header.file_bytes()
    }

    /// The finished distances a resumed job starts from (`None` for a new job).
    pub fn resumed_from(&self) -> Option<&Outcome> {
        self.resume.as_ref()
    }

    /// Runs the search until it completes or `stop` is set (by a signal handler): then it
    /// stops at a durable point and the job can be resumed later.
    pub fn run(
        mut self,
        settings: &RunSettings,
        progress: &dyn Progress,
        stop: Arc<AtomicBool>,
    ) -> Result<RunEnd> {
        let config = Config {
            threads: settings.threads,
            runs: settings.runs,
            unique: self.file.header.unique_bytes != 0,
            stop: Some(stop.clone()),
            ..Config::new(settings.threads)
        };
        let ck_path = checkpoint_path(&self.file.path);
        let journal = FileJournal::new(
            ck_path.clone(),
            self.record,
            settings.checkpoint_interval,
            self.file.path.clone(),
            self.file.header.clone(),
        );
        let pausing = Pausing { inner: progress, after: settings.pause_after_level, stop: &stop };
        let outcome = bfs::search_puzzle_journaled(
            &self.puzzle,
            &self.space,
            &self.file.table,
            &config,
            &pausing,
            &journal,
            self.resume,
        )?;
        if !outcome.complete {
            journal.save_under_way(&self.file.table, &bfs::Single)?;
            return Ok(RunEnd::Stopped { levels_done: outcome.histogram.len() });
        }
        if outcome.states() != self.space.n_reachable() {
            return Err(Error::BadTable {
                path: self.file.path.clone(),
                reason: format!(
                    "the search reached {} of {} boards (the table or this twirl is wrong)",
                    outcome.states(),
                    self.space.n_reachable()
                ),
            });
        }
        let elapsed_seconds = journal.elapsed_seconds();
        self.file.finish(&outcome, elapsed_seconds)?;
        std::fs::remove_file(&ck_path).map_err(|e| Error::io(&ck_path, e))?;
        let antipodes =
            smallest_antipodes(&self.puzzle, &self.space, &outcome, Some(&self.file.table))?;
        Ok(RunEnd::Finished(Box::new(Finished {
            puzzle: self.puzzle,
            space: self.space,
            outcome,
            elapsed_seconds,
            already_complete: false,
            antipode_boards: Some(antipodes),
        })))
    }
}

/// The outcome a finished table's header records (without level timings).
pub(crate) fn finished_outcome(h: &Header, space: &StateSpace) -> Outcome {
    Outcome {
        histogram: h.histogram.clone(),
        level_seconds: Vec::new(),
        directions: Vec::new(),
        antipodes: h.antipodes.clone(),
        unique_histogram: h.unique_histogram.clone(),
        complete: true,
        boards: space.classes().map(|_| h.boards.clone()),
    }
}

/// The number of processes of an MPI job whose first part (`TABLE.part-0-of-N`) lies
/// beside `path`, if any.
fn first_part_beside(path: &Path) -> Option<usize> {
    let name = path.file_name()?.to_str()?;
    let prefix = format!("{name}.part-0-of-");
    std::fs::read_dir(crate::durable::parent_dir(path)).ok()?.find_map(|entry| {
        let entry = entry.ok()?;
        entry.file_name().to_str()?.strip_prefix(&prefix)?.parse().ok()
    })
}

/// Refuses a table path that names a directory, or an existing file unless `force` (and
/// even then while another process writes it).
pub(crate) fn check_replaceable(path: &Path, force: bool) -> Result<()> {
    let Ok(meta) = std::fs::metadata(path) else { return Ok(()) };
    if meta.is_dir() {
        return Err(Error::Refused {
            path: path.into(),
            reason: "expected a table file name, found a directory".into(),
        });
    }
    if !force {
        return Err(Error::Refused {
            path: path.into(),
            reason: format!("{} (use --force to replace it)", describe_existing(path)),
        });
    }
    // Never replace a table another process is writing (it holds the file's lock).
    let f = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    if f.try_lock().is_err() {
        return Err(Error::Refused {
            path: path.into(),
            reason: "another twirl process is writing this table".into(),
        });
    }
    Ok(())
}

/// What an existing file at a table path holds, for the refusal message.
fn describe_existing(path: &Path) -> String {
    match TableFile::open(path, false) {
        Ok(t) if t.header.part.is_some() => {
            let p = t.header.part.expect("a part");
            let state = if t.header.complete { "a finished" } else { "an unfinished" };
            let name = path.display().to_string();
            let base = name.strip_suffix(&format!(".part-{}-of-{}", p.index, p.count));
            format!(
                "holds part {} of {} of {state} search of {} by an MPI job; continue or report \
                 it with `mpirun -np {} twirl resume {}`",
                p.index,
                p.count,
                t.header.puzzle,
                p.count,
                base.unwrap_or("TABLE")
            )
        }
        Ok(t) if !t.header.complete => format!(
            "holds an unfinished search of {}; continue it with `twirl resume {}`",
            t.header.puzzle,
            path.display()
        ),
        Ok(t) => format!("holds a finished table of {}", t.header.puzzle),
        Err(_) => "exists".to_string(),
    }
}

/// How to start a search over whose table cannot be resumed.
pub(super) fn start_again_hint(file: &TableFile) -> String {
    format!(
        "; start it again with `twirl bfs {} --metric {} --table {} --force`",
        file.header.puzzle,
        file.header.metric,
        file.path.display()
    )
}

/// The caller's progress; pauses after one level for tests (see
/// [`RunSettings::pause_after_level`]).
struct Pausing<'a> {
    inner: &'a dyn Progress,
    after: Option<u32>,
    stop: &'a AtomicBool,
}

impl Progress for Pausing<'_> {
    fn level_started(&self, distance: u32, frontier: u64, direction: Direction) {
        self.inner.level_started(distance, frontier, direction)
    }
    fn found(&self, n: u64) {
        self.inner.found(n)
    }
    fn level_done(&self, distance: u32, boards: u64, seconds: f64) {
        self.inner.level_done(distance, boards, seconds);
        if self.after == Some(distance) {
            let t0 = Instant::now();
            while !self.stop.load(Ordering::Relaxed) && t0.elapsed() < Duration::from_secs(60) {
                std::thread::sleep(Duration::from_millis(5));
            }
        }
    }
    fn should_stop(&self) -> bool {
        self.inner.should_stop()
    }
    fn task_done(&self) {
        self.inner.task_done()
    }
}
