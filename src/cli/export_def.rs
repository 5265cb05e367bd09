//! `twirl export-def`: a built-in puzzle written as a ksolve/twsearch definition (`.tws`), or
//! a definition as a subset makes it (`--ignore`, `--moves`, ...), so twsearch can be run on
//! the same puzzle.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;

use twirl::job::outputs::{OutputKind, check_output, write_output};
use twirl::puzzle::definition::{Definition, export_notes};

use super::PuzzleArgs;

/// Arguments of `twirl export-def`.
#[derive(Args)]
pub struct ExportDefArgs {
    /// The puzzle: nrp:<rows>x<cols>:<block>[:orient], spin:<rows>x<cols>[:<type>,...] or
    /// def:<file> (written with the subset flags applied).
    #[arg(value_name = "PUZZLE")]
    puzzle: String,
    /// Which moves count as one. Only htm can be written (the default here): twsearch counts
    /// every power of a move as one move. qtm and cw are refused.
    #[arg(long, value_name = "METRIC")]
    metric: Option<String>,
    /// NRP only: tiles turn with their block and must end upright (4 orientations).
    #[arg(long)]
    orient: bool,
    /// Write the definition to FILE instead of standard output (`-`: standard output; never
    /// over a twirl table or the definition read).
    #[arg(long, short, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Replace an existing FILE.
    #[arg(long)]
    force: bool,
    /// def: only: a subset of the puzzle (see docs/definitions.md).
    #[command(flatten)]
    subset: super::SubsetArgs,
}

/// Runs `twirl export-def`.
pub fn run(args: &ExportDefArgs) -> anyhow::Result<()> {
    // twsearch's metric is htm, so that is the default here (not qtm as for NRP searches).
    let puzzle = PuzzleArgs {
        puzzle: args.puzzle.clone(),
        metric: Some(args.metric.clone().unwrap_or_else(|| "htm".into())),
        orient: args.orient,
        subset: args.subset.clone(),
    }
    .puzzle()?;
    if let Some(path) = &args.output {
        let inputs: Vec<&Path> = puzzle.defined().map(|d| Path::new(&d.path)).into_iter().collect();
        check_output(path, OutputKind::Definition, &inputs, args.force)?;
    }
    let definition = Definition::from_puzzle(&puzzle)?;
    let text = definition.to_tws_with_notes(&export_notes(&puzzle)?);
    match &args.output {
        Some(path) => write_output(path, text.as_bytes())?,
        None => std::io::stdout().lock().write_all(text.as_bytes())?,
    }
    Ok(())
}
