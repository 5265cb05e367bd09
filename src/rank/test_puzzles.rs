//! Puzzles built by hand for tests: orientations mod 3 (and other moduli) that no built-in
//! puzzle has, as a puzzle read from a definition file brings them.

use crate::puzzle::{Metric, Move, Puzzle, PuzzleSpec};

/// A move of `n` cells from its cycles (the tile on each listed cell goes to the next one)
/// and the turns `(cell, turn)` of the tiles leaving some cells.
pub(crate) fn cycles(name: &str, n: usize, cycles: &[&[u8]], turns: &[(u8, u8)]) -> Move {
    let mut perm: Vec<u8> = (0..n as u8).collect();
    let mut twist = vec![0u8; n];
    for c in cycles {
        for (k, &cell) in c.iter().enumerate() {
            perm[cell as usize] = c[(k + 1) % c.len()];
        }
    }
    for &(cell, turn) in turns {
        twist[cell as usize] = turn;
    }
    Move { name: name.into(), perm, twist }
}

/// The move, its powers and its inverse, named `X`, `X2`, ..., `X'`.
pub(crate) fn powers(m: &Move, orient_mod: u8) -> Vec<Move> {
    let order = m.order(orient_mod) as i64;
    (1..order)
        .map(|k| {
            let name = match k {
                1 => m.name.clone(),
                _ if k == order - 1 => format!("{}'", m.name),
                _ => format!("{}{k}", m.name),
            };
            Move { name, ..m.power(k, orient_mod) }
        })
        .collect()
}

/// A one-row puzzle of `n` cells with the given moves (its spec only names it in messages).
pub(crate) fn one_row(n: usize, orient_mod: u8, moves: Vec<Move>) -> Puzzle {
    let undirected = moves.iter().all(|m| {
        let inv = m.inverse(orient_mod, String::new());
        moves.iter().any(|x| x.same_action(&inv))
    });
    Puzzle {
        spec: PuzzleSpec::parse("nrp:2x4:2").unwrap(),
        metric: Metric::Htm,
        rows: 1,
        cols: n,
        orient_mod,
        moves,
        undirected,
    }
}

/// The moves U, R, F of a 2x2x2 cube on 7 corner cells starting at `first`, each with its
/// powers, orientations turned by `scale` times the cube's (corner DBL stays put). Cells:
/// URF, UFL, ULB, UBR, DFR, DLF, DRB; a corner's orientation says which of its stickers is
/// on the U or D face, and R and F turn the corners they take between layers by 1 or 2.
pub(crate) fn cube2_moves(
    prefix: &str,
    n: usize,
    first: u8,
    scale: u8,
    orient_mod: u8,
) -> Vec<Move> {
    let c = |x: u8| first + x;
    let u = cycles(&format!("{prefix}U"), n, &[&[c(3), c(0), c(1), c(2)]], &[]);
    let r = cycles(
        &format!("{prefix}R"),
        n,
        &[&[c(4), c(0), c(3), c(6)]],
        &[(c(4), 2 * scale), (c(0), scale), (c(3), 2 * scale), (c(6), scale)],
    );
    let f = cycles(
        &format!("{prefix}F"),
        n,
        &[&[c(1), c(0), c(4), c(5)]],
        &[(c(1), scale), (c(5), 2 * scale), (c(0), 2 * scale), (c(4), scale)],
    );
    [u, r, f].iter().flat_map(|m| powers(m, orient_mod)).collect()
}

/// The 2x2x2 cube in the half-turn metric, corner DBL fixed: 3^6 * 7! = 3,674,160 boards.
pub(crate) fn cube2() -> Puzzle {
    one_row(7, 3, cube2_moves("", 7, 0, 1, 3))
}

/// Two 2x2x2 cubes and four flipping tiles on 18 cells, orientations mod 6: the corners'
/// orientations are free mod 3 (tied mod 2), the flips' free mod 2 (tied mod 3). More than
/// 16 cells, for the 32-byte vector path.
pub(crate) fn two_cubes_and_flips() -> Puzzle {
    let n = 18;
    let mut moves = cube2_moves("A", n, 0, 2, 6);
    moves.extend(cube2_moves("B", n, 7, 2, 6));
    let e = |x: u8| 14 + x;
    let cycle = cycles("E", n, &[&[e(0), e(1), e(2), e(3)]], &[]);
    let swap = cycles("S", n, &[&[e(0), e(1)]], &[(e(0), 3)]);
    for m in [cycle, swap] {
        moves.extend(powers(&m, 6));
    }
    one_row(n, 6, moves)
}

/// Small puzzles with orientations free mod 3 (and one mod 8), for exhaustive checks.
pub(crate) fn small_oriented() -> Vec<(&'static str, Puzzle)> {
    let with_inverses = |k: u8, moves: Vec<Move>| -> Vec<Move> {
        moves.iter().flat_map(|m| [m.clone(), m.inverse(k, format!("{}'", m.name))]).collect()
    };
    // A 3-cycle turning one tile: orientation sum and sign free, 24 * 3^4 boards.
    let free = with_inverses(
        3,
        vec![cycles("A", 4, &[&[0, 1, 2]], &[(0, 1)]), cycles("B", 4, &[&[0, 1, 2, 3]], &[])],
    );
    // Turns adding up to 0: the sum is fixed, 24 * 3^3 boards.
    let fixed = with_inverses(
        3,
        vec![
            cycles("A", 4, &[&[0, 1, 2]], &[(0, 1), (1, 2)]),
            cycles("B", 4, &[&[0, 1, 2, 3]], &[]),
            cycles("C", 4, &[], &[(0, 1), (3, 2)]),
        ],
    );
    // Orientations mod 6, tied mod 2 on four cells (free mod 3) and mod 3 on three (free
    // mod 2), and a move turning both sets.
    let mixed = with_inverses(
        6,
        vec![
            cycles("A", 7, &[&[0, 1, 2]], &[(0, 2), (1, 4)]),
            cycles("B", 7, &[&[0, 1, 2, 3], &[4, 5]], &[(4, 3)]),
            cycles("C", 7, &[&[4, 5, 6]], &[(0, 2), (3, 4), (6, 3)]),
        ],
    );
    // Orientations mod 8, the largest modulus the byte holds: 3 * 8^2 boards.
    let eighths = with_inverses(
        8,
        vec![cycles("A", 3, &[&[0, 1, 2]], &[]), cycles("B", 3, &[], &[(0, 1), (1, 7)])],
    );
    vec![
        ("mod 3, sums free", one_row(4, 3, free)),
        ("mod 3, sum fixed", one_row(4, 3, fixed)),
        ("mod 6, thirds and flips", one_row(7, 6, mixed)),
        ("mod 8", one_row(3, 8, eighths)),
    ]
}

/// Three cells with orientations mod `e`: a 3-cycle and a pair of opposite turns, `3 e^2`
/// boards.
pub(crate) fn three_cells(e: u8) -> Puzzle {
    let moves = vec![
        cycles("A", 3, &[&[0, 1, 2]], &[]),
        cycles("A'", 3, &[&[2, 1, 0]], &[]),
        cycles("B", 3, &[], &[(0, 1), (1, e - 1)]),
        cycles("B'", 3, &[], &[(0, e - 1), (1, 1)]),
    ];
    one_row(3, e, moves)
}

/// Six cells in a row, orientations mod 3, for the ranking of classes: the moves are kept
/// by the half turn of the row and by both mirrors, which reverse orientations.
pub(crate) fn symmetric_row() -> Puzzle {
    let moves = [
        cycles("A", 6, &[&[0, 1, 2]], &[(0, 1), (1, 2)]),
        cycles("a", 6, &[&[0, 1, 2]], &[(0, 2), (1, 1)]),
        cycles("Z", 6, &[&[5, 4, 3]], &[(5, 1), (4, 2)]),
        cycles("z", 6, &[&[5, 4, 3]], &[(5, 2), (4, 1)]),
        cycles("B", 6, &[&[1, 2, 3, 4]], &[]),
    ];
    let moves = moves.iter().flat_map(|m| [m.clone(), m.inverse(3, format!("{}'", m.name))]);
    one_row(6, 3, moves.collect())
}

/// Three orbits moved alike (the group is their common S4: 24 elements, where the
/// invariants allow 24 x 6 x 24 / 2, A's and C's signs tied), B's pieces 1 1 2 2: no element
/// but the identity leaves the solved board as it is, so 24 boards.
pub(crate) const TWINS: &str = "\
Set A 4 1
Set B 4 1
Set C 4 1
Solved
A
1 2 3 4
B
1 1 2 2
C
1 2 3 4
End
Move X
A
2 1 3 4
B
2 1 3 4
C
2 1 3 4
End
Move Y
A
1 3 2 4
B
1 3 2 4
C
1 3 2 4
End
Move Z
A
1 2 4 3
B
1 2 4 3
C
1 2 4 3
End
";

/// Twins (A, and B of pieces 1 1 2 2, moved alike) with two more orbits that some of
/// their moves turn too: the fibres over B's projections hold many boards, and the
/// fibre's group many elements.
pub(crate) const TWINS_AND_RINGS: &str = "\
Set A 4 1
Set B 4 1
Set C 4 1
Set D 4 1
Solved
A
1 2 3 4
B
1 1 2 2
C
1 2 3 4
D
1 2 3 4
End
Move X
A
2 1 3 4
B
2 1 3 4
End
Move Y
A
1 3 2 4
B
1 3 2 4
C
2 1 3 4
End
Move Z
A
1 2 4 3
B
1 2 4 3
D
2 3 4 1
End
Move W
C
1 3 2 4
D
2 1 3 4
End
Move V
C
1 2 4 3
End
";

/// The pyraminx's six edges alone (their moves as twsearch's `pyraminx.tws` gives them):
/// 6!/2 arrangements times 2^5 flips, 11,520 boards, flips in runs of 32 ranks.
pub(crate) const PYRAMINX_EDGES: &str = "\
Set EDGE 6 2
Solved
EDGE
1 2 3 4 5 6
0 0 0 0 0 0
End
Move L
EDGE
2 4 3 1 5 6
0 1 0 1 0 0
End
Move R
EDGE
1 5 3 4 6 2
0 0 0 0 0 0
End
Move F
EDGE
3 2 5 4 1 6
0 0 0 0 0 0
End
Move D
EDGE
1 2 4 6 5 3
0 0 1 1 0 0
End
";

/// A puzzle read from definition text.
pub(crate) fn defined(text: &str) -> Puzzle {
    use crate::puzzle::defined::Defined;
    use crate::puzzle::definition::Definition;
    let d = Defined::new("test.tws", Definition::parse(text).unwrap()).unwrap();
    Puzzle::new(&PuzzleSpec::Def(std::sync::Arc::new(d)), Metric::Htm).unwrap()
}
