//! Vector kernels of the fast path's working form ([`Cells`]): a compiled move applied with
//! SSSE3 byte shuffles (boards of at most 16 cells) or AVX2 (17 to 32), an orbit's tiles read
//! with two shuffles instead of a gather. Each has the scalar version beside it, the
//! reference the vector paths must agree with (the tests in [`super::layout`] compare them).
//! The path is chosen at compile time (`target_feature`: this crate builds for x86-64-v3,
//! see `.cargo/config.toml`). [`shuffle32`], [`load32`] and [`store32`] also serve the 32
//! lanes of [`super::lanes`].

use super::layout::{
    Cells, CompiledMove, MAX_CELLS, NARROW_CELLS, Reduction, TILE_BITS, TILE_MASK,
};
use super::perm::PAD;

/// Applies a compiled move to a board of `n_cells` cells, its orientations reduced as
/// `reduction` says.
#[inline(always)]
pub(super) fn apply_compiled(
    n_cells: usize,
    reduction: Reduction,
    s: &Cells,
    m: &CompiledMove,
) -> Cells {
    match reduction {
        Reduction::Masks => {}
        Reduction::Thirds => return apply_thirds(n_cells, s, m),
        Reduction::Moduli => return apply_moduli(n_cells, s, m),
    }
    #[cfg(all(target_arch = "x86_64", target_feature = "ssse3"))]
    if n_cells <= NARROW_CELLS {
        return apply_shuffle16(s, m);
    }
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    if n_cells <= MAX_CELLS {
        return apply_shuffle32(s, m);
    }
    apply_scalar(s, m)
}

/// [`Layout::apply`](super::Layout::apply) without vector instructions (the reference of the
/// others).
#[inline(always)]
pub(super) fn apply_scalar(s: &Cells, m: &CompiledMove) -> Cells {
    let mut out = [0u8; MAX_CELLS];
    for (j, o) in out.iter_mut().enumerate() {
        *o = s.0[m.src[j] as usize].wrapping_add(m.add[j]) & m.mask[j];
    }
    Cells(out)
}

/// [`Layout::apply`](super::Layout::apply) for layouts with orientations modulo 3. Such a cell's
/// orientation plus its turn is 0..4, so the byte (tile + 32 x sum, at most 159) does not wrap;
/// subtracting `3 << 5` wraps exactly when the sum is below 3 (the byte is then below 96) and gives
/// a larger byte, so the unsigned minimum of the two is the sum modulo 3. Other cells have
/// `sub = 0`: the minimum of two equal bytes.
#[inline(always)]
pub(super) fn apply_thirds_scalar(s: &Cells, m: &CompiledMove) -> Cells {
    let mut out = [0u8; MAX_CELLS];
    for (j, o) in out.iter_mut().enumerate() {
        let y = s.0[m.src[j] as usize].wrapping_add(m.add[j]) & m.mask[j];
        *o = y.min(y.wrapping_sub(m.sub[j]));
    }
    Cells(out)
}

/// [`apply_thirds_scalar`], with byte shuffles where the CPU has them.
#[inline(always)]
fn apply_thirds(n_cells: usize, s: &Cells, m: &CompiledMove) -> Cells {
    #[cfg(all(target_arch = "x86_64", target_feature = "ssse3"))]
    if n_cells <= NARROW_CELLS {
        use std::arch::x86_64::*;
        let mut out = [0u8; MAX_CELLS];
        // SAFETY: SSSE3 (and so SSE2) is enabled at compile time (the cfg above); every
        // pointer is to a 32-byte array read or written in its first 16 bytes, unaligned.
        unsafe {
            let load = |a: &[u8; MAX_CELLS]| _mm_loadu_si128(a.as_ptr() as *const __m128i);
            let moved = _mm_shuffle_epi8(load(&s.0), load(&m.src));
            let y = _mm_and_si128(_mm_add_epi8(moved, load(&m.add)), load(&m.mask));
            let reduced = _mm_min_epu8(y, _mm_sub_epi8(y, load(&m.sub)));
            _mm_storeu_si128(out.as_mut_ptr() as *mut __m128i, reduced);
        }
        return Cells(out);
    }
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    if n_cells <= MAX_CELLS {
        use std::arch::x86_64::*;
        let moved = shuffle32(load32(&s.0), load32(&m.src));
        // SAFETY: AVX2 is enabled at compile time (the cfg above); no memory is touched.
        let reduced = unsafe {
            let y = _mm256_and_si256(_mm256_add_epi8(moved, load32(&m.add)), load32(&m.mask));
            _mm256_min_epu8(y, _mm256_sub_epi8(y, load32(&m.sub)))
        };
        return Cells(store32(reduced));
    }
    let _ = n_cells;
    apply_thirds_scalar(s, m)
}

/// [`Layout::apply`](super::Layout::apply) for layouts with orientations modulo 5, 6 or 7:
/// their sum (up to 12) does not fit the byte's three bits, so it is taken out of the byte,
/// reduced by the cell's modulus `e` (the unsigned minimum of the sum and the sum less `e`,
/// which wraps below `e`) and put back.
#[inline(always)]
pub(super) fn apply_moduli_scalar(s: &Cells, m: &CompiledMove) -> Cells {
    let mut out = [0u8; MAX_CELLS];
    for (j, o) in out.iter_mut().enumerate() {
        let byte = s.0[m.src[j] as usize];
        let sum = (byte >> TILE_BITS) + (m.add[j] >> TILE_BITS);
        *o = (byte & TILE_MASK) | sum.min(sum.wrapping_sub(m.modulus[j])) << TILE_BITS;
    }
    Cells(out)
}

/// [`apply_moduli_scalar`], in byte vectors where the CPU has them: 16 lanes for boards of
/// at most 16 cells, else 32.
#[inline(always)]
fn apply_moduli(n_cells: usize, s: &Cells, m: &CompiledMove) -> Cells {
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    {
        use super::lanes::{Lanes16, Lanes32};
        if n_cells <= NARROW_CELLS {
            return moduli_in_lanes::<Lanes16>(s, m);
        }
        if n_cells <= MAX_CELLS {
            return moduli_in_lanes::<Lanes32>(s, m);
        }
    }
    let _ = n_cells;
    apply_moduli_scalar(s, m)
}

/// [`apply_moduli_scalar`] on the lanes of `V`. Bytes have no shifts: 16-bit shifts move
/// each byte's three top bits down (and back up), the bits they carry over from the next
/// byte masked off.
#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
#[inline(always)]
fn moduli_in_lanes<V: super::lanes::ByteLanes>(s: &Cells, m: &CompiledMove) -> Cells {
    const SHIFT: i32 = TILE_BITS as i32;
    let low3 = V::splat(7);
    let moved = V::load(&s.0).shuffle(V::load(&m.src));
    let turn = moved.shift_right_16::<SHIFT>().and(low3);
    let sum = turn.add(V::load(&m.add).shift_right_16::<SHIFT>().and(low3));
    let reduced = sum.min(sum.sub(V::load(&m.modulus)));
    Cells(moved.and(V::splat(TILE_MASK)).or(reduced.shift_left_16::<SHIFT>()).store())
}

/// [`Layout::orbit_tiles`](super::Layout::orbit_tiles) without vector instructions (the reference
/// of the others).
#[inline(always)]
pub(super) fn orbit_tiles_scalar(s: &Cells, cells: &[u8], local: &[u8; MAX_CELLS]) -> [u8; 32] {
    let mut xs = [PAD; 32];
    for (x, &c) in xs.iter_mut().zip(cells) {
        *x = local[(s.0[(c & TILE_MASK) as usize] & TILE_MASK) as usize];
    }
    xs
}

/// [`Layout::apply`](super::Layout::apply) for boards of at most 16 cells: one byte shuffle, one
/// add, one and.
#[cfg(all(target_arch = "x86_64", target_feature = "ssse3"))]
#[inline(always)]
fn apply_shuffle16(s: &Cells, m: &CompiledMove) -> Cells {
    use std::arch::x86_64::*;
    let mut out = [0u8; MAX_CELLS];
    // SAFETY: SSSE3 is enabled at compile time (the cfg above); every pointer is to a
    // 32-byte array read or written in its first 16 bytes, unaligned.
    unsafe {
        let load = |a: &[u8; MAX_CELLS]| _mm_loadu_si128(a.as_ptr() as *const __m128i);
        let moved = _mm_shuffle_epi8(load(&s.0), load(&m.src));
        let turned = _mm_and_si128(_mm_add_epi8(moved, load(&m.add)), load(&m.mask));
        _mm_storeu_si128(out.as_mut_ptr() as *mut __m128i, turned);
    }
    Cells(out)
}

/// [`Layout::orbit_tiles`](super::Layout::orbit_tiles) for boards of at most 16 cells: two byte
/// shuffles (cells to tiles, tiles to local indices) instead of a gather.
#[cfg(all(target_arch = "x86_64", target_feature = "sse4.1"))]
#[inline(always)]
pub(super) fn orbit_tiles16(s: &Cells, shuffle: &[u8; 32], local: &[u8; MAX_CELLS]) -> [u8; 32] {
    use std::arch::x86_64::*;
    let mut xs = [PAD; 32];
    // SAFETY: SSE4.1 is enabled at compile time (the cfg above); every pointer is to a
    // 32-byte array read or written in its first 16 bytes, unaligned.
    unsafe {
        let load = |a: &[u8; 32]| _mm_loadu_si128(a.as_ptr() as *const __m128i);
        let order = load(shuffle);
        let tiles =
            _mm_and_si128(_mm_shuffle_epi8(load(&s.0), order), _mm_set1_epi8(TILE_MASK as i8));
        let locals = _mm_shuffle_epi8(load(local), tiles);
        // Past the orbit, `order` has its top bit set: keep PAD there.
        let past = _mm_cmplt_epi8(order, _mm_setzero_si128());
        let padded = _mm_blendv_epi8(locals, _mm_set1_epi8(PAD as i8), past);
        _mm_storeu_si128(xs.as_mut_ptr() as *mut __m128i, padded);
    }
    xs
}

/// `out[j] = v[idx[j]]` for 32 bytes, 0 where `idx[j]` has its top bit set. AVX2 byte
/// shuffles stay within 16-byte lanes: both halves are broadcast and shuffled, and bit 4 of
/// the index picks one.
#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
#[inline(always)]
pub(crate) fn shuffle32(
    v: std::arch::x86_64::__m256i,
    idx: std::arch::x86_64::__m256i,
) -> std::arch::x86_64::__m256i {
    use std::arch::x86_64::*;
    // SAFETY: AVX2 is enabled at compile time (the cfg above); no memory is touched.
    unsafe {
        let low = _mm256_permute2x128_si256(v, v, 0x00);
        let high = _mm256_permute2x128_si256(v, v, 0x11);
        // A 16-bit shift by 3 moves each byte's bit 4 to its bit 7, what blendv reads.
        let pick_high = _mm256_slli_epi16(idx, 3);
        _mm256_blendv_epi8(_mm256_shuffle_epi8(low, idx), _mm256_shuffle_epi8(high, idx), pick_high)
    }
}

/// Loads 32 bytes.
#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
#[inline(always)]
pub(crate) fn load32(a: &[u8; 32]) -> std::arch::x86_64::__m256i {
    // SAFETY: AVX2 is enabled at compile time; the pointer is to 32 readable bytes.
    unsafe { std::arch::x86_64::_mm256_loadu_si256(a.as_ptr() as *const _) }
}

/// Stores 32 bytes.
#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
#[inline(always)]
pub(crate) fn store32(v: std::arch::x86_64::__m256i) -> [u8; 32] {
    let mut out = [0u8; 32];
    // SAFETY: AVX2 is enabled at compile time; the pointer is to 32 writable bytes.
    unsafe { std::arch::x86_64::_mm256_storeu_si256(out.as_mut_ptr() as *mut _, v) };
    out
}

/// [`Layout::apply`](super::Layout::apply) for boards of 17 to 32 cells: [`shuffle32`], one add,
/// one and.
#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
#[inline(always)]
fn apply_shuffle32(s: &Cells, m: &CompiledMove) -> Cells {
    use std::arch::x86_64::*;
    let moved = shuffle32(load32(&s.0), load32(&m.src));
    // SAFETY: AVX2 is enabled at compile time (the cfg above); no memory is touched.
    let turned =
        unsafe { _mm256_and_si256(_mm256_add_epi8(moved, load32(&m.add)), load32(&m.mask)) };
    Cells(store32(turned))
}

/// [`Layout::orbit_tiles`](super::Layout::orbit_tiles) for boards of 17 to 32 cells: two
/// [`shuffle32`] (cells to tiles, tiles to local indices).
#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
#[inline(always)]
pub(super) fn orbit_tiles32(s: &Cells, shuffle: &[u8; 32], local: &[u8; MAX_CELLS]) -> [u8; 32] {
    use std::arch::x86_64::*;
    let order = load32(shuffle);
    // SAFETY: AVX2 is enabled at compile time (the cfg above); no memory is touched.
    unsafe {
        let tiles =
            _mm256_and_si256(shuffle32(load32(&s.0), order), _mm256_set1_epi8(TILE_MASK as i8));
        let locals = shuffle32(load32(local), tiles);
        // Past the orbit, `order` has its top bit set: PAD there.
        store32(_mm256_blendv_epi8(locals, _mm256_set1_epi8(PAD as i8), order))
    }
}
