//! `twirl check` and `twirl order`: solvability of one board, and the exact number of
//! reachable boards, from a stabilizer chain (no search, any board size).

use std::io::Write;

use clap::Args;

use twirl::group::analysis::Analysis;
use twirl::group::solvable::{Checker, Verdict};
use twirl::puzzle::Metric;
use twirl::rank::board_count;

use super::json::{JsonArgs, as_paths, files_named};
use super::{PuzzleArgs, argument_text};

/// Arguments of `twirl check`.
#[derive(Args)]
pub struct CheckArgs {
    #[command(flatten)]
    puzzle: PuzzleArgs,
    /// The board, rows separated by `/`: "4 1 3 / 6 2 9 / 7 5 8" (quote it). For
    /// def:<file>: its state layout ("CORNERS 2 1 3 4 / 0 0 1 2") or a move sequence.
    /// `-` reads it from standard input, `@FILE` from a file. NRP boards of any size (up to
    /// 65,535 cells) are judged by Lam's conditions.
    #[arg(value_name = "BOARD", allow_hyphen_values = true)]
    board: String,
    /// --json FILE: {"puzzle", "metric", "board", "solvable", "reasons"} (reasons: why not,
    /// empty when solvable).
    #[command(flatten)]
    json: JsonArgs,
}

/// Arguments of `twirl order`.
#[derive(Args)]
pub struct OrderArgs {
    #[command(flatten)]
    puzzle: PuzzleArgs,
    /// --json FILE: {"puzzle", "metric", "order", "distinct_boards"}, counts as decimal
    /// strings (exact at any size); distinct_boards differs from order only where pieces
    /// are identical, and is null where it could not be counted.
    #[command(flatten)]
    json: JsonArgs,
}

/// The JSON of `twirl check`.
pub(super) fn verdict_json(
    puzzle: &str,
    metric: &str,
    board: &str,
    reasons: &[String],
) -> serde_json::Value {
    serde_json::json!({
        "puzzle": puzzle,
        "metric": metric,
        "board": board,
        "solvable": reasons.is_empty(),
        "reasons": reasons,
    })
}

/// Runs `twirl check`; returns whether the board is solvable.
pub fn run_check(args: &CheckArgs) -> anyhow::Result<bool> {
    args.json.check(&as_paths(&files_named([args.puzzle.puzzle.as_str(), &args.board])))?;
    let text = argument_text(&args.board)?;
    if let Some((large, metric)) = args.puzzle.large()? {
        return super::large::check(&large, metric, &text, &args.json);
    }
    if let Some((d, metric)) = args.puzzle.large_def()? {
        let (shown, reasons) = super::large_def::check(&d, &text)?;
        let spec = d.named();
        args.json.write(&verdict_json(&spec, metric.name(), &shown, &reasons))?;
        print_verdict(&mut args.json.text_out(), &shown, &reasons)?;
        return Ok(reasons.is_empty());
    }
    let puzzle = args.puzzle.puzzle()?;
    let board = puzzle.parse_board(&text)?;
    // Identical pieces are judged as past 255 cells where that can be done (milliseconds),
    // before the boards are listed (seconds).
    let judged = (puzzle.defined())
        .filter(|_| puzzle.has_identical_pieces())
        .and_then(|d| super::large_def::check(d, &text).ok());
    let (shown, reasons) = match judged {
        Some(judged) => judged,
        None => match (Checker::new(&puzzle), puzzle.defined()) {
            (Ok(checker), _) => match checker.check(&board) {
                Verdict::Solvable => (puzzle.format_board(&board), Vec::new()),
                Verdict::Unsolvable(reasons) => (puzzle.format_board(&board), reasons),
            },
            // Orbits too many to list their invariants: judged by elimination, as past 255
            // cells.
            (Err(_), Some(d)) => super::large_def::check(d, &text)?,
            (Err(e), _) => return Err(e.into()),
        },
    };
    let spec = puzzle.spec.named();
    args.json.write(&verdict_json(&spec, puzzle.metric.name(), &shown, &reasons))?;
    print_verdict(&mut args.json.text_out(), &shown, &reasons)?;
    Ok(reasons.is_empty())
}

/// The text answer of `twirl check`: the verdict, and why not.
pub(super) fn print_verdict(
    out: &mut dyn Write,
    board: &str,
    reasons: &[String],
) -> anyhow::Result<()> {
    if reasons.is_empty() {
        writeln!(out, "solvable: {board}")?;
        return Ok(());
    }
    writeln!(out, "unsolvable: {board}")?;
    for r in reasons {
        writeln!(out, "  because {r}")?;
    }
    Ok(())
}

/// Runs `twirl order`.
pub fn run_order(args: &OrderArgs) -> anyhow::Result<()> {
    args.json.check(&as_paths(&files_named([args.puzzle.puzzle.as_str()])))?;
    if let Some((large, metric)) = args.puzzle.large()? {
        let (count, case) = large.order();
        let count = count.to_string();
        args.json.write(&order_json(&large.spec(), metric.name(), &count, Some(&count)))?;
        return super::large::print_order(&mut args.json.text_out(), &large, metric, &count, case);
    }
    // Past 255 cells, or orbits too many to list their invariants: counted by elimination.
    let by_elimination = |d: &twirl::puzzle::defined::Defined, metric: Metric| {
        let mut out = args.json.text_out();
        let (order, distinct) = super::large_def::order(&mut out, d, metric)?;
        drop(out);
        let spec = d.named();
        args.json.write(&order_json(&spec, metric.name(), &order, distinct.as_deref()))
    };
    if let Some((d, metric)) = args.puzzle.large_def()? {
        return by_elimination(&d, metric);
    }
    let puzzle = args.puzzle.puzzle()?;
    let analysis = match (Analysis::of(&puzzle), puzzle.defined()) {
        (Ok(analysis), _) => analysis,
        (Err(_), Some(d)) => return by_elimination(d, puzzle.metric),
        (Err(e), None) => return Err(e.into()),
    };
    let (model, order) = (&analysis.model_order, &analysis.group_order);
    let spec = puzzle.spec.named();
    let mut out = args.json.text_out();
    writeln!(out, "{order}")?;
    if puzzle.has_identical_pieces() {
        writeln!(out, "# {} ({} moves): group order {order}", spec, puzzle.moves.len())?;
        // Counted as `info` counts them (milliseconds but on the largest groups), else from
        // the boards listed (seconds).
        let listed = || {
            twirl::rank::Ranking::of_identical_pieces(&puzzle, &analysis)
                .map(|boards| boards.n_reachable().to_string())
                .map_err(|e| e.to_string())
        };
        let distinct = match board_count::count_boards(&puzzle, &analysis) {
            Some(Ok(count)) => Ok(count.to_string()),
            Some(Err(reason)) => listed().map_err(|e| format!("{e}; {reason}")),
            None => listed(),
        };
        match &distinct {
            Ok(count) => writeln!(out, "# identical pieces make {count} distinct boards")?,
            Err(e) => writeln!(out, "# identical pieces make fewer distinct boards: {e}")?,
        }
        drop(out);
        let distinct = distinct.ok();
        let order = order.to_string();
        args.json.write(&order_json(&spec, puzzle.metric.name(), &order, distinct.as_deref()))?;
        return Ok(());
    }
    writeln!(out, "# {} ({} moves): {} reachable boards", spec, puzzle.moves.len(), order)?;
    if !analysis.invariants_are_exact() {
        writeln!(out, "# the orbits, parities and orientation sums of the moves allow {model}")?;
    }
    drop(out);
    let order = order.to_string();
    args.json.write(&order_json(&spec, puzzle.metric.name(), &order, Some(&order)))?;
    Ok(())
}

/// The JSON of `twirl order`: counts as decimal strings, exact at any size.
fn order_json(
    puzzle: &str,
    metric: &str,
    order: &str,
    distinct: Option<&str>,
) -> serde_json::Value {
    serde_json::json!({
        "puzzle": puzzle,
        "metric": metric,
        "order": order,
        "distinct_boards": distinct,
    })
}
