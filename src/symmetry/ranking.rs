//! A ranking of classes of boards: one table entry per class of boards under the puzzle's
//! symmetries (or as close as the first part allows), for searches too large for one entry
//! per board.
//!
//! An entry is `(class of the first part, rest)`:
//! - the **first part** is which tiles stand on a set of *key cells*, a union of cell orbits
//!   of the symmetry group chosen so that the placements number between [`MIN_PLACEMENTS`]
//!   and [`MAX_PLACEMENTS`] (corners first). A precomputed table gives, per placement, its
//!   class (the smallest placement of its orbit under the group is the representative) and
//!   a symmetry taking it there;
//! - the **rest** is the board conjugated by that symmetry, ranked by the puzzle's own
//!   [`Layout`] with the key cells first in each orbit's Lehmer order and their digits left
//!   out ([`Layout::prefix_ranked_out`]): every placement leaves the same number of rests.
//!
//! Where the symmetries carry every cell of an orbit onto every other (the dino cube's 48
//! and its 12 edges) and the arrangements are too many to be the first part, the group
//! shrinks to the **subgroup that keeps a set of cells**, chosen for its order: the key
//! cells are that set (the dino cube: the 16 maps that keep a face's four edges).
//!
//! Where the symmetries keep no cell but carry whole orbits of the moves onto each other
//! (the tangram's edges, corners and inner edges), the first part is the **arrangement of
//! whole orbits** with their signs, the rest everything else ([`Rest::Orbits`],
//! [`OrbitSplit`]): an arrangement's image depends on it alone, under inversion too (the
//! inverse arrangement).
//!
//! Where no key cells have room (every symmetry moves every cell of several orbits: the
//! skewb, the pyraminx), the first part is the **whole arrangement** with its signs and
//! orientation sums, the layout's upper index ([`Rest::Orientations`]), and the rest the
//! orientation digits; a conjugation's image of that index depends on the index alone, so
//! the same table of placements classifies it.
//!
//! Every entry stands for `|G| / |stab(representative)|` boards (the orbit of its placement,
//! each with one board per rest), so histograms in boards are exact. When a representative
//! has a nontrivial stabilizer `H`, the entries `(r, h·rest)` for `h` in `H` are one class.
//! Where no runs of rests are taken, such a class keeps one entry per orbit of its rests
//! under `H`, weighing that many rests ([`CompactTwins`]); elsewhere it keeps every rest,
//! [`EntryClasses::complete_level_in`] marks the repeats together after a forward step, and
//! [`ClassRanking::exact_classes`] counts them once.
//!
//! **Inversion** (`g -> g^-1` keeps distances when the moves are closed under inverses)
//! joins the group where the whole arrangement of tiles can be the first part: one orbit of
//! at most 10 cells whose every arrangement and every flip is a board, on a board with
//! symmetries (Spinpossible up to 2x5 and 3x3, NRP (3,3,2), (2,4,2) and (2,5,2) in qtm and
//! htm). The first part of `g^-1` is where `g` put the key tiles, another coordinate than
//! which tiles stand on the key cells; with every cell a key cell the two are one
//! arrangement, read off once. The rest is then the tiles' flips, bit `t` the flip of tile
//! `t` ([`Rest::Turns`]): a move XORs it with the flips of the tiles it turns, a symmetry
//! permutes its bits, and inversion permutes them by where the board put each tile, so the
//! offset map depends on the board's arrangement and is built per image run
//! ([`ClassRanking::offset_map`]). Halving the classes again is what takes
//! Spinpossible 2x5's table under a quarter of the boards' (its classes under the four
//! symmetries alone are more than a quarter: boards that a symmetry keeps). With the whole
//! arrangement first ([`Rest::Orientations`]) the first part of `g^-1` (permutations
//! inverted, sums negated) follows from `g`'s too, on any number of orbits; the rest is the
//! orientation digits of the conjugated inverse, read as for any board.

use std::collections::HashMap;

use rayon::prelude::*;

use super::entry_classes::{EntryClasses, fold_twins, for_each_marked, others, scan_serially};
use super::orbits::{self, ElementSet};
use super::turns::Turns;
use super::twins::{CompactTwins, MAX_TWIN_RESTS};
use super::twist_shuffle::{ByteMaps, TwistShuffle};
use super::{Symmetries, Symmetry};
use crate::bfs::Level;
use crate::group::invariants::orient_sum;
use crate::puzzle::{Board, Puzzle};
use crate::rank::bits::select_bit;
#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
use crate::rank::lanes::{ByteLanes, Lanes16, Lanes32};
use crate::rank::layout::{MAX_CELLS, NARROW_CELLS, TILE_BITS, TILE_MASK, UpperMaps};
use crate::rank::orbit_split::RestParts;
use crate::rank::runs::for_each_subset;
use crate::rank::{CellRuns, Cells, Layout, OrbitSplit, StateRanking};
use crate::table::{CELLS_PER_WORD, DistanceTable, OffsetMap};
use crate::{Error, Result};

/// Key cells are added (corner orbits first) until the placements number at least this.
pub const MIN_PLACEMENTS: u64 = 100_000;
/// No orbit of key cells is added that would make more placements than this (the table
/// holds four bytes per placement).
pub const MAX_PLACEMENTS: u64 = 4_000_000;
/// The most arrangements a first part made of the whole arrangement may take
/// ([`Rest::Orientations`]; 128 MiB of placement table): allowed more than key cells, since
/// no smaller first part is left to such boards.
const MAX_ARRANGEMENTS: u64 = 1 << 25;

/// Past [`MAX_ARRANGEMENTS`], the most arrangements a whole arrangement first may still take
/// (2 GiB of placement table), where the table of a subgroup's classes would be far larger
/// (see [`large_arrangement_pays`]): the 3x3x3's 12 edges, 12! arrangements each with 2048
/// flips, under all 48 symmetries instead of the 16 keeping four cells.
const MAX_LARGE_ARRANGEMENTS: u64 = 1 << 29;

/// The largest table of classes (bytes) for which whole orbits past [`MAX_PLACEMENTS`]
/// placements are classified ([`large_key_orbits`]).
const MAX_LARGE_TABLE_BYTES: u64 = 1 << 40;

/// Whole orbits first need at least this many placements per element of the group (with
/// inversion), or [`MIN_PLACEMENTS`] (see `choose_key_orbits`).
const PLACEMENTS_PER_ELEMENT: u64 = 1024;

/// Tables of the key orbits' images ([`KeyImages`](crate::rank::orbit_split::KeyImages))
/// are made where they take at most one entry per this many placements: each entry is one
/// board mapped and ranked, as an image of a placement without them.
const KEY_IMAGES_SHARE: u64 = 8;

/// The most classes whose representatives' arrangements a ranking keeps (32 bytes each).
const MAX_KEPT_ARRANGEMENTS: usize = 1 << 18;
/// Most other parts kept for [`Rest::Orbits`] (64 bytes each).
const MAX_REST_PARTS: u64 = 1 << 15;

/// Bits of a placement's code that name the element of the group (at most 64 symmetries,
/// doubled by inversion: a cube has 48). With inversion a map's name is an arrangement's 25
/// bits above these, 32 in all.
const SYM_BITS: u32 = 7;
const SYM_MASK: u32 = (1 << SYM_BITS) - 1;

/// The most cells whose arrangements all fit the placement table (10! = 3,628,800 at most
/// [`MAX_PLACEMENTS`]): the boards that can rank classes under inversion.
const MAX_ARRANGED_CELLS: usize = 10;

/// What follows the first part in an entry.
#[derive(Debug)]
#[allow(clippy::large_enum_variant)] // one per ranking, read on every rank: kept inline
enum Rest {
    /// The tiles off the key cells, with every orientation, ranked by the puzzle's layout
    /// with the key cells' digits left out.
    Layout(Layout),
    /// Every cell is a key cell: the rest is the tiles' turns (nothing without
    /// orientation; with flips, bit `t` the flip of tile `t`; other turns, digit `p` the
    /// turn on cell `p`).
    Turns(Turns),
    /// The first part is the whole arrangement with its signs and orientation sums (the
    /// layout's upper digits, [`Layout::board_upper_index`]), the rest the orientation digits:
    /// for boards whose symmetries move every cell of several orbits, where key cells leave
    /// no room (the skewb, the pyraminx), and for groups smaller than their invariants, whose
    /// layout ranks only the upper values the moves reach.
    Orientations,
    /// The first part is the arrangement of whole orbits that the symmetries keep as a set
    /// (with their signs), the rest everything else ([`OrbitSplit`]): for boards whose
    /// symmetries leave no key cells but keep such orbits (the tangram's edges, corners and
    /// inner edges).
    Orbits(OrbitSplit),
}

impl Rest {
    /// Whether the rest is a bit per tile, the tile's flip (XOR runs can then move it).
    fn is_flips(&self) -> bool {
        matches!(self, Rest::Turns(turns) if turns.is_flips())
    }

    /// Whether the first part is a whole arrangement of orbits, whose image under
    /// inversion follows from it: no runs of rests, inversion by orbit.
    fn first_part_is_orbits(&self) -> bool {
        matches!(self, Rest::Orientations | Rest::Orbits(_))
    }
}

/// A symmetry acting on boards in working form: the tile on cell `p` goes to cell `to[p]`,
/// its byte rewritten by the map at `bytes[map[p]..]`.
#[derive(Clone, Debug)]
struct Conjugation {
    to: [u8; MAX_CELLS],
    map: [u32; MAX_CELLS],
    /// Boards without orientation: the tile relabelling and, per cell, the cell whose tile
    /// lands there (0x80 past the board), for two byte shuffles instead of the loop.
    shuffles: Option<([u8; MAX_CELLS], [u8; MAX_CELLS])>,
    /// Boards with orientation, where the byte maps allow: the same by shuffles.
    twists: Option<TwistShuffle>,
}

/// One entry per class of boards (see the module docs).
#[derive(Debug)]
pub struct ClassRanking {
    /// The puzzle's ranking, key cells first in each orbit.
    full: Layout,
    /// How the rest is ranked.
    rest: Rest,
    syms: Symmetries,
    /// Whether `g -> g^-1` is in the group: element `order + e` is symmetry `e` applied to
    /// `g^-1` (the order of [`Symmetries::images`]). Only with [`Rest::Turns`] and
    /// [`Rest::Orientations`].
    inversion: bool,
    /// Key cells per orbit of the layout, in Lehmer order.
    key: Vec<Vec<u8>>,
    /// Placements per orbit: `n! / (n - k)!` for `k` key cells of an `n`-cell orbit.
    orbit_placements: Vec<u64>,
    /// Per placement: its class, shifted by [`SYM_BITS`], and the element taking it to the
    /// representative.
    placement: Vec<u32>,
    /// Per class: its representative placement.
    representative: Vec<u32>,
    /// The classes whose representative an element besides the identity fixes, each with
    /// the bit mask of those elements.
    twins: Vec<(u32, ElementSet)>,
    /// With [`Rest::Turns`] or [`Rest::Orientations`] and at most [`MAX_KEPT_ARRANGEMENTS`]
    /// classes: per class, the arrangement of its representative (unranking it took a tenth
    /// of the 2x2x2's search, 8% of Jing's pyraminx's).
    arrangements: Vec<Cells>,
    /// With [`Rest::Orientations`] and kept arrangements: per class, its orientation sums'
    /// code ([`Layout::arrangement_of_upper`]).
    arrangement_sums: Vec<u32>,
    /// With [`Rest::Orbits`] and as many classes: the parts of their boards, per class.
    rest_parts: Option<RestParts>,
    /// Where the twins keep one entry per orbit of their rests (rankings without runs of
    /// rests): the classes' entries. Otherwise class `c`'s entries are `c * rest_count` on.
    compact: Option<CompactTwins>,
    conjugations: Vec<Conjugation>,
    /// The byte maps of the conjugations, 256 bytes each, shared where equal.
    bytes: Vec<u8>,
    rest_count: u64,
    n_states: u64,
    /// With XOR runs (Spinpossible): `Some(k)`, and per symmetry the linear map its
    /// conjugation makes of a run's offsets (see [`ClassRanking::rank_in_runs`]; inversion's
    /// maps are built per board, [`ClassRanking::offset_map`]).
    xor_bits: Option<u32>,
    offset_maps: Vec<OffsetMap>,
    /// Per cell, the free modulus of its orbit's turns (what inversion negates them by).
    free_mods: [u8; MAX_CELLS],
}

/// The first choice of [`ClassRanking::new_with`]: what its classes' first part is.
enum FirstPart {
    /// The one orbit's arrangement, inversion among the elements ([`arrangements_invert`]).
    InvertedArrangement(Box<Rest>),
    /// The whole arrangement, where the layout ranks the couplings the moves reach.
    Arrangement,
    /// Key cells, whole orbits or the arrangement, as [`KeyChoice`] finds them.
    ByKeyCells,
}

impl FirstPart {
    fn of(full: &Layout, syms: &Symmetries, inversion: bool) -> FirstPart {
        if inversion && let Some(rest) = arrangements_invert(full, syms) {
            return FirstPart::InvertedArrangement(Box::new(rest));
        }
        match full.ranks_reachable_couplings() {
            true => FirstPart::Arrangement,
            false => FirstPart::ByKeyCells,
        }
    }
}

/// The first part of [`ClassRanking::by_key_cells`]'s classes.
enum KeyChoice {
    /// Per orbit of the layout, its key cells.
    Cells(Vec<Vec<u8>>),
    /// The orbits taken whole.
    Orbits(Vec<usize>),
    /// Key cells of the subgroup of the symmetries that keeps them as a set
    /// ([`stabilizer_key_cells`]).
    Subgroup(Symmetries, Vec<Vec<u8>>),
    /// The whole arrangement, at most `most` values (more are refused).
    Arrangement { most: u64 },
}

impl KeyChoice {
    /// The choice, `None` for a group of the identity alone (no classes to take). Where
    /// neither key cells nor whole orbits of at most [`MAX_PLACEMENTS`] placements serve, and
    /// the whole arrangement has more than [`MAX_ARRANGEMENTS`] values, the cheapest in
    /// memory of: the whole arrangement anyway, whole orbits of up to
    /// [`MAX_LARGE_ARRANGEMENTS`] placements (the compy cube's 12 edges: 239,500,800
    /// arrangements under 48 symmetries and inversion, times its corners' 6,561 twists,
    /// 3.8 GiB of classes where the 16 keeping four edges took 24.3 GiB), or key cells of a
    /// subgroup.
    fn of(
        full: &Layout,
        syms: &Symmetries,
        min_placements: u64,
        inversion: bool,
    ) -> Option<KeyChoice> {
        if syms.order() < 2 {
            return None;
        }
        let key = choose_key_cells(full, syms, min_placements);
        if !key.iter().all(Vec::is_empty) {
            return Some(KeyChoice::Cells(key));
        }
        let orbits_allowed = !full.ranks_reachable_couplings();
        if orbits_allowed
            && let Some(orbits) = choose_key_orbits(full, syms, min_placements, MAX_PLACEMENTS)
        {
            return Some(KeyChoice::Orbits(orbits));
        }
        let arrangements = full.n_states() / full.orientation_count();
        if arrangements <= MAX_ARRANGEMENTS {
            return Some(KeyChoice::Arrangement { most: MAX_ARRANGEMENTS });
        }
        let subgroup = stabilizer_key_cells(full, syms);
        let order = subgroup.as_ref().map_or(1, |(s, _)| s.order());
        if large_arrangement_pays(full, syms, order, inversion) {
            return Some(KeyChoice::Arrangement { most: MAX_LARGE_ARRANGEMENTS });
        }
        if orbits_allowed
            && let Some(orbits) = large_key_orbits(full, syms, order, inversion, min_placements)
        {
            return Some(KeyChoice::Orbits(orbits));
        }
        Some(match subgroup {
            Some((subgroup, key)) => KeyChoice::Subgroup(subgroup, key),
            None => KeyChoice::Arrangement { most: MAX_ARRANGEMENTS },
        })
    }
}

impl ClassRanking {
    /// The class ranking of a puzzle whose boards `layout` ranks (built without runs), or
    /// why there is none: a trivial group, or no key cells (every orbit too small). With
    /// inversion where the whole arrangement can be the first part (see the module docs).
    pub fn new(puzzle: &Puzzle, full: Layout) -> Result<ClassRanking> {
        ClassRanking::new_with(puzzle, full, true)
    }

    /// [`ClassRanking::new`], inversion left out unless `inversion` (a search from several
    /// goals: a board and its inverse are not equally far from a set).
    pub fn new_with(puzzle: &Puzzle, full: Layout, inversion: bool) -> Result<ClassRanking> {
        ClassRanking::with_symmetries(puzzle, full, Symmetries::of(puzzle), inversion)
    }

    /// [`ClassRanking::new_with`] with the puzzle's symmetries found already.
    pub fn with_symmetries(
        puzzle: &Puzzle,
        full: Layout,
        syms: Symmetries,
        inversion: bool,
    ) -> Result<ClassRanking> {
        match FirstPart::of(&full, &syms, inversion) {
            FirstPart::InvertedArrangement(rest) => {
                let key = vec![full.orbit_cells(0).to_vec()];
                ClassRanking::assemble(full, *rest, syms, true, key, false)
            }
            FirstPart::Arrangement => {
                let most = MAX_ARRANGEMENTS;
                ClassRanking::by_arrangements(puzzle, full, syms, inversion, most, most)
            }
            FirstPart::ByKeyCells => {
                ClassRanking::by_key_cells(puzzle, full, MIN_PLACEMENTS, syms, inversion)
            }
        }
    }

    /// The orbits whose arrangements [`ClassRanking::new_with`] takes whole as the first
    /// part, where it takes such orbits (the rest then every other orbit): told without
    /// classifying anything, by the same choices.
    pub fn whole_orbits_first(
        full: &Layout,
        syms: &Symmetries,
        inversion: bool,
    ) -> Option<Vec<usize>> {
        match FirstPart::of(full, syms, inversion) {
            FirstPart::ByKeyCells => match KeyChoice::of(full, syms, MIN_PLACEMENTS, inversion) {
                Some(KeyChoice::Orbits(orbits)) => Some(orbits),
                _ => None,
            },
            _ => None,
        }
    }

    /// Classes whose first part is the whole arrangement ([`Rest::Orientations`]), where
    /// its values (at most `most`) are few enough to classify; under inversion if
    /// `inversion` allows. Past `runs_past` arrangements the orientations move in XOR runs
    /// where the layout has them (see [`ClassRanking::find_xor_runs`]).
    pub(crate) fn by_arrangements(
        puzzle: &Puzzle,
        full: Layout,
        syms: Symmetries,
        inversion: bool,
        most: u64,
        runs_past: u64,
    ) -> Result<ClassRanking> {
        let placements = full.n_states() / full.orientation_count();
        if syms.order() < 2 {
            return Err(Error::Unsupported(format!(
                "no symmetry reduction for {}: the moves have no symmetry besides the identity",
                puzzle.spec.named()
            )));
        }
        if placements > most {
            return Err(Error::Unsupported(format!(
                "no symmetry reduction for {}: no orbit of the board has room for key cells, \
                 and its {placements} arrangements are more than the {most} a first \
                 part may take",
                puzzle.spec.named()
            )));
        }
        let key = (0..full.n_orbits()).map(|j| full.orbit_cells(j).to_vec()).collect();
        let inversion = arrangement_inverts(&full, &syms, inversion);
        let runs = placements > runs_past;
        ClassRanking::assemble(full, Rest::Orientations, syms, inversion, key, runs)
    }

    /// Classes whose first part is the arrangement of the orbits `orbits` (a set the
    /// symmetries keep), the rest everything else ([`Rest::Orbits`]); under inversion if
    /// `inversion` allows.
    fn with_key_orbits(
        full: Layout,
        syms: Symmetries,
        inversion: bool,
        orbits: &[usize],
    ) -> Result<ClassRanking> {
        let split = OrbitSplit::new(&full, orbits);
        let key = (0..full.n_orbits())
            .map(|j| if orbits.contains(&j) { full.orbit_cells(j).to_vec() } else { Vec::new() })
            .collect();
        // The key orbits of `g^-1` hold the inverse of `g`'s arrangement there.
        let inversion = inversion && inversion_fits(&syms);
        ClassRanking::assemble(full, Rest::Orbits(split), syms, inversion, key, false)
    }

    /// Classes under the symmetries alone, key cells added until the placements reach
    /// `min_placements`: tests take fewer, which leaves small boards room for cell runs.
    #[cfg(test)]
    pub(crate) fn with_min_placements(
        puzzle: &Puzzle,
        full: Layout,
        min_placements: u64,
    ) -> Result<ClassRanking> {
        ClassRanking::by_key_cells(puzzle, full, min_placements, Symmetries::of(puzzle), true)
    }

    /// Classes under the subgroup of the symmetries that keeps a set of key cells, as for
    /// boards whose symmetries leave no key cells ([`stabilizer_key_cells`]).
    #[cfg(test)]
    pub(crate) fn by_stabilizer(puzzle: &Puzzle, full: Layout) -> Result<ClassRanking> {
        let syms = Symmetries::of(puzzle);
        let (subgroup, key) = stabilizer_key_cells(&full, &syms).expect("a subgroup keeps a set");
        ClassRanking::with_key_cells(puzzle, full, subgroup, key)
    }

    /// [`ClassRanking::with_min_placements`] with the symmetries at hand (a definition's are
    /// searched for, which is worth doing once); where no key cells have room, whole orbits
    /// first or else the whole arrangement, under inversion if `inversion` allows.
    fn by_key_cells(
        puzzle: &Puzzle,
        full: Layout,
        min_placements: u64,
        syms: Symmetries,
        inversion: bool,
    ) -> Result<ClassRanking> {
        let cannot = |why: &str| {
            Error::Unsupported(format!("no symmetry reduction for {}: {why}", puzzle.spec.named()))
        };
        let Some(choice) = KeyChoice::of(&full, &syms, min_placements, inversion) else {
            return Err(cannot("the moves have no symmetry besides the identity"));
        };
        match choice {
            KeyChoice::Cells(key) => ClassRanking::with_key_cells(puzzle, full, syms, key),
            KeyChoice::Orbits(orbits) => {
                ClassRanking::with_key_orbits(full, syms, inversion, &orbits)
            }
            KeyChoice::Subgroup(subgroup, key) => {
                ClassRanking::with_key_cells(puzzle, full, subgroup, key)
            }
            KeyChoice::Arrangement { most } => {
                ClassRanking::by_arrangements(puzzle, full, syms, inversion, most, MAX_ARRANGEMENTS)
            }
        }
    }

    /// Classes under `syms` with `key` (per orbit of the layout, a union of cell orbits of
    /// `syms`) first.
    fn with_key_cells(
        puzzle: &Puzzle,
        mut full: Layout,
        syms: Symmetries,
        key: Vec<Vec<u8>>,
    ) -> Result<ClassRanking> {
        for (j, cells) in key.iter().enumerate() {
            let mut order = cells.clone();
            order.extend(full.orbit_cells(j).iter().filter(|c| !cells.contains(c)));
            order[cells.len()..].sort_unstable();
            full.reorder_orbit(j, &order);
        }
        // Moves that leave every key cell in place keep the class: runs of rests serve them.
        full.add_runs_around(&puzzle.moves, &key.concat());
        let prefix: Vec<usize> = key.iter().map(Vec::len).collect();
        let rest = Rest::Layout(full.prefix_ranked_out(&prefix));
        ClassRanking::assemble(full, rest, syms, false, key, false)
    }

    /// The ranking of the key cells (each orbit's first, in its Lehmer order) and the rest:
    /// the placements reduced to classes, with XOR runs where they serve and else the twins
    /// compacted. With [`Rest::Orientations`], runs only if `orientation_runs`.
    fn assemble(
        full: Layout,
        rest: Rest,
        syms: Symmetries,
        inversion: bool,
        key: Vec<Vec<u8>>,
        orientation_runs: bool,
    ) -> Result<ClassRanking> {
        let elements = syms.order_with(inversion);
        if elements > 1 << SYM_BITS {
            return Err(Error::Unsupported(format!(
                "no symmetry reduction: the group has {elements} elements; classes are \
                 indexed for at most {}",
                1 << SYM_BITS
            )));
        }
        let orbit_placements: Vec<u64> = match &rest {
            Rest::Orientations => vec![full.n_states() / full.orientation_count()],
            Rest::Orbits(split) => vec![split.placements()],
            _ => (0..full.n_orbits())
                .map(|j| falling(full.orbit_cells(j).len(), key[j].len()))
                .collect(),
        };
        let rest_count = match &rest {
            Rest::Layout(l) => l.n_states(),
            Rest::Turns(turns) => turns.count(),
            Rest::Orientations => full.orientation_count(),
            Rest::Orbits(split) => split.rest_count(),
        };
        let mut bytes = Vec::new();
        let mut shared = HashMap::new();
        let conjugations = syms
            .elements
            .iter()
            .map(|s| conjugation(&full, s, &mut bytes, &mut shared))
            .collect::<Result<Vec<_>>>()?;
        let mut out = ClassRanking {
            full,
            rest,
            syms,
            inversion,
            key,
            orbit_placements,
            placement: Vec::new(),
            representative: Vec::new(),
            twins: Vec::new(),
            compact: None,
            arrangements: Vec::new(),
            arrangement_sums: Vec::new(),
            rest_parts: None,
            conjugations,
            bytes,
            rest_count,
            n_states: 0,
            xor_bits: None,
            offset_maps: Vec::new(),
            free_mods: [1; MAX_CELLS],
        };
        let inv = out.full.invariants();
        for (p, m) in out.free_mods.iter_mut().enumerate().take(out.full.n_cells()) {
            *m = inv.orbits[inv.orbit_of[p] as usize].free_mod;
        }
        out.reduce_placements()?;
        if out.representative.len() <= MAX_KEPT_ARRANGEMENTS {
            match &out.rest {
                // On every thread, as a class table may hold 2^18 of them.
                Rest::Turns(_) => {
                    let reps = out.representative.par_iter();
                    let kept = reps.map(|&p| out.arrangement(p as u64)).collect();
                    out.arrangements = kept;
                }
                // A class of one rest is one entry: its board is unranked about once a step,
                // so keeping it only adds to the cache misses (the mastermorphix, 1.05x).
                Rest::Orientations if out.rest_count > 1 => {
                    let (full, reps) = (&out.full, out.representative.par_iter());
                    let kept =
                        reps.map(|&p| full.arrangement_of_upper(full.upper_at_index(p as u64)));
                    (out.arrangements, out.arrangement_sums) = kept.unzip();
                }
                Rest::Orbits(split) => {
                    out.rest_parts =
                        split.rest_parts(&out.full, &out.representative, MAX_REST_PARTS);
                }
                _ => {}
            }
        }
        out.n_states = (out.representative.len() as u64)
            .checked_mul(out.rest_count)
            .ok_or_else(|| Error::TooLarge("more classes than 64-bit ranks can count".into()))?;
        out.find_xor_runs(orientation_runs);
        out.compact_twins();
        Ok(out)
    }

    /// Keeps one entry per orbit of a twin class's rests ([`CompactTwins`]) where no runs of
    /// rests are taken (they would cross the orbits) and the rests are more than one and few
    /// enough for tables.
    fn compact_twins(&mut self) {
        let runs = self.xor_bits.is_some() || matches!(self.rest, Rest::Layout(_));
        // A single rest has a single orbit: nothing to compact.
        let few_or_many = self.rest_count < 2 || self.rest_count > MAX_TWIN_RESTS;
        if runs || self.twins.is_empty() || few_or_many {
            return;
        }
        let compact = CompactTwins::new(
            self.representative.len(),
            self.rest_count,
            &self.twins,
            |class, fixed, x, out| {
                let board = self.class_board(class as u64, x);
                let both = self.with_inverse(board, fixed >> self.syms.order() != 0);
                // The identity (element 0) keeps the rest.
                out.push(x as u32);
                out.extend(others(fixed).map(|h| self.rest_of(&self.image(h, &both)) as u32));
            },
        );
        self.n_states = compact.n_entries();
        self.compact = Some(compact);
    }

    /// Keeps the full layout's XOR runs where every symmetry maps a run's offsets linearly.
    ///
    /// The entries of one run share the tiles' arrangement, hence the placement and the
    /// symmetry that canonicalizes it; only orientations differ, and a conjugation relabels
    /// them (and may turn them all alike). So a run's offsets go through the conjugation as
    /// `x -> A x ^ c`: `A` is read off one arrangement, `c` is the offset of the first board.
    ///
    /// With [`Rest::Turns`] a run is every flip of one arrangement, and a symmetry permutes
    /// the flips' bits as it permutes the tiles.
    ///
    /// Runs leave the twin classes' rests uncompacted ([`ClassRanking::compact_twins`]), so
    /// the whole arrangement first takes them (`orientation_runs`) only where that pays:
    /// past [`MAX_ARRANGEMENTS`] arrangements (the 3x3x3's edges), not on the pyraminx's
    /// edges in cw (1,216 entries against 988 compacted).
    fn find_xor_runs(&mut self, orientation_runs: bool) {
        // Whole orbits first leave no run of offsets in the rest. The whole arrangement first
        // leaves the layout's own runs (its orientation digits are the rest), but not under
        // inversion, whose maps are named as flips of tiles ([`ClassRanking::offset_map`]).
        match self.rest {
            Rest::Orbits(_) => return,
            Rest::Orientations if self.inversion || !orientation_runs => return,
            _ => {}
        }
        if let Rest::Turns(_) = self.rest {
            let n = self.full.n_cells();
            if !self.rest.is_flips() {
                return;
            }
            if self.rest_count >= CELLS_PER_WORD {
                self.xor_bits = Some(n as u32);
                self.offset_maps = (self.syms.elements.iter())
                    .map(|s| {
                        let mut map = OffsetMap::default();
                        map.set_permutation(&s.cells);
                        map
                    })
                    .collect();
            }
            return;
        }
        let Some(bits) = self.full.xor_block_bits() else { return };
        if !self.rest_count.is_multiple_of(1 << bits) {
            return;
        }
        let low = (1u64 << bits) - 1;
        let mut maps = Vec::new();
        for e in 0..self.syms.order() {
            let first = self.rest_of(&self.conjugate(e, &self.full.unrank(0)));
            let columns: Vec<u64> = (0..bits)
                .map(|k| self.rest_of(&self.conjugate(e, &self.full.unrank(1 << k))) ^ first)
                .collect();
            match OffsetMap::from_columns(&columns) {
                Some(map) if columns.iter().all(|c| c & !low == 0) => maps.push(map),
                _ => return,
            }
        }
        self.xor_bits = Some(bits);
        self.offset_maps = maps;
    }

    /// With XOR runs: the entry of a board and the name of the map of offsets
    /// ([`OffsetMap`]) by which the entries of its run are read: the board with offset `x`
    /// added (in the full layout; with [`Rest::Turns`], the flips `x` added) has the entry
    /// whose offset is `A x` XOR the board's own. A symmetry's map is named by its index
    /// (the identity 0); inversion's depends on the board's arrangement, which its name
    /// carries (see [`ClassRanking::offset_map`]).
    #[inline(always)]
    pub fn rank_in_runs(&self, s: &Cells) -> (u64, usize) {
        self.entry_and_map(s)
    }

    /// Writes into `into` the map of offsets that [`ClassRanking::rank_in_runs`] names `id`:
    /// a symmetry's, or under inversion the element and the arrangement's digits packed
    /// ([`ClassRanking::packed_digits`]). Inverting a board `g` gives the flip of tile `t`,
    /// standing on cell `c`, to tile `c`; the symmetry then carries tile `c` to `s(c)`.
    pub fn offset_map(&self, id: usize, into: &mut OffsetMap) {
        let order = self.syms.order();
        if id < order {
            into.clone_from(&self.offset_maps[id]);
            return;
        }
        let s = &self.syms.elements[(id & SYM_MASK as usize) - order];
        let n = self.key[0].len();
        let (mut digits, mut packed) = ([0u32; MAX_CELLS], (id >> SYM_BITS) as u32);
        for (i, d) in digits[..n].iter_mut().enumerate() {
            let width = digit_width(n - i);
            *d = packed & ((1 << width) - 1);
            packed >>= width;
        }
        let mut to = [0u8; MAX_CELLS];
        self.place_by_digits(&digits, |c, t| to[t as usize] = s.cells[c as usize]);
        into.set_permutation(&to[..n]);
    }

    /// Places the tiles of an arrangement cell by cell (the key cells in order, every cell a
    /// key cell), each Lehmer digit picking among the tiles not yet placed: `put(cell,
    /// tile)`.
    #[inline(always)]
    fn place_by_digits(&self, digits: &[u32; MAX_CELLS], mut put: impl FnMut(u8, u8)) {
        let cells = &self.key[0];
        let mut free = (1u32 << cells.len()) - 1;
        for (&c, &d) in cells.iter().zip(digits) {
            let local = select_bit(free, d);
            free &= !(1 << local);
            // The orbit's Lehmer order is the key's: local index `i` is the tile of cell i.
            put(c, cells[local as usize]);
        }
    }

    /// Under inversion: the Lehmer digits of a board's arrangement, each in as few bits as
    /// its radix needs (25 bits for 10 cells), so that a map's name fits the 32 bits a
    /// question between processes gives it and is read back without a division.
    #[inline(always)]
    fn packed_digits(&self, s: &Cells) -> u32 {
        let (mut packed, mut shift) = (0u32, 0);
        self.key_digits(s, |radix, digit| {
            packed |= digit << shift;
            shift += digit_width(radix);
        });
        packed
    }

    /// Lists every placement's class and the element taking it to its representative (the
    /// smallest placement of its orbit), and the stabilizers of the representatives
    /// ([`orbits::reduce`], in parallel).
    fn reduce_placements(&mut self) -> Result<()> {
        let total = self.orbit_placements.iter().product::<u64>() as usize;
        let undo: Vec<u32> = (0..self.n_elements()).map(|e| self.inverse_element(e)).collect();
        // Whole arrangements (upper values) are mapped by tables where the elements allow.
        let tables = matches!(self.rest, Rest::Orientations)
            .then(|| UpperMaps::new(&self.full, undo.len(), |s, e| self.transform(e, s)))
            .flatten();
        // Whole key orbits by tables of their permutations, where those are small.
        let key_images = match &self.rest {
            Rest::Orbits(split) => {
                let most = total as u64 / KEY_IMAGES_SHARE;
                let map = |e, s: &Cells| self.transform(e, s);
                split.key_images(&self.full, undo.len(), map, most).map(|t| (t, split))
            }
            _ => None,
        };
        let reduced = orbits::reduce(total, &undo, SYM_BITS, |p, out| {
            if let Some((images, split)) = &key_images {
                images.images(split, &self.full, p as u64, out);
                return true;
            }
            if let Some(tables) = &tables {
                // The images first, their indexes asked of the cache, then read: over a
                // sparse set of values each index is a cache miss (the mastermorphix's
                // 96 images of each of 62,756 classes among 15.9M values).
                let mut images = out.iter_mut();
                tables.images(self.full.upper_at_index(p as u64), |v| {
                    self.full.prefetch_index_of_upper(v);
                    *images.next().expect("an image per element") = v as u32;
                });
                for q in out.iter_mut() {
                    *q = self.full.index_of_upper(*q as u64) as u32;
                }
                return true;
            }
            let both = self.with_inverse(self.placement_board(p as u64), true);
            for (e, q) in out.iter_mut().enumerate() {
                *q = self.placement_of(&self.image(e, &both)) as u32;
                if (*q as usize) < p {
                    return false;
                }
            }
            true
        })
        .ok_or_else(|| {
            Error::Unsupported(format!(
                "no symmetry reduction: more classes of {total} placements than the {} a \
                 class table names",
                1u64 << (32 - SYM_BITS)
            ))
        })?;
        (self.placement, self.representative, self.twins) =
            (reduced.placement, reduced.representative, reduced.twins);
        Ok(())
    }

    /// The element undoing element `e`: conjugation by `s` is undone by `s^-1`, and `g ->
    /// s g^-1 s^-1` by `h -> s^-1 h^-1 s` (conjugation and inversion commute).
    fn inverse_element(&self, e: usize) -> u32 {
        let order = self.syms.order();
        (self.syms.inverse_position(e % order) + e / order * order) as u32
    }

    /// The order of the group acting on boards: the symmetries, doubled by inversion.
    pub fn order(&self) -> u64 {
        self.n_elements() as u64
    }

    fn n_elements(&self) -> usize {
        self.syms.order_with(self.inversion)
    }

    /// The symmetries.
    pub fn symmetries(&self) -> &Symmetries {
        &self.syms
    }

    /// Whether `g -> g^-1` is in the group.
    pub fn inverts(&self) -> bool {
        self.inversion
    }

    /// The images of a board under every element of the group ([`Symmetries::images`]).
    pub fn images(&self, board: &Board) -> Vec<Board> {
        self.syms.images(board, self.inversion)
    }

    /// What the entries are, in words: `8 symmetries, key cells 1 3 7 9 5`, `4 symmetries
    /// and inversion, every cell a key cell` or `48 symmetries, the whole arrangement first`.
    pub fn describe(&self) -> String {
        let group = self.group_text();
        let inversion = if self.inversion { " and inversion" } else { "" };
        if let Rest::Orientations = self.rest {
            format!("{group}{inversion}, the whole arrangement first")
        } else if let Rest::Orbits(_) = self.rest {
            format!("{group}{inversion}, whole orbits first (cells {})", self.key_cells_text())
        } else if self.inversion {
            format!("{group} and inversion, every cell a key cell")
        } else {
            format!("{group}, key cells {}", self.key_cells_text())
        }
    }

    /// The group acting, in words: `4 symmetries`, or for a subgroup that keeps the key
    /// cells `16 of the 48 symmetries (those keeping cells 1 7 8 9 as a set)`.
    pub fn group_text(&self) -> String {
        let order = self.syms.order();
        match self.syms.subgroup_of {
            Some(whole) => format!(
                "{order} of the {whole} symmetries (those keeping cells {} as a set)",
                self.key_cells_text()
            ),
            None => format!("{order} symmetries"),
        }
    }

    /// The key cells (numbered from 0), orbit by orbit.
    pub fn key_cells(&self) -> Vec<u8> {
        self.key.concat()
    }

    /// The key cells numbered from 1, as text: `1 13 12 6 18 7`.
    pub fn key_cells_text(&self) -> String {
        let cells: Vec<String> = self.key_cells().iter().map(|k| (k + 1).to_string()).collect();
        cells.join(" ")
    }

    /// Number of classes of first parts (representative placements).
    pub fn placement_classes(&self) -> u64 {
        self.representative.len() as u64
    }

    /// Number of placements of the key tiles.
    pub fn placements(&self) -> u64 {
        self.placement.len() as u64
    }

    /// Number of rests per placement.
    pub fn rest_count(&self) -> u64 {
        self.rest_count
    }

    /// The puzzle's ranking the entries are made from (key cells first).
    pub fn layout(&self) -> &Layout {
        &self.full
    }

    /// How many boards an entry stands for: `|G| / |H|` for the elements `H` fixing its
    /// representative placement, times the rests the entry stands for (with twins
    /// compacted, an orbit of them under `H`).
    pub fn weight(&self, entry: u64) -> u64 {
        let class = self.class_and_rest(entry).0 as u32;
        match self.twins.binary_search_by_key(&class, |t| t.0) {
            Ok(i) => self.twin_weight(class, entry, self.twins[i].1),
            Err(_) => self.order(),
        }
    }

    /// [`ClassRanking::weight`] of an entry of twin class `class`, `fixed` the elements
    /// fixing its representative.
    fn twin_weight(&self, class: u32, entry: u64, fixed: ElementSet) -> u64 {
        match &self.compact {
            Some(c) => c.weight(class, entry, fixed, self.order()),
            None => self.order() / fixed.count_ones() as u64,
        }
    }

    /// Whether each class's entries are one per class of boards (twins compacted), so
    /// that a level needs no completing.
    pub fn twins_compacted(&self) -> bool {
        self.compact.is_some()
    }

    /// Number of classes of first parts whose representative an element besides the
    /// identity fixes.
    pub fn twin_classes(&self) -> usize {
        self.twins.len()
    }

    /// With twins compacted: the distinct tables of their orbits and the bytes they take.
    pub fn twin_tables(&self) -> Option<(usize, u64)> {
        self.compact.as_ref().map(CompactTwins::footprint)
    }

    /// The ranks a process of a distributed search takes together: whole classes where a
    /// level is completed class by class ([`EntryClasses::complete_level_in`]).
    pub fn deal_unit(&self) -> u64 {
        if self.compact.is_some() { 1 } else { self.rest_count }
    }

    /// Whether the first part is an arrangement of whole orbits and the rest the others
    /// ([`Rest::Orbits`]): its neighbours are ranked board by board.
    pub fn first_part_is_whole_orbits(&self) -> bool {
        matches!(self.rest, Rest::Orbits(_))
    }

    /// Whether the first part is the whole arrangement with its signs and orientation sums,
    /// the rest the orientation digits ([`Rest::Orientations`]).
    pub fn first_part_is_arrangement(&self) -> bool {
        matches!(self.rest, Rest::Orientations)
    }

    /// A board with only the key cells' tiles in place (the others in Lehmer order), no
    /// tile turned.
    fn placement_board(&self, mut p: u64) -> Cells {
        let rest = match &self.rest {
            Rest::Layout(rest) => rest,
            Rest::Turns(_) => return self.arrangement(p),
            Rest::Orientations => return self.full.unrank(p * self.rest_count),
            Rest::Orbits(split) => return split.board(&self.full, p, 0),
        };
        let mut full_rank = 0u64;
        let mut parts = vec![0u64; self.key.len()];
        for j in (0..self.key.len()).rev() {
            parts[j] = p % self.orbit_placements[j];
            p /= self.orbit_placements[j];
        }
        for (j, part) in parts.iter().enumerate() {
            full_rank = full_rank * self.full.orbit_radix(j) + part * rest.orbit_radix(j);
        }
        self.full.unrank(full_rank * self.full.low_radix())
    }

    /// The arrangement of placement `p` when every cell is a key cell (one orbit): its
    /// digits pick, cell by cell, among the tiles not yet placed.
    fn arrangement(&self, mut p: u64) -> Cells {
        let n = self.key[0].len();
        let mut digits = [0u32; MAX_CELLS];
        for i in (0..n).rev() {
            let radix = (n - i) as u64;
            digits[i] = (p % radix) as u32;
            p /= radix;
        }
        let mut out = [0u8; MAX_CELLS];
        self.place_by_digits(&digits, |c, t| out[c as usize] = t);
        Cells(out)
    }

    /// The index of the placement of the key tiles on a board.
    #[inline(always)]
    fn placement_of(&self, s: &Cells) -> u64 {
        match &self.rest {
            Rest::Orientations => return self.full.board_upper_index(s),
            Rest::Orbits(split) => return split.placement(&self.full, s),
            _ => {}
        }
        // Every cell a key cell, in the orbit's Lehmer order: the placement is the
        // arrangement's Lehmer index, read from the layout's tables where it has them.
        if let Rest::Turns(_) = self.rest
            && let Some(index) = self.full.small_lehmer_index(s, 0)
        {
            return index;
        }
        let mut index = 0u64;
        self.key_digits(s, |radix, digit| index = index * radix as u64 + digit as u64);
        index
    }

    /// Calls `f(radix, digit)` for each key cell in order (orbit by orbit): the Lehmer digit
    /// of its tile among those of the orbit not on an earlier key cell, below `radix`.
    #[inline(always)]
    fn key_digits(&self, s: &Cells, mut f: impl FnMut(usize, u32)) {
        for (j, cells) in self.key.iter().enumerate() {
            let n = self.full.orbit_cells(j).len();
            let mut used = 0u32;
            for (i, &c) in cells.iter().enumerate() {
                let x = self.full.local_of(s.0[c as usize]) as u32;
                f(n - i, x - (used & ((1u32 << x) - 1)).count_ones());
                used |= 1 << x;
            }
        }
    }

    /// The image of a board under element `e` of the group: the `e`-th symmetry, or from
    /// `order` on, symmetry `e - order` applied to the inverse.
    #[inline(always)]
    pub(crate) fn transform(&self, e: usize, board: &Cells) -> Cells {
        let order = self.syms.order();
        if e < order {
            self.conjugate(e, board)
        } else {
            self.conjugate(e - order, &self.invert_cells(board))
        }
    }

    /// A board and, if `inverse_too` (and the group holds inversion), its inverse: what
    /// [`ClassRanking::image`] reads, so that a board's images under many elements invert
    /// it once.
    #[inline(always)]
    fn with_inverse(&self, board: Cells, inverse_too: bool) -> (Cells, Option<Cells>) {
        (board, (inverse_too && self.inversion).then(|| self.invert_cells(&board)))
    }

    /// [`ClassRanking::transform`] of a board given with its inverse
    /// ([`ClassRanking::with_inverse`], asked for if `e` applies a symmetry to it).
    #[inline(always)]
    fn image(&self, e: usize, (board, inverse): &(Cells, Option<Cells>)) -> Cells {
        let order = self.syms.order();
        match inverse {
            Some(inverse) if e >= order => self.conjugate(e - order, inverse),
            _ => self.transform(e, board),
        }
    }

    /// The rank of a board's rest.
    #[inline(always)]
    fn rest_of(&self, s: &Cells) -> u64 {
        match &self.rest {
            Rest::Layout(rest) => rest.rank(s),
            Rest::Turns(turns) => turns.of(s),
            Rest::Orientations => self.full.orientation_index(s),
            Rest::Orbits(split) => split.rest(&self.full, s),
        }
    }

    /// The board `s g s^-1` for the `e`-th symmetry `s`, in working form.
    #[inline(always)]
    pub(crate) fn conjugate(&self, e: usize, board: &Cells) -> Cells {
        let c = &self.conjugations[e];
        #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
        if let Some((relabel, from)) = &c.shuffles {
            return Cells(if self.full.n_cells() <= NARROW_CELLS {
                relabel_and_move::<Lanes16>(relabel, from, &board.0)
            } else {
                relabel_and_move::<Lanes32>(relabel, from, &board.0)
            });
        }
        #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
        if let Some(twists) = &c.twists {
            return Cells(twists.apply(&board.0));
        }
        let mut out = [0u8; MAX_CELLS];
        for p in 0..self.full.n_cells() {
            out[c.to[p] as usize] = self.bytes[c.map[p] as usize + board.0[p] as usize];
        }
        Cells(out)
    }

    /// How many symmetries conjugate boards by byte shuffles, not cell by cell (tests check
    /// that the fast paths are taken).
    #[cfg(test)]
    pub(crate) fn shuffled_conjugations(&self) -> usize {
        self.conjugations.iter().filter(|c| c.shuffles.is_some() || c.twists.is_some()).count()
    }

    /// The entry of a board in working form (of the full layout).
    #[inline(always)]
    pub fn entry(&self, s: &Cells) -> u64 {
        self.entry_and_map(s).0
    }

    /// The entry of a board and the name of its map of offsets (see
    /// [`ClassRanking::rank_in_runs`]).
    #[inline(always)]
    fn entry_and_map(&self, s: &Cells) -> (u64, usize) {
        self.entry_and_map_at(s, self.placement_of(s))
    }

    /// [`ClassRanking::entry_and_map`] of a board whose placement is `p`.
    #[inline(always)]
    fn entry_and_map_at(&self, s: &Cells, p: u64) -> (u64, usize) {
        let code = self.placement[p as usize];
        let (class, e) = (code >> SYM_BITS, (code & SYM_MASK) as usize);
        let image = |s: &Cells| if e == 0 { *s } else { self.transform(e, s) };
        let rest = match &self.rest {
            // The image's first part is the representative's: its key signs are known.
            Rest::Orbits(split) => {
                let representative = self.representative[class as usize] as u64;
                split.rest_at(&self.full, &image(s), representative)
            }
            _ => self.rest_of(&image(s)),
        };
        let map = if e < self.syms.order() {
            e
        } else if self.rest.first_part_is_orbits() {
            // No XOR runs: the map is never read.
            0
        } else {
            (self.packed_digits(s) as usize) << SYM_BITS | e
        };
        (self.entry_at(class, rest), map)
    }

    /// The entry of rest `rest` of class `class`.
    #[inline(always)]
    fn entry_at(&self, class: u32, rest: u64) -> u64 {
        match &self.compact {
            Some(compact) => compact.entry(class, rest),
            None => class as u64 * self.rest_count + rest,
        }
    }

    /// The class of an entry and its rest (with twins compacted, the smallest of its orbit).
    #[inline(always)]
    fn class_and_rest(&self, entry: u64) -> (u64, u64) {
        match &self.compact {
            Some(compact) => {
                let (class, rest) = compact.class_and_rest(entry);
                (class as u64, rest)
            }
            None => (entry / self.rest_count, entry % self.rest_count),
        }
    }

    /// The entries of a class.
    fn class_entries(&self, class: u32) -> std::ops::Range<u64> {
        match &self.compact {
            Some(compact) => compact.range(class),
            None => {
                let first = class as u64 * self.rest_count;
                first..first + self.rest_count
            }
        }
    }

    /// The board of an entry: the representative of its class whose first part is the
    /// representative placement.
    #[inline]
    pub fn entry_board(&self, entry: u64) -> Cells {
        let (class, rest) = self.class_and_rest(entry);
        self.class_board(class, rest)
    }

    /// The board of rest `rest` of class `class`, its first part the representative
    /// placement.
    #[inline]
    fn class_board(&self, class: u64, rest: u64) -> Cells {
        let mut p = self.representative[class as usize] as u64;
        let rest_layout = match &self.rest {
            Rest::Layout(l) => l,
            Rest::Turns(turns) => {
                let arrangement = match self.arrangements.get(class as usize) {
                    Some(&a) => a,
                    None => self.arrangement(p),
                };
                return turns.apply(arrangement, rest);
            }
            Rest::Orientations => {
                return match self.arrangements.get(class as usize) {
                    Some(&a) => {
                        self.full.with_orientations(a, self.arrangement_sums[class as usize], rest)
                    }
                    None => self.full.unrank(p * self.rest_count + rest),
                };
            }
            Rest::Orbits(split) => {
                return match &self.rest_parts {
                    Some(parts) => parts.board(class as usize, p, rest),
                    None => split.board(&self.full, p, rest),
                };
            }
        };
        let low_radix = self.full.low_radix();
        let low = rest % low_radix;
        let mut perm_rest = rest / low_radix;
        let orbits = self.key.len();
        let mut full_parts = [0u64; MAX_CELLS];
        for j in (0..orbits).rev() {
            let radix = rest_layout.orbit_radix(j);
            let r = perm_rest % radix;
            perm_rest /= radix;
            let part = p % self.orbit_placements[j];
            p /= self.orbit_placements[j];
            full_parts[j] = part * radix + r;
        }
        let mut full = 0u64;
        for (j, &part) in full_parts.iter().enumerate().take(orbits) {
            full = full * self.full.orbit_radix(j) + part;
        }
        self.full.unrank(full * low_radix + low)
    }

    /// The entry of a board, or why the board is not reachable.
    pub fn entry_of_board(&self, board: &Board) -> Result<u64> {
        Ok(self.entry(&self.full.cells_of(board)?))
    }

    /// The board of an entry.
    pub fn board(&self, entry: u64) -> Board {
        self.full.board_of(&self.entry_board(entry))
    }

    /// The entries of the classes with a nontrivial stabilizer, as ranges.
    fn twin_ranges(&self) -> impl ParallelIterator<Item = (std::ops::Range<u64>, ElementSet)> + '_ {
        self.twins.par_iter().map(move |&(class, fixed)| (self.class_entries(class), fixed))
    }

    /// [`EntryClasses::complete_level_in`]: the table holds entry `e` at `local(e)` if held
    /// (without compacted twins whole classes, each class's entries consecutive), as each
    /// process of a distributed search does. Notes entries by their own number.
    pub(crate) fn complete_level_in(
        &self,
        table: &DistanceTable,
        local: impl Fn(u64) -> Option<u64> + Sync,
        mark: u8,
        mark_twins: bool,
        small_level: bool,
    ) -> (Level, u64) {
        if let Some(compact) = &self.compact {
            let excess = compact.excess_in(&self.twins, self.order(), table, &local, mark);
            return (Level::default(), excess);
        }
        let order = self.order();
        // A class of one rest is its own twin: nothing to mark.
        let mark_twins = mark_twins && self.rest_count > 1;
        let groups = self.twins.len() as u64 * (1 + self.rest_count / 32);
        let serial = scan_serially(groups, mark_twins, small_level);
        fold_twins(&self.twins, serial, |found, &(class, fixed)| {
            let range = self.class_entries(class);
            let Some(at) = local(range.start) else { return 0 };
            let held = at..at + (range.end - range.start);
            if mark_twins {
                for_each_marked(table, held.clone(), mark, |i| {
                    let board = self.entry_board(range.start + (i - at));
                    let both = self.with_inverse(board, fixed >> self.syms.order() != 0);
                    for h in others(fixed) {
                        let twin = self.rest_of(&self.image(h, &both));
                        if table.mark_if_unseen(at + twin, mark) {
                            found.note(range.start + twin);
                        }
                    }
                });
            }
            let mut count = 0u64;
            for_each_marked(table, held, mark, |_| count += 1);
            count * (order - order / fixed.count_ones() as u64)
        })
    }

    /// The number of classes of boards: entries, less the repeats of classes whose
    /// representative placement has a nontrivial stabilizer (unless twins are compacted,
    /// each class's entries are the `H`-images of one rest; the smallest of them is
    /// counted).
    pub fn exact_classes(&self) -> u64 {
        self.n_states - self.repeats_in_share(0, 1)
    }

    /// The repeats [`ClassRanking::exact_classes`] subtracts, in share `share` of `shares`
    /// (the shares of all processes add up to them all).
    pub fn repeats_in_share(&self, share: usize, shares: usize) -> u64 {
        if self.compact.is_some() {
            return 0;
        }
        // In pieces, dealt to the shares by a hash of their first entry: a few classes may
        // hold most of the twins' entries.
        const PIECE: u64 = 1 << 14;
        let mine = |lo: u64| (lo.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) % shares as u64;
        self.twin_ranges()
            .flat_map_iter(|(range, fixed)| {
                let starts = (range.start..range.end).step_by(PIECE as usize);
                starts.map(move |lo| (range.start, lo..(lo + PIECE).min(range.end), fixed))
            })
            .filter(|(_, piece, _)| mine(piece.start) == share as u64)
            .map(|(first, piece, fixed)| {
                let mut repeats = 0u64;
                for e in piece {
                    let both =
                        self.with_inverse(self.entry_board(e), fixed >> self.syms.order() != 0);
                    let smallest =
                        others(fixed).all(|h| first + self.rest_of(&self.image(h, &both)) >= e);
                    repeats += !smallest as u64;
                }
                repeats
            })
            .sum()
    }
}

/// `n! / (n - k)!`.
fn falling(n: usize, k: usize) -> u64 {
    (n - k + 1..=n).map(|x| x as u64).product()
}

/// Bits of a Lehmer digit of radix `radix` (0 to `radix - 1`).
#[inline(always)]
fn digit_width(radix: usize) -> u32 {
    usize::BITS - (radix - 1).leading_zeros()
}

/// The rest of classes under inversion, the whole arrangement as first part and the turns
/// as rest, where they can be: the board has symmetries, the moves are closed under
/// inverses, and the boards are every arrangement of one orbit of at most
/// [`MAX_ARRANGED_CELLS`] cells with every flip (or none), or with every turn of a tile
/// whose turns no cell ties (a cube's corners: mod 3, adding up to 0 or free).
fn arrangements_invert(full: &Layout, syms: &Symmetries) -> Option<Rest> {
    let n = full.n_cells();
    let inv = full.invariants();
    let k = inv.orient_mod;
    // A group of the identity alone would have classes under inversion too, but "symmetry
    // on" promises the board's symmetries.
    if syms.order() < 2 || !syms.inverse_closed || full.n_orbits() != 1 || n > MAX_ARRANGED_CELLS {
        return None;
    }
    if k > 2 && inv.orbits[0].tied_mod != 1 {
        return None;
    }
    let arrangements = falling(n, n) as u128;
    [false, true].into_iter().find_map(|constrained| {
        let turns = (k as u128).pow((n - usize::from(constrained)) as u32);
        // Mod 1 and 2 the flips are free (Spinpossible): kept as they always were.
        let allowed = k >= 3 || !constrained;
        (allowed && full.n_states() as u128 == arrangements * turns)
            .then(|| Rest::Turns(Turns::new(k, constrained, n)))
    })
}

impl ClassRanking {
    /// `g^-1` in working form: where `g` has tile `t` on cell `p`, `g^-1` has tile `p` on
    /// cell `t`, turned back. A working-form turn is the board's plus the potentials of the
    /// cell less the tile's, which the exchange negates too, so the working turn is negated
    /// (mod 2 it stays).
    #[inline(always)]
    fn invert_cells(&self, board: &Cells) -> Cells {
        let k = match self.rest {
            Rest::Turns(Turns { modulus, .. }) => modulus,
            Rest::Layout(_) => 1,
            Rest::Orientations | Rest::Orbits(_) => return self.invert_by_orbit(board),
        };
        if k > 2 {
            // One orbit whose turns no cell ties: its free modulus is `k`.
            return self.invert_by_orbit(board);
        }
        // Flips (or no turns) stay as they are: the byte's turn bits move along.
        let mut out = [0u8; MAX_CELLS];
        for (p, &b) in board.0[..self.full.n_cells()].iter().enumerate() {
            out[(b & TILE_MASK) as usize] = p as u8 | (b & !TILE_MASK);
        }
        Cells(out)
    }
}

impl ClassRanking {
    /// [`ClassRanking::invert_cells`] with each orbit's own free modulus (a reduced turn is
    /// negated modulo it: the cell's tied part, counted in the potentials, is negated with
    /// the exchange).
    #[inline(always)]
    fn invert_by_orbit(&self, board: &Cells) -> Cells {
        // What each cell's tile leaves on the tile's home, all cells at once; then the
        // scatter alone is left per cell (it was 9% of the 2x2x2's search, turns included).
        #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
        let left = if self.full.n_cells() <= NARROW_CELLS {
            inverse_bytes::<Lanes16>(&board.0, &self.free_mods)
        } else {
            inverse_bytes::<Lanes32>(&board.0, &self.free_mods)
        };
        #[cfg(not(all(target_arch = "x86_64", target_feature = "avx2")))]
        let left = inverse_bytes_scalar(&board.0, &self.free_mods);
        let mut out = [0u8; MAX_CELLS];
        for (&b, &l) in board.0[..self.full.n_cells()].iter().zip(&left) {
            out[(b & TILE_MASK) as usize] = l;
        }
        Cells(out)
    }
}

/// Per cell `p` holding a tile turned by `turn`, the byte the inverse board has on that
/// tile's home: `p` turned by `e - turn` (0 for 0), `e` the cell's free modulus.
#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "avx2"))))]
fn inverse_bytes_scalar(board: &[u8; MAX_CELLS], free_mods: &[u8; MAX_CELLS]) -> [u8; MAX_CELLS] {
    std::array::from_fn(|p| {
        let (turn, e) = (board[p] >> TILE_BITS, free_mods[p]);
        debug_assert!(turn < e, "a reduced turn");
        // No division on this path of every neighbour.
        let back = if turn == 0 { 0 } else { e - turn };
        p as u8 | back << TILE_BITS
    })
}

/// [`inverse_bytes_scalar`] in a few vector instructions (the cells past `V`'s lanes are left
/// zero).
#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
#[inline(always)]
fn inverse_bytes<V: ByteLanes>(
    board: &[u8; MAX_CELLS],
    free_mods: &[u8; MAX_CELLS],
) -> [u8; MAX_CELLS] {
    const CELLS: [u8; MAX_CELLS] = {
        let mut cells = [0u8; MAX_CELLS];
        let mut p = 0;
        while p < MAX_CELLS {
            cells[p] = p as u8;
            p += 1;
        }
        cells
    };
    // 16-bit shifts move bits across bytes: the masks keep each byte's own.
    let turn =
        V::load(board).shift_right_16::<{ TILE_BITS as i32 }>().and(V::splat(0xff >> TILE_BITS));
    let back = turn.equals(V::splat(0)).and_not(V::load(free_mods).sub(turn));
    let back_bits = back.shift_left_16::<{ TILE_BITS as i32 }>().and(V::splat(!TILE_MASK));
    back_bits.or(V::load(&CELLS)).store()
}

/// A board without orientations conjugated by two shuffles: its tiles relabelled, then
/// moved to their cells' images.
#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
#[inline(always)]
fn relabel_and_move<V: ByteLanes>(
    relabel: &[u8; MAX_CELLS],
    from: &[u8; MAX_CELLS],
    board: &[u8; MAX_CELLS],
) -> [u8; MAX_CELLS] {
    V::load(relabel).shuffle(V::load(board)).shuffle(V::load(from)).store()
}

/// Chooses the key cells: whole orbits of cells under the symmetries, largest first (ties:
/// smallest cell), until the placements reach `min_placements`; an orbit is skipped if it
/// would leave fewer than two cells of an orbit of the moves, or make more than
/// [`MAX_PLACEMENTS`].
fn choose_key_cells(layout: &Layout, syms: &Symmetries, min_placements: u64) -> Vec<Vec<u8>> {
    let n = layout.n_cells();
    let orbits = layout.n_orbits();
    // The layout's orbits are the invariants', in order.
    let orbit_of = &layout.invariants().orbit_of;
    let mut seen = vec![false; n];
    let mut cell_orbits: Vec<Vec<u8>> = Vec::new();
    for p in 0..n {
        if seen[p] {
            continue;
        }
        let mut o: Vec<u8> = syms.elements.iter().map(|s| s.cells[p]).collect();
        o.sort_unstable();
        o.dedup();
        for &c in &o {
            seen[c as usize] = true;
        }
        cell_orbits.push(o);
    }
    cell_orbits.sort_by_key(|o| (std::cmp::Reverse(o.len()), o[0]));
    let sizes: Vec<usize> = (0..orbits).map(|j| layout.orbit_cells(j).len()).collect();
    let count = |key: &[Vec<u8>]| -> u64 {
        key.iter().zip(&sizes).map(|(k, &n)| falling(n, k.len())).product()
    };
    let mut key: Vec<Vec<u8>> = vec![Vec::new(); orbits];
    for o in cell_orbits {
        if count(&key) >= min_placements {
            break;
        }
        let mut trial = key.clone();
        for &c in &o {
            trial[orbit_of[c as usize] as usize].push(c);
        }
        let fits = trial.iter().zip(&sizes).all(|(k, &n)| k.is_empty() || k.len() + 2 <= n);
        if fits && count(&trial) <= MAX_PLACEMENTS {
            key = trial;
        }
    }
    key
}

/// Chooses key orbits for boards whose symmetries leave no key cells: sets of the layout's
/// orbits that the symmetries carry onto each other, most cells first (ties: first orbit),
/// each added if it makes more placements but at most `most`, until they reach
/// ten times `min_placements`: whole orbits keep no runs of rests, and the more placements,
/// the fewer a symmetry fixes (the tangram: its 3 inner edges with the 12 edges and corners
/// take 777,600 placements, 1.07x the boards over the group, and search 10% faster than
/// without them at 1.11x). None if they stay under both `min_placements` and
/// [`PLACEMENTS_PER_ELEMENT`] per element of the group and inversion (the classes would not
/// shrink the table by the group's order): the twins of whole orbits keep one entry per
/// class ([`CompactTwins`]), so fewer placements serve where the group leaves most of them
/// unfixed (233: its corners' 40,320 arrangements under 16 symmetries and inversion, 1.005x
/// the boards over 32, searched in 13 s where the 8 symmetries keeping 4 corners took 30 s).
fn choose_key_orbits(
    layout: &Layout,
    syms: &Symmetries,
    min_placements: u64,
    most: u64,
) -> Option<Vec<usize>> {
    let orbits = layout.n_orbits();
    // The layout's orbits are the invariants', in order.
    let orbit_of = &layout.invariants().orbit_of;
    // A symmetry carries orbits of the moves onto orbits: one cell of each tells where.
    let mut sets: Vec<Vec<usize>> = Vec::new();
    for j in 0..orbits {
        if sets.iter().any(|set| set.contains(&j)) {
            continue;
        }
        let first = layout.orbit_cells(j)[0] as usize;
        let mut set: Vec<usize> =
            syms.elements.iter().map(|s| orbit_of[s.cells[first] as usize] as usize).collect();
        set.sort_unstable();
        set.dedup();
        sets.push(set);
    }
    let cells = |set: &[usize]| set.iter().map(|&j| layout.orbit_cells(j).len()).sum::<usize>();
    sets.sort_by_key(|set| (std::cmp::Reverse(cells(set)), set[0]));
    let (mut key, mut placements) = (Vec::new(), 1);
    for set in sets {
        if placements >= min_placements.saturating_mul(10) {
            break;
        }
        let mut trial = key.clone();
        trial.extend(set);
        trial.sort_unstable();
        let count = OrbitSplit::new(layout, &trial).placements();
        if count > placements && count <= most {
            (key, placements) = (trial, count);
        }
    }
    let enough = min_placements.min(PLACEMENTS_PER_ELEMENT * syms.order_with(true) as u64);
    (placements >= enough).then_some(key)
}

/// Whether inversion can join the symmetries: the moves are closed under inverses (a board
/// and its inverse are then equally far from solved) and the elements still fit their bits.
fn inversion_fits(syms: &Symmetries) -> bool {
    syms.inverse_closed && syms.order_with(true) <= 1 << SYM_BITS
}

/// Whether the whole arrangement first, under all of `syms`, takes at most half the memory
/// of the classes under a subgroup of order `subgroup` (1: a table of boards), counting its
/// placement table (four bytes an arrangement): where every arrangement has many
/// orientations (the 3x3x3's edges: 2048 each, 4.8 GiB of classes and 1.8 GiB of
/// placements against 15.2 GiB under the 16 keeping four edges), not where it has few (the
/// dino cube's edges: one each, a 958 MB placement table against 4 MB of classes).
pub(super) fn large_arrangement_pays(
    full: &Layout,
    syms: &Symmetries,
    subgroup: usize,
    inversion: bool,
) -> bool {
    let arrangements = full.n_states() / full.orientation_count();
    let elements = syms.order_with(arrangement_inverts(full, syms, inversion));
    large_first_part_pays(full.n_states(), arrangements, elements, subgroup)
}

/// Whole orbits first past [`MAX_PLACEMENTS`] placements (at most
/// [`MAX_LARGE_ARRANGEMENTS`]), where they take at most half the memory of the classes
/// under a subgroup of order `subgroup`, as [`large_arrangement_pays`] weighs it.
fn large_key_orbits(
    full: &Layout,
    syms: &Symmetries,
    subgroup: usize,
    inversion: bool,
    min_placements: u64,
) -> Option<Vec<usize>> {
    let elements = syms.order_with(inversion && inversion_fits(syms));
    // Classifying up to 2^29 placements takes seconds to minutes: not for a table no
    // machine holds (Christopher's jewel: 5 TB of classes).
    if full.n_states() / elements as u64 / 4 > MAX_LARGE_TABLE_BYTES {
        return None;
    }
    let orbits = choose_key_orbits(full, syms, min_placements, MAX_LARGE_ARRANGEMENTS)?;
    let placements = OrbitSplit::new(full, &orbits).placements();
    large_first_part_pays(full.n_states(), placements, elements, subgroup).then_some(orbits)
}

/// Whether a first part of `placements` values (a placement table of four bytes each, at
/// most [`MAX_LARGE_ARRANGEMENTS`]) under `elements` elements takes at most half the memory
/// of `boards` in classes under a subgroup of order `subgroup`.
fn large_first_part_pays(boards: u64, placements: u64, elements: usize, subgroup: usize) -> bool {
    if placements > MAX_LARGE_ARRANGEMENTS {
        return false;
    }
    // At least placements/elements orbits, which must have names (`orbits::reduce`): half
    // the names at most leaves room for the placements that symmetries fix.
    if placements / elements as u64 > 1 << (32 - SYM_BITS - 1) {
        return false;
    }
    let (elements, boards) = (elements as f64, boards as f64);
    let whole = boards / elements / 4.0 + 4.0 * placements as f64;
    2.0 * whole <= boards / subgroup as f64 / 4.0
}

/// Whether classes with the whole arrangement first take inversion (where `inversion`
/// allows): the first part of `g^-1` (its permutations inverted, its sums negated) follows
/// from `g`'s. Inversion leaves no XOR runs of flips ([`ClassRanking::find_xor_runs`]); past
/// [`MAX_ARRANGEMENTS`] the runs are kept instead (the 3x3x3's edges: 20 billion classes
/// moved 2048 at a time, where half as many would be moved board by board).
fn arrangement_inverts(full: &Layout, syms: &Symmetries, inversion: bool) -> bool {
    let arrangements = full.n_states() / full.orientation_count();
    let runs_first = full.xor_block_bits().is_some() && arrangements > MAX_ARRANGEMENTS;
    inversion && inversion_fits(syms) && !runs_first
}

/// The most sets of key cells [`stabilizer_key_cells`] tries per size.
const MAX_KEY_SETS: u64 = 1 << 20;

/// Key cells for boards whose symmetries leave none (they carry every cell of an orbit of the
/// moves onto every other, as the dino cube's 48 do its 12 edges, whose 12! arrangements are
/// too many to be the first part): a set of cells of one orbit and the subgroup of the
/// symmetries that keep it as a set, the set chosen for the largest subgroup (ties: more
/// cells) among those with at most [`MAX_PLACEMENTS`] placements that leave two cells of
/// their orbit. None if no such subgroup has two elements.
fn stabilizer_key_cells(layout: &Layout, syms: &Symmetries) -> Option<(Symmetries, Vec<Vec<u8>>)> {
    let mut best: Option<(usize, usize, usize, Vec<u8>)> = None; // (order, size, orbit, set)
    for j in 0..layout.n_orbits() {
        let cells = layout.orbit_cells(j);
        let n = cells.len();
        for k in 1..n.saturating_sub(1) {
            if falling(n, k) > MAX_PLACEMENTS || binomial(n, k) > MAX_KEY_SETS {
                break;
            }
            for_each_subset(cells, k, |set| {
                let order = syms.elements.iter().filter(|s| keeps_set(s, set)).count();
                if best.as_ref().is_none_or(|b| (order, k) > (b.0, b.1)) {
                    best = Some((order, k, j, set.to_vec()));
                }
            });
        }
    }
    let (order, _, orbit, set) = best.filter(|b| b.0 >= 2)?;
    let subgroup = syms.subgroup(|s| keeps_set(s, &set));
    debug_assert_eq!(subgroup.order(), order);
    let mut key = vec![Vec::new(); layout.n_orbits()];
    key[orbit] = set;
    Some((subgroup, key))
}

/// Whether the symmetry maps the set of cells onto itself.
fn keeps_set(s: &Symmetry, set: &[u8]) -> bool {
    set.iter().all(|&c| set.contains(&s.cells[c as usize]))
}

/// `n` choose `k`, saturating.
fn binomial(n: usize, k: usize) -> u64 {
    (0..k).fold(1u64, |acc, i| acc.saturating_mul((n - i) as u64) / (i as u64 + 1))
}

/// Compiles a symmetry for boards in working form: per cell, a byte map taking (tile,
/// reduced orientation) to its image, as [`Symmetry::conjugate_board`] defines it.
fn conjugation(
    layout: &Layout,
    s: &Symmetry,
    bytes: &mut Vec<u8>,
    shared: &mut HashMap<Vec<u8>, u32>,
) -> Result<Conjugation> {
    let inv = layout.invariants();
    let k = inv.orient_mod;
    let n = layout.n_cells();
    let mut to = [0u8; MAX_CELLS];
    let mut map = [0u32; MAX_CELLS];
    for p in 0..n {
        let orbit = &inv.orbits[inv.orbit_of[p] as usize];
        let p2 = s.cells[p] as usize;
        let orbit2 = &inv.orbits[inv.orbit_of[p2] as usize];
        let mut bytemap = vec![0u8; 256];
        for &t in &orbit.cells {
            let t2 = s.cells[t as usize];
            for u in 0..orbit.free_mod {
                let o =
                    orient_sum(k, u * orbit.tied_mod, inv.potential[p], inv.potential[t as usize]);
                let o2 = s.turn_at(o, p, t as usize, k);
                let raw = orient_sum(k, o2, inv.potential[t2 as usize], inv.potential[p2]);
                if !raw.is_multiple_of(orbit2.tied_mod) {
                    return Err(Error::Unsupported(format!(
                        "{} does not keep the orientations the moves allow",
                        s.name
                    )));
                }
                let u2 = (raw / orbit2.tied_mod) % orbit2.free_mod;
                bytemap[(t | u << 5) as usize] = t2 | u2 << 5;
            }
        }
        let next = bytes.len() as u32;
        let at = *shared.entry(bytemap.clone()).or_insert_with(|| {
            bytes.extend_from_slice(&bytemap);
            next
        });
        to[p] = p2 as u8;
        map[p] = at;
    }
    let shuffles = inv.orbits.iter().all(|o| o.free_mod == 1).then(|| {
        let mut relabel = [0u8; MAX_CELLS];
        let mut from = [0x80u8; MAX_CELLS];
        for p in 0..n {
            // Without orientation a tile's byte is the tile, and tile `p` belongs to the
            // orbit of cell `p`, whose map relabels it.
            relabel[p] = bytes[map[p] as usize + p];
            from[to[p] as usize] = p as u8;
        }
        (relabel, from)
    });
    let twists = shuffles.is_none().then(|| {
        let orbit = |p: usize| &inv.orbits[inv.orbit_of[p] as usize];
        let maps = ByteMaps { to: &to, map: &map, bytes };
        TwistShuffle::fit(n, &maps, |p| &orbit(p).cells, |p| orbit(p).free_mod)
    });
    Ok(Conjugation { to, map, shuffles, twists: twists.flatten() })
}

impl StateRanking for ClassRanking {
    type State = Cells;
    fn n_states(&self) -> u64 {
        self.n_states
    }
    fn n_moves(&self) -> usize {
        self.full.moves().len()
    }
    #[inline(always)]
    fn rank(&self, s: &Cells) -> u64 {
        self.entry(s)
    }
    /// The placements first, each code asked of the cache (and before them, where the
    /// placement is an index among the reachable values, each value's bits), then the
    /// entries: the mastermorphix's codes take 21 MB, read at random.
    #[inline(always)]
    fn rank_all(&self, states: &[Cells], out: &mut [u64]) {
        if let Rest::Orientations = self.rest {
            for (s, u) in states.iter().zip(out.iter_mut()) {
                *u = self.full.board_upper(s);
                self.full.prefetch_index_of_upper(*u);
            }
            for u in out.iter_mut() {
                *u = self.full.index_of_upper(*u);
            }
        } else {
            for (s, p) in states.iter().zip(out.iter_mut()) {
                *p = self.placement_of(s);
            }
        }
        for &p in out.iter() {
            crate::table::prefetch_at(self.placement.as_ptr().wrapping_add(p as usize));
        }
        for (s, r) in states.iter().zip(out) {
            *r = self.entry_and_map_at(s, *r).0;
        }
    }
    #[inline(always)]
    fn unrank(&self, rank: u64) -> Cells {
        self.entry_board(rank)
    }
    #[inline(always)]
    fn solve_step(&self, s: &Cells, m: usize) -> Cells {
        self.full.moves().solve_step(s, m)
    }
    #[inline(always)]
    fn scramble_step(&self, s: &Cells, m: usize) -> Cells {
        self.full.moves().scramble_step(s, m)
    }
    fn xor_block_bits(&self) -> Option<u32> {
        self.xor_bits
    }
    #[inline(always)]
    fn rank_in_runs(&self, s: &Cells) -> (u64, usize) {
        ClassRanking::rank_in_runs(self, s)
    }
    fn offset_map(&self, id: usize, into: &mut OffsetMap) {
        ClassRanking::offset_map(self, id, into)
    }
    #[inline(always)]
    fn inverse_in_runs(&self, s: &Cells) -> Option<(Cells, usize)> {
        self.inversion.then(|| {
            // Element `order` is inversion alone: its map sends tile t's flip to tile c.
            // Only XOR runs read it (the first part's arrangement is every tile's then).
            let map = match self.xor_bits {
                Some(_) => (self.packed_digits(s) as usize) << SYM_BITS | self.syms.order(),
                None => 0,
            };
            (self.invert_cells(s), map)
        })
    }
    fn cell_runs(&self) -> Option<&CellRuns> {
        match &self.rest {
            Rest::Layout(rest) => rest.cell_runs(),
            Rest::Turns(_) | Rest::Orientations | Rest::Orbits(_) => None,
        }
    }
    fn run_parity(&self, base: &Cells) -> usize {
        match &self.rest {
            Rest::Layout(rest) => rest.run_parity(base),
            Rest::Turns(_) | Rest::Orientations | Rest::Orbits(_) => 0,
        }
    }
    fn unrank_in_run(&self, bases: &[Cells], parity: usize, offset: u64) -> Cells {
        match &self.rest {
            Rest::Layout(rest) => rest.unrank_in_run(bases, parity, offset),
            Rest::Turns(_) | Rest::Orientations | Rest::Orbits(_) => {
                unreachable!("a ranking without cell runs")
            }
        }
    }
    fn class_ranking(&self) -> Option<&dyn EntryClasses> {
        Some(self)
    }
}

impl EntryClasses for ClassRanking {
    fn order(&self) -> u64 {
        ClassRanking::order(self)
    }
    fn inverts(&self) -> bool {
        ClassRanking::inverts(self)
    }
    fn deal_unit(&self) -> u64 {
        ClassRanking::deal_unit(self)
    }
    fn complete_level_in(
        &self,
        table: &DistanceTable,
        local: &(dyn Fn(u64) -> Option<u64> + Sync),
        mark: u8,
        mark_twins: bool,
        small_level: bool,
    ) -> (Level, u64) {
        ClassRanking::complete_level_in(self, table, local, mark, mark_twins, small_level)
    }
}

#[cfg(all(test, target_arch = "x86_64", target_feature = "avx2"))]
mod inverse_tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn inverse_bytes_agree_with_the_scalar_reference(
            seed in prop::array::uniform32(any::<u8>()),
            mods in prop::array::uniform32(1u8..8),
        ) {
            // Reduced turns: below each cell's modulus, tiles anywhere in 0..32.
            let board: [u8; MAX_CELLS] = std::array::from_fn(|p| {
                (seed[p] & TILE_MASK) | ((seed[p] >> TILE_BITS) % mods[p]) << TILE_BITS
            });
            let scalar = inverse_bytes_scalar(&board, &mods);
            prop_assert_eq!(inverse_bytes::<Lanes32>(&board, &mods), scalar);
            // Sixteen lanes: the first 16 cells' bytes.
            let mut first = scalar;
            first[16..].fill(0);
            prop_assert_eq!(inverse_bytes::<Lanes16>(&board, &mods), first);
        }
    }
}
