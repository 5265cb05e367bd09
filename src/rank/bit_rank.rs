//! A set of numbers below `n` as a bit per number and a count per 64-bit word, which tells
//! how many members lie below any number in two reads: the dense index of a member.

use rayon::prelude::*;

/// Members of `0..n`, with the count of members below each word.
#[derive(Clone, Debug)]
pub(crate) struct BitRank {
    bits: Vec<u64>,
    below: Vec<u32>,
}

impl BitRank {
    /// The set whose members are the set bits of `bits` (bit `i % 64` of word `i / 64`).
    pub fn from_words(bits: Vec<u64>) -> BitRank {
        let mut below = Vec::with_capacity(bits.len());
        let mut count = 0u32;
        for w in &bits {
            below.push(count);
            count += w.count_ones();
        }
        BitRank { bits, below }
    }

    /// The set of `members` (each below `n`).
    pub fn from_members(n: usize, members: &[u32]) -> BitRank {
        let mut bits = vec![0u64; n.div_ceil(64)];
        for &p in members {
            bits[p as usize / 64] |= 1 << (p % 64);
        }
        BitRank::from_words(bits)
    }

    /// Whether `x` is a member.
    #[inline(always)]
    pub fn contains(&self, x: u64) -> bool {
        self.bits[(x / 64) as usize] >> (x % 64) & 1 != 0
    }

    /// Asks the cache for the words [`BitRank::rank`] reads for `x` (a hint).
    #[inline(always)]
    pub fn prefetch(&self, x: u64) {
        let w = (x / 64) as usize;
        crate::table::prefetch_at(self.bits.as_ptr().wrapping_add(w));
        crate::table::prefetch_at(self.below.as_ptr().wrapping_add(w));
    }

    /// How many members lie below `x`: a member's index among them in increasing order.
    #[inline(always)]
    pub fn rank(&self, x: u64) -> u32 {
        let (w, b) = ((x / 64) as usize, x % 64);
        self.below[w] + (self.bits[w] & ((1u64 << b) - 1)).count_ones()
    }

    /// The members in increasing order, listed on every thread: each block of words writes
    /// its own stretch of the list, which starts at the count below its first word (the
    /// mastermorphix's 5,308,416 reachable values took 12 ms one by one into a growing list).
    pub fn members(&self) -> Vec<u32> {
        const WORDS: usize = 1 << 12;
        let total =
            self.below.last().map_or(0, |&b| b + self.bits[self.bits.len() - 1].count_ones());
        let mut list = vec![0u32; total as usize];
        let mut stretches = Vec::with_capacity(self.bits.len().div_ceil(WORDS));
        let mut rest = &mut list[..];
        for start in (0..self.bits.len()).step_by(WORDS) {
            let end = (start + WORDS).min(self.bits.len());
            let len = self.below.get(end).map_or(total, |&b| b) - self.below[start];
            let (stretch, tail) = std::mem::take(&mut rest).split_at_mut(len as usize);
            stretches.push((start, stretch));
            rest = tail;
        }
        stretches.into_par_iter().for_each(|(start, stretch)| {
            let mut at = 0;
            for (w, &word) in self.bits[start..].iter().enumerate() {
                if at == stretch.len() {
                    break;
                }
                let mut rest = word;
                while rest != 0 {
                    stretch[at] = (start + w) as u32 * 64 + rest.trailing_zeros();
                    rest &= rest - 1;
                    at += 1;
                }
            }
        });
        list
    }
}

#[cfg(test)]
mod tests {
    use super::BitRank;

    #[test]
    fn members_are_indexed_in_order() {
        let members = [0u32, 5, 63, 64, 130, 199];
        let set = BitRank::from_members(200, &members);
        assert_eq!(set.members(), members);
        for (i, &m) in members.iter().enumerate() {
            assert!(set.contains(m as u64));
            assert_eq!(set.rank(m as u64), i as u32);
        }
        assert!(!set.contains(6) && !set.contains(129));
        assert_eq!(set.rank(129), 4);
    }

    /// Members listed block by block: stretches of many words, some empty, some full.
    #[test]
    fn members_of_many_words_are_listed_in_order() {
        let n = 64 * 4096 * 3 + 100;
        let members: Vec<u32> = (0..n as u32)
            .filter(|&x| x % 7 == 3 || (300_000..310_000).contains(&x) || x == n as u32 - 1)
            .filter(|&x| !(64 * 4096..64 * 4096 * 2).contains(&x))
            .collect();
        let set = BitRank::from_members(n, &members);
        assert_eq!(set.members(), members);
        assert_eq!(BitRank::from_members(n, &[]).members(), Vec::<u32>::new());
    }
}
