//! `twirl verify spin`: published Spinpossible statements against exact group orders.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, Subcommand};
use serde::Serialize;

use twirl::verify::spin::{self, StatementCheck, THEOREM_3, UnionReport};

/// What to verify.
#[derive(Subcommand)]
pub enum VerifyCommand {
    /// Spinpossible (Sutherland & Sutherland): generating unions of spin types on every board
    /// up to 4x5, on 3x3 against Theorem 3 (4x4 is left open in the paper); equivalent types;
    /// Lemma 2 and Propositions 3-4 on every board up to 5x5. Exact orders from stabilizer
    /// chains; a disagreement is reported, not adjusted.
    Spin(SpinArgs),
}

/// Arguments of `twirl verify spin`.
#[derive(Args)]
pub struct SpinArgs {
    /// Also write the results as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
}

#[derive(Serialize)]
struct SpinJson<'a> {
    boards: &'a [UnionReport],
    statements: &'a [StatementCheck],
    theorem_3_agrees: bool,
}

/// Runs `twirl verify ...`.
pub fn run(cmd: &VerifyCommand) -> anyhow::Result<()> {
    let VerifyCommand::Spin(args) = cmd;
    // Every board up to 4x5 (rows <= cols; transposes have the same groups).
    let dims: Vec<(usize, usize)> = (1..=4)
        .flat_map(|m| (m.max(2)..=5).map(move |n| (m, n)))
        .filter(|&(m, n)| m <= n)
        .collect();
    let boards: Vec<UnionReport> = dims.iter().map(|&(m, n)| spin::unions(m, n)).collect();
    let statements = spin::statements(5);
    let mut theorem: Vec<Vec<String>> =
        THEOREM_3.iter().map(|u| u.iter().map(|s| s.to_string()).collect()).collect();
    theorem.sort();
    let three = boards.iter().find(|b| (b.rows, b.cols) == (3, 3)).expect("3x3 is in the sweep");
    let mut found = three.minimal_generating_unions.clone();
    found.sort();
    let theorem_3_agrees = found == theorem;

    let mut out = std::io::stdout().lock();
    writeln!(out, "# Spinpossible generating sets (exact, by stabilizer chains)\n")?;
    for b in &boards {
        let total = (1u64 << b.spin_types.len()) - 1;
        writeln!(out, "## {}x{}: {} spin types", b.rows, b.cols, b.spin_types.len())?;
        writeln!(
            out,
            "- unions generating Spin_{}x{}: {} of {}",
            b.rows, b.cols, b.generating_unions_count, total
        )?;
        let minimal: Vec<String> =
            b.minimal_generating_unions.iter().map(|u| u.join("+")).collect();
        writeln!(out, "- minimal generating unions ({}): {}", minimal.len(), minimal.join(", "))?;
        let classes: Vec<String> =
            b.equivalent_types.iter().filter(|c| c.len() > 1).map(|c| c.join(" ~ ")).collect();
        let classes = if classes.is_empty() { "none".to_string() } else { classes.join(", ") };
        writeln!(out, "- equivalent spin types: {classes}\n")?;
    }
    writeln!(
        out,
        "Theorem 3 (3x3: the minimal generating unions are exactly its six sets): {}\n",
        if theorem_3_agrees { "agrees" } else { "DISAGREES" }
    )?;
    writeln!(out, "| statement | board | applies | predicted order | group order | agrees |")?;
    writeln!(out, "|---|---|---|---|---|---|")?;
    for s in &statements {
        writeln!(
            out,
            "| {} | {}x{} | {} | {} | {} | {} |",
            s.statement, s.rows, s.cols, s.applies, s.predicted_order, s.group_order, s.agrees
        )?;
    }
    let broken: Vec<&StatementCheck> =
        statements.iter().filter(|s| s.applies && !s.agrees).collect();
    writeln!(out, "\nDisagreements where a statement applies: {}", broken.len())?;
    for s in broken {
        writeln!(
            out,
            "- {} on {}x{}: predicted {}, exact {}",
            s.statement, s.rows, s.cols, s.predicted_order, s.group_order
        )?;
    }
    if let Some(path) = &args.json {
        let json = SpinJson { boards: &boards, statements: &statements, theorem_3_agrees };
        std::fs::write(path, serde_json::to_string_pretty(&json)? + "\n")
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}
