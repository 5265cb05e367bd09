//! A record of an optimal search's finished work, so that a search of hours continues where
//! an interruption (Ctrl-C, SIGTERM, a crash, the end of a session) left it.
//!
//! An iteration of IDA* is split into the same tasks in every session ([`SearchJournal::split`]
//! fixes how many; `tasks LIMIT COUNT DIGEST` records the split, checked on every later run),
//! and each finished task is appended as one line, `task LIMIT INDEX NODES`: written whole in
//! one write, so a killed process loses none; synced with the next line written a second or
//! more after the last sync, and at the end of each iteration (a power cut may lose the tasks
//! finished since). An iteration searched in full without a solution adds `exhausted LIMIT
//! NODES` (nodes over every iteration so far). A run given the journal skips the iterations
//! and tasks it lists. The header names the puzzle, the board and the tables; a journal of
//! another search is refused.
//!
//! Every entry ends with ` #` and its checksum, the xxh3-64 of the entry seeded by the
//! header's: an entry edited, damaged, or copied from another search's journal is refused (a
//! skipped iteration would make a longer solution look shortest). Only a last line without its
//! newline (a kill between writes) is dropped on reading. One process at a time: the file is
//! locked while a journal is open. Journals of version 1 (no checksums) are refused.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::pattern::PatternTable;
use crate::puzzle::{Board, Puzzle};
use crate::{Error, Result};

const MAGIC: &str = "twirl search journal 2";
/// The first line of journals without checksums, refused.
const MAGIC_1: &str = "twirl search journal 1";
/// Most tasks an iteration may be split into.
const MAX_SPLIT: usize = 1 << 20;
/// Least time between two syncs of task lines.
const SYNC_EVERY: Duration = Duration::from_secs(1);

/// The finished work of one search, and the file that records more.
pub struct SearchJournal {
    path: PathBuf,
    /// The file (locked while open) and when it was last synced.
    file: Mutex<(File, Instant)>,
    /// Set once a write failed: nothing more is appended (a half-written line stays last).
    failed: AtomicBool,
    split: usize,
    /// Seed of the entries' checksums: the digest of the header.
    seed: u64,
    exhausted: Option<(u32, u64)>,
    finished: HashMap<u32, HashMap<usize, u64>>,
    /// Per iteration, its number of tasks and their digest.
    task_lists: Mutex<HashMap<u32, (u64, u64)>>,
}

/// An entry as written: its text, ` #`, its checksum (seeded by the header), a newline.
fn entry_line(entry: &str, seed: u64) -> String {
    format!("{entry} #{:016x}\n", xxhash_rust::xxh3::xxh3_64_with_seed(entry.as_bytes(), seed))
}

/// The entry of a line whose checksum holds.
fn checked_entry(line: &str, seed: u64) -> Option<&str> {
    let (entry, sum) = line.rsplit_once(" #")?;
    (sum.len() == 16 && entry_line(entry, seed).strip_suffix('\n')? == line).then_some(entry)
}

impl SearchJournal {
    /// Opens (or starts) the journal at `path` for the search named by `identity` (lines
    /// naming the puzzle, board and tables). A new journal splits iterations into `split`
    /// tasks; an existing one keeps its own split. Refused while another process has it open.
    pub fn open(path: &Path, identity: &str, split: usize) -> Result<SearchJournal> {
        let io = |e| Error::io(path, e);
        let mut file =
            OpenOptions::new().read(true).append(true).create(true).open(path).map_err(io)?;
        let refused = |reason: String| Error::Refused { path: path.into(), reason };
        // Before anything is read: another process may be appending.
        if file.try_lock().is_err() {
            return Err(refused(
                "another twirl process is writing this journal (one search per journal)".into(),
            ));
        }
        let mut text = String::new();
        file.read_to_string(&mut text).map_err(|_| Error::Refused {
            path: path.into(),
            reason: "expected a search journal (text), found binary data".into(),
        })?;
        if text.starts_with(&format!("{MAGIC_1}\n")) {
            return Err(refused(format!(
                "expected a journal of version 2 (`{MAGIC}`, with checksums), found one of \
                 version 1 written by an older twirl; remove it and run again to start the \
                 search afresh"
            )));
        }
        let stem = format!("{MAGIC}\n{}\n", identity.trim_end());
        let header = format!("{stem}split {split}\n");
        let wanted: Vec<&str> = header.lines().collect();
        let head = wanted.len() - 1; // all but the split line must match
        // Only whole lines count: a crash can leave the last one cut.
        let complete = text.rfind('\n').map_or(0, |i| i + 1);
        let lines: Vec<&str> = text[..complete].lines().collect();
        // Nothing, or this search's header cut by a crash while it was written: start afresh.
        let cut_split = |r: &str| {
            "split ".starts_with(r)
                || r.strip_prefix("split ").is_some_and(|d| d.bytes().all(|b| b.is_ascii_digit()))
        };
        let cut_header = stem.starts_with(&text) || text.strip_prefix(&stem).is_some_and(cut_split);
        if cut_header {
            file.set_len(0).map_err(io)?;
            file.write_all(header.as_bytes()).map_err(io)?;
            file.sync_all().map_err(io)?;
            crate::durable::sync_parent(path);
            let seed = xxhash_rust::xxh3::xxh3_64(header.as_bytes());
            let none = HashMap::new();
            return Ok(SearchJournal::new(path, file, split, seed, None, none, HashMap::new()));
        }
        // The file is checked before anything in it is changed.
        for (i, want) in wanted[..head].iter().enumerate() {
            let found = lines.get(i).copied().unwrap_or("the end of the file");
            if found != *want {
                return Err(refused(format!(
                    "a journal of another search: line {} expected `{want}`, found `{found}`",
                    i + 1
                )));
            }
        }
        let split_line = lines.get(head).copied().unwrap_or("");
        let split = split_line
            .strip_prefix("split ")
            .and_then(|s| s.parse::<usize>().ok())
            .filter(|&s| (1..=MAX_SPLIT).contains(&s))
            .ok_or_else(|| {
                refused(format!(
                    "line {}: expected `split N` (N from 1 to {MAX_SPLIT}), found `{split_line}`",
                    head + 1
                ))
            })?;
        let seed = xxhash_rust::xxh3::xxh3_64(format!("{stem}{split_line}\n").as_bytes());
        let mut exhausted = None;
        let mut finished: HashMap<u32, HashMap<usize, u64>> = HashMap::new();
        let mut task_lists = HashMap::new();
        for (i, line) in lines.iter().enumerate().skip(head + 1) {
            let shown = crate::error::escaped(line);
            let Some(entry) = checked_entry(line, seed) else {
                return Err(refused(format!(
                    "line {}: expected an entry ending in ` #` and its checksum, found `{shown}` \
                     (edited, damaged or from another journal); remove the journal and run \
                     again to start the search afresh",
                    i + 1
                )));
            };
            let words: Vec<&str> = entry.split(' ').collect();
            let num = |k: usize| words.get(k).and_then(|w| w.parse::<u64>().ok());
            let limit = num(1).and_then(|l| u32::try_from(l).ok());
            let bad = || {
                refused(format!(
                    "line {}: expected `tasks LIMIT COUNT DIGEST`, `task LIMIT INDEX NODES` or \
                     `exhausted LIMIT NODES`, found `{shown}`",
                    i + 1
                ))
            };
            match (words[0], words.len(), limit) {
                ("tasks", 4, Some(l)) => {
                    let (Some(c), Some(d)) = (num(2), num(3)) else { return Err(bad()) };
                    task_lists.insert(l, (c, d));
                }
                ("task", 4, Some(l)) => {
                    let (Some(t), Some(n)) = (num(2), num(3)) else { return Err(bad()) };
                    finished.entry(l).or_default().insert(t as usize, n);
                }
                ("exhausted", 3, Some(l)) => {
                    let Some(n) = num(2) else { return Err(bad()) };
                    exhausted = exhausted.max(Some((l, n)));
                }
                _ => return Err(bad()),
            }
        }
        if complete < text.len() {
            file.set_len(complete as u64).map_err(io)?;
            file.seek(SeekFrom::End(0)).map_err(io)?;
        }
        Ok(SearchJournal::new(path, file, split, seed, exhausted, finished, task_lists))
    }

    fn new(
        path: &Path,
        file: File,
        split: usize,
        seed: u64,
        exhausted: Option<(u32, u64)>,
        finished: HashMap<u32, HashMap<usize, u64>>,
        task_lists: HashMap<u32, (u64, u64)>,
    ) -> SearchJournal {
        SearchJournal {
            path: path.into(),
            file: Mutex::new((file, Instant::now())),
            failed: AtomicBool::new(false),
            split,
            seed,
            exhausted,
            finished,
            task_lists: Mutex::new(task_lists),
        }
    }

    /// Checks that iteration `limit` is split into the same tasks as when the journal
    /// recorded it (`count` tasks whose move sequences digest to `digest`), or records that
    /// split: finished tasks are named by their index, which means nothing in another split.
    pub fn tasks(&self, limit: u32, count: u64, digest: u64) -> Result<()> {
        let mut lists = self.task_lists.lock().unwrap_or_else(|e| e.into_inner());
        match lists.get(&limit) {
            Some(&(c, d)) if (c, d) == (count, digest) => Ok(()),
            Some(&(c, d)) => Err(Error::Refused {
                path: self.path.clone(),
                reason: format!(
                    "depth {limit} was split into {c} tasks (digest {d:016x}) when the journal \
                     was written, and into {count} tasks (digest {digest:016x}) now: another \
                     version of twirl or another puzzle file"
                ),
            }),
            None => {
                self.append(&format!("tasks {limit} {count} {digest}"), true)?;
                lists.insert(limit, (count, digest));
                Ok(())
            }
        }
    }

    /// The header lines naming a search: the puzzle (with a digest of its moves and solved
    /// board, so an edited definition file is another puzzle), the board and the tables.
    pub fn identity(puzzle: &Puzzle, board: &Board, tables: &[PatternTable]) -> String {
        let mut digest = xxhash_rust::xxh3::Xxh3::new();
        for m in &puzzle.moves {
            digest.update(&m.perm);
            digest.update(&m.twist);
        }
        digest.update(&puzzle.solved().tiles);
        let mut out = format!(
            "puzzle {} {} (moves {:016x})\nboard {}",
            puzzle.spec,
            puzzle.metric,
            digest.digest(),
            puzzle.format_board(board)
        );
        for t in tables {
            let tiles: Vec<String> = t.tracked.iter().map(|&x| (x + 1).to_string()).collect();
            out += &format!("\npattern tiles {} ({} patterns)", tiles.join(","), t.n_states());
        }
        out
    }

    /// How many tasks an iteration is split into.
    pub fn split(&self) -> usize {
        self.split
    }

    /// The largest limit searched in full without a solution, and the nodes visited up to
    /// its end.
    pub fn exhausted(&self) -> Option<(u32, u64)> {
        self.exhausted
    }

    /// The tasks of iteration `limit` finished earlier, with the nodes each visited.
    pub fn finished(&self, limit: u32) -> HashMap<usize, u64> {
        self.finished.get(&limit).cloned().unwrap_or_default()
    }

    /// Records task `task` of iteration `limit` as searched (without a solution).
    pub fn task_done(&self, limit: u32, task: usize, nodes: u64) -> Result<()> {
        self.append(&format!("task {limit} {task} {nodes}"), false)
    }

    /// Records iteration `limit` as searched in full, `nodes` visited so far.
    pub fn limit_done(&self, limit: u32, nodes: u64) -> Result<()> {
        self.append(&format!("exhausted {limit} {nodes}"), true)
    }

    /// Syncs what was written.
    pub fn sync(&self) -> Result<()> {
        self.append("", true)
    }

    /// Appends `entry` (none if empty) with its checksum, in one write.
    fn append(&self, entry: &str, sync_now: bool) -> Result<()> {
        let line = if entry.is_empty() { String::new() } else { entry_line(entry, self.seed) };
        let mut guard = self.file.lock().unwrap_or_else(|e| e.into_inner());
        if self.failed.load(Ordering::Relaxed) {
            return Err(Error::io(&self.path, std::io::Error::other("an earlier write failed")));
        }
        let (file, synced) = &mut *guard;
        // One write: a kill leaves the entry whole or cut (dropped on reading), and no other
        // writer can come between its parts.
        let whole = match line.is_empty() {
            true => Ok(()),
            false => file.write(line.as_bytes()).and_then(|n| match n == line.len() {
                true => Ok(()),
                false => Err(std::io::Error::other(format!(
                    "wrote {n} of the {} bytes of an entry (disk full?)",
                    line.len()
                ))),
            }),
        };
        let written = whole.and_then(|()| {
            if sync_now || synced.elapsed() >= SYNC_EVERY {
                file.sync_data()?;
                *synced = Instant::now();
            }
            Ok(())
        });
        written.map_err(|e| {
            self.failed.store(true, Ordering::Relaxed);
            Error::io(&self.path, e)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Appends raw bytes, as a crash or an editor would.
    fn append_raw(path: &Path, bytes: &[u8]) {
        let mut f = OpenOptions::new().append(true).open(path).unwrap();
        f.write_all(bytes).unwrap();
    }

    #[test]
    fn records_survive_reopening_and_a_cut_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.txt");
        let id = "puzzle nrp:4x4:2 qtm\nboard 1 2 / 3 4";
        let j = SearchJournal::open(&path, id, 64).unwrap();
        j.task_done(20, 3, 100).unwrap();
        j.limit_done(20, 5000).unwrap();
        j.task_done(22, 7, 42).unwrap();
        drop(j);
        // A kill in the middle of a line: the cut line goes, every finished one stays.
        let whole = std::fs::read_to_string(&path).unwrap();
        let last = whole.lines().last().unwrap().to_string();
        assert!(last.starts_with("task 22 7 42 #"), "{whole}");
        append_raw(&path, &last.as_bytes()[..last.len() - 3]);
        // Reopened with another split: the journal's own is kept.
        let j = SearchJournal::open(&path, id, 1024).unwrap();
        assert_eq!(j.split(), 64);
        assert_eq!(j.exhausted(), Some((20, 5000)));
        assert_eq!(j.finished(22), HashMap::from([(7, 42)]));
        assert_eq!(j.finished(20), HashMap::from([(3, 100)]));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), whole);
    }

    #[test]
    fn edited_damaged_or_foreign_entries_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.txt");
        let id = "puzzle nrp:4x4:2 qtm\nboard 1 2 / 3 4";
        let j = SearchJournal::open(&path, id, 64).unwrap();
        j.limit_done(18, 5000).unwrap();
        drop(j);
        let good = std::fs::read_to_string(&path).unwrap();
        let refused = |text: &str| {
            std::fs::write(&path, text).unwrap();
            let err = SearchJournal::open(&path, id, 64).err().expect("refused").to_string();
            assert_eq!(std::fs::read_to_string(&path).unwrap(), text, "left as it was");
            err
        };
        // An iteration claimed searched that was not: 18 edited to 20.
        let err = refused(&good.replace("exhausted 18 ", "exhausted 20 "));
        assert!(err.contains("line 5: expected an entry ending in ` #` and its checksum"), "{err}");
        assert!(err.contains("found `exhausted 20 5000 #"), "{err}");
        // A line without a checksum, one with a flipped bit, and one from another search.
        let err = refused(&format!("{good}exhausted 20 6000\n"));
        assert!(err.contains("line 6: expected an entry ending in ` #`"), "{err}");
        let mut bytes = good.clone().into_bytes();
        let at = bytes.len() - 5;
        bytes[at] ^= 1;
        let err = refused(&String::from_utf8(bytes).unwrap());
        assert!(err.contains("line 5:"), "{err}");
        let other = dir.path().join("other.txt");
        let j = SearchJournal::open(&other, "puzzle nrp:4x4:2 qtm\nboard 2 1 / 3 4", 64).unwrap();
        j.limit_done(20, 1).unwrap();
        drop(j);
        let foreign = std::fs::read_to_string(&other).unwrap();
        let err = refused(&format!("{good}{}\n", foreign.lines().last().unwrap()));
        assert!(err.contains("line 6:"), "{err}");
        // Another split line makes every entry another journal's.
        let err = refused(&good.replace("split 64", "split 32"));
        assert!(err.contains("line 5:"), "{err}");
        // A journal of version 1 (no checksums).
        let err = refused("twirl search journal 1\npuzzle nrp:4x4:2 qtm\nsplit 8\nexhausted 9 1\n");
        assert!(err.contains("found one of version 1"), "{err}");
    }

    #[test]
    fn one_process_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.txt");
        let j = SearchJournal::open(&path, "puzzle p", 8).unwrap();
        // A second open (as by another process: locks are per open file) is refused.
        let err = SearchJournal::open(&path, "puzzle p", 8).err().expect("locked").to_string();
        assert!(err.contains("another twirl process is writing this journal"), "{err}");
        j.task_done(3, 1, 5).unwrap();
        drop(j);
        let j = SearchJournal::open(&path, "puzzle p", 8).unwrap();
        assert_eq!(j.finished(3), HashMap::from([(1, 5)]));
    }

    #[test]
    fn another_search_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.txt");
        drop(SearchJournal::open(&path, "puzzle nrp:4x4:2 qtm\nboard A", 64).unwrap());
        let err = SearchJournal::open(&path, "puzzle nrp:4x4:2 qtm\nboard B", 64)
            .err()
            .expect("another board");
        let text = err.to_string();
        assert!(text.contains("line 3 expected `board B`, found `board A`"), "{text}");
        // Refused files are left as they were, a cut last line included.
        append_raw(&path, b"task 9 1");
        let before = std::fs::read(&path).unwrap();
        assert!(SearchJournal::open(&path, "puzzle nrp:4x4:2 qtm\nboard B", 64).is_err());
        assert_eq!(std::fs::read(&path).unwrap(), before);
        let other = dir.path().join("notes.txt");
        std::fs::write(&other, "my notes, no newline").unwrap();
        assert!(SearchJournal::open(&other, "puzzle p", 8).is_err());
        assert_eq!(std::fs::read_to_string(&other).unwrap(), "my notes, no newline");
        let header = format!("{MAGIC}\npuzzle p\nsplit 8\n");
        let seed = xxhash_rust::xxh3::xxh3_64(header.as_bytes());
        std::fs::write(&path, format!("{header}{}", entry_line("nonsense", seed))).unwrap();
        let err = SearchJournal::open(&path, "puzzle p", 8).err().expect("bad line");
        assert!(err.to_string().contains("line 4: expected `tasks"), "{err}");
    }

    #[test]
    fn a_cut_header_starts_afresh_and_splits_are_checked() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.txt");
        std::fs::write(&path, format!("{MAGIC}\npuzzle p\nspl")).unwrap();
        let j = SearchJournal::open(&path, "puzzle p", 16).unwrap();
        assert_eq!(j.split(), 16);
        j.tasks(20, 40, 7).unwrap();
        j.tasks(20, 40, 7).unwrap();
        drop(j);
        assert_eq!(std::fs::read_to_string(&path).unwrap().matches("tasks 20").count(), 1);
        let j = SearchJournal::open(&path, "puzzle p", 16).unwrap();
        j.tasks(20, 40, 7).unwrap();
        let err = j.tasks(20, 41, 7).expect_err("another split");
        assert!(err.to_string().contains("split into 40 tasks"), "{err}");
    }
}
