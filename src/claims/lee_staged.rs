//! Claims about Y. Lee's staged solver ([`crate::solvers::lee`]), checked against a sweep of
//! the solver over all 9! boards (run once per process and shared by the claims).

use std::sync::OnceLock;

use serde::Deserialize;

use crate::solvers::lee::{LeeSweep, sweep_all};

/// What a `lee_staged` claim states about the solver.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeeStatement {
    /// Which statement.
    pub what: LeeWhat,
    /// The bound claimed (`turns_at_most`, `stage_turns_at_most`).
    pub at_most: Option<usize>,
    /// The number a stage places (`stage_turns_at_most`).
    pub stage: Option<u8>,
}

/// The statements the vocabulary knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LeeWhat {
    /// Every board is solved.
    SolvesEveryBoard,
    /// No stage ends with a number placed by an earlier stage away from home.
    KeepsPlacedNumbers,
    /// Every board is solved in at most `at_most` turns.
    TurnsAtMost,
    /// The stage placing `stage` never needs more than `at_most` turns.
    StageTurnsAtMost,
}

fn sweep() -> &'static LeeSweep {
    static SWEEP: OnceLock<LeeSweep> = OnceLock::new();
    SWEEP.get_or_init(sweep_all)
}

/// Checks a statement: whether it holds, and what the sweep observed.
pub fn check(s: &LeeStatement) -> Result<(bool, String), String> {
    let w = sweep();
    let bound = || s.at_most.ok_or("this statement needs `at_most`");
    Ok(match s.what {
        LeeWhat::SolvesEveryBoard => {
            let first = w
                .failures
                .first()
                .map_or(String::new(), |(b, why)| format!("; first failure: {b} ({why})"));
            (w.solved == w.boards, format!("{} of {} boards solved{first}", w.solved, w.boards))
        }
        LeeWhat::KeepsPlacedNumbers => (
            w.disturbed == 0,
            format!("{} boards have a stage ending with a placed number moved", w.disturbed),
        ),
        LeeWhat::TurnsAtMost => {
            let at_most = bound()?;
            (
                w.max_turns <= at_most,
                format!(
                    "at most {} turns ({} boards need them, e.g. {}; {} boards need more than \
                     {at_most}); per stage on that board: {}",
                    w.max_turns,
                    w.max_boards,
                    w.example_max_board,
                    w.boards_over(at_most),
                    stage_list(&w.stage_max_for_worst)
                ),
            )
        }
        LeeWhat::StageTurnsAtMost => {
            let (at_most, tile) = (bound()?, s.stage.ok_or("this statement needs `stage`")?);
            let name = format!("place {tile}");
            let (_, used) = w
                .stage_max
                .iter()
                .find(|(n, _)| *n == name)
                .ok_or_else(|| format!("the solver has no stage `{name}`"))?;
            (
                *used <= at_most,
                format!(
                    "stage {name} needs at most {used} turns; all stages: {}",
                    stage_list(&w.stage_max)
                ),
            )
        }
    })
}

fn stage_list(stages: &[(String, usize)]) -> String {
    stages.iter().map(|(n, k)| format!("{n}: {k}")).collect::<Vec<_>>().join(", ")
}
