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
///
/// `max_moves` is the table's God's number (its largest distance). A consistent table always
/// yields a solution within it, so a descent that would go further ends with
/// [`Error::InconsistentTable`] instead of walking on: with swapped or corrupted marks the
/// mark-descending moves can lead round a cycle that never reaches the solved board.
pub fn solve(
    puzzle: &Puzzle,
    space: &StateSpace,
    table: &DistanceTable,
    board: &Board,
    max_moves: u32,
) -> Result<Vec<usize>> {
    // By rank: boards that differ only in orientations nobody sees are one board.
    let solved = space.rank_board(&puzzle.solved())?;
    let is_solved = |_: &Board, r: u64| r == solved;
    solve_to(puzzle, space, table, board, max_moves, &is_solved, "the solved board")
}

/// [`solve`] towards the boards a table was searched from (distance 0): those `is_start`
/// accepts (given the board and its rank), named `starts` in errors (a phase's goal
/// pattern, `twirl phase`).
pub fn solve_to(
    puzzle: &Puzzle,
    space: &StateSpace,
    table: &DistanceTable,
    board: &Board,
    max_moves: u32,
    is_start: &dyn Fn(&Board, u64) -> bool,
    starts: &str,
) -> Result<Vec<usize>> {
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
    let too_long = || {
        Error::InconsistentTable(format!(
            "no descent from this board reaches {starts} within God's number ({max_moves}) \
             moves"
        ))
    };
    if puzzle.undirected {
        let (mut b, mut r, mut mark) = (board.clone(), rank, mark);
        let mut moves = Vec::new();
        while !is_start(&b, r) {
            if moves.len() >= max_moves as usize {
                return Err(too_long());
            }
            let want = closer(mark);
            let (m, next, nr) = (0..puzzle.moves.len())
                .map(|m| {
                    let (next, nr) = step(&b, m);
                    (m, next, nr)
                })
                .find(|&(_, _, nr)| table.get(nr) == want)
                .ok_or_else(|| no_move_closer(moves.len(), starts))?;
            moves.push(m);
            (b, r, mark) = (next, nr, want);
        }
        return Ok(moves);
    }
    // Directed: breadth-first over the mark-descending moves, with parents for the path.
    let mut parent: HashMap<u64, (u64, usize)> = HashMap::new();
    let mut layer = vec![(board.clone(), rank)];
    let mut mark = mark;
    let mut depth = 0u32;
    parent.insert(rank, (rank, usize::MAX));
    let reached = |layer: &[(Board, u64)]| layer.iter().find(|(b, r)| is_start(b, *r)).map(|x| x.1);
    let end = loop {
        if let Some(r) = reached(&layer) {
            break r;
        }
        if depth >= max_moves {
            return Err(too_long());
        }
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
            return Err(no_move_closer(depth as usize, starts));
        }
        if parent.len() > MAX_VISITED {
            return Err(Error::TooLarge(format!(
                "more than {MAX_VISITED} boards visited looking for a shortest solution"
            )));
        }
        (layer, mark, depth) = (next_layer, want, depth + 1);
    };
    let mut moves = Vec::new();
    let mut r = end;
    while r != rank {
        let (p, m) = parent[&r];
        moves.push(m);
        r = p;
    }
    moves.reverse();
    Ok(moves)
}

fn no_move_closer(at: usize, starts: &str) -> Error {
    Error::InconsistentTable(format!(
        "no move leads closer to {starts} (after {at} moves of the descent)"
    ))
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
        let outcome = search_puzzle(&puzzle, &space, &table, &Config::new(1), &NoProgress).unwrap();
        let god = outcome.histogram.len() as u32 - 1;
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
            let moves = solve(&puzzle, &space, &table, &board, god).unwrap();
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

    /// Marks along a closed walk of the mark-descending kind (each board's successor marked
    /// one closer), away from the solved board: the descent would circle it for ever.
    fn cycling_table(spec: &str, metric: Option<Metric>) -> (Puzzle, StateSpace, DistanceTable) {
        let puzzle = Puzzle::parse(spec, metric).unwrap();
        let space = StateSpace::build(&puzzle).unwrap();
        let solved = puzzle.solved();
        // A start off the solved board, and three moves whose repetition returns to it after
        // a number of moves divisible by 3 without passing the solved board.
        let start = puzzle.apply(&solved, &puzzle.moves[0]);
        let n = puzzle.moves.len();
        let triples = (0..n).flat_map(|i| (0..n).flat_map(move |j| (0..n).map(move |k| [i, j, k])));
        for word in triples {
            let mut walk = vec![start.clone()];
            let closed = loop {
                let m = word[(walk.len() - 1) % 3];
                let next = puzzle.apply(walk.last().unwrap(), &puzzle.moves[m]);
                if next == start || walk.len() > 300 {
                    break next == start;
                }
                walk.push(next);
            };
            let distinct = walk.iter().collect::<std::collections::HashSet<_>>().len();
            if !closed || walk.len() % 3 != 0 || distinct != walk.len() || walk.contains(&solved) {
                continue;
            }
            let table = DistanceTable::in_memory(space.n_states()).unwrap();
            for (k, b) in walk.iter().enumerate() {
                let mark = [3, 2, 1][k % 3];
                assert!(table.mark_if_unseen(space.rank_board(b).unwrap(), mark));
            }
            return (puzzle, space, table);
        }
        panic!("{spec}: no closed walk of a length divisible by 3 found");
    }

    #[test]
    fn a_table_with_cycling_marks_gives_an_error_not_a_hang() {
        for (spec, metric) in [("nrp:3x3:2", None), ("nrp:3x3:2", Some(Metric::Cw))] {
            let (puzzle, space, table) = cycling_table(spec, metric);
            let board = puzzle.apply(&puzzle.solved(), &puzzle.moves[0]);
            let err = solve(&puzzle, &space, &table, &board, 12).unwrap_err();
            assert!(matches!(err, Error::InconsistentTable(_)), "{spec}: {err}");
            let text = err.to_string();
            assert!(text.starts_with("table is inconsistent: "), "{text}");
            assert!(!text.contains("unsupported move group"), "{text}");
        }
        // Undirected: the greedy walk goes round the cycle until God's number runs out.
        let (puzzle, space, table) = cycling_table("nrp:3x3:2", None);
        let board = puzzle.apply(&puzzle.solved(), &puzzle.moves[0]);
        let err = solve(&puzzle, &space, &table, &board, 12).unwrap_err().to_string();
        assert!(err.contains("within God's number (12) moves"), "{err}");
    }
}
