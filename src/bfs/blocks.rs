//! The search steps for rankings with XOR runs ([`crate::rank::Space::xor_block_bits`]):
//! all orientations of one arrangement of tiles form an aligned run of `2^k` ranks, and a move
//! maps the run of one arrangement onto another's, offset `x` going to `x ^ c`. One rank and
//! a handful of word shuffles then move a whole run (512 boards on Spinpossible 3x3) through
//! a move, instead of one rank per board.
//!
//! Masks are kept in the table's own layout: one bit per cell, at the cell's low bit. Like the
//! board-by-board steps, both work on a contiguous range (of runs) that a worker owns.

use std::sync::atomic::Ordering;

use super::{Level, LevelCount, Progress, in_tasks};
use crate::rank::Space;
use crate::table::{CELLS_PER_WORD, DistanceTable, UNSEEN, cells_equal, mark_of};

/// Runs handled per parallel task.
const TASK_RUNS: u64 = 64;

/// Swaps cells `i` and `i ^ c` of a word's 32 two-bit cells (`c < 32`).
#[inline(always)]
fn xor_cells(mut w: u64, c: u64) -> u64 {
    const KEEP: [u64; 5] = [
        0x3333_3333_3333_3333,
        0x0F0F_0F0F_0F0F_0F0F,
        0x00FF_00FF_00FF_00FF,
        0x0000_FFFF_0000_FFFF,
        0x0000_0000_FFFF_FFFF,
    ];
    for (b, &keep) in KEEP.iter().enumerate() {
        if (c >> b) & 1 == 1 {
            let s = 2 << b;
            w = ((w & keep) << s) | ((w >> s) & keep);
        }
    }
    w
}

/// `out[x] |= mask[x ^ c]` over a run of `out.len()` words.
#[inline(always)]
fn or_xor_shuffled(out: &mut [u64], mask: &[u64], c: u64) {
    let (hi, lo) = (c / CELLS_PER_WORD, c % CELLS_PER_WORD);
    for (j, o) in out.iter_mut().enumerate() {
        *o |= xor_cells(mask[j ^ hi as usize], lo);
    }
}

/// Fills `mask` with the cells of `words` marked `mark`; returns whether there is any.
#[inline(always)]
fn load_mask(words: &[std::sync::atomic::AtomicU64], mark: u8, mask: &mut [u64]) -> bool {
    let mut any = 0;
    for (m, w) in mask.iter_mut().zip(words) {
        *m = cells_equal(w.load(Ordering::Relaxed), mark);
        any |= *m;
    }
    any != 0
}

/// Backward step by runs: the unseen boards of a run join level `d+1` where some move's image
/// run, shuffled by its XOR offset, has a board marked `d`.
pub fn expand_unseen<S: Space>(
    space: &S,
    table: &DistanceTable,
    d: u32,
    bits: u32,
    runs: std::ops::Range<u64>,
    progress: &dyn Progress,
) -> LevelCount {
    let (cur, next) = (mark_of(d), mark_of(d + 1));
    let run_words = (1usize << bits) / CELLS_PER_WORD as usize;
    let n_moves = space.n_moves();
    in_tasks(runs, TASK_RUNS, progress, |task| {
        let mut level = Level::default();
        let mut unseen = vec![0u64; run_words];
        let mut acc = vec![0u64; run_words];
        let mut frontier = vec![0u64; run_words];
        let mut images = vec![0u64; n_moves];
        for run in task {
            let words = &table.words()[run as usize * run_words..(run as usize + 1) * run_words];
            if !load_mask(words, UNSEEN, &mut unseen) {
                continue;
            }
            let base = space.unrank(run << bits);
            for (m, img) in images.iter_mut().enumerate() {
                *img = space.rank(&space.solve_step(&base, m));
                table.prefetch(*img);
            }
            acc.iter_mut().for_each(|a| *a = 0);
            for &img in &images {
                let target = (img >> bits) as usize * run_words;
                if !load_mask(&table.words()[target..target + run_words], cur, &mut frontier) {
                    continue;
                }
                or_xor_shuffled(&mut acc, &frontier, img & ((1 << bits) - 1));
                if acc.iter().zip(&unseen).all(|(a, u)| u & !a == 0) {
                    break;
                }
            }
            for (j, (w, (&a, &u))) in words.iter().zip(acc.iter().zip(&unseen)).enumerate() {
                let new = a & u;
                if new != 0 {
                    // This task owns the run: a load-modify-store cannot race a writer.
                    w.store(w.load(Ordering::Relaxed) | (new * next as u64), Ordering::Relaxed);
                    note_cells(&mut level, (run << bits) + j as u64 * CELLS_PER_WORD, new);
                }
            }
        }
        level
    })
}

/// Forward step by runs: each run with boards marked `d` sends them, shuffled, into the image
/// run of every inverse move, marking the unseen ones.
pub fn expand_frontier<S: Space>(
    space: &S,
    table: &DistanceTable,
    d: u32,
    bits: u32,
    runs: std::ops::Range<u64>,
    progress: &dyn Progress,
) -> LevelCount {
    let (cur, next) = (mark_of(d), mark_of(d + 1));
    let run_words = (1usize << bits) / CELLS_PER_WORD as usize;
    let n_moves = space.n_moves();
    in_tasks(runs, TASK_RUNS, progress, |task| {
        let mut level = Level::default();
        let mut frontier = vec![0u64; run_words];
        let mut shuffled = vec![0u64; run_words];
        for run in task {
            let words = &table.words()[run as usize * run_words..(run as usize + 1) * run_words];
            if !load_mask(words, cur, &mut frontier) {
                continue;
            }
            let base = space.unrank(run << bits);
            for m in 0..n_moves {
                let img = space.rank(&space.scramble_step(&base, m));
                let target = (img >> bits) as usize * run_words;
                shuffled.iter_mut().for_each(|s| *s = 0);
                or_xor_shuffled(&mut shuffled, &frontier, img & ((1 << bits) - 1));
                for (j, (w, &s)) in
                    table.words()[target..target + run_words].iter().zip(&shuffled).enumerate()
                {
                    if s == 0 {
                        continue;
                    }
                    let new = s & cells_equal(w.load(Ordering::Relaxed), UNSEEN);
                    if new != 0 {
                        let old = w.fetch_or(new * next as u64, Ordering::Relaxed);
                        let won = new & cells_equal(old, UNSEEN);
                        let first = ((target + j) as u64) * CELLS_PER_WORD;
                        note_cells(&mut level, first, won);
                    }
                }
            }
        }
        level
    })
}

/// Counts the cells of a mask (low bits) whose word starts at rank `first`, keeping the
/// smallest ranks as samples.
#[inline]
fn note_cells(level: &mut Level, first: u64, mask: u64) {
    let n = mask.count_ones() as u64;
    if level.smallest.len() < super::SAMPLE || first < *level.smallest.last().unwrap() {
        let mut m = mask;
        while m != 0 {
            level.note(first + m.trailing_zeros() as u64 / 2);
            m &= m - 1;
        }
    } else {
        level.found += n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xor_cells_is_the_xor_permutation() {
        let w: u64 = (0..32u64).fold(0, |acc, i| acc | ((i % 4) << (2 * i)));
        for c in 0..32u64 {
            let s = xor_cells(w, c);
            for i in 0..32u64 {
                assert_eq!((s >> (2 * i)) & 3, ((i ^ c) % 4), "c={c} i={i}");
            }
        }
    }

    #[test]
    fn shuffles_across_words() {
        let mask: Vec<u64> = vec![1, 0, 0, 0];
        let mut out = vec![0u64; 4];
        or_xor_shuffled(&mut out, &mask, 3 * 32 + 5);
        assert_eq!(out, vec![0, 0, 0, 1 << 10]);
    }
}
