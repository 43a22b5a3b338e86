//! Kernels: the numeric layer under training and inference, with no burn,
//! no search and no puzzle in it. [`gemm`] multiplies strided f32 matrices
//! with bf16 operands and f32 sums on the CPU's bf16 units (AMX tiles,
//! AVX512-BF16), packing operands into tiles; [`compiled`] is a trained
//! network compiled for inference (packed f32, bf16 or int8 weights, the
//! bias, ReLU, batch norm and residual sum in each product's register
//! tile, AVX2, AVX-512 and portable kernels chosen at run time); [`norm`]
//! is the training step's bias → ReLU → batch-norm pass, forward and
//! backward, on feature-major activations; [`amx`]
//! holds the AMX tile state both share; [`weights`] is a network's named
//! f32 tensors and the safetensors format that carries them.
//!
//! The contract of every kernel here: it is chosen at run time from what the
//! CPU reports (never from the build machine), a kernel the CPU lacks is
//! refused with a [`KernelError`] or reported as unavailable, never run,
//! and each one is tested against an f64 evaluation of the same operands
//! (with the rounding of bf16 or int8 applied to the operands first).
//!
//! Architecture invariant: this module imports nothing from `learn`,
//! `search`, `solve` or the puzzles, and compiles without the `learn`
//! feature (`cargo test --no-default-features` builds and tests it). burn's
//! training path reaches these kernels through backend extensions in
//! `learn` (`learn::mixed`, `learn::fused`); `solve` through the compiled network.

#[cfg(target_arch = "x86_64")]
pub mod amx;
pub mod compiled;
pub mod gemm;
pub mod norm;
pub mod weights;

/// Why a kernel or a network cannot be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum KernelError {
    /// A kernel or unit this CPU cannot run, or a pairing the kernels do
    /// not support (AMX tiles outside the AVX-512 kernel).
    #[error("{0}")]
    Unsupported(String),
    /// Weights that do not make the network its shape describes: a tensor
    /// missing or of the wrong size.
    #[error("{0}")]
    Weights(String),
}
