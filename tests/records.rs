//! The record of `twirl sample` under attack: damaged lines, a line cut by a kill, two runs
//! on one record, a definition file replaced, an empty file, absurd counts, and outputs
//! aimed at the record itself.

mod common;

use std::path::Path;
use std::process::Stdio;

use common::{assert_rejected, bin, stderr, twirl};

/// Spinpossible 2x3 sampled from its full table (built in milliseconds).
const BASE: [&str; 4] = ["sample", "spin:2x3", "--method", "table"];

fn sample(record: &Path, n: &str, extra: &[&str]) -> std::process::Output {
    let r = record.to_str().unwrap();
    twirl(&[&BASE[..], &["-n", n, "--record", r], extra].concat())
}

/// The indices of the boards a record holds, from its lines that parse (none yet: empty).
fn indices(record: &Path) -> Vec<u64> {
    let text = std::fs::read_to_string(record).unwrap_or_default();
    let mut found: Vec<u64> = text
        .lines()
        .skip(1)
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .map(|v| v["index"].as_u64().unwrap())
        .collect();
    found.sort_unstable();
    found.dedup();
    found
}

/// A damaged middle line, two lines run together (two writers), and a last line without
/// its newline: every good line is kept, only the damaged boards are solved again.
#[test]
fn a_damaged_line_loses_no_good_line_after_it() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("s.jsonl");
    let o = sample(&record, "12", &["--quiet"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&record).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    assert_eq!(lines.len(), 13);
    // An edit the JSON still reads: only the checksum tells.
    lines[3] = lines[3].replacen("\"distance\":", "\"distance\":1", 1);
    // Two lines run together, as two unlocked writers left them.
    let joined = format!("{}{}", lines[6], lines[7]);
    lines.splice(6..8, [joined]);
    let kept: Vec<String> = [&lines[1..3], &lines[4..6], &lines[7..]].concat();
    // The last line whole but for its newline.
    std::fs::write(&record, lines.join("\n")).unwrap();
    let o = sample(&record, "12", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("# record: 2 damaged line(s) skipped, those boards are solved again"));
    assert!(err.contains("(9 of 12 boards solved;"), "{err}");
    let after = std::fs::read_to_string(&record).unwrap();
    for line in &kept {
        assert!(after.contains(&format!("{line}\n")), "lost {line}");
    }
    assert_eq!(indices(&record), (0..12).collect::<Vec<u64>>());
    // Read again: the damaged lines stay skipped, nothing is solved twice.
    let o = sample(&record, "12", &[]);
    assert!(stderr(&o).contains("(12 of 12 boards solved;"), "{}", stderr(&o));
    // A last line cut short by a kill is removed and its board solved again.
    let text = std::fs::read_to_string(&record).unwrap();
    std::fs::write(&record, &text[..text.len() - 20]).unwrap();
    let o = sample(&record, "12", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("(11 of 12 boards solved;"), "{}", stderr(&o));
    assert!(std::fs::read_to_string(&record).unwrap().ends_with("}\n"));
    assert_eq!(indices(&record), (0..12).collect::<Vec<u64>>());
}

/// A record written before lines had checksums (version 1) is still read in full.
#[test]
fn a_record_without_checksums_is_still_read() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("s.jsonl");
    let o = sample(&record, "6", &["--quiet"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let old: Vec<String> = std::fs::read_to_string(&record)
        .unwrap()
        .lines()
        .map(|l| match l.rsplit_once(",\"sum\":\"") {
            Some((open, _)) => format!("{open}}}"),
            None => l.replace("\"twirl_sample\":2", "\"twirl_sample\":1"),
        })
        .collect();
    assert!(old[0].contains("\"twirl_sample\":1"), "{}", old[0]);
    std::fs::write(&record, old.join("\n") + "\n").unwrap();
    let o = sample(&record, "8", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("(6 of 8 boards solved;"), "{}", stderr(&o));
    assert!(!stderr(&o).contains("damaged"), "{}", stderr(&o));
    assert_eq!(indices(&record), (0..8).collect::<Vec<u64>>());
}

/// One run per record: a second one is refused in one line while the first holds it.
#[test]
fn a_record_in_use_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("s.jsonl");
    let o = sample(&record, "4", &["--quiet"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let before = std::fs::read(&record).unwrap();
    let held = std::fs::File::open(&record).unwrap();
    held.lock().unwrap();
    let r = record.to_str().unwrap();
    assert_rejected(&[&BASE[..], &["-n", "8", "--record", r]].concat(), "found it locked");
    assert_eq!(std::fs::read(&record).unwrap(), before);
    drop(held);
    let o = sample(&record, "8", &["--quiet"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// A record of `def:x.tws` is refused once x.tws holds another puzzle.
#[test]
fn a_record_of_a_replaced_definition_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("x.tws");
    let f = file.to_str().unwrap();
    let record = dir.path().join("s.jsonl");
    let r = record.to_str().unwrap();
    let export = |spec: &str| {
        let _ = std::fs::remove_file(&file);
        let o = twirl(&["export-def", spec, "-o", f]);
        assert!(o.status.success(), "{}", stderr(&o));
    };
    export("spin:2x3");
    let args = ["sample", &format!("def:{f}"), "-n", "4", "--record", r, "--quiet"];
    let o = twirl(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    export("nrp:2x3:2");
    assert_rejected(&args, "the definition or its subset flags changed since the record began");
    export("spin:2x3");
    let o = twirl(&args);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// An empty file (`touch`) is a new record.
#[test]
fn an_empty_record_is_a_new_one() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("s.jsonl");
    std::fs::write(&record, "").unwrap();
    let o = sample(&record, "5", &["--quiet"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(indices(&record), (0..5).collect::<Vec<u64>>());
}

/// A count beyond 2^40 is refused; a huge one below it is walked lazily: interrupted, it
/// stops cleanly (exit 130) with its boards recorded, having allocated nothing per board
/// not solved.
#[test]
fn a_huge_count_is_refused_or_walked_lazily() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("s.jsonl");
    let r = record.to_str().unwrap();
    let huge = (1u64 << 40) + 1;
    assert_rejected(
        &[&BASE[..], &["-n", &huge.to_string(), "--record", r]].concat(),
        "expected at most 1,099,511,627,776 boards",
    );
    assert!(!record.exists());
    let mut child = bin()
        .args([&BASE[..], &["-n", "1000000000000", "--record", r, "--quiet"]].concat())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Until boards are recorded (or the process ends on its own, which the test refuses).
    for _ in 0..300 {
        if indices(&record).len() >= 10 || child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let killed = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
    assert!(indices(&record).len() >= 10);
}

/// `--max-depth`: boards only known to be deeper are never counted as solved.
#[test]
fn deeper_boards_are_not_called_solved() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("s.jsonl");
    let r = record.to_str().unwrap();
    let args = [
        "sample",
        "spin:2x3",
        "-n",
        "8",
        "--method",
        "optimal",
        "--patterns-in-memory",
        "--max-depth",
        "3",
        "--record",
        r,
    ];
    let o = twirl(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = twirl(&args);
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    let line = err.lines().find(|l| l.starts_with("# record: ")).unwrap();
    assert!(line.contains("deeper than --max-depth 3, of 8 boards;"), "{line}");
    assert!(!line.contains("8 of 8 boards solved"), "{line}");
}

/// Neither --json nor --plot may replace the record or the definition sampled.
#[test]
fn outputs_never_replace_the_record() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["s.json", "s.svg"] {
        let record = dir.path().join(name);
        let r = record.to_str().unwrap();
        let o = sample(&record, "3", &["--quiet"]);
        assert!(o.status.success(), "{}", stderr(&o));
        let before = std::fs::read(&record).unwrap();
        let flag = if name.ends_with("svg") { "--plot" } else { "--json" };
        let args = [&BASE[..], &["-n", "3", "--record", r, flag, r]].concat();
        assert_rejected(&args, "an input of the command");
        assert_eq!(std::fs::read(&record).unwrap(), before);
    }
    // Nor the definition read.
    let file = dir.path().join("x.tws");
    let f = file.to_str().unwrap();
    assert!(twirl(&["export-def", "spin:2x3", "-o", f]).status.success());
    let record = dir.path().join("d.jsonl");
    let args = ["sample", &format!("def:{f}"), "--record", record.to_str().unwrap(), "--json", f];
    assert_rejected(&args, "an input of the command");
}

/// A subset's record names its flags, in its default file name too: the whole file's record
/// beside it is left alone. A record begun before records named them (`def:F` alone, with
/// the subset's own definition digest) is continued under its old default name.
#[test]
fn a_subsets_record_names_its_flags() {
    let cube = concat!(env!("CARGO_MANIFEST_DIR"), "/data/definitions/cube2.tws");
    let lines = |p: &Path| std::fs::read_to_string(p).unwrap().lines().count();
    let [dir, old] = [(); 2].map(|_| tempfile::tempdir().unwrap());
    for d in [&dir, &old] {
        std::fs::copy(cube, d.path().join("cube2.tws")).unwrap();
    }
    let run = |d: &Path, subset: &[&str], n: &str| {
        let o = bin()
            .current_dir(d)
            .args([&["sample", "def:cube2.tws", "-n", n, "--quiet"], subset].concat())
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
    };
    let subset = ["--ignore", "CORNERS:4-7"];
    let whole = dir.path().join("def_cube2_tws-htm-seed1.sample.jsonl");
    let named = dir.path().join("def_cube2_tws___ignore_CORNERS_4_5_6_7-htm-seed1.sample.jsonl");
    run(dir.path(), &[], "2");
    run(dir.path(), &subset, "3");
    assert_eq!((lines(&whole), lines(&named)), (3, 4));
    let text = std::fs::read_to_string(&named).unwrap();
    let header: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(header["puzzle"], "def:cube2.tws --ignore CORNERS:4,5,6,7");
    // The same header as an older twirl wrote it, under the name it gave.
    let unflagged = header.to_string().replace(" --ignore CORNERS:4,5,6,7", "");
    let legacy = old.path().join("def_cube2_tws-htm-seed1.sample.jsonl");
    std::fs::write(&legacy, format!("{unflagged}\n")).unwrap();
    run(old.path(), &subset, "3");
    assert_eq!(lines(&legacy), 4, "continued under the old name");
    assert!(!old.path().join(named.file_name().unwrap()).exists());
}
