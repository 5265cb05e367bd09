//! Linear maps of the offsets within a run (over GF(2)), applied to whole [`RunMask`]s.
//!
//! A ranking of symmetry classes reads a board's orientations through the symmetry that
//! brings the board to its class's representative ([`crate::symmetry::ClassRanking`]): a move
//! then maps the offsets of one run onto another by `x -> A x ^ c`, where `A` (one per
//! symmetry, or under inversion one per arrangement) relabels the flips. The XOR by `c` is
//! [`RunMask::or_xor_shuffled`]; the map `A` is kept here as the row operations that reduce
//! it to the identity, each of which moves whole cells of the mask by a handful of word
//! operations.

use super::{CELLS_PER_WORD, RunMask};

/// Index bits of an offset that name its cell within a table word (32 cells a word).
const CELL_BITS: u32 = CELLS_PER_WORD.trailing_zeros();

/// Per index bit `b < 5`: the two-bit cells of a word whose index has bit `b` set.
const CELLS_WITH_BIT: [u64; 5] = [
    0xCCCC_CCCC_CCCC_CCCC,
    0xF0F0_F0F0_F0F0_F0F0,
    0xFF00_FF00_FF00_FF00,
    0xFFFF_0000_FFFF_0000,
    0xFFFF_FFFF_0000_0000,
];

/// An elementary change of the offsets: each is its own inverse.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BitOp {
    /// Offset bits `i` and `j` exchanged.
    Swap(u32, u32),
    /// Offset bit `target` XOR-ed with bit `source`.
    Add { target: u32, source: u32 },
}

impl BitOp {
    fn apply(self, x: u64) -> u64 {
        match self {
            BitOp::Swap(i, j) => {
                let d = ((x >> i) ^ (x >> j)) & 1;
                x ^ (d << i) ^ (d << j)
            }
            BitOp::Add { target, source } => x ^ (((x >> source) & 1) << target),
        }
    }
}

/// An invertible linear map `A` of the offsets of a run of `2^bits` ranks.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct OffsetMap {
    /// `A = E_1 E_2 ... E_k`: reading a mask through `A` applies `E_1` first.
    ops: Vec<BitOp>,
}

/// By hand, so that `clone_from` (once per image run in the steps) keeps the storage it has.
impl Clone for OffsetMap {
    fn clone(&self) -> OffsetMap {
        OffsetMap { ops: self.ops.clone() }
    }

    fn clone_from(&mut self, source: &OffsetMap) {
        self.ops.clone_from(&source.ops);
    }
}

impl OffsetMap {
    /// The map whose column `k` (the image of offset `1 << k`) is `columns[k]`; `None` when
    /// the columns are not independent.
    pub fn from_columns(columns: &[u64]) -> Option<OffsetMap> {
        let mut map = OffsetMap::default();
        map.set_columns(columns).then_some(map)
    }

    /// Makes this the map whose columns are `columns` (see [`OffsetMap::from_columns`]),
    /// keeping its storage: a ranking whose maps depend on the board builds one per image
    /// run. `false` (and the map left unusable) when the columns are not independent.
    pub fn set_columns(&mut self, columns: &[u64]) -> bool {
        let n = columns.len();
        debug_assert!(n <= 64);
        // Row i of A: bit k set when column k has bit i.
        let mut rows = [0u64; 64];
        for (i, row) in rows.iter_mut().enumerate().take(n) {
            *row = (0..n).fold(0, |r, k| r | ((columns[k] >> i) & 1) << k);
        }
        // Row operations E reduce A to I (E_k ... E_1 A = I), so A = E_1 ... E_k.
        self.ops.clear();
        for c in 0..n {
            let Some(pivot) = (c..n).find(|&r| (rows[r] >> c) & 1 == 1) else { return false };
            if pivot != c {
                rows.swap(c, pivot);
                self.ops.push(BitOp::Swap(c as u32, pivot as u32));
            }
            for r in 0..n {
                if r != c && (rows[r] >> c) & 1 == 1 {
                    rows[r] ^= rows[c];
                    self.ops.push(BitOp::Add { target: r as u32, source: c as u32 });
                }
            }
        }
        true
    }

    /// Makes this the map sending offset bit `i` to bit `to[i]` (a permutation of the
    /// bits), keeping its storage: the swaps [`OffsetMap::set_columns`] would find, in
    /// linear time.
    pub fn set_permutation(&mut self, to: &[u8]) {
        let n = to.len();
        debug_assert!(n <= 64);
        // Row `to[k]` of the matrix has its one in column `k`; `at[k]` is where that row is.
        let (mut rows, mut at) = ([0u8; 64], [0u8; 64]);
        for (k, &r) in to.iter().enumerate() {
            rows[r as usize] = k as u8;
            at[k] = r;
        }
        self.ops.clear();
        for c in 0..n {
            let pivot = at[c] as usize;
            if pivot != c {
                let moved = rows[c];
                rows.swap(c, pivot);
                at[moved as usize] = pivot as u8;
                at[c] = c as u8;
                self.ops.push(BitOp::Swap(c as u32, pivot as u32));
            }
        }
    }

    /// Whether the map is the identity.
    pub fn is_identity(&self) -> bool {
        self.ops.is_empty()
    }

    /// `A x`.
    pub fn apply(&self, x: u64) -> u64 {
        self.ops.iter().rev().fold(x, |x, op| op.apply(x))
    }
}

impl RunMask {
    /// Reads the mask through `map`: offset `x` gets the bit the mask had at `A x`.
    #[inline]
    pub fn read_through(&mut self, map: &OffsetMap) {
        // (g∘E_1)∘E_2 = g∘(E_1 E_2): the operations in order.
        for &op in &map.ops {
            self.exchange(op);
        }
    }

    /// Reads the mask through the inverse of `map`: offset `x` gets the bit at `A^-1 x`.
    #[inline]
    pub fn read_through_inverse(&mut self, map: &OffsetMap) {
        for &op in map.ops.iter().rev() {
            self.exchange(op);
        }
    }

    /// Exchanges the bits of offsets `x` and `E x` for the one elementary map `E`.
    #[inline(always)]
    fn exchange(&mut self, op: BitOp) {
        let cells = &mut self.cells[..];
        match op {
            BitOp::Swap(i, j) => {
                let (i, j) = (i.min(j), i.max(j));
                if j < CELL_BITS {
                    // Within a word: cells with bit i set and bit j clear go up.
                    let keep = CELLS_WITH_BIT[i as usize] & !CELLS_WITH_BIT[j as usize];
                    let shift = 2 * ((1u32 << j) - (1u32 << i));
                    cells.iter_mut().for_each(|w| *w = delta_swap(*w, keep, shift));
                } else if i < CELL_BITS {
                    // A word without bit j gives its cells with bit i to the word with it.
                    let shift = 2u32 << i;
                    let low = !CELLS_WITH_BIT[i as usize];
                    for_word_pairs(cells, j - CELL_BITS, |a, b| {
                        let t = ((*a >> shift) ^ *b) & low;
                        *b ^= t;
                        *a ^= t << shift;
                    });
                } else {
                    let (bi, bj) = (1usize << (i - CELL_BITS), 1usize << (j - CELL_BITS));
                    for w in 0..cells.len() {
                        if w & bi != 0 && w & bj == 0 {
                            cells.swap(w, w ^ bi ^ bj);
                        }
                    }
                }
            }
            BitOp::Add { target, source } => match (target < CELL_BITS, source < CELL_BITS) {
                (true, true) => {
                    let keep = !CELLS_WITH_BIT[target as usize] & CELLS_WITH_BIT[source as usize];
                    let shift = 2u32 << target;
                    cells.iter_mut().for_each(|w| *w = delta_swap(*w, keep, shift));
                }
                (true, false) => {
                    let keep = !CELLS_WITH_BIT[target as usize];
                    let shift = 2u32 << target;
                    let bit = 1usize << (source - CELL_BITS);
                    for (w, c) in cells.iter_mut().enumerate() {
                        if w & bit != 0 {
                            *c = delta_swap(*c, keep, shift);
                        }
                    }
                }
                (false, true) => {
                    let keep = CELLS_WITH_BIT[source as usize];
                    for_word_pairs(cells, target - CELL_BITS, |a, b| {
                        let t = (*a ^ *b) & keep;
                        *a ^= t;
                        *b ^= t;
                    });
                }
                (false, false) => {
                    let (bt, bs) = (1usize << (target - CELL_BITS), 1usize << (source - CELL_BITS));
                    for w in 0..cells.len() {
                        if w & bs != 0 && w & bt == 0 {
                            cells.swap(w, w ^ bt);
                        }
                    }
                }
            },
        }
    }
}

/// Exchanges the bits at `keep` with those `shift` above them.
#[inline(always)]
fn delta_swap(w: u64, keep: u64, shift: u32) -> u64 {
    let t = ((w >> shift) ^ w) & keep;
    w ^ t ^ (t << shift)
}

/// Calls `f` on each pair of words whose indices differ only in bit `bit`, lower one first.
#[inline(always)]
fn for_word_pairs(cells: &mut [u64], bit: u32, mut f: impl FnMut(&mut u64, &mut u64)) {
    let step = 1usize << bit;
    for block in cells.chunks_mut(2 * step) {
        let (lo, hi) = block.split_at_mut(step);
        lo.iter_mut().zip(hi).for_each(|(a, b)| f(a, b));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::SplitMix;

    #[test]
    fn a_permutation_of_the_bits_is_the_map_of_its_columns() {
        let mut rng = SplitMix::for_board(11, 0);
        let mut map = OffsetMap::default();
        for n in [1usize, 5, 9, 10, 12] {
            for _ in 0..50 {
                let mut to: Vec<u8> = (0..n as u8).collect();
                for i in (1..n).rev() {
                    to.swap(i, (rng.next_u64() % (i as u64 + 1)) as usize);
                }
                map.set_permutation(&to);
                let columns: Vec<u64> = to.iter().map(|&t| 1 << t).collect();
                assert_eq!(Some(map.clone()), OffsetMap::from_columns(&columns), "{to:?}");
                for x in 0..1u64 << n.min(8) {
                    let moved = (0..n).fold(0, |y, i| y | ((x >> i) & 1) << to[i]);
                    assert_eq!(map.apply(x), moved, "{to:?} {x}");
                }
            }
        }
    }

    /// A random invertible map of `n` bits, as its columns.
    fn random_columns(rng: &mut SplitMix, n: usize) -> Vec<u64> {
        loop {
            let columns: Vec<u64> = (0..n).map(|_| rng.next_u64() & ((1 << n) - 1)).collect();
            if OffsetMap::from_columns(&columns).is_some() {
                return columns;
            }
        }
    }

    #[test]
    fn decomposition_is_the_map() {
        let mut rng = SplitMix::for_board(7, 0);
        for n in 1..=12 {
            let columns = random_columns(&mut rng, n);
            let map = OffsetMap::from_columns(&columns).unwrap();
            for (k, &column) in columns.iter().enumerate() {
                assert_eq!(map.apply(1 << k), column, "n={n} k={k}");
            }
        }
        assert!(OffsetMap::from_columns(&[1, 2, 3]).is_none());
        assert!(OffsetMap::from_columns(&[1, 2, 4]).unwrap().is_identity());
    }

    #[test]
    fn masks_are_read_through_the_map() {
        let mut rng = SplitMix::for_board(11, 0);
        for bits in [5u32, 6, 7, 9, 10] {
            let n = 1u64 << bits;
            for _ in 0..20 {
                let map =
                    OffsetMap::from_columns(&random_columns(&mut rng, bits as usize)).unwrap();
                let mut mask = RunMask::new(bits);
                let set: Vec<u64> = (0..n).filter(|_| rng.next_u64().is_multiple_of(3)).collect();
                for &x in &set {
                    mask.cells[(x / CELLS_PER_WORD) as usize] |= 1 << (2 * (x % CELLS_PER_WORD));
                }
                let has = |m: &RunMask, x: u64| {
                    (m.cells[(x / CELLS_PER_WORD) as usize] >> (2 * (x % CELLS_PER_WORD))) & 1 == 1
                };
                let mut through = mask.clone();
                through.read_through(&map);
                let mut back = mask.clone();
                back.read_through_inverse(&map);
                for x in 0..n {
                    assert_eq!(has(&through, x), has(&mask, map.apply(x)), "bits={bits} x={x}");
                    assert_eq!(has(&mask, x), has(&back, map.apply(x)), "bits={bits} x={x}");
                }
            }
        }
    }
}
