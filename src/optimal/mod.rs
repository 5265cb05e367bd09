//! Shortest solutions: read from a finished distance table ([`descent`]), or found by
//! iterative-deepening A* ([`ida`]) guided by pattern tables ([`pattern`]) that the search
//! engine builds for the puzzle with most tiles made identical, for puzzles whose whole table
//! does not fit.

pub mod at_distance;
pub mod descent;
pub mod ida;
pub mod journal;
pub mod parity;
pub mod pattern;
pub mod tile_distance;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

pub use descent::solve;
pub use journal::SearchJournal;

use crate::Result;
use crate::bfs::Progress;
use crate::puzzle::Puzzle;
use ida::Solver;
use pattern::{PatternTable, Store, default_tracked, pattern_states};

/// A puzzle with its pattern tables, ready to solve boards optimally.
pub struct Prepared {
    /// The puzzle.
    pub puzzle: Puzzle,
    /// Its pattern tables.
    pub tables: Vec<PatternTable>,
}

impl Prepared {
    /// Obtains a pattern table for each group of `tracked` tiles (by default one group: the
    /// first tiles in book order, as many as fit `max_bytes`) from `store`, building those
    /// not stored yet. Each table must fit `max_bytes`.
    pub fn new(
        puzzle: Puzzle,
        tracked: Option<Vec<Vec<u8>>>,
        store: &Store,
        max_bytes: u64,
        threads: usize,
        progress: &dyn Progress,
        stop: Arc<AtomicBool>,
    ) -> Result<Prepared> {
        let groups = match tracked {
            Some(groups) => {
                for t in &groups {
                    let bytes = crate::table::table_bytes(pattern_states(&puzzle, t)?);
                    if bytes > max_bytes {
                        return Err(crate::Error::TooLarge(format!(
                            "the pattern table tracking {} tiles needs {bytes} bytes, more than \
                             the {max_bytes} allowed (track fewer tiles or raise --max-memory)",
                            t.len()
                        )));
                    }
                }
                groups
            }
            None => vec![default_tracked(&puzzle, max_bytes)?],
        };
        let tables = groups
            .iter()
            .map(|t| PatternTable::obtain(&puzzle, t, store, threads, progress, stop.clone()))
            .collect::<Result<Vec<_>>>()?;
        Ok(Prepared { puzzle, tables })
    }

    /// The solver over the tables.
    pub fn solver(&self) -> Result<Solver<'_>> {
        Solver::new(&self.puzzle, &self.tables)
    }
}

#[cfg(test)]
mod tests;
