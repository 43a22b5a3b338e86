//! Mixed-precision training on the CPU: the hidden layers' matrix products
//! with bf16 operands and f32 sums (`[backend] matmul = "bf16"`).
//!
//! Everything else stays f32: the weights and Adam's state, the inputs'
//! encoding, bias, ReLU and batch norm, the head (12 outputs: too small to
//! matter) and every inference pass (validation included), so search does
//! not depend on the choice. Search may ask for the same products on its
//! own (`solve --matmul bf16`, `OracleNet::with_inference_matmul`): the
//! forward of the CPU backend without autodiff then runs them, through
//! the same extension. Each product of a training step `C = A·B` and both of its
//! gradients (`dA = dC·Bᵀ`, `dB = Aᵀ·dC`) round their two operands to bf16
//! and sum the exact products in f32. That is what PyTorch's CPU autocast
//! to bf16 does to a linear layer, and what the bf16 units compute:
//! [`gemm`] runs it on AMX or AVX512-BF16 when the CPU has either; on any
//! other CPU the operands are rounded here and burn's f32 GEMM multiplies
//! them, the same function at f32 speed, so a run's arithmetic does not
//! depend on the machine a leg ran on (up to the order of f32 sums).
//!
//! The choice belongs to the network: `OracleNet::with_matmul` sets it on
//! every hidden layer for training steps and `OracleNet::with_inference_matmul`
//! for inference passes (neither is part of a checkpoint); `train` sets
//! the first from the config, `solve --matmul` the second.

use crate::kernels::gemm::{self, Kernel, View};
use burn::backend::autodiff::checkpoint::base::Checkpointer;
use burn::backend::autodiff::checkpoint::strategy::CheckpointStrategy;
use burn::backend::autodiff::grads::Gradients;
use burn::backend::autodiff::ops::{Backward, Ops, OpsKind};
use burn::backend::ops::FloatTensorOps;
use burn::backend::tensor::FloatTensor;
use burn::backend::{Autodiff, Backend, Dispatch, Flex, backend_extension};
use burn::tensor::{Bytes, DType, FloatDType, Shape, Tensor, TensorData};
use std::sync::OnceLock;

/// The bf16 unit the products run on, `None` for rounded operands in
/// burn's f32 GEMM; detected once per process.
#[must_use]
pub fn kernel() -> Option<Kernel> {
    static KERNEL: OnceLock<Option<Kernel>> = OnceLock::new();
    *KERNEL.get_or_init(Kernel::detect)
}

/// How the products run, for logs and `meta.json`: `amx`,
/// `avx512-bf16`, or `rounded f32`.
#[must_use]
pub fn describe() -> &'static str {
    kernel().map_or("rounded f32", Kernel::name)
}

/// `A·B` with bf16 operands and f32 sums.
#[backend_extension(Flex, Autodiff)]
pub trait MixedMatmulOps: Backend {
    /// `lhs` is `[m, k]`, `rhs` `[k, n]`; the result `[m, n]` (f32).
    fn bf16_matmul(lhs: FloatTensor<Self>, rhs: FloatTensor<Self>) -> FloatTensor<Self>;
}

/// `lhs · rhs` with bf16 operands on any device, through burn's own bf16
/// tensors: both operands cast to bf16, the device's bf16 product (on the
/// GPU, tensor cores where the Vulkan driver offers bf16 cooperative
/// matrices), the result cast back to f32. Differentiable (the casts pass
/// gradients through). Unlike [`matmul`], the result is rounded to bf16
/// before it comes back, as PyTorch's autocast returns it; the GPU's
/// `[backend] matmul = "bf16"` runs this.
#[must_use]
pub fn cast_matmul(lhs: Tensor<2>, rhs: Tensor<2>) -> Tensor<2> {
    lhs.cast(FloatDType::BF16).matmul(rhs.cast(FloatDType::BF16)).cast(FloatDType::F32)
}

/// `lhs · rhs` (2-D, f32, on the CPU backend) with bf16 operands and f32
/// sums, differentiable; see the module documentation.
#[must_use]
pub fn matmul(lhs: Tensor<2>, rhs: Tensor<2>) -> Tensor<2> {
    Tensor::from_dispatch(<Dispatch as MixedMatmulOps>::bf16_matmul(lhs.into_dispatch(), rhs.into_dispatch()))
}

type Primitive = FloatTensor<Flex>;

impl MixedMatmulOps for Flex {
    fn bf16_matmul(lhs: FloatTensor<Self>, rhs: FloatTensor<Self>) -> FloatTensor<Self> {
        product(&lhs, &rhs)
    }
}

impl<C: CheckpointStrategy> MixedMatmulOps for Autodiff<Flex, C> {
    fn bf16_matmul(lhs: FloatTensor<Self>, rhs: FloatTensor<Self>) -> FloatTensor<Self> {
        let nodes = [lhs.node(), rhs.node()];
        let (lhs, rhs) = (lhs.into_primitive(), rhs.into_primitive());
        let out = product(&lhs, &rhs);
        match ProductBackward.prepare::<C>(nodes).compute_bound().stateful() {
            OpsKind::Tracked(prep) => prep.finish((lhs, rhs), out),
            OpsKind::UnTracked(prep) => prep.finish(out),
        }
    }
}

/// The backward step of a bf16 product (state: both operands).
#[derive(Debug)]
struct ProductBackward;

impl Backward<Flex, 2> for ProductBackward {
    type State = (Primitive, Primitive);

    fn backward(self, ops: Ops<Self::State, 2>, grads: &mut Gradients, _checkpointer: &mut Checkpointer) {
        let [node_lhs, node_rhs] = ops.parents;
        let d = grads.consume::<Flex>(&ops.node);
        let (lhs, rhs) = ops.state;
        if let Some(node) = node_lhs {
            grads.register::<Flex>(node.id, product(&d, &rhs.transpose(0, 1)));
        }
        if let Some(node) = node_rhs {
            grads.register::<Flex>(node.id, product(&lhs.transpose(0, 1), &d));
        }
    }
}

/// `lhs · rhs` on this machine's bf16 unit, or on rounded copies in the
/// f32 GEMM.
fn product(lhs: &Primitive, rhs: &Primitive) -> Primitive {
    product_on(kernel(), lhs, rhs)
}

fn product_on(kernel: Option<Kernel>, lhs: &Primitive, rhs: &Primitive) -> Primitive {
    match kernel {
        Some(k) => {
            let (a, b) = (view(lhs), view(rhs));
            let (m, n) = (a.rows, b.cols);
            <Primitive>::from_data(TensorData::new(gemm::matmul(k, a, b), Shape::from(vec![m, n])))
        }
        None => Flex::float_matmul(rounded(lhs), rounded(rhs)),
    }
}

/// A 2-D f32 tensor as a strided view of its storage.
fn view(t: &Primitive) -> View<'_> {
    let layout = t.layout();
    let (rows, cols, row_stride, col_stride) = layout.as_2d_strides().expect("a bf16 product takes 2-D tensors");
    View { data: t.storage::<f32>(), rows, cols, offset: layout.start_offset(), row_stride, col_stride }
}

/// A copy with every value rounded to bf16, in the same layout (a
/// transposed view stays one, so the f32 GEMM sees the strides it would
/// have seen): the whole storage is rounded, one vectorisable pass.
fn rounded(t: &Primitive) -> Primitive {
    let values: Vec<f32> = t.storage::<f32>().iter().map(|&x| gemm::round_bf16(x)).collect();
    <Primitive>::new(Bytes::from_elems(values), t.layout().clone(), DType::F32)
}

#[cfg(test)]
mod tests {
    use super::{Primitive, cast_matmul, matmul, product_on};
    use crate::kernels::gemm::round_bf16;
    use burn::tensor::{Device, Tensor, TensorData};

    fn table(rows: usize, cols: usize, f: impl Fn(usize) -> f32, device: &Device) -> Tensor<2> {
        Tensor::from_data(TensorData::new((0..rows * cols).map(f).collect::<Vec<f32>>(), [rows, cols]), device)
    }

    fn values(t: Tensor<2>) -> Vec<f32> {
        t.into_data().convert::<f32>().try_into_vec::<f32>().expect("f32 values")
    }

    fn rounded(t: Tensor<2>, device: &Device) -> Tensor<2> {
        let dims = t.dims();
        Tensor::from_data(TensorData::new(values(t).into_iter().map(round_bf16).collect::<Vec<f32>>(), dims), device)
    }

    /// Largest difference relative to the larger of `want`'s largest value and 1.
    fn relative_gap(got: Tensor<2>, want: Tensor<2>) -> f32 {
        let (got, want) = (values(got), values(want));
        let scale = want.iter().fold(1.0f32, |m, x| m.max(x.abs()));
        got.iter().zip(&want).map(|(g, w)| (g - w).abs()).fold(0.0, f32::max) / scale
    }

    /// One product `product(wᵀ, x)` on the CPU's autodiff device, with an
    /// upstream gradient: what `product` gave (result, weight gradient,
    /// input gradient), each beside the f32 product of the rounded operands
    /// (the upstream gradient rounded too), and the unrounded operands.
    struct Case {
        got_and_want: [(&'static str, Tensor<2>, Tensor<2>); 3],
        w: Tensor<2>,
        x: Tensor<2>,
    }

    fn case(product: fn(Tensor<2>, Tensor<2>) -> Tensor<2>) -> Case {
        let base = Device::flex();
        let dev = base.clone().autodiff();
        let (m, k, n) = (40, 70, 50);
        // The layers pass the weight transposed (a strided view): so does this.
        let w = table(k, m, |i| (i as f32 * 0.37).sin() * 0.3, &dev).require_grad();
        let x = table(k, n, |i| (i as f32 * 0.11).cos(), &dev).require_grad();
        let up = table(m, n, |i| (i as f32 * 0.53).sin(), &base);
        let out = product(w.clone().transpose(), x.clone());
        assert_eq!(out.dtype(), burn::tensor::DType::F32);
        let grads = (out.clone() * Tensor::from_data(up.to_data(), &dev)).sum().backward();
        let (gw, gx) = (w.grad(&grads).expect("a weight gradient"), x.grad(&grads).expect("an input gradient"));

        let (w0, x0) = (w.inner().detach(), x.inner().detach());
        let (wr, xr, ur) = (rounded(w0.clone(), &base), rounded(x0.clone(), &base), rounded(up, &base));
        let want_out = wr.clone().transpose().matmul(xr.clone());
        let want_gw = xr.matmul(ur.clone().transpose());
        let want_gx = wr.matmul(ur);
        Case {
            got_and_want: [
                ("product", out.inner().detach(), want_out),
                ("weight gradient", gw, want_gw),
                ("input gradient", gx, want_gx),
            ],
            w: w0,
            x: x0,
        }
    }

    /// A bf16 product and both of its gradients are the f32 products of
    /// the rounded operands, the upstream gradient rounded too, however
    /// this machine computes them (on a bf16 unit or in the f32 GEMM); and
    /// they differ from the unrounded f32 products by about bf16's
    /// rounding (2⁻⁹ relative), no more.
    #[test]
    fn products_and_gradients_are_those_of_rounded_operands() {
        let Case { got_and_want, w, x } = case(matmul);
        for (what, got, want) in got_and_want {
            let gap = relative_gap(got, want);
            assert!(gap < 1e-5, "{what}: {gap} from the product of rounded operands");
        }
        let f32_out = w.clone().transpose().matmul(x.clone());
        let gap = relative_gap(matmul(w.transpose(), x), f32_out);
        assert!(gap > 1e-5 && gap < 2e-2, "bf16 against f32: {gap}");
    }

    /// The device-generic product (what the GPU runs), here on the CPU
    /// backend's bf16 tensors: its result and both gradients are the
    /// products of rounded operands (the upstream gradient rounded too),
    /// each rounded to bf16 once more, so within bf16's rounding (2⁻⁸
    /// relative to the largest value) of the CPU's own bf16 product and
    /// its gradients; and the gradients reach the f32 leaves.
    #[test]
    fn the_cast_product_is_a_bf16_product_with_bf16_results() {
        let base = Device::flex();
        for (what, got, want) in case(cast_matmul).got_and_want {
            let gap = relative_gap(got.clone(), want);
            assert!(gap > 0.0 && gap < 2f32.powi(-8), "{what}: {gap} from the product of rounded operands");
            assert_eq!(values(got.clone()), values(rounded(got, &base)), "{what}: every value a bf16 value");
        }
    }

    /// Every bf16 unit of this machine and the rounded f32 path agree.
    #[test]
    fn every_kernel_agrees_with_the_rounded_f32_path() {
        let base = Device::flex();
        let primitive = |rows: usize, cols: usize, f: fn(f32) -> f32| {
            let v: Vec<f32> = (0..rows * cols).map(|i| f(i as f32)).collect();
            <Primitive>::from_data(TensorData::new(v, [rows, cols]))
        };
        let a = primitive(70, 33, |i| (i * 0.29).sin()).transpose(0, 1);
        let b = primitive(70, 65, |i| (i * 0.71).cos());
        let tensor = |p: Primitive| Tensor::<2>::from_data(p.into_data(), &base);
        let slow = tensor(product_on(None, &a, &b));
        let kernels = crate::kernels::gemm::tests::kernels_to_test();
        if kernels.is_empty() {
            // Nothing to compare on this CPU: the rounded-f32 path is held
            // against the product of rounded operands instead.
            eprintln!("no bf16 kernel on this CPU (or built without bf16-kernels): the rounded-f32 path is checked");
            let round = |p: &Primitive| rounded(tensor(p.clone()), &base);
            let want = round(&a).matmul(round(&b));
            assert!(relative_gap(slow.clone(), want) < 1e-5, "the rounded-f32 path is the rounded operands' product");
        }
        for k in kernels {
            let gap = relative_gap(tensor(product_on(Some(k), &a, &b)), slow.clone());
            assert!(gap < 1e-5, "{k:?}: {gap} from the rounded f32 path");
        }
    }
}
