//! Fine-tuning: a run that starts from another run's weights
//! (`[finetune]` in the config), optionally on Bellman targets.
//!
//! A new fine-tune copies the source run, without its checkpoints and
//! solves, plus its newest checkpoint without the optimiser state, into
//! `init/` of its own run directory (with `export::export_weights`), and
//! starts from those weights with a fresh optimiser. So the run keeps the
//! exact weights it started from: a resumed leg reads `init/`, never the
//! source, which may have moved on or gone, and `solve --run <run>/init`
//! evaluates the starting point.
//!
//! With `finetune.targets = "bellman"` (Q-distance only) each regression
//! target is also bounded by one step of the starting network `Q₀`, kept
//! frozen: output `m` of a state at walk step `k`, whose child (the state
//! undoing `m` reaches) is `c`, is regressed on
//! `min(k − 1, V₀(c))` with `V₀(c) = 0` at the goal and
//! `1 + max(0, min over m' of Q₀(c, m'))` elsewhere; the walk's next move
//! gets `min(k + 1, V₀(next state))` the same way. Both children are the
//! walk's neighbouring samples in the same batch (so Bellman targets need
//! `data.depths = "all-prefixes"`), and one extra forward of `Q₀` over the
//! batch gives every `V₀`: a step costs about 8 FLOPs a multiply-add
//! instead of 6. Walk distances bound the true distance from above, and so
//! does `V₀` wherever `Q₀` does, so a target only ever moves down towards
//! the truth when the starting network knows a shorter way back than the
//! walk took.

use super::checkpoint::{self, LoopState};
use super::config::{FinetuneSection, FinetuneTargets, TrainConfig};
use super::data::{Batch, Bounds};
use super::error::LearnError;
use super::inference::NetOracle;
use crate::learn::config::DeviceKind;
use crate::puzzle::Puzzle;
use crate::registry::PuzzleVisitor;
use crate::search::Oracle;
use std::path::{Path, PathBuf};

/// The folder of a fine-tune's run directory that holds its starting point.
pub const INIT_DIR: &str = "init";

/// Where a fine-tune starts.
pub struct Start {
    /// The starting checkpoint (in the run's `init/checkpoints/`).
    pub checkpoint: PathBuf,
    /// Its model section (burn's record bytes; taken once loaded).
    pub model: Vec<u8>,
    /// The source run's loop state at that checkpoint.
    pub state: LoopState,
}

/// The starting point of the fine-tune `f` of the run `cfg` in `dir`: on a
/// new run, copied from the source into `dir/init/` first; on a resumed
/// run, read from there. The source must be a run of the same puzzle and
/// network.
///
/// # Errors
/// A source that is no run, has no checkpoint or trained another network;
/// a resumed run whose `init/` is missing or damaged; a failed copy.
pub fn start(cfg: &TrainConfig, f: &FinetuneSection, dir: &Path, resumed: bool) -> Result<Start, LearnError> {
    let init = dir.join(INIT_DIR);
    if !resumed {
        // The network is checked before anything is copied.
        let from = |source: LearnError| LearnError::FinetuneFrom { from: f.from.clone(), source: Box::new(source) };
        if !f.from.is_dir() {
            return Err(from(LearnError::NotARun { dir: f.from.clone(), rule: "it does not exist" }));
        }
        let newest = checkpoint::latest(&f.from.join("checkpoints")).map_err(from)?;
        checkpoint::check_network(&checkpoint::load(&newest).map_err(from)?.state, cfg, &newest).map_err(from)?;
        super::export::export_weights(&f.from, &init).map_err(from)?;
    }
    let path = checkpoint::latest(&init.join("checkpoints"))?;
    let ck = checkpoint::load(&path)?;
    checkpoint::check_network(&ck.state, cfg, &path)?;
    Ok(Start { checkpoint: path, model: ck.model, state: ck.state })
}

/// The frozen starting network of a Bellman fine-tune, and the goal's
/// encoding (a child that is the goal is at distance 0).
pub struct Bellman {
    start: NetOracle,
    goal: Vec<f32>,
    inputs: usize,
    outputs: usize,
}

impl Bellman {
    /// The Bellman targets of the fine-tune in `dir` (its `init/` run, on the CPU).
    ///
    /// # Errors
    /// `init/` cannot be loaded as a run.
    pub fn load(cfg: &TrainConfig, dir: &Path) -> Result<Self, LearnError> {
        let start = NetOracle::load(&dir.join(INIT_DIR), None, Some(DeviceKind::Cpu))?;
        let puzzle = cfg.puzzle()?;
        let goal = puzzle.visit(GoalEncoding);
        let (inputs, outputs) = (goal.len(), cfg.model.kind.outputs(puzzle.num_moves()));
        Ok(Self { start, goal, inputs, outputs })
    }

    /// The bounds of `batch`'s targets: one forward of the starting network
    /// over the batch.
    ///
    /// # Errors
    /// The network's forward failed.
    pub fn bounds(&mut self, batch: &Batch) -> Result<Bounds, LearnError> {
        let n = batch.len();
        let mut q = vec![0.0f32; n * self.outputs];
        self.start.predict(&batch.inputs, n, &mut q).map_err(|e| LearnError::Predictions(e.to_string()))?;
        let at_goal: Vec<bool> = batch.inputs.chunks_exact(self.inputs).map(|row| row == &self.goal[..]).collect();
        Ok(bounds(&q, self.outputs, batch, &at_goal))
    }
}

/// The Bellman bounds of `batch` from the starting network's outputs `q`
/// (`rows × outputs`) and which rows are the goal (see the module docs).
#[must_use]
pub fn bounds(q: &[f32], outputs: usize, batch: &Batch, at_goal: &[bool]) -> Bounds {
    let n = batch.len();
    // V₀ of every row, each a child of its neighbours.
    let value: Vec<f32> = (0..n)
        .map(|j| {
            if at_goal[j] {
                return 0.0;
            }
            let row = &q[j * outputs..(j + 1) * outputs];
            let legal = batch.legal[j];
            let best = (0..outputs).filter(|&m| legal >> m & 1 == 1).map(|m| row[m]).fold(f32::INFINITY, f32::min);
            1.0 + best.max(0.0)
        })
        .collect();
    // Sample i − 1 is the state sample i's move was made from when the
    // walk went on from it (`forward[i − 1] >= 0`); the first step's is the goal.
    let back = (0..n)
        .map(|i| match batch.depths[i] {
            1 => 0.0,
            _ if i > 0 && batch.forward[i - 1] >= 0 => value[i - 1],
            _ => f32::INFINITY,
        })
        .collect();
    let forward =
        (0..n).map(|i| if batch.forward[i] >= 0 && i + 1 < n { value[i + 1] } else { f32::INFINITY }).collect();
    Bounds { back, forward }
}

/// The FLOPs a step spends per sample, in multiply-adds of one forward:
/// 6 (forward and backward), 8 with the Bellman targets' extra forward.
#[must_use]
pub fn flops_per_mac(f: Option<&FinetuneSection>) -> f64 {
    match f.map(|f| f.targets) {
        None | Some(FinetuneTargets::Walk) => 6.0,
        Some(FinetuneTargets::Bellman) => 8.0,
    }
}

/// The goal's encoding.
struct GoalEncoding;

impl PuzzleVisitor for GoalEncoding {
    type Out = Vec<f32>;
    fn visit<P: Puzzle + 'static>(self, puzzle: P) -> Self::Out {
        let mut out = vec![0.0; puzzle.encoded_len()];
        puzzle.encode(&puzzle.goal(), &mut out);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two walks, of three and two steps, in one batch of five samples.
    fn two_walks() -> Batch {
        Batch {
            index: 0,
            inputs: Vec::new(),
            labels: vec![0, 1, 0, 1, 1],
            depths: vec![1, 2, 3, 1, 2],
            forward: vec![1, 0, -1, 0, -1],
            legal: vec![0b11, 0b11, 0b11, 0b11, 0b01],
            bounds: None,
        }
    }

    #[test]
    fn bounds_come_from_the_walks_neighbours() {
        let batch = two_walks();
        // Q₀ rows (two outputs each).
        let q = [4.0, 2.5, 0.5, 7.0, 3.0, 9.0, -0.4, 2.0, 1.0, 0.2];
        let b = bounds(&q, 2, &batch, &[false; 5]);
        // Step 1's child is the goal; steps 2 and 3 look at the sample
        // before; the second walk starts afresh at row 3.
        assert_eq!(b.back, vec![0.0, 3.5, 1.5, 0.0, 1.0]);
        // The next state's value where the walk goes on; row 4 may only
        // use its first output (its second is illegal).
        assert_eq!(b.forward, vec![1.5, 4.0, f32::INFINITY, 2.0, f32::INFINITY]);
        // A row that is the goal is at distance 0.
        let b = bounds(&q, 2, &batch, &[false, true, false, false, false]);
        assert_eq!((b.back[2], b.forward[0]), (0.0, 0.0));
    }

    #[test]
    fn a_walk_cut_at_the_batch_start_has_no_back_bound() {
        // A batch whose first sample is step 2 of a walk begun elsewhere.
        let batch =
            Batch { depths: vec![2, 3], forward: vec![0, -1], legal: vec![1, 1], labels: vec![0, 0], ..two_walks() };
        let b = bounds(&[5.0, 6.0], 1, &batch, &[false, false]);
        assert_eq!(b.back, vec![f32::INFINITY, 6.0]);
    }
}
