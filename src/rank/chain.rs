//! Dense ranks from a stabilizer chain, for groups smaller than their invariants allow whose
//! reachable values no search over the invariants' coordinates finds, and too many to list
//! one by one (M24 in its 24-point action: 244,823,040 boards, where the invariants allow
//! 24!/2).
//!
//! A board in working form ([`Cells`]) is read as a permutation `s` of *points*, one point per
//! cell and reduced orientation: `s(c, v)` is the point `(t, v - u)` when tile `t` stands on
//! cell `c` with reduced orientation `u`. A move takes `s` to `τ s` (products left to right:
//! first `τ`, the move on points, then `s`), so the boards are exactly the elements of the
//! group `G = <τ>`. A stabilizer chain of `G` (base `b_0 .. b_{k-1}`, basic orbits `O_i`,
//! coset representatives `u_q` with `b_i^{u_q} = q`) writes each element once as
//! `s = u_{q_{k-1}} ⋯ u_{q_0}`, `q_i ∈ O_i`; the rank is the mixed-radix number of the
//! `q_i`'s places in their orbits, level 0 most significant. Ranking sifts the images of the
//! base points alone (`q_i` is the image of `b_i` once the levels above are divided off:
//! about `k²/2` table reads, one per level on the critical path); unranking composes the
//! representatives on one point per cell (`cells × k` reads, or a byte shuffle per level
//! for at most 32 points).

use num_bigint::BigUint;
use strength_reduce::StrengthReducedU64;

use super::CellRanking;
use super::layout::{
    CellMoves, Cells, CompiledMove, MAX_CELLS, TILE_BITS, TILE_MASK, board_of_cells,
    cells_of_board, check_free_mod,
};
use crate::group::invariants::Invariants;
use crate::group::stabchain::{Perm, StabChain};
use crate::puzzle::{Board, Puzzle};
use crate::{Error, Result};

/// More levels than any group below 2^64 elements has (each basic orbit holds two points or
/// more).
const MAX_LEVELS: usize = 64;

/// One level of the chain, as ranks read it.
#[derive(Clone, Debug)]
struct Level {
    /// The base point's cell.
    cell: u8,
    /// `base_point[byte]`: the point the base point goes to when that byte (a tile and its
    /// turn) stands on the base point's cell: a read instead of a division by the orbit's
    /// orientations.
    base_point: Box<[u8; 256]>,
    /// Number of points in the basic orbit, as a divisor.
    radix: StrengthReducedU64,
    /// `value[q]`: the index of point `q` in the basic orbit times the level's place value
    /// (`u64::MAX` for points off the orbit).
    value: Box<[u64; 256]>,
    /// `inverse_rows[q][p]`: `p` under the inverse of the representative taking the base
    /// point to `q`, in rows by `q` (not by its index in the orbit: ranking then waits on
    /// one read per level, not two), each as long as a byte can index.
    inverse_rows: Vec<[u8; 256]>,
    /// `reps[i * stride + p]`: `p` under the `i`-th representative.
    reps: Vec<u8>,
}

/// Ranks of boards by a stabilizer chain of the group the moves generate (see the module
/// docs).
#[derive(Clone, Debug)]
pub struct ChainRanking {
    n_cells: usize,
    invariants: Invariants,
    degree: usize,
    /// `first[c]`: the point of cell `c` with reduced orientation 0; the cell's points follow.
    first: [u8; MAX_CELLS],
    /// `free_mod[c]`: how many reduced orientations a tile on cell `c` can take.
    free_mod: [u8; MAX_CELLS],
    /// `tile_byte[x]`: the byte of a cell whose orientation-0 point goes to point `x` (at
    /// least 32 entries, for a shuffle to read).
    tile_byte: Vec<u8>,
    /// Bytes from one row of a level's representatives to the next: the points, at least 32
    /// (a row of up to 32 points is read whole by a shuffle).
    stride: usize,
    levels: Vec<Level>,
    n_states: u64,
    /// The chain itself, to tell boards of the group from others.
    chain: StabChain,
    moves: CellMoves,
}

impl ChainRanking {
    /// The ranking of the boards the puzzle's moves reach, `group_order` of them (the order
    /// found by the analysis: the chain stops building once it reaches it).
    pub fn new(
        puzzle: &Puzzle,
        invariants: Invariants,
        group_order: &BigUint,
    ) -> Result<ChainRanking> {
        if puzzle.has_identical_pieces() {
            return Err(Error::Unsupported(
                "ranks by a stabilizer chain count group elements: a puzzle with identical \
                 pieces has fewer boards"
                    .into(),
            ));
        }
        let n = puzzle.n_positions();
        // The count first: it says more than the cells where both refuse.
        let too_large =
            || Error::TooLarge(format!("{group_order} boards: more than 64-bit ranks can count"));
        let n_states = u64::try_from(group_order).map_err(|_| too_large())?;
        if n > MAX_CELLS {
            return Err(Error::TooLarge(format!(
                "boards of more than {MAX_CELLS} cells cannot be searched exhaustively"
            )));
        }
        for o in &invariants.orbits {
            check_free_mod(o)?;
        }
        let mut first = [0u8; MAX_CELLS];
        let mut free_mod = [1u8; MAX_CELLS];
        let (mut point_cell, mut point_orient) = (Vec::new(), Vec::new());
        for c in 0..n {
            let e = invariants.orbits[invariants.orbit_of[c] as usize].free_mod;
            // At most 32 cells of 8 orientations: every point fits a byte.
            first[c] = point_cell.len() as u8;
            free_mod[c] = e;
            for v in 0..e {
                point_cell.push(c as u8);
                point_orient.push(v);
            }
        }
        let degree = point_cell.len();
        let moves = CellMoves::new(puzzle, &invariants);
        let on_points = |m: &CompiledMove| -> Perm {
            let mut tau = vec![0u16; degree];
            for j in 0..n {
                let (src, e) = (m.src[j] as usize, free_mod[j]);
                let turn = m.add[j] >> TILE_BITS;
                for v in 0..e {
                    tau[(first[j] + v) as usize] = (first[src] + (v + e - turn) % e) as u16;
                }
            }
            tau
        };
        let generators: Vec<Perm> = moves.solve_moves().iter().map(on_points).collect();
        let chain = StabChain::with_upper_bound(degree, &generators, group_order);
        if chain.order() != *group_order {
            return Err(Error::Unsupported(format!(
                "the moves act on cells and reduced orientations as a group of {} elements, not \
                 the {group_order} boards the analysis counts",
                chain.order()
            )));
        }
        let radices = chain.orbit_lengths();
        if radices.len() > MAX_LEVELS {
            return Err(too_large());
        }
        let stride = degree.max(32);
        // The byte a point's tile shows on its cell (turned back by the point's orientation).
        let mut tile_byte: Vec<u8> = (0..degree)
            .map(|x| {
                let (c, e) = (point_cell[x], free_mod[point_cell[x] as usize]);
                c | ((e - point_orient[x]) % e) << TILE_BITS
            })
            .collect();
        tile_byte.resize(degree.max(32), 0);
        let mut levels = Vec::with_capacity(radices.len());
        let mut buffer = vec![0u16; degree];
        for (i, &base) in chain.base().iter().enumerate() {
            let orbit = chain.level_orbit(i);
            let (cell, orient) = (point_cell[base as usize], point_orient[base as usize]);
            let e = free_mod[cell as usize];
            let mut base_point = Box::new([0u8; 256]);
            for (byte, point) in (0..=u8::MAX).zip(base_point.iter_mut()) {
                // Bytes no board holds on this cell stay within the points.
                if ((byte & TILE_MASK) as usize) < n && byte >> TILE_BITS < e {
                    *point = point_of_byte(&first, e, orient, byte);
                }
            }
            let weight: u64 = radices[i + 1..].iter().map(|&r| r as u64).product();
            let mut value = Box::new([u64::MAX; 256]);
            let mut inverse_rows = vec![[0u8; 256]; degree];
            let mut reps = vec![0u8; orbit.len() * stride];
            for (k, &q) in orbit.iter().enumerate() {
                value[q as usize] = k as u64 * weight;
                chain.rep_inv_into(i, k, &mut buffer);
                for (p, &x) in buffer.iter().enumerate() {
                    inverse_rows[q as usize][p] = x as u8;
                    reps[k * stride + x as usize] = p as u8;
                }
            }
            levels.push(Level {
                cell,
                base_point,
                radix: StrengthReducedU64::new(orbit.len() as u64),
                value,
                inverse_rows,
                reps,
            });
        }
        Ok(ChainRanking {
            n_cells: n,
            invariants,
            degree,
            first,
            free_mod,
            tile_byte,
            stride,
            levels,
            n_states,
            chain,
            moves,
        })
    }

    /// Number of levels of the chain (the base's length).
    pub fn n_levels(&self) -> usize {
        self.levels.len()
    }

    /// The point `s(c, v)`: where the board sends the point of cell `c` with orientation `v`.
    #[inline(always)]
    fn point_at(&self, s: &Cells, c: usize, v: u8) -> u8 {
        point_of_byte(&self.first, self.free_mod[c], v, s.0[c])
    }

    /// Converts a board to working form, or explains why the moves cannot reach it.
    pub fn cells_of(&self, board: &Board) -> Result<Cells> {
        let cells = cells_of_board(&self.invariants, self.n_cells, board)?;
        let mut s = vec![0u16; self.degree];
        for c in 0..self.n_cells {
            for v in 0..self.free_mod[c] {
                s[(self.first[c] + v) as usize] = self.point_at(&cells, c, v) as u16;
            }
        }
        if !self.chain.contains(&s) {
            return Err(Error::InvalidBoard(
                "the moves cannot reach the board (it lies outside the group they generate)".into(),
            ));
        }
        Ok(cells)
    }

    /// Converts working form back to a board.
    pub fn board_of(&self, s: &Cells) -> Board {
        board_of_cells(&self.invariants, self.n_cells, s)
    }
}

/// The point `(t, v - u)` that the point of orientation `v` of a cell holding `byte` (tile
/// `t`, turned by `u`) goes to, where tiles there take `e` reduced orientations and tile
/// `t`'s points start at `first[t]`.
#[inline(always)]
fn point_of_byte(first: &[u8; MAX_CELLS], e: u8, v: u8, byte: u8) -> u8 {
    let (t, u) = ((byte & TILE_MASK) as usize, byte >> TILE_BITS);
    first[t] + (v + e - u) % e
}

impl CellRanking for ChainRanking {
    fn cell_moves(&self) -> &CellMoves {
        &self.moves
    }

    fn n_ranks(&self) -> u64 {
        self.n_states
    }

    /// The rank of a board of the group in working form (a board outside it has none: see
    /// [`ChainRanking::cells_of`]).
    #[inline]
    fn rank_cells(&self, s: &Cells) -> u64 {
        // A chain's length known to the compiler keeps the base points' images in registers.
        match self.levels.len() {
            1 => self.rank_in::<1>(s, 1),
            2 => self.rank_in::<2>(s, 2),
            3 => self.rank_in::<3>(s, 3),
            4 => self.rank_in::<4>(s, 4),
            5 => self.rank_in::<5>(s, 5),
            6 => self.rank_in::<6>(s, 6),
            7 => self.rank_in::<7>(s, 7),
            8 => self.rank_in::<8>(s, 8),
            9 => self.rank_in::<9>(s, 9),
            10 => self.rank_in::<10>(s, 10),
            k => self.rank_in::<MAX_LEVELS>(s, k),
        }
    }

    /// The board in working form with the given rank (`rank < n_states`).
    #[inline]
    fn unrank_cells(&self, rank: u64) -> Cells {
        debug_assert!(rank < self.n_states);
        #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
        if self.stride == 32 {
            return self.unrank_by_shuffles(rank);
        }
        self.unrank_point_by_point(rank)
    }
}

impl ChainRanking {
    /// [`CellRanking::unrank_cells`] for any number of points: each cell's point moved by
    /// every level's representative in turn.
    fn unrank_point_by_point(&self, rank: u64) -> Cells {
        let mut reps = [&[][..]; MAX_LEVELS];
        let mut rest = rank;
        for (i, lv) in self.levels.iter().enumerate().rev() {
            let (above, d) = StrengthReducedU64::div_rem(rest, lv.radix);
            rest = above;
            reps[i] = &lv.reps[d as usize * self.stride..(d as usize + 1) * self.stride];
        }
        let mut out = [0u8; MAX_CELLS];
        for (c, byte) in out.iter_mut().enumerate().take(self.n_cells) {
            let mut x = self.first[c];
            for rep in reps[..self.levels.len()].iter().rev() {
                x = rep[x as usize];
            }
            *byte = self.tile_byte[x as usize];
        }
        Cells(out)
    }

    /// [`CellRanking::rank_cells`] by the chain's `k <= K` levels: each level divides off its
    /// digit, then moves the images of the base points below it by the inverse of its
    /// representative.
    #[inline(always)]
    fn rank_in<const K: usize>(&self, s: &Cells, k: usize) -> u64 {
        let mut image = [0u8; K];
        for (x, lv) in image.iter_mut().zip(&self.levels) {
            *x = lv.base_point[s.0[lv.cell as usize] as usize];
        }
        let mut rank = 0;
        for (i, lv) in self.levels[..k].iter().enumerate() {
            let q = image[i] as usize;
            debug_assert!(lv.value[q] != u64::MAX, "a board outside the group");
            rank += lv.value[q];
            let inverse = &lv.inverse_rows[q];
            for x in &mut image[i + 1..k] {
                *x = inverse[*x as usize];
            }
        }
        rank
    }

    /// [`CellRanking::unrank_cells`] for at most 32 points: every cell's point moved by each
    /// representative at once, a byte shuffle per level.
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    #[inline(always)]
    fn unrank_by_shuffles(&self, rank: u64) -> Cells {
        use super::simd::{load32, shuffle32, store32};
        fn row(table: &[u8], i: usize) -> &[u8; 32] {
            table[i * 32..(i + 1) * 32].try_into().expect("rows of 32 bytes")
        }
        let mut points = load32(&self.first);
        let mut rest = rank;
        // The least significant digit is the last level's, whose representative acts first.
        for lv in self.levels.iter().rev() {
            let (above, d) = StrengthReducedU64::div_rem(rest, lv.radix);
            rest = above;
            points = shuffle32(load32(row(&lv.reps, d as usize)), points);
        }
        let mut out = store32(shuffle32(load32(row(&self.tile_byte, 0)), points));
        out[self.n_cells..].fill(0);
        Cells(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bfs::{self, Config, NoProgress};
    use crate::group::analysis::Analysis;
    use crate::puzzle::{Metric, PuzzleSpec, defined::Defined, definition::Definition};
    use crate::rank::{Layout, Ranking, StateRanking, StateSpace};
    use crate::table::DistanceTable;
    use bitvec::prelude::*;

    fn defined(text: &str) -> Puzzle {
        let d = Defined::new("test.tws", Definition::parse(text).unwrap()).unwrap();
        Puzzle::new(&PuzzleSpec::Def(std::sync::Arc::new(d)), Metric::Htm).unwrap()
    }

    fn file(name: &str) -> Puzzle {
        let path = format!("{}/data/definitions/{name}", env!("CARGO_MANIFEST_DIR"));
        Puzzle::parse(&format!("def:{path}"), None).unwrap()
    }

    /// The puzzle's space ranked by its chain, whatever ranking the analysis would pick.
    fn by_chain(p: &Puzzle) -> StateSpace {
        let analysis = Analysis::of(p).unwrap();
        let chain =
            ChainRanking::new(p, analysis.invariants.clone(), &analysis.group_order).unwrap();
        StateSpace { analysis, ranking: Ranking::Chain(chain), definition_digest: None }
    }

    fn histogram(p: &Puzzle, space: &StateSpace) -> Vec<u64> {
        let table = DistanceTable::in_memory(space.n_states()).unwrap();
        let out = bfs::search_puzzle(p, space, &table, &Config::new(2), &NoProgress).unwrap();
        assert!(out.complete);
        out.board_histogram().to_vec()
    }

    /// Three standard generators of the Mathieu group M12 on 12 points (95,040 boards,
    /// where the invariants allow 12!/2).
    const M12_MOVES: &str = "Move X\nA\n2 3 4 5 6 7 8 9 10 11 1 12\nEnd\n\
        Move Y\nA\n1 2 7 10 6 4 11 3 9 5 8 12\nEnd\n\
        Move Z\nA\n12 11 6 8 9 3 10 4 5 7 2 1\nEnd\n";
    const S5_MOVES: &str = "Move P\nB\n2 3 4 5 1\nEnd\nMove Q\nB\n2 1 3 4 5\nEnd\n";

    fn m12() -> Puzzle {
        defined(&format!("Name M12\nSet A 12 1\nSolved\nEnd\n{M12_MOVES}"))
    }

    #[test]
    fn m12_by_its_chain_as_by_its_list() {
        let p = m12();
        let space = by_chain(&p);
        assert_eq!(space.n_states(), 95_040);
        let listed = StateSpace::build(&p).unwrap();
        assert!(matches!(listed.ranking, Ranking::Enumerated(_)));
        let h = histogram(&p, &space);
        assert_eq!(h.iter().sum::<u64>(), 95_040);
        assert_eq!(h, histogram(&p, &listed));
        // Every rank is a board of the group, ranked back to itself.
        for r in 0..space.n_states() {
            let board = space.board(r);
            assert_eq!(space.rank_board(&board).unwrap(), r);
            assert!(listed.rank_board(&board).is_ok(), "rank {r}");
        }
        // An odd permutation is no element of M12 (its elements are even).
        let swap = p.parse_board("A 2 1 3 4 5 6 7 8 9 10 11 12").unwrap();
        let e = space.rank_board(&swap).unwrap_err().to_string();
        assert!(e.contains("cannot reach the board"), "{e}");
    }

    /// M12 beside S5, moves of one never touching the other: 11,404,800 boards, too many to
    /// list, and the layout's coordinates too many to search, so the chain ranks them. A
    /// board's distance is the sum of its two parts', so the histogram is the convolution of
    /// the parts' histograms (each searched alone by another ranking).
    #[test]
    fn a_product_too_large_to_list_is_ranked_by_its_chain() {
        let both = defined(&format!(
            "Name M12xS5\nSet A 12 1\nSet B 5 1\nSolved\nEnd\n{M12_MOVES}{S5_MOVES}"
        ));
        let space = StateSpace::build(&both).unwrap();
        assert!(matches!(space.ranking, Ranking::Chain(_)));
        assert_eq!(space.n_states(), 95_040 * 120);
        let part = |p: Puzzle| {
            let space = StateSpace::build(&p).unwrap();
            assert!(!matches!(space.ranking, Ranking::Chain(_)));
            histogram(&p, &space)
        };
        // S5: five pieces under a 5-cycle and a swap.
        let (a, b) =
            (part(m12()), part(defined(&format!("Name S5\nSet B 5 1\nSolved\nEnd\n{S5_MOVES}"))));
        let mut convolution = vec![0u64; a.len() + b.len() - 1];
        for (i, x) in a.iter().enumerate() {
            for (j, y) in b.iter().enumerate() {
                convolution[i + j] += x * y;
            }
        }
        assert_eq!(histogram(&both, &space), convolution);
    }

    /// With orientations mod 3: the 2x2x2 with a fixed corner (3,674,160 boards, the
    /// invariants exact): the chain's ranks are a bijection onto the layout's.
    #[test]
    fn twisted_corners_rank_onto_the_layouts_boards() {
        let p = file("cube2.tws");
        let space = by_chain(&p);
        let Ranking::Chain(chain) = &space.ranking else { unreachable!() };
        let layout = Layout::new(&p, Analysis::of(&p).unwrap().invariants).unwrap();
        assert_eq!(chain.n_states(), layout.n_states());
        let mut seen = bitvec![0; layout.n_states() as usize];
        for r in 0..chain.n_states() {
            let s = chain.unrank(r);
            assert_eq!(chain.rank(&s), r);
            assert!(!seen.replace(layout.rank(&s) as usize, true), "rank {r} twice");
        }
        assert!(seen.all());
    }

    /// The ways of ranking and unranking that only some chains take (a chain of more than
    /// ten levels, more than 32 points) agree with the ones this chain takes.
    #[test]
    fn every_way_of_ranking_agrees() {
        let p = file("cube2.tws");
        let space = by_chain(&p);
        let Ranking::Chain(chain) = &space.ranking else { unreachable!() };
        assert_eq!(chain.n_levels(), 6);
        for r in (0..chain.n_states()).step_by(997) {
            let s = chain.unrank_point_by_point(r);
            assert_eq!(s, chain.unrank_cells(r), "rank {r}");
            assert_eq!(chain.rank_in::<MAX_LEVELS>(&s, chain.n_levels()), r);
        }
    }

    /// A group smaller than its invariants, beside sets they describe: the histogram of
    /// `twsearch -t 1 -g smaller_group.tws` (as tests/definitions.rs has it).
    #[test]
    fn smaller_group_by_its_chain_equals_twsearch() {
        let p = file("smaller_group.tws");
        let space = by_chain(&p);
        assert_eq!(space.n_states(), 5_598_720);
        assert_eq!(
            histogram(&p, &space),
            [
                1, 19, 154, 827, 3470, 11928, 35724, 94925, 221284, 447949, 751283, 1033821,
                1129932, 939818, 586448, 259739, 70329, 10334, 735
            ]
        );
    }
}
