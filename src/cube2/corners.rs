//! The corners of a cube as pieces ([`Corners`]), the 2×2×2's sticker
//! layout, and its face turns and whole-cube rotations.
//!
//! The 24 stickers of the 2×2×2 are the corner stickers of the 3×3×3's
//! facelet layout: sticker `(r, c)` of a face (r, c ∈ {0, 1}, read as in
//! [`crate::cube3::geometry`]) is the 3×3×3's sticker `(2r, 2c)` of that
//! face. So the corner slots, the 18 face turns and the 24 whole-cube
//! rotations are all derived from the 3×3×3's sticker model; nothing is
//! typed by hand. Slots and pieces follow Kociemba's numbering (URF UFL
//! ULB UBR DFR DLF DBL DRB); a [`Corners`] value is in gather form like
//! [`crate::cube3::Cubies`]: slot `s` holds piece `cp[s]` with twist
//! `co[s]`, the position of its U/D colour in the slot's clockwise list.

use super::error::Cube2Error;
use crate::cube3::Turn;
use crate::cube3::cubies::read_corners;
use crate::cube3::geometry::{self as g3, CORNER_COLOURS, TURN_PERMS};
use std::sync::LazyLock;

/// Number of stickers of the 2×2×2.
pub const STICKERS: usize = 24;

/// The 2×2×2 sticker at a 3×3×3 corner facelet (`face * 9 + 3r + c` with
/// r, c ∈ {0, 2} → `face * 4 + 2(r/2) + c/2`).
const fn from_cube3(f: u8) -> u8 {
    let (face, k) = (f / 9, f % 9);
    face * 4 + (k / 6) * 2 + (k % 3) / 2
}

/// The 3×3×3 facelet of 2×2×2 sticker `f`.
const fn to_cube3(f: u8) -> u8 {
    let (face, k) = (f / 4, f % 4);
    face * 9 + (k / 2) * 6 + (k % 2) * 2
}

/// Stickers of the 8 corner slots (URF UFL ULB UBR DFR DLF DBL DRB), each
/// listed clockwise starting with its U or D sticker.
pub const CORNER_FACELETS: [[u8; 3]; 8] = {
    let mut out = [[0u8; 3]; 8];
    let mut s = 0;
    while s < 8 {
        let mut k = 0;
        while k < 3 {
            out[s][k] = from_cube3(g3::CORNER_FACELETS[s][k]);
            k += 1;
        }
        s += 1;
    }
    out
};

/// The corner slot of the DBL piece, which the 2×2×2 model keeps fixed.
pub const DBL: usize = 6;

/// Eight corner pieces in eight slots, with their twists (gather form).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Corners {
    /// `cp[slot]` = corner piece in corner slot `slot`.
    pub cp: [u8; 8],
    /// `co[slot]` = twist (0..3) of the corner in `slot`.
    pub co: [u8; 8],
}

impl Corners {
    /// Every piece home, untwisted.
    pub const SOLVED: Corners = Corners { cp: [0, 1, 2, 3, 4, 5, 6, 7], co: [0; 8] };

    /// `self` followed by `b` (the product of [`crate::cube3::coord::multiply`]).
    #[inline]
    #[must_use]
    pub fn then(&self, b: &Corners) -> Corners {
        let mut c = Corners::SOLVED;
        for s in 0..8 {
            let from = b.cp[s] as usize;
            c.cp[s] = self.cp[from];
            c.co[s] = (self.co[from] + b.co[s]) % 3;
        }
        c
    }

    /// Reads 24 sticker colours (0..6, URFDLB) as 8 distinct corner
    /// pieces, slot by slot. The twists are read but not checked.
    pub fn from_stickers(f: &[u8; STICKERS]) -> Result<Corners, Cube2Error> {
        let (cp, co) = read_corners(|slot| CORNER_FACELETS[slot].map(|i| f[i as usize]))?;
        Ok(Corners { cp, co })
    }

    /// The sum of the twists mod 3 (0 for every real cube).
    #[must_use]
    pub fn twist_sum(&self) -> u32 {
        self.co.iter().map(|&x| u32::from(x)).sum::<u32>() % 3
    }

    /// The 24 sticker colours (0..6, URFDLB).
    #[must_use]
    pub fn to_stickers(&self) -> [u8; STICKERS] {
        let mut f = [0u8; STICKERS];
        for slot in 0..8 {
            let (piece, twist) = (self.cp[slot] as usize, self.co[slot] as usize);
            for k in 0..3 {
                f[CORNER_FACELETS[slot][(k + twist) % 3] as usize] = CORNER_COLOURS[piece][k];
            }
        }
        f
    }
}

/// The 18 face turns of the 3×3×3 restricted to its corners, by turn id:
/// each 3×3×3 sticker permutation applied to the solved 2×2×2 stickers and
/// read back as pieces.
static TURNS: LazyLock<[Corners; 18]> = LazyLock::new(|| {
    let solved = Corners::SOLVED.to_stickers();
    std::array::from_fn(|t| {
        let perm = &TURN_PERMS[t];
        let turned: [u8; STICKERS] =
            std::array::from_fn(|j| solved[from_cube3(perm[to_cube3(j as u8) as usize]) as usize]);
        Corners::from_stickers(&turned).expect("a face turn moves corner stickers onto corner stickers")
    })
});

/// The face turn `t` on the corners (any of the 18 turns; the 2×2×2 model
/// makes only those of U, R and F).
#[inline]
#[must_use]
pub fn turn(t: Turn) -> &'static Corners {
    &TURNS[t.id() as usize]
}

/// The 24 whole-cube rotations on the corners, the identity first. On the
/// corners a rotation is a pair of opposite face turns (x = R L',
/// y = U D'); the 24 are the closure of x and y.
pub fn rotations() -> &'static [Corners; 24] {
    static ROTATIONS: LazyLock<[Corners; 24]> = LazyLock::new(|| {
        let pair = |a: Turn, b: Turn| turn(a).then(turn(b));
        let x = pair(Turn::new(1, 1), Turn::new(4, 3));
        let y = pair(Turn::new(0, 1), Turn::new(3, 3));
        let mut all = vec![Corners::SOLVED];
        let mut i = 0;
        while i < all.len() {
            for g in [&x, &y] {
                let r = all[i].then(g);
                if !all.contains(&r) {
                    all.push(r);
                }
            }
            i += 1;
        }
        all.try_into().expect("the cube has 24 rotations")
    });
    &ROTATIONS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sticker_maps_are_inverse_and_cover_the_corners() {
        let mut seen = [false; STICKERS];
        for f in 0..STICKERS as u8 {
            assert_eq!(from_cube3(to_cube3(f)), f);
            seen[f as usize] = true;
        }
        let mut from_slots: Vec<u8> = CORNER_FACELETS.iter().flatten().copied().collect();
        from_slots.sort_unstable();
        assert_eq!(from_slots, (0..STICKERS as u8).collect::<Vec<_>>());
        assert!(seen.iter().all(|&x| x));
    }

    #[test]
    fn turns_of_u_r_f_fix_dbl_and_rotations_are_distinct() {
        for face in 0..3 {
            let t = turn(Turn::new(face, 1));
            assert_eq!((t.cp[DBL], t.co[DBL]), (DBL as u8, 0));
        }
        // Each rotation puts DBL's piece in a different slot or twist.
        let mut places: Vec<(usize, u8)> = rotations()
            .iter()
            .map(|r| {
                let slot = r.cp.iter().position(|&p| p == DBL as u8).unwrap();
                (slot, r.co[slot])
            })
            .collect();
        places.sort_unstable();
        places.dedup();
        assert_eq!(places.len(), 24);
    }
}
