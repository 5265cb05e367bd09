//! The progress bar: boards (or table entries) found so far out of the total, with rate and
//! ETA, on stderr.
//! Hidden when stderr is not a terminal or with `--quiet`.

use std::io::Write;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use twirl::bfs::{Direction, Progress};

/// An indicatif bar over all reachable boards, which also prints each finished distance to
/// stdout as it completes (a long job shows its histogram as it goes).
pub struct Bar {
    bar: ProgressBar,
    cumulative: std::sync::atomic::AtomicU64,
}

impl Bar {
    /// A bar for `total` boards (or table entries: `unit` names them); drawn only if
    /// `visible` and stderr is a terminal.
    pub fn new(total: u64, unit: &str, visible: bool) -> Bar {
        let target =
            if visible { ProgressDrawTarget::stderr() } else { ProgressDrawTarget::hidden() };
        let bar = ProgressBar::with_draw_target(Some(total), target);
        bar.set_style(
            ProgressStyle::with_template(&format!(
                "{{msg:>24}} [{{bar:30}}] {{human_pos}}/{{human_len}} {unit}  {{per_sec}}  ETA {{eta}}"
            ))
            .expect("valid template")
            .progress_chars("=> "),
        );
        Bar { bar, cumulative: std::sync::atomic::AtomicU64::new(0) }
    }

    /// Prints one row of the per-distance table above the bar.
    pub fn print_row(&self, distance: u32, boards: u64, seconds: f64) {
        use std::sync::atomic::Ordering;
        let cumulative = self.cumulative.fetch_add(boards, Ordering::Relaxed) + boards;
        // A closed stdout (`| head`) must not stop the search: its table and JSON still count.
        self.bar.suspend(|| {
            let _ = writeln!(
                super::report_out(),
                "{distance:>8} {boards:>16} {cumulative:>16} {seconds:>10.3}"
            );
        });
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

    fn level_done(&self, distance: u32, boards: u64, seconds: f64) {
        self.print_row(distance, boards, seconds);
    }
}
