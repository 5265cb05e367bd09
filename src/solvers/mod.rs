//! Constructive solvers: published step-by-step strategies, run exactly as written.
//!
//! A search ([`crate::bfs`]) finds the distance of every board; a constructive solver instead
//! follows a fixed recipe ("place 1, then 2, ...") and yields *some* solution. twirl runs such
//! recipes as their authors published them, on every board, so that their claims (the boards
//! they solve, the number of moves they need) can be checked against the exact searches.
//!
//! - [`lee`]: Y. Lee's eight-stage solver for the 3x3 "Rotation" puzzle (NRP (3,3,2),
//!   clockwise turns only).
//!
//! - [`constructive`]: a solver for every solvable NRP board `(n, m, b)` of any size (beyond
//!   twirl's 255-cell boards): Lam's Theorem 1.1 decides solvability (with the reason when a
//!   board is not), then tiles are placed directly, one turn fixes parity, and conjugated
//!   3-cycles finish; the small exceptional groups are searched exhaustively.

pub mod constructive;
pub mod lee;
