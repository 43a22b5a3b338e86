//! Training and inference throughput of a config's network on the CPU or
//! the GPU, timing the training loop's own step function.
//!
//! `gpu_throughput --config configs/cube3-efficientcube.toml --device gpu
//! [--precision f32|flex32|f16|bf16] [--matmul f32|bf16] [--steps 30] [--warmup 5]`
//!
//! `--matmul bf16` trains with bf16 products (`learn::mixed`; on the GPU burn's bf16 tensors);
//! the twin is PyTorch's `--precision bf16-amp` (CPU autocast).
//!
//! Training: `training::train_step` (forward, loss, backward, optimiser step,
//! loss read back, so one synchronisation per step) on host batches made by
//! the real walk generator and uploaded every step, at the config's
//! `data.states_per_step`; this is `train`'s step without the data workers.
//! Inference: forward passes of 4096 states (a 2^12 beam) read back to the
//! host, as beam search does. Prints one TSV row; its PyTorch twin is
//! `benches/gpu_throughput.py`, and `benches/gpu/device.sh` runs both.
//!
//! Build for the GPU with `cargo build --release --features gpu --bench
//! gpu_throughput`.

use burn::module::Module;
use burn::tensor::{Tensor, TensorData};
use cube_oracle::cube3::Cube3Puzzle;
use cube_oracle::learn::backend;
use cube_oracle::learn::config::{DeviceKind, Matmul, Precision, TrainConfig};
use cube_oracle::learn::data::{BatchSpec, make_batch};
use cube_oracle::learn::model::{OracleNet, forward_macs, parameter_count};
use cube_oracle::learn::training::{optimizer, train_step};
use cube_oracle::puzzle::Puzzle;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

struct Args {
    config: PathBuf,
    device: DeviceKind,
    precision: Precision,
    matmul: Matmul,
    steps: usize,
    warmup: usize,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        config: PathBuf::new(),
        device: DeviceKind::Cpu,
        precision: Precision::F32,
        matmul: Matmul::F32,
        steps: 30,
        warmup: 5,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        if flag == "--bench" {
            continue;
        }
        let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--config" => a.config = PathBuf::from(value),
            "--device" => {
                a.device = match value.as_str() {
                    "cpu" => DeviceKind::Cpu,
                    "gpu" => DeviceKind::Gpu,
                    _ => return Err(format!("--device {value}: expected cpu or gpu")),
                }
            }
            "--precision" => {
                a.precision = toml::Value::String(value.clone())
                    .try_into()
                    .map_err(|_| format!("--precision {value}: expected f32, flex32, f16 or bf16"))?;
            }
            "--matmul" => {
                a.matmul = toml::Value::String(value.clone())
                    .try_into()
                    .map_err(|_| format!("--matmul {value}: expected f32 or bf16"))?;
            }
            "--steps" => a.steps = value.parse().map_err(|_| format!("--steps {value}: expected a count"))?,
            "--warmup" => a.warmup = value.parse().map_err(|_| format!("--warmup {value}: expected a count"))?,
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    if a.config.as_os_str().is_empty() {
        return Err("--config is required".into());
    }
    if a.steps == 0 {
        return Err("--steps must be at least 1".into());
    }
    Ok(a)
}

fn run(a: &Args) -> anyhow::Result<()> {
    let cfg = TrainConfig::load(&a.config)?;
    if cfg.puzzle.kind != cube_oracle::registry::PuzzleKind::Cube3 {
        anyhow::bail!("{}: this benchmark times cube configs (puzzle.kind = \"cube3\")", a.config.display());
    }
    let puzzle = Cube3Puzzle::new(cfg.metric());
    let (inputs, moves) = (puzzle.encoded_len(), puzzle.num_moves());
    let batch = cfg.data.states_per_step;
    let base = backend::device_with(a.device, a.precision)?;
    base.seed(cfg.run.seed);
    let dev = base.clone().autodiff();
    let spec = BatchSpec {
        length: cfg.data.scramble_len.walk_length(),
        prune: cfg.data.prune,
        walk: cfg.data.walk,
        depths: cfg.data.depths,
        size: batch,
        seed: 0,
        labels: cfg.data.labels,
        pool: cfg.data.label_pool(),
    };
    // Distinct batches, as training sees them, reused round-robin.
    let host: Vec<_> = (0..4).map(|i| make_batch(&puzzle, &spec, i)).collect::<Result<_, _>>()?;

    let mut model = OracleNet::new(&cfg.model, inputs, moves, &dev).with_matmul(a.matmul);
    let mut optim = optimizer(&cfg);
    let mut last_loss = f64::NAN;
    let mut timed = 0.0;
    for i in 0..a.warmup + a.steps {
        let t = Instant::now();
        let (m, loss, _) =
            train_step(model, &mut optim, cfg.optim.lr, host[i % host.len()].clone(), None, &cfg.model, &dev)?;
        model = m;
        last_loss = loss;
        if i >= a.warmup {
            timed += t.elapsed().as_secs_f64();
        }
    }
    let train_rate = (a.steps * batch) as f64 / timed;

    let net = model.valid();
    let ib = 4096;
    let big = make_batch(&puzzle, &BatchSpec { size: ib, ..spec }, 99)?;
    let infer = || -> anyhow::Result<()> {
        let x = Tensor::<2>::from_data(TensorData::new(big.inputs.clone(), [ib, inputs]), &base);
        let out = net.forward(x).into_data().convert::<f32>();
        anyhow::ensure!(out.num_elements() == ib * moves, "unexpected output size");
        Ok(())
    };
    for _ in 0..3 {
        infer()?;
    }
    let m = 20;
    let t = Instant::now();
    for _ in 0..m {
        infer()?;
    }
    let infer_rate = (m * ib) as f64 / t.elapsed().as_secs_f64();

    let macs = forward_macs(&cfg.model, inputs, moves) as f64;
    let params = parameter_count(&cfg.model, inputs, moves);
    // Training ≈ 3 × forward FLOPs (forward, input gradient, weight gradient).
    let train_tflops = train_rate * 3.0 * 2.0 * macs / 1e12;
    let infer_tflops = infer_rate * 2.0 * macs / 1e12;
    let device = a.device.name();
    let fw = if cfg!(feature = "gpu-fusion") { "burn-fusion" } else { "burn" };
    println!(
        "framework\tdevice\tprecision\tconfig\tparams\tbatch\ttrain_samples_per_s\ttrain_tflops\tinfer_states_per_s\tinfer_tflops\tlast_loss"
    );
    println!(
        "{fw}\t{device}\t{}\t{}\t{params}\t{batch}\t{train_rate:.0}\t{train_tflops:.2}\t{infer_rate:.0}\t{infer_tflops:.2}\t{last_loss:.4}",
        if a.matmul == Matmul::Bf16 { "bf16-matmul" } else { a.precision.name() },
        cfg.run.name,
    );
    Ok(())
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
