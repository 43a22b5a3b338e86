//! [`LearnError`]: why training, exporting or loading a trained oracle
//! failed. A rule the request breaks names the value (a path, a config
//! section, a step) and the rule; the errors of the layers below (config,
//! scrambles, files, tables, plots, folders) pass through with their own
//! types, so the binaries print the whole chain of causes.

use crate::csvlog::TableError;
use crate::folder::FolderError;
use crate::learn::config::ConfigError;
use crate::plot::PlotError;
use crate::rundir::{FileError, RunDirError};
use crate::scramble::ScrambleError;
use std::path::PathBuf;
use thiserror::Error;

/// Why training, exporting or loading an oracle failed.
#[derive(Debug, Error)]
pub enum LearnError {
    /// A path given as a run directory that is not one.
    #[error("{} is not a run directory: {rule}", dir.display())]
    NotARun {
        /// The path given.
        dir: PathBuf,
        /// Why not.
        rule: &'static str,
    },
    /// A fine-tune's source run that cannot be started from.
    #[error("finetune.from {}: {source}", from.display())]
    FinetuneFrom {
        /// The source run directory.
        from: PathBuf,
        /// Why it cannot be used.
        source: Box<LearnError>,
    },
    /// An export target that already exists.
    #[error("{} already exists; give a new directory to export into", path.display())]
    ExportExists {
        /// The target.
        path: PathBuf,
    },
    /// An export into the run it copies.
    #[error("cannot export {} into {}: the destination is inside the run it copies", run.display(), path.display())]
    ExportInside {
        /// The target.
        path: PathBuf,
        /// The run.
        run: PathBuf,
    },
    /// A run with no checkpoint to load.
    #[error("no checkpoint (step-*.ckpt) found in {}", dir.display())]
    NoCheckpoint {
        /// The checkpoint folder.
        dir: PathBuf,
    },
    /// A checkpoint file that cannot be used.
    #[error("checkpoint {} is unusable: {reason}", path.display())]
    Checkpoint {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: CheckpointError,
    },
    /// A resume whose newest checkpoint cannot be used.
    #[error("cannot resume from checkpoint {}: it is unusable ({reason}); {hint}", path.display())]
    DamagedCheckpoint {
        /// The newest checkpoint.
        path: PathBuf,
        /// What is wrong with it.
        reason: CheckpointError,
        /// What to do: the older checkpoint that is intact, if any.
        hint: String,
    },
    /// Resuming training from a checkpoint that holds the weights only.
    #[error(
        "cannot resume from {}: it holds the weights only (an exported checkpoint); it can be solved \
         with, but training needs a checkpoint with the optimiser state",
        path.display()
    )]
    WeightsOnly {
        /// The checkpoint.
        path: PathBuf,
    },
    /// Model or optimiser weights that do not fit, or cannot be
    /// (de)serialised.
    #[error("{what}: {message}")]
    Record {
        /// What was being done, with the file when there is one.
        what: String,
        /// burn's message, put in words where it can be.
        message: String,
    },
    /// A float type the backend lacks.
    #[error("`backend.precision` = {precision:?}: the {device} backend does not support this float type; use \"f32\"")]
    Precision {
        /// The precision asked for.
        precision: &'static str,
        /// The backend.
        device: &'static str,
    },
    /// bf16 products asked of an oracle on a device other than the CPU.
    #[error(
        "{matmul} products (`--matmul {matmul}`) are the CPU's; the network runs on the {device}, whose float \
         type is set by `backend.precision` instead: use --matmul f32 there"
    )]
    MatmulDevice {
        /// The products asked for.
        matmul: &'static str,
        /// The device the network runs on.
        device: &'static str,
    },
    /// The GPU asked of a build without it.
    #[error(
        "the GPU (`backend.device = \"gpu\"`, or the GPU device for solving) needs a binary built with \
         `--features gpu`; this build has the CPU backend only"
    )]
    NoGpu,
    /// A training loss that stopped being a number.
    #[error("the loss became {loss} at step {step}; lower optim.lr or enable optim.grad_clip")]
    Diverged {
        /// The loss.
        loss: f64,
        /// The step.
        step: u64,
    },
    /// Resuming a run with a config whose fixed parts changed.
    #[error("cannot resume {}: {what}; {rule}", dir.display())]
    ConfigChanged {
        /// The run.
        dir: PathBuf,
        /// The first key that differs and its two values, in words.
        what: String,
        /// What may change between legs.
        rule: &'static str,
    },
    /// Resuming a run with a length shorter than the steps it has done.
    #[error(
        "cannot resume {}: it has done {done} steps, but the given config's train.steps/train.samples make \
         the run {total} steps long; give a length of at least {done} steps",
        dir.display()
    )]
    ShorterThanDone {
        /// The run.
        dir: PathBuf,
        /// Steps in its newest checkpoint.
        done: u64,
        /// The given config's run length.
        total: u64,
    },
    /// An environment variable with a value the tool does not know.
    #[error("{0}")]
    Environment(String),
    /// A network and batch that cannot fit in this machine's memory.
    #[error(
        "{detail} needs about {need_gib:.1} GiB of memory to train, more than this machine's {have_gib:.1} GiB; \
         shrink {shrink}"
    )]
    Memory {
        /// The config's network and batch, in words.
        detail: String,
        /// The keys that would shrink the largest part.
        shrink: &'static str,
        /// The estimate.
        need_gib: f64,
        /// The machine's memory.
        have_gib: f64,
    },
    /// A checkpoint trained as another network than the run's config says.
    #[error(
        "checkpoint {} was trained with {key} = {checkpoint}, but the run's config has {key} = {config}; \
         refusing to load another network's weights",
        path.display()
    )]
    ForeignCheckpoint {
        /// The checkpoint.
        path: PathBuf,
        /// The first key that differs, e.g. `model.kind`.
        key: String,
        /// Its value in the checkpoint.
        checkpoint: String,
        /// Its value in the config.
        config: String,
    },
    /// A resumed run whose `meta.json` would lose the earlier legs.
    #[error(
        "cannot resume: {} {rule}, so the earlier legs' history would be lost; restore it, or resume \
         with --fresh-logs to start it afresh (the old file is kept beside it)",
        path.display()
    )]
    History {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        rule: String,
    },
    /// A log of a resumed run that cannot be continued.
    #[error("cannot resume the log {file} (start unreadable logs afresh with --fresh-logs; the old files are kept)")]
    Log {
        /// The log's file name.
        file: String,
        /// Why.
        #[source]
        source: TableError,
    },
    /// The network's output could not be read back.
    #[error("reading the network's predictions: {0}")]
    Predictions(String),
    /// The config cannot be used.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// Training or evaluation data cannot be drawn.
    #[error(transparent)]
    Scramble(#[from] ScrambleError),
    /// A log or table could not be written or read.
    #[error(transparent)]
    Table(#[from] TableError),
    /// A plot could not be saved.
    #[error(transparent)]
    Plot(#[from] PlotError),
    /// A file-system operation failed.
    #[error(transparent)]
    File(#[from] FileError),
    /// The run's folder lock could not be taken.
    #[error(transparent)]
    Folder(#[from] FolderError),
    /// The run directory could not be prepared.
    #[error(transparent)]
    RunDir(#[from] RunDirError),
}

impl LearnError {
    /// [`LearnError::Record`] from what was being done and burn's message.
    pub(crate) fn record(what: impl Into<String>, message: impl ToString) -> Self {
        Self::Record { what: what.into(), message: message.to_string() }
    }
}

impl From<crate::kernels::KernelError> for LearnError {
    /// A kernel the CPU lacks is an environment problem; weights that do
    /// not fit the network are read as its predictions' failure.
    fn from(e: crate::kernels::KernelError) -> Self {
        match e {
            crate::kernels::KernelError::Unsupported(m) => LearnError::Environment(m),
            crate::kernels::KernelError::Weights(m) => LearnError::Predictions(m),
        }
    }
}

/// What is wrong with the bytes of a checkpoint.
#[derive(Debug, Error)]
pub enum CheckpointError {
    /// Not the format's magic bytes.
    #[error("not a cube-oracle checkpoint (bad magic bytes)")]
    BadMagic,
    /// The checksum does not match the contents.
    #[error("checksum mismatch: the file is corrupt or truncated")]
    Checksum,
    /// A format version this build cannot read.
    #[error("checkpoint format version {found} is not supported (expected {expected})")]
    Version {
        /// The version in the file.
        found: u32,
        /// The version this build writes and reads.
        expected: u32,
    },
    /// The file ends before or inside a section.
    #[error("truncated {where_} the {section} section")]
    Truncated {
        /// `before` or `inside`.
        where_: &'static str,
        /// The section.
        section: &'static str,
    },
    /// The loop state is not valid JSON.
    #[error("the loop state is not valid JSON ({0})")]
    State(serde_json::Error),
    /// The snapshot is not a whole number of `f32`s.
    #[error("the snapshot section is not a whole number of f32 values")]
    Snapshot,
}
