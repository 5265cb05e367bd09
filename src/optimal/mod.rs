//! Shortest solutions: read from a finished distance table ([`descent`]), or found by
//! iterative-deepening A* ([`ida`]) guided by pattern tables ([`pattern`]) that the search
//! engine builds for the puzzle with most tiles made identical, for puzzles whose whole table
//! does not fit.

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
    /// Obtains the pattern table tracking `tracked` (by default the first tiles in book
    /// order, as many as fit `max_bytes`) from `store`, building it if needed.
    pub fn new(
        puzzle: Puzzle,
        tracked: Option<Vec<u8>>,
        store: &Store,
        max_bytes: u64,
        threads: usize,
        progress: &dyn Progress,
        stop: Arc<AtomicBool>,
    ) -> Result<Prepared> {
        let tracked = match tracked {
            Some(t) => {
                let bytes = crate::table::table_bytes(pattern_states(&puzzle, &t)?);
                if bytes > max_bytes {
                    return Err(crate::Error::TooLarge(format!(
                        "the pattern table tracking {} tiles needs {bytes} bytes, more than the \
                         {max_bytes} allowed (track fewer tiles or raise --max-memory)",
                        t.len()
                    )));
                }
                t
            }
            None => default_tracked(&puzzle, max_bytes)?,
        };
        let table = PatternTable::obtain(&puzzle, &tracked, store, threads, progress, stop)?;
        Ok(Prepared { puzzle, tables: vec![table] })
    }

    /// The solver over the tables.
    pub fn solver(&self) -> Result<Solver<'_>> {
        Solver::new(&self.puzzle, &self.tables)
    }
}

#[cfg(test)]
mod tests;
