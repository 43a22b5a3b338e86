//! The [`Oracle`] interface: what a learned network tells search, in
//! batches, and the three kinds of answer ([`OracleKind`]).
//!
//! Every kind is trained from reverse random walks: a state reached after
//! `k` moves of a walk from the goal, by move `m`. A **policy** predicts
//! the distribution of `m` (the move that *produced* the state; search
//! applies its inverse). A **Q-distance** oracle predicts, for every move
//! `m`, the distance to the goal of the child reached by undoing `m`
//! (`s·m⁻¹`), regressed on `k − 1` for the walk's own move. A **value**
//! oracle predicts the state's own distance, regressed on `k`.
//! Implementations receive encoded states (the puzzle's own encoding,
//! `rows × encoded_len` floats) and write `rows × outputs` floats, where
//! `outputs` is the move count for a policy or a Q oracle and 1 for a value
//! oracle. Columns are indexed by the *producing* move for both per-move
//! kinds, so search treats them alike.

use serde::{Deserialize, Serialize};

/// What an oracle's outputs mean (config key `model.kind`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OracleKind {
    /// `ln p(m | s)`: log-probability that move `m` produced `s`.
    #[default]
    Policy,
    /// `Q(s, m)`: estimated distance to the goal of `s·m⁻¹`.
    QDistance,
    /// `V(s)`: estimated distance of `s` to the goal (one output).
    Value,
}

impl OracleKind {
    /// Every kind, in the order the docs list them.
    pub const ALL: [OracleKind; 3] = [OracleKind::Policy, OracleKind::QDistance, OracleKind::Value];

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

    /// Whether the outputs are distances learned by regression.
    #[must_use]
    pub fn is_regression(self) -> bool {
        self != Self::Policy
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

/// A batched oracle over a puzzle's moves.
pub trait Oracle {
    /// Number of moves of the puzzle it was trained on.
    fn num_moves(&self) -> usize;

    /// What the outputs mean; a policy unless said otherwise.
    fn kind(&self) -> OracleKind {
        OracleKind::Policy
    }

    /// Writes the predictions for each of the `rows` encoded states in
    /// `inputs` into `out` (`rows × kind().outputs(num_moves())`,
    /// row-major): log-probabilities, Q-distances or values.
    ///
    /// # Errors
    /// When the implementation cannot evaluate the batch (say, a device
    /// error); the search stops with [`super::SearchError::Oracle`].
    fn predict(&mut self, inputs: &[f32], rows: usize, out: &mut [f32]) -> Result<(), super::OracleError>;
}
