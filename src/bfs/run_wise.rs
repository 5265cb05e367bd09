//! Steps that move a run's boards move by move. Where every move maps runs onto runs (the
//! last digit's runs of a coordinate search, NRP (4,4,3)'s cell runs), a task first gathers
//! the boards of one run that the step expands, then sweeps each move's image run and offset
//! table once for all of them. The board-by-board steps interleave every move's image run
//! and table for each board; backward, each board also stops at a different move, a branch
//! no predictor learns. The turnstile (6,286,896,000 boards) takes 14.2-15.7 s against
//! 19.6 s, its backward level 15 4.3-4.9 s against 7.5.

use super::{Level, LevelCount, Place, RunImages, Step};
use crate::bfs::Direction;
use crate::rank::StateRanking;
use crate::rank::runs::{CellRuns, ImageOffsets, OffsetTable};
use crate::table::{CELLS_PER_WORD, DistanceTable, RankSet, prefetch_range_l2};
use crate::with_image_offsets;

/// Table indices ahead of the one marked whose words are prefetched: image runs are read
/// in offset-table order, far apart for sparse levels.
const AHEAD: usize = 32;

/// Whether `runs` can be searched move by move here: every move keeps the runs, and one
/// process holds the whole table (the image runs' places are then their ranks).
pub fn applies(runs: &CellRuns, parts: usize) -> bool {
    runs.rest.is_empty() && parts == 1
}

/// The boards of one run that a task gathered (their offsets in the run), with the run's
/// image runs.
struct Gathered<'a, S: StateRanking> {
    images: RunImages<'a, S>,
    run: u64,
    offsets: Vec<u32>,
}

impl<'a, S: StateRanking> Gathered<'a, S> {
    /// Walks the ranks of `groups` that `of_group` yields, run by run, calling `flush` with
    /// each run's gathered boards.
    fn walk(
        step: &Step<'_, S>,
        runs: &'a CellRuns,
        direction: Direction,
        groups: std::ops::Range<usize>,
        of_group: impl Fn(usize) -> RankSet,
        mut flush: impl FnMut(&Gathered<'a, S>),
    ) {
        let len = runs.len;
        let mut g = Gathered {
            images: RunImages::new(runs, direction),
            run: u64::MAX,
            offsets: Vec::new(),
        };
        for group in groups {
            for i in of_group(group) {
                let run = i / len;
                if run != g.run {
                    if !g.offsets.is_empty() {
                        flush(&g);
                        g.offsets.clear();
                    }
                    g.images.go_to(step.space, step.part, i);
                    g.run = run;
                }
                g.offsets.push((i - run * len) as u32);
            }
        }
        if !g.offsets.is_empty() {
            flush(&g);
        }
    }

    /// For each offset class and move `k`: where the image run starts, its offset table, and
    /// the gathered offsets of that class.
    fn sweeps(
        &self,
        table: &DistanceTable,
        classes: usize,
        class_offsets: &mut Vec<u32>,
        mut f: impl FnMut(usize, u64, (&OffsetTable, Option<&OffsetTable>), &[u32]),
    ) {
        let moves = self.images.n_moves();
        // Every image run into the second-level cache at once: the sweeps then find their
        // words there, where a prefetch a few boards ahead comes too late for the first
        // touches.
        for &p in &self.images.placed {
            if let Place::Here(start) = p {
                prefetch_range_l2(table, start..start + self.images.runs.len);
            }
        }
        for class in 0..classes {
            let offsets = if classes == 1 {
                &self.offsets[..]
            } else {
                class_offsets.clear();
                class_offsets
                    .extend(self.offsets.iter().filter(|&&o| o as usize % classes == class));
                &class_offsets[..]
            };
            for k in 0..moves {
                let at = class * moves + k;
                let Place::Here(start) = self.images.placed[at] else {
                    unreachable!("one process holds every run")
                };
                f(k, start, self.images.offsets[at], offsets);
            }
        }
    }
}

/// Forward step over a range of groups (see [`applies`]): each board marked `d` marks its
/// unseen neighbours `d + 1`.
pub fn expand_frontier<S: StateRanking>(
    step: &Step<'_, S>,
    runs: &CellRuns,
    groups: std::ops::Range<usize>,
) -> LevelCount {
    let table = step.table;
    let classes = runs.classes as usize;
    step.in_group_tasks(groups, |task, level| {
        let mut class_offsets = Vec::new();
        let of_group = |group| table.marked(group, step.cur);
        Gathered::walk(step, runs, Direction::Forward, task, of_group, |g| {
            g.sweeps(table, classes, &mut class_offsets, |_, start, (t, then), offsets| {
                with_image_offsets!(t, then, |m| {
                    mark_images(table, step.next, start, m, offsets, level)
                })
            });
        });
    })
}

/// Marks `mark` on the unseen images `start + images[o]` of `offsets`.
#[inline(always)]
fn mark_images(
    table: &DistanceTable,
    mark: u8,
    start: u64,
    images: impl ImageOffsets,
    offsets: &[u32],
    level: &mut Level,
) {
    let image = |o: u32| start + images.at(o);
    for &o in offsets.iter().take(AHEAD) {
        table.prefetch(image(o));
    }
    for (n, &o) in offsets.iter().enumerate() {
        if let Some(&ahead) = offsets.get(n + AHEAD) {
            table.prefetch(image(ahead));
        }
        let j = image(o);
        if table.mark_if_unseen(j, mark) {
            level.note(j);
        }
    }
}

/// Backward step over a range of groups (see [`applies`]): each unseen board with a
/// neighbour marked `d` joins level `d + 1`. A run's unseen boards try one move after
/// another, those found dropping out.
pub fn expand_unseen<S: StateRanking>(
    step: &Step<'_, S>,
    runs: &CellRuns,
    groups: std::ops::Range<usize>,
) -> LevelCount {
    let table = step.table;
    let (len, classes) = (runs.len, runs.classes as usize);
    step.in_group_tasks(groups, |task, level| {
        let (mut class_offsets, mut alive, mut left) = (Vec::new(), Vec::new(), Vec::new());
        // The run's boards found, as cells of the groups from the run's first one.
        let mut found: Vec<u64> = Vec::new();
        let of_group = |group| table.unseen(group);
        Gathered::walk(step, runs, Direction::Backward, task, of_group, |g| {
            let first = g.run * len;
            let first_group = first / CELLS_PER_WORD;
            found.clear();
            found.resize(((first + len).div_ceil(CELLS_PER_WORD) - first_group) as usize, 0);
            g.sweeps(table, classes, &mut class_offsets, |k, start, (t, then), offsets| {
                // The class's first move starts from all its boards.
                if k == 0 {
                    alive.clear();
                    alive.extend_from_slice(offsets);
                }
                if alive.is_empty() {
                    return;
                }
                left.clear();
                let mut hit = |o: u32| {
                    let j = first + o as u64;
                    found[(j / CELLS_PER_WORD - first_group) as usize] |=
                        1 << (2 * (j % CELLS_PER_WORD));
                };
                with_image_offsets!(t, then, |m| {
                    probe(table, step.cur, start, m, &alive, &mut left, &mut hit)
                });
                std::mem::swap(&mut alive, &mut left);
            });
            for (n, &cells) in found.iter().enumerate() {
                if cells != 0 {
                    let set = RankSet::of_cells(first_group as usize + n, cells);
                    // Only this task gathered these groups' boards: it alone writes them.
                    table.set_owned(set, step.next);
                    level.note_set(set);
                }
            }
        });
    })
}

/// Sends each of `alive` whose image `start + images[o]` is marked `mark` to `hit`, the
/// others to `left`.
#[inline(always)]
fn probe(
    table: &DistanceTable,
    mark: u8,
    start: u64,
    images: impl ImageOffsets,
    alive: &[u32],
    left: &mut Vec<u32>,
    hit: &mut impl FnMut(u32),
) {
    for &o in alive {
        if table.get(start + images.at(o)) == mark {
            hit(o);
        } else {
            left.push(o);
        }
    }
}
