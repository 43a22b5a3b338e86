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

use super::{checkpoint, fused, mixed};
use crate::kernels::weights::NamedTensor;
use crate::learn::config::{Matmul, ModelSection, Norm, Ops, TrainConfig};
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
    /// The arithmetic of this layer's product in training steps on the CPU
    /// ([`mixed`]); not a parameter, not checkpointed.
    #[module(skip)]
    matmul: Matmul,
    /// The arithmetic of this layer's product in inference passes on the
    /// CPU (`solve --matmul`; [`mixed`]); not checkpointed either. Apart
    /// from `matmul` so that a bf16 training run validates in f32.
    #[module(skip)]
    inference_matmul: Matmul,
    /// Whose operations a CPU training step runs ([`OracleNet::with_ops`]).
    #[module(skip)]
    ops: Ops,
}

impl Dense {
    fn new(d_in: usize, d_out: usize, norm: Norm, device: &Device) -> Self {
        Self {
            linear: LinearConfig::new(d_in, d_out).init(device),
            norm: match norm {
                Norm::Batch => Some(BatchNormConfig::new(d_out).init(device)),
                Norm::None => None,
            },
            matmul: Matmul::F32,
            inference_matmul: Matmul::F32,
            ops: Ops::Fused,
        }
    }

    fn forward(&self, x: Tensor<2>) -> Tensor<2> {
        let matmul = if x.device().is_autodiff() { self.matmul } else { self.inference_matmul };
        let x = if matmul == Matmul::Bf16 {
            let y = product(matmul, x, self.linear.weight.val());
            relu(match &self.linear.bias {
                Some(b) => y + b.val().unsqueeze_dim(0),
                None => y,
            })
        } else {
            relu(self.linear.forward(x))
        };
        match &self.norm {
            Some(bn) => bn.forward(x),
            None => x,
        }
    }

    /// The same layer on a feature-major batch: `x` is `[d_in, batch]`,
    /// the result `[d_out, batch]` (see [`OracleNet::forward`]).
    fn forward_feature_major(&self, x: Tensor<2>) -> Tensor<2> {
        if let (Ops::Fused, Some(bn), Some(bias)) = (self.ops, &self.norm, &self.linear.bias)
            && fused::applies(&x)
        {
            return self.forward_fused(x, bn, bias.val());
        }
        let y = relu(linear_feature_major(&self.linear, x, self.matmul));
        match &self.norm {
            // `[1, channels, batch]`: batch norm's statistics run over
            // dimensions 0 and 2, which are the batch here.
            Some(bn) => {
                let [c, n] = y.dims();
                bn.forward(y.unsqueeze_dim::<3>(0)).reshape([c, n])
            }
            None => y,
        }
    }

    /// [`Dense::forward_feature_major`] on the CPU backend: the GEMM, then
    /// bias, ReLU and batch norm in one fused pass each way
    /// ([`fused`]); the running statistics move as burn's batch norm moves
    /// them.
    fn forward_fused(&self, x: Tensor<2>, bn: &BatchNorm, bias: Tensor<1>) -> Tensor<2> {
        let w = self.linear.weight.val().transpose();
        let z = if self.matmul == Matmul::Bf16 { mixed::matmul(w, x) } else { w.matmul(x) };
        let (y, mean, var) = fused::bias_relu_batch_norm(z, bias, bn.gamma.val(), bn.beta.val(), bn.epsilon);
        let device = y.device();
        let m = bn.momentum;
        let running_mean = bn.running_mean.value_sync().to_device(&device);
        let running_var = bn.running_var.value_sync().to_device(&device);
        bn.running_mean.update(running_mean.mul_scalar(1.0 - m).add(mean.detach().mul_scalar(m)).detach());
        bn.running_var.update(running_var.mul_scalar(1.0 - m).add(var.detach().mul_scalar(m)).detach());
        y
    }
}

/// `a · b` with the products `matmul` names: bf16 operands through the
/// CPU backend's own product ([`mixed::matmul`], f32 sums) where it
/// applies, through burn's bf16 tensors on other devices
/// ([`mixed::cast_matmul`]).
fn product(matmul: Matmul, a: Tensor<2>, b: Tensor<2>) -> Tensor<2> {
    match matmul {
        Matmul::Bf16 if fused::applies(&a) => mixed::matmul(a, b),
        Matmul::Bf16 => mixed::cast_matmul(a, b),
        Matmul::F32 | Matmul::Int8 => a.matmul(b),
    }
}

/// `linear` on a feature-major batch: `[d_in, batch]` to `[d_out, batch]`,
/// with the products `matmul` names (the head's are always f32).
/// The weight is stored `[d_in, d_out]`; its transpose is a view.
fn linear_feature_major(linear: &Linear, x: Tensor<2>, matmul: Matmul) -> Tensor<2> {
    let y = product(matmul, linear.weight.val().transpose(), x);
    match &linear.bias {
        Some(b) => y + b.val().unsqueeze_dim(1),
        None => y,
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

    fn forward_feature_major(&self, x: Tensor<2>) -> Tensor<2> {
        let y = self.second.forward_feature_major(self.first.forward_feature_major(x.clone()));
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

    /// The same network with a CPU training step's operations chosen by
    /// `ops` (`[backend] ops`): the project's fused kernels, or burn's own
    /// operations throughout.
    #[must_use]
    pub fn with_ops(mut self, ops: Ops) -> Self {
        for layer in self.hidden_mut() {
            layer.ops = ops;
        }
        self
    }

    /// The same network with every hidden layer's product in training
    /// steps on the CPU computed as `matmul` says (`[backend] matmul`;
    /// [`mixed`]). Inference passes keep their own setting
    /// ([`OracleNet::with_inference_matmul`], f32 unless set); the head
    /// always runs in f32.
    #[must_use]
    pub fn with_matmul(mut self, matmul: Matmul) -> Self {
        for layer in self.hidden_mut() {
            layer.matmul = matmul;
        }
        self
    }

    /// The same network with every hidden layer's product in inference
    /// passes (no gradients) on the CPU computed as `matmul` says
    /// (`solve --matmul`; [`mixed`]): bf16 operands and f32 sums for
    /// `bf16`. Training steps keep [`OracleNet::with_matmul`]'s setting;
    /// the head always runs in f32.
    #[must_use]
    pub fn with_inference_matmul(mut self, matmul: Matmul) -> Self {
        for layer in self.hidden_mut() {
            layer.inference_matmul = matmul;
        }
        self
    }

    /// Every hidden layer (the trunk's and both of each block's).
    fn hidden_mut(&mut self) -> impl Iterator<Item = &mut Dense> {
        self.trunk.iter_mut().chain(self.blocks.iter_mut().flat_map(|b| [&mut b.first, &mut b.second]))
    }

    /// Outputs for a batch.
    ///
    /// Shapes: `x` is `[batch, inputs]` (one encoded state per row); the
    /// result is `[batch, outputs]`: for a policy, unnormalised
    /// log-probabilities of the move that produced each state (the solver
    /// applies that move's inverse); for the distance kinds, the distances
    /// themselves.
    ///
    /// A training step (gradients on) of a network with batch norm runs the
    /// layers feature-major, on `[features, batch]` activations: batch norm
    /// then reduces along contiguous rows, where on `[batch, features]`
    /// burn's batch norm makes a transposed copy of its input (forward) and
    /// of its gradient (backward) in every layer. The result is the same
    /// function, returned as a `[batch, outputs]` view. Measured on the
    /// reference config, 8% more samples/s; without batch norm the row
    /// layout is faster (the weight gradients then arrive transposed), so
    /// such networks keep it (`docs/training.md`). Inference always keeps
    /// the row layout, so search results do not depend on this.
    pub fn forward(&self, x: Tensor<2>) -> Tensor<2> {
        if x.device().is_autodiff() && self.has_batch_norm() {
            return self.forward_feature_major(x.transpose()).transpose();
        }
        self.forward_rows(x)
    }

    fn forward_rows(&self, x: Tensor<2>) -> Tensor<2> {
        let mut x = x;
        for layer in &self.trunk {
            x = layer.forward(x);
        }
        for block in &self.blocks {
            x = block.forward(x);
        }
        self.head.forward(x)
    }

    fn has_batch_norm(&self) -> bool {
        self.trunk.iter().chain(self.blocks.iter().map(|b| &b.first)).any(|d| d.norm.is_some())
    }

    fn forward_feature_major(&self, x: Tensor<2>) -> Tensor<2> {
        let mut x = x;
        for layer in &self.trunk {
            x = layer.forward_feature_major(x);
        }
        for block in &self.blocks {
            x = block.forward_feature_major(x);
        }
        linear_feature_major(&self.head, x, Matmul::F32)
    }

    /// What the network answers as an oracle of `kind`, read back as
    /// floats (`[batch, outputs]`, row-major): normalised
    /// log-probabilities for a policy, the raw distances otherwise.
    ///
    /// # Errors
    /// The device's data cannot be read back as `f32`.
    pub fn predict(&self, x: Tensor<2>, kind: OracleKind) -> Result<Vec<f32>, LearnError> {
        let y = self.forward(x);
        let y = if kind.is_distribution() { log_softmax(y, 1) } else { y };
        y.into_data().convert::<f32>().try_into_vec::<f32>().map_err(|e| LearnError::Predictions(format!("{e:?}")))
    }
}

fn values<const D: usize>(t: Tensor<D>) -> Result<Vec<f32>, LearnError> {
    t.into_data().convert::<f32>().try_into_vec::<f32>().map_err(|e| LearnError::Predictions(format!("{e}")))
}

fn linear_tensors(prefix: &str, linear: &Linear, out: &mut Vec<NamedTensor>) -> Result<(), LearnError> {
    let w = linear.weight.val();
    let [d_in, d_out] = w.dims();
    out.push(NamedTensor { name: format!("{prefix}.weight"), shape: vec![d_out, d_in], data: values(w.transpose())? });
    if let Some(b) = &linear.bias {
        out.push(NamedTensor { name: format!("{prefix}.bias"), shape: vec![d_out], data: values(b.val())? });
    }
    Ok(())
}

impl Dense {
    fn tensors(&self, prefix: &str, out: &mut Vec<NamedTensor>) -> Result<(), LearnError> {
        linear_tensors(&format!("{prefix}.linear"), &self.linear, out)?;
        if let Some(bn) = &self.norm {
            let c = bn.gamma.dims()[0];
            for (name, t) in [
                ("weight", bn.gamma.val()),
                ("bias", bn.beta.val()),
                ("running_mean", bn.running_mean.value_sync()),
                ("running_var", bn.running_var.value_sync()),
            ] {
                out.push(NamedTensor { name: format!("{prefix}.norm.{name}"), shape: vec![c], data: values(t)? });
            }
        }
        Ok(())
    }
}

impl OracleNet {
    /// Every parameter and batch-norm statistic, named by the module path
    /// and in PyTorch's layout, in forward order: what an export writes.
    ///
    /// # Errors
    /// A tensor that cannot be read back as f32.
    pub fn named_tensors(&self) -> Result<Vec<NamedTensor>, LearnError> {
        let mut out = Vec::new();
        for (i, layer) in self.trunk.iter().enumerate() {
            layer.tensors(&format!("trunk.{i}"), &mut out)?;
        }
        for (i, block) in self.blocks.iter().enumerate() {
            block.first.tensors(&format!("blocks.{i}.first"), &mut out)?;
            block.second.tensors(&format!("blocks.{i}.second"), &mut out)?;
        }
        linear_tensors("head", &self.head, &mut out)?;
        Ok(out)
    }

    /// The batch-norm ε of the network's layers (burn's default, 1e-5),
    /// or `None` without batch norm.
    #[must_use]
    pub fn norm_epsilon(&self) -> Option<f64> {
        self.trunk.iter().find_map(|d| d.norm.as_ref().map(|bn| bn.epsilon))
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
    checkpoint::check_origin(&ck.state, cfg, path)?;
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
    use super::{OracleNet, explain_mismatch, load_model};
    use crate::learn::config::{Encoding, ModelSection, Norm};
    use crate::search::OracleKind;
    use burn::module::Module;
    use burn::tensor::{Device, Tensor, TensorData};

    fn max_diff(a: Tensor<2>, b: Tensor<2>) -> f32 {
        (a - b).abs().max().into_scalar::<f32>()
    }

    fn table(rows: usize, cols: usize, f: impl Fn(usize) -> f32, device: &Device) -> Tensor<2> {
        Tensor::from_data(TensorData::new((0..rows * cols).map(f).collect::<Vec<f32>>(), [rows, cols]), device)
    }

    /// A training step's feature-major forward (on the CPU, the fused
    /// bias → ReLU → batch-norm kernel of `learn::fused`) computes what the
    /// row layout's composed operations compute: the outputs, the weight,
    /// bias, γ and β gradients, and the batch-norm running statistics it
    /// leaves behind.
    #[test]
    fn feature_major_training_matches_the_row_layout() {
        let cfg = ModelSection {
            kind: OracleKind::Policy,
            loss: None,
            forward_targets: None,
            rank_weight: None,
            encoding: Encoding::OneHot,
            hidden: vec![48, 32],
            residual_blocks: 1,
            norm: Norm::Batch,
        };
        let base = Device::flex();
        let dev = base.clone().autodiff();
        let fm_net = OracleNet::new(&cfg, 20, 5, &dev);
        // An independent twin with the same weights and statistics.
        let bytes = fm_net.clone().into_record().into_bytes().expect("a record").to_vec();
        let row_net = load_model(OracleNet::new(&cfg, 20, 5, &dev), bytes, "the twin").expect("the same shape");
        let x = table(64, 20, |i| (i as f32 * 0.61).sin().abs(), &dev);
        // Weight the outputs unevenly so that every gradient is non-trivial.
        let w = table(64, 5, |i| (i as f32 * 0.37).sin(), &dev);

        let fm = fm_net.forward(x.clone());
        let rows = row_net.forward_rows(x);
        assert_eq!(fm.dims(), [64, 5]);
        let d = max_diff(fm.clone().detach(), rows.clone().detach());
        assert!(d < 1e-4, "outputs differ by {d}");

        let g_fm = (fm * w.clone()).sum().backward();
        let g_rows = (rows * w).sum().backward();
        let pairs = [
            (&fm_net.trunk[0].linear, &row_net.trunk[0].linear),
            (&fm_net.trunk[1].linear, &row_net.trunk[1].linear),
            (&fm_net.blocks[0].second.linear, &row_net.blocks[0].second.linear),
            (&fm_net.head, &row_net.head),
        ];
        let close = |what: String, a: Tensor<2>, b: Tensor<2>| {
            let scale = b.clone().abs().max().into_scalar::<f32>();
            let d = max_diff(a, b);
            assert!(scale > 1e-3 && d < 1e-4 * scale.max(1.0), "{what}: gradients differ by {d} (scale {scale})");
        };
        for (i, (a, b)) in pairs.into_iter().enumerate() {
            let (ga, gb) = (a.weight.grad(&g_fm).expect("a gradient"), b.weight.grad(&g_rows).expect("a gradient"));
            close(format!("layer {i} weight"), ga, gb);
            let (a, b) = (a.bias.as_ref().expect("a bias"), b.bias.as_ref().expect("a bias"));
            let (ga, gb) = (a.grad(&g_fm).expect("a gradient"), b.grad(&g_rows).expect("a gradient"));
            close(format!("layer {i} bias"), ga.unsqueeze(), gb.unsqueeze());
        }
        // The batch-norm scale and shift, in the trunk and in a block.
        for (a, b) in [(&fm_net.trunk[1], &row_net.trunk[1]), (&fm_net.blocks[0].first, &row_net.blocks[0].first)] {
            let (a, b) = (a.norm.as_ref().expect("a norm"), b.norm.as_ref().expect("a norm"));
            let g = |p: &burn::module::Param<Tensor<1>>, grads| p.grad(grads).expect("a gradient").unsqueeze();
            close("gamma".into(), g(&a.gamma, &g_fm), g(&b.gamma, &g_rows));
            close("beta".into(), g(&a.beta, &g_fm), g(&b.beta, &g_rows));
        }
        // Inference uses the running statistics each pass updated.
        let probe = table(8, 20, |i| (i as f32 * 1.3).cos(), &base);
        let d = max_diff(fm_net.valid().forward(probe.clone()), row_net.valid().forward(probe));
        assert!(d < 1e-4, "inference after one step differs by {d}");
    }

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
