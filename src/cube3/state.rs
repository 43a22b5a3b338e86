//! [`Cube3`]: one cube state as 54 one-byte stickers.
//!
//! Each sticker holds its colour 0..6 (URFDLB, named after the face whose
//! centre has it). The array is padded to 64 bytes and 64-byte aligned so a
//! state is exactly one AVX-512 register; the padding is always zero.
//! Invariant: every `Cube3` value is a valid, reachable cube — states are
//! only made from the solved cube by turns, from validated facelet strings,
//! or from validated [`Cubies`].

use super::cubies::Cubies;
use super::geometry::{CORNER_FACELETS, EDGE_FACELETS, STICKERS, TURN_PERMS};
use super::permute;
use super::turn::Turn;

/// A 3×3×3 cube state: 54 stickers, one byte each.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[repr(C, align(64))]
pub struct Cube3 {
    stickers: [u8; 64],
}

/// Length of the one-hot encoding: 54 stickers × 6 colours.
pub const ONE_HOT_LEN: usize = STICKERS * 6;

/// The 40 stickers that determine a state: two of each corner, both of each
/// edge. Packed 3 bits each they make the 120-bit [`Cube3::key`].
const KEY_FACELETS: [u8; 40] = {
    let mut k = [0u8; 40];
    let mut i = 0;
    while i < 8 {
        k[2 * i] = CORNER_FACELETS[i][0];
        k[2 * i + 1] = CORNER_FACELETS[i][1];
        i += 1;
    }
    let mut j = 0;
    while j < 12 {
        k[16 + 2 * j] = EDGE_FACELETS[j][0];
        k[16 + 2 * j + 1] = EDGE_FACELETS[j][1];
        j += 1;
    }
    k
};

impl Cube3 {
    /// The solved cube.
    pub const SOLVED: Cube3 = {
        let mut s = [0u8; 64];
        let mut i = 0;
        while i < STICKERS {
            s[i] = (i / 9) as u8;
            i += 1;
        }
        Cube3 { stickers: s }
    };

    /// The solved cube.
    #[must_use]
    pub const fn solved() -> Self {
        Self::SOLVED
    }

    /// The 54 sticker colours (0..6, URFDLB).
    #[inline]
    #[must_use]
    pub fn stickers(&self) -> &[u8] {
        &self.stickers[..STICKERS]
    }

    /// The cube with the given pieces (which must satisfy the validity
    /// rules; [`Cubies::from_stickers`] and [`Cubies::random`] ensure it).
    #[must_use]
    pub fn from_cubies(c: &Cubies) -> Self {
        let mut s = [0u8; 64];
        s[..STICKERS].copy_from_slice(&c.to_stickers());
        Self { stickers: s }
    }

    /// The pieces of this cube.
    #[must_use]
    pub fn cubies(&self) -> Cubies {
        Cubies::from_stickers(self.stickers()).expect("Cube3 invariant: every state is a valid cube")
    }

    /// The state reached from solved by `turns`.
    #[must_use]
    pub fn from_turns(turns: &[Turn]) -> Self {
        let mut c = Self::SOLVED;
        c.apply_turns(turns);
        c
    }

    /// Applies one turn in place.
    #[inline]
    pub fn apply_turn(&mut self, t: Turn) {
        permute::permute(&mut self.stickers, &TURN_PERMS[t.id() as usize]);
    }

    /// Applies a sequence of turns in place.
    #[inline]
    pub fn apply_turns(&mut self, turns: &[Turn]) {
        permute::permute_seq(&mut self.stickers, turns.iter().map(|t| &TURN_PERMS[t.id() as usize]));
    }

    /// Writes the state after each turn of `turns` (one child per turn).
    #[inline]
    pub fn children(&self, turns: &[&[u8; 64]], out: &mut [Cube3]) {
        // SAFETY: Cube3 is repr(C) with a single [u8; 64] field, so a slice of
        // Cube3 is a slice of [u8; 64] of the same length.
        let out_raw: &mut [[u8; 64]] =
            unsafe { std::slice::from_raw_parts_mut(out.as_mut_ptr().cast::<[u8; 64]>(), out.len()) };
        permute::children(&self.stickers, turns, out_raw);
    }

    /// Whether this is the solved cube.
    #[inline]
    #[must_use]
    pub fn is_solved(&self) -> bool {
        *self == Self::SOLVED
    }

    /// A compact exact key: 40 determining stickers × 3 bits = 120 bits.
    #[inline]
    #[must_use]
    pub fn key(&self) -> u128 {
        let mut k = 0u128;
        for &f in &KEY_FACELETS {
            k = (k << 3) | u128::from(self.stickers[f as usize]);
        }
        k
    }

    /// Writes the one-hot encoding (sticker-major: `out[6 * i + colour]`)
    /// into `out[..324]`, overwriting every entry.
    #[inline]
    pub fn encode_one_hot(&self, out: &mut [f32]) {
        let out = &mut out[..ONE_HOT_LEN];
        out.fill(0.0);
        for (i, &c) in self.stickers[..STICKERS].iter().enumerate() {
            out[6 * i + c as usize] = 1.0;
        }
    }
}

impl Default for Cube3 {
    fn default() -> Self {
        Self::SOLVED
    }
}
