//! The f32 kernels of the compiled network: one register tile of a layer's
//! product with its epilogue, and the sparse first layer, each in an
//! AVX-512 version, an AVX2 + FMA one and a portable one, chosen at run
//! time ([`Kernel`]).
//!
//! A dense layer's weights are packed as *panels* of [`NR`] output
//! columns: panel `j` holds `W[k][16j..16j+16]` for every `k`, contiguous,
//! so the tile reads one 64-byte row of the panel per `k`. A tile computes
//! [`MR`] rows × [`NR`] columns of `x·W` in twelve AVX2 accumulators (six
//! rows × two 8-lane vectors: the classic 6×16 shape that fills the
//! register file), then applies the epilogue while the sums are still in
//! registers: `+ bias`, ReLU when asked, `· scale + shift` (an inference
//! batch norm folded into a per-feature affine map), `+ residual` when the
//! layer closes a residual block, and one store. The AVX-512 tile covers
//! two such row tiles at once, [`MR`] · 2 rows × one 16-lane vector in
//! twelve of its 32 registers (the weight row is loaded once for twelve
//! rows, and each row's value is a broadcast operand of its FMA).

/// Rows of one register tile.
pub const MR: usize = 6;
/// Columns of one register tile (and of one weight panel).
pub const NR: usize = 16;

/// Which instructions compute the products.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kernel {
    /// 512-bit AVX-512 with the reduced-precision dot products of Intel's
    /// Sapphire Rapids and AMD's Zen 4: F, BW, VL, VNNI (`vpdpbusd`, the
    /// int8 products) and BF16 (`vdpbf16ps`, the bf16 products).
    Avx512,
    /// 256-bit AVX2 with fused multiply-add (x86-64 since Haswell and Zen).
    Avx2Fma,
    /// Plain Rust, vectorised as the compiler can for the build's baseline
    /// (SSE2 on x86-64): the reference and the fallback.
    Portable,
}

impl Kernel {
    /// Every kernel, best first.
    pub const ALL: [Kernel; 3] = [Kernel::Avx512, Kernel::Avx2Fma, Kernel::Portable];

    /// The name `CUBE_ORACLE_F32_KERNEL` uses.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Avx512 => "avx512",
            Kernel::Avx2Fma => "avx2",
            Kernel::Portable => "portable",
        }
    }

    /// Rows of a layer's input one call of [`tile`] computes: two packed
    /// row tiles on AVX-512, one elsewhere.
    #[must_use]
    pub fn tile_rows(self) -> usize {
        match self {
            Kernel::Avx512 => 2 * MR,
            Kernel::Avx2Fma | Kernel::Portable => MR,
        }
    }

    /// Whether this CPU can run it.
    #[must_use]
    pub fn available(self) -> bool {
        match self {
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => {
                Kernel::Avx2Fma.available()
                    && is_x86_feature_detected!("avx512f")
                    && is_x86_feature_detected!("avx512bw")
                    && is_x86_feature_detected!("avx512vl")
                    && is_x86_feature_detected!("avx512vnni")
                    && is_x86_feature_detected!("avx512bf16")
            }
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2Fma => is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma"),
            #[cfg(not(target_arch = "x86_64"))]
            Kernel::Avx512 | Kernel::Avx2Fma => false,
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

impl<'a> Epilogue<'a> {
    /// The epilogue of the columns from `j` on.
    ///
    /// # Panics
    /// When `j` is past a slice's end.
    #[must_use]
    pub fn from(&self, j: usize) -> Epilogue<'a> {
        Epilogue { bias: &self.bias[j..], relu: self.relu, scale: &self.scale[j..], shift: &self.shift[j..] }
    }
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
/// for the [`Kernel::tile_rows`] rows of a call, over `k` values of `p`,
/// or one [`Part`] of it (the sums so far are in `c`). `a` is a row tile
/// packed column by column (`a[p][r]`, [`MR`] floats per `p`), so the
/// kernel reads one stream; on AVX-512 the next [`MR`] rows are the tile
/// at `a + next`. `epi`'s slices start at the tile's first column.
///
/// # Safety
/// `a` (and `a + next` on AVX-512) holds `k × MR` floats; `panel`
/// holds `k × NR` floats; `c` (and `res` when not null)
/// [`Kernel::tile_rows`] rows of `NR` floats at stride `ldc`; the
/// epilogue's slices at least `NR` each; and the CPU has `kernel`.
#[allow(clippy::too_many_arguments)]
pub unsafe fn tile(
    kernel: Kernel,
    a: *const f32,
    next: usize,
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
        // SAFETY: the caller's contract, and the CPU has AVX-512.
        Kernel::Avx512 => unsafe { avx512::tile(a, next, panel, k, part, epi, res, c, ldc) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the caller's contract, and the CPU has AVX2 and FMA.
        Kernel::Avx2Fma => unsafe { avx2::tile(a, panel, k, part, epi, res, c, ldc) },
        #[cfg(not(target_arch = "x86_64"))]
        Kernel::Avx512 | Kernel::Avx2Fma => unreachable!("AVX is never available off x86-64"),
        // SAFETY: the caller's contract.
        Kernel::Portable => unsafe { portable_tile(a, panel, k, part, epi, res, c, ldc) },
    }
}

/// The epilogue of one value of column `j` (the portable path and the
/// sparse layer's).
#[inline]
pub(super) fn finish(v: f32, j: usize, epi: &Epilogue<'_>) -> f32 {
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

/// The most outputs of the sparse first layer taken together (a multiple
/// of 8).
pub const SLAB: usize = 64;

/// Bytes of first-layer weights a slab may span: within a 32 KiB L1 data
/// cache, with room for the rows' indices and outputs.
pub(super) const SLAB_BYTES: usize = 24 * 1024;

/// Outputs of the sparse first layer taken together for `inputs` inputs:
/// the widest of 8, 16, 32 and 64 whose weights (`inputs` rows of it)
/// stay in L1 while every row of a block reads them; 8 when none does.
#[must_use]
pub fn slab_width(inputs: usize) -> usize {
    [64, 32, 16].into_iter().find(|&w| inputs * w * 4 <= SLAB_BYTES).unwrap_or(8)
}

/// Where [`sparse_rows`] reads the weight of input `i` to output `j` in a
/// first layer of `inputs × n` (slab by slab, see there).
#[must_use]
pub fn slab_index(inputs: usize, n: usize, i: usize, j: usize) -> usize {
    let width = slab_width(inputs);
    let j0 = j / width * width;
    inputs * j0 + i * width.min(n - j0) + (j - j0)
}

/// The nonzero inputs of a block's rows, for the sparse first layer.
#[derive(Debug, Default)]
pub struct Nonzeros {
    /// The input index of each nonzero, row after row …
    index: Vec<u32>,
    /// … its value …
    value: Vec<f32>,
    /// … row `r`'s from `starts[r]` to `starts[r + 1]`.
    starts: Vec<usize>,
    /// The length of every row.
    inputs: usize,
    /// Whether every value is 1 (a one-hot encoding): the layer then adds
    /// weight rows without multiplying.
    ones: bool,
}

impl Nonzeros {
    /// No rows yet, each to be `inputs` long.
    pub fn clear(&mut self, inputs: usize) {
        self.index.clear();
        self.value.clear();
        self.starts.clear();
        self.starts.push(0);
        self.inputs = inputs;
        self.ones = true;
    }

    /// Appends the nonzero values of `row` (of the cleared length), with
    /// their index.
    ///
    /// # Panics
    /// When `row` has another length.
    pub fn push(&mut self, row: &[f32]) {
        assert!(row.len() == self.inputs, "a row of {} inputs among rows of {}", row.len(), self.inputs);
        let mut ones = true;
        let mut add = |i: usize, v: f32| {
            ones &= v == 1.0;
            self.index.push(i as u32);
            self.value.push(v);
        };
        let chunks = row.chunks_exact(8);
        let tail = chunks.remainder();
        for (c, chunk) in chunks.enumerate() {
            // A lane mask the compiler makes one compare and one move-mask.
            let mut mask = 0u32;
            for (l, &v) in chunk.iter().enumerate() {
                mask |= u32::from(v != 0.0) << l;
            }
            while mask != 0 {
                let l = mask.trailing_zeros() as usize;
                add(8 * c + l, chunk[l]);
                mask &= mask - 1;
            }
        }
        let base = row.len() - tail.len();
        for (i, &v) in tail.iter().enumerate().filter(|&(_, &v)| v != 0.0) {
            add(base + i, v);
        }
        self.ones &= ones;
        self.starts.push(self.index.len());
    }

    /// Every value replaced by `f` of it (bf16 products round them).
    pub fn round_values(&mut self, f: impl Fn(f32) -> f32) {
        let mut ones = true;
        for v in &mut self.value {
            *v = f(*v);
            ones &= *v == 1.0;
        }
        self.ones = ones;
    }

    /// Appends a row of zeros.
    pub fn push_zeros(&mut self) {
        self.starts.push(self.index.len());
    }

    /// The rows so far.
    #[must_use]
    pub fn rows(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    /// The length of every row.
    #[must_use]
    pub fn inputs(&self) -> usize {
        self.inputs
    }

    /// Whether every nonzero value is 1.
    #[must_use]
    pub fn ones(&self) -> bool {
        self.ones
    }

    /// The indices of row `r`'s nonzero inputs.
    ///
    /// # Panics
    /// When there is no row `r`.
    #[must_use]
    pub fn row(&self, r: usize) -> &[u32] {
        &self.index[self.starts[r]..self.starts[r + 1]]
    }
}

/// The sparse first layer over a block of rows: row `r`'s outputs
/// `out[r·ld + j] = epilogue(Σ x · rows[i][j])` for `j < n`, the sum over
/// its nonzero inputs (index `i`, value `x`) in `nz`, where `rows` is the
/// transposed weight (`inputs × n`, one row of `n` outputs per input)
/// stored slab by slab: the outputs are made a slab of `width` columns at
/// a time ([`slab_width`]) for every row, and the slab from column `j0` is
/// the contiguous `rows[inputs · j0..]`, input `i`'s `min(width, n − j0)`
/// weights at `i · min(width, n − j0)`, so that it stays in L1 for the
/// block.
pub(crate) fn sparse_rows(
    kernel: Kernel,
    nz: &Nonzeros,
    rows: &[f32],
    n: usize,
    epi: &Epilogue<'_>,
    out: &mut [f32],
    ld: usize,
) {
    let count = nz.rows();
    assert!(n > 0 && n.is_multiple_of(8) && ld >= n, "a first layer of {n} outputs at stride {ld}");
    assert!(count == 0 || out.len() >= (count - 1) * ld + n, "an output block shorter than its rows");
    assert!(epi.bias.len() >= n && epi.scale.len() >= n && epi.shift.len() >= n);
    // Every index is below `nz.inputs` (as `push` takes them), so the
    // weight's size is the only bound left to check.
    assert!(rows.len() == nz.inputs * n, "a first-layer weight of {} values for {} × {n}", rows.len(), nz.inputs);
    match kernel {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the bounds are checked above, and the CPU has AVX-512
        // (and AVX2 and FMA).
        Kernel::Avx512 => unsafe { avx512::sparse_rows(nz, rows, n, epi, out, ld) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the bounds are checked above, and the CPU has AVX2 and FMA.
        Kernel::Avx2Fma => unsafe { avx2::sparse_rows(nz, rows, n, epi, out, ld) },
        #[cfg(not(target_arch = "x86_64"))]
        Kernel::Avx512 | Kernel::Avx2Fma => unreachable!("AVX is never available off x86-64"),
        Kernel::Portable => {
            let width = slab_width(nz.inputs);
            for j0 in (0..n).step_by(width) {
                let cols = j0..(j0 + width).min(n);
                let (base, sw) = (nz.inputs * j0, cols.len());
                for (r, ends) in nz.starts.windows(2).enumerate() {
                    let mut acc = [0.0f32; SLAB];
                    let acc = &mut acc[..sw];
                    for (&i, &x) in nz.index[ends[0]..ends[1]].iter().zip(&nz.value[ends[0]..ends[1]]) {
                        let i = i as usize;
                        for (o, &w) in acc.iter_mut().zip(&rows[base + i * sw..base + (i + 1) * sw]) {
                            *o += x * w;
                        }
                    }
                    for (j, &v) in cols.clone().zip(acc.iter()) {
                        out[r * ld + j] = finish(v, j, epi);
                    }
                }
            }
        }
    }
}

/// Items `0..count` dealt round-robin to the `P` partial sums `acc`:
/// whole groups of `P` (a constant count, so the sums stay in
/// registers), then the rest.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) fn deal<T, const P: usize>(acc: &mut [T; P], count: usize, mut f: impl FnMut(&mut T, usize)) {
    let whole = count / P * P;
    for g in (0..whole).step_by(P) {
        for (p, part) in acc.iter_mut().enumerate() {
            f(part, g + p);
        }
    }
    for (part, at) in acc.iter_mut().zip(whole..count) {
        f(part, at);
    }
}

#[cfg(target_arch = "x86_64")]
pub(super) mod avx2 {
    use super::{Epilogue, MR, NR, Nonzeros, Part, deal};
    use std::arch::x86_64::{
        __m256, _mm256_add_ps, _mm256_broadcast_ss, _mm256_fmadd_ps, _mm256_loadu_ps, _mm256_max_ps, _mm256_set1_ps,
        _mm256_setzero_ps, _mm256_storeu_ps,
    };

    /// Bias, ReLU and the affine map on one 8-lane vector of column
    /// offset `j`.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    pub(in crate::kernels::compiled) unsafe fn finish(v: __m256, j: usize, epi: &Epilogue<'_>) -> __m256 {
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

    /// [`super::sparse_rows`] with each slab's sums in registers.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn sparse_rows(
        nz: &Nonzeros,
        rows: &[f32],
        n: usize,
        epi: &Epilogue<'_>,
        out: &mut [f32],
        ld: usize,
    ) {
        let width = super::slab_width(nz.inputs);
        // SAFETY: `super::sparse_rows` checked the weight's and the
        // output's size; `Nonzeros` keeps every index below `inputs` and
        // its starts within its lists.
        unsafe {
            for j0 in (0..n).step_by(width) {
                let lanes = (n - j0).min(width) / 8;
                let (w, sw) = (rows.as_ptr().add(nz.inputs * j0), 8 * lanes);
                for (r, ends) in nz.starts.windows(2).enumerate() {
                    let index = nz.index.get_unchecked(ends[0]..ends[1]);
                    let value = nz.value.get_unchecked(ends[0]..ends[1]);
                    let dst = out.as_mut_ptr().add(r * ld);
                    slab_row(lanes, index, (!nz.ones).then_some(value), w, sw, j0, epi, dst);
                }
            }
        }
    }

    /// One row's `lanes` vectors of the slab from column `j0` ([`slab`]),
    /// the sums dealt to `8 / lanes` partial sums (1 to 8).
    ///
    /// # Safety
    /// As [`slab`], with `8 · lanes ≤ sw`.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn slab_row(
        lanes: usize,
        index: &[u32],
        value: Option<&[f32]>,
        w: *const f32,
        sw: usize,
        j0: usize,
        epi: &Epilogue<'_>,
        dst: *mut f32,
    ) {
        // SAFETY: the caller's bounds.
        unsafe {
            match lanes {
                8 => slab::<8, 1>(index, value, w, sw, j0, epi, dst),
                4 => slab::<4, 2>(index, value, w, sw, j0, epi, dst),
                2 => slab::<2, 4>(index, value, w, sw, j0, epi, dst),
                _ => (0..lanes).for_each(|l| slab::<1, 8>(index, value, w.add(8 * l), sw, j0 + 8 * l, epi, dst)),
            }
        }
    }

    /// `L` vectors of one row's first-layer outputs from column `j0`, from
    /// the slab `rows` (input `i`'s weights at `i · sw`): the weight rows
    /// of `index` times `value`, or added when `value` is `None` (every
    /// value 1). The rows are dealt round-robin to `P` partial sums of
    /// each vector, so that `L · P` = 8 independent chains hide the adds'
    /// latency; all sums stay in registers (constant counts).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn slab<const L: usize, const P: usize>(
        index: &[u32],
        value: Option<&[f32]>,
        rows: *const f32,
        sw: usize,
        j0: usize,
        epi: &Epilogue<'_>,
        dst: *mut f32,
    ) {
        // SAFETY: the caller's bounds: every index below the slab's
        // rows, 8L ≤ sw, columns j0..j0 + 8L within the row `dst`.
        unsafe {
            let mut acc = [[_mm256_setzero_ps(); L]; P];
            let weights = |at: usize| rows.add(*index.get_unchecked(at) as usize * sw);
            match value {
                None => deal(&mut acc, index.len(), |part, at| {
                    let w = weights(at);
                    for (l, s) in part.iter_mut().enumerate() {
                        *s = _mm256_add_ps(*s, _mm256_loadu_ps(w.add(8 * l)));
                    }
                }),
                Some(value) => deal(&mut acc, index.len(), |part, at| {
                    let (xv, w) = (_mm256_set1_ps(*value.get_unchecked(at)), weights(at));
                    for (l, s) in part.iter_mut().enumerate() {
                        *s = _mm256_fmadd_ps(xv, _mm256_loadu_ps(w.add(8 * l)), *s);
                    }
                }),
            }
            for l in 0..L {
                let mut s = acc[0][l];
                for part in &acc[1..] {
                    s = _mm256_add_ps(s, part[l]);
                }
                let j = j0 + 8 * l;
                _mm256_storeu_ps(dst.add(j), finish(s, j, epi));
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
pub(super) mod avx512 {
    use super::{Epilogue, MR, NR, Nonzeros, Part, deal};
    use std::arch::x86_64::{
        __m512, _mm512_add_ps, _mm512_fmadd_ps, _mm512_loadu_ps, _mm512_max_ps, _mm512_set1_ps, _mm512_setzero_ps,
        _mm512_storeu_ps,
    };

    /// [`super::sparse_rows`] in 16-lane registers: the same partial sums
    /// as the AVX2 version's (a slab of 16, 32 or 64 columns in one, two
    /// or four vectors, each weight row dealt to `4 / vectors` … 1
    /// partial sums as AVX2 deals it), so the same floats, with half the
    /// loads and adds. A slab that is not a whole number of 16 columns
    /// is left to the AVX2 version.
    #[target_feature(enable = "avx512f,avx2,fma")]
    pub(super) unsafe fn sparse_rows(
        nz: &Nonzeros,
        rows: &[f32],
        n: usize,
        epi: &Epilogue<'_>,
        out: &mut [f32],
        ld: usize,
    ) {
        let width = super::slab_width(nz.inputs);
        // SAFETY: `super::sparse_rows` checked the weight's and the
        // output's size; `Nonzeros` keeps every index below `inputs` and
        // its starts within its lists.
        unsafe {
            for j0 in (0..n).step_by(width) {
                let cols = (n - j0).min(width);
                let (w, sw) = (rows.as_ptr().add(nz.inputs * j0), cols);
                for (r, ends) in nz.starts.windows(2).enumerate() {
                    let index = nz.index.get_unchecked(ends[0]..ends[1]);
                    let value = (!nz.ones).then_some(nz.value.get_unchecked(ends[0]..ends[1]));
                    let dst = out.as_mut_ptr().add(r * ld);
                    match cols {
                        64 => slab::<4, 1>(index, value, w, sw, j0, epi, dst),
                        32 => slab::<2, 2>(index, value, w, sw, j0, epi, dst),
                        16 => slab::<1, 4>(index, value, w, sw, j0, epi, dst),
                        _ => super::avx2::slab_row(cols / 8, index, value, w, sw, j0, epi, dst),
                    }
                }
            }
        }
    }

    /// `L` 16-lane vectors of one row's first-layer outputs from column
    /// `j0`, as the AVX2 `slab` with `2L` vectors makes them.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn slab<const L: usize, const P: usize>(
        index: &[u32],
        value: Option<&[f32]>,
        rows: *const f32,
        sw: usize,
        j0: usize,
        epi: &Epilogue<'_>,
        dst: *mut f32,
    ) {
        // SAFETY: the caller's bounds: every index below the slab's
        // rows, 16L = sw, columns j0..j0 + 16L within the row `dst`.
        unsafe {
            let mut acc = [[_mm512_setzero_ps(); L]; P];
            let weights = |at: usize| rows.add(*index.get_unchecked(at) as usize * sw);
            match value {
                None => deal(&mut acc, index.len(), |part, at| {
                    let w = weights(at);
                    for (l, s) in part.iter_mut().enumerate() {
                        *s = _mm512_add_ps(*s, _mm512_loadu_ps(w.add(16 * l)));
                    }
                }),
                Some(value) => deal(&mut acc, index.len(), |part, at| {
                    let (xv, w) = (_mm512_set1_ps(*value.get_unchecked(at)), weights(at));
                    for (l, s) in part.iter_mut().enumerate() {
                        *s = _mm512_fmadd_ps(xv, _mm512_loadu_ps(w.add(16 * l)), *s);
                    }
                }),
            }
            for l in 0..L {
                let mut s = acc[0][l];
                for part in &acc[1..] {
                    s = _mm512_add_ps(s, part[l]);
                }
                let j = j0 + 16 * l;
                finish_store(s, &epi.from(j), std::ptr::null(), dst.add(j), 0, 0);
            }
        }
    }

    /// Bias, ReLU and the affine map on the 16 columns of a tile, then the
    /// residual when `res` is not null, and the store of row `r`.
    ///
    /// # Safety
    /// The epilogue's slices hold 16 values; `c` (and `res`) row `r` at
    /// stride `ldc` holds 16 floats; the CPU has AVX-512 F.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(in crate::kernels::compiled) unsafe fn finish_store(
        v: __m512,
        epi: &Epilogue<'_>,
        res: *const f32,
        c: *mut f32,
        r: usize,
        ldc: usize,
    ) {
        // SAFETY: the caller's bounds.
        unsafe {
            let v = _mm512_add_ps(v, _mm512_loadu_ps(epi.bias.as_ptr()));
            let v = if epi.relu { _mm512_max_ps(v, _mm512_setzero_ps()) } else { v };
            let mut v = _mm512_fmadd_ps(v, _mm512_loadu_ps(epi.scale.as_ptr()), _mm512_loadu_ps(epi.shift.as_ptr()));
            if !res.is_null() {
                v = _mm512_add_ps(v, _mm512_loadu_ps(res.add(r * ldc)));
            }
            _mm512_storeu_ps(c.add(r * ldc), v);
        }
    }

    #[allow(clippy::too_many_arguments)]
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn tile(
        a: *const f32,
        next: usize,
        panel: *const f32,
        k: usize,
        part: Part,
        epi: &Epilogue<'_>,
        res: *const f32,
        c: *mut f32,
        ldc: usize,
    ) {
        const ROWS: usize = 2 * MR;
        // SAFETY: the caller's bounds (see `super::tile`).
        unsafe {
            let mut acc = [_mm512_setzero_ps(); ROWS];
            if !part.first {
                for (r, s) in acc.iter_mut().enumerate() {
                    *s = _mm512_loadu_ps(c.add(r * ldc));
                }
            }
            let b = a.add(next);
            for p in 0..k {
                let w = _mm512_loadu_ps(panel.add(p * NR));
                for r in 0..MR {
                    acc[r] = _mm512_fmadd_ps(_mm512_set1_ps(*a.add(p * MR + r)), w, acc[r]);
                    acc[MR + r] = _mm512_fmadd_ps(_mm512_set1_ps(*b.add(p * MR + r)), w, acc[MR + r]);
                }
            }
            for (r, &v) in acc.iter().enumerate() {
                if part.last {
                    finish_store(v, epi, res, c, r, ldc);
                } else {
                    _mm512_storeu_ps(c.add(r * ldc), v);
                }
            }
        }
    }
}

/// What the tests of the bf16 and int8 panel pairs share: a layer of
/// three panels, its epilogue, a block of input rows and a residual, and
/// the bit-for-bit comparison of two outputs' first two panels.
#[cfg(test)]
pub(super) mod pair_case {
    use super::{Epilogue, NR};

    /// Inputs of the layer.
    pub const K: usize = 64;
    /// Outputs: three panels, so that panels 0 and 1 make a pair.
    pub const N: usize = 3 * NR;
    /// The row stride of inputs, residual and outputs.
    pub const LD: usize = N + 16;

    /// The layer's weights (PyTorch layout, `N × K`) and epilogue.
    pub struct Layer {
        pub weights: Vec<f32>,
        bias: Vec<f32>,
        scale: Vec<f32>,
        shift: Vec<f32>,
    }

    impl Layer {
        #[must_use]
        pub fn new() -> Self {
            Layer {
                weights: (0..N * K).map(|i| ((i * 53 % 97) as f32 - 48.0) / 40.0).collect(),
                bias: (0..N).map(|j| j as f32 / 9.0 - 2.0).collect(),
                scale: (0..N).map(|j| 0.5 + j as f32 / 50.0).collect(),
                shift: (0..N).map(|j| 0.3 - j as f32 / 70.0).collect(),
            }
        }

        #[must_use]
        pub fn epilogue(&self) -> Epilogue<'_> {
            Epilogue { bias: &self.bias, relu: true, scale: &self.scale, shift: &self.shift }
        }
    }

    /// `rows` input rows and a residual, `LD` apart.
    #[must_use]
    pub fn rows_and_residual(rows: usize) -> (Vec<f32>, Vec<f32>) {
        let src = (0..rows * LD).map(|i| ((i * 29 % 61) as f32 - 20.0) / 11.0).collect();
        let res = (0..rows * LD).map(|i| (i % 13) as f32 / 5.0).collect();
        (src, res)
    }

    /// # Panics
    /// When the first two panels of `two` and `pair` differ in a bit.
    pub fn assert_same(two: &[f32], pair: &[f32], rows: usize, label: &str) {
        for r in 0..rows {
            for j in 0..2 * NR {
                let (a, b) = (two[r * LD + j], pair[r * LD + j]);
                assert!(a.to_bits() == b.to_bits(), "{label}: row {r}, column {j}: {a} ≠ {b}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Epilogue, Kernel, Nonzeros, slab_index, slab_width, sparse_rows};

    /// The sparse first layer is the dense product with its epilogue, on
    /// every kernel this CPU runs: one-hot rows (weight rows added), rows
    /// of other values (multiplied), an empty row, and a width that ends
    /// in a narrower slab.
    #[test]
    fn sparse_rows_are_the_dense_product_on_every_kernel() {
        let kernels: Vec<Kernel> = Kernel::ALL.into_iter().filter(|k| k.available()).collect();
        assert!(kernels.contains(&Kernel::Portable));
        // 324 inputs take slabs of 16 outputs: 40 = 16 + 16 + 8.
        let (inputs, n, ld) = (324, 40, 48);
        assert_eq!(slab_width(inputs), 16);
        let weight = |i: usize, j: usize| ((i * 31 + j * 17) % 23) as f32 / 7.0 - 1.5;
        let mut rows = vec![0.0f32; inputs * n];
        for i in 0..inputs {
            for j in 0..n {
                rows[slab_index(inputs, n, i, j)] = weight(i, j);
            }
        }
        let bias: Vec<f32> = (0..n).map(|j| j as f32 / 10.0 - 2.0).collect();
        let scale: Vec<f32> = (0..n).map(|j| 0.5 + j as f32 / 40.0).collect();
        let shift: Vec<f32> = (0..n).map(|j| 0.25 - j as f32 / 80.0).collect();
        let epi = Epilogue { bias: &bias, relu: true, scale: &scale, shift: &shift };
        let one_hot: Vec<Vec<f32>> =
            (0..5).map(|r| (0..inputs).map(|i| f32::from(u8::from((i + r) % 6 == 0))).collect()).collect();
        let mut valued = one_hot.clone();
        for (r, row) in valued.iter_mut().enumerate() {
            row[7 + r] = 0.5;
            row[100] = -2.0;
        }
        for (label, batch) in [("one-hot", &one_hot), ("valued", &valued)] {
            let mut outputs = Vec::new();
            for &kernel in &kernels {
                let mut nz = Nonzeros::default();
                nz.clear(inputs);
                for row in batch {
                    nz.push(row);
                }
                nz.push_zeros();
                let count = batch.len() + 1;
                let mut out = vec![f32::NAN; count * ld];
                sparse_rows(kernel, &nz, &rows, n, &epi, &mut out, ld);
                for r in 0..count {
                    for j in 0..n {
                        let x = |i: usize| batch.get(r).map_or(0.0, |row| f64::from(row[i]));
                        let sum: f64 = (0..inputs).map(|i| x(i) * f64::from(weight(i, j))).sum();
                        let want = (sum + f64::from(bias[j])).max(0.0) * f64::from(scale[j]) + f64::from(shift[j]);
                        let got = f64::from(out[r * ld + j]);
                        assert!(
                            (got - want).abs() < 1e-4,
                            "{label}, {}: row {r} column {j}: {got} ≠ {want}",
                            kernel.name()
                        );
                    }
                }
                outputs.push((kernel, out));
            }
            // The AVX-512 version forms the AVX2 version's partial sums:
            // the same floats, bit for bit.
            let of = |k: Kernel| outputs.iter().find(|(kernel, _)| *kernel == k).map(|(_, out)| out);
            if let (Some(a), Some(b)) = (of(Kernel::Avx512), of(Kernel::Avx2Fma)) {
                let same = a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits());
                assert!(same, "{label}: the avx512 and avx2 first layers differ");
            }
        }
    }
}
