//! What a local-search run does: the [`LocalMethod`] (steepest-ascent
//! hill climbing, first-choice hill climbing, simulated annealing), its
//! limits (sideways moves, random restarts, steps) and the annealing
//! [`Schedule`], gathered in [`LocalConfig`] and checked by
//! [`LocalConfig::validate`].

use super::LocalError;
use std::str::FromStr;

/// A local-search method.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LocalMethod {
    /// Steepest-ascent hill climbing: move to a best neighbour (ties
    /// broken uniformly at random) while it is better.
    HillClimbing,
    /// First-choice hill climbing: examine neighbours in random order and
    /// take the first that is better.
    FirstChoice,
    /// Simulated annealing: a random neighbour, always taken when better,
    /// else with probability `exp(−Δ/T)`, `T` falling geometrically.
    Annealing,
}

impl LocalMethod {
    /// Every method with its command-line name.
    pub const ALL: [(&'static str, Self); 3] =
        [("hill-climbing", Self::HillClimbing), ("first-choice", Self::FirstChoice), ("annealing", Self::Annealing)];

    /// The command-line name.
    #[must_use]
    pub fn name(self) -> &'static str {
        Self::ALL.iter().find(|m| m.1 == self).map_or("?", |m| m.0)
    }
}

impl FromStr for LocalMethod {
    type Err = LocalError;
    fn from_str(s: &str) -> Result<Self, LocalError> {
        let key = s.trim().to_ascii_lowercase().replace('_', "-");
        let key = match key.as_str() {
            "steepest-ascent" | "steepest-descent" | "hill-climb" | "hc" => "hill-climbing",
            "simulated-annealing" | "sa" => "annealing",
            "first-choice-hill-climbing" => "first-choice",
            other => other,
        };
        Self::ALL.iter().find(|m| m.0 == key).map(|m| m.1).ok_or_else(|| LocalError::UnknownMethod { name: s.into() })
    }
}

/// The annealing schedule `T(t) = temperature · cooling^t` for steps
/// `t = 0, 1, …`, until the step limit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Schedule {
    /// The start temperature `T(0)`, in units of the cost.
    pub temperature: f64,
    /// The geometric cooling factor per step, in `(0, 1)`.
    pub cooling: f64,
}

impl Default for Schedule {
    /// `T(0) = 2`, cooling 0.999 per step: on 8-queens a move that adds
    /// one attacking pair is taken with probability `e^(−1/2) ≈ 0.61` at
    /// first and `e^(−1/0.1) ≈ 5·10⁻⁵` after 3000 steps.
    fn default() -> Self {
        Self { temperature: 2.0, cooling: 0.999 }
    }
}

/// A local-search run's method and limits.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LocalConfig {
    /// The method.
    pub method: LocalMethod,
    /// Hill climbing: the most consecutive sideways moves (to a neighbour
    /// of equal cost) before the climb counts as stuck; 0: none.
    pub max_sideways: u64,
    /// Random restarts after a failed climb (0: a single climb).
    pub max_restarts: u64,
    /// Steps per climb: hill climbing stops (failing) after this many
    /// moves ([`Self::HILL_CLIMBING_STEPS`] by default, so that a climb
    /// along a long plateau ends); annealing after this many steps of its
    /// schedule.
    pub max_steps: u64,
    /// Annealing schedule.
    pub schedule: Schedule,
}

impl LocalConfig {
    /// The default step limit of annealing.
    pub const ANNEALING_STEPS: u64 = 10_000;

    /// The default step limit of hill climbing. A climb without sideways
    /// moves stops by itself (each move lowers the cost); with them it can
    /// wander a plateau for as long as `max_sideways` allows between
    /// improvements, and this ends it (on queens8, about a second).
    pub const HILL_CLIMBING_STEPS: u64 = 1_000_000;

    /// A configuration of `method` with no sideways moves, no restarts,
    /// the default schedule, and the method's default step limit.
    #[must_use]
    pub fn new(method: LocalMethod) -> Self {
        let max_steps =
            if method == LocalMethod::Annealing { Self::ANNEALING_STEPS } else { Self::HILL_CLIMBING_STEPS };
        Self { method, max_sideways: 0, max_restarts: 0, max_steps, schedule: Schedule::default() }
    }

    /// Checks the schedule and the step limit.
    ///
    /// # Errors
    /// A temperature that is not positive and finite, a cooling factor
    /// outside `(0, 1)`, or a zero step limit.
    pub fn validate(&self) -> Result<(), LocalError> {
        let Schedule { temperature, cooling } = self.schedule;
        if !(temperature.is_finite() && temperature > 0.0) {
            return Err(LocalError::Temperature { value: temperature });
        }
        if !(cooling > 0.0 && cooling < 1.0) {
            return Err(LocalError::Cooling { value: cooling });
        }
        if self.max_steps == 0 {
            return Err(LocalError::MaxSteps { value: 0 });
        }
        Ok(())
    }
}
