//! What a step leaves to other processes, and the buffers that carry it between them.
//!
//! Each worker thread writes into its own [`Outbox`] for a whole round (tasks add to it, no
//! task keeps one of its own), and a search keeps its workers' outboxes and its
//! [`Mailbox`]es from round to round while it exchanges items: the items go from a worker's
//! outbox to one send buffer and from the receive buffer to the table, and memory is taken
//! from the system once, not on every round (fresh buffers cost 300,000 page faults on NRP
//! (3,4,2) under two processes).

use std::sync::Mutex;

use super::processes::Received;

/// What a step leaves to other processes, by owner (always empty with one process).
#[derive(Default)]
pub(crate) struct Outbox {
    /// Forward: the neighbours to mark (ranks, or for XOR runs a run followed by its mask's
    /// words). Backward: the neighbours asked about (ranks, or the runs whose masks are
    /// asked for).
    pub(crate) to: Vec<Vec<u64>>,
    /// Backward: who asks each question (a table index, or for XOR runs a table run and the
    /// XOR offset of its image).
    pub(crate) askers: Vec<Vec<u64>>,
}

impl Outbox {
    /// Items for process `owner` (of `parts`).
    #[inline]
    pub(crate) fn to(&mut self, owner: usize, parts: usize) -> &mut Vec<u64> {
        if self.to.is_empty() {
            self.to = vec![Vec::new(); parts];
        }
        &mut self.to[owner]
    }

    /// A question for process `owner` (of `parts`), asked by `asker`.
    #[inline]
    pub(crate) fn ask(&mut self, owner: usize, parts: usize, question: u64, asker: &[u64]) {
        self.to(owner, parts).push(question);
        if self.askers.is_empty() {
            self.askers = vec![Vec::new(); parts];
        }
        self.askers[owner].extend_from_slice(asker);
    }

    /// The words held, askers included.
    pub(crate) fn words(&self) -> u64 {
        self.to.iter().chain(&self.askers).map(|v| v.len() as u64).sum()
    }

    /// Empties the outbox, keeping its memory.
    fn clear(&mut self) {
        self.to.iter_mut().chain(&mut self.askers).for_each(Vec::clear);
    }

    /// The items for `owner` (none when nothing was written).
    fn items_to(&self, owner: usize) -> &[u64] {
        self.to.get(owner).map_or(&[], Vec::as_slice)
    }

    /// The askers of the questions to `owner`.
    fn askers_to(&self, owner: usize) -> &[u64] {
        self.askers.get(owner).map_or(&[], Vec::as_slice)
    }
}

/// The outboxes of a round's workers, one each, and the spare ones the next round's workers
/// take up again.
#[derive(Default)]
pub(crate) struct Outboxes {
    /// Filled by the round just run, in the order their items are sent.
    pub(crate) filled: Vec<Outbox>,
    /// Emptied, for the next round's workers.
    spare: Mutex<Vec<Outbox>>,
}

impl Outboxes {
    /// An empty outbox for a worker of the coming round (one used before, where there is).
    pub(crate) fn take(&self) -> Outbox {
        self.spare.lock().expect("not poisoned").pop().unwrap_or_default()
    }

    /// Empties the round's outboxes into the spares.
    pub(crate) fn recycle(&mut self) {
        let spare = self.spare.get_mut().expect("not poisoned");
        for mut outbox in self.filled.drain(..) {
            outbox.clear();
            spare.push(outbox);
        }
    }

    /// The items held for other processes (askers not counted).
    pub(crate) fn items(&self) -> u64 {
        self.filled.iter().flat_map(|o| &o.to).map(|v| v.len() as u64).sum()
    }

    /// For each of `parts` owners, the pieces of its items, worker by worker.
    pub(crate) fn items_by_owner(&self, parts: usize) -> Vec<Vec<&[u64]>> {
        (0..parts).map(|p| self.filled.iter().map(|o| o.items_to(p)).collect()).collect()
    }

    /// Backward: the askers of the questions to every owner, each with the replies to them,
    /// cut into pieces of at most `per_task` questions. The questions to `owner` went out
    /// worker by worker, so its replies (`replies[owner]`, `per_reply` items for each
    /// question) are matched the same way; each question has `per_asker` words of askers.
    pub(crate) fn askers_with_replies<'a, T>(
        &'a self,
        replies: &[&'a [T]],
        (per_asker, per_reply, per_task): (usize, usize, usize),
    ) -> Vec<(&'a [u64], &'a [T])> {
        let mut pieces = Vec::new();
        for (owner, replies) in replies.iter().enumerate() {
            let mut at = 0;
            for outbox in &self.filled {
                let (askers, questions) = (outbox.askers_to(owner), outbox.items_to(owner).len());
                debug_assert_eq!(askers.len(), questions * per_asker, "askers of each question");
                let mine = &replies[at..at + questions * per_reply];
                at += mine.len();
                pieces.extend(
                    askers.chunks(per_asker * per_task).zip(mine.chunks(per_reply * per_task)),
                );
            }
            debug_assert_eq!(at, replies.len(), "a reply for every question");
        }
        pieces
    }
}

/// The buffers of one swap between processes, kept from round to round: what this process
/// sends, laid end to end, and what it received.
pub struct Mailbox<T> {
    /// Every owner's items, one after another (and a spare element, see the MPI swap).
    pub(crate) sending: Vec<T>,
    /// What every process sent here.
    pub received: Received<T>,
}

impl<T> Default for Mailbox<T> {
    fn default() -> Self {
        Mailbox { sending: Vec::new(), received: Received::new(Vec::new(), []) }
    }
}

impl<T: Copy> Mailbox<T> {
    /// Lays `by_owner`'s pieces end to end in the send buffer; the items for each owner.
    pub(crate) fn lay_out(&mut self, by_owner: &[Vec<&[T]>]) -> Vec<usize> {
        let total: usize = by_owner.iter().flatten().map(|p| p.len()).sum();
        // Room for the spare element too.
        empty_with_room(&mut self.sending, (total + 1).next_power_of_two());
        by_owner
            .iter()
            .map(|pieces| {
                let start = self.sending.len();
                pieces.iter().for_each(|p| self.sending.extend_from_slice(p));
                self.sending.len() - start
            })
            .collect()
    }
}

/// Empties `v` and makes room for `n` items in it, without copying what it held (as growing
/// would) when its memory is too small. Buffers of rounds ask for the next power of two:
/// rounds vary in size, and each new largest one would take fresh memory again.
pub(crate) fn empty_with_room<T>(v: &mut Vec<T>, n: usize) {
    v.clear();
    if v.capacity() < n {
        *v = Vec::with_capacity(n);
    }
}

/// `items`, one piece for each owner: the shape [`crate::bfs::Processes::swap`] takes.
pub(crate) fn one_piece_each<T>(items: &[Vec<T>]) -> Vec<Vec<&[T]>> {
    items.iter().map(|v| vec![v.as_slice()]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two workers ask two owners; each owner answers its questions in the order they were
    /// sent (worker by worker), two items a question: every asker meets its own answer.
    #[test]
    fn askers_meet_the_replies_to_their_questions() {
        let mut outboxes = Outboxes::default();
        for worker in 0..2u64 {
            let mut outbox = Outbox::default();
            for q in 0..5u64 {
                let owner = (q % 2) as usize;
                let question = 100 * worker + q;
                outbox.ask(owner, 2, question, &[question, question + 1000]);
            }
            outboxes.filled.push(outbox);
        }
        let sent = outboxes.items_by_owner(2);
        let mut mailbox = Mailbox::default();
        let counts = mailbox.lay_out(&sent);
        assert_eq!(counts, [6, 4]);
        // Owner p answers each question q with q and its double.
        let replies: Vec<Vec<u64>> = sent
            .iter()
            .map(|pieces| pieces.concat().iter().flat_map(|&q| [q, 2 * q]).collect())
            .collect();
        let replies: Vec<&[u64]> = replies.iter().map(Vec::as_slice).collect();
        let mut met = 0;
        for (askers, answers) in outboxes.askers_with_replies(&replies, (2, 2, 2)) {
            // Two words of askers and two of answers a question, at most two questions.
            assert!(askers.len() <= 4 && askers.len() == answers.len());
            for (asker, answer) in askers.chunks(2).zip(answers.chunks(2)) {
                assert_eq!((asker[0], asker[1]), (answer[0], answer[0] + 1000));
                assert_eq!(answer[1], 2 * answer[0]);
                met += 1;
            }
        }
        assert_eq!(met, 10);
    }
}
