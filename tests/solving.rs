//! `twirl solve` by every method and `twirl sample`, end to end: lengths against the full
//! table's distances, boards beyond 255 cells, exit codes, and a sample stopped and continued.

mod common;

use common::{assert_rejected, stderr, stdout, twirl};

/// The moves printed on the first line of a solve.
fn solution(out: &str) -> Vec<String> {
    out.lines().next().unwrap_or("").split_whitespace().map(String::from).collect()
}

/// `distance` reads `random:SEED:I` as `solve` does: the same board, whose distance is the
/// length of its shortest solution.
#[test]
fn distance_of_a_random_board_is_its_shortest_solution() {
    for i in 0..4 {
        let board = format!("random:5:{i}");
        let d = twirl(&["distance", "nrp:3x3:2", &board]);
        assert!(d.status.success(), "{}", stderr(&d));
        let out = stdout(&d);
        let distance: usize = out.lines().next().unwrap().trim().parse().unwrap();
        let s = twirl(&["solve", "nrp:3x3:2", &board, "--method", "table"]);
        assert!(s.status.success(), "{}", stderr(&s));
        assert_eq!(distance, solution(&stdout(&s)).len(), "board {i}");
        // The board drawn is told, and is the one `solve` checked.
        let drawn = out.lines().find_map(|l| l.strip_prefix("# board: ")).unwrap();
        assert!(stdout(&s).contains(drawn), "{drawn} not in {}", stdout(&s));
    }
    assert_rejected(&["distance", "nrp:3x3:2", "random:1:2:3"], "random:SEED:INDEX");
}

#[test]
fn optimal_equals_the_table_and_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let patterns = dir.path().join("patterns");
    for i in 0..6 {
        let board = format!("random:3:{i}");
        let table = twirl(&["solve", "nrp:3x3:2", &board, "--method", "table"]);
        assert!(table.status.success(), "{}", stderr(&table));
        let args = ["solve", "nrp:3x3:2", &board, "--method", "optimal", "--track", "1-5"];
        let optimal = twirl(&[&args[..], &["--patterns", patterns.to_str().unwrap()]].concat());
        assert!(optimal.status.success(), "{}", stderr(&optimal));
        let moves = solution(&stdout(&optimal));
        assert_eq!(moves.len(), solution(&stdout(&table)).len(), "board {i}");
        // The printed moves read back as moves (solve checked them by applying them).
        let applied = twirl(&["apply", "nrp:3x3:2", &moves.join(" ")]);
        assert!(applied.status.success(), "{}", stderr(&applied));
    }
    // The pattern table was built once and kept: a table file and its definition.
    let kept: Vec<_> = std::fs::read_dir(&patterns).unwrap().map(|e| e.unwrap().path()).collect();
    assert!(kept.iter().any(|p| p.extension().is_some_and(|e| e == "tbl")), "{kept:?}");
    assert!(!kept.iter().any(|p| p.to_string_lossy().ends_with(".checkpoint")));
}

#[test]
fn constructive_solves_boards_of_any_size() {
    for (spec, board) in [
        ("nrp:20x25:3", "random:7"),
        ("nrp:20x25:2", "random:1:3"),
        ("nrp:4x5:2:orient", "random:2"),
    ] {
        let o =
            twirl(&["solve", spec, board, "--method", "constructive", "--json", "-", "--quiet"]);
        assert!(o.status.success(), "{spec}: {}", stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["method"], "constructive");
        assert!(v["length"].as_u64().unwrap() > 10, "{spec}");
        assert_eq!(v["moves"].as_array().unwrap().len() as u64, v["length"].as_u64().unwrap());
    }
    // A board of 500 tiles given in full, with two tiles swapped: b = 3 keeps colours, and
    // swapping tiles 1 and 2 puts each on the other colour.
    let mut tiles: Vec<String> = (1..=500).map(|t| t.to_string()).collect();
    tiles.swap(0, 1);
    let o = twirl(&["solve", "nrp:20x25:3", &tiles.join(" ")]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("colour"), "{}", stderr(&o));
    // Swapping tiles 1 and 3 (same colour) is an odd permutation of one colour only.
    let mut tiles: Vec<String> = (1..=500).map(|t| t.to_string()).collect();
    tiles.swap(0, 2);
    let o = twirl(&["solve", "nrp:20x25:3", &tiles.join(" ")]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    // In qtm a half turn is two quarter turns: every printed move is a quarter turn.
    let o = twirl(&["solve", "nrp:5x5:2", "random:4", "--method", "constructive"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(solution(&stdout(&o)).iter().all(|m| !m.contains('^')));
}

#[test]
fn solve_refuses_bad_input() {
    assert_rejected(&["solve", "nrp:20x25:3", "1 2 3"], "expected 500 tiles");
    assert_rejected(&["solve", "nrp:20x25:3", "random:x"], "random:SEED");
    assert_rejected(&["solve", "nrp:8x8:2:orient", "random:1:x"], "random:SEED");
    assert_rejected(
        &["solve", "nrp:3x3:2", "random:1", "--method", "optimal", "--track", "0-3"],
        "--track",
    );
    assert_rejected(
        &["solve", "nrp:3x3:2", "random:1", "--method", "optimal", "--metric", "cw"],
        "closed under inverses",
    );
}

#[test]
fn a_sample_continues_where_it_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("s.jsonl");
    let json = dir.path().join("s.json");
    let base = ["sample", "spin:2x3", "--seed", "9", "--patterns-in-memory", "--quiet"];
    let run = |n: &str| {
        let r = record.to_str().unwrap();
        let j = json.to_str().unwrap();
        twirl(&[&base[..], &["-n", n, "--record", r, "--json", j, "--force"]].concat())
    };
    let o = run("12");
    assert!(o.status.success(), "{}", stderr(&o));
    let first: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    // A crash mid-line: the cut line is dropped and solved again; a larger -n extends.
    let mut text = std::fs::read_to_string(&record).unwrap();
    assert_eq!(text.lines().count(), 13);
    text.truncate(text.len() - 20);
    std::fs::write(&record, &text).unwrap();
    let o = run("20");
    assert!(o.status.success(), "{}", stderr(&o));
    let second: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(second["samples"], 20);
    assert_eq!(std::fs::read_to_string(&record).unwrap().lines().count(), 21);
    // The first twelve boards keep their distances: the histogram only grows.
    let h1: Vec<u64> = serde_json::from_value(first["histogram"].clone()).unwrap();
    let h2: Vec<u64> = serde_json::from_value(second["histogram"].clone()).unwrap();
    assert!(h1.iter().enumerate().all(|(d, &c)| h2.get(d).is_some_and(|&c2| c2 >= c)));
    // Spinpossible 2x3's distances are at most 7 (its full table).
    assert!(h2.len() <= 8 && h2.iter().sum::<u64>() == 20);
    // Another seed on the same record is refused.
    let r = record.to_str().unwrap();
    let o = twirl(&["sample", "spin:2x3", "--seed", "10", "--record", r, "--quiet"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("seed 9"), "{}", stderr(&o));
}

/// `--max-depth`: boards not solved within the depth are recorded apart with a lower bound,
/// never in the histogram; a run without the limit solves them and agrees.
#[test]
fn a_sample_limited_in_depth_lists_deeper_boards_apart() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("s.jsonl");
    let json = dir.path().join("s.json");
    let (r, j) = (record.to_str().unwrap(), json.to_str().unwrap());
    // IDA* asked for: distances read from the full table are exact at any depth.
    let base = ["sample", "spin:2x3", "-n", "12", "--method", "optimal", "--patterns-in-memory"];
    let run = |extra: &[&str]| {
        let o = twirl(
            &[&base[..], &["--seed", "9", "--quiet", "--record", r, "--json", j, "--force"], extra]
                .concat(),
        );
        assert!(o.status.success(), "{}", stderr(&o));
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        (String::from_utf8(o.stdout).unwrap(), v)
    };
    let (out, limited) = run(&["--max-depth", "4"]);
    let deeper = limited["deeper_boards"].as_u64().unwrap();
    let hist: Vec<u64> = serde_json::from_value(limited["histogram"].clone()).unwrap();
    // Most random boards of Spinpossible 2x3 need 5 or 6 spins (its full table).
    assert!(deeper > 0 && hist.len() <= 5, "{out}");
    assert_eq!(hist.iter().sum::<u64>() + deeper, 12);
    assert_eq!(limited["lower_bound_gods_number"], 5);
    assert!(out.contains(">=5") && out.contains("biased low"), "{out}");
    assert!(out.contains("# longest in the sample: at least 5 moves ("), "{out}");
    assert!(!out.contains("God's number"), "{out}");
    // Depth 0 searches nothing: every board is listed with its tables' first bound.
    let other = dir.path().join("zero.jsonl");
    let o = twirl(
        &[
            &base[..],
            &[
                "--seed",
                "9",
                "--quiet",
                "--record",
                other.to_str().unwrap(),
                "--json",
                j,
                "--force",
            ],
            &["--max-depth", "0"],
        ]
        .concat(),
    );
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(
        out.contains("12 uniformly random boards (seed 9), 0 solved optimally, 12 with"),
        "{out}"
    );
    assert!(out.contains("no board solved within --max-depth"), "{out}");
    let zero: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert!(zero["mean"].is_null() && zero["deeper_boards"] == 12, "{zero}");
    let (out, full) = run(&[]);
    assert_eq!(full["deeper_boards"], 0, "{out}");
    let all: Vec<u64> = serde_json::from_value(full["histogram"].clone()).unwrap();
    assert_eq!(all.iter().sum::<u64>(), 12);
    assert_eq!(all[5..].iter().sum::<u64>(), deeper, "the deeper boards need 5 or more");
    assert_eq!(&all[..hist.len()], &hist[..], "the solved boards keep their distances");
}

#[test]
fn journal_continues_a_search_and_refuses_another() {
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("search.journal");
    let j = journal.to_str().unwrap();
    // Solve a deep board of Twiddle 3x3 (11 quarter turns) with a small pattern table.
    let board = "3 2 1 / 6 5 4 / 9 8 7";
    let base = ["solve", "nrp:3x3:2", board, "--method", "optimal", "--patterns-in-memory"];
    let args = [&base[..], &["--track", "1-3", "--journal", j, "--json", "-"]].concat();
    let first = twirl(&args);
    assert!(first.status.success(), "{}", stderr(&first));
    let v: serde_json::Value = serde_json::from_slice(&first.stdout).unwrap();
    let length = v["length"].as_u64().unwrap();
    let text = std::fs::read_to_string(&journal).unwrap();
    assert!(text.contains("\nexhausted "), "{text}");
    // Run again: the iterations searched in full are skipped, the same length is found.
    let again = twirl(&args);
    assert!(again.status.success(), "{}", stderr(&again));
    let w: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(w["length"].as_u64().unwrap(), length);
    assert!(stderr(&again).contains("journal: no solution within"), "{}", stderr(&again));
    // Another board with the same journal: refused, journal untouched.
    let before = std::fs::read(&journal).unwrap();
    let other = [&base[..2], &["1 2 3 / 4 5 6 / 9 8 7"], &base[3..]].concat();
    let o = twirl(&[&other[..], &["--track", "1-3", "--journal", j]].concat());
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("a journal of another search"), "{}", stderr(&o));
    assert_eq!(std::fs::read(&journal).unwrap(), before);
    // --journal where no search is made; under `auto` it asks for the optimal search.
    assert_rejected(
        &["solve", "nrp:3x3:2", board, "--method", "table", "--journal", j],
        "--journal records an optimal search",
    );
    let auto =
        twirl(&[&base[..3], &["--patterns-in-memory", "--track", "1-3", "--journal", j]].concat());
    assert!(auto.status.success(), "{}", stderr(&auto));
    assert!(stdout(&auto).contains("shortest"), "{}", stdout(&auto));
}

#[test]
fn an_edited_journal_entry_is_refused_not_trusted() {
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("search.journal");
    let j = journal.to_str().unwrap();
    let board = "3 2 1 / 6 5 4 / 9 8 7";
    let args = ["solve", "nrp:3x3:2", board, "--method", "optimal", "--patterns-in-memory"];
    let args = [&args[..], &["--track", "1-3", "--journal", j, "--json", "-"]].concat();
    let first = twirl(&args);
    assert!(first.status.success(), "{}", stderr(&first));
    let v: serde_json::Value = serde_json::from_slice(&first.stdout).unwrap();
    let length = v["length"].as_u64().unwrap();
    // The last iteration searched in full, edited to claim the optimal depth searched: read
    // as written, the search would skip it and call a longer solution shortest.
    let text = std::fs::read_to_string(&journal).unwrap();
    let last = text.lines().rfind(|l| l.starts_with("exhausted ")).unwrap();
    let words: Vec<&str> = last.split(' ').collect();
    let edited = format!("exhausted {length} {}", words[2..].join(" "));
    std::fs::write(&journal, text.replace(last, &edited)).unwrap();
    let o = twirl(&args);
    assert_eq!(o.status.code(), Some(2), "{}{}", stdout(&o), stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("expected an entry ending in ` #` and its checksum"), "{err}");
    // One line of error (after the pattern table's progress lines), no panic.
    assert_eq!(err.lines().filter(|l| l.starts_with("twirl:")).count(), 1, "{err}");
    assert!(!err.contains("panicked"), "{err}");
    // A cut last entry (a kill between writes) is dropped; the finished ones are kept.
    std::fs::write(&journal, format!("{text}task {length} 3")).unwrap();
    let again = twirl(&args);
    assert!(again.status.success(), "{}", stderr(&again));
    let w: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(w["length"].as_u64().unwrap(), length);
    assert!(stderr(&again).contains("journal: no solution within"), "{}", stderr(&again));
}

#[test]
fn sigterm_stops_a_deep_search_at_once_and_the_journal_keeps_its_work() {
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("a5.journal");
    // The reversed 5x5 board with a 3-tile pattern: hours deep, so it is still searching.
    let board = "25 24 23 22 21 / 20 19 18 17 16 / 15 14 13 12 11 / 10 9 8 7 6 / 5 4 3 2 1";
    let child = common::bin()
        .args(["solve", "nrp:5x5:2", board, "--method", "optimal", "--patterns-in-memory"])
        .args(["--track", "1-3", "--threads", "2", "--journal", journal.to_str().unwrap()])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_secs(3));
    std::process::Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    let started = std::time::Instant::now();
    let out = child.wait_with_output().unwrap();
    assert!(started.elapsed().as_secs() < 10, "stopped after {:?}", started.elapsed());
    assert_eq!(out.status.code(), Some(130), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&journal).unwrap();
    // Every quarter turn moves four tiles one step; their distances add up to 120: no
    // iteration below 30 moves is searched.
    assert!(text.starts_with("twirl search journal 2\npuzzle nrp:5x5:2 qtm (moves "), "{text}");
    let early = ["task 2", "tasks 2", "exhausted 2"];
    assert!(!text.lines().any(|l| early.iter().any(|e| l.starts_with(e))), "{text}");
}

const SOLVED_4X4: &str = "1 2 3 4 / 5 6 7 8 / 9 10 11 12 / 13 14 15 16";

/// Processes making the same pattern table at once: each waits for the one building it and
/// reads it (before, the loser removed the winner's `.partial`, and a fixed temporary name
/// for the pattern's definition made one rename fail: 6 of 12 trials failed).
#[test]
fn processes_making_one_pattern_table_at_once_all_succeed() {
    for trial in 0..4 {
        let dir = tempfile::tempdir().unwrap();
        let patterns = dir.path().join("patterns");
        let children: Vec<_> = (0..3)
            .map(|_| {
                common::bin()
                    .args(["solve", "nrp:4x4:2", SOLVED_4X4, "--method", "optimal", "--quiet"])
                    .args(["--track", "1-5", "--threads", "1", "--patterns"])
                    .arg(&patterns)
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for child in children {
            let o = child.wait_with_output().unwrap();
            assert!(o.status.success(), "trial {trial}: {}", stderr(&o));
        }
        let names: Vec<String> = std::fs::read_dir(&patterns)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(!names.iter().any(|n| n.contains(".tmp") || n.contains(".partial")), "{names:?}");
        assert_eq!(names.iter().filter(|n| n.ends_with(".tbl")).count(), 1, "{names:?}");
    }
}

/// A pattern build stopped by SIGTERM keeps its table to continue, and says so.
#[test]
fn an_interrupted_pattern_build_says_what_it_kept() {
    let dir = tempfile::tempdir().unwrap();
    let patterns = dir.path().join("patterns");
    let child = common::bin()
        .args(["solve", "nrp:4x4:2", SOLVED_4X4, "--method", "optimal"])
        .args(["--track", "1-7", "--threads", "1", "--patterns"])
        .arg(&patterns)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Stopped once the table exists (the build has begun), however busy the machine.
    let started = std::time::Instant::now();
    let has_table = || {
        std::fs::read_dir(&patterns)
            .is_ok_and(|d| d.flatten().any(|e| e.path().extension().is_some_and(|x| x == "tbl")))
    };
    while !has_table() && started.elapsed().as_secs() < 60 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    std::process::Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(!err.contains("nothing was written"), "{err}");
    let last = err.trim_end().lines().last().unwrap_or("");
    assert!(
        last.starts_with("twirl: interrupted; the pattern table built so far is kept in "),
        "{err}"
    );
    assert!(last.contains("run the same command to continue building it"), "{err}");
    let kept: Vec<_> = std::fs::read_dir(&patterns)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "tbl"))
        .collect();
    assert_eq!(kept.len(), 1, "{err}");
    assert!(last.contains(&kept[0].display().to_string()), "{err}");
}

/// The default method keeps its promise: a shortest solution, from IDA* where no full table
/// is built (Twiddle 3x3 with full tables limited to 1,000 entries stands in for Twiddle 4x4,
/// whose pattern table takes minutes to build), of the length the full table gives.
#[test]
fn the_default_solve_is_shortest_where_no_table_is_built() {
    let dir = tempfile::tempdir().unwrap();
    let patterns = dir.path().join("patterns");
    let p = patterns.to_str().unwrap();
    for i in 0..4 {
        let board = format!("random:5:{i}");
        let table = twirl(&["solve", "nrp:3x3:2", &board, "--method", "table", "--json", "-"]);
        assert!(table.status.success(), "{}", stderr(&table));
        let table: serde_json::Value = serde_json::from_slice(&table.stdout).unwrap();
        let args = ["solve", "nrp:3x3:2", &board, "--table-entries", "1000", "--track", "1-5"];
        let auto = twirl(&[&args[..], &["--patterns", p]].concat());
        assert!(auto.status.success(), "{}", stderr(&auto));
        let (out, err) = (stdout(&auto), stderr(&auto));
        assert!(err.contains("# auto: IDA* over pattern tables"), "{err}");
        assert!(out.contains("shortest (IDA* over pattern tables"), "{out}");
        assert_eq!(solution(&out).len() as u64, table["length"].as_u64().unwrap(), "board {i}");
        // Without the limit the full table is built in memory: the same length.
        let o = twirl(&["solve", "nrp:3x3:2", &board, "--json", "-"]);
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!((&v["method"], &v["length"]), (&table["method"], &table["length"]));
    }
    // Twiddle 4x4's full table has 2.6e12 classes; IDA* over its default pattern table
    // (tiles 1-8) is estimated at 4.0e4 nodes: the default is IDA*, said before building.
    // The 6x6 board is beyond pattern tables: constructive, saying why and "not shortest".
    let o = twirl(&["solve", "nrp:6x6:2", "random:1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("# not shortest: solved by the constructive method because"), "{out}");
    assert!(out.contains("36 cells"), "{out}");
    // Spinpossible 4x4 has no constructive method and IDA* is out of reach: refused, with
    // the way to search anyway.
    assert_rejected(&["solve", "spin:4x4", "random:1"], "--method optimal searches anyway");
}

/// `twirl sample` on a puzzle whose full table fits reads the distances from it (nrp:2x3:2,
/// whose patterns no multiset ranks: IDA* cannot sample it); each distance is the one
/// `twirl distance` reads from the table, and no output calls the longest God's number.
#[test]
fn a_sample_reads_a_full_table_where_one_fits() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let (record, json, plot) = (path("s.jsonl"), path("s.json"), path("s.svg"));
    let o = twirl(&[
        "sample",
        "nrp:2x3:2",
        "-n",
        "20",
        "--record",
        &record,
        "--json",
        &json,
        "--plot",
        &plot,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (out, err) = (stdout(&o), stderr(&o));
    assert!(out.contains("# distances: 20 read from a full table\n"), "{out}");
    assert!(err.contains("# distances: read from a full table built in memory"), "{err}");
    assert!(out.contains("# longest in the sample: "), "{out}");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let hist: Vec<u64> = serde_json::from_value(summary["histogram"].clone()).unwrap();
    assert_eq!(hist.iter().sum::<u64>(), 20);
    assert_eq!(summary["solved_by"]["table"], 20);
    assert_eq!(summary["longest_in_sample"].as_u64().unwrap() as usize, hist.len() - 1);
    assert_eq!(summary["lower_bound_gods_number"], summary["longest_in_sample"]);
    let svg = std::fs::read_to_string(&plot).unwrap();
    assert!(svg.contains("longest in the sample"), "{svg}");
    for text in [&out, &err, &svg] {
        assert!(!text.contains("God's number"), "{text}");
    }
    // Every recorded distance is the table's, and makes the histogram.
    let mut counted = vec![0u64; hist.len()];
    for line in std::fs::read_to_string(&record).unwrap().lines().skip(1) {
        let s: serde_json::Value = serde_json::from_str(line).unwrap();
        let d = twirl(&["distance", "nrp:2x3:2", s["board"].as_str().unwrap()]);
        assert!(d.status.success(), "{}", stderr(&d));
        assert_eq!(stdout(&d).lines().next().unwrap(), s["distance"].to_string(), "{line}");
        assert_eq!(s["method"], "table");
        counted[s["distance"].as_u64().unwrap() as usize] += 1;
    }
    assert_eq!(counted, hist);
    // IDA* is refused in one line (the pattern of an exceptional group is listed, not
    // ranked), before anything is built or recorded.
    let other = path("o.jsonl");
    let args = ["sample", "nrp:2x3:2", "--method", "optimal", "--record", &other, "--quiet"];
    assert_rejected(&[&args[..], &["--patterns-in-memory"]].concat(), "--method table");
    assert!(!std::path::Path::new(&other).exists());
}

/// A sample begun by IDA* and extended from a full table: the boards keep their distances,
/// the new ones agree with the table, and the output says how many came each way.
#[test]
fn a_sample_says_how_its_distances_were_found() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("s.jsonl");
    let r = record.to_str().unwrap();
    let base = ["sample", "nrp:3x3:2", "--seed", "4", "--record", r, "--quiet"];
    let o =
        twirl(&[&base[..], &["-n", "6", "--method", "optimal", "--patterns-in-memory"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("# distances: 6 searched by IDA* over pattern tables\n"));
    let o = twirl(&[&base[..], &["-n", "10"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains(
            "# distances: 4 read from a full table, 6 searched by IDA* over pattern tables"
        ),
        "{out}"
    );
    assert!(!out.contains("God's number"), "{out}");
    for line in std::fs::read_to_string(&record).unwrap().lines().skip(1) {
        let s: serde_json::Value = serde_json::from_str(line).unwrap();
        let d = twirl(&["distance", "nrp:3x3:2", s["board"].as_str().unwrap()]);
        assert_eq!(stdout(&d).lines().next().unwrap(), s["distance"].to_string(), "{line}");
    }
}
