//! The Lehmer index of an arrangement of at most 8 tiles (and its sign) from two table
//! reads.
//!
//! The first four digits of a Lehmer code depend only on the first four tiles, the others
//! only on how the remaining tiles are ordered among themselves, so the index is
//! `head(first four) * (n - 4)! + tail(the rest)`. With the tiles as 3-bit numbers, one
//! bit extraction ([`super::bits::byte_fields`]) makes both table keys at once: the index of every
//! neighbour of a 2x2x2 class search costs two reads of 4 KiB tables instead of a loop of
//! popcounts.

use super::bits::byte_fields;

/// Tiles of the head.
const HEAD: usize = 4;
/// A table value's bit that holds the parity of its digits (values need 11 bits at most:
/// 8 * 7 * 6 * 5 = 1680 heads).
const PARITY: u16 = 1 << 15;
/// Bits per tile.
const TILE: usize = 3;

/// The index of arrangements of `n <= 8` tiles, each given as its local number `0..n`.
#[derive(Debug)]
pub struct SmallPerm {
    n: usize,
    tail_radix: u32,
    /// By the head's tiles (3 bits each): the value of the head's digits, with their
    /// parity in bit [`PARITY`].
    head: Vec<u16>,
    /// By the tail's tiles (3 bits each): the Lehmer index of their order, with the parity
    /// of its digits.
    tail: Vec<u16>,
}

impl SmallPerm {
    /// Tables for `n` tiles, or `None` above 8.
    pub fn new(n: usize) -> Option<SmallPerm> {
        if n > 8 {
            return None;
        }
        let h = n.min(HEAD);
        let m = n - h;
        let keys = 1usize << (HEAD * TILE);
        let tiles = |key: usize, count: usize| -> Vec<usize> {
            (0..count).map(|i| key >> (TILE * i) & 7).collect()
        };
        // Keys whose tiles repeat are never read; they get what the formula gives.
        // A value and the parity of its digits.
        let with_parity =
            |(v, sum): (usize, usize)| v as u16 | if sum % 2 == 1 { PARITY } else { 0 };
        let head = (0..keys)
            .map(|key| {
                let x = tiles(key, h);
                with_parity((0..h).fold((0, 0), |(v, sum), i| {
                    let smaller_before = (0..i).filter(|&j| x[j] < x[i]).count();
                    let digit = x[i].saturating_sub(smaller_before);
                    (v * (n - i) + digit, sum + digit)
                }))
            })
            .collect();
        let tail = (0..keys)
            .map(|key| {
                let y = tiles(key, m);
                with_parity((0..m).fold((0, 0), |(v, sum), i| {
                    let digit = (i + 1..m).filter(|&j| y[j] < y[i]).count();
                    (v * (m - i) + digit, sum + digit)
                }))
            })
            .collect();
        Some(SmallPerm { n, tail_radix: (1..=m as u32).product(), head, tail })
    }

    /// The Lehmer index of tiles `tiles[..n]` (bytes past `n` are ignored).
    #[inline(always)]
    pub fn index(&self, tiles: &[u8; 32]) -> u64 {
        self.index_and_sign(tiles).0
    }

    /// The Lehmer index of tiles `tiles[..n]` and the sign of their permutation (0 even, 1
    /// odd: the parity of the Lehmer digits' sum).
    #[inline(always)]
    pub fn index_and_sign(&self, tiles: &[u8; 32]) -> (u64, u32) {
        let word = u64::from_le_bytes(tiles[..8].try_into().expect("8 bytes"));
        let keep = u64::MAX >> (64 - 8 * self.n.max(1));
        let packed = byte_fields::<0, 3>(word & keep) as usize;
        let mask = (1 << (HEAD * TILE)) - 1;
        let head = self.head[packed & mask];
        let tail = self.tail[packed >> (HEAD * TILE) & mask];
        let value = |v: u16| (v & !PARITY) as u64;
        let sign = ((head ^ tail) & PARITY != 0) as u32;
        (value(head) * self.tail_radix as u64 + value(tail), sign)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every arrangement of up to 8 tiles: the index is the Lehmer index, the indices are
    /// `0..n!` in lexicographic order, and the sign is the permutation's.
    #[test]
    fn indices_are_lehmer_indices() {
        for n in 0..=8 {
            let index = SmallPerm::new(n).unwrap();
            let mut perm: Vec<u8> = (0..n as u8).collect();
            let mut expected = 0u64;
            loop {
                let mut tiles = [0x55u8; 32];
                tiles[..n].copy_from_slice(&perm);
                assert_eq!(index.index(&tiles), expected, "{perm:?}");
                let inversions = (0..n).flat_map(|i| (i + 1..n).map(move |j| (i, j)));
                let sign = inversions.filter(|&(i, j)| perm[i] > perm[j]).count() as u32 % 2;
                assert_eq!(index.index_and_sign(&tiles).1, sign, "{perm:?}");
                expected += 1;
                // The next permutation in lexicographic order.
                let Some(i) = (1..n).rev().find(|&i| perm[i - 1] < perm[i]) else { break };
                let j = (i..n).rev().find(|&j| perm[j] > perm[i - 1]).unwrap();
                perm.swap(i - 1, j);
                perm[i..].reverse();
            }
            assert_eq!(expected, (1..=n as u64).product::<u64>());
        }
        assert!(SmallPerm::new(9).is_none());
    }
}
