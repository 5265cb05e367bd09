//! The exact fallback for groups the invariants overestimate: every reachable board is listed
//! (they are few: such groups are the exceptional small ones, like the 120 boards of NRP
//! (2,3,2) or the 720 of (3,4,3)), sorted, and ranked by its place in the list. Moves are
//! precomputed as transition tables, so the search runs on ranks directly. Orientations
//! nobody sees (a definition's `?`) are set to 0 in every board listed or looked up, so
//! boards that differ only there are one board.

use rustc_hash::FxHashMap;

use crate::puzzle::{Board, Puzzle};
use crate::{Error, Result};

/// The largest group listed board by board.
pub const MAX_LISTED: u64 = 5_000_000;

/// Every reachable board, sorted, with the moves as rank-to-rank tables.
#[derive(Clone, Debug)]
pub struct Enumerated {
    boards: Vec<Board>,
    /// Fx hashing, quicker than SipHash on the boards' bytes (the arecibo's `info`, which
    /// lists 5,000,000 boards before failing: 30 s -> 23 s).
    index: FxHashMap<Board, u32>,
    /// `solve[m][r]`: the rank reached from rank `r` by move `m`.
    solve: Vec<Vec<u32>>,
    /// `scramble[m][r]`: the rank reached by the inverse of move `m`.
    scramble: Vec<Vec<u32>>,
    /// `unseen[tile]`: the tile's orientation is not seen (empty: every one is).
    unseen: Vec<bool>,
}

impl Enumerated {
    /// Lists the boards reachable from the solved one; fails past [`MAX_LISTED`].
    ///
    /// Each neighbour is looked up once, while listing: the moves' tables are recorded in the
    /// order boards are found, then renumbered by the sorted list. A definition's moves may be
    /// many (every power of a move of order 84 is one in `htm`), and a lookup hashes a whole
    /// board: looking every neighbour up again after sorting, and again for the inverse moves,
    /// took 7 s of the 7.6 s `info` of a random definition with 34,020 boards and 166 moves.
    pub fn new(puzzle: &Puzzle) -> Result<Enumerated> {
        let unseen = match puzzle.defined() {
            Some(d) if d.unseen_orientations().contains(&true) => d.unseen_orientations().to_vec(),
            _ => Vec::new(),
        };
        let seen = |b: Board| b.without_unseen_turns(&unseen);
        let solved = puzzle.solved();
        let mut index: FxHashMap<Board, u32> = FxHashMap::default();
        index.insert(solved.clone(), 0);
        let mut boards = vec![solved];
        // `found[m][i]`: where move `m` takes the `i`-th board found, by order of finding.
        let mut found: Vec<Vec<u32>> = vec![Vec::new(); puzzle.moves.len()];
        let mut next = 0;
        while next < boards.len() {
            let b = boards[next].clone();
            next += 1;
            for (m, to) in puzzle.moves.iter().zip(&mut found) {
                let c = seen(puzzle.apply(&b, m));
                let at = match index.get(&c) {
                    Some(&at) => at,
                    None => {
                        if boards.len() as u64 >= MAX_LISTED {
                            return Err(Error::Unsupported(format!(
                                "the moves generate a group the invariants cannot index, with more than {MAX_LISTED} boards"
                            )));
                        }
                        let at = boards.len() as u32;
                        index.insert(c.clone(), at);
                        boards.push(c);
                        at
                    }
                };
                to.push(at);
            }
        }
        // `order[r]`: the board of rank `r`, by order of finding; `rank[i]` the reverse.
        let mut order: Vec<u32> = (0..boards.len() as u32).collect();
        order.sort_by(|&a, &b| {
            let (a, b) = (&boards[a as usize], &boards[b as usize]);
            (&a.tiles, &a.orient).cmp(&(&b.tiles, &b.orient))
        });
        let mut rank = vec![0u32; boards.len()];
        for (r, &i) in order.iter().enumerate() {
            rank[i as usize] = r as u32;
        }
        let mut slots: Vec<Option<Board>> = boards.into_iter().map(Some).collect();
        let boards: Vec<Board> =
            order.iter().map(|&i| slots[i as usize].take().expect("each board once")).collect();
        for (r, b) in boards.iter().enumerate() {
            *index.get_mut(b).expect("every board listed is indexed") = r as u32;
        }
        let solve: Vec<Vec<u32>> = found
            .into_iter()
            .map(|to| order.iter().map(|&i| rank[to[i as usize] as usize]).collect())
            .collect();
        // A move permutes the boards the moves reach (they are one orbit of a finite group),
        // so its inverse's table is its table inverted.
        let scramble = solve
            .iter()
            .map(|to| {
                let mut back = vec![0u32; to.len()];
                for (r, &t) in to.iter().enumerate() {
                    back[t as usize] = r as u32;
                }
                back
            })
            .collect();
        Ok(Enumerated { boards, index, solve, scramble, unseen })
    }

    /// Number of reachable boards.
    pub fn n_states(&self) -> u64 {
        self.boards.len() as u64
    }

    /// Transition tables in solving direction.
    pub fn solve_moves(&self) -> &[Vec<u32>] {
        &self.solve
    }

    /// Transition tables of the inverse moves.
    pub fn scramble_moves(&self) -> &[Vec<u32>] {
        &self.scramble
    }

    /// The rank of a board, or `None` if it is not reachable.
    pub fn rank_of(&self, board: &Board) -> Option<u32> {
        match self.unseen.is_empty() {
            true => self.index.get(board).copied(),
            false => self.index.get(&board.clone().without_unseen_turns(&self.unseen)).copied(),
        }
    }

    /// The board with a given rank.
    pub fn board(&self, rank: u32) -> &Board {
        &self.boards[rank as usize]
    }
}
