//! Every run's image runs, worked out once for a whole search. A step by runs
//! ([`super::run_wise`]) walks into each run it finds boards in and works out where the run
//! goes under each move: a board unranked, moved and ranked per offset class and move, about
//! a microsecond a run whatever its length. A search visits most runs at most levels: where
//! runs are short (puzzlerchallenger's 2,919 runs of 252 ranks) that was an eighth of its
//! CPU time; the turnstile's 28,614 runs of 55,440 paid it at most of its 17 levels too.

use super::{Direction, Part, RunImages};
use crate::rank::{CellRuns, StateRanking};
use rayon::prelude::*;

/// The image run and offset map of every run under each move of one direction (see
/// [`RunImages::go_to`]).
pub struct RunGraph {
    direction: Direction,
    /// Offset classes times moves: the entries of one run.
    per_run: usize,
    /// `image_runs[run * per_run + class * moves + k]`: where move `k` takes the run's
    /// boards of that offset class.
    image_runs: Vec<u64>,
    /// The matching map of offsets ([`CellRuns::tables`]).
    maps: Vec<u32>,
}

/// Bytes a graph takes per entry.
const ENTRY_BYTES: u64 = 12;

impl RunGraph {
    /// The graph of `runs` in `direction` over `space`, if it takes at most `max_bytes`.
    pub fn of<S: StateRanking>(
        space: &S,
        part: &Part,
        runs: &CellRuns,
        direction: Direction,
        max_bytes: u64,
    ) -> Option<RunGraph> {
        let n_runs = space.n_states().div_ceil(runs.len);
        let per_run = RunImages::<S>::new(runs, direction).n_moves() * runs.classes as usize;
        let entries = n_runs.checked_mul(per_run as u64)?;
        if per_run == 0 || entries.saturating_mul(ENTRY_BYTES) > max_bytes {
            return None;
        }
        let mut image_runs = vec![0u64; entries as usize];
        let mut maps = vec![0u32; entries as usize];
        (image_runs.par_chunks_mut(per_run).zip(maps.par_chunks_mut(per_run)))
            .enumerate()
            .for_each_init(
                || RunImages::new(runs, direction),
                |images, (run, (image_runs, maps))| {
                    images.go_to(space, part, run as u64 * runs.len);
                    image_runs.copy_from_slice(&images.images);
                    maps.copy_from_slice(&images.maps);
                },
            );
        Some(RunGraph { direction, per_run, image_runs, maps })
    }

    /// The direction whose moves the graph follows.
    pub fn direction(&self) -> Direction {
        self.direction
    }

    /// Run `run`'s image runs and maps, by offset class and move.
    #[inline]
    pub(super) fn row(&self, run: u64) -> (&[u64], &[u32]) {
        let at = run as usize * self.per_run..(run as usize + 1) * self.per_run;
        (&self.image_runs[at.clone()], &self.maps[at])
    }
}
