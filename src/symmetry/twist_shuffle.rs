//! Conjugating a board with orientations by byte shuffles.
//!
//! A conjugation carries tile `t` on cell `p` to tile `s(t)` on cell `s(p)`, its turn `u`
//! becoming `u' = ±u + a(p) + c(t)` (mod the orbit's free modulus): the symmetry's own twist
//! (reversed by mirrors), and the potentials of where the tile stands and of the tile. The
//! general path rewrites each cell's byte through a table of that cell; this one reads the
//! three terms off those tables once and then conjugates all cells at once (AVX2: a few
//! shuffles, adds and mins), the cube's corners on every rank of a class search. A
//! conjugation whose tables do not have that form keeps the general path.

use crate::rank::layout::{MAX_CELLS, TILE_BITS, TILE_MASK};

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
    /// Reads the terms off the byte maps of a conjugation of a board whose cell `p` holds
    /// the tiles `tiles(p)` (its orbit) turned mod `free_mod(p)`, or `None` where the maps
    /// do not have that form.
    pub fn fit<'t>(
        n: usize,
        maps: &ByteMaps,
        tiles: impl Fn(usize) -> &'t [u8],
        free_mod: impl Fn(usize) -> u8,
    ) -> Option<TwistShuffle> {
        let mut out = TwistShuffle {
            from: [0x80; MAX_CELLS],
            relabel: [0; MAX_CELLS],
            by_tile: [0; MAX_CELLS],
            by_cell: [0; MAX_CELLS],
            modulus: [1; MAX_CELLS],
            reverse: [0; MAX_CELLS],
            lanes: [0; MAX_CELLS],
        };
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
        use std::arch::x86_64::*;

        use crate::rank::layout::{load32, shuffle32, store32};
        let moved = shuffle32(load32(board), load32(&self.from));
        // SAFETY: AVX2 is enabled at compile time (the cfg above); no memory is touched.
        unsafe {
            let tile = _mm256_and_si256(moved, _mm256_set1_epi8(TILE_MASK as i8));
            // A 16-bit shift: the next byte's low bits land above bit 2, masked off.
            let turn =
                _mm256_and_si256(_mm256_srli_epi16(moved, TILE_BITS as i32), _mm256_set1_epi8(7));
            let k = load32(&self.modulus);
            let turn = _mm256_blendv_epi8(turn, _mm256_sub_epi8(k, turn), load32(&self.reverse));
            let c = shuffle32(load32(&self.by_tile), tile);
            let mut sum = _mm256_add_epi8(_mm256_add_epi8(load32(&self.by_cell), c), turn);
            // Below 3k: two conditional subtractions (a wrapped difference is the larger).
            sum = _mm256_min_epu8(sum, _mm256_sub_epi8(sum, k));
            sum = _mm256_min_epu8(sum, _mm256_sub_epi8(sum, k));
            let image = shuffle32(load32(&self.relabel), tile);
            // Turns below 8: the 16-bit shift keeps each within its byte.
            let byte = _mm256_or_si256(image, _mm256_slli_epi16(sum, TILE_BITS as i32));
            store32(_mm256_and_si256(byte, load32(&self.lanes)))
        }
    }
}
