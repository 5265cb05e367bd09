//! `twirl bfs`: enumerate a puzzle and print its distance histogram.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, bail};
use clap::Args;

use twirl::bfs::{self, Config};
use twirl::rank::StateSpace;
use twirl::report::Report;
use twirl::table::{DistanceTable, Storage, table_bytes};

use super::PuzzleArgs;
use super::progress::Bar;
use super::sizes::{available_disk, available_memory, human, parse_size};

/// Arguments of `twirl bfs`.
#[derive(Args)]
pub struct BfsArgs {
    #[command(flatten)]
    puzzle: PuzzleArgs,
    /// Worker threads (default: one per core).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Keep the table in FILE (memory-mapped, may exceed RAM) instead of anonymous memory.
    /// The file is written as FILE.partial and renamed when the search completes.
    #[arg(long, value_name = "FILE")]
    table: Option<PathBuf>,
    /// Largest in-memory table allowed (e.g. 8G). Default: 90% of the memory available.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    max_memory: Option<u64>,
    /// Also write the result as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Search board by board, without moving runs of ranks at once (slower; for comparison).
    #[arg(long)]
    board_by_board: bool,
    /// No progress bar and no messages on stderr.
    #[arg(long, short)]
    quiet: bool,
}

/// Runs `twirl bfs`.
pub fn run(args: &BfsArgs) -> anyhow::Result<()> {
    let puzzle = args.puzzle.puzzle()?;
    let threads = match args.threads {
        Some(0) => bail!("--threads must be at least 1"),
        Some(n) => n,
        None => std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
    };
    let space = StateSpace::build(&puzzle)?;
    let n_states = space.n_states();
    let bytes = table_bytes(n_states);
    let say = |msg: String| {
        if !args.quiet {
            // A closed stderr must not stop the search.
            let _ = writeln!(std::io::stderr(), "{msg}");
        }
    };
    let partial = args.table.as_ref().map(|p| partial_path(p));
    let result = match &partial {
        None => {
            let limit = args.max_memory.or_else(|| available_memory().map(|m| m / 10 * 9));
            say(format!("table: {n_states} boards x 2 bits = {} in memory", human(bytes)));
            if let Some(limit) = limit.filter(|&l| bytes > l) {
                bail!(
                    "the table needs {} but only {} may be used in memory (raise --max-memory or use --table FILE)",
                    human(bytes),
                    human(limit)
                );
            }
            search(args, &puzzle, &space, Storage::anonymous(bytes)?, threads, None)
        }
        Some(path) => {
            say(format!(
                "table: {n_states} boards x 2 bits = {} in {}",
                human(bytes),
                path.display()
            ));
            if let Some(free) = available_disk(path).filter(|&f| bytes > f) {
                bail!("the table needs {} but the disk has {} free", human(bytes), human(free));
            }
            let table_file = args.table.as_deref().map(|dest| (path.as_path(), dest));
            Storage::create_file(path, bytes)
                .map_err(anyhow::Error::from)
                .and_then(|storage| search(args, &puzzle, &space, storage, threads, table_file))
        }
    };
    if result.is_err()
        && let Some(p) = &partial
    {
        let _ = std::fs::remove_file(p);
    }
    result
}

/// Runs the search and reports it. `table_file` is `(partial, destination)` for a file-backed
/// table, renamed once the search is complete. The JSON and the table are finished before the
/// summary is printed, so a closed stdout cannot lose them.
fn search(
    args: &BfsArgs,
    puzzle: &twirl::puzzle::Puzzle,
    space: &StateSpace,
    storage: Storage,
    threads: usize,
    table_file: Option<(&Path, &Path)>,
) -> anyhow::Result<()> {
    let n_states = space.n_states();
    let table = DistanceTable::new(storage, n_states);
    let bar = Bar::new(n_states, !args.quiet);
    {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(
            out,
            "# {} metric={} boards={} table_bytes={}",
            args.puzzle.puzzle,
            puzzle.metric,
            n_states,
            table.len_bytes()
        );
        let _ = writeln!(
            out,
            "{:>8} {:>16} {:>16} {:>10}",
            "distance", "boards", "cumulative", "seconds"
        );
    }
    bar.print_row(0, 1, 0.0);
    let t0 = Instant::now();
    let config = Config { threads, runs: !args.board_by_board };
    let outcome = bfs::search_puzzle(puzzle, space, &table, &config, &bar)?;
    let elapsed = t0.elapsed().as_secs_f64();
    bar.finish();
    if outcome.states() != n_states {
        bail!("internal error: the search reached {} of {n_states} ranks", outcome.states());
    }
    if let Some((partial, dest)) = table_file {
        table.flush()?;
        drop(table);
        std::fs::rename(partial, dest)
            .with_context(|| format!("renaming {}", partial.display()))?;
    }
    let report = Report::new(
        &args.puzzle.puzzle,
        puzzle,
        space,
        &outcome,
        elapsed,
        threads,
        table_bytes(n_states),
    );
    if let Some(path) = &args.json {
        write_json(path, &report)?;
    }
    print_summary(&report)
}

fn partial_path(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".partial");
    PathBuf::from(s)
}

/// Writes the JSON next to its destination, then renames it: a reader never sees half a file.
pub fn write_json(path: &Path, value: &impl serde::Serialize) -> anyhow::Result<()> {
    let tmp = partial_path(path);
    let text = serde_json::to_string_pretty(value)? + "\n";
    std::fs::write(&tmp, text).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

/// The lines after the per-distance table (which is printed as the search goes).
fn print_summary(r: &Report) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "# God's number: {} ({} antipodes)", r.gods_number, r.antipodes)?;
    for b in &r.antipode_boards {
        writeln!(out, "# antipode: {b}")?;
    }
    let rate = r.states as f64 / r.elapsed_seconds.max(1e-9);
    writeln!(out, "# {:.3} s, {:.3e} boards/s, {} threads", r.elapsed_seconds, rate, r.threads)?;
    Ok(())
}
