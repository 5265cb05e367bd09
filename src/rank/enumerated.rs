//! The exact fallback for groups the invariants overestimate or cannot index: every reachable
//! board is listed (they are few: such groups are the exceptional small ones, like the 120
//! boards of NRP (2,3,2) or the 720 of (3,4,3), and definitions whose orientations the
//! layouts cannot hold), sorted, and ranked by its place in the list. Moves are precomputed
//! as transition tables, so the search runs on ranks directly. Orientations nobody sees (a
//! definition's `?`) are set to 0 in every board listed or looked up, so boards that differ
//! only there are one board.

use std::collections::HashMap;
use std::hash::Hasher;

use hashbrown::HashTable;
use rustc_hash::FxHasher;

use crate::puzzle::board::clear_unseen_turns;
use crate::puzzle::{Board, Move, Puzzle};
use crate::{Error, Result};

/// The largest group listed board by board.
pub const MAX_LISTED: u64 = 5_000_000;

/// Every reachable board, sorted, with the moves as rank-to-rank tables.
#[derive(Clone, Debug)]
pub struct Enumerated {
    /// Every board, in the order the listing found them: `width` bytes each, the tiles then
    /// the orientations. One buffer, not a `Board` (two allocations) per board: hashing and
    /// comparing boards was most of a listing's time (six dials turning modulo 12, 2,985,984
    /// boards: 45 s).
    found: Vec<u8>,
    width: usize,
    /// Each board's place in `found`, hashed by its bytes.
    index: HashTable<u32>,
    /// `found_at[r]`: where the board of rank `r` is in `found`; `rank[i]` the reverse.
    found_at: Vec<u32>,
    rank: Vec<u32>,
    /// `tables[m][r]`: the rank reached from rank `r` by move `m`; `tables[scramble[m]]` by
    /// its inverse, which is another move's table where the moves hold the inverse.
    tables: Vec<Vec<u32>>,
    scramble: Vec<usize>,
    /// `unseen[tile]`: the tile's orientation is not seen (empty: every one is).
    unseen: Vec<bool>,
}

/// The hash of a board's bytes.
fn hash_of(bytes: &[u8]) -> u64 {
    let mut h = FxHasher::default();
    h.write(bytes);
    h.finish()
}

/// The bytes of board `i` of `found`.
fn board_bytes(found: &[u8], width: usize, i: u32) -> &[u8] {
    &found[i as usize * width..(i as usize + 1) * width]
}

impl Enumerated {
    /// Lists the boards reachable from the solved one; fails past [`MAX_LISTED`].
    ///
    /// Each neighbour is looked up once, while listing, and only under the moves that are no
    /// product of two earlier ones: their tables are recorded in the order boards are found,
    /// then renumbered by rank, and the other moves' tables composed from them. A
    /// definition's moves may be many (every power of a move of order 84 is one in `htm`), and
    /// a lookup hashes a whole board: looking every neighbour up again after sorting, and
    /// again for the inverse moves, took 7 s of the 7.6 s `info` of a random definition with
    /// 34,020 boards and 166 moves.
    pub fn new(puzzle: &Puzzle) -> Result<Enumerated> {
        let unseen = match puzzle.defined() {
            Some(d) if d.unseen_orientations().contains(&true) => d.unseen_orientations().to_vec(),
            _ => Vec::new(),
        };
        let n = puzzle.n_positions();
        let width = 2 * n;
        let k = puzzle.orient_mod.max(1) as usize;
        // `(o + t) mod k` for any two bytes, without a division.
        let add_mod: Vec<u8> = (0..512).map(|s| (s % k) as u8).collect();
        let solved = puzzle.solved();
        let mut found: Vec<u8> = [solved.tiles, solved.orient].concat();
        let mut index: HashTable<u32> = HashTable::new();
        index.insert_unique(hash_of(&found), 0, |_| unreachable!("an empty table"));
        // Only the moves that are no product of two earlier ones are looked up board by
        // board; they generate the rest, whose tables are composed from theirs below.
        let recipes = products_of_earlier_moves(puzzle);
        let listed: Vec<usize> = (0..recipes.len()).filter(|&m| recipes[m].is_none()).collect();
        // `moved[l][i]`: where move `listed[l]` takes the `i`-th board found.
        let mut moved: Vec<Vec<u32>> = vec![Vec::new(); listed.len()];
        let mut next = vec![0u8; width];
        let mut i = 0u32;
        while (i as usize) < found.len() / width {
            for (&m, to) in listed.iter().zip(&mut moved) {
                let m = &puzzle.moves[m];
                apply(m, board_bytes(&found, width, i), &mut next, &add_mod, &unseen);
                let hash = hash_of(&next);
                let at = match index.find(hash, |&j| board_bytes(&found, width, j) == next) {
                    Some(&at) => at,
                    None => {
                        let at = (found.len() / width) as u32;
                        if at as u64 >= MAX_LISTED {
                            return Err(Error::Unsupported(format!(
                                "the moves generate a group the invariants cannot index, with more than {MAX_LISTED} boards"
                            )));
                        }
                        found.extend_from_slice(&next);
                        index.insert_unique(hash, at, |&j| hash_of(board_bytes(&found, width, j)));
                        at
                    }
                };
                to.push(at);
            }
            i += 1;
        }
        let n_boards = found.len() / width;
        // Ranks follow the boards' order (tiles, then orientations): tables on disk hold them.
        let mut found_at: Vec<u32> = (0..n_boards as u32).collect();
        found_at.sort_unstable_by(|&a, &b| {
            board_bytes(&found, width, a).cmp(board_bytes(&found, width, b))
        });
        let mut rank = vec![0u32; n_boards];
        for (r, &i) in found_at.iter().enumerate() {
            rank[i as usize] = r as u32;
        }
        let mut moved = moved.into_iter();
        let mut tables: Vec<Vec<u32>> = Vec::with_capacity(recipes.len());
        for recipe in &recipes {
            let table = match *recipe {
                None => {
                    let to = moved.next().expect("a table for every move listed");
                    found_at.iter().map(|&i| rank[to[i as usize] as usize]).collect()
                }
                Some((a, b)) => tables[a].iter().map(|&r| tables[b][r as usize]).collect(),
            };
            tables.push(table);
        }
        // A move permutes the boards the moves reach (they are one orbit of a finite group),
        // so its inverse's table is its table inverted, or the table of a move that undoes it.
        let mut scramble = Vec::with_capacity(puzzle.moves.len());
        for (m, mv) in puzzle.moves.iter().enumerate() {
            let undo = mv.inverse(puzzle.orient_mod, String::new());
            match puzzle.moves.iter().position(|u| u.same_action(&undo)) {
                Some(u) => scramble.push(u),
                None => {
                    let mut back = vec![0u32; n_boards];
                    for (r, &t) in tables[m].iter().enumerate() {
                        back[t as usize] = r as u32;
                    }
                    scramble.push(tables.len());
                    tables.push(back);
                }
            }
        }
        Ok(Enumerated { found, width, index, found_at, rank, tables, scramble, unseen })
    }

    /// Number of reachable boards.
    pub fn n_states(&self) -> u64 {
        self.found_at.len() as u64
    }

    /// Number of moves.
    pub fn n_moves(&self) -> usize {
        self.scramble.len()
    }

    /// Where move `m` takes each rank, in solving direction.
    pub fn solve_table(&self, m: usize) -> &[u32] {
        &self.tables[m]
    }

    /// Where the inverse of move `m` takes each rank.
    pub fn scramble_table(&self, m: usize) -> &[u32] {
        &self.tables[self.scramble[m]]
    }

    /// The rank of a board, or `None` if it is not reachable.
    pub fn rank_of(&self, board: &Board) -> Option<u32> {
        let mut bytes = [board.tiles.as_slice(), board.orient.as_slice()].concat();
        if bytes.len() != self.width {
            return None;
        }
        let (tiles, orient) = bytes.split_at_mut(self.width / 2);
        clear_unseen_turns(tiles, orient, &self.unseen);
        let found = |&j: &u32| board_bytes(&self.found, self.width, j) == bytes;
        self.index.find(hash_of(&bytes), found).map(|&i| self.rank[i as usize])
    }

    /// The board with a given rank.
    pub fn board(&self, rank: u32) -> Board {
        let bytes = board_bytes(&self.found, self.width, self.found_at[rank as usize]);
        let (tiles, orient) = bytes.split_at(self.width / 2);
        Board { tiles: tiles.to_vec(), orient: orient.to_vec() }
    }
}

/// For each move, `Some((a, b))` where it acts as move `a` then move `b`, both earlier in the
/// list: its table is theirs composed, one read per board where a lookup hashes the board
/// and misses the cache twice. `htm` lists every power of a move, each the one before it
/// then the move: six dials turning modulo 12 have 66 moves and 6 looked up.
fn products_of_earlier_moves(puzzle: &Puzzle) -> Vec<Option<(usize, usize)>> {
    let k = puzzle.orient_mod.max(1);
    let mut earlier: HashMap<(&[u8], &[u8]), usize> = HashMap::new();
    let mut recipes = Vec::with_capacity(puzzle.moves.len());
    for (m, mv) in puzzle.moves.iter().enumerate() {
        // `m = a then b` exactly when `b = a^-1 then m`.
        let recipe = puzzle.moves[..m].iter().enumerate().find_map(|(a, first)| {
            let rest = first.inverse(k, String::new()).then(mv, k);
            earlier.get(&(rest.perm.as_slice(), rest.twist.as_slice())).map(|&b| (a, b))
        });
        recipes.push(recipe);
        earlier.entry((mv.perm.as_slice(), mv.twist.as_slice())).or_insert(m);
    }
    recipes
}

/// Writes into `next` the board `m` makes of `board` (both as tiles then orientations),
/// with the orientations of `unseen` tiles set to 0.
fn apply(m: &Move, board: &[u8], next: &mut [u8], add_mod: &[u8], unseen: &[bool]) {
    let n = board.len() / 2;
    let (tiles, orient) = board.split_at(n);
    let (next_tiles, next_orient) = next.split_at_mut(n);
    for (i, (&j, &t)) in m.perm.iter().zip(&m.twist).enumerate() {
        let j = j as usize;
        next_tiles[j] = tiles[i];
        next_orient[j] = add_mod[orient[i] as usize + t as usize];
    }
    clear_unseen_turns(next_tiles, next_orient, unseen);
}
