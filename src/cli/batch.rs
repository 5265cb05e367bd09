//! `twirl distance SOURCE --boards FILE`: the distances of many boards, one per line, read
//! from one table opened once (a table of classes takes seconds to open where it holds
//! billions of entries; each board's descent then takes milliseconds).

use std::io::Write;

use anyhow::bail;
use rayon::prelude::*;

use twirl::puzzle::Board;
use twirl::table::mark_of;

use super::json::JsonArgs;
use super::table::{Loaded, read_board};

/// A board of the list: its line, its text as given, and the board with its rank or why it
/// is unsolvable.
struct Listed<'a> {
    line: usize,
    text: &'a str,
    board: Result<(Board, u64), Vec<String>>,
}

/// The boards of `text` (named `source` in messages): one per line, blank lines and text
/// after `#` skipped. Every malformed line is told (one per line of the error), before any
/// board is looked up.
fn read_list<'a>(l: &Loaded, source: &str, text: &'a str) -> anyhow::Result<Vec<Listed<'a>>> {
    let (mut listed, mut errors) = (Vec::new(), Vec::new());
    // A byte-order mark (editors on Windows write one) is not part of the first board.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    for (i, line) in text.lines().enumerate() {
        let board_text = line.split('#').next().unwrap_or("").trim();
        if board_text.is_empty() {
            continue;
        }
        match read_board(l, board_text) {
            Ok(board) => listed.push(Listed { line: i + 1, text: board_text, board }),
            Err(e) => errors.push(format!(
                "{source}:{}: expected a board or a move sequence, found `{board_text}`: {}",
                i + 1,
                twirl::error::one_line(&format!("{e:#}"))
            )),
        }
    }
    if !errors.is_empty() {
        return Err(twirl::Error::InvalidBoardList(errors.join("\n")).into());
    }
    if listed.is_empty() {
        bail!("{source}: expected boards, one per line, found none");
    }
    Ok(listed)
}

/// Reads `source` (`-`: standard input), the list of `--boards`.
fn read_source(source: &str) -> anyhow::Result<String> {
    use anyhow::Context;
    if source == "-" {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut text).context(
            "reading standard input (`--boards -`: boards expected there, one per line)",
        )?;
        return Ok(text);
    }
    std::fs::read_to_string(source)
        .with_context(|| format!("{source}: cannot read it (boards expected there, one per line)"))
}

/// Prints the distance of every board listed in `source`, in order, as `DISTANCE<TAB>BOARD`
/// (with `moves`, `<TAB>` and a shortest solution after it; `unsolvable<TAB>BOARD<TAB>#
/// because ...` for a board no move sequence solves), then a summary on stderr. Exit code 1
/// if a board is unsolvable, else 0.
pub(super) fn run_distances(
    l: &Loaded,
    source: &str,
    moves: bool,
    json: &JsonArgs,
) -> anyhow::Result<i32> {
    let text = read_source(source)?;
    let listed = read_list(l, source, &text)?;
    // Each descent reads a few entries per move: the boards are shared among the workers.
    let solutions: Vec<Option<Vec<usize>>> = (listed.par_iter())
        .map(|b| match &b.board {
            Ok((board, rank)) => Ok(Some(descend(l, board, *rank, b.line)?)),
            Err(_) => Ok(None),
        })
        .collect::<anyhow::Result<_>>()?;
    let names = |moves: &[usize]| -> Vec<&str> {
        moves.iter().map(|&m| l.puzzle.moves[m].name.as_str()).collect()
    };
    let mut histogram = vec![0u64; l.gods_number as usize + 1];
    let mut unsolvable = 0u64;
    let mut out = std::io::BufWriter::new(json.text_out());
    let mut entries = Vec::with_capacity(listed.len());
    for (b, solution) in listed.iter().zip(&solutions) {
        match (solution, &b.board) {
            (Some(solution), _) => {
                histogram[solution.len()] += 1;
                write!(out, "{}\t{}", solution.len(), b.text)?;
                if moves {
                    write!(out, "\t{}", names(solution).join(" "))?;
                }
                writeln!(out)?;
            }
            (None, Err(reasons)) => {
                unsolvable += 1;
                writeln!(out, "unsolvable\t{}\t# because {}", b.text, reasons.join("; "))?;
            }
            (None, Ok(_)) => unreachable!("a solvable board has a solution"),
        }
        // The board itself besides its text, which may be a move sequence or `random:SEED`.
        let board = b.board.as_ref().ok().map(|(board, _)| l.puzzle.format_board(board));
        entries.push(serde_json::json!({
            "line": b.line,
            "input": b.text,
            "board": board,
            "distance": solution.as_ref().map(Vec::len),
            "moves": solution.as_ref().filter(|_| moves).map(|s| names(s)),
            "unsolvable": b.board.as_ref().err(),
        }));
    }
    out.flush()?;
    drop(out);
    let counts: Vec<String> = (histogram.iter().enumerate())
        .filter(|(_, n)| **n > 0)
        .map(|(d, n)| format!("{d}:{n}"))
        .collect();
    eprintln!(
        "# {} boards; at each distance (distance:boards) {}{}",
        listed.len(),
        if counts.is_empty() { "none".to_string() } else { counts.join(" ") },
        if unsolvable > 0 { format!("; {unsolvable} unsolvable") } else { String::new() }
    );
    json.write(&serde_json::json!({
        "puzzle": l.puzzle.spec.named(),
        "metric": l.puzzle.metric.name(),
        "boards": entries,
        "histogram": histogram,
        "unsolvable": unsolvable,
    }))?;
    Ok(if unsolvable > 0 { 1 } else { 0 })
}

/// A shortest solution of a board of rank `rank` (listed on line `line`) by the table's
/// descent, checked against the board's mark and by applying it.
fn descend(l: &Loaded, board: &Board, rank: u64, line: usize) -> anyhow::Result<Vec<usize>> {
    let moves = l.solve(board)?;
    if l.table.get(rank) != mark_of(moves.len() as u32) {
        bail!(
            "the table is inconsistent: the mark of the board on line {line} disagrees with \
             the length of its descent"
        );
    }
    let end = moves.iter().fold(board.clone(), |b, &m| l.puzzle.apply(&b, &l.puzzle.moves[m]));
    if !l.puzzle.is_solved(&end) {
        bail!("internal error: the descent from the board on line {line} does not solve it");
    }
    Ok(moves)
}
