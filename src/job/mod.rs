//! Long searches kept in table files: start one, run it (stopping at a durable point when
//! asked), resume it, and read the result back, without the command line. One [`Job`]
//! serves one process and the processes of an MPI job alike ([`Processes`]): alone it keeps
//! the table in one file; under mpirun each process keeps its part and process 0 the record
//! ([`parts`]). Every step that may fail is agreed ([`agree`]): the job goes on only if it
//! went well on every process, so no process waits forever in a collective for one that gave
//! up.
//!
//! A job's files are checked against each other before anything is written. The table's
//! header must name a puzzle this build makes and the ranking this build computes. On a
//! resume the checkpoint (the one record of the progress, see [`crate::checkpoint`]) must
//! agree with the header (puzzle, metric, board count, ranking, kind of search) and with the
//! marks (recounted from the tables of all processes), its antipodes must be boards at its
//! last distance, and its checksum must hold. A disagreement is refused, naming the file and
//! how it disagrees; nothing is ever repaired by starting over: that takes [`Job::start`]
//! with `force`, which checks the disk like any start. A finished table goes through the
//! checks of [`open_table`], as for every reader.
//!
//! A level counts as done only when every process has made it durable: all flush their
//! tables, then process 0 replaces the record (see [`crate::checkpoint`]). Marks are
//! idempotent: the boards of an unfinished level found before a stop or a crash are boards
//! of that level, so a resume counts them and searches the level again. A process that dies
//! (killed, out of memory) makes `mpirun` end the others; the finished levels are on disk
//! (each is flushed before it is recorded) and a resume with the same number of
//! processes continues from them.
//!
//! ```
//! # use std::sync::{Arc, atomic::AtomicBool};
//! use twirl::job::{Job, Resumed, SessionEnd, SessionSettings};
//! use twirl::puzzle::Puzzle;
//! let dir = tempfile::tempdir().unwrap();
//! let path = dir.path().join("t.tbl");
//! let job = Job::start(&path, &Puzzle::parse("nrp:2x3:2", None).unwrap(), false, false).unwrap();
//! let stop = Arc::new(AtomicBool::new(false));
//! let settings = SessionSettings::new(1);
//! let SessionEnd::Finished(done) = job.run(&settings, &twirl::bfs::NoProgress, stop).unwrap()
//! else { panic!("not stopped") };
//! assert_eq!(done.outcome.histogram, vec![1, 4, 10, 22, 42, 33, 7, 1]);
//! let Ok(Resumed::Complete(again)) = Job::resume(&path, None) else { panic!() };
//! assert_eq!(again.outcome.histogram, done.outcome.histogram);
//! ```

pub mod join;
pub mod outputs;
pub mod parts;
pub(crate) mod resume;
pub mod verified;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::bfs::processes::agree;
use crate::bfs::{self, Config, Direction, Outcome, Processes, Progress, Single};
use crate::checkpoint::{Checkpoint, FileJournal, checkpoint_path};
use crate::durable::{TempPath, free_disk, with_suffix};
use crate::puzzle::Puzzle;
use crate::puzzle::goals::{Goals, GoalsRecord};
use crate::rank::{StateSpace, SymmetryMode};
use crate::report::{Findings, Report};
use crate::symmetry::antipodes::Listing;
use crate::table::format::{HEADER_BYTES, Header};
use crate::table::{TableFile, table_bytes, unique_bytes};
use crate::{Error, Result};

pub use verified::{VerifiedTable, open_table, open_table_as};

/// How a job runs; none of it is recorded in the table.
#[derive(Clone, Debug)]
pub struct SessionSettings {
    /// Worker threads.
    pub threads: usize,
    /// Move runs of ranks at once (see [`Config::runs`]).
    pub runs: bool,
    /// Time between checkpoints inside a long distance.
    pub checkpoint_interval: Duration,
    /// Tests only: after finishing this distance, wait (up to a minute) until stopped, so a
    /// test can interrupt a session at a known point.
    pub pause_after_level: Option<u32>,
    /// Under several processes, backward steps read a copy of the frontier (see
    /// [`Config::frontier_copy`]).
    pub frontier_copy: bool,
    /// At most this many antipodes listed in the report (`bfs --antipodes N`).
    pub antipodes: usize,
}

impl SessionSettings {
    /// `threads` workers, runs on, a checkpoint every five minutes.
    pub fn new(threads: usize) -> SessionSettings {
        SessionSettings {
            threads,
            runs: true,
            checkpoint_interval: Duration::from_secs(300),
            pause_after_level: None,
            frontier_copy: true,
            antipodes: bfs::SAMPLE,
        }
    }
}

/// A search in table files (one per process), ready to run.
pub struct Job<'p> {
    processes: &'p dyn Processes,
    /// This process's table file (the whole table, or its part).
    file: TableFile,
    puzzle: Puzzle,
    space: StateSpace,
    /// The job's record (kept by process 0; the others hold the same values).
    record: Checkpoint,
    ck_path: PathBuf,
    resume: Option<Resume>,
    /// The ranks of distance 0 of a new search: the solved board's, or the goals'.
    starts: Vec<u64>,
}

/// Where a search continues: the finished levels, and the boards the unfinished one had
/// already marked on all processes together.
struct Resume {
    outcome: Outcome,
    partial: u64,
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
pub enum Resumed<'p> {
    /// An unfinished search, checked (on every process) and ready to continue.
    Continue(Box<Job<'p>>),
    /// The search had finished; the table passed [`open_table`].
    Complete(Box<Finished>),
}

/// How [`Job::run`] ended.
pub enum SessionEnd {
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
    /// Wall-clock seconds of the search over every session.
    pub elapsed_seconds: f64,
    /// Whether the table was already complete (nothing was searched now).
    pub already_complete: bool,
    /// The goals searched from (`bfs --goals`), as the table records them; `None`: solved.
    pub goals: Option<GoalsRecord>,
    /// The antipodes to list (read from the table where it is needed) and the classes.
    pub findings: Findings,
}

impl Finished {
    /// The report of the search (`threads` as run).
    pub fn report(&self, threads: usize) -> Report {
        let n = self.space.n_states();
        Report::new(
            &self.puzzle,
            &self.space,
            &self.outcome,
            &self.findings,
            self.elapsed_seconds,
            threads,
            table_bytes(n),
        )
    }
}

impl Job<'static> {
    /// Starts a new search of `puzzle` in a table file at `path`, by this process alone. An
    /// existing file is replaced only with `force`; the disk must have room for the whole
    /// table.
    pub fn start(path: &Path, puzzle: &Puzzle, unique: bool, force: bool) -> Result<Job<'static>> {
        Job::start_in(&Single, path, puzzle, SymmetryMode::Off, None, unique, force)
    }

    /// Opens the search in the table file at `path` to continue it by this process alone,
    /// after checking the table and its checkpoint against each other (see the module
    /// docs); `expected`, when given, is the puzzle the caller means.
    pub fn resume(path: &Path, expected: Option<&Puzzle>) -> Result<Resumed<'static>> {
        Job::resume_in(&Single, path, expected, None, bfs::SAMPLE)
    }

    /// [`Job::resume`] of a table of `puzzle`, whatever file its header names the puzzle by:
    /// the ranking record (holding a definition's digest) must be `puzzle`'s.
    pub fn resume_as(path: &Path, puzzle: &Puzzle) -> Result<Resumed<'static>> {
        Job::resume_of(&Single, path, Some(resume::Expected::Known(puzzle)), None, bfs::SAMPLE)
    }
}

impl<'p> Job<'p> {
    /// Starts a new search of `puzzle` over `processes`, ranking classes of boards under the
    /// puzzle's symmetries as `symmetry` asks (see [`StateSpace::for_search`]), from the
    /// solved board or from `goals` (see [`Goals::space_for_search`]; the table records
    /// them): alone in a table file at `path`, under several processes each in its part
    /// beside it. Existing files are replaced only with `force`; a whole table at `path`
    /// never is by a job of several (its record would be lost). Collective.
    pub fn start_in(
        processes: &'p dyn Processes,
        path: &Path,
        puzzle: &Puzzle,
        symmetry: SymmetryMode,
        goals: Option<&Goals>,
        unique: bool,
        force: bool,
    ) -> Result<Job<'p>> {
        let (root, count) = (processes.index() == 0, processes.count());
        let searched = Goals::space_for_search(goals, puzzle, symmetry, unique);
        let space = agree(processes, searched)?;
        let starts = agree(processes, Goals::starts(goals, puzzle, &space))?;
        let part = parts::my_part(&space, processes);
        let my_path = parts::file_of(path, processes);
        let ck_path = checkpoint_path(path);
        let checked = (|| {
            if root {
                parts::refuse_whole_table(path, count)?;
            }
            check_replaceable(&my_path, force)?;
            if root {
                check_replaceable(&ck_path, force).map_err(|e| match e {
                    Error::Refused { path, .. } => Error::Refused {
                        path,
                        reason: "holds the record of another search (use --force to start \
                                 over)"
                            .into(),
                    },
                    other => other,
                })?;
            }
            let ranks = part.map_or(space.n_states(), |p| p.ranks);
            let bytes =
                HEADER_BYTES + table_bytes(ranks) + if unique { unique_bytes(ranks) } else { 0 };
            // The new table is made beside the old one and renamed over it when ready, so
            // the disk must hold both for a moment.
            if let Some(free) = free_disk(&my_path).filter(|&f| bytes > f) {
                let what = match part {
                    Some(p) => format!("part {} of the table", p.index),
                    None => "the table".to_string(),
                };
                return Err(Error::TooLarge(format!(
                    "{what} needs {bytes} bytes but the disk holding {} has {free} free",
                    my_path.display()
                )));
            }
            Ok(())
        })();
        agree(processes, checked)?;
        // Made as `FILE.partial` (removed on failure) and renamed into place with its
        // header: a process killed meanwhile leaves no half-made table under the name.
        let created = (|| {
            let tmp = TempPath::new(with_suffix(&my_path, ".partial"));
            let ranking = space.ranking_record();
            let made = match part {
                Some(p) => TableFile::create_part(tmp.path(), puzzle, ranking, p, unique),
                None => TableFile::create(tmp.path(), puzzle, ranking, unique),
            };
            let mut file = match made {
                Ok(f) => f,
                // Another process is making this table under the same temporary name: the
                // file is its own, not ours to remove.
                Err(e) if crate::table::file::is_locked(&e) => {
                    tmp.disown();
                    return Err(e);
                }
                Err(e) => return Err(e),
            };
            if let Some(g) = goals {
                file.header.goals = Some(g.record.clone());
                file.write_header()?;
            }
            tmp.persist(&my_path)?;
            file.path = my_path.clone();
            Ok(file)
        })();
        let file = agree(processes, created)?;
        let mut record = Checkpoint::new(&file.header);
        record.parts = parts::recorded_parts(count);
        agree(processes, if root { record.write(&ck_path) } else { Ok(()) })?;
        let puzzle = puzzle.clone();
        Ok(Job { processes, file, puzzle, space, record, ck_path, resume: None, starts })
    }

    /// The puzzle searched.
    pub fn puzzle(&self) -> &Puzzle {
        &self.puzzle
    }

    /// Its ranking.
    pub fn space(&self) -> &StateSpace {
        &self.space
    }

    /// The goals searched from, as the table records them (`None`: from solved).
    pub fn goals(&self) -> Option<&GoalsRecord> {
        self.file.header.goals.as_ref()
    }

    /// Whether the search counts unique solutions.
    pub fn unique(&self) -> bool {
        self.file.header.unique_bytes != 0
    }

    /// The finished distances a resumed job starts from (`None` for a new job).
    pub fn resumed_from(&self) -> Option<&Outcome> {
        self.resume.as_ref().map(|r| &r.outcome)
    }

    /// Boards of the unfinished distance a resumed job found before it stopped, over all
    /// processes (searched again, counted once).
    pub fn resumed_partial(&self) -> u64 {
        self.resume.as_ref().map_or(0, |r| r.partial)
    }

    /// Runs the search until it completes or a process is asked to stop (`stop`, set by a
    /// signal handler): then all stop at a durable point, and the job can be resumed later.
    /// Collective.
    pub fn run(
        mut self,
        settings: &SessionSettings,
        progress: &dyn Progress,
        stop: Arc<AtomicBool>,
    ) -> Result<SessionEnd> {
        let processes = self.processes;
        let mut journal = FileJournal::new(
            self.ck_path.clone(),
            self.record.clone(),
            settings.checkpoint_interval,
        );
        if processes.count() > 1 {
            journal = journal.of_process(processes.index());
        }
        // Tests stop a search at a known point: one process after a distance, several inside
        // the next one after its first round (so part of it is marked).
        let pause = settings.pause_after_level;
        let several = processes.count() > 1;
        let config = Config {
            runs: settings.runs,
            unique: self.unique(),
            stop: Some(stop.clone()),
            pause_in_level: pause.filter(|_| several),
            frontier_copy: settings.frontier_copy,
            ..Config::new(settings.threads)
        };
        let pausing = Pausing { inner: progress, after: pause.filter(|_| !several), stop: &stop };
        let resume = self.resume.take().map(|r| r.outcome);
        let (table, starts) = (&self.file.table, &self.starts[..]);
        let outcome = bfs::run_in(
            &self.space,
            starts,
            table,
            &config,
            &pausing,
            &journal,
            resume,
            processes,
        )?;
        if !outcome.complete {
            journal.save_under_way(table, processes)?;
            return Ok(SessionEnd::Stopped { levels_done: outcome.histogram.len() });
        }
        if outcome.states() != self.space.n_reachable() {
            return Err(Error::BadTable {
                path: self.ck_path.clone(),
                reason: format!(
                    "the search reached {} of {} boards (the tables or this twirl are wrong)",
                    outcome.states(),
                    self.space.n_reachable()
                ),
            });
        }
        let elapsed_seconds = journal.elapsed_seconds();
        agree(processes, self.file.finish(&outcome, elapsed_seconds))?;
        // Every table is sealed: the record has nothing left to say.
        let removed = match processes.index() == 0 {
            true => std::fs::remove_file(&self.ck_path).map_err(|e| Error::io(&self.ck_path, e)),
            false => Ok(()),
        };
        agree(processes, removed)?;
        let from_goals = self.file.header.goals.is_some();
        let listing = Listing { at_most: settings.antipodes, from_goals };
        let table = &self.file.table;
        let findings = Findings::of_search(
            &self.puzzle,
            &self.space,
            &outcome,
            table,
            processes,
            listing,
            true,
        )?;
        Ok(SessionEnd::Finished(Box::new(Finished {
            puzzle: self.puzzle,
            space: self.space,
            outcome,
            elapsed_seconds,
            already_complete: false,
            findings,
            goals: self.file.header.goals.clone(),
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
        last_level: None,
        unique_histogram: h.unique_histogram.clone(),
        complete: true,
        boards: space.entry_classes().map(|_| h.boards.clone()),
    }
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
            let base = base.unwrap_or("TABLE");
            let join = match t.header.complete {
                true => format!(", or make one table of its parts with `twirl join {base}`"),
                false => String::new(),
            };
            format!(
                "holds part {} of {} of {state} search of {} by an MPI job; continue or report \
                 it with `mpirun -np {} twirl resume {base}`{join}",
                p.index,
                p.count,
                t.header.named_puzzle(),
                p.count
            )
        }
        Ok(t) if !t.header.complete => format!(
            "holds an unfinished search of {}; continue it with `twirl resume {}`",
            t.header.named_puzzle(),
            path.display()
        ),
        Ok(t) => format!("holds a finished table of {}", t.header.named_puzzle()),
        Err(_) => "exists".to_string(),
    }
}

/// How to start a search over whose table cannot be resumed.
pub(super) fn start_again_hint(file: &TableFile) -> String {
    format!(
        "; start it again with `twirl bfs {} --metric {} --table {} --force`",
        file.header.named_puzzle(),
        file.header.metric,
        file.path.display()
    )
}

/// The caller's progress; pauses after one level for tests (see
/// [`SessionSettings::pause_after_level`]).
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
    fn level_traffic(&self, distance: u32, traffic: &bfs::Traffic) {
        self.inner.level_traffic(distance, traffic)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A search started while another process makes the same table: refused, and the other's
    /// `FILE.partial` is left to it (it was removed, and the other's rename then failed).
    #[test]
    fn a_start_refused_by_a_lock_leaves_the_others_partial_table() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.tbl");
        let partial = with_suffix(&path, ".partial");
        let theirs = crate::table::Storage::create_file(&partial, 64, false).unwrap();
        let puzzle = Puzzle::parse("nrp:2x3:2", None).unwrap();
        let err = Job::start(&path, &puzzle, false, false).err().expect("locked");
        assert!(crate::table::file::is_locked(&err), "{err}");
        assert!(partial.exists(), "the other process's table was removed");
        drop(theirs);
        // Once it is gone (a stale partial), a start makes the table.
        Job::start(&path, &puzzle, false, false).unwrap();
        assert!(path.exists() && !partial.exists());
    }
}
