//! `study --config configs/study/<name>.toml`: a scaling study as a grid of
//! ordinary runs. The grid crosses network shapes (`hidden` ×
//! `residual_blocks`), budgets (sample counts `D`, or compute budgets `C`
//! with `D = C / 6N`) and seeds over one base training config; each point
//! is the run `<out_dir>/<study>/<point>/`, trained (and resumed) like any
//! other, then solved with the same fixed evaluation (a test set at fixed
//! beam widths, every solution replayed). A point is finished when its
//! `point.csv` exists: one row per width with the held-out loss, the
//! parameters `N`, the samples `D`, the training FLOPs `6·N·D`, and the
//! solved %, mean length, % optimal and forwards per instance. A killed
//! study resumes the point it was on; points run cheapest first, and
//! `--shard k/n` takes every n-th point
//! (a job array fans the grid out), and [`merge`] gathers whatever is
//! finished into `points.csv` and the fits of [`crate::powerlaw`] into `fit.csv`.

mod forecast;
mod include;
pub mod ledger;
pub mod merge;
pub mod variants;

use crate::csvlog::{Col, read_columns, read_text_column, write_table};
use crate::learn::config::{ConfigError, DeviceKind, Matmul, TrainConfig};
use crate::learn::error::LearnError;
use crate::learn::held_out_loss;
use crate::learn::model::parameter_count;
use crate::learn::training::{self, TrainOptions};
use crate::rundir::{Existing, RunDirError};
use crate::search::OracleKind;
use crate::solve::error::SolveError;
use crate::solve::input::Input;
use crate::solve::{self, SolveOptions};
pub use ledger::Ledger;
use serde::Deserialize;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Why a study could not be read, run or fitted.
#[derive(Debug, Error)]
pub enum StudyError {
    /// The study file could not be read.
    #[error("cannot read study config {}", path.display())]
    Read {
        /// The path given.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The study file is malformed or breaks a rule.
    #[error("study config {}: {message}", path.display())]
    Invalid {
        /// The study file.
        path: PathBuf,
        /// What is wrong, naming the key.
        message: String,
    },
    /// An output table's path holds something other than a regular file.
    #[error("{}: {kind}, not a regular file; refusing to write over it", path.display())]
    NotAFile {
        /// The table's path.
        path: PathBuf,
        /// What is there, in words.
        kind: &'static str,
    },
    /// `--shard` is not `k/n` with `0 ≤ k < n`.
    #[error("--shard {0}: expected k/n with 0 <= k < n (e.g. 0/4 for the first of four shards)")]
    Shard(String),
    /// `--device` names a device this build cannot train on.
    #[error("--device {device}")]
    Device {
        /// The device asked for.
        device: &'static str,
        /// Why it cannot be used.
        source: Box<LearnError>,
    },
    /// `--point` names no point of the study.
    #[error("--point {name}: study {study} has no such point (`study --list` names them)")]
    UnknownPoint {
        /// The name given.
        name: String,
        /// The study's name.
        study: String,
    },
    /// A point's training config is invalid.
    #[error("point {point}")]
    Config {
        /// The point.
        point: String,
        /// The rule broken.
        source: Box<ConfigError>,
    },
    /// Training a point failed.
    #[error("training point {point}")]
    Train {
        /// The point.
        point: String,
        /// Why.
        source: Box<LearnError>,
    },
    /// Solving with a point's oracle failed.
    #[error("evaluating point {point}")]
    Solve {
        /// The point.
        point: String,
        /// Why.
        source: Box<SolveError>,
    },
    /// A finished point no longer follows from the study file: it was
    /// evaluated, or its run trained, with settings that have changed since.
    #[error("point {point}: {why}")]
    Stale {
        /// The point.
        point: String,
        /// What changed, and how to go on.
        why: String,
    },
    /// A point's folder holds something `train` did not make, which the
    /// study never replaces.
    #[error(
        "point {point}: {} exists but is not a run made by train or study; refusing to replace it: move it \
         away, or give the study another `study.name` or `study.out_dir`",
        dir.display()
    )]
    NotAPoint {
        /// The point.
        point: String,
        /// Its folder.
        dir: PathBuf,
    },
    /// A file at a path the study writes is not the study's (not in its
    /// ledger, or changed since): never replaced nor removed.
    #[error(
        "{}: {why}; refusing to replace or remove it: move it away (or give the study another `study.name` or \
         `study.out_dir`)",
        path.display()
    )]
    Foreign {
        /// The file.
        path: PathBuf,
        /// Why it is not the study's.
        why: &'static str,
    },
    /// The study's folder holds files of the names the study writes but
    /// no ledger: written before ledgers, or by something else.
    #[error(
        "{}: holds {count} file(s) of the names a study writes ({first}) but no study ledger ({}); if they are \
         this study's, written before studies kept a ledger, `study --adopt` records them as they are; otherwise \
         move them away",
        dir.display(),
        ledger::LEDGER
    )]
    Unledgered {
        /// The study's folder.
        dir: PathBuf,
        /// The first few such files, relative, comma-separated.
        first: String,
        /// How many there are.
        count: usize,
    },
    /// A finished point's run has no checkpoint left to evaluate it with.
    #[error(
        "point {point}: its run {} has trained ({steps} steps in its meta.json) but has no checkpoint left to \
         evaluate or resume it with; the study never trains such a run again over its folder: restore its \
         checkpoints/, or move the folder aside to train the point afresh",
        dir.display()
    )]
    NoCheckpoint {
        /// The point.
        point: String,
        /// Its run.
        dir: PathBuf,
        /// Steps its `meta.json` records.
        steps: u64,
    },
    /// The study's folder could not be locked for a merge.
    #[error(transparent)]
    Lock(crate::folder::FolderError),
    /// A table could not be read or written.
    #[error(transparent)]
    Table(#[from] crate::csvlog::TableError),
}

/// A study file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StudyConfig {
    /// The grid.
    pub study: StudySection,
    /// The evaluation every point gets.
    pub eval: EvalSection,
}

/// `[study]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StudySection {
    /// The study's name: its points are `<out_dir>/<name>/<point>/`.
    pub name: String,
    /// The base training config, relative to the study file.
    pub base: PathBuf,
    /// Parent folder of the study (default: the base config's `run.out_dir`).
    pub out_dir: Option<PathBuf>,
    /// Hidden layer widths, one list per network shape.
    pub hidden: Vec<Vec<usize>>,
    /// Residual blocks, crossed with `hidden` (default: the base's).
    pub residual_blocks: Option<Vec<usize>>,
    /// Training samples per point (give this or `flops`).
    pub samples: Option<Vec<f64>>,
    /// Training compute per point, FLOPs; `samples = flops / (6 N)`.
    pub flops: Option<Vec<f64>>,
    /// Seeds (default: the base's).
    pub seeds: Option<Vec<u64>>,
    /// The oracle kind (default: the base's `model.kind`).
    pub kind: Option<OracleKind>,
    /// Points beyond the grid, each one shape at one budget.
    #[serde(default)]
    pub extra_points: Vec<ExtraPoint>,
    /// Finished runs of the base's recipe (folders, relative to the study
    /// file), evaluated and fitted as points but never trained by the study.
    #[serde(default)]
    pub include_runs: Vec<PathBuf>,
    /// Variants of the recipe: each adds, beside every grid point, the same
    /// point with some of the training config's keys set otherwise.
    #[serde(default)]
    pub variants: Vec<Variant>,
}

/// One entry of `study.variants`: a name and the training-config keys it
/// sets, e.g. `{ name = "walk-nb", set = { "data.walk" = "non-backtracking" } }`.
/// Its points are the grid's, named `<grid point>-<name>`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Variant {
    /// A plain folder-name suffix.
    pub name: String,
    /// Dotted training-config keys (`section.key`) and their values.
    pub set: toml::Table,
}

/// Keys a variant may not set: the study sets them for every point.
const STUDY_KEYS: [(&str, &str); 5] = [
    ("run.", "the study names, seeds and places every point (study.seeds)"),
    ("train.samples", "the budget is the study's (study.flops or study.samples)"),
    ("train.steps", "the budget is the study's (study.flops or study.samples)"),
    ("train.eval_seed", "every point is scored on the base's held-out walks"),
    ("finetune", "a study's points start from random weights"),
];

impl Variant {
    /// `cfg` with this variant's keys set, re-read as a config so that an
    /// unknown key, a wrong type or a broken rule is refused.
    ///
    /// # Errors
    /// A message naming the key and why it is refused.
    pub fn apply(&self, cfg: &TrainConfig) -> Result<TrainConfig, String> {
        let mut root = toml::Value::try_from(cfg).map_err(|e| format!("the config does not serialise: {e}"))?;
        for (key, value) in &self.set {
            if let Some((_, why)) =
                STUDY_KEYS.iter().find(|(k, _)| key.starts_with(k) || key == k.trim_end_matches('.'))
            {
                return Err(format!("sets `{key}`, which it may not: {why}"));
            }
            let mut parts: Vec<&str> = key.split('.').collect();
            let last = parts.pop().filter(|l| !l.is_empty() && !parts.is_empty()).ok_or_else(|| {
                format!("key `{key}` is not a dotted `section.key` of the training config (e.g. \"data.walk\")")
            })?;
            let mut table = &mut root;
            for part in parts {
                table = table
                    .as_table_mut()
                    .and_then(|t| t.get_mut(part))
                    .filter(|v| v.is_table())
                    .ok_or_else(|| format!("key `{key}`: the training config has no section `{part}`"))?;
            }
            table.as_table_mut().expect("walked to a table").insert(last.to_string(), value.clone());
        }
        let text = toml::to_string(&root).map_err(|e| format!("the config does not serialise: {e}"))?;
        let out: TrainConfig = toml::from_str(&text)
            .map_err(|e| format!("sets a key the training config refuses: {}", crate::folder::one_line(&e)))?;
        out.validate().map_err(|e| format!("breaks a rule: {e}"))?;
        Ok(out)
    }
}

/// One entry of `study.extra_points`: a shape and one budget.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExtraPoint {
    /// Hidden layer widths.
    pub hidden: Vec<usize>,
    /// Residual blocks (default: the base's).
    pub residual_blocks: Option<usize>,
    /// Training samples (give this or `flops`).
    pub samples: Option<f64>,
    /// Training compute, FLOPs (give this or `samples`).
    pub flops: Option<f64>,
    /// Seed (default: the base's).
    pub seed: Option<u64>,
}

/// `[eval]`: the fixed evaluation of every point.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvalSection {
    /// A built-in test set or a TSV file (give this or `random`).
    pub testset: Option<String>,
    /// This many random instances of the puzzle, from `seed`.
    pub random: Option<u64>,
    /// Seed of `random` (default 0; only with `random`).
    pub seed: Option<u64>,
    /// Beam widths as powers of two.
    pub beam_log2: Vec<u32>,
    /// A mean solution length to predict the compute for (e.g. 23.30,
    /// EfficientCube's at 2^10 on DeepCubeA's cubes): `fit.csv` gives the
    /// FLOPs at which each width's fitted length law reaches it.
    pub target_length: Option<f64>,
}

impl EvalSection {
    /// The evaluation in one line, as `point.csv`'s `evaluation` column
    /// records it: `testset deepcubea-100; beam_log2 10 12`, or
    /// `random 12 seed 3; beam_log2 5 7`.
    #[must_use]
    pub fn describe(&self) -> String {
        let widths = self.beam_log2.iter().map(u32::to_string).collect::<Vec<_>>().join(" ");
        match (&self.testset, self.random) {
            (Some(t), _) => format!("testset {t}; beam_log2 {widths}"),
            (None, n) => format!("random {} seed {}; beam_log2 {widths}", n.unwrap_or(1), self.seed.unwrap_or(0)),
        }
    }
}

/// The instances every point is solved on: `eval`'s, with its test set
/// resolved to `testset`.
fn eval_input(eval: &EvalSection, testset: Option<&str>) -> Result<Input, SolveError> {
    match (testset, eval.random) {
        (Some(t), _) => Ok(Input::TestSet(t.to_string())),
        (None, n) => Ok(Input::Random {
            n: solve::bounds::instance_count("eval.random =", n.unwrap_or(1))?,
            seed: eval.seed.unwrap_or(0),
        }),
    }
}

/// One point of the study.
#[derive(Clone, Debug)]
pub struct Point {
    /// Its name: the run folder under the study (`h512x512-b1-d1e7-s2026`),
    /// or an included run's folder name.
    pub name: String,
    /// Its training config (an included run's own, pointing at its folder).
    pub config: TrainConfig,
    /// Network parameters `N`.
    pub parameters: u64,
    /// Training samples `D`.
    pub samples: u64,
    /// Trained by the study, or a finished run it only evaluates.
    pub source: Source,
    /// Its `point.csv`, whose presence marks it finished.
    pub table: PathBuf,
    /// A variant's point: the variant's name and the grid point it varies
    /// (the control it is paired against in `variants.csv`).
    pub variant: Option<(String, String)>,
}

/// Where a point's weights come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// A grid point or an extra point: trained by the study in its folder.
    Trained,
    /// A finished run named by `study.include_runs`: evaluated, never
    /// trained; its `point.csv` is kept under the study's `included/`.
    Included,
}

impl Point {
    /// Training FLOPs, `6·N·D`.
    #[must_use]
    pub fn flops(&self) -> f64 {
        6.0 * self.parameters as f64 * self.samples as f64
    }
}

/// A loaded study: its file, config and points, cheapest (fewest FLOPs) first.
#[derive(Clone, Debug)]
pub struct Study {
    /// The study file.
    pub path: PathBuf,
    /// Its contents.
    pub config: StudyConfig,
    /// The points.
    pub points: Vec<Point>,
    /// The study's folder, `<out_dir>/<name>` (included runs live elsewhere).
    dir: PathBuf,
    /// `eval.testset` resolved: a file's path relative to the study file,
    /// or the built-in set's name.
    testset: Option<String>,
    /// What the evaluation's instances are, for the points' records: the
    /// built-in set's name, or the file's checksum.
    testset_print: String,
}

/// Largest grid accepted.
const MAX_POINTS: usize = 10_000;

/// The largest study file read (a study file is a few hundred bytes).
pub const MAX_STUDY_BYTES: u64 = crate::learn::config::MAX_CONFIG_BYTES;

/// Refuses to write table `path` where something other than a regular file
/// is (a FIFO, a symbolic link, a device, a folder), which the atomic
/// rename of a write would replace.
///
/// # Errors
/// [`StudyError::NotAFile`].
pub fn check_table_path(path: &Path) -> Result<(), StudyError> {
    let Ok(meta) = std::fs::symlink_metadata(path) else { return Ok(()) };
    let t = meta.file_type();
    if t.is_file() {
        return Ok(());
    }
    let kind = {
        use std::os::unix::fs::FileTypeExt;
        if t.is_symlink() {
            "a symbolic link"
        } else if t.is_dir() {
            "a directory"
        } else if t.is_fifo() {
            "a FIFO"
        } else if t.is_socket() {
            "a socket"
        } else if t.is_block_device() || t.is_char_device() {
            "a device"
        } else {
            "not a regular file"
        }
    };
    Err(StudyError::NotAFile { path: path.to_path_buf(), kind })
}

impl Study {
    /// Reads a study file (at most [`MAX_STUDY_BYTES`]) and its base config
    /// and lays out the grid.
    ///
    /// # Errors
    /// An unreadable, oversized or malformed file, an empty or oversized
    /// grid, a budget that is not a positive number, or a point whose
    /// training config breaks a rule.
    pub fn load(path: &Path) -> Result<Self, StudyError> {
        use std::io::Read;
        let read = |source| StudyError::Read { path: path.into(), source };
        let bad = |message: String| StudyError::Invalid { path: path.into(), message };
        let mut bytes = Vec::new();
        crate::bounded::open_regular(path)
            .map_err(read)?
            .take(MAX_STUDY_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(read)?;
        if bytes.len() as u64 > MAX_STUDY_BYTES {
            return Err(bad(format!(
                "the file is larger than {MAX_STUDY_BYTES} bytes (a study file is a few hundred)"
            )));
        }
        let text = String::from_utf8(bytes).map_err(|e| bad(format!("not UTF-8 text ({e})")))?;
        let config: StudyConfig =
            toml::from_str(&text).map_err(|e| bad(crate::learn::config::toml_message(&text, &e)))?;
        let s = &config.study;
        if s.name.is_empty() || crate::folder::sanitize(&s.name) != s.name {
            return Err(bad(format!(
                "study.name `{}` must be a plain folder name",
                crate::solve::bounds::shorten(&s.name)
            )));
        }
        let base_path = path.parent().unwrap_or(Path::new(".")).join(&s.base);
        // The whole chain of causes: the OS's reason a base cannot be read included.
        let base = TrainConfig::load(&base_path)
            .map_err(|e| bad(format!("study.base {}: {}", base_path.display(), crate::folder::one_line(&e))))?;
        if let Some(f) = &base.finetune {
            return Err(bad(format!(
                "study.base {} has a [finetune] section (from {}); a study's points start from random weights",
                base_path.display(),
                f.from.display()
            )));
        }
        let budgets: Vec<Budget> = match (&s.samples, &s.flops) {
            (Some(d), None) => d.iter().map(|&v| Budget::Samples(v)).collect(),
            (None, Some(c)) => c.iter().map(|&v| Budget::Flops(v)).collect(),
            _ => return Err(bad("give exactly one of study.samples and study.flops".into())),
        };
        let budget_key = if s.samples.is_some() { "study.samples" } else { "study.flops" };
        if let Some(why) = budgets.iter().find_map(Budget::invalid) {
            return Err(bad(format!("{budget_key}: {why}")));
        }
        if let Some(t) = config.eval.target_length.filter(|t| !(t.is_finite() && *t > 0.0)) {
            return Err(bad(format!("eval.target_length = {t}: must be a mean solution length above 0")));
        }
        let blocks = s.residual_blocks.clone().unwrap_or_else(|| vec![base.model.residual_blocks]);
        let seeds = s.seeds.clone().unwrap_or_else(|| vec![base.run.seed]);
        // A list given empty would drop the whole grid without a word.
        let lists = [
            ("study.hidden", s.hidden.len()),
            ("study.residual_blocks", blocks.len()),
            (budget_key, budgets.len()),
            ("study.seeds", seeds.len()),
        ];
        if let Some((key, _)) = lists.iter().find(|(_, n)| *n == 0) {
            return Err(bad(format!("{key} is empty; list at least one value")));
        }
        let size = lists
            .iter()
            .try_fold(1usize, |n, &(_, k)| n.checked_mul(k))
            .and_then(|n| n.checked_mul(s.variants.len() + 1))
            .and_then(|n| n.checked_add(s.extra_points.len())?.checked_add(s.include_runs.len()))
            .filter(|&n| n <= MAX_POINTS)
            .ok_or_else(|| bad(format!("the study has more than {MAX_POINTS} points")))?;
        let eval = &config.eval;
        if eval.beam_log2.is_empty() || eval.beam_log2.iter().any(|&k| k > 20) {
            return Err(bad("eval.beam_log2 must list widths from 2^0 to 2^20".into()));
        }
        let mut widths = eval.beam_log2.clone();
        widths.sort_unstable();
        if let Some(w) = widths.windows(2).find(|w| w[0] == w[1]) {
            return Err(bad(format!("eval.beam_log2 lists {} twice; each width is evaluated once", w[0])));
        }
        if eval.testset.is_some() == eval.random.is_some() {
            return Err(bad("give exactly one of eval.testset and eval.random".into()));
        }
        if let (Some(t), Some(seed)) = (&eval.testset, eval.seed) {
            return Err(bad(format!(
                "eval.seed = {seed} draws random instances; with eval.testset ({}) it would be ignored",
                crate::solve::bounds::shorten(t)
            )));
        }
        let out_dir = s.out_dir.clone().unwrap_or_else(|| base.run.out_dir.clone()).join(&s.name);
        for (i, v) in s.variants.iter().enumerate() {
            if v.name.is_empty() || crate::folder::sanitize(&v.name) != v.name {
                return Err(bad(format!(
                    "study.variants[{i}].name `{}` must be a plain folder-name suffix",
                    crate::solve::bounds::shorten(&v.name)
                )));
            }
            if v.set.is_empty() {
                return Err(bad(format!(
                    "study.variants[{i}] ({}) sets no key; a variant differs from the recipe in at least one",
                    v.name
                )));
            }
            if let Some(j) = s.variants[..i].iter().position(|w| w.name == v.name) {
                return Err(bad(format!("study.variants[{j}] and [{i}] are both named `{}`", v.name)));
            }
        }
        let puzzle =
            base.puzzle().map_err(|source| StudyError::Config { point: "base".into(), source: Box::new(source) })?;
        let mut recipe = base.clone();
        if let Some(kind) = s.kind {
            recipe.model.kind = kind;
        }
        // A test-set file is found beside the study file, as `study.base`
        // is; a name that is no file there is a built-in set's.
        let here = path.parent().unwrap_or(Path::new("."));
        let testset = eval.testset.as_ref().map(|t| {
            let beside = here.join(t);
            if beside.is_file() { beside.to_string_lossy().to_string() } else { t.clone() }
        });
        let testset_print = match &testset {
            Some(t) if Path::new(t).is_file() => {
                let bytes = crate::bounded::read_regular(Path::new(t), crate::solve::bounds::MAX_SET_BYTES)
                    .map_err(|e| bad(format!("eval.testset {t}: {e}")))?;
                format!("test set file with checksum {:016x}", crate::checksum::fnv1a(&bytes))
            }
            Some(t) => format!("test set {t}"),
            None => "random instances".to_string(),
        };
        // The evaluation's instances are read now, not after the first
        // point has trained.
        let input = eval_input(eval, testset.as_deref()).map_err(|e| bad(crate::folder::one_line(&e)))?;
        solve::instance_count(&recipe, &input).map_err(|e| bad(format!("eval: {}", crate::folder::one_line(&e))))?;
        // One shape at one budget and seed, trained under the study's folder.
        let point = |hidden: &[usize],
                     b: usize,
                     budget: &Budget,
                     seed: u64,
                     variant: Option<(usize, &Variant, &str)>|
         -> Result<Point, StudyError> {
            let mut cfg = recipe.clone();
            cfg.model.hidden = hidden.to_vec();
            cfg.model.residual_blocks = b;
            cfg.run.seed = seed;
            if let Some((i, v, _)) = variant {
                cfg = v.apply(&cfg).map_err(|why| bad(format!("study.variants[{i}] ({}) {why}", v.name)))?;
            }
            let (hidden, b) = (&cfg.model.hidden.clone()[..], cfg.model.residual_blocks);
            let suffix = variant.map(|(_, v, _)| format!("-{}", v.name)).unwrap_or_default();
            let widths = hidden.iter().map(usize::to_string).collect::<Vec<_>>().join("x");
            // The shape is checked before it is counted: widths out of range
            // would overflow the parameter count.
            cfg.validate().map_err(|source| StudyError::Config {
                // Every budget of this shape: `d*` stands for the sample count.
                point: crate::solve::bounds::shorten(&format!("h{widths}-b{b}-d*-s{seed}{suffix}")),
                source: Box::new(source),
            })?;
            let outputs = cfg.model.kind.outputs(puzzle.num_moves());
            let n = parameter_count(&cfg.model, puzzle.encoded_len(), outputs) as u64;
            let samples =
                budget.samples(n).map_err(|why| bad(format!("the points h{widths}-b{b}-*-s{seed}{suffix}: {why}")))?;
            let name = format!("h{widths}-b{b}-d{}-s{seed}{suffix}", short(samples as f64));
            cfg.train.samples = Some(samples);
            cfg.train.steps = None;
            // Every point is scored on the same held-out walks, the base's,
            // whatever its own seed.
            cfg.train.eval_seed = Some(base.held_out_seed());
            cfg.run.name.clone_from(&name);
            cfg.run.out_dir.clone_from(&out_dir);
            cfg.validate().map_err(|source| StudyError::Config { point: name.clone(), source: Box::new(source) })?;
            let table = cfg.run_dir().join(POINT_FILE);
            let variant = variant.map(|(_, v, control)| (v.name.clone(), control.to_string()));
            Ok(Point { name, config: cfg, parameters: n, samples, source: Source::Trained, table, variant })
        };
        let mut points = Vec::with_capacity(size);
        for hidden in &s.hidden {
            for &b in &blocks {
                for budget in &budgets {
                    for &seed in &seeds {
                        // Each variant's point is paired with this one, its control.
                        let control = point(hidden, b, budget, seed, None)?;
                        for (i, v) in s.variants.iter().enumerate() {
                            points.push(point(hidden, b, budget, seed, Some((i, v, &control.name)))?);
                        }
                        points.push(control);
                    }
                }
            }
        }
        for (i, e) in s.extra_points.iter().enumerate() {
            let budget = match (e.samples, e.flops) {
                (Some(d), None) => Budget::Samples(d),
                (None, Some(c)) => Budget::Flops(c),
                _ => return Err(bad(format!("study.extra_points[{i}]: give exactly one of samples and flops"))),
            };
            if let Some(why) = budget.invalid() {
                return Err(bad(format!("study.extra_points[{i}].{}: {why}", budget.key())));
            }
            let b = e.residual_blocks.unwrap_or(base.model.residual_blocks);
            points.push(point(&e.hidden, b, &budget, e.seed.unwrap_or(base.run.seed), None)?);
        }
        for (i, run) in s.include_runs.iter().enumerate() {
            let p = include::point(&recipe, &here.join(run), &out_dir, &puzzle)
                .map_err(|why| bad(format!("study.include_runs[{i}] {}: {why}", run.display())))?;
            points.push(p);
        }
        let mut names: Vec<&str> = points.iter().map(|p| p.name.as_str()).collect();
        names.sort_unstable();
        if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
            return Err(bad(format!("two points are both named `{}`; each needs a name of its own", w[0])));
        }
        // Cheapest first, so a study stopped part-way (or a shard of it)
        // has finished as many points as its time allowed.
        points.sort_by(|a, b| a.flops().total_cmp(&b.flops()).then_with(|| a.name.cmp(&b.name)));
        Ok(Self { path: path.into(), config, points, dir: out_dir, testset, testset_print })
    }

    /// The study's folder, `<out_dir>/<name>`.
    #[must_use]
    pub fn dir(&self) -> PathBuf {
        self.dir.clone()
    }

    /// What `point`'s results depend on besides the study file, as its
    /// record in the ledger keeps it: the identity of its run (seed, and
    /// when its first leg started: a run trained again is another run) and
    /// the evaluation's instances (a built-in set, or a file's checksum).
    #[must_use]
    pub fn dependencies(&self, point: &Point) -> String {
        let run = match run_meta(&point.config.run_dir()) {
            Ok(m) => {
                let started = m["legs"][0]["started_unix"].as_u64().or_else(|| m["leg_started_unix"].as_u64());
                let seed = m["seed"].as_u64().unwrap_or(point.config.run.seed);
                match started {
                    Some(t) => format!("run seed {seed}, first leg started at unix time {t}"),
                    None => format!("run seed {seed}"),
                }
            }
            Err(_) => "run without a readable meta.json".to_string(),
        };
        format!("{run}; {}", self.testset_print)
    }

    /// The points of shard `k` of `n`: every n-th point from the k-th.
    #[must_use]
    pub fn shard(&self, k: usize, n: usize) -> Vec<&Point> {
        self.points.iter().enumerate().filter(|(i, _)| i % n == k).map(|(_, p)| p).collect()
    }

    /// Trains the study's own points on `device` (`study --device`): their
    /// runs' `backend.device`, and on the GPU f32 products (`backend.matmul`
    /// is the CPU's setting; the GPU's products follow `backend.precision`,
    /// f32 unless the base says otherwise). A run already started keeps the
    /// device it started on: `train` refuses to resume it on another.
    /// Included runs are only evaluated, always on the CPU.
    ///
    /// # Errors
    /// [`StudyError::Device`] when this build cannot train on `device` (the
    /// GPU without `--features gpu`), before anything is written;
    /// [`StudyError::Config`] when a point's config is then invalid.
    pub fn on_device(&mut self, device: DeviceKind) -> Result<(), StudyError> {
        crate::learn::backend::device(device)
            .map_err(|source| StudyError::Device { device: device.name(), source: Box::new(source) })?;
        for p in self.points.iter_mut().filter(|p| matches!(p.source, Source::Trained)) {
            p.config.backend.device = device;
            match device {
                DeviceKind::Gpu => p.config.backend.matmul = Matmul::F32,
                DeviceKind::Cpu => {}
            }
            p.config
                .validate()
                .map_err(|source| StudyError::Config { point: p.name.clone(), source: Box::new(source) })?;
        }
        Ok(())
    }

    /// The points named (`--point`, as `--list` names them), in the order
    /// given, each once.
    ///
    /// # Errors
    /// [`StudyError::UnknownPoint`] for the first name that is not a point.
    pub fn named(&self, names: &[String]) -> Result<Vec<&Point>, StudyError> {
        let mut chosen: Vec<&Point> = Vec::with_capacity(names.len());
        for name in names {
            let point = self.points.iter().find(|p| &p.name == name).ok_or_else(|| StudyError::UnknownPoint {
                name: crate::solve::bounds::shorten(name),
                study: self.config.study.name.clone(),
            })?;
            if !chosen.iter().any(|c| c.name == point.name) {
                chosen.push(point);
            }
        }
        Ok(chosen)
    }
}

/// A point's budget as written.
enum Budget {
    Samples(f64),
    Flops(f64),
}

impl Budget {
    fn value(&self) -> f64 {
        match self {
            Self::Samples(v) | Self::Flops(v) => *v,
        }
    }

    /// The key it is written under.
    fn key(&self) -> &'static str {
        match self {
            Self::Samples(_) => "samples",
            Self::Flops(_) => "flops",
        }
    }

    /// Why the budget is unusable, or `None`: samples are a whole number
    /// from 1 to [`MAX_SAMPLES`], FLOPs a number from 1 to 1e30.
    fn invalid(&self) -> Option<String> {
        let v = self.value();
        let rule = match self {
            Self::Samples(_) if !(v.is_finite() && v.fract() == 0.0 && (1.0..=MAX_SAMPLES).contains(&v)) => {
                format!("must be a whole number of samples from 1 to {MAX_SAMPLES:e}")
            }
            Self::Flops(_) if !(v.is_finite() && (1.0..=1e30).contains(&v)) => "must be a number from 1 to 1e30".into(),
            _ => return None,
        };
        Some(format!("{} {rule}", crate::solve::bounds::show_number(v)))
    }

    /// Training samples for a network of `n` parameters.
    ///
    /// # Errors
    /// FLOPs that would take more than [`MAX_SAMPLES`] samples.
    fn samples(&self, n: u64) -> Result<u64, String> {
        let d = match self {
            Self::Samples(d) => *d,
            Self::Flops(c) => (c / (6.0 * n as f64)).ceil().max(1.0),
        };
        if d > MAX_SAMPLES {
            return Err(format!(
                "{:e} flops would take {d:e} samples for {n} parameters, more than {MAX_SAMPLES:e}",
                self.value()
            ));
        }
        Ok(d as u64)
    }
}

/// The most training samples a point may take (far beyond any CPU's or
/// GPU's reach; a u64 holds them exactly).
const MAX_SAMPLES: f64 = 1e18;

/// `1e7`, `2.5e8`, `300`: a count in few characters, for point names.
fn short(v: f64) -> String {
    if v < 1000.0 {
        return format!("{v}");
    }
    let exp = v.log10().floor() as i32;
    let mantissa = (v / 10f64.powi(exp) * 100.0).round() / 100.0;
    format!("{mantissa}e{exp}")
}

/// Removes the table at `path`, if one is there, that no longer follows
/// from the finished points (a fit they no longer allow).
///
/// # Errors
/// The file exists and cannot be removed.
pub(crate) fn remove_stale(path: &Path) -> Result<(), StudyError> {
    if path.is_file() {
        std::fs::remove_file(path)
            .map_err(|e| crate::csvlog::TableError::from(crate::rundir::FileError::at("removing", path)(e)))?;
    }
    Ok(())
}

/// Parses `--shard k/n`.
///
/// # Errors
/// Anything but two numbers with `0 ≤ k < n`.
pub fn parse_shard(text: &str) -> Result<(usize, usize), StudyError> {
    let bad = || StudyError::Shard(crate::solve::bounds::shorten(text));
    let (k, n) = text.split_once('/').ok_or_else(bad)?;
    let (k, n): (usize, usize) = (k.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
    if n == 0 || k >= n {
        return Err(bad());
    }
    Ok((k, n))
}

/// The file that marks a point finished.
pub const POINT_FILE: &str = "point.csv";

/// What became of one point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PointState {
    /// Finished before: skipped.
    Skipped,
    /// Trained (or resumed) and evaluated now.
    Done,
    /// Training stopped early (Ctrl-C): the study stops, resumable.
    Stopped,
    /// Its run started on another device and has not finished training:
    /// skipped, to be resumed with `--device` naming that device.
    OtherDevice(DeviceKind),
}

/// The device the run in `dir` started on (its saved `config.toml`), when
/// there is one and it loads.
fn started_on(dir: &Path) -> Option<DeviceKind> {
    let path = dir.join("config.toml");
    path.is_file().then(|| TrainConfig::load(&path).ok()).flatten().map(|c| c.backend.device)
}

/// The `meta.json` of the run in `dir`, read through the capped reader;
/// why not, in words.
fn run_meta(dir: &Path) -> Result<serde_json::Value, String> {
    let path = dir.join("meta.json");
    let text = crate::rundir::read_capped_text(&path, crate::rundir::MAX_META_BYTES).ok_or_else(|| {
        format!("{}: not a readable text file of at most {} bytes", path.display(), crate::rundir::MAX_META_BYTES)
    })?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Whether a run's `meta.json` says it has finished training.
fn trained(meta: &serde_json::Value) -> bool {
    meta["complete"] == serde_json::Value::Bool(true)
}

/// How [`run_point`] treats a point.
#[derive(Clone, Copy, Debug, Default)]
pub struct PointOptions {
    /// Draw progress bars.
    pub progress: bool,
    /// Resume a run started on another device on this one (`--switch-device`).
    pub switch_device: bool,
    /// Evaluate again a finished point evaluated with settings the study
    /// has changed since (`--reevaluate`), instead of refusing it.
    pub reevaluate: bool,
    /// Start a resumed point's unreadable `meta.json` or logs afresh,
    /// keeping the old files beside them (`--fresh-logs`, as in `train`).
    pub fresh_logs: bool,
}

/// Why a finished point no longer follows from the study, if it does not:
/// its run trained to another recipe or budget, or it was evaluated with
/// another `[eval]`. [`run_point`] refuses such a point (one evaluated
/// otherwise is evaluated again with `--reevaluate`); [`merge`] leaves it
/// out, naming it.
///
/// # Errors
/// Its table or saved config cannot be read.
pub fn stale(study: &Study, ledger: &Ledger, point: &Point) -> Result<Option<Stale>, StudyError> {
    if let Some(why) = retrained(point)? {
        return Ok(Some(why));
    }
    if std::fs::symlink_metadata(&point.table).is_err() {
        return Ok(None);
    }
    // A table the study did not write there (copied from another point,
    // edited) says nothing about this point.
    if let Err(StudyError::Foreign { why, .. }) = ledger.check(&point.table) {
        return Ok(Some(Stale::Foreign { why }));
    }
    if !point.table.is_file() {
        return Ok(None);
    }
    let budget = read_columns(&point.table, &["samples"])?;
    if let Some(&was) = budget[0].iter().find(|&&d| d != point.samples as f64) {
        return Ok(Some(Stale::Budget { was: was as u64, now: point.samples }));
    }
    let now = study.config.eval.describe();
    let was = match read_text_column(&point.table, "evaluation") {
        Ok(rows) => rows.into_iter().find(|r| *r != now),
        Err(crate::csvlog::TableError::Column { .. }) => Some("(not recorded)".into()),
        Err(e) => return Err(e.into()),
    };
    if let Some(was) = was {
        return Ok(Some(Stale::Evaluation { was, now }));
    }
    let now = study.dependencies(point);
    Ok(ledger.depends(&point.table).filter(|was| *was != now).map(|was| Stale::Dependency { was: was.into(), now }))
}

/// Why a point must be trained again: the recipe of its run (a study
/// point's saved `config.toml`) differs from the study's now.
fn retrained(point: &Point) -> Result<Option<Stale>, StudyError> {
    let dir = point.config.run_dir();
    // Only a run's config is the point's recipe: another tool's
    // `config.toml` there is refused when the point trains (NotAPoint).
    if point.source != Source::Trained || !crate::rundir::is_run(&dir) {
        return Ok(None);
    }
    let path = dir.join("config.toml");
    let saved = TrainConfig::load(&path)
        .map_err(|source| StudyError::Config { point: point.name.clone(), source: Box::new(source) })?;
    Ok(include::retrained(&point.config, &saved).map(|(key, was, now)| Stale::Recipe { key, was, now }))
}

/// What changed since a point finished ([`stale`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stale {
    /// Its run was trained with `key = was`; the study now gives `now`.
    Recipe {
        /// The first key that differs, dotted.
        key: String,
        /// The run's value.
        was: String,
        /// The study's value now.
        now: String,
    },
    /// It was evaluated after `was` training samples; the study now says `now`.
    Budget {
        /// Samples in its table.
        was: u64,
        /// Samples the study gives it now.
        now: u64,
    },
    /// It was evaluated with `was` ([`EvalSection::describe`]).
    Evaluation {
        /// Its table's evaluation.
        was: String,
        /// The study's now.
        now: String,
    },
    /// Its table is not the one the study wrote (not in the ledger, or
    /// changed since).
    Foreign {
        /// Why, in words.
        why: &'static str,
    },
    /// What its results depend on changed since they were recorded
    /// ([`Study::dependencies`]): its run was trained again, or the test
    /// set's file changed.
    Dependency {
        /// As recorded.
        was: String,
        /// Now.
        now: String,
    },
}

impl std::fmt::Display for Stale {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Recipe { key, was, now } => write!(
                f,
                "its run was trained with {key} = {was}, the study now gives {now}; restore the study file (or \
                 its base config), or move the run's folder aside to train the point again"
            ),
            Self::Budget { was, now } => write!(
                f,
                "its table was made after {was} training samples, the study now gives {now}; remove the table \
                 to evaluate the run again, or restore the study file"
            ),
            Self::Evaluation { was, now } => {
                write!(f, "evaluated with `{was}`, the study's [eval] is now `{now}`; --reevaluate evaluates it again")
            }
            Self::Foreign { why } => {
                write!(f, "its {POINT_FILE} is not the study's ({why}); move it away to evaluate the point again")
            }
            Self::Dependency { was, now } => write!(
                f,
                "its results were recorded for `{was}`, which is now `{now}` (its run was trained again, or the \
                 test set changed); --reevaluate evaluates it again"
            ),
        }
    }
}

/// Trains and evaluates one point, unless it is finished, or its run
/// started on another device and is still training there (with
/// `switch_device`, such a run resumes on the study's device instead).
///
/// # Errors
/// Training or solving failed, the point's table could not be written, the
/// point is [`stale`] (one evaluated otherwise is evaluated again with
/// `reevaluate`), or its folder holds something `train` did not make
/// ([`StudyError::NotAPoint`]).
pub fn run_point(study: &Study, point: &Point, opts: PointOptions) -> Result<PointState, StudyError> {
    let PointOptions { progress, switch_device, reevaluate, fresh_logs } = opts;
    let dir = point.config.run_dir();
    // A study writes only into a folder it made (or one adopted).
    let ledger = Ledger::for_writing(&study.dir)?;
    match stale(study, &ledger, point)? {
        None if point.table.is_file() => return Ok(PointState::Skipped),
        None => {}
        Some(Stale::Evaluation { was, now }) if reevaluate => {
            eprintln!("  evaluated with `{was}`: evaluating it again with `{now}`");
        }
        Some(Stale::Dependency { was, now }) if reevaluate => {
            eprintln!("  recorded for `{was}`: evaluating it again for `{now}`");
        }
        Some(Stale::Foreign { why }) => return Err(StudyError::Foreign { path: point.table.clone(), why }),
        Some(why) => return Err(StudyError::Stale { point: point.name.clone(), why: why.to_string() }),
    }
    // A run started on another device (a grid's largest points on a GPU)
    // is left to that device until it has trained; its evaluation is the
    // CPU's either way.
    let resumable = crate::rundir::has_checkpoint(&dir);
    let meta = run_meta(&dir).ok();
    let complete = resumable && meta.as_ref().is_some_and(trained);
    // A run that has trained (to the end, or past a checkpoint) but has no
    // checkpoint left is never trained again over its folder: that would
    // replace whatever the user keeps there (every shipped point is such a
    // run, its checkpoints left out of the repository).
    let steps_done = meta.as_ref().and_then(|m| m["steps_done"].as_u64()).unwrap_or(0);
    if !resumable && (steps_done > 0 || meta.as_ref().is_some_and(trained)) {
        return Err(StudyError::NoCheckpoint { point: point.name.clone(), dir, steps: steps_done });
    }
    let elsewhere = started_on(&dir).filter(|&d| resumable && !switch_device && d != point.config.backend.device);
    if let Some(device) = elsewhere.filter(|_| !complete) {
        return Ok(PointState::OtherDevice(device));
    }
    // A run that has trained (a study stopped while evaluating it, or a
    // point evaluated again) is only evaluated.
    if point.source == Source::Trained && elsewhere.is_none() && !complete {
        // A folder `train` did not make is refused where every run folder
        // is (`rundir::prepare`, after its lock and its repair of a killed
        // overwrite), named in the study's words.
        let train_err = |source| match source {
            LearnError::RunDir(RunDirError::NotARun { dir }) => {
                StudyError::NotAPoint { point: point.name.clone(), dir }
            }
            source => StudyError::Train { point: point.name.clone(), source: Box::new(source) },
        };
        // A run killed before its first checkpoint has nothing to resume
        // from: it starts again in place (only a run `train` made is ever
        // replaced, and only once the new one has a checkpoint).
        let existing = match (resumable, dir.exists()) {
            (true, _) => Existing::Resume,
            (false, true) => {
                eprintln!("  its run stopped before its first checkpoint: starting it again");
                Existing::Overwrite
            }
            (false, false) => Existing::Refuse,
        };
        let opts = TrainOptions {
            existing,
            command_line: format!("study --config {} (point {})", study.path.display(), point.name),
            progress,
            max_steps_this_leg: None,
            fresh_logs,
            switch_device,
        };
        let outcome = training::run(&point.config, &opts).map_err(train_err)?;
        if outcome.stopped_early {
            return Ok(PointState::Stopped);
        }
    }
    // A lost `eval.csv` leaves the point out of the loss fits, not the study.
    let loss = match held_out_loss(&dir, point.config.model.kind) {
        Ok(loss) => loss.unwrap_or(f64::NAN),
        Err(e) => {
            eprintln!("  no held-out loss ({}): the point stays out of the loss fits", crate::folder::one_line(&e));
            f64::NAN
        }
    };
    let eval = &study.config.eval;
    let input = eval_input(eval, study.testset.as_deref())
        .map_err(|source| StudyError::Solve { point: point.name.clone(), source: Box::new(source) })?;
    let widths: Vec<usize> = eval.beam_log2.iter().map(|&k| 1usize << k).collect();
    let opts = SolveOptions {
        run_dir: dir.clone(),
        checkpoint: None,
        puzzle: None,
        input,
        widths,
        exact: false,
        max_depth: None,
        dedup: true,
        metric: None,
        out_root: None,
        // An included run's folder may serve several studies: its solve is
        // labelled with this one's name.
        label: Some(match point.source {
            Source::Trained => "study-eval".into(),
            Source::Included => format!("study-eval-{}", study.config.study.name),
        }),
        overwrite: true,
        progress,
        escalate_to: 0,
        jobs: 1,
        device: None,
        matmul: Matmul::F32,
        symmetry: 1,
        kind: None,
    };
    let solved = solve::run(&opts)
        .map_err(|source| StudyError::Solve { point: point.name.clone(), source: Box::new(source) })?;
    check_table_path(&point.table)?;
    // The ledger again, under the study's lock: another shard may have
    // recorded its own point meanwhile.
    let _one_at_a_time = merge::lock_waiting(&study.dir)?;
    let mut ledger = Ledger::for_writing(&study.dir)?;
    ledger.check(&point.table)?;
    let w = &solved.widths;
    let rows = w.len();
    let each = |f: fn(&solve::WidthSummary) -> f64| Col::F64(w.iter().map(f).collect());
    let m = &point.config.model;
    let text = |v: String| Col::Str(vec![v; rows]);
    // (write_table creates the folder: an included point's is `included/`.)
    write_table(
        &point.table,
        vec![
            ("study", text(study.config.study.name.clone())),
            ("point", text(point.name.clone())),
            ("kind", text(m.kind.to_string())),
            ("hidden", text(m.hidden.iter().map(usize::to_string).collect::<Vec<_>>().join("x"))),
            ("residual_blocks", Col::U64(vec![m.residual_blocks as u64; rows])),
            ("seed", Col::U64(vec![point.config.run.seed; rows])),
            ("parameters", Col::U64(vec![point.parameters; rows])),
            ("samples", Col::U64(vec![point.samples; rows])),
            ("flops", Col::F64(vec![point.flops(); rows])),
            ("held_out_loss", Col::F64(vec![loss; rows])),
            ("width", Col::U64(w.iter().map(|w| w.summary.width as u64).collect())),
            ("instances", Col::U64(w.iter().map(|w| w.summary.instances as u64).collect())),
            ("solved_pct", each(|w| w.summary.solved_pct)),
            ("mean_length", each(|w| w.summary.mean_length)),
            ("optimal_pct", each(|w| w.summary.optimal_pct)),
            ("mean_forwards", each(|w| w.mean_forwards)),
            ("mean_elapsed_s", each(|w| w.summary.mean_elapsed_s)),
            ("evaluation", text(eval.describe())),
        ],
    )?;
    ledger.record(&point.table, Some(study.dependencies(point)))?;
    Ok(PointState::Done)
}
