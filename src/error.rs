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
    /// A puzzle definition (ksolve / twsearch `.tws` format) that cannot be read: the line
    /// (1-based) and what was expected and found there.
    #[error("definition line {line}: {reason}")]
    InvalidDefinition {
        /// The line of the file the problem is on.
        line: usize,
        /// What is wrong there.
        reason: String,
    },
    /// A list of boards that cannot be used (a goals file, `bfs --goals`; `distance
    /// --boards`): one line per line in error, each saying where, what was expected and
    /// what was found.
    #[error("{0}")]
    InvalidBoardList(String),
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
    /// Stopped by Ctrl-C or SIGTERM after work was kept: what was kept and how to continue.
    #[error("interrupted; {0}")]
    InterruptedKept(String),
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
    /// Another process of an MPI job failed (and printed why); all of them stopped there.
    #[error("process {process} of the {processes} of the MPI job failed (its message says why)")]
    OtherProcess {
        /// The first process that failed (0-based).
        process: usize,
        /// The processes of the job.
        processes: usize,
    },
    /// The processes of an MPI job split the ranks differently (a build or definition that
    /// differs between them): searching on would hang or mix up their tables.
    #[error(
        "the processes of the MPI job deal the ranks differently: expected process 0's \
         {expected}, found {found} on process {process} (run one build on one definition \
         everywhere)"
    )]
    DealMismatch {
        /// Process 0's deal, in words.
        expected: String,
        /// This process's deal, in words.
        found: String,
        /// This process (0-based).
        process: usize,
    },
    /// The worker threads of a search could not be started.
    #[error("cannot start the worker threads: {0}")]
    ThreadPool(String),
    /// A search counting unique solutions was given a table without the bits for them.
    #[error(
        "counting unique solutions needs a table with unique-solution bits (one made with --unique)"
    )]
    NoUniqueBits,
    /// A result file (`twirl bfs --json`) that cannot be read or drawn.
    #[error("not a twirl result: {0}")]
    InvalidReport(String),
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

/// The most characters of user input an error message repeats; longer input is cut with `...`.
pub const ECHO_LIMIT: usize = 120;

/// User input made safe to repeat in an error message: control characters (newlines, tabs,
/// terminal escapes) are written as escapes (`\n`, `\u{1b}`) so the message stays on one line,
/// and input longer than [`ECHO_LIMIT`] characters is cut, so a 100 kB sequence does not fill
/// the terminal.
pub fn escaped(text: &str) -> String {
    let mut out = escape_chars(text.chars().take(ECHO_LIMIT), text.len());
    if text.chars().nth(ECHO_LIMIT).is_some() {
        out.push_str("...");
    }
    out
}

/// A message from another parser (TOML, JSON) that may repeat input: control characters are
/// escaped as in [`escaped`], nothing is cut.
pub fn one_line(text: &str) -> String {
    escape_chars(text.chars(), text.len())
}

fn escape_chars(chars: impl Iterator<Item = char>, capacity: usize) -> String {
    let mut out = String::with_capacity(capacity);
    for c in chars {
        // Line and paragraph separators are not control characters but still break lines.
        if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}') {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// The library's result type.
pub type Result<T> = std::result::Result<T, Error>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_stay_on_one_line() {
        assert_eq!(one_line("unknown field `a\nb`"), "unknown field `a\\nb`");
    }

    #[test]
    fn escaped_input_stays_on_one_short_line() {
        assert_eq!(escaped("R1C1\n%\t\u{1b}[31m"), "R1C1\\n%\\t\\u{1b}[31m");
        assert_eq!(escaped("plain [1,6] `x`"), "plain [1,6] `x`");
        let long = "(".repeat(1000);
        assert_eq!(escaped(&long), format!("{}...", "(".repeat(ECHO_LIMIT)));
    }
}
