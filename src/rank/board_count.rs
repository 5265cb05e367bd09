//! The number of boards of a puzzle with identical pieces, whose boards are not group
//! elements: by the orbit-stabilizer theorem, the group's order over the order of its
//! subgroup that leaves the solved board as it is. That subgroup lies in `K`, the maps that
//! exchange identical pieces within an orbit and turn pieces whose orientation nobody sees;
//! where `K` is small (the 235 cuboid's four), each of its elements is tested for membership
//! in the group by the stabilizer chain.

use std::sync::Mutex;

use num_bigint::BigUint;

use crate::group::analysis::Analysis;
use crate::group::invariants::exchanges_of_alike;
use crate::group::stabchain::{Perm, StabChain};
use crate::group::wide::WideAnalysis;
use crate::puzzle::defined::Defined;
use crate::puzzle::{Board, Puzzle};

/// Most elements of `K` tested one by one (a sift each, a microsecond or so).
const MAX_SAME: u64 = 1 << 18;

/// The order of `K`: the exchanges of identical pieces within their labels, times the
/// turns of pieces whose orientation nobody sees.
pub(crate) fn exchanges(puzzle: &Puzzle, analysis: &Analysis) -> BigUint {
    let mut same = exchanges_of_alike(puzzle.solved().tiles);
    if let Some(d) = puzzle.defined() {
        for _ in d.unseen_orientations().iter().filter(|&&u| u) {
            same *= analysis.invariants.orient_mod;
        }
    }
    same
}

/// A lower bound on the boards: `group_order / |K|`, the group meeting `K` in at most `|K|`
/// elements, each board standing for that many.
pub(crate) fn fewest_boards(puzzle: &Puzzle, analysis: &Analysis) -> BigUint {
    &analysis.group_order / exchanges(puzzle, analysis)
}

/// The order of the group the moves generate on `cells` alone (a union of their orbits), or
/// `None` if a move takes one of them elsewhere. A stabilizer chain: milliseconds.
pub(crate) fn order_on_cells(puzzle: &Puzzle, cells: &[u8]) -> Option<BigUint> {
    let mut local = vec![u16::MAX; puzzle.n_positions()];
    for (i, &c) in cells.iter().enumerate() {
        local[c as usize] = i as u16;
    }
    let gens: Vec<Perm> = (puzzle.moves.iter())
        .map(|m| cells.iter().map(|&c| local[m.perm[c as usize] as usize]).collect())
        .collect();
    if gens.iter().any(|g: &Perm| g.contains(&u16::MAX)) {
        return None;
    }
    Some(StabChain::new(cells.len(), &gens).order())
}

/// A lower bound on the boards from what they show on part of the puzzle (its orbits under
/// the moves): [`fewest_projections`] on all of them.
pub(crate) fn fewest_boards_by_projections(puzzle: &Puzzle) -> BigUint {
    let (orbits, _) = crate::group::invariants::orbits(puzzle.n_positions(), puzzle);
    fewest_projections(puzzle, &orbits)
}

/// A lower bound on the arrangements of labels the boards show on the union of `orbits`
/// (each a list of cells the moves keep together): boards showing different labels on some
/// orbits are different boards, and the arrangements the moves reach on a union of orbits
/// number at least the order of the group they generate there over the exchanges of alike
/// labels within each orbit (the most that can leave the solved labels as they are).
/// Orbits join the union one at a time, largest bound first, where they raise it; the whole
/// union is tried last. On the whole puzzle that is [`fewest_boards`] at best, whose
/// exchanges multiply over every orbit: the arecibo's 164 boards, against more than
/// 5,000,000 shown on a few of its orbits (which spares listing 5,000,000 boards, 2 GB and
/// seconds, before failing).
pub(crate) fn fewest_projections(puzzle: &Puzzle, orbits: &[Vec<u8>]) -> BigUint {
    let solved = puzzle.solved();
    let exchanges = |cells: &[u8]| {
        exchanges_of_alike(cells.iter().map(|&c| solved.tiles[c as usize]).collect())
    };
    let bound = |cells: &[u8], exchanged: &BigUint| {
        order_on_cells(puzzle, cells).map_or_else(BigUint::default, |order| order / exchanged)
    };
    let mut alone: Vec<(BigUint, BigUint, &Vec<u8>)> = (orbits.iter())
        .map(|o| {
            let exchanged = exchanges(o);
            (bound(o, &exchanged), exchanged, o)
        })
        .collect();
    alone.sort_by(|a, b| b.0.cmp(&a.0));
    let one = BigUint::from(1u32);
    let (mut best, mut cells, mut exchanged) = (one.clone(), Vec::new(), one.clone());
    for (alone_bound, own, orbit) in &alone {
        let (mut more, with) = (cells.clone(), &exchanged * own);
        more.extend_from_slice(orbit);
        // An orbit joining no other: its bound is known (a stabilizer chain each).
        let b = if cells.is_empty() { alone_bound.clone() } else { bound(&more, &with) };
        if b > best {
            (best, cells, exchanged) = (b, more, with);
        }
    }
    let all: Vec<u8> = orbits.concat();
    if cells.len() == all.len() {
        return best;
    }
    let all_exchanged: BigUint = alone.iter().map(|a| &a.1).product();
    best.max(bound(&all, &all_exchanged))
}

/// The exact number of boards, or `None` when it passes 64 bits or cannot be counted.
pub(crate) fn exact_boards(puzzle: &Puzzle, analysis: &Analysis) -> Option<u64> {
    count_boards(puzzle, analysis)?.ok().and_then(|n| u64::try_from(&n).ok())
}

/// The exact number of boards at any size: each element of `K` tested where it is small (a
/// sift each: the lockstep test's 65,536 in milliseconds, where its cosets take seconds),
/// else from the group's cosets that `K` meets ([`distinct_boards`]), or why they cannot be
/// counted; `None` where `K` is large and the puzzle no definition.
pub fn count_boards(puzzle: &Puzzle, analysis: &Analysis) -> Option<Result<BigUint, String>> {
    match SameBoard::of(puzzle, analysis) {
        Some(same) => Some(Ok(by_testing_each(&same, analysis))),
        None => puzzle.defined().map(distinct_boards),
    }
}

/// The boards, each element of `K` tested for membership in the group.
fn by_testing_each(same: &SameBoard, analysis: &Analysis) -> BigUint {
    let mut in_group = 0u64;
    same.any(|p| {
        in_group += u64::from(analysis.chain.contains(p));
        false
    });
    &analysis.group_order / in_group
}

/// The boards from the group's cosets that `K` meets, for `K` too large to test element by
/// element (`src/group/relabel_cosets.rs`), or `None` when they are too many to list.
pub(crate) fn by_cosets(puzzle: &Puzzle) -> Option<BigUint> {
    distinct_boards(puzzle.defined()?).ok()
}

/// The distinct boards of a definition with identical pieces, from the group's cosets that
/// `K` meets, or why they cannot be counted. Kept for the process: `info` prints the count
/// and the ranking asks for it again, each time seconds on the eliac (3.5 s) and the
/// arecibo (9 s to fail).
pub fn distinct_boards(d: &Defined) -> Result<BigUint, String> {
    type Counted = Vec<(Defined, Result<BigUint, String>)>;
    static COUNTED: Mutex<Counted> = Mutex::new(Vec::new());
    let known = |c: &Counted| c.iter().find(|(k, _)| k == d).map(|(_, r)| r.clone());
    if let Some(r) = known(&COUNTED.lock().unwrap_or_else(|e| e.into_inner())) {
        return r;
    }
    let a = WideAnalysis::of(d).map_err(|e| e.to_string())?;
    let r = a.identical(d).map(|i| i.distinct_boards(&a));
    COUNTED.lock().unwrap_or_else(|e| e.into_inner()).push((d.clone(), r.clone()));
    r
}

/// The maps `K` (see the module docs) as the chain's points `cell * k + orientation` see
/// them.
#[derive(Debug)]
pub(crate) struct SameBoard {
    /// Cells holding the same piece (label and seen orientation) in one orbit.
    classes: Vec<Vec<usize>>,
    /// Cells whose piece's orientation is not seen: any turn leaves the board as it is.
    unseen: Vec<usize>,
    k: usize,
    n_cells: usize,
    solved: Board,
    orbit_of: Vec<u8>,
}

impl SameBoard {
    /// `K`, or `None` when it has more than [`MAX_SAME`] elements.
    pub(crate) fn of(puzzle: &Puzzle, analysis: &Analysis) -> Option<SameBoard> {
        let solved = puzzle.solved();
        let k = puzzle.orient_mod as usize;
        let unseen_label = |t: u8| {
            puzzle.defined().is_some_and(|d| d.unseen_orientations().get(t as usize) == Some(&true))
        };
        let mut classes: Vec<((u8, u8, u8), Vec<usize>)> = Vec::new();
        let mut unseen = Vec::new();
        for c in 0..puzzle.n_positions() {
            let t = solved.tiles[c];
            let hidden = unseen_label(t);
            if hidden {
                unseen.push(c);
            }
            let orient = if hidden { u8::MAX } else { solved.orient[c] };
            let key = (analysis.invariants.orbit_of[c], t, orient);
            match classes.iter_mut().find(|(k, _)| *k == key) {
                Some((_, cells)) => cells.push(c),
                None => classes.push((key, vec![c])),
            }
        }
        let classes: Vec<Vec<usize>> =
            classes.into_iter().map(|(_, cells)| cells).filter(|c| c.len() > 1).collect();
        let mut size = (k as u64).checked_pow(unseen.len() as u32)?;
        for class in &classes {
            for i in 2..=class.len() as u64 {
                size = size.checked_mul(i)?;
            }
        }
        (size <= MAX_SAME).then(|| SameBoard {
            classes,
            unseen,
            k,
            n_cells: puzzle.n_positions(),
            solved,
            orbit_of: analysis.invariants.orbit_of.clone(),
        })
    }

    /// Whether the moves reach `board`: some naming of its alike pieces makes it an element
    /// of the group (`chain`). One naming is made; the others are it after an element of
    /// `K`.
    pub(crate) fn reaches(&self, chain: &StabChain, board: &Board) -> bool {
        let k = self.k;
        let mut homes_left = vec![true; self.n_cells];
        let mut named = vec![0u16; self.n_cells * k];
        for (cell, (&label, &turn)) in board.tiles.iter().zip(&board.orient).enumerate() {
            let home = (0..self.n_cells).find(|&h| {
                homes_left[h]
                    && self.solved.tiles[h] == label
                    && self.orbit_of[h] == self.orbit_of[cell]
            });
            let Some(home) = home else { return false };
            homes_left[home] = false;
            let twist = (turn as usize + k - self.solved.orient[home] as usize % k) % k;
            for j in 0..k {
                named[home * k + j] = (cell * k + (j + twist) % k) as u16;
            }
        }
        let mut product = vec![0u16; named.len()];
        self.any(|same| {
            for (x, &y) in product.iter_mut().zip(same) {
                *x = named[y as usize];
            }
            chain.contains(&product)
        })
    }

    /// Calls `f` on every element of `K` until it returns true; whether one did.
    fn any(&self, mut f: impl FnMut(&[u16]) -> bool) -> bool {
        let orders: Vec<Vec<Vec<u8>>> =
            self.classes.iter().map(|c| permutations(c.len())).collect();
        // An odometer over every class's permutations, then every unseen cell's turn.
        let mut digits = vec![0usize; orders.len() + self.unseen.len()];
        let radix = |i: usize| match i < orders.len() {
            true => orders[i].len(),
            false => self.k,
        };
        let mut target: Vec<usize> = (0..self.n_cells).collect();
        let mut turn = vec![0usize; self.n_cells];
        let mut point = vec![0u16; self.n_cells * self.k];
        loop {
            for (class, (order, &d)) in self.classes.iter().zip(orders.iter().zip(&digits)) {
                for (i, &c) in class.iter().enumerate() {
                    target[c] = class[order[d][i] as usize];
                }
            }
            for (&c, &t) in self.unseen.iter().zip(&digits[orders.len()..]) {
                turn[c] = t;
            }
            for c in 0..self.n_cells {
                for o in 0..self.k {
                    point[c * self.k + o] = (target[c] * self.k + (o + turn[c]) % self.k) as u16;
                }
            }
            if f(&point) {
                return true;
            }
            // Next element: the first digit that does not wrap, the ones before it reset.
            let Some(i) = (0..digits.len()).find(|&i| digits[i] + 1 < radix(i)) else {
                return false;
            };
            digits[i] += 1;
            digits[..i].fill(0);
        }
    }
}

/// Every permutation of `0..n` (each of `n - 1`'s with `n - 1` put in every place).
pub(crate) fn permutations(n: usize) -> Vec<Vec<u8>> {
    if n == 0 {
        return vec![vec![]];
    }
    let mut out = Vec::new();
    for p in permutations(n - 1) {
        for i in 0..=p.len() {
            let mut q = p.clone();
            q.insert(i, (n - 1) as u8);
            out.push(q);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bound from projections beats the group's order over every exchange where
    /// identical pieces are tied to distinct ones: the twins' A and B move alike, so A alone
    /// shows all 24 boards, where 24 elements over B's 4 exchanges say 6; likewise the
    /// twins and rings (A, C and D show all 13,824, the group's order over 4 says 3,456).
    #[test]
    fn projections_bound_the_boards_from_below() {
        use crate::group::analysis::Analysis;
        use crate::rank::test_puzzles::{TWINS, TWINS_AND_RINGS, defined};
        for (text, boards, fewest) in [(TWINS, 24u32, 6u32), (TWINS_AND_RINGS, 13_824, 3_456)] {
            let p = defined(text);
            let analysis = Analysis::of(&p).unwrap();
            let bound = fewest_boards_by_projections(&p);
            assert_eq!(BigUint::from(exact_boards(&p, &analysis).unwrap()), BigUint::from(boards));
            assert_eq!(fewest_boards(&p, &analysis), BigUint::from(fewest));
            // Here some orbits show every board: the bound is exact.
            assert_eq!(bound, BigUint::from(boards));
        }
    }

    /// Counting by the cosets that `K` meets gives what testing each element of `K` gives,
    /// on groups smaller than their invariants with identical pieces inside their hidden
    /// coupling (T), beside it (P) and unseen turns.
    #[test]
    fn cosets_count_what_testing_each_exchange_counts() {
        use crate::group::analysis::Analysis;
        use crate::rank::test_puzzles::defined;
        let text = include_str!("../../data/definitions/smaller_group.tws");
        let (t, p) = ("T\n1 2 3 4 5 6\n", "P\n1 2 3 4\n");
        for (from, to, boards) in [
            (t, "T\n1 1 2 2 3 3\n", 1_399_680u32),
            (t, "T\n1 1 1 2 2 2\n", 933_120),
            (p, "P\n1 1 2 3\n? ? 0 0\n", 311_040),
        ] {
            let puzzle = defined(&text.replace(from, to));
            let analysis = Analysis::of(&puzzle).unwrap();
            let same = SameBoard::of(&puzzle, &analysis).unwrap();
            assert_eq!(by_testing_each(&same, &analysis), BigUint::from(boards), "{to}");
            assert_eq!(by_cosets(&puzzle), Some(BigUint::from(boards)), "{to}");
        }
    }

    #[test]
    fn permutations_are_all_distinct() {
        let p = permutations(4);
        assert_eq!(p.len(), 24);
        let mut sorted = p.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), 24);
    }
}
