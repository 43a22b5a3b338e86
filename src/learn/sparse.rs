//! The one-hot first layer on the CPU as a row gather-sum: no GEMM over
//! the 324 mostly-zero inputs, forward or backward.
//!
//! A one-hot state has 54 ones among its 324 inputs (one colour per
//! sticker), so `Wᵀx` is the sum of 54 rows of `W`, and the weight
//! gradient adds each sample's output gradient into those 54 rows. As
//! dense GEMMs the two cost `2 · 324 · width` multiply-adds per sample,
//! 7.7% of a reference-network training step's FLOPs; gathered, they cost
//! `2 · 54 · width`. The input is read once per step into compressed rows
//! (the non-zero positions and values of each sample), so any sparse input
//! gives the same answer as the GEMM; only the one-hot encodings are routed
//! here ([`crate::learn::model`]).
//!
//! Work is split by blocks of output features, so that threads never write
//! the same memory: the forward pass fills each block's rows of the
//! feature-major `[width, batch]` output sixteen samples at a time, and the
//! backward pass accumulates each block's columns of the weight gradient in
//! a buffer of its own. A burn backend extension for `flex` and autodiff
//! over it, with a hand-written backward, like [`crate::learn::fused`];
//! `learn::model::tests` checks it against the GEMM.

use burn::backend::autodiff::checkpoint::base::Checkpointer;
use burn::backend::autodiff::checkpoint::strategy::CheckpointStrategy;
use burn::backend::autodiff::grads::Gradients;
use burn::backend::autodiff::ops::{Backward, Ops, OpsKind};
use burn::backend::ops::FloatTensorOps;
use burn::backend::tensor::FloatTensor;
use burn::backend::{Autodiff, Backend, Dispatch, Flex, TensorMetadata, backend_extension};
use burn::tensor::Tensor;
use rayon::prelude::*;

use super::fused::{contiguous as values, primitive};

/// `Wᵀxᵀ` for a sparse `x`, feature-major.
#[backend_extension(Flex, Autodiff)]
pub trait SparseInputOps: Backend {
    /// `x` is `[batch, inputs]` (mostly zeros), `weight` `[inputs, width]`;
    /// the result is `[width, batch]`, the same as `weightᵀ · xᵀ`.
    fn sparse_linear_feature_major(x: FloatTensor<Self>, weight: FloatTensor<Self>) -> FloatTensor<Self>;
}

/// `weightᵀ · xᵀ` (`[width, batch]`) by gathering the rows of `weight`
/// that `x`'s non-zero entries select. Callers check
/// [`crate::learn::fused::applies`] first.
#[must_use]
pub fn linear_feature_major(x: Tensor<2>, weight: Tensor<2>) -> Tensor<2> {
    Tensor::from_dispatch(<Dispatch as SparseInputOps>::sparse_linear_feature_major(
        x.into_dispatch(),
        weight.into_dispatch(),
    ))
}

type Primitive = FloatTensor<Flex>;

impl SparseInputOps for Flex {
    fn sparse_linear_feature_major(x: Primitive, weight: Primitive) -> Primitive {
        let rows = Rows::of(&x);
        forward(&rows, &weight)
    }
}

impl<C: CheckpointStrategy> SparseInputOps for Autodiff<Flex, C> {
    fn sparse_linear_feature_major(x: FloatTensor<Self>, weight: FloatTensor<Self>) -> FloatTensor<Self> {
        let nodes = [x.node(), weight.node()];
        let (x, weight) = (x.into_primitive(), weight.into_primitive());
        let rows = Rows::of(&x);
        let y = forward(&rows, &weight);
        match GatherBackward.prepare::<C>(nodes).compute_bound().stateful() {
            OpsKind::Tracked(prep) => prep.finish((rows, weight), y),
            OpsKind::UnTracked(prep) => prep.finish(y),
        }
    }
}

/// The backward step: the weight gradient by scatter-add; the input's, if
/// it is ever asked for, by a plain GEMM.
#[derive(Debug)]
struct GatherBackward;

impl Backward<Flex, 2> for GatherBackward {
    type State = (Rows, Primitive);

    fn backward(self, ops: Ops<Self::State, 2>, grads: &mut Gradients, _checkpointer: &mut Checkpointer) {
        let [node_x, node_weight] = ops.parents;
        let dy = grads.consume::<Flex>(&ops.node);
        let (rows, weight) = ops.state;
        if let Some(node) = node_x {
            let dx = Flex::float_matmul(Flex::float_transpose(dy.clone()), Flex::float_transpose(weight.clone()));
            grads.register::<Flex>(node.id, dx);
        }
        if let Some(node) = node_weight {
            let width = weight.shape()[1];
            let dw = weight_gradient(&rows, &values(&dy), width);
            grads.register::<Flex>(node.id, primitive(dw, vec![rows.inputs, width]));
        }
    }
}

/// A batch's non-zero inputs, row by row (compressed sparse rows).
#[derive(Clone, Debug)]
struct Rows {
    inputs: usize,
    /// `starts[n]..starts[n + 1]` index sample `n`'s entries.
    starts: Vec<usize>,
    columns: Vec<u32>,
    values: Vec<f32>,
}

impl Rows {
    fn of(x: &Primitive) -> Self {
        let shape = x.shape();
        assert_eq!(shape.num_dims(), 2, "the sparse layer takes a [batch, inputs] tensor");
        let (batch, inputs) = (shape[0], shape[1]);
        let dense = values(x);
        let mut rows = Rows { inputs, starts: Vec::with_capacity(batch + 1), columns: Vec::new(), values: Vec::new() };
        rows.starts.push(0);
        for row in dense.chunks_exact(inputs.max(1)).take(batch) {
            for (k, &v) in row.iter().enumerate() {
                if v != 0.0 {
                    rows.columns.push(k as u32);
                    rows.values.push(v);
                }
            }
            rows.starts.push(rows.columns.len());
        }
        rows
    }

    fn batch(&self) -> usize {
        self.starts.len() - 1
    }

    fn entries(&self, n: usize) -> impl Iterator<Item = (usize, f32)> + '_ {
        let span = self.starts[n]..self.starts[n + 1];
        self.columns[span.clone()].iter().map(|&k| k as usize).zip(self.values[span].iter().copied())
    }
}

/// Output features per task, and samples per transposed block.
const FEATURES: usize = 64;
const SAMPLES: usize = 16;

fn forward(rows: &Rows, weight: &Primitive) -> Primitive {
    let width = weight.shape()[1];
    let w = values(weight);
    let batch = rows.batch();
    let mut out = vec![0.0f32; width * batch];
    if batch > 0 {
        out.par_chunks_mut(FEATURES * batch).enumerate().for_each(|(task, out)| {
            let task = Task { rows, width, c0: task * FEATURES, f: out.len() / batch };
            task.forward_any(&w, out);
        });
    }
    primitive(out, vec![width, batch])
}

/// `dW[k, c] = Σₙ x[n, k] · dy[c, n]`, `[inputs, width]`.
fn weight_gradient(rows: &Rows, dy: &[f32], width: usize) -> Vec<f32> {
    let batch = rows.batch();
    let inputs = rows.inputs;
    let blocks: Vec<Vec<f32>> = if batch == 0 {
        Vec::new()
    } else {
        dy.par_chunks(FEATURES * batch)
            .enumerate()
            .map(|(task, dy)| {
                let task = Task { rows, width, c0: task * FEATURES, f: dy.len() / batch };
                task.weight_gradient_any(dy)
            })
            .collect()
    };
    let mut dw = vec![0.0f32; inputs * width];
    for (task, local) in blocks.iter().enumerate() {
        let c0 = task * FEATURES;
        let f = local.len() / inputs.max(1);
        for k in 0..inputs {
            dw[k * width + c0..k * width + c0 + f].copy_from_slice(&local[k * f..(k + 1) * f]);
        }
    }
    dw
}

/// One thread's share: output features `c0 .. c0 + f` of `width`.
struct Task<'a> {
    rows: &'a Rows,
    width: usize,
    c0: usize,
    f: usize,
}

impl Task<'_> {
    /// This share's rows of the `[width, batch]` output, sixteen samples at
    /// a time: each sample's sum of gathered weight rows, then transposed.
    #[inline(always)]
    fn forward(&self, w: &[f32], out: &mut [f32]) {
        let (batch, width, c0, f) = (self.rows.batch(), self.width, self.c0, self.f);
        let mut acc = vec![0.0f32; SAMPLES * f];
        for n0 in (0..batch).step_by(SAMPLES) {
            let nb = SAMPLES.min(batch - n0);
            acc.fill(0.0);
            for (s, acc) in acc.chunks_exact_mut(f).take(nb).enumerate() {
                for (k, v) in self.rows.entries(n0 + s) {
                    axpy(acc, v, &w[k * width + c0..k * width + c0 + f]);
                }
            }
            for c in 0..f {
                for (s, dst) in out[c * batch + n0..c * batch + n0 + nb].iter_mut().enumerate() {
                    *dst = acc[s * f + c];
                }
            }
        }
    }

    /// This share's columns of the weight gradient, `[inputs, f]`, from its
    /// rows of the output gradient `dy` (`[f, batch]`).
    #[inline(always)]
    fn weight_gradient(&self, dy: &[f32]) -> Vec<f32> {
        let (batch, f) = (self.rows.batch(), self.f);
        let mut local = vec![0.0f32; self.rows.inputs * f];
        let mut g = vec![0.0f32; SAMPLES * f];
        for n0 in (0..batch).step_by(SAMPLES) {
            let nb = SAMPLES.min(batch - n0);
            for c in 0..f {
                for (s, &v) in dy[c * batch + n0..c * batch + n0 + nb].iter().enumerate() {
                    g[s * f + c] = v;
                }
            }
            for (s, g) in g.chunks_exact(f).take(nb).enumerate() {
                for (k, v) in self.rows.entries(n0 + s) {
                    axpy(&mut local[k * f..(k + 1) * f], v, g);
                }
            }
        }
        local
    }
}

/// `acc += v · x`.
#[inline(always)]
fn axpy(acc: &mut [f32], v: f32, x: &[f32]) {
    for (a, &b) in acc.iter_mut().zip(x) {
        *a += v * b;
    }
}

/// Whether this CPU runs the AVX2 + FMA builds of the two kernels (the
/// crate is built for baseline x86-64, whose SSE2 loops are half as wide).
fn has_avx2_fma() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

impl Task<'_> {
    fn forward_any(&self, w: &[f32], out: &mut [f32]) {
        #[cfg(target_arch = "x86_64")]
        if has_avx2_fma() {
            // SAFETY: the CPU has the features `forward_avx2` is built for.
            return unsafe { forward_avx2(self, w, out) };
        }
        self.forward(w, out);
    }

    fn weight_gradient_any(&self, dy: &[f32]) -> Vec<f32> {
        #[cfg(target_arch = "x86_64")]
        if has_avx2_fma() {
            // SAFETY: as above.
            return unsafe { weight_gradient_avx2(self, dy) };
        }
        self.weight_gradient(dy)
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn forward_avx2(task: &Task<'_>, w: &[f32], out: &mut [f32]) {
    task.forward(w, out);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn weight_gradient_avx2(task: &Task<'_>, dy: &[f32]) -> Vec<f32> {
    task.weight_gradient(dy)
}
