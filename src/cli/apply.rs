//! `twirl apply`: one sequence applied to a board, with its cycle structure.

use std::io::Write;

use anyhow::bail;
use clap::Args;
use serde::Serialize;

use twirl::group::cycles::{CycleStructure, format_cycles};
use twirl::puzzle::sequence::{Env, Order};

use super::json::{JsonArgs, as_paths, files_named};
use super::{PuzzleArgs, argument_text};

/// Arguments of `twirl apply`.
#[derive(Args)]
pub struct ApplyArgs {
    #[command(flatten)]
    puzzle: PuzzleArgs,
    /// The sequence: block names `R2C3` (counter-clockwise), `R2C3'` (clockwise), `R2C3^2`;
    /// spins `[1,6]`; letters bound with --bind or --define; `(...)^k`, `^-1`, `^{-1}`.
    /// For def:<file>, twsearch's notation: the file's move names and their powers
    /// (`R U2 R'`), no letters. Quote it. `-` reads it from standard input, `@FILE` from a
    /// file (long solutions); NRP boards past 255 cells take block names, groups and powers.
    #[arg(value_name = "SEQUENCE")]
    sequence: String,
    /// Start board (default: solved), rows separated by `/`: "4 1 3 / 6 2 9 / 7 5 8";
    /// Spinpossible writes upside-down tiles negative: "-5 -4 -9 / -2 -1 -6 / 7 8 -3".
    /// For def:<file>, the file's state layout: "CORNERS 2 1 3 4 / 0 0 1 2 ; EDGES ...".
    /// `-` reads it from standard input, `@FILE` from a file.
    #[arg(long, value_name = "BOARD", allow_hyphen_values = true)]
    board: Option<String>,
    /// Bind letters to moves: X=R2C1,Y=R1C2,Z=R2C2 (a value may be any letter-free
    /// sequence, e.g. A=R1C1' for Lee's clockwise A, or S=[1,6]). Repeatable.
    #[arg(long, value_name = "L=MOVES,...")]
    bind: Vec<String>,
    /// Define letters as sub-sequences of other letters: --define "C=(Y X)^4". Repeatable;
    /// several may be separated by `,`.
    #[arg(long, value_name = "L=SEQUENCE,...")]
    define: Vec<String>,
    /// Read products right to left (the last factor written acts first) instead of twirl's
    /// left to right.
    #[arg(long)]
    right_to_left: bool,
    #[command(flatten)]
    json: JsonArgs,
}

#[derive(Serialize)]
struct ApplyJson {
    puzzle: String,
    sequence: String,
    order: String,
    start: String,
    result: String,
    cycles: String,
    cycle_type: Vec<usize>,
    even_class_cycles: Option<String>,
    odd_class_cycles: Option<String>,
    turned: Vec<usize>,
    summary: String,
}

impl ApplyJson {
    /// The result of a sequence read in `order`: the puzzle, the start and result boards as
    /// written, and the element's cycle structure.
    fn new(
        puzzle: String,
        sequence: &str,
        order: Order,
        [start, result]: [String; 2],
        st: &CycleStructure,
    ) -> ApplyJson {
        ApplyJson {
            puzzle,
            sequence: sequence.to_string(),
            order: order.name().into(),
            start,
            result,
            cycles: format_cycles(&st.cycles),
            cycle_type: st.cycle_type(),
            even_class_cycles: st.by_colour.as_ref().map(|(e, _)| format_cycles(e)),
            odd_class_cycles: st.by_colour.as_ref().map(|(_, o)| format_cycles(o)),
            turned: st.turned.iter().map(|&(c, _)| c + 1).collect(),
            summary: st.summary(),
        }
    }
}

/// Runs `twirl apply`.
pub fn run(args: &ApplyArgs) -> anyhow::Result<()> {
    let order = if args.right_to_left { Order::RightToLeft } else { Order::LeftToRight };
    let named = [Some(args.puzzle.puzzle.as_str()), Some(&args.sequence), args.board.as_deref()];
    args.json.check(&as_paths(&files_named(named.into_iter().flatten())))?;
    let sequence = argument_text(&args.sequence)?;
    let board = args.board.as_deref().map(argument_text).transpose()?;
    if let Some((large, _)) = args.puzzle.large()? {
        if !args.bind.is_empty() || !args.define.is_empty() {
            bail!(
                "--bind and --define are evaluated on boards of at most {} cells; on {} write \
                 block names (R2C3), groups and powers",
                super::large::MAX_BOARD_CELLS,
                large.spec()
            );
        }
        let applied = super::large::apply(&large, &sequence, board.as_deref(), order)?;
        let st = super::large::print_applied(&large, &sequence, order, &applied)?;
        let boards = [large.format_board(&applied.start), large.format_board(&applied.result)];
        args.json.write(&ApplyJson::new(large.spec(), &sequence, order, boards, &st))?;
        return Ok(());
    }
    if let Some((d, _)) = args.puzzle.large_def()? {
        if !args.bind.is_empty() || !args.define.is_empty() {
            bail!(
                "--bind and --define bind letters on NRP and Spinpossible boards; a definition \
                 reads its own move names (def:{})",
                d.path
            );
        }
        let applied = super::large_def::apply(&d, &sequence, board.as_deref(), order)?;
        let mut out = args.json.text_out();
        let st = super::large_def::print_applied(&mut out, &d, &sequence, order, &applied)?;
        drop(out);
        let boards = [d.format_board_wide(&applied.start), d.format_board_wide(&applied.result)];
        let spec = d.named();
        args.json.write(&ApplyJson::new(spec, &sequence, order, boards, &st))?;
        return Ok(());
    }
    let puzzle = args.puzzle.puzzle()?;
    let mut env = Env::new().with_order(order);
    for list in &args.bind {
        env.bind_list(&puzzle, list)?;
    }
    for list in &args.define {
        env.define_list(list)?;
    }
    let start = match &board {
        Some(b) => puzzle.parse_board(b)?,
        None => puzzle.solved(),
    };
    let element = env.eval_text(&puzzle, &sequence)?;
    let result = puzzle.seen_part(puzzle.apply(&start, &element));
    let st = CycleStructure::of(&puzzle, &element);
    let mut out = args.json.text_out();
    writeln!(out, "puzzle:   {}", puzzle.spec.named())?;
    writeln!(out, "sequence: {} (read {})", sequence, order.name())?;
    writeln!(out, "start:    {}", puzzle.format_board(&start))?;
    writeln!(out, "result:   {}", puzzle.format_board(&result))?;
    writeln!(out, "cycles:   {}", format_cycles(&st.cycles))?;
    if let Some((even, odd)) = &st.by_colour {
        writeln!(out, "  even cells: {}", format_cycles(even))?;
        writeln!(out, "  odd cells:  {}", format_cycles(odd))?;
    }
    match puzzle.orient_mod {
        2 => writeln!(out, "flipped:  {}", st.format_turned())?,
        4 => writeln!(out, "turned:   {}", st.format_turned())?,
        _ => {}
    }
    writeln!(out, "type:     {:?}", st.cycle_type())?;
    writeln!(out, "summary:  {}", st.summary())?;
    drop(out);
    let boards = [puzzle.format_board(&start), puzzle.format_board(&result)];
    args.json.write(&ApplyJson::new(puzzle.spec.named(), &sequence, order, boards, &st))?;
    Ok(())
}
