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
//! Boards are row-major, 0-based: tile `k` (written `k+1`) belongs on cell `k`.

mod cycles;
mod grid;
mod placement;
mod rules;
mod small;
mod turns;

#[cfg(test)]
mod tests;

pub use turns::{Shape, Turn, apply, qtm_length};

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
        Some(reason) => match small::solve(shape, &tiles) {
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
        Some(reason) => small::solve(shape, &board).ok_or(Unsolvable::Board(reason))?,
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
