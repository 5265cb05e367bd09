//! The one rule for every file a command writes (`--json`, `--plot`, `-o`, tables, archives),
//! checked before any work starts and applied when writing:
//!
//! - `-` is standard output (results only, not tables or archives);
//! - never an input of the command, compared by inode (not by spelling), nor a file a table
//!   input owns beside it (`T.checkpoint`, `T.part-P-of-N`, `T.partial`);
//! - special files (FIFOs, devices, `/dev/stdout` in a pipe) are written through: inspected
//!   by their metadata only (opening a FIFO to read blocks until a writer comes), never
//!   replaced; tables and archives must be regular files;
//! - a symlink is written through: its target is replaced, the link kept;
//! - an existing regular file is replaced only with `force`, and a twirl table never by a
//!   result.

use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::durable::{parent_dir, write_atomically};
use crate::table::format::MAGIC;
use crate::{Error, Result};

/// What an output path will hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputKind {
    /// A JSON result (any name, `-` for standard output).
    Json,
    /// An SVG picture (`*.svg`, or a special file, or `-`).
    Svg,
    /// A puzzle definition in the ksolve/twsearch format (any name, `-`).
    Definition,
    /// A zstd archive of a table (`*.zst`; an existing file needs `force`).
    Archive,
    /// A table file (an existing file needs `force`).
    Table,
}

impl OutputKind {
    fn extension(self) -> Option<&'static str> {
        match self {
            OutputKind::Svg => Some("svg"),
            OutputKind::Archive => Some("zst"),
            OutputKind::Json | OutputKind::Definition | OutputKind::Table => None,
        }
    }
}

/// Whether `path` names standard output (`-`).
pub fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Refuses `path` as an output of kind `kind` of a command reading `inputs` (see the module
/// docs); `force` allows replacing an existing regular file that is not a table read by a
/// result.
pub fn check_output(path: &Path, kind: OutputKind, inputs: &[&Path], force: bool) -> Result<()> {
    let refuse = |reason: String| Error::Refused { path: path.into(), reason };
    let result = matches!(kind, OutputKind::Json | OutputKind::Svg | OutputKind::Definition);
    if is_stdout(path) {
        return match result {
            true => Ok(()),
            false => Err(refuse("expected a file name, found `-` (standard output)".into())),
        };
    }
    // Metadata only: a FIFO must not be opened here.
    let meta = std::fs::metadata(path).ok();
    let special = meta.as_ref().is_some_and(|m| !m.is_file() && !m.is_dir());
    if let Some(ext) = kind.extension()
        && !(special && result)
        && !path.extension().and_then(|e| e.to_str()).is_some_and(|e| e.eq_ignore_ascii_case(ext))
    {
        let what = if kind == OutputKind::Svg { "plots are SVG" } else { "archives are zstd" };
        return Err(refuse(format!("expected a *.{ext} file name for this output ({what})")));
    }
    // Writing to a device (/dev/null, a terminal) never destroys an input, even when two
    // outputs name it.
    let device = meta.as_ref().is_some_and(|m| {
        use std::os::unix::fs::FileTypeExt;
        m.file_type().is_char_device()
    });
    if let Some(input) = inputs.iter().find(|i| !device && same_file(path, i)) {
        return Err(refuse(format!(
            "this output would replace {}, an input of the command",
            input.display()
        )));
    }
    if let Some(input) = inputs.iter().find(|i| kept_beside(path, i)) {
        return Err(refuse(format!(
            "this output would replace a file kept beside {} (its checkpoint, part or \
             partial table), an input of the command",
            input.display()
        )));
    }
    if let Some(meta) = &meta {
        if meta.is_dir() {
            return Err(refuse("expected a file name, found a directory".into()));
        }
        if !meta.is_file() {
            return match result {
                true => Ok(()),
                false => Err(refuse(format!(
                    "expected a regular file for this output, found {}",
                    special_kind(meta)
                ))),
            };
        }
    }
    if meta.is_some() {
        let replaces_table = is_table_file(path);
        if replaces_table && result {
            return Err(refuse("holds a twirl table; a result is never written over one".into()));
        }
        if !force {
            let what = if replaces_table { "a twirl table" } else { "a file" };
            return Err(refuse(format!("holds {what} already (use --force to replace it)")));
        }
        // Only tables are locked while written. Results are not: probing one with a lock
        // would make the processes of an MPI job, which check the same outputs at once,
        // refuse each other's probe.
        if !result {
            refuse_if_written(path)?;
        }
    }
    check_writable_dir(path, &resolved(path))
}

/// Refuses to replace a file another process holds the lock of (a table being searched,
/// resumed, joined or imported): it would go on writing a file no longer in place. Called
/// before the work and again just before the rename, which the work may be long before.
pub fn refuse_if_written(path: &Path) -> Result<()> {
    let Ok(f) = std::fs::File::open(path) else { return Ok(()) };
    match f.try_lock() {
        Ok(()) => Ok(()),
        Err(_) => Err(Error::Refused {
            path: path.into(),
            reason: "expected a file no process is writing, found one locked by another twirl \
                     process (a search or resume in progress)"
                .into(),
        }),
    }
}

/// Writes a result (`--json`, `--plot`, `-o`) to `path` as [`check_output`] allowed: `-` to
/// standard output, a special file through an open for writing (never renamed over), a
/// symlink's target atomically (the link kept), a regular file atomically.
pub fn write_output(path: &Path, bytes: &[u8]) -> Result<()> {
    if is_stdout(path) {
        let mut out = std::io::stdout().lock();
        return out.write_all(bytes).and_then(|()| out.flush()).map_err(|e| Error::io(path, e));
    }
    match std::fs::metadata(path) {
        Ok(meta) if !meta.is_file() && !meta.is_dir() => {
            // No truncate, no sync: neither means anything to a pipe or a device.
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .open(path)
                .map_err(|e| Error::io(path, e))?;
            f.write_all(bytes).and_then(|()| f.flush()).map_err(|e| Error::io(path, e))
        }
        _ => write_atomically(&resolved(path), bytes),
    }
}

/// `path` with its symlinks followed (to the file a link names, even one not made yet), so a
/// rename replaces the target, not the link.
fn resolved(path: &Path) -> PathBuf {
    let mut p = path.to_path_buf();
    // A bound on the hops: a loop of links ends at the last one (whose write then fails).
    for _ in 0..40 {
        match std::fs::read_link(&p) {
            Ok(target) => p = parent_dir(&p).join(target),
            Err(_) => break,
        }
    }
    p
}

/// What a special file is, for an error message.
fn special_kind(meta: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_fifo() {
        "a FIFO"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "a special file"
    }
}

/// Whether two paths name the same file: the same inode if both exist, else the same
/// absolute path (directories resolved).
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => absolute(a).is_some_and(|x| Some(x) == absolute(b)),
    }
}

/// Whether `path` is a file a table `input` keeps beside it (its checkpoint, a part of an
/// MPI job or its checkpoint, a partial table), whether or not it exists yet.
fn kept_beside(path: &Path, input: &Path) -> bool {
    let (Some(out), Some(table)) = (absolute(&resolved(path)), absolute(&resolved(input))) else {
        return false;
    };
    if out.parent() != table.parent() {
        return false;
    }
    let (Some(out), Some(table)) = (out.file_name(), table.file_name()) else { return false };
    let (out, table) = (out.to_string_lossy(), table.to_string_lossy());
    out.strip_prefix(table.as_ref()).is_some_and(|rest| {
        [".checkpoint", ".part-", ".partial"].iter().any(|s| rest.starts_with(s))
    })
}

fn absolute(p: &Path) -> Option<PathBuf> {
    let dir = std::fs::canonicalize(parent_dir(p)).ok()?;
    Some(dir.join(p.file_name()?))
}

fn is_table_file(path: &Path) -> bool {
    use std::io::Read;
    let mut magic = [0u8; 8];
    std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut magic)).is_ok() && magic == MAGIC
}

/// Creates and removes a probe file next to `target` (`path` with its links followed): the
/// directory exists and may be written.
fn check_writable_dir(path: &Path, target: &Path) -> Result<()> {
    let dir = parent_dir(target);
    let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let probe = dir.join(format!(".{name}.{}.probe.tmp", std::process::id()));
    match std::fs::OpenOptions::new().write(true).create_new(true).open(&probe) {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            Ok(())
        }
        Err(e) => Err(Error::Refused {
            path: path.into(),
            reason: format!("cannot write in the directory {}: {e}", dir.display()),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::FileTypeExt;

    #[test]
    fn outputs_are_checked() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.tbl");
        std::fs::write(&input, b"TWIRLTB\x01rest").unwrap();
        let other = dir.path().join("r.json");
        std::fs::write(&other, b"{}").unwrap();
        let e = |p: &Path, k, f| check_output(p, k, &[&input], f).unwrap_err().to_string();
        assert!(e(&input, OutputKind::Json, true).contains("an input"));
        assert!(e(&dir.path().join("x.png"), OutputKind::Svg, false).contains("*.svg"));
        assert!(e(&dir.path().join("x"), OutputKind::Archive, false).contains("*.zst"));
        assert!(e(&other, OutputKind::Table, false).contains("--force"));
        assert!(
            e(&dir.path().join("no/such/dir.json"), OutputKind::Json, false)
                .contains("cannot write")
        );
        assert!(e(&other, OutputKind::Json, false).contains("--force"));
        check_output(&other, OutputKind::Json, &[&input], true).unwrap();
        assert!(e(&input, OutputKind::Json, true).contains("an input"));
        let part = dir.path().join("in.tbl.part-1-of-2");
        assert!(e(&part, OutputKind::Json, true).contains("beside"));
        assert!(
            e(&dir.path().join("in.tbl.checkpoint"), OutputKind::Json, true).contains("beside")
        );
        check_output(Path::new("-"), OutputKind::Json, &[&input], false).unwrap();
        assert!(e(Path::new("-"), OutputKind::Table, true).contains("standard output"));
        check_output(&other, OutputKind::Table, &[&input], true).unwrap();
        check_output(&dir.path().join("new.zst"), OutputKind::Archive, &[&input], false).unwrap();
        // The same file under another spelling.
        let alias = dir.path().join(".").join("in.tbl");
        assert!(e(&alias, OutputKind::Json, false).contains("an input"));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2, "no probe left behind");
    }

    /// A FIFO is checked without being opened (that blocked until a writer came) and written
    /// through; a device too; tables are never written to either.
    #[test]
    fn special_files_are_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(made.success());
        check_output(&fifo, OutputKind::Json, &[], false).unwrap();
        check_output(&fifo, OutputKind::Svg, &[], false).unwrap();
        let e = check_output(&fifo, OutputKind::Table, &[], true).unwrap_err().to_string();
        assert!(e.contains("found a FIFO"), "{e}");
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(fifo).unwrap())
        };
        write_output(&fifo, b"{}\n").unwrap();
        assert_eq!(reader.join().unwrap(), b"{}\n");
        assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
        check_output(Path::new("/dev/null"), OutputKind::Json, &[], false).unwrap();
        write_output(Path::new("/dev/null"), b"x").unwrap();
        if Path::new("/dev/full").exists() {
            let e = write_output(Path::new("/dev/full"), b"x").unwrap_err().to_string();
            assert!(e.contains("/dev/full") && !e.contains('\n'), "{e}");
        }
    }

    /// A symlink's target is replaced and the link kept; a dangling link creates its target.
    #[test]
    fn symlinks_are_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("real.json");
        std::fs::write(&target, "old").unwrap();
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink("real.json", &link).unwrap();
        assert!(check_output(&link, OutputKind::Json, &[], false).is_err(), "needs --force");
        check_output(&link, OutputKind::Json, &[], true).unwrap();
        write_output(&link, b"new").unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
        let dangling = dir.path().join("d.json");
        std::os::unix::fs::symlink("made.json", &dangling).unwrap();
        check_output(&dangling, OutputKind::Json, &[], false).unwrap();
        write_output(&dangling, b"x").unwrap();
        assert!(std::fs::symlink_metadata(&dangling).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read(dir.path().join("made.json")).unwrap(), b"x");
        // A link to an input is the input.
        let input = dir.path().join("in.tws");
        std::fs::write(&input, "Name x").unwrap();
        let to_input = dir.path().join("to-input.json");
        std::os::unix::fs::symlink(&input, &to_input).unwrap();
        let e = check_output(&to_input, OutputKind::Json, &[&input], true).unwrap_err();
        assert!(e.to_string().contains("an input"));
    }
}
