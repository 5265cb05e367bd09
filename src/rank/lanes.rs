//! Byte vectors of 16 lanes (SSE) or 32 (AVX2) behind one trait, so that a kernel on a
//! board's bytes is written once and runs on the narrower vectors where the board has at
//! most 16 cells. On AMD's Zen 1 and 2 every 256-bit operation is split in two, and a
//! shuffle across the two halves (the lane-crossing part of [`shuffle32`]) costs eight
//! micro-operations: a 2x2x2's eight cells paid for 32 lanes on every symmetry applied.
//! Lanes past a board's cells are carried along and masked or ignored by the kernels.

use std::arch::x86_64::*;

use super::simd::{load32, shuffle32, store32};

/// The byte-wise operations the class ranking's kernels use, on 16 or 32 lanes.
pub(crate) trait ByteLanes: Copy {
    /// The first lanes of `a`.
    fn load(a: &[u8; 32]) -> Self;
    /// The lanes, the bytes past them zero.
    fn store(self) -> [u8; 32];
    /// `b` in every lane.
    fn splat(b: u8) -> Self;
    /// `out[j] = self[idx[j]]`, 0 where `idx[j]` has its top bit set; every other index
    /// below the lanes.
    fn shuffle(self, idx: Self) -> Self;
    fn and(self, other: Self) -> Self;
    /// `!self & other`.
    fn and_not(self, other: Self) -> Self;
    fn or(self, other: Self) -> Self;
    /// Wrapping, lane by lane.
    fn add(self, other: Self) -> Self;
    /// Wrapping, lane by lane.
    fn sub(self, other: Self) -> Self;
    /// Unsigned, lane by lane.
    fn min(self, other: Self) -> Self;
    /// 0xff where the lanes are equal, else 0.
    fn equals(self, other: Self) -> Self;
    /// `other` where `mask`'s lane has its top bit set, else `self`.
    fn blend(self, other: Self, mask: Self) -> Self;
    /// Each 16-bit pair of lanes shifted right by `N` bits (bits cross from the upper lane
    /// into the lower: callers mask them off).
    fn shift_right_16<const N: i32>(self) -> Self;
    /// Each 16-bit pair of lanes shifted left by `N` bits (bits cross upward).
    fn shift_left_16<const N: i32>(self) -> Self;
}

/// 16 byte lanes (SSE up to SSE4.1; the crate builds for x86-64-v3, which has them).
#[derive(Clone, Copy)]
pub(crate) struct Lanes16(__m128i);

/// 32 byte lanes (AVX2).
#[derive(Clone, Copy)]
pub(crate) struct Lanes32(__m256i);

// SAFETY (every block below): the instructions are enabled at compile time (this module is
// compiled only with AVX2, see `rank/mod.rs`); loads and stores are unaligned and stay in
// the 32-byte arrays.
impl ByteLanes for Lanes16 {
    #[inline(always)]
    fn load(a: &[u8; 32]) -> Self {
        Lanes16(unsafe { _mm_loadu_si128(a.as_ptr() as *const __m128i) })
    }
    #[inline(always)]
    fn store(self) -> [u8; 32] {
        let mut out = [0u8; 32];
        unsafe { _mm_storeu_si128(out.as_mut_ptr() as *mut __m128i, self.0) };
        out
    }
    #[inline(always)]
    fn splat(b: u8) -> Self {
        Lanes16(unsafe { _mm_set1_epi8(b as i8) })
    }
    #[inline(always)]
    fn shuffle(self, idx: Self) -> Self {
        Lanes16(unsafe { _mm_shuffle_epi8(self.0, idx.0) })
    }
    #[inline(always)]
    fn and(self, other: Self) -> Self {
        Lanes16(unsafe { _mm_and_si128(self.0, other.0) })
    }
    #[inline(always)]
    fn and_not(self, other: Self) -> Self {
        Lanes16(unsafe { _mm_andnot_si128(self.0, other.0) })
    }
    #[inline(always)]
    fn or(self, other: Self) -> Self {
        Lanes16(unsafe { _mm_or_si128(self.0, other.0) })
    }
    #[inline(always)]
    fn add(self, other: Self) -> Self {
        Lanes16(unsafe { _mm_add_epi8(self.0, other.0) })
    }
    #[inline(always)]
    fn sub(self, other: Self) -> Self {
        Lanes16(unsafe { _mm_sub_epi8(self.0, other.0) })
    }
    #[inline(always)]
    fn min(self, other: Self) -> Self {
        Lanes16(unsafe { _mm_min_epu8(self.0, other.0) })
    }
    #[inline(always)]
    fn equals(self, other: Self) -> Self {
        Lanes16(unsafe { _mm_cmpeq_epi8(self.0, other.0) })
    }
    #[inline(always)]
    fn blend(self, other: Self, mask: Self) -> Self {
        Lanes16(unsafe { _mm_blendv_epi8(self.0, other.0, mask.0) })
    }
    #[inline(always)]
    fn shift_right_16<const N: i32>(self) -> Self {
        Lanes16(unsafe { _mm_srli_epi16::<N>(self.0) })
    }
    #[inline(always)]
    fn shift_left_16<const N: i32>(self) -> Self {
        Lanes16(unsafe { _mm_slli_epi16::<N>(self.0) })
    }
}

impl ByteLanes for Lanes32 {
    #[inline(always)]
    fn load(a: &[u8; 32]) -> Self {
        Lanes32(load32(a))
    }
    #[inline(always)]
    fn store(self) -> [u8; 32] {
        store32(self.0)
    }
    #[inline(always)]
    fn splat(b: u8) -> Self {
        Lanes32(unsafe { _mm256_set1_epi8(b as i8) })
    }
    #[inline(always)]
    fn shuffle(self, idx: Self) -> Self {
        Lanes32(shuffle32(self.0, idx.0))
    }
    #[inline(always)]
    fn and(self, other: Self) -> Self {
        Lanes32(unsafe { _mm256_and_si256(self.0, other.0) })
    }
    #[inline(always)]
    fn and_not(self, other: Self) -> Self {
        Lanes32(unsafe { _mm256_andnot_si256(self.0, other.0) })
    }
    #[inline(always)]
    fn or(self, other: Self) -> Self {
        Lanes32(unsafe { _mm256_or_si256(self.0, other.0) })
    }
    #[inline(always)]
    fn add(self, other: Self) -> Self {
        Lanes32(unsafe { _mm256_add_epi8(self.0, other.0) })
    }
    #[inline(always)]
    fn sub(self, other: Self) -> Self {
        Lanes32(unsafe { _mm256_sub_epi8(self.0, other.0) })
    }
    #[inline(always)]
    fn min(self, other: Self) -> Self {
        Lanes32(unsafe { _mm256_min_epu8(self.0, other.0) })
    }
    #[inline(always)]
    fn equals(self, other: Self) -> Self {
        Lanes32(unsafe { _mm256_cmpeq_epi8(self.0, other.0) })
    }
    #[inline(always)]
    fn blend(self, other: Self, mask: Self) -> Self {
        Lanes32(unsafe { _mm256_blendv_epi8(self.0, other.0, mask.0) })
    }
    #[inline(always)]
    fn shift_right_16<const N: i32>(self) -> Self {
        Lanes32(unsafe { _mm256_srli_epi16::<N>(self.0) })
    }
    #[inline(always)]
    fn shift_left_16<const N: i32>(self) -> Self {
        Lanes32(unsafe { _mm256_slli_epi16::<N>(self.0) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Every operation on 16 lanes gives the first 16 bytes of the same on 32, and zeros
        /// past them.
        #[test]
        fn sixteen_lanes_compute_what_the_first_sixteen_of_thirty_two_do(
            a in prop::array::uniform32(any::<u8>()),
            b in prop::array::uniform32(any::<u8>()),
            c in prop::array::uniform32(any::<u8>()),
        ) {
            fn all<V: ByteLanes>(a: &[u8; 32], b: &[u8; 32], c: &[u8; 32]) -> Vec<[u8; 32]> {
                let (x, y, z) = (V::load(a), V::load(b), V::load(c));
                // Indices below 16 or with the top bit set: what both widths define alike.
                let idx = V::load(b).and(V::splat(0x8f));
                vec![
                    x.store(),
                    V::splat(a[0]).store(),
                    x.shuffle(idx).store(),
                    x.and(y).store(),
                    x.and_not(y).store(),
                    x.or(y).store(),
                    x.add(y).store(),
                    x.sub(y).store(),
                    x.min(y).store(),
                    x.equals(y).store(),
                    x.equals(x).store(),
                    x.blend(y, z).store(),
                    x.shift_right_16::<5>().store(),
                    x.shift_left_16::<5>().store(),
                ]
            }
            let (narrow, wide) = (all::<Lanes16>(&a, &b, &c), all::<Lanes32>(&a, &b, &c));
            for (i, (n, w)) in narrow.iter().zip(&wide).enumerate() {
                prop_assert_eq!(&n[..16], &w[..16], "operation {}", i);
                prop_assert_eq!(&n[16..], &[0u8; 16][..], "operation {}", i);
            }
        }
    }
}
