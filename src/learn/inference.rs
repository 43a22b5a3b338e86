//! The trained network as a search [`Oracle`]: the burn side of the
//! boundary between search and learning.
//!
//! [`NetOracle`] loads a run's resolved config and a checkpoint, puts the
//! network in inference mode on the configured device, and answers batched
//! queries of the kind it was trained as (`model.kind`): log-probabilities
//! of a policy, or the raw distances of a Q-distance or value network. Search code only ever sees the `Oracle` trait.

use crate::learn::backend;
use crate::learn::checkpoint;
use crate::learn::config::{DeviceKind, TrainConfig};
use crate::learn::error::LearnError;
use crate::learn::model::OracleNet;
use crate::learn::model::load_for_inference;
use crate::search::{Oracle, OracleError, OracleKind};
use burn::module::Module;
use burn::tensor::{Device, Tensor, TensorData};
use std::path::{Path, PathBuf};

/// A trained network answering oracle queries. A clone shares the
/// loaded weights' data and can serve another search thread.
#[derive(Clone)]
pub struct NetOracle {
    net: OracleNet,
    device: Device,
    inputs: usize,
    moves: usize,
    kind: OracleKind,
    /// The run's resolved config.
    pub config: TrainConfig,
    /// The checkpoint loaded.
    pub checkpoint: PathBuf,
}

impl NetOracle {
    /// Loads the run in `run_dir` (its `config.toml`) with `checkpoint`, or
    /// the run's newest checkpoint when `None`.
    ///
    /// The network runs on `device`, the CPU when `None`, whatever device
    /// the run was trained on: beam search sends one small batch per depth,
    /// which the CPU answers faster than a round trip to the GPU (measured
    /// in docs/gpu.md), and a checkpoint loads on either.
    ///
    /// # Errors
    /// A path that is no run directory, an unusable config or checkpoint,
    /// or a device this build lacks.
    pub fn load(run_dir: &Path, checkpoint: Option<&Path>, device: Option<DeviceKind>) -> Result<Self, LearnError> {
        if run_dir.is_file() {
            let rule = "it is a file; give the run's directory (it holds config.toml)";
            return Err(LearnError::NotARun { dir: run_dir.to_path_buf(), rule });
        }
        if !run_dir.is_dir() {
            return Err(LearnError::NotARun { dir: run_dir.to_path_buf(), rule: "it does not exist" });
        }
        let config = TrainConfig::load(&run_dir.join("config.toml"))?;
        let path = match checkpoint {
            Some(p) => p.to_path_buf(),
            None => checkpoint::latest(&run_dir.join("checkpoints"))?,
        };
        // A run trained on a GPU can still be solved by a CPU-only build.
        let device = backend::device(device.unwrap_or(DeviceKind::Cpu))?;
        let net = load_for_inference(&config, &path, &device)?.valid();
        let puzzle = config.puzzle()?;
        let (inputs, moves, kind) = (puzzle.encoded_len(), puzzle.num_moves(), config.model.kind);
        Ok(Self { net, device, inputs, moves, kind, config, checkpoint: path })
    }
}

impl NetOracle {
    /// The network itself (for exports).
    #[must_use]
    pub fn network(&self) -> &OracleNet {
        &self.net
    }

    /// The device the network runs on.
    #[must_use]
    pub fn device(&self) -> Device {
        self.device.clone()
    }
}

impl Oracle for NetOracle {
    fn num_moves(&self) -> usize {
        self.moves
    }

    fn kind(&self) -> OracleKind {
        self.kind
    }

    fn predict(&mut self, inputs: &[f32], rows: usize, out: &mut [f32]) -> Result<(), OracleError> {
        let x = Tensor::<2>::from_data(
            TensorData::new(inputs[..rows * self.inputs].to_vec(), [rows, self.inputs]),
            &self.device,
        );
        let v = self
            .net
            .predict(x, self.kind)
            .map_err(|e| OracleError(format!("reading the network's predictions: {e}")))?;
        out[..rows * self.kind.outputs(self.moves)].copy_from_slice(&v);
        Ok(())
    }
}
