//! Phases (`twirl phase`): God's number from every board of a start pattern to the nearest
//! board of a goal pattern, as cubers ask it of twsearch (cubing/twips #112): from a solved
//! cross to a solved cross and first pair, from a 2x2x2 block to a 2x2x3 block.
//!
//! A *pattern* names pieces of a definition (`EDGE:1-4`, by their solved positions) that
//! stand solved, in place and orientation; every other piece may be anywhere. The distance
//! from a board to the goal pattern depends only on where the pieces the two patterns name
//! stand, so the search runs on the *tracked* puzzle: the definition with every other piece
//! ignored ([`Subset`] `--ignore`: identical and its orientation unseen). There:
//! - the goals are the tracked boards whose goal pieces are home: the solved board alone
//!   when the goal pattern names every tracked piece (the start pieces are among the goal
//!   pieces, as in every phase of a method), else all such boards, found by a first search;
//! - a search from the goals gives every tracked board its distance to the nearest goal
//!   (the moves that bring the goal pieces home), and the start boards are the tracked
//!   boards whose start pieces are home. They are counted at the distance where the search
//!   first marks them (a journal hook between levels), and the search stops once every one
//!   is counted.
//!
//! Each tracked board stands for the same number of group elements of the start set (the
//! elements keeping the start pieces home that put the tracked pieces there form a coset of
//! one subgroup), so the histogram over tracked boards is the distribution over the start
//! set, scaled.

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use rayon::prelude::*;

use crate::bfs::{self, Config, Journal, NoProgress, Outcome, Processes, Progress, Single};
use crate::error::escaped;
use crate::optimal::descent;
use crate::puzzle::defined::Defined;
use crate::puzzle::subset::{PieceGroup, Subset};
use crate::puzzle::{Board, Puzzle, PuzzleSpec};
use crate::rank::{StateSpace, SymmetryMode};
use crate::table::{DistanceTable, UNSEEN, table_bytes};
use crate::{Error, Result};

/// Worst start boards a phase lists by default.
pub const LISTED: usize = 10;

/// A phase of a definition: the tracked puzzle and which of its cells each pattern fixes.
pub struct Phase {
    /// The definition with every piece neither pattern names ignored.
    pub tracked: Puzzle,
    /// The pieces tracked, as `SET:POS,...` (for messages).
    pub tracked_pieces: String,
    /// Cells of `tracked` whose solved piece the start pattern keeps home.
    start_cells: Vec<usize>,
    /// Cells of `tracked` whose solved piece the goal pattern keeps home.
    goal_cells: Vec<usize>,
    /// Whether the goal pattern names every tracked piece (then the solved board is the one
    /// goal).
    goal_is_solved: bool,
    /// The solved board of `tracked`.
    solved: Board,
    /// `unseen[tile]`: the tile's orientation is not seen (a `?` of the file).
    unseen: Vec<bool>,
}

/// What a phase measured, over the tracked boards.
#[derive(Clone, Debug)]
pub struct PhaseOutcome {
    /// Tracked boards whose goal pieces are home (distance 0).
    pub goals: u64,
    /// Start boards at each distance from the goals.
    pub histogram: Vec<u64>,
    /// Up to the number asked of the start boards at the largest distance, smallest ranks
    /// first, each with a shortest move sequence (indices into `tracked.moves`) to a goal.
    pub worst: Vec<(Board, Vec<usize>)>,
    /// Entries of the tracked puzzle's table (its boards, reachable or not).
    pub entries: u64,
    /// Seconds of the whole computation.
    pub seconds: f64,
}

impl PhaseOutcome {
    /// Start boards in all.
    pub fn starts(&self) -> u64 {
        self.histogram.iter().sum()
    }

    /// The largest distance of a start board to the goals.
    pub fn longest(&self) -> u32 {
        self.histogram.len().saturating_sub(1) as u32
    }
}

impl Phase {
    /// The phase from boards with the `start` pieces home to boards with the `goal` pieces
    /// home (`None`: every piece, the solved board) of the definition puzzle `puzzle`.
    pub fn new(
        puzzle: &Puzzle,
        start: &[PieceGroup],
        goal: Option<&[PieceGroup]>,
    ) -> Result<Phase> {
        let bad = |reason: String| Error::InvalidPuzzle { spec: puzzle.spec.to_string(), reason };
        let Some(defined) = puzzle.defined() else {
            return Err(bad("phases are asked of def:FILE puzzles, whose sets name the pieces \
                 (`twirl export-def` writes a built-in puzzle as one)"
                .into()));
        };
        let def = &defined.definition;
        // Positions per set, 0-based: each pattern's, and their union.
        let resolve = |groups: &[PieceGroup]| -> Result<Vec<Vec<bool>>> {
            let mut marked: Vec<Vec<bool>> = def.sets.iter().map(|s| vec![false; s.size]).collect();
            for g in groups {
                let in_search = def.sets.iter().position(|set| set.name == g.set);
                let left_out = defined.left_out_sets().iter().find(|(set, _)| set.name == g.set);
                let size = match (in_search, left_out) {
                    (Some(s), _) => def.sets[s].size,
                    (None, Some((set, _))) => set.size,
                    (None, None) => {
                        let names: Vec<&str> = (def.sets.iter())
                            .chain(defined.left_out_sets().iter().map(|(s, _)| s))
                            .map(|s| s.name.as_str())
                            .collect();
                        return Err(bad(format!(
                            "expected a set of the puzzle ({}), found `{}`",
                            names.join(", "),
                            escaped(&g.set)
                        )));
                    }
                };
                if let Some(p) = g.positions.iter().find(|&&p| p > size) {
                    return Err(bad(format!(
                        "set {} has positions 1 to {size}, found {p}",
                        escaped(&g.set)
                    )));
                }
                // A set left out as the file was read (pieces alike, no orientation seen)
                // is home on every board: naming it asks nothing.
                let Some(s) = in_search else { continue };
                if g.positions.is_empty() {
                    marked[s].iter_mut().for_each(|m| *m = true);
                }
                for &p in &g.positions {
                    marked[s][p - 1] = true;
                }
            }
            Ok(marked)
        };
        let start_at = resolve(start)?;
        let goal_at = match goal {
            Some(g) => resolve(g)?,
            None => def.sets.iter().map(|s| vec![true; s.size]).collect(),
        };
        let mut ignore = Vec::new();
        let mut tracked_names = Vec::new();
        for (s, set) in def.sets.iter().enumerate() {
            let labels = &def.solved[s].pieces;
            let tracked = |p: usize| start_at[s][p] || goal_at[s][p];
            // A pattern names pieces by position; identical pieces are one kind, which a
            // pattern takes whole or not at all (ignoring one would ignore them all).
            for p in (0..set.size).filter(|&p| tracked(p)) {
                if let Some(q) = (0..set.size).find(|&q| !tracked(q) && labels[q] == labels[p]) {
                    return Err(bad(format!(
                        "expected a pattern that names all identical pieces of a kind or none, \
                         found {}:{} named and {}:{}, identical to it in the file, not",
                        escaped(&set.name),
                        p + 1,
                        escaped(&set.name),
                        q + 1
                    )));
                }
            }
            let kept: Vec<usize> = (0..set.size).filter(|&p| tracked(p)).map(|p| p + 1).collect();
            let dropped: Vec<usize> =
                (0..set.size).filter(|&p| !tracked(p)).map(|p| p + 1).collect();
            if !kept.is_empty() {
                tracked_names.push(format!("{}:{}", set.name, ranges(&kept)));
            }
            if !dropped.is_empty() {
                ignore.push(PieceGroup { set: set.name.clone(), positions: dropped });
            }
        }
        if tracked_names.is_empty() {
            let named_left_out = (start.iter().chain(goal.into_iter().flatten()))
                .any(|g| defined.left_out_sets().iter().any(|(set, _)| set.name == g.set));
            return Err(bad(match named_left_out {
                true => "expected a goal pattern that names a piece the search sees, found only \
                         sets whose pieces are all alike with no orientation seen (home on \
                         every board)"
                    .into(),
                false => "expected a goal pattern that names at least one piece, found none".into(),
            }));
        }
        let subset = Subset { ignore, ..Subset::default() };
        let projected = Defined::new(&defined.path, subset.apply(def).map_err(bad)?)?;
        // Cells of the tracked puzzle: its sets in order (sets nothing moves are dropped, and
        // their pieces are always home).
        let offsets: Vec<(String, usize)> = projected
            .definition
            .sets
            .iter()
            .scan(0, |at, s| {
                let first = *at;
                *at += s.size;
                Some((s.name.clone(), first))
            })
            .collect();
        let cells_of = |marked: &[Vec<bool>]| -> Vec<usize> {
            let mut cells = Vec::new();
            for (s, set) in def.sets.iter().enumerate() {
                if let Some((_, first)) = offsets.iter().find(|(n, _)| *n == set.name) {
                    cells.extend((0..set.size).filter(|&p| marked[s][p]).map(|p| first + p));
                }
            }
            cells
        };
        let (start_cells, goal_cells) = (cells_of(&start_at), cells_of(&goal_at));
        // The tracked pieces are the start's and the goal's.
        let goal_is_solved = start_cells.iter().all(|c| goal_cells.contains(c));
        let unseen = projected.unseen_orientations().to_vec();
        let tracked = Puzzle::new(&PuzzleSpec::Def(Arc::new(projected)), puzzle.metric)?;
        if let Some(reason) = tracked.defined().and_then(|d| d.search_refusal()) {
            return Err(bad(format!("the tracked puzzle cannot be searched: {reason}")));
        }
        let solved = tracked.solved();
        Ok(Phase {
            tracked,
            tracked_pieces: tracked_names.join(" "),
            start_cells,
            goal_cells,
            goal_is_solved,
            solved,
            unseen,
        })
    }

    /// Whether the pieces solved on `cells` are home on `board`.
    fn home(&self, board: &Board, cells: &[usize]) -> bool {
        cells.iter().all(|&c| {
            let tile = board.tiles[c];
            tile == self.solved.tiles[c]
                && (self.unseen[tile as usize] || board.orient[c] == self.solved.orient[c])
        })
    }

    /// Whether a tracked board has the start pieces home.
    pub fn is_start(&self, board: &Board) -> bool {
        self.home(board, &self.start_cells)
    }

    /// Whether a tracked board has the goal pieces home.
    pub fn is_goal(&self, board: &Board) -> bool {
        self.home(board, &self.goal_cells)
    }

    /// The ranking the phase searches in: one entry per tracked board.
    pub fn space(&self) -> Result<StateSpace> {
        StateSpace::for_search(&self.tracked, SymmetryMode::Off, false)
    }

    /// Bytes the phase holds in memory at most: the table and the start set (a bit per
    /// entry), or before them a table that finds the goals.
    pub fn memory_bytes(space: &StateSpace) -> u64 {
        table_bytes(space.n_states()) + space.n_states().div_ceil(8)
    }

    /// Measures the phase with `threads` workers, listing up to `listed` worst start boards
    /// with a solution each; `stop` (Ctrl-C) ends it early with [`Error::Interrupted`].
    /// `progress` hears of the search from the goals (its boards are tracked boards).
    pub fn run(
        &self,
        space: &StateSpace,
        threads: usize,
        listed: usize,
        stop: Option<Arc<AtomicBool>>,
        progress: &dyn Progress,
    ) -> Result<PhaseOutcome> {
        let t0 = Instant::now();
        let n = space.n_states();
        let halt = Arc::new(AtomicBool::new(false));
        let config = Config { stop: Some(halt.clone()), ..Config::new(threads) };
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| Error::ThreadPool(e.to_string()))?;
        let interrupted = || stop.as_ref().is_some_and(|s| s.load(Ordering::Relaxed));
        let goals = if self.goal_is_solved {
            vec![space.rank_board(&self.solved)?]
        } else {
            pool.install(|| self.find_goals(space, &config, stop.as_deref()))?
        };
        if interrupted() {
            return Err(Error::Interrupted);
        }
        let starts = pool.install(|| StartSet::of(self, space));
        let table = DistanceTable::in_memory(n)?;
        let counter = Counter {
            starts: Mutex::new(starts.bits),
            left: AtomicU64::new(starts.count),
            histogram: Mutex::new(Vec::new()),
            worst: Mutex::new(Vec::new()),
            listed,
            halt: halt.clone(),
            stop: stop.clone(),
            pool: &pool,
        };
        bfs::run_in(space, &goals, &table, &config, progress, &counter, None, &Single)?;
        if interrupted() {
            return Err(Error::Interrupted);
        }
        let histogram = trimmed(counter.histogram.into_inner().expect("not poisoned"));
        let longest = histogram.len().saturating_sub(1) as u32;
        let worst_ranks = counter.worst.into_inner().expect("not poisoned");
        let mut worst = Vec::new();
        for r in worst_ranks {
            let board = space.board(r);
            let is_goal = |b: &Board, _: u64| self.is_goal(b);
            let moves = descent::solve_to(
                &self.tracked,
                space,
                &table,
                &board,
                longest,
                &is_goal,
                "the goal pattern",
            )?;
            worst.push((board, moves));
        }
        Ok(PhaseOutcome {
            goals: goals.len() as u64,
            histogram,
            worst,
            entries: n,
            seconds: t0.elapsed().as_secs_f64(),
        })
    }

    /// The ranks of every reachable tracked board whose goal pieces are home: every rank
    /// is read when every rank is reachable, else the marks of a search from solved.
    fn find_goals(
        &self,
        space: &StateSpace,
        config: &Config,
        stop: Option<&AtomicBool>,
    ) -> Result<Vec<u64>> {
        let n = space.n_states();
        let reached = if space.n_reachable() == n {
            None
        } else {
            let table = DistanceTable::in_memory(n)?;
            let halt = Arc::new(AtomicBool::new(false));
            let watch = Watch { halt: halt.clone(), stop };
            let config = Config { stop: Some(halt), ..config.clone() };
            let solved = space.rank_board(&self.solved)?;
            bfs::run_in(space, &[solved], &table, &config, &NoProgress, &watch, None, &Single)?;
            Some(table)
        };
        let goals: Vec<u64> = (0..n)
            .into_par_iter()
            .filter(|&r| reached.as_ref().is_none_or(|t| t.get(r) != UNSEEN))
            .filter(|&r| self.is_goal(&space.board(r)))
            .collect();
        Ok(goals)
    }
}

/// Hands a Ctrl-C to a search that stops on its own flag (the journal is told of every
/// finished task).
struct Watch<'a> {
    halt: Arc<AtomicBool>,
    stop: Option<&'a AtomicBool>,
}

impl Journal for Watch<'_> {
    fn level_done(&self, _: &DistanceTable, _: &Outcome, _: &dyn Processes) -> Result<()> {
        Ok(())
    }

    fn tick(&self, _table: &DistanceTable) {
        if self.stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
            self.halt.store(true, Ordering::Relaxed);
        }
    }
}

/// The start boards of a phase: a bit per rank of the tracked puzzle.
struct StartSet {
    bits: Vec<u64>,
    count: u64,
}

impl StartSet {
    /// Every rank whose board has the start pieces home (unreachable ranks too: the search
    /// never marks them, so they are never counted).
    fn of(phase: &Phase, space: &StateSpace) -> StartSet {
        let n = space.n_states();
        let mut bits = vec![0u64; n.div_ceil(64) as usize];
        bits.par_chunks_mut(1024).enumerate().for_each(|(chunk, words)| {
            for (i, word) in words.iter_mut().enumerate() {
                let first = (chunk as u64 * 1024 + i as u64) * 64;
                for bit in 0..64.min(n - first) {
                    if phase.is_start(&space.board(first + bit)) {
                        *word |= 1 << bit;
                    }
                }
            }
        });
        let count = bits.iter().map(|w| u64::from(w.count_ones())).sum();
        StartSet { bits, count }
    }
}

/// Counts the start boards at each finished distance (the journal hook of the search), and
/// stops the search once all are counted.
struct Counter<'a> {
    /// A bit per start rank not counted yet.
    starts: Mutex<Vec<u64>>,
    /// How many of them.
    left: AtomicU64,
    histogram: Mutex<Vec<u64>>,
    /// Smallest ranks of the start boards at the last distance that had any.
    worst: Mutex<Vec<u64>>,
    listed: usize,
    /// The search's own stop flag: set when every start is counted, or on Ctrl-C.
    halt: Arc<AtomicBool>,
    stop: Option<Arc<AtomicBool>>,
    pool: &'a rayon::ThreadPool,
}

impl Journal for Counter<'_> {
    fn level_done(
        &self,
        table: &DistanceTable,
        outcome: &Outcome,
        _processes: &dyn Processes,
    ) -> Result<()> {
        let listed = self.listed;
        let mut guard = self.starts.lock().expect("not poisoned");
        let starts: &mut [u64] = &mut guard;
        // Marked now and not before: this distance (every earlier one was taken out).
        let (count, mut smallest) = self.pool.install(|| {
            starts
                .par_chunks_mut(1024)
                .enumerate()
                .map(|(chunk, words)| {
                    let (mut count, mut ranks) = (0u64, Vec::new());
                    for (i, word) in words.iter_mut().enumerate() {
                        let first = (chunk as u64 * 1024 + i as u64) * 64;
                        let mut w = *word;
                        while w != 0 {
                            let bit = w.trailing_zeros() as u64;
                            w &= w - 1;
                            if table.get(first + bit) != UNSEEN {
                                *word &= !(1 << bit);
                                count += 1;
                                if ranks.len() < listed {
                                    ranks.push(first + bit);
                                }
                            }
                        }
                    }
                    (count, ranks)
                })
                .reduce(
                    || (0, Vec::new()),
                    |(c1, mut r1), (c2, r2)| {
                        r1.extend(r2);
                        r1.truncate(listed);
                        (c1 + c2, r1)
                    },
                )
        });
        smallest.sort_unstable();
        let d = outcome.histogram.len() - 1;
        let mut histogram = self.histogram.lock().expect("not poisoned");
        histogram.resize(d + 1, 0);
        histogram[d] = count;
        if count > 0 {
            *self.worst.lock().expect("not poisoned") = smallest;
        }
        let left = self.left.fetch_sub(count, Ordering::Relaxed) - count;
        if left == 0 {
            self.halt.store(true, Ordering::Relaxed);
        }
        Ok(())
    }

    fn tick(&self, _table: &DistanceTable) {
        if self.stop.as_ref().is_some_and(|s| s.load(Ordering::Relaxed)) {
            self.halt.store(true, Ordering::Relaxed);
        }
    }
}

/// The histogram without the empty distances after its last start board.
fn trimmed(mut histogram: Vec<u64>) -> Vec<u64> {
    while histogram.last() == Some(&0) {
        histogram.pop();
    }
    histogram
}

/// `1,2,3,4,7` as `1-4,7`.
fn ranges(positions: &[usize]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < positions.len() {
        let mut j = i;
        while j + 1 < positions.len() && positions[j + 1] == positions[j] + 1 {
            j += 1;
        }
        parts.push(match j - i {
            0 => positions[i].to_string(),
            _ => format!("{}-{}", positions[i], positions[j]),
        });
        i = j + 1;
    }
    parts.join(",")
}

#[cfg(test)]
#[path = "phase_tests.rs"]
mod tests;
