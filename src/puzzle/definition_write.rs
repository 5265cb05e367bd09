//! Writing definitions: a [`Definition`] as a `.tws` file twsearch reads
//! ([`Definition::to_tws`]), a built-in puzzle as a definition ([`Definition::from_puzzle`]),
//! and the names twsearch gives an exported puzzle's moves ([`twsearch_names`], the header
//! of `twirl export-def` in [`export_notes`]). The format and the directions are described
//! in the module docs of [`super`] (the reader).

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use super::{ANY_ORIENTATION, Definition, MoveDef, SetDef, SetMove, SetState, power_name};
use crate::error::escaped;
use crate::puzzle::{Metric, Move, Puzzle, PuzzleSpec};
use crate::{Error, Result};

impl Definition {
    /// The definition as a file twsearch reads, with a header comment.
    pub fn to_tws(&self) -> String {
        self.to_tws_with_notes(&[])
    }

    /// The definition as a file, with `notes` as extra comment lines after the header. Sets a
    /// move leaves alone are left out of its block (twsearch reads them as untouched).
    ///
    /// Meant for definitions from [`Definition::parse`] or [`Definition::from_puzzle`]; one
    /// built by hand must keep the rules stated on the types, or the file is not one twsearch
    /// (or [`Definition::parse`]) accepts. It never panics.
    pub fn to_tws_with_notes(&self, notes: &[String]) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "# Written by twirl {} in the ksolve/twsearch format. A move line gives, for each\n\
             # position, the position whose piece lands there; its orientation line, the twist\n\
             # of the piece leaving each position. Every power of a move is one move.",
            env!("CARGO_PKG_VERSION")
        );
        for note in notes {
            for line in note.lines() {
                let _ = writeln!(out, "# {line}");
            }
        }
        let _ = writeln!(out, "\nName {}\n", self.name);
        for s in &self.sets {
            let _ = writeln!(out, "Set {} {} {}", s.name, s.size, s.orientations);
        }
        out.push_str("\nSolved\n");
        for (s, state) in self.sets.iter().zip(&self.solved) {
            let _ = writeln!(out, "{}", s.name);
            push_numbers(&mut out, state.pieces.iter().map(|&l| u64::from(l) + 1));
            if s.orientations > 1 {
                let text: Vec<String> = state
                    .orient
                    .iter()
                    .map(|&o| match o {
                        ANY_ORIENTATION => "?".to_string(),
                        o => o.to_string(),
                    })
                    .collect();
                let _ = writeln!(out, "{}", text.join(" "));
            }
        }
        out.push_str("End\n");
        // Rotations are written as moves: their names tell twsearch (and the reader) what
        // they are. A `MoveSequence` was expanded on reading and is written as its product.
        for m in self.moves.iter().chain(&self.rotations) {
            let _ = writeln!(out, "\nMove {}", m.name);
            for (s, sm) in self.sets.iter().zip(&m.sets) {
                if sm.is_identity() {
                    continue;
                }
                let _ = writeln!(out, "{}", s.name);
                // The file lists, for each position, where its piece comes from.
                let mut from = vec![0u64; sm.perm.len()];
                for (i, &to) in sm.perm.iter().enumerate() {
                    if let Some(slot) = from.get_mut(to as usize) {
                        *slot = i as u64 + 1;
                    }
                }
                push_numbers(&mut out, from.into_iter());
                if s.orientations > 1 {
                    push_numbers(&mut out, sm.twist.iter().map(|&t| u64::from(t)));
                }
            }
            out.push_str("End\n");
        }
        if !self.illegal.is_empty() {
            out.push('\n');
        }
        for i in &self.illegal {
            let set = self.sets.get(i.set).map_or("?", |s| s.name.as_str());
            let _ = writeln!(out, "Illegal {set} {} {}", i.position + 1, i.label + 1);
        }
        out
    }

    /// A built-in puzzle as a definition: one set `TILES` (a piece per cell, all distinct,
    /// `orient_mod` orientations) and one declared move per group of moves that are powers
    /// of one another (see [`twsearch_names`] for the names).
    ///
    /// twsearch counts every power of a declared move as one move, so the puzzle's metric
    /// must be closed under powers: NRP in htm and Spinpossible are; NRP in qtm and cw are
    /// not, and give [`Error::Unsupported`] saying what can be exported instead.
    pub fn from_puzzle(puzzle: &Puzzle) -> Result<Definition> {
        if let (PuzzleSpec::Def(d), Metric::Htm) = (&puzzle.spec, puzzle.metric) {
            return Ok(d.definition.clone());
        }
        let m = puzzle.orient_mod;
        let actions: HashSet<(&[u8], &[u8])> =
            puzzle.moves.iter().map(|mv| (mv.perm.as_slice(), mv.twist.as_slice())).collect();
        let mut covered: HashSet<(Vec<u8>, Vec<u8>)> = HashSet::new();
        let mut declared: Vec<&Move> = Vec::new();
        for mv in &puzzle.moves {
            if covered.contains(&(mv.perm.clone(), mv.twist.clone())) {
                continue;
            }
            // All powers up to the order, the move itself included even when it is the
            // identity (a degenerate 1x1 block without orientation).
            let order = mv.order(m).max(2);
            let mut power = mv.clone();
            for k in 1..order {
                if !actions.contains(&(power.perm.as_slice(), power.twist.as_slice())) {
                    return Err(not_closed(puzzle, &mv.name, k));
                }
                covered.insert((power.perm.clone(), power.twist.clone()));
                power = power.then(mv, m);
            }
            declared.push(mv);
        }
        let n = puzzle.n_positions();
        let moves = declared
            .iter()
            .map(|mv| {
                Ok(MoveDef {
                    name: tws_base_name(&puzzle.spec, &mv.name)?,
                    sets: vec![SetMove {
                        perm: mv.perm.iter().map(|&p| u16::from(p)).collect(),
                        twist: mv.twist.clone(),
                    }],
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Definition {
            name: puzzle.spec.to_string(),
            sets: vec![SetDef { name: "TILES".into(), size: n, orientations: m.max(1) }],
            solved: vec![SetState { pieces: (0..n as u16).collect(), orient: vec![0; n] }],
            moves,
            rotations: Vec::new(),
            illegal: Vec::new(),
        })
    }
}

fn push_numbers(out: &mut String, values: impl Iterator<Item = u64>) {
    let text: Vec<String> = values.map(|v| v.to_string()).collect();
    out.push_str(&text.join(" "));
    out.push('\n');
}

/// The error for a metric whose move set is not closed under powers.
fn not_closed(puzzle: &Puzzle, name: &str, power: u128) -> Error {
    let hint = match puzzle.metric {
        Metric::Qtm => {
            "; export htm instead and run twsearch with -q (quarter turns only), which \
             searches it in qtm"
        }
        Metric::Cw => "; twsearch always counts a move's inverse as a move, so no directed metric",
        Metric::Htm => "",
    };
    Error::Unsupported(format!(
        "{} in {} cannot be written as a twsearch definition: twsearch counts every power of a \
         declared move as one move, and {name}^{power} is not a move of {} (exportable: NRP in \
         htm, Spinpossible){hint}",
        puzzle.spec, puzzle.metric, puzzle.metric
    ))
}

/// The twsearch name of a declared base move, from twirl's name.
///
/// - NRP: the counter-clockwise turn `R2C3` keeps its name; twsearch derives `R2C3'` (the
///   clockwise turn, twirl's `R2C3'` too) and `R2C32` (the half turn, twirl's `R2C3^2`).
///   On boards with 10 or more rows or columns the numbers are zero-padded to one width
///   (`R02C03`), so that no derived name (`R1C1` + `2`) can equal a base name (`R1C12`).
/// - Spinpossible: the spin `[p1,p2]` is `S<p1>_<p2>` (twsearch splits sequences at commas;
///   a spin is its own inverse, so no derived names).
fn tws_base_name(spec: &PuzzleSpec, name: &str) -> Result<String> {
    let bad = || Error::Unsupported(format!("cannot name move `{}` for twsearch", escaped(name)));
    match spec {
        PuzzleSpec::Nrp { rows, cols, .. } => {
            let (r, c) = name
                .strip_prefix('R')
                .and_then(|rest| rest.split_once('C'))
                .and_then(|(r, c)| Some((r.parse::<usize>().ok()?, c.parse::<usize>().ok()?)))
                .ok_or_else(bad)?;
            let (wr, wc) = (digits(*rows), digits(*cols));
            Ok(format!("R{r:0wr$}C{c:0wc$}"))
        }
        PuzzleSpec::Spin { .. } => {
            let (a, b) = name
                .strip_prefix('[')
                .and_then(|rest| rest.strip_suffix(']'))
                .and_then(|inner| inner.split_once(','))
                .ok_or_else(bad)?;
            Ok(format!("S{a}_{b}"))
        }
        PuzzleSpec::Def(_) => Ok(name.to_string()),
    }
}

fn digits(n: usize) -> usize {
    n.to_string().len()
}

/// The names twsearch gives every move of an exported puzzle, paired with twirl's names:
/// `(twirl, twsearch)` for each move of `puzzle`, in its order. Fails like
/// [`Definition::from_puzzle`].
pub fn twsearch_names(puzzle: &Puzzle) -> Result<Vec<(String, String)>> {
    let def = Definition::from_puzzle(puzzle)?;
    let m = puzzle.orient_mod;
    // Every power of every declared move, named as twsearch's expansion names it.
    let mut names: HashMap<(Vec<u8>, Vec<u8>), String> = HashMap::new();
    for d in &def.moves {
        let base = Move {
            name: String::new(),
            perm: d.sets[0].perm.iter().map(|&p| p as u8).collect(),
            twist: d.sets[0].twist.clone(),
        };
        let order = base.order(m).max(2);
        let mut power = base.clone();
        for k in 1..order {
            names
                .entry((power.perm.clone(), power.twist.clone()))
                .or_insert_with(|| power_name(&d.name, k, order));
            power = power.then(&base, m);
        }
    }
    Ok(puzzle
        .moves
        .iter()
        .map(|mv| {
            let tws = names.get(&(mv.perm.clone(), mv.twist.clone())).cloned().unwrap_or_default();
            (mv.name.clone(), tws)
        })
        .collect())
}

/// The comment lines `twirl export-def` puts in the file: what it is, the move names, and how
/// to search it with twsearch.
pub fn export_notes(puzzle: &Puzzle) -> Result<Vec<String>> {
    let names = twsearch_names(puzzle)?;
    let mut notes = vec![
        format!(
            "{} in {}: {} cells, {} moves.",
            puzzle.spec,
            puzzle.metric,
            puzzle.n_positions(),
            names.len()
        ),
        "twirl name = twsearch name:".to_string(),
    ];
    let pairs: Vec<String> = names.iter().map(|(t, w)| format!("{t}={w}")).collect();
    // A few pairs a line, so the header stays readable.
    for chunk in pairs.chunks(8) {
        notes.push(format!("  {}", chunk.join(" ")));
    }
    notes.push("Distances from solved: twsearch -g FILE".into());
    if matches!(puzzle.spec, PuzzleSpec::Nrp { .. }) {
        notes.push("In qtm (half turns cost two): twsearch -q -g FILE".into());
    }
    Ok(notes)
}
