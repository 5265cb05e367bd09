//! A puzzle read from a definition file (`def:FILE`): a [`Definition`] turned into twirl's
//! puzzle shape.
//!
//! - **Cells.** The sets' positions, one after another in file order: set `s` holds cells
//!   `offset[s] .. offset[s] + size`. A board stays a list of tiles per cell.
//! - **Tiles.** A tile is named by its home: the first cell of its set whose solved piece has
//!   the same label. Distinct pieces make the solved board tile `k` on cell `k`, as for the
//!   built-in puzzles; identical pieces share a name, so boards that differ only by swapping
//!   them are one board (as in twsearch).
//! - **Orientations.** twirl has one orientation modulus per puzzle: the least common multiple
//!   `K` of the sets' counts. A set with `c` orientations turns in steps of `K / c`, which the
//!   group analysis finds on its own (its tied modulus). A piece's orientation is counted from
//!   its solved orientation, so the solved board is upright everywhere; a move adds the same
//!   turns either way. A piece solved with orientation `?` has its orientation unseen: the
//!   ranking ignores its turns (boards are then ranked as with identical pieces).
//! - **Moves and metrics.** As twsearch counts them by default, each power of a declared move
//!   is one move, named as twsearch names it (`R`, `R2`, `R'`): that is `htm`, the default.
//!   `qtm` keeps each declared move and its inverse only (twsearch's `-q`); `cw` keeps the
//!   declared moves alone, so the move graph may be directed.
//! - **Boards** are written in the file's own state layout, a set name then its pieces (and
//!   their orientations after `/` when the set has any): `CORNERS 2 1 3 4 / 1 2 0 0`; sets are
//!   separated by `;` and a set left out is solved. A `Solved` block's lines read the same.
//!   A board may also be given as a move sequence from solved (`R U R' F`).

use std::collections::HashMap;

use super::definition::{ANY_ORIENTATION, Definition, SetDef, power_name, suffix_power};
use super::sequence::Order;
use super::wide::{WideBoard, WideMove};
use super::{Board, Metric, Move};
use crate::error::escaped;
use crate::{Error, Result};

/// The most cells a puzzle the search takes holds: its tiles are bytes. Larger definitions
/// are read and laid out on [`WideBoard`]s, for `info`, `order`, `check` and `apply`.
pub const MAX_CELLS: usize = 255;
/// The most cells a definition may have at all: wide tiles are `u16`.
pub const MAX_WIDE_CELLS: usize = u16::MAX as usize;
/// The largest orientation modulus: sums of two orientations must fit a byte.
const MAX_ORIENT_MOD: u64 = 127;
/// Most powers `htm` makes moves of, per declared move (its order less one). A move of 197
/// pieces in cycles of coprime lengths has order 7.4e12: listing its powers would take
/// 118 TB, and thousands of moves already make every node of a search slow.
pub const MAX_HTM_POWERS: u128 = 4096;
/// Most moves a metric may make of a definition, all declared moves together.
pub const MAX_MOVES: usize = 1 << 16;

/// A definition and the cell layout twirl puts it in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Defined {
    /// The file it was read from, as given.
    pub path: String,
    /// The definition itself.
    pub definition: Definition,
    /// First cell of each set.
    offsets: Vec<usize>,
    /// `K`: the least common multiple of the sets' orientation counts.
    orient_mod: u8,
    /// `tile_of[cell]`: the tile whose home is the cell's solved piece (see the module docs).
    tile_of: Vec<u16>,
    /// `home_orient[tile]`: the solved orientation of the tile, in its set's steps.
    home_orient: Vec<u8>,
    /// Whether some set has identical pieces.
    identical: bool,
    /// `unseen[tile]`: whether the tile's orientation is not seen (`?` in `Solved`).
    unseen: Vec<bool>,
    /// The declared moves over all cells, in twirl's direction (wide: a definition may have
    /// more cells than a [`Move`] holds; they are narrowed when the metric's moves are made).
    base_moves: Vec<WideMove>,
    /// The file's definition where `definition` is simpler ([`super::subset::simplified`]):
    /// boards may still be written as the file has them, and subsets start from the file.
    file: Option<Box<FileSets>>,
    /// The subset of the file taken on the command line, if any ([`Defined::subset`]).
    subset: Option<super::subset::Subset>,
}

/// What a definition file has that the definition searched leaves out.
#[derive(Clone, Debug, PartialEq, Eq)]
struct FileSets {
    /// The file's definition (after subset flags, if any).
    definition: Definition,
    /// Sets left out, with their one label.
    left_out: Vec<(SetDef, u16)>,
    /// Sets kept without their orientations, as the file declares them.
    unoriented: Vec<SetDef>,
}

impl Defined {
    /// Lays a definition out on twirl's cells. Fails past [`MAX_WIDE_CELLS`] pieces, or when
    /// identical pieces are solved in different orientations. Past [`MAX_CELLS`] the
    /// definition is kept, but [`Defined::moves`] refuses to make a search's moves.
    pub fn new(path: &str, definition: Definition) -> Result<Defined> {
        let bad = |reason: String| Error::InvalidPuzzle { spec: format!("def:{path}"), reason };
        let n: usize = definition.sets.iter().map(|s| s.size).sum();
        if n > MAX_WIDE_CELLS {
            return Err(bad(format!(
                "expected at most {MAX_WIDE_CELLS} pieces in all (tiles are 16-bit), found {n}"
            )));
        }
        let k = definition.sets.iter().fold(1u64, |acc, s| lcm(acc, u64::from(s.orientations)));
        if k > MAX_ORIENT_MOD {
            return Err(bad(format!(
                "the sets' orientation counts have least common multiple {k}; twirl handles at \
                 most {MAX_ORIENT_MOD}"
            )));
        }
        let mut offsets = Vec::with_capacity(definition.sets.len());
        let mut tile_of = vec![0u16; n];
        let mut home_orient = vec![0u8; n];
        let mut identical = false;
        let mut unseen = vec![false; n];
        let mut next = 0;
        for (set, state) in definition.sets.iter().zip(&definition.solved) {
            offsets.push(next);
            let mut first: HashMap<u16, usize> = HashMap::new();
            for (i, (&label, &o)) in state.pieces.iter().zip(&state.orient).enumerate() {
                let home = *first.entry(label).or_insert(next + i);
                tile_of[next + i] = home as u16;
                if home == next + i {
                    // A piece whose orientation is not seen counts from upright.
                    unseen[home] = o == ANY_ORIENTATION;
                    home_orient[home] = if unseen[home] { 0 } else { o };
                } else {
                    identical = true;
                    if unseen[home] != (o == ANY_ORIENTATION) {
                        return Err(bad(format!(
                            "set {}: identical pieces labelled {} have their orientation seen \
                             and not seen (`?`): they must all be one or the other",
                            set.name,
                            label + 1
                        )));
                    }
                    if !unseen[home] && home_orient[home] != o {
                        return Err(bad(format!(
                            "set {}: identical pieces labelled {} are solved in different \
                             orientations ({} and {o}), which twirl cannot tell apart",
                            set.name,
                            label + 1,
                            home_orient[home]
                        )));
                    }
                }
            }
            next += set.size;
        }
        let base_moves = definition
            .moves
            .iter()
            .map(|m| {
                let mut perm = vec![0u16; n];
                let mut twist = vec![0u8; n];
                for ((set, sm), &off) in definition.sets.iter().zip(&m.sets).zip(&offsets) {
                    let step = (k / u64::from(set.orientations)) as u8;
                    for (i, (&p, &t)) in sm.perm.iter().zip(&sm.twist).enumerate() {
                        perm[off + i] = (off + p as usize) as u16;
                        twist[off + i] = t * step;
                    }
                }
                WideMove { name: m.name.clone(), perm, twist }
            })
            .collect();
        Ok(Defined {
            path: path.to_string(),
            definition,
            offsets,
            orient_mod: k as u8,
            tile_of,
            home_orient,
            identical,
            unseen,
            base_moves,
            file: None,
            subset: None,
        })
    }

    /// The puzzle a subset of this one makes (see [`super::subset`]), laid out anew. Its
    /// definition is the transformed one, so the definition digest tables record changes
    /// with the subset.
    pub fn subset(&self, subset: &super::subset::Subset) -> Result<Defined> {
        let file = self.file.as_ref().map_or(&self.definition, |f| &f.definition);
        let definition = subset.apply(file).map_err(|reason| Error::InvalidPuzzle {
            spec: escaped(&format!("def:{}", self.path)),
            reason,
        })?;
        let mut out = Defined::from_file(&self.path, definition)?;
        out.subset = (!subset.is_empty()).then(|| subset.clone());
        Ok(out)
    }

    /// `def:PATH` and the subset flags it was taken with, as a command line names it (see
    /// [`super::PuzzleSpec::named`], which gives this for `def:` puzzles).
    pub fn named(&self) -> String {
        super::subset::Subset::named(&format!("def:{}", self.path), self.subset.as_ref())
    }

    /// The subset of the file taken on the command line ([`Defined::subset`]), if any.
    pub fn applied_subset(&self) -> Option<&super::subset::Subset> {
        self.subset.as_ref()
    }

    /// Reads and lays out the definition in a file. Errors name the file and the line.
    pub fn read(path: &str) -> Result<Defined> {
        let spec = format!("def:{path}");
        let text = std::fs::read_to_string(path).map_err(|e| Error::InvalidPuzzle {
            spec: escaped(&spec),
            reason: format!("cannot read the definition file: {e}"),
        })?;
        let definition = Definition::parse(&text).map_err(|e| match e {
            Error::InvalidDefinition { line, reason } => Error::InvalidPuzzle {
                spec: escaped(&spec),
                reason: format!("line {line}: {reason}"),
            },
            other => other,
        })?;
        Defined::from_file(path, definition)
    }

    /// [`Defined::new`] on the definition a search takes of a file's
    /// ([`super::subset::simplified`]), which remembers the file's: what [`Defined::read`]
    /// makes of a file's text.
    pub fn from_file(path: &str, definition: Definition) -> Result<Defined> {
        let Some(simple) = super::subset::simplified(&definition) else {
            return Defined::new(path, definition);
        };
        let mut defined = Defined::new(path, simple.definition)?;
        let left_out = (simple.left_out.iter())
            .map(|&s| (definition.sets[s].clone(), definition.solved[s].pieces[0]))
            .collect();
        let unoriented = simple.unoriented.iter().map(|&s| definition.sets[s].clone()).collect();
        defined.file = Some(Box::new(FileSets { definition, left_out, unoriented }));
        Ok(defined)
    }

    /// The file's sets left out of the search, which tell no boards apart (every piece
    /// alike, no orientation seen), with their one label.
    pub fn left_out_sets(&self) -> &[(SetDef, u16)] {
        self.file.as_ref().map_or(&[], |f| &f.left_out)
    }

    /// The file's sets searched without orientations, none of them being seen.
    pub fn unoriented_sets(&self) -> &[SetDef] {
        self.file.as_ref().map_or(&[], |f| &f.unoriented)
    }

    /// Number of cells.
    pub fn n_cells(&self) -> usize {
        self.tile_of.len()
    }

    /// The orientation modulus `K`.
    pub fn orient_mod(&self) -> u8 {
        self.orient_mod
    }

    /// Whether some set has identical pieces, or pieces whose orientation is not seen
    /// (boards are then not group elements: the number of boards is the group order divided
    /// by the stabilizer of the labels and of the unseen orientations).
    pub fn has_identical_pieces(&self) -> bool {
        self.identical || self.unseen.contains(&true)
    }

    /// `unseen[tile]`: whether the orientation of the tile (named by its home cell) is not
    /// seen ([`ANY_ORIENTATION`] in the solved state).
    pub fn unseen_orientations(&self) -> &[bool] {
        &self.unseen
    }

    /// Whether the puzzle is past the cells a search's boards hold ([`MAX_CELLS`]): only
    /// the wide methods apply then (`*_wide`, [`Defined::base_moves`]).
    pub fn is_wide(&self) -> bool {
        self.n_cells() > MAX_CELLS
    }

    /// Why a search cannot take this definition's size, if it cannot: one line naming the
    /// limit and what the file holds.
    pub fn size_refusal(&self) -> Option<String> {
        self.is_wide().then(|| {
            format!(
                "the sets hold {} pieces; twirl's searches rank boards of at most {MAX_CELLS} \
                 cells (a tile is a byte in their tables and moves), so bfs, phase, sample, solve and \
                 distance refuse it; info, order, check and apply take it",
                self.n_cells()
            )
        })
    }

    /// The solved board, for a definition of at most [`MAX_CELLS`] cells (the only ones a
    /// [`super::Puzzle`] holds: [`Defined::moves`] refuses the others).
    pub fn solved(&self) -> Board {
        debug_assert!(!self.is_wide(), "a byte board of a wide definition");
        let tiles = self.tile_of.iter().map(|&t| t as u8).collect();
        Board { tiles, orient: vec![0; self.n_cells()] }
    }

    /// The solved board, any size.
    pub fn solved_wide(&self) -> WideBoard {
        WideBoard { tiles: self.tile_of.clone(), orient: vec![0; self.n_cells()] }
    }

    /// The declared moves over all cells (the generators of the group, in every metric).
    pub fn base_moves(&self) -> &[WideMove] {
        &self.base_moves
    }

    /// `orientations[cell]`: the orientation count of the cell's set (its tiles turn in steps
    /// of `orient_mod / orientations`).
    pub fn cell_orientations(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.n_cells());
        for set in &self.definition.sets {
            out.extend(std::iter::repeat_n(set.orientations, set.size));
        }
        out
    }

    /// `tile_of[cell]`: the tile solved on the cell, named by its home (identical pieces share
    /// one).
    pub fn solved_tiles(&self) -> &[u16] {
        &self.tile_of
    }

    /// The moves of a metric (see the module docs), named as twsearch names them. Refused
    /// when there would be too many ([`MAX_HTM_POWERS`] powers of one move in `htm`,
    /// [`MAX_MOVES`] in all), before any is made, and past [`MAX_CELLS`] cells
    /// ([`Defined::size_refusal`]).
    pub fn moves(&self, metric: Metric) -> Result<Vec<Move>> {
        if let Some(reason) = self.size_refusal() {
            return Err(self.bad_puzzle(reason));
        }
        let k = self.orient_mod;
        let mut out = Vec::new();
        for (base, order, powers) in self.plan(metric)? {
            for p in powers {
                let wide = base.power_unsigned(p, k);
                let mut m = wide.narrow().expect("at most 255 cells");
                m.name = power_name(&base.name, p, order);
                out.push(m);
            }
        }
        Ok(out)
    }

    /// The names of the moves of a metric, as [`Defined::moves`] makes them, any size.
    pub fn move_names(&self, metric: Metric) -> Result<Vec<String>> {
        Ok(self
            .plan(metric)?
            .into_iter()
            .flat_map(|(base, order, powers)| {
                powers.into_iter().map(move |p| power_name(&base.name, p, order))
            })
            .collect())
    }

    fn bad_puzzle(&self, reason: String) -> Error {
        Error::InvalidPuzzle { spec: escaped(&format!("def:{}", self.path)), reason }
    }

    /// Per declared move, its order and the powers a metric makes moves of, checked against
    /// the limits before any is made.
    fn plan(&self, metric: Metric) -> Result<Vec<(&WideMove, u128, Vec<u128>)>> {
        let k = self.orient_mod;
        let mut plan = Vec::with_capacity(self.base_moves.len());
        let mut total: u128 = 0;
        for base in &self.base_moves {
            // An identity move is kept as one move: twsearch would drop it, but a declared
            // move that does nothing changes no distance.
            let order = base.order(k).max(2);
            let count = match metric {
                Metric::Htm => order - 1,
                Metric::Qtm if order > 2 => 2,
                Metric::Qtm | Metric::Cw => 1,
            };
            if count > MAX_HTM_POWERS {
                return Err(self.bad_puzzle(format!(
                    "move {} has order {order}; htm makes every power a move: expected at most \
                     {MAX_HTM_POWERS} powers of a move, found {count}; use --metric qtm (the \
                     move and its inverse) or cw",
                    escaped(&base.name)
                )));
            }
            total += count;
            plan.push((base, order, count));
        }
        if total > MAX_MOVES as u128 {
            return Err(self.bad_puzzle(format!(
                "expected at most {MAX_MOVES} moves in {metric}, found {total} ({} declared \
                 moves and their powers)",
                self.base_moves.len()
            )));
        }
        Ok(plan
            .into_iter()
            .map(|(base, order, count)| {
                let powers: Vec<u128> = match count {
                    1 => vec![1],
                    2 if metric == Metric::Qtm => vec![1, order - 1],
                    _ => (1..order).collect(),
                };
                (base, order, powers)
            })
            .collect())
    }

    /// The move named `token`: a declared move or one of its powers, as twsearch names them
    /// (found without listing the powers, whose number is the order).
    fn named_power(&self, token: &str) -> Option<WideMove> {
        let k = self.orient_mod;
        // No two powers share a name (the reader refuses such files): the first match is it.
        self.base_moves.iter().find_map(|base| {
            let suffix = token.strip_prefix(base.name.as_str())?;
            let order = base.order(k).max(2);
            let p = suffix_power(suffix, order)?;
            let mut m = base.power_unsigned(p, k);
            m.name = power_name(&base.name, p, order);
            Some(m)
        })
    }

    /// Reads a move sequence in twsearch's notation: move names separated by spaces or
    /// commas, each a declared move or one of its powers (`R`, `R2`, `R'`), and groups with
    /// a repetition, as twsearch writes them (`(R U R' U')6`) or as twirl's other puzzles do
    /// (`(R U)^6`, `(R U)'`, `(R U)^-1`, `(R U) 6`). The product is read left to right.
    /// At most [`MAX_CELLS`] cells ([`Defined::sequence_wide`] takes any).
    pub fn sequence(&self, text: &str) -> Result<Move> {
        self.sequence_in(text, Order::LeftToRight)
    }

    /// [`Defined::sequence`] read in `order`: right to left, the last factor written acts
    /// first, in every group too.
    pub fn sequence_in(&self, text: &str, order: Order) -> Result<Move> {
        let wide = self.sequence_wide_in(text, order)?;
        wide.narrow().ok_or_else(|| self.bad_puzzle(self.size_refusal().unwrap_or_default()))
    }

    /// [`Defined::sequence`] at any size.
    pub fn sequence_wide(&self, text: &str) -> Result<WideMove> {
        self.sequence_wide_in(text, Order::LeftToRight)
    }

    /// [`Defined::sequence_in`] at any size.
    pub fn sequence_wide_in(&self, text: &str, order: Order) -> Result<WideMove> {
        let tokens = sequence_tokens(text);
        let mut at = 0;
        let m = self.group(text, &tokens, &mut at, 0, order)?;
        match tokens.get(at) {
            None => Ok(m),
            Some(_) => Err(self.bad_sequence(text, "a `)` without its `(`".into())),
        }
    }

    fn bad_sequence(&self, text: &str, reason: String) -> Error {
        Error::InvalidSequence { text: escaped(text), reason }
    }

    /// The product of the tokens from `at` up to a `)` (left for the caller) or the end.
    fn group(
        &self,
        text: &str,
        tokens: &[&str],
        at: &mut usize,
        depth: usize,
        order: Order,
    ) -> Result<WideMove> {
        let k = self.orient_mod;
        // Each factor joins the product after (left to right) or before (right to left) it.
        let times = |acc: &WideMove, m: &WideMove| match order {
            Order::LeftToRight => acc.then(m, k),
            Order::RightToLeft => m.then(acc, k),
        };
        let mut acc = WideMove::identity(self.n_cells());
        while let Some(&token) = tokens.get(*at) {
            if token.starts_with(')') {
                break;
            }
            *at += 1;
            if token != "(" {
                let m = self.named_power(token).ok_or_else(|| {
                    self.bad_sequence(
                        text,
                        format!(
                            "`{}` is not a move of {} (its moves are {}, and their powers \
                             written as twsearch does: R2, R'; groups repeat as (R U)6)",
                            escaped(token),
                            self.path,
                            self.base_moves
                                .iter()
                                .map(|m| m.name.as_str())
                                .collect::<Vec<_>>()
                                .join(" ")
                        ),
                    )
                })?;
                acc = times(&acc, &m);
                continue;
            }
            if depth >= super::sequence::MAX_NESTING {
                return Err(self.bad_sequence(
                    text,
                    format!("parentheses nest deeper than {}", super::sequence::MAX_NESTING),
                ));
            }
            let inner = self.group(text, tokens, at, depth + 1, order)?;
            let Some(close) = tokens.get(*at) else {
                return Err(self.bad_sequence(text, "a `(` without its `)`".into()));
            };
            *at += 1;
            let mut suffix = &close[1..];
            // `(R U) 6`: the repetition as the next token.
            if suffix.is_empty()
                && let Some(next) = tokens.get(*at).filter(|t| repetition(t).is_some())
            {
                suffix = next;
                *at += 1;
            }
            let repeat = repetition(suffix).ok_or_else(|| {
                self.bad_sequence(
                    text,
                    format!(
                        "expected a repetition after `)` (6, ^6, ', 2', ^-1), found `{}`",
                        escaped(suffix)
                    ),
                )
            })?;
            acc = times(&acc, &inner.power(repeat, k));
        }
        Ok(acc)
    }

    /// Reads a board: the file's state layout when the text starts with a set name, else a
    /// move sequence applied to the solved board. At most [`MAX_CELLS`] cells
    /// ([`Defined::parse_board_wide`] takes any).
    pub fn parse_board(&self, text: &str) -> Result<Board> {
        let wide = self.parse_board_wide(text)?;
        wide.narrow().ok_or_else(|| self.bad_puzzle(self.size_refusal().unwrap_or_default()))
    }

    /// [`Defined::parse_board`] at any size.
    pub fn parse_board_wide(&self, text: &str) -> Result<WideBoard> {
        let tokens: Vec<&str> = text
            .split(|c: char| c.is_whitespace() || matches!(c, '/' | ';' | ','))
            .filter(|t| !t.is_empty() && *t != "End" && *t != "Solved")
            .collect();
        let is_set = |t: &str| {
            self.definition
                .sets
                .iter()
                .chain(self.left_out_sets().iter().map(|(s, _)| s))
                .any(|s| s.name == t)
        };
        if tokens.first().is_none_or(|t| !is_set(t)) {
            return Ok(self.sequence_wide(text)?.applied_to(&self.solved_wide(), self.orient_mod));
        }
        self.parse_layout(&tokens)
    }

    fn parse_layout(&self, tokens: &[&str]) -> Result<WideBoard> {
        let bad = |msg: String| Error::InvalidBoard(msg);
        let mut board = self.solved_wide();
        let mut seen = vec![false; self.definition.sets.len()];
        let mut seen_left_out = vec![false; self.left_out_sets().len()];
        let mut at = 0;
        while at < tokens.len() {
            let name = tokens[at];
            if let Some(l) = self.left_out_sets().iter().position(|(set, _)| set.name == name) {
                if std::mem::replace(&mut seen_left_out[l], true) {
                    return Err(bad(format!("set {name} is given twice")));
                }
                let (set, label) = &self.left_out_sets()[l];
                at = skip_left_out(tokens, at + 1, set, *label)?;
                continue;
            }
            let Some(s) = self.definition.sets.iter().position(|set| set.name == name) else {
                return Err(bad(format!(
                    "expected a set name ({}), found `{}`",
                    self.set_names(),
                    escaped(name)
                )));
            };
            if std::mem::replace(&mut seen[s], true) {
                return Err(bad(format!("set {name} is given twice")));
            }
            at += 1;
            let set = &self.definition.sets[s];
            let numbers = |from: usize, count: usize| -> Vec<u64> {
                numbers_from(tokens, from).take(count).collect()
            };
            let labels = numbers(at, set.size);
            if labels.len() != set.size {
                return Err(bad(format!(
                    "set {name}: expected {} piece numbers, found {}",
                    set.size,
                    labels.len()
                )));
            }
            at += set.size;
            if let Some(file_set) = self.unoriented_sets().iter().find(|f| f.name == name) {
                // Orientations as the file declares them, none seen: read and passed.
                at = skip_orientations(tokens, at, file_set)?;
            }
            let orients = if set.orientations > 1 { numbers(at, set.size) } else { Vec::new() };
            if !orients.is_empty() && orients.len() != set.size {
                return Err(bad(format!(
                    "set {name}: expected {} orientations after the pieces, found {}",
                    set.size,
                    orients.len()
                )));
            }
            at += orients.len();
            self.place_set(&mut board, s, &labels, &orients)?;
        }
        Ok(board)
    }

    /// Puts one set's pieces (1-based labels) and orientations on the board.
    fn place_set(
        &self,
        board: &mut WideBoard,
        s: usize,
        labels: &[u64],
        orients: &[u64],
    ) -> Result<()> {
        let set = &self.definition.sets[s];
        let solved = &self.definition.solved[s];
        let off = self.offsets[s];
        let bad = |msg: String| Error::InvalidBoard(format!("set {}: {msg}", set.name));
        let mut left: HashMap<u64, usize> = HashMap::new();
        for &p in &solved.pieces {
            *left.entry(u64::from(p) + 1).or_default() += 1;
        }
        let step = self.orient_mod / set.orientations;
        for (i, &label) in labels.iter().enumerate() {
            let count = left.get_mut(&label).ok_or_else(|| {
                bad(format!(
                    "{label} is not a piece of the set (its solved state has {})",
                    self.labels_text(s)
                ))
            })?;
            if *count == 0 {
                return Err(bad(format!(
                    "piece {label} appears more often than in the solved state"
                )));
            }
            *count -= 1;
            let home = solved.pieces.iter().position(|&p| u64::from(p) + 1 == label).unwrap_or(0);
            let tile = self.tile_of[off + home];
            let o = orients.get(i).copied().unwrap_or(0);
            if o >= u64::from(set.orientations) {
                return Err(bad(format!(
                    "orientation {o} is out of range 0..{}",
                    set.orientations - 1
                )));
            }
            let c = u64::from(set.orientations);
            let shifted = (o + c - u64::from(self.home_orient[tile as usize])) % c;
            board.tiles[off + i] = tile;
            board.orient[off + i] = shifted as u8 * step;
        }
        Ok(())
    }

    /// Writes a board in the file's state layout, on one line.
    pub fn format_board(&self, board: &Board) -> String {
        self.format_cells(|c| usize::from(board.tiles[c]), &board.orient)
    }

    /// [`Defined::format_board`] at any size.
    pub fn format_board_wide(&self, board: &WideBoard) -> String {
        self.format_cells(|c| usize::from(board.tiles[c]), &board.orient)
    }

    /// The state layout of a board given by its tile on each cell and their orientations.
    fn format_cells(&self, tile_on: impl Fn(usize) -> usize, orient: &[u8]) -> String {
        let mut parts = Vec::new();
        for (s, set) in self.definition.sets.iter().enumerate() {
            let off = self.offsets[s];
            let solved = &self.definition.solved[s];
            let step = self.orient_mod / set.orientations;
            let cells = off..off + set.size;
            let labels: Vec<String> = cells
                .clone()
                .map(|c| {
                    let home = tile_on(c) - off;
                    (u64::from(solved.pieces[home]) + 1).to_string()
                })
                .collect();
            let mut text = format!("{} {}", set.name, labels.join(" "));
            if set.orientations > 1 {
                let c = set.orientations;
                let orients: Vec<String> = cells
                    .map(|cell| {
                        let tile = tile_on(cell);
                        ((orient[cell] / step + self.home_orient[tile]) % c).to_string()
                    })
                    .collect();
                text.push_str(" / ");
                text.push_str(&orients.join(" "));
            }
            parts.push(text);
        }
        parts.join(" ; ")
    }

    /// The sets and the cells twirl gives them: `CORNERS (cells 1-8, 3 orientations)`.
    pub fn describe_sets(&self) -> String {
        let parts: Vec<String> = self
            .definition
            .sets
            .iter()
            .zip(&self.offsets)
            .map(|(set, &off)| {
                let identical = self.tile_of[off..off + set.size]
                    .iter()
                    .enumerate()
                    .any(|(i, &t)| t as usize != off + i);
                format!(
                    "{} (cells {}-{}, {} orientation{}{})",
                    set.name,
                    off + 1,
                    off + set.size,
                    set.orientations,
                    if set.orientations == 1 { "" } else { "s" },
                    if identical { ", identical pieces" } else { "" }
                )
            })
            .collect();
        let mut text = parts.join(", ");
        let left_out: Vec<&str> =
            self.left_out_sets().iter().map(|(s, _)| s.name.as_str()).collect();
        if !left_out.is_empty() {
            text.push_str(&format!(
                "; left out, as they tell no boards apart (pieces alike, orientations unseen): {}",
                left_out.join(" ")
            ));
        }
        let unoriented: Vec<&str> =
            self.unoriented_sets().iter().map(|s| s.name.as_str()).collect();
        if !unoriented.is_empty() {
            text.push_str(&format!(
                "; searched without orientations, none being seen: {}",
                unoriented.join(" ")
            ));
        }
        let d = &self.definition;
        if !d.rotations.is_empty() {
            let names: Vec<&str> = d.rotations.iter().map(|r| r.name.as_str()).collect();
            text.push_str(&format!(
                "; whole-puzzle rotations (symmetries, not moves): {}",
                names.join(" ")
            ));
        }
        if let Some(reason) = self.search_refusal() {
            text.push_str(&format!("; {reason}"));
        }
        text
    }

    /// Why no search may run on this definition, if it may not: `Illegal` boards, which
    /// twirl's searches would enter (twsearch skips them; twirl's rankings count every board
    /// the moves reach). `info`, `order`, `check` and `apply` still work: the group is the
    /// same, only the boards a search may pass through are fewer.
    pub fn search_refusal(&self) -> Option<String> {
        let d = &self.definition;
        let first = d.illegal.first()?;
        Some(format!(
            "{} `Illegal` placement{} (first: piece {} on {} position {}): twirl's searches \
             cannot avoid illegal boards and refuse this definition",
            d.illegal.len(),
            if d.illegal.len() == 1 { "" } else { "s" },
            first.label + 1,
            d.sets[first.set].name,
            first.position + 1
        ))
    }

    fn set_names(&self) -> String {
        self.definition.sets.iter().map(|s| s.name.as_str()).collect::<Vec<_>>().join(", ")
    }

    fn labels_text(&self, s: usize) -> String {
        let mut labels: Vec<u16> = self.definition.solved[s].pieces.clone();
        labels.sort_unstable();
        labels.dedup();
        labels.iter().map(|l| (l + 1).to_string()).collect::<Vec<_>>().join(" ")
    }
}

/// The numbers that start `tokens[at..]`.
fn numbers_from<'a>(tokens: &'a [&str], at: usize) -> impl Iterator<Item = u64> + 'a {
    tokens[at.min(tokens.len())..].iter().map_while(|t| t.parse::<u64>().ok())
}

/// Reads a left-out set's pieces and orientations from `tokens[at..]` (every piece its one
/// label, orientations in range or none) and returns where the next set starts.
fn skip_left_out(tokens: &[&str], at: usize, set: &SetDef, label: u16) -> Result<usize> {
    let bad = |msg: String| Error::InvalidBoard(format!("set {}: {msg}", set.name));
    let pieces: Vec<u64> = numbers_from(tokens, at).take(set.size).collect();
    if pieces.len() < set.size {
        return Err(bad(format!("expected {} piece numbers, found {}", set.size, pieces.len())));
    }
    let expected = u64::from(label) + 1;
    if let Some(p) = pieces.iter().find(|&&p| p != expected) {
        return Err(bad(format!(
            "{p} is not a piece of the set (its solved state has {expected})"
        )));
    }
    skip_orientations(tokens, at + set.size, set)
}

/// Passes the orientations of a set the search holds without them, where the board gives
/// them (all of the set's, each in range), and returns where the next set starts.
fn skip_orientations(tokens: &[&str], at: usize, set: &SetDef) -> Result<usize> {
    let orients: Vec<u64> = numbers_from(tokens, at).take(set.size).collect();
    if set.orientations == 1 || orients.is_empty() {
        return Ok(at);
    }
    let bad = |msg: String| Error::InvalidBoard(format!("set {}: {msg}", set.name));
    if orients.len() < set.size {
        return Err(bad(format!(
            "expected {} orientations after the pieces, found {}",
            set.size,
            orients.len()
        )));
    }
    if let Some(o) = orients.iter().find(|&&o| o >= u64::from(set.orientations)) {
        return Err(bad(format!("orientation {o} is out of range 0..{}", set.orientations - 1)));
    }
    Ok(at + set.size)
}

/// A sequence's tokens: split at spaces and commas, with `(` alone and `)` followed by what
/// is written against it (its repetition: `)6`, `)^-1`, `)'`).
fn sequence_tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for chunk in text.split(|c: char| c.is_whitespace() || c == ',').filter(|t| !t.is_empty()) {
        let mut start = 0;
        for (i, c) in chunk.char_indices() {
            if c == '(' || c == ')' {
                if start < i {
                    out.push(&chunk[start..i]);
                }
                if c == '(' {
                    out.push("(");
                    start = i + 1;
                } else {
                    start = i;
                }
            }
        }
        if start < chunk.len() {
            out.push(&chunk[start..]);
        }
    }
    out
}

/// A group's repetition: empty (once), `6`, `^6`, `^{6}`, `'` (inverse), `2'`, `^-1`.
fn repetition(text: &str) -> Option<i64> {
    let (body, inverse) = match text.strip_suffix('\'') {
        Some(b) => (b, true),
        None => (text, false),
    };
    let body = body.strip_prefix('^').unwrap_or(body);
    let body = body.strip_prefix('{').and_then(|b| b.strip_suffix('}')).unwrap_or(body);
    let (digits, negative) = match body.strip_prefix('-') {
        Some(d) => (d, true),
        None => (body, false),
    };
    let n: i64 = if digits.is_empty() {
        if negative || (text.is_empty() && inverse) {
            return None;
        }
        1
    } else {
        if !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        digits.parse().ok()?
    };
    Some(if negative != inverse { -n } else { n })
}

fn lcm(a: u64, b: u64) -> u64 {
    let (mut x, mut y) = (a, b);
    while y != 0 {
        (x, y) = (y, x % y);
    }
    a / x * b
}

#[cfg(test)]
#[path = "defined_tests.rs"]
mod tests;
