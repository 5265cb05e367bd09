//! Subsets of a definition chosen on the command line (twsearch's `--moves`, `--omit`,
//! `--nocorners`, `--noedges`, `--nocenters`, `--noorientation`, `--omitperms`,
//! `--omitoris`, and twirl's `--identical` / `--ignore`): a pure transformation of one
//! [`Definition`] into another, so that every command, the table's definition digest and
//! `info` see the smaller puzzle as if its file had been edited by hand.
//!
//! The steps, in order: sets left out (`--omit`, the shorthands: twsearch's name rules, a
//! set whose name starts `c?r` is corners, `ce` centers, `ed` edges, case aside); the moves
//! kept (`--moves`: each name a move or a power of one, as twsearch names them, declared on
//! its own so that its powers are the moves, as twsearch's filter does); orientations
//! forgotten (`--noorientation` for every set, `--omitoris` for one); pieces made identical
//! (`--omitperms` for a whole set, `--identical SET:POS,...`) or ignored (`--ignore
//! SET:POS,...`: identical and their orientation unseen, `?`). Then sets no kept move moves,
//! or whose pieces are all alike and unseen, are dropped (they tell no boards apart), and
//! moves that do nothing on what is left are dropped. The result is read back through
//! [`Definition::parse`], so it obeys every rule a file does.

use super::definition::{ANY_ORIENTATION, Definition, MoveDef, SetMove, suffix_power};
use crate::error::escaped;

/// A subset refused: one line saying what was expected and what was found.
type Result<T> = std::result::Result<T, String>;

/// What to keep of a definition. Empty: the definition itself. A table file records it
/// (field names are its JSON), so that the table is read back as the subset searched.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Subset {
    /// Keep only these moves (names of moves or of their powers); `None`: all.
    pub moves: Option<Vec<String>>,
    /// Sets left out entirely.
    pub omit: Vec<String>,
    /// twsearch's `--nocorners`: sets named `c?r...` left out.
    pub no_corners: bool,
    /// twsearch's `--noedges`: sets named `ed...` left out.
    pub no_edges: bool,
    /// twsearch's `--nocenters`: sets named `ce...` left out.
    pub no_centers: bool,
    /// Every orientation forgotten.
    pub no_orientation: bool,
    /// Sets whose orientations are forgotten.
    pub omit_oris: Vec<String>,
    /// Sets whose pieces are all made identical (orientations kept).
    pub omit_perms: Vec<String>,
    /// Pieces (set, 1-based solved positions) made identical.
    pub identical: Vec<PieceGroup>,
    /// Pieces (set, 1-based solved positions) made identical with orientation unseen.
    pub ignore: Vec<PieceGroup>,
}

/// Some pieces of a set, by their positions in the solved state: `SET` (all of them),
/// `SET:1,2,5` or with ranges `SET:1-4,9`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PieceGroup {
    /// The set's name.
    pub set: String,
    /// 1-based positions; empty: the whole set.
    pub positions: Vec<usize>,
}

impl PieceGroup {
    /// Reads `SET`, `SET:1,2,5` or `SET:1-4,9`.
    pub fn parse(text: &str) -> Result<PieceGroup> {
        let bad = |why: String| format!("`{}`: {why}", escaped(text));
        let (set, list) = match text.split_once(':') {
            Some((s, l)) => (s, Some(l)),
            None => (text, None),
        };
        if set.is_empty() {
            return Err(bad("expected SET or SET:POS,POS,... (a set name first)".into()));
        }
        let positions = match list {
            None => Vec::new(),
            Some(l) => {
                let mut positions = Vec::new();
                for item in l.split(',') {
                    let expected = || {
                        bad(format!(
                            "expected positions 1, 2, ... or ranges 5-8 after `:`, found `{item}`"
                        ))
                    };
                    let number = |t: &str| t.trim().parse::<usize>().ok().filter(|&v| v >= 1);
                    let (lo, hi) = match item.split_once('-') {
                        Some((a, b)) => (number(a), number(b)),
                        None => (number(item), number(item)),
                    };
                    let (Some(lo), Some(hi)) = (lo, hi) else { return Err(expected()) };
                    // Bounded: a typo must not ask for billions of positions.
                    if lo > hi || hi - lo > u16::MAX as usize {
                        return Err(expected());
                    }
                    positions.extend(lo..=hi);
                }
                positions
            }
        };
        Ok(PieceGroup { set: set.to_string(), positions })
    }
}

/// As the command line writes it: `SET` or `SET:1,2,5`.
impl std::fmt::Display for PieceGroup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.set)?;
        for (i, p) in self.positions.iter().enumerate() {
            write!(f, "{}{p}", if i == 0 { ':' } else { ',' })?;
        }
        Ok(())
    }
}

/// twsearch's rule for `--nocorners` (`c?r...`), `--nocenters` (`ce...`), `--noedges`
/// (`ed...`), case aside.
fn shorthand_drops(subset: &Subset, name: &str) -> bool {
    let b: Vec<u8> = name.bytes().map(|c| c.to_ascii_lowercase()).collect();
    (subset.no_corners && b.len() >= 3 && b[0] == b'c' && b[2] == b'r')
        || (subset.no_centers && b.len() >= 2 && b[0] == b'c' && b[1] == b'e')
        || (subset.no_edges && b.len() >= 2 && b[0] == b'e' && b[1] == b'd')
}

impl Subset {
    /// Whether nothing is asked: the definition stays as it is.
    pub fn is_empty(&self) -> bool {
        *self == Subset::default()
    }

    /// `spec` followed by the flags of `subset`, if any: a puzzle as a command line names it
    /// (`def:cube.tws --nocorners`).
    pub fn named(spec: &str, subset: Option<&Subset>) -> String {
        match subset {
            Some(s) => format!("{spec} {}", s.describe()),
            None => spec.to_string(),
        }
    }

    /// The flags given, as the command line spells them (for messages).
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(m) = &self.moves {
            parts.push(format!("--moves {}", m.join(",")));
        }
        for s in &self.omit {
            parts.push(format!("--omit {s}"));
        }
        for (on, flag) in [
            (self.no_corners, "--nocorners"),
            (self.no_edges, "--noedges"),
            (self.no_centers, "--nocenters"),
            (self.no_orientation, "--noorientation"),
        ] {
            if on {
                parts.push(flag.into());
            }
        }
        for s in &self.omit_oris {
            parts.push(format!("--omitoris {s}"));
        }
        for s in &self.omit_perms {
            parts.push(format!("--omitperms {s}"));
        }
        for g in &self.identical {
            parts.push(format!("--identical {g}"));
        }
        for g in &self.ignore {
            parts.push(format!("--ignore {g}"));
        }
        parts.join(" ")
    }

    /// The definition with this subset applied (see the module docs).
    pub fn apply(&self, def: &Definition) -> Result<Definition> {
        if self.is_empty() {
            return Ok(def.clone());
        }
        let bad = |why: String| format!("{}: {why}", self.describe());
        let set_index = |name: &str| {
            def.sets.iter().position(|s| s.name == name).ok_or_else(|| {
                let names: Vec<&str> = def.sets.iter().map(|s| s.name.as_str()).collect();
                bad(format!(
                    "expected a set of {} ({}), found `{}`",
                    escaped(&def.name),
                    names.join(", "),
                    escaped(name)
                ))
            })
        };
        let mut out = def.clone();
        let n_sets = def.sets.len();
        let mut keep_set = vec![true; n_sets];
        for name in &self.omit {
            keep_set[set_index(name)?] = false;
        }
        for (s, set) in def.sets.iter().enumerate() {
            if shorthand_drops(self, &set.name) {
                keep_set[s] = false;
            }
        }
        // Moves: each name resolved to a power of a declared move, declared on its own.
        if let Some(names) = &self.moves {
            let mut kept: Vec<MoveDef> = Vec::new();
            for name in names {
                let m = def
                    .moves
                    .iter()
                    .find_map(|base| {
                        let order = base.order(&def.sets);
                        let p = suffix_power(name.strip_prefix(base.name.as_str())?, order)?;
                        Some(MoveDef { name: name.clone(), sets: base.power(&def.sets, p) })
                    })
                    .ok_or_else(|| {
                        let all: Vec<&str> = def.moves.iter().map(|m| m.name.as_str()).collect();
                        bad(format!(
                            "expected moves of the puzzle ({}, or their powers: R2, R'), found \
                             `{}`",
                            all.join(" "),
                            escaped(name)
                        ))
                    })?;
                kept.push(m);
            }
            out.moves = kept;
            // The rotations are symmetries of the whole move set, not of a subgroup.
            out.rotations.clear();
        }
        // Orientations forgotten.
        let mut forget_orient = vec![self.no_orientation; n_sets];
        for name in &self.omit_oris {
            forget_orient[set_index(name)?] = true;
        }
        for (s, &forget) in forget_orient.iter().enumerate() {
            if forget {
                forget_orientations(&mut out, s);
            }
        }
        // Identical and ignored pieces: one label per group (that of its first piece).
        let whole = |name: &str| PieceGroup { set: name.to_string(), positions: Vec::new() };
        let groups: Vec<(PieceGroup, bool)> = self
            .omit_perms
            .iter()
            .map(|n| (whole(n), false))
            .chain(self.identical.iter().map(|g| (g.clone(), false)))
            .chain(self.ignore.iter().map(|g| (g.clone(), true)))
            .collect();
        for (group, unseen) in groups {
            let s = set_index(&group.set)?;
            let size = out.sets[s].size;
            let positions: Vec<usize> = if group.positions.is_empty() {
                (0..size).collect()
            } else {
                group.positions.iter().map(|&p| p - 1).collect()
            };
            if let Some(p) = positions.iter().find(|&&p| p >= size) {
                return Err(bad(format!(
                    "set {} has positions 1 to {size}, found {}",
                    escaped(&group.set),
                    p + 1
                )));
            }
            let state = &mut out.solved[s];
            // Every piece carrying a label of the group joins it, so that pieces identical
            // in the file stay identical to each other.
            let labels: Vec<u16> = positions.iter().map(|&p| state.pieces[p]).collect();
            let label = labels[0];
            for i in 0..size {
                if labels.contains(&state.pieces[i]) {
                    state.pieces[i] = label;
                    if unseen && out.sets[s].orientations > 1 {
                        state.orient[i] = ANY_ORIENTATION;
                    }
                }
            }
        }
        // Sets that tell no boards apart: left out, moved by no kept move, or one label
        // with no orientation seen.
        for (s, keep) in keep_set.iter_mut().enumerate() {
            let moved = out.moves.iter().any(|m| !m.sets[s].is_identity());
            if !moved || is_blind(&out, s) {
                *keep = false;
            }
        }
        keep_sets(out, &keep_set).map_err(bad)
    }
}

/// Whether a set's solved state tells no boards apart: one label, and no orientation seen.
fn is_blind(def: &Definition, s: usize) -> bool {
    let state = &def.solved[s];
    let one_label = state.pieces.iter().all(|&l| l == state.pieces[0]);
    one_label
        && (def.sets[s].orientations == 1 || state.orient.iter().all(|&o| o == ANY_ORIENTATION))
}

/// Set `s` without orientations: one each, moves and rotations no longer twist it.
fn forget_orientations(def: &mut Definition, s: usize) {
    if def.sets[s].orientations == 1 {
        return;
    }
    def.sets[s].orientations = 1;
    def.solved[s].orient.iter_mut().for_each(|o| *o = 0);
    for m in def.moves.iter_mut().chain(def.rotations.iter_mut()) {
        m.sets[s].twist.iter_mut().for_each(|t| *t = 0);
    }
}

/// A definition file as a search takes it, where the file says more than its boards tell
/// apart ([`simplified`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Simplified {
    /// The definition searched.
    pub definition: Definition,
    /// The file's sets left out: every piece alike and no orientation seen (as `--ignore
    /// SET` leaves a set). They add no board, but the ranks would count their pieces as
    /// identical ones: a 3x3x3 whose edges are blind is its corners' group, searched with
    /// the 2x2x2's symmetries.
    pub left_out: Vec<usize>,
    /// The file's sets kept without orientations: none of their orientations is seen (`?`
    /// throughout), so distinct pieces are a permutation alone (as `--omitoris SET` makes
    /// them), not pieces whose unseen turns make them identical to themselves.
    pub unoriented: Vec<usize>,
}

/// The definition a search takes of a file read as it is ([`Simplified`]); `None` where the
/// file is that already, where nothing would be left, or where a move would then do nothing
/// or have another order: its name and its powers (each a move of `htm`, `A5` as well as
/// `A` where twists alone tell them apart) stay the file's.
pub fn simplified(def: &Definition) -> Option<Simplified> {
    let n_sets = def.sets.len();
    let mut out = def.clone();
    let all_unseen = |s: usize| {
        def.sets[s].orientations > 1 && def.solved[s].orient.iter().all(|&o| o == ANY_ORIENTATION)
    };
    let unseen: Vec<usize> = (0..n_sets).filter(|&s| all_unseen(s)).collect();
    for &s in &unseen {
        forget_orientations(&mut out, s);
    }
    let keep_set: Vec<bool> = (0..n_sets).map(|s| !is_blind(&out, s)).collect();
    if unseen.is_empty() && !keep_set.contains(&false) {
        return None;
    }
    let left_out = (0..n_sets).filter(|&s| !keep_set[s]).collect();
    let unoriented = unseen.into_iter().filter(|&s| keep_set[s]).collect();
    let definition = keep_sets(out, &keep_set).ok()?;
    let same_moves = definition.moves.len() == def.moves.len()
        && (definition.moves.iter().zip(&def.moves))
            .all(|(m, file)| m.order(&definition.sets) == file.order(&def.sets));
    same_moves.then_some(Simplified { definition, left_out, unoriented })
}

/// `out` with only the sets `keep_set` marks; moves that then do nothing are dropped, and
/// the result read back as a file is read, so every rule of the format holds for it.
fn keep_sets(mut out: Definition, keep_set: &[bool]) -> Result<Definition> {
    if !keep_set.contains(&true) {
        return Err("no set of pieces is left for the moves to move".into());
    }
    let new_index: Vec<Option<usize>> = keep_set
        .iter()
        .scan(0, |next, &k| {
            Some(k.then(|| {
                *next += 1;
                *next - 1
            }))
        })
        .collect();
    let pick = |sets: &[SetMove]| -> Vec<SetMove> {
        sets.iter().zip(keep_set).filter(|(_, k)| **k).map(|(m, _)| m.clone()).collect()
    };
    out.sets = out.sets.iter().zip(keep_set).filter(|(_, k)| **k).map(|(s, _)| s.clone()).collect();
    out.solved =
        out.solved.iter().zip(keep_set).filter(|(_, k)| **k).map(|(s, _)| s.clone()).collect();
    for m in out.moves.iter_mut().chain(out.rotations.iter_mut()) {
        m.sets = pick(&m.sets);
    }
    out.moves.retain(|m| !m.sets.iter().all(SetMove::is_identity));
    out.rotations.retain(|m| !m.sets.iter().all(SetMove::is_identity));
    if out.moves.is_empty() {
        return Err("no move moves a piece that is left".into());
    }
    out.illegal = out
        .illegal
        .iter()
        .filter_map(|i| {
            let set = new_index[i.set]?;
            // A banned label no longer in the set (merged into another) bans nothing.
            out.solved[set]
                .pieces
                .contains(&i.label)
                .then(|| super::definition::Illegal { set, ..i.clone() })
        })
        .collect();
    Definition::parse(&out.to_tws())
        .map_err(|e| format!("the result is not a valid definition: {e}"))
}

#[cfg(test)]
#[path = "subset_tests.rs"]
mod tests;
