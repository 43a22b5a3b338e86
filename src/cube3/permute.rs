//! Applying sticker permutations fast: one AVX-512 VBMI byte shuffle per
//! move where the CPU has it, a portable gather elsewhere.
//!
//! A cube state is 64 bytes (54 stickers and 10 zero padding bytes), so a
//! whole state fits one 512-bit register and `vpermb` applies any move in a
//! single instruction. The instruction set is detected at run time (the
//! check is a cached atomic load); when the crate is compiled with
//! `avx512vbmi` enabled (e.g. `-C target-cpu=native`) the check folds away.
//! The portable path computes the same permutation byte by byte, and the
//! tests run both and compare.

/// Whether the AVX-512 VBMI path is available on this CPU.
#[inline]
#[must_use]
pub fn has_vbmi() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        cfg!(target_feature = "avx512vbmi") || std::arch::is_x86_feature_detected!("avx512vbmi")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Portable gather: `state[i] = old[perm[i]]`.
#[inline]
pub fn permute_portable(state: &mut [u8; 64], perm: &[u8; 64]) {
    let old = *state;
    for (dst, &p) in state.iter_mut().zip(perm.iter()) {
        *dst = old[(p & 63) as usize];
    }
}

/// `state[i] = old[perm[i]]`, using `vpermb` when available.
#[inline]
pub fn permute(state: &mut [u8; 64], perm: &[u8; 64]) {
    #[cfg(target_arch = "x86_64")]
    if has_vbmi() {
        // SAFETY: the CPU supports AVX-512 VBMI (checked above).
        unsafe { vbmi::permute(state, perm) };
        return;
    }
    permute_portable(state, perm);
}

/// Applies the permutations in `perms` in order to `state`, keeping the
/// state in a register between moves on the SIMD path.
#[inline]
pub fn permute_seq<'a>(state: &mut [u8; 64], perms: impl IntoIterator<Item = &'a [u8; 64]>) {
    #[cfg(target_arch = "x86_64")]
    if has_vbmi() {
        // SAFETY: the CPU supports AVX-512 VBMI (checked above).
        unsafe { vbmi::permute_seq(state, perms) };
        return;
    }
    for p in perms {
        permute_portable(state, p);
    }
}

/// Writes `perm_k(parent)` into `out[k]` for every permutation `perms[k]`.
#[inline]
pub fn children(parent: &[u8; 64], perms: &[&[u8; 64]], out: &mut [[u8; 64]]) {
    assert_eq!(perms.len(), out.len(), "children: one output per permutation");
    #[cfg(target_arch = "x86_64")]
    if has_vbmi() {
        // SAFETY: the CPU supports AVX-512 VBMI (checked above).
        unsafe { vbmi::children(parent, perms, out) };
        return;
    }
    for (o, p) in out.iter_mut().zip(perms) {
        *o = *parent;
        permute_portable(o, p);
    }
}

#[cfg(target_arch = "x86_64")]
mod vbmi {
    use std::arch::x86_64::{__m512i, _mm512_loadu_si512, _mm512_permutexvar_epi8, _mm512_storeu_si512};

    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    pub(super) unsafe fn permute(state: &mut [u8; 64], perm: &[u8; 64]) {
        // SAFETY: both arrays are 64 readable/writable bytes.
        unsafe {
            let s = _mm512_loadu_si512(state.as_ptr().cast::<__m512i>());
            let p = _mm512_loadu_si512(perm.as_ptr().cast::<__m512i>());
            _mm512_storeu_si512(state.as_mut_ptr().cast::<__m512i>(), _mm512_permutexvar_epi8(p, s));
        }
    }

    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    pub(super) unsafe fn permute_seq<'a>(state: &mut [u8; 64], perms: impl IntoIterator<Item = &'a [u8; 64]>) {
        // SAFETY: every array is 64 readable/writable bytes.
        unsafe {
            let mut s = _mm512_loadu_si512(state.as_ptr().cast::<__m512i>());
            for perm in perms {
                let p = _mm512_loadu_si512(perm.as_ptr().cast::<__m512i>());
                s = _mm512_permutexvar_epi8(p, s);
            }
            _mm512_storeu_si512(state.as_mut_ptr().cast::<__m512i>(), s);
        }
    }

    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    pub(super) unsafe fn children(parent: &[u8; 64], perms: &[&[u8; 64]], out: &mut [[u8; 64]]) {
        // SAFETY: every array is 64 readable/writable bytes.
        unsafe {
            let s = _mm512_loadu_si512(parent.as_ptr().cast::<__m512i>());
            for (o, perm) in out.iter_mut().zip(perms) {
                let p = _mm512_loadu_si512(perm.as_ptr().cast::<__m512i>());
                _mm512_storeu_si512(o.as_mut_ptr().cast::<__m512i>(), _mm512_permutexvar_epi8(p, s));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cube3::geometry::TURN_PERMS;

    #[test]
    fn simd_and_portable_paths_agree() {
        let mut a = [0u8; 64];
        for (i, x) in a.iter_mut().enumerate() {
            *x = i as u8;
        }
        let mut b = a;
        // A fixed pseudo-random sequence of all 18 turns.
        let mut x = 12345u32;
        let mut seq = Vec::new();
        for _ in 0..500 {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            seq.push(&TURN_PERMS[(x >> 16) as usize % 18]);
        }
        for p in &seq {
            permute(&mut a, p);
            permute_portable(&mut b, p);
            assert_eq!(a, b);
        }
        let mut c = [0u8; 64];
        for (i, x) in c.iter_mut().enumerate() {
            *x = i as u8;
        }
        permute_seq(&mut c, seq.iter().copied());
        assert_eq!(c, a);
        let mut kids = [[0u8; 64]; 18];
        let perms: Vec<&[u8; 64]> = TURN_PERMS.iter().collect();
        children(&a, &perms, &mut kids);
        for (k, p) in kids.iter().zip(&perms) {
            let mut d = a;
            permute_portable(&mut d, p);
            assert_eq!(*k, d);
        }
    }
}
