//! Boards and their text notation.
//!
//! A board is written row by row, rows separated by `/`, tiles numbered from 1 in book order:
//! `4 1 3 / 6 2 9 / 7 5 8`. Spinpossible writes an upside-down tile negative (`-5`). With
//! quarter-turn orientation a tile carries a suffix giving the way its top points: `^` upright
//! (may be omitted), `<` turned a quarter counter-clockwise, `v` upside-down, `>` a quarter
//! clockwise.

use crate::error::escaped;
use crate::{Error, Result};

/// How orientations are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoardStyle {
    /// Tiles have no orientation.
    Plain,
    /// Tiles are upright or upside-down (negative).
    Flip,
    /// Tiles turn in quarter turns (suffix `^ < v >`).
    Quarter,
}

/// Reads the tiles of a `rows x cols` board of any size, as [`Board::parse`] describes: the
/// tiles 0-based in book order, and their orientations.
pub fn parse_tiles(
    text: &str,
    rows: usize,
    cols: usize,
    style: BoardStyle,
) -> Result<(Vec<usize>, Vec<u8>)> {
    let n = rows * cols;
    let bad = |msg: String| Error::InvalidBoard(msg);
    let row_texts: Vec<&str> =
        if text.contains('/') { text.split('/').collect() } else { vec![text] };
    if row_texts.len() > 1 && row_texts.len() != rows {
        return Err(bad(format!(
            "expected {rows} rows separated by `/`, found {}",
            row_texts.len()
        )));
    }
    let mut tokens = Vec::with_capacity(n);
    for (r, row) in row_texts.iter().enumerate() {
        let row_tokens: Vec<&str> = row.split_whitespace().collect();
        if row_texts.len() > 1 && row_tokens.len() != cols {
            return Err(bad(format!(
                "row {} has {} tiles, expected {cols}",
                r + 1,
                row_tokens.len()
            )));
        }
        tokens.extend(row_tokens);
    }
    if tokens.len() != n {
        return Err(bad(format!("expected {n} tiles ({rows}x{cols}), found {}", tokens.len())));
    }
    let mut tiles = Vec::with_capacity(n);
    let mut orient = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    for tok in tokens {
        let (number, o) = split_orientation(tok, style)
            .ok_or_else(|| bad(format!("`{}` is not a tile of this puzzle", escaped(tok))))?;
        let k: usize =
            number.parse().map_err(|_| bad(format!("`{}` is not a tile number", escaped(tok))))?;
        if k == 0 || k > n {
            return Err(bad(format!("tile {k} is out of range 1..{n}")));
        }
        if std::mem::replace(&mut seen[k - 1], true) {
            return Err(bad(format!("tile {k} appears twice")));
        }
        tiles.push(k - 1);
        orient.push(o);
    }
    Ok((tiles, orient))
}

/// How quarter turns are written after a tile number: upright (may be left out), a quarter
/// counter-clockwise, upside-down, a quarter clockwise.
pub const QUARTER_MARKS: [char; 4] = ['^', '<', 'v', '>'];

/// A board: which tile stands on each cell and how it is turned.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Board {
    /// `tiles[p]` is the tile (0-based: tile k is written k+1) standing on cell p.
    pub tiles: Vec<u8>,
    /// `orient[p]` is the orientation of the tile standing on cell p (0 = upright).
    pub orient: Vec<u8>,
}

/// Sets to 0 the orientation `orient[p]` of every tile `tiles[p]` that `unseen` marks
/// (`unseen[tile]`; tiles past its end are seen): [`Board::without_unseen_turns`] on a
/// board's two halves, wherever they are stored.
pub fn clear_unseen_turns(tiles: &[u8], orient: &mut [u8], unseen: &[bool]) {
    if unseen.is_empty() {
        return;
    }
    for (o, &t) in orient.iter_mut().zip(tiles) {
        if unseen.get(t as usize) == Some(&true) {
            *o = 0;
        }
    }
}

impl Board {
    /// The board with the orientation of every tile that `unseen` marks (`unseen[tile]`;
    /// tiles past its end are seen) set to 0: boards that differ only there are one board.
    pub fn without_unseen_turns(mut self, unseen: &[bool]) -> Board {
        clear_unseen_turns(&self.tiles, &mut self.orient, unseen);
        self
    }

    /// The solved board of a `rows x cols` puzzle.
    pub fn solved(rows: usize, cols: usize) -> Board {
        let n = rows * cols;
        Board { tiles: (0..n as u8).collect(), orient: vec![0; n] }
    }

    /// Reads a board of `rows x cols` tiles. Rows are separated by `/`; without any `/`, the
    /// tiles are read in book order.
    pub fn parse(text: &str, rows: usize, cols: usize, style: BoardStyle) -> Result<Board> {
        let (tiles, orient) = parse_tiles(text, rows, cols, style)?;
        Ok(Board { tiles: tiles.iter().map(|&t| t as u8).collect(), orient })
    }

    /// Writes the board, rows separated by ` / `.
    pub fn format(&self, cols: usize, style: BoardStyle) -> String {
        let cells: Vec<String> = self
            .tiles
            .iter()
            .zip(&self.orient)
            .map(|(&t, &o)| {
                let k = t as usize + 1;
                match style {
                    BoardStyle::Plain => k.to_string(),
                    BoardStyle::Flip if o == 1 => format!("-{k}"),
                    BoardStyle::Flip => k.to_string(),
                    BoardStyle::Quarter if o == 0 => k.to_string(),
                    BoardStyle::Quarter => format!("{k}{}", QUARTER_MARKS[o as usize]),
                }
            })
            .collect();
        cells.chunks(cols).map(|row| row.join(" ")).collect::<Vec<_>>().join(" / ")
    }
}

/// Splits a token into its number and orientation, or `None` if the style forbids its marks.
fn split_orientation(tok: &str, style: BoardStyle) -> Option<(&str, u8)> {
    match style {
        BoardStyle::Plain => Some((tok, 0)),
        BoardStyle::Flip => Some(match tok.strip_prefix('-') {
            Some(rest) => (rest, 1),
            None => (tok, 0),
        }),
        BoardStyle::Quarter => {
            let last = tok.chars().last()?;
            match QUARTER_MARKS.iter().position(|&c| c == last) {
                Some(o) => Some((&tok[..tok.len() - last.len_utf8()], o as u8)),
                None => Some((tok, 0)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_plain() {
        let b = Board::parse("4 1 3 / 6 2 9 / 7 5 8", 3, 3, BoardStyle::Plain).unwrap();
        assert_eq!(b.tiles, vec![3, 0, 2, 5, 1, 8, 6, 4, 7]);
        assert_eq!(b.format(3, BoardStyle::Plain), "4 1 3 / 6 2 9 / 7 5 8");
    }

    #[test]
    fn round_trip_flip_and_quarter() {
        let b = Board::parse("-5 7 6 / 2 1 -9 / 4 8 3", 3, 3, BoardStyle::Flip).unwrap();
        assert_eq!(b.orient, vec![1, 0, 0, 0, 0, 1, 0, 0, 0]);
        assert_eq!(b.format(3, BoardStyle::Flip), "-5 7 6 / 2 1 -9 / 4 8 3");
        let q = Board::parse("1< 2 3v 4>", 2, 2, BoardStyle::Quarter).unwrap();
        assert_eq!(q.orient, vec![1, 0, 2, 3]);
        assert_eq!(q.format(2, BoardStyle::Quarter), "1< 2 / 3v 4>");
    }

    #[test]
    fn malformed_boards_are_rejected() {
        let p = |s| Board::parse(s, 3, 3, BoardStyle::Plain);
        assert!(p("1 2 3 / 4 5 6 / 7 8 8").unwrap_err().to_string().contains("twice"));
        assert!(p("1 2 3 / 4 5 6 / 7 8").unwrap_err().to_string().contains("row 3"));
        assert!(p("1 2 3 / 4 5 6 / 7 8 x").unwrap_err().to_string().contains("not a tile number"));
        assert!(p("1 2 3 / 4 5 6 / 7 8 10").unwrap_err().to_string().contains("out of range"));
        assert!(p("1 2 3 4 5 6 7 8").unwrap_err().to_string().contains("expected 9"));
        assert!(Board::parse("-1 2 3 4", 2, 2, BoardStyle::Plain).is_err());
    }
}
