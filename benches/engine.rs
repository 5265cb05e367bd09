//! Micro-benchmarks of the search's inner operations on NRP (3,4,2) and Spinpossible 3x3:
//! rank, unrank, applying a move. Each asserts a round trip so a broken ranking cannot time
//! well. Run with `cargo bench --bench engine`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use twirl::puzzle::Puzzle;
use twirl::rank::{Ranking, StateSpace, SymmetryMode};

fn layout(spec: &str) -> twirl::rank::Layout {
    let space = StateSpace::build(&Puzzle::parse(spec, None).unwrap()).unwrap();
    match space.ranking {
        Ranking::Layout(l) => l,
        _ => panic!("{spec} should use the layout"),
    }
}

/// The same for rankings of symmetry classes: entry of a board (placement, conjugation,
/// rest rank) and board of an entry.
fn bench_classes(c: &mut Criterion) {
    for spec in ["nrp:3x6:3", "nrp:2x7:2", "spin:3x3"] {
        let puzzle = Puzzle::parse(spec, None).unwrap();
        let space = StateSpace::for_search(&puzzle, SymmetryMode::On, false).unwrap();
        let classes = space.classes().unwrap();
        let n = space.n_states();
        let entries: Vec<u64> =
            (0..1024u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) % n).collect();
        let boards: Vec<_> = entries.iter().map(|&e| classes.entry_board(e)).collect();
        let l = classes.layout();
        let moved: Vec<_> = boards.iter().map(|b| l.moves().solve_step(b, 0)).collect();
        c.bench_function(&format!("{spec} classes/entry_board x1024"), |b| {
            b.iter(|| {
                entries.iter().map(|&e| classes.entry_board(black_box(e)).0[0] as u64).sum::<u64>()
            })
        });
        c.bench_function(&format!("{spec} classes/entry x1024"), |b| {
            b.iter(|| moved.iter().map(|s| classes.entry(black_box(s))).sum::<u64>())
        });
    }
}

fn bench(c: &mut Criterion) {
    for spec in ["nrp:3x4:2", "nrp:4x4:3", "spin:3x3"] {
        let l = layout(spec);
        let n = l.n_states();
        let ranks: Vec<u64> =
            (0..1024u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) % n).collect();
        let states: Vec<_> = ranks.iter().map(|&r| l.unrank(r)).collect();
        for (s, &r) in states.iter().zip(&ranks) {
            assert_eq!(l.rank(s), r);
        }
        c.bench_function(&format!("{spec}/unrank x1024"), |b| {
            b.iter(|| ranks.iter().map(|&r| l.unrank(black_box(r)).0[0] as u64).sum::<u64>())
        });
        c.bench_function(&format!("{spec}/rank x1024"), |b| {
            b.iter(|| states.iter().map(|s| l.rank(black_box(s))).sum::<u64>())
        });
        let moves = l.moves();
        c.bench_function(&format!("{spec}/apply+rank x1024"), |b| {
            b.iter(|| {
                states.iter().map(|s| l.rank(&moves.solve_step(black_box(s), 0))).sum::<u64>()
            })
        });
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(2)).warm_up_time(std::time::Duration::from_millis(500));
    targets = bench, bench_classes
}
criterion_main!(benches);
