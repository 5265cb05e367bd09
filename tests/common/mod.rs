//! Helpers shared by the integration tests: run the `twirl` binary, read its output, and
//! check that bad input is rejected cleanly.
#![allow(dead_code)] // each test file uses a different subset

use std::process::{Command, Output};

/// The binary, ready for arguments.
pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_twirl"))
}

/// Runs the binary to completion.
pub fn twirl(args: &[&str]) -> Output {
    bin().args(args).output().expect("run twirl")
}

/// Standard output as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Standard error as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A bad input: exit code 2, a one-line error naming the problem, no panic.
pub fn assert_rejected(args: &[&str], needle: &str) {
    let o = twirl(args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains(needle), "{args:?}: expected `{needle}` in {err:?}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
}

/// Runs `bfs ARGS --test-pause-after LEVEL`, interrupts it (SIGINT) once distance `level`
/// is printed and returns its output: a search stopped with its first levels finished.
pub fn interrupted_after(args: &[&str], level: u32) -> Output {
    use std::io::BufRead;
    let mut child = bin()
        .args(args)
        .args(["--test-pause-after", &level.to_string()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run twirl");
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let at = level.to_string();
    assert!(lines.any(|l| l.unwrap().split_whitespace().next() == Some(at.as_str())));
    Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    child.wait_with_output().unwrap()
}
