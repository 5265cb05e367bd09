//! `twirl bfs` and `twirl resume`: enumerate a puzzle, print its distance histogram, keep the
//! table in a file that survives interruptions.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use clap::Args;

use twirl::bfs::{self, Config, Outcome};
use twirl::checkpoint::{Checkpoint, FileJournal, checkpoint_path};
use twirl::puzzle::{Metric, Puzzle, PuzzleSpec};
use twirl::rank::StateSpace;
use twirl::report::Report;
use twirl::table::{DistanceTable, TableFile, table_bytes, unique_bytes};

use super::PuzzleArgs;
use super::progress::Bar;
use super::sizes::{available_disk, available_memory, human, parse_size};

/// Arguments of `twirl bfs`.
#[derive(Args)]
pub struct BfsArgs {
    #[command(flatten)]
    puzzle: PuzzleArgs,
    /// Keep the table in FILE (memory-mapped, may exceed RAM): a self-describing file that
    /// `twirl distance`, `solve` and `export` read. Progress is recorded in FILE.checkpoint
    /// after every distance and every --checkpoint-every seconds; an interrupted search
    /// continues with --resume (or `twirl resume FILE`).
    #[arg(long, value_name = "FILE")]
    table: Option<PathBuf>,
    /// Continue the interrupted search in --table FILE from its last checkpoint.
    #[arg(long, requires = "table")]
    resume: bool,
    /// Replace an existing --table FILE.
    #[arg(long, requires = "table")]
    force: bool,
    /// Also count, at every distance, the boards with exactly one shortest solution (one more
    /// bit per board, plus one while searching; searches board by board).
    #[arg(long)]
    unique: bool,
    /// Largest in-memory table allowed (e.g. 8G). Default: 90% of the memory available.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    max_memory: Option<u64>,
    /// Search board by board, without moving runs of ranks at once (slower; for comparison).
    #[arg(long)]
    board_by_board: bool,
    #[command(flatten)]
    run: RunArgs,
}

/// Arguments of `twirl resume`.
#[derive(Args)]
pub struct ResumeArgs {
    /// The table file of the interrupted search (`twirl bfs ... --table FILE`).
    #[arg(value_name = "FILE")]
    table: PathBuf,
    #[command(flatten)]
    run: RunArgs,
}

/// Settings shared by a new and a resumed search.
#[derive(Args)]
pub struct RunArgs {
    /// Worker threads (default: one per core).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Also write the result as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Also draw the distance histogram as an SVG picture.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,
    /// Draw the plot with a logarithmic count axis.
    #[arg(long)]
    log_scale: bool,
    /// With a table file: seconds between checkpoints inside a long distance (0: after every
    /// task, for tests).
    #[arg(long, value_name = "SECONDS", default_value_t = 300)]
    checkpoint_every: u64,
    /// No progress bar and no messages on stderr.
    #[arg(long, short)]
    quiet: bool,
}

impl RunArgs {
    fn threads(&self) -> anyhow::Result<usize> {
        Ok(match self.threads {
            Some(0) => bail!("--threads must be at least 1"),
            Some(n) => n,
            None => std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
        })
    }

    fn say(&self, msg: &str) {
        if !self.quiet {
            // A closed stderr must not stop the search.
            let _ = writeln!(std::io::stderr(), "{msg}");
        }
    }
}

/// Exit code of a search stopped by Ctrl-C (128 + SIGINT).
const STOPPED: i32 = 130;

/// Runs `twirl bfs`; returns the exit code.
pub fn run(args: &BfsArgs) -> anyhow::Result<i32> {
    let puzzle = args.puzzle.puzzle()?;
    if let Some(path) = &args.table
        && args.resume
    {
        return resume_table(path, Some(&puzzle), &args.run);
    }
    let threads = args.run.threads()?;
    let space = StateSpace::build(&puzzle)?;
    let n_states = space.n_states();
    let bytes = table_bytes(n_states) + if args.unique { unique_bytes(n_states) } else { 0 };
    let bits = if args.unique { "4 bits" } else { "2 bits" };
    let config =
        Config { threads, runs: !args.board_by_board, unique: args.unique, ..Config::new(threads) };
    let Some(path) = &args.table else {
        let limit = args.max_memory.or_else(|| available_memory().map(|m| m / 10 * 9));
        args.run.say(&format!("table: {n_states} boards x {bits} = {} in memory", human(bytes)));
        if let Some(limit) = limit.filter(|&l| bytes > l) {
            bail!(
                "the table needs {} but only {} may be used in memory (raise --max-memory or use --table FILE)",
                human(bytes),
                human(limit)
            );
        }
        let table = if args.unique {
            DistanceTable::in_memory_unique(n_states)?
        } else {
            DistanceTable::in_memory(n_states)?
        };
        let bar = start_output(&puzzle, n_states, bytes, &args.run, None);
        let t0 = Instant::now();
        let outcome = bfs::search_puzzle(&puzzle, &space, &table, &config, &bar)?;
        bar.finish();
        return finish(&puzzle, &space, &outcome, t0.elapsed().as_secs_f64(), &config, &args.run);
    };
    if path.exists() && !args.force {
        let what = match TableFile::open(path, false) {
            Ok(t) if !t.header.complete => format!(
                "holds an unfinished search of {}; continue it with `twirl resume {}`",
                t.header.puzzle,
                path.display()
            ),
            Ok(t) => format!("holds a finished table of {}", t.header.puzzle),
            Err(_) => "exists".to_string(),
        };
        bail!("{} {what} (use --force to replace it)", path.display());
    }
    let file_bytes = twirl::table::format::HEADER_BYTES + bytes;
    args.run.say(&format!(
        "table: {n_states} boards x {bits} = {} in {}",
        human(file_bytes),
        path.display()
    ));
    if let Some(free) = available_disk(path).filter(|&f| file_bytes > f) {
        bail!("the table needs {} but the disk has {} free", human(file_bytes), human(free));
    }
    let record = Checkpoint::new(
        puzzle.spec.to_string(),
        puzzle.metric.name().to_string(),
        n_states,
        args.unique,
    );
    // The record comes first: a job killed while the table is being made resumes by making
    // it again.
    let ck_path = checkpoint_path(path);
    record.write(&ck_path)?;
    let file = TableFile::create(path, &puzzle, n_states, args.unique).inspect_err(|_| {
        let _ = std::fs::remove_file(&ck_path);
    })?;
    search_in_file(file, &puzzle, &space, config, record, None, &args.run)
}

/// Runs `twirl resume`.
pub fn run_resume(args: &ResumeArgs) -> anyhow::Result<i32> {
    resume_table(&args.table, None, &args.run)
}

/// Continues the search in a table file (checked against `expected` when given).
fn resume_table(path: &Path, expected: Option<&Puzzle>, run: &RunArgs) -> anyhow::Result<i32> {
    let ck_path = checkpoint_path(path);
    let record = if ck_path.exists() { Some(Checkpoint::read(&ck_path)?) } else { None };
    if let Some(record) = record.as_ref().filter(|r| r.histogram.is_empty()) {
        // Killed before distance 0 was recorded: the table may be half made; make it again.
        let spec = PuzzleSpec::parse(&record.puzzle)?;
        let puzzle = Puzzle::new(&spec, Metric::parse(&record.metric)?)?;
        if let Some(p) = expected
            && (p.spec != puzzle.spec || p.metric != puzzle.metric)
        {
            bail!("{}: the table is for {} in {}", path.display(), puzzle.spec, puzzle.metric);
        }
        let space = StateSpace::build(&puzzle)?;
        run.say(&format!("{}: no distance was recorded; starting over", path.display()));
        let file = TableFile::create(path, &puzzle, space.n_states(), record.unique)?;
        let config = Config { unique: record.unique, ..Config::new(run.threads()?) };
        return search_in_file(file, &puzzle, &space, config, record.clone(), None, run);
    }
    let file = TableFile::open(path, true)?;
    if let Some(p) = expected {
        file.check_puzzle(p)?;
    }
    let puzzle = file.puzzle()?;
    let space = StateSpace::build(&puzzle)?;
    let header = &file.header;
    if space.n_states() != header.n_states {
        bail!(
            "{}: the table has {} boards but this twirl ranks {} for {}",
            path.display(),
            header.n_states,
            space.n_states(),
            header.puzzle
        );
    }
    if header.complete {
        return report_complete(&file, &puzzle, &space, record, run);
    }
    let record = record.with_context(|| {
        format!(
            "{} cannot be resumed: its checkpoint {} is missing",
            path.display(),
            ck_path.display()
        )
    })?;
    let levels = record.histogram.len();
    if record.puzzle != header.puzzle
        || record.metric != header.metric
        || record.n_states != header.n_states
        || record.unique != (header.unique_bytes != 0)
    {
        bail!("{} belongs to another table than {}", ck_path.display(), path.display());
    }
    if record.level_seconds.len() != levels
        || record.directions.len() + 1 != levels
        || (record.unique && record.unique_histogram.len() != levels)
    {
        bail!("{} is damaged (its per-distance lists differ in length)", ck_path.display());
    }
    let config = Config { unique: record.unique, ..Config::new(run.threads()?) };
    run.say(&format!(
        "resuming {} {}: distances 0..{} finished ({} of {} boards)",
        header.puzzle,
        header.metric,
        levels - 1,
        record.histogram.iter().sum::<u64>(),
        header.n_states
    ));
    let resume = record.resume();
    search_in_file(file, &puzzle, &space, config, record, Some(resume), run)
}

/// Reports a table whose search is complete (perhaps killed after writing the final header
/// but before removing its checkpoint, which then still holds the antipodes and timings).
fn report_complete(
    file: &TableFile,
    puzzle: &Puzzle,
    space: &StateSpace,
    record: Option<Checkpoint>,
    run: &RunArgs,
) -> anyhow::Result<i32> {
    run.say(&format!("{}: the search is already complete", file.path.display()));
    let h = &file.header;
    let record = record.filter(|r| r.histogram == h.histogram);
    let outcome = Outcome {
        histogram: h.histogram.clone(),
        level_seconds: record
            .as_ref()
            .map_or(vec![0.0; h.histogram.len()], |r| r.level_seconds.clone()),
        directions: Vec::new(),
        antipodes: record.as_ref().map_or(Vec::new(), |r| r.antipodes.clone()),
        unique_histogram: h.unique_histogram.clone(),
        complete: true,
    };
    print_histogram_rows(&outcome.histogram);
    let elapsed = record.as_ref().map_or(0.0, |r| r.elapsed_seconds);
    let config = Config::new(run.threads()?);
    let code = finish(puzzle, space, &outcome, elapsed, &config, run)?;
    let ck_path = checkpoint_path(&file.path);
    if ck_path.exists() {
        std::fs::remove_file(&ck_path)
            .with_context(|| format!("removing {}", ck_path.display()))?;
    }
    Ok(code)
}

/// Searches into a table file with a journal; Ctrl-C stops at a durable point.
fn search_in_file(
    mut file: TableFile,
    puzzle: &Puzzle,
    space: &StateSpace,
    mut config: Config,
    record: Checkpoint,
    resume: Option<Outcome>,
    run: &RunArgs,
) -> anyhow::Result<i32> {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let quiet = run.quiet;
    // The handler can be installed once per process, which is all the CLI needs.
    let _ = ctrlc::set_handler(move || {
        if flag.swap(true, Ordering::Relaxed) {
            std::process::exit(STOPPED);
        }
        if !quiet {
            let _ = writeln!(std::io::stderr(), "\nstopping at the next durable point...");
        }
    });
    config.stop = Some(stop);
    let ck_path = checkpoint_path(&file.path);
    let interval = Duration::from_secs(run.checkpoint_every);
    let journal = FileJournal::new(ck_path.clone(), record, interval);
    let n_states = file.header.n_states;
    let bar = start_output(puzzle, n_states, file.header.file_bytes(), run, resume.as_ref());
    let outcome =
        bfs::search_puzzle_journaled(puzzle, space, &file.table, &config, &bar, &journal, resume)?;
    bar.finish();
    if !outcome.complete {
        journal.save_under_way(&file.table)?;
        run.say(&format!(
            "stopped: distances 0..{} are finished and saved. Continue with: twirl resume {}",
            outcome.gods_number(),
            file.path.display()
        ));
        return Ok(STOPPED);
    }
    file.finish(&outcome.histogram, outcome.unique_histogram.as_deref())?;
    std::fs::remove_file(&ck_path).with_context(|| format!("removing {}", ck_path.display()))?;
    finish(puzzle, space, &outcome, journal.elapsed_seconds(), &config, run)
}

/// Prints the head of the per-distance table (and the rows already finished, on a resume)
/// and returns the progress bar.
fn start_output(
    puzzle: &Puzzle,
    n_states: u64,
    bytes: u64,
    run: &RunArgs,
    resume: Option<&Outcome>,
) -> Bar {
    let bar = Bar::new(n_states, !run.quiet);
    {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(
            out,
            "# {} metric={} boards={} table_bytes={}",
            puzzle.spec, puzzle.metric, n_states, bytes
        );
        let _ = writeln!(
            out,
            "{:>8} {:>16} {:>16} {:>10}",
            "distance", "boards", "cumulative", "seconds"
        );
    }
    match resume {
        None => bar.print_row(0, 1, 0.0),
        Some(r) => {
            for (d, &n) in r.histogram.iter().enumerate() {
                bar.print_row(d as u32, n, r.level_seconds.get(d).copied().unwrap_or(0.0));
            }
        }
    }
    bar
}

/// Prints a histogram as the per-distance table (for a table already complete).
fn print_histogram_rows(histogram: &[u64]) {
    let bar = Bar::new(histogram.iter().sum(), false);
    for (d, &n) in histogram.iter().enumerate() {
        bar.print_row(d as u32, n, 0.0);
    }
}

/// Checks the outcome, writes the JSON and plot, prints the summary.
fn finish(
    puzzle: &Puzzle,
    space: &StateSpace,
    outcome: &Outcome,
    elapsed: f64,
    config: &Config,
    run: &RunArgs,
) -> anyhow::Result<i32> {
    let n_states = space.n_states();
    if outcome.states() != n_states {
        bail!("internal error: the search reached {} of {n_states} ranks", outcome.states());
    }
    let spec = puzzle.spec.to_string();
    let report =
        Report::new(&spec, puzzle, space, outcome, elapsed, config.threads, table_bytes(n_states));
    if let Some(path) = &run.json {
        write_json(path, &report)?;
    }
    if let Some(path) = &run.plot {
        super::plot::write_plot(path, &report, run.log_scale)?;
    }
    print_summary(&report)?;
    Ok(0)
}

/// Writes the JSON durably (temporary file, fsync, rename): a reader never sees half a file.
pub fn write_json(path: &Path, value: &impl serde::Serialize) -> anyhow::Result<()> {
    let text = serde_json::to_string_pretty(value)? + "\n";
    twirl::durable::write_atomically(path, text.as_bytes())?;
    Ok(())
}

/// The lines after the per-distance table (which is printed as the search goes).
fn print_summary(r: &Report) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "# God's number: {} ({} antipodes)", r.gods_number, r.antipodes)?;
    for b in &r.antipode_boards {
        writeln!(out, "# antipode: {b}")?;
    }
    if let (Some(u), Some(total)) = (&r.unique_histogram, r.unique_total) {
        let row: Vec<String> = u.iter().map(|n| n.to_string()).collect();
        writeln!(
            out,
            "# unique shortest solutions: {total} boards; by distance: {}",
            row.join(" ")
        )?;
    }
    let rate = r.states as f64 / r.elapsed_seconds.max(1e-9);
    writeln!(out, "# {:.3} s, {:.3e} boards/s, {} threads", r.elapsed_seconds, rate, r.threads)?;
    Ok(())
}
