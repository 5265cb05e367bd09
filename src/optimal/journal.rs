//! A record of an optimal search's finished work, so that a search of hours continues where
//! an interruption (Ctrl-C, SIGTERM, a crash, the end of a session) left it.
//!
//! An iteration of IDA* is split into the same tasks on every run ([`SearchJournal::split`]
//! fixes how many), and each finished task is appended as one line, `task LIMIT INDEX NODES`
//! (written at once, so a killed process loses none; synced to disk at most a second after,
//! so a power cut loses at most a second of work); an iteration searched in full without a solution adds
//! `exhausted LIMIT NODES` (nodes over every iteration so far). A run given the journal skips
//! the iterations and tasks it lists. The header names the puzzle, the board and the tables;
//! a journal of another search is refused. A line cut by a crash is dropped on reading.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::{Error, Result};

const MAGIC: &str = "twirl search journal 1";
/// Longest time a written line waits to be synced.
const SYNC_EVERY: Duration = Duration::from_secs(1);

/// The finished work of one search, and the file that records more.
pub struct SearchJournal {
    path: PathBuf,
    /// The file and when it was last synced.
    file: Mutex<(File, Instant)>,
    split: usize,
    exhausted: Option<(u32, u64)>,
    finished: HashMap<u32, HashMap<usize, u64>>,
}

impl SearchJournal {
    /// Opens (or starts) the journal at `path` for the search named by `identity` (lines
    /// naming the puzzle, board and tables). A new journal splits iterations into `split`
    /// tasks; an existing one keeps its own split.
    pub fn open(path: &Path, identity: &str, split: usize) -> Result<SearchJournal> {
        let io = |e| Error::io(path, e);
        let mut file =
            OpenOptions::new().read(true).append(true).create(true).open(path).map_err(io)?;
        let mut text = String::new();
        file.read_to_string(&mut text).map_err(|_| Error::Refused {
            path: path.into(),
            reason: "expected a search journal (text), found binary data".into(),
        })?;
        let header = format!("{MAGIC}\n{}\nsplit {split}\n", identity.trim_end());
        if text.is_empty() {
            file.write_all(header.as_bytes()).map_err(io)?;
            file.sync_all().map_err(io)?;
            crate::durable::sync_parent(path);
            return Ok(SearchJournal {
                path: path.into(),
                file: Mutex::new((file, Instant::now())),
                split,
                exhausted: None,
                finished: HashMap::new(),
            });
        }
        // A crash can leave the last line cut: drop it.
        let complete = text.rfind('\n').map_or(0, |i| i + 1);
        if complete < text.len() {
            file.set_len(complete as u64).map_err(io)?;
            file.seek(SeekFrom::End(0)).map_err(io)?;
            text.truncate(complete);
        }
        let refused = |reason: String| Error::Refused { path: path.into(), reason };
        let lines: Vec<&str> = text.lines().collect();
        let wanted: Vec<&str> = header.lines().collect();
        let head = wanted.len() - 1; // all but the split line must match
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
            .filter(|&s| s > 0)
            .ok_or_else(|| {
                refused(format!("line {}: expected `split N`, found `{split_line}`", head + 1))
            })?;
        let mut exhausted = None;
        let mut finished: HashMap<u32, HashMap<usize, u64>> = HashMap::new();
        for (i, line) in lines.iter().enumerate().skip(head + 1) {
            let words: Vec<&str> = line.split(' ').collect();
            let num = |k: usize| words.get(k).and_then(|w| w.parse::<u64>().ok());
            let bad = || {
                refused(format!(
                    "line {}: expected `task LIMIT INDEX NODES` or `exhausted LIMIT NODES`, \
                     found `{line}`",
                    i + 1
                ))
            };
            match (words[0], words.len()) {
                ("task", 4) => {
                    let (Some(l), Some(t), Some(n)) = (num(1), num(2), num(3)) else {
                        return Err(bad());
                    };
                    finished.entry(l as u32).or_default().insert(t as usize, n);
                }
                ("exhausted", 3) => {
                    let (Some(l), Some(n)) = (num(1), num(2)) else { return Err(bad()) };
                    exhausted = exhausted.max(Some((l as u32, n)));
                }
                _ => return Err(bad()),
            }
        }
        let file = Mutex::new((file, Instant::now()));
        Ok(SearchJournal { path: path.into(), file, split, exhausted, finished })
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
        self.append(&format!("task {limit} {task} {nodes}\n"), false)
    }

    /// Records iteration `limit` as searched in full, `nodes` visited so far.
    pub fn limit_done(&self, limit: u32, nodes: u64) -> Result<()> {
        self.append(&format!("exhausted {limit} {nodes}\n"), true)
    }

    /// Syncs what was written.
    pub fn sync(&self) -> Result<()> {
        self.append("", true)
    }

    fn append(&self, line: &str, sync_now: bool) -> Result<()> {
        let mut guard = self.file.lock().unwrap_or_else(|e| e.into_inner());
        let (file, synced) = &mut *guard;
        file.write_all(line.as_bytes()).map_err(|e| Error::io(&self.path, e))?;
        if sync_now || synced.elapsed() >= SYNC_EVERY {
            file.sync_data().map_err(|e| Error::io(&self.path, e))?;
            *synced = Instant::now();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        // A crash in the middle of a line.
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"task 22 9 1").unwrap();
        drop(f);
        // Reopened with another split: the journal's own is kept.
        let j = SearchJournal::open(&path, id, 1024).unwrap();
        assert_eq!(j.split(), 64);
        assert_eq!(j.exhausted(), Some((20, 5000)));
        assert_eq!(j.finished(22), HashMap::from([(7, 42)]));
        assert!(std::fs::read_to_string(&path).unwrap().ends_with("task 22 7 42\n"));
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
        std::fs::write(&path, format!("{MAGIC}\npuzzle p\nsplit 8\nnonsense\n")).unwrap();
        let err = SearchJournal::open(&path, "puzzle p", 8).err().expect("bad line");
        assert!(err.to_string().contains("line 4: expected `task"), "{err}");
    }
}
