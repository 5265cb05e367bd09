//! Opening a finished table for reading, verified the same way by every command that reads
//! one (`distance`, `solve`, `export`, `import`, `resume` of a finished search): see
//! [`open_table`]. Solutions are read from it by the bounded descent of [`optimal::solve`].

use std::path::Path;

use crate::bfs::processes::agree;
use crate::bfs::{Processes, SAMPLE, Single};
use crate::optimal;
use crate::puzzle::{Board, Puzzle};
use crate::rank::record::CLASSES;
use crate::rank::{StateSpace, SymmetryMode};
use crate::table::{TableFile, UNSEEN, mark_of};
use crate::{Error, Result};

/// A finished table that passed every check of [`open_table`], with its puzzle and ranking.
pub struct VerifiedTable {
    /// The file, mapped read-only.
    pub file: TableFile,
    /// The puzzle it was computed for.
    pub puzzle: Puzzle,
    /// Its ranking (equal to the one the table records).
    pub space: StateSpace,
}

/// Opens a finished table and checks everything it says: header (magic, version, its own
/// checksum, sizes), a puzzle this build can make, the same ranking as this build computes,
/// the body's checksum, and the header's numbers against the marks (every board marked, the
/// boards per mark equal to the histogram's, the antipodes real boards at the last distance).
pub fn open_table(path: &Path) -> Result<VerifiedTable> {
    open_table_of(path, None)
}

/// [`open_table`] for a table of `puzzle`, whatever file its header names the puzzle by
/// (a cache moved elsewhere): the ranking record, which holds a definition's digest, decides.
pub fn open_table_as(path: &Path, puzzle: &Puzzle) -> Result<VerifiedTable> {
    open_table_of(path, Some(puzzle))
}

fn open_table_of(path: &Path, known: Option<&Puzzle>) -> Result<VerifiedTable> {
    let file = TableFile::open(path, false)?;
    refuse_part(&file)?;
    if !file.header.complete {
        return Err(Error::BadTable {
            path: path.into(),
            reason: format!(
                "the search that writes this table has not finished; finish it with \
                 `twirl resume {}`",
                path.display()
            ),
        });
    }
    let (puzzle, space) = puzzle_and_space(&file, known)?;
    verify_finished(&file, &space, &Single)?;
    Ok(VerifiedTable { file, puzzle, space })
}

/// The checks of a finished table, `file` being this process's of `processes` (the whole
/// table alone, else its part): the specific checks first (their messages say what is
/// wrong), the checksum last. The marks are counted over all processes. Collective.
pub(crate) fn verify_finished(
    file: &TableFile,
    space: &StateSpace,
    processes: &dyn Processes,
) -> Result<()> {
    let h = &file.header;
    let local = (|| {
        check_histogram(file, &h.histogram, h.unique_histogram.as_deref(), space.n_reachable())?;
        let here = |r: u64| super::parts::index_here(space, processes, r);
        check_antipodes(file, &h.antipodes, &h.histogram, &file.path, &here)
    })();
    agree(processes, local)?;
    let counts = processes.sum_each(file.table.count_marks());
    let unseen = space.n_states() - space.n_reachable();
    agree(processes, check_mark_counts(&file.path, counts, &h.histogram, Some(unseen)))?;
    // The boards of classes are checked against the marks of a whole table only (a part's
    // entries are not its table's indices).
    if processes.count() == 1 {
        check_boards(file, space, &h.histogram, &h.boards, true)?;
    }
    agree(processes, file.verify())
}

/// Refuses one process's part of a table searched by an MPI job: only the job reads it.
pub(crate) fn refuse_part(file: &TableFile) -> Result<()> {
    let Some(p) = file.header.part else { return Ok(()) };
    Err(Error::Refused {
        path: file.path.clone(),
        reason: format!(
            "expected a whole table, found part {} of {} of a table searched by {} MPI \
             processes ({}); continue or report that search with `mpirun -np {} twirl \
             resume` on the table's name{}",
            p.index,
            p.count,
            p.count,
            p.describe(),
            p.count,
            if file.header.complete {
                ", or make one table of its parts with `twirl join` on the table's name"
            } else {
                ""
            }
        ),
    })
}

/// The puzzle a table names (or `known`, in the table's metric) and this build's ranking of
/// it, refused unless the ranking is the one the table records.
pub(crate) fn puzzle_and_space(
    file: &TableFile,
    known: Option<&Puzzle>,
) -> Result<(Puzzle, StateSpace)> {
    let puzzle = match known {
        Some(p) if p.metric.name() != file.header.metric => {
            return Err(Error::BadTable {
                path: file.path.clone(),
                reason: format!(
                    "expected a table of {} in {}, found one in {}",
                    p.spec.named(),
                    p.metric.name(),
                    crate::error::escaped(&file.header.metric)
                ),
            });
        }
        Some(p) => p.clone(),
        None => file.puzzle()?,
    };
    let space = if file.header.ranking.kind.starts_with(CLASSES) {
        StateSpace::for_search(&puzzle, SymmetryMode::On, false)?
    } else {
        StateSpace::build(&puzzle)?
    };
    file.check_ranking(&space.ranking_record())?;
    Ok((puzzle, space))
}

/// A histogram as a search writes it: distance 0 holds the solved board alone (or, from a
/// set of goals, between one entry and one per goal), every later
/// distance at least one board, and no more boards than the table has (all of them when the
/// table is complete). The unique histogram, if any, runs alongside.
pub(crate) fn check_histogram(
    file: &TableFile,
    histogram: &[u64],
    unique_histogram: Option<&[u64]>,
    reachable: u64,
) -> Result<()> {
    let bad = |reason: String| Error::BadTable { path: file.path.clone(), reason };
    let h = &file.header;
    let (starts, first) = match &h.goals {
        None => (1, "1 board".to_string()),
        Some(g) => (g.count, format!("at most {} entries (its goals)", g.count)),
    };
    if histogram.first().is_none_or(|&n| n > starts) || histogram.contains(&0) {
        return Err(bad(format!(
            "inconsistent header: a histogram starts with {first} at distance 0 and has no \
             empty distance, found {}",
            short_list(histogram)
        )));
    }
    let total = histogram.iter().try_fold(0u64, |a, &n| a.checked_add(n));
    let fits = total.is_some_and(|t| if h.complete { t == reachable } else { t <= reachable });
    if !fits {
        return Err(bad(format!(
            "inconsistent header: its histogram counts {} boards, the table has {}",
            total.map_or("more than 2^64".to_string(), |t| t.to_string()),
            reachable
        )));
    }
    if let Some(u) = unique_histogram
        && (h.unique_bytes == 0
            || u.len() != histogram.len()
            || u.iter().zip(histogram).any(|(u, n)| u > n))
    {
        return Err(bad(
            "inconsistent header: its unique-solution counts do not fit its histogram".into(),
        ));
    }
    Ok(())
}

/// Compares the marks counted in the table at `path` (over all processes: `counts` per
/// mark) with `histogram` (distance `d` is marked `1 + d mod 3`). `finished_unseen`: a
/// finished table leaves exactly these ranks unseen; otherwise the next distance's mark may
/// hold more boards (a level under way).
pub(crate) fn check_mark_counts(
    path: &Path,
    counts: [u64; 4],
    histogram: &[u64],
    finished_unseen: Option<u64>,
) -> Result<()> {
    let complete = finished_unseen.is_some();
    let mut expected = [0u64; 4];
    for (d, &n) in histogram.iter().enumerate() {
        expected[mark_of(d as u32) as usize] += n;
    }
    let next = mark_of(histogram.len() as u32) as usize;
    let agree = (1..4).all(|m| {
        if m == next && !complete { counts[m] >= expected[m] } else { counts[m] == expected[m] }
    });
    if !agree || finished_unseen.is_some_and(|u| counts[UNSEEN as usize] != u) {
        return Err(Error::BadTable {
            path: path.into(),
            reason: format!(
                "the table is corrupted or inconsistent: its marks disagree with the \
                 histogram {}: the table holds {} unseen boards and {:?} boards per distance \
                 mod 3, the histogram says {:?}",
                short_list(histogram),
                counts[0],
                [counts[1], counts[2], counts[3]],
                [expected[1], expected[2], expected[3]],
            ),
        });
    }
    Ok(())
}

/// The boards per distance of a table of symmetry classes against its entries and marks:
/// one count per distance, between the entries and `order` times them, and for each mark
/// the boards the classes' sizes take off `order` per entry equal to what the marks say
/// (the mark of a level under way, when not `complete`, aside). Other tables record none.
pub(crate) fn check_boards(
    file: &TableFile,
    space: &StateSpace,
    histogram: &[u64],
    boards: &[u64],
    complete: bool,
) -> Result<()> {
    let bad = |reason: String| Error::BadTable { path: file.path.clone(), reason };
    let Some(classes) = space.entry_classes() else {
        if boards.is_empty() {
            return Ok(());
        }
        return Err(bad("inconsistent header: boards per distance on a table of boards".into()));
    };
    let order = classes.order();
    let fits = boards.len() == histogram.len()
        && boards.iter().zip(histogram).all(|(&b, &e)| b >= e && b <= e.saturating_mul(order));
    if !fits {
        return Err(bad(format!(
            "inconsistent header: boards per distance {} do not fit its entries {}",
            short_list(boards),
            short_list(histogram)
        )));
    }
    let expected = classes.recorded_excess(histogram, boards);
    let found = classes.excess_by_mark(&file.table);
    let next = mark_of(histogram.len() as u32) as usize;
    if (1..4).any(|m| (complete || m != next) && found[m] != expected[m]) {
        return Err(bad(format!(
            "the table is corrupted or inconsistent: its boards per distance {} disagree with \
             the marks of its symmetric classes",
            short_list(boards)
        )));
    }
    Ok(())
}

/// Antipodes as a search lists them: at most [`SAMPLE`], increasing, each a rank of the
/// search marked with the last distance in the table that holds it (`local` gives its index
/// in `file`'s table, `None` when another process's table holds it). `source` is the file
/// that lists them.
pub(crate) fn check_antipodes(
    file: &TableFile,
    antipodes: &[u64],
    histogram: &[u64],
    source: &Path,
    local: &dyn Fn(u64) -> Option<u64>,
) -> Result<()> {
    let last = histogram.len().saturating_sub(1) as u32;
    let n = file.header.n_states;
    let bad = |reason: String| Error::Refused { path: source.into(), reason };
    if antipodes.len() > SAMPLE || antipodes.windows(2).any(|w| w[0] >= w[1]) {
        return Err(bad(format!(
            "its antipodes {} are not an increasing list of at most {SAMPLE} ranks",
            short_list(antipodes)
        )));
    }
    let at_last = |r: u64| local(r).is_none_or(|i| file.table.get(i) == mark_of(last));
    if let Some(&r) = antipodes.iter().find(|&&r| r >= n || !at_last(r)) {
        return Err(bad(format!(
            "antipode rank {r} is not a board at distance {last} of {} ({n} boards)",
            file.path.display()
        )));
    }
    Ok(())
}

/// A list in an error message, shortened.
pub(crate) fn short_list(list: &[u64]) -> String {
    let shown: Vec<String> = list.iter().take(40).map(u64::to_string).collect();
    let more = if list.len() > 40 { " ..." } else { "" };
    format!("[{}{more}]", shown.join(", "))
}

impl VerifiedTable {
    /// The largest distance.
    pub fn gods_number(&self) -> u32 {
        self.file.header.histogram.len() as u32 - 1
    }

    /// A shortest solution of `board` (move indices), or "table is inconsistent" if the
    /// descent would take more than God's number moves (see [`optimal::solve`]).
    pub fn solve(&self, board: &Board) -> Result<Vec<usize>> {
        optimal::solve(&self.puzzle, &self.space, &self.file.table, board, self.gods_number())
    }
}
