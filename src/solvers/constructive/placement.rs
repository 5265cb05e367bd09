//! Solving a board tile by tile, in three phases.
//!
//! 1. **Direct placement.** In book order, each tile is carried home by block turns that touch
//!    no tile placed before it (a search over the positions of that one tile). Where no such
//!    path exists (the last `b-1` cells of a row, the last `b-1` rows) the cell is left for
//!    later.
//! 2. **Parity.** If the rest is an odd permutation of a class (and the theorem allows that,
//!    so a quarter turn is odd there), one quarter turn fixes it: after it, every class is an
//!    even permutation and 3-cycles can finish.
//! 3. **3-cycles.** In book order, each tile still away from home is brought there by a
//!    conjugated 3-cycle `S C S^-1` (`C` from [`super::cycles`]) on its cell, its home and a
//!    cell later in the order; turns that keep both parities (half turns, or any turn when a
//!    quarter turn is even) first carry it closer without touching a solved tile.

use std::collections::{HashMap, VecDeque};

use super::cycles::Macro;
use super::grid::{Grid, PositionSearch, Rect};
use super::rules::{Parity, colour, parities};
use super::turns::{inverse, turn_in_place};
use super::{Shape, Turn};

const ALL_QUARTERS: [u8; 3] = [1, 2, 3];

/// The board being solved and the turns made so far.
pub(super) struct Placement<'a> {
    shape: Shape,
    grid: Grid,
    parity: Parity,
    macros: &'a [Macro],
    /// `tiles[cell]`: the tile on `cell`.
    tiles: Vec<u32>,
    /// `home_of[tile]`: the cell where `tile` stands now.
    at: Vec<u32>,
    turns: Vec<Turn>,
    /// Macro cycles by the offset from their `p` to their `q` cell: `(macro, rotation)`.
    by_offset: HashMap<(isize, isize), Vec<(usize, usize)>>,
    reach: usize,
}

impl<'a> Placement<'a> {
    pub fn new(shape: Shape, tiles: &[u32], macros: &'a [Macro]) -> Placement<'a> {
        let mut at = vec![0u32; tiles.len()];
        for (cell, &t) in tiles.iter().enumerate() {
            at[t as usize] = cell as u32;
        }
        let mut by_offset: HashMap<(isize, isize), Vec<(usize, usize)>> = HashMap::new();
        for (i, m) in macros.iter().enumerate() {
            for rot in 0..3 {
                let [p, q, _] = rotated(m, rot);
                let d = (q.0 as isize - p.0 as isize, q.1 as isize - p.1 as isize);
                by_offset.entry(d).or_default().push((i, rot));
            }
        }
        let reach = macros.iter().map(|m| m.height.max(m.width)).max().unwrap_or(0);
        Placement {
            shape,
            grid: Grid { rows: shape.rows, cols: shape.cols, block: shape.block },
            parity: Parity::of(shape.block),
            macros,
            tiles: tiles.to_vec(),
            at,
            turns: Vec::new(),
            by_offset,
            reach,
        }
    }

    pub fn solve(mut self) -> Result<Vec<Turn>, String> {
        self.place_directly();
        self.fix_parity();
        self.finish_with_cycles()?;
        Ok(self.turns)
    }

    fn run(&mut self, seq: &[Turn]) {
        for &t in seq {
            turn_in_place(&self.shape, &mut self.tiles, t);
            for cell in self.grid.block_cells(t.top, t.left) {
                self.at[self.tiles[cell] as usize] = cell as u32;
            }
            self.turns.push(t);
        }
    }

    fn solved_at(&self, cell: usize) -> bool {
        self.tiles[cell] as usize == cell
    }

    fn block_count(&self) -> usize {
        (self.shape.rows - self.shape.block + 1) * (self.shape.cols - self.shape.block + 1)
    }

    /// Phase 1: carry each tile home without touching the tiles placed before it.
    fn place_directly(&mut self) {
        let grid = self.grid;
        let mut locked = vec![0u32; self.block_count()];
        for cell in 0..grid.cells() {
            if !self.solved_at(cell) {
                let from = self.at[cell] as usize;
                let free = |top: usize, left: usize| locked[grid.block_index(top, left)] == 0;
                let Some(path) = self.path_home(from, cell, &ALL_QUARTERS, &free) else {
                    continue;
                };
                self.run(&path);
            }
            for (top, left) in grid.blocks_holding(cell, &grid.whole()) {
                locked[grid.block_index(top, left)] += 1;
            }
        }
    }

    /// The turns (through blocks `free` accepts) that carry the content of `from` to `to`:
    /// first searched near both, then on the whole board.
    fn path_home(
        &self,
        from: usize,
        to: usize,
        quarters: &[u8],
        free: &dyn Fn(usize, usize) -> bool,
    ) -> Option<Vec<Turn>> {
        let near = self.grid.around(&[from, to], 2 * self.shape.block);
        let search = PositionSearch::run(&self.grid, from, &near, quarters, free, Some(to));
        if search.reached(to) {
            return Some(search.path(to));
        }
        let whole = self.grid.whole();
        let search = PositionSearch::run(&self.grid, from, &whole, quarters, free, Some(to));
        search.reached(to).then(|| search.path(to))
    }

    /// Phase 2: one quarter turn if a class is odd (where the theorem allows it), on the block
    /// with the fewest solved tiles.
    fn fix_parity(&mut self) {
        let [p0, p1] = parities(&self.shape, &self.tiles, self.parity.keeps_colours());
        let needed = match self.parity {
            Parity::Free => p0 == 1,
            Parity::ColoursAlike => p0 == 1 && p1 == 1,
            Parity::Even | Parity::ColoursEven => false,
        };
        if !needed {
            return;
        }
        let b = self.shape.block;
        let mut best = (usize::MAX, Turn { top: 0, left: 0, quarters: 1 });
        for top in 0..=self.shape.rows - b {
            for left in 0..=self.shape.cols - b {
                let solved =
                    self.grid.block_cells(top, left).filter(|&x| self.solved_at(x)).count();
                if solved <= best.0 {
                    best = (solved, Turn { top, left, quarters: 1 });
                }
            }
        }
        self.run(&[best.1]);
    }

    /// Phase 3: conjugated 3-cycles, in book order.
    fn finish_with_cycles(&mut self) -> Result<(), String> {
        let quarters: &[u8] = if self.parity.quarter_is_even() { &ALL_QUARTERS } else { &[2] };
        for cell in 0..self.grid.cells() {
            if self.solved_at(cell) {
                continue;
            }
            self.approach(cell, quarters);
            if self.solved_at(cell) {
                continue;
            }
            let from = self.at[cell] as usize;
            let seq = self.three_cycle(from, cell)?;
            self.run(&seq);
            if !self.solved_at(cell) {
                return Err(format!("the 3-cycle for cell {cell} missed"));
            }
        }
        Ok(())
    }

    /// Carries the tile of `cell` as close to it as turns that keep every parity and touch no
    /// solved tile allow.
    fn approach(&mut self, cell: usize, quarters: &[u8]) {
        let from = self.at[cell] as usize;
        let near = self.grid.around(&[from, cell], 2 * self.shape.block);
        // 0: not looked at yet, 1: holds no solved tile, 2: holds one.
        let memo = std::cell::RefCell::new(vec![0u8; self.block_count()]);
        let free = |top: usize, left: usize| {
            let i = self.grid.block_index(top, left);
            let mut memo = memo.borrow_mut();
            if memo[i] == 0 {
                let clear = self.grid.block_cells(top, left).all(|x| !self.solved_at(x));
                memo[i] = if clear { 1 } else { 2 };
            }
            memo[i] == 1
        };
        let search = PositionSearch::run(&self.grid, from, &near, quarters, &free, Some(cell));
        let distance = |x: usize| {
            let c = self.shape.cols;
            (x / c).abs_diff(cell / c) + (x % c).abs_diff(cell % c)
        };
        let best = search.order().iter().copied().min_by_key(|&x| (distance(x), search.dist(x)));
        if let Some(best) = best
            && best != from
        {
            let path = search.path(best);
            self.run(&path);
        }
    }

    /// A sequence that cycles the contents `from -> cell -> u -> from` for some cell `u` after
    /// `cell` in book order (so only unsolved or later cells change).
    fn three_cycle(&self, from: usize, cell: usize) -> Result<Vec<Turn>, String> {
        let margin = self.reach + self.shape.block;
        let near = self.grid.around(&[from, cell], margin);
        if let Some(seq) = self.greedy_setup(from, cell, &near) {
            return Ok(seq);
        }
        let whole = self.grid.whole();
        let later: Vec<usize> = (cell + 1..self.grid.cells())
            .filter(|&u| u != from && self.same_class(u, cell))
            .collect();
        for rect in [near, whole] {
            if let Some(seq) = self.joint_setup(from, cell, &[], &rect) {
                return Ok(seq);
            }
            // Near the end few cells are later: search from all of them at once (none left:
            // the search above was the same one).
            if later.is_empty() {
                continue;
            }
            if let Some(seq) = self.joint_setup(from, cell, &later, &rect) {
                return Ok(seq);
            }
        }
        Err(format!("no conjugated 3-cycle brings the tile at cell {from} to cell {cell}"))
    }

    fn same_class(&self, a: usize, b: usize) -> bool {
        !self.parity.keeps_colours() || colour(&self.shape, a) == colour(&self.shape, b)
    }

    /// Where a macro lands with its `q` cell on `q` (rotation `rot`): its anchor and its `p`
    /// and `r` cells, if it fits the board.
    fn placed(&self, mi: usize, rot: usize, q: usize) -> Option<(usize, usize, usize)> {
        let m = &self.macros[mi];
        let [p_off, q_off, r_off] = rotated(m, rot);
        let (qr, qc) = (q / self.shape.cols, q % self.shape.cols);
        let top = qr.checked_sub(q_off.0)?;
        let left = qc.checked_sub(q_off.1)?;
        if top + m.height > self.shape.rows || left + m.width > self.shape.cols {
            return None;
        }
        let cell = |(r, c): (usize, usize)| (top + r) * self.shape.cols + left + c;
        Some((top * self.shape.cols + left, cell(p_off), cell(r_off)))
    }

    /// The full sequence `S C S^-1` for a setup `S` and macro placement.
    fn conjugate(&self, setup: &[Turn], mi: usize, anchor: usize) -> Vec<Turn> {
        let (top, left) = (anchor / self.shape.cols, anchor % self.shape.cols);
        let mut seq = setup.to_vec();
        seq.extend(self.macros[mi].turns.iter().map(|t| Turn {
            top: t.top + top,
            left: t.left + left,
            quarters: t.quarters,
        }));
        seq.extend(inverse(setup));
        seq
    }

    /// Whether a setup's third cell is acceptable, and what it costs: a later cell, dearer if
    /// its tile is already home (it will need fixing again).
    fn third_cell_cost(&self, u: usize, from: usize, cell: usize) -> Option<usize> {
        (u > cell && u != from).then(|| if self.solved_at(u) { 12 } else { 0 })
    }

    /// Cheap setups: move `cell` to a macro's `q` near it, then `from` to the macro's `p`
    /// without moving `q` again; the third cell is wherever the setup brings `r` from.
    fn greedy_setup(&self, from: usize, cell: usize, rect: &Rect) -> Option<Vec<Turn>> {
        let grid = self.grid;
        let everything = |_: usize, _: usize| true;
        let from_cell = PositionSearch::run(&grid, cell, rect, &ALL_QUARTERS, &everything, None);
        let mut best: Option<(usize, Vec<Turn>)> = None;
        for &q in from_cell.order().iter().take(6) {
            let first = from_cell.path(q);
            let moved_from = grid.track(from, &first);
            let b = self.shape.block;
            let (qr, qc) = (q / self.shape.cols, q % self.shape.cols);
            let keeps_q = |top: usize, left: usize| {
                !(qr >= top && qr < top + b && qc >= left && qc < left + b)
            };
            let from_p =
                PositionSearch::run(&grid, moved_from, rect, &ALL_QUARTERS, &keeps_q, None);
            for mi in 0..self.macros.len() {
                for rot in 0..3 {
                    let Some((anchor, p, r)) = self.placed(mi, rot, q) else { continue };
                    let Some(d) = from_p.dist(p) else { continue };
                    let cost = 2 * (first.len() + d) + self.macros[mi].qtm;
                    if best.as_ref().is_some_and(|(c, _)| *c <= cost) {
                        continue;
                    }
                    let mut setup = first.clone();
                    setup.extend(from_p.path(p));
                    let u = grid.track_back(r, &setup);
                    let Some(extra) = self.third_cell_cost(u, from, cell) else { continue };
                    let cost = cost + extra;
                    if best.as_ref().is_none_or(|(c, _)| *c > cost) {
                        best = Some((cost, self.conjugate(&setup, mi, anchor)));
                    }
                }
            }
        }
        best.map(|(_, seq)| seq)
    }

    /// A breadth-first search over the joint positions of `from`, `cell` and, when `thirds`
    /// is not empty, a third cell (any of `thirds`: one search from all of them) for a setup
    /// that lands them on a macro's `p`, `q` (and `r`). Without a third cell, the cell the
    /// setup brings onto `r` must be later than `cell`.
    fn joint_setup(
        &self,
        from: usize,
        cell: usize,
        thirds: &[usize],
        rect: &Rect,
    ) -> Option<Vec<Turn>> {
        let grid = self.grid;
        let n = grid.cells();
        let width = if thirds.is_empty() { 2 } else { 3 };
        let index = |s: &[usize]| s.iter().fold(0u64, |k, &x| k * n as u64 + x as u64);
        let state_of = |mut k: u64| -> Vec<usize> {
            let mut out = vec![0; width];
            for x in out.iter_mut().rev() {
                *x = (k % n as u64) as usize;
                k /= n as u64;
            }
            out
        };
        let mut seen = Visited::new(grid, width);
        let mut queue = VecDeque::new();
        let starts: Vec<Vec<usize>> = if thirds.is_empty() {
            vec![vec![from, cell]]
        } else {
            thirds.iter().map(|&u| vec![from, cell, u]).collect()
        };
        for start in starts {
            seen.insert(index(&start), None);
            queue.push_back(index(&start));
        }
        // The setup that reached `k`: each state's turn undone back to a start.
        let path_to = |seen: &Visited, mut k: u64| {
            let mut out = Vec::new();
            while let Some(t) = seen.turn(k) {
                out.push(t);
                let back = t.inverse();
                let prev: Vec<usize> = state_of(k)
                    .iter()
                    .map(|&y| grid.moved(y, back.top, back.left, back.quarters))
                    .collect();
                k = index(&prev);
            }
            out.reverse();
            out
        };
        while let Some(k) = queue.pop_front() {
            let state = state_of(k);
            let (a, q) = (state[0], state[1]);
            let d = (
                (q / self.shape.cols) as isize - (a / self.shape.cols) as isize,
                (q % self.shape.cols) as isize - (a % self.shape.cols) as isize,
            );
            for &(mi, rot) in self.by_offset.get(&d).map_or(&[][..], |v| v.as_slice()) {
                let Some((anchor, p, r)) = self.placed(mi, rot, q) else { continue };
                if p != a || (width == 3 && state[2] != r) {
                    continue;
                }
                let setup = path_to(&seen, k);
                let u = grid.track_back(r, &setup);
                if self.third_cell_cost(u, from, cell).is_some() {
                    return Some(self.conjugate(&setup, mi, anchor));
                }
            }
            if seen.full() {
                return None;
            }
            for &x in &state {
                for (top, left) in grid.blocks_holding(x, rect) {
                    for q in ALL_QUARTERS {
                        let next: Vec<usize> =
                            state.iter().map(|&y| grid.moved(y, top, left, q)).collect();
                        let next = index(&next);
                        if seen.insert(next, Some(Turn { top, left, quarters: q })) {
                            queue.push_back(next);
                        }
                    }
                }
            }
        }
        None
    }
}

/// The states a joint search has reached, each with the turn that reached it (`None` for a
/// start): a dense array where every state fits in [`DENSE_STATES`] (narrow boards with large
/// blocks, whose last cells may need the whole space), else a map of at most
/// [`SPARSE_STATES`].
enum Visited {
    /// Per state: 0 unseen, 1 a start, else 2 + the turn's block index * 3 + quarters - 1.
    Dense {
        codes: Vec<u32>,
        grid: Grid,
    },
    Sparse(HashMap<u64, Option<Turn>>),
}

/// Most states kept as a dense array (4 bytes each: 256 MiB, for boards up to 406 cells).
const DENSE_STATES: u64 = 1 << 26;
/// Most states a sparse search visits before giving up.
const SPARSE_STATES: usize = 4_000_000;

impl Visited {
    fn new(grid: Grid, width: usize) -> Visited {
        let states = (grid.cells() as u64).pow(width as u32);
        if states <= DENSE_STATES {
            Visited::Dense { codes: vec![0; states as usize], grid }
        } else {
            Visited::Sparse(HashMap::new())
        }
    }

    /// Records a state if it is new (then true).
    fn insert(&mut self, k: u64, turn: Option<Turn>) -> bool {
        match self {
            Visited::Dense { codes, grid } => {
                let slot = &mut codes[k as usize];
                if *slot != 0 {
                    return false;
                }
                *slot = match turn {
                    None => 1,
                    Some(t) => {
                        2 + grid.block_index(t.top, t.left) as u32 * 3 + u32::from(t.quarters) - 1
                    }
                };
                true
            }
            Visited::Sparse(map) => match map.entry(k) {
                std::collections::hash_map::Entry::Vacant(slot) => {
                    slot.insert(turn);
                    true
                }
                std::collections::hash_map::Entry::Occupied(_) => false,
            },
        }
    }

    /// The turn that reached a recorded state (`None` for a start).
    fn turn(&self, k: u64) -> Option<Turn> {
        match self {
            Visited::Dense { codes, grid } => {
                let code = codes[k as usize].checked_sub(2)? as usize;
                let per_row = grid.cols - grid.block + 1;
                let block = code / 3;
                Some(Turn {
                    top: block / per_row,
                    left: block % per_row,
                    quarters: (code % 3) as u8 + 1,
                })
            }
            Visited::Sparse(map) => map[&k],
        }
    }

    /// Whether a sparse search has reached its bound (a dense one never gives up).
    fn full(&self) -> bool {
        matches!(self, Visited::Sparse(map) if map.len() > SPARSE_STATES)
    }
}

/// A macro's cycle starting at its `rot`-th cell (the same permutation).
fn rotated(m: &Macro, rot: usize) -> [(usize, usize); 3] {
    [m.cycle[rot % 3], m.cycle[(rot + 1) % 3], m.cycle[(rot + 2) % 3]]
}
