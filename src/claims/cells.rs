//! Cells as claims write them: 1-based cell numbers in book order (`1 5 9`, ranges `4..6`) or
//! `(row,col)` pairs as Lam writes them, where either coordinate may be a range:
//! `(1..6,1)` is the first column top to bottom, `(6..1,7)` the seventh bottom to top (Lam's
//! `([1,n],1)`). Order is kept, so a list can describe a belt. Items are separated by spaces
//! or commas.
//!
//! Cycles are written `(1 5 9)(2 4)` or with pairs `((2,4) (3,3))`; `()` or an empty string is
//! the identity.
//!
//! Ranges are checked against the board before they are expanded, and a list names at most
//! [`MAX_CELLS_LISTED`] cells, so no registry text can make a list larger than a few boards.

use crate::error::escaped;

/// The most cells one list may name (with repeats): sixteen times the largest board.
pub const MAX_CELLS_LISTED: usize = 16 * 256;

/// A board's shape, for checking and naming cells.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    /// Rows.
    pub rows: usize,
    /// Columns.
    pub cols: usize,
}

impl Shape {
    /// `(r,c)` of a 0-based cell.
    pub fn rc(&self, cell: usize) -> String {
        format!("({},{})", cell / self.cols + 1, cell % self.cols + 1)
    }

    /// A list of 0-based cells as `(r,c)` pairs (`rc`) or 1-based numbers.
    pub fn format(&self, cells: &[usize], rc: bool) -> String {
        if cells.is_empty() {
            return "none".into();
        }
        let parts: Vec<String> =
            cells.iter().map(|&c| if rc { self.rc(c) } else { (c + 1).to_string() }).collect();
        parts.join(" ")
    }
}

/// A number or a range `a..b` (descending when `a > b`) of values in `1..=max`, checked
/// before it is expanded; `what` names the values in messages ("row", "cell").
fn range(text: &str, max: usize, what: &str) -> Result<Vec<usize>, String> {
    let text = text.trim();
    let parse = |s: &str| -> Result<usize, String> {
        let k: usize = s.trim().parse().map_err(|_| format!("`{}` is not a number", escaped(s)))?;
        if k == 0 || k > max {
            return Err(format!("{what} {k} is outside the board ({what}s 1..{max})"));
        }
        Ok(k)
    };
    match text.split_once("..") {
        Some((a, b)) => {
            let (a, b) = (parse(a)?, parse(b)?);
            Ok(if a <= b { (a..=b).collect() } else { (b..=a).rev().collect() })
        }
        None => Ok(vec![parse(text)?]),
    }
}

/// Parses a cell list into 0-based cells, in the order written.
pub fn parse_cells(text: &str, shape: Shape) -> Result<Vec<usize>, String> {
    let chars: Vec<char> = text.chars().collect();
    let n = shape.rows * shape.cols;
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() || c == ',' {
            i += 1;
        } else if c == '(' {
            let close = chars[i..]
                .iter()
                .position(|&d| d == ')')
                .ok_or_else(|| format!("`(` without `)` in `{}`", escaped(text)))?;
            let inner: String = chars[i + 1..i + close].iter().collect();
            let (r, col) = inner
                .split_once(',')
                .ok_or_else(|| format!("`({})` is not a (row,col) pair", escaped(&inner)))?;
            let outside = |e: String| {
                let (rows, cols) = (shape.rows, shape.cols);
                format!("cell ({}) is outside the {rows}x{cols} board: {e}", escaped(&inner))
            };
            let rs = range(r, shape.rows, "row").map_err(outside)?;
            let cs = range(col, shape.cols, "column").map_err(outside)?;
            for &r in &rs {
                for &c in &cs {
                    out.push((r - 1) * shape.cols + c - 1);
                }
            }
            i += close + 1;
        } else {
            let start = i;
            while i < chars.len() && !chars[i].is_whitespace() && chars[i] != ',' && chars[i] != '('
            {
                i += 1;
            }
            let item: String = chars[start..i].iter().collect();
            out.extend(range(&item, n, "cell")?.into_iter().map(|k| k - 1));
        }
        if out.len() > MAX_CELLS_LISTED {
            return Err(format!(
                "a cell list may name at most {MAX_CELLS_LISTED} cells; `{}` names more",
                escaped(text)
            ));
        }
    }
    Ok(out)
}

/// Parses cycles into 0-based cycles, each rotated to start at its smallest cell and sorted;
/// cycles of one cell are dropped.
pub fn parse_cycles(text: &str, shape: Shape) -> Result<Vec<Vec<usize>>, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c != '(' {
            return Err(format!(
                "cycles are written (1 5 9)(2 4); found `{}` in `{}`",
                escaped(&c.to_string()),
                escaped(text)
            ));
        }
        let mut depth = 0;
        let mut j = i;
        loop {
            match chars.get(j) {
                Some('(') => depth += 1,
                Some(')') => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                Some(_) => {}
                None => return Err(format!("unbalanced parenthesis in `{}`", escaped(text))),
            }
            j += 1;
        }
        let inner: String = chars[i + 1..j].iter().collect();
        let cycle = parse_cells(&inner, shape)?;
        let mut seen = cycle.clone();
        seen.sort_unstable();
        seen.dedup();
        if seen.len() != cycle.len() {
            return Err(format!("the cycle `({})` repeats a cell", escaped(&inner)));
        }
        if cycle.len() > 1 {
            out.push(cycle);
        }
        i = j + 1;
    }
    Ok(normalize_cycles(out))
}

/// Rotates each cycle to start at its smallest cell and sorts the cycles.
pub fn normalize_cycles(mut cycles: Vec<Vec<usize>>) -> Vec<Vec<usize>> {
    for c in &mut cycles {
        let k = (0..c.len()).min_by_key(|&i| c[i]).unwrap_or(0);
        c.rotate_left(k);
    }
    cycles.sort();
    cycles
}

#[cfg(test)]
mod tests {
    use super::*;

    const S67: Shape = Shape { rows: 6, cols: 7 };

    #[test]
    fn numbers_pairs_and_ranges() {
        assert_eq!(parse_cells("1 5, 9", S67).unwrap(), vec![0, 4, 8]);
        assert_eq!(parse_cells("3..1", S67).unwrap(), vec![2, 1, 0]);
        assert_eq!(parse_cells("(1,1) (2,7)", S67).unwrap(), vec![0, 13]);
        // Lam's belt on 6x7: down the first column, along the bottom, up the last.
        let belt = parse_cells("(1..6,1) (6,2..6) (6..1,7)", S67).unwrap();
        assert_eq!(belt.len(), 3 * 6 - 1);
        assert_eq!(&belt[..2], &[0, 7]);
        assert_eq!(&belt[5..8], &[35, 36, 37]);
        assert_eq!(*belt.last().unwrap(), 6);
        assert_eq!(parse_cells("(1..2,1..2)", S67).unwrap(), vec![0, 1, 7, 8]);
        assert_eq!(S67.format(&[0, 13], true), "(1,1) (2,7)");
        assert_eq!(S67.format(&[0, 13], false), "1 14");
    }

    #[test]
    fn bad_cells() {
        assert!(parse_cells("(7,1)", S67).unwrap_err().contains("outside"));
        assert!(parse_cells("43", S67).unwrap_err().contains("outside"));
        assert!(parse_cells("0", S67).unwrap_err().contains("outside"));
        assert!(parse_cells("(1 1)", S67).unwrap_err().contains("not a (row,col)"));
        assert!(parse_cells("(1,1", S67).unwrap_err().contains("without"));
        assert!(parse_cells("x", S67).unwrap_err().contains("not a number"));
        // Ranges are bounded by the board before they are expanded.
        let err = parse_cells("1..18446744073709551615", S67).unwrap_err();
        assert!(
            err.contains("cell 18446744073709551615 is outside the board (cells 1..42)"),
            "{err}"
        );
        let err = parse_cells("(1..4000000000,1)", S67).unwrap_err();
        assert!(err.contains("row 4000000000 is outside the board (rows 1..6)"), "{err}");
        assert!(parse_cells("(1,0)", S67).unwrap_err().contains("column 0 is outside"));
        // Many in-range ranges still cannot build a huge list.
        let many = "1..42 ".repeat(100);
        assert!(parse_cells(&many, S67).unwrap_err().contains("at most 4096 cells"));
        assert_eq!(parse_cells(&"1..42 ".repeat(97), S67).unwrap().len(), 97 * 42);
    }

    #[test]
    fn cycles_in_both_notations() {
        assert_eq!(parse_cycles("(9 5 1)(2 4)", S67).unwrap(), vec![vec![0, 8, 4], vec![1, 3]]);
        assert_eq!(parse_cycles("((2,4) (3,3))", S67).unwrap(), vec![vec![10, 16]]);
        assert!(parse_cycles("()", S67).unwrap().is_empty());
        assert!(parse_cycles("", S67).unwrap().is_empty());
        assert!(parse_cycles("(1 2 1)", S67).unwrap_err().contains("repeats"));
        assert!(parse_cycles("(1 2", S67).unwrap_err().contains("unbalanced"));
        assert!(parse_cycles("1 2", S67).is_err());
    }
}
