//! Oracle inference throughput of a trained run's network, through the path
//! `solve` uses (`NetOracle::predict`: host rows in, scores out), at
//! beam-sized batches, with f32 or bf16 products.
//!
//! `cargo bench --bench inference -- --run runs/cube3-q-long [--matmul f32|bf16|int8]
//! [--batches 1024,4096,16384,65536] [--seconds 3]`
//!
//! Rows are one-hot cube-like encodings (each block of 6 inputs holds one 1,
//! as 54 stickers × 6 colours do); the GEMMs' cost does not depend on the
//! values. One line per batch, tab-separated: framework (`cube-oracle/`
//! and what ran the products: the compiled network's kernel, `avx512`,
//! `avx2` or `portable`, or `burn` for burn's own operations, as
//! `CUBE_ORACLE_F32_KERNEL` and, for bf16, `CUBE_ORACLE_BF16_KERNEL`
//! pick), matmul, batch, states/s,
//! GFLOP/s (2 × multiply-adds per state, the one-hot first layer counted
//! as the dense product it replaces). The PyTorch twin is
//! benches/inference_pytorch.py; benches/inference_vs_pytorch.sh runs both.

use cube_oracle::learn::config::Matmul;
use cube_oracle::learn::inference::NetOracle;
use cube_oracle::learn::model::{forward_macs, parameter_count};
use cube_oracle::search::Oracle;
use std::path::PathBuf;
use std::time::Instant;

struct Args {
    run: PathBuf,
    matmul: Matmul,
    batches: Vec<usize>,
    seconds: f64,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        run: PathBuf::from("runs/cube3-q-long"),
        matmul: Matmul::F32,
        batches: vec![1024, 4096, 16384, 65536],
        seconds: 3.0,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        if flag == "--bench" {
            continue;
        }
        let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--run" => a.run = PathBuf::from(value),
            "--matmul" => {
                a.matmul = match value.as_str() {
                    "f32" => Matmul::F32,
                    "bf16" => Matmul::Bf16,
                    "int8" => Matmul::Int8,
                    other => return Err(format!("--matmul {other}: expected f32, bf16 or int8")),
                }
            }
            "--batches" => {
                a.batches = value
                    .split(',')
                    .map(|b| b.trim().parse::<usize>().map_err(|_| format!("--batches: `{b}` is not a count")))
                    .collect::<Result<_, _>>()?;
                if a.batches.iter().any(|&b| b == 0 || b > 1 << 20) {
                    return Err("--batches: each from 1 to 1048576".into());
                }
            }
            "--seconds" => {
                a.seconds = value.parse().map_err(|_| format!("--seconds {value}: not a number"))?;
                if !(a.seconds > 0.0 && a.seconds <= 600.0) {
                    return Err("--seconds: more than 0, at most 600".into());
                }
            }
            other => return Err(format!("unknown flag {other}")),
        }
    }
    Ok(a)
}

fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let oracle = NetOracle::load(&args.run, None, None).and_then(|o| o.with_matmul(args.matmul));
    let mut oracle = match oracle {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    let cfg = oracle.config.clone();
    let puzzle = match cfg.puzzle() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    let (inputs, moves) = (puzzle.encoded_len(), puzzle.num_moves());
    let outputs = cfg.model.kind.outputs(moves);
    let params = parameter_count(&cfg.model, inputs, outputs);
    let macs = forward_macs(&cfg.model, inputs, outputs);
    println!("framework\tmatmul\tparams\tbatch\tstates_per_s\tgflops");
    for &batch in &args.batches {
        let x: Vec<f32> =
            (0..batch * inputs).map(|i| if (i / 6 * 5 + i / inputs) % 6 == i % 6 { 1.0 } else { 0.0 }).collect();
        let mut out = vec![0.0f32; batch * outputs];
        // Warm-up: buffers, kernels, the allocator.
        for _ in 0..2 {
            oracle.predict(&x, batch, &mut out).expect("forward");
        }
        let start = Instant::now();
        let mut reps = 0u64;
        while reps < 3 || start.elapsed().as_secs_f64() < args.seconds {
            oracle.predict(&x, batch, &mut out).expect("forward");
            reps += 1;
        }
        let rate = (reps as f64 * batch as f64) / start.elapsed().as_secs_f64();
        println!(
            "cube-oracle/{}\t{}\t{params}\t{batch}\t{rate:.0}\t{:.1}",
            oracle.engine(),
            args.matmul.name(),
            rate * 2.0 * macs as f64 / 1e9
        );
    }
}
