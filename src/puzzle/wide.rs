//! Boards and moves with 16-bit cells, for puzzles past the 255 cells of [`super::Board`] and
//! [`super::Move`] (whose bytes keep the search's boards small): NRP boards of any size
//! ([`super::large`]) and definitions of any number of pieces ([`super::defined`]). Nothing
//! here is on a search's path; these types serve `info`, `order`, `check` and `apply`.

use super::{Board, Move};

/// A board of any size, or an element as the board it makes of the solved board.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct WideBoard {
    /// `tiles[p]`: the tile (0-based) standing on cell `p`.
    pub tiles: Vec<u16>,
    /// `orient[p]`: its orientation (0 = as solved), modulo the puzzle's orientation modulus.
    pub orient: Vec<u8>,
}

impl WideBoard {
    /// The same board in bytes, when its tiles fit them.
    pub fn narrow(&self) -> Option<Board> {
        let tiles = self.tiles.iter().map(|&t| u8::try_from(t).ok()).collect::<Option<_>>()?;
        Some(Board { tiles, orient: self.orient.clone() })
    }
}

/// A move of any size: where every cell's tile goes and how much it turns on the way, as
/// [`Move`] with `u16` cells.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WideMove {
    /// The name in the puzzle's notation.
    pub name: String,
    /// The tile standing at cell `i` moves to cell `perm[i]`.
    pub perm: Vec<u16>,
    /// The tile leaving cell `i` turns by `twist[i]` (modulo the puzzle's orientation modulus).
    pub twist: Vec<u8>,
}

impl WideMove {
    /// The element that leaves every one of `n` cells alone, named `()`.
    pub fn identity(n: usize) -> WideMove {
        WideMove { name: "()".into(), perm: (0..n).map(|i| i as u16).collect(), twist: vec![0; n] }
    }

    /// This move followed by `next` (read left to right), unnamed.
    pub fn then(&self, next: &WideMove, orient_mod: u8) -> WideMove {
        let k = u16::from(orient_mod);
        let (perm, twist) = self
            .perm
            .iter()
            .zip(&self.twist)
            .map(|(&j, &t)| {
                let j = usize::from(j);
                (next.perm[j], ((u16::from(t) + u16::from(next.twist[j])) % k) as u8)
            })
            .unzip();
        WideMove { name: String::new(), perm, twist }
    }

    /// The move that undoes this one, unnamed.
    pub fn inverse(&self, orient_mod: u8) -> WideMove {
        let n = self.perm.len();
        let (mut perm, mut twist) = (vec![0u16; n], vec![0u8; n]);
        for (i, (&j, &t)) in self.perm.iter().zip(&self.twist).enumerate() {
            perm[usize::from(j)] = i as u16;
            twist[usize::from(j)] = (orient_mod - t % orient_mod) % orient_mod;
        }
        WideMove { name: String::new(), perm, twist }
    }

    /// The move repeated `k` times (`k < 0`: its inverse), by squaring; unnamed.
    pub fn power(&self, k: i64, orient_mod: u8) -> WideMove {
        if k < 0 {
            self.inverse(orient_mod).power_unsigned(k.unsigned_abs().into(), orient_mod)
        } else {
            self.power_unsigned(k.unsigned_abs().into(), orient_mod)
        }
    }

    /// The move repeated `k` times, by squaring; unnamed.
    pub fn power_unsigned(&self, k: u128, orient_mod: u8) -> WideMove {
        let identity = WideMove::identity(self.perm.len());
        super::power_by_squaring(identity, self, k, |a, b| a.then(b, orient_mod))
    }

    /// The order (at least 1), as [`Move::order`]; saturates at `u128::MAX`, as the
    /// definition reader counts orders (a move of thousands of cells in cycles of coprime
    /// lengths could pass it).
    pub fn order(&self, orient_mod: u8) -> u128 {
        let m = u128::from(orient_mod.max(1));
        let mut seen = vec![false; self.perm.len()];
        let mut order: u128 = 1;
        for start in 0..self.perm.len() {
            let (mut len, mut turn, mut cell) = (0u128, 0u128, start);
            while !seen[cell] {
                seen[cell] = true;
                len += 1;
                turn += u128::from(self.twist[cell]);
                cell = usize::from(self.perm[cell]);
            }
            if len > 0 {
                let cycle = len * (m / gcd(turn % m, m));
                order = (order / gcd(order, cycle)).saturating_mul(cycle);
            }
        }
        order
    }

    /// The board this move makes of `board` (each tile moves to `perm` of its cell, turning
    /// by the cell's `twist`).
    pub fn applied_to(&self, board: &WideBoard, orient_mod: u8) -> WideBoard {
        let mut out = board.clone();
        for (i, (&j, &t)) in self.perm.iter().zip(&self.twist).enumerate() {
            let j = usize::from(j);
            out.tiles[j] = board.tiles[i];
            out.orient[j] =
                ((u16::from(board.orient[i]) + u16::from(t)) % u16::from(orient_mod)) as u8;
        }
        out
    }

    /// The same move in bytes, when its cells fit them (named as this one).
    pub fn narrow(&self) -> Option<Move> {
        let perm = self.perm.iter().map(|&p| u8::try_from(p).ok()).collect::<Option<_>>()?;
        Some(Move { name: self.name.clone(), perm, twist: self.twist.clone() })
    }
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_moves_act_as_byte_moves() {
        let a = Move { name: "A".into(), perm: vec![1, 2, 0, 3], twist: vec![1, 0, 2, 1] };
        let b = Move { name: "B".into(), perm: vec![0, 3, 2, 1], twist: vec![0, 1, 1, 0] };
        let wide = |m: &Move| WideMove {
            name: m.name.clone(),
            perm: m.perm.iter().map(|&p| u16::from(p)).collect(),
            twist: m.twist.clone(),
        };
        let (wa, wb) = (wide(&a), wide(&b));
        let k = 3;
        assert_eq!(wa.then(&wb, k).narrow().unwrap().perm, a.then(&b, k).perm);
        assert_eq!(wa.then(&wb, k).twist, a.then(&b, k).twist);
        assert_eq!(wa.power(-5, k).narrow().unwrap().twist, a.power(-5, k).twist);
        assert_eq!(wa.power(-5, k).perm, wide(&a.power(-5, k)).perm);
        assert_eq!(wa.order(k), a.order(k));
        assert_eq!(
            wa.then(&wa.inverse(k), k),
            WideMove { name: String::new(), ..wide(&Move::identity(4)) }
        );
        let board = WideBoard { tiles: vec![0, 1, 2, 3], orient: vec![0; 4] };
        assert_eq!(
            wa.applied_to(&board, k).narrow().unwrap(),
            a.applied_to(&board.narrow().unwrap(), k)
        );
        // Cells past a byte stay wide.
        let big = WideMove::identity(300);
        assert!(big.narrow().is_none());
        assert_eq!(big.order(3), 1);
    }
}
