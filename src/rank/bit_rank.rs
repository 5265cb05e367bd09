//! A set of numbers below `n` as a bit per number and a count per 64-bit word, which tells
//! how many members lie below any number in two reads: the dense index of a member. Where
//! asked ([`BitRank::with_select`]), every [`SELECT_EVERY`]-th member's word is kept too,
//! which finds the member of an index in a few reads: a list of the members would take 32
//! bits each (21 MB for the mastermorphix's 5,308,416 reachable upper values; the kept
//! words take 330 KB).

/// Members of `0..n`, with the count of members below each word.
#[derive(Clone, Debug)]
pub(crate) struct BitRank {
    bits: Vec<u64>,
    below: Vec<u32>,
    /// The word holding member `k * SELECT_EVERY`, for each `k` (empty until
    /// [`BitRank::with_select`]).
    select_words: Vec<u32>,
}

/// Members between two kept words of [`BitRank::select`]: a word per 64 members.
pub(crate) const SELECT_EVERY: u64 = 64;

impl BitRank {
    /// The set whose members are the set bits of `bits` (bit `i % 64` of word `i / 64`).
    pub fn from_words(bits: Vec<u64>) -> BitRank {
        let mut below = Vec::with_capacity(bits.len());
        let mut count = 0u32;
        for w in &bits {
            below.push(count);
            count += w.count_ones();
        }
        BitRank { bits, below, select_words: Vec::new() }
    }

    /// The set, able to [`BitRank::select`] too.
    pub fn with_select(mut self) -> BitRank {
        let mut words = Vec::with_capacity((self.len() / SELECT_EVERY + 1) as usize);
        for (w, (&below, &bits)) in self.below.iter().zip(&self.bits).enumerate() {
            // Each multiple of SELECT_EVERY among this word's members.
            let (first, end) = (below as u64, below as u64 + bits.count_ones() as u64);
            let multiples = end.div_ceil(SELECT_EVERY) - first.div_ceil(SELECT_EVERY);
            words.extend(std::iter::repeat_n(w as u32, multiples as usize));
        }
        self.select_words = words;
        self
    }

    /// The members in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        self.bits.iter().enumerate().flat_map(|(w, &word)| {
            let mut rest = word;
            std::iter::from_fn(move || {
                let bit = (rest != 0).then(|| rest.trailing_zeros() as u64)?;
                rest &= rest - 1;
                Some(w as u64 * 64 + bit)
            })
        })
    }

    /// Number of members.
    pub fn len(&self) -> u64 {
        self.below
            .last()
            .map_or(0, |&b| b as u64 + self.bits[self.bits.len() - 1].count_ones() as u64)
    }

    /// The member of index `i` (below [`BitRank::len`]), the inverse of [`BitRank::rank`]:
    /// from the kept word of the last multiple of [`SELECT_EVERY`] not above `i`, the words
    /// after it until the one holding it. Needs [`BitRank::with_select`].
    #[inline]
    pub fn select(&self, i: u64) -> u64 {
        let mut w = self.select_words[(i / SELECT_EVERY) as usize] as usize;
        while self.below.get(w + 1).is_some_and(|&b| b as u64 <= i) {
            w += 1;
        }
        w as u64 * 64 + nth_set_bit(self.bits[w], (i - self.below[w] as u64) as u32) as u64
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
}

/// The place of the `r`-th set bit of `x` (counted from 0, from the lowest bit; below its
/// count of ones): halves, quarters and eighths of the word skipped by their counts.
#[inline]
fn nth_set_bit(mut x: u64, mut r: u32) -> u32 {
    let mut at = 0;
    for width in [32, 16, 8] {
        let low = (x & ((1u64 << width) - 1)).count_ones();
        if r >= low {
            r -= low;
            x >>= width;
            at += width;
        }
    }
    for _ in 0..r {
        x &= x - 1;
    }
    at + x.trailing_zeros()
}

#[cfg(test)]
mod tests {
    use super::{BitRank, nth_set_bit};

    /// The members in increasing order, by index.
    fn listed(set: &BitRank) -> Vec<u32> {
        (0..set.len()).map(|i| set.select(i) as u32).collect()
    }

    #[test]
    fn members_are_indexed_in_order() {
        let members = [0u32, 5, 63, 64, 130, 199];
        let set = BitRank::from_members(200, &members).with_select();
        assert_eq!(listed(&set), members);
        assert!(set.iter().eq(members.iter().map(|&m| m as u64)));
        for (i, &m) in members.iter().enumerate() {
            assert!(set.contains(m as u64));
            assert_eq!(set.rank(m as u64), i as u32);
        }
        assert!(!set.contains(6) && !set.contains(129));
        assert_eq!(set.rank(129), 4);
    }

    #[test]
    fn set_bits_are_found_by_their_count() {
        for x in [1u64, 0x8000_0000_0000_0001, u64::MAX, 0xF0F0_0F0F_1234_8001, 1 << 63] {
            let places: Vec<u32> = (0..64).filter(|&b| x >> b & 1 != 0).collect();
            for (r, &b) in places.iter().enumerate() {
                assert_eq!(nth_set_bit(x, r as u32), b, "bit {r} of {x:#x}");
            }
        }
    }

    /// Select undoes rank on sets sparse and dense, with empty words and full ones, and
    /// members on both sides of every multiple of SELECT_EVERY.
    #[test]
    fn select_finds_the_member_of_each_index() {
        let n = 64 * 300 + 17;
        let members: Vec<u32> = (0..n as u32)
            .filter(|&x| match x / 64 {
                0..50 => x % 97 == 5,
                50..60 => false,
                60..90 => true,
                _ => x % 3 == 1 || x == n as u32 - 1,
            })
            .collect();
        let set = BitRank::from_members(n, &members).with_select();
        assert_eq!(set.len(), members.len() as u64);
        for (i, &m) in members.iter().enumerate() {
            assert_eq!(set.select(i as u64), m as u64, "member {i}");
        }
        let one = BitRank::from_members(10, &[9]).with_select();
        assert_eq!((one.len(), one.select(0)), (1, 9));
    }

    /// Members of stretches of many words, some empty, some full.
    #[test]
    fn members_of_many_words_are_listed_in_order() {
        let n = 64 * 4096 * 3 + 100;
        let members: Vec<u32> = (0..n as u32)
            .filter(|&x| x % 7 == 3 || (300_000..310_000).contains(&x) || x == n as u32 - 1)
            .filter(|&x| !(64 * 4096..64 * 4096 * 2).contains(&x))
            .collect();
        let set = BitRank::from_members(n, &members).with_select();
        assert_eq!(listed(&set), members);
        assert!(set.iter().eq(members.iter().map(|&m| m as u64)));
        assert_eq!(listed(&BitRank::from_members(n, &[]).with_select()), Vec::<u32>::new());
    }
}
