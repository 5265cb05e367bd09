//! `def:FILE` end to end: a definition file searched, solved, checked and refused by the
//! binary, with the figures twsearch gives for the same file.

use std::path::Path;

mod common;

use common::{assert_rejected, stderr, stdout, twirl};

const CUBE2: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/definitions/cube2.tws");

fn def(path: &Path) -> String {
    format!("def:{}", path.display())
}

/// The boards at each distance, read from `twirl bfs` output.
fn histogram(out: &str) -> Vec<u64> {
    out.lines()
        .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
        .map(|l| l.split_whitespace().nth(1).unwrap().parse().unwrap())
        .collect()
}

/// The 2x2x2 with a fixed corner: the order from the stabilizer chain, and the half-turn
/// distribution twsearch prints for the same file (`twsearch -g cube2.tws`).
#[test]
fn cube2_order_and_search() {
    let o = twirl(&["order", &format!("def:{CUBE2}")]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o).lines().next(), Some("3674160"));
    let o = twirl(&["bfs", &format!("def:{CUBE2}"), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        histogram(&stdout(&o)),
        [1, 9, 54, 321, 1847, 9992, 50136, 227536, 870072, 1887748, 623800, 2644]
    );
    // In qtm (twsearch -q): quarter turns only.
    let o = twirl(&["bfs", &format!("def:{CUBE2}"), "--metric", "qtm", "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let qtm = histogram(&stdout(&o));
    assert_eq!(qtm.len(), 15, "God's number 14 in the quarter-turn metric");
    assert_eq!(qtm.iter().sum::<u64>(), 3_674_160);
}

/// Boards as move sequences or in the file's layout; solutions named by the file's moves.
#[test]
fn cube2_boards_solve_and_check() {
    let spec = format!("def:{CUBE2}");
    let o = twirl(&["solve", &spec, "R U R' F"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert_eq!(out.lines().next().unwrap().split_whitespace().count(), 4, "{out}");
    let o = twirl(&["apply", &spec, "R U"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let result = stdout(&o)
        .lines()
        .find_map(|l| l.strip_prefix("result:").map(|r| r.trim().to_string()))
        .unwrap();
    assert!(result.starts_with("CORNERS "), "{result}");
    let o = twirl(&["distance", &spec, &result]);
    assert_eq!(stdout(&o).trim(), "2", "{}", stderr(&o));
    // One corner twisted alone cannot be solved: exit 1 with the orientation sum.
    let o = twirl(&["check", &spec, "CORNERS 1 2 3 4 5 6 7 / 1 0 0 0 0 0 0"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stdout(&o).contains("orientation sum"), "{}", stdout(&o));
    assert_rejected(&["solve", &spec, "R U X"], "`X` is not a move");
    assert_rejected(&["check", &spec, "CORNERS 1 2 3"], "expected 7 piece numbers, found 3");
}

/// A malformed file names its line; a table is refused once its definition changed.
#[test]
fn bad_files_and_changed_definitions_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.tws");
    std::fs::write(&bad, "Set A 3 1\nSolved\nA\n1 2 3\nEnd\nMove M\nA\n2 3 3\nEnd\n").unwrap();
    assert_rejected(&["bfs", &def(&bad)], "line 8");
    assert_rejected(&["bfs", "def:/nonexistent/x.tws"], "cannot read the definition file");

    let file = dir.path().join("cube2.tws");
    let text = std::fs::read_to_string(CUBE2).unwrap();
    std::fs::write(&file, &text).unwrap();
    let table = dir.path().join("c.tbl");
    let table = table.to_str().unwrap();
    let o = twirl(&["bfs", &def(&file), "--metric", "qtm", "--table", table, "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = twirl(&["distance", table, "R U"]);
    assert_eq!(stdout(&o).trim(), "2", "{}", stderr(&o));
    // Another file at the same path (a move renamed): no longer the definition searched.
    std::fs::write(&file, text.replace("Move F", "Move G")).unwrap();
    assert_rejected(&["distance", table, "R U"], "the definition file changed");
}

/// A definition exported by twirl, read back, searches like the built-in puzzle.
#[test]
fn exported_definitions_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("spin.tws");
    let o = twirl(&["export-def", "spin:2x3", "-o", file.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let native = twirl(&["bfs", "spin:2x3", "-q"]);
    let read = twirl(&["bfs", &def(&file), "-q"]);
    assert_eq!(histogram(&stdout(&read)), histogram(&stdout(&native)));
    assert_eq!(histogram(&stdout(&read)), [1, 18, 178, 1272, 6970, 22467, 15024, 150]);
}
