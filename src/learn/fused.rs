//! One fused training kernel for the CPU backend: bias → ReLU → batch norm
//! over a feature-major batch, forward and backward, as single passes.
//!
//! Every hidden layer of a batch-norm network is `BN(ReLU(Wᵀx + b))`. Built
//! from burn's tensor operations, a training step makes about eighteen
//! passes over each `[features, batch]` activation forward and twenty
//! backward (bias add, ReLU, the statistics, centring, scaling, and one
//! backward kernel per operation), and the profile of the reference config
//! put about a fifth of a step outside the GEMMs, in those passes
//! (`docs/training.md`). Here the forward pass reads `Wᵀx` once and writes
//! the ReLU output and the normalised output; the backward pass reads the
//! output gradient and the ReLU output once and writes the input gradient,
//! with the four parameter-side reductions (bias, γ, β and the statistics)
//! done while each feature's row is in cache. Rows are features, so the
//! work splits across threads by feature.
//!
//! The function is the one burn computes (`batch_norm_train` with the
//! biased batch variance; the ReLU gradient masked where the output is not
//! positive); `learn::model::tests` checks outputs, gradients and running
//! statistics against the composed path. It is a burn backend extension
//! routed for the `flex` CPU backend and for autodiff over it, with a
//! hand-written backward; [`applies`] says when a tensor is on that
//! backend, and every other device (the GPU) keeps the composed operations.

use burn::backend::autodiff::checkpoint::base::Checkpointer;
use burn::backend::autodiff::checkpoint::strategy::CheckpointStrategy;
use burn::backend::autodiff::grads::Gradients;
use burn::backend::autodiff::ops::{Backward, Ops, OpsKind};
use burn::backend::tensor::FloatTensor;
use burn::backend::{Autodiff, Backend, Dispatch, DispatchDevice, Flex, backend_extension};
use burn::tensor::{DType, Shape, Tensor, TensorData};
use rayon::prelude::*;
use std::borrow::Cow;
use std::mem::MaybeUninit;

/// `BN(ReLU(z + bias))` with the batch's own statistics, feature-major.
#[backend_extension(Flex, Autodiff)]
pub trait FusedNormOps: Backend {
    /// `z` is `[features, batch]`; `bias`, `gamma` and `beta` are
    /// `[features]`. Returns the normalised output (`[features, batch]`)
    /// and the batch mean and biased variance of `ReLU(z + bias)` per
    /// feature (for the running statistics; not differentiated).
    fn bias_relu_batch_norm(
        z: FloatTensor<Self>,
        bias: FloatTensor<Self>,
        gamma: FloatTensor<Self>,
        beta: FloatTensor<Self>,
        epsilon: f64,
    ) -> (FloatTensor<Self>, FloatTensor<Self>, FloatTensor<Self>);
}

/// Whether [`bias_relu_batch_norm`] can run on `x`: an `f32` tensor on the
/// CPU (`flex`) backend, with or without autodiff.
#[must_use]
pub fn applies(x: &Tensor<2>) -> bool {
    x.dtype() == DType::F32 && matches!(x.device().inner().as_dispatch(), DispatchDevice::Flex(_))
}

/// `BN(ReLU(z + bias))` over a feature-major batch (see [`FusedNormOps`]):
/// the output, and the batch mean and biased variance per feature.
/// Callers check [`applies`] first.
#[must_use]
pub fn bias_relu_batch_norm(
    z: Tensor<2>,
    bias: Tensor<1>,
    gamma: Tensor<1>,
    beta: Tensor<1>,
    epsilon: f64,
) -> (Tensor<2>, Tensor<1>, Tensor<1>) {
    let (y, mean, var) = <Dispatch as FusedNormOps>::bias_relu_batch_norm(
        z.into_dispatch(),
        bias.into_dispatch(),
        gamma.into_dispatch(),
        beta.into_dispatch(),
        epsilon,
    );
    (Tensor::from_dispatch(y), Tensor::from_dispatch(mean), Tensor::from_dispatch(var))
}

impl FusedNormOps for Flex {
    fn bias_relu_batch_norm(
        z: FloatTensor<Self>,
        bias: FloatTensor<Self>,
        gamma: FloatTensor<Self>,
        beta: FloatTensor<Self>,
        epsilon: f64,
    ) -> (FloatTensor<Self>, FloatTensor<Self>, FloatTensor<Self>) {
        let out = forward_flex(&z, &bias, &gamma, &beta, epsilon);
        (out.y, out.mean, out.var)
    }
}

impl<C: CheckpointStrategy> FusedNormOps for Autodiff<Flex, C> {
    fn bias_relu_batch_norm(
        z: FloatTensor<Self>,
        bias: FloatTensor<Self>,
        gamma: FloatTensor<Self>,
        beta: FloatTensor<Self>,
        epsilon: f64,
    ) -> (FloatTensor<Self>, FloatTensor<Self>, FloatTensor<Self>) {
        let nodes = [z.node(), bias.node(), gamma.node(), beta.node()];
        let gamma = gamma.into_primitive();
        let out = forward_flex(&z.into_primitive(), &bias.into_primitive(), &gamma, &beta.into_primitive(), epsilon);
        let (mean, var) = (<FloatTensor<Self>>::new(out.mean.clone()), <FloatTensor<Self>>::new(out.var.clone()));
        let y = match FusedBackward.prepare::<C>(nodes).compute_bound().stateful() {
            OpsKind::Tracked(prep) => prep.finish((out.h, gamma, out.mean, out.var, epsilon), out.y),
            OpsKind::UnTracked(prep) => prep.finish(out.y),
        };
        (y, mean, var)
    }
}

/// The backward step of the fused layer (state: the ReLU output, γ, the
/// batch mean and variance, ε).
#[derive(Debug)]
struct FusedBackward;

type Primitive = FloatTensor<Flex>;

impl Backward<Flex, 4> for FusedBackward {
    type State = (Primitive, Primitive, Primitive, Primitive, f64);

    fn backward(self, ops: Ops<Self::State, 4>, grads: &mut Gradients, _checkpointer: &mut Checkpointer) {
        let [node_z, node_bias, node_gamma, node_beta] = ops.parents;
        let dy = grads.consume::<Flex>(&ops.node);
        let (h, gamma, mean, var, epsilon) = ops.state;
        let (features, batch) = dims(&h);
        let g = backward_rows(
            &contiguous(&dy),
            &contiguous(&h),
            &contiguous(&gamma),
            &contiguous(&mean),
            &contiguous(&var),
            batch,
            epsilon,
        );
        let grads_out = [
            (node_z, g.dz, vec![features, batch]),
            (node_bias, g.dbias, vec![features]),
            (node_gamma, g.dgamma, vec![features]),
            (node_beta, g.dbeta, vec![features]),
        ];
        for (node, values, shape) in grads_out {
            if let Some(node) = node {
                grads.register::<Flex>(node.id, primitive(values, shape));
            }
        }
    }
}

/// The forward pass's tensors on the CPU backend.
struct FlexForward {
    y: Primitive,
    h: Primitive,
    mean: Primitive,
    var: Primitive,
}

fn forward_flex(z: &Primitive, bias: &Primitive, gamma: &Primitive, beta: &Primitive, epsilon: f64) -> FlexForward {
    let (features, batch) = dims(z);
    let f = forward_rows(&contiguous(z), &contiguous(bias), &contiguous(gamma), &contiguous(beta), batch, epsilon);
    FlexForward {
        y: primitive(f.y, vec![features, batch]),
        h: primitive(f.h, vec![features, batch]),
        mean: primitive(f.mean, vec![features]),
        var: primitive(f.var, vec![features]),
    }
}

fn dims(t: &Primitive) -> (usize, usize) {
    let shape = burn::backend::TensorMetadata::shape(t);
    assert_eq!(shape.num_dims(), 2, "the fused layer takes a [features, batch] tensor");
    (shape[0], shape[1])
}

/// The tensor's values in row-major order (copied only when it is a view).
fn contiguous(t: &Primitive) -> Cow<'_, [f32]> {
    match t.as_slice::<f32>() {
        Some(values) => Cow::Borrowed(values),
        None => Cow::Owned(t.to_contiguous().as_slice::<f32>().expect("a contiguous f32 tensor").to_vec()),
    }
}

fn primitive(values: Vec<f32>, shape: Vec<usize>) -> Primitive {
    <Primitive>::from_data(TensorData::new(values, Shape::from(shape)))
}

/// The fused forward pass over `features` rows of `batch` values.
struct Forward {
    /// Normalised output, `[features, batch]`.
    y: Vec<f32>,
    /// `ReLU(z + bias)`, kept for the backward pass.
    h: Vec<f32>,
    /// Batch mean of `h` per feature.
    mean: Vec<f32>,
    /// Biased batch variance of `h` per feature.
    var: Vec<f32>,
}

/// `y = γ (h − μ) / √(σ² + ε) + β` with `h = ReLU(z + bias)`, per row.
fn forward_rows(z: &[f32], bias: &[f32], gamma: &[f32], beta: &[f32], batch: usize, epsilon: f64) -> Forward {
    // Both outputs are written in full below, so they are not zeroed first
    // (zeroing them cost a few per cent of a bf16 training step).
    let len = z.len();
    let (mut y, mut h) = (Vec::<f32>::with_capacity(len), Vec::<f32>::with_capacity(len));
    let stats: Vec<(f32, f32)> = y.spare_capacity_mut()[..len]
        .par_chunks_mut(batch)
        .zip(h.spare_capacity_mut()[..len].par_chunks_mut(batch))
        .zip(z.par_chunks(batch))
        .enumerate()
        .map(|(c, ((y, h), z))| {
            for (h, &z) in h.iter_mut().zip(z) {
                let v = z + bias[c];
                h.write(if v.is_nan() || v > 0.0 { v } else { 0.0 });
            }
            let h = written(h);
            let mean = lane_sum(h, |v| v) / batch as f32;
            let var = lane_sum(h, |v| (v - mean) * (v - mean)) / batch as f32;
            let scale = gamma[c] / (f64::from(var) + epsilon).sqrt() as f32;
            let shift = beta[c] - mean * scale;
            for (y, &h) in y.iter_mut().zip(h.iter()) {
                y.write(h * scale + shift);
            }
            (mean, var)
        })
        .collect();
    // SAFETY: every row of both was written above (the chunks cover `len`).
    unsafe {
        y.set_len(len);
        h.set_len(len);
    }
    let (mean, var) = stats.into_iter().unzip();
    Forward { y, h, mean, var }
}

/// A chunk whose every element has just been written, as plain floats.
fn written(chunk: &mut [MaybeUninit<f32>]) -> &[f32] {
    // SAFETY: callers pass chunks they wrote in full; `MaybeUninit<f32>`
    // has the layout of `f32`.
    unsafe { &*(std::ptr::from_mut(chunk) as *const [f32]) }
}

/// Gradients of the fused layer: `[features, batch]` for `z`,
/// `[features]` for the rest.
struct Gradient {
    dz: Vec<f32>,
    dbias: Vec<f32>,
    dgamma: Vec<f32>,
    dbeta: Vec<f32>,
}

/// The backward pass of [`forward_rows`] given the output gradient `dy`:
/// with `x̂ = (h − μ)/σ`, `dβ = Σ dy`, `dγ = Σ dy·x̂`,
/// `dh = γ/σ · (dy − dβ/n − x̂·dγ/n)`, `dz = dh` where `h > 0`, and
/// `dbias = Σ dz`.
fn backward_rows(
    dy: &[f32],
    h: &[f32],
    gamma: &[f32],
    mean: &[f32],
    var: &[f32],
    batch: usize,
    epsilon: f64,
) -> Gradient {
    let len = dy.len();
    let mut dz = Vec::<f32>::with_capacity(len);
    let n = batch as f32;
    let sums: Vec<(f32, f32, f32)> = dz.spare_capacity_mut()[..len]
        .par_chunks_mut(batch)
        .zip(dy.par_chunks(batch).zip(h.par_chunks(batch)))
        .enumerate()
        .map(|(c, (dz, (dy, h)))| {
            let inv_std = 1.0 / (f64::from(var[c]) + epsilon).sqrt() as f32;
            let mu = mean[c];
            let dbeta = lane_sum(dy, |v| v);
            let dgamma = lane_dot(dy, h, |g, v| g * (v - mu)) * inv_std;
            let scale = gamma[c] * inv_std;
            let (a, b) = (dbeta / n, dgamma / n * inv_std);
            for ((dz, &g), &v) in dz.iter_mut().zip(dy).zip(h) {
                let grad = scale * (g - a - (v - mu) * b);
                dz.write(if v.is_nan() || v > 0.0 { grad } else { 0.0 });
            }
            let dz = written(dz);
            (lane_sum(dz, |v| v), dgamma, dbeta)
        })
        .collect();
    // SAFETY: every row of `dz` was written above (the chunks cover `len`).
    unsafe { dz.set_len(len) };
    let (dbias, (dgamma, dbeta)) = sums.into_iter().map(|(b, g, beta)| (b, (g, beta))).unzip();
    Gradient { dz, dbias, dgamma, dbeta }
}

/// `Σ f(xᵢ)` in eight independent lanes, so that the loop vectorises.
fn lane_sum(xs: &[f32], f: impl Fn(f32) -> f32) -> f32 {
    lane_dot(xs, xs, |x, _| f(x))
}

/// `Σ f(aᵢ, bᵢ)` in eight independent lanes.
fn lane_dot(a: &[f32], b: &[f32], f: impl Fn(f32, f32) -> f32) -> f32 {
    let mut acc = [0.0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = ca.remainder().iter().zip(cb.remainder()).map(|(&x, &y)| f(x, y)).sum();
    for (xa, xb) in ca.zip(cb) {
        for ((acc, &x), &y) in acc.iter_mut().zip(xa).zip(xb) {
            *acc += f(x, y);
        }
    }
    acc.iter().sum::<f32>() + tail
}
