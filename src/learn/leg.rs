//! The records of one training leg: what `train` was asked to do
//! ([`TrainOptions`]), what it did ([`Outcome`]), and the numbers of one
//! held-out evaluation ([`Evaluation`]). Shared by the loop and the
//! reports, which therefore do not import each other.

use crate::rundir::Existing;
use crate::search::OracleKind;
use std::path::PathBuf;

/// How `train` was asked to run.
#[derive(Clone, Debug)]
pub struct TrainOptions {
    /// What to do with an existing run directory.
    pub existing: Existing,
    /// The command line, recorded in `meta.json`.
    pub command_line: String,
    /// Show a progress bar (when stderr is a terminal).
    pub progress: bool,
    /// Stop after this many steps in this invocation (for tests and legs of
    /// a long run); the run stays resumable.
    pub max_steps_this_leg: Option<u64>,
    /// On resume, start logs that cannot be continued afresh (keeping the
    /// old files beside them) instead of stopping with an error.
    pub fresh_logs: bool,
    /// On resume, accept a run that started on another device
    /// (`backend.device`): this leg and the later ones train on the given
    /// config's device, which the run's saved config then names;
    /// `meta.json` records the device of every leg.
    pub switch_device: bool,
}

impl TrainOptions {
    /// Options for a run that handles an existing directory as `existing`
    /// says, without a progress bar, logs or leg limit of its own (what
    /// library callers and tests want).
    #[must_use]
    pub fn new(existing: Existing) -> Self {
        Self {
            existing,
            command_line: String::new(),
            progress: false,
            max_steps_this_leg: None,
            fresh_logs: false,
            switch_device: false,
        }
    }
}

/// What a finished (or interrupted) `train` invocation did.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The run directory.
    pub run_dir: PathBuf,
    /// Steps completed in total.
    pub step: u64,
    /// Total steps the config asks for.
    pub total_steps: u64,
    /// Whether the run stopped early (Ctrl-C or `max_steps_this_leg`).
    pub stopped_early: bool,
    /// Whether Ctrl-C stopped it (with or without `max_steps_this_leg`).
    pub interrupted: bool,
    /// Mean training samples per second in this invocation.
    pub samples_per_s: f64,
}

/// Held-out evaluation: the network's predictions for every sample.
pub struct Evaluation {
    /// What the predictions are.
    pub kind: OracleKind,
    /// Outputs per sample.
    pub outputs: usize,
    /// `rows × outputs`: log-probabilities of a policy, distances otherwise.
    pub predictions: Vec<f32>,
    /// `rows × moves` probabilities of a policy; empty for the other kinds.
    pub probs: Vec<f32>,
}
