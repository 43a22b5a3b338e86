//! `solve distances`: a breadth-first search from the goal that
//! records every reachable state's exact distance (the lookup table h*),
//! and writes its distance distribution as `distances.csv` and a histogram
//! (`plots/distances.png` / `.svg`).
//!
//! Complete tables are practical for the 8-puzzle (181,440 states),
//! smaller boards and the 2×2×2 (3,674,160 positions, a few seconds); for
//! the 15-puzzle, the 24-puzzle and the 3×3×3 the search must be bounded
//! with `--max-depth`, and the bound is checked before any memory is used.

use super::error::SolveError;
use super::front::{self, FrontEnd, FrontVisitor};
use super::input::{goal_flag, no_goal};
use crate::csvlog::{Col, write_table};
use crate::cube3::Metric;
use crate::folder::{IfExists, Output};
use crate::plot::{Chart, Series, Style};
use crate::registry::{AnyPuzzle, PuzzleKind};
use crate::search::DistanceTable;
use std::path::PathBuf;

/// What `solve distances` was asked to do.
#[derive(Clone, Debug)]
pub struct TableOptions {
    /// The puzzle.
    pub puzzle: PuzzleKind,
    /// Sliding goal.
    pub goal: Option<String>,
    /// Cube metric.
    pub metric: Metric,
    /// Depth bound (`None`: the whole space, allowed for boards up to 3×3
    /// and the 2×2×2).
    pub max_depth: Option<u32>,
    /// Parent folder of the output folder.
    pub out_root: PathBuf,
    /// Output folder name.
    pub label: Option<String>,
    /// Replace an existing output folder.
    pub overwrite: bool,
}

/// The table of [`run`] on the concrete puzzle: its name, the states at
/// each distance up to the bound, and whether that is the whole space.
struct Table<'a>(&'a TableOptions);

impl FrontVisitor for Table<'_> {
    type Out = Result<(String, Vec<u64>, bool), SolveError>;
    fn visit<P: FrontEnd>(self, puzzle: P) -> Self::Out {
        let depth = puzzle.table_depth(self.0.max_depth)?;
        let t = DistanceTable::build(&puzzle, depth.min(u32::from(u8::MAX)) as u8);
        Ok((puzzle.name(), t.counts.clone(), t.is_complete()))
    }
}

/// Builds the table, writes the distribution and the plot; returns the
/// output folder and the per-depth counts.
///
/// # Errors
/// A missing or too deep bound for a large space, a bad goal, or an
/// existing output folder without `--overwrite`.
pub fn run(opts: &TableOptions) -> Result<(PathBuf, Vec<u64>, bool), SolveError> {
    if !opts.puzzle.has_goal() {
        no_goal(opts.goal.as_deref(), opts.puzzle)?;
    }
    let goal = goal_flag(opts.goal.as_deref())?;
    let (name, counts, complete) = front::visit(AnyPuzzle::new(opts.puzzle, opts.metric, goal.as_ref())?, Table(opts))?;
    let label = opts.label.clone().unwrap_or_else(|| format!("{name}-distances"));
    let if_exists = IfExists::overwrite(opts.overwrite);
    let output = Output::claim(&opts.out_root, &label, "--label", if_exists)?;
    let dir = output.dir().to_path_buf();
    let total: u64 = counts.iter().sum();
    let cumulative: Vec<u64> = counts
        .iter()
        .scan(0, |acc, &c| {
            *acc += c;
            Some(*acc)
        })
        .collect();
    write_table(
        &dir.join("distances.csv"),
        vec![
            ("depth", Col::U64((0..counts.len() as u64).collect())),
            ("states", Col::U64(counts.clone())),
            ("cumulative", Col::U64(cumulative)),
            ("share", Col::F64(counts.iter().map(|&c| c as f64 / total as f64).collect())),
        ],
    )?;
    let mean = counts.iter().enumerate().map(|(d, &c)| d as f64 * c as f64).sum::<f64>() / total as f64;
    let scope = if complete { "complete".to_string() } else { format!("depth ≤ {}", counts.len() - 1) };
    Chart {
        log_y: true,
        note: Some(format!("{total} states ({scope}), mean distance {mean:.3}")),
        ..Chart::new(format!("BFS distances from the goal: {name}"), "distance", "states")
    }
    .with(Series::new("", Style::Bars, counts.iter().enumerate().map(|(d, &c)| (d as f64, c as f64)).collect()))
    .save(&dir.join("plots").join("distances"))?;
    crate::say!(
        "{name}: {total} states ({scope}), maximum distance {}, mean {mean:.3}; counts by distance: {}",
        counts.len() - 1,
        counts.iter().map(u64::to_string).collect::<Vec<_>>().join(" ")
    );
    Ok((output.commit()?, counts, complete))
}
