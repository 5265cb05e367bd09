//! `--json FILE` and `--force` of the commands that answer (`apply`, `check`, `claims`,
//! `distance`, `order`, `solve`, `verify`): one flag, one meaning, the one output rule of
//! [`twirl::job::outputs`]. `-` is standard output, and then the JSON is all a command
//! prints there (its text answer is left out), so it can be piped.

use std::path::{Path, PathBuf};

use clap::Args;

use twirl::job::outputs::{OutputKind, check_output, is_stdout};

use super::bfs::write_json;

/// The JSON output of a command that answers.
#[derive(Args, Clone, Default)]
pub struct JsonArgs {
    /// Also write the answer as JSON to FILE (`-`: standard output, instead of the text;
    /// never over an input of the command or a twirl table).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Replace an existing --json FILE.
    #[arg(long)]
    pub force: bool,
}

impl JsonArgs {
    /// Refuses the path before any work (see [`check_output`]).
    pub fn check(&self, inputs: &[&Path]) -> anyhow::Result<()> {
        if let Some(path) = &self.json {
            check_output(path, OutputKind::Json, inputs, self.force)?;
        }
        Ok(())
    }

    /// Whether the text answer goes to standard output (not when the JSON does).
    pub fn text(&self) -> bool {
        !self.json.as_deref().is_some_and(is_stdout)
    }

    /// Where the text answer goes: standard output, or nowhere when the JSON goes there.
    pub fn text_out(&self) -> Box<dyn std::io::Write> {
        match self.text() {
            true => Box::new(std::io::stdout().lock()),
            false => Box::new(std::io::sink()),
        }
    }

    /// Writes `value` if --json was given.
    pub fn write(&self, value: &impl serde::Serialize) -> anyhow::Result<()> {
        match &self.json {
            Some(path) => write_json(path, value),
            None => Ok(()),
        }
    }
}

/// The files named by arguments (`def:FILE` puzzles, `@FILE` boards and sequences), which
/// no output may replace.
pub fn files_named<'a>(args: impl IntoIterator<Item = &'a str>) -> Vec<PathBuf> {
    args.into_iter()
        .filter_map(|a| a.strip_prefix("def:").or_else(|| a.strip_prefix('@')))
        .map(PathBuf::from)
        .collect()
}

/// `files` as the borrowed list [`check_output`] takes.
pub fn as_paths(files: &[PathBuf]) -> Vec<&Path> {
    files.iter().map(PathBuf::as_path).collect()
}
