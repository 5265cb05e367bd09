//! `twirl solve`: a solution of one board, by the method that fits the puzzle: read from a
//! full distance table (shortest), found by IDA* over pattern tables (shortest, for puzzles
//! whose table does not fit), or built by Lam's constructive method (any NRP board, of any
//! size: boards of more than 255 cells take this path alone; see [`super::constructive`]).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use anyhow::bail;
use clap::{Args, ValueEnum};
use num_bigint::BigUint;

use twirl::bfs::Progress;
use twirl::group::analysis::Analysis;
use twirl::group::solvable::{Checker, Verdict};
use twirl::optimal::pattern::{Store, default_tracked, pattern_states};
use twirl::optimal::{Prepared, SearchJournal, ida};
use twirl::puzzle::spec::parse_nrp_any_size;
use twirl::puzzle::{Board, Puzzle, PuzzleSpec};
use twirl::random::RandomBoards;
use twirl::rank::StateSpace;
use twirl::solvers::constructive::Shape;

use super::constructive::solve_constructive;
use super::json::{JsonArgs, as_paths, files_named};
use super::large::MAX_BOARD_CELLS;
use super::sizes::{available_memory, human, parse_size};
use super::table::{
    AUTO_TABLE_STATES, FullTable, build_in_memory, full_table, load_in_memory, load_source,
    read_board, report_unsolvable,
};
use super::{PuzzleArgs, argument_text, stop_flag};

/// Largest search `--method auto` starts by IDA*, in nodes per board as Korf estimates it
/// (boards / patterns of the largest table). The estimate is rough, so the bar is low:
/// measured, Twiddle 4x4 (4.0e4) visits 2e3-5e4 nodes a board; nrp:2x8:2 (4.0e4 too)
/// 2.6e6-3.9e7, seconds to minutes; nrp:3x6:2 (4.0e7) was unsolved after 7 minutes.
const AUTO_OPTIMAL_NODES: u64 = 1_000_000;

/// How `twirl solve` finds its solution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Method {
    /// Shortest where twirl can find it: a table file, a full table built in memory, or IDA*
    /// over pattern tables; else, for NRP, the constructive method (not shortest).
    Auto,
    /// Descend a full distance table: a table file, or one built in memory (small puzzles).
    Table,
    /// IDA* guided by pattern tables built by the engine and kept in --patterns DIR.
    Optimal,
    /// Lam's constructive method for NRP boards of any size (not shortest).
    Constructive,
}

/// Where pattern tables live and how large they may be (`solve --method optimal`, `sample`).
#[derive(Args, Clone)]
pub struct PatternArgs {
    /// Directory of pattern tables: each is built once (a resumable table file named by a
    /// digest of the pattern) and reused. Default: $TWIRL_PATTERNS, else
    /// $XDG_CACHE_HOME/twirl/patterns, else ~/.cache/twirl/patterns.
    #[arg(long, value_name = "DIR", conflicts_with = "patterns_in_memory")]
    pub patterns: Option<PathBuf>,
    /// Build the pattern table in memory for this call only.
    #[arg(long)]
    pub patterns_in_memory: bool,
    /// The tiles a pattern table tells apart, e.g. 1-8 or 1,2,5,6 (the others are made
    /// identical, their orientations forgotten); given again, one more table (each read at
    /// every node; the largest bound counts). Default: one table of the first tiles in book
    /// order, as many as --max-memory allows.
    #[arg(long, value_name = "TILES")]
    pub track: Vec<String>,
    /// Largest pattern table, each (e.g. 1G): a limit per pattern table, not on the whole
    /// process (in `twirl bfs` it bounds the one table searched). Default: 256M (Twiddle
    /// 4x4: tiles 1-8, 124 MiB).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub max_memory: Option<u64>,
    /// Worker threads. Default: one per core.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// No progress lines on stderr.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Default size limit of a pattern table.
const DEFAULT_PATTERN_BYTES: u64 = 256 << 20;

impl PatternArgs {
    /// Worker threads.
    pub fn threads(&self) -> usize {
        self.threads.unwrap_or_else(super::default_threads).max(1)
    }

    /// Where the tables are kept.
    pub fn store(&self) -> Store {
        if self.patterns_in_memory {
            return Store::Memory;
        }
        let dir = self.patterns.clone().unwrap_or_else(|| {
            let env = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
            env("TWIRL_PATTERNS")
                .or_else(|| env("XDG_CACHE_HOME").map(|d| d.join("twirl/patterns")))
                .or_else(|| env("HOME").map(|d| d.join(".cache/twirl/patterns")))
                .unwrap_or_else(|| PathBuf::from("twirl-patterns"))
        });
        Store::Dir(dir)
    }

    /// Korf's estimate of the nodes IDA* visits per board over these pattern tables (the
    /// boards over the patterns of the largest table), or why the method does not apply.
    /// Nothing is built.
    pub fn estimated_nodes(&self, puzzle: &Puzzle) -> anyhow::Result<BigUint> {
        let max = self.max_memory.unwrap_or(DEFAULT_PATTERN_BYTES);
        let groups = match self.track.is_empty() {
            true => vec![default_tracked(puzzle, max)?],
            false => {
                self.track.iter().map(|t| parse_tiles(t, puzzle)).collect::<anyhow::Result<_>>()?
            }
        };
        let mut patterns = 1;
        for g in &groups {
            patterns = patterns.max(pattern_states(puzzle, g)?);
        }
        // Boards as many as a ranking counts them; beyond 64-bit ranks, the group's order.
        let boards = match StateSpace::build(puzzle) {
            Ok(space) => space.n_boards(),
            Err(_) => Analysis::of(puzzle)?.group_order,
        };
        Ok(boards / BigUint::from(patterns))
    }

    /// The puzzle's pattern tables, built (with progress lines) if they are not stored yet.
    pub fn prepare(&self, puzzle: Puzzle) -> anyhow::Result<Prepared> {
        let tracked = match self.track.is_empty() {
            true => None,
            false => Some(
                self.track
                    .iter()
                    .map(|t| parse_tiles(t, &puzzle))
                    .collect::<anyhow::Result<_>>()?,
            ),
        };
        let max = self.max_memory.unwrap_or(DEFAULT_PATTERN_BYTES);
        if let Some(free) = available_memory().filter(|&f| max > f) {
            bail!(
                "--max-memory {} is more than the memory available ({})",
                human(max),
                human(free)
            );
        }
        let notes = BuildNotes {
            quiet: self.quiet,
            started: Instant::now(),
            announced: AtomicBool::new(false),
        };
        let stop = stop_flag(self.quiet);
        let prepared =
            Prepared::new(puzzle, tracked, &self.store(), max, self.threads(), &notes, stop)?;
        for t in prepared.tables.iter().filter(|_| !self.quiet) {
            eprintln!(
                "# pattern table: tiles {} tracked, {} patterns ({}), largest distance {}, {} \
                 view(s); {}",
                tile_list(&t.tracked),
                t.n_states(),
                human(t.table_bytes()),
                t.max_distance,
                t.views().len(),
                t.source
            );
        }
        Ok(prepared)
    }
}

/// Reads `1-8` or `1,2,5,6` (tiles numbered from 1) into 0-based tiles.
fn parse_tiles(text: &str, puzzle: &Puzzle) -> anyhow::Result<Vec<u8>> {
    let n = puzzle.n_positions();
    let bad = |what: &str| {
        anyhow::anyhow!(
            "--track: expected tiles 1..{n} as a list or ranges (1-8 or 1,2,5,6), found {what}"
        )
    };
    let mut tiles = Vec::new();
    for part in text.split(',').map(str::trim) {
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        let (a, b): (usize, usize) = match (a.trim().parse(), b.trim().parse()) {
            (Ok(a), Ok(b)) if 1 <= a && a <= b && b <= n => (a, b),
            _ => return Err(bad(&format!("`{}`", twirl::error::escaped(part)))),
        };
        tiles.extend((a - 1..b).map(|t| t as u8));
    }
    tiles.sort_unstable();
    tiles.dedup();
    if tiles.is_empty() || tiles.len() + 2 > n {
        return Err(bad(&format!("{} tiles", tiles.len())));
    }
    Ok(tiles)
}

/// `1-8` style list of 0-based tiles, written from 1.
fn tile_list(tiles: &[u8]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < tiles.len() {
        let mut j = i;
        while j + 1 < tiles.len() && tiles[j + 1] == tiles[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            format!("{}", tiles[i] + 1)
        } else {
            format!("{}-{}", tiles[i] + 1, tiles[j] + 1)
        });
        i = j + 1;
    }
    parts.join(",")
}

/// Progress lines of a pattern table being built, on stderr.
struct BuildNotes {
    quiet: bool,
    started: Instant,
    announced: AtomicBool,
}

impl Progress for BuildNotes {
    fn waiting(&self, what: &str) {
        if !self.quiet {
            eprintln!("# waiting: {what}");
        }
    }

    fn level_done(&self, distance: u32, boards: u64, _seconds: f64) {
        if !self.quiet {
            if !self.announced.swap(true, Ordering::Relaxed) {
                eprintln!("# building the pattern table (once when stored; see --patterns)");
            }
            eprintln!(
                "#   pattern distance {distance}: {boards} patterns ({:.1} s)",
                self.started.elapsed().as_secs_f64()
            );
        }
    }
}

/// Arguments of `twirl solve`.
#[derive(Args)]
pub struct SolveArgs {
    /// A finished table file, or a puzzle (`nrp:4x4:2`, `spin:3x3`, `def:FILE`).
    #[arg(value_name = "TABLE|PUZZLE")]
    source: String,
    /// The board, rows separated by `/` (quote it). For a definition: its state layout
    /// (`CORNERS 2 1 3 4 / 0 0 1 2`) or a move sequence from solved (`R U R'`).
    #[arg(value_name = "BOARD", allow_hyphen_values = true)]
    pub(super) board: String,
    /// With a puzzle: which moves count as one (qtm, htm, cw).
    #[arg(long, value_name = "METRIC")]
    pub(super) metric: Option<String>,
    /// With a puzzle: NRP tiles turn with their block.
    #[arg(long)]
    orient: bool,
    /// auto: a shortest solution where twirl can find one: from a table file; else from a
    /// full table built in memory when it has at most --table-entries entries (classes of
    /// boards under the puzzle's symmetries: nrp:3x4:2, nrp:4x4:3 in about 25 s); else by
    /// optimal where it applies and Korf's estimate of its search (boards / patterns) is at
    /// most 10^6 nodes a board (nrp:4x4:2: 4.0e4; its pattern table is built on the first
    /// call, minutes, and kept). Only where none does, NRP boards are solved by constructive
    /// and the output says "not shortest" and why (nrp:6x6:2); other puzzles are refused
    /// (name --method optimal to search anyway). A `# auto:` line on stderr says which way.
    /// table: a full table (a file, or built in memory). optimal: IDA* with pattern tables
    /// (shortest; moves closed under inverses; boards of at most 32 cells). constructive:
    /// Lam's method, any NRP board of any size (e.g. nrp:20x25:3), not shortest. BOARD may
    /// be `random[:SEED[:INDEX]]`: a uniformly random solvable board, as `twirl sample`
    /// draws them.
    #[arg(long, value_enum, default_value_t = Method::Auto)]
    method: Method,
    /// The largest full table --method auto builds in memory, in entries (boards, or classes
    /// of boards under the puzzle's symmetries; 4 entries a byte).
    #[arg(long, value_name = "N", default_value_t = AUTO_TABLE_STATES)]
    table_entries: u64,
    /// --json FILE: one object (puzzle, metric, board, method, moves, length, optimal,
    /// nodes, seconds); `--json -` prints it instead of the text.
    #[command(flatten)]
    pub(super) json: JsonArgs,
    /// Search optimally (implies --method optimal) and record each finished part of the
    /// search in FILE (written as it finishes) and skip what FILE lists, so a search of hours that is stopped (Ctrl-C,
    /// SIGTERM, a crash) continues where it was when run again with the same FILE. A file of
    /// another board, puzzle or pattern table is refused.
    #[arg(long, value_name = "FILE")]
    journal: Option<PathBuf>,
    #[command(flatten)]
    pub(super) patterns: PatternArgs,
}

/// Runs `twirl solve`; returns the exit code.
pub fn run(args: &SolveArgs) -> anyhow::Result<i32> {
    super::bound_setup_threads(args.patterns.threads);
    let is_puzzle =
        ["nrp:", "twiddle:", "spin:", "def:"].iter().any(|p| args.source.starts_with(p));
    let started = Instant::now();
    // No output over the definition, the table, a board file or the journal.
    let mut inputs = files_named([args.source.as_str(), &args.board]);
    inputs.extend(args.journal.iter().cloned());
    if !is_puzzle {
        inputs.push(PathBuf::from(&args.source));
    }
    args.json.check(&as_paths(&inputs))?;
    // Read once: `-` is standard input, which a fallback to another method cannot read again.
    let text = argument_text(&args.board)?.into_owned();
    if let Some((rows, cols, block, oriented)) = parse_nrp_any_size(&args.source)? {
        let large = rows * cols > MAX_BOARD_CELLS;
        if args.method == Method::Constructive || large {
            no_journal(args, "constructive")?;
            let shape = Shape { rows, cols, block };
            let code = solve_constructive(args, &text, &shape, oriented || args.orient, started)?;
            if large && args.method != Method::Constructive {
                let why = format!(
                    "{} has {} cells: boards of more than {MAX_BOARD_CELLS} are solved by the \
                     constructive method alone",
                    args.source,
                    rows * cols
                );
                say_not_shortest(args, code, &why)?;
            }
            return Ok(code);
        }
    }
    let (puzzle, board, moves, nodes, method) = if !is_puzzle {
        if args.method == Method::Optimal {
            bail!("--method optimal takes a puzzle (nrp:4x4:2), not a table file");
        }
        no_journal(args, "table")?;
        let loaded = load_source(&args.source, &args.metric, args.orient)?;
        let board = match read_board(&loaded, &text)? {
            Ok((b, _)) => b,
            Err(reasons) => return report_unsolvable(&text, &reasons),
        };
        let moves = loaded.solve(&board)?;
        (loaded.puzzle, board, moves, None, "table")
    } else {
        let puzzle = PuzzleArgs {
            puzzle: args.source.clone(),
            metric: args.metric.clone(),
            orient: args.orient,
            subset: Default::default(),
        }
        .searchable_puzzle()?;
        let board = match random_index(&text)? {
            Some((seed, index)) => RandomBoards::new(&puzzle)?.board(seed, index)?,
            None => puzzle.parse_board(&text)?,
        };
        if let Verdict::Unsolvable(reasons) = Checker::new(&puzzle)?.check(&board) {
            return report_unsolvable(&text, &reasons);
        }
        // A journal records an optimal search: asking for one asks for that method.
        let requested = match (args.method, &args.journal) {
            (Method::Auto, Some(_)) => Method::Optimal,
            (m, _) => m,
        };
        match choose(requested, &puzzle, args)? {
            Choice::Constructive(why) => {
                no_journal(args, "constructive")?;
                let shape = match puzzle.spec {
                    PuzzleSpec::Nrp { rows, cols, block, .. } => Shape { rows, cols, block },
                    _ => bail!("--method constructive solves NRP boards only"),
                };
                let code = solve_constructive(args, &text, &shape, puzzle.orient_mod > 1, started)?;
                if let Some(why) = why {
                    say_not_shortest(args, code, &why)?;
                }
                return Ok(code);
            }
            Choice::Table(space) => {
                no_journal(args, "table")?;
                let loaded = match space {
                    Some(space) => build_in_memory(puzzle, *space, None)?,
                    None => load_in_memory(puzzle)?,
                };
                let moves = loaded.solve(&board)?;
                (loaded.puzzle, board, moves, None, "table")
            }
            Choice::Optimal => {
                let prepared = args.patterns.prepare(puzzle)?;
                let solver = prepared.solver()?;
                let quiet = args.patterns.quiet;
                let progress = |limit: u32, nodes: u64| {
                    if !quiet {
                        eprintln!(
                            "# searching {limit} moves deep ({nodes} nodes so far, {:.1} s)",
                            started.elapsed().as_secs_f64()
                        );
                    }
                };
                let stop = stop_flag(quiet);
                let threads = args.patterns.threads();
                let journal = match &args.journal {
                    Some(path) => {
                        let identity =
                            SearchJournal::identity(&prepared.puzzle, &board, &prepared.tables);
                        let split = ida::default_split(threads);
                        Some((path, SearchJournal::open(path, &identity, split)?))
                    }
                    None => None,
                };
                if let (Some((_, j)), false) = (&journal, quiet)
                    && let Some((limit, nodes)) = j.exhausted()
                {
                    eprintln!("# journal: no solution within {limit} moves ({nodes} nodes)");
                }
                let record = journal.as_ref().map(|(_, j)| j);
                let sol = match solver.solve(&board, threads, &stop, &progress, record) {
                    Err(twirl::Error::Interrupted) if journal.is_some() => {
                        let path = journal.as_ref().map_or(Path::new(""), |(p, _)| p.as_path());
                        eprintln!(
                            "twirl: interrupted; {} keeps the finished part of the search: run \
                             the same command to continue",
                            path.display()
                        );
                        return Ok(super::INTERRUPTED);
                    }
                    result => result?,
                };
                let puzzle = prepared.puzzle.clone();
                (puzzle, board, sol.moves, Some(sol.nodes), "optimal")
            }
        }
    };
    let end = moves.iter().fold(board.clone(), |b, &m| puzzle.apply(&b, &puzzle.moves[m]));
    if !puzzle.is_solved(&end) {
        bail!("internal error: the solution found does not solve the board");
    }
    print_solution(&args.json, &puzzle, &board, &moves, method, nodes, started)?;
    Ok(0)
}

/// Refuses `--journal` where the board is solved by a method that keeps none.
fn no_journal(args: &SolveArgs, method: &str) -> anyhow::Result<()> {
    if args.journal.is_some() {
        bail!(
            "--journal records an optimal search (--method optimal); this board is solved by the {method} method"
        );
    }
    Ok(())
}

/// The method a solve takes.
enum Choice {
    /// A full table built in memory (with the ranking `auto` already chose, if it did).
    Table(Option<Box<StateSpace>>),
    /// IDA* over pattern tables.
    Optimal,
    /// Lam's constructive method; under `auto`, why no shortest method was taken.
    Constructive(Option<String>),
}

/// The method asked, or the one `auto` stands for: shortest where twirl can find it (a full
/// table that fits, else IDA* where it applies and its search is in reach), else for NRP the
/// constructive method, else an error saying why and what to ask for.
fn choose(method: Method, puzzle: &Puzzle, args: &SolveArgs) -> anyhow::Result<Choice> {
    let patterns = &args.patterns;
    match method {
        Method::Auto => {}
        Method::Table => return Ok(Choice::Table(None)),
        Method::Optimal => return Ok(Choice::Optimal),
        Method::Constructive => return Ok(Choice::Constructive(None)),
    }
    let say = |what: &str| {
        if !patterns.quiet {
            eprintln!("# auto: {what}");
        }
    };
    let no_table = match full_table(puzzle, args.table_entries) {
        FullTable::Fits(space) => {
            say(&format!("a full table built in memory ({} entries)", space.n_states()));
            return Ok(Choice::Table(Some(space)));
        }
        FullTable::TooLarge(why) => why,
    };
    let (no_optimal, searchable) = match patterns.estimated_nodes(puzzle) {
        Ok(nodes) if nodes <= BigUint::from(AUTO_OPTIMAL_NODES) => {
            say(&format!(
                "IDA* over pattern tables ({no_table}; Korf's estimate of the search: about {} \
                 nodes a board)",
                approximately(&nodes)
            ));
            return Ok(Choice::Optimal);
        }
        Ok(nodes) => (
            format!(
                "IDA* over its pattern tables would visit about {} nodes a board (Korf's \
                 estimate, boards / patterns; auto searches up to {:.0e}; the estimate is rough)",
                approximately(&nodes),
                AUTO_OPTIMAL_NODES as f64
            ),
            true,
        ),
        Err(e) => (format!("{e:#}"), false),
    };
    let why = format!("{no_table}; {no_optimal}");
    if matches!(puzzle.spec, PuzzleSpec::Nrp { .. }) {
        let hint = if searchable { "; --method optimal searches anyway" } else { "" };
        return Ok(Choice::Constructive(Some(format!("{why}{hint}"))));
    }
    let hint = if searchable {
        "--method optimal searches anyway"
    } else {
        "build its table once with `twirl bfs PUZZLE --table FILE` and solve from the file"
    };
    bail!(
        "expected a puzzle whose shortest solutions twirl can find, found {}: {why}; {hint}",
        puzzle.spec.named()
    )
}

/// A count of any size in a few digits (`4.0e4`).
fn approximately(n: &BigUint) -> String {
    let digits = n.to_string();
    match digits.parse::<f64>() {
        Ok(v) if v < 1e4 => digits,
        Ok(v) => format!("{v:.1e}"),
        Err(_) => digits,
    }
}

/// After a constructive solution not asked for: says why no shortest method was taken (a
/// comment line after the solution; the JSON says `"optimal": false`).
fn say_not_shortest(args: &SolveArgs, code: i32, why: &str) -> anyhow::Result<()> {
    if code == 0 && args.json.text() {
        writeln!(
            std::io::stdout().lock(),
            "# not shortest: solved by the constructive method because {why}"
        )?;
    }
    Ok(())
}

/// `random` or `random:SEED` (board 0 of the seed), `random:SEED:I` (board I): a uniformly
/// random solvable board, as `twirl sample` draws them.
pub(super) fn random_index(text: &str) -> anyhow::Result<Option<(u64, u64)>> {
    let Some(rest) = text.trim().strip_prefix("random") else { return Ok(None) };
    let bad = || {
        anyhow::anyhow!(
            "expected a board, `random`, `random:SEED` or `random:SEED:INDEX`, found `{}`",
            twirl::error::escaped(text)
        )
    };
    if rest.is_empty() {
        return Ok(Some((1, 0)));
    }
    let numbers: Vec<u64> = rest
        .strip_prefix(':')
        .ok_or_else(bad)?
        .split(':')
        .map(|t| t.parse::<u64>().map_err(|_| bad()))
        .collect::<anyhow::Result<_>>()?;
    match numbers.as_slice() {
        [seed] => Ok(Some((*seed, 0))),
        [seed, index] => Ok(Some((*seed, *index))),
        _ => Err(bad()),
    }
}

fn print_solution(
    json: &JsonArgs,
    puzzle: &Puzzle,
    board: &Board,
    moves: &[usize],
    method: &str,
    nodes: Option<u64>,
    started: Instant,
) -> anyhow::Result<()> {
    let names: Vec<&str> = moves.iter().map(|&m| puzzle.moves[m].name.as_str()).collect();
    let seconds = started.elapsed().as_secs_f64();
    json.write(&serde_json::json!({
        "puzzle": puzzle.spec.named(),
        "metric": puzzle.metric.name(),
        "board": puzzle.format_board(board),
        "method": method,
        "moves": names,
        "length": moves.len(),
        "optimal": true,
        "nodes": nodes,
        "seconds": seconds,
    }))?;
    let mut out = json.text_out();
    writeln!(out, "{}", names.join(" "))?;
    let how = match nodes {
        Some(n) => format!("shortest (IDA* over pattern tables: {n} nodes, {seconds:.2} s)"),
        None => "shortest".to_string(),
    };
    writeln!(
        out,
        "# {} moves ({} metric), {how}; checked: it solves {}",
        moves.len(),
        puzzle.metric,
        puzzle.format_board(board)
    )?;
    Ok(())
}
