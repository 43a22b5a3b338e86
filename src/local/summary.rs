//! Many seeded runs in a few numbers: the success rate with its 95 %
//! Wilson score interval, mean steps over the runs that succeeded and over
//! those that failed (AIMA reports both), and mean evaluations, restarts,
//! sideways moves and final cost.

use super::RunOutcome;

/// The figures of a batch of runs. A mean over no runs is NaN.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunSummary {
    /// Trials (seeded runs).
    pub trials: u64,
    /// Runs that reached the known optimum.
    pub successes: u64,
    /// `successes / runs`.
    pub success_rate: f64,
    /// Lower end of the 95 % Wilson interval of the success rate.
    pub success_low: f64,
    /// Upper end of the 95 % Wilson interval of the success rate.
    pub success_high: f64,
    /// Mean steps over all runs.
    pub mean_steps: f64,
    /// Mean steps over the runs that succeeded.
    pub mean_steps_success: f64,
    /// Mean steps over the runs that failed.
    pub mean_steps_failure: f64,
    /// Mean moves made.
    pub mean_moves: f64,
    /// Mean objective evaluations.
    pub mean_evaluations: f64,
    /// Mean restarts.
    pub mean_restarts: f64,
    /// Mean sideways moves.
    pub mean_sideways: f64,
    /// Mean cost of the final states.
    pub mean_final_cost: f64,
}

/// The Wilson score interval of a binomial proportion `successes / n` at
/// `z` standard errors (1.96 for 95 %); `(NaN, NaN)` when `n = 0`.
#[must_use]
pub fn wilson_interval(successes: u64, n: u64, z: f64) -> (f64, f64) {
    if n == 0 {
        return (f64::NAN, f64::NAN);
    }
    let (k, n) = (successes as f64, n as f64);
    let p = k / n;
    let z2 = z * z;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = z / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

fn mean(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = values.fold((0.0, 0u64), |(s, n), v| (s + v, n + 1));
    if n == 0 { f64::NAN } else { sum / n as f64 }
}

/// The summary of `runs`.
#[must_use]
pub fn summarize<S>(runs: &[RunOutcome<S>]) -> RunSummary {
    let n = runs.len() as u64;
    let successes = runs.iter().filter(|r| r.success).count() as u64;
    let (success_low, success_high) = wilson_interval(successes, n, 1.96);
    let of = |f: fn(&RunOutcome<S>) -> u64| mean(runs.iter().map(|r| f(r) as f64));
    RunSummary {
        trials: n,
        successes,
        success_rate: if n == 0 { f64::NAN } else { successes as f64 / n as f64 },
        success_low,
        success_high,
        mean_steps: of(|r| r.steps),
        mean_steps_success: mean(runs.iter().filter(|r| r.success).map(|r| r.steps as f64)),
        mean_steps_failure: mean(runs.iter().filter(|r| !r.success).map(|r| r.steps as f64)),
        mean_moves: of(|r| r.moves),
        mean_evaluations: of(|r| r.evaluations),
        mean_restarts: of(|r| r.restarts),
        mean_sideways: of(|r| r.sideways),
        mean_final_cost: mean(runs.iter().map(|r| r.final_cost as f64)),
    }
}
