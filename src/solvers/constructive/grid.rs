//! Board geometry for the constructive solver: where a block turn sends a cell, which blocks
//! hold a cell, and the shortest way to carry one cell's content somewhere (a search over
//! positions, not boards).

use super::Turn;

/// An `rows x cols` board turned by `block x block` blocks; cells are row-major indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Grid {
    pub rows: usize,
    pub cols: usize,
    pub block: usize,
}

/// A rectangle of cells `[top, bottom) x [left, right)`; searches stay inside one.
#[derive(Clone, Copy, Debug)]
pub(super) struct Rect {
    pub top: usize,
    pub bottom: usize,
    pub left: usize,
    pub right: usize,
}

impl Grid {
    pub fn cells(&self) -> usize {
        self.rows * self.cols
    }

    pub fn whole(&self) -> Rect {
        Rect { top: 0, bottom: self.rows, left: 0, right: self.cols }
    }

    /// The cells `a` and `b` with `margin` cells around them, clipped to the board.
    pub fn around(&self, cells: &[usize], margin: usize) -> Rect {
        let (mut r0, mut r1, mut c0, mut c1) = (usize::MAX, 0, usize::MAX, 0);
        for &x in cells {
            let (r, c) = (x / self.cols, x % self.cols);
            r0 = r0.min(r);
            r1 = r1.max(r);
            c0 = c0.min(c);
            c1 = c1.max(c);
        }
        Rect {
            top: r0.saturating_sub(margin),
            bottom: (r1 + margin + 1).min(self.rows),
            left: c0.saturating_sub(margin),
            right: (c1 + margin + 1).min(self.cols),
        }
    }

    /// Where the content of cell `pos` goes when block `(top, left)` turns `q` quarters
    /// counter-clockwise (block cell `(i, j)` goes to `(b-1-j, i)` per quarter).
    #[inline]
    pub fn moved(&self, pos: usize, top: usize, left: usize, q: u8) -> usize {
        let (r, c) = (pos / self.cols, pos % self.cols);
        if r < top || c < left || r >= top + self.block || c >= left + self.block {
            return pos;
        }
        let (i, j, e) = (r - top, c - left, self.block - 1);
        let (i2, j2) = match q & 3 {
            0 => (i, j),
            1 => (e - j, i),
            2 => (e - i, e - j),
            _ => (j, e - i),
        };
        (top + i2) * self.cols + left + j2
    }

    /// Where `pos` goes under a sequence of turns.
    pub fn track(&self, mut pos: usize, turns: &[Turn]) -> usize {
        for t in turns {
            pos = self.moved(pos, t.top, t.left, t.quarters);
        }
        pos
    }

    /// The cell whose content a sequence of turns brings to `pos`.
    pub fn track_back(&self, mut pos: usize, turns: &[Turn]) -> usize {
        for t in turns.iter().rev() {
            pos = self.moved(pos, t.top, t.left, 4 - t.quarters);
        }
        pos
    }

    /// The top-left corners of the blocks inside `rect` that hold `pos`.
    pub fn blocks_holding(
        &self,
        pos: usize,
        rect: &Rect,
    ) -> impl Iterator<Item = (usize, usize)> + use<> {
        let (r, c, b) = (pos / self.cols, pos % self.cols, self.block);
        let t0 = (r + 1).saturating_sub(b).max(rect.top);
        let t1 = r.min(rect.bottom.saturating_sub(b));
        let l0 = (c + 1).saturating_sub(b).max(rect.left);
        let l1 = c.min(rect.right.saturating_sub(b));
        let fits = rect.bottom >= b + rect.top && rect.right >= b + rect.left;
        let tops = if fits && t0 <= t1 { t0..t1 + 1 } else { 0..0 };
        tops.flat_map(move |t| {
            let lefts = if l0 <= l1 { l0..l1 + 1 } else { 0..0 };
            lefts.map(move |l| (t, l))
        })
    }

    /// Index of block `(top, left)` among all blocks, row-major.
    pub fn block_index(&self, top: usize, left: usize) -> usize {
        top * (self.cols - self.block + 1) + left
    }

    /// The cells of block `(top, left)`.
    pub fn block_cells(&self, top: usize, left: usize) -> impl Iterator<Item = usize> + use<> {
        let (cols, b) = (self.cols, self.block);
        (top..top + b).flat_map(move |r| (left..left + b).map(move |c| r * cols + c))
    }
}

/// A breadth-first search over the positions of one cell's content: from `start`, turning
/// only blocks inside `rect` that `allowed` accepts, by the quarter counts in `quarters`.
pub(super) struct PositionSearch {
    /// `parent[pos]`: the position before and the turn that led here (`u32::MAX`: unseen).
    parent: Vec<(u32, Turn)>,
    dist: Vec<u32>,
    order: Vec<usize>,
}

const UNSEEN: u32 = u32::MAX;

impl PositionSearch {
    pub fn run(
        grid: &Grid,
        start: usize,
        rect: &Rect,
        quarters: &[u8],
        allowed: &dyn Fn(usize, usize) -> bool,
        stop_at: Option<usize>,
    ) -> PositionSearch {
        let n = grid.cells();
        let none = Turn { top: 0, left: 0, quarters: 0 };
        let mut parent = vec![(UNSEEN, none); n];
        let mut dist = vec![UNSEEN; n];
        let mut order = vec![start];
        dist[start] = 0;
        parent[start].0 = start as u32;
        let mut head = 0;
        while head < order.len() {
            let x = order[head];
            head += 1;
            if Some(x) == stop_at {
                break;
            }
            for (top, left) in grid.blocks_holding(x, rect) {
                if !allowed(top, left) {
                    continue;
                }
                for &q in quarters {
                    let y = grid.moved(x, top, left, q);
                    if dist[y] == UNSEEN {
                        dist[y] = dist[x] + 1;
                        parent[y] = (x as u32, Turn { top, left, quarters: q });
                        order.push(y);
                    }
                }
            }
        }
        PositionSearch { parent, dist, order }
    }

    pub fn reached(&self, pos: usize) -> bool {
        self.dist[pos] != UNSEEN
    }

    pub fn dist(&self, pos: usize) -> Option<usize> {
        self.reached(pos).then_some(self.dist[pos] as usize)
    }

    /// Positions in the order the search reached them (nearest first).
    pub fn order(&self) -> &[usize] {
        &self.order
    }

    /// The turns that carry the start to `pos` (which must be reached).
    pub fn path(&self, mut pos: usize) -> Vec<Turn> {
        let mut out = Vec::new();
        while self.dist[pos] != 0 {
            let (prev, turn) = self.parent[pos];
            out.push(turn);
            pos = prev as usize;
        }
        out.reverse();
        out
    }
}

/// The cycles of a permutation of cells (`dest[x]`: where the tile on `x` goes), fixed
/// cells included as cycles of one.
pub(super) fn cycles_of(dest: &[u32]) -> Vec<Vec<usize>> {
    let mut seen = vec![false; dest.len()];
    let mut out = Vec::new();
    for s in 0..dest.len() {
        if seen[s] {
            continue;
        }
        let mut cyc = Vec::new();
        let mut x = s;
        while !seen[x] {
            seen[x] = true;
            cyc.push(x);
            x = dest[x] as usize;
        }
        out.push(cyc);
    }
    out
}
