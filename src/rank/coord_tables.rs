//! Per-move tables on coordinates: where a ranking's rank is a mixed-radix number of digits
//! each of which only some cells decide, and every move maps those cells among themselves
//! (an orbit's arrangement of identical pieces, with no parity or orientation tying it to
//! the others), a move changes each digit by itself: one table per move and digit gives the
//! neighbour's digits without building the board. The search then walks digits, not boards
//! (twsearch's coordinates; nissy's `coord_t`).
//!
//! The ranks are the ranking's own (the same digits and weights), so tables and files made
//! either way are one.

use std::sync::OnceLock;

use rayon::prelude::*;

use super::layout::Power;
use super::runs::{CellRuns, OffsetTable, RunMove};
use super::{StateRanking, spread_sample};

/// Most digits a state holds.
pub const MAX_COORDS: usize = 8;
/// Most table entries (digits of every coordinate, for every move, both directions), four
/// bytes each, whatever the search's table.
const MAX_ENTRIES: u64 = 1 << 24;
/// Where the search's table is large, the digit tables may take up to this share of its
/// bytes, at most [`MAX_LARGE_ENTRIES`]: the FTO's centres (two digits of 369,600 values, 16
/// moves: 23.7 million entries, 95 MB) beside a table of 34 GB, or classes of 1.4 GB.
const LARGE_SHARE: u64 = 16;
const MAX_LARGE_ENTRIES: u64 = 1 << 27;

/// The most entries (four bytes each) that tables beside a search of `n_states` ranks may
/// take: the digit tables here, the runs' offset tables of classes of digits.
pub(crate) fn most_entries_beside(n_states: u64) -> u64 {
    let table_bytes = n_states / 4;
    MAX_ENTRIES.max((table_bytes / LARGE_SHARE / 4).min(MAX_LARGE_ENTRIES))
}

/// A board as its digits, most significant first.
pub type Digits = [u32; MAX_COORDS];

/// The per-move digit tables of a ranking (see the module docs).
#[derive(Clone, Debug)]
pub struct CoordTables {
    radices: Vec<u64>,
    /// `weights[j]`: the place value of digit `j`.
    weights: Vec<u64>,
    n_states: u64,
    n_moves: usize,
    /// `offsets[j]`: where digit `j`'s values start in a move's table.
    offsets: Vec<usize>,
    /// Per move, the digits' tables one after another: `solve[m][offsets[j] + d]`, two
    /// bytes a value where all fit (the 233's ten moves: 3.2 MB against 6.5).
    solve: Vec<OffsetTable>,
    scramble: Vec<OffsetTable>,
    /// Every move maps the runs of the last digit (ranks that differ in it alone) onto runs,
    /// by that digit's table: the search walks them as it walks an NRP board's cell runs.
    /// None for a single digit, whose one run would put every rank in one process's share.
    /// Made when first asked for: classes of digits make their own.
    runs: OnceLock<Option<CellRuns>>,
    /// Per move, whether its tables were composed from another's ([`Power`]).
    is_power: Vec<bool>,
}

/// Sampled boards on which the checks of the tables (and of symmetries moving their digits)
/// take a move that is a power of another: it acts digit by digit when its base does, and its
/// tables are composed exactly from the base's, which every sampled board checks.
const POWER_SAMPLES: u64 = 256;

impl CoordTables {
    /// The tables of `ranking`, whose ranks must be the mixed-radix numbers of digits with
    /// these radices (most significant first), each digit moved by every move on its own.
    /// `None` when the tables would be too large, or when a sample of boards shows a move
    /// that does not act digit by digit (the tables would give wrong neighbours).
    ///
    /// A move that is a power of another (`powers[m]`, as
    /// [`CellMoves::powers`](super::layout::CellMoves::powers) finds them;
    /// an empty list for none) gets its tables by applying the other's `times` times, digit by
    /// digit: puzzlerchallenger's R2, R3, R2' and R' (and the L's) are R's, where each entry
    /// took a board unranked, moved and ranked.
    pub fn new<R: StateRanking>(
        ranking: &R,
        radices: &[u64],
        powers: &[Option<Power>],
    ) -> Option<CoordTables> {
        let k = radices.len();
        let sum: u64 = radices.iter().sum();
        let n_moves = ranking.n_moves();
        let most = most_entries_beside(ranking.n_states());
        if k == 0 || k > MAX_COORDS || sum * 2 * n_moves as u64 > most {
            return None;
        }
        if radices.iter().any(|&r| r > u32::MAX as u64) {
            return None;
        }
        let mut weights = vec![1u64; k];
        for j in (0..k - 1).rev() {
            weights[j] = weights[j + 1].checked_mul(radices[j + 1])?;
        }
        let n_states = weights[0].checked_mul(radices[0])?;
        if n_states != ranking.n_states() {
            return None;
        }
        let mut offsets = Vec::with_capacity(k);
        let mut at = 0usize;
        for &r in radices {
            offsets.push(at);
            at += r as usize;
        }
        let digit = |rank: u64, j: usize| (rank / weights[j] % radices[j]) as u32;
        // The moves that are no power of another, on each digit's values in parallel: a
        // value's board is unranked once for all of them (half the cost of a step). The
        // undoing direction's tables are then the solving ones inverted (a move maps each
        // digit's values one to one).
        let power_of = |m: usize| powers.get(m).copied().flatten();
        let base: Vec<usize> = (0..n_moves).filter(|&m| power_of(m).is_none()).collect();
        let images: Vec<u32> = (0..at)
            .into_par_iter()
            .flat_map_iter(|i| {
                let j = offsets.partition_point(|&o| o <= i) - 1;
                let board = ranking.unrank((i - offsets[j]) as u64 * weights[j]);
                base.iter().map(move |&m| digit(ranking.rank(&ranking.solve_step(&board, m)), j))
            })
            .collect();
        let mut solve = vec![Vec::new(); n_moves];
        for (b, &m) in base.iter().enumerate() {
            solve[m] = images.iter().skip(b).step_by(base.len()).copied().collect();
        }
        // Gone before the undoing tables are made: the largest puzzles' take tens of MB.
        drop(images);
        let walks: Vec<Vec<(usize, Vec<u32>)>> = base
            .par_iter()
            .map(|&b| {
                let powers: Vec<(usize, u32)> = (0..n_moves)
                    .filter_map(|m| power_of(m).filter(|p| p.base == b).map(|p| (m, p.times)))
                    .collect();
                powers_by_walks(&solve[b], &offsets, radices, &powers)
            })
            .collect();
        for (m, t) in walks.into_iter().flatten() {
            solve[m] = t;
        }
        // Tables of a hundred thousand values or more (the FTO's centres: 23.7 million
        // entries) are inverted and narrowed a move to a thread.
        let scramble: Option<Vec<OffsetTable>> = solve
            .par_iter()
            .map(|t| inverse_by_digit(t, &offsets, radices).map(OffsetTable::new))
            .collect();
        let scramble = scramble?;
        let solve: Vec<OffsetTable> = solve.into_par_iter().map(OffsetTable::new).collect();
        let tables = CoordTables {
            solve,
            scramble,
            runs: OnceLock::new(),
            radices: radices.to_vec(),
            weights,
            n_states,
            n_moves,
            offsets,
            is_power: (0..n_moves).map(|m| power_of(m).is_some()).collect(),
        };
        tables.agrees_with(ranking).then_some(tables)
    }

    /// The digits' radices, most significant first.
    pub fn radices(&self) -> &[u64] {
        &self.radices
    }

    /// Where move `m` (solving, or undoing when `solve` is false) takes each value of digit
    /// `j`.
    pub fn digit_table(&self, solve: bool, m: usize, j: usize) -> Vec<u32> {
        self.digit_offsets(solve, m, j).to_numbers()
    }

    /// [`CoordTables::digit_table`], sharing these tables' memory.
    pub fn digit_offsets(&self, solve: bool, m: usize, j: usize) -> OffsetTable {
        let t = if solve { &self.solve[m] } else { &self.scramble[m] };
        t.part(self.offsets[j], self.radices[j] as usize)
    }

    /// The last digit's runs (the `runs` field): each move's table of that digit, as
    /// offsets within a run (one parity: runs have no sign).
    fn last_digit_runs(&self) -> Option<CellRuns> {
        let k = self.radices.len();
        let run_moves = |solve: bool| -> Vec<RunMove> {
            (0..self.n_moves)
                .map(|index| RunMove {
                    index,
                    offsets: vec![self.digit_offsets(solve, index, k - 1)],
                    by_run: Vec::new(),
                })
                .collect()
        };
        (k >= 2).then(|| CellRuns {
            then: Vec::new(),
            shared: Vec::new(),
            by_run_span: 1,
            len: self.radices[k - 1],
            classes: 1,
            solve: run_moves(true),
            scramble: run_moves(false),
            rest: Vec::new(),
            cells: Vec::new(),
        })
    }

    /// Whether sampled board `sample` of a check takes move `m`: every board a move whose
    /// tables were built, the first [`POWER_SAMPLES`] a power of another (where the
    /// ranking's own steps and ranks on every board were a fifth of puzzlerchallenger's run).
    pub(crate) fn checks_move_on(&self, m: usize, sample: u64) -> bool {
        sample < POWER_SAMPLES || !self.is_power[m]
    }

    /// Whether the tables give the ranking's own neighbours on a spread of boards
    /// (pseudo-random: every digit in play), powers of moves on fewer
    /// ([`CoordTables::checks_move_on`]).
    fn agrees_with<R: StateRanking>(&self, ranking: &R) -> bool {
        const SAMPLES: u64 = 4096;
        (0..SAMPLES.min(self.n_states)).into_par_iter().all(|i| {
            let rank = spread_sample(i, self.n_states);
            let (board, digits) = (ranking.unrank(rank), self.unrank(rank));
            (0..self.n_moves).filter(|&m| self.checks_move_on(m, i)).all(|m| {
                let solve = ranking.rank(&ranking.solve_step(&board, m));
                let scramble = ranking.rank(&ranking.scramble_step(&board, m));
                solve == self.rank(&self.solve_step(&digits, m))
                    && scramble == self.rank(&self.scramble_step(&digits, m))
            })
        })
    }

    #[inline(always)]
    fn step(&self, tables: &[OffsetTable], s: &Digits, m: usize) -> Digits {
        match &tables[m] {
            OffsetTable::Narrow(t) => self.step_in(&t[..], s),
            OffsetTable::Wide(t) => self.step_in(&t[..], s),
        }
    }

    #[inline(always)]
    fn step_in<T: Copy + Into<u32>>(&self, t: &[T], s: &Digits) -> Digits {
        let mut out = [0u32; MAX_COORDS];
        for (j, (o, &d)) in out.iter_mut().zip(s).enumerate().take(self.radices.len()) {
            *o = t[self.offsets[j] + d as usize].into();
        }
        out
    }
}

/// The tables of the powers `(move, times)` of one move whose table is `step`, digit by
/// digit (`offsets` and `radices` as in [`CoordTables`]): each value is walked once through
/// the highest power, each power's entry written as the walk passes it (R, R2, R3, R2' and
/// R' of puzzlerchallenger took 15 steps a value one power at a time, 5 so).
fn powers_by_walks(
    step: &[u32],
    offsets: &[usize],
    radices: &[u64],
    powers: &[(usize, u32)],
) -> Vec<(usize, Vec<u32>)> {
    let most = powers.iter().map(|&(_, t)| t as usize).max().unwrap_or(0);
    // `power_at[t]`: the first power made by `t` steps, if one is asked for.
    let mut power_at = vec![None; most + 1];
    for (p, &(_, t)) in powers.iter().enumerate() {
        power_at[t as usize].get_or_insert(p);
    }
    let mut tables = vec![vec![0u32; step.len()]; powers.len()];
    for (&o, &r) in offsets.iter().zip(radices) {
        for d in 0..r as usize {
            let mut x = d as u32;
            for &p in &power_at[1..] {
                x = step[o + x as usize];
                if let Some(p) = p {
                    tables[p][o + d] = x;
                }
            }
        }
    }
    // Two moves that are the same power (R2 and R2' of a move of order 4) share the walk.
    for (p, &(_, t)) in powers.iter().enumerate() {
        if let Some(first) = power_at[t as usize].filter(|&f| f != p) {
            tables[p] = tables[first].clone();
        }
    }
    powers.iter().map(|&(m, _)| m).zip(tables).collect()
}

/// The table undoing `table` digit by digit, or `None` where it maps two values of a digit
/// onto one.
fn inverse_by_digit(table: &[u32], offsets: &[usize], radices: &[u64]) -> Option<Vec<u32>> {
    let mut back = vec![u32::MAX; table.len()];
    for (&o, &r) in offsets.iter().zip(radices) {
        for d in 0..r as usize {
            back[o + table[o + d] as usize] = d as u32;
        }
    }
    (!back.contains(&u32::MAX)).then_some(back)
}

impl StateRanking for CoordTables {
    type State = Digits;
    fn n_states(&self) -> u64 {
        self.n_states
    }
    fn n_moves(&self) -> usize {
        self.n_moves
    }
    #[inline(always)]
    fn rank(&self, s: &Digits) -> u64 {
        s.iter().zip(&self.weights).map(|(&d, &w)| d as u64 * w).sum()
    }
    #[inline(always)]
    fn unrank(&self, mut rank: u64) -> Digits {
        let mut out = [0u32; MAX_COORDS];
        for j in (0..self.radices.len()).rev() {
            out[j] = (rank % self.radices[j]) as u32;
            rank /= self.radices[j];
        }
        out
    }
    #[inline(always)]
    fn solve_step(&self, s: &Digits, m: usize) -> Digits {
        self.step(&self.solve, s, m)
    }
    #[inline(always)]
    fn scramble_step(&self, s: &Digits, m: usize) -> Digits {
        self.step(&self.scramble, s, m)
    }
    fn cell_runs(&self) -> Option<&CellRuns> {
        self.runs.get_or_init(|| self.last_digit_runs()).as_ref()
    }
    /// The run's first board with its last digit set to the offset (no move is left to
    /// take a board from a run, but the engine may ask).
    fn unrank_in_run(&self, bases: &[Digits], _parity: usize, offset: u64) -> Digits {
        let mut out = bases[0];
        out[self.radices.len() - 1] = offset as u32;
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bfs::{self, Config, NoProgress};
    use crate::puzzle::{Metric, Puzzle, PuzzleSpec, defined::Defined, definition::Definition};
    use crate::rank::{Ranking, StateSpace};
    use crate::table::DistanceTable;

    fn defined(text: &str) -> Puzzle {
        let d = Defined::new("test.tws", Definition::parse(text).unwrap()).unwrap();
        Puzzle::new(&PuzzleSpec::Def(std::sync::Arc::new(d)), Metric::Htm).unwrap()
    }

    /// Each power's table is its move's table applied `times` times, digit by digit, two
    /// moves that are the same power included; inverses undo their tables.
    #[test]
    fn powers_walked_once_are_the_tables_composed() {
        // Two digits: a 5-cycle on five values, a swap and a fixed value on three.
        let (offsets, radices) = (vec![0, 5], vec![5, 3]);
        let step = vec![1, 2, 3, 4, 0, 1, 0, 2];
        let powers = [(3, 2), (4, 4), (6, 2), (9, 1)];
        let walked = powers_by_walks(&step, &offsets, &radices, &powers);
        assert_eq!(walked.iter().map(|(m, _)| *m).collect::<Vec<_>>(), vec![3, 4, 6, 9]);
        for ((_, table), &(_, times)) in walked.iter().zip(&powers) {
            let composed: Vec<u32> = (0..8)
                .map(|i: usize| {
                    let o = if i < 5 { 0 } else { 5 };
                    (0..times).fold((i - o) as u32, |x, _| step[o + x as usize])
                })
                .collect();
            assert_eq!(table, &composed, "{times} steps");
            let back = inverse_by_digit(table, &offsets, &radices).unwrap();
            assert!((0..8).all(|i| {
                let o = if i < 5 { 0 } else { 5 };
                back[o + table[i] as usize] as usize == i - o
            }));
        }
        assert_eq!(inverse_by_digit(&[0, 0, 1], &[0], &[3]), None, "two values onto one");
    }

    fn histogram<S: StateRanking>(ranking: &S, start: u64) -> Vec<u64> {
        let table = DistanceTable::in_memory(ranking.n_states()).unwrap();
        let out = bfs::run(ranking, start, &table, &Config::new(2), &NoProgress).unwrap();
        assert!(out.complete);
        out.histogram
    }

    /// The tables of a definition's multiset ranking: their radices, and every neighbour of
    /// every board the same by digits and by boards, and the histograms equal.
    fn check_digits_move_as_boards_do(text: &str, radices: &[u64]) {
        let p = defined(text);
        let space = StateSpace::build(&p).unwrap();
        let Ranking::Multiset(m) = &space.ranking else { panic!("a multiset ranking") };
        let t = m.coordinate_tables().expect("digits moved by tables");
        assert_eq!(t.radices(), radices);
        for rank in 0..m.n_states() {
            let (board, digits) = (m.unrank(rank), t.unrank(rank));
            assert_eq!(t.rank(&digits), rank);
            for k in 0..m.n_moves() {
                assert_eq!(t.rank(&t.solve_step(&digits, k)), m.rank(&m.solve_step(&board, k)));
                let back = t.rank(&t.scramble_step(&digits, k));
                assert_eq!(back, m.rank(&m.scramble_step(&board, k)));
            }
        }
        let start = space.rank_board(&p.solved()).unwrap();
        let h = histogram(t, start);
        assert_eq!(h.iter().sum::<u64>(), radices.iter().product::<u64>());
        assert_eq!(h, histogram(m, start));
    }

    /// Two rings of identical pieces, each turned and swapped on its own and both by a
    /// third move: 20 x 210 boards.
    #[test]
    fn digits_move_as_boards_do() {
        check_digits_move_as_boards_do(
            "Name Rings\nSet A 6 1\nSet B 7 1\nSolved\nA\n1 1 1 2 2 2\nB\n1 1 2 2 3 3 3\nEnd\n\
             Move R\nA\n2 3 4 5 6 1\nEnd\nMove S\nA\n2 1 3 4 5 6\nEnd\n\
             Move T\nB\n2 3 4 5 6 7 1\nEnd\nMove U\nB\n2 1 3 4 5 6 7\nEnd\n\
             Move L\nA\n1 2 4 5 6 3\nB\n1 2 3 5 6 7 4\nEnd\n",
            &[20, 210],
        );
    }

    /// The powers of a move (the half turn metric lists R, R2, R3, R2', R' of a ring of six)
    /// are found as powers of it: their tables are composed from its own, and
    /// `turning_identical_pieces_move_digit_by_digit` checks every neighbour they give on
    /// this definition.
    #[test]
    fn powers_of_a_move_are_found() {
        let p = defined(
            "Name TurningRings\nSet A 6 2\nSet B 4 3\nSolved\nA\n1 1 1 2 2 2\nB\n1 1 1 2\nEnd\n\
             Move R\nA\n2 3 4 5 6 1\n1 1 0 0 0 0\nEnd\nMove S\nA\n2 1 3 4 5 6\nEnd\n\
             Move T\nB\n2 3 4 1\n1 2 0 0\nEnd\nMove U\nB\n2 1 3 4\n0 0 1 2\nEnd\n\
             Move L\nA\n1 2 4 5 6 3\nB\n1 3 4 2\n1 0 2 0\nEnd\n",
        );
        let space = StateSpace::build(&p).unwrap();
        let Ranking::Multiset(m) = &space.ranking else { panic!("a multiset ranking") };
        let name = |i: usize| p.moves[i].name.clone();
        let found: Vec<String> = (m.moves().powers().iter().enumerate())
            .map(|(i, power)| match power {
                Some(w) => format!("{} = {}^{}", name(i), name(w.base), w.times),
                None => name(i),
            })
            .collect();
        let mut expected: Vec<String> = [
            "R",
            "R2 = R^2",
            "R3 = R^3",
            "R2' = R^4",
            "R' = R^5",
            "S",
            "T",
            "T2 = T^2",
            "T' = T^3",
            "U",
            "U2 = U^2",
            "U3 = U^3",
            "U2' = U^4",
            "U' = U^5",
            "L",
        ]
        .map(String::from)
        .to_vec();
        // L turns a ring of 4 by halves and one of 3 by thirds: order 36, its other 34
        // powers listed after it.
        assert_eq!(p.moves.len(), 15 + 34);
        expected.extend((15..p.moves.len()).map(|i| format!("{} = L^{}", name(i), i - 13)));
        assert_eq!(found, expected);
    }

    /// Identical pieces that turn (as the 3x3x3 with its pieces told apart only by kind, the
    /// twsearch sample 3p1): the orientation digits of each orbit are coordinates of their
    /// own, as the arrangements are. Ring A's pieces turn mod 2 and B's mod 3, each summing
    /// to 0: 20 arrangements x 2^5 turns x 3 arrangements x 3^3 turns.
    #[test]
    fn turning_identical_pieces_move_digit_by_digit() {
        check_digits_move_as_boards_do(
            "Name TurningRings\nSet A 6 2\nSet B 4 3\nSolved\nA\n1 1 1 2 2 2\nB\n1 1 1 2\nEnd\n\
             Move R\nA\n2 3 4 5 6 1\n1 1 0 0 0 0\nEnd\nMove S\nA\n2 1 3 4 5 6\nEnd\n\
             Move T\nB\n2 3 4 1\n1 2 0 0\nEnd\nMove U\nB\n2 1 3 4\n0 0 1 2\nEnd\n\
             Move L\nA\n1 2 4 5 6 3\nB\n1 3 4 2\n1 0 2 0\nEnd\n",
            &[20, 4, 32, 27],
        );
    }

    /// A ranking whose moves do not act digit by digit gets no tables: the 2x2x2's corners
    /// read as two digits of 2,520 and 1,458 ranks (a split the moves cross).
    #[test]
    fn digits_a_move_crosses_get_no_tables() {
        let path = format!("{}/data/definitions/cube2.tws", env!("CARGO_MANIFEST_DIR"));
        let p = Puzzle::parse(&format!("def:{path}"), None).unwrap();
        let space = StateSpace::build(&p).unwrap();
        let Ranking::Layout(l) = &space.ranking else { panic!("the layout") };
        assert_eq!(l.n_states(), 2520 * 1458);
        assert!(CoordTables::new(l, &[2520, 1458], &[]).is_none());
    }
}
