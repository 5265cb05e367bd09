//! Runs `twirl apply` and `twirl claims` and checks their output, JSON and exit codes.

mod common;

use common::{assert_rejected, stderr, stdout, twirl};

/// The value of a `key:` line of `twirl apply`.
fn field(out: &str, key: &str) -> String {
    let prefix = format!("{key}:");
    out.lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("no `{key}` in {out}"))
        .trim()
        .to_string()
}

#[test]
fn apply_lams_swap_on_the_standard_board() {
    // REFERENCE.md: X lower-left, Y upper-right, Z lower-right; X Y^-1 X^-1 Y Z swaps two
    // numbers. By hand: 1 2 3 / 5 8 6 / 4 7 9 after X, then 1 8 2 / 5 6 3 / 4 7 9,
    // 1 8 2 / 4 5 3 / 7 6 9, 1 2 3 / 4 8 5 / 7 6 9, and 1 2 3 / 4 5 9 / 7 8 6 after Z.
    let o = twirl(&["apply", "nrp:3x3:2", "X Y^-1 X^-1 Y Z", "--bind", "X=R2C1,Y=R1C2,Z=R2C2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert_eq!(field(&out, "result"), "1 2 3 / 4 5 9 / 7 8 6");
    assert_eq!(field(&out, "cycles"), "(6 9)");
    assert_eq!(field(&out, "summary"), "transposition");
    // The same by block names, and from another start board.
    let o = twirl(&[
        "apply",
        "nrp:3x3:2",
        "R2C1 R1C2' R2C1' R1C2 R2C2",
        "--board",
        "4 1 3 / 6 2 9 / 7 5 8",
    ]);
    assert_eq!(field(&stdout(&o), "result"), "4 1 3 / 6 2 8 / 7 5 9");
}

#[test]
fn apply_shows_colour_classes_for_odd_blocks() {
    let o = twirl(&["apply", "nrp:4x5:4", "(X Y^2 X^-1 Y X^-1 Y^2)^35", "--bind", "X=R1C1,Y=R1C2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(field(&stdout(&o), "summary"), "3-cycle");
    let o = twirl(&[
        "apply",
        "nrp:3x4:3",
        "XYX^-1Y^-1XY^-1XYXYX",
        "--bind",
        "X=R1C1",
        "--bind",
        "Y=R1C2",
    ]);
    let out = stdout(&o);
    assert_eq!(field(&out, "  even cells"), "(8 11)");
    assert_eq!(field(&out, "  odd cells"), "(2 5)(4 10)(7 12)");
    let o = twirl(&["apply", "nrp:6x7:6", "C", "--bind", "X=R1C1,Y=R1C2", "--define", "C=(Y X)^4"]);
    assert_eq!(
        field(&stdout(&o), "result"),
        "21 2 3 4 5 6 28 / 14 9 10 11 12 13 35 / 7 16 17 18 19 20 42 / 1 23 24 25 26 27 41 / 8 30 31 32 33 34 40 / 15 22 29 36 37 38 39"
    );
}

#[test]
fn apply_spins_with_flips_and_json() {
    let o = twirl(&["apply", "spin:3x3", "[2,6]"]);
    let out = stdout(&o);
    assert_eq!(field(&out, "result"), "1 -6 -5 / 4 -3 -2 / 7 8 9");
    assert_eq!(field(&out, "cycles"), "(2 6)(3 5)");
    assert_eq!(field(&out, "flipped"), "2 3 5 6");
    // Sutherland's introduction, upside-down tiles restored: top-left 2x2, then the right edge.
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("a.json");
    let o = twirl(&[
        "apply",
        "spin:3x3",
        "[1,5] [3,9]",
        "--board",
        "-5 -4 -9 / -2 -1 -6 / 7 8 -3",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(field(&stdout(&o), "result"), "1 2 3 / 4 5 6 / 7 8 9");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["result"], "1 2 3 / 4 5 6 / 7 8 9");
    assert_eq!(v["cycles"], "(1 5)(2 4)(3 9)");
    assert_eq!(v["turned"].as_array().unwrap().len(), 7);
    // A 1x2-spin product that is the spin [1,6] (Proposition 5), with a spin bound to a letter.
    let o = twirl(&[
        "apply",
        "spin:3x3:1x2",
        "S [2,5][2,3][4,5][5,6][1,2][4,5][2,3][3,6][1,4]",
        "--bind",
        "S=[1,2],T=[2,3]",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn apply_rejects_bad_sequences() {
    assert_rejected(&["apply", "nrp:3x3:2", "R1C1 Q"], "letter Q is not bound");
    assert_rejected(&["apply", "nrp:3x3:2", "(R1C1"], "unbalanced parenthesis");
    assert_rejected(&["apply", "nrp:3x3:2", "R1C1)"], "unbalanced parenthesis");
    // Huge exponents are exact (tests/parsers.rs); deep nesting is refused.
    let deep = format!("{}R1C1{}", "(".repeat(65), ")".repeat(65));
    assert_rejected(&["apply", "nrp:3x3:2", &deep], "nested more than 64 deep");
    assert_rejected(&["apply", "nrp:3x3:2", "R3C3"], "outside the board");
    assert_rejected(&["apply", "nrp:3x3:2", "[1,2]"], "not a move of nrp:3x3:2");
    assert_rejected(&["apply", "spin:3x3:1x2", "[1,3]"], "(1x3) is not a move");
    assert_rejected(&["apply", "spin:3x3", "R1C1"], "spins are written");
    assert_rejected(&["apply", "nrp:3x3:2", "X", "--bind", "X"], "expected a binding LETTER=MOVES");
    assert_rejected(&["apply", "nrp:3x3:2", "X", "--bind", "X=Y"], "uses the letter Y");
    assert_rejected(&["apply", "nrp:3x3:2", "R1C1", "--board", "1 2 3"], "expected 9 tiles");
}

/// Failing claims as recorded: the findings of the registry.
const FINDINGS: &[&str] = &[
    "lam-A.1-a-meets-belt-n4",
    "lam-4.1-phi-n4",
    "lam-4.3-hide-c2-as-written-large-n7",
    "lam-4.3-hide-c2-as-written-large-n12",
    "lam-5.5-swap-n5",
    "lam-5.5-translated-n5",
    "lam-5.6-3cycle-corners-m4-n5",
    "lam-5.6-3cycle-corners-m6-n6",
    "sutherland-1-intro-printed",
    "sutherland-5-spin-4-5-m3-n3",
];

#[test]
fn claims_json_has_every_verdict_as_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("c.json");
    let o = twirl(&["claims", "--json", json.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let claims = v.as_array().unwrap();
    let count = |source: &str| claims.iter().filter(|c| c["source"] == source).count();
    assert_eq!(count("lam"), 240);
    assert_eq!(count("sutherland"), 58);
    assert!(out.contains(&format!("# {} claims: ", claims.len())), "{out}");
    assert!(out.trim_end().ends_with("0 unexpected"), "{out}");
    for c in claims {
        for key in ["id", "source", "holds", "observed", "expected", "matches_record"] {
            assert!(c.get(key).is_some(), "{c} lacks {key}");
        }
        assert_eq!(c["matches_record"], true, "{c}");
        let failed = c["holds"] == false;
        assert_eq!(failed, c["expected"] == "fails", "{c}");
    }
    let verdict = |id: &str| -> bool {
        let c = claims.iter().find(|c| c["id"] == id).unwrap_or_else(|| panic!("no claim {id}"));
        c["holds"].as_bool().unwrap()
    };
    for id in FINDINGS {
        assert!(!verdict(id), "{id} should fail as published");
    }
    for id in [
        "lam-4.1-cycle-n12",
        "lam-4.1-phi-n5",
        "lam-4.1-figure-3",
        "lam-5.2-swap-m3-n3",
        "lam-5.3-swap",
        "lam-5.5-swap-classes-exchanged-n5",
        "lam-5.7-3cycle",
        "lam-A.2-odd-n11",
        "sutherland-3-identity-2-m3-n3",
        "sutherland-3-identity-3-m3-n3",
        "sutherland-5-spin-1-6-m3-n3",
        "sutherland-5-spin-1-2-m3-n3",
        "sutherland-5-spin-4-5-shortened-m3-n3",
        "sutherland-thm3-spin-1-1-a-m3-n3",
        "sutherland-thm3-spin-1-1-b-m3-n3",
        "sutherland-prop4-m4-n4",
    ] {
        assert!(verdict(id), "{id} should hold");
    }
    let phi = claims.iter().find(|c| c["id"] == "lam-4.1-phi-n4").unwrap();
    assert!(phi["observed"].as_str().unwrap().starts_with("cycles (1 6 17 16)(7 19)"), "{phi}");
}

#[test]
fn claims_by_source_and_registry_errors() {
    let o = twirl(&["claims", "--source", "sutherland"]);
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    assert!(
        out.lines()
            .filter(|l| !l.starts_with(' ') && !l.starts_with('#'))
            .all(|l| l.starts_with("sutherland-"))
    );
    assert_rejected(&["claims", "--source", "nobody"], "unknown source `nobody`");

    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "[sources.t]\ntitle = \"t\"\norder = \"sideways\"\nconvention = \"\"\n")
        .unwrap();
    assert_rejected(&["claims", "--registry", bad.to_str().unwrap()], "line 3");
    assert_rejected(&["claims", "--registry", "/nonexistent/claims.toml"], "reading");

    // A verdict that differs from its record: exit code 1, flagged in the output.
    let wrong = dir.path().join("wrong.toml");
    std::fs::write(
        &wrong,
        r#"[sources.t]
title = "t"
order = "left-to-right"
convention = ""

[[claim]]
id = "swap"
source = "t"
section = "5.2"
statement = "a 3-cycle, recorded as holding"
puzzle = "nrp:3x3:2"
bind = { X = "R2C1", Y = "R1C2", Z = "R2C2" }
sequence = "X Y^-1 X^-1 Y Z"
expected = "holds"
[claim.property]
cycle_type = [3]
"#,
    )
    .unwrap();
    let o = twirl(&["claims", "--registry", wrong.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("swap FAILS (UNEXPECTED: recorded holds)"), "{out}");
    assert!(out.contains("observed: cycles (6 9)"), "{out}");
    assert!(out.contains("# 1 claims: 0 hold, 0 fail as recorded, 1 unexpected"), "{out}");
}
