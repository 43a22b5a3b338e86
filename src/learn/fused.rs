//! One fused training operation for the CPU backend: bias → ReLU → batch
//! norm over a feature-major batch, forward and backward, as a burn
//! backend extension with its own backward.
//!
//! Every hidden layer of a batch-norm network is `BN(ReLU(Wᵀx + b))`. Built
//! from burn's tensor operations, a training step makes about eighteen
//! passes over each `[features, batch]` activation forward and twenty
//! backward (bias add, ReLU, the statistics, centring, scaling, and one
//! backward kernel per operation). Here the forward pass reads `Wᵀx` once
//! and writes the ReLU output and the normalised output, and the backward
//! pass reads the output gradient and the ReLU output once and writes the
//! input gradient: the passes are [`crate::kernels::norm`]'s (burn-free,
//! AVX-512, AVX2 or portable code chosen at run time); this module routes
//! them for the `flex` CPU backend and for autodiff over it.
//!
//! The function is the one burn computes (`batch_norm_train` with the
//! biased batch variance; the ReLU gradient masked where the output is not
//! positive); `learn::model::tests` checks outputs, gradients and running
//! statistics against the composed path. [`applies`] says when a tensor is
//! on that backend; every other device (the GPU) keeps the composed
//! operations.

use crate::kernels::norm;
use burn::backend::autodiff::checkpoint::base::Checkpointer;
use burn::backend::autodiff::checkpoint::strategy::CheckpointStrategy;
use burn::backend::autodiff::grads::Gradients;
use burn::backend::autodiff::ops::{Backward, Ops, OpsKind};
use burn::backend::tensor::FloatTensor;
use burn::backend::{Autodiff, Backend, Dispatch, DispatchDevice, Flex, backend_extension};
use burn::tensor::{DType, Shape, Tensor, TensorData};
use std::borrow::Cow;

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
        let g = norm::backward(
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
    let f = norm::forward(&contiguous(z), &contiguous(bias), &contiguous(gamma), &contiguous(beta), batch, epsilon);
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
