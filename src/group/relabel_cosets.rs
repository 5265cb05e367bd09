//! Distinct boards and solvability where pieces are identical and the moves generate fewer
//! boards than their invariants allow (the master skewb, the professor pyraminx).
//!
//! A board made by `x` in `G` is the board of "first `y`, then `x`" for every relabelling `y`
//! in `Y` (swaps of identical pieces, turns of pieces whose orientation is not seen), so
//! there are `|G| / |G ∩ Y|` boards. When the invariants describe `G` exactly, `|G ∩ Y|` is
//! read off them ([`super::wide::Identical`]); otherwise `G` keeps some coupling they do not
//! show, and the count comes from `G`'s right cosets `G y` that `Y` meets: there are
//! `[Y : G ∩ Y]` of them, found by a breadth-first search from `G` along `Y`'s generators,
//! each coset known by the name the stabilizer chain gives it
//! ([`StabChain::right_coset_name`]).

use std::collections::{HashSet, VecDeque};

use super::stabchain::{Perm, StabChain, compose, inverse};

/// The most `u16`s the search may hold: names of the cosets found and representatives of
/// those not yet expanded (64 MiB).
const MAX_STORED: usize = 1 << 25;

/// What a name costs beyond its entries (the vector and its place in the hash set), in
/// `u16`s.
const NAME_OVERHEAD: usize = 32;

/// `G`'s right cosets that the relabellings meet.
pub struct RelabelCosets {
    names: HashSet<Perm>,
}

impl RelabelCosets {
    /// Lists the cosets `G y` for `y` in the group `relabellings` generate (each a
    /// permutation of the chain's points).
    pub fn search(chain: &StabChain, relabellings: &[Perm]) -> Result<RelabelCosets, String> {
        let degree = chain.degree();
        let identity: Perm = (0..degree as u16).collect();
        let mut names = HashSet::from([chain.right_coset_name(&identity)]);
        let mut queue = VecDeque::from([identity]);
        while let Some(y) = queue.pop_front() {
            for step in relabellings {
                let next = compose(&y, step);
                let name = chain.right_coset_name(&next);
                if names.contains(&name) {
                    continue;
                }
                let stored = names.len() * (name.len() + NAME_OVERHEAD) + queue.len() * degree;
                if stored > MAX_STORED {
                    return Err(format!(
                        "the group is smaller than its invariants, so the swaps of identical \
                         pieces it holds are counted from its cosets; twirl lists at most {} of \
                         them on {degree} points and found more",
                        names.len()
                    ));
                }
                names.insert(name);
                queue.push_back(next);
            }
        }
        Ok(RelabelCosets { names })
    }

    /// `[Y : G ∩ Y]`.
    pub fn count(&self) -> usize {
        self.names.len()
    }

    /// Whether some relabelling `y` puts "first `y`, then `x`" in `G` (then the board `x`
    /// makes from the solved one is solvable): `x^-1` lies in one of the cosets.
    pub fn relabels_into_group(&self, x: &[u16], chain: &StabChain) -> bool {
        self.names.contains(&chain.right_coset_name(&inverse(x)))
    }
}
