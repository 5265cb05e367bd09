//! `twirl solve --method constructive`: Lam's constructive method on NRP boards of any size
//! ([`twirl::solvers::constructive`]), whose boards may pass the 255 cells of twirl's puzzles,
//! so they are read, drawn and printed here without a [`Puzzle`].

use std::io::Write;
use std::time::Instant;

use anyhow::bail;

use twirl::puzzle::board::QUARTER_MARKS;
use twirl::puzzle::{Metric, Puzzle};
use twirl::solvers::constructive::{self, Shape, Turn, Unsolvable};

use super::solve::{SolveArgs, random_index};
use super::table::report_unsolvable;

/// The most cells of twirl's puzzles (tiles in bytes); larger NRP boards are solved here only.
pub const MAX_BOARD_CELLS: usize = 255;

/// Solves an NRP board and prints the turns as moves of the metric (a half turn is two
/// quarter turns in qtm; in cw a counter-clockwise quarter is three clockwise ones). Boards
/// twirl's puzzles hold are checked once more with [`Puzzle::apply`]. Returns the exit code.
pub fn solve_constructive(
    args: &SolveArgs,
    shape: &Shape,
    oriented: bool,
    started: Instant,
) -> anyhow::Result<i32> {
    let metric = args.metric.as_deref().map(Metric::parse).transpose()?.unwrap_or(Metric::Qtm);
    let spec = format!("nrp:{}x{}:{}{}", shape.rows, shape.cols, shape.block, suffix(oriented));
    let cells = shape.rows * shape.cols;
    let (tiles, orient) = match random_index(&args.board)? {
        Some((seed, index)) if !oriented => (twirl::random::nrp_board(shape, seed, index)?, None),
        Some((seed, index)) if cells <= twirl::rank::layout::MAX_CELLS => {
            let puzzle = Puzzle::parse(&spec, Some(metric))?;
            let b = twirl::random::RandomBoards::new(&puzzle)?.board(seed, index)?;
            (b.tiles.iter().map(|&t| u16::from(t)).collect(), Some(b.orient))
        }
        Some(_) => bail!(
            "random oriented boards are drawn on boards of at most {} cells (found {cells}); \
             give the board",
            twirl::rank::layout::MAX_CELLS
        ),
        None => {
            let (tiles, orient) = parse_board(&args.board, shape, oriented)?;
            (tiles, oriented.then_some(orient))
        }
    };
    let solved = match &orient {
        Some(o) => constructive::solve_oriented(shape, &tiles, o),
        None => constructive::solve(shape, &tiles),
    };
    let turns = match solved {
        Ok(t) => t,
        Err(Unsolvable::Board(reason)) => return report_unsolvable(&args.board, &[reason]),
        Err(e) => bail!("{e}"),
    };
    let names = metric_names(&turns, metric);
    let board_text = format_board(&tiles, orient.as_deref(), shape.cols);
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
    let mut out = std::io::stdout().lock();
    if args.json {
        let value = serde_json::json!({
            "puzzle": spec,
            "metric": metric.name(),
            "board": board_text,
            "method": "constructive",
            "moves": names,
            "length": names.len(),
            "optimal": false,
            "nodes": null,
            "seconds": seconds,
        });
        writeln!(out, "{value}")?;
        return Ok(0);
    }
    writeln!(out, "{}", names.join(" "))?;
    writeln!(
        out,
        "# {} moves ({metric} metric), constructive (Lam's method, not shortest; {} block \
         turns), {seconds:.3} s; checked: it solves the board",
        names.len(),
        turns.len(),
    )?;
    if !args.patterns.quiet && args.board.trim().starts_with("random") {
        eprintln!("# board: {board_text}");
    }
    Ok(0)
}

fn suffix(oriented: bool) -> &'static str {
    if oriented { ":orient" } else { "" }
}

/// Reads an NRP board of any size: tiles 1..rows*cols, rows separated by `/`, with
/// orientation marks (`5<`) when `oriented`.
fn parse_board(text: &str, shape: &Shape, oriented: bool) -> anyhow::Result<(Vec<u16>, Vec<u8>)> {
    let n = shape.rows * shape.cols;
    if n > usize::from(u16::MAX) {
        bail!("invalid board: {n} cells; the constructive solver holds at most 65,535");
    }
    let rows: Vec<&str> = if text.contains('/') { text.split('/').collect() } else { vec![text] };
    if rows.len() > 1 && rows.len() != shape.rows {
        bail!("invalid board: expected {} rows separated by `/`, found {}", shape.rows, rows.len());
    }
    let mut tiles = Vec::with_capacity(n);
    let mut orient = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    for (r, row) in rows.iter().enumerate() {
        let tokens: Vec<&str> = row.split_whitespace().collect();
        if rows.len() > 1 && tokens.len() != shape.cols {
            bail!(
                "invalid board: row {} has {} tiles, expected {}",
                r + 1,
                tokens.len(),
                shape.cols
            );
        }
        for tok in tokens {
            let (number, turn) = match tok.char_indices().last() {
                Some((i, c)) if oriented && QUARTER_MARKS.contains(&c) => {
                    (&tok[..i], QUARTER_MARKS.iter().position(|&m| m == c).unwrap_or(0) as u8)
                }
                _ => (tok, 0),
            };
            let k: usize = number.parse().map_err(|_| {
                anyhow::anyhow!(
                    "invalid board: `{}` is not a tile number",
                    twirl::error::escaped(tok)
                )
            })?;
            if k == 0 || k > n {
                bail!("invalid board: tile {k} is out of range 1..{n}");
            }
            if std::mem::replace(&mut seen[k - 1], true) {
                bail!("invalid board: tile {k} appears twice");
            }
            tiles.push((k - 1) as u16);
            orient.push(turn);
        }
    }
    if tiles.len() != n {
        bail!(
            "invalid board: expected {n} tiles ({}x{}), found {}",
            shape.rows,
            shape.cols,
            tiles.len()
        );
    }
    Ok((tiles, orient))
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

fn format_board(tiles: &[u16], orient: Option<&[u8]>, cols: usize) -> String {
    let tile = |i: usize| match orient.map(|o| o[i]) {
        Some(o) if o != 0 => format!("{}{}", tiles[i] + 1, QUARTER_MARKS[o as usize % 4]),
        _ => (tiles[i] + 1).to_string(),
    };
    let cells: Vec<String> = (0..tiles.len()).map(tile).collect();
    cells.chunks(cols).map(|r| r.join(" ")).collect::<Vec<_>>().join(" / ")
}
