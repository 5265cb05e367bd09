//! Turning every tile upright once all stand home, without moving any: in book order, each
//! tile not upright is turned upright by a pair twist ([`super::twists`]) whose other tile lies
//! later in the order, placed directly where it fits, else conjugated `S T S^-1` by a setup `S`
//! that carries the tile onto the macro. Odd blocks first make the orientation sum 0 with the
//! sum-changing macro; then the last tile is upright once all others are (the sum is
//! invariant under pair twists).

use std::collections::{HashMap, VecDeque};

use super::grid::{Grid, PositionSearch};
use super::turns::{inverse, turn_oriented_in_place};
use super::twists::{TwistMacros, Twister, colour_change};
use super::{Shape, Turn};

/// The turns that make every tile upright, given a board whose tiles all stand home with
/// orientations `orient` that [`super::orientation_rules::check`] accepts.
pub(super) fn upright(
    shape: &Shape,
    orient: &[u8],
    macros: &TwistMacros,
) -> Result<Vec<Turn>, String> {
    let grid = Grid { rows: shape.rows, cols: shape.cols, block: shape.block };
    let mut orient = orient.to_vec();
    let mut turns = Vec::new();
    let mut run = |seq: &[Turn], orient: &mut Vec<u8>| {
        for &t in seq {
            turn_oriented_in_place(shape, orient, t);
        }
        turns.extend_from_slice(seq);
    };
    if shape.block % 2 == 1 {
        let seq = colour_sums(&grid, &orient, macros)?;
        run(&seq, &mut orient);
    }
    let n = grid.cells();
    // The last cell of each class (colour, for odd b) is upright once the others are.
    let class =
        |x: usize| if grid.block % 2 == 1 { (x / grid.cols + x % grid.cols) % 2 } else { 0 };
    let mut last = [n - 1, n - 1];
    if n >= 2 {
        last[class(n - 2)] = n - 2;
    }
    for cell in 0..n {
        if orient[cell] == 0 || last[class(cell)] == cell {
            continue;
        }
        let seq = direct(&grid, macros, cell, orient[cell])
            .or_else(|| conjugated(&grid, macros, cell, orient[cell]))
            .or_else(|| joint(&grid, macros, cell, last[class(cell)], orient[cell]))
            .ok_or_else(|| format!("no twist macro reaches cell {cell}"))?;
        run(&seq, &mut orient);
        if orient[cell] != 0 {
            return Err(format!("the twist for cell {cell} missed"));
        }
    }
    if orient.iter().any(|&o| o != 0) {
        return Err("the last tiles are not upright after the others".into());
    }
    Ok(turns)
}

/// For odd `b`: sum-changing macros (placed at the top-left) that make each colour's
/// orientation sum 0 (mod 4), the cheapest combination by a search over the 16 pairs of sums.
fn colour_sums(grid: &Grid, orient: &[u8], macros: &TwistMacros) -> Result<Vec<Turn>, String> {
    let mut sums = (0u8, 0u8);
    for (x, &o) in orient.iter().enumerate() {
        if (x / grid.cols + x % grid.cols).is_multiple_of(2) {
            sums.0 = (sums.0 + o) % 4;
        } else {
            sums.1 = (sums.1 + o) % 4;
        }
    }
    // Dijkstra over the sums, each macro a step of its length.
    let mut best: HashMap<(u8, u8), (usize, Vec<usize>)> = HashMap::from([(sums, (0, vec![]))]);
    let mut frontier = vec![sums];
    while let Some(s) = frontier.pop() {
        let (cost, used) = best[&s].clone();
        for (i, z) in macros.sums.iter().enumerate() {
            let d = colour_change(z);
            let next = ((s.0 + d.0) % 4, (s.1 + d.1) % 4);
            if best.get(&next).is_none_or(|(c, _)| *c > cost + z.qtm) {
                let mut u = used.clone();
                u.push(i);
                best.insert(next, (cost + z.qtm, u));
                frontier.push(next);
            }
        }
    }
    let (_, used) = best.get(&(0, 0)).ok_or("no sum-changing macros reach these colour sums")?;
    Ok(used.iter().flat_map(|&i| macros.sums[i].turns.iter().copied()).collect())
}

/// `turns` repeated `k` times (`k = 3` as the inverse).
fn power(turns: &[Turn], k: u8) -> Vec<Turn> {
    match k {
        3 => inverse(turns),
        _ => (0..k).flat_map(|_| turns.iter().copied()).collect(),
    }
}

/// How many times to apply a macro that turns a tile by `a` to undo orientation `o`.
fn times(a: u8, o: u8) -> Option<u8> {
    (1..4).find(|k| (o + k * a).is_multiple_of(4))
}

/// A macro placement: anchor `(top, left)` of `t` on the board, if it fits.
fn anchored(grid: &Grid, t: &Twister, at: usize, role: (usize, usize)) -> Option<(usize, usize)> {
    let (r, c) = (at / grid.cols, at % grid.cols);
    let top = r.checked_sub(role.0)?;
    let left = c.checked_sub(role.1)?;
    (top + t.height <= grid.rows && left + t.width <= grid.cols).then_some((top, left))
}

fn shifted(t: &Twister, k: u8, (top, left): (usize, usize)) -> Vec<Turn> {
    power(&t.turns, k)
        .into_iter()
        .map(|x| Turn { top: x.top + top, left: x.left + left, quarters: x.quarters })
        .collect()
}

/// The shortest pair twist placed with one twisted cell on `cell`, the other later.
fn direct(grid: &Grid, macros: &TwistMacros, cell: usize, o: u8) -> Option<Vec<Turn>> {
    let mut best: Option<(usize, Vec<Turn>)> = None;
    for t in &macros.pairs {
        for (i, &(role, a)) in t.twists.iter().enumerate() {
            let Some(k) = times(a, o) else { continue };
            let Some((top, left)) = anchored(grid, t, cell, role) else { continue };
            let other = t.twists[1 - i].0;
            let partner = (top + other.0) * grid.cols + left + other.1;
            let cost = t.qtm * if k == 2 { 2 } else { 1 };
            if partner > cell && best.as_ref().is_none_or(|(c, _)| *c > cost) {
                best = Some((cost, shifted(t, k, (top, left))));
            }
        }
    }
    best.map(|(_, seq)| seq)
}

/// A pair twist conjugated by a setup that carries the tile of `cell` onto the macro, where
/// the macro's other tile comes from a later cell.
fn conjugated(grid: &Grid, macros: &TwistMacros, cell: usize, o: u8) -> Option<Vec<Turn>> {
    let all = |_: usize, _: usize| true;
    let search = PositionSearch::run(grid, cell, &grid.whole(), &[1, 2, 3], &all, None);
    for &x in search.order() {
        let setup = search.path(x);
        let mut best: Option<(usize, Vec<Turn>)> = None;
        for t in &macros.pairs {
            for (i, &(role, a)) in t.twists.iter().enumerate() {
                let Some(k) = times(a, o) else { continue };
                let Some((top, left)) = anchored(grid, t, x, role) else { continue };
                let other = t.twists[1 - i].0;
                let partner = grid.track_back((top + other.0) * grid.cols + left + other.1, &setup);
                let cost = t.qtm * if k == 2 { 2 } else { 1 };
                if partner > cell && best.as_ref().is_none_or(|(c, _)| *c > cost) {
                    let mut seq = setup.clone();
                    seq.extend(shifted(t, k, (top, left)));
                    seq.extend(inverse(&setup));
                    best = Some((cost, seq));
                }
            }
        }
        if best.is_some() {
            return best.map(|(_, seq)| seq);
        }
    }
    None
}

/// A pair twist on the tiles of `cell` and `partner`, conjugated by a setup found by a
/// breadth-first search over both tiles' positions (for the last cells, where the single-tile
/// search finds no later partner), near the two cells first, then on the whole board.
fn joint(
    grid: &Grid,
    macros: &TwistMacros,
    cell: usize,
    partner: usize,
    o: u8,
) -> Option<Vec<Turn>> {
    let reach = macros.pairs.iter().map(|t| t.height.max(t.width)).max().unwrap_or(0);
    for rect in [grid.around(&[cell, partner], reach + grid.block), grid.whole()] {
        let start = (cell, partner);
        let mut parent: HashMap<(usize, usize), ((usize, usize), Turn)> = HashMap::new();
        let none = Turn { top: 0, left: 0, quarters: 0 };
        parent.insert(start, (start, none));
        let mut queue = VecDeque::from([start]);
        while let Some((x, y)) = queue.pop_front() {
            for t in &macros.pairs {
                for (i, &(role, a)) in t.twists.iter().enumerate() {
                    let Some(k) = times(a, o) else { continue };
                    let Some((top, left)) = anchored(grid, t, x, role) else { continue };
                    let other = t.twists[1 - i].0;
                    if (top + other.0) * grid.cols + left + other.1 != y {
                        continue;
                    }
                    let mut setup = Vec::new();
                    let mut at = (x, y);
                    while at != start {
                        let (prev, turn) = parent[&at];
                        setup.push(turn);
                        at = prev;
                    }
                    setup.reverse();
                    let mut seq = setup.clone();
                    seq.extend(shifted(t, k, (top, left)));
                    seq.extend(inverse(&setup));
                    return Some(seq);
                }
            }
            for z in [x, y] {
                for (top, left) in grid.blocks_holding(z, &rect) {
                    for q in 1..=3 {
                        let next = (grid.moved(x, top, left, q), grid.moved(y, top, left, q));
                        parent.entry(next).or_insert_with(|| {
                            queue.push_back(next);
                            ((x, y), Turn { top, left, quarters: q })
                        });
                    }
                }
            }
        }
    }
    None
}
