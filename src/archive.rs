//! A finished table compressed with zstd, and restored from such an archive.
//!
//! The archive is the table file itself (header and body) as one zstd stream. Both ways go
//! through a temporary file next to the output (`*.partial`), renamed into place only when
//! complete and verified, and removed on every failure or interruption. An import trusts the
//! archive's header for nothing but its size: it checks the size against the free disk
//! first, stops writing as soon as the stream exceeds it, and verifies the restored table as
//! any reader does ([`open_table`]).

use std::io::{Read, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::durable::{TempPath, free_disk, with_suffix};
use crate::job::open_table;
use crate::job::outputs::{OutputKind, check_output};
use crate::table::format::{HEADER_BYTES, Header};
use crate::{Error, Result};

/// Bytes compressed or restored between two looks at the stop flag.
const CHUNK_BYTES: usize = 1 << 22;

/// What an export wrote.
pub struct Exported {
    /// Bytes of the table file.
    pub table_bytes: u64,
    /// Bytes of the archive.
    pub archive_bytes: u64,
}

/// Compresses the finished table at `table` into `output` (`*.zst`) at zstd `level` with
/// `threads` workers. `output` is checked first (not the table, not an existing file unless
/// `force`); `stop` interrupts between chunks.
pub fn export(
    table: &Path,
    output: &Path,
    level: i32,
    threads: u32,
    force: bool,
    stop: &AtomicBool,
) -> Result<Exported> {
    check_output(output, OutputKind::Archive, &[table], force)?;
    let verified = open_table(table)?;
    let tmp = TempPath::new(with_suffix(output, ".partial"));
    let io = |e: std::io::Error| Error::io(tmp.path(), e);
    let out = std::fs::File::create(tmp.path()).map_err(io)?;
    let mut enc = zstd::Encoder::new(std::io::BufWriter::new(out), level).map_err(io)?;
    enc.multithread(threads).map_err(io)?;
    enc.write_all(&verified.file.header.encode()?).map_err(io)?;
    for chunk in verified.file.table.storage().bytes().chunks(CHUNK_BYTES) {
        if stop.load(Ordering::Relaxed) {
            return Err(Error::Interrupted);
        }
        enc.write_all(chunk).map_err(io)?;
    }
    let out = enc.finish().map_err(io)?.into_inner().map_err(|e| io(e.into_error()))?;
    out.sync_all().map_err(io)?;
    drop(out);
    // A stop during the last steps still stops: nothing is kept but what was asked.
    if stop.load(Ordering::Relaxed) {
        return Err(Error::Interrupted);
    }
    tmp.persist(output)?;
    let archive_bytes = std::fs::metadata(output).map_err(|e| Error::io(output, e))?.len();
    Ok(Exported { table_bytes: verified.file.header.file_bytes(), archive_bytes })
}

/// The header of the table an archive holds, read from the start of its stream alone.
pub fn archived_header(archive: &Path) -> Result<Header> {
    open_archive(archive).map(|(_, _, header)| header)
}

/// The archive's stream past the table's header, the header's bytes and the header read.
fn open_archive(
    archive: &Path,
) -> Result<(zstd::Decoder<'static, std::io::BufReader<std::fs::File>>, Vec<u8>, Header)> {
    let input = std::fs::File::open(archive).map_err(|e| Error::io(archive, e))?;
    let mut dec = zstd::Decoder::new(input).map_err(|e| Error::io(archive, e))?;
    let mut head = vec![0u8; HEADER_BYTES as usize];
    dec.read_exact(&mut head).map_err(|e| damaged(archive, format!("no table header: {e}")))?;
    let header = Header::decode(&head, archive)?;
    Ok((dec, head, header))
}

/// The refusal of an archive cut short or not an archive.
fn damaged(archive: &Path, what: String) -> Error {
    Error::Refused {
        path: archive.into(),
        reason: format!("not a complete twirl table archive ({what})"),
    }
}

/// Restores the archive at `archive` as the table file `output` (an existing file only with
/// `force`) and verifies it; returns its header.
pub fn import(archive: &Path, output: &Path, force: bool, stop: &AtomicBool) -> Result<Header> {
    check_output(output, OutputKind::Table, &[archive], force)?;
    let damaged = |what: String| damaged(archive, what);
    let (mut dec, head, header) = open_archive(archive)?;
    let declared = header.file_bytes();
    if let Some(free) = free_disk(output).filter(|&f| declared > f) {
        return Err(Error::TooLarge(format!(
            "the archive declares a {declared}-byte table but the disk holding {} has {free} \
             bytes free",
            output.display()
        )));
    }
    let tmp = TempPath::new(with_suffix(output, ".partial"));
    let io = |e: std::io::Error| Error::io(tmp.path(), e);
    let mut out = std::io::BufWriter::new(std::fs::File::create(tmp.path()).map_err(io)?);
    out.write_all(&head).map_err(io)?;
    let mut left = header.body_bytes + header.unique_bytes;
    let mut buf = vec![0u8; CHUNK_BYTES];
    loop {
        if stop.load(Ordering::Relaxed) {
            return Err(Error::Interrupted);
        }
        let n = dec.read(&mut buf).map_err(|e| damaged(format!("{e}")))?;
        if n == 0 {
            break;
        }
        if n as u64 > left {
            return Err(Error::Refused {
                path: archive.into(),
                reason: format!(
                    "the archive holds more than the {declared} bytes its header declares; \
                     stopped writing there"
                ),
            });
        }
        out.write_all(&buf[..n]).map_err(io)?;
        left -= n as u64;
    }
    if left > 0 {
        return Err(damaged(format!("{left} bytes short of what its header declares")));
    }
    out.into_inner().map_err(|e| io(e.into_error()))?.sync_all().map_err(io)?;
    let header = open_table(tmp.path())?.file.header;
    if stop.load(Ordering::Relaxed) {
        return Err(Error::Interrupted);
    }
    crate::job::outputs::refuse_if_written(output)?;
    tmp.persist(output)?;
    Ok(header)
}
