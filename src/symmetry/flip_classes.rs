//! Classes of boards with identical pieces whose orientation is not seen, under the puzzle's
//! symmetries, on the multiset ranking's XOR runs: the 3x3x3 with some edges named and the
//! others alike and written `?` (the U and D layers' edges, a cross, F2L pairs).
//!
//! Such boards have no per-move digit tables ([`super::CoordClasses`]): the named pieces'
//! flips are digits by piece, and a move changes them by where the pieces stand. They are a
//! rank's last `k` bits, a run of `2^k` ranks that every move carries onto another run by
//! XOR ([`Multiset::xor_block_bits`]). A symmetry carries them linearly too: piece `L`
//! flipped `f` on cell `c` becomes piece `L'` flipped `f + t(c, L)` on the image cell, so the
//! image's flips are `A x ^ c`, where `A` takes `L`'s bit to `L'`'s (one map per element)
//! and `c` depends on the rank above the flips alone (where the pieces stand).
//!
//! An entry is `(class of the upper part, flips)`: the upper part (the rank above the flips:
//! the arrangement and any other orientations) is classified orbit by orbit
//! ([`super::orbits::reduce`]), and the flips are those of the board carried by the element
//! taking its upper part to the class's representative. A search walks XOR runs with that
//! element's `A` as the run's offset map ([`OffsetMap`]), as [`super::ClassRanking`] walks
//! Spinpossible's flips. Entries of a representative that an element `h` fixes are one
//! class with their `h`-images: a forward step marks the others after it
//! ([`EntryClasses`]), and each entry counts `|G| / |H|` boards.

use rayon::prelude::*;

use super::coord_classes::{ByteMaps, byte_maps, commutes_cell_by_cell};
use super::entry_classes::{EntryClasses, TwinBlocks};
use super::orbits::{self, ElementSet, Reduced};
use super::{CoordClasses, MoveIndex, Symmetries};
use crate::bfs::Level;
use crate::puzzle::{Board, Puzzle};
use crate::rank::layout::{MAX_CELLS, TILE_BITS, TILE_MASK};
use crate::rank::{Cells, Multiset, StateRanking, spread_sample};
use crate::table::{DistanceTable, OffsetMap};
use crate::{Error, Result};

/// Bits of a class table entry that name the element (at most 64: a cube's 48).
const ELEMENT_BITS: u32 = 6;
/// The most upper parts: the class table holds four bytes each (256 MiB at most), and a
/// class and its element share 32 bits.
pub const MAX_UPPER: u64 = 1 << (32 - ELEMENT_BITS);
/// Boards on which the elements' action on ranks is checked against their maps of flips.
const SAMPLES: u64 = 2048;

/// Classes of the boards of a multiset ranking whose last bits are flips (module docs).
#[derive(Debug)]
pub struct FlipClasses {
    multiset: Multiset,
    syms: Symmetries,
    /// Per element: where each cell goes, and the byte each byte becomes there.
    maps: Vec<ByteMaps>,
    n_cells: usize,
    /// Flips in a run: the rank's last `bits` bits.
    bits: u32,
    /// Per upper part: its class, shifted by [`ELEMENT_BITS`], and the element taking it to
    /// the class's representative.
    upper_class: Vec<u32>,
    /// Per class: its representative upper part.
    reps: Vec<u32>,
    /// Per element: its linear map `A` of the flips.
    offset_maps: Vec<OffsetMap>,
    /// Classes whose representative some element besides the identity fixes, with the set
    /// of those that do (bit `e`).
    twins: Vec<(u32, ElementSet)>,
    n_states: u64,
}

impl FlipClasses {
    /// The classes of `multiset`'s boards under `syms` (the puzzle's symmetries), or why
    /// there are none.
    pub fn new(puzzle: &Puzzle, multiset: Multiset, syms: Symmetries) -> Result<FlipClasses> {
        let refuse = |why: String| {
            Err(Error::Unsupported(format!(
                "no symmetry reduction for {}: {why}",
                puzzle.spec.named()
            )))
        };
        if let Some(why) = CoordClasses::refusal_of_group(&syms) {
            return refuse(why.into());
        }
        let Some(bits) = multiset.xor_block_bits() else {
            return refuse("its named pieces' flips make no runs of ranks".into());
        };
        if multiset.n_reachable() != multiset.n_states() {
            return refuse("its ranks hold more than its boards".into());
        }
        let uppers = multiset.n_states() >> bits;
        if uppers > MAX_UPPER {
            return refuse(format!(
                "{uppers} arrangements above the flips, more than a class table holds \
                 ({MAX_UPPER})"
            ));
        }
        let Some(maps) = byte_maps(puzzle, &multiset, &syms) else {
            return refuse(
                "a symmetry does not carry its identical pieces onto identical ones".into(),
            );
        };
        if !flips_go_to_flips(&multiset, &maps) {
            return refuse(
                "a symmetry does not carry the named pieces' flips onto named pieces' flips".into(),
            );
        }
        let index = MoveIndex::of(puzzle);
        let Some(images): Option<Vec<Vec<usize>>> =
            syms.elements.iter().map(|s| index.images(s)).collect()
        else {
            return refuse("a symmetry does not carry the moves onto moves".into());
        };
        if !commutes_cell_by_cell(puzzle, &multiset, &maps, &images) {
            return refuse("a symmetry's action on its boards does not follow the moves".into());
        }
        let n = puzzle.n_positions();
        let Some(offset_maps) = flip_maps(&multiset, &maps, n, bits) else {
            return refuse("a symmetry's map of the flips is not one to one".into());
        };
        if !acts_on_runs(&multiset, &maps, &offset_maps, n, bits) {
            return refuse("a symmetry does not carry runs of flips onto runs".into());
        }
        // The orbits of the upper parts, each reduced to its smallest member.
        let undo: Vec<u32> = (0..maps.len()).map(|e| syms.inverse_position(e) as u32).collect();
        let reduced = orbits::reduce(uppers as usize, &undo, ELEMENT_BITS, |u, out| {
            let board = multiset.unrank((u as u64) << bits);
            out[0] = u as u32;
            for (e, map) in maps.iter().enumerate().skip(1) {
                out[e] = (multiset.rank(&map.apply(&board, n)) >> bits) as u32;
                if (out[e] as usize) < u {
                    return false;
                }
            }
            true
        })
        .expect("no more orbits than members, which fit beside the element");
        let Reduced { placement: upper_class, representative: reps, twins } = reduced;
        let n_states = (reps.len() as u64) << bits;
        Ok(FlipClasses {
            multiset,
            syms,
            maps,
            n_cells: n,
            bits,
            upper_class,
            reps,
            offset_maps,
            twins,
            n_states,
        })
    }

    /// The entry of a board in working form, and the element taking it to its class.
    #[inline(always)]
    fn entry_and_element(&self, s: &Cells) -> (u64, usize) {
        let rank = self.multiset.rank(s);
        let packed = self.upper_class[(rank >> self.bits) as usize];
        let e = (packed & ((1 << ELEMENT_BITS) - 1)) as usize;
        let carried = match e {
            0 => rank,
            _ => self.multiset.rank(&self.maps[e].apply(s, self.n_cells)),
        };
        let flips = carried & ((1 << self.bits) - 1);
        (((packed >> ELEMENT_BITS) as u64) << self.bits | flips, e)
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

    /// Flips in a run: an entry's last bits.
    pub fn flip_bits(&self) -> u32 {
        self.bits
    }

    /// Classes of upper parts, and upper parts.
    pub fn upper_part_classes(&self) -> (u64, u64) {
        (self.reps.len() as u64, self.upper_class.len() as u64)
    }

    /// Classes of upper parts that an element besides the identity fixes.
    pub fn twin_classes(&self) -> usize {
        self.twins.len()
    }

    /// What the entries are, in words (also what table headers record of them).
    pub fn describe(&self) -> String {
        format!(
            "{} symmetries, the arrangement above the flips first, then {} flips",
            self.order(),
            self.bits
        )
    }

    /// The images of a board under every element.
    pub fn images(&self, board: &Board) -> Vec<Board> {
        let m = &self.multiset;
        let Ok(cells) = m.cells_of(board) else { return vec![board.clone()] };
        self.maps.iter().map(|map| m.board_of(&map.apply(&cells, self.n_cells))).collect()
    }

    /// The entry of a board, or why it is not reachable.
    pub fn entry_of_board(&self, board: &Board) -> Result<u64> {
        Ok(self.entry_and_element(&self.multiset.cells_of(board)?).0)
    }

    /// The representative board of an entry.
    pub fn board(&self, entry: u64) -> Board {
        self.multiset.board_of(&self.unrank(entry))
    }

    /// The number of classes of boards: entries, less the repeats of twin classes (each
    /// counted at the smallest of its entries).
    pub fn exact_classes(&self) -> u64 {
        self.n_states - self.twin_blocks().repeats()
    }

    /// The flips of twin classes, with their elements' images.
    fn twin_blocks(&self) -> TwinBlocks<'_, impl Fn(u32, usize, u64) -> u64 + Sync + '_> {
        let image = |class, h, flips| self.flips_image(class, h, flips);
        TwinBlocks { twins: &self.twins, len: 1 << self.bits, image }
    }

    /// The flips of the representative of `class` with flips `flips`, carried by element
    /// `h` (which fixes its upper part).
    fn flips_image(&self, class: u32, h: usize, flips: u64) -> u64 {
        let board = self.multiset.unrank((self.reps[class as usize] as u64) << self.bits | flips);
        self.multiset.rank(&self.maps[h].apply(&board, self.n_cells)) & ((1 << self.bits) - 1)
    }
}

/// Whether every element carries the cells of the flips' orbit onto themselves, each named
/// piece onto a named piece with its flip kept or changed whatever it is, and each piece
/// whose orientation is not seen onto such a piece: then a board's image has flips `A x ^ c`,
/// `A` a permutation of the bits and `c` and the rest of its rank a function of the rank
/// above the flips alone (the module docs). Read off the maps byte by byte: exact.
fn flips_go_to_flips(multiset: &Multiset, maps: &[ByteMaps]) -> bool {
    let Some(cells) = multiset.xor_block_cells() else { return false };
    let flip = 1u8 << TILE_BITS;
    maps.iter().all(|map| {
        cells.iter().all(|&p| {
            let (p, q) = (p as usize, map.cell_image(p as usize));
            let mut labels = (0..MAX_CELLS as u8).filter(|&l| multiset.piece_on(p, l).is_some());
            cells.contains(&(q as u8))
                && labels.all(|l| {
                    let (b0, b1) = (map.byte_image(p, l), map.byte_image(p, l | flip));
                    let image = b0 & TILE_MASK;
                    match multiset.orientation_seen(p, l) {
                        true => b1 == b0 ^ flip && multiset.orientation_seen(q, image),
                        false => !multiset.orientation_seen(q, image),
                    }
                })
        })
    })
}

/// Per element, its linear map of the flips: column `i` is what the element adds to the
/// flips of a board when bit `i` of them is set (on the board of rank 0), or `None` when the
/// columns are not independent.
fn flip_maps(
    multiset: &Multiset,
    maps: &[ByteMaps],
    n: usize,
    bits: u32,
) -> Option<Vec<OffsetMap>> {
    let mask = (1u64 << bits) - 1;
    maps.iter()
        .map(|map| {
            let carried = |rank: u64| multiset.rank(&map.apply(&multiset.unrank(rank), n));
            let base = carried(0);
            let columns: Vec<u64> = (0..bits).map(|i| (carried(1 << i) ^ base) & mask).collect();
            OffsetMap::from_columns(&columns)
        })
        .collect()
}

/// Whether, on a spread of boards and flips `x`, every element carries the board with `x`
/// added to its flips to the image of the board with `A x` added: the run's structure that
/// the search relies on, checked on ranks (the claim [`flips_go_to_flips`] proves).
fn acts_on_runs(
    multiset: &Multiset,
    maps: &[ByteMaps],
    offset_maps: &[OffsetMap],
    n: usize,
    bits: u32,
) -> bool {
    let n_states = multiset.n_states();
    (0..SAMPLES.min(n_states)).into_par_iter().all(|i| {
        let rank = spread_sample(i, n_states);
        let x = spread_sample(i + SAMPLES, 1 << bits);
        let (board, moved) = (multiset.unrank(rank), multiset.unrank(rank ^ x));
        maps.iter().zip(offset_maps).all(|(map, a)| {
            let image = multiset.rank(&map.apply(&board, n));
            multiset.rank(&map.apply(&moved, n)) == image ^ a.apply(x)
        })
    })
}

impl StateRanking for FlipClasses {
    type State = Cells;
    fn n_states(&self) -> u64 {
        self.n_states
    }
    fn n_moves(&self) -> usize {
        self.multiset.moves().len()
    }
    #[inline(always)]
    fn rank(&self, s: &Cells) -> u64 {
        self.entry_and_element(s).0
    }
    #[inline(always)]
    fn unrank(&self, entry: u64) -> Cells {
        let (class, flips) = (entry >> self.bits, entry & ((1 << self.bits) - 1));
        self.multiset.unrank((self.reps[class as usize] as u64) << self.bits | flips)
    }
    #[inline(always)]
    fn solve_step(&self, s: &Cells, m: usize) -> Cells {
        self.multiset.moves().solve_step(s, m)
    }
    #[inline(always)]
    fn scramble_step(&self, s: &Cells, m: usize) -> Cells {
        self.multiset.moves().scramble_step(s, m)
    }
    fn xor_block_bits(&self) -> Option<u32> {
        Some(self.bits)
    }
    #[inline(always)]
    fn rank_in_runs(&self, s: &Cells) -> (u64, usize) {
        self.entry_and_element(s)
    }
    fn offset_map(&self, id: usize, into: &mut OffsetMap) {
        into.clone_from(&self.offset_maps[id]);
    }
    fn class_ranking(&self) -> Option<&dyn EntryClasses> {
        Some(self)
    }
}

impl EntryClasses for FlipClasses {
    fn order(&self) -> u64 {
        FlipClasses::order(self)
    }
    fn inverts(&self) -> bool {
        false
    }
    fn deal_unit(&self) -> u64 {
        1 << self.bits
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
mod tests {
    use super::*;
    use crate::bfs::{Config, Direction, NoProgress, search_puzzle};
    use crate::puzzle::{Metric, PuzzleSpec, defined::Defined, definition::Definition};
    use crate::rank::{Ranking, StateSpace, SymmetryMode};
    use crate::symmetry::coord_classes::tests::image;
    use std::collections::HashSet;
    use std::sync::Arc;

    /// data/definitions/flip_ring.tws: eight edges in a ring, six named and two alike whose
    /// flips are not seen, 8!/2 arrangements times 2^6 flips, one map besides the identity.
    const FLIP_RING: &str = include_str!("../../data/definitions/flip_ring.tws");

    fn ring() -> Puzzle {
        let d = Defined::new("ring.tws", Definition::parse(FLIP_RING).unwrap()).unwrap();
        Puzzle::new(&PuzzleSpec::Def(Arc::new(d)), Metric::Htm).unwrap()
    }

    /// The ring's classes: every board's entry holds a board of its class, the entries are
    /// the classes worked out on boards (the least rank of each board's images, each image
    /// made on the board itself) plus the twins `exact_classes` counts once, and a search of
    /// the classes by XOR runs, forward, backward or either, gives the histogram of the
    /// boards searched one by one.
    #[test]
    fn classes_of_named_flips_count_as_their_boards() {
        let p = ring();
        let boards = StateSpace::for_search(&p, SymmetryMode::Off, false).unwrap();
        let Ranking::Multiset(m) = &boards.ranking else { panic!("a multiset ranking") };
        assert_eq!((m.n_states(), m.xor_block_bits()), (1_290_240, Some(6)));
        let space = StateSpace::for_search(&p, SymmetryMode::Auto, false).unwrap();
        let Ranking::FlipClasses(c) = &space.ranking else { panic!("classes of flips") };
        assert_eq!((c.order(), c.upper_part_classes()), (2, (10_176, 20_160)));
        assert_eq!(c.n_states(), 10_176 * 64);
        let elements = &c.symmetries().elements;
        let mut classes = HashSet::new();
        for rank in 0..m.n_states() {
            let board = m.board_of(&m.unrank(rank));
            let images: Vec<u64> = (elements.iter())
                .map(|s| m.rank(&m.cells_of(&image(&p, s, &board)).unwrap()))
                .collect();
            classes.insert(*images.iter().min().unwrap());
            if rank % 61 == 0 {
                let entry = c.entry_of_board(&board).unwrap();
                let rep = m.rank(&m.cells_of(&c.board(entry)).unwrap());
                assert!(images.contains(&rep), "board {rank}: entry {entry} holds another class");
            }
        }
        // Burnside: (1,290,240 boards + 1,536 that the map keeps) / 2.
        assert_eq!(classes.len(), 645_888);
        assert_eq!(c.exact_classes(), 645_888);
        let search = |space: &StateSpace, direction: Option<Direction>| {
            let table = DistanceTable::in_memory(space.n_states()).unwrap();
            let config = Config { direction, ..Config::new(2) };
            let out = search_puzzle(&p, space, &table, &config, &NoProgress).unwrap();
            out.board_histogram().to_vec()
        };
        let by_boards = search(&boards, None);
        assert_eq!((by_boards.len(), by_boards.iter().sum::<u64>()), (43, 1_290_240));
        for direction in [None, Some(Direction::Forward), Some(Direction::Backward)] {
            assert_eq!(search(&space, direction), by_boards, "{direction:?}");
        }
    }

    /// Each element's map of the flips is the one its maps of bytes give, and moving a
    /// board's flips by `x` moves its image's by `A x` on every board of the ring.
    #[test]
    fn elements_carry_runs_of_flips_onto_runs() {
        let p = ring();
        let Ranking::Multiset(m) = StateSpace::build(&p).unwrap().ranking else { panic!() };
        let syms = crate::symmetry::Symmetries::of(&p);
        let maps = byte_maps(&p, &m, &syms).unwrap();
        assert!(flips_go_to_flips(&m, &maps));
        let a = flip_maps(&m, &maps, 8, 6).unwrap();
        assert!(a[0].is_identity() && !a[1].is_identity());
        for rank in (0..m.n_states()).step_by(7) {
            let image = |r: u64| m.rank(&maps[1].apply(&m.unrank(r), 8));
            for x in [1, 6, 33, 63] {
                assert_eq!(image(rank ^ x), image(rank) ^ a[1].apply(x), "rank {rank}, x {x}");
            }
        }
    }
}
