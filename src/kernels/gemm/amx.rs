//! The AMX kernel: a 32×32 block of `C` in four tile registers.
//!
//! Intel's Advanced Matrix Extensions hold eight tile registers of up to 16
//! rows × 64 bytes. `TDPBF16PS C, A, B` adds a 16×32 bf16 tile `A` times a
//! 32×16 bf16 tile `B` (stored as 16 rows of 16 pairs, the packed form of
//! `gemm`) into a 16×16 f32 tile `C`: 8,192 multiply-adds in one
//! instruction. The kernel keeps a 2×2 grid of `C` tiles (tmm0–tmm3) and,
//! per block of 32 values of `k`, loads two `A` tiles (tmm4, tmm5) and two
//! `B` tiles (tmm6, tmm7).
//!
//! The tile state (the OS's grant, the configuration every thread loads)
//! is [`crate::kernels::amx`]'s. Rust has no stable AMX intrinsics, so the
//! instructions are inline assembly.

pub(super) use crate::kernels::amx::{configure, release};
use std::arch::asm;

/// Whether this CPU has AMX-BF16 and the OS granted the tile state.
pub(super) fn available() -> bool {
    crate::kernels::amx::granted().bf16
}

/// `C[32×32] = [A0; A1] · [B0 B1]` over `blocks` tile blocks, stored at
/// `c` with row stride `ldc` floats.
///
/// # Safety
/// AMX is [`available`] and [`configure`] ran on this thread; each operand
/// slice holds at least `blocks` tiles of 256 `u32`; `c` is valid for
/// writes of 32 rows × 32 floats at row stride `ldc`.
pub(super) unsafe fn block(a0: &[u32], a1: &[u32], b0: &[u32], b1: &[u32], blocks: usize, c: *mut f32, ldc: usize) {
    const TILE_BYTES_PER_ROW: usize = 64;
    debug_assert!([a0, a1, b0, b1].iter().all(|t| t.len() >= blocks * 256));
    // SAFETY (whole function): the tile loads read 16 rows of 64 bytes
    // from the start of tile `blk`, inside each slice (the contract); the
    // stores write the 32×32 block the contract allows.
    unsafe {
        asm!("tilezero tmm0", "tilezero tmm1", "tilezero tmm2", "tilezero tmm3", options(nostack, nomem));
        for blk in 0..blocks {
            let off = blk * 256;
            asm!(
                "tileloadd tmm4, [{a0} + {s}]",
                "tileloadd tmm6, [{b0} + {s}]",
                "tdpbf16ps tmm0, tmm4, tmm6",
                "tileloadd tmm7, [{b1} + {s}]",
                "tdpbf16ps tmm1, tmm4, tmm7",
                "tileloadd tmm5, [{a1} + {s}]",
                "tdpbf16ps tmm2, tmm5, tmm6",
                "tdpbf16ps tmm3, tmm5, tmm7",
                a0 = in(reg) a0.as_ptr().add(off),
                a1 = in(reg) a1.as_ptr().add(off),
                b0 = in(reg) b0.as_ptr().add(off),
                b1 = in(reg) b1.as_ptr().add(off),
                s = in(reg) TILE_BYTES_PER_ROW,
                options(nostack, readonly),
            );
        }
        asm!(
            "tilestored [{c0} + {s}], tmm0",
            "tilestored [{c1} + {s}], tmm1",
            "tilestored [{c2} + {s}], tmm2",
            "tilestored [{c3} + {s}], tmm3",
            c0 = in(reg) c,
            c1 = in(reg) c.add(16),
            c2 = in(reg) c.add(16 * ldc),
            c3 = in(reg) c.add(16 * ldc + 16),
            s = in(reg) ldc * 4,
            options(nostack),
        );
    }
}

/// Multiply-add FLOPs of `iters` rounds of four independent `TDPBF16PS`
/// on tiles already loaded (the unit's peak, for benchmarks).
///
/// # Safety
/// AMX is [`available`] and [`configure`] ran on this thread.
pub(super) unsafe fn spin(iters: u64) -> f64 {
    // SAFETY: the caller's contract; the tiles hold whatever they hold.
    unsafe {
        asm!("tilezero tmm0", "tilezero tmm1", "tilezero tmm2", "tilezero tmm3", options(nostack, nomem));
        for _ in 0..iters {
            asm!(
                "tdpbf16ps tmm0, tmm4, tmm6",
                "tdpbf16ps tmm1, tmm4, tmm7",
                "tdpbf16ps tmm2, tmm5, tmm6",
                "tdpbf16ps tmm3, tmm5, tmm7",
                options(nostack, nomem)
            );
        }
    }
    (iters * 4 * 16 * 16 * 32 * 2) as f64
}
