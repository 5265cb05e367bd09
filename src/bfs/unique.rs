//! Counting shortest solutions, saturating at two, alongside the distances.
//!
//! Every board keeps a *multi* bit: set when it has two or more shortest solutions (move
//! sequences of least length that solve it). A board at distance `d+1` has as many as the sum,
//! over the moves taking it to a board at distance `d`, of that board's count. Both steps here
//! compute that sum board by board:
//! - backward: an unseen board looks at all its moves (stopping once the sum reaches two);
//! - forward: every frontier board visits its predecessors; the first visitor of a board found
//!   in this level marks it (and passes on its own multi bit), any later visitor sets the
//!   multi bit. The *fresh* bit tells a board found in this level (a later visitor counts)
//!   from one found in an earlier level with the same mark (it does not), and is cleared when
//!   the level ends.
//!
//! Both work for directed move sets too: a move's neighbour marked `d` is at distance exactly
//! `d` in the backward step, and the fresh bit identifies level `d+1` in the forward step.
//!
//! A level interrupted in the forward direction has fresh boards whose counts may miss
//! visitors; [`unmark_fresh`] drops them before a resume (the backward step finishes each
//! board before marking it, so its boards are complete).

use std::sync::atomic::Ordering;

use rayon::prelude::*;

use super::{Level, LevelCount, Progress, TASK_WORDS, in_tasks};
use crate::rank::Space;
use crate::table::{
    CELLS_PER_WORD, DistanceTable, UNSEEN, bit_of, cells_equal, mark_of, set_bit, spread_bits,
};

/// Forward step: every board marked `d` visits the boards one move before it.
pub fn expand_frontier<S: Space>(
    space: &S,
    table: &DistanceTable,
    d: u32,
    words: std::ops::Range<usize>,
    progress: &dyn Progress,
) -> LevelCount {
    let (cur, next) = (mark_of(d), mark_of(d + 1));
    let (multi, fresh) = (table.multi_words(), table.fresh_words());
    in_tasks(words.start as u64..words.end as u64, TASK_WORDS as u64, progress, |task| {
        let mut level = Level::default();
        for w in task.start as usize..task.end as usize {
            // Boards marked `d` include those at d-3, d-6...: all their neighbours are already
            // seen and not fresh, so visiting them changes nothing.
            let mut bits =
                cells_equal(table.words()[w].load(Ordering::Relaxed), cur) & table.valid_cells(w);
            while bits != 0 {
                let rank = w as u64 * CELLS_PER_WORD + bits.trailing_zeros() as u64 / 2;
                bits &= bits - 1;
                let is_multi = bit_of(multi, rank);
                let s = space.unrank(rank);
                for m in 0..space.n_moves() {
                    let r = space.rank(&space.scramble_step(&s, m));
                    // Acquire pairs with the marking thread's Release: seeing its mark means
                    // seeing the fresh bit it set first.
                    let word = table.words()[(r / CELLS_PER_WORD) as usize].load(Ordering::Acquire);
                    let mark = (word >> (2 * (r % CELLS_PER_WORD))) & 3;
                    if mark != UNSEEN as u64 && !bit_of(fresh, r) {
                        continue;
                    }
                    // The fresh bit is the claim: whoever sets it first marks the board.
                    if set_bit(fresh, r) {
                        set_bit(multi, r);
                    } else {
                        table.mark_if_unseen(r, next);
                        if is_multi {
                            set_bit(multi, r);
                        }
                        level.note(r);
                    }
                }
            }
        }
        level
    })
}

/// Backward step: every unseen board adds up the counts of its neighbours marked `d`.
pub fn expand_unseen<S: Space>(
    space: &S,
    table: &DistanceTable,
    d: u32,
    words: std::ops::Range<usize>,
    progress: &dyn Progress,
) -> LevelCount {
    let (cur, next) = (mark_of(d), mark_of(d + 1));
    let multi = table.multi_words();
    in_tasks(words.start as u64..words.end as u64, TASK_WORDS as u64, progress, |task| {
        let mut level = Level::default();
        for w in task.start as usize..task.end as usize {
            let word = &table.words()[w];
            let old = word.load(Ordering::Relaxed);
            let mut bits = cells_equal(old, UNSEEN);
            let mut new = old;
            while bits != 0 {
                let cell = bits.trailing_zeros() as u64 / 2;
                bits &= bits - 1;
                let rank = w as u64 * CELLS_PER_WORD + cell;
                let s = space.unrank(rank);
                let mut paths = 0;
                for m in 0..space.n_moves() {
                    let r = space.rank(&space.solve_step(&s, m));
                    if table.get(r) == cur {
                        paths += if bit_of(multi, r) { 2 } else { 1 };
                        if paths >= 2 {
                            break;
                        }
                    }
                }
                if paths > 0 {
                    // The multi bit goes first: a board is never marked with a partial count.
                    if paths >= 2 {
                        set_bit(multi, rank);
                    }
                    new |= (next as u64) << (2 * cell);
                    level.note(rank);
                }
            }
            if new != old {
                // This task owns word `w`: no other writer can race with the store.
                word.store(new, Ordering::Relaxed);
            }
        }
        level
    })
}

/// Boards at distance `d` with one shortest solution, given the counts of the distances
/// before it (`earlier[j]` for `j < d`): boards marked `d` without the multi bit, less those
/// of the earlier distances with the same mark.
pub fn count_level(table: &DistanceTable, d: u32, earlier: &[u64]) -> u64 {
    let mark = mark_of(d);
    let multi = table.multi_words();
    let all: u64 = (0..table.n_words())
        .into_par_iter()
        .map(|w| {
            let cells =
                cells_equal(table.words()[w].load(Ordering::Relaxed), mark) & table.valid_cells(w);
            (cells & !spread_bits(multi, w)).count_ones() as u64
        })
        .sum();
    let before: u64 = (0..d as usize).filter(|j| j % 3 == d as usize % 3).map(|j| earlier[j]).sum();
    all - before
}

/// Clears every fresh bit (the level they belong to is finished).
pub fn clear_fresh(table: &DistanceTable) {
    // Only words that hold bits: untouched pages of a file-backed table stay clean.
    table.fresh_words().par_iter().for_each(|w| {
        if w.load(Ordering::Relaxed) != 0 {
            w.store(0, Ordering::Relaxed)
        }
    });
}

/// Unmarks the boards found in an unfinished forward level (fresh, so their count of
/// solutions may be partial) and clears their bits.
pub fn unmark_fresh(table: &DistanceTable) {
    let (multi, fresh) = (table.multi_words(), table.fresh_words());
    (0..table.n_words()).into_par_iter().with_min_len(1024).for_each(|w| {
        let f = spread_bits(fresh, w);
        if f != 0 {
            let cells = f | (f << 1);
            table.words()[w].fetch_and(!cells, Ordering::Relaxed);
        }
    });
    for (m, f) in multi.iter().zip(fresh) {
        let bits = f.swap(0, Ordering::Relaxed);
        if bits != 0 {
            m.fetch_and(!bits, Ordering::Relaxed);
        }
    }
}
