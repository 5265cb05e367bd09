//! Classes of reachable boards under the symmetry group, counted by brute force on small
//! puzzles: once by walking every orbit ([`count_classes`]) and once by Burnside's lemma
//! ([`burnside`]: the number of orbits is the average number of boards an element fixes).
//! They are the oracle for a symmetry-reduced ranking, which must end with one entry per class.

use std::collections::BTreeMap;

use bitvec::vec::BitVec;

use super::Symmetries;
use crate::puzzle::Puzzle;
use crate::rank::StateSpace;

/// The classes of a puzzle's reachable boards.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassCount {
    /// The order of the group acting (the symmetries, doubled with inversion).
    pub group_order: usize,
    /// Reachable boards.
    pub boards: u64,
    /// Each class as its smallest rank and its size `group_order / |stabilizer|`.
    pub representatives: Vec<(u64, u32)>,
}

impl ClassCount {
    /// The number of classes.
    pub fn classes(&self) -> u64 {
        self.representatives.len() as u64
    }

    /// How many classes have each size.
    pub fn size_histogram(&self) -> BTreeMap<u32, u64> {
        let mut out = BTreeMap::new();
        for &(_, size) in &self.representatives {
            *out.entry(size).or_insert(0) += 1;
        }
        out
    }
}

/// Every class of reachable boards under the puzzle's symmetries (times inversion when
/// `with_inversion`), found by walking each orbit once. The class size is checked against
/// the stabilizer: `size * |stabilizer| = group order`. Needs a bit per board and, per board,
/// one image per group element: for small puzzles.
pub fn count_classes(puzzle: &Puzzle, space: &StateSpace, with_inversion: bool) -> ClassCount {
    count_classes_under(&Symmetries::of(puzzle), space, with_inversion)
}

/// [`count_classes`] under the group `syms` (a subgroup of the puzzle's symmetries).
pub fn count_classes_under(
    syms: &Symmetries,
    space: &StateSpace,
    with_inversion: bool,
) -> ClassCount {
    let order = syms.order_with(with_inversion);
    let n = space.n_states();
    let mut seen = BitVec::<usize>::repeat(false, n as usize);
    let mut representatives = Vec::new();
    for rank in 0..n {
        if seen[rank as usize] {
            continue;
        }
        let board = space.board(rank);
        let mut orbit: Vec<u64> = syms
            .images(&board, with_inversion)
            .iter()
            .map(|b| space.rank_board(b).expect("a symmetry keeps boards reachable"))
            .collect();
        let stabilizer = orbit.iter().filter(|&&r| r == rank).count();
        orbit.sort_unstable();
        orbit.dedup();
        assert_eq!(orbit.len() * stabilizer, order, "orbit-stabilizer fails at rank {rank}");
        // Ranks are walked upwards: the first one met is the smallest of its class.
        debug_assert_eq!(orbit[0], rank);
        for &r in &orbit {
            seen.set(r as usize, true);
        }
        representatives.push((rank, orbit.len() as u32));
    }
    ClassCount { group_order: order, boards: n, representatives }
}

/// The number of classes among the boards of each label, by Burnside's lemma: for each label
/// `l`, the boards labelled `l` fixed by each group element, summed and divided by the group
/// order. `label` must be constant on classes (the distance is, for distance-keeping groups)
/// and below `n_labels`.
pub fn burnside(
    puzzle: &Puzzle,
    space: &StateSpace,
    with_inversion: bool,
    n_labels: usize,
    label: impl Fn(u64) -> usize,
) -> Vec<u64> {
    let syms = Symmetries::of(puzzle);
    let order = syms.order_with(with_inversion) as u64;
    let mut fixed = vec![0u64; n_labels];
    for rank in 0..space.n_states() {
        let board = space.board(rank);
        let fixers = syms.images(&board, with_inversion).iter().filter(|&b| *b == board).count();
        fixed[label(rank)] += fixers as u64;
    }
    fixed
        .into_iter()
        .map(|f| {
            assert_eq!(f % order, 0, "Burnside's sum {f} is not a multiple of {order}");
            f / order
        })
        .collect()
}
