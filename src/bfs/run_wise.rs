//! Steps that move a run's boards move by move. Where every move maps runs onto runs (the
//! last digit's runs of a coordinate search, NRP (4,4,3)'s cell runs), a task first gathers
//! the boards of one run that the step expands, then sweeps each move's image run and offset
//! table once for all of them. The board-by-board steps interleave every move's image run
//! and table for each board; backward, each board also stops at a different move, a branch
//! no predictor learns. Three steps:
//! - forward, pushing each frontier board's images into their runs ([`expand_frontier`]);
//! - forward over a dense frontier, filling each run with unseen boards from its neighbour
//!   runs through inverse tables, its words its own ([`expand_frontier_by_image_runs`]);
//! - backward, each unseen board probing its images until one is at the current distance
//!   ([`expand_unseen`]).
//!
//! The turnstile (6,286,896,000 boards) took 19.6 s board by board, 14.2-15.7 s by runs, and
//! 12.3 s with the dense forward step and branch-free probes (docs/performance.md).

use super::{Level, LevelCount, Place, RunImages, Step, in_tasks};
use crate::bfs::Direction;
use crate::rank::StateRanking;
use crate::rank::runs::{CellRuns, ImageOffsets, OffsetTable};
use crate::table::{CELLS_PER_WORD, DistanceTable, RankSet, prefetch_range_l2};
use crate::with_image_offsets;
use rayon::prelude::*;

/// Table indices ahead of the one marked whose words are prefetched: image runs are read
/// in offset-table order, far apart for sparse levels.
const AHEAD: usize = 32;

/// Whether `runs` can be searched move by move here: every move keeps the runs, and one
/// process holds the whole table (the image runs' places are then their ranks).
pub fn applies(runs: &CellRuns, parts: usize) -> bool {
    runs.rest.is_empty() && parts == 1
}

/// The tables that undo each offset table a backward step reads, for
/// [`expand_frontier_by_image_runs`].
pub struct InverseTables<'a> {
    /// Each table of the runs (by where it lives in them) with its inverse.
    pairs: Vec<(&'a OffsetTable, OffsetTable)>,
}

impl<'a> InverseTables<'a> {
    /// The inverses of `runs`' tables, where they can be searched image run by image run
    /// (one offset class, every table a permutation of its offsets) and the inverses take
    /// at most `max_bytes`.
    pub fn of(runs: &'a CellRuns, max_bytes: u64) -> Option<InverseTables<'a>> {
        if runs.classes != 1 {
            return None;
        }
        let tables: Vec<&OffsetTable> = (runs.solve.iter().flat_map(|rm| &rm.offsets))
            .chain(&runs.then)
            .chain(&runs.shared)
            .collect();
        if tables.iter().map(|t| t.n_bytes()).sum::<u64>() > max_bytes {
            return None;
        }
        // An inverse that is a table of the runs already (a move's is its inverse move's, a
        // symmetry's map is its inverse's) shares that table's memory.
        let known: Vec<&OffsetTable> =
            tables.iter().copied().chain(runs.scramble.iter().flat_map(|rm| &rm.offsets)).collect();
        let shared = |inverse: OffsetTable| match known.iter().find(|t| t.same_as(&inverse)) {
            Some(&t) => t.clone(),
            None => inverse,
        };
        let inverses: Option<Vec<OffsetTable>> =
            tables.par_iter().map(|t| t.inverse().map(shared)).collect();
        Some(InverseTables { pairs: tables.into_iter().zip(inverses?).collect() })
    }

    fn inverse(&self, table: &OffsetTable) -> &OffsetTable {
        let pair = self.pairs.iter().find(|(t, _)| std::ptr::eq(*t, table));
        &pair.expect("every table of the runs has its inverse").1
    }

    /// The tables that undo `table` then `then`.
    fn undo(
        &self,
        (table, then): (&OffsetTable, Option<&OffsetTable>),
    ) -> (&OffsetTable, Option<&OffsetTable>) {
        match then {
            None => (self.inverse(table), None),
            Some(then) => (self.inverse(then), Some(self.inverse(table))),
        }
    }
}

/// The boards of one run that a task gathered (their offsets in the run), with the run's
/// image runs (the run itself: the images' [`RunImages::start`]).
struct Gathered<'a, S: StateRanking> {
    images: RunImages<'a, S>,
    offsets: Vec<u32>,
}

impl<'a, S: StateRanking> Gathered<'a, S> {
    /// Walks the ranks of `groups` that `of_group` yields, run by run, calling `flush` with
    /// each run's gathered boards.
    fn walk(
        step: &Step<'a, S>,
        runs: &'a CellRuns,
        direction: Direction,
        groups: std::ops::Range<usize>,
        of_group: impl Fn(usize) -> RankSet,
        mut flush: impl FnMut(&Gathered<'a, S>),
    ) {
        let images = RunImages::new(runs, direction).with_graph(step.run_graph);
        let mut g = Gathered { images, offsets: Vec::new() };
        for group in groups {
            for i in of_group(group) {
                // Ranks increase: the run changes (and is found by a division) rarely.
                if !g.images.holds(i) {
                    if !g.offsets.is_empty() {
                        flush(&g);
                        g.offsets.clear();
                    }
                    g.images.go_to(step.space, step.part, i);
                }
                g.offsets.push((i - g.images.start) as u32);
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

/// Runs per task of [`expand_frontier_by_image_runs`]: a task fills whole runs.
const RUNS_PER_TASK: u64 = 4;

/// Forward step over a range of groups for a dense frontier (see [`applies`] and
/// [`InverseTables::of`]): each task takes whole runs holding unseen boards and reads every
/// neighbour run's boards marked `d` back into the run through the inverse tables; the
/// unseen boards so reached join level `d + 1`. The run's words are the task's own (but for
/// those it shares with the runs either side), so it writes them without the atomic
/// read-modify-write that [`expand_frontier`] pays for each board it marks, and without a
/// branch on whether a board was unseen.
pub fn expand_frontier_by_image_runs<S: StateRanking>(
    step: &Step<'_, S>,
    runs: &CellRuns,
    inverses: &InverseTables<'_>,
    groups: std::ops::Range<usize>,
) -> LevelCount {
    let (table, len) = (step.table, runs.len);
    let end = (groups.end as u64 * CELLS_PER_WORD).min(table.n_states());
    let span = groups.start as u64 * CELLS_PER_WORD..end;
    let run_range = span.start / len..span.end.div_ceil(len);
    let mut count = in_tasks(
        run_range,
        RUNS_PER_TASK,
        step.progress,
        step.budget,
        step.serial,
        |task, level| {
            let mut images = RunImages::new(runs, Direction::Backward).with_graph(step.run_graph);
            let mut reached = FoundInRun::default();
            for run in task {
                let first = run * len;
                let first_group = first / CELLS_PER_WORD;
                let own = first_group.max(groups.start as u64) as usize
                    ..(first + len).div_ceil(CELLS_PER_WORD).min(groups.end as u64) as usize;
                if own.clone().all(|g| table.unseen(g).is_empty()) {
                    continue;
                }
                images.go_to(step.space, step.part, first);
                reached.start(first, len);
                for k in 0..images.n_moves() {
                    let Place::Here(start) = images.placed[k] else {
                        unreachable!("one process holds every run")
                    };
                    let (t, then) = inverses.undo(images.offsets[k]);
                    with_image_offsets!(t, then, |m| {
                        mark_reached(table, step.cur, start..start + len, m, &mut reached)
                    });
                }
                let edges = [own.start, own.end - 1];
                for group in own {
                    let new = table.unseen(group).cells() & reached.cells_of(group);
                    let new = RankSet::of_cells(group, new);
                    // The run's first and last words may hold the neighbouring runs' boards,
                    // which another task fills.
                    let set = if edges.contains(&group) {
                        table.mark_unseen(new, step.next)
                    } else {
                        table.set_owned(new, step.next);
                        new
                    };
                    level.note_set(set);
                }
            }
        },
    );
    count.reached =
        ((count.reached * len) / CELLS_PER_WORD).clamp(groups.start as u64, groups.end as u64);
    count
}

/// Notes in `reached` the offsets `undo[o]` of the boards marked `mark` at offsets `o` of
/// `run`.
#[inline(always)]
fn mark_reached(
    table: &DistanceTable,
    mark: u8,
    run: std::ops::Range<u64>,
    undo: impl ImageOffsets,
    reached: &mut FoundInRun,
) {
    let groups = (run.start / CELLS_PER_WORD) as usize..run.end.div_ceil(CELLS_PER_WORD) as usize;
    for group in groups {
        for rank in table.marked(group, mark) {
            // Only the first and last groups hold ranks of other runs.
            if !run.contains(&rank) {
                continue;
            }
            reached.note(undo.at((rank - run.start) as u32) as u32);
        }
    }
}

/// Boards of one run that a task found (or reached), as cells of the groups from the run's
/// first.
#[derive(Default)]
struct FoundInRun {
    first: u64,
    cells: Vec<u64>,
}

impl FoundInRun {
    /// Starts on the run of `len` ranks from `first`, nothing found.
    fn start(&mut self, first: u64, len: u64) {
        let first_group = first / CELLS_PER_WORD;
        self.first = first;
        self.cells.clear();
        self.cells.resize(((first + len).div_ceil(CELLS_PER_WORD) - first_group) as usize, 0);
    }

    /// Notes the board at offset `o` found.
    #[inline(always)]
    fn note(&mut self, o: u32) {
        let j = self.first + o as u64;
        let first_group = self.first / CELLS_PER_WORD;
        self.cells[(j / CELLS_PER_WORD - first_group) as usize] |= 1 << (2 * (j % CELLS_PER_WORD));
    }

    /// The cells found in table group `group` (one of the run's).
    #[inline(always)]
    fn cells_of(&self, group: usize) -> u64 {
        self.cells[group - (self.first / CELLS_PER_WORD) as usize]
    }

    /// Marks the boards found `mark`, as the caller alone writes their groups.
    fn write(&self, table: &DistanceTable, mark: u8, level: &mut Level) {
        let first_group = (self.first / CELLS_PER_WORD) as usize;
        for (n, &cells) in self.cells.iter().enumerate() {
            if cells != 0 {
                let set = RankSet::of_cells(first_group + n, cells);
                table.set_owned(set, mark);
                level.note_set(set);
            }
        }
    }
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
        let mut class_offsets = Vec::new();
        // A run's offsets yet to be found, those left after a move, those it found: as
        // long as the most offsets a run of the task gathered.
        let [mut alive, mut left, mut hits] = [(); 3].map(|_| Vec::<u32>::new());
        let mut n_alive = 0;
        let mut found = FoundInRun::default();
        let of_group = |group| table.unseen(group);
        Gathered::walk(step, runs, Direction::Backward, task, of_group, |g| {
            found.start(g.images.start, len);
            g.sweeps(table, classes, &mut class_offsets, |k, start, (t, then), offsets| {
                // The class's first move starts from all its boards.
                if k == 0 {
                    if alive.len() < offsets.len() {
                        for buffer in [&mut alive, &mut left, &mut hits] {
                            buffer.resize(offsets.len(), 0);
                        }
                    }
                    alive[..offsets.len()].copy_from_slice(offsets);
                    n_alive = offsets.len();
                }
                if n_alive == 0 {
                    return;
                }
                let out = (&mut left[..], &mut hits[..]);
                let (n_left, n_hits) = with_image_offsets!(t, then, |m| {
                    probe(table, step.cur, start, m, &alive[..n_alive], out)
                });
                for &o in &hits[..n_hits] {
                    found.note(o);
                }
                std::mem::swap(&mut alive, &mut left);
                n_alive = n_left;
            });
            // Only this task gathered these groups' boards: it alone writes them.
            found.write(table, step.next, level);
        });
    })
}

/// Splits `alive` into the offsets whose image `start + images[o]` is marked `mark` (into
/// `hits`) and the others (into `left`): returns how many of each.
#[inline(always)]
fn probe(
    table: &DistanceTable,
    mark: u8,
    start: u64,
    images: impl ImageOffsets,
    alive: &[u32],
    (left, hits): (&mut [u32], &mut [u32]),
) -> (usize, usize) {
    // Without a branch on the outcome: about half the probes of a dense level hit, a branch
    // no predictor learns, and each miss would drop the loads in flight.
    let (mut n_left, mut n_hits) = (0, 0);
    for &o in alive {
        let is_hit = table.get(start + images.at(o)) == mark;
        left[n_left] = o;
        hits[n_hits] = o;
        n_left += !is_hit as usize;
        n_hits += is_hit as usize;
    }
    (n_left, n_hits)
}
