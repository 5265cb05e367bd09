//! Optimal solutions by iterative-deepening A* (IDA*) over the puzzle's moves, pruned by the
//! bounds of pattern tables ([`super::pattern`]).
//!
//! Each iteration searches depth-first every move sequence whose length plus the largest
//! bound of the board it reaches stays within a limit, raising the limit by one until a
//! sequence solves the board: the first solution found is a shortest one, since every bound
//! is a lower bound. Each lookup's exact bound is carried down the search and updated from
//! the two-bit mark of the neighbour ([`PatternTable::neighbour_distance`]).
//!
//! Sequences that cannot be shortest, or that only reorder another, are skipped
//! ([`MovePruning`]): a move followed by one that undoes it or that makes a single move with
//! it; runs of one move longer than a shorter way to its power; and of two commuting moves of
//! different families (powers of one move) only one order.
//!
//! Beside the tables, the tiles' own distances home bound a board ([`TileDistances`]); they
//! are checked where they bound the board at least as high as the tables do.
//!
//! Where every move changes a parity of the board ([`DistanceParity`]), only limits of the
//! board's parity are searched. Where a symmetry of the puzzle keeps the board, the first
//! moves it maps onto each other are searched once ([`Solver::root_moves`]).
//!
//! An iteration is split into subtrees a few moves deep, searched in parallel; the first
//! solution found stops the others. The split is the same in every session, so a journal
//! ([`SearchJournal`]) can record the finished subtrees of a search that takes hours.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use rayon::prelude::*;

use super::journal::SearchJournal;
use super::parity::DistanceParity;
use super::pattern::PatternTable;
use super::tile_distance::TileDistances;
use crate::puzzle::{Board, Move, Puzzle};
use crate::rank::Cells;
use crate::rank::layout::MAX_CELLS;
use crate::symmetry::{MoveIndex, Symmetries, Symmetry};
use crate::{Error, Result};

/// Most lookups carried per node.
const MAX_LOOKUPS: usize = 24;
/// Most moves whose first lookups are fetched ahead (larger move sets read them one by one).
const PREFETCHED: usize = 128;
/// Tasks an iteration is split into at least (more with many threads), to balance workers.
const SPLIT_TASKS: usize = 1024;
/// Set in a worker's node count once the search is stopped or solved elsewhere.
const ENDED: u64 = 1 << 63;
/// Longest solution searched for.
const MAX_DEPTH: u32 = 200;

/// A board in the search: tiles and orientations per cell.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Node {
    tiles: [u8; MAX_CELLS],
    orient: [u8; MAX_CELLS],
}

/// Which moves may follow which (see the module docs).
#[derive(Clone, Debug)]
pub struct MovePruning {
    /// `allowed[a * n + b]`: whether move `b` may follow a different move `a`.
    allowed: Vec<bool>,
    /// How many times in a row a move may be made.
    run_limit: Vec<u8>,
    /// `family[m]`: the first move of which `m` is a power.
    family: Vec<usize>,
    n: usize,
}

impl MovePruning {
    /// Works the rules out from the moves' actions.
    pub fn of(puzzle: &Puzzle) -> MovePruning {
        let k = puzzle.orient_mod.max(1);
        let moves = &puzzle.moves;
        let n = moves.len();
        let is_move = |m: &Move| moves.iter().any(|x| x.same_action(m));
        // Families: moves that are powers of one another.
        let mut family: Vec<usize> = (0..n).collect();
        for a in 0..n {
            if family[a] != a {
                continue;
            }
            let order = moves[a].order(k).min(64);
            let mut power = moves[a].clone();
            for _ in 1..order {
                for b in a + 1..n {
                    if moves[b].same_action(&power) {
                        family[b] = a;
                    }
                }
                power = power.then(&moves[a], k);
            }
        }
        let mut allowed = vec![true; n * n];
        for a in 0..n {
            for b in 0..n {
                if a == b {
                    continue;
                }
                let ab = moves[a].then(&moves[b], k);
                let ba = moves[b].then(&moves[a], k);
                let cancels = ab.is_identity() || is_move(&ab);
                let reordered = ab.same_action(&ba) && family[b] < family[a];
                allowed[a * n + b] = !(cancels || reordered);
            }
        }
        let run_limit = (0..n)
            .map(|a| {
                let mut power = moves[a].clone();
                let mut limit = 1u8;
                for r in 2..=moves[a].order(k).min(255) {
                    power = power.then(&moves[a], k);
                    let shorter = power.is_identity() || is_move(&power);
                    // The same power made by a run of an earlier move of the same length.
                    let duplicate = (0..a).any(|c| {
                        family[c] == family[a] && moves[c].power(r as i64, k).same_action(&power)
                    });
                    if shorter || duplicate {
                        break;
                    }
                    limit = r as u8;
                }
                limit
            })
            .collect();
        MovePruning { allowed, run_limit, family, n }
    }

    /// Whether `next` may follow `last` made `run` times in a row.
    #[inline]
    pub fn allows(&self, last: Option<(usize, u8)>, next: usize) -> bool {
        match last {
            None => true,
            Some((a, run)) if a == next => run < self.run_limit[a],
            Some((a, _)) => self.allowed[a * self.n + next],
        }
    }

    /// The order in which the rules keep sequences: among equivalent sequences of one
    /// length, the one smallest by this key, move after move, is never skipped.
    fn key(&self, m: usize) -> (usize, usize) {
        (self.family[m], m)
    }
}

/// What a solve found.
#[derive(Clone, Debug)]
pub struct Solution {
    /// The moves, indices into the puzzle's moves, applied in order.
    pub moves: Vec<usize>,
    /// Nodes visited over every iteration.
    pub nodes: u64,
    /// The largest bound at the start (lookups and tiles' distances; the first limit).
    pub first_bound: u32,
}

/// What a search bounded in depth found ([`Solver::solve_within`]).
#[derive(Clone, Debug)]
pub enum Outcome {
    /// A shortest solution.
    Solved(Solution),
    /// No solution of the lengths searched: the board needs at least `at_least` moves.
    Deeper {
        /// A lower bound on the board's distance: one more than the longest sequences
        /// searched in full, or the first limit if that is larger.
        at_least: u32,
        /// Nodes visited over every iteration.
        nodes: u64,
        /// The largest bound at the start.
        first_bound: u32,
    },
}

/// One lookup: a table read through one of its views.
#[derive(Clone, Copy)]
struct Lookup {
    table: usize,
    view: usize,
}

/// An optimal solver for one puzzle and a set of pattern tables.
pub struct Solver<'a> {
    puzzle: &'a Puzzle,
    tables: &'a [PatternTable],
    lookups: Vec<Lookup>,
    pruning: MovePruning,
    parity: Option<DistanceParity>,
    tile_distances: Option<TileDistances>,
    /// Check the tiles' distances on every board, not only where they bound the root best
    /// (tests: their bounds must never cut a shortest solution).
    always_tiles: bool,
    /// The puzzle's symmetries, each with the index of every move's image.
    symmetries: Vec<(Symmetry, Vec<usize>)>,
    perms: Vec<[u8; MAX_CELLS]>,
    twists: Vec<[u8; MAX_CELLS]>,
    solved: Node,
    n: usize,
    k: u8,
}

/// A board in the search with its pattern under each lookup and their exact bounds.
#[derive(Clone, Copy)]
struct State {
    node: Node,
    cells: [Cells; MAX_LOOKUPS],
    bounds: [u8; MAX_LOOKUPS],
    /// The tiles' own distances added up ([`TileDistances`]); kept up to date only while
    /// the search checks them ([`Search::tiles`]).
    tile_sum: u32,
}

/// One iteration's bounds and signals, shared by its workers.
struct Search<'r> {
    /// The longest sequence searched.
    limit: u32,
    /// The first moves searched ([`Solver::root_moves`]).
    root_moves: &'r [bool],
    /// Whether the tiles' distances are checked (where they bound the board at least as
    /// high as the tables: elsewhere they seldom cut a branch the tables keep).
    tiles: bool,
    /// Set by Ctrl-C or SIGTERM.
    stop: &'r AtomicBool,
    /// Set when a worker finds a solution (or fails to record its work).
    found: AtomicBool,
}

/// A node to search from, with the move history it carries.
#[derive(Clone)]
struct Task {
    state: State,
    last: Option<(usize, u8)>,
    path: Vec<usize>,
}

impl<'a> Solver<'a> {
    /// A solver using every view of every table (at most [`MAX_LOOKUPS`] lookups).
    pub fn new(puzzle: &'a Puzzle, tables: &'a [PatternTable]) -> Result<Solver<'a>> {
        let n = puzzle.n_positions();
        if n > MAX_CELLS {
            return Err(Error::Unsupported(format!(
                "{} has {n} cells; optimal search handles at most {MAX_CELLS}",
                puzzle.spec.named()
            )));
        }
        let lookups: Vec<Lookup> = tables
            .iter()
            .enumerate()
            .flat_map(|(t, p)| (0..p.views().len()).map(move |v| Lookup { table: t, view: v }))
            .take(MAX_LOOKUPS)
            .collect();
        let mut perms = Vec::new();
        let mut twists = Vec::new();
        for m in &puzzle.moves {
            let (mut p, mut t) = ([0u8; MAX_CELLS], [0u8; MAX_CELLS]);
            p[..n].copy_from_slice(&m.perm);
            t[..n].copy_from_slice(&m.twist);
            perms.push(p);
            twists.push(t);
        }
        let solved = node_of(&puzzle.solved());
        Ok(Solver {
            puzzle,
            tables,
            lookups,
            pruning: MovePruning::of(puzzle),
            parity: DistanceParity::of(puzzle),
            tile_distances: TileDistances::of(puzzle),
            always_tiles: false,
            symmetries: {
                let index = MoveIndex::of(puzzle);
                (Symmetries::of(puzzle).elements.into_iter())
                    .filter_map(|s| index.images(&s).map(|images| (s, images)))
                    .collect()
            },
            perms,
            twists,
            solved,
            n,
            k: puzzle.orient_mod.max(1),
        })
    }

    /// This solver checking the tiles' distances on every board.
    #[cfg(test)]
    pub(super) fn with_tiles_always(mut self) -> Self {
        self.always_tiles = true;
        self
    }

    /// Number of lookups per node.
    pub fn n_lookups(&self) -> usize {
        self.lookups.len()
    }

    /// The largest bound of a board: over every lookup and the tiles' distances.
    pub fn bound(&self, board: &Board) -> Result<u32> {
        Ok(self.max_bound(&self.root_state(board)?))
    }

    /// A shortest solution of `board` (which must be solvable), searched with `threads`
    /// workers. `progress(limit, nodes)` is called as each iteration starts; `stop` ends the
    /// search with [`Error::Interrupted`]. With a `journal`, iterations and tasks it lists as
    /// finished are skipped, and those finished now are added to it.
    pub fn solve(
        &self,
        board: &Board,
        threads: usize,
        stop: &AtomicBool,
        progress: &(dyn Fn(u32, u64) + Sync),
        journal: Option<&SearchJournal>,
    ) -> Result<Solution> {
        match self.solve_within(board, MAX_DEPTH, threads, stop, progress, journal)? {
            Outcome::Solved(solution) => Ok(solution),
            Outcome::Deeper { .. } => {
                Err(Error::Unsupported(format!("no solution within {MAX_DEPTH} moves")))
            }
        }
    }

    /// [`Solver::solve`], searching no sequence longer than `max_depth`: a board that needs
    /// more is reported as [`Outcome::Deeper`] once every limit up to `max_depth` has been
    /// searched in full (its distance is then at least `max_depth + 1`).
    pub fn solve_within(
        &self,
        board: &Board,
        max_depth: u32,
        threads: usize,
        stop: &AtomicBool,
        progress: &(dyn Fn(u32, u64) + Sync),
        journal: Option<&SearchJournal>,
    ) -> Result<Outcome> {
        let root = self.root_state(board)?;
        let first_bound = self.max_bound(&root);
        let parity = self.parity.map(|p| p.value(&self.puzzle.solved(), board));
        let root_moves = self.root_moves(board);
        let lookups_bound = root.bounds[..self.lookups.len()].iter().copied().max().unwrap_or(0);
        let tiles = self.tile_distances.as_ref().is_some_and(|t| {
            self.always_tiles || t.bound(root.tile_sum) >= u32::from(lookups_bound)
        });
        let (mut start, exhausted) = (first_bound, journal.and_then(|j| j.exhausted()));
        if let Some((limit, _)) = exhausted {
            start = start.max(limit + 1);
        }
        let nodes = AtomicU64::new(exhausted.map_or(0, |(_, n)| n));
        let split = journal.map_or(default_split(threads), |j| j.split());
        for limit in start..=max_depth.min(MAX_DEPTH) {
            // Every solution has the board's parity: other limits cannot succeed.
            if parity.is_some_and(|p| limit % 2 != p) {
                continue;
            }
            progress(limit, nodes.load(Ordering::Relaxed));
            let search = Search {
                limit,
                root_moves: &root_moves,
                tiles,
                stop,
                found: AtomicBool::new(false),
            };
            let root_task = Task { state: root, last: None, path: Vec::new() };
            let found = if threads <= 1 && journal.is_none() {
                let mut path = Vec::new();
                let mut count = 0u64;
                let hit = self.dfs(&root_task, &search, &mut path, &mut count);
                nodes.fetch_add(count & !ENDED, Ordering::Relaxed);
                hit.then_some(path)
            } else {
                self.split_iteration(root_task, &search, split, threads, &nodes, journal)?
            };
            // A solution found as a stop arrives is still returned.
            if let Some(moves) = found {
                let nodes = nodes.load(Ordering::Relaxed);
                return Ok(Outcome::Solved(Solution { moves, nodes, first_bound }));
            }
            if stop.load(Ordering::Relaxed) {
                return Err(Error::Interrupted);
            }
            if let Some(j) = journal {
                j.limit_done(limit, nodes.load(Ordering::Relaxed))?;
            }
        }
        // The first limit (the first bound, or past a journal's searched limits) may pass
        // the largest depth: then nothing was searched now.
        Ok(Outcome::Deeper {
            at_least: start.max(max_depth.min(MAX_DEPTH) + 1),
            nodes: nodes.load(Ordering::Relaxed),
            first_bound,
        })
    }

    /// The first moves worth searching from `board`: where a symmetry of the puzzle keeps the
    /// board, a move and its image start equally short solutions, and only the one smallest
    /// by [`MovePruning::key`] is kept. The smallest sequence (by that key) among the
    /// shortest solutions starts with such a move and passes every pruning rule, so a
    /// shortest solution is still found.
    fn root_moves(&self, board: &Board) -> Vec<bool> {
        let k = self.k;
        let mut keep = vec![true; self.puzzle.moves.len()];
        let reduce = |b: &Board| Board {
            tiles: b.tiles.clone(),
            orient: b.orient.iter().map(|&o| o % k).collect(),
        };
        let board = reduce(board);
        for (s, images) in &self.symmetries {
            if reduce(&s.conjugate_board(&board, k)) != board {
                continue;
            }
            for (m, kept) in keep.iter_mut().enumerate() {
                if self.pruning.key(images[m]) < self.pruning.key(m) {
                    *kept = false;
                }
            }
        }
        keep
    }

    /// One iteration split into `split` tasks a few moves deep (the same tasks in every session,
    /// so a journal can name them), searched by `threads` workers.
    fn split_iteration(
        &self,
        root: Task,
        search: &Search,
        split: usize,
        threads: usize,
        nodes: &AtomicU64,
        journal: Option<&SearchJournal>,
    ) -> Result<Option<Vec<usize>>> {
        let limit = search.limit;
        let mut tasks = vec![root];
        while tasks.len() < split {
            let mut next = Vec::new();
            let mut deeper = false;
            for t in &tasks {
                let g = t.path.len() as u32;
                if t.state.node == self.solved {
                    return Ok(Some(t.path.clone()));
                }
                if g >= limit {
                    continue;
                }
                deeper = true;
                self.children(t, search, |child| next.push(child));
            }
            nodes.fetch_add(tasks.len() as u64, Ordering::Relaxed);
            if !deeper || next.is_empty() {
                return Ok(None);
            }
            tasks = next;
        }
        let finished = match journal {
            Some(j) => {
                let mut digest = xxhash_rust::xxh3::Xxh3::new();
                for t in &tasks {
                    digest.update(&(t.path.len() as u32).to_le_bytes());
                    t.path.iter().for_each(|&m| digest.update(&(m as u32).to_le_bytes()));
                }
                j.tasks(limit, tasks.len() as u64, digest.digest())?;
                j.finished(limit)
            }
            None => Default::default(),
        };
        nodes.fetch_add(finished.values().sum(), Ordering::Relaxed);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| Error::Unsupported(format!("cannot start {threads} threads: {e}")))?;
        let failed = std::sync::Mutex::new(None);
        let hit = pool.install(|| {
            tasks.par_iter().enumerate().find_map_any(|(i, t)| {
                let over =
                    search.found.load(Ordering::Relaxed) || search.stop.load(Ordering::Relaxed);
                if over || finished.contains_key(&i) {
                    return None;
                }
                let mut path = t.path.clone();
                let mut count = 0u64;
                let hit = self.dfs(t, search, &mut path, &mut count);
                let cut = count & ENDED != 0;
                count &= !ENDED;
                nodes.fetch_add(count, Ordering::Relaxed);
                if hit {
                    search.found.store(true, Ordering::Relaxed);
                    return Some(path);
                }
                // A task cut short by a stop or another's solution is not finished.
                if let (Some(j), false) = (journal, cut)
                    && let Err(e) = j.task_done(limit, i, count)
                {
                    *failed.lock().unwrap_or_else(|e| e.into_inner()) = Some(e);
                    search.found.store(true, Ordering::Relaxed);
                }
                None
            })
        });
        // A solution stands even if recording the work around it failed.
        if hit.is_some() {
            return Ok(hit);
        }
        if let Some(e) = failed.into_inner().unwrap_or_else(|e| e.into_inner()) {
            return Err(e);
        }
        if let Some(j) = journal {
            j.sync()?;
        }
        Ok(hit)
    }

    /// Calls `emit` for every child of a task within the limit.
    fn children(&self, t: &Task, search: &Search, mut emit: impl FnMut(Task)) {
        let g = t.path.len() as u32 + 1;
        for m in 0..self.perms.len() {
            if !self.pruning.allows(t.last, m) || (t.path.is_empty() && !search.root_moves[m]) {
                continue;
            }
            if let Some(state) = self.child(&t.state, m, search.limit - g, None, search.tiles) {
                let last = Some(run_after(t.last, m));
                let mut path = t.path.clone();
                path.push(m);
                emit(Task { state, last, path });
            }
        }
    }

    /// Depth-first search below a task: `path` holds the moves made so far; another worker's
    /// solution or a stop ends it early (`count`, the nodes visited, then carries [`ENDED`]).
    fn dfs(&self, t: &Task, search: &Search, path: &mut Vec<usize>, count: &mut u64) -> bool {
        *count += 1;
        if t.state.node == self.solved {
            return true;
        }
        let g = path.len() as u32;
        if g >= search.limit {
            return false;
        }
        if (*count & 0xffff) == 0
            && (search.stop.load(Ordering::Relaxed) || search.found.load(Ordering::Relaxed))
        {
            // Every call on the way back up (and after) returns at once.
            *count |= ENDED;
        }
        if *count & ENDED != 0 {
            return false;
        }
        let budget = search.limit - g - 1;
        let at_root = path.is_empty();
        let wanted =
            |m: usize| self.pruning.allows(t.last, m) && (!at_root || search.root_moves[m]);
        // The first lookup of every child is ranked and its mark fetched from memory before
        // any is read, so the table reads overlap instead of waiting one after another.
        let n_moves = self.perms.len();
        let ahead = n_moves <= PREFETCHED && !self.lookups.is_empty();
        let mut first = [(Cells::default(), 0u64); PREFETCHED];
        if ahead {
            let (t0, v0) = self.lookup(0);
            for (m, slot) in first.iter_mut().enumerate().take(n_moves) {
                if wanted(m) {
                    let cells = t0.step(v0, &t.state.cells[0], m);
                    let rank = t0.rank_cells(&cells);
                    t0.prefetch(rank);
                    *slot = (cells, rank);
                }
            }
        }
        for m in 0..n_moves {
            if !wanted(m) {
                continue;
            }
            let known = first.get(m).copied().filter(|_| ahead);
            let Some(state) = self.child(&t.state, m, budget, known, search.tiles) else {
                continue;
            };
            let last = Some(run_after(t.last, m));
            path.push(m);
            let next = Task { state, last, path: Vec::new() };
            if self.dfs(&next, search, path, count) {
                return true;
            }
            path.pop();
        }
        false
    }

    /// The state move `m` makes of `parent`, or `None` as soon as one lookup's bound passes
    /// `budget`. The first lookup is read first (most children are cut by it; `first` is its
    /// pattern and rank when already computed); the others are all ranked and fetched before
    /// their marks are read.
    #[inline]
    fn child(
        &self,
        parent: &State,
        m: usize,
        budget: u32,
        first: Option<(Cells, u64)>,
        tiles: bool,
    ) -> Option<State> {
        let n = self.lookups.len();
        let mut tile_sum = parent.tile_sum;
        // The tiles' distances first: a few table reads in cache, no ranking.
        if let (Some(t), true) = (&self.tile_distances, tiles) {
            let (node, perm, twist) = (&parent.node, &self.perms[m], &self.twists[m]);
            tile_sum = t.after(parent.tile_sum, &node.tiles, &node.orient, m, perm, twist);
            if t.bound(tile_sum) > budget {
                return None;
            }
        }
        // Then the first lookup, before the parent is copied (most children stop here).
        let mut lead = None;
        if n > 0 {
            let (t, v) = self.lookup(0);
            let (cells, rank) = first.unwrap_or_else(|| {
                let cells = t.step(v, &parent.cells[0], m);
                (cells, t.rank_cells(&cells))
            });
            let d = PatternTable::neighbour_distance(u32::from(parent.bounds[0]), t.mark(rank));
            if d > budget {
                return None;
            }
            lead = Some((cells, d as u8));
        }
        let mut out = *parent;
        out.tile_sum = tile_sum;
        if let Some((cells, d)) = lead {
            out.cells[0] = cells;
            out.bounds[0] = d;
        }
        let mut ranks = [0u64; MAX_LOOKUPS];
        for (i, slot) in ranks.iter_mut().enumerate().take(n).skip(1) {
            let (t, v) = self.lookup(i);
            let cells = t.step(v, &parent.cells[i], m);
            let rank = t.rank_cells(&cells);
            out.cells[i] = cells;
            *slot = rank;
            t.prefetch(rank);
        }
        for (i, &rank) in ranks.iter().enumerate().take(n).skip(1) {
            let (t, _) = self.lookup(i);
            let d = PatternTable::neighbour_distance(u32::from(parent.bounds[i]), t.mark(rank));
            if d > budget {
                return None;
            }
            out.bounds[i] = d as u8;
        }
        out.node = self.apply(&parent.node, m);
        Some(out)
    }

    /// The table and view of lookup `i`.
    #[inline]
    fn lookup(&self, i: usize) -> (&PatternTable, &super::pattern::View) {
        let l = self.lookups[i];
        let t = &self.tables[l.table];
        (t, &t.views()[l.view])
    }

    /// The root's patterns and their exact bounds (descending each table).
    fn root_state(&self, board: &Board) -> Result<State> {
        let node = node_of(board);
        let tile_sum = self
            .tile_distances
            .as_ref()
            .map_or(0, |t| t.sum(&node.tiles[..self.n], &node.orient[..self.n]));
        let mut state = State {
            node,
            cells: [Cells::default(); MAX_LOOKUPS],
            bounds: [0; MAX_LOOKUPS],
            tile_sum,
        };
        for (i, l) in self.lookups.iter().enumerate() {
            let t = &self.tables[l.table];
            let cells = t.cells(&t.views()[l.view], &node.tiles[..self.n], &node.orient[..self.n]);
            state.cells[i] = cells;
            state.bounds[i] = u8::try_from(t.distance(t.rank_cells(&cells))?).unwrap_or(u8::MAX);
        }
        Ok(state)
    }

    /// The largest bound of a state: its lookups' and its tiles' distances.
    fn max_bound(&self, state: &State) -> u32 {
        let tiles = self.tile_distances.as_ref().map_or(0, |t| t.bound(state.tile_sum));
        let lookups = state.bounds[..self.lookups.len()].iter().map(|&b| u32::from(b));
        lookups.max().unwrap_or(0).max(tiles)
    }

    #[inline]
    fn apply(&self, node: &Node, m: usize) -> Node {
        let (perm, twist) = (&self.perms[m], &self.twists[m]);
        let mut out = *node;
        let n = self.n;
        if self.k == 1 {
            for (&j, &t) in perm[..n].iter().zip(&node.tiles[..n]) {
                out.tiles[j as usize] = t;
            }
        } else {
            for i in 0..n {
                let j = perm[i] as usize;
                out.tiles[j] = node.tiles[i];
                out.orient[j] = (node.orient[i] + twist[i]) % self.k;
            }
        }
        out
    }

    /// The puzzle solved.
    pub fn puzzle(&self) -> &Puzzle {
        self.puzzle
    }
}

/// How many tasks an iteration is split into for `threads` workers.
pub fn default_split(threads: usize) -> usize {
    SPLIT_TASKS.max(threads * 64)
}

/// The last move and how many times in a row it was made, once `m` follows `last`.
fn run_after(last: Option<(usize, u8)>, m: usize) -> (usize, u8) {
    match last {
        Some((a, r)) if a == m => (m, r + 1),
        _ => (m, 1),
    }
}

fn node_of(board: &Board) -> Node {
    let mut node = Node { tiles: [0; MAX_CELLS], orient: [0; MAX_CELLS] };
    node.tiles[..board.tiles.len()].copy_from_slice(&board.tiles);
    node.orient[..board.orient.len()].copy_from_slice(&board.orient);
    node
}
