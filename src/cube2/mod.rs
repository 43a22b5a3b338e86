//! The 2×2×2 cube ("cube2"): positions, moves, notation, sticker strings,
//! and its [`Puzzle`] implementation [`Cube2Puzzle`].
//!
//! A position is [`Cube2`]: the eight corners (Kociemba's numbering, as on
//! the 3×3×3) with the DBL corner fixed, so the moves are U, R and F and
//! the goal is unique; the 3,674,160 positions have a dense index
//! ([`Cube2::index`]) for flat exact tables. Turns and metrics are the
//! 3×3×3's ([`Turn`], [`Metric`]): the 2×2×2's moves are the first half of
//! the cube's move list in either metric (QTM `U U' R R' F F'`, HTM
//! `U U2 U' R R2 R' F F2 F'`), with the same move ids, names and pruning
//! rules. Everything geometric is derived from the 3×3×3's sticker model
//! ([`corners`]). Like every model folder, this one imports no search,
//! heuristic or learning code.

pub mod corners;
pub mod error;
pub mod facelets;
pub mod notation;
pub mod state;
#[cfg(test)]
mod tests;

pub use corners::Corners;
pub use error::Cube2Error;
pub use state::{Cube2, N_STATES, ONE_HOT_LEN};

pub use crate::cube3::{Metric, Turn};

use crate::cube3::Cube3Puzzle;
use crate::puzzle::{MoveId, Puzzle, Recent};

/// The 2×2×2 as a puzzle with the move set of one metric.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Cube2Puzzle {
    /// The move metric (QTM: 6 moves, HTM: 9).
    pub metric: Metric,
}

impl Cube2Puzzle {
    /// The 2×2×2 with `metric`'s move set.
    #[must_use]
    pub const fn new(metric: Metric) -> Self {
        Self { metric }
    }

    /// The turn made by move `m` (the cube's move `m` in the same metric).
    #[inline]
    #[must_use]
    pub fn turn(&self, m: MoveId) -> Turn {
        self.metric.turn(m)
    }

    /// The 3×3×3 with the same metric: its first moves are this puzzle's,
    /// and their ids, inverses and pruning are delegated to it, so the two
    /// cannot drift apart.
    #[inline]
    fn cube3(&self) -> Cube3Puzzle {
        Cube3Puzzle::new(self.metric)
    }
}

impl Puzzle for Cube2Puzzle {
    type State = Cube2;
    type Key = u32;

    fn name(&self) -> String {
        format!("cube2-{}", self.metric)
    }

    /// 6 (QTM) or 9 (HTM): both metrics number the cube's moves face by
    /// face in URFDLB order, and U, R, F are the first three faces.
    #[inline]
    fn num_moves(&self) -> usize {
        self.cube3().num_moves() / 2
    }

    fn move_name(&self, m: MoveId) -> &str {
        self.turn(m).name()
    }

    #[inline]
    fn inverse(&self, m: MoveId) -> MoveId {
        self.cube3().inverse(m)
    }

    fn goal(&self) -> Cube2 {
        Cube2::SOLVED
    }

    #[inline]
    fn is_goal(&self, s: &Cube2) -> bool {
        s.is_solved()
    }

    #[inline]
    fn apply(&self, s: &mut Cube2, m: MoveId) {
        s.apply_turn(self.turn(m));
    }

    /// The cube's rule ([`Metric::is_redundant`]); as U, R and F are
    /// pairwise non-opposite, it reduces to: QTM refuses `X X'` and
    /// `X X X`, HTM two turns of one face in a row.
    #[inline]
    fn is_redundant(&self, recent: Recent, m: MoveId) -> bool {
        self.cube3().is_redundant(recent, m)
    }

    /// The dense index [`Cube2::index`].
    #[inline]
    fn key(&self, s: &Cube2) -> u32 {
        s.index()
    }

    fn encoded_len(&self) -> usize {
        ONE_HOT_LEN
    }

    #[inline]
    fn encode(&self, s: &Cube2, out: &mut [f32]) {
        s.encode_one_hot(out);
    }
}
