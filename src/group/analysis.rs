//! The analysis of a puzzle's moves, made once and shared: the invariants (orbits, tied
//! orientations, parity and orientation-sum couplings), the number of boards they allow, and
//! a stabilizer chain of the group the moves generate (its exact order, and membership).
//! Ranking ([`crate::rank::StateSpace`]), `check` ([`super::solvable::Checker`]), `info` and
//! `verify` all start from an [`Analysis`] instead of working these out again.

use num_bigint::BigUint;

use super::invariants::Invariants;
use super::stabchain::{Perm, StabChain};
use crate::puzzle::Puzzle;

/// What the moves of a puzzle allow, and what they generate.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// The invariants of the moves.
    pub invariants: Invariants,
    /// The number of boards the invariants allow (an upper bound on `group_order`).
    pub model_order: BigUint,
    /// A stabilizer chain of the group on points `cell * orient_mod + orientation`.
    pub chain: StabChain,
    /// The exact order of the group the moves generate: the number of reachable boards.
    /// Every board is fixed by where the upright tiles go, and a move turns all orientations
    /// of a tile alike, so distinct group elements give distinct boards.
    pub group_order: BigUint,
}

impl Analysis {
    /// Analyses the moves. Fails when the invariants have too many combinations to index
    /// (dozens of small orbits); [`self_verified_order`] still gives the group order then.
    pub fn of(puzzle: &Puzzle) -> crate::Result<Analysis> {
        let invariants = Invariants::of(puzzle)?;
        let model_order = invariants.model_order();
        // The invariants' bound makes the chain certain as soon as it reaches it.
        let chain =
            StabChain::with_upper_bound(degree(puzzle), &point_generators(puzzle), &model_order);
        let group_order = chain.order();
        Ok(Analysis { invariants, model_order, chain, group_order })
    }

    /// Whether the invariants describe the group exactly (the usual case; the exceptional
    /// small groups, such as the 120 boards of NRP (2,3,2), are smaller).
    pub fn invariants_are_exact(&self) -> bool {
        self.group_order == self.model_order
    }
}

/// The exact group order without the invariants' bound: the chain verifies itself (slower;
/// for puzzles whose invariants cannot be indexed).
pub fn self_verified_order(puzzle: &Puzzle) -> BigUint {
    StabChain::new(degree(puzzle), &point_generators(puzzle)).order()
}

/// Number of points the moves permute.
fn degree(puzzle: &Puzzle) -> usize {
    puzzle.n_positions() * puzzle.orient_mod as usize
}

/// The moves as permutations of the points `cell * orient_mod + orientation`.
pub fn point_generators(puzzle: &Puzzle) -> Vec<Perm> {
    let k = puzzle.orient_mod as usize;
    puzzle
        .moves
        .iter()
        .map(|m| {
            let mut p = vec![0u16; puzzle.n_positions() * k];
            for (i, (&to, &tw)) in m.perm.iter().zip(&m.twist).enumerate() {
                for o in 0..k {
                    p[i * k + o] = (to as usize * k + (o + tw as usize) % k) as u16;
                }
            }
            p
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_of_known_groups() {
        for (spec, model, order) in [
            ("nrp:2x3:2", 720u64, 120u64),
            ("nrp:3x4:3", 259_200, 720),
            ("nrp:4x4:3", 812_851_200, 812_851_200),
            ("spin:3x3", 185_794_560, 185_794_560),
        ] {
            let p = Puzzle::parse(spec, None).unwrap();
            let a = Analysis::of(&p).unwrap();
            assert_eq!(a.model_order, BigUint::from(model), "{spec}");
            assert_eq!(a.group_order, BigUint::from(order), "{spec}");
            assert_eq!(a.invariants_are_exact(), model == order, "{spec}");
            assert_eq!(self_verified_order(&p), a.group_order, "{spec}");
        }
    }
}
