//! `solve`: beam search with a trained oracle over the instances of the
//! run's puzzle (the 3×3×3 or 2×2×2 cube or a sliding puzzle, whichever
//! the run's config names), every solution verified by replaying it, and
//! the per-instance, per-depth and per-width tables and the scaling and entropy plots
//! written under `<run>/solve/<label>/`. The classical searches live in
//! [`classical`]; both load instances through [`input`] and write the
//! result schema of [`record`].

pub mod boards;
pub mod bounds;
pub mod classical;
pub mod distances;
pub mod error;
pub mod exact;
pub mod figures;
pub mod front;
pub mod heuristics;
pub mod input;
pub mod local;
pub mod parberry;
pub mod provenance;
pub mod published;
pub mod record;
pub mod testsets;
mod tsv;
pub mod widths;

use crate::csvlog::{Col, write_table};
use crate::cube3::{Metric, Turn, notation};
use crate::folder::{self, IfExists, Output};
use crate::learn::config::{DeviceKind, Matmul, TrainConfig};
use crate::learn::error::LearnError;
use crate::learn::inference::NetOracle;
use crate::puzzle::{MoveId, Puzzle, replay};
use crate::registry::PuzzleKind;
use crate::search::symmetric::{Mean, SymmetricOracle, Transform};
use crate::search::{
    BeamConfig, BeamOutcome, Oracle, OracleKind, SearchError, Status, beam_search_until, effective_branching_factor,
};
use crate::statistics::pearson;
use error::{SolveError, invalid};
use front::{FrontEnd, FrontVisitor};
use indicatif::{ProgressBar, ProgressStyle};
use input::{Case, Input};
use published::{Published, PublishedRow};
use record::{Producer, Record, Summary};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What `solve` was asked to do.
#[derive(Clone, Debug)]
pub struct SolveOptions {
    /// The trained run.
    pub run_dir: PathBuf,
    /// A checkpoint other than the run's newest.
    pub checkpoint: Option<PathBuf>,
    /// The puzzle the caller expects the run to solve, if stated.
    pub puzzle: Option<PuzzleKind>,
    /// The instances, of the puzzle the run was trained on.
    pub input: Input,
    /// Beam widths, increasing.
    pub widths: Vec<usize>,
    /// Instead of a plain sweep: the exact-truth report ([`exact`]) on a
    /// uniform sample of `Input::Random` positions.
    pub exact: bool,
    /// Depth limit; `None` for the run's default ([`default_max_depth`]).
    pub max_depth: Option<usize>,
    /// Deduplicate beam states.
    pub dedup: bool,
    /// Cube metric the caller expects the model to use, if stated.
    pub metric: Option<Metric>,
    /// Parent folder of the output folder (default `<run>/solve`).
    pub out_root: Option<PathBuf>,
    /// Output folder name (default from the input, widths and dedup).
    pub label: Option<String>,
    /// Replace an existing output folder.
    pub overwrite: bool,
    /// Draw a progress bar.
    pub progress: bool,
    /// For a single instance: double the width after an unsolved search
    /// until this width (0 or any width at most the last one: never).
    pub escalate_to: usize,
    /// Instances searched at once, each by its own worker thread with its
    /// own copy of the network (1: one at a time).
    pub jobs: usize,
    /// Device that evaluates the network (default: the CPU).
    pub device: Option<DeviceKind>,
    /// The hidden layers' products in every forward of the network
    /// (`--matmul`; [`NetOracle::with_matmul`]): f32, bf16 operands with
    /// f32 sums, or int8 (8-bit weights, 7-bit activations) on the CPU.
    pub matmul: Matmul,
    /// Symmetric ensemble size K (cube3 only; 1 = off): the network is
    /// averaged over the K symmetries of [`crate::cube3::symmetry::ensemble`],
    /// K forwards per state evaluated.
    pub symmetry: usize,
    /// The oracle kind the caller expects the run to be (`--kind`); the
    /// search always follows the run's own `model.kind`.
    pub kind: Option<OracleKind>,
}

/// A second length measure of a puzzle's solutions, written beside
/// `length` (the cube: the other metric).
pub struct OtherMetric<'a> {
    /// Its column in `instances.csv`.
    column: &'static str,
    /// The names of the puzzle's own metric and of this one (console).
    units: (&'static str, &'static str),
    /// The length of a path in it.
    len: PathLength<'a>,
}

/// A length measure of move paths.
type PathLength<'a> = Box<dyn Fn(&[MoveId]) -> usize + 'a>;

/// One instance at one width.
struct Row<K> {
    inst: usize,
    record: Record,
    out: BeamOutcome<K>,
}

impl<K> Row<K> {
    fn mean_entropy(&self) -> f64 {
        let d = &self.out.depths;
        d.iter().map(|s| s.entropy).sum::<f64>() / d.len().max(1) as f64
    }
}

/// The depth limit of beam search with a run's oracle when none is given,
/// as the run's puzzle sets it ([`front::FrontEnd::default_max_depth`]):
/// 40 moves for the cubes, twice the run's longest training walk for the
/// sliding puzzles.
///
/// # Errors
/// A config whose puzzle cannot be built.
pub fn default_max_depth(config: &TrainConfig) -> Result<usize, SolveError> {
    struct Depth<'a>(&'a TrainConfig);
    impl FrontVisitor for Depth<'_> {
        type Out = usize;
        fn visit<P: FrontEnd>(self, puzzle: P) -> usize {
            puzzle.default_max_depth(self.0)
        }
    }
    Ok(front::visit(config.puzzle()?, Depth(config)))
}

/// How many instances `input` names for a run trained as `config` says,
/// reading them as a solve would (a test set of another puzzle, an
/// unreadable file or a bad instance is refused the same way).
///
/// # Errors
/// What a solve of `input` with such a run would refuse.
pub fn instance_count(config: &TrainConfig, input: &Input) -> Result<usize, SolveError> {
    struct Count<'a>(&'a Input, crate::sliding::Goal);
    impl FrontVisitor for Count<'_> {
        type Out = Result<usize, SolveError>;
        fn visit<P: FrontEnd>(self, puzzle: P) -> Self::Out {
            Ok(puzzle.instances(self.0, Some(&self.1))?.1.0.len())
        }
    }
    let goal = config.goal()?.unwrap_or_default();
    front::visit(config.puzzle()?, Count(input, goal))
}

/// What an oracle sweep measured, as written to its output folder.
#[derive(Clone, Debug)]
pub struct Solved {
    /// The committed output folder (`instances.csv`, `summary.csv`, …).
    pub dir: PathBuf,
    /// Every instance's record at every width, in the order of the tables.
    pub records: Vec<Record>,
    /// One row per width, as `summary.csv` holds it.
    pub widths: Vec<WidthSummary>,
}

/// One width of a [`Solved`] sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct WidthSummary {
    /// The figures every method reports (solved share, lengths, nodes, time).
    pub summary: Summary,
    /// Network forwards per instance (ensemble members counted).
    pub mean_forwards: f64,
}

/// The oracle `solve` uses without `--run`: the best shipped one (reference
/// v2, a Q-distance oracle; see runs/README.md), as a path in a checkout.
pub const DEFAULT_RUN: &str = "runs/cube3-q-long";

/// The widest beam one instance is retried at ([`escalation`]).
pub const ESCALATE_TO: usize = 1 << 14;

/// The shipped default oracle: [`DEFAULT_RUN`] under the working
/// directory, else under the checkout the running executable lies in
/// (`target/release/solve` is two folders below it), else the relative
/// path (whose absence the search then reports).
#[must_use]
pub fn default_run() -> PathBuf {
    let local = PathBuf::from(DEFAULT_RUN);
    if local.exists() {
        return local;
    }
    let exe = std::env::current_exe().ok().and_then(|e| std::fs::canonicalize(e).ok());
    exe.iter()
        .flat_map(|e| e.ancestors().skip(1).take(4))
        .map(|dir| dir.join(DEFAULT_RUN))
        .find(|run| run.join("config.toml").is_file())
        .unwrap_or(local)
}

/// The escalation of a sweep of `input`: one instance searched without
/// widths given (`widths_given` false) is retried at doubled widths up to
/// [`ESCALATE_TO`] until solved; anything else is searched at its widths
/// only (0).
#[must_use]
pub fn escalation(input: &Input, widths_given: bool) -> usize {
    if input.is_single() && !widths_given { ESCALATE_TO } else { 0 }
}

/// Runs `solve`: the oracle sweep (or `exact`), its tables written and the
/// folder committed; returns what it measured. Says on stderr where bf16
/// products run.
///
/// # Errors
/// A request that breaks a rule (each naming its flag and value), a run
/// that cannot be loaded, a search or a table that fails.
pub fn run(opts: &SolveOptions) -> Result<Solved, SolveError> {
    if let Some(d) = opts.max_depth {
        bounds::oracle_depth(d)?;
    }
    if matches!(opts.device, Some(DeviceKind::Gpu)) && !cfg!(feature = "gpu") {
        return Err(invalid!(
            "--device gpu",
            "the GPU needs a binary built with `--features gpu`; this build has the CPU backend only"
        ));
    }
    if opts.matmul == Matmul::Bf16 && matches!(opts.device, None | Some(DeviceKind::Cpu)) {
        let route = crate::learn::inference::Bf16Route::resolve().map_err(LearnError::Environment)?;
        eprintln!("bf16 products on {}", route.describe());
    }
    crate::learn::backend::check_kernel_variables()?;
    // Held while the run's oracle is read and searched with: `train` cannot
    // resume or replace the run meanwhile (nor start while it is held).
    // (A run that `train` is just creating is no run yet, but is locked.)
    let _in_use = opts.run_dir.is_dir().then(|| folder::lock_shared(&opts.run_dir)).transpose()?;
    // Wide beams free and reallocate large network buffers at every depth:
    // kept in the process, they are not faulted in afresh (12.9% of a
    // search at 2^14 went to page faults before;
    // docs/notes/2026-11-25-solve-profile.md).
    crate::learn::backend::tune_allocator();
    let oracle = NetOracle::load(&opts.run_dir, opts.checkpoint.as_deref(), opts.device)?.with_matmul(opts.matmul)?;
    // Where the integers are multiplied depends on the network too (AMX
    // tiles take whole rows of 64 inputs), so it is said once it is built.
    if let Some(unit) = oracle.int8_unit() {
        eprintln!("int8 products on {unit}");
    }
    let trained = oracle.config.puzzle()?;
    if let Some(kind) = opts.puzzle
        && kind != trained.kind()
    {
        return Err(invalid!(
            format!("--puzzle {kind}"),
            "the run {} was trained on {}",
            opts.run_dir.display(),
            trained.kind()
        ));
    }
    let kind = oracle.config.model.kind;
    if let Some(wanted) = opts.kind
        && wanted != kind
    {
        return Err(invalid!(
            format!("--kind {wanted}"),
            "the run {} was trained as model.kind = \"{kind}\", whose search is the {kind} beam",
            opts.run_dir.display()
        ));
    }
    if opts.symmetry != 1 {
        let k = format!("--symmetry {}", opts.symmetry);
        ensemble(opts.symmetry)?;
        if opts.exact {
            return Err(invalid!(k, "the symmetric ensemble applies to the sweep, not to solve exact"));
        }
    }
    if opts.exact {
        return exact::run(opts, oracle, &trained);
    }
    front::visit(trained, OracleSweep { opts, oracle })
}

/// The sweep of [`run`] on the run's puzzle.
struct OracleSweep<'a> {
    opts: &'a SolveOptions,
    oracle: NetOracle,
}

impl FrontVisitor for OracleSweep<'_> {
    type Out = Result<Solved, SolveError>;
    fn visit<P: FrontEnd>(self, puzzle: P) -> Self::Out {
        let OracleSweep { opts, oracle } = self;
        // Boards must share the goal the oracle was trained for.
        let goal = oracle.config.goal()?.unwrap_or_default();
        let (puzzle, loaded) = puzzle.instances(&opts.input, Some(&goal))?;
        let other = puzzle.other_metric(opts.metric, oracle.num_moves())?;
        match puzzle.ensemble(opts.symmetry)? {
            Some(t) => sweep_with(&puzzle, oracle, t, loaded, opts, other.as_ref(), Extras::none()),
            None => sweep(&puzzle, oracle, loaded, opts, other.as_ref(), Extras::none()),
        }
    }
}

/// A cube model's solutions measured in the other metric (a QTM model's
/// also in HTM, and the other way round), after checking that the metric
/// the caller asked for, if any, is the model's. Move `m` is `turn(m)`.
pub(super) fn cube_lengths<'a>(
    wanted: Option<Metric>,
    metric: Metric,
    moves: usize,
    turn: impl Fn(MoveId) -> Turn + 'a,
) -> Result<OtherMetric<'a>, SolveError> {
    if let Some(m) = wanted
        && m != metric
    {
        return Err(invalid!(format!("--metric {m}"), "the run's model was trained in {metric} ({moves} moves)"));
    }
    let other_is_htm = metric == Metric::Qtm;
    Ok(OtherMetric {
        column: if other_is_htm { "length_htm" } else { "length_qtm" },
        units: if other_is_htm { ("QTM", "HTM") } else { ("HTM", "QTM") },
        len: Box::new(move |path: &[MoveId]| {
            let turns: Vec<Turn> = path.iter().map(|&m| turn(m)).collect();
            if other_is_htm { notation::htm_len(&turns) } else { notation::qtm_len(&turns) }
        }),
    })
}

/// What a sweep writes besides its own tables, into the output folder
/// before it is committed (see [`exact`]).
type MoreTables<'a> = dyn Fn(&Path) -> Result<(), SolveError> + 'a;

fn no_more_tables(_: &Path) -> Result<(), SolveError> {
    Ok(())
}

/// What a caller adds to a sweep: `more` tables, and the output folder
/// when it claimed it before its own long work (see [`exact`]).
pub(super) struct Extras<'a> {
    more: &'a MoreTables<'a>,
    claimed: Option<Output>,
}

impl<'a> Extras<'a> {
    /// Nothing: the sweep's own tables, in a folder it claims itself.
    fn none() -> Self {
        Self { more: &no_more_tables, claimed: None }
    }

    /// `more` tables, written into the folder `claimed` beforehand.
    pub(super) fn with(more: &'a MoreTables<'a>, claimed: Output) -> Self {
        Self { more, claimed: Some(claimed) }
    }
}

/// The `k` symmetries of `solve --symmetry k` as the ensemble's transforms
/// (one-hot gather, move map in `metric`), the identity first.
pub(super) fn cube_symmetries(k: usize, metric: Metric) -> Result<Vec<Transform>, SolveError> {
    Ok(ensemble(k)?.iter().map(|s| Transform { input: s.encoding_gather(), moves: s.move_map(metric) }).collect())
}

/// The cube symmetries of `--symmetry k`, or the error naming the flag.
fn ensemble(k: usize) -> Result<Vec<&'static crate::cube3::symmetry::Symmetry>, SolveError> {
    crate::cube3::symmetry::ensemble(k)
        .map_err(|_| invalid!(format!("--symmetry {k}"), "must be one of 1, 2, 4, 8, 16, 24, 48 (1 = off)"))
}

/// The width-by-width sweep of [`run`] on one puzzle; `extras` adds its
/// tables to the output folder before the folder is committed.
fn sweep<P: Puzzle>(
    puzzle: &P,
    oracle: NetOracle,
    loaded: input::Loaded<P::State>,
    opts: &SolveOptions,
    other: Option<&OtherMetric>,
    extras: Extras,
) -> Result<Solved, SolveError> {
    let len = u32::try_from(puzzle.encoded_len()).unwrap_or(u32::MAX);
    let identity =
        Transform { input: (0..len).collect(), moves: (0..puzzle.num_moves()).map(|m| m as MoveId).collect() };
    sweep_with(puzzle, oracle, vec![identity], loaded, opts, other, extras)
}

/// Claims the sweep's output folder: `--label`'s, or one named after the
/// input (`default_label`), the widths, and what changes the results
/// (no dedup, a symmetric ensemble of `symmetry` members, and for one
/// instance the checkpoint, depth limit, products and device, and the run
/// when the folder is not under the run's own `solve/`).
///
/// # Errors
/// The folder exists and may not be replaced, or cannot be locked.
fn claim_output(opts: &SolveOptions, default_label: &str, symmetry: usize) -> Result<Output, SolveError> {
    let dedup_tag = if opts.dedup { "" } else { "-nodedup" };
    let sym_tag = if symmetry > 1 { format!("-sym{symmetry}") } else { String::new() };
    // A label the tool chose for one instance names that instance on this
    // oracle: solving it again replaces the earlier result. Chosen labels
    // and test-set sweeps keep the --overwrite rule.
    let single = opts.input.is_single();
    let if_exists = IfExists::overwrite(opts.overwrite || (single && opts.label.is_none()));
    let label = match &opts.label {
        Some(l) => l.clone(),
        None => {
            let w = match (opts.widths.first(), opts.widths.last()) {
                (Some(a), Some(b)) if a != b => format!("w{}..{}", a.trailing_zeros(), b.trailing_zeros()),
                (Some(a), _) => format!("w{a}"),
                _ => String::new(),
            };
            // One instance solved with other settings that change its
            // result gets a folder of its own, not the other's.
            let device = opts.device.filter(|&d| d != DeviceKind::Cpu);
            // Under the run's own `solve/` the folder names its oracle;
            // a folder given with --out may hold several runs' results.
            let run = opts
                .out_root
                .as_ref()
                .map(|_| std::fs::canonicalize(&opts.run_dir).unwrap_or_else(|_| opts.run_dir.clone()));
            let settings = (&opts.checkpoint, opts.max_depth, opts.matmul, device, run);
            let defaults = (&None, None, Matmul::F32, None, None);
            let settings_tag = if single && settings != defaults {
                format!("-s{:08x}", crate::checksum::fnv1a(format!("{settings:?}").as_bytes()) & 0xffff_ffff)
            } else {
                String::new()
            };
            folder::sanitize(&format!("{default_label}-{w}{dedup_tag}{sym_tag}{settings_tag}"))
        }
    };
    let root = opts.out_root.clone().unwrap_or_else(|| opts.run_dir.join("solve"));
    Ok(Output::claim(&root, &label, "--label", if_exists)?)
}

/// [`sweep`] with the network averaged over `transforms` (a symmetric
/// ensemble; the identity alone evaluates the network as it is).
fn sweep_with<P: Puzzle>(
    puzzle: &P,
    oracle: NetOracle,
    transforms: Vec<Transform>,
    (cases, default_label): input::Loaded<P::State>,
    opts: &SolveOptions,
    other: Option<&OtherMetric>,
    Extras { more, claimed }: Extras,
) -> Result<Solved, SolveError> {
    let max_depth = match opts.max_depth {
        Some(d) => d,
        None => default_max_depth(&oracle.config)?,
    };
    let symmetry = transforms.len();
    check_beam_memory::<P>(opts, puzzle.num_moves(), max_depth, cases.len())?;
    let about = provenance::describe(opts, &oracle, cases.len(), max_depth, symmetry);
    let oracle = SymmetricOracle::new(oracle, transforms, Mean::Arithmetic)?;
    let kind = oracle.kind();
    let output = match claimed {
        Some(output) => output,
        None => claim_output(opts, &default_label, symmetry)?,
    };
    let out_dir = output.dir().to_path_buf();
    let mut meta = provenance::SweepMeta::start(&out_dir, about)?;
    let run_name = opts.run_dir.file_name().map_or_else(|| "run".into(), |n| n.to_string_lossy().to_string());
    let by = Producer { puzzle: puzzle.name(), method: "beam".into(), heuristic: format!("oracle:{run_name}") };

    let bar = progress_bar(opts.progress, cases.len() * opts.widths.len(), "solves");
    let jobs = opts.jobs.clamp(1, cases.len().max(1));
    // One oracle per worker, cloned from the one loaded.
    let mut oracles = vec![oracle; jobs];
    let mut rows = Vec::new();
    let mut wall_s = Vec::new();
    let mut widths = opts.widths.clone();
    let mut k = 0;
    let tables = Tables { dir: &out_dir, by: &by, cases: &cases, other, symmetry, kind, matmul: opts.matmul };
    while k < widths.len() {
        let width = widths[k];
        k += 1;
        let cfg = BeamConfig { width, max_depth, dedup: opts.dedup, prune: true, record_beams: false };
        let t = Instant::now();
        rows.extend(solve_all(puzzle, &mut oracles, &cases, &cfg, &bar)?);
        wall_s.push(t.elapsed().as_secs_f64());
        // Widen until solved: only for one instance, when asked and when
        // the widths were not given explicitly.
        if k == widths.len()
            && width < opts.escalate_to
            && cases.len() == 1
            && rows.last().is_some_and(|r: &Row<P::Key>| r.record.status != Status::Solved)
        {
            eprintln!("width {width}: not solved; retrying with width {}", width * 2);
            widths.push(width * 2);
        }
        // Every finished width is on disk before the next starts, so a long
        // sweep that is cut short keeps what it measured.
        if k < widths.len() {
            tables.write(&rows, &widths[..k], &wall_s, false)?;
            meta.update(&widths[..k], &wall_s, false)?;
            if !opts.progress && cases.len() > 1 {
                eprintln!("width {width}: done ({} instances); tables written", cases.len());
            }
        }
    }
    bar.finish_and_clear();
    let summaries = tables.write(&rows, &widths, &wall_s, true)?;
    meta.update(&widths, &wall_s, true)?;
    more(&out_dir)?;
    let dir = output.commit()?;
    Ok(Solved { dir, records: rows.into_iter().map(|r| r.record).collect(), widths: summaries })
}

/// Refuses, before anything is written, a sweep whose widest beam (the
/// escalation's included) times its workers would not fit in this
/// machine's memory ([`crate::search::beam::memory_bytes`]).
fn check_beam_memory<P: Puzzle>(
    opts: &SolveOptions,
    moves: usize,
    max_depth: usize,
    cases: usize,
) -> Result<(), SolveError> {
    let Some(memory) = crate::learn::training::machine_memory() else { return Ok(()) };
    let widest = opts.widths.iter().copied().chain([opts.escalate_to]).max().unwrap_or(1);
    let jobs = opts.jobs.clamp(1, cases.max(1));
    let one = crate::search::beam::memory_bytes(
        widest,
        max_depth,
        moves,
        std::mem::size_of::<P::State>(),
        std::mem::size_of::<P::Key>(),
    );
    let need = one.saturating_mul(jobs as u64);
    if need as f64 > memory {
        let gib = |b: f64| format!("{:.1} GiB", b / f64::from(1u32 << 30));
        return Err(invalid!(
            format!("a beam of width {widest} with --jobs {jobs}"),
            "needs about {} ({} per worker, {max_depth} deep), more than this machine's {}: use a narrower \
             width or fewer --jobs",
            gib(need as f64),
            gib(one as f64),
            gib(memory)
        ));
    }
    Ok(())
}

/// What the bar says once a worker has failed and the others finish the
/// search each is on.
const STOPPING: &str = "a search failed: stopping the others at their next depth";

/// A progress bar over `total` `unit`s (hidden unless `on`), for the
/// learned and the classical searches alike.
pub(crate) fn progress_bar(on: bool, total: usize, unit: &str) -> ProgressBar {
    let bar = if on { ProgressBar::new(total as u64) } else { ProgressBar::hidden() };
    bar.set_style(
        ProgressStyle::with_template(&format!(
            "{{elapsed_precise}} [{{bar:30}}] {{pos}}/{{len}} {unit}, ETA {{eta}}  {{msg}}"
        ))
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    bar
}

/// Searches every instance at one width, `oracles.len()` at a time, and
/// verifies each solution by replaying it. Rows come back in instance
/// order whatever the number of workers.
fn solve_all<P: Puzzle, O: Oracle + Send>(
    puzzle: &P,
    oracles: &mut [O],
    cases: &[Case<P::State>],
    cfg: &BeamConfig,
    bar: &ProgressBar,
) -> Result<Vec<Row<P::Key>>, SolveError> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let stop = std::sync::atomic::AtomicBool::new(false);
    // A worker that fails hands out the rest of the cases to nobody, and the
    // others give up their current search at its next depth instead of
    // finishing it and the width; the bar says so while they stop.
    let stop_all = |e: SolveError| {
        next.store(cases.len(), std::sync::atomic::Ordering::Relaxed);
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        bar.set_message(STOPPING);
        e
    };
    let work = |oracle: &mut O| -> Result<Vec<Row<P::Key>>, SolveError> {
        let mut rows = Vec::new();
        loop {
            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let Some(case) = cases.get(i) else { return Ok(rows) };
            let t = Instant::now();
            let out = match beam_search_until(puzzle, oracle, &case.state, cfg, &stop) {
                Ok(out) => out,
                // Another worker's error is the sweep's: this one just stops.
                Err(SearchError::Stopped) => return Ok(rows),
                Err(e) => return Err(stop_all(e.into())),
            };
            let elapsed_s = t.elapsed().as_secs_f64();
            let solution = match &out.solution {
                Some(path) => {
                    let names: Vec<&str> = path.iter().map(|&m| puzzle.move_name(m)).collect();
                    if !replay(puzzle, &case.state, path).is_some_and(|s| puzzle.is_goal(&s)) {
                        return Err(stop_all(SolveError::WrongSolution {
                            method: "beam".into(),
                            id: case.id.clone(),
                            solution: names.join(" "),
                        }));
                    }
                    names.join(" ")
                }
                None => String::new(),
            };
            let length = out.solution.as_ref().map(Vec::len);
            // A solution shorter than the set's optimum proves the set wrong:
            // the sweep stops now, not after the width.
            if let (Some(length), Some(optimal)) = (length, case.optimal)
                && length < optimal as usize
            {
                return Err(stop_all(SolveError::BelowOptimal { id: case.id.clone(), length, optimal }));
            }
            // Beam search generates every candidate and expands every beam
            // state (one oracle evaluation each).
            let record = Record {
                width: cfg.width,
                id: case.id.clone(),
                status: if length.is_some() { Status::Solved } else { Status::Exhausted },
                solution,
                length,
                optimal: case.optimal,
                generated: out.generated,
                expanded: out.expanded,
                elapsed_s,
                ebf: length.and_then(|d| effective_branching_factor(out.generated, d)),
            };
            rows.push(Row { inst: i, record, out });
            bar.inc(1);
        }
    };
    let mut rows: Vec<Row<P::Key>> = if oracles.len() == 1 {
        work(&mut oracles[0])?
    } else {
        let results: Vec<Result<Vec<Row<P::Key>>, SolveError>> = std::thread::scope(|scope| {
            // Each worker runs its matrix products on a one-thread pool of
            // its own: sharing the global pool, the workers' products queue
            // behind each other (measured: 1.24x with two workers against
            // 1.65x for two processes).
            let handles: Vec<_> = oracles
                .iter_mut()
                .map(|o| {
                    scope.spawn(|| match rayon::ThreadPoolBuilder::new().num_threads(1).build() {
                        Ok(pool) => pool.install(|| work(o)),
                        Err(e) => Err(SolveError::Worker(format!("starting its thread pool: {e}"))),
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|_| Err(SolveError::Worker("it panicked".into()))))
                .collect()
        });
        let mut all = Vec::new();
        for r in results {
            all.extend(r?);
        }
        all
    };
    rows.sort_by_key(|r| r.inst);
    Ok(rows)
}

/// Where and how a sweep's tables are written.
struct Tables<'a, S> {
    dir: &'a Path,
    by: &'a Producer,
    cases: &'a [Case<S>],
    other: Option<&'a OtherMetric<'a>>,
    /// Symmetric ensemble size: network forwards per state evaluated.
    symmetry: usize,
    /// The oracle's kind (the search it ran).
    kind: OracleKind,
    /// The precision of the network's products.
    matmul: Matmul,
}

impl<S> Tables<'_, S> {
    /// Writes `instances.csv`, `depths.csv`, `summary.csv`, for the cube in
    /// QTM `scaling.csv`, and the plots; with `report`, prints the results.
    /// Returns the summary of each width.
    fn write<K>(
        &self,
        rows: &[Row<K>],
        widths: &[usize],
        wall_s: &[f64],
        report: bool,
    ) -> Result<Vec<WidthSummary>, SolveError> {
        let records: Vec<Record> = rows.iter().map(|r| r.record.clone()).collect();
        let mut extra = vec![
            ("beam_nodes", Col::U64(rows.iter().map(|r| r.out.beam_nodes).collect())),
            ("forwards", Col::U64(rows.iter().map(|r| r.out.forwards * self.symmetry as u64).collect())),
            ("mean_beam_entropy", Col::F64(rows.iter().map(Row::mean_entropy).collect())),
            ("start_kl_uniform", Col::F64(rows.iter().map(|r| r.out.start_kl_uniform).collect())),
        ];
        if let Some(o) = self.other {
            let len = |r: &Row<K>| r.out.solution.as_deref().map(|p| (o.len)(p) as u64);
            extra.insert(0, (o.column, Col::OptU64(rows.iter().map(len).collect())));
        }
        record::write_instances(&self.dir.join("instances.csv"), self.by, &records, extra)?;
        self.write_depths(rows)?;

        // One summary per width.
        let mut summaries: Vec<Summary> = Vec::new();
        let mut pearsons = Vec::new();
        let mut beam_nodes = Vec::new();
        let mut forwards = Vec::new();
        for &w in widths {
            let rs: Vec<&Row<K>> = rows.iter().filter(|r| r.record.width == w).collect();
            summaries.push(record::summarize(w, &rs.iter().map(|r| &r.record).collect::<Vec<_>>()));
            let solved: Vec<&&Row<K>> = rs.iter().filter(|r| r.record.length.is_some()).collect();
            let lens: Vec<f64> = solved.iter().filter_map(|r| r.record.length).map(|l| l as f64).collect();
            let ent: Vec<f64> = solved.iter().map(|r| r.mean_entropy()).collect();
            pearsons.push(pearson(&lens, &ent).unwrap_or(f64::NAN));
            beam_nodes.push(rs.iter().map(|r| r.out.beam_nodes as f64).sum::<f64>() / rs.len().max(1) as f64);
            let f = rs.iter().map(|r| r.out.forwards as f64).sum::<f64>() / rs.len().max(1) as f64;
            forwards.push(f * self.symmetry as f64);
        }
        let n = self.cases.len().max(1) as f64;
        let extra = |summaries: &[Summary]| -> Vec<(&str, Col)> {
            vec![
                ("kind", Col::Str(vec![self.kind.name().to_string(); summaries.len()])),
                ("symmetry", Col::U64(vec![self.symmetry as u64; summaries.len()])),
                ("mean_forwards", Col::F64(forwards.clone())),
                ("beam_log2", Col::F64(summaries.iter().map(|s| (s.width as f64).log2()).collect())),
                ("mean_beam_nodes", Col::F64(beam_nodes.clone())),
                ("entropy_length_pearson", Col::F64(pearsons.clone())),
                ("wall_s_per_instance", Col::F64(wall_s.iter().map(|w| w / n).collect())),
                ("matmul", Col::Str(vec![self.matmul.name().to_string(); summaries.len()])),
            ]
        };
        record::write_summary(&self.dir.join("summary.csv"), self.by, &summaries, extra(&summaries))?;
        let reference = published::for_puzzle(&self.by.puzzle);
        if let Some(table) = reference {
            let mut scaling = record::summary_columns(self.by, &summaries);
            scaling.extend(extra(&summaries));
            let col = |f: fn(&PublishedRow) -> f64| {
                Col::F64(summaries.iter().map(|s| table.at(s.width).map_or(f64::NAN, f)).collect())
            };
            scaling.push(("efficientcube_mean_length", col(|r| r.mean_length)));
            scaling.push(("efficientcube_optimal_pct", col(|r| r.optimal_pct)));
            scaling.push(("efficientcube_s_per_instance", col(|r| r.s_per_instance)));
            write_table(&self.dir.join("scaling.csv"), scaling)?;
        }
        if report {
            self.report(rows, &summaries, wall_s);
        }
        self.plots(rows, &summaries, &pearsons, reference)?;
        Ok(summaries
            .into_iter()
            .zip(forwards)
            .map(|(summary, mean_forwards)| WidthSummary { summary, mean_forwards })
            .collect())
    }

    fn write_depths<K>(&self, rows: &[Row<K>]) -> Result<(), SolveError> {
        let d: Vec<(&Row<K>, &crate::search::DepthStats)> =
            rows.iter().flat_map(|r| r.out.depths.iter().map(move |d| (r, d))).collect();
        Ok(write_table(
            &self.dir.join("depths.csv"),
            vec![
                ("width", Col::U64(d.iter().map(|(r, _)| r.record.width as u64).collect())),
                ("id", Col::Str(d.iter().map(|(r, _)| r.record.id.clone()).collect())),
                ("depth", Col::U64(d.iter().map(|(_, d)| d.depth as u64).collect())),
                ("beam_size", Col::U64(d.iter().map(|(_, d)| d.beam_size as u64).collect())),
                ("generated", Col::U64(d.iter().map(|(_, d)| d.generated as u64).collect())),
                ("entropy", Col::F64(d.iter().map(|(_, d)| d.entropy).collect())),
                ("max_log_prob", Col::F64(d.iter().map(|(_, d)| d.max_log_prob).collect())),
                ("mean_log_prob", Col::F64(d.iter().map(|(_, d)| d.mean_log_prob).collect())),
                ("mean_policy_entropy", Col::F64(d.iter().map(|(_, d)| d.mean_policy_entropy).collect())),
                ("kl_previous", Col::F64(d.iter().map(|(_, d)| d.kl_previous).collect())),
            ],
        )?)
    }

    /// The legend name of the measured curves: the oracle's run folder
    /// (`oracle:<run>` in the tables), with the matmul where it is not f32.
    fn oracle_name(&self) -> String {
        let name = self.by.heuristic.strip_prefix("oracle:").unwrap_or(&self.by.heuristic).to_string();
        match self.matmul {
            Matmul::F32 => name,
            other => format!("{name} ({} products)", other.name()),
        }
    }

    fn units(&self) -> &'static str {
        self.other.map_or("moves", |o| o.units.0)
    }

    fn report<K>(&self, rows: &[Row<K>], summaries: &[Summary], wall_s: &[f64]) {
        if self.cases.len() == 1 {
            for r in rows {
                let Some(path) = r.out.solution.as_deref() else {
                    crate::say!("width {}: not solved within depth {}", r.record.width, r.out.depths.len());
                    continue;
                };
                let lengths = match self.other {
                    Some(o) => format!("{} {}, {} {}", path.len(), o.units.0, (o.len)(path), o.units.1),
                    None => format!("{} moves", path.len()),
                };
                crate::say!("width {}: {} ({lengths}; verified)", r.record.width, r.record.solution);
            }
        }
        let n = self.cases.len().max(1) as f64;
        for (s, wall) in summaries.iter().zip(wall_s) {
            crate::say!(
                "width {:>7}: solved {:.1}%, {}, {}, {:.0} expanded, {:.3} s/instance (p95 {:.3}; wall {:.3}), {:.0} expanded/s",
                s.width,
                s.solved_pct,
                record::length_or_na(s.mean_length, self.units()),
                record::pct_or_na("optimal", s.optimal_pct),
                s.mean_expanded,
                s.mean_elapsed_s,
                s.p95_elapsed_s,
                wall / n,
                s.expanded_per_s
            );
        }
    }

    fn plots<K>(
        &self,
        rows: &[Row<K>],
        s: &[Summary],
        pearsons: &[f64],
        reference: Option<&'static Published>,
    ) -> Result<(), SolveError> {
        let widest = s.last().map_or(0, |l| l.width);
        let figures = figures::SweepFigures {
            oracle: self.oracle_name(),
            units: self.units().to_string(),
            widths: s
                .iter()
                .zip(pearsons)
                .map(|(r, &pearson)| figures::WidthPoint {
                    width: r.width,
                    mean_length: r.mean_length,
                    optimal_pct: r.optimal_pct,
                    solved_pct: r.solved_pct,
                    mean_elapsed_s: r.mean_elapsed_s,
                    p95_elapsed_s: r.p95_elapsed_s,
                    pearson,
                })
                .collect(),
            instances: rows
                .iter()
                .map(|r| figures::InstancePoint {
                    width: r.record.width,
                    length: r.record.length.map(|l| l as f64),
                    optimal: r.record.optimal.map(f64::from),
                    mean_entropy: r.mean_entropy(),
                })
                .collect(),
            depth_traces: rows
                .iter()
                .filter(|r| r.record.width == widest)
                .take(figures::DEPTH_TRACES)
                .map(|r| r.out.depths.iter().map(|d| (d.depth as f64, d.entropy)).collect())
                .collect(),
            reference,
        };
        Ok(figures.draw(&self.dir.join("plots"))?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cube2::{Cube2, Cube2Puzzle};
    use crate::search::OracleError;

    /// A policy that either fails at once or, at its first call, waits
    /// until the bar says that a worker failed (at most 20 s, so that a
    /// solve that never says so fails the test instead of hanging it),
    /// then answers uniform log-probabilities.
    struct Worker {
        fails: bool,
        bar: ProgressBar,
        waited: bool,
    }

    impl Oracle for Worker {
        fn kind(&self) -> crate::search::OracleKind {
            crate::search::OracleKind::Policy
        }
        fn num_moves(&self) -> usize {
            6
        }
        fn predict(&mut self, _inputs: &[f32], rows: usize, out: &mut [f32]) -> Result<(), OracleError> {
            if self.fails {
                return Err(OracleError("the device went away".into()));
            }
            if !self.waited {
                // The bar's message is set just after the failing worker
                // hands out the rest of the cases to nobody.
                let start = std::time::Instant::now();
                while self.bar.message().is_empty() && start.elapsed().as_secs() < 20 {
                    std::thread::yield_now();
                }
                self.waited = true;
            }
            out[..rows * 6].fill(-(6f32.ln()));
            Ok(())
        }
    }

    #[test]
    fn a_failing_worker_stops_the_others_after_their_current_search() {
        let puzzle = Cube2Puzzle::new(Metric::Qtm);
        let turns = crate::cube2::notation::parse("R U F' R").unwrap();
        let state = Cube2::from_turns(&turns);
        let cases: Vec<Case<Cube2>> = (0..40).map(|i| Case { id: format!("c{i}"), state, optimal: None }).collect();
        let cfg = BeamConfig { width: 8, max_depth: 6, dedup: true, prune: true, record_beams: false };
        let bar = ProgressBar::hidden();
        let mut oracles = vec![
            Worker { fails: true, bar: bar.clone(), waited: false },
            Worker { fails: false, bar: bar.clone(), waited: false },
        ];
        let err = solve_all(&puzzle, &mut oracles, &cases, &cfg, &bar).map(|_| ()).unwrap_err();
        assert!(err.to_string().contains("the device went away"), "{err}");
        // The other worker finished at most the one search it was on (none
        // if it started after the failure), not the 39 cases left.
        assert!(bar.position() <= 1, "{} searches finished after the failure", bar.position());
        assert_eq!(bar.message(), STOPPING);
    }

    /// A uniform 12-move oracle that counts its forwards once the bar says
    /// the sweep is stopping. The failing one fails once the healthy one
    /// has made a few forwards; the healthy one, after those, waits for the
    /// failure (so it cannot finish every case first, however the threads
    /// are scheduled).
    struct Counting {
        bar: ProgressBar,
        calls: std::sync::Arc<std::sync::atomic::AtomicUsize>,
        after: std::sync::Arc<std::sync::atomic::AtomicUsize>,
        fails: bool,
    }

    /// Healthy forwards before the failure.
    const BEFORE_FAILURE: usize = 5;

    impl Oracle for Counting {
        fn kind(&self) -> crate::search::OracleKind {
            crate::search::OracleKind::Policy
        }
        fn num_moves(&self) -> usize {
            12
        }
        fn predict(&mut self, _inputs: &[f32], rows: usize, out: &mut [f32]) -> Result<(), OracleError> {
            use std::sync::atomic::Ordering::Relaxed;
            let start = std::time::Instant::now();
            let wait = |until: &dyn Fn() -> bool| {
                while !until() && start.elapsed().as_secs() < 20 {
                    std::thread::yield_now();
                }
            };
            if self.fails {
                wait(&|| self.calls.load(Relaxed) >= BEFORE_FAILURE);
                return Err(OracleError("the device went away".into()));
            }
            if self.calls.fetch_add(1, Relaxed) + 1 >= BEFORE_FAILURE && self.bar.message().is_empty() {
                wait(&|| !self.bar.message().is_empty());
            }
            if !self.bar.message().is_empty() {
                self.after.fetch_add(1, Relaxed);
            }
            out[..rows * 12].fill(-(12f32.ln()));
            Ok(())
        }
    }

    #[test]
    fn a_failing_worker_stops_the_others_within_one_depth_of_their_search() {
        use crate::cube3::{Cube3, Cube3Puzzle};
        let puzzle = Cube3Puzzle::new(Metric::Qtm);
        let turns = notation::parse("R U F' L D2 B R' U' F2 L' D B2 R U2 F").unwrap();
        let state = Cube3::from_turns(&turns);
        // A uniform oracle at width 8 does not solve a 15-turn scramble:
        // each search runs all 400 depths unless it is stopped.
        let cases: Vec<Case<Cube3>> = (0..4).map(|i| Case { id: format!("c{i}"), state, optimal: None }).collect();
        let cfg = BeamConfig { width: 8, max_depth: 400, dedup: true, prune: true, record_beams: false };
        let bar = ProgressBar::hidden();
        let (calls, after) = (std::sync::Arc::default(), std::sync::Arc::<std::sync::atomic::AtomicUsize>::default());
        let counting =
            |fails| Counting { bar: bar.clone(), calls: std::sync::Arc::clone(&calls), after: after.clone(), fails };
        let mut oracles = vec![counting(true), counting(false)];
        let err = solve_all(&puzzle, &mut oracles, &cases, &cfg, &bar).map(|_| ()).unwrap_err();
        assert!(err.to_string().contains("the device went away"), "{err}");
        let n = after.load(std::sync::atomic::Ordering::Relaxed);
        assert!(n <= 2, "the healthy worker ran {n} more depths after the failure");
    }

    #[test]
    fn a_solution_below_the_sets_optimum_stops_the_sweep_at_once() {
        let puzzle = Cube2Puzzle::new(Metric::Qtm);
        let turns = crate::cube2::notation::parse("R").unwrap();
        let state = Cube2::from_turns(&turns);
        // A wrong optimal column: 11 moves for one quarter turn, which the
        // search solves at its first depth.
        let cases: Vec<Case<Cube2>> =
            (0..200).map(|i| Case { id: format!("c{i}"), state, optimal: Some(11) }).collect();
        let cfg = BeamConfig { width: 64, max_depth: 14, dedup: true, prune: true, record_beams: false };
        let bar = ProgressBar::hidden();
        let mut oracles = vec![Uniform6, Uniform6];
        let err = solve_all(&puzzle, &mut oracles, &cases, &cfg, &bar).map(|_| ()).unwrap_err();
        assert!(matches!(err, SolveError::BelowOptimal { .. }), "{err}");
        // Stopped at the first such instance (and the search the other
        // worker was on), not after the 200 of the width.
        assert!(bar.position() <= 2, "{} searches finished", bar.position());
    }

    struct Uniform6;

    impl Oracle for Uniform6 {
        fn kind(&self) -> crate::search::OracleKind {
            crate::search::OracleKind::Policy
        }
        fn num_moves(&self) -> usize {
            6
        }
        fn predict(&mut self, _inputs: &[f32], rows: usize, out: &mut [f32]) -> Result<(), OracleError> {
            out[..rows * 6].fill(-(6f32.ln()));
            Ok(())
        }
    }
}
