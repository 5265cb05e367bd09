//! `twirl info TABLE`: what a table file holds (or an archive of one, or one part of an MPI
//! job), read from its header alone: instant whatever the table's size, and readable while
//! the search that writes it still runs. The body's checksum is not read here: every command
//! that reads the body verifies it first.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use anyhow::bail;
use twirl::checkpoint::{Checkpoint, checkpoint_path};
use twirl::job::parts::{first_part_beside, part_path};
use twirl::table::format::{Header, MAGIC};

use super::PuzzleArgs;
use super::json::JsonArgs;
use super::sizes::human;

/// The first bytes of a zstd frame: an archive written by `twirl export`.
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// The file `info`'s argument names, where it names one rather than a puzzle (no puzzle's
/// scheme before a colon): a table file, or the name the parts of an MPI job share (then
/// its first part, `TABLE.part-0-of-N`).
pub fn file_argument(puzzle: &str) -> Option<PathBuf> {
    let scheme = puzzle.split_once(':').map(|(s, _)| s.to_ascii_lowercase());
    if scheme.is_some_and(|s| ["nrp", "twiddle", "spin", "def"].contains(&s.as_str())) {
        return None;
    }
    let path = Path::new(puzzle);
    if path.is_file() {
        return Some(path.to_path_buf());
    }
    first_part_beside(path).map(|count| part_path(path, 0, count))
}

/// Describes the table file (or archive) at `path`, as text and, with `--json`, as JSON;
/// `args` must carry no puzzle options.
pub fn run(path: &Path, args: &PuzzleArgs, json: &JsonArgs) -> anyhow::Result<()> {
    if args.metric.is_some() || args.orient || !args.subset.subset().is_empty() {
        bail!(
            "{}: a table file records its puzzle, metric and subset; expected no --metric, \
             --orient or subset flags with it",
            path.display()
        );
    }
    let unreadable = |e: std::io::Error| twirl::Error::io(path, e);
    let mut start = [0u8; 8];
    let read = std::fs::File::open(path).and_then(|mut f| f.read(&mut start));
    let read = read.map_err(unreadable)?;
    let (header, archived) = if read == 8 && start == MAGIC {
        let mut f = std::fs::File::open(path).map_err(unreadable)?;
        (Header::read_from(&mut f, path)?, false)
    } else if read >= 4 && start[..4] == ZSTD_MAGIC {
        (twirl::archive::archived_header(path)?, true)
    } else {
        let hint = if path.extension().is_some_and(|e| e == "tws") {
            format!(" (a definition is named def:{})", path.display())
        } else {
            String::new()
        };
        bail!(
            "{}: expected a puzzle (nrp:..., spin:..., def:FILE) or a twirl table file, \
             found a file that is neither{hint}",
            path.display()
        );
    };
    let file_bytes = std::fs::metadata(path).map_err(unreadable)?.len();
    let facts = describe(&mut json.text_out(), path, &header, archived, file_bytes)?;
    json.write(&facts)
}

/// Where a search stands: the sealed header's counts, or an unfinished search's record.
struct Progress {
    /// Entries at each finished distance.
    histogram: Vec<u64>,
    /// Boards at each finished distance, for a table of classes (else empty).
    boards: Vec<u64>,
    /// Boards with one shortest solution at each finished distance (else empty).
    unique: Vec<u64>,
}

impl Progress {
    fn of_header(header: &Header) -> Progress {
        Progress {
            histogram: header.histogram.clone(),
            boards: header.boards.clone(),
            unique: header.unique_histogram.clone().unwrap_or_default(),
        }
    }

    fn of_record(record: &Checkpoint) -> Progress {
        Progress {
            histogram: record.histogram.clone(),
            boards: record.boards.clone(),
            unique: record.unique_histogram.clone(),
        }
    }
}

/// The table a search resumes: the file itself, or the name a job's parts share.
fn job_table(path: &Path, header: &Header) -> PathBuf {
    match header.part {
        Some(p) => {
            let name = path.to_string_lossy();
            let suffix = format!(".part-{}-of-{}", p.index, p.count);
            PathBuf::from(name.strip_suffix(suffix.as_str()).unwrap_or(&name).to_string())
        }
        None => path.to_path_buf(),
    }
}

/// The record of the unfinished search of `table`.
fn record_of(table: &Path) -> twirl::Result<Checkpoint> {
    let record = checkpoint_path(table);
    Checkpoint::read(&record).and_then(|r| r.check_sum(&record).map(|()| r))
}

/// Writes what `header` says, for the file at `path` of `file_bytes` bytes, and returns it
/// as JSON (`twirl info FILE --json`).
fn describe(
    out: &mut dyn Write,
    path: &Path,
    header: &Header,
    archived: bool,
    file_bytes: u64,
) -> std::io::Result<serde_json::Value> {
    let file = path.display();
    let mut facts = serde_json::json!({
        "file": path,
        "archive": archived,
        "file_bytes": file_bytes,
        "puzzle": header.named_puzzle(),
        "metric": header.metric,
        "entries": header.n_states,
        "ranking": header.ranking.kind,
        "unique_bits": header.unique_bytes > 0,
        "part": header.part.map(|p| serde_json::json!({"index": p.index, "count": p.count})),
        "goals": header.goals,
        "complete": header.complete,
    });
    if archived {
        writeln!(
            out,
            "archive: {file} ({}, a table of {} compressed by `twirl export`; `twirl import` \
             restores it)",
            human(file_bytes),
            human(header.file_bytes())
        )?;
    } else {
        writeln!(out, "table: {file} ({})", human(file_bytes))?;
    }
    writeln!(out, "puzzle: {} (metric {})", header.named_puzzle(), header.metric)?;
    let bits =
        if header.unique_bytes > 0 { "2 bits, and 1 for unique solutions" } else { "2 bits" };
    writeln!(out, "entries: {} ({}), {bits} each", header.n_states, header.ranking.kind)?;
    let table = job_table(path, header);
    if let Some(part) = header.part {
        writeln!(
            out,
            "part {} of {} of an MPI job: {} (`twirl join {}` makes one table of the \
             finished parts)",
            part.index,
            part.count,
            part.describe(),
            table.display()
        )?;
    }
    if let Some(goals) = &header.goals {
        writeln!(out, "distances: to the nearest of {goals}, not to solved")?;
    }
    let progress = if header.complete {
        facts["seconds"] = header.elapsed_seconds.into();
        facts["checksum"] = header.checksum.clone().into();
        let seal = header.checksum.as_deref().unwrap_or("none");
        writeln!(
            out,
            "search: complete in {:.1} s (checksum {seal}, verified whenever the table is read)",
            header.elapsed_seconds
        )?;
        Progress::of_header(header)
    } else {
        let resume = match header.part {
            Some(p) => format!("mpirun -np {} twirl resume", p.count),
            None => "twirl resume".into(),
        };
        match record_of(&table) {
            Ok(r) => {
                let done = match r.histogram.len() {
                    0 => "no distance finished".to_string(),
                    n => format!("distances 0-{} done", n - 1),
                };
                let under_way = r
                    .level_under_way
                    .map(|d| format!(", distance {d} under way"))
                    .unwrap_or_default();
                let resume = format!("{resume} {}", table.display());
                writeln!(
                    out,
                    "search: not finished: {done}{under_way}, {:.1} s so far (`{resume}` \
                     continues it)",
                    r.elapsed_seconds,
                )?;
                facts["seconds"] = r.elapsed_seconds.into();
                facts["distance_under_way"] = r.level_under_way.into();
                facts["resume"] = resume.into();
                Progress::of_record(&r)
            }
            Err(e) => {
                writeln!(out, "search: not finished; its record cannot be read ({e})")?;
                facts["record_error"] = e.to_string().into();
                return Ok(facts);
            }
        }
    };
    let levels = progress.histogram.len();
    // A table of classes counts boards per distance beside its entries.
    let with_entries = levels > 0 && progress.boards.len() == levels;
    let boards = if with_entries { &progress.boards } else { &progress.histogram };
    facts["distances_done"] = levels.into();
    facts["boards"] = boards.clone().into();
    facts["entries_at_distance"] = with_entries.then(|| progress.histogram.clone()).into();
    let unique = Some(&progress.unique).filter(|u| u.len() == levels && levels > 0);
    facts["unique_solution"] = unique.cloned().into();
    if header.complete && levels > 0 {
        facts["total_boards"] = boards.iter().sum::<u64>().into();
        facts["gods_number"] = (levels - 1).into();
        facts["antipodes"] = boards[levels - 1].into();
        writeln!(
            out,
            "boards: {}; God's number {} ({} antipodes)",
            boards.iter().sum::<u64>(),
            levels - 1,
            boards[levels - 1]
        )?;
    }
    if levels == 0 {
        return Ok(facts);
    }
    write!(out, "distance {:>20}", "boards")?;
    if with_entries {
        write!(out, " {:>16}", "entries")?;
    }
    if unique.is_some() {
        write!(out, " {:>20}", "unique solution")?;
    }
    writeln!(out)?;
    for d in 0..levels {
        write!(out, "{d:>8} {:>20}", boards[d])?;
        if with_entries {
            write!(out, " {:>16}", progress.histogram[d])?;
        }
        if let Some(u) = unique {
            write!(out, " {:>20}", u[d])?;
        }
        writeln!(out)?;
    }
    Ok(facts)
}
