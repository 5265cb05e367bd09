//! The ranking record: what a table file needs to say about how its ranks map to boards.
//!
//! A table is only as good as the map from ranks back to boards. Ranks depend on heuristics
//! (the order of orbits, which cells form the runs, how parities and orientation sums are
//! coupled), and a change of any of them would silently reinterpret every existing table.
//! So each table header carries a [`RankingRecord`]: the scheme version, the structure the
//! ranking was built from, and a fingerprint of the map itself (the boards of a fixed
//! sample of ranks). A table is opened only if the record this build computes is equal.

use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::Xxh3;

use super::{Ranking, StateSpace};

/// Version of the ranking scheme. Bump it whenever the rank of any board may change.
pub const RANKING_SCHEME: u32 = 1;

/// How a ranking of classes of boards begins its `kind`.
pub const CLASSES: &str = "classes";

/// What follows a ranking's kind for a puzzle read from a definition, before its digest.
const DEFINITION: &str = " of definition ";

/// Number of ranks whose boards make the fingerprint.
const SAMPLES: u64 = 257;

/// How a table's ranks map to boards. Field names are the JSON of the table header.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RankingRecord {
    /// [`RANKING_SCHEME`] of the build that wrote the table.
    pub scheme: u32,
    /// `layout` (ranks computed from the invariants) or `enumerated` (a sorted list).
    pub kind: String,
    /// Number of ranks.
    pub n_states: u64,
    /// Hex xxh3-64 of the boards at [`SAMPLES`] ranks spread evenly over the rank space,
    /// the first and the last included.
    pub fingerprint: String,
}

impl RankingRecord {
    /// Says how `self` (what a file records) differs from `current` (what this build
    /// computes), or `None` when they are equal.
    pub fn difference(&self, current: &RankingRecord) -> Option<String> {
        if self == current {
            return None;
        }
        Some(if self.scheme != current.scheme {
            format!(
                "it was ranked with scheme {}, this twirl ranks with scheme {}",
                self.scheme, current.scheme
            )
        } else if let (Some((kind, was)), Some((same, now))) =
            (self.kind.split_once(DEFINITION), current.kind.split_once(DEFINITION))
            && kind == same
            && was != now
        {
            format!(
                "it was searched from another definition (digest {was}; the file now reads as \
                 {now}): the definition file changed since the search, so restore it or search again"
            )
        } else if self.kind != current.kind {
            format!("it was ranked as `{}`, this twirl ranks as `{}`", self.kind, current.kind)
        } else if self.n_states != current.n_states {
            format!("it has {} ranks, this twirl ranks {} boards", self.n_states, current.n_states)
        } else {
            format!(
                "its ranks map to other boards (fingerprint {}, this twirl computes {})",
                self.fingerprint, current.fingerprint
            )
        })
    }
}

impl StateSpace {
    /// The kind, followed for a definition by the digest of its text.
    fn kind_with_definition(&self, kind: String) -> String {
        match &self.definition_digest {
            Some(d) => format!("{kind}{DEFINITION}{d}"),
            None => kind,
        }
    }

    /// The record of this ranking, for table headers.
    pub fn ranking_record(&self) -> RankingRecord {
        let n = self.n_states();
        let mut hash = Xxh3::new();
        let samples = SAMPLES.min(n);
        for i in 0..samples {
            // Evenly spread, from 0 to n - 1 inclusive.
            let rank = if samples <= 1 { 0 } else { (n - 1) / (samples - 1) * i };
            let rank = if i + 1 == samples { n - 1 } else { rank };
            let board = self.board(rank);
            hash.update(&rank.to_le_bytes());
            hash.update(&board.tiles);
            hash.update(&board.orient);
        }
        RankingRecord {
            scheme: RANKING_SCHEME,
            kind: self.kind_with_definition(match &self.ranking {
                Ranking::Layout(l) if l.ranks_reachable_couplings() => {
                    "layout of reachable couplings".to_string()
                }
                Ranking::Layout(_) => "layout".to_string(),
                Ranking::Enumerated(_) => "enumerated".to_string(),
                Ranking::Multiset(m) if m.signs_free() => "multiset layout, signs free".to_string(),
                Ranking::Multiset(_) => "multiset layout".to_string(),
                Ranking::Chain(_) => "stabilizer chain".to_string(),
                Ranking::Fibres(_) => "projection and fibres".to_string(),
                Ranking::Classes(c) => format!("{CLASSES} of {}", c.describe()),
                Ranking::CoordClasses(c) => format!("{CLASSES} of {}", c.recorded_kind()),
                Ranking::FibreClasses(c) => format!("{CLASSES} of {}", c.describe()),
                Ranking::FlipClasses(c) => format!("{CLASSES} of {}", c.describe()),
            }),
            n_states: n,
            fingerprint: format!("{:016x}", hash.digest()),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::puzzle::Puzzle;
    use crate::rank::StateSpace;

    fn record(spec: &str) -> super::RankingRecord {
        StateSpace::build(&Puzzle::parse(spec, None).unwrap()).unwrap().ranking_record()
    }

    #[test]
    fn records_tell_rankings_apart() {
        let a = record("nrp:3x3:2");
        assert_eq!(a, record("nrp:3x3:2"), "the record is deterministic");
        assert_eq!(a.kind, "layout");
        assert_eq!(record("nrp:2x3:2").kind, "enumerated");
        let mut moved = a.clone();
        moved.fingerprint = "0000000000000000".into();
        assert!(moved.difference(&a).unwrap().contains("other boards"));
        let mut old = a.clone();
        old.scheme = 0;
        assert!(old.difference(&a).unwrap().contains("scheme 0"));
        assert_eq!(a.difference(&a), None);
    }
}
