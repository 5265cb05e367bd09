//! Random puzzle definitions (`.tws`) searched by the engine in every way it ranks them, each
//! histogram against a naive breadth-first search of the same definition.
//!
//! The naive side shares nothing with the engine, not even its parser: it reads the generated
//! definition as twsearch does (a move's permutation line is passive, its orientation line is
//! indexed by the position a piece leaves, every power of a declared move is one move in
//! `htm`), keeps a board as the label and orientation on every position (a `?` piece's
//! orientation dropped, so boards differing only by identical pieces or unseen turns are one),
//! and searches a hash map of them. The engine reads the definition's text.
//!
//! Definitions are small (1 to 3 sets of 2 to 8 pieces, at most [`MAX_BOARDS`] boards) and of
//! two kinds: random moves, and moves closed under conjugation by a random map of the cells
//! (rotations of a ring, reflections, sets exchanged, orientations reversed), so that the
//! engine's search for symmetries has something to find. Every case is reproducible from its
//! seed; a failure prints the definition.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use num_bigint::BigUint;
use rustc_hash::FxHashMap;
use twirl::bfs::{
    Config, Direction, NoJournal, NoProgress, Outcome, Single, run_in, search_puzzle,
};
use twirl::group::analysis::Analysis;
use twirl::group::solvable::{Checker, Verdict};
use twirl::puzzle::defined::Defined;
use twirl::puzzle::definition::Definition;
use twirl::puzzle::goals::Goals;
use twirl::puzzle::{Metric, Puzzle, PuzzleSpec};
use twirl::rank::layout::Layout;
use twirl::rank::{ChainRanking, FibreRanking, Multiset, Ranking, StateSpace, SymmetryMode};
use twirl::symmetry::{FibreClasses, Symmetries};
use twirl::table::{DistanceTable, mark_of};

/// Definitions with more boards than this are dropped (the naive search stops there).
const MAX_BOARDS: usize = 300_000;
/// Reachable boards whose distance is read back from each table, per ranking.
const BOARDS_LOOKED_UP: usize = 24;
/// Boards judged by `check` per definition, half reachable and half shuffled at random.
const BOARDS_CHECKED: usize = 32;

/// xorshift64*: a small seeded generator, so that every case replays from its seed.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        rng.next();
        rng
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n`.
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// A number in `lo..=hi`.
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// True `p` times in a hundred.
    fn percent(&mut self, p: u64) -> bool {
        self.next() % 100 < p
    }

    fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            v.swap(i, self.below(i + 1));
        }
    }
}

/// One set of a generated definition.
#[derive(Clone, Debug)]
struct SetSpec {
    orientations: u8,
    /// `labels[i]`: the label (0-based) of the piece solved at position `i`; repeated labels
    /// are identical pieces.
    labels: Vec<u8>,
    /// `solved_orient[label]`: the label's solved orientation, `None` for `?` (not seen).
    solved_orient: Vec<Option<u8>>,
}

impl SetSpec {
    fn size(&self) -> usize {
        self.labels.len()
    }
}

/// A move (or a map of the cells) on all cells, sets one after another, in the active
/// direction: the piece on cell `i` goes to `dest[i]`, turning by `twist[i]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct FlatMove {
    dest: Vec<u8>,
    twist: Vec<u8>,
}

// A cell indexes its destination, turn and modulus at once.
#[allow(clippy::needless_range_loop)]
impl FlatMove {
    fn identity(n: usize) -> FlatMove {
        FlatMove { dest: (0..n as u8).collect(), twist: vec![0; n] }
    }

    fn is_identity(&self) -> bool {
        self.dest.iter().enumerate().all(|(i, &d)| d as usize == i)
            && self.twist.iter().all(|&t| t == 0)
    }

    /// This move, then `next`; `modulus[cell]` is the cell's orientation count.
    fn then(&self, next: &FlatMove, modulus: &[u8]) -> FlatMove {
        let n = self.dest.len();
        let mut out = FlatMove::identity(n);
        for i in 0..n {
            let j = self.dest[i] as usize;
            out.dest[i] = next.dest[j];
            out.twist[i] = (self.twist[i] + next.twist[j]) % modulus[i];
        }
        out
    }

    fn inverse(&self, modulus: &[u8]) -> FlatMove {
        let n = self.dest.len();
        let mut out = FlatMove::identity(n);
        for i in 0..n {
            let j = self.dest[i] as usize;
            out.dest[j] = i as u8;
            out.twist[j] = (modulus[i] - self.twist[i]) % modulus[i];
        }
        out
    }

    /// `s m s^-1` for a map `s` of the cells: the piece `s` carries to `s(i)` goes where `m`
    /// sends `i`, carried by `s`, and turns by `m`'s turn (reversed with `s`) plus the offset
    /// of where it lands less that of where it left.
    fn conjugated_by(&self, s: &CellMap, modulus: &[u8]) -> FlatMove {
        let n = self.dest.len();
        let mut out = FlatMove::identity(n);
        for i in 0..n {
            let (si, j, c) = (s.cells[i] as usize, self.dest[i] as usize, modulus[i]);
            out.dest[si] = s.cells[j];
            let t = if s.reverses { (c - self.twist[i]) % c } else { self.twist[i] };
            out.twist[si] = (t + s.offsets[j] + c - s.offsets[i]) % c;
        }
        out
    }
}

/// A map of the cells that a symmetric definition's moves are closed under: cell `i` goes to
/// `cells[i]`, turns are reversed if `reverses`, and a piece leaving cell `i` turns by
/// `offsets[i]` (in its set's steps) as the engine's [`twirl::symmetry::Symmetry`] does.
#[derive(Clone, Debug)]
struct CellMap {
    cells: Vec<u8>,
    reverses: bool,
    offsets: Vec<u8>,
    /// Whether the solved state was made to keep the map, so that the engine must find it.
    keeps_solved: bool,
}

/// A generated definition.
#[derive(Clone, Debug)]
struct Spec {
    sets: Vec<SetSpec>,
    moves: Vec<FlatMove>,
    metric: Metric,
    /// The map the moves were closed under, for a symmetric definition.
    symmetry: Option<CellMap>,
}

const SET_NAMES: [&str; 3] = ["ONE", "TWO", "THREE"];

/// Move names of capitals only: twsearch names powers by digits and `'` after them, and
/// takes lowercase `x`, `y`, `z` and names ending in `v` for rotations.
fn move_name(i: usize) -> String {
    let letters = b"ABCDEFGHIJKLMNOPQRSTUWXYZ";
    let mut name = String::new();
    let mut k = i;
    loop {
        name.insert(0, letters[k % letters.len()] as char);
        k /= letters.len();
        if k == 0 {
            return name;
        }
        k -= 1;
    }
}

impl Spec {
    fn n_cells(&self) -> usize {
        self.sets.iter().map(SetSpec::size).sum()
    }

    fn offsets(&self) -> Vec<usize> {
        let mut at = 0;
        self.sets
            .iter()
            .map(|s| {
                at += s.size();
                at - s.size()
            })
            .collect()
    }

    /// `modulus[cell]`: the orientation count of the cell's set.
    fn modulus(&self) -> Vec<u8> {
        self.sets.iter().flat_map(|s| std::iter::repeat_n(s.orientations, s.size())).collect()
    }

    fn has_identical_pieces(&self) -> bool {
        self.sets.iter().any(|s| s.solved_orient.len() < s.size())
    }

    fn has_unseen(&self) -> bool {
        self.sets.iter().any(|s| s.solved_orient.contains(&None))
    }

    fn has_solved_turns(&self) -> bool {
        self.sets.iter().any(|s| s.solved_orient.iter().any(|o| o.is_some_and(|o| o > 0)))
    }

    /// The definition in twsearch's format: permutation lines passive (entry `j` is the
    /// position whose piece lands on `j`), orientation lines by the position a piece leaves.
    fn to_tws(&self) -> String {
        let mut out = String::from("Name Random\n");
        for (s, set) in self.sets.iter().enumerate() {
            out += &format!("Set {} {} {}\n", SET_NAMES[s], set.size(), set.orientations);
        }
        out += "Solved\n";
        for (s, set) in self.sets.iter().enumerate() {
            out += &format!("{}\n{}\n", SET_NAMES[s], join(set.labels.iter().map(|l| l + 1)));
            if set.orientations > 1 {
                let orient = set.labels.iter().map(|&l| match set.solved_orient[l as usize] {
                    Some(o) => o.to_string(),
                    None => "?".to_string(),
                });
                out += &format!("{}\n", join(orient));
            }
        }
        out += "End\n";
        let offsets = self.offsets();
        for (k, m) in self.moves.iter().enumerate() {
            out += &format!("Move {}\n", move_name(k));
            for (s, set) in self.sets.iter().enumerate() {
                let (off, n) = (offsets[s], set.size());
                let dest = &m.dest[off..off + n];
                let twist = &m.twist[off..off + n];
                if dest.iter().enumerate().all(|(i, &d)| d as usize == off + i)
                    && twist.iter().all(|&t| t == 0)
                {
                    continue;
                }
                let mut passive = vec![0usize; n];
                for (i, &d) in dest.iter().enumerate() {
                    passive[d as usize - off] = i + 1;
                }
                out += &format!("{}\n{}\n", SET_NAMES[s], join(passive));
                if set.orientations > 1 {
                    out += &format!("{}\n", join(twist));
                }
            }
            out += "End\n";
        }
        out
    }

    /// A board in the engine's state layout (`ONE 1 2 2 / 0 1 0; TWO ...`) from labels and
    /// raw orientations per cell.
    fn board_text(&self, labels: &[u8], orient: &[u8]) -> String {
        let mut parts = Vec::new();
        let mut at = 0;
        for (s, set) in self.sets.iter().enumerate() {
            let n = set.size();
            let mut part =
                format!("{} {}", SET_NAMES[s], join(labels[at..at + n].iter().map(|l| l + 1)));
            if set.orientations > 1 {
                part += &format!(" / {}", join(&orient[at..at + n]));
            }
            parts.push(part);
            at += n;
        }
        parts.join("; ")
    }
}

fn join<T: ToString>(items: impl IntoIterator<Item = T>) -> String {
    items.into_iter().map(|x| x.to_string()).collect::<Vec<_>>().join(" ")
}

// ---------------------------------------------------------------------------------------
// The naive search.

/// Bits per cell in a packed board: a label below 16, then an orientation below 8.
const CELL_BITS: usize = 7;
/// Most cells a packed board holds.
const MAX_CELLS: usize = 128 / CELL_BITS;
const LABELS: usize = 16;
const CELL_MASK: u128 = (1 << CELL_BITS) - 1;

/// The definition read on its own: packed boards and the moves of the metric, undone (a
/// search from solved along them gives every board's distance to solve, `cw` included).
struct Model {
    n: usize,
    modulus: Vec<u8>,
    /// `unseen[cell * LABELS + label]`: whether that label's orientation is not seen.
    unseen: Vec<bool>,
    solved: u128,
    moves: Vec<FlatMove>,
}

/// The naive search's result: boards at each distance, and every board's distance.
struct Naive {
    histogram: Vec<u64>,
    unique: Vec<u64>,
    distance: FxHashMap<u128, u32>,
}

impl Model {
    fn new(spec: &Spec) -> Model {
        let n = spec.n_cells();
        assert!(n <= MAX_CELLS);
        let modulus = spec.modulus();
        let mut unseen = vec![false; n * LABELS];
        let (mut labels, mut orient) = (Vec::new(), Vec::new());
        for set in &spec.sets {
            for &l in &set.labels {
                let cell = labels.len();
                for (label, o) in set.solved_orient.iter().enumerate() {
                    unseen[cell * LABELS + label] = o.is_none();
                }
                labels.push(l);
                orient.push(set.solved_orient[l as usize].unwrap_or(0));
            }
        }
        let declared = &spec.moves;
        let metric_moves: Vec<FlatMove> = match spec.metric {
            Metric::Htm => declared
                .iter()
                .flat_map(|m| {
                    let mut powers = Vec::new();
                    let mut p = m.clone();
                    while !p.is_identity() {
                        powers.push(p.clone());
                        p = p.then(m, &modulus);
                    }
                    powers
                })
                .collect(),
            Metric::Qtm => declared
                .iter()
                .flat_map(|m| {
                    let inv = m.inverse(&modulus);
                    if inv == *m { vec![inv] } else { vec![m.clone(), inv] }
                })
                .collect(),
            Metric::Cw => declared.clone(),
        };
        let moves = metric_moves.iter().map(|m| m.inverse(&modulus)).collect();
        let mut model = Model { n, modulus, unseen, solved: 0, moves };
        model.solved = model.pack(&labels, &orient);
        model
    }

    fn pack(&self, labels: &[u8], orient: &[u8]) -> u128 {
        let mut key = 0u128;
        for i in 0..self.n {
            let o = if self.unseen[i * LABELS + labels[i] as usize] { 0 } else { orient[i] };
            key |= u128::from(labels[i] | o << 4) << (CELL_BITS * i);
        }
        key
    }

    fn unpack(&self, key: u128) -> (Vec<u8>, Vec<u8>) {
        (0..self.n)
            .map(|i| ((key >> (CELL_BITS * i)) & CELL_MASK) as u8)
            .map(|v| (v & 15, v >> 4))
            .unzip()
    }

    fn apply(&self, key: u128, m: &FlatMove) -> u128 {
        let mut out = 0u128;
        for i in 0..self.n {
            let v = ((key >> (CELL_BITS * i)) & CELL_MASK) as u8;
            let (label, o) = (v & 15, v >> 4);
            let o = if self.unseen[i * LABELS + label as usize] {
                0
            } else {
                (o + m.twist[i]) % self.modulus[i]
            };
            out |= u128::from(label | o << 4) << (CELL_BITS * m.dest[i] as usize);
        }
        out
    }

    /// Every board's distance to solve, or `None` past `cap` boards.
    fn search(&self, cap: usize) -> Option<Naive> {
        self.search_from(&[self.solved], cap)
    }

    /// Every board's distance to the nearest of `starts` (distinct boards), and the boards
    /// at each distance with exactly one shortest solution (a sequence of moves: two moves
    /// reaching one board are two), or `None` past `cap` boards.
    fn search_from(&self, starts: &[u128], cap: usize) -> Option<Naive> {
        let mut distance: FxHashMap<u128, u32> = starts.iter().map(|&b| (b, 0)).collect();
        let mut frontier: Vec<(u128, u8)> = starts.iter().map(|&b| (b, 1)).collect();
        let mut histogram = vec![starts.len() as u64];
        let mut unique = vec![starts.len() as u64];
        loop {
            let d = histogram.len() as u32;
            // Solutions per board of the next distance, saturating at 2.
            let mut next: FxHashMap<u128, u8> = FxHashMap::default();
            let mut order = Vec::new();
            for &(b, paths) in &frontier {
                for m in &self.moves {
                    let c = self.apply(b, m);
                    let at = *distance.entry(c).or_insert(d);
                    if at == d {
                        let count = next.entry(c).or_insert_with(|| {
                            order.push(c);
                            0
                        });
                        *count = (*count + paths).min(2);
                    }
                }
                if distance.len() > cap {
                    return None;
                }
            }
            if order.is_empty() {
                return Some(Naive { histogram, unique, distance });
            }
            histogram.push(order.len() as u64);
            unique.push(next.values().filter(|&&p| p == 1).count() as u64);
            frontier = order.iter().map(|c| (*c, next[c])).collect();
        }
    }
}

// ---------------------------------------------------------------------------------------
// The generator.

/// An orientation count: mostly 1 to 3, sometimes 4.
fn random_orientations(rng: &mut Rng) -> u8 {
    // Counts the invariant layout does not index (5, 6) now and then.
    match rng.percent(4) {
        true => [5, 6][rng.below(2)],
        false => [1, 1, 1, 2, 2, 3, 3, 4][rng.below(8)],
    }
}

/// Labels of `size` pieces: distinct (in order or shuffled), or `1..size-1` of them repeated
/// (always, and at most 4 of them, past 8 pieces).
fn random_labels(rng: &mut Rng, size: usize) -> Vec<u8> {
    let mut labels: Vec<u8> = (0..size as u8).collect();
    if size > 8 || (size > 1 && rng.percent(35)) {
        let distinct = rng.range(1, (size - 1).min(if size > 8 { 4 } else { size }));
        for l in labels.iter_mut().skip(distinct) {
            *l = rng.below(distinct) as u8;
        }
        rng.shuffle(&mut labels);
    } else if rng.percent(30) {
        rng.shuffle(&mut labels);
    }
    labels
}

/// Solved orientations per label: upright, or sometimes turned, sometimes `?`.
fn random_solved_orient(rng: &mut Rng, labels: usize, orientations: u8) -> Vec<Option<u8>> {
    let mut out = vec![Some(0); labels];
    if orientations > 1 {
        if rng.percent(25) {
            out.iter_mut().for_each(|o| *o = Some(rng.below(orientations as usize) as u8));
        }
        if rng.percent(10) {
            out.iter_mut().filter(|_| rng.percent(50)).for_each(|o| *o = None);
        }
    }
    out
}

fn random_set(rng: &mut Rng, size: usize, orientations: u8) -> SetSpec {
    let labels = random_labels(rng, size);
    let n_labels = *labels.iter().max().unwrap() as usize + 1;
    SetSpec {
        orientations,
        labels,
        solved_orient: random_solved_orient(rng, n_labels, orientations),
    }
}

/// Sizes of 1 to 3 sets, mostly 2 to 8 pieces (fewer when there are more sets), sometimes
/// one piece or up to 12, at most [`MAX_CELLS`] in all, one set of two pieces at least.
fn random_sizes(rng: &mut Rng) -> Vec<usize> {
    let n_sets = [1, 1, 2, 2, 2, 3, 3][rng.below(7)];
    let most = [8, 7, 6][n_sets - 1];
    loop {
        let sizes: Vec<usize> = (0..n_sets)
            .map(|_| match rng.below(100) {
                0..=4 => 1,
                5..=12 => rng.range(9, 12),
                _ => rng.range(2, most),
            })
            .collect();
        // A set of two pieces at least, or no move could be other than the identity where
        // every piece is alone and cannot turn.
        if sizes.iter().sum::<usize>() <= MAX_CELLS && sizes.iter().any(|&s| s >= 2) {
            return sizes;
        }
    }
}

/// A move on the cells `cells` of one set (of `orientations`): a shuffle, a cycle, or turns
/// alone, with random turns.
fn random_set_move(rng: &mut Rng, m: &mut FlatMove, cells: &[usize], orientations: u8) {
    let k = cells.len();
    let mut order: Vec<usize> = cells.to_vec();
    // A set of one piece can only turn it.
    match if k > 1 { rng.below(10) } else { 9 } {
        0..=2 => {
            rng.shuffle(&mut order);
            for (i, &c) in cells.iter().enumerate() {
                m.dest[c] = order[i] as u8;
            }
        }
        3..=7 => {
            rng.shuffle(&mut order);
            let len = rng.range(2, k);
            for w in 0..len {
                m.dest[order[w]] = order[(w + 1) % len] as u8;
            }
        }
        _ => {}
    }
    if orientations > 1 {
        for &c in cells {
            if rng.percent(50) {
                m.twist[c] = rng.below(orientations as usize) as u8;
            }
        }
    }
}

/// A move touching a random subset of the sets, never the identity. Where `windows` names a
/// width for a set, the move touches only its first cells there (a ring's arc).
fn random_move(rng: &mut Rng, sets: &[SetSpec], windows: &[Option<usize>]) -> FlatMove {
    let n: usize = sets.iter().map(SetSpec::size).sum();
    loop {
        let mut m = FlatMove::identity(n);
        let mut off = 0;
        for (s, set) in sets.iter().enumerate() {
            if rng.percent(60) {
                let width = windows.get(s).copied().flatten().unwrap_or(set.size());
                let cells: Vec<usize> = (off..off + width).collect();
                random_set_move(rng, &mut m, &cells, set.orientations);
            }
            off += set.size();
        }
        if !m.is_identity() {
            return m;
        }
    }
}

fn random_metric(rng: &mut Rng) -> Metric {
    [Metric::Htm, Metric::Htm, Metric::Htm, Metric::Qtm, Metric::Cw][rng.below(5)]
}

/// Moves listed once each, or (sometimes) duplicates kept under other names.
fn dedup_moves(rng: &mut Rng, moves: &mut Vec<FlatMove>) {
    if rng.percent(90) {
        let mut seen = std::collections::HashSet::new();
        moves.retain(|m| seen.insert(m.clone()));
    }
}

/// A definition of random sets and 2 to 4 random moves.
fn random_spec(rng: &mut Rng) -> Spec {
    let sets: Vec<SetSpec> = random_sizes(rng)
        .into_iter()
        .map(|size| {
            let orientations = random_orientations(rng);
            random_set(rng, size, orientations)
        })
        .collect();
    let mut moves: Vec<FlatMove> =
        (0..rng.range(2, 4)).map(|_| random_move(rng, &sets, &[])).collect();
    if rng.percent(5) {
        moves.push(moves[0].clone());
    }
    dedup_moves(rng, &mut moves);
    Spec { sets, moves, metric: random_metric(rng), symmetry: None }
}

/// A map of one set's `n` positions: a rotation of the ring, a reflection, a random
/// permutation, or nothing.
fn random_local_map(rng: &mut Rng, n: usize) -> Vec<usize> {
    let mut map: Vec<usize> = (0..n).collect();
    match rng.below(20) {
        0..=6 => map.iter_mut().for_each(|i| *i = (*i + 1) % n),
        7..=10 => map.iter_mut().for_each(|i| *i = n - 1 - *i),
        11..=15 => rng.shuffle(&mut map),
        _ => {}
    }
    map
}

/// A definition whose moves are closed under conjugation by a random map of the cells: each
/// set mapped onto itself (a ring's rotation, a reflection, a random permutation) or two sets
/// of one shape exchanged, orientations sometimes reversed. The solved state is usually made
/// to keep the map (identical pieces constant on its cycles, exchanged sets labelled alike),
/// so that the map is a symmetry the engine must find; otherwise it usually is not one.
fn random_symmetric_spec(rng: &mut Rng) -> Spec {
    loop {
        let mut sizes = random_sizes(rng);
        let mut orientations: Vec<u8> = sizes.iter().map(|_| random_orientations(rng)).collect();
        // Two sets of one shape, to exchange.
        let exchange = sizes.len() >= 2
            && 2 * sizes[0] + sizes[2..].iter().sum::<usize>() <= MAX_CELLS
            && rng.percent(40);
        if exchange {
            sizes[1] = sizes[0];
            orientations[1] = orientations[0];
        }
        let n: usize = sizes.iter().sum();
        let mut offsets = vec![0; sizes.len()];
        for s in 1..sizes.len() {
            offsets[s] = offsets[s - 1] + sizes[s - 1];
        }
        let mut map: Vec<u8> = (0..n as u8).collect();
        let mut local_maps = Vec::new();
        let mut rings = vec![None; sizes.len()];
        for (s, &size) in sizes.iter().enumerate() {
            let local =
                if exchange && s < 2 { (0..size).collect() } else { random_local_map(rng, size) };
            for (i, &j) in local.iter().enumerate() {
                map[offsets[s] + i] = (offsets[s] + j) as u8;
            }
            // A rotated ring: moves on an arc of it, rotated all round.
            if size >= 3
                && local.iter().enumerate().all(|(i, &j)| j == (i + 1) % size)
                && rng.percent(50)
            {
                rings[s] = Some(rng.range(2, size - 1));
            }
            local_maps.push(local);
        }
        let mut exchange_perm: Vec<usize> = (0..sizes[0]).collect();
        if exchange {
            rng.shuffle(&mut exchange_perm);
            for (i, &j) in exchange_perm.iter().enumerate() {
                map[offsets[0] + i] = (offsets[1] + j) as u8;
                map[offsets[1] + j] = (offsets[0] + i) as u8;
            }
        }
        let reverses = orientations.iter().any(|&o| o > 2) && rng.percent(25);
        let keeps_solved = rng.percent(80);
        let mut sets: Vec<SetSpec> = Vec::new();
        for (s, &size) in sizes.iter().enumerate() {
            let set = if !keeps_solved {
                random_set(rng, size, orientations[s])
            } else if exchange && s == 1 {
                // Labelled as the set it is exchanged with, position by position.
                let first = &sets[0];
                let mut labels = vec![0u8; size];
                for (i, &j) in exchange_perm.iter().enumerate() {
                    labels[j] = first.labels[i];
                }
                SetSpec {
                    orientations: orientations[s],
                    labels,
                    solved_orient: first.solved_orient.clone(),
                }
            } else if rng.percent(40) {
                // Identical pieces: one label per group of the map's cycles.
                let local = &local_maps[s];
                let mut cycle = vec![usize::MAX; size];
                let mut n_cycles = 0;
                for start in 0..size {
                    let mut i = start;
                    while cycle[i] == usize::MAX {
                        cycle[i] = n_cycles;
                        i = local[i];
                    }
                    if cycle[start] == n_cycles {
                        n_cycles += 1;
                    }
                }
                let groups = rng.range(1, n_cycles);
                let mut group_of: Vec<usize> =
                    (0..n_cycles).map(|c| if c < groups { c } else { rng.below(groups) }).collect();
                rng.shuffle(&mut group_of);
                let labels: Vec<u8> = cycle.iter().map(|&c| group_of[c] as u8).collect();
                let n_labels = *labels.iter().max().unwrap() as usize + 1;
                // Labels every group uses, numbered as they come.
                let mut rename = vec![u8::MAX; n_labels];
                let mut next = 0;
                let labels: Vec<u8> = labels
                    .iter()
                    .map(|&l| {
                        if rename[l as usize] == u8::MAX {
                            rename[l as usize] = next;
                            next += 1;
                        }
                        rename[l as usize]
                    })
                    .collect();
                let solved_orient = random_solved_orient(rng, next as usize, orientations[s]);
                SetSpec { orientations: orientations[s], labels, solved_orient }
            } else {
                let mut set = random_set(rng, size, orientations[s]);
                let mut distinct: Vec<u8> = (0..size as u8).collect();
                if rng.percent(30) {
                    rng.shuffle(&mut distinct);
                }
                set.labels = distinct;
                set.solved_orient = random_solved_orient(rng, size, orientations[s]);
                // A piece the map carries onto one whose orientation is seen is seen too.
                let local = &local_maps[s];
                for start in 0..size {
                    let unseen = set.solved_orient[set.labels[start] as usize].is_none();
                    let mut i = local[start];
                    while i != start {
                        let o = &mut set.solved_orient[set.labels[i] as usize];
                        if unseen {
                            *o = None;
                        } else if o.is_none() {
                            *o = Some(0);
                        }
                        i = local[i];
                    }
                }
                set
            };
            sets.push(set);
        }
        // Turns the map adds: any per cell where pieces are distinct (a piece's turn is
        // counted from its solved orientation, so the solved board stays solved), none where
        // they are not (identical pieces would be told apart).
        let with_offsets = rng.percent(30);
        let mut offsets = Vec::with_capacity(n);
        for set in &sets {
            let distinct = set.solved_orient.len() == set.size() || !keeps_solved;
            for _ in 0..set.size() {
                let turn = with_offsets && distinct && set.orientations > 1;
                offsets.push(if turn { rng.below(set.orientations as usize) as u8 } else { 0 });
            }
        }
        let map = CellMap { cells: map, reverses, offsets, keeps_solved };
        if map.cells.iter().enumerate().all(|(i, &j)| j as usize == i)
            && !reverses
            && map.offsets.iter().all(|&o| o == 0)
        {
            continue;
        }
        // One or two random moves, then their images under the map until there are no new
        // ones.
        let modulus: Vec<u8> =
            sets.iter().flat_map(|s| std::iter::repeat_n(s.orientations, s.size())).collect();
        let mut moves: Vec<FlatMove> = Vec::new();
        for _ in 0..rng.range(1, 2) {
            let base = random_move(rng, &sets, &rings);
            if !moves.contains(&base) {
                moves.push(base);
            }
        }
        let mut at = 0;
        while at < moves.len() && moves.len() <= 12 {
            let image = moves[at].conjugated_by(&map, &modulus);
            if !moves.contains(&image) {
                moves.push(image);
            }
            at += 1;
        }
        if moves.len() > 12 {
            continue;
        }
        let metric = random_metric(rng);
        return Spec { sets, moves, metric, symmetry: Some(map) };
    }
}

// ---------------------------------------------------------------------------------------
// The engine.

/// The engine's puzzle from the definition's text, as `def:FILE` reads it (sets that tell
/// no boards apart left out, sets with no orientation seen searched without them).
fn engine_puzzle(text: &str, metric: Metric) -> twirl::Result<Puzzle> {
    let defined = Defined::from_file("random.tws", Definition::parse(text)?)?;
    Puzzle::new(&PuzzleSpec::Def(Arc::new(defined)), metric)
}

/// What a ranking is, for the tally of those exercised.
fn ranking_kind(space: &StateSpace) -> String {
    match &space.ranking {
        Ranking::Layout(l) if l.n_reachable() < l.n_states() => {
            "layout searching a larger space".into()
        }
        Ranking::Layout(l) if l.cell_runs().is_some() => "layout with cell runs".into(),
        Ranking::Layout(l) if l.xor_block_bits().is_some() => "layout with XOR runs".into(),
        Ranking::Layout(_) => "layout".into(),
        Ranking::Enumerated(_) => "listed boards".into(),
        Ranking::Multiset(m) => {
            let mut kind = String::from("multiset");
            if m.signs_free() {
                kind += ", signs free";
            }
            if m.coordinate_tables().is_some() {
                kind += ", per-move coordinate tables";
            }
            if m.n_reachable() < m.n_states() {
                kind += ", searching a larger space";
            }
            kind
        }
        Ranking::Chain(_) => "stabilizer chain".into(),
        Ranking::Fibres(f) if f.walks_runs() => "projection and fibres, in runs".into(),
        Ranking::Fibres(_) => "projection and fibres".into(),
        Ranking::Classes(c) => format!("classes ({})", first_words(&c.describe())),
        Ranking::CoordClasses(_) => "classes of coordinates".into(),
        Ranking::FibreClasses(_) => "classes of fibres".into(),
        Ranking::FlipClasses(_) => "classes of flips".into(),
    }
}

/// The first words of a description, up to a digit (what kind, not how many).
fn first_words(text: &str) -> String {
    let words: Vec<&str> = text
        .split_whitespace()
        .take_while(|w| !w.starts_with(|c: char| c.is_ascii_digit()))
        .collect();
    words.join(" ")
}

/// Definitions with at most this many boards get every search of [`configs`] and the
/// unique-solution count; larger ones the search by runs and one other.
const THOROUGH_BOARDS: u64 = 20_000;

/// The searches a ranking gets: by runs with the direction chosen by frontier sizes (whose
/// table is read back), board by board, and by runs in each direction alone (one with each
/// run's images worked out every time). Past [`THOROUGH_BOARDS`], the first and the one
/// `pick` chooses.
fn configs(boards: u64, pick: usize) -> Vec<(&'static str, Config)> {
    let mut all = vec![
        ("runs", Config::new(2)),
        ("board by board", Config { runs: false, ..Config::new(2) }),
        ("runs forward", Config { direction: Some(Direction::Forward), ..Config::new(2) }),
        (
            "runs backward, no run graph",
            Config { direction: Some(Direction::Backward), run_graph: false, ..Config::new(2) },
        ),
    ];
    if boards > THOROUGH_BOARDS {
        let other = all.swap_remove(1 + pick % 3);
        all.truncate(1);
        all.push(other);
    }
    all
}

/// A disagreement with the naive search, or a panic or error where none is allowed.
#[derive(Debug)]
struct Finding {
    mode: String,
    what: String,
}

/// Tallies of what the cases covered, seconds spent per phase, and notes that are no
/// failure (symmetries the engine missed cost speed, not correctness).
#[derive(Default)]
struct Tally {
    counts: BTreeMap<String, usize>,
    seconds: BTreeMap<String, f64>,
    notes: Vec<String>,
}

impl Tally {
    fn add(&mut self, key: impl Into<String>) {
        *self.counts.entry(key.into()).or_default() += 1;
    }

    fn time<T>(&mut self, phase: &str, f: impl FnOnce() -> T) -> T {
        let start = std::time::Instant::now();
        let out = f();
        *self.seconds.entry(phase.into()).or_default() += start.elapsed().as_secs_f64();
        out
    }
}

fn panic_text(payload: Box<dyn std::any::Any + Send>) -> String {
    match payload.downcast::<String>() {
        Ok(s) => *s,
        Err(p) => p.downcast_ref::<&str>().map(|s| s.to_string()).unwrap_or_else(|| "panic".into()),
    }
}

/// The label and raw orientation per cell of a naive board, as the engine reads boards.
fn engine_board(
    spec: &Spec,
    model: &Model,
    puzzle: &Puzzle,
    key: u128,
) -> twirl::Result<twirl::puzzle::Board> {
    let (labels, orient) = model.unpack(key);
    puzzle.parse_board(&spec.board_text(&labels, &orient))
}

/// A search of `space` from the solved board (or from the ranks `starts`), with its table;
/// an error or a panic as text.
fn search(
    puzzle: &Puzzle,
    space: &StateSpace,
    starts: Option<&[u64]>,
    config: &Config,
) -> Result<(Outcome, DistanceTable), String> {
    let run = catch_unwind(AssertUnwindSafe(|| {
        let n = space.n_states();
        let table = match config.unique {
            true => DistanceTable::in_memory_unique(n),
            false => DistanceTable::in_memory(n),
        }
        .map_err(|e| format!("error: {e}"))?;
        let out = match starts {
            None => search_puzzle(puzzle, space, &table, config, &NoProgress),
            Some(starts) => {
                run_in(space, starts, &table, config, &NoProgress, &NoJournal, None, &Single)
            }
        };
        Ok((out.map_err(|e| format!("error: {e}"))?, table))
    }));
    run.unwrap_or_else(|p| Err(format!("panic: {}", panic_text(p))))
}

/// The labels and raw orientations of a board as the engine writes it
/// (`ONE 1 2 2 / 0 1 0 ; TWO ...`).
/// Sets the engine leaves out of its boards (every piece alike, no orientation seen) are
/// solved; sets it writes without orientations have them unseen.
fn read_engine_text(spec: &Spec, text: &str) -> Option<(Vec<u8>, Vec<u8>)> {
    let parts: Vec<(&str, Vec<u8>)> = (text.split(';'))
        .map(|part| {
            let mut tokens = part.split_whitespace();
            let name = tokens.next()?;
            let numbers: Option<Vec<u8>> =
                tokens.filter(|&t| t != "/").map(|t| t.parse().ok()).collect();
            Some((name, numbers?))
        })
        .collect::<Option<_>>()?;
    let (mut labels, mut orient) = (Vec::new(), Vec::new());
    for (set, name) in spec.sets.iter().zip(SET_NAMES) {
        let Some((_, numbers)) = parts.iter().find(|(n, _)| *n == name) else {
            labels.extend_from_slice(&set.labels);
            orient.extend(std::iter::repeat_n(0, set.size()));
            continue;
        };
        labels.extend(numbers.get(..set.size())?.iter().map(|l| l - 1));
        match numbers.len() == set.size() {
            true => orient.extend(std::iter::repeat_n(0, set.size())),
            false => orient.extend_from_slice(numbers.get(set.size()..2 * set.size())?),
        }
    }
    (parts.len() <= spec.sets.len() && labels.len() == spec.n_cells()).then_some((labels, orient))
}

/// Each cell of the definition's the engine's cell for it (`None` for a set left out), and
/// whether its set is searched without orientations.
fn engine_cells(spec: &Spec, puzzle: &Puzzle) -> (Vec<Option<usize>>, Vec<bool>) {
    let defined = puzzle.defined().expect("a definition");
    let left_out: Vec<&str> =
        defined.left_out_sets().iter().map(|(s, _)| s.name.as_str()).collect();
    let unoriented: Vec<&str> = defined.unoriented_sets().iter().map(|s| s.name.as_str()).collect();
    let (mut cells, mut turnless, mut next) = (Vec::new(), Vec::new(), 0);
    for (set, name) in spec.sets.iter().zip(SET_NAMES) {
        for _ in 0..set.size() {
            let kept = !left_out.contains(&name);
            cells.push(kept.then_some(next));
            turnless.push(unoriented.contains(&name));
            next += usize::from(kept);
        }
    }
    (cells, turnless)
}

/// Searches one ranking every way and compares with the naive search: the histogram in
/// boards, the number of boards, the distances read back for some boards by rank, the
/// antipodes' boards, and (where the ranking is of boards) the boards with one shortest
/// solution.
#[allow(clippy::too_many_arguments)] // what one check reads and where it reports
fn check_space(
    spec: &Spec,
    model: &Model,
    naive: &Naive,
    puzzle: &Puzzle,
    space: &StateSpace,
    mode: &str,
    findings: &mut Vec<Finding>,
    tally: &mut Tally,
) {
    let total: u64 = naive.histogram.iter().sum();
    if space.n_boards() != BigUint::from(total) {
        findings.push(Finding {
            mode: mode.into(),
            what: format!("n_boards {} (naive {total})", space.n_boards()),
        });
    }
    let mut finding = |what: &str, found: String| {
        findings.push(Finding { mode: format!("{mode}, {what}"), what: found });
    };
    for (name, config) in configs(total, mode.len() + total as usize) {
        // A backward step walks every rank not yet reached: in a space far larger than its
        // boards, every step walks the whole space (the engine's choice of direction never
        // takes it there).
        if config.direction == Some(Direction::Backward) && space.n_reachable() < space.n_states() {
            continue;
        }
        let run =
            tally.time(&format!("search {mode}: {name}"), || search(puzzle, space, None, &config));
        let (out, table) = match run {
            Ok(found) => found,
            Err(e) => {
                finding(name, e);
                continue;
            }
        };
        if out.board_histogram() != naive.histogram.as_slice() || !out.complete {
            let found =
                format!("histogram {:?}, naive {:?}", out.board_histogram(), naive.histogram);
            finding(name, found);
            continue;
        }
        if name != "runs" {
            continue;
        }
        // Distances read back by rank, as `distance` reads them.
        let step = (naive.distance.len() / BOARDS_LOOKED_UP).max(1);
        for (&key, &d) in naive.distance.iter().step_by(step) {
            let looked_up = catch_unwind(AssertUnwindSafe(|| {
                let board = engine_board(spec, model, puzzle, key)?;
                space.rank_board(&board).map(|r| table.get(r))
            }));
            let (labels, orient) = model.unpack(key);
            let board = spec.board_text(&labels, &orient);
            let wrong = match looked_up {
                Ok(Ok(mark)) if mark == mark_of(d) => continue,
                Ok(Ok(mark)) => format!("mark {mark}, not {}", mark_of(d)),
                Ok(Err(e)) => format!("error: {e}"),
                Err(p) => format!("panic: {}", panic_text(p)),
            };
            finding("distance", format!("`{board}` at distance {d}: {wrong}"));
        }
        // The antipodes' boards (representatives of classes) are as far as any.
        let far = naive.histogram.len() as u32 - 1;
        for &rank in out.antipodes.iter().take(8) {
            let text = catch_unwind(AssertUnwindSafe(|| puzzle.format_board(&space.board(rank))));
            let text = match text {
                Ok(text) => text,
                Err(p) => {
                    finding("antipodes", format!("rank {rank}: panic: {}", panic_text(p)));
                    continue;
                }
            };
            let at = read_engine_text(spec, &text).and_then(|(labels, orient)| {
                naive.distance.get(&model.pack(&labels, &orient)).copied()
            });
            if at != Some(far) {
                finding("antipodes", format!("rank {rank}, `{text}`, is at {at:?}, not {far}"));
            }
        }
    }
    // Unique shortest solutions are counted on boards, never on classes.
    if space.entry_classes().is_none() && total <= 5 * THOROUGH_BOARDS {
        let config = Config { unique: true, runs: false, ..Config::new(2) };
        let run =
            tally.time(&format!("search {mode}: unique"), || search(puzzle, space, None, &config));
        match run {
            Ok((out, _)) if out.unique_histogram.as_ref() == Some(&naive.unique) => {}
            Ok((out, _)) => finding(
                "unique",
                format!("unique {:?}, naive {:?}", out.unique_histogram, naive.unique),
            ),
            Err(e) => finding("unique", e),
        }
    }
}

/// `check`'s verdicts on reachable boards and on boards shuffled at random.
fn check_verdicts(
    spec: &Spec,
    model: &Model,
    naive: &Naive,
    puzzle: &Puzzle,
    rng: &mut Rng,
    findings: &mut Vec<Finding>,
) {
    let checker = match catch_unwind(AssertUnwindSafe(|| Checker::new(puzzle))) {
        Ok(Ok(c)) => c,
        Ok(Err(e)) => {
            findings.push(Finding { mode: "check".into(), what: format!("error: {e}") });
            return;
        }
        Err(p) => {
            findings
                .push(Finding { mode: "check".into(), what: format!("panic: {}", panic_text(p)) });
            return;
        }
    };
    let reachable: Vec<u128> = naive
        .distance
        .keys()
        .copied()
        .step_by((naive.distance.len() / (BOARDS_CHECKED / 2)).max(1))
        .collect();
    let (solved_labels, _) = model.unpack(model.solved);
    let mut boards: Vec<(Vec<u8>, Vec<u8>)> = reachable.iter().map(|&k| model.unpack(k)).collect();
    for _ in 0..BOARDS_CHECKED / 2 {
        // Each set's pieces shuffled, any orientations (those of `?` pieces too).
        let mut labels = solved_labels.clone();
        let mut at = 0;
        for set in &spec.sets {
            rng.shuffle(&mut labels[at..at + set.size()]);
            at += set.size();
        }
        let orient: Vec<u8> = model.modulus.iter().map(|&m| rng.below(m as usize) as u8).collect();
        boards.push((labels, orient));
    }
    for (labels, orient) in boards {
        let key = model.pack(&labels, &orient);
        let solvable = naive.distance.contains_key(&key);
        let text = spec.board_text(&labels, &orient);
        let verdict =
            catch_unwind(AssertUnwindSafe(|| puzzle.parse_board(&text).map(|b| checker.check(&b))));
        let says = match verdict {
            Ok(Ok(Verdict::Solvable)) => "solvable".to_string(),
            Ok(Ok(Verdict::Unsolvable(why))) => format!("unsolvable ({})", why.join("; ")),
            Ok(Err(e)) => format!("error: {e}"),
            Err(p) => format!("panic: {}", panic_text(p)),
        };
        if says.starts_with("solvable") != solvable {
            findings.push(Finding {
                mode: "check".into(),
                what: format!(
                    "`{text}` is {}solvable, check says {says}",
                    if solvable { "" } else { "not " }
                ),
            });
        }
    }
}

/// A ranking built by `make`, or why not; a panic is a finding, an error is not (these are
/// rankings the engine picks only past sizes these definitions never reach, or may refuse).
fn forced(
    mode: &str,
    tally: &mut Tally,
    findings: &mut Vec<Finding>,
    make: impl FnOnce() -> twirl::Result<StateSpace>,
) -> Option<StateSpace> {
    match tally.time(&format!("forced {mode}"), || catch_unwind(AssertUnwindSafe(make))) {
        Ok(Ok(space)) => Some(space),
        Ok(Err(e)) => {
            tally.add(format!("refused: {mode}: {}", short(&e.to_string())));
            None
        }
        Err(p) => {
            findings.push(Finding {
                mode: format!("{mode} (building)"),
                what: format!("panic: {}", panic_text(p)),
            });
            None
        }
    }
}

/// The reason of an error with its numbers left out, for the tally.
fn short(text: &str) -> String {
    let words: Vec<String> = text
        .split_whitespace()
        .map(
            |w| if w.chars().any(|c| c.is_ascii_digit()) { "N".to_string() } else { w.to_string() },
        )
        .take(14)
        .collect();
    words.join(" ")
}

/// Whether the symmetries found hold one acting as the cell map `map` does (reversing
/// orientations if `reverses`) on the cells whose content some reachable board changes: on
/// the others (pieces no move moves, orbits of identical pieces) maps may differ unseen.
fn finds_map(
    spec: &Spec,
    model: &Model,
    naive: &Naive,
    (puzzle, syms): (&Puzzle, &Symmetries),
    map: &CellMap,
) -> bool {
    let changed = naive.distance.keys().fold(0u128, |acc, &k| acc | (k ^ model.solved));
    let seen: Vec<usize> =
        (0..model.n).filter(|&c| (changed >> (CELL_BITS * c)) & CELL_MASK != 0).collect();
    // Cells where some reachable board shows a turn that reversing changes (other than a
    // half turn), counted from the piece's solved orientation.
    let modulus = spec.modulus();
    let solved_orient: Vec<&[Option<u8>]> = spec
        .sets
        .iter()
        .flat_map(|s| std::iter::repeat_n(&s.solved_orient[..], s.size()))
        .collect();
    let mut reversal_shows = vec![false; model.n];
    for &key in naive.distance.keys() {
        let (labels, orient) = model.unpack(key);
        for c in 0..model.n {
            if let Some(home) = solved_orient[c][labels[c] as usize] {
                let turn = (orient[c] + modulus[c] - home) % modulus[c];
                reversal_shows[c] |= !(2 * turn).is_multiple_of(modulus[c]);
            }
        }
    }
    // Offsets count relative to the first cell of the cell's orbit, in the engine's turns,
    // on the engine's cells (a set left out never changes: no cell of it is seen).
    let (to_engine, turnless) = engine_cells(spec, puzzle);
    let mut from_engine = vec![0; model.n];
    for (c, e) in to_engine.iter().enumerate() {
        if let Some(e) = *e {
            from_engine[e] = c;
        }
    }
    let k = syms.orient_mod.max(1);
    let step = |c: usize| k / modulus[c];
    syms.elements.iter().any(|e| {
        seen.iter().all(|&c| {
            let (Some(ec), Some(image)) = (to_engine[c], to_engine[map.cells[c] as usize]) else {
                return false;
            };
            let root = syms.root[ec] as usize;
            let offset = (e.offsets[ec] % k + k - e.offsets[root] % k) % k;
            let root = from_engine[root];
            let expected = (map.offsets[c] + modulus[c] - map.offsets[root]) % modulus[c] * step(c);
            usize::from(e.cells[ec]) == image
                && (turnless[c] || offset == expected)
                && (!reversal_shows[c] || e.reverses == map.reverses)
        })
    })
}

/// Every check of one definition against its naive search.
fn check_definition(
    spec: &Spec,
    model: &Model,
    naive: &Naive,
    seed: u64,
    tally: &mut Tally,
) -> Vec<Finding> {
    let mut findings = Vec::new();
    let text = spec.to_tws();
    let puzzle = match engine_puzzle(&text, spec.metric) {
        Ok(p) => p,
        Err(e) => {
            findings.push(Finding { mode: "reading".into(), what: e.to_string() });
            return findings;
        }
    };
    let defined = puzzle.defined().expect("a definition");
    if !defined.left_out_sets().is_empty() {
        tally.add("read: sets left out (pieces alike, orientations unseen)");
    }
    if !defined.unoriented_sets().is_empty() {
        tally.add("read: sets searched without orientations (none seen)");
    }
    let total: u64 = naive.histogram.iter().sum();
    let analysis = match catch_unwind(AssertUnwindSafe(|| Analysis::of(&puzzle))) {
        Ok(Ok(a)) => a,
        Ok(Err(e)) => {
            findings.push(Finding { mode: "analysis".into(), what: format!("error: {e}") });
            return findings;
        }
        Err(p) => {
            findings.push(Finding {
                mode: "analysis".into(),
                what: format!("panic: {}", panic_text(p)),
            });
            return findings;
        }
    };
    let identical = puzzle.has_identical_pieces();
    let exact = analysis.invariants_are_exact();
    tally.add(format!(
        "group {}",
        if exact { "as its invariants allow" } else { "smaller than its invariants" }
    ));
    if !identical && analysis.group_order != BigUint::from(total) {
        findings.push(Finding {
            mode: "analysis".into(),
            what: format!("group order {} (naive {total})", analysis.group_order),
        });
    }

    // Symmetries found from the moves; the map the moves were closed under among them.
    let syms =
        tally.time("symmetries", || catch_unwind(AssertUnwindSafe(|| Symmetries::of(&puzzle))));
    let syms = match syms {
        Ok(s) => s,
        Err(p) => {
            findings.push(Finding {
                mode: "symmetries".into(),
                what: format!("panic: {}", panic_text(p)),
            });
            return findings;
        }
    };
    tally.add(format!(
        "symmetries found: {}",
        if syms.order() > 1 { "some" } else { "identity only" }
    ));
    if syms.gave_up {
        tally.add("symmetries: search gave up");
    }
    if let Some(map) = spec.symmetry.as_ref().filter(|m| m.keeps_solved) {
        if syms.gave_up {
            tally.add("generated symmetry: search gave up");
        } else if finds_map(spec, model, naive, (&puzzle, &syms), map) {
            tally.add("generated symmetry: found");
        } else {
            tally.add("generated symmetry: missed");
            tally.notes.push(format!(
                "seed {seed}: the map the moves were closed under is not among the {} \
                 symmetries found: {map:?}",
                syms.order()
            ));
        }
    }

    // The public routes: boards, and classes (which may be refused).
    match tally.time("build", || catch_unwind(AssertUnwindSafe(|| StateSpace::build(&puzzle)))) {
        Ok(Ok(space)) => {
            tally.add(format!("build: {}", ranking_kind(&space)));
            check_space(spec, model, naive, &puzzle, &space, "build", &mut findings, tally);
        }
        Ok(Err(e)) => findings.push(Finding { mode: "build".into(), what: format!("error: {e}") }),
        Err(p) => findings
            .push(Finding { mode: "build".into(), what: format!("panic: {}", panic_text(p)) }),
    }
    for inversion in [true, false] {
        let mode = if inversion { "symmetry on" } else { "symmetry on, no inversion" };
        let built = tally.time("build classes", || {
            catch_unwind(AssertUnwindSafe(|| {
                StateSpace::for_search_with(&puzzle, SymmetryMode::On, false, inversion)
            }))
        });
        match built {
            Ok(Ok(space)) => {
                let order = match &space.ranking {
                    Ranking::Classes(c) => c.order(),
                    Ranking::CoordClasses(c) => c.order(),
                    Ranking::FibreClasses(c) => c.order(),
                    _ => 1,
                };
                tally.add(format!("{mode}: {}", ranking_kind(&space)));
                if order > 1 {
                    tally.add(format!("{mode}: classes of order > 1"));
                }
                check_space(spec, model, naive, &puzzle, &space, mode, &mut findings, tally);
            }
            Ok(Err(e)) => tally.add(format!("refused: {mode}: {}", short(&e.to_string()))),
            Err(p) => findings
                .push(Finding { mode: mode.into(), what: format!("panic: {}", panic_text(p)) }),
        }
    }

    // Rankings the engine takes only past sizes these definitions reach, built directly.
    let with = |ranking: Ranking| StateSpace {
        analysis: analysis.clone(),
        ranking,
        definition_digest: puzzle.definition_digest(),
    };
    let invariants = &analysis.invariants;
    let order = &analysis.group_order;
    let mut spaces: Vec<(&str, StateSpace)> = Vec::new();
    if !identical {
        if let Some(s) = forced("chain", tally, &mut findings, || {
            ChainRanking::new(&puzzle, invariants.clone(), order).map(|c| with(Ranking::Chain(c)))
        }) {
            spaces.push(("chain", s));
        }
        if !exact
            && let Some(s) = forced("layout searching", tally, &mut findings, || {
                let layout = Layout::without_runs(&puzzle, invariants.clone())?.searching_in(total);
                // Searching a space far larger than the group walks it whole, for minutes.
                if layout.n_states() > 1 << 22 {
                    return Err(twirl::Error::Unsupported("more than 2^22 ranks".into()));
                }
                Ok(with(Ranking::Layout(layout)))
            })
        {
            spaces.push(("layout searching", s));
        }
    }
    if identical && !exact {
        // Both multiset spaces, searched until they hold the boards: signs tied as the
        // invariants tie them, and (where its digits move by tables) every sign free.
        if let Some(s) = forced("multiset searching", tally, &mut findings, || {
            let m = Multiset::new(&puzzle, invariants.clone())?;
            if m.n_states() > 1 << 26 {
                return Err(twirl::Error::Unsupported("more than 2^26 ranks".into()));
            }
            Ok(with(Ranking::Multiset(m.searching_in(total))))
        }) {
            spaces.push(("multiset searching", s));
        }
        if let Some(s) = forced("multiset signs free", tally, &mut findings, || {
            let m = Multiset::with_free_signs(&puzzle, invariants.clone())?;
            if m.n_states() > 1 << 26 || m.coordinate_tables().is_none() {
                return Err(twirl::Error::Unsupported("more than 2^26 ranks or no tables".into()));
            }
            Ok(with(Ranking::Multiset(m.searching_in(total))))
        }) {
            spaces.push(("multiset signs free", s));
        }
        let fibres = forced("fibres", tally, &mut findings, || {
            FibreRanking::new(&puzzle, invariants, order, 1).map(|f| with(Ranking::Fibres(f)))
        });
        if let Some(space) = fibres {
            let Ranking::Fibres(f) = &space.ranking else { unreachable!() };
            let f = f.clone();
            if let Some(s) = forced("fibre classes", tally, &mut findings, || {
                FibreClasses::new(&puzzle, f, syms.clone()).map(|c| with(Ranking::FibreClasses(c)))
            }) {
                spaces.push(("fibre classes", s));
            }
            spaces.push(("fibres", space));
        }
    }
    for (mode, space) in &spaces {
        tally.add(format!("forced {mode}: {}", ranking_kind(space)));
        check_space(spec, model, naive, &puzzle, space, mode, &mut findings, tally);
    }

    let mut rng = Rng::new(seed ^ 0xC4EC);
    tally.time("check", || check_verdicts(spec, model, naive, &puzzle, &mut rng, &mut findings));
    let start = std::time::Instant::now();
    check_goals(spec, model, naive, &puzzle, &mut rng, &mut findings, tally);
    *tally.seconds.entry("goals".into()).or_default() += start.elapsed().as_secs_f64();
    findings
}

/// Searches from a few goals (reachable boards, read as `bfs --goals` reads them), by boards
/// and by classes where the symmetries keep the goal set, against the naive search from them.
fn check_goals(
    spec: &Spec,
    model: &Model,
    naive: &Naive,
    puzzle: &Puzzle,
    rng: &mut Rng,
    findings: &mut Vec<Finding>,
    tally: &mut Tally,
) {
    let boards: Vec<u128> = naive.distance.keys().copied().collect();
    let mut keys: Vec<u128> =
        (0..rng.range(1, 3)).map(|_| boards[rng.below(boards.len())]).collect();
    keys.sort_unstable();
    keys.dedup();
    let lines: Vec<String> = keys
        .iter()
        .map(|&k| {
            let (labels, orient) = model.unpack(k);
            spec.board_text(&labels, &orient)
        })
        .collect();
    let text = lines.join("\n");
    let expected = model.search_from(&keys, usize::MAX).expect("no cap").histogram;
    let mut finding = |mode: &str, what: String| {
        findings.push(Finding {
            mode: format!("goals, {mode}"),
            what: format!("{what}; goals:\n{text}"),
        });
    };
    let goals = match catch_unwind(AssertUnwindSafe(|| Goals::parse(puzzle, "goals", &text))) {
        Ok(Ok(g)) => g,
        Ok(Err(e)) => return finding("reading", format!("error: {e}")),
        Err(p) => return finding("reading", format!("panic: {}", panic_text(p))),
    };
    for mode in [SymmetryMode::Off, SymmetryMode::On] {
        let built = catch_unwind(AssertUnwindSafe(|| {
            let space = Goals::space_for_search(Some(&goals), puzzle, mode, false)?;
            let starts = Goals::starts(Some(&goals), puzzle, &space)?;
            Ok::<_, twirl::Error>((space, starts))
        }));
        let (space, starts) = match built {
            Ok(Ok(found)) => found,
            Ok(Err(e)) if mode == SymmetryMode::On => {
                tally.add(format!("refused: goals, symmetry on: {}", short(&e.to_string())));
                continue;
            }
            Ok(Err(e)) => {
                finding(&format!("{mode:?}"), format!("error: {e}"));
                continue;
            }
            Err(p) => {
                finding(&format!("{mode:?}"), format!("panic: {}", panic_text(p)));
                continue;
            }
        };
        tally.add(format!("goals, symmetry {mode:?}: {}", ranking_kind(&space)));
        for config in [Config::new(2), Config { runs: false, ..Config::new(2) }] {
            match search(puzzle, &space, Some(&starts), &config) {
                Ok((out, _)) if out.board_histogram() == expected.as_slice() => {}
                Ok((out, _)) => finding(
                    &format!("{mode:?}, runs {}", config.runs),
                    format!("histogram {:?}, naive {expected:?}", out.board_histogram()),
                ),
                Err(e) => finding(&format!("{mode:?}, runs {}", config.runs), e),
            }
        }
    }
}

/// Generates and checks the definitions of `seeds` with at most `max_boards` boards, on two
/// threads taking seeds in turn; returns the failures, each with its seed and definition, in
/// the order of the seeds.
fn run_seeds(seeds: Vec<u64>, max_boards: usize) -> (Tally, Vec<(u64, String, Vec<Finding>)>) {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let take = || seeds.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed)).copied();
    let results: Vec<_> = std::thread::scope(|scope| {
        let workers: Vec<_> =
            (0..2).map(|_| scope.spawn(|| run_seeds_here(&take, max_boards))).collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("a worker panicked outside the checks"))
            .collect()
    });
    let mut tally = Tally::default();
    let mut failures = Vec::new();
    for (t, f) in results {
        for (key, count) in t.counts {
            *tally.counts.entry(key).or_default() += count;
        }
        for (phase, seconds) in t.seconds {
            *tally.seconds.entry(phase).or_default() += seconds;
        }
        tally.notes.extend(t.notes);
        failures.extend(f);
    }
    failures.sort_by_key(|f| f.0);
    tally.notes.sort();
    (tally, failures)
}

/// [`run_seeds`] on this thread.
fn run_seeds_here(
    take: &dyn Fn() -> Option<u64>,
    max_boards: usize,
) -> (Tally, Vec<(u64, String, Vec<Finding>)>) {
    let mut tally = Tally::default();
    let mut failures = Vec::new();
    while let Some(seed) = take() {
        let mut rng = Rng::new(seed);
        let spec =
            if rng.percent(40) { random_symmetric_spec(&mut rng) } else { random_spec(&mut rng) };
        let model = Model::new(&spec);
        let Some(naive) = tally.time("naive", || model.search(max_boards)) else {
            tally.add("dropped: too many boards");
            continue;
        };
        tally.add("definitions");
        tally.add(format!("metric {:?}", spec.metric));
        tally.add(format!("{} sets", spec.sets.len()));
        if spec.symmetry.is_some() {
            tally.add("generated symmetric");
        }
        if spec.has_identical_pieces() {
            tally.add("with identical pieces");
        }
        if spec.has_unseen() {
            tally.add("with `?` orientations");
        }
        if spec.has_solved_turns() {
            tally.add("with turned solved pieces");
        }
        let most = spec.sets.iter().map(|s| s.orientations).max().unwrap();
        tally.add(format!("orientations up to {most}"));
        let start = std::time::Instant::now();
        let findings = check_definition(&spec, &model, &naive, seed, &mut tally);
        *tally.seconds.entry("engine".into()).or_default() += start.elapsed().as_secs_f64();
        if !findings.is_empty() {
            failures.push((seed, spec.to_tws(), findings));
        }
    }
    (tally, failures)
}

/// Prints the tally and fails with every finding (definitions in full).
fn report(tally: &Tally, failures: &[(u64, String, Vec<Finding>)]) {
    for (key, count) in &tally.counts {
        eprintln!("{count:8}  {key}");
    }
    for (phase, seconds) in &tally.seconds {
        eprintln!("{seconds:8.2}s {phase}");
    }
    for note in &tally.notes {
        eprintln!("note: {note}");
    }
    if failures.is_empty() {
        return;
    }
    // Each kind of finding once in full (its first definition), then every seed by kind.
    let mut by_kind: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    let mut text = format!("{} definitions disagree with the naive search\n", failures.len());
    for (seed, tws, findings) in failures {
        for f in findings {
            let kind = format!("{}: {}", f.mode, short(&f.what));
            let seeds = by_kind.entry(kind).or_default();
            if seeds.is_empty() {
                text += &format!("\nseed {seed}, {}: {}\n{tws}", f.mode, f.what);
            }
            if seeds.last() != Some(seed) {
                seeds.push(*seed);
            }
        }
    }
    text += "\n";
    for (kind, seeds) in &by_kind {
        text += &format!("{kind}: seeds {seeds:?}\n");
    }
    panic!("{text}");
}

/// Random definitions against the naive search: several hundred, every ranking.
#[test]
fn random_definitions_match_the_naive_search() {
    let (tally, failures) = run_seeds((0..200).collect(), 100_000);
    report(&tally, &failures);
}

/// Replays the seeds listed in `RANDOM_DEFINITION_SEEDS` (`5,116`): a failure's definition
/// and findings again.
#[test]
#[ignore = "replays the seeds of RANDOM_DEFINITION_SEEDS"]
fn replay_seeds() {
    let seeds = std::env::var("RANDOM_DEFINITION_SEEDS").unwrap_or_default();
    let seeds = seeds.split(',').filter_map(|s| s.trim().parse().ok()).collect();
    let (tally, failures) = run_seeds(seeds, MAX_BOARDS);
    report(&tally, &failures);
}

/// Writes the definitions of the seeds in `RANDOM_DEFINITION_SEEDS` as `SEED.tws` files into
/// the directory `RANDOM_DEFINITION_DIR`, to run them through `twirl` or twsearch by hand.
#[test]
#[ignore = "writes the definitions of RANDOM_DEFINITION_SEEDS into RANDOM_DEFINITION_DIR"]
fn write_seeds() {
    let seeds = std::env::var("RANDOM_DEFINITION_SEEDS").unwrap_or_default();
    let dir = std::env::var("RANDOM_DEFINITION_DIR").expect("set RANDOM_DEFINITION_DIR");
    let dir = std::path::Path::new(&dir);
    std::fs::create_dir_all(dir).expect("a directory to write into");
    for seed in seeds.split(',').filter_map(|s| s.trim().parse::<u64>().ok()) {
        let mut rng = Rng::new(seed);
        let spec =
            if rng.percent(40) { random_symmetric_spec(&mut rng) } else { random_spec(&mut rng) };
        std::fs::write(dir.join(format!("{seed}.tws")), spec.to_tws()).expect("written");
    }
}

/// The same with more seeds and up to [`MAX_BOARDS`] boards. Long: 3,000 seeds had not
/// finished after 15 minutes on 2 cores (2026-12-03, stopped); this takes a third of them.
#[test]
#[ignore = "long: run with --ignored"]
fn random_definitions_match_the_naive_search_long() {
    let (tally, failures) = run_seeds((10_000..11_000).collect(), MAX_BOARDS);
    report(&tally, &failures);
}
