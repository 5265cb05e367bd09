//! A table kept in a file: created with its header, opened and checked, advanced level by
//! level, finished with a checksum. See [`super::format`] for the layout.

use std::path::{Path, PathBuf};

use super::format::{Header, Part, table_checksum};
use super::{DistanceTable, Storage, table_bytes, unique_bytes};
use crate::bfs::Outcome;
use crate::puzzle::{Metric, Puzzle, PuzzleSpec};
use crate::rank::record::RankingRecord;
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
    /// Creates a new, empty table file for `puzzle` ranked as `ranking` (replacing any file
    /// at `path`: the caller decides whether that is allowed).
    pub fn create(
        path: &Path,
        puzzle: &Puzzle,
        ranking: RankingRecord,
        unique: bool,
    ) -> Result<TableFile> {
        TableFile::create_with(path, puzzle, ranking, unique, None)
    }

    /// Creates the table file of one process of an MPI job: the ranks of `part` only (with
    /// unique-solution bits if `unique`).
    pub fn create_part(
        path: &Path,
        puzzle: &Puzzle,
        ranking: RankingRecord,
        part: Part,
        unique: bool,
    ) -> Result<TableFile> {
        TableFile::create_with(path, puzzle, ranking, unique, Some(part))
    }

    fn create_with(
        path: &Path,
        puzzle: &Puzzle,
        ranking: RankingRecord,
        unique: bool,
        part: Option<Part>,
    ) -> Result<TableFile> {
        let n_states = ranking.n_states;
        let ranks = part.map_or(n_states, |p| p.ranks);
        let header = Header {
            puzzle: puzzle.spec.to_string(),
            metric: puzzle.metric.name().to_string(),
            n_states,
            ranking,
            body_bytes: table_bytes(ranks),
            unique_bytes: if unique { unique_bytes(ranks) } else { 0 },
            complete: false,
            histogram: Vec::new(),
            unique_histogram: None,
            antipodes: Vec::new(),
            elapsed_seconds: 0.0,
            checksum: None,
            boards: Vec::new(),
            part,
            goals: None,
            subset: puzzle.defined().and_then(|d| d.applied_subset().cloned()),
        };
        let bytes = header.body_bytes + header.unique_bytes;
        let storage = Storage::create_file(path, bytes, stages(&header, bytes))?;
        let file = storage.file().expect("a file-backed map");
        header.write_to(file, path)?;
        let table = DistanceTable::new(storage, ranks, unique);
        Ok(TableFile { path: path.into(), header, table })
    }

    /// Opens a table file and checks its header and length (not its body: see
    /// [`TableFile::verify`]). `writable` for resuming a search.
    pub fn open(path: &Path, writable: bool) -> Result<TableFile> {
        let mut f = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
        let header = Header::read_from(&mut f, path)?;
        let bytes = header.body_bytes + header.unique_bytes;
        let staged = writable && stages(&header, bytes);
        let storage = Storage::open_file(path, bytes, writable, staged)?;
        let table = DistanceTable::attach(storage, header.body_ranks(), header.unique_bytes != 0);
        Ok(TableFile { path: path.into(), header, table })
    }

    /// Checks the body and the header against the checksum recorded when the search
    /// finished.
    pub fn verify(&self) -> Result<()> {
        let recorded = self.header.checksum.as_deref().unwrap_or("none");
        let actual = table_checksum(&self.header, self.table.used_bytes());
        if actual != recorded {
            return Err(Error::BadTable {
                path: self.path.clone(),
                reason: format!(
                    "the table is corrupted: its body or header changed after the search \
                     finished (checksum {actual}, recorded {recorded})"
                ),
            });
        }
        Ok(())
    }

    /// The puzzle the table was computed for.
    pub fn puzzle(&self) -> Result<Puzzle> {
        let bad = |e: Error| Error::BadTable {
            path: self.path.clone(),
            reason: format!("its header names a puzzle this twirl cannot build ({e})"),
        };
        let mut spec = PuzzleSpec::parse(&self.header.puzzle).map_err(bad)?;
        if let (PuzzleSpec::Def(d), Some(subset)) = (&mut spec, &self.header.subset) {
            *d = std::sync::Arc::new(d.subset(subset).map_err(bad)?);
        }
        Puzzle::new(&spec, Metric::parse(&self.header.metric).map_err(bad)?).map_err(bad)
    }

    /// Refuses a table computed for another puzzle or metric than `puzzle`.
    pub fn check_puzzle(&self, puzzle: &Puzzle) -> Result<()> {
        let (spec, metric) = (puzzle.spec.to_string(), puzzle.metric.name());
        let subset = puzzle.defined().and_then(|d| d.applied_subset());
        if self.header.puzzle != spec
            || self.header.metric != metric
            || self.header.subset.as_ref() != subset
        {
            let with = |s: Option<&crate::puzzle::subset::Subset>| {
                s.map(|s| format!(" with {}", s.describe())).unwrap_or_default()
            };
            return Err(Error::BadTable {
                path: self.path.clone(),
                reason: format!(
                    "the table is for {}{} in {}, not {spec}{} in {metric}",
                    self.header.puzzle,
                    with(self.header.subset.as_ref()),
                    self.header.metric,
                    with(subset),
                ),
            });
        }
        Ok(())
    }

    /// Refuses a table whose ranks map to boards differently than `current` (this build's).
    pub fn check_ranking(&self, current: &RankingRecord) -> Result<()> {
        match self.header.ranking.difference(current) {
            None => Ok(()),
            Some(why) if why.contains("definition file changed") => {
                Err(Error::BadTable { path: self.path.clone(), reason: why })
            }
            Some(why) => Err(Error::BadTable {
                path: self.path.clone(),
                reason: format!(
                    "the table's ranking differs from this twirl's: {why}; recompute the \
                     table with this version"
                ),
            }),
        }
    }

    /// Records the finished search: flushes the body, then writes the header with the
    /// histogram, antipodes, elapsed seconds, `complete` and the body's checksum.
    pub fn finish(&mut self, outcome: &Outcome, elapsed_seconds: f64) -> Result<()> {
        self.table.flush()?;
        self.header.record_levels(outcome);
        self.header.complete = true;
        self.header.elapsed_seconds = elapsed_seconds;
        self.header.checksum = None;
        self.header.checksum = Some(table_checksum(&self.header, self.table.used_bytes()));
        self.write_header()
    }

    /// Writes the header as it stands (and syncs it).
    pub fn write_header(&self) -> Result<()> {
        let file = self.table.storage().file().expect("a file-backed table");
        self.header.write_to(file, &self.path)
    }
}

impl Header {
    /// Records the finished levels of `outcome`: histogram, unique counts, antipodes.
    pub fn record_levels(&mut self, outcome: &Outcome) {
        self.histogram = outcome.histogram.clone();
        self.unique_histogram = outcome.unique_histogram.clone();
        self.antipodes = outcome.antipodes.clone();
        self.boards = outcome.boards.clone().unwrap_or_default();
    }
}

/// Whether a writable table's body is staged in memory ([`Storage`]'s module docs): when it
/// fits there, except for one process's part of an MPI job (its neighbours on the same
/// machine would each count the same free memory as theirs) and for a search with unique
/// bits (a level under way needs its fresh bits on disk with its marks: a staged flush that a
/// kill cuts short could write one without the other, which the page cache of a mapped body
/// never does).
fn stages(header: &Header, bytes: u64) -> bool {
    header.part.is_none() && header.unique_bytes == 0 && super::file::fits_in_memory(bytes)
}
