//! Shortest solutions: read from a finished distance table ([`descent`]), or found by
//! iterative-deepening A* ([`ida`]) guided by pattern tables ([`pattern`]) that the search
//! engine builds for the puzzle with most tiles made identical, for puzzles whose whole table
//! does not fit.

pub mod descent;
pub mod ida;
pub mod pattern;

pub use descent::solve;

#[cfg(test)]
mod tests;
