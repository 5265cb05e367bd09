//! The parity of a board's distance, when the moves fix it.
//!
//! Two maps from boards to {0, 1} add up along move sequences: the sign of the permutation of
//! the tiles (when no two tiles are alike) and, when orientations count modulo an even
//! number, the sum of the orientations. If one of them, or their sum, is 1 on every move,
//! every sequence solving a board has the parity of the board's value: a quarter turn of a
//! 2x2 block is a 4-cycle, so a Twiddle board in qtm is solved only by sequences as long as
//! its permutation's parity. IDA* then searches only limits of that parity.

use crate::group::cycles::cycles;
use crate::puzzle::{Board, Puzzle};

/// A map from boards to {0, 1} under which every move is odd.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DistanceParity {
    sign: bool,
    orientation: bool,
}

impl DistanceParity {
    /// The map for `puzzle`, if one of the candidates makes every move odd.
    pub fn of(puzzle: &Puzzle) -> Option<DistanceParity> {
        let solved = puzzle.solved();
        let distinct = {
            let mut seen = vec![false; 256];
            solved.tiles.iter().all(|&t| !std::mem::replace(&mut seen[t as usize], true))
        };
        let even_orient = puzzle.orient_mod > 1 && puzzle.orient_mod.is_multiple_of(2);
        let candidates = [(true, false), (false, true), (true, true)];
        candidates
            .into_iter()
            .filter(|&(sign, orientation)| (!sign || distinct) && (!orientation || even_orient))
            .map(|(sign, orientation)| DistanceParity { sign, orientation })
            .find(|p| {
                !puzzle.moves.is_empty()
                    && puzzle.moves.iter().all(|m| {
                        let moved = m.applied_to(&solved, puzzle.orient_mod);
                        p.value(&solved, &moved) == 1
                    })
            })
    }

    /// The map's value on `board` (0 or 1) relative to `solved`: the parity of every sequence
    /// that solves it.
    pub fn value(&self, solved: &Board, board: &Board) -> u32 {
        let mut v = 0;
        if self.sign {
            v += permutation_parity(solved, board);
        }
        if self.orientation {
            v += board.orient.iter().map(|&o| u32::from(o)).sum::<u32>();
        }
        v % 2
    }
}

/// The parity of the permutation taking `solved` (distinct tiles) to `board`.
fn permutation_parity(solved: &Board, board: &Board) -> u32 {
    let mut home = [0u8; 256];
    for (p, &t) in solved.tiles.iter().enumerate() {
        home[t as usize] = p as u8;
    }
    let perm: Vec<u8> = board.tiles.iter().map(|&t| home[t as usize]).collect();
    let transpositions: usize = cycles(&perm).iter().map(|c| c.len() - 1).sum();
    (transpositions % 2) as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::puzzle::Metric;

    fn puzzle(spec: &str, metric: Option<Metric>) -> Puzzle {
        Puzzle::parse(spec, metric).unwrap()
    }

    #[test]
    fn quarter_turns_of_two_by_two_blocks_fix_the_parity() {
        let p = puzzle("nrp:4x4:2", Some(Metric::Qtm));
        let parity = DistanceParity::of(&p).expect("every quarter turn is a 4-cycle");
        let solved = p.solved();
        // The reversed board is eight swaps: even.
        let reversed = Board { tiles: (0..16).rev().collect(), orient: vec![0; 16] };
        assert_eq!(parity.value(&solved, &reversed), 0);
        let one = p.apply(&solved, &p.moves[3]);
        assert_eq!(parity.value(&solved, &one), 1);
        assert_eq!(parity.value(&solved, &p.apply(&one, &p.moves[7])), 0);
    }

    #[test]
    fn no_parity_where_moves_differ() {
        // Half turns are even, quarter turns odd; 3x3 blocks are two 4-cycles (even).
        assert_eq!(DistanceParity::of(&puzzle("nrp:3x3:2", Some(Metric::Htm))), None);
        assert_eq!(DistanceParity::of(&puzzle("nrp:4x4:3", Some(Metric::Qtm))), None);
        // Spinpossible: a 1x2 spin is odd on tiles and even on flips, a 2x2 spin even on both.
        assert_eq!(DistanceParity::of(&puzzle("spin:3x3", None)), None);
    }

    #[test]
    fn single_tile_flips_fix_the_orientation_parity() {
        // Only 1x1 spins: each flips one tile and moves none.
        let p = puzzle("spin:2x2:1x1", None);
        let parity = DistanceParity::of(&p).expect("every move flips one tile");
        let board = p.parse_board("-1 2 / -3 -4").unwrap();
        assert_eq!(parity.value(&p.solved(), &board), 1);
    }
}
