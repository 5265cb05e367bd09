//! Writing files so that a crash leaves the old version or the new one, never half of one.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::{Error, Result};

/// `path` with `suffix` appended to its name: `t.tbl` -> `t.tbl.checkpoint`.
pub fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// Writes `text` to `path` durably and atomically: a temporary file next to it, fsync,
/// rename, fsync of the directory. A reader sees the old file or the new one, never half.
pub fn write_atomically(path: &Path, text: &[u8]) -> Result<()> {
    let tmp = with_suffix(path, ".tmp");
    let mut f = std::fs::File::create(&tmp).map_err(|e| Error::io(&tmp, e))?;
    f.write_all(text).map_err(|e| Error::io(&tmp, e))?;
    f.sync_all().map_err(|e| Error::io(&tmp, e))?;
    drop(f);
    std::fs::rename(&tmp, path).map_err(|e| Error::io(path, e))?;
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    // Syncing the directory makes the rename itself durable.
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}
