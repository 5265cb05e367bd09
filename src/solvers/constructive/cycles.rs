//! 3-cycle macros: short move sequences that cycle exactly three cells, found by search on a
//! small window of the board and then used anywhere the window fits.
//!
//! The search rests on one fact (Lam, section 3): if two permutations move exactly one cell in
//! common, their commutator is a 3-cycle. On a board with room for two blocks meeting at a
//! corner (`n, m >= 2b-1`) the two block turns themselves qualify, and `X Y X^-1 Y^-1` is a
//! 3-cycle of four quarter turns. Narrower boards first build elements that move few cells
//! (commutators of two turns, and powers `w^k` of short words that kill all but the cycles of
//! one prime length, Lam's `(X Y^2 X^-1 Y X^-1 Y^2)^35`), then look for a short conjugator `g`
//! that makes one meet another in a single cell.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, OnceLock};

use super::Turn;
use super::grid::{Grid, cycles_of};
use super::turns::{inverse, simplify};

/// A 3-cycle on a `height x width` window: the content of `cycle[0]` goes to `cycle[1]`, of
/// `cycle[1]` to `cycle[2]`, of `cycle[2]` to `cycle[0]`; cells are `(row, col)` in the window.
#[derive(Clone, Debug)]
pub(super) struct Macro {
    pub height: usize,
    pub width: usize,
    pub turns: Vec<Turn>,
    pub cycle: [(usize, usize); 3],
    pub qtm: usize,
}

/// Macros by window shape `(rows, cols, block)`.
type MacroCache = HashMap<(usize, usize, usize), Arc<Vec<Macro>>>;

/// The 3-cycle macros of NRP `(rows, cols, block)`, shortest first (computed once per shape).
pub(super) fn three_cycles(
    rows: usize,
    cols: usize,
    block: usize,
) -> Result<Arc<Vec<Macro>>, String> {
    static CACHE: OnceLock<Mutex<MacroCache>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    // Every board at least this large searches the same windows.
    let cap = 4 * block + 4;
    let key = (rows.min(cap), cols.min(cap), block);
    if let Some(found) = cache.lock().expect("macro cache").get(&key) {
        return Ok(found.clone());
    }
    if rows > cols {
        // The mirror image in the main diagonal: a turn's sense reverses.
        let found: Vec<Macro> = three_cycles(cols, rows, block)?.iter().map(transposed).collect();
        let found = Arc::new(found);
        cache.lock().expect("macro cache").insert(key, found.clone());
        return Ok(found);
    }
    for (h, w) in windows(rows, cols, block) {
        let found = search(h, w, block);
        if !found.is_empty() {
            let found = Arc::new(found);
            cache.lock().expect("macro cache").insert(key, found.clone());
            return Ok(found);
        }
    }
    Err(format!("no 3-cycle found on ({rows},{cols},{block}) by the macro search"))
}

fn transposed(m: &Macro) -> Macro {
    Macro {
        height: m.width,
        width: m.height,
        turns: m
            .turns
            .iter()
            .map(|t| Turn { top: t.left, left: t.top, quarters: 4 - t.quarters })
            .collect(),
        cycle: m.cycle.map(|(r, c)| (c, r)),
        qtm: m.qtm,
    }
}

/// Windows to search, smallest first. With room for two corner-sharing blocks, that window;
/// on a narrow board, the full narrow side and a growing stretch of the long one.
fn windows(n: usize, m: usize, b: usize) -> Vec<(usize, usize)> {
    let wide = 2 * b - 1;
    let mut out = Vec::new();
    if n >= wide && m >= wide {
        out.push((wide, wide));
    }
    for stretch in [2 * b + 2, 3 * b + 3, 4 * b + 4] {
        let w = (n.min(stretch), m.min(stretch));
        if !out.contains(&w) {
            out.push(w);
        }
    }
    out
}

/// A permutation of the window's cells with the word that makes it.
#[derive(Clone)]
struct Element {
    word: Vec<Turn>,
    dest: Vec<u32>,
    support: Vec<usize>,
    qtm: usize,
}

impl Element {
    fn of(grid: &Grid, word: Vec<Turn>) -> Element {
        let word = simplify(word);
        let dest: Vec<u32> = (0..grid.cells()).map(|x| grid.track(x, &word) as u32).collect();
        let support = (0..dest.len()).filter(|&x| dest[x] as usize != x).collect();
        let qtm = super::qtm_length(&word);
        Element { word, dest, support, qtm }
    }

    /// An element whose action is already known (`dest`), without tracking its word.
    fn known(word: Vec<Turn>, dest: Vec<u32>) -> Element {
        let word = simplify(word);
        let support = (0..dest.len()).filter(|&x| dest[x] as usize != x).collect();
        let qtm = super::qtm_length(&word);
        Element { word, dest, support, qtm }
    }

    /// This element followed by one turn.
    fn then(&self, grid: &Grid, t: Turn) -> Element {
        let dest = self
            .dest
            .iter()
            .map(|&x| grid.moved(x as usize, t.top, t.left, t.quarters) as u32)
            .collect();
        let mut word = self.word.clone();
        word.push(t);
        Element::known(word, dest)
    }

    /// The cycle lengths, each with its cells.
    fn cycles(&self) -> Vec<Vec<usize>> {
        cycles_of(&self.dest)
    }
}

/// Longest macro the power trick builds at first, in quarter turns (longer powers are kept
/// only where one is a 3-cycle by itself: see [`search`]).
const POWER_MAX_QTM: usize = 400;
/// Most words the power trick enumerates.
const POWER_WORDS: usize = 20_000;
/// Elements kept as commutator ingredients.
const POOL: usize = 60;
/// Most conjugators tried per length.
const CONJUGATORS: usize = 3_000;

fn search(h: usize, w: usize, b: usize) -> Vec<Macro> {
    let grid = Grid { rows: h, cols: w, block: b };
    let gens: Vec<Turn> = (0..=h - b)
        .flat_map(|top| (0..=w - b).map(move |left| (top, left)))
        .flat_map(|(top, left)| (1..=3).map(move |q| Turn { top, left, quarters: q }))
        .collect();
    let support_cap = (3 * b + 3).max(12);
    let mut pool: Vec<Element> = Vec::new();
    let mut seen: HashSet<Vec<u32>> = HashSet::new();
    let offer = |e: Element, pool: &mut Vec<Element>, seen: &mut HashSet<Vec<u32>>| {
        if !e.support.is_empty() && seen.insert(e.dest.clone()) {
            pool.push(e);
        }
    };
    for &g in &gens {
        offer(Element::of(&grid, vec![g]), &mut pool, &mut seen);
    }
    for &x in &gens {
        for &y in &gens {
            if (x.top, x.left) == (y.top, y.left) {
                continue;
            }
            let e = Element::of(&grid, vec![x, y, x.inverse(), y.inverse()]);
            if e.support.len() <= support_cap {
                offer(e, &mut pool, &mut seen);
            }
        }
    }
    // Cheap first: turns and their commutators; the power trick only if they find nothing,
    // then longer powers that are 3-cycles by themselves (narrow boards with large blocks,
    // whose short words have long cycles: (12,14,9), (16,18,13)).
    let mut found = three_cycles_from(&grid, &gens, &mut pool, 2);
    for (max_qtm, support) in [(POWER_MAX_QTM, support_cap), (20_000, 3), (200_000, 3)] {
        if !found.is_empty() {
            break;
        }
        pool.extend(power_elements(&grid, &gens, support, &mut seen, max_qtm));
        found = three_cycles_from(&grid, &gens, &mut pool, 4);
    }
    to_macros(&grid, found)
}

/// 3-cycles in the pool, or built from it; for odd `b`, on both checkerboard colours (a
/// window as large as the board cannot shift a cycle to the other colour).
fn three_cycles_from(
    grid: &Grid,
    gens: &[Turn],
    pool: &mut [Element],
    levels: usize,
) -> Vec<Element> {
    let colour = |x: usize| (x / grid.cols + x % grid.cols) % 2;
    let classes: Vec<Option<usize>> =
        if grid.block % 2 == 1 { vec![Some(0), Some(1)] } else { vec![None] };
    pool.sort_by_key(|e| (e.qtm, e.support.len()));
    let mut found = Vec::new();
    for class in classes {
        let mut here: Vec<Element> = pool
            .iter()
            .filter(|e| e.support.len() == 3 && class.is_none_or(|c| colour(e.support[0]) == c))
            .cloned()
            .collect();
        if here.is_empty() {
            let top: Vec<Element> = pool.iter().take(POOL).cloned().collect();
            here = single_meeting_commutators(grid, gens, &top, levels, class);
        }
        if here.is_empty() {
            return Vec::new();
        }
        found.extend(here);
    }
    found
}

/// Powers of short words that keep only the cycles of one prime length: `w^(L/p)` with `L`
/// the order of `w` turns every cycle whose length has the highest power of `p` into
/// `p`-cycles and fixes the rest.
fn power_elements(
    grid: &Grid,
    gens: &[Turn],
    support_cap: usize,
    seen: &mut HashSet<Vec<u32>>,
    max_qtm: usize,
) -> Vec<Element> {
    let mut out = Vec::new();
    let mut queue: VecDeque<Element> = gens.iter().map(|&g| Element::of(grid, vec![g])).collect();
    let mut words = 0usize;
    while let Some(e) = queue.pop_front() {
        words += 1;
        if words > POWER_WORDS {
            break;
        }
        out.extend(prime_powers(grid, &e, support_cap, seen, max_qtm));
        if queue.len() < POWER_WORDS {
            let last = *e.word.last().expect("non-empty word");
            for &g in gens {
                if (g.top, g.left) != (last.top, last.left) {
                    queue.push_back(e.then(grid, g));
                }
            }
        }
    }
    out
}

fn prime_powers(
    grid: &Grid,
    e: &Element,
    support_cap: usize,
    seen: &mut HashSet<Vec<u32>>,
    max_qtm: usize,
) -> Vec<Element> {
    let cycles: Vec<Vec<usize>> = e.cycles().into_iter().filter(|c| c.len() > 1).collect();
    if cycles.is_empty() {
        return Vec::new();
    }
    let mut order: u128 = 1;
    for c in &cycles {
        order = order / gcd(order, c.len() as u128) * c.len() as u128;
        if order > 1 << 40 {
            return Vec::new();
        }
    }
    let mut out = Vec::new();
    for p in primes_dividing(order) {
        let k = (order / p as u128) as usize;
        if k * e.qtm > max_qtm {
            continue;
        }
        let top = cycles.iter().map(|c| valuation(c.len(), p)).max().unwrap_or(0);
        let kept: Vec<&Vec<usize>> =
            cycles.iter().filter(|c| valuation(c.len(), p) == top).collect();
        if kept.iter().map(|c| c.len()).sum::<usize>() > support_cap {
            continue;
        }
        // The power's action from the cycles, before paying for its long word.
        let mut dest: Vec<u32> = (0..grid.cells() as u32).collect();
        for c in kept {
            for (i, &x) in c.iter().enumerate() {
                dest[x] = c[(i + k) % c.len()] as u32;
            }
        }
        if seen.insert(dest.clone()) {
            let word: Vec<Turn> = (0..k).flat_map(|_| e.word.iter().copied()).collect();
            out.push(Element::known(word, dest));
        }
    }
    out
}

/// Commutators `[e1, g^-1 e2 g]` where `e1` and the conjugate of `e2` move one common cell,
/// with the conjugator `g` as short as possible.
fn single_meeting_commutators(
    grid: &Grid,
    gens: &[Turn],
    pool: &[Element],
    levels: usize,
    class: Option<usize>,
) -> Vec<Element> {
    let n = grid.cells();
    let words_per_set = n.div_ceil(64);
    let supports: Vec<Vec<u64>> = pool.iter().map(|e| bitset(&e.support, words_per_set)).collect();
    let mut level: Vec<Vec<Turn>> = vec![Vec::new()];
    let in_class =
        |common: usize| class.is_none_or(|c| (common / grid.cols + common % grid.cols) % 2 == c);
    for _ in 0..levels {
        let mut hits = Vec::new();
        for g in &level {
            let image: Vec<usize> = (0..n).map(|x| grid.track(x, g)).collect();
            for (i2, e2) in pool.iter().enumerate() {
                let moved: Vec<usize> = e2.support.iter().map(|&x| image[x]).collect();
                let moved = bitset(&moved, words_per_set);
                for (i1, s1) in supports.iter().enumerate() {
                    let common: u32 =
                        s1.iter().zip(&moved).map(|(a, b)| (a & b).count_ones()).sum();
                    if common == 1 && in_class(first_common(s1, &moved)) {
                        hits.push((i1, g.clone(), i2));
                    }
                }
            }
            if hits.len() > 2_000 {
                break;
            }
        }
        if !hits.is_empty() {
            return hits
                .into_iter()
                .map(|(i1, g, i2)| {
                    let (e1, e2) = (&pool[i1].word, &pool[i2].word);
                    let conj = |inner: &[Turn]| -> Vec<Turn> {
                        let mut w = inverse(&g);
                        w.extend_from_slice(inner);
                        w.extend_from_slice(&g);
                        w
                    };
                    let mut word = e1.clone();
                    word.extend(conj(e2));
                    word.extend(inverse(e1));
                    word.extend(conj(&inverse(e2)));
                    Element::of(grid, word)
                })
                .filter(|e| e.support.len() == 3)
                .collect();
        }
        let mut next = Vec::new();
        'grow: for g in &level {
            for &t in gens {
                if g.last().is_some_and(|l| (l.top, l.left) == (t.top, t.left)) {
                    continue;
                }
                let mut w = g.clone();
                w.push(t);
                next.push(w);
                if next.len() >= CONJUGATORS {
                    break 'grow;
                }
            }
        }
        level = next;
    }
    Vec::new()
}

/// Distinct 3-cycles (each with its inverse), shortest first, cropped to the cells their turns
/// use.
fn to_macros(grid: &Grid, found: Vec<Element>) -> Vec<Macro> {
    let mut best: HashMap<[usize; 3], Element> = HashMap::new();
    for e in found {
        for e in [e.clone(), Element::of(grid, inverse(&e.word))] {
            let a = e.support[0];
            let key = [a, e.dest[a] as usize, e.dest[e.dest[a] as usize] as usize];
            if best.get(&key).is_none_or(|old| old.qtm > e.qtm) {
                best.insert(key, e);
            }
        }
    }
    let mut list: Vec<([usize; 3], Element)> = best.into_iter().collect();
    list.sort_by_key(|(k, e)| (e.qtm, *k));
    // The shortest of each colour class (odd b), and those nearly as short.
    let class = |k: &[usize; 3]| {
        if grid.block % 2 == 1 { (k[0] / grid.cols + k[0] % grid.cols) % 2 } else { 0 }
    };
    let mut shortest = [usize::MAX; 2];
    for (k, e) in &list {
        shortest[class(k)] = shortest[class(k)].min(e.qtm);
    }
    let mut kept = [0usize; 2];
    list.retain(|(k, e)| {
        let c = class(k);
        kept[c] += 1;
        e.qtm <= shortest[c] + 8 && kept[c] <= 64
    });
    list.into_iter()
        .map(|(cyc, e)| {
            let top = e.word.iter().map(|t| t.top).min().unwrap_or(0);
            let left = e.word.iter().map(|t| t.left).min().unwrap_or(0);
            let bottom = e.word.iter().map(|t| t.top + grid.block).max().unwrap_or(0);
            let right = e.word.iter().map(|t| t.left + grid.block).max().unwrap_or(0);
            let at = |x: usize| (x / grid.cols - top, x % grid.cols - left);
            Macro {
                height: bottom - top,
                width: right - left,
                turns: e
                    .word
                    .iter()
                    .map(|t| Turn { top: t.top - top, left: t.left - left, quarters: t.quarters })
                    .collect(),
                cycle: [at(cyc[0]), at(cyc[1]), at(cyc[2])],
                qtm: e.qtm,
            }
        })
        .collect()
}

fn first_common(a: &[u64], b: &[u64]) -> usize {
    let (i, w) = a
        .iter()
        .zip(b)
        .map(|(x, y)| x & y)
        .enumerate()
        .find(|(_, w)| *w != 0)
        .expect("a common cell");
    i * 64 + w.trailing_zeros() as usize
}

fn bitset(cells: &[usize], words: usize) -> Vec<u64> {
    let mut out = vec![0u64; words];
    for &x in cells {
        out[x / 64] |= 1 << (x % 64);
    }
    out
}

fn gcd(a: u128, b: u128) -> u128 {
    if b == 0 { a } else { gcd(b, a % b) }
}

fn primes_dividing(mut x: u128) -> Vec<u64> {
    let mut out = Vec::new();
    let mut p = 2u128;
    while p * p <= x {
        if x.is_multiple_of(p) {
            out.push(p as u64);
            while x.is_multiple_of(p) {
                x /= p;
            }
        }
        p += 1;
    }
    if x > 1 {
        out.push(x as u64);
    }
    out
}

fn valuation(mut x: usize, p: u64) -> u32 {
    let p = p as usize;
    let mut v = 0;
    while x.is_multiple_of(p) {
        x /= p;
        v += 1;
    }
    v
}
