use super::rules::{colour, parities};
use super::tests::{Rng, random_solvable, random_turns, shape, solved, swapped};
use super::*;
use crate::group::solvable::{Checker, Verdict};
use crate::puzzle::{Board, Metric, Puzzle, PuzzleSpec, nrp};

fn upright(s: &Shape) -> Vec<u8> {
    vec![0; s.rows * s.cols]
}

fn scrambled(s: &Shape, rng: &mut Rng) -> (Vec<u16>, Vec<u8>) {
    let n = s.rows * s.cols;
    apply_oriented(s, &solved(s), &upright(s), &random_turns(s, 3 * n + 10, rng))
}

/// Orientations the rules allow for `tiles` (uniform among them).
fn allowed_orientations(s: &Shape, tiles: &[u16], rng: &mut Rng) -> Vec<u8> {
    let n = s.rows * s.cols;
    let b = s.block;
    let mut o: Vec<u8> = (0..n).map(|_| rng.below(4) as u8).collect();
    if b.is_multiple_of(2) {
        for (cell, &t) in tiles.iter().enumerate() {
            let odd = u8::from(colour(s, cell) != colour(s, t as usize));
            o[cell] = (o[cell] & 2) | odd;
        }
        if o.iter().map(|&x| u32::from(x)).sum::<u32>() % 4 != 0 {
            o[0] = (o[0] + 2) % 4;
        }
    } else if matches!(b % 8, 3 | 5) {
        let as_u32: Vec<u32> = tiles.iter().map(|&t| u32::from(t)).collect();
        let [p0, _] = parities(s, &as_u32, true);
        if o.iter().map(|&x| x as usize).sum::<usize>() % 2 != p0 {
            o[0] = (o[0] + 1) % 4;
        }
    }
    o
}

fn assert_solves(s: &Shape, tiles: &[u16], orient: &[u8]) -> usize {
    let sol = solve_oriented(s, tiles, orient).unwrap_or_else(|e| panic!("{s:?} {tiles:?}: {e}"));
    assert_eq!(apply_oriented(s, tiles, orient, &sol), (solved(s), upright(s)), "{s:?}");
    qtm_length(&sol)
}

#[test]
fn oriented_apply_agrees_with_the_puzzle_moves() {
    let mut rng = Rng(7);
    for (n, m, b) in [(4, 5, 3), (3, 3, 2), (5, 4, 2), (4, 4, 4), (6, 7, 5)] {
        let p = Puzzle::parse(&format!("nrp:{n}x{m}:{b}:orient"), None).unwrap();
        let s = shape(n, m, b);
        let mut board = p.solved();
        let (mut tiles, mut orient) = (solved(&s), upright(&s));
        for t in random_turns(&s, 200, &mut rng) {
            let mv = nrp::block_turn(n, m, b, t.top, t.left, t.quarters);
            board = p.apply(&board, &mv);
            (tiles, orient) = apply_oriented(&s, &tiles, &orient, &[t]);
            assert_eq!(board.tiles.iter().map(|&x| u16::from(x)).collect::<Vec<_>>(), tiles);
            assert_eq!(board.orient, orient);
        }
    }
}

/// Every shape up to 7x7: scrambled boards, and random boards the rules allow.
#[test]
fn every_small_shape_solves_oriented_boards() {
    use rayon::prelude::*;
    let shapes: Vec<Shape> = (1..=7)
        .flat_map(|n| (1..=7).flat_map(move |m| (1..=n.min(m)).map(move |b| shape(n, m, b))))
        .collect();
    shapes.par_iter().for_each(|s| {
        let mut rng = Rng((s.rows * 100 + s.cols * 10 + s.block) as u64);
        for _ in 0..2 {
            let (tiles, orient) = scrambled(s, &mut rng);
            assert_solves(s, &tiles, &orient);
        }
        if s.block != s.rows || s.block != s.cols {
            for _ in 0..2 {
                let tiles = if rules::small_group(s).is_none() {
                    random_solvable(s, &mut rng)
                } else {
                    scrambled(s, &mut rng).0
                };
                let orient = allowed_orientations(s, &tiles, &mut rng);
                assert_solves(s, &tiles, &orient);
            }
        }
    });
}

#[test]
fn larger_oriented_boards() {
    let mut rng = Rng(13);
    for (n, m) in [(9, 11), (20, 25)] {
        for b in 2..=5 {
            let s = shape(n, m, b);
            let tiles = random_solvable(&s, &mut rng);
            let orient = allowed_orientations(&s, &tiles, &mut rng);
            assert_solves(&s, &tiles, &orient);
        }
    }
}

/// Timings and lengths (`cargo test --release --lib measure_oriented -- --ignored
/// --nocapture`).
#[test]
#[ignore]
fn measure_oriented_boards() {
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
        (3, 30, 3),
        (4, 40, 4),
        (50, 50, 3),
        (12, 12, 6),
        (16, 16, 7),
        (7, 8, 7),
        (8, 8, 7),
        (9, 9, 7),
        (8, 9, 6),
        (9, 10, 9),
    ] {
        let s = shape(n, m, b);
        for _ in 0..3 {
            let tiles = random_solvable(&s, &mut rng);
            let orient = allowed_orientations(&s, &tiles, &mut rng);
            let t0 = std::time::Instant::now();
            let r = solve_oriented(&s, &tiles, &orient).map(|sol| qtm_length(&sol));
            let unoriented = solve(&s, &tiles).map(|sol| qtm_length(&sol));
            println!("{n}x{m}:{b} {r:?} (positions only {unoriented:?}) in {:?}", t0.elapsed());
        }
    }
}

/// The verdict agrees with membership in the group the oriented moves generate (a stabilizer
/// chain), on uniformly random boards, boards the rules allow, those with one tile turned
/// further, and scrambled boards.
#[test]
fn oriented_verdicts_agree_with_the_stabilizer_chain() {
    use rayon::prelude::*;
    let shapes: Vec<Shape> = (1..=6)
        .flat_map(|n| (n..=6).flat_map(move |m| (1..=n).map(move |b| shape(n, m, b))))
        .collect();
    shapes.par_iter().for_each(|s| {
        let (n, m, b) = (s.rows, s.cols, s.block);
        let mut rng = Rng((n * 100 + m * 10 + b) as u64 + 17);
        let spec = PuzzleSpec::Nrp { rows: n, cols: m, block: b, oriented: true };
        let puzzle = Puzzle::new(&spec, Metric::Qtm).unwrap();
        // With b = 1 (tiles only turn in place) the chain has no index past 11 cells.
        let checker = match Checker::new(&puzzle) {
            Ok(c) => c,
            Err(_) if b == 1 && n * m > 11 => return,
            Err(e) => panic!("({n},{m},{b}): {e}"),
        };
        let mut boards: Vec<(Vec<u16>, Vec<u8>)> = Vec::new();
        for _ in 0..4 {
            let mut t = solved(s);
            rng.shuffle(&mut t);
            let o = (0..n * m).map(|_| rng.below(4) as u8).collect();
            boards.push((t, o));
        }
        for _ in 0..3 {
            let t = if rules::small_group(s).is_none() {
                random_solvable(s, &mut rng)
            } else {
                scrambled(s, &mut rng).0
            };
            let o = allowed_orientations(s, &t, &mut rng);
            for turn in [0, 1, 2] {
                let mut o = o.clone();
                let cell = rng.below(n * m);
                o[cell] = (o[cell] + turn) % 4;
                boards.push((t.clone(), o));
            }
        }
        boards.push(scrambled(s, &mut rng));
        for (tiles, orient) in boards {
            let board = Board { tiles: tiles.iter().map(|&t| t as u8).collect(), orient };
            let exact = checker.check(&board) == Verdict::Solvable;
            let ours = check_oriented(s, &tiles, &board.orient);
            assert_eq!(ours.is_ok(), exact, "({n},{m},{b}) {tiles:?} {:?}: {ours:?}", board.orient);
        }
    });
}

fn reason_of(s: &Shape, tiles: &[u16], orient: &[u8]) -> String {
    match solve_oriented(s, tiles, orient) {
        Err(Unsolvable::Board(reason)) => {
            assert_eq!(check_oriented(s, tiles, orient), Err(Unsolvable::Board(reason.clone())));
            reason
        }
        other => panic!("{s:?} {tiles:?} {orient:?}: expected unsolvable, got {other:?}"),
    }
}

#[test]
fn unsolvable_oriented_boards_name_their_reason() {
    let turned = |s: &Shape, cells: &[(usize, u8)]| {
        let mut o = upright(s);
        for &(x, q) in cells {
            o[x] = q;
        }
        o
    };
    // Even b: a tile turned an odd number of quarters on its home colour.
    let s = shape(4, 5, 2);
    let r = reason_of(&s, &solved(&s), &turned(&s, &[(0, 1), (1, 3)]));
    assert!(r.contains("tile 1 stands on a cell of the same colour"), "{r}");
    // ... or an even number on the other colour.
    let r = reason_of(&s, &swapped(&s, 0, 1), &upright(&s));
    assert!(r.contains("of the other colour as its home but is turned 0"), "{r}");
    // Even b: the sum is 2 mod 4.
    let r = reason_of(&s, &solved(&s), &turned(&s, &[(3, 2)]));
    assert!(r.contains("add up to 2 mod 4"), "{r}");
    assert!(solve_oriented(&s, &solved(&s), &turned(&s, &[(3, 2), (7, 2)])).is_ok());
    // b = 3: the sum's parity follows the colours' parity.
    let s = shape(4, 4, 3);
    let r = reason_of(&s, &solved(&s), &turned(&s, &[(5, 1)]));
    assert!(r.contains("add up to an odd number while each colour class is an even"), "{r}");
    let mut both = swapped(&s, 0, 2);
    both.swap(1, 3);
    let r = reason_of(&s, &both, &upright(&s));
    assert!(r.contains("add up to an even number while each colour class is an odd"), "{r}");
    assert!(solve_oriented(&s, &both, &turned(&s, &[(6, 3)])).is_ok());
    // b = 7: orientations are free, a position condition still applies.
    let s = shape(7, 8, 7);
    assert_eq!(check_oriented(&s, &solved(&s), &turned(&s, &[(9, 1)])), Ok(()));
    let r = reason_of(&s, &swapped(&s, 0, 2), &upright(&s));
    assert!(r.contains("even on each checkerboard colour"), "{r}");
    // b = n = m: only the 4 rotations, every tile turned alike.
    let s = shape(3, 3, 3);
    let r = reason_of(&s, &solved(&s), &turned(&s, &[(4, 1)]));
    assert!(r.contains("4 rotations, with every tile turned alike"), "{r}");
    let (t, o) =
        apply_oriented(&s, &solved(&s), &upright(&s), &[Turn { top: 0, left: 0, quarters: 3 }]);
    assert_solves(&s, &t, &o);
    // b = 1: tiles stay home, any orientation is solvable.
    let s = shape(2, 3, 1);
    assert_eq!(assert_solves(&s, &solved(&s), &turned(&s, &[(0, 1), (4, 2)])), 3);
    assert!(reason_of(&s, &swapped(&s, 0, 1), &upright(&s)).contains("only the solved board"));
    // (2,3,2): positions outside the 120, or an orientation rule.
    let s = shape(2, 3, 2);
    assert!(reason_of(&s, &swapped(&s, 0, 1), &turned(&s, &[(0, 1), (1, 1)])).contains("120"));
    // Malformed orientations.
    let s = shape(3, 3, 2);
    assert!(matches!(
        solve_oriented(&s, &solved(&s), &turned(&s, &[(0, 4)])),
        Err(Unsolvable::Invalid(_))
    ));
    assert!(matches!(solve_oriented(&s, &solved(&s), &[0; 8]), Err(Unsolvable::Invalid(_))));
}

/// Blocks of 7 and 9 (no orientation constraint): one tile turned, any cell, and random
/// allowed boards; each solution is applied back (the sum-changing macros made by placement).
#[test]
fn blocks_of_seven_and_nine_turn_single_tiles() {
    let mut rng = Rng(79);
    for (n, m, b) in [(8, 8, 7), (9, 10, 9), (15, 15, 7), (7, 9, 7)] {
        let s = shape(n, m, b);
        for (cell, q) in [(0, 1), (n * m / 2, 2), (n * m - 1, 3), (m + 1, 1)] {
            let mut o = upright(&s);
            o[cell] = q;
            assert_solves(&s, &solved(&s), &o);
        }
        let tiles = random_solvable(&s, &mut rng);
        let orient = allowed_orientations(&s, &tiles, &mut rng);
        assert_solves(&s, &tiles, &orient);
    }
}
