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
//!   themselves from the answers. Where the whole frontier fits one bit per rank, every
//!   process holds a copy of it instead (`frontier_copy.rs`) and asks nothing.
//!
//! A round takes tasks in order until its workers' outboxes hold [`ROUND_WORDS`] words or
//! `ROUND_TIME` has passed, so buffers stay bounded however the level's density varies
//! along the table; a process whose table is done runs empty rounds until every process is.
//! After each round the processes agree whether to go on, to stop, or to write a checkpoint
//! first.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::frontier_copy::CopyMemory;
use super::outbox::{Outboxes, one_piece_each};
use super::run_wise;
use super::{
    Budget, Direction, FrontierCopy, Kernel, Level, LevelCount, Mailbox, Session, Step, blocks,
    unique,
};
use crate::rank::StateRanking;
use crate::table::{CELLS_PER_WORD, OffsetMap, RunMask, UNSEEN};

/// Words (of eight bytes) a process means to send per round when several search together:
/// 16 MiB, askers of questions included. A round stops taking tasks once its workers'
/// outboxes hold them, so it ends at most a task per worker thread beyond.
pub const ROUND_WORDS: u64 = 1 << 21;

/// The longest a round expands before the processes exchange and agree (whether to stop, or
/// to write a checkpoint), when its outboxes stay small.
const ROUND_TIME: Duration = Duration::from_secs(2);

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

/// The step kernel of `kernel` and `direction` over `groups` of this process's table, as far
/// as the step's budget allows: [`LevelCount::reached`] is the group where it stopped.
fn expand_groups<S: StateRanking>(
    step: &Step<'_, S>,
    kernel: Kernel<'_>,
    direction: Direction,
    groups: Range<usize>,
) -> LevelCount {
    match (kernel, direction) {
        (Kernel::Unique, Direction::Forward) => unique::expand_frontier(step, groups),
        (Kernel::Unique, Direction::Backward) => unique::expand_unseen(step, groups),
        (Kernel::Boards(Some(runs)), Direction::Forward)
            if run_wise::applies(runs, step.part.parts()) =>
        {
            match step.by_image_runs {
                Some(inverses) => {
                    run_wise::expand_frontier_by_image_runs(step, runs, inverses, groups)
                }
                None => run_wise::expand_frontier(step, runs, groups),
            }
        }
        (Kernel::Boards(runs), Direction::Forward) => super::expand_frontier(step, runs, groups),
        (Kernel::Boards(Some(runs)), Direction::Backward)
            if run_wise::applies(runs, step.part.parts()) =>
        {
            run_wise::expand_unseen(step, runs, groups)
        }
        (Kernel::Boards(runs), Direction::Backward) => super::expand_unseen(step, runs, groups),
        (Kernel::Xor(bits), _) => {
            // Runs are whole groups; the table's last run may end in padding.
            let per_run = (1u64 << bits) / CELLS_PER_WORD;
            let runs = groups.start as u64 / per_run..(groups.end as u64).div_ceil(per_run);
            let mut level = match direction {
                Direction::Forward => blocks::expand_frontier(step, bits, runs),
                Direction::Backward => blocks::expand_unseen(step, bits, runs),
            };
            level.reached = (level.reached * per_run).min(groups.end as u64);
            level
        }
    }
}

/// Expands level `d` of `step` (with `unseen` ranks left): `None` when the search was asked
/// to stop (on any process).
pub(crate) fn expand_level<S: StateRanking>(
    step: &Step<'_, S>,
    kernel: Kernel<'_>,
    direction: Direction,
    (d, unseen): (u32, u64),
    session: Session<'_>,
    pool: &rayon::ThreadPool,
    buffers: &mut Buffers,
) -> crate::Result<Option<(LevelCount, Traffic)>> {
    let processes = session.processes;
    let n_groups = step.part.n_groups();
    let mut traffic = Traffic { direction, ranks_sent: 0, bytes_sent: 0, rounds: 1 };
    if processes.count() == 1 {
        let level = pool.install(|| expand_groups(step, kernel, direction, 0..n_groups));
        return Ok((!session.progress.should_stop()).then_some((level, traffic)));
    }
    // The copy pays where the questions would outweigh it: one bit per rank against a
    // question and an answer for up to every move of every unseen board.
    let copy = (direction == Direction::Backward
        && session.config.frontier_copy
        && !matches!(kernel, Kernel::Unique)
        && unseen.saturating_mul(step.space.n_moves() as u64) > step.space.n_states() / 8)
        .then(|| {
            let memory = &mut buffers.copy;
            FrontierCopy::gather(step.table, step.cur, &step.part.deal, processes, pool, memory)
        });
    // Levels go backward for good: a level with the copy sends no items, and one without it
    // never takes it again, so each lets go of the other's memory.
    match copy {
        Some(_) => (buffers.outboxes, buffers.items) = Default::default(),
        None => buffers.copy = Default::default(),
    }
    traffic.rounds = 0;
    let mut total = LevelCount::empty();
    let mut next_group = 0;
    loop {
        let until = Instant::now() + ROUND_TIME;
        let budget = Budget { words: ROUND_WORDS, until, outboxes: &buffers.outboxes };
        let round = Step { budget: Some(&budget), copy: copy.as_ref(), ..*step };
        let mut level =
            pool.install(|| expand_groups(&round, kernel, direction, next_group..n_groups));
        next_group = level.reached as usize;
        buffers.outboxes.filled = std::mem::take(&mut level.outboxes);
        let (found, items, bytes) = match direction {
            Direction::Forward => deliver(step, kernel, buffers, session, pool),
            Direction::Backward => ask(step, kernel, buffers, session, pool),
        };
        buffers.outboxes.recycle();
        step.progress.found(found.found);
        total.absorb(found);
        total.absorb(level.into());
        traffic.ranks_sent += items;
        traffic.bytes_sent += bytes;
        if session.config.pause_in_level == Some(d) && traffic.rounds == 0 {
            pause_until_stopped(session.config.stop.as_deref());
        }
        let due = processes.index() == 0 && session.journal.due();
        traffic.rounds += 1;
        let mine = [session.progress.should_stop(), due, next_group < n_groups];
        let [stop, due, going, _] =
            processes.sum_each([mine[0] as u64, mine[1] as u64, mine[2] as u64, 0]);
        if stop > 0 {
            return Ok(None);
        }
        if due > 0 {
            session.journal.under_way(step.table, processes)?;
        }
        if going == 0 {
            break;
        }
    }
    if let Some(copy) = copy {
        copy.give_back(&mut buffers.copy);
    }
    traffic.ranks_sent = processes.sum(traffic.ranks_sent);
    traffic.bytes_sent = processes.sum(traffic.bytes_sent);
    Ok(Some((total, traffic)))
}

/// What the rounds of a search use again and again: the workers' outboxes and the buffers
/// of the swaps (see [`super::outbox`]).
#[derive(Default)]
pub(crate) struct Buffers {
    outboxes: Outboxes,
    /// Forward: the neighbours sent. Backward: the questions.
    items: Mailbox<u64>,
    /// Backward, by runs: the masks answered.
    masks: Mailbox<u64>,
    /// Backward, board by board: the answers.
    answers: Mailbox<u8>,
    /// Backward: the frontier copy's.
    copy: CopyMemory,
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
    buffers: &mut Buffers,
    session: Session<'_>,
    pool: &rayon::ThreadPool,
) -> (Level, u64, u64) {
    let (outboxes, mailbox) = (&buffers.outboxes, &mut buffers.items);
    let words = outboxes.items();
    session.processes.swap(&outboxes.items_by_owner(session.processes.count()), mailbox);
    let received = &mailbox.received.items;
    let (table, part, next) = (step.table, step.part, step.next);
    let (level, items) = match kernel {
        Kernel::Xor(bits) => {
            // Each item: a message of an image run's mask (RunMask::write_message), which
            // says its own length: find where every 64th starts, then read them in parallel.
            let sizer = RunMask::new(bits);
            let (mut starts, mut at, mut items) = (vec![0], 0, 0u64);
            while at < received.len() {
                at += sizer.message_words(received[at]);
                items += 1;
                if items.is_multiple_of(64) {
                    starts.push(at);
                }
            }
            starts.push(received.len());
            let level = pool.install(|| {
                starts
                    .par_windows(2)
                    .map(|w| {
                        let mut level = Level::default();
                        let mut mask = RunMask::new(bits);
                        let mut at = w[0];
                        while at < w[1] {
                            let (run, used) = mask.read_message(&received[at..]);
                            at += used;
                            for set in mask.sets(run) {
                                if !set.is_empty() {
                                    level.note_set(part.ranks(table.mark_unseen(set, next)));
                                }
                            }
                        }
                        level
                    })
                    .reduce(Level::default, Level::merge)
            });
            (level, items)
        }
        Kernel::Unique => {
            // Each item: the rank and the visitor's multi bit.
            let level = pool.install(|| {
                received
                    .par_chunks(1 << 12)
                    .map(|chunk| {
                        let mut level = Level::default();
                        for &item in chunk {
                            let i = item >> 1;
                            if unique::visit(table, i, next, item & 1 == 1) {
                                level.note(part.rank(i));
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
                        for (k, &i) in chunk.iter().enumerate() {
                            if let Some(&ahead) = chunk.get(k + AHEAD) {
                                table.prefetch(ahead);
                            }
                            if table.mark_if_unseen(i, next) {
                                level.note(part.rank(i));
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
    buffers: &mut Buffers,
    session: Session<'_>,
    pool: &rayon::ThreadPool,
) -> (Level, u64, u64) {
    let processes = session.processes;
    let outboxes = &buffers.outboxes;
    let questions = outboxes.items();
    processes.swap(&outboxes.items_by_owner(processes.count()), &mut buffers.items);
    let asked = &buffers.items.received;
    let (table, part, cur, next) = (step.table, step.part, step.cur, step.next);
    match kernel {
        Kernel::Xor(bits) => {
            let words = mask_words(bits);
            // Each answer: the mask of the run's boards at the current distance.
            let answers: Vec<Vec<u64>> = pool.install(|| {
                asked
                    .parts()
                    .par_iter()
                    .map(|runs| {
                        let mut mask = RunMask::new(bits);
                        let mut answer = Vec::with_capacity(runs.len() * words);
                        for &r in *runs {
                            mask.clear();
                            mask.load(table, r, cur);
                            answer.extend_from_slice(mask.cells());
                        }
                        answer
                    })
                    .collect()
            });
            processes.swap(&one_piece_each(&answers), &mut buffers.masks);
            let replies = buffers.masks.received.parts();
            // Each asker: its run, the XOR offset of the image asked about and the map its
            // offsets are read through; each reply: the image run's mask.
            let level = fold_replies(pool, outboxes, &replies, (2, words, 64), |a, r| {
                let mut level = Level::default();
                let (mut answer, mut found, mut unseen) =
                    (RunMask::new(bits), RunMask::new(bits), RunMask::new(bits));
                let mut map_of = OffsetMap::default();
                for (asker, reply) in a.chunks(2).zip(r.chunks(words)) {
                    let (run, (xor, map)) = (asker[0], blocks::asked_offset(asker[1]));
                    answer.set_cells(reply);
                    found.clear();
                    found.or_xor_shuffled(&answer, xor);
                    if map != 0 {
                        step.space.offset_map(map, &mut map_of);
                        found.read_through(&map_of);
                    }
                    unseen.load(table, run, UNSEEN);
                    found.intersect(&unseen);
                    for set in found.sets(run) {
                        if !set.is_empty() {
                            level.note_set(part.ranks(table.mark_unseen(set, next)));
                        }
                    }
                }
                level
            });
            let answered: u64 = answers.iter().map(|a| a.len() as u64 * 8).sum();
            (level, questions, questions * 8 + answered)
        }
        Kernel::Unique => {
            // Each answer: the paths through the neighbour (0, 1, or 2 for two or more).
            let bits = table.unique_bits();
            let answers: Vec<Vec<u8>> = asked
                .parts()
                .iter()
                .map(|qs| {
                    qs.iter()
                        .map(|&i| match table.get(i) == cur {
                            false => 0,
                            true => 1 + bits.is_multi(i) as u8,
                        })
                        .collect()
                })
                .collect();
            processes.swap_bytes(&one_piece_each(&answers), &mut buffers.answers);
            let replies = buffers.answers.received.parts();
            // Each asker: its table index and the paths it found among its own neighbours;
            // its questions may have gone to several processes.
            let mut paths: std::collections::HashMap<u64, u64> = Default::default();
            for (askers, replies) in outboxes.askers_with_replies(&replies, (2, 1, 1 << 20)) {
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
                        level.note(part.rank(i));
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
                    .parts()
                    .par_iter()
                    .map(|qs| {
                        let ahead = qs.iter().skip(AHEAD).map(Some).chain(std::iter::repeat(None));
                        qs.iter()
                            .zip(ahead)
                            .map(|(&i, ahead)| {
                                if let Some(&a) = ahead {
                                    table.prefetch(a);
                                }
                                (table.get(i) == cur) as u8
                            })
                            .collect()
                    })
                    .collect()
            });
            processes.swap_bytes(&one_piece_each(&answers), &mut buffers.answers);
            let replies = buffers.answers.received.parts();
            // Each asker: its table index; each reply: 1 where the neighbour is at `d`.
            let level = fold_replies(pool, outboxes, &replies, (1, 1, 1 << 12), |a, r| {
                let mut level = Level::default();
                for (&i, &yes) in a.iter().zip(r) {
                    if yes == 1 && table.mark_if_unseen(i, next) {
                        level.note(part.rank(i));
                    }
                }
                level
            });
            let answered: u64 = answers.iter().map(|a| a.len() as u64).sum();
            (level, questions, questions * 8 + answered)
        }
    }
}

/// Marks askers from the replies to their questions, in parallel: each question has
/// `per_asker` words of askers in `outboxes` and `per_reply` items of `replies` (by the
/// process that answered); `mark` takes the askers and the replies of up to `per_task`
/// questions and returns what it marked.
fn fold_replies<T: Sync>(
    pool: &rayon::ThreadPool,
    outboxes: &Outboxes,
    replies: &[&[T]],
    shape: (usize, usize, usize),
    mark: impl Fn(&[u64], &[T]) -> Level + Sync,
) -> Level {
    let pieces = outboxes.askers_with_replies(replies, shape);
    pool.install(|| {
        pieces
            .par_iter()
            .map(|&(askers, replies)| mark(askers, replies))
            .reduce(Level::default, Level::merge)
    })
}

/// Tests only: waits until stopped, or a minute.
fn pause_until_stopped(stop: Option<&AtomicBool>) {
    let t0 = Instant::now();
    while !stop.is_some_and(|s| s.load(Ordering::Relaxed)) && t0.elapsed() < Duration::from_secs(60)
    {
        std::thread::sleep(Duration::from_millis(5));
    }
}
