//! Which orientations a board of oriented NRP `(n, m, b)` may have, once its tiles stand on
//! solvable cells. A quarter turn adds +1 (mod 4) to each of the `b^2` tiles of its block.
//!
//! - **Even `b`.** A quarter turn moves every tile of the block to a cell of the other
//!   checkerboard colour (block cell `(i, j)` goes to `(b-1-j, i)`: the colour changes by
//!   `b-1-2j`, odd) while turning it once: a tile is turned an odd number of quarters exactly
//!   when it stands on a cell of the other colour than its home. The sum of the orientations
//!   gains `b^2 = 0 (mod 4)`, so it stays `0 (mod 4)`.
//! - **`b = 3, 5 (mod 8)`.** The sum gains `b^2 = 1 (mod 4)` per quarter turn, which is odd on
//!   each colour class ([`super::rules`]): the sum is odd exactly when each colour class is an
//!   odd permutation.
//! - **`b = 1, 7 (mod 8)`** (so `b = 1` too): no constraint.
//!
//! Outside `b = n = m` (only the 4 rotations, every tile turned alike) these are all: the
//! reachable boards number (permutations) x `2^(nm-1)` (even `b`), x `4^(nm)/2` (`b = 3, 5`),
//! x `4^(nm)` (`b = 1, 7`), as `twirl order` confirms on every shape to 6x7, the exceptional
//! `(2,3,2)` (3,840 = 120 x 2^5) and `(3,4,3)` (720 x 2^23) included.

use super::Shape;
use super::rules::{colour, parities};

/// Whether the orientations are allowed, given a board whose tiles are solvable (and not
/// `b = n = m`); if not, why.
pub(super) fn check(shape: &Shape, tiles: &[u32], orient: &[u8]) -> Result<(), String> {
    let b = shape.block;
    let sum = orient.iter().map(|&o| usize::from(o)).sum::<usize>() % 4;
    if b.is_multiple_of(2) {
        for (cell, &t) in tiles.iter().enumerate() {
            let moved = colour(shape, cell) != colour(shape, t as usize);
            if moved != (orient[cell] % 2 == 1) {
                return Err(format!(
                    "tile {} stands on a cell of {} colour as its home but is turned {} quarters; \
                     with b = {b} (even) every quarter turn moves a tile to the other \
                     checkerboard colour",
                    t + 1,
                    if moved { "the other" } else { "the same" },
                    orient[cell]
                ));
            }
        }
        if sum != 0 {
            return Err(format!(
                "the orientations add up to {sum} mod 4; with b = {b} every quarter turn adds \
                 b^2 = {}, a multiple of 4, to the sum",
                b * b
            ));
        }
    } else if matches!(b % 8, 3 | 5) {
        let [p0, _] = parities(shape, tiles, true);
        if sum % 2 != p0 {
            return Err(format!(
                "the orientations add up to an {} number while each colour class is an {} \
                 permutation; with b = {b} every quarter turn adds b^2 = {} (odd) to the sum and \
                 flips the parity of both colours",
                if sum % 2 == 1 { "odd" } else { "even" },
                if p0 == 1 { "odd" } else { "even" },
                b * b
            ));
        }
    }
    Ok(())
}
