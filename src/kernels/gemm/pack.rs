//! Packing strided f32 operands into tiles of bf16 pairs.
//!
//! For a view `v` (`outer × k`) the *pair matrix* is
//! `Q[o][p] = pair(v[o, 2p], v[o, 2p + 1])`: the two values rounded to
//! bf16, the lower `k` in the low half of a `u32`. `A` is packed from its
//! own view (tiles `[o][p]`, one row of `A` per tile row) and `B` from its
//! transpose (tiles `[p][o]`, the VNNI layout of `TDPBF16PS` and the rows
//! `VDPBF16PS` reads). A tile is 16 `o` × 16 `p` (32 values of `k`); tiles
//! run `[outer tile][k block]`, and everything outside the view is zero.
//!
//! A tile inside the view whose `k` or outer index is contiguous in memory
//! is packed with AVX-512 when the CPU has it (every CPU with a bf16 unit
//! does): 16 rounded pairs per instruction sequence, with the exact
//! rounding of [`super::bf16_bits`]. Other tiles, and CPUs without AVX-512,
//! take the element-by-element path; a test holds the two to the same bits.

use super::{BLOCK_K, TILE, TILE_LEN, View, pair};
use rayon::prelude::*;

/// Packs `v` into `out` (resized to `tiles × blocks` tiles; every entry is
/// written). `transposed` stores tiles `[p][o]` (for `B`).
pub(super) fn pack(v: View<'_>, tiles: usize, blocks: usize, transposed: bool, out: &mut Vec<u32>) {
    let simd = avx512::available();
    out.resize(tiles * blocks * TILE_LEN, 0);
    out.par_chunks_mut(blocks * TILE_LEN).enumerate().for_each(|(tile, dst)| {
        for (block, dst) in dst.chunks_exact_mut(TILE_LEN).enumerate() {
            let (o0, k0) = (tile * TILE, block * BLOCK_K);
            let inside = o0 + TILE <= v.rows && k0 + BLOCK_K <= v.cols;
            if !(simd && inside && avx512::tile(&v, o0, k0, transposed, dst)) {
                tile_scalar(&v, o0, k0, transposed, dst);
            }
        }
    });
}

/// One tile element by element (any strides, edges padded with zeros).
pub(super) fn tile_scalar(v: &View<'_>, o0: usize, k0: usize, transposed: bool, dst: &mut [u32]) {
    let get = |o: usize, k: usize| if o < v.rows && k < v.cols { v.data[v.index(o, k)] } else { 0.0 };
    for o in 0..TILE {
        for p in 0..TILE {
            let x = pair(get(o0 + o, k0 + 2 * p), get(o0 + o, k0 + 2 * p + 1));
            if transposed {
                dst[p * TILE + o] = x;
            } else {
                dst[o * TILE + p] = x;
            }
        }
    }
}

#[cfg(all(target_arch = "x86_64", feature = "bf16-kernels"))]
mod avx512 {
    use super::{BLOCK_K, TILE, TILE_LEN, View};
    use std::arch::x86_64::*;

    pub(super) fn available() -> bool {
        use std::sync::OnceLock;
        static YES: OnceLock<bool> = OnceLock::new();
        *YES.get_or_init(|| is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw"))
    }

    /// Packs one tile lying wholly inside the view if its `k` or outer
    /// index has stride 1; false (nothing written) otherwise.
    pub(super) fn tile(v: &View<'_>, o0: usize, k0: usize, transposed: bool, dst: &mut [u32]) -> bool {
        let mut natural = [0u32; TILE_LEN];
        // The tile lies inside the view, so these slices exist.
        if v.col_stride == 1 {
            let rows: [&[f32]; TILE] = std::array::from_fn(|o| &v.data[v.index(o0 + o, k0)..][..BLOCK_K]);
            // SAFETY: AVX-512 F and BW are available (`available`); each row
            // slice holds 32 values and `natural` 256 entries.
            unsafe { k_contiguous(&rows, &mut natural) };
            place(&natural, !transposed, dst);
            true
        } else if v.row_stride == 1 {
            let cols: [&[f32]; BLOCK_K] = std::array::from_fn(|k| &v.data[v.index(o0, k0 + k)..][..TILE]);
            // SAFETY: as above; each column slice holds 16 values.
            unsafe { outer_contiguous(&cols, &mut natural) };
            place(&natural, transposed, dst);
            true
        } else {
            false
        }
    }

    /// Copies a tile as it is (`same`) or transposed.
    fn place(tile: &[u32; TILE_LEN], same: bool, dst: &mut [u32]) {
        if same {
            dst.copy_from_slice(tile);
        } else {
            for (r, row) in tile.chunks_exact(TILE).enumerate() {
                for (c, &x) in row.iter().enumerate() {
                    dst[c * TILE + r] = x;
                }
            }
        }
    }

    /// The bits of 16 floats rounded to bf16 in their upper halves
    /// (`super::super::bf16_bits` lane by lane, NaNs quieted).
    #[target_feature(enable = "avx512f,avx512bw")]
    fn rounded(x: __m512) -> __m512i {
        let b = _mm512_castps_si512(x);
        let lsb = _mm512_and_si512(_mm512_srli_epi32::<16>(b), _mm512_set1_epi32(1));
        let r = _mm512_add_epi32(_mm512_add_epi32(b, _mm512_set1_epi32(0x7fff)), lsb);
        let nan = _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(x, x);
        _mm512_mask_mov_epi32(r, nan, _mm512_or_si512(b, _mm512_set1_epi32(0x0040_0000)))
    }

    /// Tile `[o][p]` from 16 rows of 32 consecutive values of `k`.
    #[target_feature(enable = "avx512f,avx512bw")]
    unsafe fn k_contiguous(rows: &[&[f32]], out: &mut [u32; TILE_LEN]) {
        // Word w of the result is the upper half of value w: words 2w + 1
        // of the two rounded vectors side by side.
        let idx = _mm512_set_epi16(
            63, 61, 59, 57, 55, 53, 51, 49, 47, 45, 43, 41, 39, 37, 35, 33, 31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11,
            9, 7, 5, 3, 1,
        );
        for (o, row) in rows.iter().enumerate() {
            // SAFETY: `row` holds 32 floats; `out` row `o` 16 `u32`.
            unsafe {
                let r0 = rounded(_mm512_loadu_ps(row.as_ptr()));
                let r1 = rounded(_mm512_loadu_ps(row.as_ptr().add(16)));
                _mm512_storeu_si512(out[o * TILE..].as_mut_ptr().cast(), _mm512_permutex2var_epi16(r0, idx, r1));
            }
        }
    }

    /// Tile `[p][o]` from 32 columns (one per `k`) of 16 consecutive outer
    /// values.
    #[target_feature(enable = "avx512f,avx512bw")]
    unsafe fn outer_contiguous(cols: &[&[f32]], out: &mut [u32; TILE_LEN]) {
        let high = _mm512_set1_epi32(0xffff_0000_u32 as i32);
        for p in 0..TILE {
            // SAFETY: each column holds 16 floats; `out` row `p` 16 `u32`.
            unsafe {
                let lo = rounded(_mm512_loadu_ps(cols[2 * p].as_ptr()));
                let hi = rounded(_mm512_loadu_ps(cols[2 * p + 1].as_ptr()));
                let pairs = _mm512_or_si512(_mm512_srli_epi32::<16>(lo), _mm512_and_si512(hi, high));
                _mm512_storeu_si512(out[p * TILE..].as_mut_ptr().cast(), pairs);
            }
        }
    }
}

#[cfg(not(all(target_arch = "x86_64", feature = "bf16-kernels")))]
mod avx512 {
    use super::View;

    pub(super) fn available() -> bool {
        false
    }

    pub(super) fn tile(_: &View<'_>, _: usize, _: usize, _: bool, _: &mut [u32]) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::{TILE_LEN, View, avx512, tile_scalar};

    /// The AVX-512 tiles equal the element-by-element ones bit for bit, in
    /// both orientations and for both contiguous axes, NaNs, infinities,
    /// ties and subnormals included (on a CPU with AVX-512; elsewhere only
    /// the element-by-element path exists).
    #[test]
    fn vector_packing_equals_scalar_packing() {
        if !avx512::available() {
            // Both bf16 kernels pack with AVX-512: asking for one here fails.
            let asked = std::env::var("CUBE_ORACLE_TEST_KERNELS").unwrap_or_default();
            assert!(
                asked.trim().is_empty(),
                "CUBE_ORACLE_TEST_KERNELS={asked} asks for bf16 kernels, whose AVX-512 packing this CPU (or this build) lacks"
            );
            eprintln!(
                "no AVX-512 packing on this CPU (or built without bf16-kernels): the scalar packing alone is checked, by packing_preserves_the_product"
            );
            return;
        }
        let special = [f32::NAN, f32::INFINITY, -0.0, 1.0 + 1.0 / 256.0, 1e-40, -3.0e38, f32::MAX];
        let data: Vec<f32> = (0..40 * 70)
            .map(|i| if i % 37 < special.len() { special[i % 37] } else { (i as f32 * 0.731).sin() * 3.0 })
            .collect();
        for v in [View::row_major(&data, 40, 70), View::row_major(&data, 70, 40).t()] {
            for transposed in [false, true] {
                for (o0, k0) in [(0, 0), (16, 32), (24, 38)] {
                    let (mut fast, mut slow) = (vec![0u32; TILE_LEN], vec![0u32; TILE_LEN]);
                    assert!(avx512::tile(&v, o0, k0, transposed, &mut fast));
                    tile_scalar(&v, o0, k0, transposed, &mut slow);
                    assert_eq!(fast, slow, "tile at ({o0}, {k0}), transposed {transposed}");
                }
            }
        }
    }
}
