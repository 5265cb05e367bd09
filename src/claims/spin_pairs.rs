//! Sutherland & Sutherland, Proposition 1, checked over every ordered pair of spins `s1, s2`
//! (about rectangles `R1, R2`) of a board:
//! 1. `s1` is its own inverse;
//! 2. `s1 s2` is not a spin;
//! 3. `s1 s2 = s2 s1` iff `R1` and `R2` are disjoint or have a common center;
//! 4. `s1 s2 s1` is a spin `s3` iff `s1` and `s2` commute or `R1` contains `R2`, and then the
//!    rectangle of `s3` has the same shape as `R2`.
//!
//! Pairs include `s1 = s2`. Products read left to right (the order does not matter for 1, 3
//! and 4; for 2 the reversed product is the inverse, a spin iff the product is).

use std::collections::HashMap;

use crate::group::cycles::CycleStructure;
use crate::puzzle::{Move, Puzzle, PuzzleSpec};

/// A spin's rectangle, 0-based inclusive rows `r1..=r2` and columns `c1..=c2`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Rect {
    r1: usize,
    c1: usize,
    r2: usize,
    c2: usize,
}

impl Rect {
    fn disjoint(&self, o: &Rect) -> bool {
        self.r2 < o.r1 || o.r2 < self.r1 || self.c2 < o.c1 || o.c2 < self.c1
    }
    fn common_center(&self, o: &Rect) -> bool {
        self.r1 + self.r2 == o.r1 + o.r2 && self.c1 + self.c2 == o.c1 + o.c2
    }
    fn contains(&self, o: &Rect) -> bool {
        self.r1 <= o.r1 && o.r2 <= self.r2 && self.c1 <= o.c1 && o.c2 <= self.c2
    }
    fn dims(&self) -> (usize, usize) {
        (self.r2 - self.r1 + 1, self.c2 - self.c1 + 1)
    }
}

/// The result of checking one part of Proposition 1 on one board.
#[derive(Clone, Debug)]
pub struct PairsReport {
    /// Whether the statement held for every pair.
    pub holds: bool,
    /// What was checked and the first counterexample, if any.
    pub observed: String,
}

/// The most spins whose pairs parts 2-4 check: a quarter of a million pairs, under a second
/// (a 15x17 board's 18,360 spins would make 337 million pairs, hours).
pub const MAX_SPINS_PAIRED: usize = 512;

/// Checks part `part` (1-4) of Proposition 1 on a Spinpossible puzzle (all its spins).
pub fn check(puzzle: &Puzzle, part: u8) -> Result<PairsReport, String> {
    let PuzzleSpec::Spin { cols, .. } = puzzle.spec else {
        return Err(format!("spin_pairs needs a Spinpossible puzzle, not {}", puzzle.spec));
    };
    if !(1..=4).contains(&part) {
        return Err(format!("Proposition 1 has parts 1-4, not {part}"));
    }
    if part > 1 && puzzle.moves.len() > MAX_SPINS_PAIRED {
        return Err(format!(
            "{} has {} spins; parts 2-4 check every ordered pair, at most {MAX_SPINS_PAIRED} spins",
            puzzle.spec,
            puzzle.moves.len()
        ));
    }
    let om = puzzle.orient_mod;
    let n = puzzle.n_positions();
    let rect_of = |m: &Move| -> Rect {
        let inner = m.name.trim_start_matches('[').trim_end_matches(']');
        let (a, b) = inner.split_once(',').expect("spin names are [p1,p2]");
        let (a, b): (usize, usize) = (a.parse().unwrap(), b.parse().unwrap());
        Rect { r1: (a - 1) / cols, c1: (a - 1) % cols, r2: (b - 1) / cols, c2: (b - 1) % cols }
    };
    let spins: Vec<(Move, Rect)> = puzzle.moves.iter().map(|m| (m.clone(), rect_of(m))).collect();
    let lookup: HashMap<(Vec<u8>, Vec<u8>), usize> = spins
        .iter()
        .enumerate()
        .map(|(i, (m, _))| ((m.perm.clone(), m.twist.clone()), i))
        .collect();
    let spin_index = |m: &Move| lookup.get(&(m.perm.clone(), m.twist.clone())).copied();
    let describe = |m: &Move| CycleStructure::of(puzzle, m).describe();
    let mut checked = 0usize;
    let mut failures = 0usize;
    let mut first: Option<String> = None;
    let mut fail = |msg: String| {
        failures += 1;
        if first.is_none() {
            first = Some(msg);
        }
    };
    if part == 1 {
        for (s, _) in &spins {
            checked += 1;
            let sq = s.then(s, om);
            if !sq.is_identity() {
                fail(format!("{} {} is not the identity: {}", s.name, s.name, describe(&sq)));
            }
        }
    } else {
        for (s1, r1) in &spins {
            for (s2, r2) in &spins {
                checked += 1;
                let p12 = s1.then(s2, om);
                match part {
                    2 => {
                        if let Some(k) = spin_index(&p12) {
                            fail(format!(
                                "{} {} is the spin {}",
                                s1.name, s2.name, spins[k].0.name
                            ));
                        }
                    }
                    3 => {
                        let commute = p12.same_action(&s2.then(s1, om));
                        let geometric = r1.disjoint(r2) || r1.common_center(r2);
                        if commute != geometric {
                            fail(format!(
                                "{} and {} {} but their rectangles {}",
                                s1.name,
                                s2.name,
                                if commute { "commute" } else { "do not commute" },
                                if geometric {
                                    "are disjoint or share a center"
                                } else {
                                    "overlap off-center"
                                }
                            ));
                        }
                    }
                    _ => {
                        let p = p12.then(s1, om);
                        let commute = p12.same_action(&s2.then(s1, om));
                        let predicted = commute || r1.contains(r2);
                        match spin_index(&p) {
                            Some(k) if !predicted => fail(format!(
                                "{0} {1} {0} is the spin {2}, yet they do not commute and R1 does not contain R2",
                                s1.name, s2.name, spins[k].0.name
                            )),
                            Some(k) if spins[k].1.dims() != r2.dims() => fail(format!(
                                "{0} {1} {0} is the spin {2}, whose rectangle is not the shape of R2",
                                s1.name, s2.name, spins[k].0.name
                            )),
                            None if predicted => fail(format!(
                                "{0} {1} {0} is not a spin: {2}",
                                s1.name,
                                s2.name,
                                describe(&p)
                            )),
                            _ => {}
                        }
                    }
                }
            }
        }
    }
    let what = if part == 1 { "spins" } else { "ordered pairs of spins" };
    let observed = match first {
        None => format!(
            "checked {checked} {what} ({} spins on {} cells): no counterexample",
            spins.len(),
            n
        ),
        Some(f) => format!("checked {checked} {what}: {failures} counterexamples, e.g. {f}"),
    };
    Ok(PairsReport { holds: failures == 0, observed })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_part_holds_on_2x3_and_rejects_a_non_spin_puzzle() {
        let p = Puzzle::parse("spin:2x3", None).unwrap();
        for part in 1..=4 {
            let r = check(&p, part).unwrap();
            assert!(r.holds, "part {part}: {}", r.observed);
        }
        assert!(check(&p, 5).is_err());
        assert!(check(&Puzzle::parse("nrp:3x3:2", None).unwrap(), 1).is_err());
    }

    #[test]
    fn a_counterexample_is_reported() {
        // Without the spin [2,3] in the move list, [1,3] [1,2] [1,3] (which is [2,3]) is no
        // longer found among the spins: part 4 must fail and say so.
        let mut p = Puzzle::parse("spin:1x3", None).unwrap();
        p.moves.retain(|m| m.name != "[2,3]");
        let r = check(&p, 4).unwrap();
        assert!(!r.holds);
        assert!(r.observed.contains("[1,3] [1,2] [1,3] is not a spin"), "{}", r.observed);
        let a = Rect { r1: 0, c1: 0, r2: 0, c2: 1 };
        let b = Rect { r1: 0, c1: 1, r2: 0, c2: 2 };
        assert!(!a.disjoint(&b) && !a.common_center(&b) && !a.contains(&b));
    }
}
