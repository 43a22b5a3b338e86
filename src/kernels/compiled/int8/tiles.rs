//! Integer products on AMX tiles: `TDPBUSD` multiplies a 16 × 64 tile of
//! unsigned bytes (16 input rows, 64 inputs each) by a 64 × 16 tile of
//! signed weight bytes and adds the 16 × 16 dot products, exact, into a
//! tile of 32-bit sums: 16,384 multiply-adds in one instruction.
//!
//! The weights need no new layout: a panel of [`QuantLayer`] keeps, for
//! each group of four inputs, the 16 columns' four bytes together (64
//! bytes), which is exactly a row of the `B` tile, so 16 groups (1 KiB)
//! are one tile. The input rows are quantised row after row, `k` bytes
//! apart, and a 16-row slice of 64 of their bytes is one `A` tile. Of the
//! eight tile registers, three hold sums (`C`, 48 rows × one panel of 16
//! columns), three the rows' `A` tiles and one the panel's `B` tile; per
//! 64 inputs the panel's tile is loaded once and each row tile once.
//!
//! The algorithm ([`panel_sums`]) is written against [`Tiles`], the four
//! tile operations, so that the same code runs on AMX ([`Amx`], inline
//! assembly: Rust has no stable AMX intrinsics) and, in tests on any CPU,
//! on those operations in plain Rust (`Emulated`, built for tests). The sums are the same
//! integers every other kernel computes, so a layer's outputs match the
//! `avx512` kernel's exactly (`vpdpbusd` forms the same sums).

use super::QuantLayer;
use crate::kernels::compiled::kernel::NR;

/// Rows of one tile.
pub const TILE_ROWS: usize = 16;

/// Inputs per tile row: sixteen groups of four bytes.
pub const TILE_K: usize = 64;

/// Row tiles per pass over a panel: three `C` and three `A` tiles, with
/// the panel's `B` tile, in the eight registers.
pub const ROW_TILES: usize = 3;

/// The tile operations [`panel_sums`] is written in; `t` names one of the
/// [`ROW_TILES`] pairs of a sum tile `C_t` and a row tile `A_t`.
pub(in crate::kernels::compiled) trait Tiles {
    /// `C_t = 0`.
    ///
    /// # Safety
    /// The implementation's conditions (AMX: available and configured).
    unsafe fn zero(&mut self, t: usize);
    /// `A_t` = 16 rows of 64 bytes at `src`, `stride` bytes apart.
    ///
    /// # Safety
    /// As [`Tiles::zero`], and `src` readable for 16 rows of 64 bytes.
    unsafe fn load_a(&mut self, t: usize, src: *const u8, stride: usize);
    /// `B` = 16 rows of 64 bytes at `src`, one after another.
    ///
    /// # Safety
    /// As [`Tiles::zero`], and `src` readable for 1,024 bytes.
    unsafe fn load_b(&mut self, src: *const i8);
    /// `C_t += A_t · B`: `C[m][n] += Σ_g Σ_i A[m][4g + i] · B[g][4n + i]`.
    ///
    /// # Safety
    /// As [`Tiles::zero`].
    unsafe fn dot(&mut self, t: usize);
    /// `C_t` to 16 rows of 16 integers at `dst`, one after another.
    ///
    /// # Safety
    /// As [`Tiles::zero`], and `dst` writable for 256 integers.
    unsafe fn store(&mut self, t: usize, dst: *mut i32);
}

/// The integer sums of panel `p` of `layer` for `row_tiles` (1 to
/// [`ROW_TILES`]) tiles of 16 input rows: `u` holds the rows' bytes,
/// `layer.k` apart; `out` gets `16 · row_tiles` rows of [`NR`] sums.
///
/// # Safety
/// `u` holds `16 · row_tiles` rows of `layer.k` bytes; `layer.k` is a
/// multiple of [`TILE_K`]; `p < layer.n / NR`; `out` holds
/// `16 · row_tiles · NR` integers; and `T`'s own conditions hold on this
/// thread.
#[inline]
pub(in crate::kernels::compiled) unsafe fn panel_sums<T: Tiles>(
    tiles: &mut T,
    u: *const u8,
    layer: &QuantLayer,
    p: usize,
    row_tiles: usize,
    out: &mut [i32],
) {
    let k = layer.k;
    assert!(k.is_multiple_of(TILE_K) && (1..=ROW_TILES).contains(&row_tiles) && p < layer.n / NR);
    assert!(out.len() >= row_tiles * TILE_ROWS * NR);
    let panel = &layer.weights[p * k * NR..(p + 1) * k * NR];
    // SAFETY (every call): the caller's bounds on `u`, `T`'s conditions;
    // each `B` tile is 1,024 bytes inside `panel` (k / 64 of them), each
    // store 256 integers inside `out` (asserted).
    unsafe {
        for t in 0..row_tiles {
            tiles.zero(t);
        }
        for chunk in 0..k / TILE_K {
            tiles.load_b(panel[chunk * TILE_K * NR..].as_ptr());
            for t in 0..row_tiles {
                tiles.load_a(t, u.add(t * TILE_ROWS * k + chunk * TILE_K), k);
                tiles.dot(t);
            }
        }
        for t in 0..row_tiles {
            tiles.store(t, out[t * TILE_ROWS * NR..].as_mut_ptr());
        }
    }
}

/// The tile operations on AMX: `C_t` in tmm0–tmm2, `A_t` in tmm3–tmm5,
/// `B` in tmm6, with [`crate::kernels::amx`]'s configuration.
#[cfg(target_arch = "x86_64")]
pub(in crate::kernels::compiled) struct Amx;

#[cfg(target_arch = "x86_64")]
impl Tiles for Amx {
    // SAFETY (every method): the caller's contract: AMX-INT8 is available,
    // `crate::kernels::amx::configure` ran on this thread, and the memory
    // operands are as the trait states.
    unsafe fn zero(&mut self, t: usize) {
        use std::arch::asm;
        unsafe {
            match t {
                0 => asm!("tilezero tmm0", options(nostack, nomem)),
                1 => asm!("tilezero tmm1", options(nostack, nomem)),
                2 => asm!("tilezero tmm2", options(nostack, nomem)),
                _ => unreachable!("three sum tiles"),
            }
        }
    }

    unsafe fn load_a(&mut self, t: usize, src: *const u8, stride: usize) {
        use std::arch::asm;
        unsafe {
            match t {
                0 => {
                    asm!("tileloadd tmm3, [{p} + {s}]", p = in(reg) src, s = in(reg) stride, options(nostack, readonly))
                }
                1 => {
                    asm!("tileloadd tmm4, [{p} + {s}]", p = in(reg) src, s = in(reg) stride, options(nostack, readonly))
                }
                2 => {
                    asm!("tileloadd tmm5, [{p} + {s}]", p = in(reg) src, s = in(reg) stride, options(nostack, readonly))
                }
                _ => unreachable!("three row tiles"),
            }
        }
    }

    unsafe fn load_b(&mut self, src: *const i8) {
        use std::arch::asm;
        unsafe { asm!("tileloadd tmm6, [{p} + {s}]", p = in(reg) src, s = in(reg) TILE_K, options(nostack, readonly)) }
    }

    unsafe fn dot(&mut self, t: usize) {
        use std::arch::asm;
        unsafe {
            match t {
                0 => asm!("tdpbusd tmm0, tmm3, tmm6", options(nostack, nomem)),
                1 => asm!("tdpbusd tmm1, tmm4, tmm6", options(nostack, nomem)),
                2 => asm!("tdpbusd tmm2, tmm5, tmm6", options(nostack, nomem)),
                _ => unreachable!("three sum tiles"),
            }
        }
    }

    unsafe fn store(&mut self, t: usize, dst: *mut i32) {
        use std::arch::asm;
        let s = NR * 4;
        unsafe {
            match t {
                0 => asm!("tilestored [{p} + {s}], tmm0", p = in(reg) dst, s = in(reg) s, options(nostack)),
                1 => asm!("tilestored [{p} + {s}], tmm1", p = in(reg) dst, s = in(reg) s, options(nostack)),
                2 => asm!("tilestored [{p} + {s}], tmm2", p = in(reg) dst, s = in(reg) s, options(nostack)),
                _ => unreachable!("three sum tiles"),
            }
        }
    }
}

/// Multiply-adds ×2 of `iters` rounds of three independent `TDPBUSD` on
/// tiles already loaded (the unit's peak, for benchmarks).
///
/// # Safety
/// AMX-INT8 is available and `crate::kernels::amx::configure` ran on this
/// thread.
#[cfg(target_arch = "x86_64")]
pub(in crate::kernels::compiled) unsafe fn spin(iters: u64) -> u64 {
    use std::arch::asm;
    // SAFETY: the caller's contract; the tiles hold whatever they hold.
    unsafe {
        asm!("tilezero tmm0", "tilezero tmm1", "tilezero tmm2", options(nostack, nomem));
        for _ in 0..iters {
            asm!(
                "tdpbusd tmm0, tmm3, tmm6",
                "tdpbusd tmm1, tmm4, tmm6",
                "tdpbusd tmm2, tmm5, tmm6",
                options(nostack, nomem)
            );
        }
    }
    iters * 3 * (TILE_ROWS * NR * TILE_K) as u64 * 2
}

/// The tile operations in plain Rust, as the instructions define them: the
/// same algorithm checked on any CPU.
#[cfg(test)]
#[derive(Clone)]
pub(in crate::kernels::compiled) struct Emulated {
    c: [[[i32; NR]; TILE_ROWS]; ROW_TILES],
    a: [[[u8; TILE_K]; TILE_ROWS]; ROW_TILES],
    b: [[i8; TILE_K]; TILE_ROWS],
}

#[cfg(test)]
impl Default for Emulated {
    fn default() -> Self {
        Self {
            c: [[[0; NR]; TILE_ROWS]; ROW_TILES],
            a: [[[0; TILE_K]; TILE_ROWS]; ROW_TILES],
            b: [[0; TILE_K]; TILE_ROWS],
        }
    }
}

#[cfg(test)]
impl Tiles for Emulated {
    unsafe fn zero(&mut self, t: usize) {
        self.c[t] = [[0; NR]; TILE_ROWS];
    }

    unsafe fn load_a(&mut self, t: usize, src: *const u8, stride: usize) {
        for (m, row) in self.a[t].iter_mut().enumerate() {
            // SAFETY: the caller's contract (16 rows of 64 bytes).
            row.copy_from_slice(unsafe { std::slice::from_raw_parts(src.add(m * stride), TILE_K) });
        }
    }

    unsafe fn load_b(&mut self, src: *const i8) {
        for (g, row) in self.b.iter_mut().enumerate() {
            // SAFETY: the caller's contract (1,024 bytes).
            row.copy_from_slice(unsafe { std::slice::from_raw_parts(src.add(g * TILE_K), TILE_K) });
        }
    }

    unsafe fn dot(&mut self, t: usize) {
        for (c_row, a_row) in self.c[t].iter_mut().zip(&self.a[t]) {
            for (n, sum) in c_row.iter_mut().enumerate() {
                for (g, b_row) in self.b.iter().enumerate() {
                    for i in 0..4 {
                        *sum += i32::from(a_row[4 * g + i]) * i32::from(b_row[4 * n + i]);
                    }
                }
            }
        }
    }

    unsafe fn store(&mut self, t: usize, dst: *mut i32) {
        for (m, row) in self.c[t].iter().enumerate() {
            for (n, &v) in row.iter().enumerate() {
                // SAFETY: the caller's contract (256 integers).
                unsafe { *dst.add(m * NR + n) = v };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Emulated, NR, QuantLayer, ROW_TILES, TILE_ROWS, panel_sums};

    /// The sums of every panel, for one to three row tiles, are the
    /// products of the rows' bytes with the integer weights as the layer
    /// lays them out (`weights[((p·k/4 + i/4)·16 + j)·4 + i%4]` for input
    /// `i` and column `j` of panel `p`), on the emulated tiles and, where
    /// the CPU has AMX-INT8, on AMX. Weights of both signs up to ±127 and
    /// inputs up to 127 (sums far past 16 bits).
    #[test]
    fn panel_sums_are_the_integer_products() {
        let (d_out, d_in) = (40, 192);
        let (k, n) = (192, 48);
        let w: Vec<f32> = (0..d_out * d_in).map(|i| ((i * 7919 % 255) as f32 - 127.0) / 16.0).collect();
        let layer = QuantLayer::new(&w, d_out, d_in, k, n);
        let rows = ROW_TILES * TILE_ROWS;
        let u: Vec<u8> = (0..rows * k).map(|i| (i * 31 % 128) as u8).collect();
        let q = |p: usize, i: usize, j: usize| i32::from(layer.weights[((p * k / 4 + i / 4) * NR + j) * 4 + i % 4]);
        assert!(layer.weights.iter().any(|&v| v == 127 || v == -127));
        let amx = crate::kernels::compiled::int8::Unit::AmxTiles.available();
        for p in 0..n / NR {
            for count in 1..=ROW_TILES {
                let mut got = vec![0; count * TILE_ROWS * NR];
                // SAFETY: `u` holds three tiles of 16 rows of k bytes, k a
                // multiple of 64, p < n / 16, `got` one tile of sums per row tile.
                unsafe { panel_sums(&mut Emulated::default(), u.as_ptr(), &layer, p, count, &mut got) };
                for r in 0..count * TILE_ROWS {
                    for j in 0..NR {
                        let want: i32 = (0..k).map(|i| i32::from(u[r * k + i]) * q(p, i, j)).sum();
                        assert_eq!(got[r * NR + j], want, "panel {p}, {count} row tiles: row {r}, column {j}");
                    }
                }
                #[cfg(target_arch = "x86_64")]
                if amx {
                    let mut on_amx = vec![0; got.len()];
                    crate::kernels::amx::configure();
                    // SAFETY: as above; AMX-INT8 is available and configured.
                    unsafe { panel_sums(&mut super::Amx, u.as_ptr(), &layer, p, count, &mut on_amx) };
                    crate::kernels::amx::release();
                    assert_eq!(on_amx, got, "AMX: panel {p}, {count} row tiles");
                }
            }
        }
        if !amx {
            eprintln!("no AMX-INT8 on this CPU: the sums are checked on the emulated tiles only");
        }
    }
}
