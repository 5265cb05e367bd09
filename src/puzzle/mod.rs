//! The puzzle model: positions, moves and boards.
//!
//! Every puzzle twirl knows is reduced to one shape, [`Puzzle`]: `n_positions` cells, tiles that
//! may carry an orientation modulo `orient_mod`, and a list of [`Move`]s, each a permutation of
//! the cells plus a turn added to every tile it carries. NRP/Twiddle ([`nrp`]) and
//! Spinpossible ([`spin`]) are constructors of that shape; [`definition`] reads and writes
//! puzzles in the ksolve/twsearch `.tws` format (and writes the built-in ones). Everything
//! downstream (analysis, ranking, search) sees only this shape.

pub mod board;
pub mod defined;
pub mod definition;
pub mod goals;
pub mod large;
pub mod nrp;
pub mod sequence;
pub mod spec;
pub mod spin;
pub mod subset;
pub mod wide;

pub use board::Board;
pub use spec::{Metric, PuzzleSpec};

/// One move: where every cell's tile goes and how much it turns on the way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Move {
    /// The name in the puzzle's notation (`R2C3'`, `[1,6]`).
    pub name: String,
    /// The tile standing at cell `i` moves to cell `perm[i]`.
    pub perm: Vec<u8>,
    /// The tile leaving cell `i` turns by `twist[i]` (modulo the puzzle's `orient_mod`).
    pub twist: Vec<u8>,
}

impl Move {
    /// The move that undoes this one, named `name`.
    pub fn inverse(&self, orient_mod: u8, name: String) -> Move {
        let n = self.perm.len();
        let mut perm = vec![0u8; n];
        let mut twist = vec![0u8; n];
        for i in 0..n {
            let j = self.perm[i] as usize;
            perm[j] = i as u8;
            twist[j] = (orient_mod - self.twist[i] % orient_mod) % orient_mod;
        }
        Move { name, perm, twist }
    }

    /// The element that leaves every one of `n` cells alone, named `()`.
    pub fn identity(n: usize) -> Move {
        Move { name: "()".into(), perm: (0..n as u8).collect(), twist: vec![0; n] }
    }

    /// This move followed by `next`: the product read left to right (the tile on cell `i` goes
    /// to `self.perm[i]`, then on to `next.perm[self.perm[i]]`, turning on both legs). The
    /// product is unnamed: names of long products would grow without bound.
    pub fn then(&self, next: &Move, orient_mod: u8) -> Move {
        let n = self.perm.len();
        let mut perm = vec![0u8; n];
        let mut twist = vec![0u8; n];
        for i in 0..n {
            let j = self.perm[i] as usize;
            perm[i] = next.perm[j];
            twist[i] = ((self.twist[i] as u16 + next.twist[j] as u16) % orient_mod as u16) as u8;
        }
        Move { name: String::new(), perm, twist }
    }

    /// The move repeated `k` times (`k < 0`: its inverse repeated `-k` times), by squaring, so
    /// exponents of any size cost at most about 128 products. The result is unnamed.
    pub fn power(&self, k: i64, orient_mod: u8) -> Move {
        if k < 0 {
            self.inverse(orient_mod, String::new())
                .power_unsigned(k.unsigned_abs().into(), orient_mod)
        } else {
            self.power_unsigned(k.unsigned_abs().into(), orient_mod)
        }
    }

    /// The move repeated `k` times, by squaring. The result is unnamed.
    pub fn power_unsigned(&self, k: u128, orient_mod: u8) -> Move {
        power_by_squaring(Move::identity(self.perm.len()), self, k, |a, b| a.then(b, orient_mod))
    }

    /// The order of the move: the fewest repetitions (at least 1) that leave every tile where it
    /// is, unturned. A cycle of `c` cells whose turns add up to `t` needs
    /// `c * orient_mod / gcd(t, orient_mod)` repetitions; the order is the lcm over the cycles.
    /// It fits a `u128` by far: with at most 256 cells the lcm of cycle lengths is below 2^52
    /// (Landau's function) and the turns multiply it by at most `orient_mod`.
    pub fn order(&self, orient_mod: u8) -> u128 {
        let m = u128::from(orient_mod.max(1));
        let n = self.perm.len();
        let mut seen = vec![false; n];
        let mut order: u128 = 1;
        for start in 0..n {
            if seen[start] {
                continue;
            }
            let (mut len, mut turn, mut cell) = (0u128, 0u128, start);
            while !seen[cell] {
                seen[cell] = true;
                len += 1;
                turn += u128::from(self.twist[cell]);
                cell = self.perm[cell] as usize;
            }
            let cycle_order = len * (m / gcd(turn % m, m));
            order = order / gcd(order, cycle_order) * cycle_order;
        }
        order
    }

    /// The board this move makes of `board`: each tile moves to `perm` of its cell, turning
    /// by the cell's `twist` (orientations modulo `orient_mod`).
    pub fn applied_to(&self, board: &Board, orient_mod: u8) -> Board {
        let mut out = board.clone();
        for (i, (&j, &t)) in self.perm.iter().zip(&self.twist).enumerate() {
            let j = j as usize;
            out.tiles[j] = board.tiles[i];
            out.orient[j] = (board.orient[i] + t) % orient_mod;
        }
        out
    }

    /// Whether two moves act the same (names aside).
    pub fn same_action(&self, other: &Move) -> bool {
        self.perm == other.perm && self.twist == other.twist
    }

    /// Whether the move leaves every tile where it is, unturned.
    pub fn is_identity(&self) -> bool {
        self.perm.iter().enumerate().all(|(i, &p)| p as usize == i)
            && self.twist.iter().all(|&t| t == 0)
    }
}

/// `x` multiplied `k` times into `identity` by `times`, by squaring: at most about 256
/// products for any `k` (moves of byte and of wide cells alike).
pub(crate) fn power_by_squaring<T: Clone>(
    identity: T,
    x: &T,
    mut k: u128,
    times: impl Fn(&T, &T) -> T,
) -> T {
    let (mut acc, mut sq) = (identity, x.clone());
    while k > 0 {
        if k & 1 == 1 {
            acc = times(&acc, &sq);
        }
        k >>= 1;
        if k > 0 {
            sq = times(&sq, &sq);
        }
    }
    acc
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// A puzzle reduced to cells, orientations and moves.
#[derive(Clone, Debug)]
pub struct Puzzle {
    /// The specification it was built from.
    pub spec: PuzzleSpec,
    /// The metric: which moves count as one.
    pub metric: Metric,
    /// Rows of the board.
    pub rows: usize,
    /// Columns of the board.
    pub cols: usize,
    /// Orientations a tile can take: 1 (none), 2 (Spinpossible flips) or 4 (quarter turns).
    pub orient_mod: u8,
    /// The moves of the metric, each costing one.
    pub moves: Vec<Move>,
    /// Whether every move's inverse is also a move (the move graph is undirected).
    pub undirected: bool,
}

impl Puzzle {
    /// Builds the puzzle a spec describes, in the given metric.
    pub fn new(spec: &PuzzleSpec, metric: Metric) -> crate::Result<Puzzle> {
        let moves = match spec {
            PuzzleSpec::Nrp { rows, cols, block, oriented } => {
                spec.check_metric(metric)?;
                nrp::moves(*rows, *cols, *block, *oriented, metric)
            }
            PuzzleSpec::Spin { rows, cols, types } => {
                spec.check_metric(metric)?;
                spin::moves(*rows, *cols, types)
            }
            PuzzleSpec::Def(d) => d.moves(metric)?,
        };
        let (rows, cols) = spec.dims();
        let orient_mod = spec.orient_mod();
        // A set of actions, not a scan per move: a 15x17 Spinpossible board has 18,360 spins.
        let actions: std::collections::HashSet<(&[u8], &[u8])> =
            moves.iter().map(|m| (m.perm.as_slice(), m.twist.as_slice())).collect();
        let undirected = moves.iter().all(|m| {
            let inv = m.inverse(orient_mod, String::new());
            actions.contains(&(inv.perm.as_slice(), inv.twist.as_slice()))
        });
        Ok(Puzzle { spec: spec.clone(), metric, rows, cols, orient_mod, moves, undirected })
    }

    /// Parses a spec string and builds the puzzle (`nrp:3x3:2`, `spin:3x3:1x1,1x2`).
    pub fn parse(spec: &str, metric: Option<Metric>) -> crate::Result<Puzzle> {
        let spec = PuzzleSpec::parse(spec)?;
        let metric = metric.unwrap_or_else(|| spec.default_metric());
        Puzzle::new(&spec, metric)
    }

    /// Number of cells (and of tiles).
    pub fn n_positions(&self) -> usize {
        self.rows * self.cols
    }

    /// The solved board: tile k at cell k, every tile upright.
    pub fn solved(&self) -> Board {
        match &self.spec {
            PuzzleSpec::Def(d) => d.solved(),
            _ => Board::solved(self.rows, self.cols),
        }
    }

    /// The board as a search sees it: the orientation of every piece whose orientation is
    /// not seen (`?` in a definition's solved state) set to 0, as moves leave it anything.
    pub fn seen_part(&self, board: Board) -> Board {
        match self.defined() {
            Some(d) => board.without_unseen_turns(d.unseen_orientations()),
            None => board,
        }
    }

    /// Whether `board` is the solved board, but for the orientations not seen.
    pub fn is_solved(&self, board: &Board) -> bool {
        self.seen_part(board.clone()) == self.solved()
    }

    /// The definition, for a puzzle read from a file.
    pub fn defined(&self) -> Option<&defined::Defined> {
        match &self.spec {
            PuzzleSpec::Def(d) => Some(d),
            _ => None,
        }
    }

    /// For a puzzle read from a file: hex xxh3-64 of its definition as twirl writes it
    /// (comments and spacing aside), so files recording work on it (tables, sample records)
    /// notice the file replaced by another puzzle under the same name.
    pub fn definition_digest(&self) -> Option<String> {
        self.defined().map(|d| {
            format!("{:016x}", xxhash_rust::xxh3::xxh3_64(d.definition.to_tws().as_bytes()))
        })
    }

    /// Whether two boards can differ only by swapping identical pieces (a definition's
    /// repeated labels): boards are then not group elements.
    pub fn has_identical_pieces(&self) -> bool {
        self.defined().is_some_and(|d| d.has_identical_pieces())
    }

    /// The moves undoing each move, in the same order. A search from the solved board along
    /// these finds, for every board, the number of moves that *solve* it, even when the move
    /// graph is directed (clockwise-only turns).
    pub fn inverse_moves(&self) -> Vec<Move> {
        self.moves.iter().map(|m| m.inverse(self.orient_mod, format!("({})^-1", m.name))).collect()
    }

    /// Applies a move to a board.
    pub fn apply(&self, board: &Board, m: &Move) -> Board {
        m.applied_to(board, self.orient_mod)
    }

    /// Reads a board in this puzzle's notation (see [`Board::parse`]).
    pub fn parse_board(&self, text: &str) -> crate::Result<Board> {
        match self.defined() {
            Some(d) => d.parse_board(text),
            None => Board::parse(text, self.rows, self.cols, self.spec.board_style()),
        }
    }

    /// Writes a board in this puzzle's notation.
    pub fn format_board(&self, board: &Board) -> String {
        match self.defined() {
            Some(d) => d.format_board(board),
            None => board.format(self.cols, self.spec.board_style()),
        }
    }
}
