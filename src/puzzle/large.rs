//! NRP boards of any size, past the 255 cells a [`super::Puzzle`] holds (its tiles are
//! bytes), up to 65,535 cells: read and write boards and sequences in twirl's notation, apply
//! sequences, decide solvability and count the reachable boards, all without listing the
//! moves (a 100x100 board with 3x3 blocks has 19,208 quarter turns of 10,000 cells each).
//!
//! A sequence evaluates to an *arrangement*: the board it makes of the solved board. Applying
//! one block turn to an arrangement costs `b^2` ([`constructive::apply_in_place`]), so
//! solutions of hundreds of thousands of turns are checked in milliseconds; a power of a
//! parenthesised group is taken by squaring. Solvability is Lam's conditions
//! ([`constructive::check`]) and the count Lam's theorem as twirl's exact orders confirm it
//! ([`constructive::reachable_boards`]).

use num_bigint::BigUint;

use super::board::{BoardStyle, QUARTER_MARKS, parse_tiles};
use super::sequence::{Exponent, Factor, Order, Sequence, Term};
use crate::error::escaped;
use crate::group::cycles::CycleStructure;
use crate::group::stabchain::{Perm, StabChain};
use crate::solvers::constructive::{self, Shape, Turn, Unsolvable};
use crate::{Error, Result};

pub use super::wide::WideBoard;

/// The most cells a board of any size may have: tiles are `u16`.
pub const MAX_LARGE_CELLS: usize = u16::MAX as usize;

/// An NRP puzzle of any size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LargeNrp {
    /// The board and its blocks.
    pub shape: Shape,
    /// Tiles turn with their block and must end upright.
    pub oriented: bool,
}

impl LargeNrp {
    /// The puzzle `nrp:<rows>x<cols>:<block>[:orient]`; fails past [`MAX_LARGE_CELLS`].
    pub fn new(rows: usize, cols: usize, block: usize, oriented: bool) -> Result<LargeNrp> {
        let cells = rows.saturating_mul(cols);
        if cells > MAX_LARGE_CELLS {
            return Err(Error::InvalidPuzzle {
                spec: format!("nrp:{rows}x{cols}:{block}"),
                reason: format!(
                    "expected at most {MAX_LARGE_CELLS} cells (tiles are 16-bit), found {cells}"
                ),
            });
        }
        Ok(LargeNrp { shape: Shape { rows, cols, block }, oriented })
    }

    /// The spec as typed: `nrp:16x25:9`, `nrp:16x25:9:orient`.
    pub fn spec(&self) -> String {
        let Shape { rows, cols, block } = self.shape;
        format!("nrp:{rows}x{cols}:{block}{}", if self.oriented { ":orient" } else { "" })
    }

    /// Number of cells.
    pub fn n_cells(&self) -> usize {
        self.shape.rows * self.shape.cols
    }

    /// Number of block positions (each with its quarter turns).
    pub fn n_blocks(&self) -> usize {
        let Shape { rows, cols, block } = self.shape;
        (rows - block + 1) * (cols - block + 1)
    }

    /// The solved board.
    pub fn solved(&self) -> WideBoard {
        let n = self.n_cells();
        WideBoard { tiles: (0..n as u16).collect(), orient: vec![0; n] }
    }

    /// Reads a board: tiles 1..rows*cols in book order, rows separated by `/` (or none), with
    /// orientation marks (`5<`) when tiles turn.
    pub fn parse_board(&self, text: &str) -> Result<WideBoard> {
        let style = if self.oriented { BoardStyle::Quarter } else { BoardStyle::Plain };
        let (tiles, orient) = parse_tiles(text, self.shape.rows, self.shape.cols, style)?;
        Ok(WideBoard { tiles: tiles.iter().map(|&t| t as u16).collect(), orient })
    }

    /// Writes a board as [`LargeNrp::parse_board`] reads it.
    pub fn format_board(&self, board: &WideBoard) -> String {
        let tile = |i: usize| match board.orient[i] % 4 {
            0 => (board.tiles[i] + 1).to_string(),
            o => format!("{}{}", board.tiles[i] + 1, QUARTER_MARKS[o as usize]),
        };
        let cells: Vec<String> = (0..board.tiles.len()).map(tile).collect();
        cells.chunks(self.shape.cols).map(|r| r.join(" ")).collect::<Vec<_>>().join(" / ")
    }

    /// Whether the board is solvable; if not, why (one line a reader of Lam's paper
    /// recognises).
    pub fn check(&self, board: &WideBoard) -> Result<std::result::Result<(), String>> {
        let verdict = if self.oriented {
            constructive::check_oriented(&self.shape, &board.tiles, &board.orient)
        } else {
            constructive::check(&self.shape, &board.tiles)
        };
        match verdict {
            Ok(()) => Ok(Ok(())),
            Err(Unsolvable::Board(reason)) => Ok(Err(reason)),
            Err(e) => Err(Error::InvalidBoard(e.reason().to_string())),
        }
    }

    /// The number of reachable boards and the case of the rules that gives it.
    pub fn order(&self) -> (BigUint, String) {
        constructive::reachable_boards(&self.shape, self.oriented)
    }

    /// The number of reachable boards from a stabilizer chain of the block turns (points
    /// `cell * k + orientation`): independent of the rules, and slow past a few hundred
    /// cells. Fails past 65,535 points.
    pub fn chain_order(&self) -> Result<BigUint> {
        let k = if self.oriented { 4 } else { 1 };
        let degree = self.n_cells() * k;
        if degree > MAX_LARGE_CELLS {
            return Err(Error::Unsupported(format!(
                "a stabilizer chain holds at most {MAX_LARGE_CELLS} points, this board has {degree}"
            )));
        }
        let Shape { rows, cols, block } = self.shape;
        let mut gens: Vec<Perm> = Vec::new();
        for top in 0..=rows - block {
            for left in 0..=cols - block {
                let turned = self.turned(&self.solved(), Turn { top, left, quarters: 1 });
                // The tile of cell `from` lands on `to`, turned by the block's quarter.
                let mut p: Perm = vec![0; degree];
                for (to, &from) in turned.tiles.iter().enumerate() {
                    for o in 0..k {
                        let twist = usize::from(turned.orient[to]);
                        p[usize::from(from) * k + o] = (to * k + (o + twist) % k) as u16;
                    }
                }
                gens.push(p);
            }
        }
        Ok(StabChain::new(degree, &gens).order())
    }

    /// Evaluates a sequence of block names, groups and powers to the arrangement it makes of
    /// the solved board. Letters are refused: they are bound on boards of at most 255 cells.
    pub fn eval(&self, seq: &Sequence, order: Order) -> Result<WideBoard> {
        let mut acc = self.solved();
        self.eval_into(&mut acc, &seq.factors, order)
            .map_err(|reason| Error::InvalidSequence { text: escaped(&seq.text), reason })?;
        Ok(acc)
    }

    fn eval_into(
        &self,
        acc: &mut WideBoard,
        factors: &[Factor],
        order: Order,
    ) -> std::result::Result<(), String> {
        let mut step = |f: &Factor| -> std::result::Result<(), String> {
            match &f.term {
                Term::Move(name) => {
                    let (top, left) = self.block_of(name)?;
                    let quarters = f.power.residue(&BigUint::from(4u32));
                    let quarters = quarters.iter_u32_digits().next().unwrap_or(0) as u8;
                    if quarters != 0 {
                        self.turn(acc, Turn { top, left, quarters });
                    }
                }
                Term::Group(inner) => {
                    let mut g = self.solved();
                    self.eval_into(&mut g, inner, order)?;
                    *acc = self.applied(acc, &self.power(&g, &f.power));
                }
                Term::Letter(c) => {
                    return Err(format!(
                        "letter {c}: letters (--bind, --define) are evaluated on boards of at \
                         most 255 cells; write block names (R2C3) here"
                    ));
                }
            }
            Ok(())
        };
        match order {
            Order::LeftToRight => factors.iter().try_for_each(&mut step),
            Order::RightToLeft => factors.iter().rev().try_for_each(&mut step),
        }
    }

    /// The top-left cell (0-based) of block `R<row>C<col>`.
    fn block_of(&self, name: &str) -> std::result::Result<(usize, usize), String> {
        let Shape { rows, cols, block } = self.shape;
        let coords = name
            .strip_prefix('R')
            .and_then(|rest| rest.split_once('C'))
            .and_then(|(r, c)| Some((r.parse::<usize>().ok()?, c.parse::<usize>().ok()?)));
        let Some((r, c)) = coords else {
            return Err(format!(
                "`{}` is not a move of {} (blocks are named R<row>C<col>)",
                escaped(name),
                self.spec()
            ));
        };
        let (last_r, last_c) = (rows - block + 1, cols - block + 1);
        if r == 0 || c == 0 || r > last_r || c > last_c {
            return Err(format!(
                "block {name} is outside the board: {} has {block}x{block} blocks \
                 R1C1..R{last_r}C{last_c}",
                self.spec()
            ));
        }
        Ok((r - 1, c - 1))
    }

    /// Turns one block of a board in place (its orientations too when tiles turn).
    fn turn(&self, board: &mut WideBoard, t: Turn) {
        let orient = if self.oriented { Some(board.orient.as_mut_slice()) } else { None };
        constructive::apply_in_place(&self.shape, &mut board.tiles, orient, &[t]);
    }

    fn turned(&self, board: &WideBoard, t: Turn) -> WideBoard {
        let mut out = board.clone();
        let orient = Some(out.orient.as_mut_slice());
        constructive::apply_in_place(&self.shape, &mut out.tiles, orient, &[t]);
        out
    }

    /// Applies block turns to a board.
    pub fn apply_turns(&self, board: &WideBoard, turns: &[Turn]) -> WideBoard {
        let mut out = board.clone();
        let orient = if self.oriented { Some(out.orient.as_mut_slice()) } else { None };
        constructive::apply_in_place(&self.shape, &mut out.tiles, orient, turns);
        out
    }

    /// The board `element` (an arrangement of the solved board) makes of `board`: the tile
    /// it brings to cell `p` from cell `q` is the tile `board` has on `q`.
    pub fn applied(&self, board: &WideBoard, element: &WideBoard) -> WideBoard {
        let from = |p: usize| usize::from(element.tiles[p]);
        WideBoard {
            tiles: (0..board.tiles.len()).map(|p| board.tiles[from(p)]).collect(),
            orient: (0..board.tiles.len())
                .map(|p| (board.orient[from(p)] + element.orient[p]) % 4)
                .collect(),
        }
    }

    /// `element` raised to an exponent: reduced modulo its order, by squaring.
    fn power(&self, element: &WideBoard, k: &Exponent) -> WideBoard {
        let mut k = k.residue(&self.element_order(element));
        let (mut acc, mut square) = (self.solved(), element.clone());
        let two = BigUint::from(2u32);
        while k > BigUint::ZERO {
            if k.bit(0) {
                acc = self.applied(&acc, &square);
            }
            k /= &two;
            if k > BigUint::ZERO {
                square = self.applied(&square, &square);
            }
        }
        acc
    }

    /// The order of an element: the lcm over its cycles of the length times the repetitions
    /// its turns need (4 / gcd(sum of turns, 4)).
    pub fn element_order(&self, element: &WideBoard) -> BigUint {
        let n = element.tiles.len();
        let mut seen = vec![false; n];
        let mut order = BigUint::from(1u32);
        for start in 0..n {
            if seen[start] {
                continue;
            }
            let (mut len, mut turn, mut p) = (0u64, 0u64, start);
            while !seen[p] {
                seen[p] = true;
                len += 1;
                turn += u64::from(element.orient[p]);
                p = usize::from(element.tiles[p]);
            }
            let times = match turn % 4 {
                0 => 1,
                2 => 2,
                _ => 4,
            };
            let cycle = BigUint::from(len * times);
            order = num_integer_lcm(&order, &cycle);
        }
        order
    }

    /// The cycles, colour classes and turned tiles of an element.
    pub fn cycle_structure(&self, element: &WideBoard) -> CycleStructure {
        // perm[q] = p where the tile of cell q lands; the turn is the one it ends with.
        let mut perm = vec![0u16; element.tiles.len()];
        let mut twist = vec![0u8; element.tiles.len()];
        for (p, &q) in element.tiles.iter().enumerate() {
            perm[usize::from(q)] = p as u16;
            twist[usize::from(q)] = element.orient[p];
        }
        let colours = self.shape.block % 2 == 1;
        let orient_mod = if self.oriented { 4 } else { 1 };
        CycleStructure::of_parts(&perm, &twist, orient_mod, colours.then_some(self.shape.cols))
    }
}

fn num_integer_lcm(a: &BigUint, b: &BigUint) -> BigUint {
    let (mut x, mut y) = (a.clone(), b.clone());
    while y > BigUint::ZERO {
        let r = &x % &y;
        x = y;
        y = r;
    }
    a / x * b
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::puzzle::Puzzle;
    use crate::puzzle::sequence::Env;

    /// An arrangement as a board of the small puzzle, for comparing with [`Puzzle::apply`].
    fn small(board: &WideBoard) -> crate::puzzle::Board {
        crate::puzzle::Board {
            tiles: board.tiles.iter().map(|&t| t as u8).collect(),
            orient: board.orient.clone(),
        }
    }

    #[test]
    fn sequences_make_the_boards_the_small_puzzle_makes() {
        for (spec, (rows, cols, block, oriented), text) in [
            ("nrp:3x3:2", (3, 3, 2, false), "R1C1 R2C2' (R1C2 R2C1^2)^5 R1C1^-3"),
            ("nrp:4x5:3:orient", (4, 5, 3, true), "R1C1 (R2C3' R1C2)^7 R2C1^2"),
            ("nrp:5x5:4:orient", (5, 5, 4, true), "(R1C1 R2C2)^123456789 R1C2'"),
        ] {
            let large = LargeNrp::new(rows, cols, block, oriented).unwrap();
            let puzzle = Puzzle::parse(spec, None).unwrap();
            let seq = Sequence::parse(text).unwrap();
            for order in [Order::LeftToRight, Order::RightToLeft] {
                let got = large.eval(&seq, order).unwrap();
                let m = Env::new().with_order(order).eval(&puzzle, &seq).unwrap();
                let want = puzzle.apply(&puzzle.solved(), &m);
                assert_eq!(small(&got), want, "{spec} {text}");
                let start = puzzle.parse_board(&puzzle.format_board(&want)).unwrap();
                let start_wide = large.parse_board(&puzzle.format_board(&want)).unwrap();
                assert_eq!(small(&large.applied(&start_wide, &got)), puzzle.apply(&start, &m));
                assert_eq!(
                    large.element_order(&got),
                    BigUint::from(m.order(puzzle.orient_mod)),
                    "{spec} {text}"
                );
            }
        }
    }

    #[test]
    fn boards_read_back_and_refusals_say_why() {
        let p = LargeNrp::new(16, 25, 9, true).unwrap();
        let b = p.eval(&Sequence::parse("R1C1 R8C17'").unwrap(), Order::LeftToRight).unwrap();
        assert_eq!(p.parse_board(&p.format_board(&b)).unwrap(), b);
        assert!(p.check(&b).unwrap().is_ok());
        let err = |text: &str| p.parse_board(text).unwrap_err().to_string();
        assert!(err("1 2 3").contains("expected 400 tiles"));
        assert!(err(&"1 ".repeat(400)).contains("appears twice"));
        let seq = |text: &str| {
            p.eval(&Sequence::parse(text).unwrap(), Order::LeftToRight).unwrap_err().to_string()
        };
        assert!(seq("R9C1").contains("outside the board"));
        assert!(seq("X").contains("letters"));
        assert!(LargeNrp::new(300, 300, 3, false).is_err());
    }

    #[test]
    fn lams_count_equals_the_stabilizer_chain() {
        // Every shape to 6x6 with and without orientation, and a few past 255 cells.
        let mut shapes = Vec::new();
        for n in 2..=6 {
            for m in n..=6 {
                for b in 2..=n {
                    shapes.push((n, m, b, false));
                    if n * m <= 20 {
                        shapes.push((n, m, b, true));
                    }
                }
            }
        }
        shapes.extend([(16, 17, 3, false), (16, 16, 4, false), (13, 20, 7, false)]);
        for (n, m, b, oriented) in shapes {
            let p = LargeNrp::new(n, m, b, oriented).unwrap();
            let (count, case) = p.order();
            assert_eq!(p.chain_order().unwrap(), count, "nrp:{n}x{m}:{b} {oriented}: {case}");
        }
    }
}
