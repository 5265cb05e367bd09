//! A constructive solver for every solvable NRP board `(n, m, b)` of any size.
//!
//! twirl's searches need the whole state space; this solver needs none, so it works on boards
//! of any size (tiles are `u16`: up to 65,536 cells), yielding *a* solution, not a shortest one.
//! It decides solvability first, by Lam's Theorem 1.1 as twirl's exact group orders confirm it
//! ([`rules`]), and says why a board is not solvable. The small exceptional groups (`b = 1`,
//! `b = n = m`, `(2,3,2)`, `(3,4,3)`) are listed and solved by a breadth-first search
//! ([`small`]); every other board is solved by placement ([`placement`]): tiles carried home
//! directly in book order, one parity turn, then conjugated 3-cycles ([`cycles`]). Every
//! solution is applied to the board before it is returned.
//!
//! With tile orientation ([`solve_oriented`]) the rules of [`orientation_rules`] add to Lam's;
//! tiles are placed as above, then turned upright by pair twists found by search
//! ([`twists`], [`orienting`]); for odd `b` the orientation sum of each colour is set first by
//! macros that change it (for `b >= 7` made by scrambling a small window and placing its tiles
//! back).
//!
//! Boards are row-major, 0-based: tile `k` (written `k+1`) belongs on cell `k`.

mod cycles;
mod grid;
mod orientation_rules;
mod orienting;
mod placement;
mod rules;
mod small;
mod turns;
mod twists;

#[cfg(test)]
mod tests;

#[cfg(test)]
mod oriented_tests;

pub use rules::{colour_parities, reachable_boards};
pub use turns::{Shape, Turn, apply, apply_in_place, apply_oriented, qtm_length};

/// Why [`solve`] returns no solution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unsolvable {
    /// The moves cannot solve this board; the reason is one line a reader of Lam's paper
    /// recognises.
    Board(String),
    /// The shape or the board is malformed (not a permutation, block larger than the board).
    Invalid(String),
    /// The solver failed on a solvable board (a bug: it never returns a wrong solution).
    Internal(String),
}

impl Unsolvable {
    /// The one-line reason.
    pub fn reason(&self) -> &str {
        match self {
            Unsolvable::Board(r) | Unsolvable::Invalid(r) | Unsolvable::Internal(r) => r,
        }
    }
}

impl std::fmt::Display for Unsolvable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unsolvable::Board(r) => write!(f, "unsolvable: {r}"),
            Unsolvable::Invalid(r) => write!(f, "invalid board: {r}"),
            Unsolvable::Internal(r) => write!(f, "internal error of the constructive solver: {r}"),
        }
    }
}

impl std::error::Error for Unsolvable {}

/// Whether a board is solvable, and if not, why (without solving it).
pub fn check(shape: &Shape, tiles: &[u16]) -> Result<(), Unsolvable> {
    let tiles = validated(shape, tiles)?;
    match rules::small_group(shape) {
        Some(reason) => match small::solve(shape, &tiles, None) {
            Some(_) => Ok(()),
            None => Err(Unsolvable::Board(reason)),
        },
        None => rules::check(shape, &tiles).map_err(Unsolvable::Board),
    }
}

/// A solution of the board: turns that bring it to the solved board (not a shortest one, except
/// in the small exceptional groups).
pub fn solve(shape: &Shape, tiles: &[u16]) -> Result<Vec<Turn>, Unsolvable> {
    let board = validated(shape, tiles)?;
    let found = match rules::small_group(shape) {
        Some(reason) => small::solve(shape, &board, None).ok_or(Unsolvable::Board(reason))?,
        None => {
            rules::check(shape, &board).map_err(Unsolvable::Board)?;
            let macros = cycles::three_cycles(shape.rows, shape.cols, shape.block)
                .map_err(Unsolvable::Internal)?;
            let found = placement::Placement::new(*shape, &board, &macros)
                .solve()
                .map_err(Unsolvable::Internal)?;
            turns::simplify(found)
        }
    };
    let after = apply(shape, tiles, &found);
    if after.iter().enumerate().any(|(cell, &t)| t as usize != cell) {
        return Err(Unsolvable::Internal("the solution found does not solve the board".into()));
    }
    Ok(found)
}

/// Whether a board of oriented NRP (`orient[cell]` in `0..4`: the orientation of the tile on
/// `cell`, +1 per counter-clockwise quarter turn) is solvable, and if not, why.
pub fn check_oriented(shape: &Shape, tiles: &[u16], orient: &[u8]) -> Result<(), Unsolvable> {
    let board = validated(shape, tiles)?;
    validated_orient(shape, orient)?;
    check_oriented_board(shape, &board, orient)
}

fn check_oriented_board(shape: &Shape, board: &[u32], orient: &[u8]) -> Result<(), Unsolvable> {
    if whole_board(shape) {
        return match small::solve(shape, board, Some(orient)) {
            Some(_) => Ok(()),
            None => Err(Unsolvable::Board(WHOLE_BOARD.into())),
        };
    }
    check(shape, &board.iter().map(|&t| t as u16).collect::<Vec<_>>())?;
    orientation_rules::check(shape, board, orient).map_err(Unsolvable::Board)
}

const WHOLE_BOARD: &str = "with b = n = m the only move turns the whole board: only its 4 \
                           rotations, with every tile turned alike, are solvable";

fn whole_board(shape: &Shape) -> bool {
    shape.block > 1 && shape.block == shape.rows && shape.block == shape.cols
}

/// A solution of a board of oriented NRP: turns that bring every tile home and upright (not a
/// shortest one). Tiles are placed as by [`solve`], then turned upright by pair twists
/// ([`orienting`]) that move no tile.
pub fn solve_oriented(
    shape: &Shape,
    tiles: &[u16],
    orient: &[u8],
) -> Result<Vec<Turn>, Unsolvable> {
    let board = validated(shape, tiles)?;
    validated_orient(shape, orient)?;
    check_oriented_board(shape, &board, orient)?;
    let (n, m, b) = (shape.rows, shape.cols, shape.block);
    let found = if whole_board(shape) || (b == 2 && (n.min(m), n.max(m)) == (2, 3)) {
        // At most 3,840 boards: listed.
        small::solve(shape, &board, Some(orient)).ok_or_else(|| {
            Unsolvable::Internal("a board the rules accept was not reached".into())
        })?
    } else if b == 1 {
        // Every tile is home (checked); each turns upright on its own.
        (0..n * m)
            .filter(|&x| orient[x] != 0)
            .map(|x| Turn { top: x / m, left: x % m, quarters: 4 - orient[x] })
            .collect()
    } else {
        let mut found = solve(shape, tiles)?;
        let (_, turned) = apply_oriented(shape, tiles, orient, &found);
        let macros = twists::twist_macros(n, m, b).map_err(Unsolvable::Internal)?;
        found.extend(orienting::upright(shape, &turned, &macros).map_err(Unsolvable::Internal)?);
        turns::simplify(found)
    };
    let (after, turned) = apply_oriented(shape, tiles, orient, &found);
    if after.iter().enumerate().any(|(cell, &t)| t as usize != cell)
        || turned.iter().any(|&o| o != 0)
    {
        return Err(Unsolvable::Internal("the solution found does not solve the board".into()));
    }
    Ok(found)
}

fn validated_orient(shape: &Shape, orient: &[u8]) -> Result<(), Unsolvable> {
    if orient.len() != shape.rows * shape.cols {
        return Err(Unsolvable::Invalid(format!(
            "{} orientations for a board of {} cells",
            orient.len(),
            shape.rows * shape.cols
        )));
    }
    match orient.iter().position(|&o| o >= 4) {
        Some(cell) => Err(Unsolvable::Invalid(format!(
            "orientation {} on cell {} is not in 0..4",
            orient[cell],
            cell + 1
        ))),
        None => Ok(()),
    }
}

/// The board as `u32` tiles, after checking the shape and that it is a permutation.
fn validated(shape: &Shape, tiles: &[u16]) -> Result<Vec<u32>, Unsolvable> {
    let (n, m, b) = (shape.rows, shape.cols, shape.block);
    if b == 0 || b > n.min(m) {
        return Err(Unsolvable::Invalid(format!("a {b}x{b} block does not fit a {n}x{m} board")));
    }
    if tiles.len() != n * m {
        return Err(Unsolvable::Invalid(format!(
            "{} tiles for a {n}x{m} board of {} cells",
            tiles.len(),
            n * m
        )));
    }
    let mut seen = vec![false; tiles.len()];
    for &t in tiles {
        let t = t as usize;
        if t >= tiles.len() || seen[t] {
            return Err(Unsolvable::Invalid(format!(
                "tile {} is out of range or appears twice",
                t + 1
            )));
        }
        seen[t] = true;
    }
    Ok(tiles.iter().map(|&t| u32::from(t)).collect())
}
