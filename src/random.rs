//! Uniformly random solvable boards, reproducible from a seed.
//!
//! Board `i` of seed `s` depends on `(s, i)` alone (a SplitMix64 stream per board), so a
//! sample is the same whatever the number of threads or the order boards are drawn in, and
//! an interrupted sample continues with the boards it had not reached. A board is the
//! unranking of a uniform rank when the puzzle's ranking counts exactly its reachable boards
//! (every built-in puzzle up to 64-bit ranks); NRP boards past that, of any size, are drawn
//! directly from Lam's description of the group ([`nrp_board`]); other puzzles draw uniform
//! tiles and orientations until the stabilizer chain accepts one.

use crate::group::solvable::{Checker, Verdict};
use crate::puzzle::large::{LargeNrp, WideBoard};
use crate::puzzle::{Board, Puzzle, PuzzleSpec};
use crate::rank::StateSpace;
use crate::rank::layout::MAX_CELLS;
use crate::solvers::constructive::{self, Shape, Turn};
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
    /// NRP whose ranking counts more than its boards: drawn from Lam's description, the
    /// arrangements of an exceptional small group ((2,3,2), (3,4,3)) by unranking them.
    Lam(LargeNrp, Option<Box<StateSpace>>),
    Reject(Box<Checker>),
}

impl<'a> RandomBoards<'a> {
    /// Prepares the draw: by unranking where the ranking counts exactly the reachable
    /// boards, else by rejection against the stabilizer chain.
    pub fn new(puzzle: &'a Puzzle) -> Result<RandomBoards<'a>> {
        let how = match (StateSpace::build(puzzle), &puzzle.spec) {
            (Ok(space), _) if space.n_reachable() == space.n_states() => {
                How::Unrank(Box::new(space))
            }
            (_, &PuzzleSpec::Nrp { rows, cols, block, oriented }) => {
                let lam = LargeNrp::new(rows, cols, block, oriented)?;
                How::Lam(lam, exceptional_arrangements(&lam)?.map(Box::new))
            }
            _ => How::Reject(Box::new(Checker::new(puzzle)?)),
        };
        Ok(RandomBoards { puzzle, how })
    }

    /// Board `index` of `seed`.
    pub fn board(&self, seed: u64, index: u64) -> Result<Board> {
        let mut rng = SplitMix::for_board(seed, index);
        match &self.how {
            How::Unrank(space) => Ok(space.board(rng.below(space.n_states()))),
            How::Lam(lam, arrangements) => {
                let b = lam_board(lam, arrangements.as_deref(), &mut rng)?;
                Ok(Board { tiles: b.tiles.iter().map(|&t| t as u8).collect(), orient: b.orient })
            }
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
                    self.puzzle.spec.named()
                )))
            }
        }
    }
}

/// Board `index` of `seed` of an NRP puzzle of any size, uniform over the solvable boards. On
/// boards the ranking holds ([`MAX_CELLS`], the boards every method can solve) it is
/// [`RandomBoards`]'s board of the puzzle, so that `random:SEED:I` is one board for every
/// command; larger boards are drawn directly ([`lam_board`]).
pub fn nrp_board(p: &LargeNrp, seed: u64, index: u64) -> Result<WideBoard> {
    if p.n_cells() <= MAX_CELLS {
        let puzzle = Puzzle::parse(&p.spec(), None)?;
        let board = RandomBoards::new(&puzzle)?.board(seed, index)?;
        return Ok(WideBoard {
            tiles: board.tiles.iter().map(|&t| u16::from(t)).collect(),
            orient: board.orient,
        });
    }
    lam_board(p, None, &mut SplitMix::for_board(seed, index))
}

/// The arrangements of an exceptional small group ((2,3,2): 120, (3,4,3): 720), ranked
/// exactly; `None` for every other shape.
fn exceptional_arrangements(p: &LargeNrp) -> Result<Option<StateSpace>> {
    let Shape { rows, cols, block } = p.shape;
    let pair = (rows.min(cols), rows.max(cols));
    if (block, pair) != (2, (2, 3)) && (block, pair) != (3, (3, 4)) {
        return Ok(None);
    }
    let plain = LargeNrp { oriented: false, ..*p };
    let space = StateSpace::build(&Puzzle::parse(&plain.spec(), None)?)?;
    if space.n_reachable() != space.n_states() {
        return Err(Error::Unsupported(format!(
            "internal error: the arrangements of {} are not ranked exactly",
            plain.spec()
        )));
    }
    Ok(Some(space))
}

/// A uniformly random solvable board of NRP, drawn directly from Lam's description of the
/// group (no rejection): tiles shuffled within their checkerboard colour when blocks are odd
/// (turns keep colours), then, if a parity forbids the board, the first two tiles of one or
/// both colours swapped; then orientations uniform under the rules of
/// [`constructive::check_oriented`], the last tile's turned by 1 or 2 where a sum or parity
/// forbids them. Each fix is a bijection between classes of equal size, so every solvable
/// board is reached by exactly as many draws. The arrangements of the exceptional small
/// groups ((2,3,2), (3,4,3)) come from their exact ranking, `arrangements`.
fn lam_board(
    p: &LargeNrp,
    arrangements: Option<&StateSpace>,
    rng: &mut SplitMix,
) -> Result<WideBoard> {
    let Shape { rows, cols, block } = p.shape;
    let cells = p.n_cells();
    let mut board = p.solved();
    if block == rows && block == cols {
        // The whole board turns: its four rotations, every tile turned alike.
        let quarters = rng.below(4) as u8;
        if quarters != 0 {
            board = p.apply_turns(&board, &[Turn { top: 0, left: 0, quarters }]);
        }
        return Ok(board);
    }
    if let Some(space) = arrangements {
        let tiles = space.board(rng.below(space.n_states())).tiles;
        board.tiles = tiles.iter().map(|&t| u16::from(t)).collect();
    } else if block > 1 {
        let odd = block % 2 == 1;
        let colour = |c: usize| if odd { (c / cols + c % cols) % 2 } else { 0 };
        let mut classes: [Vec<usize>; 2] = [Vec::new(), Vec::new()];
        for c in 0..cells {
            classes[colour(c)].push(c);
        }
        for class in &classes {
            for i in (1..class.len()).rev() {
                let j = rng.below(i as u64 + 1) as usize;
                board.tiles.swap(class[i], class[j]);
            }
        }
        let fixed =
            [[false, false], [true, false], [false, true], [true, true]].iter().find_map(|swaps| {
                let mut tiles = board.tiles.clone();
                for (class, &swap) in classes.iter().zip(swaps) {
                    if swap && class.len() >= 2 {
                        tiles.swap(class[0], class[1]);
                    }
                }
                constructive::check(&p.shape, &tiles).is_ok().then_some(tiles)
            });
        board.tiles = fixed.ok_or_else(|| {
            Error::Unsupported(format!("no solvable arrangement of {} by shuffling", p.spec()))
        })?;
    }
    if p.oriented {
        board.orient = lam_orientations(p, &board.tiles, rng);
    }
    match p.check(&board)? {
        Ok(()) => Ok(board),
        Err(reason) => Err(Error::Unsupported(format!(
            "internal error: a random board of {} is not solvable: {reason}",
            p.spec()
        ))),
    }
}

/// Uniform orientations allowed on a solvable arrangement (see [`lam_board`]).
fn lam_orientations(p: &LargeNrp, tiles: &[u16], rng: &mut SplitMix) -> Vec<u8> {
    let Shape { cols, block, .. } = p.shape;
    let colour = |c: usize| (c / cols + c % cols) % 2;
    let mut orient: Vec<u8> = if block % 2 == 0 {
        // A tile is turned an odd number of quarters exactly when it stands on the other
        // colour than its home; which odd (or even) number is free.
        (0..tiles.len())
            .map(|c| {
                let moved = colour(c) != colour(usize::from(tiles[c]));
                u8::from(moved) + 2 * rng.below(2) as u8
            })
            .collect()
    } else {
        (0..tiles.len()).map(|_| rng.below(4) as u8).collect()
    };
    let sum = orient.iter().map(|&o| usize::from(o)).sum::<usize>();
    let last = orient.len() - 1;
    if block % 2 == 0 && sum % 4 == 2 {
        // The sum must be 0 mod 4: adding 2 to one tile keeps its parity.
        orient[last] = (orient[last] + 2) % 4;
    } else if block > 1 && matches!(block % 8, 3 | 5) {
        // The sum's parity must be each colour's permutation parity.
        let wide: Vec<u32> = tiles.iter().map(|&t| u32::from(t)).collect();
        let [odd_colour, _] = constructive::colour_parities(&p.shape, &wide);
        if sum % 2 != odd_colour {
            orient[last] = (orient[last] + 1) % 4;
        }
    }
    orient
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
        for (rows, cols, block, oriented) in [
            (20, 25, 3, false),
            (20, 25, 3, true),
            (20, 25, 4, true),
            (16, 25, 9, true),
            (9, 9, 5, false),
            (7, 7, 7, true),
            (16, 16, 1, true),
            (16, 16, 16, true),
            (2, 3, 2, false),
            (3, 4, 3, true),
        ] {
            let p = LargeNrp::new(rows, cols, block, oriented).unwrap();
            let boards: std::collections::HashSet<WideBoard> =
                (0..20).map(|i| nrp_board(&p, 3, i).unwrap()).collect();
            assert!(boards.iter().all(|b| p.check(b).unwrap().is_ok()), "{}", p.spec());
            let least = if block == rows.max(cols) { 2 } else { 15 };
            assert!(boards.len() >= least, "{}: {} boards", p.spec(), boards.len());
        }
        // One board for every command: the puzzle's own draw up to 255 cells.
        let p = Puzzle::parse("nrp:4x4:2", None).unwrap();
        let large = LargeNrp::new(4, 4, 2, false).unwrap();
        let b = RandomBoards::new(&p).unwrap().board(1, 5).unwrap();
        let tiles: Vec<u16> = b.tiles.iter().map(|&t| u16::from(t)).collect();
        assert_eq!(nrp_board(&large, 1, 5).unwrap().tiles, tiles);
    }

    #[test]
    fn boards_drawn_from_lams_description_are_solvable_and_uniform() {
        // Small shapes, so the stabilizer chain (not Lam's rules) judges every board.
        for spec in [
            "nrp:3x4:2:orient",
            "nrp:4x4:3:orient",
            "nrp:4x5:4:orient",
            "nrp:5x5:5",
            "nrp:2x3:2:orient",
            "nrp:3x4:3:orient",
        ] {
            let puzzle = Puzzle::parse(spec, None).unwrap();
            let checker = Checker::new(&puzzle).unwrap();
            let PuzzleSpec::Nrp { rows, cols, block, oriented } = puzzle.spec else { panic!() };
            let p = LargeNrp::new(rows, cols, block, oriented).unwrap();
            let arrangements = exceptional_arrangements(&p).unwrap();
            for i in 0..200 {
                let b =
                    lam_board(&p, arrangements.as_ref(), &mut SplitMix::for_board(9, i)).unwrap();
                let small =
                    Board { tiles: b.tiles.iter().map(|&t| t as u8).collect(), orient: b.orient };
                assert!(matches!(checker.check(&small), Verdict::Solvable), "{spec} board {i}");
            }
        }
        // Marginals of 3x4:2 with orientation (the group is all 12! arrangements, times the
        // 2^11 orientations of even blocks): tile 1 on each cell 1/12 of the time, and upright
        // or turned twice alike where it stands on its own colour.
        let p = LargeNrp::new(3, 4, 2, true).unwrap();
        let draws = 120_000;
        let (mut cell_of_tile, mut turns) = ([0u32; 12], [0u32; 4]);
        for i in 0..draws {
            let b = lam_board(&p, None, &mut SplitMix::for_board(5, i)).unwrap();
            let at = b.tiles.iter().position(|&t| t == 0).unwrap();
            cell_of_tile[at] += 1;
            turns[usize::from(b.orient[at])] += 1;
        }
        assert!(cell_of_tile.iter().all(|&c| (9_500..10_500).contains(&c)), "{cell_of_tile:?}");
        // Same colour as home on 6 of 12 cells: turns 0 and 2 each half of that.
        for t in turns {
            assert!((28_500..31_500).contains(&t), "{turns:?}");
        }
    }
}
