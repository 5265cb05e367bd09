//! `check`, `apply`, `info` and `order` on NRP boards past the 255 cells of twirl's puzzles
//! ([`twirl::puzzle::large`]): the same output as on small boards, from Lam's conditions and
//! block turns applied one by one instead of the moves listed.

use std::io::Write;
use std::time::Instant;

use twirl::group::cycles::format_cycles;
use twirl::puzzle::Metric;
use twirl::puzzle::large::{LargeNrp, WideBoard};
use twirl::puzzle::sequence::{Order, Sequence};
use twirl::puzzle::spec::parse_nrp_any_size;

use super::PuzzleArgs;
use super::json::JsonArgs;

/// The most cells of twirl's puzzles (tiles in bytes); larger NRP boards take this path.
pub use twirl::puzzle::spec::MAX_CELLS as MAX_BOARD_CELLS;

impl PuzzleArgs {
    /// The puzzle as an NRP board of any size, when it is one past [`MAX_BOARD_CELLS`].
    pub fn large(&self) -> anyhow::Result<Option<(LargeNrp, Metric)>> {
        let Some((rows, cols, block, oriented)) = parse_nrp_any_size(&self.puzzle)? else {
            return Ok(None);
        };
        if rows * cols <= MAX_BOARD_CELLS {
            return Ok(None);
        }
        let metric = self.metric.as_deref().map(Metric::parse).transpose()?.unwrap_or(Metric::Qtm);
        Ok(Some((LargeNrp::new(rows, cols, block, oriented || self.orient)?, metric)))
    }
}

/// `twirl check` on a large board; returns whether it is solvable.
pub fn check(p: &LargeNrp, metric: Metric, text: &str, json: &JsonArgs) -> anyhow::Result<bool> {
    let board = p.parse_board(text)?;
    let reasons: Vec<String> = p.check(&board)?.err().into_iter().collect();
    let shown = p.format_board(&board);
    json.write(&super::check::verdict_json(&p.spec(), metric.name(), &shown, &reasons))?;
    super::check::print_verdict(&mut json.text_out(), &shown, &reasons)?;
    Ok(reasons.is_empty())
}

/// The text answer of `twirl order` on a large board: `count` and Lam's `case` for it.
pub fn print_order(
    out: &mut dyn Write,
    p: &LargeNrp,
    metric: Metric,
    count: &str,
    case: impl std::fmt::Display,
) -> anyhow::Result<()> {
    writeln!(out, "{count}")?;
    writeln!(
        out,
        "# {} ({} moves): {count} reachable boards ({} digits), by Lam's theorem: {case}",
        p.spec(),
        n_moves(p, metric),
        count.len()
    )?;
    Ok(())
}

/// `twirl info` on a large board.
pub fn info(
    out: &mut dyn Write,
    p: &LargeNrp,
    metric: Metric,
) -> anyhow::Result<serde_json::Value> {
    let started = Instant::now();
    let (count, case) = p.order();
    let shape = p.shape;
    writeln!(out, "puzzle: {} (metric {metric})", p.spec())?;
    writeln!(
        out,
        "board: {}x{} ({} cells), tile orientations: {}",
        shape.rows,
        shape.cols,
        p.n_cells(),
        if p.oriented { 4 } else { 1 }
    )?;
    let (last_r, last_c) = (shape.rows - shape.block + 1, shape.cols - shape.block + 1);
    writeln!(
        out,
        "moves: {} ({}): blocks R1C1..R{last_r}C{last_c}, {}",
        n_moves(p, metric),
        if metric == Metric::Cw { "directed" } else { "each undone by another move" },
        match metric {
            Metric::Qtm => "each turned a quarter either way",
            Metric::Htm => "each turned a quarter either way or a half",
            Metric::Cw => "each turned a clockwise quarter",
        }
    )?;
    writeln!(out, "reachable boards (Lam's theorem): {count}")?;
    writeln!(out, "  {case}")?;
    let refusal = format!(
        "a board of {} cells is past the {MAX_BOARD_CELLS} a search ranks; check, apply, \
         order and solve --method constructive work at this size",
        p.n_cells()
    );
    writeln!(out, "table: none: {refusal}")?;
    writeln!(out, "# {:.3} s", started.elapsed().as_secs_f64())?;
    // The group order is Lam's theorem's count of reachable boards.
    let mut facts = super::info::puzzle_facts(
        &p.spec(),
        &metric.to_string(),
        twirl::puzzle::nrp::move_names(shape.rows, shape.cols, shape.block, metric),
        None,
        (None, &count),
    );
    facts["table"] = serde_json::json!({"refused": refusal});
    Ok(facts)
}

/// What `twirl apply` prints of one sequence on a large board.
pub struct Applied {
    /// The board the sequence started from.
    pub start: WideBoard,
    /// The board it reached.
    pub result: WideBoard,
    /// The sequence as an arrangement of the solved board.
    pub element: WideBoard,
}

/// Applies a sequence (block names, groups, powers) to a start board (solved when none).
pub fn apply(
    p: &LargeNrp,
    sequence: &str,
    board: Option<&str>,
    order: Order,
) -> anyhow::Result<Applied> {
    let start = match board {
        Some(text) => p.parse_board(text)?,
        None => p.solved(),
    };
    let element = p.eval(&Sequence::parse(sequence)?, order)?;
    let result = p.applied(&start, &element);
    Ok(Applied { start, result, element })
}

/// Prints what [`apply`] found, as `twirl apply` does on small boards.
pub fn print_applied(
    p: &LargeNrp,
    sequence: &str,
    order: Order,
    a: &Applied,
) -> anyhow::Result<twirl::group::cycles::CycleStructure> {
    let st = p.cycle_structure(&a.element);
    let mut out = std::io::stdout().lock();
    writeln!(out, "puzzle:   {}", p.spec())?;
    writeln!(out, "sequence: {sequence} (read {})", order.name())?;
    writeln!(out, "start:    {}", p.format_board(&a.start))?;
    writeln!(out, "result:   {}", p.format_board(&a.result))?;
    writeln!(out, "cycles:   {}", format_cycles(&st.cycles))?;
    if let Some((even, odd)) = &st.by_colour {
        writeln!(out, "  even cells: {}", format_cycles(even))?;
        writeln!(out, "  odd cells:  {}", format_cycles(odd))?;
    }
    if p.oriented {
        writeln!(out, "turned:   {}", st.format_turned())?;
    }
    writeln!(out, "type:     {:?}", st.cycle_type())?;
    writeln!(out, "summary:  {}", st.summary())?;
    Ok(st)
}

/// Moves of the metric: per block, two quarter turns (qtm), three turns (htm), one (cw).
fn n_moves(p: &LargeNrp, metric: Metric) -> usize {
    p.n_blocks()
        * match metric {
            Metric::Qtm => 2,
            Metric::Htm => 3,
            Metric::Cw => 1,
        }
}
