//! Shortest solutions read from a finished distance table.
//!
//! A board marked `m` is at a distance `d` with `d mod 3 = m - 1`. A move towards the solved
//! board lands on a board one closer, marked `m - 1` (cyclically). When the move graph is
//! undirected that mark identifies the closer boards exactly (neighbours lie within one
//! distance), so a greedy descent finds a shortest solution in `d` steps. With a directed move
//! set (clockwise turns only) a move may also land on a board marked `m - 1` that is further
//! away (`d + 2`, `d + 5`, ...): then a breadth-first search over the mark-descending moves
//! finds the shortest path to the solved board, which has length exactly `d`.

use std::collections::HashMap;

use crate::puzzle::{Board, Puzzle};
use crate::rank::StateSpace;
use crate::table::{DistanceTable, UNSEEN};
use crate::{Error, Result};

/// Boards a directed search may hold before it gives up.
const MAX_VISITED: usize = 20_000_000;

/// The mark one distance closer.
fn closer(mark: u8) -> u8 {
    if mark == 1 { 3 } else { mark - 1 }
}

/// A shortest solution of `board`: indices into `puzzle.moves`, applied in order.
pub fn solve(
    puzzle: &Puzzle,
    space: &StateSpace,
    table: &DistanceTable,
    board: &Board,
) -> Result<Vec<usize>> {
    let solved = space.rank_board(&puzzle.solved())?;
    let rank = space.rank_board(board)?;
    let mark = table.get(rank);
    if mark == UNSEEN {
        return Err(Error::InvalidBoard("the table has no distance for this board".into()));
    }
    let step = |b: &Board, m: usize| {
        let next = puzzle.apply(b, &puzzle.moves[m]);
        let r = space.rank_board(&next).expect("a move keeps a board reachable");
        (next, r)
    };
    if puzzle.undirected {
        let (mut b, mut r, mut mark) = (board.clone(), rank, mark);
        let mut moves = Vec::new();
        while r != solved {
            let want = closer(mark);
            let (m, next, nr) = (0..puzzle.moves.len())
                .map(|m| {
                    let (next, nr) = step(&b, m);
                    (m, next, nr)
                })
                .find(|&(_, _, nr)| table.get(nr) == want)
                .ok_or_else(|| inconsistent(moves.len()))?;
            moves.push(m);
            (b, r, mark) = (next, nr, want);
        }
        return Ok(moves);
    }
    // Directed: breadth-first over the mark-descending moves, with parents for the path.
    let mut parent: HashMap<u64, (u64, usize)> = HashMap::new();
    let mut layer = vec![(board.clone(), rank)];
    let mut mark = mark;
    parent.insert(rank, (rank, usize::MAX));
    while !layer.iter().any(|&(_, r)| r == solved) {
        let want = closer(mark);
        let mut next_layer = Vec::new();
        for (b, r) in &layer {
            for m in 0..puzzle.moves.len() {
                let (next, nr) = step(b, m);
                if table.get(nr) == want && !parent.contains_key(&nr) {
                    parent.insert(nr, (*r, m));
                    next_layer.push((next, nr));
                }
            }
        }
        if next_layer.is_empty() {
            return Err(inconsistent(parent.len()));
        }
        if parent.len() > MAX_VISITED {
            return Err(Error::TooLarge(format!(
                "more than {MAX_VISITED} boards visited looking for a shortest solution"
            )));
        }
        (layer, mark) = (next_layer, want);
    }
    let mut moves = Vec::new();
    let mut r = solved;
    while r != rank {
        let (p, m) = parent[&r];
        moves.push(m);
        r = p;
    }
    moves.reverse();
    Ok(moves)
}

fn inconsistent(at: usize) -> Error {
    Error::BadTable {
        path: "the table".into(),
        reason: format!(
            "inconsistent marks: no move leads closer to the solved board (after {at} steps)"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bfs::{Config, NoProgress, search_puzzle};
    use crate::puzzle::Metric;

    /// Every board of a small puzzle: the solution solves it, and its length is the distance
    /// a plain BFS over boards measures.
    fn check_all(spec: &str, metric: Option<Metric>, stride: u64) {
        let puzzle = Puzzle::parse(spec, metric).unwrap();
        let space = StateSpace::build(&puzzle).unwrap();
        let table = DistanceTable::in_memory(space.n_states()).unwrap();
        search_puzzle(&puzzle, &space, &table, &Config::new(1), &NoProgress).unwrap();
        // Distances to solve, by a search backwards from the solved board over boards.
        let inverse = puzzle.inverse_moves();
        let mut dist: HashMap<Vec<(u8, u8)>, usize> = HashMap::new();
        let key = |b: &Board| b.tiles.iter().copied().zip(b.orient.iter().copied()).collect();
        let mut layer = vec![puzzle.solved()];
        dist.insert(key(&puzzle.solved()), 0);
        let mut d = 0;
        while !layer.is_empty() {
            d += 1;
            let mut next = Vec::new();
            for b in &layer {
                for m in &inverse {
                    let n = puzzle.apply(b, m);
                    if let std::collections::hash_map::Entry::Vacant(e) = dist.entry(key(&n)) {
                        e.insert(d);
                        next.push(n);
                    }
                }
            }
            layer = next;
        }
        assert_eq!(dist.len() as u64, space.n_states());
        for r in (0..space.n_states()).step_by(stride as usize) {
            let board = space.board(r);
            let moves = solve(&puzzle, &space, &table, &board).unwrap();
            let mut b = board.clone();
            for &m in &moves {
                b = puzzle.apply(&b, &puzzle.moves[m]);
            }
            assert_eq!(b, puzzle.solved(), "{spec}: solution of rank {r} does not solve it");
            assert_eq!(moves.len(), dist[&key(&board)], "{spec}: rank {r} not shortest");
        }
    }

    #[test]
    fn solutions_are_shortest_on_every_board() {
        check_all("nrp:2x3:2", None, 1);
        check_all("nrp:2x3:2", Some(Metric::Htm), 1);
        check_all("nrp:2x3:2", Some(Metric::Cw), 1);
        check_all("nrp:2x2:2:orient", Some(Metric::Cw), 1);
        check_all("spin:2x2", None, 1);
        check_all("nrp:3x3:2", None, 101);
        check_all("nrp:3x3:2", Some(Metric::Cw), 101);
    }
}
