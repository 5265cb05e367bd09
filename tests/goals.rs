//! `twirl bfs --goals FILE`: searches from several goals against a multi-source search over
//! explicit boards, the 2x2x2 with its 24 orientations as goals against the textbook
//! distribution, bad goal files, and tables of goals stopped, resumed and refused.

use std::collections::{HashMap, HashSet};
use std::path::Path;

mod common;

use common::{bin, interrupted_after, stderr, stdout, twirl};
use twirl::puzzle::sequence::Env;
use twirl::puzzle::{Board, Metric, Puzzle};
use twirl::symmetry::Symmetries;

const CUBE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/definitions/2x2x2.tws");
const ORIENTATIONS: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/data/goals/2x2x2-orientations.txt");

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The boards at each distance, read from `twirl bfs` output.
fn histogram(out: &str) -> Vec<u64> {
    out.lines()
        .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
        .map(|l| l.split_whitespace().nth(1).unwrap().parse().unwrap())
        .collect()
}

/// Boards at each distance to the nearest goal, by a search over explicit boards: a board's
/// predecessors are its images under the inverse moves (in `cw` the moves are directed, and
/// the distance is the moves that take a board to a goal).
fn brute_force(puzzle: &Puzzle, goals: &[Board]) -> Vec<u64> {
    let inverse = puzzle.inverse_moves();
    let mut dist: HashMap<Board, u32> = goals.iter().map(|g| (g.clone(), 0)).collect();
    let mut level: Vec<Board> = dist.keys().cloned().collect();
    let mut out = vec![level.len() as u64];
    while !level.is_empty() {
        let d = out.len() as u32;
        let mut next = Vec::new();
        for b in &level {
            for m in &inverse {
                let p = puzzle.apply(b, m);
                if !dist.contains_key(&p) {
                    dist.insert(p.clone(), d);
                    next.push(p);
                }
            }
        }
        if !next.is_empty() {
            out.push(next.len() as u64);
        }
        level = next;
    }
    out
}

fn sequence(puzzle: &Puzzle, text: &str) -> Board {
    puzzle.apply(&puzzle.solved(), &Env::new().eval_text(puzzle, text).unwrap())
}

/// `twirl bfs SPEC --goals FILE` with `flags`: its histogram.
fn search(spec: &str, goals: &Path, flags: &[&str]) -> Vec<u64> {
    let o = twirl(&[&["bfs", spec, "--goals", s(goals), "-q"], flags].concat());
    assert!(o.status.success(), "{spec} {flags:?}: {}", stderr(&o));
    histogram(&stdout(&o))
}

/// Goals written half as boards, half as the sequences that make them, with a comment and a
/// repeated goal (counted once).
fn write_goals(path: &Path, puzzle: &Puzzle, sequences: &[&str]) {
    let mut text = String::from("# goals\n\n");
    for (i, seq) in sequences.iter().enumerate() {
        match i % 2 {
            0 => {
                text += &format!("{}  # as a board\n", puzzle.format_board(&sequence(puzzle, seq)))
            }
            _ => text += &format!("{seq}\n"),
        }
    }
    text += sequences[0];
    text += "\n";
    std::fs::write(path, text).unwrap();
}

#[test]
fn goals_give_a_multi_source_search_over_explicit_boards() {
    let dir = tempfile::tempdir().unwrap();
    let cases: &[(&str, &str, &[&str])] = &[
        ("nrp:2x3:2", "qtm", &["R1C1", "R1C2 R1C1'", "R1C1 R1C1"]),
        ("nrp:2x3:2", "htm", &["R1C2", "R1C1 R1C2 R1C1"]),
        ("nrp:2x3:2", "cw", &["R1C1'", "R1C2 R1C2 R1C1'"]),
        ("nrp:2x2:2:orient", "cw", &["R1C1 R1C1"]),
        ("spin:2x3", "htm", &["[1,6]", "[2,3] [1,4]", "[5,5]"]),
        ("nrp:2x4:2", "cw", &["R1C3", "R1C1 R1C2'"]),
    ];
    for &(spec, metric, seqs) in cases {
        let puzzle = Puzzle::parse(spec, Some(Metric::parse(metric).unwrap())).unwrap();
        let path = dir.path().join("goals.txt");
        write_goals(&path, &puzzle, seqs);
        let goals: Vec<Board> =
            seqs.iter().map(|q| sequence(&puzzle, q)).collect::<HashSet<_>>().into_iter().collect();
        let want = brute_force(&puzzle, &goals);
        assert_eq!(want[0], goals.len() as u64);
        for symmetry in ["off", "auto"] {
            let got = search(spec, &path, &["--metric", metric, "--symmetry", symmetry]);
            assert_eq!(got, want, "{spec} {metric} --symmetry {symmetry}");
        }
    }
}

/// A goal set that every symmetry maps onto itself is searched by classes (without
/// inversion, which `cw` has not and qtm leaves out with goals), and gives the boards'
/// histogram.
#[test]
fn goals_closed_under_the_symmetries_are_searched_by_classes() {
    let dir = tempfile::tempdir().unwrap();
    for (spec, metric, seqs) in [
        ("nrp:2x4:2", "cw", ["R1C1", "R1C2 R1C3'"]),
        ("nrp:3x3:2", "cw", ["R1C1", "R2C2 R1C2"]),
        ("nrp:3x3:2", "qtm", ["R1C1", "R2C2 R1C2"]),
    ] {
        let puzzle = Puzzle::parse(spec, Some(Metric::parse(metric).unwrap())).unwrap();
        let syms = Symmetries::of(&puzzle);
        assert!(syms.order() > 1, "{spec}");
        let mut goals = HashSet::new();
        for q in seqs {
            goals.extend(syms.images(&sequence(&puzzle, q), false));
        }
        let goals: Vec<Board> = goals.into_iter().collect();
        let path = dir.path().join("goals.txt");
        let text: Vec<String> = goals.iter().map(|g| puzzle.format_board(g)).collect();
        std::fs::write(&path, text.join("\n")).unwrap();
        let want = brute_force(&puzzle, &goals);
        for symmetry in ["on", "off", "auto"] {
            let args =
                ["bfs", spec, "--metric", metric, "--goals", s(&path), "--symmetry", symmetry];
            let o = twirl(&args);
            assert!(o.status.success(), "{spec} {metric} {symmetry}: {}", stderr(&o));
            assert_eq!(histogram(&stdout(&o)), want, "{spec} {metric} --symmetry {symmetry}");
            // `auto` searches groups of fewer than 131,072 boards (NRP (2,4,2)) by boards.
            let boards = twirl::group::analysis::Analysis::of(&puzzle).unwrap().group_order;
            let few = boards < 131_072u32.into();
            let classes = stderr(&o).contains("classes of boards");
            let want_classes = symmetry == "on" || (symmetry == "auto" && !few);
            assert_eq!(classes, want_classes, "{spec} {metric} {symmetry}: {}", stderr(&o));
        }
        // One goal alone is not closed: classes are refused with `on`, boards searched with
        // `auto`.
        std::fs::write(&path, format!("{}\n", seqs[0])).unwrap();
        let want = brute_force(&puzzle, &[sequence(&puzzle, seqs[0])]);
        let o = twirl(&["bfs", spec, "--metric", metric, "--goals", s(&path), "--symmetry", "on"]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains("which is not a goal"), "{}", stderr(&o));
        let o = twirl(&["bfs", spec, "--metric", metric, "--goals", s(&path)]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(stderr(&o).contains("boards x 2 bits"), "{}", stderr(&o));
        assert_eq!(histogram(&stdout(&o)), want);
    }
}

/// The 2x2x2 with all 8 corners moving, as twsearch counts it, and with the 24 orientations
/// of the whole cube as goals: 24 times the distribution of the 3,674,160 boards of a cube
/// with a fixed corner (htm). By classes under the cube's 48 symmetries, which map the 24
/// orientations onto themselves (without inversion), 0.5 s on 2 cores; 10 s by boards.
#[test]
fn the_2x2x2_with_its_24_orientations_as_goals() {
    let spec = format!("def:{CUBE}");
    let o = twirl(&["bfs", &spec, "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        histogram(&stdout(&o)),
        [1, 18, 243, 2874, 28000, 205416, 1168516, 5402628, 20776176, 45391616, 15139616, 64736]
    );
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let o = twirl(&["bfs", &spec, "--goals", ORIENTATIONS, "-q", "--json", s(&json)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let fixed = [1u64, 9, 54, 321, 1847, 9992, 50136, 227536, 870072, 1887748, 623800, 2644];
    let want: Vec<u64> = fixed.iter().map(|n| 24 * n).collect();
    assert_eq!(histogram(&stdout(&o)), want);
    assert!(stdout(&o).contains("nearest of 24 goals"), "{}", stdout(&o));
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(r["goals"]["count"], 24);
    assert_eq!(r["goals"]["boards"].as_array().unwrap().len(), 24);
    assert_eq!(r["histogram"].as_array().unwrap().len(), 12);
    assert_eq!(r["symmetry"]["order"], 48, "{r}");
    assert_eq!(r["symmetry"]["inversion"], false, "{r}");
}

#[test]
fn bad_goal_files_say_every_line_in_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.txt");
    std::fs::write(&path, "R1C1\n\nR9C9\n1 2 3 / 4 6 5  # two tiles swapped\n4 5 6 / 1 2 3\n")
        .unwrap();
    let o = twirl(&["bfs", "nrp:2x3:2", "--goals", s(&path)]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert!(lines[0].contains("bad.txt:3: expected a board or a move sequence, found `R9C9`"));
    assert!(lines[1].contains("bad.txt:4: expected a board the moves reach"), "{err}");
    std::fs::write(&path, "# nothing\n\n").unwrap();
    let o = twirl(&["bfs", "nrp:2x3:2", "--goals", s(&path)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("expected at least one goal, found none"), "{}", stderr(&o));
    let o = twirl(&["bfs", "nrp:2x3:2", "--goals", s(&dir.path().join("missing"))]);
    assert_eq!(o.status.code(), Some(2));
    // Standard input.
    let mut child = bin()
        .args(["bfs", "nrp:2x3:2", "--goals", "-", "-q"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(b"R1C1\n1 2 3 / 4 5 6\n").unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success());
    assert_eq!(histogram(&stdout(&o))[0], 2);
    let o = twirl(&["bfs", "nrp:2x3:2", "--goals", s(&path), "--unique"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--unique with --goals"), "{}", stderr(&o));
    // A goal a symmetry takes out of the set: refused with --symmetry on.
    std::fs::write(&path, "[1,2]\n").unwrap();
    let o = twirl(&["bfs", "spin:2x3", "--goals", s(&path), "--symmetry", "on"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("which is not a goal"), "{}", stderr(&o));
}

/// A table of goals stopped after distance 3 resumes to the histogram of one search, only
/// with the same goals; readers of distances to solved refuse it.
#[test]
fn a_table_of_goals_resumes_only_with_its_goals() {
    let dir = tempfile::tempdir().unwrap();
    let (goals, other) = (dir.path().join("goals.txt"), dir.path().join("other.txt"));
    std::fs::write(&goals, "R1C1\nR2C2 R1C2\n").unwrap();
    std::fs::write(&other, "R1C1\n").unwrap();
    let want = search("nrp:3x3:2", &goals, &[]);
    let table = dir.path().join("t.tbl");
    let o = interrupted_after(&["bfs", "nrp:3x3:2", "--table", s(&table), "--goals", s(&goals)], 3);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(130), "{err}");
    let hint = format!("twirl resume {} --goals {}", table.display(), goals.display());
    assert!(err.contains(&hint), "{err}");
    for (args, needle) in [
        (vec!["resume", s(&table)], "not from solved: give the same goals"),
        (vec!["resume", s(&table), "--goals", s(&other)], "--goals"),
        (vec!["bfs", "nrp:3x3:2", "--table", s(&table), "--resume"], "not from solved"),
    ] {
        let o = twirl(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(needle), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("nothing was changed"), "{}", stderr(&o));
    }
    let o = twirl(&["resume", s(&table), "--goals", s(&goals), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(histogram(&stdout(&o)), want);
    // Finished: a reader of distances to solved refuses it; a resume reports it.
    let o = twirl(&["distance", s(&table), "1 2 3 / 4 5 6 / 7 8 9"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("expected a table searched from solved"), "{}", stderr(&o));
    let o = twirl(&["solve", s(&table), "1 2 3 / 4 5 6 / 7 8 9"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let o = twirl(&["resume", s(&table), "--goals", s(&other)]);
    assert_eq!(o.status.code(), Some(2));
    let o = twirl(&["resume", s(&table), "--goals", s(&goals), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(histogram(&stdout(&o)), want);
    // A table from solved refuses goals.
    let plain = dir.path().join("plain.tbl");
    let o = twirl(&["bfs", "nrp:2x3:2", "--table", s(&plain), "-q"]);
    assert!(o.status.success());
    let o = twirl(&["resume", s(&plain), "--goals", s(&other)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("the table holds a search from solved"), "{}", stderr(&o));
}
