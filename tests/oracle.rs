//! The engine against a naive search: a plain breadth-first search over boards in a hash map,
//! sharing nothing with the engine but the puzzle model (moves and `apply`). Every small
//! puzzle variant (metrics, orientation, spin-type unions, exceptional groups) must give the
//! same histogram both with runs and board by board.

use std::collections::HashMap;

use twirl::bfs::{Config, NoProgress, search_puzzle};
use twirl::puzzle::{Metric, Puzzle};
use twirl::rank::StateSpace;
use twirl::table::DistanceTable;

/// Distances to solve: search from the solved board along the inverse moves.
fn naive_histogram(puzzle: &Puzzle) -> Vec<u64> {
    let inverses = puzzle.inverse_moves();
    let mut dist = HashMap::new();
    let mut frontier = vec![puzzle.solved()];
    dist.insert(puzzle.solved(), 0u32);
    let mut histogram = vec![1u64];
    while !frontier.is_empty() {
        let mut next = Vec::new();
        for b in &frontier {
            for m in &inverses {
                let c = puzzle.apply(b, m);
                if !dist.contains_key(&c) {
                    dist.insert(c.clone(), histogram.len() as u32);
                    next.push(c);
                }
            }
        }
        if !next.is_empty() {
            histogram.push(next.len() as u64);
        }
        frontier = next;
    }
    histogram
}

fn engine_histogram(puzzle: &Puzzle, runs: bool) -> Vec<u64> {
    let space = StateSpace::build(puzzle).unwrap();
    let table = DistanceTable::in_memory(space.n_states()).unwrap();
    let config = Config { runs, ..Config::new(2) };
    search_puzzle(puzzle, &space, &table, &config, &NoProgress).unwrap().histogram
}

#[test]
fn engine_matches_naive_search() {
    let cases: &[(&str, Option<Metric>)] = &[
        ("nrp:2x3:2", Some(Metric::Cw)),
        ("nrp:2x3:2", Some(Metric::Htm)),
        ("nrp:2x3:2:orient", None),
        ("nrp:2x3:2:orient", Some(Metric::Cw)),
        ("nrp:2x2:1:orient", None),
        ("nrp:2x4:2", Some(Metric::Cw)),
        ("nrp:2x4:2", Some(Metric::Htm)),
        ("nrp:3x3:2", Some(Metric::Cw)),
        ("nrp:3x4:3", Some(Metric::Cw)),
        ("nrp:3x3:3:orient", None),
        ("spin:2x2", None),
        ("spin:2x3", None),
        ("spin:2x3:1x1", None),
        ("spin:2x3:1x2,2x2", None),
        ("spin:2x4:1x3", None),
        ("spin:3x3:1x3", None),
        ("spin:3x3:1x2", None),
        ("spin:2x4:2x2,1x3", None),
    ];
    for &(spec, metric) in cases {
        let puzzle = Puzzle::parse(spec, metric).unwrap();
        let naive = naive_histogram(&puzzle);
        assert_eq!(engine_histogram(&puzzle, true), naive, "{spec} {metric:?} (runs)");
        assert_eq!(engine_histogram(&puzzle, false), naive, "{spec} {metric:?} (board by board)");
    }
}
