//! Phases against brute force over the full puzzle's boards: a search backwards from every
//! board with the goal pieces home, then the histogram over every board with the start
//! pieces home. The phase counts tracked boards, each standing for equally many boards, so
//! the two histograms must be proportional with one factor at every distance.

use std::collections::HashMap;

use super::*;
use crate::puzzle::definition::Definition;
use crate::puzzle::{Metric, Move};

const CUBE2: &str = include_str!("../data/definitions/cube2.tws");

/// cube2 with a second set: 4 centers turned by U (4 orientations) and one by R.
const TWO_SETS: &str = "Name T\nSet CORNERS 4 3\nSet CENTERS 2 4\nSolved\nCORNERS\n1 2 3 4\n\
    End\nMove U\nCORNERS\n2 3 4 1\n0 0 0 0\nCENTERS\n1 2\n1 0\nEnd\nMove R\nCORNERS\n\
    1 3 2 4\n1 2 0 0\nEnd\n";

fn puzzle_of(def: Definition, metric: Metric) -> Puzzle {
    let defined = Defined::new("t", def).unwrap();
    Puzzle::new(&PuzzleSpec::Def(Arc::new(defined)), metric).unwrap()
}

/// A built-in puzzle written as a definition (in htm, as twsearch counts moves), searched in
/// `metric` (the definition's qtm and cw are the declared turns and their inverses, or the
/// declared turns alone, as for the built-in).
fn exported(spec: &str, metric: Metric) -> Puzzle {
    let builtin = Puzzle::parse(spec, Some(Metric::Htm)).unwrap();
    puzzle_of(Definition::from_puzzle(&builtin).unwrap(), metric)
}

fn group(text: &str) -> PieceGroup {
    PieceGroup::parse(text).unwrap()
}

/// Cells of the full puzzle (sets laid out in file order) that `groups` name.
fn cells(puzzle: &Puzzle, groups: &[PieceGroup]) -> Vec<usize> {
    let def = &puzzle.defined().unwrap().definition;
    let mut out = Vec::new();
    let mut first = 0;
    for set in &def.sets {
        for g in groups.iter().filter(|g| g.set == set.name) {
            match g.positions.is_empty() {
                true => out.extend(first..first + set.size),
                false => out.extend(g.positions.iter().map(|p| first + p - 1)),
            }
        }
        first += set.size;
    }
    out
}

/// Full boards with the start pieces home at each distance from the nearest board with the
/// goal pieces home (moves needed to bring them home).
fn brute_force(puzzle: &Puzzle, start: &[usize], goal: &[usize]) -> Vec<u64> {
    let solved = puzzle.solved();
    let home = |b: &Board, cells: &[usize]| {
        cells.iter().all(|&c| b.tiles[c] == solved.tiles[c] && b.orient[c] == solved.orient[c])
    };
    let k = puzzle.orient_mod;
    // Every board, then a search from the goals along the inverse moves.
    let mut all = vec![solved.clone()];
    let mut seen: HashMap<Board, u32> = HashMap::from([(solved.clone(), 0)]);
    let mut i = 0;
    while i < all.len() {
        for m in &puzzle.moves {
            let c = m.applied_to(&all[i], k);
            if !seen.contains_key(&c) {
                seen.insert(c.clone(), 0);
                all.push(c);
            }
        }
        i += 1;
    }
    let inverse: Vec<Move> = puzzle.inverse_moves();
    let mut dist: HashMap<Board, u32> = HashMap::new();
    let mut frontier: Vec<Board> = all.iter().filter(|b| home(b, goal)).cloned().collect();
    for b in &frontier {
        dist.insert(b.clone(), 0);
    }
    let mut d = 0;
    while !frontier.is_empty() {
        d += 1;
        let mut next = Vec::new();
        for b in &frontier {
            for m in &inverse {
                let c = m.applied_to(b, k);
                if !dist.contains_key(&c) {
                    dist.insert(c.clone(), d);
                    next.push(c);
                }
            }
        }
        frontier = next;
    }
    let mut hist = Vec::new();
    for b in all.iter().filter(|b| home(b, start)) {
        let d = dist[b] as usize;
        hist.resize(hist.len().max(d + 1), 0);
        hist[d] += 1;
    }
    hist
}

/// The phase's histogram is proportional to brute force's, and each worst board's
/// solution brings the goal pieces home in exactly the longest distance.
fn check(puzzle: &Puzzle, start: &[&str], goal: Option<&[&str]>) -> PhaseOutcome {
    let start: Vec<PieceGroup> = start.iter().map(|t| group(t)).collect();
    let goal: Option<Vec<PieceGroup>> = goal.map(|g| g.iter().map(|t| group(t)).collect());
    let phase = Phase::new(puzzle, &start, goal.as_deref()).unwrap();
    let space = phase.space().unwrap();
    let out = phase.run(&space, 2, 3, None, &crate::bfs::NoProgress).unwrap();
    let goal_cells = match &goal {
        Some(g) => cells(puzzle, g),
        None => (0..puzzle.n_positions()).collect(),
    };
    let brute = brute_force(puzzle, &cells(puzzle, &start), &goal_cells);
    assert_eq!(
        out.histogram.len(),
        brute.len(),
        "{}: {:?} vs {brute:?}",
        puzzle.spec,
        out.histogram
    );
    let factor = brute.iter().sum::<u64>() / out.starts();
    assert!(factor >= 1);
    let scaled: Vec<u64> = out.histogram.iter().map(|c| c * factor).collect();
    assert_eq!(scaled, brute, "{}: tracked {:?}", puzzle.spec, out.histogram);
    assert!(!out.worst.is_empty());
    for (board, moves) in &out.worst {
        assert!(phase.is_start(board));
        assert_eq!(moves.len() as u32, out.longest());
        let mut b = board.clone();
        for &m in moves {
            b = phase.tracked.apply(&b, &phase.tracked.moves[m]);
        }
        assert!(phase.is_goal(&b), "the solution does not reach the goal pattern");
    }
    out
}

#[test]
fn nested_patterns_match_brute_force() {
    // Start pieces among the goal pieces: one goal, the tracked solved board.
    let p = exported("nrp:2x4:2", Metric::Qtm);
    let out = check(&p, &["TILES:1,5"], Some(&["TILES:1,2,5,6"]));
    assert_eq!(out.goals, 1);
    check(&p, &[], Some(&["TILES:1-3"]));
    check(&p, &["TILES:1-3"], None);
    let p = exported("nrp:2x4:2", Metric::Htm);
    check(&p, &["TILES:4"], Some(&["TILES:4,8"]));
}

#[test]
fn directed_moves_count_moves_that_reach_the_goal() {
    // cw: a board's distance to the goals is not the goals' distance to it.
    let p = exported("nrp:3x3:2", Metric::Cw);
    check(&p, &["TILES:1"], Some(&["TILES:1,2,4"]));
    check(&p, &["TILES:5"], Some(&["TILES:1,9"]));
}

#[test]
fn start_pieces_outside_the_goal_take_every_goal_board() {
    let p = exported("nrp:2x4:2", Metric::Qtm);
    let out = check(&p, &["TILES:8"], Some(&["TILES:1,2"]));
    // Tiles 1, 2 home, tile 8 anywhere of the 6 other cells.
    assert_eq!(out.goals, 6);
}

#[test]
fn orientations_and_several_sets() {
    let p = puzzle_of(Definition::parse(TWO_SETS).unwrap(), Metric::Htm);
    check(&p, &["CORNERS:1"], Some(&["CORNERS:1,2", "CENTERS:1"]));
    check(&p, &["CENTERS"], Some(&["CORNERS:3"]));
    // The 2x2x2's <U, R> (29,160 boards): corners twisted mod 3.
    let ru = Subset { moves: Some(vec!["U".into(), "R".into()]), ..Subset::default() };
    let p = puzzle_of(ru.apply(&Definition::parse(CUBE2).unwrap()).unwrap(), Metric::Qtm);
    let out = check(&p, &["CORNERS:1-2"], Some(&["CORNERS:1-3"]));
    // Corners 1 and 2 home: the third on any of 4 cells U and R reach, in 3 turns.
    assert_eq!(out.starts(), 12);
}

#[test]
fn patterns_are_checked() {
    let p = exported("nrp:2x4:2", Metric::Qtm);
    let err = |start: &[&str], goal: &[&str]| {
        let start: Vec<PieceGroup> = start.iter().map(|t| group(t)).collect();
        let goal: Vec<PieceGroup> = goal.iter().map(|t| group(t)).collect();
        Phase::new(&p, &start, Some(&goal)).err().unwrap().to_string()
    };
    assert!(err(&[], &["EDGES:1"]).contains("expected a set of the puzzle (TILES), found `EDGES`"));
    assert!(err(&[], &["TILES:9"]).contains("set TILES has positions 1 to 8, found 9"));
    let builtin = Puzzle::parse("nrp:2x4:2", None).unwrap();
    let e = Phase::new(&builtin, &[], None).err().unwrap().to_string();
    assert!(e.contains("phases are asked of def:FILE puzzles"), "{e}");
    // Identical pieces: a pattern takes all of a kind.
    let same = "Name S\nSet P 4 1\nSolved\nP\n1 1 2 3\nEnd\nMove A\nP\n2 3 4 1\nEnd\n";
    let p = puzzle_of(Definition::parse(same).unwrap(), Metric::Htm);
    let e = Phase::new(&p, &[], Some(&[group("P:1,3")])).err().unwrap().to_string();
    assert!(e.contains("found P:1 named and P:2, identical to it in the file, not"), "{e}");
    assert!(Phase::new(&p, &[], Some(&[group("P:1,2")])).is_ok());
}

#[test]
fn ranges_read_back() {
    assert_eq!(ranges(&[1, 2, 3, 4, 7, 9, 10]), "1-4,7,9-10");
    assert_eq!(group("E:1-3,5").positions, vec![1, 2, 3, 5]);
    assert!(PieceGroup::parse("E:3-1").is_err());
    assert!(PieceGroup::parse("E:0-2").is_err());
}

/// A set the file's reading leaves out (pieces alike, no orientation seen) may be named in a
/// pattern: its pieces are home on every board, so it changes nothing; a pattern naming
/// nothing else is refused as asking nothing.
#[test]
fn patterns_may_name_sets_left_out_as_the_file_is_read() {
    let file = TWO_SETS
        .replacen("Set CENTERS 2 4\n", "Set CENTERS 2 4\nSet X 2 2\n", 1)
        .replacen("End\nMove U\n", "X\n1 1\n? ?\nEnd\nMove U\n", 1)
        .replacen("1 0\nEnd\nMove R", "1 0\nX\n2 1\n1 1\nEnd\nMove R", 1);
    let read = Defined::from_file("t", Definition::parse(&file).unwrap()).unwrap();
    assert_eq!(read.left_out_sets().len(), 1, "X is left out");
    let p = Puzzle::new(&PuzzleSpec::Def(Arc::new(read)), Metric::Htm).unwrap();
    let plain = puzzle_of(Definition::parse(TWO_SETS).unwrap(), Metric::Htm);
    let run = |p: &Puzzle, start: &[&str], goal: &[&str]| {
        let start: Vec<PieceGroup> = start.iter().map(|t| group(t)).collect();
        let goal: Vec<PieceGroup> = goal.iter().map(|t| group(t)).collect();
        let phase = Phase::new(p, &start, Some(&goal))?;
        let space = phase.space().unwrap();
        phase.run(&space, 2, 1, None, &crate::bfs::NoProgress).map(|o| o.histogram)
    };
    assert_eq!(
        run(&p, &["X:2", "CORNERS:1"], &["CORNERS:1,2", "X"]).unwrap(),
        run(&plain, &["CORNERS:1"], &["CORNERS:1,2"]).unwrap()
    );
    let e = run(&p, &[], &["X:1"]).unwrap_err().to_string();
    assert!(e.contains("found only sets whose pieces are all alike"), "{e}");
    let e = run(&p, &[], &["X:3"]).unwrap_err().to_string();
    assert!(e.contains("set X has positions 1 to 2, found 3"), "{e}");
    let e = run(&p, &[], &["Y"]).unwrap_err().to_string();
    assert!(e.contains("expected a set of the puzzle (CORNERS, CENTERS, X), found `Y`"), "{e}");
}
