//! A goal set: the solved states of a search from several goals (`twirl bfs --goals FILE`).
//!
//! The file gives one goal per line, either a board in the puzzle's notation (as `twirl
//! distance` and `check` read it) or a move sequence applied to the solved board (as `twirl
//! apply` reads it); blank lines and `#` comments are skipped. Every goal must be a board the
//! moves reach: a search marks the goals as distance 0, so the distance of a board is the
//! moves needed to reach the nearest goal.
//!
//! A goal set is identified by its [`GoalsRecord`]: the number of distinct goals and a
//! digest of them as a set (the order and repetitions of the file do not count), which a
//! table keeps so that a resume or a reader can tell a search from these goals from one from
//! solved.
//!
//! Symmetry classes keep distances to the goal set only under the symmetries that map the
//! set onto itself ([`Goals::refusal_of_classes`]): for a symmetry `s`, the distance of `s g
//! s^-1` to the goals is that of `g` to `s^-1 G s`. Inversion keeps the distance to solved
//! but not, in general, to a set (`g^-1` reaches `h` in the moves that take `h^-1` to `g`).

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use crate::group::solvable::{Checker, Verdict};
use crate::puzzle::sequence::Env;
use crate::puzzle::{Board, Puzzle};
use crate::rank::{Ranking, StateSpace, SymmetryMode};
use crate::{Error, Result};

/// Goals written out in full in a report when there are at most this many.
pub const LISTED_AT_MOST: usize = 24;

/// The distinct goals of a search, read from a file.
#[derive(Clone, Debug)]
pub struct Goals {
    /// Where they were read from, as the user named it (`-`: standard input).
    pub source: String,
    /// The distinct goals, in the order the file first gives them.
    pub boards: Vec<Board>,
    /// How a table identifies them.
    pub record: GoalsRecord,
}

/// What a table keeps of a goal set: enough to recognise it, not to rebuild it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GoalsRecord {
    /// Number of distinct goals.
    pub count: u64,
    /// Hex xxh3-64 of the goals written in the puzzle's notation, sorted, one per line.
    pub digest: String,
}

impl std::fmt::Display for GoalsRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} goals (digest {})", self.count, self.digest)
    }
}

impl Goals {
    /// Reads the goals in the file `source` (`-`: standard input).
    pub fn read(puzzle: &Puzzle, source: &str) -> Result<Goals> {
        let text = if source == "-" {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
                .map_err(|e| Error::io(std::path::Path::new("standard input"), e))?;
            text
        } else {
            std::fs::read_to_string(source)
                .map_err(|e| Error::io(std::path::Path::new(source), e))?
        };
        Goals::parse(puzzle, source, &text)
    }

    /// Reads the goals in `text`, named `source` in errors: every line in error is told,
    /// one per line of the message.
    pub fn parse(puzzle: &Puzzle, source: &str, text: &str) -> Result<Goals> {
        let mut checker = None;
        let (mut boards, mut seen, mut errors) = (Vec::new(), HashSet::new(), Vec::new());
        for (i, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let at = format!("{source}:{}", i + 1);
            let board = match goal_of(puzzle, line) {
                Ok(b) => b,
                Err(why) => {
                    errors.push(format!(
                        "{at}: expected a board or a move sequence, found `{line}`: {why}"
                    ));
                    continue;
                }
            };
            if checker.is_none() {
                checker = Some(Checker::new(puzzle)?);
            }
            if let Verdict::Unsolvable(reasons) = checker.as_ref().expect("made").check(&board) {
                errors.push(format!(
                    "{at}: expected a board the moves reach, found `{line}`: {}",
                    reasons.join("; ")
                ));
                continue;
            }
            if seen.insert(board.clone()) {
                boards.push(board);
            }
        }
        if boards.is_empty() && errors.is_empty() {
            errors.push(format!("{source}: expected at least one goal, found none"));
        }
        if !errors.is_empty() {
            return Err(Error::InvalidBoardList(errors.join("\n")));
        }
        let mut lines: Vec<String> = boards.iter().map(|b| puzzle.format_board(b)).collect();
        lines.sort_unstable();
        let digest = format!("{:016x}", xxhash_rust::xxh3::xxh3_64(lines.join("\n").as_bytes()));
        let record = GoalsRecord { count: boards.len() as u64, digest };
        Ok(Goals { source: source.to_string(), boards, record })
    }

    /// The space of a search from `goals` (or from solved), classes of boards as `mode`
    /// asks where they keep the distance to the goals: `Auto` falls back to one entry per
    /// board where they would not, `On` refuses saying why.
    pub fn space_for_search(
        goals: Option<&Goals>,
        puzzle: &Puzzle,
        mode: SymmetryMode,
        unique: bool,
    ) -> Result<StateSpace> {
        // Inversion never keeps distances to a set: classes without it.
        let space = StateSpace::for_search_with(puzzle, mode, unique, goals.is_none())?;
        let Some(goals) = goals else { return Ok(space) };
        let refusal = match &space.ranking {
            Ranking::Classes(c) => goals.refusal_of_classes(puzzle, c.inverts(), |b| c.images(b)),
            Ranking::CoordClasses(c) => goals.refusal_of_classes(puzzle, false, |b| c.images(b)),
            Ranking::FibreClasses(c) => goals.refusal_of_classes(puzzle, false, |b| c.images(b)),
            Ranking::FlipClasses(c) => goals.refusal_of_classes(puzzle, false, |b| c.images(b)),
            _ => None,
        };
        match (refusal, mode) {
            (None, _) => Ok(space),
            (Some(why), SymmetryMode::On) => Err(Error::Unsupported(format!(
                "no symmetry reduction for {} from these goals: {why}; use --symmetry off",
                puzzle.spec.named()
            ))),
            (Some(_), _) => StateSpace::for_search(puzzle, SymmetryMode::Off, unique),
        }
    }

    /// The ranks distance 0 holds in `space`: the goals', or the solved board's.
    pub fn starts(goals: Option<&Goals>, puzzle: &Puzzle, space: &StateSpace) -> Result<Vec<u64>> {
        match goals {
            Some(g) => g.boards.iter().map(|b| space.rank_board(b)).collect(),
            None => Ok(vec![space.rank_board(&puzzle.solved())?]),
        }
    }

    /// Refuses to continue or read the search in the table `path`, which records `recorded`,
    /// as one from `asked` (`None`: from solved), saying how they differ.
    pub fn check_same(
        path: &std::path::Path,
        recorded: Option<&GoalsRecord>,
        asked: Option<&Goals>,
    ) -> Result<()> {
        let reason = match (recorded, asked) {
            (None, None) => return Ok(()),
            (Some(r), Some(a)) if *r == a.record => return Ok(()),
            (Some(r), None) => format!(
                "the table holds a search from {r}, not from solved: give the same goals \
                 with --goals FILE"
            ),
            (None, Some(a)) => format!(
                "the table holds a search from solved, --goals {} asks for one from {}",
                a.source, a.record
            ),
            (Some(r), Some(a)) => format!(
                "the table holds a search from {r}, --goals {} gives {}",
                a.source, a.record
            ),
        };
        Err(Error::Refused { path: path.into(), reason: format!("{reason}; nothing was changed") })
    }

    /// Why a search by classes (whose group `inverts` or not, with the `images` of a board
    /// under its elements) would not give distances to these goals, if it would not:
    /// inversion is in the group, or a symmetry maps a goal outside the set.
    pub fn refusal_of_classes(
        &self,
        puzzle: &Puzzle,
        inverts: bool,
        images: impl Fn(&Board) -> Vec<Board>,
    ) -> Option<String> {
        if inverts {
            return Some(
                "its classes join a board and its inverse, which are not equally far from a \
                 set of goals"
                    .into(),
            );
        }
        let set: HashSet<&Board> = self.boards.iter().collect();
        for goal in &self.boards {
            if let Some(image) = images(goal).into_iter().find(|b| !set.contains(b)) {
                return Some(format!(
                    "a symmetry of the puzzle takes the goal {} to {}, which is not a goal (the \
                     goals must be a union of classes)",
                    puzzle.format_board(goal),
                    puzzle.format_board(&image)
                ));
            }
        }
        None
    }
}

/// A line as a board or, failing that, as a move sequence from solved; a definition's
/// boards already take both.
fn goal_of(puzzle: &Puzzle, line: &str) -> std::result::Result<Board, String> {
    let as_board = puzzle.parse_board(line);
    if puzzle.defined().is_some() {
        return as_board.map_err(|e| e.to_string());
    }
    let board_error = match as_board {
        Ok(b) => return Ok(b),
        Err(e) => e,
    };
    match Env::new().eval_text(puzzle, line) {
        Ok(m) => Ok(puzzle.apply(&puzzle.solved(), &m)),
        // A line of numbers was meant as a board, anything else as a sequence.
        Err(_) if line.starts_with(|c: char| c.is_ascii_digit() || c == '-') => {
            Err(board_error.to_string())
        }
        Err(e) => Err(e.to_string()),
    }
}
