//! The system allocator, with large blocks advised for transparent huge pages.
//!
//! A class ranking's placement codes (the mastermorphix's 21 MB), its bitmaps of reachable
//! values and the coordinate tables are read and written at random: with 4 KiB pages each
//! access past the TLB's reach is a page walk, and each first touch a page fault. Where the
//! kernel hands out huge pages only on request (`madvise` mode, as here), a block of
//! [`HUGE_FROM`] bytes or more is asked for them as soon as it is allocated, before anything
//! touches it. The tables themselves are mappings of their own and advised where they are
//! made ([`crate::table`]).

use std::alloc::{GlobalAlloc, Layout, System};

/// Blocks from this size on are advised: at most one huge page at each end is partly used,
/// which on a block of 4 MiB or more costs little beside what the block gains.
pub const HUGE_FROM: usize = 4 << 20;

/// Huge pages' size on x86-64 and aarch64 with 4 KiB pages.
const HUGE_PAGE: usize = 2 << 20;

/// [`System`], advising blocks of [`HUGE_FROM`] bytes or more for huge pages.
pub struct HugePageAlloc;

// SAFETY: every block comes from `System` and goes back to it unchanged; the advice changes
// how the kernel backs the pages, never their contents or addresses.
unsafe impl GlobalAlloc for HugePageAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc`, passed on.
        let p = unsafe { System.alloc(layout) };
        advise(p, layout.size());
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`. Fresh mappings are zero already, and a large block is one:
        // the advice before any touch gets them huge pages on first write.
        let p = unsafe { System.alloc_zeroed(layout) };
        advise(p, layout.size());
        p
    }

    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract for `dealloc`, passed on.
        unsafe { System.dealloc(p, layout) }
    }

    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract for `realloc`, passed on.
        let q = unsafe { System.realloc(p, layout, new_size) };
        // A vector grown past the threshold lands on a new mapping: advise it too.
        if new_size >= HUGE_FROM && layout.size() < new_size {
            advise(q, new_size);
        }
        q
    }
}

/// Advises the whole huge pages inside `len` bytes at `p`, if `len` is at least
/// [`HUGE_FROM`]. Failing is harmless: the pages stay small.
#[inline]
fn advise(p: *mut u8, len: usize) {
    if len < HUGE_FROM || p.is_null() {
        return;
    }
    let (start, end) =
        ((p as usize).next_multiple_of(HUGE_PAGE), (p as usize + len) & !(HUGE_PAGE - 1));
    if start < end {
        madvise_huge(start, end - start);
    }
}

#[cfg(target_os = "linux")]
fn madvise_huge(start: usize, len: usize) {
    // SAFETY: `start..start + len` lies inside a block just allocated, on page boundaries;
    // MADV_HUGEPAGE only sets how the range is backed.
    unsafe {
        libc::madvise(start as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
    }
}

#[cfg(not(target_os = "linux"))]
fn madvise_huge(_start: usize, _len: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    /// Blocks of every size come back whole and usable, zeroed where asked, and keep their
    /// contents when grown across the threshold.
    #[test]
    fn blocks_are_the_systems_with_advice() {
        let a = HugePageAlloc;
        for size in [8, 4096, HUGE_FROM - 1, HUGE_FROM, HUGE_FROM + 12345, 3 * HUGE_FROM] {
            let layout = Layout::from_size_align(size, 8).unwrap();
            // SAFETY: a layout of nonzero size; the block is written within bounds and freed
            // with its layout.
            unsafe {
                let z = a.alloc_zeroed(layout);
                assert!(!z.is_null());
                assert!(std::slice::from_raw_parts(z, size).iter().all(|&b| b == 0));
                std::ptr::write_bytes(z, 7, size);
                let grown = a.realloc(z, layout, size * 2);
                assert!(!grown.is_null());
                let bytes = std::slice::from_raw_parts(grown, size);
                assert!(bytes.iter().all(|&b| b == 7), "size {size}");
                a.dealloc(grown, Layout::from_size_align(size * 2, 8).unwrap());
            }
        }
    }
}
