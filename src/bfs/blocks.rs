//! The search steps for rankings with XOR runs ([`crate::rank::StateRanking::xor_block_bits`]):
//! all orientations of one arrangement of tiles form an aligned run of `2^k` ranks, and a move
//! maps the run of one arrangement onto another's, offset `x` going to `x ^ c`. One rank and
//! a handful of word shuffles then move a whole run (512 boards on Spinpossible 3x3) through
//! a move, instead of one rank per board.
//!
//! The runs' masks are [`RunMask`]s of the table. Like the board-by-board steps, both work on
//! a contiguous range (of runs) that a worker owns, and leave the image runs another process
//! holds to it: forward the shuffled mask, backward a question for the image run's mask (or,
//! with a copy of the whole frontier, the mask read from the copy).
//!
//! A ranking of classes reads a run's orientations through a symmetry: the offsets of an
//! image run are then `A x ^ c`, with `A` a linear map named by the ranking
//! ([`crate::table::OffsetMap`]) that masks are read through after the XOR shuffle.

use super::{Level, LevelCount, Place, Step, in_tasks};
use crate::rank::StateRanking;
use crate::table::{OffsetMap, RunMask, UNSEEN};

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
    in_tasks(runs, TASK_RUNS, step.progress, step.budget, step.serial, |task, level| {
        let (mut unseen, mut found, mut frontier, mut shuffled) =
            (RunMask::new(bits), RunMask::new(bits), RunMask::new(bits), RunMask::new(bits));
        let mut a = OffsetMap::default();
        // Each move's image: its run, its offset map and where it is held (`None`: read
        // from the frontier copy, by rank, with no owner to find).
        let mut images = vec![(0u64, 0usize, None); space.n_moves()];
        let mut remote = Vec::new();
        for run in task {
            if !unseen.load(table, run, UNSEEN) {
                continue;
            }
            let base = space.unrank(part.rank(run << bits));
            for (m, img) in images.iter_mut().enumerate() {
                let (rank, map) = space.rank_in_runs(&space.solve_step(&base, m));
                let place = match step.copy {
                    Some(copy) => {
                        copy.prefetch_run(rank >> bits << bits, bits);
                        None
                    }
                    None => Some(part.place(rank)),
                };
                if let Some(Place::Here(i)) = place {
                    table.prefetch(i);
                }
                *img = (rank, map, place);
            }
            found.clear();
            remote.clear();
            let mut covered = false;
            for &(img, map, place) in &images {
                let any = match (place, step.copy) {
                    (None, Some(copy)) => copy.load_run(&mut frontier, img >> bits << bits),
                    (Some(Place::Here(i)), _) => frontier.load(table, i >> bits, step.cur),
                    (Some(Place::There(p, j)), _) => {
                        remote.push((img, map, p, j));
                        continue;
                    }
                    (None, None) => unreachable!("a place is found without a copy"),
                };
                if !any {
                    continue;
                }
                // Offset x of this run reaches offset A x ^ c of the image run.
                let c = img & ((1 << bits) - 1);
                if map == 0 {
                    found.or_xor_shuffled(&frontier, c);
                } else {
                    shuffled.clear();
                    shuffled.or_xor_shuffled(&frontier, c);
                    space.offset_map(map, &mut a);
                    shuffled.read_through(&a);
                    found.or(&shuffled);
                }
                if found.covers(&unseen) {
                    covered = true;
                    break;
                }
            }
            found.intersect(&unseen);
            for set in found.sets(run) {
                // This task owns the run: no other writer can race with the store.
                table.set_owned(set, step.next);
                level.note_set(part.ranks(set));
            }
            if !covered {
                for &(img, map, owner, j) in &remote {
                    let asker = [run, asker_offset(img & ((1 << bits) - 1), map)];
                    level.outbox.ask(owner, part.parts(), j >> bits, &asker);
                }
            }
        }
    })
}

/// Forward step by runs: each run with boards marked `d` sends them, shuffled, into the image
/// run of every inverse move, marking the unseen ones. A ranking of classes under inversion
/// sends the inverse run's boards as well ([`StateRanking::inverse_in_runs`]).
pub fn expand_frontier<S: StateRanking>(
    step: &Step<'_, S>,
    bits: u32,
    runs: std::ops::Range<u64>,
) -> LevelCount {
    let (space, table) = (step.space, step.table);
    in_tasks(runs, TASK_RUNS, step.progress, step.budget, step.serial, |task, level| {
        let mut masks = ImageMasks::new(bits);
        let (mut frontier, mut inverted) = (RunMask::new(bits), RunMask::new(bits));
        let mut a = OffsetMap::default();
        for run in task {
            if !frontier.load(table, run, step.cur) {
                continue;
            }
            let base = space.unrank(step.part.rank(run << bits));
            masks.send(step, &base, &frontier, &mut *level);
            if let Some((inverse, map)) = space.inverse_in_runs(&base) {
                // Offset x of the run is offset A x of the inverse's run.
                space.offset_map(map, &mut a);
                inverted.clone_from(&frontier);
                inverted.read_through_inverse(&a);
                masks.send(step, &inverse, &inverted, &mut *level);
            }
        }
    })
}

/// The scratch masks of a forward step by runs.
struct ImageMasks {
    bits: u32,
    shuffled: RunMask,
    mapped: RunMask,
    map: OffsetMap,
}

impl ImageMasks {
    fn new(bits: u32) -> ImageMasks {
        ImageMasks {
            bits,
            shuffled: RunMask::new(bits),
            mapped: RunMask::new(bits),
            map: OffsetMap::default(),
        }
    }

    /// Sends the boards of `frontier` (offsets of the run whose first board is `base`) into
    /// the image run of every inverse move, marking the unseen ones.
    fn send<S: StateRanking>(
        &mut self,
        step: &Step<'_, S>,
        base: &S::State,
        frontier: &RunMask,
        level: &mut Level,
    ) {
        let (space, table, part, bits) = (step.space, step.table, step.part, self.bits);
        for m in 0..space.n_moves() {
            let (img, map) = space.rank_in_runs(&space.scramble_step(base, m));
            // Offset x goes to A x ^ c: read through A^-1, then shuffled by c.
            let source = if map == 0 {
                frontier
            } else {
                self.mapped.clone_from(frontier);
                space.offset_map(map, &mut self.map);
                self.mapped.read_through_inverse(&self.map);
                &self.mapped
            };
            self.shuffled.clear();
            self.shuffled.or_xor_shuffled(source, img & ((1 << bits) - 1));
            let i = match part.place(img) {
                Place::Here(i) => i,
                Place::There(owner, j) => {
                    self.shuffled.write_message(j >> bits, level.outbox.to(owner, part.parts()));
                    continue;
                }
            };
            for set in self.shuffled.sets(i >> bits) {
                if !set.is_empty() {
                    level.note_set(part.ranks(table.mark_unseen(set, step.next)));
                }
            }
        }
    }
}

/// A backward question's second word: the XOR offset of the image asked about, and above it
/// the name of the offset map (0: none) its answer is read through ([`asked_offset`]; a
/// name fits 32 bits, [`crate::symmetry::ClassRanking::offset_map`]).
#[inline(always)]
pub(super) fn asker_offset(xor: u64, map: usize) -> u64 {
    debug_assert!(map >> 32 == 0 && xor >> 32 == 0);
    xor | (map as u64) << 32
}

/// The XOR offset and the offset map of [`asker_offset`].
#[inline(always)]
pub(super) fn asked_offset(word: u64) -> (u64, usize) {
    (word & 0xFFFF_FFFF, (word >> 32) as usize)
}
