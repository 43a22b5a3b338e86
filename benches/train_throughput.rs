//! Training and inference throughput of the benchmark network in burn.
//!
//! Network 324 → 1024 → 1024 → 2 residual blocks of 1024 → 12 (5.59M
//! parameters, no normalisation), Adam, batch 1024, fp32; inference at batch
//! 4096. Threads: `CUBE_ORACLE_THREADS` (default 2). Prints one table; the
//! PyTorch twin is `benches/pytorch_throughput.py`, and
//! `benches/compare_pytorch.sh` runs both and prints the ratios.
//!
//! `cargo bench --bench train_throughput`
//!
//! `-- --peak` prints the machine's measured fp32 peak instead (and, on
//! standard error, the peak of each bf16 unit it has, and the integer
//! peak of `solve --matmul int8`'s AVX2 instructions);
//! `-- --gemm` the rates of the reference network's three training
//! products (forward, weight gradient, input gradient of a 512 → 512 layer
//! at batch 2,080) in burn's f32 GEMM and on each bf16 unit of the machine
//! (`kernels::gemm`), packing included.

use burn::module::Module;
use burn::optim::{AdamConfig, GradientsParams};
use burn::tensor::activation::log_softmax;
use burn::tensor::{Device, Int, Tensor, TensorData};
use cube_oracle::cube3::{Cube3Puzzle, Metric};
use cube_oracle::kernels::gemm::{self, Kernel, View};
use cube_oracle::learn::config::{Encoding, ModelSection, Norm};
use cube_oracle::learn::data::{BatchSpec, Depths, Labels, make_batch};
use cube_oracle::learn::model::{OracleNet, forward_macs, parameter_count};
use cube_oracle::scramble::{WalkKind, WalkLength};
use cube_oracle::search::OracleKind;
use std::time::Instant;

/// The sum over `threads` threads of `peak`, measured on each at once
/// (an integer peak in GOP/s).
fn on_every_thread(threads: usize, peak: impl Fn() -> f64 + Sync) -> f64 {
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads).map(|_| s.spawn(&peak)).collect();
        handles.into_iter().map(|h| h.join().unwrap_or(0.0)).sum()
    })
}

/// Measured fp32 peak of this machine: independent FMA chains on every
/// thread, in GFLOP/s (2 FLOPs per lane per FMA), with the widest FMA the
/// CPU has: AVX-512 (16 lanes), else AVX2 + FMA (8 lanes); 0 on anything
/// else, so that no figure is quoted against a made-up peak.
fn peak_gflops(threads: usize) -> f64 {
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    fn chains(iters: u64) -> f32 {
        use std::arch::x86_64::*;
        let a = _mm512_set1_ps(0.999_999);
        let b = _mm512_set1_ps(1e-7);
        let mut acc = [_mm512_set1_ps(1.0); 12];
        for _ in 0..iters {
            for x in &mut acc {
                *x = _mm512_fmadd_ps(*x, a, b);
            }
        }
        acc.iter().map(|&x| _mm512_reduce_add_ps(x)).sum()
    }
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    fn chains_avx2(iters: u64) -> f32 {
        use std::arch::x86_64::*;
        let a = _mm256_set1_ps(0.999_999);
        let b = _mm256_set1_ps(1e-7);
        let mut acc = [_mm256_set1_ps(1.0); 12];
        for _ in 0..iters {
            for x in &mut acc {
                *x = _mm256_fmadd_ps(*x, a, b);
            }
        }
        let mut lanes = [0f32; 8];
        let mut total = 0.0;
        for x in acc {
            // SAFETY: `lanes` holds 8 floats, the width of one AVX register.
            unsafe { _mm256_storeu_ps(lanes.as_mut_ptr(), x) };
            total += lanes.iter().sum::<f32>();
        }
        total
    }
    #[cfg(target_arch = "x86_64")]
    let lanes: u64 = if std::arch::is_x86_feature_detected!("avx512f") {
        16
    } else if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
        8
    } else {
        0
    };
    #[cfg(not(target_arch = "x86_64"))]
    let lanes: u64 = 0;
    let iters = 200_000_000u64;
    let t = Instant::now();
    let handles: Vec<_> = (0..threads)
        .map(|_| {
            std::thread::spawn(move || {
                #[cfg(target_arch = "x86_64")]
                {
                    if lanes == 16 {
                        // SAFETY: AVX-512F is available (checked above).
                        return unsafe { chains(iters) };
                    }
                    if lanes == 8 {
                        // SAFETY: AVX2 and FMA are available (checked above).
                        return unsafe { chains_avx2(iters) };
                    }
                }
                0.0
            })
        })
        .collect();
    let sink: f32 = handles.into_iter().map(|h| h.join().unwrap_or(0.0)).sum();
    std::hint::black_box(sink);
    (threads as u64 * iters * 12 * lanes * 2) as f64 / t.elapsed().as_secs_f64() / 1e9
}

fn main() {
    let threads: usize = std::env::var("CUBE_ORACLE_THREADS").ok().and_then(|s| s.parse().ok()).unwrap_or(2);
    if std::env::args().any(|a| a == "--peak") {
        println!("{:.1}", peak_gflops(threads));
        for k in Kernel::all_available() {
            eprintln!("{} peak: {:.1} GFLOP/s", k.name(), k.peak_gflops(threads));
        }
        use cube_oracle::kernels::compiled::int8;
        use cube_oracle::kernels::compiled::kernel::Kernel as F32Kernel;
        for (kernel, unit) in [(F32Kernel::Avx512, "AVX512-VNNI vpdpbusd"), (F32Kernel::Avx2Fma, "AVX2 vpmaddubsw")] {
            let peak = on_every_thread(threads, || int8::peak_gops(kernel, 1.0));
            if peak > 0.0 {
                eprintln!("int8 ({unit}) peak: {peak:.1} GOP/s");
            }
        }
        let tiles = on_every_thread(threads, || int8::tiles_peak_gops(1.0));
        if tiles > 0.0 {
            eprintln!("int8 (AMX tdpbusd) peak: {tiles:.1} GOP/s");
        }
        return;
    }
    cube_oracle::learn::training::set_threads(Some(threads));
    if std::env::var_os("CUBE_ORACLE_DEFAULT_MALLOC").is_none() {
        cube_oracle::learn::backend::tune_allocator();
    }
    if std::env::args().any(|a| a == "--gemm") {
        gemm_rates();
        return;
    }
    let cfg = ModelSection {
        kind: OracleKind::Policy,
        loss: None,
        forward_targets: None,
        rank_weight: None,
        encoding: Encoding::OneHot,
        hidden: vec![1024, 1024],
        residual_blocks: 2,
        norm: Norm::None,
    };
    let (inputs, moves, batch) = (324, 12, 1024);
    let params = parameter_count(&cfg, inputs, moves);
    let macs = forward_macs(&cfg, inputs, moves);
    let base = Device::flex();
    base.seed(0);
    let dev = base.clone().autodiff();
    let puzzle = Cube3Puzzle::new(Metric::Qtm);
    let spec = BatchSpec {
        length: WalkLength::Fixed(26),
        prune: true,
        walk: WalkKind::Random,
        depths: Depths::AllPrefixes,
        size: batch,
        seed: 0,
        labels: Labels::Walk,
        pool: 1,
    };
    let b = make_batch(&puzzle, &spec, 0).expect("valid spec");

    let mut model = OracleNet::new(&cfg, inputs, moves, &dev);
    let mut optim = AdamConfig::new().with_epsilon(1e-8).init();
    let step = |model: OracleNet, optim: &mut burn::optim::ModuleOptimizer| {
        let x = Tensor::<2>::from_data(TensorData::new(b.inputs.clone(), [batch, inputs]), &dev);
        let y = Tensor::<1, Int>::from_data(TensorData::new(b.labels.clone(), [batch]), &dev);
        let loss = log_softmax(model.forward(x), 1).gather(1, y.reshape([batch, 1])).mean().neg();
        let _ = loss.clone().detach().into_scalar::<f32>();
        let grads = GradientsParams::from_grads(loss.backward(), &model);
        optim.step(1e-3, model, grads)
    };
    for _ in 0..3 {
        model = step(model, &mut optim);
    }
    let n = 20;
    let t = Instant::now();
    for _ in 0..n {
        model = step(model, &mut optim);
    }
    let train_s = t.elapsed().as_secs_f64();
    let train_rate = (n * batch) as f64 / train_s;

    let net = model.valid();
    let ib = 4096;
    let big = make_batch(&puzzle, &BatchSpec { size: ib, ..spec }, 1).expect("valid spec");
    let infer = || {
        let x = Tensor::<2>::from_data(TensorData::new(big.inputs.clone(), [ib, inputs]), &base);
        let _ = net.forward(x).into_data();
    };
    infer();
    let m = 10;
    let t = Instant::now();
    for _ in 0..m {
        infer();
    }
    let infer_rate = (m * ib) as f64 / t.elapsed().as_secs_f64();
    // Training ≈ 3 × forward FLOPs (forward, input gradient, weight gradient).
    let train_gflops = train_rate * 3.0 * 2.0 * macs as f64 / 1e9;
    let infer_gflops = infer_rate * 2.0 * macs as f64 / 1e9;
    println!("framework\tthreads\tparams\ttrain_samples_per_s\ttrain_gflops\tinfer_states_per_s\tinfer_gflops");
    println!("burn-flex\t{threads}\t{params}\t{train_rate:.0}\t{train_gflops:.1}\t{infer_rate:.0}\t{infer_gflops:.1}");
}

/// GFLOP/s of the three products of one training step of a 512 → 512
/// layer at batch 2,080, as the trainer calls them (the weight stored
/// `[in, out]`, activations feature-major): burn's f32 GEMM against every
/// bf16 unit of this machine.
fn gemm_rates() {
    let (d, n) = (512, 2080);
    let fill = |len: usize, f: f32| (0..len).map(|i| (i as f32 * f).sin()).collect::<Vec<f32>>();
    let (w, x, dz) = (fill(d * d, 0.37), fill(d * n, 0.11), fill(d * n, 0.53));
    let flops = 2.0 * (d * d * n) as f64;
    let reps = 20;
    let time = |f: &dyn Fn()| {
        f();
        let t = Instant::now();
        for _ in 0..reps {
            f();
        }
        flops * reps as f64 / t.elapsed().as_secs_f64() / 1e9
    };
    // (name, A, B) with C = A·B: z = Wᵀ·x, dWᵀ = dz·xᵀ, dx = W·dz.
    let products = [
        ("forward  z = Wt x", View::row_major(&w, d, d).t(), View::row_major(&x, d, n)),
        ("weights dWt = dz xt", View::row_major(&dz, d, n), View::row_major(&x, d, n).t()),
        ("inputs  dx = W dz", View::row_major(&w, d, d), View::row_major(&dz, d, n)),
    ];
    let dev = Device::flex();
    println!(
        "product\tf32_gflops\t{}",
        Kernel::all_available().iter().map(|k| format!("{}_gflops", k.name())).collect::<Vec<_>>().join("\t")
    );
    for (name, a, b) in products {
        let (ta, tb) = (to_tensor(a, &dev), to_tensor(b, &dev));
        let f32_rate = time(&|| {
            let _ = ta.clone().matmul(tb.clone()).into_data();
        });
        let rates: Vec<String> = Kernel::all_available()
            .into_iter()
            .map(|k| format!("{:.0}", time(&|| drop(gemm::matmul(k, a, b)))))
            .collect();
        println!("{name}\t{f32_rate:.0}\t{}", rates.join("\t"));
    }
}

/// A view as a burn tensor of the same strides (a transposed view stays a
/// transposed view, as in the trainer).
fn to_tensor(v: View<'_>, dev: &Device) -> Tensor<2> {
    if v.col_stride == 1 {
        Tensor::from_data(TensorData::new(v.data.to_vec(), [v.rows, v.cols]), dev)
    } else {
        Tensor::<2>::from_data(TensorData::new(v.data.to_vec(), [v.cols, v.rows]), dev).transpose()
    }
}
