//! One level's expansion, by one process or several.
//!
//! One process runs the level's step over its whole table: nothing is left to others. With
//! several, each expands its own boards in rounds over slices of its table, with the same
//! step kernels (runs, prefetch); what a round leaves to other processes then goes to them
//! in one swap:
//! - forward, the neighbours they hold (ranks, or for XOR runs the shuffled masks of image
//!   runs, or for unique counts ranks with the visitor's multi bit), which they mark;
//! - backward, questions about the neighbours they hold (a rank, answered by one byte: is it
//!   at the current distance, or for unique counts the paths through it; or an image run,
//!   answered by its mask of boards at the current distance), and the askers mark
//!   themselves from the answers.
//!
//! Rounds keep the buffers near [`ROUND_WORDS`] whatever the level's size: each process
//! sizes its next round from what its last one sent per group, and runs empty rounds once
//! its table is done until every process is. Few rounds matter: each is a few collectives,
//! where every process waits for the slowest. After each round the processes agree whether
//! to go on, to stop, or to write a checkpoint first.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::{Direction, Kernel, Level, LevelCount, Outbox, Run, Step, blocks, unique};
use crate::rank::StateRanking;
use crate::table::{CELLS_PER_WORD, RunMask, UNSEEN};

/// Words (of eight bytes) a process means to send per round when several search together:
/// 32 MiB, and as much again for whom each question is from. Rounds are sized from the
/// words the previous round sent per group of the table.
pub const ROUND_WORDS: u64 = 1 << 22;

/// Rounds cover whole units of 2^12 groups (131072 ranks: whole XOR runs).
const ROUND_UNIT: usize = 1 << 12;

/// What one level sent between processes, summed over all of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Traffic {
    /// How the level was expanded.
    pub direction: Direction,
    /// Items sent to another process: neighbours to mark (ranks, or masks of runs) forward,
    /// questions backward.
    pub ranks_sent: u64,
    /// Bytes sent, the answers to questions included.
    pub bytes_sent: u64,
    /// Exchange rounds.
    pub rounds: u64,
}

/// The step kernel of `kernel` and `direction` over `groups` of this process's table.
fn expand_groups<S: StateRanking>(
    step: &Step<'_, S>,
    kernel: Kernel<'_>,
    direction: Direction,
    groups: Range<usize>,
) -> LevelCount {
    match (kernel, direction) {
        (Kernel::Unique, Direction::Forward) => unique::expand_frontier(step, groups),
        (Kernel::Unique, Direction::Backward) => unique::expand_unseen(step, groups),
        (Kernel::Boards(runs), Direction::Forward) => super::expand_frontier(step, runs, groups),
        (Kernel::Boards(runs), Direction::Backward) => super::expand_unseen(step, runs, groups),
        (Kernel::Xor(bits), _) => {
            // Runs are whole groups; the table's last run may end in padding.
            let per_run = (1u64 << bits) / CELLS_PER_WORD;
            let runs = groups.start as u64 / per_run..(groups.end as u64).div_ceil(per_run);
            match direction {
                Direction::Forward => blocks::expand_frontier(step, bits, runs),
                Direction::Backward => blocks::expand_unseen(step, bits, runs),
            }
        }
    }
}

/// Expands level `d` of `step`: `None` when the search was asked to stop (on any process).
pub(crate) fn expand_level<S: StateRanking>(
    step: &Step<'_, S>,
    kernel: Kernel<'_>,
    direction: Direction,
    d: u32,
    run: Run<'_>,
    pool: &rayon::ThreadPool,
) -> crate::Result<Option<(LevelCount, Traffic)>> {
    let processes = run.processes;
    let n_groups = step.part.n_groups();
    let mut traffic = Traffic { direction, ranks_sent: 0, bytes_sent: 0, rounds: 1 };
    if processes.count() == 1 {
        let level = pool.install(|| expand_groups(step, kernel, direction, 0..n_groups));
        return Ok((!run.progress.should_stop()).then_some((level, traffic)));
    }
    traffic.rounds = 0;
    let mut total = LevelCount::empty();
    let (mut next_group, mut round_groups) = (0, ROUND_UNIT);
    loop {
        let groups = next_group..(next_group + round_groups).min(n_groups);
        next_group = groups.end;
        let n = groups.len().max(1) as u64;
        let mut level = pool.install(|| expand_groups(step, kernel, direction, groups));
        let outbox = std::mem::take(&mut level.outbox);
        let words: u64 = outbox.to.iter().map(|v| v.len() as u64).sum();
        // At most four times larger each round: a level's density changes along the table.
        let fits = (ROUND_WORDS * n / words.max(1)) as usize;
        round_groups = fits.clamp(ROUND_UNIT, 4 * round_groups) / ROUND_UNIT * ROUND_UNIT;
        let (found, items, bytes) = match direction {
            Direction::Forward => deliver(step, kernel, &outbox, run, pool),
            Direction::Backward => ask(step, kernel, outbox, run, pool),
        };
        step.progress.found(found.found);
        total.absorb(found);
        total.absorb(Level { outbox: Outbox::default(), ..level.into() });
        traffic.ranks_sent += items;
        traffic.bytes_sent += bytes;
        if run.config.pause_in_level == Some(d) && traffic.rounds == 0 {
            pause_until_stopped(run.config.stop.as_deref());
        }
        let due = processes.index() == 0 && run.journal.due();
        traffic.rounds += 1;
        let mine = [run.progress.should_stop(), due, next_group < n_groups];
        let [stop, due, going, _] =
            processes.sum_each([mine[0] as u64, mine[1] as u64, mine[2] as u64, 0]);
        if stop > 0 {
            return Ok(None);
        }
        if due > 0 {
            run.journal.under_way(step.table, processes)?;
        }
        if going == 0 {
            break;
        }
    }
    traffic.ranks_sent = processes.sum(traffic.ranks_sent);
    traffic.bytes_sent = processes.sum(traffic.bytes_sent);
    Ok(Some((total, traffic)))
}

/// Items looked at ahead of the one processed, so its table word has been prefetched.
const AHEAD: usize = 16;

/// Words of a run's mask.
fn mask_words(bits: u32) -> usize {
    ((1u64 << bits) / CELLS_PER_WORD) as usize
}

/// Forward: sends every process the neighbours it holds and marks those sent here. The
/// boards marked, the items and the bytes sent.
fn deliver<S: StateRanking>(
    step: &Step<'_, S>,
    kernel: Kernel<'_>,
    outbox: &Outbox,
    run: Run<'_>,
    pool: &rayon::ThreadPool,
) -> (Level, u64, u64) {
    let words: u64 = outbox.to.iter().map(|v| v.len() as u64).sum();
    let received = run.processes.swap(&outbox.to).concat();
    let (table, first, next) = (step.table, step.part.first, step.next);
    let (level, items) = match kernel {
        Kernel::Xor(bits) => {
            // Each item: the image run, then its mask's words.
            let record = 1 + mask_words(bits);
            let level = pool.install(|| {
                received
                    .par_chunks(record * 64)
                    .map(|chunk| {
                        let mut level = Level::default();
                        let mut mask = RunMask::new(bits);
                        for item in chunk.chunks(record) {
                            mask.set_cells(&item[1..]);
                            for set in mask.sets(item[0] - (first >> bits)) {
                                if !set.is_empty() {
                                    level.note_set(table.mark_unseen(set, next).shifted(first));
                                }
                            }
                        }
                        level
                    })
                    .reduce(Level::default, Level::merge)
            });
            (level, words / record as u64)
        }
        Kernel::Unique => {
            // Each item: the rank and the visitor's multi bit.
            let level = pool.install(|| {
                received
                    .par_chunks(1 << 12)
                    .map(|chunk| {
                        let mut level = Level::default();
                        for &item in chunk {
                            let r = item >> 1;
                            if unique::visit(table, r - first, next, item & 1 == 1) {
                                level.note(r);
                            }
                        }
                        level
                    })
                    .reduce(Level::default, Level::merge)
            });
            (level, words)
        }
        Kernel::Boards(_) => {
            let level = pool.install(|| {
                received
                    .par_chunks(1 << 12)
                    .map(|chunk| {
                        let mut level = Level::default();
                        for (k, &r) in chunk.iter().enumerate() {
                            if let Some(&ahead) = chunk.get(k + AHEAD) {
                                table.prefetch(ahead - first);
                            }
                            if table.mark_if_unseen(r - first, next) {
                                level.note(r);
                            }
                        }
                        level
                    })
                    .reduce(Level::default, Level::merge)
            });
            (level, words)
        }
    };
    (level, items, words * 8)
}

/// Backward: sends every process the questions about the neighbours it holds, answers those
/// asked here, and marks the askers from the answers. The boards marked, the questions and
/// the bytes sent (questions and answers).
fn ask<S: StateRanking>(
    step: &Step<'_, S>,
    kernel: Kernel<'_>,
    outbox: Outbox,
    run: Run<'_>,
    pool: &rayon::ThreadPool,
) -> (Level, u64, u64) {
    let processes = run.processes;
    let questions: u64 = outbox.to.iter().map(|v| v.len() as u64).sum();
    let asked = processes.swap(&outbox.to);
    let (table, first, cur, next) = (step.table, step.part.first, step.cur, step.next);
    match kernel {
        Kernel::Xor(bits) => {
            let words = mask_words(bits);
            let maps = step.space.offset_maps();
            // Each answer: the mask of the run's boards at the current distance.
            let answers: Vec<Vec<u64>> = pool.install(|| {
                asked
                    .par_iter()
                    .map(|runs| {
                        let mut mask = RunMask::new(bits);
                        let mut answer = Vec::with_capacity(runs.len() * words);
                        for &r in runs {
                            mask.clear();
                            mask.load(table, r - (first >> bits), cur);
                            answer.extend_from_slice(mask.cells());
                        }
                        answer
                    })
                    .collect()
            });
            let replies = processes.swap(&answers);
            let level = pool.install(|| {
                outbox
                    .askers
                    .par_iter()
                    .zip(&replies)
                    .flat_map(|(askers, replies)| {
                        // Each asker: its run, the XOR offset of the image asked about and
                        // the map its offsets are read through.
                        askers.par_chunks(2 * 64).zip(replies.par_chunks(words * 64))
                    })
                    .map(|(askers, replies)| {
                        let mut level = Level::default();
                        let (mut answer, mut found, mut unseen) =
                            (RunMask::new(bits), RunMask::new(bits), RunMask::new(bits));
                        for (asker, reply) in askers.chunks(2).zip(replies.chunks(words)) {
                            let (run, (xor, map)) = (asker[0], blocks::asked_offset(asker[1]));
                            answer.set_cells(reply);
                            found.clear();
                            found.or_xor_shuffled(&answer, xor);
                            if map != 0 {
                                found.read_through(&maps[map]);
                            }
                            unseen.load(table, run, UNSEEN);
                            found.intersect(&unseen);
                            for set in found.sets(run) {
                                if !set.is_empty() {
                                    level.note_set(table.mark_unseen(set, next).shifted(first));
                                }
                            }
                        }
                        level
                    })
                    .reduce(Level::default, Level::merge)
            });
            let answered: u64 = answers.iter().map(|a| a.len() as u64 * 8).sum();
            (level, questions, questions * 8 + answered)
        }
        Kernel::Unique => {
            // Each answer: the paths through the neighbour (0, 1, or 2 for two or more).
            let bits = table.unique_bits();
            let answers: Vec<Vec<u8>> = asked
                .iter()
                .map(|qs| {
                    qs.iter()
                        .map(|&r| match table.get(r - first) == cur {
                            false => 0,
                            true => 1 + bits.is_multi(r - first) as u8,
                        })
                        .collect()
                })
                .collect();
            let replies = processes.swap_bytes(&answers);
            // Each asker: its table index and the paths it found among its own neighbours;
            // its questions may have gone to several processes.
            let mut paths: std::collections::HashMap<u64, u64> = Default::default();
            for (askers, replies) in outbox.askers.iter().zip(&replies) {
                for (asker, &more) in askers.chunks(2).zip(replies) {
                    *paths.entry(asker[0]).or_insert(asker[1]) += more as u64;
                }
            }
            let mut level = Level::default();
            for (i, paths) in paths {
                if paths > 0 {
                    // The multi bit goes first: a board is never marked with a partial count.
                    if paths >= 2 {
                        bits.set_multi(i);
                    }
                    if table.mark_if_unseen(i, next) {
                        level.note(i + first);
                    }
                }
            }
            let answered: u64 = answers.iter().map(|a| a.len() as u64).sum();
            (level, questions, questions * 8 + answered)
        }
        Kernel::Boards(_) => {
            // Each answer: 1 where the neighbour is at the current distance.
            let answers: Vec<Vec<u8>> = pool.install(|| {
                asked
                    .par_iter()
                    .map(|qs| {
                        let ahead = qs.iter().skip(AHEAD).map(Some).chain(std::iter::repeat(None));
                        qs.iter()
                            .zip(ahead)
                            .map(|(&r, ahead)| {
                                if let Some(&a) = ahead {
                                    table.prefetch(a - first);
                                }
                                (table.get(r - first) == cur) as u8
                            })
                            .collect()
                    })
                    .collect()
            });
            let replies = processes.swap_bytes(&answers);
            let level = pool.install(|| {
                outbox
                    .askers
                    .par_iter()
                    .zip(&replies)
                    .flat_map(|(askers, replies)| {
                        askers.par_chunks(1 << 12).zip(replies.par_chunks(1 << 12))
                    })
                    .map(|(askers, replies)| {
                        let mut level = Level::default();
                        for (&i, &yes) in askers.iter().zip(replies) {
                            if yes == 1 && table.mark_if_unseen(i, next) {
                                level.note(i + first);
                            }
                        }
                        level
                    })
                    .reduce(Level::default, Level::merge)
            });
            let answered: u64 = answers.iter().map(|a| a.len() as u64).sum();
            (level, questions, questions * 8 + answered)
        }
    }
}

/// Tests only: waits until stopped, or a minute.
fn pause_until_stopped(stop: Option<&AtomicBool>) {
    let t0 = Instant::now();
    while !stop.is_some_and(|s| s.load(Ordering::Relaxed)) && t0.elapsed() < Duration::from_secs(60)
    {
        std::thread::sleep(Duration::from_millis(5));
    }
}
