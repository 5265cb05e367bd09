//! The fast path: dense ranks inside the space the invariants allow.
//!
//! A rank is a mixed-radix number whose digits are, most significant first:
//! 1. per orbit, the rank of its tiles' permutation within its sign class ([`super::perm`]);
//! 2. the index of `(signs, orientation sums)` within the coupling group `H`;
//! 3. per orbit with free orientation, the reduced orientations of its tiles (indexed by
//!    tile, not by cell), all but the orbit's last tile, whose orientation the sum fixes.
//!
//! Orientation being the low digits keeps every orientation of one arrangement of tiles in
//! one contiguous run of ranks, and indexing it by tile means a move changes it by adding a
//! vector, without reordering digits.
//!
//! For a group smaller than its invariants, digits 1 and 2 (the "upper" digits) are replaced
//! by the index of their value among those the moves reach ([`ReachableUpper`]).

use std::collections::HashMap;
use std::sync::Arc;

mod upper_maps;

use super::bits::extract_bits;
use super::couplings::{BoardSteps, MAX_UPPER_SPACE, ReachableUpper};
use super::perm::{LehmerWeights, half_factorial, rank_padded, unrank_in_sign_class};
use super::runs::CellRuns;
use super::simd::{self, apply_compiled};
use super::small_perm::SmallPerm;
use crate::group::invariants::{Coord, Invariants, Orbit};
use crate::puzzle::{Board, Move, Puzzle};
use crate::{Error, Result};
pub(crate) use upper_maps::UpperMaps;

/// The largest board the fast path handles: tiles and their orientation share one byte.
pub const MAX_CELLS: usize = 32;
/// The largest board one 128-bit vector holds (a byte per cell): the kernels for boards up
/// to it take 16 lanes, those for larger ones 32.
pub(crate) const NARROW_CELLS: usize = 16;
pub(crate) const TILE_BITS: u32 = 5;
pub(crate) const TILE_MASK: u8 = (1 << TILE_BITS) - 1;

/// A board in the fast path's working form: byte `p` holds the tile on cell `p` in its low
/// five bits and that tile's reduced orientation above them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Cells(pub [u8; MAX_CELLS]);

/// A move compiled for [`Cells`]: `out[j] = (in[src[j]] + add[j]) & mask[j]`, the mask
/// reducing orientations modulo a power of two. Cells whose orientations count modulo 3
/// are reduced by `sub[j]` instead (see
/// [`apply_thirds_scalar`](super::simd::apply_thirds_scalar)), and where some orbit's
/// count modulo 5, 6 or 7, every cell by its `modulus[j]` (see
/// [`apply_moduli_scalar`](super::simd::apply_moduli_scalar)).
#[derive(Clone, Debug)]
pub struct CompiledMove {
    pub(super) src: [u8; MAX_CELLS],
    /// The turn of the tile arriving on the cell, shifted above the tile's bits.
    pub(super) add: [u8; MAX_CELLS],
    pub(super) mask: [u8; MAX_CELLS],
    pub(super) sub: [u8; MAX_CELLS],
    /// The cell's free orientation modulus (1 to 8), unshifted.
    pub(super) modulus: [u8; MAX_CELLS],
}

/// The most free orientations a byte of [`Cells`] can carry: three bits above the tile.
pub const MAX_FREE_MOD: u8 = 8;

#[derive(Clone, Debug)]
struct OrbitLayout {
    /// Cells of the orbit (also the tiles whose home is there).
    cells: Vec<u8>,
    free_mod: u8,
    /// Number of ranks of the orbit's permutation digit: `n!/2`.
    perm_radix: u64,
    /// Weights of its Lehmer digits, a ranked-out prefix's 0 ([`Layout::prefix_ranked_out`]).
    weights: LehmerWeights,
    /// `cells` padded with 0x80 (a byte shuffle reads 0 there), for
    /// [`orbit_tiles16`](super::simd::orbit_tiles16).
    shuffle: [u8; 32],
    /// The orbit's tiles as a bit mask.
    tile_mask: u32,
    /// The orbit's tiles in increasing order: the order of its orientation digits, whatever
    /// the order of `cells` (flip ranks read them as bits, lowest tile first).
    orient_tiles: Vec<u8>,
    /// Orbits of 2 to 8 cells: the permutation digit and sign from two table reads (the
    /// rank within the sign class is the Lehmer index halved: its last digit is the low
    /// bit). None where a ranked-out prefix changes the digit.
    small: Option<Arc<SmallPerm>>,
    /// `free_mod` to the power of the orbit's free digits (all but the last tile's), and
    /// the multiplier that reduces a sum modulo `free_mod` without a division
    /// ([`mod_by_magic`]).
    orient_radix: u64,
    sum_magic: u64,
}

/// Most orbits of two or more cells with turns whose sums [`TurnPlaces`] adds up in one
/// word.
const TURN_SUM_ORBITS: usize = 8;
/// Bits of one orbit's turn sum in that word: at most 32 turns below 8.
const TURN_SUM_BITS: u32 = 8;
const TURN_SUM_MASK: u32 = (1 << TURN_SUM_BITS) - 1;

/// The orientation digits of a board and their sums' code in one pass over its cells, for
/// turns modulo anything: each tile's turn times the place value of its digit (0 for each
/// orbit's last tile, whose turn the sum gives), and each orbit's turns summed in a byte of
/// one word, reduced after the pass. An orbit of one cell has no digit and its sum is the
/// turn on its cell: that goes straight into the code (the tangram's five). Reading them
/// tile by tile through a table of turns took 13% of Jing's pyraminx's backward steps.
#[derive(Clone, Debug)]
struct TurnPlaces {
    /// Per tile, the place value of its turn among the orientation digits.
    weight: [u64; MAX_CELLS],
    /// Per tile of an orbit of two or more, one in its orbit's byte of the word of sums.
    sum_unit: [u64; MAX_CELLS],
    /// The orbits of one cell with turns: the cell (its tile stays there) and the place
    /// value of its turn in the sums' code.
    single: Vec<(u8, u32)>,
    /// The orbits of two or more with turns: their byte's shift, modulus, the multiplier of
    /// [`mod_by_magic`], and their sum's place value in the code.
    summed: Vec<(u32, u32, u64, u32)>,
    /// The cells of those orbits (how many, then which), where they are not every cell:
    /// the tiles elsewhere have no digit and no sum to add to (the tangram's 3 cells of 20).
    summed_cells: Option<(usize, [u8; MAX_CELLS])>,
}

impl TurnPlaces {
    /// The places for `orbits` (in the layout's order), or `None` past
    /// [`TURN_SUM_ORBITS`] orbits of two or more cells with turns.
    fn new(orbits: &[OrbitLayout]) -> Option<TurnPlaces> {
        let turning: Vec<&OrbitLayout> = orbits.iter().filter(|o| o.free_mod > 1).collect();
        if turning.iter().filter(|o| o.cells.len() > 1).count() > TURN_SUM_ORBITS {
            return None;
        }
        let mut places = TurnPlaces {
            weight: [0; MAX_CELLS],
            sum_unit: [0; MAX_CELLS],
            single: Vec::new(),
            summed: Vec::new(),
            summed_cells: None,
        };
        // The cells of the orbits summed, gathered as they are placed.
        let mut cells: Vec<u8> = Vec::new();
        // The last orbit's digits and sum are the least significant; within an orbit, its
        // first tile's digit.
        let (mut place, mut code_place) = (1u64, 1u32);
        for o in turning.iter().rev() {
            let last = o.orient_tiles.len() - 1;
            if last == 0 {
                places.single.push((o.cells[0], code_place));
            } else {
                let shift = TURN_SUM_BITS * places.summed.len() as u32;
                let e = o.free_mod as u32;
                places.summed.push((shift, e, o.sum_magic, code_place));
                cells.extend(&o.cells);
                let mut digit_place = place;
                for (i, &t) in o.orient_tiles.iter().enumerate() {
                    places.sum_unit[t as usize] = 1 << shift;
                    if i < last {
                        places.weight[t as usize] = digit_place;
                        digit_place *= o.free_mod as u64;
                    }
                }
            }
            place *= o.orient_radix;
            code_place *= o.free_mod as u32;
        }
        if cells.len() < orbits.iter().map(|o| o.cells.len()).sum() {
            cells.sort_unstable();
            let mut list = [0u8; MAX_CELLS];
            list[..cells.len()].copy_from_slice(&cells);
            places.summed_cells = Some((cells.len(), list));
        }
        Some(places)
    }

    /// The orientation sums' code and the orientation digits of the working bytes `cells`.
    #[inline(always)]
    fn read(&self, cells: &[u8]) -> (u32, u64) {
        let (mut digits, mut sums, mut code) = (0u64, 0u64, 0u32);
        let mut add = |b: u8| {
            let (t, u) = ((b & TILE_MASK) as usize, (b >> TILE_BITS) as u64);
            digits += u * self.weight[t];
            sums += u * self.sum_unit[t];
        };
        match &self.summed_cells {
            Some((n, list)) => list[..*n].iter().for_each(|&c| add(cells[c as usize])),
            None => cells.iter().for_each(|&b| add(b)),
        }
        for &(c, place) in &self.single {
            code += (cells[c as usize] >> TILE_BITS) as u32 * place;
        }
        for &(shift, e, magic, place) in &self.summed {
            code += mod_by_magic((sums >> shift) as u32 & TURN_SUM_MASK, magic, e) * place;
        }
        (code, digits)
    }
}

/// Dense ranks of the boards that satisfy a puzzle's invariants.
#[derive(Clone, Debug)]
pub struct Layout {
    n_cells: usize,
    orbits: Vec<OrbitLayout>,
    /// `local[tile]`: the tile's index within its orbit.
    local: [u8; MAX_CELLS],
    /// `coupling[h]`: the code in `A` of the `h`-th element of `H`.
    coupling: Vec<u32>,
    /// `coupling_index[code]`: `h`, or `u32::MAX` if the code is not in `H`.
    coupling_index: Vec<u32>,
    /// Product of the radices of the orientation-sum coordinates of `A`.
    sums_space: u32,
    /// Number of free orientation digit combinations.
    orient_count: u64,
    n_states: u64,
    /// Ranks a finished search reaches: `n_states`, or the group order when the group is
    /// smaller than the invariants and its space is searched (see [`Layout::searching_in`]).
    reachable: u64,
    /// For a group smaller than its invariants: the upper values it reaches, which ranks
    /// then count instead of all of them (see [`Layout::searching_in`]).
    reachable_upper: Option<Arc<ReachableUpper>>,
    /// `Some(k)` when ranks fall into aligned runs of `2^k` that moves map onto each other by
    /// XOR of the offset (see [`Layout::xor_block_bits`]).
    xor_block_bits: Option<u32>,
    /// Runs of ranks kept together by moves that keep a set of cells (see [`CellRuns`]).
    cell_runs: Option<CellRuns>,
    /// Every free orientation is a flip (mod 2): ranks read them as bits.
    flips_only: bool,
    /// Where turns are not all flips, each tile's turn read in one pass (see
    /// [`TurnPlaces`]); `None` past [`TURN_SUM_ORBITS`] orbits of two or more with turns.
    turn_places: Option<Box<TurnPlaces>>,
    invariants: Invariants,
    moves: CellMoves,
}

impl Layout {
    /// Builds the layout from the invariants, with cell runs where the moves allow them.
    /// Fails if the board has more than [`MAX_CELLS`] cells or the space does not fit 64-bit
    /// ranks.
    pub fn new(puzzle: &Puzzle, invariants: Invariants) -> Result<Layout> {
        let mut layout = Layout::without_runs(puzzle, invariants)?;
        layout.add_runs_around(&puzzle.moves, &[]);
        Ok(layout)
    }

    /// [`Layout::new`] without the runs' tables: the same ranks (the last orbit ordered as
    /// the runs would order it), for a space that only ranks and unranks boards (listing a
    /// search's antipodes), where the tables would be most of a small puzzle's set-up.
    pub fn ranked_as_new(puzzle: &Puzzle, invariants: Invariants) -> Result<Layout> {
        let mut layout = Layout::without_runs(puzzle, invariants)?;
        CellRuns::choose(&mut layout, &puzzle.moves, &[]);
        Ok(layout)
    }

    /// Adds cell runs ([`CellRuns::build`]) whose cells avoid `fixed`, which must head their
    /// orbit's Lehmer order; the last orbit's other cells may be reordered.
    pub(crate) fn add_runs_around(&mut self, moves: &[Move], fixed: &[u8]) {
        self.cell_runs = CellRuns::build(self, moves, fixed);
    }

    /// [`Layout::new`] without cell runs: every orbit keeps its cells in increasing order
    /// until [`Layout::reorder_orbit`] changes it.
    pub fn without_runs(puzzle: &Puzzle, invariants: Invariants) -> Result<Layout> {
        let n = puzzle.n_positions();
        let too_large = || {
            Error::TooLarge(format!(
                "{} boards: more than 64-bit ranks can count",
                invariants.model_order()
            ))
        };
        // The count says more than the cells where both refuse (a megaminx's 1.0e68 boards);
        // with identical pieces the count of elements is not the boards'.
        if n > MAX_CELLS {
            if !puzzle.has_identical_pieces() && u64::try_from(invariants.model_order()).is_err() {
                return Err(too_large());
            }
            return Err(Error::TooLarge(format!(
                "boards of more than {MAX_CELLS} cells cannot be searched exhaustively"
            )));
        }
        let mut local = [0u8; MAX_CELLS];
        local[..n].copy_from_slice(&invariants.local);
        let mut orbits = Vec::new();
        let mut n_states: u64 = invariants.coupling.len() as u64;
        let mut orient_count: u64 = 1;
        for o in &invariants.orbits {
            let len = o.cells.len();
            if len > 20 {
                return Err(too_large());
            }
            check_free_mod(o)?;
            let perm_radix = half_factorial(len);
            n_states = n_states.checked_mul(perm_radix).ok_or_else(too_large)?;
            if o.free_mod > 1 {
                orient_count = (orient_count as u128 * (o.free_mod as u128).pow(len as u32 - 1))
                    .try_into()
                    .map_err(|_| too_large())?;
            }
            let weights = LehmerWeights::new(len);
            let mut shuffle = [0x80u8; 32];
            shuffle[..len].copy_from_slice(&o.cells);
            orbits.push(OrbitLayout {
                cells: o.cells.clone(),
                free_mod: o.free_mod,
                perm_radix,
                weights,
                shuffle,
                tile_mask: o.cells.iter().fold(0, |m, &c| m | 1 << c),
                orient_tiles: o.cells.clone(),
                small: (len >= 2).then(|| SmallPerm::new(len).map(Arc::new)).flatten(),
                orient_radix: (o.free_mod as u64).pow(len as u32 - 1),
                sum_magic: (u64::MAX / o.free_mod as u64).wrapping_add(1),
            });
        }
        n_states = n_states.checked_mul(orient_count).ok_or_else(too_large)?;
        let space: u32 = invariants.radices.iter().map(|&r| r as u32).product();
        let sums_space: u32 = invariants
            .coords
            .iter()
            .zip(&invariants.radices)
            .filter(|(c, _)| matches!(c, Coord::Sum(_)))
            .map(|(_, &r)| r as u32)
            .product();
        let mut coupling_index = vec![u32::MAX; space as usize];
        for (h, &code) in invariants.coupling.iter().enumerate() {
            coupling_index[code as usize] = h as u32;
        }
        let moves = CellMoves::new(puzzle, &invariants);
        let xor_block_bits = xor_blocks(&invariants, sums_space, orient_count);
        let flips_only = invariants.orbits.iter().all(|o| o.free_mod <= 2);
        let turn_places = TurnPlaces::new(&orbits).map(Box::new);
        Ok(Layout {
            xor_block_bits,
            cell_runs: None,
            flips_only,
            turn_places,
            n_cells: n,
            orbits,
            local,
            coupling: invariants.coupling.clone(),
            coupling_index,
            sums_space,
            orient_count,
            n_states,
            reachable: n_states,
            reachable_upper: None,
            invariants,
            moves,
        })
    }

    /// Runs of ranks that moves keeping a set of cells map onto runs, if the puzzle has them.
    pub fn cell_runs(&self) -> Option<&CellRuns> {
        self.cell_runs.as_ref()
    }

    /// The parity (0 or 1) of the last orbit's own Lehmer digits in the run whose first board
    /// (offset 0) is `base`: the offset tables of [`CellRuns`] depend on it. At offset 0 the
    /// signs are all even and the arrangement on `Q` is the first of its class, so the digit
    /// next to the last one is that parity.
    pub fn run_parity(&self, base: &Cells) -> usize {
        let o = self.orbits.last().expect("a board has an orbit");
        let n = o.cells.len();
        let xs = self.orbit_tiles(base, o);
        (xs[n - 2] > xs[n - 1]) as usize
    }

    /// The board at `offset` of a run of [`CellRuns`], from the run's first boards of each
    /// offset class (`bases[c]` has rank `start + c`) and the run's parity: only the tiles on
    /// `Q` change within a run, so this unranks `q` digits instead of the whole board.
    pub fn unrank_in_run(&self, bases: &[Cells], parity: usize, offset: u64) -> Cells {
        let runs = self.cell_runs.as_ref().expect("a layout with cell runs");
        let classes = runs.classes;
        let class = (offset % classes) as usize;
        let mut out = bases[class];
        let q = runs.cells.len();
        // In the first board of a class the tiles on Q are in increasing order, but for the
        // last two, which the sign may swap.
        let mut tiles = [0u8; 8];
        for (t, &c) in tiles.iter_mut().zip(&runs.cells) {
            *t = out.0[c as usize];
        }
        if self.local[tiles[q - 2] as usize] > self.local[tiles[q - 1] as usize] {
            tiles.swap(q - 2, q - 1);
        }
        let sign = (self.coupling_signs(class) & 1) ^ parity as u32;
        unrank_in_sign_class(offset / classes, sign, q, |i, x| {
            out.0[runs.cells[i] as usize] = tiles[x as usize];
        });
        out
    }

    /// Whether boards are plain permutations (no orientation, no orientation sums).
    pub(super) fn plain_permutations(&self) -> bool {
        self.orient_count == 1 && self.sums_space == 1
    }

    /// Number of orbits.
    pub(crate) fn n_orbits(&self) -> usize {
        self.orbits.len()
    }

    /// The cells of orbit `j`, in Lehmer order.
    pub(crate) fn orbit_cells(&self, j: usize) -> &[u8] {
        &self.orbits[j].cells
    }

    /// Puts the last orbit's cells in a new Lehmer order (before any rank is taken).
    pub(super) fn reorder_last_orbit(&mut self, order: &[u8]) {
        self.reorder_orbit(self.orbits.len() - 1, order);
    }

    /// Puts orbit `j`'s cells in a new Lehmer order (before any rank is taken); the
    /// orientation digits keep their order.
    pub(crate) fn reorder_orbit(&mut self, j: usize, order: &[u8]) {
        let o = &mut self.orbits[j];
        debug_assert_eq!(o.cells.len(), order.len());
        o.cells = order.to_vec();
        o.shuffle[..order.len()].copy_from_slice(order);
        for (i, &c) in order.iter().enumerate() {
            self.local[c as usize] = i as u8;
        }
    }

    /// The radix of orbit `j`'s permutation digit (`n!/2`, or less with a ranked-out prefix).
    pub(crate) fn orbit_radix(&self, j: usize) -> u64 {
        self.orbits[j].perm_radix
    }

    /// The index of a tile within its orbit's Lehmer order.
    #[inline(always)]
    pub(crate) fn local_of(&self, tile: u8) -> u8 {
        self.local[(tile & TILE_MASK) as usize]
    }

    /// The radix of everything below the permutation digits: coupling and orientations.
    pub(crate) fn low_radix(&self) -> u64 {
        debug_assert!(self.reachable_upper.is_none(), "upper digits are whole");
        self.coupling.len() as u64 * self.orient_count
    }

    /// Number of cells.
    pub(crate) fn n_cells(&self) -> usize {
        self.n_cells
    }

    /// The same ranking with the first `prefix[j]` Lehmer digits of each orbit `j` left
    /// out: boards that differ only in the tiles on those cells get the same rank, and the
    /// ranks of the boards with one set of tiles there are `0..n_states` densely. Each
    /// `prefix[j]` must leave at least two cells of its orbit. Cell runs are kept when they
    /// avoid the prefix (their ranks are then the low digits of both rankings); XOR runs
    /// are dropped (they would cross).
    pub(crate) fn prefix_ranked_out(&self, prefix: &[usize]) -> Layout {
        debug_assert!(self.reachable_upper.is_none(), "upper digits are whole");
        let mut out = self.clone();
        let last = self.orbits.len() - 1;
        let ranked_out = &self.orbits[last].cells[..prefix[last]];
        if let Some(runs) = &self.cell_runs
            && runs.cells.iter().any(|c| ranked_out.contains(c))
        {
            out.cell_runs = None;
        }
        out.xor_block_bits = None;
        let mut n_states = out.low_radix();
        for (o, &k) in out.orbits.iter_mut().zip(prefix) {
            let n = o.cells.len();
            assert!(k == 0 || k + 2 <= n, "a ranked-out prefix leaves two cells of its orbit");
            o.weights = o.weights.ranked_out(n, k);
            o.perm_radix = half_factorial(n - k);
            if k > 0 {
                o.small = None;
            }
            n_states *= o.perm_radix;
        }
        out.n_states = n_states;
        out
    }

    /// Orbit `j`'s permutation digit (the rank of its tiles' permutation within its sign
    /// class, all its Lehmer digits) and sign.
    #[inline(always)]
    pub(crate) fn orbit_permutation(&self, s: &Cells, j: usize) -> (u64, u32) {
        self.orbit_rank(s, &self.orbits[j])
    }

    /// An orbit's permutation digit and sign (see [`Layout::orbit_permutation`]).
    #[inline(always)]
    fn orbit_rank(&self, s: &Cells, o: &OrbitLayout) -> (u64, u32) {
        let n = o.cells.len();
        if n < 2 {
            return (0, 0);
        }
        let xs = self.orbit_tiles(s, o);
        match &o.small {
            Some(small) => {
                let (lehmer, sign) = small.index_and_sign(&xs);
                (lehmer >> 1, sign)
            }
            None => rank_padded(&xs, n, &o.weights),
        }
    }

    /// Orbit `j`'s Lehmer index (among all its arrangements, both signs) from its tables,
    /// where it has them (2 to 8 cells, no ranked-out prefix).
    #[inline(always)]
    pub(crate) fn small_lehmer_index(&self, s: &Cells, j: usize) -> Option<u64> {
        let o = &self.orbits[j];
        o.small.as_ref().map(|small| small.index(&self.orbit_tiles(s, o)))
    }

    /// A board's element of the coupling group `H` (its index), given the board's sign code,
    /// and its orientation digits.
    #[inline(always)]
    pub(super) fn coupling_and_orientation(&self, s: &Cells, sign_code: u32) -> (u32, u64) {
        let (sums_code, orient_rank) = self.orientation_digits(s);
        let h = self.coupling_index[(sign_code * self.sums_space + sums_code) as usize];
        debug_assert!(h != u32::MAX, "board outside the coupling group");
        (h, orient_rank)
    }

    /// Number of elements of the coupling group `H`.
    pub(super) fn coupling_len(&self) -> usize {
        self.coupling.len()
    }

    /// The sign code of the `h`-th element of `H`.
    pub(super) fn coupling_signs(&self, h: usize) -> u32 {
        self.coupling[h] / self.sums_space
    }

    /// The index in `H` of a sign code (boards without orientation sums).
    pub(super) fn coupling_index_of(&self, signs: u32) -> u32 {
        self.coupling_index[(signs * self.sums_space) as usize]
    }

    /// Number of ranks (and of reachable boards once the bound is verified).
    pub fn n_states(&self) -> u64 {
        self.n_states
    }

    /// Number of ranks a finished search reaches (see [`Layout::searching_in`]).
    pub fn n_reachable(&self) -> u64 {
        self.reachable
    }

    /// The layout of a group of `group_order` boards smaller than the space its invariants
    /// allow. Where the upper digits' space is small enough, only the values the moves reach
    /// are ranked ([`ReachableUpper`]): exactly the group when the orientation digits are
    /// free given them (the skewb, twsearch's pyraminx), else a smaller superset of it. A
    /// search reaches `group_order` of the ranks and stops when a distance finds nothing new
    /// (as twsearch searches such puzzles). Runs are dropped: they follow the digits replaced.
    pub fn searching_in(mut self, group_order: u64) -> Layout {
        debug_assert!(group_order <= self.n_states);
        let space = self.n_states / self.orient_count;
        let first = self.upper_and_orientation(&self.solved()).0;
        let found = match (space <= MAX_UPPER_SPACE).then(|| self.upper_moves()).flatten() {
            Some(tables) => (tables.reach_by_chain(first, space))
                .or_else(|| ReachableUpper::search(space, first, &tables)),
            None => ReachableUpper::search(
                space,
                first,
                &BoardSteps {
                    moves: &self.moves,
                    upper: |s: &Cells| self.upper_and_orientation(s).0,
                    // Every upper value is a rank of the layout so far, its orientation
                    // digits 0.
                    board_of: |u| self.board_of_upper(u, 0),
                },
            ),
        };
        // The values found must hold the group (they would not if a move's new upper value
        // depended on more than the old one): else the whole space stays.
        let holds_group = |f: &ReachableUpper| f.len() * self.orient_count >= group_order;
        if let Some(found) = found.filter(|f| f.len() < space && holds_group(f)) {
            self.n_states = found.len() * self.orient_count;
            self.reachable_upper = Some(Arc::new(found));
            self.cell_runs = None;
            self.xor_block_bits = None;
        }
        self.reachable = group_order;
        self
    }

    /// Number of orientation-digit combinations: the low radix of a rank, below its upper
    /// digits (see the module docs).
    pub(crate) fn orientation_count(&self) -> u64 {
        self.orient_count
    }

    /// A board's upper digits as one index below `n_states / orientation_count` (among the
    /// reachable values, with [`Layout::ranks_reachable_couplings`]).
    #[inline(always)]
    pub(crate) fn board_upper_index(&self, s: &Cells) -> u64 {
        self.index_of_upper(self.board_upper(s))
    }

    /// A board's upper digits as one value (before [`Layout::index_of_upper`]).
    #[inline(always)]
    pub(crate) fn board_upper(&self, s: &Cells) -> u64 {
        self.upper_and_orientation(s).0
    }

    /// The upper value of index `i` (see [`Layout::board_upper_index`]).
    pub(crate) fn upper_at_index(&self, i: u64) -> u64 {
        match &self.reachable_upper {
            Some(r) => r.upper(i),
            None => i,
        }
    }

    /// The index ranks give an upper value: itself, or its index among the reachable
    /// values (`u32::MAX` for another).
    #[inline(always)]
    pub(crate) fn index_of_upper(&self, upper: u64) -> u64 {
        match &self.reachable_upper {
            Some(r) => r.index(upper) as u64,
            None => upper,
        }
    }

    /// Asks the cache for what [`Layout::index_of_upper`] reads for `upper` (a hint).
    #[inline(always)]
    pub(crate) fn prefetch_index_of_upper(&self, upper: u64) {
        if let Some(r) = &self.reachable_upper {
            r.prefetch_index(upper);
        }
    }

    /// A board's orientation digits (the rank's low part), without its permutation digits.
    #[inline(always)]
    pub(crate) fn orientation_index(&self, s: &Cells) -> u64 {
        self.orientation_digits(s).1
    }

    /// Whether ranks count only the upper values the moves reach (see
    /// [`Layout::searching_in`]).
    pub fn ranks_reachable_couplings(&self) -> bool {
        self.reachable_upper.is_some()
    }

    /// The invariants the layout was built from (their orbits list cells in increasing
    /// order, which [`CellRuns`] may have changed for the layout's last orbit).
    pub fn invariants(&self) -> &Invariants {
        &self.invariants
    }

    /// `Some(k)` when every arrangement of tiles owns an aligned run of `2^k >= 32` ranks (all
    /// its orientations) and a move maps the run of one arrangement onto the run of another by
    /// XOR-ing the offset within the run with a constant. That holds when every free
    /// orientation is a flip (mod 2: adding a vector of flips is an XOR) and, for each sign
    /// pattern, the orientation sums are either all allowed or fixed. The search then moves
    /// whole runs at once.
    pub fn xor_block_bits(&self) -> Option<u32> {
        self.xor_block_bits
    }

    /// The moves, compiled.
    pub fn moves(&self) -> &CellMoves {
        &self.moves
    }

    /// The local indices of the tiles on an orbit's cells, in the orbit's order, padded with
    /// [`PAD`](super::perm::PAD).
    #[inline(always)]
    fn orbit_tiles(&self, s: &Cells, o: &OrbitLayout) -> [u8; 32] {
        #[cfg(all(target_arch = "x86_64", target_feature = "sse4.1"))]
        if self.n_cells <= NARROW_CELLS {
            return simd::orbit_tiles16(s, &o.shuffle, &self.local);
        }
        #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
        if self.n_cells <= MAX_CELLS {
            return simd::orbit_tiles32(s, &o.shuffle, &self.local);
        }
        simd::orbit_tiles_scalar(s, &o.cells, &self.local)
    }

    /// The rank of a board in working form. The board must satisfy the invariants (and be
    /// reachable, with [`Layout::ranks_reachable_couplings`]).
    #[inline]
    pub fn rank(&self, s: &Cells) -> u64 {
        let (upper, orient_rank) = self.upper_and_orientation(s);
        self.index_of_upper(upper) * self.orient_count + orient_rank
    }

    /// The value of a board's upper digits (permutation ranks and coupling index) and of its
    /// orientation digits.
    #[inline(always)]
    fn upper_and_orientation(&self, s: &Cells) -> (u64, u64) {
        let (perm_rank, sign_code) = self.permutation_digits(s);
        let (h, orient_rank) = self.coupling_and_orientation(s, sign_code);
        (perm_rank * self.coupling.len() as u64 + h as u64, orient_rank)
    }

    /// The orbits' permutation ranks (within their sign classes) as one number, and their
    /// signs.
    #[inline(always)]
    fn permutation_digits(&self, s: &Cells) -> (u64, u32) {
        let mut perm_rank = 0u64;
        let mut sign_code = 0u32;
        for o in &self.orbits {
            let n = o.cells.len();
            let (r, sign) = self.orbit_rank(s, o);
            perm_rank = perm_rank * o.perm_radix + r;
            if n >= 2 {
                sign_code = sign_code * 2 + sign;
            }
        }
        (perm_rank, sign_code)
    }

    /// The orbits' orientation sums (their code in `A`) and the free orientation digits.
    #[inline(always)]
    fn orientation_digits(&self, s: &Cells) -> (u32, u64) {
        let mut sums_code = 0u32;
        let mut orient_rank = 0u64;
        if self.orient_count == 1 && self.sums_space == 1 {
            return (0, 0);
        }
        if self.flips_only {
            // Flips: one bit per tile; an orbit's digits are its tiles' bits, lowest tile
            // least significant, the last tile's bit left to the sum.
            let mut flips = 0u32;
            for &b in &s.0[..self.n_cells] {
                flips |= ((b >> TILE_BITS) as u32) << (b & TILE_MASK);
            }
            for o in self.orbits.iter().filter(|o| o.free_mod > 1) {
                let v = extract_bits(flips, o.tile_mask);
                let free = o.cells.len() - 1;
                orient_rank = (orient_rank << free) | (v & ((1 << free) - 1)) as u64;
                sums_code = sums_code * 2 + (v.count_ones() & 1);
            }
        } else if let Some(places) = &self.turn_places {
            return places.read(&s.0[..self.n_cells]);
        } else {
            let mut tile_orient = [0u8; MAX_CELLS];
            for p in 0..self.n_cells {
                tile_orient[(s.0[p] & TILE_MASK) as usize] = s.0[p] >> TILE_BITS;
            }
            for o in self.orbits.iter().filter(|o| o.free_mod > 1) {
                let e = o.free_mod as u32;
                let last = o.orient_tiles.len() - 1;
                let mut sum = tile_orient[o.orient_tiles[last] as usize] as u32;
                // The first tile is the least significant digit.
                let mut digits = 0u64;
                for &t in o.orient_tiles[..last].iter().rev() {
                    let u = tile_orient[t as usize] as u32;
                    sum += u;
                    digits = digits * e as u64 + u as u64;
                }
                orient_rank = orient_rank * o.orient_radix + digits;
                sums_code = sums_code * e + mod_by_magic(sum, o.sum_magic, e);
            }
        }
        (sums_code, orient_rank)
    }

    /// The board in working form with the given rank (`rank < n_states`).
    #[inline]
    pub fn unrank(&self, rank: u64) -> Cells {
        debug_assert!(rank < self.n_states);
        self.board_of_upper(self.upper_at_index(rank / self.orient_count), rank % self.orient_count)
    }

    /// The solved board in working form.
    pub(crate) fn solved(&self) -> Cells {
        Cells(std::array::from_fn(|i| if i < self.n_cells { i as u8 } else { 0 }))
    }

    /// Number of upper values, reachable or not: the coupling group's order times the
    /// orbits' permutation radices.
    pub(crate) fn upper_space(&self) -> u64 {
        self.orbits.iter().map(|o| o.perm_radix).product::<u64>() * self.coupling.len() as u64
    }

    /// The board of an upper value (reachable or not) and orientation digits.
    #[inline]
    pub(crate) fn board_of_upper(&self, upper: u64, orient_rank: u64) -> Cells {
        let (arrangement, sums_code) = self.arrangement_of_upper(upper);
        self.with_orientations(arrangement, sums_code, orient_rank)
    }

    /// The tiles' arrangement of an upper value (every turn 0) and its orientation sums'
    /// code: what [`Layout::with_orientations`] completes.
    #[inline(always)]
    pub(crate) fn arrangement_of_upper(&self, upper: u64) -> (Cells, u32) {
        let h = (upper % self.coupling.len() as u64) as usize;
        let mut perm_rank = upper / self.coupling.len() as u64;
        let code = self.coupling[h];
        let mut sign_code = code / self.sums_space;
        let mut out = [0u8; MAX_CELLS];
        for o in self.orbits.iter().rev() {
            let n = o.cells.len();
            let r = perm_rank % o.perm_radix;
            perm_rank /= o.perm_radix;
            let sign = if n >= 2 {
                let s = sign_code & 1;
                sign_code >>= 1;
                s
            } else {
                0
            };
            unrank_in_sign_class(r, sign, n, |i, x| out[o.cells[i] as usize] = o.cells[x as usize]);
        }
        (Cells(out), code % self.sums_space)
    }

    /// An arrangement with its tiles turned by orientation digits whose sums are
    /// `sums_code`'s.
    #[inline(always)]
    pub(crate) fn with_orientations(
        &self,
        arrangement: Cells,
        mut sums_code: u32,
        mut orient_rank: u64,
    ) -> Cells {
        let mut tile_orient = [0u8; MAX_CELLS];
        for o in self.orbits.iter().rev().filter(|o| o.free_mod > 1) {
            let e = o.free_mod as u64;
            let sum = sums_code as u64 % e;
            sums_code /= e as u32;
            let last = o.orient_tiles.len() - 1;
            let mut acc = 0u64;
            for i in 0..last {
                let u = orient_rank % e;
                orient_rank /= e;
                tile_orient[o.orient_tiles[i] as usize] = u as u8;
                acc += u;
            }
            tile_orient[o.orient_tiles[last] as usize] = ((sum + e * last as u64 - acc) % e) as u8;
        }
        let mut out = arrangement.0;
        for b in out.iter_mut().take(self.n_cells) {
            *b |= tile_orient[*b as usize] << TILE_BITS;
        }
        Cells(out)
    }

    /// Converts a board to working form, or explains which invariant it breaks.
    pub fn cells_of(&self, board: &Board) -> Result<Cells> {
        let cells = cells_of_board(&self.invariants, self.n_cells, board)?;
        let ((_, signs), (sums, _)) =
            (self.permutation_digits(&cells), self.orientation_digits(&cells));
        if self.coupling_index[(signs * self.sums_space + sums) as usize] == u32::MAX {
            return Err(Error::InvalidBoard(
                "the board breaks a parity or orientation-sum constraint of the moves".into(),
            ));
        }
        if self.reachable_upper.is_some() && self.board_upper_index(&cells) == u32::MAX as u64 {
            return Err(Error::InvalidBoard(
                "the moves cannot reach the board: its pieces' arrangement does not go with \
                 their parities and orientation sums (a coupling of this group)"
                    .into(),
            ));
        }
        Ok(cells)
    }

    /// Converts working form back to a board.
    pub fn board_of(&self, s: &Cells) -> Board {
        board_of_cells(&self.invariants, self.n_cells, s)
    }
}

/// A board in working form (tiles with their reduced orientations), or why a tile cannot
/// stand where it does; the invariants' parities and sums are not checked here.
pub(super) fn cells_of_board(inv: &Invariants, n_cells: usize, board: &Board) -> Result<Cells> {
    let mut out = [0u8; MAX_CELLS];
    for (p, &tile) in board.tiles.iter().enumerate().take(n_cells) {
        let t = tile as usize;
        if inv.orbit_of[t] != inv.orbit_of[p] {
            return Err(Error::InvalidBoard(format!(
                "tile {} cannot reach cell {} (they lie in different orbits)",
                t + 1,
                p + 1
            )));
        }
        let Some(turn) = inv.reduced_orientation(p, board.orient[p], inv.potential[t]) else {
            return Err(Error::InvalidBoard(format!(
                "tile {} cannot stand on cell {} with that orientation: orientation mod {} is fixed by the cell",
                t + 1,
                p + 1,
                inv.orbits[inv.orbit_of[p] as usize].tied_mod
            )));
        };
        out[p] = t as u8 | (turn << TILE_BITS);
    }
    Ok(Cells(out))
}

/// The board a working form stands for (see [`cells_of_board`]).
pub(super) fn board_of_cells(inv: &Invariants, n_cells: usize, s: &Cells) -> Board {
    let mut board = Board::solved(1, n_cells);
    for p in 0..n_cells {
        let t = (s.0[p] & TILE_MASK) as usize;
        board.tiles[p] = t as u8;
        board.orient[p] = inv.shown_orientation(p, s.0[p] >> TILE_BITS, inv.potential[t]);
    }
    board
}

/// Refuses an orbit whose free orientations [`Cells`] cannot carry (see [`MAX_FREE_MOD`]).
pub(super) fn check_free_mod(o: &Orbit) -> Result<()> {
    if o.free_mod <= MAX_FREE_MOD {
        return Ok(());
    }
    Err(Error::Unsupported(format!(
        "the orbit of cells {} has orientations free modulo {}: boards in working form (the \
         searches' ranks) hold orientations modulo 8 at most",
        crate::group::invariants::cell_list(&o.cells),
        o.free_mod
    )))
}

/// A puzzle's moves compiled for boards in working form, in solving direction and undone:
/// what every ranking of such boards (layout, multiset, chain) moves them by.
#[derive(Clone, Debug)]
pub struct CellMoves {
    n_cells: usize,
    /// How moves reduce orientations: a branch once per move, so that puzzles whose
    /// moduli are powers of two pay nothing for the others.
    reduction: Reduction,
    solve: Vec<CompiledMove>,
    scramble: Vec<CompiledMove>,
}

impl CellMoves {
    /// The moves of `puzzle` on boards whose orientations `invariants` reduce.
    pub(super) fn new(puzzle: &Puzzle, invariants: &Invariants) -> CellMoves {
        let (solve, scramble) = compile_moves(puzzle, invariants);
        let reduction = Reduction::of(invariants.orbits.iter().map(|o| o.free_mod));
        CellMoves { n_cells: puzzle.n_positions(), reduction, solve, scramble }
    }

    /// How the moves reduce orientations.
    #[cfg(test)]
    pub(super) fn reduction(&self) -> Reduction {
        self.reduction
    }

    /// Number of moves.
    pub fn len(&self) -> usize {
        self.solve.len()
    }

    /// Whether there are no moves.
    pub fn is_empty(&self) -> bool {
        self.solve.is_empty()
    }

    /// The moves in solving direction.
    pub fn solve_moves(&self) -> &[CompiledMove] {
        &self.solve
    }

    /// Their inverses, in the same order.
    pub fn scramble_moves(&self) -> &[CompiledMove] {
        &self.scramble
    }

    /// Per move, the earlier move it is a power of, where it is one (R2 and R' of R; a
    /// base is no such power itself). A move sends each cell's tile to a cell and turns it
    /// there, all of which shows in its image of one board of distinct tiles unturned: two
    /// moves that make the same image of it act alike on every board.
    pub fn powers(&self) -> Vec<Option<Power>> {
        let tracer = Cells(std::array::from_fn(|c| c as u8));
        // The images of every power of every base so far, the first base and power kept.
        let mut known: HashMap<Cells, Power> = HashMap::new();
        (0..self.len())
            .map(|m| {
                let image = self.solve_step(&tracer, m);
                if let Some(&power) = known.get(&image) {
                    return Some(power);
                }
                let mut power = image;
                for times in 2..=MAX_POWER {
                    power = self.solve_step(&power, m);
                    if power == tracer {
                        break;
                    }
                    known.entry(power).or_insert(Power { base: m, times });
                }
                None
            })
            .collect()
    }

    /// Applies a compiled move.
    #[inline(always)]
    pub fn apply(&self, s: &Cells, m: &CompiledMove) -> Cells {
        apply_compiled(self.n_cells, self.reduction, s, m)
    }

    /// Applies move `m` in solving direction.
    #[inline(always)]
    pub fn solve_step(&self, s: &Cells, m: usize) -> Cells {
        self.apply(s, &self.solve[m])
    }

    /// Applies move `m` undone.
    #[inline(always)]
    pub fn scramble_step(&self, s: &Cells, m: usize) -> Cells {
        self.apply(s, &self.scramble[m])
    }
}

/// How a compiled move reduces the orientations it adds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Reduction {
    /// Every modulus a power of two: a mask.
    Masks,
    /// Some modulo 3, the rest powers of two: one conditional subtraction
    /// ([`apply_thirds_scalar`](super::simd::apply_thirds_scalar)).
    Thirds,
    /// Some modulo 5, 6 or 7: orientations taken out of the byte and reduced by each cell's
    /// modulus ([`apply_moduli_scalar`](super::simd::apply_moduli_scalar)).
    Moduli,
}

impl Reduction {
    /// The reduction for orbits of these free moduli (each at most [`MAX_FREE_MOD`]).
    fn of(moduli: impl Iterator<Item = u8>) -> Reduction {
        moduli.fold(Reduction::Masks, |r, e| match e {
            _ if e.is_power_of_two() => r,
            3 if r == Reduction::Masks => Reduction::Thirds,
            3 => r,
            _ => Reduction::Moduli,
        })
    }
}

/// A move that acts as move `base` made `times` times ([`CellMoves::powers`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Power {
    /// The move made.
    pub base: usize,
    /// How many times.
    pub times: u32,
}

/// Highest power of a move that [`CellMoves::powers`] lists (a move of a larger order makes
/// the rest with tables of their own).
const MAX_POWER: u32 = 360;

/// The puzzle's moves compiled for [`Cells`], in solving direction and inverted (same order).
fn compile_moves(
    puzzle: &Puzzle,
    invariants: &Invariants,
) -> (Vec<CompiledMove>, Vec<CompiledMove>) {
    let n = puzzle.n_positions();
    let solve = puzzle
        .moves
        .iter()
        .zip(&invariants.reduced_twist)
        .map(|(m, twist)| compile(m, twist, invariants))
        .collect();
    // The inverse of a move sends the tile at perm[i] back to i, undoing its turn.
    let scramble = puzzle
        .moves
        .iter()
        .zip(puzzle.inverse_moves())
        .zip(&invariants.reduced_twist)
        .map(|((m, inverse), twist)| {
            let mut undo = vec![0u8; n];
            for c in 0..n {
                let e = invariants.orbits[invariants.orbit_of[c] as usize].free_mod;
                undo[m.perm[c] as usize] = (e - twist[c] % e) % e;
            }
            compile(&inverse, &undo, invariants)
        })
        .collect();
    (solve, scramble)
}

/// See [`Layout::xor_block_bits`].
fn xor_blocks(inv: &Invariants, sums_space: u32, orient_count: u64) -> Option<u32> {
    if inv.orbits.iter().any(|o| o.free_mod > 2) {
        return None;
    }
    // Elements of H with every sign even: the orientation sums one arrangement allows.
    let per_arrangement = inv.coupling.iter().filter(|&&c| c < sums_space).count() as u32;
    if per_arrangement != 1 && per_arrangement != sums_space {
        return None;
    }
    let run = per_arrangement as u64 * orient_count;
    (run >= 32).then(|| run.trailing_zeros())
}

/// `a % d` for `d >= 2` from `magic = u64::MAX / d + 1` (Lemire's fast remainder: the
/// fraction `a / d` in 64 bits, its remainder read off by one more multiplication), as
/// the ranks of every neighbour take it.
#[inline(always)]
fn mod_by_magic(a: u32, magic: u64, d: u32) -> u32 {
    let fraction = magic.wrapping_mul(a as u64);
    ((fraction as u128 * d as u128) >> 64) as u32
}

/// Compiles a move, given the change of reduced orientation of the tile leaving each cell.
fn compile(m: &Move, reduced: &[u8], inv: &Invariants) -> CompiledMove {
    let n = m.perm.len();
    let mut src = [0u8; MAX_CELLS];
    let mut add = [0u8; MAX_CELLS];
    let mut mask = [0u8; MAX_CELLS];
    let mut sub = [0u8; MAX_CELLS];
    let mut modulus = [1u8; MAX_CELLS];
    for (j, s) in src.iter_mut().enumerate() {
        *s = j as u8;
    }
    for (i, &turn) in reduced.iter().enumerate().take(n) {
        let j = m.perm[i] as usize;
        src[j] = i as u8;
        add[j] = turn << TILE_BITS;
        let e = inv.orbits[inv.orbit_of[i] as usize].free_mod;
        modulus[j] = e;
        if e == 3 {
            // The sum 0..4 needs the top bit; `sub` brings it back below 3.
            mask[j] = 0xFF;
            sub[j] = 3 << TILE_BITS;
        } else {
            // Exact for powers of two; the others take `Reduction::Moduli`.
            mask[j] = TILE_MASK | ((e - 1) << TILE_BITS);
        }
    }
    CompiledMove { src, add, mask, sub, modulus }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rank::simd::{apply_scalar, apply_thirds_scalar, orbit_tiles_scalar};
    use crate::rank::{Ranking, StateSpace};

    #[test]
    fn remainders_by_magic_equal_the_division() {
        for d in 2..=8u32 {
            let magic = (u64::MAX / d as u64).wrapping_add(1);
            for a in (0..100_000).chain([u32::MAX - 1, u32::MAX]) {
                assert_eq!(mod_by_magic(a, magic, d), a % d, "{a} mod {d}");
            }
        }
    }

    /// The upper values the moves reach, found by enumerating their group through its
    /// stabilizer chain, are those a search over the values finds (fewer than the space
    /// where the group hides couplings: the smaller group's). An orbit of 8 cells would
    /// make 40,320 points: the 2x2x2's values are searched.
    #[test]
    fn upper_values_enumerated_by_the_chain_are_those_searched() {
        let path =
            |file: &str| format!("def:{}/data/definitions/{file}", env!("CARGO_MANIFEST_DIR"));
        let cube = Puzzle::parse(&path("cube2.tws"), None).unwrap();
        let space = StateSpace::build(&cube).unwrap();
        let Ranking::Layout(layout) = &space.ranking else { panic!("a layout") };
        let (values, first) = (layout.upper_space(), 0);
        assert!(layout.upper_moves().unwrap().reach_by_chain(first, values).is_none());
        for (spec, hidden) in [(path("smaller_group.tws"), true), (path("hexagon.tws"), false)] {
            let spec = &spec;
            let puzzle = Puzzle::parse(spec, None).unwrap();
            let space = StateSpace::build(&puzzle).unwrap();
            let Ranking::Layout(layout) = &space.ranking else { panic!("{spec}: a layout") };
            let tables = layout.upper_moves().expect("the moves act orbit by orbit");
            let values = layout.upper_space();
            let first = layout.upper_and_orientation(&layout.solved()).0;
            let by_chain = tables.reach_by_chain(first, values).expect(spec);
            let searched = ReachableUpper::search(values, first, &tables).unwrap();
            assert_eq!(by_chain.len(), searched.len(), "{spec}");
            assert_eq!(by_chain.len() < values, hidden, "{spec}");
            assert!((0..by_chain.len()).all(|i| by_chain.upper(i) == searched.upper(i)));
        }
    }

    /// Two 2x2x2 corner sets (orientations mod 3) and four flipping pieces (mod 2): 18 cells,
    /// orientation modulus 6, moves that couple the sets.
    const THIRDS_AND_FLIPS: &str = "\
Set A 7 3
Set B 7 3
Set E 4 2
Solved
A
1 2 3 4 5 6 7
B
1 2 3 4 5 6 7
E
1 2 3 4
End
Move U
A
4 1 2 3 5 6 7
End
Move R
A
5 2 3 1 7 6 4
2 0 0 1 1 0 2
End
Move F
A
2 6 3 4 1 5 7
1 2 0 0 2 1 0
End
Move X
B
4 1 2 3 5 6 7
E
2 3 4 1
1 0 0 0
End
Move Y
B
5 2 3 1 7 6 4
2 0 0 1 1 0 2
End
Move Z
B
2 6 3 4 1 5 7
1 2 0 0 2 1 0
E
2 1 3 4
1 1 0 0
End
";

    fn defined(text: &str) -> Puzzle {
        use crate::puzzle::{Metric, PuzzleSpec, defined::Defined, definition::Definition};
        let d = Defined::new("test.tws", Definition::parse(text).unwrap()).unwrap();
        Puzzle::new(&PuzzleSpec::Def(std::sync::Arc::new(d)), Metric::Htm).unwrap()
    }

    /// Orientations modulo 3 next to flips, on more than 16 cells: every move agrees with
    /// the puzzle's own, vector and scalar paths agree, ranks round-trip.
    #[test]
    fn orientations_mod_3_move_and_rank() {
        let p = defined(THIRDS_AND_FLIPS);
        assert_eq!(p.orient_mod, 6);
        let Ranking::Layout(l) = StateSpace::build(&p).unwrap().ranking else {
            panic!("expected the fast layout")
        };
        assert!(l.moves.reduction() == Reduction::Thirds && l.n_cells > 16);
        let mut board = p.solved();
        let mut cells = l.cells_of(&board).unwrap();
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..3000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let m = (x % p.moves.len() as u64) as usize;
            board = p.apply(&board, &p.moves[m]);
            let next = l.moves().solve_step(&cells, m);
            assert_eq!(next, apply_thirds_scalar(&cells, &l.moves().solve_moves()[m]));
            cells = next;
            assert_eq!(l.board_of(&cells), board);
            let r = l.rank(&cells);
            assert_eq!(l.unrank(r), cells);
            assert_eq!(
                l.moves().scramble_step(&cells, m),
                l.cells_of(&p.apply(&board, &p.inverse_moves()[m])).unwrap()
            );
        }
    }

    /// Three corners turning mod 3, a lone piece turning mod 3 (an orbit of one cell) and
    /// two flipping pieces: 972 boards.
    const LONE_TURNER: &str = "\
Set A 3 3
Set T 1 3
Set E 2 2
Solved
A
1 2 3
T
1
E
1 2
End
Move R
A
2 3 1
1 1 0
T
1
1
End
Move S
A
2 1 3
0 0 0
E
2 1
1 0
End
Move Q
T
1
2
E
1 2
1 1
End
";

    /// Turns read in one pass ([`TurnPlaces`]) give every rank the table of turns per tile
    /// gives (the path left for more orbits than one word of sums holds), on every board;
    /// the pass reads the 5 cells of the orbits of two or more, not the lone piece's.
    #[test]
    fn turns_read_in_one_pass_agree_with_the_table_of_turns() {
        let p = defined(LONE_TURNER);
        let Ranking::Layout(l) = StateSpace::build(&p).unwrap().ranking else { panic!() };
        let places = l.turn_places.as_ref().expect("turns mod 3 and 2");
        assert!(!l.flips_only && places.single.len() == 1 && places.summed.len() == 2);
        assert!(places.summed_cells.is_some_and(|(n, _)| n == 5));
        let by_table = Layout { turn_places: None, ..l.clone() };
        assert_eq!(l.n_states(), 972);
        for r in 0..l.n_states() {
            let cells = l.unrank(r);
            assert_eq!(l.rank(&cells), r);
            assert_eq!(by_table.rank(&cells), r);
        }
    }

    /// On boards of more than 16 cells the vector paths agree with the scalar ones, and
    /// ranks round-trip through them.
    #[test]
    fn vector_paths_match_scalar_ones_on_large_boards() {
        for spec in ["nrp:3x6:3", "nrp:4x5:2", "nrp:2x9:2"] {
            let p = Puzzle::parse(spec, None).unwrap();
            let Ranking::Layout(l) = StateSpace::build(&p).unwrap().ranking else {
                panic!("{spec}: expected the fast layout")
            };
            assert!(l.n_cells > 16, "{spec}");
            let mut x = 0x9E37_79B9_7F4A_7C15u64;
            for _ in 0..2000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let r = x % l.n_states();
                let s = l.unrank(r);
                assert_eq!(l.rank(&s), r, "{spec}");
                for o in &l.orbits {
                    assert_eq!(
                        l.orbit_tiles(&s, o),
                        orbit_tiles_scalar(&s, &o.cells, &l.local),
                        "{spec}"
                    );
                }
                // Any bytes, orientation bits included.
                let noise = Cells(std::array::from_fn(|i| (x >> (i % 8 * 8)) as u8 ^ i as u8));
                let moves = l.moves();
                for m in moves.solve_moves().iter().chain(moves.scramble_moves()) {
                    assert_eq!(moves.apply(&s, m), apply_scalar(&s, m), "{spec}");
                    assert_eq!(moves.apply(&noise, m), apply_scalar(&noise, m), "{spec}");
                }
            }
        }
    }
}
