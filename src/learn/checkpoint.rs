//! Checkpoint files: model, optimiser and loop state in one checksummed,
//! atomically written file.
//!
//! Layout (little-endian): the 16-byte magic `CUBEORACLE-CKPT\0`, a `u32`
//! format version, then four length-prefixed (`u64`) sections — the JSON
//! [`LoopState`], the model's burnpack bytes, the optimiser's burnpack
//! bytes, and the last evaluation snapshot as `f32`s — and finally a `u64`
//! FNV-1a checksum of everything before it. A truncated, foreign or
//! bit-flipped file is reported as such and never loaded. Files are named
//! `step-<8 digits>.ckpt` in `checkpoints/`; the newest is the latest.

use crate::checksum::fnv1a;
pub use crate::learn::error::CheckpointError;
use crate::learn::error::LearnError;
use crate::rundir::{FileError, write_atomic};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 16] = crate::rundir::CHECKPOINT_MAGIC;
const VERSION: u32 = 1;

/// Where the training loop stood when the checkpoint was written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoopState {
    /// Optimisation steps completed.
    pub step: u64,
    /// Training samples consumed.
    pub samples: u64,
    /// Training wall time so far, seconds (summed over legs).
    pub elapsed_s: f64,
    /// Index of the next training batch (the data RNG position: batch `i`
    /// is drawn from stream `i` of the run seed).
    pub next_batch: u64,
    /// The run seed.
    pub seed: u64,
    /// Step of the evaluation snapshot stored alongside, if any.
    pub snapshot_step: Option<u64>,
    /// Training loss and accuracy accumulated since the last log row.
    pub window: Window,
    /// What the network is: the run's `[puzzle]` and `[model]` sections and
    /// seed ([`fingerprint`]); absent in checkpoints written before it was
    /// recorded, which are then checked by seed (and shape) only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<serde_json::Value>,
}

/// The identity of the network a config trains: its `[puzzle]` and
/// `[model]` sections and its seed, as JSON.
#[must_use]
pub fn fingerprint(cfg: &crate::learn::config::TrainConfig) -> serde_json::Value {
    serde_json::json!({ "puzzle": cfg.puzzle, "model": cfg.model, "seed": cfg.run.seed })
}

/// Checks that the checkpoint at `path` with loop state `state` was trained
/// as `cfg` describes: the same puzzle, network and seed.
///
/// # Errors
/// [`LearnError::ForeignCheckpoint`] naming the first key that differs and
/// both values.
pub fn check_origin(state: &LoopState, cfg: &crate::learn::config::TrainConfig, path: &Path) -> Result<(), LearnError> {
    check(state, cfg, path, true)
}

/// Checks that the checkpoint at `path` with loop state `state` holds the
/// network `cfg` describes (the same puzzle and network; the seed may
/// differ), as a fine-tune's starting point must.
///
/// # Errors
/// [`LearnError::ForeignCheckpoint`] naming the first key that differs and
/// both values.
pub fn check_network(
    state: &LoopState,
    cfg: &crate::learn::config::TrainConfig,
    path: &Path,
) -> Result<(), LearnError> {
    check(state, cfg, path, false)
}

fn check(
    state: &LoopState,
    cfg: &crate::learn::config::TrainConfig,
    path: &Path,
    seed: bool,
) -> Result<(), LearnError> {
    let ours = fingerprint(cfg);
    let theirs = state.fingerprint.clone().unwrap_or_else(|| serde_json::json!({ "seed": state.seed }));
    let short = |v: Option<&serde_json::Value>| {
        let text = v.map_or_else(|| "(not set)".to_string(), ToString::to_string);
        if text.chars().count() > 60 { format!("{}…", text.chars().take(60).collect::<String>()) } else { text }
    };
    let mut differ = None;
    for section in ["puzzle", "model"] {
        let (Some(a), Some(b)) = (theirs.get(section).and_then(|v| v.as_object()), ours[section].as_object()) else {
            continue;
        };
        if let Some(key) = b.keys().chain(a.keys()).find(|k| a.get(*k) != b.get(*k)) {
            differ = Some((format!("{section}.{key}"), short(a.get(key)), short(b.get(key))));
            break;
        }
    }
    if seed && differ.is_none() && theirs.get("seed") != ours.get("seed") {
        differ = Some(("run.seed".to_string(), short(theirs.get("seed")), short(ours.get("seed"))));
    }
    match differ {
        None => Ok(()),
        Some((key, checkpoint, config)) => {
            Err(LearnError::ForeignCheckpoint { path: path.to_path_buf(), key, checkpoint, config })
        }
    }
}

/// Sums over the steps since the last `metrics.csv` row.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Window {
    /// Sum of per-step mean losses.
    pub loss_sum: f64,
    /// Steps summed.
    pub steps: u64,
    /// Correctly ranked samples.
    pub correct: u64,
    /// Samples seen.
    pub samples: u64,
}

impl Window {
    /// Adds one step.
    pub fn add(&mut self, loss: f64, correct: u64, samples: u64) {
        self.loss_sum += loss;
        self.steps += 1;
        self.correct += correct;
        self.samples += samples;
    }

    /// `(mean loss, accuracy)` of the window, which is then cleared.
    pub fn take(&mut self) -> (f64, f64) {
        let out = (self.loss_sum / self.steps.max(1) as f64, self.correct as f64 / self.samples.max(1) as f64);
        *self = Self::default();
        out
    }
}

/// A decoded checkpoint.
pub struct Checkpoint {
    /// Loop state.
    pub state: LoopState,
    /// Model record bytes (burnpack).
    pub model: Vec<u8>,
    /// Optimiser record bytes (burnpack).
    pub optimizer: Vec<u8>,
    /// Predicted move distributions on the held-out set at `snapshot_step`.
    pub snapshot: Vec<f32>,
}

/// The file name of the checkpoint after `step` steps.
#[must_use]
pub fn file_name(step: u64) -> String {
    format!("step-{step:08}.ckpt")
}

/// Writes a checkpoint atomically into `dir`, keeping the newest `keep`
/// checkpoint files. Returns its path.
///
/// # Errors
/// [`LearnError::File`] naming the file that could not be written or removed.
pub fn save(dir: &Path, ck: &Checkpoint, keep: usize) -> Result<PathBuf, LearnError> {
    let path = dir.join(file_name(ck.state.step));
    let header = serde_json::to_vec(&ck.state)
        .map_err(|e| LearnError::Checkpoint { path: path.clone(), reason: CheckpointError::State(e) })?;
    let snapshot: Vec<u8> = ck.snapshot.iter().flat_map(|x| x.to_le_bytes()).collect();
    let mut out = Vec::with_capacity(64 + header.len() + ck.model.len() + ck.optimizer.len() + snapshot.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    for section in [&header[..], &ck.model, &ck.optimizer, &snapshot] {
        out.extend_from_slice(&(section.len() as u64).to_le_bytes());
        out.extend_from_slice(section);
    }
    let sum = fnv1a(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    write_atomic(&path, &out)?;
    let mut all = list(dir)?;
    while all.len() > keep.max(1) {
        let (_, old) = all.remove(0);
        std::fs::remove_file(&old).map_err(FileError::at("removing old checkpoint", &old))?;
    }
    Ok(path)
}

/// Writes a copy of the checkpoint `src` without its optimiser state into
/// `dir` (same file name), for inference and shipping: `solve` loads it,
/// `train --resume` refuses it. Returns the new file's path.
pub fn save_weights_only(src: &Path, dir: &Path) -> Result<PathBuf, LearnError> {
    let mut ck = load(src)?;
    ck.optimizer.clear();
    std::fs::create_dir_all(dir).map_err(FileError::at("creating", dir))?;
    save(dir, &ck, usize::MAX)
}

/// Checkpoints in `dir`, oldest first, as `(step, path)`.
pub fn list(dir: &Path) -> Result<Vec<(u64, PathBuf)>, FileError> {
    let mut v = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return Ok(v) };
    for e in entries {
        let path = e.map_err(FileError::at("listing", dir))?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if let Some(step) =
            name.strip_prefix("step-").and_then(|s| s.strip_suffix(".ckpt")).and_then(|s| s.parse().ok())
        {
            v.push((step, path));
        }
    }
    v.sort();
    Ok(v)
}

/// Removes what checkpoint writes killed half-way left in `dir`
/// (`step-*.ckpt.tmp<pid>`); the caller holds the run's lock, so no write
/// of another process is under way. Returns how many were removed.
pub fn remove_unfinished(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    let unfinished = |name: &str| {
        name.starts_with("step-") && name.split_once(".ckpt.tmp").is_some_and(|(_, pid)| crate::rundir::is_pid(pid))
    };
    entries
        .flatten()
        .filter(|e| unfinished(&e.file_name().to_string_lossy()) && std::fs::remove_file(e.path()).is_ok())
        .count()
}

/// The newest checkpoint in `dir`.
pub fn latest(dir: &Path) -> Result<PathBuf, LearnError> {
    list(dir)?.pop().map(|(_, p)| p).ok_or_else(|| LearnError::NoCheckpoint { dir: dir.to_path_buf() })
}

/// The largest checkpoint read: 16 GiB, over a billion parameters with
/// Adam's two moments (the largest network a config allows on the CPU's
/// memory is far smaller).
pub const MAX_CHECKPOINT_BYTES: u64 = 16 << 30;

/// Reads and verifies a checkpoint file.
pub fn load(path: &Path) -> Result<Checkpoint, LearnError> {
    // Regular files only, and never more than the machine's memory: a path
    // naming a FIFO or an endless device is refused before it is read.
    let bytes = crate::bounded::read_regular(path, MAX_CHECKPOINT_BYTES)
        .map_err(FileError::at("cannot read checkpoint", path))?;
    decode(&bytes).map_err(|reason| LearnError::Checkpoint { path: path.to_path_buf(), reason })
}

/// Decodes and verifies checkpoint bytes (what [`load`] does after reading
/// the file).
///
/// # Errors
/// Bad magic bytes, a checksum mismatch, an unknown version or a
/// malformed section.
pub fn decode(bytes: &[u8]) -> Result<Checkpoint, CheckpointError> {
    if bytes.len() < MAGIC.len() + 4 + 8 || &bytes[..MAGIC.len()] != MAGIC {
        return Err(CheckpointError::BadMagic);
    }
    let (body, sum) = bytes.split_at(bytes.len() - 8);
    let stored = u64::from_le_bytes(sum.try_into().expect("8 bytes"));
    if fnv1a(body) != stored {
        return Err(CheckpointError::Checksum);
    }
    let version = u32::from_le_bytes(body[16..20].try_into().expect("4 bytes"));
    if version != VERSION {
        return Err(CheckpointError::Version { found: version, expected: VERSION });
    }
    let mut rest = &body[20..];
    let mut sections = Vec::with_capacity(4);
    for name in ["state", "model", "optimizer", "snapshot"] {
        if rest.len() < 8 {
            return Err(CheckpointError::Truncated { where_: "before", section: name });
        }
        let len = u64::from_le_bytes(rest[..8].try_into().expect("8 bytes")) as usize;
        rest = &rest[8..];
        if rest.len() < len {
            return Err(CheckpointError::Truncated { where_: "inside", section: name });
        }
        sections.push(rest[..len].to_vec());
        rest = &rest[len..];
    }
    let state: LoopState = serde_json::from_slice(&sections[0]).map_err(CheckpointError::State)?;
    if sections[3].len() % 4 != 0 {
        return Err(CheckpointError::Snapshot);
    }
    let snapshot = sections[3].chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes"))).collect();
    let optimizer = sections.remove(2);
    let model = sections.remove(1);
    Ok(Checkpoint { state, model, optimizer, snapshot })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(step: u64) -> Checkpoint {
        Checkpoint {
            state: LoopState {
                step,
                samples: step * 10,
                elapsed_s: 1.5,
                next_batch: step,
                seed: 7,
                snapshot_step: Some(step),
                window: Window { loss_sum: 2.0, steps: 1, correct: 3, samples: 4 },
                fingerprint: Some(serde_json::json!({ "seed": 7 })),
            },
            model: vec![1, 2, 3],
            optimizer: vec![4, 5],
            snapshot: vec![0.25, 0.75],
        }
    }

    #[test]
    fn round_trip_keep_and_corruption() {
        let dir = std::env::temp_dir().join(format!("cube-oracle-ckpt-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for s in [10, 20, 30] {
            save(&dir, &sample(s), 2).unwrap();
        }
        let files = list(&dir).unwrap();
        assert_eq!(files.iter().map(|f| f.0).collect::<Vec<_>>(), [20, 30]);
        let path = latest(&dir).unwrap();
        let ck = load(&path).unwrap();
        assert_eq!(ck.state, sample(30).state);
        assert_eq!((ck.model, ck.optimizer, ck.snapshot), (vec![1, 2, 3], vec![4, 5], vec![0.25, 0.75]));

        let mut bytes = std::fs::read(&path).unwrap();
        bytes[40] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        let e = format!("{:#}", load(&path).err().unwrap());
        assert!(e.contains("checksum mismatch"), "{e}");
        std::fs::write(&path, &bytes[..30]).unwrap();
        assert!(format!("{:#}", load(&path).err().unwrap()).contains("checksum"));
        std::fs::write(&path, b"hello").unwrap();
        assert!(format!("{:#}", load(&path).err().unwrap()).contains("not a cube-oracle checkpoint"));
        assert!(format!("{:#}", load(&dir.join("nope.ckpt")).err().unwrap()).contains("cannot read checkpoint"));
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(latest(&dir).unwrap_err().to_string().contains("no checkpoint"));
    }
}
