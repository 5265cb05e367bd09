//! Runs the `twirl` binary on tiny boards and checks its output, JSON and exit codes.

use std::path::Path;

mod common;

use common::{assert_rejected, stderr, stdout, twirl};

#[test]
fn bad_inputs_get_clean_errors() {
    assert_rejected(&["bfs", "nrp:3x3:4"], "does not fit on a 3x3 board");
    assert_rejected(&["bfs", "nrp:0x3:1"], "no cells");
    assert_rejected(&["bfs", "spin:3x3:5x5"], "spin type 5x5 does not fit");
    assert_rejected(&["bfs", "nrp:3x3:2", "--metric", "ftm"], "unknown metric `ftm`");
    assert_rejected(&["bfs", "spin:3x3", "--metric", "cw"], "does not apply to Spinpossible");
    assert_rejected(&["bfs", "nrp:3x3:2", "--max-memory", "1K", "-q"], "table needs");
    assert_rejected(&["bfs", "nrp:3x3:2", "--threads", "0"], "--threads");
    assert_rejected(&["bfs", "spin:3x3", "--orient"], "--orient applies to NRP");
    assert_rejected(&["info", "cube:3x3"], "unknown puzzle");
    assert_rejected(&["bfs", "nrp:4294967296x4294967296:2"], "more than 255 cells");
    assert_rejected(&["bfs", "nrp:3x3:2", "--max-memory", "lots"], "not a size");
    assert_rejected(&["bfs", "nrp:3x3:2", "--bogus"], "unexpected argument");
    assert_rejected(
        &["bfs", "spin:8x8:1x1"],
        "combinations of the orbits' parities and orientation sums to index, found",
    );
    // clap's errors keep their substance: the missing argument, the near miss, the
    // subcommand's help.
    assert_rejected(&["bfs"], "not provided: <PUZZLE> (see twirl bfs --help)");
    assert_rejected(&["bfs", "nrp:3x3:2", "--thread", "2"], "similar argument exists: '--threads'");
    assert_rejected(&["frob"], "unrecognized subcommand 'frob' (see twirl --help)");
    assert_rejected(&["bfs", "nrp:16x25:9"], "check, apply, info, order and solve");
}

#[test]
fn bfs_prints_the_histogram_and_writes_json() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    // By boards: the result without a symmetry section (classes add one, below).
    let o =
        twirl(&["bfs", "nrp:2x3:2", "--json", json.to_str().unwrap(), "-q", "--symmetry", "off"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8(o.stdout).unwrap();
    let rows: Vec<Vec<u64>> = out
        .lines()
        .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
        .map(|l| l.split_whitespace().take(3).map(|x| x.parse().unwrap()).collect())
        .collect();
    let expected = [1u64, 4, 10, 22, 42, 33, 7, 1];
    assert_eq!(rows.len(), expected.len());
    let mut cumulative = 0;
    for (d, (row, &n)) in rows.iter().zip(&expected).enumerate() {
        cumulative += n;
        assert_eq!(row, &vec![d as u64, n, cumulative]);
    }
    assert!(out.contains("# God's number: 7 (1 antipodes)"), "{out}");

    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
    let mut want = vec![
        "puzzle",
        "metric",
        "states",
        "gods_number",
        "histogram",
        "antipodes",
        "antipode_boards",
        "elapsed_seconds",
        "threads",
        "table_bytes",
    ];
    let mut got = keys.clone();
    got.sort();
    want.sort();
    assert_eq!(got, want);
    assert_eq!(v["puzzle"], "nrp:2x3:2");
    assert_eq!(v["metric"], "qtm");
    assert_eq!(v["states"], 120);
    assert_eq!(v["gods_number"], 7);
    assert_eq!(v["histogram"], serde_json::json!(expected));
    assert_eq!(v["antipodes"], 1);
    assert_eq!(v["table_bytes"], 32);
    // The single antipode swaps the two rows (regression value from this tool).
    assert_eq!(v["antipode_boards"], serde_json::json!(["4 5 6 / 1 2 3"]));
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!names.iter().any(|n| n.ends_with(".tmp")), "{names:?}");
}

#[test]
fn file_backed_table_is_complete_or_absent() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("t.tbl");
    let o =
        twirl(&["bfs", "spin:2x3", "--table", table.to_str().unwrap(), "-q", "--symmetry", "off"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // The 64 KiB header, then two bits per board.
    assert_eq!(std::fs::metadata(&table).unwrap().len(), 65536 + 46080 / 4);
    // By classes (four symmetries and inversion), two bits per entry: 9,088 of them.
    let o = twirl(&[
        "bfs",
        "spin:2x3",
        "--table",
        table.to_str().unwrap(),
        "-q",
        "--force",
        "--symmetry",
        "on",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::metadata(&table).unwrap().len(), 65536 + 9088 / 4);
    assert!(!Path::new(&format!("{}.checkpoint", table.display())).exists());
    let bad = dir.path().join("bad.tbl");
    let o = twirl(&["bfs", "nrp:3x3:9", "--table", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(std::fs::read_dir(dir.path()).unwrap().count() == 1, "only the finished table remains");
}

#[test]
fn info_reports_orbits_constraints_and_size() {
    let o = twirl(&["info", "nrp:4x4:3"]);
    assert!(o.status.success());
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(out.contains("O1: 8 cells: 1 3 6 8 9 11 14 16"), "{out}");
    assert!(out.contains("sign(O1) + sign(O2) = 0 (mod 2)"), "{out}");
    assert!(out.contains("table: 812851200 entries, 203212800 bytes"), "{out}");
    assert!(out.contains("symmetries: order 8: identity, rotate 90,"), "{out}");
    let o = twirl(&["info", "nrp:3x6:3", "--metric", "cw"]);
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(out.contains("symmetries: order 2: identity, rotate 180; inverse-closed: no"), "{out}");
    let o = twirl(&["info", "nrp:2x3:2"]);
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(out.contains("boards allowed by the invariants: 720"), "{out}");
    assert!(out.contains("group order (stabilizer chain):   120"), "{out}");
    assert!(out.contains("table: 120 entries"), "{out}");
}

/// `info --json -`: the same facts as the text, as JSON alone on standard output; counts
/// past 64 bits as decimal strings; a board too large to search says why in `table`.
#[test]
fn info_writes_its_facts_as_json() {
    let facts = |args: &[&str]| -> serde_json::Value {
        let o = twirl(args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        serde_json::from_slice(&o.stdout).expect("JSON alone on standard output")
    };
    let text = String::from_utf8(twirl(&["info", "nrp:2x3:2"]).stdout).unwrap();
    let v = facts(&["info", "nrp:2x3:2", "--json", "-"]);
    assert_eq!(v["boards_allowed_by_invariants"], "720");
    assert_eq!(v["group_order"], "120");
    assert_eq!(v["table"]["entries"], 120);
    assert_eq!(v["moves"].as_array().unwrap().len(), 4, "{v}");
    let classes = &v["table_with_symmetry"];
    let line = format!("table with symmetry: {} entries", classes["entries"]);
    assert!(text.contains(&line), "{line} in {text}");
    // The seed's own board: 8 x 17 blocks turned either way, its order as `order` says.
    let v = facts(&["info", "nrp:16x25:9", "--json", "-"]);
    assert_eq!(v["moves"].as_array().unwrap().len(), 272);
    assert_eq!(v["moves"][1], "R1C1'");
    let order = String::from_utf8(twirl(&["order", "nrp:16x25:9"]).stdout).unwrap();
    assert_eq!(v["group_order"], order.lines().next().unwrap());
    assert!(v["table"]["refused"].as_str().unwrap().contains("400 cells"), "{v}");
}

#[test]
fn clockwise_metric_and_orientation_run() {
    let o = twirl(&["bfs", "nrp:2x3:2", "--metric", "cw", "-q"]);
    assert!(o.status.success());
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(out.contains("metric=cw boards=120"), "{out}");
    let o = twirl(&["bfs", "nrp:2x2:2", "--orient", "-q"]);
    assert!(o.status.success());
    let out = String::from_utf8(o.stdout).unwrap();
    // One 2x2 block with orientation: 4 rotations of the whole board.
    assert!(out.contains("boards=4"), "{out}");
}

#[test]
fn check_gives_verdicts_reasons_and_exit_codes() {
    let o = twirl(&["check", "nrp:3x3:2", "4 1 3 / 6 2 9 / 7 5 8"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("solvable"));
    let o = twirl(&["check", "nrp:4x4:3", "2 1 3 4 / 5 6 7 8 / 9 10 11 12 / 13 14 15 16"]);
    assert_eq!(o.status.code(), Some(1));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("tile 2 stands on cell 1, which it can never reach"), "{out}");
    assert_rejected(&["check", "nrp:3x3:2", "4 1 3 / 6 2 9 / 7 5 5"], "tile 5 appears twice");
    assert_rejected(&["check", "nrp:3x3:2", "4 1 3 / 6 2 9"], "expected 3 rows");
    assert_rejected(&["check", "nrp:3x3:2", "4 1 3 / 6 x 9 / 7 5 8"], "not a tile number");
}

#[test]
fn order_reaches_beyond_search() {
    let o = twirl(&["order", "spin:3x3"]);
    assert_eq!(String::from_utf8_lossy(&o.stdout).lines().next(), Some("185794560"));
    let o = twirl(&["order", "nrp:4x4:3"]);
    assert_eq!(String::from_utf8_lossy(&o.stdout).lines().next(), Some("812851200"));
    // 8!*8!/2 generalises: 5x5 with 3x3 blocks gives 13!*12!/2.
    let o = twirl(&["order", "nrp:5x5:3"]);
    assert_eq!(String::from_utf8_lossy(&o.stdout).lines().next(), Some("1491376463216640000"));
}

#[test]
fn verify_spin_reports_theorem_3_and_writes_json() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("spin.json");
    let o = twirl(&["verify", "spin", "--json", json.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains(
        "Theorem 3 (3x3: the minimal generating unions are exactly its six sets): agrees"
    ));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let b33 =
        v["boards"].as_array().unwrap().iter().find(|b| b["rows"] == 3 && b["cols"] == 3).unwrap();
    assert_eq!(b33["generating_unions_count"], 39);
    assert_eq!(b33["minimal_generating_unions"].as_array().unwrap().len(), 6);
}

#[test]
fn verify_lam_lists_disagreements() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("lam.json");
    let o = twirl(&["verify", "lam", "--max", "4", "--json", json.to_str().unwrap()]);
    // Theorem 1.1 as written disagrees with the exact counts: a "no" answer, exit 1.
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("- (4,4,3) b = 3, otherwise"), "{out}");
    assert!(out.contains("(theorem = 2 x exact)"), "{out}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let rows = v.as_array().unwrap();
    assert_eq!(rows.len(), 20);
    let r = rows.iter().find(|r| r["rows"] == 2 && r["cols"] == 3 && r["block"] == 2).unwrap();
    assert_eq!(r["group_order"], "120");
    assert_eq!(r["bfs_count"], "120");
    assert_eq!(r["agrees"], true);
    assert_rejected(&["verify", "lam", "--max", "0"], "--max");
    // The orientation variant states nothing to disagree with.
    let o = twirl(&["verify", "lam", "--max", "2", "--orient"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// `--symmetry auto` searches by classes unless the boards move XOR runs that the classes
/// cannot, or are fewer than 131,072; `on` and `off` force either; the JSON says which.
#[test]
fn symmetry_auto_picks_boards_or_classes() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path().join("r.json");
    let run = |args: &[&str]| {
        let mut all = args.to_vec();
        all.extend_from_slice(&["--json", r.to_str().unwrap(), "-q", "--force"]);
        let o = twirl(&all);
        assert!(o.status.success(), "{}", stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&r).unwrap()).unwrap();
        let boards = match args[1] {
            "spin:2x3" => 46_080,
            "spin:2x4" => 10_321_920,
            _ => 362_880,
        };
        assert_eq!(v["states"], boards);
        v["symmetry"]["entries"].as_u64()
    };
    // Spinpossible's classes move XOR runs like its boards: auto takes the classes.
    assert_eq!(run(&["bfs", "spin:2x4"]), Some(1_424_896));
    assert_eq!(run(&["bfs", "spin:2x4", "--symmetry", "off"]), None);
    // Fewer than 131,072 boards: auto searches them (finding classes costs more), unless
    // only the classes fit.
    assert_eq!(run(&["bfs", "spin:2x3"]), None);
    assert_eq!(run(&["bfs", "spin:2x3", "--max-memory", "5K"]), Some(9_088));
    assert_eq!(run(&["bfs", "spin:2x3", "--symmetry", "on"]), Some(9_088));
    // NRP (3,3,2): one entry per class under the 8 symmetries and inversion.
    assert_eq!(run(&["bfs", "nrp:3x3:2"]), Some(23_764));
    assert_eq!(run(&["bfs", "nrp:3x3:2", "--symmetry", "off"]), None);
    assert_eq!(run(&["bfs", "nrp:3x3:2", "--unique"]), None);
    let o = twirl(&["bfs", "nrp:3x3:2", "--unique", "--symmetry", "on"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--symmetry off"), "{}", stderr(&o));
    // NRP (2,3,2), a group smaller than its invariants: classes with the whole arrangement
    // first, under the 4 symmetries and inversion, the same boards per distance.
    let o = twirl(&["bfs", "nrp:2x3:2", "--symmetry", "on"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("boards=120 entries=32 "), "{}", stdout(&o));
    assert!(stdout(&o).contains("# God's number: 7 (1 antipodes)"), "{}", stdout(&o));
    // Identical pieces: classes of their digits, said as entries like any classes. Two
    // rings of 3 + 3 alike, swapped by a symmetry: 20 x 20 boards in 210 classes.
    let file = dir.path().join("twin_rings.tws");
    let ring = |set: &str| {
        format!("Move {set}R\n{set}\n2 3 4 5 6 1\nEnd\nMove {set}S\n{set}\n2 1 3 4 5 6\nEnd\n")
    };
    let text = format!(
        "Name TwinRings\nSet A 6 1\nSet B 6 1\nSolved\nA\n1 1 1 2 2 2\nB\n1 1 1 2 2 2\nEnd\n{}{}",
        ring("A"),
        ring("B")
    );
    std::fs::write(&file, text).unwrap();
    // (400 boards: `auto` would search them, fewer than 131,072.)
    let o = twirl(&["bfs", &format!("def:{}", file.display()), "--symmetry", "on"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("boards=400 entries=210 "), "{}", stdout(&o));
    let line =
        "table: 210 entries (classes of boards under 2 symmetries, every digit first (20 x 20))";
    assert!(stderr(&o).contains(line), "{}", stderr(&o));
    // Where no ranking of classes applies, `on` says why: a 3-cycle turned one way and a swap
    // sharing a cell have no symmetry besides the identity.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("plain.tws");
    let text =
        "Set A 4 1\nSolved\nA\n1 2 3 4\nEnd\nMove X\nA\n2 3 1 4\nEnd\nMove Y\nA\n1 2 4 3\nEnd\n";
    std::fs::write(&file, text).unwrap();
    let spec = format!("def:{}", file.display());
    let o = twirl(&["bfs", &spec, "--metric", "cw", "--symmetry", "on"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no symmetry reduction"), "{}", stderr(&o));
}

#[test]
fn export_def_writes_a_twsearch_definition() {
    use twirl::puzzle::definition::Definition;
    let o = twirl(&["export-def", "nrp:2x3:2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.contains("# nrp:2x3:2 in htm: 6 cells, 6 moves."), "{text}");
    assert!(text.contains("R1C1^2=R1C12"), "{text}");
    let def = Definition::parse(&text).unwrap();
    let names: Vec<&str> = def.moves.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["R1C1", "R1C2"]);

    let o = twirl(&["export-def", "nrp:2x3:2", "--orient", "--metric", "htm"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("Set TILES 6 4\n"));

    // To a file: the same text; an existing definition is replaced with --force only, a
    // table never.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("spin.tws");
    let path = file.to_str().unwrap();
    for _ in 0..2 {
        let o = twirl(&["export-def", "spin:2x2", "-o", path, "--force"]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(o.stdout.is_empty());
    }
    assert_rejected(&["export-def", "spin:2x2", "-o", path], "--force");
    let written = std::fs::read_to_string(&file).unwrap();
    assert_eq!(written, String::from_utf8(twirl(&["export-def", "spin:2x2"]).stdout).unwrap());
    assert_eq!(Definition::parse(&written).unwrap().moves.len(), 9);
    let table = dir.path().join("t.tbl");
    let o = twirl(&["bfs", "nrp:2x2:2", "--table", table.to_str().unwrap(), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_rejected(&["export-def", "spin:2x2", "-o", table.to_str().unwrap()], "twirl table");
    let missing = dir.path().join("no/such/dir.tws");
    assert_rejected(&["export-def", "spin:2x2", "-o", missing.to_str().unwrap()], "cannot write");

    // Metrics twsearch cannot express are refused, saying what to do instead.
    assert_rejected(&["export-def", "nrp:3x3:2", "--metric", "qtm"], "run twsearch with -q");
    assert_rejected(&["export-def", "nrp:3x3:2", "--metric", "cw"], "no directed metric");
    assert_rejected(&["export-def", "spin:3x3", "--orient"], "--orient applies to NRP");
    assert_rejected(&["export-def", "cube:3x3"], "unknown puzzle");
}
