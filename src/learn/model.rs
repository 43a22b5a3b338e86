//! The oracle network: an MLP with optional residual blocks, in burn.
//!
//! Shape: `encoded_len` inputs (324 for the one-hot cube) → hidden layers
//! `hidden[0] … hidden[k-1]` → `residual_blocks` blocks of width
//! `hidden[k-1]` → the head: one output per move for a policy (logits) or a
//! Q-distance oracle (distances), one for a value oracle
//! (`OracleKind::outputs`; 12 moves in QTM, 18 in HTM). Every hidden
//! layer is Linear → ReLU → BatchNorm (or Linear → ReLU with `norm = none`),
//! the layer order EfficientCube uses; a residual block is two such layers
//! plus the identity. Weights start as PyTorch's defaults do:
//! U(−1/√fan_in, 1/√fan_in) for weights and biases.
//!
//! Loading weights ([`load_for_inference`], [`model_from_bytes`]) lives
//! here, not in the training loop, so that inference needs only the model
//! and the checkpoint format. Only `learn` knows about burn.

use super::checkpoint;
use crate::learn::config::{ModelSection, Norm, TrainConfig};
use crate::learn::error::LearnError;
use crate::search::OracleKind;
use burn::module::Module;
use burn::nn::{BatchNorm, BatchNormConfig, Linear, LinearConfig};
use burn::store::ModuleRecord;
use burn::tensor::activation::{log_softmax, relu};
use burn::tensor::{Bytes, Device, Tensor};
use std::path::Path;

/// One hidden layer: Linear → ReLU → (BatchNorm).
#[derive(Module, Debug)]
pub struct Dense {
    linear: Linear,
    norm: Option<BatchNorm>,
}

impl Dense {
    fn new(d_in: usize, d_out: usize, norm: Norm, device: &Device) -> Self {
        Self {
            linear: LinearConfig::new(d_in, d_out).init(device),
            norm: match norm {
                Norm::Batch => Some(BatchNormConfig::new(d_out).init(device)),
                Norm::None => None,
            },
        }
    }

    fn forward(&self, x: Tensor<2>) -> Tensor<2> {
        let x = relu(self.linear.forward(x));
        match &self.norm {
            Some(bn) => bn.forward(x),
            None => x,
        }
    }
}

/// Two dense layers plus the identity.
#[derive(Module, Debug)]
pub struct Residual {
    first: Dense,
    second: Dense,
}

impl Residual {
    fn forward(&self, x: Tensor<2>) -> Tensor<2> {
        let y = self.second.forward(self.first.forward(x.clone()));
        y + x
    }
}

/// The oracle network (any kind; the head's width is the kind's output count).
#[derive(Module, Debug)]
pub struct OracleNet {
    trunk: Vec<Dense>,
    blocks: Vec<Residual>,
    head: Linear,
}

impl OracleNet {
    /// A freshly initialised network for `inputs` features and `outputs`
    /// outputs. Initialisation draws from the device's generator, so seed
    /// the device first for reproducible weights.
    #[must_use]
    pub fn new(cfg: &ModelSection, inputs: usize, outputs: usize, device: &Device) -> Self {
        let mut trunk = Vec::with_capacity(cfg.hidden.len());
        let mut width = inputs;
        for &h in &cfg.hidden {
            trunk.push(Dense::new(width, h, cfg.norm, device));
            width = h;
        }
        let blocks = (0..cfg.residual_blocks)
            .map(|_| Residual {
                first: Dense::new(width, width, cfg.norm, device),
                second: Dense::new(width, width, cfg.norm, device),
            })
            .collect();
        Self { trunk, blocks, head: LinearConfig::new(width, outputs).init(device) }
    }

    /// Outputs for a batch.
    ///
    /// Shapes: `x` is `[batch, inputs]` (one encoded state per row); the
    /// result is `[batch, outputs]`: for a policy, unnormalised
    /// log-probabilities of the move that produced each state (the solver
    /// applies that move's inverse); for the distance kinds, the distances
    /// themselves.
    pub fn forward(&self, x: Tensor<2>) -> Tensor<2> {
        let mut x = x;
        for layer in &self.trunk {
            x = layer.forward(x);
        }
        for block in &self.blocks {
            x = block.forward(x);
        }
        self.head.forward(x)
    }

    /// What the network answers as an oracle of `kind`, read back as
    /// floats (`[batch, outputs]`, row-major): normalised
    /// log-probabilities for a policy, the raw distances otherwise.
    ///
    /// # Errors
    /// The device's data cannot be read back as `f32`.
    pub fn predict(&self, x: Tensor<2>, kind: OracleKind) -> Result<Vec<f32>, LearnError> {
        let y = self.forward(x);
        let y = if kind == OracleKind::Policy { log_softmax(y, 1) } else { y };
        y.into_data().convert::<f32>().try_into_vec::<f32>().map_err(|e| LearnError::Predictions(format!("{e:?}")))
    }
}

/// Number of trainable weights (linear weights and biases, batch-norm scale
/// and shift) of the network `cfg` describes, computed from the shape alone.
#[must_use]
pub fn parameter_count(cfg: &ModelSection, inputs: usize, outputs: usize) -> usize {
    let norm = usize::from(cfg.norm == Norm::Batch);
    let mut total = 0;
    let mut width = inputs;
    for &h in &cfg.hidden {
        total += width * h + h + 2 * h * norm;
        width = h;
    }
    total += cfg.residual_blocks * 2 * (width * width + width + 2 * width * norm);
    total + width * outputs + outputs
}

/// Multiply-adds of one forward pass for one sample (dense layers only).
#[must_use]
pub fn forward_macs(cfg: &ModelSection, inputs: usize, outputs: usize) -> usize {
    let mut total = 0;
    let mut width = inputs;
    for &h in &cfg.hidden {
        total += width * h;
        width = h;
    }
    total + cfg.residual_blocks * 2 * width * width + width * outputs
}

pub(crate) fn load_model(model: OracleNet, bytes: Vec<u8>, what: &str) -> Result<OracleNet, LearnError> {
    // Cast to the module's float type: a record always holds floats we
    // wrote, and burn panics (rather than erring) on a record whose tensor
    // claims another type (found by tests/fuzz.rs with a repaired checksum).
    let record = ModuleRecord::from_bytes(Bytes::from_bytes_vec(bytes))
        .map_err(|e| {
            LearnError::record(what, format!("its model section is not a model record this build can read ({e})"))
        })?
        .cast_to_module_dtype();
    model.try_load_record(record).map_err(|e| LearnError::record(what, explain_mismatch(&e.to_string())))
}

/// Words for burn's record-validation message, which quotes one entry per
/// tensor (`"path: shape mismatch, expected Shape { dims: [a, b] } but
/// record has Shape { dims: [c, d] }"`, or bare paths for missing and
/// unused tensors): the first differing tensor with both shapes, and how
/// many differ.
fn explain_mismatch(message: &str) -> String {
    let dims_after = |text: &str, key: &str| -> Option<String> {
        let rest = &text[text.find(key)? + key.len()..];
        let open = rest.find('[')?;
        let close = open + rest[open..].find(']')?;
        Some(rest[open + 1..close].split(',').map(str::trim).collect::<Vec<_>>().join("×"))
    };
    let entries: Vec<&str> = message.split('"').skip(1).step_by(2).collect();
    let mismatches: Vec<&str> = entries.iter().copied().filter(|e| e.contains("shape mismatch")).collect();
    if let Some(first) = mismatches.first()
        && let (Some(model), Some(ckpt)) = (dims_after(first, "expected"), dims_after(first, "record has"))
    {
        let path = first.split(':').next().unwrap_or(first);
        return format!(
            "the checkpoint does not fit the model the config describes: tensor `{path}` is {ckpt} in the \
             checkpoint but {model} in the config's model ({} tensor(s) differ); compare [model] in the run's \
             config.toml with the run that wrote the checkpoint",
            mismatches.len()
        );
    }
    let what = if message.contains("Missing tensors") {
        "the checkpoint lacks tensors of the config's model (the config describes more layers or blocks)"
    } else if message.contains("Unused tensors") {
        "the checkpoint has tensors the config's model lacks (the config describes fewer layers or blocks)"
    } else {
        "the checkpoint does not fit the model the config describes"
    };
    let shown: Vec<&str> = entries.iter().copied().take(3).collect();
    let more = if entries.len() > 3 { format!(" and {} more", entries.len() - 3) } else { String::new() };
    if shown.is_empty() { what.to_string() } else { format!("{what}: {}{more}", shown.join(", ")) }
}

/// Loads a model for inference from a checkpoint file.
///
/// # Errors
/// An unusable checkpoint, or weights that do not fit `cfg`'s model.
pub fn load_for_inference(cfg: &TrainConfig, path: &Path, device: &Device) -> Result<OracleNet, LearnError> {
    let ck = checkpoint::load(path)?;
    fit(cfg, ck.model, device, &format!("loading the model from {}", path.display()))
}

/// The model `cfg` describes with the weights of a checkpoint's model
/// section (see [`checkpoint::decode`]).
///
/// # Errors
/// Bytes that are not a model record, or a record of another shape (the
/// message names the first differing tensor and both shapes).
pub fn model_from_bytes(cfg: &TrainConfig, model_bytes: Vec<u8>, device: &Device) -> Result<OracleNet, LearnError> {
    fit(cfg, model_bytes, device, "loading a checkpoint's model section")
}

/// [`model_from_bytes`], saying `what` is being loaded in its message.
fn fit(cfg: &TrainConfig, model_bytes: Vec<u8>, device: &Device, what: &str) -> Result<OracleNet, LearnError> {
    let puzzle = cfg.puzzle()?;
    let model = OracleNet::new(&cfg.model, puzzle.encoded_len(), cfg.model.kind.outputs(puzzle.num_moves()), device);
    load_model(model, model_bytes, what)
}

#[cfg(test)]
mod tests {
    use super::explain_mismatch;

    #[test]
    fn record_mismatches_are_put_in_words() {
        let shape = "Record validation error: Apply errors: [\"trunk.0.linear.weight: shape mismatch, expected \
                     Shape { dims: [324, 256] } but record has Shape { dims: [324, 512] }\", \"trunk.0.linear.bias: \
                     shape mismatch, expected Shape { dims: [256] } but record has Shape { dims: [512] }\"]";
        let m = explain_mismatch(shape);
        assert!(m.contains("tensor `trunk.0.linear.weight` is 324×512 in the checkpoint but 324×256"), "{m}");
        assert!(m.contains("(2 tensor(s) differ)") && !m.contains("Shape {"), "{m}");
        let unused = "Record validation error: Unused tensors: [\"blocks.1.a\", \"blocks.1.b\", \"blocks.1.c\", \"x\"]";
        let m = explain_mismatch(unused);
        assert!(m.contains("fewer layers or blocks): blocks.1.a, blocks.1.b, blocks.1.c and 1 more"), "{m}");
        assert!(explain_mismatch("Record validation error: Missing tensors: [\"y\"]").contains("more layers"));
    }
}
