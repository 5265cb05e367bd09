//! Every rank a level found, while the level is small: a search's last distance is mostly a
//! few thousand entries, and with them in hand the antipodes of a table of classes are listed
//! without scanning the table for them (a scan that reads a third of the table and cannot
//! tell distance `g` from `g - 3` by the marks alone; see `symmetry::antipodes`).

use crate::table::RankSet;

/// Most ranks a level keeps: 128 KiB of ranks. A larger level gives them up, so a worker's
/// cost on a wide level is bounded by this many pushes per pass.
pub const KEEP_AT_MOST: usize = 1 << 14;

/// The ranks found, all of them, until more than [`KEEP_AT_MOST`] were.
#[derive(Debug, Default)]
pub(crate) struct KeptRanks {
    ranks: Vec<u64>,
    overflowed: bool,
}

impl KeptRanks {
    #[inline]
    pub(crate) fn add(&mut self, rank: u64) {
        if self.room_for(1) {
            self.ranks.push(rank);
        }
    }

    #[inline]
    pub(crate) fn add_set(&mut self, ranks: RankSet) {
        if self.room_for(ranks.len() as usize) {
            self.ranks.extend(ranks);
        }
    }

    /// Adds another's ranks (the same level, elsewhere).
    pub(crate) fn merge(&mut self, other: KeptRanks) {
        if other.overflowed {
            self.give_up();
        } else if self.room_for(other.ranks.len()) {
            self.ranks.extend(other.ranks);
        }
    }

    /// Every rank found, or `None` when there were too many to keep.
    pub(crate) fn all(self) -> Option<Vec<u64>> {
        (!self.overflowed).then_some(self.ranks)
    }

    /// Number of ranks kept, or `None` when there were too many to keep.
    pub(crate) fn len(&self) -> Option<u64> {
        (!self.overflowed).then_some(self.ranks.len() as u64)
    }

    /// Whether `n` more ranks may be kept; if not, gives up the ones kept.
    #[inline]
    fn room_for(&mut self, n: usize) -> bool {
        if self.overflowed {
            return false;
        }
        if self.ranks.len() + n > KEEP_AT_MOST {
            self.give_up();
            return false;
        }
        true
    }

    fn give_up(&mut self) {
        self.overflowed = true;
        self.ranks = Vec::new();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_every_rank_up_to_the_limit_and_none_past_it() {
        let mut a = KeptRanks::default();
        (0..KEEP_AT_MOST as u64 - 1).for_each(|r| a.add(r));
        let mut b = KeptRanks::default();
        b.add(7);
        a.merge(b);
        assert_eq!(a.len(), Some(KEEP_AT_MOST as u64));
        let mut c = KeptRanks::default();
        c.add(8);
        a.merge(c);
        assert_eq!(a.len(), None, "one past the limit");
        a.add(9);
        assert_eq!(a.all(), None, "a level that overflowed stays so");
        let mut d = KeptRanks::default();
        d.merge(KeptRanks { ranks: Vec::new(), overflowed: true });
        assert_eq!(d.all(), None, "an overflowed part overflows the whole");
    }
}
