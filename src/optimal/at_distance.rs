//! Every board at one distance of a finished table (`twirl boards TABLE --distance D`).
//!
//! A mark says the distance modulo 3 only, so an entry marked like `D` may be at `D - 3`,
//! `D + 3`, ...: each such entry is measured by a descent bounded by `D` moves, which
//! follows moves to a neighbour one mark closer (in an undirected graph any such neighbour is
//! one move closer; in a directed one, breadth-first over those moves, the first layer
//! holding a start is the distance). The descent ends at a *start*: the solved board, or for
//! a table searched from goals (`bfs --goals`) any goal.
//!
//! A table of classes holds one entry per class (two or more for a class whose key tiles
//! stand symmetrically): each class found at `D` is expanded into its distinct boards (its
//! images under the symmetries, and inversion where the ranking uses it) and listed from
//! its smallest entry only, so every board is written once.

use std::collections::HashSet;

use rayon::prelude::*;

use crate::puzzle::{Board, Puzzle};
use crate::rank::StateSpace;
use crate::table::{DistanceTable, UNSEEN, mark_of};
use crate::{Error, Result};

/// Entries measured per parallel batch (listed in rank order, batch by batch).
const BATCH: u64 = 1 << 16;

/// Most boards a directed descent visits before giving up (as [`super::descent`] does).
const MAX_VISITED: usize = 1 << 22;

/// Sends every board at exactly `distance` in `table` to `emit`, entry by entry in rank
/// order (a class's boards sorted), until `emit` returns `false`; returns the number sent.
/// `starts` are the boards at distance 0 (solved, or the goals the table was searched from,
/// a union of classes when the table ranks classes).
pub fn boards_at(
    puzzle: &Puzzle,
    space: &StateSpace,
    table: &DistanceTable,
    distance: u32,
    starts: &[Board],
    emit: &mut dyn FnMut(&Board) -> Result<bool>,
) -> Result<u64> {
    let starts: HashSet<&Board> = starts.iter().collect();
    let want = mark_of(distance);
    let n = table.n_states();
    let mut sent = 0u64;
    let mut lo = 0;
    while lo < n {
        let hi = (lo + BATCH).min(n);
        let found: Vec<Result<Option<Vec<Board>>>> = (lo..hi)
            .into_par_iter()
            .filter(|&r| table.get(r) == want)
            .map(|r| {
                let board = space.board(r);
                if !at(puzzle, space, table, &board, distance, &starts)? {
                    return Ok(None);
                }
                class_from_smallest_entry(space, r, board)
            })
            .collect();
        for boards in found {
            for b in boards?.unwrap_or_default() {
                if !emit(&b)? {
                    return Ok(sent);
                }
                sent += 1;
            }
        }
        lo = hi;
    }
    Ok(sent)
}

/// The boards of entry `r` (board `board`): itself, or the distinct boards of its class if
/// `r` is the class's smallest entry (`None` for another entry of the class).
fn class_from_smallest_entry(
    space: &StateSpace,
    r: u64,
    board: Board,
) -> Result<Option<Vec<Board>>> {
    let Some(mut images) = space.class_images(&board) else { return Ok(Some(vec![board])) };
    images.sort_unstable_by(|a, b| (&a.tiles, &a.orient).cmp(&(&b.tiles, &b.orient)));
    images.dedup();
    for b in &images {
        if space.rank_board(b)? < r {
            return Ok(None);
        }
    }
    Ok(Some(images))
}

/// Whether `board` (marked like `distance`) is exactly `distance` moves from a start.
fn at(
    puzzle: &Puzzle,
    space: &StateSpace,
    table: &DistanceTable,
    board: &Board,
    distance: u32,
    starts: &HashSet<&Board>,
) -> Result<bool> {
    let inconsistent = || {
        Error::InconsistentTable(
            "a board has no move to a board one distance closer to a start".into(),
        )
    };
    let closer = |mark: u8| if mark == 1 { 3 } else { mark - 1 };
    // Boards as the table's ranking writes them: without the turns moves leave on pieces
    // whose orientation is not seen, so that a start is recognised.
    let step = |b: &Board, m: usize| -> Result<(Board, u8)> {
        let next = puzzle.seen_part(puzzle.apply(b, &puzzle.moves[m]));
        let mark = table.get(space.rank_board(&next)?);
        Ok((next, mark))
    };
    let mut mark = mark_of(distance);
    if puzzle.undirected {
        let mut b = board.clone();
        for _ in 0..distance {
            if starts.contains(&b) {
                return Ok(false);
            }
            let want = closer(mark);
            let mut next = None;
            for m in 0..puzzle.moves.len() {
                let (nb, nm) = step(&b, m)?;
                if nm == want {
                    next = Some(nb);
                    break;
                }
            }
            b = next.ok_or_else(inconsistent)?;
            mark = want;
        }
        return Ok(starts.contains(&b));
    }
    let mut layer = vec![board.clone()];
    let mut seen: HashSet<Board> = HashSet::from([board.clone()]);
    for _ in 0..distance {
        if layer.iter().any(|b| starts.contains(b)) {
            return Ok(false);
        }
        let want = closer(mark);
        let mut next = Vec::new();
        for b in &layer {
            for m in 0..puzzle.moves.len() {
                let (nb, nm) = step(b, m)?;
                if nm == want && nm != UNSEEN && seen.insert(nb.clone()) {
                    next.push(nb);
                }
            }
        }
        if next.is_empty() {
            return Err(inconsistent());
        }
        if seen.len() > MAX_VISITED {
            return Err(Error::TooLarge(format!(
                "more than {MAX_VISITED} boards visited measuring one board's distance"
            )));
        }
        (layer, mark) = (next, want);
    }
    Ok(layer.iter().any(|b| starts.contains(b)))
}
