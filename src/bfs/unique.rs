//! Counting shortest solutions, saturating at two, alongside the distances.
//!
//! Every board keeps a *multi* bit: set when it has two or more shortest solutions (move
//! sequences of least length that solve it). A board at distance `d+1` has as many as the sum,
//! over the moves taking it to a board at distance `d`, of that board's count. Both steps here
//! compute that sum board by board:
//! - backward: an unseen board looks at all its moves (stopping once the sum reaches two);
//! - forward: every frontier board visits its predecessors; the first visitor of a board found
//!   in this level marks it (and passes on its own multi bit), any later visitor sets the
//!   multi bit. The *fresh* bit tells a board found in this level (a later visitor counts)
//!   from one found in an earlier level with the same mark (it does not), and is cleared when
//!   the level ends.
//!
//! Both work for directed move sets too: a move's neighbour marked `d` is at distance exactly
//! `d` in the backward step, and the fresh bit identifies level `d+1` in the forward step.
//!
//! A level interrupted in the forward direction has fresh boards whose counts may miss
//! visitors; [`DistanceTable::unmark_fresh`] drops them before a resume (the backward step finishes each
//! board before marking it, so its boards are complete).

use super::{LevelCount, Place, Step};
use crate::rank::StateRanking;
use crate::table::{DistanceTable, RankSet, UNSEEN};

/// Forward step: every board marked `d` visits the boards one move before it (those another
/// process holds through its outbox, each with the visitor's multi bit).
pub fn expand_frontier<S: StateRanking>(
    step: &Step<'_, S>,
    groups: std::ops::Range<usize>,
) -> LevelCount {
    let (space, table, part) = (step.space, step.table, step.part);
    let bits = table.unique_bits();
    step.in_group_tasks(groups, |task, level| {
        for group in task {
            let to_rank = part.rank_offset(group);
            // Boards marked `d` include those at d-3, d-6...: all their neighbours are already
            // seen and not fresh, so visiting them changes nothing.
            for i in table.marked(group, step.cur) {
                let is_multi = bits.is_multi(i);
                let s = space.unrank(i.wrapping_add(to_rank));
                for m in 0..space.n_moves() {
                    let r = space.rank(&space.scramble_step(&s, m));
                    match part.place(r) {
                        Place::Here(j) => {
                            if visit(table, j, step.next, is_multi) {
                                level.note(r);
                            }
                        }
                        Place::There(owner, j) => {
                            level.outbox.to(owner, part.parts()).push(j << 1 | is_multi as u64);
                        }
                    }
                }
            }
        }
    })
}

/// A visit of the board at table index `j` from a board of the frontier (multi or not) in a
/// forward step; whether this visit found it.
#[inline]
pub(crate) fn visit(table: &DistanceTable, j: u64, next: u8, is_multi: bool) -> bool {
    let bits = table.unique_bits();
    // Acquire pairs with the marking thread's Release: seeing its mark means seeing the
    // fresh bit it set first.
    if table.get_acquire(j) != UNSEEN && !bits.is_fresh(j) {
        return false;
    }
    // The fresh bit is the claim: whoever sets it first marks the board.
    if !bits.claim_fresh(j) {
        bits.set_multi(j);
        return false;
    }
    table.mark_if_unseen(j, next);
    if is_multi {
        bits.set_multi(j);
    }
    true
}

/// Backward step: every unseen board adds up the counts of its neighbours marked `d`. A board
/// with neighbours another process holds, and fewer than two paths among its own, asks
/// their owners (its table index and its own paths in the outbox) and is marked once they
/// answer.
pub fn expand_unseen<S: StateRanking>(
    step: &Step<'_, S>,
    groups: std::ops::Range<usize>,
) -> LevelCount {
    let (space, table, part) = (step.space, step.table, step.part);
    let bits = table.unique_bits();
    step.in_group_tasks(groups, |task, level| {
        let mut remote = Vec::new();
        for group in task {
            let to_rank = part.rank_offset(group);
            let mut found = RankSet::empty_of(group);
            for i in table.unseen(group) {
                let s = space.unrank(i.wrapping_add(to_rank));
                let mut paths = 0;
                remote.clear();
                for m in 0..space.n_moves() {
                    let r = space.rank(&space.solve_step(&s, m));
                    let j = match part.place(r) {
                        Place::Here(j) => j,
                        Place::There(owner, j) => {
                            remote.push((owner, j));
                            continue;
                        }
                    };
                    if table.get(j) == step.cur {
                        paths += if bits.is_multi(j) { 2 } else { 1 };
                        if paths >= 2 {
                            break;
                        }
                    }
                }
                if paths < 2 && !remote.is_empty() {
                    for &(owner, j) in &remote {
                        level.outbox.ask(owner, part.parts(), j, &[i, paths]);
                    }
                    continue;
                }
                if paths > 0 {
                    // The multi bit goes first: a board is never marked with a partial count.
                    if paths >= 2 {
                        bits.set_multi(i);
                    }
                    found.insert(i);
                    level.note(i.wrapping_add(to_rank));
                }
            }
            // This task owns the group: no other writer can race with the store.
            table.set_owned(found, step.next);
        }
    })
}

/// Boards at distance `d` with one shortest solution, given the boards marked `d` without
/// the multi bit (`single`, [`DistanceTable::count_marked_single`]) and the counts of the
/// distances before it (`earlier[j]` for `j < d`): `single` less the boards of the earlier
/// distances with the same mark.
pub fn count_level(single: u64, d: u32, earlier: &[u64]) -> u64 {
    let all = single;
    let before: u64 = (0..d as usize).filter(|j| j % 3 == d as usize % 3).map(|j| earlier[j]).sum();
    all - before
}
