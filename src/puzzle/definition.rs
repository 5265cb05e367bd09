//! Puzzle definitions in the ksolve / twsearch format (`.tws` files): the types and the
//! reader ([`Definition::parse`]). Writing a definition, and making one from a built-in
//! puzzle, is in `definition_write.rs` ([`Definition::to_tws`], [`Definition::from_puzzle`]).
//!
//! # The format, as twsearch reads it
//! Established from twsearch's reader (`src/cpp/readksolve.cpp`: the line reader, `readdef`,
//! `readposition`, `expandonemove`), its product (`puzdef.h`, `mul`), its move-name rules
//! (`parsemoves.cpp`, `isrotation`), the command-line move filter (`filtermoves.cpp`), the
//! options table (`twsearch.cpp`), the author's note on conventions (`docs/ksolveformat.txt`)
//! and its samples (`samples/main/*.tws`), at twsearch commit
//! 268d1a30c59765aaec6556ab988a581a8334efee; the directions below were confirmed by running
//! that twsearch with `--showpositions` on a one-move file.
//!
//! - Lines are split into tokens at whitespace. A line whose first character is `#` is a
//!   comment (twsearch knows no other comment style, not even `#` after a token; twirl also
//!   ends a line at a token starting with `#`). Blank lines are skipped. Keywords are
//!   case-sensitive.
//! - `Name NAME` (optional, first), then one `Set NAME PIECES ORIENTATIONS` line per orbit
//!   (at most 255 pieces, 1 to 127 orientations), then one `Solved` block, then `Move NAME`
//!   blocks. Every block ends with a line `End`: twsearch stops with "premature end" without
//!   it. A block lists sets by name, in any order, each at most once; a set it leaves out is
//!   untouched by a move and in its natural order (`1 2 ... n`, upright) in `Solved`.
//! - Under a set name come one or two lines of numbers: the permutation (1-based) and,
//!   optionally, the orientations (0-based, below the set's count; zeros when absent). In
//!   `Solved`, an orientation may be `?` (twsearch's orientation wildcard): that piece's
//!   orientation is not seen, and boards differing only by it are one board. Identical
//!   pieces are all `?` or none (twsearch: "inconsistent orientation wildcards across
//!   identical pieces"). twirl reads `?` nowhere else.
//! - Positions are *passive*: in `Solved`, entry `i` is the label of the piece standing at
//!   position `i`. A label used twice makes those pieces identical (twsearch accepts any
//!   labels from 1 to 255 and packs them).
//! - A move line is the position the move makes from the identity, so it is passive too:
//!   entry `j` is the position whose piece *lands on* position `j`. ksolveformat.txt shows it
//!   with the 3x3x3: `U` has corners `4 1 2 3 ...`, putting piece 4 (URB) in slot 1 (URF).
//!   The product of a position `a` with a move `b` is `c[j] = a[b[j]]`.
//! - A move's orientation line (ksolve's "move representation") is indexed by the piece's
//!   *source* position: entry `k` is the twist of the piece leaving position `k`, added
//!   modulo the set's orientation count. twsearch converts it on reading to its state form
//!   `o_state[j] = o_move[b[j]]`, indexed by destination. (`MoveTransformation` blocks use
//!   0-based numbers and the state form; twirl does not read them.)
//! - Each declared move is expanded into all its powers, and *every power is one move*:
//!   a move `R` of order 4 gives `R`, `R2` and `R'`, of order 9 `R`, `R2`, `R3`, `R4`, `R4'`,
//!   `R3'`, `R2'`, `R'` (a power `k` beyond half the order is written as the inverse power
//!   `order - k` with `'`). A move is one unit of distance whatever its power.
//! - Move names are any token, but twsearch reads move sequences split at whitespace and
//!   commas, so a name must not contain `,`; names of capitals and `_` ending in `v`, and
//!   `x`, `y`, `z` (with `2` or `'`), are whole-puzzle *rotations*, used for symmetry and not
//!   counted as moves. twsearch checks neither duplicate move nor duplicate set names, nor
//!   a declared name equal to another move's power name (`R2` beside `R` of order 4, `R'`,
//!   `R12` from `R1` and from `R` of order 24): it keeps both moves under the one name and
//!   reads the name as the first of them (`findmove`). twirl refuses all three, naming both
//!   lines, so that every move name it prints reads back as that move.
//! - Rotations are kept apart in [`Definition::rotations`] (twsearch's `baserotations`).
//! - `MoveSequence NAME MOVE...` (one line, after `Solved`): twsearch expands it once every
//!   move is read (`expandalgomoves`): the product of moves, rotations and their powers, and
//!   of sequences already expanded (rounds repeat until all are), becomes a declared move, or
//!   a rotation by its name. twirl does the same.
//! - `Illegal SET POSITION LABEL...` (one line, after `Solved`): a board with one of these
//!   pieces (labels 1 to 64) on that position may not be entered (`legalstate`); read into
//!   [`Definition::illegal`].
//! - Other statements, refused by twirl: `MoveAlias`, `StartState` (a 0-based `Solved`),
//!   `MoveTransformation`. ksolve's `Ignore`, `Block`, `ForbiddenPairs`, ... are not read by
//!   twsearch at all.
//!
//! # Metrics twsearch can express
//! Because every power of a declared move is one move, a file can only describe move sets
//! closed under powers. NRP in htm (quarter turns both ways and half turns, one move each)
//! is one declared quarter turn per block; each Spinpossible spin is its own inverse, so a
//! declared move. NRP in qtm is not expressible in the file: twsearch's `-q` option ("use
//! only minimal (quarter) turns") drops the powers of cost above 1 (the half turns), so the
//! htm file searched with `-q` gives qtm. Clockwise-only turns (cw) are not expressible at
//! all: the inverse of every move is always a move, and the `--moves` filter only keeps
//! multiples (`R2`), never `R'` alone.
//!
//! # twirl's convention
//! [`Definition`] stores moves in twirl's own direction, that of [`crate::puzzle::Move`]:
//! `perm[i]` is where the piece standing at position `i` goes, `twist[i]` the turn of the
//! piece leaving position `i`. Reading inverts each permutation line; writing inverts back.
//! The orientation line needs no conversion: both index it by the source position.

use std::collections::HashMap;
use std::fmt::Write as _;

use super::Move;
use crate::error::escaped;
use crate::{Error, Result};

#[path = "definition_write.rs"]
mod write;

pub use write::{export_notes, twsearch_names};

/// A puzzle definition: sets of pieces, the solved state and the moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Definition {
    /// The `Name` token (`Unnamed` when the file gives none, as twsearch does).
    pub name: String,
    /// The sets (orbits), in file order.
    pub sets: Vec<SetDef>,
    /// The solved state, one entry per set, in the order of `sets`.
    pub solved: Vec<SetState>,
    /// The declared moves, in file order, then the `MoveSequence`s (expanded, in the order
    /// twsearch expands them). twsearch also counts each power of each of them as one move
    /// (see the module docs); these are the declared generators only.
    pub moves: Vec<MoveDef>,
    /// Whole-puzzle rotations (moves or sequences whose names twsearch takes for rotations:
    /// capitals ending in `v`, `x`, `y`, `z`), in file order. They are symmetries of the
    /// puzzle, never moves: no search counts them.
    pub rotations: Vec<MoveDef>,
    /// `Illegal` statements: boards with one of these pieces on that position may not be
    /// entered. twirl's searches cannot skip them and refuse such a definition.
    pub illegal: Vec<Illegal>,
}

/// One banned placement from an `Illegal SET POSITION LABEL...` line (one per label).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Illegal {
    /// The set, an index into [`Definition::sets`].
    pub set: usize,
    /// The position in the set, 0-based.
    pub position: usize,
    /// The banned piece label, 0-based (as [`SetState::pieces`]).
    pub label: u16,
}

/// One set (orbit) of pieces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetDef {
    /// The set's name, a token that does not start with a digit or `?`.
    pub name: String,
    /// Number of pieces (and positions): 1 to 255.
    pub size: usize,
    /// Orientations a piece can take: 1 (none) to 127.
    pub orientations: u8,
}

/// The state of one set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetState {
    /// `pieces[i]`: the label of the piece standing at position `i`, 0-based (the file's
    /// number minus one). Equal labels are identical pieces. Labels need not be below the
    /// set's size nor contiguous (twsearch accepts labels 1 to 255 in the file).
    pub pieces: Vec<u16>,
    /// `orient[i]`: the orientation of the piece standing at position `i`, or, in the
    /// solved state only, [`ANY_ORIENTATION`] (`?` in the file) for a piece whose orientation
    /// is not seen.
    pub orient: Vec<u8>,
}

/// The orientation of a solved piece whose orientation is not seen (twsearch's orientation
/// wildcard, `?` in a `Solved` block's orientation line): boards that differ only by the
/// orientations of such pieces are one board. Identical pieces are all seen or all unseen.
pub const ANY_ORIENTATION: u8 = u8::MAX;

/// A declared move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveDef {
    /// The move's name, a token.
    pub name: String,
    /// Its action on each set, in the order of [`Definition::sets`].
    pub sets: Vec<SetMove>,
}

/// A move's action on one set, in twirl's convention (that of [`crate::puzzle::Move`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetMove {
    /// The piece standing at position `i` moves to position `perm[i]` (0-based). The file's
    /// line is the inverse: its entry `j` is `1 +` the position whose piece lands on `j`.
    pub perm: Vec<u16>,
    /// The piece leaving position `i` turns by `twist[i]` (modulo the set's orientations);
    /// the same indexing as the file's orientation line.
    pub twist: Vec<u8>,
}

impl SetMove {
    /// The move that leaves every one of `n` pieces alone.
    pub fn identity(n: usize) -> SetMove {
        SetMove { perm: (0..n as u16).collect(), twist: vec![0; n] }
    }

    /// Whether the move leaves every piece where it is, unturned.
    pub fn is_identity(&self) -> bool {
        self.perm.iter().enumerate().all(|(i, &p)| p as usize == i)
            && self.twist.iter().all(|&t| t == 0)
    }
}

/// The largest set twsearch reads (it stores positions in bytes).
pub const MAX_SET_SIZE: usize = 255;
/// The most orientations twsearch allows a set.
pub const MAX_ORIENTATIONS: u8 = 127;
/// The largest piece label in a `Solved` block (1-based, as written).
const MAX_LABEL: u64 = 255;

/// Statements twsearch or ksolve know that twirl refuses by name.
const UNSUPPORTED: &[&str] = &[
    "MoveAlias",
    "MoveTransformation",
    "StartState",
    "Ignore",
    "Block",
    "ForbiddenPairs",
    "ForbiddenGroups",
    "ParallelMoves",
    "MoveLimits",
];

/// Keywords twirl reads, for the hint on a keyword written in the wrong case.
const KEYWORDS: &[&str] = &["Name", "Set", "Solved", "Move", "MoveSequence", "Illegal", "End"];

/// One non-blank line: its 1-based number and tokens, comments removed.
#[derive(Clone)]
struct Line<'a> {
    number: usize,
    tokens: Vec<&'a str>,
}

impl Line<'_> {
    fn text(&self) -> String {
        escaped(&self.tokens.join(" "))
    }
}

fn fail<T>(line: usize, reason: String) -> Result<T> {
    Err(Error::InvalidDefinition { line, reason })
}

/// The lines with tokens. Tokens are split at any character up to the space, as twsearch
/// does; a token starting with `#` ends the line.
fn tokenize(text: &str) -> Vec<Line<'_>> {
    text.lines()
        .enumerate()
        .filter_map(|(i, raw)| {
            let tokens: Vec<&str> = raw
                .split(|c: char| c <= ' ')
                .filter(|t| !t.is_empty())
                .take_while(|t| !t.starts_with('#'))
                .collect();
            (!tokens.is_empty()).then_some(Line { number: i + 1, tokens })
        })
        .collect()
}

/// Whether twsearch takes a move of this name for a whole-puzzle rotation.
pub fn is_rotation(name: &str) -> bool {
    if matches!(name, "x" | "y" | "z" | "x2" | "y2" | "z2" | "x'" | "y'" | "z'") {
        return true;
    }
    name.strip_suffix('v').is_some_and(|grip| {
        !grip.is_empty() && grip.bytes().all(|b| b == b'_' || b.is_ascii_uppercase())
    })
}

/// What a block describes, for messages and for the rules on its numbers.
#[derive(Clone, Copy, PartialEq, Eq)]
enum BlockKind<'a> {
    Solved,
    Move(&'a str),
}

/// One set's lines in a block: where they started and the numbers read so far.
struct SetLines {
    set: usize,
    line: usize,
    perm: Option<Vec<u16>>,
    orient: Option<Vec<u8>>,
}

struct Parser<'a> {
    lines: Vec<Line<'a>>,
    at: usize,
    sets: Vec<SetDef>,
}

impl<'a> Parser<'a> {
    fn next(&mut self) -> Option<Line<'a>> {
        let line = self.lines.get(self.at).cloned();
        self.at += 1;
        line
    }

    /// Reads the lines of a block after its header, up to `End`: per set, the permutation
    /// line (checked: labels for `Solved`, a permutation for a move) and the orientations.
    fn block(&mut self, kind: BlockKind<'_>, header: usize) -> Result<Vec<SetLines>> {
        let what = match kind {
            BlockKind::Solved => "`Solved`".to_string(),
            BlockKind::Move(name) => format!("`Move {}`", escaped(name)),
        };
        let mut given: Vec<SetLines> = Vec::new();
        loop {
            let Some(line) = self.lines.get(self.at) else {
                return fail(
                    header,
                    format!("{what} has no `End`: the file ends inside the block"),
                );
            };
            self.at += 1;
            let first = line.tokens[0];
            let current_empty = given.last().is_some_and(|g| g.perm.is_none());
            if first == "End" {
                if line.tokens.len() != 1 {
                    return fail(
                        line.number,
                        format!("expected `End` alone, found `{}`", line.text()),
                    );
                }
                if current_empty {
                    return self.no_numbers(&given);
                }
                return Ok(given);
            }
            if first.starts_with(|c: char| c.is_ascii_digit() || c == '?') {
                let Some(current) = given.last_mut() else {
                    return fail(
                        line.number,
                        format!("{what}: numbers before any set name (expected a set name first)"),
                    );
                };
                let set = &self.sets[current.set];
                let context = match kind {
                    BlockKind::Solved => format!("Solved, set {}", escaped(&set.name)),
                    BlockKind::Move(name) => {
                        format!("move {}, set {}", escaped(name), escaped(&set.name))
                    }
                };
                if line.tokens.len() != set.size {
                    return fail(
                        line.number,
                        format!(
                            "{context}: expected {} numbers, found {}: {}",
                            set.size,
                            line.tokens.len(),
                            line.text()
                        ),
                    );
                }
                let wildcards = matches!(kind, BlockKind::Solved) && current.perm.is_some();
                if wildcards && line.tokens.contains(&"?") {
                    if current.orient.is_some() {
                        return fail(
                            line.number,
                            format!(
                                "{context}: a third line of numbers (expected a permutation and \
                                 at most one line of orientations)"
                            ),
                        );
                    }
                    current.orient = Some(orientations_or_any(line, &context, set)?);
                    continue;
                }
                let numbers = numbers(line, &context)?;
                if current.perm.is_none() {
                    current.perm = Some(pieces(line, &context, kind, set, &numbers)?);
                } else if current.orient.is_none() {
                    current.orient = Some(orientations(line, &context, set, &numbers)?);
                } else {
                    return fail(
                        line.number,
                        format!(
                            "{context}: a third line of numbers (expected a permutation and at \
                             most one line of orientations)"
                        ),
                    );
                }
                continue;
            }
            if current_empty {
                return self.no_numbers(&given);
            }
            if line.tokens.len() != 1 {
                return fail(
                    line.number,
                    format!(
                        "{what}: expected a set name, numbers or `End`, found `{}` (is an `End` \
                         missing?)",
                        line.text()
                    ),
                );
            }
            let Some(set) = self.sets.iter().position(|s| s.name == first) else {
                let names: Vec<&str> = self.sets.iter().map(|s| s.name.as_str()).collect();
                return fail(
                    line.number,
                    format!(
                        "{what}: unknown set `{}` (sets: {})",
                        escaped(first),
                        escaped(&names.join(", "))
                    ),
                );
            };
            if let Some(earlier) = given.iter().find(|g| g.set == set) {
                return fail(
                    line.number,
                    format!(
                        "{what}: set {} given twice (first on line {})",
                        escaped(first),
                        earlier.line
                    ),
                );
            }
            given.push(SetLines { set, line: line.number, perm: None, orient: None });
        }
    }

    fn no_numbers<T>(&self, given: &[SetLines]) -> Result<T> {
        let last = given.last().expect("called with a set open");
        fail(
            last.line,
            format!("set {} is named but given no numbers", escaped(&self.sets[last.set].name)),
        )
    }
}

/// The numbers of a line (digits only, as twsearch reads them).
fn numbers(line: &Line<'_>, context: &str) -> Result<Vec<u64>> {
    line.tokens
        .iter()
        .map(|t| {
            if t == &"?" {
                return fail(
                    line.number,
                    format!(
                        "{context}: `?` is read only as an orientation in `Solved` (an orientation not seen)"
                    ),
                );
            }
            if !t.bytes().all(|b| b.is_ascii_digit()) {
                return fail(line.number, format!("{context}: `{}` is not a number", escaped(t)));
            }
            t.parse::<u64>().or_else(|_| {
                fail(line.number, format!("{context}: the number `{}` is too large", escaped(t)))
            })
        })
        .collect()
}

/// The first line of a set: labels for `Solved` (0-based), or a move's permutation converted
/// to twirl's direction.
fn pieces(
    line: &Line<'_>,
    context: &str,
    kind: BlockKind<'_>,
    set: &SetDef,
    numbers: &[u64],
) -> Result<Vec<u16>> {
    let n = set.size;
    match kind {
        BlockKind::Solved => {
            if let Some(bad) = numbers.iter().find(|&&v| v == 0 || v > MAX_LABEL) {
                return fail(
                    line.number,
                    format!(
                        "{context}: piece label {bad} is out of range (labels are 1 to {MAX_LABEL})"
                    ),
                );
            }
            Ok(numbers.iter().map(|&v| (v - 1) as u16).collect())
        }
        BlockKind::Move(_) => {
            let mut perm = vec![u16::MAX; n];
            for (j, &v) in numbers.iter().enumerate() {
                // Position `v` sends its piece to position `j`.
                let from = (v as usize).wrapping_sub(1);
                if v == 0 || v as usize > n || perm[from] != u16::MAX {
                    return fail(
                        line.number,
                        format!(
                            "{context}: expected a permutation of 1..{n}, found {}",
                            line.text()
                        ),
                    );
                }
                perm[from] = j as u16;
            }
            Ok(perm)
        }
    }
}

/// The second line of a set: orientations below the set's count.
fn orientations(line: &Line<'_>, context: &str, set: &SetDef, numbers: &[u64]) -> Result<Vec<u8>> {
    if let Some(bad) = numbers.iter().find(|&&v| v >= u64::from(set.orientations)) {
        return fail(
            line.number,
            format!(
                "{context}: orientation {bad} is out of range (the set has {} orientations: 0 to {})",
                set.orientations,
                set.orientations - 1
            ),
        );
    }
    Ok(numbers.iter().map(|&v| v as u8).collect())
}

/// A `Solved` orientation line holding `?` (an orientation not seen): each token an
/// orientation below the set's count or `?` ([`ANY_ORIENTATION`]).
fn orientations_or_any(line: &Line<'_>, context: &str, set: &SetDef) -> Result<Vec<u8>> {
    if set.orientations < 2 {
        return fail(
            line.number,
            format!("{context}: `?` orientation in a set without orientations"),
        );
    }
    line.tokens
        .iter()
        .map(|t| match *t {
            "?" => Ok(ANY_ORIENTATION),
            _ => {
                let one = Line { number: line.number, tokens: vec![t] };
                let n = numbers(&one, context)?;
                Ok(orientations(line, context, set, &n)?[0])
            }
        })
        .collect()
}

/// A count on a `Set` line, between 1 and `max`.
fn count(line: &Line<'_>, token: &str, what: &str, max: u64) -> Result<u64> {
    let value =
        token.bytes().all(|b| b.is_ascii_digit()).then(|| token.parse::<u64>().ok()).flatten();
    match value {
        Some(v) if (1..=max).contains(&v) => Ok(v),
        _ => fail(
            line.number,
            format!(
                "`Set`: the {what} must be a number from 1 to {max}, found `{}`",
                escaped(token)
            ),
        ),
    }
}

fn expect_tokens(line: &Line<'_>, n: usize, form: &str) -> Result<()> {
    if line.tokens.len() == n {
        Ok(())
    } else {
        fail(line.number, format!("expected `{form}`, found `{}`", line.text()))
    }
}

impl Definition {
    /// Reads a definition in the ksolve / twsearch format (see the module docs). Every error
    /// is one line naming the line number, what was expected and what was found.
    pub fn parse(text: &str) -> Result<Definition> {
        let lines = tokenize(text);
        let last_line = text.lines().count().max(1);
        if lines.is_empty() {
            return fail(
                last_line,
                "the definition is empty (expected `Set` lines, a `Solved` block and `Move` \
                 blocks)"
                    .into(),
            );
        }
        let mut p = Parser { lines, at: 0, sets: Vec::new() };
        let mut name: Option<String> = None;
        let mut solved: Option<(usize, Vec<SetState>)> = None;
        let mut moves: Vec<MoveDef> = Vec::new();
        let mut move_lines: HashMap<String, usize> = HashMap::new();
        let mut rotations: Vec<MoveDef> = Vec::new();
        let mut illegal: Vec<Illegal> = Vec::new();
        // (line, name, text) of each `MoveSequence`, expanded once every move is read.
        let mut sequences: Vec<(usize, String, String)> = Vec::new();
        while let Some(line) = p.next() {
            let (number, keyword) = (line.number, line.tokens[0]);
            match keyword {
                "Name" => {
                    if name.is_some() || !p.sets.is_empty() {
                        return fail(number, "`Name` must be the first line, given once".into());
                    }
                    expect_tokens(&line, 2, "Name NAME")?;
                    name = Some(line.tokens[1].to_string());
                }
                "Set" => {
                    if solved.is_some() {
                        return fail(
                            number,
                            "`Set` after `Solved`: every set must be declared before the \
                             Solved block"
                                .into(),
                        );
                    }
                    expect_tokens(&line, 4, "Set NAME PIECES ORIENTATIONS")?;
                    let set_name = line.tokens[1];
                    if set_name.starts_with(|c: char| c.is_ascii_digit() || c == '?')
                        || set_name == "End"
                    {
                        return fail(
                            number,
                            format!(
                                "set name `{}` would be read as numbers or `End` in a block",
                                escaped(set_name)
                            ),
                        );
                    }
                    if p.sets.iter().any(|s| s.name == set_name) {
                        return fail(
                            number,
                            format!("set {} is declared twice", escaped(set_name)),
                        );
                    }
                    let size =
                        count(&line, line.tokens[2], "number of pieces", MAX_SET_SIZE as u64)?;
                    let orientations = count(
                        &line,
                        line.tokens[3],
                        "number of orientations",
                        MAX_ORIENTATIONS.into(),
                    )?;
                    p.sets.push(SetDef {
                        name: set_name.to_string(),
                        size: size as usize,
                        orientations: orientations as u8,
                    });
                }
                "Solved" => {
                    if p.sets.is_empty() {
                        return fail(number, "`Solved` before any `Set` line".into());
                    }
                    if let Some((first, _)) = solved {
                        return fail(
                            number,
                            format!("a second `Solved` block (the first is on line {first})"),
                        );
                    }
                    expect_tokens(&line, 1, "Solved")?;
                    let given = p.block(BlockKind::Solved, number)?;
                    let mut state: Vec<SetState> = p
                        .sets
                        .iter()
                        .map(|s| SetState {
                            pieces: (0..s.size as u16).collect(),
                            orient: vec![0; s.size],
                        })
                        .collect();
                    for g in given {
                        let n = p.sets[g.set].size;
                        state[g.set] = SetState {
                            pieces: g.perm.unwrap_or_default(),
                            orient: g.orient.unwrap_or_else(|| vec![0; n]),
                        };
                    }
                    solved = Some((number, state));
                }
                "Move" => {
                    if solved.is_none() {
                        return fail(number, "`Move` before the `Solved` block".into());
                    }
                    expect_tokens(&line, 2, "Move NAME")?;
                    let move_name = line.tokens[1];
                    check_move_name(move_name, number, &move_lines)?;
                    move_lines.insert(move_name.to_string(), number);
                    let given = p.block(BlockKind::Move(move_name), number)?;
                    let mut sets: Vec<SetMove> =
                        p.sets.iter().map(|s| SetMove::identity(s.size)).collect();
                    for g in given {
                        let n = p.sets[g.set].size;
                        sets[g.set] = SetMove {
                            perm: g.perm.unwrap_or_default(),
                            twist: g.orient.unwrap_or_else(|| vec![0; n]),
                        };
                    }
                    let m = MoveDef { name: move_name.to_string(), sets };
                    if is_rotation(move_name) {
                        rotations.push(m);
                    } else {
                        moves.push(m);
                    }
                }
                "MoveSequence" => {
                    if solved.is_none() {
                        return fail(number, "`MoveSequence` before the `Solved` block".into());
                    }
                    if line.tokens.len() < 3 {
                        return fail(
                            number,
                            format!(
                                "expected `MoveSequence NAME MOVE...`, found `{}`",
                                line.text()
                            ),
                        );
                    }
                    let seq_name = line.tokens[1];
                    check_move_name(seq_name, number, &move_lines)?;
                    move_lines.insert(seq_name.to_string(), number);
                    sequences.push((number, seq_name.to_string(), line.tokens[2..].join(" ")));
                }
                "Illegal" => {
                    if solved.is_none() {
                        return fail(number, "`Illegal` before the `Solved` block".into());
                    }
                    illegal.extend(illegal_line(&line, &p.sets)?);
                }
                "End" => return fail(number, "`End` outside a block".into()),
                k if UNSUPPORTED.contains(&k) => {
                    return fail(
                        number,
                        format!(
                            "block `{k}` is not supported by twirl (it reads Name, Set, Solved \
                             and Move)"
                        ),
                    );
                }
                other => {
                    let hint = KEYWORDS
                        .iter()
                        .chain(UNSUPPORTED)
                        .find(|k| k.eq_ignore_ascii_case(other))
                        .map(|k| format!(" (keywords are case-sensitive: `{k}`)"))
                        .unwrap_or_else(|| " (expected Name, Set, Solved or Move)".into());
                    return fail(number, format!("unknown keyword `{}`{hint}", escaped(other)));
                }
            }
        }
        let Some((_, solved)) = solved else {
            let reason = if p.sets.is_empty() {
                "no `Set` line and no `Solved` block"
            } else {
                "no `Solved` block"
            };
            return fail(last_line, reason.into());
        };
        expand_sequences(&p.sets, &sequences, &mut moves, &mut rotations)?;
        if moves.is_empty() {
            return fail(last_line, "no `Move` block (twsearch needs at least one move)".into());
        }
        let lines: Vec<usize> = moves.iter().map(|m| move_lines[&m.name]).collect();
        check_power_names(&p.sets, &moves, &lines)?;
        Ok(Definition {
            name: name.unwrap_or_else(|| "Unnamed".into()),
            sets: p.sets,
            solved,
            moves,
            rotations,
            illegal,
        })
    }
}

/// Refuses a move name with a comma (it separates moves in a sequence) or already given.
fn check_move_name(name: &str, number: usize, seen: &HashMap<String, usize>) -> Result<()> {
    if name.contains(',') {
        return fail(
            number,
            format!(
                "move name `{}` contains a comma, which separates moves in a sequence",
                escaped(name)
            ),
        );
    }
    if let Some(first) = seen.get(name) {
        return fail(
            number,
            format!("move {} is defined twice (first on line {first})", escaped(name)),
        );
    }
    Ok(())
}

/// The placements an `Illegal SET POSITION LABEL...` line bans (twsearch: positions and
/// labels 1-based, labels at most 64).
fn illegal_line(line: &Line<'_>, sets: &[SetDef]) -> Result<Vec<Illegal>> {
    if line.tokens.len() < 4 {
        return fail(
            line.number,
            format!("expected `Illegal SET POSITION PIECE...`, found `{}`", line.text()),
        );
    }
    let Some(set) = sets.iter().position(|s| s.name == line.tokens[1]) else {
        let names: Vec<&str> = sets.iter().map(|s| s.name.as_str()).collect();
        return fail(
            line.number,
            format!(
                "`Illegal`: unknown set `{}` (sets: {})",
                escaped(line.tokens[1]),
                escaped(&names.join(", "))
            ),
        );
    };
    let context = format!("`Illegal`, set {}", escaped(&sets[set].name));
    let position = count(line, line.tokens[2], "position", sets[set].size as u64)? as usize - 1;
    let labels =
        numbers(&Line { number: line.number, tokens: line.tokens[3..].to_vec() }, &context)?;
    labels
        .into_iter()
        .map(|v| match v {
            1..=64 => Ok(Illegal { set, position, label: (v - 1) as u16 }),
            _ => fail(
                line.number,
                format!("{context}: piece {v} is out of range (twsearch reads 1 to 64)"),
            ),
        })
        .collect()
}

/// Expands the `MoveSequence`s as twsearch does: each is the product of its moves (declared
/// moves, rotations and their powers, as twsearch names them, and sequences expanded
/// before), read left to right, and becomes a declared move (or a rotation, by its name).
/// A sequence may name one written after it: rounds repeat until none is left.
fn expand_sequences(
    sets: &[SetDef],
    sequences: &[(usize, String, String)],
    moves: &mut Vec<MoveDef>,
    rotations: &mut Vec<MoveDef>,
) -> Result<()> {
    let mut left: Vec<&(usize, String, String)> = sequences.iter().collect();
    while !left.is_empty() {
        let before = left.len();
        let mut unknown: Option<(usize, String)> = None;
        left.retain(|(number, name, text)| {
            let known: Vec<&MoveDef> = moves.iter().chain(rotations.iter()).collect();
            match sequence_product(sets, &known, text) {
                Ok(sets_moved) => {
                    let m = MoveDef { name: name.clone(), sets: sets_moved };
                    if is_rotation(name) {
                        rotations.push(m);
                    } else {
                        moves.push(m);
                    }
                    false
                }
                Err(token) => {
                    unknown.get_or_insert((*number, token));
                    true
                }
            }
        });
        if left.len() == before {
            let (number, token) = unknown.expect("a sequence left");
            return fail(
                number,
                format!(
                    "`MoveSequence`: `{}` is not a move, a rotation, a power of one (R2, R') \
                     or another sequence",
                    escaped(&token)
                ),
            );
        }
    }
    Ok(())
}

/// The product of a sequence of move names (split at spaces and commas), or the first name
/// that is not a power of a known move.
fn sequence_product(
    sets: &[SetDef],
    known: &[&MoveDef],
    text: &str,
) -> std::result::Result<Vec<SetMove>, String> {
    let mut acc: Vec<SetMove> = sets.iter().map(|s| SetMove::identity(s.size)).collect();
    for token in text.split(|c: char| c <= ' ' || c == ',').filter(|t| !t.is_empty()) {
        let m = known
            .iter()
            .find_map(|base| {
                let order = declared_order(sets, base);
                let p = suffix_power(token.strip_prefix(base.name.as_str())?, order)?;
                Some(base.power(sets, p))
            })
            .ok_or_else(|| token.to_string())?;
        acc = then_sets(sets, &acc, &m);
    }
    Ok(acc)
}

/// `a` followed by `b`, set by set (twirl's direction: the piece at `i` goes to `a.perm[i]`,
/// then on to `b.perm` of that).
fn then_sets(sets: &[SetDef], a: &[SetMove], b: &[SetMove]) -> Vec<SetMove> {
    sets.iter()
        .zip(a.iter().zip(b))
        .map(|(set, (x, y))| {
            let k = u16::from(set.orientations);
            let perm = x.perm.iter().map(|&j| y.perm[j as usize]).collect();
            let twist = x
                .perm
                .iter()
                .zip(&x.twist)
                .map(|(&j, &t)| ((u16::from(t) + u16::from(y.twist[j as usize])) % k) as u8)
                .collect();
            SetMove { perm, twist }
        })
        .collect()
}

impl MoveDef {
    /// The move's order as twsearch's expansion counts it (at least 2).
    pub fn order(&self, sets: &[SetDef]) -> u128 {
        declared_order(sets, self)
    }

    /// The move repeated `k` times, by squaring.
    pub fn power(&self, sets: &[SetDef], mut k: u128) -> Vec<SetMove> {
        let mut acc: Vec<SetMove> = sets.iter().map(|s| SetMove::identity(s.size)).collect();
        let mut sq = self.sets.clone();
        while k > 0 {
            if k & 1 == 1 {
                acc = then_sets(sets, &acc, &sq);
            }
            k >>= 1;
            if k > 0 {
                sq = then_sets(sets, &sq, &sq);
            }
        }
        acc
    }
}

/// twsearch's name for power `k` of a move of order `order`: the power itself up to half the
/// order, else the inverse power with `'`; a power 1 is not written.
pub(crate) fn power_name(base: &str, k: u128, order: u128) -> String {
    let (exp, inverse) = if order - k < k { (order - k, true) } else { (k, false) };
    let mut s = base.to_string();
    if exp != 1 {
        let _ = write!(s, "{exp}");
    }
    if inverse {
        s.push('\'');
    }
    s
}

/// The order of a declared move (at least 2, as the expansion counts it: a move that does
/// nothing is still one move): the lcm over its sets' orders, saturating at `u128::MAX`.
fn declared_order(sets: &[SetDef], m: &MoveDef) -> u128 {
    let mut order: u128 = 1;
    for (set, sm) in sets.iter().zip(&m.sets) {
        let mv = Move {
            name: String::new(),
            perm: sm.perm.iter().map(|&p| p as u8).collect(),
            twist: sm.twist.clone(),
        };
        let o = mv.order(set.orientations);
        order = (order / super::gcd(order, o)).saturating_mul(o);
    }
    order.max(2)
}

/// The power of a move of order `order` (at least 2) that twsearch names `base` + `suffix`
/// (see [`power_name`]): `""` is 1, `'` the inverse, `k` power `k` for `2 <= k <= order / 2`,
/// `k'` the inverse of power `k` for `2 <= k < order / 2`.
pub(crate) fn suffix_power(suffix: &str, order: u128) -> Option<u128> {
    let (digits, inverse) = match suffix.strip_suffix('\'') {
        Some(d) => (d, true),
        None => (suffix, false),
    };
    let exp: u128 = if digits.is_empty() {
        1
    } else {
        // Written by `to_string`: no sign, no leading zero, never 1.
        if digits.starts_with('0') || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let e = digits.parse::<u128>().ok()?;
        if e < 2 {
            return None;
        }
        e
    };
    let fits = if inverse { exp.checked_mul(2)? < order } else { exp.checked_mul(2)? <= order };
    fits.then_some(if inverse { order - exp } else { exp })
}

/// A name that twsearch's expansion gives to a power of `a` (of order `order_a`) and to a
/// power of `b` (of order `order_b`), when `b`'s name is `a`'s followed by `tail` (not
/// empty). Found without listing the powers, whose number is the order (up to about 2^60).
fn shared_power_name(a: &str, order_a: u128, tail: &str, order_b: u128) -> Option<String> {
    // `b` itself, or its inverse, spelled as a power of `a`.
    if suffix_power(tail, order_a).is_some() {
        return Some(format!("{a}{tail}"));
    }
    if order_b > 2 && suffix_power(&format!("{tail}'"), order_a).is_some() {
        return Some(format!("{a}{tail}'"));
    }
    // Power `d` of `b` (or its inverse) written `b` + `d` = `a` + (`tail` `d`): the exponent
    // of `a` is `tail` followed by the digits of `d`.
    if tail.starts_with('0') || !tail.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let head = tail.parse::<u128>().ok()?;
    for inverse in [false, true] {
        // Largest exponents each expansion writes with this mark.
        let (max_a, max_b) = if inverse {
            ((order_a - 1) / 2, (order_b - 1) / 2)
        } else {
            (order_a / 2, order_b / 2)
        };
        let mut low: u128 = 1; // 10^(len - 1)
        for _ in 1..=39 {
            let Some(high) = low.checked_mul(10) else { break };
            let Some(shifted) = head.checked_mul(high) else { break };
            if shifted > max_a {
                break;
            }
            // `d` has as many digits as `high` has zeros and is at least 2.
            let lo = low.max(2);
            let hi = (high - 1).min(max_b).min(max_a - shifted);
            if lo <= hi {
                let mark = if inverse { "'" } else { "" };
                return Some(format!("{a}{tail}{lo}{mark}"));
            }
            low = high;
        }
    }
    None
}

/// Refuses two declared moves whose expansions give one name to two moves (`R` beside `R2`
/// or `R'`, `R1` beside `R` of order 24 or more, both giving `R12`). twsearch accepts such a
/// file and keeps both moves under the one name, reading the name as whichever came first
/// (`findmove` in `parsemoves.cpp`); twirl would print a solution that reads back as other
/// moves. Every metric reads sequences by these names, so the check does not depend on one.
fn check_power_names(sets: &[SetDef], moves: &[MoveDef], lines: &[usize]) -> Result<()> {
    let orders: Vec<u128> = moves.iter().map(|m| declared_order(sets, m)).collect();
    for i in 0..moves.len() {
        for j in 0..moves.len() {
            let (a, b) = (&moves[i].name, &moves[j].name);
            let Some(tail) = b.strip_prefix(a.as_str()).filter(|t| !t.is_empty()) else {
                continue;
            };
            let Some(name) = shared_power_name(a, orders[i], tail, orders[j]) else {
                continue;
            };
            let power = |k: usize| {
                let n = &moves[k].name;
                match suffix_power(&name[n.len()..], orders[k]) {
                    Some(1) => format!("move `{}` itself", escaped(n)),
                    Some(p) => format!("power {p} of move `{}` (order {})", escaped(n), orders[k]),
                    None => format!("a power of move `{}`", escaped(n)),
                }
            };
            let (first, second) = if lines[i] < lines[j] { (i, j) } else { (j, i) };
            return fail(
                lines[second],
                format!(
                    "moves `{}` (line {}) and `{}` (line {}) both give a move named `{}`: {} and {} \
                     (every power of a move is a move, named as twsearch names it: R, R2, R'); \
                     rename one of them",
                    escaped(&moves[first].name),
                    lines[first],
                    escaped(&moves[second].name),
                    lines[second],
                    escaped(&name),
                    power(first),
                    power(second),
                ),
            );
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "definition_tests.rs"]
pub(crate) mod tests;
