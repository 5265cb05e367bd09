//! `twirl sample`: the distance distribution of a puzzle estimated from uniformly random
//! boards, each solved optimally: read from a full table where one fits in memory (built
//! once, seconds), else found by IDA* over pattern tables.
//!
//! Board `i` of seed `S` is fixed by `(S, i)` ([`twirl::random`]), and every solved board is
//! appended to a record file (one JSON line, flushed and synced) as soon as it is solved, so
//! a sample stopped at any moment (Ctrl-C, SIGTERM, a crash) continues where it was by running
//! the same command again, and can be extended with a larger `-n`.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use anyhow::bail;
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use twirl::job::outputs::{OutputKind, check_output};
use twirl::optimal::Prepared;
use twirl::optimal::ida::{Outcome, Solver};
use twirl::plot::{group_digits, histogram_svg_titled};
use twirl::puzzle::Puzzle;
use twirl::random::RandomBoards;
use twirl::report::Report;

use super::bfs::describe_entries;
use super::plot::write_svg;
use super::record::{self, Record, RecordHeader};
use super::sizes::human;
use super::solve::PatternArgs;
use super::table::{AUTO_TABLE_STATES, FullTable, Loaded, build_in_memory, full_table};
use super::{PuzzleArgs, stop_flag};

/// How `twirl sample` finds the distances.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SampleMethod {
    /// A full table of at most --table-entries entries, as `solve` builds unasked, else IDA*
    /// over pattern tables.
    Auto,
    /// A full table built in memory, whatever its size (refused if it does not fit).
    Table,
    /// IDA* over pattern tables (`solve --method optimal`).
    Optimal,
}

/// Arguments of `twirl sample`.
#[derive(Args)]
pub struct SampleArgs {
    #[command(flatten)]
    puzzle: PuzzleArgs,
    /// Number of random boards (board i of the seed for i in 0..N).
    #[arg(short = 'n', long, value_name = "N", default_value_t = 100)]
    count: u64,
    /// The seed: the same seed gives the same boards, whatever the threads.
    #[arg(long, value_name = "S", default_value_t = 1)]
    seed: u64,
    /// The record of solved boards (JSON lines), appended as each is solved; running the
    /// same command again continues it. Default: <puzzle>-<metric>-seed<S>.sample.jsonl
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,
    /// Write the summary (histogram, longest boards and their solutions) as JSON (`-`:
    /// standard output; never over the record or the definition).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Draw the histogram as SVG (`-`: standard output).
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,
    /// Replace existing --json and --plot files (a run continuing a sample writes its
    /// summary again).
    #[arg(long)]
    force: bool,
    /// Logarithmic count axis for --plot.
    #[arg(long, requires = "plot")]
    log_scale: bool,
    /// Search each board no deeper than D moves: a board not solved within D is recorded as
    /// needing at least D+1 (listed apart, never in the histogram), and solved again by a
    /// later run with a larger D. Default: no limit. Distances read from a full table are
    /// exact at any depth: the limit bounds IDA* only.
    #[arg(long, value_name = "D")]
    max_depth: Option<u32>,
    /// auto: distances read from a full table built in memory when it has at most
    /// --table-entries entries (classes of boards under the puzzle's symmetries, as `bfs`
    /// counts them: nrp:3x4:2 in about 25 s), else found by IDA* over pattern tables.
    /// table: a full table, whatever its size. optimal: IDA* over pattern tables.
    #[arg(long, value_enum, default_value_t = SampleMethod::Auto)]
    method: SampleMethod,
    /// The largest full table --method auto builds in memory, in entries (boards, or classes
    /// of boards under the puzzle's symmetries; 4 entries a byte).
    #[arg(long, value_name = "N", default_value_t = AUTO_TABLE_STATES)]
    table_entries: u64,
    #[command(flatten)]
    patterns: PatternArgs,
}

/// One solved board, or one searched in full up to a depth without a solution.
#[derive(Serialize, Deserialize, Clone, Debug)]
struct Solved {
    index: u64,
    board: String,
    /// The distance; for a board left deeper, a lower bound (every shorter sequence was
    /// searched).
    distance: u32,
    moves: String,
    nodes: u64,
    seconds: f64,
    /// The bound of the pattern tables at the start (absent in older records).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    bound: Option<u32>,
    /// Not solved: `distance` is only a lower bound (`--max-depth`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    deeper: bool,
    /// How the distance was found: `table` (read from a full table) or `optimal` (IDA* over
    /// pattern tables; records written before the field knew no other way).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    method: Option<String>,
}

impl Solved {
    /// How the distance was found (see [`Solved::method`]).
    fn method(&self) -> &str {
        self.method.as_deref().unwrap_or(OPTIMAL)
    }
}

/// The `method` of a board read from a full table.
const TABLE: &str = "table";
/// The `method` of a board searched by IDA*.
const OPTIMAL: &str = "optimal";

/// Where the distances of a session come from.
enum Distances {
    /// A full table in memory.
    Table(Box<Loaded>),
    /// Pattern tables, for IDA*.
    Patterns(Prepared),
}

impl Solved {
    /// Whether the record settles this board for a session searching up to `max_depth`: solved,
    /// or left deeper than that.
    fn settles(&self, max_depth: Option<u32>) -> bool {
        !self.deeper || max_depth.is_some_and(|d| self.distance > d)
    }
}

/// The summary written with --json.
#[derive(Serialize)]
struct Summary<'a> {
    puzzle: String,
    metric: String,
    seed: u64,
    samples: u64,
    histogram: Vec<u64>,
    /// The mean distance of the solved boards (none solved: null).
    mean: Option<f64>,
    longest: u32,
    /// Boards left unsolved by `--max-depth`: none when every board was solved.
    deeper_boards: u64,
    /// The largest distance some board of the sample is known to need: the longest solved,
    /// or a lower bound of a board left deeper. A lower bound on the puzzle's largest
    /// distance, never that distance itself.
    longest_in_sample: u32,
    /// The same value under its first name, kept for readers of older summaries.
    lower_bound_gods_number: u32,
    /// How many boards' distances were read from a full table (`table`) and found by IDA*
    /// (`optimal`).
    solved_by: BTreeMap<String, u64>,
    longest_boards: Vec<&'a Solved>,
    total_nodes: u64,
    solve_seconds: f64,
    record: String,
}

/// Longest boards listed in the summary.
const LISTED: usize = 10;

/// Runs `twirl sample`; returns the exit code.
pub fn run(args: &SampleArgs) -> anyhow::Result<i32> {
    super::bound_setup_threads(args.patterns.threads);
    if args.count > MAX_COUNT {
        bail!(
            "-n: expected at most {} boards (2^40: more would take years), found {}",
            group_digits(MAX_COUNT),
            group_digits(args.count)
        );
    }
    let puzzle = args.puzzle.searchable_puzzle()?;
    let header = RecordHeader::new(&puzzle, args.seed);
    let record = args.record.clone().unwrap_or_else(|| default_record(&header, &puzzle));
    // Neither output may replace the record, the definition read, or the other output.
    let mut inputs: Vec<&Path> = vec![&record];
    inputs.extend(puzzle.defined().map(|d| Path::new(&d.path)));
    super::claim_stdout([&args.json, &args.plot])?;
    for (path, kind) in [(&args.json, OutputKind::Json), (&args.plot, OutputKind::Svg)] {
        if let Some(p) = path {
            check_output(p, kind, &inputs, args.force)?;
            inputs.push(p);
        }
    }
    let quiet = args.patterns.quiet;
    // Locked from here to the end of the run; created only once there is work to record.
    let mut done = BTreeMap::new();
    let mut file = open_record(&record, &header, false, &mut done)?;
    let draw = RandomBoards::new(&puzzle)?;
    let counts = Counts::of(&done, args);
    if !quiet {
        eprintln!(
            "# record: {} ({}; run the same command to continue)",
            record.display(),
            counts.describe(args)
        );
    }
    let todo = args.count - counts.solved - counts.deeper;
    if todo > 0 {
        let stop = stop_flag(quiet);
        let distances = distances(args, &puzzle, &stop)?;
        let solver = match &distances {
            Distances::Patterns(prepared) => Some(prepared.solver()?),
            Distances::Table(_) => None,
        };
        if file.is_none() {
            file = open_record(&record, &header, true, &mut done)?;
        }
        let file = file.as_ref().expect("a record opened with create");
        let settled = |i: &u64| done.get(i).is_some_and(|s| s.settles(args.max_depth));
        let bar = bar(todo, quiet);
        let pool = rayon::ThreadPoolBuilder::new().num_threads(args.patterns.threads()).build()?;
        let results = Mutex::new(Vec::new());
        let failed: Mutex<Option<anyhow::Error>> = Mutex::new(None);
        // Indices drawn lazily (a count may be huge); an error or a stop ends the walk early,
        // and `failed` or `stop` says why.
        let _ = pool.install(|| {
            (0..args.count).into_par_iter().filter(|i| !settled(i)).try_for_each(|index| {
                if stop.load(Ordering::Relaxed) {
                    return Err(());
                }
                let outcome = (|| -> anyhow::Result<Solved> {
                    let board = draw.board(args.seed, index)?;
                    let started = Instant::now();
                    let (moves, nodes, bound, method) = match (&distances, &solver) {
                        (Distances::Table(loaded), _) => (loaded.solve(&board)?, 0, None, TABLE),
                        (_, Some(solver)) => match search(solver, &board, args.max_depth, &stop)? {
                            Outcome::Solved(sol) => {
                                (sol.moves, sol.nodes, Some(sol.first_bound), OPTIMAL)
                            }
                            Outcome::Deeper { at_least, nodes, first_bound } => {
                                return Ok(Solved {
                                    index,
                                    board: puzzle.format_board(&board),
                                    distance: at_least,
                                    moves: String::new(),
                                    nodes,
                                    seconds: started.elapsed().as_secs_f64(),
                                    bound: Some(first_bound),
                                    deeper: true,
                                    method: Some(OPTIMAL.into()),
                                });
                            }
                        },
                        (Distances::Patterns(_), None) => unreachable!("a solver over patterns"),
                    };
                    let end = moves
                        .iter()
                        .fold(board.clone(), |b, &m| puzzle.apply(&b, &puzzle.moves[m]));
                    if !puzzle.is_solved(&end) {
                        bail!("internal error: a solution found does not solve its board");
                    }
                    let names: Vec<&str> =
                        moves.iter().map(|&m| puzzle.moves[m].name.as_str()).collect();
                    Ok(Solved {
                        index,
                        board: puzzle.format_board(&board),
                        distance: moves.len() as u32,
                        moves: names.join(" "),
                        nodes,
                        seconds: started.elapsed().as_secs_f64(),
                        bound,
                        deeper: false,
                        method: Some(method.into()),
                    })
                })();
                match outcome.and_then(|s| {
                    file.append(&s)?;
                    Ok(s)
                }) {
                    Ok(s) => {
                        bar.inc(1);
                        let more = if s.deeper { "at least " } else { "" };
                        bar.set_message(format!("last: {more}{} moves", s.distance));
                        results.lock().unwrap().push(s);
                        Ok(())
                    }
                    Err(e) => {
                        if !matches!(
                            e.downcast_ref::<twirl::Error>(),
                            Some(twirl::Error::Interrupted)
                        ) {
                            failed.lock().unwrap().get_or_insert(e);
                        }
                        Err(())
                    }
                }
            })
        });
        bar.finish_and_clear();
        if let Some(e) = failed.into_inner().unwrap() {
            return Err(e);
        }
        for s in results.into_inner().unwrap() {
            done.insert(s.index, s);
        }
        if stop.load(Ordering::Relaxed) {
            eprintln!(
                "twirl: interrupted; {} are recorded in {}; run the same command to continue",
                Counts::of(&done, args).describe(args),
                record.display()
            );
            return Ok(super::INTERRUPTED);
        }
    }
    let chosen: Vec<&Solved> = done.values().filter(|s| s.index < args.count).collect();
    report(args, &header, &record, &chosen)?;
    Ok(0)
}

/// IDA* on one board, no deeper than `max_depth`, on one thread (boards are solved in
/// parallel).
fn search(
    solver: &Solver,
    board: &twirl::puzzle::Board,
    max_depth: Option<u32>,
    stop: &AtomicBool,
) -> twirl::Result<Outcome> {
    solver.solve_within(board, max_depth.unwrap_or(u32::MAX), 1, stop, &|_, _| {}, None)
}

/// The session's source of distances, as `--method` asks: a full table built now, or
/// pattern tables (built once and stored). Says on stderr which, and why.
fn distances(
    args: &SampleArgs,
    puzzle: &Puzzle,
    stop: &std::sync::Arc<AtomicBool>,
) -> anyhow::Result<Distances> {
    let quiet = args.patterns.quiet;
    let say = |what: &str| {
        if !quiet {
            eprintln!("# distances: {what}");
        }
    };
    let limit = match args.method {
        SampleMethod::Optimal => {
            say("found by IDA* over pattern tables (--method optimal)");
            return Ok(Distances::Patterns(args.patterns.prepare(puzzle.clone())?));
        }
        SampleMethod::Auto => args.table_entries,
        SampleMethod::Table => u64::MAX,
    };
    let space = match (full_table(puzzle, limit), args.method) {
        (FullTable::Fits(space), _) => space,
        (FullTable::TooLarge(why), SampleMethod::Table) => bail!(
            "expected a puzzle whose full table fits in memory, found {}: {why} (--method \
             optimal samples it by IDA*)",
            puzzle.spec.named()
        ),
        (FullTable::TooLarge(why), _) => {
            say(&format!("found by IDA* over pattern tables ({why})"));
            return Ok(Distances::Patterns(args.patterns.prepare(puzzle.clone())?));
        }
    };
    let started = Instant::now();
    let what = format!(
        "{}, {}",
        describe_entries(&space),
        human(twirl::table::table_bytes(space.n_states()))
    );
    say(&format!("read from a full table built in memory: {what}..."));
    let loaded = build_in_memory(puzzle.clone(), *space, Some(stop.clone()))?;
    say(&format!("full table built in {:.1} s", started.elapsed().as_secs_f64()));
    Ok(Distances::Table(Box::new(loaded)))
}

/// Most boards a sample may ask for: a count beyond is a slip, never a sample to solve.
const MAX_COUNT: u64 = 1 << 40;

/// Opens the record (see [`Record::open`]) and adds the boards it holds to `done`; says on
/// stderr how many damaged lines were skipped.
fn open_record(
    path: &Path,
    header: &RecordHeader,
    create: bool,
    done: &mut BTreeMap<u64, Solved>,
) -> anyhow::Result<Option<Record>> {
    let Some((record, contents)) = Record::open::<Solved>(path, header, create)? else {
        return Ok(None);
    };
    if contents.damaged > 0 {
        eprintln!(
            "# record: {} damaged line(s) skipped, those boards are solved again",
            contents.damaged
        );
    }
    for s in contents.lines {
        done.insert(s.index, s);
    }
    Ok(Some(record))
}

/// The boards of the sample (index below `-n`) the record settles.
struct Counts {
    /// Solved.
    solved: u64,
    /// Searched in full to more than `--max-depth` without a solution.
    deeper: u64,
}

impl Counts {
    fn of(done: &BTreeMap<u64, Solved>, args: &SampleArgs) -> Counts {
        let settled = done.range(..args.count).map(|(_, s)| s);
        let settled = settled.filter(|s| s.settles(args.max_depth));
        let (deeper, solved): (Vec<&Solved>, Vec<&Solved>) = settled.partition(|s| s.deeper);
        Counts { solved: solved.len() as u64, deeper: deeper.len() as u64 }
    }

    /// `3 of 4 boards solved`, or `2 solved, 1 deeper than --max-depth 4, of 4 boards`: a
    /// board only known to be deeper is never called solved.
    fn describe(&self, args: &SampleArgs) -> String {
        match (self.deeper, args.max_depth) {
            (0, _) | (_, None) => format!("{} of {} boards solved", self.solved, args.count),
            (k, Some(d)) => format!(
                "{} solved, {k} deeper than --max-depth {d}, of {} boards",
                self.solved, args.count
            ),
        }
    }
}

/// Most bytes of the puzzle's part of a default record name.
const MAX_SLUG: usize = 160;

/// `<puzzle>-<metric>-seed<S>.sample.jsonl`, the puzzle named with its subset flags; a
/// subset's record begun under the name without them (before records named the flags) is
/// continued where no record has the new name and it holds this sample.
fn default_record(h: &RecordHeader, puzzle: &Puzzle) -> PathBuf {
    let name = |puzzle: &str| {
        let mut slug: String =
            puzzle.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
        // Long flag lists (`--ignore EDGES:1-30` lists every piece) would pass a file
        // name's 255 bytes: cut, and told apart by a digest of the whole.
        if slug.len() > MAX_SLUG {
            let digest = xxhash_rust::xxh3::xxh3_64(puzzle.as_bytes());
            slug = format!("{}_{digest:016x}", &slug[..MAX_SLUG - 17]);
        }
        PathBuf::from(format!("{slug}-{}-seed{}.sample.jsonl", h.metric, h.seed))
    };
    let (path, unflagged) = (name(&h.puzzle), name(&puzzle.spec.to_string()));
    match !path.exists() && unflagged != path && record::holds_sample(&unflagged, h) {
        true => unflagged,
        false => path,
    }
}

fn bar(total: u64, quiet: bool) -> ProgressBar {
    let target = if quiet { ProgressDrawTarget::hidden() } else { ProgressDrawTarget::stderr() };
    let bar = ProgressBar::with_draw_target(Some(total), target);
    bar.set_style(
        ProgressStyle::with_template(
            "{msg:>16} [{bar:30}] {pos}/{len} boards  {elapsed}  ETA {eta}",
        )
        .expect("valid template")
        .progress_chars("=> "),
    );
    bar
}

/// Prints the histogram and writes --json and --plot.
fn report(
    args: &SampleArgs,
    header: &RecordHeader,
    record: &Path,
    all: &[&Solved],
) -> anyhow::Result<()> {
    let (deeper, solved): (Vec<&Solved>, Vec<&Solved>) = all.iter().partition(|s| s.deeper);
    let longest = solved.iter().map(|s| s.distance).max().unwrap_or(0);
    let known = deeper.iter().map(|s| s.distance).max().unwrap_or(0).max(longest);
    let mut histogram = vec![0u64; longest as usize + 1];
    for s in &solved {
        histogram[s.distance as usize] += 1;
    }
    let n = solved.len() as u64;
    let total = all.len() as u64;
    let mean = match n {
        0 => 0.0,
        n => solved.iter().map(|s| f64::from(s.distance)).sum::<f64>() / n as f64,
    };
    let mut out = super::report_out();
    writeln!(
        out,
        "# {} metric={} sample of {total} uniformly random boards (seed {}), {}",
        header.puzzle,
        header.metric,
        header.seed,
        match deeper.len() {
            0 => "solved optimally".to_string(),
            k => format!("{n} solved optimally, {k} with no solution within --max-depth"),
        }
    )?;
    writeln!(out, "distance           boards     share")?;
    for (d, &c) in histogram.iter().enumerate().filter(|(_, c)| **c > 0) {
        writeln!(out, "{d:>8} {c:>16} {:>8.4}", c as f64 / total.max(1) as f64)?;
    }
    let mut at_least: BTreeMap<u32, u64> = BTreeMap::new();
    for s in &deeper {
        *at_least.entry(s.distance).or_default() += 1;
    }
    for (d, &c) in &at_least {
        let share = c as f64 / total.max(1) as f64;
        writeln!(out, "{:>8} {c:>16} {share:>8.4}", format!(">={d}"))?;
    }
    let mut longest_boards: Vec<&Solved> =
        solved.iter().copied().filter(|s| s.distance == longest).collect();
    longest_boards.truncate(LISTED);
    let k = deeper.len();
    match k {
        _ if n == 0 => writeln!(out, "# no board solved within --max-depth")?,
        0 => writeln!(out, "# mean distance {mean:.3}")?,
        k => writeln!(
            out,
            "# mean distance of the {n} solved boards {mean:.3} (biased low: the {k} deeper \
             boards are left out)"
        )?,
    }
    // A sample's longest board bounds the puzzle's largest distance from below only: the
    // deepest boards are rare (Twiddle 4x4: 21 in 10,000 boards, where one board needs 24).
    let count = |c: u64| format!("{c} board{}", if c == 1 { "" } else { "s" });
    let longest_text = match (n, k) {
        (_, 0) => format!("{longest} moves ({})", count(histogram[longest as usize])),
        (0, k) => format!("at least {known} moves ({} deeper than --max-depth)", count(k as u64)),
        (_, k) => format!(
            "at least {known} moves ({} deeper than --max-depth; the longest solved needs \
             {longest}, {})",
            count(k as u64),
            count(histogram[longest as usize])
        ),
    };
    writeln!(
        out,
        "# longest in the sample: {longest_text}; a lower bound: boards outside the sample may \
         need more"
    )?;
    for s in &longest_boards {
        writeln!(out, "# longest board: {} (solution: {})", s.board, s.moves)?;
    }
    let mut solved_by: BTreeMap<String, u64> = BTreeMap::new();
    for s in all {
        *solved_by.entry(s.method().to_string()).or_default() += 1;
    }
    let by = |method: &str, how: &str| {
        solved_by.get(method).map(|&c| format!("{} {how}", group_digits(c)))
    };
    let ways: Vec<String> =
        [by(TABLE, "read from a full table"), by(OPTIMAL, "searched by IDA* over pattern tables")]
            .into_iter()
            .flatten()
            .collect();
    if !ways.is_empty() {
        writeln!(out, "# distances: {}", ways.join(", "))?;
    }
    let summary = Summary {
        puzzle: header.puzzle.clone(),
        metric: header.metric.clone(),
        seed: header.seed,
        samples: total,
        histogram: histogram.clone(),
        mean: (n > 0).then_some(mean),
        longest,
        deeper_boards: k as u64,
        longest_in_sample: known,
        lower_bound_gods_number: known,
        solved_by,
        longest_boards,
        total_nodes: all.iter().map(|s| s.nodes).sum(),
        solve_seconds: all.iter().map(|s| s.seconds).sum(),
        record: record.display().to_string(),
    };
    if let Some(path) = &args.json {
        super::bfs::write_json(path, &summary)?;
    }
    if let Some(path) = &args.plot {
        let plot = Report {
            puzzle: header.puzzle.clone(),
            metric: header.metric.clone(),
            states: n,
            gods_number: longest,
            histogram,
            antipodes: summary.histogram[longest as usize],
            antipode_boards: Vec::new(),
            elapsed_seconds: summary.solve_seconds,
            threads: args.patterns.threads(),
            table_bytes: 0,
            unique_histogram: None,
            unique_total: None,
            symmetry: None,
            goals: None,
        };
        let title = format!(
            "{} ({} metric): a sample of {} uniformly random boards (seed {})",
            header.puzzle,
            header.metric,
            group_digits(total),
            header.seed
        );
        let solved = match k {
            0 => format!("{} solved", group_digits(n)),
            k => format!("{} solved, {} deeper than --max-depth", group_digits(n), k),
        };
        let subtitle = format!(
            "{solved}; longest in the sample: {}{} moves, a lower bound{}",
            if k > 0 { "at least " } else { "" },
            known,
            if args.log_scale { "; log scale" } else { "" }
        );
        write_svg(path, &histogram_svg_titled(&plot, &title, &subtitle, args.log_scale))?;
    }
    Ok(())
}
