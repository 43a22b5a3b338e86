//! The AMX tile state, shared by every AMX kernel: what the CPU offers
//! (CPUID), asking Linux for the tile data (`arch_prctl`), and loading the
//! tile configuration on a thread.
//!
//! Intel's Advanced Matrix Extensions hold eight tile registers of up to
//! 16 rows × 64 bytes. Linux grants a process the tile data state only on
//! request (`arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)`); every
//! thread then loads a configuration (`LDTILECFG`) before its first tile
//! instruction and may release the state (`TILERELEASE`) after its last,
//! so that context switches stop saving it. One configuration serves both
//! kernels: all eight tiles 16 rows × 64 bytes, which is a 16×32 bf16 or
//! 16×64 byte operand, and a 16×16 tile of f32 or 32-bit integer sums.
//! Rust has no stable AMX intrinsics, so the instructions are inline
//! assembly.

use std::arch::asm;
use std::sync::OnceLock;

/// The AMX units a CPU has (CPUID leaf 7, EDX bits 22, 24 and 25).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Units {
    /// `TDPBF16PS`.
    pub bf16: bool,
    /// `TDPBUSD` and the other byte products.
    pub int8: bool,
}

/// The AMX units this CPU has and the OS granted (none when the tile
/// state was refused). Asks Linux once per process.
pub fn granted() -> Units {
    static GRANTED: OnceLock<Units> = OnceLock::new();
    *GRANTED.get_or_init(|| {
        let units = cpu_units();
        if (units.bf16 || units.int8) && request_tile_state() { units } else { Units::default() }
    })
}

fn cpu_units() -> Units {
    use std::arch::x86_64::{__cpuid, __cpuid_count};
    if __cpuid(0).eax < 7 {
        return Units::default();
    }
    let edx = __cpuid_count(7, 0).edx;
    let tile = edx & (1 << 24) != 0;
    Units { bf16: tile && edx & (1 << 22) != 0, int8: tile && edx & (1 << 25) != 0 }
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

/// Loads the tile configuration on this thread. Call before any tile
/// instruction on every thread that runs them.
///
/// # Panics
/// When the OS did not grant the tile state ([`granted`] has no unit).
pub fn configure() {
    let units = granted();
    assert!(units.bf16 || units.int8, "AMX tiles configured on a CPU without them (or not granted by the OS)");
    // SAFETY: `CONFIG` is a valid 64-byte palette-1 configuration, and the
    // CPU has AMX with the state granted (asserted above).
    unsafe { asm!("ldtilecfg [{}]", in(reg) &raw const CONFIG, options(nostack, readonly)) };
}

/// Releases this thread's tile state.
pub fn release() {
    let units = granted();
    if units.bf16 || units.int8 {
        // SAFETY: TILERELEASE is valid whenever AMX is available.
        unsafe { asm!("tilerelease", options(nostack, nomem)) };
    }
}
