//! Bit gathering and selection for the ranks' hot loops: BMI2's `pext` and `pdep` where the
//! CPU runs them in hardware, plain shifts and masks elsewhere.
//!
//! The crate builds for x86-64-v3 (`.cargo/config.toml`), which includes BMI2, but AMD's
//! cores before Zen 3 (family 0x17, and Hygon's 0x18) run `pext` and `pdep` in microcode:
//! tens to hundreds of cycles, growing with the mask's set bits, against 3 cycles on Intel
//! and on Zen 3 and later. On a Zen 1 EPYC they took half of the 2x2x2's search. So the
//! choice is made once at run time ([`bmi2_is_fast`]), and each function has a portable body
//! that the tests compare with the instruction.

/// Whether this CPU runs `pext` and `pdep` in a few cycles: every x86-64 CPU with BMI2 except
/// AMD's and Hygon's before family 0x19 (Zen 3). Asked once, then cached.
#[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
#[inline(always)]
fn bmi2_is_fast() -> bool {
    static FAST: std::sync::LazyLock<bool> = std::sync::LazyLock::new(|| {
        let v = std::arch::x86_64::__cpuid(0);
        let vendor = [v.ebx.to_le_bytes(), v.edx.to_le_bytes(), v.ecx.to_le_bytes()].concat();
        let signature = std::arch::x86_64::__cpuid(1).eax;
        let base = (signature >> 8) & 0xf;
        let family = if base == 0xf { base + ((signature >> 20) & 0xff) } else { base };
        let microcoded = matches!(&vendor[..], b"AuthenticAMD" | b"HygonGenuine") && family < 0x19;
        !microcoded
    });
    *FAST
}

/// The position of the `k`-th set bit of `x` (counting from 0, lowest first); `x` must have
/// more than `k` bits set.
#[inline(always)]
pub(crate) fn select_bit(x: u32, k: u32) -> u32 {
    debug_assert!(x.count_ones() > k);
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    if bmi2_is_fast() {
        return bmi2::select_bit(x, k);
    }
    select_bit_portable(x, k)
}

/// [`select_bit`] without BMI2: the `k` lowest set bits cleared.
#[inline(always)]
fn select_bit_portable(mut x: u32, k: u32) -> u32 {
    for _ in 0..k {
        x &= x - 1;
    }
    x.trailing_zeros()
}

/// The bits of `x` selected by `mask`, packed low (lowest selected bit first).
#[inline(always)]
pub(crate) fn extract_bits(x: u32, mask: u32) -> u32 {
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    if bmi2_is_fast() {
        return bmi2::extract_bits(x, mask);
    }
    extract_bits_portable(x, mask)
}

/// [`extract_bits`] without BMI2: one selected bit at a time.
#[inline(always)]
fn extract_bits_portable(x: u32, mut mask: u32) -> u32 {
    let (mut out, mut k) = (0u32, 0);
    while mask != 0 {
        out |= ((x >> mask.trailing_zeros()) & 1) << k;
        k += 1;
        mask &= mask - 1;
    }
    out
}

/// Of each of the 8 bytes of `word`, the `WIDTH` bits from bit `SHIFT` up, packed low (byte 0
/// lowest): `pext` with the mask of those bits. `SHIFT + WIDTH` is at most 8 and `WIDTH` at
/// most 4.
#[inline(always)]
pub(crate) fn byte_fields<const SHIFT: u32, const WIDTH: u32>(word: u64) -> u64 {
    const { assert!(SHIFT + WIDTH <= 8 && WIDTH >= 1 && WIDTH <= 4) };
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    if bmi2_is_fast() {
        return bmi2::extract_bits64(word, const { byte_field_mask(SHIFT, WIDTH) });
    }
    byte_fields_portable::<SHIFT, WIDTH>(word)
}

/// [`byte_fields`] without BMI2: neighbouring fields joined pairwise, three times (bytes
/// into pairs, pairs into fours, fours into eight), each join a shift, an or and a mask.
#[inline(always)]
fn byte_fields_portable<const SHIFT: u32, const WIDTH: u32>(word: u64) -> u64 {
    let mut x = (word & const { byte_field_mask(SHIFT, WIDTH) }) >> SHIFT;
    x = (x | x >> (8 - WIDTH)) & const { lanes(2 * WIDTH, 16) };
    x = (x | x >> (16 - 2 * WIDTH)) & const { lanes(4 * WIDTH, 32) };
    (x | x >> (32 - 4 * WIDTH)) & const { lanes(8 * WIDTH, 64) }
}

/// The mask [`byte_fields`] gathers: bits `shift..shift + width` of every byte.
const fn byte_field_mask(shift: u32, width: u32) -> u64 {
    lanes(width, 8) << shift
}

/// A mask of the low `bits` bits of every `every`-bit lane.
const fn lanes(bits: u32, every: u32) -> u64 {
    let (mut mask, mut i) = (0u64, 0);
    while i < 64 / every {
        mask |= ((1u64 << bits) - 1) << (i * every);
        i += 1;
    }
    mask
}

/// The instructions themselves (BMI2 is enabled at compile time: the cfg; none of them
/// touches memory).
#[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
mod bmi2 {
    #[inline(always)]
    pub(super) fn select_bit(x: u32, k: u32) -> u32 {
        // SAFETY: see the module.
        unsafe { std::arch::x86_64::_pdep_u32(1 << k, x) }.trailing_zeros()
    }

    #[inline(always)]
    pub(super) fn extract_bits(x: u32, mask: u32) -> u32 {
        // SAFETY: see the module.
        unsafe { std::arch::x86_64::_pext_u32(x, mask) }
    }

    #[inline(always)]
    pub(super) fn extract_bits64(x: u64, mask: u64) -> u64 {
        // SAFETY: see the module.
        unsafe { std::arch::x86_64::_pext_u64(x, mask) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The reference of every function here: one bit at a time, as the instructions define
    /// it.
    fn pext64(x: u64, mask: u64) -> u64 {
        (0..64)
            .filter(|&b| mask >> b & 1 == 1)
            .enumerate()
            .fold(0, |v, (k, b)| v | (x >> b & 1) << k)
    }

    #[test]
    fn select_bit_finds_every_set_bit() {
        for x in [1u32, 0b1011_0110, 0x8000_0001, u32::MAX, 0xdead_beef] {
            let positions: Vec<u32> = (0..32).filter(|&b| x >> b & 1 == 1).collect();
            for (k, &p) in positions.iter().enumerate() {
                assert_eq!(select_bit(x, k as u32), p, "x {x:#x}, k {k}");
                assert_eq!(select_bit_portable(x, k as u32), p, "x {x:#x}, k {k}");
                #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
                assert_eq!(bmi2::select_bit(x, k as u32), p, "x {x:#x}, k {k}");
            }
        }
    }

    proptest! {
        #[test]
        fn extract_bits_is_pext(x: u32, mask: u32) {
            let expected = pext64(x as u64, mask as u64) as u32;
            prop_assert_eq!(extract_bits(x, mask), expected);
            prop_assert_eq!(extract_bits_portable(x, mask), expected);
            #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
            prop_assert_eq!(bmi2::extract_bits(x, mask), expected);
        }

        #[test]
        fn byte_fields_are_pext(word: u64) {
            fn check<const S: u32, const W: u32>(word: u64) -> Result<(), TestCaseError> {
                // The mask written out independently of `byte_field_mask`.
                let mask = (((1u64 << W) - 1) << S) * 0x0101_0101_0101_0101;
                let expected = pext64(word, mask);
                prop_assert_eq!(byte_fields::<S, W>(word), expected, "shift {}, width {}", S, W);
                prop_assert_eq!(byte_fields_portable::<S, W>(word), expected);
                #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
                prop_assert_eq!(bmi2::extract_bits64(word, byte_field_mask(S, W)), expected);
                Ok(())
            }
            // The two the ranks use (tiles' low 3 bits, turns' bits 5 and 6) and the extremes.
            check::<0, 3>(word)?;
            check::<5, 2>(word)?;
            check::<0, 1>(word)?;
            check::<4, 4>(word)?;
            check::<7, 1>(word)?;
        }
    }
}
