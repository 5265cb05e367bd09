//! One entry per class for the "twins": classes whose representative placement `r` an
//! element besides the identity fixes.
//!
//! With `H` the elements fixing `r`, the boards `(r, x)` and `(r, h·x)` for `h` in `H` are one
//! class. An entry per rest would hold such a class once per rest of the orbit `H·x` (the
//! 2x2x2 with every rest kept: 1.56x the classes), so each twin class keeps one entry per
//! orbit of its rests under `H`: a table gives a rest's entry (the same for every rest of an
//! orbit), and per entry the orbit's smallest rest and its length, which is what the entry
//! weighs (`|G| · |H·x| / |H|` boards). Classes then differ in size and follow one another by
//! offsets. Twin classes whose rests `H` permutes alike share a table.
//!
//! Only for rankings without runs of rests (a run would cross the orbits).

use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::ops::Range;

use rayon::prelude::*;

use super::entry_classes::{fold_twins, for_each_marked, scan_serially};
use super::orbits::ElementSet;
use crate::rank::runs::OffsetTable;
use crate::table::DistanceTable;

/// The table of a class with every rest an entry of its own.
const NONE: u32 = u32::MAX;

/// Bytes of tables built together (in parallel) before they are shared: at least one twin
/// class per thread at once, more where their rests are few (the master pyramorphix's 1,336
/// twins of 8 rests took 84 rounds of the threads, 2.9 ms of its 25).
const TWIN_BYTES_AT_ONCE: u64 = 4 << 20;

/// The most rests a twin class may have: a table holds up to nine bytes per rest.
pub(super) const MAX_TWIN_RESTS: u64 = 1 << 26;

/// The entries of every class, twins compacted (see the module docs).
#[derive(Debug)]
pub(super) struct CompactTwins {
    /// Per class, its first entry; last, the number of entries.
    offsets: Vec<u64>,
    /// Per class, the index of its table in `tables`, or [`NONE`].
    table_of: Vec<u32>,
    tables: Vec<OrbitTable>,
}

/// The orbits of a twin class's rests under the elements fixing its representative.
#[derive(Debug)]
struct OrbitTable {
    /// Per rest, its entry within the class (two bytes each where the numbers fit: the
    /// tables of the pyraminx's twins take 16 MiB so, not 31).
    entry_of: OffsetTable,
    /// Per entry, the smallest rest of its orbit.
    smallest: OffsetTable,
    /// Per entry, the orbit's length (at most the group's order, 128).
    len: Vec<u8>,
}

impl OrbitTable {
    /// The orbits of `0..rest_count`, `images(x, out)` writing into `out` the images of `x`
    /// under every element fixing the representative (the identity among them).
    fn new(rest_count: u64, images: impl Fn(u64, &mut Vec<u32>)) -> OrbitTable {
        let mut entry_of = vec![NONE; rest_count as usize];
        let (mut smallest, mut len) = (Vec::new(), Vec::new());
        let mut orbit = Vec::new();
        for x in 0..rest_count as usize {
            if entry_of[x] != NONE {
                continue;
            }
            // Rests are taken in order, so the first of an orbit not yet met is its smallest.
            orbit.clear();
            images(x as u64, &mut orbit);
            orbit.sort_unstable();
            orbit.dedup();
            debug_assert_eq!(orbit[0] as usize, x, "the images of a rest are its orbit");
            let entry = smallest.len() as u32;
            for &y in &orbit {
                entry_of[y as usize] = entry;
            }
            smallest.push(x as u32);
            len.push(orbit.len() as u8);
        }
        let (entry_of, smallest) = (OffsetTable::new(entry_of), OffsetTable::new(smallest));
        OrbitTable { entry_of, smallest, len }
    }

    fn bytes(&self) -> u64 {
        self.entry_of.n_bytes() + self.smallest.n_bytes() + self.len.len() as u64
    }
}

impl CompactTwins {
    /// The entries of `classes` classes of `rest_count` rests each, the twin classes
    /// (`twins`: class and the elements fixing its representative, in class order) one per
    /// orbit: `images(class, fixed, x, out)` writes into `out` the images of rest `x` under
    /// the elements of `fixed`.
    pub fn new(
        classes: usize,
        rest_count: u64,
        twins: &[(u32, ElementSet)],
        images: impl Fn(u32, ElementSet, u64, &mut Vec<u32>) + Sync,
    ) -> CompactTwins {
        assert!(rest_count <= MAX_TWIN_RESTS, "{rest_count} rests are too many for a twin table");
        let mut table_of = vec![NONE; classes];
        let mut tables: Vec<OrbitTable> = Vec::new();
        // Tables by the hash of their entries (a rest's entry tells its orbit, hence the
        // whole table), so that each is held once.
        let (hasher, mut by_hash) = (RandomState::new(), HashMap::<u64, Vec<u32>>::new());
        // A few at a time, each shared as soon as built: twin classes may far outnumber
        // distinct tables (233: 670 and 109), and building all first took 95 MiB there.
        let at_once = (TWIN_BYTES_AT_ONCE / (rest_count * 9).max(1))
            .max(rayon::current_num_threads() as u64) as usize;
        for chunk in twins.chunks(at_once) {
            let built: Vec<OrbitTable> = chunk
                .par_iter()
                .map(|&(class, fixed)| {
                    OrbitTable::new(rest_count, |x, out| images(class, fixed, x, out))
                })
                .collect();
            for (&(class, _), table) in chunk.iter().zip(built) {
                let same = by_hash.entry(hasher.hash_one(&table.entry_of)).or_default();
                let found =
                    same.iter().find(|&&t| tables[t as usize].entry_of.same_as(&table.entry_of));
                table_of[class as usize] = match found {
                    Some(&t) => t,
                    None => {
                        same.push(tables.len() as u32);
                        tables.push(table);
                        tables.len() as u32 - 1
                    }
                };
            }
        }
        let mut offsets = Vec::with_capacity(classes + 1);
        let mut next = 0u64;
        for &t in &table_of {
            offsets.push(next);
            next +=
                if t == NONE { rest_count } else { tables[t as usize].smallest.n_offsets() as u64 };
        }
        offsets.push(next);
        CompactTwins { offsets, table_of, tables }
    }

    /// Number of entries.
    pub fn n_entries(&self) -> u64 {
        *self.offsets.last().expect("an offset past the last class")
    }

    /// The entries of a class.
    pub fn range(&self, class: u32) -> Range<u64> {
        self.offsets[class as usize]..self.offsets[class as usize + 1]
    }

    /// The entry of rest `rest` of class `class`.
    #[inline(always)]
    pub fn entry(&self, class: u32, rest: u64) -> u64 {
        let local = match self.table_of[class as usize] {
            NONE => rest,
            t => self.tables[t as usize].entry_of.get(rest as usize),
        };
        self.offsets[class as usize] + local
    }

    /// The class of an entry and the smallest rest it stands for.
    #[inline(always)]
    pub fn class_and_rest(&self, entry: u64) -> (u32, u64) {
        let class = self.offsets.partition_point(|&o| o <= entry) - 1;
        let local = entry - self.offsets[class];
        let rest = match self.table_of[class] {
            NONE => local,
            t => self.tables[t as usize].smallest.get(local as usize),
        };
        (class as u32, rest)
    }

    /// The length of the orbit of rests an entry of class `class` stands for (1 outside
    /// twin classes).
    #[inline(always)]
    pub fn orbit_len(&self, class: u32, entry: u64) -> u64 {
        let class = class as usize;
        match self.table_of[class] {
            NONE => 1,
            t => self.tables[t as usize].len[(entry - self.offsets[class]) as usize] as u64,
        }
    }

    /// The boards an entry of twin class `class` stands for, `fixed` the elements fixing
    /// its representative and `order` the group's order: `|G| · |H·x| / |H|`.
    #[inline]
    pub fn weight(&self, class: u32, entry: u64, fixed: ElementSet, order: u64) -> u64 {
        order * self.orbit_len(class, entry) / fixed.count_ones() as u64
    }

    /// The boards by which `order` boards per entry overcount the entries of the twin
    /// classes (`twins`) marked `mark` that `table` holds (entry `e` at `local(e)`; a class
    /// may be split between the processes of a distributed search). On the calling thread
    /// where the twins' entries are few ([`scan_serially`]).
    pub fn excess_in(
        &self,
        twins: &[(u32, ElementSet)],
        order: u64,
        table: &DistanceTable,
        local: &(impl Fn(u64) -> Option<u64> + Sync + ?Sized),
        mark: u8,
    ) -> u64 {
        let entries: u64 = (twins.iter().map(|&(class, _)| self.range(class)))
            .map(|range| range.end - range.start)
            .sum();
        let serial = scan_serially(twins.len() as u64 + entries / 32, false, false);
        let (_, excess) = fold_twins(twins, serial, |_, &(class, fixed)| {
            let range = self.range(class);
            let mut excess = 0;
            let mut add = |e: u64| excess += order - self.weight(class, e, fixed, order);
            match (local(range.start), local(range.end - 1)) {
                // Both ends held at indices as far apart as the entries: all between too.
                (Some(a), Some(b)) if b - a == range.end - 1 - range.start => {
                    for_each_marked(table, a..b + 1, mark, |i| add(range.start + (i - a)))
                }
                _ => {
                    for e in range {
                        if local(e).is_some_and(|i| table.get(i) == mark) {
                            add(e);
                        }
                    }
                }
            }
            excess
        });
        excess
    }

    /// Distinct tables, and the bytes they and the offsets take.
    pub fn footprint(&self) -> (usize, u64) {
        let tables: u64 = self.tables.iter().map(OrbitTable::bytes).sum();
        (self.tables.len(), tables + self.offsets.len() as u64 * 12)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three classes of 6 rests; class 1 is a twin whose elements are the identity and
    /// `x -> 5 - x`, class 2 one whose extra element is `x -> x + 3 mod 6`.
    fn example() -> CompactTwins {
        let twins = [(1u32, 0b11u128), (2, 0b101)];
        CompactTwins::new(3, 6, &twins, |class, _, x, out| {
            out.push(x as u32);
            out.push(if class == 1 { 5 - x as u32 } else { (x as u32 + 3) % 6 });
        })
    }

    #[test]
    fn twin_classes_keep_one_entry_per_orbit() {
        let c = example();
        assert_eq!(c.n_entries(), 6 + 3 + 3);
        assert_eq!((c.range(0), c.range(1), c.range(2)), (0..6, 6..9, 9..12));
        // Class 1's orbits {0,5} {1,4} {2,3}; class 2's {0,3} {1,4} {2,5}.
        let class1: Vec<u64> = (0..6).map(|x| c.entry(1, x)).collect();
        assert_eq!(class1, [6, 7, 8, 8, 7, 6]);
        let class2: Vec<u64> = (0..6).map(|x| c.entry(2, x)).collect();
        assert_eq!(class2, [9, 10, 11, 9, 10, 11]);
        for e in 0..c.n_entries() {
            let (class, rest) = c.class_and_rest(e);
            assert_eq!(c.entry(class, rest), e, "entry {e} round-trips");
            assert_eq!(c.orbit_len(class, e), if e < 6 { 1 } else { 2 });
        }
        assert_eq!(c.class_and_rest(10), (2, 1));
        assert_eq!(c.footprint().0, 2, "the two twins permute their rests differently");
    }

    #[test]
    fn twins_that_permute_alike_share_a_table() {
        let twins = [(0u32, 0b11u128), (2, 0b11)];
        let c = CompactTwins::new(3, 4, &twins, |_, _, x, out| {
            out.extend([x as u32, x as u32 ^ 1]);
        });
        assert_eq!(c.footprint().0, 1);
        assert_eq!(c.n_entries(), 2 + 4 + 2);
        assert_eq!(c.class_and_rest(7), (2, 2));
    }
}
