//! Where a table's bytes live: an anonymous memory map, or a table file (see [`super::format`])
//! whose body is in memory while a search writes it and on disk after every checkpoint.
//! The only `unsafe` of the crate besides the SIMD paths lives here.
//!
//! A writable table file whose body fits in memory is **staged**: the search works on
//! anonymous memory (with huge pages) loaded from the file, and each flush writes back the
//! chunks that changed since the last one (found by a hash per chunk) and syncs them. A
//! body mapped shared from the file instead is dirtied at random
//! across its whole length by every level; once the dirty pages pass the kernel's limit
//! (`vm.dirty_ratio`, 20% of memory by default) every write of the search waits for
//! writeback. Measured on NRP (3,6,3) cw, a 7.7 GiB table on a 23 GiB machine: 3.1e6
//! boards/s and a kernel thread writing the same pages again (160 GB written in 5 minutes)
//! against 3.6e7 boards/s with the limit raised. Bodies larger than the memory available
//! stay mapped shared (a table may exceed RAM).

use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use memmap2::{Mmap, MmapMut, MmapOptions};
use xxhash_rust::xxh3::xxh3_64;

use super::format::HEADER_BYTES;
use crate::{Error, Result};

/// A memory map holding a table body: writable, or read-only for lookups.
pub struct Storage {
    map: Map,
    file: Option<File>,
    /// Whether the body is anonymous memory written to `file` by [`Storage::flush`] (see the
    /// module docs), rather than the file's own pages.
    staged: bool,
    /// A staged body: the hash of each [`STAGE_CHUNK`] as the file holds it.
    on_disk: Mutex<Vec<u64>>,
}

/// The bytes of a staged body hashed and written as one: small enough that the first
/// distances, whose few boards lie anywhere, leave most chunks as they were.
const STAGE_CHUNK: usize = 1 << 20;

enum Map {
    Writable(MmapMut),
    ReadOnly(Mmap),
}

impl Storage {
    /// Zero-filled anonymous memory, advised for transparent huge pages.
    pub fn anonymous(len_bytes: u64) -> Result<Storage> {
        let map = anonymous_map(map_len(len_bytes)?)?;
        Ok(Storage::unstaged(Map::Writable(map), None))
    }

    /// A new file of `HEADER_BYTES + len_bytes` (replacing any file there, unless another
    /// process holds its lock), locked, its blocks reserved, its zero-filled body staged in
    /// memory if `staged`, else mapped shared. The caller writes the header.
    pub fn create_file(path: &Path, len_bytes: u64, staged: bool) -> Result<Storage> {
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
        if staged {
            // The reserved blocks read as zeros, as the fresh anonymous memory does.
            return Ok(Storage::staged(anonymous_map(len)?, file, zero_hashes(len)));
        }
        Storage::map_file(file, path, len, true)
    }

    /// Maps the body of an existing table file of the right length, or with `staged` (a
    /// writable one) reads it into memory.
    pub fn open_file(path: &Path, len_bytes: u64, writable: bool, staged: bool) -> Result<Storage> {
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
        if staged && writable {
            let mut map = anonymous_map(len)?;
            let mut hashes = Vec::with_capacity(len.div_ceil(STAGE_CHUNK));
            for (i, chunk) in map.chunks_mut(STAGE_CHUNK).enumerate() {
                file.read_exact_at(chunk, HEADER_BYTES + (i * STAGE_CHUNK) as u64)
                    .map_err(|e| Error::io(path, e))?;
                hashes.push(xxh3_64(chunk));
            }
            return Ok(Storage::staged(map, file, hashes));
        }
        Storage::map_file(file, path, len, writable)
    }

    fn unstaged(map: Map, file: Option<File>) -> Storage {
        Storage { map, file, staged: false, on_disk: Mutex::new(Vec::new()) }
    }

    /// `map` as the staged body of `file`, which holds the same bytes, with the hash of
    /// each chunk.
    fn staged(map: MmapMut, file: File, hashes: Vec<u64>) -> Storage {
        Storage {
            map: Map::Writable(map),
            file: Some(file),
            staged: true,
            on_disk: Mutex::new(hashes),
        }
    }

    /// Whether the body is staged in memory (see the module docs).
    pub fn is_staged(&self) -> bool {
        self.staged
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
        Ok(Storage::unstaged(map, Some(file)))
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

    /// Puts the body of a file-backed table on disk and waits for it: a staged body has the
    /// chunks that changed since the last flush written and synced, a mapped one its dirty
    /// pages (msync).
    pub fn flush(&self) -> Result<()> {
        let (Map::Writable(m), Some(file)) = (&self.map, &self.file) else { return Ok(()) };
        let failed = |e| Error::io("the table file", e);
        if !self.staged {
            return m.flush().map_err(failed);
        }
        // Other workers may still be marking boards of the level under way (a checkpoint
        // inside a level): each chunk is copied word by word (atomic loads), and the copy is
        // hashed and written, so the hash is always that of the bytes on disk. Marks made
        // after the copy reach the disk at the next flush; the record calls that level under
        // way, so either value of a word is right. A chunk that changed yet hashes as before
        // (odds 2^-64) would keep its old bytes.
        let mut on_disk = self.on_disk.lock().unwrap();
        let mut copy = vec![0u8; STAGE_CHUNK];
        for (i, words) in self.words().chunks(STAGE_CHUNK / 8).enumerate() {
            let copy = &mut copy[..words.len() * 8];
            for (bytes, w) in copy.chunks_exact_mut(8).zip(words) {
                bytes.copy_from_slice(&w.load(Ordering::Relaxed).to_ne_bytes());
            }
            let hash = xxh3_64(copy);
            if on_disk[i] != hash {
                file.write_all_at(copy, HEADER_BYTES + (i * STAGE_CHUNK) as u64).map_err(failed)?;
                on_disk[i] = hash;
            }
        }
        file.sync_data().map_err(failed)
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

/// The hash of each chunk of a zero-filled body of `len` bytes, computed without touching
/// the body (reading fresh memory would fault in every page of it at the start).
fn zero_hashes(len: usize) -> Vec<u64> {
    let zeros = vec![0u8; STAGE_CHUNK];
    let full = xxh3_64(&zeros);
    let mut hashes = vec![full; len / STAGE_CHUNK];
    if !len.is_multiple_of(STAGE_CHUNK) {
        hashes.push(xxh3_64(&zeros[..len % STAGE_CHUNK]));
    }
    hashes
}

/// Zero-filled anonymous memory of `len` bytes, advised for transparent huge pages.
fn anonymous_map(len: usize) -> Result<MmapMut> {
    let map = MmapOptions::new()
        .len(len)
        .map_anon()
        .map_err(|e| Error::TooLarge(format!("cannot map {len} bytes of memory: {e}")))?;
    advise_huge_pages(&map);
    Ok(map)
}

/// Whether a body of `len_bytes` is staged in memory: when it takes at most 90% of the memory
/// available (the default bound of an in-memory table); never where that is unknown.
pub(super) fn fits_in_memory(len_bytes: u64) -> bool {
    available_memory().is_some_and(|m| len_bytes <= m / 10 * 9)
}

/// Memory available to a new allocation (MemAvailable), if the system tells, at most what
/// the process's memory cgroup still allows.
pub fn available_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(cgroup_headroom().map_or(kib * 1024, |room| room.min(kib * 1024)))
}

/// What the memory cgroup of this process may still charge (limit minus usage), if it has a
/// limit: cgroup v2 (`memory.max`) or v1 (`memory.limit_in_bytes`).
fn cgroup_headroom() -> Option<u64> {
    let read = |path: String| -> Option<u64> {
        std::fs::read_to_string(path).ok()?.trim().parse().ok() // "max" reads as no limit
    };
    let groups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    groups.lines().find_map(|line| {
        let mut fields = line.splitn(3, ':');
        let (_, controllers, path) = (fields.next()?, fields.next()?, fields.next()?);
        let (dir, limit, usage) = match controllers {
            "" => (format!("/sys/fs/cgroup{path}"), "memory.max", "memory.current"),
            c if c.split(',').any(|c| c == "memory") => (
                format!("/sys/fs/cgroup/memory{path}"),
                "memory.limit_in_bytes",
                "memory.usage_in_bytes",
            ),
            _ => return None,
        };
        // v1 reports "no limit" as a number near 2^63.
        let limit = read(format!("{dir}/{limit}")).filter(|&l| l < 1 << 60)?;
        Some(limit.saturating_sub(read(format!("{dir}/{usage}")).unwrap_or(0)))
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes `seed`-derived words into every word of `storage`.
    fn fill(storage: &Storage, seed: u64) {
        for (i, w) in storage.words().iter().enumerate() {
            w.store((i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ seed, Ordering::Relaxed);
        }
    }

    /// The body as the file holds it, read past the header.
    fn on_disk(path: &Path) -> Vec<u8> {
        std::fs::read(path).unwrap()[HEADER_BYTES as usize..].to_vec()
    }

    /// A staged body reaches the file only when flushed, over several chunks and a tail, and
    /// reads back the same staged or mapped; a mapped body is the file's own pages.
    #[test]
    fn staged_bodies_reach_the_file_when_flushed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.tbl");
        let len = (3 * STAGE_CHUNK + 4096) as u64;
        let staged = Storage::create_file(&path, len, true).unwrap();
        assert!(staged.is_staged());
        fill(&staged, 1);
        assert!(on_disk(&path).iter().all(|&b| b == 0), "written before a flush");
        staged.flush().unwrap();
        assert_eq!(on_disk(&path), staged.bytes());
        let written = staged.bytes().to_vec();
        drop(staged);

        let reread = Storage::open_file(&path, len, true, true).unwrap();
        assert!(reread.is_staged() && reread.bytes() == written);
        fill(&reread, 2);
        drop(reread);
        assert_eq!(on_disk(&path), written, "an unflushed staged body changed the file");

        // Changes in some chunks only, the tail's among them.
        let reread = Storage::open_file(&path, len, true, true).unwrap();
        let words = reread.words();
        for i in [0, STAGE_CHUNK / 8 + 5, words.len() - 1] {
            words[i].fetch_xor(1 << 40, Ordering::Relaxed);
        }
        reread.flush().unwrap();
        assert_ne!(reread.bytes(), written);
        let written = reread.bytes().to_vec();
        drop(reread);
        assert_eq!(on_disk(&path), written);

        let mapped = Storage::open_file(&path, len, true, false).unwrap();
        assert!(!mapped.is_staged() && mapped.bytes() == written);
        fill(&mapped, 3);
        mapped.flush().unwrap();
        let changed = mapped.bytes().to_vec();
        drop(mapped);
        assert_eq!(on_disk(&path), changed);
        // Read-only opens are never staged.
        assert!(!Storage::open_file(&path, len, false, true).unwrap().is_staged());
    }
}
