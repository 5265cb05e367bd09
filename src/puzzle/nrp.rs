//! NRP / Twiddle: `b x b` blocks of an `n x m` board turn by quarter turns.
//!
//! A block is named by its top-left cell, `R2C3`. `R2C3` turns it 90 degrees counter-clockwise
//! (Lam's convention for a letter), `R2C3'` clockwise, `R2C3^2` by 180 degrees. A tile turned
//! counter-clockwise gains orientation +1 (mod 4).

use super::{Metric, Move};

/// The turn of one block by `quarters` quarter turns counter-clockwise (1, 2 or 3).
pub fn block_turn(
    rows: usize,
    cols: usize,
    block: usize,
    top: usize,
    left: usize,
    quarters: u8,
) -> Move {
    let n = rows * cols;
    let mut perm: Vec<u8> = (0..n as u8).collect();
    let mut twist = vec![0u8; n];
    for i in 0..block {
        for j in 0..block {
            // A counter-clockwise quarter turn sends block cell (i, j) to (b-1-j, i).
            let (mut r, mut c) = (i, j);
            for _ in 0..quarters {
                (r, c) = (block - 1 - c, r);
            }
            perm[(top + i) * cols + left + j] = ((top + r) * cols + left + c) as u8;
            twist[(top + i) * cols + left + j] = quarters;
        }
    }
    Move { name: move_name(top, left, quarters), perm, twist }
}

/// The name of the turn by `quarters` counter-clockwise quarters of the block whose top
/// left cell is at (`top`, `left`), 0-based.
fn move_name(top: usize, left: usize, quarters: u8) -> String {
    let base = format!("R{}C{}", top + 1, left + 1);
    match quarters {
        1 => base,
        2 => format!("{base}^2"),
        _ => format!("{base}'"),
    }
}

/// Every move of NRP `(rows, cols, block)` in a metric as (top, left, quarters): block by
/// block in book order, the metric's quarter turns of each.
fn turns_in_order(
    rows: usize,
    cols: usize,
    block: usize,
    metric: Metric,
) -> impl Iterator<Item = (usize, usize, u8)> {
    let quarters: &'static [u8] = match metric {
        Metric::Qtm => &[1, 3],
        Metric::Htm => &[1, 3, 2],
        Metric::Cw => &[3],
    };
    let blocks = (0..=rows - block).flat_map(move |top| (0..=cols - block).map(move |l| (top, l)));
    blocks.flat_map(move |(top, left)| quarters.iter().map(move |&q| (top, left, q)))
}

/// The names of [`moves`], without building them (boards of any size).
pub fn move_names(rows: usize, cols: usize, block: usize, metric: Metric) -> Vec<String> {
    turns_in_order(rows, cols, block, metric)
        .map(|(top, left, q)| move_name(top, left, q))
        .collect()
}

/// The moves of NRP `(rows, cols, block)` in a metric, block by block in book order.
/// Without orientation the twists are all zero.
pub fn moves(rows: usize, cols: usize, block: usize, oriented: bool, metric: Metric) -> Vec<Move> {
    let turns = turns_in_order(rows, cols, block, metric);
    turns
        .map(|(top, left, q)| {
            let mut m = block_turn(rows, cols, block, top, left, q);
            if !oriented {
                m.twist.iter_mut().for_each(|t| *t = 0);
            }
            m
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::puzzle::Puzzle;

    #[test]
    fn counter_clockwise_turn_by_hand() {
        // 3x3 board, block R1C1 (2x2) counter-clockwise:
        // 1 2 3      2 5 3
        // 4 5 6  ->  1 4 6
        // 7 8 9      7 8 9
        let p = Puzzle::parse("nrp:3x3:2", None).unwrap();
        let m = block_turn(3, 3, 2, 0, 0, 1);
        let b = p.apply(&p.solved(), &m);
        assert_eq!(p.format_board(&b), "2 5 3 / 1 4 6 / 7 8 9");
        let cw = block_turn(3, 3, 2, 1, 1, 3);
        assert_eq!(cw.name, "R2C2'");
        // R2C2' clockwise on the solved board: 5 6 / 8 9 -> 8 5 / 9 6.
        assert_eq!(p.format_board(&p.apply(&p.solved(), &cw)), "1 2 3 / 4 8 5 / 7 9 6");
    }

    #[test]
    fn three_by_three_block_and_orientation() {
        let p = Puzzle::parse("nrp:3x4:3:orient", None).unwrap();
        let m = p.moves.iter().find(|m| m.name == "R1C2").unwrap();
        let b = p.apply(&p.solved(), m);
        // Block columns 2..4 turn counter-clockwise; every tile in it turns once (`<`).
        assert_eq!(p.format_board(&b), "1 4< 8< 12< / 5 3< 7< 11< / 9 2< 6< 10<");
    }

    #[test]
    fn metric_move_counts() {
        assert_eq!(moves(3, 4, 2, false, Metric::Qtm).len(), 12);
        assert_eq!(moves(3, 4, 2, false, Metric::Htm).len(), 18);
        assert_eq!(moves(3, 4, 2, false, Metric::Cw).len(), 6);
    }
}
