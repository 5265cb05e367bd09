//! A job's files when its search is split over the processes of an MPI job: process `p` of
//! `N` keeps its units of ranks in `TABLE.part-p-of-N` (a table file whose header names the
//! ranks it holds, see [`Part`]), and process 0 keeps the job's record in
//! `TABLE.checkpoint` (a [`Checkpoint`] with `parts: N`). With one process the table is
//! `TABLE` itself and the record says `parts: 0`.
//!
//! What differs between one process and many is here: file names, which ranks a part
//! holds, reading process 0's record on every process, and the refusals that name the
//! number of processes. The job itself ([`super::Job`]) is the same for both.

use std::path::{Path, PathBuf};

use crate::bfs::processes::agree;
use crate::bfs::{Processes, SearchSpace};
use crate::checkpoint::{Checkpoint, checkpoint_path};
use crate::durable::with_suffix;
use crate::rank::StateSpace;
use crate::table::TableFile;
use crate::table::format::{Header, Part};
use crate::{Error, Result};

/// The table file of process `index` of `count` for the job whose table is named `table`.
pub fn part_path(table: &Path, index: usize, count: usize) -> PathBuf {
    with_suffix(table, &format!(".part-{index}-of-{count}"))
}

/// The table file this process keeps: `table` itself when it searches alone.
pub(super) fn file_of(table: &Path, processes: &dyn Processes) -> PathBuf {
    match processes.count() {
        1 => table.to_path_buf(),
        count => part_path(table, processes.index(), count),
    }
}

/// What a record's `parts` says for a job of `count` processes (0: one table file).
pub(super) fn recorded_parts(count: usize) -> u32 {
    if count == 1 { 0 } else { count as u32 }
}

/// This process's part of the search's ranks; `None` alone (the whole table).
pub(super) fn my_part(space: &StateSpace, processes: &dyn Processes) -> Option<Part> {
    let (index, count) = (processes.index(), processes.count());
    if count == 1 {
        return None;
    }
    let deal = space.deal(count);
    Some(Part {
        index: index as u32,
        count: count as u32,
        first: deal.first(index),
        ranks: deal.len(index),
        unit: deal.unit(),
    })
}

/// Where this process's table holds `rank` (its index there), if it does.
pub(super) fn index_here(space: &StateSpace, processes: &dyn Processes, rank: u64) -> Option<u64> {
    let (owner, i) = space.deal(processes.count()).locate(rank);
    (owner == processes.index()).then_some(i)
}

/// Refuses to start a job of several processes beside a whole table: the job's record would
/// replace the table's own.
pub(super) fn refuse_whole_table(path: &Path, count: usize) -> Result<()> {
    if count > 1 && std::fs::symlink_metadata(path).is_ok() {
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

/// Process 0's record at `ck_path` (if the file exists), on every process: the others'
/// disks may not hold it. Collective.
pub(super) fn read_record(processes: &dyn Processes, ck_path: &Path) -> Result<Option<Checkpoint>> {
    let read = match (processes.index(), ck_path.try_exists()) {
        (0, Ok(true)) => Checkpoint::read(ck_path).map(Some),
        _ => Ok(None),
    };
    let record = agree(processes, read)?;
    if processes.count() == 1 {
        return Ok(record);
    }
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

/// The refusal of a record kept by a job of another number of processes.
pub(super) fn other_count(parts: u32, count: usize, path: &Path, ck_path: &Path) -> Error {
    let how = match parts {
        0 => format!("`twirl resume {}` without mpirun", path.display()),
        n => format!("`mpirun -np {n} twirl resume {}`", path.display()),
    };
    let (expected, found) = match (count, parts) {
        (1, n) => {
            ("a search in one table file".to_string(), format!("one split over {n} MPI processes"))
        }
        (_, 0) => {
            (format!("a search over {count} processes"), "a search in one table file".to_string())
        }
        (_, n) => (
            format!("a search over {count} processes"),
            format!("a search split over {n} processes"),
        ),
    };
    Error::Refused {
        path: ck_path.into(),
        reason: format!("expected the record of {expected}, found {found}: continue it with {how}"),
    }
}

/// The refusal of a job whose table file (this process's part) is missing.
pub(super) fn missing_file(path: &Path, processes: &dyn Processes) -> Error {
    let (me, count) = (processes.index(), processes.count());
    if count > 1 {
        return Error::BadTable {
            path: part_path(path, me, count),
            reason: format!(
                "no such table file (process {me} of {count} reads its own part: run with the \
                 number of processes that started the search, each where its part's disk is \
                 mounted)"
            ),
        };
    }
    let reason = match first_part_beside(path) {
        Some(count) => format!(
            "no such table file, but parts of a table searched by {count} MPI processes are \
             beside it: read them with `mpirun -np {count} twirl resume {}`",
            path.display()
        ),
        None => "no such table file".into(),
    };
    Error::BadTable { path: path.into(), reason }
}

/// The number of processes of an MPI job whose first part (`TABLE.part-0-of-N`) lies
/// beside `path`, if any.
pub fn first_part_beside(path: &Path) -> Option<usize> {
    let name = path.file_name()?.to_str()?;
    let prefix = format!("{name}.part-0-of-");
    std::fs::read_dir(crate::durable::parent_dir(path)).ok()?.find_map(|entry| {
        let entry = entry.ok()?;
        entry.file_name().to_str()?.strip_prefix(&prefix)?.parse().ok()
    })
}

/// Refuses a table file that is not what this process of the job keeps: a part of another
/// deal, or a part where a whole table is expected.
pub(super) fn check_part(
    file: &TableFile,
    space: &StateSpace,
    processes: &dyn Processes,
) -> Result<()> {
    let (me, count) = (processes.index(), processes.count());
    let Some(part) = my_part(space, processes) else {
        return super::verified::refuse_part(file);
    };
    if file.header.part == Some(part) {
        return Ok(());
    }
    Err(Error::Refused {
        path: file.path.clone(),
        reason: format!(
            "expected part {me} of {count} holding {}, found {}",
            part.describe(),
            describe_part(&file.header)
        ),
    })
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

/// Whether every process's finished part records the same result as process 0's.
/// Collective.
pub(super) fn same_result(processes: &dyn Processes, h: &Header) -> bool {
    if processes.count() == 1 {
        return true;
    }
    let said = serde_json::to_vec(&(&h.histogram, &h.boards, &h.antipodes)).expect("serializes");
    let hash = xxhash_rust::xxh3::xxh3_64(&said).to_le_bytes();
    let root_hash = processes.broadcast(hash.to_vec());
    processes.all(root_hash[..] == hash[..])
}
