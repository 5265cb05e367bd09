//! The checks a resume makes before continuing a search: the checkpoint against the table's
//! header and against the table's marks.

use std::path::Path;

use super::Requested;
use super::verified::{check_antipodes, check_boards, check_histogram, check_marks, short_list};
use crate::bfs::Outcome;
use crate::checkpoint::Checkpoint;
use crate::rank::record::CLASSES;
use crate::rank::{StateSpace, SymmetryMode};
use crate::table::TableFile;
use crate::{Error, Result};

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

/// The refusal of a checkpoint whose histogram is not the table's.
pub(super) fn histogram_disagrees(ck_path: &Path, histogram: &[u64], file: &TableFile) -> Error {
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

/// Checks an unfinished search's checkpoint against its table and returns the outcome to
/// resume from. The header records the finished distances; the checkpoint may be one
/// distance ahead (the process was killed between writing the two), and that distance's
/// count is then pinned by the marks.
pub(super) fn check_record(
    record: &Checkpoint,
    ck_path: &Path,
    file: &TableFile,
    space: &StateSpace,
) -> Result<Outcome> {
    check_record_lists(record, ck_path, file, space.n_reachable())?;
    check_marks(file, &record.histogram, None)?;
    check_boards(file, space, &record.histogram, &record.boards, false)?;
    check_antipodes(file, &record.antipodes, &record.histogram, ck_path)?;
    Ok(record.resume())
}

/// The checks of [`check_record`] that read the header only, not the marks: the identity,
/// the histogram (one level ahead of the header at most) and the per-distance lists.
pub(crate) fn check_record_lists(
    record: &Checkpoint,
    ck_path: &Path,
    file: &TableFile,
    reachable: u64,
) -> Result<()> {
    check_identity(record, ck_path, file)?;
    let h = &file.header;
    let levels = record.histogram.len();
    if levels == 0 && h.histogram.is_empty() {
        return Err(Error::BadTable {
            path: file.path.clone(),
            reason: format!(
                "no distance of its search was finished (stopped while the table was being \
                 made){}",
                super::start_again_hint(file)
            ),
        });
    }
    let ahead = levels.checked_sub(h.histogram.len());
    if !matches!(ahead, Some(0 | 1)) || record.histogram[..h.histogram.len()] != h.histogram[..] {
        return Err(histogram_disagrees(ck_path, &record.histogram, file));
    }
    let unique_ok = match (&h.unique_histogram, record.unique) {
        (Some(u), true) => record.unique_histogram.starts_with(u),
        (None, true) => h.histogram.is_empty(),
        (_, false) => record.unique_histogram.is_empty(),
    };
    let lists_ok = record.level_seconds.len() == levels
        && record.directions.len() + 1 == levels
        && record.directions.iter().all(|d| d == "forward" || d == "backward")
        && (!record.unique || record.unique_histogram.len() == levels)
        && record.level_seconds.iter().all(|s| s.is_finite() && *s >= 0.0)
        && record.elapsed_seconds.is_finite()
        && record.elapsed_seconds >= 0.0
        && record.level_under_way.is_none_or(|l| l as usize == levels);
    if !unique_ok || !lists_ok {
        return Err(disagrees(
            ck_path,
            file,
            "its per-distance lists (seconds, directions, unique counts, level under way) do \
             not fit its histogram"
                .into(),
        ));
    }
    let unique = record.unique.then_some(&record.unique_histogram[..]);
    check_histogram(file, &record.histogram, unique, reachable).map_err(|e| match e {
        Error::BadTable { reason, .. } => disagrees(ck_path, file, reason),
        other => other,
    })?;
    if !file.header.boards.is_empty() && !record.boards.starts_with(&file.header.boards) {
        return Err(disagrees(
            ck_path,
            file,
            format!(
                "its boards per distance {} are not the table's {}",
                short_list(&record.boards),
                short_list(&file.header.boards)
            ),
        ));
    }
    Ok(())
}
