//! The training loop: learning rate → batch → step → log → evaluate →
//! checkpoint, by hand and in one place.
//!
//! [`run`] owns a run directory (`runs/<name>/`): it writes the resolved
//! `config.toml` and `meta.json`, appends `metrics.csv` (every
//! `log_every` steps), `eval.csv` and `kl.csv` (every `eval_every` steps),
//! writes checkpoints atomically (every `checkpoint_every` steps, at the end,
//! and on Ctrl-C), and finally the diagnostics (`diagnostics/`) and plots
//! (`plots/`). A resumed run continues from the latest checkpoint with the
//! same data stream, model, optimiser and logging window, so its metrics
//! equal those of an uninterrupted run.

use super::checkpoint::{self, Checkpoint, LoopState};
pub use super::leg::{Evaluation, Outcome, TrainOptions};
use super::model::load_model;
use super::report;
use crate::csvlog::{Col, CsvLog};
use crate::learn::backend;
use crate::learn::config::{DeviceKind, FinetuneTargets, Matmul, ModelSection, Schedule, TrainConfig};
use crate::learn::data::{self, Batch, BatchSpec, BatchStream};
use crate::learn::error::LearnError;
use crate::learn::finetune;
use crate::learn::model::{OracleNet, forward_macs, parameter_count};
use crate::learn::objective;
use crate::puzzle::Puzzle;
use crate::registry::{AnyPuzzle, PuzzleVisitor};
use crate::rundir::{self, write_atomic};
use crate::scramble::ScrambleError;
use crate::search::OracleKind;
use burn::module::Module;
use burn::optim::grad_clipping::GradientClippingConfig;
use burn::optim::{AdamConfig, AdamWConfig, GradientsParams, ModuleOptimizer, decay::WeightDecayConfig};
use burn::tensor::{Bytes, Device, Tensor, TensorData};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

type Result<T, E = LearnError> = std::result::Result<T, E>;

/// Held while a run seeds the device generators and draws its initial weights.
pub(crate) static INIT_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Set by the Ctrl-C handler; the loop checkpoints and stops when it sees it.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);
/// A training loop is running in this process.
static TRAINING: AtomicBool = AtomicBool::new(false);

/// Checkpoint files kept in `checkpoints/`.
const KEEP_CHECKPOINTS: usize = 2;
/// Training steps whose states are counted for the visit diagnostics.
const VISIT_WINDOW: u64 = 100;
/// Rows per forward pass when evaluating.
const EVAL_CHUNK: usize = 4096;

/// This machine's memory in bytes (`MemTotal` of `/proc/meminfo`), if known.
pub(crate) fn machine_memory() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024.0)
}

/// Refuses, before anything is allocated, a CPU run whose network, batch
/// and held-out set cannot fit in memory: weights, gradients and Adam's two
/// moments (4 floats a parameter, twice for burn's working copies), each
/// layer's activations for a batch (6 floats a unit a row: forward values
/// kept for the backward pass, and their gradients), and the held-out set
/// (`train.eval_walks` × the longest walk rows, each encoded with its
/// labels, and three floats an output for its predictions and snapshots).
/// The GPU's memory is not known here and is not checked.
fn check_memory(cfg: &TrainConfig) -> Result<()> {
    if cfg.backend.device != DeviceKind::Cpu {
        return Ok(());
    }
    let Some(have) = machine_memory() else { return Ok(()) };
    let puzzle = cfg.puzzle()?;
    let (inputs, outputs) = (puzzle.encoded_len(), cfg.model.kind.outputs(puzzle.num_moves()));
    // The config's bounds keep this far below usize::MAX (at most about 5.5e11).
    let params = parameter_count(&cfg.model, inputs, outputs) as f64;
    let last = cfg.model.hidden.last().copied().unwrap_or(0) as f64;
    let units = cfg.model.hidden.iter().map(|&h| h as f64).sum::<f64>()
        + 2.0 * cfg.model.residual_blocks as f64 * last
        + (inputs + outputs) as f64;
    let rows = cfg.data.states_per_step as f64;
    let network = 4.0 * (8.0 * params + 6.0 * units * rows);
    let held_out_rows = cfg.train.eval_walks as f64 * cfg.data.scramble_len.max() as f64;
    // Per row: the encoding, the label, forward move and legal mask (22 bytes), predictions.
    let held_out = held_out_rows * (4.0 * inputs as f64 + 22.0 + 12.0 * outputs as f64);
    let need = network + held_out;
    if need <= have {
        return Ok(());
    }
    let gib = |b: f64| b / f64::from(1u32 << 30);
    let (detail, shrink) = if held_out > network {
        let detail = format!(
            "the held-out set (train.eval_walks {} × the longest walk of data.scramble_len, {}: {:.2e} states)",
            cfg.train.eval_walks,
            cfg.data.scramble_len.max(),
            held_out_rows
        );
        (detail, "train.eval_walks or data.scramble_len")
    } else {
        let detail = format!(
            "the network (model.hidden {:?}, model.residual_blocks {}: {:.2e} parameters) at data.states_per_step {}",
            cfg.model.hidden, cfg.model.residual_blocks, params, cfg.data.states_per_step
        );
        (detail, "model.hidden, model.residual_blocks or data.states_per_step")
    };
    Err(LearnError::Memory { detail, shrink, need_gib: gib(need), have_gib: gib(have) })
}

/// Asks the loop to stop at the next step boundary (what Ctrl-C does).
pub fn request_stop() {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// Ctrl-C: while a training loop runs, the first one stops it at the next
/// step boundary (checkpoint written); a second one, or one at any other
/// time (a study evaluating a point, a run setting up), ends the process at
/// once, as Ctrl-C does in a program without a handler, after removing a
/// new run that has no checkpoint yet (and putting back the run an
/// overwrite moved aside for it). Whatever else it was writing is kept or
/// recovered as after a kill.
fn on_ctrlc() {
    if TRAINING.load(Ordering::SeqCst) && !INTERRUPTED.swap(true, Ordering::SeqCst) {
        eprintln!("\nstopping at the next step (Ctrl-C again to quit at once)");
        return;
    }
    // A new run with no checkpoint yet is removed (an overwritten one put back).
    crate::rundir::abandon_pending();
    std::process::exit(130);
}

fn install_ctrlc_handler() {
    // A second call in the same process (tests) fails harmlessly.
    let _ = ctrlc::set_handler(on_ctrlc);
}

/// Marks a training loop as running while it lives (see [`on_ctrlc`]).
struct Training;

impl Training {
    fn start() -> Self {
        TRAINING.store(true, Ordering::SeqCst);
        Training
    }
}

impl Drop for Training {
    fn drop(&mut self) {
        TRAINING.store(false, Ordering::SeqCst);
    }
}

/// The learning rate for 0-based `step`.
#[must_use]
pub fn learning_rate(cfg: &TrainConfig, step: u64) -> f64 {
    let o = &cfg.optim;
    match o.schedule {
        Schedule::Constant => o.lr,
        Schedule::WarmupCosine => {
            let warm = o.warmup_steps.unwrap_or(0);
            let min = o.min_lr.unwrap_or(0.0);
            if step < warm {
                o.lr * (step + 1) as f64 / warm as f64
            } else {
                let total = cfg.total_steps().max(warm + 1);
                let t = (step - warm) as f64 / (total - warm) as f64;
                min + 0.5 * (o.lr - min) * (1.0 + (std::f64::consts::PI * t.min(1.0)).cos())
            }
        }
        Schedule::WarmupStep => {
            let warm = o.warmup_steps.unwrap_or(0);
            if step < warm {
                return o.lr * (step + 1) as f64 / warm as f64;
            }
            let total = cfg.total_steps() as f64;
            let drops = o.step_at.as_deref().unwrap_or(&[]).iter().filter(|&&f| step as f64 >= f * total).count();
            let factor = o.step_factor.unwrap_or(1.0).powi(i32::try_from(drops).unwrap_or(i32::MAX));
            (o.lr * factor).max(o.min_lr.unwrap_or(0.0))
        }
    }
}

/// The optimiser `cfg.optim` describes (Adam or AdamW, ε = 1e-8).
#[must_use]
pub fn optimizer(cfg: &TrainConfig) -> ModuleOptimizer {
    let o = &cfg.optim;
    let clip = (o.grad_clip > 0.0).then_some(GradientClippingConfig::Norm(o.grad_clip as f32));
    match o.optimizer {
        crate::learn::config::OptimizerKind::Adam => AdamConfig::new()
            .with_epsilon(1e-8)
            .with_weight_decay((o.weight_decay > 0.0).then(|| WeightDecayConfig::new(o.weight_decay as f32)))
            .with_grad_clipping(clip)
            .init(),
        crate::learn::config::OptimizerKind::Adamw => AdamWConfig::new()
            .with_epsilon(1e-8)
            .with_weight_decay(o.weight_decay as f32)
            .with_grad_clipping(clip)
            .init(),
    }
}

/// Sets the compute thread count (rayon's global pool). Only the first call
/// in a process takes effect.
pub fn set_threads(threads: Option<usize>) {
    let n = threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from));
    let _ = rayon::ThreadPoolBuilder::new().num_threads(n).build_global();
}

/// Everything the loop needs about the data.
struct DataSetup {
    puzzle: AnyPuzzle,
    spec: BatchSpec,
    held_out: Batch,
}

fn data_setup(cfg: &TrainConfig) -> Result<DataSetup> {
    let puzzle = cfg.puzzle()?;
    let spec = BatchSpec {
        length: cfg.data.scramble_len.walk_length(),
        prune: cfg.data.prune,
        walk: cfg.data.walk,
        depths: cfg.data.depths,
        size: cfg.data.states_per_step,
        seed: cfg.run.seed,
        labels: cfg.data.labels,
        pool: cfg.data.label_pool(),
    };
    let max_len = cfg.data.scramble_len.max();
    let held_out_spec = BatchSpec { seed: cfg.held_out_seed(), ..spec };
    let held_out = puzzle.visit(HeldOut { spec: &held_out_spec, walks: cfg.train.eval_walks, max_len })?;
    Ok(DataSetup { puzzle, spec, held_out })
}

/// The held-out set of the configured puzzle.
struct HeldOut<'a> {
    spec: &'a BatchSpec,
    walks: usize,
    max_len: usize,
}

impl PuzzleVisitor for HeldOut<'_> {
    type Out = Result<Batch, ScrambleError>;
    fn visit<P: Puzzle + 'static>(self, puzzle: P) -> Self::Out {
        data::held_out(&puzzle, self.spec, self.walks, self.max_len)
    }
}

/// The training batch stream of the configured puzzle.
struct Stream {
    spec: BatchSpec,
    start: u64,
    workers: usize,
}

impl PuzzleVisitor for Stream {
    type Out = Result<BatchStream, ScrambleError>;
    fn visit<P: Puzzle + 'static>(self, puzzle: P) -> Self::Out {
        BatchStream::start(puzzle, self.spec, self.start, self.workers)
    }
}

/// The end-of-run diagnostics of the configured puzzle.
struct Diagnostics<'a> {
    dir: &'a Path,
    spec: &'a BatchSpec,
    step: u64,
    snapshot: &'a [f32],
    set: &'a Batch,
    kind: OracleKind,
    moves: usize,
}

impl PuzzleVisitor for Diagnostics<'_> {
    type Out = Result<()>;
    fn visit<P: Puzzle + 'static>(self, puzzle: P) -> Self::Out {
        let policy = self.kind.is_distribution().then_some(self.snapshot);
        report::diagnostics(self.dir, &puzzle, self.spec, self.step, VISIT_WINDOW, policy, self.set, self.moves)
    }
}

/// Runs (or resumes) training as `cfg` describes: [`Leg::open`] checks the
/// request and opens the run, [`Leg::train`] runs the loop until the run's
/// end, the leg's limit or Ctrl-C, and [`Leg::finish`] writes the last
/// checkpoint, diagnostics, plots and summary.
pub fn run(cfg: &TrainConfig, opts: &TrainOptions) -> Result<Outcome> {
    let (leg, stopped_early) = Leg::open(cfg, opts)?.train(opts)?;
    leg.finish(stopped_early)
}

/// The logs a leg appends to.
struct Logs {
    metrics: CsvLog,
    eval: CsvLog,
    /// Policies only: the KL diagnostics are about move distributions.
    kl: Option<CsvLog>,
}

impl Logs {
    fn sync(&self) -> Result<()> {
        sync_logs([Some(&self.metrics), Some(&self.eval), self.kl.as_ref()])
    }
}

/// One leg of a run: its folder locked, its model, optimiser and loop state
/// new or loaded from the newest checkpoint, its logs open.
struct Leg {
    /// The config this leg trains (a resumed fine-tune keeps its source).
    cfg: TrainConfig,
    dir: PathBuf,
    /// Held until the leg is dropped: a second `train` of the same run is
    /// refused instead of writing the same files.
    _lock: crate::folder::FolderLock,
    /// A new run until its first checkpoint.
    pending: Option<rundir::Pending>,
    base: Device,
    train_device: Device,
    data: DataSetup,
    inputs: usize,
    moves: usize,
    outputs: usize,
    kind: OracleKind,
    model: OracleNet,
    optim: ModuleOptimizer,
    bellman: Option<finetune::Bellman>,
    state: LoopState,
    /// The last evaluation's predictions (the KL diagnostics' previous
    /// snapshot, and the checkpoint's).
    snapshot: Vec<f32>,
    ckpt_dir: PathBuf,
    logs: Logs,
    meta: report::Meta,
    total: u64,
    /// The step this leg stops at (`--max-steps`), at most `total`.
    stop_at: u64,
    /// When the loop started, and the samples before it.
    leg_start: Instant,
    samples_before: u64,
    /// Marks a training loop running in this process while it lives.
    running: Option<Training>,
}

impl Leg {
    /// Checks the request (device, kernels, memory), locks and prepares the
    /// run folder, builds or loads the model and optimiser, and opens the
    /// logs.
    fn open(cfg: &TrainConfig, opts: &TrainOptions) -> Result<Self> {
        // Fail on an unavailable device, an unknown kernel request or a network
        // too big for memory before touching the run directory.
        backend::check_kernel_variables()?;
        let base = backend::device_with(cfg.backend.device, cfg.backend.precision)?;
        if cfg.backend.matmul == Matmul::Bf16 {
            match cfg.backend.device {
                DeviceKind::Cpu => {
                    crate::kernels::gemm::Kernel::check_request().map_err(LearnError::Environment)?;
                    eprintln!("bf16 products on {}", super::mixed::describe());
                }
                DeviceKind::Gpu => eprintln!("bf16 products on the GPU (burn's bf16 tensors, results rounded to bf16)"),
            }
        }
        check_memory(cfg)?;
        let dir = cfg.run_dir();
        // Held until this function returns (or the process dies): a second
        // `train` of the same run is refused instead of writing the same files.
        let lock = crate::folder::lock(&dir)?;
        let rundir::Prepared { resumed, pending } = rundir::prepare(&dir, opts.existing)?;
        let config_path = dir.join("config.toml");
        let saved = if resumed { Some(check_same_run(cfg, &config_path, opts.switch_device)?) } else { None };
        // A resumed fine-tune's weights came from the source it started from
        // (copied into `init/`): its records keep that source, whatever
        // `finetune.from` the config gives now (the source may have moved).
        let kept;
        let cfg = match (&saved, &cfg.finetune) {
            (Some(s), Some(f)) if s.finetune.as_ref().is_some_and(|sf| sf.from != f.from) => {
                let mut c = cfg.clone();
                c.finetune.clone_from(&s.finetune);
                let was = s.finetune.as_ref().map_or_else(String::new, |sf| sf.from.display().to_string());
                eprintln!(
                    "finetune.from is now {}, but the run started from {was} (its weights are in init/): \
                     config.toml and meta.json keep {was}",
                    f.from.display()
                );
                kept = c;
                &kept
            }
            _ => cfg,
        };

        set_threads(cfg.train.threads);
        backend::tune_allocator();
        install_ctrlc_handler();
        INTERRUPTED.store(false, Ordering::SeqCst);

        let train_device = base.clone().autodiff();
        let d = data_setup(cfg)?;
        let moves = d.puzzle.num_moves();
        let inputs = d.puzzle.encoded_len();
        let kind = cfg.model.kind;
        let outputs = kind.outputs(moves);

        let mut model = initial_model(cfg, inputs, outputs, &base, &train_device)?;
        // A fine-tune starts from its source's weights (copied into `init/`).
        let mut start = cfg.finetune.as_ref().map(|f| finetune::start(cfg, f, &dir, resumed)).transpose()?;
        if let (Some(start), false) = (start.as_mut(), resumed) {
            let what = format!("loading the starting weights from {}", start.checkpoint.display());
            model = load_model(model, std::mem::take(&mut start.model), &what)?;
            eprintln!("fine-tuning from {} (step {})", start.checkpoint.display(), start.state.step);
        }
        let bellman = match cfg.finetune.as_ref().map(|f| f.targets) {
            Some(FinetuneTargets::Bellman) => Some(finetune::Bellman::load(cfg, &dir)?),
            Some(FinetuneTargets::Walk) | None => None,
        };
        let mut optim = optimizer(cfg);
        let ckpt_dir = dir.join("checkpoints");
        let mut state = LoopState {
            step: 0,
            samples: 0,
            elapsed_s: 0.0,
            next_batch: 0,
            seed: cfg.run.seed,
            snapshot_step: None,
            window: Default::default(),
            fingerprint: Some(checkpoint::fingerprint(cfg)),
        };
        let mut snapshot: Vec<f32> = Vec::new();
        if resumed {
            (model, optim, state, snapshot) = resume(cfg, saved.as_ref(), &dir, &ckpt_dir, model, optim)?;
        }
        let model = model.with_matmul(cfg.backend.matmul).with_ops(cfg.backend.ops());
        let header_metrics = ["step", "samples", "elapsed_s", "lr", "loss", "accuracy", "samples_per_s"];
        let header_kl =
            ["step", "cross_entropy", "kl_target_prediction", "kl_marginal_uniform", "kl_previous_snapshot"];
        let total = cfg.total_steps();
        if resumed {
            report::check_history(&dir, state.step, opts.fresh_logs)?;
        }
        // eval.csv has a row per depth of the held-out set at each evaluation.
        let depths = d.held_out.depths.iter().collect::<std::collections::BTreeSet<_>>().len();
        // The rows already logged follow the cadence and length of the leg that
        // wrote them, which `[train]` may have changed since: a log must reach
        // the last row either schedule puts at or before the checkpoint's step.
        let cadences = |every: fn(&TrainConfig) -> u64| {
            let now = (every(cfg), total);
            (now, saved.as_ref().map_or(now, |s| (every(s), s.total_steps())))
        };
        let at = |(now, before): ((u64, u64), (u64, u64)), rows: usize| {
            resumed.then_some(LogEnd { step: state.step, cadences: [now, before], rows })
        };
        let (train, held_out) = (cadences(|c| c.train.log_every), cadences(|c| c.train.eval_every));
        let metrics = open_log(&dir, "metrics.csv", &header_metrics, at(train, 1), opts.fresh_logs)?;
        let eval_log = open_log(&dir, "eval.csv", kind.eval_columns(), at(held_out, depths), opts.fresh_logs)?;
        // The KL diagnostics are about move distributions: policies only.
        let kl_log =
            kind.is_distribution().then(|| open_log(&dir, "kl.csv", &header_kl, at(held_out, 1), opts.fresh_logs));
        let kl_log = kl_log.transpose()?;

        let stop_at = opts.max_steps_this_leg.map_or(total, |n| state.step.saturating_add(n).min(total));
        // Written only now, after every check of a resume has passed: a refused
        // `--resume --switch-device` leaves the saved config naming the old device.
        write_atomic(&config_path, cfg.to_toml().as_bytes())?;
        let meta = report::Meta::new(cfg, opts, inputs, moves, resumed, state.step, start.as_ref());
        meta.write(&dir, &state, false)?;

        Ok(Self {
            cfg: cfg.clone(),
            dir,
            _lock: lock,
            pending,
            base,
            train_device,
            data: d,
            inputs,
            moves,
            outputs,
            kind,
            model,
            optim,
            bellman,
            state,
            snapshot,
            ckpt_dir,
            logs: Logs { metrics, eval: eval_log, kl: kl_log },
            meta,
            total,
            stop_at,
            leg_start: Instant::now(),
            samples_before: 0,
            running: None,
        })
    }

    /// Writes `meta.json`, the logs and a checkpoint of the state now, in
    /// that order (a leg killed between the writes leaves a history that
    /// reaches past the newest checkpoint, which a resume accepts, never one
    /// that stops short of it), and settles a new run at its first one.
    fn checkpoint(&mut self) -> Result<()> {
        self.meta.write(&self.dir, &self.state, false)?;
        self.logs.sync()?;
        save_checkpoint(&self.ckpt_dir, &self.model, &self.optim, &self.state, &self.snapshot)?;
        if let Some(new_run) = self.pending.take() {
            new_run.settle()?;
        }
        Ok(())
    }

    /// Trains until the run's last step, this leg's limit or Ctrl-C, logging,
    /// evaluating and checkpointing on the config's cadences; whether it
    /// stopped before the run's end. (The leg is taken and given back so
    /// that each step can take the model by value: the optimiser then
    /// updates parameters no other handle shares.)
    fn train(mut self, opts: &TrainOptions) -> Result<(Self, bool)> {
        let (total, stop_at, kind) = (self.total, self.stop_at, self.kind);
        let bar = progress_bar(opts.progress, total, self.state.step);
        let spec = self.data.spec;
        let workers = self.cfg.train.data_workers;
        let mut stream = self.data.puzzle.visit(Stream { spec, start: self.state.next_batch, workers })?;
        self.leg_start = Instant::now();
        let elapsed_before = self.state.elapsed_s;
        self.samples_before = self.state.samples;
        let mut last_log = (Instant::now(), self.state.samples);
        let mut stopped_early = false;
        self.running = Some(Training::start());
        while self.state.step < total {
            if self.state.step >= stop_at || INTERRUPTED.load(Ordering::SeqCst) {
                stopped_early = true;
                break;
            }
            let cfg = &self.cfg;
            let lr = learning_rate(cfg, self.state.step);
            let batch = stream.next_batch()?;
            let n = batch.len();
            // Trajectory-minimum labels and a Bellman fine-tune's bounds both
            // cap the targets: the smaller holds.
            let own = batch.bounds.clone();
            let bounds = match (self.bellman.as_mut().map(|b| b.bounds(&batch)).transpose()?, own) {
                (Some(b), Some(o)) => Some(b.min(&o)),
                (b, o) => b.or(o),
            };
            let (m, loss, correct) =
                train_step(self.model, &mut self.optim, lr, batch, bounds.as_ref(), &cfg.model, &self.train_device)?;
            self.model = m;
            let state = &mut self.state;
            state.step += 1;
            state.next_batch += 1;
            state.samples += n as u64;
            state.elapsed_s = elapsed_before + self.leg_start.elapsed().as_secs_f64();
            state.window.add(loss, correct, n as u64);
            if !loss.is_finite() {
                return Err(LearnError::Diverged { loss, step: state.step });
            }

            let last = state.step == total;
            if state.step.is_multiple_of(cfg.train.log_every) || last {
                let (now, then) = (Instant::now(), last_log);
                let rate = (state.samples - then.1) as f64 / now.duration_since(then.0).as_secs_f64().max(1e-9);
                last_log = (now, state.samples);
                let (mean_loss, acc) = state.window.take();
                self.logs.metrics.append(vec![
                    ("step", Col::U64(vec![state.step])),
                    ("samples", Col::U64(vec![state.samples])),
                    ("elapsed_s", Col::F64(vec![state.elapsed_s])),
                    ("lr", Col::F64(vec![lr])),
                    ("loss", Col::F64(vec![mean_loss])),
                    ("accuracy", Col::F64(vec![acc])),
                    ("samples_per_s", Col::F64(vec![rate])),
                ])?;
                bar.set_message(format!("loss {mean_loss:.4}  acc {:.1}%  {:.0} samples/s", acc * 100.0, rate));
            }
            if state.step.is_multiple_of(cfg.train.eval_every) || last {
                let ev = evaluate(&self.model, &self.base, &self.data.held_out, kind, self.outputs, self.inputs)?;
                let snapshot = &self.snapshot;
                let previous = (!snapshot.is_empty() && snapshot.len() == ev.probs.len()).then_some(&snapshot[..]);
                let logs = &mut self.logs;
                report::log_eval(&mut logs.eval, logs.kl.as_mut(), state.step, &ev, &self.data.held_out, previous)?;
                self.snapshot = if kind.is_distribution() { ev.probs } else { ev.predictions };
                state.snapshot_step = Some(state.step);
            }
            if state.step.is_multiple_of(cfg.train.checkpoint_every) || last {
                self.checkpoint()?;
            }
            bar.set_position(self.state.step);
        }
        bar.finish_and_clear();
        drop(stream);
        Ok((self, stopped_early))
    }

    /// Ends the leg: a checkpoint where the loop stopped early (unless Ctrl-C
    /// came before a new run's first one: then the overwrite is called off),
    /// and for a finished run the diagnostics; the plots, `meta.json` and the
    /// summary.
    fn finish(mut self, stopped_early: bool) -> Result<Outcome> {
        let interrupted = stopped_early && INTERRUPTED.load(Ordering::SeqCst);
        let (total, step) = (self.total, self.state.step);
        let samples_per_s = |leg: &Self| {
            (leg.state.samples - leg.samples_before) as f64 / leg.leg_start.elapsed().as_secs_f64().max(1e-9)
        };
        if interrupted && let Some(new_run) = self.pending.take_if(|p| p.replaces()) {
            // Ctrl-C before the new run's first checkpoint: the overwrite is
            // called off and the old run put back, never deleted for a stub.
            drop(self.running.take());
            drop(new_run);
            eprintln!("interrupted at step {step}, before the new run's first checkpoint: --overwrite called off");
            let samples_per_s = samples_per_s(&self);
            return Ok(Outcome {
                run_dir: self.dir,
                step,
                total_steps: total,
                stopped_early,
                interrupted,
                samples_per_s,
            });
        }
        if stopped_early {
            self.checkpoint()?;
            if interrupted {
                eprintln!("interrupted at step {step}: checkpoint written; continue with --resume");
            }
        }
        drop(self.running.take());
        let samples_per_s = samples_per_s(&self);
        let complete = step >= total;
        let (kind, moves, inputs, outputs) = (self.kind, self.moves, self.inputs, self.outputs);
        if complete && !self.snapshot.is_empty() {
            self.data.puzzle.visit(Diagnostics {
                dir: &self.dir,
                spec: &self.data.spec,
                step,
                snapshot: &self.snapshot,
                set: &self.data.held_out,
                kind,
                moves,
            })?;
        }
        report::plots(&self.dir, kind, moves)?;
        self.meta.write(&self.dir, &self.state, complete)?;
        let outcome =
            Outcome { run_dir: self.dir, step, total_steps: total, stopped_early, interrupted, samples_per_s };
        report::summary(
            &outcome,
            &self.state,
            parameter_count(&self.cfg.model, inputs, outputs),
            forward_macs(&self.cfg.model, inputs, outputs),
            kind,
        );
        Ok(outcome)
    }
}

/// The run's initial weights, drawn from the CPU's generator seeded with
/// `run.seed` whatever the device (so that a run starts from the same
/// weights on every device, and GPU runs can be checked against CPU runs of
/// the same seed).
fn initial_model(
    cfg: &TrainConfig,
    inputs: usize,
    outputs: usize,
    base: &Device,
    train_device: &Device,
) -> Result<OracleNet> {
    // The device generators are global to the process: seeding and drawing
    // the initial weights happen under one lock, so that two runs in one
    // process (the tests) cannot interleave their draws. burn draws weights
    // lazily, on first use; `valid()` reads every parameter, in the order
    // the forward pass would, and so draws them all here.
    let init_guard = INIT_LOCK.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    base.seed(cfg.run.seed);
    let mut model = OracleNet::new(&cfg.model, inputs, outputs, train_device);
    if cfg.backend.device != DeviceKind::Cpu {
        // Initial weights always come from the CPU's generator, so that a run
        // starts from the same weights on every device (GPU runs can then be
        // checked against CPU runs of the same seed).
        let cpu = backend::device(DeviceKind::Cpu)?;
        cpu.seed(cfg.run.seed);
        let init = OracleNet::new(&cfg.model, inputs, outputs, &cpu);
        let bytes = init.into_record().into_bytes().map_err(|e| LearnError::record("serialising the model", e))?;
        model = load_model(model, bytes.to_vec(), "moving the initial weights to the device")?;
    }
    drop(model.valid());
    drop(init_guard);
    Ok(model)
}

/// The model, optimiser, loop state and last snapshot of the newest
/// checkpoint in `ckpt_dir`, for resuming the run in `dir` as `cfg` says
/// (`saved`: the run's saved config). Removes the unfinished files a killed
/// write left; refuses a damaged checkpoint (naming an older intact one), a
/// weights-only one, one of another run, and a run longer than `cfg`'s.
fn resume(
    cfg: &TrainConfig,
    saved: Option<&TrainConfig>,
    dir: &Path,
    ckpt_dir: &Path,
    model: OracleNet,
    optim: ModuleOptimizer,
) -> Result<(OracleNet, ModuleOptimizer, LoopState, Vec<f32>)> {
    let removed = checkpoint::remove_unfinished(ckpt_dir);
    if removed > 0 {
        eprintln!("removed {removed} unfinished checkpoint file(s) a killed write left in {}", ckpt_dir.display());
    }
    let path = checkpoint::latest(ckpt_dir)?;
    let ck = match checkpoint::load(&path) {
        Err(LearnError::Checkpoint { path, reason }) => {
            let older = checkpoint::list(ckpt_dir)?
                .into_iter()
                .rev()
                .map(|(_, p)| p)
                .find(|p| *p != path && checkpoint::load(p).is_ok_and(|c| !c.optimizer.is_empty()));
            let hint = older.map_or_else(
                || "no older checkpoint is intact: start the run again with --overwrite".to_string(),
                |o| {
                    format!(
                        "the older {} is intact: move the damaged file out of checkpoints/ to resume from it",
                        o.display()
                    )
                },
            );
            return Err(LearnError::DamagedCheckpoint { path, reason, hint });
        }
        other => other?,
    };
    checkpoint::check_origin(&ck.state, cfg, &path)?;
    if ck.optimizer.is_empty() {
        return Err(LearnError::WeightsOnly { path });
    }
    let model = load_model(model, ck.model, &format!("loading the model from {}", path.display()))?;
    let optim = optim
        .from_bytes(Bytes::from_bytes_vec(ck.optimizer))
        .map_err(|e| LearnError::record(format!("loading the optimiser state from {}", path.display()), e))?;
    if ck.state.step > cfg.total_steps() {
        return Err(LearnError::ShorterThanDone {
            dir: dir.to_path_buf(),
            done: ck.state.step,
            total: cfg.total_steps(),
        });
    }
    let state = LoopState { fingerprint: Some(checkpoint::fingerprint(cfg)), ..ck.state };
    eprintln!("resuming {} from step {} ({})", dir.display(), state.step, path.display());
    // `[train]` may change on resume, to extend a run; a schedule that
    // depends on its length then continues from another point of it.
    if let Some(saved) = saved {
        let (was, now) = (learning_rate(saved, state.step), learning_rate(cfg, state.step));
        if (was - now).abs() > 1e-9 * was.abs().max(now.abs()) {
            eprintln!(
                "the run's length changed from {} to {} steps (train.steps or train.samples): the learning rate \
                 at step {} is now {now:.3e} (the saved schedule's was {was:.3e})",
                saved.total_steps(),
                cfg.total_steps(),
                state.step
            );
        }
    }
    Ok((model, optim, state, ck.snapshot))
}

/// The step of the last row a log written every `every` steps holds at a
/// checkpoint of step `step` (every run also logs its final step).
fn last_logged(step: u64, every: u64, total: u64) -> Option<u64> {
    let last = if step >= total { step } else { step - step % every.max(1) };
    (last > 0).then_some(last)
}

/// How a resumed log must end: the checkpoint's step, the log's cadence
/// and the run's length (`(every, total)`) now and as saved, and the rows
/// each logged step writes.
#[derive(Clone, Copy)]
struct LogEnd {
    step: u64,
    cadences: [(u64, u64); 2],
    rows: usize,
}

impl LogEnd {
    /// The step the log's last row must reach, if any: the earlier of the
    /// two schedules' last rows, so that a changed cadence is no gap.
    fn last(&self) -> Option<u64> {
        self.cadences.iter().map(|&(every, total)| last_logged(self.step, every, total)).min().flatten()
    }
}

/// The log `dir/file`, written every `every` steps: new, or, for a run
/// resumed at step `resume_at`, cut back to that step (the rows dropped are
/// reported). A log that cannot be resumed, or ends before the checkpoint's
/// step, stops the run, unless `fresh` starts it afresh (the old file kept
/// beside it).
fn open_log(dir: &Path, file: &str, header: &[&str], resume_at: Option<LogEnd>, fresh: bool) -> Result<CsvLog> {
    let path = dir.join(file);
    let Some(end) = resume_at else { return Ok(CsvLog::create(&path, header)?) };
    let step = end.step;
    match CsvLog::resume(&path, header, step, end.last().map(|last| (last, end.rows))) {
        Ok((log, dropped)) => {
            if let Some(torn) = dropped.torn {
                eprintln!("{file}: dropped its last line, cut off in the middle (`{torn}`)");
            }
            if dropped.after > 0 {
                eprintln!("{file}: dropped {} rows logged after the checkpoint's step {step}", dropped.after);
            }
            Ok(log)
        }
        Err(e) if fresh => {
            let (log, kept) = CsvLog::restart(&path, header)?;
            let kept = kept.map_or(String::new(), |k| format!("; the old file is kept as {}", k.display()));
            eprintln!("{file}: {e}: started afresh (--fresh-logs){kept}");
            Ok(log)
        }
        Err(source) => Err(LearnError::Log { file: file.to_string(), source }),
    }
}

/// Keys a resume may change: the leg's length and cadences (`[train]`, but
/// for the held-out set, checked apart), the backend (the device only with
/// `--switch-device`, checked apart), where the run lives (it was found
/// there) and where a fine-tune's source lives (its weights were copied
/// into `init/` at the start).
const FREE_ON_RESUME: [&str; 5] = ["train", "backend", "run.name", "run.out_dir", "finetune.from"];

/// Refuses a resume whose config differs from the saved one outside the
/// run's length and cadences (and the device, unless switching); names a
/// changed `backend.matmul` or `backend.precision`, which take effect from
/// this leg; returns the saved config.
fn check_same_run(cfg: &TrainConfig, config_path: &Path, switch_device: bool) -> Result<TrainConfig> {
    let saved = TrainConfig::load(config_path)?;
    let changed = |key: &str, given: String, was: String, rule: &'static str| LearnError::ConfigChanged {
        dir: cfg.run_dir(),
        what: format!("the given config has {key} = {given}, the run's {} has {key} = {was}", config_path.display()),
        rule,
    };
    const RULE: &str = "only the run's length and cadences in [train], where it lives, and backend.matmul and \
                        backend.precision may change between legs";
    if let Some((key, given, was)) = cfg.first_difference(&saved, &FREE_ON_RESUME) {
        return Err(changed(&key, given, was, RULE));
    }
    // The held-out walks must stay the same states for the whole run.
    let held_out = "the held-out set stays the same states for the whole run";
    if saved.held_out_seed() != cfg.held_out_seed() {
        let (given, was) = (cfg.held_out_seed().to_string(), saved.held_out_seed().to_string());
        return Err(changed("train.eval_seed (else run.seed)", given, was, held_out));
    }
    if saved.train.eval_walks != cfg.train.eval_walks {
        let (given, was) = (cfg.train.eval_walks.to_string(), saved.train.eval_walks.to_string());
        return Err(changed("train.eval_walks", given, was, held_out));
    }
    let (from, to) = (saved.backend.device, cfg.backend.device);
    if !switch_device && from != to {
        let rule = "resuming on another device needs --switch-device";
        return Err(changed("backend.device", format!("\"{}\"", to.name()), format!("\"{}\"", from.name()), rule));
    }
    if switch_device {
        if from == to {
            eprintln!("switching devices: the run is on the {} already; nothing to switch", to.name());
        } else {
            eprintln!(
                "switching devices: the run started on the {}, this leg trains on the {}",
                from.name(),
                to.name()
            );
        }
    }
    let (b, s) = (&cfg.backend, &saved.backend);
    for (key, given, was) in [
        ("backend.matmul", b.matmul.name(), s.matmul.name()),
        ("backend.precision", b.precision.name(), s.precision.name()),
    ] {
        if given != was {
            eprintln!("{key} changes from {was} to {given} for this leg (meta.json keeps each leg's)");
        }
    }
    Ok(saved)
}

/// The logs on the disk before a checkpoint: after a power cut a resume
/// finds every row up to the newest checkpoint.
fn sync_logs(logs: [Option<&CsvLog>; 3]) -> Result<()> {
    for log in logs.into_iter().flatten() {
        log.sync()?;
    }
    Ok(())
}

fn save_checkpoint(
    dir: &Path,
    model: &OracleNet,
    optim: &ModuleOptimizer,
    state: &LoopState,
    snapshot: &[f32],
) -> Result<PathBuf> {
    // `valid()` first folds the batch-norm running statistics' pending
    // update into their value; a plain record would be one update behind.
    let model_bytes =
        model.valid().into_record().into_bytes().map_err(|e| LearnError::record("serialising the model", e))?;
    let optim_bytes = optim.into_bytes().map_err(|e| LearnError::record("serialising the optimiser", e))?;
    let ck = Checkpoint {
        state: state.clone(),
        model: model_bytes.to_vec(),
        optimizer: optim_bytes.to_vec(),
        snapshot: snapshot.to_vec(),
    };
    checkpoint::save(dir, &ck, KEEP_CHECKPOINTS)
}

/// One optimisation step; returns the updated model, the batch loss and the
/// number of correctly ranked samples (the kind's rule, [`objective`]),
/// with the targets capped by `bounds` where a Bellman fine-tune gives them. It
/// reads the loss back from the device, so each call ends in a
/// synchronisation (the throughput benchmark `benches/gpu_throughput.rs`
/// times this same function).
pub fn train_step(
    model: OracleNet,
    optim: &mut ModuleOptimizer,
    lr: f64,
    batch: Batch,
    bounds: Option<&crate::learn::data::Bounds>,
    model_cfg: &ModelSection,
    device: &Device,
) -> Result<(OracleNet, f64, u64)> {
    let n = batch.len();
    let inputs = batch.inputs.len() / n.max(1);
    let mut batch = batch;
    let x = Tensor::<2>::from_data(TensorData::new(std::mem::take(&mut batch.inputs), [n, inputs]), device);
    let (loss, correct) = objective::loss(model_cfg, model.forward(x), batch, bounds, device)?;
    let loss_value = f64::from(loss.clone().detach().into_scalar::<f32>());
    let grads = GradientsParams::from_grads(loss.backward(), &model);
    Ok((optim.step(lr, model, grads), loss_value, correct))
}

/// Runs the model (in inference mode) over `set`: log-probabilities for a
/// policy (with their probabilities), raw distances for the other kinds.
pub fn evaluate(
    model: &OracleNet,
    device: &Device,
    set: &Batch,
    kind: OracleKind,
    outputs: usize,
    inputs: usize,
) -> Result<Evaluation> {
    let net = model.valid();
    let rows = set.len();
    let mut predictions = Vec::with_capacity(rows * outputs);
    for start in (0..rows).step_by(EVAL_CHUNK) {
        let end = (start + EVAL_CHUNK).min(rows);
        let x = Tensor::<2>::from_data(
            TensorData::new(set.inputs[start * inputs..end * inputs].to_vec(), [end - start, inputs]),
            device,
        );
        predictions.extend(net.predict(x, kind)?);
    }
    let probs = if kind.is_distribution() { predictions.iter().map(|&l| l.exp()).collect() } else { Vec::new() };
    Ok(Evaluation { kind, outputs, predictions, probs })
}

fn progress_bar(show: bool, total: u64, at: u64) -> ProgressBar {
    let bar = if show { ProgressBar::new(total) } else { ProgressBar::hidden() };
    if show {
        bar.set_draw_target(ProgressDrawTarget::stderr());
    }
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} steps, ETA {eta}  {msg}")
            .expect("a valid template")
            .progress_chars("=> "),
    );
    bar.set_position(at);
    bar
}

#[cfg(test)]
mod tests {
    use super::*;

    fn smoke(seed: u64, eval_seed: Option<u64>) -> TrainConfig {
        let mut cfg: TrainConfig = toml::from_str(include_str!("../../configs/smoke.toml")).unwrap();
        cfg.run.seed = seed;
        cfg.train.eval_seed = eval_seed;
        cfg
    }

    #[test]
    fn the_held_out_walks_follow_eval_seed_and_the_training_walks_run_seed() {
        let held_out = |cfg: &TrainConfig| data_setup(cfg).unwrap().held_out;
        // Two seeds scored on one set of held-out walks …
        assert_eq!(held_out(&smoke(1, Some(9))), held_out(&smoke(2, Some(9))));
        // … which is the run seed's own set when eval_seed is not given …
        assert_eq!(held_out(&smoke(9, None)), held_out(&smoke(1, Some(9))));
        // … and another set for another seed.
        assert_ne!(held_out(&smoke(1, None)).inputs, held_out(&smoke(2, None)).inputs);
        // The training walks keep the run's own seed.
        assert_eq!(data_setup(&smoke(1, Some(9))).unwrap().spec.seed, 1);
    }

    #[test]
    fn a_step_schedule_warms_up_then_drops_at_its_fractions_and_bad_steps_are_refused() {
        let mut cfg = smoke(1, None);
        assert_eq!(cfg.total_steps(), 40);
        cfg.optim.schedule = Schedule::WarmupStep;
        cfg.optim.warmup_steps = Some(4);
        cfg.optim.step_at = Some(vec![0.5, 0.75]);
        cfg.optim.step_factor = Some(0.1);
        cfg.validate().unwrap();
        let lr = |cfg: &TrainConfig, step| learning_rate(cfg, step) / cfg.optim.lr;
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        // Warm-up over 4 steps, then the peak until 50% of 40 steps, a
        // tenth until 75%, a hundredth to the end.
        for (step, want) in [(0, 0.25), (3, 1.0), (4, 1.0), (19, 1.0), (20, 0.1), (29, 0.1), (30, 0.01), (39, 0.01)] {
            assert!(close(lr(&cfg, step), want), "step {step}: {} not {want}", lr(&cfg, step));
        }
        // min_lr is the floor.
        cfg.optim.min_lr = Some(0.05 * cfg.optim.lr);
        cfg.validate().unwrap();
        assert!(close(lr(&cfg, 30), 0.05) && close(lr(&cfg, 20), 0.1));
        let refused = |f: &dyn Fn(&mut TrainConfig), key: &str, rule: &str| {
            let mut bad = cfg.clone();
            f(&mut bad);
            let e = bad.validate().unwrap_err().to_string();
            assert!(e.contains(key) && e.contains(rule), "{key}: {e}");
        };
        refused(&|c| c.optim.step_at = Some(vec![0.75, 0.5]), "`optim.step_at` ([0.75, 0.5])", "increasing");
        refused(&|c| c.optim.step_at = Some(vec![1.0]), "`optim.step_at` ([1.0])", "each in (0, 1)");
        refused(&|c| c.optim.step_at = Some(vec![]), "`optim.step_at` ([])", "1 to 16");
        refused(&|c| c.optim.step_at = None, "`optim.step_at` (missing)", "required");
        refused(&|c| c.optim.step_factor = Some(1.5), "`optim.step_factor` (1.5)", "must be in (0, 1)");
        refused(&|c| c.optim.step_factor = Some(f64::NAN), "`optim.step_factor` (NaN)", "must be in (0, 1)");
        refused(&|c| c.optim.step_factor = None, "`optim.step_factor` (missing)", "required");
        refused(&|c| c.optim.schedule = Schedule::WarmupCosine, "`optim.step_at`", "only used by");
        refused(&|c| c.optim.warmup_steps = None, "`optim.warmup_steps` (missing)", "warmup-step");
    }
}
