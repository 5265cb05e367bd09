//! Argument parsing and the subcommands. Every subcommand is listed in [`Command`].
//! Exit codes: 0 done, 1 a "no" answer (`check`, `distance`, `solve`: unsolvable board;
//! `claims`: a verdict that does not match its record; `verify`: a published statement that
//! disagrees with the exact counts), 2 bad input or a refused file (a
//! malformed argument, a table or checkpoint that is damaged, foreign or inconsistent, an
//! output that would replace an input, a table that does not fit, an I/O failure), 130
//! interrupted by Ctrl-C or SIGTERM (a search stops at a durable point first).

mod apply;
mod batch;
mod bfs;
mod check;
mod claims;
mod constructive;
mod export_def;
mod info;
mod json;
mod large;
mod large_def;
mod phase;
mod plot;
mod progress;
mod record;
mod sample;
mod sizes;
mod solve;
mod table;
mod table_info;
mod verify;

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use clap::{Args, CommandFactory, Parser, Subcommand};

use twirl::puzzle::{Metric, Puzzle};

/// Exhaustive state-space search of rotation puzzles (NRP/Twiddle, Spinpossible) and of any
/// permutation puzzle given as a ksolve/twsearch definition (def:FILE).
#[derive(Parser)]
#[command(
    name = "twirl",
    version,
    about,
    long_about = None,
    after_help = "Exit codes: 0 done; 1 a \"no\" answer (an unsolvable board, a claim that does \
                  not match its record, a statement `verify` finds false); 2 bad input or a refused file (damaged, foreign or \
                  inconsistent table or checkpoint, an output that would replace an input); \
                  130 interrupted by Ctrl-C or SIGTERM (searches stop at a durable point)."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Enumerate every reachable board by breadth-first search: boards at each distance,
    /// God's number and antipodes.
    ///
    /// Memory: two bits per reachable board (see `twirl info`), in RAM by default or in a
    /// file with --table (resumable after a crash or Ctrl-C). The per-distance table goes to
    /// stdout; progress to stderr. Exit code 130 when stopped by Ctrl-C.
    Bfs(bfs::BfsArgs),
    /// Continue an interrupted `twirl bfs --table FILE` from its last checkpoint.
    Resume(bfs::ResumeArgs),
    /// The distance of a board (moves needed to solve it), or of every board listed by
    /// --boards, read from a finished table file. Exit code 1 if a board is unsolvable (with
    /// the reason), 2 if malformed.
    Distance(table::DistanceArgs),
    /// Every board at one distance of a finished table file, one per line in the puzzle's
    /// board notation (a table of classes expanded into its distinct boards), in the order of
    /// the table's entries; `--limit N` stops after N.
    Boards(table::BoardsArgs),
    /// God's number of a phase of a definition: from every board whose --start pieces are
    /// solved to the nearest board whose --goal pieces are solved (from a solved cross to a
    /// solved cross and first pair). Prints the start boards at each distance, the longest
    /// distance and the worst start boards with a shortest solution each. Searched in
    /// memory over the pieces the two patterns name (every other piece ignored).
    Phase(phase::PhaseArgs),
    /// A solution of a board, checked by applying it. By default a shortest one where twirl
    /// can find it: from a finished table file, a full table built in memory (at most 2^28
    /// entries), or IDA* over pattern tables built once and kept (where it applies and its
    /// search is in reach); only where none does, an NRP board is solved by Lam's constructive
    /// method and the output says "not shortest" and why (see --method). First line: the
    /// moves. Exit code 1 if the board is unsolvable (with the reason), 2 if malformed.
    Solve(solve::SolveArgs),
    /// The distance distribution of a puzzle estimated from N uniformly random boards, each
    /// solved optimally: read from a full table where one fits in memory (at most 2^28
    /// entries), else found by IDA* over pattern tables; prints the histogram, the mean and
    /// the longest in the sample (a lower bound on the largest distance), and how the
    /// distances were found. Resumable: every solved board is recorded at once, and the
    /// same command continues the sample.
    Sample(sample::SampleArgs),
    /// Compress a finished table file with zstd, for archiving and sharing.
    Export(table::ExportArgs),
    /// Decompress an exported table, checking its header and checksum.
    Import(table::ImportArgs),
    /// Join the parts of a finished MPI job (`TABLE.part-P-of-N`) into one table file TABLE,
    /// which `distance`, `solve`, `export` and `resume` read. Every part's checksum, and the
    /// whole table's marks, histogram and antipodes, are checked before it is kept.
    Join(table::JoinArgs),
    /// Draw the distance histogram of a saved result (`twirl bfs --json`) as SVG.
    Plot(plot::PlotArgs),
    /// Show a puzzle's moves, the orbits and constraints found in them, the number of
    /// reachable boards and the memory a search needs. Given a table file instead (`twirl
    /// info FILE`; also an archive of one, or one part of an MPI job), what it holds: the
    /// puzzle, its entries, how far its search got and the boards at each distance, read
    /// from its header alone (instant at any size, also while the search runs). `--json
    /// FILE` writes the same facts as JSON.
    Info(info::InfoArgs),
    /// Is a board solvable? Prints the verdict and, if not, why (a tile outside the cells it
    /// can reach, a broken parity or orientation-sum constraint, or a board outside an
    /// exceptional small group). Exit code 0 solvable, 1 unsolvable, 2 malformed input.
    Check(check::CheckArgs),
    /// The exact number of reachable boards (the order of the group the moves generate), from
    /// a stabilizer chain: works far beyond search, e.g. nrp:12x12:5 or spin:5x5. First line:
    /// the number alone.
    Order(check::OrderArgs),
    /// Check published statements against exact counts (see `twirl verify spin --help`).
    /// Exit code 1 when one disagrees (a finding, printed with the exact value).
    #[command(subcommand)]
    Verify(verify::VerifyCommand),
    /// Apply a move sequence to a board and show what it does: the board reached, the cycles
    /// of cells (per checkerboard colour class when blocks are odd), flipped or turned tiles,
    /// and whether it is the identity, a transposition or a 3-cycle.
    ///
    /// Sequences read left to right (the first move written acts first): NRP blocks `R2C3`
    /// (counter-clockwise), `R2C3'` (clockwise), `R2C3^2`; spins `[1,6]`; letters bound with
    /// --bind; grouping and powers `(X Y^2 X^-1)^35`, `X^-1`, `X^{-1}`, `X'`.
    /// Example: twirl apply nrp:3x3:2 "X Y^-1 X^-1 Y Z" --bind X=R2C1,Y=R1C2,Z=R2C2
    Apply(apply::ApplyArgs),
    /// Check the claims about move sequences collected from the sources (Lam, Sutherland &
    /// Sutherland) and print, per claim, the verdict (holds / FAILS), whether it matches the
    /// verdict recorded in the registry, and what was observed (always the cycle structure).
    ///
    /// A published claim that is false is a finding recorded as such; exit code 0 when every
    /// verdict matches its record, 1 when some do not, 2 on a malformed registry.
    Claims(claims::ClaimsArgs),
    /// Write a puzzle as a ksolve/twsearch definition (`.tws`), for twsearch and other
    /// solvers of permutation puzzles.
    ///
    /// The file has one set, TILES, a piece per cell (4 orientations with --orient, 2 for
    /// Spinpossible), the solved board, and one `Move` block per move. A move's first line
    /// gives, for each cell, the cell whose tile lands there; its second line the turn of
    /// the tile leaving each cell. twsearch counts every power of a move as one move
    /// (`R1C1`, `R1C12`, `R1C1'`), so only htm can be written: NRP blocks are declared by
    /// their counter-clockwise quarter turn, each spin by itself. qtm is refused (search
    /// the htm file with `twsearch -q`, which keeps only quarter turns) and so is cw (the
    /// inverse of a move is always a move to twsearch). Spins `[p1,p2]` are named
    /// `S<p1>_<p2>`; block numbers are zero-padded on boards with 10 or more rows or
    /// columns so that no name ends like another plus a power. The file's header lists
    /// every twirl move with its twsearch name.
    /// Example: twirl export-def nrp:3x3:2 -o nrp33.tws && twsearch -g nrp33.tws
    ExportDef(export_def::ExportDefArgs),
}

/// A puzzle and its metric.
#[derive(Args)]
pub struct PuzzleArgs {
    /// The puzzle: nrp:<rows>x<cols>:<block> (NRP/Twiddle, b x b blocks turned by quarter
    /// turns), spin:<rows>x<cols>[:<type>,...] (Spinpossible, optionally restricted to spin
    /// types such as 1x1,1x2) or def:<file> (any permutation puzzle in the ksolve/twsearch
    /// .tws format).
    #[arg(value_name = "PUZZLE")]
    pub puzzle: String,
    /// Which moves count as one: qtm (quarter turns; a half turn is two), htm (quarter and
    /// half turns), cw (clockwise quarter turns only; distances are moves needed to solve).
    /// Default: qtm for NRP, htm (each spin one move) for Spinpossible. For def:<file>: htm
    /// (default, as twsearch) counts every power of a declared move as one move, qtm only a
    /// declared move and its inverse (twsearch -q), cw the declared moves alone.
    #[arg(long, value_name = "METRIC")]
    pub metric: Option<String>,
    /// NRP only: tiles turn with their block and must end upright.
    #[arg(long)]
    pub orient: bool,
    /// def:<file> only: a subset of the puzzle (see docs/definitions.md).
    #[command(flatten)]
    pub subset: SubsetArgs,
}

/// Subsets of a def:<file> puzzle, with twsearch's option names where it has them. The file
/// is transformed as if edited by hand: `info` shows the result, and tables record it.
#[derive(Args, Clone, Debug, Default)]
pub struct SubsetArgs {
    /// def: only. Keep only these moves (twsearch --moves): the subgroup they generate. Each
    /// a declared move or a power of one (R, R2); every power of a kept move is a move (R
    /// keeps R, R2, R'; R2 keeps R2 alone).
    #[arg(
        long,
        value_name = "MOVE,...",
        value_delimiter = ',',
        help_heading = "Subsets (def: only)"
    )]
    pub moves: Option<Vec<String>>,
    /// Leave a set out entirely: its pieces are not seen (twsearch --omit). Repeatable.
    #[arg(long, value_name = "SET", help_heading = "Subsets (def: only)")]
    pub omit: Vec<String>,
    /// Leave out the corner sets (twsearch's rule: a name starting c?r, as CORNERS, C5RNER).
    #[arg(long, help_heading = "Subsets (def: only)")]
    pub nocorners: bool,
    /// Leave out the edge sets (twsearch's rule: a name starting ed, as EDGES).
    #[arg(long, help_heading = "Subsets (def: only)")]
    pub noedges: bool,
    /// Leave out the center sets (twsearch's rule: a name starting ce, as CENTERS).
    #[arg(long, help_heading = "Subsets (def: only)")]
    pub nocenters: bool,
    /// Forget every orientation: each set gets one orientation (twsearch --noorientation).
    #[arg(long, help_heading = "Subsets (def: only)")]
    pub noorientation: bool,
    /// Forget the orientations of one set (twsearch --omitoris). Repeatable.
    #[arg(long, value_name = "SET", help_heading = "Subsets (def: only)")]
    pub omitoris: Vec<String>,
    /// Make all pieces of a set identical, orientations kept (twsearch --omitperms).
    /// Repeatable.
    #[arg(long, value_name = "SET", help_heading = "Subsets (def: only)")]
    pub omitperms: Vec<String>,
    /// Make pieces identical: SET (all of it) or SET:1,2,5 or SET:1-4 (the pieces solved at those
    /// positions, 1-based). Their orientations are still seen. Repeatable.
    #[arg(long, value_name = "SET[:POS,...]", value_parser = twirl::puzzle::subset::PieceGroup::parse, help_heading = "Subsets (def: only)")]
    pub identical: Vec<twirl::puzzle::subset::PieceGroup>,
    /// Ignore pieces: made identical and their orientation not seen (`?`), so only where
    /// the other pieces are matters. SET or SET:1,2,5. Repeatable.
    #[arg(long, value_name = "SET[:POS,...]", value_parser = twirl::puzzle::subset::PieceGroup::parse, help_heading = "Subsets (def: only)")]
    pub ignore: Vec<twirl::puzzle::subset::PieceGroup>,
}

impl SubsetArgs {
    fn subset(&self) -> twirl::puzzle::subset::Subset {
        twirl::puzzle::subset::Subset {
            moves: self.moves.clone(),
            omit: self.omit.clone(),
            no_corners: self.nocorners,
            no_edges: self.noedges,
            no_centers: self.nocenters,
            no_orientation: self.noorientation,
            omit_oris: self.omitoris.clone(),
            omit_perms: self.omitperms.clone(),
            identical: self.identical.clone(),
            ignore: self.ignore.clone(),
        }
    }
}

impl PuzzleArgs {
    /// Builds the puzzle, or a one-line error.
    pub fn puzzle(&self) -> twirl::Result<Puzzle> {
        let (spec, metric) = self.spec()?;
        Puzzle::new(&spec, metric)
    }

    /// The puzzle's spec (with `--orient` and the subset flags applied) and its metric.
    fn spec(&self) -> twirl::Result<(twirl::puzzle::PuzzleSpec, Metric)> {
        let metric = self.metric.as_deref().map(Metric::parse).transpose()?;
        let mut spec = twirl::puzzle::PuzzleSpec::parse(&self.puzzle)?;
        if self.orient {
            match &mut spec {
                twirl::puzzle::PuzzleSpec::Nrp { oriented, .. } => *oriented = true,
                _ => {
                    return Err(twirl::Error::InvalidPuzzle {
                        spec: self.puzzle.clone(),
                        reason:
                            "--orient applies to NRP boards only (Spinpossible tiles already flip)"
                                .into(),
                    });
                }
            }
        }
        let subset = self.subset.subset();
        if !subset.is_empty() {
            match &mut spec {
                twirl::puzzle::PuzzleSpec::Def(d) => *d = std::sync::Arc::new(d.subset(&subset)?),
                _ => {
                    return Err(twirl::Error::InvalidPuzzle {
                        spec: self.puzzle.clone(),
                        reason: format!(
                            "{} applies to def:<file> puzzles only (their sets and moves are \
                             named in the file)",
                            subset.describe()
                        ),
                    });
                }
            }
        }
        let metric = metric.unwrap_or_else(|| spec.default_metric());
        Ok((spec, metric))
    }

    /// The puzzle as a definition past the cells of the search's boards, when it is one
    /// (after the subset flags, which may bring it below): `info`, `order`, `check` and
    /// `apply` take it on wide boards.
    pub fn large_def(
        &self,
    ) -> twirl::Result<Option<(std::sync::Arc<twirl::puzzle::defined::Defined>, Metric)>> {
        if !self.puzzle.starts_with("def:") {
            return Ok(None);
        }
        match self.spec()? {
            (twirl::puzzle::PuzzleSpec::Def(d), metric) if d.is_wide() => Ok(Some((d, metric))),
            _ => Ok(None),
        }
    }

    /// [`PuzzleArgs::puzzle`] for a search (bfs, sample): refused, with the reason, where
    /// twirl's searches cannot honour the definition (`Illegal` boards).
    pub fn searchable_puzzle(&self) -> twirl::Result<Puzzle> {
        let puzzle = self.puzzle()?;
        if let Some(reason) = puzzle.defined().and_then(|d| d.search_refusal()) {
            return Err(twirl::Error::InvalidPuzzle { spec: self.puzzle.clone(), reason });
        }
        Ok(puzzle)
    }
}

/// Runs the command line and returns the exit code.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion)
                || matches!(e.kind(), ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand)
            {
                let _ = e.print();
                return if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                    2
                } else {
                    0
                };
            }
            let _ = writeln!(std::io::stderr(), "twirl: {}", one_line_usage_error(&e));
            return 2;
        }
    };
    let result = match &cli.command {
        Command::Bfs(args) => bfs::run(args),
        Command::Resume(args) => bfs::run_resume(args),
        Command::Distance(args) => table::run_distance(args),
        Command::Boards(args) => table::run_boards(args).map(|()| 0),
        Command::Phase(args) => phase::run(args).map(|()| 0),
        Command::Solve(args) => solve::run(args),
        Command::Sample(args) => sample::run(args),
        Command::Export(args) => table::run_export(args).map(|()| 0),
        Command::Import(args) => table::run_import(args).map(|()| 0),
        Command::Join(args) => table::run_join(args).map(|()| 0),
        Command::Plot(args) => plot::run(args).map(|()| 0),
        Command::Info(args) => info::run(args).map(|()| 0),
        Command::Check(args) => check::run_check(args).map(|solvable| if solvable { 0 } else { 1 }),
        Command::Order(args) => check::run_order(args).map(|()| 0),
        Command::Verify(cmd) => verify::run(cmd).map(|agrees| if agrees { 0 } else { 1 }),
        Command::Apply(args) => apply::run(args).map(|()| 0),
        Command::Claims(args) => claims::run(args).map(|ok| if ok { 0 } else { 1 }),
        Command::ExportDef(args) => export_def::run(args).map(|()| 0),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            if is_broken_pipe(&e) {
                return 0;
            }
            if matches!(e.downcast_ref::<twirl::Error>(), Some(twirl::Error::Interrupted)) {
                let _ = writeln!(std::io::stderr(), "twirl: interrupted; nothing was written");
                return INTERRUPTED;
            }
            if let Some(twirl::Error::InterruptedKept(kept)) = e.downcast_ref::<twirl::Error>() {
                let _ = writeln!(std::io::stderr(), "twirl: interrupted; {kept}");
                return INTERRUPTED;
            }
            // A list of boards: one line per line in error, the first few of a long list.
            if let Some(twirl::Error::InvalidBoardList(each)) = e.downcast_ref::<twirl::Error>() {
                const SHOWN: usize = 20;
                for line in each.lines().take(SHOWN) {
                    let _ = writeln!(
                        std::io::stderr(),
                        "twirl: error: {}",
                        twirl::error::one_line(line)
                    );
                }
                let more = each.lines().count().saturating_sub(SHOWN);
                if more > 0 {
                    let _ = writeln!(
                        std::io::stderr(),
                        "twirl: error: and {more} more lines in error (the first {SHOWN} shown)"
                    );
                }
                return 2;
            }
            // One line whatever the message repeats (a path or an input with a newline).
            let _ = writeln!(
                std::io::stderr(),
                "twirl: error: {}",
                twirl::error::one_line(&format!("{e:#}"))
            );
            2
        }
    }
}

/// clap's message as one line, like every other error: what it says before its usage block
/// (the missing argument's name, the near miss it suggests), then the help of the
/// subcommand the user typed.
fn one_line_usage_error(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let said: Vec<&str> = text
        .lines()
        .map(str::trim)
        .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"))
        .filter(|l| !l.is_empty())
        .collect();
    let said = said.join(" ").replace("error: ", "").replace(" tip: ", "; ");
    let said = if said.is_empty() { "invalid arguments".to_string() } else { said };
    let command = std::env::args()
        .nth(1)
        .filter(|a| Cli::command().get_subcommands().any(|c| c.get_name() == a));
    match command {
        Some(c) => format!("{said} (see twirl {c} --help)"),
        None => format!("{said} (see twirl --help)"),
    }
}

/// Set when a result file of a search (`--json -`, `--plot -`) goes to standard output: the
/// text report then goes to stderr, so stdout holds the result alone.
static REPORT_TO_STDERR: AtomicBool = AtomicBool::new(false);

/// Sends the text report of a search to stderr when one of `outputs` is `-`; refuses two
/// outputs on standard output at once.
pub fn claim_stdout<'a>(
    outputs: impl IntoIterator<Item = &'a Option<std::path::PathBuf>>,
) -> anyhow::Result<()> {
    let on_stdout =
        outputs.into_iter().flatten().filter(|p| twirl::job::outputs::is_stdout(p)).count();
    if on_stdout > 1 {
        anyhow::bail!("--json and --plot: expected at most one of them on standard output (`-`)");
    }
    if on_stdout == 1 {
        REPORT_TO_STDERR.store(true, Ordering::Relaxed);
    }
    Ok(())
}

/// Where a search's text report goes: stdout, or stderr after [`claim_stdout`].
pub fn report_out() -> Box<dyn Write> {
    match REPORT_TO_STDERR.load(Ordering::Relaxed) {
        true => Box::new(std::io::stderr().lock()),
        false => Box::new(std::io::stdout().lock()),
    }
}

/// Builds the global thread pool, on which set-up work runs (classifying placements,
/// tabulating maps), with `--threads` workers where it was given (set-up used to take every
/// core whatever the flag said), one per core where they take every core
/// ([`twirl::pinning`]). A pool already built is left as it is.
pub fn bound_setup_threads(threads: Option<usize>) {
    // Without the flag, RAYON_NUM_THREADS still sizes set-up's pool as it always did.
    if threads.is_none() && std::env::var_os("RAYON_NUM_THREADS").is_some() {
        return;
    }
    let n = threads.filter(|&n| n > 0).unwrap_or_else(default_threads);
    let mut pool = rayon::ThreadPoolBuilder::new().num_threads(n);
    if let Some(pin) = twirl::pinning::one_per_core(n) {
        pool = pool.start_handler(pin);
    }
    // Fails only where the pool was built already.
    let _ = pool.build_global();
}

/// Worker threads when none are asked for: one per core.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

/// Exit code of a command stopped by Ctrl-C or SIGTERM (128 + SIGINT).
pub const INTERRUPTED: i32 = 130;

/// The flag a Ctrl-C, SIGTERM or SIGHUP sets, for commands that stop cleanly (searches at a
/// durable point; export and import after removing their temporary file). A second signal
/// removes the temporary files still registered and exits at once. Installed on first use.
pub fn stop_flag(quiet: bool) -> Arc<AtomicBool> {
    static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    FLAG.get_or_init(|| {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let installed = ctrlc::set_handler(move || {
            if flag.swap(true, Ordering::Relaxed) {
                twirl::durable::remove_temp_files();
                std::process::exit(INTERRUPTED);
            }
            if !quiet {
                let _ = writeln!(std::io::stderr(), "\nstopping at the next durable point...");
            }
        });
        if let Err(e) = installed {
            // Without the handler a signal ends the process; the journal still keeps the
            // search resumable from its last checkpoint.
            let _ = writeln!(std::io::stderr(), "twirl: warning: cannot catch Ctrl-C: {e}");
        }
        stop
    })
    .clone()
}

/// The text of an argument that may be long: `-` reads standard input, `@FILE` a file (a
/// board of 10,000 tiles or a solution of 100,000 moves passes the 128 KiB one argument may
/// hold); anything else is the text itself.
pub fn argument_text(value: &str) -> anyhow::Result<std::borrow::Cow<'_, str>> {
    use anyhow::Context;
    use std::io::Read;
    if value == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .context("reading standard input (`-`: a board or sequence expected there)")?;
        return Ok(text.trim_end().to_string().into());
    }
    match value.strip_prefix('@') {
        Some(path) => {
            let text = std::fs::read_to_string(path).with_context(|| {
                format!("{path}: cannot read it (`@FILE`: a board or sequence expected there)")
            })?;
            Ok(text.trim_end().to_string().into())
        }
        None => Ok(value.into()),
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
