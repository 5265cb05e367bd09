//! A table kept in a file: created with its header, opened and checked, finished with a
//! checksum. See [`super::format`] for the layout.

use std::path::{Path, PathBuf};

use super::format::{Header, body_checksum};
use super::{DistanceTable, Storage, table_bytes, unique_bytes};
use crate::puzzle::{Metric, Puzzle, PuzzleSpec};
use crate::{Error, Result};

/// A table file: its header and the table mapped from it.
pub struct TableFile {
    /// Where it lives.
    pub path: PathBuf,
    /// What it says about itself (as last written).
    pub header: Header,
    /// The body.
    pub table: DistanceTable,
}

impl TableFile {
    /// Creates a new, empty table file for `puzzle` (replacing any file at `path`).
    pub fn create(path: &Path, puzzle: &Puzzle, n_states: u64, unique: bool) -> Result<TableFile> {
        let header = Header {
            puzzle: puzzle.spec.to_string(),
            metric: puzzle.metric.name().to_string(),
            n_states,
            body_bytes: table_bytes(n_states),
            unique_bytes: if unique { unique_bytes(n_states) } else { 0 },
            complete: false,
            histogram: Vec::new(),
            unique_histogram: None,
            checksum: None,
        };
        let storage = Storage::create_file(path, header.body_bytes + header.unique_bytes)?;
        let file = storage.file().expect("a file-backed map");
        header.write_to(file, path)?;
        let table = DistanceTable::new(storage, n_states, unique);
        Ok(TableFile { path: path.into(), header, table })
    }

    /// Opens a table file and checks its header and length (not its body: see
    /// [`TableFile::verify`]). `writable` for resuming a search.
    pub fn open(path: &Path, writable: bool) -> Result<TableFile> {
        let mut f = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
        let header = Header::read_from(&mut f, path)?;
        let bad = |reason: String| Error::BadTable { path: path.into(), reason };
        if header.body_bytes != table_bytes(header.n_states)
            || (header.unique_bytes != 0 && header.unique_bytes != unique_bytes(header.n_states))
        {
            return Err(bad("corrupted header (sizes do not match the board count)".into()));
        }
        let storage = Storage::open_file(path, header.body_bytes + header.unique_bytes, writable)?;
        let table = DistanceTable::attach(storage, header.n_states, header.unique_bytes != 0);
        Ok(TableFile { path: path.into(), header, table })
    }

    /// Opens a finished table for lookups: complete, and its body matches the checksum.
    pub fn open_finished(path: &Path) -> Result<TableFile> {
        let t = TableFile::open(path, false)?;
        if !t.header.complete {
            return Err(Error::BadTable {
                path: path.into(),
                reason: format!(
                    "the search that writes this table has not finished; finish it with \
                     `twirl resume {}`",
                    path.display()
                ),
            });
        }
        t.verify()?;
        Ok(t)
    }

    /// Checks the body against the checksum recorded when the search finished.
    pub fn verify(&self) -> Result<()> {
        let recorded = self.header.checksum.as_deref().unwrap_or("none");
        let actual = body_checksum(self.table.used_bytes());
        if actual != recorded {
            return Err(Error::BadTable {
                path: self.path.clone(),
                reason: format!(
                    "the table body is corrupted (checksum {actual}, recorded {recorded})"
                ),
            });
        }
        Ok(())
    }

    /// The puzzle the table was computed for.
    pub fn puzzle(&self) -> Result<Puzzle> {
        let spec = PuzzleSpec::parse(&self.header.puzzle)?;
        Puzzle::new(&spec, Metric::parse(&self.header.metric)?)
    }

    /// Refuses a table computed for another puzzle or metric than `puzzle`.
    pub fn check_puzzle(&self, puzzle: &Puzzle) -> Result<()> {
        let (spec, metric) = (puzzle.spec.to_string(), puzzle.metric.name());
        if self.header.puzzle != spec || self.header.metric != metric {
            return Err(Error::BadTable {
                path: self.path.clone(),
                reason: format!(
                    "the table is for {} in {}, not {spec} in {metric}",
                    self.header.puzzle, self.header.metric
                ),
            });
        }
        Ok(())
    }

    /// Records the finished search: flushes the body, then writes the header with the
    /// histogram, `complete` and the body's checksum.
    pub fn finish(&mut self, histogram: &[u64], unique_histogram: Option<&[u64]>) -> Result<()> {
        self.table.flush()?;
        self.header.histogram = histogram.to_vec();
        self.header.unique_histogram = unique_histogram.map(<[u64]>::to_vec);
        self.header.checksum = Some(body_checksum(self.table.used_bytes()));
        self.header.complete = true;
        let file = self.table.storage().file().expect("a file-backed table");
        self.header.write_to(file, &self.path)
    }
}
