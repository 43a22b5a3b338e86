//! [`Cube2`]: one 2×2×2 position, its dense index, uniform random
//! positions and the one-hot encoding.
//!
//! A 2×2×2 has no centres, so a position is only defined up to a
//! whole-cube rotation. The model fixes the rotation by keeping the DBL
//! piece home with its D colour down: the moves are U, R and F only (none
//! of them moves DBL), and a sticker string in any orientation is turned
//! by the one rotation that brings DBL home untwisted. Invariant: every
//! `Cube2` is a real cube in that orientation, so the goal is unique and
//! the positions are the 7!·3^6 = 3,674,160 arrangements of the other
//! seven corners ([`N_STATES`]); [`Cube2::index`] numbers them densely.

use super::corners::{self, Corners, DBL, STICKERS};
use crate::cube3::Turn;
use crate::cube3::coord::{rank_perm, unrank_perm};
use rand::{Rng, RngExt};

/// Number of positions: 7!·3^6.
pub const N_STATES: u32 = 3_674_160;

/// Twists of the first six movable corners: 3^6.
const N_TWISTS: u32 = 729;

/// The slots of the seven corners that move, in index order.
const MOVABLE: [usize; 7] = [0, 1, 2, 3, 4, 5, 7];

/// Length of the one-hot encoding: 24 stickers × 6 colours.
pub const ONE_HOT_LEN: usize = STICKERS * 6;

/// A 2×2×2 position: the eight corners, DBL home and untwisted.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Cube2 {
    corners: Corners,
}

impl Cube2 {
    /// The solved cube.
    pub const SOLVED: Cube2 = Cube2 { corners: Corners::SOLVED };

    /// The cube whose corners are `c` after the whole-cube rotation that
    /// brings the DBL piece home with its D colour down. `c` must be a real
    /// cube (distinct pieces, twists summing to 0 mod 3).
    pub(super) fn oriented(c: &Corners) -> Cube2 {
        corners::rotations()
            .iter()
            .map(|r| c.then(r))
            .find(|o| o.cp[DBL] == DBL as u8 && o.co[DBL] == 0)
            .map(|corners| Cube2 { corners })
            .expect("one rotation brings any corner home untwisted")
    }

    /// The pieces.
    #[must_use]
    pub fn corners(&self) -> Corners {
        self.corners
    }

    /// Whether this is the solved cube.
    #[inline]
    #[must_use]
    pub fn is_solved(&self) -> bool {
        *self == Self::SOLVED
    }

    /// Applies one turn of U, R or F in place.
    ///
    /// # Panics
    /// For a turn of D, L or B (the model keeps DBL fixed; parse moves with
    /// [`super::notation::parse`], which refuses them).
    #[inline]
    pub fn apply_turn(&mut self, t: Turn) {
        assert!(t.face() < 3, "the 2×2×2 model turns U, R and F only, not {t}");
        self.corners = self.corners.then(corners::turn(t));
    }

    /// The position reached from solved by `turns` (U, R and F only; see
    /// [`Cube2::apply_turn`]).
    #[must_use]
    pub fn from_turns(turns: &[Turn]) -> Cube2 {
        let mut c = Cube2::SOLVED;
        for &t in turns {
            c.apply_turn(t);
        }
        c
    }

    /// The dense index in `0..N_STATES`: the Lehmer rank of the seven
    /// movable corners' permutation (slots URF UFL ULB UBR DFR DLF DRB,
    /// piece DRB counted as 6) times 3^6, plus the twists of the first six
    /// of them in base 3 (URF's the lowest digit; DRB's twist follows from
    /// the others). The solved cube is 0.
    #[inline]
    #[must_use]
    pub fn index(&self) -> u32 {
        // Pieces 0..6 and 7 (DBL, piece 6, never leaves its slot).
        let perm: [u8; 7] = std::array::from_fn(|i| self.corners.cp[MOVABLE[i]].min(6));
        let twist = self.corners.co[..6].iter().rev().fold(0u32, |r, &x| r * 3 + u32::from(x));
        rank_perm(&perm) * N_TWISTS + twist
    }

    /// The position with index `i` (the inverse of [`Cube2::index`]).
    ///
    /// # Panics
    /// If `i >= N_STATES` (a programming error: indices come from
    /// [`Cube2::index`] or a range over `0..N_STATES`).
    #[must_use]
    pub fn from_index(i: u32) -> Cube2 {
        assert!(i < N_STATES, "2×2×2 index {i} is not below {N_STATES}");
        let perm: [u8; 7] = unrank_perm(i / N_TWISTS);
        let mut c = Corners::SOLVED;
        for (k, &slot) in MOVABLE.iter().enumerate() {
            c.cp[slot] = MOVABLE[perm[k] as usize] as u8;
        }
        let (mut t, mut sum) = (i % N_TWISTS, 0);
        for x in &mut c.co[..6] {
            *x = (t % 3) as u8;
            sum += *x;
            t /= 3;
        }
        c.co[7] = (3 - sum % 3) % 3;
        Cube2 { corners: c }
    }

    /// A uniformly random position (each of the 3,674,160 equally likely).
    pub fn random<R: Rng + ?Sized>(rng: &mut R) -> Cube2 {
        Cube2::from_index(rng.random_range(0..N_STATES))
    }

    /// The 24 sticker colours (0..6, URFDLB).
    #[must_use]
    pub fn stickers(&self) -> [u8; STICKERS] {
        self.corners.to_stickers()
    }

    /// Writes the one-hot encoding (sticker-major: `out[6 * i + colour]`)
    /// into `out[..144]`, overwriting every entry.
    #[inline]
    pub fn encode_one_hot(&self, out: &mut [f32]) {
        let out = &mut out[..ONE_HOT_LEN];
        out.fill(0.0);
        for (i, &c) in self.stickers().iter().enumerate() {
            out[6 * i + c as usize] = 1.0;
        }
    }
}

impl Default for Cube2 {
    fn default() -> Self {
        Self::SOLVED
    }
}
