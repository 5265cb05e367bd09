//! One whole table from the parts of a finished MPI job: `TABLE.part-P-of-N`, each sealed
//! with its checksum, are read unit by unit back into rank order and written as `TABLE`,
//! the file that `distance`, `solve`, `export` and `resume` read. Nothing is trusted that
//! can be checked: each part's checksum, that the parts are of one search and hold the
//! units this build deals them, and at the end the whole table by [`open_table`] (marks
//! against the histogram, antipodes, boards), before it is renamed into place.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use super::finished_outcome;
use super::outputs::{OutputKind, check_output};
use super::parts::part_path;
use super::verified::{open_table, puzzle_and_space};
use crate::bfs::SearchSpace;
use crate::checkpoint::checkpoint_path;
use crate::durable::{TempPath, free_disk, with_suffix};
use crate::table::format::{HEADER_BYTES, Header};
use crate::table::{CELLS_PER_WORD, TableFile, table_bytes};
use crate::{Error, Result};

/// Joins the parts of the finished job whose table is named `table` into one table file at
/// `table` (an existing file there only with `force`). Returns the whole table's header,
/// verified, and the number of parts joined.
pub fn join_parts(table: &Path, force: bool, stop: &AtomicBool) -> Result<(Header, usize)> {
    let count = count_parts(table)?;
    let paths: Vec<PathBuf> = (0..count).map(|p| part_path(table, p, count)).collect();
    let inputs: Vec<&Path> = paths.iter().map(PathBuf::as_path).collect();
    check_output(table, OutputKind::Table, &inputs, force)?;
    let record = checkpoint_path(table);
    if record.exists() {
        return Err(Error::Refused {
            path: record,
            reason: "expected a finished job, found its record: the search is not done; \
                     finish it with `mpirun ... twirl resume TABLE` first"
                .into(),
        });
    }
    let parts = paths.iter().map(|p| TableFile::open(p, false)).collect::<Result<Vec<_>>>()?;
    for (p, part) in parts.iter().enumerate() {
        check_part(part, p, count, &parts[0].header)?;
    }
    let (puzzle, space) = puzzle_and_space(&parts[0], None)?;
    let deal = space.deal(count);
    for (p, part) in parts.iter().enumerate() {
        let held = part.header.part.expect("checked: a part");
        if (held.first, held.ranks, held.unit) != (deal.first(p), deal.len(p), deal.unit()) {
            return Err(Error::Refused {
                path: part.path.clone(),
                reason: format!(
                    "expected {} of the ranks as this twirl deals them to {count} processes, \
                     found {}",
                    deal.len(p),
                    held.describe()
                ),
            });
        }
    }
    let h = &parts[0].header;
    let whole_bytes = HEADER_BYTES + table_bytes(h.n_states);
    if let Some(free) = free_disk(table).filter(|&f| whole_bytes > f) {
        return Err(Error::TooLarge(format!(
            "the joined table needs {whole_bytes} bytes but the disk holding {} has {free} \
             bytes free",
            table.display()
        )));
    }
    let tmp = TempPath::new(with_suffix(table, ".partial"));
    let mut whole = TableFile::create(tmp.path(), &puzzle, space.ranking_record(), false)?;
    // Units are whole groups of the table (a group is one word of cells), so each unit's
    // groups are copied from its owner's next unit.
    let per_unit = (deal.unit() / CELLS_PER_WORD) as usize;
    let n_groups = whole.table.n_groups();
    (0..n_groups.div_ceil(per_unit)).into_par_iter().try_for_each(|unit| {
        if stop.load(Ordering::Relaxed) {
            return Err(Error::Interrupted);
        }
        let (owner, round) = (unit % count, unit / count);
        let groups = unit * per_unit..((unit + 1) * per_unit).min(n_groups);
        for (j, g) in groups.enumerate() {
            whole.table.set_group_cells(g, parts[owner].table.group_cells(round * per_unit + j));
        }
        Ok(())
    })?;
    let outcome = finished_outcome(h, &space);
    whole.finish(&outcome, h.elapsed_seconds)?;
    drop(whole);
    let header = open_table(tmp.path())?.file.header;
    // A stop during the checks still stops, with nothing kept.
    if stop.load(Ordering::Relaxed) {
        return Err(Error::Interrupted);
    }
    super::outputs::refuse_if_written(table)?;
    tmp.persist(table)?;
    Ok((header, count))
}

/// The number of processes whose parts lie beside `table` (from `TABLE.part-0-of-N`).
fn count_parts(table: &Path) -> Result<usize> {
    let name = table.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
    let prefix = format!("{name}.part-0-of-");
    let dir = match table.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let entries = std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))?;
    let mut counts: Vec<usize> = entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.strip_prefix(&prefix)?.parse().ok())
        .filter(|&n| n > 1)
        .collect();
    counts.sort_unstable();
    match counts[..] {
        [n] => Ok(n),
        [] => Err(Error::Refused {
            path: table.into(),
            reason: format!(
                "expected the parts of an MPI job beside it ({}), found none",
                with_suffix(table, ".part-P-of-N").display()
            ),
        }),
        _ => Err(Error::Refused {
            path: table.into(),
            reason: format!(
                "expected the parts of one MPI job, found parts of jobs of {} processes",
                counts.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(" and ")
            ),
        }),
    }
}

/// Refuses a part that is not part `index` of `count` of a finished search, or not of the
/// same search as part 0 (`first`).
fn check_part(file: &TableFile, index: usize, count: usize, first: &Header) -> Result<()> {
    let refuse = |reason: String| Error::Refused { path: file.path.clone(), reason };
    let h = &file.header;
    match h.part {
        Some(p) if p.index as usize == index && p.count as usize == count && p.unit != 0 => {}
        Some(p) if p.unit == 0 => {
            return Err(refuse(
                "expected a part dealt in units, found one written before ranks were dealt \
                 in units; search again with this version"
                    .into(),
            ));
        }
        Some(p) => {
            return Err(refuse(format!(
                "expected part {index} of {count}, found part {} of {}",
                p.index, p.count
            )));
        }
        None => {
            return Err(refuse(format!("expected part {index} of {count}, found a whole table")));
        }
    }
    if !h.complete {
        return Err(refuse(
            "expected a sealed part, found one whose search has not finished; finish it with \
             `mpirun ... twirl resume TABLE`"
                .into(),
        ));
    }
    if h.unique_bytes != 0 {
        return Err(refuse(
            "expected a part without unique-solution bits: joining the parts of a --unique \
             search is not supported"
                .into(),
        ));
    }
    let same = (&h.puzzle, &h.metric, &h.ranking, &h.histogram, &h.boards, &h.antipodes)
        == (
            &first.puzzle,
            &first.metric,
            &first.ranking,
            &first.histogram,
            &first.boards,
            &first.antipodes,
        );
    if !same {
        return Err(refuse(format!(
            "expected a part of the same search as part 0 ({} {}, histogram {:?}), found {} \
             {}, histogram {:?}",
            first.puzzle, first.metric, first.histogram, h.puzzle, h.metric, h.histogram
        )));
    }
    file.verify()
}
