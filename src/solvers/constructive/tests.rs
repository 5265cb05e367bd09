use super::rules::{Parity, colour};
use super::*;
use crate::group::solvable::{Checker, Verdict};
use crate::puzzle::{Board, Metric, Puzzle, PuzzleSpec, nrp};

pub(super) struct Rng(pub(super) u64);

impl Rng {
    pub(super) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub(super) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub(super) fn shuffle(&mut self, v: &mut [u16]) {
        for i in (1..v.len()).rev() {
            v.swap(i, self.below(i + 1));
        }
    }
}

pub(super) fn shape(rows: usize, cols: usize, block: usize) -> Shape {
    Shape { rows, cols, block }
}

pub(super) fn solved(s: &Shape) -> Vec<u16> {
    (0..(s.rows * s.cols) as u16).collect()
}

pub(super) fn random_turns(s: &Shape, count: usize, rng: &mut Rng) -> Vec<Turn> {
    (0..count)
        .map(|_| Turn {
            top: rng.below(s.rows - s.block + 1),
            left: rng.below(s.cols - s.block + 1),
            quarters: 1 + rng.below(3) as u8,
        })
        .collect()
}

fn scrambled(s: &Shape, rng: &mut Rng) -> Vec<u16> {
    let n = s.rows * s.cols;
    apply(s, &solved(s), &random_turns(s, 3 * n + 10, rng))
}

/// A uniformly random permutation made to satisfy the theorem's conditions: tiles shuffled
/// within their colour (odd `b`), then one swap inside a class where a parity must be even.
pub(super) fn random_solvable(s: &Shape, rng: &mut Rng) -> Vec<u16> {
    let n = s.rows * s.cols;
    let parity = Parity::of(s.block);
    let mut tiles = solved(s);
    let classes: Vec<Vec<usize>> = if parity.keeps_colours() {
        (0..2).map(|c| (0..n).filter(|&x| colour(s, x) == c).collect()).collect()
    } else {
        vec![(0..n).collect()]
    };
    for class in &classes {
        let mut values: Vec<u16> = class.iter().map(|&x| x as u16).collect();
        rng.shuffle(&mut values);
        for (&cell, &v) in class.iter().zip(&values) {
            tiles[cell] = v;
        }
    }
    let as_u32: Vec<u32> = tiles.iter().map(|&t| u32::from(t)).collect();
    let [p0, p1] = rules::parities(s, &as_u32, parity.keeps_colours());
    let mut swap_in = |class: &[usize]| tiles.swap(class[0], class[1]);
    match parity {
        Parity::Free => {}
        Parity::Even if p0 == 1 => swap_in(&classes[0]),
        Parity::ColoursAlike if p0 != p1 => swap_in(&classes[0]),
        Parity::ColoursEven => {
            if p0 == 1 {
                swap_in(&classes[0]);
            }
            if p1 == 1 {
                swap_in(&classes[1]);
            }
        }
        _ => {}
    }
    tiles
}

fn assert_solves(s: &Shape, tiles: &[u16]) -> usize {
    let sol = solve(s, tiles).unwrap_or_else(|e| panic!("{s:?} {tiles:?}: {e}"));
    assert_eq!(apply(s, tiles, &sol), solved(s), "{s:?}");
    qtm_length(&sol)
}

#[test]
fn apply_agrees_with_the_puzzle_moves() {
    let mut rng = Rng(1);
    for (n, m, b) in [(4, 5, 3), (3, 3, 2), (5, 4, 2), (4, 4, 4), (6, 7, 4)] {
        let p = Puzzle::parse(&format!("nrp:{n}x{m}:{b}"), None).unwrap();
        let s = shape(n, m, b);
        let mut board = p.solved();
        let mut tiles = solved(&s);
        for t in random_turns(&s, 200, &mut rng) {
            let m = nrp::block_turn(s.rows, s.cols, s.block, t.top, t.left, t.quarters);
            assert_eq!(m.name, t.name());
            board = p.apply(&board, &m);
            tiles = apply(&s, &tiles, &[t]);
            assert_eq!(board.tiles.iter().map(|&x| u16::from(x)).collect::<Vec<_>>(), tiles);
        }
    }
}

#[test]
fn names_follow_twirl_notation() {
    assert_eq!(Turn { top: 1, left: 2, quarters: 1 }.name(), "R2C3");
    assert_eq!(Turn { top: 1, left: 2, quarters: 3 }.name(), "R2C3'");
    assert_eq!(Turn { top: 0, left: 0, quarters: 2 }.name(), "R1C1^2");
    assert_eq!(
        qtm_length(&[Turn { top: 0, left: 0, quarters: 2 }, Turn { top: 0, left: 0, quarters: 3 }]),
        3
    );
}

/// Every shape up to 7x7 (the thin ones search their macros: shapes run in parallel).
#[test]
fn every_small_shape_solves_scrambled_and_random_boards() {
    use rayon::prelude::*;
    let shapes: Vec<Shape> = (1..=7)
        .flat_map(|n| (1..=7).flat_map(move |m| (1..=n.min(m)).map(move |b| shape(n, m, b))))
        .collect();
    shapes.par_iter().for_each(|s| {
        let mut rng = Rng((s.rows * 100 + s.cols * 10 + s.block) as u64);
        for _ in 0..2 {
            assert_solves(s, &scrambled(s, &mut rng));
        }
        if rules::small_group(s).is_none() {
            for _ in 0..2 {
                assert_solves(s, &random_solvable(s, &mut rng));
            }
        }
    });
}

#[test]
fn larger_boards() {
    let mut rng = Rng(11);
    for (n, m) in [(10, 10), (20, 25)] {
        for b in 2..=5 {
            let s = shape(n, m, b);
            assert_solves(&s, &random_solvable(&s, &mut rng));
            assert_solves(&s, &scrambled(&s, &mut rng));
        }
    }
}

/// Narrow boards with large blocks: the shapes where no short word gives a 3-cycle
/// ((12,14,9): long powers that are 3-cycles) or where the last cells need a 3-cycle that only
/// a search over every joint position finds ((12,17,12), (13,13,10)).
#[test]
fn narrow_boards_with_large_blocks() {
    let mut rng = Rng(23);
    for (n, m, b) in [(12, 14, 9), (12, 17, 12), (13, 13, 10), (9, 11, 9)] {
        let s = shape(n, m, b);
        assert_solves(&s, &random_solvable(&s, &mut rng));
    }
}

/// Timings and lengths on larger boards (`cargo test --release --lib measure_ -- --ignored
/// --nocapture`).
#[test]
#[ignore]
fn measure_large_boards() {
    let mut rng = Rng(5);
    for (n, m, b) in [
        (20, 25, 2),
        (20, 25, 3),
        (20, 25, 4),
        (20, 25, 5),
        (10, 10, 3),
        (6, 7, 3),
        (5, 5, 2),
        (5, 5, 3),
        (5, 5, 4),
        (5, 5, 5),
        (3, 30, 3),
        (4, 40, 4),
        (50, 50, 3),
        (12, 12, 6),
        (16, 16, 7),
        (16, 18, 13),
    ] {
        let s = shape(n, m, b);
        let _ = solve(&s, &random_solvable(&s, &mut rng));
        for _ in 0..2 {
            let tiles = random_solvable(&s, &mut rng);
            let t0 = std::time::Instant::now();
            let r = solve(&s, &tiles).map(|sol| qtm_length(&sol));
            println!("{n}x{m}:{b} {r:?} in {:?}", t0.elapsed());
        }
    }
}

fn reason_of(s: &Shape, tiles: &[u16]) -> String {
    match solve(s, tiles) {
        Err(Unsolvable::Board(reason)) => {
            assert_eq!(check(s, tiles), Err(Unsolvable::Board(reason.clone())));
            reason
        }
        other => panic!("{s:?} {tiles:?}: expected unsolvable, got {other:?}"),
    }
}

pub(super) fn swapped(s: &Shape, a: usize, b: usize) -> Vec<u16> {
    let mut t = solved(s);
    t.swap(a, b);
    t
}

#[test]
fn unsolvable_boards_name_their_reason() {
    // Odd b: a tile on the other colour.
    let s = shape(4, 5, 3);
    assert!(
        reason_of(&s, &swapped(&s, 0, 1)).contains("tile 2 stands on a cell of the other colour")
    );
    // b = 0 mod 4: an odd permutation.
    let s = shape(5, 6, 4);
    assert!(
        reason_of(&s, &swapped(&s, 0, 1))
            .contains("odd permutation; with b = 4 every move is even")
    );
    // b = 3: colours of different parity (the condition sections 5.5-5.6 add).
    let s = shape(4, 4, 3);
    assert!(reason_of(&s, &swapped(&s, 0, 2)).contains("flips both"));
    // ... but both colours odd is solvable.
    let mut both = swapped(&s, 0, 2);
    both.swap(1, 3);
    assert_solves(&s, &both);
    // b = 7: each colour must be even on its own.
    let s = shape(7, 8, 7);
    assert!(reason_of(&s, &swapped(&s, 0, 2)).contains("even on each checkerboard colour"));
    let mut both = swapped(&s, 0, 2);
    both.swap(1, 3);
    assert!(reason_of(&s, &both).contains("odd permutation"));
    // The small exceptional groups.
    let s = shape(2, 3, 2);
    assert!(reason_of(&s, &swapped(&s, 0, 1)).contains("only 120 boards"));
    let s = shape(4, 3, 3);
    assert!(reason_of(&s, &swapped(&s, 0, 2)).contains("720"));
    let s = shape(4, 4, 4);
    assert!(reason_of(&s, &swapped(&s, 0, 1)).contains("4 rotations"));
    let s = shape(3, 2, 1);
    assert!(reason_of(&s, &swapped(&s, 0, 1)).contains("only the solved board"));
    // Malformed input is told apart from an unsolvable board.
    assert!(matches!(solve(&shape(2, 2, 3), &[0, 1, 2, 3]), Err(Unsolvable::Invalid(_))));
    assert!(matches!(solve(&shape(2, 2, 2), &[0, 1, 1, 3]), Err(Unsolvable::Invalid(_))));
}

/// The verdict agrees with membership in the group the moves generate (a stabilizer chain).
#[test]
fn verdicts_agree_with_the_stabilizer_chain() {
    let mut rng = Rng(3);
    for n in 1..=6 {
        for m in n..=6 {
            for b in 1..=n {
                let s = shape(n, m, b);
                let spec = PuzzleSpec::Nrp { rows: n, cols: m, block: b, oriented: false };
                let puzzle = Puzzle::new(&spec, Metric::Qtm).unwrap();
                let checker = Checker::new(&puzzle).unwrap();
                let mut boards: Vec<Vec<u16>> = (0..6)
                    .map(|_| {
                        let mut t = solved(&s);
                        rng.shuffle(&mut t);
                        t
                    })
                    .collect();
                boards.push(scrambled(&s, &mut rng));
                if n * m >= 2 {
                    boards.push(swapped(&s, 0, n * m - 1));
                }
                for tiles in boards {
                    let board = Board {
                        tiles: tiles.iter().map(|&t| t as u8).collect(),
                        orient: vec![0; n * m],
                    };
                    let exact = checker.check(&board) == Verdict::Solvable;
                    assert_eq!(check(&s, &tiles).is_ok(), exact, "({n},{m},{b}) {tiles:?}");
                }
            }
        }
    }
}
