//! Tests of definitions as puzzles: their searches against twsearch's figures and against the
//! built-in puzzles they were exported from, their boards and sequences.

use super::*;
use crate::bfs::{Config, NoProgress, search_puzzle};
use crate::puzzle::definition::power_name;
use crate::puzzle::definition::tests::{
    CUBE2, CUBE2_TWSEARCH, TWO, TWO_POSITIONS, TWSEARCH_HISTOGRAMS, TWSEARCH_HISTOGRAMS_LARGE,
    histogram,
};
use crate::puzzle::{Puzzle, PuzzleSpec};
use crate::rank::{Ranking, StateSpace};
use crate::table::DistanceTable;
use std::collections::HashSet;
use std::sync::Arc;

fn puzzle(text: &str, metric: Metric) -> Puzzle {
    let defined = Defined::new("test.tws", Definition::parse(text).unwrap()).unwrap();
    Puzzle::new(&PuzzleSpec::Def(Arc::new(defined)), metric).unwrap()
}

fn search(puzzle: &Puzzle) -> (Vec<u64>, StateSpace) {
    let space = StateSpace::build(puzzle).unwrap();
    let table = DistanceTable::in_memory(space.n_states()).unwrap();
    let out = search_puzzle(puzzle, &space, &table, &Config::new(1), &NoProgress).unwrap();
    assert_eq!(out.states(), space.n_states(), "every rank is reached");
    (out.histogram, space)
}

/// The file twirl exports for a built-in puzzle, read back.
fn exported(spec: &str) -> String {
    let native = Puzzle::parse(spec, Some(Metric::Htm)).unwrap();
    Definition::from_puzzle(&native).unwrap().to_tws()
}

/// Every puzzle twsearch searched in the definition tests, read back from its exported file
/// and searched as a definition, gives twsearch's histogram (which is also the native one):
/// htm as twsearch counts by default, qtm as with its `-q`.
#[test]
fn exported_puzzles_read_back_search_like_twsearch() {
    for &(spec, metric, expected) in TWSEARCH_HISTOGRAMS {
        let (hist, _) = search(&puzzle(&exported(spec), metric));
        assert_eq!(hist, expected, "{spec} {metric}");
    }
}

/// The same for the two Spinpossible 3x3 searches of 185,794,560 boards.
#[test]
#[ignore = "two 185,794,560-board searches, about 15 s on one core"]
fn large_exported_puzzles_read_back_search_like_twsearch() {
    for &(spec, metric, expected) in TWSEARCH_HISTOGRAMS_LARGE {
        let (hist, _) = search(&puzzle(&exported(spec), metric));
        assert_eq!(hist, expected, "{spec} {metric}");
    }
}

/// Clockwise-only is not a twsearch metric, but a definition searched with `cw` keeps the
/// declared (counter-clockwise) turns only: the mirror image of twirl's clockwise turns, so
/// the same histogram.
#[test]
fn declared_moves_alone_mirror_the_clockwise_metric() {
    for spec in ["nrp:2x3:2", "nrp:3x3:2", "nrp:2x3:2:orient"] {
        let p = Puzzle::parse(spec, Some(Metric::Cw)).unwrap();
        let (native, _) = search(&p);
        let def = puzzle(&exported(spec), Metric::Cw);
        assert!(!def.undirected, "{spec}");
        assert_eq!(search(&def).0, native, "{spec}");
    }
}

/// The 2x2x2 cube with a fixed corner: corner orientations mod 3, ranked by the invariant
/// layout, 3,674,160 boards in twsearch's distribution.
#[test]
fn cube2_searches_like_twsearch() {
    let p = puzzle(CUBE2, Metric::Htm);
    let names: Vec<&str> = p.moves.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["U", "U2", "U'", "R", "R2", "R'", "F", "F2", "F'"]);
    let (hist, space) = search(&p);
    assert!(matches!(space.ranking, Ranking::Layout(_)));
    assert_eq!(space.analysis.group_order, 3_674_160u32.into());
    assert_eq!(hist, CUBE2_TWSEARCH);
}

/// Identical pieces (set Q) and orientations mod 3 (set P): the sequences twsearch showed give
/// the same boards, written in the file's layout, and the search matches a plain search of
/// the definition.
#[test]
fn identical_pieces_and_sequences() {
    let p = puzzle(TWO, Metric::Htm);
    let d = p.defined().unwrap();
    assert!(d.has_identical_pieces());
    for &(sequence, [pieces, orient], q) in TWO_POSITIONS {
        let board = d.parse_board(sequence).unwrap();
        assert_eq!(d.format_board(&board), format!("P {pieces} / {orient} ; Q {q}"), "{sequence}");
        assert_eq!(d.parse_board(&d.format_board(&board)).unwrap(), board, "{sequence}");
    }
    let def = Definition::parse(TWO).unwrap();
    let (hist, space) = search(&p);
    assert!(matches!(space.ranking, Ranking::Multiset(_)));
    assert_eq!(hist, histogram(&def, usize::MAX));
    assert_eq!(space.n_boards(), hist.iter().sum::<u64>().into());
}

/// NRP (3,3,2) whose tiles are told apart only by their row: 9!/(3!)^3 = 1680 boards, in
/// twsearch's distribution (`twsearch -g` on the same file: 1 12 88 469 876 234).
#[test]
fn rows_of_identical_tiles_search_like_twsearch() {
    let text = exported("nrp:3x3:2").replace("\n1 2 3 4 5 6 7 8 9\n", "\n1 1 1 2 2 2 3 3 3\n");
    let (hist, space) = search(&puzzle(&text, Metric::Htm));
    assert_eq!(hist, [1, 12, 88, 469, 876, 234]);
    assert_eq!(space.analysis.group_order, 362_880u32.into(), "the group is still 9!");
}

/// Identical pieces in larger spaces, ranked as multiset permutations: histograms equal to
/// `twsearch -t 1 -g` on the same files (run here, 2026-11-24).
#[test]
fn identical_pieces_rank_as_multisets_like_twsearch() {
    let rows = exported("nrp:3x4:2");
    let cases = [
        // NRP (3,4,2), tiles told apart by row: 12!/(4!)^3 = 34,650 boards.
        (
            rows.replace("\n1 2 3 4 5 6 7 8 9 10 11 12\n", "\n1 1 1 1 2 2 2 2 3 3 3 3\n"),
            &[1u64, 18, 194, 1613, 7590, 15308, 9450, 476][..],
        ),
        // By column: 12!/(3!)^4 = 369,600 boards.
        (
            rows.replace("\n1 2 3 4 5 6 7 8 9 10 11 12\n", "\n1 2 3 4 1 2 3 4 1 2 3 4\n"),
            &[1, 18, 203, 1857, 12668, 55365, 125396, 126500, 44550, 3023, 19],
        ),
        // The 2x2x2 cube whose corners are told apart by colour only, orientations mod 3:
        // 7!/(3! 3! 1!) * 3^6 = 102,060 boards.
        (
            CUBE2.replace("1 2 3 4 5 6 7\nEnd", "1 1 1 2 2 2 3\nEnd"),
            &[1, 9, 53, 310, 1749, 8855, 33521, 50397, 7162, 3],
        ),
    ];
    for (text, expected) in cases {
        let (hist, space) = search(&puzzle(&text, Metric::Htm));
        assert!(matches!(space.ranking, Ranking::Multiset(_)));
        assert_eq!(hist, expected);
    }
}

/// Orientation moduli up to 127 (here lcm(8, 3, 5) = 120): potentials and turns add up past
/// a byte, which once wrapped and made set A's orientations look free modulo 120.
#[test]
fn large_orientation_moduli_do_not_overflow() {
    let text = "Set A 3 8\nSet B 1 3\nSet C 1 5\nSolved\nA\n1 2 3\nEnd\n\
                Move X\nA\n2 3 1\n7 7 7\nEnd\n\
                Move Y\nA\n2 1 3\n0 0 0\nB\n1\n1\nEnd\n\
                Move Z\nA\n1 2 3\n1 7 0\nEnd\n";
    let p = puzzle(text, Metric::Htm);
    assert_eq!(p.orient_mod, 120);
    let (hist, space) = search(&p);
    let inv = &space.analysis.invariants;
    assert_eq!((inv.orbits[0].tied_mod, inv.orbits[0].free_mod), (15, 8));
    assert!(matches!(space.ranking, Ranking::Layout(_)));
    // 3! arrangements, 8^3 orientations of A and 3 of B (C never turns).
    assert_eq!(hist.iter().sum::<u64>(), 6 * 512 * 3);
    for r in 0..space.n_states() {
        assert_eq!(space.rank_board(&space.board(r)).unwrap(), r);
    }
}

/// Solved orientations other than 0 are where a piece is solved: a board is counted from them.
#[test]
fn solved_orientations_are_kept() {
    let text = CUBE2.replace("1 2 3 4 5 6 7\nEnd", "1 2 3 4 5 6 7\n1 0 0 0 0 0 2\nEnd");
    let p = puzzle(&text, Metric::Htm);
    let d = p.defined().unwrap();
    assert_eq!(d.format_board(&p.solved()), "CORNERS 1 2 3 4 5 6 7 / 1 0 0 0 0 0 2");
    let (hist, _) = search(&p);
    assert_eq!(hist, CUBE2_TWSEARCH);
    let u = d.parse_board("U").unwrap();
    assert_eq!(d.format_board(&u), "CORNERS 4 1 2 3 5 6 7 / 0 1 0 0 0 0 2");
}

#[test]
fn bad_boards_and_sequences_say_why() {
    let p = puzzle(TWO, Metric::Htm);
    let d = p.defined().unwrap();
    let err = |text: &str| d.parse_board(text).unwrap_err().to_string();
    assert!(err("P 1 2 3").contains("expected 4 piece numbers, found 3"));
    assert!(err("P 1 2 3 5").contains("5 is not a piece of the set"));
    assert!(err("P 1 2 3 3").contains("more often than in the solved state"));
    assert!(err("P 1 2 3 4 / 0 0 0 3").contains("orientation 3 is out of range 0..2"));
    assert!(err("P 1 2 3 4 / 0 0").contains("expected 4 orientations"));
    assert!(err("Q 1 1 2 ; Q 1 1 2").contains("given twice"));
    assert!(err("P 1 2 3 4 R 1").contains("expected a set name (P, Q), found `R`"));
    assert!(err("A C").contains("`C` is not a move"));
    // A set left out is solved; separators are free.
    assert_eq!(d.parse_board("P 1 2 4 3 / 0 0 2 1; Q 1 2 1").unwrap(), d.parse_board("B").unwrap());
    assert_eq!(d.parse_board("Q\n1 1 2\nEnd").unwrap(), p.solved());
    assert_eq!(d.parse_board("").unwrap(), p.solved());
    assert_eq!(d.sequence("A, B A'").unwrap(), d.sequence("A B A4 A4").unwrap());
}

/// In every metric, each move's printed name reads back as that move, and no two moves share
/// a name, so a solution `solve` prints is the one `apply` reads: on the samples, on exported
/// puzzles, and on names that extend one another without colliding (`R` of order 3 writes no
/// `R2`, `R` no `R12` nor `R22`, `R1` of order 4 no `R1` + digits other than `R12`; a move of
/// order 9).
#[test]
fn every_printed_move_name_reads_back_as_that_move() {
    let extending = "Set A 12 3\nSolved\nA\n1 2 3 4 5 6 7 8 9 10 11 12\nEnd\n\
                     Move R\nA\n2 3 1 4 5 6 7 8 9 10 11 12\nEnd\n\
                     Move R2\nA\n1 2 3 5 4 6 7 8 9 10 11 12\nEnd\n\
                     Move R1\nA\n1 2 3 4 5 7 8 9 6 10 11 12\nEnd\n\
                     Move R22\nA\n1 2 3 4 5 6 7 8 9 11 10 12\nEnd\n\
                     Move M\nA\n1 2 3 4 5 6 7 8 9 11 12 10\n0 0 0 0 0 0 0 0 0 1 0 0\nEnd\n";
    let texts = [
        CUBE2.to_string(),
        TWO.to_string(),
        extending.to_string(),
        exported("nrp:3x3:2"),
        exported("nrp:2x3:2:orient"),
        exported("spin:2x3"),
    ];
    let mut checked = 0;
    for text in &texts {
        for metric in [Metric::Htm, Metric::Qtm, Metric::Cw] {
            let p = puzzle(text, metric);
            let d = p.defined().unwrap();
            let names: HashSet<&str> = p.moves.iter().map(|m| m.name.as_str()).collect();
            assert_eq!(names.len(), p.moves.len(), "{metric}: {names:?}");
            for m in &p.moves {
                let read = d.sequence(&m.name).unwrap();
                assert_eq!((&read.perm, &read.twist), (&m.perm, &m.twist), "{metric} {}", m.name);
                checked += 1;
            }
        }
    }
    // The moves of `extending` in htm: R of order 3, R2 and R22 of order 2, R1 of order 4,
    // M of order 9.
    let names: Vec<String> =
        puzzle(extending, Metric::Htm).moves.into_iter().map(|m| m.name).collect();
    assert_eq!(
        names,
        [
            "R", "R'", "R2", "R1", "R12", "R1'", "R22", "M", "M2", "M3", "M4", "M4'", "M3'", "M2'",
            "M'"
        ]
    );
    assert!(checked > 100, "{checked}");
}

/// Two moves with names that extend one another, of orders 2, 3, 4, 5 and 24: the file is
/// refused exactly when two moves would share a name, and otherwise every name, in every
/// metric, reads back as its move.
#[test]
fn names_either_read_back_or_the_file_is_refused() {
    let head = "Set A 11 1\nSolved\nA\n1 2 3 4 5 6 7 8 9 10 11\nEnd\n";
    let blocks = [
        (2, "A\n1 2 3 4 5 6 7 9 8 10 11\nEnd\n"),
        (3, "A\n1 2 3 4 6 7 5 8 9 10 11\nEnd\n"),
        (4, "A\n2 3 4 1 5 6 7 8 9 10 11\nEnd\n"),
        (5, "A\n2 3 4 5 1 6 7 8 9 10 11\nEnd\n"),
        (24, "A\n2 3 1 5 6 7 8 9 10 11 4\nEnd\n"),
    ];
    let names = ["R", "R2", "R'", "R1", "R12", "R2'", "R22", "U"];
    let (mut refused, mut read) = (0, 0);
    for a in names {
        for b in names.iter().filter(|&&b| b != a) {
            for (oa, ba) in blocks {
                for (ob, bb) in blocks {
                    let text = format!("{head}Move {a}\n{ba}Move {b}\n{bb}");
                    let powers =
                        |n: &str, o| (1..o).map(|k| power_name(n, k, o)).collect::<Vec<_>>();
                    let all: Vec<String> = [powers(a, oa), powers(b, ob)].concat();
                    let distinct = all.iter().collect::<HashSet<_>>().len() == all.len();
                    let def = Definition::parse(&text);
                    assert_eq!(def.is_ok(), distinct, "{a} ({oa}) {b} ({ob}): {all:?} {def:?}");
                    if def.is_err() {
                        refused += 1;
                        continue;
                    }
                    for metric in [Metric::Htm, Metric::Qtm, Metric::Cw] {
                        let p = puzzle(&text, metric);
                        let d = p.defined().unwrap();
                        for m in &p.moves {
                            let back = d.sequence(&m.name).unwrap();
                            assert_eq!((&back.perm, &back.twist), (&m.perm, &m.twist), "{text}");
                        }
                    }
                    read += 1;
                }
            }
        }
    }
    assert_eq!((refused, read), (206, 1194));
}

#[test]
fn metrics_pick_powers() {
    let count = |m| puzzle(CUBE2, m).moves.len();
    assert_eq!((count(Metric::Htm), count(Metric::Qtm), count(Metric::Cw)), (9, 6, 3));
    // A move of order 2 has no separate inverse.
    assert_eq!(puzzle(TWO, Metric::Qtm).moves.len(), 4);
}

/// Orientations mod 3 and mod 2 in one puzzle (modulus 6): each constraint is stated in its
/// own modulus. (E's flips are tied to its cells, so only A has a free orientation sum.)
#[test]
fn mixed_moduli_constraints_read_in_their_own_modulus() {
    let text = "Set A 3 3\nSet E 2 2\nSolved\nA\n1 2 3\nE\n1 2\nEnd\n\
                Move M\nA\n1 2 3\n1 2 0\nEnd\nMove N\nA\n2 3 1\nE\n2 1\n1 1\nEnd\n";
    let p = puzzle(text, Metric::Htm);
    assert_eq!(p.orient_mod, 6);
    let analysis = crate::group::analysis::Analysis::of(&p).unwrap();
    let mut constraints = analysis.invariants.constraints();
    constraints.sort();
    assert_eq!(constraints, ["orientation sum(O1) = 0 (mod 3)", "sign(O1) = 0 (mod 2)"]);
}

/// Read right to left (`apply --right-to-left`), the last factor written acts first, inside
/// groups too.
#[test]
fn sequences_read_right_to_left() {
    use crate::puzzle::sequence::Order::RightToLeft;
    let cube2 = include_str!("../../data/definitions/cube2.tws");
    let d = Defined::new("cube2.tws", Definition::parse(cube2).unwrap()).unwrap();
    let ltr = |t: &str| d.sequence(t).unwrap();
    let rtl = |t: &str| d.sequence_in(t, RightToLeft).unwrap();
    assert_eq!(rtl("R U"), ltr("U R"));
    assert_ne!(rtl("R U"), ltr("R U"));
    assert_eq!(rtl("(R U F)2 U'"), ltr("U' (F U R)2"));
    assert_eq!(rtl("(R (U F2)')3"), ltr("((F2 U)' R)3"));
    assert_eq!(d.sequence_wide_in("R U", RightToLeft).unwrap().narrow().unwrap(), ltr("U R"));
}

/// Groups repeat as twsearch writes them (`(R U)6`) and as twirl's other puzzles do
/// (`(R U)^6`, `(R U)'`); each reads as the moves written out.
#[test]
fn sequences_with_repetitions() {
    let cube2 = include_str!("../../data/definitions/cube2.tws");
    let d = Defined::new("cube2.tws", Definition::parse(cube2).unwrap()).unwrap();
    let seq = |t: &str| d.sequence(t).unwrap();
    let sexy = "R U R' U' ";
    assert!(seq(&sexy.repeat(6)).is_identity());
    assert!(seq("(R U R' U')6").is_identity());
    assert!(seq("(R U R' U')^6").is_identity());
    assert!(!seq("(R U R' U')5").is_identity());
    assert_eq!(seq("(R U)3"), seq("R U R U R U"));
    assert_eq!(seq("(R U) 3"), seq("R U R U R U"));
    assert_eq!(seq("(R U)'"), seq("U' R'"));
    assert_eq!(seq("(R U)^-1"), seq("U' R'"));
    assert_eq!(seq("(R U)2'"), seq("U' R' U' R'"));
    assert_eq!(seq("F((R U)2 F)2"), seq("F R U R U F R U R U F"));
    assert_eq!(seq("(R,U)2"), seq("R U R U"));
    for (bad, why) in [
        ("(R U", "a `(` without its `)`"),
        ("R U)", "a `)` without its `(`"),
        ("(R U)x", "expected a repetition after `)`"),
        ("(R Q)2", "`Q` is not a move"),
    ] {
        let err = d.sequence(bad).unwrap_err().to_string();
        assert!(err.contains(why), "{bad}: {err}");
    }
    let deep = format!("{}R{}", "(".repeat(100), ")".repeat(100));
    assert!(d.sequence(&deep).unwrap_err().to_string().contains("nest deeper"));
}

/// Rotations are listed, never moves; `Illegal` is said by `describe_sets` and refuses
/// searches, while the puzzle is still built (info, order, check, apply).
#[test]
fn rotations_and_illegal_in_the_layout() {
    let cube2 = include_str!("../../data/definitions/cube2.tws");
    let text = format!("{cube2}\nMove Uv\nCORNERS\n4 1 2 3 5 6 7\nEnd\nIllegal CORNERS 1 2\n");
    let d = Defined::new("c.tws", Definition::parse(&text).unwrap()).unwrap();
    assert_eq!(d.moves(Metric::Htm).unwrap().len(), 9);
    let said = d.describe_sets();
    assert!(said.contains("whole-puzzle rotations (symmetries, not moves): Uv"), "{said}");
    assert!(said.contains("1 `Illegal` placement (first: piece 2 on CORNERS position 1)"));
    assert!(d.search_refusal().unwrap().contains("searches cannot avoid illegal boards"));
    let plain = Defined::new("c.tws", Definition::parse(cube2).unwrap()).unwrap();
    assert_eq!(plain.search_refusal(), None);
}

/// A file's sets that tell no boards apart are left out of the search, and sets with no
/// orientation seen are searched without orientations: the histogram is the hand-edited
/// file's, boards may still be written as the file has them, and where leaving them out
/// would change a move's order (its powers in `htm`) the file is searched as it is.
#[test]
fn sets_that_tell_nothing_are_left_out_as_the_file_is_read() {
    // TWO with X (two alike pieces, turns unseen) and R (two pieces, turns unseen), both
    // moved by B, whose order (6) they keep.
    let extra_sets = "Set X 2 2\nSet R 2 3\n";
    let extra_solved = "X\n1 1\n? ?\nR\n1 2\n? ?\n";
    let extra_b = "X\n2 1\n1 1\nR\n2 1\n1 2\n";
    let with = |sets: &str, solved: &str, b: &str| {
        TWO.replacen("Set Q 3 1\n", &format!("Set Q 3 1\n{sets}"), 1)
            .replacen("1 1 2\nEnd", &format!("1 1 2\n{solved}End"), 1)
            .replacen("Move B\n", &format!("Move B\n{b}"), 1)
    };
    let file = with(extra_sets, extra_solved, extra_b);
    let by_hand = with("Set R 2 1\n", "R\n1 2\n", "R\n2 1\n");
    let read = Defined::from_file("test.tws", Definition::parse(&file).unwrap()).unwrap();
    let names = |sets: &[SetDef]| sets.iter().map(|s| s.name.clone()).collect::<Vec<_>>();
    let left_out: Vec<SetDef> = read.left_out_sets().iter().map(|(s, _)| s.clone()).collect();
    assert_eq!(
        (names(&left_out), names(read.unoriented_sets())),
        (vec!["X".into()], vec!["R".into()])
    );
    assert_eq!(read.definition, Definition::parse(&by_hand).unwrap());
    assert!(read.describe_sets().contains("left out, as they tell no boards apart"));
    let p = Puzzle::new(&PuzzleSpec::Def(Arc::new(read.clone())), Metric::Htm).unwrap();
    let hand = puzzle(&by_hand, Metric::Htm);
    assert_eq!(search(&p).0, search(&hand).0);
    assert_eq!(search(&p).0, histogram(&Definition::parse(&by_hand).unwrap(), 100));

    // Boards as the file writes them, with the sets left out or unoriented.
    let board = |text: &str| read.parse_board(text);
    assert_eq!(
        board("X 1 1 / 1 0 ; P 1 2 4 3 / 0 0 2 1 ; R 2 1 / 2 2").unwrap(),
        board("P 1 2 4 3 / 0 0 2 1 ; R 2 1").unwrap()
    );
    let err = |text: &str| board(text).unwrap_err().to_string();
    assert!(err("X 1 2").contains("set X: 2 is not a piece of the set (its solved state has 1)"));
    assert!(err("X 1").contains("set X: expected 2 piece numbers, found 1"));
    assert!(err("X 1 1 / 0 2").contains("set X: orientation 2 is out of range 0..1"));
    assert!(err("R 2 1 / 0 3").contains("set R: orientation 3 is out of range 0..2"));
    assert!(err("R 2 1 / 0").contains("set R: expected 2 orientations"));
    assert!(err("X 1 1 ; R 2 1 ; X 1 1").contains("set X is given twice"));

    // X turned by A as well: A's order would fall from 18 to 9, so nothing is left out.
    let file = file.replacen("Move A\n", "Move A\nX\n2 1\n1 1\n", 1);
    let read = Defined::from_file("test.tws", Definition::parse(&file).unwrap()).unwrap();
    assert!(read.left_out_sets().is_empty() && read.unoriented_sets().is_empty());
    assert_eq!(read.definition, Definition::parse(&file).unwrap());
}
