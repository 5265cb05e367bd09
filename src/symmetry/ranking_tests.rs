//! The ranking of classes against the unreduced one: every entry a valid class, working-form
//! conjugation equal to board conjugation, and searches with the same histogram in boards,
//! the same class counts as a brute-force orbit count, and the same distance for every board.

use super::*;
use crate::bfs::{self, Config, Direction, NoProgress};
use crate::puzzle::Metric;
use crate::rank::{StateRanking, StateSpace, SymmetryMode};
use crate::table::DistanceTable;

fn reduced(spec: &str, metric: Metric) -> (Puzzle, StateSpace, StateSpace) {
    reduced_puzzle(spec, Puzzle::parse(spec, Some(metric)).unwrap())
}

fn reduced_puzzle(spec: &str, p: Puzzle) -> (Puzzle, StateSpace, StateSpace) {
    let metric = p.metric;
    let plain = StateSpace::for_search(&p, SymmetryMode::Off, false).unwrap();
    let classes = StateSpace::for_search(&p, SymmetryMode::On, false).unwrap();
    assert!(classes.classes().is_some(), "{spec} {metric:?}: expected classes");
    (p, plain, classes)
}

/// Small boards ranked with key cells up to `FEW_PLACEMENTS` placements only, which leaves
/// them cells for runs: the moves that fix the key cells then walk runs of rests. (Not `cw`:
/// with rotations alone, the key cells 1 2 9 10 meet every block.)
const FEW_KEYS: [(&str, Metric); 2] = [("nrp:2x5:2", Metric::Qtm), ("nrp:2x5:2", Metric::Htm)];
const FEW_PLACEMENTS: u64 = 1000;

fn reduced_few_keys(spec: &str, metric: Metric) -> (Puzzle, StateSpace, StateSpace) {
    let p = Puzzle::parse(spec, Some(metric)).unwrap();
    let plain = StateSpace::for_search(&p, SymmetryMode::Off, false).unwrap();
    let analysis = crate::group::analysis::Analysis::of(&p).unwrap();
    let layout = crate::rank::Layout::without_runs(&p, analysis.invariants.clone()).unwrap();
    let c = ClassRanking::with_min_placements(&p, layout, FEW_PLACEMENTS).unwrap();
    assert!(c.cell_runs().is_some(), "{spec} {metric:?}: expected runs of rests");
    (
        p,
        plain,
        StateSpace { analysis, ranking: crate::rank::Ranking::Classes(c), definition_digest: None },
    )
}

/// A puzzle built by hand with orientations mod 3, kept by mirrors that reverse them.
const MOD_3_ROW: &str = "six cells, mod 3";

fn mod_3_row() -> (Puzzle, StateSpace, StateSpace) {
    let out = reduced_puzzle(MOD_3_ROW, crate::rank::test_puzzles::symmetric_row());
    assert_eq!(out.2.classes().unwrap().order(), 4, "{MOD_3_ROW}: the half turn and mirrors");
    out
}

/// Every small case: the default key cells, then fewer key cells with runs of rests, then
/// orientations mod 3.
fn small_cases() -> impl Iterator<Item = (&'static str, Metric, Puzzle, StateSpace, StateSpace)> {
    let default = CASES.into_iter().map(|(spec, metric)| (spec, metric, reduced(spec, metric)));
    let few =
        FEW_KEYS.into_iter().map(|(spec, metric)| (spec, metric, reduced_few_keys(spec, metric)));
    let mod_3 = std::iter::once((MOD_3_ROW, Metric::Htm, mod_3_row()));
    default
        .chain(few)
        .chain(mod_3)
        .map(|(spec, metric, (p, plain, classes))| (spec, metric, p, plain, classes))
}

fn search(
    p: &Puzzle,
    space: &StateSpace,
    direction: Option<Direction>,
) -> (bfs::Outcome, DistanceTable) {
    let table = DistanceTable::in_memory(space.n_states()).unwrap();
    let mut config = Config::new(2);
    config.direction = direction;
    let out = bfs::search_puzzle(p, space, &table, &config, &NoProgress).unwrap();
    assert!(out.complete);
    (out, table)
}

/// A small deterministic generator (xorshift).
fn next(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

/// Small enough for a full search, a brute-force class count and a distance per board.
const CASES: [(&str, Metric); 8] = [
    ("nrp:3x3:2", Metric::Qtm),
    ("nrp:3x3:2", Metric::Htm),
    ("nrp:3x3:2", Metric::Cw),
    ("nrp:2x4:2", Metric::Qtm),
    ("nrp:2x4:2", Metric::Cw),
    ("nrp:2x4:2:orient", Metric::Qtm),
    ("spin:2x3", Metric::Htm),
    ("spin:2x4:1x2,2x2", Metric::Htm),
];

/// Larger boards, for the ranking alone.
const LARGE: [(&str, Metric); 5] = [
    ("nrp:3x4:2", Metric::Qtm),
    ("nrp:3x6:3", Metric::Qtm),
    ("nrp:2x7:2", Metric::Qtm),
    ("nrp:3x3:2:orient", Metric::Qtm),
    ("spin:2x5", Metric::Htm),
];

#[test]
fn class_entries_round_trip_and_conjugation_matches_boards() {
    let cases = CASES.into_iter().chain(LARGE).map(|(spec, metric)| (spec, reduced(spec, metric)));
    for (spec, (p, plain, classes)) in cases.chain([(MOD_3_ROW, mod_3_row())]) {
        let c = classes.classes().unwrap();
        let layout = c.layout();
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..500 {
            let e = next(&mut x) % c.n_states();
            let board = c.entry_board(e);
            assert_eq!(c.entry(&board), e, "{spec}: entry {e} does not rank back");
            let b = plain.board(next(&mut x) % plain.n_states());
            let cells = layout.cells_of(&b).unwrap();
            // The entries of a class: one, or the images of one rest under the stabilizer of
            // a representative placement; every board of the class meets all of them.
            let entries_of = |b: &Board| {
                let mut set: Vec<u64> = c
                    .symmetries()
                    .images(b, false)
                    .iter()
                    .map(|i| c.entry_of_board(i).unwrap())
                    .collect();
                set.sort_unstable();
                set.dedup();
                set
            };
            let class = entries_of(&b);
            assert!(class.contains(&c.entry(&cells)), "{spec}");
            for (i, s) in c.symmetries().elements.iter().enumerate() {
                let image = s.conjugate_board(&b, p.orient_mod);
                assert_eq!(
                    c.conjugate(i, &cells),
                    layout.cells_of(&image).unwrap(),
                    "{spec}: {} in working form",
                    s.name
                );
                assert_eq!(entries_of(&image), class, "{spec}");
            }
        }
    }
}

#[test]
fn class_searches_count_the_boards_of_the_full_search() {
    for (spec, metric, p, plain, classes) in small_cases() {
        let (full, _) = search(&p, &plain, None);
        for direction in [None, Some(Direction::Forward), Some(Direction::Backward)] {
            let (out, _) = search(&p, &classes, direction);
            assert_eq!(
                out.board_histogram(),
                &full.histogram[..],
                "{spec} {metric:?} {direction:?}"
            );
            assert_eq!(out.states(), classes.n_states(), "{spec}: every entry marked");
        }
    }
}

#[test]
fn class_counts_equal_a_brute_force_orbit_count() {
    for (spec, metric, p, plain, classes) in small_cases() {
        let brute = count_classes(&p, &plain, false).classes();
        let c = classes.classes().unwrap();
        assert_eq!(c.exact_classes(), brute, "{spec} {metric:?}");
        assert!(c.n_states() >= brute);
    }
}

#[test]
fn class_tables_give_every_board_its_distance() {
    for (spec, _, p, plain, classes) in small_cases() {
        let (_, full_table) = search(&p, &plain, None);
        let (_, table) = search(&p, &classes, None);
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..3000 {
            let r = next(&mut x) % plain.n_states();
            let board = plain.board(r);
            let e = classes.rank_board(&board).unwrap();
            assert_eq!(table.get(e), full_table.get(r), "{spec}: board {board:?}");
        }
    }
}

#[test]
fn class_weights_sum_to_the_boards() {
    for (spec, metric, _, plain, classes) in small_cases() {
        let c = classes.classes().unwrap();
        let total: u64 = (0..c.n_states()).map(|e| c.weight(e)).sum();
        assert_eq!(total, plain.n_states(), "{spec} {metric:?}");
    }
}

#[test]
fn runs_of_rests_agree_with_direct_ranks() {
    for (spec, metric) in
        [("nrp:3x4:2", Metric::Qtm), ("nrp:3x6:3", Metric::Qtm), ("nrp:2x7:2", Metric::Qtm)]
    {
        let (_, _, classes) = reduced(spec, metric);
        crate::rank::runs::check_against_direct_ranks(classes.classes().unwrap(), 4, spec);
    }
    for (spec, metric) in FEW_KEYS {
        let (_, _, classes) = reduced_few_keys(spec, metric);
        let kept = if metric == Metric::Htm { 6 } else { 4 };
        crate::rank::runs::check_against_direct_ranks(classes.classes().unwrap(), kept, spec);
    }
}

/// Spinpossible by classes moves XOR runs: the image of every board of a run is where the
/// run's first board and the offset map say (checked board by board on random runs).
#[test]
fn xor_runs_of_classes_agree_with_direct_ranks() {
    for (spec, metric) in
        [("spin:2x3", Metric::Htm), ("spin:3x3", Metric::Htm), ("spin:2x5", Metric::Htm)]
    {
        let (_, _, classes) = reduced(spec, metric);
        let c = classes.classes().unwrap();
        let bits = c.xor_block_bits().unwrap_or_else(|| panic!("{spec}: expected XOR runs"));
        let low = (1u64 << bits) - 1;
        let mut x = 0x1234_5678_9ABC_DEF1u64;
        let mut mapped = 0;
        for _ in 0..200 {
            let run = next(&mut x) % (c.n_states() >> bits);
            let base = c.unrank(run << bits);
            for m in 0..c.n_moves() {
                for (image, step) in [(c.solve_step(&base, m), 0), (c.scramble_step(&base, m), 1)] {
                    let (img, map) = StateRanking::rank_in_runs(c, &image);
                    let map = &StateRanking::offset_maps(c)[map];
                    mapped += !map.is_identity() as u32;
                    for _ in 0..8 {
                        let o = next(&mut x) & low;
                        let board = c.unrank(run << bits | o);
                        let direct = c.rank(&if step == 0 {
                            c.solve_step(&board, m)
                        } else {
                            c.scramble_step(&board, m)
                        });
                        let moved = map.apply(o) ^ (img & low);
                        assert_eq!(direct, (img & !low) | moved, "{spec}: run {run} move {m}");
                    }
                }
            }
        }
        assert!(mapped > 0, "{spec}: no run read through a symmetry");
    }
}
