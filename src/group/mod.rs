//! Group theory on the moves: the invariants that bound the reachable set, and stabilizer
//! chains that give exact group orders and membership.

pub mod invariants;
pub mod solvable;
pub mod stabchain;
