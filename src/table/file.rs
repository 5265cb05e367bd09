//! Where a table's bytes live: an anonymous memory map, or a file mapped into memory so a
//! table can exceed RAM and outlive the process. The only `unsafe` of the crate lives here.

use std::fs::{File, OpenOptions};
use std::path::Path;
use std::sync::atomic::AtomicU64;

use memmap2::{MmapMut, MmapOptions};

use crate::{Error, Result};

/// A writable memory map holding a table body.
pub struct Storage {
    map: MmapMut,
    _file: Option<File>,
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
        Ok(Storage { map, _file: None })
    }

    /// A new zero-filled file of `len_bytes` (replacing any file there), mapped shared.
    pub fn create_file(path: &Path, len_bytes: u64) -> Result<Storage> {
        let len = map_len(len_bytes)?;
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)
            .map_err(|e| Error::io(path, e))?;
        file.set_len(len as u64).map_err(|e| Error::io(path, e))?;
        // SAFETY: the file was just created by us and is not resized while mapped; other
        // processes modifying it concurrently is outside what twirl supports.
        let map = unsafe { MmapOptions::new().len(len).map_mut(&file) }
            .map_err(|e| Error::io(path, e))?;
        Ok(Storage { map, _file: Some(file) })
    }

    /// Length in bytes (a multiple of 8).
    pub fn len_bytes(&self) -> usize {
        self.map.len()
    }

    /// The bytes as 64-bit words for shared atomic access.
    #[inline(always)]
    pub fn words(&self) -> &[AtomicU64] {
        let ptr = self.map.as_ptr() as *const AtomicU64;
        // SAFETY: the map is page-aligned (so 8-byte aligned), its length is a multiple of 8,
        // it lives as long as `self`, and all access through the returned slice is atomic.
        unsafe { std::slice::from_raw_parts(ptr, self.map.len() / 8) }
    }

    /// Writes dirty pages of a file-backed map to disk.
    pub fn flush(&self) -> Result<()> {
        if self._file.is_some() {
            self.map.flush().map_err(|e| Error::io("table", e))?;
        }
        Ok(())
    }
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
