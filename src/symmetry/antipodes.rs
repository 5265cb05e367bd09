//! The antipodes a report lists: up to [`Listing::at_most`] boards at God's number (`bfs
//! --antipodes N`, [`SAMPLE`] unless asked), those of smallest rank in the board ranking (the
//! one `--symmetry off` searches), whatever the table ranks.
//!
//! A search by boards keeps the [`SAMPLE`] smallest ranks of its last distance, which are
//! these boards, and every rank of a last distance of at most [`crate::bfs::KEEP_AT_MOST`]
//! (from which any number is listed); a longer list of a larger last distance gets the
//! sample only.
//! A search by classes keeps the smallest *entries*, whose boards are neither the smallest
//! boards nor all of the antipodes: every antipode class is expanded to its boards (the
//! symmetry images of its representative), ranked as boards, and the smallest kept. The
//! classes at God's number are those the search kept when it kept them all (the sample, or
//! every entry of a small last distance: [`Outcome::last_level`]); otherwise they are read
//! from the table (see [`last_level`]).

use rayon::prelude::*;

use crate::Result;
use crate::bfs::processes::{agree, gather_table};
use crate::bfs::{Outcome, Processes, SAMPLE, SearchSpace};
use crate::optimal;
use crate::puzzle::{Board, Puzzle};
use crate::rank::{StateRanking, StateSpace};
use crate::table::{DistanceTable, mark_of};

/// Largest table of classes scanned for its last distance (2^25 entries, about ten seconds
/// here): a scan reads a third of the table and descends from what it finds, hours on the
/// tables of the largest results. Beyond it the list is the smallest boards of the classes
/// the search kept (exact when it kept every class at God's number).
pub const MAX_SCANNED: u64 = 1 << 25;

/// Which antipodes a report lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Listing {
    /// At most this many (`bfs --antipodes N`; 0: none).
    pub at_most: usize,
    /// The search started from a set of goals (`bfs --goals`): its table's distances are to
    /// the nearest goal, so no descent to solved measures them (the table is not scanned).
    pub from_goals: bool,
}

impl Default for Listing {
    /// [`SAMPLE`] antipodes of a search from solved.
    fn default() -> Listing {
        Listing { at_most: SAMPLE, from_goals: false }
    }
}

/// Whether [`smallest_antipodes`] reads the finished table (when given it): a search from
/// solved whose last distance holds more entries than it kept, in a table of at most
/// [`MAX_SCANNED`] entries, where the kept ones cannot answer: by classes (their boards'
/// order is not the entries'), or by boards asked for more than were kept (a resumed table:
/// `resume --antipodes 200`). Processes that each hold a part gather the whole table for it.
fn reads_the_table(space: &StateSpace, outcome: &Outcome, listing: Listing) -> bool {
    let (kept, at_last) = (outcome.antipodes.len(), outcome.histogram.last().copied());
    let wanted = match space.entry_classes() {
        Some(_) => 0,
        None => kept,
    };
    listing.at_most > wanted
        && !listing.from_goals
        && outcome.last_level.is_none()
        && (kept as u64) < at_last.unwrap_or(0)
        && space.n_states() <= MAX_SCANNED
}

/// Up to `listing.at_most` antipodes of smallest board rank, in board-rank order. `table` is
/// the finished table of the search; without it (or when it passes [`MAX_SCANNED`]) a search
/// by classes whose last distance holds more entries than were kept lists the boards of the
/// kept entries only.
pub fn smallest_antipodes(
    puzzle: &Puzzle,
    space: &StateSpace,
    outcome: &Outcome,
    table: Option<&DistanceTable>,
    listing: Listing,
) -> Result<Vec<Board>> {
    if space.entry_classes().is_none() {
        if let Some(t) = table
            && reads_the_table(space, outcome, listing)
        {
            // Boards are ranks: the table's last distance, in rank order.
            let mut ranks = last_level(puzzle, space, t, outcome.gods_number(), &|_| true)?;
            ranks.sort_unstable();
            return Ok(ranks.iter().take(listing.at_most).map(|&r| space.board(r)).collect());
        }
        let kept = outcome.last_level.as_deref().unwrap_or(&outcome.antipodes);
        return Ok(kept.iter().take(listing.at_most).map(|&r| space.board(r)).collect());
    }
    let boards = space.boards(puzzle)?;
    let ranks = smallest_board_ranks(puzzle, space, outcome, table, &boards, &|_| true, listing)?;
    Ok(ranks.into_iter().map(|r| boards.board(r)).collect())
}

/// The `at_most` smallest of every process's `ranks`, sorted, on every process. Collective.
fn smallest_of_all(processes: &dyn Processes, ranks: &[u64], at_most: usize) -> Vec<u64> {
    let mut mine = ranks.to_vec();
    mine.sort_unstable();
    mine.truncate(at_most);
    let mut all = Vec::new();
    processes.gather(&mine, &mut all);
    all.sort_unstable();
    all.dedup();
    all.truncate(at_most);
    all
}

/// The antipodes a finished search lists ([`smallest_antipodes`]), `table` being this
/// process's table of it. Processes that each hold a part list the boards of their share of
/// a kept last distance, or else gather the whole table where [`reads_the_table`] and each
/// scan the entries dealt to it; the smallest boards of all are merged. Collective.
pub fn antipodes_of_search(
    puzzle: &Puzzle,
    space: &StateSpace,
    outcome: &Outcome,
    table: &DistanceTable,
    processes: &dyn Processes,
    listing: Listing,
) -> Result<Vec<Board>> {
    let (me, count) = (processes.index(), processes.count());
    if count == 1 {
        return smallest_antipodes(puzzle, space, outcome, Some(table), listing);
    }
    if space.entry_classes().is_none()
        && let Some(mine) = &outcome.last_level
    {
        // Each process holds its own share of the last distance.
        let ranks = smallest_of_all(processes, mine, listing.at_most);
        return Ok(ranks.into_iter().map(|r| space.board(r)).collect());
    }
    let scan = reads_the_table(space, outcome, listing);
    if space.entry_classes().is_none() || (outcome.last_level.is_none() && !scan) {
        return smallest_antipodes(puzzle, space, outcome, None, listing);
    }
    let deal = space.deal(count);
    let whole = match scan {
        true => Some(agree(processes, gather_table(table, &deal, processes))?),
        false => None,
    };
    let boards = space.boards(puzzle)?;
    // A kept last distance holds this process's own entries only, all of them dealt to it.
    let mine = |e: u64| deal.owner(e) == me;
    let ranks =
        smallest_board_ranks(puzzle, space, outcome, whole.as_ref(), &boards, &mine, listing);
    let ranks = agree(processes, ranks)?;
    let ranks = smallest_of_all(processes, &ranks, listing.at_most);
    Ok(ranks.into_iter().map(|r| boards.board(r)).collect())
}

/// The board ranks (in `boards`) of up to `listing.at_most` smallest antipodes, from the
/// entries of the last distance that `mine` keeps (see [`smallest_antipodes`]).
fn smallest_board_ranks(
    puzzle: &Puzzle,
    space: &StateSpace,
    outcome: &Outcome,
    table: Option<&DistanceTable>,
    boards: &StateSpace,
    mine: &(dyn Fn(u64) -> bool + Sync),
    listing: Listing,
) -> Result<Vec<u64>> {
    let g = outcome.gods_number();
    let entries = match (&outcome.last_level, table) {
        _ if listing.at_most == 0 => Vec::new(),
        (Some(all), _) => all.iter().copied().filter(|&e| mine(e)).collect(),
        (None, Some(t)) if reads_the_table(space, outcome, listing) => {
            last_level(puzzle, space, t, g, mine)?
        }
        _ => outcome.antipodes.iter().copied().filter(|&e| mine(e)).collect(),
    };
    // Every antipode class's boards ranked, on every thread (the 2x2x2's 902 classes at
    // God's number have 86,592 images: 17 ms on one).
    let keep_smallest = |mut ranks: Vec<u64>| {
        ranks.sort_unstable();
        ranks.dedup();
        ranks.truncate(listing.at_most);
        ranks
    };
    entries
        .par_iter()
        .map(|&e| {
            let board = space.board(e);
            let images = space.class_images(&board).unwrap_or_else(|| vec![board]);
            let ranks = images.iter().map(|b| boards.rank_board(b));
            ranks.collect::<Result<Vec<u64>>>().map(keep_smallest)
        })
        .try_reduce(Vec::new, |mut a, b| {
            a.extend(b);
            Ok(keep_smallest(a))
        })
}

/// Every entry at distance `g` (God's number) of a finished table. A mark says the
/// distance modulo 3 only, so an entry marked like `g` may be at `g - 3`, `g - 6`, ...: in an
/// undirected move graph such an entry mostly has a neighbour one further away, marked like
/// `g + 1`, which an antipode cannot have; the entries left are measured by a descent
/// (exact: the length of a shortest solution). One pass over the entries `mine` keeps, in
/// parallel.
fn last_level(
    puzzle: &Puzzle,
    space: &StateSpace,
    table: &DistanceTable,
    g: u32,
    mine: &(dyn Fn(u64) -> bool + Sync),
) -> Result<Vec<u64>> {
    let (want, further) = (mark_of(g), mark_of(g + 1));
    let further_by = |r: u64| -> Result<bool> {
        // In working form where the classes rank boards by a layout: most entries scanned
        // are dropped here, by one probe a move.
        if let Some(classes) = space.classes() {
            let s = classes.unrank(r);
            let moved = |m| classes.rank(&classes.solve_step(&s, m));
            return Ok((0..classes.n_moves()).any(|m| table.get(moved(m)) == further));
        }
        let board = space.board(r);
        for m in &puzzle.moves {
            if table.get(space.rank_board(&puzzle.apply(&board, m))?) == further {
                return Ok(true);
            }
        }
        Ok(false)
    };
    let at_g = |r: u64| -> Result<bool> {
        if puzzle.undirected && further_by(r)? {
            return Ok(false);
        }
        Ok(optimal::solve(puzzle, space, table, &space.board(r), g)?.len() == g as usize)
    };
    let found: Vec<Result<u64>> = (0..table.n_states())
        .into_par_iter()
        .filter(|&r| table.get(r) == want && mine(r))
        .filter_map(|r| match at_g(r) {
            Ok(true) => Some(Ok(r)),
            Ok(false) => None,
            Err(e) => Some(Err(e)),
        })
        .collect();
    found.into_iter().collect()
}
