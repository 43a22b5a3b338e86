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
//! Linux grants a process the tile data state only on request
//! (`arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)`); [`available`]
//! checks the CPU (CPUID) and makes that request once. Every thread loads
//! the tile configuration before its first tile instruction
//! ([`configure`]). Rust has no stable AMX intrinsics, so the instructions
//! are inline assembly.

use std::arch::asm;
use std::sync::OnceLock;

/// Whether this CPU has AMX-BF16 and the OS granted the tile state.
pub(super) fn available() -> bool {
    static GRANTED: OnceLock<bool> = OnceLock::new();
    *GRANTED.get_or_init(|| cpu_has_amx_bf16() && request_tile_state())
}

fn cpu_has_amx_bf16() -> bool {
    use std::arch::x86_64::{__cpuid, __cpuid_count};
    let max_leaf = __cpuid(0).eax;
    if max_leaf < 7 {
        return false;
    }
    let edx = __cpuid_count(7, 0).edx;
    let (amx_bf16, amx_tile) = (edx & (1 << 22) != 0, edx & (1 << 24) != 0);
    amx_bf16 && amx_tile
}

/// Asks Linux for the AMX tile data state (`arch_prctl`, code 0x1023,
/// feature 18); true when it is granted.
#[cfg(target_os = "linux")]
fn request_tile_state() -> bool {
    const ARCH_REQ_XCOMP_PERM: libc::c_long = 0x1023;
    const XFEATURE_XTILEDATA: libc::c_long = 18;
    // SAFETY: arch_prctl with ARCH_REQ_XCOMP_PERM only changes the
    // process's permitted extended state; it reads no memory of ours.
    let rc = unsafe { libc::syscall(libc::SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) };
    rc == 0
}

#[cfg(not(target_os = "linux"))]
fn request_tile_state() -> bool {
    false
}

/// The `LDTILECFG` operand: palette 1, all eight tiles 16 rows × 64 bytes.
#[repr(C, align(64))]
struct TileConfig {
    palette: u8,
    start_row: u8,
    reserved: [u8; 14],
    colsb: [u16; 16],
    rows: [u8; 16],
}

/// Entries past the eight tiles must be zero, or `LDTILECFG` faults.
static CONFIG: TileConfig = TileConfig {
    palette: 1,
    start_row: 0,
    reserved: [0; 14],
    colsb: [64, 64, 64, 64, 64, 64, 64, 64, 0, 0, 0, 0, 0, 0, 0, 0],
    rows: [16, 16, 16, 16, 16, 16, 16, 16, 0, 0, 0, 0, 0, 0, 0, 0],
};

/// Loads the tile configuration on this thread. Call before [`block`] on
/// every thread that runs it, after [`available`] returned true.
pub(super) fn configure() {
    // SAFETY: `CONFIG` is a valid 64-byte palette-1 configuration; the
    // caller checked `available` (the CPU has AMX and the state is granted).
    unsafe { asm!("ldtilecfg [{}]", in(reg) &raw const CONFIG, options(nostack, readonly)) };
}

/// Releases this thread's tile state (so that context switches stop
/// saving it).
pub(super) fn release() {
    // SAFETY: TILERELEASE is valid whenever AMX is available.
    unsafe { asm!("tilerelease", options(nostack, nomem)) };
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
