//! bf16 products for the compiled network (`solve --matmul bf16`): each
//! dense hidden layer's weights and input rounded to bfloat16 (nearest,
//! ties to even), their products (exact in f32) summed in f32, the
//! epilogue in f32.
//!
//! On AVX-512 with BF16 the products run on `vdpbf16ps`, which adds the
//! two products of a *pair* of bf16 values (two consecutive inputs) to
//! each of 16 f32 lanes: 32 multiply-adds per instruction, twice the f32
//! FMA's. A layer's weights are stored as panels of pairs
//! ([`PairLayer`]); its input rows are rounded into pairs once per layer
//! ([`round_row`]) and each row's pair is broadcast to the lanes, once
//! for two panels where the layer has another ([`tile_pair`]: twelve rows
//! × 32 columns in 24 registers, half a broadcast per product). Where a
//! CPU has no bf16 unit, the same function runs on the f32 kernels with
//! rounded operands (the network rounds its weights at load and each
//! layer's input as it packs it); the sums then differ by float rounding
//! only, the order of the additions.
//!
//! The first (one-hot) layer is a sum of rounded weight rows on every
//! kernel, and the head stays f32, as in training's bf16 products.

use super::kernel::{Epilogue, Kernel, NR};
use crate::kernels::gemm::bf16_bits;

/// Rows of one bf16 register tile on AVX-512: twelve rows × one 16-lane
/// vector of sums per panel.
pub const MR: usize = 12;

/// One dense layer's weights as bf16 pairs.
pub struct PairLayer {
    /// Input width (padded, a multiple of [`NR`]).
    pub k: usize,
    /// Output width (padded).
    pub n: usize,
    /// `n / NR` panels; in each, `k / 2` pairs of inputs, each `NR`
    /// columns' pairs (`w[2g][j]` in the low half, `w[2g + 1][j]` in the
    /// high half): 64 bytes.
    pairs: Vec<u32>,
}

impl PairLayer {
    /// A PyTorch-layout weight (`d_out × d_in`), padded to `k × n`.
    #[must_use]
    pub fn new(w: &[f32], d_out: usize, d_in: usize, k: usize, n: usize) -> Self {
        assert!(w.len() == d_out * d_in && d_in <= k && d_out <= n && k.is_multiple_of(2) && n.is_multiple_of(NR));
        let half = k / 2;
        let mut pairs = vec![0u32; half * n];
        for o in 0..d_out {
            let (panel, col) = (o / NR, o % NR);
            for (i, &v) in w[o * d_in..(o + 1) * d_in].iter().enumerate() {
                let at = (panel * half + i / 2) * NR + col;
                pairs[at] |= u32::from(bf16_bits(v)) << (16 * (i % 2));
            }
        }
        Self { k, n, pairs }
    }

    /// The pairs of the `count` panels from panel `p`.
    ///
    /// # Panics
    /// When they run past the layer's last panel.
    fn panels(&self, p: usize, count: usize) -> &[u32] {
        let half = self.k / 2;
        &self.pairs[p * half * NR..(p + count) * half * NR]
    }
}

/// The `k` values of `row` (even) rounded to bf16, as `k / 2` pairs into
/// `out`.
pub(crate) fn round_row(kernel: Kernel, row: &[f32], out: &mut [u32]) {
    assert!(row.len() == 2 * out.len());
    match kernel {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the lengths are checked above; the kernel is only chosen
        // where the CPU has it.
        Kernel::Avx512 if row.len().is_multiple_of(32) => unsafe { avx512::round_row(row, out) },
        _ => {
            for (p, x) in out.iter_mut().zip(row.chunks_exact(2)) {
                *p = u32::from(bf16_bits(x[0])) | (u32::from(bf16_bits(x[1])) << 16);
            }
        }
    }
}

/// What runs bf16 products in the compiled network on `kernel`.
#[must_use]
pub fn unit(kernel: Kernel) -> &'static str {
    match kernel {
        Kernel::Avx512 => "AVX512-BF16 (vdpbf16ps)",
        Kernel::Avx2Fma => "rounded operands on AVX2 FMA",
        Kernel::Portable => "rounded operands in portable code",
    }
}

/// `c[r][0..16] = epilogue(Σ_g x[g][r] · w[g][0..16]) (+ res[r][0..16])`
/// for [`MR`] rows and the 16 columns of `layer`'s panel `p`, every
/// product of a bf16 pair. `x` holds the tile's pairs column by column:
/// the [`MR`] rows' pair `g` together at `x[g · MR..]` (as
/// [`pack_tile`] writes them), so that every broadcast is at a constant
/// offset from one pointer; `epi`'s slices start at the panel's first
/// column.
///
/// # Safety
/// `x` holds `layer.k / 2 × MR` pairs; `c` (and `res` when not null)
/// [`MR`] rows of [`NR`] floats at stride `ldc`; the epilogue's slices at
/// least [`NR`] each; `p < layer.n / NR`; and the CPU has the AVX-512
/// kernel.
#[allow(clippy::too_many_arguments)]
#[cfg(target_arch = "x86_64")]
pub unsafe fn tile(
    x: *const u32,
    layer: &PairLayer,
    p: usize,
    epi: &Epilogue<'_>,
    res: *const f32,
    c: *mut f32,
    ldc: usize,
) {
    // SAFETY: the caller's contract.
    unsafe { avx512::tile::<1>(x, layer.panels(p, 1), layer.k / 2, epi, res, c, ldc) }
}

/// [`tile`] for the two panels `p` and `p + 1` of `layer`, the 32
/// columns from `p · NR` (`epi`'s slices, `c` and `res` start at the
/// first): the same sums as two calls of [`tile`], each row's pair
/// broadcast once for both panels.
///
/// # Safety
/// As [`tile`], for both panels: `p + 1 < layer.n / NR`, 32 columns in
/// `c`, `res` and the epilogue's slices.
#[allow(clippy::too_many_arguments)]
#[cfg(target_arch = "x86_64")]
pub unsafe fn tile_pair(
    x: *const u32,
    layer: &PairLayer,
    p: usize,
    epi: &Epilogue<'_>,
    res: *const f32,
    c: *mut f32,
    ldc: usize,
) {
    assert!(p + 1 < layer.n / NR && epi.bias.len() >= 2 * NR && epi.scale.len() >= 2 * NR && epi.shift.len() >= 2 * NR);
    // SAFETY: the caller's contract, for both panels (checked above).
    unsafe { avx512::tile::<2>(x, layer.panels(p, 2), layer.k / 2, epi, res, c, ldc) }
}

/// The [`MR`] rows of a tile (`rows[r]`, each `k` values at stride `ld`
/// from `src`) rounded into pairs and stored column by column into `out`
/// (`k / 2 × MR` pairs), as [`tile`] reads them; `row` is scratch for one
/// row's pairs.
pub(crate) fn pack_tile(kernel: Kernel, src: &[f32], ld: usize, k: usize, row: &mut Vec<u32>, out: &mut [u32]) {
    let half = k / 2;
    assert!(out.len() == half * MR && src.len() >= (MR - 1) * ld + k);
    row.resize(half, 0);
    for r in 0..MR {
        round_row(kernel, &src[r * ld..r * ld + k], row);
        for (g, &pair) in row.iter().enumerate() {
            out[g * MR + r] = pair;
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::MR;
    use crate::kernels::compiled::kernel::Epilogue;
    use crate::kernels::compiled::kernel::avx512::finish_store;
    use std::arch::x86_64::{
        __m512bh, __m512i, _mm512_cvtne2ps_pbh, _mm512_dpbf16_ps, _mm512_loadu_ps, _mm512_loadu_si512,
        _mm512_set1_epi32, _mm512_setzero_ps, _mm512_storeu_si512,
    };

    /// [`super::tile`] (`N` = 1) and [`super::tile_pair`] (`N` = 2) on
    /// `vdpbf16ps`: [`MR`] rows × `N` panels of sums in registers, each
    /// row's pair broadcast once for all `N`, then each panel's epilogue.
    #[allow(clippy::too_many_arguments)]
    #[target_feature(enable = "avx512f,avx512bw,avx512bf16")]
    pub(super) unsafe fn tile<const N: usize>(
        x: *const u32,
        panels: &[u32],
        half: usize,
        epi: &Epilogue<'_>,
        res: *const f32,
        c: *mut f32,
        ldc: usize,
    ) {
        // SAFETY: the caller's bounds (`super::tile`, `super::tile_pair`):
        // half × MR pairs, N panels of half × 16 pairs, 16·N values in
        // every per-column slice, MR rows of 16·N floats in `c` and `res`.
        unsafe {
            let mut acc = [[_mm512_setzero_ps(); MR]; N];
            let w = panels.as_ptr();
            for g in 0..half {
                let wg: [__m512bh; N] = std::array::from_fn(|h| {
                    std::mem::transmute::<__m512i, __m512bh>(_mm512_loadu_si512(w.add((h * half + g) * 16).cast()))
                });
                let xg = x.add(g * MR);
                for r in 0..MR {
                    let b = std::mem::transmute::<__m512i, __m512bh>(_mm512_set1_epi32(*xg.add(r) as i32));
                    for (sums, &wg) in acc.iter_mut().zip(&wg) {
                        sums[r] = _mm512_dpbf16_ps(sums[r], wg, b);
                    }
                }
            }
            for (h, sums) in acc.iter().enumerate() {
                let (at, epi) = (h * 16, epi.from(h * 16));
                let res = if res.is_null() { res } else { res.add(at) };
                for (r, &v) in sums.iter().enumerate() {
                    finish_store(v, &epi, res, c.add(at), r, ldc);
                }
            }
        }
    }

    /// [`super::round_row`] on `vcvtne2ps2bf16`, 32 values at a time
    /// (the row's length a multiple of 32). It flushes subnormal inputs to
    /// zero, where the scalar rounding keeps them; `vdpbf16ps` reads
    /// subnormal operands as zero, so the products do not differ.
    #[target_feature(enable = "avx512f,avx512bw,avx512bf16")]
    pub(super) unsafe fn round_row(row: &[f32], out: &mut [u32]) {
        // SAFETY: `row` holds 2 · out.len() values, a multiple of 32
        // (the caller's check), so every load and store is within them.
        unsafe {
            for (i, dst) in (0..row.len()).step_by(32).zip(out.chunks_exact_mut(16)) {
                let lo = _mm512_loadu_ps(row.as_ptr().add(i));
                let hi = _mm512_loadu_ps(row.as_ptr().add(i + 16));
                // The low 16 bf16 values come from the second operand.
                let bh = _mm512_cvtne2ps_pbh(hi, lo);
                _mm512_storeu_si512(dst.as_mut_ptr().cast(), std::mem::transmute::<__m512bh, __m512i>(bh));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Kernel, round_row};
    use crate::kernels::gemm::bf16_bits;

    /// Two panels in one call ([`super::tile_pair`]) are the same floats,
    /// bit for bit, as a call of [`super::tile`] per panel, with and
    /// without a residual. The bf16 tiles run on the `avx512` kernel
    /// only: where `CUBE_ORACLE_F32_KERNEL=avx512` asks for it on a CPU
    /// without it, the test fails; elsewhere it checks what this CPU runs.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn a_pair_of_panels_is_two_tiles() {
        use super::{MR, PairLayer, pack_tile, tile, tile_pair};
        use crate::kernels::compiled::kernel::{
            NR,
            pair_case::{self, K, LD, N},
        };
        let requested =
            crate::kernels::compiled::requested().expect("CUBE_ORACLE_F32_KERNEL names a kernel this CPU runs");
        if !Kernel::Avx512.available() {
            assert_ne!(requested, Some(Kernel::Avx512), "the avx512 kernel was asked for");
            return;
        }
        let case = pair_case::Layer::new();
        let (layer, epi) = (PairLayer::new(&case.weights, N, K, K, N), case.epilogue());
        let (src, res) = pair_case::rows_and_residual(MR);
        let (mut row, mut pairs) = (Vec::new(), vec![0u32; K / 2 * MR]);
        pack_tile(Kernel::Avx512, &src, LD, K, &mut row, &mut pairs);
        for residual in [None, Some(&res)] {
            let res_at = |j: usize| residual.map_or(std::ptr::null(), |r| r[j..].as_ptr());
            let (mut two, mut pair) = (vec![f32::NAN; MR * LD], vec![f32::NAN; MR * LD]);
            // SAFETY: `pairs` holds one tile of K/2 pairs per row, `two`,
            // `pair` and `res` MR × LD floats (LD ≥ 32 columns), the
            // epilogue N values, panels 0 and 1 of 3; the CPU has the
            // avx512 kernel (checked above).
            unsafe {
                for j in [0, NR] {
                    tile(pairs.as_ptr(), &layer, j / NR, &epi.from(j), res_at(j), two[j..].as_mut_ptr(), LD);
                }
                tile_pair(pairs.as_ptr(), &layer, 0, &epi, res_at(0), pair.as_mut_ptr(), LD);
            }
            pair_case::assert_same(&two, &pair, MR, "avx512");
        }
    }

    /// Rows rounded on every kernel this CPU runs are the same bits as
    /// rounding each value (ties to even), tie cases included, but for
    /// subnormal inputs, which AVX512-BF16 flushes to zero; the pairs are
    /// in input order.
    #[test]
    fn rows_round_to_the_same_pairs_on_every_kernel() {
        let row: Vec<f32> = (0..96)
            .map(|i| match i % 4 {
                // An exact tie above an even and an odd kept part.
                0 => f32::from_bits(0x3F80_8000),
                1 => f32::from_bits(0x3F81_8000),
                // Subnormals, which some bf16 units flush to zero.
                2 if i % 8 == 2 => {
                    if i % 16 == 2 {
                        1e-40
                    } else {
                        -3e-39
                    }
                }
                _ => (i as f32 * 0.377).sin() * 3.0,
            })
            .collect();
        let want: Vec<u32> =
            row.chunks_exact(2).map(|x| u32::from(bf16_bits(x[0])) | (u32::from(bf16_bits(x[1])) << 16)).collect();
        for kernel in Kernel::ALL.into_iter().filter(|k| k.available()) {
            let mut got = vec![0u32; 48];
            round_row(kernel, &row, &mut got);
            // The same bits, but for subnormal inputs, which
            // `vcvtne2ps2bf16` may flush to a zero of the same sign (the
            // products, `vdpbf16ps`, read subnormals as zero in any case).
            for (i, &x) in row.iter().enumerate() {
                let half = |w: u32| (w >> (16 * (i % 2))) as u16;
                let (g, w) = (half(got[i / 2]), half(want[i / 2]));
                let flushed = x.is_subnormal() && g == (x.to_bits() >> 16) as u16 & 0x8000;
                assert!(g == w || flushed, "{}: value {i} ({x:e}) rounds to {g:#06x}, not {w:#06x}", kernel.name());
            }
        }
    }
}
