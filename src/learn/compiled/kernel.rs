//! The f32 kernels of the compiled network: one register tile of a layer's
//! product with its epilogue, and the sparse first layer, each in an AVX2 +
//! FMA version and a portable one, chosen at run time ([`Kernel`]).
//!
//! A dense layer's weights are packed as *panels* of [`NR`] output
//! columns: panel `j` holds `W[k][16j..16j+16]` for every `k`, contiguous,
//! so the tile reads one 64-byte row of the panel per `k`. A tile computes
//! [`MR`] rows × [`NR`] columns of `x·W` in twelve AVX2 accumulators (six
//! rows × two 8-lane vectors: the classic 6×16 shape that fills the
//! register file), then applies the epilogue while the sums are still in
//! registers: `+ bias`, ReLU when asked, `· scale + shift` (an inference
//! batch norm folded into a per-feature affine map), `+ residual` when the
//! layer closes a residual block, and one store.

/// Rows of one register tile.
pub const MR: usize = 6;
/// Columns of one register tile (and of one weight panel).
pub const NR: usize = 16;

/// Which instructions compute the products.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kernel {
    /// 256-bit AVX2 with fused multiply-add (x86-64 since Haswell and Zen).
    Avx2Fma,
    /// Plain Rust, vectorised as the compiler can for the build's baseline
    /// (SSE2 on x86-64): the reference and the fallback.
    Portable,
}

impl Kernel {
    /// Every kernel, best first.
    pub const ALL: [Kernel; 2] = [Kernel::Avx2Fma, Kernel::Portable];

    /// The name `CUBE_ORACLE_F32_KERNEL` uses.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Avx2Fma => "avx2",
            Kernel::Portable => "portable",
        }
    }

    /// Whether this CPU can run it.
    #[must_use]
    pub fn available(self) -> bool {
        match self {
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2Fma => is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma"),
            #[cfg(not(target_arch = "x86_64"))]
            Kernel::Avx2Fma => false,
            Kernel::Portable => true,
        }
    }

    /// The best kernel this CPU runs.
    #[must_use]
    pub fn best() -> Kernel {
        Kernel::ALL.into_iter().find(|k| k.available()).unwrap_or(Kernel::Portable)
    }
}

/// What happens to a tile's sums before they are stored, per column.
pub struct Epilogue<'a> {
    /// Added first.
    pub bias: &'a [f32],
    /// Then `max(0, ·)` when set.
    pub relu: bool,
    /// Then multiplied by this …
    pub scale: &'a [f32],
    /// … and this added.
    pub shift: &'a [f32],
}

/// Which part of a layer's sums a call of [`tile`] computes: a layer's
/// inputs are taken [`KC`] at a time, so that the slice of the weight panel
/// in use stays in L1 while it serves every tile of a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Part {
    /// The first part: the sums start from zero, not from `c`.
    pub first: bool,
    /// The last part: the epilogue (and residual) follows, else the raw
    /// sums are stored for the next part.
    pub last: bool,
}

/// Inputs of a layer summed per call of [`tile`]: the panel's slice is
/// `KC × NR` floats, 16 KiB.
pub const KC: usize = 256;

/// `c[r][0..16] = epilogue(Σ_p a[p][r] · panel[p][0..16]) (+ res[r][0..16])`
/// for the [`MR`] rows of a tile, over `k` values of `p`, or one [`Part`]
/// of it (the sums so far are in `c`). `a` is the tile's rows packed
/// column by column (`a[p][r]`, [`MR`] floats per `p`), so the kernel
/// reads one stream. `epi`'s slices start at the tile's first column.
///
/// # Safety
/// `a` holds `k × MR` floats; `panel`
/// holds `k × NR` floats; `c` (and `res` when not null) `MR` rows of `NR`
/// floats at stride `ldc`; the epilogue's slices at least `NR` each; and
/// the CPU has `kernel`.
#[allow(clippy::too_many_arguments)]
pub unsafe fn tile(
    kernel: Kernel,
    a: *const f32,
    panel: *const f32,
    k: usize,
    part: Part,
    epi: &Epilogue<'_>,
    res: *const f32,
    c: *mut f32,
    ldc: usize,
) {
    match kernel {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the caller's contract, and the CPU has AVX2 and FMA.
        Kernel::Avx2Fma => unsafe { avx2::tile(a, panel, k, part, epi, res, c, ldc) },
        #[cfg(not(target_arch = "x86_64"))]
        Kernel::Avx2Fma => unreachable!("AVX2 is never available off x86-64"),
        // SAFETY: the caller's contract.
        Kernel::Portable => unsafe { portable_tile(a, panel, k, part, epi, res, c, ldc) },
    }
}

/// The epilogue of one value of column `j` (the portable path and the
/// sparse layer's).
#[inline]
fn finish(v: f32, j: usize, epi: &Epilogue<'_>) -> f32 {
    let v = v + epi.bias[j];
    let v = if epi.relu { v.max(0.0) } else { v };
    v * epi.scale[j] + epi.shift[j]
}

#[allow(clippy::too_many_arguments)]
unsafe fn portable_tile(
    a: *const f32,
    panel: *const f32,
    k: usize,
    part: Part,
    epi: &Epilogue<'_>,
    res: *const f32,
    c: *mut f32,
    ldc: usize,
) {
    let mut acc = [[0.0f32; NR]; MR];
    if !part.first {
        for (r, row) in acc.iter_mut().enumerate() {
            for (j, s) in row.iter_mut().enumerate() {
                // SAFETY: within the caller's bounds.
                *s = unsafe { *c.add(r * ldc + j) };
            }
        }
    }
    for p in 0..k {
        // SAFETY: within the caller's bounds.
        let w = unsafe { std::slice::from_raw_parts(panel.add(p * NR), NR) };
        for (r, row) in acc.iter_mut().enumerate() {
            // SAFETY: within the caller's bounds.
            let x = unsafe { *a.add(p * MR + r) };
            for (s, &wj) in row.iter_mut().zip(w) {
                *s += x * wj;
            }
        }
    }
    for (r, row) in acc.iter().enumerate() {
        for (j, &s) in row.iter().enumerate() {
            if !part.last {
                // SAFETY: within the caller's bounds.
                unsafe { *c.add(r * ldc + j) = s };
                continue;
            }
            let mut v = finish(s, j, epi);
            if !res.is_null() {
                // SAFETY: within the caller's bounds.
                v += unsafe { *res.add(r * ldc + j) };
            }
            // SAFETY: within the caller's bounds.
            unsafe { *c.add(r * ldc + j) = v };
        }
    }
}

/// Outputs of the sparse first layer taken together (a multiple of 8).
pub const SLAB: usize = 64;

/// Columns `cols` (at most [`SLAB`], starting at a multiple of 8) of one
/// row of the sparse first layer: `out[j] = epilogue(Σ_i x[i] · rows[i][j])`
/// over the nonzero inputs `nz` (their index and value), where `rows` is
/// the transposed weight (`inputs × n`, one row of `n` outputs per input).
pub fn sparse_row(
    kernel: Kernel,
    nz: &[(usize, f32)],
    rows: &[f32],
    n: usize,
    cols: std::ops::Range<usize>,
    epi: &Epilogue<'_>,
    out: &mut [f32],
) {
    assert!(cols.end <= n && cols.len() <= SLAB && cols.start.is_multiple_of(8) && cols.len().is_multiple_of(8));
    assert!(out.len() >= n && epi.bias.len() >= n && epi.scale.len() >= n && epi.shift.len() >= n);
    assert!(nz.iter().all(|&(i, _)| (i + 1) * n <= rows.len()), "an input index past the weight");
    match kernel {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the bounds are checked above, and the CPU has AVX2 and FMA.
        Kernel::Avx2Fma => unsafe { avx2::sparse_row(nz, rows, n, cols, epi, out) },
        #[cfg(not(target_arch = "x86_64"))]
        Kernel::Avx2Fma => unreachable!("AVX2 is never available off x86-64"),
        Kernel::Portable => {
            let mut acc = [0.0f32; SLAB];
            let acc = &mut acc[..cols.len()];
            for &(i, x) in nz {
                for (o, &w) in acc.iter_mut().zip(&rows[i * n + cols.start..i * n + cols.end]) {
                    *o += x * w;
                }
            }
            for (j, &v) in cols.zip(acc.iter()) {
                out[j] = finish(v, j, epi);
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{Epilogue, MR, NR, Part, SLAB};
    use std::arch::x86_64::{
        __m256, _mm256_add_ps, _mm256_broadcast_ss, _mm256_fmadd_ps, _mm256_loadu_ps, _mm256_max_ps, _mm256_set1_ps,
        _mm256_setzero_ps, _mm256_storeu_ps,
    };

    /// Bias, ReLU and the affine map on one 8-lane vector of column
    /// offset `j`.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn finish(v: __m256, j: usize, epi: &Epilogue<'_>) -> __m256 {
        // SAFETY: the slices hold at least j + 8 values (callers' bounds).
        unsafe {
            let v = _mm256_add_ps(v, _mm256_loadu_ps(epi.bias.as_ptr().add(j)));
            let v = if epi.relu { _mm256_max_ps(v, _mm256_setzero_ps()) } else { v };
            _mm256_fmadd_ps(v, _mm256_loadu_ps(epi.scale.as_ptr().add(j)), _mm256_loadu_ps(epi.shift.as_ptr().add(j)))
        }
    }

    #[allow(clippy::too_many_arguments)]
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn tile(
        a: *const f32,
        panel: *const f32,
        k: usize,
        part: Part,
        epi: &Epilogue<'_>,
        res: *const f32,
        c: *mut f32,
        ldc: usize,
    ) {
        // SAFETY: the caller's bounds (see `super::tile`).
        unsafe {
            let mut acc = [_mm256_setzero_ps(); 2 * MR];
            if !part.first {
                for (i, s) in acc.iter_mut().enumerate() {
                    *s = _mm256_loadu_ps(c.add((i / 2) * ldc + 8 * (i % 2)));
                }
            }
            for p in 0..k {
                let w0 = _mm256_loadu_ps(panel.add(p * NR));
                let w1 = _mm256_loadu_ps(panel.add(p * NR + 8));
                for r in 0..MR {
                    let x = _mm256_broadcast_ss(&*a.add(p * MR + r));
                    acc[2 * r] = _mm256_fmadd_ps(x, w0, acc[2 * r]);
                    acc[2 * r + 1] = _mm256_fmadd_ps(x, w1, acc[2 * r + 1]);
                }
            }
            if !part.last {
                for (i, &v) in acc.iter().enumerate() {
                    _mm256_storeu_ps(c.add((i / 2) * ldc + 8 * (i % 2)), v);
                }
                return;
            }
            for r in 0..MR {
                for h in 0..2 {
                    let mut v = finish(acc[2 * r + h], 8 * h, epi);
                    if !res.is_null() {
                        v = _mm256_add_ps(v, _mm256_loadu_ps(res.add(r * ldc + 8 * h)));
                    }
                    _mm256_storeu_ps(c.add(r * ldc + 8 * h), v);
                }
            }
        }
    }

    /// [`super::sparse_row`] with the slab's sums in registers.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn sparse_row(
        nz: &[(usize, f32)],
        rows: &[f32],
        n: usize,
        cols: std::ops::Range<usize>,
        epi: &Epilogue<'_>,
        out: &mut [f32],
    ) {
        // SAFETY: `super::sparse_row` checked every index and length.
        unsafe {
            let lanes = cols.len() / 8;
            let mut acc = [_mm256_setzero_ps(); SLAB / 8];
            for &(i, x) in nz {
                let xv = _mm256_set1_ps(x);
                let w = rows.as_ptr().add(i * n + cols.start);
                for (l, s) in acc.iter_mut().enumerate().take(lanes) {
                    *s = _mm256_fmadd_ps(xv, _mm256_loadu_ps(w.add(8 * l)), *s);
                }
            }
            for (l, &s) in acc.iter().enumerate().take(lanes) {
                let j = cols.start + 8 * l;
                _mm256_storeu_ps(out.as_mut_ptr().add(j), finish(s, j, epi));
            }
        }
    }
}
