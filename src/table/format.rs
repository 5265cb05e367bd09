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
//! [`Header`] struct: readable with `head -c 4096 FILE`, checked by its own hash. The table's
//! checksum ([`table_checksum`]: the body and the header's fields) is recorded when the search
//! completes and verified before a finished table is used.
//!
//! While a search runs, its progress is recorded beside the table (`FILE.checkpoint`, see
//! [`crate::checkpoint`]); the header is rewritten when the search finishes, sealed with the
//! histogram, the antipodes and the checksum. Only the prefix and the JSON are rewritten:
//! they fit in the first page, so a killed process leaves the old header or the new one.
//!
//! Versions: 1, the first; 2 adds the [`RankingRecord`] (how ranks map to boards), the
//! antipodes, the search's elapsed seconds and the histogram of a search under way. A reader
//! refuses every version but [`VERSION`], saying which it found.

use std::io::Read;
use std::path::Path;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::escaped;
use crate::puzzle::goals::GoalsRecord;
use crate::rank::record::RankingRecord;
use crate::{Error, Result};

/// The first bytes of every table file.
pub const MAGIC: [u8; 8] = *b"TWIRLTB\x01";
/// The format version this build reads and writes.
pub const VERSION: u32 = 2;
/// Bytes reserved for the header; the body starts here.
pub const HEADER_BYTES: u64 = 1 << 16;
/// Bytes before the JSON text: magic, version, length, hash.
const PREFIX_BYTES: usize = 8 + 4 + 4 + 8;

/// What a table file says about itself. Field names are the on-disk JSON.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Header {
    /// The puzzle in canonical spec form (`nrp:3x3:2`, `spin:3x3:1x1,1x2`).
    pub puzzle: String,
    /// `qtm`, `htm` or `cw`.
    pub metric: String,
    /// Number of ranks (reachable boards).
    pub n_states: u64,
    /// How ranks map to boards; a table whose record differs from this build's is refused.
    pub ranking: RankingRecord,
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
    /// The smallest ranks (at most ten) at the largest completed distance.
    pub antipodes: Vec<u64>,
    /// Wall-clock seconds of the search over every run (complete tables).
    pub elapsed_seconds: f64,
    /// Hex xxh3-64 checksum of everything after the header (complete tables only).
    pub checksum: Option<String>,
    /// Boards at each completed distance, for a table of symmetry classes (whose
    /// `histogram` counts entries, one per class); absent otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub boards: Vec<u64>,
    /// For one process's part of a table searched by an MPI job: which ranks the body
    /// holds; absent for a whole table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part: Option<Part>,
    /// For a search from a set of goals (`bfs --goals`), which set: distances are then to
    /// the nearest goal, not to solved. Absent for a search from solved (a twirl that does
    /// not know the field refuses the table rather than read it as one from solved).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goals: Option<GoalsRecord>,
    /// For a `def:` puzzle searched as a subset of its file (`--nocorners`, `--ignore`,
    /// ...), that subset: the table is read back as it. Absent for the whole file (a twirl
    /// that does not know the field refuses the table rather than read it as the file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subset: Option<crate::puzzle::subset::Subset>,
}

/// The ranks one process of an MPI job keeps: part `index` of `count`, `ranks` of the job's
/// `n_states` dealt in units of `unit` ranks, the first at `first` (see
/// [`crate::bfs::RankDeal`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Part {
    /// The process that keeps it (0-based).
    pub index: u32,
    /// The processes of the job.
    pub count: u32,
    /// The first rank.
    pub first: u64,
    /// Number of ranks.
    pub ranks: u64,
    /// Ranks per unit of the deal; 0 in parts written before ranks were dealt in units,
    /// which held `first..first + ranks` (refused on resume).
    #[serde(default)]
    pub unit: u64,
}

impl Part {
    /// Which ranks the part holds, in words.
    pub fn describe(&self) -> String {
        match self.unit {
            0 => format!("ranks {}..{}", self.first, self.first + self.ranks),
            unit => format!("{} ranks dealt in units of {unit}", self.ranks),
        }
    }
}

impl Header {
    /// The puzzle as a command line names it: its spec, then the subset flags it was
    /// searched with (`def:cube.tws --nocorners`).
    pub fn named_puzzle(&self) -> String {
        crate::puzzle::subset::Subset::named(&self.puzzle, self.subset.as_ref())
    }

    /// Ranks the body holds: all of them, or a part's.
    pub fn body_ranks(&self) -> u64 {
        self.part.map_or(self.n_states, |p| p.ranks)
    }

    /// Total file length.
    pub fn file_bytes(&self) -> u64 {
        HEADER_BYTES + self.body_bytes + self.unique_bytes
    }

    /// The header region's bytes, padded to [`HEADER_BYTES`].
    pub fn encode(&self) -> Result<Vec<u8>> {
        let mut out = self.encode_used()?;
        out.resize(HEADER_BYTES as usize, 0);
        Ok(out)
    }

    /// Reads and checks the header at the start of `file` (named `path` in errors).
    pub fn read_from(file: &mut impl Read, path: &Path) -> Result<Header> {
        let bad = |why: String| Error::BadTable { path: path.into(), reason: why };
        let mut prefix = [0u8; PREFIX_BYTES];
        file.read_exact(&mut prefix)
            .map_err(|_| bad("too short to be a twirl table (no header)".into()))?;
        let len = Header::check_prefix(&prefix, path)?;
        let mut json = vec![0u8; len];
        file.read_exact(&mut json).map_err(|_| bad("truncated header".into()))?;
        Header::decode_json(&prefix, &json, path)
    }

    /// Reads and checks a header from the bytes of a file's start.
    pub fn decode(bytes: &[u8], path: &Path) -> Result<Header> {
        Header::read_from(&mut &bytes[..], path)
    }

    /// Checks magic and version; returns the JSON length.
    fn check_prefix(prefix: &[u8; PREFIX_BYTES], path: &Path) -> Result<usize> {
        let bad = |why: String| Error::BadTable { path: path.into(), reason: why };
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
        if len > HEADER_BYTES as usize - PREFIX_BYTES {
            return Err(bad("corrupted header (length out of range)".into()));
        }
        Ok(len)
    }

    fn decode_json(prefix: &[u8; PREFIX_BYTES], json: &[u8], path: &Path) -> Result<Header> {
        let bad = |why: String| Error::BadTable { path: path.into(), reason: why };
        let hash = u64::from_le_bytes(prefix[16..24].try_into().unwrap());
        if xxhash_rust::xxh3::xxh3_64(json) != hash {
            return Err(bad("corrupted header (its checksum does not match)".into()));
        }
        let header: Header = serde_json::from_slice(json)
            .map_err(|e| bad(format!("unreadable header: {}", escaped(&e.to_string()))))?;
        header.check_sizes().map_err(bad)?;
        Ok(header)
    }

    /// Checks that the sizes agree with each other: the body holds `n_states` marks, the
    /// unique bits (if any) two bits per rank, the lists fit the board count.
    pub fn check_sizes(&self) -> std::result::Result<(), String> {
        use super::{table_bytes, unique_bytes};
        if let Some(p) = self.part {
            let fits = p.first.checked_add(p.ranks).is_some_and(|end| end <= self.n_states);
            if p.index >= p.count || !fits {
                return Err(format!(
                    "corrupted header (part {} of {} holding ranks {}+{} of {})",
                    p.index, p.count, p.first, p.ranks, self.n_states
                ));
            }
        }
        let ranks = self.body_ranks();
        if self.body_bytes != table_bytes(ranks)
            || (self.unique_bytes != 0 && self.unique_bytes != unique_bytes(ranks))
        {
            return Err(format!(
                "corrupted header (sizes do not match the board count: {} boards need a \
                 {}-byte body, the header says {})",
                ranks,
                table_bytes(ranks),
                self.body_bytes
            ));
        }
        if self.ranking.n_states != self.n_states {
            return Err(format!(
                "corrupted header (its ranking has {} ranks, its table {} boards)",
                self.ranking.n_states, self.n_states
            ));
        }
        if self.antipodes.len() > crate::bfs::SAMPLE {
            return Err(format!(
                "corrupted header ({} antipodes listed, at most {} are kept)",
                self.antipodes.len(),
                crate::bfs::SAMPLE
            ));
        }
        if !(self.elapsed_seconds.is_finite() && self.elapsed_seconds >= 0.0) {
            return Err("corrupted header (elapsed seconds out of range)".into());
        }
        Ok(())
    }

    /// The header's first bytes: prefix and JSON, without the padding.
    fn encode_used(&self) -> Result<Vec<u8>> {
        let json = serde_json::to_vec(self).expect("a header serializes");
        if PREFIX_BYTES + json.len() > HEADER_BYTES as usize {
            return Err(Error::TooLarge(format!(
                "the table header ({} bytes) exceeds its {HEADER_BYTES}-byte region",
                json.len()
            )));
        }
        let mut out = Vec::with_capacity(PREFIX_BYTES + json.len());
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&(json.len() as u32).to_le_bytes());
        out.extend_from_slice(&xxhash_rust::xxh3::xxh3_64(&json).to_le_bytes());
        out.extend_from_slice(&json);
        Ok(out)
    }

    /// Writes the header at the start of `file` and syncs it to disk. Only the used bytes
    /// are written: within one page they replace the old header whole even if the process is
    /// killed (a write is cut only between pages).
    pub fn write_to(&self, file: &std::fs::File, path: &Path) -> Result<()> {
        use std::os::unix::fs::FileExt;
        let bytes = self.encode_used()?;
        file.write_all_at(&bytes, 0).map_err(|e| Error::io(path, e))?;
        file.sync_data().map_err(|e| Error::io(path, e))
    }
}

/// The checksum a complete table records: of its body and of everything its header says
/// (the checksum field aside), so a header field rewritten and signed again is caught too.
pub fn table_checksum(header: &Header, body: &[u8]) -> String {
    let mut sealed = header.clone();
    sealed.checksum = None;
    // JSON floats may come back one unit in the last place off: seal whole milliseconds.
    sealed.elapsed_seconds = 0.0;
    let mut text = serde_json::to_vec(&sealed).expect("a header serializes");
    text.extend_from_slice(&((header.elapsed_seconds * 1e3).round() as u64).to_le_bytes());
    text.extend_from_slice(body_checksum(body).as_bytes());
    format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&text))
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
            ranking: RankingRecord {
                scheme: 1,
                kind: "enumerated".into(),
                n_states: 120,
                fingerprint: "0123456789abcdef".into(),
            },
            body_bytes: 32,
            unique_bytes: 0,
            complete: true,
            histogram: vec![1, 4, 10, 22, 42, 33, 7, 1],
            unique_histogram: None,
            antipodes: vec![7],
            elapsed_seconds: 0.5,
            checksum: Some(body_checksum(&[0u8; 32])),
            boards: Vec::new(),
            part: None,
            goals: None,
            subset: None,
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

    proptest::proptest! {
        /// Random bytes and valid headers with bytes changed: an error or a header, never a
        /// panic.
        #[test]
        fn header_parser_never_panics(
            noise in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..600),
            edits in proptest::collection::vec(
                (0usize..600, proptest::prelude::any::<u8>()), 0..6),
            keep_hash in proptest::prelude::any::<bool>(),
        ) {
            let p = Path::new("t");
            let _ = Header::decode(&noise, p);
            let mut bytes = header().encode().unwrap();
            let len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
            for &(at, b) in &edits {
                bytes[at % (PREFIX_BYTES + len + 8)] = b;
            }
            if keep_hash {
                // Re-sign whatever the JSON now says, as a hostile file would.
                let len = (u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize)
                    .min(HEADER_BYTES as usize - PREFIX_BYTES);
                let hash = xxhash_rust::xxh3::xxh3_64(&bytes[PREFIX_BYTES..PREFIX_BYTES + len]);
                bytes[16..24].copy_from_slice(&hash.to_le_bytes());
            }
            if let Ok(h) = Header::decode(&bytes, p) {
                proptest::prop_assert!(h.check_sizes().is_ok());
            }
        }
    }

    #[test]
    fn a_part_header_sizes_its_body_by_its_ranks() {
        let mut h = header();
        h.part = Some(Part { index: 1, count: 3, first: 40, ranks: 40, unit: 8 });
        h.body_bytes = super::super::table_bytes(40);
        let p = Path::new("t");
        assert_eq!(Header::decode(&h.encode().unwrap(), p).unwrap(), h);
        for bad in [
            Part { index: 3, count: 3, first: 40, ranks: 40, unit: 8 },
            Part { index: 2, count: 3, first: 100, ranks: 40, unit: 8 },
            Part { index: 2, count: 3, first: u64::MAX, ranks: 40, unit: 8 },
        ] {
            h.part = Some(bad);
            let e = h.check_sizes().unwrap_err();
            assert!(e.contains("corrupted header (part"), "{e}");
        }
        h.part = Some(Part { index: 1, count: 3, first: 40, ranks: 80, unit: 8 });
        assert!(h.check_sizes().unwrap_err().contains("sizes do not match"));
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
