//! Block turns on boards of any size: the shape, one turn, applying a sequence, counting and
//! tidying sequences.

/// An NRP board shape: `rows x cols` cells turned by `block x block` blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shape {
    /// Rows (`n`).
    pub rows: usize,
    /// Columns (`m`).
    pub cols: usize,
    /// Block side (`b`).
    pub block: usize,
}

/// One block turn: the block with top-left cell `(top, left)` (0-based), turned `quarters`
/// (1, 2 or 3) quarter turns counter-clockwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Turn {
    /// Top row of the block, 0-based.
    pub top: usize,
    /// Left column of the block, 0-based.
    pub left: usize,
    /// Quarter turns counter-clockwise: 1, 2 or 3 (3 is one clockwise quarter).
    pub quarters: u8,
}

impl Turn {
    /// twirl's notation: `R2C3` (counter-clockwise quarter), `R2C3'` (clockwise), `R2C3^2`.
    pub fn name(&self) -> String {
        let base = format!("R{}C{}", self.top + 1, self.left + 1);
        match self.quarters {
            1 => base,
            2 => format!("{base}^2"),
            _ => format!("{base}'"),
        }
    }

    /// The turn that undoes this one.
    pub fn inverse(self) -> Turn {
        Turn { quarters: 4 - self.quarters, ..self }
    }
}

/// The board after `turns`: the content of block cell `(i, j)` goes to `(b-1-j, i)` per
/// counter-clockwise quarter, as in [`crate::puzzle::nrp::block_turn`].
///
/// # Panics
/// If a turn's block does not fit the board or `tiles` has the wrong length.
pub fn apply(shape: &Shape, tiles: &[u16], turns: &[Turn]) -> Vec<u16> {
    assert_eq!(tiles.len(), shape.rows * shape.cols, "board size");
    let mut out = tiles.to_vec();
    for t in turns {
        turn_in_place(shape, &mut out, *t);
    }
    out
}

/// The board and its orientations after `turns`: a counter-clockwise quarter turn adds +1
/// (mod 4) to the orientation of every tile in the block, as in twirl's oriented NRP.
///
/// # Panics
/// If a turn's block does not fit the board or `tiles` or `orient` has the wrong length.
pub fn apply_oriented(
    shape: &Shape,
    tiles: &[u16],
    orient: &[u8],
    turns: &[Turn],
) -> (Vec<u16>, Vec<u8>) {
    assert_eq!(orient.len(), shape.rows * shape.cols, "orientations");
    let mut out = tiles.to_vec();
    let mut turned = orient.to_vec();
    for t in turns {
        turn_in_place(shape, &mut out, *t);
        turn_oriented_in_place(shape, &mut turned, *t);
    }
    (out, turned)
}

/// Applies `turns` to a board in place, and to its orientations when given (as
/// [`apply_oriented`] does, without copying the board: a block turn costs `b^2`).
///
/// # Panics
/// If a turn's block does not fit the board.
pub fn apply_in_place(
    shape: &Shape,
    tiles: &mut [u16],
    mut orient: Option<&mut [u8]>,
    turns: &[Turn],
) {
    for t in turns {
        turn_in_place(shape, tiles, *t);
        if let Some(o) = orient.as_deref_mut() {
            turn_oriented_in_place(shape, o, *t);
        }
    }
}

/// Turns one block of a row-major orientation array in place: the orientations move with
/// their tiles and gain the turn's quarters.
pub(super) fn turn_oriented_in_place(shape: &Shape, orient: &mut [u8], turn: Turn) {
    turn_in_place(shape, orient, turn);
    for r in turn.top..turn.top + shape.block {
        for c in turn.left..turn.left + shape.block {
            let x = &mut orient[r * shape.cols + c];
            *x = (*x + turn.quarters) % 4;
        }
    }
}

/// Turns one block of a row-major board in place.
pub(super) fn turn_in_place<T: Copy>(shape: &Shape, tiles: &mut [T], turn: Turn) {
    let (b, cols) = (shape.block, shape.cols);
    assert!(
        turn.top + b <= shape.rows && turn.left + b <= cols && (1..=3).contains(&turn.quarters),
        "turn {turn:?} does not fit ({}, {}, {b})",
        shape.rows,
        cols
    );
    let before: Vec<T> =
        (0..b * b).map(|k| tiles[(turn.top + k / b) * cols + turn.left + k % b]).collect();
    let e = b - 1;
    for i in 0..b {
        for j in 0..b {
            let (r, c) = match turn.quarters {
                1 => (e - j, i),
                2 => (e - i, e - j),
                _ => (j, e - i),
            };
            tiles[(turn.top + r) * cols + turn.left + c] = before[i * b + j];
        }
    }
}

/// Quarter-turn count (a half turn counts 2).
pub fn qtm_length(turns: &[Turn]) -> usize {
    turns.iter().map(|t| if t.quarters == 2 { 2 } else { 1 }).sum()
}

/// The sequence that undoes `turns`.
pub(super) fn inverse(turns: &[Turn]) -> Vec<Turn> {
    turns.iter().rev().map(|t| t.inverse()).collect()
}

/// Merges neighbouring turns of the same block and drops those that cancel.
pub(super) fn simplify(turns: Vec<Turn>) -> Vec<Turn> {
    let mut out: Vec<Turn> = Vec::with_capacity(turns.len());
    for t in turns {
        match out.last_mut() {
            Some(last) if (last.top, last.left) == (t.top, t.left) => {
                let q = (last.quarters + t.quarters) % 4;
                if q == 0 {
                    out.pop();
                } else {
                    last.quarters = q;
                }
            }
            _ => out.push(t),
        }
    }
    out
}
