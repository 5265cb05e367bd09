//! Every command on NRP boards past 255 cells: `check`, `order`, `info`, `apply` and
//! `solve`, with boards and sequences given in full, from a file (`@FILE`) or standard input
//! (`-`); every solution is applied back to its board.

use std::io::Write;
use std::process::Stdio;

use num_bigint::BigUint;

mod common;

use common::{assert_rejected, bin, stderr, stdout, twirl};

fn factorial(n: u32) -> BigUint {
    (1..=n).fold(BigUint::from(1u32), |acc, k| acc * k)
}

/// The solved board of `cells` tiles, in book order without `/`.
fn solved(cells: usize) -> Vec<String> {
    (1..=cells).map(|t| t.to_string()).collect()
}

#[test]
fn check_answers_lams_conditions_on_a_100x100_board() {
    let mut tiles = solved(10_000);
    let o = twirl(&["check", "nrp:100x100:3", &tiles.join(" ")]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("solvable: 1 2 3"));
    // Tiles 1 and 2 stand on cells of the other colour.
    tiles.swap(0, 1);
    let o = twirl(&["check", "nrp:100x100:3", &tiles.join(" ")]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stdout(&o).contains("because tile 2 stands on a cell of the other colour"));
    // Tiles 1 and 3 swapped: one colour odd, the other even (b = 3 couples them).
    tiles.swap(0, 1);
    tiles.swap(0, 2);
    let o = twirl(&["check", "nrp:100x100:3", &tiles.join(" ")]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("odd permutation"), "{}", stdout(&o));
    // b = 2 allows every arrangement.
    let o = twirl(&["check", "nrp:100x100:2", &tiles.join(" ")]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_rejected(&["check", "nrp:100x100:3", "1 2 3"], "expected 10000 tiles");
    assert_rejected(&["check", "nrp:300x300:3", "1"], "at most 65535 cells");
    assert_rejected(&["check", "nrp:16x25:9", "@/nonexistent/board"], "cannot read it");
}

#[test]
fn order_and_info_count_with_lams_theorem() {
    // 16x16 with b = 3: 128 tiles of each colour, both colours' parities alike.
    let o = twirl(&["order", "nrp:16x16:3"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let want = factorial(128) * factorial(128) / 2u32;
    assert_eq!(stdout(&o).lines().next().unwrap(), want.to_string());
    // b = 4: even arrangements, times 2^(nm-1) orientations.
    let o = twirl(&["order", "nrp:16x25:4", "--orient"]);
    let want = factorial(400) / 2u32 * BigUint::from(2u32).pow(399);
    assert_eq!(stdout(&o).lines().next().unwrap(), want.to_string());
    let o = twirl(&["info", "nrp:16x25:9"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("moves: 272 "), "{out}");
    assert!(out.contains("each colour even"), "{out}");
    assert!(out.contains("table: none"), "{out}");
}

/// Solves a random board of a large puzzle, then applies the solution to it with
/// `twirl apply`, the moves passed in a file and the board on standard input.
fn solve_and_apply_back(spec: &str, board: &str, metric: &str) {
    let o = twirl(&[
        "solve",
        spec,
        board,
        "--method",
        "constructive",
        "--json",
        "-",
        "--metric",
        metric,
    ]);
    assert!(o.status.success(), "{spec}: {}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let moves: Vec<&str> =
        v["moves"].as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect();
    let start = v["board"].as_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("moves.txt");
    std::fs::write(&file, moves.join(" ")).unwrap();
    let mut child = bin()
        .args(["apply", spec, &format!("@{}", file.display()), "--board", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(start.as_bytes()).unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{spec}: {}", stderr(&o));
    let result = stdout(&o).lines().find_map(|l| l.strip_prefix("result:   ").map(str::to_string));
    let cells: usize = start.split_whitespace().filter(|t| *t != "/").count();
    let want: Vec<String> = solved(cells);
    let got: Vec<String> =
        result.unwrap().split_whitespace().filter(|t| *t != "/").map(str::to_string).collect();
    assert_eq!(got, want, "{spec} {board}: the solution does not solve the board");
    assert!(moves.len() > 100, "{spec}: {} moves", moves.len());
}

#[test]
fn solutions_of_large_boards_apply_back_to_solved() {
    solve_and_apply_back("nrp:20x25:3:orient", "random:1", "qtm");
    solve_and_apply_back("nrp:16x25:4", "random:2", "htm");
    solve_and_apply_back("nrp:16x17:5:orient", "random:3", "cw");
    solve_and_apply_back("nrp:8x8:2:orient", "random:4", "qtm");
}

#[test]
fn apply_on_large_boards_reads_groups_and_powers() {
    // A block turned four times is the identity; twice its half turn.
    let o = twirl(&["apply", "nrp:16x25:9", "(R3C4 R8C17')^2 (R8C17 R3C4')^2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("summary:  identity"), "{}", stdout(&o));
    let o = twirl(&["apply", "nrp:16x25:9:orient", "R1C1^4"]);
    assert!(stdout(&o).contains("summary:  identity"), "{}", stdout(&o));
    let o = twirl(&["apply", "nrp:16x25:9:orient", "R1C1^2"]);
    assert!(stdout(&o).contains("with 81 tiles turned"), "{}", stdout(&o));
    assert_rejected(&["apply", "nrp:16x25:9", "R9C1"], "outside the board");
    assert_rejected(&["apply", "nrp:16x25:9", "X", "--bind", "X=R1C1"], "--bind");
}
