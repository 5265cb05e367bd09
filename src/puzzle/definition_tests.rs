//! Tests of the definition reader and writer. The sample files are written for these tests
//! (none is copied from twsearch); the figures quoted from twsearch were produced by running
//! it (commit 268d1a30c59765aaec6556ab988a581a8334efee, built with its Makefile) on them.

use std::collections::HashSet;

use proptest::prelude::*;

use super::*;
use crate::bfs::{Config, NoProgress, search_puzzle};
use crate::puzzle::defined::Defined;
use crate::puzzle::{Metric, Puzzle};
use crate::rank::StateSpace;
use crate::table::DistanceTable;

/// A 2x2x2 cube with its DBL corner fixed and moves U, R, F (clockwise). Corners: UFR, UFL,
/// UBL, UBR, DFR, DFL, DBR; orientation 0 is the U/D sticker on the U/D face, counted
/// clockwise. Derived here from the cube's geometry, in ksolve's conventions.
pub(crate) const CUBE2: &str = "\
# A 2x2x2 cube with the DBL corner fixed: 3,674,160 positions.
Name Cube2

Set CORNERS 7 3

Solved
CORNERS
1 2 3 4 5 6 7
End

Move U
CORNERS
4 1 2 3 5 6 7
0 0 0 0 0 0 0
End

Move R
CORNERS
5 2 3 1 7 6 4
2 0 0 1 1 0 2
End

Move F
CORNERS
2 6 3 4 1 5 7
1 2 0 0 2 1 0
End
";

/// twsearch -g on CUBE2: the known 2x2x2 distribution in the half-turn metric.
pub(crate) const CUBE2_TWSEARCH: [u64; 12] =
    [1, 9, 54, 321, 1847, 9992, 50136, 227536, 870072, 1887748, 623800, 2644];

/// Two sets, one with orientations and one with identical pieces; a set left out of a move;
/// sets of a move in any order; comments and blank lines.
pub(crate) const TWO: &str = "\
Name Two
Set P 4 3
Set Q 3 1

Solved
P
1 2 3 4
Q
1 1 2
End

# A turns three pieces of P, twisting one.
Move A
P
2 3 1 4
1 0 0 0
End

Move B
Q
2 3 1
P
1 2 4 3
0 0 1 2
End
";

/// twsearch --showpositions on TWO: each sequence and the position it printed, per set the
/// (1-based) pieces and the orientations.
pub(crate) const TWO_POSITIONS: &[(&str, [&str; 2], &str)] = &[
    ("A", ["2 3 1 4", "0 0 1 0"], "1 1 2"),
    ("B", ["1 2 4 3", "0 0 2 1"], "1 2 1"),
    ("A B", ["2 3 4 1", "0 0 2 2"], "1 2 1"),
    ("B A", ["2 4 1 3", "0 2 1 1"], "1 2 1"),
    ("A A B B B B B", ["3 1 4 2", "0 1 2 2"], "2 1 1"),
];

/// One state: per set, the piece labels and orientations by position.
type State = Vec<(Vec<u16>, Vec<u8>)>;

fn solved(def: &Definition) -> State {
    def.solved.iter().map(|s| (s.pieces.clone(), s.orient.clone())).collect()
}

/// Applies a move in twirl's convention.
fn apply(def: &Definition, state: &State, m: &[SetMove]) -> State {
    state
        .iter()
        .zip(m)
        .zip(&def.sets)
        .map(|(((pieces, orient), sm), set)| {
            let mut p = pieces.clone();
            let mut o = orient.clone();
            for i in 0..pieces.len() {
                let to = sm.perm[i] as usize;
                p[to] = pieces[i];
                o[to] = (orient[i] + sm.twist[i]) % set.orientations;
            }
            (p, o)
        })
        .collect()
}

/// `a` then `b`.
fn then(def: &Definition, a: &[SetMove], b: &[SetMove]) -> Vec<SetMove> {
    a.iter()
        .zip(b)
        .zip(&def.sets)
        .map(|((x, y), set)| SetMove {
            perm: x.perm.iter().map(|&j| y.perm[j as usize]).collect(),
            twist: (0..x.perm.len())
                .map(|i| (x.twist[i] + y.twist[x.perm[i] as usize]) % set.orientations)
                .collect(),
        })
        .collect()
}

/// Every power of every declared move: the moves twsearch counts as one.
fn expanded(def: &Definition) -> Vec<Vec<SetMove>> {
    let mut out = Vec::new();
    for m in &def.moves {
        let mut power = m.sets.clone();
        loop {
            out.push(power.clone());
            power = then(def, &power, &m.sets);
            if power.iter().all(SetMove::is_identity) {
                break;
            }
        }
    }
    out
}

/// Positions at each distance from solved, up to `max_depth`, by a plain search.
pub(crate) fn histogram(def: &Definition, max_depth: usize) -> Vec<u64> {
    let moves = expanded(def);
    let start = solved(def);
    let mut seen = HashSet::from([start.clone()]);
    let mut frontier = vec![start];
    let mut out = vec![1];
    while out.len() <= max_depth {
        let mut next = Vec::new();
        for s in &frontier {
            for m in &moves {
                let t = apply(def, s, m);
                if seen.insert(t.clone()) {
                    next.push(t);
                }
            }
        }
        if next.is_empty() {
            break;
        }
        out.push(next.len() as u64);
        frontier = next;
    }
    out
}

fn native_histogram(spec: &str, metric: Metric) -> Vec<u64> {
    let puzzle = Puzzle::parse(spec, Some(metric)).unwrap();
    let space = StateSpace::build(&puzzle).unwrap();
    let table = DistanceTable::in_memory(space.n_states()).unwrap();
    search_puzzle(&puzzle, &space, &table, &Config::new(1), &NoProgress).unwrap().histogram
}

fn numbers(text: &str) -> Vec<u64> {
    text.split_whitespace().map(|t| t.parse().unwrap()).collect()
}

#[test]
fn reads_a_cube_in_twirls_direction() {
    let def = Definition::parse(CUBE2).unwrap();
    assert_eq!(def.name, "Cube2");
    assert_eq!(def.sets, vec![SetDef { name: "CORNERS".into(), size: 7, orientations: 3 }]);
    assert_eq!(def.solved[0].pieces, (0..7).collect::<Vec<u16>>());
    assert_eq!(def.solved[0].orient, vec![0; 7]);
    let names: Vec<&str> = def.moves.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["U", "R", "F"]);
    // U (clockwise from above) takes UFR to UFL, UFL to UBL, UBL to UBR, UBR to UFR: the
    // file's line `4 1 2 3` says where each position's piece comes from.
    assert_eq!(def.moves[0].sets[0].perm, vec![1, 2, 3, 0, 4, 5, 6]);
    // R takes UFR to UBR, twisting it by 2: the file's orientation line, entry 1, is the
    // twist of the piece leaving position 1.
    assert_eq!(def.moves[1].sets[0].perm, vec![3, 1, 2, 6, 0, 5, 4]);
    assert_eq!(def.moves[1].sets[0].twist, vec![2, 0, 0, 1, 1, 0, 2]);
    assert_eq!(histogram(&def, 6), CUBE2_TWSEARCH[..7]);
}

#[test]
fn moves_act_as_twsearch_shows_them() {
    let def = Definition::parse(TWO).unwrap();
    assert_eq!(def.solved[1].pieces, vec![0, 0, 1], "identical pieces keep their labels");
    // B lists Q before P; A leaves Q alone.
    assert!(def.moves[0].sets[1].is_identity());
    assert_eq!(def.moves[1].sets[1].perm, vec![2, 0, 1]);
    for &(sequence, [pieces, orient], q) in TWO_POSITIONS {
        let mut state = solved(&def);
        for name in sequence.split_whitespace() {
            let m = def.moves.iter().find(|m| m.name == name).unwrap();
            state = apply(&def, &state, &m.sets);
        }
        let shown = |labels: &[u16]| labels.iter().map(|&l| u64::from(l) + 1).collect::<Vec<_>>();
        assert_eq!(shown(&state[0].0), numbers(pieces), "{sequence}");
        let o: Vec<u64> = state[0].1.iter().map(|&o| o.into()).collect();
        assert_eq!(o, numbers(orient), "{sequence}");
        assert_eq!(shown(&state[1].0), numbers(q), "{sequence}");
    }
}

#[test]
fn round_trips() {
    for text in [CUBE2, TWO] {
        let def = Definition::parse(text).unwrap();
        let written = def.to_tws();
        assert_eq!(Definition::parse(&written).unwrap(), def, "{written}");
        assert!(written.starts_with("# Written by twirl"));
    }
    // A set the move leaves alone is not written; no orientation line without orientations.
    let written = Definition::parse(TWO).unwrap().to_tws();
    assert!(written.contains("Move A\nP\n2 3 1 4\n1 0 0 0\nEnd\n"), "{written}");
    assert!(written.contains("Move B\nP\n1 2 4 3\n0 0 1 2\nQ\n2 3 1\nEnd\n"), "{written}");
    // Orientations not seen (`?`) in the solved state read and write back.
    let text = TWO.replace("P\n1 2 3 4\nQ", "P\n1 2 3 4\n0 ? 2 ?\nQ");
    let def = Definition::parse(&text).unwrap();
    assert_eq!(def.solved[0].orient, [0, ANY_ORIENTATION, 2, ANY_ORIENTATION]);
    let written = def.to_tws();
    assert!(written.contains("P\n1 2 3 4\n0 ? 2 ?\n"), "{written}");
    assert_eq!(Definition::parse(&written).unwrap(), def);
    // Identical pieces are all seen or all unseen.
    let mixed = TWO.replace("P\n1 2 3 4\nQ", "P\n1 1 3 4\n0 ? 0 0\nQ");
    let err = Defined::new("mixed.tws", Definition::parse(&mixed).unwrap()).unwrap_err();
    assert!(err.to_string().contains("seen and not seen"), "{err}");
    // Without a Name, twsearch's default.
    let unnamed = Definition::parse(&TWO.replace("Name Two\n", "")).unwrap();
    assert_eq!(unnamed.name, "Unnamed");
}

/// The line number and message of a definition's error.
fn error(text: &str) -> (usize, String) {
    match Definition::parse(text) {
        Err(Error::InvalidDefinition { line, reason }) => (line, reason),
        other => panic!("expected an error for {text:?}, got {other:?}"),
    }
}

#[test]
fn errors_name_the_line_and_the_problem() {
    let cases: &[(&str, &str, usize, &str)] = &[
        // (replace, with, line, message part)
        ("Set Q 3 1", "Set Q 3 1\nSet P 2 1", 4, "set P is declared twice"),
        ("Move B", "Move A", 19, "move A is defined twice (first on line 13)"),
        ("Q\n2 3 1", "R\n2 3 1", 20, "`Move B`: unknown set `R` (sets: P, Q)"),
        ("2 3 1\nP", "2 3\nP", 21, "move B, set Q: expected 3 numbers, found 2: 2 3"),
        (
            "2 3 1 4\n1 0",
            "2 2 1 4\n1 0",
            15,
            "move A, set P: expected a permutation of 1..4, found 2 2 1 4",
        ),
        ("2 3 1 4\n1 0", "2 3 5 4\n1 0", 15, "expected a permutation of 1..4, found 2 3 5 4"),
        (
            "1 0 0 0",
            "3 0 0 0",
            16,
            "orientation 3 is out of range (the set has 3 orientations: 0 to 2)",
        ),
        ("2 3 1\nP", "2 3 1\n0 0 1\nP", 22, "move B, set Q: orientation 1 is out of range"),
        ("1 2 3 4\nQ", "1 2 3 4\n0 0 0 0\n0 0 0 0\nQ", 9, "a third line of numbers"),
        ("1 2 3 4\nQ", "1 2 3 x\nQ", 7, "Solved, set P: `x` is not a number"),
        (
            "1 2 3 4\nQ",
            "1 2 3 99999999999999999999999\nQ",
            7,
            "the number `99999999999999999999999` is too large",
        ),
        ("1 2 3 4\nQ", "1 2 3 256\nQ", 7, "piece label 256 is out of range (labels are 1 to 255)"),
        ("1 2 3 4\nQ", "1 2 ? 4\nQ", 7, "`?` is read only as an orientation in `Solved`"),
        ("1 0 0 0\nEnd", "1 ? 0 0\nEnd", 16, "`?` is read only as an orientation in `Solved`"),
        ("1 2 3 4\nQ", "1 2 3 4\n0 ? 3 0\nQ", 8, "orientation 3 is out of range"),
        ("1 2 3 4\nQ", "1 2 3 4\n0 ? 0 0\n0 0 0 0\nQ", 9, "a third line of numbers"),
        ("1 1 2\nEnd", "1 1 2\n? ? ?\nEnd", 10, "`?` orientation in a set without orientations"),
        ("0 0 1 2\nEnd", "0 0 1 2", 19, "`Move B` has no `End`"),
        ("1 0 0 0\nEnd", "1 0 0 0\n", 19, "expected a set name, numbers or `End`, found `Move B`"),
        ("Move A\nP", "Move A\nP\nQ", 14, "set P is named but given no numbers"),
        (
            "Move A\nP\n2 3 1 4\n1 0 0 0\n",
            "Move A\nP\n2 3 1 4\n1 0 0 0\nP\n1 2 3 4\n",
            17,
            "set P given twice (first on line 14)",
        ),
        ("Move A\nP", "Move A\n1 2 3 4\nP", 14, "numbers before any set name"),
        (
            "Set P 4 3",
            "Set P 4 128",
            2,
            "the number of orientations must be a number from 1 to 127, found `128`",
        ),
        (
            "Set P 4 3",
            "Set P 256 3",
            2,
            "the number of pieces must be a number from 1 to 255, found `256`",
        ),
        ("Set P 4 3", "Set P 0 3", 2, "found `0`"),
        ("Set P 4 3", "Set P 4", 2, "expected `Set NAME PIECES ORIENTATIONS`, found `Set P 4`"),
        ("Set P 4 3", "Set 4P 4 3", 2, "set name `4P` would be read as numbers"),
        ("Name Two", "Name Two Three", 1, "expected `Name NAME`"),
        ("Set Q 3 1\n", "Set Q 3 1\nName X\n", 4, "`Name` must be the first line"),
        ("Move B\n", "Illegal P 5 2\nMove B\n", 19, "position must be a number from 1 to 4"),
        ("Move B\n", "Illegal P 1 65\nMove B\n", 19, "piece 65 is out of range"),
        ("Move B\n", "Illegal R 1 2\nMove B\n", 19, "`Illegal`: unknown set `R`"),
        ("Move B\n", "MoveSequence C A Z\nMove B\n", 19, "`Z` is not a move"),
        ("Move B\n", "MoveSequence C\nMove B\n", 19, "expected `MoveSequence NAME MOVE...`"),
        ("Move B\n", "MoveSequence A B\nMove B\n", 19, "move A is defined twice"),
        ("Move B\n", "ForbiddenPairs\nMove B\n", 19, "block `ForbiddenPairs` is not supported"),
        (
            "Move B\n",
            "move B\n",
            19,
            "unknown keyword `move` (keywords are case-sensitive: `Move`)",
        ),
        ("Move B\n", "Turn B\n", 19, "unknown keyword `Turn` (expected Name, Set, Solved or Move)"),
        ("Move B\n", "End\nMove B\n", 19, "`End` outside a block"),
        ("Move B\n", "Move B,C\n", 19, "contains a comma"),
        ("Move B\n", "Move B C\n", 19, "expected `Move NAME`"),
        ("Move B\n", "Set Z 2 1\nMove B\n", 19, "`Set` after `Solved`"),
        (
            "Move B\n",
            "Solved\nEnd\nMove B\n",
            19,
            "a second `Solved` block (the first is on line 5)",
        ),
        ("Solved\n", "Solved extra\n", 5, "expected `Solved`"),
        ("1 1 2\nEnd", "1 1 2\nEnd now", 10, "expected `End` alone"),
    ];
    for &(from, to, line, message) in cases {
        assert!(TWO.contains(from), "{from:?} not in the sample");
        let text = TWO.replacen(from, to, 1);
        let (got_line, reason) = error(&text);
        assert!(reason.contains(message), "{to:?}: expected {message:?} in {reason:?}");
        assert_eq!(got_line, line, "{to:?}: {reason}");
    }
    // Structure: what is missing, and where.
    assert_eq!(error("").0, 1);
    assert!(error("  \n# only a comment\n").1.contains("the definition is empty"));
    assert_eq!(error("Set P 2 1\n").1, "no `Solved` block");
    assert!(error("Name X\n").1.contains("no `Set` line"));
    assert_eq!(
        error("Set P 2 1\nSolved\nEnd\n"),
        (3, "no `Move` block (twsearch needs at least one move)".into())
    );
    assert_eq!(error("Solved\nEnd\n").1, "`Solved` before any `Set` line");
    assert_eq!(error("Set P 2 1\nMove A\nEnd\n").1, "`Move` before the `Solved` block");
    let msg = Definition::parse("Set P 2 1\nSolved\nP\n1 2\nEnd\nMove A\nP\n1 2 2\nEnd\n")
        .unwrap_err()
        .to_string();
    assert_eq!(msg, "definition line 8: move A, set P: expected 2 numbers, found 3: 1 2 2");
}

#[test]
fn what_twsearch_accepts_twirl_reads() {
    // Identical pieces with labels beyond the set's size, an empty move, CRLF line ends and
    // tabs, as twsearch reads them (it found this puzzle's single position); and a `#`
    // comment after tokens, which only twirl allows.
    let text = "Set P 4 1\r\nSolved\r\nP\r\n1 1 7 7 # two pairs\r\nEnd\r\nMove A\r\nP\r\n2\t1 3 4\r\nEnd\r\nMove E\r\nEnd\r\n";
    let def = Definition::parse(text).unwrap();
    assert_eq!(def.solved[0].pieces, vec![0, 0, 6, 6]);
    assert_eq!(def.moves[0].sets[0].perm, vec![1, 0, 2, 3]);
    assert!(def.moves[1].sets[0].is_identity());
    assert_eq!(Definition::parse(&def.to_tws()).unwrap(), def);
}

#[test]
fn nrp_htm_exports_one_quarter_turn_per_block() {
    let puzzle = Puzzle::parse("nrp:3x3:2", Some(Metric::Htm)).unwrap();
    let def = Definition::from_puzzle(&puzzle).unwrap();
    assert_eq!(def.name, "nrp:3x3:2");
    assert_eq!(def.sets, vec![SetDef { name: "TILES".into(), size: 9, orientations: 1 }]);
    let names: Vec<&str> = def.moves.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["R1C1", "R1C2", "R2C1", "R2C2"]);
    let text = def.to_tws();
    // R1C1 turns counter-clockwise: cell 1 takes the tile of cell 2, cell 2 that of cell 5.
    assert!(text.contains("Move R1C1\nTILES\n2 5 3 1 4 6 7 8 9\nEnd\n"), "{text}");
    assert_eq!(Definition::parse(&text).unwrap(), def);
    assert_eq!(histogram(&def, usize::MAX), native_histogram("nrp:3x3:2", Metric::Htm));
    let pairs = twsearch_names(&puzzle).unwrap();
    assert_eq!(
        pairs[..3],
        [
            ("R1C1".to_string(), "R1C1".to_string()),
            ("R1C1'".to_string(), "R1C1'".to_string()),
            ("R1C1^2".to_string(), "R1C12".to_string()),
        ]
    );
}

#[test]
fn oriented_and_spin_puzzles_export() {
    for (spec, declared) in [
        ("nrp:2x3:2:orient", 2),
        ("nrp:2x2:1:orient", 4),
        ("spin:2x3", 18),
        ("spin:2x3:1x1", 6),
        ("spin:2x3:1x2,2x2", 9),
    ] {
        let puzzle = Puzzle::parse(spec, Some(Metric::Htm)).unwrap();
        let def = Definition::from_puzzle(&puzzle).unwrap();
        assert_eq!(def.moves.len(), declared, "{spec}");
        assert_eq!(def.sets[0].orientations, puzzle.orient_mod, "{spec}");
        assert_eq!(Definition::parse(&def.to_tws()).unwrap(), def, "{spec}");
        assert_eq!(histogram(&def, usize::MAX), native_histogram(spec, Metric::Htm), "{spec}");
    }
    // Larger boards: the definition only (their searches are the cross-check's business).
    let puzzle = Puzzle::parse("nrp:3x3:2:orient", Some(Metric::Htm)).unwrap();
    let def = Definition::from_puzzle(&puzzle).unwrap();
    let text = def.to_tws();
    assert!(text.contains("Set TILES 9 4\n"), "{text}");
    assert!(
        text.contains("Move R1C1\nTILES\n2 5 3 1 4 6 7 8 9\n1 1 0 1 1 0 0 0 0\nEnd\n"),
        "{text}"
    );
    let puzzle = Puzzle::parse("spin:3x3:1x1,1x2", None).unwrap();
    let def = Definition::from_puzzle(&puzzle).unwrap();
    assert_eq!(def.moves.len(), 21);
    assert_eq!(def.moves[0].name, "S1_1");
    assert!(def.moves.iter().any(|m| m.name == "S1_4"));
    let text = Definition::from_puzzle(&Puzzle::parse("spin:3x3", None).unwrap()).unwrap().to_tws();
    // The spin [1,6]: rows 1-2 turn over, cell 1 takes the tile of cell 6, flipped.
    assert!(
        text.contains("Move S1_6\nTILES\n6 5 4 3 2 1 7 8 9\n1 1 1 1 1 1 0 0 0\nEnd\n"),
        "{text}"
    );
}

#[test]
fn metrics_twsearch_cannot_express_are_refused() {
    for (spec, metric, hint) in [
        ("nrp:3x3:2", Metric::Qtm, "run twsearch with -q"),
        ("nrp:3x3:2:orient", Metric::Qtm, "run twsearch with -q"),
        ("nrp:3x3:2", Metric::Cw, "no directed metric"),
    ] {
        let puzzle = Puzzle::parse(spec, Some(metric)).unwrap();
        let err = Definition::from_puzzle(&puzzle).unwrap_err();
        assert!(matches!(err, Error::Unsupported(_)), "{spec} {metric}");
        let msg = err.to_string();
        assert!(msg.contains("counts every power of a declared move as one move"), "{msg}");
        assert!(msg.contains(hint), "{msg}");
        assert!(msg.contains(&format!("{spec} in {metric}")), "{msg}");
    }
}

#[test]
fn exported_names_never_collide() {
    // Twelve columns: R1C1 + "2" would be R1C12, so the numbers are padded.
    let puzzle = Puzzle::parse("nrp:2x12:2", Some(Metric::Htm)).unwrap();
    let pairs = twsearch_names(&puzzle).unwrap();
    assert_eq!(pairs[2], ("R1C1^2".to_string(), "R1C012".to_string()));
    let all: HashSet<&str> = pairs.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(all.len(), pairs.len(), "{pairs:?}");
    for spec in ["nrp:3x3:2", "nrp:4x4:3:orient", "nrp:11x11:2", "spin:3x3", "spin:1x12"] {
        let puzzle = Puzzle::parse(spec, Some(Metric::Htm)).unwrap();
        let pairs = twsearch_names(&puzzle).unwrap();
        let all: HashSet<&str> = pairs.iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(all.len(), pairs.len(), "{spec}");
        assert!(pairs.iter().all(|(_, t)| !t.is_empty() && !is_rotation(t) && !t.contains(',')));
    }
    let notes = export_notes(&Puzzle::parse("nrp:2x3:2", Some(Metric::Htm)).unwrap()).unwrap();
    assert!(notes.iter().any(|n| n.contains("R1C1^2=R1C12")), "{notes:?}");
    assert!(notes.iter().any(|n| n.contains("twsearch -q -g")), "{notes:?}");
}

#[test]
fn power_names_follow_twsearch() {
    let names: Vec<String> = (1..9).map(|k| power_name("M", k, 9)).collect();
    assert_eq!(names, ["M", "M2", "M3", "M4", "M4'", "M3'", "M2'", "M'"]);
    let names: Vec<String> = (1..4).map(|k| power_name("R", k, 4)).collect();
    assert_eq!(names, ["R", "R2", "R'"]);
    assert_eq!(power_name("S", 1, 2), "S");
}

/// Every name twsearch's expansion gives a move of `order` (at least 2).
fn all_power_names(base: &str, order: u128) -> HashSet<String> {
    (1..order).map(|k| power_name(base, k, order)).collect()
}

/// The shortcut that finds a name two expansions share agrees with listing every power, on
/// names that extend one another by digits and primes, for every pair of orders up to 60.
#[test]
fn shared_power_names_match_listing_every_power() {
    let names = ["R", "R2", "R'", "R1", "R12", "R2'", "R'2", "R22", "R3", "R13", "R0", "R02", "Rx"];
    let mut found = 0;
    for a in names {
        for b in names {
            let Some(tail) = b.strip_prefix(a).filter(|t| !t.is_empty()) else { continue };
            for oa in 2..=60u128 {
                for ob in 2..=60u128 {
                    let common: HashSet<String> = all_power_names(a, oa)
                        .intersection(&all_power_names(b, ob))
                        .cloned()
                        .collect();
                    let shared = shared_power_name(a, oa, tail, ob);
                    assert_eq!(
                        shared.is_some(),
                        !common.is_empty(),
                        "{a} {oa} {b} {ob} {common:?}"
                    );
                    if let Some(name) = shared {
                        assert!(common.contains(&name), "{a} {oa} {b} {ob}: {name} {common:?}");
                        found += 1;
                    }
                }
            }
        }
    }
    assert!(found > 1000, "{found}");
    // Powers written as numbers: `R` of order 24 and `R1` of order 4 both give `R12`.
    assert_eq!(shared_power_name("R", 24, "1", 4).as_deref(), Some("R12"));
    assert_eq!(shared_power_name("R", 23, "1", 4), None);
    assert_eq!(shared_power_name("R", 25, "1", 5).as_deref(), Some("R12"));
    // Orders past any listing: decided from the digits.
    assert_eq!(shared_power_name("R", 1 << 100, "7", 1 << 90).as_deref(), Some("R7"));
    assert_eq!(shared_power_name("R", 1 << 100, "1", 1 << 90).as_deref(), Some("R12"));
    // `R1` of order 2 is its only power, which `R` never writes (no exponent 1).
    assert_eq!(shared_power_name("R", 1 << 100, "1", 2), None);
    assert_eq!(suffix_power("'", 4), Some(3));
    assert_eq!(suffix_power("2", 3), None, "order 3 gives R and R' only");
    assert_eq!(suffix_power("4'", 9), Some(5));
    assert_eq!(suffix_power("4'", 8), None, "order 8 writes power 4 as R4");
}

/// A file whose declared move has the name of another's power is refused with both lines;
/// twsearch reads it, keeps two moves of one name and takes the first when reading one.
#[test]
fn declared_names_that_are_powers_are_refused() {
    let head = "Set A 11 1\nSolved\nA\n1 2 3 4 5 6 7 8 9 10 11\nEnd\n";
    // Cycles of 4, 3, 2 and 5 pieces (orders 4, 3, 2, 5), and of 3 and 8 (order 24).
    let four = "A\n2 3 4 1 5 6 7 8 9 10 11\nEnd\n";
    let three = "A\n1 2 3 4 6 7 5 8 9 10 11\nEnd\n";
    let two = "A\n1 2 3 4 5 6 7 9 8 10 11\nEnd\n";
    let five = "A\n2 3 4 5 1 6 7 8 9 10 11\nEnd\n";
    let cycles = "A\n2 3 1 5 6 7 8 9 10 11 4\nEnd\n";
    let file = |moves: &[(&str, &str)]| {
        let mut text = head.to_string();
        for (name, block) in moves {
            text.push_str(&format!("Move {name}\n{block}"));
        }
        text
    };
    // Lines: the first move block starts on line 6, each takes 4.
    type Case<'a> = (&'a [(&'a str, &'a str)], usize, &'a str);
    let cases: &[Case] = &[
        (
            &[("R", four), ("R2", three)],
            10,
            "moves `R` (line 6) and `R2` (line 10) both give a move named `R2`: power 2 of move \
             `R` (order 4) and move `R2` itself",
        ),
        (
            &[("R'", two), ("R", four)],
            10,
            "both give a move named `R'`: move `R'` itself and power 3 of move `R` (order 4)",
        ),
        (
            &[("R2'", two), ("U", two), ("R", five)],
            14,
            "both give a move named `R2'`: move `R2'` itself and power 3 of move `R` (order 5)",
        ),
        (
            &[("R1", four), ("R", cycles)],
            10,
            "both give a move named `R12`: power 2 of move `R1` (order 4) and power 12 of move `R` (order 24)",
        ),
    ];
    for (moves, line, message) in cases {
        let (at, reason) = error(&file(moves));
        assert_eq!(at, *line, "{reason}");
        assert!(reason.contains(message), "{reason}");
        assert!(reason.contains("rename one of them"), "{reason}");
    }
    // No power of `R` is named `R2` when `R` has order 2 or 3, nor `R12` below order 24.
    for moves in [
        &[("R", two), ("R2", four)][..],
        &[("R", three), ("R2", two)],
        &[("R1", four), ("R", four)],
        &[("R", four), ("R22", four), ("R0", four)],
    ] {
        let def = Definition::parse(&file(moves)).unwrap();
        assert_eq!(def.moves.len(), moves.len());
    }
}

/// Histograms printed by twsearch (commit 268d1a30c59765aaec6556ab988a581a8334efee, built with
/// its Makefile) on the files `twirl export-def SPEC -o FILE` wrote (metric htm), with
/// `twsearch -t 1 -a 0 -g FILE` for htm and `twsearch -t 1 -a 0 -q -g FILE` for qtm (`-q`
/// keeps the quarter turns only). Each is twirl's own histogram too (`twirl bfs SPEC --metric
/// M`), which the tests below check; the positions at distance 0, 1, 2, ...
pub(crate) const TWSEARCH_HISTOGRAMS: &[(&str, Metric, &[u64])] = &[
    ("nrp:2x3:2", Metric::Htm, &[1, 6, 18, 45, 40, 9, 1]),
    ("nrp:2x3:2", Metric::Qtm, &[1, 4, 10, 22, 42, 33, 7, 1]),
    ("nrp:2x3:2:orient", Metric::Htm, &[1, 6, 18, 53, 148, 410, 929, 1247, 864, 146, 18]),
    (
        "nrp:2x3:2:orient",
        Metric::Qtm,
        &[1, 4, 10, 24, 58, 140, 292, 520, 785, 922, 714, 288, 52, 20, 8, 2],
    ),
    ("nrp:2x4:2", Metric::Htm, &[1, 9, 45, 198, 701, 2199, 6611, 13381, 13302, 3791, 82]),
    ("nrp:2x4:2", Metric::Qtm, &[1, 6, 23, 80, 261, 738, 1978, 5242, 10967, 12944, 6905, 1150, 25]),
    (
        "nrp:2x4:2:orient",
        Metric::Htm,
        &[1, 9, 45, 214, 1013, 4713, 21233, 90706, 364240, 1213612, 2317045, 1117802, 30274, 53],
    ),
    (
        "nrp:2x4:2:orient",
        Metric::Qtm,
        &[
            1, 6, 23, 84, 309, 1136, 4084, 14320, 49177, 163310, 498838, 1206456, 1769437, 1190024,
            258574, 5144, 37,
        ],
    ),
    ("nrp:3x3:2", Metric::Htm, &[1, 12, 108, 936, 7740, 56220, 211446, 86194, 223]),
    (
        "nrp:3x3:2",
        Metric::Qtm,
        &[1, 8, 52, 328, 1996, 11336, 51582, 130042, 125929, 39706, 1880, 20],
    ),
    (
        "nrp:2x5:2",
        Metric::Htm,
        &[
            1, 12, 81, 459, 2280, 10461, 45663, 175015, 540065, 1163316, 1228610, 419536, 42273,
            1022, 6,
        ],
    ),
    (
        "nrp:2x5:2",
        Metric::Qtm,
        &[
            1, 8, 40, 174, 713, 2711, 9845, 34457, 109317, 288376, 596371, 880186, 856234, 546664,
            234911, 61587, 6962, 237, 6,
        ],
    ),
    ("spin:2x2", Metric::Htm, &[1, 9, 40, 108, 186, 40]),
    ("spin:2x3", Metric::Htm, &[1, 18, 178, 1272, 6970, 22467, 15024, 150]),
    ("spin:2x4", Metric::Htm, &[1, 30, 520, 6955, 77987, 697671, 3888928, 5457768, 192060]),
    (
        "spin:3x3:1x2",
        Metric::Htm,
        &[
            1, 12, 88, 470, 1978, 6658, 18081, 38936, 65246, 83000, 76688, 48316, 18975, 4024, 382,
            24, 1,
        ],
    ),
];

/// The same for the 185,794,560 boards of Spinpossible 3x3 (twsearch: 13 s and 19 s).
pub(crate) const TWSEARCH_HISTOGRAMS_LARGE: &[(&str, Metric, &[u64])] = &[
    (
        "spin:3x3",
        Metric::Htm,
        &[1, 36, 760, 12596, 180521, 2239334, 21735024, 104854762, 56740912, 30614],
    ),
    (
        "spin:3x3:1x1,1x2",
        Metric::Htm,
        &[
            1, 21, 232, 1778, 10510, 50410, 201375, 678857, 1942139, 4721607, 9744158, 17026112,
            25090283, 31018403, 31950677, 27182091, 18886593, 10562393, 4663676, 1583888, 399193,
            71085, 8410, 634, 33, 1,
        ],
    ),
];

#[test]
fn native_searches_match_twsearch() {
    for &(spec, metric, expected) in TWSEARCH_HISTOGRAMS {
        assert_eq!(native_histogram(spec, metric), expected, "{spec} {metric}");
    }
}

#[test]
#[ignore = "two 185,794,560-board searches, about 12 s on one core"]
fn large_native_searches_match_twsearch() {
    for &(spec, metric, expected) in TWSEARCH_HISTOGRAMS_LARGE {
        assert_eq!(native_histogram(spec, metric), expected, "{spec} {metric}");
    }
}

/// Every recorded search is of a file twirl can write: the htm file, searched with `-q` for
/// qtm.
#[test]
fn recorded_specs_export() {
    for &(spec, _, _) in TWSEARCH_HISTOGRAMS.iter().chain(TWSEARCH_HISTOGRAMS_LARGE) {
        let puzzle = Puzzle::parse(spec, Some(Metric::Htm)).unwrap();
        assert!(Definition::from_puzzle(&puzzle).is_ok(), "{spec}");
    }
}

/// A random valid definition: up to three sets, random labels, moves and twists.
fn arbitrary_definition() -> impl Strategy<Value = Definition> {
    let set = (1usize..7, 1u8..6);
    (prop::collection::vec(set, 1..4), 1usize..4, any::<u64>()).prop_map(|(sets, n_moves, seed)| {
        let mut x = seed | 1;
        let mut rand = move |n: usize| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % n as u64) as usize
        };
        let sets: Vec<SetDef> = sets
            .into_iter()
            .enumerate()
            .map(|(i, (size, orientations))| SetDef { name: format!("S{i}"), size, orientations })
            .collect();
        let mut shuffled = |n: usize| {
            let mut p: Vec<u16> = (0..n as u16).collect();
            for i in (1..n).rev() {
                p.swap(i, rand(i + 1));
            }
            p
        };
        let perms: Vec<Vec<Vec<u16>>> =
            (0..n_moves).map(|_| sets.iter().map(|s| shuffled(s.size)).collect()).collect();
        let solved = sets
            .iter()
            .map(|s| SetState {
                pieces: (0..s.size).map(|_| rand(s.size) as u16 + rand(3) as u16).collect(),
                orient: (0..s.size).map(|_| rand(s.orientations.into()) as u8).collect(),
            })
            .collect();
        let moves = perms
            .into_iter()
            .enumerate()
            .map(|(k, perms)| MoveDef {
                name: format!("M{k}"),
                sets: perms
                    .into_iter()
                    .zip(&sets)
                    .map(|(perm, s)| SetMove {
                        twist: (0..s.size).map(|_| rand(s.orientations.into()) as u8).collect(),
                        perm,
                    })
                    .collect(),
            })
            .collect();
        Definition {
            name: "Random".into(),
            sets,
            solved,
            moves,
            rotations: Vec::new(),
            illegal: Vec::new(),
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn written_definitions_read_back(def in arbitrary_definition()) {
        prop_assert_eq!(Definition::parse(&def.to_tws()).unwrap(), def);
    }
}

/// twsearch's own samples, read from a checkout: `TWSEARCH_SAMPLES=/path/to/twsearch/samples
/// cargo test --lib twsearch_samples -- --ignored --nocapture`. Each file is read, or refused
/// for a feature twirl does not take; what is read
/// writes back to the same definition.
#[test]
#[ignore = "needs a twsearch checkout (TWSEARCH_SAMPLES)"]
fn twsearch_samples() {
    let dir = std::env::var("TWSEARCH_SAMPLES").expect("TWSEARCH_SAMPLES=<twsearch>/samples");
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(format!("{dir}/main"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "tws"))
        .collect();
    files.sort();
    let (mut read, mut refused) = (0, 0);
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        match Definition::parse(&text) {
            Ok(def) => {
                read += 1;
                assert_eq!(Definition::parse(&def.to_tws()).unwrap(), def, "{}", path.display());
            }
            Err(e) => {
                refused += 1;
                let msg = e.to_string();
                println!("{}: {msg}", path.display());
                let known = ["MoveAlias", "MoveTransformation", "StartState"];
                assert!(known.iter().any(|k| msg.contains(k)), "{}: {msg}", path.display());
            }
        }
    }
    println!("{read} read, {refused} refused");
    assert!(read > 0);
}

/// Rotations are kept apart from the moves, sequences become moves (their product, read
/// left to right, powers and rotations allowed, in any order of definition), `Illegal`
/// lines are read; all of it writes back to the same definition.
#[test]
fn rotations_sequences_and_illegal() {
    let text = TWO.replace(
        "Move B\n",
        "MoveSequence D A' C\nMoveSequence C A,Bv2\nMoveSequence Xv A Bv\nIllegal P 2 1 3\n\
         Move Bv\n",
    );
    let def = Definition::parse(&text).unwrap();
    let names: Vec<&str> = def.moves.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["A", "C", "D"]);
    let rotations: Vec<&str> = def.rotations.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(rotations, ["Bv", "Xv"]);
    assert_eq!(
        def.illegal,
        [Illegal { set: 0, position: 1, label: 0 }, Illegal { set: 0, position: 1, label: 2 }]
    );
    // C = A then Bv twice; D = A^-1 then C = Bv twice.
    let (a, bv) = (&def.moves[0], &def.rotations[0]);
    let bv2 = bv.power(&def.sets, 2);
    assert_eq!(def.moves[1].sets, then_sets(&def.sets, &a.sets, &bv2));
    assert_eq!(def.moves[2].sets, bv2);
    assert_eq!(Definition::parse(&def.to_tws()).unwrap(), def);
    assert!(is_rotation("x2") && is_rotation("UFv") && !is_rotation("Uv2") && !is_rotation("v"));
}
