//! Typed training configuration, read from TOML and validated.
//!
//! Every section rejects unknown keys (`deny_unknown_fields`), so a typo is
//! an error rather than a silently ignored setting. Scientific knobs (model
//! shape, data, optimiser, schedule, run length) have no defaults and must
//! be written in the file; only plumbing knobs (log/checkpoint cadence,
//! threads, evaluation-set size, output folder) have defaults, and so do
//! `data.walk`, `data.depths` and `data.labels`, whose defaults are the
//! data of every run made before they existed. After
//! parsing, [`TrainConfig::validate`] checks ranges and cross-field rules;
//! each [`ConfigError`] names the key and the offending value.

use crate::cube3::Metric;
use crate::learn::data::{Depths, Labels};
use crate::registry::{AnyPuzzle, PuzzleKind};
use crate::scramble::{WalkKind, WalkLength};
use crate::search::OracleKind;
use crate::sliding::Goal;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// A configuration that could not be loaded or is invalid.
#[derive(Debug, Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read config file {path}")]
    Read {
        /// The path given.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The TOML is malformed, has an unknown key, a wrong type or a missing key.
    #[error("invalid config {path}: {message}")]
    Parse {
        /// The path given.
        path: PathBuf,
        /// The parser's message (names the key and position).
        message: String,
    },
    /// A value is out of range or inconsistent with another.
    #[error("`{key}` ({value}) {rule}")]
    Invalid {
        /// Dotted key, e.g. `data.scramble_len`.
        key: &'static str,
        /// The offending value as written.
        value: String,
        /// The rule it breaks, e.g. "must be >= 1".
        rule: String,
    },
}

fn invalid(key: &'static str, value: impl ToString, rule: impl Into<String>) -> ConfigError {
    let value = value.to_string();
    // A 300-digit number is echoed by its start only.
    let value =
        if value.chars().count() > 40 { format!("{}…", value.chars().take(40).collect::<String>()) } else { value };
    ConfigError::Invalid { key, value, rule: rule.into() }
}

/// The whole training configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainConfig {
    /// Run identity and output location.
    pub run: RunSection,
    /// Which puzzle to learn.
    pub puzzle: PuzzleSection,
    /// Training data generation.
    pub data: DataSection,
    /// Network shape.
    pub model: ModelSection,
    /// Optimiser and learning-rate schedule.
    pub optim: OptimSection,
    /// Run length and cadences.
    pub train: TrainSection,
    /// Compute backend.
    pub backend: BackendSection,
    /// Start from another run's weights instead of random ones (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finetune: Option<FinetuneSection>,
}

/// `[finetune]`: a run that starts from the newest checkpoint of another
/// run of the same puzzle and network (a fresh optimiser, this config's
/// schedule, data stream and length).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FinetuneSection {
    /// The run directory whose newest checkpoint gives the starting weights
    /// (relative to the working directory, like `run.out_dir`).
    pub from: PathBuf,
    /// What the outputs are regressed on: `walk` (the walk distances, as in
    /// ordinary training) or `bellman` (Q-distance only: each target also
    /// bounded by one step of the starting network's own estimates).
    pub targets: FinetuneTargets,
}

/// The targets of a fine-tune (`finetune.targets`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FinetuneTargets {
    /// The walk distances, as in ordinary training.
    Walk,
    /// `min(walk distance, 1 + min over m' of Q₀(child, m'))`, with `Q₀`
    /// the starting network, frozen, and 0 for a child that is the goal
    /// (see `learn::finetune`).
    Bellman,
}

impl FinetuneTargets {
    /// The name used in configs and `meta.json`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Walk => "walk",
            Self::Bellman => "bellman",
        }
    }
}

/// `[run]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunSection {
    /// Run name: the output folder is `<out_dir>/<name>`.
    pub name: String,
    /// Seed for initialisation, training data and the held-out set.
    pub seed: u64,
    /// Parent folder of run directories (default `runs`).
    #[serde(default = "default_out_dir")]
    pub out_dir: PathBuf,
}

fn default_out_dir() -> PathBuf {
    PathBuf::from("runs")
}

/// Metric names in configs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MetricName {
    /// Quarter-turn metric, 12 moves (6 on the 2×2×2).
    Qtm,
    /// Half-turn metric, 18 moves (9 on the 2×2×2).
    Htm,
}

impl From<MetricName> for Metric {
    fn from(m: MetricName) -> Metric {
        match m {
            MetricName::Qtm => Metric::Qtm,
            MetricName::Htm => Metric::Htm,
        }
    }
}

/// `[puzzle]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PuzzleSection {
    /// Puzzle name from the registry: `cube3`, `cube2`, or `puzzleN` (`puzzle8`, …).
    pub kind: PuzzleKind,
    /// Move metric of the cube (`qtm` or `htm`); required for `cube3` and
    /// `cube2`, not allowed for sliding puzzles.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metric: Option<MetricName>,
    /// Goal of a sliding puzzle (`blank-last`, the default, `blank-first`,
    /// `snail`, or its tiles); not allowed for the cubes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goal: Option<String>,
}

/// A scramble length: an integer, or `{ min = a, max = b }`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum LengthSpec {
    /// Every walk has this length.
    Fixed(u64),
    /// Uniform over `min..=max`.
    Range {
        /// Shortest walk.
        min: u64,
        /// Longest walk.
        max: u64,
    },
}

impl LengthSpec {
    /// The longest walk.
    #[must_use]
    pub fn max(self) -> usize {
        match self {
            LengthSpec::Fixed(n) => n as usize,
            LengthSpec::Range { max, .. } => max as usize,
        }
    }

    /// As the scramble generator's type.
    #[must_use]
    pub fn walk_length(self) -> WalkLength {
        match self {
            LengthSpec::Fixed(n) => WalkLength::Fixed(n as usize),
            LengthSpec::Range { min, max } => WalkLength::Range { min: min as usize, max: max as usize },
        }
    }
}

/// Read by hand, so that a value of the wrong shape is refused with the
/// rule (`an integer ≥ 1, or { min = a, max = b }`), not serde's words for
/// an untagged enum.
impl<'de> Deserialize<'de> for LengthSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{Error, MapAccess, Unexpected, Visitor};
        struct Spec;
        fn length<E: Error>(v: i64, what: &dyn serde::de::Expected) -> Result<u64, E> {
            u64::try_from(v).map_err(|_| E::invalid_value(Unexpected::Signed(v), what))
        }
        impl<'de> Visitor<'de> for Spec {
            type Value = LengthSpec;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a walk length: an integer ≥ 1, or { min = a, max = b }")
            }
            fn visit_i64<E: Error>(self, v: i64) -> Result<LengthSpec, E> {
                length(v, &self).map(LengthSpec::Fixed)
            }
            fn visit_u64<E: Error>(self, v: u64) -> Result<LengthSpec, E> {
                Ok(LengthSpec::Fixed(v))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<LengthSpec, A::Error> {
                let (mut min, mut max) = (None, None);
                while let Some(key) = map.next_key::<String>()? {
                    let slot = match key.as_str() {
                        "min" => &mut min,
                        "max" => &mut max,
                        other => return Err(A::Error::unknown_field(other, &["min", "max"])),
                    };
                    *slot = Some(length(map.next_value::<i64>()?, &self)?);
                }
                match (min, max) {
                    (Some(min), Some(max)) => Ok(LengthSpec::Range { min, max }),
                    (None, _) => Err(A::Error::missing_field("min")),
                    (_, None) => Err(A::Error::missing_field("max")),
                }
            }
        }
        d.deserialize_any(Spec)
    }
}

impl std::fmt::Display for LengthSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LengthSpec::Fixed(n) => write!(f, "{n}"),
            LengthSpec::Range { min, max } => write!(f, "{{ min = {min}, max = {max} }}"),
        }
    }
}

/// `[data]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DataSection {
    /// Walk length: fixed (`26`) or a range (`{ min = 1, max = 26 }`).
    pub scramble_len: LengthSpec,
    /// Samples (walk prefixes) per training step: the batch size.
    pub states_per_step: usize,
    /// Whether redundant move sequences are pruned from the walks.
    pub prune: bool,
    /// How each move of a walk is drawn: `random` (the default, the walks
    /// of every earlier run) or `non-backtracking` (never revisits a state
    /// of its own walk).
    #[serde(default)]
    pub walk: WalkKind,
    /// Which samples each walk gives: `all-prefixes` (the default: every
    /// prefix) or `uniform` (one sample per walk at a uniform depth).
    #[serde(default)]
    pub depths: Depths,
    /// What the distance targets are: `walk` (the default: the walk's
    /// step) or `trajectory-min` (lowered by identical states of a pool of
    /// batches and along each walk; `crate::learn::data::pool_labels`).
    #[serde(default)]
    pub labels: Labels,
    /// Batches per pool of `trajectory-min` labels (default
    /// [`DEFAULT_LABEL_POOL`]; only with `trajectory-min`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_pool: Option<usize>,
}

/// The largest `model.rank_weight`.
pub const MAX_RANK_WEIGHT: f64 = 100.0;

/// Batches per pool of trajectory-minimum labels when `data.label_pool` is
/// not given: 64 batches, 133,120 states at the cube's 2,080 per batch.
pub const DEFAULT_LABEL_POOL: usize = 64;

/// The largest `data.label_pool` accepted.
pub const MAX_LABEL_POOL: usize = 4096;

impl DataSection {
    /// Batches per pool of trajectory-minimum labels.
    #[must_use]
    pub fn label_pool(&self) -> usize {
        self.label_pool.unwrap_or(DEFAULT_LABEL_POOL)
    }
}

/// Input encodings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Encoding {
    /// One-hot: 54 stickers × 6 colours (324 inputs) for the cube, n² cells
    /// × n² tiles (81 for the 8-puzzle) for a sliding puzzle.
    OneHot,
}

/// Training losses (config key `model.loss`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Loss {
    /// Cross-entropy of the softmax over moves against the walk's move.
    CrossEntropy,
    /// Mean squared error against the walk depth.
    Mse,
    /// Huber loss (δ = 1) against the walk depth.
    Huber,
}

impl Loss {
    /// The name used in configs and tables.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::CrossEntropy => "cross-entropy",
            Self::Mse => "mse",
            Self::Huber => "huber",
        }
    }
}

impl ModelSection {
    /// The loss in effect: the one given, else the kind's default.
    #[must_use]
    pub fn loss(&self) -> Loss {
        self.loss.unwrap_or(if self.kind.is_regression() { Loss::Mse } else { Loss::CrossEntropy })
    }

    /// Whether a Q-distance network also learns from the walk's next move.
    #[must_use]
    pub fn forward_targets(&self) -> bool {
        self.kind.has_forward_targets() && self.forward_targets.unwrap_or(true)
    }

    /// The ranking term's weight in effect (0 when not given).
    #[must_use]
    pub fn rank_weight(&self) -> f64 {
        self.rank_weight.unwrap_or(0.0)
    }
}

/// Normalisation after each hidden layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Norm {
    /// Batch normalisation (Linear → ReLU → BatchNorm, as EfficientCube).
    Batch,
    /// None (Linear → ReLU).
    None,
}

/// `[model]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelSection {
    /// What the network predicts: `policy` (the default), `q-distance` or
    /// `value` ([`OracleKind`]); it fixes the head's width, the targets, the
    /// loss and the search `solve` runs with it.
    #[serde(default)]
    pub kind: OracleKind,
    /// The training loss: `cross-entropy` for a policy (the only choice),
    /// `mse` (the default) or `huber` (δ = 1) for the distance kinds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss: Option<Loss>,
    /// Q-distance only: also regress the output of the walk's next move on
    /// `k + 1` (default true; see `learn::objective`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forward_targets: Option<bool>,
    /// Q-distance only: the weight of a ranking term beside the regression
    /// (default 0, none): the cross-entropy of `softmax(−Q)` on the move
    /// that undoes the walk's step, so the undoing child ranks first among
    /// its siblings (see `learn::objective`). Finite, in [0, 100].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank_weight: Option<f64>,
    /// Input encoding (`one-hot`).
    pub encoding: Encoding,
    /// Widths of the plain hidden layers, in order (at least one).
    pub hidden: Vec<usize>,
    /// Residual blocks of width `hidden.last()`, each two layers.
    pub residual_blocks: usize,
    /// Normalisation (`batch` or `none`).
    pub norm: Norm,
}

/// Optimisers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OptimizerKind {
    /// Adam (L2 weight decay added to the gradient).
    Adam,
    /// AdamW (decoupled weight decay).
    Adamw,
}

/// Learning-rate schedules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Schedule {
    /// `lr` throughout.
    Constant,
    /// Linear warm-up from 0 over `warmup_steps`, then cosine decay to `min_lr`.
    WarmupCosine,
    /// Linear warm-up from 0 over `warmup_steps`, then `lr`, multiplied by
    /// `step_factor` at each fraction `step_at` of the run's steps (never
    /// below `min_lr`, when given).
    WarmupStep,
}

/// `[optim]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OptimSection {
    /// Optimiser (`adam` or `adamw`).
    pub optimizer: OptimizerKind,
    /// Peak learning rate.
    pub lr: f64,
    /// Schedule (`constant`, `warmup-cosine` or `warmup-step`).
    pub schedule: Schedule,
    /// Warm-up steps (required by `warmup-cosine` and `warmup-step`,
    /// refused by `constant`).
    #[serde(default)]
    pub warmup_steps: Option<u64>,
    /// Final learning rate of `warmup-cosine` (required by it); the floor
    /// of `warmup-step` (optional there).
    #[serde(default)]
    pub min_lr: Option<f64>,
    /// `warmup-step`: the fractions of the run's steps at which the rate
    /// drops, increasing, each in (0, 1) (required by it, refused
    /// otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_at: Option<Vec<f64>>,
    /// `warmup-step`: the factor of each drop, in (0, 1) (required by it,
    /// refused otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_factor: Option<f64>,
    /// Weight decay (0 for none).
    pub weight_decay: f64,
    /// Gradient-norm clip (0 for none).
    pub grad_clip: f64,
}

/// `[train]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainSection {
    /// Total optimisation steps (give exactly one of `steps` and `samples`).
    #[serde(default)]
    pub steps: Option<u64>,
    /// Total training samples; rounded up to whole steps.
    #[serde(default)]
    pub samples: Option<u64>,
    /// Evaluate on the held-out set every this many steps.
    pub eval_every: u64,
    /// Write a checkpoint every this many steps.
    pub checkpoint_every: u64,
    /// Append to `metrics.csv` every this many steps (default 10).
    #[serde(default = "default_log_every")]
    pub log_every: u64,
    /// Walks in the held-out evaluation set (default 200; each contributes
    /// one state per depth).
    #[serde(default = "default_eval_walks")]
    pub eval_walks: usize,
    /// Seed of the held-out walks (default: `run.seed`). Runs of different
    /// seeds with the same `eval_seed` are scored on the same held-out
    /// states; a study sets it to its base's seed for every point.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eval_seed: Option<u64>,
    /// Compute threads (default: all cores).
    #[serde(default)]
    pub threads: Option<usize>,
    /// Background data-generation threads (default 1).
    #[serde(default = "default_data_workers")]
    pub data_workers: usize,
}

fn default_log_every() -> u64 {
    10
}
fn default_eval_walks() -> usize {
    200
}
fn default_data_workers() -> usize {
    1
}

/// Compute devices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum DeviceKind {
    /// burn's `flex` CPU backend (default build).
    Cpu,
    /// NVIDIA GPU (needs a build with `--features gpu`).
    Gpu,
}

impl DeviceKind {
    /// The name used in configs, flags and logs.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Cpu => "cpu",
            Self::Gpu => "gpu",
        }
    }
}

/// `[backend]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BackendSection {
    /// `cpu` or `gpu`.
    pub device: DeviceKind,
    /// Float type of the network's tensors: `f32` (the default), or, on the
    /// GPU only, `flex32` (f32 storage, relaxed-precision arithmetic), `f16`
    /// or `bf16`.
    #[serde(default)]
    pub precision: Precision,
    /// The hidden layers' matrix products in training steps: `f32` (the
    /// default), or `bf16` (operands rounded to bf16; on the CPU sums in
    /// f32, on AMX or AVX512-BF16 where the CPU has either; on the GPU
    /// burn's bf16 tensors, the result rounded to bf16; `learn::mixed`).
    #[serde(default)]
    pub matmul: Matmul,
    /// The operations of a training step on the CPU: `fused` (the default:
    /// the project's kernels, bias → ReLU → batch norm in one pass each
    /// way; `learn::fused`) or `burn` (burn's own composed operations, for
    /// checking). The GPU always runs burn's (and refuses `fused`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ops: Option<Ops>,
}

impl BackendSection {
    /// The CPU training step's operations in effect (`fused` unless set).
    #[must_use]
    pub fn ops(&self) -> Ops {
        self.ops.unwrap_or_default()
    }
}

/// The operations of a CPU training step (`backend.ops`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Ops {
    /// The project's fused kernels where they apply.
    #[default]
    Fused,
    /// burn's own operations throughout.
    Burn,
}

impl Ops {
    /// The name used in configs and `meta.json`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Fused => "fused",
            Self::Burn => "burn",
        }
    }
}

/// Arithmetic of the hidden layers' matrix products on the CPU: in
/// training steps (`backend.matmul`: f32 or bf16) and in a search's
/// forwards (`solve --matmul`: any of the three).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum Matmul {
    /// f32 operands and sums.
    #[default]
    F32,
    /// bf16 operands, f32 sums (mixed precision).
    Bf16,
    /// 8-bit weights and 7-bit activations, exact integer sums (inference
    /// only).
    Int8,
}

impl Matmul {
    /// The name used in configs and logs.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::F32 => "f32",
            Self::Bf16 => "bf16",
            Self::Int8 => "int8",
        }
    }
}

/// Float types the network can be trained and evaluated in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    /// IEEE single precision everywhere.
    #[default]
    F32,
    /// f32 storage; kernels may compute in half precision (GPU only).
    Flex32,
    /// IEEE half precision (GPU only).
    F16,
    /// bfloat16 (GPU only).
    Bf16,
}

impl Precision {
    /// The name used in configs and logs.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::F32 => "f32",
            Self::Flex32 => "flex32",
            Self::F16 => "f16",
            Self::Bf16 => "bf16",
        }
    }
}

/// The TOML parser's message on one line, place first: `line L, column C:
/// <what is wrong>` (the parser's own text spreads it over several lines,
/// with the key on a later one).
pub(crate) fn toml_message(text: &str, e: &toml::de::Error) -> String {
    let what = e.message().trim().replace('\n', " ");
    match e.span() {
        Some(span) => {
            let before = &text.as_bytes()[..span.start.min(text.len())];
            let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
            let column = 1 + before.iter().rev().take_while(|&&b| b != b'\n').count();
            let source = text.lines().nth(line - 1).unwrap_or("").trim();
            if source.is_empty() {
                format!("line {line}, column {column}: {what}")
            } else {
                let source: String = source.chars().take(60).collect();
                format!("line {line}, column {column} (`{source}`): {what}")
            }
        }
        None => what,
    }
}

/// The largest config file read.
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;

impl TrainConfig {
    /// Reads (at most [`MAX_CONFIG_BYTES`]), parses and validates a config file.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        use std::io::Read;
        let read = |source| ConfigError::Read { path: path.to_path_buf(), source };
        let mut text = String::new();
        // A FIFO or a device is refused before a byte is read.
        crate::bounded::open_regular(path)
            .map_err(read)?
            .take(MAX_CONFIG_BYTES + 1)
            .read_to_string(&mut text)
            .map_err(read)?;
        if text.len() as u64 > MAX_CONFIG_BYTES {
            let message = format!("the file is larger than {MAX_CONFIG_BYTES} bytes (a config is a few hundred)");
            return Err(ConfigError::Parse { path: path.to_path_buf(), message });
        }
        Self::parse(&text, path)
    }

    /// Parses and validates config text (`path` is used in messages only).
    pub fn parse(text: &str, path: &Path) -> Result<Self, ConfigError> {
        let cfg: TrainConfig = toml::from_str(text)
            .map_err(|e| ConfigError::Parse { path: path.to_path_buf(), message: toml_message(text, &e) })?;
        // A rule broken is reported with the file it is in.
        cfg.validate().map_err(|e| ConfigError::Parse { path: path.to_path_buf(), message: e.to_string() })?;
        Ok(cfg)
    }

    /// The resolved config as TOML (every default written out).
    pub fn to_toml(&self) -> String {
        toml::to_string_pretty(self).expect("a TrainConfig always serialises")
    }

    /// Checks ranges and cross-field rules.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.backend.device == DeviceKind::Cpu && self.backend.precision != Precision::F32 {
            return Err(invalid(
                "backend.precision",
                self.backend.precision.name(),
                "must be \"f32\" on the CPU (flex32, f16 and bf16 are for device = \"gpu\")",
            ));
        }
        if self.backend.device == DeviceKind::Gpu && self.backend.ops == Some(Ops::Fused) {
            return Err(invalid(
                "backend.ops",
                "fused",
                "is the CPU's; on device = \"gpu\" a training step runs burn's operations (\"burn\")",
            ));
        }
        if self.backend.matmul == Matmul::Int8 {
            return Err(invalid(
                "backend.matmul",
                "int8",
                "is for search only (solve --matmul int8); training products are \"f32\" or \"bf16\"",
            ));
        }
        if self.backend.matmul == Matmul::Bf16 && self.backend.precision != Precision::F32 {
            return Err(invalid(
                "backend.matmul",
                "bf16",
                "needs backend.precision = \"f32\" (f32 weights, bf16 products); a narrower precision \
                 narrows every operation already",
            ));
        }
        let kind = self.puzzle.kind;
        match (kind.has_metric(), self.puzzle.metric, kind.has_goal(), &self.puzzle.goal) {
            (true, None, ..) => {
                return Err(invalid(
                    "puzzle.metric",
                    "missing",
                    format!("is required for {kind} (\"qtm\" or \"htm\")"),
                ));
            }
            (false, Some(m), ..) => {
                let name = match m {
                    MetricName::Qtm => "qtm",
                    MetricName::Htm => "htm",
                };
                return Err(invalid("puzzle.metric", name, "applies to the cube only"));
            }
            (.., false, Some(g)) => {
                return Err(invalid(
                    "puzzle.goal",
                    format!("{g:?}"),
                    format!("applies to sliding puzzles, not {kind}"),
                ));
            }
            _ => {}
        }
        self.puzzle()?;
        let name = &self.run.name;
        if crate::folder::check_name("run.name", name).is_err() {
            return Err(invalid(
                "run.name",
                format!("{name:?}"),
                "must be a folder name of letters, digits, '-', '_', '+' and '.', not starting with '.'",
            ));
        }
        match self.data.scramble_len {
            LengthSpec::Fixed(0) => return Err(invalid("data.scramble_len", 0, "must be >= 1")),
            LengthSpec::Range { min, max } if min == 0 || min > max => {
                return Err(invalid("data.scramble_len", self.data.scramble_len, "must satisfy 1 <= min <= max"));
            }
            _ => {}
        }
        if self.data.scramble_len.max() > 1000 {
            return Err(invalid("data.scramble_len", self.data.scramble_len, "must be <= 1000"));
        }
        if self.data.states_per_step == 0 || self.data.states_per_step > 1 << 20 {
            return Err(invalid("data.states_per_step", self.data.states_per_step, "must be in 1..=1048576"));
        }
        if self.model.hidden.is_empty() {
            return Err(invalid("model.hidden", "[]", "must list at least one hidden width"));
        }
        if let Some(w) = self.model.hidden.iter().find(|&&w| w == 0 || w > 65536) {
            return Err(invalid("model.hidden", w, "every width must be in 1..=65536"));
        }
        if self.model.residual_blocks > 64 {
            return Err(invalid("model.residual_blocks", self.model.residual_blocks, "must be <= 64"));
        }
        match (self.model.kind, self.model.loss) {
            (k, Some(l @ (Loss::Mse | Loss::Huber))) if !k.is_regression() => {
                return Err(invalid(
                    "model.loss",
                    l.name(),
                    "is a regression loss, for kind = \"q-distance\" or \"value\"; kind = \"policy\" trains with \"cross-entropy\"",
                ));
            }
            (k, Some(Loss::CrossEntropy)) if k.is_regression() => {
                return Err(invalid(
                    "model.loss",
                    "cross-entropy",
                    format!("is the policy's loss; kind = \"{k}\" regresses distances with \"mse\" or \"huber\""),
                ));
            }
            _ => {}
        }
        if let Some(f) = self.model.forward_targets
            && !self.model.kind.has_forward_targets()
        {
            return Err(invalid(
                "model.forward_targets",
                f,
                format!("applies to kind = \"q-distance\"; this config's kind is \"{}\"", self.model.kind),
            ));
        }
        if self.model.forward_targets == Some(true) && matches!(self.data.depths, Depths::Uniform) {
            return Err(invalid(
                "model.forward_targets",
                true,
                "needs data.depths = \"all-prefixes\" (the next move is that of the walk's next sample); \
                 with \"uniform\" depths there is none",
            ));
        }
        if let Some(w) = self.model.rank_weight {
            if !(w.is_finite() && (0.0..=MAX_RANK_WEIGHT).contains(&w)) {
                return Err(invalid("model.rank_weight", w, format!("must be finite and in [0, {MAX_RANK_WEIGHT}]")));
            }
            if self.model.kind != OracleKind::QDistance {
                return Err(invalid(
                    "model.rank_weight",
                    w,
                    format!("applies to kind = \"q-distance\"; this config's kind is \"{}\"", self.model.kind),
                ));
            }
        }
        match (self.data.labels, self.data.label_pool) {
            (Labels::Walk, Some(p)) => {
                return Err(invalid(
                    "data.label_pool",
                    p,
                    "applies to data.labels = \"trajectory-min\"; with \"walk\" labels there is no pool",
                ));
            }
            (Labels::TrajectoryMin, Some(p)) if !(1..=MAX_LABEL_POOL).contains(&p) => {
                return Err(invalid("data.label_pool", p, format!("must be in 1..={MAX_LABEL_POOL} batches")));
            }
            _ => {}
        }
        if self.data.labels == Labels::TrajectoryMin {
            if self.data.depths != Depths::AllPrefixes {
                return Err(invalid(
                    "data.labels",
                    "trajectory-min",
                    "needs data.depths = \"all-prefixes\" (labels are propagated along each walk's samples)",
                ));
            }
            if self.model.kind != OracleKind::QDistance {
                return Err(invalid(
                    "data.labels",
                    "trajectory-min",
                    format!("applies to kind = \"q-distance\"; this config's kind is \"{}\"", self.model.kind),
                ));
            }
        }
        let o = &self.optim;
        if !(o.lr.is_finite() && o.lr > 0.0 && o.lr <= 10.0) {
            return Err(invalid("optim.lr", o.lr, "must be in (0, 10]"));
        }
        if !(o.weight_decay.is_finite() && o.weight_decay >= 0.0) {
            return Err(invalid("optim.weight_decay", o.weight_decay, "must be >= 0"));
        }
        if !(o.grad_clip.is_finite() && o.grad_clip >= 0.0) {
            return Err(invalid("optim.grad_clip", o.grad_clip, "must be >= 0 (0 disables clipping)"));
        }
        let only = |key: &'static str, v: &dyn std::fmt::Display, which: &str| {
            invalid(key, v.to_string(), format!("is only used by schedule = {which}"))
        };
        if o.schedule != Schedule::WarmupStep {
            if let Some(a) = &o.step_at {
                return Err(only("optim.step_at", &format!("{a:?}"), "\"warmup-step\""));
            }
            if let Some(f) = o.step_factor {
                return Err(only("optim.step_factor", &f, "\"warmup-step\""));
            }
        }
        match o.schedule {
            Schedule::Constant => {
                if let Some(w) = o.warmup_steps {
                    return Err(only("optim.warmup_steps", &w, "\"warmup-cosine\" or \"warmup-step\""));
                }
                if let Some(m) = o.min_lr {
                    return Err(only("optim.min_lr", &m, "\"warmup-cosine\" or \"warmup-step\""));
                }
            }
            Schedule::WarmupCosine | Schedule::WarmupStep => {
                let name = if o.schedule == Schedule::WarmupCosine { "warmup-cosine" } else { "warmup-step" };
                let Some(_) = o.warmup_steps else {
                    return Err(invalid(
                        "optim.warmup_steps",
                        "missing",
                        format!("is required by schedule = \"{name}\""),
                    ));
                };
                match o.min_lr {
                    None if o.schedule == Schedule::WarmupCosine => {
                        return Err(invalid("optim.min_lr", "missing", "is required by schedule = \"warmup-cosine\""));
                    }
                    Some(m) if !(m.is_finite() && m >= 0.0 && m <= o.lr) => {
                        return Err(invalid("optim.min_lr", m, format!("must be in [0, optim.lr = {}]", o.lr)));
                    }
                    _ => {}
                }
            }
        }
        if o.schedule == Schedule::WarmupStep {
            let Some(at) = &o.step_at else {
                return Err(invalid("optim.step_at", "missing", "is required by schedule = \"warmup-step\""));
            };
            if at.is_empty() || at.len() > 16 {
                return Err(invalid("optim.step_at", format!("{at:?}"), "must list 1 to 16 fractions of the run"));
            }
            if at.iter().any(|f| !(f.is_finite() && *f > 0.0 && *f < 1.0)) || at.windows(2).any(|w| w[0] >= w[1]) {
                return Err(invalid(
                    "optim.step_at",
                    format!("{at:?}"),
                    "must be increasing fractions, each in (0, 1)",
                ));
            }
            match o.step_factor {
                None => {
                    return Err(invalid("optim.step_factor", "missing", "is required by schedule = \"warmup-step\""));
                }
                Some(f) if !(f.is_finite() && f > 0.0 && f < 1.0) => {
                    return Err(invalid("optim.step_factor", f, "must be in (0, 1)"));
                }
                _ => {}
            }
        }
        let t = &self.train;
        let steps = match (t.steps, t.samples) {
            (Some(_), Some(_)) => {
                return Err(invalid(
                    "train.samples",
                    t.samples.unwrap_or(0),
                    "give either train.steps or train.samples, not both",
                ));
            }
            (None, None) => return Err(invalid("train.steps", "missing", "give train.steps or train.samples")),
            (Some(0), None) => return Err(invalid("train.steps", 0, "must be >= 1")),
            (None, Some(0)) => return Err(invalid("train.samples", 0, "must be >= 1")),
            _ => self.total_steps(),
        };
        if let (Schedule::WarmupCosine | Schedule::WarmupStep, Some(w)) = (o.schedule, o.warmup_steps)
            && w >= steps
        {
            return Err(invalid("optim.warmup_steps", w, format!("must be below the total steps ({steps})")));
        }
        if t.eval_every == 0 {
            return Err(invalid("train.eval_every", 0, "must be >= 1"));
        }
        if t.checkpoint_every == 0 {
            return Err(invalid("train.checkpoint_every", 0, "must be >= 1"));
        }
        if t.log_every == 0 {
            return Err(invalid("train.log_every", 0, "must be >= 1"));
        }
        if t.eval_walks == 0 || t.eval_walks > 100_000 {
            return Err(invalid("train.eval_walks", t.eval_walks, "must be in 1..=100000"));
        }
        if let Some(n) = t.threads
            && (n == 0 || n > 1024)
        {
            return Err(invalid("train.threads", n, "must be in 1..=1024"));
        }
        if t.data_workers == 0 || t.data_workers > 64 {
            return Err(invalid("train.data_workers", t.data_workers, "must be in 1..=64"));
        }
        if let Some(f) = &self.finetune {
            self.validate_finetune(f)?;
        }
        Ok(())
    }

    fn validate_finetune(&self, f: &FinetuneSection) -> Result<(), ConfigError> {
        if f.from.as_os_str().is_empty() {
            return Err(invalid("finetune.from", "\"\"", "must name the run directory to start from"));
        }
        // The same folder, however spelled (`./runs/x`, a link, `..`).
        let same =
            |a: &Path, b: &Path| a == b || a.canonicalize().is_ok_and(|a| b.canonicalize().is_ok_and(|b| a == b));
        if same(&f.from, &self.run_dir()) {
            return Err(invalid(
                "finetune.from",
                f.from.display(),
                "is this run's own directory; continue a run with `train --resume` instead",
            ));
        }
        match f.targets {
            FinetuneTargets::Walk => Ok(()),
            FinetuneTargets::Bellman if !self.model.kind.has_bellman_targets() => Err(invalid(
                "finetune.targets",
                "bellman",
                format!("needs model.kind = \"q-distance\"; this config's kind is \"{}\"", self.model.kind),
            )),
            // The children a Bellman target needs are the walk's own
            // neighbouring samples, present only when a batch holds whole walks.
            FinetuneTargets::Bellman => match self.data.depths {
                Depths::AllPrefixes => Ok(()),
                Depths::Uniform => Err(invalid(
                    "finetune.targets",
                    "bellman",
                    "needs data.depths = \"all-prefixes\" (the children it bounds are the walk's neighbouring samples)",
                )),
            },
        }
    }

    /// Total optimisation steps (from `steps`, or `samples` rounded up).
    #[must_use]
    pub fn total_steps(&self) -> u64 {
        match (self.train.steps, self.train.samples) {
            (Some(s), _) => s,
            (None, Some(n)) => n.div_ceil(self.data.states_per_step as u64),
            (None, None) => 0,
        }
    }

    /// Whether the training uses the walk's next move as a second target
    /// (`model.forward_targets`): only all-prefixes batches have one.
    #[must_use]
    pub fn forward_targets(&self) -> bool {
        self.model.forward_targets() && matches!(self.data.depths, Depths::AllPrefixes)
    }

    /// The cube's move metric (quarter turns when none applies).
    #[must_use]
    pub fn metric(&self) -> Metric {
        self.puzzle.metric.map_or(Metric::Qtm, Metric::from)
    }

    /// The sliding-puzzle goal the config names (`None`: the default,
    /// blank-last).
    ///
    /// # Errors
    /// A goal that cannot be read.
    pub fn goal(&self) -> Result<Option<Goal>, ConfigError> {
        self.puzzle
            .goal
            .as_ref()
            .map(|g| {
                g.parse::<Goal>().map_err(|e| invalid("puzzle.goal", format!("{g:?}"), format!("is not a goal: {e}")))
            })
            .transpose()
    }

    /// The puzzle model the config names (checked by [`Self::validate`]).
    ///
    /// # Errors
    /// A sliding-puzzle goal that cannot be read or does not fit the board.
    pub fn puzzle(&self) -> Result<AnyPuzzle, ConfigError> {
        AnyPuzzle::new(self.puzzle.kind, self.metric(), self.goal()?.as_ref()).map_err(|e| match &self.puzzle.goal {
            Some(g) => invalid("puzzle.goal", format!("{g:?}"), format!("does not fit: {e}")),
            None => invalid("puzzle.kind", self.puzzle.kind, format!("cannot be built: {e}")),
        })
    }

    /// The seed of the held-out walks: `train.eval_seed`, else `run.seed`.
    #[must_use]
    pub fn held_out_seed(&self) -> u64 {
        self.train.eval_seed.unwrap_or(self.run.seed)
    }

    /// The first key (dotted, in key order) whose value differs between
    /// this config and `other` as TOML, outside `free` (whole sections such
    /// as `backend`, or dotted keys), with its value here and there
    /// (`(absent)` for a key one of them lacks).
    #[must_use]
    pub fn first_difference(&self, other: &TrainConfig, free: &[&str]) -> Option<(String, String, String)> {
        fn walk(at: &str, a: &toml::Value, b: &toml::Value, free: &[&str]) -> Option<(String, String, String)> {
            let show = |v: Option<&toml::Value>| v.map_or_else(|| "(absent)".to_string(), ToString::to_string);
            let (Some(ta), Some(tb)) = (a.as_table(), b.as_table()) else {
                return (a != b).then(|| (at.to_string(), a.to_string(), b.to_string()));
            };
            let keys: std::collections::BTreeSet<&String> = ta.keys().chain(tb.keys()).collect();
            keys.into_iter().find_map(|k| {
                let key = if at.is_empty() { k.clone() } else { format!("{at}.{k}") };
                match (ta.get(k), tb.get(k)) {
                    _ if free.contains(&key.as_str()) => None,
                    (Some(x), Some(y)) => walk(&key, x, y, free),
                    (x, y) => Some((key, show(x), show(y))),
                }
            })
        }
        let value = |c: &TrainConfig| toml::Value::try_from(c).expect("a TrainConfig always serialises");
        walk("", &value(self), &value(other), free)
    }

    /// The run directory, `<out_dir>/<name>`.
    #[must_use]
    pub fn run_dir(&self) -> PathBuf {
        self.run.out_dir.join(&self.run.name)
    }
}
