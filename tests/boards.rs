//! `twirl boards TABLE --distance D`: every board at a distance of a finished table, by
//! boards and by classes (with and without inversion), from solved and from goals, against
//! a search over explicit boards and the table's histogram.

use std::collections::{HashMap, HashSet};
use std::path::Path;

mod common;

use common::{stderr, stdout, twirl};
use twirl::puzzle::{Board, Metric, Puzzle};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The boards at each distance to the nearest of `starts` (board notation), by a search
/// over explicit boards.
fn brute_force_levels(puzzle: &Puzzle, starts: &[Board]) -> Vec<HashSet<String>> {
    let inverse = puzzle.inverse_moves();
    let mut seen: HashMap<Board, ()> = starts.iter().map(|b| (b.clone(), ())).collect();
    let mut level: Vec<Board> = seen.keys().cloned().collect();
    let mut out = Vec::new();
    while !level.is_empty() {
        out.push(level.iter().map(|b| puzzle.format_board(b)).collect());
        let mut next = Vec::new();
        for b in &level {
            for m in &inverse {
                let p = puzzle.apply(b, m);
                if seen.insert(p.clone(), ()).is_none() {
                    next.push(p);
                }
            }
        }
        level = next;
    }
    out
}

fn lines(args: &[&str]) -> Vec<String> {
    let o = twirl(args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    stdout(&o).lines().map(String::from).collect()
}

fn table(dir: &Path, name: &str, args: &[&str]) -> std::path::PathBuf {
    let path = dir.join(name);
    let o = twirl(&[&["bfs"], args, &["--table", s(&path), "-q"]].concat());
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    path
}

#[test]
fn every_distance_lists_the_boards_of_a_search_over_explicit_boards() {
    let dir = tempfile::tempdir().unwrap();
    // Classes under inversion (qtm), classes under rotations (cw), boards; a group smaller
    // than its invariants (nrp:2x3:2).
    for (spec, metric, symmetry) in [
        ("nrp:2x4:2", "qtm", "auto"),
        ("nrp:2x4:2", "qtm", "off"),
        ("nrp:2x4:2", "cw", "on"),
        ("nrp:2x3:2", "cw", "auto"),
        ("spin:2x3", "htm", "auto"),
    ] {
        let puzzle = Puzzle::parse(spec, Some(Metric::parse(metric).unwrap())).unwrap();
        let want = brute_force_levels(&puzzle, &[puzzle.solved()]);
        let name = format!("{}-{metric}-{symmetry}.tbl", spec.replace(':', "_"));
        let t = table(dir.path(), &name, &[spec, "--metric", metric, "--symmetry", symmetry]);
        for (d, level) in want.iter().enumerate() {
            let got = lines(&["boards", s(&t), "--distance", &d.to_string()]);
            assert_eq!(got.len(), level.len(), "{spec} {metric} {symmetry} distance {d}");
            let set: HashSet<String> = got.into_iter().collect();
            assert_eq!(&set, level, "{spec} {metric} {symmetry} distance {d}");
        }
        let beyond = want.len().to_string();
        let o = twirl(&["boards", s(&t), "--distance", &beyond]);
        assert_eq!(o.status.code(), Some(2));
        assert!(stderr(&o).contains("expected a distance from 0 to"), "{}", stderr(&o));
    }
}

#[test]
fn counts_match_the_histogram_on_a_larger_board_and_limit_json_work() {
    let dir = tempfile::tempdir().unwrap();
    // NRP (3,3,2) qtm: 362,880 boards; by classes under inversion and by boards.
    let histogram = [1u64, 8, 52, 328, 1996, 11336, 51582, 130042, 125929, 39706, 1880, 20];
    let classes = table(dir.path(), "c.tbl", &["nrp:3x3:2"]);
    let boards = table(dir.path(), "b.tbl", &["nrp:3x3:2", "--symmetry", "off"]);
    for d in [0usize, 4, 8, 11] {
        let a = lines(&["boards", s(&classes), "--distance", &d.to_string()]);
        let mut b = lines(&["boards", s(&boards), "--distance", &d.to_string()]);
        assert_eq!(a.len() as u64, histogram[d], "distance {d}");
        assert_eq!(b.len() as u64, histogram[d], "distance {d}");
        let mut a = a;
        a.sort();
        b.sort();
        assert_eq!(a, b, "distance {d}");
    }
    let all = lines(&["boards", s(&boards), "--distance", "10"]);
    let some = lines(&["boards", s(&boards), "--distance", "10", "--limit", "7"]);
    assert_eq!(some, all[..7]);
    assert!(lines(&["boards", s(&boards), "--distance", "10", "--limit", "0"]).is_empty());
    let json = dir.path().join("b.json");
    let o = twirl(&["boards", s(&classes), "--distance", "11", "--json", s(&json)]);
    assert!(o.status.success());
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["boards_at_distance"], 20);
    assert_eq!(v["listed"], 20);
    assert_eq!(v["boards"].as_array().unwrap().len(), 20);
    let text = lines(&["boards", s(&classes), "--distance", "11"]);
    assert_eq!(
        v["boards"].as_array().unwrap().iter().map(|b| b.as_str().unwrap()).collect::<Vec<_>>(),
        text
    );
    // The antipodes `bfs` lists are among them.
    let o = twirl(&["bfs", "nrp:3x3:2", "-q"]);
    let out = stdout(&o);
    let antipodes: Vec<&str> =
        out.lines().filter_map(|l| l.strip_prefix("# antipode: ")).collect::<Vec<_>>();
    assert_eq!(antipodes.len(), 10);
    assert!(antipodes.iter().all(|a| text.iter().any(|t| t == a)));
}

#[test]
fn a_table_of_goals_lists_distances_to_its_goals() {
    let dir = tempfile::tempdir().unwrap();
    let puzzle = Puzzle::parse("nrp:2x4:2", Some(Metric::parse("cw").unwrap())).unwrap();
    let goals = dir.path().join("goals.txt");
    std::fs::write(&goals, "R1C1\nR1C2 R1C3\n").unwrap();
    let starts: Vec<Board> = ["R1C1", "R1C2 R1C3"]
        .iter()
        .map(|q| {
            let m = twirl::puzzle::sequence::Env::new().eval_text(&puzzle, q).unwrap();
            puzzle.apply(&puzzle.solved(), &m)
        })
        .collect();
    let want = brute_force_levels(&puzzle, &starts);
    let args = ["nrp:2x4:2", "--metric", "cw", "--goals", s(&goals)];
    let t = table(dir.path(), "g.tbl", &args);
    for (d, level) in want.iter().enumerate() {
        let got = lines(&["boards", s(&t), "--distance", &d.to_string(), "--goals", s(&goals)]);
        assert_eq!(got.into_iter().collect::<HashSet<_>>(), *level, "distance {d}");
    }
    let o = twirl(&["boards", s(&t), "--distance", "1"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("give the same goals with --goals FILE"), "{}", stderr(&o));
}
