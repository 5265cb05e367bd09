//! Claims from the literature about move sequences, checked mechanically.
//!
//! A *registry* (TOML; the default one is `data/claims.toml`, built into the library as
//! [`DEFAULT_REGISTRY`]) lists claims such as "on (4,5,4), `(X Y^2 X^-1 Y X^-1 Y^2)^35` is a
//! 3-cycle" with the source, section, puzzle, letter bindings, the sequence and the property
//! claimed in a small vocabulary ([`property`]). Each claim also records the verdict expected
//! of it: a published statement that turns out false is a finding, recorded as
//! `expected = "fails"` with a note, not a bug. [`check`] evaluates a claim and says whether
//! it holds and what was observed (always the cycle structure, plus what each property looked
//! at); when a claim fails, the other product order and letters turning the other way are
//! tried too and reported, so a convention mix-up shows up as such.
//!
//! The registry format is documented in the header of `data/claims.toml`. Parametrised claims
//! (`for = { n = "4..12" }`) expand into one claim per value, with `{n}`, `{n+1}` placeholders
//! ([`template`]) and ids suffixed `-n4`, `-n5`, ...
//!
//! Kinds: `sequence` (the default: a sequence and its properties), `spin_pairs`
//! (Sutherland & Sutherland's Proposition 1 over every pair of spins, [`spin_pairs`]) and
//! `lee_staged` (statements about Lee's staged solver, checked by running it on every board,
//! [`lee_staged`]).

pub mod cells;
pub mod lee_staged;
pub mod property;
pub mod spin_pairs;
pub mod template;

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::error::escaped;
use crate::group::cycles::CycleStructure;
use crate::puzzle::sequence::{Env, Order};
use crate::puzzle::{Puzzle, PuzzleSpec};
use crate::{Error, Result};
use property::{Property, Subject};
use template::Vars;

/// The registry shipped with twirl (`data/claims.toml`).
pub const DEFAULT_REGISTRY: &str = include_str!("../../data/claims.toml");

/// A source and the conventions its claims are read in.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SourceInfo {
    /// Author and title.
    pub title: String,
    /// How the source's products act, unless a claim says otherwise.
    pub order: Order,
    /// The source's conventions in words (direction of letters, spin naming, ...).
    pub convention: String,
}

/// What a claim is about.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A sequence and properties of the element it evaluates to.
    #[default]
    Sequence,
    /// One part of Sutherland & Sutherland's Proposition 1, over every pair of spins.
    SpinPairs,
    /// A statement about Lee's staged solver, over all 9! boards.
    LeeStaged,
}

/// A verdict: the claim holds or fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The claim is true.
    Holds,
    /// The claim is false.
    Fails,
}

impl Verdict {
    /// `holds` or `fails`.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::Fails => "fails",
        }
    }
}

/// How a claim reads its source.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Reading {
    /// As published.
    #[default]
    Faithful,
    /// A correction of a likely typo or conversion error, labelled as such, next to the
    /// faithful claim.
    Corrected,
}

/// One claim (one board size of a parametrised claim).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    /// Unique id (`lam-4.1-cycle-n6`).
    pub id: String,
    /// Key of the source in the registry's `[sources]`.
    pub source: String,
    /// Where in the source.
    pub section: String,
    /// The claim in words, close to the source's.
    pub statement: String,
    /// What is checked.
    #[serde(default)]
    pub kind: Kind,
    /// The puzzle (`nrp:6x7:6`, `spin:3x3:1x2`).
    pub puzzle: String,
    /// Product order, if not the source's.
    pub order: Option<Order>,
    /// Letters bound to moves (`X = "R1C1"`).
    #[serde(default)]
    pub bind: BTreeMap<String, String>,
    /// Letters defined as sub-sequences (`C = "(Y X)^4"`).
    #[serde(default)]
    pub define: BTreeMap<String, String>,
    /// The sequence (kind `sequence`).
    pub sequence: Option<String>,
    /// The board the sequence starts from (default: solved).
    pub start: Option<String>,
    /// The part of Proposition 1 (kind `spin_pairs`).
    pub part: Option<u8>,
    /// The statement about the staged solver (kind `lee_staged`).
    pub lee: Option<lee_staged::LeeStatement>,
    /// The verdict recorded for this claim.
    pub expected: Verdict,
    /// Faithful or corrected reading.
    #[serde(default)]
    pub reading: Reading,
    /// Why the verdict is what it is, for claims that fail or are corrected.
    pub note: Option<String>,
    /// The properties claimed.
    #[serde(default)]
    pub property: Property,
    /// The line of the claim in the registry.
    #[serde(skip)]
    pub line: usize,
}

/// A loaded registry: sources and claims, parametrised claims expanded.
#[derive(Clone, Debug)]
pub struct Registry {
    /// Sources by key.
    pub sources: BTreeMap<String, SourceInfo>,
    /// Claims in registry order.
    pub claims: Vec<Claim>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRegistry {
    #[serde(default)]
    sources: BTreeMap<String, SourceInfo>,
    #[serde(default)]
    claim: Vec<toml::Spanned<toml::Table>>,
}

/// The most instances one claim's `for` may expand to: the registry's largest has nine, and
/// every instance is a check that may build a puzzle, so thousands would be a mistake.
pub const MAX_INSTANCES: usize = 1000;

/// Fields that are text for people, never templates (they may contain braces, e.g. Lam's
/// set notation `{(1,1), (2,4)}`).
const PLAIN_FIELDS: [&str; 3] = ["id", "statement", "note"];

impl Registry {
    /// Reads a registry; errors name the line.
    pub fn parse(text: &str) -> Result<Registry> {
        let raw: RawRegistry = toml::from_str(text).map_err(|e| {
            let message = one_line(e.message());
            Error::InvalidRegistry(match e.span() {
                Some(s) => format!("line {}: {message}", line_of(text, s.start)),
                None => message,
            })
        })?;
        let mut claims = Vec::new();
        for spanned in raw.claim {
            let line = line_of(text, spanned.span().start);
            let at = |msg: String| Error::InvalidRegistry(format!("claim at line {line}: {msg}"));
            let mut table = spanned.into_inner();
            let instances = expand(table.remove("for")).map_err(at)?;
            for vars in instances {
                let mut t = toml::Table::new();
                for (k, v) in &table {
                    let v = if PLAIN_FIELDS.contains(&k.as_str()) {
                        v.clone()
                    } else {
                        substitute_value(v, &vars)
                            .map_err(|e| at(format!("`{}`: {e}", escaped(k))))?
                    };
                    t.insert(k.clone(), v);
                }
                let mut claim: Claim = toml::Value::Table(t)
                    .try_into()
                    .map_err(|e: toml::de::Error| at(one_line(e.message())))?;
                for (k, v) in &vars {
                    claim.id += &format!("-{k}{v}");
                }
                claim.line = line;
                claims.push(claim);
            }
        }
        let registry = Registry { sources: raw.sources, claims };
        registry.validate()?;
        Ok(registry)
    }

    /// Reads the registry built into twirl.
    pub fn builtin() -> Registry {
        Registry::parse(DEFAULT_REGISTRY).expect("the built-in registry is valid (tested)")
    }

    fn validate(&self) -> Result<()> {
        let mut ids = BTreeSet::new();
        for c in &self.claims {
            let at = |msg: String| {
                let id = escaped(&c.id);
                Error::InvalidRegistry(format!("claim `{id}` (line {}): {msg}", c.line))
            };
            if !ids.insert(c.id.as_str()) {
                return Err(at("the id is used twice".into()));
            }
            if !self.sources.contains_key(&c.source) {
                return Err(at(format!(
                    "unknown source `{0}` (declare it under [sources.{0}])",
                    escaped(&c.source)
                )));
            }
            match c.kind {
                Kind::Sequence => {
                    if c.sequence.is_none() {
                        return Err(at("a sequence claim needs `sequence`".into()));
                    }
                    if c.property.is_empty() {
                        return Err(at("a sequence claim needs a [claim.property]".into()));
                    }
                }
                Kind::SpinPairs => {
                    if c.part.is_none() {
                        return Err(at("a spin_pairs claim needs `part` (1-4)".into()));
                    }
                }
                Kind::LeeStaged => {
                    if c.lee.is_none() {
                        return Err(at("a lee_staged claim needs a [claim.lee] statement".into()));
                    }
                }
            }
        }
        Ok(())
    }

    /// The product order a claim is read in: its own, else its source's.
    pub fn order_of(&self, claim: &Claim) -> Order {
        claim.order.unwrap_or_else(|| {
            self.sources.get(&claim.source).map_or(Order::LeftToRight, |s| s.order)
        })
    }
}

/// A message on one line (the CLI prints every error on one line): runs of white space become
/// one space, other control characters are escaped.
fn one_line(text: &str) -> String {
    let mut out = String::new();
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&crate::error::one_line(word));
    }
    out
}

/// A TOML value as written, made safe to repeat in a message.
fn shown(v: &toml::Value) -> String {
    escaped(&v.to_string())
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// The instances of a claim's `for`: none (one instance), a table of lists or ranges
/// (`{ n = "4..12", m = [3, 4] }`, every combination) or a list of tables (`[{ m = 2, n = 3 }]`).
fn expand(spec: Option<toml::Value>) -> std::result::Result<Vec<Vars>, String> {
    let Some(spec) = spec else { return Ok(vec![Vars::new()]) };
    let int = |v: &toml::Value| -> std::result::Result<i64, String> {
        v.as_integer().ok_or_else(|| format!("`for` values must be integers, not {}", shown(v)))
    };
    let too_many = || format!("`for` expands to more than {MAX_INSTANCES} instances");
    match spec {
        toml::Value::Table(t) => {
            let mut out = vec![Vars::new()];
            for (name, values) in t {
                let list: Vec<i64> = match values {
                    toml::Value::Array(a) => {
                        a.iter().map(int).collect::<std::result::Result<_, _>>()?
                    }
                    toml::Value::String(s) => {
                        let name = escaped(&name);
                        let (a, b) = s
                            .split_once("..")
                            .ok_or_else(|| format!("`for.{name}`: expected a range \"a..b\""))?;
                        let p = |x: &str| {
                            x.trim().parse::<i64>().map_err(|_| {
                                format!("`for.{name}`: `{}` is not a number", escaped(x))
                            })
                        };
                        let (a, b) = (p(a)?, p(b)?);
                        // Counted in i128 before anything is allocated: "0..9223372036854775807"
                        // is a valid range of i64 values.
                        if i128::from(b) - i128::from(a) >= MAX_INSTANCES as i128 {
                            return Err(too_many());
                        }
                        (a..=b).collect()
                    }
                    v => {
                        let name = escaped(&name);
                        return Err(format!(
                            "`for.{name}`: expected a list or a range, not {}",
                            shown(&v)
                        ));
                    }
                };
                if list.is_empty() {
                    return Err(format!("`for.{}` has no values", escaped(&name)));
                }
                if out.len().saturating_mul(list.len()) > MAX_INSTANCES {
                    return Err(too_many());
                }
                out = out
                    .into_iter()
                    .flat_map(|vars| {
                        let name = &name;
                        list.iter().map(move |&x| {
                            let mut v = vars.clone();
                            v.insert(name.clone(), x);
                            v
                        })
                    })
                    .collect();
            }
            Ok(out)
        }
        toml::Value::Array(items) => {
            if items.len() > MAX_INSTANCES {
                return Err(too_many());
            }
            items
                .iter()
                .map(|item| {
                    let t = item.as_table().ok_or("`for` lists must hold tables like { n = 4 }")?;
                    t.iter().map(|(k, v)| Ok((k.clone(), int(v)?))).collect()
                })
                .collect()
        }
        v => Err(format!("`for` must be a table or a list of tables, not {}", shown(&v))),
    }
}

fn substitute_value(v: &toml::Value, vars: &Vars) -> std::result::Result<toml::Value, String> {
    Ok(match v {
        toml::Value::String(s) => match template::whole_placeholder(s, vars) {
            Some(n) => toml::Value::Integer(n?),
            None => toml::Value::String(template::substitute(s, vars)?),
        },
        toml::Value::Array(a) => toml::Value::Array(
            a.iter().map(|x| substitute_value(x, vars)).collect::<std::result::Result<_, _>>()?,
        ),
        toml::Value::Table(t) => {
            let mut out = toml::Table::new();
            for (k, x) in t {
                out.insert(k.clone(), substitute_value(x, vars)?);
            }
            toml::Value::Table(out)
        }
        other => other.clone(),
    })
}

/// The result of checking one claim. Field names are the JSON format of `twirl claims`.
#[derive(Clone, Debug, Serialize)]
pub struct Outcome {
    /// The claim's id.
    pub id: String,
    /// Its source key.
    pub source: String,
    /// Where in the source.
    pub section: String,
    /// The claim in words.
    pub statement: String,
    /// The puzzle.
    pub puzzle: String,
    /// The sequence, if any.
    pub sequence: Option<String>,
    /// The letter bindings and definitions, `X = R1C1, C = (Y X)^4`.
    pub letters: String,
    /// The product order used.
    pub order: String,
    /// Faithful or corrected reading.
    pub reading: Reading,
    /// Whether the claim holds.
    pub holds: bool,
    /// The verdict recorded in the registry.
    pub expected: Verdict,
    /// Whether the verdict matches the record.
    pub matches_record: bool,
    /// What was observed: the cycle structure and what each property looked at.
    pub observed: String,
    /// The registry's note.
    pub note: Option<String>,
}

/// Checks one claim of a registry.
pub fn check(registry: &Registry, claim: &Claim) -> Result<Outcome> {
    let at = |msg: String| {
        let id = escaped(&claim.id);
        Error::InvalidRegistry(format!("claim `{id}` (line {}): {msg}", claim.line))
    };
    let order = registry.order_of(claim);
    let puzzle = Puzzle::parse(&claim.puzzle, None).map_err(|e| at(e.to_string()))?;
    let (holds, observed) = match claim.kind {
        Kind::LeeStaged => lee_staged::check(claim.lee.as_ref().expect("validated")).map_err(at)?,
        Kind::SpinPairs => {
            let part = claim.part.expect("validated");
            let r = spin_pairs::check(&puzzle, part).map_err(at)?;
            (r.holds, r.observed)
        }
        Kind::Sequence => check_sequence(claim, &puzzle, order).map_err(at)?,
    };
    let letters: Vec<String> = claim
        .bind
        .iter()
        .chain(&claim.define)
        .map(|(k, v)| format!("{k} = {}", if v.is_empty() { "()" } else { v }))
        .collect();
    Ok(Outcome {
        id: claim.id.clone(),
        source: claim.source.clone(),
        section: claim.section.clone(),
        statement: claim.statement.clone(),
        puzzle: claim.puzzle.clone(),
        sequence: claim.sequence.clone(),
        letters: letters.join(", "),
        order: order.name().into(),
        reading: claim.reading,
        holds,
        expected: claim.expected,
        matches_record: holds == (claim.expected == Verdict::Holds),
        observed,
        note: claim.note.clone(),
    })
}

/// Checks every claim, or those of one source.
pub fn check_all(registry: &Registry, source: Option<&str>) -> Result<Vec<Outcome>> {
    registry
        .claims
        .iter()
        .filter(|c| source.is_none_or(|s| c.source == s))
        .map(|c| check(registry, c))
        .collect()
}

fn env_for(claim: &Claim, puzzle: &Puzzle, order: Order) -> std::result::Result<Env, String> {
    let mut env = Env::new().with_order(order);
    for (k, v) in &claim.bind {
        env.bind(puzzle, k, v).map_err(|e| format!("binding {}: {e}", escaped(k)))?;
    }
    for (k, v) in &claim.define {
        env.define(k, v).map_err(|e| format!("definition of {}: {e}", escaped(k)))?;
    }
    Ok(env)
}

fn check_sequence(
    claim: &Claim,
    puzzle: &Puzzle,
    order: Order,
) -> std::result::Result<(bool, String), String> {
    let env = env_for(claim, puzzle, order)?;
    let text = claim.sequence.as_deref().expect("validated");
    let start = match &claim.start {
        Some(b) => puzzle.parse_board(b).map_err(|e| format!("start board: {e}"))?,
        None => puzzle.solved(),
    };
    let run = |env: &Env| -> std::result::Result<(bool, String), String> {
        let element = env.eval_text(puzzle, text).map_err(|e| e.to_string())?;
        let structure = CycleStructure::of(puzzle, &element);
        let subject = Subject { puzzle, env, element: &element, start: &start };
        let findings = claim.property.check(&subject)?;
        let holds = findings.iter().all(|f| f.holds);
        let mut parts = vec![structure.describe(), structure.summary()];
        parts.extend(findings.into_iter().map(|f| f.observed));
        Ok((holds, parts.join("; ")))
    };
    let (holds, mut observed) = run(&env)?;
    if !holds {
        let mut others = vec![(
            format!("read {}", order.flipped().name()),
            env.clone().with_order(order.flipped()),
        )];
        if env.has_bound_letters() && matches!(puzzle.spec, PuzzleSpec::Nrp { .. }) {
            let mirrored = env.mirrored(puzzle.orient_mod);
            others.push(("letters turning the other way".into(), mirrored.clone()));
            others.push((
                format!("letters turning the other way, read {}", order.flipped().name()),
                mirrored.with_order(order.flipped()),
            ));
        }
        let mut said = Vec::new();
        for (label, e) in &others {
            let (h, obs) = run(e)?;
            said.push(if h {
                format!("{label}: holds ({obs})")
            } else {
                format!("{label}: fails too")
            });
        }
        observed += &format!(" | other readings: {}", said.join("; "));
    }
    Ok((holds, observed))
}

#[cfg(test)]
mod tests;
