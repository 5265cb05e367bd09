//! Dense ranks of boards with identical pieces (a definition's repeated labels).
//!
//! Such a board is not a group element: swapping two identical pieces gives the same board.
//! When the invariants describe the group exactly, the boards are exactly the label
//! arrangements that keep each orbit's labels, with orientations and `(signs, sums)` as the
//! group allows, where the sign of an orbit holding two identical pieces is no longer seen
//! (swapping them flips it and changes nothing). So the ranking is [`super::Layout`]'s,
//! with three changes:
//! 1. an orbit holding identical pieces ranks its labels as a multiset permutation
//!    ([`Arrangements`]), all of them, with no sign digit;
//! 2. the coupling group is `H` projected onto the signs still seen and the sums
//!    ([`project_coupling`]);
//! 3. orientation digits are indexed by cell (a piece has no identity to index them by);
//! 4. an orbit without identical pieces whose sign is free of every other coordinate keeps
//!    it in its own digit (`n!` values), so that orbits no parity ties are digits of their
//!    own. This is what lets boards without identical pieces use the same coordinates (the
//!    233 sample's two orbits, [`crate::symmetry::CoordClasses`]).
//!
//! Pieces whose orientation is not seen (`?` in a definition's solved state,
//! [`crate::puzzle::definition::ANY_ORIENTATION`]) carry no orientation digit: in an orbit
//! holding one, the orientation sum is no longer seen either (that piece's turn takes up
//! any sum), so it leaves the coupling, and the seen pieces' orientations, listed in cell
//! order (by piece where the seen pieces are distinct: [`OrbitPlan::piece_digit`]), are all
//! free digits. The boards are still exactly the reachable ones: given the
//! seen digits and a coupling element, the unseen piece's turn makes the sum the element
//! asks for. The turns moves leave on unseen pieces are never read.
//!
//! Moves are the layout's ([`CellMoves`] on [`Cells`]): they move bytes and add turns,
//! whatever the byte's tile stands for.

use std::sync::{Arc, OnceLock};

use super::coord_tables::CoordTables;
use super::layout::{CellMoves, MAX_CELLS, TILE_BITS, TILE_MASK, check_free_mod};
use super::perm::{half_factorial, rank_in_sign_class, unrank_in_sign_class};
use super::{CellRanking, Cells};
use crate::group::invariants::{Coord, Invariants, cell_list};
use crate::puzzle::{Board, Puzzle};
use crate::{Error, Result};

const NO_INDEX: u8 = u8::MAX;

/// The number of arrangements of a multiset with these multiplicities, if it fits a `u64`.
pub fn multinomial(counts: &[u8]) -> Option<u64> {
    let mut total = 1u128;
    let mut placed = 0u32;
    for &c in counts {
        for j in 1..=c as u32 {
            placed += 1;
            // Stays exact: after each step `total` is a binomial product (an integer).
            total = total * placed as u128 / j as u128;
            if total > u64::MAX as u128 {
                return None;
            }
        }
    }
    Some(total as u64)
}

/// The rank, in lexicographic order, of the arrangement whose `i`-th element is `elem(i)`
/// among all arrangements of the multiset in which value `v` appears `counts[v]` times
/// (`n` elements in all, `total` = [`multinomial`]`(counts)` arrangements).
///
/// At each place, the arrangements that put a smaller value there come first: with `left`
/// the remaining multiplicities and `block` the arrangements of the remaining `r` elements,
/// value `v` heads `block * left[v] / r` of them.
#[inline]
pub fn multiset_rank(counts: &[u8], total: u64, elem: impl Fn(usize) -> usize) -> u64 {
    let mut left = [0u8; MAX_CELLS];
    left[..counts.len()].copy_from_slice(counts);
    let n: usize = counts.iter().map(|&c| c as usize).sum();
    let mut block = total as u128;
    let mut rank = 0u128;
    for i in 0..n {
        let x = elem(i);
        let r = (n - i) as u128;
        let below: u32 = left[..x].iter().map(|&c| c as u32).sum();
        rank += block * below as u128 / r;
        block = block * left[x] as u128 / r;
        left[x] -= 1;
    }
    rank as u64
}

/// The arrangement with a given [`multiset_rank`]: calls `put(i, value)` for each place.
#[inline]
pub fn multiset_unrank(
    counts: &[u8],
    total: u64,
    mut rank: u64,
    mut put: impl FnMut(usize, usize),
) {
    let mut left = [0u8; MAX_CELLS];
    left[..counts.len()].copy_from_slice(counts);
    let n: usize = counts.iter().map(|&c| c as usize).sum();
    let mut block = total as u128;
    for i in 0..n {
        let r = (n - i) as u128;
        let mut v = 0;
        loop {
            let size = (block * left[v] as u128 / r) as u64;
            if rank < size {
                break;
            }
            rank -= size;
            v += 1;
        }
        put(i, v);
        block = block * left[v] as u128 / r;
        left[v] -= 1;
    }
}

/// Largest table of [`Arrangements`], in entries (8 MiB).
const MAX_TABLE: usize = 1 << 20;

/// Most bytes of [`Arrangements::listed`] (256 KiB).
const MAX_LISTED: u64 = 1 << 18;

/// Most values for which [`Arrangements::unrank`] compares a rank with every block's end.
const BRANCHLESS_VALUES: usize = 8;

/// The ranks of the arrangements of one multiset, as [`multiset_rank`] numbers them, from a
/// table where it is small (no division per place: measured on NRP (4,4,2) by rows, the
/// divisions made the search 30 times slower than NRP (3,4,2)).
///
/// A state is what remains to place: `left[v]` of each value, indexed in mixed radix
/// (`index = sum(left[v] * stride[v])`). The table holds, per state and value `x`, the
/// arrangements of the remaining elements that start with a value below `x`.
#[derive(Clone, Debug)]
pub struct Arrangements {
    counts: Vec<u8>,
    /// Number of elements.
    n: usize,
    total: u64,
    /// `below[state * (k + 1) + x]`, or empty when the table would pass [`MAX_TABLE`].
    below: Vec<u64>,
    /// `stride[v] * (k + 1)`: placing value `v` moves this far back in `below`.
    row_strides: Vec<usize>,
    /// The row of the full multiset.
    full_row: usize,
    /// Every arrangement's values in rank order, `n` bytes each, where they take at most
    /// [`MAX_LISTED`] bytes (else empty): unranking is then a copy, where each place of the
    /// table's walk waits on the one before (puzzlerchallenger's set-up unranks some 35,000
    /// boards: its digit tables' images took 0.91 ms, 0.55 ms so).
    listed: Vec<u8>,
}

impl Arrangements {
    /// The arrangements of the multiset in which value `v` appears `counts[v]` times; `None`
    /// if they are more than a `u64` counts.
    pub fn new(counts: &[u8]) -> Option<Arrangements> {
        let total = multinomial(counts)?;
        let k = counts.len();
        let mut strides = Vec::with_capacity(k);
        let mut states = 1usize;
        for &c in counts {
            strides.push(states);
            states = states.saturating_mul(c as usize + 1);
        }
        let full: usize = counts.iter().zip(&strides).map(|(&c, &w)| c as usize * w).sum();
        let mut below = Vec::new();
        if states.saturating_mul(k + 1) <= MAX_TABLE {
            // `ways[s]`: the arrangements of state `s`, the sum over its first value.
            let mut ways = vec![0u64; states];
            below = vec![0u64; states * (k + 1)];
            for s in 0..states {
                let row = &mut below[s * (k + 1)..(s + 1) * (k + 1)];
                for v in 0..k {
                    let left = s / strides[v] % (counts[v] as usize + 1);
                    row[v + 1] = row[v] + if left > 0 { ways[s - strides[v]] } else { 0 };
                }
                ways[s] = if s == 0 { 1 } else { row[k] };
            }
        }
        let n = counts.iter().map(|&c| c as usize).sum();
        Some(Arrangements {
            counts: counts.to_vec(),
            n,
            total,
            below,
            row_strides: strides.iter().map(|w| w * (k + 1)).collect(),
            full_row: full * (k + 1),
            listed: list_arrangements(counts, total, n),
        })
    }

    /// Number of arrangements.
    pub fn count(&self) -> u64 {
        self.total
    }

    /// The rank of the arrangement whose `i`-th element is `elem(i)`.
    #[inline]
    pub fn rank(&self, elem: impl Fn(usize) -> usize) -> u64 {
        if self.below.is_empty() {
            return multiset_rank(&self.counts, self.total, elem);
        }
        let (mut row, mut rank) = (self.full_row, 0u64);
        for i in 0..self.n {
            let x = elem(i);
            rank += self.below[row + x];
            row -= self.row_strides[x];
        }
        rank
    }

    /// The arrangement with a given rank: calls `put(i, value)` for each place.
    #[inline]
    pub fn unrank(&self, rank: u64, mut put: impl FnMut(usize, usize)) {
        if !self.listed.is_empty() {
            let at = rank as usize * self.n;
            for (i, &v) in self.listed[at..at + self.n].iter().enumerate() {
                put(i, v as usize);
            }
            return;
        }
        self.unrank_by_table(rank, put);
    }

    /// [`Arrangements::unrank`] place by place.
    #[inline]
    fn unrank_by_table(&self, mut rank: u64, mut put: impl FnMut(usize, usize)) {
        if self.below.is_empty() {
            return multiset_unrank(&self.counts, self.total, rank, put);
        }
        let mut row = self.full_row;
        let k = self.counts.len();
        for i in 0..self.n {
            let below = &self.below[row..row + k + 1];
            // The value whose block holds the rank: values absent from the state have
            // empty blocks and are stepped over. The row rises with the value, so that
            // value is the count of blocks ending at or below the rank: counted without a
            // branch where values are few (an early exit mispredicts about once a place;
            // puzzlerchallenger's set-up unranked 42,000 boards at 80 ns each).
            let x = if k <= BRANCHLESS_VALUES {
                below[1..k].iter().map(|&b| (b <= rank) as usize).sum()
            } else {
                let mut x = 0;
                while below[x + 1] <= rank {
                    x += 1;
                }
                x
            };
            rank -= below[x];
            put(i, x);
            row -= self.row_strides[x];
        }
    }
}

/// The values of every arrangement of the multiset `counts` (`total` of them, `n` values
/// each) in rank order, where they take at most [`MAX_LISTED`] bytes; else none. Ranks run in
/// lexicographic order ([`multiset_rank`]), so each arrangement is the next permutation of
/// the one before.
fn list_arrangements(counts: &[u8], total: u64, n: usize) -> Vec<u8> {
    if total.saturating_mul(n as u64) > MAX_LISTED || counts.len() > 256 {
        return Vec::new();
    }
    let mut listed = Vec::with_capacity(total as usize * n);
    let mut a: Vec<u8> = (counts.iter().enumerate())
        .flat_map(|(v, &c)| std::iter::repeat_n(v as u8, c as usize))
        .collect();
    loop {
        listed.extend_from_slice(&a);
        // The next permutation: the last rise, its value swapped with the last larger one
        // after it, the tail then ascending.
        let Some(i) = (1..n).rev().find(|&i| a[i - 1] < a[i]).map(|i| i - 1) else { break };
        let j = (i + 1..n).rev().find(|&j| a[j] > a[i]).expect("a larger value after a rise");
        a.swap(i, j);
        a[i + 1..].reverse();
    }
    debug_assert_eq!(listed.len() as u64, total * n as u64);
    listed
}

/// One orbit: its cells and the labels its pieces carry.
#[derive(Clone, Debug)]
struct OrbitPlan {
    cells: Vec<u8>,
    free_mod: u8,
    tied_mod: u8,
    /// `index[label]`: the label's value in the orbit's arrangement, [`NO_INDEX`] for labels
    /// not in the orbit (see [`Multiset::new`]).
    index: [u8; MAX_CELLS],
    /// `labels[v]`: the label of value `v`.
    labels: Vec<u8>,
    /// `counts[v]`: how many pieces carry the label of value `v`.
    counts: Vec<u8>,
    /// The ranks of its label arrangements, for an orbit with repeats.
    arrangements: Option<Arrangements>,
    /// `potential[label]`: the orientation potential of the label's first home (the others
    /// agree with it modulo `tied_mod`; see [`project_coupling`] for the rest).
    potential: [u8; MAX_CELLS],
    /// The radix of its arrangement digit: `n!/2` without repeats, the number of
    /// arrangements with.
    radix: u64,
    /// `unseen[label]`: whether the orientation of the pieces carrying the label is not
    /// seen (see [`OrbitPlan::hides_sum`]).
    unseen: [bool; MAX_CELLS],
    /// The radix of its orientation digits: `free_mod^(cells - 1)`, or with pieces whose
    /// orientation is not seen `free_mod^seen` (`seen` the pieces whose orientation is).
    orient_radix: u64,
    /// `cell_place[i]`: `free_mod^i`, the place value of the digit of the turn on
    /// `cells[i]` (all but the last cell; the first is the least significant).
    cell_place: [u64; MAX_CELLS],
    /// See [`OrbitPlan::hides_sum`].
    hidden: bool,
    /// Where it hides its sum and its seen pieces are all distinct: `piece_digit[label]`, the
    /// place value (`free_mod^i`, `i` the label's place among the seen labels) of the digit
    /// that holds the orientation of the piece carrying `label`, 0 for unseen labels. Digits
    /// by piece rather than by cell: a move then adds each piece's turn to its own digit, the
    /// same wherever the others stand, which makes flips XOR runs
    /// ([`Multiset::xor_block_bits`]).
    piece_digit: Option<[u64; MAX_CELLS]>,
    /// Without repeats, its sign free of every other coordinate (any board of the others
    /// comes with either sign): the sign is then part of its arrangement digit (`n!`
    /// values, twice the rank in the sign class plus the sign), not of the coupling, so
    /// that orbits unrelated to each other are digits of their own.
    free_sign: bool,
}

impl OrbitPlan {
    /// Whether its permutation's sign is a coordinate of the coupling.
    fn keeps_sign(&self) -> bool {
        self.arrangements.is_none() && self.cells.len() >= 2 && !self.free_sign
    }

    /// Whether its orientation sum is no coordinate: it holds a piece whose orientation is
    /// not seen, whose turn takes up any sum, so the seen pieces' orientations are all
    /// free digits (listed in cell order, skipping the unseen pieces, or by piece:
    /// [`OrbitPlan::piece_digit`]).
    #[inline(always)]
    fn hides_sum(&self) -> bool {
        self.hidden
    }

    /// Whether its orientation digits are flips by piece, at least 32 values of them: XOR
    /// runs where they are a rank's last digits ([`Multiset::xor_block_bits`]).
    fn runs_of_flips(&self) -> bool {
        self.free_mod == 2 && self.piece_digit.is_some() && self.orient_radix >= 32
    }

    /// Whether the piece on a working byte has its orientation seen.
    #[inline(always)]
    fn seen(&self, byte: u8) -> bool {
        !self.unseen[(byte & TILE_MASK) as usize]
    }
}

/// Dense ranks of the boards of a puzzle with identical pieces (see the module docs).
#[derive(Clone, Debug)]
pub struct Multiset {
    n_cells: usize,
    orbits: Vec<OrbitPlan>,
    /// The projected coupling group: codes (kept signs, then sums) of its elements, sorted.
    coupling: Vec<u32>,
    /// `coupling_index[code]`: the element's index, or `u32::MAX` if not in the group.
    coupling_index: Vec<u32>,
    /// Product of the radices of the orientation sums.
    sums_space: u32,
    /// Number of free orientation digit combinations.
    orient_count: u64,
    /// The orbits whose orientation digits a rank holds, most significant first (see
    /// [`orient_order`]).
    orient_order: Vec<u8>,
    n_states: u64,
    /// Ranks a finished search reaches: `n_states`, or the number of boards where the group
    /// is smaller than its invariants (see [`Multiset::searching_in`]).
    reachable: u64,
    /// Every orbit's sign is a digit of its own ([`Multiset::with_free_signs`]).
    signs_free: bool,
    invariants: Invariants,
    moves: CellMoves,
    /// See [`Multiset::coordinate_tables`]: built by the first call, as only a search
    /// walks them (0.2 s for the moonspinner's, which `distance` or `solve` need not pay).
    coordinates: OnceLock<Option<Arc<CoordTables>>>,
}

impl Multiset {
    /// Builds the ranking from invariants that describe the group exactly (or, for a group
    /// smaller than them, ranks of the space they allow: [`Multiset::searching_in`]). Fails when
    /// the board does not fit the working form, the ranks do not fit 64 bits, or identical pieces
    /// have homes whose orientations the moves tie differently (they would be told apart).
    pub fn new(puzzle: &Puzzle, invariants: Invariants) -> Result<Multiset> {
        Multiset::build(puzzle, invariants, false)
    }

    /// [`Multiset::new`] with every orbit's sign a coordinate of its own, whatever parities
    /// the invariants tie (a larger space, holding every board the invariants allow): for a
    /// group smaller than its invariants searched in such a space, where the orbits' digits
    /// then move by themselves ([`Multiset::coordinate_tables`]).
    pub fn with_free_signs(puzzle: &Puzzle, invariants: Invariants) -> Result<Multiset> {
        Multiset::build(puzzle, invariants, true)
    }

    fn build(puzzle: &Puzzle, invariants: Invariants, signs_free: bool) -> Result<Multiset> {
        let n = puzzle.n_positions();
        if n > MAX_CELLS {
            return Err(Error::TooLarge(format!(
                "boards of more than {MAX_CELLS} cells cannot be searched exhaustively"
            )));
        }
        let solved = puzzle.solved();
        let mut unseen = [false; MAX_CELLS];
        if let Some(d) = puzzle.defined() {
            for (t, &u) in d.unseen_orientations().iter().enumerate().take(MAX_CELLS) {
                unseen[t] = u && invariants.orient_mod > 1;
            }
        }
        let too_large = || Error::TooLarge("more boards than 64-bit ranks can count".to_string());
        let mut orbits = Vec::with_capacity(invariants.orbits.len());
        let mut all_arrangements = 1u64;
        let mut orient_count = 1u64;
        let free_signs = free_signs(&invariants);
        for (j, o) in invariants.orbits.iter().enumerate() {
            check_free_mod(o)?;
            // Values: without repeats the local index of a label's home (the solved board is
            // then the identity, and signs are the group's); with repeats the label's place
            // among the orbit's labels.
            let mut labels: Vec<u8> = o.cells.iter().map(|&c| solved.tiles[c as usize]).collect();
            let mut distinct = labels.clone();
            distinct.sort_unstable();
            distinct.dedup();
            let repeated = distinct.len() < labels.len();
            if repeated {
                labels = distinct;
            }
            let mut index = [NO_INDEX; MAX_CELLS];
            for (v, &l) in labels.iter().enumerate() {
                index[l as usize] = v as u8;
            }
            let mut counts = vec![0u8; labels.len()];
            let mut potential = [NO_INDEX; MAX_CELLS];
            for &c in &o.cells {
                let label = solved.tiles[c as usize] as usize;
                counts[index[label] as usize] += 1;
                // A piece's orientation modulo `tied_mod` tells its home's potential: pieces
                // whose homes differ there are not identical to the moves.
                let f = invariants.potential[c as usize];
                if unseen[label] {
                    // No orientation to tie: counted from upright wherever it stands.
                    potential[label] = 0;
                } else if potential[label] == NO_INDEX {
                    potential[label] = f;
                } else if !(potential[label] + invariants.orient_mod - f).is_multiple_of(o.tied_mod)
                {
                    let homes: Vec<u8> = (o.cells.iter().copied())
                        .filter(|&h| solved.tiles[h as usize] as usize == label)
                        .collect();
                    return Err(Error::Unsupported(format!(
                        "the identical pieces solved on cells {} (in the orbit of cells {}) have \
                         homes whose orientations the moves tie differently, so the moves tell \
                         them apart",
                        cell_list(&homes),
                        cell_list(&o.cells)
                    )));
                }
            }
            let arrangements = match repeated {
                true => Some(Arrangements::new(&counts).ok_or_else(too_large)?),
                false if o.cells.len() > 20 => return Err(too_large()),
                false => None,
            };
            let free_sign = arrangements.is_none() && (signs_free || free_signs.contains(&j));
            let radix = match &arrangements {
                Some(a) => a.count(),
                None if free_sign => 2 * half_factorial(o.cells.len()),
                None => half_factorial(o.cells.len()),
            };
            all_arrangements = all_arrangements.checked_mul(radix).ok_or_else(too_large)?;
            let hidden = o.cells.iter().any(|&c| unseen[solved.tiles[c as usize] as usize]);
            let digits = match hidden {
                true => {
                    o.cells.iter().filter(|&&c| !unseen[solved.tiles[c as usize] as usize]).count()
                }
                false => o.cells.len() - 1,
            };
            let orient_radix = match o.free_mod {
                0 | 1 => 1,
                e => (e as u64).checked_pow(digits as u32).ok_or_else(too_large)?,
            };
            orient_count = orient_count.checked_mul(orient_radix).ok_or_else(too_large)?;
            let seen_labels: Vec<u8> =
                labels.iter().copied().filter(|&l| !unseen[l as usize]).collect();
            let seen_distinct =
                seen_labels.iter().all(|&l| counts[index[l as usize] as usize] == 1);
            let piece_digit = (hidden && o.free_mod > 1 && seen_distinct).then(|| {
                let mut place = [0u64; MAX_CELLS];
                let mut value = 1u64;
                for &l in &seen_labels {
                    place[l as usize] = value;
                    value *= o.free_mod as u64;
                }
                place
            });
            let cell_place =
                std::array::from_fn(|i| (o.free_mod.max(1) as u64).saturating_pow(i as u32));
            orbits.push(OrbitPlan {
                cells: o.cells.clone(),
                free_mod: o.free_mod,
                tied_mod: o.tied_mod,
                arrangements,
                index,
                counts,
                labels,
                potential,
                radix,
                unseen,
                orient_radix,
                cell_place,
                hidden: hidden && o.free_mod > 1,
                piece_digit,
                free_sign,
            });
        }
        let solved_cells = working_form(&orbits, &invariants, &solved)?;
        let (coupling, sums_space) = project_coupling(&invariants, &orbits, &solved_cells);
        let space = coupling.last().map_or(1, |&c| c as usize + 1);
        let mut coupling_index = vec![u32::MAX; space];
        for (h, &code) in coupling.iter().enumerate() {
            coupling_index[code as usize] = h as u32;
        }
        let n_states = all_arrangements
            .checked_mul(coupling.len() as u64)
            .and_then(|s| s.checked_mul(orient_count))
            .ok_or_else(too_large)?;
        let moves = CellMoves::new(puzzle, &invariants);
        Ok(Multiset {
            n_cells: n,
            orient_order: orient_order(&orbits),
            orbits,
            coupling,
            coupling_index,
            sums_space,
            orient_count,
            n_states,
            reachable: n_states,
            signs_free,
            invariants,
            moves,
            coordinates: OnceLock::new(),
        })
    }

    /// The per-move tables of its digits, where a rank is the orbits' arrangement digits
    /// and their orientation digits alone (the search then walks digits: see
    /// [`CoordTables`]).
    pub fn coordinate_tables(&self) -> Option<&CoordTables> {
        self.shared_coordinate_tables().map(|t| &**t)
    }

    /// [`Multiset::coordinate_tables`], shared.
    pub fn shared_coordinate_tables(&self) -> Option<&Arc<CoordTables>> {
        let tables = self.coordinates.get_or_init(|| {
            let radices = self.coordinate_radices()?;
            CoordTables::new(self, &radices, &self.moves.powers()).map(Arc::new)
        });
        tables.as_ref()
    }

    /// The same boards ranked with the orbits' digits in another order: the largest
    /// arrangement digit first (ties in orbit order), where the ranks hold no parity or sum
    /// that ties the orbits (their order is then free). `None` where the order is not free
    /// or already so. Classes of digits take the leading digit as their first part: the more
    /// values it has, the fewer a symmetry fixes (puzzlerchallenger: 11,550 edge values in
    /// 2,919 classes, 61 fixed, make 1.011x the boards over the symmetries in entries; its 252
    /// corner values, 82 classes with 34 fixed, made 1.302x).
    pub fn largest_orbits_first(&self) -> Option<Multiset> {
        if self.coupling.len() != 1 || self.orbits.iter().any(|o| o.hides_sum()) {
            return None;
        }
        let mut orbits = self.orbits.clone();
        orbits.sort_by_key(|o| std::cmp::Reverse(o.radix));
        if orbits.iter().zip(&self.orbits).all(|(a, b)| a.cells == b.cells) {
            return None;
        }
        Some(Multiset {
            orient_order: orient_order(&orbits),
            orbits,
            coordinates: OnceLock::new(),
            ..self.clone()
        })
    }

    /// The radices of the digits a rank splits into, each moved by itself, most significant
    /// first: every orbit's arrangement, then every orbit's orientation digits (a move
    /// permutes an orbit's turns and adds its own, whatever pieces stand there). Digits of
    /// one value are left out. A coupling of sums alone (no orbit's sign in it) makes the
    /// sums and every orbit's turns one digit: it stands just above them in a rank, and
    /// together they name the turns of every orbit (smaller_group.tws with identical pieces:
    /// its free corner sum). `None` where a parity ties the orbits to each other or to the
    /// sums, or where which turns are digits depends on where unseen pieces stand.
    pub(crate) fn coordinate_radices(&self) -> Option<Vec<u64>> {
        if self.orbits.iter().any(|o| o.hides_sum()) {
            return None;
        }
        let arrangements = self.orbits.iter().map(|o| o.radix);
        let turns: Vec<u64> = if self.coupling.len() == 1 {
            self.orbits.iter().filter(|o| o.free_mod > 1).map(|o| o.orient_radix).collect()
        } else if self.orbits.iter().any(|o| o.keeps_sign()) {
            return None;
        } else {
            vec![self.coupling.len() as u64 * self.orient_count]
        };
        Some(arrangements.chain(turns).filter(|&r| r > 1).collect())
    }

    /// `Some(k)` where the least significant orientation digits of a rank are `k` flips of
    /// distinct pieces in an orbit that hides its sum (digits by piece,
    /// [`OrbitPlan::piece_digit`]), `2^k >= 32` of them: they are then the low `k` bits of
    /// a rank, and nothing above them depends on them (that orbit has no sum in the
    /// coupling; the other orbits' digits move by themselves), so a move maps the run of
    /// one board's other coordinates onto another's, flipping the bits of the pieces on
    /// the cells it turns, the same for every offset (XOR runs, as
    /// [`super::Layout::xor_block_bits`]: the 3x3x3 with some edges named and the rest
    /// alike and unseen, with or without corners).
    pub fn xor_block_bits(&self) -> Option<u32> {
        self.flips_orbit().map(|o| o.orient_radix.trailing_zeros())
    }

    /// The orbit whose flips are a rank's last bits ([`Multiset::xor_block_bits`]), if any.
    fn flips_orbit(&self) -> Option<&OrbitPlan> {
        let o = &self.orbits[*self.orient_order.last()? as usize];
        o.runs_of_flips().then_some(o)
    }

    /// The orbits holding orientation digits, most significant first ([`orient_order`]).
    #[inline(always)]
    fn orient_orbits(&self) -> impl DoubleEndedIterator<Item = &OrbitPlan> {
        self.orient_order.iter().map(|&j| &self.orbits[j as usize])
    }

    /// Whether some orbit holds pieces whose orientation is not seen, so that its
    /// orientation sum is no coordinate ([`OrbitPlan::hides_sum`]).
    pub fn hides_orientation_sums(&self) -> bool {
        self.orbits.iter().any(|o| o.hides_sum())
    }

    /// With XOR runs ([`Multiset::xor_block_bits`]): the cells of the orbit whose pieces'
    /// flips are a rank's last bits.
    pub fn xor_block_cells(&self) -> Option<&[u8]> {
        self.flips_orbit().map(|o| &o.cells[..])
    }

    /// The cells of each orbit.
    pub fn orbit_cells(&self) -> impl Iterator<Item = &[u8]> {
        self.orbits.iter().map(|o| &o.cells[..])
    }

    /// The orbit holding `cell`.
    fn orbit_of(&self, cell: usize) -> Option<&OrbitPlan> {
        self.orbits.iter().find(|o| o.cells.contains(&(cell as u8)))
    }

    /// Whether a piece labelled `label` on `cell` shows its orientation (`false` for pieces
    /// written `?` and for labels the cell's orbit does not hold).
    pub fn orientation_seen(&self, cell: usize, label: u8) -> bool {
        self.orbit_of(cell).is_some_and(|o| {
            o.index.get(label as usize).is_some_and(|&v| v != NO_INDEX) && !o.unseen[label as usize]
        })
    }

    /// A working byte on `cell` without the turn a piece whose orientation is not seen was
    /// left with by moves (never read, so boards differing only there are one board).
    pub fn seen_byte(&self, cell: usize, byte: u8) -> u8 {
        match self.orbit_of(cell) {
            Some(o) if !o.seen(byte) => byte & TILE_MASK,
            _ => byte,
        }
    }

    /// Number of ranks: the number of reachable boards, but for a group smaller than its
    /// invariants ([`Multiset::searching_in`]).
    pub fn n_states(&self) -> u64 {
        self.n_states
    }

    /// Number of ranks a finished search reaches: the number of boards.
    pub fn n_reachable(&self) -> u64 {
        self.reachable
    }

    /// Whether every orbit's sign is a digit of its own ([`Multiset::with_free_signs`]).
    pub fn signs_free(&self) -> bool {
        self.signs_free
    }

    /// The ranking of a group smaller than its invariants, which reaches `boards` of the
    /// ranks (counted by `board_count.rs`): a search stops when it has found them,
    /// and the other ranks stay unreached. No classes are taken on such ranks: they would
    /// count every rank a board.
    pub fn searching_in(mut self, boards: u64) -> Multiset {
        debug_assert!(boards <= self.n_states);
        self.reachable = boards;
        self
    }

    /// The moves, compiled.
    pub fn moves(&self) -> &CellMoves {
        &self.moves
    }

    /// The rank of a board in working form (as [`Multiset::cells_of`] makes it).
    #[inline]
    pub fn rank(&self, s: &Cells) -> u64 {
        let value =
            |o: &OrbitPlan, i: usize| o.index[(s.0[o.cells[i] as usize] & TILE_MASK) as usize];
        let mut arrangement = 0u64;
        let mut signs = 0u32;
        for o in &self.orbits {
            let r = if let Some(a) = &o.arrangements {
                // Pieces all alike: one arrangement (the icosamate's corner twists alone).
                if o.radix == 1 {
                    continue;
                }
                a.rank(|i| value(o, i) as usize)
            } else {
                let (r, sign) = rank_in_sign_class(o.cells.len(), |i| value(o, i) as u32);
                if o.keeps_sign() {
                    signs = signs * 2 + sign;
                }
                if o.free_sign { 2 * r + sign as u64 } else { r }
            };
            arrangement = arrangement * o.radix + r;
        }
        let mut sums = 0u32;
        let mut orient_rank = 0u64;
        for o in self.orient_orbits() {
            let e = o.free_mod as u32;
            let last = o.cells.len() - 1;
            let turn = |c: u8| (s.0[c as usize] >> TILE_BITS) as u32;
            if let Some(place) = &o.piece_digit {
                // Unseen pieces' digits have place value 0: their turns are never read.
                let mut digits = 0u64;
                for &c in &o.cells {
                    let byte = s.0[c as usize];
                    digits += place[(byte & TILE_MASK) as usize] * (byte >> TILE_BITS) as u64;
                }
                orient_rank = orient_rank * o.orient_radix + digits;
                continue;
            }
            if o.hides_sum() {
                // The turns of unseen pieces are left over from moves: skipped (scaled by
                // nothing, added times 0: no branch to mispredict), never read.
                let mut digits = 0u64;
                for &c in o.cells.iter().rev() {
                    let seen = u64::from(o.seen(s.0[c as usize]));
                    digits = digits * (1 + seen * (e as u64 - 1)) + seen * turn(c) as u64;
                }
                orient_rank = orient_rank * o.orient_radix + digits;
                continue;
            }
            let mut sum = turn(o.cells[last]);
            // The orbit's first cell is the least significant digit. By place values, the
            // products independent: a chain of multiplications (digits times e, plus the
            // next) took a third of the rank on the icosamate's 12 corners.
            let mut digits = 0u64;
            for (&c, &place) in o.cells[..last].iter().zip(&o.cell_place) {
                sum += turn(c);
                digits += turn(c) as u64 * place;
            }
            orient_rank = orient_rank * o.orient_radix + digits;
            sums = sums * e + sum % e;
        }
        let h = self.coupling_index[(signs * self.sums_space + sums) as usize];
        debug_assert!(h != u32::MAX, "board outside the coupling group");
        (arrangement * self.coupling.len() as u64 + h as u64) * self.orient_count + orient_rank
    }

    /// The board in working form with the given rank (`rank < n_states`).
    #[inline]
    pub fn unrank(&self, rank: u64) -> Cells {
        debug_assert!(rank < self.n_states);
        // Most rankings have no orientation digits or no coupling: no division by one.
        let (rest, mut orient_rank) = div_rem(rank, self.orient_count);
        let (mut arrangement, code) = div_rem(rest, self.coupling.len() as u64);
        let code = self.coupling[code as usize];
        let mut signs = code / self.sums_space;
        let mut sums = code % self.sums_space;
        let mut out = [0u8; MAX_CELLS];
        for o in self.orbits.iter().rev() {
            let r;
            (arrangement, r) = div_rem(arrangement, o.radix);
            if let Some(a) = &o.arrangements {
                a.unrank(r, |i, v| out[o.cells[i] as usize] = o.labels[v]);
            } else {
                let (r, sign) = if o.keeps_sign() {
                    let s = signs & 1;
                    signs >>= 1;
                    (r, s)
                } else if o.free_sign {
                    (r / 2, (r % 2) as u32)
                } else {
                    (r, 0)
                };
                unrank_in_sign_class(r, sign, o.cells.len(), |i, x| {
                    out[o.cells[i] as usize] = o.labels[x as usize];
                });
            }
        }
        for o in self.orient_orbits().rev() {
            let e = o.free_mod as u64;
            if let Some(place) = &o.piece_digit {
                let digits;
                (orient_rank, digits) = div_rem(orient_rank, o.orient_radix);
                for &c in &o.cells {
                    // Unseen pieces (place value 0) take no digit.
                    if let Some(d) =
                        digits.checked_div(place[(out[c as usize] & TILE_MASK) as usize])
                    {
                        out[c as usize] |= ((d % e) as u8) << TILE_BITS;
                    }
                }
                continue;
            }
            if o.hides_sum() {
                for &c in &o.cells {
                    if o.seen(out[c as usize]) {
                        out[c as usize] |= ((orient_rank % e) as u8) << TILE_BITS;
                        orient_rank /= e;
                    }
                }
                continue;
            }
            let sum = sums as u64 % e;
            sums /= e as u32;
            let last = o.cells.len() - 1;
            let mut acc = 0u64;
            for &c in &o.cells[..last] {
                let u = orient_rank % e;
                orient_rank /= e;
                out[c as usize] |= (u as u8) << TILE_BITS;
                acc += u;
            }
            let u = (sum + e * last as u64 - acc) % e;
            out[o.cells[last] as usize] |= (u as u8) << TILE_BITS;
        }
        Cells(out)
    }

    /// Converts a board to working form, or explains why no move sequence makes it.
    pub fn cells_of(&self, board: &Board) -> Result<Cells> {
        let cells = working_form(&self.orbits, &self.invariants, board)?;
        let h = self.coupling_index.get(self.coupling_code(&cells) as usize);
        if h.is_some_and(|&h| h != u32::MAX) {
            return Ok(cells);
        }
        Err(Error::InvalidBoard(
            "the board breaks a parity or orientation-sum constraint of the moves".into(),
        ))
    }

    /// The code of a board (kept signs, then sums) in the projected coupling's space.
    fn coupling_code(&self, s: &Cells) -> u32 {
        let mut signs = 0u32;
        let mut sums = 0u32;
        for o in self.orbits.iter().filter(|o| o.keeps_sign()) {
            let (_, sign) = rank_in_sign_class(o.cells.len(), |i| {
                o.index[(s.0[o.cells[i] as usize] & TILE_MASK) as usize] as u32
            });
            signs = signs * 2 + sign;
        }
        for o in self.orbits.iter().filter(|o| o.free_mod > 1 && !o.hides_sum()) {
            let e = o.free_mod as u32;
            let sum: u32 = o.cells.iter().map(|&c| (s.0[c as usize] >> TILE_BITS) as u32).sum();
            sums = sums * e + sum % e;
        }
        signs * self.sums_space + sums
    }

    /// The byte [`Multiset::cells_of`] puts on `cell` for a piece labelled `label` with
    /// orientation `orient`, or `None` when no reachable board has it there. Callers that
    /// build working forms in a hot loop (pattern lookups) tabulate it once.
    pub fn working_byte(&self, cell: usize, label: u8, orient: u8) -> Option<u8> {
        let o = self.orbit_of(cell)?;
        if o.index.get(label as usize).is_none_or(|&v| v == NO_INDEX) {
            return None;
        }
        if o.unseen[label as usize] {
            return Some(label);
        }
        let turn =
            self.invariants.reduced_orientation(cell, orient, o.potential[label as usize])?;
        Some(label | (turn << TILE_BITS))
    }

    /// Converts working form back to a board.
    pub fn board_of(&self, s: &Cells) -> Board {
        let mut board = Board { tiles: vec![0; self.n_cells], orient: vec![0; self.n_cells] };
        for o in &self.orbits {
            for &c in &o.cells {
                let p = c as usize;
                (board.tiles[p], board.orient[p]) = self.piece(o, p, s.0[p]);
            }
        }
        board
    }

    /// The piece (label and orientation, as a board shows them) that a working byte stands
    /// for on `cell`, or `None` if no board in working form holds that byte there.
    pub fn piece_on(&self, cell: usize, byte: u8) -> Option<(u8, u8)> {
        let o = self.orbit_of(cell)?;
        let label = byte & TILE_MASK;
        let turn = byte >> TILE_BITS;
        let known = o.index.get(label as usize).is_some_and(|&v| v != NO_INDEX);
        let turns = match o.unseen[label as usize] {
            true => 1,
            false => o.free_mod.max(1),
        };
        (known && turn < turns).then(|| self.piece(o, cell, byte))
    }

    /// [`Multiset::piece_on`] for a byte known to be valid on `cell` of orbit `o`.
    fn piece(&self, o: &OrbitPlan, cell: usize, byte: u8) -> (u8, u8) {
        let inv = &self.invariants;
        let label = byte & TILE_MASK;
        let u = byte >> TILE_BITS;
        let orient = match o.unseen[label as usize] {
            true => 0,
            false => inv.shown_orientation(cell, u, o.potential[label as usize]),
        };
        (label, orient)
    }
}

/// The orbits that hold orientation digits, most significant first: in orbit order, but for
/// the orbit of flips by piece with the most values ([`OrbitPlan::runs_of_flips`]), which
/// goes last to make XOR runs. Only an orbit that hides its sum moves, so the sums keep
/// the order [`project_coupling`] codes them in.
fn orient_order(orbits: &[OrbitPlan]) -> Vec<u8> {
    let mut order: Vec<u8> =
        (0..orbits.len() as u8).filter(|&j| orbits[j as usize].free_mod > 1).collect();
    let flips = (order.iter().copied())
        .filter(|&j| orbits[j as usize].runs_of_flips())
        .max_by_key(|&j| (orbits[j as usize].orient_radix, std::cmp::Reverse(j)));
    if let Some(last) = flips {
        order.retain(|&j| j != last);
        order.push(last);
    }
    order
}

/// The orbits whose sign coordinate is free: every element of the coupling group with that
/// sign flipped is one too.
fn free_signs(inv: &Invariants) -> Vec<usize> {
    let elements: std::collections::HashSet<Vec<u8>> =
        inv.coupling.iter().map(|&c| inv.decode(c)).collect();
    (inv.coords.iter().enumerate())
        .filter_map(|(i, c)| match *c {
            Coord::Sign(j) => Some((i, j)),
            Coord::Sum(_) => None,
        })
        .filter(|&(i, _)| {
            elements.iter().all(|v| {
                let mut w = v.clone();
                w[i] ^= 1;
                elements.contains(&w)
            })
        })
        .map(|(_, j)| j)
        .collect()
}

/// A board in working form, or why it has none: a piece on an orbit whose labels it does
/// not carry, an orientation its cell forbids, or an orbit holding the wrong pieces.
fn working_form(orbits: &[OrbitPlan], inv: &Invariants, board: &Board) -> Result<Cells> {
    let n: usize = orbits.iter().map(|o| o.cells.len()).sum();
    let bad = |reason: String| Err(Error::InvalidBoard(reason));
    if board.tiles.len() != n || board.orient.len() != n {
        return bad(format!("expected {n} pieces, found {}", board.tiles.len()));
    }
    let mut out = [0u8; MAX_CELLS];
    for o in orbits {
        let mut counts = vec![0u8; o.counts.len()];
        for &c in &o.cells {
            let p = c as usize;
            let label = board.tiles[p];
            let v = o.index.get(label as usize).copied().unwrap_or(NO_INDEX);
            if v == NO_INDEX {
                return bad(format!(
                    "piece {} cannot reach cell {}: the cells {} hold pieces {} only",
                    label as usize + 1,
                    p + 1,
                    cell_list(&o.cells),
                    label_list(&o.labels)
                ));
            }
            counts[v as usize] += 1;
            if o.unseen[label as usize] {
                out[p] = label;
                continue;
            }
            let home = o.potential[label as usize];
            let Some(turn) = inv.reduced_orientation(p, board.orient[p], home) else {
                return bad(format!(
                    "piece {} cannot stand on cell {} with that orientation: orientation mod {} is \
                     fixed by the cell",
                    label + 1,
                    p + 1,
                    o.tied_mod
                ));
            };
            out[p] = label | (turn << TILE_BITS);
        }
        if let Some(v) = (0..counts.len()).find(|&v| counts[v] != o.counts[v]) {
            return bad(format!(
                "the cells {} hold {} pieces labelled {}, and every reachable board has {}",
                cell_list(&o.cells),
                counts[v],
                o.labels[v] + 1,
                o.counts[v]
            ));
        }
    }
    Ok(Cells(out))
}

/// The coupling group as boards show it: `H` projected onto the signs of orbits without
/// identical pieces and every orientation sum, then moved by the solved board's sums. (Those
/// are not 0 when identical pieces have homes of different potentials: a piece's reduced
/// orientation is counted from its label's first home, which adds a constant to the sum.)
/// Returns the sorted codes (signs, then sums, in the invariants' order) and the sums'
/// space.
fn project_coupling(inv: &Invariants, orbits: &[OrbitPlan], solved: &Cells) -> (Vec<u32>, u32) {
    let mut solved_sums = Vec::new();
    for o in orbits.iter().filter(|o| o.free_mod > 1 && !o.hides_sum()) {
        let sum: u32 = o.cells.iter().map(|&c| (solved.0[c as usize] >> TILE_BITS) as u32).sum();
        solved_sums.push((sum % o.free_mod as u32) as u8);
    }
    let mut sums_seen = 0;
    let mut shift = Vec::with_capacity(inv.coords.len());
    let mut kept = Vec::with_capacity(inv.coords.len());
    for c in &inv.coords {
        match *c {
            Coord::Sign(j) => {
                shift.push(0);
                kept.push(orbits[j].keeps_sign());
            }
            Coord::Sum(j) if orbits[j].hides_sum() => {
                shift.push(0);
                kept.push(false);
            }
            Coord::Sum(_) => {
                shift.push(solved_sums[sums_seen]);
                sums_seen += 1;
                kept.push(true);
            }
        }
    }
    let sums_space: u32 =
        orbits.iter().filter(|o| !o.hides_sum()).map(|o| o.free_mod as u32).product();
    let mut codes: Vec<u32> = inv
        .coupling
        .iter()
        .map(|&code| {
            let v = inv.decode(code);
            (0..v.len()).filter(|&i| kept[i]).fold(0u32, |acc, i| {
                let r = inv.radices[i];
                acc * r as u32 + ((v[i] + shift[i]) % r) as u32
            })
        })
        .collect();
    codes.sort_unstable();
    codes.dedup();
    (codes, sums_space)
}

/// Labels as the file numbers them.
fn label_list(labels: &[u8]) -> String {
    labels.iter().map(|l| (l + 1).to_string()).collect::<Vec<_>>().join(" ")
}

impl CellRanking for Multiset {
    fn cell_moves(&self) -> &CellMoves {
        &self.moves
    }
    fn n_ranks(&self) -> u64 {
        self.n_states
    }
    fn n_reachable_ranks(&self) -> u64 {
        self.reachable
    }
    #[inline(always)]
    fn rank_cells(&self, s: &Cells) -> u64 {
        Multiset::rank(self, s)
    }
    #[inline(always)]
    fn unrank_cells(&self, rank: u64) -> Cells {
        Multiset::unrank(self, rank)
    }
    fn xor_block_bits(&self) -> Option<u32> {
        Multiset::xor_block_bits(self)
    }
}

/// `(a / b, a % b)`, without dividing where `b` is 1.
#[inline(always)]
fn div_rem(a: u64, b: u64) -> (u64, u64) {
    match b {
        1 => (a, 0),
        _ => (a / b, a % b),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::puzzle::definition::Definition;
    use crate::puzzle::definition::tests::{CUBE2, TWO};
    use crate::puzzle::{Metric, PuzzleSpec, defined::Defined};
    use crate::rank::{Enumerated, Ranking, StateSpace};
    use std::collections::HashSet;

    /// Every arrangement of a multiset, in lexicographic order.
    fn arrangements(counts: &[u8]) -> Vec<Vec<usize>> {
        let n: usize = counts.iter().map(|&c| c as usize).sum();
        let mut left = counts.to_vec();
        let mut out = Vec::new();
        fn go(left: &mut [u8], prefix: &mut Vec<usize>, n: usize, out: &mut Vec<Vec<usize>>) {
            if prefix.len() == n {
                out.push(prefix.clone());
                return;
            }
            for v in 0..left.len() {
                if left[v] > 0 {
                    left[v] -= 1;
                    prefix.push(v);
                    go(left, prefix, n, out);
                    prefix.pop();
                    left[v] += 1;
                }
            }
        }
        go(&mut left, &mut Vec::new(), n, &mut out);
        out
    }

    #[test]
    fn multiset_ranks_number_arrangements_in_order() {
        for counts in [&[1u8, 1, 1, 1][..], &[2, 1, 3], &[4], &[2, 2, 2], &[1, 3, 1, 2], &[3, 3]] {
            let all = arrangements(counts);
            let total = multinomial(counts).unwrap();
            assert_eq!(total, all.len() as u64, "{counts:?}");
            for (r, a) in all.iter().enumerate() {
                assert_eq!(multiset_rank(counts, total, |i| a[i]), r as u64, "{counts:?}");
                let mut back = vec![usize::MAX; a.len()];
                multiset_unrank(counts, total, r as u64, |i, v| back[i] = v);
                assert_eq!(&back, a, "{counts:?}");
            }
        }
        assert_eq!(multinomial(&[8, 8, 8, 8]), Some(99_561_092_450_391_000));
    }

    /// The table agrees with the reference on every arrangement of small multisets, and on
    /// random ones of a large one; past its size the reference takes over.
    #[test]
    fn arrangement_tables_agree_with_the_reference() {
        for counts in [&[1u8, 1, 1, 1][..], &[2, 1, 3], &[4], &[2, 2, 2], &[1, 3, 1, 2], &[3, 3]] {
            let a = Arrangements::new(counts).unwrap();
            assert!(!a.below.is_empty());
            for (r, x) in arrangements(counts).iter().enumerate() {
                assert_eq!(a.rank(|i| x[i]), r as u64, "{counts:?}");
                let mut back = vec![usize::MAX; x.len()];
                a.unrank(r as u64, |i, v| back[i] = v);
                assert_eq!(&back, x, "{counts:?}");
                let mut by_table = vec![usize::MAX; x.len()];
                a.unrank_by_table(r as u64, |i, v| by_table[i] = v);
                assert_eq!(&by_table, x, "{counts:?} place by place");
            }
            assert_eq!(a.listed.len(), a.n * a.count() as usize, "{counts:?} listed");
        }
        let counts = [8u8, 8, 8, 8];
        let a = Arrangements::new(&counts).unwrap();
        assert!(!a.below.is_empty());
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..1000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let r = x % a.count();
            let mut values = vec![0; 32];
            a.unrank(r, |i, v| values[i] = v);
            multiset_unrank(&counts, a.count(), r, |i, v| assert_eq!(values[i], v));
            assert_eq!(a.rank(|i| values[i]), r);
            assert_eq!(multiset_rank(&counts, a.count(), |i| values[i]), r);
        }
        let many = [[2u8].as_slice(), &[1; 17]].concat();
        assert!(Arrangements::new(&many).unwrap().below.is_empty(), "3 * 2^17 states");
        assert_eq!(multinomial(&[1; 21]), None, "21! does not fit 64 bits");
    }

    fn defined(text: &str) -> Puzzle {
        let d = Defined::new("test.tws", Definition::parse(text).unwrap()).unwrap();
        Puzzle::new(&PuzzleSpec::Def(std::sync::Arc::new(d)), Metric::Htm).unwrap()
    }

    /// The multiset ranking of a puzzle, checked board by board against a list of every
    /// reachable board: each rank gives a distinct reachable board that ranks back, the
    /// ranks cover the list, and every compiled move, both ways, agrees with the puzzle's.
    fn check_against_listing(name: &str, p: &Puzzle) -> u64 {
        let space = StateSpace::build(p).unwrap();
        let Ranking::Multiset(m) = &space.ranking else {
            panic!("{name}: expected the multiset ranking, found {:?}", space.ranking_record().kind)
        };
        check_ranking_against_listing(name, p, m)
    }

    /// [`check_against_listing`] of a given multiset ranking of `p`.
    fn check_ranking_against_listing(name: &str, p: &Puzzle, m: &Multiset) -> u64 {
        let listed = Enumerated::new(p).unwrap();
        assert_eq!(m.n_states(), listed.n_states(), "{name}");
        let inverses = p.inverse_moves();
        let mut seen = HashSet::new();
        for r in 0..m.n_states() {
            let cells = m.unrank(r);
            assert_eq!(m.rank(&cells), r, "{name}");
            let board = m.board_of(&cells);
            assert!(listed.rank_of(&board).is_some(), "{name}: rank {r} is not reachable");
            assert_eq!(m.cells_of(&board).unwrap(), cells, "{name}");
            // Compared by rank: moves leave turns on unseen pieces, which ranks never read.
            let rank_of = |b: &Board| m.rank(&m.cells_of(b).unwrap());
            for (i, (mv, inv)) in p.moves.iter().zip(&inverses).enumerate() {
                let solved = m.moves().solve_step(&cells, i);
                assert_eq!(m.rank(&solved), rank_of(&p.apply(&board, mv)), "{name} {}", mv.name);
                let scrambled = m.moves().scramble_step(&cells, i);
                assert_eq!(m.rank(&scrambled), rank_of(&p.apply(&board, inv)), "{name}");
            }
            assert!(seen.insert(board), "{name}: rank {r} repeats a board");
        }
        m.n_states()
    }

    /// A definition with its solved labels replaced.
    fn relabelled(text: &str, from: &str, to: &str) -> Puzzle {
        assert!(text.contains(from));
        defined(&text.replacen(from, to, 1))
    }

    /// Three sets: A's and B's signs are coupled (kept: their pieces differ), and coupled to
    /// C's, which identical pieces hide; C's flips add up to 0.
    const COUPLED: &str = "\
Set A 3 1
Set B 3 1
Set C 4 2
Solved
A
1 2 3
B
1 2 3
C
1 1 2 3
End
Move S
A
2 1 3
B
2 1 3
End
Move T
A
2 3 1
End
Move U
B
2 3 1
End
Move V
A
1 3 2
B
1 3 2
C
2 3 4 1
1 1 0 0
End
Move Y
C
2 3 1 4
End
Move W
C
1 2 3 4
1 1 0 0
End
";

    /// Four pieces with quarter turns whose orientation mod 2 the cell fixes (each move
    /// turns a piece by the step between the cells' potentials 0 1 2 3, modulo 2): pieces 1
    /// and 3 are identical, with homes of potentials 0 and 2.
    const TIED: &str = "\
Set D 4 4
Solved
D
1 2 1 3
End
Move R
D
2 3 4 1
1 1 1 1
End
Move Q
D
3 2 1 4
0 0 0 0
End
Move P
D
2 1 3 4
1 1 0 0
End
";

    /// Two rings of identical pieces, as the puzzlerchallenger's: 4!/(2! 2!) and
    /// 6!/(2! 2! 2!) arrangements (the moves tie the rings' signs, which identical pieces
    /// hide).
    const RINGS: &str = "\
Set A 4 1
Set B 6 1
Solved
A
1 1 2 2
B
1 1 2 2 3 3
End
Move R
A
2 3 4 1
B
2 3 4 5 6 1
End
Move L
A
2 1 3 4
B
2 1 3 4 5 6
End
";

    /// Seven edges that flip, five named and two alike whose flips are not seen: 7!/2!
    /// arrangements times 2^5 flips, the flips digits by piece (XOR runs of 32).
    pub(crate) const NAMED_FLIPS: &str = "\
Set E 7 2
Solved
E
1 2 3 4 5 6 6
0 0 0 0 0 ? ?
End
Move A
E
2 3 4 5 6 7 1
1 0 0 0 0 0 0
End
Move B
E
2 1 3 4 5 6 7
0 0 0 0 0 0 0
End
Move C
E
1 3 2 4 5 6 7
1 1 0 0 0 0 0
End
";

    /// [`NAMED_FLIPS`] with two corners after the edges, twisting mod 3 (sum 0): 6 boards
    /// of them.
    pub(crate) fn named_flips_and_corners() -> String {
        NAMED_FLIPS
            .replace("Set E 7 2", "Set E 7 2\nSet C 2 3")
            .replace("End\nMove A\n", "C\n1 2\n0 0\nEnd\nMove A\nC\n2 1\n0 0\n")
            .replace("Move B\n", "Move B\nC\n1 2\n1 2\n")
    }

    /// A move flips the same pieces' bits whatever their flips: offset `x` of a run of 32
    /// goes to `x ^ c`, `c` the image of offset 0 (both directions).
    fn check_flips_are_xor_runs(m: &Multiset, runs: [u64; 3]) {
        assert_eq!(m.xor_block_bits(), Some(5));
        for run in runs {
            for mv in 0..m.moves().len() {
                let steps: [&dyn Fn(&Cells) -> Cells; 2] =
                    [&|s| m.moves().solve_step(s, mv), &|s| m.moves().scramble_step(s, mv)];
                for step in steps {
                    let base = m.rank(&step(&m.unrank(run << 5)));
                    for x in 0..32 {
                        let image = m.rank(&step(&m.unrank(run << 5 | x)));
                        assert_eq!(image, base ^ x, "run {run}, move {mv}, offset {x}");
                    }
                }
            }
        }
    }

    #[test]
    fn unseen_pieces_leave_the_named_pieces_digits_by_piece() {
        let p = defined(NAMED_FLIPS);
        assert_eq!(check_against_listing("named flips", &p), 2520 * 32);
        let Ranking::Multiset(m) = StateSpace::build(&p).unwrap().ranking else { panic!() };
        assert_eq!(m.xor_block_bits(), Some(5));
        check_flips_are_xor_runs(&m, [0, 17, 2519]);
        // Two corners after the edges: the edges' flips go last among the digits, below the
        // corners' twists and sum, and still make XOR runs of 32.
        let p = defined(&named_flips_and_corners());
        assert_eq!(check_against_listing("named flips and corners", &p), 2520 * 32 * 6);
        let Ranking::Multiset(m) = StateSpace::build(&p).unwrap().ranking else { panic!() };
        assert_eq!((m.orbits[0].cells.len(), m.orient_order.clone()), (7, vec![1, 0]));
        check_flips_are_xor_runs(&m, [0, 5, 15119]);
        // Turns mod 3: digits by piece as well, no XOR runs.
        let turns =
            NAMED_FLIPS.replace("Set E 7 2", "Set E 7 3").replace("1 1 0 0 0 0 0", "1 2 0 0 0 0 0");
        let p = defined(&turns);
        assert_eq!(check_against_listing("named turns", &p), 2520 * 243);
        let Ranking::Multiset(m) = StateSpace::build(&p).unwrap().ranking else { panic!() };
        assert_eq!(m.xor_block_bits(), None);
        // Two of the named pieces alike (their flips seen): digits by cell, no XOR runs.
        let p = relabelled(NAMED_FLIPS, "1 2 3 4 5 6 6", "1 1 3 4 5 6 6");
        assert_eq!(check_against_listing("alike flips", &p), 1260 * 32);
        let Ranking::Multiset(m) = StateSpace::build(&p).unwrap().ranking else { panic!() };
        assert_eq!(m.xor_block_bits(), None);
    }

    #[test]
    fn orbits_taken_largest_first_rank_the_same_boards() {
        let p = defined(RINGS);
        let Ranking::Multiset(m) = StateSpace::build(&p).unwrap().ranking else { panic!() };
        assert_eq!(m.coordinate_radices().unwrap(), [6, 90]);
        let swapped = m.largest_orbits_first().unwrap();
        assert_eq!(swapped.coordinate_radices().unwrap(), [90, 6]);
        assert_eq!(check_ranking_against_listing("rings, B first", &p, &swapped), 540);
        // The leading digit is B's: ranks 0..6 differ in A alone.
        let b_of = |r: u64| swapped.board_of(&swapped.unrank(r)).tiles[4..].to_vec();
        assert!((0..6).all(|r| b_of(r) == b_of(0)) && b_of(6) != b_of(0));
        // Already largest first: no other order.
        assert!(swapped.largest_orbits_first().is_none());
    }

    #[test]
    fn identical_pieces_rank_exactly_the_reachable_boards() {
        // Signs of A and B equal or not as H allows: 3!^2/2 arrangements, times C's 4!/2!
        // arrangements and 2^3 flips.
        assert_eq!(check_against_listing("coupled signs", &defined(COUPLED)), 18 * 12 * 8);
        // The solved board's reduced orientations do not add up to 0 (piece 1 on cell 3
        // counts from cell 1's potential), so the sums are shifted.
        let p = defined(TIED);
        let Ranking::Multiset(m) = StateSpace::build(&p).unwrap().ranking else { panic!() };
        let solved = m.cells_of(&p.solved()).unwrap();
        assert_ne!(solved.0[..4].iter().map(|b| b >> TILE_BITS).sum::<u8>() % 2, 0);
        check_against_listing("tied orientations", &p);
        // Identical pieces on cells of different potentials modulo 2 are told apart by the
        // moves: no multiset ranking, so the boards are listed.
        let p = relabelled(TIED, "1 2 1 3", "1 1 2 3");
        let analysis = crate::group::analysis::Analysis::of(&p).unwrap();
        let err = Multiset::new(&p, analysis.invariants.clone()).unwrap_err().to_string();
        assert!(
            err.contains("solved on cells 1 2 (in the orbit of cells 1 2 3 4)")
                && err.contains("tell them apart"),
            "{err}"
        );
        let space = StateSpace::build(&p).unwrap();
        assert!(matches!(space.ranking, Ranking::Enumerated(_)));
        assert_eq!(space.n_states(), Enumerated::new(&p).unwrap().n_states());
        // Two sets: Q's 3-cycle turns its three arrangements (two pieces identical) while P
        // takes every permutation and orientation sum: 4! * 3^4 * 3.
        assert_eq!(check_against_listing("two sets", &defined(TWO)), 24 * 81 * 3);
        // The 2x2x2 cube whose corners are told apart by colour only: 7!/(3! 3! 1!) * 3^6.
        let p = relabelled(CUBE2, "1 2 3 4 5 6 7\nEnd", "1 1 1 2 2 2 3\nEnd");
        assert_eq!(check_against_listing("cube by colours", &p), 140 * 729);
        // NRP (3,3,2) whose tiles are told apart only by their row: 9!/(3!)^3.
        let text = crate::puzzle::definition::Definition::from_puzzle(
            &Puzzle::parse("nrp:3x3:2", Some(Metric::Htm)).unwrap(),
        )
        .unwrap()
        .to_tws();
        let p = relabelled(&text, "\n1 2 3 4 5 6 7 8 9\n", "\n1 1 1 2 2 2 3 3 3\n");
        assert_eq!(check_against_listing("rows", &p), 1680);
    }
}
