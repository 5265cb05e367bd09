//! The result of an enumeration as data: what `--json` writes and the CLI prints.

use serde::{Deserialize, Serialize};

use crate::Result;
use crate::bfs::{Outcome, Processes};
use crate::puzzle::{Board, Puzzle};
use crate::rank::{Ranking, StateRanking, StateSpace};
use crate::symmetry::antipodes::{Listing, antipodes_of_search};
use crate::table::DistanceTable;

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
    /// Up to ten of them (`bfs --antipodes N`: up to N), those of smallest rank in the board ranking (the one of
    /// `--symmetry off`, also for a table of classes), in board notation.
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
    /// The symmetry reduction of the table (searches of symmetry classes only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symmetry: Option<SymmetryReport>,
    /// The goals of a search from several (`bfs --goals`): the histogram counts boards by
    /// their distance to the nearest goal. Absent for a search from solved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goals: Option<GoalsReport>,
}

/// The goals a search started from. Field names are the JSON format.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GoalsReport {
    /// The file they were read from, as named (`-`: standard input).
    pub file: String,
    /// Number of distinct goals (the boards at distance 0).
    pub count: u64,
    /// Hex xxh3-64 of the goals as a set (see [`crate::puzzle::goals::GoalsRecord`]).
    pub digest: String,
    /// The goals in board notation, when there are at most
    /// [`crate::puzzle::goals::LISTED_AT_MOST`]; else empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub boards: Vec<String>,
}

impl GoalsReport {
    /// What a report says of `goals` of `puzzle`.
    pub fn of(goals: &crate::puzzle::goals::Goals, puzzle: &Puzzle) -> GoalsReport {
        let few = goals.boards.len() <= crate::puzzle::goals::LISTED_AT_MOST;
        GoalsReport {
            file: goals.source.clone(),
            count: goals.record.count,
            digest: goals.record.digest.clone(),
            boards: match few {
                true => goals.boards.iter().map(|b| puzzle.format_board(b)).collect(),
                false => Vec::new(),
            },
        }
    }
}

/// How a table of symmetry classes was reduced. Field names are the JSON format.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SymmetryReport {
    /// The order of the group acting on boards: the symmetries, doubled by inversion.
    pub order: u64,
    /// The symmetries, by name.
    pub elements: Vec<String>,
    /// Whether inversion (`g -> g^-1`) is in the group (reports written before it was
    /// used have no such field: false).
    #[serde(default)]
    pub inversion: bool,
    /// Classes of boards under the group (exact).
    pub classes: u64,
    /// Table entries: the classes, and a second entry for a class whose boards' key tiles
    /// are placed symmetrically (see `twirl::symmetry::ranking`).
    pub entries: u64,
    /// The key cells (numbered from 1) whose tiles make the first part of an entry.
    pub key_cells: Vec<u8>,
    /// Table entries at each distance.
    pub entry_histogram: Vec<u64>,
}

/// What a report says beyond a search's outcome, worked out by all its processes together.
pub struct Findings {
    /// The antipodes listed (see [`antipodes_of_search`]).
    pub antipode_boards: Vec<Board>,
    /// The number of classes of boards, for a table of classes.
    pub classes: Option<u64>,
}

impl Findings {
    /// The findings of a finished search, `table` being this process's table of it; the
    /// exact number of classes only if `count_classes` (a JSON report gives it, the printed
    /// summary does not, and counting reads every entry of the classes with a stabilizer:
    /// 0.8 s of the pyraminx's 11). Collective.
    pub fn of_search(
        puzzle: &Puzzle,
        space: &StateSpace,
        outcome: &Outcome,
        table: &DistanceTable,
        processes: &dyn Processes,
        listing: Listing,
        count_classes: bool,
    ) -> Result<Findings> {
        let antipode_boards =
            antipodes_of_search(puzzle, space, outcome, table, processes, listing)?;
        let (me, count) = (processes.index(), processes.count());
        let classes = match &space.ranking {
            // Its repeats are counted from its tables alone, alike in every process.
            Ranking::CoordClasses(c) => count_classes.then(|| c.exact_classes()),
            Ranking::FibreClasses(c) => count_classes.then(|| c.exact_classes()),
            Ranking::FlipClasses(c) => count_classes.then(|| c.exact_classes()),
            _ => (space.classes().filter(|_| count_classes))
                .map(|c| c.n_states() - processes.sum(c.repeats_in_share(me, count))),
        };
        Ok(Findings { antipode_boards, classes })
    }
}

impl Report {
    /// Assembles the report of a finished search.
    pub fn new(
        puzzle: &Puzzle,
        space: &StateSpace,
        outcome: &Outcome,
        findings: &Findings,
        elapsed_seconds: f64,
        threads: usize,
        table_bytes: u64,
    ) -> Report {
        let boards = outcome.board_histogram();
        let names = |syms: &crate::symmetry::Symmetries| -> Vec<String> {
            syms.elements.iter().map(|s| s.name.clone()).collect()
        };
        // Classes of identical pieces (their digits, or their projections and fibres): no
        // key cells, no inversion.
        let of_identical_pieces = match &space.ranking {
            Ranking::CoordClasses(c) => Some((c.order(), c.symmetries())),
            Ranking::FibreClasses(c) => Some((c.order(), c.symmetries())),
            Ranking::FlipClasses(c) => Some((c.order(), c.symmetries())),
            _ => None,
        };
        let symmetry = match of_identical_pieces {
            Some((order, syms)) => findings.classes.map(|classes| SymmetryReport {
                order,
                elements: names(syms),
                inversion: false,
                classes,
                entries: space.n_states(),
                key_cells: Vec::new(),
                entry_histogram: outcome.histogram.clone(),
            }),
            None => space.classes().zip(findings.classes).map(|(c, classes)| SymmetryReport {
                order: c.order(),
                elements: names(c.symmetries()),
                inversion: c.inverts(),
                classes,
                entries: c.n_states(),
                key_cells: c.key_cells().iter().map(|k| k + 1).collect(),
                entry_histogram: outcome.histogram.clone(),
            }),
        };
        Report {
            puzzle: puzzle.spec.named(),
            metric: puzzle.metric.name().to_string(),
            states: boards.iter().sum(),
            gods_number: outcome.gods_number(),
            histogram: boards.to_vec(),
            antipodes: *boards.last().unwrap(),
            antipode_boards: Vec::new(),
            elapsed_seconds,
            threads,
            table_bytes,
            unique_histogram: outcome.unique_histogram.clone(),
            unique_total: outcome.unique_histogram.as_ref().map(|u| u.iter().sum()),
            symmetry,
            goals: None,
        }
        .with_antipodes(puzzle, &findings.antipode_boards)
    }

    /// The report with `boards` as its listed antipodes.
    fn with_antipodes(mut self, puzzle: &Puzzle, boards: &[Board]) -> Report {
        self.antipode_boards = boards.iter().map(|b| puzzle.format_board(b)).collect();
        self
    }
}
