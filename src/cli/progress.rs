//! The progress bar: boards found so far out of the total, with rate and ETA, on stderr.
//! Hidden when stderr is not a terminal or with `--quiet`.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use twirl::bfs::{Direction, Progress};

/// An indicatif bar over all reachable boards.
pub struct Bar {
    bar: ProgressBar,
}

impl Bar {
    /// A bar for `total` boards; drawn only if `visible` and stderr is a terminal.
    pub fn new(total: u64, visible: bool) -> Bar {
        let target =
            if visible { ProgressDrawTarget::stderr() } else { ProgressDrawTarget::hidden() };
        let bar = ProgressBar::with_draw_target(Some(total), target);
        bar.set_style(
            ProgressStyle::with_template(
                "{msg:>24} [{bar:30}] {human_pos}/{human_len} boards  {per_sec}  ETA {eta}",
            )
            .expect("valid template")
            .progress_chars("=> "),
        );
        Bar { bar }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Progress for Bar {
    fn level_started(&self, distance: u32, _frontier: u64, direction: Direction) {
        let dir = match direction {
            Direction::Forward => "forward",
            Direction::Backward => "backward",
        };
        self.bar.set_message(format!("distance {distance} ({dir})"));
    }

    fn found(&self, n: u64) {
        self.bar.inc(n);
    }
}
