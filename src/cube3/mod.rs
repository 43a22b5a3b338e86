//! The 3×3×3 Rubik's cube: sticker model, moves, notation, validation, and
//! its [`Puzzle`] implementation [`Cube3Puzzle`].
//!
//! States are [`Cube3`] values (54 one-byte stickers padded to 64 bytes);
//! turns are precomputed sticker permutations derived from a 3-D model in
//! [`geometry`] and applied with one AVX-512 byte shuffle where available
//! ([`permute`]). [`Cube3Puzzle`] exposes either metric's move set.

pub mod coord;
pub mod cubies;
pub mod facelets;
pub mod geometry;
pub mod korf_cube;
pub mod notation;
pub mod permute;
pub mod state;
pub mod symmetry;
pub mod turn;

pub use cubies::{Cubies, FaceletError};
pub use state::{Cube3, ONE_HOT_LEN};
pub use turn::{Metric, Turn};

use crate::puzzle::{MoveId, Puzzle, Recent};
use geometry::TURN_PERMS;

/// The cube as a puzzle with the move set of one metric.
///
/// ```
/// use cube_oracle::cube3::{Cube3Puzzle, Metric};
/// use cube_oracle::puzzle::Puzzle;
///
/// let p = Cube3Puzzle::new(Metric::Qtm);
/// assert_eq!(p.num_moves(), 12);
/// let mut s = p.goal();
/// // A quarter turn four times, and a move then its inverse, are the identity.
/// for turns in 1..=4 {
///     p.apply(&mut s, 0);
///     assert_eq!(p.is_goal(&s), turns == 4);
/// }
/// p.apply(&mut s, 3);
/// assert!(!p.is_goal(&s));
/// p.apply(&mut s, p.inverse(3));
/// assert!(p.is_goal(&s));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Cube3Puzzle {
    /// The move metric (QTM: 12 moves, HTM: 18).
    pub metric: Metric,
}

impl Cube3Puzzle {
    /// The cube with `metric`'s move set.
    #[must_use]
    pub const fn new(metric: Metric) -> Self {
        Self { metric }
    }

    /// The turn made by move `m`.
    #[inline]
    #[must_use]
    pub fn turn(&self, m: MoveId) -> Turn {
        self.metric.turn(m)
    }

    /// Gather permutations of every move, indexed by move id.
    #[must_use]
    pub fn move_perms(&self) -> Vec<&'static [u8; 64]> {
        self.metric.turns().iter().map(|t| &TURN_PERMS[t.id() as usize]).collect()
    }
}

impl Puzzle for Cube3Puzzle {
    type State = Cube3;
    type Key = u128;

    fn name(&self) -> String {
        format!("cube3-{}", self.metric)
    }

    #[inline]
    fn num_moves(&self) -> usize {
        self.metric.num_moves()
    }

    fn move_name(&self, m: MoveId) -> &str {
        self.turn(m).name()
    }

    #[inline]
    fn inverse(&self, m: MoveId) -> MoveId {
        self.metric.move_id(self.turn(m).inverse()).expect("both metrics are closed under inverse")
    }

    fn goal(&self) -> Cube3 {
        Cube3::SOLVED
    }

    #[inline]
    fn is_goal(&self, s: &Cube3) -> bool {
        s.is_solved()
    }

    #[inline]
    fn apply(&self, s: &mut Cube3, m: MoveId) {
        s.apply_turn(self.turn(m));
    }

    #[inline]
    fn is_redundant(&self, recent: Recent, m: MoveId) -> bool {
        self.metric.is_redundant(recent, self.turn(m))
    }

    #[inline]
    fn key(&self, s: &Cube3) -> u128 {
        s.key()
    }

    fn encoded_len(&self) -> usize {
        ONE_HOT_LEN
    }

    #[inline]
    fn encode(&self, s: &Cube3, out: &mut [f32]) {
        s.encode_one_hot(out);
    }
}
