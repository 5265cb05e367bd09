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
