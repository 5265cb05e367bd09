//! Spinpossible: any rectangle of the board turns 180 degrees and every tile in it turns over.
//!
//! The spin about the rectangle with top-left cell p1 and bottom-right cell p2 (1-based cell
//! numbers in book order) is written `[p1,p2]`. Each spin is its own inverse.

use super::Move;
use super::spec::SpinType;

/// The spin about rows `r1..=r2`, columns `c1..=c2` (0-based) of a board with `cols` columns.
pub fn spin(rows: usize, cols: usize, r1: usize, c1: usize, r2: usize, c2: usize) -> Move {
    let n = rows * cols;
    let mut perm: Vec<u8> = (0..n as u8).collect();
    let mut twist = vec![0u8; n];
    for r in r1..=r2 {
        for c in c1..=c2 {
            perm[r * cols + c] = ((r1 + r2 - r) * cols + (c1 + c2 - c)) as u8;
            twist[r * cols + c] = 1;
        }
    }
    let name = format!("[{},{}]", r1 * cols + c1 + 1, r2 * cols + c2 + 1);
    Move { name, perm, twist }
}

/// All spins whose rectangle is of one of the given types, in order of top-left then
/// bottom-right cell.
pub fn moves(rows: usize, cols: usize, types: &[SpinType]) -> Vec<Move> {
    let mut out = Vec::new();
    for r1 in 0..rows {
        for c1 in 0..cols {
            for r2 in r1..rows {
                for c2 in c1..cols {
                    let (h, w) = (r2 - r1 + 1, c2 - c1 + 1);
                    let ty = SpinType { short: h.min(w), long: h.max(w) };
                    if types.contains(&ty) {
                        out.push(spin(rows, cols, r1, c1, r2, c2));
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::puzzle::Puzzle;

    #[test]
    fn spin_counts_and_a_spin_by_hand() {
        let p = Puzzle::parse("spin:3x3", None).unwrap();
        assert_eq!(p.moves.len(), 36);
        assert!(p.undirected);
        let m = p.moves.iter().find(|m| m.name == "[1,6]").unwrap();
        // Rows 1-2, columns 1-3 turn 180 degrees and over.
        assert_eq!(p.format_board(&p.apply(&p.solved(), m)), "-6 -5 -4 / -3 -2 -1 / 7 8 9");
        assert_eq!(Puzzle::parse("spin:4x5", None).unwrap().moves.len(), 10 * 15);
        assert_eq!(Puzzle::parse("spin:3x3:1x1,1x2", None).unwrap().moves.len(), 9 + 12);
    }
}
