//! Puzzle specifications as typed on the command line: `nrp:<rows>x<cols>:<block>` and
//! `spin:<rows>x<cols>[:<type>,<type>...]` and `def:<file>` (a ksolve/twsearch definition),
//! plus the metric.

use std::fmt;
use std::sync::Arc;

use super::board::BoardStyle;
use super::defined::Defined;
use crate::error::escaped;
use crate::{Error, Result};

/// Which moves count as one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Metric {
    /// Quarter-turn metric: a 90 degree turn either way is one move (180 degrees is two).
    Qtm,
    /// Half-turn metric: 90 degrees either way or 180 degrees, each one move. For
    /// Spinpossible, every spin is one move.
    Htm,
    /// Clockwise quarter turns only; distances count moves needed to solve a board.
    Cw,
}

impl Metric {
    /// Parses `qtm`, `htm` or `cw`.
    pub fn parse(s: &str) -> Result<Metric> {
        match s.to_ascii_lowercase().as_str() {
            "qtm" => Ok(Metric::Qtm),
            "htm" => Ok(Metric::Htm),
            "cw" => Ok(Metric::Cw),
            _ => {
                let s = escaped(s);
                Err(Error::InvalidMetric(format!("unknown metric `{s}` (expected qtm, htm or cw)")))
            }
        }
    }

    /// The metric's name as written on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Metric::Qtm => "qtm",
            Metric::Htm => "htm",
            Metric::Cw => "cw",
        }
    }
}

impl fmt::Display for Metric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A spin type `i x j` with `i <= j`: all spins about `i x j` or `j x i` rectangles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SpinType {
    /// The shorter side.
    pub short: usize,
    /// The longer side.
    pub long: usize,
}

impl fmt::Display for SpinType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.short, self.long)
    }
}

/// A puzzle as named on the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PuzzleSpec {
    /// NRP / Twiddle: `rows x cols` board, `block x block` rotations.
    Nrp {
        /// Rows of the board.
        rows: usize,
        /// Columns of the board.
        cols: usize,
        /// Side of the rotated block.
        block: usize,
        /// Tiles turn with their block and must end upright.
        oriented: bool,
    },
    /// Spinpossible on a `rows x cols` board, restricted to a union of spin types.
    Spin {
        /// Rows of the board.
        rows: usize,
        /// Columns of the board.
        cols: usize,
        /// The allowed spin types, sorted; all types that fit the board when none were named.
        types: Vec<SpinType>,
    },
    /// Any permutation puzzle, read from a definition file (`def:FILE`).
    Def(Arc<Defined>),
}

/// The most cells a [`super::Puzzle`] may have: tiles are stored in bytes. NRP boards past
/// it are handled by [`super::large`].
pub const MAX_CELLS: usize = 255;

impl PuzzleSpec {
    /// The puzzle as a command line names it: the spec, then the subset flags a `def:` file
    /// was taken with (`def:3x3x3.tws --nocorners`). What reports and messages print; a
    /// table's header keeps the two apart (`puzzle` and `subset`).
    pub fn named(&self) -> String {
        match self {
            PuzzleSpec::Def(d) => d.named(),
            _ => self.to_string(),
        }
    }

    /// Parses `nrp:3x3:2`, `nrp:3x3:2:orient`, `spin:3x3`, `spin:3x3:1x1,1x2` or `def:FILE`
    /// (which reads the file).
    pub fn parse(text: &str) -> Result<PuzzleSpec> {
        if let Some(path) = text.trim().strip_prefix("def:") {
            return Ok(PuzzleSpec::Def(Arc::new(Defined::read(path)?)));
        }
        let bad = |reason: String| Error::InvalidPuzzle { spec: escaped(text), reason };
        let parts: Vec<&str> = text.trim().split(':').collect();
        let kind = parts[0].to_ascii_lowercase();
        match kind.as_str() {
            "nrp" | "twiddle" => {
                let (rows, cols, block, oriented) = parse_nrp(text, &parts, Some(MAX_CELLS))?;
                Ok(PuzzleSpec::Nrp { rows, cols, block, oriented })
            }
            "spin" => {
                if parts.len() < 2 || parts.len() > 3 {
                    return Err(bad(
                        "expected spin:<rows>x<cols> or spin:<rows>x<cols>:<type>,<type>...".into(),
                    ));
                }
                let (rows, cols) = parse_dims(parts[1], Some(MAX_CELLS)).map_err(bad)?;
                let mut types = match parts.get(2) {
                    None => all_spin_types(rows, cols),
                    Some(list) => list
                        .split(',')
                        .map(|t| {
                            let (a, b) = parse_dims(t.trim(), None)
                                .map_err(|r| bad(format!("spin type: {r}")))?;
                            let ty = SpinType { short: a.min(b), long: a.max(b) };
                            if ty.short > rows.min(cols) || ty.long > rows.max(cols) {
                                return Err(bad(format!(
                                    "spin type {ty} does not fit on a {rows}x{cols} board"
                                )));
                            }
                            Ok(ty)
                        })
                        .collect::<Result<Vec<_>>>()?,
                };
                types.sort();
                types.dedup();
                Ok(PuzzleSpec::Spin { rows, cols, types })
            }
            _ if std::path::Path::new(text.trim()).is_file() => Err(bad(format!(
                "expected nrp:..., spin:... or def:FILE, found the name of a file (a \
                 definition is named def:{}; a table file is read by `twirl info`, \
                 `distance`, `boards`, `solve` and `resume`)",
                escaped(text.trim())
            ))),
            _ => Err(bad(format!(
                "unknown puzzle `{}` (expected nrp, spin or def:FILE)",
                escaped(parts[0])
            ))),
        }
    }

    /// Rows and columns.
    pub fn dims(&self) -> (usize, usize) {
        match self {
            PuzzleSpec::Nrp { rows, cols, .. } | PuzzleSpec::Spin { rows, cols, .. } => {
                (*rows, *cols)
            }
            // One row of every set's cells: definitions have no geometry.
            PuzzleSpec::Def(d) => (1, d.n_cells()),
        }
    }

    /// Orientations a tile can take.
    pub fn orient_mod(&self) -> u8 {
        match self {
            PuzzleSpec::Nrp { oriented: true, .. } => 4,
            PuzzleSpec::Nrp { .. } => 1,
            PuzzleSpec::Spin { .. } => 2,
            PuzzleSpec::Def(d) => d.orient_mod(),
        }
    }

    /// The metric used when none is given: qtm for NRP, htm (one spin, one move) for
    /// Spinpossible, htm (every power of a declared move one move, as twsearch counts) for a
    /// definition.
    pub fn default_metric(&self) -> Metric {
        match self {
            PuzzleSpec::Nrp { .. } => Metric::Qtm,
            PuzzleSpec::Spin { .. } | PuzzleSpec::Def(_) => Metric::Htm,
        }
    }

    /// Rejects metrics the puzzle has no meaning for.
    pub fn check_metric(&self, metric: Metric) -> Result<()> {
        match (self, metric) {
            (PuzzleSpec::Spin { .. }, Metric::Qtm | Metric::Cw) => {
                Err(Error::InvalidMetric(format!(
                    "`{metric}` does not apply to Spinpossible: every spin is a half turn counted as one move (use htm)"
                )))
            }
            _ => Ok(()),
        }
    }

    /// How boards of this puzzle are written.
    pub fn board_style(&self) -> BoardStyle {
        match self {
            PuzzleSpec::Nrp { oriented: false, .. } => BoardStyle::Plain,
            PuzzleSpec::Nrp { oriented: true, .. } => BoardStyle::Quarter,
            PuzzleSpec::Spin { .. } => BoardStyle::Flip,
            // Not used: a definition reads and writes boards in its own layout.
            PuzzleSpec::Def(_) => BoardStyle::Plain,
        }
    }
}

impl fmt::Display for PuzzleSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PuzzleSpec::Nrp { rows, cols, block, oriented } => {
                write!(f, "nrp:{rows}x{cols}:{block}")?;
                if *oriented {
                    f.write_str(":orient")?;
                }
                Ok(())
            }
            PuzzleSpec::Spin { rows, cols, types } => {
                write!(f, "spin:{rows}x{cols}")?;
                if *types != all_spin_types(*rows, *cols) {
                    let names: Vec<String> = types.iter().map(|t| t.to_string()).collect();
                    write!(f, ":{}", names.join(","))?;
                }
                Ok(())
            }
            PuzzleSpec::Def(d) => write!(f, "def:{}", d.path),
        }
    }
}

/// Every spin type that fits a `rows x cols` board.
pub fn all_spin_types(rows: usize, cols: usize) -> Vec<SpinType> {
    let (lo, hi) = (rows.min(cols), rows.max(cols));
    let mut out = Vec::new();
    for short in 1..=lo {
        for long in short..=hi {
            out.push(SpinType { short, long });
        }
    }
    out
}

/// An NRP spec of any size, `(rows, cols, block, oriented)`, for the constructive solver
/// (which is not limited to boards of at most 255 cells); `None` if the text names another
/// kind of puzzle.
pub fn parse_nrp_any_size(text: &str) -> Result<Option<(usize, usize, usize, bool)>> {
    let parts: Vec<&str> = text.trim().split(':').collect();
    match parts[0].to_ascii_lowercase().as_str() {
        "nrp" | "twiddle" => parse_nrp(text, &parts, None).map(Some),
        _ => Ok(None),
    }
}

/// `nrp:<rows>x<cols>:<block>[:orient]` split at `:`, with at most `limit` cells.
fn parse_nrp(
    text: &str,
    parts: &[&str],
    limit: Option<usize>,
) -> Result<(usize, usize, usize, bool)> {
    let bad = |reason: String| Error::InvalidPuzzle { spec: escaped(text), reason };
    if parts.len() < 3 || parts.len() > 4 {
        return Err(bad("expected nrp:<rows>x<cols>:<block>, e.g. nrp:3x3:2".into()));
    }
    let (rows, cols) = parse_dims(parts[1], limit).map_err(|reason| {
        if limit.is_some() && reason.contains("more than") {
            bad(format!(
                "{reason}: a search ranks at most that many; check, apply, info, order and solve \
                 --method constructive take NRP boards of any size"
            ))
        } else {
            bad(reason)
        }
    })?;
    let block: usize = parts[2]
        .parse()
        .map_err(|_| bad(format!("block size `{}` is not a number", escaped(parts[2]))))?;
    let oriented = match parts.get(3) {
        None => false,
        Some(&"orient") => true,
        Some(other) => {
            let other = escaped(other);
            return Err(bad(format!("unknown option `{other}` (expected `orient`)")));
        }
    };
    if block == 0 {
        return Err(bad("block size must be at least 1".into()));
    }
    if block > rows.min(cols) {
        return Err(bad(format!("a {block}x{block} block does not fit on a {rows}x{cols} board")));
    }
    Ok((rows, cols, block, oriented))
}

/// `<rows>x<cols>`, with at most `limit` cells (and a product that fits a `usize`).
fn parse_dims(text: &str, limit: Option<usize>) -> std::result::Result<(usize, usize), String> {
    let (a, b) = text
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("`{}` is not of the form <rows>x<cols>", escaped(text)))?;
    let number = |s: &str| -> std::result::Result<usize, String> {
        s.trim().parse().map_err(|_| format!("`{}` is not a number", escaped(s)))
    };
    let (rows, cols) = (number(a)?, number(b)?);
    if rows == 0 || cols == 0 {
        return Err(format!(
            "a {rows}x{cols} board has no cells: rows and columns must be at least 1"
        ));
    }
    let max = limit.unwrap_or(usize::MAX);
    if rows.checked_mul(cols).is_none_or(|n| n > max) {
        return Err(format!("{rows}x{cols} has more than {max} cells"));
    }
    Ok((rows, cols))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_specs() {
        for s in ["nrp:3x3:2", "nrp:4x4:3:orient", "spin:3x3", "spin:3x3:1x1,1x2", "spin:2x4:1x3"] {
            assert_eq!(PuzzleSpec::parse(s).unwrap().to_string(), s);
        }
        assert_eq!(PuzzleSpec::parse("spin:3x3:2x1,1x1").unwrap().to_string(), "spin:3x3:1x1,1x2");
        assert_eq!(all_spin_types(3, 3).len(), 6);
    }

    #[test]
    fn rejects_bad_specs() {
        let err = |s: &str| PuzzleSpec::parse(s).unwrap_err().to_string();
        assert!(err("nrp:3x3:4").contains("does not fit"));
        assert!(err("nrp:0x3:1").contains("no cells"));
        assert!(err("nrp:3x3:0").contains("at least 1"));
        assert!(err("spin:3x3:5x5").contains("does not fit"));
        assert!(err("cube:3x3").contains("unknown puzzle"));
        assert!(err("nrp:3by3:2").contains("<rows>x<cols>"));
        assert!(Metric::parse("ftm").is_err());
        let spin = PuzzleSpec::parse("spin:3x3").unwrap();
        assert!(spin.check_metric(Metric::Cw).is_err());
    }
}
