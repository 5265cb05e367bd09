//! Pictures of results: the distance histogram as an SVG bar chart, written by hand (a few
//! dozen elements; no drawing library needed).

use std::fmt::Write;

use crate::error::one_line;
use crate::report::Report;
use crate::{Error, Result};

/// The most distances a histogram may have to be drawn: bars narrower than a fifth of a pixel
/// show nothing, and a result claiming millions of distances is not one twirl wrote.
pub const MAX_BARS: usize = 4096;

/// Reads a result written by `twirl bfs --json` and checks it can be drawn: at least one
/// distance, at most [`MAX_BARS`].
pub fn read_report(text: &str) -> Result<Report> {
    let report: Report =
        serde_json::from_str(text).map_err(|e| Error::InvalidReport(one_line(&e.to_string())))?;
    let bars = report.histogram.len();
    if bars == 0 {
        return Err(Error::InvalidReport("the histogram is empty".into()));
    }
    if bars > MAX_BARS {
        return Err(Error::InvalidReport(format!(
            "the histogram has {bars} distances; at most {MAX_BARS} can be drawn"
        )));
    }
    Ok(report)
}

const WIDTH: f64 = 820.0;
const HEIGHT: f64 = 500.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 76.0;
const BOTTOM: f64 = 60.0;

/// The histogram of a result as an SVG document: one bar per distance, titled with the puzzle
/// and metric; with a unique-solution histogram, its bars drawn inside. `log`: logarithmic
/// count axis (every count at least 1 shows).
pub fn histogram_svg(report: &Report, log: bool) -> String {
    let title = format!("{} ({} metric): boards at each distance", report.puzzle, report.metric);
    let subtitle = format!(
        "{} boards, God's number {} ({} antipode{}){}",
        group_digits(report.states),
        report.gods_number,
        group_digits(report.antipodes),
        if report.antipodes == 1 { "" } else { "s" },
        if log { ", log scale" } else { "" }
    );
    histogram_svg_titled(report, &title, &subtitle, log)
}

/// [`histogram_svg`] under a title and subtitle of the caller's (a sample's histogram is no
/// search's: its longest board is not God's number).
pub fn histogram_svg_titled(report: &Report, title: &str, subtitle: &str, log: bool) -> String {
    let hist = &report.histogram;
    let max = hist.iter().copied().max().unwrap_or(1).max(1);
    let (plot_w, plot_h) = (WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM);
    let axis = Axis::new(max, log);
    let y = |count: u64| TOP + plot_h * (1.0 - axis.fraction(count));
    let slot = plot_w / hist.len() as f64;
    let bar_w = (slot * 0.8).max(1.0);
    let mut s = String::new();
    let _ = write!(
        s,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">
<rect width="100%" height="100%" fill="white"/>
<text x="{}" y="24" text-anchor="middle" font-size="17" font-weight="bold">{}</text>
<text x="{}" y="44" text-anchor="middle" fill="#444">{}</text>
"##,
        WIDTH / 2.0,
        escape(title),
        WIDTH / 2.0,
        escape(subtitle),
    );
    for (value, label) in axis.ticks() {
        let ty = TOP + plot_h * (1.0 - axis.fraction_of(value));
        let _ = writeln!(
            s,
            r##"<line x1="{LEFT}" x2="{}" y1="{ty:.1}" y2="{ty:.1}" stroke="#ddd"/><text x="{}" y="{:.1}" text-anchor="end">{label}</text>"##,
            WIDTH - RIGHT,
            LEFT - 6.0,
            ty + 4.0
        );
    }
    let label_every = (hist.len() as f64 / 30.0).ceil().max(1.0) as usize;
    for (d, &count) in hist.iter().enumerate() {
        let x = LEFT + slot * d as f64 + (slot - bar_w) / 2.0;
        let top = y(count);
        let _ = writeln!(
            s,
            r##"<rect x="{x:.1}" y="{top:.1}" width="{bar_w:.1}" height="{:.1}" fill="#4a7ab5"><title>distance {d}: {} boards</title></rect>"##,
            TOP + plot_h - top,
            group_digits(count)
        );
        if let Some(u) = report.unique_histogram.as_ref().and_then(|u| u.get(d)).filter(|&&u| u > 0)
        {
            let ut = y(*u);
            let _ = writeln!(
                s,
                r##"<rect x="{:.1}" y="{ut:.1}" width="{:.1}" height="{:.1}" fill="#e08a2c"><title>distance {d}: {} with one shortest solution</title></rect>"##,
                x + bar_w * 0.25,
                bar_w * 0.5,
                TOP + plot_h - ut,
                group_digits(*u)
            );
        }
        if d % label_every == 0 {
            let _ = writeln!(
                s,
                r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{d}</text>"#,
                x + bar_w / 2.0,
                TOP + plot_h + 16.0
            );
        }
    }
    let _ = writeln!(
        s,
        r##"<line x1="{LEFT}" x2="{}" y1="{:.1}" y2="{:.1}" stroke="#222"/>
<text x="{}" y="{}" text-anchor="middle">distance (moves to solve)</text>
<text transform="translate(18 {}) rotate(-90)" text-anchor="middle">boards</text>"##,
        WIDTH - RIGHT,
        TOP + plot_h,
        TOP + plot_h,
        LEFT + plot_w / 2.0,
        HEIGHT - 18.0,
        TOP + plot_h / 2.0
    );
    if report.unique_histogram.is_some() {
        let _ = writeln!(
            s,
            r##"<rect x="{}" y="52" width="12" height="12" fill="#e08a2c"/><text x="{}" y="62" text-anchor="end">one shortest solution ({} boards)</text>"##,
            WIDTH - RIGHT - 12.0,
            WIDTH - RIGHT - 16.0,
            group_digits(report.unique_total.unwrap_or(0))
        );
    }
    s.push_str("</svg>\n");
    s
}

/// The count axis: linear from 0, or logarithmic from 1. Values are `f64` so the axis can
/// reach past `u64::MAX` (a log axis over 1.8e19 ends at 1e20); ticks are exact powers of ten
/// or multiples of a 1-2-5 step, which `f64` labels without rounding trouble up to 1e20.
struct Axis {
    max: f64,
    log: bool,
}

impl Axis {
    fn new(max: u64, log: bool) -> Axis {
        let max = if log {
            10f64.powi((max as f64).log10().ceil().max(1.0) as i32)
        } else {
            let step = nice_step(max as f64 / 5.0);
            (max as f64 / step).ceil() * step
        };
        Axis { max, log }
    }

    /// Height of a count as a fraction of the axis. The log axis starts at 1/2, so a count of
    /// one still shows as a bar.
    fn fraction(&self, count: u64) -> f64 {
        self.fraction_of(count as f64)
    }

    fn fraction_of(&self, value: f64) -> f64 {
        if self.log {
            let floor = 0.5f64.log10();
            if value < 1.0 { 0.0 } else { (value.log10() - floor) / (self.max.log10() - floor) }
        } else {
            value / self.max
        }
    }

    /// The ticks: each value and its label.
    fn ticks(&self) -> Vec<(f64, String)> {
        if self.log {
            (0..=self.max.log10().round() as i32)
                .map(|e| {
                    let v = 10f64.powi(e);
                    (v, compact(v))
                })
                .collect()
        } else {
            let step = nice_step(self.max / 5.0);
            (0..=(self.max / step).round() as u32)
                .map(|i| {
                    let v = f64::from(i) * step;
                    (v, compact(v))
                })
                .collect()
        }
    }
}

/// 1, 2 or 5 times a power of ten, at least `raw`.
fn nice_step(raw: f64) -> f64 {
    let p = 10f64.powf(raw.max(1.0).log10().floor());
    [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * p).find(|&s| s >= raw).unwrap_or(10.0 * p)
}

/// `950`, `12k`, `3.5M`, `1.2G`, ... `20E` (exa, 10^18: 2^64 is 18.4E).
fn compact(n: f64) -> String {
    for (unit, div) in [("E", 1e18), ("P", 1e15), ("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)] {
        if n >= div {
            let v = n / div;
            return if v.fract() == 0.0 { format!("{v}{unit}") } else { format!("{v:.1}{unit}") };
        }
    }
    format!("{n}")
}

/// `479,001,600`.
pub fn group_digits(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Text for an SVG element: markup characters as entities, control characters (which XML
/// forbids) as U+FFFD.
fn escape(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '&' => "&amp;".to_string(),
            '<' => "&lt;".to_string(),
            '>' => "&gt;".to_string(),
            c if c.is_control() => '\u{fffd}'.to_string(),
            c => c.to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report() -> Report {
        Report {
            puzzle: "nrp:2x3:2".into(),
            metric: "qtm".into(),
            states: 120,
            gods_number: 7,
            histogram: vec![1, 4, 10, 22, 42, 33, 7, 1],
            antipodes: 1,
            antipode_boards: vec![],
            elapsed_seconds: 0.0,
            threads: 1,
            table_bytes: 32,
            unique_histogram: None,
            unique_total: None,
            symmetry: None,
            goals: None,
        }
    }

    #[test]
    fn one_bar_per_distance_with_axes() {
        let svg = histogram_svg(&report(), false);
        assert_eq!(svg.matches("<rect x=").count(), 8);
        assert!(svg.contains("nrp:2x3:2 (qtm metric)"));
        assert!(svg.contains("God's number 7"));
        // Linear axis 0..50 in steps of 10.
        assert!(svg.contains(">50</text>") && svg.contains(">0</text>"));
        let log = histogram_svg(&report(), true);
        assert!(log.contains(">100</text>") && log.contains("log scale"));
    }

    #[test]
    fn a_titled_histogram_says_only_what_it_is_given() {
        let svg = histogram_svg_titled(&report(), "a sample", "longest in the sample: 7", false);
        assert!(svg.contains(">a sample</text>") && svg.contains(">longest in the sample: 7<"));
        assert!(!svg.contains("God's number") && !svg.contains("antipode"));
        assert_eq!(svg.matches("<rect x=").count(), 8);
    }

    #[test]
    fn axes_reach_the_largest_count() {
        // Counts up to 2^64 - 1: the log axis ends at 10^20, the linear one at 2 * 10^19, and
        // the tallest bar reaches the top within a pixel on both.
        let mut r = report();
        r.histogram = vec![1, 1_000, u64::MAX / 3, u64::MAX];
        r.states = u64::MAX;
        let log = histogram_svg(&r, true);
        for e in 0..=20 {
            let label = compact(10f64.powi(e));
            assert!(log.contains(&format!(">{label}</text>")), "log tick {label}");
        }
        assert!(log.contains(">100E</text>") && !log.contains(">1000E</text>"));
        let linear = histogram_svg(&r, false);
        assert!(linear.contains(">20E</text>") && linear.contains(">5E</text>"));
        for svg in [&log, &linear] {
            assert!(!svg.contains("NaN") && !svg.contains("inf"));
            assert!(svg.contains("18,446,744,073,709,551,615 boards"));
        }
        // The bar of u64::MAX on the linear axis: 18.4E of 20E, so its top is 8% below the
        // axis top.
        let a = Axis::new(u64::MAX, false);
        assert!((a.fraction(u64::MAX) - 0.922).abs() < 0.001);
        let a = Axis::new(u64::MAX, true);
        assert!(a.fraction(u64::MAX) > 0.9 && a.fraction(u64::MAX) < 1.0);
        assert_eq!(a.fraction(1), (0.0 - 0.5f64.log10()) / (20.0 - 0.5f64.log10()));
    }

    #[test]
    fn result_files_are_checked_before_drawing() {
        let good = serde_json::to_string(&report()).unwrap();
        assert_eq!(read_report(&good).unwrap(), report());
        let err = |text: &str| read_report(text).unwrap_err().to_string();
        assert!(err("{").starts_with("not a twirl result: EOF while parsing"));
        let mut r = report();
        r.histogram.clear();
        assert!(err(&serde_json::to_string(&r).unwrap()).contains("histogram is empty"));
        r.histogram = vec![1; MAX_BARS + 1];
        assert!(err(&serde_json::to_string(&r).unwrap()).contains("4097 distances"));
        let field = good.replacen("\"puzzle\"", "\"puz\\nzle\"", 1);
        let e = err(&field);
        assert!(e.contains("unknown field") || e.contains("missing field"), "{e}");
        assert_eq!(e.lines().count(), 1, "{e}");
        r.histogram = vec![1];
        r.puzzle = "a\u{1}<b>".into();
        assert!(histogram_svg(&r, false).contains("a\u{fffd}&lt;b&gt;"));
    }

    #[test]
    fn number_formats() {
        assert_eq!(group_digits(479_001_600), "479,001,600");
        assert_eq!(group_digits(12), "12");
        assert_eq!(compact(3_500_000.0), "3.5M");
        assert_eq!(compact(20_000.0), "20k");
        assert_eq!(compact(950.0), "950");
        assert_eq!(compact(1e20), "100E");
        assert_eq!(nice_step(8.4), 10.0);
        assert_eq!(nice_step(130.0), 200.0);
    }
}
