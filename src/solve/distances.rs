//! `solve distances`: a breadth-first search from the goal that
//! records every reachable state's exact distance (the lookup table h*),
//! and writes its distance distribution as `distances.csv` and a histogram
//! (`plots/distances.png` / `.svg`).
//!
//! Complete tables are practical for the 8-puzzle (181,440 states),
//! smaller boards and the 2×2×2 (3,674,160 positions, a few seconds); for
//! the 15-puzzle, the 24-puzzle and the 3×3×3 the search must be bounded
//! with `--max-depth`, and the bound is checked before any memory is used.

use super::error::{SolveError, invalid};
use super::input::no_goal;
use crate::csvlog::{Col, write_table};
use crate::cube2::Cube2Puzzle;
use crate::cube3::{Cube3Puzzle, Metric};
use crate::folder::{IfExists, Output};
use crate::plot::{Chart, Series, Style};
use crate::puzzle::Puzzle;
use crate::registry::PuzzleKind;
use crate::search::DistanceTable;
use crate::sliding::{Goal, Sliding};
use std::path::PathBuf;
use std::str::FromStr;

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

/// Largest depth bound accepted for the cube in each metric, and for
/// boards of width 4 and more: beyond these the table would not fit in memory.
const MAX_CUBE_DEPTH_QTM: u32 = 7;
const MAX_CUBE_DEPTH_HTM: u32 = 6;
const MAX_LARGE_BOARD_DEPTH: u32 = 24;

/// The puzzle's name, the states at each distance up to `depth` (at most
/// 255), and whether that is the whole space.
fn bfs<P: Puzzle>(puzzle: &P, depth: u32) -> (String, Vec<u64>, bool) {
    let t = DistanceTable::build(puzzle, depth.min(u32::from(u8::MAX)) as u8);
    (puzzle.name(), t.counts.clone(), t.is_complete())
}

/// Builds the table, writes the distribution and the plot; returns the
/// output folder and the per-depth counts.
///
/// # Errors
/// A missing or too deep bound for a large space, a bad goal, or an
/// existing output folder without `--overwrite`.
pub fn run(opts: &TableOptions) -> Result<(PathBuf, Vec<u64>, bool), SolveError> {
    let (name, counts, complete) = match opts.puzzle {
        PuzzleKind::Sliding(n) => {
            let goal = match &opts.goal {
                Some(g) => Goal::from_str(g)?,
                None => Goal::BlankLast,
            };
            let depth = match (n, opts.max_depth) {
                (..=3, d) => d.unwrap_or(u32::from(u8::MAX)),
                (_, None) => {
                    return Err(invalid!(
                        format!("a distance table of puzzle{} without a depth bound", n * n - 1),
                        "the whole space does not fit in memory; give a depth bound (at most {MAX_LARGE_BOARD_DEPTH})"
                    ));
                }
                (_, Some(d)) if d > MAX_LARGE_BOARD_DEPTH => {
                    return Err(invalid!(
                        format!("depth bound {d}"),
                        "at most {MAX_LARGE_BOARD_DEPTH} for boards of width 4 and more (memory)"
                    ));
                }
                (_, Some(d)) => d,
            };
            bfs(&Sliding::new(n, goal)?, depth)
        }
        PuzzleKind::Cube3 => {
            no_goal(opts.goal.as_deref(), opts.puzzle)?;
            let cap = if opts.metric == Metric::Qtm { MAX_CUBE_DEPTH_QTM } else { MAX_CUBE_DEPTH_HTM };
            let depth = match opts.max_depth {
                None => {
                    return Err(invalid!(
                        "a distance table of the cube without a depth bound",
                        "give a depth bound (at most {cap} in {})",
                        opts.metric
                    ));
                }
                Some(d) if d > cap => {
                    return Err(invalid!(
                        format!("depth bound {d}"),
                        "at most {cap} for the cube in {} (memory)",
                        opts.metric
                    ));
                }
                Some(d) => d,
            };
            bfs(&Cube3Puzzle::new(opts.metric), depth)
        }
        PuzzleKind::Cube2 => {
            no_goal(opts.goal.as_deref(), opts.puzzle)?;
            bfs(&Cube2Puzzle::new(opts.metric), opts.max_depth.unwrap_or(u32::MAX))
        }
    };
    let label = opts.label.clone().unwrap_or_else(|| format!("{name}-distances"));
    let if_exists = if opts.overwrite { IfExists::Replace } else { IfExists::Refuse };
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
