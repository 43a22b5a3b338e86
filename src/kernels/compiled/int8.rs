//! Integer products for the compiled network (`solve --matmul int8`): a
//! dense layer's weights as 8-bit integers, its input as 7-bit ones, the
//! sums exact in 32-bit integers, and the layer's epilogue in f32.
//!
//! Each output column `j` of a layer keeps its weights as
//! `w[i][j] ≈ s_j · q[i][j]` with `q` in −127..=127 and `s_j` the column's
//! largest magnitude over 127. Each input row, at every layer, becomes
//! `x[i] ≈ lo + t · u[i]` with `u` in 0..=127, `lo` the row's smallest
//! value and `t` its range over 127. Then the product is
//! `Σ_i x[i] w[i][j] ≈ t · s_j · Σ_i u[i] q[i][j] + lo · Σ_i w[i][j]`: the
//! middle sum is computed exactly in integers, the column sums of the f32
//! weights once at load. The 7-bit inputs are what AVX2 can multiply at
//! twice the f32 rate without VNNI: `vpmaddubsw` multiplies unsigned by
//! signed bytes and adds neighbouring pairs into 16 bits, where two
//! products of 127 · 127 cannot overflow; `vpmaddwd` by ones then widens
//! each four products into a 32-bit lane. Nothing is lost between layers
//! but this rounding: activations stay f32 in memory and are quantised
//! again, per row, before each product. On AVX-512 with VNNI the same
//! integers are multiplied by `vpdpbusd`, which sums four byte products
//! straight into a 32-bit lane (no 16-bit step, so 8-bit inputs would fit
//! too; they stay 7-bit so that every kernel computes the same sums), 64
//! multiply-adds per instruction, and each row's four bytes are broadcast
//! once for two panels ([`tile_pair`]: twelve rows × 32 columns in 24
//! registers), so that a product costs half a load.
//!
//! The first (one-hot) layer is a sum of weight rows already: an integer
//! network adds them as 16-bit integers ([`super::words`]). The head stays
//! f32: its 12 outputs are the Q-values the search compares. The integer
//! sums of the AVX2 and the portable kernel are identical; their outputs
//! differ by the epilogue's float rounding.
//!
//! On a CPU with AMX-INT8 the same sums can be formed on tiles instead
//! ([`tiles`], `TDPBUSD`), when `CUBE_ORACLE_INT8_KERNEL=amx` asks for it
//! ([`Unit`]); the `avx512` kernel computes everything around them.

pub mod tiles;

use super::kernel::{Epilogue, Kernel, NR};

/// Rows of one integer register tile on AVX2 and in the portable code:
/// four rows × two 8-lane vectors of 32-bit sums, with the two weight
/// vectors, the broadcast row and the products, fit AVX2's sixteen
/// registers.
pub const MR: usize = 4;

/// Rows of one integer register tile on AVX-512: twelve rows × one
/// 16-lane vector of sums, enough independent chains to keep `vpdpbusd`
/// busy.
pub const MR_512: usize = 12;

/// Rows of one integer register tile on `kernel`.
#[must_use]
pub fn tile_rows(kernel: Kernel) -> usize {
    match kernel {
        Kernel::Avx512 => MR_512,
        Kernel::Avx2Fma | Kernel::Portable => MR,
    }
}

/// What multiplies a layer's integers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// The f32 kernel's own vector instructions ([`unit`]).
    Vector,
    /// AMX tiles ([`tiles`]), inside the `avx512` kernel.
    AmxTiles,
    /// The tiles' algorithm in plain Rust, inside the portable kernel:
    /// the AMX path's checks on any CPU.
    #[cfg(test)]
    EmulatedTiles,
}

impl Unit {
    /// Whether it forms the sums on tiles (whose rows are
    /// [`tiles::TILE_K`] inputs).
    #[must_use]
    pub fn on_tiles(self) -> bool {
        match self {
            Unit::Vector => false,
            Unit::AmxTiles => true,
            #[cfg(test)]
            Unit::EmulatedTiles => true,
        }
    }

    /// Whether this CPU runs it (AMX tiles: AMX-INT8 granted by the OS,
    /// and the `avx512` kernel around them).
    #[must_use]
    pub fn available(self) -> bool {
        match self {
            Unit::Vector => true,
            #[cfg(target_arch = "x86_64")]
            Unit::AmxTiles => crate::kernels::amx::granted().int8 && Kernel::Avx512.available(),
            #[cfg(not(target_arch = "x86_64"))]
            Unit::AmxTiles => false,
            #[cfg(test)]
            Unit::EmulatedTiles => true,
        }
    }
}

/// The unit `CUBE_ORACLE_INT8_KERNEL` asks for, around the f32 kernel
/// `kernel`: `vector`, the kernel's own instructions; `amx`, AMX tiles;
/// `None` where it is unset, so that the network picks
/// ([`super::CompiledNet::with_best_int8_unit`]: AMX tiles where the CPU
/// has them and the network's layers fit them, else `vector`).
///
/// # Errors
/// Another value, `amx` on a CPU without AMX-INT8 (or where the OS refused
/// the tile state), or `amx` with a kernel other than `avx512`.
pub fn requested_unit(kernel: Kernel) -> Result<Option<Unit>, String> {
    match std::env::var("CUBE_ORACLE_INT8_KERNEL") {
        Err(std::env::VarError::NotPresent) => unit_from(None, kernel),
        Err(std::env::VarError::NotUnicode(_)) => Err("CUBE_ORACLE_INT8_KERNEL is not UTF-8: use amx or vector".into()),
        Ok(w) => unit_from(Some(&w), kernel),
    }
}

/// [`requested_unit`] for the variable's value `w` (`None`: unset).
///
/// # Errors
/// As [`requested_unit`].
pub fn unit_from(w: Option<&str>, kernel: Kernel) -> Result<Option<Unit>, String> {
    match w {
        None => Ok(None),
        Some("vector") => Ok(Some(Unit::Vector)),
        Some("amx") if kernel != Kernel::Avx512 => Err(format!(
            "CUBE_ORACLE_INT8_KERNEL=amx runs inside the avx512 kernel, and the f32 kernel is {} \
             (CUBE_ORACLE_F32_KERNEL, or the best this CPU runs)",
            kernel.name()
        )),
        Some("amx") if !Unit::AmxTiles.available() => {
            Err("CUBE_ORACLE_INT8_KERNEL=amx: this CPU has no AMX-INT8 (or the OS did not grant the tile state)".into())
        }
        Some("amx") => Ok(Some(Unit::AmxTiles)),
        Some(w) => Err(format!(
            "CUBE_ORACLE_INT8_KERNEL={:?} is not a unit: use amx or vector",
            w.chars().take(40).collect::<String>()
        )),
    }
}

/// The largest 7-bit input.
const U_MAX: f32 = 127.0;

/// One dense layer's weights as bytes, with what turns integer sums back
/// into the f32 product.
pub struct QuantLayer {
    /// Input width (padded, a multiple of [`NR`]).
    pub k: usize,
    /// Output width (padded).
    pub n: usize,
    /// `n / NR` panels; in each, `k / 4` groups of four inputs, each
    /// `NR` columns × those four inputs' weights (64 bytes).
    weights: Vec<i8>,
    /// `s_j`: a column's weight per integer step (0 for a zero column).
    scale: Vec<f32>,
    /// `Σ_i w[i][j]` of the f32 weights.
    colsum: Vec<f32>,
}

impl QuantLayer {
    /// A PyTorch-layout weight (`d_out × d_in`), padded to `k × n`.
    #[must_use]
    pub fn new(w: &[f32], d_out: usize, d_in: usize, k: usize, n: usize) -> Self {
        assert!(w.len() == d_out * d_in && d_in <= k && d_out <= n && k.is_multiple_of(4) && n.is_multiple_of(NR));
        let quads = k / 4;
        let mut weights = vec![0i8; k * n];
        let mut scale = vec![0.0f32; n];
        let mut colsum = vec![0.0f32; n];
        for o in 0..d_out {
            let row = &w[o * d_in..(o + 1) * d_in];
            let largest = row.iter().fold(0.0f32, |m, v| m.max(v.abs()));
            colsum[o] = row.iter().map(|&v| f64::from(v)).sum::<f64>() as f32;
            if largest == 0.0 {
                continue;
            }
            scale[o] = largest / 127.0;
            let (panel, col) = (o / NR, o % NR);
            for (i, &v) in row.iter().enumerate() {
                let q = (v * (127.0 / largest)).round_ties_even().clamp(-127.0, 127.0) as i8;
                weights[((panel * quads + i / 4) * NR + col) * 4 + i % 4] = q;
            }
        }
        Self { k, n, weights, scale, colsum }
    }

    /// The weights, column scales and column sums of the `count` panels
    /// from panel `p`.
    ///
    /// # Panics
    /// When they run past the layer's last panel.
    fn panels(&self, p: usize, count: usize) -> (&[i8], &[f32], &[f32]) {
        let (cols, bytes) = (p * NR..(p + count) * NR, p * self.k * NR..(p + count) * self.k * NR);
        (&self.weights[bytes], &self.scale[cols.clone()], &self.colsum[cols])
    }
}

/// One row's quantisation: `x[i] ≈ lo + step · u[i]`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RowScale {
    /// The row's smallest value.
    pub lo: f32,
    /// Its range over 127 (0 for a constant row).
    pub step: f32,
}

/// The 7-bit integers of `row` (its `k` values, a multiple of 8) into
/// `out`, and their scale. Rounds to the nearest, ties to even, as the
/// AVX2 conversion does, so that every kernel sees the same integers.
#[must_use]
pub(crate) fn quantize_row(kernel: Kernel, row: &[f32], out: &mut [u8]) -> RowScale {
    assert!(row.len() == out.len() && row.len().is_multiple_of(8));
    match kernel {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: lengths checked above; the CPU has AVX2 (the kernel is
        // only chosen where available, and AVX-512 CPUs have AVX2).
        Kernel::Avx512 | Kernel::Avx2Fma => unsafe { avx2::quantize_row(row, out) },
        #[cfg(not(target_arch = "x86_64"))]
        Kernel::Avx512 | Kernel::Avx2Fma => unreachable!("AVX is never available off x86-64"),
        Kernel::Portable => {
            let lo = row.iter().copied().fold(f32::INFINITY, f32::min);
            let hi = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            if hi <= lo {
                out.fill(0);
                return RowScale { lo, step: 0.0 };
            }
            let inv = U_MAX / (hi - lo);
            for (u, &x) in out.iter_mut().zip(row) {
                *u = ((x - lo) * inv).clamp(0.0, U_MAX).round_ties_even() as u8;
            }
            RowScale { lo, step: (hi - lo) / U_MAX }
        }
    }
}

/// The `rows` rows of a block (`k` values each, `ld` apart in `src`; a
/// whole number of tiles) quantised into `bytes` as `kernel`'s [`tile`]
/// reads them, and their scales into `scales`: row after row on AVX2 and
/// in the portable code; on AVX-512 each tile of [`MR_512`] rows group by
/// group, the twelve rows' four bytes of group `q` together at `q · 48`,
/// so that every broadcast is at a constant offset from one pointer. The
/// integers are the same on every kernel ([`quantize_row`]).
pub(crate) fn quantize_rows(
    kernel: Kernel,
    src: &[f32],
    ld: usize,
    k: usize,
    rows: usize,
    bytes: &mut Vec<u8>,
    scales: &mut Vec<RowScale>,
) {
    assert!(rows.is_multiple_of(tile_rows(kernel)) && k.is_multiple_of(16) && k <= ld);
    assert!(rows == 0 || src.len() >= (rows - 1) * ld + k);
    bytes.resize(rows * k, 0);
    scales.clear();
    match kernel {
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx512 => {
            for (t, block) in bytes.chunks_exact_mut(MR_512 * k).enumerate() {
                for r in 0..MR_512 {
                    let row = &src[(t * MR_512 + r) * ld..(t * MR_512 + r) * ld + k];
                    // SAFETY: `row` holds k values (a multiple of 16),
                    // `block` a tile of MR_512 × k bytes, r < MR_512; the
                    // CPU has AVX-512 (the kernel is chosen only where
                    // available).
                    scales.push(unsafe { avx512::quantize_row_grouped(row, block, r) });
                }
            }
        }
        _ => {
            for (r, out) in bytes.chunks_exact_mut(k).enumerate() {
                scales.push(quantize_row(kernel, &src[r * ld..r * ld + k], out));
            }
        }
    }
}

/// `c[r][0..16] = epilogue(t_r · s_j · Σ_i u[r][i] q[i][j] + lo_r · Σ_i
/// w[i][j]) (+ res[r][0..16])` for the rows of a tile ([`tile_rows`] of
/// `kernel`, one [`RowScale`] each in `rows`) and the 16 columns of
/// `layer`'s panel `p`. `u` holds the tile's integers as
/// [`quantize_rows`] lays them out, rows `ldu` bytes apart (AVX2,
/// portable); `epi`'s slices start at the
/// panel's first column.
///
/// # Safety
/// `u` holds `rows.len()` rows of `layer.k` bytes at stride `ldu`; `c`
/// (and `res` when not null) as many rows of [`NR`] floats at stride
/// `ldc`; the epilogue's slices at least [`NR`] each; `p < layer.n / NR`;
/// and the CPU has `kernel`.
///
/// # Panics
/// When `rows` is not one tile of `kernel`'s.
#[allow(clippy::too_many_arguments)]
pub unsafe fn tile(
    kernel: Kernel,
    u: *const u8,
    ldu: usize,
    rows: &[RowScale],
    layer: &QuantLayer,
    p: usize,
    epi: &Epilogue<'_>,
    res: *const f32,
    c: *mut f32,
    ldc: usize,
) {
    let quads = layer.k / 4;
    let (panel, scale, colsum) = layer.panels(p, 1);
    assert_eq!(rows.len(), tile_rows(kernel), "one integer tile of rows");
    match kernel {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the caller's contract, and the CPU has AVX-512 VNNI;
        // `rows` is one tile (asserted).
        Kernel::Avx512 => unsafe {
            avx512::tile::<1>(u, rows.try_into().expect("12 rows"), panel, quads, scale, colsum, epi, res, c, ldc)
        },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the caller's contract, and the CPU has AVX2 and FMA.
        Kernel::Avx2Fma => unsafe {
            avx2::tile(u, ldu, rows.try_into().expect("4 rows"), panel, quads, scale, colsum, epi, res, c, ldc)
        },
        #[cfg(not(target_arch = "x86_64"))]
        Kernel::Avx512 | Kernel::Avx2Fma => unreachable!("AVX is never available off x86-64"),
        Kernel::Portable => {
            let mut sums = [[0i32; NR]; MR];
            let rows: &[RowScale; MR] = rows.try_into().expect("4 rows");
            for (r, row) in sums.iter_mut().enumerate() {
                // SAFETY: the caller's contract.
                let u = unsafe { std::slice::from_raw_parts(u.add(r * ldu), layer.k) };
                for (group, w) in u.chunks_exact(4).zip(panel.chunks_exact(4 * NR)) {
                    for (s, wj) in row.iter_mut().zip(w.chunks_exact(4)) {
                        *s += group.iter().zip(wj).map(|(&a, &b)| i32::from(a) * i32::from(b)).sum::<i32>();
                    }
                }
            }
            // SAFETY: the caller's contract.
            unsafe { finish_portable(&sums, rows, scale, colsum, epi, res, c, ldc) };
        }
    }
}

/// [`tile`] for the two panels `p` and `p + 1` of `layer`, the 32
/// columns from `p · NR` (`epi`'s slices, `c` and `res` start at the
/// first): the same sums and floats as two calls of [`tile`]. On AVX-512
/// each row's broadcast feeds both panels' `vpdpbusd`, 24 accumulators
/// in registers, so the loads per product halve; elsewhere it is the two
/// calls.
///
/// # Safety
/// As [`tile`], for both panels: `p + 1 < layer.n / NR`, 32 columns in
/// `c`, `res` and the epilogue's slices.
#[allow(clippy::too_many_arguments)]
pub unsafe fn tile_pair(
    kernel: Kernel,
    u: *const u8,
    ldu: usize,
    rows: &[RowScale],
    layer: &QuantLayer,
    p: usize,
    epi: &Epilogue<'_>,
    res: *const f32,
    c: *mut f32,
    ldc: usize,
) {
    assert!(p + 1 < layer.n / NR && epi.bias.len() >= 2 * NR && epi.scale.len() >= 2 * NR && epi.shift.len() >= 2 * NR);
    match kernel {
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx512 => {
            let (panels, scale, colsum) = layer.panels(p, 2);
            assert_eq!(rows.len(), MR_512, "one integer tile of rows");
            // SAFETY: the caller's contract, and the CPU has AVX-512 VNNI;
            // `rows` is one tile, `panels` two panels (checked above).
            unsafe {
                avx512::tile::<2>(
                    u,
                    rows.try_into().expect("12 rows"),
                    panels,
                    layer.k / 4,
                    scale,
                    colsum,
                    epi,
                    res,
                    c,
                    ldc,
                )
            }
        }
        _ => {
            // SAFETY: the caller's contract, for each panel.
            unsafe {
                let res2 = if res.is_null() { res } else { res.add(NR) };
                tile(kernel, u, ldu, rows, layer, p, epi, res, c, ldc);
                tile(kernel, u, ldu, rows, layer, p + 1, &epi.from(NR), res2, c.add(NR), ldc);
            }
        }
    }
}

/// The epilogue of a tile's integer sums in plain Rust (`sums[r][j]` for
/// row `r` and column `j` of the panel whose `scale` and `colsum` these
/// are).
///
/// # Safety
/// `c` (and `res` when not null) hold `sums.len()` rows of [`NR`] floats at
/// stride `ldc`; `rows` has a scale per row; `epi`'s slices [`NR`] values.
#[allow(clippy::too_many_arguments)]
unsafe fn finish_portable(
    sums: &[[i32; NR]],
    rows: &[RowScale],
    scale: &[f32],
    colsum: &[f32],
    epi: &Epilogue<'_>,
    res: *const f32,
    c: *mut f32,
    ldc: usize,
) {
    for (r, (row, &RowScale { lo, step })) in sums.iter().zip(rows).enumerate() {
        for (j, &s) in row.iter().enumerate() {
            let v = s as f32 * (step * scale[j]) + lo * colsum[j];
            let v = v + epi.bias[j];
            let v = if epi.relu { v.max(0.0) } else { v };
            let mut v = v * epi.scale[j] + epi.shift[j];
            if !res.is_null() {
                // SAFETY: the caller's contract.
                v += unsafe { *res.add(r * ldc + j) };
            }
            // SAFETY: the caller's contract.
            unsafe { *c.add(r * ldc + j) = v };
        }
    }
}

/// The epilogue of integer sums formed elsewhere (on tiles): for each row
/// `r` of `rows`, `c[r][0..16]` from `sums[r·16..r·16 + 16]`, the sums of
/// panel `p` of `layer`, exactly as [`tile`] finishes them on `kernel`
/// (the `avx512` kernel's vector epilogue; plain Rust on the others).
///
/// # Safety
/// `sums` holds `rows.len()` rows of [`NR`]; `c` (and `res` when not null)
/// as many rows of [`NR`] floats at stride `ldc`; `epi`'s slices at least
/// [`NR`] values each; `p < layer.n / NR`; the CPU has `kernel`.
#[allow(clippy::too_many_arguments)]
pub unsafe fn finish(
    kernel: Kernel,
    sums: &[i32],
    rows: &[RowScale],
    layer: &QuantLayer,
    p: usize,
    epi: &Epilogue<'_>,
    res: *const f32,
    c: *mut f32,
    ldc: usize,
) {
    let (sums, _) = sums.as_chunks::<NR>();
    assert!(sums.len() >= rows.len() && p < layer.n / NR);
    let (scale, colsum) = (&layer.scale[p * NR..(p + 1) * NR], &layer.colsum[p * NR..(p + 1) * NR]);
    match kernel {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the caller's contract; the CPU has AVX-512.
        Kernel::Avx512 => unsafe { avx512::finish(&sums[..rows.len()], rows, scale, colsum, epi, res, c, ldc) },
        // SAFETY: the caller's contract.
        _ => unsafe { finish_portable(&sums[..rows.len()], rows, scale, colsum, epi, res, c, ldc) },
    }
}

/// What runs integer products on `kernel` with `unit`.
#[must_use]
pub fn unit_name(kernel: Kernel, unit: Unit) -> &'static str {
    match unit {
        Unit::Vector => self::unit(kernel),
        Unit::AmxTiles => "AMX-INT8 (tdpbusd)",
        #[cfg(test)]
        Unit::EmulatedTiles => "emulated AMX tiles",
    }
}

/// Measured integer peak of AMX tiles on one thread (GOP/s, as
/// [`peak_gops`]): three independent chains of `TDPBUSD`; 0 where the CPU
/// lacks AMX-INT8.
#[must_use]
pub fn tiles_peak_gops(seconds: f64) -> f64 {
    if !Unit::AmxTiles.available() {
        return 0.0;
    }
    #[cfg(target_arch = "x86_64")]
    {
        crate::kernels::amx::configure();
        let start = std::time::Instant::now();
        let mut ops = 0u64;
        while start.elapsed().as_secs_f64() < seconds {
            // SAFETY: AMX-INT8 is available (checked above) and configured.
            ops += unsafe { tiles::spin(100_000) };
        }
        crate::kernels::amx::release();
        ops as f64 / start.elapsed().as_secs_f64() / 1e9
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = seconds;
        0.0
    }
}

/// What runs integer products on `kernel`.
#[must_use]
pub fn unit(kernel: Kernel) -> &'static str {
    match kernel {
        Kernel::Avx512 => "AVX512-VNNI (vpdpbusd)",
        Kernel::Avx2Fma => "AVX2 (vpmaddubsw)",
        Kernel::Portable => "portable code",
    }
}

/// Measured integer peak of `kernel`'s products on one thread, in
/// billions of multiply-adds per second ×2 (GOP/s, as FLOPs are counted):
/// independent chains of the kernel's instructions, on AVX2 its three
/// (`vpmaddubsw`, `vpmaddwd` by ones, `vpaddd`, 32 multiply-adds), on
/// AVX-512 `vpdpbusd` (64); 0 for the portable code or a kernel this CPU
/// lacks, so that no figure is quoted against a made-up peak.
#[must_use]
pub fn peak_gops(kernel: Kernel, seconds: f64) -> f64 {
    if !kernel.available() {
        return 0.0;
    }
    #[cfg(target_arch = "x86_64")]
    let (chains, macs): (fn(u64) -> i32, u64) = match kernel {
        // SAFETY (both): the CPU has the kernel (checked above).
        Kernel::Avx512 => (|n| unsafe { avx512::chains(n) }, 12 * 64),
        Kernel::Avx2Fma => (|n| unsafe { avx2::chains(n) }, 12 * 32),
        Kernel::Portable => return 0.0,
    };
    #[cfg(not(target_arch = "x86_64"))]
    let (chains, macs): (fn(u64) -> i32, u64) = {
        let _ = seconds;
        return 0.0;
    };
    let start = std::time::Instant::now();
    let mut iters = 0u64;
    while start.elapsed().as_secs_f64() < seconds {
        std::hint::black_box(chains(1_000_000));
        iters += 1_000_000;
    }
    (iters * macs * 2) as f64 / start.elapsed().as_secs_f64() / 1e9
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{Epilogue, MR, RowScale, U_MAX};
    use std::arch::x86_64::{
        __m256i, _mm_cvtsi128_si64, _mm_packs_epi32, _mm_packus_epi16, _mm256_add_epi32, _mm256_add_ps,
        _mm256_castsi256_si128, _mm256_cvtepi32_ps, _mm256_cvtps_epi32, _mm256_extracti128_si256, _mm256_fmadd_ps,
        _mm256_loadu_ps, _mm256_loadu_si256, _mm256_madd_epi16, _mm256_maddubs_epi16, _mm256_max_ps, _mm256_min_ps,
        _mm256_mul_ps, _mm256_set1_epi8, _mm256_set1_epi16, _mm256_set1_epi32, _mm256_set1_ps, _mm256_setzero_ps,
        _mm256_setzero_si256, _mm256_storeu_ps, _mm256_storeu_si256, _mm256_sub_ps,
    };

    /// The smallest and largest of 8 lanes.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn lanes(v: std::arch::x86_64::__m256, f: fn(f32, f32) -> f32) -> f32 {
        let mut x = [0f32; 8];
        // SAFETY: `x` holds 8 floats.
        unsafe { std::arch::x86_64::_mm256_storeu_ps(x.as_mut_ptr(), v) };
        x.into_iter().reduce(f).unwrap_or(0.0)
    }

    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn quantize_row(row: &[f32], out: &mut [u8]) -> RowScale {
        // SAFETY: `row` and `out` hold the same multiple of 8 values
        // (checked by the caller); every load and store is within them.
        unsafe {
            let p = row.as_ptr();
            let mut lo = _mm256_loadu_ps(p);
            let mut hi = lo;
            for i in (8..row.len()).step_by(8) {
                let x = _mm256_loadu_ps(p.add(i));
                lo = _mm256_min_ps(lo, x);
                hi = _mm256_max_ps(hi, x);
            }
            let (lo, hi) = (lanes(lo, f32::min), lanes(hi, f32::max));
            if hi <= lo {
                out.fill(0);
                return RowScale { lo, step: 0.0 };
            }
            let (vlo, inv) = (_mm256_set1_ps(lo), _mm256_set1_ps(U_MAX / (hi - lo)));
            let (zero, top) = (_mm256_setzero_ps(), _mm256_set1_ps(U_MAX));
            for i in (0..row.len()).step_by(8) {
                let v = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(p.add(i)), vlo), inv);
                let q = _mm256_cvtps_epi32(_mm256_min_ps(_mm256_max_ps(v, zero), top));
                let words = _mm_packs_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256::<1>(q));
                let bytes = _mm_packus_epi16(words, words);
                out.as_mut_ptr().add(i).cast::<i64>().write_unaligned(_mm_cvtsi128_si64(bytes));
            }
            RowScale { lo, step: (hi - lo) / U_MAX }
        }
    }

    /// [`super::tile`]: the integer sums in registers, then the epilogue.
    #[allow(clippy::too_many_arguments)]
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn tile(
        u: *const u8,
        ldu: usize,
        rows: &[RowScale; MR],
        panel: &[i8],
        quads: usize,
        scale: &[f32],
        colsum: &[f32],
        epi: &Epilogue<'_>,
        res: *const f32,
        c: *mut f32,
        ldc: usize,
    ) {
        // SAFETY: the caller's bounds (`super::tile`): MR rows of 4·quads
        // bytes, a panel of quads × 64 bytes, NR values in every per-column
        // slice, MR rows of NR floats in `c` and `res`.
        unsafe {
            let ones = _mm256_set1_epi16(1);
            let mut acc = [_mm256_setzero_si256(); 2 * MR];
            let w = panel.as_ptr();
            let starts: [*const u8; MR] = std::array::from_fn(|r| u.add(r * ldu));
            for q in 0..quads {
                let w0 = _mm256_loadu_si256(w.add(q * 64).cast::<__m256i>());
                let w1 = _mm256_loadu_si256(w.add(q * 64 + 32).cast::<__m256i>());
                for (r, row) in starts.iter().enumerate() {
                    let x = _mm256_set1_epi32(row.add(4 * q).cast::<i32>().read_unaligned());
                    acc[2 * r] = _mm256_add_epi32(acc[2 * r], _mm256_madd_epi16(_mm256_maddubs_epi16(x, w0), ones));
                    acc[2 * r + 1] =
                        _mm256_add_epi32(acc[2 * r + 1], _mm256_madd_epi16(_mm256_maddubs_epi16(x, w1), ones));
                }
            }
            for (r, &RowScale { lo, step }) in rows.iter().enumerate() {
                let (lo, step) = (_mm256_set1_ps(lo), _mm256_set1_ps(step));
                for h in 0..2 {
                    let j = 8 * h;
                    let ts = _mm256_mul_ps(step, _mm256_loadu_ps(scale.as_ptr().add(j)));
                    let base = _mm256_mul_ps(lo, _mm256_loadu_ps(colsum.as_ptr().add(j)));
                    let v = _mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(acc[2 * r + h]), ts), base);
                    let v = _mm256_add_ps(v, _mm256_loadu_ps(epi.bias.as_ptr().add(j)));
                    let v = if epi.relu { _mm256_max_ps(v, _mm256_setzero_ps()) } else { v };
                    let mut v = _mm256_fmadd_ps(
                        v,
                        _mm256_loadu_ps(epi.scale.as_ptr().add(j)),
                        _mm256_loadu_ps(epi.shift.as_ptr().add(j)),
                    );
                    if !res.is_null() {
                        v = _mm256_add_ps(v, _mm256_loadu_ps(res.add(r * ldc + j)));
                    }
                    _mm256_storeu_ps(c.add(r * ldc + j), v);
                }
            }
        }
    }

    /// Twelve independent chains of the kernel's instructions, for the peak.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn chains(iters: u64) -> i32 {
        let (b, ones) = (_mm256_set1_epi8(-5), _mm256_set1_epi16(1));
        // Twelve different inputs, hidden from the compiler at every step
        // (the kernel too reads its inputs from memory), so that no chain's
        // products are shared with another's.
        let inputs: [__m256i; 12] = std::array::from_fn(|i| _mm256_set1_epi8(i as i8 + 1));
        let mut acc = [_mm256_setzero_si256(); 12];
        for _ in 0..iters {
            let inputs = std::hint::black_box(&inputs);
            for (x, &a) in acc.iter_mut().zip(inputs) {
                *x = _mm256_add_epi32(*x, _mm256_madd_epi16(_mm256_maddubs_epi16(a, b), ones));
            }
        }
        let mut total = 0i32;
        for x in acc {
            let mut lanes = [0i32; 8];
            // SAFETY: `lanes` holds 8 integers, one register.
            unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast::<__m256i>(), x) };
            total = total.wrapping_add(lanes.iter().fold(0i32, |s, &v| s.wrapping_add(v)));
        }
        total
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::{Epilogue, MR_512, RowScale, U_MAX};
    use std::arch::x86_64::{
        __m512, __m512i, _mm_extract_epi32, _mm512_add_ps, _mm512_cvtepi32_ps, _mm512_cvtps_epi32,
        _mm512_cvtusepi32_epi8, _mm512_dpbusd_epi32, _mm512_loadu_ps, _mm512_loadu_si512, _mm512_max_ps, _mm512_min_ps,
        _mm512_mul_ps, _mm512_reduce_add_epi32, _mm512_reduce_max_ps, _mm512_reduce_min_ps, _mm512_set1_epi8,
        _mm512_set1_epi32, _mm512_set1_ps, _mm512_setzero_ps, _mm512_setzero_si512, _mm512_sub_ps,
    };

    /// [`super::quantize_row`] of `row` (a multiple of 16 values), its
    /// bytes written as row `r` of the tile `block` group by group
    /// (`block[(q · MR_512 + r) · 4..]` for group `q`). The same integers as
    /// every kernel's: the same f32 operations, rounded to the nearest (ties
    /// to even) by the conversion.
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(super) unsafe fn quantize_row_grouped(row: &[f32], block: &mut [u8], r: usize) -> RowScale {
        // SAFETY: `row` holds a multiple of 16 values and `block` MR_512
        // rows of row.len() bytes (the caller's checks); every load and
        // store is within them.
        unsafe {
            let p = row.as_ptr();
            let mut lo = _mm512_loadu_ps(p);
            let mut hi = lo;
            for i in (16..row.len()).step_by(16) {
                let x = _mm512_loadu_ps(p.add(i));
                lo = _mm512_min_ps(lo, x);
                hi = _mm512_max_ps(hi, x);
            }
            let (lo, hi) = (_mm512_reduce_min_ps(lo), _mm512_reduce_max_ps(hi));
            let out = block.as_mut_ptr();
            if hi <= lo {
                for q in 0..row.len() / 4 {
                    out.add((q * MR_512 + r) * 4).cast::<u32>().write_unaligned(0);
                }
                return RowScale { lo, step: 0.0 };
            }
            let (vlo, inv) = (_mm512_set1_ps(lo), _mm512_set1_ps(U_MAX / (hi - lo)));
            let (zero, top) = (_mm512_setzero_ps(), _mm512_set1_ps(U_MAX));
            for i in (0..row.len()).step_by(16) {
                let v = _mm512_mul_ps(_mm512_sub_ps(_mm512_loadu_ps(p.add(i)), vlo), inv);
                let bytes = _mm512_cvtusepi32_epi8(_mm512_cvtps_epi32(_mm512_min_ps(_mm512_max_ps(v, zero), top)));
                let q = i / 4;
                let group = |g: usize| out.add(((q + g) * MR_512 + r) * 4).cast::<i32>();
                group(0).write_unaligned(_mm_extract_epi32::<0>(bytes));
                group(1).write_unaligned(_mm_extract_epi32::<1>(bytes));
                group(2).write_unaligned(_mm_extract_epi32::<2>(bytes));
                group(3).write_unaligned(_mm_extract_epi32::<3>(bytes));
            }
            RowScale { lo, step: (hi - lo) / U_MAX }
        }
    }

    /// [`super::tile`] (`N` = 1) and [`super::tile_pair`] (`N` = 2) on
    /// `vpdpbusd`: twelve rows × `N` panels of sums in registers (each
    /// row's four bytes broadcast once for all `N`), then each panel's
    /// epilogue.
    #[allow(clippy::too_many_arguments)]
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    pub(super) unsafe fn tile<const N: usize>(
        u: *const u8,
        rows: &[RowScale; MR_512],
        panels: &[i8],
        quads: usize,
        scale: &[f32],
        colsum: &[f32],
        epi: &Epilogue<'_>,
        res: *const f32,
        c: *mut f32,
        ldc: usize,
    ) {
        // SAFETY: the caller's bounds (`super::tile`, `super::tile_pair`):
        // twelve rows of 4·quads bytes, group by group (`quantize_rows`),
        // N panels of quads × 64 bytes, 16·N values in every per-column
        // slice, twelve rows of 16·N floats in `c` and `res`.
        unsafe {
            let mut acc = [[_mm512_setzero_si512(); MR_512]; N];
            let w = panels.as_ptr();
            for q in 0..quads {
                let wq: [__m512i; N] = std::array::from_fn(|h| _mm512_loadu_si512(w.add((h * quads + q) * 64).cast()));
                let group = u.add(q * 4 * MR_512).cast::<i32>();
                for r in 0..MR_512 {
                    let x = _mm512_set1_epi32(group.add(r).read_unaligned());
                    for (sums, &wq) in acc.iter_mut().zip(&wq) {
                        sums[r] = _mm512_dpbusd_epi32(sums[r], x, wq);
                    }
                }
            }
            for (h, sums) in acc.iter().enumerate() {
                let at = h * 16;
                let (scale, colsum) =
                    (_mm512_loadu_ps(scale.as_ptr().add(at)), _mm512_loadu_ps(colsum.as_ptr().add(at)));
                let epi = epi.from(at);
                let res = if res.is_null() { res } else { res.add(at) };
                for (r, (&sums, &row)) in sums.iter().zip(rows).enumerate() {
                    finish_row(sums, row, scale, colsum, &epi, res, c.add(at), r, ldc);
                }
            }
        }
    }

    /// One row's epilogue: `sums` (16 columns) scaled back to f32, then
    /// the layer's bias, ReLU, batch norm and residual, stored as row `r`.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn finish_row(
        sums: __m512i,
        RowScale { lo, step }: RowScale,
        scale: __m512,
        colsum: __m512,
        epi: &Epilogue<'_>,
        res: *const f32,
        c: *mut f32,
        r: usize,
        ldc: usize,
    ) {
        let ts = _mm512_mul_ps(_mm512_set1_ps(step), scale);
        let base = _mm512_mul_ps(_mm512_set1_ps(lo), colsum);
        let v = _mm512_add_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(sums), ts), base);
        // SAFETY: the caller's bounds on `c`, `res` and the epilogue.
        unsafe { crate::kernels::compiled::kernel::avx512::finish_store(v, epi, res, c, r, ldc) };
    }

    /// [`super::finish`] on AVX-512: the same operations as [`tile`]'s
    /// epilogue, so the same floats.
    #[allow(clippy::too_many_arguments)]
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn finish(
        sums: &[[i32; 16]],
        rows: &[RowScale],
        scale: &[f32],
        colsum: &[f32],
        epi: &Epilogue<'_>,
        res: *const f32,
        c: *mut f32,
        ldc: usize,
    ) {
        // SAFETY: `scale` and `colsum` hold 16 values, each row of `sums`
        // 16 integers; the caller's bounds on `c`, `res` and the epilogue.
        unsafe {
            let (scale, colsum) = (_mm512_loadu_ps(scale.as_ptr()), _mm512_loadu_ps(colsum.as_ptr()));
            for (r, (row, &scales)) in sums.iter().zip(rows).enumerate() {
                let v = _mm512_loadu_si512(row.as_ptr().cast::<__m512i>());
                finish_row(v, scales, scale, colsum, epi, res, c, r, ldc);
            }
        }
    }

    /// Twelve independent chains of `vpdpbusd`, for the peak: operands
    /// in registers (a reload from memory at every step would cap the
    /// rate at the loads'), twelve different inputs so that no chain's
    /// products are another's.
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    pub(super) unsafe fn chains(iters: u64) -> i32 {
        let b = _mm512_set1_epi8(-5);
        let inputs: [__m512i; 12] = std::array::from_fn(|i| _mm512_set1_epi8(i as i8 + 1));
        let inputs = std::hint::black_box(inputs);
        let mut acc = [_mm512_setzero_si512(); 12];
        for _ in 0..iters {
            for (x, &a) in acc.iter_mut().zip(&inputs) {
                *x = _mm512_dpbusd_epi32(*x, a, b);
            }
        }
        acc.iter().fold(0i32, |s, &x| s.wrapping_add(_mm512_reduce_add_epi32(x)))
    }
}

#[cfg(test)]
mod tests {
    use super::{Kernel, QuantLayer, quantize_rows, tile, tile_pair, tile_rows};
    use crate::kernels::compiled::kernel::NR;

    /// Two panels in one call ([`tile_pair`]) are the same floats, bit
    /// for bit, as a call of [`tile`] per panel, on every kernel this CPU
    /// runs, with and without a residual.
    #[test]
    fn a_pair_of_panels_is_two_tiles() {
        use crate::kernels::compiled::kernel::pair_case::{self, K, LD, N};
        let case = pair_case::Layer::new();
        let (layer, epi) = (QuantLayer::new(&case.weights, N, K, K, N), case.epilogue());
        for kernel in Kernel::ALL.into_iter().filter(|k| k.available()) {
            let rows = tile_rows(kernel);
            let (src, res) = pair_case::rows_and_residual(rows);
            let (mut bytes, mut scales) = (Vec::new(), Vec::new());
            quantize_rows(kernel, &src, LD, K, rows, &mut bytes, &mut scales);
            for residual in [None, Some(&res)] {
                let res_at = |j: usize| residual.map_or(std::ptr::null(), |r| r[j..].as_ptr());
                let (mut two, mut pair) = (vec![f32::NAN; rows * LD], vec![f32::NAN; rows * LD]);
                let u = bytes.as_ptr();
                // SAFETY: `bytes` holds one tile of K-byte rows, `two`,
                // `pair` and `res` rows × LD floats (LD ≥ 32 columns), the
                // epilogue N values, panels 0 and 1 of 3; the kernel is
                // available.
                unsafe {
                    for j in [0, NR] {
                        tile(kernel, u, K, &scales, &layer, j / NR, &epi.from(j), res_at(j), two[j..].as_mut_ptr(), LD);
                    }
                    tile_pair(kernel, u, K, &scales, &layer, 0, &epi, res_at(0), pair.as_mut_ptr(), LD);
                }
                pair_case::assert_same(&two, &pair, rows, kernel.name());
            }
        }
    }

    /// Every kernel this CPU runs quantises a block's rows to the same
    /// integers and scales as the portable code, laid out as its tile
    /// reads them (row after row, or group by group in tiles of twelve
    /// on AVX-512): a constant row, ties, and rows at a stride wider than
    /// their length.
    #[test]
    fn rows_quantise_to_the_same_integers_on_every_kernel() {
        let (rows, k, ld) = (24, 48, 64);
        let src: Vec<f32> = (0..rows * ld)
            .map(|i| if i / ld == 5 { 0.75 } else { ((i * 37 % 101) as f32 - 50.0) / 8.0 + (i % 3) as f32 * 0.5 })
            .collect();
        let (mut want, mut want_scales) = (Vec::new(), Vec::new());
        quantize_rows(Kernel::Portable, &src, ld, k, rows, &mut want, &mut want_scales);
        assert_eq!(want_scales[5].step, 0.0, "a constant row");
        assert!(want[5 * k..6 * k].iter().all(|&u| u == 0));
        assert!(want.iter().all(|&u| u <= 127) && want.contains(&127));
        for kernel in Kernel::ALL.into_iter().filter(|k| k.available()) {
            let (mut got, mut scales) = (Vec::new(), Vec::new());
            quantize_rows(kernel, &src, ld, k, rows, &mut got, &mut scales);
            assert_eq!(scales, want_scales, "{}", kernel.name());
            let mr = tile_rows(kernel);
            for r in 0..rows {
                for i in 0..k {
                    let at = match kernel {
                        Kernel::Avx512 => (r / mr) * mr * k + ((i / 4) * mr + r % mr) * 4 + i % 4,
                        Kernel::Avx2Fma | Kernel::Portable => r * k + i,
                    };
                    assert_eq!(got[at], want[r * k + i], "{}: row {r}, input {i}", kernel.name());
                }
            }
        }
    }
}
