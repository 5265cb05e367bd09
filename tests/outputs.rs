//! The one rule for output paths (issue 35), as every command that writes a file follows it:
//! never over an input, special files written through, symlinks kept, existing files
//! replaced only with --force, `-` for standard output, and a locked table never replaced.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{assert_rejected, bin, stderr, stdout, twirl};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Runs twirl with `args`, giving up (and failing) after `limit`.
fn twirl_within(args: &[&str], limit: Duration) -> std::process::Output {
    let mut child =
        bin().args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("run twirl");
    let t0 = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t0.elapsed() > limit {
            let _ = child.kill();
            panic!("{args:?} did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// `--json FIFO` and `--plot FIFO` while a reader reads it: the command finishes (the check
/// used to open the FIFO to read, blocking before any work) and the reader gets the output.
#[test]
fn outputs_to_a_fifo_are_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let cases: [&[&str]; 6] = [
        &["bfs", "nrp:2x3:2", "-q", "--json"],
        &["bfs", "nrp:2x3:2", "-q", "--plot"],
        &["order", "nrp:3x3:2", "--json"],
        &["check", "nrp:2x3:2", "1 2 3 / 4 5 6", "--json"],
        &["solve", "nrp:2x3:2", "4 1 3 / 5 2 6", "--json"],
        &["apply", "nrp:2x3:2", "R1C1", "--json"],
    ];
    for args in cases {
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
        };
        let o = twirl_within(&[args, &[s(&fifo)]].concat(), Duration::from_secs(60));
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        let got = reader.join().unwrap();
        assert!(got.starts_with('{') || got.starts_with("<svg"), "{args:?}: {got}");
        use std::os::unix::fs::FileTypeExt;
        assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo(), "{args:?}");
    }
}

/// /dev/null takes any output; /dev/full fails with one line and exit 2, and stays a device.
#[test]
fn outputs_to_devices_are_written_through() {
    let o = twirl(&["bfs", "nrp:2x3:2", "-q", "--json", "/dev/null", "--plot", "/dev/null"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = twirl(&["order", "nrp:3x3:2", "--json", "/dev/null"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    if Path::new("/dev/full").exists() {
        let o = twirl(&["order", "nrp:3x3:2", "--json", "/dev/full"]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains("/dev/full") && err.trim().lines().count() == 1, "{err}");
        use std::os::unix::fs::FileTypeExt;
        let meta = std::fs::symlink_metadata("/dev/full").unwrap();
        assert!(meta.file_type().is_char_device(), "/dev/full was replaced");
    }
}

/// A symlink is written through: the target replaced (with --force), the link kept.
#[test]
fn symlinked_outputs_keep_the_link() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("real.json");
    std::fs::write(&target, "old").unwrap();
    let link = dir.path().join("link.json");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    assert_rejected(&["order", "nrp:3x3:2", "--json", s(&link)], "--force");
    let o = twirl(&["order", "nrp:3x3:2", "--json", s(&link), "--force"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&target).unwrap()).unwrap();
    assert_eq!(v["order"], "362880");
}

/// Every command that writes a file refuses an existing one without --force (the file left
/// as it was) and replaces it with --force.
#[test]
fn existing_files_are_replaced_only_with_force() {
    let dir = tempfile::tempdir().unwrap();
    let result = dir.path().join("r.json");
    let o = twirl(&["bfs", "nrp:2x3:2", "-q", "--json", s(&result)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let f = dir.path().join("out.svg");
    let f = s(&f);
    let r = s(&result);
    let record = dir.path().join("rec.jsonl");
    let rec = s(&record);
    let cases: Vec<Vec<&str>> = vec![
        vec!["bfs", "nrp:2x3:2", "-q", "--json", f],
        vec!["bfs", "nrp:2x3:2", "-q", "--plot", f],
        vec!["sample", "nrp:2x3:2", "-n", "3", "-q", "--record", rec, "--json", f],
        vec!["apply", "nrp:2x3:2", "R1C1", "--json", f],
        vec!["plot", r, "-o", f],
        vec!["claims", "--source", "lee", "--json", f],
        vec!["export-def", "nrp:2x3:2", "-o", f],
        vec!["distance", "nrp:2x3:2", "4 1 3 / 5 2 6", "--json", f],
        vec!["check", "nrp:2x3:2", "4 1 3 / 5 2 6", "--json", f],
        vec!["order", "nrp:2x3:2", "--json", f],
        vec!["solve", "nrp:2x3:2", "4 1 3 / 5 2 6", "--json", f],
    ];
    for args in cases {
        std::fs::write(f, "mine").unwrap();
        let o = twirl(&args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("use --force to replace it"), "{args:?}: {err}");
        assert_eq!(std::fs::read_to_string(f).unwrap(), "mine", "{args:?}");
        let o = twirl(&[&args[..], &["--force"]].concat());
        assert!(o.status.success(), "{args:?} --force: {}", stderr(&o));
        assert_ne!(std::fs::read_to_string(f).unwrap(), "mine", "{args:?}");
    }
}

/// No output over an input, compared by inode: the definition searched, a table, its
/// checkpoint or a part of it, a journal; through another spelling or a link too.
#[test]
fn outputs_never_replace_an_input() {
    let dir = tempfile::tempdir().unwrap();
    let def = dir.path().join("x.tws");
    let o = twirl(&["export-def", "nrp:2x3:2", "-o", s(&def)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let spec = format!("def:{}", s(&def));
    let before = std::fs::read(&def).unwrap();
    let alias = dir.path().join(".").join("x.tws");
    let link = dir.path().join("link.json");
    std::os::unix::fs::symlink(&def, &link).unwrap();
    for out in [s(&def), s(&alias), s(&link)] {
        assert_rejected(&["bfs", &spec, "-q", "--json", out, "--force"], "an input");
        assert_rejected(&["order", &spec, "--json", out, "--force"], "an input");
        assert_rejected(&["apply", &spec, "R1C1", "--json", out, "--force"], "an input");
        assert_rejected(&["export-def", &spec, "-o", out, "--force"], "an input");
    }
    assert_eq!(std::fs::read(&def).unwrap(), before, "the definition was rewritten");
    // --plot over a definition (named as a picture, so the name passes).
    let svg = dir.path().join("x.svg");
    std::fs::copy(&def, &svg).unwrap();
    let spec = format!("def:{}", s(&svg));
    assert_rejected(&["bfs", &spec, "-q", "--plot", s(&svg), "--force"], "an input");
    assert_rejected(&["sample", &spec, "-n", "1", "--plot", s(&svg), "--force"], "an input");
    assert_eq!(std::fs::read(&svg).unwrap(), before);

    let table = dir.path().join("t.tbl");
    let o = twirl(&["bfs", "nrp:2x3:2", "-q", "--table", s(&table)]);
    assert!(o.status.success(), "{}", stderr(&o));
    for out in ["t.tbl.part-1-of-2", "t.tbl.part-0-of-2.checkpoint", "t.tbl.checkpoint"] {
        let out = dir.path().join(out);
        let args = ["bfs", "nrp:2x3:2", "-q", "--table", s(&table), "--force", "--json", s(&out)];
        assert_rejected(&args, "an input");
    }
    let board = "4 1 3 / 5 2 6";
    assert_rejected(&["distance", s(&table), board, "--json", s(&table), "--force"], "an input");
    let journal = dir.path().join("j.journal");
    std::fs::write(&journal, "").unwrap();
    let args = ["solve", "nrp:2x3:2", board, "--journal", s(&journal), "--json", s(&journal)];
    assert_rejected(&[&args[..], &["--force"]].concat(), "an input");
}

/// `--json -` is standard output everywhere, and then the JSON is all that goes there.
#[test]
fn json_dash_is_standard_output() {
    let board = "4 1 3 / 5 2 6";
    let cases: [&[&str]; 7] = [
        &["bfs", "nrp:2x3:2", "-q"],
        &["solve", "nrp:2x3:2", board],
        &["distance", "nrp:2x3:2", board],
        &["check", "nrp:2x3:2", board],
        &["order", "nrp:2x3:2"],
        &["apply", "nrp:2x3:2", "R1C1"],
        &["claims", "--source", "lee"],
    ];
    for args in cases {
        let o = twirl(&[args, &["--json", "-"]].concat());
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        let v: Result<serde_json::Value, _> = serde_json::from_slice(&o.stdout);
        assert!(v.is_ok(), "{args:?}: not JSON alone: {}", stdout(&o));
    }
    let o = twirl(&["distance", "nrp:2x3:2", board, "--json", "-"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["distance"], 1);
    let o = twirl(&["check", "nrp:2x3:2", "1 2 3 / 4 6 5", "--json", "-"]);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["solvable"], false);
    assert_rejected(&["bfs", "nrp:2x3:2", "--json", "-", "--plot", "-"], "at most one");
}

/// `import --force` and `join --force` never replace a table another process is writing.
#[test]
fn a_table_being_written_is_never_replaced() {
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    let done = dir.path().join("done.tbl");
    let archive = dir.path().join("done.zst");
    let o = twirl(&["bfs", "nrp:2x3:2", "-q", "--table", s(&done)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = twirl(&["export", s(&done), s(&archive), "-q"]);
    assert!(o.status.success() && o.stderr.is_empty(), "{}", stderr(&o));
    let busy = dir.path().join("busy.tbl");
    let mut child = bin()
        .args(["bfs", "nrp:3x3:2", "--table", s(&busy), "--test-pause-after", "2"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let paused = lines.any(|l| l.unwrap().split_whitespace().next() == Some("2"));
    assert!(paused, "the search never reached distance 2");
    let o = twirl(&["import", s(&archive), s(&busy), "--force"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("locked by another twirl process"), "{err}");
    Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
    // Unlocked now: replaced with --force.
    let o = twirl(&["import", s(&archive), s(&busy), "--force", "--quiet"]);
    assert!(o.status.success() && o.stderr.is_empty(), "{}", stderr(&o));
}

/// After Ctrl-C the resume command printed keeps --json and --plot, and `twirl resume`
/// takes them.
#[test]
fn the_resume_command_keeps_the_outputs() {
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    let (table, json, plot) =
        (dir.path().join("t.tbl"), dir.path().join("r.json"), dir.path().join("r.svg"));
    let mut child = bin()
        .args(["bfs", "nrp:3x3:2", "--table", s(&table), "--test-pause-after", "3"])
        .args(["--json", s(&json), "--plot", s(&plot), "--log-scale"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let paused = lines.any(|l| l.unwrap().split_whitespace().next() == Some("3"));
    assert!(paused, "the search never reached distance 3");
    Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    let o = child.wait_with_output().unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(130), "{err}");
    let resume = format!(
        "twirl resume {} --json {} --plot {} --log-scale",
        table.display(),
        json.display(),
        plot.display()
    );
    assert!(err.contains(&resume), "{err}");
    assert!(!json.exists() && !plot.exists());
    let words: Vec<&str> = resume.split(' ').skip(1).collect();
    let o = twirl(&[&words[..], &["-q"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(json.exists() && plot.exists());
}
