//! The record file of `twirl sample`: a header line naming the sample, then one JSON line
//! per solved board, appended as each is solved.
//!
//! A record is worth days of solving, so it keeps what tables and journals keep:
//! - one process at a time: the file is locked from the moment it is read until the run ends;
//! - each line is written whole, in one write (a kill leaves at most one line cut, last);
//! - each line ends with a `sum` member, the xxh3-64 of the line without it, seeded by the
//!   header line's: a line damaged, edited or copied from another record fails it;
//! - a damaged line anywhere is skipped (its board solved again), never the good lines after
//!   it; a last line cut short is removed, a whole last line that lacks only its newline kept;
//! - the header names the puzzle with the digest of its definition (`def:` puzzles), so a
//!   definition file replaced by another puzzle does not reuse the old puzzle's boards.
//!
//! Records of version 1 (no sums, no digest) are still read: their lines without a sum are
//! taken as they are, lines added later carry one.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{Context, bail};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::{xxh3_64, xxh3_64_with_seed};

use twirl::error::one_line;

/// The version of records this twirl writes: 2 added the sums and the definition digest.
const RECORD_VERSION: u32 = 2;
/// Records without sums or digest, still read.
const LEGACY_VERSION: u32 = 1;
/// What precedes a line's checksum.
const SUM: &str = ",\"sum\":\"";

/// The first line of a record: what the sample is.
#[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
pub struct RecordHeader {
    pub twirl_sample: u32,
    pub puzzle: String,
    pub metric: String,
    pub seed: u64,
    /// For a puzzle read from a definition file: the digest of the definition.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub definition: Option<String>,
}

impl RecordHeader {
    /// The header of a new record of this twirl.
    pub fn new(puzzle: &twirl::puzzle::Puzzle, seed: u64) -> RecordHeader {
        RecordHeader {
            twirl_sample: RECORD_VERSION,
            puzzle: puzzle.spec.named(),
            metric: puzzle.metric.name().to_string(),
            seed,
            definition: puzzle.definition_digest(),
        }
    }

    fn line(&self) -> String {
        serde_json::to_string(self).expect("a header serializes")
    }
}

/// An open record: locked by this process, ready for appending.
pub struct Record {
    path: PathBuf,
    /// The file, and whether a write failed (then nothing more is appended, so a cut line
    /// stays last).
    file: Mutex<(File, bool)>,
    /// The seed of the lines' checksums: the digest of the header line.
    seed: u64,
}

/// What a record held when opened.
pub struct Contents<T> {
    /// The lines read whole, in file order.
    pub lines: Vec<T>,
    /// Lines skipped as damaged (their boards are solved again).
    pub damaged: usize,
}

impl Record {
    /// Opens the record at `path` of the sample `header`, locked: `None` if there is no such
    /// file and `create` is false (nothing is created before there is work to record). An
    /// empty file is a new record. Refused while another process has it open, or if it is
    /// the record of another sample.
    pub fn open<T: DeserializeOwned>(
        path: &Path,
        header: &RecordHeader,
        create: bool,
    ) -> anyhow::Result<Option<(Record, Contents<T>)>> {
        let opened = OpenOptions::new().read(true).append(true).create(create).open(path);
        let mut file = match opened {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !create => return Ok(None),
            Err(e) => return Err(e).with_context(|| format!("opening {}", shown(path))),
        };
        // Before anything is read: another process may be appending.
        if file.try_lock().is_err() {
            bail!(
                "{}: expected a record no other process is using, found it locked (another twirl \
                 sample is appending to it; one run per record: wait for it, or name another \
                 --record)",
                shown(path)
            );
        }
        let mut text = Vec::new();
        file.read_to_end(&mut text).with_context(|| format!("reading {}", shown(path)))?;
        let ours = header.line();
        let (first, rest) = match text.iter().position(|&b| b == b'\n') {
            Some(i) => (&text[..i], &text[i + 1..]),
            None => (&text[..], &[][..]),
        };
        // Nothing yet, or this record's header cut by a crash: a new record.
        if ours.as_bytes().starts_with(first) && rest.is_empty() && first.len() < ours.len() {
            file.set_len(0).with_context(|| format!("writing {}", shown(path)))?;
            write_synced(&mut file, format!("{ours}\n").as_bytes(), path)?;
            twirl::durable::sync_parent(path);
            let record = Record::new(path, file, xxh3_64(ours.as_bytes()));
            return Ok(Some((record, Contents { lines: Vec::new(), damaged: 0 })));
        }
        let found: RecordHeader = serde_json::from_slice(first).map_err(|_| {
            anyhow::anyhow!(
                "{}: expected a sample record of twirl (its first line names the sample), found \
                 something else; name another --record",
                shown(path)
            )
        })?;
        check_header(path, &found, header)?;
        let seed = xxh3_64(first);
        let legacy = found.twirl_sample == LEGACY_VERSION;
        let mut contents = Contents { lines: Vec::new(), damaged: 0 };
        let mut offset = first.len() + 1;
        let mut tail = None;
        for line in rest.split_inclusive(|&b| b == b'\n') {
            let whole = line.ends_with(b"\n");
            let body = line.strip_suffix(b"\n").unwrap_or(line);
            match checked::<T>(body, seed, legacy) {
                Some(value) => {
                    contents.lines.push(value);
                    // A whole line that lacks only its newline is kept: the newline is added.
                    if !whole {
                        tail = Some(Tail::Newline);
                    }
                }
                // Blank lines (two writers' newlines) hold no board; a blank tail would
                // glue itself to the next line, so it goes.
                None if body.iter().all(u8::is_ascii_whitespace) => {
                    if !whole {
                        tail = Some(Tail::Cut(offset as u64));
                    }
                }
                None => {
                    contents.damaged += 1;
                    // A last line cut short by a kill is removed; damaged lines before it are
                    // left as they are (skipped on every reading), so no good line moves.
                    if !whole {
                        tail = Some(Tail::Cut(offset as u64));
                    }
                }
            }
            offset += line.len();
        }
        if first.len() == text.len() {
            tail = Some(Tail::Newline); // a header without its newline
        }
        match tail {
            Some(Tail::Newline) => write_synced(&mut file, b"\n", path)?,
            Some(Tail::Cut(at)) => {
                file.set_len(at).with_context(|| format!("writing {}", shown(path)))?;
                file.sync_data().with_context(|| format!("writing {}", shown(path)))?;
            }
            None => {}
        }
        Ok(Some((Record::new(path, file, seed), contents)))
    }

    fn new(path: &Path, file: File, seed: u64) -> Record {
        Record { path: path.into(), file: Mutex::new((file, false)), seed }
    }

    /// Appends one line, in one write, synced.
    pub fn append<T: Serialize>(&self, value: &T) -> anyhow::Result<()> {
        let line = summed_line(&serde_json::to_string(value)?, self.seed);
        let mut guard = self.file.lock().unwrap();
        let (file, failed) = &mut *guard;
        if *failed {
            bail!("{}: not appended after an earlier write failed", shown(&self.path));
        }
        let written = write_synced(file, line.as_bytes(), &self.path);
        *failed = written.is_err();
        written
    }
}

/// How the end of a record is repaired before appending.
enum Tail {
    /// A whole last line lacks its newline.
    Newline,
    /// A last line cut short, from this offset.
    Cut(u64),
}

/// Whether the record at `path` holds `header`'s sample (its first line names it): read
/// without the lock, to choose a default name, never to append.
pub fn holds_sample(path: &Path, header: &RecordHeader) -> bool {
    let Ok(file) = File::open(path) else { return false };
    let mut first = String::new();
    if std::io::BufRead::read_line(&mut std::io::BufReader::new(file), &mut first).is_err() {
        return false;
    }
    serde_json::from_str::<RecordHeader>(first.trim_end())
        .is_ok_and(|found| check_header(path, &found, header).is_ok())
}

/// Refuses a record of another sample, in one line saying what was expected and found.
fn check_header(path: &Path, found: &RecordHeader, header: &RecordHeader) -> anyhow::Result<()> {
    let path = shown(path);
    if !(LEGACY_VERSION..=RECORD_VERSION).contains(&found.twirl_sample) {
        bail!(
            "{path}: expected a record of version {LEGACY_VERSION} to {RECORD_VERSION}, found \
             version {} (written by a newer twirl); name another --record",
            found.twirl_sample
        );
    }
    let (h, f) = (header, found);
    // Records begun before they named a subset's flags (`def:F` for `def:F --nocorners`),
    // and flags spelled otherwise that make the same definition: the same file with the
    // same definition digest (the subset's own) is the same sample.
    let file = |named: &str| named.split(" --").next().unwrap_or_default().to_string();
    let same_subset = file(&f.puzzle) == file(&h.puzzle)
        && f.definition.is_some()
        && f.definition == h.definition;
    let puzzle_agrees = f.puzzle == h.puzzle || same_subset;
    if !puzzle_agrees || (&f.metric, f.seed) != (&h.metric, h.seed) {
        bail!(
            "{path}: expected the record of {} {} seed {}, found {} {} seed {}; name another \
             --record",
            h.puzzle,
            h.metric,
            h.seed,
            f.puzzle,
            f.metric,
            f.seed
        );
    }
    if f.definition != h.definition {
        let digest = |d: &Option<String>| match d {
            Some(d) => format!("definition digest {d}"),
            None => "no definition digest (an older record)".to_string(),
        };
        bail!(
            "{path}: expected the record of {} with {} (the file as it reads now, with the \
             subset flags given), found one with {}: the definition or its subset flags \
             changed since the record began; restore them or name another --record",
            h.puzzle,
            digest(&h.definition),
            digest(&f.definition)
        );
    }
    Ok(())
}

/// A serialized JSON object with its checksum added as a last member, and a newline.
fn summed_line(object: &str, seed: u64) -> String {
    let sum = xxh3_64_with_seed(object.as_bytes(), seed);
    let open = object.strip_suffix('}').expect("a record line is a JSON object");
    format!("{open}{SUM}{sum:016x}\"}}\n")
}

/// The value of a line whose checksum holds (or, in a record of version 1, a line without
/// one that parses).
fn checked<T: DeserializeOwned>(line: &[u8], seed: u64, legacy: bool) -> Option<T> {
    let text = std::str::from_utf8(line).ok()?;
    match text.rsplit_once(SUM) {
        Some((open, sum)) => {
            let object = format!("{open}}}");
            let want = format!("{:016x}\"}}", xxh3_64_with_seed(object.as_bytes(), seed));
            (sum == want).then(|| serde_json::from_str(&object).ok()).flatten()
        }
        None if legacy => serde_json::from_str(text).ok(),
        None => None,
    }
}

/// Writes `bytes` in one call and syncs them.
fn write_synced(file: &mut File, bytes: &[u8], path: &Path) -> anyhow::Result<()> {
    file.write_all(bytes)
        .and_then(|()| file.sync_data())
        .with_context(|| format!("writing {}", shown(path)))
}

fn shown(path: &Path) -> String {
    one_line(&path.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Line {
        index: u64,
        text: String,
    }

    #[test]
    fn a_summed_line_reads_back_and_an_edit_fails_it() {
        let line =
            summed_line(&serde_json::to_string(&Line { index: 3, text: "a}".into() }).unwrap(), 7);
        let body = line.trim_end().as_bytes();
        assert_eq!(checked::<Line>(body, 7, false), Some(Line { index: 3, text: "a}".into() }));
        // Another record's seed, an edit, or no sum in a record of version 2: refused.
        assert_eq!(checked::<Line>(body, 8, false), None);
        let edited = line.replace("\"index\":3", "\"index\":4");
        assert_eq!(checked::<Line>(edited.trim_end().as_bytes(), 7, true), None);
        let plain = br#"{"index":3,"text":"a"}"#;
        assert_eq!(checked::<Line>(plain, 7, false), None);
        assert!(checked::<Line>(plain, 7, true).is_some());
    }
}
