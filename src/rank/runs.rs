//! Runs of ranks for moves that keep a set of cells to themselves.
//!
//! Put a set `Q` of `q` cells last in the Lehmer order of the last orbit. For a board without
//! orientation, its rank is then `run * len + offset`, where the *run* holds the Lehmer digits
//! of every other cell and the *offset* says how the remaining tiles are arranged on `Q`, times
//! the index of the orbits' signs (the offset's *class*, `offset % classes`). A move that maps
//! `Q` onto itself sends all boards of one run and class to one image run, and permutes
//! offsets by a fixed table (one per parity of the run's own digits of the last orbit). The search
//! then ranks one board per run, offset class and move instead of one per board, and the neighbours of a
//! run's boards lie in one run of the table, close together in memory.
//!
//! NRP (4,4,3): the eight cells of one colour are a `Q` that every block turn keeps, so no
//! board is ranked individually. NRP (3,4,2): the right two columns are kept by four of the
//! six blocks.

use std::sync::Arc;

use rayon::prelude::*;

use super::layout::Layout;
use super::perm::{half_factorial, unrank_in_sign_class};
use super::small_perm::SmallPerm;
use crate::puzzle::Move;

/// The largest `Q` (tables grow as `q!`).
const MAX_Q: usize = 8;
/// The smallest `Q`: a run of `q!` ranks must repay ranking its image runs once per run.
const MIN_Q: usize = 5;

/// A move that keeps `Q`, with its offset tables.
#[derive(Clone, Debug)]
pub struct RunMove {
    /// The move's index in the puzzle's move list.
    pub index: usize,
    /// `offsets[map][x]`: the image offset of offset `x`, by the map the image run names
    /// ([`StateRanking::run_image`](super::StateRanking::run_image)): the run's parity
    /// for a layout's cell runs, the symmetry taking the image to its class for classes of
    /// digits.
    pub offsets: Vec<OffsetTable>,
    /// `by_run[run / by_run_span]`: the index in [`CellRuns::shared`] of the table that
    /// carries that run's offsets onto its image run's, where the map depends on the run
    /// itself (ranks by a projection and its fibres: the element of the fibre's group that
    /// the move and the run's projection make, [`CellRuns::by_run_span`] runs sharing a
    /// projection); empty where `offsets` serve every run.
    pub by_run: Vec<u32>,
}

/// One table of image offsets within a run. Runs of at most 65,536 ranks keep them in `u16`:
/// a step sweeps a move's table for every run, and half the bytes is half its share of the
/// caches (the turnstile's 40 tables of 55,440 offsets: 4.4 MB against 8.9).
///
/// A table may be a stretch of a larger one ([`OffsetTable::part`]) and clones share their
/// memory: the 233's runs read the last digit's stretch of the coordinate tables and the
/// symmetries' maps of its classes without copies of them (2.9 MB).
#[derive(Clone, Debug)]
pub enum OffsetTable {
    /// Offsets of runs of at most 65,536 ranks.
    Narrow(Shared<u16>),
    /// Offsets of longer runs.
    Wide(Shared<u32>),
}

/// Hashed by the offsets it holds, whatever its width: tables equal by
/// [`OffsetTable::same_as`] hash alike.
impl std::hash::Hash for OffsetTable {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_usize(self.n_offsets());
        (0..self.n_offsets()).for_each(|x| state.write_u32(self.get(x) as u32));
    }
}

/// A stretch of numbers that clones share.
#[derive(Clone, Debug)]
pub struct Shared<T> {
    all: Arc<[T]>,
    start: usize,
    len: usize,
}

impl<T> Shared<T> {
    fn whole(all: Arc<[T]>) -> Shared<T> {
        Shared { len: all.len(), all, start: 0 }
    }

    fn part(&self, start: usize, len: usize) -> Shared<T> {
        Shared { all: Arc::clone(&self.all), start: self.start + start, len }
    }
}

impl<T> std::ops::Deref for Shared<T> {
    type Target = [T];
    #[inline(always)]
    fn deref(&self) -> &[T] {
        &self.all[self.start..self.start + self.len]
    }
}

impl OffsetTable {
    /// The table of `offsets`, narrowed when they all fit in `u16`.
    ///
    /// Each table is allocated at its exact length: collecting through `u16::try_from`
    /// loses the length hint and grows the table by doubling (the 233's tables took 1.6
    /// times their bytes).
    pub fn new(offsets: Vec<u32>) -> OffsetTable {
        if offsets.iter().all(|&o| o <= u16::MAX as u32) {
            OffsetTable::Narrow(Shared::whole(offsets.iter().map(|&o| o as u16).collect()))
        } else {
            OffsetTable::Wide(Shared::whole(offsets.into()))
        }
    }

    /// The offsets `start..start + len` of this table, as a table of their own that shares
    /// this one's memory.
    pub fn part(&self, start: usize, len: usize) -> OffsetTable {
        assert!(start + len <= self.n_offsets(), "a part within the table");
        match self {
            OffsetTable::Narrow(t) => OffsetTable::Narrow(t.part(start, len)),
            OffsetTable::Wide(t) => OffsetTable::Wide(t.part(start, len)),
        }
    }

    /// The image offset of offset `x`.
    #[inline(always)]
    pub fn get(&self, x: usize) -> u64 {
        match self {
            OffsetTable::Narrow(t) => t[x] as u64,
            OffsetTable::Wide(t) => t[x] as u64,
        }
    }

    /// The image offsets, four bytes each.
    pub fn to_numbers(&self) -> Vec<u32> {
        (0..self.n_offsets()).map(|x| self.get(x) as u32).collect()
    }

    /// Whether both tables give every offset the same image (whatever their widths).
    pub fn same_as(&self, other: &OffsetTable) -> bool {
        match (self, other) {
            (OffsetTable::Narrow(a), OffsetTable::Narrow(b)) => a[..] == b[..],
            (OffsetTable::Wide(a), OffsetTable::Wide(b)) => a[..] == b[..],
            _ => {
                self.n_offsets() == other.n_offsets()
                    && (0..self.n_offsets()).all(|x| self.get(x) == other.get(x))
            }
        }
    }

    /// The table that undoes this one, `None` unless it is a permutation of its offsets.
    pub fn inverse(&self) -> Option<OffsetTable> {
        let len = self.n_offsets();
        let mut inverse = vec![u32::MAX; len];
        for x in 0..len {
            let slot = inverse.get_mut(self.get(x) as usize)?;
            if *slot != u32::MAX {
                return None;
            }
            *slot = x as u32;
        }
        Some(OffsetTable::new(inverse))
    }

    /// The bytes the offsets take (shared or not).
    pub fn n_bytes(&self) -> u64 {
        match self {
            OffsetTable::Narrow(t) => 2 * t.len() as u64,
            OffsetTable::Wide(t) => 4 * t.len() as u64,
        }
    }

    /// The number of offsets.
    pub fn n_offsets(&self) -> usize {
        match self {
            OffsetTable::Narrow(t) => t.len(),
            OffsetTable::Wide(t) => t.len(),
        }
    }

    /// The image of offset `x` by this table, then by `then` if given.
    #[inline(always)]
    pub fn get_then(&self, x: usize, then: Option<&OffsetTable>) -> u64 {
        let y = self.get(x);
        then.map_or(y, |t| t.get(y as usize))
    }
}

/// A map of offsets a step's inner loop reads, monomorphic in its tables' widths (see
/// [`with_image_offsets`]).
pub trait ImageOffsets: Copy {
    /// The image of offset `x`.
    fn at(self, x: u32) -> u64;
}

impl<T: Copy + Into<u64>> ImageOffsets for &[T] {
    #[inline(always)]
    fn at(self, x: u32) -> u64 {
        self[x as usize].into()
    }
}

/// One map of offsets, then another.
#[derive(Clone, Copy)]
pub struct Then<A, B>(pub A, pub B);

impl<A: ImageOffsets, B: ImageOffsets> ImageOffsets for Then<A, B> {
    #[inline(always)]
    fn at(self, x: u32) -> u64 {
        self.1.at(self.0.at(x) as u32)
    }
}

/// Evaluates `$body` with `$m` bound to the [`ImageOffsets`] of table `$table` followed by
/// the optional `$then`, one arm per combination of widths.
#[macro_export]
macro_rules! with_image_offsets {
    ($table:expr, $then:expr, |$m:ident| $body:expr) => {{
        use $crate::rank::runs::{OffsetTable as T, Then};
        match ($table, $then) {
            (T::Narrow(a), None) => {
                let $m = &a[..];
                $body
            }
            (T::Wide(a), None) => {
                let $m = &a[..];
                $body
            }
            (T::Narrow(a), Some(T::Narrow(b))) => {
                let $m = Then(&a[..], &b[..]);
                $body
            }
            (T::Narrow(a), Some(T::Wide(b))) => {
                let $m = Then(&a[..], &b[..]);
                $body
            }
            (T::Wide(a), Some(T::Narrow(b))) => {
                let $m = Then(&a[..], &b[..]);
                $body
            }
            (T::Wide(a), Some(T::Wide(b))) => {
                let $m = Then(&a[..], &b[..]);
                $body
            }
        }
    }};
}

/// Runs of ranks and the moves that map runs onto runs: a layout's cell runs, or the runs
/// of a coordinate ranking's last digit ([`CoordTables`](super::coord_tables::CoordTables):
/// one offset class, parity 0 alone, no cells of `Q`, no move left in `rest`).
#[derive(Clone, Debug)]
pub struct CellRuns {
    /// Ranks per run.
    pub len: u64,
    /// Number of offset classes (the signs' index is `offset % classes`): boards of one run
    /// but different classes may have different image runs.
    pub classes: u64,
    /// Moves (solving direction) that keep `Q`.
    pub solve: Vec<RunMove>,
    /// Inverse moves that keep `Q` (the same moves, inverted).
    pub scramble: Vec<RunMove>,
    /// Indices of the moves that do not keep `Q` (handled board by board).
    pub rest: Vec<usize>,
    /// The cells of `Q`, 0-based.
    pub cells: Vec<u8>,
    /// Maps of offsets applied after a move's table, by the map an image run names: each
    /// symmetry's map of the last digit for classes of digits, where a table per move and
    /// symmetry would take `|G|` times the memory (the 233's 16 symmetries: 26 MB against
    /// 3). Empty where each map has tables of its own (a layout's parities).
    pub then: Vec<OffsetTable>,
    /// The tables that moves choose run by run ([`RunMove::by_run`]), one per distinct map
    /// of offsets, shared by every move and both directions.
    pub shared: Vec<OffsetTable>,
    /// Consecutive runs that share one entry of [`RunMove::by_run`] (1 but where a fibre's
    /// runs are shorter than the fibre).
    pub by_run_span: u64,
}

impl CellRuns {
    /// The offset table of move `rm` from run `run` into an image run naming `map`, and the
    /// map applied after it, if any.
    #[inline]
    pub fn tables<'a>(
        &'a self,
        rm: &'a RunMove,
        map: usize,
        run: u64,
    ) -> (&'a OffsetTable, Option<&'a OffsetTable>) {
        if !rm.by_run.is_empty() {
            (&self.shared[rm.by_run[(run / self.by_run_span) as usize] as usize], None)
        } else if self.then.is_empty() {
            (&rm.offsets[map], None)
        } else {
            (&rm.offsets[0], Some(&self.then[map]))
        }
    }

    /// Picks `Q` among the last orbit's cells to keep as many moves as possible (at least a
    /// third), reorders that orbit so `Q` comes last ([`CellRuns::choose`]), and builds the
    /// offset tables. `None` when boards carry orientation or no good `Q` exists.
    pub(super) fn build(layout: &mut Layout, moves: &[Move], fixed: &[u8]) -> Option<CellRuns> {
        let q = CellRuns::choose(layout, moves, fixed)?;
        let keeps = |m: &Move| keeps_runs(fixed, &q, m);
        let len = half_factorial(q.len()) * layout.coupling_len() as u64;
        let rest: Vec<usize> = (0..moves.len()).filter(|&i| !keeps(&moves[i])).collect();
        // The arrangements on Q of each sign, unranked once for all moves.
        let arrangements: [Vec<[u8; MAX_Q]>; 2] = [0, 1].map(|sign| {
            (0..half_factorial(q.len()))
                .into_par_iter()
                .map(|r| {
                    let mut arrangement = [0u8; MAX_Q];
                    unrank_in_sign_class(r, sign, q.len(), |i, v| arrangement[i] = v as u8);
                    arrangement
                })
                .collect()
        });
        // The kept moves' tables, on every thread (they are most of a small board's set-up).
        let (layout, arrangements) = (&*layout, &arrangements);
        let small = &SmallPerm::new(q.len()).expect("Q has at most 8 cells");
        let (solve, scramble): (Vec<RunMove>, Vec<RunMove>) = (moves.par_iter().enumerate())
            .filter(|(_, m)| keeps(m))
            .map(|(index, m)| {
                let inverse = m.inverse(1, String::new());
                let solve = RunMove {
                    index,
                    offsets: offset_tables(layout, arrangements, small, &q, m, len),
                    by_run: Vec::new(),
                };
                let scramble = RunMove {
                    index,
                    offsets: offset_tables(layout, arrangements, small, &q, &inverse, len),
                    by_run: Vec::new(),
                };
                (solve, scramble)
            })
            .unzip();
        let classes = layout.coupling_len() as u64;
        Some(CellRuns {
            len,
            classes,
            solve,
            scramble,
            rest,
            cells: q,
            then: Vec::new(),
            shared: Vec::new(),
            by_run_span: 1,
        })
    }

    /// [`CellRuns::build`]'s choice of `Q`, the layout's last orbit reordered so that `Q`
    /// comes last: a layout reordered so without the tables ranks as one with them.
    ///
    /// `fixed` cells (the key cells of a ranking of classes) are left out of `Q` and keep their
    /// place at the head of the orbit; a move keeps `Q` only if it also leaves each of them in
    /// place, since moving a key tile may change the class.
    pub(super) fn choose(layout: &mut Layout, moves: &[Move], fixed: &[u8]) -> Option<Vec<u8>> {
        if !layout.plain_permutations() {
            return None;
        }
        let orbit = layout.orbit_cells(layout.n_orbits() - 1).to_vec();
        let (head, last): (Vec<u8>, Vec<u8>) = orbit.iter().partition(|c| fixed.contains(c));
        let n = last.len();
        if n < MIN_Q {
            return None;
        }
        // Most moves kept first; then the largest Q, whose runs amortize the per-run ranks.
        let mut best: Option<(usize, Vec<u8>)> = None;
        for size in MIN_Q..=n.min(MAX_Q) {
            for_each_subset(&last, size, |q| {
                let count = moves.iter().filter(|m| keeps_runs(fixed, q, m)).count();
                if best.as_ref().is_none_or(|(c, _)| count >= *c) {
                    best = Some((count, q.to_vec()));
                }
            });
        }
        let (count, q) = best?;
        if count * 3 < moves.len() {
            return None;
        }
        let mut order = head;
        order.extend(last.iter().filter(|c| !q.contains(c)));
        order.extend(&q);
        layout.reorder_last_orbit(&order);
        Some(q)
    }
}

/// Whether move `m` keeps the runs on cells `q`: it maps them among themselves and leaves
/// every `fixed` cell in place.
fn keeps_runs(fixed: &[u8], q: &[u8], m: &Move) -> bool {
    fixed.iter().all(|&c| m.perm[c as usize] == c)
        && q.iter().all(|&c| q.contains(&m.perm[c as usize]))
}

/// `offsets[p][x]` for one move (see [`RunMove`]), given `arrangements[sign][r]`, the
/// arrangement on Q of rank `r` in sign class `sign`, and `small` to rank those of Q's size.
fn offset_tables(
    layout: &Layout,
    arrangements: &[Vec<[u8; MAX_Q]>; 2],
    small: &SmallPerm,
    q: &[u8],
    m: &Move,
    len: u64,
) -> Vec<OffsetTable> {
    let size = q.len();
    // Where the tile on the a-th cell of Q goes, as an index into Q.
    let qperm: Vec<usize> =
        q.iter().map(|&c| q.iter().position(|&d| d == m.perm[c as usize]).unwrap()).collect();
    let move_signs = layout.invariants().sign_code(m);
    let n_coupling = layout.coupling_len() as u64;
    let table = |parity: u32| -> Vec<u32> {
        (0..len)
            .map(|x| {
                let h = (x % n_coupling) as usize;
                let arrangement_rank = x / n_coupling;
                let signs = layout.coupling_signs(h);
                // The arrangement on Q has the last orbit's sign minus the parity of the
                // run's own digits of that orbit.
                let sign = ((signs & 1) ^ parity) as usize;
                let arrangement = &arrangements[sign][arrangement_rank as usize];
                let mut moved = [0u8; 32];
                for a in 0..size {
                    moved[qperm[a]] = arrangement[a];
                }
                // The rank within the sign class is the Lehmer index halved.
                let r = small.index(&moved) >> 1;
                let h2 = layout.coupling_index_of(signs ^ move_signs);
                (r * n_coupling + h2 as u64) as u32
            })
            .collect()
    };
    vec![OffsetTable::new(table(0)), OffsetTable::new(table(1))]
}

/// Calls `f` with every `size`-element subset of `items` (in lexicographic order of indices).
pub(crate) fn for_each_subset(items: &[u8], size: usize, mut f: impl FnMut(&[u8])) {
    let n = items.len();
    let mut idx: Vec<usize> = (0..size).collect();
    let mut chosen = vec![0u8; size];
    loop {
        for (c, &i) in chosen.iter_mut().zip(&idx) {
            *c = items[i];
        }
        f(&chosen);
        // Advance to the next combination.
        let mut k = size;
        while k > 0 && idx[k - 1] == n - size + k - 1 {
            k -= 1;
        }
        if k == 0 {
            return;
        }
        idx[k - 1] += 1;
        for j in k..size {
            idx[j] = idx[j - 1] + 1;
        }
    }
}

/// Test support: on 3,000 random ranks of `space`, `kept` moves keep its cell runs, a board
/// unranked within its run is the board of its rank, and the offset tables give the rank of
/// every kept move's image.
#[cfg(test)]
pub(crate) fn check_against_direct_ranks<S: super::StateRanking>(space: &S, kept: usize, name: &str)
where
    S::State: PartialEq + std::fmt::Debug,
{
    let runs = space.cell_runs().unwrap_or_else(|| panic!("{name}: expected cell runs"));
    assert_eq!(runs.solve.len(), kept, "{name}");
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    for _ in 0..3000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let r = x % space.n_states();
        let (run, off) = (r / runs.len, r % runs.len);
        let p = space.run_parity(&space.unrank(run * runs.len));
        let class_base = space.unrank(run * runs.len + off % runs.classes);
        let s = space.unrank(r);
        let bases: Vec<S::State> =
            (0..runs.classes).map(|c| space.unrank(run * runs.len + c)).collect();
        assert_eq!(space.unrank_in_run(&bases, p, off), s, "{name}");
        for (moves, solving) in [(&runs.solve, true), (&runs.scramble, false)] {
            let step = |b: &S::State, m: usize| {
                if solving { space.solve_step(b, m) } else { space.scramble_step(b, m) }
            };
            for rm in moves {
                let (image, map) = space.run_image(&step(&class_base, rm.index), p);
                let expected = space.rank(&step(&s, rm.index));
                let (table, then) = runs.tables(rm, map, run);
                assert_eq!(
                    image / runs.len * runs.len + table.get_then(off as usize, then),
                    expected,
                    "{name}"
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::OffsetTable;

    /// Parts read their stretch of the table, parts of parts too; widths follow the values,
    /// and tables of either width compare by their offsets.
    #[test]
    fn parts_share_their_stretch_of_a_table() {
        let values: Vec<u32> = (0..100).map(|x| (x * 37) % 100).collect();
        let narrow = OffsetTable::new(values.clone());
        assert!(matches!(narrow, OffsetTable::Narrow(_)));
        let part = narrow.part(10, 50);
        assert_eq!(part.n_offsets(), 50);
        assert_eq!(part.n_bytes(), 100);
        assert!((0..50).all(|x| part.get(x) == values[10 + x] as u64));
        let inner = part.part(5, 3);
        assert!((0..3).all(|x| inner.get(x) == values[15 + x] as u64));
        assert!(inner.same_as(&OffsetTable::new(values[15..18].to_vec())));
        assert!(!inner.same_as(&OffsetTable::new(values[16..19].to_vec())));

        let wide = OffsetTable::new(values.iter().map(|&v| v + 70_000).collect());
        assert!(matches!(wide, OffsetTable::Wide(_)));
        assert_eq!(wide.part(99, 1).get(0), values[99] as u64 + 70_000);
        let mixed = OffsetTable::new(vec![1, 2, 70_000]);
        assert!(mixed.part(0, 2).same_as(&OffsetTable::new(vec![1, 2])));
        let hasher = std::hash::RandomState::new();
        let hash = |t: &OffsetTable| std::hash::BuildHasher::hash_one(&hasher, t);
        assert_eq!(hash(&mixed.part(0, 2)), hash(&OffsetTable::new(vec![1, 2])));
        assert!(!mixed.same_as(&OffsetTable::new(vec![1, 2])));
        let inverse = narrow.inverse().expect("a permutation of 0..100");
        assert!((0..100).all(|x| inverse.get(narrow.get(x) as usize) == x as u64));
    }
}
