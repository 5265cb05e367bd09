//! # twirl: exhaustive state-space search of rotation puzzles
//!
//! twirl answers questions such as "how many boards of this puzzle are solvable, how far is
//! each from solved, and what is God's number?" exactly, for NRP/Twiddle (blocks rotated by
//! quarter turns) and Spinpossible (rectangles spun by half turns), with metrics, tile
//! orientation and restricted move sets.
//!
//! ## Module map
//! - [`puzzle`]: boards, moves and the puzzle specs (`nrp:3x3:2`, `spin:3x3:1x1,1x2`), and
//!   move sequences as the sources write them (`X Y^-1 X^-1 Y Z`, `R2C3'`, `[1,6] [2,5]`);
//!   puzzle definitions in the ksolve/twsearch `.tws` format.
//! - [`group`]: the analysis of a puzzle's moves, made once ([`group::analysis::Analysis`]):
//!   invariants (orbits, tied orientation, parity and orientation-sum couplings), stabilizer
//!   chains (exact group orders, membership); and the cycle structure of one element.
//! - [`rank`]: dense ranks of the reachable boards: a puzzle's [`rank::StateSpace`] and its
//!   [`rank::StateRanking`].
//! - [`table`]: the 2-bit distance table in a memory map (the only code that knows the
//!   packing); table files (header, checksum).
//! - [`symmetry`]: board symmetries that keep the move set, their action on boards, classes.
//! - [`bfs`]: the parallel level-synchronous search (with unique-solution counts) over any
//!   [`bfs::SearchSpace`].
//! - `distributed` (cargo feature `mpi`): one search across the processes of an MPI job.
//! - [`durable`]: files written so a crash leaves the old or the new version.
//! - [`checkpoint`]: durable progress of a search in a table file, for resuming.
//! - [`job`]: long searches in a table file: start, run, stop, resume, with every file
//!   checked against the others; the one verified way to open a finished table.
//! - [`archive`]: a finished table compressed (zstd) for archiving, and restored.
//! - [`optimal`]: shortest solutions: descended from a finished table, or found by IDA*
//!   guided by pattern tables that the engine builds (the puzzle with most tiles identical).
//! - [`phase`]: God's number between two patterns of a definition (pieces solved in place):
//!   from every board of a start pattern to the nearest board of a goal pattern.
//! - [`random`]: uniformly random solvable boards, reproducible from a seed.
//! - [`plot`]: the distance histogram as an SVG picture.
//! - [`report`]: the result of a search as data (histogram, God's number, antipodes).
//! - [`verify`]: published statements checked against exact group orders.
//! - [`solvers`]: constructive solvers: Y. Lee's staged solver, run exactly as published, and
//!   Lam's method for every solvable NRP board of any size.
//! - [`claims`]: published statements about move sequences (3-cycles, swaps, belt shifts,
//!   spin identities) checked mechanically from a registry, `data/claims.toml`.
//!
//! ## Example
//! ```
//! use twirl::{bfs, puzzle::Puzzle, rank::StateSpace, table::DistanceTable};
//! let puzzle = Puzzle::parse("nrp:2x3:2", None).unwrap();
//! let space = StateSpace::build(&puzzle).unwrap();
//! let table = DistanceTable::in_memory(space.n_states()).unwrap();
//! let config = bfs::Config::new(1);
//! let out = bfs::search_puzzle(&puzzle, &space, &table, &config, &bfs::NoProgress).unwrap();
//! assert_eq!(out.histogram, vec![1, 4, 10, 22, 42, 33, 7, 1]);
//! ```
//!
//! ## Memory usage
//! A search needs two bits per reachable board (`table::table_bytes`) plus a few megabytes:
//! NRP (4,4,3) with 812,851,200 boards takes 194 MiB.

#![deny(missing_docs)]

pub mod archive;
pub mod bfs;
pub mod checkpoint;
pub mod claims;
#[cfg(feature = "mpi")]
pub mod distributed;
pub mod durable;
pub mod error;
pub mod group;
pub mod huge_alloc;
pub mod job;
pub mod optimal;
pub mod phase;
pub mod pinning;
pub mod plot;
pub mod puzzle;
pub mod random;
pub mod rank;
pub mod report;
pub mod solvers;
pub mod symmetry;
pub mod table;
pub mod verify;

pub use error::{Error, Result};
