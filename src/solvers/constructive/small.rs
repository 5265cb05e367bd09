//! The small exceptional groups (`b = 1`, `b = n = m`, `(2,3,2)`, `(3,4,3)`: at most 720
//! boards), solved by listing every reachable board with a breadth-first search from the solved
//! board: the solutions are shortest in quarter turns.

use std::collections::HashMap;

use super::turns::{inverse, simplify, turn_in_place};
use super::{Shape, Turn};

/// A shortest solution, or `None` when the board is not reachable.
pub(super) fn solve(shape: &Shape, tiles: &[u32]) -> Option<Vec<Turn>> {
    let solved: Vec<u32> = (0..tiles.len() as u32).collect();
    if tiles == solved.as_slice() {
        return Some(Vec::new());
    }
    if shape.block == 1 {
        return None;
    }
    let b = shape.block;
    let turns: Vec<Turn> = (0..=shape.rows - b)
        .flat_map(|top| (0..=shape.cols - b).map(move |left| (top, left)))
        .flat_map(|(top, left)| [1, 3].map(|quarters| Turn { top, left, quarters }))
        .collect();
    // parent[board] = (previous board, the turn that made this one from it)
    let mut parent: HashMap<Vec<u32>, (Vec<u32>, Turn)> = HashMap::new();
    let mut frontier = vec![solved.clone()];
    parent.insert(solved.clone(), (solved.clone(), turns[0]));
    while !frontier.is_empty() && !parent.contains_key(tiles) {
        let mut next = Vec::new();
        for board in &frontier {
            for &t in &turns {
                let mut after = board.clone();
                turn_in_place(shape, &mut after, t);
                if !parent.contains_key(&after) {
                    parent.insert(after.clone(), (board.clone(), t));
                    next.push(after);
                }
            }
        }
        frontier = next;
    }
    parent.get(tiles)?;
    let mut made = Vec::new();
    let mut board = tiles.to_vec();
    while board != solved {
        let (prev, t) = parent[&board].clone();
        made.push(t);
        board = prev;
    }
    made.reverse();
    Some(simplify(inverse(&made)))
}
