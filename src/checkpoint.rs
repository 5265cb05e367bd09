//! Durable progress of a search kept in a table file: the record next to the table
//! (`FILE.checkpoint`) and the [`Journal`] that writes it.
//!
//! After every finished distance the journal flushes the table (msync) and then replaces the
//! record (write to a temporary file, fsync, rename, fsync the directory), so the record never
//! claims more than the table holds. Inside a long level it does the same every `interval`,
//! noting the level under way: a resume recounts that level's boards from the table (see
//! [`crate::bfs`]), so a killed process loses nothing the kernel holds. (Against power loss
//! the finished levels are safe; a unique search's unfinished level relies on its fresh bits
//! reaching the disk with its marks, which an msync does not order.)

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::bfs::{Direction, Journal, Outcome};
use crate::durable::{with_suffix, write_atomically};
use crate::table::DistanceTable;
use crate::{Error, Result};

/// The progress record. Field names are the JSON format.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Checkpoint {
    /// The puzzle in canonical spec form.
    pub puzzle: String,
    /// The metric.
    pub metric: String,
    /// Number of ranks.
    pub n_states: u64,
    /// Whether unique shortest solutions are counted.
    pub unique: bool,
    /// Boards at each finished distance.
    pub histogram: Vec<u64>,
    /// Boards with one shortest solution at each finished distance (unique searches).
    pub unique_histogram: Vec<u64>,
    /// Seconds spent on each finished level.
    pub level_seconds: Vec<f64>,
    /// Direction of each finished level after the first (`forward` or `backward`).
    pub directions: Vec<String>,
    /// Smallest ranks at the last finished distance.
    pub antipodes: Vec<u64>,
    /// Wall-clock seconds of search so far, over every run.
    pub elapsed_seconds: f64,
    /// The distance being searched when the record was written inside a level.
    pub level_under_way: Option<u32>,
}

/// Where the record of the table at `table` lives: `TABLE.checkpoint`.
pub fn checkpoint_path(table: &Path) -> PathBuf {
    with_suffix(table, ".checkpoint")
}

impl Checkpoint {
    /// A record with no finished level yet.
    pub fn new(puzzle: String, metric: String, n_states: u64, unique: bool) -> Checkpoint {
        Checkpoint {
            puzzle,
            metric,
            n_states,
            unique,
            histogram: Vec::new(),
            unique_histogram: Vec::new(),
            level_seconds: Vec::new(),
            directions: Vec::new(),
            antipodes: Vec::new(),
            elapsed_seconds: 0.0,
            level_under_way: None,
        }
    }

    /// Reads a record.
    pub fn read(path: &Path) -> Result<Checkpoint> {
        let text = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        serde_json::from_slice(&text).map_err(|e| Error::BadTable {
            path: path.into(),
            reason: format!("unreadable checkpoint: {e}"),
        })
    }

    /// Writes the record durably (see the module docs).
    pub fn write(&self, path: &Path) -> Result<()> {
        let text = serde_json::to_vec_pretty(self).expect("a checkpoint serializes");
        write_atomically(path, &text)
    }

    /// The outcome recorded so far, where the search resumes.
    pub fn resume(&self) -> Outcome {
        Outcome {
            histogram: self.histogram.clone(),
            level_seconds: self.level_seconds.clone(),
            directions: self
                .directions
                .iter()
                .map(|d| if d == "backward" { Direction::Backward } else { Direction::Forward })
                .collect(),
            antipodes: self.antipodes.clone(),
            unique_histogram: self.unique.then(|| self.unique_histogram.clone()),
            complete: false,
        }
    }

    fn update(&mut self, outcome: &Outcome) {
        self.histogram = outcome.histogram.clone();
        self.unique_histogram = outcome.unique_histogram.clone().unwrap_or_default();
        self.level_seconds = outcome.level_seconds.clone();
        self.directions = outcome
            .directions
            .iter()
            .map(|d| match d {
                Direction::Forward => "forward".to_string(),
                Direction::Backward => "backward".to_string(),
            })
            .collect();
        self.antipodes = outcome.antipodes.clone();
    }
}

/// Writes the checkpoint of a search in a table file.
pub struct FileJournal {
    path: PathBuf,
    interval: Duration,
    state: Mutex<Checkpoint>,
    last: Mutex<Instant>,
    started: Instant,
    elapsed_before: f64,
    error: Mutex<Option<Error>>,
}

impl FileJournal {
    /// A journal writing `record` (as it stands) to `path`, and inside levels every
    /// `interval`.
    pub fn new(path: PathBuf, record: Checkpoint, interval: Duration) -> FileJournal {
        let elapsed_before = record.elapsed_seconds;
        FileJournal {
            path,
            interval,
            state: Mutex::new(record),
            last: Mutex::new(Instant::now()),
            started: Instant::now(),
            elapsed_before,
            error: Mutex::new(None),
        }
    }

    /// Seconds of search over every run, this one included.
    pub fn elapsed_seconds(&self) -> f64 {
        self.elapsed_before + self.started.elapsed().as_secs_f64()
    }

    /// Flushes the table and records the level under way (after a stop, or from `tick`).
    pub fn save_under_way(&self, table: &DistanceTable) -> Result<()> {
        let mut state = self.state.lock().unwrap();
        table.flush()?;
        state.level_under_way = Some(state.histogram.len() as u32);
        state.elapsed_seconds = self.elapsed_seconds();
        state.write(&self.path)?;
        *self.last.lock().unwrap() = Instant::now();
        Ok(())
    }
}

impl Journal for FileJournal {
    fn level_done(&self, table: &DistanceTable, outcome: &Outcome) -> Result<()> {
        if let Some(e) = self.error.lock().unwrap().take() {
            return Err(e);
        }
        let mut state = self.state.lock().unwrap();
        // The table first: the record must never claim more than the disk holds.
        table.flush()?;
        state.update(outcome);
        state.level_under_way = None;
        state.elapsed_seconds = self.elapsed_seconds();
        state.write(&self.path)?;
        *self.last.lock().unwrap() = Instant::now();
        Ok(())
    }

    fn tick(&self, table: &DistanceTable) {
        {
            let Ok(mut last) = self.last.try_lock() else { return };
            if last.elapsed() < self.interval {
                return;
            }
            // Claim this checkpoint before the slow flush, so other workers do not queue up.
            *last = Instant::now();
        }
        if let Err(e) = self.save_under_way(table) {
            self.error.lock().unwrap().get_or_insert(e);
        }
    }
}
