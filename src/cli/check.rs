//! `twirl check` and `twirl order`: solvability of one board, and the exact number of
//! reachable boards, from a stabilizer chain (no search, any board size).

use std::io::Write;

use clap::Args;

use twirl::group::analysis::Analysis;
use twirl::group::solvable::{Checker, Verdict};

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
}

/// Runs `twirl check`; returns whether the board is solvable.
pub fn run_check(args: &CheckArgs) -> anyhow::Result<bool> {
    let text = argument_text(&args.board)?;
    if let Some((large, _)) = args.puzzle.large()? {
        return super::large::check(&large, &text);
    }
    let puzzle = args.puzzle.puzzle()?;
    let board = puzzle.parse_board(&text)?;
    let checker = Checker::new(&puzzle)?;
    let mut out = std::io::stdout().lock();
    match checker.check(&board) {
        Verdict::Solvable => {
            writeln!(out, "solvable: {}", puzzle.format_board(&board))?;
            Ok(true)
        }
        Verdict::Unsolvable(reasons) => {
            writeln!(out, "unsolvable: {}", puzzle.format_board(&board))?;
            for r in reasons {
                writeln!(out, "  because {r}")?;
            }
            Ok(false)
        }
    }
}

/// Runs `twirl order`.
pub fn run_order(args: &PuzzleArgs) -> anyhow::Result<()> {
    if let Some((large, metric)) = args.large()? {
        return super::large::order(&large, metric);
    }
    let puzzle = args.puzzle()?;
    let analysis = Analysis::of(&puzzle)?;
    let (model, order) = (&analysis.model_order, &analysis.group_order);
    let mut out = std::io::stdout().lock();
    writeln!(out, "{order}")?;
    if puzzle.has_identical_pieces() {
        writeln!(out, "# {} ({} moves): group order {order}", puzzle.spec, puzzle.moves.len())?;
        match twirl::rank::Ranking::of_identical_pieces(&puzzle, &analysis) {
            Ok(boards) => {
                writeln!(out, "# identical pieces make {} distinct boards", boards.n_states())?
            }
            Err(e) => writeln!(out, "# identical pieces make fewer distinct boards: {e}")?,
        }
        return Ok(());
    }
    writeln!(out, "# {} ({} moves): {} reachable boards", puzzle.spec, puzzle.moves.len(), order)?;
    if !analysis.invariants_are_exact() {
        writeln!(out, "# the orbits, parities and orientation sums of the moves allow {model}")?;
    }
    Ok(())
}
