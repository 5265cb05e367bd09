//! Output paths checked before any work starts: the right extension, a directory that can
//! be written, not an input of the command, and no existing table replaced without `force`.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::durable::parent_dir;
use crate::table::format::MAGIC;
use crate::{Error, Result};

/// What an output path will hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputKind {
    /// A JSON result (any name; replaced if it exists and is not a table).
    Json,
    /// An SVG picture (`*.svg`; replaced if it exists and is not a table).
    Svg,
    /// A puzzle definition in the ksolve/twsearch format (any name; replaced if it exists
    /// and is not a table).
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

/// Refuses `path` as an output of kind `kind` of a command reading `inputs` (see the module
/// docs); `force` allows replacing an existing table or archive.
pub fn check_output(path: &Path, kind: OutputKind, inputs: &[&Path], force: bool) -> Result<()> {
    let refuse = |reason: String| Error::Refused { path: path.into(), reason };
    if let Some(ext) = kind.extension()
        && !path.extension().and_then(|e| e.to_str()).is_some_and(|e| e.eq_ignore_ascii_case(ext))
    {
        return Err(refuse(format!("expected a *.{ext} file name for this output")));
    }
    if let Some(input) = inputs.iter().find(|i| same_file(path, i)) {
        return Err(refuse(format!(
            "this output would replace {}, an input of the command",
            input.display()
        )));
    }
    if let Ok(meta) = std::fs::metadata(path) {
        if meta.is_dir() {
            return Err(refuse("expected a file name, found a directory".into()));
        }
        let replaces_table = is_table_file(path);
        if replaces_table
            && matches!(kind, OutputKind::Json | OutputKind::Svg | OutputKind::Definition)
        {
            return Err(refuse("holds a twirl table; a result is never written over one".into()));
        }
        if matches!(kind, OutputKind::Archive | OutputKind::Table) && !force {
            let what = if replaces_table { "a twirl table" } else { "a file" };
            return Err(refuse(format!("holds {what} already (use --force to replace it)")));
        }
    }
    check_writable_dir(path)
}

/// Whether two paths name the same file: the same inode if both exist, else the same
/// absolute path (directories resolved).
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => absolute(a).is_some_and(|x| Some(x) == absolute(b)),
    }
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

/// Creates and removes a probe file next to `path`: the directory exists and may be written.
fn check_writable_dir(path: &Path) -> Result<()> {
    let dir = parent_dir(path);
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
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
        check_output(&other, OutputKind::Json, &[&input], false).unwrap();
        check_output(&other, OutputKind::Table, &[&input], true).unwrap();
        check_output(&dir.path().join("new.zst"), OutputKind::Archive, &[&input], false).unwrap();
        // The same file under another spelling.
        let alias = dir.path().join(".").join("in.tbl");
        assert!(e(&alias, OutputKind::Json, false).contains("an input"));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2, "no probe left behind");
    }
}
