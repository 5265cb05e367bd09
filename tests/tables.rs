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
/// A table killed before its first distance was recorded is started again with `--force`
/// (`start`: the arguments that started it).
fn resume_to_end(
    table: &Path,
    out: &Path,
    kill_resumes_after: Option<Duration>,
    start: &[&str],
) -> serde_json::Value {
    let args = ["resume", s(table), "--json", s(out), "--checkpoint-every", "0", "-q"];
    if let Some(after) = kill_resumes_after {
        interrupt(&args, after, "-KILL");
        // Killed after its report was written (durably: whole or absent), the resume had
        // finished; a second one would refuse to replace the report.
        if out.exists() {
            return json(out);
        }
    }
    for _ in 0..20 {
        let o = twirl(&args);
        if o.status.success() {
            return json(out);
        }
        if stderr(&o).contains("start it again") {
            // Killed before distance 0 was recorded: start over and let it finish (a second
            // early kill, on a loaded machine, could repeat forever); the resume then reports
            // the finished search.
            let mut again = start.to_vec();
            again.extend_from_slice(&["--force", "-q"]);
            let o = twirl(&again);
            assert!(o.status.success(), "{}", stderr(&o));
            continue;
        }
        assert!(
            stderr(&o).is_empty() || o.status.code() == Some(130),
            "resume failed: {}",
            stderr(&o)
        );
    }
    panic!("the search did not complete");
}

fn killed_runs_resume_to_identical_histograms(spec: &str, solved: &str, extra: &[&str]) {
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
            resume_to_end(&table, &out, kill_again, &args)
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
        let o = twirl(&["distance", s(&table), solved]);
        assert_eq!(stdout(&o).lines().next(), Some("0"), "{}", stderr(&o));
    }
    assert!(interrupted >= 3, "only {interrupted} runs were still going when killed");
}

#[test]
fn sigkill_at_any_point_then_resume_gives_the_same_histogram() {
    // NRP (2,5,2): 3,628,800 boards.
    killed_runs_resume_to_identical_histograms(
        "nrp:2x5:2",
        "1 2 3 4 5 / 6 7 8 9 10",
        &["--board-by-board", "--symmetry", "off"],
    );
}

#[test]
fn sigkill_during_a_search_of_classes_then_resume_gives_the_same_histogram() {
    // Spinpossible 3x3: 185,794,560 boards in 23,654,400 entries of classes.
    killed_runs_resume_to_identical_histograms(
        "spin:3x3",
        "1 2 3 / 4 5 6 / 7 8 9",
        &["--symmetry", "on"],
    );
}

#[test]
fn sigkill_during_a_unique_count_then_resume_gives_the_same_counts() {
    killed_runs_resume_to_identical_histograms(
        "nrp:2x5:2",
        "1 2 3 4 5 / 6 7 8 9 10",
        &["--unique"],
    );
}

/// Starts a search that pauses after distance 3, sends `signal` once that distance is
/// printed, and checks that it stopped at a durable point (exit 130, the resume command).
fn stop_with(signal: &str, dir: &Path, name: &str) -> PathBuf {
    stop_with_flags(signal, dir, name, &[])
}

/// [`stop_with`], the search started with `flags` too.
fn stop_with_flags(signal: &str, dir: &Path, name: &str, flags: &[&str]) -> PathBuf {
    use std::io::BufRead;
    let table = dir.join(name);
    let mut child = bin()
        .args(["bfs", "nrp:3x3:2", "--table", s(&table), "--test-pause-after", "3"])
        .args(flags)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    // Rows are "distance boards cumulative seconds"; wait for distance 3.
    let paused = lines.any(|l| l.unwrap().split_whitespace().next() == Some("3"));
    assert!(paused, "the search never reached distance 3");
    Command::new("kill").args([signal, &child.id().to_string()]).status().unwrap();
    let o = child.wait_with_output().unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(130), "{signal} did not stop the search: {err}");
    assert!(err.contains(&format!("twirl resume {}", table.display())), "{err}");
    assert!(err.contains("distances 0..3 are finished"), "{err}");
    let o = twirl(&["distance", s(&table), "4 1 3 / 6 2 9 / 7 5 8"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("has not finished"), "{}", stderr(&o));
    table
}

#[test]
fn ctrl_c_and_sigterm_stop_at_a_durable_point_and_say_how_to_resume() {
    let dir = tempfile::tempdir().unwrap();
    for (signal, name) in [("-INT", "int.tbl"), ("-TERM", "term.tbl")] {
        let table = stop_with(signal, dir.path(), name);
        let out = dir.path().join(format!("{name}.json"));
        let got = resume_to_end(&table, &out, None, &[]);
        assert_eq!(got["histogram"], serde_json::json!(NRP_3X3_2));
        assert_eq!(got["antipodes"], 20);
    }
}

/// NRP (3,3,2) in QTM, boards at each distance.
const NRP_3X3_2: [u64; 12] = [1, 8, 52, 328, 1996, 11336, 51582, 130042, 125929, 39706, 1880, 20];

fn small_table(dir: &Path) -> PathBuf {
    let table = dir.join("t.tbl");
    let o = twirl(&["bfs", "nrp:3x3:2", "--table", s(&table), "-q", "--symmetry", "off"]);
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

// Issue 15: a job's files are checked against each other. Each test starts from a real
// table made by twirl, alters one file as a user or a hostile file would, and checks the
// refusal (exit 2, the file named, how it disagrees) and that the table still answers.

use twirl::checkpoint::Checkpoint;
use twirl::table::format::Header;

/// A board of NRP (3,3,2) and its distance.
const BOARD: &str = "4 1 3 / 6 2 9 / 7 5 8";

fn distance_of(table: &Path) -> Option<String> {
    let o = twirl(&["distance", s(table), BOARD]);
    o.status.success().then(|| stdout(&o).trim().to_string())
}

fn header_of(table: &Path) -> Header {
    Header::decode(&std::fs::read(table).unwrap(), table).unwrap()
}

/// Rewrites the header of `table` and signs it again (a valid header hash).
fn rewrite_header(table: &Path, edit: impl FnOnce(&mut Header)) {
    let mut bytes = std::fs::read(table).unwrap();
    let mut h = Header::decode(&bytes, table).unwrap();
    edit(&mut h);
    let head = h.encode().unwrap();
    bytes[..head.len()].copy_from_slice(&head);
    std::fs::write(table, bytes).unwrap();
}

/// A checkpoint as a search would leave it next to `table` at its end.
fn final_checkpoint(table: &Path) -> Checkpoint {
    let h = header_of(table);
    let mut c = Checkpoint::new(&h);
    c.histogram = h.histogram.clone();
    c.level_seconds = vec![0.0; h.histogram.len()];
    c.directions = vec!["forward".into(); h.histogram.len() - 1];
    c.antipodes = h.antipodes.clone();
    c
}

/// Writes `c` as a search would (signed with its checksum).
fn write_checkpoint(table: &Path, c: &Checkpoint) {
    c.write(Path::new(&format!("{}.checkpoint", table.display()))).unwrap();
}

/// `args` is refused with exit 2 and a one-line message holding every needle.
fn refused(args: &[&str], needles: &[&str]) {
    let o = twirl(args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    for n in needles {
        assert!(err.contains(n), "{args:?}: expected `{n}` in {err:?}");
    }
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}

#[test]
fn a_checkpoint_that_disagrees_with_its_unfinished_table_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let table = stop_with("-TERM", dir.path(), "t.tbl");
    let ck = PathBuf::from(format!("{}.checkpoint", table.display()));
    let good: serde_json::Value = json(&ck);
    let table_bytes = std::fs::read(&table).unwrap();
    let edits: Vec<(&str, serde_json::Value, &str)> = vec![
        ("puzzle", "nrp:2x3:2".into(), "is for nrp:2x3:2"),
        ("histogram", serde_json::json!([]), "histogram"),
        // Boards moved from distance 1 to 4: the marks tell.
        ("histogram", serde_json::json!([1, 7, 52, 329]), "marks disagree with the histogram"),
        // A number no other check reads: the record's checksum tells.
        ("elapsed_seconds", 12345.5.into(), "edited or damaged"),
        ("n_states", 1_000_000_000_000u64.into(), "counts 1000000000000 boards"),
        ("antipodes", serde_json::json!([362_880]), "antipode rank 362880"),
        ("antipodes", serde_json::json!([5, 2]), "antipodes [5, 2]"),
        ("ranking", "0000000000000000".into(), "ranking fingerprint"),
        ("unique", true.into(), "unique"),
        ("version", 7.into(), "version 7"),
        ("directions", serde_json::json!(["sideways", "forward", "forward"]), "lists"),
    ];
    for (field, value, needle) in edits {
        let mut c = good.clone();
        c[field] = value;
        std::fs::write(&ck, serde_json::to_vec(&c).unwrap()).unwrap();
        refused(&["resume", s(&table), "-q"], &[needle, s(&ck)]);
        assert_eq!(std::fs::read(&table).unwrap(), table_bytes, "{field}: the table changed");
    }
    let mut c = good.clone();
    c.as_object_mut().unwrap().remove("version");
    std::fs::write(&ck, serde_json::to_vec(&c).unwrap()).unwrap();
    refused(&["resume", s(&table), "-q"], &["no version"]);
    std::fs::remove_file(&ck).unwrap();
    refused(&["resume", s(&table), "-q"], &["checkpoint", "is missing"]);
    // The true checkpoint back: the search finishes with the right answer.
    std::fs::write(&ck, serde_json::to_vec(&good).unwrap()).unwrap();
    let got = resume_to_end(&table, &dir.path().join("r.json"), None, &[]);
    assert_eq!(got["histogram"], serde_json::json!(NRP_3X3_2));
    assert_eq!(distance_of(&table).as_deref(), Some("2"));
}

/// `bfs --resume` with a flag the table contradicts (`--symmetry on` on a table of boards,
/// `off` on one of classes, `--unique` or its absence against the table's bits) is refused
/// with what the table holds and what was asked, and neither the table nor its checkpoint
/// changes, unfinished or finished; `--symmetry auto`, no flag, or the flags that made the
/// table continue it to the right histogram. `twirl resume` takes no such flags.
#[test]
fn resume_flags_that_contradict_the_table_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let classes = "one entry per class of boards";
    let boards = "one entry per board";
    let no_bits = "the table has no unique-solution bits";
    let bits = "the table counts unique solutions";
    type Kind<'a> = (&'a str, &'a [&'a str], Vec<(&'a [&'a str], [&'a str; 2])>, &'a [&'a str]);
    let kinds: Vec<Kind> = vec![
        (
            "classes.tbl",
            &[],
            vec![
                (&["--symmetry", "off"], [classes, "--symmetry off asks for one entry per board"]),
                (&["--unique"], [no_bits, "--unique asks to count unique solutions"]),
                (&["--unique", "--symmetry", "auto"], [no_bits, "--unique asks"]),
            ],
            &["--symmetry", "on"],
        ),
        (
            "boards.tbl",
            &["--symmetry", "off"],
            vec![
                (&["--symmetry", "on"], [boards, "--symmetry on asks for one entry per class"]),
                (&["--unique"], [no_bits, "--unique asks to count unique solutions"]),
            ],
            &["--symmetry", "off"],
        ),
        (
            "unique.tbl",
            &["--symmetry", "off", "--unique"],
            vec![
                (&[], [bits, "the command does not ask for them"]),
                (&["--symmetry", "auto"], [bits, "does not ask"]),
                (&["--symmetry", "on", "--unique"], [boards, "--symmetry on asks"]),
            ],
            &["--symmetry", "off", "--unique"],
        ),
    ];
    fn strs(v: &[String]) -> Vec<&str> {
        v.iter().map(String::as_str).collect()
    }
    for (name, start, contradictions, same) in kinds {
        let table = stop_with_flags("-TERM", dir.path(), name, start);
        let ck = PathBuf::from(format!("{}.checkpoint", table.display()));
        let holds_classes = header_of(&table).ranking.kind.starts_with("classes");
        assert_eq!(holds_classes, name == "classes.tbl", "{name}");
        let untouched = |table: &Path, ck: Option<&Path>, refuse: &dyn Fn()| {
            let before = std::fs::read(table).unwrap();
            let ck_before = ck.map(|c| std::fs::read(c).unwrap());
            refuse();
            assert_eq!(std::fs::read(table).unwrap(), before, "{name}: the table changed");
            assert_eq!(ck.map(|c| std::fs::read(c).unwrap()), ck_before, "{name}: checkpoint");
        };
        let resume = |flags: &[&str]| {
            let mut args = vec!["bfs", "nrp:3x3:2", "--table", s(&table), "--resume", "-q"];
            args.extend_from_slice(flags);
            args.into_iter().map(String::from).collect::<Vec<_>>()
        };
        for (flags, needles) in &contradictions {
            let args = resume(flags);
            let argv = strs(&args);
            untouched(&table, Some(&ck), &|| refused(&argv, &[needles[0], needles[1], s(&table)]));
        }
        // `twirl resume` has no such flags: it takes them from the table.
        untouched(&table, Some(&ck), &|| {
            let o = twirl(&["resume", s(&table), "--symmetry", "off", "-q"]);
            assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        });
        // The flags that made the table continue it; then, finished, the same refusals,
        // and every accepted form reports it.
        let out = dir.path().join(format!("{name}.json"));
        let mut finish = resume(same);
        finish.extend(["--json".to_string(), s(&out).to_string()]);
        let o = twirl(&strs(&finish));
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        assert_eq!(json(&out)["histogram"], serde_json::json!(NRP_3X3_2), "{name}");
        assert!(!ck.exists());
        for (flags, needles) in &contradictions {
            let args = resume(flags);
            let argv = strs(&args);
            untouched(&table, None, &|| refused(&argv, &[needles[0], needles[1]]));
        }
        let unique: &[&str] = if name == "unique.tbl" { &["--unique"] } else { &[] };
        for symmetry in [&[][..], &["--symmetry", "auto"]] {
            let args = resume(&[symmetry, unique].concat());
            let o = twirl(&strs(&args));
            assert!(o.status.success(), "{name} {symmetry:?}: {}", stderr(&o));
            assert!(stdout(&o).contains("# God's number: 11 (20 antipodes)"), "{}", stdout(&o));
        }
    }
}

/// The ten antipodes of smallest board rank, from a plain breadth-first search over boards
/// in a hash map (sharing nothing with the engine but the moves), ranked by the board
/// ranking, in notation.
fn naive_smallest_antipodes(spec: &str) -> Vec<String> {
    use std::collections::HashSet;
    use twirl::puzzle::Puzzle;
    use twirl::rank::{StateSpace, SymmetryMode};
    let puzzle = Puzzle::parse(spec, None).unwrap();
    let inverses = puzzle.inverse_moves();
    let mut seen = HashSet::from([puzzle.solved()]);
    let mut frontier = vec![puzzle.solved()];
    let mut last = frontier.clone();
    while !frontier.is_empty() {
        let mut next = Vec::new();
        for b in &frontier {
            for m in &inverses {
                let c = puzzle.apply(b, m);
                if seen.insert(c.clone()) {
                    next.push(c);
                }
            }
        }
        last = std::mem::replace(&mut frontier, next);
    }
    let boards = StateSpace::for_search(&puzzle, SymmetryMode::Off, false).unwrap();
    let mut ranks: Vec<u64> = last.iter().map(|b| boards.rank_board(b).unwrap()).collect();
    ranks.sort_unstable();
    ranks.truncate(10);
    ranks.iter().map(|&r| puzzle.format_board(&boards.board(r))).collect()
}

/// The `# antipode:` lines of a run's stdout.
fn antipode_lines(out: &str) -> Vec<String> {
    out.lines().filter_map(|l| l.strip_prefix("# antipode: ")).map(String::from).collect()
}

/// `antipode_boards` (and the `# antipode:` lines) list the ten antipodes of smallest board
/// rank whether the table holds boards or classes: in memory, in a table file, resumed after
/// a stop and reported again from the finished table. NRP (3,3,2) has 20 antipodes in a few
/// classes, Spinpossible 2x3 150 in more classes than the ten entries a search keeps.
#[test]
fn antipodes_are_the_smallest_boards_with_or_without_symmetry() {
    let dir = tempfile::tempdir().unwrap();
    for spec in ["nrp:3x3:2", "spin:2x3"] {
        let want = naive_smallest_antipodes(spec);
        assert_eq!(want.len(), 10, "{spec}");
        for symmetry in ["on", "off"] {
            let out = dir.path().join(format!("{spec}-{symmetry}.json").replace(':', "_"));
            let o = twirl(&["bfs", spec, "--symmetry", symmetry, "--json", s(&out), "-q"]);
            assert!(o.status.success(), "{}", stderr(&o));
            assert_eq!(json(&out)["antipode_boards"], serde_json::json!(want), "{spec} {symmetry}");
            assert_eq!(antipode_lines(&stdout(&o)), want, "{spec} {symmetry}");
            assert_eq!(json(&out)["symmetry"].is_null(), symmetry == "off", "{spec} {symmetry}");
            // In a table file, reported again by a resume of the finished table.
            let table = dir.path().join(format!("{spec}-{symmetry}.tbl").replace(':', "_"));
            let o = twirl(&["bfs", spec, "--symmetry", symmetry, "--table", s(&table), "-q"]);
            assert_eq!(antipode_lines(&stdout(&o)), want, "{spec} {symmetry}: {}", stderr(&o));
            let again = dir.path().join(format!("{spec}-{symmetry}-again.json").replace(':', "_"));
            let o = twirl(&["resume", s(&table), "--json", s(&again), "-q"]);
            assert!(o.status.success(), "{}", stderr(&o));
            assert_eq!(antipode_lines(&stdout(&o)), want, "{spec} {symmetry} resumed");
            assert_eq!(json(&again)["antipode_boards"], serde_json::json!(want));
            std::fs::remove_file(&again).unwrap();
        }
    }
    // A search of classes stopped after distance 3 and resumed to its end.
    let want = naive_smallest_antipodes("nrp:3x3:2");
    let table = stop_with_flags("-TERM", dir.path(), "stopped.tbl", &["--symmetry", "on"]);
    let out = dir.path().join("resumed.json");
    let got = resume_to_end(&table, &out, None, &[]);
    assert_eq!(got["antipode_boards"], serde_json::json!(want));
    assert_eq!(got["histogram"], serde_json::json!(NRP_3X3_2));
}

#[test]
fn a_finished_table_is_never_restarted_or_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let table = small_table(dir.path());
    let size = std::fs::metadata(&table).unwrap().len();
    // A stale checkpoint naming another puzzle, or with an empty histogram.
    let mut c = final_checkpoint(&table);
    c.puzzle = "nrp:4x4:3".into();
    write_checkpoint(&table, &c);
    refused(&["resume", s(&table), "-q"], &["disagrees", "nrp:4x4:3"]);
    let mut c = final_checkpoint(&table);
    c.histogram.clear();
    write_checkpoint(&table, &c);
    refused(&["resume", s(&table), "-q"], &["disagrees", "histogram is []"]);
    assert_eq!(std::fs::metadata(&table).unwrap().len(), size);
    assert_eq!(distance_of(&table).as_deref(), Some("2"));
    // A checkpoint that agrees is stale: removed, and the result reported with the time the
    // search took, not a rate over zero seconds.
    write_checkpoint(&table, &final_checkpoint(&table));
    let o = twirl(&["resume", s(&table), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("# God's number: 11 (20 antipodes)"), "{out}");
    assert!(out.contains("finished earlier"), "{out}");
    assert!(!out.contains("boards/s"), "{out}");
    assert!(!Path::new(&format!("{}.checkpoint", table.display())).exists());
    // A corrupted body is refused by resume as by every reader.
    let mut bytes = std::fs::read(&table).unwrap();
    bytes[70_000] ^= 0x40;
    let bad = dir.path().join("bad.tbl");
    std::fs::write(&bad, bytes).unwrap();
    refused(&["resume", s(&bad), "-q"], &["corrupted"]);
    refused(&["export", s(&bad), s(&dir.path().join("bad.zst"))], &["corrupted"]);
    assert!(!dir.path().join("bad.zst").exists());
    // Starting over needs --force.
    refused(&["bfs", "nrp:2x3:2", "--table", s(&table)], &["--force"]);
    assert_eq!(distance_of(&table).as_deref(), Some("2"));
}

#[test]
fn rewritten_and_re_signed_headers_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let table = small_table(dir.path());
    let copy = dir.path().join("edited.tbl");
    type Edit = fn(&mut Header);
    let edits: [(Edit, &str); 10] = [
        (|h| h.histogram[1] -= 1, "counts 362879 boards"),
        (|h| h.histogram.push(1), "counts 362881 boards"),
        // Distances 1 and 4 share a mark: the marks agree, the checksum does not.
        (
            |h| {
                h.histogram[1] -= 1;
                h.histogram[4] += 1;
            },
            "changed after the search finished",
        ),
        (|h| h.elapsed_seconds = 1e-9, "changed after the search finished"),
        (|h| h.ranking.fingerprint = "00000000deadbeef".into(), "ranking differs"),
        (|h| h.ranking.scheme = 0, "scheme 0"),
        (|h| h.antipodes = vec![5, 4], "antipodes [5, 4]"),
        (|h| h.antipodes = vec![u64::MAX], "antipode rank 18446744073709551615"),
        (|h| h.n_states += 1, "sizes do not match"),
        (|h| h.puzzle = "nrp:3x3:2:orient".into(), "ranking"),
    ];
    for (edit, needle) in edits {
        std::fs::copy(&table, &copy).unwrap();
        rewrite_header(&copy, edit);
        refused(&["distance", s(&copy), BOARD], &[needle]);
        refused(&["resume", s(&copy), "-q"], &[needle]);
    }
    // Another format version.
    let mut bytes = std::fs::read(&table).unwrap();
    bytes[8] = 1;
    std::fs::write(&copy, bytes).unwrap();
    refused(&["distance", s(&copy), BOARD], &["version 1", "reads version 2"]);
    assert_eq!(distance_of(&table).as_deref(), Some("2"));
}

#[test]
fn outputs_never_replace_inputs_and_are_checked_before_the_work() {
    let dir = tempfile::tempdir().unwrap();
    let table = small_table(dir.path());
    let before = std::fs::read(&table).unwrap();
    refused(&["export", s(&table), s(&table)], &["*.zst"]);
    let zst = dir.path().join("t.zst");
    std::fs::write(&zst, "keep me").unwrap();
    refused(&["export", s(&table), s(&zst)], &["--force"]);
    assert_eq!(std::fs::read_to_string(&zst).unwrap(), "keep me");
    assert!(twirl(&["export", s(&table), s(&zst), "--force"]).status.success());
    // --json or --plot naming the table, or a wrong extension: refused before any search.
    let fresh = dir.path().join("fresh.tbl");
    let fresh_s = s(&fresh);
    refused(&["bfs", "nrp:3x3:2", "--table", fresh_s, "--json", fresh_s], &["an input"]);
    refused(&["bfs", "nrp:3x3:2", "--table", fresh_s, "--plot", "p.png"], &["*.svg"]);
    refused(&["bfs", "nrp:2x3:2", "--json", s(&table)], &["holds a twirl table"]);
    refused(&["resume", s(&table), "--json", s(&table)], &["an input"]);
    let ck = format!("{}.checkpoint", table.display());
    refused(&["resume", s(&table), "--json", &ck], &["an input"]);
    refused(&["bfs", "nrp:2x3:2", "--json", "/no/such/dir/r.json"], &["cannot write"]);
    assert!(!fresh.exists());
    // import over an existing table, or over its own archive.
    refused(&["import", s(&zst), s(&table)], &["--force"]);
    refused(&["import", s(&zst), s(&zst)], &["an input"]);
    // join with no parts of an MPI job beside the name (tests/mpi.rs joins real parts).
    refused(&["join", s(&table)], &["expected the parts of an MPI job", "found none"]);
    assert_eq!(std::fs::read(&table).unwrap(), before);
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!names.iter().any(|n| n.ends_with(".tmp") || n.ends_with(".partial")), "{names:?}");
    assert_eq!(distance_of(&table).as_deref(), Some("2"));
}

#[test]
fn import_stops_at_the_declared_size() {
    let dir = tempfile::tempdir().unwrap();
    let table = small_table(dir.path());
    let zst = dir.path().join("t.zst");
    assert!(twirl(&["export", s(&table), s(&zst)]).status.success());
    let archive = std::fs::read(&zst).unwrap();
    // Another archive appended: more than the header declares.
    let doubled = dir.path().join("doubled.zst");
    std::fs::write(&doubled, [archive.clone(), archive.clone()].concat()).unwrap();
    let dest = dir.path().join("dest.tbl");
    refused(&["import", s(&doubled), s(&dest)], &["more than", "declares"]);
    // Garbage appended.
    let junk = dir.path().join("junk.zst");
    std::fs::write(&junk, [archive.clone(), vec![0x55; 1000]].concat()).unwrap();
    refused(&["import", s(&junk), s(&dest)], &["not a complete twirl table archive"]);
    // A header re-signed to declare an enormous table: refused before writing.
    let raw = zstd::decode_all(&archive[..]).unwrap();
    let mut h = Header::decode(&raw, &zst).unwrap();
    h.n_states = 1 << 60;
    h.ranking.n_states = 1 << 60;
    h.body_bytes = twirl::table::table_bytes(1 << 60);
    let mut forged = h.encode().unwrap();
    forged.extend_from_slice(&raw[forged.len()..]);
    let huge = dir.path().join("huge.zst");
    std::fs::write(&huge, zstd::encode_all(&forged[..], 3).unwrap()).unwrap();
    refused(&["import", s(&huge), s(&dest)], &["declares", "free"]);
    assert!(!dest.exists() && !Path::new(&format!("{}.partial", dest.display())).exists());
    assert!(twirl(&["import", s(&zst), s(&dest)]).status.success());
    assert_eq!(distance_of(&dest).as_deref(), Some("2"));
}

#[test]
fn an_inconsistent_table_ends_the_descent_with_an_error() {
    use twirl::puzzle::Puzzle;
    use twirl::rank::StateSpace;
    let dir = tempfile::tempdir().unwrap();
    let table = small_table(dir.path());
    let puzzle = Puzzle::parse("nrp:3x3:2", None).unwrap();
    let space = StateSpace::build(&puzzle).unwrap();
    let solved = space.rank_board(&puzzle.solved()).unwrap();
    // Swap the marks of the solved board (distance 0) and of a board at distance 1: the
    // counts per mark stay, and the body is signed again.
    let near = space.rank_board(&puzzle.parse_board("2 5 3 / 1 4 6 / 7 8 9").unwrap()).unwrap();
    let mut bytes = std::fs::read(&table).unwrap();
    let cell = |b: &mut Vec<u8>, r: u64, m: u8| {
        let at = 65536 + (r / 4) as usize;
        let shift = 2 * (r % 4);
        b[at] = (b[at] & !(3 << shift)) | (m << shift);
    };
    cell(&mut bytes, solved, 2);
    cell(&mut bytes, near, 1);
    std::fs::write(&table, &bytes).unwrap();
    let body = bytes[65536..].to_vec();
    rewrite_header(&table, |h| {
        h.checksum = None;
        h.checksum = Some(twirl::table::format::table_checksum(h, &body));
    });
    refused(&["distance", s(&table), BOARD], &["table is inconsistent"]);
    refused(&["solve", s(&table), BOARD], &["table is inconsistent"]);
}

#[test]
fn a_job_runs_stops_and_resumes_without_the_binary() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use twirl::bfs::Progress;
    use twirl::job::{Job, Resumed, SessionEnd, SessionSettings};
    use twirl::puzzle::Puzzle;

    /// Asks the job to stop once distance 4 is done.
    struct StopAt(Arc<AtomicBool>);
    impl Progress for StopAt {
        fn level_done(&self, distance: u32, _boards: u64, _seconds: f64) {
            if distance == 4 {
                self.0.store(true, Ordering::Relaxed);
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.tbl");
    let puzzle = Puzzle::parse("nrp:3x3:2", None).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let job = Job::start(&path, &puzzle, false, false).unwrap();
    let settings = SessionSettings::new(2);
    match job.run(&settings, &StopAt(stop.clone()), stop).unwrap() {
        SessionEnd::Stopped { levels_done } => assert_eq!(levels_done, 5),
        SessionEnd::Finished(_) => panic!("the job did not stop"),
    }
    assert!(Job::start(&path, &puzzle, false, false).is_err(), "an unfinished job is kept");
    let Resumed::Continue(job) = Job::resume(&path, Some(&puzzle)).unwrap() else {
        panic!("the job was not resumable");
    };
    assert_eq!(job.resumed_from().unwrap().histogram, NRP_3X3_2[..5]);
    let stop = Arc::new(AtomicBool::new(false));
    let SessionEnd::Finished(done) = job.run(&settings, &twirl::bfs::NoProgress, stop).unwrap()
    else {
        panic!("the job stopped");
    };
    assert_eq!(done.outcome.histogram, NRP_3X3_2);
    assert_eq!(done.report(2).antipodes, 20);
    let t = twirl::job::open_table(&path).unwrap();
    assert_eq!(t.file.header.histogram, NRP_3X3_2);
    assert_eq!(t.file.header.antipodes, done.outcome.antipodes);
}

/// One way to alter a finished table's header (signed again) or its checkpoint.
#[derive(Clone, Debug)]
enum Mutation {
    HistogramEntry(usize, i64),
    HistogramPush(u64),
    HistogramPop,
    Antipode(u64),
    NStates(u64),
    Puzzle(&'static str),
    Metric(&'static str),
    Incomplete,
    UniqueBytes(u64),
    Elapsed(f64),
    Fingerprint,
}

fn mutation() -> impl proptest::strategy::Strategy<Value = Mutation> {
    use proptest::prelude::*;
    prop_oneof![
        (0usize..8, -3i64..4).prop_map(|(i, d)| Mutation::HistogramEntry(i, d)),
        (0u64..3).prop_map(Mutation::HistogramPush),
        Just(Mutation::HistogramPop),
        (0u64..200).prop_map(Mutation::Antipode),
        prop::sample::select(vec![0u64, 119, 121, 1 << 40]).prop_map(Mutation::NStates),
        prop::sample::select(vec!["nrp:3x2:2", "nrp:2x3:3", "spin:2x3", "nrp:2x3:2:orient"])
            .prop_map(Mutation::Puzzle),
        prop::sample::select(vec!["htm", "cw", "ftm"]).prop_map(Mutation::Metric),
        Just(Mutation::Incomplete),
        prop::sample::select(vec![8u64, 64, 1 << 30]).prop_map(Mutation::UniqueBytes),
        prop::sample::select(vec![0.0, 1e-9, 1e9]).prop_map(Mutation::Elapsed),
        Just(Mutation::Fingerprint),
    ]
}

fn mutate_header(h: &mut Header, m: &Mutation) {
    match *m {
        Mutation::HistogramEntry(i, d) => {
            let n = h.histogram.len();
            let e = &mut h.histogram[i % n];
            *e = e.saturating_add_signed(d);
        }
        Mutation::HistogramPush(n) => h.histogram.push(n),
        Mutation::HistogramPop => {
            h.histogram.pop();
        }
        Mutation::Antipode(r) => h.antipodes = vec![r],
        Mutation::NStates(n) => h.n_states = n,
        Mutation::Puzzle(p) => h.puzzle = p.into(),
        Mutation::Metric(m) => h.metric = m.into(),
        Mutation::Incomplete => h.complete = false,
        Mutation::UniqueBytes(b) => h.unique_bytes = b,
        Mutation::Elapsed(e) => h.elapsed_seconds = e,
        Mutation::Fingerprint => h.ranking.fingerprint = "0000000000000001".into(),
    }
}

fn mutate_checkpoint(c: &mut Checkpoint, m: &Mutation) {
    match *m {
        Mutation::HistogramEntry(i, d) => {
            let n = c.histogram.len();
            let e = &mut c.histogram[i % n];
            *e = e.saturating_add_signed(d);
        }
        Mutation::HistogramPush(n) => c.histogram.push(n),
        Mutation::HistogramPop => {
            c.histogram.pop();
        }
        Mutation::Antipode(r) => c.antipodes = vec![r],
        Mutation::NStates(n) => c.n_states = n,
        Mutation::Puzzle(p) => c.puzzle = p.into(),
        Mutation::Metric(m) => c.metric = m.into(),
        Mutation::Incomplete => c.level_under_way = Some(3),
        Mutation::UniqueBytes(_) => c.unique = !c.unique,
        Mutation::Elapsed(e) => c.elapsed_seconds = e,
        Mutation::Fingerprint => c.ranking = "0000000000000001".into(),
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(40))]
    /// A finished table whose header (signed again) and checkpoint are altered: `resume` and
    /// `distance` refuse it or give exactly the original answers; the file never grows.
    #[test]
    fn altered_finished_tables_are_refused_or_answer_as_before(
        header_edits in proptest::collection::vec(mutation(), 0..3),
        checkpoint_edits in proptest::option::of(proptest::collection::vec(mutation(), 0..3)),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let table = dir.path().join("t.tbl");
        // By boards: the checkpoint's histogram is then the result's.
        let o = twirl(&["bfs", "nrp:2x3:2", "--table", s(&table), "-q", "--symmetry", "off"]);
        proptest::prop_assert!(o.status.success());
        let size = std::fs::metadata(&table).unwrap().len();
        let board = "4 5 6 / 1 2 3";
        let want = twirl(&["distance", s(&table), board]);
        let original = final_checkpoint(&table);
        rewrite_header(&table, |h| header_edits.iter().for_each(|m| mutate_header(h, m)));
        if let Some(edits) = &checkpoint_edits {
            let mut c = original.clone();
            edits.iter().for_each(|m| mutate_checkpoint(&mut c, m));
            write_checkpoint(&table, &c);
        }
        let out = dir.path().join("r.json");
        let o = twirl(&["resume", s(&table), "--json", s(&out), "-q", "--force"]);
        match o.status.code() {
            Some(0) => {
                let got = json(&out);
                proptest::prop_assert_eq!(&got["histogram"], &serde_json::json!(original.histogram));
                proptest::prop_assert_eq!(&got["antipodes"], 1);
            }
            code => proptest::prop_assert_eq!(code, Some(2), "{}", stderr(&o)),
        }
        let o = twirl(&["distance", s(&table), board]);
        match o.status.code() {
            Some(0) => proptest::prop_assert_eq!(stdout(&o), stdout(&want)),
            code => proptest::prop_assert_eq!(code, Some(2), "{}", stderr(&o)),
        }
        proptest::prop_assert!(std::fs::metadata(&table).unwrap().len() <= size);
    }
}

/// A table of symmetry classes answers like a table of boards: the same histogram in boards,
/// the same distance for every board tried, shortest solutions of that length, an export
/// and import that keep it, and a re-signed header whose boards per distance were edited is
/// refused.
#[test]
fn tables_of_classes_answer_like_tables_of_boards() {
    let dir = tempfile::tempdir().unwrap();
    let boards = small_table(dir.path());
    let classes = dir.path().join("c.tbl");
    let json_path = dir.path().join("c.json");
    let o = twirl(&[
        "bfs",
        "nrp:3x3:2",
        "--table",
        s(&classes),
        "--symmetry",
        "on",
        "--json",
        s(&json_path),
        "-q",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report = json(&json_path);
    assert_eq!(report["histogram"], serde_json::json!(NRP_3X3_2));
    // The 8 symmetries of the square and inversion.
    assert_eq!(report["symmetry"]["order"], 16);
    assert_eq!(report["symmetry"]["inversion"], true);
    // Brute force over the 362,880 boards (see the library's class tests).
    assert_eq!(report["symmetry"]["classes"], 23_764);
    assert_eq!(header_of(&classes).boards, NRP_3X3_2);
    let puzzle = twirl::puzzle::Puzzle::parse("nrp:3x3:2", None).unwrap();
    let space = twirl::rank::StateSpace::build(&puzzle).unwrap();
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..12 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let board = puzzle.format_board(&space.board(x % space.n_states()));
        let d = |t: &Path| stdout(&twirl(&["distance", s(t), &board])).trim().to_string();
        assert_eq!(d(&classes), d(&boards), "{board}");
        let o = twirl(&["solve", s(&classes), &board]);
        assert!(o.status.success(), "{}", stderr(&o));
        let moves = stdout(&o).lines().next().unwrap().split_whitespace().count();
        assert_eq!(moves.to_string(), d(&boards), "{board}");
    }
    let zst = dir.path().join("c.zst");
    let back = dir.path().join("back.tbl");
    assert!(twirl(&["export", s(&classes), s(&zst)]).status.success());
    assert!(twirl(&["import", s(&zst), s(&back)]).status.success());
    assert_eq!(distance_of(&back), distance_of(&boards));
    // Boards moved from one distance to another, the header signed again.
    rewrite_header(&classes, |h| {
        h.boards[7] += 1;
        h.boards[8] -= 1;
    });
    refused(&["distance", s(&classes), BOARD], &["boards per distance", "disagree"]);
}

/// `distance --boards`: the boards `boards` lists at distance 10 are each at 10, in their
/// order, looked up in one table opened once, with the count on stderr and in the JSON;
/// every malformed line is told before any lookup (exit 2); an unsolvable board is answered
/// on its line (exit 1).
#[test]
fn distances_of_a_list_of_boards_from_one_table() {
    let dir = tempfile::tempdir().unwrap();
    let table = small_table(dir.path());
    let o = twirl(&["boards", s(&table), "--distance", "10"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let at_10 = stdout(&o);
    assert_eq!(at_10.lines().count(), 1880);
    let one = "4 1 3 / 6 2 9 / 7 5 8";
    let single = stdout(&twirl(&["distance", s(&table), one]));
    let list = dir.path().join("boards.txt");
    let text = format!("\u{feff}# at distance 10\n{at_10}\n{one}  # and one more\n");
    std::fs::write(&list, text).unwrap();
    let out = dir.path().join("d.json");
    let o = twirl(&["distance", s(&table), "--boards", s(&list), "--json", s(&out)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let answers: Vec<String> = stdout(&o).lines().map(String::from).collect();
    let expected: Vec<String> = at_10.lines().map(|b| format!("10\t{b}")).collect();
    assert_eq!(answers[..1880], expected[..]);
    let d: u64 = single.lines().next().unwrap().parse().unwrap();
    assert_eq!(answers[1880], format!("{d}\t{one}"));
    assert_eq!(answers.len(), 1881);
    assert!(stderr(&o).contains("# 1881 boards"), "{}", stderr(&o));
    let got = json(&out);
    assert_eq!(got["histogram"][10], 1880 + u64::from(d == 10));
    assert_eq!(got["boards"][1880]["line"], 1883, "the line in the file, comment counted");
    assert_eq!(got["boards"][1880]["distance"], d);

    let bad = dir.path().join("bad.txt");
    std::fs::write(&bad, format!("{one}\n1 2 3\n9 9 9 / 9 9 9 / 9 9 9\n")).unwrap();
    let o = twirl(&["distance", s(&table), "--boards", s(&bad)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stdout(&o).is_empty(), "nothing looked up: {}", stdout(&o));
    let err = stderr(&o);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert!(lines[0].contains("bad.txt:2: expected a board"), "{err}");
    assert!(lines[1].contains("bad.txt:3: expected a board"), "{err}");
    // A long list in error: the first 20 lines named, then how many more.
    std::fs::write(&bad, "1 2 3\n".repeat(25)).unwrap();
    let err = stderr(&twirl(&["distance", s(&table), "--boards", s(&bad)]));
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 21, "{err}");
    assert!(lines[19].contains("bad.txt:20: expected a board"), "{err}");
    assert!(lines[20].ends_with("and 5 more lines in error (the first 20 shown)"), "{err}");

    let cube2 = "def:data/definitions/cube2.tws";
    let twisted = "CORNERS 1 2 3 4 5 6 7 / 1 0 0 0 0 0 0";
    let out = dir.path().join("cube2.json");
    let mut child = bin()
        .args(["distance", cube2, "--boards", "-", "--moves", "--json", s(&out)])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    std::io::Write::write_all(&mut stdin, format!("R U\n{twisted}\n").as_bytes()).unwrap();
    drop(stdin);
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let text = stdout(&o);
    let lines: Vec<&str> = text.lines().collect();
    let first: Vec<&str> = lines[0].split('\t').collect();
    // R U is undone by U' R' alone (no other two moves undo it).
    assert_eq!(first, ["2", "R U", "U' R'"], "{text}");
    assert!(lines[1].starts_with(&format!("unsolvable\t{twisted}\t# because ")), "{text}");
    // The JSON names the board a move sequence makes, beside the line as given.
    let got = json(&out);
    let applied = stdout(&twirl(&["apply", cube2, "R U"]));
    let r_u = applied.lines().find_map(|l| l.strip_prefix("result:")).unwrap().trim();
    assert_eq!(got["boards"][0]["input"], "R U");
    assert_eq!(got["boards"][0]["board"], r_u, "{got}");
    assert_eq!(got["boards"][1]["board"], serde_json::Value::Null);
    assert_rejected(&["distance", cube2, "R U", "--moves"], "expected --moves with --boards");
}

/// The rows of `twirl info TABLE`'s histogram: distance, then boards (and entries).
fn info_rows(out: &str) -> Vec<Vec<u64>> {
    let rows = out.lines().skip_while(|l| !l.starts_with("distance"));
    rows.skip(1).map(|l| l.split_whitespace().map(|v| v.parse().unwrap()).collect()).collect()
}

#[test]
fn info_describes_a_table_from_its_header() {
    let dir = tempfile::tempdir().unwrap();
    let table = small_table(dir.path());
    let o = twirl(&["info", s(&table)]);
    let out = stdout(&o);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.contains("puzzle: nrp:3x3:2 (metric qtm)"), "{out}");
    assert!(out.contains("search: complete in"), "{out}");
    assert!(out.contains("boards: 362880; God's number 11 (20 antipodes)"), "{out}");
    let rows = info_rows(&out);
    assert_eq!(rows.iter().map(|r| r[1]).collect::<Vec<_>>(), NRP_3X3_2);
    assert!(rows.iter().enumerate().all(|(d, r)| r.len() == 2 && r[0] == d as u64));
    // An archive says the same of the table it holds.
    let zst = dir.path().join("t.zst");
    assert!(twirl(&["export", s(&table), s(&zst)]).status.success());
    let o = twirl(&["info", s(&zst)]);
    assert!(stdout(&o).starts_with("archive: "), "{}", stdout(&o));
    assert_eq!(info_rows(&stdout(&o)), rows);
    // A table of classes: boards beside entries.
    let classes = dir.path().join("classes.tbl");
    let o = twirl(&["bfs", "nrp:3x3:2", "--table", s(&classes), "-q", "--symmetry", "on"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rows = info_rows(&stdout(&twirl(&["info", s(&classes)])));
    assert_eq!(rows.iter().map(|r| r[1]).collect::<Vec<_>>(), NRP_3X3_2);
    let entries: u64 = rows.iter().map(|r| r[2]).sum();
    assert!(entries < 362880 / 4, "{entries} entries");
    // The same as JSON (`-`: on standard output, in place of the text).
    let o = twirl(&["info", s(&classes), "--json", "-"]);
    let facts: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON alone");
    assert_eq!(facts["boards"], serde_json::json!(NRP_3X3_2), "{facts}");
    assert_eq!(facts["entries_at_distance"].as_array().unwrap().len(), NRP_3X3_2.len());
    let at_distance: u64 = (facts["entries_at_distance"].as_array().unwrap().iter())
        .map(|e| e.as_u64().unwrap())
        .sum();
    assert_eq!(at_distance, entries);
    assert_eq!((facts["gods_number"].as_u64(), facts["antipodes"].as_u64()), (Some(11), Some(20)));
    assert_eq!(
        (facts["complete"].as_bool(), facts["total_boards"].as_u64()),
        (Some(true), Some(362880))
    );
    // A search stopped at distance 3 says how far it got and how to go on.
    let stopped = stop_with("-TERM", dir.path(), "stopped.tbl");
    let out = stdout(&twirl(&["info", s(&stopped)]));
    assert!(out.contains("not finished: distances 0-3 done"), "{out}");
    assert!(out.contains(&format!("twirl resume {}", stopped.display())), "{out}");
    assert_eq!(info_rows(&out).iter().map(|r| r[1]).collect::<Vec<_>>(), NRP_3X3_2[..4]);
    let facts_file = dir.path().join("stopped.json");
    assert!(twirl(&["info", s(&stopped), "--json", s(&facts_file)]).status.success());
    let facts = json(&facts_file);
    assert_eq!(facts["complete"], false);
    assert_eq!(facts["boards"], serde_json::json!(NRP_3X3_2[..4]), "{facts}");
    assert_eq!(facts["resume"], format!("twirl resume {}", stopped.display()));
    assert_eq!(facts["gods_number"], serde_json::Value::Null);
    // The JSON never replaces the table it describes.
    assert_rejected(&["info", s(&table), "--json", s(&table)], "an input of the command");
    // Files that are no table, and puzzle options a table already records, are refused.
    let tws = dir.path().join("cube.tws");
    std::fs::write(&tws, "Name x\n").unwrap();
    assert_rejected(&["info", s(&tws)], "a definition is named def:");
    assert_rejected(&["info", s(&table), "--metric", "htm"], "expected no --metric");
    assert_rejected(&["bfs", s(&table)], "found the name of a file");
}
