//! Learning: everything that knows about the neural network, in the shape
//! of burn's examples. [`config`] (the typed TOML training config),
//! [`data`] (batches as a pure function of seed and index), [`model`] (the
//! oracle network, and loading weights from a checkpoint), [`objective`]
//! (what each oracle kind learns: targets, loss, accuracy), [`backend`]
//! (CPU or GPU device), [`fused`] (the CPU's fused bias → ReLU → batch-norm
//! training kernel), [`checkpoint`] (the checksummed file format),
//! [`training`] (the loop, resume, Ctrl-C, export), [`finetune`] (starting
//! from another run's weights, optionally on Bellman targets), [`diagnostics`] and
//! [`report`] (what a run writes besides its logs), [`inference`] (a
//! trained run as a search [`Oracle`](crate::search::Oracle), on the
//! compiled network of [`crate::kernels`]), [`mixed`] (bf16 products as a
//! burn backend extension on `kernels::gemm`), [`export`]
//! (a run's network as safetensors with a model card), and
//! [`error`] (the layer's typed errors).
//!
//! Architecture invariant: inference imports the model and the checkpoint
//! format, never the training loop; puzzle, heuristic and search code never
//! import this module; the numeric kernels live below it, in
//! [`crate::kernels`], and never import it.

pub mod backend;
pub mod checkpoint;
pub mod config;
pub mod data;
pub mod diagnostics;
pub mod error;
pub mod export;
pub mod finetune;
pub mod fused;
pub mod inference;
pub mod leg;
pub mod mixed;
pub mod model;
pub mod objective;
mod report;
pub use report::held_out_loss;
pub mod training;
