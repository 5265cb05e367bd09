//! `twirl phase` from the command line: a phase that asks for the whole puzzle is the
//! puzzle's own search, a phase whose start pieces are already its goal pieces is at
//! distance 0, the worst boards are listed with solutions as long as the phase, and bad
//! patterns are refused in one line.

mod common;

use common::{assert_rejected, stderr, stdout, twirl};

const CUBE2: &str = "data/definitions/cube2.tws";

fn json_of(args: &[&str]) -> serde_json::Value {
    let mut all = args.to_vec();
    all.extend(["--json", "-"]);
    let o = twirl(&all);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    serde_json::from_str(&stdout(&o)).unwrap()
}

fn numbers(v: &serde_json::Value) -> Vec<u64> {
    v.as_array().unwrap().iter().map(|x| x.as_u64().unwrap()).collect()
}

#[test]
fn from_every_board_to_solved_is_the_puzzles_own_search() {
    let def = format!("def:{CUBE2}");
    for metric in ["htm", "qtm"] {
        let phase = json_of(&["phase", &def, "--metric", metric]);
        let bfs = json_of(&["bfs", &def, "--metric", metric, "-q"]);
        assert_eq!(numbers(&phase["histogram"]), numbers(&bfs["histogram"]), "{metric}");
        assert_eq!(phase["start_boards"], 3_674_160);
        assert_eq!(phase["goal_boards"], 1);
        assert_eq!(phase["longest"], bfs["gods_number"]);
    }
}

#[test]
fn a_phase_lists_its_worst_boards_with_solutions_as_long_as_the_phase() {
    let def = format!("def:{CUBE2}");
    let v = json_of(&[
        "phase",
        &def,
        "--start",
        "CORNERS:1",
        "--goal",
        "CORNERS:1-3",
        "--antipodes",
        "3",
    ]);
    assert_eq!(v["tracked"], "CORNERS:1-3");
    // Corner 1 home: corners 2 and 3 on any two of 6 cells, each in 3 turns.
    assert_eq!(v["start_boards"], 6 * 5 * 9);
    let longest = v["longest"].as_u64().unwrap();
    let listed = v["antipode_boards"].as_array().unwrap();
    assert!(!listed.is_empty() && listed.len() <= 3);
    for w in listed {
        let solution = w["solution"].as_str().unwrap();
        // (The library's tests apply each solution and check the goal pattern.)
        assert_eq!(solution.split_whitespace().count() as u64, longest);
    }
    // Start pieces that are the goal pieces: every start board is a goal.
    let v = json_of(&["phase", &def, "--start", "CORNERS:1-2", "--goal", "CORNERS:2,1"]);
    assert_eq!(numbers(&v["histogram"]), vec![1]);
}

#[test]
fn the_text_report_says_what_was_searched() {
    let def = format!("def:{CUBE2}");
    let o = twirl(&[
        "phase",
        &def,
        "--start",
        "CORNERS:1",
        "--goal",
        "CORNERS:1,2",
        "--antipodes",
        "1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("pieces tracked CORNERS:1-2, every other piece ignored"), "{out}");
    assert!(out.contains("from 18 start boards (CORNERS:1 solved)"), "{out}");
    assert!(out.contains("# longest: "), "{out}");
    assert!(out.contains("#   solution: "), "{out}");
}

#[test]
fn bad_patterns_are_refused() {
    let def = format!("def:{CUBE2}");
    assert_rejected(
        &["phase", &def, "--goal", "EDGES:1"],
        "expected a set of the puzzle (CORNERS)",
    );
    assert_rejected(&["phase", &def, "--goal", "CORNERS:8"], "positions 1 to 7, found 8");
    assert_rejected(&["phase", &def, "--goal", "CORNERS:x"], "expected positions 1, 2, ...");
    assert_rejected(&["phase", "nrp:3x3:2"], "phases are asked of def:FILE puzzles");
    assert_rejected(&["phase", &def, "--goal", "CORNERS:1", "--moves", "Q"], "expected moves");
}

#[test]
fn a_tracked_puzzle_written_out_searches_alike() {
    // `export-def` takes the subset flags, so twsearch can be run on the tracked puzzle.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tracked.tws");
    let def = format!("def:{CUBE2}");
    let o = twirl(&["export-def", &def, "--ignore", "CORNERS:4-7", "-o", file.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let written = json_of(&["bfs", &format!("def:{}", file.display()), "-q"]);
    let subset = json_of(&["bfs", &def, "--ignore", "CORNERS:4-7", "-q"]);
    assert_eq!(numbers(&written["histogram"]), numbers(&subset["histogram"]));
    // Corners 1-3 anywhere of 7 cells, each in 3 turns.
    assert_eq!(written["states"], 7 * 6 * 5 * 27);
    let phase = json_of(&["phase", &def, "--goal", "CORNERS:1-3"]);
    assert_eq!(numbers(&phase["histogram"]), numbers(&subset["histogram"]));
}
