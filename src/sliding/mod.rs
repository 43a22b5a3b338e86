//! The n×n sliding puzzle (the 8-puzzle, the 15-puzzle, …) for `2 ≤ n ≤ 8`.
//!
//! [`Sliding`] is the puzzle definition: the width `n` and a [`Goal`]
//! (blank-last by default, blank-first, snail, or any permutation). Its
//! states are [`Board`]s: fixed-size `Copy` values with the tiles in
//! row-major order, `0` for the blank. [`SlidingKey`] is their exact packed
//! key.
//!
//! **Move convention.** There are four moves, ids `0..4` named `U D L R`
//! ([`moves`]), each named by the direction **the blank** moves: `U` moves
//! the blank up, sliding the tile above it down. A move is applicable unless
//! the blank is on that border; it is applied in place in O(1).
//!
//! **Encoding.** One-hot tile by cell, `n⁴` floats ([`encoding`]).
//!
//! Boards are read from text such as `2 3 0 / 1 8 6 / 5 7 4`
//! ([`Sliding::parse_board`], [`parse`]) and printed back the same way
//! (`Display`). [`Sliding::check_solvable`] tells exactly whether a board can
//! reach the goal ([`solvability`]), and [`Sliding::random_solvable`] draws
//! uniformly among the boards that can. Every user-facing constructor returns
//! a [`SlidingError`] rather than panicking.

pub mod board;
pub mod encoding;
pub mod error;
pub mod goal;
pub mod grid;
pub mod moves;
pub mod parity;
pub mod parse;
pub mod solvability;

pub use board::infer_n;
pub use board::{Board, MAX_CELLS, SlidingKey};
pub use error::SlidingError;
pub use goal::Goal;
pub use moves::{DOWN, LEFT, MOVE_NAMES, RIGHT, UP};
pub use parity::Parity;

use std::fmt;

use crate::puzzle::{MoveId, Puzzle, Recent};

/// An n×n sliding puzzle with a goal: the [`Puzzle`] whose states are
/// [`Board`]s. Cheap to clone (under 200 bytes, no heap).
#[derive(Clone, PartialEq, Eq)]
pub struct Sliding {
    n: u8,
    goal: Board,
    goal_name: &'static str,
    goal_invariant: Parity,
    /// Per blank cell, the bit mask of applicable moves.
    applicable: [u8; board::MAX_CELLS],
}

impl Sliding {
    /// The n×n puzzle with goal `goal`.
    ///
    /// # Errors
    /// [`SlidingError::BadWidth`] for `n` outside `2..=8`; for a custom goal,
    /// the errors of a tile list that is not a permutation of `0..n²`.
    pub fn new(n: usize, goal: Goal) -> Result<Self, SlidingError> {
        let goal_board = goal.board(n)?;
        Ok(Self {
            n: n as u8,
            goal: goal_board,
            goal_name: goal.name(),
            goal_invariant: goal_board.invariant(),
            applicable: moves::applicability(n),
        })
    }

    /// The board width `n`.
    #[inline]
    #[must_use]
    pub fn n(&self) -> usize {
        usize::from(self.n)
    }

    /// The goal's name (`blank-last`, `blank-first`, `snail` or `custom`).
    #[must_use]
    pub fn goal_name(&self) -> &'static str {
        self.goal_name
    }

    /// A board of this puzzle's width from row-major tiles (`0` = blank).
    ///
    /// # Errors
    /// [`SlidingError::WrongCount`], [`SlidingError::OutOfRange`] or
    /// [`SlidingError::Duplicate`] unless `tiles` is a permutation of `0..n²`.
    pub fn board(&self, tiles: &[u8]) -> Result<Board, SlidingError> {
        Board::with_width(self.n(), tiles.iter().map(|&t| i64::from(t)))
    }
}

impl fmt::Debug for Sliding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sliding")
            .field("n", &self.n)
            .field("goal", &self.goal)
            .field("goal_name", &self.goal_name)
            .finish()
    }
}

impl Puzzle for Sliding {
    type State = Board;
    type Key = SlidingKey;

    /// `puzzle{n²-1}`, with `-{goal}` appended unless the goal is blank-last:
    /// `puzzle15`, `puzzle8-snail`.
    fn name(&self) -> String {
        let tiles = self.n() * self.n() - 1;
        if self.goal_name == Goal::BlankLast.name() {
            format!("puzzle{tiles}")
        } else {
            format!("puzzle{tiles}-{}", self.goal_name)
        }
    }

    #[inline]
    fn num_moves(&self) -> usize {
        moves::NUM_MOVES
    }

    /// `U`, `D`, `L` or `R` (the direction the blank moves); `?` for an id
    /// out of range.
    fn move_name(&self, m: MoveId) -> &str {
        MOVE_NAMES.get(usize::from(m)).copied().unwrap_or("?")
    }

    #[inline]
    fn inverse(&self, m: MoveId) -> MoveId {
        moves::inverse(m)
    }

    fn goal(&self) -> Board {
        self.goal
    }

    #[inline]
    fn is_goal(&self, s: &Board) -> bool {
        *s == self.goal
    }

    #[inline]
    fn is_applicable(&self, s: &Board, m: MoveId) -> bool {
        m < 8 && self.applicable[s.blank()] & (1 << m) != 0
    }

    #[inline]
    fn apply(&self, s: &mut Board, m: MoveId) {
        debug_assert!(self.is_applicable(s, m), "move {m} not applicable to {s:?}");
        moves::slide(s, self.n(), m);
    }

    #[inline]
    fn is_redundant(&self, recent: Recent, m: MoveId) -> bool {
        recent.last == Some(moves::inverse(m))
    }

    #[inline]
    fn key(&self, s: &Board) -> SlidingKey {
        s.key()
    }

    fn encoded_len(&self) -> usize {
        let cells = self.n() * self.n();
        cells * cells
    }

    #[inline]
    fn encode(&self, s: &Board, out: &mut [f32]) {
        encoding::encode(s, out);
    }
}
