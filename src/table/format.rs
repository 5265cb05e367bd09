//! The table file format: a self-describing header, then the 2-bit body, then (for searches
//! with `--unique`) one bit per board.
//!
//! ```text
//! offset 0      MAGIC (8 bytes) | VERSION (u32 LE) | n = JSON length (u32 LE)
//!               | xxh3-64 of the JSON (u64 LE) | the JSON text (n bytes) | zero padding
//! HEADER_BYTES  body: 2 bits per rank, 32 ranks per little-endian u64 word
//!               unique bits: 1 bit per rank, 64 ranks per word (only if `unique_bytes > 0`)
//! ```
//! The header region is a fixed [`HEADER_BYTES`], so the body is page-aligned for the memory
//! map and the header can be rewritten in place as the search advances. The JSON is the
//! [`Header`] struct: readable with `head -c 4096 FILE`, checked by its own hash. The body's
//! checksum ([`body_checksum`]) is recorded when the search completes and verified before a
//! finished table is used.

use std::io::Read;
use std::path::Path;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::{Error, Result};

/// The first bytes of every table file.
pub const MAGIC: [u8; 8] = *b"TWIRLTB\x01";
/// The format version this build reads and writes.
pub const VERSION: u32 = 1;
/// Bytes reserved for the header; the body starts here.
pub const HEADER_BYTES: u64 = 1 << 16;
/// Bytes before the JSON text: magic, version, length, hash.
const PREFIX_BYTES: usize = 8 + 4 + 4 + 8;

/// What a table file says about itself. Field names are the on-disk JSON.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    /// The puzzle in canonical spec form (`nrp:3x3:2`, `spin:3x3:1x1,1x2`).
    pub puzzle: String,
    /// `qtm`, `htm` or `cw`.
    pub metric: String,
    /// Number of ranks (reachable boards).
    pub n_states: u64,
    /// Bytes of the 2-bit body.
    pub body_bytes: u64,
    /// Bytes of the unique-solution bits after the body (0: not recorded).
    pub unique_bytes: u64,
    /// Whether the search finished (every level found, checksum recorded).
    pub complete: bool,
    /// Boards at each completed distance.
    pub histogram: Vec<u64>,
    /// Boards with exactly one shortest solution at each completed distance (with unique bits).
    pub unique_histogram: Option<Vec<u64>>,
    /// Hex xxh3-64 checksum of everything after the header (complete tables only).
    pub checksum: Option<String>,
}

impl Header {
    /// Total file length.
    pub fn file_bytes(&self) -> u64 {
        HEADER_BYTES + self.body_bytes + self.unique_bytes
    }

    /// The header region's bytes.
    pub fn encode(&self) -> Result<Vec<u8>> {
        let json = serde_json::to_vec(self).expect("a header serializes");
        if PREFIX_BYTES + json.len() > HEADER_BYTES as usize {
            return Err(Error::TooLarge(format!(
                "the table header ({} bytes) exceeds its {HEADER_BYTES}-byte region",
                json.len()
            )));
        }
        let mut out = Vec::with_capacity(HEADER_BYTES as usize);
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&(json.len() as u32).to_le_bytes());
        out.extend_from_slice(&xxhash_rust::xxh3::xxh3_64(&json).to_le_bytes());
        out.extend_from_slice(&json);
        out.resize(HEADER_BYTES as usize, 0);
        Ok(out)
    }

    /// Reads and checks the header at the start of `file` (named `path` in errors).
    pub fn read_from(file: &mut impl Read, path: &Path) -> Result<Header> {
        let bad = |why: String| Error::BadTable { path: path.into(), reason: why };
        let mut prefix = [0u8; PREFIX_BYTES];
        file.read_exact(&mut prefix)
            .map_err(|_| bad("too short to be a twirl table (no header)".into()))?;
        if prefix[..8] != MAGIC {
            return Err(bad("not a twirl table file (wrong magic bytes)".into()));
        }
        let version = u32::from_le_bytes(prefix[8..12].try_into().unwrap());
        if version != VERSION {
            return Err(bad(format!(
                "table format version {version}, but this twirl reads version {VERSION}; \
                 recompute the table with this version"
            )));
        }
        let len = u32::from_le_bytes(prefix[12..16].try_into().unwrap()) as usize;
        let hash = u64::from_le_bytes(prefix[16..24].try_into().unwrap());
        if PREFIX_BYTES + len > HEADER_BYTES as usize {
            return Err(bad("corrupted header (length out of range)".into()));
        }
        let mut json = vec![0u8; len];
        file.read_exact(&mut json).map_err(|_| bad("truncated header".into()))?;
        if xxhash_rust::xxh3::xxh3_64(&json) != hash {
            return Err(bad("corrupted header (its checksum does not match)".into()));
        }
        serde_json::from_slice(&json).map_err(|e| bad(format!("unreadable header: {e}")))
    }

    /// Writes the header region at the start of `file` and syncs it to disk.
    pub fn write_to(&self, file: &std::fs::File, path: &Path) -> Result<()> {
        use std::os::unix::fs::FileExt;
        let bytes = self.encode()?;
        file.write_all_at(&bytes, 0).map_err(|e| Error::io(path, e))?;
        file.sync_data().map_err(|e| Error::io(path, e))
    }
}

/// Bytes hashed per parallel chunk.
const CHUNK_BYTES: usize = 1 << 24;

/// The checksum of a table body: xxh3-64 of each 16 MiB chunk (in parallel), then xxh3-64 of
/// the chunk hashes in order, as 16 hex digits.
pub fn body_checksum(bytes: &[u8]) -> String {
    let hashes: Vec<u8> = bytes
        .par_chunks(CHUNK_BYTES)
        .map(|c| xxhash_rust::xxh3::xxh3_64(c).to_le_bytes())
        .collect::<Vec<_>>()
        .concat();
    format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&hashes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header() -> Header {
        Header {
            puzzle: "nrp:2x3:2".into(),
            metric: "qtm".into(),
            n_states: 120,
            body_bytes: 32,
            unique_bytes: 0,
            complete: true,
            histogram: vec![1, 4, 10, 22, 42, 33, 7, 1],
            unique_histogram: None,
            checksum: Some(body_checksum(&[0u8; 32])),
        }
    }

    #[test]
    fn header_round_trip_and_damage() {
        let h = header();
        let bytes = h.encode().unwrap();
        assert_eq!(bytes.len() as u64, HEADER_BYTES);
        let p = Path::new("t");
        assert_eq!(Header::read_from(&mut &bytes[..], p).unwrap(), h);
        let mut damaged = bytes.clone();
        damaged[40] ^= 1;
        let e = Header::read_from(&mut &damaged[..], p).unwrap_err().to_string();
        assert!(e.contains("corrupted header"), "{e}");
        let mut old = bytes.clone();
        old[8] = 0;
        let e = Header::read_from(&mut &old[..], p).unwrap_err().to_string();
        assert!(e.contains("version 0"), "{e}");
        let e = Header::read_from(&mut &b"PK\x03\x04 this is not a twirl table at all"[..], p)
            .unwrap_err();
        assert!(e.to_string().contains("magic"), "{e}");
        let e = Header::read_from(&mut &bytes[..10], p).unwrap_err();
        assert!(e.to_string().contains("too short"), "{e}");
    }

    #[test]
    fn checksum_sees_every_byte() {
        let mut body = vec![0u8; 3 * CHUNK_BYTES + 5];
        let a = body_checksum(&body);
        body[2 * CHUNK_BYTES + 1] = 1;
        assert_ne!(a, body_checksum(&body));
        assert_eq!(a.len(), 16);
    }
}
