//! `twirl plot` and `--plot`: the distance histogram of a result as an SVG picture.

use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Args;

use twirl::error::one_line;
use twirl::job::outputs::{OutputKind, check_output, write_output};
use twirl::plot::{histogram_svg, read_report};
use twirl::report::Report;

/// Arguments of `twirl plot`.
#[derive(Args)]
pub struct PlotArgs {
    /// A result written by `twirl bfs --json`.
    #[arg(value_name = "RESULT.json")]
    result: PathBuf,
    /// The picture to write (default: the result's name with .svg; `-`: standard output).
    #[arg(long, short, value_name = "FILE.svg")]
    output: Option<PathBuf>,
    /// Replace an existing picture.
    #[arg(long)]
    force: bool,
    /// Logarithmic count axis.
    #[arg(long)]
    log_scale: bool,
}

/// Runs `twirl plot`.
pub fn run(args: &PlotArgs) -> anyhow::Result<()> {
    let shown = one_line(&args.result.display().to_string());
    let out = args.output.clone().unwrap_or_else(|| args.result.with_extension("svg"));
    check_output(&out, OutputKind::Svg, &[&args.result], args.force)?;
    let text = std::fs::read_to_string(&args.result).with_context(|| format!("reading {shown}"))?;
    let report = read_report(&text).with_context(|| shown.clone())?;
    write_plot(&out, &report, args.log_scale)?;
    if !twirl::job::outputs::is_stdout(&out) {
        println!("{}", out.display());
    }
    Ok(())
}

/// Writes the histogram picture of a result.
pub fn write_plot(path: &Path, report: &Report, log: bool) -> anyhow::Result<()> {
    write_svg(path, &histogram_svg(report, log))
}

/// Writes a picture drawn already, where [`check_output`] allowed it.
pub fn write_svg(path: &Path, svg: &str) -> anyhow::Result<()> {
    write_output(path, svg.as_bytes())
        .with_context(|| format!("writing the plot {}", one_line(&path.display().to_string())))
}
