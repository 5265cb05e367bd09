//! Tests of the analysis of wide definitions: exact orders known by construction past 255
//! pieces, boards judged both ways, and agreement with the small puzzles' analysis where
//! both apply.

use super::*;
use crate::group::analysis::Analysis;
use crate::group::solvable::{Checker, Verdict};
use crate::puzzle::definition::Definition;
use crate::puzzle::{Metric, Puzzle, PuzzleSpec};
use crate::rank::Ranking;
use std::sync::Arc;

fn defined(text: &str) -> Defined {
    Defined::new("test.tws", Definition::parse(text).unwrap()).unwrap()
}

fn line(v: impl IntoIterator<Item = usize>) -> String {
    v.into_iter().map(|x| x.to_string()).collect::<Vec<_>>().join(" ")
}

/// A position line (1-based) where each position takes the piece of the next one in
/// `cycle` (its first `len` positions), the rest untouched.
fn cycle_line(size: usize, cycle: &[usize]) -> String {
    let mut perm: Vec<usize> = (1..=size).collect();
    for (i, &p) in cycle.iter().enumerate() {
        perm[p - 1] = cycle[(i + 1) % cycle.len()];
    }
    line(perm)
}

/// Two sets of 150 pieces (300 in all) whose moves tie their signs: a 150-cycle and a swap
/// on both at once, a 3-cycle on each alone. The group is `(S_150 x S_150)` with equal
/// signs: `150!^2 / 2`.
fn coupled() -> String {
    let n = 150;
    let long: Vec<usize> = (1..=n).collect();
    format!(
        "Set A {n} 1\nSet B {n} 1\nSolved\nEnd\n\
         Move X\nA\n{l}\nB\n{l}\nEnd\n\
         Move Y\nA\n{s}\nB\n{s}\nEnd\n\
         Move Z\nA\n{t}\nEnd\n\
         Move W\nB\n{t}\nEnd\n",
        l = cycle_line(n, &long),
        s = cycle_line(n, &[1, 2]),
        t = cycle_line(n, &[1, 2, 3]),
    )
}

#[test]
fn signs_tied_across_three_hundred_pieces() {
    let d = defined(&coupled());
    assert!(d.is_wide());
    let a = WideAnalysis::of(&d).unwrap();
    let f150 = factorial(150);
    assert_eq!(a.group_order, &f150 * &f150 / 2u32);
    assert!(a.invariants_are_exact());
    assert_eq!(a.constraints(), ["sign(O1) + sign(O2) = 0 (mod 2)"]);
    let solved = d.solved_wide();
    assert_eq!(a.check(&solved), Ok(()));
    let swap = |t: &mut Vec<u16>, i: usize, j: usize| t.swap(i, j);
    let mut one = solved.clone();
    swap(&mut one.tiles, 0, 1);
    let reasons = a.check(&one).unwrap_err();
    assert!(reasons[0].starts_with("the moves keep sign(O1) + sign(O2) = 0 (mod 2), but here"));
    assert!(reasons[0].contains("sign(O1) = 1 (an odd permutation)"), "{reasons:?}");
    let mut both = one.clone();
    swap(&mut both.tiles, 150, 151);
    assert_eq!(a.check(&both), Ok(()));
    // Read from the file's layout and from a sequence, the same verdicts.
    let board = d
        .parse_board_wide(&format!(
            "A {} ; B {}",
            line([2, 1].into_iter().chain(3..=150)),
            line(1..=150)
        ))
        .unwrap();
    assert_eq!(board, one);
    assert!(a.check(&d.parse_board_wide("X Y Z W' X'").unwrap()).is_ok());
}

/// A symmetric group on 200 pieces beside a 64-cycle that twists one of its 64 corners:
/// `200! * 192`, a group far smaller than its invariants on the second set, which the chain
/// verifies without a bound.
#[test]
fn a_symmetric_group_beside_a_twisting_cycle() {
    let long: Vec<usize> = (1..=200).collect();
    let ring: Vec<usize> = (1..=64).collect();
    let mut twist = vec!["0"; 64];
    twist[0] = "1";
    let text = format!(
        "Set S 200 1\nSet T 64 3\nSolved\nEnd\n\
         Move X\nS\n{}\nEnd\nMove Y\nS\n{}\nEnd\n\
         Move Z\nT\n{}\n{}\nEnd\n",
        cycle_line(200, &long),
        cycle_line(200, &[1, 2]),
        cycle_line(64, &ring),
        twist.join(" ")
    );
    let d = defined(&text);
    let a = WideAnalysis::of(&d).unwrap();
    assert_eq!(a.group_order, factorial(200) * 192u32);
    assert!(!a.invariants_are_exact());
    assert_eq!(a.check(&d.parse_board_wide("Z5 X Y").unwrap()), Ok(()));
    // T turned by one move's cycle, but not twisted with it: outside the group, inside
    // every invariant.
    let mut board = d.parse_board_wide("Z").unwrap();
    board.orient[200..].fill(0);
    board.orient[201] = 1;
    let reasons = a.check(&board).unwrap_err();
    assert!(reasons[0].contains("generate only"), "{reasons:?}");
    // Two identical pieces on T, whose group (a 64-cycle twisting as it turns, order 192)
    // holds no swap of them: every element makes a board of its own, and the board with
    // the two swapped (inside every invariant) is not one of them.
    let labels = line([1, 1].into_iter().chain(2..=63));
    let labelled = text.replace("Solved\nEnd\n", &format!("Solved\nT\n{labels}\nEnd\n"));
    let d = defined(&labelled);
    let a = WideAnalysis::of(&d).unwrap();
    let i = a.identical(&d).unwrap();
    assert_eq!(i.distinct_boards(&a), a.group_order);
    assert_eq!(i.check(&a, &d.parse_board_wide("Z64 X").unwrap()), Ok(()));
    let mut board = d.parse_board_wide("Z").unwrap();
    board.tiles.swap(201, 202);
    assert!(i.check(&a, &board).is_err());
}

/// Identical pieces past 255: two sets of 150 pieces of three kinds, each under its own
/// `S_150`: `(150! / (50!)^3)^2` boards; a board with kinds swapped is still one of them, and
/// a board with too many of a kind cannot be read.
#[test]
fn identical_pieces_past_a_byte() {
    let all: Vec<usize> = (1..=150).collect();
    let labels = line((0..150).map(|i| i / 50 + 1));
    let (long, swap) = (cycle_line(150, &all), cycle_line(150, &[1, 2]));
    let text = format!(
        "Set P 150 1\nSet Q 150 1\nSolved\nP\n{labels}\nQ\n{labels}\nEnd\n\
         Move X\nP\n{long}\nEnd\nMove Y\nP\n{swap}\nEnd\n\
         Move Z\nQ\n{long}\nEnd\nMove W\nQ\n{swap}\nEnd\n"
    );
    let d = defined(&text);
    let a = WideAnalysis::of(&d).unwrap();
    let i = a.identical(&d).unwrap();
    let f50 = factorial(50);
    let per_set = factorial(150) / (&f50 * &f50 * &f50);
    assert_eq!(i.distinct_boards(&a), &per_set * &per_set);
    let board = d.parse_board_wide("X Y X Z W").unwrap();
    assert_eq!(i.check(&a, &board), Ok(()));
    let mut kinds: Vec<usize> = (0..150).map(|i| i / 50 + 1).collect();
    kinds.swap(0, 149);
    assert_eq!(i.check(&a, &d.parse_board_wide(&format!("P {}", line(kinds))).unwrap()), Ok(()));
    assert!(d.parse_board_wide(&format!("P {}", line([1].repeat(150)))).is_err());
}

/// Identical pieces whose parity is tied to another set's: a swap of the two identical
/// pieces frees the sign they would have fixed, so a board with one swap in A alone is
/// solvable (it is the element swapping in both sets).
#[test]
fn identical_pieces_free_the_signs_they_share() {
    let labels = line([1, 1].into_iter().chain(2..=149));
    let text = coupled().replacen("Solved\nEnd\n", &format!("Solved\nB\n{labels}\nEnd\n"), 1);
    let d = defined(&text);
    let a = WideAnalysis::of(&d).unwrap();
    let i = a.identical(&d).unwrap();
    // Swapping B's two identical pieces alone is odd on B only, so no element of the group
    // does it: every element makes a board of its own.
    assert_eq!(i.distinct_boards(&a), a.group_order);
    let mut board = d.solved_wide();
    board.tiles.swap(0, 1);
    assert_eq!(i.check(&a, &board), Ok(()), "the odd swap in A is undone by B's identical pair");
}

/// Where both analyses apply (definitions of at most 255 pieces), the wide one gives the
/// small one's orders, constraints, verdicts and numbers of distinct boards.
#[test]
fn agrees_with_the_small_analysis() {
    let cube2 = crate::puzzle::definition::tests::CUBE2;
    // smaller_group.tws without its set Q (233,280 elements: the small analysis lists them).
    let smaller = include_str!("../../data/definitions/smaller_group.tws");
    let smaller = smaller.replace("Set Q 4 1\n", "").replace("Q\n1 2 3 4\nEnd\n", "End\n");
    let smaller = &smaller[..smaller.find("Move Z").unwrap()];
    let exported = |spec: &str| {
        let native = Puzzle::parse(spec, Some(Metric::Htm)).unwrap();
        Definition::from_puzzle(&native).unwrap().to_tws()
    };
    let cases = [
        cube2.to_string(),
        cube2.replace("1 2 3 4 5 6 7\nEnd", "1 1 1 2 2 2 3\nEnd"),
        exported("nrp:2x3:2"),
        exported("nrp:3x4:3"),
        exported("nrp:3x3:2:orient"),
        exported("spin:2x3"),
        exported("nrp:3x4:2")
            .replace("\n1 2 3 4 5 6 7 8 9 10 11 12\n", "\n1 2 3 4 1 2 3 4 1 2 3 4\n"),
        // Groups smaller than their invariants (T reaches 120 of its 720 arrangements),
        // with identical pieces inside the hidden coupling, beside it, and unseen turns.
        smaller.replace("T\n1 2 3 4 5 6\n", "T\n1 1 2 2 3 3\n"),
        smaller.replace("T\n1 2 3 4 5 6\n", "T\n1 2 1 3 4 4\n"),
        smaller.replace("P\n1 2 3 4\n", "P\n1 1 2 2\n"),
        smaller.replace("P\n1 2 3 4\n", "P\n1 1 2 3\n? ? 0 0\n"),
        smaller
            .replace("T\n1 2 3 4 5 6\n", "T\n1 1 1 2 2 2\n")
            .replace("P\n1 2 3 4\n", "P\n1 2 3 4\n0 ? 0 0\n"),
    ];
    for text in cases {
        let d = defined(&text);
        let puzzle = Puzzle::new(&PuzzleSpec::Def(Arc::new(d.clone())), Metric::Htm).unwrap();
        let small = Analysis::of(&puzzle).unwrap();
        let a = WideAnalysis::of(&d).unwrap();
        assert_eq!(a.group_order, small.group_order, "{text}");
        assert_eq!(a.model_order, small.model_order, "{text}");
        assert_eq!(a.constraints().len(), small.invariants.constraints().len(), "{text}");
        let checker = Checker::new(&puzzle).unwrap();
        let identical = d.has_identical_pieces().then(|| a.identical(&d).unwrap());
        if let Some(i) = &identical {
            let boards = Ranking::of_identical_pieces(&puzzle, &small).unwrap();
            assert_eq!(i.distinct_boards(&a), BigUint::from(boards.n_reachable()), "{text}");
        }
        // Random boards, half of them scrambled by moves, half by swaps and turns.
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let names = d.move_names(Metric::Htm).unwrap();
        for round in 0..200 {
            let seq: Vec<&str> =
                (0..8).map(|_| names[next() as usize % names.len()].as_str()).collect();
            let mut board = d.parse_board_wide(&seq.join(" ")).unwrap();
            if round % 2 == 1 {
                let n = board.tiles.len();
                let (i, j) = (next() as usize % n, next() as usize % n);
                if d.cell_orientations()[i] == d.cell_orientations()[j] {
                    board.tiles.swap(i, j);
                }
                board.orient[i] = (board.orient[i] + next() as u8 % 2) % d.orient_mod();
            }
            let small_board = board.narrow().unwrap();
            let wide = match &identical {
                Some(i) => i.check(&a, &board),
                None => a.check(&board),
            };
            let expected = checker.check(&small_board) == Verdict::Solvable;
            assert_eq!(wide.is_ok(), expected, "{text}\n{}", d.format_board_wide(&board));
        }
    }
}
