//! No input can crash a parser: property tests feed random and mutated text to every parser
//! twirl reads user text with (puzzle spec, board, move sequence with letters, claims registry,
//! result JSON, puzzle definition) and require a clean one-line error or a valid value (`harness`); then the
//! binary is run on each input that used to crash or hang it, which must be refused with exit
//! code 2 and a one-line message.
//!
//! Mutations start from valid examples (`docs/commands.md`'s, the built-in registry's claims, the
//! published results in `data/results/`) and apply random byte replacements, insertions,
//! deletions and duplications of slices (which grow nesting and numbers quickly). Puzzle
//! definitions, made of lines and tokens, also get whole lines and tokens deleted, duplicated,
//! swapped and replaced.

mod common;
mod harness;

use std::sync::OnceLock;

use proptest::prelude::*;
use proptest::sample::select;

use common::{assert_rejected, stderr, twirl};
use twirl::claims::{DEFAULT_REGISTRY, Kind, Registry};
use twirl::puzzle::Puzzle;
use twirl::puzzle::definition::Definition;

/// Bytes that matter to the parsers, drawn more often than others.
const INTERESTING: &[u8] = b"0123456789()[]{}^'-+*/,.:xX RCrcnsp=<>v\n\t\"#";

#[derive(Clone, Debug)]
enum Edit {
    Replace(usize, u8),
    Insert(usize, u8),
    Delete(usize),
    /// Insert `times` copies of the slice at `start` of length `len` after it.
    Duplicate {
        start: usize,
        len: usize,
        times: usize,
    },
}

fn byte() -> impl Strategy<Value = u8> {
    prop_oneof![3 => select(INTERESTING), 1 => any::<u8>()]
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), byte()).prop_map(|(p, b)| Edit::Replace(p, b)),
        (any::<usize>(), byte()).prop_map(|(p, b)| Edit::Insert(p, b)),
        any::<usize>().prop_map(Edit::Delete),
        (any::<usize>(), 1usize..8, 1usize..200).prop_map(|(start, len, times)| Edit::Duplicate {
            start,
            len,
            times
        }),
    ]
}

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    prop::collection::vec(edit(), 0..6)
}

/// Applies the edits to the seed's bytes (positions wrap around the current length) and reads
/// the result as text, invalid UTF-8 replaced.
fn mutate(seed: &str, edits: &[Edit]) -> String {
    let mut b = seed.as_bytes().to_vec();
    for e in edits {
        let len = b.len();
        match *e {
            Edit::Replace(p, x) if len > 0 => b[p % len] = x,
            Edit::Insert(p, x) => b.insert(p % (len + 1), x),
            Edit::Delete(p) if len > 0 => {
                b.remove(p % len);
            }
            Edit::Duplicate { start, len: n, times } if len > 0 => {
                let s = start % len;
                let piece = b[s..(s + n).min(len)].to_vec();
                let at = (s + n).min(len);
                let copies: Vec<u8> =
                    piece.iter().copied().cycle().take(piece.len() * times).collect();
                b.splice(at..at, copies);
            }
            _ => {}
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

/// Random text over the parsers' alphabet, or any characters at all.
fn random_text() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::collection::vec(select(INTERESTING), 0..80)
            .prop_map(|v| String::from_utf8_lossy(&v).into_owned()),
        "\\PC{0,40}",
        ".{0,40}",
    ]
}

const SPECS: &[&str] = &[
    "nrp:3x3:2",
    "nrp:4x4:3:orient",
    "twiddle:3x4:3",
    "nrp:12x12:5",
    "spin:3x3",
    "spin:3x3:1x1,1x2",
    "spin:2x4:1x3",
    "spin:5x5",
];

const BOARDS: &[(&str, &str)] = &[
    ("nrp:3x3:2", "4 1 3 / 6 2 9 / 7 5 8"),
    ("nrp:3x3:2", "9 8 7 6 5 4 3 2 1"),
    ("spin:3x3", "-5 -4 -9 / -2 -1 -6 / 7 8 -3"),
    ("nrp:2x2:2:orient", "1< 2 / 3v 4>"),
    ("nrp:3x4:3:orient", "1 4< 8< 12< / 5 3< 7< 11< / 9 2< 6< 10<"),
];

/// A sequence with its puzzle and letters.
#[derive(Clone, Debug)]
struct SequenceCase {
    puzzle: String,
    bind: Vec<(String, String)>,
    define: Vec<(String, String)>,
    text: String,
}

/// The `twirl apply` example of `docs/commands.md` and every sequence claim of the built-in
/// registry.
fn sequence_seeds() -> &'static [SequenceCase] {
    static SEEDS: OnceLock<Vec<SequenceCase>> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let pairs = |m: &std::collections::BTreeMap<String, String>| {
            m.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
        };
        let mut out = vec![SequenceCase {
            puzzle: "nrp:3x3:2".into(),
            bind: [("X", "R2C1"), ("Y", "R1C2"), ("Z", "R2C2")]
                .map(|(l, v)| (l.to_string(), v.to_string()))
                .into(),
            define: vec![("C".into(), "(Y X)^4".into())],
            text: "X Y^-1 X^-1 Y Z C^{-1} (X Y)^35 R1C1'".into(),
        }];
        for c in Registry::builtin().claims.into_iter().filter(|c| c.kind == Kind::Sequence) {
            out.push(SequenceCase {
                puzzle: c.puzzle.clone(),
                bind: pairs(&c.bind),
                define: pairs(&c.define),
                text: c.sequence.clone().unwrap_or_default(),
            });
        }
        out
    })
}

/// The built-in registry cut into its header (sources) and its `[[claim]]` blocks.
fn registry_parts() -> &'static (String, Vec<String>) {
    static PARTS: OnceLock<(String, Vec<String>)> = OnceLock::new();
    PARTS.get_or_init(|| {
        let mut pieces = DEFAULT_REGISTRY.split("\n[[claim]]");
        let header = pieces.next().unwrap().to_string();
        (header, pieces.map(|b| format!("\n[[claim]]{b}")).collect())
    })
}

fn report_seeds() -> &'static [String] {
    static SEEDS: OnceLock<Vec<String>> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/data/results");
        // The last one has a symmetry block, written before inversion was reported.
        [
            "nrp_2x3_2-cw.json",
            "nrp_3x3_2-qtm.json",
            "nrp_2x2_2_orient-htm.json",
            "nrp_2x7_2-qtm.json",
        ]
        .iter()
        .map(|f| std::fs::read_to_string(format!("{dir}/{f}")).expect("published result"))
        .collect()
    })
}

/// Definitions: two sets (orientations, identical pieces, a set left out of a move, sets in
/// either order), identical pieces with tied orientations, a solved orientation left unseen
/// (`?`, found by this fuzzer to trip the harness), and the files `twirl export-def` writes
/// for an NRP and a Spinpossible board.
fn definition_seeds() -> &'static [String] {
    static SEEDS: OnceLock<Vec<String>> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let two = "Name Two\nSet P 4 3\nSet Q 3 1\n\nSolved\nP\n1 2 3 4\nQ\n1 1 2\nEnd\n\n\
                   # A turns three pieces\nMove A\nP\n2 3 1 4\n1 0 0 0\nEnd\n\n\
                   Move B\nQ\n2 3 1\nP\n1 2 4 3\n0 0 1 2\nEnd\n";
        // Identical pieces 1 on cells of potentials 0 and 2, orientation tied modulo 2.
        let tied = "Set D 4 4\nSolved\nD\n1 2 1 3\nEnd\nMove R\nD\n2 3 4 1\n1 1 1 1\nEnd\n\
                    Move Q\nD\n3 2 1 4\n0 0 0 0\nEnd\nMove P\nD\n2 1 3 4\n1 1 0 0\nEnd\n";
        let wildcard = "Name nrp:2x3:2:orient\n\nSet TILES 6 4\n\nSolved\nTILES\n1 2 3 4 5 6\n\
                        0 0 0 ? 0 0\nEnd\n\nMove R1C1\nTILES\n2 5 3 1 4 6\n1 1 0 1 1 0\nEnd\n\n\
                        Move R1C2\nTILES\n1 3 6 4 2 5\n0 1 1 0 1 1\nEnd";
        let mut out = vec![two.to_string(), tied.to_string(), wildcard.to_string()];
        for spec in ["nrp:2x3:2:orient", "spin:2x2"] {
            let p = Puzzle::parse(spec, Some(twirl::puzzle::Metric::Htm)).unwrap();
            out.push(Definition::from_puzzle(&p).unwrap().to_tws());
        }
        out
    })
}

/// Tokens that matter to the definition reader.
const DEFINITION_TOKENS: &[&str] = &[
    "End",
    "Move",
    "Set",
    "Solved",
    "Name",
    "Illegal",
    "P",
    "Q",
    "TILES",
    "0",
    "1",
    "2",
    "3",
    "4",
    "5",
    "6",
    "127",
    "128",
    "255",
    "256",
    "?",
    "-1",
    "#",
    "99999999999999999999",
    "x",
    "Rv",
];

/// A line-level edit of a definition: positions wrap around the number of lines or tokens.
#[derive(Clone, Debug)]
enum LineEdit {
    DeleteLine(usize),
    DuplicateLine(usize),
    SwapLines(usize, usize),
    DeleteToken(usize, usize),
    ReplaceToken(usize, usize, &'static str),
    InsertToken(usize, usize, &'static str),
}

fn line_edit() -> impl Strategy<Value = LineEdit> {
    let at = any::<usize>();
    let token = select(DEFINITION_TOKENS);
    prop_oneof![
        at.prop_map(LineEdit::DeleteLine),
        at.prop_map(LineEdit::DuplicateLine),
        (at, at).prop_map(|(a, b)| LineEdit::SwapLines(a, b)),
        (at, at).prop_map(|(l, t)| LineEdit::DeleteToken(l, t)),
        (at, at, token.clone()).prop_map(|(l, t, x)| LineEdit::ReplaceToken(l, t, x)),
        (at, at, token).prop_map(|(l, t, x)| LineEdit::InsertToken(l, t, x)),
    ]
}

fn edit_lines(seed: &str, edits: &[LineEdit]) -> String {
    let mut lines: Vec<Vec<String>> =
        seed.lines().map(|l| l.split(' ').map(str::to_string).collect()).collect();
    for e in edits {
        let n = lines.len();
        if n == 0 {
            break;
        }
        match *e {
            LineEdit::DeleteLine(l) => {
                lines.remove(l % n);
            }
            LineEdit::DuplicateLine(l) => lines.insert(l % n, lines[l % n].clone()),
            LineEdit::SwapLines(a, b) => lines.swap(a % n, b % n),
            LineEdit::DeleteToken(l, t) => {
                let line = &mut lines[l % n];
                if !line.is_empty() {
                    let k = t % line.len();
                    line.remove(k);
                }
            }
            LineEdit::ReplaceToken(l, t, x) => {
                let line = &mut lines[l % n];
                if !line.is_empty() {
                    let k = t % line.len();
                    line[k] = x.to_string();
                }
            }
            LineEdit::InsertToken(l, t, x) => {
                let line = &mut lines[l % n];
                let k = t % (line.len() + 1);
                line.insert(k, x.to_string());
            }
        }
    }
    lines.iter().map(|l| l.join(" ")).collect::<Vec<_>>().join("\n")
}

fn puzzle(spec: &str) -> Puzzle {
    Puzzle::parse(spec, None).expect("seed puzzles are valid")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn puzzle_specs(seed in select(SPECS), edits in edits(), random in random_text(), pick in 0..3u8) {
        let text = match pick {
            0 => random,
            _ => mutate(seed, &edits),
        };
        harness::spec(&text);
    }

    #[test]
    fn boards(seed in select(BOARDS), edits in edits(), random in random_text(), pick in 0..3u8) {
        let (spec, board) = seed;
        let text = if pick == 0 { random } else { mutate(board, &edits) };
        harness::board(&puzzle(spec), &text);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn sequences_with_letters(
        index in any::<prop::sample::Index>(),
        target in 0..4u8,
        which in any::<prop::sample::Index>(),
        edits in edits(),
        random in random_text(),
    ) {
        let mut case = index.get(sequence_seeds()).clone();
        match target {
            0 => case.text = mutate(&case.text, &edits),
            1 => case.text = random,
            2 if !case.bind.is_empty() => {
                let i = which.index(case.bind.len());
                case.bind[i].1 = mutate(&case.bind[i].1, &edits);
            }
            2 | 3 if !case.define.is_empty() => {
                let i = which.index(case.define.len());
                case.define[i].1 = mutate(&case.define[i].1, &edits);
            }
            _ => case.puzzle = mutate(&case.puzzle, &edits),
        }
        if let Some(p) = harness::spec(&case.puzzle) {
            harness::sequence(&p, &case.bind, &case.define, &case.text);
        }
    }

    #[test]
    fn result_json(index in any::<prop::sample::Index>(), edits in edits(), random in random_text(), pick in 0..4u8) {
        let text = if pick == 0 { random } else { mutate(index.get::<String>(report_seeds()), &edits) };
        harness::report(&text);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn definitions(
        index in any::<prop::sample::Index>(),
        line_edits in prop::collection::vec(line_edit(), 0..6),
        edits in edits(),
        random in random_text(),
        pick in 0..4u8,
    ) {
        let seed = index.get(definition_seeds());
        let text = match pick {
            0 => random,
            1 => mutate(seed, &edits),
            2 => edit_lines(seed, &line_edits),
            _ => mutate(&edit_lines(seed, &line_edits), &edits),
        };
        harness::definition(&text);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn claims_registries(
        index in any::<prop::sample::Index>(),
        edits in edits(),
        mutate_header in prop::bool::weighted(0.1),
    ) {
        let (header, blocks) = registry_parts();
        let block = index.get(blocks);
        let text = if mutate_header {
            mutate(&format!("{header}{block}"), &edits)
        } else {
            format!("{header}{}", mutate(block, &edits))
        };
        harness::registry(&text);
    }
}

/// Every seed is valid: the mutations start from inputs the parsers accept.
#[test]
fn seeds_are_valid() {
    for s in SPECS {
        assert!(harness::spec(s).is_some(), "{s}");
    }
    for (spec, b) in BOARDS {
        assert!(puzzle(spec).parse_board(b).is_ok(), "{b}");
    }
    for c in sequence_seeds() {
        let p = puzzle(&c.puzzle);
        let mut env = twirl::puzzle::sequence::Env::new();
        c.bind.iter().for_each(|(l, v)| env.bind(&p, l, v).unwrap());
        c.define.iter().for_each(|(l, v)| env.define(l, v).unwrap());
        assert!(env.eval_text(&p, &c.text).is_ok(), "{}", c.text);
    }
    let (header, blocks) = registry_parts();
    assert!(blocks.len() > 50);
    for b in blocks.iter().take(3) {
        assert!(Registry::parse(&format!("{header}{b}")).is_ok());
    }
    for r in report_seeds() {
        assert!(twirl::plot::read_report(r).is_ok());
    }
    for d in definition_seeds() {
        assert!(Definition::parse(d).is_ok(), "{d}");
    }
}

// ---- The binary on inputs that used to crash or hang it ----

/// A registry with one claim about `R1C1` on nrp:3x3:2, with the given extra lines.
fn registry_with(claim_lines: &str) -> tempfile::NamedTempFile {
    let text = format!(
        r#"[sources.t]
title = "test"
order = "left-to-right"
convention = "none"

[[claim]]
id = "c"
source = "t"
section = "1"
statement = "s"
puzzle = "nrp:3x3:2"
sequence = "R1C1"
expected = "holds"
{claim_lines}
"#
    );
    let mut f = tempfile::Builder::new().suffix(".toml").tempfile().unwrap();
    std::io::Write::write_all(&mut f, text.as_bytes()).unwrap();
    f
}

fn claims_rejected(claim_lines: &str, needle: &str) {
    let f = registry_with(claim_lines);
    assert_rejected(&["claims", "--registry", f.path().to_str().unwrap()], needle);
}

#[test]
fn deep_nesting_is_refused_not_a_stack_overflow() {
    let deep = "(".repeat(60_000);
    assert_rejected(&["apply", "nrp:3x3:2", &deep], "parentheses nested more than 64 deep");
    let closed = format!("{}R1C1{}", "(".repeat(65), ")".repeat(65));
    assert_rejected(&["apply", "nrp:3x3:2", &closed], "nested more than 64 deep");
    let define = format!("C={}X{}", "(".repeat(60_000), ")".repeat(60_000));
    assert_rejected(
        &["apply", "nrp:3x3:2", "C", "--bind", "X=R1C1", "--define", &define],
        "nested more than 64 deep",
    );
}

/// The `result:` line of `twirl apply`.
fn result_of(args: &[&str]) -> String {
    let o = twirl(args);
    assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
    let out = common::stdout(&o);
    out.lines().find(|l| l.starts_with("result:")).expect("a result line").to_string()
}

#[test]
fn huge_exponents_are_exact() {
    let p = "nrp:3x3:2";
    let solved = "result:   1 2 3 / 4 5 6 / 7 8 9";
    // 10^20 - 1 = 3 (mod 4): three counter-clockwise quarter turns are one clockwise.
    assert_eq!(
        result_of(&["apply", p, "R1C1^99999999999999999999"]),
        result_of(&["apply", p, "R1C1'"])
    );
    assert_eq!(result_of(&["apply", p, "(R1C1)^-9223372036854775808"]), solved);
    // -(2^63 - 1) = 1 (mod 4).
    assert_eq!(
        result_of(&["apply", p, "R1C1^-9223372036854775807"]),
        result_of(&["apply", p, "R1C1"])
    );
    let digits = "7".repeat(50_000);
    // 77...7 (50,000 sevens) = 1 (mod 4) since 100 = 0 (mod 4) and 77 = 1 (mod 4).
    assert_eq!(
        result_of(&["apply", p, &format!("R1C1^{digits}")]),
        result_of(&["apply", p, "R1C1"])
    );
}

#[test]
fn absurd_board_dimensions_are_refused() {
    assert_rejected(&["info", "nrp:100000x100000:2"], "expected at most 65535 cells");
    assert_rejected(&["info", "spin:0x3"], "has no cells");
    assert_rejected(&["info", "spin:65536x65536"], "more than 255 cells");
    assert_rejected(&["info", "nrp:18446744073709551616x2:1"], "is not a number");
    assert_rejected(&["check", "nrp:3x3:99999999999999999999", "1 2 3 4 5 6 7 8 9"], "block size");
    // The largest boards build their moves at once (18,360 spins for 15x17) and a search over
    // them is refused before anything is allocated.
    let o = twirl(&["info", "spin:15x17"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let dir = tempfile::tempdir().unwrap();
    let o = common::bin().current_dir(dir.path()).args(["bfs", "nrp:15x17:2"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(stderr(&o).trim().lines().count(), 1, "{}", stderr(&o));
}

#[test]
fn registry_values_that_size_allocations_are_bounded() {
    claims_rejected(
        "[claim.property]\nbelt_shift = { belt = \"\", by = 1 }",
        "`belt_shift.belt` names no cells",
    );
    claims_rejected(
        "[claim.property]\nfixes = \"1..18446744073709551615\"",
        "cell 18446744073709551615 is outside the board (cells 1..9)",
    );
    claims_rejected(
        "[claim.property]\nmoves_only = \"(1..4000000000,1..4000000000)\"",
        "row 4000000000 is outside the board (rows 1..3)",
    );
    claims_rejected(
        &format!("[claim.property]\nfixes = \"{}\"", "1..9 ".repeat(1000)),
        "at most 4096 cells",
    );
    claims_rejected(
        "for = { n = \"0..9223372036854775807\" }\n[claim.property]\ncycle_type = [4]",
        "`for` expands to more than 1000 instances",
    );
    claims_rejected(
        "for = { n = \"1..100\", m = \"1..100\" }\n[claim.property]\ncycle_type = [4]",
        "`for` expands to more than 1000 instances",
    );
    let deep = format!("{}n{}", "(".repeat(100_000), ")".repeat(100_000));
    claims_rejected(
        &format!("for = {{ n = [4] }}\nstart = \"{{{deep}}}\"\n[claim.property]\ncycle_type = [4]"),
        "nests more than 64 deep",
    );
}

#[test]
fn deeply_nested_toml_is_refused() {
    for text in [
        format!("a = {}", "[".repeat(100_000)),
        format!("a = {}", "{b = ".repeat(100_000)),
        format!("{}b = 1", "a.".repeat(100_000)),
    ] {
        let mut f = tempfile::Builder::new().suffix(".toml").tempfile().unwrap();
        std::io::Write::write_all(&mut f, text.as_bytes()).unwrap();
        assert_rejected(&["claims", "--registry", f.path().to_str().unwrap()], "recurs");
    }
}

#[test]
fn echoed_input_stays_on_one_line() {
    assert_rejected(&["apply", "nrp:3x3:2", "R1C1\n%"], "unexpected `%`");
    assert_rejected(&["apply", "nrp:3x3:2", "R1C1\u{1b}[31m"], "unexpected `\\u{1b}`");
    assert_rejected(&["info", "nrp:3x3\n:9"], "invalid puzzle `nrp:3x3\\n:9`");
    assert_rejected(&["check", "nrp:2x2:2", "1 2\n3 x\u{7}"], "`x\\u{7}` is not a tile number");
    assert_rejected(&["apply", "nrp:3x3:2", "X", "--bind", "X\n=R1C1\n%"], "invalid sequence");
    assert_rejected(&["plot", "no\nsuch\nfile.json"], "no\\nsuch\\nfile.json");
    claims_rejected(
        "[claim.property]\ncycles = \"(1 2\\n3\"",
        "unbalanced parenthesis in `(1 2\\n3`",
    );
    let f = registry_with("[claim.property]\ncycle_type = [4]");
    assert_rejected(
        &["claims", "--registry", f.path().to_str().unwrap(), "--source", "a\nb"],
        "unknown source `a\\nb`",
    );
    // A long input is cut in the message.
    let long = format!("{}%", "X".repeat(10_000));
    let o = twirl(&["apply", "nrp:3x3:2", &long]);
    assert!(stderr(&o).len() < 400, "{}", stderr(&o));
}

#[test]
fn log_plots_reach_the_largest_counts() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("big.json");
    let report = format!(
        r#"{{"puzzle":"nrp:9x9:2","metric":"qtm","states":{max},"gods_number":2,
        "histogram":[1,10000000000000000000,{max}],"antipodes":{max},"antipode_boards":[],
        "elapsed_seconds":1.0,"threads":1,"table_bytes":8}}"#,
        max = u64::MAX
    );
    std::fs::write(&json, report).unwrap();
    // The log axis ends at 10^20 = 100E, the linear one at 20E (steps of 5E).
    for (log, top) in [(true, ">100E</text>"), (false, ">20E</text>")] {
        let svg = dir.path().join("big.svg");
        // The second plot replaces the first: only with --force.
        let mut args = vec!["plot", json.to_str().unwrap(), "--force"];
        if log {
            args.push("--log-scale");
        }
        let o = twirl(&args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let text = std::fs::read_to_string(&svg).unwrap();
        assert!(text.contains(top), "log {log}: no {top} tick");
        assert!(text.contains("18,446,744,073,709,551,615 boards"));
        assert!(!text.contains("\"NaN\"") && !text.contains("\"inf\""));
    }
    let empty = dir.path().join("empty.json");
    std::fs::write(&empty, r#"{"puzzle":"p","metric":"qtm","states":0,"gods_number":0,"histogram":[],"antipodes":0,"antipode_boards":[],"elapsed_seconds":0,"threads":1,"table_bytes":0}"#).unwrap();
    assert_rejected(&["plot", empty.to_str().unwrap()], "the histogram is empty");
}
