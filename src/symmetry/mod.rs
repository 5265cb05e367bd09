//! Symmetries of a puzzle's board that keep its move set, and what they do to boards.
//!
//! A symmetry `s` is a map of the board (a permutation of the cells) with its action on tile
//! orientations. When conjugating every move by `s` gives a move of the set again, `s g s^-1`
//! is as far from solved as `g`, for every board `g`: conjugation relabels cells and tiles
//! alike. [`Symmetries::of`] tries the geometric candidates (the 8 maps of the square on
//! square boards, the 4 of the rectangle otherwise) against the moves and keeps those that
//! pass; nothing is set per puzzle. It also records whether the moves are closed under
//! inverses, in which case `g -> g^-1` keeps distances too.
//!
//! Conventions (those of [`Puzzle::apply`]): a board is a group element `g`, the product of
//! the moves that made it from the solved board, and `tiles[p]` is the tile `g` brought to
//! cell `p`. A quarter turn of the whole board turns every tile by the same quarter; a mirror
//! reverses orientations (`o -> c - o`). In a conjugation the constant part of those turns
//! cancels, so all that is left of a symmetry's action on orientation is whether it reverses
//! them ([`Symmetry::reverses`]). With orientations mod 1 or 2 (Spinpossible's face up or
//! down) reversal changes nothing.
//!
//! # Design note: ranking classes (for issue 12)
//! Groups found: NRP and Spinpossible in qtm/htm keep all 8 maps of a square board and all 4
//! of a rectangle; `cw` keeps the rotations only (4 and 2). On small boards the classes are
//! (tests): NRP (3,3,2) qtm 45,560 classes of 362,880 boards (7.96x), 23,764 with inversion
//! (15.3x); Spinpossible 2x3 11,776 of 46,080 (3.91x), 6,580 with inversion (7.0x).
//!
//! **NRP (3,6,3)** qtm, 6.58e10 boards: orbits O1, O2 (the two colours, 9 cells each),
//! sign(O1) = sign(O2). Group of order 4 (identity, rotate 180, mirror top-bottom, mirror
//! left-right). First part: where the tiles of cells 1, 6, 7, 12, 13, 18 stand (corners and
//! ends of the middle row, a union of cell orbits of the group, 3 tiles per colour): (9·8·7)²
//! = 254,016 placements in 63,837 classes; 1,296 placements (0.51%) in 657 classes have a
//! nontrivial stabilizer. Precomputed table ([`PlacementTable`]): per placement, the dense
//! index of its representative and a symmetry taking it there (5 bytes, 1.3 MB). Rest: the
//! 12 other tiles, 6!·6!/2 = 259,200 ranks, ranked as today after conjugating the board by
//! that symmetry. Entries: 63,837 × 259,200 = 16,546,550,400, 3.85 GiB against 15.3 GiB
//! (3.98x). Exact board classes (Burnside; boards fixed by each map, counted by enumerating
//! the permutations that commute with it: 362,880, 41,472, 362,880) are 16,460,428,608, so
//! 0.52% of the entries repeat a class. Corner tiles alone: 5,184 placements, 1,341 classes
//! (87 with a stabilizer), 3.97 GiB.
//!
//! **NRP (2,7,2)** qtm, 14! = 8.72e10 boards, one orbit, no constraint. Same group. First
//! part: the tiles of cells 1, 4, 7, 8, 11, 14 (corners and the middle column): 14!/8! =
//! 2,162,160 placements in 541,440 classes, 3,552 placements in 1,788 classes with a
//! nontrivial stabilizer (table 11 MB). Rest 8! = 40,320. Entries 21,830,860,800: 5.08 GiB
//! against 20.3 GiB (3.99x); exact classes 21,794,918,400 (fixed boards 645,120, 645,120,
//! 92,160), 0.16% repeats. Corners alone: 24,024 placements, 6,120 classes, 5.17 GiB.
//!
//! **Counting exactly.** An entry whose first part is representative `r` stands for
//! `|G| / |stab(r)|` boards (the orbit of `r`, each with the same rest count), so histograms
//! in boards are exact without knowing any board's own stabilizer. The entries of a
//! representative with nontrivial stabilizer `H` that are `H`-conjugates are one class: a
//! forward step marks all of them together; a backward step needs nothing (conjugate entries
//! see conjugate neighbours). The number of classes is the entries minus the repeats, counted
//! by Burnside over `H` on the rests of those 657 (1,788) representatives only.
//!
//! **A BFS step** from entry (`r`, rest): unrank to a board whose first part is `r`; per
//! move, apply it, index the placement of the 6 chosen tiles (falling factorial), read
//! (representative, `s`) from the table, conjugate the rest by `s` (a lookup per cell and per
//! tile), rank the rest: one table read and about 2n lookups more than today. Cell runs carry
//! over for moves that leave the chosen tiles where they are (then `s` is the identity);
//! their share is to be measured. Inversion would double the gain, but `g^-1`'s first part is
//! which tiles stand on the chosen cells, another coordinate: it needs both canonicalized per
//! neighbour, so it is left out of this design (it came later for boards of at most 10
//! cells, whose whole arrangement can be the first part: see [`ranking`]). `cw` keeps only
//! rotate 180 here: 2x.

pub mod antipodes;
pub mod classes;
pub mod coord_classes;
pub mod discover;
pub mod entry_classes;
pub mod fibre_classes;
pub mod flip_classes;
mod orbits;
pub mod placements;
pub mod ranking;
#[cfg(test)]
mod ranking_tests;
#[cfg(test)]
mod tests;
mod turns;
mod twins;
mod twist_shuffle;

use std::collections::{HashMap, HashSet};
use std::fmt;

use crate::puzzle::{Board, Move, Puzzle};

pub use classes::{ClassCount, burnside, count_classes, count_classes_under};
pub use coord_classes::CoordClasses;
pub use entry_classes::EntryClasses;
pub use fibre_classes::FibreClasses;
pub use flip_classes::FlipClasses;
pub use placements::PlacementTable;
pub use ranking::ClassRanking;

/// One map of the board: where each cell goes and whether orientations are reversed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symmetry {
    /// What the map is, in words (`rotate 90`, `mirror left-right`).
    pub name: String,
    /// The cell `p` is carried to cell `cells[p]`.
    pub cells: Vec<u8>,
    /// Whether tile orientations are reversed (`o -> -o`): mirrors do, rotations do not.
    pub reverses: bool,
    /// The turn the map adds to a tile leaving cell `p`, on top of the reversal: zero for the
    /// maps of a board, where every tile turns alike and the constant cancels; a cube's
    /// rotation carries each corner slot onto another whose stickers are counted from
    /// another face ([`discover`]).
    pub offsets: Vec<u8>,
}

impl Symmetry {
    /// The map that leaves every cell alone.
    pub fn identity(n: usize) -> Symmetry {
        Symmetry {
            name: "identity".into(),
            cells: (0..n as u8).collect(),
            reverses: false,
            offsets: vec![0; n],
        }
    }

    /// A geometric map of a `rows x cols` board given on coordinates (row, column).
    fn geometric(
        name: &str,
        rows: usize,
        cols: usize,
        reverses: bool,
        to: impl Fn(usize, usize) -> (usize, usize),
    ) -> Symmetry {
        let mut cells = vec![0u8; rows * cols];
        for r in 0..rows {
            for c in 0..cols {
                let (r2, c2) = to(r, c);
                cells[r * cols + c] = (r2 * cols + c2) as u8;
            }
        }
        Symmetry { name: name.into(), cells, reverses, offsets: vec![0; rows * cols] }
    }

    /// This map followed by `next` (acting on boards, `conjugate_board` by the product equals
    /// `conjugate_board` by `self`, then by `next`).
    pub fn then(&self, next: &Symmetry, orient_mod: u8) -> Symmetry {
        let mut product = Symmetry::identity(0);
        self.then_into(next, orient_mod, &mut product);
        product.name = format!("{} then {}", self.name, next.name);
        product
    }

    /// [`Symmetry::then`] written into `product`'s cells and offsets (its name left as it
    /// was), allocating nothing once they have the length.
    fn then_into(&self, next: &Symmetry, orient_mod: u8, product: &mut Symmetry) {
        let k = orient_mod.max(1);
        product.cells.clear();
        product.cells.extend(self.cells.iter().map(|&c| next.cells[c as usize]));
        product.reverses = self.reverses != next.reverses;
        product.offsets.clear();
        product.offsets.extend((0..self.cells.len()).map(|c| {
            let carried = next.turn(self.offsets[c], k);
            (carried + next.offsets[self.cells[c] as usize] % k) % k
        }));
    }

    /// The map undoing this one.
    pub fn inverse(&self, orient_mod: u8) -> Symmetry {
        let k = orient_mod.max(1);
        let n = self.cells.len();
        let (mut cells, mut offsets) = (vec![0u8; n], vec![0u8; n]);
        for (p, &q) in self.cells.iter().enumerate() {
            cells[q as usize] = p as u8;
            offsets[q as usize] = self.turn((k - self.offsets[p] % k) % k, k);
        }
        Symmetry { name: format!("({})^-1", self.name), cells, reverses: self.reverses, offsets }
    }

    /// Whether two maps act alike on boards with orientations mod `orient_mod` (names aside;
    /// reversal matters only above 2; offsets compared up to one constant).
    pub fn acts_like(&self, other: &Symmetry, orient_mod: u8) -> bool {
        self.acts_like_in(other, orient_mod, &vec![0; self.cells.len()])
    }

    /// [`Symmetry::acts_like`] with offsets compared up to a constant per orbit of cells
    /// under the moves, `root[p]` the first cell of `p`'s orbit: a tile never leaves its
    /// orbit, and only the offset of its cell less that of its home reaches a board.
    pub fn acts_like_in(&self, other: &Symmetry, orient_mod: u8, root: &[u8]) -> bool {
        self.cells == other.cells
            && (orient_mod <= 2 || self.reverses == other.reverses)
            && (0..self.cells.len()).all(|p| {
                relative_offset(self, p, orient_mod, root)
                    == relative_offset(other, p, orient_mod, root)
            })
    }

    /// What [`Symmetry::acts_like_in`] compares, as a key written into `key`: the cells,
    /// whether turns reverse (where that shows), and each offset relative to its orbit's
    /// root.
    fn action_in(&self, orient_mod: u8, root: &[u8], key: &mut Vec<u8>) {
        key.clear();
        key.extend_from_slice(&self.cells);
        key.push((orient_mod > 2 && self.reverses) as u8);
        // Below the orientations, at most 255.
        key.extend((0..self.cells.len()).map(|p| relative_offset(self, p, orient_mod, root) as u8));
    }

    /// An orientation turn as seen after the map (reversed or not), before offsets.
    fn turn(&self, o: u8, orient_mod: u8) -> u8 {
        if self.reverses { (orient_mod - o % orient_mod) % orient_mod } else { o % orient_mod }
    }

    /// The turn a tile shows after the map when it stands on cell `p` with its home at `t`
    /// and turn `o`: reversed with the map, plus the offset of `p` less that of `t`.
    pub(crate) fn turn_at(&self, o: u8, p: usize, t: usize, orient_mod: u8) -> u8 {
        let k = orient_mod as u16;
        let raw = self.turn(o, orient_mod) as u16 + self.offsets[p] as u16 % k + k
            - self.offsets[t] as u16 % k;
        (raw % k) as u8
    }

    /// The move `s m s^-1`: the tile the map carries to cell `s(i)` goes where `m` sends cell
    /// `i`, carried by the map, and turns by `m`'s turn, reversed with the map, plus the
    /// offset of where it lands less that of where it left.
    pub fn conjugate_move(&self, m: &Move, orient_mod: u8) -> Move {
        let n = self.cells.len();
        let mut perm = vec![0u8; n];
        let mut twist = vec![0u8; n];
        for i in 0..n {
            let si = self.cells[i] as usize;
            let j = m.perm[i] as usize;
            perm[si] = self.cells[j];
            twist[si] = self.turn_at(m.twist[i], j, i, orient_mod);
        }
        Move { name: format!("{}^s", m.name), perm, twist }
    }

    /// The board `s g s^-1`: tile `t` on cell `p` becomes tile `s(t)` on cell `s(p)`, its
    /// orientation reversed with the map and turned by the offsets of `p` and `t`.
    pub fn conjugate_board(&self, board: &Board, orient_mod: u8) -> Board {
        let n = self.cells.len();
        let mut out = Board { tiles: vec![0; n], orient: vec![0; n] };
        for p in 0..n {
            let sp = self.cells[p] as usize;
            let t = board.tiles[p] as usize;
            out.tiles[sp] = self.cells[t];
            out.orient[sp] = self.turn_at(board.orient[p], p, t, orient_mod);
        }
        out
    }
}

/// A symmetry's action on boards whose pieces may be identical (not group elements): each
/// piece goes where its cell goes, relabelled as its home's image is (its home: the first
/// cell holding its label on the solved board), turned by the map. An image is as far from
/// solved as its board when the map keeps the moves and the solved board.
#[derive(Debug)]
pub(crate) struct PieceImages {
    map: Symmetry,
    /// `home[label]`: the label's home, `u8::MAX` for labels the solved board lacks.
    home: [u8; 256],
    /// `label_image[label]`: the label of its home's image.
    label_image: [u8; 256],
    orient_mod: u8,
}

impl PieceImages {
    /// The action of `map`, or `None` when it carries cells of one label onto cells of
    /// different labels or does not keep the solved board.
    pub(crate) fn new(map: &Symmetry, solved: &Board, orient_mod: u8) -> Option<Self> {
        let (mut home, mut label_image) = ([u8::MAX; 256], [0u8; 256]);
        for (c, &label) in solved.tiles.iter().enumerate().rev() {
            home[label as usize] = c as u8;
        }
        for (c, &label) in solved.tiles.iter().enumerate() {
            let image = solved.tiles[map.cells[home[label as usize] as usize] as usize];
            if solved.tiles[map.cells[c] as usize] != image {
                return None;
            }
            label_image[label as usize] = image;
        }
        let images = PieceImages { map: map.clone(), home, label_image, orient_mod };
        (images.apply(solved).as_ref() == Some(solved)).then_some(images)
    }

    /// The image of a board, `None` if it holds a label the solved board lacks.
    pub(crate) fn apply(&self, board: &Board) -> Option<Board> {
        let n = board.tiles.len();
        let mut out = Board { tiles: vec![0; n], orient: vec![0; n] };
        for p in 0..n {
            let label = board.tiles[p] as usize;
            let home = self.home[label];
            if home == u8::MAX {
                return None;
            }
            let q = self.map.cells[p] as usize;
            out.tiles[q] = self.label_image[label];
            out.orient[q] = self.map.turn_at(board.orient[p], p, home as usize, self.orient_mod);
        }
        Some(out)
    }
}

/// The board `g^-1`: its cell `i` holds the tile numbered like the cell on which `g` put tile
/// `i`, turned back by the turn `g` gave that tile. Applying the inverses of a sequence's
/// moves in reverse order reaches it.
pub fn invert_board(board: &Board, orient_mod: u8) -> Board {
    let n = board.tiles.len();
    let mut out = Board { tiles: vec![0; n], orient: vec![0; n] };
    for p in 0..n {
        let t = board.tiles[p] as usize;
        out.tiles[t] = p as u8;
        out.orient[t] = (orient_mod - board.orient[p] % orient_mod) % orient_mod;
    }
    out
}

/// The symmetries of a puzzle: the geometric maps that keep its move set.
#[derive(Clone, Debug)]
pub struct Symmetries {
    /// Orientations a tile can take (as in the puzzle).
    pub orient_mod: u8,
    /// The kept maps, a group; the identity first.
    pub elements: Vec<Symmetry>,
    /// The candidates that map some move outside the move set.
    pub rejected: Vec<Symmetry>,
    /// Whether every move's inverse is a move (then `g -> g^-1` keeps distances too).
    pub inverse_closed: bool,
    /// `root[p]`: the first cell of the orbit of `p` under the moves, up to which offsets
    /// are compared ([`Symmetry::acts_like_in`]).
    pub root: Vec<u8>,
    /// For a definition: the search for symmetries gave up, so only the identity is kept.
    pub gave_up: bool,
    /// For a subgroup ([`Symmetries::subgroup`]): the order of the puzzle's whole group.
    pub subgroup_of: Option<usize>,
}

impl Symmetries {
    /// The geometric candidates of a `rows x cols` board: the 8 maps of the square (rotations
    /// counter-clockwise) when `rows == cols`, else the 4 of the rectangle. Maps acting alike
    /// (on a one-row board a top-bottom mirror moves no cell) are listed once.
    pub fn candidates(rows: usize, cols: usize, orient_mod: u8) -> Vec<Symmetry> {
        let (lr, lc) = (rows - 1, cols - 1);
        let mut out = vec![Symmetry::identity(rows * cols)];
        let mut add = |s: Symmetry| {
            if !out.iter().any(|o| o.acts_like(&s, orient_mod)) {
                out.push(s);
            }
        };
        if rows == cols {
            // A counter-clockwise quarter turn sends (r, c) to (n-1-c, r), as a block turn does.
            add(Symmetry::geometric("rotate 90", rows, cols, false, |r, c| (lc - c, r)));
        }
        add(Symmetry::geometric("rotate 180", rows, cols, false, |r, c| (lr - r, lc - c)));
        if rows == cols {
            add(Symmetry::geometric("rotate 270", rows, cols, false, |r, c| (c, lr - r)));
        }
        add(Symmetry::geometric("mirror top-bottom", rows, cols, true, |r, c| (lr - r, c)));
        add(Symmetry::geometric("mirror left-right", rows, cols, true, |r, c| (r, lc - c)));
        if rows == cols {
            add(Symmetry::geometric("mirror diagonal", rows, cols, true, |r, c| (c, r)));
            add(Symmetry::geometric("mirror anti-diagonal", rows, cols, true, |r, c| {
                (lc - c, lr - r)
            }));
        }
        out
    }

    /// Works out the symmetries of a puzzle from its moves.
    pub fn of(puzzle: &Puzzle) -> Symmetries {
        let k = puzzle.orient_mod;
        let mut elements = Vec::new();
        let mut rejected = Vec::new();
        let root = orbit_roots(puzzle);
        let mut gave_up = false;
        // A definition has no geometry to take candidates from: its maps are searched for.
        let candidates = match puzzle.defined() {
            Some(_) => {
                let found = discover::discover(puzzle, &root);
                gave_up = found.gave_up;
                found.elements
            }
            None => Symmetries::candidates(puzzle.rows, puzzle.cols, k),
        };
        let index = MoveIndex::of(puzzle);
        for s in candidates {
            if index.images(&s).is_some() {
                elements.push(s);
            } else {
                rejected.push(s);
            }
        }
        let moves: HashSet<(&[u8], Vec<u8>)> =
            puzzle.moves.iter().map(|m| (&m.perm[..], reduced(&m.twist, k))).collect();
        let inverse_closed = puzzle.moves.iter().all(|m| {
            let inv = m.inverse(k, String::new());
            moves.contains(&(&inv.perm[..], reduced(&inv.twist, k)))
        });
        let out = Symmetries {
            orient_mod: k,
            elements,
            rejected,
            inverse_closed,
            root,
            gave_up,
            subgroup_of: None,
        };
        // The maps keeping a set form a subgroup of the candidates' group: failing is a bug.
        assert!(out.is_group(), "the kept symmetries of {:?} are not a group", puzzle.spec);
        out
    }

    /// The elements that `keep` accepts, which must form a subgroup (the identity stays
    /// first); the others count as rejected.
    pub fn subgroup(&self, keep: impl Fn(&Symmetry) -> bool) -> Symmetries {
        let (elements, dropped): (Vec<Symmetry>, Vec<Symmetry>) =
            self.elements.iter().cloned().partition(|s| keep(s));
        let mut rejected = self.rejected.clone();
        rejected.extend(dropped);
        let subgroup_of = Some(self.subgroup_of.unwrap_or(self.order()));
        let out = Symmetries { elements, rejected, subgroup_of, ..self.clone() };
        assert!(out.is_group(), "a subgroup of the symmetries is not a group");
        out
    }

    /// The order of the group (without inversion).
    pub fn order(&self) -> usize {
        self.elements.len()
    }

    /// The order of the group acting on boards: doubled by inversion when asked for.
    pub fn order_with(&self, with_inversion: bool) -> usize {
        self.elements.len() * if with_inversion { 2 } else { 1 }
    }

    /// The kept element acting like `s`, if any.
    pub fn position(&self, s: &Symmetry) -> Option<usize> {
        self.elements.iter().position(|e| e.acts_like_in(s, self.orient_mod, &self.root))
    }

    /// The kept element undoing element `e` (the kept maps being a group).
    pub fn inverse_position(&self, e: usize) -> usize {
        let inverse = self.elements[e].inverse(self.orient_mod);
        self.position(&inverse).expect("the symmetries form a group")
    }

    /// Whether the kept maps form a group: the identity is first and every product is kept.
    /// A finite set closed under products is a group, and it is closed when the products
    /// of a set of its generators, taken from the identity, stay in it: generators are taken
    /// from the kept maps one at a time where the products so far miss one, so a group of
    /// `n` maps costs about `n log n` products, not `n^2` (5,184 for the lo33's 72, 1.6 ms).
    pub fn is_group(&self) -> bool {
        let Some(first) = self.elements.first() else { return false };
        let n = first.cells.len();
        let k = self.orient_mod;
        let key_of = |e: &Symmetry| {
            let mut key = Vec::new();
            e.action_in(k, &self.root, &mut key);
            key
        };
        let kept: HashSet<Vec<u8>> = self.elements.iter().map(key_of).collect();
        if !first.acts_like_in(&Symmetry::identity(n), k, &self.root) {
            return false;
        }
        // The products reached, closed under the generators taken so far.
        let mut reached = vec![Symmetry::identity(n)];
        let mut reached_keys = HashSet::from([key_of(&reached[0])]);
        let mut generators: Vec<&Symmetry> = Vec::new();
        let (mut product, mut key) = (Symmetry::identity(n), Vec::new());
        for e in &self.elements {
            if reached_keys.contains(&key_of(e)) {
                continue;
            }
            generators.push(e);
            let closed = close_under_newest(&mut reached, generators.len(), |r, g| {
                r.then_into(generators[g], k, &mut product);
                product.action_in(k, &self.root, &mut key);
                if !kept.contains(key.as_slice()) {
                    return Err(());
                }
                Ok(reached_keys.insert(key.clone()).then(|| product.clone()))
            });
            if closed.is_err() {
                return false;
            }
        }
        true
    }

    /// The images of a board under every element (each kept map, then with inversion each
    /// kept map applied to `g^-1`), in that order: `order_with(with_inversion)` boards,
    /// possibly repeated.
    pub fn images(&self, board: &Board, with_inversion: bool) -> Vec<Board> {
        let k = self.orient_mod;
        let mut out: Vec<Board> =
            self.elements.iter().map(|s| s.conjugate_board(board, k)).collect();
        if with_inversion {
            let inv = invert_board(board, k);
            out.extend(self.elements.iter().map(|s| s.conjugate_board(&inv, k)));
        }
        out
    }
}

/// Closes `elements`, closed under all generators but the newest of `n_generators`, under
/// them all: the old elements need the newest alone, the new ones every generator, until no
/// product is new (closing anew from the identity for each generator took the lo55's 800
/// maps over and over). `new_product(e, g)` gives element `e` times generator `g` if it is
/// new (noting it seen), or stops the closure with `Err`.
pub(crate) fn close_under_newest<E, X>(
    elements: &mut Vec<E>,
    n_generators: usize,
    mut new_product: impl FnMut(&E, usize) -> Result<Option<E>, X>,
) -> Result<(), X> {
    let old = elements.len();
    let mut i = 0;
    while i < elements.len() {
        let first = if i < old { n_generators - 1 } else { 0 };
        for g in first..n_generators {
            if let Some(product) = new_product(&elements[i], g)? {
                elements.push(product);
            }
        }
        i += 1;
    }
    Ok(())
}

/// The offset of cell `p` under `s`, less that of its orbit's root, modulo the turns.
fn relative_offset(s: &Symmetry, p: usize, orient_mod: u8, root: &[u8]) -> u16 {
    let k = orient_mod.max(1) as u16;
    (s.offsets[p] as u16 % k + k - s.offsets[root[p] as usize] as u16 % k) % k
}

/// `root[p]`: the smallest cell of the orbit of `p` under the moves (a cell no move touches is
/// its own).
fn orbit_roots(puzzle: &Puzzle) -> Vec<u8> {
    let (cells, orbit_of) = crate::group::invariants::orbits(puzzle.n_positions(), puzzle);
    // Each orbit lists its cells in increasing order.
    orbit_of.iter().map(|&o| cells[o as usize][0]).collect()
}

/// Twists reduced modulo the puzzle's orientations.
fn reduced(twist: &[u8], orient_mod: u8) -> Vec<u8> {
    twist.iter().map(|&t| t % orient_mod).collect()
}

/// Whether conjugating every move of the puzzle by `s` gives a move of the puzzle.
pub fn keeps_moves(puzzle: &Puzzle, s: &Symmetry) -> bool {
    move_images(puzzle, s).is_some()
}

/// `images[m]`: the index of the move `s m s^-1` (the first of that action, twists compared
/// modulo the puzzle's orientations), or `None` if some conjugate is no move of the puzzle.
pub fn move_images(puzzle: &Puzzle, s: &Symmetry) -> Option<Vec<usize>> {
    MoveIndex::of(puzzle).images(s)
}

/// The moves of a puzzle by action (permutation and twists modulo its orientations), built
/// once for every map whose [`MoveIndex::images`] are asked: built per map, it took a third
/// of the lo33's symmetry finding.
pub struct MoveIndex<'a> {
    puzzle: &'a Puzzle,
    index: HashMap<(&'a [u8], Vec<u8>), usize>,
}

impl<'a> MoveIndex<'a> {
    /// The index of `puzzle`'s moves.
    pub fn of(puzzle: &'a Puzzle) -> MoveIndex<'a> {
        let k = puzzle.orient_mod;
        let mut index = HashMap::new();
        for (i, m) in puzzle.moves.iter().enumerate() {
            index.entry((&m.perm[..], reduced(&m.twist, k))).or_insert(i);
        }
        MoveIndex { puzzle, index }
    }

    /// [`move_images`] of `s`.
    pub fn images(&self, s: &Symmetry) -> Option<Vec<usize>> {
        let k = self.puzzle.orient_mod;
        (self.puzzle.moves.iter())
            .map(|m| {
                let c = s.conjugate_move(m, k);
                self.index.get(&(&c.perm[..], reduced(&c.twist, k))).copied()
            })
            .collect()
    }
}

impl fmt::Display for Symmetries {
    /// One line: `order 8: identity, rotate 90, ...; inverse-closed: yes`; a large group
    /// found from a definition is summed up (`order 48: 24 keep turns, 24 mirrors ...`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let closed = if self.inverse_closed { "yes" } else { "no" };
        if self.order() > 8 {
            let mirrors = self.elements.iter().filter(|s| s.reverses).count();
            return write!(
                f,
                "order {}: {} keep orientations, {mirrors} mirrors reverse them (found from the \
                 moves); inverse-closed: {closed}",
                self.order(),
                self.order() - mirrors
            );
        }
        let names: Vec<&str> = self.elements.iter().map(|s| s.name.as_str()).collect();
        let gave_up = if self.gave_up { " (the search for more gave up)" } else { "" };
        write!(f, "order {}{gave_up}: {}; inverse-closed: {closed}", self.order(), names.join(", "))
    }
}
