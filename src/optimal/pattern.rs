//! Pattern tables: lower bounds on a board's distance, from the puzzle with most tiles made
//! identical.
//!
//! Tracking only some tiles (the others share one label per orbit, their orientations not
//! seen: [`pattern_definition`]) maps every board onto a board of a smaller puzzle, the
//! *pattern*, with the same moves; a solution of the board
//! solves its pattern, so the pattern's distance is a lower bound. The pattern is a definition
//! puzzle with identical pieces ([`crate::puzzle::defined`]), ranked as multisets and searched
//! by the same engine as every other table, so its table is built once, stored as a table
//! file (checksummed, resumable, verified on every open) and reused.
//!
//! The table keeps two bits per pattern (distance mod 3). A search that knows the exact
//! bound of a board reads the exact bound of each neighbour from the mark alone, because
//! neighbours lie within one move of each other when the moves are closed under inverses:
//! only the root's bound is found by descending the table.
//!
//! One table gives several bounds ([`View`]): the board seen through each symmetry of the
//! puzzle (conjugated: same distance, and a move of the board is a move of its image, so the
//! marks can be followed). Every view is checked against the slow path (conjugate, relabel,
//! rank) on sample boards before it is used. The inverse board is no view: its neighbours are
//! not its pattern's neighbours (`(g m)^-1 = m^-1 g^-1` moves labels, not cells).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use crate::bfs::{Config, Progress, search_puzzle};
use crate::group::invariants::Invariants;
use crate::job::{Job, Resumed, SessionEnd, SessionSettings, open_table_as};
use crate::puzzle::defined::Defined;
use crate::puzzle::definition::{ANY_ORIENTATION, Definition, MoveDef, SetDef, SetMove, SetState};
use crate::puzzle::{Board, Metric, Puzzle, PuzzleSpec};
use crate::rank::layout::MAX_CELLS;
use crate::rank::{Cells, Multiset, Ranking, StateSpace};
use crate::symmetry::{Symmetries, Symmetry};
use crate::table::{DistanceTable, TableFile, UNSEEN, mark_of, table_bytes};
use crate::{Error, Result};

/// Byte of [`PatternTable::bytes`] for a piece that no reachable pattern has on a cell.
const NO_BYTE: u8 = u8::MAX;

/// Where a pattern table is kept.
#[derive(Clone, Debug)]
pub enum Store {
    /// Built in memory for this session.
    Memory,
    /// Stored in this directory (created if missing) and reused by later runs.
    Dir(PathBuf),
}

/// A way to read a bound from the table: the board conjugated by a symmetry.
#[derive(Clone, Debug)]
pub struct View {
    /// The symmetry, in words (`rotate 90`).
    pub name: String,
    /// The symmetry's map of cells.
    cell_to: Vec<u8>,
    /// `label[t]`: the pattern label of the tile the symmetry makes of tile `t`.
    label: Vec<u8>,
    /// The orientation the view gives a tile of orientation `o`.
    turn: Vec<u8>,
    /// `moves[m]`: the move `s m s^-1` the view sees when the board makes move `m`.
    moves: Vec<usize>,
}

/// The marks of a pattern table: built in memory, or a verified table file mapped read-only.
// One per table, never in a collection: the size difference does not matter.
#[allow(clippy::large_enum_variant)]
enum Marks {
    Memory(DistanceTable),
    File(TableFile),
}

impl Marks {
    fn table(&self) -> &DistanceTable {
        match self {
            Marks::Memory(t) => t,
            Marks::File(f) => &f.table,
        }
    }
}

/// A finished pattern table and how to look boards up in it.
pub struct PatternTable {
    /// The tiles told apart (0-based); the others are identical within their orbit.
    pub tracked: Vec<u8>,
    /// The pattern puzzle.
    pub puzzle: Puzzle,
    /// Where the table is, in words (`in memory` or the file).
    pub source: String,
    /// The largest pattern distance.
    pub max_distance: u32,
    /// Seconds spent obtaining the table in this session (building it, or reading and verifying
    /// a stored one).
    pub build_seconds: f64,
    multiset: Multiset,
    marks: Marks,
    /// The base tile's pattern label (its label's home cell in the pattern puzzle).
    label_of: Vec<u8>,
    /// `bytes[(cell * n + label) * k + orient]`: the multiset's working byte.
    bytes: Vec<u8>,
    n: usize,
    k: usize,
    solved_rank: u64,
    views: Vec<View>,
}

impl PatternTable {
    /// The table of `base` tracking `tracked`, read from `store` if it was built before,
    /// otherwise built now (resuming an interrupted build in a store directory).
    pub fn obtain(
        base: &Puzzle,
        tracked: &[u8],
        store: &Store,
        threads: usize,
        progress: &dyn Progress,
        stop: Arc<AtomicBool>,
    ) -> Result<PatternTable> {
        let n = base.n_positions();
        // Refuses a pattern the multiset ranking cannot hold before building it.
        pattern_states(base, tracked)?;
        let label_of = labels(base, tracked)?;
        let definition = pattern_definition(base, &label_of, tracked);
        let started = std::time::Instant::now();
        let (puzzle, space, marks, source, max_distance) = match store {
            Store::Memory => {
                let puzzle = pattern_puzzle(base, definition, "(pattern in memory)")?;
                let space = StateSpace::build(&puzzle)?;
                let table = DistanceTable::in_memory(space.n_states())?;
                let config = Config { stop: Some(stop), ..Config::new(threads) };
                let out = search_puzzle(&puzzle, &space, &table, &config, progress)?;
                if !out.complete {
                    return Err(Error::Interrupted);
                }
                (puzzle, space, Marks::Memory(table), "in memory".to_string(), out.gods_number())
            }
            Store::Dir(dir) => {
                let (t, tbl) = obtain_stored(base, definition, dir, threads, progress, stop)?;
                let source = tbl.display().to_string();
                let gods = t.gods_number();
                (t.puzzle, t.space, Marks::File(t.file), source, gods)
            }
        };
        let build_seconds = started.elapsed().as_secs_f64();
        let Ranking::Multiset(multiset) = space.ranking else {
            return Err(Error::Unsupported(format!(
                "the pattern of {} tracking {} tiles is not ranked as a multiset",
                base.spec.named(),
                tracked.len()
            )));
        };
        let k = base.orient_mod.max(1) as usize;
        let mut bytes = vec![NO_BYTE; n * n * k];
        for cell in 0..n {
            for label in 0..n {
                for o in 0..k {
                    if let Some(b) = multiset.working_byte(cell, label as u8, o as u8) {
                        bytes[(cell * n + label) * k + o] = b;
                    }
                }
            }
        }
        let solved_rank = multiset.rank(&multiset.cells_of(&puzzle.solved())?);
        let mut p = PatternTable {
            tracked: tracked.to_vec(),
            puzzle,
            source,
            max_distance,
            build_seconds,
            multiset,
            marks,
            label_of,
            bytes,
            n,
            k,
            solved_rank,
            views: Vec::new(),
        };
        p.views = p.checked_views(base);
        Ok(p)
    }

    /// The views this table is read through (the identity first).
    pub fn views(&self) -> &[View] {
        &self.views
    }

    /// Number of patterns (entries of the table).
    pub fn n_states(&self) -> u64 {
        self.multiset.n_states()
    }

    /// Bytes of the table.
    pub fn table_bytes(&self) -> u64 {
        table_bytes(self.n_states())
    }

    /// The rank of the pattern of a board (`tiles`, `orient` of the base puzzle) seen
    /// through `view`.
    #[inline]
    pub fn rank(&self, view: &View, tiles: &[u8], orient: &[u8]) -> u64 {
        self.multiset.rank(&self.cells(view, tiles, orient))
    }

    /// The rank of a pattern in working form.
    #[inline]
    pub fn rank_cells(&self, cells: &Cells) -> u64 {
        self.multiset.rank(cells)
    }

    /// The pattern, seen through `view`, of the board that move `m` makes of the board whose
    /// pattern (through the same view) is `cells`: one shuffle, no rebuilding.
    #[inline]
    pub fn step(&self, view: &View, cells: &Cells, m: usize) -> Cells {
        self.multiset.moves().solve_step(cells, view.moves[m])
    }

    /// The pattern of a board (`tiles`, `orient` of the base puzzle) seen through `view`, in
    /// the multiset ranking's working form.
    #[inline]
    pub fn cells(&self, view: &View, tiles: &[u8], orient: &[u8]) -> Cells {
        let (n, k) = (self.n, self.k);
        let mut out = [0u8; MAX_CELLS];
        for p in 0..n {
            let (cell, label) = (view.cell_to[p] as usize, view.label[tiles[p] as usize]);
            let o = view.turn[orient[p] as usize] as usize;
            let b = self.bytes[(cell * n + label as usize) * k + o];
            debug_assert!(b != NO_BYTE, "a board the pattern puzzle cannot reach");
            out[cell] = b;
        }
        Cells(out)
    }

    /// The mark (distance mod 3, plus 1) of a rank.
    #[inline]
    pub fn mark(&self, rank: u64) -> u8 {
        self.marks.table().get(rank)
    }

    /// Asks the memory system for a rank's mark ahead of [`PatternTable::mark`].
    #[inline]
    pub fn prefetch(&self, rank: u64) {
        self.marks.table().prefetch(rank);
    }

    /// The exact pattern distance of a rank, by descending the table to the solved pattern
    /// (at most [`PatternTable::max_distance`] steps of one table read per move).
    pub fn distance(&self, rank: u64) -> Result<u32> {
        let mut state = self.multiset.unrank(rank);
        let mut r = rank;
        let mut d = 0u32;
        let mark = self.mark(r);
        if mark == UNSEEN {
            return Err(self.inconsistent("a pattern the table has no distance for"));
        }
        // The distance mod 3 is known; descending counts the steps.
        let mut m = mark;
        while r != self.solved_rank {
            if d > self.max_distance {
                return Err(self.inconsistent("no descent reaches the solved pattern"));
            }
            let want = if m == 1 { 3 } else { m - 1 };
            let moves = self.multiset.moves();
            let next = (0..moves.len())
                .map(|mv| moves.solve_step(&state, mv))
                .find(|s| self.mark(self.multiset.rank(s)) == want)
                .ok_or_else(|| self.inconsistent("a pattern with no neighbour one closer"))?;
            state = next;
            r = self.multiset.rank(&state);
            m = want;
            d += 1;
        }
        Ok(d)
    }

    /// The distance one move away from a pattern at distance `d` whose mark is `mark`.
    #[inline]
    pub fn neighbour_distance(d: u32, mark: u8) -> u32 {
        if mark == mark_of(d) {
            d
        } else if mark == mark_of(d + 1) {
            d + 1
        } else {
            // Neighbours lie within one move: the only other mark is one closer.
            debug_assert!(d > 0 && mark == mark_of(d - 1));
            d.saturating_sub(1)
        }
    }

    fn inconsistent(&self, what: &str) -> Error {
        Error::InconsistentTable(format!("pattern table {}: {what}", self.source))
    }

    /// The views that pass the check against the slow path on sample boards.
    fn checked_views(&self, base: &Puzzle) -> Vec<View> {
        let k = base.orient_mod.max(1);
        let syms = Symmetries::of(base);
        let samples = sample_boards(base, 24);
        syms.elements
            .iter()
            .filter_map(|s| Some((self.view(base, s, k)?, s)))
            .filter(|(v, s)| samples.iter().all(|b| self.view_agrees(base, s, v, b, k)))
            .map(|(v, _)| v)
            .collect()
    }

    /// The view through `s`, if every conjugated move is a move.
    fn view(&self, base: &Puzzle, s: &Symmetry, k: u8) -> Option<View> {
        // A view turns every tile alike; a map with a turn per cell (a definition's cube
        // rotation) would need the turn of each cell and tile, so it is no view.
        if s.offsets.iter().any(|&o| o % k != s.offsets[0] % k) {
            return None;
        }
        let n = self.n;
        let label = (0..n).map(|t| self.label_of[s.cells[t] as usize]).collect();
        let turn = (0..k).map(|o| if s.reverses { (k - o) % k } else { o }).collect();
        let moves = crate::symmetry::move_images(base, s)?;
        Some(View { name: s.name.clone(), cell_to: s.cells.clone(), label, turn, moves })
    }

    /// Whether the fast lookup of a view gives the rank of the slow path: the board
    /// conjugated by the symmetry, its tiles relabelled.
    /// Also checks that a move of the board is the view's move of its pattern.
    fn view_agrees(&self, base: &Puzzle, s: &Symmetry, v: &View, board: &Board, k: u8) -> bool {
        let slow = |b: &Board| {
            let mut seen = s.conjugate_board(b, k);
            seen.tiles.iter_mut().for_each(|t| *t = self.label_of[*t as usize]);
            self.multiset.cells_of(&seen).map(|c| self.multiset.rank(&c))
        };
        let cells = self.cells(v, &board.tiles, &board.orient);
        if slow(board).ok() != Some(self.rank_cells(&cells)) {
            return false;
        }
        base.moves.iter().enumerate().all(|(m, mv)| {
            let next = base.apply(board, mv);
            slow(&next).ok() == Some(self.rank_cells(&self.step(v, &cells, m)))
        })
    }
}

/// The pattern search needs boards the multiset ranking holds and moves closed under
/// inverses (two-bit marks give exact neighbour bounds only then).
fn check_base(base: &Puzzle) -> Result<()> {
    if base.n_positions() > MAX_CELLS {
        return Err(Error::Unsupported(format!(
            "{} has {} cells; pattern tables hold boards of at most {MAX_CELLS}",
            base.spec.named(),
            base.n_positions()
        )));
    }
    if !base.undirected {
        return Err(Error::Unsupported(format!(
            "{} in {} has moves whose inverse is not a move; optimal search by pattern tables \
             needs moves closed under inverses (use a full table: twirl bfs ... --table FILE)",
            base.spec.named(),
            base.metric
        )));
    }
    Ok(())
}

/// `label_of[t]`: `t` for a tracked tile, else the least untracked tile of its class: the
/// same orbit (cells its home can reach), so that the moves cannot tell identical pieces
/// apart (the multiset ranking needs that). Untracked tiles have no orientation in the
/// pattern (see [`pattern_definition`]), so the orientation their home ties them to does not
/// split them.
fn labels(base: &Puzzle, tracked: &[u8]) -> Result<Vec<u8>> {
    let n = base.n_positions();
    let inv = Invariants::of(base)?;
    let solved = base.solved();
    let mut first_blank: HashMap<u8, u8> = HashMap::new();
    let mut label_of: Vec<u8> = (0..n as u8).collect();
    // Tiles are named by their home cell; a base puzzle's own identical pieces share one.
    for cell in 0..n {
        let t = solved.tiles[cell];
        if tracked.contains(&t) {
            continue;
        }
        let orbit = inv.orbit_of[cell];
        label_of[t as usize] = *first_blank.entry(orbit).or_insert(t);
    }
    Ok(label_of)
}

/// The pattern as a definition: one set of a piece per cell with the puzzle's orientations,
/// the solved labels, and one declared move per base move (`M00`, `M01`, ...: zero-padded,
/// so no name is another's power as twsearch writes powers). It is searched in `cw`, which
/// keeps exactly the declared moves.
///
/// The untracked tiles' orientations are not seen (`?`, [`ANY_ORIENTATION`]): the pattern
/// keeps where each tracked tile stands and how it is turned, and which cells hold untracked
/// tiles, nothing else. On Spinpossible 4x4 that makes 6 tracked tiles 16!/10! * 2^6 =
/// 369,008,640 patterns (92 MiB), where keeping the untracked tiles' flips (2^16 of them)
/// leaves room for 3.
///
/// Why the bound stays admissible: the map from boards to patterns forgets information and
/// commutes with the moves (a move carries a tracked tile and its turn as on the board, and
/// an untracked tile to a cell of untracked tiles, whatever its turn). So a sequence that
/// solves a board takes its pattern to the pattern of the solved board, the solved pattern:
/// the pattern's distance is at most the board's. Forgetting more (here the untracked
/// turns) merges patterns, and the distance of a merged pattern is the least over the boards
/// it merges, so it can only be lower: never above the board's distance.
fn pattern_definition(base: &Puzzle, label_of: &[u8], tracked: &[u8]) -> Definition {
    let n = base.n_positions();
    let width = base.moves.len().saturating_sub(1).to_string().len();
    let solved = base.solved();
    let k = base.orient_mod.max(1);
    let orient = solved
        .tiles
        .iter()
        .map(|t| match k > 1 && !tracked.contains(t) {
            true => ANY_ORIENTATION,
            false => 0,
        })
        .collect();
    Definition {
        name: "pattern".into(),
        sets: vec![SetDef { name: "TILES".into(), size: n, orientations: k }],
        solved: vec![SetState {
            pieces: solved.tiles.iter().map(|&t| u16::from(label_of[t as usize])).collect(),
            orient,
        }],
        moves: base
            .moves
            .iter()
            .enumerate()
            .map(|(i, m)| MoveDef {
                name: format!("M{i:0width$}"),
                sets: vec![SetMove {
                    perm: m.perm.iter().map(|&p| u16::from(p)).collect(),
                    twist: m.twist.clone(),
                }],
            })
            .collect(),
        rotations: Vec::new(),
        illegal: Vec::new(),
    }
}

fn pattern_puzzle(base: &Puzzle, definition: Definition, path: &str) -> Result<Puzzle> {
    let defined = Defined::new(path, definition)?;
    let puzzle = Puzzle::new(&PuzzleSpec::Def(Arc::new(defined)), Metric::Cw)?;
    debug_assert!(puzzle.moves.iter().zip(&base.moves).all(|(a, b)| a.same_action(b)));
    Ok(puzzle)
}

/// The files of a pattern in a store directory, all named by the digest of its definition
/// (its moves and solved labels: the whole pattern): `pattern-D.tws`, the definition;
/// `pattern-D.tbl`, the table (its header names the definition by that file name alone, so
/// the directory can be moved or copied); `pattern-D.lock`, locked by the process that makes
/// or reads the table (kept: removing a lock file another process waits on would let a third
/// take the name).
fn obtain_stored(
    base: &Puzzle,
    definition: Definition,
    dir: &Path,
    threads: usize,
    progress: &dyn Progress,
    stop: Arc<AtomicBool>,
) -> Result<(crate::job::VerifiedTable, PathBuf)> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let dir = dir.canonicalize().map_err(|e| Error::io(dir, e))?;
    let text = definition.to_tws();
    let digest = xxhash_rust::xxh3::xxh3_64(text.as_bytes());
    let name = format!("pattern-{digest:016x}");
    let (tws, tbl) = (dir.join(format!("{name}.tws")), dir.join(format!("{name}.tbl")));
    let _lock = lock_pattern(&dir.join(format!("{name}.lock")), progress, &stop)?;
    match std::fs::read_to_string(&tws) {
        Ok(existing) if existing == text => {}
        Ok(_) => {
            return Err(Error::Refused {
                path: tws.clone(),
                reason: "expected the pattern definition this table is named after, found \
                         another file under its name; remove it"
                    .into(),
            });
        }
        Err(_) => crate::durable::write_atomically(&tws, text.as_bytes())?,
    }
    // Named by the file alone: what the header records, wherever the cache is.
    let puzzle = pattern_puzzle(base, definition, &format!("{name}.tws"))?;
    let settings = SessionSettings::new(threads);
    let job = if tbl.exists() {
        check_pattern_header(&tbl, &name)?;
        match Job::resume_as(&tbl, &puzzle).map_err(|e| rebuild_hint(e, &tbl))? {
            Resumed::Complete(_) => {
                return Ok((open_table_as(&tbl, &puzzle).map_err(|e| rebuild_hint(e, &tbl))?, tbl));
            }
            Resumed::Continue(job) => *job,
        }
    } else {
        Job::start(&tbl, &puzzle, false, false)?
    };
    match job.run(&settings, progress, stop)? {
        SessionEnd::Finished(_) => Ok((open_table_as(&tbl, &puzzle)?, tbl)),
        SessionEnd::Stopped { levels_done } => Err(Error::InterruptedKept(format!(
            "the pattern table built so far is kept in {} ({}): run the same command to \
             continue building it",
            tbl.display(),
            match levels_done {
                0 => "no distance finished yet".to_string(),
                n => format!("distances 0 to {} finished", n - 1),
            }
        ))),
    }
}

/// Takes the lock of a pattern's files, waiting while another process holds it (it is
/// building or reading the table); gives up when asked to stop.
fn lock_pattern(path: &Path, progress: &dyn Progress, stop: &AtomicBool) -> Result<std::fs::File> {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(|e| Error::io(path, e))?;
    let mut told = false;
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(file),
            Err(std::fs::TryLockError::WouldBlock) => {}
            Err(std::fs::TryLockError::Error(e)) => return Err(Error::io(path, e)),
        }
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            return Err(Error::Interrupted);
        }
        if !told {
            progress.waiting(&format!(
                "waiting for another twirl process that holds {} (building or reading the same \
                 pattern table)",
                path.display()
            ));
            told = true;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// Refuses a table under a pattern's name whose header names another pattern (a file copied
/// or renamed into the cache): its ranks would be read as this pattern's.
fn check_pattern_header(tbl: &Path, name: &str) -> Result<()> {
    let mut f = std::fs::File::open(tbl).map_err(|e| Error::io(tbl, e))?;
    let header = crate::table::format::Header::read_from(&mut f, tbl)?;
    let file_name = header
        .puzzle
        .strip_prefix("def:")
        .and_then(|p| Path::new(p).file_name())
        .and_then(|f| f.to_str());
    if file_name != Some(&format!("{name}.tws")) {
        return Err(Error::Refused {
            path: tbl.into(),
            reason: format!(
                "expected the table of the pattern {name}.tws, found a table of `{}`; remove \
                 it to build the pattern table again",
                crate::error::escaped(&header.puzzle)
            ),
        });
    }
    Ok(())
}

/// Adds to a refused cached table that removing it makes the table built again.
fn rebuild_hint(e: Error, tbl: &Path) -> Error {
    match e {
        Error::BadTable { path, reason } if !crate::table::file::is_locked_reason(&reason) => {
            let reason =
                format!("{reason}; remove {} to build the pattern table again", tbl.display());
            Error::BadTable { path, reason }
        }
        other => other,
    }
}

/// Boards a few random moves from solved, for checking views (deterministic).
fn sample_boards(base: &Puzzle, count: usize) -> Vec<Board> {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    (0..count)
        .map(|_| {
            let mut b = base.solved();
            for _ in 0..40 {
                let m = (next() % base.moves.len() as u64) as usize;
                b = base.apply(&b, &base.moves[m]);
            }
            b
        })
        .collect()
}

/// Number of patterns of `base` tracking `tracked` (the entries of its table).
pub fn pattern_states(base: &Puzzle, tracked: &[u8]) -> Result<u64> {
    check_base(base)?;
    let n = base.n_positions();
    if tracked.len() + 2 > n {
        return Err(Error::Unsupported(format!(
            "a pattern tracks at most {} of the {n} tiles (two or more must be identical), \
             found {}",
            n.saturating_sub(2),
            tracked.len()
        )));
    }
    let label_of = labels(base, tracked)?;
    let puzzle = pattern_puzzle(base, pattern_definition(base, &label_of, tracked), "(sizing)")?;
    let space = StateSpace::build(&puzzle)?;
    if !matches!(space.ranking, Ranking::Multiset(_)) {
        let why = if puzzle.has_identical_pieces() {
            // The exceptional small groups (nrp:2x3:2): their patterns are listed, not ranked.
            "the moves generate fewer boards than their orbits and parities allow, so its \
             patterns are listed one by one (a full table solves it: --method table)"
        } else {
            "no two untracked tiles share an orbit, so no tiles are identical (track fewer)"
        };
        return Err(Error::Unsupported(format!(
            "expected a pattern of {} ranked as a multiset (pattern tables need it), found \
             one tracking {} tile{} where {why}",
            base.spec.named(),
            tracked.len(),
            if tracked.len() == 1 { "" } else { "s" }
        )));
    }
    Ok(space.n_states())
}

/// The tracked tiles by default: the first `k` tiles in book order, `k` the largest whose
/// table fits `max_bytes`.
pub fn default_tracked(base: &Puzzle, max_bytes: u64) -> Result<Vec<u8>> {
    check_base(base)?;
    let mut best = None;
    // At least two tiles identical: with one the pattern is the puzzle itself.
    for k in 1..base.n_positions().saturating_sub(1) {
        let tracked: Vec<u8> = (0..k as u8).collect();
        match pattern_states(base, &tracked) {
            Ok(states) if table_bytes(states) <= max_bytes => best = Some(tracked),
            // Not even one tracked tile: no pattern of this puzzle is ranked as a multiset.
            Err(e @ Error::Unsupported(_)) if best.is_none() => return Err(e),
            _ => break,
        }
    }
    best.ok_or_else(|| {
        Error::TooLarge(format!(
            "no pattern table of {} fits {max_bytes} bytes (raise --max-memory)",
            base.spec.named()
        ))
    })
}
