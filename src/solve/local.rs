//! `solve local hill-climbing|first-choice|annealing --problem
//! queens<N>|function-<name>`: many seeded local-search trials
//! ([`crate::local`]) and their figures. Trial `i` uses seed `seed + i`;
//! every final state's cost is recomputed from scratch before it is
//! written, so the incremental bookkeeping is checked on every trial.
//!
//! Output goes to `<out>/<label>/` (`runs/classical` by default):
//! `trials.csv` (one row per trial: success, steps, moves, restarts,
//! evaluations, sideways moves, initial and final cost), `summary.csv`
//! (one row: the method's limits and schedule, the success rate with its
//! 95 % Wilson interval, mean steps when the trial succeeded and when it
//! failed, mean evaluations, restarts, sideways moves and final cost) and
//! `plots/steps.png` / `.svg`, the distribution of steps for successes and
//! failures. These folders hold no `instances.csv`: local search has trials
//! from random states, not instances, so it does not share the schema of
//! [`super::record`].

use super::bounds;
use super::error::{SolveError, invalid};
use crate::csvlog::{Col, write_table};
use crate::folder::{self, IfExists, Output};
use crate::local::{
    FunctionProblem, LocalConfig, LocalError, LocalMethod, LocalProblem, ProblemKind, RunOutcome, RunSummary, run_once,
    summarize,
};
use crate::plot::{Chart, Series, Style};
use std::path::{Path, PathBuf};

/// What a local-search `solve` run was asked to do.
#[derive(Clone, Debug)]
pub struct LocalOptions {
    /// The problem.
    pub problem: ProblemKind,
    /// The method, its limits and schedule.
    pub config: LocalConfig,
    /// Seeded trials.
    pub trials: u64,
    /// Seed of the first trial (trial `i` uses `seed + i`).
    pub seed: u64,
    /// Parent folder of the output folder.
    pub out_root: PathBuf,
    /// Output folder name (default from problem, method, limits, trials, seed).
    pub label: Option<String>,
    /// Replace an existing output folder.
    pub overwrite: bool,
}

impl LocalOptions {
    /// The default output folder name, e.g.
    /// `queens8-hill-climbing-sideways100-trials200-seed1`.
    #[must_use]
    pub fn default_label(&self) -> String {
        let c = &self.config;
        let mut label = format!("{}-{}", self.problem, c.method.name());
        if c.method == LocalMethod::Annealing {
            // Short numbers (`1e300`, not 301 digits), so the name never
            // grows past what `sanitize` keeps and the seed stays in it.
            let (t, cooling) = (bounds::show_number(c.schedule.temperature), bounds::show_number(c.schedule.cooling));
            label += &format!("-t{t}-c{cooling}-steps{}", c.max_steps);
        } else {
            if c.max_sideways > 0 {
                label += &format!("-sideways{}", c.max_sideways);
            }
            if c.max_steps != LocalConfig::HILL_CLIMBING_STEPS {
                label += &format!("-steps{}", c.max_steps);
            }
        }
        if c.max_restarts > 0 {
            label += &format!("-restarts{}", c.max_restarts);
        }
        folder::sanitize(&format!("{label}-trials{}-seed{}", self.trials, self.seed))
    }
}

/// Runs the batch, writes the tables and the plot, prints the summary;
/// returns the output folder and the summary.
///
/// # Errors
/// A schedule or limit out of range, no runs, an existing output folder
/// without `--overwrite`, a failed write, or (a bug) a final state whose
/// recomputed cost differs from the one the search kept.
pub fn run(opts: &LocalOptions) -> Result<(PathBuf, RunSummary), SolveError> {
    opts.config.validate().map_err(|e| match e {
        // The flags' values, shown short (`1e300`, not 301 digits).
        LocalError::Temperature { value } => invalid!(
            format!("--temperature {}", bounds::show_number(value)),
            "the start temperature must be a positive finite number"
        ),
        LocalError::Cooling { value } => invalid!(
            format!("--cooling {}", bounds::show_number(value)),
            "the geometric cooling factor must lie strictly between 0 and 1"
        ),
        LocalError::MaxSteps { value } => invalid!(format!("--max-steps {value}"), "the step limit must be at least 1"),
        other => other.into(),
    })?;
    bounds::local_limits(&opts.config)?;
    bounds::instance_count("--trials", opts.trials)?;
    if opts.seed.checked_add(opts.trials - 1).is_none() {
        return Err(invalid!(
            format!("--seed {} with --trials {}", opts.seed, opts.trials),
            "trial i uses seed + i, and the last would pass {} (the largest seed)",
            u64::MAX
        ));
    }
    let label = opts.label.clone().unwrap_or_else(|| opts.default_label());
    let if_exists = IfExists::overwrite(opts.overwrite);
    let output = Output::claim(&opts.out_root, &label, "--label", if_exists)?;
    let (runs, first) = match opts.problem {
        ProblemKind::Queens(q) => batch(&q, opts)?,
        ProblemKind::Function(f) => batch(&FunctionProblem::new(f), opts)?,
    };
    let summary = summarize(&runs);
    write_outputs(output.dir(), opts, &runs, &summary)?;
    if opts.trials == 1 {
        let r = &runs[0];
        let verdict = if r.success { "optimum reached" } else { "stuck above the optimum" };
        crate::say!("seed {}: {first} (cost {}; {verdict}; recomputed)", r.seed, r.final_cost);
    }
    print_summary(opts, &summary);
    Ok((output.commit()?, summary))
}

/// Every run, its final cost recomputed; the first run's final state in words.
fn batch<P: LocalProblem>(problem: &P, opts: &LocalOptions) -> Result<(Vec<RunOutcome<()>>, String), SolveError> {
    let mut first = String::new();
    let mut runs = Vec::with_capacity(usize::try_from(opts.trials).unwrap_or(0).min(1 << 20));
    for i in 0..opts.trials {
        let r = run_once(problem, &opts.config, opts.seed + i);
        let recomputed = problem.recompute_cost(&r.state);
        if recomputed != r.final_cost {
            return Err(SolveError::WrongSolution {
                method: opts.config.method.name().to_string(),
                id: format!("{} seed {}", problem.name(), r.seed),
                solution: format!("{} has cost {recomputed}, not {}", problem.describe(&r.state), r.final_cost),
            });
        }
        if i == 0 {
            first = problem.describe(&r.state);
        }
        runs.push(r.without_state());
    }
    Ok((runs, first))
}

fn write_outputs(dir: &Path, opts: &LocalOptions, runs: &[RunOutcome<()>], s: &RunSummary) -> Result<(), SolveError> {
    let n = runs.len();
    let problem = opts.problem.to_string();
    let method = opts.config.method.name().to_string();
    let col = |f: fn(&RunOutcome<()>) -> u64| Col::U64(runs.iter().map(f).collect());
    let icol = |f: fn(&RunOutcome<()>) -> i64| Col::I64(runs.iter().map(f).collect());
    write_table(
        &dir.join("trials.csv"),
        vec![
            ("trial", Col::U64((0..n as u64).collect())),
            ("seed", col(|r| r.seed)),
            ("problem", Col::Str(vec![problem.clone(); n])),
            ("method", Col::Str(vec![method.clone(); n])),
            ("success", Col::Bool(runs.iter().map(|r| r.success).collect())),
            ("steps", col(|r| r.steps)),
            ("moves", col(|r| r.moves)),
            ("restarts", col(|r| r.restarts)),
            ("evaluations", col(|r| r.evaluations)),
            ("sideways", col(|r| r.sideways)),
            ("initial_cost", icol(|r| r.initial_cost)),
            ("final_cost", icol(|r| r.final_cost)),
        ],
    )?;
    let c = &opts.config;
    let annealing = c.method == LocalMethod::Annealing;
    write_table(
        &dir.join("summary.csv"),
        vec![
            ("problem", Col::Str(vec![problem])),
            ("method", Col::Str(vec![method])),
            ("max_sideways", Col::OptU64(vec![(!annealing).then_some(c.max_sideways)])),
            ("max_restarts", Col::U64(vec![c.max_restarts])),
            ("max_steps", Col::U64(vec![c.max_steps])),
            ("temperature", Col::F64(vec![if annealing { c.schedule.temperature } else { f64::NAN }])),
            ("cooling", Col::F64(vec![if annealing { c.schedule.cooling } else { f64::NAN }])),
            ("seed", Col::U64(vec![opts.seed])),
            ("trials", Col::U64(vec![s.trials])),
            ("successes", Col::U64(vec![s.successes])),
            ("success_rate", Col::F64(vec![s.success_rate])),
            ("success_low", Col::F64(vec![s.success_low])),
            ("success_high", Col::F64(vec![s.success_high])),
            ("mean_steps", Col::F64(vec![s.mean_steps])),
            ("mean_steps_success", Col::F64(vec![s.mean_steps_success])),
            ("mean_steps_failure", Col::F64(vec![s.mean_steps_failure])),
            ("mean_moves", Col::F64(vec![s.mean_moves])),
            ("mean_evaluations", Col::F64(vec![s.mean_evaluations])),
            ("mean_restarts", Col::F64(vec![s.mean_restarts])),
            ("mean_sideways", Col::F64(vec![s.mean_sideways])),
            ("mean_final_cost", Col::F64(vec![s.mean_final_cost])),
        ],
    )?;
    steps_chart(opts, runs, s).save(&dir.join("plots").join("steps"))?;
    Ok(())
}

/// Trials by steps (in at most 50 bins), successes and failures apart.
fn steps_chart(opts: &LocalOptions, runs: &[RunOutcome<()>], s: &RunSummary) -> Chart {
    let max = runs.iter().map(|r| r.steps).max().unwrap_or(0);
    let width = (max / 50 + 1).max(1);
    let bins = (max / width + 1) as usize;
    let histogram = |success: bool| {
        let mut counts = vec![0u64; bins];
        for r in runs.iter().filter(|r| r.success == success) {
            counts[(r.steps / width) as usize] += 1;
        }
        let centre = |b: usize| b as f64 * width as f64 + (width as f64 - 1.0) / 2.0;
        counts.iter().enumerate().map(|(b, &c)| (centre(b), c as f64)).collect::<Vec<_>>()
    };
    let note = format!(
        "{} trials, success {:.1}% [{:.1}, {:.1}]",
        s.trials,
        100.0 * s.success_rate,
        100.0 * s.success_low,
        100.0 * s.success_high
    );
    Chart {
        note: Some(note),
        ..Chart::new(
            format!("{} {}: steps per trial", opts.problem, opts.config.method.name()),
            if width == 1 { "steps".to_string() } else { format!("steps (bins of {width})") },
            "trials",
        )
    }
    .with(Series::new("succeeded", Style::Line, histogram(true)))
    .with(Series::new("failed", Style::Line, histogram(false)))
}

fn print_summary(opts: &LocalOptions, s: &RunSummary) {
    let c = &opts.config;
    let limits = match c.method {
        LocalMethod::Annealing => format!(
            "temperature {}, cooling {}, max-steps {}, max-restarts {}",
            bounds::show_number(c.schedule.temperature),
            bounds::show_number(c.schedule.cooling),
            c.max_steps,
            c.max_restarts
        ),
        _ => format!("max-sideways {}, max-restarts {}, max-steps {}", c.max_sideways, c.max_restarts, c.max_steps),
    };
    let or_na = |v: f64| if v.is_nan() { "n/a".to_string() } else { format!("{v:.2}") };
    crate::say!(
        "{} {} ({limits}): {} trials from seed {}, success {:.2}% (95% CI {:.2}–{:.2}%), mean steps {} when it succeeds, {} when it fails; {:.1} evaluations, {:.2} restarts, {:.2} sideways moves per trial; mean final cost {:.3}",
        opts.problem,
        c.method.name(),
        s.trials,
        opts.seed,
        100.0 * s.success_rate,
        100.0 * s.success_low,
        100.0 * s.success_high,
        or_na(s.mean_steps_success),
        or_na(s.mean_steps_failure),
        s.mean_evaluations,
        s.mean_restarts,
        s.mean_sideways,
        s.mean_final_cost
    );
}
