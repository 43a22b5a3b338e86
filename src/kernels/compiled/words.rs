//! The one-hot first layer in 16-bit integers, for integer networks
//! (`solve --matmul int8`).
//!
//! The first layer of a one-hot encoding is a sum of weight rows, one per
//! nonzero input (54 for the cube). In f32 ([`super::kernel::sparse_rows`])
//! that is a load and an add of 16 lanes per row and 16 outputs; with
//! the weights as 16-bit integers it is one of 32 lanes, half the loads,
//! adds and cache footprint. Column `j` keeps `w[i][j] ≈ t_j · q[i][j]`
//! with the step `t_j = Σ_i |w[i][j]| / (32767 − inputs)`, so that no sum
//! of any set of a column's integers leaves the 16-bit range: the sums are
//! exact integers in every lane, whatever the rows' order, and every
//! kernel computes the same ones. The output is `t_j · Σ q` (one float
//! rounding) followed by the layer's epilogue.
//!
//! This is a rounding the f32 first layer does not make: each weight moves
//! by at most half a step, and a row's sum by at most half a step per
//! nonzero input (the unit test checks that bound). The integer layers
//! after it round their inputs to 7 bits of each row's range, a far
//! coarser step. f32 and bf16 networks keep the f32 first layer; rows with
//! any nonzero input other than 1 take it too.

use super::kernel::{Epilogue, Kernel, Nonzeros, SLAB_BYTES, finish};

/// Outputs taken together: 32 words, one AVX-512 register or two AVX2 ones.
pub const WORD_SLAB: usize = 32;

/// The first layer's weights as 16-bit integers, slab by slab ([module
/// docs](self)).
#[derive(Debug)]
pub struct Words {
    /// Slab by slab of [`WORD_SLAB`] columns: the slab from column `j0` at
    /// `inputs · j0`, input `i`'s 32 words at `i · 32` within it.
    words: Vec<i16>,
    /// Each column's step `t_j`.
    step: Vec<f32>,
    inputs: usize,
    n: usize,
}

impl Words {
    /// The table of a first layer of weight `w` (PyTorch's layout,
    /// `d_out × d_in`) with `n` padded outputs; `None` where a slab of
    /// it would not stay in L1 ([`SLAB_BYTES`]), `n` is not whole slabs,
    /// or the inputs are too many for a 16-bit sum.
    #[must_use]
    pub fn new(w: &[f32], d_out: usize, d_in: usize, n: usize) -> Option<Self> {
        let fits = d_in * WORD_SLAB * 2 <= SLAB_BYTES && n.is_multiple_of(WORD_SLAB) && d_out <= n;
        if !fits || d_in >= 16_384 || w.len() != d_out * d_in {
            return None;
        }
        // Rounding moves each integer by at most ½, so `inputs` of headroom
        // keeps any sum of a column's magnitudes within 32767.
        let limit = f64::from(32_767 - d_in as i32);
        let step: Vec<f32> = (0..n)
            .map(|j| {
                let bound: f64 =
                    if j < d_out { w[j * d_in..(j + 1) * d_in].iter().map(|&v| f64::from(v).abs()).sum() } else { 0.0 };
                if bound > 0.0 { (bound / limit) as f32 } else { 1.0 }
            })
            .collect();
        let mut words = vec![0i16; d_in * n];
        for j in 0..d_out {
            let (j0, lane) = (j / WORD_SLAB * WORD_SLAB, j % WORD_SLAB);
            for i in 0..d_in {
                let q = (f64::from(w[j * d_in + i]) / f64::from(step[j])).round();
                words[d_in * j0 + i * WORD_SLAB + lane] = q as i16;
            }
        }
        Some(Self { words, step, inputs: d_in, n })
    }

    /// The weight of input `i` to output `j` as the table holds it
    /// (`t_j · q[i][j]`).
    #[must_use]
    pub fn weight(&self, i: usize, j: usize) -> f32 {
        let j0 = j / WORD_SLAB * WORD_SLAB;
        f32::from(self.words[self.inputs * j0 + i * WORD_SLAB + j % WORD_SLAB]) * self.step[j]
    }

    /// Each column's step.
    #[must_use]
    pub fn steps(&self) -> &[f32] {
        &self.step
    }
}

/// The first layer over a block of one-hot rows, as
/// [`super::kernel::sparse_rows`] makes it from f32 weights: row `r`'s
/// outputs `out[r·ld + j] = epilogue(t_j · Σ q[i][j])` over its nonzero
/// inputs `i`, for every `j < n`.
///
/// # Panics
/// When a row has a nonzero input other than 1, the rows have another
/// width than the table's inputs, or `out` is shorter than the rows.
pub(crate) fn sparse_words(
    kernel: Kernel,
    nz: &Nonzeros,
    words: &Words,
    epi: &Epilogue<'_>,
    out: &mut [f32],
    ld: usize,
) {
    let (count, n) = (nz.rows(), words.n);
    assert!(nz.ones(), "16-bit first-layer weights are summed for one-hot rows only");
    assert!(nz.inputs() == words.inputs, "rows of {} inputs for a table of {}", nz.inputs(), words.inputs);
    assert!(ld >= n && (count == 0 || out.len() >= (count - 1) * ld + n), "an output block shorter than its rows");
    assert!(epi.bias.len() >= n && epi.scale.len() >= n && epi.shift.len() >= n);
    match kernel {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the bounds are checked above (every index below
        // `inputs`, as `Nonzeros` keeps them), and the CPU has AVX-512 F
        // and BW.
        Kernel::Avx512 => unsafe { avx512::sparse_words(nz, words, epi, out, ld) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above, and the CPU has AVX2 and FMA.
        Kernel::Avx2Fma => unsafe { avx2::sparse_words(nz, words, epi, out, ld) },
        #[cfg(not(target_arch = "x86_64"))]
        Kernel::Avx512 | Kernel::Avx2Fma => unreachable!("AVX is never available off x86-64"),
        Kernel::Portable => {
            for j0 in (0..n).step_by(WORD_SLAB) {
                let slab = &words.words[words.inputs * j0..words.inputs * (j0 + WORD_SLAB)];
                for r in 0..count {
                    let mut acc = [0i16; WORD_SLAB];
                    for &i in nz.row(r) {
                        let i = i as usize;
                        for (a, &q) in acc.iter_mut().zip(&slab[i * WORD_SLAB..(i + 1) * WORD_SLAB]) {
                            *a = a.wrapping_add(q);
                        }
                    }
                    for (l, &a) in acc.iter().enumerate() {
                        let j = j0 + l;
                        out[r * ld + j] = finish(f32::from(a) * words.step[j], j, epi);
                    }
                }
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{Nonzeros, WORD_SLAB, Words};
    use crate::kernels::compiled::kernel::{Epilogue, avx2::finish, deal};
    use std::arch::x86_64::{
        __m256i, _mm256_add_epi16, _mm256_castsi256_si128, _mm256_cvtepi16_epi32, _mm256_cvtepi32_ps,
        _mm256_extracti128_si256, _mm256_loadu_ps, _mm256_loadu_si256, _mm256_mul_ps, _mm256_setzero_si256,
        _mm256_storeu_ps,
    };

    /// [`super::sparse_words`] in two 16-lane registers per slab, each
    /// row's weight rows dealt to two partial sums.
    ///
    /// # Safety
    /// The CPU has AVX2 and FMA; the caller's bounds.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn sparse_words(nz: &Nonzeros, words: &Words, epi: &Epilogue<'_>, out: &mut [f32], ld: usize) {
        // SAFETY: `super::sparse_words` checked the sizes; every index is
        // below `inputs`.
        unsafe {
            for j0 in (0..words.n).step_by(WORD_SLAB) {
                let slab = words.words.as_ptr().add(words.inputs * j0);
                for r in 0..nz.rows() {
                    let index = nz.row(r);
                    let mut acc = [[_mm256_setzero_si256(); 2]; 2];
                    deal(&mut acc, index.len(), |part: &mut [__m256i; 2], at| {
                        let w = slab.add(*index.get_unchecked(at) as usize * WORD_SLAB);
                        part[0] = _mm256_add_epi16(part[0], _mm256_loadu_si256(w.cast()));
                        part[1] = _mm256_add_epi16(part[1], _mm256_loadu_si256(w.add(16).cast()));
                    });
                    let dst = out.as_mut_ptr().add(r * ld);
                    for (h, (&a, &b)) in acc[0].iter().zip(&acc[1]).enumerate() {
                        let s = _mm256_add_epi16(a, b);
                        let halves = [_mm256_castsi256_si128(s), _mm256_extracti128_si256::<1>(s)];
                        for (q, half) in halves.into_iter().enumerate() {
                            let j = j0 + 16 * h + 8 * q;
                            let v = _mm256_cvtepi32_ps(_mm256_cvtepi16_epi32(half));
                            let v = _mm256_mul_ps(v, _mm256_loadu_ps(words.step.as_ptr().add(j)));
                            _mm256_storeu_ps(dst.add(j), finish(v, j, epi));
                        }
                    }
                }
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::{Nonzeros, WORD_SLAB, Words};
    use crate::kernels::compiled::kernel::{Epilogue, avx512::finish_store, deal};
    use std::arch::x86_64::{
        __m512i, _mm512_add_epi16, _mm512_castsi512_si256, _mm512_cvtepi16_epi32, _mm512_cvtepi32_ps,
        _mm512_extracti64x4_epi64, _mm512_loadu_ps, _mm512_loadu_si512, _mm512_mul_ps, _mm512_setzero_si512,
    };

    /// [`super::sparse_words`] in one 32-lane register per slab, each
    /// row's weight rows dealt to four partial sums. The integers are the
    /// AVX2 version's, and so are the floats, bit for bit.
    ///
    /// # Safety
    /// The CPU has AVX-512 F and BW; the caller's bounds.
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(super) unsafe fn sparse_words(nz: &Nonzeros, words: &Words, epi: &Epilogue<'_>, out: &mut [f32], ld: usize) {
        // SAFETY: `super::sparse_words` checked the sizes; every index is
        // below `inputs`.
        unsafe {
            for j0 in (0..words.n).step_by(WORD_SLAB) {
                let slab = words.words.as_ptr().add(words.inputs * j0);
                for r in 0..nz.rows() {
                    let index = nz.row(r);
                    let mut acc = [_mm512_setzero_si512(); 4];
                    deal(&mut acc, index.len(), |part: &mut __m512i, at| {
                        let w = slab.add(*index.get_unchecked(at) as usize * WORD_SLAB);
                        *part = _mm512_add_epi16(*part, _mm512_loadu_si512(w.cast()));
                    });
                    let s = _mm512_add_epi16(_mm512_add_epi16(acc[0], acc[1]), _mm512_add_epi16(acc[2], acc[3]));
                    let dst = out.as_mut_ptr().add(r * ld);
                    let halves = [_mm512_castsi512_si256(s), _mm512_extracti64x4_epi64::<1>(s)];
                    for (q, half) in halves.into_iter().enumerate() {
                        let j = j0 + 16 * q;
                        let v = _mm512_cvtepi32_ps(_mm512_cvtepi16_epi32(half));
                        let v = _mm512_mul_ps(v, _mm512_loadu_ps(words.step.as_ptr().add(j)));
                        finish_store(v, &epi.from(j), std::ptr::null(), dst.add(j), 0, 0);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Words, sparse_words};
    use crate::kernels::compiled::kernel::{Epilogue, Kernel, Nonzeros};

    /// On every kernel this CPU runs, the 16-bit first layer is the
    /// table's own weights summed exactly (within float rounding of the
    /// epilogue), the same floats on AVX2 and AVX-512, and within half a
    /// step per nonzero input of the f32 weights' sum; rows with other
    /// values than 1 are refused.
    #[test]
    fn word_sums_are_the_table_exactly_and_the_weights_within_half_a_step() {
        let kernels: Vec<Kernel> = Kernel::ALL.into_iter().filter(|k| k.available()).collect();
        let (inputs, d_out, n, ld) = (324, 60, 64, 80);
        // Weights of mixed magnitudes, in PyTorch's layout.
        let w: Vec<f32> = (0..d_out * inputs)
            .map(|x| (((x * 37 + 11) % 101) as f32 / 50.0 - 1.0) * if x % 7 == 0 { 3.0 } else { 0.2 })
            .collect();
        let words = Words::new(&w, d_out, inputs, n).expect("324 inputs fit 32-word slabs");
        let bias: Vec<f32> = (0..n).map(|j| j as f32 / 20.0 - 1.0).collect();
        let scale: Vec<f32> = (0..n).map(|j| 0.5 + j as f32 / 64.0).collect();
        let shift: Vec<f32> = (0..n).map(|j| 0.25 - j as f32 / 128.0).collect();
        let epi = Epilogue { bias: &bias, relu: true, scale: &scale, shift: &shift };
        // One-hot rows of 54 ones (one of six at each of 54 positions),
        // and one row with every input on, the sum the bound is made for.
        let mut batch: Vec<Vec<f32>> =
            (0..7).map(|r| (0..inputs).map(|i| f32::from(u8::from(i % 6 == (i / 6 * 5 + r) % 6))).collect()).collect();
        batch.push(vec![1.0; inputs]);
        let mut nz = Nonzeros::default();
        nz.clear(inputs);
        batch.iter().for_each(|row| nz.push(row));
        nz.push_zeros();
        let count = batch.len() + 1;
        let mut outputs = Vec::new();
        for &kernel in &kernels {
            let mut out = vec![f32::NAN; count * ld];
            sparse_words(kernel, &nz, &words, &epi, &mut out, ld);
            for r in 0..count {
                let on: Vec<usize> =
                    batch.get(r).map_or(Vec::new(), |row| (0..inputs).filter(|&i| row[i] == 1.0).collect());
                for j in 0..n {
                    let epilogue =
                        |sum: f64| (sum + f64::from(bias[j])).max(0.0) * f64::from(scale[j]) + f64::from(shift[j]);
                    let table: f64 = on.iter().map(|&i| f64::from(words.weight(i, j))).sum();
                    let got = f64::from(out[r * ld + j]);
                    let want = epilogue(table);
                    assert!(
                        (got - want).abs() <= 1e-5 * want.abs().max(1.0),
                        "{}: row {r} column {j}: {got} ≠ {want}",
                        kernel.name()
                    );
                    if j < d_out {
                        let exact: f64 = on.iter().map(|&i| f64::from(w[j * inputs + i])).sum();
                        let bound = on.len() as f64 * f64::from(words.steps()[j]) / 2.0 * f64::from(scale[j]) + 1e-5;
                        assert!(
                            (got - epilogue(exact)).abs() <= bound,
                            "row {r} column {j}: {got} is more than {bound} from the f32 sum"
                        );
                    }
                }
            }
            outputs.push((kernel, out));
        }
        let of = |k: Kernel| outputs.iter().find(|(kernel, _)| *kernel == k).map(|(_, out)| out);
        if let (Some(a), Some(b)) = (of(Kernel::Avx512), of(Kernel::Avx2Fma)) {
            assert!(a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits()), "the avx512 and avx2 sums differ");
        }
        // A row with a value other than 1 is refused.
        let mut valued = Nonzeros::default();
        valued.clear(inputs);
        let mut row = batch[0].clone();
        row[3] = 0.5;
        valued.push(&row);
        let refused = std::panic::catch_unwind(|| {
            let mut out = vec![0.0; ld];
            sparse_words(Kernel::Portable, &valued, &words, &epi, &mut out, ld);
        });
        assert!(refused.is_err(), "a valued row was summed as one-hot");
    }

    /// Tables that would not stay in L1 or leave half a slab are not made.
    #[test]
    fn tables_that_do_not_fit_are_not_made() {
        assert!(Words::new(&vec![0.1; 4 * 400], 4, 400, 32).is_none(), "400 inputs × 32 words exceed a slab's bytes");
        assert!(Words::new(&vec![0.1; 40 * 324], 40, 324, 48).is_none(), "48 columns are a slab and a half");
        assert!(Words::new(&vec![0.1; 40 * 324], 40, 324, 64).is_some());
    }
}
