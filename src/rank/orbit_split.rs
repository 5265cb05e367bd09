//! A layout's ranks split in two: the permutations of some whole orbits (the *key orbits*)
//! first, everything else after, each part dense.
//!
//! The first part is the key orbits' permutation digits with the signs the coupling group
//! `H` allows them (a sign the invariants fix halves an orbit's permutations, a sign they tie
//! to another's is counted once); the second the other orbits' permutation digits, the
//! index of the board's element of `H` among those with the same key signs, and the
//! orientation digits. Every first part leaves the same number of second parts: the
//! elements of `H` with given key signs are a coset of those with none.
//!
//! Classes of boards take the first part where symmetries carry every cell of an orbit onto
//! other cells (no key cells are left) but keep a set of whole orbits: the tangram's
//! edges and corners, whose arrangements a symmetry maps among themselves whatever the
//! rest of the board ([`crate::symmetry::ClassRanking`]).

use rayon::prelude::*;

use super::layout::{Cells, Layout, MAX_CELLS, TILE_BITS, TILE_MASK};
use super::perm::{half_factorial, unrank_in_sign_class};

/// The split of a layout's ranks at a set of key orbits (see the module docs).
#[derive(Clone, Debug)]
pub struct OrbitSplit {
    /// The key orbits (the layout's orbit indices, increasing) and the others.
    key: Vec<usize>,
    others: Vec<usize>,
    /// Per orbit, its bit in a sign code (none for an orbit of one cell, which has no sign).
    sign_bit: Vec<u32>,
    /// Per sign code masked to the key orbits: its index among those `H` allows, or
    /// `u32::MAX`.
    key_sign_index: Vec<u32>,
    /// Per index: the masked sign code.
    key_sign_codes: Vec<u32>,
    /// The other orbits of at least two cells (those of one cell have digit 0 and no sign).
    ranked_others: Vec<usize>,
    /// Number of key sign codes `H` allows.
    key_signs: u64,
    /// Per element of `H`: its index among the elements with the same key signs.
    within: Vec<u32>,
    /// The elements of `H` by key signs (their index), then index within.
    members: Vec<u32>,
    /// Elements of `H` per key signs allowed.
    per: u64,
    placements: u64,
    rest_count: u64,
}

impl OrbitSplit {
    /// The split of `layout`'s ranks with the orbits `key` first. The layout must rank
    /// every value of its upper digits ([`Layout::ranks_reachable_couplings`] false).
    pub fn new(layout: &Layout, key: &[usize]) -> OrbitSplit {
        debug_assert!(!layout.ranks_reachable_couplings(), "upper digits are whole");
        let orbits = layout.n_orbits();
        let mut sign_bit = vec![0u32; orbits];
        let mut bits = 0;
        for j in (0..orbits).rev() {
            if layout.orbit_cells(j).len() >= 2 {
                sign_bit[j] = 1 << bits;
                bits += 1;
            }
        }
        let key_mask = key.iter().fold(0, |m, &j| m | sign_bit[j]);
        let mut key_sign_index = vec![u32::MAX; 1 << bits];
        let mut groups: Vec<Vec<u32>> = Vec::new();
        let mut key_sign_codes = Vec::new();
        let mut within = vec![0u32; layout.coupling_len()];
        for (h, place) in within.iter_mut().enumerate() {
            let signs = (layout.coupling_signs(h) & key_mask) as usize;
            if key_sign_index[signs] == u32::MAX {
                key_sign_index[signs] = groups.len() as u32;
                key_sign_codes.push(signs as u32);
                groups.push(Vec::new());
            }
            let group = &mut groups[key_sign_index[signs] as usize];
            *place = group.len() as u32;
            group.push(h as u32);
        }
        let per = groups[0].len();
        debug_assert!(groups.iter().all(|g| g.len() == per), "cosets of one subgroup");
        let others: Vec<usize> = (0..orbits).filter(|j| !key.contains(j)).collect();
        let radices =
            |orbits: &[usize]| orbits.iter().map(|&j| layout.orbit_radix(j)).product::<u64>();
        let placements = radices(key) * groups.len() as u64;
        let rest_count = radices(&others) * per as u64 * layout.orientation_count();
        debug_assert_eq!(placements * rest_count, layout.n_states());
        let ranked_others =
            others.iter().copied().filter(|&j| layout.orbit_cells(j).len() >= 2).collect();
        OrbitSplit {
            key: key.to_vec(),
            others,
            sign_bit,
            key_sign_index,
            key_sign_codes,
            ranked_others,
            key_signs: groups.len() as u64,
            within,
            members: groups.concat(),
            per: per as u64,
            placements,
            rest_count,
        }
    }

    /// Number of first parts.
    pub fn placements(&self) -> u64 {
        self.placements
    }

    /// Number of second parts per first part.
    pub fn rest_count(&self) -> u64 {
        self.rest_count
    }

    /// The first part of a board: its key orbits' permutation digits, then their signs.
    #[inline(always)]
    pub fn placement(&self, layout: &Layout, s: &Cells) -> u64 {
        let (mut index, mut signs) = (0u64, 0u32);
        for &j in &self.key {
            let (r, sign) = layout.orbit_permutation(s, j);
            index = index * layout.orbit_radix(j) + r;
            signs |= sign * self.sign_bit[j];
        }
        index * self.key_signs + self.key_sign_index[signs as usize] as u64
    }

    /// The second part of a board: the other orbits' permutation digits, its element of `H`
    /// among those with its key signs, its orientation digits.
    #[inline(always)]
    pub fn rest(&self, layout: &Layout, s: &Cells) -> u64 {
        self.rest_at(layout, s, self.placement(layout, s))
    }

    /// [`OrbitSplit::rest`] of a board whose first part is `placement`: its key signs are
    /// read off that, and only the other orbits are ranked.
    #[inline(always)]
    pub fn rest_at(&self, layout: &Layout, s: &Cells, placement: u64) -> u64 {
        let mut signs = self.key_sign_codes[(placement % self.key_signs) as usize];
        let mut index = 0u64;
        for &j in &self.ranked_others {
            let (r, sign) = layout.orbit_permutation(s, j);
            signs |= sign * self.sign_bit[j];
            index = index * layout.orbit_radix(j) + r;
        }
        self.rest_from(layout, s, index, signs)
    }

    /// The second part from the other orbits' permutation digits and every orbit's signs.
    #[inline(always)]
    fn rest_from(&self, layout: &Layout, s: &Cells, index: u64, signs: u32) -> u64 {
        let (h, orient) = layout.coupling_and_orientation(s, signs);
        (index * self.per + self.within[h as usize] as u64) * layout.orientation_count() + orient
    }

    /// The board whose parts are `placement` and `rest`.
    pub fn board(&self, layout: &Layout, placement: u64, rest: u64) -> Cells {
        let (signs, mut key_perm) = (placement % self.key_signs, placement / self.key_signs);
        let orient_count = layout.orientation_count();
        let (orient, upper) = (rest % orient_count, rest / orient_count);
        let (within, mut other_perm) = (upper % self.per, upper / self.per);
        let h = self.members[(signs * self.per + within) as usize] as u64;
        let mut digits = [0u64; MAX_CELLS];
        for (orbits, perm) in [(&self.key, &mut key_perm), (&self.others, &mut other_perm)] {
            for &j in orbits.iter().rev() {
                let radix = layout.orbit_radix(j);
                digits[j] = *perm % radix;
                *perm /= radix;
            }
        }
        let perm_rank =
            (0..self.sign_bit.len()).fold(0u64, |acc, j| acc * layout.orbit_radix(j) + digits[j]);
        layout.unrank((perm_rank * layout.coupling_len() as u64 + h) * orient_count + orient)
    }

    /// The key orbits' cells of the boards of `placement` (the other cells 0, no turns): a
    /// placement fixes them whatever the rest, its key signs being its own.
    fn key_cells(&self, layout: &Layout, placement: u64) -> Cells {
        self.cells_of_orbits(layout, &self.board(layout, placement, 0), &self.key)
    }

    fn cells_of_orbits(&self, layout: &Layout, board: &Cells, orbits: &[usize]) -> Cells {
        let mut out = [0u8; MAX_CELLS];
        for &c in orbits.iter().flat_map(|&j| layout.orbit_cells(j)) {
            out[c as usize] = board.0[c as usize] & TILE_MASK;
        }
        Cells(out)
    }

    /// Each key orbit's permutation in first part `placement`, as [`KeyImages`] index them:
    /// twice its digit plus its sign, in the order of the key orbits.
    fn key_values(&self, layout: &Layout, placement: u64, out: &mut [u32]) {
        let signs = self.key_sign_codes[(placement % self.key_signs) as usize];
        let mut index = placement / self.key_signs;
        for (i, &j) in self.key.iter().enumerate().rev() {
            let radix = layout.orbit_radix(j);
            let sign = (signs & self.sign_bit[j] != 0) as u32;
            out[i] = ((index % radix) as u32) << 1 | sign;
            index /= radix;
        }
    }

    /// Tables of the images of first parts under `n_maps` maps of boards (`map(e, board)`, a
    /// class ranking's symmetries with inversion) that carry each key orbit onto a key orbit
    /// ([`KeyImages`]), or `None`: where they would hold more than `most` entries, or a map
    /// does not carry some key orbit's permutations onto one orbit's.
    pub fn key_images(
        &self,
        layout: &Layout,
        n_maps: usize,
        map: impl Fn(usize, &Cells) -> Cells + Sync,
        most: u64,
    ) -> Option<KeyImages> {
        let sizes: Vec<usize> = self.key.iter().map(|&j| layout.orbit_cells(j).len()).collect();
        // Orbits of one cell have a single permutation: no table.
        let lens: Vec<u64> = (self.key.iter().zip(&sizes))
            .map(|(&j, &n)| if n < 2 { 0 } else { 2 * layout.orbit_radix(j) })
            .collect();
        // Each value must be one arrangement (no ranked-out prefix shortens a digit).
        let whole = |(&n, &len): (&usize, &u64)| n < 2 || len == 2 * half_factorial(n);
        if !sizes.iter().zip(&lens).all(whole)
            || (n_maps as u64).checked_mul(lens.iter().sum())? > most
        {
            return None;
        }
        // An image is the sum of its orbits' shares: digit times weight, sign bit above.
        let mut weight = vec![1u64; self.key.len()];
        for i in (0..self.key.len().saturating_sub(1)).rev() {
            weight[i] = weight[i + 1] * layout.orbit_radix(self.key[i + 1]);
        }
        if weight.first().map_or(0, |w| w * layout.orbit_radix(self.key[0])) >= 1 << SIGN_SHIFT {
            return None;
        }
        let mut key_of_cell = [u8::MAX; MAX_CELLS];
        for (i, &j) in self.key.iter().enumerate() {
            for &c in layout.orbit_cells(j) {
                key_of_cell[c as usize] = i as u8;
            }
        }
        let value = |board: &Cells, i: usize| {
            let (r, sign) = layout.orbit_permutation(board, self.key[i]);
            (r as u32) << 1 | sign
        };
        let base = layout.unrank(0);
        // Per key orbit, every arrangement of its tiles on its cells, and its value.
        let boards: Vec<Vec<(Cells, u32)>> = (0..self.key.len())
            .map(|i| {
                let cells = layout.orbit_cells(self.key[i]);
                let tiles: Vec<u8> = cells.iter().map(|&c| base.0[c as usize]).collect();
                let count = if sizes[i] < 2 { 0 } else { 2 * half_factorial(sizes[i]) };
                (0..count)
                    .map(|a| {
                        let mut board = base;
                        unrank_in_sign_class(a / 2, (a % 2) as u32, cells.len(), |k, x| {
                            board.0[cells[k] as usize] = tiles[x as usize];
                        });
                        (board, value(&board, i))
                    })
                    .collect()
            })
            .collect();
        let per_map: Option<Vec<(Vec<u8>, Vec<u32>)>> = (0..n_maps)
            .into_par_iter()
            .map(|e| {
                let (mut onto, mut table) = (vec![u8::MAX; self.key.len()], Vec::new());
                for (i, arrangements) in boards.iter().enumerate() {
                    let Some(&(first, _)) = arrangements.first() else { continue };
                    // Where the orbit lands: the cells whose tiles two of its arrangements
                    // put apart (a map carries whole orbits onto orbits, as symmetries and
                    // inversion do), which must lie in one key orbit of its size.
                    let (a, b) = (map(e, &first), map(e, &arrangements[1].0));
                    let differ = (0..layout.n_cells())
                        .filter(|&c| (a.0[c] ^ b.0[c]) & TILE_MASK != 0)
                        .map(|c| key_of_cell[c]);
                    let j = differ.clone().next()?;
                    if j == u8::MAX
                        || differ.clone().any(|k| k != j)
                        || sizes[j as usize] != sizes[i]
                    {
                        return None;
                    }
                    onto[i] = j;
                    let start = table.len();
                    table.resize(start + lens[i] as usize, u32::MAX);
                    for (board, v) in arrangements {
                        table[start + *v as usize] = value(&map(e, board), j as usize);
                    }
                    // Every value of the orbit had an arrangement: none is left unmapped.
                    if table[start..].contains(&u32::MAX) {
                        return None;
                    }
                }
                Some((onto, table))
            })
            .collect();
        let share = |j: usize, w: u32| {
            let sign = ((w & 1) * self.sign_bit[self.key[j]]) as u64;
            (w >> 1) as u64 * weight[j] + (sign << SIGN_SHIFT)
        };
        let mut starts = Vec::new();
        let mut at = 0;
        for (i, &len) in lens.iter().enumerate().filter(|&(_, &len)| len > 0) {
            starts.push((i, at));
            at += len as usize;
        }
        if at == 0 {
            return None;
        }
        let mut tables = Vec::with_capacity(n_maps * at);
        for (onto, values) in per_map? {
            let mut from = 0;
            for &(i, _) in &starts {
                let len = lens[i] as usize;
                tables.extend(values[from..from + len].iter().map(|&w| share(onto[i] as usize, w)));
                from += len;
            }
        }
        Some(KeyImages { tables, per_map: at, starts })
    }

    /// The parts of the boards of `placements` ([`RestParts`], a placement named by its
    /// position there), or `None` when there would be more than `most` other parts.
    pub fn rest_parts(&self, layout: &Layout, placements: &[u32], most: u64) -> Option<RestParts> {
        let count = self.key_signs.checked_mul(self.rest_count).filter(|&c| c <= most)?;
        // Each key a board unranked (the master pyramorphix's 4,220: 1 ms on one thread).
        let keys = placements.par_iter().map(|&p| self.key_cells(layout, p as u64)).collect();
        let parts = (0..count)
            .map(|i| {
                // Key signs `i / rest_count` with the first key permutations: a placement.
                let board = self.board(layout, i / self.rest_count, i % self.rest_count);
                let mut turns = [0u8; MAX_CELLS];
                for &b in &board.0[..layout.n_cells()] {
                    turns[(b & TILE_MASK) as usize] = b >> TILE_BITS;
                }
                (self.cells_of_orbits(layout, &board, &self.others), turns)
            })
            .collect();
        Some(RestParts {
            keys,
            parts,
            key_signs: self.key_signs,
            rest_count: self.rest_count,
            n_cells: layout.n_cells(),
        })
    }
}

/// The images of an [`OrbitSplit`]'s first parts under maps of boards that carry whole key
/// orbits onto key orbits: a map takes each key orbit's permutation to the permutation of
/// the orbit it lands on, whose share of the image's first part a table gives, so an image
/// is a few reads and a sum, not a board built, mapped and ranked (classifying the master
/// pyramorphix's 165,888 first parts under 48 maps took 5 ms that way).
#[derive(Clone, Debug)]
pub struct KeyImages {
    /// Per map (`per_map` entries each), per key orbit of two cells or more from its start
    /// on: per value of its permutation (twice its digit plus its sign), the image's share:
    /// the image orbit's digit times its weight in the first part, plus its sign bit
    /// shifted by [`SIGN_SHIFT`] (shares of distinct orbits add without carries).
    tables: Vec<u64>,
    per_map: usize,
    /// The key orbits with tables: their place among the key orbits, and their start.
    starts: Vec<(usize, usize)>,
}

/// Where a share's sign bits start: above every first part's permutation digits (checked
/// when the tables are made); the signs take at most 16 bits, one per orbit of two cells or
/// more of at most 32.
const SIGN_SHIFT: u32 = 40;

impl KeyImages {
    /// Writes into `out[e]` the image of first part `placement` under map `e`.
    #[inline]
    pub fn images(&self, split: &OrbitSplit, layout: &Layout, placement: u64, out: &mut [u32]) {
        let mut values = [0u32; MAX_CELLS];
        split.key_values(layout, placement, &mut values[..split.key.len()]);
        let mut at = [0usize; MAX_CELLS];
        for (a, &(i, start)) in at.iter_mut().zip(&self.starts) {
            *a = start + values[i] as usize;
        }
        let at = &at[..self.starts.len()];
        for (o, table) in out.iter_mut().zip(self.tables.chunks_exact(self.per_map)) {
            let share: u64 = at.iter().map(|&a| table[a]).sum();
            let index = share & ((1 << SIGN_SHIFT) - 1);
            let signs = split.key_sign_index[(share >> SIGN_SHIFT) as usize] as u64;
            *o = (index * split.key_signs + signs) as u32;
        }
    }
}

/// The boards of some placements of an [`OrbitSplit`] (a class ranking's representatives)
/// put together from parts kept whole: each placement's key orbits' cells, and per key
/// signs and rest the other orbits' cells and every tile's turn (a tile turns by the
/// coupling element and orientation digits, which the rest holds, wherever it stands).
/// Unranking each board digit by digit took a fifth of the tangram's search by classes.
#[derive(Clone, Debug)]
pub struct RestParts {
    /// Per placement kept: its key orbits' cells (the others 0).
    keys: Vec<Cells>,
    /// Per key signs and rest: the other orbits' cells (key cells 0), and each tile's turn.
    parts: Vec<(Cells, [u8; MAX_CELLS])>,
    key_signs: u64,
    rest_count: u64,
    n_cells: usize,
}

impl RestParts {
    /// The board of `rest` and `placement`, the `kept`-th placement kept.
    #[inline(always)]
    pub fn board(&self, kept: usize, placement: u64, rest: u64) -> Cells {
        let (key, signs) = (&self.keys[kept], placement % self.key_signs);
        let (others, turns) = &self.parts[(signs * self.rest_count + rest) as usize];
        let mut out = [0u8; MAX_CELLS];
        for (o, (&k, &r)) in out[..self.n_cells].iter_mut().zip(key.0.iter().zip(&others.0)) {
            let tile = k | r;
            *o = tile | turns[tile as usize] << TILE_BITS;
        }
        Cells(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::group::analysis::Analysis;
    use crate::puzzle::Puzzle;

    /// Every rank of the hexagon test puzzle (two key orbits tied by their signs to the
    /// centres' flips) goes to one pair of parts and back, for every choice of key orbits,
    /// and its board is put together from the kept parts.
    #[test]
    fn parts_are_a_bijection_onto_the_ranks() {
        let p = Puzzle::parse("def:data/definitions/hexagon.tws", None).unwrap();
        let layout = Layout::without_runs(&p, Analysis::of(&p).unwrap().invariants).unwrap();
        assert_eq!(layout.n_orbits(), 4);
        for (key, placements) in
            [(vec![0], 720), (vec![1], 360), (vec![0, 1], 259_200), (vec![0, 1, 2], 259_200)]
        {
            let split = OrbitSplit::new(&layout, &key);
            let every: Vec<u32> = (0..split.placements() as u32).collect();
            let parts = split.rest_parts(&layout, &every, u64::MAX).expect("no bound");
            assert_eq!(split.placements(), placements, "{key:?}");
            assert_eq!(split.placements() * split.rest_count(), layout.n_states());
            let mut seen = vec![false; layout.n_states() as usize];
            for rank in 0..layout.n_states() {
                let s = layout.unrank(rank);
                let (p, r) = (split.placement(&layout, &s), split.rest(&layout, &s));
                assert!(p < split.placements() && r < split.rest_count(), "{key:?} {rank}");
                let at = (p * split.rest_count() + r) as usize;
                assert!(!seen[at], "{key:?}: two ranks share parts ({p}, {r})");
                seen[at] = true;
                assert_eq!(layout.rank(&split.board(&layout, p, r)), rank, "{key:?}");
                // Put together from its parts: the same board.
                assert_eq!(parts.board(p as usize, p, r), s, "{key:?} {rank}");
            }
        }
    }

    /// The key orbits' images by tables equal those of the boards mapped and ranked, for
    /// every first part and element: the hexagon (12 symmetries with inversion, carrying its
    /// corners onto corners and edges onto edges; with its one-cell centres among the key
    /// orbits too), and the twin triangles (a symmetry exchanges the two orbits, whose signs
    /// the moves tie).
    #[test]
    fn key_images_by_tables_equal_the_boards_mapped() {
        let cases = [
            ("hexagon", 24, vec![vec![0], vec![0, 1], vec![0, 1, 2, 3]]),
            ("twin_triangles", 4, vec![vec![0, 1]]),
        ];
        for (name, order, keys) in cases {
            let spec = format!("def:data/definitions/{name}.tws");
            let p = Puzzle::parse(&spec, None).unwrap();
            let full = Layout::without_runs(&p, Analysis::of(&p).unwrap().invariants).unwrap();
            let classes = crate::symmetry::ClassRanking::new(&p, full).unwrap();
            let (layout, elements) = (classes.layout(), classes.order() as usize);
            assert_eq!(elements, order, "{name}");
            let exchanges = |s: &crate::symmetry::Symmetry| {
                let first = layout.orbit_cells(0)[0] as usize;
                !layout.orbit_cells(0).contains(&s.cells[first])
            };
            let exchanging = classes.symmetries().elements.iter().any(exchanges);
            assert_eq!(exchanging, name == "twin_triangles", "{name}");
            for key in keys {
                let split = OrbitSplit::new(layout, &key);
                let map = |e: usize, s: &Cells| classes.transform(e, s);
                let images = split.key_images(layout, elements, map, 1 << 20).expect("tables");
                let mut out = vec![0u32; elements];
                for placement in 0..split.placements() {
                    images.images(&split, layout, placement, &mut out);
                    let board = split.board(layout, placement, 0);
                    for (e, &image) in out.iter().enumerate() {
                        let by_board = split.placement(layout, &classes.transform(e, &board));
                        assert_eq!(image as u64, by_board, "{name} {key:?}: {placement}, map {e}");
                    }
                }
                // Too few entries allowed: no tables.
                assert!(split.key_images(layout, elements, map, 10).is_none());
            }
        }
    }
}
