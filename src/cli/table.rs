//! Commands on finished tables: `distance` (lookups; `solve` reads tables through [`Loaded`]
//! too), `export` and `import` (zstd archives). The tables are opened, verified and archived by the
//! library ([`twirl::job::open_table`], [`twirl::archive`]); this module parses and prints.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use anyhow::bail;
use clap::Args;

use twirl::bfs::{self, Config, NoProgress};
use twirl::group::solvable::{Checker, Verdict};
use twirl::job::open_table;
use twirl::optimal::at_distance;
use twirl::puzzle::goals::Goals;
use twirl::puzzle::{Board, Puzzle};
use twirl::random::RandomBoards;
use twirl::rank::{StateSpace, SymmetryMode};
use twirl::table::{DistanceTable, mark_of, table_bytes};

use super::json::{JsonArgs, as_paths, files_named};
use super::sizes::{available_memory, human};
use super::{PuzzleArgs, stop_flag};

/// Arguments of `twirl distance`.
#[derive(Args)]
pub struct DistanceArgs {
    /// A finished table file (`twirl bfs PUZZLE --table FILE`), or a puzzle (`nrp:3x3:2`,
    /// `def:FILE`): then its table is built in memory first (small puzzles).
    #[arg(value_name = "TABLE|PUZZLE")]
    source: String,
    /// The board, rows separated by `/` (quote it). For a definition: its state layout
    /// (`CORNERS 2 1 3 4 / 0 0 1 2`) or a move sequence from solved (`R U R'`). `-` reads
    /// it from standard input, `@FILE` from a file; `random[:SEED[:INDEX]]` is a uniformly
    /// random solvable board, the one `solve` and `sample` draw.
    #[arg(
        value_name = "BOARD",
        allow_hyphen_values = true,
        required_unless_present = "boards",
        conflicts_with = "boards"
    )]
    board: Option<String>,
    /// The distances of many boards, one per line of FILE (`-`: standard input; blank lines
    /// and text after `#` skipped), looked up in one table opened once: prints
    /// `DISTANCE<TAB>BOARD` per line in order (`unsolvable<TAB>BOARD<TAB># because ...`),
    /// then the count at each distance on stderr. A malformed line stops the command before
    /// any lookup (every such line told, exit 2); exit 1 if a board is unsolvable.
    #[arg(long, value_name = "FILE", allow_hyphen_values = true)]
    boards: Option<String>,
    /// With --boards: a shortest solution after each distance (`DISTANCE<TAB>BOARD<TAB>MOVES`,
    /// checked by applying it; "moves" in the JSON).
    #[arg(long)]
    moves: bool,
    /// With a puzzle: which moves count as one (qtm, htm, cw).
    #[arg(long, value_name = "METRIC")]
    metric: Option<String>,
    /// With a puzzle: NRP tiles turn with their block.
    #[arg(long)]
    orient: bool,
    /// --json FILE: {"puzzle", "metric", "board", "distance", "shortest_solutions"}
    /// (the last "one" or "several" with a table of unique-solution bits, else null). An
    /// unsolvable board writes none. With --boards: {"puzzle", "metric", "boards": [{"line",
    /// "board", "distance", "moves", "unsolvable"}], "histogram", "unsolvable"} (a board's
    /// "distance" null and "unsolvable" its reasons where it has no solution; "moves" null
    /// without --moves).
    #[command(flatten)]
    json: JsonArgs,
}

/// Arguments of `twirl boards`.
#[derive(Args)]
pub struct BoardsArgs {
    /// A finished table file (`twirl bfs PUZZLE --table FILE`).
    #[arg(value_name = "TABLE")]
    table: PathBuf,
    /// The distance whose boards are written: from 0 to the table's God's number. A mark
    /// holds the distance modulo 3, so each board marked like it is measured by a descent
    /// of at most D moves.
    #[arg(long, value_name = "D")]
    distance: u32,
    /// Write at most N boards (default: every board at the distance).
    #[arg(long, value_name = "N")]
    limit: Option<u64>,
    /// For a table searched from goals (`bfs --goals FILE`): the same goals (their
    /// distances are to the nearest of them).
    #[arg(long, value_name = "FILE", allow_hyphen_values = true)]
    goals: Option<String>,
    /// --json FILE: {"puzzle", "metric", "distance", "boards_at_distance", "listed",
    /// "boards"}.
    #[command(flatten)]
    json: JsonArgs,
}

/// Arguments of `twirl export`.
#[derive(Args)]
pub struct ExportArgs {
    /// A finished table file.
    #[arg(value_name = "TABLE")]
    table: PathBuf,
    /// The archive to write (zstd).
    #[arg(value_name = "OUT.zst")]
    output: PathBuf,
    /// zstd level (1 fast .. 19 small).
    #[arg(long, default_value_t = 9, value_parser = clap::value_parser!(i32).range(1..=19))]
    level: i32,
    /// Replace an existing OUT.zst.
    #[arg(long)]
    force: bool,
    /// No messages on stderr (as "stopping..." after Ctrl-C).
    #[arg(long, short)]
    quiet: bool,
}

/// Arguments of `twirl join`.
#[derive(Args)]
pub struct JoinArgs {
    /// The table name the MPI job was given (`--table TABLE`): its parts
    /// `TABLE.part-P-of-N` lie beside it, and the whole table is written as TABLE.
    #[arg(value_name = "TABLE")]
    table: PathBuf,
    /// Replace an existing TABLE (never one another process is writing).
    #[arg(long)]
    force: bool,
    /// No messages on stderr (as "stopping..." after Ctrl-C).
    #[arg(long, short)]
    quiet: bool,
}

/// Arguments of `twirl import`.
#[derive(Args)]
pub struct ImportArgs {
    /// An archive written by `twirl export`.
    #[arg(value_name = "IN.zst")]
    input: PathBuf,
    /// The table file to write.
    #[arg(value_name = "TABLE")]
    table: PathBuf,
    /// Replace an existing TABLE (never one another process is writing).
    #[arg(long)]
    force: bool,
    /// No messages on stderr (as "stopping..." after Ctrl-C).
    #[arg(long, short)]
    quiet: bool,
}

/// A finished table with its puzzle and ranking, and the largest distance in it.
pub(super) struct Loaded {
    pub(super) puzzle: Puzzle,
    pub(super) space: StateSpace,
    pub(super) table: DistanceTable,
    pub(super) gods_number: u32,
}

impl Loaded {
    /// A shortest solution, never longer than God's number (else "table is inconsistent").
    pub(super) fn solve(&self, board: &Board) -> anyhow::Result<Vec<usize>> {
        Ok(twirl::optimal::solve(&self.puzzle, &self.space, &self.table, board, self.gods_number)?)
    }
}

/// A table file, or a puzzle spec whose table is built in memory.
pub(super) fn load_source(
    source: &str,
    metric: &Option<String>,
    orient: bool,
) -> anyhow::Result<Loaded> {
    let is_puzzle = ["nrp:", "twiddle:", "spin:", "def:"].iter().any(|p| source.starts_with(p));
    if is_puzzle {
        let p = PuzzleArgs {
            puzzle: source.to_string(),
            metric: metric.clone(),
            orient,
            subset: Default::default(),
        };
        load_in_memory(p.searchable_puzzle()?)
    } else {
        if metric.is_some() || orient {
            bail!("--metric and --orient go with a puzzle; a table file records its own");
        }
        load_file(Path::new(source))
    }
}

fn load_file(path: &Path) -> anyhow::Result<Loaded> {
    let t = open_table(path)?;
    if let Some(goals) = &t.file.header.goals {
        // Its distances are to the nearest goal: a descent would end at a goal, not solved.
        bail!(
            "{}: expected a table searched from solved, found one from {goals} (`bfs --goals`); \
             its distances are to the nearest goal, which `distance` and `solve` do not \
             read (`twirl boards` lists the boards at a distance)",
            path.display()
        );
    }
    let gods_number = t.gods_number();
    Ok(Loaded { puzzle: t.puzzle, space: t.space, table: t.file.table, gods_number })
}

/// Largest full table built in memory without being asked (`solve`'s and `sample`'s default
/// method; `--table-entries`): 2^28 entries, 64 MiB; nrp:3x4:2 by classes (120,199,680
/// entries) takes 25 s on 2 cores.
pub(super) const AUTO_TABLE_STATES: u64 = 1 << 28;

/// Whether a full table of a puzzle can be built in memory, and its ranking if so.
pub(super) enum FullTable {
    /// The ranking to build it with.
    Fits(Box<StateSpace>),
    /// Why not (too many entries, too little memory, or no ranking), in a few words.
    TooLarge(String),
}

/// The ranking of a full table of `puzzle` in memory, chosen as `twirl bfs` chooses it
/// (boards or classes of boards under the puzzle's symmetries, whichever searches faster,
/// classes where only they fit), if it has at most `max_states` entries and takes at most
/// half the memory available.
pub(super) fn full_table(puzzle: &Puzzle, max_states: u64) -> FullTable {
    let fits = |s: &StateSpace| {
        s.n_states() <= max_states
            && available_memory().is_none_or(|m| table_bytes(s.n_states()) <= m / 2)
    };
    let space = match StateSpace::for_search(puzzle, SymmetryMode::Auto, false) {
        Ok(s) => s,
        Err(e) => return FullTable::TooLarge(format!("no full table ({e})")),
    };
    if fits(&space) {
        return FullTable::Fits(Box::new(space));
    }
    let space = match space.entry_classes() {
        Some(_) => space,
        // Boards were chosen for speed; classes are a fraction of them.
        None => match StateSpace::for_search(puzzle, SymmetryMode::On, false) {
            Ok(classes) if fits(&classes) => return FullTable::Fits(Box::new(classes)),
            Ok(classes) => classes,
            Err(_) => space,
        },
    };
    let (n, bytes) = (space.n_states(), table_bytes(space.n_states()));
    FullTable::TooLarge(match available_memory() {
        Some(free) if n <= max_states => format!(
            "its full table of {n} entries needs {} (memory available: {})",
            human(bytes),
            human(free)
        ),
        _ => format!("its full table has {n} entries, more than --table-entries ({max_states})"),
    })
}

/// Builds the table of a small puzzle in memory (by classes of boards where the puzzle has
/// symmetries and only they fit, see [`full_table`]).
pub(super) fn load_in_memory(puzzle: Puzzle) -> anyhow::Result<Loaded> {
    match full_table(&puzzle, u64::MAX) {
        FullTable::Fits(space) => Ok(build_in_memory(puzzle, *space, None)?),
        FullTable::TooLarge(why) => bail!(
            "expected a puzzle whose full table fits in memory, found {}: {why}; build it once \
             with `twirl bfs {} --table FILE` and solve from the file",
            puzzle.spec.named(),
            puzzle.spec.named()
        ),
    }
}

/// Searches every board of `puzzle` into a table in memory ranked by `space`; `stop` ends
/// the search early with [`twirl::Error::Interrupted`].
pub(super) fn build_in_memory(
    puzzle: Puzzle,
    space: StateSpace,
    stop: Option<Arc<AtomicBool>>,
) -> twirl::Result<Loaded> {
    let table = DistanceTable::in_memory(space.n_states())?;
    let threads = super::default_threads();
    let config = Config { stop, ..Config::new(threads) };
    let out = bfs::search_puzzle(&puzzle, &space, &table, &config, &NoProgress)?;
    if !out.complete {
        return Err(twirl::Error::Interrupted);
    }
    Ok(Loaded { puzzle, space, table, gods_number: out.gods_number() })
}

/// The board, or why it cannot be looked up: malformed (an error, exit 2) or unsolvable
/// (`Ok(Err(reasons))`, exit 1).
pub(super) fn read_board(
    l: &Loaded,
    text: &str,
) -> anyhow::Result<Result<(Board, u64), Vec<String>>> {
    let board = match super::solve::random_index(text)? {
        Some((seed, index)) => RandomBoards::new(&l.puzzle)?.board(seed, index)?,
        None => l.puzzle.parse_board(text)?,
    };
    let ranked = l.space.rank_board(&board);
    // Every ranked board is reachable, but in the space of a group smaller than its
    // invariants (`StateSpace::n_reachable`).
    if let Ok(rank) = ranked
        && l.space.n_reachable() == l.space.n_states()
    {
        return Ok(Ok((board, rank)));
    }
    match (Checker::new(&l.puzzle)?.check(&board), ranked) {
        (Verdict::Unsolvable(reasons), _) => Ok(Err(reasons)),
        (Verdict::Solvable, Ok(rank)) => Ok(Ok((board, rank))),
        (Verdict::Solvable, Err(_)) => bail!("internal error: a solvable board has no rank"),
    }
}

/// Says why a board has no solution; exit code 1, as `twirl check`.
pub(super) fn report_unsolvable(text: &str, reasons: &[String]) -> anyhow::Result<i32> {
    let mut err = std::io::stderr().lock();
    writeln!(err, "twirl: unsolvable board: {text}")?;
    for r in reasons {
        writeln!(err, "  because {r}")?;
    }
    Ok(1)
}

/// Runs `twirl boards`.
pub fn run_boards(args: &BoardsArgs) -> anyhow::Result<()> {
    let mut inputs = vec![args.table.clone()];
    inputs.extend(args.goals.as_deref().filter(|g| *g != "-").map(PathBuf::from));
    args.json.check(&as_paths(&inputs))?;
    let t = open_table(&args.table)?;
    let goals = args.goals.as_deref().map(|g| Goals::read(&t.puzzle, g)).transpose()?;
    Goals::check_same(&args.table, t.file.header.goals.as_ref(), goals.as_ref())?;
    let h = &t.file.header;
    let boards = if h.boards.is_empty() { &h.histogram } else { &h.boards };
    let Some(&at_distance) = boards.get(args.distance as usize) else {
        bail!(
            "expected a distance from 0 to {} (the table's God's number), found {}",
            t.gods_number(),
            args.distance
        );
    };
    let starts = match &goals {
        Some(g) => g.boards.clone(),
        None => vec![t.puzzle.solved()],
    };
    let limit = args.limit.unwrap_or(u64::MAX);
    let mut out = std::io::BufWriter::new(args.json.text_out());
    let mut kept = Vec::new();
    let mut emit = |b: &Board| -> twirl::Result<bool> {
        if kept.len() as u64 >= limit {
            return Ok(false);
        }
        let text = t.puzzle.format_board(b);
        writeln!(out, "{text}").map_err(|e| twirl::Error::io("standard output", e))?;
        kept.push(text);
        Ok(true)
    };
    let space = &t.space;
    if limit > 0 {
        at_distance::boards_at(&t.puzzle, space, &t.file.table, args.distance, &starts, &mut emit)?;
    }
    out.flush()?;
    drop(out);
    if (kept.len() as u64) < limit.min(at_distance) {
        bail!(
            "the table is inconsistent: it records {at_distance} boards at distance {}, {} \
             were found",
            args.distance,
            kept.len()
        );
    }
    args.json.write(&serde_json::json!({
        "puzzle": t.puzzle.spec.named(),
        "metric": t.puzzle.metric.name(),
        "distance": args.distance,
        "boards_at_distance": at_distance,
        "listed": kept.len(),
        "boards": kept,
    }))
}

/// Runs `twirl distance`; returns the exit code.
pub fn run_distance(args: &DistanceArgs) -> anyhow::Result<i32> {
    if args.moves && args.boards.is_none() {
        bail!(
            "expected --moves with --boards FILE, found it with one board (`twirl solve` solves one)"
        );
    }
    let board = args.board.as_deref().unwrap_or_default();
    let mut inputs = files_named([args.source.as_str(), board]);
    inputs.push(PathBuf::from(&args.source));
    inputs.extend(args.boards.as_deref().filter(|b| *b != "-").map(PathBuf::from));
    args.json.check(&as_paths(&inputs))?;
    let l = load_source(&args.source, &args.metric, args.orient)?;
    if let Some(list) = &args.boards {
        return super::batch::run_distances(&l, list, args.moves, &args.json);
    }
    let text = super::argument_text(board)?;
    let (board, rank) = match read_board(&l, &text)? {
        Ok(found) => found,
        Err(reasons) => return report_unsolvable(&text, &reasons),
    };
    let moves = l.solve(&board)?;
    // The descent's length is the distance; the mark must agree with it.
    if l.table.get(rank) != mark_of(moves.len() as u32) {
        bail!(
            "the table is inconsistent: the board's mark disagrees with the length of its descent"
        );
    }
    let unique = l.table.has_unique_bits().then(|| l.table.is_multi(rank));
    args.json.write(&serde_json::json!({
        "puzzle": l.puzzle.spec.named(),
        "metric": l.puzzle.metric.name(),
        "board": l.puzzle.format_board(&board),
        "distance": moves.len(),
        "shortest_solutions": unique.map(|multi| if multi { "several" } else { "one" }),
    }))?;
    let mut out = args.json.text_out();
    writeln!(out, "{}", moves.len())?;
    if super::solve::random_index(&text)?.is_some() {
        writeln!(out, "# board: {}", l.puzzle.format_board(&board))?;
    }
    if let Some(multi) = unique {
        let how = if multi { "two or more" } else { "exactly one" };
        writeln!(out, "# shortest solutions: {how}")?;
    }
    Ok(0)
}

/// Runs `twirl export`.
pub fn run_export(args: &ExportArgs) -> anyhow::Result<()> {
    let threads = super::default_threads() as u32;
    let stop = stop_flag(args.quiet);
    let done =
        twirl::archive::export(&args.table, &args.output, args.level, threads, args.force, &stop)?;
    println!(
        "{}: {} -> {} ({:.1}x)",
        args.output.display(),
        human(done.table_bytes),
        human(done.archive_bytes),
        done.table_bytes as f64 / done.archive_bytes.max(1) as f64
    );
    Ok(())
}

/// Runs `twirl join`.
pub fn run_join(args: &JoinArgs) -> anyhow::Result<()> {
    let stop = stop_flag(args.quiet);
    let (h, parts) = twirl::job::join::join_parts(&args.table, args.force, &stop)?;
    println!(
        "{}: {} {}, {} parts joined, God's number {}, checksum verified",
        args.table.display(),
        h.puzzle,
        h.metric,
        parts,
        h.histogram.len().saturating_sub(1)
    );
    Ok(())
}

/// Runs `twirl import`.
pub fn run_import(args: &ImportArgs) -> anyhow::Result<()> {
    let stop = stop_flag(args.quiet);
    let header = twirl::archive::import(&args.input, &args.table, args.force, &stop)?;
    println!(
        "{}: {} {}, {} boards, checksum verified",
        args.table.display(),
        header.named_puzzle(),
        header.metric,
        header.n_states
    );
    Ok(())
}
