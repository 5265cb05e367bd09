//! Dense ranks of the reachable boards: the bijection between boards and `0..n_states` that
//! the distance table is indexed by.
//!
//! [`StateSpace::build`] starts from the analysis of the moves ([`crate::group::analysis`]:
//! invariants, exact group order) and picks:
//! - [`Layout`], the fast path, when the invariants describe the group exactly (the usual
//!   case): linear-time ranks inside the invariant space;
//! - [`Enumerated`], when the group is smaller than the invariants allow (the exceptional
//!   small groups): a sorted list of every board;
//! - [`Multiset`], for boards with identical pieces (a definition's repeated labels), which
//!   are not group elements: the layout's ranks with multiset permutations;
//! - [`ChainRanking`], for groups smaller than their invariants and too many to list whose
//!   layout cannot count only the arrangements and sums the moves reach
//!   ([`Layout::searching_in`]): ranks by the group's stabilizer chain;
//! - [`FibreRanking`], for identical pieces in a group smaller than its invariants, too many
//!   to list: the projections onto some orbits that the moves reach, times the boards over
//!   each (any number of cells).
//!
//! Every way the table has exactly one entry per reachable board; where the chain cannot
//! rank either (a board it cannot hold), the layout searches the space the invariants allow
//! and the other boards are never reached, as the multiset does for identical pieces in a
//! group smaller than its invariants that no split into fibres fits, its boards counted
//! first (`board_count.rs`).

pub(crate) mod bit_rank;
pub(crate) mod bits;
pub mod board_count;
pub mod chain;
pub mod coord_tables;
mod couplings;
pub mod enumerated;
pub mod fibres;
#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
pub(crate) mod lanes;
pub mod layout;
pub mod multiset;
pub mod orbit_split;
pub mod perm;
pub mod record;
pub mod runs;
pub(crate) mod simd;
pub(crate) mod small_perm;
#[cfg(test)]
pub(crate) mod test_puzzles;

use num_bigint::BigUint;

pub use crate::group::analysis::point_generators;
pub use chain::ChainRanking;
pub use enumerated::Enumerated;
pub use fibres::FibreRanking;
pub use layout::{CellMoves, Cells, Layout};
pub use multiset::Multiset;
pub use orbit_split::OrbitSplit;
pub use record::{RANKING_SCHEME, RankingRecord};
pub use runs::CellRuns;

use crate::group::analysis::Analysis;
use crate::puzzle::{Board, Puzzle};
use crate::symmetry::{
    ClassRanking, CoordClasses, EntryClasses, FibreClasses, FlipClasses, Symmetries,
};
use crate::table::OffsetMap;
use crate::{Error, Result};

/// A ranking as the search engine walks it: ranks and unranks working states, and applies
/// moves to them: [`Layout`], [`Enumerated`], [`Multiset`], [`ChainRanking`],
/// [`FibreRanking`] and [`ClassRanking`]; a puzzle's [`StateSpace`] holds
/// one of them ([`Ranking`]) and is searched through it.
pub trait StateRanking: Sync {
    /// A board in the ranking's working form.
    type State: Copy + Send + Sync;
    /// Number of ranks.
    fn n_states(&self) -> u64;
    /// Number of ranks a finished search reaches: all of them, but for a group smaller than
    /// its invariants searched in the space they allow ([`Layout::searching_in`]).
    fn n_reachable(&self) -> u64 {
        self.n_states()
    }
    /// Number of moves.
    fn n_moves(&self) -> usize;
    /// The rank of a working state.
    fn rank(&self, s: &Self::State) -> u64;
    /// The ranks of several states into `out` (as long): a ranking whose rank waits on
    /// tables far apart asks the cache for every state's reads before it ranks any, so the
    /// misses overlap.
    #[inline(always)]
    fn rank_all(&self, states: &[Self::State], out: &mut [u64]) {
        for (s, r) in states.iter().zip(out) {
            *r = self.rank(s);
        }
    }
    /// The working state of a rank.
    fn unrank(&self, rank: u64) -> Self::State;
    /// Applies move `m` (solving direction).
    fn solve_step(&self, s: &Self::State, m: usize) -> Self::State;
    /// Applies the inverse of move `m`.
    fn scramble_step(&self, s: &Self::State, m: usize) -> Self::State;
    /// `Some(k)`: ranks form aligned runs of `2^k` that moves map onto runs by XOR of the
    /// offset (see [`Layout::xor_block_bits`]).
    fn xor_block_bits(&self) -> Option<u32> {
        None
    }
    /// With XOR runs: the rank of a board and the name of the linear map `A` through which
    /// its run's offsets are read (0: the identity; [`StateRanking::offset_map`] gives the
    /// map): the board with offset `x` added has the rank whose offset is `A x` XOR the
    /// board's own. A ranking of classes reads orientations through a symmetry (see
    /// [`ClassRanking::rank_in_runs`]); boards need no map.
    #[inline(always)]
    fn rank_in_runs(&self, s: &Self::State) -> (u64, usize) {
        (self.rank(s), 0)
    }
    /// For a ranking of classes under inversion: the board `g^-1` and the name of the map
    /// taking the offsets of `g`'s run to those of its own (as [`StateRanking::offset_map`]
    /// reads it). A forward step expands `g^-1` as well: where a class's representative is
    /// `r = h^-1`, the class of `h m` holds `m^-1 r`, which no move applied to `r` reaches, so
    /// a representative's own images need not reach every class next to its class; with
    /// its inverse's (`h m` itself) they do.
    fn inverse_in_runs(&self, _s: &Self::State) -> Option<(Self::State, usize)> {
        None
    }
    /// Writes into `into` the map that [`StateRanking::rank_in_runs`] names `id` (boards
    /// name the identity only).
    fn offset_map(&self, id: usize, into: &mut OffsetMap) {
        debug_assert_eq!(id, 0, "a ranking of boards names the identity only");
        into.set_columns(&[]);
    }
    /// Runs of ranks that some moves map onto runs (see [`CellRuns`]).
    fn cell_runs(&self) -> Option<&CellRuns> {
        None
    }
    /// The parity of a run, given its first board (see [`Layout::run_parity`]).
    fn run_parity(&self, _base: &Self::State) -> usize {
        0
    }
    /// The rank of `image`, a run's first board moved by a move that maps runs onto runs,
    /// and which of that move's offset tables ([`runs::RunMove::offsets`]) carries the run's
    /// offsets onto the image run's, for a run of parity `parity`: that parity, but for
    /// classes, whose image run's offsets are read through the symmetry taking the image to
    /// its class.
    #[inline(always)]
    fn run_image(&self, image: &Self::State, parity: usize) -> (u64, usize) {
        (self.rank(image), parity)
    }
    /// The board at `offset` of a run (see [`Layout::unrank_in_run`]).
    fn unrank_in_run(&self, bases: &[Self::State], _parity: usize, _offset: u64) -> Self::State {
        bases[0]
    }
    /// `Some` for a ranking of classes of boards: an entry then stands for several boards,
    /// and a level is completed and counted through it (see [`ClassRanking`]).
    fn class_ranking(&self) -> Option<&dyn EntryClasses> {
        None
    }
}

/// The `i`-th of a spread of pseudo-random values below `space` (a splitmix64 step): samples
/// that check a table against boards, every digit of a mixed-radix value in play (evenly
/// spaced values share their low digits).
pub(crate) fn spread_sample(i: u64, space: u64) -> u64 {
    let mut z = i.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (z ^ (z >> 31)) % space
}

/// A ranking of boards in working form moved by the puzzle's compiled moves ([`CellMoves`]):
/// ranks and moves are all its [`StateRanking`] needs ([`Multiset`], [`ChainRanking`]).
pub trait CellRanking: Sync {
    /// The moves.
    fn cell_moves(&self) -> &CellMoves;
    /// Number of ranks.
    fn n_ranks(&self) -> u64;
    /// Number of ranks a finished search reaches (see [`StateRanking::n_reachable`]).
    fn n_reachable_ranks(&self) -> u64 {
        self.n_ranks()
    }
    /// The rank of a board.
    fn rank_cells(&self, s: &Cells) -> u64;
    /// The board of a rank.
    fn unrank_cells(&self, rank: u64) -> Cells;
    /// See [`StateRanking::xor_block_bits`].
    fn xor_block_bits(&self) -> Option<u32> {
        None
    }
}

impl<R: CellRanking> StateRanking for R {
    type State = Cells;
    fn n_states(&self) -> u64 {
        self.n_ranks()
    }
    fn n_reachable(&self) -> u64 {
        self.n_reachable_ranks()
    }
    fn n_moves(&self) -> usize {
        self.cell_moves().len()
    }
    #[inline(always)]
    fn rank(&self, s: &Cells) -> u64 {
        self.rank_cells(s)
    }
    #[inline(always)]
    fn unrank(&self, rank: u64) -> Cells {
        self.unrank_cells(rank)
    }
    #[inline(always)]
    fn solve_step(&self, s: &Cells, m: usize) -> Cells {
        self.cell_moves().solve_step(s, m)
    }
    #[inline(always)]
    fn scramble_step(&self, s: &Cells, m: usize) -> Cells {
        self.cell_moves().scramble_step(s, m)
    }
    fn xor_block_bits(&self) -> Option<u32> {
        CellRanking::xor_block_bits(self)
    }
}

impl StateRanking for Layout {
    type State = Cells;
    fn n_states(&self) -> u64 {
        Layout::n_states(self)
    }
    fn n_reachable(&self) -> u64 {
        Layout::n_reachable(self)
    }
    fn n_moves(&self) -> usize {
        self.moves().len()
    }
    #[inline(always)]
    fn rank(&self, s: &Cells) -> u64 {
        Layout::rank(self, s)
    }
    #[inline(always)]
    fn unrank(&self, rank: u64) -> Cells {
        Layout::unrank(self, rank)
    }
    #[inline(always)]
    fn solve_step(&self, s: &Cells, m: usize) -> Cells {
        self.moves().solve_step(s, m)
    }
    #[inline(always)]
    fn scramble_step(&self, s: &Cells, m: usize) -> Cells {
        self.moves().scramble_step(s, m)
    }
    fn xor_block_bits(&self) -> Option<u32> {
        Layout::xor_block_bits(self)
    }
    fn cell_runs(&self) -> Option<&CellRuns> {
        Layout::cell_runs(self)
    }
    fn run_parity(&self, base: &Cells) -> usize {
        Layout::run_parity(self, base)
    }
    fn unrank_in_run(&self, bases: &[Cells], parity: usize, offset: u64) -> Cells {
        Layout::unrank_in_run(self, bases, parity, offset)
    }
}

impl StateRanking for Enumerated {
    type State = u32;
    fn n_states(&self) -> u64 {
        Enumerated::n_states(self)
    }
    fn n_moves(&self) -> usize {
        Enumerated::n_moves(self)
    }
    fn rank(&self, s: &u32) -> u64 {
        *s as u64
    }
    fn unrank(&self, rank: u64) -> u32 {
        rank as u32
    }
    fn solve_step(&self, s: &u32, m: usize) -> u32 {
        self.solve_table(m)[*s as usize]
    }
    fn scramble_step(&self, s: &u32, m: usize) -> u32 {
        self.scramble_table(m)[*s as usize]
    }
}

/// The ranking chosen for a puzzle, with what was learned choosing it.
#[derive(Debug)]
pub struct StateSpace {
    /// The analysis of the moves the ranking was chosen from.
    pub analysis: Analysis,
    /// The ranking.
    pub ranking: Ranking,
    /// For a puzzle read from a definition: a digest of the definition, recorded with the
    /// ranking so that a table is never read with a file whose moves changed.
    pub definition_digest: Option<String>,
}

/// One of the rankings.
// One value per puzzle, never in a collection: its size does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum Ranking {
    /// Linear-time ranks inside the invariants (they describe the group exactly).
    Layout(Layout),
    /// A sorted list of every reachable board.
    Enumerated(Enumerated),
    /// Multiset ranks of boards with identical pieces.
    Multiset(Multiset),
    /// Ranks by a stabilizer chain, for a group smaller than its invariants.
    Chain(ChainRanking),
    /// Ranks by a projection and its fibres, for identical pieces in a group smaller than
    /// its invariants.
    Fibres(FibreRanking),
    /// One entry per class of boards under the puzzle's symmetries.
    Classes(ClassRanking),
    /// One entry per class of boards with identical pieces under the puzzle's symmetries,
    /// on their coordinates.
    CoordClasses(CoordClasses),
    /// One entry per class of boards ranked by a projection and its fibres under the
    /// puzzle's symmetries.
    FibreClasses(FibreClasses),
    /// One entry per class of boards with identical pieces whose orientation is not seen,
    /// under the puzzle's symmetries, on their runs of flips.
    FlipClasses(FlipClasses),
}

/// A group smaller than its invariants, with identical pieces, is searched in a space where
/// every orbit's sign is free ([`Multiset::with_free_signs`]) when its digits then move by
/// per-move tables and it holds at most this many ranks (a 4 GiB table): the 235 cuboid in
/// 1.15 billion ranks, 2.5 s and 287 MiB, against 14.9 s and 75 MiB board by board in the
/// 287 million of its tied signs (twsearch: 4.4 s, 281 MiB).
const FREE_SIGNS_MAX_RANKS: u64 = 1 << 34;

/// Identical pieces in a group smaller than its invariants: listing the boards costs some
/// 20 us each (smaller_group.tws with T labelled `1 1 2 2 3 3`: 1,399,680 boards in 31 s
/// and 574 MB), a search of the invariants' multiset ranks a few nanoseconds a rank. Past
/// this many boards, those ranks are searched instead where they hold at most
/// [`SPARSE_MOST_PER_BOARD`] times the boards.
const LISTED_WHATEVER_THE_RANKS: u64 = 4096;
const SPARSE_MOST_PER_BOARD: u64 = 16;

/// Classes of digits are taken over classes of boards without runs when they have at most
/// this many times their entries ([`StateSpace::classes_of_digits`]).
const DIGITS_OVER_CLASSES: u64 = 4;

/// Whether a search ranks classes of boards under the puzzle's symmetries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SymmetryMode {
    /// Classes whenever the puzzle has symmetries and the ranking allows it, except where
    /// the board ranking moves XOR runs and the classes cannot (then boards are searched
    /// faster: Spinpossible 2x5 took 68 s by boards, 417 s by classes without XOR runs), so
    /// classes are used only when asked or when the board table is too large (the caller's
    /// call); and except in groups of fewer than [`CLASSES_WORTH_FROM_BOARDS`] boards.
    #[default]
    Auto,
    /// Classes, or an error saying why not.
    On,
    /// One entry per board.
    Off,
}

/// How many times fewer than boards the entries of classes without XOR runs must be for
/// `--symmetry auto` to search them rather than boards moved by XOR runs.
const XOR_RUNS_WORTH: u64 = 16;

/// `--symmetry auto` searches boards in groups of fewer boards than this: finding the
/// symmetries and classifying under them costs milliseconds, more than such a search saves
/// (`bfs --threads 2`, process start included: the 96-board pyramorphix 9.5 ms by classes,
/// 3.4 ms by boards; puzzlernovice's 97,020 boards 16 ms against 11 ms; lo33's 181,440
/// boards walked one by one take 43 ms against 19 ms by classes).
const CLASSES_WORTH_FROM_BOARDS: u32 = 1 << 17;

/// Whether the classes of boards ranked by a projection and its fibres, under `order`
/// symmetries, search faster than the boards walked as runs: by a cost fitted to
/// `bfs --threads 2` on this machine class (2026-12-03). Runs cost about 21 ns a board and 2
/// ns per byte of their offset tables (made, then read at random), classes about 400 ns an
/// entry, being walked board by board, and there are at least boards over `order` entries.
/// The 235 cuboid's runs (31,850,496 boards, 30 MB of tables) take 0.73 s against 1.20 s by
/// classes; the trapentrix's (548,674,560 boards, 2 MB of tables over its last inner
/// orbit, 4 symmetries) 10.4 s against 36 s board by board; but the skewb with centres
/// labelled `1 1 2 2 3 3` (9,447,840 boards, 574 tables of 104,976 offsets: 241 MB) takes
/// 0.67 s and 252 MB by runs, 0.58 s and 22 MB by its 1,183,041 classes under 8 symmetries.
fn classes_beat_fibre_runs(fibres: &FibreRanking, order: usize) -> bool {
    let Some(table_bytes) = fibres.run_table_bytes() else { return true };
    let boards = fibres.n_states() as f64;
    let by_runs = 21e-9 * boards + 2e-9 * table_bytes as f64;
    let by_classes = 400e-9 * boards / order.max(1) as f64;
    by_classes < by_runs
}

impl StateSpace {
    /// Analyses the puzzle and picks a ranking whose size is exactly the number of reachable
    /// boards.
    pub fn build(puzzle: &Puzzle) -> Result<StateSpace> {
        StateSpace::from_analysis(puzzle, Analysis::of(puzzle)?)
    }

    /// [`StateSpace::build`] from an analysis already made.
    pub fn from_analysis(puzzle: &Puzzle, analysis: Analysis) -> Result<StateSpace> {
        StateSpace::from_analysis_with(puzzle, analysis, true)
    }

    /// [`StateSpace::from_analysis`], with the cell runs' tables only if `run_tables` (the
    /// ranks are the same either way).
    fn from_analysis_with(
        puzzle: &Puzzle,
        analysis: Analysis,
        run_tables: bool,
    ) -> Result<StateSpace> {
        if puzzle.has_identical_pieces() {
            return Ok(StateSpace {
                ranking: Ranking::of_identical_pieces(puzzle, &analysis)?,
                analysis,
                definition_digest: puzzle.definition_digest(),
            });
        }
        let (model_order, group_order) = (&analysis.model_order, &analysis.group_order);
        let layout = match (analysis.invariants_are_exact(), run_tables) {
            (true, true) => Some(Layout::new(puzzle, analysis.invariants.clone())),
            (true, false) => Some(Layout::ranked_as_new(puzzle, analysis.invariants.clone())),
            (false, _) => None,
        };
        let ranking = match layout {
            Some(Ok(layout)) => Ranking::Layout(layout),
            _ if *group_order <= BigUint::from(enumerated::MAX_LISTED) => {
                Ranking::Enumerated(Enumerated::new(puzzle)?)
            }
            Some(Err(e)) => return Err(e),
            // Too many to list: the invariants' layout, counting only the arrangements and
            // sums the moves reach where a search over them finds those; else ranks by the
            // group's stabilizer chain; else the space the invariants allow, searched whole
            // (the boards outside the group are never reached), as twsearch does.
            None => {
                let by_chain =
                    || ChainRanking::new(puzzle, analysis.invariants.clone(), group_order);
                let reachable = u64::try_from(group_order).ok();
                // Without cell runs: the frontiers are sparse in such a space, where runs
                // cost more than they save (measured: 16.0 s against 3.3 s on
                // data/definitions/smaller_group.tws).
                let layout = Layout::without_runs(puzzle, analysis.invariants.clone());
                match (layout, reachable) {
                    (Ok(layout), Some(r)) => {
                        let layout = layout.searching_in(r);
                        match layout.n_states() == r {
                            true => Ranking::Layout(layout),
                            false => by_chain().map_or(Ranking::Layout(layout), Ranking::Chain),
                        }
                    }
                    (Err(e), _) => Ranking::Chain(by_chain().map_err(|chain| {
                        // Both refuse what a board in working form cannot hold alike.
                        let why = match chain.to_string() == e.to_string() {
                            true => e.to_string(),
                            false => format!("{e}; by their stabilizer chain: {chain}"),
                        };
                        Error::Unsupported(format!(
                            "the moves generate {group_order} boards, fewer than the \
                             {model_order} their orbits, parities and orientation sums allow, \
                             too many to list one by one, and they cannot be ranked: {why}"
                        ))
                    })?),
                    (Ok(_), None) => unreachable!("a group within 64-bit ranks"),
                }
            }
        };
        Ok(StateSpace { analysis, ranking, definition_digest: puzzle.definition_digest() })
    }

    /// [`StateSpace::build`], ranking classes of boards as `mode` asks. `unique` (a search
    /// counting unique solutions, which classes cannot) turns `Auto` off and `On` into an
    /// error.
    pub fn for_search(puzzle: &Puzzle, mode: SymmetryMode, unique: bool) -> Result<StateSpace> {
        StateSpace::for_search_with(puzzle, mode, unique, true)
    }

    /// [`StateSpace::for_search`], classes joining a board and its inverse only if
    /// `inversion` (a search from several goals leaves it out).
    pub fn for_search_with(
        puzzle: &Puzzle,
        mode: SymmetryMode,
        unique: bool,
        inversion: bool,
    ) -> Result<StateSpace> {
        let analysis = Analysis::of(puzzle)?;
        // With identical pieces the group's order overcounts boards: counted below.
        let few_boards = !puzzle.has_identical_pieces()
            && analysis.group_order < BigUint::from(CLASSES_WORTH_FROM_BOARDS);
        if mode == SymmetryMode::Off || (mode == SymmetryMode::Auto && (unique || few_boards)) {
            return StateSpace::from_analysis(puzzle, analysis);
        }
        if unique {
            return Err(Error::Unsupported(
                "unique solutions cannot be counted on a table of symmetry classes: use \
                 --symmetry off with --unique"
                    .into(),
            ));
        }
        if puzzle.has_identical_pieces() {
            return StateSpace::identical_pieces_by_classes(puzzle, analysis, mode);
        }
        let layout = if analysis.invariants_are_exact() {
            Some(Layout::without_runs(puzzle, analysis.invariants.clone()))
        } else {
            // A group smaller than its invariants: classes where its layout ranks exactly
            // its boards (the couplings it hides are found, [`Layout::searching_in`]).
            u64::try_from(&analysis.group_order).ok().and_then(|order| {
                let l = Layout::without_runs(puzzle, analysis.invariants.clone()).ok()?;
                let l = l.searching_in(order);
                (l.n_states() == order).then_some(Ok(l))
            })
        };
        // Boards moved by XOR runs (a word of boards per step) beat classes without them
        // unless the classes are much fewer: the skewb diamond's 87x fewer entries search 5x
        // faster than its boards' runs.
        let boards_by_xor_runs = match &layout {
            Some(Ok(l)) if l.xor_block_bits().is_some() => Some(l.n_states()),
            _ => None,
        };
        // The symmetries, found once for both kinds of classes (the lo33's take 1.5 ms).
        let layout = layout.map(|l| l.map(|l| (l, Symmetries::of(puzzle))));
        let (digits, fewest_classes) = match &layout {
            Some(Ok((l, syms))) => {
                StateSpace::classes_of_digits(puzzle, &analysis, l, syms, inversion)
            }
            _ => (None, 0),
        };
        // Digits that beat the fewest entries the classes could have are taken without
        // classifying anything (the 233's classes took 0.6 s).
        let digits = match digits {
            Some(d) if d.n_states() <= DIGITS_OVER_CLASSES * fewest_classes => {
                let (ranking, definition_digest) =
                    (Ranking::CoordClasses(d), puzzle.definition_digest());
                return Ok(StateSpace { analysis, ranking, definition_digest });
            }
            other => other,
        };
        let classes = match layout {
            Some(layout) => layout.and_then(|(layout, syms)| {
                ClassRanking::with_symmetries(puzzle, layout, syms, inversion)
            }),
            None => Err(Error::Unsupported(format!(
                "no symmetry reduction for {}: the group is smaller than its invariants allow, \
                 and classes need the invariants' layout to rank its boards densely",
                puzzle.spec.named()
            ))),
        };
        let classes = classes.map(|c| {
            match digits.filter(|d| d.n_states() <= DIGITS_OVER_CLASSES * c.n_states()) {
                Some(digits) => Ranking::CoordClasses(digits),
                None => Ranking::Classes(c),
            }
        });
        let classes = match classes {
            Ok(Ranking::Classes(c)) => Ok(c),
            Ok(other) => {
                let definition_digest = puzzle.definition_digest();
                return Ok(StateSpace { analysis, ranking: other, definition_digest });
            }
            Err(e) => Err(e),
        };
        match (classes, mode) {
            (Ok(c), SymmetryMode::Auto)
                if c.xor_block_bits().is_none()
                    && boards_by_xor_runs
                        .is_some_and(|boards| boards < XOR_RUNS_WORTH * c.n_states()) =>
            {
                StateSpace::from_analysis(puzzle, analysis)
            }
            (Ok(c), _) => Ok(StateSpace {
                analysis,
                ranking: Ranking::Classes(c),
                definition_digest: puzzle.definition_digest(),
            }),
            (Err(e), SymmetryMode::On) => Err(e),
            (Err(_), _) => StateSpace::from_analysis(puzzle, analysis),
        }
    }

    /// Classes of the digits of independent orbits ([`CoordClasses`] on the orbits'
    /// coordinates, each orbit's sign in its own digit), where they may beat the classes of
    /// `layout`'s boards: those take whole orbits first and walk no runs, these walk the last
    /// digit's. They are taken where they have at most [`DIGITS_OVER_CLASSES`] times those
    /// classes' entries (inversion, which only those take, halves theirs). The 233 sample:
    /// 112 million entries in runs of 40,320 against 51 million board by board, 2.7 s against
    /// 13.6 s. With them, the fewest entries those classes could have: none holds more
    /// boards than their group has elements.
    fn classes_of_digits(
        puzzle: &Puzzle,
        analysis: &Analysis,
        layout: &Layout,
        syms: &Symmetries,
        inversion: bool,
    ) -> (Option<CoordClasses>, u64) {
        let fewest_classes = layout.n_states().div_ceil(syms.order_with(inversion) as u64);
        if !analysis.invariants_are_exact()
            || CoordClasses::refusal_of_group(syms).is_some()
            || ClassRanking::whole_orbits_first(layout, syms, inversion).is_none()
        {
            return (None, fewest_classes);
        }
        let digits = Multiset::new(puzzle, analysis.invariants.clone())
            .ok()
            .and_then(|multiset| CoordClasses::new(puzzle, multiset, syms.clone(), true).ok());
        (digits, fewest_classes)
    }

    /// [`StateSpace::for_search_with`] for a puzzle with identical pieces: classes on the
    /// coordinates of its multiset ranking where its symmetries act on them
    /// ([`CoordClasses`]), or of its projection and fibres ([`FibreClasses`]: with `Auto`
    /// only where the fibres' runs do not fit), else (unless `mode` insists) its boards.
    fn identical_pieces_by_classes(
        puzzle: &Puzzle,
        analysis: Analysis,
        mode: SymmetryMode,
    ) -> Result<StateSpace> {
        let boards = StateSpace::from_analysis(puzzle, analysis)?;
        if mode == SymmetryMode::Auto
            && boards.n_boards() < BigUint::from(CLASSES_WORTH_FROM_BOARDS)
        {
            return Ok(boards);
        }
        let syms = Symmetries::of(puzzle);
        if let (Ranking::Fibres(f), SymmetryMode::Auto) = (&boards.ranking, mode)
            && !classes_beat_fibre_runs(f, syms.order())
        {
            return Ok(boards);
        }
        match (StateSpace::classes_of_identical_pieces_under(puzzle, &boards, syms), mode) {
            (Ok(classes), _) => Ok(StateSpace { ranking: classes, ..boards }),
            (Err(e), SymmetryMode::On) => Err(e),
            (Err(_), _) => Ok(boards),
        }
    }

    /// The classes under the puzzle's symmetries of `boards`, the space of a puzzle with
    /// identical pieces ([`StateSpace::from_analysis`]), or why there are none (`info`
    /// builds the boards once for both, the trapentrix's fibres taking 0.7 s).
    pub fn classes_of_identical_pieces(puzzle: &Puzzle, boards: &StateSpace) -> Result<Ranking> {
        StateSpace::classes_of_identical_pieces_under(puzzle, boards, Symmetries::of(puzzle))
    }

    /// [`StateSpace::classes_of_identical_pieces`] under the symmetries found already.
    fn classes_of_identical_pieces_under(
        puzzle: &Puzzle,
        boards: &StateSpace,
        syms: Symmetries,
    ) -> Result<Ranking> {
        match &boards.ranking {
            // Classes count boards by the ranks they hold: every rank must be a board.
            // Named pieces' flips by piece, beside pieces whose orientation is not seen: no
            // digit tables, but runs of flips that symmetries carry linearly.
            Ranking::Multiset(m)
                if m.n_reachable() == m.n_states()
                    && m.hides_orientation_sums()
                    && m.xor_block_bits().is_some() =>
            {
                FlipClasses::new(puzzle, m.clone(), syms).map(Ranking::FlipClasses)
            }
            Ranking::Multiset(m) if m.n_reachable() == m.n_states() => {
                CoordClasses::new(puzzle, m.clone(), syms, false).map(Ranking::CoordClasses)
            }
            Ranking::Multiset(_) => Err(Error::Unsupported(format!(
                "no symmetry reduction for {}: its identical pieces in a group smaller than \
                 its invariants are searched in ranks that hold more than its boards",
                puzzle.spec.named()
            ))),
            Ranking::Fibres(f) => {
                FibreClasses::new(puzzle, f.clone(), syms).map(Ranking::FibreClasses)
            }
            _ => Err(Error::Unsupported(format!(
                "no symmetry reduction for {}: its identical pieces have no multiset ranking",
                puzzle.spec.named()
            ))),
        }
    }

    /// The space of boards that `--symmetry off` searches (the antipodes are listed in its
    /// ranks), for this space: the classes of a group smaller than its invariants and too
    /// large to list lend their layout, whose reachable values took a search to find
    /// ([`Layout::searching_in`]); it is the one [`StateSpace::from_analysis`] would build.
    pub fn boards(&self, puzzle: &Puzzle) -> Result<StateSpace> {
        let analysis = &self.analysis;
        if let Some(classes) = self.classes()
            && !analysis.invariants_are_exact()
            && analysis.group_order > BigUint::from(enumerated::MAX_LISTED)
            && classes.layout().ranks_reachable_couplings()
        {
            return Ok(StateSpace {
                analysis: analysis.clone(),
                ranking: Ranking::Layout(classes.layout().clone()),
                definition_digest: self.definition_digest.clone(),
            });
        }
        // The fibres the classes were taken over (the trapentrix's take 0.7 s to build).
        if let Ranking::FibreClasses(c) = &self.ranking {
            return Ok(StateSpace {
                analysis: analysis.clone(),
                ranking: Ranking::Fibres(c.fibres().clone()),
                definition_digest: self.definition_digest.clone(),
            });
        }
        // The ranks `--symmetry off` searches, without the tables that search would walk.
        StateSpace::from_analysis_with(puzzle, analysis.clone(), false)
    }

    /// Number of reachable boards: the group order, or with identical pieces (whose boards
    /// are not group elements) the number ranked.
    pub fn n_boards(&self) -> BigUint {
        match &self.ranking {
            Ranking::Enumerated(e) => BigUint::from(e.n_states()),
            Ranking::Multiset(m) => BigUint::from(m.n_reachable()),
            Ranking::Chain(c) => BigUint::from(c.n_states()),
            Ranking::Fibres(f) => BigUint::from(f.n_states()),
            Ranking::CoordClasses(c) => BigUint::from(c.n_boards()),
            Ranking::FibreClasses(c) => BigUint::from(c.n_boards()),
            Ranking::FlipClasses(c) => BigUint::from(c.n_boards()),
            _ => self.analysis.group_order.clone(),
        }
    }

    /// The classes, as a search counts them, if the space ranks classes of boards (of
    /// either kind).
    pub fn entry_classes(&self) -> Option<&dyn EntryClasses> {
        match &self.ranking {
            Ranking::Classes(c) => Some(c),
            Ranking::CoordClasses(c) => Some(c),
            Ranking::FibreClasses(c) => Some(c),
            Ranking::FlipClasses(c) => Some(c),
            _ => None,
        }
    }

    /// What the classes are, in words (`4 symmetries, digits 11550 first, then 252`), if the
    /// space ranks classes of boards (of either kind).
    pub fn describe_classes(&self) -> Option<String> {
        match &self.ranking {
            Ranking::Classes(c) => Some(c.describe()),
            Ranking::CoordClasses(c) => Some(c.describe()),
            Ranking::FibreClasses(c) => Some(c.describe()),
            Ranking::FlipClasses(c) => Some(c.describe()),
            _ => None,
        }
    }

    /// The images of a board under the classes' group, if the space ranks classes.
    pub fn class_images(&self, board: &Board) -> Option<Vec<Board>> {
        match &self.ranking {
            Ranking::Classes(c) => Some(c.images(board)),
            Ranking::CoordClasses(c) => Some(c.images(board)),
            Ranking::FibreClasses(c) => Some(c.images(board)),
            Ranking::FlipClasses(c) => Some(c.images(board)),
            _ => None,
        }
    }

    /// The ranking of classes by layout, if the space ranks classes of boards that way.
    pub fn classes(&self) -> Option<&ClassRanking> {
        match &self.ranking {
            Ranking::Classes(c) => Some(c),
            _ => None,
        }
    }

    /// Number of ranks: the number of reachable boards (of classes of them, for a
    /// ranking of classes), or of the boards the invariants allow for a group smaller
    /// than them searched in their space ([`StateSpace::n_reachable`]).
    pub fn n_states(&self) -> u64 {
        self.ranking.n_states()
    }

    /// Number of ranks a finished search reaches: [`StateSpace::n_states`], but for a
    /// group smaller than its invariants searched in the space they allow.
    pub fn n_reachable(&self) -> u64 {
        self.ranking.n_reachable()
    }

    /// The rank of a board (of its class's entry), or why it is not reachable.
    pub fn rank_board(&self, board: &Board) -> Result<u64> {
        self.ranking.rank_board(board)
    }

    /// The board with a given rank (the representative board of an entry).
    pub fn board(&self, rank: u64) -> Board {
        self.ranking.board(rank)
    }
}

impl Ranking {
    /// The ranking of a puzzle with identical pieces, whose boards are not group elements:
    /// multiset ranks when the invariants describe the group exactly; else ranks by a
    /// projection and its fibres ([`FibreRanking`], one per board) past the boards a list
    /// holds; else a list of the boards if they are few enough; else the multiset ranks of
    /// the space the invariants allow, searched whole, where the boards the group reaches can
    /// be counted (`board_count.rs`): a search ends when it has found that many, the other
    /// ranks never reached (as twsearch searches such puzzles).
    pub fn of_identical_pieces(puzzle: &Puzzle, analysis: &Analysis) -> Result<Ranking> {
        // Past 64-bit ranks no ranking is tried (the arecibo's projections took a minute and
        // 2 GB to fail).
        let fewest = board_count::fewest_boards(puzzle, analysis);
        let Ok(fewest) = u64::try_from(&fewest) else {
            // Said with the exact count where the cosets give it (milliseconds on every
            // sample but the eliac's seconds).
            return Err(Error::TooLarge(match board_count::by_cosets(puzzle) {
                Some(boards) => format!("{boards} boards: more than 64-bit ranks can count"),
                None => format!(
                    "at least {fewest} boards (the group's {} elements over the {} maps \
                     exchanging identical pieces): more than 64-bit ranks can count",
                    analysis.group_order,
                    board_count::exchanges(puzzle, analysis)
                ),
            }));
        };
        let exact = analysis.invariants_are_exact();
        let multiset = Multiset::new(puzzle, analysis.invariants.clone());
        if exact && let Ok(m) = multiset {
            return Ok(Ranking::Multiset(m));
        }
        // What the boards show on a few orbits can say far more than the group's order over
        // every exchange: both bounds refuse sooner what no ranking below could hold.
        let shown = board_count::fewest_boards_by_projections(puzzle);
        let Ok(shown) = u64::try_from(&shown) else {
            return Err(Error::TooLarge(format!(
                "at least {shown} boards (the arrangements the moves reach on some of its \
                 orbits): more than 64-bit ranks can count"
            )));
        };
        let fewest = fewest.max(shown);
        // Past a listing, the exact count first where the bounds leave the fibres to try:
        // milliseconds on every sample but the eliac's seconds, whose 4.8e15 boards then
        // refuse at once where its fibres took 25 s to fail split by split. `Some(None)`:
        // tried, and not countable.
        let counted_first = (!exact && fewest > enumerated::MAX_LISTED)
            .then(|| board_count::exact_boards(puzzle, analysis));
        let fewest = fewest.max(counted_first.flatten().unwrap_or(0));
        // Dense: one rank per board, however the group ties its pieces.
        let fibres = match exact {
            true => None,
            false => {
                Some(FibreRanking::new(puzzle, &analysis.invariants, &analysis.group_order, fewest))
            }
        };
        let mut fibres = match fibres {
            Some(Ok(f)) if f.n_states() > enumerated::MAX_LISTED => {
                return Ok(Ranking::Fibres(f));
            }
            other => other,
        };
        let by_fibres = |f: Option<Result<FibreRanking>>| match f {
            Some(Err(e)) => format!("; by a projection and its fibres: {e}"),
            _ => String::new(),
        };
        // Below a listing, counted only where the count serves: to skip a listing bound to
        // fail, or as the target of a search in the multiset space (past one, counted above).
        let counted = !exact && (fewest <= enumerated::MAX_LISTED || multiset.is_ok());
        let boards = match counted_first {
            Some(tried) => tried,
            None => counted.then(|| board_count::exact_boards(puzzle, analysis)).flatten(),
        };
        // Listing them would take seconds and gigabytes before failing.
        let fewest = boards.unwrap_or(fewest);
        let ranks_rather_than_list = matches!((&multiset, boards), (Ok(m), Some(b))
            if b > LISTED_WHATEVER_THE_RANKS && m.n_states() / SPARSE_MOST_PER_BOARD <= b);
        if fewest <= enumerated::MAX_LISTED && !ranks_rather_than_list {
            match (Enumerated::new(puzzle), fibres) {
                (Ok(e), _) => return Ok(Ranking::Enumerated(e)),
                (Err(_), Some(Ok(f))) => return Ok(Ranking::Fibres(f)),
                (Err(_), other) => fibres = other,
            }
        }
        let too_many = format!(
            "{} has identical pieces and more than {} boards to list one by one",
            puzzle.spec.named(),
            enumerated::MAX_LISTED
        );
        let smaller = format!(
            "the moves generate {} of the {} arrangements their orbits, parities and \
             orientation sums allow",
            analysis.group_order, analysis.model_order
        );
        match (multiset, boards) {
            (Ok(m), Some(boards)) => {
                let free = Multiset::with_free_signs(puzzle, analysis.invariants.clone())
                    .ok()
                    .filter(|f| f.n_states() <= FREE_SIGNS_MAX_RANKS)
                    .filter(|f| f.coordinate_tables().is_some());
                Ok(Ranking::Multiset(free.unwrap_or(m).searching_in(boards)))
            }
            (Ok(_), None) => Err(Error::Unsupported(format!(
                "{too_many}: {smaller}, and its boards cannot be counted (too many maps \
                 exchange its identical pieces to test each against the group, and they meet \
                 more of the group's cosets than twirl lists){}",
                by_fibres(fibres)
            ))),
            (Err(e), _) if exact => Err(Error::Unsupported(format!("{too_many}: {e}"))),
            (Err(e), _) => {
                Err(Error::Unsupported(format!("{too_many}: {smaller}; {e}{}", by_fibres(fibres))))
            }
        }
    }

    /// Number of ranks.
    pub fn n_states(&self) -> u64 {
        match self {
            Ranking::Layout(l) => l.n_states(),
            Ranking::Enumerated(e) => e.n_states(),
            Ranking::Multiset(m) => m.n_states(),
            Ranking::Chain(c) => c.n_states(),
            Ranking::Fibres(f) => f.n_states(),
            Ranking::Classes(c) => c.n_states(),
            Ranking::CoordClasses(c) => c.n_states(),
            Ranking::FibreClasses(c) => c.n_states(),
            Ranking::FlipClasses(c) => c.n_states(),
        }
    }

    /// Number of ranks a finished search reaches ([`StateSpace::n_reachable`]).
    pub fn n_reachable(&self) -> u64 {
        match self {
            Ranking::Layout(l) => l.n_reachable(),
            Ranking::Multiset(m) => m.n_reachable(),
            _ => self.n_states(),
        }
    }

    /// The rank of a board (of its class's entry), or why it is not reachable.
    pub fn rank_board(&self, board: &Board) -> Result<u64> {
        match self {
            Ranking::Layout(l) => Ok(l.rank(&l.cells_of(board)?)),
            Ranking::Enumerated(e) => e.rank_of(board).map(|r| r as u64).ok_or_else(|| {
                Error::InvalidBoard("the board is not reachable from the solved board".into())
            }),
            Ranking::Multiset(m) => Ok(m.rank(&m.cells_of(board)?)),
            Ranking::Chain(c) => Ok(c.rank(&c.cells_of(board)?)),
            Ranking::Fibres(f) => Ok(f.rank(&f.state_of(board)?)),
            Ranking::Classes(c) => c.entry_of_board(board),
            Ranking::CoordClasses(c) => c.entry_of_board(board),
            Ranking::FibreClasses(c) => c.entry_of_board(board),
            Ranking::FlipClasses(c) => c.entry_of_board(board),
        }
    }

    /// The board with a given rank (the representative board of an entry).
    pub fn board(&self, rank: u64) -> Board {
        match self {
            Ranking::Layout(l) => l.board_of(&l.unrank(rank)),
            Ranking::Enumerated(e) => e.board(rank as u32),
            Ranking::Multiset(m) => m.board_of(&m.unrank(rank)),
            Ranking::Chain(c) => c.board_of(&c.unrank(rank)),
            Ranking::Fibres(f) => f.board_of(&f.unrank(rank)),
            Ranking::Classes(c) => c.board(rank),
            Ranking::CoordClasses(c) => c.board(rank),
            Ranking::FibreClasses(c) => c.board(rank),
            Ranking::FlipClasses(c) => c.board(rank),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use layout::Reduction;
    use proptest::prelude::*;
    use std::collections::HashSet;

    fn layout(spec: &str) -> (Puzzle, Layout) {
        let p = Puzzle::parse(spec, None).unwrap();
        let s = StateSpace::build(&p).unwrap();
        match s.ranking {
            Ranking::Layout(l) => (p, l),
            _ => panic!("{spec}: expected the fast layout"),
        }
    }

    #[test]
    fn exceptional_groups_are_listed() {
        for (spec, n) in
            [("nrp:2x3:2", 120u64), ("nrp:3x4:3", 720), ("nrp:3x3:3", 4), ("nrp:4x4:4:orient", 4)]
        {
            let p = Puzzle::parse(spec, None).unwrap();
            let s = StateSpace::build(&p).unwrap();
            assert!(matches!(s.ranking, Ranking::Enumerated(_)), "{spec}");
            assert_eq!(s.n_states(), n, "{spec}");
        }
    }

    #[test]
    fn table_sizes_follow_the_group() {
        for (spec, n) in [
            ("nrp:4x4:3", 812_851_200u64),
            ("nrp:3x3:2:orient", 92_897_280),
            ("nrp:3x4:2", 479_001_600),
            ("spin:3x3", 185_794_560),
            ("spin:3x3:1x2", 362_880),
            ("nrp:3x3:1", 1),
        ] {
            assert_eq!(layout(spec).1.n_states(), n, "{spec}");
        }
    }

    /// The fast layout of a puzzle built by hand.
    fn layout_of(name: &str, p: &Puzzle) -> Layout {
        match StateSpace::build(p).unwrap().ranking {
            Ranking::Layout(l) => l,
            _ => panic!("{name}: expected the fast layout"),
        }
    }

    /// Every rank unranks to a distinct valid board that ranks back, and every compiled
    /// move, both ways, agrees with the puzzle's own on every board. Returns the boards.
    fn check_exhaustive(name: &str, puzzle: &Puzzle, l: &Layout) -> HashSet<Board> {
        let inverses = puzzle.inverse_moves();
        let mut seen = HashSet::new();
        for r in 0..l.n_states() {
            let c = l.unrank(r);
            assert_eq!(l.rank(&c), r, "{name}");
            let b = l.board_of(&c);
            assert_eq!(l.cells_of(&b).unwrap(), c, "{name}");
            // In working form: `board_of` would hide an orientation left unreduced.
            for (i, (m, inv)) in puzzle.moves.iter().zip(&inverses).enumerate() {
                let solved = l.moves().solve_step(&c, i);
                assert_eq!(solved, l.cells_of(&puzzle.apply(&b, m)).unwrap(), "{name}: {}", m.name);
                let scrambled = l.moves().scramble_step(&c, i);
                let expected = l.cells_of(&puzzle.apply(&b, inv)).unwrap();
                assert_eq!(scrambled, expected, "{name}: {}", inv.name);
            }
            assert!(seen.insert(b), "{name}: rank {r} repeats a board");
        }
        seen
    }

    #[test]
    fn exhaustive_bijection_on_small_spaces() {
        for spec in [
            "nrp:2x4:2",
            "spin:2x3",
            "spin:2x2",
            "nrp:2x2:1:orient",
            "spin:2x3:1x2,2x2",
            "spin:2x2:1x1",
        ] {
            let (puzzle, l) = layout(spec);
            check_exhaustive(spec, &puzzle, &l);
        }
    }

    /// Orientations mod 3 (alone and beside flips, mod 6) and mod 8: the layout's boards are
    /// exactly those a listing of the reachable boards finds.
    #[test]
    fn exhaustive_bijection_with_orientations_mod_3() {
        for (name, p) in test_puzzles::small_oriented() {
            let l = layout_of(name, &p);
            let boards = check_exhaustive(name, &p, &l);
            let listed = Enumerated::new(&p).unwrap();
            assert_eq!(listed.n_states(), l.n_states(), "{name}");
            assert!(boards.iter().all(|b| listed.rank_of(b).is_some()), "{name}");
        }
    }

    /// The 2x2x2 cube (corner DBL fixed): corner orientations mod 3 in the fast layout, its
    /// moves agreeing with the puzzle's along random walks.
    #[test]
    fn two_by_two_cube_takes_the_fast_layout() {
        let p = test_puzzles::cube2();
        assert!(p.undirected);
        let analysis = Analysis::of(&p).unwrap();
        assert_eq!(analysis.group_order, BigUint::from(3_674_160u32));
        let orbits = &analysis.invariants.orbits;
        assert_eq!((orbits.len(), orbits[0].tied_mod, orbits[0].free_mod), (1, 1, 3));
        let l = layout_of("2x2x2", &p);
        assert_eq!(l.n_states(), 3_674_160);
        for seed in [1, 0x9E37_79B9_7F4A_7C15, 0x2545_F491_4F6C_DD1D] {
            walk(&p, &l, seed);
        }
        let p = test_puzzles::two_cubes_and_flips();
        let l = layout_of("two cubes and flips", &p);
        assert_eq!(BigUint::from(l.n_states()), Analysis::of(&p).unwrap().group_order);
        walk(&p, &l, 7);
    }

    /// A full search of the 2x2x2 cube in the half-turn metric finds its known distances.
    #[test]
    fn two_by_two_cube_distances() {
        let p = test_puzzles::cube2();
        let space = StateSpace::build(&p).unwrap();
        let table = crate::table::DistanceTable::in_memory(space.n_states()).unwrap();
        let config = crate::bfs::Config::new(1);
        let out = crate::bfs::search_puzzle(&p, &space, &table, &config, &crate::bfs::NoProgress)
            .unwrap();
        assert_eq!(
            out.histogram,
            [1, 9, 54, 321, 1847, 9992, 50136, 227536, 870072, 1887748, 623800, 2644]
        );
    }

    /// Orientations free modulo 5, 6 and 7 take the fast layout like the others up to 8
    /// (their moves reduce by each cell's modulus): every board of three cells, and random
    /// walks on 9 cells (16-byte vectors) and 18 cells (32-byte vectors) mod 5 and 7.
    #[test]
    fn orientations_mod_5_6_and_7_take_the_fast_layout() {
        for e in 3u8..=8 {
            let p = test_puzzles::three_cells(e);
            let l = layout_of("three cells", &p);
            let expected = match e {
                3 => Reduction::Thirds,
                4 | 8 => Reduction::Masks,
                _ => Reduction::Moduli,
            };
            assert_eq!(l.moves().reduction(), expected, "mod {e}");
            assert_eq!(l.n_states(), 3 * e as u64 * e as u64, "mod {e}");
            let boards = check_exhaustive("three cells", &p, &l);
            let listed = Enumerated::new(&p).unwrap();
            assert!(boards.iter().all(|b| listed.rank_of(b).is_some()), "mod {e}");
        }
        for (n, e) in [(9usize, 5u8), (9, 7), (18, 5), (18, 7)] {
            // 3-cycles chained along the first 9 cells and over the last 3, and a move
            // turning the first cell and the last oppositely (the cells between, on the
            // larger board, stay).
            let mut chained: Vec<[u8; 3]> = (0..7).step_by(2).map(|a| [a, a + 1, a + 2]).collect();
            if n > 9 {
                chained.push([n as u8 - 3, n as u8 - 2, n as u8 - 1]);
            }
            let mut moves = Vec::new();
            for c in &chained {
                let name = format!("C{}", c[0]);
                moves.extend(test_puzzles::powers(&test_puzzles::cycles(&name, n, &[c], &[]), e));
            }
            let turn = test_puzzles::cycles("T", n, &[], &[(0, 1), (n as u8 - 1, e - 1)]);
            moves.extend(test_puzzles::powers(&turn, e));
            let p = test_puzzles::one_row(n, e, moves);
            let l = layout_of("a row", &p);
            assert_eq!(l.moves().reduction(), Reduction::Moduli);
            let order = Analysis::of(&p).unwrap().group_order;
            assert_eq!(BigUint::from(l.n_states()), order, "{n} cells mod {e}");
            if n == 9 {
                assert_eq!(l.n_states(), 181_440 * (e as u64).pow(8));
            }
            for seed in [1, 0x9E37_79B9_7F4A_7C15, 0x2545_F491_4F6C_DD1D] {
                walk(&p, &l, seed);
            }
            // The scalar path (no vector instructions) agrees with the vector one.
            for r in (0..l.n_states()).step_by((l.n_states() / 500).max(1) as usize) {
                let c = l.unrank(r);
                for m in l.moves().solve_moves().iter().chain(l.moves().scramble_moves()) {
                    assert_eq!(l.moves().apply(&c, m), simd::apply_moduli_scalar(&c, m));
                }
            }
        }
    }

    /// Orientations free modulo 9 or 12 have no fast layout (a byte holds 8): it says why,
    /// and a small group is listed instead.
    #[test]
    fn orientations_past_8_are_refused_by_the_layout() {
        for e in [9u8, 12] {
            let p = test_puzzles::three_cells(e);
            let analysis = Analysis::of(&p).unwrap();
            assert!(analysis.invariants_are_exact());
            let err = Layout::without_runs(&p, analysis.invariants.clone()).unwrap_err();
            let msg = err.to_string();
            assert!(matches!(err, Error::Unsupported(_)), "{msg}");
            assert!(msg.contains("the orbit of cells 1 2 3"), "{msg}");
            assert!(msg.contains(&format!("free modulo {e}:")), "{msg}");
            assert!(msg.contains("modulo 8 at most") && !msg.contains('\n'), "{msg}");
            let space = StateSpace::build(&p).unwrap();
            assert!(matches!(space.ranking, Ranking::Enumerated(_)), "mod {e}");
            assert_eq!(space.n_states(), 3 * e as u64 * e as u64, "mod {e}");
        }
    }

    fn check_random_walk(spec: &str, seed: u64) {
        let (puzzle, l) = layout(spec);
        walk(&puzzle, &l, seed);
    }

    /// 200 random moves: the layout's moves agree with the puzzle's, ranks round-trip, and
    /// each scramble move undoes its solve move.
    fn walk(puzzle: &Puzzle, l: &Layout, seed: u64) {
        let mut board = puzzle.solved();
        let mut cells = l.cells_of(&board).unwrap();
        let mut x = seed | 1;
        for _ in 0..200 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let m = (x % puzzle.moves.len() as u64) as usize;
            board = puzzle.apply(&board, &puzzle.moves[m]);
            cells = l.moves().solve_step(&cells, m);
            assert_eq!(l.board_of(&cells), board);
            let r = l.rank(&cells);
            assert!(r < l.n_states());
            assert_eq!(l.unrank(r), cells);
            let back = l.moves().scramble_step(&cells, m);
            assert_eq!(l.moves().solve_step(&back, m), cells);
        }
    }

    /// The offset tables of cell runs agree with ranking the moved board directly.
    #[test]
    fn cell_runs_agree_with_direct_ranks() {
        for (spec, kept) in [("nrp:3x4:2", 8), ("nrp:4x4:3", 8), ("nrp:3x3:2", 6), ("nrp:2x5:2", 6)]
        {
            let (_, l) = layout(spec);
            runs::check_against_direct_ranks(&l, kept, spec);
        }
    }

    /// A layout ordered for its runs but built without their tables ranks as one with them
    /// (the board space that lists antipodes is built so).
    #[test]
    fn runs_order_alone_ranks_as_with_tables() {
        let mut reordered = 0;
        for spec in ["nrp:3x4:2", "nrp:4x4:3", "nrp:2x5:2"] {
            let (p, with) = layout(spec);
            assert!(with.cell_runs().is_some(), "{spec}");
            let analysis = Analysis::of(&p).unwrap();
            let without = Layout::ranked_as_new(&p, analysis.invariants).unwrap();
            assert!(without.cell_runs().is_none());
            let plain = Layout::without_runs(&p, Analysis::of(&p).unwrap().invariants).unwrap();
            let mut differs = false;
            for i in 0..2000 {
                let r = spread_sample(i, with.n_states());
                assert_eq!(without.unrank(r), with.unrank(r), "{spec} rank {r}");
                differs |= plain.unrank(r) != with.unrank(r);
            }
            reordered += usize::from(differs);
        }
        // Some runs reorder their board's last orbit: without that the ranks would differ.
        assert!(reordered > 0);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        #[test]
        fn random_walks_rank_round_trip(seed in any::<u64>(), which in 0usize..6) {
            let spec = ["nrp:4x4:3", "nrp:3x4:2", "spin:3x3", "nrp:3x3:2:orient", "nrp:4x4:3:orient", "spin:3x4:1x2,2x2"][which];
            check_random_walk(spec, seed);
        }
    }
}
