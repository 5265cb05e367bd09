//! The result of an enumeration as data: what `--json` writes and the CLI prints.

use serde::{Deserialize, Serialize};

use crate::bfs::Outcome;
use crate::puzzle::Puzzle;
use crate::rank::StateSpace;

/// A finished enumeration. Field names are the JSON format.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The puzzle spec as typed.
    pub puzzle: String,
    /// `qtm`, `htm` or `cw`.
    pub metric: String,
    /// Number of reachable boards.
    pub states: u64,
    /// The largest distance.
    pub gods_number: u32,
    /// Boards at each distance (index = distance).
    pub histogram: Vec<u64>,
    /// Boards at the largest distance.
    pub antipodes: u64,
    /// Up to ten of them (those of smallest rank), in board notation.
    pub antipode_boards: Vec<String>,
    /// Wall-clock seconds of the search.
    pub elapsed_seconds: f64,
    /// Worker threads used.
    pub threads: usize,
    /// Size of the distance table in bytes.
    pub table_bytes: u64,
    /// Boards with exactly one shortest solution at each distance (`--unique` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unique_histogram: Option<Vec<u64>>,
    /// Their total (`--unique` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unique_total: Option<u64>,
}

impl Report {
    /// Assembles the report of a finished search.
    pub fn new(
        spec: &str,
        puzzle: &Puzzle,
        space: &StateSpace,
        outcome: &Outcome,
        elapsed_seconds: f64,
        threads: usize,
        table_bytes: u64,
    ) -> Report {
        Report {
            puzzle: spec.to_string(),
            metric: puzzle.metric.name().to_string(),
            states: outcome.states(),
            gods_number: outcome.gods_number(),
            histogram: outcome.histogram.clone(),
            antipodes: *outcome.histogram.last().unwrap(),
            antipode_boards: outcome
                .antipodes
                .iter()
                .map(|&r| puzzle.format_board(&space.board(r)))
                .collect(),
            elapsed_seconds,
            threads,
            table_bytes,
            unique_histogram: outcome.unique_histogram.clone(),
            unique_total: outcome.unique_histogram.as_ref().map(|u| u.iter().sum()),
        }
    }
}
