//! The orbits of a group acting on the numbers `0..n` (the placements of a class ranking),
//! each reduced to its smallest member, in parallel.
//!
//! A member is the smallest of its orbit exactly when none of its images is smaller, which
//! each member tells from its own images: threads take blocks of members in increasing
//! order (small blocks first, where most orbits start), and the one holding an orbit's
//! smallest member writes the whole orbit. A member already written is skipped, so an orbit
//! is worked out about once (again only when its smallest member sits in a block another
//! thread has not reached yet). Classes are numbered afterwards, in the order of their
//! smallest members, as a walk in order would number them.

use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering::Relaxed};

use rayon::prelude::*;

use crate::rank::bit_rank::BitRank;

/// A set of elements of the group, bit `e` for element `e`.
pub(crate) type ElementSet = u128;
/// Classes (or smallest members) with the elements besides the identity that fix them.
type Twins = Vec<(u32, ElementSet)>;

/// Members handed to a thread at once: few at first, where most orbits have their smallest
/// member (lo33's 2,584 orbits nearly all start among its first 4,096 placements, which
/// one block left to one thread), more as they thin out.
fn block_at(start: usize) -> usize {
    (start / 16).clamp(64, 4096)
}

/// The orbits, reduced.
#[derive(Debug)]
pub(crate) struct Reduced {
    /// Per member: its class shifted by `sym_bits`, and the element taking it to the
    /// smallest member of its orbit (of several, the one whose `undo` is smallest).
    pub placement: Vec<u32>,
    /// Per class: its smallest member.
    pub representative: Vec<u32>,
    /// The classes whose smallest member an element besides the identity fixes, each with
    /// the set of those elements, in class order.
    pub twins: Twins,
}

/// Reduces the orbits of `0..n` under a group of `undo.len()` elements: `images(p, out)`
/// writes into `out[e]` the image of `p` under element `e` (element 0 the identity) and
/// returns true, or may stop at an image below `p` and return false (`p` is then not the
/// smallest of its orbit); `undo[e]` names the element undoing `e`, below `1 << sym_bits`.
/// The orbits must number at most `1 << (32 - sym_bits)`; `None` if they are more.
pub(crate) fn reduce(
    n: usize,
    undo: &[u32],
    sym_bits: u32,
    images: impl Fn(usize, &mut [u32]) -> bool + Sync,
) -> Option<Reduced> {
    assert!(undo.len() <= 1 << sym_bits && undo.len() <= ElementSet::BITS as usize);
    assert!(n <= u32::MAX as usize, "{n} members do not fit 32 bits");
    const UNSEEN: u32 = u32::MAX;
    let most_orbits = 1usize << (32 - sym_bits);
    // First an orbit's number in the order it was found (its smallest member may lie past
    // 2^25, the 3x3x3's edges' 12! arrangements), above the element; renumbered in the
    // order of smallest members below.
    let code: Vec<AtomicU32> = (0..n).into_par_iter().map(|_| AtomicU32::new(UNSEEN)).collect();
    let next = AtomicUsize::new(0);
    let found_orbits = AtomicUsize::new(0);
    let found: Vec<(Vec<(u32, u32)>, Twins)> = rayon::broadcast(|_| {
        let (mut smallest, mut twins) = (Vec::new(), Vec::new());
        let mut out = vec![0u32; undo.len()];
        loop {
            let (Ok(start) | Err(start)) =
                next.fetch_update(Relaxed, Relaxed, |s| Some(s + block_at(s)));
            if start >= n {
                break (smallest, twins);
            }
            for p in start..(start + block_at(start)).min(n) {
                if code[p].load(Relaxed) != UNSEEN {
                    continue;
                }
                // A member whose orbit another thread has not written yet (its smallest
                // member in a block still being worked on) stops at its first smaller image.
                if !images(p, &mut out) || out.iter().any(|&q| (q as usize) < p) {
                    continue;
                }
                let id = found_orbits.fetch_add(1, Relaxed);
                if id >= most_orbits {
                    // Too many to name: every thread stops at its next block.
                    next.store(n, Relaxed);
                    break;
                }
                for &q in out.iter() {
                    crate::table::prefetch_at(code.as_ptr().wrapping_add(q as usize));
                }
                // Of the elements taking `q` back to `p`, the first: the smallest code. This
                // thread alone writes the orbit's codes (the others skip it, its smallest
                // member being below theirs), so a load then a store keeps the least.
                for (&q, &back) in out.iter().zip(undo) {
                    let (slot, c) = (&code[q as usize], (id as u32) << sym_bits | back);
                    if c < slot.load(Relaxed) {
                        slot.store(c, Relaxed);
                    }
                }
                let fixed = (out.iter().enumerate())
                    .fold(0, |f, (e, &q)| f | ((q as usize == p) as u128) << e);
                smallest.push((p as u32, id as u32));
                if fixed.count_ones() > 1 {
                    twins.push((p as u32, fixed));
                }
            }
        }
    });
    if found_orbits.into_inner() > most_orbits {
        return None;
    }
    let (mut members, mut twins): (Vec<(u32, u32)>, Twins) = (Vec::new(), Vec::new());
    for (s, t) in found {
        members.extend(s);
        twins.extend(t);
    }
    members.par_sort_unstable();
    twins.par_sort_unstable_by_key(|t| t.0);
    // A class is the number of smallest members below its own.
    let mut class_of_id = vec![0u32; members.len()];
    for (class, &(_, id)) in members.iter().enumerate() {
        class_of_id[id as usize] = class as u32;
    }
    let representative: Vec<u32> = members.into_iter().map(|(p, _)| p).collect();
    let class = BitRank::from_members(n, &representative);
    for t in &mut twins {
        t.0 = class.rank(t.0 as u64);
    }
    let mask = (1u32 << sym_bits) - 1;
    // In place: the codes are the largest table of a ranking.
    let mut placement: Vec<u32> = code.into_iter().map(AtomicU32::into_inner).collect();
    (placement.par_iter_mut())
        .for_each(|c| *c = class_of_id[(*c >> sym_bits) as usize] << sym_bits | *c & mask);
    Some(Reduced { placement, representative, twins })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rotations of a necklace of 4 beads in 3 colours (`p` read in base 3): every
    /// orbit's smallest member, the element taking each member there, and the necklaces a
    /// rotation besides the identity keeps, as a walk in order finds them. With 27 bits for
    /// the element, 81 members are more than `2^5` but their 24 orbits fit; with 28 they
    /// do not.
    #[test]
    fn necklaces_under_rotation() {
        let rotate = |p: usize, by: usize| -> u32 {
            let digits: Vec<usize> = (0..4).map(|i| p / 3usize.pow(i) % 3).collect();
            (0..4).map(|i| digits[(i + by) % 4] * 3usize.pow(i as u32)).sum::<usize>() as u32
        };
        let undo = [0u32, 3, 2, 1];
        let reduce_with = |bits| {
            reduce(81, &undo, bits, |p, out| {
                for (e, o) in out.iter_mut().enumerate() {
                    *o = rotate(p, e);
                    if (*o as usize) < p {
                        return false;
                    }
                }
                true
            })
        };
        assert!(reduce_with(28).is_none(), "24 orbits named in 4 bits");
        for bits in [7, 27] {
            let r = reduce_with(bits).expect("24 orbits fit");
            // Burnside: (81 + 3 + 9 + 3) / 4 = 24 necklaces.
            assert_eq!(r.representative.len(), 24);
            let smallest =
                [0, 1, 2, 4, 5, 7, 8, 10, 11, 13, 14, 16, 17, 20, 22, 23, 25, 26, 40, 41];
            assert_eq!(&r.representative[..20], &smallest);
            assert_eq!(&r.representative[20..], &[44, 50, 53, 80]);
            for p in 0..81usize {
                let (class, e) = (r.placement[p] >> bits, (r.placement[p] & 127) as usize);
                let rep = r.representative[class as usize];
                assert_eq!(rotate(p, e), rep, "member {p}");
                assert_eq!(rep, (0..4).map(|by| rotate(p, by)).min().unwrap());
                // Of two turns taking `p` there (aaaa, abab), the smaller.
                assert!((0..e).all(|f| rotate(p, f) != rep), "member {p}");
            }
            // Kept by a half turn: the necklaces abab (3 classes), by every turn aaaa (3).
            let kept =
                [(0, 0b1111), (7, 0b101), (13, 0b101), (18, 0b1111), (21, 0b101), (23, 0b1111)];
            assert_eq!(r.twins, kept);
        }
    }
}
