//! Uniformly random solvable boards, reproducible from a seed.
//!
//! Board `i` of seed `s` depends on `(s, i)` alone (a SplitMix64 stream per board), so a
//! sample is the same whatever the number of threads or the order boards are drawn in, and
//! an interrupted sample continues with the boards it had not reached. A board is the
//! unranking of a uniform rank when the puzzle's ranking counts exactly its reachable boards
//! (every built-in puzzle up to 64-bit ranks); otherwise uniform tiles and orientations are
//! drawn until the stabilizer chain accepts one.

use crate::group::solvable::{Checker, Verdict};
use crate::puzzle::{Board, Puzzle};
use crate::rank::StateSpace;
use crate::rank::layout::MAX_CELLS;
use crate::solvers::constructive::{self, Shape};
use crate::{Error, Result};

/// Draws before [`RandomBoards::board`] gives up on rejection sampling.
const MAX_TRIES: u32 = 100_000;

/// A SplitMix64 generator (Steele, Lea and Flood): small, fast and well mixed, with a
/// stream that never changes between versions, which reproducible samples need.
#[derive(Clone, Debug)]
pub struct SplitMix(u64);

impl SplitMix {
    /// The stream of board `index` of `seed`.
    pub fn for_board(seed: u64, index: u64) -> SplitMix {
        let mut s = SplitMix(seed);
        let base = s.next_u64();
        SplitMix(base ^ index.wrapping_mul(0xd1b5_4a32_d192_ed03))
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A uniform number below `n` (`n > 0`), without modulo bias (Lemire's method).
    pub fn below(&mut self, n: u64) -> u64 {
        let threshold = n.wrapping_neg() % n;
        loop {
            let m = u128::from(self.next_u64()) * u128::from(n);
            if (m as u64) >= threshold {
                return (m >> 64) as u64;
            }
        }
    }
}

/// Draws uniformly random solvable boards of one puzzle.
pub struct RandomBoards<'a> {
    puzzle: &'a Puzzle,
    how: How,
}

enum How {
    Unrank(Box<StateSpace>),
    Reject(Box<Checker>),
}

impl<'a> RandomBoards<'a> {
    /// Prepares the draw: by unranking where the ranking counts exactly the reachable
    /// boards, else by rejection against the stabilizer chain.
    pub fn new(puzzle: &'a Puzzle) -> Result<RandomBoards<'a>> {
        let how = match StateSpace::build(puzzle) {
            Ok(space) if space.n_reachable() == space.n_states() => How::Unrank(Box::new(space)),
            _ => How::Reject(Box::new(Checker::new(puzzle)?)),
        };
        Ok(RandomBoards { puzzle, how })
    }

    /// Board `index` of `seed`.
    pub fn board(&self, seed: u64, index: u64) -> Result<Board> {
        let mut rng = SplitMix::for_board(seed, index);
        match &self.how {
            How::Unrank(space) => Ok(space.board(rng.below(space.n_states()))),
            How::Reject(checker) => {
                let n = self.puzzle.n_positions();
                let k = u64::from(self.puzzle.orient_mod.max(1));
                for _ in 0..MAX_TRIES {
                    let mut tiles: Vec<u8> = self.puzzle.solved().tiles;
                    for i in (1..n).rev() {
                        tiles.swap(i, rng.below(i as u64 + 1) as usize);
                    }
                    let orient = (0..n).map(|_| rng.below(k) as u8).collect();
                    let b = Board { tiles, orient };
                    if matches!(checker.check(&b), Verdict::Solvable) {
                        return Ok(b);
                    }
                }
                Err(Error::Unsupported(format!(
                    "no solvable board of {} in {MAX_TRIES} uniform draws: too few boards are \
                     solvable to sample them this way",
                    self.puzzle.spec
                )))
            }
        }
    }
}

/// Board `index` of `seed` of NRP `shape` of any size, uniform over the solvable boards. On
/// boards the ranking holds ([`MAX_CELLS`], the boards every method can solve) it is
/// [`RandomBoards`]'s board of the puzzle, so that `random:SEED:I` is one board for every
/// command. Larger boards (only the constructive method solves them): tiles shuffled within their
/// checkerboard colour when blocks are odd (turns keep colours), then, if a parity forbids the
/// board, the first two tiles of one or both colours swapped. A swap is a bijection between
/// parity classes of equal size, so every solvable board is reached by exactly as many
/// shuffles.
pub fn nrp_board(shape: &Shape, seed: u64, index: u64) -> Result<Vec<u16>> {
    let cells = shape.rows * shape.cols;
    if cells <= MAX_CELLS {
        let spec = format!("nrp:{}x{}:{}", shape.rows, shape.cols, shape.block);
        let puzzle = Puzzle::parse(&spec, None)?;
        let board = RandomBoards::new(&puzzle)?.board(seed, index)?;
        return Ok(board.tiles.iter().map(|&t| u16::from(t)).collect());
    }
    if cells > usize::from(u16::MAX) {
        return Err(Error::TooLarge(format!("{cells} cells; boards hold at most 65,535")));
    }
    let mut rng = SplitMix::for_board(seed, index);
    let odd = shape.block % 2 == 1;
    let colour = |c: usize| if odd { (c / shape.cols + c % shape.cols) % 2 } else { 0 };
    let mut classes: [Vec<usize>; 2] = [Vec::new(), Vec::new()];
    for c in 0..cells {
        classes[colour(c)].push(c);
    }
    let mut tiles: Vec<u16> = (0..cells as u16).collect();
    for class in &classes {
        for i in (1..class.len()).rev() {
            let j = rng.below(i as u64 + 1) as usize;
            tiles.swap(class[i], class[j]);
        }
    }
    for swaps in [[false, false], [true, false], [false, true], [true, true]] {
        let mut b = tiles.clone();
        for (class, swap) in classes.iter().zip(swaps) {
            if swap && class.len() >= 2 {
                b.swap(class[0], class[1]);
            }
        }
        if constructive::check(shape, &b).is_ok() {
            return Ok(b);
        }
    }
    // The small exceptional groups beyond the ranking's boards: the whole board turned
    // (b = n = m: its four rotations) or nothing moving (b = 1).
    let solved: Vec<u16> = (0..cells as u16).collect();
    if shape.block == 1 {
        return Ok(solved);
    }
    if shape.block == shape.rows && shape.block == shape.cols {
        let quarters = rng.below(4) as u8;
        let turn = constructive::Turn { top: 0, left: 0, quarters };
        let turns = if quarters == 0 { Vec::new() } else { vec![turn] };
        return Ok(constructive::apply(shape, &solved, &turns));
    }
    Err(Error::Unsupported(format!(
        "no solvable board found for nrp:{}x{}:{} by shuffling",
        shape.rows, shape.cols, shape.block
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_fixed_and_uniform_enough() {
        // The stream is part of the sample's definition: it must never change.
        let mut r = SplitMix::for_board(1, 0);
        let first = r.next_u64();
        assert_eq!(SplitMix::for_board(1, 0).next_u64(), first);
        assert_ne!(SplitMix::for_board(1, 1).next_u64(), first);
        let mut counts = [0u32; 6];
        let mut r = SplitMix::for_board(7, 3);
        for _ in 0..60_000 {
            counts[r.below(6) as usize] += 1;
        }
        assert!(counts.iter().all(|&c| (9_500..10_500).contains(&c)), "{counts:?}");
    }

    #[test]
    fn boards_are_solvable_and_spread() {
        for spec in ["nrp:3x3:2", "spin:2x3", "nrp:3x4:3", "nrp:3x3:3"] {
            let p = Puzzle::parse(spec, None).unwrap();
            let draw = RandomBoards::new(&p).unwrap();
            let checker = Checker::new(&p).unwrap();
            let boards: std::collections::HashSet<Board> =
                (0..50).map(|i| draw.board(42, i).unwrap()).collect();
            assert!(boards.iter().all(|b| matches!(checker.check(b), Verdict::Solvable)));
            // nrp:3x3:3 has 4 boards; the others many.
            let least = if spec == "nrp:3x3:3" { 3 } else { 45 };
            assert!(boards.len() >= least, "{spec}: {} distinct boards", boards.len());
            assert_eq!(draw.board(42, 7).unwrap(), draw.board(42, 7).unwrap());
        }
    }

    #[test]
    fn nrp_boards_of_any_size_are_solvable() {
        for (rows, cols, block) in
            [(20, 25, 3), (20, 25, 4), (9, 9, 5), (7, 7, 7), (2, 3, 2), (3, 4, 3)]
        {
            let shape = Shape { rows, cols, block };
            let boards: std::collections::HashSet<Vec<u16>> =
                (0..20).map(|i| nrp_board(&shape, 3, i).unwrap()).collect();
            assert!(boards.iter().all(|b| constructive::check(&shape, b).is_ok()));
            let least = if block == rows.max(cols) { 2 } else { 15 };
            assert!(boards.len() >= least, "{rows}x{cols}:{block}: {} boards", boards.len());
        }
        // One board for every command: the puzzle's own draw up to 255 cells.
        let p = Puzzle::parse("nrp:4x4:2", None).unwrap();
        let shape = Shape { rows: 4, cols: 4, block: 2 };
        let tiles: Vec<u16> = RandomBoards::new(&p)
            .unwrap()
            .board(1, 5)
            .unwrap()
            .tiles
            .iter()
            .map(|&t| u16::from(t))
            .collect();
        assert_eq!(nrp_board(&shape, 1, 5).unwrap(), tiles);
    }
}
