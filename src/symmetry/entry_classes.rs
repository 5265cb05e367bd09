//! What a search asks of a table of classes, whichever ranking made it: how many boards an
//! entry stands for, and how a level is completed (the other entries of a class a forward
//! step met marked too). [`super::ClassRanking`] (boards ranked by a layout),
//! [`super::CoordClasses`] (boards with identical pieces, ranked by coordinates) and
//! [`super::FibreClasses`] (by a projection and its fibres) answer.

use rayon::prelude::*;

use super::orbits::ElementSet;
use crate::bfs::Level;
use crate::table::{DistanceTable, mark_of};

/// A table of classes of boards under a group of symmetries, as a search sees it.
pub trait EntryClasses: Sync {
    /// Order of the group acting (with inversion where it joins): the boards an entry
    /// stands for, less the excess of classes that a symmetry fixes.
    fn order(&self) -> u64;
    /// Whether a board and its inverse are one class.
    fn inverts(&self) -> bool;
    /// The ranks a process of a distributed search takes together: whole classes where a
    /// level is completed class by class.
    fn deal_unit(&self) -> u64;
    /// After a level is marked `mark` in a table that holds entry `e` at `local(e)`: with
    /// `mark_twins` (after a forward step, which marks one entry of each class it meets),
    /// marks the other entries of each class met that are still unseen. Returns those newly
    /// marked and the number of boards by which `order` boards per entry overcounts the
    /// entries marked `mark` (every level with that mark, not only the last). A
    /// `small_level` (few entries marked) may be completed on the calling thread
    /// ([`scan_serially`]).
    fn complete_level_in(
        &self,
        table: &DistanceTable,
        local: &(dyn Fn(u64) -> Option<u64> + Sync),
        mark: u8,
        mark_twins: bool,
        small_level: bool,
    ) -> (Level, u64);

    /// For each mark, the excess [`EntryClasses::complete_level_in`] counts in a whole table.
    fn excess_by_mark(&self, table: &DistanceTable) -> [u64; 4] {
        [0u8, 1, 2, 3].map(|m| self.complete_level_in(table, &Some, m, false, false).1)
    }

    /// For each mark, the excess (as [`EntryClasses::complete_level_in`] counts it) of the
    /// distances recorded in `histogram` (entries) and `boards`: `order` boards per entry
    /// less the boards.
    fn recorded_excess(&self, histogram: &[u64], boards: &[u64]) -> [u64; 4] {
        let mut excess = [0u64; 4];
        for (d, (&e, &b)) in histogram.iter().zip(boards).enumerate() {
            excess[mark_of(d as u32) as usize] += e * self.order() - b;
        }
        excess
    }
}

/// The elements of a set besides the identity (element 0), by their set bits: a class's
/// few among up to 128 (reading all 128 bits took most of the 2x2x2's twin tables' build).
pub(crate) fn others(fixed: ElementSet) -> impl Iterator<Item = usize> {
    let mut rest = fixed & !1;
    std::iter::from_fn(move || {
        (rest != 0).then(|| {
            let h = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            h
        })
    })
}

/// Table groups (32 entries each) below which a level's twin classes are scanned on the
/// calling thread: handing a scan this small to the pool's workers costs more than it saves
/// (the mastermorphix's 13,104 twins of one entry each took 0.6 ms a level on two threads,
/// 0.09 ms on one).
pub(crate) const SERIAL_TWIN_GROUPS: u64 = 1 << 15;

/// Whether a scan of about `groups` table groups runs on the calling thread: a small scan
/// that only counts, or one that marks twins after a small level (few marks to follow).
pub(crate) fn scan_serially(groups: u64, mark_twins: bool, small_level: bool) -> bool {
    groups < SERIAL_TWIN_GROUPS && (!mark_twins || small_level)
}

/// Folds `visit` over the twin classes `twins` (it notes the entries it marks in the level
/// given and returns their excess): on the calling thread if `serial`, else on every worker.
pub(crate) fn fold_twins<T: Sync>(
    twins: &[T],
    serial: bool,
    visit: impl Fn(&mut Level, &T) -> u64 + Sync,
) -> (Level, u64) {
    let step = |(mut found, excess): (Level, u64), twin: &T| {
        let more = visit(&mut found, twin);
        (found, excess + more)
    };
    if serial {
        return twins.iter().fold((Level::default(), 0), step);
    }
    (twins.par_iter())
        .fold(|| (Level::default(), 0), step)
        .reduce(|| (Level::default(), 0), |(a, x), (b, y)| (a.merge(b), x + y))
}

/// Calls `f` with every rank in `range` that `table` marks `mark`.
pub(crate) fn for_each_marked(
    table: &DistanceTable,
    range: std::ops::Range<u64>,
    mark: u8,
    mut f: impl FnMut(u64),
) {
    const PER_GROUP: u64 = 32;
    if range.is_empty() {
        return;
    }
    let (first, last) =
        ((range.start / PER_GROUP) as usize, ((range.end - 1) / PER_GROUP) as usize);
    for group in first..=last {
        for r in table.marked(group, mark) {
            if range.contains(&r) {
                f(r);
            }
        }
    }
}

/// Classes whose entries come in blocks of `len`, one block per class of a first part (its
/// class, then a rest or a place), where `twins` lists the classes whose representative
/// elements besides the identity fix, and `image(class, h, offset)` is the offset within
/// its block of the entry at `offset` carried by such an `h` ([`super::CoordClasses`]).
pub(crate) struct TwinBlocks<'a, F> {
    pub twins: &'a [(u32, ElementSet)],
    pub len: u64,
    pub image: F,
}

impl<F: Fn(u32, usize, u64) -> u64 + Sync> TwinBlocks<'_, F> {
    /// [`EntryClasses::complete_level_in`] for a group of order `order`: each block's twins
    /// of its entries marked `mark` (with `mark_twins`), and the excess of those entries,
    /// each standing for `order / |fixed|` boards.
    pub fn complete_level_in(
        &self,
        order: u64,
        table: &DistanceTable,
        local: &(dyn Fn(u64) -> Option<u64> + Sync),
        mark: u8,
        mark_twins: bool,
        small_level: bool,
    ) -> (Level, u64) {
        let groups = self.twins.len() as u64 * (1 + self.len / 32);
        let serial = scan_serially(groups, mark_twins, small_level);
        fold_twins(self.twins, serial, |found, &(class, fixed)| {
            let start = class as u64 * self.len;
            let Some(at) = local(start) else { return 0 };
            let held = at..at + self.len;
            if mark_twins {
                for_each_marked(table, held.clone(), mark, |i| {
                    for h in others(fixed) {
                        let twin = (self.image)(class, h, i - at);
                        if table.mark_if_unseen(at + twin, mark) {
                            found.note(start + twin);
                        }
                    }
                });
            }
            let mut count = 0u64;
            for_each_marked(table, held, mark, |_| count += 1);
            count * (order - order / fixed.count_ones() as u64)
        })
    }

    /// Entries that repeat a class: in each twin block, those with a smaller twin (each
    /// class counted at the smallest of its entries).
    pub fn repeats(&self) -> u64 {
        (self.twins.par_iter())
            .map(|&(class, fixed)| {
                (0..self.len)
                    .filter(|&x| others(fixed).any(|h| (self.image)(class, h, x) < x))
                    .count() as u64
            })
            .sum()
    }
}
