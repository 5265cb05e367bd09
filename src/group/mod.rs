//! Group theory on the moves: the invariants that bound the reachable set, stabilizer
//! chains that give exact group orders and membership, and the cycle structure of one element.

pub mod analysis;
pub mod cycles;
pub mod invariants;
pub mod lattice;
pub mod relabel_cosets;
pub mod solvable;
pub mod stabchain;
pub mod wide;
