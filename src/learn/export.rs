//! Oracles that travel: a run's network as safetensors, with a JSON model
//! card, for tools outside this crate.
//!
//! `train --export RUN --to DIR` writes three files into the new folder
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

use crate::learn::error::LearnError;
use crate::learn::inference::NetOracle;
use crate::learn::model::{NamedTensor, forward_macs, parameter_count};
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

/// `tensors` (f32) and string `metadata` in the safetensors layout.
#[must_use]
pub fn safetensors(tensors: &[NamedTensor], metadata: &[(&str, &str)]) -> Vec<u8> {
    let mut header = serde_json::Map::new();
    let meta: serde_json::Map<String, Value> = metadata.iter().map(|(k, v)| (k.to_string(), json!(v))).collect();
    header.insert("__metadata__".into(), Value::Object(meta));
    let mut offset = 0usize;
    for t in tensors {
        let end = offset + 4 * t.data.len();
        header.insert(t.name.clone(), json!({ "dtype": "F32", "shape": t.shape, "data_offsets": [offset, end] }));
        offset = end;
    }
    let mut head = Value::Object(header).to_string().into_bytes();
    // The data starts 8-byte aligned: the header is padded with spaces.
    while !head.len().is_multiple_of(8) {
        head.push(b' ');
    }
    let mut out = Vec::with_capacity(8 + head.len() + offset);
    out.extend_from_slice(&(head.len() as u64).to_le_bytes());
    out.extend_from_slice(&head);
    for t in tensors {
        for v in &t.data {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    out
}

/// Reads an f32 safetensors file back (the inverse of [`safetensors`], for
/// tests and tools): the tensors in file order.
///
/// # Errors
/// A short file, a header that is not JSON, a tensor that is not F32 or
/// whose offsets fall outside the data: the reason in words.
pub fn read_safetensors(bytes: &[u8]) -> Result<Vec<NamedTensor>, String> {
    let len = bytes.get(..8).ok_or("shorter than the 8-byte header length")?;
    let len = usize::try_from(u64::from_le_bytes(len.try_into().map_err(|_| "header length")?))
        .map_err(|_| "header length overflows")?;
    let head = bytes.get(8..8 + len).ok_or("the header runs past the end of the file")?;
    let data = &bytes[8 + len..];
    let header: serde_json::Map<String, Value> =
        serde_json::from_slice(head).map_err(|e| format!("the header is not a JSON object: {e}"))?;
    let mut out = Vec::new();
    for (name, spec) in header {
        if name == "__metadata__" {
            continue;
        }
        if spec["dtype"] != "F32" {
            return Err(format!("{name}: dtype {} (only F32 is read)", spec["dtype"]));
        }
        let shape: Vec<usize> = spec["shape"]
            .as_array()
            .ok_or(format!("{name}: no shape"))?
            .iter()
            .map(|d| d.as_u64().map(|d| d as usize).ok_or(format!("{name}: a dimension is not a count")))
            .collect::<Result<_, _>>()?;
        let offs = spec["data_offsets"].as_array().ok_or(format!("{name}: no data_offsets"))?;
        let (a, b) = match (offs.first().and_then(Value::as_u64), offs.get(1).and_then(Value::as_u64)) {
            (Some(a), Some(b)) if a <= b => (a as usize, b as usize),
            _ => return Err(format!("{name}: bad data_offsets")),
        };
        let raw = data.get(a..b).ok_or(format!("{name}: data_offsets past the end of the data"))?;
        if raw.len() != 4 * shape.iter().product::<usize>() {
            return Err(format!("{name}: {} bytes for shape {shape:?}", raw.len()));
        }
        let values = raw.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        out.push((a, NamedTensor { name, shape, data: values }));
    }
    out.sort_by_key(|(a, _)| *a);
    Ok(out.into_iter().map(|(_, t)| t).collect())
}
