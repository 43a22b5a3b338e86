//! Bias → ReLU → batch norm over a feature-major batch, forward and
//! backward, as single passes over each feature's row.
//!
//! Every hidden layer of a batch-norm network computes `y = BN(ReLU(z + b))`
//! on `[features, batch]` activations. [`forward`] reads `z` once and
//! writes the ReLU output `h` (kept for the backward pass) and the
//! normalised output `y`, with the batch statistics taken while the row is
//! in cache; [`backward`] reads the output gradient and `h` once and writes
//! the input gradient, with the four parameter-side reductions (bias, γ, β
//! and the statistics) done on the way. Rows are features, so the work
//! splits across threads by feature (the current rayon pool).
//!
//! The arithmetic is burn's `batch_norm_train` (biased batch variance; the
//! ReLU gradient masked where the output is not positive) with every sum
//! in eight interleaved lanes. The same loops are compiled for AVX-512,
//! for AVX2 and for the baseline x86-64 (SSE2) and chosen at run time
//! ([`Isa::detect`]); no instruction changes the order of any operation
//! (no fused multiply-adds are formed), so all three give the same bits,
//! which the tests check. Nothing here knows about burn: `learn::fused`
//! makes these passes a burn backend extension.

use rayon::prelude::*;
use std::mem::MaybeUninit;
use std::sync::OnceLock;

/// The instruction set the passes are compiled for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Isa {
    /// AVX-512 (`avx512f`): sixteen lanes per instruction.
    Avx512,
    /// AVX2: eight lanes.
    Avx2,
    /// The build's baseline (SSE2 on x86-64; whatever the target has elsewhere).
    Portable,
}

impl Isa {
    /// The widest instruction set this CPU runs, detected once per process.
    #[must_use]
    pub fn detect() -> Isa {
        static ISA: OnceLock<Isa> = OnceLock::new();
        *ISA.get_or_init(|| Isa::available()[0])
    }

    /// Every instruction set this CPU runs, widest first (for tests and
    /// benchmarks).
    #[must_use]
    pub fn available() -> Vec<Isa> {
        [Isa::Avx512, Isa::Avx2, Isa::Portable].into_iter().filter(|i| i.runs_here()).collect()
    }

    /// Whether this CPU runs code compiled for the instruction set.
    #[must_use]
    pub fn runs_here(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            match self {
                Isa::Avx512 => std::arch::is_x86_feature_detected!("avx512f"),
                Isa::Avx2 => std::arch::is_x86_feature_detected!("avx2"),
                Isa::Portable => true,
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            self == Isa::Portable
        }
    }

    /// The name used in logs and `meta.json`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Isa::Avx512 => "avx512",
            Isa::Avx2 => "avx2",
            Isa::Portable => "portable",
        }
    }
}

/// The forward pass over `features` rows of `batch` values.
#[derive(Debug, Clone, PartialEq)]
pub struct Forward {
    /// Normalised output, `[features, batch]`.
    pub y: Vec<f32>,
    /// `ReLU(z + bias)`, `[features, batch]`, kept for the backward pass.
    pub h: Vec<f32>,
    /// Batch mean of `h` per feature.
    pub mean: Vec<f32>,
    /// Biased batch variance of `h` per feature.
    pub var: Vec<f32>,
}

/// The gradients of the pass: `[features, batch]` for `z`, `[features]`
/// for the rest.
#[derive(Debug, Clone, PartialEq)]
pub struct Gradient {
    pub dz: Vec<f32>,
    pub dbias: Vec<f32>,
    pub dgamma: Vec<f32>,
    pub dbeta: Vec<f32>,
}

/// `y = γ (h − μ) / √(σ² + ε) + β` with `h = ReLU(z + bias)`, per feature
/// row of `z` (`[features, batch]`, row-major), with the batch's own mean
/// μ and biased variance σ²; on [`Isa::detect`]'s instruction set.
///
/// # Panics
/// If `batch` is 0, `z.len()` is not a multiple of it, or `bias`, `gamma`
/// or `beta` do not hold one value per row.
#[must_use]
pub fn forward(z: &[f32], bias: &[f32], gamma: &[f32], beta: &[f32], batch: usize, epsilon: f64) -> Forward {
    forward_on(Isa::detect(), z, bias, gamma, beta, batch, epsilon)
}

/// [`forward`] on a given instruction set.
///
/// # Panics
/// As [`forward`], and if this CPU does not run `isa`.
#[must_use]
pub fn forward_on(
    isa: Isa,
    z: &[f32],
    bias: &[f32],
    gamma: &[f32],
    beta: &[f32],
    batch: usize,
    epsilon: f64,
) -> Forward {
    assert!(isa.runs_here(), "this CPU does not run {} code", isa.name());
    let features = rows(z.len(), batch);
    assert!(bias.len() == features && gamma.len() == features && beta.len() == features, "one parameter per feature");
    let len = z.len();
    // Both outputs are written in full below, so they are not zeroed first.
    let (mut y, mut h) = (Vec::<f32>::with_capacity(len), Vec::<f32>::with_capacity(len));
    let stats: Vec<(f32, f32)> = y.spare_capacity_mut()[..len]
        .par_chunks_mut(batch)
        .zip(h.spare_capacity_mut()[..len].par_chunks_mut(batch))
        .zip(z.par_chunks(batch))
        .enumerate()
        .map(|(c, ((y, h), z))| {
            let row = RowIn { bias: bias[c], gamma: gamma[c], beta: beta[c], epsilon };
            // SAFETY: `isa` runs on this CPU (asserted above).
            unsafe { dispatch_forward(isa, y, h, z, row) }
        })
        .collect();
    // SAFETY: every row of both was written above (the chunks cover `len`).
    unsafe {
        y.set_len(len);
        h.set_len(len);
    }
    let (mean, var) = stats.into_iter().unzip();
    Forward { y, h, mean, var }
}

/// The backward pass of [`forward`] given the output gradient `dy`: with
/// `x̂ = (h − μ)/σ`, `dβ = Σ dy`, `dγ = Σ dy·x̂`,
/// `dh = γ/σ · (dy − dβ/n − x̂·dγ/n)`, `dz = dh` where `h > 0`, and
/// `dbias = Σ dz`; on [`Isa::detect`]'s instruction set.
///
/// # Panics
/// If the shapes disagree as in [`forward`].
#[must_use]
pub fn backward(
    dy: &[f32],
    h: &[f32],
    gamma: &[f32],
    mean: &[f32],
    var: &[f32],
    batch: usize,
    epsilon: f64,
) -> Gradient {
    backward_on(Isa::detect(), dy, h, gamma, mean, var, batch, epsilon)
}

/// [`backward`] on a given instruction set.
///
/// # Panics
/// As [`backward`], and if this CPU does not run `isa`.
#[must_use]
#[allow(clippy::too_many_arguments)]
pub fn backward_on(
    isa: Isa,
    dy: &[f32],
    h: &[f32],
    gamma: &[f32],
    mean: &[f32],
    var: &[f32],
    batch: usize,
    epsilon: f64,
) -> Gradient {
    assert!(isa.runs_here(), "this CPU does not run {} code", isa.name());
    let features = rows(dy.len(), batch);
    assert_eq!(h.len(), dy.len(), "the ReLU output has the gradient's shape");
    assert!(gamma.len() == features && mean.len() == features && var.len() == features, "one value per feature");
    let len = dy.len();
    let mut dz = Vec::<f32>::with_capacity(len);
    let sums: Vec<(f32, f32, f32)> = dz.spare_capacity_mut()[..len]
        .par_chunks_mut(batch)
        .zip(dy.par_chunks(batch).zip(h.par_chunks(batch)))
        .enumerate()
        .map(|(c, (dz, (dy, h)))| {
            let row = RowBack { gamma: gamma[c], mean: mean[c], var: var[c], epsilon };
            // SAFETY: `isa` runs on this CPU (asserted above).
            unsafe { dispatch_backward(isa, dz, dy, h, row) }
        })
        .collect();
    // SAFETY: every row of `dz` was written above (the chunks cover `len`).
    unsafe { dz.set_len(len) };
    let (dbias, (dgamma, dbeta)) = sums.into_iter().map(|(b, g, beta)| (b, (g, beta))).unzip();
    Gradient { dz, dbias, dgamma, dbeta }
}

fn rows(len: usize, batch: usize) -> usize {
    assert!(batch > 0 && len.is_multiple_of(batch), "{len} values are not whole rows of {batch}");
    len / batch
}

/// One feature's parameters in the forward pass.
#[derive(Clone, Copy)]
struct RowIn {
    bias: f32,
    gamma: f32,
    beta: f32,
    epsilon: f64,
}

/// One feature's values in the backward pass.
#[derive(Clone, Copy)]
struct RowBack {
    gamma: f32,
    mean: f32,
    var: f32,
    epsilon: f64,
}

/// # Safety
/// This CPU runs `isa`.
unsafe fn dispatch_forward(
    isa: Isa,
    y: &mut [MaybeUninit<f32>],
    h: &mut [MaybeUninit<f32>],
    z: &[f32],
    p: RowIn,
) -> (f32, f32) {
    match isa {
        // SAFETY: the caller's contract.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => unsafe { x86::forward_avx512(y, h, z, p) },
        // SAFETY: the caller's contract.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { x86::forward_avx2(y, h, z, p) },
        _ => forward_row(y, h, z, p),
    }
}

/// # Safety
/// This CPU runs `isa`.
unsafe fn dispatch_backward(
    isa: Isa,
    dz: &mut [MaybeUninit<f32>],
    dy: &[f32],
    h: &[f32],
    p: RowBack,
) -> (f32, f32, f32) {
    match isa {
        // SAFETY: the caller's contract.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => unsafe { x86::backward_avx512(dz, dy, h, p) },
        // SAFETY: the caller's contract.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { x86::backward_avx2(dz, dy, h, p) },
        _ => backward_row(dz, dy, h, p),
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{MaybeUninit, RowBack, RowIn, backward_row, forward_row};

    #[target_feature(enable = "avx512f")]
    pub(super) fn forward_avx512(
        y: &mut [MaybeUninit<f32>],
        h: &mut [MaybeUninit<f32>],
        z: &[f32],
        p: RowIn,
    ) -> (f32, f32) {
        forward_row(y, h, z, p)
    }

    #[target_feature(enable = "avx2")]
    pub(super) fn forward_avx2(
        y: &mut [MaybeUninit<f32>],
        h: &mut [MaybeUninit<f32>],
        z: &[f32],
        p: RowIn,
    ) -> (f32, f32) {
        forward_row(y, h, z, p)
    }

    #[target_feature(enable = "avx512f")]
    pub(super) fn backward_avx512(dz: &mut [MaybeUninit<f32>], dy: &[f32], h: &[f32], p: RowBack) -> (f32, f32, f32) {
        backward_row(dz, dy, h, p)
    }

    #[target_feature(enable = "avx2")]
    pub(super) fn backward_avx2(dz: &mut [MaybeUninit<f32>], dy: &[f32], h: &[f32], p: RowBack) -> (f32, f32, f32) {
        backward_row(dz, dy, h, p)
    }
}

/// One feature's forward pass; returns its mean and variance. Inlined
/// into each instruction set's copy.
#[inline(always)]
fn forward_row(y: &mut [MaybeUninit<f32>], h: &mut [MaybeUninit<f32>], z: &[f32], p: RowIn) -> (f32, f32) {
    let batch = z.len();
    for (h, &z) in h.iter_mut().zip(z) {
        let v = z + p.bias;
        h.write(if v.is_nan() || v > 0.0 { v } else { 0.0 });
    }
    let h = written(h);
    let mean = lane_sum(h, |v| v) / batch as f32;
    let var = lane_sum(h, |v| (v - mean) * (v - mean)) / batch as f32;
    let scale = p.gamma / (f64::from(var) + p.epsilon).sqrt() as f32;
    let shift = p.beta - mean * scale;
    for (y, &h) in y.iter_mut().zip(h.iter()) {
        y.write(h * scale + shift);
    }
    (mean, var)
}

/// One feature's backward pass; returns its `dbias`, `dgamma` and `dbeta`.
#[inline(always)]
fn backward_row(dz: &mut [MaybeUninit<f32>], dy: &[f32], h: &[f32], p: RowBack) -> (f32, f32, f32) {
    let n = dy.len() as f32;
    let inv_std = 1.0 / (f64::from(p.var) + p.epsilon).sqrt() as f32;
    let mu = p.mean;
    let dbeta = lane_sum(dy, |v| v);
    let dgamma = lane_dot(dy, h, |g, v| g * (v - mu)) * inv_std;
    let scale = p.gamma * inv_std;
    let (a, b) = (dbeta / n, dgamma / n * inv_std);
    for ((dz, &g), &v) in dz.iter_mut().zip(dy).zip(h) {
        let grad = scale * (g - a - (v - mu) * b);
        dz.write(if v.is_nan() || v > 0.0 { grad } else { 0.0 });
    }
    let dz = written(dz);
    (lane_sum(dz, |v| v), dgamma, dbeta)
}

/// A chunk whose every element has just been written, as plain floats.
#[inline(always)]
fn written(chunk: &mut [MaybeUninit<f32>]) -> &[f32] {
    // SAFETY: callers pass chunks they wrote in full; `MaybeUninit<f32>`
    // has the layout of `f32`.
    unsafe { &*(std::ptr::from_mut(chunk) as *const [f32]) }
}

/// `Σ f(xᵢ)` in eight independent lanes, so that the loop vectorises.
#[inline(always)]
fn lane_sum(xs: &[f32], f: impl Fn(f32) -> f32) -> f32 {
    lane_dot(xs, xs, |x, _| f(x))
}

/// `Σ f(aᵢ, bᵢ)` in eight independent lanes.
#[inline(always)]
fn lane_dot(a: &[f32], b: &[f32], f: impl Fn(f32, f32) -> f32) -> f32 {
    let mut acc = [0.0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = ca.remainder().iter().zip(cb.remainder()).map(|(&x, &y)| f(x, y)).sum();
    for (xa, xb) in ca.zip(cb) {
        for ((acc, &x), &y) in acc.iter_mut().zip(xa).zip(xb) {
            *acc += f(x, y);
        }
    }
    acc.iter().sum::<f32>() + tail
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(n: usize, seed: f32) -> Vec<f32> {
        (0..n).map(|i| ((i as f32 + seed) * 0.731).sin() * 1.7 + 0.2).collect()
    }

    /// The forward pass against an f64 evaluation of the formula, and its
    /// backward pass against central finite differences of a weighted sum
    /// of the outputs, on a ragged batch.
    #[test]
    fn the_pass_computes_batch_norm_and_its_gradient() {
        let (features, batch, eps) = (3, 37, 1e-5);
        let (z, bias, gamma, beta) = (values(features * batch, 0.0), values(3, 5.0), values(3, 7.0), values(3, 9.0));
        let f = forward_on(Isa::Portable, &z, &bias, &gamma, &beta, batch, eps);
        let weights = values(features * batch, 11.0);
        let objective = |z: &[f32]| -> f64 {
            let y = forward_on(Isa::Portable, z, &bias, &gamma, &beta, batch, eps).y;
            y.iter().zip(&weights).map(|(&y, &w)| f64::from(y) * f64::from(w)).sum()
        };
        for c in 0..features {
            let row: Vec<f64> = (0..batch).map(|i| f64::from((z[c * batch + i] + bias[c]).max(0.0))).collect();
            let mean = row.iter().sum::<f64>() / batch as f64;
            let var = row.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / batch as f64;
            assert!((f64::from(f.mean[c]) - mean).abs() < 1e-5 && (f64::from(f.var[c]) - var).abs() < 1e-5);
            for (i, (&h, &y)) in row.iter().zip(&f.y[c * batch..(c + 1) * batch]).enumerate() {
                let want = f64::from(gamma[c]) * (h - mean) / (var + eps).sqrt() + f64::from(beta[c]);
                assert!((f64::from(y) - want).abs() < 1e-4, "y[{c},{i}]");
            }
        }
        let g = backward_on(Isa::Portable, &weights, &f.h, &gamma, &f.mean, &f.var, batch, eps);
        let step = 1e-2f32;
        for j in [0, 5, 36, 40, 74, 110] {
            if f.h[j] < 2.0 * step {
                continue; // the ReLU's kink: no derivative to compare
            }
            let (mut up, mut down) = (z.clone(), z.clone());
            up[j] += step;
            down[j] -= step;
            let numeric = (objective(&up) - objective(&down)) / (2.0 * f64::from(step));
            assert!(
                (numeric - f64::from(g.dz[j])).abs() < 2e-2 * numeric.abs().max(1.0),
                "dz[{j}]: {numeric} vs {}",
                g.dz[j]
            );
        }
    }

    /// Every instruction set this CPU runs gives the portable code's bits,
    /// forward and backward, at the training batch and on ragged ones.
    #[test]
    fn every_instruction_set_gives_the_same_bits() {
        assert!(Isa::available().contains(&Isa::detect()));
        for batch in [1, 7, 37, 2080, 2083] {
            let features = 5;
            let (z, bias, gamma, beta) =
                (values(features * batch, 1.0), values(features, 2.0), values(features, 3.0), values(features, 4.0));
            let dy = values(features * batch, 6.0);
            let want = forward_on(Isa::Portable, &z, &bias, &gamma, &beta, batch, 1e-5);
            let want_g = backward_on(Isa::Portable, &dy, &want.h, &gamma, &want.mean, &want.var, batch, 1e-5);
            for isa in Isa::available() {
                let got = forward_on(isa, &z, &bias, &gamma, &beta, batch, 1e-5);
                assert_eq!(got, want, "{} forward, batch {batch}", isa.name());
                let got_g = backward_on(isa, &dy, &got.h, &gamma, &got.mean, &got.var, batch, 1e-5);
                assert_eq!(got_g, want_g, "{} backward, batch {batch}", isa.name());
            }
        }
    }
}
