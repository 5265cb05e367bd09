//! Optimal search against full tables: on puzzles whose whole table fits, IDA* guided by
//! pattern tables must find solutions exactly as long as the table's distance, for random
//! boards of every distance.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use super::ida::{MovePruning, Solver};
use super::pattern::{PatternTable, Store, default_tracked};
use crate::bfs::{Config, NoProgress, search_puzzle};
use crate::puzzle::{Board, Puzzle};
use crate::rank::StateSpace;
use crate::table::{DistanceTable, mark_of};

/// The exact distance of a board from a full table: descend by marks.
fn table_distance(p: &Puzzle, space: &StateSpace, table: &DistanceTable, b: &Board) -> u32 {
    super::solve(p, space, table, b, 100).unwrap().len() as u32
}

fn random_board(p: &Puzzle, seed: &mut u64, moves: usize) -> Board {
    let mut b = p.solved();
    for _ in 0..moves {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        b = p.apply(&b, &p.moves[(*seed % p.moves.len() as u64) as usize]);
    }
    b
}

/// A puzzle with its full table and a pattern table tracking some tiles.
struct Fixture {
    p: Puzzle,
    space: StateSpace,
    table: DistanceTable,
    stop: Arc<AtomicBool>,
    tables: [PatternTable; 1],
}

impl Fixture {
    fn new(spec: &str, metric: Option<&str>, tracked: &[u8]) -> Fixture {
        let metric = metric.map(|m| crate::puzzle::Metric::parse(m).unwrap());
        let p = Puzzle::parse(spec, metric).unwrap();
        let space = StateSpace::build(&p).unwrap();
        let table = DistanceTable::in_memory(space.n_states()).unwrap();
        search_puzzle(&p, &space, &table, &Config::new(2), &NoProgress).unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let pattern =
            PatternTable::obtain(&p, tracked, &Store::Memory, 2, &NoProgress, stop.clone())
                .unwrap();
        Fixture { p, space, table, stop, tables: [pattern] }
    }
}

/// Solves `count` random boards optimally with a pattern table of `tracked` tiles and checks
/// each length against the full table and each solution by applying it.
fn agrees_with_full_table(spec: &str, metric: Option<&str>, tracked: &[u8], count: usize) {
    agrees_with(spec, metric, tracked, count, false);
}

/// As [`agrees_with_full_table`], with the tiles' distances checked on every board when
/// `tiles_always`.
fn agrees_with(spec: &str, metric: Option<&str>, tracked: &[u8], count: usize, tiles_always: bool) {
    let Fixture { p, space, table, stop, tables } = Fixture::new(spec, metric, tracked);
    // Built-in boards have symmetries, definitions none.
    let views = if spec.starts_with("def:") { 1 } else { 2 };
    assert!(tables[0].views().len() >= views, "{spec}: symmetry views are used");
    let mut solver = Solver::new(&p, &tables).unwrap();
    if tiles_always {
        solver = solver.with_tiles_always();
    }
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut lengths = std::collections::BTreeMap::new();
    for i in 0..count {
        let b = random_board(&p, &mut seed, 5 + i % 40);
        let want = table_distance(&p, &space, &table, &b);
        let bound = solver.bound(&b).unwrap();
        assert!(bound <= want, "{spec}: bound {bound} above the distance {want}");
        let threads = 1 + i % 2;
        let sol = solver.solve(&b, threads, &stop, &|_, _| {}, None).unwrap();
        assert_eq!(sol.moves.len() as u32, want, "{spec}: board {}", p.format_board(&b));
        let end = sol.moves.iter().fold(b.clone(), |acc, &m| p.apply(&acc, &p.moves[m]));
        assert_eq!(end, p.solved(), "{spec}: the solution solves the board");
        *lengths.entry(want).or_insert(0) += 1;
    }
    // The sample reaches deep boards, not only the easy ones.
    let deepest = *lengths.keys().last().unwrap();
    assert!(deepest >= 6, "{spec}: deepest sampled distance {deepest}");
}

/// Boards that a symmetry of the puzzle keeps (where only some first moves are searched)
/// solve exactly as the table says.
fn symmetric_boards_agree(spec: &str, metric: Option<&str>, tracked: &[u8]) {
    let Fixture { p, space, table, stop, tables } = Fixture::new(spec, metric, tracked);
    let solver = Solver::new(&p, &tables).unwrap();
    let syms = crate::symmetry::Symmetries::of(&p);
    let k = p.orient_mod;
    let mut checked = 0;
    for rank in 0..space.n_states() {
        let b = space.board(rank);
        let kept = syms.elements.iter().skip(1).any(|s| s.conjugate_board(&b, k) == b);
        if !kept {
            continue;
        }
        let want = table_distance(&p, &space, &table, &b);
        let sol = solver.solve(&b, 1 + checked % 2, &stop, &|_, _| {}, None).unwrap();
        assert_eq!(sol.moves.len() as u32, want, "{spec}: board {}", p.format_board(&b));
        checked += 1;
    }
    assert!(checked >= 20, "{spec}: only {checked} symmetric boards");
}

#[test]
fn boards_kept_by_symmetries() {
    symmetric_boards_agree("nrp:3x3:2", None, &[0, 1, 2, 3]);
    symmetric_boards_agree("nrp:3x3:2", Some("htm"), &[0, 1, 2, 3]);
    symmetric_boards_agree("spin:2x3", None, &[0, 1, 2]);
}

#[test]
fn twiddle_3x3_qtm_and_htm() {
    agrees_with_full_table("nrp:3x3:2", None, &[0, 1, 2, 3], 600);
    agrees_with_full_table("nrp:3x3:2", Some("htm"), &[0, 1, 2, 3, 4], 400);
}

#[test]
fn tile_distances_never_cut_a_shortest_solution() {
    agrees_with("nrp:3x3:2", None, &[0, 1], 300, true);
    agrees_with("nrp:2x4:2:orient", None, &[0, 1], 200, true);
    agrees_with("spin:2x3", None, &[0, 1], 200, true);
}

#[test]
fn twiddle_3x3_with_orientation() {
    agrees_with_full_table("nrp:2x4:2:orient", None, &[0, 1, 2], 300);
}

#[test]
fn spinpossible_2x3_and_restricted() {
    agrees_with_full_table("spin:2x3", None, &[0, 1, 2], 400);
    agrees_with_full_table("spin:2x3:1x1,1x2", None, &[0, 1], 200);
}

#[test]
fn definition_puzzle() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/data/definitions/cube2.tws");
    agrees_with_full_table(&format!("def:{path}"), None, &[0, 1, 2], 200);
}

#[test]
fn neighbour_bounds_follow_marks() {
    for d in 1..10 {
        assert_eq!(PatternTable::neighbour_distance(d, mark_of(d - 1)), d - 1);
        assert_eq!(PatternTable::neighbour_distance(d, mark_of(d)), d);
        assert_eq!(PatternTable::neighbour_distance(d, mark_of(d + 1)), d + 1);
    }
}

#[test]
fn pruning_keeps_one_order_and_no_cancellation() {
    let p = Puzzle::parse("nrp:3x4:2", None).unwrap();
    let pr = MovePruning::of(&p);
    let idx = |name: &str| p.moves.iter().position(|m| m.name == name).unwrap();
    let (a, a_inv) = (idx("R1C1"), idx("R1C1'"));
    // A quarter turn twice is a half turn (two moves in qtm); three times is one move.
    assert!(pr.allows(Some((a, 1)), a));
    assert!(!pr.allows(Some((a, 2)), a));
    assert!(!pr.allows(Some((a, 1)), a_inv));
    // Half turns are made one way only.
    assert!(!pr.allows(Some((a_inv, 1)), a_inv));
    // Blocks that share no cell commute: one order of the two.
    let (b, c) = (idx("R1C1"), idx("R2C3"));
    assert!(pr.allows(Some((b, 1)), c) != pr.allows(Some((c, 1)), b));
    // Overlapping blocks do not commute: both orders.
    let d = idx("R1C2");
    assert!(pr.allows(Some((b, 1)), d) && pr.allows(Some((d, 1)), b));
}

#[test]
fn default_pattern_fits_the_budget() {
    let p = Puzzle::parse("nrp:4x4:2", None).unwrap();
    let t = default_tracked(&p, 200 << 20).unwrap();
    // 16!/8! = 518,918,400 patterns: 124 MiB; 9 tiles would need 990 MiB.
    assert_eq!(t.len(), 8);
}

/// Patterns the multiset ranking cannot hold are refused before anything is built: those of
/// an exceptional group (listed, not ranked), and those that leave no two untracked tiles in
/// one orbit (NRP b = 3 keeps two colours: tracking 14 of 16 tiles leaves one of each). The
/// default then tracks fewer tiles, or says why there is no pattern.
#[test]
fn patterns_no_multiset_ranks_are_refused_before_building() {
    let p = Puzzle::parse("nrp:2x3:2", None).unwrap();
    let err = super::pattern::pattern_states(&p, &[0]).unwrap_err().to_string();
    assert!(err.contains("expected a pattern of nrp:2x3:2 ranked as a multiset"), "{err}");
    assert!(err.contains("--method table"), "{err}");
    let err = default_tracked(&p, 1 << 30).unwrap_err().to_string();
    assert!(err.contains("listed one by one"), "{err}");
    let p = Puzzle::parse("nrp:4x4:3", None).unwrap();
    let err = super::pattern::pattern_states(&p, &(0..14).collect::<Vec<u8>>()).unwrap_err();
    assert!(err.to_string().contains("no two untracked tiles share an orbit"), "{err}");
    assert_eq!(default_tracked(&p, 256 << 20).unwrap().len(), 13);
}

/// A pattern forgets the untracked tiles' flips: its size is the tracked tiles' places and
/// flips times the arrangements of the rest, nothing for their flips.
#[test]
fn untracked_flips_are_forgotten() {
    let p = Puzzle::parse("spin:4x4", None).unwrap();
    let states = super::pattern::pattern_states(&p, &[0, 1, 2, 3, 4, 5]).unwrap();
    assert_eq!(states, 16 * 15 * 14 * 13 * 12 * 11 * 64);
    let p = Puzzle::parse("spin:2x3", None).unwrap();
    assert_eq!(super::pattern::pattern_states(&p, &[0, 1]).unwrap(), 6 * 5 * 4);
    // Twiddle with orientation: a tile's turn modulo 2 is fixed by its cell (a quarter turn
    // moves it to a cell of the other colour), so each tracked tile has two turns per cell.
    let p = Puzzle::parse("nrp:2x4:2:orient", None).unwrap();
    assert_eq!(super::pattern::pattern_states(&p, &[0, 1, 2]).unwrap(), 8 * 7 * 6 * 8);
}

/// Every pattern of a small puzzle, by a plain search over boards with the untracked tiles
/// relabelled and their flips cleared, is exactly what the table counts, distance by
/// distance: the multiset ranking of unseen orientations is exact.
#[test]
fn unseen_flips_rank_exactly_the_reachable_patterns() {
    use std::collections::{HashMap, VecDeque};
    for (spec, tracked) in
        [("spin:2x3", &[0u8, 1][..]), ("spin:2x3", &[2, 3, 4]), ("nrp:2x4:2:orient", &[0, 5])]
    {
        let p = Puzzle::parse(spec, None).unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let t = PatternTable::obtain(&p, tracked, &Store::Memory, 2, &NoProgress, stop).unwrap();
        let blank = |b: &Board| {
            let mut b = b.clone();
            for (tile, o) in b.tiles.iter_mut().zip(b.orient.iter_mut()) {
                if !tracked.contains(tile) {
                    *tile = u8::MAX;
                    *o = 0;
                }
            }
            b
        };
        let start = blank(&p.solved());
        let mut dist = HashMap::from([(start.clone(), 0u32)]);
        let mut queue = VecDeque::from([start]);
        while let Some(b) = queue.pop_front() {
            let d = dist[&b];
            for m in &p.moves {
                let next = blank(&p.apply(&b, m));
                if !dist.contains_key(&next) {
                    dist.insert(next.clone(), d + 1);
                    queue.push_back(next);
                }
            }
        }
        assert_eq!(t.n_states(), dist.len() as u64, "{spec} tracking {tracked:?}");
        // Each pattern's distance from the table agrees with the plain search: boards
        // rebuilt from the blanked ones with any flips on untracked tiles.
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        for _ in 0..300 {
            let b = random_board(&p, &mut seed, 30);
            let view = &t.views()[0];
            let rank = t.rank(view, &b.tiles, &b.orient);
            assert_eq!(
                t.distance(rank).unwrap(),
                dist[&blank(&b)],
                "{spec}: {}",
                p.format_board(&b)
            );
        }
    }
}

/// Patterns that forget the untracked tiles' flips still give shortest solutions: the
/// lengths equal the full table's distances on random boards.
#[test]
fn spinpossible_with_unseen_flips() {
    agrees_with_full_table("spin:2x3", None, &[0, 1, 2, 3], 400);
    agrees_with_full_table("spin:2x4", None, &[0, 1, 2, 3], 300);
}

/// Several pattern tables (disjoint groups of tracked tiles, each read through every view):
/// every lookup is a lower bound, so the largest one is, and the lengths still equal the
/// full table's distances. The second table raises the bound on some boards.
#[test]
fn several_tables_agree_with_the_full_table() {
    let spec = "spin:2x4";
    let p = Puzzle::parse(spec, None).unwrap();
    let space = StateSpace::build(&p).unwrap();
    let table = DistanceTable::in_memory(space.n_states()).unwrap();
    search_puzzle(&p, &space, &table, &Config::new(2), &NoProgress).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    // Tiles 6-8 would be the first group turned half a turn: a view of the first table.
    let groups = vec![vec![0, 1, 2], vec![1, 5, 6]];
    let both = super::Prepared::new(
        p.clone(),
        Some(groups),
        &Store::Memory,
        1 << 30,
        2,
        &NoProgress,
        stop.clone(),
    )
    .unwrap();
    assert_eq!(both.tables.len(), 2);
    let first = super::Prepared::new(
        p.clone(),
        Some(vec![vec![0, 1, 2]]),
        &Store::Memory,
        1 << 30,
        2,
        &NoProgress,
        stop.clone(),
    )
    .unwrap();
    let (solver, one) = (both.solver().unwrap(), first.solver().unwrap());
    assert_eq!(solver.n_lookups(), 2 * one.n_lookups());
    let mut seed = 0x5851_f42d_4c95_7f2d_u64;
    let mut raised = 0;
    for i in 0..200 {
        let b = random_board(&p, &mut seed, 5 + i % 30);
        let want = table_distance(&p, &space, &table, &b);
        let (bound, bound_one) = (solver.bound(&b).unwrap(), one.bound(&b).unwrap());
        assert!(bound_one <= bound && bound <= want, "{spec}: bounds {bound_one} {bound} {want}");
        raised += usize::from(bound > bound_one);
        let sol = solver.solve(&b, 1 + i % 2, &stop, &|_, _| {}, None).unwrap();
        assert_eq!(sol.moves.len() as u32, want, "{spec}: board {}", p.format_board(&b));
        let end = sol.moves.iter().fold(b.clone(), |acc, &m| p.apply(&acc, &p.moves[m]));
        assert_eq!(end, p.solved());
    }
    assert!(raised > 0, "{spec}: the second table never raised a bound");
}

/// Spinpossible 3x3 (God's number 9): patterns of five tiles that forget the other four's
/// flips give shortest solutions on random boards of every depth, as the full table says.
#[test]
#[ignore = "builds the full Spinpossible 3x3 table (185,794,560 boards): minutes"]
fn spinpossible_3x3_with_unseen_flips() {
    agrees_with_full_table("spin:3x3", None, &[0, 1, 2, 3, 4], 300);
}

/// Counts the distances a pattern build finishes (none when a stored table is read).
#[derive(Default)]
struct Levels(std::sync::atomic::AtomicUsize);

impl crate::bfs::Progress for Levels {
    fn level_done(&self, _distance: u32, _boards: u64, _seconds: f64) {
        self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
}

fn obtain_in(
    p: &Puzzle,
    tracked: &[u8],
    dir: &std::path::Path,
) -> (crate::Result<PatternTable>, usize) {
    let levels = Levels::default();
    let stop = Arc::new(AtomicBool::new(false));
    let t = PatternTable::obtain(p, tracked, &Store::Dir(dir.into()), 2, &levels, stop);
    (t, levels.0.into_inner())
}

/// The table file of the one pattern stored in `dir`.
fn stored_table(dir: &std::path::Path) -> std::path::PathBuf {
    let tables: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "tbl"))
        .collect();
    assert_eq!(tables.len(), 1, "{tables:?}");
    tables[0].clone()
}

/// A cache directory moved elsewhere is read where it is, not built again (its tables named
/// the old absolute path of their definition and could not be opened).
#[test]
fn a_moved_pattern_cache_is_read_where_it_is() {
    let p = Puzzle::parse("nrp:3x3:2", None).unwrap();
    let root = tempfile::tempdir().unwrap();
    let (a, b) = (root.path().join("a"), root.path().join("b"));
    let (t, built) = obtain_in(&p, &[0, 1, 2], &a);
    let max = t.unwrap().max_distance;
    assert!(built > 0);
    std::fs::rename(&a, &b).unwrap();
    let (t, built) = obtain_in(&p, &[0, 1, 2], &b);
    let t = t.unwrap();
    assert_eq!((built, t.max_distance), (0, max), "read, not built again");
    assert_eq!(t.views().len(), 8);
}

/// A valid table of another pattern under a cached pattern's name is refused with one line
/// (it was read as the other pattern: index out of bounds, or no views).
#[test]
fn a_table_of_another_pattern_under_a_cached_name_is_refused() {
    let root = tempfile::tempdir().unwrap();
    let (small, large) = (root.path().join("small"), root.path().join("large"));
    let p = Puzzle::parse("nrp:3x3:2", None).unwrap();
    obtain_in(&p, &[0, 1, 2], &small).0.unwrap();
    let spin = Puzzle::parse("spin:2x3", None).unwrap();
    obtain_in(&spin, &[0, 1, 2, 3], &large).0.unwrap();
    obtain_in(&p, &[0, 1, 2, 3], &large).0.unwrap();
    for other in std::fs::read_dir(&large).unwrap().map(|e| e.unwrap().path()) {
        if other.extension().is_none_or(|e| e != "tbl") {
            continue;
        }
        let name = stored_table(&small);
        std::fs::copy(&other, &name).unwrap();
        let err = obtain_in(&p, &[0, 1, 2], &small).0.err().expect("refused").to_string();
        assert!(err.contains("expected the table of the pattern pattern-"), "{err}");
        assert!(err.contains("remove it to build the pattern table again"), "{err}");
        assert!(!err.contains('\n'), "{err}");
    }
}
