//! `solve classical <METHOD>`: the classical searches (A*, IDA*, RBFS, IDS, BFS,
//! greedy, uniform-cost, heuristic beam) on the 3×3×3 and 2×2×2 cubes and
//! the sliding puzzles, with the same inputs ([`crate::solve::input`]) and
//! the same result schema ([`crate::solve::record`]) as oracle beam search,
//! so learned and classical methods sit side by side.
//!
//! [`Method`] and [`PuzzleKind`] (the registry's names) name what to run;
//! the heuristic is chosen by name (see [`crate::solve::heuristics`]); every
//! instance is searched with node and time limits and a depth limit (every
//! method honours `--max-depth`: no longer path is searched or returned),
//! a path that reaches a node or time limit is reported as `limit`, never
//! as a solution, and every solution is replayed on its start state before
//! it is written. Output goes to
//! `<out>/<label>/` (`runs/classical` by default): `instances.csv` (one row
//! per instance, with `peak_nodes` after the core columns) and
//! `summary.csv` (one row, with `mean_peak_nodes`).

pub mod search;

pub use search::{ClassicalOptions, DEFAULT_MAX_DEPTH, Method, Named, Row, run_cases, search};

use crate::csvlog::Col;
use crate::folder::{self, IfExists, Output};
use crate::registry::AnyPuzzle;
use crate::search::Status;
use crate::sliding::Goal;
use crate::solve::bounds;
use crate::solve::error::{SolveError, invalid};
use crate::solve::front::{self, FrontEnd, FrontVisitor};
use crate::solve::input;
use crate::solve::record::{self, Producer, Record};
use std::path::PathBuf;

/// Runs a classical `solve`; returns the output folder.
pub fn run(opts: &ClassicalOptions) -> Result<PathBuf, SolveError> {
    if !opts.method.uses_heuristic()
        && let Some(h) = &opts.heuristic
    {
        return Err(invalid!(
            format!("--heuristic {}", bounds::shorten(h)),
            "method {} does not use a heuristic",
            opts.method.name()
        ));
    }
    if opts.method == Method::Beam && opts.width == 0 {
        return Err(invalid!("--beam-width 0", "the beam width must be at least 1"));
    }
    if let Some(d) = opts.max_depth {
        bounds::classical_depth(u64::from(d))?;
    }
    // A label the user chose is claimed (checked and locked) before
    // anything is built; a derived one once the heuristic has its name,
    // before the possibly long search.
    let mut claimed = match &opts.label {
        Some(label) => Some(Output::claim(&opts.out_root, label, "--label", IfExists::overwrite(opts.overwrite))?),
        None => None,
    };
    let cache = crate::heuristics::store::cache_dir();
    if !opts.puzzle.has_goal() {
        input::no_goal(opts.goal.as_deref(), opts.puzzle)?;
    }
    let goal = input::goal_flag(opts.goal.as_deref())?;
    let puzzle = AnyPuzzle::new(opts.puzzle, opts.metric, goal.as_ref())?;
    let visit = Classical { opts, goal: goal.as_ref(), cache: cache.as_deref(), claimed: &mut claimed };
    let (rows, set_label, puzzle_name, h_name) = front::visit(puzzle, visit)?;
    let h_label = opts.heuristic_label(&h_name);
    let output = match claimed {
        Some(output) => output,
        None => opts.claim_derived(&puzzle_name, &set_label, &h_name)?,
    };
    let by = Producer { puzzle: puzzle_name, method: opts.method.name().to_string(), heuristic: h_label };
    write_outputs(output.dir(), opts, &by, &rows)?;
    Ok(output.commit()?)
}

/// The search of [`run`] on the concrete puzzle: its instances, rows and
/// names (set label, puzzle, heuristic).
struct Classical<'a> {
    opts: &'a ClassicalOptions,
    goal: Option<&'a Goal>,
    cache: Option<&'a std::path::Path>,
    /// The output folder, once claimed.
    claimed: &'a mut Option<Output>,
}

impl FrontVisitor for Classical<'_> {
    type Out = Result<(Vec<Row>, String, String, String), SolveError>;
    fn visit<P: FrontEnd>(self, puzzle: P) -> Self::Out {
        let Classical { opts, goal, cache, claimed } = self;
        let (puzzle, (cases, label)) = puzzle.instances(&opts.input, goal)?;
        let bar = super::progress_bar(opts.progress, cases.len(), "instances");
        let puzzle_name = puzzle.name();
        let mut named = |h_name: &str| -> Result<(), SolveError> {
            if claimed.is_none() {
                *claimed = Some(opts.claim_derived(&puzzle_name, &label, h_name)?);
            }
            Ok(())
        };
        let (rows, h_name) = puzzle.classical(opts, &cases, cache, &bar, &mut named)?;
        bar.finish_and_clear();
        Ok((rows, label, puzzle_name, h_name))
    }
}

impl ClassicalOptions {
    /// The heuristic as the tables name it (`none` for a method without one).
    fn heuristic_label(&self, h_name: &str) -> String {
        if self.method.uses_heuristic() { h_name.to_string() } else { "none".into() }
    }

    /// Claims the folder named after the puzzle, the set, the method (and
    /// width) and the heuristic.
    fn claim_derived(&self, puzzle: &str, set: &str, h_name: &str) -> Result<Output, SolveError> {
        let w = if self.method == Method::Beam { format!("-w{}", self.width) } else { String::new() };
        let label = format!("{puzzle}-{set}-{}{w}-{}", self.method.name(), self.heuristic_label(h_name));
        Ok(Output::claim(&self.out_root, &folder::sanitize(&label), "--label", IfExists::overwrite(self.overwrite))?)
    }
}

fn write_outputs(
    dir: &std::path::Path,
    opts: &ClassicalOptions,
    by: &Producer,
    rows: &[Row],
) -> Result<(), SolveError> {
    let records: Vec<Record> = rows.iter().map(|r| r.record.clone()).collect();
    let peak = |r: &Row| r.peak_nodes;
    record::write_instances(
        &dir.join("instances.csv"),
        by,
        &records,
        vec![("peak_nodes", Col::U64(rows.iter().map(peak).collect()))],
    )?;
    let s = record::summarize(records.first().map_or(0, |r| r.width), &records.iter().collect::<Vec<_>>());
    let mean_peak = rows.iter().map(|r| r.peak_nodes as f64).sum::<f64>() / rows.len().max(1) as f64;
    record::write_summary(
        &dir.join("summary.csv"),
        by,
        std::slice::from_ref(&s),
        vec![("mean_peak_nodes", Col::F64(vec![mean_peak]))],
    )?;
    if let [r] = rows {
        let r = &r.record;
        match r.status {
            Status::Solved => crate::say!(
                "{}: {} ({} moves; verified)",
                r.id,
                if r.solution.is_empty() { "already solved" } else { &r.solution },
                r.length.unwrap_or(0)
            ),
            Status::LimitReached => crate::say!("{}: limit reached, no solution claimed", r.id),
            Status::Exhausted => match opts.method.depth_limit(opts.max_depth) {
                u32::MAX => crate::say!("{}: search space exhausted, no solution", r.id),
                depth => crate::say!("{}: no solution within depth {depth}", r.id),
            },
        }
    }
    crate::say!(
        "{} {} [{}]: {} instances, solved {:.1}% (limit {:.1}%), {}, {}, {:.0} nodes generated/instance ({:.0} expanded), {:.3} s/instance, {:.3e} nodes/s, EBF {:.3}",
        by.puzzle,
        by.method,
        by.heuristic,
        s.instances,
        s.solved_pct,
        s.limit_pct,
        record::length_or_na(s.mean_length, ""),
        record::pct_or_na("optimal", s.optimal_pct),
        s.mean_generated,
        s.mean_expanded,
        s.mean_elapsed_s,
        s.generated_per_s,
        s.mean_ebf
    );
    Ok(())
}
