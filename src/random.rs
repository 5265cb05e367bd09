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
    Unrank(StateSpace),
    Reject(Box<Checker>),
}

impl<'a> RandomBoards<'a> {
    /// Prepares the draw: by unranking where the ranking counts exactly the reachable
    /// boards, else by rejection against the stabilizer chain.
    pub fn new(puzzle: &'a Puzzle) -> Result<RandomBoards<'a>> {
        let how = match StateSpace::build(puzzle) {
            Ok(space) if space.n_reachable() == space.n_states() => How::Unrank(space),
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
}
