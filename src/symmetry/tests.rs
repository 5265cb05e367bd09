//! Symmetries against the moves and against distances: the group found per puzzle and metric,
//! the actions on boards, distance invariance against breadth-first searches, class counts.

use std::collections::VecDeque;

use super::*;
use crate::bfs;
use crate::puzzle::Metric;
use crate::rank::StateSpace;
use crate::table::{DistanceTable, UNSEEN};

fn puzzle(spec: &str, metric: Metric) -> Puzzle {
    Puzzle::parse(spec, Some(metric)).unwrap()
}

/// A small deterministic generator (splitmix64).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) % n
    }
}

/// Exact distances (moves needed to solve) of every rank, by a plain breadth-first search
/// from the solved board along the inverse moves.
fn exact_distances(p: &Puzzle, space: &StateSpace) -> Vec<u8> {
    let n = space.n_states() as usize;
    let mut dist = vec![u8::MAX; n];
    let start = space.rank_board(&p.solved()).unwrap();
    dist[start as usize] = 0;
    let mut queue = VecDeque::from([start]);
    let back = p.inverse_moves();
    while let Some(r) = queue.pop_front() {
        let b = space.board(r);
        for m in &back {
            let next = space.rank_board(&p.apply(&b, m)).unwrap() as usize;
            if dist[next] == u8::MAX {
                dist[next] = dist[r as usize] + 1;
                queue.push_back(next as u64);
            }
        }
    }
    assert!(dist.iter().all(|&d| d != u8::MAX), "every rank is reachable");
    dist
}

/// The table of a full search (marks: 1 + distance mod 3).
fn engine_table(p: &Puzzle, space: &StateSpace) -> DistanceTable {
    let table = DistanceTable::in_memory(space.n_states()).unwrap();
    bfs::search_puzzle(p, space, &table, &bfs::Config::new(2), &bfs::NoProgress).unwrap();
    table
}

#[test]
fn symmetry_groups_found_from_the_moves() {
    use Metric::*;
    // (spec, metric, group order, inverse-closed)
    let cases = [
        ("nrp:2x2:2", Qtm, 8, true),
        ("nrp:2x2:2", Cw, 4, false),
        ("nrp:2x3:2", Qtm, 4, true),
        ("nrp:2x3:2", Htm, 4, true),
        ("nrp:2x3:2", Cw, 2, false),
        ("nrp:3x3:2", Qtm, 8, true),
        ("nrp:3x3:2", Htm, 8, true),
        ("nrp:3x3:2", Cw, 4, false),
        ("nrp:2x2:2:orient", Qtm, 8, true),
        ("nrp:2x2:2:orient", Cw, 4, false),
        ("nrp:3x3:2:orient", Qtm, 8, true),
        ("nrp:3x3:2:orient", Htm, 8, true),
        ("nrp:3x3:2:orient", Cw, 4, false),
        ("nrp:3x4:3", Qtm, 4, true),
        ("nrp:3x4:3", Cw, 2, false),
        ("nrp:3x6:3", Qtm, 4, true),
        ("nrp:2x7:2", Qtm, 4, true),
        ("nrp:4x4:3", Qtm, 8, true),
        ("nrp:1x4:1", Qtm, 2, true),
        ("spin:2x3", Htm, 4, true),
        ("spin:3x3", Htm, 8, true),
        ("spin:3x3:1x1,1x2", Htm, 8, true),
        ("spin:2x3:1x1,1x2", Htm, 4, true),
        ("spin:3x4:2x3", Htm, 4, true),
    ];
    for (spec, metric, order, closed) in cases {
        let p = puzzle(spec, metric);
        let syms = Symmetries::of(&p);
        assert_eq!(syms.order(), order, "{spec} {metric}: {syms}");
        assert_eq!(syms.inverse_closed, closed, "{spec} {metric}");
        assert_eq!(syms.inverse_closed, p.undirected, "{spec} {metric}");
        assert!(syms.is_group());
        let candidates = if p.rows == p.cols { 8 } else { 4 };
        if p.rows > 1 {
            assert_eq!(syms.order() + syms.rejected.len(), candidates, "{spec} {metric}");
        }
        // With clockwise turns only, exactly the mirrors drop out.
        for s in &syms.rejected {
            assert!(s.reverses && metric == Cw, "{spec} {metric}: {} rejected", s.name);
        }
    }
    let p = puzzle("nrp:3x3:2", Qtm);
    assert_eq!(
        Symmetries::of(&p).to_string(),
        "order 8: identity, rotate 90, rotate 180, rotate 270, mirror top-bottom, \
         mirror left-right, mirror diagonal, mirror anti-diagonal; inverse-closed: yes"
    );
    let p = puzzle("nrp:2x3:2", Cw);
    assert_eq!(Symmetries::of(&p).to_string(), "order 2: identity, rotate 180; inverse-closed: no");
}

/// `is_group` takes products of generators only: it must still refuse a set that misses a
/// product, a set without the identity first, and accept every subgroup.
#[test]
fn a_set_of_maps_is_a_group_only_when_closed_under_products() {
    let syms = Symmetries::of(&puzzle("nrp:3x3:2", Metric::Qtm));
    assert_eq!(syms.order(), 8);
    assert!(syms.is_group());
    let without = |drop: usize| Symmetries {
        elements: (syms.elements.iter().enumerate())
            .filter(|&(i, _)| i != drop)
            .map(|(_, s)| s.clone())
            .collect(),
        ..syms.clone()
    };
    // Dropping any map but the identity leaves a product of two kept maps out.
    for drop in 1..8 {
        assert!(!without(drop).is_group(), "{} dropped", syms.elements[drop].name);
    }
    // The identity must come first.
    let mut moved = syms.clone();
    moved.elements.swap(0, 1);
    assert!(!moved.is_group());
    // The rotations are a subgroup, a rotation and a mirror alone are not.
    let rotations = syms.subgroup(|s| !s.reverses);
    assert_eq!(rotations.order(), 4);
    let pair = Symmetries { elements: syms.elements[..2].to_vec(), ..syms.clone() };
    assert_eq!(pair.elements[1].name, "rotate 90");
    assert!(!pair.is_group());
    let half = Symmetries {
        elements: vec![syms.elements[0].clone(), syms.elements[2].clone()],
        ..syms.clone()
    };
    assert_eq!(half.elements[1].name, "rotate 180");
    assert!(half.is_group());
}

#[test]
fn symmetry_restricted_spin_types_keep_the_board_symmetry() {
    // Spins of 1x2 rectangles only, on a 2x3 board: the horizontal and the vertical dominoes
    // are different move sets, but every map of the rectangle keeps both kinds.
    let p = puzzle("spin:2x3:1x2", Metric::Htm);
    assert_eq!(Symmetries::of(&p).order(), 4);
    // A 1x3 spin type on 3x3: transposing swaps 1x3 and 3x1 rectangles, both of the type.
    let p = puzzle("spin:3x3:1x3", Metric::Htm);
    assert_eq!(Symmetries::of(&p).order(), 8);
}

#[test]
fn symmetry_conjugation_matches_conjugated_move_sequences() {
    // s g s^-1 for g = m1 m2 ... is reached by s m1 s^-1, s m2 s^-1, ... from the solved
    // board: this pins the board action to the move convention, for every candidate.
    let mut rng = Rng(7);
    for (spec, metric) in [
        ("nrp:3x3:2:orient", Metric::Qtm),
        ("nrp:3x4:3:orient", Metric::Cw),
        ("spin:2x3", Metric::Htm),
        ("nrp:2x4:2", Metric::Htm),
    ] {
        let p = puzzle(spec, metric);
        let k = p.orient_mod;
        for s in Symmetries::candidates(p.rows, p.cols, k) {
            for _ in 0..20 {
                let seq: Vec<&Move> =
                    (0..12).map(|_| &p.moves[rng.below(p.moves.len() as u64) as usize]).collect();
                let mut g = p.solved();
                let mut h = p.solved();
                for m in &seq {
                    g = p.apply(&g, m);
                    h = p.apply(&h, &s.conjugate_move(m, k));
                }
                assert_eq!(s.conjugate_board(&g, k), h, "{spec}: {}", s.name);
                // g^-1 is reached by the inverse moves in reverse order.
                let mut inv = p.solved();
                for m in seq.iter().rev() {
                    inv = p.apply(&inv, &m.inverse(k, String::new()));
                }
                assert_eq!(invert_board(&g, k), inv, "{spec}");
            }
        }
    }
}

#[test]
fn symmetry_actions_are_group_actions() {
    let mut rng = Rng(11);
    for (spec, metric) in [("nrp:3x3:2:orient", Metric::Qtm), ("spin:2x3", Metric::Htm)] {
        let p = puzzle(spec, metric);
        let k = p.orient_mod;
        let syms = Symmetries::of(&p);
        let space = StateSpace::build(&p).unwrap();
        let mut moved_by_inversion = 0;
        for _ in 0..50 {
            let b = space.board(rng.below(space.n_states()));
            assert_eq!(syms.elements[0].conjugate_board(&b, k), b);
            assert_eq!(invert_board(&invert_board(&b, k), k), b);
            moved_by_inversion += usize::from(invert_board(&b, k) != b);
            for s in &syms.elements {
                let sb = s.conjugate_board(&b, k);
                assert_eq!(s.inverse(k).conjugate_board(&sb, k), b);
                assert_eq!(invert_board(&sb, k), s.conjugate_board(&invert_board(&b, k), k));
                for t in &syms.elements {
                    let st = s.then(t, k);
                    assert_eq!(t.conjugate_board(&sb, k), st.conjugate_board(&b, k));
                    assert!(syms.position(&st).is_some());
                }
            }
        }
        assert!(moved_by_inversion > 40, "{spec}: inversion moved {moved_by_inversion} of 50");
    }
    // Relations of the square: a quarter turn has order 4, two of them make the half turn,
    // a mirror has order 2, and mirror then quarter turn is another mirror.
    let syms = Symmetries::of(&puzzle("nrp:3x3:2:orient", Metric::Qtm));
    let by_name = |n: &str| syms.elements.iter().find(|s| s.name == n).unwrap().clone();
    let (r90, r180, m) = (by_name("rotate 90"), by_name("rotate 180"), by_name("mirror diagonal"));
    let id = &syms.elements[0];
    assert!(r90.then(&r90, 4).acts_like(&r180, 4));
    assert!(r180.then(&r180, 4).acts_like(id, 4));
    assert!(!r90.then(&r90, 4).then(&r90, 4).acts_like(id, 4));
    assert!(m.then(&m, 4).acts_like(id, 4));
    let other = syms.position(&m.then(&r90, 4)).unwrap();
    assert!(syms.elements[other].reverses && syms.elements[other].name.starts_with("mirror"));
    // 3x3 board: rotate 90 takes the top-left corner (cell 1) to the bottom-left (cell 7).
    assert_eq!(r90.cells[0], 6);
}

/// Checks `d(s g s^-1) = d(g)` for every kept symmetry and the listed boards, `d(g^-1) =
/// d(g)` when the moves are closed under inverses (and that it fails somewhere otherwise),
/// and that each rejected candidate changes some distance (or leads off the reachable
/// boards). `dist` gives the distance, or its mark, of a rank.
fn check_distances(
    p: &Puzzle,
    space: &StateSpace,
    ranks: &[u64],
    rejected: &[Symmetry],
    dist: impl Fn(u64) -> u8,
) {
    let syms = Symmetries::of(p);
    let k = p.orient_mod;
    let d_of = |b: &Board| space.rank_board(b).ok().map(&dist);
    let mut rejected_changes = vec![0usize; rejected.len()];
    let mut inverse_changes = 0usize;
    for &r in ranks {
        let b = space.board(r);
        let d = Some(dist(r));
        for s in &syms.elements {
            assert_eq!(d_of(&s.conjugate_board(&b, k)), d, "{:?}: {} on rank {r}", p.spec, s.name);
        }
        let di = d_of(&invert_board(&b, k));
        if syms.inverse_closed {
            assert_eq!(di, d, "{:?}: inversion on rank {r}", p.spec);
        } else if di != d {
            inverse_changes += 1;
        }
        for (j, s) in rejected.iter().enumerate() {
            if d_of(&s.conjugate_board(&b, k)) != d {
                rejected_changes[j] += 1;
            }
        }
    }
    if !syms.inverse_closed {
        assert!(inverse_changes > 0, "{:?}: inversion kept every distance", p.spec);
    }
    for (s, &c) in rejected.iter().zip(&rejected_changes) {
        assert!(c > 0, "{:?}: rejected {} changed no distance", p.spec, s.name);
    }
}

/// The rejected candidates, plus every candidate with the wrong action on orientation
/// (quarter-turn orientation only): all must fail the move test.
fn wrong_candidates(p: &Puzzle, syms: &Symmetries) -> Vec<Symmetry> {
    let mut out = syms.rejected.clone();
    if p.orient_mod == 4 {
        for s in Symmetries::candidates(p.rows, p.cols, 4) {
            let wrong = Symmetry { name: format!("{} (orientation flipped)", s.name), ..s };
            let wrong = Symmetry { reverses: !wrong.reverses, ..wrong };
            assert!(!keeps_moves(p, &wrong), "{:?}: {} kept", p.spec, wrong.name);
            out.push(wrong);
        }
    }
    out
}

#[test]
fn symmetry_keeps_exact_distances_of_small_boards() {
    use Metric::*;
    let cases = [
        ("nrp:2x3:2", Qtm),
        ("nrp:2x3:2", Htm),
        ("nrp:2x3:2", Cw),
        ("nrp:3x3:2", Qtm),
        ("nrp:3x3:2", Htm),
        ("nrp:3x3:2", Cw),
        ("nrp:2x2:2:orient", Qtm),
        ("nrp:2x2:2:orient", Cw),
        ("nrp:2x3:2:orient", Qtm),
        ("nrp:3x4:3", Qtm),
        ("nrp:3x4:3", Cw),
        ("spin:2x3", Htm),
        ("spin:2x3:1x1,1x2", Htm),
        ("spin:2x2:1x1,1x2", Htm),
    ];
    for (spec, metric) in cases {
        let p = puzzle(spec, metric);
        let space = StateSpace::build(&p).unwrap();
        let dist = exact_distances(&p, &space);
        let syms = Symmetries::of(&p);
        let wrong = wrong_candidates(&p, &syms);
        // Every board up to 50,000 boards; every 7th of NRP (3,3,2)'s 362,880.
        let step = if space.n_states() > 50_000 { 7 } else { 1 };
        let ranks: Vec<u64> = (0..space.n_states()).step_by(step).collect();
        check_distances(&p, &space, &ranks, &wrong, |r| dist[r as usize]);
    }
}

#[test]
fn symmetry_keeps_distances_of_random_oriented_3x3_boards() {
    // 92,897,280 boards: distances mod 3 from a full search, on random boards.
    for metric in [Metric::Qtm, Metric::Cw] {
        let p = puzzle("nrp:3x3:2:orient", metric);
        let space = StateSpace::build(&p).unwrap();
        let table = engine_table(&p, &space);
        let syms = Symmetries::of(&p);
        let wrong = wrong_candidates(&p, &syms);
        let mut rng = Rng(3);
        let ranks: Vec<u64> = (0..2000).map(|_| rng.below(space.n_states())).collect();
        check_distances(&p, &space, &ranks, &wrong, |r| {
            let mark = table.get(r);
            assert_ne!(mark, UNSEEN);
            mark
        });
    }
}

#[test]
#[ignore = "a 185,794,560-board search, about 10 s on 2 cores"]
fn symmetry_keeps_distances_of_random_restricted_spin_3x3_boards() {
    let p = puzzle("spin:3x3:1x1,1x2", Metric::Htm);
    let space = StateSpace::build(&p).unwrap();
    let table = engine_table(&p, &space);
    let syms = Symmetries::of(&p);
    assert_eq!(syms.order(), 8);
    let mut rng = Rng(5);
    let ranks: Vec<u64> = (0..3000).map(|_| rng.below(space.n_states())).collect();
    check_distances(&p, &space, &ranks, &[], |r| table.get(r));
}

/// Classes of every reachable board, walked orbit by orbit and counted by Burnside's lemma,
/// per distance: (classes, class sizes as (size, count), classes at each distance).
fn check_classes(
    spec: &str,
    dist: &[u8],
    with_inversion: bool,
    classes: u64,
    sizes: &[(u32, u64)],
    by_distance: &[u64],
    boards_by_distance: &[u64],
) {
    let p = Puzzle::parse(spec, None).unwrap();
    let space = StateSpace::build(&p).unwrap();
    let levels = boards_by_distance.len();
    let count = count_classes(&p, &space, with_inversion);
    assert_eq!(count.classes(), classes, "{spec} inversion {with_inversion}");
    let histogram: Vec<(u32, u64)> = count.size_histogram().into_iter().collect();
    assert_eq!(histogram, sizes, "{spec} inversion {with_inversion}");
    let mut classes_at = vec![0u64; levels];
    let mut boards_at = vec![0u64; levels];
    for &(r, size) in &count.representatives {
        classes_at[dist[r as usize] as usize] += 1;
        boards_at[dist[r as usize] as usize] += size as u64;
    }
    // Class sizes add up to the boards, level by level (the histogram in docs/results.md).
    assert_eq!(boards_at, boards_by_distance, "{spec}");
    assert_eq!(boards_at.iter().sum::<u64>(), space.n_states());
    assert_eq!(classes_at, by_distance, "{spec} inversion {with_inversion}");
    let b = burnside(&p, &space, with_inversion, levels, |r| dist[r as usize] as usize);
    assert_eq!(b, by_distance, "{spec} inversion {with_inversion}: Burnside");
}

#[test]
fn symmetry_classes_of_nrp_3x3() {
    let p = puzzle("nrp:3x3:2", Metric::Qtm);
    let dist = exact_distances(&p, &StateSpace::build(&p).unwrap());
    let boards = [1, 8, 52, 328, 1996, 11336, 51582, 130042, 125929, 39706, 1880, 20];
    check_classes(
        "nrp:3x3:2",
        &dist,
        false,
        45_560,
        &[(1, 4), (2, 26), (4, 354), (8, 45_176)],
        &[1, 1, 7, 41, 252, 1420, 6460, 16299, 15812, 5014, 248, 5],
        &boards,
    );
    check_classes(
        "nrp:3x3:2",
        &dist,
        true,
        23_764,
        &[(1, 4), (2, 22), (4, 164), (8, 1876), (16, 21_698)],
        &[1, 1, 6, 24, 143, 740, 3349, 8400, 8224, 2713, 158, 5],
        &boards,
    );
}

#[test]
fn symmetry_classes_of_spin_2x3() {
    let p = puzzle("spin:2x3", Metric::Htm);
    let dist = exact_distances(&p, &StateSpace::build(&p).unwrap());
    let boards = [1, 18, 178, 1272, 6970, 22467, 15024, 150];
    check_classes(
        "spin:2x3",
        &dist,
        false,
        11_776,
        &[(1, 32), (2, 464), (4, 11_280)],
        &[1, 8, 57, 352, 1814, 5720, 3786, 38],
        &boards,
    );
    check_classes(
        "spin:2x3",
        &dist,
        true,
        6_580,
        &[(1, 32), (2, 248), (4, 1212), (8, 5088)],
        &[1, 8, 48, 235, 1058, 3128, 2077, 25],
        &boards,
    );
}

/// One placement table's counts: (placements, classes, placements with a nontrivial
/// stabilizer, such classes, placements fixed by each symmetry).
fn check_placements(spec: &str, tiles: &[u8], expected: (u64, u64, u64, u64, &[u64])) {
    let p = puzzle(spec, Metric::Qtm);
    let syms = Symmetries::of(&p);
    let t = PlacementTable::build(&p, &syms, tiles);
    let got = (t.len(), t.classes(), t.with_stabilizer(), t.classes_with_stabilizer());
    assert_eq!(got, (expected.0, expected.1, expected.2, expected.3), "{spec} {tiles:?}");
    assert_eq!(t.fixed, expected.4, "{spec} {tiles:?}");
    assert_eq!(t.burnside_classes(), t.classes(), "{spec} {tiles:?}");
    // The recorded symmetry takes each placement to its representative.
    let k = t.tiles.len();
    let slot = |tile: u8| t.tiles.iter().position(|&x| x == tile).unwrap();
    for i in (0..t.len() as usize).step_by(97) {
        let s = &syms.elements[t.symmetry[i] as usize];
        let mut image = vec![0u8; k];
        for (j, &tile) in t.tiles.iter().enumerate() {
            image[slot(s.cells[tile as usize])] = s.cells[t.cells[i * k + j] as usize];
        }
        let r = t.representative[i] as usize;
        assert_eq!(image, &t.cells[r * k..(r + 1) * k]);
        assert_eq!(t.representative[r] as usize, r);
    }
}

#[test]
fn symmetry_placements_for_the_design_note() {
    // NRP (3,6,3): the four corner tiles; then also the two ends of the middle row.
    check_placements("nrp:3x6:3", &[0, 5, 12, 17], (5184, 1341, 168, 87, &[5184, 72, 36, 72]));
    check_placements(
        "nrp:3x6:3",
        &[0, 5, 6, 11, 12, 17],
        (254_016, 63_837, 1296, 657, &[254_016, 504, 324, 504]),
    );
    // NRP (2,7,2): the four corner tiles; then also the middle column.
    check_placements(
        "nrp:2x7:2",
        &[0, 6, 7, 13],
        (24_024, 6120, 432, 222, &[24_024, 168, 168, 120]),
    );
    check_placements(
        "nrp:2x7:2",
        &[0, 3, 6, 7, 10, 13],
        (2_162_160, 541_440, 3552, 1788, &[2_162_160, 1680, 1680, 240]),
    );
    // The rest of a board: the boards over the placements, exactly.
    assert_eq!(65_840_947_200u64 % 254_016, 0);
    assert_eq!(65_840_947_200u64 / 254_016, 259_200);
    assert_eq!(87_178_291_200u64 / 2_162_160, 40_320);
}

/// A definition read from a file in the test's temporary directory.
fn definition_puzzle(text: &str, name: &str, metric: Metric) -> Puzzle {
    let dir = std::env::temp_dir().join(format!("twirl-sym-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.tws"));
    std::fs::write(&path, text).unwrap();
    puzzle(&format!("def:{}", path.display()), metric)
}

#[test]
fn definitions_find_their_symmetries_from_the_moves() {
    // The 2x2x2 with a corner fixed and U, R, F turning: the three turns about the fixed
    // corner's axis, and three mirrors each swapping two faces (they reverse the twists).
    for metric in [Metric::Htm, Metric::Qtm] {
        let p = puzzle("def:data/definitions/cube2.tws", metric);
        let syms = Symmetries::of(&p);
        assert_eq!(syms.order(), 6, "cube2 {metric:?}: {syms}");
        assert_eq!(syms.elements.iter().filter(|s| s.reverses).count(), 3);
        assert!(syms.inverse_closed && !syms.gave_up);
        // Turning about a corner's axis relabels the corners' stickers: offsets not all zero.
        assert!(syms.elements.iter().any(|s| s.offsets.iter().any(|&o| o != 0)));
    }
    // In cw the mirrors take U to U' (not a move): the rotations alone.
    let cw = Symmetries::of(&puzzle("def:data/definitions/cube2.tws", Metric::Cw));
    assert_eq!((cw.order(), cw.elements.iter().any(|s| s.reverses)), (3, false));
    // An NRP board written as a definition has lost its geometry: the search finds the maps
    // of the square again (no more, no fewer).
    for spec in ["nrp:3x3:2:orient", "nrp:3x3:2", "nrp:2x4:2", "spin:2x3"] {
        let p = puzzle(spec, Metric::Htm);
        let text = crate::puzzle::definition::Definition::from_puzzle(&p).unwrap().to_tws();
        let def = definition_puzzle(&text, &spec.replace([':', ','], "_"), Metric::Htm);
        assert_eq!(
            Symmetries::of(&def).order(),
            Symmetries::of(&p).order(),
            "{spec}: {}",
            Symmetries::of(&def)
        );
    }
}

/// Loopover on an `n` x `n` torus: every shift of every row (`H`) and column (`V`) by
/// `1..n` cells, a move each (so `H1x1'` repeats `H1x3`, and `twirl` adds the powers again).
fn loopover(n: usize) -> String {
    let mut text = format!("Name Loopover\nSet TILE {} 1\nSolved\nTILE\n", n * n);
    text += &(1..=n * n).map(|c| c.to_string()).collect::<Vec<_>>().join(" ");
    text += "\nEnd\n";
    for kind in ["H", "V"] {
        let cell = |line: usize, i: usize, n: usize| match kind {
            "H" => line * n + i,
            _ => i * n + line,
        };
        for line in 0..n {
            for shift in 1..n {
                let mut from = vec![0; n * n];
                for (c, f) in from.iter_mut().enumerate() {
                    *f = c;
                }
                for i in 0..n {
                    from[cell(line, (i + shift) % n, n)] = cell(line, i, n);
                }
                let list: Vec<String> = from.iter().map(|c| (c + 1).to_string()).collect();
                text +=
                    &format!("Move {kind}{}x{shift}\nTILE\n{}\nEnd\n", line + 1, list.join(" "));
            }
        }
    }
    text
}

#[test]
fn repeated_moves_and_powers_do_not_stop_the_search() {
    // A map of the torus (r, c) -> (a r + t, b c + u), or that with rows and columns
    // exchanged, carries a shift onto a shift for every unit `a`, `b` mod n: 2 * n^2 * 4
    // maps for n = 3 and 4 (units +-1), 800 for n = 5 (units +-1, +-2: lo55). The search
    // gave up on 3 and 4: each move listed twice gave every symmetry several leaves, and a
    // shift's powers (one cycle type) were told apart only deep in the search. On 5 it gave
    // up while it made each of the 800 a leaf (2.2 million nodes): it finds generators.
    for (n, order) in [(3, 72), (4, 128), (5, 800)] {
        let p = definition_puzzle(&loopover(n), &format!("loopover{n}"), Metric::Htm);
        let syms = Symmetries::of(&p);
        assert_eq!((syms.order(), syms.gave_up), (order, false), "loopover {n}: {syms}");
    }
}

#[test]
fn found_symmetries_conjugate_moves_and_boards_alike() {
    // s (g m) s^-1 = (s g s^-1)(s m s^-1), with the offsets, on random boards of cube2.
    let mut rng = Rng(7);
    for metric in [Metric::Htm, Metric::Cw] {
        let p = puzzle("def:data/definitions/cube2.tws", metric);
        let k = p.orient_mod;
        let syms = Symmetries::of(&p);
        let space = StateSpace::build(&p).unwrap();
        for _ in 0..40 {
            let b = space.board(rng.below(space.n_states()));
            for s in &syms.elements {
                let sb = s.conjugate_board(&b, k);
                assert!(space.rank_board(&sb).is_ok(), "{}: the image is a board", s.name);
                assert_eq!(s.inverse(k).conjugate_board(&sb, k), b);
                assert_eq!(invert_board(&sb, k), s.conjugate_board(&invert_board(&b, k), k));
                for m in &p.moves {
                    let left = s.conjugate_board(&p.apply(&b, m), k);
                    let right = p.apply(&sb, &s.conjugate_move(m, k));
                    assert_eq!(left, right, "{} and {}", s.name, m.name);
                }
                for t in &syms.elements {
                    let st = s.then(t, k);
                    assert_eq!(t.conjugate_board(&sb, k), st.conjugate_board(&b, k));
                    assert!(syms.position(&st).is_some());
                }
            }
        }
    }
}
