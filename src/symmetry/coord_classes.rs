//! Classes of boards with identical pieces under the puzzle's symmetries, on the digits of
//! per-move coordinate tables ([`CoordTables`]).
//!
//! A board with identical pieces is no group element, but a symmetry `s` that keeps the
//! solved board (each label's cells onto one label's cells) still carries it to a board as
//! far from solved: the pieces move as the cells do, each relabelled as its home's image
//! is, turned by the map ([`Symmetry::turn_at`]). That map acts on each cell's working byte
//! alone, so it is a table per cell and element ([`ByteMaps`]).
//!
//! An entry is `(class of the first part, rest)`, as in [`super::ClassRanking`]:
//! - the **first part** is the value of the leading digits (the orbits' arrangements, say,
//!   the largest first where their order is free: [`Multiset::largest_orbits_first`]), as
//!   many as make between [`MIN_FIRST`] and [`MAX_FIRST`] values where the digits allow.
//!   A table gives each value its class (the smallest value of its orbit under the group is
//!   the representative) and an element taking it there, found orbit by orbit
//!   ([`super::orbits::reduce`]);
//! - the **rest** is the other digits of the board carried by that element. Each element
//!   must map each of them by itself (one table per element and digit); this and the first
//!   part's image depending on it alone are checked on a spread of boards. Where a rest
//!   digit's image depends on the first part (orientations whose offsets differ between
//!   labels), the first part takes more digits, at last all of them.
//!
//! The last digit's values are runs: a move carries a run onto a run, its offsets through
//! the move's digit table and then the element's, one composed table per move and element.
//! Entries of a representative that an element `h` fixes are one class with their
//! `h`-images: a forward step marks the others after it ([`EntryClasses`]), and each entry
//! counts `|G| / |H|` boards.

use std::sync::Arc;

use rayon::prelude::*;

use super::entry_classes::{EntryClasses, TwinBlocks};
use super::orbits::{self, ElementSet, Reduced};
use super::{MoveIndex, Symmetries, Symmetry};
use crate::bfs::Level;
use crate::puzzle::{Board, Puzzle};
use crate::rank::coord_tables::{CoordTables, Digits, MAX_COORDS};
use crate::rank::layout::MAX_CELLS;
use crate::rank::runs::{OffsetTable, RunMove};
use crate::rank::{CellRuns, Cells, Multiset, StateRanking, spread_sample};
use crate::table::DistanceTable;
use crate::{Error, Result};

/// Leading digits join the first part until it has at least this many values.
pub const MIN_FIRST: u64 = 100_000;
/// The first part has at most this many values (four bytes each in the class table).
pub const MAX_FIRST: u64 = 1 << 22;
/// Most elements: an element's index takes the low bits of a class table entry.
const ELEMENT_BITS: u32 = 6;
/// The runs' offset tables are composed with the elements' maps where that takes at most
/// this share of the table's bytes (see [`CoordClasses::last_digit_runs`]).
const COMPOSED_SHARE: u64 = 8;
/// Boards on which the elements' action is checked.
const SAMPLES: u64 = 2048;

/// Classes of the boards of a multiset ranking moved by its digit tables (module docs).
#[derive(Debug)]
pub struct CoordClasses {
    multiset: Multiset,
    tables: Arc<CoordTables>,
    syms: Symmetries,
    /// Per element: where each cell goes, and the byte each byte becomes there.
    maps: Vec<ByteMaps>,
    /// Digits in the first part.
    split: usize,
    /// Place values of the first part's digits within it.
    first_weights: Vec<u64>,
    /// Values of the rest (product of the other digits' radices).
    rest_count: u64,
    /// Per first-part value: its class, shifted by [`ELEMENT_BITS`], and the element taking
    /// it to the class's representative.
    first_class: Vec<u32>,
    /// Per class: its representative first part.
    reps: Vec<u32>,
    /// `rest_maps[e][rest_offsets[i] + d]`: the image of value `d` of the `i`-th rest digit
    /// under element `e`, in two bytes a value where the digits' radices allow.
    rest_maps: Vec<OffsetTable>,
    rest_offsets: Vec<usize>,
    /// Classes whose representative some element besides the identity fixes, with the set
    /// of those that do (bit `e`).
    twins: Vec<(u32, ElementSet)>,
    runs: Option<CellRuns>,
    n_states: u64,
}

/// One element's action on working bytes: `byte[p * 256 + b]` is what byte `b` on cell
/// `p` becomes on cell `to[p]`.
#[derive(Debug)]
pub(super) struct ByteMaps {
    to: [u8; MAX_CELLS],
    byte: Vec<u8>,
}

impl ByteMaps {
    /// Where cell `p`'s piece goes.
    pub(super) fn cell_image(&self, p: usize) -> usize {
        self.to[p] as usize
    }

    /// The byte that byte `b` on cell `p` becomes on its image cell.
    pub(super) fn byte_image(&self, p: usize, b: u8) -> u8 {
        self.byte[p * 256 + b as usize]
    }

    #[inline(always)]
    pub(super) fn apply(&self, s: &Cells, n: usize) -> Cells {
        let mut out = [0u8; MAX_CELLS];
        for p in 0..n {
            out[self.to[p] as usize] = self.byte[p * 256 + s.0[p] as usize];
        }
        Cells(out)
    }
}

impl CoordClasses {
    /// The classes of `multiset`'s boards under `syms` (the puzzle's symmetries), or why
    /// there are none; with `runs_only`, only classes whose rest makes runs (a leading part
    /// short of every digit). Where the symmetries that carry an orbit onto another tie the
    /// digits together (the FTO's two orbits of centres, each a digit), the subgroup that
    /// keeps every orbit is tried.
    pub fn new(
        puzzle: &Puzzle,
        multiset: Multiset,
        syms: Symmetries,
        runs_only: bool,
    ) -> Result<CoordClasses> {
        let keeps_orbits = |s: &Symmetry| {
            (multiset.orbit_cells())
                .all(|cells| cells.iter().all(|&c| cells.contains(&s.cells[c as usize])))
        };
        // Only where some map exchanges orbits is there a smaller group to try (and the
        // multiset, whose coupling index may be large, copied for a second attempt).
        let keeping = (!syms.elements.iter().all(keeps_orbits))
            .then(|| syms.subgroup(keeps_orbits))
            .filter(|k| k.order() > 1);
        let Some(keeping) = keeping else {
            return CoordClasses::under_group(puzzle, multiset, syms, runs_only);
        };
        match CoordClasses::under_group(puzzle, multiset.clone(), syms, runs_only) {
            Err(e) => {
                CoordClasses::under_group(puzzle, multiset, keeping, runs_only).map_err(|_| e)
            }
            ok => ok,
        }
    }

    /// [`CoordClasses::new`] under the group `syms`.
    fn under_group(
        puzzle: &Puzzle,
        multiset: Multiset,
        syms: Symmetries,
        runs_only: bool,
    ) -> Result<CoordClasses> {
        let refuse = |why: &str| {
            Err(Error::Unsupported(format!(
                "no symmetry reduction for {}: {why}",
                puzzle.spec.named()
            )))
        };
        if let Some(why) = CoordClasses::refusal_of_group(&syms) {
            return refuse(why);
        }
        let multiset = multiset.largest_orbits_first().unwrap_or(multiset);
        // The digits the tables would have: their split is tried on a few boards before the
        // tables are built (most puzzles' symmetries tie the digits together).
        let Some(radices) = multiset.coordinate_radices().filter(|r| !r.is_empty()) else {
            return refuse(match multiset.hides_orientation_sums() {
                true => {
                    "its identical pieces are not moved by per-move digit tables: with \
                         pieces whose orientation is not seen (`?`), a move changes the seen \
                         orientations by where those pieces stand; searched by boards"
                }
                false => {
                    "its identical pieces are not moved by per-move digit tables: a \
                          parity ties its orbits' arrangements to each other or to the sums"
                }
            });
        };
        let Some(maps) = byte_maps(puzzle, &multiset, &syms) else {
            return refuse("a symmetry does not carry its identical pieces onto identical ones");
        };
        let n = puzzle.n_positions();
        let k = radices.len();
        // The first part: leading digits until it is large enough, the rest at least the
        // last digit; a split whose rest the elements do not map digit by digit is passed,
        // and at last every digit is the first part (no runs then).
        let mut first = 1u64;
        let last = if runs_only { k - 1 } else { k };
        for split in 1..=last {
            first *= radices[split - 1];
            if first > MAX_FIRST {
                break;
            }
            if first < MIN_FIRST && split < k - 1 {
                continue;
            }
            let plan = Plan::new(&radices, split);
            // A few boards first: most splits that fail do so on every board.
            if !plan.rest_follows_rest(&multiset, &maps, n) {
                continue;
            }
            let Some(tables) = multiset.shared_coordinate_tables().cloned() else {
                return refuse("its identical pieces are not moved by per-move digit tables");
            };
            let Some(rest_maps) = plan.rest_maps(&multiset, &maps, n) else { continue };
            if !plan.acts_by_digits(&multiset, &maps, &rest_maps, n) {
                continue;
            }
            if !commutes_with_moves(puzzle, &multiset, &tables, &syms, &maps) {
                return refuse("a symmetry's action on its boards does not follow the moves");
            }
            let parts = (plan, rest_maps);
            return Ok(CoordClasses::assemble(multiset, tables, syms, maps, parts, n));
        }
        refuse("its symmetries do not act on its digits one part at a time")
    }

    /// Why classes of digits cannot be taken under `syms`, if they cannot.
    pub fn refusal_of_group(syms: &Symmetries) -> Option<&'static str> {
        match syms.order() {
            0 | 1 => Some("it has no symmetry that keeps its moves and solved state"),
            o if o > 1 << ELEMENT_BITS => Some("more symmetries than a class table can name"),
            _ => None,
        }
    }

    fn assemble(
        multiset: Multiset,
        tables: Arc<CoordTables>,
        syms: Symmetries,
        maps: Vec<ByteMaps>,
        (plan, rest_maps): (Plan, Vec<Vec<u32>>),
        n: usize,
    ) -> CoordClasses {
        let Plan { split, first_count, first_weights, rest_count, rest_offsets, .. } = plan;
        // The orbits of the first parts, each reduced to its smallest member (the class's
        // representative), with the element taking each first part there and the elements
        // fixing each representative: an orbit's images are made once, from its smallest
        // member, where every first part's under every element took the 3p1 0.6-0.7 s.
        let undo: Vec<u32> = (0..maps.len()).map(|e| syms.inverse_position(e) as u32).collect();
        let reduced = orbits::reduce(first_count as usize, &undo, ELEMENT_BITS, |f, out| {
            let board = multiset.unrank(f as u64 * rest_count);
            out[0] = f as u32;
            for (e, map) in maps.iter().enumerate().skip(1) {
                out[e] = (multiset.rank(&map.apply(&board, n)) / rest_count) as u32;
                if (out[e] as usize) < f {
                    return false;
                }
            }
            true
        })
        .expect("no more orbits than members, which fit beside the element");
        let Reduced { placement: first_class, representative: reps, twins } = reduced;
        let n_states = reps.len() as u64 * rest_count;
        let mut out = CoordClasses {
            multiset,
            tables,
            syms,
            maps,
            split,
            first_weights,
            rest_count,
            first_class,
            reps,
            rest_maps: rest_maps.into_iter().map(OffsetTable::new).collect(),
            rest_offsets,
            twins,
            runs: None,
            n_states,
        };
        out.runs = out.last_digit_runs();
        out
    }

    /// The last digit's runs: each move's table of that digit composed with each element's
    /// map of it where those tables take at most [`COMPOSED_SHARE`] of the table's bytes,
    /// else each move's table then the element's map (one more dependent read per
    /// neighbour: the turnstile 15 s against 18, where the 233 saves 23 MB in 2.0 s against
    /// 2.3); `None` when the tables would be too large.
    fn last_digit_runs(&self) -> Option<CellRuns> {
        let (n_moves, order) = (self.tables.n_moves() as u64, self.maps.len() as u64);
        let len = *self.tables.radices().last()?;
        // Two bytes per offset at most runs' lengths; the table holds four entries a byte.
        let composed_bytes = n_moves * order * len * 2 * 2;
        self.last_digit_runs_with(composed_bytes <= self.n_states / 4 / COMPOSED_SHARE)
    }

    /// [`CoordClasses::last_digit_runs`], the tables composed with the maps or not.
    fn last_digit_runs_with(&self, compose: bool) -> Option<CellRuns> {
        let t = &self.tables;
        let k = t.radices().len();
        if self.split == k {
            return None;
        }
        let len = t.radices()[k - 1];
        let order = self.maps.len();
        let n_moves = t.n_moves() as u64;
        let composed = n_moves * order as u64 * len * 2;
        // Offset tables (both directions, and the elements' maps) as large as digit tables
        // may be beside this table (the FTO's centres: 20.7 million offsets beside 1.4 GB).
        let most = crate::rank::coord_tables::most_entries_beside(self.n_states);
        if composed.min((n_moves * 2 + order as u64) * len) > most {
            return None;
        }
        // Composed tables read the maps as numbers; the others share the maps' memory.
        let last = if compose { self.rest_maps_of(k - 1) } else { Vec::new() };
        let moves = |solve: bool| -> Vec<RunMove> {
            (0..t.n_moves())
                .map(|m| {
                    let offsets = if compose {
                        let digit = t.digit_table(solve, m, k - 1);
                        let of = |e: usize| digit.iter().map(|&x| last[e][x as usize]).collect();
                        (0..order).map(|e| OffsetTable::new(of(e))).collect()
                    } else {
                        vec![t.digit_offsets(solve, m, k - 1)]
                    };
                    RunMove { index: m, offsets, by_run: Vec::new() }
                })
                .collect()
        };
        let then = match compose {
            true => Vec::new(),
            false => self.rest_maps.iter().map(|m| self.rest_part(m, k - 1)).collect(),
        };
        Some(CellRuns {
            len,
            classes: 1,
            solve: moves(true),
            scramble: moves(false),
            rest: Vec::new(),
            cells: Vec::new(),
            then,
            shared: Vec::new(),
            by_run_span: 1,
        })
    }

    /// Per element, its map of digit `j` (a rest digit).
    fn rest_maps_of(&self, j: usize) -> Vec<Vec<u32>> {
        self.rest_maps.iter().map(|m| self.rest_part(m, j).to_numbers()).collect()
    }

    /// The stretch of an element's rest map (in `rest_maps`) that maps digit `j`.
    fn rest_part(&self, map: &OffsetTable, j: usize) -> OffsetTable {
        let i = j - self.split;
        map.part(self.rest_offsets[i], self.tables.radices()[j] as usize)
    }

    /// The entry of a board given as digits, and the element taking it to its class.
    #[inline(always)]
    fn entry_and_element(&self, s: &Digits) -> (u64, usize) {
        let radices = self.tables.radices();
        let f: u64 = s.iter().zip(&self.first_weights).map(|(&d, &w)| d as u64 * w).sum();
        let packed = self.first_class[f as usize];
        let e = (packed & ((1 << ELEMENT_BITS) - 1)) as usize;
        let map = &self.rest_maps[e];
        let mut rest = 0u64;
        for (i, j) in (self.split..radices.len()).enumerate() {
            rest = rest * radices[j] + map.get(self.rest_offsets[i] + s[j] as usize);
        }
        ((packed >> ELEMENT_BITS) as u64 * self.rest_count + rest, e)
    }

    /// The boards the classes hold.
    pub fn n_boards(&self) -> u64 {
        self.multiset.n_states()
    }

    /// The order of the group.
    pub fn order(&self) -> u64 {
        self.maps.len() as u64
    }

    /// The symmetries.
    pub fn symmetries(&self) -> &Symmetries {
        &self.syms
    }

    /// Classes of first parts, and first parts.
    pub fn first_part_classes(&self) -> (u64, u64) {
        (self.reps.len() as u64, self.first_class.len() as u64)
    }

    /// Classes of first parts that an element besides the identity fixes.
    pub fn twin_classes(&self) -> usize {
        self.twins.len()
    }

    /// What the entries are, in words.
    pub fn describe(&self) -> String {
        match self.digits_text() {
            (first, rest) if rest.is_empty() => {
                format!("{} symmetries, every digit first ({first})", self.order())
            }
            _ => self.recorded_kind(),
        }
    }

    /// What table headers record of the entries ([`CoordClasses::describe`] as it was first
    /// written, an empty rest included): tables already written must still be accepted.
    pub fn recorded_kind(&self) -> String {
        let (first, rest) = self.digits_text();
        format!("{} symmetries, digits {first} first, then {rest}", self.order())
    }

    /// The radices of the first part's digits and of the rest's, each as `a x b`.
    fn digits_text(&self) -> (String, String) {
        let r = self.tables.radices();
        let text = |d: &[u64]| d.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(" x ");
        (text(&r[..self.split]), text(&r[self.split..]))
    }

    /// The images of a board under every element.
    pub fn images(&self, board: &Board) -> Vec<Board> {
        let m = &self.multiset;
        let Ok(cells) = m.cells_of(board) else { return vec![board.clone()] };
        let n = board.tiles.len();
        self.maps.iter().map(|map| m.board_of(&map.apply(&cells, n))).collect()
    }

    /// The entry of a board, or why it is not reachable.
    pub fn entry_of_board(&self, board: &Board) -> Result<u64> {
        let rank = self.multiset.rank(&self.multiset.cells_of(board)?);
        Ok(self.entry_and_element(&self.tables.unrank(rank)).0)
    }

    /// The representative board of an entry.
    pub fn board(&self, entry: u64) -> Board {
        let rank = self.tables.rank(&self.unrank(entry));
        self.multiset.board_of(&self.multiset.unrank(rank))
    }

    /// The number of classes of boards: entries, less the repeats of twin classes (each
    /// counted at the smallest of its entries).
    pub fn exact_classes(&self) -> u64 {
        self.n_states - self.twin_blocks().repeats()
    }

    /// The rests of twin classes, with their elements' images.
    fn twin_blocks(&self) -> TwinBlocks<'_, impl Fn(u32, usize, u64) -> u64 + Sync + '_> {
        let image = |_, h, rest| self.rest_image(h, rest);
        TwinBlocks { twins: &self.twins, len: self.rest_count, image }
    }

    /// The rest `rest` carried by element `e`.
    fn rest_image(&self, e: usize, mut rest: u64) -> u64 {
        let radices = &self.tables.radices()[self.split..];
        let map = &self.rest_maps[e];
        let (mut out, mut weight) = (0u64, 1u64);
        for i in (0..radices.len()).rev() {
            let d = rest % radices[i];
            rest /= radices[i];
            out += map.get(self.rest_offsets[i] + d as usize) * weight;
            weight *= radices[i];
        }
        out
    }
}

/// How the digits split into the first part and the rest.
struct Plan {
    radices: Vec<u64>,
    split: usize,
    first_count: u64,
    first_weights: Vec<u64>,
    rest_count: u64,
    /// Where each rest digit's values start in an element's rest table.
    rest_offsets: Vec<usize>,
    /// Place value of each digit in a rank.
    weights: Vec<u64>,
}

impl Plan {
    fn new(radices: &[u64], split: usize) -> Plan {
        let k = radices.len();
        let mut weights = vec![1u64; k];
        for j in (0..k - 1).rev() {
            weights[j] = weights[j + 1] * radices[j + 1];
        }
        let rest_count = weights[split - 1];
        let first_weights = (0..split).map(|j| weights[j] / rest_count).collect();
        let mut rest_offsets = Vec::new();
        let mut at = 0;
        for &r in &radices[split..] {
            rest_offsets.push(at);
            at += r as usize;
        }
        Plan {
            radices: radices.to_vec(),
            split,
            first_count: radices[..split].iter().product(),
            first_weights,
            rest_count,
            rest_offsets,
            weights,
        }
    }

    fn digit(&self, rank: u64, j: usize) -> u64 {
        rank / self.weights[j] % self.radices[j]
    }

    /// Per element, where it takes each value of each rest digit (the others 0), or `None`
    /// when that is not one to one.
    fn rest_maps(&self, multiset: &Multiset, maps: &[ByteMaps], n: usize) -> Option<Vec<Vec<u32>>> {
        // Every rest value's images in parallel, its board unranked once for all elements.
        let digits = self.split..self.radices.len();
        let values: Vec<(usize, u64)> =
            digits.flat_map(|j| (0..self.radices[j]).map(move |d| (j, d))).collect();
        let images: Vec<u32> = values
            .par_iter()
            .flat_map_iter(|&(j, d)| {
                let board = multiset.unrank(d * self.weights[j]);
                maps.iter()
                    .map(move |map| self.digit(multiset.rank(&map.apply(&board, n)), j) as u32)
            })
            .collect();
        (0..maps.len())
            .map(|e| {
                let out: Vec<u32> = images.iter().skip(e).step_by(maps.len()).copied().collect();
                // One to one on each digit's values.
                let mut seen = vec![false; out.len()];
                for (&(j, _), &x) in values.iter().zip(&out) {
                    let at = self.rest_offsets[j - self.split] + x as usize;
                    if std::mem::replace(&mut seen[at], true) {
                        return None;
                    }
                }
                Some(out)
            })
            .collect()
    }

    /// Whether, on a few boards, every element takes the rest to a rest that the first part
    /// does not change: the same rest with another first part (the spread's next board's)
    /// has the same image's rest.
    fn rest_follows_rest(&self, multiset: &Multiset, maps: &[ByteMaps], n: usize) -> bool {
        const FEW: u64 = 16;
        let n_states = multiset.n_states();
        let rest_of = |rank: u64| rank % self.rest_count;
        (0..FEW.min(n_states)).all(|i| {
            let a = spread_sample(i, n_states);
            let first = spread_sample(i + FEW, n_states) / self.rest_count;
            let b = first * self.rest_count + rest_of(a);
            let (x, y) = (multiset.unrank(a), multiset.unrank(b));
            maps.iter().all(|map| {
                rest_of(multiset.rank(&map.apply(&x, n)))
                    == rest_of(multiset.rank(&map.apply(&y, n)))
            })
        })
    }

    /// Whether, on a spread of boards, every element takes the first part to a value that
    /// the first part alone decides, and each rest digit as its table says.
    fn acts_by_digits(
        &self,
        multiset: &Multiset,
        maps: &[ByteMaps],
        rest_maps: &[Vec<u32>],
        n: usize,
    ) -> bool {
        let n_states = multiset.n_states();
        (0..SAMPLES.min(n_states)).into_par_iter().all(|i| {
            let rank = spread_sample(i, n_states);
            let (board, alone) =
                (multiset.unrank(rank), multiset.unrank(rank / self.rest_count * self.rest_count));
            maps.iter().zip(rest_maps).all(|(map, rest)| {
                let image = multiset.rank(&map.apply(&board, n));
                let first = multiset.rank(&map.apply(&alone, n)) / self.rest_count;
                image / self.rest_count == first
                    && (self.split..self.radices.len()).enumerate().all(|(i, j)| {
                        let d = self.digit(rank, j) as usize;
                        self.digit(image, j) == rest[self.rest_offsets[i] + d] as u64
                    })
            })
        })
    }
}

/// Each element's action on working bytes, or `None` where some element carries a piece
/// to a byte no board holds, or does not keep the solved board. A piece whose orientation
/// is not seen goes as it would unturned, whatever turn moves left it with.
pub(super) fn byte_maps(
    puzzle: &Puzzle,
    multiset: &Multiset,
    syms: &Symmetries,
) -> Option<Vec<ByteMaps>> {
    let solved = puzzle.solved();
    let n = puzzle.n_positions();
    let k = syms.orient_mod;
    // A label's home: the first cell holding it on the solved board.
    let home = |label: u8| solved.tiles.iter().position(|&t| t == label);
    let solved_cells = multiset.cells_of(&solved).ok()?;
    let unseen_turns = multiset.hides_orientation_sums();
    syms.elements
        .iter()
        .map(|s| {
            // Each label onto the label of its home's image, the same for all its cells.
            if (0..n).any(|c| {
                let h = home(solved.tiles[c]).expect("a label's cell");
                solved.tiles[s.cells[c] as usize] != solved.tiles[s.cells[h] as usize]
            }) {
                return None;
            }
            let mut map = ByteMaps { to: [0; MAX_CELLS], byte: vec![u8::MAX; n * 256] };
            for p in 0..n {
                let q = s.cells[p] as usize;
                map.to[p] = q as u8;
                for b in 0..=255u8 {
                    let seen = if unseen_turns { multiset.seen_byte(p, b) } else { b };
                    let Some((label, orient)) = multiset.piece_on(p, seen) else { continue };
                    let h = home(label)?;
                    let image = solved.tiles[s.cells[h] as usize];
                    let turned = s.turn_at(orient, p, h, k);
                    map.byte[p * 256 + b as usize] = multiset.working_byte(q, image, turned)?;
                }
            }
            (map.apply(&solved_cells, n) == solved_cells).then_some(map)
        })
        .collect()
}

/// Whether each element's image of a board moved is its image moved by the conjugate move
/// (so images are as far from solved as the boards): on every board where
/// [`commutes_cell_by_cell`] shows it, else on a spread of boards. An element that commutes
/// so with a move does with its powers: those are then checked on fewer boards
/// ([`CoordTables::checks_move_on`]).
fn commutes_with_moves(
    puzzle: &Puzzle,
    multiset: &Multiset,
    tables: &CoordTables,
    syms: &Symmetries,
    maps: &[ByteMaps],
) -> bool {
    let n = puzzle.n_positions();
    let moves = multiset.moves();
    let index = MoveIndex::of(puzzle);
    let Some(images): Option<Vec<Vec<usize>>> =
        syms.elements.iter().map(|s| index.images(s)).collect()
    else {
        return false;
    };
    let exact = commutes_cell_by_cell(puzzle, multiset, maps, &images);
    // Images of boards are boards where every rank is one reached from the solved board
    // (which each element keeps) by moves that the elements commute with.
    if exact && multiset.n_reachable() == multiset.n_states() {
        return true;
    }
    let n_states = multiset.n_states();
    (0..SAMPLES.min(n_states)).into_par_iter().all(|i| {
        let board = multiset.unrank(spread_sample(i, n_states));
        maps.iter().zip(&images).all(|(map, image)| {
            let conjugate = map.apply(&board, n);
            // A byte no board holds would show as u8::MAX: the image must be a board.
            multiset.cells_of(&multiset.board_of(&conjugate)).is_ok()
                && (exact
                    || (0..moves.len()).filter(|&m| tables.checks_move_on(m, i)).all(|m| {
                        let a = map.apply(&moves.solve_step(&board, m), n);
                        let b = moves.solve_step(&conjugate, image[m]);
                        multiset.rank(&a) == multiset.rank(&b)
                    }))
        })
    })
}

/// Whether every element `e` and move `m` give the same bytes on every board either way:
/// `e` after `m`, or `e` then the conjugate move `images[e][m]`. Both ways move each cell's
/// byte to one cell and change it by a function of that byte alone, so they agree on every
/// board (every board's byte on a cell is one that cell may hold) if they agree on the
/// solved board and on it with any one cell set to any byte it may hold: then each output
/// cell takes the same function of the same input cell both ways, or a constant. Exact, and
/// a few hundred boards where sampling took thousands; `false` may still leave the ranks
/// equal (bytes that differ where the rank does not read them). The turns of pieces whose
/// orientation is not seen are not compared: no rank reads them.
pub(super) fn commutes_cell_by_cell(
    puzzle: &Puzzle,
    multiset: &Multiset,
    maps: &[ByteMaps],
    images: &[Vec<usize>],
) -> bool {
    let n = puzzle.n_positions();
    let moves = multiset.moves();
    let Ok(solved) = multiset.cells_of(&puzzle.solved()) else { return false };
    let mut probes = vec![solved];
    for p in 0..n {
        for b in (0..=u8::MAX).filter(|&b| multiset.piece_on(p, b).is_some()) {
            let mut probe = solved;
            probe.0[p] = b;
            probes.push(probe);
        }
    }
    maps.iter().zip(images).all(|(map, image)| {
        probes.iter().all(|x| {
            (0..moves.len()).all(|m| {
                let a = map.apply(&moves.solve_step(x, m), n);
                let b = moves.solve_step(&map.apply(x, n), image[m]);
                a.0[..n] == b.0[..n]
                    || (0..n)
                        .all(|p| multiset.seen_byte(p, a.0[p]) == multiset.seen_byte(p, b.0[p]))
            })
        })
    })
}

impl StateRanking for CoordClasses {
    type State = Digits;
    fn n_states(&self) -> u64 {
        self.n_states
    }
    fn n_moves(&self) -> usize {
        self.tables.n_moves()
    }
    #[inline(always)]
    fn rank(&self, s: &Digits) -> u64 {
        self.entry_and_element(s).0
    }
    #[inline(always)]
    fn unrank(&self, entry: u64) -> Digits {
        let radices = self.tables.radices();
        let (class, mut rest) = (entry / self.rest_count, entry % self.rest_count);
        let mut out = [0u32; MAX_COORDS];
        for j in (self.split..radices.len()).rev() {
            out[j] = (rest % radices[j]) as u32;
            rest /= radices[j];
        }
        let mut f = self.reps[class as usize] as u64;
        for j in (0..self.split).rev() {
            out[j] = (f % radices[j]) as u32;
            f /= radices[j];
        }
        out
    }
    #[inline(always)]
    fn solve_step(&self, s: &Digits, m: usize) -> Digits {
        self.tables.solve_step(s, m)
    }
    #[inline(always)]
    fn scramble_step(&self, s: &Digits, m: usize) -> Digits {
        self.tables.scramble_step(s, m)
    }
    fn cell_runs(&self) -> Option<&CellRuns> {
        self.runs.as_ref()
    }
    #[inline(always)]
    fn run_image(&self, image: &Digits, _parity: usize) -> (u64, usize) {
        self.entry_and_element(image)
    }
    fn unrank_in_run(&self, bases: &[Digits], _parity: usize, offset: u64) -> Digits {
        let mut out = bases[0];
        out[self.tables.radices().len() - 1] = offset as u32;
        out
    }
    fn class_ranking(&self) -> Option<&dyn EntryClasses> {
        Some(self)
    }
}

impl EntryClasses for CoordClasses {
    fn order(&self) -> u64 {
        CoordClasses::order(self)
    }
    fn inverts(&self) -> bool {
        false
    }
    fn deal_unit(&self) -> u64 {
        self.rest_count
    }
    fn complete_level_in(
        &self,
        table: &DistanceTable,
        local: &(dyn Fn(u64) -> Option<u64> + Sync),
        mark: u8,
        mark_twins: bool,
        small_level: bool,
    ) -> (Level, u64) {
        let blocks = self.twin_blocks();
        blocks.complete_level_in(self.order(), table, local, mark, mark_twins, small_level)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::bfs::{self, Config, NoProgress};
    use crate::puzzle::{Metric, PuzzleSpec, defined::Defined, definition::Definition};
    use crate::rank::layout::{TILE_BITS, TILE_MASK};
    use crate::rank::{Ranking, StateSpace, SymmetryMode};
    use crate::symmetry::ClassRanking;
    use std::collections::HashSet;

    /// The 2x2x2 (data/definitions/2x2x2.tws) with its corners (UFR, UFL, UBL, UBR, DFR,
    /// DFL, DBR, DBL) told apart only by `labels`.
    fn two_colour_cube(labels: &str) -> Puzzle {
        let path = format!("{}/data/definitions/2x2x2.tws", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(path).unwrap();
        let solved = format!("{labels}\nEnd\n\nMove U");
        let text = text.replace("1 2 3 4 5 6 7 8\nEnd\n\nMove U", &solved);
        let d = Defined::new("layered.tws", Definition::parse(&text).unwrap()).unwrap();
        Puzzle::new(&PuzzleSpec::Def(Arc::new(d)), Metric::Htm).unwrap()
    }

    /// A board's image under a map, worked out on the board itself: each piece goes where
    /// its cell goes, relabelled as its home's image is, turned by the map.
    pub(crate) fn image(puzzle: &Puzzle, s: &super::super::Symmetry, board: &Board) -> Board {
        let solved = puzzle.solved();
        let n = board.tiles.len();
        let mut out = Board { tiles: vec![0; n], orient: vec![0; n] };
        for p in 0..n {
            let label = board.tiles[p];
            let home = solved.tiles.iter().position(|&t| t == label).unwrap();
            let q = s.cells[p] as usize;
            out.tiles[q] = solved.tiles[s.cells[home] as usize];
            out.orient[q] = s.turn_at(board.orient[p], p, home, puzzle.orient_mod);
        }
        out
    }

    /// The U and D layers' corners told apart: their turns' images depend on the layers, so
    /// the whole board is the first part (70 x 2,187 values, no runs), under the 16 maps
    /// that keep the layers.
    #[test]
    fn classes_of_layers_count_as_their_boards() {
        let c = check_classes_count_as_boards("1 1 1 1 2 2 2 2", 16);
        assert!(c.runs.is_none());
        assert_eq!(c.first_part_classes().1, 153_090);
    }

    /// The F and B halves' corners told apart: the turns are a rest mapped by themselves,
    /// walked in runs of 2,187, under 8 maps.
    #[test]
    fn classes_of_halves_count_as_their_boards() {
        let c = check_classes_count_as_boards("1 1 2 2 1 1 2 2", 8);
        assert_eq!(c.first_part_classes().1, 70);
        let runs = c.runs.as_ref().expect("runs of the turns");
        assert_eq!(runs.len, 2187);
        crate::rank::runs::check_against_direct_ranks(&c, 18, "halves");
    }

    /// Searched by classes, the cube with corners of two colours gives the histogram of its
    /// 153,090 boards (70 arrangements x 3^7 turns) searched one by one; every board's entry
    /// holds a board of its class, and the entries are the classes worked out on boards,
    /// plus the twins `exact_classes` counts once.
    fn check_classes_count_as_boards(labels: &str, order: u64) -> CoordClasses {
        let p = two_colour_cube(labels);
        let boards = StateSpace::for_search(&p, SymmetryMode::Off, false).unwrap();
        let Ranking::Multiset(m) = &boards.ranking else { panic!("a multiset ranking") };
        assert_eq!(m.n_states(), 153_090);
        let space = StateSpace::for_search(&p, SymmetryMode::On, false).unwrap();
        let Ranking::CoordClasses(c) = &space.ranking else { panic!("classes of digits") };
        assert_eq!(c.order(), order);
        // Classes worked out on boards: the smallest rank of each board's images.
        let mut classes = HashSet::new();
        for rank in 0..m.n_states() {
            let board = m.board_of(&m.unrank(rank));
            let smallest = (c.symmetries().elements.iter())
                .map(|s| m.rank(&m.cells_of(&image(&p, s, &board)).unwrap()))
                .min()
                .unwrap();
            classes.insert(smallest);
            // Every board's entry holds a board of its class.
            let entry = c.entry_of_board(&board).unwrap();
            let rep = m.rank(&m.cells_of(&c.board(entry)).unwrap());
            let images: Vec<u64> = (c.symmetries().elements.iter())
                .map(|s| m.rank(&m.cells_of(&image(&p, s, &board)).unwrap()))
                .collect();
            assert!(images.contains(&rep), "board {rank}: entry {entry} holds another class");
        }
        assert_eq!(c.exact_classes(), classes.len() as u64);
        assert!(c.n_states() >= c.exact_classes());
        let by_boards = histogram(&p, &boards);
        assert_eq!(by_boards.iter().sum::<u64>(), 153_090);
        assert_eq!(histogram(&p, &space), by_boards);
        let StateSpace { ranking: Ranking::CoordClasses(mut c), analysis, definition_digest } =
            space
        else {
            unreachable!()
        };
        // Runs read through each move's table composed with each element's map, and through
        // the two tables one after the other, both give the boards' histogram.
        if c.runs.is_some() {
            for compose in [false, true] {
                c.runs = c.last_digit_runs_with(compose);
                assert_eq!(c.runs.as_ref().unwrap().then.is_empty(), compose);
                crate::rank::runs::check_against_direct_ranks(&c, 18, "composed or not");
                let (analysis, definition_digest) = (analysis.clone(), definition_digest.clone());
                let space =
                    StateSpace { ranking: Ranking::CoordClasses(c), analysis, definition_digest };
                assert_eq!(histogram(&p, &space), by_boards, "composed: {compose}");
                let StateSpace { ranking: Ranking::CoordClasses(back), .. } = space else {
                    unreachable!()
                };
                c = back;
            }
        }
        c
    }

    /// Two rings that a symmetry exchanges (data/definitions/mirrored_rings.tws): under its
    /// four maps no split of the digits works and both digits together are more values than
    /// a class table takes, so the classes are taken under the two maps that keep each ring,
    /// in runs of 2,520; searched, they give the boards' histogram, and a board's entry holds
    /// a board of its class.
    #[test]
    fn classes_fall_back_to_the_maps_keeping_each_orbit() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/data/definitions/mirrored_rings.tws");
        let p = Puzzle::parse(&format!("def:{path}"), None).unwrap();
        assert_eq!(crate::symmetry::Symmetries::of(&p).order(), 4);
        let boards = StateSpace::for_search(&p, SymmetryMode::Off, false).unwrap();
        let Ranking::Multiset(m) = &boards.ranking else { panic!("a multiset ranking") };
        let space = StateSpace::for_search(&p, SymmetryMode::On, false).unwrap();
        let Ranking::CoordClasses(c) = &space.ranking else { panic!("classes of digits") };
        assert_eq!((c.order(), c.first_part_classes()), (2, (1272, 2520)));
        assert_eq!(c.runs.as_ref().map(|r| r.len), Some(2520));
        for rank in (0..m.n_states()).step_by(997) {
            let board = m.board_of(&m.unrank(rank));
            let rep = m.rank(&m.cells_of(&c.board(c.entry_of_board(&board).unwrap())).unwrap());
            let images: Vec<u64> = (c.symmetries().elements.iter())
                .map(|s| m.rank(&m.cells_of(&image(&p, s, &board)).unwrap()))
                .collect();
            assert!(images.contains(&rep), "board {rank}");
        }
        let by_boards = histogram(&p, &boards);
        assert_eq!(by_boards.iter().sum::<u64>(), 6_350_400);
        assert_eq!(histogram(&p, &space), by_boards);
    }

    /// The histogram in boards of a search of `space` from solved.
    fn histogram(p: &Puzzle, space: &StateSpace) -> Vec<u64> {
        let table = crate::table::DistanceTable::in_memory(space.n_states()).unwrap();
        let start = space.rank_board(&p.solved()).unwrap();
        let config = Config::new(2);
        let out = match &space.ranking {
            Ranking::Multiset(m) => bfs::run(m, start, &table, &config, &NoProgress),
            Ranking::Layout(l) => bfs::run(l, start, &table, &config, &NoProgress),
            Ranking::CoordClasses(c) => bfs::run(c, start, &table, &config, &NoProgress),
            _ => unreachable!(),
        };
        let out = out.unwrap();
        assert!(out.complete);
        out.board_histogram().to_vec()
    }

    /// The cell-by-cell check of the elements against the moves says what all boards say: it
    /// holds for the cube with F and B halves told apart, and fails as every board shows once
    /// a map turns one piece wrongly or a move's conjugate is taken for another move.
    #[test]
    fn commuting_cell_by_cell_is_commuting_on_every_board() {
        let p = two_colour_cube("1 1 2 2 1 1 2 2");
        let boards = StateSpace::for_search(&p, SymmetryMode::Off, false).unwrap();
        let Ranking::Multiset(m) = &boards.ranking else { panic!("a multiset ranking") };
        let syms = Symmetries::of(&p);
        let index = MoveIndex::of(&p);
        let images: Vec<Vec<usize>> =
            syms.elements.iter().map(|s| index.images(s).unwrap()).collect();
        let n = p.n_positions();
        let on_every_board = |maps: &[ByteMaps], images: &[Vec<usize>]| {
            (0..m.n_states()).all(|rank| {
                let x = m.unrank(rank);
                maps.iter().zip(images).all(|(map, image)| {
                    (0..m.moves().len()).all(|k| {
                        let a = map.apply(&m.moves().solve_step(&x, k), n);
                        let b = m.moves().solve_step(&map.apply(&x, n), image[k]);
                        a.0[..n] == b.0[..n]
                    })
                })
            })
        };
        let mut maps = byte_maps(&p, m, &syms).unwrap();
        assert!(maps.len() > 1);
        assert!(commutes_cell_by_cell(&p, m, &maps, &images));
        assert!(on_every_board(&maps, &images));
        // The conjugates of two moves exchanged.
        let mut swapped = images.clone();
        swapped[1].swap(0, 1);
        assert!(!commutes_cell_by_cell(&p, m, &maps, &swapped));
        assert!(!on_every_board(&maps, &swapped));
        // One element turning the piece of one label on one cell a turn further.
        let (cell, byte) = (0..n)
            .flat_map(|c| (0..=u8::MAX).map(move |b| (c, b)))
            .find(|&(c, b)| m.piece_on(c, b).is_some() && b >> TILE_BITS == 0)
            .unwrap();
        let at = cell * 256 + byte as usize;
        let (tile, turn) = (maps[1].byte[at] & TILE_MASK, maps[1].byte[at] >> TILE_BITS);
        maps[1].byte[at] = tile | ((turn + 1) % 3) << TILE_BITS;
        assert!(!commutes_cell_by_cell(&p, m, &maps, &images));
        assert!(!on_every_board(&maps, &images));
    }

    /// The 2x2x3 cuboid (data/definitions/cuboid223.tws, the 233 sample's shape): its
    /// classes of boards would take its two orbits whole first, with at most 32 boards an
    /// entry (16 symmetries and inversion), so at least 30,240 entries. The classes of its
    /// digits, 66,432 entries, are within four times that: a search takes them without
    /// classifying the boards, as comparing with those classes (34,132 entries) would, and
    /// finds the boards' histogram.
    #[test]
    fn digits_beating_any_classes_are_taken_without_them() {
        let path = format!("{}/data/definitions/cuboid223.tws", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(path).unwrap();
        let d = Defined::new("cuboid223.tws", Definition::parse(&text).unwrap()).unwrap();
        let p = Puzzle::new(&PuzzleSpec::Def(Arc::new(d)), Metric::Htm).unwrap();
        let boards = StateSpace::for_search(&p, SymmetryMode::Off, false).unwrap();
        let Ranking::Layout(layout) = &boards.ranking else { panic!("a layout") };
        assert_eq!(layout.n_states(), 967_680);
        let syms = Symmetries::of(&p);
        assert_eq!(syms.order(), 16);
        let orbits = ClassRanking::whole_orbits_first(layout, &syms, true);
        assert_eq!(orbits.as_deref(), Some(&[0, 1][..]));
        let classes = ClassRanking::new_with(&p, layout.clone(), true).unwrap();
        assert!(classes.first_part_is_whole_orbits());
        assert_eq!(classes.n_states(), 34_132);
        let space = StateSpace::for_search(&p, SymmetryMode::On, false).unwrap();
        let Ranking::CoordClasses(digits) = &space.ranking else { panic!("classes of digits") };
        assert_eq!(digits.n_states(), 66_432);
        assert!(digits.n_states() <= 4 * classes.n_states());
        let by_boards = histogram(&p, &boards);
        assert_eq!(by_boards.iter().sum::<u64>(), 967_680);
        assert_eq!(histogram(&p, &space), by_boards);
    }

    /// Two rings with no identical pieces, turned on their own and swapped in both by one
    /// move: their signs are free of each other, so each ring's permutation (sign included)
    /// is a digit, 120 x 720 boards; classes of those digits take the larger first and walk
    /// runs of the other, 120 (as the 233 sample's do, which `for_search` takes over classes
    /// of whole orbits). Histograms equal.
    #[test]
    fn independent_orbits_take_classes_of_digits() {
        let text = "Name TwoRings\nSet A 5 1\nSet B 6 1\nSolved\nA\n1 2 3 4 5\nB\n1 2 3 4 5 6\n\
                    End\nMove R\nA\n2 3 4 5 1\nEnd\nMove S\nB\n2 3 4 5 6 1\nEnd\n\
                    Move X\nA\n2 1 3 4 5\nB\n2 1 3 4 5 6\nEnd\n";
        let d = Defined::new("rings.tws", Definition::parse(text).unwrap()).unwrap();
        let p = Puzzle::new(&PuzzleSpec::Def(Arc::new(d)), Metric::Htm).unwrap();
        let boards = StateSpace::for_search(&p, SymmetryMode::Off, false).unwrap();
        assert!(matches!(boards.ranking, Ranking::Layout(_)));
        let m = Multiset::new(&p, boards.analysis.invariants.clone()).unwrap();
        let c = CoordClasses::new(&p, m, Symmetries::of(&p), true).unwrap();
        assert_eq!(c.order(), 4);
        assert_eq!(c.tables.radices(), [720, 120]);
        assert_eq!(c.runs.as_ref().map(|r| r.len), Some(120));
        let by_boards = histogram(&p, &boards);
        assert_eq!(by_boards.iter().sum::<u64>(), 86_400);
        let space = StateSpace { ranking: Ranking::CoordClasses(c), ..boards };
        assert_eq!(histogram(&p, &space), by_boards);
    }
}
