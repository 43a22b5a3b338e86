//! The trained network as a search [`Oracle`]: the burn side of the
//! boundary between search and learning.
//!
//! [`NetOracle`] loads a run's resolved config and a checkpoint, puts the
//! network in inference mode on the configured device, and answers batched
//! queries of the kind it was trained as (`model.kind`): log-probabilities
//! of a policy, or the raw distances of a Q-distance or value network. Search code only ever sees the `Oracle` trait.
//!
//! The hidden layers' products run in f32 unless [`NetOracle::with_matmul`]
//! asks for bf16 operands with f32 sums (`solve --matmul bf16`), in the
//! compiled network ([`crate::kernels::compiled::bf16`]; on AMX machines in
//! burn's AMX GEMM, [`crate::learn::mixed`]; [`Bf16Route`] says where), or
//! for integer products in the compiled network (`solve --matmul int8`,
//! [`crate::kernels::compiled::int8`]).

use crate::kernels::compiled::kernel::Kernel;
use crate::kernels::compiled::{self, CompiledNet, Products};
use crate::kernels::gemm;
use crate::learn::backend;
use crate::learn::checkpoint;
use crate::learn::config::{DeviceKind, Matmul, TrainConfig};
use crate::learn::error::LearnError;
use crate::learn::model::OracleNet;
use crate::learn::model::load_for_inference;
use crate::search::{Oracle, OracleError, OracleKind};
use burn::module::Module;
use burn::tensor::{Device, Tensor, TensorData};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Rows per oracle call on a GPU: a wide beam goes over in a few large
/// batches instead of many round trips of the CPU's 4,096 rows.
pub const GPU_BATCH_ROWS: usize = 1 << 16;

/// Where `--matmul bf16` runs, from `CUBE_ORACLE_F32_KERNEL` and
/// `CUBE_ORACLE_BF16_KERNEL` ([`Bf16Route::resolve`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bf16Route {
    /// The compiled network on this kernel: `vdpbf16ps` on `avx512`,
    /// rounded operands in the f32 products on the others.
    Compiled(Kernel),
    /// burn's operations with the bf16 GEMM on this unit (`None`: rounded
    /// operands in burn's f32 GEMM).
    Burn(Option<gemm::Kernel>),
}

impl Bf16Route {
    /// The route this process's environment asks for.
    ///
    /// # Errors
    /// As [`Bf16Route::resolve_from`].
    pub fn resolve() -> Result<Self, String> {
        let var = |name: &str| match std::env::var(name) {
            Ok(v) => Ok(Some(v)),
            Err(std::env::VarError::NotPresent) => Ok(None),
            Err(std::env::VarError::NotUnicode(_)) => Err(format!("{name} is not UTF-8")),
        };
        let (f32_kernel, bf16_kernel) = (var("CUBE_ORACLE_F32_KERNEL")?, var("CUBE_ORACLE_BF16_KERNEL")?);
        Self::resolve_from(f32_kernel.as_deref(), bf16_kernel.as_deref())
    }

    /// The route for the two variables' values (`None`: unset). Unset,
    /// the compiled network on the f32 kernel asked for (the best this CPU
    /// runs), or burn's AMX GEMM where the CPU has AMX; `CUBE_ORACLE_F32_KERNEL=burn`,
    /// burn's operations with the bf16 unit `CUBE_ORACLE_BF16_KERNEL`
    /// picks. `CUBE_ORACLE_BF16_KERNEL=amx` asks for burn's AMX GEMM,
    /// `avx512-bf16` for the compiled `avx512` kernel's `vdpbf16ps`, and
    /// `none` for rounded operands (on `avx2` unless another kernel is
    /// named).
    ///
    /// # Errors
    /// A value that names no kernel, a kernel this CPU lacks, or two
    /// requests that contradict each other, each naming the variables.
    pub fn resolve_from(f32_kernel: Option<&str>, bf16_kernel: Option<&str>) -> Result<Self, String> {
        let compiled = compiled::requested_from(f32_kernel)?;
        if let Some(w) = bf16_kernel {
            gemm::Kernel::check_value(w)?;
        }
        let units = gemm::Kernel::all_available();
        let amx = units.contains(&gemm::Kernel::Amx);
        let named = f32_kernel.is_some();
        match (compiled, bf16_kernel) {
            // burn's own operations, with the unit asked for (the best unset).
            (None, Some("none")) => Ok(Bf16Route::Burn(None)),
            (None, Some(w)) => match units.iter().find(|k| k.name() == w) {
                Some(&k) => Ok(Bf16Route::Burn(Some(k))),
                None => Err(format!("CUBE_ORACLE_BF16_KERNEL={w}: this CPU has no such unit")),
            },
            (None, None) => Ok(Bf16Route::Burn(units.first().copied())),
            // AMX runs in burn's GEMM only.
            (Some(_), Some("amx")) if amx => Ok(Bf16Route::Burn(Some(gemm::Kernel::Amx))),
            (Some(_), Some("amx")) => Err("CUBE_ORACLE_BF16_KERNEL=amx: this CPU has no AMX".into()),
            (Some(_), None) if amx && !named => Ok(Bf16Route::Burn(Some(gemm::Kernel::Amx))),
            (Some(k), None) => Ok(Bf16Route::Compiled(k)),
            // avx512-bf16: the compiled avx512 kernel.
            (Some(Kernel::Avx512), Some("avx512-bf16")) => Ok(Bf16Route::Compiled(Kernel::Avx512)),
            (Some(k), Some("avx512-bf16")) if named => Err(format!(
                "CUBE_ORACLE_BF16_KERNEL=avx512-bf16 runs on the compiled network's avx512 kernel, and \
                 CUBE_ORACLE_F32_KERNEL asks for {}",
                k.name()
            )),
            (Some(_), Some("avx512-bf16")) => {
                Err("CUBE_ORACLE_BF16_KERNEL=avx512-bf16: this CPU cannot run the avx512 kernel".into())
            }
            // none: rounded operands, on a kernel without a bf16 unit.
            (Some(Kernel::Avx512), Some(_)) if named => {
                Err("CUBE_ORACLE_BF16_KERNEL=none asks for rounded operands, and CUBE_ORACLE_F32_KERNEL=avx512 \
                 computes bf16 products on its bf16 unit: name avx2 or portable"
                    .into())
            }
            (Some(Kernel::Avx512), Some(_)) => Ok(Bf16Route::Compiled(Kernel::Avx2Fma)),
            (Some(k), Some(_)) => Ok(Bf16Route::Compiled(k)),
        }
    }

    /// What runs the products, in words: the compiled kernel and its unit
    /// (`avx512 (AVX512-BF16 (vdpbf16ps))`), or burn's unit.
    #[must_use]
    pub fn describe(self) -> String {
        match self {
            Bf16Route::Compiled(k) => format!("{} ({})", k.name(), compiled::bf16::unit(k)),
            Bf16Route::Burn(unit) => format!("burn ({})", unit.map_or("rounded f32", gemm::Kernel::name)),
        }
    }
}

/// A trained network answering oracle queries. A clone shares the
/// loaded weights' data and can serve another search thread.
#[derive(Clone)]
pub struct NetOracle {
    net: OracleNet,
    device: Device,
    /// The device's kind: the bf16 products are the CPU's.
    device_kind: DeviceKind,
    /// The hidden layers' products ([`NetOracle::with_matmul`]).
    matmul: Matmul,
    /// The network compiled for forwards on the CPU ([`compiled`]), with
    /// the products `matmul` asks for; `None` on the GPU, or where
    /// `CUBE_ORACLE_F32_KERNEL=burn`. It serves the forwards when its
    /// products are `matmul`'s (not for bf16 on burn's GEMM).
    compiled: Option<Arc<CompiledNet>>,
    /// The f32 kernel asked for at load (f32 and int8 products run on it).
    kernel: Option<Kernel>,
    /// Where bf16 products run, once asked for.
    bf16: Option<Bf16Route>,
    inputs: usize,
    moves: usize,
    kind: OracleKind,
    /// The run's resolved config.
    pub config: TrainConfig,
    /// The checkpoint loaded.
    pub checkpoint: PathBuf,
}

impl NetOracle {
    /// Loads the run in `run_dir` (its `config.toml`) with `checkpoint`, or
    /// the run's newest checkpoint when `None`.
    ///
    /// The network runs on `device`, the CPU when `None`, whatever device
    /// the run was trained on: beam search sends one small batch per depth,
    /// which the CPU answers faster than a round trip to the GPU (measured
    /// in docs/notes/2026-11-22-gpu-h100.md), and a checkpoint loads on either.
    ///
    /// # Errors
    /// A path that is no run directory, an unusable config or checkpoint,
    /// or a device this build lacks.
    pub fn load(run_dir: &Path, checkpoint: Option<&Path>, device: Option<DeviceKind>) -> Result<Self, LearnError> {
        if run_dir.is_file() {
            let rule = "it is a file; give the run's directory (it holds config.toml)";
            return Err(LearnError::NotARun { dir: run_dir.to_path_buf(), rule });
        }
        if !run_dir.is_dir() {
            return Err(LearnError::NotARun { dir: run_dir.to_path_buf(), rule: "it does not exist" });
        }
        let config_path = run_dir.join("config.toml");
        if !config_path.is_file() {
            let rule = "it has no config.toml (train writes one into every run it makes)";
            return Err(LearnError::NotARun { dir: run_dir.to_path_buf(), rule });
        }
        let config = TrainConfig::load(&config_path)?;
        let path = match checkpoint {
            Some(p) => p.to_path_buf(),
            None => checkpoint::latest(&run_dir.join("checkpoints"))?,
        };
        // A run trained on a GPU can still be solved by a CPU-only build.
        let device_kind = device.unwrap_or(DeviceKind::Cpu);
        let device = backend::device(device_kind)?;
        let net = load_for_inference(&config, &path, &device)?.valid();
        Self::new(net, device_kind, device, config, path)
    }

    /// `net` (in inference mode, on `device` of `device_kind`) as the
    /// oracle of the run `config` describes, with f32 products.
    fn new(
        net: OracleNet,
        device_kind: DeviceKind,
        device: Device,
        config: TrainConfig,
        checkpoint: PathBuf,
    ) -> Result<Self, LearnError> {
        let puzzle = config.puzzle()?;
        let (inputs, moves, kind) = (puzzle.encoded_len(), puzzle.num_moves(), config.model.kind);
        let kernel = match device_kind {
            DeviceKind::Cpu => compiled::requested().map_err(LearnError::Environment)?,
            DeviceKind::Gpu => None,
        };
        let compiled = match kernel {
            Some(k) => Some(Arc::new(compile(&net, &config, inputs, kind.outputs(moves), k, Products::F32)?)),
            None => None,
        };
        Ok(Self {
            net,
            device,
            device_kind,
            matmul: Matmul::F32,
            compiled,
            kernel,
            bf16: None,
            inputs,
            moves,
            kind,
            config,
            checkpoint,
        })
    }

    /// The compiled network, when it serves the forwards.
    fn serving(&self) -> Option<&CompiledNet> {
        let products = match self.matmul {
            Matmul::F32 => Products::F32,
            Matmul::Bf16 => Products::Bf16,
            Matmul::Int8 => Products::Int8,
        };
        self.compiled.as_deref().filter(|c| c.products() == products)
    }

    /// What computes the forwards: the compiled kernel's name, or `burn`
    /// (on the GPU, when asked for, or for bf16 products on burn's GEMM).
    #[must_use]
    pub fn engine(&self) -> &'static str {
        self.serving().map_or("burn", |c| c.kernel().name())
    }

    /// The same oracle with every hidden layer's product computed as
    /// `matmul` says in each forward (every clone of it too, so each
    /// search worker's copy and a symmetric ensemble over it): `bf16`
    /// rounds both operands to bf16 and sums in f32, where
    /// [`Bf16Route::resolve`] says: the compiled network on
    /// `vdpbf16ps` (AVX512-BF16) or on rounded operands at f32 speed, or
    /// burn's AMX GEMM. `int8` recompiles the network with integer
    /// products for the f32 kernel ([`crate::kernels::compiled::int8`]).
    /// The head stays f32.
    ///
    /// # Errors
    /// `bf16` or `int8` on the GPU (there the float type is the device's),
    /// kernel variables that name no kernel or contradict each other, or
    /// `int8` where `CUBE_ORACLE_F32_KERNEL=burn` asks for burn's path.
    pub fn with_matmul(mut self, matmul: Matmul) -> Result<Self, LearnError> {
        if matmul != Matmul::F32 && self.device_kind != DeviceKind::Cpu {
            return Err(LearnError::MatmulDevice { matmul: matmul.name(), device: self.device_kind.name() });
        }
        // The compiled network wanted, if any: its kernel and products,
        // and what multiplies the integers (`None`: the best for the network).
        let mut unit = Some(compiled::int8::Unit::Vector);
        let wanted = match matmul {
            Matmul::F32 => self.kernel.map(|k| (k, Products::F32)),
            Matmul::Int8 => match self.kernel {
                Some(k) => {
                    unit = compiled::int8::requested_unit(k).map_err(LearnError::Environment)?;
                    Some((k, Products::Int8))
                }
                None => {
                    return Err(LearnError::Environment(
                        "--matmul int8 runs on the compiled network, and CUBE_ORACLE_F32_KERNEL=burn asks for \
                         burn's operations, which have no integer products: unset it or name avx512, avx2 or \
                         portable"
                            .into(),
                    ));
                }
            },
            Matmul::Bf16 => {
                let route = Bf16Route::resolve().map_err(LearnError::Environment)?;
                self.bf16 = Some(route);
                match route {
                    Bf16Route::Compiled(k) => Some((k, Products::Bf16)),
                    Bf16Route::Burn(_) => None,
                }
            }
        };
        if let Some((kernel, products)) = wanted
            && self.compiled.as_ref().is_none_or(|c| {
                (c.kernel(), c.products()) != (kernel, products) || unit.is_some_and(|u| u != c.int8_unit())
            })
        {
            let outputs = self.kind.outputs(self.moves);
            let net = compile(&self.net, &self.config, self.inputs, outputs, kernel, products)?;
            let net = match unit {
                Some(unit) => net.with_int8_unit(unit)?,
                None => net.with_best_int8_unit(),
            };
            self.compiled = Some(Arc::new(net));
        }
        // burn's own forward: bf16 where the route is burn's, else f32.
        let burn_matmul = if wanted.is_none() && matmul == Matmul::Bf16 { Matmul::Bf16 } else { Matmul::F32 };
        self.net = self.net.with_inference_matmul(burn_matmul);
        self.matmul = matmul;
        Ok(self)
    }

    /// The hidden layers' products (f32 unless [`NetOracle::with_matmul`]
    /// said otherwise).
    #[must_use]
    pub fn matmul(&self) -> Matmul {
        self.matmul
    }
}

impl NetOracle {
    /// The network itself (for exports).
    #[must_use]
    pub fn network(&self) -> &OracleNet {
        &self.net
    }

    /// The device the network runs on.
    #[must_use]
    pub fn device(&self) -> Device {
        self.device.clone()
    }

    /// The kind of device the network runs on.
    #[must_use]
    pub fn device_kind(&self) -> DeviceKind {
        self.device_kind
    }

    /// What multiplies the integers of `--matmul int8` (the compiled
    /// network's unit, in words: `AMX-INT8 (tdpbusd)`, `AVX512-VNNI
    /// (vpdpbusd)`, ...); `None` for f32 and bf16 products.
    #[must_use]
    pub fn int8_unit(&self) -> Option<&'static str> {
        match self.matmul {
            Matmul::Int8 => self.serving().map(|c| compiled::int8::unit_name(c.kernel(), c.int8_unit())),
            Matmul::F32 | Matmul::Bf16 => None,
        }
    }

    /// What computes the hidden layers' products, in words: the engine
    /// ([`NetOracle::engine`]) and, for bf16 or int8, the unit or kernel.
    #[must_use]
    pub fn products(&self) -> String {
        match self.matmul {
            Matmul::F32 => format!("f32 on {}", self.engine()),
            Matmul::Bf16 => match self.bf16 {
                Some(route @ Bf16Route::Compiled(_)) => format!("bf16 on {}", route.describe()),
                Some(Bf16Route::Burn(_)) | None => {
                    format!("bf16 on burn ({})", crate::learn::mixed::describe())
                }
            },
            Matmul::Int8 => format!("int8 on {} ({})", self.engine(), self.int8_unit().unwrap_or("no integer kernel")),
        }
    }
}

impl Oracle for NetOracle {
    fn num_moves(&self) -> usize {
        self.moves
    }

    fn kind(&self) -> OracleKind {
        self.kind
    }

    fn batch_rows(&self) -> usize {
        match self.device_kind {
            DeviceKind::Cpu => crate::search::beam::ORACLE_CHUNK,
            DeviceKind::Gpu => GPU_BATCH_ROWS,
        }
    }

    fn predict(&mut self, inputs: &[f32], rows: usize, out: &mut [f32]) -> Result<(), OracleError> {
        if let Some(net) = self.serving() {
            net.forward(inputs, rows, out);
            return Ok(());
        }
        let x = Tensor::<2>::from_data(
            TensorData::new(inputs[..rows * self.inputs].to_vec(), [rows, self.inputs]),
            &self.device,
        );
        let v = self
            .net
            .predict(x, self.kind)
            .map_err(|e| OracleError(format!("reading the network's predictions: {e}")))?;
        out[..rows * self.kind.outputs(self.moves)].copy_from_slice(&v);
        Ok(())
    }
}

/// `net` (the run `config` describes) compiled for `kernel`, with
/// `products`.
fn compile(
    net: &OracleNet,
    config: &TrainConfig,
    inputs: usize,
    outputs: usize,
    kernel: compiled::kernel::Kernel,
    products: Products,
) -> Result<CompiledNet, LearnError> {
    let shape = compiled::Shape {
        hidden: config.model.hidden.clone(),
        residual_blocks: config.model.residual_blocks,
        batch_norm: net.norm_epsilon().is_some(),
        inputs,
        outputs,
        log_softmax: config.model.kind.is_distribution(),
    };
    Ok(CompiledNet::new(&net.named_tensors()?, shape, net.norm_epsilon().unwrap_or(0.0), kernel, products)?)
}

#[cfg(test)]
mod tests {
    use super::NetOracle;
    use crate::kernels::compiled::Products;
    use crate::kernels::gemm::round_bf16;
    use crate::kernels::weights::NamedTensor;
    use crate::learn::config::{DeviceKind, Matmul, Norm, TrainConfig};
    use crate::learn::error::LearnError;
    use crate::learn::model::OracleNet;
    use crate::search::{Oracle, OracleKind};
    use burn::module::Module;
    use burn::tensor::Device;
    use std::collections::HashMap;
    use std::path::{Path, PathBuf};

    const ROWS: usize = 50;

    /// A Q-distance cube oracle of the reference's shape, smaller (widths
    /// that are not multiples of the kernels' 32, one residual block),
    /// with seeded initial weights.
    fn seeded_oracle() -> NetOracle {
        seeded_oracle_shaped(vec![80, 48])
    }

    /// [`seeded_oracle`] with hidden layers `hidden` (and one residual block).
    fn seeded_oracle_shaped(hidden: Vec<usize>) -> NetOracle {
        let smoke = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/smoke.toml");
        let mut config = TrainConfig::load(&smoke).expect("the smoke config");
        config.run.seed = 7;
        config.model.kind = OracleKind::QDistance;
        config.model.hidden = hidden;
        config.model.residual_blocks = 1;
        assert_eq!(config.model.norm, Norm::Batch);
        let puzzle = config.puzzle().expect("cube3");
        let (inputs, outputs) = (puzzle.encoded_len(), config.model.kind.outputs(puzzle.num_moves()));
        let device = Device::flex();
        // The device's generator is the process's: seeded and drawn under
        // the lock training holds for the same (`valid()` draws every weight).
        let net = {
            let _guard = crate::learn::training::INIT_LOCK.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            device.seed(config.run.seed);
            OracleNet::new(&config.model, inputs, outputs, &device).valid()
        };
        NetOracle::new(net, DeviceKind::Cpu, device, config, PathBuf::from("seeded")).expect("an oracle")
    }

    /// A fixed batch of one-hot-like rows (six ones in every 54 features).
    fn batch(inputs: usize) -> Vec<f32> {
        (0..ROWS * inputs).map(|i| if (i * 7 + i / inputs * 13).is_multiple_of(6) { 1.0 } else { 0.0 }).collect()
    }

    fn predict(oracle: &mut NetOracle, x: &[f32]) -> Vec<f32> {
        let mut out = vec![0.0; ROWS * oracle.kind().outputs(oracle.num_moves())];
        oracle.predict(x, ROWS, &mut out).expect("a forward");
        out
    }

    /// What the hidden layers' products are meant to compute.
    #[derive(Clone, Copy, PartialEq)]
    enum Ops {
        /// Exactly.
        Exact,
        /// Both operands rounded to bf16 (the head never).
        Bf16,
        /// Each dense hidden layer but the first: the weights as 8-bit
        /// integers per output, each input row as 7-bit integers over its
        /// range, rounded to the nearest (ties to even) in f32 arithmetic.
        Int8,
    }

    /// One row `x` of a layer's input times `w` (`outs × ins`) with
    /// `--matmul int8`'s rounding, in f64 but for the rows' integers.
    fn int8_row(x: &[f32], w: &[f32], outs: usize) -> Vec<f64> {
        let ins = x.len();
        let lo = x.iter().copied().fold(f32::INFINITY, f32::min);
        let hi = x.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let (step, inv) = if hi > lo { ((hi - lo) / 127.0, 127.0 / (hi - lo)) } else { (0.0, 0.0) };
        let u: Vec<f64> = x.iter().map(|&v| f64::from(((v - lo) * inv).clamp(0.0, 127.0).round_ties_even())).collect();
        (0..outs)
            .map(|o| {
                let col = &w[o * ins..(o + 1) * ins];
                let largest = col.iter().fold(0.0f32, |m, v| m.max(v.abs()));
                let colsum: f64 = col.iter().map(|&v| f64::from(v)).sum();
                if largest == 0.0 {
                    return f64::from(lo) * colsum;
                }
                let q = col.iter().map(|&v| f64::from((v * (127.0 / largest)).round_ties_even()));
                let dot: f64 = u.iter().zip(q).map(|(a, b)| a * b).sum();
                dot * f64::from(step) * f64::from(largest / 127.0) + f64::from(lo) * colsum
            })
            .collect()
    }

    /// The network computed here from its named tensors, in f64, with
    /// `ops`' rounding of the hidden layers' products.
    fn reference(net: &OracleNet, config: &TrainConfig, x: &[f32], ops: Ops) -> Vec<f32> {
        let t: HashMap<String, NamedTensor> =
            net.named_tensors().expect("tensors").into_iter().map(|t| (t.name.clone(), t)).collect();
        let eps = net.norm_epsilon().expect("batch norm");
        let r = |v: f32| f64::from(if ops == Ops::Bf16 { round_bf16(v) } else { v });
        let linear = |prefix: &str, x: &[f64], rounded: bool| -> Vec<f64> {
            let (w, b) = (&t[&format!("{prefix}.weight")], &t[&format!("{prefix}.bias")]);
            let (outs, ins) = (w.shape[0], w.shape[1]);
            let rr = |v: f32| if rounded { r(v) } else { f64::from(v) };
            let integer = rounded && ops == Ops::Int8 && prefix != "trunk.0.linear";
            let mut y = vec![0.0; ROWS * outs];
            for row in 0..ROWS {
                if integer {
                    let input: Vec<f32> = x[row * ins..(row + 1) * ins].iter().map(|&v| v as f32).collect();
                    for (o, v) in int8_row(&input, &w.data, outs).into_iter().enumerate() {
                        y[row * outs + o] = v + f64::from(b.data[o]);
                    }
                    continue;
                }
                for o in 0..outs {
                    let dot: f64 = (0..ins).map(|i| rr(x[row * ins + i] as f32) * rr(w.data[o * ins + i])).sum();
                    y[row * outs + o] = dot + f64::from(b.data[o]);
                }
            }
            y
        };
        let dense = |prefix: &str, x: &[f64]| -> Vec<f64> {
            let y = linear(&format!("{prefix}.linear"), x, true);
            let p = |n: &str| &t[&format!("{prefix}.norm.{n}")].data;
            let (gamma, beta, mean, var) = (p("weight"), p("bias"), p("running_mean"), p("running_var"));
            let c = gamma.len();
            y.iter()
                .enumerate()
                .map(|(i, &v)| {
                    let (v, f) = (v.max(0.0), i % c);
                    (v - f64::from(mean[f])) / (f64::from(var[f]) + eps).sqrt() * f64::from(gamma[f])
                        + f64::from(beta[f])
                })
                .collect()
        };
        let mut h: Vec<f64> = x.iter().map(|&v| f64::from(v)).collect();
        for i in 0..config.model.hidden.len() {
            // Activations are f32 between layers in the network too.
            h = dense(&format!("trunk.{i}"), &h).into_iter().map(|v| f64::from(v as f32)).collect();
        }
        for i in 0..config.model.residual_blocks {
            let first = dense(&format!("blocks.{i}.first"), &h);
            let second = dense(&format!("blocks.{i}.second"), &first);
            h = h.iter().zip(&second).map(|(a, b)| f64::from((a + b) as f32)).collect();
        }
        linear("head", &h, false).into_iter().map(|v| v as f32).collect()
    }

    fn largest_gap(a: &[f32], b: &[f32]) -> f32 {
        a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max)
    }

    /// `--matmul bf16` changes every forward of the search network, and
    /// by bf16 rounding only: its outputs are those of the network with
    /// each hidden layer's operands rounded to bf16 (computed here
    /// independently), and differ from the f32 outputs by more than
    /// nothing and by less than 1% of the largest output (bf16 keeps 8
    /// significant bits: each operand moves by up to 2⁻⁹ ≈ 0.2%; measured
    /// here, about 0.1%). A clone (a
    /// search worker's copy) computes the same, and `f32` undoes it.
    #[test]
    fn bf16_forwards_differ_from_f32_by_bf16_rounding() {
        eprintln!("bf16 products on {}", crate::learn::mixed::describe());
        let mut f32_oracle = seeded_oracle();
        assert_eq!(f32_oracle.matmul(), Matmul::F32);
        let x = batch(f32_oracle.inputs);
        let want_f32 = reference(&f32_oracle.net, &f32_oracle.config, &x, Ops::Exact);
        let want_bf16 = reference(&f32_oracle.net, &f32_oracle.config, &x, Ops::Bf16);
        let scale = want_f32.iter().fold(0.0f32, |m, v| m.max(v.abs()));
        assert!(scale > 0.1, "outputs of some size: {scale}");

        let f32_out = predict(&mut f32_oracle, &x);
        let gap = largest_gap(&f32_out, &want_f32) / scale;
        assert!(gap < 1e-5, "f32 forward: {gap} from the f64 reference");

        let mut bf16_oracle = f32_oracle.clone().with_matmul(Matmul::Bf16).expect("bf16 on the CPU");
        assert_eq!(bf16_oracle.matmul(), Matmul::Bf16);
        let bf16_out = predict(&mut bf16_oracle, &x);
        let gap = largest_gap(&bf16_out, &want_bf16) / scale;
        assert!(gap < 1e-5, "bf16 forward: {gap} from the reference with rounded operands");
        let gap = largest_gap(&bf16_out, &f32_out) / scale;
        eprintln!("bf16 against f32: {gap:.2e} of the largest output ({scale:.3})");
        assert!(gap > 1e-5 && gap < 1e-2, "bf16 against f32: {gap} of the largest output ({scale})");

        let mut worker = bf16_oracle.clone();
        assert_eq!(predict(&mut worker, &x), bf16_out, "a clone computes what its original does");
        let mut back = bf16_oracle.with_matmul(Matmul::F32).expect("f32");
        assert_eq!(predict(&mut back, &x), f32_out, "f32 again after bf16");
        // The f32 oracle it was cloned from is untouched.
        assert_eq!(predict(&mut f32_oracle, &x), f32_out);
    }

    /// The compiled network computes the network's function on every
    /// kernel this CPU runs, within float rounding (1e-5 of the largest
    /// output from the f64 evaluation): widths that are not multiples of
    /// the 16-column panels, a batch of two blocks whose second is not a
    /// whole register tile, one row alone, a policy's log-probabilities.
    /// A kernel `CUBE_ORACLE_F32_KERNEL` asks for must be one this CPU
    /// runs, or the test fails.
    #[test]
    fn compiled_forwards_match_the_network_on_every_kernel() {
        use crate::kernels::compiled::{self, kernel::Kernel};
        let requested = compiled::requested().expect("CUBE_ORACLE_F32_KERNEL names a kernel this CPU runs");
        let mut oracle = seeded_oracle();
        let x = batch(oracle.inputs);
        let want = reference(&oracle.net, &oracle.config, &x, Ops::Exact);
        let scale = want.iter().fold(0.0f32, |m, v| m.max(v.abs()));
        let outputs = oracle.kind.outputs(oracle.moves);
        let kernels: Vec<Kernel> = Kernel::ALL.into_iter().filter(|k| k.available()).collect();
        assert!(kernels.contains(&Kernel::Portable));
        assert!(requested.is_none_or(|k| kernels.contains(&k)));
        assert_eq!(oracle.engine(), requested.map_or("burn", Kernel::name), "the oracle runs the kernel asked for");
        for &kernel in &kernels {
            let net = super::compile(&oracle.net, &oracle.config, oracle.inputs, outputs, kernel, Products::F32)
                .expect("compiled");
            let mut got = vec![0.0; ROWS * outputs];
            net.forward(&x, ROWS, &mut got);
            let gap = largest_gap(&got, &want) / scale;
            eprintln!("{}: {gap:.2e} of the largest output", kernel.name());
            assert!(gap < 1e-5, "{}: {gap} from the f64 reference", kernel.name());
            let mut one = vec![0.0; outputs];
            net.forward(&x[3 * oracle.inputs..4 * oracle.inputs], 1, &mut one);
            assert!(largest_gap(&one, &want[3 * outputs..4 * outputs]) / scale < 1e-5, "one row alone");
        }
        // Through the oracle (the compiled path, unless burn was asked for).
        let mut through = vec![0.0; ROWS * outputs];
        oracle.predict(&x, ROWS, &mut through).expect("a forward");
        assert!(largest_gap(&through, &want) / scale < 1e-5);
        // A policy: log-probabilities, as burn's forward gives them.
        oracle.kind = OracleKind::Policy;
        oracle.config.model.kind = OracleKind::Policy;
        let burn = oracle
            .net
            .predict(
                burn::tensor::Tensor::<2>::from_data(
                    burn::tensor::TensorData::new(x.clone(), [ROWS, oracle.inputs]),
                    &oracle.device,
                ),
                OracleKind::Policy,
            )
            .expect("burn's forward");
        for &kernel in &kernels {
            let net = super::compile(&oracle.net, &oracle.config, oracle.inputs, outputs, kernel, Products::F32)
                .expect("compiled");
            let mut got = vec![0.0; ROWS * outputs];
            net.forward(&x, ROWS, &mut got);
            let gap = largest_gap(&got, &burn);
            assert!(gap < 1e-4, "{}: log-probabilities {gap} from burn's", kernel.name());
            for row in got.chunks(outputs) {
                let total: f32 = row.iter().map(|v| v.exp()).sum();
                assert!((total - 1.0).abs() < 1e-5, "probabilities sum to {total}");
            }
        }
    }

    /// `--matmul int8` computes the network with integer products and
    /// nothing else changed: on every kernel this CPU runs, its outputs
    /// are those of the network with int8's rounding (computed here
    /// independently) within 10⁻³ of the largest output (the f32
    /// activations it quantises differ from the reference's by float
    /// rounding, which can move an integer by one), and differ from the
    /// f32 outputs by more than 10⁻⁴ and less than 5% of it. A row alone
    /// gets exactly what it gets in a batch (each row is quantised on its
    /// own), a clone computes the same, and `f32` undoes it. A kernel
    /// `CUBE_ORACLE_F32_KERNEL` asks for must be one this CPU runs.
    #[test]
    fn int8_forwards_follow_the_network_with_integer_products() {
        use crate::kernels::compiled::{self, kernel::Kernel};
        let requested = compiled::requested().expect("CUBE_ORACLE_F32_KERNEL names a kernel this CPU runs");
        let f32_oracle = seeded_oracle();
        let x = batch(f32_oracle.inputs);
        let want_f32 = reference(&f32_oracle.net, &f32_oracle.config, &x, Ops::Exact);
        let want_int8 = reference(&f32_oracle.net, &f32_oracle.config, &x, Ops::Int8);
        let scale = want_f32.iter().fold(0.0f32, |m, v| m.max(v.abs()));
        let outputs = f32_oracle.kind.outputs(f32_oracle.moves);
        let kernels: Vec<Kernel> = Kernel::ALL.into_iter().filter(|k| k.available()).collect();
        assert!(requested.is_none_or(|k| kernels.contains(&k)));
        for &kernel in &kernels {
            let net =
                super::compile(&f32_oracle.net, &f32_oracle.config, f32_oracle.inputs, outputs, kernel, Products::Int8)
                    .expect("compiled");
            let mut got = vec![0.0; ROWS * outputs];
            net.forward(&x, ROWS, &mut got);
            let gap = largest_gap(&got, &want_int8) / scale;
            let off = largest_gap(&got, &want_f32) / scale;
            eprintln!("{} int8: {gap:.2e} from the int8 reference, {off:.2e} from f32", kernel.name());
            assert!(gap < 1e-3, "{}: {gap} from the int8 reference", kernel.name());
            assert!(off > 1e-4 && off < 5e-2, "{}: int8 against f32 {off} of the largest output", kernel.name());
            let mut one = vec![0.0; outputs];
            net.forward(&x[3 * f32_oracle.inputs..4 * f32_oracle.inputs], 1, &mut one);
            assert_eq!(one, got[3 * outputs..4 * outputs], "{}: one row alone", kernel.name());
        }
        match requested {
            Some(kernel) => {
                let mut int8 = f32_oracle.clone().with_matmul(Matmul::Int8).expect("int8 on the CPU");
                assert_eq!((int8.matmul(), int8.engine()), (Matmul::Int8, kernel.name()));
                let got = predict(&mut int8, &x);
                assert!(largest_gap(&got, &want_int8) / scale < 1e-3, "through the oracle");
                let mut worker = int8.clone();
                assert_eq!(predict(&mut worker, &x), got, "a clone computes what its original does");
                let mut back = int8.with_matmul(Matmul::F32).expect("f32");
                assert!(largest_gap(&predict(&mut back, &x), &want_f32) / scale < 1e-5, "f32 again after int8");
            }
            None => {
                // burn's path, asked for, has no integer products: refused, naming the variable.
                let err = f32_oracle.with_matmul(Matmul::Int8).err().expect("refused on burn's path");
                assert!(err.to_string().contains("CUBE_ORACLE_F32_KERNEL=burn"), "{err}");
            }
        }
    }

    /// Integer products on tiles compute what the vector kernels compute,
    /// float for float: the tiles' algorithm in plain Rust against the
    /// portable kernel on every CPU, and on a CPU with AMX-INT8 the AMX
    /// instructions against the `avx512` kernel (`vpdpbusd`), through the
    /// oracle too (`CUBE_ORACLE_INT8_KERNEL=amx`). 50 rows are a block of 48
    /// (three row tiles) and one of 2 (a tile of zero rows beside them); a
    /// row alone gets what it gets in the batch. Setting
    /// `CUBE_ORACLE_INT8_KERNEL=amx` on a CPU without AMX-INT8 fails the
    /// test. Widths that are no multiple of a tile's row, AMX around another
    /// kernel, and values that name no unit are refused.
    #[test]
    fn int8_tiles_compute_what_the_vector_kernels_compute() {
        use crate::kernels::compiled::int8::{self, Unit};
        use crate::kernels::compiled::{CompiledNet, kernel::Kernel};
        let oracle = seeded_oracle_shaped(vec![128, 64]);
        let x = batch(oracle.inputs);
        let outputs = oracle.kind.outputs(oracle.moves);
        let net = |kernel: Kernel, unit: Unit| {
            super::compile(&oracle.net, &oracle.config, oracle.inputs, outputs, kernel, Products::Int8)
                .and_then(|n| Ok(n.with_int8_unit(unit)?))
        };
        let forward = |n: &CompiledNet, rows: usize, from: usize| {
            let mut out = vec![0.0; rows * outputs];
            n.forward(&x[from * oracle.inputs..(from + rows) * oracle.inputs], rows, &mut out);
            out
        };
        let mut pairs = vec![(Kernel::Portable, Unit::EmulatedTiles)];
        let asked = std::env::var("CUBE_ORACLE_INT8_KERNEL").ok();
        if asked.as_deref() == Some("amx") {
            assert!(Unit::AmxTiles.available(), "asked to check AMX tiles, which this CPU (or its OS) lacks");
        }
        if Unit::AmxTiles.available() {
            pairs.push((Kernel::Avx512, Unit::AmxTiles));
        } else {
            eprintln!("no AMX-INT8 on this CPU: the tiles' algorithm is checked in plain Rust only");
        }
        for (kernel, unit) in pairs {
            let (vector, tiles) = (net(kernel, Unit::Vector).expect("vector"), net(kernel, unit).expect("tiles"));
            assert_eq!(tiles.int8_unit(), unit);
            let want = forward(&vector, ROWS, 0);
            assert_eq!(forward(&tiles, ROWS, 0), want, "{unit:?} against {}", kernel.name());
            assert_eq!(forward(&tiles, 1, 3), want[3 * outputs..4 * outputs], "{unit:?}: one row alone");
            if unit == Unit::AmxTiles {
                // Unset, the oracle takes the tiles too: this network's layers fit them.
                let through = oracle.clone().with_matmul(Matmul::Int8).expect("int8 on the CPU");
                let vector = asked.as_deref() == Some("vector");
                let ran = through.serving().map(CompiledNet::int8_unit).expect("a compiled network");
                assert_eq!(ran, if vector { Unit::Vector } else { unit });
                assert_eq!(through.int8_unit(), Some(int8::unit_name(Kernel::Avx512, ran)));
            }
        }

        let narrow = seeded_oracle();
        let err = super::compile(&narrow.net, &narrow.config, narrow.inputs, outputs, Kernel::Portable, Products::Int8)
            .expect("compiled")
            .with_int8_unit(Unit::EmulatedTiles)
            .err()
            .expect("80 inputs refused");
        assert!(err.to_string().contains("hidden layer 1 has 80 inputs"), "{err}");
        // Where the unit is left to the network, one the tiles do not fit
        // keeps the vector instructions; asked for, the tiles are refused.
        let through = narrow.clone().with_matmul(Matmul::Int8);
        match asked.as_deref() {
            Some("amx") => assert!(through.err().expect("refused").to_string().contains("80 inputs")),
            _ => assert_eq!(through.expect("int8").serving().map(CompiledNet::int8_unit), Some(Unit::Vector)),
        }
        let err = net(Kernel::Portable, Unit::AmxTiles).err().expect("AMX around the portable kernel refused");
        assert!(err.to_string().contains("AMX"), "{err}");
        assert_eq!(int8::unit_from(None, Kernel::Portable), Ok(None));
        assert_eq!(int8::unit_from(Some("vector"), Kernel::Avx2Fma), Ok(Some(Unit::Vector)));
        let err = int8::unit_from(Some("amx"), Kernel::Avx2Fma).unwrap_err();
        assert!(err.contains("CUBE_ORACLE_INT8_KERNEL=amx") && err.contains("avx2"), "{err}");
        let err = int8::unit_from(Some("tiles"), Kernel::Avx512).unwrap_err();
        assert!(err.contains("\"tiles\" is not a unit: use amx or vector"), "{err}");
    }

    /// `--matmul bf16` in the compiled network computes the network with
    /// bf16 operands and f32 sums on every kernel this CPU runs (the
    /// bf16 unit's `vdpbf16ps` on avx512, rounded operands in the f32
    /// products elsewhere): within 10⁻⁵ of the largest output from the
    /// f64 evaluation with rounded operands (the kernels differ in the
    /// order of their f32 sums only), and more than 10⁻⁵ from f32. A row
    /// alone gets what it gets in a batch. A kernel `CUBE_ORACLE_F32_KERNEL`
    /// asks for must be one this CPU runs, or the test fails.
    #[test]
    fn compiled_bf16_forwards_follow_the_network_with_rounded_operands() {
        use crate::kernels::compiled::{self, kernel::Kernel};
        let requested = compiled::requested().expect("CUBE_ORACLE_F32_KERNEL names a kernel this CPU runs");
        let oracle = seeded_oracle();
        let x = batch(oracle.inputs);
        let want_f32 = reference(&oracle.net, &oracle.config, &x, Ops::Exact);
        let want = reference(&oracle.net, &oracle.config, &x, Ops::Bf16);
        let scale = want_f32.iter().fold(0.0f32, |m, v| m.max(v.abs()));
        let outputs = oracle.kind.outputs(oracle.moves);
        let kernels: Vec<Kernel> = Kernel::ALL.into_iter().filter(|k| k.available()).collect();
        assert!(requested.is_none_or(|k| kernels.contains(&k)));
        for &kernel in &kernels {
            let net = super::compile(&oracle.net, &oracle.config, oracle.inputs, outputs, kernel, Products::Bf16)
                .expect("compiled");
            let mut got = vec![0.0; ROWS * outputs];
            net.forward(&x, ROWS, &mut got);
            let gap = largest_gap(&got, &want) / scale;
            let off = largest_gap(&got, &want_f32) / scale;
            eprintln!("{} bf16: {gap:.2e} from the bf16 reference, {off:.2e} from f32", kernel.name());
            assert!(gap < 1e-5, "{}: {gap} from the bf16 reference", kernel.name());
            assert!(off > 1e-5, "{}: bf16 against f32 {off} of the largest output", kernel.name());
            let mut one = vec![0.0; outputs];
            net.forward(&x[3 * oracle.inputs..4 * oracle.inputs], 1, &mut one);
            assert_eq!(one, got[3 * outputs..4 * outputs], "{}: one row alone", kernel.name());
        }
    }

    /// Where `--matmul bf16` runs follows the two kernel variables, and
    /// requests this CPU cannot honour, or that contradict each other, are
    /// refused naming the variables.
    #[test]
    fn bf16_routes_follow_the_kernel_variables() {
        use super::Bf16Route;
        use crate::kernels::compiled::kernel::Kernel;
        use crate::kernels::gemm;
        let units = gemm::Kernel::all_available();
        let best = Kernel::best();
        let r = Bf16Route::resolve_from;
        if units.contains(&gemm::Kernel::Amx) {
            assert_eq!(r(None, None), Ok(Bf16Route::Burn(Some(gemm::Kernel::Amx))));
        } else {
            assert_eq!(r(None, None), Ok(Bf16Route::Compiled(best)));
            assert!(r(None, Some("amx")).unwrap_err().contains("no AMX"));
        }
        assert_eq!(r(Some("portable"), None), Ok(Bf16Route::Compiled(Kernel::Portable)));
        assert_eq!(r(Some("portable"), Some("none")), Ok(Bf16Route::Compiled(Kernel::Portable)));
        assert_eq!(r(Some("burn"), Some("none")), Ok(Bf16Route::Burn(None)));
        assert!(r(Some("portable"), Some("avx512-bf16")).unwrap_err().contains("CUBE_ORACLE_F32_KERNEL asks for"));
        assert!(r(None, Some("fp8")).unwrap_err().contains("CUBE_ORACLE_BF16_KERNEL=\"fp8\""));
        assert!(r(Some("turbo"), None).unwrap_err().contains("CUBE_ORACLE_F32_KERNEL"));
        if Kernel::Avx512.available() {
            assert_eq!(r(None, Some("avx512-bf16")), Ok(Bf16Route::Compiled(Kernel::Avx512)));
            assert_eq!(r(None, Some("none")), Ok(Bf16Route::Compiled(Kernel::Avx2Fma)));
            assert!(r(Some("avx512"), Some("none")).unwrap_err().contains("name avx2 or portable"));
            assert_eq!(Bf16Route::Compiled(Kernel::Avx512).describe(), "avx512 (AVX512-BF16 (vdpbf16ps))");
        } else {
            assert!(r(None, Some("avx512-bf16")).is_err());
            assert!(r(Some("avx512"), None).unwrap_err().contains("cannot run"));
        }
    }

    /// bf16 and int8 products are refused for a network on the GPU.
    #[test]
    fn bf16_is_refused_off_the_cpu() {
        let mut oracle = seeded_oracle();
        oracle.device_kind = DeviceKind::Gpu;
        let err = oracle.clone().with_matmul(Matmul::Bf16).err().expect("refused on the GPU");
        assert!(matches!(err, LearnError::MatmulDevice { matmul: "bf16", device: "gpu" }), "{err}");
        assert!(err.to_string().contains("--matmul f32"), "{err}");
        let err = oracle.clone().with_matmul(Matmul::Int8).err().expect("int8 refused on the GPU");
        assert!(matches!(err, LearnError::MatmulDevice { matmul: "int8", device: "gpu" }), "{err}");
        assert!(oracle.with_matmul(Matmul::F32).is_ok());
    }
}
