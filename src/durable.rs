//! Writing files so that a crash leaves the old version or the new one, never half of one,
//! and no temporary file (`*.tmp`, `*.partial`) outlives a failure or an interruption.
//!
//! Every temporary file is a [`TempPath`]: removed when dropped (an error path) unless it was
//! renamed into place, and listed in a process-wide register so a signal handler that must
//! exit at once can remove them too ([`remove_temp_files`]).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::{Error, Result};

/// `path` with `suffix` appended to its name: `t.tbl` -> `t.tbl.checkpoint`.
pub fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// Temporary files alive in this process, for [`remove_temp_files`].
static TEMP_FILES: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// A temporary file next to its destination: removed on drop unless [`TempPath::persist`]
/// renamed it into place.
pub struct TempPath {
    path: PathBuf,
    done: bool,
}

impl TempPath {
    /// Registers `path` (not created yet) as temporary.
    pub fn new(path: PathBuf) -> TempPath {
        TEMP_FILES.lock().unwrap_or_else(|e| e.into_inner()).push(path.clone());
        TempPath { path, done: false }
    }

    /// Where the temporary file lives.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Gives the file up without removing it: another process made it (under the same
    /// name) and owns it.
    pub fn disown(mut self) {
        self.done = true;
    }

    /// Renames the file to `dest` and syncs the directory, so the rename is durable.
    pub fn persist(mut self, dest: &Path) -> Result<()> {
        std::fs::rename(&self.path, dest).map_err(|e| Error::io(dest, e))?;
        self.done = true;
        sync_parent(dest);
        Ok(())
    }
}

impl Drop for TempPath {
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_file(&self.path);
        }
        let mut list = TEMP_FILES.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = list.iter().position(|p| *p == self.path) {
            list.swap_remove(i);
        }
    }
}

/// Removes every temporary file still registered. For a signal handler about to exit the
/// process, when destructors will not run.
pub fn remove_temp_files() {
    let list = TEMP_FILES.lock().unwrap_or_else(|e| e.into_inner());
    for p in list.iter() {
        let _ = std::fs::remove_file(p);
    }
}

/// The directory holding `path` (`.` for a bare file name).
pub fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Syncs the directory holding `path`, so a file created or renamed there stays.
pub fn sync_parent(path: &Path) {
    // Syncing the directory makes a rename itself durable.
    if let Ok(d) = std::fs::File::open(parent_dir(path)) {
        let _ = d.sync_all();
    }
}

/// Free bytes on the file system that holds (or would hold) `path`, if the system tells.
pub fn free_disk(path: &Path) -> Option<u64> {
    fs4::available_space(parent_dir(path)).ok()
}

/// Writes `text` to `path` durably and atomically: a temporary file next to it, fsync,
/// rename, fsync of the directory. A reader sees the old file or the new one, never half.
///
/// The temporary name is this process's and this call's (`FILE.PID-N.tmp`): two processes
/// writing one file at once each rename their own whole file, the last one stays.
pub fn write_atomically(path: &Path, text: &[u8]) -> Result<()> {
    static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = TempPath::new(with_suffix(path, &format!(".{}-{call}.tmp", std::process::id())));
    let mut f = std::fs::File::create(tmp.path()).map_err(|e| Error::io(tmp.path(), e))?;
    f.write_all(text).map_err(|e| Error::io(tmp.path(), e))?;
    f.sync_all().map_err(|e| Error::io(tmp.path(), e))?;
    drop(f);
    tmp.persist(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Processes (here threads) writing one file at once: each renames its own temporary
    /// file. With one fixed temporary name, a writer's rename found the file already renamed
    /// by another (4 of 12 pattern caches made at once failed so).
    #[test]
    fn writers_of_one_file_at_once_all_succeed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.txt");
        std::thread::scope(|s| {
            for t in 0..4u8 {
                let path = &path;
                s.spawn(move || {
                    for _ in 0..200 {
                        write_atomically(path, &[b'a' + t; 4096]).unwrap();
                    }
                });
            }
        });
        let text = std::fs::read(&path).unwrap();
        assert!(
            text.len() == 4096 && text.iter().all(|&b| b == text[0]),
            "one writer's whole file"
        );
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "no temporary file left");
    }
}
