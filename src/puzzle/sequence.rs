//! Move sequences as the sources write them, parsed and evaluated to one element (a [`Move`]:
//! where every tile goes and how it turns).
//!
//! # Notation
//! - Moves by their puzzle names: NRP blocks `R2C3` (a counter-clockwise quarter turn of the
//!   block whose top-left cell is row 2, column 3), Spinpossible spins `[1,6]`.
//! - Letters: one ASCII letter each (`X`, `Y`, `C`), bound to moves or defined as
//!   sub-sequences by the caller (see [`Env`]). `XYYX` is four letters; `R2C3` is a block name
//!   because `R` is followed by a digit.
//! - Powers: `X^2`, `X^-1`, `X^{-1}` (Lee's LaTeX), `X'` (inverse, `R2C3'` is the clockwise
//!   turn), and a bare number after a move, `R2C3 2` (Twiddle's half turn). Powers stack:
//!   `X'^2` is `X^-2`.
//! - Parentheses group: `(X Y^2 X^-1 Y X^-1 Y^2)^35`. Juxtaposition is the product; spaces and
//!   `*` between factors are optional. The empty sequence is the identity.
//!
//! # Limits
//! Any input gives an element or an error, never a crash or a hang: parentheses nest at most
//! [`MAX_NESTING`] deep (and letters defined through other letters at most 256 levels of
//! parentheses and definitions together), every definition is evaluated once, and exponents of
//! any size are exact, kept modulo a multiple of every element's order ([`Exponent`]).
//!
//! # Order
//! twirl reads a product left to right: the first factor written acts first (Lam's "we read
//! algorithms from left to right", Sutherland's "the permutation αβ applies α and then β").
//! [`Order::RightToLeft`] evaluates the same text the other way (function composition, the
//! rightmost factor first), for sources or readings that need it.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use num_bigint::BigUint;

use super::{Move, Puzzle, PuzzleSpec, nrp, spin};
use crate::error::escaped;
use crate::{Error, Result};

/// How deep parentheses may nest (and, while evaluating, parentheses and letter definitions
/// together). Sources nest three or four levels; the limit keeps the recursive parser and
/// evaluator far from the stack's end even on a test thread's 2 MiB stack.
pub const MAX_NESTING: usize = 64;

/// How deep evaluation may go: groups inside letter definitions inside groups... A definition
/// parses within [`MAX_NESTING`], but letters defined through other letters stack their
/// depths; 256 frames of the evaluator still use well under 1 MiB of stack.
const MAX_EVAL_DEPTH: usize = 4 * MAX_NESTING;

/// Which factor of a written product acts first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Order {
    /// The first factor written acts first (twirl's convention).
    LeftToRight,
    /// The last factor written acts first (composition of functions).
    RightToLeft,
}

impl Order {
    /// `left-to-right` or `right-to-left`.
    pub fn name(self) -> &'static str {
        match self {
            Order::LeftToRight => "left-to-right",
            Order::RightToLeft => "right-to-left",
        }
    }

    /// The other order.
    pub fn flipped(self) -> Order {
        match self {
            Order::LeftToRight => Order::RightToLeft,
            Order::RightToLeft => Order::LeftToRight,
        }
    }

    /// Parses `left-to-right` or `right-to-left`.
    pub fn parse(text: &str) -> Result<Order> {
        match text {
            "left-to-right" => Ok(Order::LeftToRight),
            "right-to-left" => Ok(Order::RightToLeft),
            _ => Err(Error::InvalidSequence {
                text: escaped(text),
                reason: "unknown order (expected left-to-right or right-to-left)".into(),
            }),
        }
    }
}

/// What a factor is before its power.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Term {
    /// A move by its puzzle name: `R2C3` or `[1,6]`.
    Move(String),
    /// A letter to be looked up in the [`Env`].
    Letter(char),
    /// A parenthesised product.
    Group(Vec<Factor>),
}

/// A term raised to a power.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Factor {
    /// The base.
    pub term: Term,
    /// The exponent.
    pub power: Exponent,
}

/// An exponent of any size, exact: it is kept modulo [`Exponent::period`], a multiple of the
/// order of every element of every puzzle, so `X^k` and `X^(k mod period)` are the same
/// element and `X^-1` is stored as `period - 1`. Evaluation reduces it further modulo the
/// order of the element raised ([`Move::order`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exponent(BigUint);

impl Exponent {
    /// A multiple of every element's order: lcm(1..=65,536) x lcm(1..=256). An element's
    /// order is the lcm over its cycles of `length * turns`, where a cycle has at most
    /// 65,536 cells (NRP boards of any size hold at most that many) and its turns divide the
    /// orientation count (at most 256), so each term divides the product.
    pub fn period() -> &'static BigUint {
        static PERIOD: OnceLock<BigUint> = OnceLock::new();
        PERIOD.get_or_init(|| lcm_up_to(MAX_CYCLE) * lcm_up_to(256))
    }

    /// The exponent `k`.
    pub fn from_i64(k: i64) -> Exponent {
        let magnitude = Exponent(BigUint::from(k.unsigned_abs()) % Exponent::period());
        if k < 0 { magnitude.negated() } else { magnitude }
    }

    /// Reads decimal digits, reducing as it goes so a long literal costs time linear in its
    /// length (a whole-number parse of 100,000 digits would be quadratic).
    fn from_digits(digits: &str) -> Exponent {
        let period = Exponent::period();
        let mut acc = BigUint::ZERO;
        for chunk in digits.as_bytes().chunks(18) {
            let value: u64 = chunk.iter().fold(0, |v, d| v * 10 + u64::from(d - b'0'));
            acc = (acc * 10u64.pow(chunk.len() as u32) + value) % period;
        }
        Exponent(acc)
    }

    /// `-k`.
    fn negated(&self) -> Exponent {
        Exponent((Exponent::period() - &self.0) % Exponent::period())
    }

    /// `k * other` (stacked powers: `X^a^b` is `X^(a*b)`).
    fn times(&self, other: &Exponent) -> Exponent {
        Exponent(&self.0 * &other.0 % Exponent::period())
    }

    /// The exponent modulo `order`, as a number between 0 and `order - 1`.
    pub fn modulo(&self, order: u128) -> u128 {
        let r = self.residue(&BigUint::from(order));
        r.iter_u64_digits().rev().fold(0u128, |acc, d| (acc << 64) | u128::from(d))
    }

    /// The exponent modulo an order of any size (`order > 0`).
    pub fn residue(&self, order: &BigUint) -> BigUint {
        &self.0 % order
    }
}

/// The longest cycle [`Exponent::period`] provides for: the cells of the largest board.
const MAX_CYCLE: u32 = 1 << 16;

/// lcm(1..=n): the product of the largest power of each prime up to `n` (a sieve).
fn lcm_up_to(n: u32) -> BigUint {
    let n = n as usize;
    let mut composite = vec![false; n + 1];
    let mut lcm = BigUint::from(1u32);
    for p in 2..=n {
        if composite[p] {
            continue;
        }
        for multiple in (p * p..=n).step_by(p) {
            composite[multiple] = true;
        }
        let mut power = p;
        while power * p <= n {
            power *= p;
        }
        lcm *= power;
    }
    lcm
}

/// A parsed sequence: a product of factors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sequence {
    /// The text it was read from.
    pub text: String,
    /// The factors, in written order.
    pub factors: Vec<Factor>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    Move(String),
    Letter(char),
    Open,
    Close,
    Power(Exponent),
    Inverse,
}

impl Sequence {
    /// Parses the notation described in the module docs.
    pub fn parse(text: &str) -> Result<Sequence> {
        let bad = |reason: String| Error::InvalidSequence { text: escaped(text), reason };
        let tokens = tokenize(text).map_err(bad)?;
        let mut pos = 0;
        let factors = parse_product(&tokens, &mut pos, 0).map_err(bad)?;
        if pos < tokens.len() {
            // parse_product stops only at a `)` it cannot match.
            return Err(bad("unbalanced parenthesis: `)` without a matching `(`".into()));
        }
        Ok(Sequence { text: text.into(), factors })
    }

    /// Every letter the sequence uses.
    pub fn letters(&self) -> BTreeSet<char> {
        fn walk(fs: &[Factor], out: &mut BTreeSet<char>) {
            for f in fs {
                match &f.term {
                    Term::Letter(c) => {
                        out.insert(*c);
                    }
                    Term::Group(g) => walk(g, out),
                    Term::Move(_) => {}
                }
            }
        }
        let mut out = BTreeSet::new();
        walk(&self.factors, &mut out);
        out
    }
}

fn tokenize(text: &str) -> std::result::Result<Vec<Token>, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let number = |i: &mut usize| -> std::result::Result<Exponent, String> {
        let start = *i;
        while *i < chars.len() && chars[*i].is_ascii_digit() {
            *i += 1;
        }
        let digits: String = chars[start..*i].iter().collect();
        if digits.is_empty() {
            return Err(format!("expected a number at column {}", start + 1));
        }
        Ok(Exponent::from_digits(&digits))
    };
    while i < chars.len() {
        let c = chars[i];
        match c {
            _ if c.is_whitespace() || c == '*' => i += 1,
            '(' => {
                out.push(Token::Open);
                i += 1;
            }
            ')' => {
                out.push(Token::Close);
                i += 1;
            }
            '\'' => {
                out.push(Token::Inverse);
                i += 1;
            }
            '^' => {
                i += 1;
                let braced = i < chars.len() && chars[i] == '{';
                if braced {
                    i += 1;
                }
                let negative = i < chars.len() && chars[i] == '-';
                if negative || (i < chars.len() && chars[i] == '+') {
                    i += 1;
                }
                let k = number(&mut i).map_err(|e| format!("after `^`: {e}"))?;
                if braced {
                    if i >= chars.len() || chars[i] != '}' {
                        return Err(format!("expected `}}` at column {}", i + 1));
                    }
                    i += 1;
                }
                out.push(Token::Power(if negative { k.negated() } else { k }));
            }
            '0'..='9' => {
                let k = number(&mut i)?;
                out.push(Token::Power(k));
            }
            '[' => {
                let start = i;
                while i < chars.len() && chars[i] != ']' {
                    i += 1;
                }
                if i == chars.len() {
                    return Err(format!("unclosed `[` at column {}", start + 1));
                }
                i += 1;
                let inner: String =
                    chars[start + 1..i - 1].iter().filter(|c| !c.is_whitespace()).collect();
                let ok = inner.split_once(',').is_some_and(|(a, b)| {
                    !a.is_empty()
                        && !b.is_empty()
                        && a.chars().all(|c| c.is_ascii_digit())
                        && b.chars().all(|c| c.is_ascii_digit())
                });
                if !ok {
                    let raw: String = chars[start..i].iter().collect();
                    return Err(format!("`{}` is not a spin (expected [p1,p2])", escaped(&raw)));
                }
                out.push(Token::Move(format!("[{inner}]")));
            }
            'R' if i + 1 < chars.len() && chars[i + 1].is_ascii_digit() => {
                let start = i;
                i += 1;
                while i < chars.len() && chars[i].is_ascii_digit() {
                    i += 1;
                }
                let has_col =
                    i + 1 < chars.len() && chars[i] == 'C' && chars[i + 1].is_ascii_digit();
                if !has_col {
                    let raw: String = chars[start..i].iter().collect();
                    return Err(format!("`{raw}` is not a block name (expected R<row>C<col>)"));
                }
                i += 1;
                while i < chars.len() && chars[i].is_ascii_digit() {
                    i += 1;
                }
                out.push(Token::Move(chars[start..i].iter().collect()));
            }
            _ if c.is_ascii_alphabetic() => {
                out.push(Token::Letter(c));
                i += 1;
            }
            _ => {
                let shown = escaped(&c.to_string());
                return Err(format!("unexpected `{shown}` at column {}", i + 1));
            }
        }
    }
    Ok(out)
}

fn parse_product(
    tokens: &[Token],
    pos: &mut usize,
    depth: usize,
) -> std::result::Result<Vec<Factor>, String> {
    let mut factors: Vec<Factor> = Vec::new();
    while *pos < tokens.len() {
        let term = match &tokens[*pos] {
            Token::Close if depth > 0 => return Ok(factors),
            Token::Close => return Err("unbalanced parenthesis: `)` without a matching `(`".into()),
            Token::Open => {
                if depth >= MAX_NESTING {
                    return Err(format!("parentheses nested more than {MAX_NESTING} deep"));
                }
                *pos += 1;
                let inner = parse_product(tokens, pos, depth + 1)?;
                if *pos >= tokens.len() {
                    return Err("unbalanced parenthesis: `(` is never closed".into());
                }
                Term::Group(inner)
            }
            Token::Move(name) => Term::Move(name.clone()),
            Token::Letter(c) => Term::Letter(*c),
            Token::Power(_) | Token::Inverse => {
                return Err("an exponent or `'` must follow a move, a letter or `)`".into());
            }
        };
        *pos += 1;
        let mut power = Exponent::from_i64(1);
        while *pos < tokens.len() {
            power = match &tokens[*pos] {
                Token::Power(k) => power.times(k),
                Token::Inverse => power.negated(),
                _ => break,
            };
            *pos += 1;
        }
        factors.push(Factor { term, power });
    }
    if depth > 0 {
        return Err("unbalanced parenthesis: `(` is never closed".into());
    }
    Ok(factors)
}

/// Looks up one move by its puzzle name, on the puzzle's board: NRP `R2C3` (a quarter turn
/// counter-clockwise, whatever the metric) or Spinpossible `[p1,p2]` (a spin of one of the
/// puzzle's spin types).
pub fn named_move(puzzle: &Puzzle, name: &str) -> std::result::Result<Move, String> {
    match &puzzle.spec {
        PuzzleSpec::Nrp { rows, cols, block, oriented } => {
            let Some((r, c)) = block_coords(name) else {
                return Err(format!(
                    "`{name}` is not a move of {} (blocks are named R<row>C<col>)",
                    puzzle.spec
                ));
            };
            let (last_r, last_c) = (rows - block + 1, cols - block + 1);
            if r == 0 || c == 0 || r > last_r || c > last_c {
                return Err(format!(
                    "block {name} is outside the board: {} has {block}x{block} blocks R1C1..R{last_r}C{last_c}",
                    puzzle.spec
                ));
            }
            let mut m = nrp::block_turn(*rows, *cols, *block, r - 1, c - 1, 1);
            if !oriented {
                m.twist.iter_mut().for_each(|t| *t = 0);
            }
            Ok(m)
        }
        PuzzleSpec::Spin { rows, cols, types } => {
            let Some((p1, p2)) = spin_cells(name) else {
                return Err(format!(
                    "`{name}` is not a move of {} (spins are written [p1,p2])",
                    puzzle.spec
                ));
            };
            let n = rows * cols;
            if p1 == 0 || p2 == 0 || p1 > n || p2 > n {
                return Err(format!("spin {name} is outside the board: cells are 1..{n}"));
            }
            let (r1, c1, r2, c2) =
                ((p1 - 1) / cols, (p1 - 1) % cols, (p2 - 1) / cols, (p2 - 1) % cols);
            if r1 > r2 || c1 > c2 {
                return Err(format!(
                    "spin {name}: cell {p1} must be the top-left and {p2} the bottom-right corner"
                ));
            }
            let (h, w) = (r2 - r1 + 1, c2 - c1 + 1);
            let ty = super::spec::SpinType { short: h.min(w), long: h.max(w) };
            if !types.contains(&ty) {
                return Err(format!("spin {name} ({h}x{w}) is not a move of {}", puzzle.spec));
            }
            Ok(spin::spin(*rows, *cols, r1, c1, r2, c2))
        }
        PuzzleSpec::Def(d) => d.sequence(name).map_err(|e| e.to_string()),
    }
}

fn block_coords(name: &str) -> Option<(usize, usize)> {
    let rest = name.strip_prefix('R')?;
    let (r, c) = rest.split_once('C')?;
    Some((r.parse().ok()?, c.parse().ok()?))
}

fn spin_cells(name: &str) -> Option<(usize, usize)> {
    let inner = name.strip_prefix('[')?.strip_suffix(']')?;
    let (a, b) = inner.split_once(',')?;
    Some((a.trim().parse().ok()?, b.trim().parse().ok()?))
}

/// Splits `X=R2C1,S=[1,6]` at the commas outside brackets and parentheses.
fn split_list(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in text.char_indices() {
        match c {
            '[' | '(' | '{' => depth += 1,
            ']' | ')' | '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&text[start..]);
    out.into_iter().filter(|s| !s.trim().is_empty()).collect()
}

/// `LETTER=TEXT`, both trimmed.
fn split_binding(text: &str) -> Result<(&str, &str)> {
    text.split_once('=').map(|(l, v)| (l.trim(), v.trim())).ok_or_else(|| Error::InvalidSequence {
        text: escaped(text),
        reason: "expected a binding LETTER=MOVES".into(),
    })
}

/// What the letters of a sequence mean, and how to read products.
///
/// *Bound* letters stand for letter-free sequences (`X = "R2C1"`, Lee's `A = "R1C1'"`, or
/// `I = ""`); *defined* letters stand for sub-sequences that may use other letters
/// (`C = "(Y X)^4"`). [`Env::mirrored`] turns every bound letter into its inverse: the reading
/// of a source whose letters turn the other way.
#[derive(Clone, Debug)]
pub struct Env {
    /// Letter -> the element it stands for.
    bound: BTreeMap<char, Move>,
    /// Letter -> sub-sequence.
    defined: BTreeMap<char, Sequence>,
    /// Which factor acts first.
    pub order: Order,
}

impl Env {
    /// No letters, products read left to right.
    pub fn new() -> Env {
        Env { bound: BTreeMap::new(), defined: BTreeMap::new(), order: Order::LeftToRight }
    }

    /// Binds `letter` to a letter-free sequence of the puzzle's moves.
    pub fn bind(&mut self, puzzle: &Puzzle, letter: &str, text: &str) -> Result<()> {
        let c = single_letter(letter)?;
        let seq = Sequence::parse(text)?;
        if let Some(l) = seq.letters().into_iter().next() {
            return Err(Error::InvalidSequence {
                text: escaped(text),
                reason: format!(
                    "the binding of {c} uses the letter {l}; bind letters to moves (use a definition for sub-sequences)"
                ),
            });
        }
        let element = Env::new().with_order(self.order).eval(puzzle, &seq)?;
        self.defined.remove(&c);
        self.bound.insert(c, element);
        Ok(())
    }

    /// Binds every `LETTER=MOVES` of a comma-separated list (`X=R2C1,S=[1,6]`; commas inside
    /// brackets and parentheses belong to the moves), as [`Env::bind`].
    pub fn bind_list(&mut self, puzzle: &Puzzle, list: &str) -> Result<()> {
        for item in split_list(list) {
            let (letter, text) = split_binding(item)?;
            self.bind(puzzle, letter, text)?;
        }
        Ok(())
    }

    /// Defines every `LETTER=SEQUENCE` of a comma-separated list, as [`Env::define`].
    pub fn define_list(&mut self, list: &str) -> Result<()> {
        for item in split_list(list) {
            let (letter, text) = split_binding(item)?;
            self.define(letter, text)?;
        }
        Ok(())
    }

    /// Defines `letter` as a sub-sequence that may use other letters.
    pub fn define(&mut self, letter: &str, text: &str) -> Result<()> {
        let c = single_letter(letter)?;
        let seq = Sequence::parse(text)?;
        self.bound.remove(&c);
        self.defined.insert(c, seq);
        Ok(())
    }

    /// The same letters with products read in `order`.
    pub fn with_order(mut self, order: Order) -> Env {
        self.order = order;
        self
    }

    /// The same environment with every bound letter replaced by its inverse (letters that turn
    /// clockwise instead of counter-clockwise).
    pub fn mirrored(&self, orient_mod: u8) -> Env {
        let mut out = self.clone();
        for m in out.bound.values_mut() {
            *m = m.inverse(orient_mod, m.name.clone());
        }
        out
    }

    /// Whether any letter is bound.
    pub fn has_bound_letters(&self) -> bool {
        !self.bound.is_empty()
    }

    /// Evaluates a sequence on a puzzle to one element.
    pub fn eval(&self, puzzle: &Puzzle, seq: &Sequence) -> Result<Move> {
        let mut scope = Scope { defining: Vec::new(), values: BTreeMap::new(), depth: 0 };
        self.eval_factors(puzzle, &seq.factors, &mut scope)
            .map_err(|reason| Error::InvalidSequence { text: escaped(&seq.text), reason })
    }

    /// Parses and evaluates. A puzzle read from a definition reads twsearch's notation
    /// instead (move names separated by spaces, no letters: see
    /// [`crate::puzzle::defined::Defined::sequence`]).
    pub fn eval_text(&self, puzzle: &Puzzle, text: &str) -> Result<Move> {
        match puzzle.defined() {
            Some(d) => d.sequence_in(text, self.order),
            None => self.eval(puzzle, &Sequence::parse(text)?),
        }
    }

    fn eval_factors(
        &self,
        puzzle: &Puzzle,
        factors: &[Factor],
        scope: &mut Scope,
    ) -> std::result::Result<Move, String> {
        scope.depth += 1;
        if scope.depth > MAX_EVAL_DEPTH {
            return Err(format!(
                "parentheses and letter definitions nested more than {MAX_EVAL_DEPTH} deep"
            ));
        }
        let n = puzzle.n_positions();
        let om = puzzle.orient_mod;
        let mut acc = Move::identity(n);
        let mut step = |f: &Factor, acc: &mut Move| -> std::result::Result<(), String> {
            let base = match &f.term {
                Term::Move(name) => named_move(puzzle, name)?,
                Term::Group(g) => self.eval_factors(puzzle, g, scope)?,
                Term::Letter(c) => self.letter_value(puzzle, *c, scope)?,
            };
            *acc = acc.then(&raised(&base, &f.power, om), om);
            Ok(())
        };
        match self.order {
            Order::LeftToRight => factors.iter().try_for_each(|f| step(f, &mut acc))?,
            Order::RightToLeft => factors.iter().rev().try_for_each(|f| step(f, &mut acc))?,
        }
        scope.depth -= 1;
        Ok(acc)
    }

    /// The element a letter stands for. A defined letter is evaluated once per evaluation and
    /// remembered: definitions that each use the previous one twice would otherwise cost
    /// 2^(number of letters) evaluations.
    fn letter_value(
        &self,
        puzzle: &Puzzle,
        c: char,
        scope: &mut Scope,
    ) -> std::result::Result<Move, String> {
        if let Some(m) = self.bound.get(&c) {
            return Ok(m.clone());
        }
        if let Some(m) = scope.values.get(&c) {
            return Ok(m.clone());
        }
        let Some(seq) = self.defined.get(&c) else {
            return Err(format!("letter {c} is not bound to a move"));
        };
        if scope.defining.contains(&c) {
            return Err(format!("the definition of {c} refers to itself"));
        }
        scope.defining.push(c);
        let m = self.eval_factors(puzzle, &seq.factors, scope)?;
        scope.defining.pop();
        scope.values.insert(c, m.clone());
        Ok(m)
    }
}

/// The state of one evaluation: the definitions being expanded (to catch a letter defined
/// through itself), the values of defined letters met so far, and the nesting depth.
struct Scope {
    defining: Vec<char>,
    values: BTreeMap<char, Move>,
    depth: usize,
}

/// `base` raised to an exponent: reduced modulo the element's order, then the shorter way
/// round (`X^(order-1)` is computed as one inverse, not order-1 products).
fn raised(base: &Move, power: &Exponent, orient_mod: u8) -> Move {
    let order = base.order(orient_mod);
    let k = power.modulo(order);
    if k == 0 {
        Move::identity(base.perm.len())
    } else if k <= order - k {
        base.power_unsigned(k, orient_mod)
    } else {
        base.inverse(orient_mod, String::new()).power_unsigned(order - k, orient_mod)
    }
}

impl Default for Env {
    fn default() -> Env {
        Env::new()
    }
}

fn single_letter(letter: &str) -> Result<char> {
    let mut chars = letter.trim().chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if c.is_ascii_alphabetic() => Ok(c),
        _ => Err(Error::InvalidSequence {
            text: escaped(letter),
            reason: "letters are single ASCII letters (A-Z, a-z)".into(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nrp33() -> Puzzle {
        Puzzle::parse("nrp:3x3:2", None).unwrap()
    }

    fn board_after(p: &Puzzle, env: &Env, text: &str) -> String {
        let m = env.eval_text(p, text).unwrap();
        p.format_board(&p.apply(&p.solved(), &m))
    }

    #[test]
    fn parses_powers_groups_and_letters() {
        let s = Sequence::parse("(X Y^2 X^-1 Y X^{-1} Y^2)^35").unwrap();
        assert_eq!(s.factors.len(), 1);
        assert_eq!(s.factors[0].power, Exponent::from_i64(35));
        let Term::Group(g) = &s.factors[0].term else { panic!() };
        let powers: Vec<Exponent> = g.iter().map(|f| f.power.clone()).collect();
        let want: Vec<Exponent> = [1, 2, -1, 1, -1, 2].map(Exponent::from_i64).into();
        assert_eq!(powers, want);
        let s = Sequence::parse("XYYXY^-1X^-1").unwrap();
        assert_eq!(s.factors.len(), 6);
        assert_eq!(s.letters().into_iter().collect::<String>(), "XY");
        let s = Sequence::parse("R2C3' R1C1^2 R1C2 2 [1,6] [ 2 , 5 ]'^3").unwrap();
        let got: Vec<(Term, Exponent)> =
            s.factors.iter().map(|f| (f.term.clone(), f.power.clone())).collect();
        let want = [("R2C3", -1), ("R1C1", 2), ("R1C2", 2), ("[1,6]", 1), ("[2,5]", -3)]
            .map(|(m, k)| (Term::Move(m.into()), Exponent::from_i64(k)));
        assert_eq!(got, want);
        assert!(Sequence::parse("").unwrap().factors.is_empty());
    }

    #[test]
    fn parse_errors_say_what_is_wrong() {
        let err = |s: &str| Sequence::parse(s).unwrap_err().to_string();
        assert!(err("(X Y").contains("never closed"));
        assert!(err("X Y)").contains("without a matching"));
        let deep = format!("{}X{}", "(".repeat(60_000), ")".repeat(60_000));
        assert!(err(&deep).contains("nested more than 64 deep"));
        let deep = format!("{}X{}", "(".repeat(64), ")".repeat(64));
        assert!(Sequence::parse(&deep).is_ok());
        assert!(err("X\n%").contains("unexpected `%`"));
        assert_eq!(err("X\n%").lines().count(), 1);
        assert!(err("^2 X").contains("must follow"));
        assert!(err("R2 X").contains("not a block name"));
        assert!(err("[1;6]").contains("not a spin"));
        assert!(err("[1,6").contains("unclosed"));
        assert!(err("X % Y").contains("unexpected `%`"));
        assert!(err("X^").contains("expected a number"));
        assert!(err("X^{2").contains("expected `}`"));
    }

    #[test]
    fn moves_resolve_on_the_board_or_fail_clearly() {
        let p = nrp33();
        let env = Env::new();
        assert_eq!(board_after(&p, &env, "R1C1"), "2 5 3 / 1 4 6 / 7 8 9");
        assert_eq!(board_after(&p, &env, "R2C2'"), "1 2 3 / 4 8 5 / 7 9 6");
        assert_eq!(board_after(&p, &env, "R2C2 2"), board_after(&p, &env, "R2C2^2"));
        assert_eq!(board_after(&p, &env, "R2C2^-2"), board_after(&p, &env, "R2C2' R2C2'"));
        let err = |t: &str| env.eval_text(&p, t).unwrap_err().to_string();
        assert!(err("R3C1").contains("outside the board"));
        assert!(err("[1,2]").contains("not a move of nrp:3x3:2"));
        assert!(err("X").contains("letter X is not bound"));
        let s = Puzzle::parse("spin:3x3:1x2", None).unwrap();
        assert!(env.eval_text(&s, "[1,2] [2,5]").is_ok());
        let err = |t: &str| env.eval_text(&s, t).unwrap_err().to_string();
        assert!(err("[1,6]").contains("(2x3) is not a move of spin:3x3:1x2"));
        assert!(err("[5,1]").contains("top-left"));
        assert!(err("[1,10]").contains("outside the board"));
        assert!(err("R1C1").contains("spins are written"));
    }

    #[test]
    fn letters_definitions_and_orders() {
        let p = nrp33();
        let mut env = Env::new();
        env.bind(&p, "X", "R2C1").unwrap();
        env.bind(&p, "Y", "R1C2").unwrap();
        env.bind(&p, "I", "").unwrap();
        env.define("C", "(Y X)^2").unwrap();
        assert_eq!(board_after(&p, &env, "X Y I"), board_after(&p, &env, "R2C1 R1C2"));
        assert_eq!(board_after(&p, &env, "C^-1"), board_after(&p, &env, "X' Y' X' Y'"));
        assert_eq!(board_after(&p, &env, "C C^-1"), "1 2 3 / 4 5 6 / 7 8 9");
        // Right to left: `X Y` means Y first.
        let rl = env.clone().with_order(Order::RightToLeft);
        assert_eq!(board_after(&p, &rl, "X Y"), board_after(&p, &env, "Y X"));
        assert_eq!(board_after(&p, &rl, "(X Y)^2 X"), board_after(&p, &env, "X (Y X)^2"));
        // Mirrored letters turn clockwise.
        let mirror = env.mirrored(p.orient_mod);
        assert_eq!(board_after(&p, &mirror, "X"), board_after(&p, &env, "R2C1'"));
        // Definitions that each use the previous one twice are evaluated once each: 2^50
        // products would never finish.
        let mut chain = Env::new();
        chain.bind(&p, "a", "R1C1").unwrap();
        let letters: Vec<char> = ('b'..='z').chain('A'..='Z').collect();
        let mut prev = 'a';
        for &c in &letters {
            chain.define(&c.to_string(), &format!("{prev} {prev}")).unwrap();
            prev = c;
        }
        // Z is R1C1^(2^51), and 2^51 = 0 (mod 4).
        assert!(chain.eval_text(&p, "Z").unwrap().is_identity());
        // Definitions nest their parentheses: 51 letters of 6 levels each (5 parentheses and
        // the definition) exceed 256.
        let mut deep = Env::new();
        deep.bind(&p, "a", "R1C1").unwrap();
        let mut prev = 'a';
        for &c in &letters {
            deep.define(&c.to_string(), &format!("((((({prev})))))")).unwrap();
            prev = c;
        }
        let err = deep.eval_text(&p, "Z").unwrap_err().to_string();
        assert!(err.contains("nested more than 256 deep"), "{err}");
        // A definition that refers to itself is an error, not a stack overflow.
        env.define("D", "X D").unwrap();
        assert!(env.eval_text(&p, "D").unwrap_err().to_string().contains("refers to itself"));
        assert!(env.bind(&p, "Z", "X").unwrap_err().to_string().contains("uses the letter X"));
        assert!(env.bind(&p, "XY", "R1C1").is_err());
    }

    #[test]
    fn huge_powers_are_cheap_and_exact() {
        let p = nrp33();
        let env = Env::new();
        // R1C1 has order 4: 10^18 = 0 (mod 4), 10^18 + 1 = 1 (mod 4).
        assert_eq!(board_after(&p, &env, "R1C1^1000000000000000000"), "1 2 3 / 4 5 6 / 7 8 9");
        assert_eq!(
            board_after(&p, &env, "R1C1^1000000000000000001"),
            board_after(&p, &env, "R1C1")
        );
        assert_eq!(board_after(&p, &env, "R1C1^0"), "1 2 3 / 4 5 6 / 7 8 9");
        // Nested powers multiply without overflow: (4 * 2^32)^(2^32) turns is the identity.
        assert_eq!(board_after(&p, &env, "(R1C1^17179869184)^4294967296"), "1 2 3 / 4 5 6 / 7 8 9");
        // Beyond 64 bits: 10^20 = 0 and 10^20 + 1 = 1 (mod 4); -2^63 = 0 (mod 4), and
        // -(2^63 + 1) = -1: the clockwise turn.
        let id = "1 2 3 / 4 5 6 / 7 8 9";
        assert_eq!(board_after(&p, &env, "R1C1^100000000000000000000"), id);
        assert_eq!(
            board_after(&p, &env, "R1C1^100000000000000000001"),
            board_after(&p, &env, "R1C1")
        );
        assert_eq!(board_after(&p, &env, "(R1C1)^-9223372036854775808"), id);
        assert_eq!(
            board_after(&p, &env, "(R1C1)^-9223372036854775809"),
            board_after(&p, &env, "R1C1'")
        );
        // Stacked huge powers multiply exactly: (10^30)(10^30)(-1) = 0 (mod 4), and
        // (10^30 + 1)^2 = 1 (mod 4).
        let big = format!("1{}", "0".repeat(30));
        assert_eq!(board_after(&p, &env, &format!("R1C1^{big}^{big}'")), id);
        let odd = format!("1{}1", "0".repeat(29));
        assert_eq!(
            board_after(&p, &env, &format!("R1C1^{odd}^{odd}")),
            board_after(&p, &env, "R1C1")
        );
        // An element with turns on the oriented board: its order is the first identity power.
        let q = Puzzle::parse("nrp:3x3:2:orient", None).unwrap();
        let x = env.eval_text(&q, "R1C1 R2C2'").unwrap();
        let order = x.order(q.orient_mod);
        let mut acc = Move::identity(9);
        for k in 1..=order {
            acc = acc.then(&x, q.orient_mod);
            assert_eq!(acc.is_identity(), k == order, "power {k} of order {order}");
        }
        let huge = format!("(R1C1 R2C2')^{}{}", order, "0".repeat(40));
        assert!(env.eval_text(&q, &huge).unwrap().is_identity());
    }

    #[test]
    fn spins_compose_with_flips() {
        let s = Puzzle::parse("spin:3x3", None).unwrap();
        let env = Env::new();
        assert_eq!(board_after(&s, &env, "[1,6]"), "-6 -5 -4 / -3 -2 -1 / 7 8 9");
        // The introduction's two spins, undone in reverse: [1,5] then [3,9] from solved.
        assert_eq!(board_after(&s, &env, "[3,9] [1,5]"), "-5 -4 -9 / -2 -1 -6 / 7 8 -3");
        assert_eq!(board_after(&s, &env, "[1,6]^2"), "1 2 3 / 4 5 6 / 7 8 9");
    }
}
