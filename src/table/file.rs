//! Where a table's bytes live: an anonymous memory map, or a table file (see [`super::format`])
//! whose body is mapped into memory so a table can exceed RAM and outlive the process. The only
//! `unsafe` of the crate besides the SIMD paths lives here.

use std::fs::{File, OpenOptions};
use std::path::Path;
use std::sync::atomic::AtomicU64;

use memmap2::{Mmap, MmapMut, MmapOptions};

use super::format::HEADER_BYTES;
use crate::{Error, Result};

/// A memory map holding a table body: writable, or read-only for lookups.
pub struct Storage {
    map: Map,
    file: Option<File>,
}

enum Map {
    Writable(MmapMut),
    ReadOnly(Mmap),
}

impl Storage {
    /// Zero-filled anonymous memory, advised for transparent huge pages.
    pub fn anonymous(len_bytes: u64) -> Result<Storage> {
        let len = map_len(len_bytes)?;
        let map = MmapOptions::new()
            .len(len)
            .map_anon()
            .map_err(|e| Error::TooLarge(format!("cannot map {len_bytes} bytes of memory: {e}")))?;
        advise_huge_pages(&map);
        Ok(Storage { map: Map::Writable(map), file: None })
    }

    /// A new file of `HEADER_BYTES + len_bytes` (replacing any file there, unless another
    /// process holds its lock), locked, its blocks reserved, its zero-filled body mapped
    /// shared. The caller writes the header.
    pub fn create_file(path: &Path, len_bytes: u64) -> Result<Storage> {
        let len = map_len(len_bytes)?;
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(|e| Error::io(path, e))?;
        // Lock before emptying: never truncate a table another process is writing.
        lock(&file, path)?;
        file.set_len(0).map_err(|e| Error::io(path, e))?;
        // Reserve the blocks now: a sparse file on a full disk would fail mid-search with
        // SIGBUS instead of an error here.
        fs4::FileExt::allocate(&file, HEADER_BYTES + len as u64).map_err(|e| {
            Error::TooLarge(format!(
                "cannot reserve {} bytes for {}: {e}",
                HEADER_BYTES + len as u64,
                path.display()
            ))
        })?;
        Storage::map_file(file, path, len, true)
    }

    /// Maps the body of an existing table file of the right length.
    pub fn open_file(path: &Path, len_bytes: u64, writable: bool) -> Result<Storage> {
        let len = map_len(len_bytes)?;
        let file = OpenOptions::new()
            .read(true)
            .write(writable)
            .open(path)
            .map_err(|e| Error::io(path, e))?;
        if writable {
            lock(&file, path)?;
        }
        let actual = file.metadata().map_err(|e| Error::io(path, e))?.len();
        let expected = HEADER_BYTES + len as u64;
        if actual != expected {
            return Err(Error::BadTable {
                path: path.into(),
                reason: format!(
                    "the file has {actual} bytes but its header describes {expected} \
                     (truncated or damaged)"
                ),
            });
        }
        Storage::map_file(file, path, len, writable)
    }

    fn map_file(file: File, path: &Path, len: usize, writable: bool) -> Result<Storage> {
        let mut options = MmapOptions::new();
        options.offset(HEADER_BYTES).len(len);
        // SAFETY: the file is twirl's own table; it is not resized while mapped, and other
        // processes modifying it concurrently is outside what twirl supports.
        let map = unsafe {
            if writable {
                options.map_mut(&file).map(Map::Writable)
            } else {
                options.map(&file).map(Map::ReadOnly)
            }
        }
        .map_err(|e| Error::io(path, e))?;
        Ok(Storage { map, file: Some(file) })
    }

    /// Length in bytes (a multiple of 8).
    pub fn len_bytes(&self) -> usize {
        self.bytes().len()
    }

    /// The bytes. Only for reading while no search writes to the table (checksums, export).
    pub fn bytes(&self) -> &[u8] {
        match &self.map {
            Map::Writable(m) => m,
            Map::ReadOnly(m) => m,
        }
    }

    /// Whether the map may be written.
    pub fn is_writable(&self) -> bool {
        matches!(self.map, Map::Writable(_))
    }

    /// The bytes as 64-bit words for shared atomic access (loads only, if read-only).
    #[inline(always)]
    pub fn words(&self) -> &[AtomicU64] {
        let bytes = self.bytes();
        // SAFETY: the map is page-aligned (so 8-byte aligned), its length is a multiple of 8,
        // it lives as long as `self`, and all access through the returned slice is atomic.
        // A read-only map is only ever loaded from (`DistanceTable` never writes to one).
        unsafe { std::slice::from_raw_parts(bytes.as_ptr() as *const AtomicU64, bytes.len() / 8) }
    }

    /// Writes dirty pages of a file-backed map to disk and waits for them (msync).
    pub fn flush(&self) -> Result<()> {
        if let (Map::Writable(m), Some(_)) = (&self.map, &self.file) {
            m.flush().map_err(|e| Error::io("the table file", e))?;
        }
        Ok(())
    }

    /// The file behind the map, if any.
    pub fn file(&self) -> Option<&File> {
        self.file.as_ref()
    }
}

/// Takes the file's exclusive lock (held while the file stays open): two searches writing one
/// table would corrupt it.
fn lock(file: &File, path: &Path) -> Result<()> {
    file.try_lock().map_err(|_| Error::BadTable { path: path.into(), reason: LOCKED.into() })
}

/// Why a table is refused while another process holds its lock.
const LOCKED: &str = "another twirl process is writing this table";

/// Whether `e` refuses a table file because another process holds its lock.
pub fn is_locked(e: &Error) -> bool {
    matches!(e, Error::BadTable { reason, .. } if is_locked_reason(reason))
}

/// Whether a table was refused for this reason because another process holds its lock.
pub fn is_locked_reason(reason: &str) -> bool {
    reason == LOCKED
}

/// The mapping length: at least one word, a multiple of 8.
fn map_len(len_bytes: u64) -> Result<usize> {
    let len = len_bytes.max(8).div_ceil(8) * 8;
    usize::try_from(len)
        .map_err(|_| Error::TooLarge(format!("{len_bytes} bytes exceed the address space")))
}

#[cfg(target_os = "linux")]
fn advise_huge_pages(map: &MmapMut) {
    // Transparent huge pages are in `madvise` mode here; the table's random probes gain a
    // third with them. Failing to get them is harmless.
    let _ = map.advise(memmap2::Advice::HugePage);
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_map: &MmapMut) {}
