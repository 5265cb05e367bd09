//! A bound from each tile's own distance home, the sum of moves every tile would need alone.
//!
//! A tile on its own follows a graph: from cell `i` turned `o`, a move takes it to
//! `perm[i]` turned `o + twist[i]`. Its distance home in that graph drops by at most one per
//! move, and a move changes the place or turn of at most `M` tiles (4 for a 2x2 block turn),
//! so a board whose tiles' distances add up to `S` needs at least `ceil(S / M)` moves. For
//! identical tiles the distance is to the nearest home of their label. On the reversed 5x5
//! Twiddle board the distances add up to 120, so it needs at least 30 quarter turns.

use crate::puzzle::Puzzle;

/// Each tile's distance home from every cell and turn, and the most tiles a move changes.
#[derive(Clone, Debug)]
pub struct TileDistances {
    /// `dist[(label * n + cell) * k + orient]`: moves a tile of `label` needs from `cell`
    /// turned `orient` (`u8::MAX` where it cannot get home).
    dist: Vec<u8>,
    /// Per move, the cells whose tile it moves or turns.
    changed: Vec<Vec<u8>>,
    /// The most tiles one move changes.
    per_move: u32,
    n: usize,
    k: usize,
}

impl TileDistances {
    /// The distances of `puzzle`'s tiles; `None` when no move changes any tile.
    pub fn of(puzzle: &Puzzle) -> Option<TileDistances> {
        let n = puzzle.n_positions();
        let k = usize::from(puzzle.orient_mod.max(1));
        let solved = puzzle.solved();
        let labels = usize::from(*solved.tiles.iter().max()?) + 1;
        let changed: Vec<Vec<u8>> = puzzle
            .moves
            .iter()
            .map(|m| {
                (0..n)
                    .filter(|&i| m.perm[i] as usize != i || usize::from(m.twist[i]) % k != 0)
                    .map(|i| i as u8)
                    .collect()
            })
            .collect();
        let per_move = changed.iter().map(|c| c.len() as u32).max().filter(|&m| m > 0)?;
        // Backward breadth-first search from every home of a label, over (cell, turn).
        let mut dist = vec![u8::MAX; labels * n * k];
        for label in 0..labels {
            let at = |cell: usize, o: usize| (label * n + cell) * k + o;
            let mut frontier: Vec<(usize, usize)> =
                (0..n).filter(|&c| usize::from(solved.tiles[c]) == label).map(|c| (c, 0)).collect();
            for &(c, o) in &frontier {
                dist[at(c, o)] = 0;
            }
            let mut d = 0u8;
            while !frontier.is_empty() && d < u8::MAX - 1 {
                d += 1;
                let mut next = Vec::new();
                // A state reaches the frontier when some move takes it there.
                for m in &puzzle.moves {
                    for cell in 0..n {
                        for o in 0..k {
                            if dist[at(cell, o)] != u8::MAX {
                                continue;
                            }
                            let to = m.perm[cell] as usize;
                            let turned = (o + usize::from(m.twist[cell])) % k;
                            if dist[at(to, turned)] == d - 1 {
                                dist[at(cell, o)] = d;
                                next.push((cell, o));
                            }
                        }
                    }
                }
                frontier = next;
            }
        }
        Some(TileDistances { dist, changed, per_move, n, k })
    }

    #[inline]
    fn of_tile(&self, tile: u8, cell: usize, orient: u8) -> u32 {
        u32::from(self.dist[(usize::from(tile) * self.n + cell) * self.k + usize::from(orient)])
    }

    /// The distances of a board's tiles added up.
    pub fn sum(&self, tiles: &[u8], orient: &[u8]) -> u32 {
        (0..self.n).map(|c| self.of_tile(tiles[c], c, orient[c] % self.k as u8)).sum()
    }

    /// The sum after move `m` (cell `i` to `perm[i]`, turning by `twist[i]`), from the sum
    /// before it.
    #[inline]
    pub fn after(
        &self,
        sum: u32,
        tiles: &[u8],
        orient: &[u8],
        m: usize,
        perm: &[u8],
        twist: &[u8],
    ) -> u32 {
        let k = self.k as u8;
        let mut s = sum;
        for &i in &self.changed[m] {
            let i = usize::from(i);
            let (t, o) = (tiles[i], orient[i] % k);
            s = s + self.of_tile(t, usize::from(perm[i]), (o + twist[i]) % k)
                - self.of_tile(t, i, o);
        }
        s
    }

    /// The moves a board whose distances add up to `sum` needs at least.
    #[inline]
    pub fn bound(&self, sum: u32) -> u32 {
        sum.div_ceil(self.per_move)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::puzzle::Board;

    #[test]
    fn reversed_twiddle_boards() {
        for (size, sum, bound) in [(4usize, 64u32, 16u32), (5, 120, 30)] {
            let p = Puzzle::parse(&format!("nrp:{size}x{size}:2"), None).unwrap();
            let t = TileDistances::of(&p).unwrap();
            let n = size * size;
            let reversed = Board { tiles: (0..n as u8).rev().collect(), orient: vec![0; n] };
            let s = t.sum(&reversed.tiles, &reversed.orient);
            assert_eq!((s, t.bound(s)), (sum, bound), "{size}x{size}");
            assert_eq!(t.sum(&p.solved().tiles, &p.solved().orient), 0);
        }
    }

    #[test]
    fn the_sum_follows_moves_and_bounds_stay_below_distances() {
        // Quarter turns with orientation: a tile needs four turns of one block to come back.
        let p = Puzzle::parse("nrp:2x2:2:orient", None).unwrap();
        let t = TileDistances::of(&p).unwrap();
        let mut b = p.solved();
        let mut sum = 0;
        for step in 0..20 {
            let m = (step * 7) % p.moves.len();
            let mv = &p.moves[m];
            sum = t.after(sum, &b.tiles, &b.orient, m, &mv.perm, &mv.twist);
            b = p.apply(&b, mv);
            assert_eq!(sum, t.sum(&b.tiles, &b.orient), "step {step}");
        }
        // One quarter turn from solved: four tiles one move away each.
        let one = p.apply(&p.solved(), &p.moves[0]);
        assert_eq!(t.sum(&one.tiles, &one.orient), 4);
        assert_eq!(t.bound(4), 1);
    }
}
