//! Tests of the registry format and of every property key: each key once where it holds and
//! once where it must fail.

use super::*;

const HEADER: &str = r#"
[sources.t]
title = "test"
order = "left-to-right"
convention = "test"
"#;

/// Checks one claim written as the body of a `[[claim]]` table (plus its property lines).
fn outcome(body: &str) -> Outcome {
    let text = format!(
        "{HEADER}\n[[claim]]\nid = \"c\"\nsource = \"t\"\nsection = \"s\"\nstatement = \"x\"\n{body}"
    );
    let registry = Registry::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(registry.claims.len(), 1);
    check(&registry, &registry.claims[0]).unwrap_or_else(|e| panic!("{e}"))
}

/// The verdict of a sequence claim on `puzzle` with the given property line(s).
fn holds(puzzle: &str, bind: &str, sequence: &str, property: &str) -> (bool, String) {
    let o = outcome(&format!(
        "puzzle = \"{puzzle}\"\nbind = {{ {bind} }}\nsequence = \"{sequence}\"\nexpected = \"holds\"\n[claim.property]\n{property}\n"
    ));
    (o.holds, o.observed)
}

fn registry_error(body: &str) -> String {
    let text = format!("{HEADER}\n{body}");
    Registry::parse(&text).unwrap_err().to_string()
}

// Lam 5.2 on 3x3: X = lower-left, Y = upper-right, Z = lower-right; swaps 6 and 9.
const SWAP: (&str, &str, &str) =
    ("nrp:3x3:2", "X = \"R2C1\", Y = \"R1C2\", Z = \"R2C2\"", "X Y^-1 X^-1 Y Z");

fn swap(property: &str) -> (bool, String) {
    holds(SWAP.0, SWAP.1, SWAP.2, property)
}

#[test]
fn cycle_type_and_cycles() {
    let (h, obs) = swap("cycle_type = [2]");
    assert!(h, "{obs}");
    assert!(obs.contains("cycles (6 9)") && obs.contains("transposition"), "{obs}");
    assert!(!swap("cycle_type = [3]").0);
    assert!(swap("cycles = \"((2,3) (3,3))\"").0);
    assert!(swap("cycles = \"(9 6)\"").0);
    let (h, obs) = swap("cycles = \"(5 9)\"");
    assert!(!h && obs.contains("cycles (6 9) (claimed (5 9))"), "{obs}");
    assert!(!swap("cycles = \"\"").0);
}

#[test]
fn colour_classes() {
    // Lam 5.3 on (3,4,3): a transposition on P_0, three transpositions on P_1.
    let b = "X = \"R1C1\", Y = \"R1C2\"";
    let s = "XYX^-1Y^-1XY^-1XYXYX";
    assert!(holds("nrp:3x4:3", b, s, "cycle_type_even = [2]\ncycle_type_odd = [2, 2, 2]").0);
    assert!(!holds("nrp:3x4:3", b, s, "cycle_type_odd = [2]").0);
    assert!(holds("nrp:3x4:3", b, s, "cycles_even = \"((2,4) (3,3))\"").0);
    assert!(!holds("nrp:3x4:3", b, s, "cycles_odd = \"((2,4) (3,3))\"").0);
    // 2x2 blocks do not keep colours: the check fails and says why.
    let (h, obs) = swap("cycle_type_even = []");
    assert!(!h && obs.contains("tiles leave the even class"), "{obs}");
}

#[test]
fn flips_board_and_tiles() {
    let spin = |seq: &str, prop: &str| holds("spin:3x3", "", seq, prop);
    assert!(spin("[2,6]", "flips = \"2 3 5 6\"").0);
    assert!(!spin("[2,6]", "flips = \"2 3\"").0);
    assert!(spin("[1,2] [1,2]", "flips = \"\"").0);
    assert!(spin("[1,6]", "board = \"-6 -5 -4 / -3 -2 -1 / 7 8 9\"").0);
    assert!(!spin("[1,6]", "board = \"6 5 4 / 3 2 1 / 7 8 9\"").0);
    assert!(spin("[1,6]", "tiles = \"6 5 4 / 3 2 1 / 7 8 9\"").0);
    assert!(!spin("[1,6]", "tiles = \"1 2 3 / 4 5 6 / 7 8 9\"").0);
    // A start board.
    let o = outcome(
        "puzzle = \"spin:3x3\"\nstart = \"1 2 -9 / 4 5 -6 / 7 8 -3\"\nsequence = \"[3,9]\"\nexpected = \"holds\"\n[claim.property]\nboard = \"1 2 3 / 4 5 6 / 7 8 9\"\n",
    );
    assert!(o.holds, "{}", o.observed);
}

#[test]
fn fixes_moves_only_and_moves_out_of() {
    assert!(swap("fixes = \"1..5 (3,1) (3,2)\"").0);
    let (h, obs) = swap("fixes = \"(2,3)\"");
    assert!(!h && obs.contains("moves (2,3)->(3,3)"), "{obs}");
    assert!(swap("moves_only = \"6 9\"").0);
    assert!(!swap("moves_only = \"6\"").0);
    assert!(swap("moves_out_of = { cells = \"6\", set = \"1..8\" }").0);
    assert!(!swap("moves_out_of = { cells = \"6 5\", set = \"1..8\" }").0);
    assert!(!swap("moves_out_of = { cells = \"6 9\" }").0);
}

#[test]
fn sends_and_equals() {
    assert!(swap("sends = [\"6 -> 9\", \"1 2 -> 2 1\"]").0);
    let (h, obs) = swap("sends = [\"6 -> 6\"]");
    assert!(!h && obs.contains("sends (2,3) -> (3,3)"), "{obs}");
    assert!(swap("equals = \"R2C1 R1C2' R2C1' R1C2 R2C2\"").0);
    assert!(!swap("equals = \"R2C1\"").0);
    // `equals` may use moves outside the puzzle's spin types.
    let p = "spin:3x3:1x2";
    let s = "[2,5][2,3][4,5][5,6][1,2][4,5][2,3][3,6][1,4]";
    assert!(holds(p, "", s, "equals = \"[1,6]\"").0);
    assert!(!holds(p, "", s, "equals = \"[1,5]\"").0);
}

#[test]
fn belt_shift_and_meets() {
    let b = "X = \"R1C1\", Y = \"R1C2\"";
    let belt = "(1..6,1) (6,2..6) (6..1,7)";
    let cyc = |by: i64| {
        holds(
            "nrp:6x7:6",
            b,
            "(Y X)^4",
            &format!("belt_shift = {{ belt = \"{belt}\", by = {by} }}"),
        )
    };
    assert!(cyc(3).0);
    assert!(cyc(3 + 17).0);
    let (h, obs) = cyc(2);
    assert!(!h && obs.contains("advanced by 3"), "{obs}");
    // A single X does not keep the belt.
    let (h, obs) =
        holds("nrp:6x7:6", b, "X", &format!("belt_shift = {{ belt = \"{belt}\", by = 0 }}"));
    assert!(!h && obs.contains("leaves it"), "{obs}");
    let a = "X Y Y X Y^-1 X^-1";
    assert!(
        holds(
            "nrp:6x7:6",
            b,
            a,
            &format!("meets = {{ set = \"{belt}\", count = 1, at = \"(6,7)\" }}")
        )
        .0
    );
    assert!(
        !holds(
            "nrp:6x7:6",
            b,
            a,
            &format!("meets = {{ set = \"{belt}\", count = 1, at = \"(1,1)\" }}")
        )
        .0
    );
    assert!(!holds("nrp:6x7:6", b, a, &format!("meets = {{ set = \"{belt}\", count = 2 }}")).0);
}

#[test]
fn power_gives_3_cycle() {
    let b = "X = \"R1C1\", Y = \"R1C2\"";
    let (h, obs) = holds("nrp:4x5:4", b, "XY^2X^-1YX^-1Y^2", "power_gives_3_cycle = true");
    assert!(h && obs.contains("the power 35"), "{obs}");
    assert!(!holds("nrp:4x5:4", b, "X", "power_gives_3_cycle = true").0);
    assert!(holds("nrp:4x5:4", b, "X", "power_gives_3_cycle = false").0);
}

#[test]
fn several_properties_must_all_hold() {
    assert!(swap("cycle_type = [2]\nfixes = \"1\"").0);
    assert!(!swap("cycle_type = [2]\nfixes = \"6\"").0);
}

#[test]
fn failing_claims_report_other_readings() {
    // X Y read left to right is not Y X; the right-to-left reading is.
    let b = "X = \"R1C1\", Y = \"R1C2\"";
    let (h, obs) = holds("nrp:3x3:2", b, "X Y", "board = \"3 2 6 / 1 4 5 / 7 8 9\"");
    assert!(!h);
    assert!(obs.contains("read right-to-left: holds"), "{obs}");
    assert!(obs.contains("letters turning the other way: fails too"), "{obs}");
    // Clockwise letters: X' Y' read left to right.
    let (h, obs) = holds("nrp:3x3:2", b, "Y X", "board = \"4 1 2 / 6 5 3 / 7 8 9\"");
    assert!(!h);
    assert!(obs.contains("letters turning the other way: holds"), "{obs}");
}

#[test]
fn templates_expand_into_one_claim_per_size() {
    let text = format!(
        "{HEADER}\n[[claim]]\nid = \"c\"\nsource = \"t\"\nsection = \"s\"\nstatement = \"{{literal}} braces\"\npuzzle = \"nrp:{{n}}x{{n+1}}:{{n}}\"\nfor = {{ n = \"4..6\" }}\nbind = {{ X = \"R1C1\", Y = \"R1C2\" }}\nsequence = \"(Y X)^4\"\nexpected = \"holds\"\n[claim.property]\nbelt_shift = {{ belt = \"(1..{{n}},1) ({{n}},2..{{n}}) ({{n}}..1,{{n+1}})\", by = \"{{n-3}}\" }}\n"
    );
    let r = Registry::parse(&text).unwrap();
    let ids: Vec<&str> = r.claims.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["c-n4", "c-n5", "c-n6"]);
    assert_eq!(r.claims[2].puzzle, "nrp:6x7:6");
    assert_eq!(r.claims[0].statement, "{literal} braces");
    assert!(check_all(&r, None).unwrap().iter().all(|o| o.holds));
    let text = text.replace("for = { n = \"4..6\" }", "for = [{ n = 4, m = 1 }]");
    assert_eq!(Registry::parse(&text).unwrap().claims[0].id, "c-m1-n4");
}

#[test]
fn registry_errors_name_the_problem_and_line() {
    let e = registry_error("[[claim]]\nid = \"c\"\nid = \"d\"\n");
    assert!(e.contains("line 9") && e.contains("duplicate key"), "{e}");
    let claim = |extra: &str| {
        format!(
            "[[claim]]\nid = \"c\"\nsource = \"t\"\nsection = \"s\"\nstatement = \"x\"\npuzzle = \"nrp:3x3:2\"\nsequence = \"R1C1\"\nexpected = \"holds\"\n{extra}"
        )
    };
    let e = registry_error(&claim("colour = 1\n[claim.property]\ncycle_type = [4]\n"));
    assert!(e.contains("claim at line 7") && e.contains("unknown field `colour`"), "{e}");
    let e = registry_error(&claim("[claim.property]\ncycle_typ = [4]\n"));
    assert!(e.contains("unknown field `cycle_typ`"), "{e}");
    let e = registry_error(&claim(""));
    assert!(e.contains("needs a [claim.property]"), "{e}");
    let e = registry_error(
        &claim("[claim.property]\ncycle_type = [4]\n").replace("\"t\"", "\"nobody\""),
    );
    assert!(e.contains("unknown source `nobody`"), "{e}");
    let twice = claim("[claim.property]\ncycle_type = [4]\n");
    let e = registry_error(&format!("{twice}\n{twice}"));
    assert!(e.contains("used twice"), "{e}");
    let e = registry_error(&claim("for = { n = \"4..5\" }\n[claim.property]\nfixes = \"{k}\"\n"));
    assert!(e.contains("unknown variable `k`"), "{e}");
    let e = registry_error(&claim("expected = \"maybe\"\n"));
    assert!(e.contains("line"), "{e}");
    // Malformed properties and sequences are errors when checked, not findings.
    let r =
        Registry::parse(&format!("{HEADER}\n{}", claim("[claim.property]\nfixes = \"(9,9)\"\n")))
            .unwrap();
    let e = check(&r, &r.claims[0]).unwrap_err().to_string();
    assert!(e.contains("claim `c` (line 7)") && e.contains("outside the 3x3 board"), "{e}");
    let r = Registry::parse(&format!(
        "{HEADER}\n{}",
        claim("[claim.property]\ncycle_type = [4]\n").replace("R1C1", "Q")
    ))
    .unwrap();
    assert!(check(&r, &r.claims[0]).unwrap_err().to_string().contains("letter Q is not bound"));
}

#[test]
fn lee_staged_claims_need_a_statement_and_can_fail() {
    let claim = |lee: &str| {
        format!(
            "{HEADER}\n[[claim]]\nid = \"lee\"\nsource = \"t\"\nsection = \"s\"\nstatement = \"x\"\nkind = \"lee_staged\"\npuzzle = \"nrp:3x3:2\"\nexpected = \"holds\"\n{lee}"
        )
    };
    let e = Registry::parse(&claim("")).unwrap_err().to_string();
    assert!(e.contains("[claim.lee]"), "{e}");
    let r =
        Registry::parse(&claim("[claim.lee]\nwhat = \"turns_at_most\"\nat_most = 56\n")).unwrap();
    let o = check(&r, &r.claims[0]).unwrap();
    assert!(!o.holds && o.observed.starts_with("at most 57 turns (24 boards"), "{}", o.observed);
    let r =
        Registry::parse(&claim("[claim.lee]\nwhat = \"turns_at_most\"\nat_most = 57\n")).unwrap();
    assert!(check(&r, &r.claims[0]).unwrap().holds);
}

#[test]
fn builtin_registry_matches_its_records() {
    let r = Registry::builtin();
    let outcomes = check_all(&r, None).unwrap();
    let bad: Vec<&str> =
        outcomes.iter().filter(|o| !o.matches_record).map(|o| o.id.as_str()).collect();
    assert!(bad.is_empty(), "verdicts differ from the record: {bad:?}");
    let lam = outcomes.iter().filter(|o| o.source == "lam").count();
    let sutherland = outcomes.iter().filter(|o| o.source == "sutherland").count();
    assert!(lam >= 40 && sutherland >= 20, "lam {lam}, sutherland {sutherland}");
    for o in outcomes.iter().filter(|o| o.sequence.is_some()) {
        assert!(o.observed.starts_with("cycles "), "{}: {}", o.id, o.observed);
    }
    for o in outcomes.iter().filter(|o| o.expected == Verdict::Fails) {
        assert!(o.note.is_some(), "{} fails without a note", o.id);
    }
}
