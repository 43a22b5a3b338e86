//! The policy network: an MLP with optional residual blocks, in burn.
//!
//! Shape: `encoded_len` inputs (324 for the one-hot cube) → hidden layers
//! `hidden[0] … hidden[k-1]` → `residual_blocks` blocks of width
//! `hidden[k-1]` → one logit per move (12 in QTM, 18 in HTM). Every hidden
//! layer is Linear → ReLU → BatchNorm (or Linear → ReLU with `norm = none`),
//! the layer order EfficientCube uses; a residual block is two such layers
//! plus the identity. Weights start as PyTorch's defaults do:
//! U(−1/√fan_in, 1/√fan_in) for weights and biases.
//!
//! This is the only module, with the training loop and the oracle adapter,
//! that knows about burn.

use crate::config::{ModelSection, Norm};
use burn::module::Module;
use burn::nn::{BatchNorm, BatchNormConfig, Linear, LinearConfig};
use burn::tensor::activation::relu;
use burn::tensor::{Device, Tensor};

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

/// The policy network.
#[derive(Module, Debug)]
pub struct PolicyNet {
    trunk: Vec<Dense>,
    blocks: Vec<Residual>,
    head: Linear,
}

impl PolicyNet {
    /// A freshly initialised network for `inputs` features and `moves`
    /// outputs. Initialisation draws from the device's generator, so seed
    /// the device first for reproducible weights.
    #[must_use]
    pub fn new(cfg: &ModelSection, inputs: usize, moves: usize, device: &Device) -> Self {
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
        Self { trunk, blocks, head: LinearConfig::new(width, moves).init(device) }
    }

    /// Logits for a batch.
    ///
    /// Shapes: `x` is `[batch, inputs]` (one encoded state per row); the
    /// result is `[batch, moves]`, unnormalised log-probabilities of the move
    /// that produced each state. The solver applies that move's inverse.
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
}

/// Number of trainable weights (linear weights and biases, batch-norm scale
/// and shift) of the network `cfg` describes, computed from the shape alone.
#[must_use]
pub fn parameter_count(cfg: &ModelSection, inputs: usize, moves: usize) -> usize {
    let norm = usize::from(cfg.norm == Norm::Batch);
    let mut total = 0;
    let mut width = inputs;
    for &h in &cfg.hidden {
        total += width * h + h + 2 * h * norm;
        width = h;
    }
    total += cfg.residual_blocks * 2 * (width * width + width + 2 * width * norm);
    total + width * moves + moves
}

/// Multiply-adds of one forward pass for one sample (dense layers only).
#[must_use]
pub fn forward_macs(cfg: &ModelSection, inputs: usize, moves: usize) -> usize {
    let mut total = 0;
    let mut width = inputs;
    for &h in &cfg.hidden {
        total += width * h;
        width = h;
    }
    total + cfg.residual_blocks * 2 * width * width + width * moves
}
