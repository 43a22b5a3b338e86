//! The one result schema of `solve`, learned and classical alike.
//!
//! Every output folder holds `instances.csv` (one row per instance and
//! width) and `summary.csv` (one row per width) that start with the same
//! core columns, [`INSTANCE_COLUMNS`] and [`SUMMARY_COLUMNS`]; a method's
//! own figures follow as extra columns (beam diagnostics for an oracle,
//! EBF and peak memory for a classical search). A notebook can therefore
//! stack the tables of any two runs and compare them column by column.
//!
//! The vocabulary is that of the searches: a node is *generated* when it
//! is created as a child (beam search: every candidate), *expanded* when
//! its children are generated (beam search: every beam state, which is
//! also one oracle evaluation); `length` is in the puzzle's own metric
//! (`puzzle` says which: `cube3-qtm`, `puzzle15-blank-first`, …); times
//! carry their unit in the name.

use super::error::SolveError;
use crate::csvlog::{Col, write_table};
use crate::search::Status;
use crate::statistics::quantile;
use std::path::Path;

/// The core columns of `instances.csv`, in order.
pub const INSTANCE_COLUMNS: [&str; 14] = [
    "puzzle",
    "method",
    "heuristic",
    "width",
    "id",
    "status",
    "solved",
    "solution",
    "length",
    "optimal",
    "generated",
    "expanded",
    "elapsed_ms",
    "ebf",
];

/// The core columns of `summary.csv`, in order.
pub const SUMMARY_COLUMNS: [&str; 20] = [
    "puzzle",
    "method",
    "heuristic",
    "width",
    "instances",
    "solved_pct",
    "limit_pct",
    "mean_length",
    "median_length",
    "optimal_pct",
    "mean_excess",
    "mean_generated",
    "mean_expanded",
    "total_generated",
    "mean_elapsed_s",
    "p95_elapsed_s",
    "total_elapsed_s",
    "generated_per_s",
    "expanded_per_s",
    "mean_ebf",
];

/// What produced an output: the same on every row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Producer {
    /// The puzzle model's name (`cube3-qtm`, `puzzle8`, …).
    pub puzzle: String,
    /// The method (`beam`, `astar`, …).
    pub method: String,
    /// What guided it: a heuristic's name, `oracle:<run>` for a trained
    /// oracle, or `none` for a blind search.
    pub heuristic: String,
}

/// The result of one instance at one width.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// Beam width (0 for methods without one).
    pub width: usize,
    /// Instance identifier.
    pub id: String,
    /// Why the search stopped.
    pub status: Status,
    /// The solution as move names separated by spaces, replayed and
    /// verified (empty when unsolved or already solved).
    pub solution: String,
    /// Solution length in the puzzle's metric (when solved).
    pub length: Option<usize>,
    /// Known optimal length in the puzzle's metric.
    pub optimal: Option<u32>,
    /// Nodes generated.
    pub generated: u64,
    /// Nodes expanded.
    pub expanded: u64,
    /// Seconds the search took.
    pub elapsed_s: f64,
    /// Effective branching factor, when solved at depth ≥ 1.
    pub ebf: Option<f64>,
}

/// `solved`, `limit` or `exhausted` (beam search: the depth limit was
/// reached, or the beam emptied, with no solution).
#[must_use]
pub fn status_name(s: Status) -> &'static str {
    match s {
        Status::Solved => "solved",
        Status::LimitReached => "limit",
        Status::Exhausted => "exhausted",
    }
}

/// The summary figures of the records of one width.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// Beam width (0 for methods without one).
    pub width: usize,
    /// Instances.
    pub instances: usize,
    /// Share solved (%).
    pub solved_pct: f64,
    /// Share that hit a node or time limit (%).
    pub limit_pct: f64,
    /// Mean solution length over solved instances.
    pub mean_length: f64,
    /// Median solution length over solved instances.
    pub median_length: f64,
    /// Share of solved instances with a known optimum that reach it (%).
    pub optimal_pct: f64,
    /// Mean excess over the known optimum (solved instances that have one).
    pub mean_excess: f64,
    /// Mean nodes generated per instance.
    pub mean_generated: f64,
    /// Mean nodes expanded per instance.
    pub mean_expanded: f64,
    /// Nodes generated in all.
    pub total_generated: u64,
    /// Mean seconds per instance.
    pub mean_elapsed_s: f64,
    /// 95th percentile of seconds per instance.
    pub p95_elapsed_s: f64,
    /// Seconds of search in all.
    pub total_elapsed_s: f64,
    /// Nodes generated per second of search.
    pub generated_per_s: f64,
    /// Nodes expanded per second of search (beam search with an oracle:
    /// oracle evaluations per second).
    pub expanded_per_s: f64,
    /// Mean effective branching factor over solved instances of depth ≥ 1.
    pub mean_ebf: f64,
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() { f64::NAN } else { v.iter().sum::<f64>() / v.len() as f64 }
}

/// Summarises the records of one width (NaN where a figure has no data).
#[must_use]
pub fn summarize(width: usize, records: &[&Record]) -> Summary {
    let n = records.len().max(1) as f64;
    let solved: Vec<&&Record> = records.iter().filter(|r| r.status == Status::Solved).collect();
    let lens: Vec<f64> = solved.iter().filter_map(|r| r.length).map(|l| l as f64).collect();
    let with_opt: Vec<(f64, f64)> =
        solved.iter().filter_map(|r| Some((r.length? as f64, f64::from(r.optimal?)))).collect();
    let times: Vec<f64> = records.iter().map(|r| r.elapsed_s).collect();
    let total_generated: u64 = records.iter().map(|r| r.generated).sum();
    let total_expanded: u64 = records.iter().map(|r| r.expanded).sum();
    let total_elapsed_s: f64 = times.iter().sum();
    let per_s = |count: u64| count as f64 / total_elapsed_s.max(1e-9);
    Summary {
        width,
        instances: records.len(),
        solved_pct: 100.0 * solved.len() as f64 / n,
        limit_pct: 100.0 * records.iter().filter(|r| r.status == Status::LimitReached).count() as f64 / n,
        mean_length: mean(&lens),
        median_length: quantile(&lens, 0.5).unwrap_or(f64::NAN),
        optimal_pct: if with_opt.is_empty() {
            f64::NAN
        } else {
            100.0 * with_opt.iter().filter(|(l, o)| l == o).count() as f64 / with_opt.len() as f64
        },
        mean_excess: mean(&with_opt.iter().map(|(l, o)| l - o).collect::<Vec<_>>()),
        mean_generated: total_generated as f64 / n,
        mean_expanded: total_expanded as f64 / n,
        total_generated,
        mean_elapsed_s: total_elapsed_s / n,
        p95_elapsed_s: quantile(&times, 0.95).unwrap_or(f64::NAN),
        total_elapsed_s,
        generated_per_s: per_s(total_generated),
        expanded_per_s: per_s(total_expanded),
        mean_ebf: mean(&solved.iter().filter_map(|r| r.ebf).collect::<Vec<_>>()),
    }
}

/// Writes `instances.csv`: the core columns, then `extra` (one value per
/// record each).
///
/// # Errors
/// A solution shorter than its instance's optimal length (the set is
/// wrong: nothing is written), or the file cannot be written.
pub fn write_instances(
    path: &Path,
    by: &Producer,
    records: &[Record],
    extra: Vec<(&str, Col)>,
) -> Result<(), SolveError> {
    for r in records {
        if let (Some(length), Some(optimal)) = (r.length, r.optimal)
            && length < optimal as usize
        {
            return Err(SolveError::BelowOptimal { id: r.id.clone(), length, optimal });
        }
    }
    let n = records.len();
    let nan = f64::NAN;
    let mut cols = vec![
        ("puzzle", Col::Str(vec![by.puzzle.clone(); n])),
        ("method", Col::Str(vec![by.method.clone(); n])),
        ("heuristic", Col::Str(vec![by.heuristic.clone(); n])),
        ("width", Col::U64(records.iter().map(|r| r.width as u64).collect())),
        ("id", Col::Str(records.iter().map(|r| r.id.clone()).collect())),
        ("status", Col::Str(records.iter().map(|r| status_name(r.status).to_string()).collect())),
        ("solved", Col::Bool(records.iter().map(|r| r.status == Status::Solved).collect())),
        ("solution", Col::Str(records.iter().map(|r| r.solution.clone()).collect())),
        ("length", Col::OptU64(records.iter().map(|r| r.length.map(|l| l as u64)).collect())),
        ("optimal", Col::OptU64(records.iter().map(|r| r.optimal.map(u64::from)).collect())),
        ("generated", Col::U64(records.iter().map(|r| r.generated).collect())),
        ("expanded", Col::U64(records.iter().map(|r| r.expanded).collect())),
        ("elapsed_ms", Col::F64(records.iter().map(|r| r.elapsed_s * 1e3).collect())),
        ("ebf", Col::F64(records.iter().map(|r| r.ebf.unwrap_or(nan)).collect())),
    ];
    cols.extend(extra);
    Ok(write_table(path, cols)?)
}

/// The core summary columns of `summaries` (one row each).
#[must_use]
pub fn summary_columns(by: &Producer, summaries: &[Summary]) -> Vec<(&'static str, Col)> {
    let n = summaries.len();
    let f = |g: fn(&Summary) -> f64| Col::F64(summaries.iter().map(g).collect());
    vec![
        ("puzzle", Col::Str(vec![by.puzzle.clone(); n])),
        ("method", Col::Str(vec![by.method.clone(); n])),
        ("heuristic", Col::Str(vec![by.heuristic.clone(); n])),
        ("width", Col::U64(summaries.iter().map(|s| s.width as u64).collect())),
        ("instances", Col::U64(summaries.iter().map(|s| s.instances as u64).collect())),
        ("solved_pct", f(|s| s.solved_pct)),
        ("limit_pct", f(|s| s.limit_pct)),
        ("mean_length", f(|s| s.mean_length)),
        ("median_length", f(|s| s.median_length)),
        ("optimal_pct", f(|s| s.optimal_pct)),
        ("mean_excess", f(|s| s.mean_excess)),
        ("mean_generated", f(|s| s.mean_generated)),
        ("mean_expanded", f(|s| s.mean_expanded)),
        ("total_generated", Col::U64(summaries.iter().map(|s| s.total_generated).collect())),
        ("mean_elapsed_s", f(|s| s.mean_elapsed_s)),
        ("p95_elapsed_s", f(|s| s.p95_elapsed_s)),
        ("total_elapsed_s", f(|s| s.total_elapsed_s)),
        ("generated_per_s", f(|s| s.generated_per_s)),
        ("expanded_per_s", f(|s| s.expanded_per_s)),
        ("mean_ebf", f(|s| s.mean_ebf)),
    ]
}

/// Writes `summary.csv`: the core columns, then `extra` (one value per
/// summary each).
///
/// # Errors
/// The file cannot be written.
pub fn write_summary(
    path: &Path,
    by: &Producer,
    summaries: &[Summary],
    extra: Vec<(&str, Col)>,
) -> Result<(), SolveError> {
    let mut cols = summary_columns(by, summaries);
    cols.extend(extra);
    Ok(write_table(path, cols)?)
}

/// A percentage for the console (`label 12.5%`), or `label n/a` for NaN.
#[must_use]
pub fn pct_or_na(label: &str, v: f64) -> String {
    if v.is_nan() { format!("{label} n/a") } else { format!("{label} {v:.1}%") }
}

/// `mean length 21.84 QTM` (units may be empty), or `mean length n/a` when no instance was solved.
pub fn length_or_na(v: f64, units: &str) -> String {
    if v.is_nan() {
        "mean length n/a".to_string()
    } else {
        format!("mean length {v:.2} {units}").trim_end().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn record(status: Status, length: Option<usize>, optimal: Option<u32>, generated: u64, ms: u64) -> Record {
        Record {
            width: 0,
            id: String::new(),
            status,
            solution: String::new(),
            length,
            optimal,
            generated,
            expanded: generated / 2,
            elapsed_s: Duration::from_millis(ms).as_secs_f64(),
            ebf: None,
        }
    }

    #[test]
    fn summaries_count_what_they_say() {
        let rs = [
            record(Status::Solved, Some(10), Some(10), 100, 100),
            record(Status::Solved, Some(14), Some(12), 300, 300),
            record(Status::Solved, Some(9), None, 200, 200),
            record(Status::LimitReached, None, Some(20), 400, 400),
        ];
        let refs: Vec<&Record> = rs.iter().collect();
        let s = summarize(0, &refs);
        assert_eq!((s.instances, s.solved_pct, s.limit_pct), (4, 75.0, 25.0));
        assert_eq!((s.mean_length, s.median_length), (11.0, 10.0));
        // Of the two solved instances with a known optimum, one reaches it,
        // and the excess is (0 + 2) / 2.
        assert_eq!((s.optimal_pct, s.mean_excess), (50.0, 1.0));
        assert_eq!((s.total_generated, s.mean_generated, s.mean_expanded), (1000, 250.0, 125.0));
        assert!((s.total_elapsed_s - 1.0).abs() < 1e-12 && (s.generated_per_s - 1000.0).abs() < 1e-9);
        assert!(s.mean_ebf.is_nan());
        let none = summarize(0, &[]);
        assert!(none.mean_length.is_nan() && none.optimal_pct.is_nan() && none.solved_pct == 0.0);
        // Nothing solved prints as n/a, never as NaN.
        let unsolved = summarize(0, &refs[3..]);
        assert_eq!(length_or_na(unsolved.mean_length, "QTM"), "mean length n/a");
        assert_eq!(pct_or_na("optimal", unsolved.optimal_pct), "optimal n/a");
        assert_eq!(length_or_na(s.mean_length, "QTM"), "mean length 11.00 QTM");
        assert_eq!(length_or_na(s.mean_length, ""), "mean length 11.00");
    }
}
