//! A search across the processes of an MPI job kept in table files: process `p` of `N`
//! keeps its units of ranks in `FILE.part-p-of-N` (a table file whose header names the ranks
//! it holds, see [`Part`]), and process 0 keeps the job's record in `FILE.checkpoint` (a
//! [`Checkpoint`] with `parts: N`).
//!
//! A level counts as done only when every process has made it durable. After each level all
//! processes flush their tables and agree that they did; then process 0 replaces the record;
//! then each process rewrites its own header. The record may so lead a part's header by one
//! level, never lag it, and a resume checks each part against the record as a resume of one
//! file does ([`crate::job`]). Inside a long level process 0 calls for a checkpoint every
//! interval: all flush, then the record notes the level under way. The record is kept by
//! the same [`FileJournal`] as a search in one file, on every process.
//!
//! Marks are idempotent: the boards of an unfinished level found before a stop or a crash
//! are boards of that level. A resume counts them over all processes and searches the level
//! again. A process that dies (killed, out of memory) makes `mpirun` end the others; the
//! finished levels are on disk (the page cache outlives a killed process) and a resume with
//! the same number of processes continues from them.
//!
//! Every step that may fail is agreed ([`agree`]): the job goes on only if it went well on
//! every process, so no process waits forever in a collective for one that gave up.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use super::{Processes, agree};
use crate::bfs::processes::gather_table;
use crate::bfs::{self, Config, Outcome, Progress, SearchSpace, marks_beyond};
use crate::checkpoint::{Checkpoint, FileJournal, checkpoint_path};
use crate::durable::{TempPath, free_disk, with_suffix};
use crate::job::resume::{check_record_lists, check_requested};
use crate::job::verified::{check_antipodes, puzzle_and_space};
use crate::job::{Finished, Requested, RunEnd, RunSettings, check_replaceable, finished_outcome};
use crate::puzzle::{Board, Puzzle};
use crate::rank::{StateSpace, SymmetryMode};
use crate::symmetry::antipodes::{reads_the_table, smallest_antipodes_over};
use crate::table::format::{HEADER_BYTES, Header, Part};
use crate::table::{DistanceTable, TableFile, table_bytes, unique_bytes};
use crate::{Error, Result};

/// The table file of process `index` of `count` for the job whose table is named `table`.
pub fn part_path(table: &Path, index: usize, count: usize) -> PathBuf {
    with_suffix(table, &format!(".part-{index}-of-{count}"))
}

/// This process's share of a search in table files, ready to run.
pub struct PartJob {
    file: TableFile,
    puzzle: Puzzle,
    space: StateSpace,
    /// The job's record (kept by process 0; the others hold the same values).
    record: Checkpoint,
    ck_path: PathBuf,
    resume: Option<Resume>,
}

/// Where a search continues: the finished levels, and the boards the unfinished one had
/// already marked on all processes together.
struct Resume {
    outcome: Outcome,
    partial: u64,
}

/// What [`PartJob::resume`] found.
pub enum PartResumed {
    /// An unfinished search, checked on every process and ready to continue.
    Continue(Box<PartJob>),
    /// The search had finished; every part passed its checksum.
    Complete(Box<Finished>),
}

/// This process's part of the search's ranks.
fn my_part(space: &StateSpace, processes: &dyn Processes) -> Part {
    let (index, count) = (processes.index(), processes.count());
    let deal = space.deal(count);
    Part {
        index: index as u32,
        count: count as u32,
        first: deal.first(index),
        ranks: deal.len(index),
        unit: deal.unit(),
    }
}

impl PartJob {
    /// Starts a new search of `puzzle` over the processes of `world`, each in its own table
    /// file beside `path`. Existing parts and an existing record are replaced only with
    /// `force`; a whole table at `path` never is (its record would be lost).
    pub fn start(
        processes: &dyn Processes,
        path: &Path,
        puzzle: &Puzzle,
        symmetry: SymmetryMode,
        unique: bool,
        force: bool,
    ) -> Result<PartJob> {
        let root = processes.index() == 0;
        let space = agree(processes, StateSpace::for_search(puzzle, symmetry, unique))?;
        let part = my_part(&space, processes);
        let my_path = part_path(path, part.index as usize, part.count as usize);
        let ck_path = checkpoint_path(path);
        let checked = (|| {
            if root {
                refuse_whole_table(path, part.count)?;
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
            check_replaceable(&my_path, force)?;
            let bytes = HEADER_BYTES
                + table_bytes(part.ranks)
                + if unique { unique_bytes(part.ranks) } else { 0 };
            if let Some(free) = free_disk(&my_path).filter(|&f| bytes > f) {
                return Err(Error::TooLarge(format!(
                    "part {} of the table needs {bytes} bytes but the disk holding {} has \
                     {free} free",
                    part.index,
                    my_path.display()
                )));
            }
            Ok(())
        })();
        agree(processes, checked)?;
        // Made as `PART.partial` and renamed into place with its header, as a whole table.
        let created = (|| {
            let tmp = TempPath::new(with_suffix(&my_path, ".partial"));
            let mut file =
                TableFile::create_part(tmp.path(), puzzle, space.ranking_record(), part, unique)?;
            tmp.persist(&my_path)?;
            file.path = my_path.clone();
            Ok(file)
        })();
        let file = agree(processes, created)?;
        let mut record = Checkpoint::new(&file.header);
        record.parts = part.count;
        let written = if root { record.write(&ck_path) } else { Ok(()) };
        agree(processes, written)?;
        Ok(PartJob { file, puzzle: puzzle.clone(), space, record, ck_path, resume: None })
    }

    /// Opens this process's part of the search at `path` to continue it, after checking
    /// every part against the job's record and the marks of all parts against its
    /// histogram; `expected`, when given, is the puzzle the caller means.
    pub fn resume(
        processes: &dyn Processes,
        path: &Path,
        expected: Option<&Puzzle>,
        requested: Option<Requested>,
    ) -> Result<PartResumed> {
        let (me, count) = (processes.index(), processes.count());
        let ck_path = checkpoint_path(path);
        let read = match (me, ck_path.try_exists()) {
            (0, Ok(true)) => Checkpoint::read(&ck_path).map(Some),
            _ => Ok(None),
        };
        let record = broadcast_record(processes, agree(processes, read)?, &ck_path)?;
        if let Some(r) = record.as_ref().filter(|r| r.parts as usize != count) {
            let how = match r.parts {
                0 => format!("`twirl resume {}` without mpirun", path.display()),
                n => format!("`mpirun -np {n} twirl resume {}`", path.display()),
            };
            let found = match r.parts {
                0 => "a search in one table file".to_string(),
                n => format!("a search split over {n} processes"),
            };
            return fail_from_root(
                processes,
                Error::Refused {
                    path: ck_path.clone(),
                    reason: format!(
                        "expected the record of a search over {count} processes, found \
                         {found}: continue it with {how}"
                    ),
                },
            );
        }
        let my_path = part_path(path, me, count);
        let opened = (|| {
            if !my_path.exists() {
                return Err(Error::BadTable {
                    path: my_path.clone(),
                    reason: format!(
                        "no such table file (process {me} of {count} reads its own part: run \
                         with the number of processes that started the search, each where \
                         its part's disk is mounted)"
                    ),
                });
            }
            let file = TableFile::open(&my_path, true)?;
            if let Some(p) = expected {
                file.check_puzzle(p)?;
            }
            if let Some(r) = requested {
                check_requested(&file, r)?;
            }
            let (puzzle, space) = puzzle_and_space(&file)?;
            let part = my_part(&space, processes);
            if file.header.part != Some(part) {
                return Err(Error::Refused {
                    path: my_path.clone(),
                    reason: format!(
                        "expected part {me} of {count} holding {}, found {}",
                        part.describe(),
                        describe_part(&file.header)
                    ),
                });
            }
            Ok((file, puzzle, space))
        })();
        let (file, puzzle, space) = agree(processes, opened)?;
        let complete = processes.all(file.header.complete);
        if complete {
            return finished_parts(processes, file, puzzle, space, record.as_ref(), &ck_path);
        }
        if processes.any(file.header.complete) {
            let e = Error::Refused {
                path: ck_path,
                reason: "the parts disagree: some record a finished search, others not".into(),
            };
            return fail_from_root(processes, e);
        }
        let Some(record) = record else {
            let e = Error::BadTable {
                path: path.into(),
                reason: format!(
                    "cannot be resumed: its checkpoint {} is missing",
                    ck_path.display()
                ),
            };
            return fail_from_root(processes, e);
        };
        let reachable = space.n_reachable();
        let checked = check_record_lists(&record, &ck_path, &file, reachable).and_then(|()| {
            // Each part checks the antipodes among its own ranks.
            let deal = space.deal(count);
            let mine: Vec<u64> = record
                .antipodes
                .iter()
                .map(|&r| deal.locate(r))
                .filter(|&(owner, _)| owner == me)
                .map(|(_, i)| i)
                .collect();
            check_antipodes(&file, &mine, &record.histogram, &ck_path)
        });
        agree(processes, checked)?;
        let counts = processes.sum_each(file.table.count_marks());
        let Some(partial) = marks_beyond(&counts, &record.histogram) else {
            let e = Error::BadTable {
                path: path.into(),
                reason: format!(
                    "the marks of its parts ({:?} boards per mark over all processes) do not \
                     match the checkpoint's histogram {:?}",
                    &counts[1..],
                    record.histogram
                ),
            };
            return fail_from_root(processes, e);
        };
        let outcome = record.resume();
        Ok(PartResumed::Continue(Box::new(PartJob {
            file,
            puzzle,
            space,
            record,
            ck_path,
            resume: Some(Resume { outcome, partial }),
        })))
    }

    /// The puzzle searched.
    pub fn puzzle(&self) -> &Puzzle {
        &self.puzzle
    }

    /// Its ranking.
    pub fn space(&self) -> &StateSpace {
        &self.space
    }

    /// The finished distances a resumed job starts from (`None` for a new job).
    pub fn resumed_from(&self) -> Option<&Outcome> {
        self.resume.as_ref().map(|r| &r.outcome)
    }

    /// Whether the search counts unique solutions.
    pub fn unique(&self) -> bool {
        self.file.header.unique_bytes != 0
    }

    /// Boards of the unfinished distance a resumed job found before it stopped, over all
    /// processes (searched again, counted once).
    pub fn resumed_partial(&self) -> u64 {
        self.resume.as_ref().map_or(0, |r| r.partial)
    }

    /// Runs the search with the other processes until it completes or a process is asked
    /// to stop (`stop`, set by a signal handler): then all stop at a durable point, and the
    /// job can be resumed later.
    pub fn run(
        mut self,
        processes: &dyn Processes,
        settings: &RunSettings,
        progress: &dyn Progress,
        stop: Arc<AtomicBool>,
    ) -> Result<RunEnd> {
        let journal = FileJournal::new(
            self.ck_path.clone(),
            self.record.clone(),
            settings.checkpoint_interval,
            self.file.path.clone(),
            self.file.header.clone(),
        )
        .of_process(processes.index());
        let config = Config {
            runs: settings.runs,
            unique: self.file.header.unique_bytes != 0,
            stop: Some(stop),
            pause_in_level: settings.pause_after_level,
            frontier_copy: settings.frontier_copy,
            ..Config::new(settings.threads)
        };
        let start = self.space.rank_board(&self.puzzle.solved())?;
        let resume = self.resume.take().map(|r| r.outcome);
        let table = &self.file.table;
        let outcome =
            bfs::run_in(&self.space, start, table, &config, progress, &journal, resume, processes)?;
        if !outcome.complete {
            journal.save_under_way(&self.file.table, processes)?;
            return Ok(RunEnd::Stopped { levels_done: outcome.histogram.len() });
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
        // Every part is sealed: the record has nothing left to say.
        let removed = match processes.index() == 0 {
            true => std::fs::remove_file(&self.ck_path).map_err(|e| Error::io(&self.ck_path, e)),
            false => Ok(()),
        };
        agree(processes, removed)?;
        let antipode_boards =
            antipodes_of_parts(&self.puzzle, &self.space, &outcome, &self.file.table, processes)?;
        Ok(RunEnd::Finished(Box::new(Finished {
            puzzle: self.puzzle,
            space: self.space,
            outcome,
            elapsed_seconds,
            already_complete: false,
            antipode_boards,
        })))
    }
}

/// Refuses to start a job beside a whole table: the job's record would replace its own.
fn refuse_whole_table(path: &Path, count: u32) -> Result<()> {
    if std::fs::symlink_metadata(path).is_ok() {
        return Err(Error::Refused {
            path: path.into(),
            reason: format!(
                "expected a free table name, found a file: a job of {count} processes keeps \
                 its parts beside it and its record in {}, which would replace that file's \
                 record; choose another name",
                checkpoint_path(path).display()
            ),
        });
    }
    Ok(())
}

/// What a table file's header says it holds, for refusals.
fn describe_part(h: &Header) -> String {
    match h.part {
        Some(p) => format!(
            "part {} of {} holding {} of {} {}",
            p.index,
            p.count,
            p.describe(),
            h.puzzle,
            h.metric
        ),
        None => format!("a whole table of {} {}", h.puzzle, h.metric),
    }
}

/// A finished search in parts: every part sealed, all recording the same result.
fn finished_parts(
    processes: &dyn Processes,
    file: TableFile,
    puzzle: Puzzle,
    space: StateSpace,
    record: Option<&Checkpoint>,
    ck_path: &Path,
) -> Result<PartResumed> {
    agree(processes, file.verify())?;
    let h = &file.header;
    let said = serde_json::to_vec(&(&h.histogram, &h.boards, &h.antipodes)).expect("serializes");
    let hash = xxhash_rust::xxh3::xxh3_64(&said);
    let root_hash = processes.broadcast(hash.to_le_bytes().to_vec());
    if !processes.all(root_hash[..] == hash.to_le_bytes()[..]) {
        let e = Error::Refused {
            path: file.path.clone(),
            reason: "the parts of the finished search record different histograms".into(),
        };
        return fail_from_root(processes, e);
    }
    if let Some(r) = record {
        // The search finished after writing this record: stale once it agrees.
        let stale = if processes.index() != 0 {
            Ok(())
        } else if r.histogram != h.histogram {
            Err(Error::Refused {
                path: ck_path.into(),
                reason: "the checkpoint disagrees with the finished parts' histogram".into(),
            })
        } else {
            std::fs::remove_file(ck_path).map_err(|e| Error::io(ck_path, e))
        };
        agree(processes, stale)?;
    }
    let outcome = finished_outcome(h, &space);
    let elapsed_seconds = h.elapsed_seconds;
    let antipode_boards = antipodes_of_parts(&puzzle, &space, &outcome, &file.table, processes)?;
    Ok(PartResumed::Complete(Box::new(Finished {
        puzzle,
        space,
        outcome,
        elapsed_seconds,
        already_complete: true,
        antipode_boards,
    })))
}

/// The antipodes a finished search in parts lists: read from the whole table where
/// [`reads_the_table`] (every process gathers it), else `None` (the outcome's own, which
/// are then all of them or the boards of the kept classes). Collective.
fn antipodes_of_parts(
    puzzle: &Puzzle,
    space: &StateSpace,
    outcome: &Outcome,
    table: &DistanceTable,
    processes: &dyn Processes,
) -> Result<Option<Vec<Board>>> {
    if !reads_the_table(space, outcome) {
        return Ok(None);
    }
    let deal = space.deal(processes.count());
    let whole = agree(processes, gather_table(table, &deal, processes))?;
    smallest_antipodes_over(puzzle, space, outcome, &whole, &deal, processes).map(Some)
}

/// Fails on every process: process 0 with `e` (which every process found alike), the others
/// naming process 0, so the message is printed once.
fn fail_from_root<T>(processes: &dyn Processes, e: Error) -> Result<T> {
    let local = if processes.index() == 0 { Err(e) } else { Ok(()) };
    match agree(processes, local) {
        Err(e) => Err(e),
        Ok(()) => Err(Error::OtherProcess { process: 0, processes: processes.count() }),
    }
}

/// Process 0's record, sent to all (whose disks may not hold it).
fn broadcast_record(
    processes: &dyn Processes,
    record: Option<Checkpoint>,
    ck_path: &Path,
) -> Result<Option<Checkpoint>> {
    let bytes = match &record {
        Some(r) => serde_json::to_vec(r).expect("a checkpoint serializes"),
        None => Vec::new(),
    };
    let bytes = processes.broadcast(bytes);
    if bytes.is_empty() {
        return Ok(None);
    }
    Checkpoint::parse(&bytes, ck_path).map(Some)
}
