//! Oracles that travel: a run's network as safetensors, with a JSON model
//! card, for tools outside this crate.
//!
//! `train export RUN --to DIR` writes three files into the new folder
//! `DIR`: `model.safetensors` (every parameter and batch-norm statistic,
//! f32, named by module path in PyTorch's layout: a linear layer's weight
//! is `[out, in]`), `model.json` (the card: architecture and layer order,
//! oracle kind, input encoding, move order, training samples and FLOPs, the
//! run's DeepCubeA-style results), and `check.safetensors` (a fixed batch of
//! inputs and the network's raw outputs for it, so that a loader can prove
//! it computes the same function; `benches/exported_check.py` does, in
//! PyTorch or in plain Python). The safetensors layout is the published
//! one: an 8-byte little-endian header length, a JSON header of names,
//! dtypes, shapes and byte offsets, then the raw little-endian data.

use crate::kernels::weights::{NamedTensor, safetensors};
use crate::learn::checkpoint;
use crate::learn::error::LearnError;
use crate::learn::inference::NetOracle;
use crate::learn::model::{forward_macs, parameter_count};
use crate::puzzle::{MoveId, Puzzle};
use crate::registry::PuzzleVisitor;
use crate::rundir::{self, FileError, write_atomic};
use burn::tensor::{Tensor, TensorData};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// Rows of the check batch.
pub const CHECK_ROWS: usize = 8;

/// Exports run `run_dir` (its newest checkpoint) into the new folder `to`;
/// returns the folder. The run's shared lock is held meanwhile, so `train`
/// cannot resume or replace it under the export.
///
/// # Errors
/// Not a run, an existing `to` or one inside the run, a run that `train`
/// holds, an unusable checkpoint, or a file that cannot be written (the
/// partial folder, and any parent folder the export made, are then removed).
pub fn export(run_dir: &Path, to: &Path) -> Result<PathBuf, LearnError> {
    check_target(run_dir, to)?;
    let _reading = crate::folder::lock_shared(run_dir)?;
    let oracle = NetOracle::load(run_dir, None, None)?;
    let made = Made::before(to);
    let written = write_export(run_dir, &oracle, to);
    if written.is_err() {
        made.remove();
    }
    written.map(|()| to.to_path_buf())
}

/// Copies the run directory `run_dir` to `to` (a new directory) for
/// inference: every file except `checkpoints/` and `solve/`, plus the newest
/// checkpoint without its optimiser state (about a third of its size with
/// Adam). Refuses an existing `to` and one inside `run_dir`, and holds the
/// run's shared lock while it reads (so `train` cannot resume or replace
/// it meanwhile); a failed export removes what it wrote, parent folders it
/// made included. Returns the exported checkpoint's path.
pub fn export_weights(run_dir: &Path, to: &Path) -> Result<PathBuf, LearnError> {
    check_target(run_dir, to)?;
    let _reading = crate::folder::lock_shared(run_dir)?;
    let newest = checkpoint::latest(&run_dir.join("checkpoints"))?;
    let made = Made::before(to);
    let exported = copy_tree(run_dir, to, &["checkpoints", "solve"])
        .map_err(LearnError::from)
        .and_then(|()| checkpoint::save_weights_only(&newest, &to.join("checkpoints")));
    if exported.is_err() {
        made.remove();
    }
    exported
}

fn copy_tree(from: &Path, to: &Path, skip: &[&str]) -> std::result::Result<(), FileError> {
    std::fs::create_dir_all(to).map_err(FileError::at("creating", to))?;
    for entry in std::fs::read_dir(from).map_err(FileError::at("reading", from))? {
        let entry = entry.map_err(FileError::at("reading", from))?;
        let name = entry.file_name();
        if skip.iter().any(|s| name == *s) {
            continue;
        }
        let (src, dst) = (entry.path(), to.join(&name));
        if entry.file_type().map_err(FileError::at("reading", &src))?.is_dir() {
            copy_tree(&src, &dst, &[])?;
        } else {
            std::fs::copy(&src, &dst).map_err(FileError::at("copying a file to", &dst))?;
        }
    }
    Ok(())
}

/// The folders an export is about to create: `to` and every missing
/// parent of it, so that a failed export removes all it made.
pub(crate) struct Made {
    to: PathBuf,
    parents: Vec<PathBuf>,
}

impl Made {
    /// Notes which of `to`'s ancestors do not exist yet.
    pub(crate) fn before(to: &Path) -> Self {
        let parents = to
            .ancestors()
            .skip(1)
            .filter(|p| !p.as_os_str().is_empty())
            .take_while(|p| std::fs::symlink_metadata(p).is_err())
            .map(Path::to_path_buf)
            .collect();
        Self { to: to.to_path_buf(), parents }
    }

    /// Removes `to` with everything in it, then the parents it made while
    /// they are empty (never anything another process put there).
    pub(crate) fn remove(self) {
        let _ = std::fs::remove_dir_all(&self.to);
        for parent in &self.parents {
            if std::fs::remove_dir(parent).is_err() {
                break;
            }
        }
    }
}

/// What every export checks first: `run_dir` is a run `train` made, and
/// `to` is new and not inside it.
///
/// # Errors
/// [`LearnError::NotARun`], [`LearnError::ExportExists`] or
/// [`LearnError::ExportInside`].
pub fn check_target(run_dir: &Path, to: &Path) -> Result<(), LearnError> {
    if !rundir::is_run(run_dir) {
        return Err(LearnError::NotARun {
            dir: run_dir.to_path_buf(),
            rule: "it has no training config.toml beside train's meta.json or a checkpoint",
        });
    }
    if std::fs::symlink_metadata(to).is_ok() {
        return Err(LearnError::ExportExists { path: to.to_path_buf() });
    }
    if rundir::is_inside(to, run_dir) {
        return Err(LearnError::ExportInside { path: to.to_path_buf(), run: run_dir.to_path_buf() });
    }
    Ok(())
}

fn write_export(run_dir: &Path, oracle: &NetOracle, to: &Path) -> Result<(), LearnError> {
    std::fs::create_dir_all(to).map_err(FileError::at("creating", to))?;
    let cfg = &oracle.config;
    let puzzle = cfg.puzzle()?;
    let (inputs, moves, kind) = (puzzle.encoded_len(), puzzle.num_moves(), cfg.model.kind);
    let outputs = kind.outputs(moves);
    let names = puzzle.visit(Names);
    let net = oracle.network();
    let tensors = net.named_tensors()?;
    let meta = [("format", "pt"), ("producer", "cube-oracle")];
    write_atomic(&to.join("model.safetensors"), &safetensors(&tensors, &meta))?;

    // The check batch: fixed 0/1 rows about as dense as the one-hot
    // encodings, and the network's raw outputs for them.
    let check_inputs = check_batch(inputs);
    let x = Tensor::<2>::from_data(TensorData::new(check_inputs.clone(), [CHECK_ROWS, inputs]), &oracle.device());
    let y = net.forward(x).into_data().convert::<f32>().try_into_vec::<f32>();
    let check_outputs = y.map_err(|e| LearnError::Predictions(format!("{e}")))?;
    let check = [
        NamedTensor { name: "inputs".into(), shape: vec![CHECK_ROWS, inputs], data: check_inputs },
        NamedTensor { name: "outputs".into(), shape: vec![CHECK_ROWS, outputs], data: check_outputs },
    ];
    write_atomic(&to.join("check.safetensors"), &safetensors(&check, &meta))?;

    let run_meta: Value = crate::bounded::read_regular(&run_dir.join("meta.json"), crate::rundir::MAX_META_BYTES)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or(Value::Null);
    let samples = run_meta["samples_done"].as_u64();
    let macs = forward_macs(&cfg.model, inputs, outputs) as f64;
    let card = json!({
        "format": "cube-oracle model card 1",
        "run": cfg.run.name,
        "checkpoint": oracle.checkpoint.file_name().map(|n| n.to_string_lossy().to_string()),
        "kind": kind.name(),
        "outputs_mean": match kind.is_distribution() {
            true => "unnormalised log-probabilities of the move that produced the state (apply log_softmax)",
            false => "distances to the goal (q-distance: per move, of the state reached by undoing it; value: of the state)",
        },
        "puzzle": names.0,
        "encoding": { "kind": "one-hot", "inputs": inputs },
        "moves": names.1,
        "architecture": {
            "inputs": inputs,
            "hidden": cfg.model.hidden,
            "residual_blocks": cfg.model.residual_blocks,
            "outputs": outputs,
            "layer": if net.norm_epsilon().is_some() { "linear -> relu -> batchnorm (inference: running statistics)" } else { "linear -> relu" },
            "residual_block": "x + second(first(x))",
            "head": "linear",
            "batch_norm_epsilon": net.norm_epsilon(),
            "tensors": tensors.iter().map(|t| t.name.clone()).collect::<Vec<_>>(),
        },
        "parameters": parameter_count(&cfg.model, inputs, outputs),
        "forward_macs_per_sample": macs,
        "training": {
            "seed": cfg.run.seed,
            "samples": samples,
            "steps": run_meta["steps_done"],
            // Forward and backward: about 3 forward passes of 2 FLOPs per multiply-add.
            "flops_estimate": samples.map(|s| 6.0 * macs * s as f64),
            "git_revision": run_meta["git_revision"],
        },
        "results": results(run_dir),
        "check": { "file": "check.safetensors", "rows": CHECK_ROWS, "tolerance": 1e-4 },
    });
    write_atomic(&to.join("model.json"), format!("{card:#}\n").as_bytes())?;
    Ok(())
}

/// The puzzle's name and its move names, in move-id order.
struct Names;

impl PuzzleVisitor for Names {
    type Out = (String, Vec<String>);
    fn visit<P: Puzzle + 'static>(self, p: P) -> Self::Out {
        (p.name(), (0..p.num_moves()).map(|m| p.move_name(m as MoveId).to_string()).collect())
    }
}

/// The fixed check rows: row `r`, input `i` is 1 when a hash of `(r, i)`
/// falls in the lowest sixth, else 0.
#[must_use]
pub fn check_batch(inputs: usize) -> Vec<f32> {
    (0..CHECK_ROWS * inputs)
        .map(|k| {
            let h = (k as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32;
            f32::from(u8::from(h.is_multiple_of(6)))
        })
        .collect()
}

/// Every width of the run's test-set sweeps (`solve/*/scaling.csv`):
/// folder, width, instances, solved %, mean length, % optimal.
fn results(run_dir: &Path) -> Vec<Value> {
    let mut rows = Vec::new();
    let Ok(entries) = std::fs::read_dir(run_dir.join("solve")) else { return rows };
    let mut folders: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    folders.sort();
    for folder in folders {
        let Ok(text) = std::fs::read_to_string(folder.join("scaling.csv")) else { continue };
        let mut lines = text.lines();
        let header: Vec<&str> = lines.next().unwrap_or("").split(',').collect();
        let col = |name: &str| header.iter().position(|h| *h == name);
        let cols = ["width", "instances", "solved_pct", "mean_length", "optimal_pct"].map(col);
        for line in lines {
            let fields: Vec<&str> = line.split(',').collect();
            let get = |c: Option<usize>| c.and_then(|i| fields.get(i)).and_then(|f| f.parse::<f64>().ok());
            let label = folder.file_name().map(|n| n.to_string_lossy().to_string());
            rows.push(json!({
                "sweep": label,
                "width": get(cols[0]),
                "instances": get(cols[1]),
                "solved_pct": get(cols[2]),
                "mean_length": get(cols[3]),
                "optimal_pct": get(cols[4]),
            }));
        }
    }
    rows
}
