//! Lam's Theorem 1.1 ("Solution to the Number Rotation Puzzle") against exact counts.
//!
//! For every NRP board `n <= m <= max`, `1 <= b <= n`, the count the theorem states is encoded
//! case by case *as written* (the case is named), then compared with the exact order of the
//! group the block turns generate (a stabilizer chain) and, where the group is small enough,
//! with the number of boards a full search reaches. Boards past the 255 cells of twirl's
//! puzzles take the chain of their block turns alone ([`LargeNrp::chain_order`]), searched
//! by no table. A disagreement is a finding to report; the
//! encoding is not adjusted to make one vanish.

use num_bigint::BigUint;

use crate::bfs::{Config, NoProgress, run, search_puzzle};
use crate::group::analysis::{Analysis, self_verified_order};
use crate::group::invariants::factorial;
use crate::puzzle::large::LargeNrp;
use crate::puzzle::spec::MAX_CELLS;
use crate::puzzle::{Metric, Puzzle, PuzzleSpec};
use crate::rank::{Enumerated, StateSpace};
use crate::table::DistanceTable;

/// One board of the sweep.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LamRow {
    /// Rows (`n`).
    pub rows: usize,
    /// Columns (`m`).
    pub cols: usize,
    /// Block side (`b`).
    pub block: usize,
    /// The case of Theorem 1.1 that applies, in its words.
    pub theorem_case: String,
    /// The number of solvable boards the theorem states.
    pub theorem_count: BigUint,
    /// The exact number of solvable boards.
    pub group_order: BigUint,
    /// The number of boards a full search reached, if one was run.
    pub bfs_count: Option<u64>,
}

impl LamRow {
    /// Whether the theorem, the group order and the search (if run) all agree.
    pub fn agrees(&self) -> bool {
        self.theorem_count == self.group_order
            && self.bfs_count.is_none_or(|c| BigUint::from(c) == self.group_order)
    }

    /// How the theorem's count relates to the exact one: `theorem = 2 x exact`, `exact = 3 x
    /// theorem`, or the plain fraction when neither divides the other.
    pub fn ratio(&self) -> String {
        let (t, g) = (&self.theorem_count, &self.group_order);
        if *g > BigUint::ZERO && (t % g) == BigUint::ZERO {
            format!("theorem = {} x exact", t / g)
        } else if *t > BigUint::ZERO && (g % t) == BigUint::ZERO {
            format!("exact = {} x theorem", g / t)
        } else {
            format!("theorem / exact = {t} / {g}")
        }
    }
}

/// The case of Theorem 1.1 for `(n, m, b)` and the count it states, as written: `b = n = m`
/// first, then by `b`; "correct parity set" = every number on its own checkerboard colour.
pub fn theorem_1_1(n: usize, m: usize, b: usize) -> (String, BigUint) {
    let cells = n * m;
    let colours = factorial(cells.div_ceil(2)) * factorial(cells / 2);
    let pair = (n.min(m), n.max(m));
    match b {
        _ if b == n && n == m => ("b = n = m: the four rotations".into(), BigUint::from(4u32)),
        1 => ("b = 1: only the solved board".into(), BigUint::from(1u32)),
        2 if pair == (2, 3) => ("b = 2, (m,n) = (2,3): 120 boards".into(), BigUint::from(120u32)),
        2 => ("b = 2, otherwise: all boards".into(), factorial(cells)),
        3 if pair == (3, 4) => ("b = 3, (m,n) = (3,4): 6! boards".into(), factorial(6)),
        3 => ("b = 3, otherwise: numbers in their correct parity set".into(), colours),
        _ => match b % 8 {
            2 | 6 => ("b >= 4, b = 2,6 mod 8: all boards".into(), factorial(cells)),
            0 | 4 => ("b >= 4, b = 0,4 mod 8: even permutations".into(), factorial(cells) / 2u32),
            3 | 5 => {
                ("b >= 4, b = 3,5 mod 8: even, numbers on their parity".into(), colours / 2u32)
            }
            _ => ("b >= 4, b = 1,7 mod 8: each parity even".into(), colours / 4u32),
        },
    }
}

/// The sweep over `n <= m <= max`, `1 <= b <= n`, searching every board whose group has at
/// most `bfs_limit` elements.
pub fn sweep(max: usize, bfs_limit: u64, threads: usize) -> crate::Result<Vec<LamRow>> {
    let mut rows = Vec::new();
    for (n, m, b) in boards(max) {
        let (theorem_case, theorem_count) = theorem_1_1(n, m, b);
        let (group_order, bfs_count) = if n * m > MAX_CELLS {
            // Past the boards a puzzle holds: the chain of the block turns alone.
            (LargeNrp::new(n, m, b, false)?.chain_order()?, None)
        } else {
            let spec = PuzzleSpec::Nrp { rows: n, cols: m, block: b, oriented: false };
            let puzzle = Puzzle::new(&spec, Metric::Qtm)?;
            let analysis = Analysis::of(&puzzle).ok();
            let group_order = exact_order(&puzzle, analysis.as_ref());
            let bfs_count = if group_order <= BigUint::from(bfs_limit) {
                Some(search_count(&puzzle, analysis, threads)?)
            } else {
                None
            };
            (group_order, bfs_count)
        };
        rows.push(LamRow {
            rows: n,
            cols: m,
            block: b,
            theorem_case,
            theorem_count,
            group_order,
            bfs_count,
        });
    }
    Ok(rows)
}

/// Every NRP board `(n, m, b)` with `n <= m <= max`, `1 <= b <= n`.
fn boards(max: usize) -> impl Iterator<Item = (usize, usize, usize)> {
    (1..=max).flat_map(move |n| (n..=max).flat_map(move |m| (1..=n).map(move |b| (n, m, b))))
}

/// The exact group order, from the analysis when the invariants could be indexed.
fn exact_order(puzzle: &Puzzle, analysis: Option<&Analysis>) -> BigUint {
    analysis.map_or_else(|| self_verified_order(puzzle), |a| a.group_order.clone())
}

/// The number of boards a full search reaches. Boards whose invariants are too many to index
/// (b = n = m on large boards: dozens of 4-cell orbits) have tiny groups: list them.
fn search_count(puzzle: &Puzzle, analysis: Option<Analysis>, threads: usize) -> crate::Result<u64> {
    let config = Config::new(threads);
    let space = analysis
        .ok_or_else(|| crate::Error::Unsupported("the invariants cannot be indexed".into()))
        .and_then(|a| StateSpace::from_analysis(puzzle, a));
    match space {
        Ok(space) => {
            let table = DistanceTable::in_memory(space.n_states())?;
            Ok(search_puzzle(puzzle, &space, &table, &config, &NoProgress)?.states())
        }
        Err(crate::Error::Unsupported(_)) => {
            let listed = Enumerated::new(puzzle)?;
            let table = DistanceTable::in_memory(listed.n_states())?;
            let start =
                listed.rank_of(&puzzle.solved()).expect("the solved board is listed") as u64;
            Ok(run(&listed, start, &table, &config, &NoProgress)?.states())
        }
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_sweep() {
        let rows = sweep(4, 1_000_000, 2).unwrap();
        let find = |n, m, b| rows.iter().find(|r| (r.rows, r.cols, r.block) == (n, m, b)).unwrap();
        assert!(find(2, 3, 2).agrees());
        assert_eq!(find(3, 4, 3).group_order, BigUint::from(720u32));
        assert!(find(3, 4, 3).agrees());
        assert_eq!(find(2, 4, 2).bfs_count, Some(40320));
        // (4,4,3): the theorem as written counts every board with numbers on their own colour
        // (8!*8!); the moves reach half of them (sections 5.5-5.6 add the parity condition).
        let r = find(4, 4, 3);
        assert_eq!(r.group_order, BigUint::from(812_851_200u64));
        assert_eq!(r.theorem_count, BigUint::from(812_851_200u64 * 2));
        assert!(!r.agrees());
    }

    #[test]
    fn boards_past_255_cells_are_compared_with_their_chains() {
        // 16x16 is the only shape of the sweep to 16 past 255 cells: every b agrees with the
        // theorem but b = 3, whose count as written is twice the exact one.
        let rows = sweep(16, 0, 2).unwrap();
        let large: Vec<&LamRow> = rows.iter().filter(|r| r.rows * r.cols > MAX_CELLS).collect();
        assert_eq!(large.len(), 16);
        for r in large {
            assert_eq!(r.agrees(), r.block != 3, "(16,16,{}): {}", r.block, r.ratio());
            assert_eq!(r.bfs_count, None);
        }
        let r = rows.iter().find(|r| (r.rows, r.cols, r.block) == (16, 16, 3)).unwrap();
        assert_eq!(r.ratio(), "theorem = 2 x exact");
    }
}

/// One board of the orientation sweep (Lam leaves the orientation variant open).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrientRow {
    /// Rows.
    pub rows: usize,
    /// Columns.
    pub cols: usize,
    /// Block side.
    pub block: usize,
    /// The exact number of solvable boards when tiles turn with their block.
    pub group_order: BigUint,
    /// `(nm)! * 4^(nm)` (every arrangement, every orientation) divided by the group order.
    pub index: BigUint,
}

/// The orientation variant on every board `n <= m <= max`, `1 <= b <= n`.
pub fn orientation_sweep(max: usize) -> crate::Result<Vec<OrientRow>> {
    let mut rows = Vec::new();
    for (n, m, b) in boards(max) {
        let group_order = if n * m > MAX_CELLS {
            LargeNrp::new(n, m, b, true)?.chain_order()?
        } else {
            let spec = PuzzleSpec::Nrp { rows: n, cols: m, block: b, oriented: true };
            let puzzle = Puzzle::new(&spec, Metric::Qtm)?;
            exact_order(&puzzle, Analysis::of(&puzzle).ok().as_ref())
        };
        let all = factorial(n * m) << (2 * n * m);
        let index = &all / &group_order;
        debug_assert_eq!(&index * &group_order, all);
        rows.push(OrientRow { rows: n, cols: m, block: b, group_order, index });
    }
    Ok(rows)
}

#[cfg(test)]
mod orientation_tests {
    use super::*;

    /// The pattern the sweep shows (see the stop note): orientation multiplies the plain group
    /// by 2^(nm-1) for even b and by 2^(2nm-1) for odd b >= 3, below b = n = m.
    #[test]
    fn orientation_orders_follow_the_block_parity() {
        let plain = sweep(4, 0, 1).unwrap();
        for r in orientation_sweep(4).unwrap() {
            let (n, m, b) = (r.rows, r.cols, r.block);
            let p =
                &plain.iter().find(|q| (q.rows, q.cols, q.block) == (n, m, b)).unwrap().group_order;
            let expected = match b {
                _ if b == n && n == m => BigUint::from(4u32),
                1 => BigUint::from(1u32) << (2 * n * m),
                _ if b % 2 == 0 => p << (n * m - 1),
                _ => p << (2 * n * m - 1),
            };
            assert_eq!(r.group_order, expected, "({n},{m},{b})");
        }
    }
}
