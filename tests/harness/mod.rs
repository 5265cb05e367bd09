//! One check per parser, shared by the property tests (`tests/parsers.rs`) and the fuzz targets
//! (`fuzz/`): run the parser on any text and assert it gives either a clean error (a message on
//! one non-empty line) or a valid value (one that prints back to itself, a permutation, ...).
//! A panic anywhere, including inside the parser, fails the test or is a fuzzer finding.
#![allow(dead_code)] // each user calls a different subset

use std::sync::Arc;
use twirl::claims::{self, Registry, Verdict};
use twirl::group::analysis::Analysis;
use twirl::plot::{histogram_svg, read_report};
use twirl::puzzle::defined::Defined;
use twirl::puzzle::definition::{ANY_ORIENTATION, Definition};
use twirl::puzzle::sequence::{Env, Sequence};
use twirl::puzzle::{Metric, Move, Puzzle, PuzzleSpec};
use twirl::rank::StateSpace;

/// An error is clean when its message is one non-empty line.
pub fn assert_clean(err: &dyn std::fmt::Display, input: &str) {
    let msg = err.to_string();
    assert!(!msg.trim().is_empty(), "empty error message for {input:?}");
    assert!(!msg.contains(['\n', '\r']), "error message spans lines for {input:?}: {msg:?}");
    assert!(!msg.contains(['\u{2028}', '\u{2029}']), "line separator in {msg:?}");
}

/// A puzzle spec: an error, or a spec that prints back to itself and builds a puzzle.
pub fn spec(text: &str) -> Option<Puzzle> {
    let spec = match PuzzleSpec::parse(text) {
        Ok(spec) => spec,
        Err(e) => {
            assert_clean(&e, text);
            return None;
        }
    };
    let printed = spec.to_string();
    assert_eq!(PuzzleSpec::parse(&printed).expect("a printed spec parses"), spec, "{text:?}");
    let (rows, cols) = spec.dims();
    assert!((1..=255).contains(&(rows * cols)), "{text:?} has {rows}x{cols} cells");
    match Puzzle::new(&spec, spec.default_metric()) {
        Ok(p) => {
            assert!(!p.moves.is_empty(), "{text:?} has no moves");
            Some(p)
        }
        Err(e) => {
            assert_clean(&e, text);
            None
        }
    }
}

/// A board of a puzzle: an error, or a board of the right tiles that prints back to itself.
pub fn board(puzzle: &Puzzle, text: &str) {
    match puzzle.parse_board(text) {
        Err(e) => assert_clean(&e, text),
        Ok(b) => {
            let n = puzzle.n_positions();
            let mut tiles = b.tiles.clone();
            tiles.sort_unstable();
            assert!(tiles.iter().copied().eq(0..n as u8), "{text:?} is not a permutation");
            assert!(b.orient.iter().all(|&o| o < puzzle.orient_mod.max(1)), "{text:?}");
            let printed = puzzle.format_board(&b);
            assert_eq!(puzzle.parse_board(&printed).expect("a printed board parses"), b);
        }
    }
}

/// A move sequence with letter bindings and definitions: an error, or an element of the
/// puzzle (a permutation with turns) whose order brings it back to the identity.
pub fn sequence(
    puzzle: &Puzzle,
    bind: &[(String, String)],
    define: &[(String, String)],
    text: &str,
) {
    let mut env = Env::new();
    for (letter, value) in bind {
        if let Err(e) = env.bind(puzzle, letter, value) {
            assert_clean(&e, value);
        }
    }
    for (letter, value) in define {
        if let Err(e) = env.define(letter, value) {
            assert_clean(&e, value);
        }
    }
    if let Err(e) = Sequence::parse(text) {
        assert_clean(&e, text);
    }
    match env.eval_text(puzzle, text) {
        Err(e) => assert_clean(&e, text),
        Ok(m) => assert_element(puzzle, &m, text),
    }
}

fn assert_element(puzzle: &Puzzle, m: &Move, text: &str) {
    let n = puzzle.n_positions();
    let mut cells = m.perm.clone();
    cells.sort_unstable();
    assert!(cells.iter().copied().eq(0..n as u8), "{text:?} gives no permutation");
    assert!(m.twist.iter().all(|&t| t < puzzle.orient_mod.max(1)), "{text:?} turns too far");
    let order = m.order(puzzle.orient_mod);
    assert!(order >= 1);
    assert!(m.power_unsigned(order, puzzle.orient_mod).is_identity(), "{text:?}: order {order}");
}

/// A claims registry: an error, or claims that each check to an outcome or a clean error.
pub fn registry(text: &str) {
    let registry = match Registry::parse(text) {
        Ok(r) => r,
        Err(e) => {
            assert_clean(&e, text);
            return;
        }
    };
    for claim in &registry.claims {
        match claims::check(&registry, claim) {
            Err(e) => assert_clean(&e, &claim.id),
            Ok(o) => {
                assert_eq!(o.matches_record, o.holds == (o.expected == Verdict::Holds));
            }
        }
    }
}

/// A result file for `twirl plot`: an error, or a picture with finite coordinates.
pub fn report(text: &str) {
    match read_report(text) {
        Err(e) => assert_clean(&e, text),
        Ok(r) => {
            for log in [false, true] {
                let svg = histogram_svg(&r, log);
                assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
                for bad in ["\"NaN\"", "\"inf\"", "\"-inf\""] {
                    assert!(!svg.contains(bad), "{bad} coordinate for {text:?}");
                }
            }
        }
    }
}

/// A puzzle definition (`.tws`): an error, or sets whose states and moves have the declared
/// sizes, moves that are permutations with twists in range, and a file that reads back to the
/// same definition.
pub fn definition(text: &str) {
    let def = match Definition::parse(text) {
        Ok(d) => d,
        Err(e) => {
            assert_clean(&e, text);
            return;
        }
    };
    assert!(!def.sets.is_empty() && !def.moves.is_empty(), "{text:?}");
    assert_eq!(def.solved.len(), def.sets.len(), "{text:?}");
    for (set, state) in def.sets.iter().zip(&def.solved) {
        assert!((1..=255).contains(&set.size) && (1..=127).contains(&set.orientations));
        assert_eq!(state.pieces.len(), set.size, "{text:?}");
        // `?` in a solved state is twsearch's orientation wildcard.
        let seen_or_wildcard = |o: u8| o < set.orientations || o == ANY_ORIENTATION;
        assert!(state.orient.iter().all(|&o| seen_or_wildcard(o)), "{text:?}");
    }
    for m in &def.moves {
        assert_eq!(m.sets.len(), def.sets.len(), "{text:?}");
        for (set, sm) in def.sets.iter().zip(&m.sets) {
            let mut perm = sm.perm.clone();
            perm.sort_unstable();
            assert!(perm.iter().copied().eq(0..set.size as u16), "{text:?}: not a permutation");
            assert_eq!(sm.twist.len(), set.size, "{text:?}");
            assert!(sm.twist.iter().all(|&t| t < set.orientations), "{text:?}");
        }
    }
    let written = def.to_tws();
    assert_eq!(Definition::parse(&written).expect("a written definition reads back"), def);
    puzzle_of_definition(text, def);
}

/// Largest group whose ranking [`puzzle_of_definition`] builds (listing is the fallback, and
/// lists of millions of boards would slow the property tests down).
const MAX_FUZZED_MODEL: u32 = 200_000;

/// A definition that reads makes a puzzle, or a clean error; a small one a ranking (layout,
/// multiset or list) whose boards rank back, with the solved board among them.
fn puzzle_of_definition(text: &str, def: Definition) {
    let made = Defined::new("fuzz.tws", def)
        .and_then(|d| Puzzle::new(&PuzzleSpec::Def(Arc::new(d)), Metric::Htm))
        .and_then(|p| Analysis::of(&p).map(|a| (p, a)));
    let (puzzle, analysis) = match made {
        Ok(made) => made,
        Err(e) => return assert_clean(&e, text),
    };
    if analysis.model_order > MAX_FUZZED_MODEL.into() {
        return;
    }
    let space = match StateSpace::from_analysis(&puzzle, analysis) {
        Ok(space) => space,
        Err(e) => return assert_clean(&e, text),
    };
    let n = space.n_states();
    assert!(n >= 1, "{text:?}");
    for r in [0, n / 3, n / 2, n - 1] {
        let board = space.board(r);
        assert_eq!(space.rank_board(&board).expect("a ranked board ranks back"), r, "{text:?}");
    }
    assert!(space.rank_board(&puzzle.solved()).is_ok(), "{text:?}: the solved board is not ranked");
}
