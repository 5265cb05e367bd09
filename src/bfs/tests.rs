//! Known-answer tests: the exact results table of REFERENCE.md and the published
//! Spinpossible facts, plus equivalence of thread counts and directions.

use super::*;
use crate::puzzle::{Metric, Puzzle};
use crate::rank::StateSpace;
use crate::table::UNSEEN;

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
        let by_boards = histogram_with(spec, metric, Config { runs: false, ..Config::new(2) });
        assert_eq!(histogram_with(spec, metric, Config::new(2)), by_boards, "{spec}");
    }
}

/// XOR runs of named pieces' flips beside unseen ones (digits by piece) give the
/// board-by-board histogram, forward, backward and switching.
#[test]
fn xor_runs_of_named_flips_agree_with_board_by_board() {
    use crate::puzzle::{PuzzleSpec, defined::Defined, definition::Definition};
    use crate::rank::multiset::tests::{NAMED_FLIPS, named_flips_and_corners};
    for (text, boards) in
        [(NAMED_FLIPS.to_string(), 2520 * 32), (named_flips_and_corners(), 2520 * 32 * 6)]
    {
        let defined = Defined::new("t.tws", Definition::parse(&text).unwrap()).unwrap();
        let puzzle =
            Puzzle::new(&PuzzleSpec::Def(std::sync::Arc::new(defined)), Metric::Htm).unwrap();
        let space = StateSpace::build(&puzzle).unwrap();
        let crate::rank::Ranking::Multiset(m) = &space.ranking else {
            panic!("a multiset ranking")
        };
        assert_eq!(m.xor_block_bits(), Some(5));
        let search = |runs: bool, direction: Option<Direction>| {
            let table = DistanceTable::in_memory(space.n_states()).unwrap();
            let config = Config { runs, direction, ..Config::new(2) };
            search_puzzle(&puzzle, &space, &table, &config, &NoProgress).unwrap().histogram
        };
        let by_boards = search(false, None);
        assert_eq!(by_boards.iter().sum::<u64>(), boards);
        for direction in [None, Some(Direction::Forward), Some(Direction::Backward)] {
            assert_eq!(search(true, direction), by_boards, "{direction:?}");
        }
    }
}

/// The run-by-run steps (every move keeps the runs: digit runs of coordinates, with and
/// without classes) give the board-by-board histogram, forward and backward alike, with
/// every run's images worked out once ([`RunGraph`]) or each time.
#[test]
fn run_by_run_steps_agree_with_board_by_board() {
    use crate::rank::{Ranking, StateRanking, SymmetryMode};
    // Boards: 8! arrangements; 70 x 1,680 and 70 x 3^7 arrangements of identical pieces.
    for (file, mode, runs_len, boards) in [
        ("corners.tws", SymmetryMode::Off, 40_320, 40_320),
        ("rings.tws", SymmetryMode::Off, 1_680, 117_600),
        ("cube2_halves.tws", SymmetryMode::Off, 2_187, 153_090),
        ("cube2_halves.tws", SymmetryMode::On, 2_187, 153_090),
    ] {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/data/definitions/").to_string() + file;
        let puzzle = Puzzle::parse(&format!("def:{path}"), None).unwrap();
        let space = StateSpace::for_search(&puzzle, mode, false).unwrap();
        let runs = match &space.ranking {
            Ranking::Layout(l) => l.cell_runs(),
            Ranking::Multiset(m) => m.coordinate_tables().and_then(|t| t.cell_runs()),
            Ranking::CoordClasses(c) => c.cell_runs(),
            _ => None,
        }
        .expect("runs");
        assert!(runs.rest.is_empty() && runs.len == runs_len, "{file}: every move keeps runs");
        let search = |runs: bool, direction: Option<Direction>, run_graph: bool| {
            let table = DistanceTable::in_memory(space.n_states()).unwrap();
            let config = Config { runs, direction, run_graph, ..Config::new(2) };
            let out = search_puzzle(&puzzle, &space, &table, &config, &NoProgress).unwrap();
            (out.histogram.clone(), out.board_histogram().to_vec())
        };
        let by_boards = search(false, None, false);
        assert_eq!(by_boards.1.iter().sum::<u64>(), boards, "{file}");
        // Each run's images worked out once for the search, or each time a step walks in.
        for (direction, graph) in [Direction::Forward, Direction::Backward]
            .into_iter()
            .flat_map(|d| [(d, true), (d, false)])
        {
            let what = format!("{file} {mode:?} {direction:?}, run graph {graph}");
            assert_eq!(search(true, Some(direction), graph), by_boards, "{what}");
        }
        // Switching directions as a search does: both directions' graphs in one search.
        assert_eq!(search(true, None, true), by_boards, "{file} {mode:?}");
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

/// Boards with exactly one shortest solution at each distance, by enumerating every move
/// sequence (applied backwards from the solved board) up to `max_len` moves.
fn unique_by_brute_force(puzzle: &Puzzle, max_len: usize) -> Vec<u64> {
    use std::collections::HashMap;
    let inverse = puzzle.inverse_moves();
    // board -> (length of the shortest sequences, how many of them)
    let mut best: HashMap<crate::puzzle::Board, (usize, u64)> = HashMap::new();
    fn walk(
        p: &Puzzle,
        inverse: &[crate::puzzle::Move],
        b: &crate::puzzle::Board,
        len: usize,
        max_len: usize,
        best: &mut HashMap<crate::puzzle::Board, (usize, u64)>,
    ) {
        let e = best.entry(b.clone()).or_insert((len, 0));
        if len < e.0 {
            *e = (len, 0);
        }
        if len == e.0 {
            e.1 += 1;
        }
        if len < max_len {
            for m in inverse {
                walk(p, inverse, &p.apply(b, m), len + 1, max_len, best);
            }
        }
    }
    walk(puzzle, &inverse, &puzzle.solved(), 0, max_len, &mut best);
    let god = best.values().map(|v| v.0).max().unwrap();
    let mut out = vec![0u64; god + 1];
    for &(d, n) in best.values() {
        if n == 1 {
            out[d] += 1;
        }
    }
    out
}

fn unique_by_engine(
    spec: &str,
    metric: Option<Metric>,
    direction: Option<Direction>,
) -> (Vec<u64>, Vec<u64>) {
    let puzzle = Puzzle::parse(spec, metric).unwrap();
    let space = StateSpace::build(&puzzle).unwrap();
    let table = DistanceTable::in_memory_unique(space.n_states()).unwrap();
    let config = Config { unique: true, direction, ..Config::new(2) };
    let out = search_puzzle(&puzzle, &space, &table, &config, &NoProgress).unwrap();
    (out.histogram, out.unique_histogram.unwrap())
}

#[test]
fn unique_counts_match_brute_force_enumeration() {
    for (spec, metric) in [
        ("nrp:2x3:2", None),
        ("nrp:2x3:2", Some(Metric::Htm)),
        ("nrp:2x3:2", Some(Metric::Cw)),
        ("spin:2x2", None),
        ("nrp:2x2:2:orient", None),
        ("spin:1x4", None),
    ] {
        let (hist, unique) = unique_by_engine(spec, metric, None);
        let puzzle = Puzzle::parse(spec, metric).unwrap();
        let brute = unique_by_brute_force(&puzzle, hist.len() - 1);
        assert_eq!(unique, brute, "{spec} {metric:?}: histogram {hist:?}");
        for d in [Direction::Forward, Direction::Backward] {
            assert_eq!(unique_by_engine(spec, metric, Some(d)).1, brute, "{spec} {metric:?} {d:?}");
        }
    }
}

/// An independent recount of unique shortest solutions: one byte of distance and one of
/// solution count (saturating at 2) per board, filled level by level in a plain loop. Slow
/// (minutes on Spinpossible 3x3); run with `cargo test --release -- --ignored dense`.
fn unique_dense(spec: &str) -> Vec<u64> {
    let puzzle = Puzzle::parse(spec, None).unwrap();
    let space = StateSpace::build(&puzzle).unwrap();
    let crate::rank::Ranking::Layout(l) = &space.ranking else { panic!("layout expected") };
    let n = l.n_states() as usize;
    let mut dist = vec![u8::MAX; n];
    let mut count = vec![0u8; n];
    let start = space.rank_board(&puzzle.solved()).unwrap() as usize;
    dist[start] = 0;
    count[start] = 1;
    let mut unique = vec![1u64];
    for d in 0u8.. {
        let mut found = false;
        for r in 0..n {
            if dist[r] != d {
                continue;
            }
            let s = l.unrank(r as u64);
            for m in 0..l.n_moves() {
                let x = l.rank(&l.scramble_step(&s, m)) as usize;
                if dist[x] == u8::MAX {
                    dist[x] = d + 1;
                    found = true;
                }
                if dist[x] == d + 1 {
                    count[x] = (count[x] + count[r]).min(2);
                }
            }
        }
        if !found {
            break;
        }
        unique.push((0..n).filter(|&r| dist[r] == d + 1 && count[r] == 1).count() as u64);
    }
    unique
}

#[test]
fn unique_dense_recount_agrees_on_small_boards() {
    for spec in ["spin:2x3", "nrp:3x3:2"] {
        assert_eq!(unique_dense(spec), unique_by_engine(spec, None, None).1, "{spec}");
    }
}

#[test]
#[ignore]
fn unique_dense_spin_3x3() {
    let u = unique_dense("spin:3x3");
    eprintln!("spin 3x3 unique by distance: {u:?}, total {}", u.iter().sum::<u64>());
    assert_eq!(u, unique_by_engine("spin:3x3", None, None).1);
}

/// A search keeps every rank of a small last distance (the antipodes of a table of classes
/// are listed from them): by boards with and without runs, and by classes.
#[test]
fn a_small_last_distance_is_kept_whole() {
    use crate::rank::SymmetryMode;
    let puzzle = Puzzle::parse("nrp:3x3:2", None).unwrap();
    for (symmetry, runs) in
        [(SymmetryMode::Off, true), (SymmetryMode::Off, false), (SymmetryMode::On, true)]
    {
        let space = StateSpace::for_search(&puzzle, symmetry, false).unwrap();
        let table = DistanceTable::in_memory(space.n_states()).unwrap();
        let config = Config { runs, ..Config::new(2) };
        let out = search_puzzle(&puzzle, &space, &table, &config, &NoProgress).unwrap();
        let last = out.last_level.clone().expect("the last distance is small");
        let at_last = *out.histogram.last().unwrap();
        assert_eq!(last.len() as u64, at_last, "{symmetry:?} runs {runs}");
        assert!(last.windows(2).all(|w| w[0] < w[1]), "sorted, each once");
        assert_eq!(last[..out.antipodes.len()], out.antipodes[..], "the sample is the smallest");
        let g = out.gods_number();
        assert!(last.iter().all(|&r| table.get(r) == mark_of(g)), "marked as the last distance");
        if symmetry == SymmetryMode::Off {
            assert_eq!(at_last, 20);
        }
    }
}

#[test]
fn identical_pieces_in_a_smaller_group_are_searched_in_the_invariants_space() {
    use crate::group::analysis::Analysis;
    use crate::rank::board_count::SameBoard;
    use crate::rank::test_puzzles::{self, TWINS};
    use crate::rank::{Enumerated, FibreRanking, Multiset, Ranking};
    let check = |text: &str, boards: u64| {
        let puzzle = test_puzzles::defined(text);
        let analysis = Analysis::of(&puzzle).unwrap();
        assert!(!analysis.invariants_are_exact());
        // Few boards: listed, as before; the count agrees with the list.
        let listed = StateSpace::build(&puzzle).unwrap();
        assert!(matches!(listed.ranking, Ranking::Enumerated(_)));
        assert_eq!(Enumerated::new(&puzzle).unwrap().n_states(), boards);
        assert_eq!(crate::rank::board_count::exact_boards(&puzzle, &analysis), Some(boards));
        // The multiset ranks of the invariants' space, searched whole: the same histogram,
        // the other ranks never reached.
        // Both ways: signs tied as the invariants tie them, and every sign free.
        let tied = Multiset::new(&puzzle, analysis.invariants.clone()).unwrap();
        let free = Multiset::with_free_signs(&puzzle, analysis.invariants.clone()).unwrap();
        assert!(tied.n_states() > boards && free.n_states() > tied.n_states());
        assert!(free.coordinate_tables().is_some());
        let wide = |m: Multiset| StateSpace {
            ranking: Ranking::Multiset(m.searching_in(boards)),
            analysis: analysis.clone(),
            definition_digest: puzzle.definition_digest(),
        };
        let config = Config::new(2);
        let fibres = FibreRanking::new(&puzzle, &analysis.invariants, &analysis.group_order, 1);
        let fibres = StateSpace {
            ranking: Ranking::Fibres(fibres.unwrap()),
            analysis: analysis.clone(),
            definition_digest: puzzle.definition_digest(),
        };
        let mut histograms = Vec::new();
        for space in [&listed, &wide(tied), &wide(free)] {
            let table = DistanceTable::in_memory(space.n_states()).unwrap();
            let out = search_puzzle(&puzzle, space, &table, &config, &NoProgress).unwrap();
            assert_eq!(out.states(), boards);
            let marks = table.count_marks();
            assert_eq!(marks[UNSEEN as usize], space.n_states() - boards);
            histograms.push(out.histogram);
            // The group holds exactly the boards the search reached, as `check` decides.
            // So do the ranks by projection and fibres, one per board.
            let same = SameBoard::of(&puzzle, &space.analysis).unwrap();
            for r in 0..space.n_states() {
                let board = space.board(r);
                let reached = table.get(r) != UNSEEN;
                assert_eq!(same.reaches(&space.analysis.chain, &board), reached, "{board:?}");
                assert_eq!(fibres.rank_board(&board).is_ok(), reached, "{board:?}");
            }
        }
        // Searched in those ranks: the same histogram, every rank reached.
        let table = DistanceTable::in_memory(fibres.n_states()).unwrap();
        let out = search_puzzle(&puzzle, &fibres, &table, &config, &NoProgress).unwrap();
        assert_eq!((out.states(), fibres.n_states()), (boards, boards));
        histograms.push(out.histogram);
        assert_eq!(histograms[0], histograms[1]);
        assert_eq!(histograms[0], histograms[2]);
        assert_eq!(histograms[0], histograms[3]);
        histograms.pop().unwrap()
    };
    assert_eq!(check(TWINS, 24), [1, 3, 5, 6, 5, 3, 1]);
    // A move that swaps B's alike pieces in pairs, (5 6)(7 8), leaving A and C: the group is
    // the diagonal S4 times B's four double swaps (96 elements), two of which leave the
    // solved board as it is (the identity and that move), so 48 boards.
    let swaps = format!("{TWINS}Move W\nA\n1 2 3 4\nB\n2 1 4 3\nC\n1 2 3 4\nEnd\n");
    check(&swaps, 48);
}

/// Past a few thousand boards, identical pieces in a group smaller than its invariants are
/// searched in the multiset ranks rather than listed (which took 31 s for the first below):
/// smaller_group.tws with its set T labelled with repeats, or P's orientations hidden.
/// Histograms of `twsearch -t 2 -g` on the same files (2026-12-03).
#[test]
fn identical_pieces_in_a_smaller_group_past_a_few_thousand_boards_are_ranked() {
    use crate::rank::Ranking;
    use crate::rank::test_puzzles::defined;
    let text = include_str!("../../data/definitions/smaller_group.tws");
    let (t, p) = ("T\n1 2 3 4 5 6\n", "P\n1 2 3 4\n");
    let cases: [(&str, &str, u64, bool, &[u64]); 3] = [
        (
            t,
            "T\n1 1 2 2 3 3\n",
            4_199_040,
            true,
            &[
                1, 19, 146, 687, 2502, 7763, 21510, 52890, 109042, 186184, 256359, 278956, 236687,
                151850, 70653, 21491, 2940,
            ],
        ),
        (
            t,
            "T\n1 1 1 2 2 2\n",
            933_120,
            true,
            &[
                1, 19, 145, 668, 2363, 7176, 19535, 47101, 93771, 150584, 191758, 184051, 133022,
                71037, 25230, 5924, 735,
            ],
        ),
        (
            p,
            "P\n1 1 2 3\n? ? 0 0\n",
            1_866_240,
            false,
            &[
                1, 19, 154, 821, 3302, 10092, 24296, 46228, 66347, 73207, 55426, 24363, 5946, 790,
                48,
            ],
        ),
    ];
    for (from, to, ranks, by_tables, expected) in cases {
        let puzzle = defined(&text.replace(from, to));
        let space = StateSpace::build(&puzzle).unwrap();
        let Ranking::Multiset(m) = &space.ranking else { panic!("{to}: not multiset ranks") };
        assert_eq!(space.n_states(), ranks, "{to}");
        assert_eq!(space.n_reachable(), expected.iter().sum::<u64>(), "{to}");
        // The sums of a free corner orbit are one digit with its turns: per-move tables.
        assert_eq!(m.coordinate_tables().is_some(), by_tables, "{to}");
        let table = DistanceTable::in_memory(space.n_states()).unwrap();
        let out = search_puzzle(&puzzle, &space, &table, &Config::new(2), &NoProgress).unwrap();
        assert_eq!(out.histogram, expected, "{to}");
    }
}
