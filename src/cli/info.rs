//! `twirl info`: what the moves of a puzzle allow, and what a search would cost.

use std::io::Write;

use twirl::group::analysis::Analysis;
use twirl::rank::{CellRuns, Ranking, StateRanking, StateSpace, SymmetryMode, board_count};
use twirl::symmetry::Symmetries;
use twirl::table::table_bytes;

use super::PuzzleArgs;
use super::json::{JsonArgs, as_paths, files_named};
use super::sizes::human;

/// `twirl info`: a puzzle or a table file, and where to write its facts as JSON.
#[derive(clap::Args)]
pub struct InfoArgs {
    #[command(flatten)]
    pub puzzle: PuzzleArgs,
    #[command(flatten)]
    pub json: JsonArgs,
}

/// Runs `twirl info`.
pub fn run(args: &InfoArgs) -> anyhow::Result<()> {
    let (json, table) = (&args.json, super::table_info::file_argument(&args.puzzle.puzzle));
    let mut inputs = files_named([args.puzzle.puzzle.as_str()]);
    inputs.extend(table.clone());
    json.check(&as_paths(&inputs))?;
    if let Some(path) = table {
        return super::table_info::run(&path, &args.puzzle, json);
    }
    let facts = describe_puzzle(&args.puzzle, &mut json.text_out())?;
    json.write(&facts)
}

/// Writes what `info` says of a puzzle to `out`, and returns the facts for `--json`.
fn describe_puzzle(args: &PuzzleArgs, out: &mut dyn Write) -> anyhow::Result<serde_json::Value> {
    if let Some((large, metric)) = args.large()? {
        return super::large::info(out, &large, metric);
    }
    if let Some((d, metric)) = args.large_def()? {
        let refusal = d.size_refusal().unwrap_or_default();
        return super::large_def::info(out, &d, metric, false, &refusal);
    }
    let puzzle = args.puzzle()?;
    // The invariants and the group order exist for any board; a ranking only for those a
    // table can hold, so its failure is reported, not fatal.
    let analysis = match (Analysis::of(&puzzle), puzzle.defined()) {
        (Ok(analysis), _) => analysis,
        // Too many orbits to list their invariants: counted by elimination.
        (Err(e), Some(d)) => {
            return super::large_def::info(out, d, puzzle.metric, true, &e.to_string());
        }
        (Err(e), None) => return Err(e.into()),
    };
    let inv = &analysis.invariants;
    let syms = Symmetries::of(&puzzle);
    let mut facts = puzzle_facts(
        &puzzle.spec.named(),
        &puzzle.metric.to_string(),
        puzzle.moves.iter().map(|m| m.name.clone()).collect(),
        Some(inv.orbits.len()),
        (Some(&analysis.model_order), &analysis.group_order),
    );
    facts["symmetries"] =
        serde_json::json!({"order": syms.order(), "inverse_closed": syms.inverse_closed});
    writeln!(out, "puzzle: {} (metric {})", puzzle.spec.named(), puzzle.metric)?;
    match puzzle.defined() {
        Some(d) => writeln!(out, "sets: {}", d.describe_sets())?,
        None => writeln!(
            out,
            "board: {}x{}, tile orientations: {}",
            puzzle.rows, puzzle.cols, puzzle.orient_mod
        )?,
    }
    let names: Vec<&str> = puzzle.moves.iter().map(|m| m.name.as_str()).collect();
    writeln!(
        out,
        "moves: {} ({}): {}",
        names.len(),
        if puzzle.undirected { "each undone by another move" } else { "directed" },
        names.join(" ")
    )?;
    writeln!(out, "orbits: {}", inv.orbits.len())?;
    for (j, o) in inv.orbits.iter().enumerate() {
        let cells: Vec<usize> = o.cells.iter().map(|&c| c as usize).collect();
        write_orbit(out, j, &cells, puzzle.orient_mod, o.tied_mod, o.free_mod)?;
    }
    write_constraints(out, &inv.constraints())?;
    writeln!(out, "boards allowed by the invariants: {}", analysis.model_order)?;
    writeln!(out, "group order (stabilizer chain):   {}", analysis.group_order)?;
    if puzzle.has_identical_pieces() {
        // Counted where that can be done (milliseconds but on the largest groups); else
        // the ranking below says what the boards are.
        match board_count::count_boards(&puzzle, &analysis) {
            Some(Ok(count)) => writeln!(
                out,
                "identical pieces: boards are fewer than group elements: {count} distinct boards"
            )?,
            _ => writeln!(
                out,
                "identical pieces: boards are fewer than group elements (see the ranking)"
            )?,
        }
    }
    // Maps of the board that keep the move set: boards they relate are equally far from
    // solved (the basis of symmetry-reduced searches).
    writeln!(out, "symmetries: {syms}")?;
    let (reduced, space) = if puzzle.has_identical_pieces() {
        // Their classes are taken over their boards' ranking: built once for both (with no
        // boards' ranking there are no classes either, and `space` says why).
        let space = StateSpace::from_analysis(&puzzle, analysis);
        let reduced = space.as_ref().map_err(|e| twirl::Error::Unsupported(e.to_string()));
        let reduced = reduced.and_then(|b| {
            let ranking = StateSpace::classes_of_identical_pieces(&puzzle, b)?;
            let (analysis, definition_digest) = (b.analysis.clone(), b.definition_digest.clone());
            Ok(StateSpace { ranking, analysis, definition_digest })
        });
        (reduced, space)
    } else {
        let reduced = StateSpace::for_search(&puzzle, SymmetryMode::On, false);
        // The boards' space, from the classes' layout where finding its reachable values took
        // a search (the mastermorphix: 0.9 s), not searched again.
        let space = match &reduced {
            Ok(classes) => classes.boards(&puzzle),
            Err(_) => StateSpace::from_analysis(&puzzle, analysis),
        };
        (reduced, space)
    };
    let space = match space {
        Ok(space) => space,
        Err(e) => {
            writeln!(out, "table: none: {e}")?;
            facts["table"] = serde_json::json!({"refused": e.to_string()});
            return Ok(facts);
        }
    };
    let ranking = match &space.ranking {
        Ranking::Layout(l) if l.ranks_reachable_couplings() => {
            "invariant layout, arrangements and sums the moves reach indexed (orbit permutation \
             ranks and orientation sums as one index x orientation digits)"
        }
        Ranking::Layout(_) => "invariant layout (orbit permutation ranks x orientation digits)",
        Ranking::Enumerated(_) if puzzle.has_identical_pieces() => {
            "listed board by board (identical pieces)"
        }
        Ranking::Enumerated(_) if !space.analysis.invariants_are_exact() => {
            "listed board by board (the group is smaller than its invariants allow)"
        }
        Ranking::Enumerated(_) => "listed board by board (the invariant layout cannot index it)",
        Ranking::Multiset(m) if m.signs_free() => {
            "multiset layout, every orbit's sign free (identical pieces in a group smaller than \
             its invariants: orbit arrangement ranks x orientation digits)"
        }
        Ranking::Multiset(_) => {
            "multiset layout (identical pieces: orbit arrangement ranks x orientation digits)"
        }
        Ranking::Chain(_) => {
            "by the group's stabilizer chain (the images of its base points; the group is \
             smaller than its invariants allow)"
        }
        Ranking::Fibres(_) => {
            "by a projection and its fibres (identical pieces in a group smaller than its \
             invariants: the projections the moves reach, times the boards over each)"
        }
        Ranking::Classes(_)
        | Ranking::CoordClasses(_)
        | Ranking::FibreClasses(_)
        | Ranking::FlipClasses(_) => "classes of boards under the symmetries",
    };
    writeln!(out, "ranking: {ranking}")?;
    if let Ranking::Fibres(f) = &space.ranking {
        let (projection, fibre) = f.describe();
        writeln!(out, "projection: {projection}")?;
        writeln!(out, "fibre over each projection: {fibre}")?;
        writeln!(out, "search: {}", f.describe_search())?;
    }
    if space.n_reachable() < space.n_states() {
        let which = match &space.ranking {
            Ranking::Multiset(m) if m.signs_free() => {
                "every arrangement of each orbit, its sign free, with the sums the invariants allow"
            }
            _ => "the boards the invariants allow",
        };
        writeln!(
            out,
            "search: in {} ranks ({which}), of which the moves reach {} (searched by rank, not listed board by board)",
            space.n_states(),
            space.n_reachable()
        )?;
    }
    if let Ranking::Multiset(m) = &space.ranking
        && let Some(t) = m.coordinate_tables()
    {
        let radices: Vec<String> = t.radices().iter().map(|r| r.to_string()).collect();
        writeln!(
            out,
            "search: by per-move tables on {} coordinates (orbit arrangements, then \
             orientation digits where pieces turn: {} values)",
            radices.len(),
            radices.join(" x ")
        )?;
    }
    if let Ranking::Multiset(m) = &space.ranking
        && let Some(bits) = m.xor_block_bits()
    {
        writeln!(
            out,
            "search: runs of {} ranks (the flips of one orbit's seen pieces, every other \
             coordinate fixed) moved by XOR",
            1u64 << bits
        )?;
    }
    if let Ranking::Layout(l) = &space.ranking {
        if let Some(bits) = l.xor_block_bits() {
            writeln!(out, "search: {}", describe_xor_runs(bits))?;
        }
        if let Some(runs) = l.cell_runs() {
            writeln!(out, "search: {}", describe_runs(runs, puzzle.moves.len()))?;
        }
    }
    let bytes = table_bytes(space.n_states());
    writeln!(out, "table: {} entries, {} bytes ({})", space.n_states(), bytes, human(bytes))?;
    facts["table"] = serde_json::json!({"entries": space.n_states(), "bytes": bytes});
    facts["table_with_symmetry"] = match &reduced {
        Ok(r) => serde_json::json!({
            "entries": r.n_states(),
            "bytes": table_bytes(r.n_states()),
            "group_elements": r.entry_classes().map(|c| c.order()),
            "inversion": r.entry_classes().is_some_and(|c| c.inverts()),
        }),
        Err(e) => serde_json::json!({"refused": e.to_string()}),
    };
    match reduced {
        Ok(StateSpace { ranking: Ranking::CoordClasses(c), .. }) => {
            let (classes, firsts) = c.first_part_classes();
            writeln!(
                out,
                "symmetry classes (bfs --symmetry on): under {}: {firsts} first parts in \
                 {classes} classes ({} fixed by a symmetry)",
                c.describe(),
                c.twin_classes()
            )?;
            if let Some(runs) = StateRanking::cell_runs(&c) {
                writeln!(
                    out,
                    "search with symmetry: runs of {} ranks (the last digit), offsets read \
                     through the symmetries",
                    runs.len
                )?;
            }
            write_reduced_table(out, c.n_states(), c.order(), c.n_boards(), bytes)?;
        }
        Ok(StateSpace { ranking: Ranking::FibreClasses(c), .. }) => {
            let (classes, projections) = c.projection_classes();
            writeln!(
                out,
                "symmetry classes (bfs --symmetry on): under {} symmetries: {projections} \
                 projections in {classes} classes ({} fixed by a symmetry), times the fibre's \
                 {} boards",
                c.order(),
                c.twin_classes(),
                c.fibres().fibre_len()
            )?;
            if c.twin_classes() > 0 {
                let (tables, twin_bytes) = c.twin_tables();
                writeln!(
                    out,
                    "classes a symmetry fixes: one entry per orbit of their fibre's boards \
                     ({tables} distinct tables of orbits, {})",
                    human(twin_bytes)
                )?;
            }
            writeln!(out, "search with symmetry: board by board")?;
            write_reduced_table(out, c.n_states(), c.order(), c.n_boards(), bytes)?;
        }
        Ok(StateSpace { ranking: Ranking::FlipClasses(c), .. }) => {
            let (classes, uppers) = c.upper_part_classes();
            writeln!(
                out,
                "symmetry classes (bfs --symmetry on): under {} symmetries: {uppers} \
                 arrangements above the flips in {classes} classes ({} fixed by a symmetry), \
                 times {} flips",
                c.order(),
                c.twin_classes(),
                1u64 << c.flip_bits()
            )?;
            writeln!(
                out,
                "search with symmetry: runs of {} ranks (the named pieces' flips) moved by \
                 XOR, offsets read through the symmetries",
                1u64 << c.flip_bits()
            )?;
            write_reduced_table(out, c.n_states(), c.order(), c.n_boards(), bytes)?;
        }
        Ok(reduced) => {
            let c = reduced.classes().expect("a ranking of classes");
            if c.inverts() || c.first_part_is_arrangement() {
                writeln!(
                    out,
                    "symmetry classes (bfs --symmetry on): under {}: {} arrangements in {} \
                     classes, times {} rest{}",
                    c.describe(),
                    c.placements(),
                    c.placement_classes(),
                    c.rest_count(),
                    if c.rest_count() == 1 { "" } else { "s" }
                )?;
            } else {
                writeln!(
                    out,
                    "symmetry classes (bfs --symmetry on): under {}, the tiles on cells {} \
                     take {} placements in {} classes, times {} rests",
                    c.group_text(),
                    c.key_cells_text(),
                    c.placements(),
                    c.placement_classes(),
                    c.rest_count()
                )?;
            }
            // The placement table lives beside the search's table (the 3x3x3's edges: 1.8
            // GiB beside 4.8): worth a line where it is large.
            let placement_bytes = 4 * c.placements();
            if placement_bytes >= LARGE_PLACEMENT_TABLE {
                writeln!(
                    out,
                    "placement table: {placement_bytes} bytes ({}) in memory beside the table \
                     (each placement's class and symmetry, 4 bytes)",
                    human(placement_bytes)
                )?;
            }
            if let Some((tables, twin_bytes)) = c.twin_tables() {
                writeln!(
                    out,
                    "classes a symmetry fixes: {} of {}, one entry per orbit of their rests \
                     ({tables} distinct tables of orbits, {})",
                    c.twin_classes(),
                    c.placement_classes(),
                    human(twin_bytes)
                )?;
            }
            // The search prefers XOR runs to cell runs where it has both.
            if let Some(bits) = StateRanking::xor_block_bits(c) {
                writeln!(
                    out,
                    "search with symmetry: {}, offsets read through the symmetries",
                    describe_xor_runs(bits)
                )?;
            } else if let Some(runs) = StateRanking::cell_runs(c) {
                writeln!(out, "search with symmetry: {}", describe_runs(runs, puzzle.moves.len()))?;
            }
            let boards = space.n_reachable();
            write_reduced_table(out, reduced.n_states(), c.order(), boards, bytes)?;
        }
        Err(e) => writeln!(out, "table with symmetry: none: {e}")?,
    }
    Ok(facts)
}

/// The facts every puzzle's `info --json` starts with; the counts as decimal strings (they
/// pass 64 bits).
pub(super) fn puzzle_facts(
    puzzle: &str,
    metric: &str,
    moves: Vec<String>,
    orbits: Option<usize>,
    (allowed, order): (Option<&dyn ToString>, &dyn ToString),
) -> serde_json::Value {
    serde_json::json!({
        "puzzle": puzzle,
        "metric": metric,
        "moves": moves,
        "orbits": orbits,
        "boards_allowed_by_invariants": allowed.map(|a| a.to_string()),
        "group_order": order.to_string(),
    })
}

/// Placement tables from this size on get a line of `info` of their own.
const LARGE_PLACEMENT_TABLE: u64 = 64 << 20;

/// The table of classes in one line: `entries` under a group of `order` elements, for
/// `boards` boards whose own table takes `bytes`.
fn write_reduced_table(
    out: &mut dyn Write,
    entries: u64,
    order: u64,
    boards: u64,
    bytes: u64,
) -> std::io::Result<()> {
    let reduced_bytes = table_bytes(entries);
    writeln!(
        out,
        "table with symmetry: {} entries, {} bytes ({}), {:.2}x smaller; {:.3}x the boards \
         over the group's order",
        entries,
        reduced_bytes,
        human(reduced_bytes),
        bytes as f64 / reduced_bytes as f64,
        entries as f64 * order as f64 / boards as f64
    )
}

/// XOR runs of `2^bits` ranks as words.
fn describe_xor_runs(bits: u32) -> String {
    format!("runs of {} ranks (one arrangement, all orientations) moved by XOR", 1u64 << bits)
}

/// Cell runs as one line: their length, cells and the moves that keep them.
fn describe_runs(runs: &CellRuns, n_moves: usize) -> String {
    let cells: Vec<String> = runs.cells.iter().map(|c| (c + 1).to_string()).collect();
    format!(
        "runs of {} ranks over cells {}; {} of {} moves keep them",
        runs.len,
        cells.join(" "),
        runs.solve.len(),
        n_moves
    )
}

/// One orbit's line of `info`: its cells (0-based, written 1-based) and how its tiles'
/// orientation (modulo `k`) is tied to the cell (`tied`) or free (`free`).
pub(super) fn write_orbit(
    out: &mut dyn Write,
    j: usize,
    cells: &[usize],
    k: u8,
    tied: u8,
    free: u8,
) -> std::io::Result<()> {
    let names: Vec<String> = cells.iter().map(|c| (c + 1).to_string()).collect();
    let orient = match (k, tied) {
        (1, _) => String::new(),
        (k, t) if t == k => "; orientation fixed by the cell".to_string(),
        (_, 1) => format!("; orientation free mod {free}"),
        (_, t) => format!("; orientation mod {t} fixed by the cell, free mod {free}"),
    };
    writeln!(out, "  O{}: {} cells: {}{orient}", j + 1, cells.len(), names.join(" "))
}

/// The parity and orientation-sum constraints of `info`, one per line.
pub(super) fn write_constraints(
    out: &mut dyn Write,
    constraints: &[String],
) -> std::io::Result<()> {
    if constraints.is_empty() {
        return writeln!(out, "constraints: none (every parity and orientation sum is reachable)");
    }
    writeln!(out, "constraints:")?;
    for c in constraints {
        writeln!(out, "  {c}")?;
    }
    Ok(())
}
