//! The property vocabulary: what a claim says about the element its sequence evaluates to.
//! A claim may state several properties; it holds when all of them do. Every check reports
//! what it looked at, so a failing claim says what the sequence really does.
//!
//! Cells are written as in [`super::cells`]; "the tile on cell c" means the tile standing on c
//! before the sequence.
//!
//! | key | holds when |
//! |---|---|
//! | `cycle_type = [3]` | the non-trivial cycles of the cells have these lengths (`[]` identity on cells, `[2]` a transposition, `[2,2]` a double transposition) |
//! | `cycle_type_even`, `cycle_type_odd` | the same on one checkerboard colour class (odd blocks keep colours; `even` holds cell (1,1)) |
//! | `cycles = "(1 5 9)(2 4)"` | exactly these cycles (cells as numbers or `(r,c)`; `""` the identity) |
//! | `cycles_even`, `cycles_odd` | exactly these cycles on one colour class |
//! | `flips = "2 3 5 6"` | exactly the tiles ending on these cells are turned (`""`: none), like Sutherland's flip vector |
//! | `board = "..."` | the board reached from the start board (default solved), orientation included |
//! | `tiles = "..."` | the same, orientation ignored |
//! | `fixes = "(1,1) (2,1)"` | the tiles on these cells stay where they are |
//! | `moves_only = "..."` | every tile outside these cells stays where it is |
//! | `moves_out_of = { cells = "...", set = "..." }` | every tile on `cells` ends outside `set` (default: outside `cells`) |
//! | `sends = ["(6,7) -> (2,1)", "1 2 -> 5 6"]` | the tiles on the left-hand cells end exactly on the right-hand cells (as sets) |
//! | `equals = "[1,6]"` | the other sequence acts the same way (positions and orientations); it may use any move of the board, whatever spin types the puzzle allows |
//! | `belt_shift = { belt = "...", by = k }` | the tile on the i-th belt cell ends on the (i+k)-th, modulo the belt's length |
//! | `meets = { set = "...", count = 1, at = "..." }` | the cells the set's tiles end on meet the set in `count` cells (and in exactly `at`, if given) |
//! | `power_gives_3_cycle = true` | exactly one cycle has a length divisible by 3 and its length is 3, so a power of the sequence is a 3-cycle (Lam's search criterion) |

use num_bigint::BigUint;
use serde::Deserialize;

use super::cells::{Shape, normalize_cycles, parse_cells, parse_cycles};
use crate::error::escaped;
use crate::group::cycles::{Colour, colour_cycles, cycle_type, cycles, format_cycles};
use crate::puzzle::sequence::Env;
use crate::puzzle::{Board, Move, Puzzle, PuzzleSpec};

/// `moves_out_of`: every tile on `cells` ends outside `set`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MovesOutOf {
    /// The cells whose tiles must leave.
    pub cells: String,
    /// The set they must leave (default: `cells`).
    pub set: Option<String>,
}

/// `belt_shift`: the belt's cells in order and the shift along it.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BeltShift {
    /// The belt's cells in the direction of the shift.
    pub belt: String,
    /// How many cells along the belt each tile advances.
    pub by: i64,
}

/// `meets`: how the image of a set meets the set.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Meets {
    /// The set.
    pub set: String,
    /// How many cells the image shares with the set.
    pub count: usize,
    /// Exactly which cells, if given.
    pub at: Option<String>,
}

/// The properties a claim states (see the module docs for each key).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct Property {
    pub cycle_type: Option<Vec<usize>>,
    pub cycle_type_even: Option<Vec<usize>>,
    pub cycle_type_odd: Option<Vec<usize>>,
    pub cycles: Option<String>,
    pub cycles_even: Option<String>,
    pub cycles_odd: Option<String>,
    pub flips: Option<String>,
    pub board: Option<String>,
    pub tiles: Option<String>,
    pub fixes: Option<String>,
    pub moves_only: Option<String>,
    pub moves_out_of: Option<MovesOutOf>,
    pub sends: Option<Vec<String>>,
    pub equals: Option<String>,
    pub belt_shift: Option<BeltShift>,
    pub meets: Option<Meets>,
    pub power_gives_3_cycle: Option<bool>,
}

/// The result of one property check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// Whether the property holds.
    pub holds: bool,
    /// What the check saw.
    pub observed: String,
}

/// What the properties are checked against.
pub struct Subject<'a> {
    /// The puzzle.
    pub puzzle: &'a Puzzle,
    /// The letters and the product order (for `equals`).
    pub env: &'a Env,
    /// The element the sequence evaluates to.
    pub element: &'a Move,
    /// The board the sequence starts from.
    pub start: &'a Board,
}

impl Property {
    /// Whether no property is stated.
    pub fn is_empty(&self) -> bool {
        self.check_all(None).is_empty()
    }

    /// Checks every stated property. `Err` for a malformed property (a bad cell list or
    /// board), which is a registry error, not a finding.
    pub fn check(&self, s: &Subject) -> Result<Vec<Finding>, String> {
        self.check_all(Some(s)).into_iter().collect()
    }

    /// With `None`, lists the stated properties without checking (results are placeholders).
    fn check_all(&self, s: Option<&Subject>) -> Vec<Result<Finding, String>> {
        let mut out = Vec::new();
        let mut run = |present: bool, f: &dyn Fn(&Subject) -> Result<Finding, String>| {
            if present {
                out.push(match s {
                    Some(s) => f(s),
                    None => Ok(Finding { holds: true, observed: String::new() }),
                });
            }
        };
        run(self.cycle_type.is_some(), &|s| {
            Ok(check_cycle_type(
                "cycle type",
                &cycle_type(&s.element.perm),
                self.cycle_type.as_ref().unwrap(),
            ))
        });
        for (colour, want) in
            [(Colour::Even, &self.cycle_type_even), (Colour::Odd, &self.cycle_type_odd)]
        {
            run(want.is_some(), &|s| {
                let want = want.as_ref().unwrap();
                let label = format!("{} class cycle type", colour.name());
                Ok(match colour_cycles(&s.element.perm, s.puzzle.cols, colour) {
                    None => Finding {
                        holds: false,
                        observed: format!("{label}: tiles leave the {} class", colour.name()),
                    },
                    Some(cs) => {
                        let mut t: Vec<usize> = cs.iter().map(|c| c.len()).collect();
                        t.sort_unstable_by(|a, b| b.cmp(a));
                        check_cycle_type(&label, &t, want)
                    }
                })
            });
        }
        run(self.cycles.is_some(), &|s| {
            let want = parse_cycles(self.cycles.as_ref().unwrap(), shape(s.puzzle))?;
            Ok(compare_cycles("cycles", cycles(&s.element.perm), want))
        });
        for (colour, want) in [(Colour::Even, &self.cycles_even), (Colour::Odd, &self.cycles_odd)] {
            run(want.is_some(), &|s| {
                let want = parse_cycles(want.as_ref().unwrap(), shape(s.puzzle))?;
                let label = format!("{} class cycles", colour.name());
                Ok(match colour_cycles(&s.element.perm, s.puzzle.cols, colour) {
                    None => Finding {
                        holds: false,
                        observed: format!("{label}: tiles leave the {} class", colour.name()),
                    },
                    Some(got) => compare_cycles(&label, got, want),
                })
            });
        }
        run(self.flips.is_some(), &|s| {
            let mut want = parse_cells(self.flips.as_ref().unwrap(), shape(s.puzzle))?;
            want.sort_unstable();
            want.dedup();
            let mut got: Vec<usize> = (0..s.element.perm.len())
                .filter(|&i| s.element.twist[i] % s.puzzle.orient_mod != 0)
                .map(|i| s.element.perm[i] as usize)
                .collect();
            got.sort_unstable();
            let sh = shape(s.puzzle);
            Ok(Finding {
                holds: got == want,
                observed: format!("turned tiles end on {}", sh.format(&got, false)),
            })
        });
        run(self.board.is_some() || self.tiles.is_some(), &|s| {
            let result = s.puzzle.apply(s.start, s.element);
            let shown = s.puzzle.format_board(&result);
            let mut holds = true;
            if let Some(text) = &self.board {
                let want = s.puzzle.parse_board(text).map_err(|e| e.to_string())?;
                holds &= want == result;
            }
            if let Some(text) = &self.tiles {
                let want = s.puzzle.parse_board(text).map_err(|e| e.to_string())?;
                holds &= want.tiles == result.tiles;
            }
            Ok(Finding { holds, observed: format!("board reached: {shown}") })
        });
        run(self.fixes.is_some(), &|s| {
            let sh = shape(s.puzzle);
            let cells = parse_cells(self.fixes.as_ref().unwrap(), sh)?;
            let moved: Vec<String> = cells
                .iter()
                .filter(|&&c| s.element.perm[c] as usize != c)
                .map(|&c| format!("{}->{}", name(s, c), name(s, s.element.perm[c] as usize)))
                .collect();
            Ok(Finding {
                holds: moved.is_empty(),
                observed: if moved.is_empty() {
                    format!("fixes {}", sh.format(&cells, rc(s)))
                } else {
                    format!("moves {}", moved.join(" "))
                },
            })
        });
        run(self.moves_only.is_some(), &|s| {
            let sh = shape(s.puzzle);
            let cells = parse_cells(self.moves_only.as_ref().unwrap(), sh)?;
            let outside: Vec<usize> = (0..s.element.perm.len())
                .filter(|c| !cells.contains(c) && s.element.perm[*c] as usize != *c)
                .collect();
            Ok(Finding {
                holds: outside.is_empty(),
                observed: if outside.is_empty() {
                    "every tile outside the given cells stays".into()
                } else {
                    format!("tiles outside the given cells move: {}", sh.format(&outside, rc(s)))
                },
            })
        });
        run(self.moves_out_of.is_some(), &|s| {
            let sh = shape(s.puzzle);
            let m = self.moves_out_of.as_ref().unwrap();
            let cells = parse_cells(&m.cells, sh)?;
            let set = match &m.set {
                Some(t) => parse_cells(t, sh)?,
                None => cells.clone(),
            };
            let stay: Vec<String> = cells
                .iter()
                .filter(|&&c| set.contains(&(s.element.perm[c] as usize)))
                .map(|&c| format!("{}->{}", name(s, c), name(s, s.element.perm[c] as usize)))
                .collect();
            let images: Vec<usize> = cells.iter().map(|&c| s.element.perm[c] as usize).collect();
            Ok(Finding {
                holds: stay.is_empty(),
                observed: if stay.is_empty() {
                    format!("the tiles leave the set, ending on {}", sh.format(&images, rc(s)))
                } else {
                    format!("tiles that stay in the set: {}", stay.join(" "))
                },
            })
        });
        run(self.sends.is_some(), &|s| {
            let sh = shape(s.puzzle);
            let mut holds = true;
            let mut seen = Vec::new();
            for rule in self.sends.as_ref().unwrap() {
                let (from, to) = rule.split_once("->").ok_or_else(|| {
                    format!("`{}` is not of the form `cells -> cells`", escaped(rule))
                })?;
                let from = parse_cells(from, sh)?;
                let mut want = parse_cells(to, sh)?;
                let mut got: Vec<usize> =
                    from.iter().map(|&c| s.element.perm[c] as usize).collect();
                let shown = sh.format(&got, rc(s));
                got.sort_unstable();
                want.sort_unstable();
                holds &= got == want;
                seen.push(format!("{} -> {shown}", sh.format(&from, rc(s))));
            }
            Ok(Finding { holds, observed: format!("sends {}", seen.join("; ")) })
        });
        run(self.equals.is_some(), &|s| {
            let full = full_board(s.puzzle);
            let other =
                s.env.eval_text(&full, self.equals.as_ref().unwrap()).map_err(|e| e.to_string())?;
            let holds = other.same_action(s.element);
            let st = crate::group::cycles::CycleStructure::of(&full, &other);
            Ok(Finding {
                holds,
                observed: format!(
                    "`{}` gives {}{}",
                    self.equals.as_ref().unwrap(),
                    st.describe(),
                    if holds { " (the same)" } else { " (different)" }
                ),
            })
        });
        run(self.belt_shift.is_some(), &|s| {
            let b = self.belt_shift.as_ref().unwrap();
            let sh = shape(s.puzzle);
            let belt = parse_cells(&b.belt, sh)?;
            if belt.is_empty() {
                return Err("`belt_shift.belt` names no cells".into());
            }
            Ok(check_belt(s, &belt, b.by))
        });
        run(self.meets.is_some(), &|s| {
            let m = self.meets.as_ref().unwrap();
            let sh = shape(s.puzzle);
            let set = parse_cells(&m.set, sh)?;
            let mut common: Vec<usize> = set
                .iter()
                .map(|&c| s.element.perm[c] as usize)
                .filter(|c| set.contains(c))
                .collect();
            common.sort_unstable();
            let mut holds = common.len() == m.count;
            if let Some(at) = &m.at {
                let mut want = parse_cells(at, sh)?;
                want.sort_unstable();
                holds &= common == want;
            }
            Ok(Finding {
                holds,
                observed: format!(
                    "the image of the set meets it in {} cells: {}",
                    common.len(),
                    sh.format(&common, rc(s))
                ),
            })
        });
        run(self.power_gives_3_cycle.is_some(), &|s| {
            let want = self.power_gives_3_cycle.unwrap();
            let t = cycle_type(&s.element.perm);
            let threes: Vec<usize> = t.iter().copied().filter(|l| l % 3 == 0).collect();
            let gives = threes == [3];
            let observed = if gives {
                let k =
                    t.iter().filter(|&&l| l != 3).fold(BigUint::from(1u32), |acc, &l| lcm(acc, l));
                format!(
                    "one cycle of length divisible by 3, a 3-cycle: the power {k} (lcm of the other lengths) is a 3-cycle"
                )
            } else {
                format!("cycle lengths divisible by 3: {threes:?}, so no power is a 3-cycle")
            };
            Ok(Finding { holds: gives == want, observed })
        });
        out
    }
}

fn lcm(a: BigUint, b: usize) -> BigUint {
    let b = BigUint::from(b);
    let g = gcd(a.clone(), b.clone());
    a * b / g
}

fn gcd(mut a: BigUint, mut b: BigUint) -> BigUint {
    while b != BigUint::ZERO {
        let r = &a % &b;
        a = b;
        b = r;
    }
    a
}

/// The puzzle's board with every move of its kind: all spin types for Spinpossible (NRP
/// sequences already name any block).
pub fn full_board(puzzle: &Puzzle) -> Puzzle {
    match &puzzle.spec {
        PuzzleSpec::Spin { rows, cols, .. } => {
            let spec = PuzzleSpec::Spin {
                rows: *rows,
                cols: *cols,
                types: crate::puzzle::spec::all_spin_types(*rows, *cols),
            };
            Puzzle::new(&spec, puzzle.metric).expect("the full spin puzzle of a valid board")
        }
        PuzzleSpec::Nrp { .. } | PuzzleSpec::Def(_) => puzzle.clone(),
    }
}

/// The board's shape.
pub fn shape(p: &Puzzle) -> Shape {
    Shape { rows: p.rows, cols: p.cols }
}

/// Cells are shown as `(r,c)` on NRP boards (Lam's notation), as numbers on Spinpossible
/// boards (Sutherland's).
fn rc(s: &Subject) -> bool {
    matches!(s.puzzle.spec, PuzzleSpec::Nrp { .. })
}

fn name(s: &Subject, cell: usize) -> String {
    if rc(s) { shape(s.puzzle).rc(cell) } else { (cell + 1).to_string() }
}

fn check_cycle_type(label: &str, got: &[usize], want: &[usize]) -> Finding {
    let mut want = want.to_vec();
    want.sort_unstable_by(|a, b| b.cmp(a));
    Finding { holds: got == want.as_slice(), observed: format!("{label} {got:?}") }
}

fn compare_cycles(label: &str, got: Vec<Vec<usize>>, want: Vec<Vec<usize>>) -> Finding {
    let got = normalize_cycles(got);
    let holds = got == want;
    Finding {
        holds,
        observed: if holds {
            format!("{label} as claimed")
        } else {
            format!("{label} {} (claimed {})", format_cycles(&got), format_cycles(&want))
        },
    }
}

/// `belt` is not empty (checked by the caller: a shift of nothing has no meaning).
fn check_belt(s: &Subject, belt: &[usize], by: i64) -> Finding {
    let len = belt.len() as i64;
    let index = |c: usize| belt.iter().position(|&b| b == c);
    let mut shifts = Vec::new();
    for (i, &c) in belt.iter().enumerate() {
        let to = s.element.perm[c] as usize;
        match index(to) {
            Some(j) => shifts.push((j as i64 - i as i64).rem_euclid(len)),
            None => {
                return Finding {
                    holds: false,
                    observed: format!(
                        "not a shift of the belt ({} cells): {} -> {} leaves it",
                        len,
                        name(s, c),
                        name(s, to)
                    ),
                };
            }
        }
    }
    let first = shifts[0];
    if shifts.iter().any(|&x| x != first) {
        let mut distinct = shifts.clone();
        distinct.sort_unstable();
        distinct.dedup();
        return Finding {
            holds: false,
            observed: format!(
                "the belt ({len} cells) is permuted, not shifted: shifts {distinct:?}"
            ),
        };
    }
    Finding {
        holds: first == by.rem_euclid(len),
        observed: format!("belt ({len} cells) advanced by {first}"),
    }
}
