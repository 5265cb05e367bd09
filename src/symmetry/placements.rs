//! The first part of a class ranking: where a symmetry-invariant set of tiles stands.
//!
//! A [`PlacementTable`] lists every placement of the chosen tiles (each on a cell of its own
//! orbit under the moves, no two on one cell) in lexicographic order, and for each one the
//! representative of its class under the symmetry group (the smallest placement of the
//! orbit), a symmetry taking it there and the order of its stabilizer. Conjugating a board
//! by that symmetry brings its chosen tiles to the representative placement; the rest of the
//! board is ranked as before. The counts here size the reduced table (see the design note in
//! the module above).

use super::Symmetries;
use crate::puzzle::Puzzle;

/// Every placement of a set of tiles, reduced to class representatives.
#[derive(Clone, Debug)]
pub struct PlacementTable {
    /// The chosen tiles, sorted; the group maps the set onto itself.
    pub tiles: Vec<u8>,
    /// Placement `i` puts `tiles[j]` on cell `cells[i * tiles.len() + j]`.
    pub cells: Vec<u8>,
    /// The index of the representative of placement `i`'s class.
    pub representative: Vec<u32>,
    /// The index (in [`Symmetries::elements`]) of a symmetry taking placement `i` to its
    /// representative.
    pub symmetry: Vec<u8>,
    /// The number of symmetries fixing placement `i`.
    pub stabilizer: Vec<u8>,
    /// The number of placements each symmetry fixes (for Burnside's count).
    pub fixed: Vec<u64>,
}

/// The orbits of cells under the moves: `orbit[p]` is the smallest cell `p` can reach.
fn cell_orbits(puzzle: &Puzzle) -> Vec<usize> {
    let n = puzzle.n_positions();
    let mut root: Vec<usize> = (0..n).collect();
    fn find(root: &mut [usize], mut x: usize) -> usize {
        while root[x] != x {
            root[x] = root[root[x]];
            x = root[x];
        }
        x
    }
    for m in &puzzle.moves {
        for (i, &j) in m.perm.iter().enumerate() {
            let (a, b) = (find(&mut root, i), find(&mut root, j as usize));
            root[a.max(b)] = a.min(b);
        }
    }
    (0..n).map(|p| find(&mut root, p)).collect()
}

impl PlacementTable {
    /// Lists and reduces every placement of `tiles` (tile numbers from 0, a set the group
    /// maps onto itself). Boards of a puzzle whose group is every arrangement its orbits and
    /// parities allow put the chosen tiles in each placement equally often when each orbit
    /// keeps at least two cells free of them; other groups may reach fewer placements.
    pub fn build(puzzle: &Puzzle, syms: &Symmetries, tiles: &[u8]) -> PlacementTable {
        let n = puzzle.n_positions();
        let mut tiles = tiles.to_vec();
        tiles.sort_unstable();
        tiles.dedup();
        let mut slot = vec![usize::MAX; n];
        for (j, &t) in tiles.iter().enumerate() {
            slot[t as usize] = j;
        }
        for s in &syms.elements {
            let moved_in = tiles.iter().all(|&t| slot[s.cells[t as usize] as usize] != usize::MAX);
            assert!(moved_in, "{} does not map the chosen tiles onto themselves", s.name);
        }
        let orbit = cell_orbits(puzzle);
        let allowed: Vec<Vec<u8>> = tiles
            .iter()
            .map(|&t| (0..n).filter(|&p| orbit[p] == orbit[t as usize]).map(|p| p as u8).collect())
            .collect();
        // Depth-first, cells ascending at every depth: the list comes out sorted.
        let k = tiles.len();
        let mut cells = Vec::new();
        let mut current = vec![0u8; k];
        let mut used = vec![false; n];
        fn place(
            depth: usize,
            allowed: &[Vec<u8>],
            current: &mut Vec<u8>,
            used: &mut Vec<bool>,
            out: &mut Vec<u8>,
        ) {
            if depth == allowed.len() {
                out.extend_from_slice(current);
                return;
            }
            for &p in &allowed[depth] {
                if !used[p as usize] {
                    used[p as usize] = true;
                    current[depth] = p;
                    place(depth + 1, allowed, current, used, out);
                    used[p as usize] = false;
                }
            }
        }
        place(0, &allowed, &mut current, &mut used, &mut cells);
        // The empty set has one placement.
        let len = cells.len().checked_div(k).unwrap_or(1);
        // The list is a mixed-radix count: tile j has as many choices as its orbit has cells
        // not taken by earlier chosen tiles of the same orbit, whatever those cells are.
        let mut rank_in_orbit = vec![0usize; n];
        for p in 0..n {
            rank_in_orbit[p] = (0..p).filter(|&q| orbit[q] == orbit[p]).count();
        }
        let same_before: Vec<Vec<usize>> = (0..k)
            .map(|j| {
                (0..j).filter(|&i| orbit[tiles[i] as usize] == orbit[tiles[j] as usize]).collect()
            })
            .collect();
        let radix: Vec<usize> = (0..k).map(|j| allowed[j].len() - same_before[j].len()).collect();
        let index_of = |placement: &[u8]| -> usize {
            let mut index = 0;
            for j in 0..k {
                let p = placement[j];
                let taken_below = same_before[j].iter().filter(|&&i| placement[i] < p).count();
                index = index * radix[j] + rank_in_orbit[p as usize] - taken_below;
            }
            debug_assert_eq!(&cells[index * k..(index + 1) * k], placement);
            index
        };
        let mut representative = vec![u32::MAX; len];
        let mut symmetry = vec![0u8; len];
        let mut stabilizer = vec![0u8; len];
        let mut fixed = vec![0u64; syms.order()];
        let mut image = vec![0u8; k];
        let mut images = vec![0usize; syms.order()];
        for i in 0..len {
            let placement = &cells[i * k..(i + 1) * k];
            for (e, s) in syms.elements.iter().enumerate() {
                // Conjugation puts tile s(t) on cell s(p) when t stood on p.
                for (j, &t) in tiles.iter().enumerate() {
                    image[slot[s.cells[t as usize] as usize]] = s.cells[placement[j] as usize];
                }
                images[e] = index_of(&image);
            }
            let smallest = *images.iter().min().expect("the group has the identity");
            representative[i] = smallest as u32;
            symmetry[i] = images.iter().position(|&j| j == smallest).unwrap() as u8;
            for (e, &j) in images.iter().enumerate() {
                if j == i {
                    stabilizer[i] += 1;
                    fixed[e] += 1;
                }
            }
        }
        PlacementTable { tiles, cells, representative, symmetry, stabilizer, fixed }
    }

    /// The number of placements.
    pub fn len(&self) -> u64 {
        self.representative.len() as u64
    }

    /// Whether there is no placement (never: the empty set has one).
    pub fn is_empty(&self) -> bool {
        self.representative.is_empty()
    }

    /// The number of classes (representatives).
    pub fn classes(&self) -> u64 {
        self.representative.iter().enumerate().filter(|&(i, &r)| r as usize == i).count() as u64
    }

    /// The number of classes by Burnside's lemma, from the fixed placements of each symmetry.
    pub fn burnside_classes(&self) -> u64 {
        let sum: u64 = self.fixed.iter().sum();
        assert_eq!(sum % self.fixed.len() as u64, 0);
        sum / self.fixed.len() as u64
    }

    /// The number of placements fixed by some symmetry other than the identity.
    pub fn with_stabilizer(&self) -> u64 {
        self.stabilizer.iter().filter(|&&s| s > 1).count() as u64
    }

    /// The number of representatives fixed by some symmetry other than the identity.
    pub fn classes_with_stabilizer(&self) -> u64 {
        (0..self.representative.len())
            .filter(|&i| self.representative[i] as usize == i && self.stabilizer[i] > 1)
            .count() as u64
    }
}
