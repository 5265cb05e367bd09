//! `--antipodes N`: the boards listed at God's number against a search over explicit boards,
//! by boards and by classes, in memory, in a table and on resume; 0 lists none.

use std::collections::{HashMap, HashSet};
use std::path::Path;

mod common;

use common::{stderr, stdout, twirl};
use twirl::puzzle::{Board, Metric, Puzzle};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Every board at the largest distance from solved, in board notation, by a search over
/// explicit boards.
fn brute_force_antipodes(spec: &str, metric: &str) -> HashSet<String> {
    let puzzle = Puzzle::parse(spec, Some(Metric::parse(metric).unwrap())).unwrap();
    let inverse = puzzle.inverse_moves();
    let mut seen: HashMap<Board, u32> = HashMap::from([(puzzle.solved(), 0)]);
    let mut level = vec![puzzle.solved()];
    loop {
        let mut next = Vec::new();
        for b in &level {
            for m in &inverse {
                let p = puzzle.apply(b, m);
                if !seen.contains_key(&p) {
                    seen.insert(p.clone(), 0);
                    next.push(p);
                }
            }
        }
        if next.is_empty() {
            return level.iter().map(|b| puzzle.format_board(b)).collect();
        }
        level = next;
    }
}

fn listed(out: &str) -> Vec<String> {
    out.lines().filter_map(|l| l.strip_prefix("# antipode: ")).map(String::from).collect()
}

fn bfs(args: &[&str]) -> String {
    let o = twirl(args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    stdout(&o)
}

#[test]
fn every_antipode_is_listed_when_asked_and_the_smallest_first() {
    // NRP (3,4,3) in htm: 206 antipodes (a group smaller than its invariants: boards);
    // Spinpossible 2x3: 150, by classes under inversion and by boards.
    for (spec, metric, symmetry, total) in [
        ("nrp:3x4:3", "htm", "auto", 206),
        ("spin:2x3", "htm", "auto", 150),
        ("spin:2x3", "htm", "off", 150),
        ("nrp:2x4:2", "cw", "on", 16),
    ] {
        let want = brute_force_antipodes(spec, metric);
        assert_eq!(want.len(), total, "{spec}");
        let flags = ["bfs", spec, "--metric", metric, "--symmetry", symmetry, "-q"];
        let all = listed(&bfs(&[&flags[..], &["--antipodes", "1000"]].concat()));
        assert_eq!(all.len(), total, "{spec} {symmetry}");
        assert_eq!(all.iter().cloned().collect::<HashSet<_>>(), want, "{spec} {symmetry}");
        // The default lists the 10 smallest, N fewer the first N of them.
        let ten = listed(&bfs(&flags));
        assert_eq!(ten, all[..10.min(total)], "{spec} {symmetry}");
        let three = listed(&bfs(&[&flags[..], &["--antipodes", "3"]].concat()));
        assert_eq!(three, all[..3], "{spec} {symmetry}");
        let out = bfs(&[&flags[..], &["--antipodes", "0"]].concat());
        assert!(listed(&out).is_empty(), "{out}");
        assert!(out.contains(&format!("({total} antipodes)")), "{out}");
    }
}

/// A finished table, of classes or of boards, lists as many antipodes as a resume asks for
/// (the search kept 10 of its 150), the same as the search listed first.
#[test]
fn tables_and_resumes_list_as_asked() {
    let dir = tempfile::tempdir().unwrap();
    let want = brute_force_antipodes("spin:2x3", "htm");
    for symmetry in ["on", "off"] {
        let table = dir.path().join(format!("t-{symmetry}.tbl"));
        let json = dir.path().join(format!("r-{symmetry}.json"));
        let args = ["bfs", "spin:2x3", "--table", s(&table), "--antipodes", "25", "-q"];
        let args = [&args[..], &["--symmetry", symmetry, "--json", s(&json)]].concat();
        let first = listed(&bfs(&args));
        assert_eq!(first.len(), 25);
        let r: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        assert_eq!(r["antipode_boards"].as_array().unwrap().len(), 25);
        assert_eq!(r["antipodes"], 150);
        let again = listed(&bfs(&["resume", s(&table), "--antipodes", "200", "-q"]));
        assert_eq!(again.iter().cloned().collect::<HashSet<_>>(), want, "{symmetry}");
        assert_eq!(again[..25], first, "{symmetry}");
        let none = bfs(&["resume", s(&table), "--antipodes", "0", "-q"]);
        assert!(listed(&none).is_empty());
    }
    // A stopped search resumes with the flag, and its resume command keeps it.
    let stopped = dir.path().join("s.tbl");
    let args = ["bfs", "nrp:3x3:2", "--table", s(&stopped), "--antipodes", "40"];
    let o = common::interrupted_after(&args, 3);
    assert_eq!(o.status.code(), Some(130));
    assert!(stderr(&o).contains("--antipodes 40"), "{}", stderr(&o));
    let resumed = listed(&bfs(&["resume", s(&stopped), "--antipodes", "40", "-q"]));
    let whole = listed(&bfs(&["bfs", "nrp:3x3:2", "--antipodes", "40", "-q"]));
    assert_eq!(resumed, whole);
    assert_eq!(whole.len(), 20, "nrp:3x3:2 in qtm has 20 antipodes");
}

/// Classes of identical pieces' digits (the 2x2x2 whose corners are told apart only by
/// layer: 16 symmetries, 1,344 antipodes in 100 classes) list every antipode board, in the
/// order boards list them: each class's images are ranked as boards.
#[test]
fn classes_of_identical_pieces_list_their_boards() {
    let dir = tempfile::tempdir().unwrap();
    let root = env!("CARGO_MANIFEST_DIR");
    let text = std::fs::read_to_string(format!("{root}/data/definitions/2x2x2.tws")).unwrap();
    let text = text.replace("1 2 3 4 5 6 7 8\nEnd\n\nMove U", "1 1 1 1 2 2 2 2\nEnd\n\nMove U");
    let path = dir.path().join("layers.tws");
    std::fs::write(&path, text).unwrap();
    let spec = format!("def:{}", s(&path));
    let run =
        |mode: &str| listed(&bfs(&["bfs", &spec, "--symmetry", mode, "--antipodes", "2000", "-q"]));
    let (by_classes, by_boards) = (run("on"), run("off"));
    assert_eq!(by_boards.len(), 1344);
    assert_eq!(by_classes, by_boards);
}
