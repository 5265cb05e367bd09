//! `twirl phase`: God's number between two patterns of a definition ([`twirl::phase`]);
//! this module parses, checks the memory, and prints.

use std::io::Write;

use anyhow::bail;
use clap::Args;

use twirl::bfs::{Direction, Progress};
use twirl::phase::{LISTED, Phase, PhaseOutcome};
use twirl::puzzle::subset::PieceGroup;

use super::json::{JsonArgs, as_paths, files_named};
use super::progress::Bar;
use super::sizes::{available_memory, human};
use super::{PuzzleArgs, default_threads, stop_flag};

/// Arguments of `twirl phase`.
#[derive(Args)]
pub struct PhaseArgs {
    #[command(flatten)]
    puzzle: PuzzleArgs,
    /// Pieces solved (in place and orientation) on every start board: SET (all of it),
    /// SET:1,2,5 or SET:1-4 (1-based positions in the solved state). Repeatable; none: every
    /// board of the puzzle.
    #[arg(long, value_name = "SET[:POS,...]", value_parser = PieceGroup::parse)]
    start: Vec<PieceGroup>,
    /// Pieces solved on every goal board, as --start. Repeatable; none: every piece (the
    /// solved board).
    #[arg(long, value_name = "SET[:POS,...]", value_parser = PieceGroup::parse)]
    goal: Vec<PieceGroup>,
    /// List up to N start boards at the largest distance, each with a shortest solution
    /// that brings the goal pieces home (0: none).
    #[arg(long, value_name = "N", default_value_t = LISTED)]
    antipodes: usize,
    /// Worker threads (default: one per core).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// No progress bar on stderr.
    #[arg(long, short)]
    quiet: bool,
    /// --json FILE: {"puzzle", "metric", "tracked", "start", "goal", "goal_boards",
    /// "start_boards", "histogram", "longest", "antipodes", "antipode_boards" (each
    /// {"board", "solution"}), "entries", "elapsed_seconds", "threads"}.
    #[command(flatten)]
    json: JsonArgs,
}

/// Runs `twirl phase`.
pub fn run(args: &PhaseArgs) -> anyhow::Result<()> {
    super::bound_setup_threads(args.threads);
    args.json.check(&as_paths(&files_named([args.puzzle.puzzle.as_str()])))?;
    let puzzle = args.puzzle.puzzle()?;
    let goal = (!args.goal.is_empty()).then_some(args.goal.as_slice());
    let phase = Phase::new(&puzzle, &args.start, goal)?;
    let space = phase.space()?;
    let need = Phase::memory_bytes(&space);
    if let Some(free) = available_memory()
        && need > free / 10 * 9
    {
        bail!(
            "table does not fit: expected at most {} for the phase (90% of the memory \
             available), found {} entries of the tracked pieces ({}), needing {}",
            human(free / 10 * 9),
            space.n_states(),
            phase.tracked_pieces,
            human(need)
        );
    }
    let threads = args.threads.unwrap_or_else(default_threads).max(1);
    let stop = stop_flag(args.quiet);
    let bar = Bar::new(space.n_reachable(), "tracked boards", !args.quiet);
    let out = phase.run(&space, threads, args.antipodes, Some(stop), &SearchBar(&bar));
    bar.finish();
    let out = out?;
    let mut text = std::io::BufWriter::new(args.json.text_out());
    let named = puzzle.spec.named();
    write_text(&mut text, args, &named, &phase, &out, threads)?;
    text.flush()?;
    drop(text);
    args.json.write(&json_of(args, &named, &phase, &out, threads))
}

/// The bar over the tracked boards, without the per-distance rows of `bfs` (the phase's
/// rows count start boards, printed at the end).
struct SearchBar<'a>(&'a Bar);

impl Progress for SearchBar<'_> {
    fn level_started(&self, distance: u32, frontier: u64, direction: Direction) {
        self.0.level_started(distance, frontier, direction)
    }

    fn found(&self, n: u64) {
        self.0.found(n)
    }
}

/// `SET:POS,...` groups as the command line gives them; `none` for an empty pattern.
fn pattern(groups: &[PieceGroup], none: &str) -> String {
    if groups.is_empty() {
        return none.into();
    }
    groups.iter().map(PieceGroup::to_string).collect::<Vec<_>>().join(" ")
}

fn write_text(
    w: &mut impl Write,
    args: &PhaseArgs,
    named: &str,
    phase: &Phase,
    out: &PhaseOutcome,
    threads: usize,
) -> anyhow::Result<()> {
    let puzzle = &phase.tracked;
    writeln!(
        w,
        "# phase of {named} (metric {}): pieces tracked {}, every other piece ignored",
        puzzle.metric.name(),
        phase.tracked_pieces
    )?;
    writeln!(
        w,
        "# from {} start boards ({} solved) to the nearest of {} goal boards ({} solved)",
        out.starts(),
        pattern(&args.start, "no piece"),
        out.goals,
        pattern(&args.goal, "every piece")
    )?;
    writeln!(
        w,
        "# boards of the tracked pieces: each stands for equally many boards of the puzzle"
    )?;
    writeln!(w, "{:>8} {:>16} {:>16}", "distance", "start boards", "cumulative")?;
    let mut total = 0;
    for (d, &c) in out.histogram.iter().enumerate() {
        total += c;
        writeln!(w, "{d:>8} {c:>16} {total:>16}")?;
    }
    let at_longest = out.histogram.last().copied().unwrap_or(0);
    writeln!(
        w,
        "# longest: {} moves ({at_longest} start boards), the phase's God's number",
        out.longest()
    )?;
    if !out.worst.is_empty() && (out.worst.len() as u64) < at_longest {
        writeln!(w, "# listed below: {} of {at_longest}", out.worst.len())?;
    }
    for (board, moves) in &out.worst {
        writeln!(w, "# antipode: {}", puzzle.format_board(board))?;
        writeln!(w, "#   solution: {}", solution_text(phase, moves))?;
    }
    writeln!(w, "# {:.3} s, {} entries searched, {threads} threads", out.seconds, out.entries)?;
    Ok(())
}

fn solution_text(phase: &Phase, moves: &[usize]) -> String {
    let names: Vec<&str> = moves.iter().map(|&m| phase.tracked.moves[m].name.as_str()).collect();
    if names.is_empty() { "(none)".into() } else { names.join(" ") }
}

fn json_of(
    args: &PhaseArgs,
    named: &str,
    phase: &Phase,
    out: &PhaseOutcome,
    threads: usize,
) -> serde_json::Value {
    let worst: Vec<serde_json::Value> = out
        .worst
        .iter()
        .map(|(b, m)| {
            serde_json::json!({
                "board": phase.tracked.format_board(b),
                "solution": solution_text(phase, m),
            })
        })
        .collect();
    serde_json::json!({
        "puzzle": named,
        "metric": phase.tracked.metric.name(),
        "tracked": phase.tracked_pieces,
        "start": pattern(&args.start, ""),
        "goal": pattern(&args.goal, ""),
        "goal_boards": out.goals,
        "start_boards": out.starts(),
        "histogram": out.histogram,
        "longest": out.longest(),
        "antipodes": out.histogram.last().copied().unwrap_or(0),
        "antipode_boards": worst,
        "entries": out.entries,
        "elapsed_seconds": out.seconds,
        "threads": threads,
    })
}
