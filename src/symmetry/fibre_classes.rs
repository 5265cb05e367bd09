//! Classes under the puzzle's symmetries of boards ranked by a projection and its fibres
//! ([`FibreRanking`]): identical pieces in a group smaller than its invariants (the 235
//! cuboid, the trapentrix).
//!
//! A symmetry that keeps the moves and the solved board carries a board to one as far from
//! solved, its pieces relabelled as their homes' images are ([`PieceImages`]). Where every
//! symmetry carries each inner orbit (the fibre's cells) onto an inner orbit, its action on
//! a state is a map of the reached projections and, per inner orbit, a table of values. An
//! entry is `(class of the projection, place in the fibre)`:
//! - each reached projection `a` has a class, whose representative `r` is the smallest index
//!   among its images, and an element `e_a` taking `a` to `r`;
//! - a board `(a, c)` is carried by `e_a` to `(r, e_a c)`, whose place in the fibre over `r`
//!   is the entry's second part.
//!
//! Over a representative that elements `H` fix (a "twin" class), places `x` and `h x` for
//! `h` in `H` hold one class of boards: such a class keeps one entry per orbit of its places
//! under `H` ([`CompactTwins`]), which stands for `|G| · |H x| / |H|` boards: so entries
//! are classes of boards, and histograms in boards are exact. Boards are walked one by one
//! (no runs): the fibres' offset tables composed with the elements would take more memory
//! than the classes save.

use rayon::prelude::*;

use super::entry_classes::{EntryClasses, others};
use super::orbits::ElementSet;
use super::twins::{CompactTwins, MAX_TWIN_RESTS};
use super::{MoveIndex, PieceImages, Symmetries};
use crate::bfs::Level;
use crate::puzzle::{Board, Puzzle};
use crate::rank::fibres::{FibreState, MAX_INNER};
use crate::rank::{FibreRanking, StateRanking, spread_sample};
use crate::table::DistanceTable;
use crate::{Error, Result};

/// An element's index takes the low bits of a projection's class entry.
const ELEMENT_BITS: u32 = 8;
const ELEMENT_MASK: u32 = (1 << ELEMENT_BITS) - 1;
/// Most images of boards worked out to find the projections' classes (each a board built,
/// mapped and read: about a microsecond).
const MAX_PROJECTION_IMAGES: u64 = 1 << 23;
/// Most entries of the elements' tables of inner values.
const MAX_VALUE_TABLES: u64 = 1 << 24;
/// States on which the elements' action is checked against boards and moves.
const SAMPLES: u64 = 1024;

/// Classes of the boards of a [`FibreRanking`] (module docs).
#[derive(Debug)]
pub struct FibreClasses {
    fibres: FibreRanking,
    syms: Symmetries,
    /// Per reached projection: its class, shifted by [`ELEMENT_BITS`], and the element
    /// taking it to the class's representative.
    class_of: Vec<u32>,
    /// Per class: its representative projection.
    reps: Vec<u32>,
    /// Per element: its action on inner values.
    actions: Vec<InnerAction>,
    /// Per element: its action on boards.
    images: Vec<PieceImages>,
    /// Classes whose representative some element besides the identity fixes, with the set
    /// of those that do (bit `e`).
    twins: Vec<(u32, ElementSet)>,
    /// Where each class's entries start; a twin class's are one per orbit of its places.
    entries: CompactTwins,
    fibre_len: u64,
}

/// One element's action on the inner orbits' values.
#[derive(Debug)]
struct InnerAction {
    /// `to[k]`: the inner orbit onto which the `k`-th one's cells go.
    to: [usize; MAX_INNER],
    /// `values[start[k] + v]`: the image of value `v` of the `k`-th inner orbit.
    start: [usize; MAX_INNER],
    values: Vec<u32>,
    orbits: usize,
}

impl InnerAction {
    #[inline(always)]
    fn apply(&self, inner: &[u32; MAX_INNER]) -> [u32; MAX_INNER] {
        let mut out = [0u32; MAX_INNER];
        for k in 0..self.orbits {
            out[self.to[k]] = self.values[self.start[k] + inner[k] as usize];
        }
        out
    }
}

impl FibreClasses {
    /// The classes of `fibres`' boards under `syms` (the puzzle's symmetries), or why there
    /// are none.
    pub fn new(puzzle: &Puzzle, fibres: FibreRanking, syms: Symmetries) -> Result<FibreClasses> {
        let refuse = |why: String| {
            Err(Error::Unsupported(format!(
                "no symmetry reduction for {}: {why}",
                puzzle.spec.named()
            )))
        };
        match syms.order() {
            0 | 1 => {
                return refuse("it has no symmetry that keeps its moves and solved state".into());
            }
            o if o > ElementSet::BITS as usize => {
                return refuse(format!("{o} symmetries, more than {}", ElementSet::BITS));
            }
            _ => {}
        }
        let solved = puzzle.solved();
        let Some(images): Option<Vec<PieceImages>> =
            (syms.elements.iter()).map(|s| PieceImages::new(s, &solved, syms.orient_mod)).collect()
        else {
            return refuse(
                "a symmetry does not carry its identical pieces onto identical ones".into(),
            );
        };
        let n_projections = fibres.n_projections();
        if n_projections.saturating_mul(images.len() as u64) > MAX_PROJECTION_IMAGES {
            return refuse(format!(
                "{n_projections} projections under {} symmetries: more than {MAX_PROJECTION_IMAGES} \
                 images to work out",
                images.len()
            ));
        }
        let Ok(base) = fibres.state_of(&solved) else {
            return refuse("its solved board is not one of its ranked boards".into());
        };
        let actions = match inner_actions(&fibres, &syms, &images, &base) {
            Ok(actions) => actions,
            Err(why) => return refuse(why),
        };
        // Every reached projection's images: the smallest is its class's representative,
        // and the elements that fix a representative its stabilizer.
        let fibre_len = fibres.fibre_len();
        let smallest: Option<Vec<(u32, u32, ElementSet)>> = (0..n_projections as u32)
            .into_par_iter()
            .map(|a| {
                let board = fibres.board_of(&fibres.unrank(a as u64 * fibre_len));
                let (mut best, mut by, mut fixed) = (a, 0u32, 1 as ElementSet);
                for (e, map) in images.iter().enumerate().skip(1) {
                    let image = map.apply(&board).and_then(|b| fibres.coordinates_of(&b).ok());
                    let x = image.and_then(|(key, _)| fibres.projection_index(key))?;
                    if x < best {
                        (best, by) = (x, e as u32);
                    }
                    if x == a {
                        fixed |= 1 << e;
                    }
                }
                Some((best, by, fixed))
            })
            .collect();
        let Some(smallest) = smallest else {
            return refuse("a symmetry carries a board the moves reach to one they do not".into());
        };
        let reps: Vec<u32> =
            (0..n_projections as u32).filter(|&a| smallest[a as usize].0 == a).collect();
        let twins = (reps.iter().enumerate())
            .filter(|&(_, &a)| smallest[a as usize].2 != 1)
            .map(|(c, &a)| (c as u32, smallest[a as usize].2))
            .collect();
        // A smallest image that is not its own smallest: the maps are no group action.
        let class_of: Option<Vec<u32>> = (smallest.iter())
            .map(|&(best, by, _)| {
                let class = reps.binary_search(&best).ok()? as u32;
                Some(class << ELEMENT_BITS | by)
            })
            .collect();
        let Some(class_of) = class_of else {
            return refuse("its symmetries' maps of its projections do not form a group".into());
        };
        if fibre_len > MAX_TWIN_RESTS {
            return refuse(format!(
                "fibres of {fibre_len} boards, more than the {MAX_TWIN_RESTS} the tables of \
                 their orbits take"
            ));
        }
        let mut classes = FibreClasses {
            fibres,
            syms,
            class_of,
            reps,
            actions,
            twins,
            // Set below, once the elements' tables are checked.
            entries: CompactTwins::new(0, fibre_len, &[], |_, _, _, _| {}),
            images,
            fibre_len,
        };
        if let Err(why) = classes.check_action(puzzle) {
            return refuse(why);
        }
        // The twins' orbits come from the elements' tables, now checked.
        let entries = CompactTwins::new(
            classes.reps.len(),
            fibre_len,
            &classes.twins,
            |class, fixed, x, out| {
                // The identity (element 0) keeps the place.
                out.push(x as u32);
                out.extend(others(fixed).map(|h| classes.twin_place(class, h, x) as u32));
            },
        );
        classes.entries = entries;
        Ok(classes)
    }

    /// Whether, on a spread of states, each element's tables give the board's image read
    /// back, on the fibre over its projection, and moved by the conjugate of a move as the
    /// image of the board moved (so images are as far from solved as their boards).
    fn check_action(&self, puzzle: &Puzzle) -> std::result::Result<(), String> {
        let f = &self.fibres;
        let index = MoveIndex::of(puzzle);
        let conjugates: Vec<Vec<usize>> = (self.syms.elements.iter())
            .map(|s| index.images(s))
            .collect::<Option<_>>()
            .ok_or("a symmetry does not keep the move set")?;
        let n_boards = f.n_states();
        let all = (0..SAMPLES.min(n_boards)).into_par_iter().all(|i| {
            let s = f.unrank(spread_sample(i, n_boards));
            let board = f.board_of(&s);
            self.images.iter().zip(&conjugates).enumerate().all(|(e, (map, conjugate))| {
                let image = self.image(e, &s, map, &board);
                image.is_some_and(|image| {
                    (0..f.n_moves()).all(|m| {
                        let moved = f.solve_step(&s, m);
                        let a = self.image(e, &moved, map, &f.board_of(&moved));
                        a == Some(f.solve_step(&image, conjugate[m]))
                    })
                })
            })
        });
        match all {
            true => Ok(()),
            false => Err("a symmetry's action on its boards does not follow the moves".into()),
        }
    }

    /// The image of state `s` (whose board is `board`) under element `e`, worked out on the
    /// board and by the tables; `None` unless both agree on a board over a reached projection.
    fn image(
        &self,
        e: usize,
        s: &FibreState,
        map: &PieceImages,
        board: &Board,
    ) -> Option<FibreState> {
        let (key, inner) = self.fibres.coordinates_of(&map.apply(board)?).ok()?;
        let image = FibreState { outer: self.fibres.projection_index(key)?, inner };
        let by_tables = self.actions[e].apply(&s.inner);
        (by_tables == inner && self.fibres.place(&image).is_some()).then_some(image)
    }

    /// The entry of a state.
    #[inline(always)]
    fn entry(&self, s: &FibreState) -> u64 {
        let packed = self.class_of[s.outer as usize];
        let (class, e) = (packed >> ELEMENT_BITS, (packed & ELEMENT_MASK) as usize);
        let rep = FibreState {
            outer: self.reps[class as usize],
            inner: match e {
                0 => s.inner,
                _ => self.actions[e].apply(&s.inner),
            },
        };
        let place = self.fibres.place(&rep);
        debug_assert!(place.is_some(), "an image off the fibre");
        self.entries.entry(class, place.unwrap_or(0))
    }

    /// The place over a twin class's representative of the board at `place` there carried
    /// by element `h` (one that fixes the representative).
    fn twin_place(&self, class: u32, h: usize, place: u64) -> u64 {
        let rep = self.reps[class as usize] as u64;
        let s = self.fibres.unrank(rep * self.fibre_len + place);
        let image = FibreState { outer: s.outer, inner: self.actions[h].apply(&s.inner) };
        self.fibres.place(&image).expect("an element fixing a projection keeps its fibre")
    }

    /// The boards the classes hold.
    pub fn n_boards(&self) -> u64 {
        self.fibres.n_states()
    }

    /// The order of the group.
    pub fn order(&self) -> u64 {
        self.actions.len() as u64
    }

    /// The symmetries.
    pub fn symmetries(&self) -> &Symmetries {
        &self.syms
    }

    /// Classes of projections, and projections.
    pub fn projection_classes(&self) -> (u64, u64) {
        (self.reps.len() as u64, self.class_of.len() as u64)
    }

    /// Classes of projections that an element besides the identity fixes.
    pub fn twin_classes(&self) -> usize {
        self.twins.len()
    }

    /// The ranking of the boards.
    pub fn fibres(&self) -> &FibreRanking {
        &self.fibres
    }

    /// The distinct tables of the twin classes' orbits and the bytes they take.
    pub fn twin_tables(&self) -> (usize, u64) {
        self.entries.footprint()
    }

    /// What the entries are, in words (table headers record it).
    pub fn describe(&self) -> String {
        format!(
            "{} symmetries, {} classes of {} projections, then the fibre's {} places, twin \
             classes' one per orbit",
            self.order(),
            self.reps.len(),
            self.class_of.len(),
            self.fibre_len
        )
    }

    /// The images of a board under every element.
    pub fn images(&self, board: &Board) -> Vec<Board> {
        (self.images.iter()).map(|map| map.apply(board).unwrap_or_else(|| board.clone())).collect()
    }

    /// The entry of a board, or why it is not reachable.
    pub fn entry_of_board(&self, board: &Board) -> Result<u64> {
        Ok(self.entry(&self.fibres.state_of(board)?))
    }

    /// The representative board of an entry.
    pub fn board(&self, entry: u64) -> Board {
        self.fibres.board_of(&self.unrank(entry))
    }

    /// The number of classes of boards: one per entry.
    pub fn exact_classes(&self) -> u64 {
        self.entries.n_entries()
    }
}

/// Per element, its tables of the inner orbits' values (each inner orbit's cells must go
/// onto an inner orbit's), made from boards: `base` with one orbit's value changed, mapped
/// and read back.
fn inner_actions(
    fibres: &FibreRanking,
    syms: &Symmetries,
    images: &[PieceImages],
    base: &FibreState,
) -> std::result::Result<Vec<InnerAction>, String> {
    let cells = fibres.inner_orbit_cells();
    let sizes = fibres.inner_orbit_sizes();
    let entries = sizes.iter().sum::<u64>().saturating_mul(images.len() as u64);
    if entries > MAX_VALUE_TABLES {
        return Err(format!(
            "the elements' tables of the fibre's values would take {entries} entries, more than \
             {MAX_VALUE_TABLES}"
        ));
    }
    let mut sorted: Vec<Vec<u8>> = cells.clone();
    sorted.iter_mut().for_each(|c| c.sort_unstable());
    (syms.elements.iter().zip(images))
        .map(|(s, map)| {
            let mut action = InnerAction {
                to: [0; MAX_INNER],
                start: [0; MAX_INNER],
                values: Vec::new(),
                orbits: cells.len(),
            };
            for (k, orbit) in cells.iter().enumerate() {
                let mut image: Vec<u8> = orbit.iter().map(|&c| s.cells[c as usize]).collect();
                image.sort_unstable();
                let to = sorted.iter().position(|o| *o == image).ok_or(
                    "a symmetry carries cells of the fibre onto cells of the projection"
                        .to_string(),
                )?;
                action.to[k] = to;
                action.start[k] = action.values.len();
                let values: Option<Vec<u32>> = (0..sizes[k] as u32)
                    .into_par_iter()
                    .map(|v| {
                        let mut s = *base;
                        s.inner[k] = v;
                        let board = map.apply(&fibres.board_of(&s))?;
                        fibres.coordinates_of(&board).ok().map(|(_, inner)| inner[to])
                    })
                    .collect();
                action.values.extend(values.ok_or("a symmetry's image of a board is no board")?);
            }
            Ok(action)
        })
        .collect()
}

impl StateRanking for FibreClasses {
    type State = FibreState;
    fn n_states(&self) -> u64 {
        self.entries.n_entries()
    }
    fn n_moves(&self) -> usize {
        self.fibres.n_moves()
    }
    #[inline(always)]
    fn rank(&self, s: &FibreState) -> u64 {
        self.entry(s)
    }
    #[inline(always)]
    fn unrank(&self, entry: u64) -> FibreState {
        let (class, place) = self.entries.class_and_rest(entry);
        self.fibres.unrank(self.reps[class as usize] as u64 * self.fibre_len + place)
    }
    #[inline(always)]
    fn solve_step(&self, s: &FibreState, m: usize) -> FibreState {
        self.fibres.solve_step(s, m)
    }
    #[inline(always)]
    fn scramble_step(&self, s: &FibreState, m: usize) -> FibreState {
        self.fibres.scramble_step(s, m)
    }
    fn class_ranking(&self) -> Option<&dyn EntryClasses> {
        Some(self)
    }
}

impl EntryClasses for FibreClasses {
    fn order(&self) -> u64 {
        FibreClasses::order(self)
    }
    fn inverts(&self) -> bool {
        false
    }
    fn deal_unit(&self) -> u64 {
        // Entries are classes of boards: no level needs completing class by class.
        1
    }
    fn complete_level_in(
        &self,
        table: &DistanceTable,
        local: &(dyn Fn(u64) -> Option<u64> + Sync),
        mark: u8,
        _mark_twins: bool,
        _small_level: bool,
    ) -> (Level, u64) {
        let excess = self.entries.excess_in(&self.twins, self.order(), table, local, mark);
        (Level::default(), excess)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bfs::{self, Config, NoProgress};
    use crate::group::analysis::Analysis;
    use crate::rank::test_puzzles::{TWINS, TWINS_AND_RINGS, defined};
    use crate::symmetry::coord_classes::tests::image;
    use std::collections::HashSet;

    /// Rings A and B of four pieces, each turned and swapped on its own, the alike pieces of
    /// P (1 1 2 2) moved by every move: a symmetry exchanges A and B, the fibre's two orbits
    /// (P's 6 arrangements are the projection), whose values differ on most boards.
    const SWAPPED_RINGS: &str = "\
Set A 4 1
Set B 4 1
Set P 4 1
Solved
A
1 2 3 4
B
1 2 3 4
P
1 1 2 2
End
Move X
A
2 1 3 4
P
2 1 3 4
End
Move Y
B
2 1 3 4
P
2 1 3 4
End
Move Z
A
2 3 4 1
P
2 3 4 1
End
Move W
B
2 3 4 1
P
2 3 4 1
End
";

    /// The 2x2x2's corners (no twists) beside a second set moved alike that tells the U
    /// layer's pieces from the D layer's: 40,320 boards, 16 symmetries (those keeping the
    /// layers, exchanged or not), projections of the layers' 70 arrangements.
    fn layered_corners() -> Puzzle {
        let path = format!("{}/data/definitions/layered_corners.tws", env!("CARGO_MANIFEST_DIR"));
        defined(&std::fs::read_to_string(path).unwrap())
    }

    /// Searched by classes, each puzzle gives the histogram of its boards searched one by
    /// one through the same projection and fibres; every board's entry holds a board of its
    /// class (worked out on the boards themselves), and the classes counted equal those
    /// found on the boards.
    #[test]
    fn classes_of_fibres_count_as_their_boards() {
        // Boards, entries and classes: the twins' exchange of A and C fixes every board (A
        // and C always agree); the twins and rings' one symmetry fixes every projection.
        for (name, puzzle, order, (boards, entries, exact)) in [
            ("twins", defined(TWINS), 4, (24u64, 16, 16)),
            ("twins and rings", defined(TWINS_AND_RINGS), 2, (13_824, 9_216, 9_216)),
            ("swapped rings", defined(SWAPPED_RINGS), 4, (3_456, 944, 944)),
            ("layered corners", layered_corners(), 16, (40_320, 2_768, 2_768)),
        ] {
            let analysis = Analysis::of(&puzzle).unwrap();
            let (inv, group) = (&analysis.invariants, &analysis.group_order);
            let f = FibreRanking::new(&puzzle, inv, group, 1).unwrap();
            assert_eq!(f.n_states(), boards, "{name}");
            let c = FibreClasses::new(&puzzle, f.clone(), Symmetries::of(&puzzle)).unwrap();
            assert_eq!(c.order(), order, "{name}");
            let syms = &c.symmetries().elements;
            let mut classes = HashSet::new();
            for rank in 0..f.n_states() {
                let board = f.board_of(&f.unrank(rank));
                let images: Vec<u64> = (syms.iter())
                    .map(|s| f.rank(&f.state_of(&image(&puzzle, s, &board)).unwrap()))
                    .collect();
                classes.insert(*images.iter().min().unwrap());
                let entry = c.entry_of_board(&board).unwrap();
                let held = f.rank(&f.state_of(&c.board(entry)).unwrap());
                assert!(
                    images.contains(&held),
                    "{name}: board {rank}: entry {entry} holds another class"
                );
                assert_eq!(c.rank(&c.unrank(entry)), entry, "{name}");
            }
            assert_eq!(classes.len() as u64, exact, "{name}");
            assert_eq!(c.exact_classes(), exact, "{name}");
            assert_eq!(c.n_states(), entries, "{name}");
            let by_boards = histogram(&f, f.rank(&f.state_of(&puzzle.solved()).unwrap()));
            assert_eq!(by_boards.iter().sum::<u64>(), boards, "{name}");
            let start = c.entry_of_board(&puzzle.solved()).unwrap();
            assert_eq!(histogram(&c, start), by_boards, "{name}");
        }
    }

    /// The layered corners' classes: the layers' 70 arrangements in 14 classes, 13 of them
    /// fixed by a symmetry besides the identity (counted apart, on the cube's 16 maps that
    /// keep its U-D axis, those that exchange U and D exchanging the labels), over fibres of
    /// 576 boards.
    #[test]
    fn layered_corners_take_classes_of_their_layers() {
        let puzzle = layered_corners();
        let analysis = Analysis::of(&puzzle).unwrap();
        let f = FibreRanking::new(&puzzle, &analysis.invariants, &analysis.group_order, 1).unwrap();
        assert_eq!((f.n_projections(), f.fibre_len()), (70, 576));
        let c = FibreClasses::new(&puzzle, f, Symmetries::of(&puzzle)).unwrap();
        assert_eq!(c.projection_classes(), (14, 70));
        assert_eq!(c.twin_classes(), 13);
        // Each twin class one entry per orbit of its 576 places.
        assert_eq!(c.n_states(), 576 + 2_192);
    }

    /// A map that keeps the solved board but not the moves (two cells of ring A exchanged,
    /// their labels with them) is refused, not used: its images are checked against boards
    /// the moves reach and against the moves.
    #[test]
    fn maps_that_do_not_keep_the_moves_are_refused() {
        let puzzle = defined(SWAPPED_RINGS);
        let analysis = Analysis::of(&puzzle).unwrap();
        let f = FibreRanking::new(&puzzle, &analysis.invariants, &analysis.group_order, 1).unwrap();
        let n = puzzle.n_positions();
        let mut exchange = super::super::Symmetry::identity(n);
        exchange.cells.swap(0, 1);
        let mut syms = Symmetries::of(&puzzle);
        syms.elements = vec![super::super::Symmetry::identity(n), exchange];
        let err = FibreClasses::new(&puzzle, f, syms).unwrap_err().to_string();
        assert!(err.starts_with("unsupported move group: no symmetry reduction"), "{err}");
        assert!(err.ends_with("a symmetry does not keep the move set"), "{err}");
    }

    /// The histogram in boards of a search of `space` from `start`.
    fn histogram<S: StateRanking>(space: &S, start: u64) -> Vec<u64> {
        let table = DistanceTable::in_memory(space.n_states()).unwrap();
        let out = bfs::run(space, start, &table, &Config::new(2), &NoProgress).unwrap();
        assert!(out.complete);
        out.board_histogram().to_vec()
    }
}
