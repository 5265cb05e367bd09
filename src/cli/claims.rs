//! `twirl claims`: every claim of the registry checked, with its verdict against the record.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use twirl::claims::{self, Registry, Verdict};
use twirl::error::{escaped, one_line};

use super::json::JsonArgs;

/// Arguments of `twirl claims`.
#[derive(Args)]
pub struct ClaimsArgs {
    /// Only the claims of one source: lam, sutherland or lee (the keys of the registry's
    /// [sources]).
    #[arg(long, value_name = "NAME")]
    source: Option<String>,
    /// Read the claims from FILE instead of the registry built into twirl
    /// (data/claims.toml).
    #[arg(long, value_name = "FILE")]
    registry: Option<PathBuf>,
    /// --json FILE: a list of objects with id, source, section, statement, puzzle,
    /// sequence, letters, order, reading, holds, expected, matches_record, observed, note.
    #[command(flatten)]
    json: JsonArgs,
}

/// Runs `twirl claims`; returns whether every verdict matches its record.
pub fn run(args: &ClaimsArgs) -> anyhow::Result<bool> {
    args.json.check(&args.registry.iter().map(PathBuf::as_path).collect::<Vec<_>>())?;
    let registry = match &args.registry {
        Some(path) => {
            let shown = one_line(&path.display().to_string());
            let text = std::fs::read_to_string(path).with_context(|| format!("reading {shown}"))?;
            Registry::parse(&text).with_context(|| shown.clone())?
        }
        None => Registry::builtin(),
    };
    if let Some(s) = &args.source
        && !registry.sources.contains_key(s)
    {
        let known: Vec<&str> = registry.sources.keys().map(|k| k.as_str()).collect();
        anyhow::bail!(
            "unknown source `{}` (the registry has {})",
            escaped(s),
            one_line(&known.join(", "))
        );
    }
    let outcomes = claims::check_all(&registry, args.source.as_deref())?;
    let unexpected = outcomes.iter().filter(|o| !o.matches_record).count();
    args.json.write(&outcomes)?;
    if !args.json.text() {
        return Ok(unexpected == 0);
    }
    let mut out = std::io::stdout().lock();
    for o in &outcomes {
        let verdict = if o.holds { "holds" } else { "FAILS" };
        let record = if o.matches_record {
            "as recorded".to_string()
        } else {
            format!("UNEXPECTED: recorded {}", o.expected.name())
        };
        writeln!(out, "{} {verdict} ({record}) [{} {}]", o.id, o.source, o.section)?;
        writeln!(out, "  claim:    {}", o.statement)?;
        if let Some(seq) = &o.sequence {
            let letters =
                if o.letters.is_empty() { String::new() } else { format!(" with {}", o.letters) };
            writeln!(out, "  sequence: {seq} on {}{letters}, read {}", o.puzzle, o.order)?;
        }
        writeln!(out, "  observed: {}", o.observed)?;
    }
    let holds = outcomes.iter().filter(|o| o.holds).count();
    let fail_recorded =
        outcomes.iter().filter(|o| !o.holds && o.expected == Verdict::Fails).count();
    writeln!(
        out,
        "# {} claims: {holds} hold, {fail_recorded} fail as recorded, {unexpected} unexpected",
        outcomes.len()
    )?;
    Ok(unexpected == 0)
}
