//! A set of numbers below `n` as a bit per number and a count per 64-bit word, which tells
//! how many members lie below any number in two reads: the dense index of a member.

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

    /// The members in increasing order.
    pub fn members(&self) -> impl Iterator<Item = u32> + '_ {
        self.bits.iter().enumerate().flat_map(|(w, &word)| {
            let mut rest = word;
            std::iter::from_fn(move || {
                (rest != 0).then(|| {
                    let b = rest.trailing_zeros();
                    rest &= rest - 1;
                    w as u32 * 64 + b
                })
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::BitRank;

    #[test]
    fn members_are_indexed_in_order() {
        let members = [0u32, 5, 63, 64, 130, 199];
        let set = BitRank::from_members(200, &members);
        assert_eq!(set.members().collect::<Vec<_>>(), members);
        for (i, &m) in members.iter().enumerate() {
            assert!(set.contains(m as u64));
            assert_eq!(set.rank(m as u64), i as u32);
        }
        assert!(!set.contains(6) && !set.contains(129));
        assert_eq!(set.rank(129), 4);
    }
}
