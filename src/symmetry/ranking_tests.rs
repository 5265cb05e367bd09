//! The ranking of classes against the unreduced one: every entry a valid class, working-form
//! conjugation equal to board conjugation, and searches with the same histogram in boards,
//! the same class counts as a brute-force orbit count, and the same distance for every board.

use super::ranking::MIN_PLACEMENTS;
use super::*;
use crate::bfs::{self, Config, Direction, NoProgress};
use crate::puzzle::Metric;
use crate::rank::layout::UpperMaps;
use crate::rank::{Cells, StateRanking, StateSpace, SymmetryMode};
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
    let out = reduced_by_key_cells(spec, metric, FEW_PLACEMENTS);
    let runs = out.2.classes().unwrap().cell_runs();
    assert!(runs.is_some(), "{spec} {metric:?}: expected runs of rests");
    out
}

/// Classes under the symmetries alone, first part the tiles on key cells, where
/// [`ClassRanking::new`] would take inversion (as it cannot on larger boards).
fn reduced_by_key_cells(
    spec: &str,
    metric: Metric,
    min_placements: u64,
) -> (Puzzle, StateSpace, StateSpace) {
    key_cells_of(Puzzle::parse(spec, Some(metric)).unwrap(), min_placements)
}

/// [`reduced_by_key_cells`] for a puzzle at hand.
fn key_cells_of(p: Puzzle, min_placements: u64) -> (Puzzle, StateSpace, StateSpace) {
    let out = classes_made_by(p, |p, layout| {
        ClassRanking::with_min_placements(p, layout, min_placements).unwrap()
    });
    assert!(!out.2.classes().unwrap().inverts());
    out
}

/// The puzzle, its space of boards and the space of the classes `make` builds on its layout
/// (without runs).
fn classes_made_by(
    p: Puzzle,
    make: impl FnOnce(&Puzzle, crate::rank::Layout) -> ClassRanking,
) -> (Puzzle, StateSpace, StateSpace) {
    let plain = StateSpace::for_search(&p, SymmetryMode::Off, false).unwrap();
    let analysis = crate::group::analysis::Analysis::of(&p).unwrap();
    let layout = crate::rank::Layout::without_runs(&p, analysis.invariants.clone()).unwrap();
    let ranking = crate::rank::Ranking::Classes(make(&p, layout));
    (p, plain, StateSpace { analysis, ranking, definition_digest: None })
}

/// Boards that [`ClassRanking::new`] ranks under inversion, ranked by key cells instead.
const KEY_CELLS_INSTEAD: [(&str, Metric); 2] =
    [("spin:2x3", Metric::Htm), ("nrp:3x3:2", Metric::Qtm)];

/// A puzzle built by hand with orientations mod 3, kept by mirrors that reverse them.
const MOD_3_ROW: &str = "six cells, mod 3";

fn mod_3_row() -> (Puzzle, StateSpace, StateSpace) {
    let out = reduced_puzzle(MOD_3_ROW, crate::rank::test_puzzles::symmetric_row());
    let c = out.2.classes().unwrap();
    assert_eq!(c.order(), 8, "{MOD_3_ROW}: the half turn and mirrors, and inversion");
    assert!(c.inverts(), "{MOD_3_ROW}: one orbit of six cells, every turn free");
    out
}

/// The same row ranked by key cells: conjugations reverse orientations mod 3 there.
fn mod_3_row_by_key_cells() -> (Puzzle, StateSpace, StateSpace) {
    let out = key_cells_of(crate::rank::test_puzzles::symmetric_row(), 10);
    assert_eq!(out.2.classes().unwrap().order(), 4, "{MOD_3_ROW}: the half turn and mirrors");
    out
}

/// Classes with the whole arrangement first ([`ClassRanking::by_arrangements`]) on a puzzle
/// whose invariants are exact, where [`ClassRanking::new`] would take key cells or
/// inversion (twsearch's skewb and pyraminx take it for want of key cells).
fn by_whole_arrangement(p: Puzzle) -> (Puzzle, StateSpace, StateSpace) {
    let out = classes_made_by(p, |p, layout| {
        ClassRanking::by_arrangements(p, layout, Symmetries::of(p), true, 1 << 25, 1 << 25).unwrap()
    });
    let c = out.2.classes().unwrap();
    assert!(c.first_part_is_arrangement());
    let undirected = out.0.undirected;
    assert_eq!(c.inverts(), undirected, "inversion where the moves are closed under inverses");
    out
}

/// Classes with the whole arrangement first and no inversion, as boards past
/// `MAX_ARRANGEMENTS` arrangements with flips take them (the 3x3x3's edges): the flips move
/// in XOR runs, read through the symmetries.
fn by_whole_arrangement_with_runs(p: Puzzle) -> (Puzzle, StateSpace, StateSpace) {
    let out = classes_made_by(p, |p, layout| {
        ClassRanking::by_arrangements(p, layout, Symmetries::of(p), false, 1 << 25, 0).unwrap()
    });
    let c = out.2.classes().unwrap();
    assert!(c.first_part_is_arrangement() && !c.inverts());
    assert!(c.xor_block_bits().is_some(), "{}: expected XOR runs of flips", c.describe());
    out
}

/// The pyraminx's edges by whole arrangements and runs of flips.
const PYRAMINX_EDGES: &str = "the pyraminx's edges";

fn pyraminx_edges() -> (Puzzle, StateSpace, StateSpace) {
    use crate::rank::test_puzzles::{PYRAMINX_EDGES as TEXT, defined};
    let out = by_whole_arrangement_with_runs(defined(TEXT));
    assert_eq!(out.1.n_states(), 11_520);
    assert!(out.2.classes().unwrap().order() >= 12, "{PYRAMINX_EDGES}: a tetrahedron's rotations");
    out
}

/// The 2x2x2 (one corner fixed, symmetries found from its definition), the mod-3 row and
/// the pyraminx's edges by whole arrangements.
fn whole_arrangement_cases() -> [(&'static str, Metric, (Puzzle, StateSpace, StateSpace)); 3] {
    use crate::rank::test_puzzles::symmetric_row;
    let cube2 = "def:data/definitions/cube2.tws";
    let cube2_puzzle = Puzzle::parse(cube2, Some(Metric::Htm)).unwrap();
    [
        (cube2, Metric::Htm, by_whole_arrangement(cube2_puzzle)),
        (MOD_3_ROW, Metric::Htm, by_whole_arrangement(symmetric_row())),
        (PYRAMINX_EDGES, Metric::Htm, pyraminx_edges()),
    ]
}

/// The hexagon (`data/definitions/hexagon.tws`): its 12 symmetries keep no cell but carry
/// its corners onto corners and its edges onto edges, so whole orbits are the first part
/// ([`OrbitSplit`](crate::rank::OrbitSplit)), under inversion: by default the corners and
/// the edges (the rest the centres' flips their signs leave), with few placements the
/// corners alone (the rest the edges and the flips).
fn whole_orbit_cases() -> [(&'static str, Metric, (Puzzle, StateSpace, StateSpace)); 2] {
    let hexagon = "def:data/definitions/hexagon.tws";
    let parse = || Puzzle::parse(hexagon, Some(Metric::Htm)).unwrap();
    let default = reduced_puzzle(hexagon, parse());
    let corners = classes_made_by(parse(), |p, layout| {
        ClassRanking::with_min_placements(p, layout, 2).unwrap()
    });
    for (out, cells, placements) in [(&default, 12, 259_200), (&corners, 6, 720)] {
        let c = out.2.classes().unwrap();
        assert!(c.describe().contains("whole orbits first"), "{}", c.describe());
        let got = (c.order(), c.key_cells().len(), c.placements());
        assert_eq!(got, (24, cells, placements), "{}", c.describe());
    }
    [(hexagon, Metric::Htm, default), (hexagon, Metric::Htm, corners)]
}

/// Classes under the subgroup that keeps a set of key cells ([`ClassRanking::by_stabilizer`],
/// taken by boards whose symmetries leave no key cells, as the dino cube's): the 2x2x2's
/// corners without twists (48 symmetries, transitive on the corners: a tetrahedron's 24
/// keep its four), a square board, the 2x2x2 with one corner fixed and the mod-3 row.
fn stabilizer_cases() -> [(&'static str, Metric, (Puzzle, StateSpace, StateSpace)); 4] {
    let by_stabilizer = |p: Puzzle| {
        let out = classes_made_by(p, |p, layout| ClassRanking::by_stabilizer(p, layout).unwrap());
        assert!(out.2.classes().unwrap().order() >= 2);
        out
    };
    let corners = "def:data/definitions/corners.tws";
    let corner_classes = by_stabilizer(Puzzle::parse(corners, None).unwrap());
    let c = corner_classes.2.classes().unwrap();
    assert_eq!((c.order(), c.key_cells().len()), (24, 4), "{corners}: {}", c.describe());
    let cube2 = "def:data/definitions/cube2.tws";
    [
        (corners, Metric::Htm, corner_classes),
        ("nrp:3x3:2", Metric::Qtm, by_stabilizer(Puzzle::parse("nrp:3x3:2", None).unwrap())),
        (cube2, Metric::Htm, by_stabilizer(Puzzle::parse(cube2, Some(Metric::Htm)).unwrap())),
        (MOD_3_ROW, Metric::Htm, by_stabilizer(crate::rank::test_puzzles::symmetric_row())),
    ]
}

/// Every small case: the default ranking (under inversion where it can), then key cells
/// where it takes inversion, then fewer key cells with runs of rests, then orientations
/// mod 3, then whole arrangements first, then whole orbits first, then subgroups keeping key
/// cells.
fn small_cases() -> impl Iterator<Item = (&'static str, Metric, Puzzle, StateSpace, StateSpace)> {
    let default = CASES.into_iter().map(|(spec, metric)| (spec, metric, reduced(spec, metric)));
    let key_cells = KEY_CELLS_INSTEAD
        .into_iter()
        .map(|(spec, metric)| (spec, metric, reduced_by_key_cells(spec, metric, MIN_PLACEMENTS)));
    let few =
        FEW_KEYS.into_iter().map(|(spec, metric)| (spec, metric, reduced_few_keys(spec, metric)));
    let mod_3 =
        [(MOD_3_ROW, Metric::Htm, mod_3_row()), (MOD_3_ROW, Metric::Htm, mod_3_row_by_key_cells())];
    default
        .chain(key_cells)
        .chain(few)
        .chain(mod_3)
        .chain(whole_arrangement_cases())
        .chain(whole_orbit_cases())
        .chain(stabilizer_cases())
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
const CASES: [(&str, Metric); 13] = [
    ("nrp:3x3:2", Metric::Qtm),
    ("nrp:3x3:2", Metric::Htm),
    ("nrp:3x3:2", Metric::Cw),
    ("nrp:2x4:2", Metric::Qtm),
    ("nrp:2x4:2", Metric::Cw),
    ("nrp:2x4:2:orient", Metric::Qtm),
    ("spin:2x3", Metric::Htm),
    ("spin:2x4:1x2,2x2", Metric::Htm),
    // Symmetries found from a definition, with the corners' sticker offsets.
    ("def:data/definitions/cube2.tws", Metric::Htm),
    ("def:data/definitions/cube2.tws", Metric::Cw),
    // Groups smaller than their invariants: the whole arrangement (the reachable values of
    // the layout's upper digits) is the first part, the orientation digits the rest.
    ("nrp:2x3:2", Metric::Qtm),
    ("nrp:2x3:2:orient", Metric::Htm),
    ("nrp:3x4:3", Metric::Cw),
];

/// Larger boards, for the ranking alone.
const LARGE: [(&str, Metric); 5] = [
    ("nrp:3x4:2", Metric::Qtm),
    ("nrp:3x6:3", Metric::Qtm),
    ("nrp:2x7:2", Metric::Qtm),
    ("nrp:3x3:2:orient", Metric::Qtm),
    ("spin:2x5", Metric::Htm),
];

/// Groups smaller than their invariants: their layout ranks only the upper values the moves
/// reach, one rank per board, and their classes take the whole arrangement first, one entry
/// per class (twins compacted; 1024 entries before for the 589 classes of 2x3 with
/// orientation).
#[test]
fn groups_smaller_than_their_invariants_rank_densely_by_whole_arrangements() {
    for (spec, metric, boards, classes) in [
        ("nrp:2x3:2", Metric::Qtm, 120, 32),
        ("nrp:2x3:2:orient", Metric::Htm, 3840, 589),
        ("nrp:3x4:3", Metric::Cw, 720, 370),
    ] {
        let (_, plain, reduced) = reduced(spec, metric);
        let c = reduced.classes().unwrap();
        assert!(c.first_part_is_arrangement(), "{spec}");
        assert!(c.layout().ranks_reachable_couplings(), "{spec}");
        assert_eq!(c.layout().n_states(), boards, "{spec}");
        assert_eq!(c.n_states(), classes, "{spec}");
        let brute = count_classes_under(c.symmetries(), &plain, c.inverts()).classes();
        assert_eq!(brute, classes, "{spec}: one entry per class");
    }
}

/// Without inversion (`--metric cw`, `bfs --goals`) a whole arrangement first below
/// `MAX_ARRANGEMENTS` compacts its twins' rests rather than take XOR runs, which would keep
/// every rest: the pyraminx's edges under 24 symmetries, 504 entries for 504 classes (704
/// with runs).
#[test]
fn small_whole_arrangements_without_inversion_compact_twins() {
    use crate::rank::test_puzzles::{PYRAMINX_EDGES as TEXT, defined};
    let (_, plain, reduced) = classes_made_by(defined(TEXT), |p, layout| {
        ClassRanking::new_with(p, layout, false).unwrap()
    });
    let c = reduced.classes().unwrap();
    assert!(c.first_part_is_arrangement() && !c.inverts());
    assert_eq!(c.xor_block_bits(), None);
    assert_eq!(count_classes_under(c.symmetries(), &plain, false).classes(), 504);
    assert_eq!(c.n_states(), 504);
}

/// Where ranks count the reachable upper values, the moves and the symmetry elements map
/// those values by tables orbit by orbit ([`UpperMaps`]): every reachable value's image by
/// table is the value of the moved or transformed board, and is reachable. Twsearch's
/// mastermorphix (5,308,416 values) is searched and classified this way.
#[test]
fn upper_values_map_by_tables_as_boards_do() {
    for (spec, metric) in [
        ("nrp:2x3:2", Metric::Qtm),
        ("nrp:2x3:2:orient", Metric::Htm),
        ("nrp:3x4:3", Metric::Cw),
        ("def:data/definitions/smaller_group.tws", Metric::Htm),
    ] {
        let (_, _, reduced) = reduced(spec, metric);
        let c = reduced.classes().unwrap();
        let layout = c.layout();
        assert!(layout.ranks_reachable_couplings(), "{spec}");
        let moves = layout.moves();
        let n_elements = c.order() as usize;
        let by_moves = layout.upper_moves().expect("the moves act orbit by orbit");
        let by_elements = UpperMaps::new(layout, n_elements, |s, e| c.transform(e, s))
            .expect("the symmetries act orbit by orbit");
        let values = layout.n_states() / layout.orientation_count();
        for i in 0..values {
            let u = layout.upper_at_index(i);
            let board = layout.board_of_upper(u, 0);
            assert_eq!(layout.board_upper_index(&board), i, "{spec}");
            let mut m = 0;
            by_moves.images(u, |v| {
                let index = layout.index_of_upper(v);
                assert_eq!(index, layout.board_upper_index(&moves.solve_step(&board, m)), "{spec}");
                assert!(index < values, "{spec}: a move leaves the reachable values");
                m += 1;
            });
            assert_eq!(m, moves.len());
            let mut e = 0;
            by_elements.images(u, |v| {
                let index = layout.index_of_upper(v);
                assert_eq!(index, layout.board_upper_index(&c.transform(e, &board)), "{spec}");
                assert!(index < values, "{spec}: a symmetry leaves the reachable values");
                e += 1;
            });
            assert_eq!(e, n_elements);
        }
    }
}

#[test]
fn class_entries_round_trip_and_conjugation_matches_boards() {
    let cases = CASES.into_iter().chain(LARGE).map(|(spec, metric)| (spec, reduced(spec, metric)));
    let key_cells = KEY_CELLS_INSTEAD
        .into_iter()
        .chain([("spin:2x5", Metric::Htm)])
        .map(|(spec, metric)| (spec, reduced_by_key_cells(spec, metric, MIN_PLACEMENTS)));
    let mod_3 = [(MOD_3_ROW, mod_3_row()), (MOD_3_ROW, mod_3_row_by_key_cells())];
    let whole = whole_arrangement_cases()
        .into_iter()
        .chain(whole_orbit_cases())
        .map(|(spec, _, out)| (spec, out));
    for (spec, (_, plain, classes)) in cases.chain(key_cells).chain(mod_3).chain(whole) {
        let c = classes.classes().unwrap();
        // Every conjugation of these boards (turns mod 1, 2 and 3, mirrors reversing them)
        // runs as shuffles, so the checks below check those.
        let syms = c.symmetries().order();
        assert_eq!(c.shuffled_conjugations(), syms, "{spec}: {}", c.describe());
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
                let mut set: Vec<u64> =
                    c.images(b).iter().map(|i| c.entry_of_board(i).unwrap()).collect();
                set.sort_unstable();
                set.dedup();
                set
            };
            let class = entries_of(&b);
            assert!(class.contains(&c.entry(&cells)), "{spec}");
            for (e, image) in c.images(&b).iter().enumerate() {
                assert_eq!(
                    c.transform(e, &cells),
                    layout.cells_of(image).unwrap(),
                    "{spec}: element {e} in working form"
                );
                assert_eq!(entries_of(image), class, "{spec}");
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
    let mut compacted = 0;
    for (spec, metric, _, plain, classes) in small_cases() {
        let c = classes.classes().unwrap();
        compacted += c.twins_compacted() as usize;
        let brute = count_classes_under(c.symmetries(), &plain, c.inverts()).classes();
        assert_eq!(c.exact_classes(), brute, "{spec} {metric:?}");
        assert!(c.n_states() >= brute);
        // Shares, as processes count them, add up to the same repeats.
        let shared: u64 = (0..3).map(|s| c.repeats_in_share(s, 3)).sum();
        assert_eq!(c.n_states() - shared, brute, "{spec} {metric:?} in three shares");
    }
    // The 2x2x2 with a fixed corner, the mod-3 row and the hexagon: one entry per class.
    assert!(compacted >= 3, "{compacted} rankings with twins compacted");
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

/// Spinpossible by classes moves XOR runs: the image of every board of a run, and of its
/// inverse under inversion, is where the run's first board and the offset map say (checked
/// board by board on random runs), by key cells and under inversion; and so do the
/// pyraminx's edges by whole arrangements.
#[test]
fn xor_runs_of_classes_agree_with_direct_ranks() {
    let specs = [("spin:2x3", Metric::Htm), ("spin:3x3", Metric::Htm), ("spin:2x5", Metric::Htm)];
    let inverting = specs.iter().map(|&(spec, metric)| (spec, reduced(spec, metric)));
    let key_cells = specs
        .iter()
        .map(|&(spec, metric)| (spec, reduced_by_key_cells(spec, metric, MIN_PLACEMENTS)));
    let whole = [(PYRAMINX_EDGES, pyraminx_edges())];
    for (spec, (_, _, classes)) in inverting.chain(key_cells).chain(whole) {
        let c = classes.classes().unwrap();
        let bits = c.xor_block_bits().unwrap_or_else(|| panic!("{spec}: expected XOR runs"));
        let low = (1u64 << bits) - 1;
        let layout = c.layout();
        // The inverse of a board, by the board-level definition.
        let invert = |s: &Cells| {
            layout.cells_of(&super::invert_board(&layout.board_of(s), c.symmetries().orient_mod))
        };
        let mut x = 0x1234_5678_9ABC_DEF1u64;
        let (mut mapped, mut inverted) = (0, 0);
        let mut a = crate::table::OffsetMap::default();
        let mut to_source = crate::table::OffsetMap::default();
        for _ in 0..200 {
            let run = next(&mut x) % (c.n_states() >> bits);
            let base = c.unrank(run << bits);
            // The run's boards, then under inversion their inverses: offset x of the run is
            // offset A x of the inverse's run.
            let mut sources = vec![(base, None)];
            if let Some((inverse, map)) = StateRanking::inverse_in_runs(c, &base) {
                assert_eq!(inverse, invert(&base).unwrap(), "{spec}: run {run}");
                sources.push((inverse, Some(map)));
                inverted += 1;
            }
            for (source, source_map) in sources {
                StateRanking::offset_map(c, source_map.unwrap_or(0), &mut to_source);
                for m in 0..c.n_moves() {
                    for step in 0..2 {
                        let go = |s: &Cells| {
                            if step == 0 { c.solve_step(s, m) } else { c.scramble_step(s, m) }
                        };
                        let (img, map) = StateRanking::rank_in_runs(c, &go(&source));
                        StateRanking::offset_map(c, map, &mut a);
                        mapped += !a.is_identity() as u32;
                        for _ in 0..8 {
                            let o = next(&mut x) & low;
                            let board = c.unrank(run << bits | o);
                            let from =
                                if source_map.is_some() { invert(&board).unwrap() } else { board };
                            let direct = c.rank(&go(&from));
                            let moved = a.apply(to_source.apply(o)) ^ (img & low);
                            assert_eq!(direct, (img & !low) | moved, "{spec}: run {run} move {m}");
                        }
                    }
                }
            }
        }
        assert_eq!(inverted > 0, c.inverts(), "{spec}");
        assert!(mapped > 0, "{spec}: no run read through a symmetry");
    }
}

/// The 3x3x3's 12 edges (the edge parts of twsearch's `3x3x3.tws` moves), with their flips
/// or without.
fn cube_edges(flips: bool) -> Puzzle {
    let moves = [
        ("F", "10 1 3 4 2 6 7 8 9 5 11 12", "1 1 0 0 1 0 0 0 0 1 0 0"),
        ("B", "1 2 6 4 5 7 11 8 9 10 3 12", "0 0 1 0 0 1 1 0 0 0 1 0"),
        ("D", "1 9 3 2 5 4 7 8 6 10 11 12", "0 0 0 0 0 0 0 0 0 0 0 0"),
        ("U", "1 2 3 4 5 6 7 11 9 8 12 10", "0 0 0 0 0 0 0 0 0 0 0 0"),
        ("L", "1 2 3 4 12 6 9 8 5 10 11 7", "0 0 0 0 0 0 0 0 0 0 0 0"),
        ("R", "4 2 8 3 5 6 7 1 9 10 11 12", "0 0 0 0 0 0 0 0 0 0 0 0"),
    ];
    let (orientations, zeros) = if flips { (2, "0 0 0 0 0 0 0 0 0 0 0 0") } else { (1, "") };
    let mut text = format!(
        "Set EDGE 12 {orientations}\nSolved\nEDGE\n1 2 3 4 5 6 7 8 9 10 11 12\n{zeros}\nEnd\n"
    );
    for (name, cells, turns) in moves {
        let turns = if flips { turns } else { "" };
        text += &format!("Move {name}\nEDGE\n{cells}\n{turns}\nEnd\n");
    }
    crate::rank::test_puzzles::defined(&text)
}

/// Past 2^25 arrangements the whole arrangement is taken where it halves the memory of a
/// subgroup's key cells: the 3x3x3's edges with their 2048 flips under 48 symmetries against
/// the 16 keeping four edges (6.6 GiB against 15.2), not without flips (a 1.8 GiB placement
/// table against 7 MiB of classes), nor against a subgroup of all 48 (nothing saved).
#[test]
fn large_arrangements_come_first_where_they_save_memory() {
    for flips in [true, false] {
        let p = cube_edges(flips);
        let analysis = crate::group::analysis::Analysis::of(&p).unwrap();
        let layout = crate::rank::Layout::without_runs(&p, analysis.invariants.clone()).unwrap();
        let syms = Symmetries::of(&p);
        assert_eq!(syms.order(), 48, "flips {flips}");
        let pays =
            |subgroup| super::ranking::large_arrangement_pays(&layout, &syms, subgroup, true);
        assert_eq!(pays(16), flips, "flips {flips}");
        assert!(!pays(48), "flips {flips}");
    }
}

/// The compy cube (twsearch's `compy_cube.tws`): the dino cube's 12 edges, and 8 corners,
/// each an orbit of its own, one twisted by each move. Its edges' 239,500,800
/// arrangements (past the 4,000,000 placements of small whole orbits) are taken whole under its 48
/// symmetries and inversion, times the corners' 6,561 twists: 4.1 GB of classes and a
/// 0.96 GB placement table against 24.6 GB under the 16 keeping four edges. Without the
/// corners (the dino cube) a placement table of 0.96 GB would hold a 4 MB table of classes:
/// not taken.
#[test]
fn large_whole_orbits_come_first_where_they_save_memory() {
    let moves = [
        (6, "1 2 5 4 9 6 7 8 3 10 11 12"),
        (2, "1 2 3 7 5 6 10 8 9 4 11 12"),
        (3, "1 2 3 4 5 9 7 8 11 10 6 12"),
        (5, "1 7 3 4 5 6 12 8 9 10 11 2"),
        (1, "1 3 8 4 5 6 7 2 9 10 11 12"),
        (4, "4 2 3 11 5 6 7 8 9 10 1 12"),
        (7, "1 2 3 4 5 10 7 6 9 8 11 12"),
        (0, "5 2 3 4 12 6 7 8 9 10 11 1"),
    ];
    for corners in [true, false] {
        let mut text = String::new();
        let corner_sets = if corners { 8 } else { 0 };
        for c in 0..corner_sets {
            text += &format!("Set C{c} 1 3\n");
        }
        text += "Set EDGE 12 1\nSolved\n";
        for c in 0..corner_sets {
            text += &format!("C{c}\n1\n0\n");
        }
        text += "EDGE\n1 2 3 4 5 6 7 8 9 10 11 12\nEnd\n";
        for (m, (corner, edges)) in moves.iter().enumerate() {
            text += &format!("Move M{m}\n");
            if corners {
                text += &format!("C{corner}\n1\n1\n");
            }
            text += &format!("EDGE\n{edges}\nEnd\n");
        }
        let p = crate::rank::test_puzzles::defined(&text);
        let analysis = crate::group::analysis::Analysis::of(&p).unwrap();
        let layout = crate::rank::Layout::without_runs(&p, analysis.invariants.clone()).unwrap();
        let syms = Symmetries::of(&p);
        assert_eq!(syms.order(), 48, "corners {corners}");
        let edges = layout.n_orbits() - 1;
        assert_eq!(layout.orbit_cells(edges).len(), 12, "corners {corners}");
        let first = ClassRanking::whole_orbits_first(&layout, &syms, true);
        assert_eq!(first, corners.then(|| vec![edges]), "corners {corners}");
    }
}
