//! Which boards of NRP `(n, m, b)` are solvable: Lam's Theorem 1.1 with the even-permutation
//! condition for `b = 3` (sections 5.5-5.6), as twirl's exact group orders confirm
//! ([`crate::verify::lam`]).
//!
//! A quarter turn of a `b x b` block is a product of 4-cycles: `b^2/4` of them for even `b`,
//! `(b^2-1)/8` on each checkerboard colour for odd `b` (which keeps every tile on its colour).
//! So the parity of a quarter turn is: odd for `b = 2 mod 4`, even for `b = 0 mod 4`; odd on
//! each colour for `b = 3, 5 mod 8`, even on each colour for `b = 1, 7 mod 8`. Outside the
//! small exceptional groups (`b = 1`, `b = n = m`, `(2,3,2)`, `(3,4,3)`) these are the only
//! constraints.

use num_bigint::BigUint;

use super::Shape;
use crate::group::invariants::factorial;

/// What the moves keep invariant on a board that is not one of the small exceptions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Parity {
    /// `b = 2 mod 4`: a quarter turn is odd, every permutation is reachable.
    Free,
    /// `b = 0 mod 4`: every move is even.
    Even,
    /// `b = 3, 5 mod 8`: a quarter turn is odd on both colours, which stay alike.
    ColoursAlike,
    /// `b = 1, 7 mod 8`: every move is even on each colour.
    ColoursEven,
}

impl Parity {
    pub fn of(block: usize) -> Parity {
        match (block % 2, block % 4, block % 8) {
            (0, 2, _) => Parity::Free,
            (0, _, _) => Parity::Even,
            (_, _, 3 | 5) => Parity::ColoursAlike,
            _ => Parity::ColoursEven,
        }
    }

    /// Whether tiles keep their checkerboard colour (odd blocks).
    pub fn keeps_colours(self) -> bool {
        matches!(self, Parity::ColoursAlike | Parity::ColoursEven)
    }

    /// Whether a quarter turn is even on every class (so it never spoils a parity).
    pub fn quarter_is_even(self) -> bool {
        matches!(self, Parity::Even | Parity::ColoursEven)
    }
}

/// The small groups the constructive solver leaves to an exhaustive search, with what the
/// theorem says of them.
pub(super) fn small_group(shape: &Shape) -> Option<String> {
    let (n, m, b) = (shape.rows, shape.cols, shape.block);
    let pair = (n.min(m), n.max(m));
    if b == 1 {
        Some("with b = 1 a turn moves nothing: only the solved board is solvable".into())
    } else if b == n && b == m {
        Some(
            "with b = n = m the only move turns the whole board: only its 4 rotations are solvable"
                .into(),
        )
    } else if b == 2 && pair == (2, 3) {
        Some(
            "(2,3,2) reaches only 120 boards (Lam, Theorem 1.1), and this is not one of them"
                .into(),
        )
    } else if b == 3 && pair == (3, 4) {
        Some(
            "(3,4,3) reaches only 6! = 720 boards (Lam, Theorem 1.1), and this is not one of them"
                .into(),
        )
    } else {
        None
    }
}

/// The checkerboard colour of a cell (0 for the colour of the top-left cell).
pub(super) fn colour(shape: &Shape, cell: usize) -> usize {
    (cell / shape.cols + cell % shape.cols) % 2
}

/// The parity (1 = odd) of the permutation a board makes on each colour class, or on the
/// whole board when `by_colour` is false (then both entries are the same).
pub(super) fn parities(shape: &Shape, tiles: &[u32], by_colour: bool) -> [usize; 2] {
    let mut seen = vec![false; tiles.len()];
    let mut out = [0usize; 2];
    for start in 0..tiles.len() {
        if seen[start] {
            continue;
        }
        let mut len = 0;
        let mut x = start;
        while !seen[x] {
            seen[x] = true;
            len += 1;
            x = tiles[x] as usize;
        }
        let class = if by_colour { colour(shape, start) } else { 0 };
        out[class] ^= (len + 1) % 2;
    }
    if !by_colour {
        out[1] = out[0];
    }
    out
}

/// The parity (1 = odd) of the permutation the tiles make on each checkerboard colour class,
/// on a board whose tiles all stand on their own colour (odd blocks).
pub fn colour_parities(shape: &Shape, tiles: &[u32]) -> [usize; 2] {
    parities(shape, tiles, true)
}

/// Whether a board (not of a small group) is solvable, and if not, why.
pub(super) fn check(shape: &Shape, tiles: &[u32]) -> Result<(), String> {
    let b = shape.block;
    let parity = Parity::of(b);
    if parity.keeps_colours()
        && let Some(cell) =
            (0..tiles.len()).find(|&x| colour(shape, x) != colour(shape, tiles[x] as usize))
    {
        return Err(format!(
            "tile {} stands on a cell of the other colour: a block of odd side (b = {b}) keeps \
             every tile on its checkerboard colour",
            tiles[cell] + 1
        ));
    }
    let [p0, p1] = parities(shape, tiles, parity.keeps_colours());
    match parity {
        Parity::Free => Ok(()),
        Parity::Even if p0 == 1 => {
            Err(format!("the board is an odd permutation; with b = {b} every move is even"))
        }
        Parity::ColoursAlike if p0 != p1 => Err(format!(
            "the tiles of one colour form an odd permutation and those of the other an even one \
             (the board is odd); with b = {b} every quarter turn flips both colours' parity at once"
        )),
        Parity::ColoursEven if p0 == 1 || p1 == 1 => Err(format!(
            "the tiles on the {} cells form an odd permutation; with b = {b} every move is even \
             on each checkerboard colour",
            if p0 == 1 { "top-left-coloured" } else { "other-coloured" }
        )),
        _ => Ok(()),
    }
}

/// The number of boards the moves reach, with the case of the rules that gives it: Lam's
/// Theorem 1.1 with the even-permutation condition for `b = 3`, times the orientations
/// [`super::orientation_rules`] allows when tiles turn. twirl's exact group orders (stabilizer
/// chains) confirm every case where they run (`tests` and `twirl order`).
pub fn reachable_boards(shape: &Shape, oriented: bool) -> (BigUint, String) {
    let (n, m, b) = (shape.rows, shape.cols, shape.block);
    let cells = n * m;
    let pair = (n.min(m), n.max(m));
    let (arrangements, case) = if b == 1 {
        (BigUint::from(1u32), "b = 1: no turn moves a tile".to_string())
    } else if b == n && b == m {
        // Every tile turns with the board: the orientations add nothing.
        return (BigUint::from(4u32), "b = n = m: the four rotations of the board".into());
    } else if b == 2 && pair == (2, 3) {
        (BigUint::from(120u32), "(2,3,2): 120 arrangements".into())
    } else if b == 3 && pair == (3, 4) {
        (factorial(6), "(3,4,3): 6! arrangements".into())
    } else {
        let colours = factorial(cells.div_ceil(2)) * factorial(cells / 2);
        match Parity::of(b) {
            Parity::Free => (factorial(cells), format!("b = {b}: every arrangement")),
            Parity::Even => (factorial(cells) / 2u32, format!("b = {b}: even arrangements")),
            Parity::ColoursAlike => (
                colours / 2u32,
                format!(
                    "b = {b}: tiles on their checkerboard colour, both colours' parities alike"
                ),
            ),
            Parity::ColoursEven => (
                colours / 4u32,
                format!("b = {b}: tiles on their checkerboard colour, each colour even"),
            ),
        }
    };
    if !oriented {
        return (arrangements, case);
    }
    let quarters = 2 * cells as u32;
    let (orientations, how) = if b % 2 == 0 {
        (BigUint::from(2u32).pow(cells as u32 - 1), "2^(nm-1) orientations")
    } else if matches!(b % 8, 3 | 5) {
        (BigUint::from(2u32).pow(quarters - 1), "4^(nm)/2 orientations")
    } else {
        (BigUint::from(2u32).pow(quarters), "4^(nm) orientations")
    };
    (arrangements * orientations, format!("{case}; times {how}"))
}
