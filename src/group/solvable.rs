//! Is a board solvable, and if not, why?
//!
//! The verdict comes from membership in the group the moves generate (a stabilizer chain, so
//! it is exact for every board, the exceptional small groups included). The reason comes from
//! the invariants ([`super::invariants`]): a tile outside the cells it can reach (for odd
//! blocks, the wrong checkerboard colour), an orientation its cell forbids, a broken parity or
//! orientation-sum constraint; a board that keeps them all but is still not reachable lies
//! outside an exceptional group such as the 120 boards of NRP (2,3,2).

use num_bigint::BigUint;

use super::analysis::Analysis;
use crate::Error;
use crate::puzzle::{Board, Puzzle};
use crate::rank::Ranking;
use crate::rank::board_count::SameBoard;

/// Whether a board is solvable, with the reasons when it is not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The moves can solve it.
    Solvable,
    /// They cannot; each string is one reason a reader of the papers would recognise.
    Unsolvable(Vec<String>),
}

/// Decides solvability for one puzzle.
pub struct Checker {
    analysis: Analysis,
    orient_mod: usize,
    /// The ranking of the boards of a puzzle with identical pieces: they are not group
    /// elements, so membership in the chain does not apply.
    boards: Option<Ranking>,
    /// For identical pieces searched in the space their invariants allow (a group smaller
    /// than them): the maps that leave the solved board as it is, which decide whether the
    /// group holds a board those ranks hold.
    same: Option<SameBoard>,
}

impl Checker {
    /// Analyses the puzzle's moves (invariants and a stabilizer chain).
    pub fn new(puzzle: &Puzzle) -> crate::Result<Checker> {
        let mut checker = Checker::from_analysis(puzzle, Analysis::of(puzzle)?);
        if puzzle.has_identical_pieces() {
            let boards = Ranking::of_identical_pieces(puzzle, &checker.analysis)?;
            if boards.n_reachable() < boards.n_states() {
                // Such a ranking is only built where these are few enough to count boards.
                checker.same = SameBoard::of(puzzle, &checker.analysis);
            }
            checker.boards = Some(boards);
        }
        Ok(checker)
    }

    /// A checker from an analysis already made (for puzzles without identical pieces).
    pub fn from_analysis(puzzle: &Puzzle, analysis: Analysis) -> Checker {
        Checker { analysis, orient_mod: puzzle.orient_mod as usize, boards: None, same: None }
    }

    /// The number of reachable boards.
    pub fn group_order(&self) -> &BigUint {
        &self.analysis.group_order
    }

    /// The number of boards the orbits, parities and orientation sums allow (an upper bound
    /// on [`Checker::group_order`]).
    pub fn model_order(&self) -> &BigUint {
        &self.analysis.model_order
    }

    /// The verdict for a board of this puzzle (as parsed by [`Puzzle::parse_board`]).
    pub fn check(&self, board: &Board) -> Verdict {
        if let Some(boards) = &self.boards {
            let in_group =
                |b: &Board| self.same.as_ref().is_none_or(|s| s.reaches(&self.analysis.chain, b));
            return match boards.rank_board(board) {
                Ok(_) if in_group(board) => Verdict::Solvable,
                Ok(_) => Verdict::Unsolvable(vec![format!(
                    "the moves reach {} boards (identical pieces told apart only by label), \
                     fewer than the orbits, parities and orientation sums allow, and this is \
                     not one of them",
                    boards.n_reachable()
                )]),
                Err(Error::InvalidBoard(reason))
                    if matches!(boards, Ranking::Multiset(_) | Ranking::Fibres(_)) =>
                {
                    Verdict::Unsolvable(vec![reason])
                }
                Err(_) => Verdict::Unsolvable(vec![format!(
                    "the moves reach {} boards (identical pieces told apart only by label), and \
                     this is not one of them",
                    boards.n_reachable()
                )]),
            };
        }
        let inv = &self.analysis.invariants;
        if self.analysis.chain.contains(&self.as_permutation(board)) {
            return Verdict::Solvable;
        }
        let reasons = match inv.board_vector(board) {
            Err(reason) => vec![reason],
            Ok(v) => {
                let broken = inv.broken_constraints(&v);
                if broken.is_empty() {
                    vec![format!(
                        "the board keeps every orbit, parity and orientation invariant, but the moves \
                         generate only {} of the {} boards those invariants allow, and this is not one of them",
                        self.analysis.group_order, self.analysis.model_order
                    )]
                } else {
                    let values = self.describe_vector(&v);
                    broken
                        .into_iter()
                        .map(|c| format!("the moves keep {c}, but here {values}"))
                        .collect()
                }
            }
        };
        Verdict::Unsolvable(reasons)
    }

    /// The board as the group element that makes it from the solved board: upright tile `t`
    /// (point `t * k`) goes to its cell and orientation.
    fn as_permutation(&self, board: &Board) -> Vec<u16> {
        let k = self.orient_mod;
        let mut p = vec![0u16; board.tiles.len() * k];
        for (cell, (&t, &o)) in board.tiles.iter().zip(&board.orient).enumerate() {
            for j in 0..k {
                p[t as usize * k + j] = (cell * k + (o as usize + j) % k) as u16;
            }
        }
        p
    }

    /// `sign(O1) = 1 (an odd permutation), sign(O2) = 0 (an even permutation)`.
    fn describe_vector(&self, v: &[u8]) -> String {
        let inv = &self.analysis.invariants;
        let parts: Vec<String> = inv
            .coords
            .iter()
            .zip(v)
            .map(|(&c, &x)| c.describe_value(u64::from(x), |j| inv.orbits[j].free_mod))
            .collect();
        parts.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bfs::{Config, NoProgress, search_puzzle};
    use crate::rank::StateSpace;
    use crate::rank::board_count::permutations;
    use crate::table::{DistanceTable, UNSEEN};

    /// Every board of a small NRP: the verdict agrees with a full search, and every
    /// unsolvable board gets a reason.
    #[test]
    fn verdicts_agree_with_search_on_every_board() {
        for spec in ["nrp:2x3:2", "nrp:2x4:2", "nrp:2x2:2"] {
            let puzzle = Puzzle::parse(spec, None).unwrap();
            let checker = Checker::new(&puzzle).unwrap();
            let space = StateSpace::build(&puzzle).unwrap();
            let table = DistanceTable::in_memory(space.n_states()).unwrap();
            search_puzzle(&puzzle, &space, &table, &Config::new(1), &NoProgress).unwrap();
            let mut solvable = 0u64;
            for tiles in permutations(puzzle.n_positions()) {
                let board = Board { orient: vec![0; tiles.len()], tiles };
                let reached =
                    space.rank_board(&board).map(|r| table.get(r) != UNSEEN).unwrap_or(false);
                match checker.check(&board) {
                    Verdict::Solvable => {
                        assert!(reached, "{spec}: {board:?}");
                        solvable += 1;
                    }
                    Verdict::Unsolvable(reasons) => {
                        assert!(!reached, "{spec}: {board:?}");
                        assert!(!reasons.is_empty());
                    }
                }
            }
            assert_eq!(solvable, space.n_states(), "{spec}");
        }
    }

    /// Searches a puzzle and returns a closure telling whether a board was reached.
    fn reached_by_search(puzzle: &Puzzle) -> impl Fn(&Board) -> bool {
        let space = StateSpace::build(puzzle).unwrap();
        let table = DistanceTable::in_memory(space.n_states()).unwrap();
        search_puzzle(puzzle, &space, &table, &Config::new(2), &NoProgress).unwrap();
        move |b: &Board| space.rank_board(b).map(|r| table.get(r) != UNSEEN).unwrap_or(false)
    }

    /// (3,4,3): every board with each number on its own checkerboard colour (6! * 6! of them;
    /// the other 12! boards fail the colour test, which the test above covers): the verdict
    /// agrees with a full search, 720 solvable.
    #[test]
    fn every_colour_respecting_board_of_three_four_three() {
        let puzzle = Puzzle::parse("nrp:3x4:3", None).unwrap();
        let checker = Checker::new(&puzzle).unwrap();
        let reached = reached_by_search(&puzzle);
        let colour: Vec<Vec<u8>> = [0, 1]
            .iter()
            .map(|&c| (0..12u8).filter(|p| (p / 4 + p % 4) % 2 == c).collect())
            .collect();
        let (mut solvable, mut total) = (0, 0);
        for a in permutations(6) {
            for b in permutations(6) {
                let mut board = puzzle.solved();
                for i in 0..6 {
                    board.tiles[colour[0][i] as usize] = colour[0][a[i] as usize];
                    board.tiles[colour[1][i] as usize] = colour[1][b[i] as usize];
                }
                let verdict = checker.check(&board) == Verdict::Solvable;
                assert_eq!(verdict, reached(&board));
                solvable += verdict as u32;
                total += 1;
            }
        }
        assert_eq!((solvable, total), (720, 518_400));
    }

    /// Random boards of (3,3,3) and (3,5,3), half of them kept on their colours.
    #[test]
    fn random_boards_agree_with_search() {
        for spec in ["nrp:3x3:3", "nrp:3x5:3"] {
            let puzzle = Puzzle::parse(spec, None).unwrap();
            let checker = Checker::new(&puzzle).unwrap();
            let reached = reached_by_search(&puzzle);
            let (cols, n) = (puzzle.cols, puzzle.n_positions());
            let mut x = 0x2545_F491_4F6C_DD1Du64;
            let mut solvable = 0;
            for i in 0..3000 {
                let mut board = puzzle.solved();
                for j in (1..n).rev() {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    let k = (x % (j as u64 + 1)) as usize;
                    if i % 2 == 0 || (j / cols + j % cols) % 2 == (k / cols + k % cols) % 2 {
                        board.tiles.swap(j, k);
                    }
                }
                let verdict = checker.check(&board) == Verdict::Solvable;
                assert_eq!(verdict, reached(&board), "{spec}: {}", puzzle.format_board(&board));
                solvable += verdict as u32;
            }
            if spec == "nrp:3x5:3" {
                assert!(solvable > 300, "{spec}: only {solvable} solvable boards sampled");
            }
        }
    }

    #[test]
    fn reasons_name_the_invariant() {
        let p = Puzzle::parse("nrp:4x4:3", None).unwrap();
        let c = Checker::new(&p).unwrap();
        // Tiles 1 and 2 swapped: tile 2 sits on cell 1, of the other colour.
        let b = p.parse_board("2 1 3 4 / 5 6 7 8 / 9 10 11 12 / 13 14 15 16").unwrap();
        let Verdict::Unsolvable(r) = c.check(&b) else { panic!() };
        assert!(r[0].contains("tile 2 stands on cell 1"), "{r:?}");
        // Tiles 1 and 3 swapped (same colour): one colour class is odd on its own.
        let b = p.parse_board("3 2 1 4 / 5 6 7 8 / 9 10 11 12 / 13 14 15 16").unwrap();
        let Verdict::Unsolvable(r) = c.check(&b) else { panic!() };
        assert!(r[0].contains("sign(O1) + sign(O2) = 0 (mod 2)"), "{r:?}");
        assert!(r[0].contains("sign(O1) = 1 (an odd permutation)"), "{r:?}");
        // (2,3,2): an even permutation outside the 120-board group.
        let p = Puzzle::parse("nrp:2x3:2", None).unwrap();
        let c = Checker::new(&p).unwrap();
        let b = p.parse_board("2 1 3 / 4 5 6").unwrap();
        let Verdict::Unsolvable(r) = c.check(&b) else { panic!() };
        assert!(r[0].contains("only 120 of the 720"), "{r:?}");
        assert_eq!(c.check(&p.parse_board("4 5 6 / 1 2 3").unwrap()), Verdict::Solvable);
    }
}
