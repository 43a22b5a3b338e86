//! Solvability: which boards can reach the goal.
//!
//! Exactly half of the `n²!` arrangements can reach a given goal, and an
//! O(n⁴) parity test tells which half:
//!
//! * odd `n`: the parity of the number of inversions (pairs of non-blank
//!   tiles out of order in row-major reading, blank skipped) must equal the
//!   goal's;
//! * even `n`: the parity of inversions + the blank's row must equal the
//!   goal's.
//!
//! Why it is invariant: a horizontal slide changes neither the row-major
//! order of the tiles nor the blank's row. A vertical slide moves one tile
//! past the `n - 1` tiles between its old and new cell in row-major order,
//! changing the inversion count by `±1` for each of them, i.e. by something
//! of the parity of `n - 1`, and moves the blank one row. For odd `n` that
//! change is even; for even `n` it is odd and the blank-row change cancels
//! it. Why it is complete (Story, 1879): walking the blank once around a 2×2
//! block cycles three tiles and leaves the blank where it was; such 3-cycles
//! generate every even permutation of the tiles, so the reachable boards are
//! the whole class of the goal's invariant, `n²!/2` boards. The tests check
//! this against breadth-first search on every 2×2 and 3×3 board.

use rand::Rng;
use rand::seq::SliceRandom;

use super::Sliding;
use super::board::Board;
use super::error::SlidingError;
use super::parity::Parity;

impl Board {
    /// Number of pairs of non-blank tiles out of order in row-major reading.
    #[must_use]
    pub fn inversions(&self) -> usize {
        let tiles = self.tiles();
        let mut count = 0;
        for (i, &a) in tiles.iter().enumerate() {
            if a != 0 {
                count += tiles[i + 1..].iter().filter(|&&b| b != 0 && b < a).count();
            }
        }
        count
    }

    /// The blank's row, `0` at the top.
    #[must_use]
    pub fn blank_row(&self) -> usize {
        self.blank() / self.n()
    }

    /// The solvability invariant: the parity of the inversions, plus the
    /// blank row for even widths. Two boards of one width reach each other
    /// exactly when their invariants are equal.
    #[must_use]
    pub fn invariant(&self) -> Parity {
        let blank_term = if self.n().is_multiple_of(2) { self.blank_row() } else { 0 };
        Parity::of(self.inversions() + blank_term)
    }
}

impl Sliding {
    /// Checks that `board` can reach this puzzle's goal.
    ///
    /// # Errors
    /// [`SlidingError::WrongWidth`] for a board of another width,
    /// [`SlidingError::Unsolvable`] (saying which parity differs) when the
    /// board is in the other half of the arrangements.
    pub fn check_solvable(&self, board: &Board) -> Result<(), SlidingError> {
        if board.n() != self.n() {
            return Err(SlidingError::WrongWidth { n: self.n(), found: board.n() });
        }
        let (board, goal) = (board.invariant(), self.goal_invariant);
        if board == goal { Ok(()) } else { Err(SlidingError::Unsolvable { n: self.n(), board, goal }) }
    }

    /// Whether `board` has this puzzle's width and can reach its goal.
    #[must_use]
    pub fn is_solvable(&self, board: &Board) -> bool {
        self.check_solvable(board).is_ok()
    }

    /// A board drawn uniformly from the `n²!/2` boards that can reach the
    /// goal: a uniform shuffle, and if it is unsolvable, a swap of its first
    /// two non-blank tiles (a bijection onto the solvable boards with the
    /// same blank cell, so uniformity is kept).
    #[must_use]
    pub fn random_solvable<R: Rng + ?Sized>(&self, rng: &mut R) -> Board {
        let cells = self.n() * self.n();
        let mut board = self.goal;
        board.tiles[..cells].shuffle(rng);
        board.blank = board.tiles.iter().position(|&t| t == 0).unwrap_or(0) as u8;
        if board.invariant() != self.goal_invariant {
            let mut non_blank = (0..cells).filter(|&c| c != board.blank());
            if let (Some(a), Some(b)) = (non_blank.next(), non_blank.next()) {
                board.tiles.swap(a, b);
            }
        }
        board
    }
}
