//! The symmetries of a puzzle read from a definition, found from its moves alone.
//!
//! A definition has no geometry to take candidate maps from, so they are searched for: a
//! map `s` of the cells, with a turn per cell (`offsets`) and possibly orientations
//! reversed, is a symmetry when `s m s^-1` is a move for every move `m` and `s` keeps the
//! solved board (identical pieces onto identical pieces). A cube has 48 (its rotations and
//! their mirror images: a mirror reverses the corners' twists).
//!
//! The search assigns, alternately, the image of a move (`s m s^-1` must be a move of the
//! same cycle type, whose products with the assigned moves' images have the cycle types of
//! `m`'s with those moves) and the image of a cell; each assignment is pushed along the assigned
//! moves' cycles (if `s` takes cell `i` to `s(i)` and `m` to `m'`, it takes `m(i)` to
//! `m'(s(i))`, and the turns fix the offset there), so a contradiction ends a branch early.
//! The first cell of each orbit under the moves gets offset 0: offsets that differ by a
//! constant on an orbit act alike on boards ([`Symmetry::acts_like_in`]).
//!
//! The maps found form a group, so the search lists generators, not every element (as
//! automorphism searches of graphs do): it tries the identity's choice first at every node
//! where all choices so far were the identity's, and of each other choice there it needs one
//! map, the rest being that map times those under the identity's choice. A choice that a
//! product of the maps found already makes is not searched at all. lo55 (a torus of 5 x 5
//! tiles, 800 symmetries) took more than a million nodes when each map was a leaf.

use std::collections::{HashMap, HashSet};
use std::mem::take;

use super::{Symmetry, close_under_newest};
use crate::group::cycles::cycle_type;
use crate::puzzle::{Move, Puzzle};

/// Nodes of the search after which it gives up and keeps the identity alone (a definition
/// with many alike moves could otherwise branch for long; a node costs up to a few
/// microseconds on the largest).
const MAX_NODES: usize = 1_000_000;
/// Most symmetries kept (the class rankings index elements in a few bits); a group of more
/// maps of the moves is given up.
pub const MAX_SYMMETRIES: usize = 1024;

/// What the search learned: the symmetries (identity first) and whether it was cut short.
#[derive(Clone, Debug)]
pub struct Discovered {
    /// The maps found, the identity first.
    pub elements: Vec<Symmetry>,
    /// The search stopped at [`MAX_NODES`] or [`MAX_SYMMETRIES`]: the list may miss some
    /// (and is then the identity alone, a group for certain).
    pub gave_up: bool,
}

/// Searches the symmetries of `puzzle` (a definition's moves; works for any puzzle).
/// `root[p]` is the first cell of the orbit of `p` under the moves.
pub fn discover(puzzle: &Puzzle, root: &[u8]) -> Discovered {
    let n = puzzle.n_positions();
    let k = puzzle.orient_mod.max(1);
    // A move listed twice (say `H2` and the added inverse of `H2'` on a 4-cycle) would give
    // each symmetry one leaf per way of matching the copies: the list of moves is a set.
    let mut moves: Vec<&Move> = Vec::new();
    for m in puzzle.moves.iter().filter(|m| !m.is_identity()) {
        if !moves.iter().any(|x| x.perm == m.perm && x.twist == m.twist) {
            moves.push(m);
        }
    }
    // `moved[m][c]`: whether move `m` moves or turns the tile on cell `c`.
    let moved: Vec<Vec<bool>> = moves
        .iter()
        .map(|m| (0..n).map(|c| m.perm[c] as usize != c || m.twist[c] % k != 0).collect())
        .collect();
    let cell_sig = cell_signatures(n, &moves);
    let move_sig: Vec<MoveSignature> =
        moves.iter().zip(&moved).map(|(m, mv)| signature(m, mv)).collect();
    let pair_type = pair_types(&moves, k);
    let solved = puzzle.solved();
    let unseen: Vec<bool> = match puzzle.defined() {
        Some(d) => d.unseen_orientations().to_vec(),
        None => vec![false; n],
    };
    let support: Vec<Vec<usize>> =
        moved.iter().map(|mv| (0..n).filter(|&c| mv[c]).collect()).collect();
    let mut moving = vec![false; n];
    for &c in support.iter().flatten() {
        moving[c] = true;
    }
    let turns: Vec<Vec<u8>> =
        moves.iter().map(|m| m.twist.iter().map(|&t| t % k).collect()).collect();
    let reversed: Vec<Vec<u8>> =
        turns.iter().map(|t| t.iter().map(|&t| (k - t) % k).collect()).collect();
    let mut found: Vec<Symmetry> = Vec::new();
    let mut gave_up = false;
    // The maps without reversal (found first).
    let mut kept: Vec<Symmetry> = Vec::new();
    // Reversing orientations acts on the reachable boards as an offset would where no orbit
    // has more than two free orientations (a tile's turn is then fixed up to a half turn
    // by its cell): the maps without reversal are all there is to find.
    let reversal_counts = k > 2
        && crate::group::invariants::Invariants::of(puzzle)
            .map_or(true, |inv| inv.orbits.iter().any(|o| o.free_mod > 2));
    let reversals: &[bool] = if reversal_counts { &[false, true] } else { &[false] };
    for &reverses in reversals {
        let mut search = Search {
            n,
            k,
            moves: &moves,
            turns: &turns,
            turned: if reverses { &reversed } else { &turns },
            moved: &moved,
            support: &support,
            move_sig: &move_sig,
            pair_type: &pair_type,
            cell_sig: &cell_sig,
            sigma: vec![UNSET; n],
            image_of: vec![UNSET; n],
            offsets: vec![0; n],
            pi: vec![usize::MAX; moves.len()],
            pi_used: vec![false; moves.len()],
            nodes: 0,
            reversing: None,
            pool: Vec::new(),
            queue: Vec::new(),
            group: Group::new(k, root, &moves),
            finds_group: !reverses,
            hit: false,
        };
        // Cells no move touches keep their tiles: they stay where they are.
        for c in (0..n).filter(|&c| !moving[c]) {
            search.sigma[c] = c as u8;
            search.image_of[c] = c as u8;
        }
        search.run(Assigned::Nothing, !reverses);
        gave_up |= search.nodes >= MAX_NODES || search.group.too_large;
        // At a leaf every move's conjugate is the move it was matched with (propagation set
        // each cell and turn so), so the moves are kept; `Symmetries::of` checks it again.
        // The maps that keep orientations are the group the leaves generate; those that
        // reverse them are one such map (the search stops at the first) times that group.
        let maps = if reverses {
            let first = search.reversing.take().map(|(cells, offsets)| Symmetry {
                name: String::new(),
                cells,
                reverses,
                offsets,
            });
            first.map_or(Vec::new(), |r| {
                kept.iter().map(|g| search.group.normalized(g.then(&r, k))).collect()
            })
        } else {
            kept = search.group.elements.clone();
            search.group.elements
        };
        for s in maps {
            if keeps_solved(&s, &solved.tiles, &unseen, k)
                && !found.iter().any(|f| f.acts_like_in(&s, k, root))
            {
                found.push(s);
            }
        }
    }
    if gave_up {
        found.clear();
    }
    let identity = Symmetry::identity(n);
    found.retain(|s| !s.acts_like_in(&identity, k, root));
    found.sort_by(|a, b| (a.reverses, &a.cells).cmp(&(b.reverses, &b.cells)));
    let mut elements = vec![identity];
    let (mut turns, mut mirrors) = (0, 0);
    for mut s in found {
        s.name = if s.reverses && k > 2 {
            mirrors += 1;
            format!("mirror {mirrors}")
        } else {
            turns += 1;
            format!("map {turns}")
        };
        elements.push(s);
    }
    Discovered { elements, gave_up }
}

const UNSET: u8 = u8::MAX;

struct Search<'a> {
    n: usize,
    k: u8,
    moves: &'a [&'a Move],
    /// Per move and cell, the turn of the tile leaving the cell, modulo `k`.
    turns: &'a [Vec<u8>],
    /// The same as `s m s^-1` turns it: reversed where the map reverses orientations.
    turned: &'a [Vec<u8>],
    /// Per move and cell, whether the move moves or turns the cell's tile.
    moved: &'a [Vec<bool>],
    /// Per move, the cells it moves or turns.
    support: &'a [Vec<usize>],
    move_sig: &'a [MoveSignature],
    /// `pair_type[a * moves + b]`: which cycle type the product of moves `a` and `b` has.
    pair_type: &'a [u32],
    cell_sig: &'a [Vec<u32>],
    sigma: Vec<u8>,
    image_of: Vec<u8>,
    offsets: Vec<u8>,
    pi: Vec<usize>,
    pi_used: Vec<bool>,
    nodes: usize,
    /// The cells and offsets of the first map that reverses (a search with reversal stops
    /// there).
    reversing: Option<(Vec<u8>, Vec<u8>)>,
    /// Saved states no branch holds now, to save into again.
    pool: Vec<Saved>,
    /// Cells assigned and not yet pushed along the moves (kept to reuse its memory).
    queue: Vec<usize>,
    /// The maps without reversal found so far and all their products.
    group: Group<'a>,
    /// Whether this search finds the maps without reversal (a group: the identity's choices
    /// come first and choices covered by the group are skipped), else the first that
    /// reverses.
    finds_group: bool,
    /// A leaf was found where one is all the branch needs: the branch stops.
    hit: bool,
}

/// Maps found, closed under products, each normalized (offset 0 on its orbit's first cell, as
/// the search's leaves have), with the move each carries each move onto.
struct Group<'a> {
    k: u8,
    root: Vec<u8>,
    elements: Vec<Symmetry>,
    /// `images[e][m]`: the move that element `e` carries move `m` onto.
    images: Vec<Vec<usize>>,
    generators: Vec<Symmetry>,
    /// Each element's cells and offsets.
    keys: HashSet<(Vec<u8>, Vec<u8>)>,
    /// The moves by permutation and turns, to read images by.
    move_index: HashMap<(Vec<u8>, Vec<u8>), usize>,
    moves: &'a [&'a Move],
    /// The products passed [`MAX_SYMMETRIES`].
    too_large: bool,
}

impl<'a> Group<'a> {
    fn new(k: u8, root: &[u8], moves: &'a [&'a Move]) -> Group<'a> {
        let turns = |m: &Move| m.twist.iter().map(|&t| t % k).collect::<Vec<u8>>();
        let move_index =
            moves.iter().enumerate().map(|(i, m)| ((m.perm.clone(), turns(m)), i)).collect();
        let identity = Symmetry::identity(root.len());
        let mut group = Group {
            k,
            root: root.to_vec(),
            keys: HashSet::from([(identity.cells.clone(), identity.offsets.clone())]),
            elements: vec![identity],
            images: Vec::new(),
            generators: Vec::new(),
            move_index,
            moves,
            too_large: false,
        };
        group.images = vec![group.move_images(&group.elements[0])];
        group
    }

    /// `s` with each orbit's offsets less that of the orbit's first cell.
    fn normalized(&self, mut s: Symmetry) -> Symmetry {
        let k = self.k;
        let at_root: Vec<u8> = self.root.iter().map(|&r| s.offsets[r as usize] % k).collect();
        for (o, r) in s.offsets.iter_mut().zip(at_root) {
            *o = (*o % k + k - r) % k;
        }
        s
    }

    fn contains(&self, cells: &[u8], offsets: &[u8]) -> bool {
        self.keys.contains(&(cells.to_vec(), offsets.to_vec()))
    }

    /// Adds a map found at a leaf (normalized already) and every product it makes.
    fn add(&mut self, cells: &[u8], offsets: &[u8]) {
        if self.contains(cells, offsets) {
            return;
        }
        let s = Symmetry {
            name: String::new(),
            cells: cells.to_vec(),
            reverses: false,
            offsets: offsets.to_vec(),
        };
        self.generators.push(s);
        self.close();
    }

    /// The elements closed under the generators again, the last of them new
    /// ([`close_under_newest`]), and the new elements' images of the moves.
    fn close(&mut self) {
        let (mut elements, mut keys) = (take(&mut self.elements), take(&mut self.keys));
        let mut count = elements.len();
        let closed = close_under_newest(&mut elements, self.generators.len(), |e, g| {
            let mut product = Symmetry::identity(0);
            e.then_into(&self.generators[g], self.k, &mut product);
            let product = self.normalized(product);
            if !keys.insert((product.cells.clone(), product.offsets.clone())) {
                return Ok(None);
            }
            if count >= MAX_SYMMETRIES {
                return Err(());
            }
            count += 1;
            Ok(Some(product))
        });
        (self.elements, self.keys) = (elements, keys);
        if closed.is_err() {
            self.too_large = true;
            return;
        }
        let new: Vec<Vec<usize>> =
            self.elements[self.images.len()..].iter().map(|e| self.move_images(e)).collect();
        self.images.extend(new);
    }

    /// Per move, the move `e` carries it onto (`usize::MAX` if none: not a map of the moves,
    /// which a leaf never is).
    fn move_images(&self, e: &Symmetry) -> Vec<usize> {
        let k = self.k;
        self.moves
            .iter()
            .map(|m| {
                let c = e.conjugate_move(m, k);
                let turns = c.twist.iter().map(|&t| t % k).collect();
                self.move_index.get(&(c.perm, turns)).copied().unwrap_or(usize::MAX)
            })
            .collect()
    }
}

/// A choice at a node: a move's image or a cell's.
#[derive(Clone, Copy)]
enum Choice {
    Move(usize, usize),
    Cell(usize, usize),
}

/// What a node of the search assigned last.
#[derive(Clone, Copy)]
enum Assigned {
    Nothing,
    Move(usize),
    Cell(usize),
}

/// Enough of a search's state to undo a branch.
struct Saved {
    sigma: Vec<u8>,
    image_of: Vec<u8>,
    offsets: Vec<u8>,
    pi: Vec<usize>,
    pi_used: Vec<bool>,
}

impl Search<'_> {
    /// A state to save into: one a finished node left, else a new one (each branch used to
    /// save the whole state afresh: five lists allocated and freed per branch).
    fn take_saved(&mut self) -> Saved {
        self.pool.pop().unwrap_or_else(|| Saved {
            sigma: Vec::new(),
            image_of: Vec::new(),
            offsets: Vec::new(),
            pi: Vec::new(),
            pi_used: Vec::new(),
        })
    }

    fn save(&self, s: &mut Saved) {
        s.sigma.clone_from(&self.sigma);
        s.image_of.clone_from(&self.image_of);
        s.offsets.clone_from(&self.offsets);
        s.pi.clone_from(&self.pi);
        s.pi_used.clone_from(&self.pi_used);
    }

    fn restore(&mut self, s: &Saved) {
        self.sigma.clone_from(&s.sigma);
        self.image_of.clone_from(&s.image_of);
        self.offsets.clone_from(&s.offsets);
        self.pi.clone_from(&s.pi);
        self.pi_used.clone_from(&s.pi_used);
    }

    /// One node: `new` is what its parent assigned last (everything before it was pushed
    /// along the moves already); `identity` when every choice so far was the identity's.
    fn run(&mut self, new: Assigned, identity: bool) {
        self.nodes += 1;
        if self.nodes >= MAX_NODES || self.group.too_large || self.hit {
            return;
        }
        if !self.propagate(new) {
            return;
        }
        // A move that touches an assigned cell: its image is nearly forced.
        let next_move = (0..self.moves.len()).find(|&m| {
            self.pi[m] == usize::MAX && self.support[m].iter().any(|&c| self.sigma[c] != UNSET)
        });
        let mut saved = self.take_saved();
        self.save(&mut saved);
        if let Some(m) = next_move {
            // The identity's choice first (see the module's notes).
            for target in std::iter::once(m).chain((0..self.moves.len()).filter(|&t| t != m)) {
                if self.pi_used[target]
                    || self.move_sig[target] != self.move_sig[m]
                    || !self.products_agree(m, target)
                    || !self.support_agrees(m, target)
                {
                    continue;
                }
                let choice = Choice::Move(m, target);
                if identity && target != m && self.covered(choice) {
                    continue;
                }
                self.pi[m] = target;
                self.pi_used[target] = true;
                self.branch(Assigned::Move(m), identity, target == m);
                self.restore(&saved);
            }
            self.pool.push(saved);
            return;
        }
        let Some(c) = (0..self.n).find(|&c| self.sigma[c] == UNSET) else {
            if self.pi.iter().all(|&p| p != usize::MAX) {
                self.leaf(identity);
            }
            self.pool.push(saved);
            return;
        };
        // The first cell of an orbit with nothing assigned: any image of its kind, offset 0.
        for d in std::iter::once(c).chain((0..self.n).filter(|&d| d != c)) {
            if self.image_of[d] != UNSET || self.cell_sig[d] != self.cell_sig[c] {
                continue;
            }
            if identity && d != c && self.covered(Choice::Cell(c, d)) {
                continue;
            }
            self.sigma[c] = d as u8;
            self.image_of[d] = c as u8;
            self.offsets[c] = 0;
            self.branch(Assigned::Cell(c), identity, d == c);
            self.restore(&saved);
        }
        self.pool.push(saved);
    }

    /// Searches a child of a node (`identity` when every choice to the node was the
    /// identity's, `same` when the child's is too). Below an identity node a child that
    /// differs needs one leaf: the others are that leaf times the identity child's leaves,
    /// which are in the group by the time it runs.
    fn branch(&mut self, new: Assigned, identity: bool, same: bool) {
        if !(identity && self.finds_group) || same {
            self.run(new, identity && same);
            return;
        }
        self.run(new, false);
        self.hit = false;
    }

    /// A leaf: the maps without reversal join the group (and end a branch that needs one);
    /// one that reverses ends the search. `identity`: the identity's own leaf.
    fn leaf(&mut self, identity: bool) {
        if self.finds_group {
            self.group.add(&self.sigma, &self.offsets);
        } else {
            self.reversing = Some((self.sigma.clone(), self.offsets.clone()));
        }
        self.hit = !identity;
    }

    /// Whether some map of the group makes every choice so far (the identity's: it keeps
    /// each assigned cell and move) and `choice`: the leaves below `choice` are then that map
    /// times those below the identity's choice, found already.
    fn covered(&self, choice: Choice) -> bool {
        let g = &self.group;
        g.elements.iter().zip(&g.images).any(|(e, images)| {
            let makes = match choice {
                Choice::Move(m, target) => images[m] == target,
                Choice::Cell(c, d) => e.cells[c] as usize == d && e.offsets[c] == 0,
            };
            makes
                && (0..self.n).all(|p| {
                    self.sigma[p] == UNSET
                        || (e.cells[p] == self.sigma[p] && e.offsets[p] == self.offsets[p])
                })
                && self.pi.iter().zip(images).all(|(&a, &b)| a == usize::MAX || a == b)
        })
    }

    /// Whether `target` can be the image of move `m` as far as the assigned moves tell: the
    /// product of `m` and an assigned move `a` is carried onto that of their images, so the
    /// two have one cycle type. (A face turn and its double share their cycles; only
    /// their products with the other faces' turns tell them apart, and without this the
    /// gigaminx's search gave up after a million nodes.)
    fn products_agree(&self, m: usize, target: usize) -> bool {
        let n_moves = self.moves.len();
        (self.pi.iter().enumerate()).filter(|&(_, &b)| b != usize::MAX).all(|(a, &b)| {
            self.pair_type[m * n_moves + a] == self.pair_type[target * n_moves + b]
                && self.pair_type[a * n_moves + m] == self.pair_type[b * n_moves + target]
        })
    }

    /// Whether `target` can be the image of move `m` as far as the assigned cells tell: an
    /// assigned cell is moved by `m` exactly when its image is moved by `target`.
    fn support_agrees(&self, m: usize, target: usize) -> bool {
        let (mv, image) = (&self.moved[m], &self.moved[target]);
        (0..self.n).all(|c| self.sigma[c] == UNSET || mv[c] == image[self.sigma[c] as usize])
    }

    /// Pushes what was assigned last along the assigned moves, and each cell that assigns in
    /// turn; false on a contradiction (a cell sent to two places, two cells to one, or two
    /// turns). Everything assigned before was pushed already, so a node works on its own
    /// assignment only (sweeping every move over every cell per node was the gigaminx's 20 s).
    fn propagate(&mut self, new: Assigned) -> bool {
        let mut queue = std::mem::take(&mut self.queue);
        queue.clear();
        let mut fine = true;
        match new {
            Assigned::Nothing => {}
            Assigned::Cell(c) => queue.push(c),
            // Cells this assigns are pushed along `m` twice: once here, once from the queue.
            Assigned::Move(m) => {
                fine = (0..self.n).all(|i| self.sigma[i] == UNSET || self.push(m, i, &mut queue))
            }
        }
        while fine && let Some(i) = queue.pop() {
            for m in 0..self.pi.len() {
                if self.pi[m] != usize::MAX && !self.push(m, i, &mut queue) {
                    fine = false;
                    break;
                }
            }
        }
        self.queue = queue;
        fine
    }

    /// Pushes assigned cell `i` along assigned move `m`: `s` must take `m(i)` to `m'(s(i))`
    /// (`m'` the move `m` is matched with), with the turn that makes `s m s^-1` turn as `m'`
    /// does. A cell this assigns joins `queue`; false on a contradiction.
    fn push(&mut self, m: usize, i: usize, queue: &mut Vec<usize>) -> bool {
        let k = self.k as u16;
        let target = self.pi[m];
        let (mv, image) = (self.moves[m], self.moves[target]);
        let si = self.sigma[i];
        let j = mv.perm[i] as usize;
        let sj = image.perm[si as usize];
        // `s m s^-1` turns the tile leaving `s(i)` by `turn(m's turn) + a_j - a_i`, each term
        // below `k`: reduced by subtracting (a division here was half of the search).
        let mut aj = self.turns[target][si as usize] as u16 + k - self.turned[m][i] as u16
            + self.offsets[i] as u16;
        for _ in 0..2 {
            if aj >= k {
                aj -= k;
            }
        }
        let aj = aj as u8;
        if self.sigma[j] == UNSET {
            if self.image_of[sj as usize] != UNSET {
                return false;
            }
            self.sigma[j] = sj;
            self.image_of[sj as usize] = j as u8;
            self.offsets[j] = aj;
            queue.push(j);
            true
        } else {
            self.sigma[j] == sj && self.offsets[j] == aj
        }
    }
}

/// Whether the map keeps the solved board: identical pieces go onto identical pieces with
/// no turn between them, and unseen orientations stay unseen.
fn keeps_solved(s: &Symmetry, home: &[u8], unseen: &[bool], k: u8) -> bool {
    (0..s.cells.len()).all(|p| {
        let t = home[p] as usize;
        let (sp, st) = (s.cells[p] as usize, s.cells[t] as usize);
        home[sp] == home[st]
            && (s.offsets[p] % k == s.offsets[t] % k || unseen[t])
            && unseen[t] == unseen[home[sp] as usize]
    })
}

/// What a symmetry keeps of a move: its cycle type and how many tiles it turns in place.
type MoveSignature = (Vec<usize>, usize);

fn signature(m: &Move, moved: &[bool]) -> MoveSignature {
    let turned_in_place = (0..m.perm.len()).filter(|&c| moved[c] && m.perm[c] as usize == c);
    (cycle_type(&m.perm), turned_in_place.count())
}

/// Per ordered pair of moves, an id of their product's cycle type (ids in order of first
/// appearance).
fn pair_types(moves: &[&Move], k: u8) -> Vec<u32> {
    let mut ids: HashMap<Vec<usize>, u32> = HashMap::new();
    let mut out = Vec::with_capacity(moves.len() * moves.len());
    for a in moves {
        for b in moves {
            let next = ids.len() as u32;
            out.push(*ids.entry(cycle_type(&a.then(b, k).perm)).or_insert(next));
        }
    }
    out
}

/// Per cell, the lengths of its cycles under every move, sorted: a symmetry maps a cell onto
/// one with the same list.
fn cell_signatures(n: usize, moves: &[&Move]) -> Vec<Vec<u32>> {
    let mut out = vec![Vec::new(); n];
    for m in moves {
        for (start, sig) in out.iter_mut().enumerate() {
            let (mut len, mut c) = (1u32, m.perm[start] as usize);
            while c != start {
                len += 1;
                c = m.perm[c] as usize;
            }
            sig.push(len);
        }
    }
    for sig in &mut out {
        sig.sort_unstable();
    }
    out
}
