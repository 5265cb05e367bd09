//! `twirl solve --method constructive`: Lam's constructive method on NRP boards of any size
//! ([`twirl::solvers::constructive`]), whose boards may pass the 255 cells of twirl's puzzles,
//! so they are read, drawn and printed as boards of any size ([`LargeNrp`]).

use std::io::Write;
use std::time::Instant;

use anyhow::bail;

use twirl::puzzle::large::LargeNrp;
use twirl::puzzle::{Metric, Puzzle};
use twirl::solvers::constructive::{self, Shape, Turn, Unsolvable};

use super::large::MAX_BOARD_CELLS;
use super::solve::{SolveArgs, random_index};
use super::table::report_unsolvable;

/// Solves an NRP board and prints the turns as moves of the metric (a half turn is two
/// quarter turns in qtm; in cw a counter-clockwise quarter is three clockwise ones). The
/// solution is applied to the board once more before it is printed (and, on boards twirl's
/// puzzles hold, with [`Puzzle::apply`] too). Returns the exit code.
pub fn solve_constructive(
    args: &SolveArgs,
    text: &str,
    shape: &Shape,
    oriented: bool,
    started: Instant,
) -> anyhow::Result<i32> {
    let metric = args.metric.as_deref().map(Metric::parse).transpose()?.unwrap_or(Metric::Qtm);
    let large = LargeNrp::new(shape.rows, shape.cols, shape.block, oriented)?;
    let spec = large.spec();
    let cells = shape.rows * shape.cols;
    let board = match random_index(text)? {
        Some((seed, index)) => twirl::random::nrp_board(&large, seed, index)?,
        None => large.parse_board(text)?,
    };
    let (tiles, orient) = (board.tiles.clone(), oriented.then(|| board.orient.clone()));
    let solved = match &orient {
        Some(o) => constructive::solve_oriented(shape, &tiles, o),
        None => constructive::solve(shape, &tiles),
    };
    let turns = match solved {
        Ok(t) => t,
        Err(Unsolvable::Board(reason)) => return report_unsolvable(text, &[reason]),
        Err(e) => bail!("{e}"),
    };
    let names = metric_names(&turns, metric);
    let board_text = large.format_board(&board);
    if large.apply_turns(&board, &turns) != large.solved() {
        bail!("internal error: the constructive solution does not solve the board");
    }
    if cells <= MAX_BOARD_CELLS {
        let puzzle = Puzzle::parse(&spec, Some(metric))?;
        let board = puzzle.parse_board(&board_text)?;
        let end = names.iter().try_fold(board, |b, name| {
            let m = puzzle.moves.iter().find(|m| &m.name == name);
            m.map(|m| puzzle.apply(&b, m))
                .ok_or_else(|| anyhow::anyhow!("internal error: `{name}` is not a move"))
        })?;
        if end != puzzle.solved() {
            bail!("internal error: the constructive solution does not solve the board");
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    args.json.write(&serde_json::json!({
        "puzzle": spec,
        "metric": metric.name(),
        "board": board_text,
        "method": "constructive",
        "moves": names,
        "length": names.len(),
        "optimal": false,
        "nodes": null,
        "seconds": seconds,
    }))?;
    let mut out = args.json.text_out();
    writeln!(out, "{}", names.join(" "))?;
    writeln!(
        out,
        "# {} moves ({metric} metric), constructive (Lam's method, not shortest; {} block \
         turns), {seconds:.3} s; checked: it solves the board",
        names.len(),
        turns.len(),
    )?;
    if !args.patterns.quiet && text.trim().starts_with("random") {
        eprintln!("# board: {board_text}");
    }
    Ok(0)
}

/// The turns as moves of a metric, by their names.
fn metric_names(turns: &[Turn], metric: Metric) -> Vec<String> {
    let mut out = Vec::new();
    for t in turns {
        let quarter = |q: u8| Turn { quarters: q, ..*t }.name();
        match (metric, t.quarters) {
            (Metric::Htm, _) | (Metric::Qtm, 1 | 3) => out.push(t.name()),
            (Metric::Qtm, _) => out.extend([quarter(1), quarter(1)]),
            (Metric::Cw, q) => out.extend(std::iter::repeat_n(quarter(3), (4 - q as usize) % 4)),
        }
    }
    out
}
