//! Published statements checked against exact group computations. Each check returns data
//! (a report); a disagreement between a statement and an exact count is a finding, not an
//! error.

pub mod lam;
pub mod spin;
