//! Known-answer tests: the exact results table of REFERENCE.md and the published
//! Spinpossible facts, plus equivalence of thread counts and directions.

use super::*;
use crate::puzzle::{Metric, Puzzle};
use crate::rank::StateSpace;

fn histogram(spec: &str, metric: Option<Metric>, threads: usize) -> Vec<u64> {
    histogram_with(spec, metric, Config::new(threads))
}

fn histogram_with(spec: &str, metric: Option<Metric>, config: Config) -> Vec<u64> {
    let puzzle = Puzzle::parse(spec, metric).unwrap();
    let space = StateSpace::build(&puzzle).unwrap();
    let table = DistanceTable::in_memory(space.n_states()).unwrap();
    let out = search_puzzle(&puzzle, &space, &table, &config, &NoProgress).unwrap();
    assert_eq!(out.states(), space.n_states(), "{spec}: every rank must be reached");
    let marks = table.count_marks();
    assert_eq!(marks[UNSEEN as usize], 0);
    out.histogram
}

/// REFERENCE.md, "Exact results measured with an independent solver".
const KNOWN: &[(&str, Option<Metric>, &[u64])] = &[
    ("nrp:2x3:2", None, &[1, 4, 10, 22, 42, 33, 7, 1]),
    ("nrp:3x4:3", None, &[1, 4, 10, 24, 54, 116, 230, 206, 65, 10]),
    ("nrp:3x3:2", None, &[1, 8, 52, 328, 1996, 11336, 51582, 130042, 125929, 39706, 1880, 20]),
    ("nrp:3x3:2", Some(Metric::Htm), &[1, 12, 108, 936, 7740, 56220, 211446, 86194, 223]),
    ("spin:2x3", None, &[1, 18, 178, 1272, 6970, 22467, 15024, 150]),
];

#[test]
fn reference_exact_results() {
    for &(spec, metric, expected) in KNOWN {
        assert_eq!(histogram(spec, metric, 2), expected, "{spec} {metric:?}");
    }
}

#[test]
fn thread_counts_agree() {
    let one = histogram("nrp:3x3:2", Some(Metric::Cw), 1);
    assert_eq!(histogram("nrp:3x3:2", Some(Metric::Cw), 2), one);
    assert_eq!(one.iter().sum::<u64>(), 362_880);
}

#[test]
fn directed_distances_are_distances_to_solve() {
    // Clockwise only on (2,3,2): a single clockwise turn is solved by three more
    // clockwise turns of the same block, so no board is at distance 1 except the
    // counter-clockwise turns (solved by one clockwise turn).
    let puzzle = Puzzle::parse("nrp:2x3:2", Some(Metric::Cw)).unwrap();
    let space = StateSpace::build(&puzzle).unwrap();
    let table = DistanceTable::in_memory(space.n_states()).unwrap();
    let out = search_puzzle(&puzzle, &space, &table, &Config::new(2), &NoProgress).unwrap();
    assert_eq!(out.states(), 120);
    assert_eq!(out.histogram[1], 2);
    let ccw = puzzle.moves[0].inverse(1, String::new());
    let b = puzzle.apply(&puzzle.solved(), &ccw);
    assert_eq!(table.get(space.rank_board(&b).unwrap()), mark_of(1));
    let cw = &puzzle.moves[0];
    let b = puzzle.apply(&puzzle.solved(), cw);
    assert_eq!(table.get(space.rank_board(&b).unwrap()), mark_of(3));
}

/// Runs (XOR runs for Spinpossible, cell runs for NRP) and the board-by-board search agree.
#[test]
fn runs_agree_with_board_by_board() {
    for (spec, metric) in [
        ("spin:2x3", None),
        ("nrp:3x3:2", Some(Metric::Cw)),
        ("nrp:2x5:2", None),
        ("nrp:2x4:2:orient", None),
    ] {
        let by_boards = histogram_with(spec, metric, Config { threads: 2, runs: false });
        assert_eq!(histogram_with(spec, metric, Config::new(2)), by_boards, "{spec}");
    }
}

/// NRP (4,4,3): 8!*8!/2 boards. The histogram was first computed board by board (180 s) and
/// is now checked against the cell-run search.
#[test]
fn nrp_four_by_four_three() {
    let puzzle = Puzzle::parse("nrp:4x4:3", None).unwrap();
    let space = StateSpace::build(&puzzle).unwrap();
    let table = DistanceTable::in_memory(space.n_states()).unwrap();
    let h = search_puzzle(&puzzle, &space, &table, &Config::new(2), &NoProgress).unwrap().histogram;
    // While the table is here: `check` agrees with it on random boards (a random
    // arrangement, or one of its own colour classes so that half pass the colour test).
    let checker = crate::group::solvable::Checker::new(&puzzle).unwrap();
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = |n: usize| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % n as u64) as usize
    };
    let (mut solvable, mut unsolvable) = (0, 0);
    for i in 0..4000 {
        let mut board = puzzle.solved();
        for j in (1..16).rev() {
            let k = next(j + 1);
            // Every other board swaps only within a colour class (cells of equal parity of row+col).
            if i % 2 == 0 || (j / 4 + j % 4) % 2 == (k / 4 + k % 4) % 2 {
                board.tiles.swap(j, k);
            }
        }
        let reached = space.rank_board(&board).is_ok_and(|r| table.get(r) != UNSEEN);
        let verdict = checker.check(&board) == crate::group::solvable::Verdict::Solvable;
        assert_eq!(verdict, reached, "{}", puzzle.format_board(&board));
        if reached { solvable += 1 } else { unsolvable += 1 }
    }
    assert!(solvable > 500 && unsolvable > 500, "{solvable} solvable, {unsolvable} unsolvable");
    let expected: &[u64] = &[
        1, 8, 52, 336, 2148, 13644, 86144, 540440, 3361904, 20325852, 108115585, 324074691,
        294842843, 61470629, 16923,
    ];
    assert_eq!(h, expected);
}

#[test]
fn spinpossible_three_by_three() {
    // Sutherland & Sutherland: every 3x3 board is solvable, God's number 9.
    let h = histogram("spin:3x3", None, 2);
    assert_eq!(h.iter().sum::<u64>(), 185_794_560);
    assert_eq!(h.len() - 1, 9);
}

#[test]
fn spinpossible_singles_and_doubles() {
    // Sutherland & Sutherland: with only 1x1 and 1x2 spins, God's number on 3x3 is 25.
    let h = histogram("spin:3x3:1x1,1x2", None, 2);
    assert_eq!(h.iter().sum::<u64>(), 185_794_560);
    assert_eq!(h.len() - 1, 25);
}
