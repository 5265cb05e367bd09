use super::rules::{Parity, colour};
use super::*;
use crate::group::solvable::{Checker, Verdict};
use crate::puzzle::{Board, Puzzle, nrp};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn shuffle(&mut self, v: &mut [u16]) {
        for i in (1..v.len()).rev() {
            v.swap(i, self.below(i + 1));
        }
    }
}

fn shape(rows: usize, cols: usize, block: usize) -> Shape {
    Shape { rows, cols, block }
}

fn solved(s: &Shape) -> Vec<u16> {
    (0..(s.rows * s.cols) as u16).collect()
}

fn random_turns(s: &Shape, count: usize, rng: &mut Rng) -> Vec<Turn> {
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
fn random_solvable(s: &Shape, rng: &mut Rng) -> Vec<u16> {
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

#[test]
fn every_small_shape_solves_scrambled_and_random_boards() {
    let mut rng = Rng(7);
    for n in 1..=7 {
        for m in 1..=7 {
            for b in 1..=n.min(m) {
                let s = shape(n, m, b);
                for _ in 0..3 {
                    assert_solves(&s, &scrambled(&s, &mut rng));
                }
                if rules::small_group(&s).is_none() {
                    for _ in 0..3 {
                        assert_solves(&s, &random_solvable(&s, &mut rng));
                    }
                }
            }
        }
    }
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

#[test]
#[ignore]
fn debug_timing() {
    let mut rng = Rng(7);
    for n in 1..=7 {
        for m in 1..=7 {
            for b in 1..=n.min(m) {
                let s = shape(n, m, b);
                let t0 = std::time::Instant::now();
                let mac = if rules::small_group(&s).is_none() {
                    cycles::three_cycles(n, m, b).map(|v| (v.len(), v[0].qtm)).ok()
                } else {
                    None
                };
                let t1 = t0.elapsed();
                let mut lens = Vec::new();
                for _ in 0..3 {
                    let tiles = scrambled(&s, &mut rng);
                    match solve(&s, &tiles) {
                        Ok(sol) => lens.push(qtm_length(&sol)),
                        Err(e) => {
                            println!("{n}x{m}:{b} FAIL {e}");
                        }
                    }
                }
                println!(
                    "{n}x{m}:{b} macros {mac:?} in {t1:?}, solve {:?}, lens {lens:?}",
                    t0.elapsed() - t1
                );
            }
        }
    }
}
