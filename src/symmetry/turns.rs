//! The rest of a class entry when every cell is a key cell: the tiles' turns. Flips (mod 2,
//! free) are bit `t` for tile `t`, which XOR runs move; other turns are digit `p` (base
//! `modulus`) for the turn on cell `p`.
//!
//! Ranking it is on the path of every neighbour (the 2x2x2 spent a fifth of its search
//! here), so for moduli up to 4 the cells' turns are gathered two bits each by one bit
//! extraction ([`byte_fields`]) and valued a byte (four digits) at a time from tables, not by a chain of
//! multiplications.

use crate::rank::Cells;
use crate::rank::bits::byte_fields;
use crate::rank::layout::{MAX_CELLS, TILE_BITS, TILE_MASK};

/// Digits per table: a byte of two-bit digits.
const DIGITS_PER_BYTE: usize = 4;
/// Most rests whose turns are kept as a word of bytes, one per cell (8 bytes each).
const MAX_KEPT_TURNS: u64 = 1 << 16;

/// The turns as a number.
#[derive(Debug)]
pub(super) struct Turns {
    /// The turns are mod this.
    pub modulus: u8,
    /// The turns add up to 0 and the last cell's digit is left out.
    pub constrained: bool,
    /// Cells of the board.
    n: usize,
    /// Moduli up to 4: per byte of the packed digits, the value of each of its 256 bytes.
    by_byte: Vec<[u64; 256]>,
    /// Boards of at most 8 cells and at most [`MAX_KEPT_TURNS`] rests, not flips: per rest,
    /// each cell's turn in its byte, shifted into place (a board takes them by one OR; the
    /// digits by divisions were 7% of the 2x2x2's search).
    by_rest: Vec<u64>,
}

impl Turns {
    pub fn new(modulus: u8, constrained: bool, n: usize) -> Turns {
        let digits = n - usize::from(constrained);
        let k = modulus as u64;
        let by_byte = if (3..=4).contains(&modulus) {
            (0..digits.div_ceil(DIGITS_PER_BYTE))
                .map(|b| {
                    let mut values = [0u64; 256];
                    for (byte, value) in values.iter_mut().enumerate() {
                        for i in 0..DIGITS_PER_BYTE {
                            let t = b * DIGITS_PER_BYTE + i;
                            let d = (byte >> (2 * i)) as u64 & 3;
                            // The last cell of constrained turns, and digits a board never
                            // holds (3 mod 3), add nothing: the table is read only at bytes
                            // of real boards.
                            if t < digits && d < k {
                                *value += d * k.pow(t as u32);
                            }
                        }
                    }
                    values
                })
                .collect()
        } else {
            Vec::new()
        };
        let mut turns = Turns { modulus, constrained, n, by_byte, by_rest: Vec::new() };
        if n <= 8 && turns.count() <= MAX_KEPT_TURNS && !turns.is_flips() {
            turns.by_rest = (0..turns.count())
                .map(|rest| {
                    let digits = turns.digits(rest);
                    (0..n).fold(0, |w, p| w | (digits[p] as u64) << (8 * p + TILE_BITS as usize))
                })
                .collect();
        }
        turns
    }

    /// How many values the rest takes.
    pub fn count(&self) -> u64 {
        (self.modulus as u64).pow((self.n - usize::from(self.constrained)) as u32)
    }

    /// Whether the rest is a bit per tile, the tile's flip (XOR runs can then move it).
    pub fn is_flips(&self) -> bool {
        self.modulus == 2 && !self.constrained
    }

    /// The turns of a board as a rest.
    #[inline(always)]
    pub fn of(&self, board: &Cells) -> u64 {
        let cells = &board.0[..self.n];
        if self.is_flips() {
            return cells.iter().fold(0, |f, &b| f | ((b >> TILE_BITS) as u64) << (b & TILE_MASK));
        }
        if !self.by_byte.is_empty() {
            let packed = turn_pairs(&board.0);
            return self
                .by_byte
                .iter()
                .enumerate()
                .fold(0, |r, (i, values)| r + values[(packed >> (8 * i)) as usize & 0xff]);
        }
        let last = self.n - usize::from(self.constrained);
        cells[..last]
            .iter()
            .rev()
            .fold(0, |r, &b| r * self.modulus as u64 + (b >> TILE_BITS) as u64)
    }

    /// An arrangement turned as `rest` says (see [`Turns::of`]).
    #[inline(always)]
    pub fn apply(&self, mut board: Cells, rest: u64) -> Cells {
        if let Some(&turns) = self.by_rest.get(rest as usize) {
            let cells = u64::from_le_bytes(board.0[..8].try_into().expect("8 bytes"));
            board.0[..8].copy_from_slice(&(cells | turns).to_le_bytes());
            return board;
        }
        let digit = self.digits(rest);
        for (p, b) in board.0[..self.n].iter_mut().enumerate() {
            let at = if self.is_flips() { (*b & TILE_MASK) as usize } else { p };
            *b |= digit[at] << TILE_BITS;
        }
        board
    }

    /// The digit of each cell (of each tile for flips) in `rest`.
    fn digits(&self, rest: u64) -> [u8; MAX_CELLS] {
        let k = self.modulus as u64;
        let last = self.n - usize::from(self.constrained);
        let mut digit = [0u8; MAX_CELLS];
        let (mut r, mut sum) = (rest, 0u64);
        for d in &mut digit[..last] {
            *d = (r % k) as u8;
            sum += r % k;
            r /= k;
        }
        if self.constrained {
            digit[last] = ((k - sum % k) % k) as u8;
        }
        digit
    }
}

/// The turns of cells 0 to 15 (each below 4), two bits each, cell 0 lowest.
#[inline(always)]
fn turn_pairs(cells: &[u8; MAX_CELLS]) -> u64 {
    const _: () = assert!(TILE_BITS == 5, "turns in bits 5 and 6 of each byte");
    let word = |i: usize| u64::from_le_bytes(cells[8 * i..8 * i + 8].try_into().expect("8 bytes"));
    byte_fields::<5, 2>(word(0)) | byte_fields::<5, 2>(word(1)) << 16
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every board of `n` tiles in order with every choice of turns: the tables agree with
    /// the digit-by-digit value, and `apply` undoes `of`.
    fn check(modulus: u8, constrained: bool, n: usize) {
        let turns = Turns::new(modulus, constrained, n);
        let plain = Turns {
            by_byte: Vec::new(),
            by_rest: Vec::new(),
            ..Turns::new(modulus, constrained, n)
        };
        let arrangement = Cells(std::array::from_fn(|i| if i < n { (n - 1 - i) as u8 } else { 0 }));
        let mut seen = vec![false; turns.count() as usize];
        for rest in 0..turns.count() {
            let board = turns.apply(arrangement, rest);
            assert_eq!(board, plain.apply(arrangement, rest), "turned by the kept words");
            assert_eq!(turns.of(&board), rest, "mod {modulus}, {n} tiles, rest {rest}");
            assert_eq!(plain.of(&board), rest);
            seen[rest as usize] = true;
        }
        assert!(seen.iter().all(|&s| s));
    }

    #[test]
    fn tables_value_turns_as_the_digits_do() {
        for n in 1..=10 {
            check(3, true, n);
            check(4, false, n.min(8));
        }
        check(3, false, 7);
        check(2, false, 9);
        check(2, true, 9);
        check(5, true, 6);
    }
}
