//! Everything `train` writes besides checkpoints: `meta.json`, evaluation
//! and KL rows, the end-of-run diagnostics, the plots, and the summary
//! printed at the end.

use super::diagnostics::{Predictions, label_frequencies, unit_histogram, visits};
use super::leg::{Evaluation, Outcome, TrainOptions};
use crate::csvlog::{Col, CsvLog, read_columns, write_table};
use crate::learn::backend;
use crate::learn::config::{Matmul, TrainConfig};
use crate::learn::data::{Batch, BatchSpec, for_each_sample};
use crate::learn::error::LearnError;
use crate::learn::model::{forward_macs, parameter_count};
use crate::learn::objective;
use crate::plot::{Chart, Series, Style};
use crate::puzzle::Puzzle;
use crate::rundir::{build_revision, dependency_versions, git_revision, unix_now, write_atomic};
use crate::search::OracleKind;
use serde_json::json;
use std::path::Path;

type Result<T, E = LearnError> = std::result::Result<T, E>;

/// Checks, before a run resumes at checkpoint step `step`, that its
/// `meta.json` holds the legs up to that step; with `fresh`, an unusable
/// one is kept beside as `meta.json.before-resume` and started afresh.
pub(super) fn check_history(dir: &Path, step: u64, fresh: bool) -> Result<()> {
    let path = dir.join("meta.json");
    let rule = match crate::bounded::read_regular(&path, crate::rundir::MAX_META_BYTES) {
        Err(e) => Some(format!("is missing or unreadable ({e})")),
        Ok(bytes) => match serde_json::from_slice::<serde_json::Value>(&bytes) {
            Err(e) => Some(format!("is not valid JSON ({e})")),
            Ok(v) => match (v.get("legs").and_then(|l| l.as_array()), v.get("steps_done").and_then(|s| s.as_u64())) {
                (Some(_), Some(done)) if done >= step => None,
                (Some(_), Some(done)) => {
                    Some(format!("records steps up to {done}, but the checkpoint is at step {step}"))
                }
                _ => Some("has no `legs` and `steps_done`".to_string()),
            },
        },
    };
    let Some(rule) = rule else { return Ok(()) };
    if !fresh {
        return Err(LearnError::History { path, rule });
    }
    if path.exists() {
        let mut kept = dir.join("meta.json.before-resume");
        let mut k = 1;
        while kept.exists() {
            k += 1;
            kept = dir.join(format!("meta.json.before-resume-{k}"));
        }
        std::fs::rename(&path, &kept).map_err(crate::rundir::FileError::at("keeping aside", &path))?;
        eprintln!("meta.json {rule}: started afresh (--fresh-logs); the old file is kept as {}", kept.display());
    } else {
        eprintln!("meta.json {rule}: started afresh (--fresh-logs)");
    }
    Ok(())
}

/// Run metadata, rewritten atomically at the start and end of every leg and
/// at every checkpoint, so that a leg killed without warning (SIGKILL, a
/// lost machine) is recorded up to the checkpoint the next leg resumes from.
pub(super) struct Meta {
    value: serde_json::Value,
}

impl Meta {
    /// `start_step` is the step this leg starts (or resumes) at.
    pub(super) fn new(
        cfg: &TrainConfig,
        opts: &TrainOptions,
        inputs: usize,
        moves: usize,
        resumed: bool,
        start_step: u64,
        start: Option<&super::finetune::Start>,
    ) -> Self {
        let versions: serde_json::Map<String, serde_json::Value> =
            dependency_versions().into_iter().map(|(k, v)| (k.to_string(), json!(v))).collect();
        let macs = forward_macs(&cfg.model, inputs, cfg.model.kind.outputs(moves));
        let mut value = json!({
            "run": cfg.run.name,
            "git_revision": git_revision(),
            "build_revision": build_revision(),
            "command_line": opts.command_line,
            "seed": cfg.run.seed,
            "backend": format!("{:?}", cfg.backend.device).to_lowercase(),
            "device": backend::describe(cfg.backend.device),
            "matmul": match cfg.backend.matmul {
                Matmul::F32 => "f32".to_string(),
                Matmul::Bf16 => format!("bf16 ({})", super::mixed::describe()),
                Matmul::Int8 => "int8".to_string(),
            },
            "precision": cfg.backend.precision.name(),
            "ops": match (cfg.backend.device, cfg.backend.ops()) {
                (crate::learn::config::DeviceKind::Cpu, crate::learn::config::Ops::Fused) => format!(
                    "fused (batch norm on {})",
                    crate::kernels::norm::Isa::detect().name()
                ),
                _ => "burn".to_string(),
            },
            "threads": rayon::current_num_threads(),
            "data_workers": cfg.train.data_workers,
            "walk": cfg.data.walk.name(),
            "depths": cfg.data.depths.name(),
            "labels": cfg.data.labels.name(),
            "label_pool": match cfg.data.labels {
                crate::learn::data::Labels::Walk => serde_json::Value::Null,
                crate::learn::data::Labels::TrajectoryMin => cfg.data.label_pool().into(),
            },
            "crate_versions": versions,
            "kind": cfg.model.kind.name(),
            "loss": cfg.model.loss().name(),
            "forward_targets": cfg.forward_targets(),
            "rank_weight": cfg.model.rank_weight(),
            "parameters": parameter_count(&cfg.model, inputs, cfg.model.kind.outputs(moves)),
            "forward_macs_per_sample": macs,
            "flops_per_sample": super::finetune::flops_per_mac(cfg.finetune.as_ref()) * macs as f64,
            "total_steps": cfg.total_steps(),
            "leg_started_unix": unix_now(),
            "leg_resumed": resumed,
            "leg_started_at_step": start_step,
        });
        if let (Some(f), Some(start)) = (&cfg.finetune, start) {
            value["finetune"] = json!({
                "from": f.from,
                "targets": f.targets.name(),
                "start_checkpoint": start.checkpoint.strip_prefix(cfg.run_dir()).unwrap_or(&start.checkpoint),
                "start_step": start.state.step,
                "start_samples": start.state.samples,
            });
        }
        Self { value }
    }

    pub(super) fn write(&self, dir: &Path, state: &super::checkpoint::LoopState, complete: bool) -> Result<()> {
        let path = dir.join("meta.json");
        // Keep the history of legs from an earlier meta.json.
        let mut legs: Vec<serde_json::Value> = crate::bounded::read_regular(&path, crate::rundir::MAX_META_BYTES)
            .ok()
            .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
            .and_then(|v| v.get("legs").and_then(|l| l.as_array().cloned()))
            .unwrap_or_default();
        let leg = json!({
            "started_unix": self.value["leg_started_unix"],
            "command_line": self.value["command_line"],
            "git_revision": self.value["git_revision"],
            "build_revision": self.value["build_revision"],
            "device": self.value["device"],
            "matmul": self.value["matmul"],
            "precision": self.value["precision"],
            "started_at_step": self.value["leg_started_at_step"],
            "ended_at_step": state.step,
        });
        // This leg's entry is the last one if it has the same start (second
        // and step): two short legs can start within one second, but a
        // resumed leg starts at a later step than the leg before it.
        let same_leg = |last: &serde_json::Value| {
            last["started_unix"] == leg["started_unix"] && last["started_at_step"] == leg["started_at_step"]
        };
        match legs.last_mut() {
            Some(last) if same_leg(last) => *last = leg,
            _ => legs.push(leg),
        }
        let mut v = self.value.clone();
        v["steps_done"] = json!(state.step);
        v["samples_done"] = json!(state.samples);
        v["elapsed_s"] = json!(state.elapsed_s);
        v["complete"] = json!(complete);
        v["updated_unix"] = json!(unix_now());
        v["legs"] = json!(legs);
        // `{:#}` is serde_json's pretty form, which cannot fail for a Value.
        Ok(write_atomic(&path, format!("{v:#}").as_bytes())?)
    }
}

/// Appends the per-depth evaluation rows and, for a policy, the KL row for
/// one evaluation.
pub(super) fn log_eval(
    eval_log: &mut CsvLog,
    kl_log: Option<&mut CsvLog>,
    step: u64,
    ev: &Evaluation,
    set: &Batch,
    previous: Option<&[f32]>,
) -> Result<()> {
    let rows = objective::by_depth(ev.kind, &ev.predictions, ev.outputs, set);
    let col = |f: fn(&objective::DepthMetrics) -> f64| Col::F64(rows.iter().map(f).collect());
    // The kind names the columns (`OracleKind::eval_columns`): the shared
    // four, then its metrics in the order mean (the policy's cross-entropy,
    // the distance kinds' mean prediction), RMSE.
    let values: [Col; 6] = [
        Col::U64(vec![step; rows.len()]),
        Col::U64(rows.iter().map(|d| d.depth as u64).collect()),
        Col::U64(rows.iter().map(|d| d.states).collect()),
        col(|d| d.accuracy),
        col(|d| d.mean),
        col(|d| d.rmse),
    ];
    eval_log.append(ev.kind.eval_columns().iter().copied().zip(values).collect())?;
    let Some(kl_log) = kl_log else { return Ok(()) };
    let moves = ev.outputs;
    let pred = Predictions::new(&ev.probs, moves);
    let total_ce = rows.iter().map(|d| d.mean * d.states as f64).sum::<f64>() / set.len().max(1) as f64;
    let snapshot_kl = previous.map_or(f64::NAN, |p| pred.kl_from(&Predictions::new(p, moves)));
    kl_log.append(vec![
        ("step", Col::U64(vec![step])),
        ("cross_entropy", Col::F64(vec![total_ce])),
        ("kl_target_prediction", Col::F64(vec![pred.kl_target(&set.labels)])),
        ("kl_marginal_uniform", Col::F64(vec![pred.kl_marginal_uniform()])),
        ("kl_previous_snapshot", Col::F64(vec![snapshot_kl])),
    ])?;
    Ok(())
}

/// End-of-run diagnostics into `diagnostics/`, with their plots: the visit
/// counts for every kind, and for a policy (`probs`, its held-out move
/// probabilities) the move marginals, certainty and cumulative curves.
#[allow(clippy::too_many_arguments)]
pub(super) fn diagnostics<P: Puzzle>(
    dir: &Path,
    puzzle: &P,
    spec: &BatchSpec,
    step: u64,
    window: u64,
    probs: Option<&[f32]>,
    set: &Batch,
    moves: usize,
) -> Result<()> {
    let out = dir.join("diagnostics");
    let plots = dir.join("plots");
    // Visits: the states of the last `window` training batches, regenerated
    // from their (seed, index) streams.
    let first = step.saturating_sub(window);
    let mut keys = Vec::with_capacity(spec.size * (step - first) as usize);
    for index in first..step {
        for_each_sample(puzzle, spec, index, |s, _, _| keys.push(puzzle.key(s)))?;
    }
    let v = visits(keys);
    write_table(
        &out.join("visits.csv"),
        vec![
            ("visit_count", Col::U64(v.histogram.iter().map(|h| h.0).collect())),
            ("states", Col::U64(v.histogram.iter().map(|h| h.1).collect())),
        ],
    )?;
    let fit = v.exponent.map_or("no fit (one count only)".to_string(), |a| format!("fitted exponent α = {a:.3}"));
    Chart {
        title: format!("Visits over the last {} training steps", step - first),
        x_label: "times visited".into(),
        y_label: "number of states".into(),
        log_x: true,
        log_y: true,
        log2_x: false,
        series: vec![Series::new(
            "states",
            Style::Points,
            v.histogram.iter().map(|&(c, n)| (c as f64, n as f64)).collect(),
        )],
        note: Some(format!(
            "{} samples, {} distinct states, {:.2}% visited once; {fit}",
            v.samples,
            v.distinct,
            100.0 * v.once as f64 / v.distinct.max(1) as f64
        )),
    }
    .save(&plots.join("visits"))?;
    let visit_summary = json!({
        "visit_window_steps": step - first,
        "visit_samples": v.samples,
        "distinct_states": v.distinct,
        "visited_once": v.once,
        "share_visited_once": v.once as f64 / v.distinct.max(1) as f64,
        "power_law_exponent": v.exponent,
        "held_out_states": set.len(),
    });
    let Some(probs) = probs else {
        return Ok(write_atomic(&out.join("summary.json"), format!("{visit_summary:#}").as_bytes())?);
    };

    let pred = Predictions::new(probs, moves);
    let marginal = pred.marginal();
    let freq = label_frequencies(&set.labels, moves);
    let names: Vec<String> = (0..moves as u8).map(|m| puzzle.move_name(m).to_string()).collect();
    write_table(
        &out.join("marginals.csv"),
        vec![
            ("move", Col::Str(names.clone())),
            ("predicted", Col::F64(marginal.clone())),
            ("label_frequency", Col::F64(freq.clone())),
            ("uniform", Col::F64(vec![1.0 / moves as f64; moves])),
        ],
    )?;
    let uniform = 1.0 / moves as f64;
    Chart {
        title: "Move marginals p(m) on the held-out set".into(),
        x_label: format!("move ({})", names.join(" ")),
        y_label: "probability".into(),
        series: vec![
            Series::new(
                "predicted p(m)",
                Style::Bars,
                marginal.iter().enumerate().map(|(k, &p)| (k as f64, p)).collect(),
            ),
            Series::new("label frequency", Style::Bars, freq.iter().enumerate().map(|(k, &p)| (k as f64, p)).collect()),
            Series::new(
                format!("uniform 1/{moves}"),
                Style::Line,
                vec![(-0.5, uniform), (moves as f64 - 0.5, uniform)],
            ),
        ],
        note: Some(format!("KL(predicted ‖ uniform) = {:.2e} nats", pred.kl_marginal_uniform())),
        ..Chart::default()
    }
    .save(&plots.join("marginals"))?;

    let certainty = pred.certainty();
    let hist = unit_histogram(&certainty, 20);
    write_table(
        &out.join("certainty.csv"),
        vec![
            ("max_probability_bin_centre", Col::F64(hist.iter().map(|h| h.0).collect())),
            ("share_of_states", Col::F64(hist.iter().map(|h| h.1).collect())),
        ],
    )?;
    let mean_certainty = certainty.iter().sum::<f64>() / certainty.len().max(1) as f64;
    Chart {
        title: "Oracle certainty: max_m p(m | state), held-out set".into(),
        x_label: "max move probability".into(),
        y_label: "share of states".into(),
        series: vec![Series::new("", Style::Bars, hist)],
        note: Some(format!("mean {mean_certainty:.3} over {} states", certainty.len())),
        ..Chart::default()
    }
    .save(&plots.join("certainty"))?;

    let cum = pred.cumulative(200);
    write_table(
        &out.join("cumulative.csv"),
        vec![
            ("states", Col::U64(cum.iter().map(|c| c.0 as u64).collect())),
            ("move", Col::Str(cum.iter().map(|c| names[c.1].clone()).collect())),
            ("cumulative_mean_probability", Col::F64(cum.iter().map(|c| c.2).collect())),
        ],
    )?;
    let mut chart =
        Chart::new("Cumulative conditional probability per move", "held-out states", "running mean of p(m | state)");
    for (k, name) in names.iter().enumerate() {
        chart.series.push(Series::new(
            name.clone(),
            Style::Line,
            cum.iter().filter(|c| c.1 == k).map(|c| (c.0 as f64, c.2)).collect(),
        ));
    }
    chart.save(&plots.join("cumulative"))?;

    let mut summary = visit_summary;
    summary["kl_marginal_uniform"] = json!(pred.kl_marginal_uniform());
    summary["kl_target_prediction"] = json!(pred.kl_target(&set.labels));
    summary["mean_certainty"] = json!(mean_certainty);
    Ok(write_atomic(&out.join("summary.json"), format!("{summary:#}").as_bytes())?)
}

/// Curves from the CSV logs into `plots/`.
pub(super) fn plots(dir: &Path, kind: OracleKind, moves: usize) -> Result<()> {
    if kind.is_regression() {
        return distance_plots(dir, kind);
    }
    let plots = dir.join("plots");
    let m = read_columns(&dir.join("metrics.csv"), &["step", "loss", "accuracy"])?;
    let k =
        read_columns(&dir.join("kl.csv"), &["step", "cross_entropy", "kl_marginal_uniform", "kl_previous_snapshot"])?;
    let zip = |x: &[f64], y: &[f64]| -> Vec<(f64, f64)> { x.iter().copied().zip(y.iter().copied()).collect() };
    Chart {
        title: "Cross-entropy".into(),
        x_label: "step".into(),
        y_label: "cross-entropy (nats)".into(),
        series: vec![
            Series::new("training batches", Style::Line, zip(&m[0], &m[1])),
            Series::new("held-out set", Style::Reference, zip(&k[0], &k[1])),
            Series::new(
                format!("uniform ln {moves}"),
                Style::Line,
                vec![
                    (m[0].first().copied().unwrap_or(0.0), (moves as f64).ln()),
                    (m[0].last().copied().unwrap_or(1.0), (moves as f64).ln()),
                ],
            ),
        ],
        ..Chart::default()
    }
    .save(&plots.join("cross_entropy"))?;
    Chart::new("Training accuracy (argmax = label)", "step", "accuracy")
        .with(Series::new("training batches", Style::Line, zip(&m[0], &m[2])))
        .save(&plots.join("accuracy"))?;
    Chart {
        title: "KL diagnostics (held-out set)".into(),
        x_label: "step".into(),
        y_label: "nats".into(),
        log_y: true,
        series: vec![
            Series::new("KL(marginal ‖ uniform)", Style::Line, zip(&k[0], &k[2])),
            Series::new("mean KL(p_t ‖ p_t-1)", Style::Line, zip(&k[0], &k[3])),
        ],
        ..Chart::default()
    }
    .save(&plots.join("kl"))?;
    let e = read_columns(&dir.join("eval.csv"), &["step", "depth", "accuracy", "cross_entropy"])?;
    if let Some(&last) = e[0].last() {
        let rows: Vec<usize> = (0..e[0].len()).filter(|&i| e[0][i] == last).collect();
        Chart {
            title: format!("Held-out accuracy and cross-entropy by depth (step {last})"),
            x_label: "scramble depth".into(),
            y_label: "accuracy / cross-entropy (nats)".into(),
            series: vec![
                Series::new("accuracy", Style::Line, rows.iter().map(|&i| (e[1][i], e[2][i])).collect()),
                Series::new("cross-entropy", Style::Line, rows.iter().map(|&i| (e[1][i], e[3][i])).collect()),
            ],
            ..Chart::default()
        }
        .save(&plots.join("eval_by_depth"))?;
    }
    Ok(())
}

/// The curves of a distance (Q or value) run: training loss and accuracy,
/// and the held-out mean prediction by walk step against the target line.
fn distance_plots(dir: &Path, kind: OracleKind) -> Result<()> {
    let plots = dir.join("plots");
    let m = read_columns(&dir.join("metrics.csv"), &["step", "loss", "accuracy"])?;
    let zip = |x: &[f64], y: &[f64]| -> Vec<(f64, f64)> { x.iter().copied().zip(y.iter().copied()).collect() };
    Chart::new("Training loss", "step", "loss")
        .with(Series::new("training batches", Style::Line, zip(&m[0], &m[1])))
        .save(&plots.join("loss"))?;
    let rule = kind.accuracy_rule();
    Chart::new(format!("Training accuracy ({rule})"), "step", "accuracy")
        .with(Series::new("training batches", Style::Line, zip(&m[0], &m[2])))
        .save(&plots.join("accuracy"))?;
    let e = read_columns(&dir.join("eval.csv"), &["step", "depth", "mean_prediction", "rmse"])?;
    if let Some(&last) = e[0].last() {
        let rows: Vec<usize> = (0..e[0].len()).filter(|&i| e[0][i] == last).collect();
        // Walk steps are small whole numbers.
        let target = |d: f64| kind.target(d as u16).map_or(d, f64::from);
        Chart {
            title: format!("Held-out predictions by walk step (step {last})"),
            x_label: "walk step k".into(),
            y_label: "distance".into(),
            series: vec![
                Series::new("mean prediction", Style::Line, rows.iter().map(|&i| (e[1][i], e[2][i])).collect()),
                Series::new("RMSE", Style::Line, rows.iter().map(|&i| (e[1][i], e[3][i])).collect()),
                Series::new(
                    "walk target",
                    Style::Reference,
                    rows.iter().map(|&i| (e[1][i], target(e[1][i]))).collect(),
                ),
            ],
            ..Chart::default()
        }
        .save(&plots.join("eval_by_depth"))?;
    }
    Ok(())
}

/// A run's held-out loss at its last evaluation: the kind's `eval.csv`
/// column ([`OracleKind::held_out_loss`]: cross-entropy, or RMSE squared into
/// a mean squared error) averaged over walk depths, weighted by their
/// states; `None` before the first evaluation.
///
/// # Errors
/// `eval.csv` unreadable or without the columns.
pub fn held_out_loss(dir: &Path, kind: OracleKind) -> Result<Option<f64>, crate::csvlog::TableError> {
    let (column, squared) = kind.held_out_loss();
    let e = read_columns(&dir.join("eval.csv"), &["step", "states", column])?;
    let Some(last) = e[0].last().copied() else { return Ok(None) };
    let rows = (0..e[0].len()).filter(|&i| e[0][i] == last);
    let (n, sum) = rows.fold((0.0, 0.0), |(n, sum), i| {
        let v = if squared { e[2][i] * e[2][i] } else { e[2][i] };
        (n + e[1][i], sum + e[1][i] * v)
    });
    Ok(Some(sum / n))
}

/// The one-screen summary printed when `train` ends.
pub(super) fn summary(o: &Outcome, state: &super::checkpoint::LoopState, params: usize, macs: usize, kind: OracleKind) {
    let status = if o.step >= o.total_steps { "complete" } else { "stopped early (resume with --resume)" };
    let held_out = if kind.is_regression() {
        match held_out_loss(&o.run_dir, kind).ok().flatten() {
            Some(mse) => format!("held-out RMSE {:.4}", mse.sqrt()),
            None => "no evaluation yet".to_string(),
        }
    } else {
        let rows = read_columns(&o.run_dir.join("kl.csv"), &["step", "cross_entropy"]).unwrap_or_default();
        rows.get(1)
            .and_then(|c| c.last().copied())
            .map_or("no evaluation yet".to_string(), |ce| format!("held-out cross-entropy {ce:.4}"))
    };
    let m = read_columns(&o.run_dir.join("metrics.csv"), &["loss", "accuracy"]).unwrap_or_default();
    let (loss, acc) = (m.first().and_then(|c| c.last().copied()), m.get(1).and_then(|c| c.last().copied()));
    crate::say!("run        {} ({status})", o.run_dir.display());
    crate::say!(
        "model      {kind} network, {params} parameters, {:.2} MFLOP per sample forward",
        2.0 * macs as f64 / 1e6
    );
    crate::say!(
        "progress   step {}/{}, {} samples, {:.1} s of training",
        o.step,
        o.total_steps,
        state.samples,
        state.elapsed_s
    );
    crate::say!("speed      {:.0} samples/s this leg ({} threads)", o.samples_per_s, rayon::current_num_threads());
    match (loss, acc) {
        (Some(loss), Some(acc)) => {
            crate::say!("last log   loss {loss:.4}, accuracy {:.2}%; {held_out}", 100.0 * acc);
        }
        // Stopped before the first training log (train.log_every).
        _ => crate::say!("last log   none yet (metrics.csv is empty); {held_out}"),
    }
    let kl = if kind.is_distribution() { " kl.csv" } else { "" };
    crate::say!("files      config.toml meta.json metrics.csv eval.csv{kl} checkpoints/ diagnostics/ plots/");
}
