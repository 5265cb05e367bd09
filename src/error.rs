//! The library's error type. Every failure a user can cause (a bad puzzle spec, a malformed
//! board, a table that does not fit) is an [`Error`]; programmer bugs panic instead.

use std::path::PathBuf;

/// Everything that can go wrong in the library.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The puzzle specification is malformed or describes an impossible board.
    #[error("invalid puzzle `{spec}`: {reason}")]
    InvalidPuzzle {
        /// The spec as the user typed it.
        spec: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A metric name or a metric that the puzzle does not support.
    #[error("invalid metric: {0}")]
    InvalidMetric(String),
    /// A board that cannot be read or does not belong to the puzzle.
    #[error("invalid board: {0}")]
    InvalidBoard(String),
    /// A move sequence that cannot be read or evaluated on the puzzle (unknown move name,
    /// unbound letter, unbalanced parenthesis, exponent overflow, move outside the board).
    #[error("invalid sequence `{text}`: {reason}")]
    InvalidSequence {
        /// The sequence as written.
        text: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A claims registry that cannot be read (TOML syntax, an unknown field, a bad template).
    #[error("claims registry: {0}")]
    InvalidRegistry(String),
    /// The table would not fit in the memory or disk allowed.
    #[error("table does not fit: {0}")]
    TooLarge(String),
    /// The move group is outside what the ranking code can index densely.
    #[error("unsupported move group: {0}")]
    Unsupported(String),
    /// A table file that cannot be used: not a table, another version, truncated, corrupted,
    /// or for another puzzle.
    #[error("{path}: {reason}")]
    BadTable {
        /// The table file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// An I/O failure, with the file it concerns.
    #[error("{path}: {cause}")]
    Io {
        /// The file or directory involved.
        path: PathBuf,
        /// The underlying failure (shown in the message, so not also chained as a source).
        cause: std::io::Error,
    },
    /// Stopped by Ctrl-C or SIGTERM; the work done so far is saved where the job allows.
    #[error("interrupted")]
    Interrupted,
    /// A file a job refuses to read or write: an output that would replace an input or an
    /// existing table, a checkpoint that disagrees with its table, an archive larger than it
    /// declares.
    #[error("{path}: {reason}")]
    Refused {
        /// The file refused.
        path: PathBuf,
        /// Why, saying what was expected and what was found.
        reason: String,
    },
    /// The worker threads of a search could not be started.
    #[error("cannot start the worker threads: {0}")]
    ThreadPool(String),
    /// A search counting unique solutions was given a table without the bits for them.
    #[error(
        "counting unique solutions needs a table with unique-solution bits (one made with --unique)"
    )]
    NoUniqueBits,
    /// A table whose marks do not lead a descent to the solved board within its God's
    /// number: corrupted, or written by a faulty search.
    #[error("table is inconsistent: {0}")]
    InconsistentTable(String),
}

impl Error {
    /// Wraps an I/O error together with the path it concerns.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Error {
        Error::Io { path: path.into(), cause: source }
    }
}

/// The library's result type.
pub type Result<T> = std::result::Result<T, Error>;
