//! Resuming a job: the checks a resume makes before continuing a search (the checkpoint
//! against the table's header and against the marks of every process's table), or before
//! reporting a finished one.

use std::path::Path;

use super::verified::{
    check_antipodes, check_boards, check_histogram, check_mark_counts, puzzle_and_space,
    short_list, verify_finished,
};
use super::{Finished, Job, Requested, Resume, Resumed, finished_outcome, parts};
use crate::bfs::processes::{agree, fail_from_root};
use crate::bfs::{Processes, marks_beyond};
use crate::checkpoint::{Checkpoint, checkpoint_path};
use crate::puzzle::Puzzle;
use crate::rank::record::CLASSES;
use crate::rank::{StateSpace, SymmetryMode};
use crate::report::Findings;
use crate::symmetry::antipodes::Listing;
use crate::table::TableFile;
use crate::{Error, Result};

/// The puzzle a resumed table must be of.
#[derive(Clone, Copy)]
pub(crate) enum Expected<'a> {
    /// The puzzle the table's header names, checked by name.
    Named(&'a Puzzle),
    /// This puzzle, whatever file the header names it by: its ranking record decides.
    Known(&'a Puzzle),
}

impl<'p> Job<'p> {
    /// Opens the search kept at `path` to continue it over `processes` (as many as started
    /// it), after checking every table file against the job's record and the marks of all
    /// of them against its histogram; `expected`, when given, is the puzzle the caller
    /// means, and a table that does not hold what `requested` asks (see [`Requested`]) is
    /// refused before anything is written. A finished search lists up to `antipodes`
    /// antipodes. Collective.
    pub fn resume_in(
        processes: &'p dyn Processes,
        path: &Path,
        expected: Option<&Puzzle>,
        requested: Option<Requested>,
        antipodes: usize,
    ) -> Result<Resumed<'p>> {
        Job::resume_of(processes, path, expected.map(Expected::Named), requested, antipodes)
    }

    /// [`Job::resume_in`], the puzzle expected as `expected` says.
    pub(crate) fn resume_of(
        processes: &'p dyn Processes,
        path: &Path,
        expected: Option<Expected>,
        requested: Option<Requested>,
        antipodes: usize,
    ) -> Result<Resumed<'p>> {
        let count = processes.count();
        let ck_path = checkpoint_path(path);
        let record = parts::read_record(processes, &ck_path)?;
        if let Some(r) = record.as_ref().filter(|r| r.parts != parts::recorded_parts(count)) {
            return fail_from_root(processes, parts::other_count(r.parts, count, path, &ck_path));
        }
        let my_path = parts::file_of(path, processes);
        let opened = (|| {
            if !my_path.exists() {
                return Err(parts::missing_file(path, processes));
            }
            let file = TableFile::open(&my_path, true)?;
            if let Some(Expected::Named(p)) = expected {
                file.check_puzzle(p)?;
            }
            if let Some(r) = requested {
                check_requested(&file, r)?;
            }
            let known = match expected {
                Some(Expected::Known(p)) => Some(p),
                _ => None,
            };
            let (puzzle, space) = puzzle_and_space(&file, known)?;
            parts::check_part(&file, &space, processes)?;
            Ok((file, puzzle, space))
        })();
        let (file, puzzle, space) = agree(processes, opened)?;
        if processes.all(file.header.complete) {
            let record = record.as_ref();
            let finished = finished(processes, file, puzzle, space, record, &ck_path, antipodes)?;
            return Ok(Resumed::Complete(Box::new(finished)));
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
                    "cannot be resumed: its checkpoint {} is missing{}",
                    ck_path.display(),
                    super::start_again_hint(&file)
                ),
            };
            return fail_from_root(processes, e);
        };
        let checked = unfinished_header(&file)
            .and_then(|()| check_record_lists(&record, &ck_path, &file, space.n_reachable()))
            .and_then(|()| check_own_antipodes(&file, &space, &record, &ck_path, processes));
        agree(processes, checked)?;
        let counts = processes.sum_each(file.table.count_marks());
        let marked = check_mark_counts(&file.path, counts, &record.histogram, None);
        agree(processes, marked.map_err(|e| record_disagrees(e, &ck_path, &file)))?;
        // The boards of classes are checked against the marks of a whole table only (a
        // part's entries are not its table's indices).
        if count == 1 {
            check_boards(&file, &space, &record.histogram, &record.boards, false)?;
        }
        // Last, as for a table: the checks above say what disagrees, this that it was edited.
        agree(processes, record.check_sum(&ck_path))?;
        let partial = marks_beyond(&counts, &record.histogram).unwrap_or(0);
        let outcome = record.resume();
        Ok(Resumed::Continue(Box::new(Job {
            processes,
            file,
            puzzle,
            space,
            ck_path,
            record,
            resume: Some(Resume { outcome, partial }),
            // Distance 0 is in the table: a resume needs no starts.
            starts: Vec::new(),
        })))
    }
}

/// A finished search: every table verified and recording the same result, a record left
/// beside it checked and removed (stale), the antipodes listed. Collective.
fn finished(
    processes: &dyn Processes,
    file: TableFile,
    puzzle: Puzzle,
    space: StateSpace,
    record: Option<&Checkpoint>,
    ck_path: &Path,
    antipodes: usize,
) -> Result<Finished> {
    if !parts::same_result(processes, &file.header) {
        let e = Error::Refused {
            path: file.path.clone(),
            reason: "the parts of the finished search record different histograms".into(),
        };
        return fail_from_root(processes, e);
    }
    verify_finished(&file, &space, processes)?;
    if let Some(r) = record {
        // The search finished after writing this record: stale once it agrees.
        let stale = if processes.index() != 0 {
            Ok(())
        } else if let Err(e) = check_identity(r, ck_path, &file) {
            Err(e)
        } else if r.histogram != file.header.histogram {
            Err(histogram_disagrees(ck_path, &r.histogram, &file))
        } else {
            std::fs::remove_file(ck_path).map_err(|e| Error::io(ck_path, e))
        };
        agree(processes, stale)?;
    }
    let outcome = finished_outcome(&file.header, &space);
    let listing = Listing { at_most: antipodes, from_goals: file.header.goals.is_some() };
    let findings =
        Findings::of_search(&puzzle, &space, &outcome, &file.table, processes, listing, true)?;
    Ok(Finished {
        elapsed_seconds: file.header.elapsed_seconds,
        goals: file.header.goals.clone(),
        puzzle,
        space,
        outcome,
        already_complete: true,
        findings,
    })
}

/// The antipodes a record lists, each checked in the table that holds it (see
/// [`check_antipodes`]).
fn check_own_antipodes(
    file: &TableFile,
    space: &StateSpace,
    record: &Checkpoint,
    ck_path: &Path,
    processes: &dyn Processes,
) -> Result<()> {
    let here = |r: u64| parts::index_here(space, processes, r);
    check_antipodes(file, &record.antipodes, &record.histogram, ck_path, &here)
}

/// Refuses a table that does not hold what a resume's flags ask: a table of boards for
/// `--symmetry on`, one of classes for `--symmetry off`, unique-solution bits the flags do
/// not ask for or no bits for `--unique`. Reads the header only.
pub(crate) fn check_requested(file: &TableFile, asked: Requested) -> Result<()> {
    let h = &file.header;
    let classes = h.ranking.kind.starts_with(CLASSES);
    let holds = if classes {
        "one entry per class of boards under the puzzle's symmetries (made with --symmetry on \
         or auto)"
    } else {
        "one entry per board (made with --symmetry off or auto)"
    };
    let symmetry = match (asked.symmetry, classes) {
        (SymmetryMode::On, false) => Some("--symmetry on asks for one entry per class of boards"),
        (SymmetryMode::Off, true) => Some("--symmetry off asks for one entry per board"),
        _ => None,
    };
    let unique = h.unique_bytes != 0;
    let reason = if let Some(asks) = symmetry {
        format!(
            "the table holds {holds}, {asks}: resume it with --symmetry auto or without \
             --symmetry, or start a new search with --force"
        )
    } else if asked.unique && !unique {
        "the table has no unique-solution bits (made without --unique), --unique asks to count \
         unique solutions: resume it without --unique, or start a new search with --force"
            .to_string()
    } else if !asked.unique && unique {
        "the table counts unique solutions (made with --unique), the command does not ask for \
         them: resume it with --unique (or with `twirl resume`)"
            .to_string()
    } else {
        return Ok(());
    };
    Err(Error::Refused {
        path: file.path.clone(),
        reason: format!("{reason}; nothing was changed"),
    })
}

/// The checkpoint at `ck_path` names the table's puzzle, metric, board count, ranking and
/// kind of search, or it is refused.
pub(crate) fn check_identity(record: &Checkpoint, ck_path: &Path, file: &TableFile) -> Result<()> {
    let h = &file.header;
    let unique = h.unique_bytes != 0;
    let differs = if record.puzzle != h.puzzle || record.metric != h.metric {
        Some(format!(
            "it is for {} in {}, the table for {} in {}",
            record.puzzle, record.metric, h.puzzle, h.metric
        ))
    } else if record.n_states != h.n_states {
        Some(format!("it counts {} boards, the table {}", record.n_states, h.n_states))
    } else if record.ranking != h.ranking.fingerprint {
        Some(format!(
            "its ranking fingerprint is {}, the table's {}",
            record.ranking, h.ranking.fingerprint
        ))
    } else if record.unique != unique {
        Some(format!(
            "it {} unique solutions, the table {}",
            if record.unique { "counts" } else { "does not count" },
            if unique { "does" } else { "does not" }
        ))
    } else {
        None
    };
    match differs {
        None => Ok(()),
        Some(how) => Err(disagrees(ck_path, file, how)),
    }
}

fn disagrees(ck_path: &Path, file: &TableFile, how: String) -> Error {
    Error::Refused {
        path: ck_path.into(),
        reason: format!(
            "the checkpoint disagrees with the table {}: {how}; nothing was changed",
            file.path.display()
        ),
    }
}

/// Refuses the header of an unfinished table that records levels: the header takes the
/// histogram only when the search finishes (with `complete`), so such a header was edited.
/// Its levels could otherwise pass for the record's: a level's boards lowered by a few, in
/// the mark class of the level under way, read as boards of that level already found.
fn unfinished_header(file: &TableFile) -> Result<()> {
    let h = &file.header.histogram;
    if h.is_empty() {
        return Ok(());
    }
    Err(Error::BadTable {
        path: file.path.clone(),
        reason: format!(
            "expected the header of an unfinished search to record no distances (a table's              header takes them when the search finishes), found {}",
            short_list(h)
        ),
    })
}

/// The refusal of a checkpoint whose histogram is not the table's.
fn histogram_disagrees(ck_path: &Path, histogram: &[u64], file: &TableFile) -> Error {
    disagrees(
        ck_path,
        file,
        format!(
            "its histogram is {}, the table's header records {}",
            short_list(histogram),
            short_list(&file.header.histogram)
        ),
    )
}

/// The checks of a record that read the header only, not the marks: the identity, the
/// histogram (plausible for the table) and the per-distance lists. The header of an
/// unfinished search records no progress (the record is the one account of it).
pub(crate) fn check_record_lists(
    record: &Checkpoint,
    ck_path: &Path,
    file: &TableFile,
    reachable: u64,
) -> Result<()> {
    check_identity(record, ck_path, file)?;
    let levels = record.histogram.len();
    if levels == 0 && record.level_seconds.is_empty() && record.directions.is_empty() {
        return Err(Error::BadTable {
            path: file.path.clone(),
            reason: format!(
                "no distance of its search was finished (stopped while the table was being \
                 made){}",
                super::start_again_hint(file)
            ),
        });
    }
    let lists_ok = record.level_seconds.len() == levels
        && record.directions.len() + 1 == levels
        && record.directions.iter().all(|d| d == "forward" || d == "backward")
        && (if record.unique {
            record.unique_histogram.len() == levels
        } else {
            record.unique_histogram.is_empty()
        })
        && (record.boards.is_empty() || record.boards.len() == levels)
        && record.level_seconds.iter().all(|s| s.is_finite() && *s >= 0.0)
        && record.elapsed_seconds.is_finite()
        && record.elapsed_seconds >= 0.0
        && record.level_under_way.is_none_or(|l| l as usize == levels);
    if !lists_ok {
        return Err(disagrees(
            ck_path,
            file,
            format!(
                "its per-distance lists (seconds, directions, unique counts, boards, level under \
                 way) do not fit its histogram {}",
                short_list(&record.histogram)
            ),
        ));
    }
    let unique = record.unique.then_some(&record.unique_histogram[..]);
    check_histogram(file, &record.histogram, unique, reachable)
        .map_err(|e| record_disagrees(e, ck_path, file))
}

/// A table's refusal of the record's numbers, said as the record's disagreement with it.
fn record_disagrees(e: Error, ck_path: &Path, file: &TableFile) -> Error {
    match e {
        Error::BadTable { reason, .. } => disagrees(ck_path, file, reason),
        other => other,
    }
}
