//! Durable progress of a search kept in a table file: the record next to the table
//! (`FILE.checkpoint`) and the [`Journal`] that writes it.
//!
//! After every finished distance the journal flushes the table (the changed chunks of a
//! staged body written, a mapped one's dirty pages by msync: see [`crate::table::Storage`])
//! and then replaces the record (write to a temporary file, fsync, rename, fsync the
//! directory), so the record never claims more than the table holds. Inside a long level it
//! does the same every `interval`, noting the level under way: a resume recounts that level's
//! boards from the table (see [`crate::bfs`]), so a killed process loses at most the work
//! since the last flush. (Against power loss
//! the finished levels are safe; a unique search's unfinished level relies on its fresh bits
//! reaching the disk with its marks, which an msync does not order.)
//!
//! The record is the one account of an unfinished search's progress: a table's header
//! records none until the search finishes and seals it (histogram, antipodes, checksum), and
//! then the record is removed. Against a record edited or damaged, it carries a checksum of
//! its own fields; a resume checks it after the record's other checks against the table and
//! its marks (see [`crate::job`]).
//!
//! The JSON carries a `version` ([`CHECKPOINT_VERSION`]); a record without one, or of
//! another version, is refused.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::bfs::processes::agree;
use crate::bfs::{Direction, Journal, Outcome, Processes, Single};
use crate::durable::{with_suffix, write_atomically};
use crate::error::escaped;
use crate::table::DistanceTable;
use crate::table::format::Header;
use crate::{Error, Result};

/// The checkpoint format this build reads and writes (1: the first with a version, beside
/// a header that recorded the finished distances too; 2: the one record, with a checksum).
pub const CHECKPOINT_VERSION: u32 = 2;

/// Largest checkpoint file read: a real one holds a few hundred numbers.
const MAX_CHECKPOINT_BYTES: u64 = 1 << 20;

/// The progress record. Field names are the JSON format.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Checkpoint {
    /// [`CHECKPOINT_VERSION`].
    pub version: u32,
    /// The puzzle in canonical spec form.
    pub puzzle: String,
    /// The metric.
    pub metric: String,
    /// Number of ranks.
    pub n_states: u64,
    /// The fingerprint of the table's ranking (see [`crate::rank::record`]).
    pub ranking: String,
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
    /// Boards at each finished distance, for a table of symmetry classes (whose
    /// `histogram` counts entries); empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub boards: Vec<u64>,
    /// For a search split over the processes of an MPI job: how many (each keeps its part
    /// of the table in `TABLE.part-P-of-N`); 0 for a search in one table file.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub parts: u32,
    /// Hex xxh3-64 of the record's other fields (see [`Checkpoint::check_sum`]); set by
    /// [`Checkpoint::write`].
    #[serde(default)]
    pub checksum: String,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// Where the record of the table at `table` lives: `TABLE.checkpoint`.
pub fn checkpoint_path(table: &Path) -> PathBuf {
    with_suffix(table, ".checkpoint")
}

impl Checkpoint {
    /// A record with no finished level yet.
    pub fn new(header: &Header) -> Checkpoint {
        Checkpoint {
            version: CHECKPOINT_VERSION,
            puzzle: header.puzzle.clone(),
            metric: header.metric.clone(),
            n_states: header.n_states,
            ranking: header.ranking.fingerprint.clone(),
            unique: header.unique_bytes != 0,
            histogram: Vec::new(),
            unique_histogram: Vec::new(),
            level_seconds: Vec::new(),
            directions: Vec::new(),
            antipodes: Vec::new(),
            elapsed_seconds: 0.0,
            level_under_way: None,
            boards: Vec::new(),
            parts: 0,
            checksum: String::new(),
        }
    }

    /// Reads a record.
    pub fn read(path: &Path) -> Result<Checkpoint> {
        use std::io::Read;
        let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
        let mut text = Vec::new();
        file.take(MAX_CHECKPOINT_BYTES + 1)
            .read_to_end(&mut text)
            .map_err(|e| Error::io(path, e))?;
        if text.len() as u64 > MAX_CHECKPOINT_BYTES {
            return Err(Error::Refused {
                path: path.into(),
                reason: format!(
                    "not a twirl checkpoint (larger than {MAX_CHECKPOINT_BYTES} bytes)"
                ),
            });
        }
        Checkpoint::parse(&text, path)
    }

    /// Reads a record from its JSON text (named `path` in errors): the version first, then
    /// the fields.
    pub fn parse(text: &[u8], path: &Path) -> Result<Checkpoint> {
        let bad = |reason: String| Error::Refused { path: path.into(), reason };
        #[derive(Deserialize)]
        struct VersionOnly {
            version: Option<serde_json::Value>,
        }
        let v: VersionOnly = serde_json::from_slice(text)
            .map_err(|e| bad(format!("unreadable checkpoint: {}", escaped(&e.to_string()))))?;
        match v.version.as_ref().and_then(serde_json::Value::as_u64) {
            Some(v) if v == CHECKPOINT_VERSION as u64 => {}
            found => {
                let older = match found {
                    Some(n) if n < CHECKPOINT_VERSION as u64 => {
                        " (written by an older twirl: continue the search with that build, or \
                         start it again with --force)"
                    }
                    _ => "",
                };
                let found = match (found, &v.version) {
                    (Some(n), _) => format!("version {n}"),
                    (None, None) => "no version".to_string(),
                    (None, Some(other)) => format!("version {}", escaped(&other.to_string())),
                };
                return Err(bad(format!(
                    "checkpoint format {found}, but this twirl reads version \
                     {CHECKPOINT_VERSION}{older}"
                )));
            }
        }
        serde_json::from_slice(text)
            .map_err(|e| bad(format!("unreadable checkpoint: {}", escaped(&e.to_string()))))
    }

    /// Writes the record durably with its checksum (see the module docs).
    pub fn write(&self, path: &Path) -> Result<()> {
        let signed = Checkpoint { checksum: self.sum(), ..self.clone() };
        let text = serde_json::to_vec_pretty(&signed).expect("a checkpoint serializes");
        write_atomically(path, &text)
    }

    /// The checksum of the record's fields but `checksum`.
    fn sum(&self) -> String {
        let unsigned = Checkpoint { checksum: String::new(), ..self.clone() };
        let text = serde_json::to_vec(&unsigned).expect("a checkpoint serializes");
        format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&text))
    }

    /// Refuses a record (read from `path`) whose checksum is not that of its fields: edited or
    /// damaged since it was written.
    pub fn check_sum(&self, path: &Path) -> Result<()> {
        let sum = self.sum();
        if self.checksum == sum {
            return Ok(());
        }
        Err(Error::Refused {
            path: path.into(),
            reason: format!(
                "the checkpoint's checksum {:?} is not that of its contents ({sum}): it was \
                 edited or damaged since it was written; nothing was changed",
                self.checksum
            ),
        })
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
            last_level: None,
            unique_histogram: self.unique.then(|| self.unique_histogram.clone()),
            complete: false,
            boards: (!self.boards.is_empty()).then(|| self.boards.clone()),
        }
    }

    /// Records the finished levels of `outcome`.
    pub fn update(&mut self, outcome: &Outcome) {
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
        self.boards = outcome.boards.clone().unwrap_or_default();
    }
}

/// Writes the record of a search in table files (process 0's checkpoint), after every
/// process has flushed its table. One process, or every process of an MPI job alike: every
/// method but `tick` is collective ([`crate::bfs::processes::agree`] makes a failure on one
/// process a failure on all).
pub struct FileJournal {
    path: PathBuf,
    interval: Duration,
    state: Mutex<Checkpoint>,
    last: Mutex<Instant>,
    started: Instant,
    elapsed_before: f64,
    error: Mutex<Option<Error>>,
    /// Whether this process writes the checkpoint (process 0).
    root: bool,
    /// Whether worker threads checkpoint between tasks (one process; several checkpoint
    /// between exchange rounds, all together).
    ticks: bool,
}

impl FileJournal {
    /// A journal of one process writing `record` (as it stands) to `path` after each level,
    /// and inside levels every `interval`.
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
            root: true,
            ticks: true,
        }
    }

    /// [`FileJournal::new`] for process `index` of several: process 0 writes the checkpoint.
    pub fn of_process(mut self, index: usize) -> FileJournal {
        self.root = index == 0;
        self.ticks = false;
        self
    }

    /// Seconds of search over every run, this one included.
    pub fn elapsed_seconds(&self) -> f64 {
        self.elapsed_before + self.started.elapsed().as_secs_f64()
    }

    /// Flushes the table and records the level under way (after a stop, or from `tick`).
    pub fn save_under_way(&self, table: &DistanceTable, processes: &dyn Processes) -> Result<()> {
        agree(processes, table.flush())?;
        self.write_record(processes, |r| r.level_under_way = Some(r.histogram.len() as u32))?;
        *self.last.lock().unwrap() = Instant::now();
        Ok(())
    }

    /// Process 0 writes the checkpoint after `update`; the others agree.
    fn write_record(
        &self,
        processes: &dyn Processes,
        update: impl FnOnce(&mut Checkpoint),
    ) -> Result<()> {
        let mut state = self.state.lock().unwrap();
        update(&mut state);
        state.elapsed_seconds = self.elapsed_seconds();
        let written = if self.root { state.write(&self.path) } else { Ok(()) };
        agree(processes, written)
    }
}

impl Journal for FileJournal {
    fn level_done(
        &self,
        table: &DistanceTable,
        outcome: &Outcome,
        processes: &dyn Processes,
    ) -> Result<()> {
        let failed = self.error.lock().unwrap().take();
        agree(processes, failed.map_or(Ok(()), Err))?;
        // Every table first: the record must never claim more than the disks hold.
        agree(processes, table.flush())?;
        self.write_record(processes, |r| {
            r.update(outcome);
            r.level_under_way = None;
        })?;
        *self.last.lock().unwrap() = Instant::now();
        Ok(())
    }

    fn tick(&self, table: &DistanceTable) {
        if !self.ticks {
            return;
        }
        {
            let Ok(mut last) = self.last.try_lock() else { return };
            if last.elapsed() < self.interval {
                return;
            }
            // Claim this checkpoint before the slow flush, so other workers do not queue up.
            *last = Instant::now();
        }
        if let Err(e) = self.save_under_way(table, &Single) {
            self.error.lock().unwrap().get_or_insert(e);
        }
    }

    fn due(&self) -> bool {
        !self.ticks && self.last.lock().unwrap().elapsed() >= self.interval
    }

    fn under_way(&self, table: &DistanceTable, processes: &dyn Processes) -> Result<()> {
        self.save_under_way(table, processes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> Checkpoint {
        Checkpoint {
            version: CHECKPOINT_VERSION,
            puzzle: "nrp:2x3:2".into(),
            metric: "qtm".into(),
            n_states: 120,
            ranking: "0123456789abcdef".into(),
            unique: false,
            histogram: vec![1, 4, 10],
            unique_histogram: Vec::new(),
            level_seconds: vec![0.0, 0.1, 0.2],
            directions: vec!["forward".into(), "forward".into()],
            antipodes: vec![3, 9],
            elapsed_seconds: 0.3,
            level_under_way: Some(3),
            boards: Vec::new(),
            parts: 0,
            checksum: String::new(),
        }
    }

    #[test]
    fn versions_are_required() {
        let p = Path::new("t.checkpoint");
        let text = serde_json::to_vec(&record()).unwrap();
        assert_eq!(Checkpoint::parse(&text, p).unwrap(), record());
        let mut v: serde_json::Value = serde_json::from_slice(&text).unwrap();
        v["version"] = 3.into();
        let e = Checkpoint::parse(v.to_string().as_bytes(), p).unwrap_err().to_string();
        assert!(e.contains("version 3, but this twirl reads version 2") && !e.contains("older"));
        v["version"] = 1.into();
        let e = Checkpoint::parse(v.to_string().as_bytes(), p).unwrap_err().to_string();
        assert!(e.contains("version 1, but this twirl reads version 2 (written by an older"));
        v.as_object_mut().unwrap().remove("version");
        let e = Checkpoint::parse(v.to_string().as_bytes(), p).unwrap_err().to_string();
        assert!(e.contains("no version"), "{e}");
        let e = Checkpoint::parse(b"{\"version\": 2, \"x\":\n 1}", p).unwrap_err().to_string();
        assert!(e.starts_with("t.checkpoint: unreadable checkpoint") && !e.contains('\n'), "{e}");
    }

    #[test]
    fn a_written_record_passes_its_checksum_and_an_edited_one_fails() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.checkpoint");
        record().write(&p).unwrap();
        let read = Checkpoint::read(&p).unwrap();
        assert_eq!(Checkpoint { checksum: String::new(), ..read.clone() }, record());
        read.check_sum(&p).unwrap();
        let mut text = std::fs::read_to_string(&p).unwrap();
        text = text.replace("0.2", "0.25");
        std::fs::write(&p, text).unwrap();
        let edited = Checkpoint::read(&p).unwrap();
        let e = edited.check_sum(&p).unwrap_err().to_string();
        assert!(e.contains("edited or damaged") && !e.contains('\n'), "{e}");
        record().check_sum(&p).unwrap_err();
    }

    proptest::proptest! {
        /// Random bytes and real records with bytes changed: an error or a record, never a
        /// panic, and an error on one line.
        #[test]
        fn checkpoint_parser_never_panics(
            noise in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..400),
            edits in proptest::collection::vec(
                (0usize..1000, proptest::prelude::any::<u8>()), 0..6),
        ) {
            let p = Path::new("t.checkpoint");
            if let Err(e) = Checkpoint::parse(&noise, p) {
                proptest::prop_assert!(!e.to_string().contains('\n'));
            }
            let mut text = serde_json::to_vec(&record()).unwrap();
            let n = text.len();
            for &(at, b) in &edits {
                text[at % n] = b;
            }
            if let Err(e) = Checkpoint::parse(&text, p) {
                proptest::prop_assert!(!e.to_string().contains('\n'));
            }
        }
    }
}
