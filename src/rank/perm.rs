//! Ranks of permutations within their sign class, in lexicographic (Lehmer code) order.
//!
//! A permutation of `0..n` (`n <= 32`) has the Lehmer digits `d_i` = the number of later
//! elements smaller than element `i`; their sum is the number of inversions, so the last two
//! digits (`d_{n-1} = 0`, `d_{n-2} ∈ {0,1}`) are fixed by the others and the sign. Ranking the
//! first `n-2` digits in mixed radix therefore numbers each sign class densely with
//! `0..n!/2`. A digit costs one popcount of a bitmask (Korf and Schultze's linear-time
//! lexicographic ranking), so ranking and unranking are linear in `n`.

use super::bits::select_bit;

/// The number of permutations of `n` elements with a given sign: `n!/2` (1 for `n < 2`).
/// Fits a `u64` up to `n = 20`.
pub fn half_factorial(n: usize) -> u64 {
    (3..=n as u64).product()
}

/// Ranks the permutation whose `i`-th element is `elem(i)` (`n <= 32` elements, each in
/// `0..n`; the rank fits a `u64` for `n <= 20`) among the permutations of the same sign. Returns `(rank, sign)`, rank in
/// `0..half_factorial(n)`, sign 0 for even and 1 for odd.
#[inline(always)]
pub fn rank_in_sign_class(n: usize, elem: impl Fn(usize) -> u32) -> (u64, u32) {
    let mut seen: u32 = 0;
    let mut rank = 0u64;
    let mut parity = 0u32;
    for i in 0..n.saturating_sub(2) {
        let x = elem(i);
        let digit = x - (seen & ((1u32 << x) - 1)).count_ones();
        seen |= 1 << x;
        rank = rank * (n - i) as u64 + digit as u64;
        parity += digit;
    }
    if n >= 2 {
        parity += (elem(n - 2) > elem(n - 1)) as u32;
    }
    (rank, parity & 1)
}

/// Inverse of [`rank_in_sign_class`]: calls `put(i, x)` for each position `i` with its
/// element `x`.
#[inline(always)]
pub fn unrank_in_sign_class(mut rank: u64, sign: u32, n: usize, mut put: impl FnMut(usize, u32)) {
    let mut digits = [0u32; 32];
    let mut parity = 0u32;
    for i in (0..n.saturating_sub(2)).rev() {
        let radix = (n - i) as u64;
        let q = div_small(rank, radix);
        digits[i] = (rank - q * radix) as u32;
        rank = q;
        parity += digits[i];
    }
    if n >= 2 {
        digits[n - 2] = (sign + parity) & 1;
    }
    let mut remaining: u32 = if n == 32 { u32::MAX } else { (1u32 << n) - 1 };
    for (i, &d) in digits.iter().enumerate().take(n) {
        let x = select_bit(remaining, d);
        remaining &= !(1 << x);
        put(i, x);
    }
}

/// `x / d` for `3 <= d <= 32`: one multiplication by a rounded-up reciprocal, exact while
/// `x < 2^64 / d` (checked; larger `x` divide the slow way).
#[inline(always)]
fn div_small(x: u64, d: u64) -> u64 {
    const fn reciprocals() -> [u64; 33] {
        let mut r = [0u64; 33];
        let mut d = 2;
        while d <= 32 {
            r[d] = (u64::MAX / d as u64) + 1;
            d += 1;
        }
        r
    }
    const RECIPROCAL: [u64; 33] = reciprocals();
    if x < (1 << 59) { ((x as u128 * RECIPROCAL[d as usize] as u128) >> 64) as u64 } else { x / d }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::group::invariants::sign;
    use proptest::prelude::*;

    fn rank_of(p: &[u8]) -> (u64, u32) {
        rank_in_sign_class(p.len(), |i| p[i] as u32)
    }

    fn unrank_of(rank: u64, s: u32, n: usize) -> Vec<u8> {
        let mut out = vec![0u8; n];
        unrank_in_sign_class(rank, s, n, |i, x| out[i] = x as u8);
        out
    }

    #[test]
    fn exhaustive_bijection_up_to_eight() {
        for n in 0..=8usize {
            let half = half_factorial(n);
            let classes = if n >= 2 { 2 } else { 1 };
            let mut hit = vec![false; (half * classes) as usize];
            for s in 0..classes as u32 {
                for r in 0..half {
                    let p = unrank_of(r, s, n);
                    let mut sorted = p.clone();
                    sorted.sort();
                    assert_eq!(sorted, (0..n as u8).collect::<Vec<_>>());
                    assert_eq!(sign(&p) as u32, s);
                    assert_eq!(rank_of(&p), (r, s));
                    let slot = (s as u64 * half + r) as usize;
                    assert!(!std::mem::replace(&mut hit[slot], true));
                }
            }
        }
    }

    #[test]
    fn reciprocal_division_is_exact() {
        for d in 3..=32u64 {
            for x in (0..100_000u64).chain([(1 << 59) - 1, (1 << 59) - d, 1 << 59, u64::MAX]) {
                assert_eq!(div_small(x, d), x / d, "{x} / {d}");
            }
        }
    }

    #[test]
    fn lexicographic_order_within_a_class() {
        assert_eq!(unrank_of(0, 0, 4), vec![0, 1, 2, 3]);
        assert_eq!(unrank_of(0, 1, 4), vec![0, 1, 3, 2]);
        assert_eq!(unrank_of(11, 0, 4), vec![3, 2, 1, 0]);
    }

    proptest! {
        #[test]
        fn round_trip_large(n in 9usize..=20, seed in any::<u64>()) {
            let mut p: Vec<u8> = (0..n as u8).collect();
            let mut x = seed | 1;
            for i in (1..n).rev() {
                x ^= x << 13; x ^= x >> 7; x ^= x << 17;
                p.swap(i, (x % (i as u64 + 1)) as usize);
            }
            let (r, s) = rank_of(&p);
            prop_assert!(r < half_factorial(n));
            prop_assert_eq!(s, sign(&p) as u32);
            prop_assert_eq!(unrank_of(r, s, n), p);
        }
    }
}

/// Mixed-radix weights of the first `n-2` Lehmer digits in [`rank_in_sign_class`]:
/// `rank = Σ digit_i * weights[i]`.
pub fn sign_class_weights(n: usize) -> [u64; 32] {
    let mut w = [0u64; 32];
    let mut acc = 1u64;
    for i in (0..n.saturating_sub(2)).rev() {
        w[i] = acc;
        acc *= (n - i) as u64;
    }
    w
}

/// Padding for [`rank_padded`]: larger than any element, so it never counts as smaller.
pub const PAD: u8 = 127;

/// The weights of a sign class's Lehmer digits ([`sign_class_weights`]), those of a
/// ranked-out prefix 0 (its digits count towards the sign alone), with the same weights as
/// vector multipliers where the digits fit one vector.
#[derive(Clone, Debug)]
pub struct LehmerWeights {
    weights: [u64; 32],
    /// For at most 16 elements, whose digits one vector holds.
    packed: Option<PackedWeights>,
}

/// The most elements whose digits [`PackedWeights`] weigh.
const PACKED_ELEMENTS: usize = 16;

impl LehmerWeights {
    /// The weights of `n` elements' digits.
    pub fn new(n: usize) -> LehmerWeights {
        LehmerWeights::with_weights(n, sign_class_weights(n))
    }

    /// These weights (of `n` elements) with the first `k` digits ranked out.
    pub fn ranked_out(&self, n: usize, k: usize) -> LehmerWeights {
        let mut weights = self.weights;
        weights[..k].fill(0);
        LehmerWeights::with_weights(n, weights)
    }

    fn with_weights(n: usize, weights: [u64; 32]) -> LehmerWeights {
        let packed = (n <= PACKED_ELEMENTS).then(|| PackedWeights::new(&weights)).flatten();
        LehmerWeights { weights, packed }
    }
}

/// The weights of 16 digits as the multipliers of three vector steps: adjacent digits
/// summed in pairs (`pairs`, bytes), adjacent pairs in fours (`fours`, 16-bit), and the four
/// sums times their weights (`four_weights`). A weight divides the weights before it (each
/// is `(n-1-i)!/2`, or 0), so every step's multipliers are whole: digit `i` weighs
/// `pairs[i] * fours[i/2] * four_weights[i/4]`. Where the digits of 16 lanes were stored
/// and read back one by one to be weighed, a read of a lane just stored stalled on its
/// store (a third of lo33's orbit reduction).
#[derive(Clone, Copy, Debug)]
struct PackedWeights {
    pairs: [i8; 16],
    fours: [i16; 8],
    four_weights: [u64; 4],
}

impl PackedWeights {
    /// `None` where the weights past 16 digits are not 0 or a multiplier does not fit.
    fn new(weights: &[u64; 32]) -> Option<PackedWeights> {
        if weights[PACKED_ELEMENTS..].iter().any(|&w| w != 0) {
            return None;
        }
        // Splits each adjacent two of `w` into a common weight (the later one where it is
        // not 0) and whole multipliers of it, at most `most`.
        fn split<const N: usize>(w: &[u64], most: u64) -> Option<([u64; N], Vec<u64>)> {
            let mut multipliers = [0u64; N];
            let mut common = Vec::with_capacity(N / 2);
            for (k, two) in w.chunks(2).enumerate() {
                let unit = if two[1] != 0 { two[1] } else { two[0] };
                for (j, &x) in two.iter().enumerate() {
                    if unit != 0 {
                        if x % unit != 0 || x / unit > most {
                            return None;
                        }
                        multipliers[2 * k + j] = x / unit;
                    }
                }
                common.push(unit);
            }
            Some((multipliers, common))
        }
        let (pairs, pair_weights) = split::<16>(&weights[..16], i8::MAX as u64)?;
        let (fours, four_weights) = split::<8>(&pair_weights, i16::MAX as u64)?;
        // Each four's sum is below 2^31 (at most 4 x 15 x 127 x 32767), its weight below
        // 2^32: one 32-bit multiply per four.
        if four_weights.iter().any(|&w| w > u32::MAX as u64) {
            return None;
        }
        Some(PackedWeights {
            pairs: pairs.map(|m| m as i8),
            fours: fours.map(|m| m as i16),
            four_weights: four_weights.try_into().ok()?,
        })
    }
}

/// [`rank_in_sign_class`] for a permutation stored in the first `n` bytes of `xs` (the rest
/// [`PAD`]), with `weights` of `n` elements (see [`LehmerWeights`]). Every Lehmer digit is
/// counted independently (AVX2 compares where available), so there is no serial chain.
#[inline(always)]
pub fn rank_padded(xs: &[u8; 32], n: usize, weights: &LehmerWeights) -> (u64, u32) {
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    if let Some(packed) = &weights.packed {
        return rank_padded16(xs, packed);
    }
    let mut rank = 0u64;
    let mut parity = 0u32;
    for (i, &weight) in weights.weights.iter().enumerate().take(n.saturating_sub(1)) {
        let d = later_smaller(xs, i);
        rank += d as u64 * weight;
        parity += d;
    }
    (rank, parity & 1)
}

/// [`rank_padded`] for at most 16 elements: all Lehmer digits at once, by comparing the
/// elements with themselves shifted by 1..15 places and counting the greater ones in each
/// lane; the sign is the digits' sum, the rank their weighted sum, both in the vector.
#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
#[inline(always)]
fn rank_padded16(xs: &[u8; 32], packed: &PackedWeights) -> (u64, u32) {
    use std::arch::x86_64::*;
    // SAFETY: AVX2 (and so SSSE3 and SSE4.1) is enabled at compile time (the cfg above);
    // every load reads 16 or 32 bytes of an array at least that long, unaligned.
    unsafe {
        let v = _mm_loadu_si128(xs.as_ptr() as *const __m128i);
        let pad = _mm_set1_epi8(PAD as i8);
        let mut count = _mm_setzero_si128();
        macro_rules! later {
            ($($k:literal)*) => {$(
                // Lane i sees xs[i + k] (PAD past the end); a greater xs[i] counts one.
                let shifted = _mm_alignr_epi8(pad, v, $k);
                count = _mm_sub_epi8(count, _mm_cmpgt_epi8(v, shifted));
            )*};
        }
        later!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
        // Lanes from `n - 1` on count 0: every later lane is PAD, never smaller.
        let sums = _mm_sad_epu8(count, _mm_setzero_si128());
        let total = _mm_add_epi64(sums, _mm_srli_si128::<8>(sums));
        let parity = _mm_cvtsi128_si64(total) as u32 & 1;
        let pairs = _mm_maddubs_epi16(count, _mm_loadu_si128(packed.pairs.as_ptr().cast()));
        let fours = _mm_madd_epi16(pairs, _mm_loadu_si128(packed.fours.as_ptr().cast()));
        let weights = _mm256_loadu_si256(packed.four_weights.as_ptr().cast());
        let weighed = _mm256_mul_epu32(_mm256_cvtepu32_epi64(fours), weights);
        let half =
            _mm_add_epi64(_mm256_castsi256_si128(weighed), _mm256_extracti128_si256::<1>(weighed));
        let rank = _mm_add_epi64(half, _mm_srli_si128::<8>(half));
        (_mm_cvtsi128_si64(rank) as u64, parity)
    }
}

/// The number of elements after position `i` smaller than `xs[i]`.
#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
#[inline(always)]
fn later_smaller(xs: &[u8; 32], i: usize) -> u32 {
    use std::arch::x86_64::*;
    // SAFETY: AVX2 is enabled at compile time (the cfg above); `xs` is 32 readable bytes and
    // the load is unaligned.
    let bits = unsafe {
        let v = _mm256_loadu_si256(xs.as_ptr() as *const __m256i);
        let smaller = _mm256_cmpgt_epi8(_mm256_set1_epi8(xs[i] as i8), v);
        _mm256_movemask_epi8(smaller) as u32 as u64
    };
    (bits >> (i + 1)).count_ones()
}

#[cfg(not(all(target_arch = "x86_64", target_feature = "avx2")))]
#[inline(always)]
fn later_smaller(xs: &[u8; 32], i: usize) -> u32 {
    xs[i + 1..].iter().filter(|&&x| x < xs[i]).count() as u32
}

#[cfg(test)]
mod padded_tests {
    use super::*;

    #[test]
    fn padded_rank_matches_the_serial_one() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for n in 0..=20usize {
            let w = sign_class_weights(n);
            for _ in 0..200 {
                let mut p: Vec<u8> = (0..n as u8).collect();
                for i in (1..n).rev() {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    p.swap(i, (x % (i as u64 + 1)) as usize);
                }
                let mut xs = [PAD; 32];
                xs[..n].copy_from_slice(&p);
                let (rank, sign) = rank_in_sign_class(n, |i| p[i] as u32);
                let weights = LehmerWeights::new(n);
                assert_eq!(weights.packed.is_some(), n <= 16, "n {n}: vector weights");
                assert_eq!(rank_padded(&xs, n, &weights), (rank, sign), "n {n}");
                // A ranked-out prefix of `k` digits: weights zeroed, the sign still whole.
                for k in 1..n.saturating_sub(1) {
                    let low = (k..n - 2).map(|i| later_smaller(&xs, i) as u64 * w[i]).sum();
                    let ranked_out = weights.ranked_out(n, k);
                    assert_eq!(ranked_out.packed.is_some(), n <= 16, "n {n} prefix {k}");
                    assert_eq!(rank_padded(&xs, n, &ranked_out), (low, sign), "n {n} prefix {k}");
                }
            }
        }
    }
}
