//! The small exceptional groups (`b = 1`, `b = n = m`, `(2,3,2)`, `(3,4,3)`: at most 720
//! boards; with orientation `b = n = m` and `(2,3,2)`, at most 3,840), solved by listing every
//! reachable board with a breadth-first search from the solved board: the solutions are
//! shortest in quarter turns.

use std::collections::HashMap;

use super::turns::{inverse, simplify, turn_in_place};
use super::{Shape, Turn};

/// A shortest solution, or `None` when the board is not reachable. With `orient`, tiles turn
/// with their blocks and must end upright.
pub(super) fn solve(shape: &Shape, tiles: &[u32], orient: Option<&[u8]>) -> Option<Vec<Turn>> {
    // One number per cell: the tile times 4 plus its orientation.
    let start: Vec<u32> = match orient {
        Some(o) => tiles.iter().zip(o).map(|(&t, &o)| 4 * t + u32::from(o)).collect(),
        None => tiles.iter().map(|&t| 4 * t).collect(),
    };
    let solved: Vec<u32> = (0..tiles.len() as u32).map(|t| 4 * t).collect();
    if start == solved {
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
    let step = |board: &[u32], t: Turn| {
        let mut after = board.to_vec();
        turn_in_place(shape, &mut after, t);
        if orient.is_some() {
            for r in t.top..t.top + b {
                for c in t.left..t.left + b {
                    let x = &mut after[r * shape.cols + c];
                    *x = (*x & !3) | ((*x + u32::from(t.quarters)) & 3);
                }
            }
        }
        after
    };
    // parent[board] = (previous board, the turn that made this one from it)
    let mut parent: HashMap<Vec<u32>, (Vec<u32>, Turn)> = HashMap::new();
    let mut frontier = vec![solved.clone()];
    parent.insert(solved.clone(), (solved.clone(), turns[0]));
    while !frontier.is_empty() && !parent.contains_key(&start) {
        let mut next = Vec::new();
        for board in &frontier {
            for &t in &turns {
                let after = step(board, t);
                if !parent.contains_key(&after) {
                    parent.insert(after.clone(), (board.clone(), t));
                    next.push(after);
                }
            }
        }
        frontier = next;
    }
    parent.get(&start)?;
    let mut made = Vec::new();
    let mut board = start;
    while board != solved {
        let (prev, t) = parent[&board].clone();
        made.push(t);
        board = prev;
    }
    made.reverse();
    Some(simplify(inverse(&made)))
}
