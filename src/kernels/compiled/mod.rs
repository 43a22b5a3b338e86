//! The trained network compiled for inference on the CPU: the path every
//! f32 forward of `solve` takes, without burn's tensors.
//!
//! A search asks the network about a batch of states at every depth. Run
//! through burn, each layer is a GEMM over the whole batch followed by
//! separate passes for the bias, ReLU and batch norm, with every
//! activation of the batch written to memory and read back; at the batch
//! sizes of wide beams those activations no longer fit in cache. Here the
//! network is taken apart once, at load, into packed weights and
//! per-feature constants ([`CompiledNet::new`]), and a forward pass
//! ([`CompiledNet::forward`]) pushes blocks of [`BLOCK_ROWS`] rows through
//! *all* layers while they stay in the core's cache, each layer's bias,
//! ReLU, batch norm (in inference form, a per-feature `scale · x + shift`)
//! and residual sum applied to the product's register tile before it is
//! stored ([`kernel`]). Each layer's input is first repacked tile by tile
//! (the six rows of a tile interleaved) so that the kernel reads one
//! stream. Blocks are shared among the threads of rayon's pool.
//!
//! The first layer reads a one-hot encoding (54 ones among 324 inputs for
//! the cube), so it is computed as a sum of the weight rows of the nonzero
//! inputs: exactly the product, with a sixth of its terms. Every other
//! layer's product runs in the register-tiled kernel.
//!
//! With [`Products::Int8`] the dense hidden layers multiply 8-bit weights
//! by 7-bit activations instead ([`int8`]), twice the f32 rate on AVX2
//! and four times on AVX-512 VNNI; with [`Products::Bf16`], bf16 operands
//! with f32 sums ([`bf16`]), twice the f32 rate on AVX512-BF16. The head
//! stays f32 in both; an integer network sums its one-hot first layer in
//! 16-bit integers ([`words`]).
//!
//! The f32 function is the network's (`OracleNet::predict`): sums are formed
//! in another order and the batch norm as `scale · x + shift`, so outputs
//! differ from burn's by float rounding only (the tests compare both with
//! an f64 evaluation of the named tensors). Nothing here knows about burn:
//! the input is the network's named tensors and its shape.

pub mod bf16;
pub mod int8;
pub mod kernel;
pub mod words;

use crate::kernels::KernelError;
use crate::kernels::gemm::round_bf16;
use crate::kernels::weights::NamedTensor;
use bf16::PairLayer;
use int8::{QuantLayer, RowScale, Unit};
use kernel::{Epilogue, KC, Kernel, MR, NR, Part};
use rayon::prelude::*;
use std::cell::RefCell;
use std::collections::HashMap;
use words::Words;

/// Rows pushed through the network together, a multiple of the register
/// tile's 6: 48 rows of 512 activations in and out are 192 KiB, within
/// the L2 of current cores, and a 2^10 beam makes 22 such blocks to share.
pub const BLOCK_ROWS: usize = 8 * MR;

/// Rows of a block are taken a multiple of this at a time: whole f32
/// register tiles and whole integer ones.
const ROW_QUANTUM: usize = 12;
const _: () = assert!(
    ROW_QUANTUM.is_multiple_of(2 * MR)
        && ROW_QUANTUM.is_multiple_of(int8::MR)
        && ROW_QUANTUM.is_multiple_of(int8::MR_512)
        && ROW_QUANTUM.is_multiple_of(bf16::MR)
);
const _: () = assert!(BLOCK_ROWS.is_multiple_of(ROW_QUANTUM));

/// The arithmetic of the dense hidden layers' products (`solve --matmul`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Products {
    /// f32 operands and sums.
    F32,
    /// bf16 operands, f32 sums ([`bf16`]).
    Bf16,
    /// 8-bit weights, 7-bit activations, exact integer sums ([`int8`]).
    Int8,
}

/// How one layer's product is computed.
enum Product {
    /// f32 operands from `Layer::weights`; with `round`, both rounded to
    /// bf16 (the weights at load, the input as it is packed): bf16
    /// products on a kernel without a bf16 unit.
    Float { round: bool },
    /// Integer products.
    Int8(QuantLayer),
    /// bf16 pairs on the bf16 unit.
    Bf16(PairLayer),
}

/// The layout of a batch-norm MLP with residual blocks, as `OracleNet`
/// builds it: `hidden` plain layers, then `residual_blocks` blocks of two
/// layers of the last width, then a linear head.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shape {
    /// Widths of the plain hidden layers (at least one).
    pub hidden: Vec<usize>,
    /// Residual blocks after them.
    pub residual_blocks: usize,
    /// Whether each hidden layer ends in a batch norm.
    pub batch_norm: bool,
    /// Input features.
    pub inputs: usize,
    /// Head outputs.
    pub outputs: usize,
    /// Whether the outputs are turned into log-probabilities (a policy).
    pub log_softmax: bool,
}

/// One layer, packed, with its per-feature constants (all padded to
/// `n`, a multiple of [`NR`], with zeros).
struct Layer {
    /// Input width: the padded width of the layer before, or the raw input
    /// count for the first layer.
    k: usize,
    /// Output width, padded.
    n: usize,
    /// Dense layers: `n / NR` panels of `k × NR` (none for an integer or
    /// bf16-pair layer); the first layer: `k × n`, one row of outputs per
    /// input, in slabs of columns ([`slab_major`]).
    weights: Floats,
    bias: Vec<f32>,
    scale: Vec<f32>,
    shift: Vec<f32>,
    relu: bool,
    /// Whether the layer's output is added to the input of the block it
    /// closes.
    closes_block: bool,
    /// How its product is computed (the first layer: always `Float`).
    product: Product,
}

impl Layer {
    fn epilogue(&self, from: usize) -> Epilogue<'_> {
        Epilogue { bias: &self.bias[from..], relu: self.relu, scale: &self.scale[from..], shift: &self.shift[from..] }
    }
}

/// The network ready for CPU inference ([module docs](self)).
pub struct CompiledNet {
    shape: Shape,
    products: Products,
    /// The first layer (sparse), the other hidden layers, the head.
    layers: Vec<Layer>,
    kernel: Kernel,
    /// What multiplies the integers of an integer layer.
    int8_unit: Unit,
    /// The widest padded activation.
    widest: usize,
    /// An integer network's first layer as 16-bit integers, for one-hot
    /// rows ([`words`]).
    first_words: Option<Words>,
}

fn padded(n: usize) -> usize {
    n.div_ceil(NR) * NR
}

/// A float buffer aligned to 64 bytes: a weight panel's row of [`NR`]
/// floats, and every activation row (strides are multiples of [`NR`]), is
/// then one cache line, and no load straddles two.
#[derive(Default)]
struct Floats {
    lines: Vec<Line>,
    len: usize,
}

#[derive(Clone, Copy, Default)]
#[repr(C, align(64))]
struct Line([f32; NR]);

impl Floats {
    fn zeros(len: usize) -> Self {
        Self { lines: vec![Line::default(); len.div_ceil(NR)], len }
    }

    /// At least `len` floats (new ones are zero).
    fn reserve(&mut self, len: usize) {
        if self.len < len {
            self.lines.resize(len.div_ceil(NR), Line::default());
            self.len = len;
        }
    }
}

impl std::ops::Deref for Floats {
    type Target = [f32];
    fn deref(&self) -> &[f32] {
        // SAFETY: `lines` holds `len.div_ceil(NR) · NR ≥ len` initialised
        // floats, contiguous (`Line` is `repr(C)` of `[f32; NR]`, 64 bytes).
        unsafe { std::slice::from_raw_parts(self.lines.as_ptr().cast::<f32>(), self.len) }
    }
}

impl std::ops::DerefMut for Floats {
    fn deref_mut(&mut self) -> &mut [f32] {
        // SAFETY: as for `deref`, with the unique borrow of `lines`.
        unsafe { std::slice::from_raw_parts_mut(self.lines.as_mut_ptr().cast::<f32>(), self.len) }
    }
}

/// Per-thread scratch: three activation buffers of `BLOCK_ROWS` rows, and
/// the nonzero inputs of its rows, reused from call to call.
#[derive(Default)]
struct Scratch {
    buffers: [Floats; 3],
    /// The nonzero inputs of every row.
    nonzero: kernel::Nonzeros,
    /// A layer's input, packed tile by tile for the kernel.
    packed: Floats,
    /// An integer layer's buffers.
    int8: Int8Scratch,
    /// A bf16 layer's input in pairs, tile by tile, and one row's pairs.
    pairs: Vec<u32>,
    row_pairs: Vec<u32>,
}

/// An integer layer's input as bytes (laid out as its unit reads them),
/// each row's scale, and a panel's sums where they are formed on tiles.
#[derive(Default)]
struct Int8Scratch {
    bytes: Vec<u8>,
    row_scales: Vec<RowScale>,
    sums: Vec<i32>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

impl CompiledNet {
    /// Packs the network whose tensors are `tensors` (as
    /// `OracleNet::named_tensors` gives them: `trunk.0.linear.weight`, …,
    /// `head.bias`, in PyTorch's layout) with batch-norm ε `epsilon`, for
    /// `kernel`, the dense hidden layers' products as `products` says.
    ///
    /// # Errors
    /// A tensor missing or of the wrong size, or a kernel this CPU lacks.
    pub fn new(
        tensors: &[NamedTensor],
        shape: Shape,
        epsilon: f64,
        kernel: Kernel,
        products: Products,
    ) -> Result<Self, KernelError> {
        if !kernel.available() {
            return Err(KernelError::Unsupported(format!("this CPU cannot run the {} f32 kernel", kernel.name())));
        }
        let tensors: HashMap<&str, &NamedTensor> = tensors.iter().map(|t| (t.name.as_str(), t)).collect();
        let get = |name: &str, len: usize| -> Result<&[f32], KernelError> {
            match tensors.get(name) {
                Some(t) if t.data.len() == len => Ok(&t.data),
                Some(t) => Err(KernelError::Weights(format!("{name} has shape {:?}, not {len} values", t.shape))),
                None => Err(KernelError::Weights(format!("the network has no tensor {name}"))),
            }
        };
        let mut names: Vec<(String, bool)> = (0..shape.hidden.len()).map(|i| (format!("trunk.{i}"), false)).collect();
        for b in 0..shape.residual_blocks {
            names.push((format!("blocks.{b}.first"), false));
            names.push((format!("blocks.{b}.second"), true));
        }
        let mut widths = shape.hidden.clone();
        let last = *shape.hidden.last().ok_or_else(|| KernelError::Weights("a network with no hidden layer".into()))?;
        widths.extend(std::iter::repeat_n(last, 2 * shape.residual_blocks));
        let mut layers = Vec::with_capacity(names.len() + 1);
        let mut d_in = shape.inputs;
        let mut first_words = None;
        for (i, ((prefix, closes_block), &d_out)) in names.iter().zip(&widths).enumerate() {
            let w = get(&format!("{prefix}.linear.weight"), d_out * d_in)?;
            let b = get(&format!("{prefix}.linear.bias"), d_out)?;
            let n = padded(d_out);
            let (scale, shift) = if shape.batch_norm {
                let p = |what: &str| get(&format!("{prefix}.norm.{what}"), d_out);
                let (gamma, beta, mean, var) = (p("weight")?, p("bias")?, p("running_mean")?, p("running_var")?);
                let mut scale = vec![0.0; n];
                let mut shift = vec![0.0; n];
                for j in 0..d_out {
                    let s = f64::from(gamma[j]) / (f64::from(var[j]) + epsilon).sqrt();
                    scale[j] = s as f32;
                    shift[j] = (f64::from(beta[j]) - f64::from(mean[j]) * s) as f32;
                }
                (scale, shift)
            } else {
                identity(d_out, n)
            };
            // An integer or bf16-pair layer keeps only those weights.
            let k = if i == 0 { d_in } else { padded(d_in) };
            let rounded: Vec<f32>;
            let w = if products == Products::Bf16 {
                rounded = w.iter().map(|&v| round_bf16(v)).collect();
                &rounded
            } else {
                w
            };
            if i == 0 && products == Products::Int8 {
                first_words = Words::new(w, d_out, d_in, n);
            }
            let (weights, product) = match (i, products, kernel) {
                (0, _, _) => (slab_major(w, d_out, d_in, n), Product::Float { round: false }),
                (_, Products::F32, _) => (panels(w, d_out, d_in), Product::Float { round: false }),
                (_, Products::Bf16, Kernel::Avx512) => {
                    (Floats::default(), Product::Bf16(PairLayer::new(w, d_out, d_in, k, n)))
                }
                (_, Products::Bf16, Kernel::Avx2Fma | Kernel::Portable) => {
                    (panels(w, d_out, d_in), Product::Float { round: true })
                }
                (_, Products::Int8, _) => (Floats::default(), Product::Int8(QuantLayer::new(w, d_out, d_in, k, n))),
            };
            layers.push(Layer {
                k,
                n,
                weights,
                bias: pad(b, n),
                scale,
                shift,
                relu: true,
                closes_block: *closes_block,
                product,
            });
            d_in = d_out;
        }
        let n = padded(shape.outputs);
        let w = get("head.weight", shape.outputs * d_in)?;
        let b = get("head.bias", shape.outputs)?;
        let (scale, shift) = identity(shape.outputs, n);
        layers.push(Layer {
            k: padded(d_in),
            n,
            weights: panels(w, shape.outputs, d_in),
            bias: pad(b, n),
            scale,
            shift,
            relu: false,
            closes_block: false,
            product: Product::Float { round: false },
        });
        let widest = layers.iter().map(|l| l.n).max().unwrap_or(NR);
        Ok(Self { shape, products, layers, kernel, int8_unit: Unit::Vector, widest, first_words })
    }

    /// The same network with its integer products on `unit` (an f32 or
    /// bf16 network keeps its products; the unit is then recorded only).
    ///
    /// # Errors
    /// A unit this CPU lacks; AMX tiles around a kernel other than
    /// `avx512`, or on an integer layer whose input width is no multiple
    /// of 64 (a tile's row).
    pub fn with_int8_unit(mut self, unit: Unit) -> Result<Self, KernelError> {
        if !unit.available() {
            return Err(KernelError::Unsupported(format!(
                "this CPU cannot run integer products on {}",
                int8::unit_name(self.kernel, unit)
            )));
        }
        if unit == Unit::AmxTiles && self.kernel != Kernel::Avx512 {
            return Err(KernelError::Unsupported(format!(
                "AMX tiles run inside the avx512 kernel, not {}",
                self.kernel.name()
            )));
        }
        if unit.on_tiles()
            && let Some((i, k)) = self.misfit_for_tiles()
        {
            return Err(KernelError::Unsupported(format!(
                "AMX tiles take layer inputs in rows of {}, and hidden layer {i} has {k} inputs: use \
                 CUBE_ORACLE_INT8_KERNEL=vector for this network",
                int8::tiles::TILE_K,
            )));
        }
        self.int8_unit = unit;
        Ok(self)
    }

    /// The same network with its integer products on the best unit for it
    /// where `CUBE_ORACLE_INT8_KERNEL` is unset: AMX tiles where the CPU
    /// has AMX-INT8, the kernel is `avx512` and every integer layer's
    /// input width is a multiple of a tile's row; else the kernel's own
    /// vector instructions.
    #[must_use]
    pub fn with_best_int8_unit(mut self) -> Self {
        let tiles = self.kernel == Kernel::Avx512 && Unit::AmxTiles.available() && self.misfit_for_tiles().is_none();
        self.int8_unit = if tiles { Unit::AmxTiles } else { Unit::Vector };
        self
    }

    /// The first integer layer (its index and input width) whose inputs
    /// do not come in whole tile rows, if any.
    fn misfit_for_tiles(&self) -> Option<(usize, usize)> {
        self.layers.iter().enumerate().find_map(|(i, layer)| match &layer.product {
            Product::Int8(q) if !q.k.is_multiple_of(int8::tiles::TILE_K) => Some((i, q.k)),
            _ => None,
        })
    }

    /// What multiplies the integers of an integer network.
    #[must_use]
    pub fn int8_unit(&self) -> Unit {
        self.int8_unit
    }

    /// The kernel the products run on.
    #[must_use]
    pub fn kernel(&self) -> Kernel {
        self.kernel
    }

    /// The dense hidden layers' arithmetic.
    #[must_use]
    pub fn products(&self) -> Products {
        self.products
    }

    /// The network's outputs for `rows` encoded states (`inputs`, row-major,
    /// `rows × shape.inputs`) into `out` (`rows × shape.outputs`).
    ///
    /// # Panics
    /// When `inputs` or `out` is shorter than `rows` rows.
    pub fn forward(&self, inputs: &[f32], rows: usize, out: &mut [f32]) {
        let (d_in, d_out) = (self.shape.inputs, self.shape.outputs);
        assert!(inputs.len() >= rows * d_in && out.len() >= rows * d_out, "a batch shorter than its rows");
        let inputs = &inputs[..rows * d_in];
        let out = &mut out[..rows * d_out];
        let block = |(x, y): (&[f32], &mut [f32])| {
            SCRATCH.with(|s| self.forward_block(x, y, &mut s.borrow_mut()));
        };
        if rows <= BLOCK_ROWS {
            block((inputs, out));
        } else {
            inputs.par_chunks(BLOCK_ROWS * d_in).zip(out.par_chunks_mut(BLOCK_ROWS * d_out)).for_each(block);
        }
    }

    /// Up to [`BLOCK_ROWS`] rows through every layer.
    fn forward_block(&self, x: &[f32], y: &mut [f32], scratch: &mut Scratch) {
        let (d_in, d_out) = (self.shape.inputs, self.shape.outputs);
        let rows = x.len() / d_in;
        // Whole tiles: the rows past `rows` are computed from zeros and dropped.
        let tiles = rows.div_ceil(ROW_QUANTUM) * ROW_QUANTUM / MR;
        let ld = self.stride();
        let len = tiles * MR * ld;
        for b in &mut scratch.buffers {
            b.reserve(len);
        }
        let [b0, b1, b2] = &mut scratch.buffers;
        let (mut cur, mut next, mut spare) = (b0, b1, b2);

        // The first layer, from the nonzero inputs of each row.
        scratch.nonzero.clear(d_in);
        for r in 0..tiles * MR {
            if r < rows {
                scratch.nonzero.push(&x[r * d_in..(r + 1) * d_in]);
            } else {
                scratch.nonzero.push_zeros();
            }
        }
        if self.products == Products::Bf16 {
            scratch.nonzero.round_values(round_bf16);
        }
        let first = &self.layers[0];
        match &self.first_words {
            Some(words) if scratch.nonzero.ones() => {
                words::sparse_words(self.kernel, &scratch.nonzero, words, &first.epilogue(0), cur, ld);
            }
            _ => {
                kernel::sparse_rows(self.kernel, &scratch.nonzero, &first.weights, first.n, &first.epilogue(0), cur, ld)
            }
        }

        // The other layers: `cur` holds the input, `spare` the input of the
        // open residual block. AMX tiles are configured on this thread for
        // the block's layers, and released after them.
        #[cfg(target_arch = "x86_64")]
        if self.int8_unit == Unit::AmxTiles {
            crate::kernels::amx::configure();
        }
        for (i, layer) in self.layers.iter().enumerate().skip(1) {
            let residual = layer.closes_block.then_some(&**spare);
            match &layer.product {
                Product::Int8(q) => self.dense_int8(layer, q, cur, residual, next, tiles * MR, &mut scratch.int8),
                Product::Bf16(pairs) => {
                    let (pairs_buf, row) = (&mut scratch.pairs, &mut scratch.row_pairs);
                    self.dense_bf16(layer, pairs, cur, residual, next, tiles * MR, pairs_buf, row)
                }
                Product::Float { round } => self.dense(layer, *round, cur, residual, next, tiles, &mut scratch.packed),
            }
            if layer.closes_block {
                // next = block output; the block input (`spare`) is free.
                std::mem::swap(&mut cur, &mut next);
            } else if self.layers.get(i + 1).is_some_and(|l| l.closes_block) {
                // The first layer of a block: its input is the block's.
                std::mem::swap(&mut spare, &mut cur);
                std::mem::swap(&mut cur, &mut next);
            } else {
                std::mem::swap(&mut cur, &mut next);
            }
        }
        #[cfg(target_arch = "x86_64")]
        if self.int8_unit == Unit::AmxTiles {
            crate::kernels::amx::release();
        }
        for (r, out) in y.chunks_exact_mut(d_out).enumerate() {
            out.copy_from_slice(&cur[r * ld..r * ld + d_out]);
            if self.shape.log_softmax {
                log_softmax(out);
            }
        }
    }

    /// The row stride of every activation buffer: the widest layer plus
    /// one panel, so that the rows of a tile (read together) do not share
    /// the few L1 sets a power-of-two stride would put them in.
    fn stride(&self) -> usize {
        self.widest + NR
    }

    /// One dense layer over `tiles` register tiles of rows: `dst = layer(src)
    /// (+ residual)`, rows at the buffers' stride; the input rounded to
    /// bf16 as it is packed when `round`.
    #[allow(clippy::too_many_arguments)]
    fn dense(
        &self,
        layer: &Layer,
        round: bool,
        src: &[f32],
        residual: Option<&[f32]>,
        dst: &mut [f32],
        tiles: usize,
        packed: &mut Floats,
    ) {
        let (k, n, ld) = (layer.k, layer.n, self.stride());
        let rows = tiles * MR;
        assert!(k <= ld && n <= ld && src.len() >= rows * ld && dst.len() >= rows * ld);
        assert!(residual.is_none_or(|r| r.len() >= rows * ld));
        assert!(layer.weights.len() == k * n);
        // Tile t's input as k columns of MR: packed[t·k·MR + p·MR + r].
        packed.reserve(rows * k);
        for (t, tile) in packed[..rows * k].chunks_exact_mut(k * MR).enumerate() {
            let rows: [&[f32]; MR] = std::array::from_fn(|r| &src[(t * MR + r) * ld..(t * MR + r) * ld + k]);
            for (p, column) in tile.chunks_exact_mut(MR).enumerate() {
                for (v, row) in column.iter_mut().zip(&rows) {
                    *v = row[p];
                }
            }
            if round {
                tile.iter_mut().for_each(|v| *v = round_bf16(*v));
            }
        }
        // Row tiles per call of the kernel: the count is a multiple (rows
        // come a ROW_QUANTUM at a time).
        let step = self.kernel.tile_rows() / MR;
        assert!(tiles.is_multiple_of(step));
        for (p, panel) in layer.weights.chunks_exact(k * NR).enumerate() {
            let epi = layer.epilogue(p * NR);
            for k0 in (0..k).step_by(KC) {
                let kc = KC.min(k - k0);
                let part = Part { first: k0 == 0, last: k0 + kc == k };
                for t in (0..tiles).step_by(step) {
                    let at = t * MR * ld;
                    let res = residual.map_or(std::ptr::null(), |r| r[at + p * NR..].as_ptr());
                    // SAFETY: the asserts above bound every row and panel;
                    // the epilogue's slices have NR values from p·NR; the
                    // kernel was checked available when the network was
                    // compiled.
                    unsafe {
                        kernel::tile(
                            self.kernel,
                            packed[t * k * MR + k0 * MR..].as_ptr(),
                            k * MR,
                            panel[k0 * NR..].as_ptr(),
                            kc,
                            part,
                            &epi,
                            res,
                            dst[at + p * NR..].as_mut_ptr(),
                            ld,
                        );
                    }
                }
            }
        }
    }

    /// [`CompiledNet::dense`] with integer products, on the network's
    /// integer unit: the f32 kernel's instructions or tiles.
    #[allow(clippy::too_many_arguments)]
    fn dense_int8(
        &self,
        layer: &Layer,
        q: &QuantLayer,
        src: &[f32],
        residual: Option<&[f32]>,
        dst: &mut [f32],
        rows: usize,
        scratch: &mut Int8Scratch,
    ) {
        let ld = self.stride();
        assert!(q.k <= ld && q.n <= ld);
        assert!(src.len() >= rows * ld && dst.len() >= rows * ld);
        assert!(residual.is_none_or(|r| r.len() >= rows * ld));
        match self.int8_unit {
            Unit::Vector => self.int8_vector(layer, q, src, residual, dst, rows, scratch),
            // The thread's tiles were configured by `forward_block`.
            #[cfg(target_arch = "x86_64")]
            Unit::AmxTiles => self.int8_on_tiles(&mut int8::tiles::Amx, layer, q, src, residual, dst, rows, scratch),
            #[cfg(not(target_arch = "x86_64"))]
            Unit::AmxTiles => unreachable!("AMX is never available off x86-64"),
            #[cfg(test)]
            Unit::EmulatedTiles => {
                let mut emulated = int8::tiles::Emulated::default();
                self.int8_on_tiles(&mut emulated, layer, q, src, residual, dst, rows, scratch);
            }
        }
    }

    /// [`CompiledNet::dense_int8`] on the kernel's vector instructions:
    /// each of `rows` input rows quantised to bytes, then every integer
    /// tile of every panel.
    #[allow(clippy::too_many_arguments)]
    fn int8_vector(
        &self,
        layer: &Layer,
        q: &QuantLayer,
        src: &[f32],
        residual: Option<&[f32]>,
        dst: &mut [f32],
        rows: usize,
        scratch: &mut Int8Scratch,
    ) {
        let (k, n, ld, mr) = (q.k, q.n, self.stride(), int8::tile_rows(self.kernel));
        assert!(rows.is_multiple_of(mr));
        let Int8Scratch { bytes, row_scales, .. } = scratch;
        int8::quantize_rows(self.kernel, src, ld, k, rows, bytes, row_scales);
        let panels = n / NR;
        // Panels two at a time (the last alone when their count is odd).
        for p in (0..panels).step_by(2) {
            let epi = layer.epilogue(p * NR);
            for (t, scales) in row_scales.chunks_exact(mr).enumerate() {
                let at = t * mr * ld;
                let res = residual.map_or(std::ptr::null(), |r| r[at + p * NR..].as_ptr());
                let (u, c) = (bytes[t * mr * k..].as_ptr(), dst[at + p * NR..].as_mut_ptr());
                // SAFETY: the asserts above bound every row; `bytes` holds
                // `rows × k`; the epilogue's slices have NR values from
                // p·NR (2·NR where p + 1 < n / NR); the kernel was checked
                // available when the network was compiled.
                unsafe {
                    if p + 1 < panels {
                        int8::tile_pair(self.kernel, u, k, scales, q, p, &epi, res, c, ld);
                    } else {
                        int8::tile(self.kernel, u, k, scales, q, p, &epi, res, c, ld);
                    }
                }
            }
        }
    }
}

impl CompiledNet {
    /// [`CompiledNet::dense_int8`] on tiles: the `rows` input rows
    /// quantised row after row (padded with zero rows to whole tiles), each
    /// panel's integer sums formed for up to [`int8::tiles::ROW_TILES`]
    /// row tiles at a time, then finished as the vector kernels finish
    /// theirs.
    #[allow(clippy::too_many_arguments)]
    fn int8_on_tiles<T: int8::tiles::Tiles>(
        &self,
        tiles: &mut T,
        layer: &Layer,
        q: &QuantLayer,
        src: &[f32],
        residual: Option<&[f32]>,
        dst: &mut [f32],
        rows: usize,
        scratch: &mut Int8Scratch,
    ) {
        use int8::tiles::{ROW_TILES, TILE_ROWS};
        let (k, n, ld) = (q.k, q.n, self.stride());
        assert!(k.is_multiple_of(int8::tiles::TILE_K));
        let Int8Scratch { bytes, row_scales, sums } = scratch;
        // Row after row: the layout of the AVX2 and portable kernels (the
        // same integers on every kernel).
        let layout = match self.kernel {
            Kernel::Avx512 | Kernel::Avx2Fma => Kernel::Avx2Fma,
            Kernel::Portable => Kernel::Portable,
        };
        int8::quantize_rows(layout, src, ld, k, rows, bytes, row_scales);
        let row_tiles = rows.div_ceil(TILE_ROWS);
        bytes.resize(row_tiles * TILE_ROWS * k, 0);
        bytes[rows * k..].fill(0);
        sums.resize(row_tiles * TILE_ROWS * NR, 0);
        for p in 0..n / NR {
            for t in (0..row_tiles).step_by(ROW_TILES) {
                let count = ROW_TILES.min(row_tiles - t);
                // SAFETY: `bytes` holds `row_tiles` tiles of 16 rows of k
                // bytes (resized above), k is a multiple of 64 (asserted),
                // p < n / NR, `sums` holds every row tile's 256 integers;
                // on AMX the caller configured this thread.
                unsafe {
                    int8::tiles::panel_sums(
                        tiles,
                        bytes[t * TILE_ROWS * k..].as_ptr(),
                        q,
                        p,
                        count,
                        &mut sums[t * TILE_ROWS * NR..],
                    );
                }
            }
            let res = residual.map_or(std::ptr::null(), |r| r[p * NR..].as_ptr());
            // SAFETY: `sums` holds `rows` rows of NR; `dst` and `res` hold
            // `rows` rows at stride ld from p·NR, with NR ≤ ld − p·NR; the
            // epilogue's slices NR values from p·NR; the kernel was checked
            // available when the network was compiled.
            unsafe {
                int8::finish(
                    self.kernel,
                    &sums[..rows * NR],
                    &row_scales[..rows],
                    q,
                    p,
                    &layer.epilogue(p * NR),
                    res,
                    dst[p * NR..].as_mut_ptr(),
                    ld,
                );
            }
        }
    }

    /// [`CompiledNet::dense`] with bf16 pairs on the bf16 unit: the
    /// `rows` input rows rounded into pairs, packed tile by tile, then
    /// every tile of every panel.
    #[allow(clippy::too_many_arguments)]
    fn dense_bf16(
        &self,
        layer: &Layer,
        pl: &PairLayer,
        src: &[f32],
        residual: Option<&[f32]>,
        dst: &mut [f32],
        rows: usize,
        pairs: &mut Vec<u32>,
        row_pairs: &mut Vec<u32>,
    ) {
        let (k, n, ld) = (pl.k, pl.n, self.stride());
        assert!(rows.is_multiple_of(bf16::MR) && k <= ld && n <= ld && k.is_multiple_of(2));
        assert!(src.len() >= rows * ld && dst.len() >= rows * ld);
        assert!(residual.is_none_or(|r| r.len() >= rows * ld));
        assert!(self.kernel == Kernel::Avx512, "bf16 pairs run on the AVX-512 kernel only");
        let half = k / 2;
        pairs.resize(rows * half, 0);
        for (t, out) in pairs.chunks_exact_mut(half * bf16::MR).enumerate() {
            bf16::pack_tile(self.kernel, &src[t * bf16::MR * ld..], ld, k, row_pairs, out);
        }
        let panels = n / NR;
        // Panels two at a time (the last alone when their count is odd).
        for p in (0..panels).step_by(2) {
            let epi = layer.epilogue(p * NR);
            for t in 0..rows / bf16::MR {
                let at = t * bf16::MR * ld;
                let res = residual.map_or(std::ptr::null(), |r| r[at + p * NR..].as_ptr());
                let (x, c) = (pairs[t * bf16::MR * half..].as_ptr(), dst[at + p * NR..].as_mut_ptr());
                #[cfg(target_arch = "x86_64")]
                // SAFETY: the asserts above bound every row; `pairs` holds
                // `rows × k/2`, tile by tile; the epilogue's slices have NR
                // values from p·NR (2·NR where p + 1 < n / NR); the AVX-512
                // kernel (asserted) was checked available when the network
                // was compiled.
                unsafe {
                    if p + 1 < panels {
                        bf16::tile_pair(x, pl, p, &epi, res, c, ld);
                    } else {
                        bf16::tile(x, pl, p, &epi, res, c, ld);
                    }
                }
                #[cfg(not(target_arch = "x86_64"))]
                let _ = (x, c, res, &epi);
            }
        }
    }
}

/// The kernel `CUBE_ORACLE_F32_KERNEL` asks for: unset, the best this CPU
/// runs; `avx512`, `avx2` or `portable`, that one; `burn`, none (the
/// network runs on burn's own operations, for comparisons).
///
/// # Errors
/// Another value, or a kernel this CPU lacks: a request is never quietly
/// replaced by another kernel.
pub fn requested() -> Result<Option<Kernel>, String> {
    match std::env::var("CUBE_ORACLE_F32_KERNEL") {
        Err(std::env::VarError::NotPresent) => requested_from(None),
        Err(std::env::VarError::NotUnicode(_)) => {
            Err("CUBE_ORACLE_F32_KERNEL is not UTF-8: use avx512, avx2, portable or burn".into())
        }
        Ok(w) => requested_from(Some(&w)),
    }
}

/// [`requested`] for the variable's value `w` (`None`: unset).
///
/// # Errors
/// As [`requested`].
pub fn requested_from(w: Option<&str>) -> Result<Option<Kernel>, String> {
    let allowed = "use avx512, avx2, portable or burn";
    match w {
        None => Ok(Some(Kernel::best())),
        Some("burn") => Ok(None),
        Some(w) => match Kernel::ALL.into_iter().find(|k| k.name() == w) {
            Some(k) if k.available() => Ok(Some(k)),
            Some(k) => Err(format!("CUBE_ORACLE_F32_KERNEL={w}: this CPU cannot run the {} kernel", k.name())),
            None => Err(format!(
                "CUBE_ORACLE_F32_KERNEL={:?} is not a kernel: {allowed}",
                w.chars().take(40).collect::<String>()
            )),
        },
    }
}

/// The per-feature map of a layer without batch norm: scale 1 and shift 0
/// on the `d` real features, 0 on the padding up to `n`.
fn identity(d: usize, n: usize) -> (Vec<f32>, Vec<f32>) {
    let mut scale = vec![0.0; n];
    scale[..d].fill(1.0);
    (scale, vec![0.0; n])
}

/// `v` followed by zeros up to `n`.
fn pad(v: &[f32], n: usize) -> Vec<f32> {
    let mut out = v.to_vec();
    out.resize(n, 0.0);
    out
}

/// A PyTorch-layout weight (`d_out × d_in`) as `d_in` rows of `n` outputs,
/// slab by slab as [`kernel::sparse_rows`] reads it: the columns of a
/// slab ([`kernel::slab_width`]) of every row together, so that a slab is
/// one contiguous run of memory (rows a whole weight row apart would fall
/// into a few L1 sets and evict one another).
fn slab_major(w: &[f32], d_out: usize, d_in: usize, n: usize) -> Floats {
    let mut out = Floats::zeros(d_in * n);
    for o in 0..d_out {
        for i in 0..d_in {
            out[kernel::slab_index(d_in, n, i, o)] = w[o * d_in + i];
        }
    }
    out
}

/// A PyTorch-layout weight (`d_out × d_in`) as panels of [`NR`] outputs:
/// panel `j` is `padded(d_in) × NR`, row `i` holding `W[16j..16j+16][i]`.
fn panels(w: &[f32], d_out: usize, d_in: usize) -> Floats {
    let (k, n) = (padded(d_in), padded(d_out));
    let mut out = Floats::zeros(k * n);
    for o in 0..d_out {
        let (panel, col) = (o / NR, o % NR);
        for i in 0..d_in {
            out[panel * k * NR + i * NR + col] = w[o * d_in + i];
        }
    }
    out
}

/// `x − log Σ exp x`, in place.
fn log_softmax(x: &mut [f32]) {
    let max = x.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let sum: f32 = x.iter().map(|&v| (v - max).exp()).sum();
    let log = max + sum.ln();
    for v in x {
        *v -= log;
    }
}
