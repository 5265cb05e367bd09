//! `twirl verify spin`: published Spinpossible statements against exact group orders.

use std::io::Write;

use clap::{Args, Subcommand};
use serde::Serialize;

use twirl::verify::lam;

use super::json::JsonArgs;
use twirl::verify::spin::{self, StatementCheck, UnionReport};

/// What to verify.
#[derive(Subcommand)]
pub enum VerifyCommand {
    /// Spinpossible (Sutherland & Sutherland): generating unions of spin types on every board
    /// up to 4x5, on 3x3 against Theorem 3 (4x4 is left open in the paper); equivalent types;
    /// Lemma 2 and Propositions 3-4 on every board up to 5x5. Exact orders from stabilizer
    /// chains; a disagreement is reported, not adjusted.
    Spin(SpinArgs),
    /// Lam's Theorem 1.1 on every NRP board n <= m <= MAX, 1 <= b <= n: the count the theorem
    /// states (case by case, as written), the exact group order (stabilizer chain) and, where
    /// the group has at most --bfs-limit boards, the count a full search reaches. Markdown on
    /// stdout; every disagreement is listed at the end with its ratio.
    Lam(LamArgs),
}

/// The largest `--max` of `verify lam`: boards past 255 cells are checked by stabilizer
/// chains of up to 1,024 points (4 points per cell with --orient), seconds each.
const MAX_SIDE: usize = 32;

/// Arguments of `twirl verify lam`.
#[derive(Args)]
pub struct LamArgs {
    /// Largest board side (at most 32; 16 with --orient). Boards past 255 cells are
    /// checked against the stabilizer chain of their block turns alone (no search); a sweep
    /// to 20 takes minutes.
    #[arg(long, value_name = "N")]
    max: usize,
    /// Search boards whose group has at most this many elements.
    #[arg(long, value_name = "COUNT", default_value_t = 200_000_000)]
    bfs_limit: u64,
    /// Worker threads for the searches (default: one per core).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// --json FILE: the results, counts as decimal strings.
    #[command(flatten)]
    json: JsonArgs,
    /// Instead, the orientation variant (tiles turn with their block and must end upright) on
    /// every board up to MAX x MAX: exact group orders and their index in (nm)! * 4^(nm).
    #[arg(long)]
    orient: bool,
}

#[derive(Serialize)]
struct OrientJson {
    rows: usize,
    cols: usize,
    block: usize,
    group_order: String,
    index_in_all_oriented_boards: String,
}

#[derive(Serialize)]
struct LamJson {
    rows: usize,
    cols: usize,
    block: usize,
    theorem_case: String,
    theorem_count: String,
    group_order: String,
    bfs_count: Option<String>,
    agrees: bool,
}

/// Arguments of `twirl verify spin`.
#[derive(Args)]
pub struct SpinArgs {
    #[command(flatten)]
    json: JsonArgs,
}

#[derive(Serialize)]
struct SpinJson<'a> {
    boards: &'a [UnionReport],
    statements: &'a [StatementCheck],
    theorem_3_agrees: bool,
}

/// Runs `twirl verify ...`; returns whether every statement checked agrees with the exact
/// counts (the exit code is 1 when one does not).
pub fn run(cmd: &VerifyCommand) -> anyhow::Result<bool> {
    match cmd {
        VerifyCommand::Spin(args) => run_spin(args),
        VerifyCommand::Lam(args) => run_lam(args),
    }
}

fn run_lam(args: &LamArgs) -> anyhow::Result<bool> {
    args.json.check(&[])?;
    if args.orient {
        // Lam leaves the orientation variant open: the orders are computed, nothing is
        // compared, so there is nothing to disagree with.
        run_lam_orient(args)?;
        return Ok(true);
    }
    if args.max == 0 || args.max > MAX_SIDE {
        anyhow::bail!("--max must be between 1 and {MAX_SIDE}, found {}", args.max);
    }
    let threads = args.threads.unwrap_or_else(super::default_threads);
    let rows = lam::sweep(args.max, args.bfs_limit, threads)?;
    let mut out = args.json.text_out();
    writeln!(out, "# Lam, Theorem 1.1, against exact counts (n <= m <= {})\n", args.max)?;
    writeln!(out, "| n | m | b | case | theorem | group order | search | agrees |")?;
    writeln!(out, "|---|---|---|---|---|---|---|---|")?;
    for r in &rows {
        let bfs = r.bfs_count.map_or("-".to_string(), |c| c.to_string());
        writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            r.rows,
            r.cols,
            r.block,
            r.theorem_case,
            r.theorem_count,
            r.group_order,
            bfs,
            r.agrees()
        )?;
    }
    let broken: Vec<&lam::LamRow> = rows.iter().filter(|r| !r.agrees()).collect();
    writeln!(out, "\nDisagreements: {} of {} boards", broken.len(), rows.len())?;
    for r in &broken {
        let ratio = r.ratio();
        writeln!(
            out,
            "- ({},{},{}) {}: theorem {}, exact {} ({ratio})",
            r.rows, r.cols, r.block, r.theorem_case, r.theorem_count, r.group_order
        )?;
    }
    drop(out);
    {
        let json: Vec<LamJson> = rows
            .iter()
            .map(|r| LamJson {
                rows: r.rows,
                cols: r.cols,
                block: r.block,
                theorem_case: r.theorem_case.clone(),
                theorem_count: r.theorem_count.to_string(),
                group_order: r.group_order.to_string(),
                bfs_count: r.bfs_count.map(|c| c.to_string()),
                agrees: r.agrees(),
            })
            .collect();
        args.json.write(&json)?;
    }
    Ok(broken.is_empty())
}

fn run_lam_orient(args: &LamArgs) -> anyhow::Result<()> {
    if args.max == 0 || args.max > MAX_SIDE / 2 {
        anyhow::bail!(
            "--max with --orient must be between 1 and {}, found {}",
            MAX_SIDE / 2,
            args.max
        );
    }
    let rows = lam::orientation_sweep(args.max)?;
    let mut out = args.json.text_out();
    writeln!(out, "# NRP with orientation: exact group orders (n <= m <= {})\n", args.max)?;
    writeln!(out, "| n | m | b | solvable boards | index in (nm)! 4^(nm) |")?;
    writeln!(out, "|---|---|---|---|---|")?;
    for r in &rows {
        writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            r.rows, r.cols, r.block, r.group_order, r.index
        )?;
    }
    drop(out);
    {
        let json: Vec<OrientJson> = rows
            .iter()
            .map(|r| OrientJson {
                rows: r.rows,
                cols: r.cols,
                block: r.block,
                group_order: r.group_order.to_string(),
                index_in_all_oriented_boards: r.index.to_string(),
            })
            .collect();
        args.json.write(&json)?;
    }
    Ok(())
}

fn run_spin(args: &SpinArgs) -> anyhow::Result<bool> {
    args.json.check(&[])?;
    // Every board up to 4x5 (rows <= cols; transposes have the same groups).
    let dims: Vec<(usize, usize)> = (1..=4)
        .flat_map(|m| (m.max(2)..=5).map(move |n| (m, n)))
        .filter(|&(m, n)| m <= n)
        .collect();
    let boards: Vec<UnionReport> = dims.iter().map(|&(m, n)| spin::unions(m, n)).collect();
    let statements = spin::statements(5);
    let three = boards.iter().find(|b| (b.rows, b.cols) == (3, 3)).expect("3x3 is in the sweep");
    let theorem_3_agrees = spin::theorem_3_agrees(three);

    let mut out = args.json.text_out();
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
    for s in &broken {
        writeln!(
            out,
            "- {} on {}x{}: predicted {}, exact {}",
            s.statement, s.rows, s.cols, s.predicted_order, s.group_order
        )?;
    }
    drop(out);
    args.json.write(&SpinJson { boards: &boards, statements: &statements, theorem_3_agrees })?;
    Ok(theorem_3_agrees && broken.is_empty())
}
