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
//! # Order
//! twirl reads a product left to right: the first factor written acts first (Lam's "we read
//! algorithms from left to right", Sutherland's "the permutation αβ applies α and then β").
//! [`Order::RightToLeft`] evaluates the same text the other way (function composition, the
//! rightmost factor first), for sources or readings that need it.

use std::collections::{BTreeMap, BTreeSet};

use super::{Move, Puzzle, PuzzleSpec, nrp, spin};
use crate::{Error, Result};

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
                text: text.into(),
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
    /// The exponent: 1 plain, -1 inverse, 0 identity.
    pub power: i64,
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
    Power(i64),
    Inverse,
}

impl Sequence {
    /// Parses the notation described in the module docs.
    pub fn parse(text: &str) -> Result<Sequence> {
        let bad = |reason: String| Error::InvalidSequence { text: text.into(), reason };
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
    let number = |i: &mut usize| -> std::result::Result<i64, String> {
        let start = *i;
        while *i < chars.len() && chars[*i].is_ascii_digit() {
            *i += 1;
        }
        let digits: String = chars[start..*i].iter().collect();
        if digits.is_empty() {
            return Err(format!("expected a number at column {}", start + 1));
        }
        digits.parse::<i64>().map_err(|_| format!("exponent overflow: `{digits}` is too large"))
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
                out.push(Token::Power(if negative { -k } else { k }));
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
                    return Err(format!("`{raw}` is not a spin (expected [p1,p2])"));
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
            _ => return Err(format!("unexpected `{c}` at column {}", i + 1)),
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
        let mut power: i64 = 1;
        while *pos < tokens.len() {
            let k = match tokens[*pos] {
                Token::Power(k) => k,
                Token::Inverse => -1,
                _ => break,
            };
            power = power.checked_mul(k).ok_or_else(|| "exponent overflow".to_string())?;
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
                text: text.into(),
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
        let mut stack = Vec::new();
        self.eval_factors(puzzle, &seq.factors, &mut stack)
            .map_err(|reason| Error::InvalidSequence { text: seq.text.clone(), reason })
    }

    /// Parses and evaluates.
    pub fn eval_text(&self, puzzle: &Puzzle, text: &str) -> Result<Move> {
        self.eval(puzzle, &Sequence::parse(text)?)
    }

    fn eval_factors(
        &self,
        puzzle: &Puzzle,
        factors: &[Factor],
        stack: &mut Vec<char>,
    ) -> std::result::Result<Move, String> {
        let n = puzzle.n_positions();
        let om = puzzle.orient_mod;
        let mut acc = Move::identity(n);
        let mut step = |f: &Factor, acc: &mut Move| -> std::result::Result<(), String> {
            let base = match &f.term {
                Term::Move(name) => named_move(puzzle, name)?,
                Term::Group(g) => self.eval_factors(puzzle, g, stack)?,
                Term::Letter(c) => {
                    if let Some(m) = self.bound.get(c) {
                        m.clone()
                    } else if let Some(seq) = self.defined.get(c) {
                        if stack.contains(c) {
                            return Err(format!("the definition of {c} refers to itself"));
                        }
                        stack.push(*c);
                        let m = self.eval_factors(puzzle, &seq.factors, stack)?;
                        stack.pop();
                        m
                    } else {
                        return Err(format!("letter {c} is not bound to a move"));
                    }
                }
            };
            *acc = acc.then(&base.power(f.power, om), om);
            Ok(())
        };
        match self.order {
            Order::LeftToRight => factors.iter().try_for_each(|f| step(f, &mut acc))?,
            Order::RightToLeft => factors.iter().rev().try_for_each(|f| step(f, &mut acc))?,
        }
        Ok(acc)
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
            text: letter.into(),
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
        assert_eq!(s.factors[0].power, 35);
        let Term::Group(g) = &s.factors[0].term else { panic!() };
        let powers: Vec<i64> = g.iter().map(|f| f.power).collect();
        assert_eq!(powers, vec![1, 2, -1, 1, -1, 2]);
        let s = Sequence::parse("XYYXY^-1X^-1").unwrap();
        assert_eq!(s.factors.len(), 6);
        assert_eq!(s.letters().into_iter().collect::<String>(), "XY");
        let s = Sequence::parse("R2C3' R1C1^2 R1C2 2 [1,6] [ 2 , 5 ]'^3").unwrap();
        let got: Vec<(Term, i64)> = s.factors.iter().map(|f| (f.term.clone(), f.power)).collect();
        assert_eq!(
            got,
            vec![
                (Term::Move("R2C3".into()), -1),
                (Term::Move("R1C1".into()), 2),
                (Term::Move("R1C2".into()), 2),
                (Term::Move("[1,6]".into()), 1),
                (Term::Move("[2,5]".into()), -3),
            ]
        );
        assert!(Sequence::parse("").unwrap().factors.is_empty());
    }

    #[test]
    fn parse_errors_say_what_is_wrong() {
        let err = |s: &str| Sequence::parse(s).unwrap_err().to_string();
        assert!(err("(X Y").contains("never closed"));
        assert!(err("X Y)").contains("without a matching"));
        assert!(err("X^99999999999999999999").contains("exponent overflow"));
        assert!(err("X^4294967296^4294967296").contains("exponent overflow"));
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
