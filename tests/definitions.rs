//! `def:FILE` end to end: a definition file searched, solved, checked and refused by the
//! binary, with the figures twsearch gives for the same file.

use std::path::Path;

mod common;

use common::{assert_rejected, stderr, stdout, twirl};

const CUBE2: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/definitions/cube2.tws");
const SMALLER_GROUP: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/data/definitions/smaller_group.tws");
const M24: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/definitions/m24.tws");
const PENTADS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/definitions/pentads.tws");

fn def(path: &Path) -> String {
    format!("def:{}", path.display())
}

/// The boards at each distance, read from `twirl bfs` output.
fn histogram(out: &str) -> Vec<u64> {
    out.lines()
        .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
        .map(|l| l.split_whitespace().nth(1).unwrap().parse().unwrap())
        .collect()
}

/// `twirl bfs SPEC` finds `expected` with symmetry (by classes) and without (by boards).
fn assert_histogram_by_classes_and_boards(spec: &str, expected: &[u64]) {
    for symmetry in ["on", "off"] {
        let o = twirl(&["bfs", spec, "-q", "--symmetry", symmetry]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(histogram(&stdout(&o)), expected, "--symmetry {symmetry}");
    }
}

/// The 2x2x2 with a fixed corner: the order from the stabilizer chain, and the half-turn
/// distribution twsearch prints for the same file (`twsearch -g cube2.tws`).
#[test]
fn cube2_order_and_search() {
    let o = twirl(&["order", &format!("def:{CUBE2}")]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o).lines().next(), Some("3674160"));
    let o = twirl(&["bfs", &format!("def:{CUBE2}"), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        histogram(&stdout(&o)),
        [1, 9, 54, 321, 1847, 9992, 50136, 227536, 870072, 1887748, 623800, 2644]
    );
    // In qtm (twsearch -q): quarter turns only.
    let o = twirl(&["bfs", &format!("def:{CUBE2}"), "--metric", "qtm", "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let qtm = histogram(&stdout(&o));
    assert_eq!(qtm.len(), 15, "God's number 14 in the quarter-turn metric");
    assert_eq!(qtm.iter().sum::<u64>(), 3_674_160);
}

/// Boards as move sequences or in the file's layout; solutions named by the file's moves.
#[test]
fn cube2_boards_solve_and_check() {
    let spec = format!("def:{CUBE2}");
    let o = twirl(&["solve", &spec, "R U R' F"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert_eq!(out.lines().next().unwrap().split_whitespace().count(), 4, "{out}");
    let o = twirl(&["apply", &spec, "R U"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let result = stdout(&o)
        .lines()
        .find_map(|l| l.strip_prefix("result:").map(|r| r.trim().to_string()))
        .unwrap();
    assert!(result.starts_with("CORNERS "), "{result}");
    let o = twirl(&["distance", &spec, &result]);
    assert_eq!(stdout(&o).trim(), "2", "{}", stderr(&o));
    // One corner twisted alone cannot be solved: exit 1 with the orientation sum.
    let o = twirl(&["check", &spec, "CORNERS 1 2 3 4 5 6 7 / 1 0 0 0 0 0 0"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stdout(&o).contains("orientation sum"), "{}", stdout(&o));
    assert_rejected(&["solve", &spec, "R U X"], "`X` is not a move");
    assert_rejected(&["check", &spec, "CORNERS 1 2 3"], "expected 7 piece numbers, found 3");
}

/// A malformed file names its line; a table is refused once its definition changed.
/// Pieces whose orientation is not seen: a solution is checked, and a board printed, with
/// their turns as the search sees them (none), whatever turns the moves gave them.
#[test]
fn boards_with_unseen_orientations_solve_and_print_as_seen() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cube2_three.tws");
    let text = std::fs::read_to_string(CUBE2).unwrap();
    let text = text.replacen("1 2 3 4 5 6 7\nEnd", "1 2 3 4 4 4 4\n0 0 0 ? ? ? ?\nEnd", 1);
    std::fs::write(&file, text).unwrap();
    let spec = def(&file);
    for method in ["table", "optimal"] {
        let o = twirl(&["solve", &spec, "R U R' F", "--method", method]);
        assert!(o.status.success(), "{method}: {}", stderr(&o));
        let moves = stdout(&o).lines().next().unwrap().split_whitespace().count();
        assert!((1..=4).contains(&moves), "{method}: {}", stdout(&o));
    }
    let record = dir.path().join("sample.jsonl");
    let o = twirl(&["sample", &spec, "-n", "3", "--record", record.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    // A table's boards at each distance are listed, as many as its histogram counts (each
    // listed board's descent reaches the solved board, unseen turns and all).
    let table = dir.path().join("three.tbl");
    let table = table.to_str().unwrap();
    let o = twirl(&["bfs", &spec, "--table", table, "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let histogram: Vec<(String, usize)> = (stdout(&o).lines())
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() == 4 && f[0].parse::<u32>().is_ok())
                .then(|| (f[0].into(), f[1].parse().unwrap()))
        })
        .collect();
    assert_eq!(histogram.iter().map(|h| h.1).sum::<usize>(), 210 * 27, "{}", stdout(&o));
    for (d, count) in &histogram[1..] {
        let o = twirl(&["boards", table, "--distance", d]);
        assert!(o.status.success(), "distance {d}: {}", stderr(&o));
        let out = stdout(&o);
        let listed: std::collections::HashSet<&str> = out.lines().collect();
        assert_eq!(listed.len(), *count, "distance {d}");
    }
    // F turns two of the unseen pieces: the result shows no turn on them.
    let o = twirl(&["apply", &spec, "F"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("result:   CORNERS 2 4 3 4 1 4 4 / 2 0 0 0 1 0 0"),
        "{}",
        stdout(&o)
    );
}

/// A table of a subset taken on the command line (`--ignore`) is read back as that subset:
/// `distance`, `solve` and `boards` answer from it (they rebuilt the whole file and could
/// not), and `bfs` refuses it for another subset or the whole file.
#[test]
fn tables_of_subsets_read_back_as_the_subset() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("three.tbl");
    let table = table.to_str().unwrap();
    let spec = def(std::path::Path::new(CUBE2));
    let json = dir.path().join("three.json");
    let json = json.to_str().unwrap();
    let args = ["bfs", &spec, "--ignore", "CORNERS:4-7", "--table", table, "--json", json, "-q"];
    let o = twirl(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    // Reports name the subset as the command line gave it: the whole file's numbers differ.
    let named = format!("{spec} --ignore CORNERS:4,5,6,7");
    assert!(stdout(&o).starts_with(&format!("# {named} metric=htm ")), "{}", stdout(&o));
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(json).unwrap()).unwrap();
    assert_eq!(report["puzzle"], named.as_str());
    let o = twirl(&["distance", table, "CORNERS 1 2 3 4 4 4 4 / 0 0 0 0 0 0 0", "--json", "-"]);
    let answer: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!((&answer["puzzle"], &answer["distance"]), (&named.as_str().into(), &0.into()));
    let board = "CORNERS 3 4 2 1 4 4 4 / 0 2 1 0 0 0 0";
    let o = twirl(&["distance", table, board]);
    let d: usize = stdout(&o).trim().parse().unwrap_or_else(|_| panic!("{}", stderr(&o)));
    let o = twirl(&["solve", table, board]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o).lines().next().unwrap().split_whitespace().count(), d);
    let o = twirl(&["boards", table, "--distance", "1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o).lines().count(), 9, "{}", stdout(&o));
    let again = ["bfs", &spec, "--ignore", "CORNERS:3-7", "--table", table, "-q"];
    assert_rejected(&again, "holds a finished table of def:");
    assert_rejected(&again, " --ignore CORNERS:4,5,6,7");
}

#[test]
fn bad_files_and_changed_definitions_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.tws");
    std::fs::write(&bad, "Set A 3 1\nSolved\nA\n1 2 3\nEnd\nMove M\nA\n2 3 3\nEnd\n").unwrap();
    assert_rejected(&["bfs", &def(&bad)], "line 8");
    assert_rejected(&["bfs", "def:/nonexistent/x.tws"], "cannot read the definition file");

    let file = dir.path().join("cube2.tws");
    let text = std::fs::read_to_string(CUBE2).unwrap();
    std::fs::write(&file, &text).unwrap();
    let table = dir.path().join("c.tbl");
    let table = table.to_str().unwrap();
    let o = twirl(&["bfs", &def(&file), "--metric", "qtm", "--table", table, "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = twirl(&["distance", table, "R U"]);
    assert_eq!(stdout(&o).trim(), "2", "{}", stderr(&o));
    // Another file at the same path (a move renamed): no longer the definition searched.
    std::fs::write(&file, text.replace("Move F", "Move G")).unwrap();
    assert_rejected(&["distance", table, "R U"], "the definition file changed");
}

/// A declared move named like another's power (`R2` beside `R` of order 4) is refused by
/// every command with the line and both names: twsearch would keep two moves named `R2`.
#[test]
fn declared_names_colliding_with_powers_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("names.tws");
    let text = std::fs::read_to_string(CUBE2).unwrap().replace("Move F", "Move R2");
    std::fs::write(&file, &text).unwrap();
    let line = text.lines().position(|l| l == "Move R2").unwrap() + 1;
    let first = text.lines().position(|l| l == "Move R").unwrap() + 1;
    let needle = format!(
        "line {line}: moves `R` (line {first}) and `R2` (line {line}) both give a move named `R2`"
    );
    for metric in ["htm", "qtm", "cw"] {
        assert_rejected(&["bfs", &def(&file), "--metric", metric], &needle);
    }
    assert_rejected(&["apply", &def(&file), "R2"], &needle);
    assert_rejected(&["solve", &def(&file), "R2 U"], &needle);
    // Renamed, the same moves read, and a solution printed reads back to the board.
    std::fs::write(&file, text.replace("Move R2", "Move F")).unwrap();
    let o = twirl(&["solve", &def(&file), "R2 U F'"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let solution = stdout(&o).lines().next().unwrap().trim().to_string();
    assert_eq!(solution, "F U' R2");
    let o = twirl(&["apply", &def(&file), &format!("R2 U F' {solution}")]);
    assert!(stdout(&o).contains("summary:  identity"), "{}", stdout(&o));
}

/// A definition exported by twirl, read back, searches like the built-in puzzle.
#[test]
fn exported_definitions_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("spin.tws");
    let o = twirl(&["export-def", "spin:2x3", "-o", file.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let native = twirl(&["bfs", "spin:2x3", "-q"]);
    let read = twirl(&["bfs", &def(&file), "-q"]);
    assert_eq!(histogram(&stdout(&read)), histogram(&stdout(&native)));
    assert_eq!(histogram(&stdout(&read)), [1, 18, 178, 1272, 6970, 22467, 15024, 150]);
}

/// M24, a group whose invariants allow 24!/2 boards and no search over their coordinates
/// finds the ones reached (one orbit of 24 cells): ranked by its stabilizer chain, one entry
/// per board. The histogram of `twsearch -t 2 -g samples/main/m24conway.tws` (the same two
/// moves; rokicki/twsearch 268d1a3, 2026-11-29), in htm: every power of R is one move.
#[test]
#[ignore = "a minute with 2 threads: run with --ignored (src/rank/chain.rs tests the path)"]
fn m24_is_searched_by_its_stabilizer_chain() {
    let spec = format!("def:{M24}");
    let o = twirl(&["info", &spec]);
    assert!(stdout(&o).contains("ranking: by the group's stabilizer chain"), "{}", stdout(&o));
    assert!(stdout(&o).contains("table: 244823040 entries"), "{}", stdout(&o));
    let o = twirl(&["bfs", &spec, "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        histogram(&stdout(&o)),
        [
            1, 23, 44, 504, 878, 9551, 16632, 179880, 312092, 3333993, 5686316, 53267905, 65375126,
            115590954, 1048727, 414
        ]
    );
}

/// A group smaller than its invariants and too large to list: NRP (2,3,2)'s 120 boards of
/// 720 arrangements, beside two sets, 5,598,720 boards of the 33,592,320 the invariants
/// allow. Its ranks count the boards alone (the arrangements of T the moves reach are
/// found), with symmetry and without; a table of it is read back.
#[test]
fn groups_smaller_than_their_invariants_are_ranked_densely() {
    // `twsearch -t 1 -g smaller_group.tws` (2026-11-24).
    let twsearch = [
        1, 19, 154, 827, 3470, 11928, 35724, 94925, 221284, 447949, 751283, 1033821, 1129932,
        939818, 586448, 259739, 70329, 10334, 735,
    ];
    use std::io::BufRead;
    let spec = format!("def:{SMALLER_GROUP}");
    let o = twirl(&["info", &spec]);
    // The coupling of T's arrangements is found: one entry per board, and classes under the
    // 48 symmetries and inversion with the whole arrangement first.
    assert!(stdout(&o).contains("table: 5598720 entries"), "{}", stdout(&o));
    assert!(stdout(&o).contains("207360 arrangements in 14152 classes"), "{}", stdout(&o));
    assert_histogram_by_classes_and_boards(&spec, &twsearch);

    // A job stopped by SIGTERM after distance 12, then resumed to the end.
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("smaller.tbl");
    let table = table.to_str().unwrap();
    let mut child = common::bin()
        .args(["bfs", &spec, "--table", table, "--test-pause-after", "12"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let head = lines.next().unwrap().unwrap();
    assert!(head.contains("boards=5598720 "), "{head}");
    assert!(lines.any(|l| l.unwrap().split_whitespace().next() == Some("12")));
    std::process::Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
    let o = twirl(&["resume", table]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(histogram(&stdout(&o))[13..], twsearch[13..], "{}", stdout(&o));
    // Read back through every check of a finished table (unreached entries allowed).
    let o = twirl(&["distance", table, "T 2 5 3 1 4 6"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o).trim(), "1");
    // One swap of T: inside the invariants (T's sign is free), outside the group.
    let outside = "T 2 1 3 4 5 6";
    let o = twirl(&["check", &spec, outside]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let o = twirl(&["distance", table, outside]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("unsolvable board"), "{}", stderr(&o));
}

/// Orientations modulo 5 (once refused: a byte of the fast layout holds three bits of
/// orientation, and a sum of two turns mod 5 needs four): one entry per board, searched with
/// symmetry and without, the histogram twsearch gives.
#[test]
fn orientations_mod_5_are_searched() {
    // `twsearch -g pentads.tws` (2026-12-05).
    let twsearch = [
        1, 29, 252, 1192, 8588, 32550, 221566, 622500, 2485686, 4272701, 2816599, 738944, 46996,
        2396,
    ];
    let spec = format!("def:{PENTADS}");
    let o = twirl(&["info", &spec]);
    assert!(stdout(&o).contains("table: 11250000 entries"), "{}", stdout(&o));
    assert!(stdout(&o).contains("symmetries: order 16"), "{}", stdout(&o));
    assert_histogram_by_classes_and_boards(&spec, &twsearch);
}

/// A definition of one move, disjoint cycles of the primes 2 to 37 (197 pieces, 1.2 KB): its
/// order is their product, 7,420,738,134,810. In htm every power is a move: listing them
/// asked for 118 TB and aborted (exit 134). Refused up front; qtm keeps two moves.
#[test]
fn a_move_of_huge_order_is_refused_in_htm_with_its_order() {
    let primes = [2usize, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37];
    let n: usize = primes.iter().sum();
    let mut perm = Vec::new();
    let mut start = 1;
    for p in primes {
        // A cycle over start..start + p: each position takes the next one's piece.
        perm.extend((0..p).map(|i| start + (i + 1) % p));
        start += p;
    }
    let line = |v: &[usize]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(" ");
    let text = format!(
        "Name Huge\nSet P {n} 1\nSolved\nP\n{}\nEnd\nMove X\nP\n{}\nEnd\n",
        line(&(1..=n).collect::<Vec<_>>()),
        line(&perm)
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.tws");
    std::fs::write(&path, &text).unwrap();
    let spec = def(&path);
    let why = "move X has order 7420738134810; htm makes every power a move: expected at most \
               4096 powers of a move, found 7420738134809; use --metric qtm";
    let started = std::time::Instant::now();
    for cmd in ["info", "order", "bfs"] {
        assert_rejected(&[cmd, &spec], why);
    }
    assert_rejected(&["apply", &spec, "X"], why);
    assert!(started.elapsed().as_secs() < 10, "{:?}", started.elapsed());
    // In qtm the move and its inverse are the moves; powers still read by name.
    let o = twirl(&["apply", &spec, "X1000000 X'", "--metric", "qtm"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = twirl(&["apply", &spec, "X3710369067405", "--metric", "qtm"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = twirl(&["apply", &spec, "X3710369067405'", "--metric", "qtm"]);
    assert_eq!(o.status.code(), Some(2), "past half the order: {}", stderr(&o));
}

/// Subsets on the command line: `--moves R,U` gives the <R,U> group of the 2x2x2 with the
/// counts twsearch prints for `twsearch --moves R,U -g samples/main/2x2x2.tws`; the flags
/// are refused on built-in puzzles; `info` shows the smaller puzzle.
#[test]
fn subsets_from_the_command_line() {
    let spec = format!("def:{CUBE2}");
    let o = twirl(&["bfs", &spec, "--moves", "R,U", "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        histogram(&stdout(&o)),
        [1, 6, 18, 53, 148, 400, 910, 1882, 3276, 4628, 6198, 6325, 4352, 941, 22]
    );
    let o = twirl(&["info", &spec, "--moves", "R,U"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("moves: 6 (each undone by another move): R R2 R' U U2 U'"));
    let o = twirl(&["order", &spec, "--noorientation"]);
    assert_eq!(stdout(&o).lines().next(), Some("5040"), "{}", stderr(&o));
    let o = twirl(&["order", &spec, "--identical", "CORNERS:1,2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_rejected(
        &["info", "nrp:3x3:2", "--moves", "R1C1"],
        "applies to def:<file> puzzles only",
    );
    assert_rejected(&["info", &spec, "--omit", "EDGES"], "found `EDGES`");
    assert_rejected(&["info", &spec, "--moves", "R,Q"], "found `Q`");
}

/// A file with `Illegal` lines: `info` and `order` read it and say so; searches refuse it.
#[test]
fn illegal_boards_refuse_the_search_only() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("illegal.tws");
    let text = std::fs::read_to_string(CUBE2).unwrap() + "\nIllegal CORNERS 1 2\n";
    std::fs::write(&path, text).unwrap();
    let o = twirl(&["info", &def(&path)]);
    assert!(stdout(&o).contains("1 `Illegal` placement"), "{}{}", stdout(&o), stderr(&o));
    let o = twirl(&["order", &def(&path)]);
    assert_eq!(stdout(&o).lines().next(), Some("3674160"));
    assert_rejected(&["bfs", &def(&path)], "searches cannot avoid illegal boards");
}

/// A position line (1-based) where each position in `cycle` takes the next one's piece.
fn cycle_line(size: usize, cycle: &[usize]) -> String {
    let mut perm: Vec<usize> = (1..=size).collect();
    for (i, &p) in cycle.iter().enumerate() {
        perm[p - 1] = cycle[(i + 1) % cycle.len()];
    }
    perm.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(" ")
}

/// 24 pieces, each alone in its orbit, flipped in neighbouring pairs: 2^24 combinations of
/// the orbits' orientation sums, more than twirl lists, of which the moves reach the 2^23
/// with an even number of flips. `info`, `order` and `check` count and judge them by
/// elimination; a search is refused with the limit and what the file holds.
#[test]
fn orbits_too_many_to_list_their_invariants() {
    let n = 24;
    let cells: Vec<String> = (1..=n).map(|i| i.to_string()).collect();
    let flips = |on: &[usize]| {
        let f: Vec<&str> = (1..=n).map(|i| if on.contains(&i) { "1" } else { "0" }).collect();
        f.join(" ")
    };
    let mut text = format!("Set A {n} 2\nSolved\nA\n{}\n{}\nEnd\n", cells.join(" "), flips(&[]));
    for i in 1..n {
        text += &format!("Move F{i}\nA\n{}\n{}\nEnd\n", cells.join(" "), flips(&[i, i + 1]));
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("flips.tws");
    std::fs::write(&path, text).unwrap();
    let spec = def(&path);

    let o = twirl(&["order", &spec]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o).lines().next(), Some("8388608"));
    let o = twirl(&["info", &spec]);
    assert!(o.status.success(), "{}", stderr(&o));
    let info = stdout(&o);
    for line in [
        "orbits: 24",
        "orientation sum(O23) + orientation sum(O24) = 0 (mod 2)\n",
        "boards allowed by the invariants: 8388608",
        "group order (stabilizer chain):   8388608 (",
        "table: none: unsupported move group: expected at most 4194304 combinations of the \
         orbits' parities and orientation sums to index, found 16777216 (24 orbits); its \
         8388608 boards are more than the 5000000 listed one by one; searchable with at most \
         4194304 combinations of parities and orientation sums",
    ] {
        assert!(info.contains(line), "expected `{line}` in\n{info}");
    }
    let board = |on: &[usize]| format!("A {} / {}", cells.join(" "), flips(on));
    let o = twirl(&["check", &spec, &board(&[3, 17])]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let o = twirl(&["check", &spec, &board(&[3])]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("because the moves keep"), "{}", stdout(&o));
    assert_rejected(&["bfs", &spec], "to index, found 16777216 (24 orbits)");
}

/// `n` dials, each a cell of its own turning modulo `modulus` by its own move.
fn dials(n: usize, modulus: u8) -> String {
    let mut text = String::new();
    for i in 1..=n {
        text += &format!("Set D{i} 1 {modulus}\n");
    }
    text += "Solved\n";
    for i in 1..=n {
        text += &format!("D{i}\n1\n0\n");
    }
    text += "End\n";
    for m in 1..=n {
        text += &format!("Move M{m}\n");
        for i in 1..=n {
            text += &format!("D{i}\n1\n{}\n", u8::from(i == m));
        }
        text += "End\n";
    }
    text
}

/// Orientations modulo 12, past what the layouts hold: five dials' 248,832 boards are
/// listed and searched, each power of a move one move in htm, so `C(5, d) * 11^d` boards
/// stand `d` moves from solved. Seven dials (35,831,808 boards, as many combinations of their
/// orientation sums) are refused by `info` with every reason and what would lift it.
#[test]
fn dials_turning_modulo_12() {
    let dir = tempfile::tempdir().unwrap();
    let five = dir.path().join("five.tws");
    std::fs::write(&five, dials(5, 12)).unwrap();
    let o = twirl(&["bfs", &def(&five), "-q", "--symmetry", "off"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let choose = |d: u64| (0..d).fold(1, |c, i| c * (5 - i) / (i + 1));
    let expected: Vec<u64> = (0..=5).map(|d| choose(d) * 11u64.pow(d as u32)).collect();
    assert_eq!(histogram(&stdout(&o)), expected);

    let seven = dir.path().join("seven.tws");
    std::fs::write(&seven, dials(7, 12)).unwrap();
    let o = twirl(&["info", &def(&seven)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let info = stdout(&o);
    for part in [
        "found 35831808 (7 orbits); orientations turn past the modulo 8 the searches' layouts \
         hold (O1 modulo 12, O2 modulo 12,",
        "O7 modulo 12); its 35831808 boards are more than the 5000000 listed one by one; \
         searchable with at most 4194304 combinations of parities and orientation sums, and \
         orientations modulo 8 at most or at most 5000000 boards",
    ] {
        assert!(info.contains(part), "expected `{part}` in\n{info}");
    }
    assert_rejected(&["bfs", &def(&seven)], "found 35831808 (7 orbits)");
}

/// Identical pieces among more boards than 64-bit ranks count (30 distinct pieces in any
/// order, and two alike that swap): refused at once with the exact count, before any
/// ranking is tried.
#[test]
fn identical_pieces_past_64_bit_ranks() {
    let n = 30;
    let cells: Vec<usize> = (1..=n).collect();
    let line = |v: &[usize]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(" ");
    let mut cycle: Vec<usize> = (2..=n).collect();
    cycle.push(1);
    let mut swap = cells.clone();
    swap.swap(0, 1);
    let text = format!(
        "Set A {n} 1\nSet B 2 1\nSolved\nA\n{}\nB\n1 1\nEnd\n\
         Move X\nA\n{}\nEnd\nMove Y\nA\n{}\nEnd\nMove Z\nB\n2 1\nEnd\n",
        line(&cells),
        line(&cycle),
        line(&swap)
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("alike.tws");
    std::fs::write(&path, text).unwrap();
    let spec = def(&path);
    let f30: num_bigint::BigUint = (1..=30u32).product();
    // 30! * 2 elements, B's swap among them: 30! boards.
    let refusal = format!("table does not fit: {f30} boards: more than 64-bit ranks can count");
    let o = twirl(&["info", &spec]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains(&format!("table: none: {refusal}")), "{}", stdout(&o));
    assert_rejected(&["bfs", &spec], &refusal);
}

/// Identical pieces whose bounds leave a ranking by fibres to try, where the exact count
/// refuses them at once: one 17-cycle and one swap acting alike on two sets, A's pieces in
/// pairs by position, B's by position mod 9. A board shows both, which name every piece:
/// `17!` boards, past what fibres hold (2^22 projections of 2^26 boards), where A alone
/// shows `17! / 2^8` and the group over its 2^16 exchanges says `17! / 2^16`. `info` and
/// `order` count them by testing the 65,536 exchanges (the cosets took 2.3 s).
#[test]
fn identical_pieces_refused_by_their_exact_count() {
    let n = 17;
    let line = |v: &[usize]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(" ");
    let cycle: Vec<usize> = (2..=n).chain([1]).collect();
    let swap: Vec<usize> = [2, 1].into_iter().chain(3..=n).collect();
    let pairs: Vec<usize> = (0..n).map(|i| i / 2 + 1).collect();
    let residues: Vec<usize> = (0..n).map(|i| i % 9 + 1).collect();
    let moves =
        |name: &str, p: &[usize]| format!("Move {name}\nA\n{}\nB\n{}\nEnd\n", line(p), line(p));
    let text = format!(
        "Set A {n} 1\nSet B {n} 1\nSolved\nA\n{}\nB\n{}\nEnd\n{}{}",
        line(&pairs),
        line(&residues),
        moves("C", &cycle),
        moves("T", &swap)
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lockstep.tws");
    std::fs::write(&path, text).unwrap();
    let spec = def(&path);
    let f17: u64 = (1..=17).product();
    let o = twirl(&["order", &spec, "--json", "-"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json["distinct_boards"], f17.to_string().as_str());
    let o = twirl(&["info", &spec]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains(&format!("{f17} distinct boards")), "{}", stdout(&o));
    let refusal = format!(
        "by a projection and its fibres: table does not fit: at least {f17} boards: more than \
         the 4194304 projections"
    );
    assert!(stdout(&o).contains(&refusal), "{}", stdout(&o));
    assert_rejected(&["bfs", &spec], &refusal);
}

/// A definition of 300 pieces, two sets of 150 whose signs the moves tie (a 150-cycle and a
/// swap on both sets at once, a 3-cycle on each alone): `150!^2 / 2` boards. `info`, `order`,
/// `check` and `apply` take it; searches refuse it with the limit and what the file holds.
#[test]
fn definitions_past_255_pieces() {
    let n = 150;
    let long: Vec<usize> = (1..=n).collect();
    let solved_b = |labels: &str| format!("Solved\nB\n{labels}\nEnd\n");
    let moves = format!(
        "Move X\nA\n{l}\nB\n{l}\nEnd\nMove Y\nA\n{s}\nB\n{s}\nEnd\n\
         Move Z\nA\n{t}\nEnd\nMove W\nB\n{t}\nEnd\n",
        l = cycle_line(n, &long),
        s = cycle_line(n, &[1, 2]),
        t = cycle_line(n, &[1, 2, 3]),
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("wide.tws");
    let distinct: Vec<String> = (1..=n).map(|i| i.to_string()).collect();
    let text = format!("Set A {n} 1\nSet B {n} 1\n{}{moves}", solved_b(&distinct.join(" ")));
    std::fs::write(&path, text).unwrap();
    let spec = def(&path);
    let f150: num_bigint::BigUint = (1..=150u32).product();
    let order = (&f150 * &f150 / 2u32).to_string();

    let started = std::time::Instant::now();
    let o = twirl(&["order", &spec]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o).lines().next(), Some(order.as_str()));
    let o = twirl(&["info", &spec]);
    assert!(o.status.success(), "{}", stderr(&o));
    let info = stdout(&o);
    for line in [
        "orbits: 2",
        "constraints:\n  sign(O1) + sign(O2) = 0 (mod 2)\n",
        &format!("group order (stabilizer chain):   {order} ("),
        "symmetries: not searched (300 cells",
        "table: none: the sets hold 300 pieces; twirl's searches rank boards of at most 255 cells",
    ] {
        assert!(info.contains(line), "expected `{line}` in\n{info}");
    }
    assert!(started.elapsed().as_secs() < 10, "{:?}", started.elapsed());

    // One swap in A alone breaks the tie of the signs: exit 1 with the reason.
    let identity = distinct.join(" ");
    let swapped = format!("2 1 {}", distinct[2..].join(" "));
    let o = twirl(&["check", &spec, &format!("A {swapped} ; B {identity}")]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stdout(&o).contains("because the moves keep sign(O1) + sign(O2) = 0 (mod 2)"));
    // The same swap in both sets is solvable, read from a file.
    let board = dir.path().join("board.txt");
    std::fs::write(&board, format!("A {swapped}\nB {swapped}\n")).unwrap();
    let o = twirl(&["check", &spec, &format!("@{}", board.display())]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    // apply's result checks as solvable, and its cycles are those of the moves.
    let o = twirl(&["apply", &spec, "Z W'"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let result = out.lines().find_map(|l| l.strip_prefix("result:")).unwrap().trim();
    assert!(out.contains("cycles:   (1 3 2)(151 152 153)"), "{out}");
    let o = twirl(&["check", &spec, result]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_rejected(&["check", &spec, "X Q"], "`Q` is not a move");
    assert_rejected(&["apply", &spec, "X", "--bind", "Q=X"], "--bind and --define");
    for args in [vec!["bfs", &spec], vec!["sample", &spec, "-n", "1"], vec!["solve", &spec, "X"]] {
        assert_rejected(
            &args,
            "the sets hold 300 pieces; twirl's searches rank boards of at most 255",
        );
    }

    // Two identical pieces in B: every element still makes its own board (B's swap alone is
    // odd on B and so in no element), and A's swap alone becomes solvable.
    let labels = format!("1 1 {}", (2..n).map(|i| i.to_string()).collect::<Vec<_>>().join(" "));
    let text = format!("Set A {n} 1\nSet B {n} 1\n{}{moves}", solved_b(&labels));
    std::fs::write(&path, text).unwrap();
    let o = twirl(&["order", &spec, "--json", "-"]);
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json["order"], order.as_str());
    assert_eq!(json["distinct_boards"], order.as_str());
    let o = twirl(&["check", &spec, &format!("A {swapped}")]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
}

/// Identical pieces in a group smaller than its invariants, past 255 pieces: `S_200` on set S
/// beside a 64-cycle that twists one of T's corners as it turns (`200! * 192` elements), with
/// two identical pieces in each set. The group holds S's swap of its pair (any permutation
/// of S) but no swap of T's (its T part is cyclic), so a board stands for two elements:
/// `200! * 96` boards, counted from the group's cosets that the swaps meet; the board with
/// T's pair swapped keeps every invariant and is still unsolvable.
#[test]
fn identical_pieces_in_a_group_smaller_than_its_invariants() {
    let line = |v: &[usize]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(" ");
    let long: Vec<usize> = (1..=200).collect();
    let ring: Vec<usize> = (1..=64).collect();
    let mut twist = vec!["0"; 64];
    twist[0] = "1";
    let alike = |n: usize| line(&[1].into_iter().chain(1..n).collect::<Vec<_>>());
    let text = format!(
        "Set S 200 1\nSet T 64 3\nSolved\nS\n{}\nT\n{}\nEnd\n\
         Move X\nS\n{}\nEnd\nMove Y\nS\n{}\nEnd\n\
         Move Z\nT\n{}\n{}\nEnd\n",
        alike(200),
        alike(64),
        cycle_line(200, &long),
        cycle_line(200, &[1, 2]),
        cycle_line(64, &ring),
        twist.join(" ")
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("smaller.tws");
    std::fs::write(&path, text).unwrap();
    let spec = def(&path);
    let f200: num_bigint::BigUint = (1..=200u32).product();
    let o = twirl(&["order", &spec, "--json", "-"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json["order"], (&f200 * 192u32).to_string().as_str());
    assert_eq!(json["distinct_boards"], (&f200 * 96u32).to_string().as_str());
    let o = twirl(&["info", &spec]);
    assert!(o.status.success(), "{}", stderr(&o));
    let expected = format!(
        "identical pieces: boards are fewer than group elements: {} distinct",
        &f200 * 96u32
    );
    assert!(stdout(&o).contains(&expected), "{}", stdout(&o));
    // One turn of Z is solvable; T's pieces 2 and 3 swapped keep every invariant (the
    // identical pair frees T's sign) but are no rotation of T: unsolvable (exit 1).
    let o = twirl(&["apply", &spec, "Z"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let turned = out.lines().find_map(|l| l.strip_prefix("result:")).unwrap().trim();
    let o = twirl(&["check", &spec, turned]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let mut labels: Vec<usize> = [1].into_iter().chain(1..64).collect();
    labels.swap(2, 3);
    let zeros = line(&[0].repeat(64));
    let o = twirl(&["check", &spec, &format!("T {} / {zeros}", line(&labels))]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("this is not one of them"), "{}", stdout(&o));
}
