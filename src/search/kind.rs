//! The oracle kinds and everything that differs between them, in one place.
//!
//! [`OracleKind`] names what a network's outputs mean: a **policy**
//! (log-probabilities of the move that produced a state), a **Q-distance**
//! oracle (for every move, the distance of the child reached by undoing
//! it) or a **value** oracle (the state's own distance). Every question
//! whose answer depends on the kind is one method here, answered by one
//! exhaustive `match`: what the network outputs and is trained towards, how
//! a prediction is judged, which states beam search asks about and how it
//! scores a child, how a symmetric ensemble averages answers, which move
//! distribution the diagnostics describe, and what distance a row
//! estimates. Adding a kind is a variant here (the compiler then lists
//! every question to answer) and its loss in `learn::objective`. No burn.

use crate::information::log_sum_exp;
use serde::{Deserialize, Serialize};

/// How the `k` move distributions of an ensemble are averaged
/// (a symmetric ensemble of `symmetric::SymmetricOracle`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Mean {
    /// `ln((1/k) Σ p_t(m))`: a mixture of the distributions.
    #[default]
    Arithmetic,
    /// `(1/k) Σ ln p_t(m)`, renormalised to sum to one.
    Geometric,
}

/// Declares [`OracleKind`] and [`OracleKind::ALL`] from one list, so that
/// `ALL` (which `solve --kind` offers and `--help` lists) cannot miss a kind.
macro_rules! oracle_kinds {
    ($($(#[$attr:meta])* $variant:ident),+ $(,)?) => {
        /// What an oracle's outputs mean (config key `model.kind`).
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
        #[serde(rename_all = "kebab-case")]
        pub enum OracleKind {
            $($(#[$attr])* $variant),+
        }

        impl OracleKind {
            /// Every kind, in the order the docs list them.
            pub const ALL: [OracleKind; [$(stringify!($variant)),+].len()] = [$(OracleKind::$variant),+];
        }
    };
}

oracle_kinds! {
    /// `ln p(m | s)`: log-probability that move `m` produced `s`.
    #[default]
    Policy,
    /// `Q(s, m)`: estimated distance to the goal of `s·m⁻¹`.
    QDistance,
    /// `V(s)`: estimated distance of `s` to the goal (one output).
    Value,
}

/// Which states beam search sends to the oracle at each depth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Queries {
    /// Each beam state once; its row scores every child.
    States,
    /// Each distinct child once; its one output scores it.
    Children,
}

/// The move distribution of a row that the beam's entropy and KL
/// diagnostics (and the exact report) describe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveDistribution {
    /// The row is one already (log-probabilities).
    Itself,
    /// The Boltzmann policy `softmax(−row)` over the applicable moves.
    Boltzmann,
}

impl OracleKind {
    /// The name used in configs, `meta.json`, tables and flags.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Policy => "policy",
            Self::QDistance => "q-distance",
            Self::Value => "value",
        }
    }

    /// Outputs per state for a puzzle with `moves` moves.
    #[must_use]
    pub fn outputs(self, moves: usize) -> usize {
        match self {
            Self::Policy | Self::QDistance => moves,
            Self::Value => 1,
        }
    }

    /// Whether the outputs are distances learned by regression (and not
    /// log-probabilities learned by cross-entropy).
    #[must_use]
    pub fn is_regression(self) -> bool {
        match self {
            Self::Policy => false,
            Self::QDistance | Self::Value => true,
        }
    }

    /// Whether the outputs are a move distribution the network normalises
    /// (a log-softmax at inference; KL diagnostics in training).
    #[must_use]
    pub fn is_distribution(self) -> bool {
        !self.is_regression()
    }

    /// Whether the kind takes `model.forward_targets` (the walk's next
    /// move as a second regression target).
    #[must_use]
    pub fn has_forward_targets(self) -> bool {
        match self {
            Self::QDistance => true,
            Self::Policy | Self::Value => false,
        }
    }

    /// Whether the kind can be fine-tuned on Bellman targets
    /// (`finetune.targets = "bellman"`): its outputs are the distances of
    /// the children, so one forward of a child bounds its parent's output.
    #[must_use]
    pub fn has_bellman_targets(self) -> bool {
        match self {
            Self::QDistance => true,
            Self::Policy | Self::Value => false,
        }
    }

    /// The regression target of a sample at walk step `depth` (the output
    /// of its own move for a Q network, the one output of a value network);
    /// `None` for a policy, which learns the move itself.
    #[must_use]
    pub fn target(self, depth: u16) -> Option<f32> {
        match self {
            Self::Policy => None,
            Self::QDistance => Some(f32::from(depth) - 1.0),
            Self::Value => Some(f32::from(depth)),
        }
    }

    /// The output that answers about move `m` (a value network's one
    /// output belongs to no move).
    #[must_use]
    pub fn column(self, m: usize) -> usize {
        match self {
            Self::Policy | Self::QDistance => m,
            Self::Value => 0,
        }
    }

    /// Whether one prediction row ranks its sample correctly, among the
    /// moves whose bit is set in `legal`: the policy's most likely move or
    /// the Q network's nearest child is the walk's move `label`; a value
    /// network is within 1/2 of the walk step.
    #[must_use]
    pub fn is_correct(self, row: &[f32], label: i64, depth: u16, legal: u32) -> bool {
        let pick = |better: fn(f32, f32) -> bool| {
            (0..row.len())
                .filter(|&m| legal >> m & 1 == 1)
                .reduce(|best, m| if better(row[m], row[best]) { m } else { best })
                .unwrap_or(0)
        };
        match self {
            Self::Policy => pick(|a, b| a > b) == label as usize,
            Self::QDistance => pick(|a, b| a < b) == label as usize,
            Self::Value => (row[0] - f32::from(depth)).abs() < 0.5,
        }
    }

    /// [`OracleKind::is_correct`] in words, for plot titles.
    #[must_use]
    pub fn accuracy_rule(self) -> &'static str {
        match self {
            Self::Policy => "argmax p = label",
            Self::QDistance => "argmin Q = label",
            Self::Value => "|V - k| < 1/2",
        }
    }

    /// The columns of `eval.csv`: per depth, the accuracy, then the
    /// cross-entropy of a policy, or the mean prediction and its RMSE
    /// against the walk target for the distance kinds.
    #[must_use]
    pub fn eval_columns(self) -> &'static [&'static str] {
        match self {
            Self::Policy => &["step", "depth", "states", "accuracy", "cross_entropy"],
            Self::QDistance | Self::Value => &["step", "depth", "states", "accuracy", "mean_prediction", "rmse"],
        }
    }

    /// The held-out loss of a run, as the states-weighted mean over walk depths of one
    /// `eval.csv` column at the last evaluation: the policy's cross-entropy
    /// (nats), or the distance kinds' RMSE squared (`true`: square it first)
    /// into a mean squared error.
    #[must_use]
    pub fn held_out_loss(self) -> (&'static str, bool) {
        match self {
            Self::Policy => ("cross_entropy", false),
            Self::QDistance | Self::Value => ("rmse", true),
        }
    }

    /// Which states beam search asks the oracle about.
    #[must_use]
    pub fn queries(self) -> Queries {
        match self {
            Self::Policy | Self::QDistance => Queries::States,
            Self::Value => Queries::Children,
        }
    }

    /// The beam score of a child at search depth `depth` (higher is
    /// better): a policy adds the move's log-probability `x` to its
    /// parent's score (the path's probability product); the distance kinds
    /// rank by `−(g + x)`, where `x` is the child's estimated distance.
    #[must_use]
    pub fn child_score(self, parent: f64, depth: usize, x: f64) -> f64 {
        match self {
            Self::Policy => parent + x,
            Self::QDistance | Self::Value => -(depth as f64 + x),
        }
    }

    /// The move distribution a row of this kind stands for, if any.
    #[must_use]
    pub fn move_distribution(self) -> Option<MoveDistribution> {
        match self {
            Self::Policy => Some(MoveDistribution::Itself),
            Self::QDistance => Some(MoveDistribution::Boltzmann),
            Self::Value => None,
        }
    }

    /// The average of `terms` (the `k` answers about one output) under
    /// `mean`; [`OracleKind::ensemble_shift`] then renormalises the row.
    #[must_use]
    pub fn ensemble_mean(self, terms: &[f64], mean: Mean) -> f64 {
        let plain = || terms.iter().sum::<f64>() / terms.len() as f64;
        match (self, mean) {
            (Self::Policy, Mean::Arithmetic) => log_sum_exp(terms) - (terms.len() as f64).ln(),
            // The geometric mean of probabilities is the plain mean of
            // their logarithms; distances are plain means.
            (Self::Policy, Mean::Geometric) | (Self::QDistance | Self::Value, _) => plain(),
        }
    }

    /// What is subtracted from every averaged output of a row: the
    /// log-normaliser of a geometric mean of probabilities, else 0.
    #[must_use]
    pub fn ensemble_shift(self, averaged: &[f64], mean: Mean) -> f64 {
        match (self, mean) {
            (Self::Policy, Mean::Geometric) => log_sum_exp(averaged),
            (Self::Policy, Mean::Arithmetic) | (Self::QDistance | Self::Value, _) => 0.0,
        }
    }

    /// The distance to the goal a row estimates for its state, given which
    /// moves are applicable there: `1 + min Q` over them, `V` itself, and
    /// none for a policy.
    #[must_use]
    pub fn estimate_distance(self, row: &[f32], applicable: impl Fn(usize) -> bool) -> Option<f64> {
        match self {
            Self::Policy => None,
            Self::QDistance => {
                let best = (0..row.len()).filter(|&m| applicable(m)).map(|m| f64::from(row[m]));
                Some(1.0 + best.fold(f64::INFINITY, f64::min))
            }
            Self::Value => Some(f64::from(row[0])),
        }
    }
}

impl std::fmt::Display for OracleKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for OracleKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL.into_iter().find(|k| k.name() == s).ok_or_else(|| {
            let names: Vec<&str> = Self::ALL.iter().map(|k| k.name()).collect();
            format!("unknown oracle kind {s:?}; expected one of {}", names.join(", "))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_judges_and_scores_by_its_own_rule() {
        let row = [0.5f32, 2.0, 1.0];
        // Policy: most likely legal move; Q: nearest legal child.
        assert!(OracleKind::Policy.is_correct(&row, 1, 4, 0b111));
        assert!(OracleKind::QDistance.is_correct(&row, 0, 4, 0b111));
        assert!(OracleKind::QDistance.is_correct(&row, 2, 4, 0b110));
        assert!(OracleKind::Value.is_correct(&[3.6], 0, 4, 1) && !OracleKind::Value.is_correct(&[3.4], 0, 4, 1));
        let far = [0.5f32, 3.0, -1.0];
        assert!(!OracleKind::QDistance.is_correct(&far, 1, 4, 0b111));
        // Move 2 inapplicable: move 0 is the shortest of the others.
        assert!(OracleKind::QDistance.is_correct(&far, 0, 4, 0b011));
        assert_eq!(OracleKind::ALL.map(|k| k.target(5)), [None, Some(4.0), Some(5.0)]);
        assert_eq!(OracleKind::Policy.child_score(-1.0, 3, -0.5), -1.5);
        assert_eq!(OracleKind::QDistance.child_score(-1.0, 3, 2.0), -5.0);
        assert_eq!(OracleKind::QDistance.estimate_distance(&row, |m| m != 0), Some(2.0));
        assert_eq!(OracleKind::Value.estimate_distance(&[7.0], |_| true), Some(7.0));
        assert_eq!(OracleKind::Policy.estimate_distance(&row, |_| true), None);
    }

    #[test]
    fn ensembles_average_probabilities_or_distances() {
        let (p, q) = ((0.2f64).ln(), (0.6f64).ln());
        let arith = OracleKind::Policy.ensemble_mean(&[p, q], Mean::Arithmetic);
        assert!((arith.exp() - 0.4).abs() < 1e-12);
        assert!((OracleKind::QDistance.ensemble_mean(&[3.0, 5.0], Mean::Arithmetic) - 4.0).abs() < 1e-12);
        let geo = OracleKind::Policy.ensemble_mean(&[p, q], Mean::Geometric);
        assert!((geo - (p + q) / 2.0).abs() < 1e-12);
        assert_eq!(OracleKind::Value.ensemble_shift(&[1.0, 2.0], Mean::Geometric), 0.0);
    }
}
