//! The search steps for rankings with XOR runs ([`crate::rank::StateRanking::xor_block_bits`]):
//! all orientations of one arrangement of tiles form an aligned run of `2^k` ranks, and a move
//! maps the run of one arrangement onto another's, offset `x` going to `x ^ c`. One rank and
//! a handful of word shuffles then move a whole run (512 boards on Spinpossible 3x3) through
//! a move, instead of one rank per board.
//!
//! The runs' masks are [`RunMask`]s of the table. Like the board-by-board steps, both work on
//! a contiguous range (of runs) that a worker owns, and leave the image runs another process
//! holds to it: forward the shuffled mask, backward a question for the image run's mask.

use super::{Level, LevelCount, Step, in_tasks};
use crate::rank::StateRanking;
use crate::table::{RunMask, UNSEEN};

/// Runs handled per parallel task.
const TASK_RUNS: u64 = 64;

/// Backward step by runs: the unseen boards of a run join level `d+1` where some move's image
/// run, shuffled by its XOR offset, has a board marked `d`.
pub fn expand_unseen<S: StateRanking>(
    step: &Step<'_, S>,
    bits: u32,
    runs: std::ops::Range<u64>,
) -> LevelCount {
    let (space, table, part) = (step.space, step.table, step.part);
    in_tasks(runs, TASK_RUNS, step.progress, |task| {
        let mut level = Level::default();
        let (mut unseen, mut found, mut frontier) =
            (RunMask::new(bits), RunMask::new(bits), RunMask::new(bits));
        let mut images = vec![0u64; space.n_moves()];
        let mut remote = Vec::new();
        for run in task {
            if !unseen.load(table, run, UNSEEN) {
                continue;
            }
            let base = space.unrank((run << bits) + part.first);
            for (m, img) in images.iter_mut().enumerate() {
                *img = space.rank(&space.solve_step(&base, m));
                table.prefetch(img.wrapping_sub(part.first));
            }
            found.clear();
            remote.clear();
            let mut covered = false;
            for &img in &images {
                let Some(i) = part.local(img) else {
                    remote.push(img);
                    continue;
                };
                if !frontier.load(table, i >> bits, step.cur) {
                    continue;
                }
                found.or_xor_shuffled(&frontier, img & ((1 << bits) - 1));
                if found.covers(&unseen) {
                    covered = true;
                    break;
                }
            }
            found.intersect(&unseen);
            for set in found.sets(run) {
                // This task owns the run: no other writer can race with the store.
                table.set_owned(set, step.next);
                level.note_set(set.shifted(part.first));
            }
            if !covered {
                for &img in &remote {
                    let asker = [run, img & ((1 << bits) - 1)];
                    level.outbox.ask(part.owner(img), part.parts(), img >> bits, &asker);
                }
            }
        }
        level
    })
}

/// Forward step by runs: each run with boards marked `d` sends them, shuffled, into the image
/// run of every inverse move, marking the unseen ones.
pub fn expand_frontier<S: StateRanking>(
    step: &Step<'_, S>,
    bits: u32,
    runs: std::ops::Range<u64>,
) -> LevelCount {
    let (space, table, part) = (step.space, step.table, step.part);
    in_tasks(runs, TASK_RUNS, step.progress, |task| {
        let mut level = Level::default();
        let (mut frontier, mut shuffled) = (RunMask::new(bits), RunMask::new(bits));
        for run in task {
            if !frontier.load(table, run, step.cur) {
                continue;
            }
            let base = space.unrank((run << bits) + part.first);
            for m in 0..space.n_moves() {
                let img = space.rank(&space.scramble_step(&base, m));
                shuffled.clear();
                shuffled.or_xor_shuffled(&frontier, img & ((1 << bits) - 1));
                let Some(i) = part.local(img) else {
                    let to = level.outbox.to(part.owner(img), part.parts());
                    to.push(img >> bits);
                    to.extend_from_slice(shuffled.cells());
                    continue;
                };
                for set in shuffled.sets(i >> bits) {
                    if !set.is_empty() {
                        level.note_set(table.mark_unseen(set, step.next).shifted(part.first));
                    }
                }
            }
        }
        level
    })
}
