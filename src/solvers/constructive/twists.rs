//! Twist macros: move sequences that leave every tile on its cell and turn exactly two tiles,
//! by opposite amounts (`+t` and `-t`), found by search on a small window; and, for odd blocks,
//! one that leaves every tile on its cell and changes the orientation sum.
//!
//! Sum-changing macros come from powers of short words where those have them (`b = 3, 5`);
//! for `b >= 7` every such power changes the sums by a multiple of 4, so they are made by
//! scrambling a `(b+1) x (b+1)` window and bringing its tiles home with the placement solver
//! ([`placed_sums`]): long (about a thousand turns) but needed at most a few times per board.
//!
//! A pair twist is a commutator `M g M^-1 g^-1` (the cube solver's corner twist): `M` keeps
//! cell `p` in place while turning its tile by `t`, and `g` is a block turn that moves `p` but
//! touches nothing else `M` moves or turns. Then the tile of `p` gains `t`, the tile `g` brings
//! to `p` (from `p'`) gains `-t`, and the rest of `M` is undone. `M` comes from the power trick
//! of [`super::cycles`]: a short word `w` whose `k`-th power (`k` a divisor of its order) fixes
//! every cell of a cycle of length `c | k`, turning its tiles by `k/c` times the turns summed
//! around the cycle.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, OnceLock};

use super::Turn;
use super::grid::{Grid, cycles_of};
use super::turns::{inverse, simplify};

/// A twist macro on a `height x width` window: its turns, and the cells `(row, col)` whose
/// tiles it turns with the quarters each gains (every tile stays on its cell).
#[derive(Clone, Debug)]
pub(super) struct Twister {
    pub block: usize,
    pub height: usize,
    pub width: usize,
    pub turns: Vec<Turn>,
    pub twists: Vec<Twist>,
    pub qtm: usize,
}

/// A twisted cell `(row, col)` and the quarters its tile gains.
type Twist = ((usize, usize), u8);

/// The twist macros of one shape.
#[derive(Debug)]
pub(super) struct TwistMacros {
    /// Pair twists `(+t, -t)` in all their mirror images and rotations, shortest first.
    pub pairs: Vec<Twister>,
    /// For odd `b` (whose moves keep each tile on its colour, so pair twists turn two tiles of
    /// one colour): macros that change the orientation sums of the two colour classes, the
    /// shortest for each change `(s0, s1)` found.
    pub sums: Vec<Twister>,
}

type Cache = HashMap<(usize, usize, usize), Arc<TwistMacros>>;

/// The twist macros of NRP `(rows, cols, block)` (computed once per shape).
pub(super) fn twist_macros(
    rows: usize,
    cols: usize,
    block: usize,
) -> Result<Arc<TwistMacros>, String> {
    static CACHE: OnceLock<Mutex<Cache>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    let cap = 3 * block + 3;
    let key = (rows.min(cap), cols.min(cap), block);
    if let Some(found) = cache.lock().expect("twist cache").get(&key) {
        return Ok(found.clone());
    }
    let need_sum = block % 2 == 1;
    let mut pairs = Vec::new();
    let mut sums = Vec::new();
    for (h, w) in windows(rows, cols, block) {
        let (p, s) = search(&Grid { rows: h, cols: w, block });
        if pairs.is_empty() {
            pairs = p;
        }
        if sums.len() < 3 {
            sums = s;
        }
        // Changes (1,3) and (0,2), or (1,0) and (0,1), reach every allowed pair of sums.
        if !pairs.is_empty() && (sums.len() >= 3 || !need_sum) {
            break;
        }
    }
    if need_sum && !reaches_every_sum(&sums, block) {
        // The power trick finds no pure word with an odd change for b >= 7 (a word's k-th
        // power changes the sums k times over): scramble a window, re-place every tile.
        sums.extend(placed_sums(rows.min(block + 1), cols.min(block + 1), block));
    }
    if pairs.is_empty() {
        // Two blocks of 9 (a board one block high) leave the power trick nothing short.
        pairs = placed_pairs(rows.min(block + 1), cols.min(block + 1), block);
    }
    if pairs.is_empty() || (need_sum && !reaches_every_sum(&sums, block)) {
        return Err(format!("no twist macro found on ({rows},{cols},{block}) by the search"));
    }
    let found = Arc::new(TwistMacros { pairs: with_images(pairs), sums: flipped(sums) });
    cache.lock().expect("twist cache").insert(key, found.clone());
    Ok(found)
}

/// Windows to search, smallest first, each within the board.
fn windows(n: usize, m: usize, b: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for s in [b + 1, b + 2, 2 * b, 2 * b + 2, 3 * b + 3] {
        let w = (n.min(s), m.min(s));
        if !out.contains(&w) {
            out.push(w);
        }
    }
    out
}

/// A word with what it does: the tile on cell `x` goes to `dest[x]`, turned `twist[x]`.
struct Element {
    word: Vec<Turn>,
    dest: Vec<u32>,
    twist: Vec<u8>,
}

impl Element {
    fn identity(grid: &Grid) -> Element {
        Element {
            word: Vec::new(),
            dest: (0..grid.cells() as u32).collect(),
            twist: vec![0; grid.cells()],
        }
    }

    fn then(&self, grid: &Grid, t: Turn) -> Element {
        let mut dest = self.dest.clone();
        let mut twist = self.twist.clone();
        for x in 0..dest.len() {
            if holds(grid, t, dest[x] as usize) {
                twist[x] = (twist[x] + t.quarters) % 4;
                dest[x] = grid.moved(dest[x] as usize, t.top, t.left, t.quarters) as u32;
            }
        }
        let mut word = self.word.clone();
        word.push(t);
        Element { word, dest, twist }
    }

    fn of(grid: &Grid, word: &[Turn]) -> Element {
        word.iter().fold(Element::identity(grid), |e, &t| e.then(grid, t))
    }
}

fn holds(grid: &Grid, t: Turn, cell: usize) -> bool {
    let (r, c) = (cell / grid.cols, cell % grid.cols);
    r >= t.top && r < t.top + grid.block && c >= t.left && c < t.left + grid.block
}

/// Most words whose powers are tried.
const WORDS: usize = 20_000;
/// Longest power `w^k` used as `M`, in turns.
const MAX_POWER: usize = 120;
/// Pair candidates built and checked.
const BUILT: usize = 400;

/// A pair-twist candidate before its word is built: `M = w^k` (`w` the `word`-th element),
/// then `g`.
struct Candidate {
    len: usize,
    word: usize,
    k: usize,
    g: Turn,
}

fn search(grid: &Grid) -> (Vec<Twister>, Vec<Twister>) {
    let b = grid.block;
    let gens: Vec<Turn> = (0..=grid.rows - b)
        .flat_map(|top| (0..=grid.cols - b).map(move |left| (top, left)))
        .flat_map(|(top, left)| (1..=3).map(move |q| Turn { top, left, quarters: q }))
        .collect();
    let mut words: Vec<Vec<Turn>> = Vec::new();
    let mut candidates: Vec<Candidate> = Vec::new();
    // The shortest pure twist for each change of the colours' sums.
    let mut sums: HashMap<(u8, u8), Vec<Turn>> = HashMap::new();
    let mut examine = |e: &Element, words: &mut Vec<Vec<Turn>>| {
        let cycles = cycles_of(&e.dest);
        let mut order = 1usize;
        for c in &cycles {
            order = lcm(order, c.len());
            if order > 1 << 20 {
                return;
            }
        }
        let index = words.len();
        let mut used = false;
        for k in (1..=order).filter(|k| order.is_multiple_of(*k)) {
            if k * e.word.len() > MAX_POWER {
                break;
            }
            // The support of w^k and the twists of the cells it fixes.
            let mut support = vec![false; grid.cells()];
            let mut twist = vec![0u8; grid.cells()];
            for c in &cycles {
                let s: usize = c.iter().map(|&x| usize::from(e.twist[x])).sum();
                let t = if k.is_multiple_of(c.len()) { ((k / c.len()) * s % 4) as u8 } else { 4 };
                for &x in c {
                    support[x] = t != 0;
                    twist[x] = t;
                }
            }
            if k == order && b % 2 == 1 {
                let mut by_colour = (0u8, 0u8);
                for (x, &t) in twist.iter().enumerate() {
                    if (x / grid.cols + x % grid.cols).is_multiple_of(2) {
                        by_colour.0 = (by_colour.0 + t) % 4;
                    } else {
                        by_colour.1 = (by_colour.1 + t) % 4;
                    }
                }
                let len = k * e.word.len();
                if by_colour != (0, 0) && sums.get(&by_colour).is_none_or(|s| s.len() > len) {
                    sums.insert(by_colour, (0..k).flat_map(|_| e.word.iter().copied()).collect());
                }
            }
            if k == order {
                // M pure: [M, g] turns the tile of x by twist[x] - twist[g(x)].
                for &g in &gens {
                    let diff: Vec<(usize, u8)> = grid
                        .block_cells(g.top, g.left)
                        .map(|x| {
                            let y = grid.moved(x, g.top, g.left, g.quarters);
                            (x, (twist[x] + 4 - twist[y]) % 4)
                        })
                        .filter(|&(_, d)| d != 0)
                        .collect();
                    if diff.len() == 2 && (b.is_multiple_of(2) || diff[0].1 % 2 == 1) {
                        let len = 2 * k * e.word.len() + 2;
                        candidates.push(Candidate { len, word: index, k, g });
                        used = true;
                    }
                }
            }
            for (p, &t) in twist.iter().enumerate() {
                if t == 0 || t == 4 || (b % 2 == 1 && t.is_multiple_of(2)) {
                    continue;
                }
                for (top, left) in grid.blocks_holding(p, &grid.whole()) {
                    let alone = grid.block_cells(top, left).all(|x| x == p || !support[x]);
                    if alone {
                        for q in 1..=3 {
                            let g = Turn { top, left, quarters: q };
                            candidates.push(Candidate {
                                len: 2 * k * e.word.len() + 2,
                                word: index,
                                k,
                                g,
                            });
                            used = true;
                        }
                    }
                }
            }
        }
        if used {
            words.push(e.word.clone());
        }
    };
    // Words in breadth-first order (no block turned twice in a row), and commutators of turns.
    let mut queue: VecDeque<Element> = gens.iter().map(|&g| Element::of(grid, &[g])).collect();
    let mut count = 0;
    while let Some(e) = queue.pop_front() {
        count += 1;
        if count > WORDS {
            break;
        }
        examine(&e, &mut words);
        if queue.len() < WORDS {
            let last = *e.word.last().expect("non-empty word");
            for &g in &gens {
                if (g.top, g.left) != (last.top, last.left) {
                    queue.push_back(e.then(grid, g));
                }
            }
        }
    }
    for &x in &gens {
        for &y in &gens {
            if (x.top, x.left) != (y.top, y.left) {
                examine(&Element::of(grid, &[x, y, x.inverse(), y.inverse()]), &mut words);
            }
        }
    }
    candidates.sort_by_key(|c| c.len);
    let mut best: HashMap<Vec<Twist>, Twister> = HashMap::new();
    let mut tried: HashSet<(usize, usize, Turn)> = HashSet::new();
    for c in &candidates {
        if tried.len() >= BUILT {
            break;
        }
        if !tried.insert((c.word, c.k, c.g)) {
            continue;
        }
        let m: Vec<Turn> = (0..c.k).flat_map(|_| words[c.word].iter().copied()).collect();
        let mut word = m.clone();
        word.push(c.g);
        word.extend(inverse(&m));
        word.push(c.g.inverse());
        if let Some(t) = twister(grid, simplify(word))
            && t.twists.len() == 2
        {
            let key = offsets(&t);
            if best.get(&key).is_none_or(|old| old.qtm > t.qtm) {
                best.insert(key, t);
            }
        }
    }
    let mut pairs: Vec<Twister> = best.into_values().collect();
    pairs.sort_by_key(|t| (t.qtm, t.turns.len()));
    let shortest = pairs.first().map_or(0, |t| t.qtm);
    pairs.retain(|t| t.qtm <= shortest + 16);
    pairs.truncate(8);
    // Kept on the whole window (a macro's colours are those of its window's top-left).
    let sums = sums.into_values().filter_map(|w| measured(grid.rows, grid.cols, b, w)).collect();
    (pairs, sums)
}

/// What a macro adds to the orientation sums of the two colour classes (colour 0: the cells
/// `(r, c)` with `r + c` even, counted on the macro's own window).
pub(super) fn colour_change(t: &Twister) -> (u8, u8) {
    let mut d = (0u8, 0u8);
    for &((r, c), a) in &t.twists {
        if (r + c).is_multiple_of(2) {
            d.0 = (d.0 + a) % 4;
        } else {
            d.1 = (d.1 + a) % 4;
        }
    }
    d
}

/// Whether the macros' changes generate every change a pure word can make to the colour sums
/// of an odd block: all 16 for `b = 1, 7 (mod 8)`, the 8 of even total for `b = 3, 5`
/// (a pure word leaves both colours even permutations, and the rules tie the total's parity
/// to theirs).
fn reaches_every_sum(sums: &[Twister], b: usize) -> bool {
    let mut reached = HashSet::from([(0u8, 0u8)]);
    let mut stack = vec![(0u8, 0u8)];
    while let Some(s) = stack.pop() {
        for t in sums {
            let d = colour_change(t);
            let next = ((s.0 + d.0) % 4, (s.1 + d.1) % 4);
            if reached.insert(next) {
                stack.push(next);
            }
        }
    }
    reached.len() == if matches!(b % 8, 3 | 5) { 8 } else { 16 }
}

/// Sum-changing macros on a `height x width` window made by scrambling it and carrying every
/// tile home again with the placement solver (which moves tiles without regard to their turns,
/// so the pair changes the sums by whatever its turns add up to): the shortest for each
/// change, from scrambles of growing length (seeded, so every run finds the same macros)
/// until they reach every change.
fn placed_sums(height: usize, width: usize, b: usize) -> Vec<Twister> {
    let shape = super::Shape { rows: height, cols: width, block: b };
    let blocks = window_blocks(height, width, b);
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = |below: usize| {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        ((seed >> 33) % below as u64) as usize
    };
    let mut best: HashMap<(u8, u8), Twister> = HashMap::new();
    for attempt in 0..64 {
        let scramble: Vec<Turn> = (0..2 + attempt / 4)
            .map(|_| {
                let (top, left) = blocks[next(blocks.len())];
                Turn { top, left, quarters: 1 + next(3) as u8 }
            })
            .collect();
        let Some(t) = placed_pure_word(&shape, scramble) else { continue };
        let change = colour_change(&t);
        if change != (0, 0) && best.get(&change).is_none_or(|old| old.qtm > t.qtm) {
            best.insert(change, t);
        }
        let found: Vec<Twister> = best.values().cloned().collect();
        if reaches_every_sum(&found, b) {
            return found;
        }
    }
    best.into_values().collect()
}

/// The top-left corners `(top, left)` of the blocks of a `height x width` window.
fn window_blocks(height: usize, width: usize, b: usize) -> Vec<(usize, usize)> {
    (0..=height - b).flat_map(|top| (0..=width - b).map(move |left| (top, left))).collect()
}

/// A pure word from a scramble of the window and the placement solver's way back (`None` if
/// the placement solver undid the scramble turn for turn).
fn placed_pure_word(shape: &super::Shape, scramble: Vec<Turn>) -> Option<Twister> {
    let solved: Vec<u16> = (0..(shape.rows * shape.cols) as u16).collect();
    let board = super::apply(shape, &solved, &scramble);
    let back = super::solve(shape, &board).ok()?;
    let mut word = scramble;
    word.extend(back);
    measured(shape.rows, shape.cols, shape.block, simplify(word)).filter(|t| !t.turns.is_empty())
}

/// Pair twists on a `height x width` window where the power trick finds none, as commutators
/// of pure words: if `P` turns the tile of each cell `x` by `τ[x]` and `Q` moves tiles in a
/// 3-cycle `x -> y -> z` of one colour, `Q P Q^-1 P^-1` leaves every tile in place and turns
/// the three by `τ[y] - τ[x]`, `τ[z] - τ[y]`, `τ[x] - τ[z]`: a pair twist where `τ[x] = τ[z]`
/// (odd for odd `b`, which a pair needs to reach every orientation). `P` comes from a scramble
/// and the placement solver, `Q` from the placement solver on the 3-cycled board.
fn placed_pairs(height: usize, width: usize, b: usize) -> Vec<Twister> {
    let shape = super::Shape { rows: height, cols: width, block: b };
    let cells = height * width;
    let solved: Vec<u16> = (0..cells as u16).collect();
    let colour = |x: usize| if b % 2 == 1 { (x / width + x % width) % 2 } else { 0 };
    let near =
        |x: usize, y: usize| (x / width).abs_diff(y / width) + (x % width).abs_diff(y % width);
    let blocks = window_blocks(height, width, b);
    for attempt in 0..blocks.len() * 3 {
        let (top, left) = blocks[attempt / 3];
        let scramble = vec![
            Turn { top, left, quarters: 1 + (attempt % 3) as u8 },
            Turn { top: blocks[0].0, left: blocks[0].1, quarters: 1 },
            Turn { top: blocks[blocks.len() - 1].0, left: blocks[blocks.len() - 1].1, quarters: 3 },
        ];
        let Some(p) = placed_pure_word(&shape, scramble) else { continue };
        let mut tau = vec![0u8; cells];
        for &((r, c), a) in &p.twists {
            tau[r * width + c] = a;
        }
        // The closest triple (x, y, z) of one colour with τ[x] = τ[z] and a usable τ[y] - τ[x].
        let mut best: Option<(usize, [usize; 3])> = None;
        for y in 0..cells {
            for x in (0..cells).filter(|&x| x != y && colour(x) == colour(y)) {
                let d = (tau[y] + 4 - tau[x]) % 4;
                if d == 0 || (b % 2 == 1 && d.is_multiple_of(2)) {
                    continue;
                }
                for z in (0..cells).filter(|&z| z != x && z != y && colour(z) == colour(y)) {
                    let spread = near(x, y) + near(y, z) + near(x, z);
                    if tau[z] == tau[x] && best.is_none_or(|(s, _)| s > spread) {
                        best = Some((spread, [x, y, z]));
                    }
                }
            }
        }
        let Some((_, [x, y, z])) = best else { continue };
        let mut cycled = solved.clone();
        (cycled[x], cycled[y], cycled[z]) = (solved[z], solved[x], solved[y]);
        let Ok(q) = super::solve(&shape, &cycled) else { continue };
        let mut word = q.clone();
        word.extend(p.turns.iter().copied());
        word.extend(inverse(&q));
        word.extend(inverse(&p.turns));
        if let Some(t) = measured(height, width, b, simplify(word))
            && t.twists.len() == 2
        {
            return with_images(vec![t]);
        }
    }
    Vec::new()
}

/// The twisted cells relative to the first, with their amounts (macros alike up to a shift).
fn offsets(t: &Twister) -> Vec<Twist> {
    let (r0, c0) = t.twists[0].0;
    t.twists.iter().map(|&((r, c), a)| ((r + 64 - r0, c + 64 - c0), a)).collect()
}

/// The word as a twist macro cropped to the blocks it turns, if it keeps every tile in place.
fn twister(grid: &Grid, word: Vec<Turn>) -> Option<Twister> {
    if word.is_empty() {
        return None;
    }
    let b = grid.block;
    let top = word.iter().map(|t| t.top).min()?;
    let left = word.iter().map(|t| t.left).min()?;
    let height = word.iter().map(|t| t.top + b).max()? - top;
    let width = word.iter().map(|t| t.left + b).max()? - left;
    let turns: Vec<Turn> =
        word.iter().map(|t| Turn { top: t.top - top, left: t.left - left, ..*t }).collect();
    measured(height, width, b, turns)
}

/// A macro on a `height x width` window with its twists computed, if it keeps tiles in place.
fn measured(height: usize, width: usize, b: usize, turns: Vec<Turn>) -> Option<Twister> {
    let grid = Grid { rows: height, cols: width, block: b };
    let e = Element::of(&grid, &turns);
    if e.dest.iter().enumerate().any(|(x, &y)| y as usize != x) {
        return None;
    }
    let twists: Vec<Twist> = (0..grid.cells())
        .filter(|&x| e.twist[x] != 0)
        .map(|x| ((x / width, x % width), e.twist[x]))
        .collect();
    let qtm = super::qtm_length(&turns);
    Some(Twister { block: b, height, width, turns, twists, qtm })
}

/// Sum-changing macros with their images flipped top-bottom and left-right on the same window
/// (a flip negates the twists, and on a window of even side swaps the colours).
fn flipped(sums: Vec<Twister>) -> Vec<Twister> {
    let mut out = Vec::new();
    for t in sums {
        for image in 0..4 {
            let turns: Vec<Turn> = t
                .turns
                .iter()
                .map(|x| Turn {
                    top: if image & 1 != 0 { t.height - t.block - x.top } else { x.top },
                    left: if image & 2 != 0 { t.width - t.block - x.left } else { x.left },
                    quarters: if image == 1 || image == 2 { 4 - x.quarters } else { x.quarters },
                })
                .collect();
            out.extend(measured(t.height, t.width, t.block, turns));
        }
    }
    out
}

/// Each macro in its 8 mirror images and rotations (a mirror reverses every turn's sense).
fn with_images(pairs: Vec<Twister>) -> Vec<Twister> {
    let mut out: Vec<Twister> = Vec::new();
    let mut seen: HashSet<(usize, usize, Vec<Turn>)> = HashSet::new();
    for t in pairs {
        let b = t.block;
        for image in 0..8 {
            let transpose = image & 4 != 0;
            let flip_rows = image & 1 != 0;
            let flip_cols = image & 2 != 0;
            let (h, w) = if transpose { (t.width, t.height) } else { (t.height, t.width) };
            let mirrors = usize::from(transpose) + usize::from(flip_rows) + usize::from(flip_cols);
            let turns: Vec<Turn> = t
                .turns
                .iter()
                .map(|x| {
                    let (mut top, mut left) =
                        if transpose { (x.left, x.top) } else { (x.top, x.left) };
                    if flip_rows {
                        top = h - b - top;
                    }
                    if flip_cols {
                        left = w - b - left;
                    }
                    let quarters = if mirrors % 2 == 1 { 4 - x.quarters } else { x.quarters };
                    Turn { top, left, quarters }
                })
                .collect();
            if seen.insert((h, w, turns.clone()))
                && let Some(m) = measured(h, w, b, turns)
            {
                out.push(m);
            }
        }
    }
    out.sort_by_key(|t| t.qtm);
    out
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 { a } else { gcd(b, a % b) }
}

fn lcm(a: usize, b: usize) -> usize {
    a / gcd(a, b) * b
}
