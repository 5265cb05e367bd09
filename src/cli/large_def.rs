//! `info`, `order`, `check` and `apply` on definitions past the 255 cells of the search's
//! boards ([`twirl::group::wide`]): the same output as on small definitions, from wide boards
//! and moves, with the search's refusal said once. `info`, `order` and `check` also take
//! this way definitions whose orbits' parities and orientation sums are too many to list
//! (the icosahedra and the starminx: 13 to 21 orbits), counted here by elimination.

use std::io::Write;
use std::time::Instant;

use twirl::group::cycles::{CycleStructure, format_cycles};
use twirl::group::invariants::MAX_COUPLING_SPACE;
use twirl::group::wide::WideAnalysis;
use twirl::puzzle::Metric;
use twirl::puzzle::defined::Defined;
use twirl::puzzle::sequence::Order;
use twirl::puzzle::wide::{WideBoard, WideMove};
use twirl::rank::enumerated::MAX_LISTED;
use twirl::rank::layout::MAX_FREE_MOD;

/// The metric's moves in one line: their number and whether each is undone by another.
fn moves_line(d: &Defined, metric: Metric) -> anyhow::Result<String> {
    let names = d.move_names(metric)?;
    // htm lists every power and qtm each move's inverse; cw only the declared moves, which
    // are undone by a move when some declared move acts as their inverse.
    let undirected = metric != Metric::Cw || {
        let k = d.orient_mod();
        let actions: std::collections::HashSet<(&[u16], &[u8])> =
            d.base_moves().iter().map(|m| (m.perm.as_slice(), m.twist.as_slice())).collect();
        d.base_moves().iter().all(|m| {
            let inv = m.inverse(k);
            actions.contains(&(inv.perm.as_slice(), inv.twist.as_slice()))
        })
    };
    Ok(format!(
        "moves: {} ({}): {}",
        names.len(),
        if undirected { "each undone by another move" } else { "directed" },
        names.join(" ")
    ))
}

/// `twirl info` on a wide definition, or (`narrow`) on one whose boards a search holds but
/// whose orbits' parities and orientation sums are too many to index; `refusal` says why it
/// cannot be searched.
pub fn info(
    out: &mut dyn Write,
    d: &Defined,
    metric: Metric,
    narrow: bool,
    refusal: &str,
) -> anyhow::Result<serde_json::Value> {
    let started = Instant::now();
    let moves = moves_line(d, metric)?;
    let a = WideAnalysis::of(d)?;
    writeln!(out, "puzzle: {} (metric {metric})", d.named())?;
    writeln!(out, "sets: {}", d.describe_sets())?;
    writeln!(out, "{moves}")?;
    writeln!(out, "orbits: {}", a.orbits.len())?;
    let k = d.orient_mod();
    for (j, o) in a.orbits.iter().enumerate() {
        let cells: Vec<usize> = o.cells.iter().map(|&c| c as usize).collect();
        super::info::write_orbit(out, j, &cells, k, o.tied_mod, o.free_mod)?;
    }
    super::info::write_constraints(out, &a.constraints())?;
    writeln!(out, "boards allowed by the invariants: {}", a.model_order)?;
    writeln!(
        out,
        "group order (stabilizer chain):   {} ({:.3} s)",
        a.group_order, a.chain_seconds
    )?;
    if d.has_identical_pieces() {
        match a.identical(d) {
            Ok(i) => writeln!(
                out,
                "identical pieces: boards are fewer than group elements: {} distinct boards",
                i.distinct_boards(&a)
            )?,
            Err(reason) => {
                writeln!(out, "identical pieces: distinct boards not counted: {reason}")?
            }
        }
    }
    // The search for symmetries works on the search's byte boards and serves a search, which
    // is refused here: they are not looked for (the icosahedra's search gave up after 8 s).
    match narrow {
        true => writeln!(out, "symmetries: not searched (no search takes this definition)")?,
        false => writeln!(
            out,
            "symmetries: not searched ({} cells; the symmetry search, like the search it \
             serves, takes at most {})",
            d.n_cells(),
            twirl::puzzle::defined::MAX_CELLS
        )?,
    }
    let refusal = match narrow {
        true => narrow_refusal(&a, refusal),
        false => refusal.to_string(),
    };
    writeln!(out, "table: none: {refusal}")?;
    writeln!(out, "# {:.3} s", started.elapsed().as_secs_f64())?;
    let names = d.move_names(metric)?;
    let orders = (Some(&a.model_order as &dyn ToString), &a.group_order as &dyn ToString);
    let orbits = Some(a.orbits.len());
    let mut facts =
        super::info::puzzle_facts(&d.named(), &metric.to_string(), names, orbits, orders);
    facts["symmetries"] = serde_json::Value::Null;
    facts["table"] = serde_json::json!({"refused": refusal});
    Ok(facts)
}

/// Why a definition whose orbits' parities and orientation sums are too many to index
/// (`indexing`, the analysis's refusal) cannot be searched, with what else stands in the way
/// and what would make it searchable: a group past 64-bit ranks says it all; else the
/// orientations past what the layouts hold, and whether a listing could take the boards.
fn narrow_refusal(a: &WideAnalysis, indexing: &str) -> String {
    let Ok(boards) = u64::try_from(&a.group_order) else {
        return format!(
            "table does not fit: {} boards: more than 64-bit ranks can count",
            a.group_order
        );
    };
    let (most_sums, most_mod, most_listed) = (MAX_COUPLING_SPACE, MAX_FREE_MOD, MAX_LISTED);
    let past_mod: Vec<String> = (a.orbits.iter().enumerate())
        .filter(|(_, o)| o.free_mod > most_mod)
        .map(|(j, o)| format!("O{} modulo {}", j + 1, o.free_mod))
        .collect();
    let mut why = vec![indexing.to_string()];
    if !past_mod.is_empty() {
        why.push(format!(
            "orientations turn past the modulo {most_mod} the searches' layouts hold ({})",
            past_mod.join(", ")
        ));
    }
    let listed = boards <= most_listed;
    why.push(match listed {
        true => format!(
            "its {boards} boards are few enough to list one by one, but a listing needs \
             those combinations indexed first"
        ),
        false => format!("its {boards} boards are more than the {most_listed} listed one by one"),
    });
    // Past the listing, orientations past the layouts' modulus need a smaller group too.
    let needs = match listed || past_mod.is_empty() {
        true => format!("at most {most_sums} combinations of parities and orientation sums"),
        false => format!(
            "at most {most_sums} combinations of parities and orientation sums, and \
             orientations modulo {most_mod} at most or at most {most_listed} boards"
        ),
    };
    format!(
        "{}; searchable with {needs} (fewer orbits, or fewer free orientations)",
        why.join("; ")
    )
}

/// `twirl order` on a wide definition: the group order, and the distinct boards where
/// pieces are identical (`None` when not counted). Prints the text answer to `out`.
pub fn order(
    out: &mut dyn Write,
    d: &Defined,
    metric: Metric,
) -> anyhow::Result<(String, Option<String>)> {
    let n_moves = d.move_names(metric)?.len();
    let a = WideAnalysis::of(d)?;
    let order = a.group_order.to_string();
    writeln!(out, "{order}")?;
    let spec = d.named();
    let mut distinct = Some(order.clone());
    if d.has_identical_pieces() {
        writeln!(out, "# {spec} ({n_moves} moves): group order {order}")?;
        match a.identical(d) {
            Ok(i) => {
                let count = i.distinct_boards(&a).to_string();
                writeln!(out, "# identical pieces make {count} distinct boards")?;
                distinct = Some(count);
            }
            Err(reason) => {
                writeln!(out, "# identical pieces make fewer distinct boards: {reason}")?;
                distinct = None;
            }
        }
    } else {
        writeln!(out, "# {spec} ({n_moves} moves): {order} reachable boards")?;
    }
    if !a.invariants_are_exact() {
        writeln!(
            out,
            "# the orbits, parities and orientation sums of the moves allow {}",
            a.model_order
        )?;
    }
    writeln!(
        out,
        "# {} cells: stabilizer chain of the {} declared moves in {:.3} s",
        d.n_cells(),
        d.base_moves().len(),
        a.chain_seconds
    )?;
    Ok((order, distinct))
}

/// `twirl check` on a wide definition: the board as written, and why it is unsolvable
/// (empty when solvable).
pub fn check(d: &Defined, text: &str) -> anyhow::Result<(String, Vec<String>)> {
    let board = d.parse_board_wide(text)?;
    let a = WideAnalysis::of(d)?;
    let verdict = if d.has_identical_pieces() {
        let identical = a.identical(d).map_err(|reason| {
            twirl::Error::Unsupported(format!(
                "expected a definition whose boards twirl can judge, found identical pieces \
                 it cannot: {reason}"
            ))
        })?;
        identical.check(&a, &board)
    } else {
        a.check(&board)
    };
    Ok((d.format_board_wide(&board), verdict.err().unwrap_or_default()))
}

/// What `twirl apply` prints of one sequence on a wide definition.
pub struct Applied {
    /// The board the sequence started from.
    pub start: WideBoard,
    /// The board it reached.
    pub result: WideBoard,
    /// The sequence as an element.
    pub element: WideMove,
}

/// Applies a sequence (the file's move names, groups and powers) to a start board (solved
/// when none).
pub fn apply(
    d: &Defined,
    sequence: &str,
    board: Option<&str>,
    order: Order,
) -> anyhow::Result<Applied> {
    let start = match board {
        Some(text) => d.parse_board_wide(text)?,
        None => d.solved_wide(),
    };
    let element = d.sequence_wide_in(sequence, order)?;
    let result = element.applied_to(&start, d.orient_mod());
    Ok(Applied { start, result, element })
}

/// Prints what [`apply`] found, as `twirl apply` does on small definitions.
pub fn print_applied(
    out: &mut dyn Write,
    d: &Defined,
    sequence: &str,
    order: Order,
    a: &Applied,
) -> anyhow::Result<CycleStructure> {
    let st = CycleStructure::of_parts(&a.element.perm, &a.element.twist, d.orient_mod(), None);
    writeln!(out, "puzzle:   {}", d.named())?;
    writeln!(out, "sequence: {sequence} (read {})", order.name())?;
    writeln!(out, "start:    {}", d.format_board_wide(&a.start))?;
    writeln!(out, "result:   {}", d.format_board_wide(&a.result))?;
    writeln!(out, "cycles:   {}", format_cycles(&st.cycles))?;
    match d.orient_mod() {
        2 => writeln!(out, "flipped:  {}", st.format_turned())?,
        4 => writeln!(out, "turned:   {}", st.format_turned())?,
        _ => {}
    }
    writeln!(out, "type:     {:?}", st.cycle_type())?;
    writeln!(out, "summary:  {}", st.summary())?;
    Ok(st)
}
