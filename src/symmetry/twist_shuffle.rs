//! Conjugating a board with orientations by byte shuffles.
//!
//! A conjugation carries tile `t` on cell `p` to tile `s(t)` on cell `s(p)`, its turn `u`
//! becoming `u' = ±u + a(p) + c(t)` (mod the orbit's free modulus): the symmetry's own twist
//! (reversed by mirrors), and the potentials of where the tile stands and of the tile. The
//! general path rewrites each cell's byte through a table of that cell; this one reads the
//! three terms off those tables once and then conjugates all cells at once (AVX2: a few
//! shuffles, adds and mins), the cube's corners on every rank of a class search. A
//! conjugation whose tables do not have that form keeps the general path.

#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
use crate::rank::lanes::{ByteLanes, Lanes16, Lanes32};
use crate::rank::layout::{MAX_CELLS, NARROW_CELLS, TILE_BITS, TILE_MASK};

/// A conjugation in the form `u' = ±u + a + c`, lane by lane (a lane is a cell of the
/// conjugated board, 32 of them).
#[derive(Clone, Debug)]
pub(super) struct TwistShuffle {
    /// Per cell of the image, the cell its tile comes from (0x80 past the board).
    from: [u8; MAX_CELLS],
    /// Per tile, its image.
    relabel: [u8; MAX_CELLS],
    /// Per tile, `c(t)`.
    by_tile: [u8; MAX_CELLS],
    /// Per cell of the image, `a` of the cell the tile comes from.
    by_cell: [u8; MAX_CELLS],
    /// Per cell of the image, its orbit's free modulus (1 past the board).
    modulus: [u8; MAX_CELLS],
    /// 0xff on the cells whose turns the symmetry reverses.
    reverse: [u8; MAX_CELLS],
    /// 0xff on the board's cells.
    lanes: [u8; MAX_CELLS],
    /// The board has at most 16 cells: 16-lane vectors hold it.
    narrow: bool,
}

/// A conjugation as its general path reads it: the tile on cell `p` goes to cell `to[p]`,
/// its byte rewritten by `bytes[map[p] + byte]`.
pub(super) struct ByteMaps<'a> {
    pub to: &'a [u8; MAX_CELLS],
    pub map: &'a [u32; MAX_CELLS],
    pub bytes: &'a [u8],
}

impl ByteMaps<'_> {
    /// The image of tile `t` turned `u` on cell `p`: its tile and turn.
    fn image(&self, p: usize, t: u8, u: u8) -> (u8, u8) {
        let b = self.bytes[self.map[p] as usize + (t | u << TILE_BITS) as usize];
        (b & TILE_MASK, b >> TILE_BITS)
    }
}

impl TwistShuffle {
    /// A conjugation of a board of `n` cells with no cell filled in yet: every lane past the
    /// board (empty, modulus 1), for [`TwistShuffle::fit`] to fill.
    fn unfilled(n: usize) -> TwistShuffle {
        TwistShuffle {
            from: [0x80; MAX_CELLS],
            relabel: [0; MAX_CELLS],
            by_tile: [0; MAX_CELLS],
            by_cell: [0; MAX_CELLS],
            modulus: [1; MAX_CELLS],
            reverse: [0; MAX_CELLS],
            lanes: [0; MAX_CELLS],
            narrow: n <= NARROW_CELLS,
        }
    }

    /// Reads the terms off the byte maps of a conjugation of a board whose cell `p` holds
    /// the tiles `tiles(p)` (its orbit) turned mod `free_mod(p)`, or `None` where the maps
    /// do not have that form.
    pub fn fit<'t>(
        n: usize,
        maps: &ByteMaps,
        tiles: impl Fn(usize) -> &'t [u8],
        free_mod: impl Fn(usize) -> u8,
    ) -> Option<TwistShuffle> {
        let mut out = TwistShuffle::unfilled(n);
        // Each orbit's first cell gives `c` (its own `a` taken as 0); every other cell of
        // the orbit its `a` from the orbit's first tile.
        let mut c_known = [false; MAX_CELLS];
        for p in 0..n {
            let (k, ts) = (free_mod(p), tiles(p));
            let q = maps.to[p] as usize;
            out.from[q] = p as u8;
            out.modulus[q] = k;
            out.lanes[q] = 0xff;
            let t0 = ts[0];
            if k >= 3 {
                let step = (k + maps.image(p, t0, 1).1 - maps.image(p, t0, 0).1) % k;
                out.reverse[q] = match step {
                    1 => 0,
                    s if s == k - 1 => 0xff,
                    _ => return None,
                };
            }
            if !c_known[t0 as usize] {
                for &t in ts {
                    out.by_tile[t as usize] = maps.image(p, t, 0).1;
                    c_known[t as usize] = true;
                }
            }
            out.by_cell[q] = (k + maps.image(p, t0, 0).1 - out.by_tile[t0 as usize]) % k;
        }
        let mut relabel_known = [false; MAX_CELLS];
        for p in 0..n {
            let q = maps.to[p] as usize;
            let k = out.modulus[q];
            for &t in tiles(p) {
                for u in 0..k {
                    let (t2, u2) = maps.image(p, t, u);
                    let turn = if out.reverse[q] != 0 { (k - u) % k } else { u };
                    let expected = (out.by_cell[q] + out.by_tile[t as usize] + turn) % k;
                    let t = t as usize;
                    if u2 != expected || (relabel_known[t] && out.relabel[t] != t2) {
                        return None;
                    }
                    (out.relabel[t], relabel_known[t]) = (t2, true);
                }
            }
        }
        Some(out)
    }

    /// The conjugated board.
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    #[inline(always)]
    pub fn apply(&self, board: &[u8; MAX_CELLS]) -> [u8; MAX_CELLS] {
        if self.narrow { self.apply_in::<Lanes16>(board) } else { self.apply_in::<Lanes32>(board) }
    }

    /// [`TwistShuffle::apply`] on vectors of `V`'s lanes.
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    #[inline(always)]
    fn apply_in<V: ByteLanes>(&self, board: &[u8; MAX_CELLS]) -> [u8; MAX_CELLS] {
        let moved = V::load(board).shuffle(V::load(&self.from));
        let tile = moved.and(V::splat(TILE_MASK));
        // A 16-bit shift: the next byte's low bits land above bit 2, masked off.
        let turn = moved.shift_right_16::<{ TILE_BITS as i32 }>().and(V::splat(7));
        let k = V::load(&self.modulus);
        let turn = turn.blend(k.sub(turn), V::load(&self.reverse));
        let c = V::load(&self.by_tile).shuffle(tile);
        let mut sum = V::load(&self.by_cell).add(c).add(turn);
        // Below 3k: two conditional subtractions (a wrapped difference is the larger).
        sum = sum.min(sum.sub(k));
        sum = sum.min(sum.sub(k));
        let image = V::load(&self.relabel).shuffle(tile);
        // Turns below 8: the 16-bit shift keeps each within its byte.
        image.or(sum.shift_left_16::<{ TILE_BITS as i32 }>()).and(V::load(&self.lanes)).store()
    }
}

#[cfg(all(test, target_arch = "x86_64", target_feature = "avx2"))]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// On boards of at most 16 cells, 16 lanes conjugate as 32 do.
        #[test]
        fn sixteen_lanes_conjugate_as_thirty_two(
            n in 1usize..=16,
            k in 1u8..=6,
            seed in prop::array::uniform32(any::<u8>()),
            more in prop::array::uniform32(any::<u8>()),
        ) {
            // Permutations of the n cells from the seeds (sort by key).
            let perm = |key: &[u8; 32]| -> Vec<u8> {
                let mut order: Vec<u8> = (0..n as u8).collect();
                order.sort_by_key(|&i| (key[i as usize], i));
                order
            };
            let mixed: [u8; 32] = std::array::from_fn(|i| seed[i] ^ more[31 - i]);
            let (from, relabel, tiles) = (perm(&seed), perm(&more), perm(&mixed));
            let mut shuffle = TwistShuffle::unfilled(n);
            let mut board = [0u8; MAX_CELLS];
            for q in 0..n {
                shuffle.from[q] = from[q];
                shuffle.relabel[q] = relabel[q];
                shuffle.by_tile[q] = seed[q] % k;
                shuffle.by_cell[q] = more[q] % k;
                shuffle.modulus[q] = k;
                shuffle.reverse[q] = if seed[q] & 0x80 != 0 { 0xff } else { 0 };
                shuffle.lanes[q] = 0xff;
                board[q] = tiles[q] | ((more[q] >> 3) % k) << TILE_BITS;
            }
            prop_assert_eq!(shuffle.apply_in::<Lanes16>(&board), shuffle.apply_in::<Lanes32>(&board));
        }
    }
}
