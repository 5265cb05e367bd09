//! Each subset against the file a user would edit by hand, and a brute-force search of the
//! subgroup `--moves` keeps against the same moves picked out of the full puzzle.

use std::collections::HashMap;

use super::*;
use crate::puzzle::defined::Defined;
use crate::puzzle::{Board, Metric, Move};

const CUBE2: &str = include_str!("../../data/definitions/cube2.tws");

/// cube2 with a second set: 4 centers turned by U (4 orientations) and one by R.
const TWO_SETS: &str = "Name T\nSet CORNERS 4 3\nSet CENTERS 2 4\nSolved\nCORNERS\n1 2 3 4\n\
    End\nMove U\nCORNERS\n2 3 4 1\n0 0 0 0\nCENTERS\n1 2\n1 0\nEnd\nMove R\nCORNERS\n\
    1 3 2 4\n1 2 0 0\nEnd\n";

fn def(text: &str) -> Definition {
    Definition::parse(text).unwrap()
}

fn subset(f: impl FnOnce(&mut Subset)) -> Subset {
    let mut s = Subset::default();
    f(&mut s);
    s
}

/// The boards at each distance, by a plain breadth-first search over boards.
fn histogram(moves: &[Move], solved: Board, k: u8) -> Vec<u64> {
    let mut seen: HashMap<Board, u32> = HashMap::from([(solved.clone(), 0)]);
    let (mut frontier, mut hist) = (vec![solved], vec![1u64]);
    while !frontier.is_empty() {
        let mut next = Vec::new();
        for b in &frontier {
            for m in moves {
                let c = m.applied_to(b, k);
                if !seen.contains_key(&c) {
                    seen.insert(c.clone(), hist.len() as u32);
                    next.push(c);
                }
            }
        }
        if !next.is_empty() {
            hist.push(next.len() as u64);
        }
        frontier = next;
    }
    hist
}

fn defined_histogram(d: &Definition) -> Vec<u64> {
    let d = Defined::new("t", d.clone()).unwrap();
    histogram(&d.moves(Metric::Htm).unwrap(), d.solved(), d.orient_mod())
}

/// The file with R's and U's blocks only.
fn cube2_without_f() -> String {
    let at = CUBE2.find("Move F").unwrap();
    CUBE2[..at].to_string()
}

#[test]
fn moves_subset_is_the_file_with_those_moves() {
    let s = subset(|s| s.moves = Some(vec!["R".into(), "U".into()]));
    let got = s.apply(&def(CUBE2)).unwrap();
    let mut want = def(&cube2_without_f());
    want.moves.reverse(); // in the order asked: R, U
    assert_eq!(got, want);
    // twsearch --moves R,U -g samples/main/2x2x2.tws prints these counts.
    let h = defined_histogram(&got);
    assert_eq!(h, [1, 6, 18, 53, 148, 400, 910, 1882, 3276, 4628, 6198, 6325, 4352, 941, 22]);
    assert_eq!(h.iter().sum::<u64>(), 29_160);
}

/// Brute force: the subgroup's search equals a search of the full puzzle with only the
/// powers of R and U.
#[test]
fn moves_subset_matches_the_full_puzzle_restricted() {
    let full = Defined::new("t", def(CUBE2)).unwrap();
    let picked: Vec<Move> = full
        .moves(Metric::Htm)
        .unwrap()
        .into_iter()
        .filter(|m| m.name.starts_with('R') || m.name.starts_with('U'))
        .collect();
    assert_eq!(picked.len(), 6);
    let want = histogram(&picked, full.solved(), full.orient_mod());
    let s = subset(|s| s.moves = Some(vec!["R".into(), "U".into()]));
    assert_eq!(defined_histogram(&s.apply(&def(CUBE2)).unwrap()), want);
    // A power kept on its own: R2 and U generate a smaller group.
    let s = subset(|s| s.moves = Some(vec!["R2".into(), "U".into()]));
    let got = s.apply(&def(CUBE2)).unwrap();
    assert_eq!(got.moves[0].name, "R2");
    let picked: Vec<Move> = full
        .moves(Metric::Htm)
        .unwrap()
        .into_iter()
        .filter(|m| m.name == "R2" || m.name.starts_with('U'))
        .collect();
    let want = histogram(&picked, full.solved(), full.orient_mod());
    assert_eq!(defined_histogram(&got), want);
}

#[test]
fn noorientation_is_the_file_with_one_orientation() {
    let got = subset(|s| s.no_orientation = true).apply(&def(CUBE2)).unwrap();
    let edited: String = CUBE2
        .replace("Set CORNERS 7 3", "Set CORNERS 7 1")
        .lines()
        // The twist lines, the only ones with a 0.
        .filter(|l| !(l.starts_with(|c: char| c.is_ascii_digit()) && l.contains(" 0 ")))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(got, def(&edited));
    let h = defined_histogram(&got);
    assert_eq!(h.iter().sum::<u64>(), 5040);
}

#[test]
fn omit_drops_the_set_as_if_deleted() {
    let edited = "Name T\nSet CORNERS 4 3\nSolved\nCORNERS\n1 2 3 4\nEnd\nMove U\nCORNERS\n\
        2 3 4 1\n0 0 0 0\nEnd\nMove R\nCORNERS\n1 3 2 4\n1 2 0 0\nEnd\n";
    let got = subset(|s| s.omit = vec!["CENTERS".into()]).apply(&def(TWO_SETS)).unwrap();
    assert_eq!(got, def(edited));
    // twsearch's shorthand: CENTERS starts with `ce`.
    let got = subset(|s| s.no_centers = true).apply(&def(TWO_SETS)).unwrap();
    assert_eq!(got, def(edited));
    // --noedges drops nothing here; --nocorners drops CORNERS (`c?r`).
    let got = subset(|s| s.no_edges = true).apply(&def(TWO_SETS)).unwrap();
    assert_eq!(got, def(TWO_SETS));
    let got = subset(|s| s.no_corners = true).apply(&def(TWO_SETS)).unwrap();
    assert_eq!(got.sets.len(), 1);
    assert_eq!(got.sets[0].name, "CENTERS");
    // R moved corners only: it does nothing left, so it is gone.
    assert_eq!(got.moves.len(), 1);
}

#[test]
fn sets_nothing_moves_are_dropped() {
    // R alone never touches CENTERS.
    let got = subset(|s| s.moves = Some(vec!["R".into()])).apply(&def(TWO_SETS)).unwrap();
    assert_eq!(got.sets.len(), 1);
    assert_eq!(got.sets[0].name, "CORNERS");
}

#[test]
fn identical_and_ignored_pieces_are_the_edited_solved_state() {
    let got = subset(|s| {
        s.identical = vec![PieceGroup::parse("CORNERS:1,2").unwrap()];
    })
    .apply(&def(CUBE2))
    .unwrap();
    let edited = CUBE2.replace("CORNERS\n1 2 3 4 5 6 7\nEnd", "CORNERS\n1 1 3 4 5 6 7\nEnd");
    assert_eq!(got, def(&edited));
    assert_eq!(defined_histogram(&got).iter().sum::<u64>(), 3_674_160 / 2);
    let got = subset(|s| s.ignore = vec![PieceGroup::parse("CORNERS:1,2").unwrap()])
        .apply(&def(CUBE2))
        .unwrap();
    let edited =
        CUBE2.replace("CORNERS\n1 2 3 4 5 6 7\nEnd", "CORNERS\n1 1 3 4 5 6 7\n? ? 0 0 0 0 0\nEnd");
    assert_eq!(got, def(&edited));
    // A whole set ignored tells nothing: it is dropped, and nothing is left.
    let err = subset(|s| s.ignore = vec![PieceGroup::parse("CORNERS").unwrap()])
        .apply(&def(CUBE2))
        .unwrap_err();
    assert!(err.contains("no set of pieces is left"), "{err}");
    // --omitperms: all identical, orientations kept: 3^6 boards.
    let got = subset(|s| s.omit_perms = vec!["CORNERS".into()]).apply(&def(CUBE2)).unwrap();
    assert_eq!(defined_histogram(&got).iter().sum::<u64>(), 729);
}

#[test]
fn refusals_say_what_was_expected() {
    let err = subset(|s| s.moves = Some(vec!["Q".into()])).apply(&def(CUBE2)).unwrap_err();
    assert!(err.contains("expected moves of the puzzle (U R F") && err.contains("`Q`"), "{err}");
    let err = subset(|s| s.omit = vec!["EDGES".into()]).apply(&def(CUBE2)).unwrap_err();
    assert!(err.contains("expected a set of Cube2 (CORNERS), found `EDGES`"), "{err}");
    let err = subset(|s| s.identical = vec![PieceGroup::parse("CORNERS:9").unwrap()])
        .apply(&def(CUBE2))
        .unwrap_err();
    assert!(err.contains("positions 1 to 7, found 9"), "{err}");
    assert!(PieceGroup::parse("CORNERS:a").is_err());
    assert!(PieceGroup::parse(":1").is_err());
    assert!(Subset::default().is_empty());
    assert_eq!(Subset::default().apply(&def(CUBE2)).unwrap(), def(CUBE2));
}
