//! Table files end to end: resuming after SIGKILL and Ctrl-C, refusing damaged tables,
//! lookups and solutions, export and import, plots.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

mod common;

use common::{assert_rejected, bin, stderr, stdout, twirl};

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Runs `bfs` into a table file and kills it with `signal` after `after`; returns whether the
/// process was still running when the signal came.
fn interrupt(args: &[&str], after: Duration, signal: &str) -> bool {
    let mut child = bin()
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(after);
    let running = child.try_wait().unwrap().is_none();
    if running {
        let pid = child.id().to_string();
        Command::new("kill").args([signal, &pid]).status().unwrap();
    }
    child.wait().unwrap();
    running
}

/// Resumes until the search completes (killing some resumes too); returns the result JSON.
fn resume_to_end(
    table: &Path,
    out: &Path,
    kill_resumes_after: Option<Duration>,
) -> serde_json::Value {
    let args = ["resume", s(table), "--json", s(out), "--checkpoint-every", "0", "-q"];
    if let Some(after) = kill_resumes_after {
        interrupt(&args, after, "-KILL");
    }
    for _ in 0..20 {
        let o = twirl(&args);
        if o.status.success() {
            return json(out);
        }
        assert!(
            stderr(&o).is_empty() || o.status.code() == Some(130),
            "resume failed: {}",
            stderr(&o)
        );
    }
    panic!("the search did not complete");
}

fn killed_runs_resume_to_identical_histograms(spec: &str, extra: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let reference = dir.path().join("ref.json");
    let t0 = Instant::now();
    let mut args = vec!["bfs", spec, "--json", s(&reference), "-q", "--threads", "2"];
    args.extend_from_slice(extra);
    let o = twirl(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let full = t0.elapsed();
    let want = json(&reference);
    let mut interrupted = 0;
    for (i, fraction) in [0.05, 0.2, 0.35, 0.5, 0.65, 0.8, 0.95].iter().enumerate() {
        let table = dir.path().join(format!("t{i}.tbl"));
        let out = dir.path().join(format!("r{i}.json"));
        let mut args = vec!["bfs", spec, "--table", s(&table), "--checkpoint-every", "0"];
        args.extend_from_slice(extra);
        if interrupt(&args, full.mul_f64(*fraction), "-KILL") && table.exists() {
            interrupted += 1;
        }
        let got = if table.exists() {
            let kill_again = (i % 2 == 1).then(|| full.mul_f64(0.3));
            resume_to_end(&table, &out, kill_again)
        } else {
            // Killed before the table file was created: nothing to resume, run again.
            args.extend_from_slice(&["--json", s(&out), "-q"]);
            assert!(twirl(&args).status.success());
            json(&out)
        };
        for key in ["histogram", "states", "gods_number", "antipodes", "unique_histogram"] {
            assert_eq!(got[key], want[key], "{spec}: {key} after a kill at {fraction} of the run");
        }
        assert!(!Path::new(&format!("{}.checkpoint", table.display())).exists());
        let o = twirl(&["distance", s(&table), "1 2 3 4 5 / 6 7 8 9 10"]);
        assert_eq!(stdout(&o).lines().next(), Some("0"), "{}", stderr(&o));
    }
    assert!(interrupted >= 3, "only {interrupted} runs were still going when killed");
}

#[test]
fn sigkill_at_any_point_then_resume_gives_the_same_histogram() {
    // NRP (2,5,2): 3,628,800 boards.
    killed_runs_resume_to_identical_histograms("nrp:2x5:2", &["--board-by-board"]);
}

#[test]
fn sigkill_during_a_unique_count_then_resume_gives_the_same_counts() {
    killed_runs_resume_to_identical_histograms("nrp:2x5:2", &["--unique"]);
}

#[test]
fn ctrl_c_stops_at_a_durable_point_and_says_how_to_resume() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("t.tbl");
    let child = bin()
        .args(["bfs", "nrp:2x5:2", "--board-by-board", "--threads", "1", "--table", s(&table)])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    let o = child.wait_with_output().unwrap();
    let err = stderr(&o);
    if o.status.code() == Some(130) {
        assert!(err.contains(&format!("twirl resume {}", table.display())), "{err}");
        let o = twirl(&["distance", s(&table), "1 2 3 4 5 / 6 7 8 9 10"]);
        assert_eq!(o.status.code(), Some(2));
        assert!(stderr(&o).contains("has not finished"), "{}", stderr(&o));
    } else {
        assert!(o.status.success(), "{err}");
    }
    let out = dir.path().join("r.json");
    let got = resume_to_end(&table, &out, None);
    assert_eq!(got["states"], 3_628_800);
    assert_eq!(got["histogram"][0], 1);
}

fn small_table(dir: &Path) -> PathBuf {
    let table = dir.join("t.tbl");
    let o = twirl(&["bfs", "nrp:3x3:2", "--table", s(&table), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    table
}

#[test]
fn damaged_or_foreign_tables_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let table = small_table(dir.path());
    let board = "4 1 3 / 6 2 9 / 7 5 8";
    let bytes = std::fs::read(&table).unwrap();
    let damaged = |name: &str, f: &dyn Fn(&mut Vec<u8>)| {
        let mut b = bytes.clone();
        f(&mut b);
        let p = dir.path().join(name);
        std::fs::write(&p, b).unwrap();
        p
    };
    let body = damaged("body.tbl", &|b| b[70000] ^= 0x10);
    assert_rejected(&["distance", s(&body), board], "corrupted");
    let short = damaged("short.tbl", &|b| b.truncate(b.len() - 100));
    assert_rejected(&["distance", s(&short), board], "truncated");
    let old = damaged("old.tbl", &|b| b[8] = 0);
    assert_rejected(&["solve", s(&old), board], "version 0");
    let header = damaged("header.tbl", &|b| b[30] ^= 1);
    assert_rejected(&["distance", s(&header), board], "corrupted header");
    let junk = dir.path().join("junk.tbl");
    std::fs::write(&junk, "hello").unwrap();
    assert_rejected(&["distance", s(&junk), board], "too short");
    std::fs::write(&junk, vec![7u8; 100_000]).unwrap();
    assert_rejected(&["distance", s(&junk), board], "not a twirl table");
    assert_rejected(&["distance", "no-such.tbl", board], "no-such.tbl");
    // Another puzzle, and an existing table, are not silently overwritten or mixed up.
    assert_rejected(
        &["bfs", "nrp:3x3:2", "--metric", "htm", "--table", s(&table), "--resume"],
        "not nrp:3x3:2 in htm",
    );
    assert_rejected(&["bfs", "nrp:3x3:2", "--table", s(&table)], "--force");
    // The good table still answers.
    let o = twirl(&["distance", s(&table), board]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn distance_and_solve_give_verified_shortest_solutions() {
    let dir = tempfile::tempdir().unwrap();
    let table = small_table(dir.path());
    // The unique antipode-like board from REFERENCE's 3x3 example.
    let board = "4 1 3 / 6 2 9 / 7 5 8";
    let o = twirl(&["distance", s(&table), board]);
    let d: usize = stdout(&o).trim().parse().unwrap();
    let o = twirl(&["solve", s(&table), board]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let moves: Vec<&str> = out.lines().next().unwrap().split_whitespace().collect();
    assert_eq!(moves.len(), d);
    assert!(out.contains("shortest; checked"));
    // The moves really solve it: apply them with the claims-free route, a puzzle built in
    // memory, which must find a solution of the same length.
    let o = twirl(&["solve", "nrp:3x3:2", board]);
    let again = stdout(&o);
    assert_eq!(again.lines().next().unwrap().split_whitespace().count(), d);
    // One move from solved: R1C1 turns the top-left block counter-clockwise.
    let o = twirl(&["solve", s(&table), "2 5 3 / 1 4 6 / 7 8 9"]);
    assert_eq!(stdout(&o).lines().next(), Some("R1C1'"));
    // Clockwise-only: a counter-clockwise turn takes three clockwise ones to undo... or one.
    let o = twirl(&["solve", "nrp:3x3:2", "--metric", "cw", "2 5 3 / 1 4 6 / 7 8 9"]);
    assert_eq!(stdout(&o).lines().next(), Some("R1C1'"));
    let o = twirl(&["solve", "nrp:3x3:2", "--metric", "cw", "4 1 3 / 5 2 6 / 7 8 9"]);
    assert_eq!(stdout(&o).lines().next(), Some("R1C1' R1C1' R1C1'"));
    // Unsolvable: exit 1 with the reason; malformed: exit 2.
    let o = twirl(&["solve", "nrp:3x4:3", "12 2 3 4 / 5 6 7 8 / 9 10 11 1"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("because"), "{}", stderr(&o));
    assert_rejected(&["solve", s(&table), "1 2 3 / 4 5 6"], "invalid board");
    assert_rejected(&["distance", s(&table), "1 1 3 / 4 5 6 / 7 8 9"], "invalid board");
}

#[test]
fn export_and_import_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let table = small_table(dir.path());
    let zst = dir.path().join("t.zst");
    let o = twirl(&["export", s(&table), s(&zst)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::metadata(&zst).unwrap().len() < std::fs::metadata(&table).unwrap().len() / 2);
    let back = dir.path().join("back.tbl");
    let o = twirl(&["import", s(&zst), s(&back)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read(&back).unwrap(), std::fs::read(&table).unwrap());
    // A damaged archive is refused and leaves nothing behind.
    let mut z = std::fs::read(&zst).unwrap();
    z.truncate(z.len() / 2);
    let bad = dir.path().join("bad.zst");
    std::fs::write(&bad, z).unwrap();
    let dest = dir.path().join("never.tbl");
    let o = twirl(&["import", s(&bad), s(&dest)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!dest.exists() && !Path::new(&format!("{}.partial", dest.display())).exists());
}

#[test]
fn unique_counts_and_plots() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path().join("r.json");
    let svg = dir.path().join("r.svg");
    let o = twirl(&["bfs", "spin:2x3", "--unique", "--json", s(&r), "--plot", s(&svg), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v = json(&r);
    let u: Vec<u64> = serde_json::from_value(v["unique_histogram"].clone()).unwrap();
    assert_eq!(u.len(), 8);
    assert_eq!(u[0..2], [1, 18]);
    assert_eq!(v["unique_total"], u.iter().sum::<u64>());
    let picture = std::fs::read_to_string(&svg).unwrap();
    assert!(picture.starts_with("<svg") && picture.contains("spin:2x3 (htm metric)"));
    let log = dir.path().join("log.svg");
    let o = twirl(&["plot", s(&r), "-o", s(&log), "--log-scale"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::read_to_string(&log).unwrap().contains("log scale"));
    assert_rejected(&["plot", s(&r), "-o", "x.png"], "SVG");
}
