//! The AVX512-BF16 kernel: a 32×32 block of `C` as four strips of 8 rows.
//!
//! `VDPBF16PS acc, a, b` adds, in each of 16 f32 lanes, the two products
//! of the lane's bf16 pair in `a` and in `b`. With one pair of `A`
//! broadcast to every lane and one row of a packed `B` tile (16 columns'
//! pairs), each instruction advances 16 entries of a row of `C` by two
//! values of `k`. A strip keeps 8 rows × 32 columns of `C` in 16
//! registers. On AMD Zen 4 the instruction runs at twice the f32 FMA rate;
//! on the Xeons measured here at half of it, so AMX is chosen there
//! (`Kernel::detect`).

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::{
    __m512, __m512bh, __m512i, _mm512_dpbf16_ps, _mm512_loadu_si512, _mm512_set1_epi32, _mm512_setzero_ps,
    _mm512_storeu_ps,
};

/// Whether this CPU has AVX512-BF16 (and AVX-512 F).
pub(super) fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f") && std::arch::is_x86_feature_detected!("avx512bf16")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Whether `VDPBF16PS` outruns the f32 FMA on this CPU, so that the
/// products of `[backend] matmul = "bf16"` gain by running on it: on AMD
/// (Zen 4, Zen 5) it advances twice the f32 FMA's multiply-adds per cycle;
/// on Intel's Xeons half of them, slower than the same function as rounded
/// operands in the f32 product (measured in
/// `benches/results/train-vs-pytorch-xeon-avx512bf16-2026-12-02.txt`).
pub(super) fn outruns_f32() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        // The vendor string "AuthenticAMD", in EBX, EDX, ECX of leaf 0.
        let r = std::arch::x86_64::__cpuid(0);
        (r.ebx, r.edx, r.ecx) == (0x6874_7541, 0x6974_6e65, 0x444d_4163)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// `C[32×32] = [A0; A1] · [B0 B1]` over `blocks` tile blocks, stored at
/// `c` with row stride `ldc` floats.
///
/// # Safety
/// [`available`] is true; each operand slice holds at least `blocks`
/// tiles of 256 `u32`; `c` is valid for writes of 32 rows × 32 floats at
/// row stride `ldc`.
#[cfg(target_arch = "x86_64")]
pub(super) unsafe fn block(a0: &[u32], a1: &[u32], b0: &[u32], b1: &[u32], blocks: usize, c: *mut f32, ldc: usize) {
    for (tile, a) in [a0, a1].into_iter().enumerate() {
        for half in 0..2 {
            // SAFETY: the caller's contract, for rows 16·tile + 8·half.. of `c`.
            unsafe { strip(a, half * 8, b0, b1, blocks, c.add((tile * 16 + half * 8) * ldc), ldc) };
        }
    }
}

#[cfg(not(target_arch = "x86_64"))]
pub(super) unsafe fn block(_: &[u32], _: &[u32], _: &[u32], _: &[u32], _: usize, _: *mut f32, _: usize) {
    unreachable!("AVX512-BF16 is never available off x86-64")
}

/// Rows `row0..row0 + 8` of the tiles in `a` times the column tiles `b0`,
/// `b1`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bf16")]
unsafe fn strip(a: &[u32], row0: usize, b0: &[u32], b1: &[u32], blocks: usize, c: *mut f32, ldc: usize) {
    const ROWS: usize = 8;
    let mut acc: [[__m512; 2]; ROWS] = [[_mm512_setzero_ps(); 2]; ROWS];
    for blk in 0..blocks {
        let ta = &a[blk * 256..(blk + 1) * 256];
        let (tb0, tb1) = (&b0[blk * 256..(blk + 1) * 256], &b1[blk * 256..(blk + 1) * 256]);
        for p in 0..16 {
            // SAFETY: each row of a B tile is 16 `u32` (64 bytes) inside the slice.
            let (x0, x1): (__m512bh, __m512bh) = unsafe {
                (
                    std::mem::transmute::<__m512i, __m512bh>(_mm512_loadu_si512(tb0[p * 16..].as_ptr().cast())),
                    std::mem::transmute::<__m512i, __m512bh>(_mm512_loadu_si512(tb1[p * 16..].as_ptr().cast())),
                )
            };
            for (r, acc) in acc.iter_mut().enumerate() {
                let s = _mm512_set1_epi32(ta[(row0 + r) * 16 + p] as i32);
                // SAFETY: a bit-for-bit reinterpretation of 64 bytes.
                let s = unsafe { std::mem::transmute::<__m512i, __m512bh>(s) };
                acc[0] = _mm512_dpbf16_ps(acc[0], s, x0);
                acc[1] = _mm512_dpbf16_ps(acc[1], s, x1);
            }
        }
    }
    for (r, acc) in acc.iter().enumerate() {
        // SAFETY: row r of the strip has 32 writable floats (the contract).
        unsafe {
            _mm512_storeu_ps(c.add(r * ldc), acc[0]);
            _mm512_storeu_ps(c.add(r * ldc + 16), acc[1]);
        }
    }
}

/// Multiply-add FLOPs of `iters` rounds of twelve independent `VDPBF16PS`
/// (the instruction's peak, for benchmarks).
///
/// # Safety
/// [`available`] is true.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bf16")]
pub(super) unsafe fn spin(iters: u64) -> f64 {
    let x = _mm512_set1_epi32(0x3a83_3a83);
    // SAFETY: a bit-for-bit reinterpretation of 64 bytes.
    let x = unsafe { std::mem::transmute::<__m512i, __m512bh>(x) };
    let mut acc = [_mm512_setzero_ps(); 12];
    for _ in 0..iters {
        for a in &mut acc {
            *a = _mm512_dpbf16_ps(*a, x, x);
        }
    }
    std::hint::black_box(acc);
    (iters * 12 * 32 * 2) as f64
}

/// FLOPs of `iters` rounds of twelve independent f32 `VFMADD` on 16
/// lanes: the f32 product's peak on this core, which [`outruns_f32`] is
/// held against in tests.
///
/// # Safety
/// AVX-512 F is available.
#[cfg(all(test, target_arch = "x86_64"))]
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn spin_f32(iters: u64) -> f64 {
    use std::arch::x86_64::{_mm512_fmadd_ps, _mm512_set1_ps};
    let x = _mm512_set1_ps(0.999_9);
    let mut acc = [_mm512_setzero_ps(); 12];
    for _ in 0..iters {
        for a in &mut acc {
            *a = _mm512_fmadd_ps(*a, x, x);
        }
    }
    std::hint::black_box(acc);
    (iters * 12 * 16 * 2) as f64
}

#[cfg(all(test, not(target_arch = "x86_64")))]
pub(super) unsafe fn spin_f32(_: u64) -> f64 {
    unreachable!("AVX-512 is never available off x86-64")
}

#[cfg(not(target_arch = "x86_64"))]
pub(super) unsafe fn spin(_: u64) -> f64 {
    unreachable!("AVX512-BF16 is never available off x86-64")
}
