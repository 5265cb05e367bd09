//! The cycle structure of one element: where its tiles go, written as cycles of cells, split
//! by checkerboard colour when the moves keep colours, and which tiles end turned.
//!
//! Cells are written 1-based in book order. A cycle `(1 5 9)` says the tile on cell 1 moves to
//! cell 5, the tile on 5 to 9 and the tile on 9 to 1. A cell's colour is the parity of
//! `row + col` (1-based), so cell 1 = (1,1) is *even*: Lam's `P_0`.

use crate::puzzle::{Move, Puzzle, PuzzleSpec};

/// A checkerboard colour class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Colour {
    /// `row + col` even (contains the top-left cell).
    Even,
    /// `row + col` odd.
    Odd,
}

impl Colour {
    /// The colour of 0-based cell `cell` on a board with `cols` columns.
    pub fn of(cell: usize, cols: usize) -> Colour {
        if (cell / cols + cell % cols).is_multiple_of(2) { Colour::Even } else { Colour::Odd }
    }

    /// `even` or `odd`.
    pub fn name(self) -> &'static str {
        match self {
            Colour::Even => "even",
            Colour::Odd => "odd",
        }
    }
}

/// The non-trivial cycles of a permutation of cells (`perm[i]` is where the tile on cell `i`
/// goes), each starting at its smallest cell, ordered by that cell. 0-based.
pub fn cycles<T: Copy + Into<usize>>(perm: &[T]) -> Vec<Vec<usize>> {
    let mut seen = vec![false; perm.len()];
    let mut out = Vec::new();
    for start in 0..perm.len() {
        if seen[start] || perm[start].into() == start {
            continue;
        }
        let mut cycle = Vec::new();
        let mut i = start;
        while !seen[i] {
            seen[i] = true;
            cycle.push(i);
            i = perm[i].into();
        }
        out.push(cycle);
    }
    out
}

/// The lengths of the non-trivial cycles, longest first: `[]` identity, `[2]` a
/// transposition, `[3]` a 3-cycle.
pub fn cycle_type<T: Copy + Into<usize>>(perm: &[T]) -> Vec<usize> {
    let mut t: Vec<usize> = cycles(perm).iter().map(|c| c.len()).collect();
    t.sort_unstable_by(|a, b| b.cmp(a));
    t
}

/// `(1 5 9)(2 4)` (1-based cells), or `()` for none.
pub fn format_cycles(cycles: &[Vec<usize>]) -> String {
    if cycles.is_empty() {
        return "()".into();
    }
    cycles
        .iter()
        .map(|c| {
            let cells: Vec<String> = c.iter().map(|x| (x + 1).to_string()).collect();
            format!("({})", cells.join(" "))
        })
        .collect()
}

/// Cycles of cells, 0-based.
pub type Cycles = Vec<Vec<usize>>;

/// The structure of one element on a puzzle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CycleStructure {
    /// Non-trivial cycles of cells, 0-based (see [`cycles`]).
    pub cycles: Vec<Vec<usize>>,
    /// The cycles on each colour class, when the puzzle's moves keep every tile on its colour
    /// (NRP with odd blocks): `(even, odd)`.
    pub by_colour: Option<(Cycles, Cycles)>,
    /// For each cell (0-based) whose tile ends turned, the cell and the turn: in quarter turns
    /// counter-clockwise for NRP with orientation, 1 (upside-down) for Spinpossible. Indexed by
    /// where the tile *ends*, like Sutherland's flip vector.
    pub turned: Vec<(usize, u8)>,
    /// Orientations a tile can take (1 none, 2 flips, 4 quarter turns).
    pub orient_mod: u8,
}

impl CycleStructure {
    /// The structure of `m` on `puzzle`.
    pub fn of(puzzle: &Puzzle, m: &Move) -> CycleStructure {
        let keeps_colours = matches!(puzzle.spec, PuzzleSpec::Nrp { block, .. } if block % 2 == 1);
        let colour_cols = keeps_colours.then_some(puzzle.cols);
        CycleStructure::of_parts(&m.perm, &m.twist, puzzle.orient_mod, colour_cols)
    }

    /// The structure of an element given as where each cell's tile goes (`perm`) and how
    /// much it turns on the way (`twist`, modulo `orient_mod`). With `colour_cols`, the
    /// cycles are also split by checkerboard colour of a board of that many columns.
    pub fn of_parts<T: Copy + Into<usize>>(
        perm: &[T],
        twist: &[u8],
        orient_mod: u8,
        colour_cols: Option<usize>,
    ) -> CycleStructure {
        let cycles = cycles(perm);
        let by_colour = colour_cols.map(|cols| {
            let (even, odd): (Vec<_>, Vec<_>) =
                cycles.iter().cloned().partition(|c| Colour::of(c[0], cols) == Colour::Even);
            (even, odd)
        });
        let mut turned: Vec<(usize, u8)> = (0..perm.len())
            .filter(|&i| !twist[i].is_multiple_of(orient_mod))
            .map(|i| (perm[i].into(), twist[i] % orient_mod))
            .collect();
        turned.sort_unstable();
        CycleStructure { cycles, by_colour, turned, orient_mod }
    }

    /// Lengths of the non-trivial cycles, longest first.
    pub fn cycle_type(&self) -> Vec<usize> {
        let mut t: Vec<usize> = self.cycles.iter().map(|c| c.len()).collect();
        t.sort_unstable_by(|a, b| b.cmp(a));
        t
    }

    /// One word for the positions: `identity`, `transposition`, `3-cycle` or `other`; with
    /// turned tiles, ` with N tiles turned` follows (`identity` needs no turned tile).
    pub fn summary(&self) -> String {
        let t = self.cycle_type();
        let word = match t.as_slice() {
            [] if self.turned.is_empty() => return "identity".into(),
            [] => "identity on positions",
            [2] => "transposition",
            [3] => "3-cycle",
            _ => "other",
        };
        if self.turned.is_empty() {
            word.into()
        } else {
            format!("{word} with {} tiles turned", self.turned.len())
        }
    }

    /// The cells (1-based) whose tiles end turned, with the turn for quarter turns:
    /// `2 3 5 6` or `4:+1 5:+3`; `none` if none.
    pub fn format_turned(&self) -> String {
        if self.turned.is_empty() {
            return "none".into();
        }
        let parts: Vec<String> =
            self.turned
                .iter()
                .map(|&(c, t)| {
                    if self.orient_mod == 2 {
                        (c + 1).to_string()
                    } else {
                        format!("{}:+{t}", c + 1)
                    }
                })
                .collect();
        parts.join(" ")
    }

    /// One line: `cycles (1 5 9)(2 4); colour classes: even (1 5 9) odd (2 4); flips 2 3`.
    pub fn describe(&self) -> String {
        let mut s = format!("cycles {}", format_cycles(&self.cycles));
        if let Some((even, odd)) = &self.by_colour {
            s += &format!(
                "; colour classes: even {} odd {}",
                format_cycles(even),
                format_cycles(odd)
            );
        }
        match self.orient_mod {
            2 => s += &format!("; flipped tiles end on {}", self.format_turned()),
            4 => s += &format!("; turned tiles {}", self.format_turned()),
            _ => {}
        }
        s
    }
}

/// The permutation restricted to one colour class, as cycles, or `None` if the element moves
/// a tile of that class onto the other colour.
pub fn colour_cycles(perm: &[u8], cols: usize, colour: Colour) -> Option<Vec<Vec<usize>>> {
    let inside = |c: usize| Colour::of(c, cols) == colour;
    if (0..perm.len()).any(|c| inside(c) && !inside(perm[c] as usize)) {
        return None;
    }
    Some(cycles(perm).into_iter().filter(|c| inside(c[0])).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::puzzle::sequence::Env;

    #[test]
    fn cycles_of_a_permutation() {
        // 0->4->8->0, 1->3->1.
        let perm = [4u8, 3, 2, 1, 8, 5, 6, 7, 0];
        assert_eq!(cycles(&perm), vec![vec![0, 4, 8], vec![1, 3]]);
        assert_eq!(cycle_type(&perm), vec![3, 2]);
        assert_eq!(format_cycles(&cycles(&perm)), "(1 5 9)(2 4)");
        assert_eq!(format_cycles(&[]), "()");
        assert_eq!(cycle_type(&[0u8, 1, 2]), Vec::<usize>::new());
    }

    #[test]
    fn colour_classes_for_odd_blocks() {
        let p = Puzzle::parse("nrp:3x4:3", None).unwrap();
        let m = Env::new().eval_text(&p, "R1C1").unwrap();
        let s = CycleStructure::of(&p, &m);
        let (even, odd) = s.by_colour.clone().unwrap();
        // Corners of the left block (cells 1 3 11 9) are even; edges (2 7 10 5) odd.
        assert_eq!(format_cycles(&even), "(1 9 11 3)");
        assert_eq!(format_cycles(&odd), "(2 5 10 7)");
        assert_eq!(s.summary(), "other");
        assert!(s.describe().contains("colour classes: even (1 9 11 3) odd (2 5 10 7)"));
        assert!(colour_cycles(&m.perm, 4, Colour::Odd).is_some());
        // A 2x2 block breaks colours.
        let q = Puzzle::parse("nrp:3x3:2", None).unwrap();
        let m = Env::new().eval_text(&q, "R1C1").unwrap();
        assert!(CycleStructure::of(&q, &m).by_colour.is_none());
        assert!(colour_cycles(&m.perm, 3, Colour::Even).is_none());
    }

    #[test]
    fn flips_are_reported_where_tiles_end() {
        let p = Puzzle::parse("spin:3x3", None).unwrap();
        let m = Env::new().eval_text(&p, "[2,6]").unwrap();
        let s = CycleStructure::of(&p, &m);
        assert_eq!(format_cycles(&s.cycles), "(2 6)(3 5)");
        assert_eq!(s.format_turned(), "2 3 5 6");
        assert_eq!(s.summary(), "other with 4 tiles turned");
        let one = Env::new().eval_text(&p, "[5,5]").unwrap();
        assert_eq!(
            CycleStructure::of(&p, &one).summary(),
            "identity on positions with 1 tiles turned"
        );
        let id = Env::new().eval_text(&p, "[1,2]^2").unwrap();
        assert_eq!(CycleStructure::of(&p, &id).summary(), "identity");
        let q = Puzzle::parse("nrp:2x2:2:orient", None).unwrap();
        let m = Env::new().eval_text(&q, "R1C1").unwrap();
        assert_eq!(CycleStructure::of(&q, &m).format_turned(), "1:+1 2:+1 3:+1 4:+1");
    }
}
