//! The number of boards of a puzzle with identical pieces, whose boards are not group
//! elements: by the orbit-stabilizer theorem, the group's order over the order of its
//! subgroup that leaves the solved board as it is. That subgroup lies in `K`, the maps that
//! exchange identical pieces within an orbit and turn pieces whose orientation nobody sees;
//! where `K` is small (the 235 cuboid's four), each of its elements is tested for membership
//! in the group by the stabilizer chain.

use num_bigint::BigUint;

use crate::group::analysis::Analysis;
use crate::puzzle::Puzzle;

/// Most elements of `K` tested one by one (a sift each, a microsecond or so).
const MAX_SAME: u64 = 1 << 18;

/// A lower bound on the boards: `group_order / |K|`, the group meeting `K` in at most `|K|`
/// elements, each board standing for that many.
pub(crate) fn fewest_boards(puzzle: &Puzzle, analysis: &Analysis) -> u64 {
    let solved = puzzle.solved();
    let mut same = BigUint::from(1u32);
    let mut labels: Vec<u8> = solved.tiles.clone();
    labels.sort_unstable();
    for run in labels.chunk_by(|a, b| a == b) {
        same *= crate::group::invariants::factorial(run.len());
    }
    if let Some(d) = puzzle.defined() {
        for _ in d.unseen_orientations().iter().filter(|&&u| u) {
            same *= analysis.invariants.orient_mod;
        }
    }
    u64::try_from(&analysis.group_order / same).unwrap_or(u64::MAX)
}

/// The exact number of boards, or `None` when `K` has more than [`MAX_SAME`] elements or
/// the count passes 64 bits.
pub(crate) fn exact_boards(puzzle: &Puzzle, analysis: &Analysis) -> Option<u64> {
    let same = SameBoard::of(puzzle, analysis)?;
    let in_group = same.count_in(|p| analysis.chain.contains(p));
    u64::try_from(&analysis.group_order / in_group).ok()
}

/// The maps `K` (see the module docs) as the chain's points `cell * k + orientation` see
/// them.
struct SameBoard {
    /// Cells holding the same piece (label and seen orientation) in one orbit.
    classes: Vec<Vec<usize>>,
    /// Cells whose piece's orientation is not seen: any turn leaves the board as it is.
    unseen: Vec<usize>,
    k: usize,
    n_cells: usize,
}

impl SameBoard {
    fn of(puzzle: &Puzzle, analysis: &Analysis) -> Option<SameBoard> {
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
        (size <= MAX_SAME).then_some(SameBoard {
            classes,
            unseen,
            k,
            n_cells: puzzle.n_positions(),
        })
    }

    /// The number of elements of `K` that `in_group` accepts.
    fn count_in(&self, in_group: impl Fn(&[u16]) -> bool) -> u64 {
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
        let mut count = 0;
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
            count += u64::from(in_group(&point));
            // Next element: the first digit that does not wrap, the ones before it reset.
            let Some(i) = (0..digits.len()).find(|&i| digits[i] + 1 < radix(i)) else {
                return count;
            };
            digits[i] += 1;
            digits[..i].fill(0);
        }
    }
}

/// Every permutation of `0..n`.
fn permutations(n: usize) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut current: Vec<u8> = Vec::with_capacity(n);
    fn extend(n: usize, current: &mut Vec<u8>, out: &mut Vec<Vec<u8>>) {
        if current.len() == n {
            out.push(current.clone());
            return;
        }
        for x in 0..n as u8 {
            if !current.contains(&x) {
                current.push(x);
                extend(n, current, out);
                current.pop();
            }
        }
    }
    extend(n, &mut current, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
