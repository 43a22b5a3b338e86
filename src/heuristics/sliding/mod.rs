//! Admissible heuristics of the n×n sliding puzzle, for any width and goal.
//!
//! Each one is a lower bound on the number of moves, usually the exact
//! solution length of a *relaxed* puzzle in which some rule of the real one
//! is dropped, and each counts tiles only, never the blank:
//!
//! | type | name | relaxation or argument | consistent |
//! |---|---|---|---|
//! | [`Misplaced`] | `misplaced` | a tile may jump to any cell | yes |
//! | [`Manhattan`] | `manhattan` | tiles may share cells | yes |
//! | [`LinearConflict`] | `linear-conflict` | Manhattan + tiles that must leave their line | yes |
//! | [`LinearConflictCorner`] | `linear-conflict+corner` | + home tiles that must step aside for a corner | not claimed |
//! | [`Gaschnig`] | `gaschnig` | a tile may jump to the blank's cell from anywhere | yes |
//! | [`XY`] | `xy` | rows and columns solved separately, as sets | yes |
//!
//! The dominance relations that hold on every state are `misplaced ≤
//! manhattan ≤ linear-conflict ≤ linear-conflict+corner`, `misplaced ≤
//! gaschnig` and `manhattan ≤ xy`; Gaschnig against Manhattan and X-Y
//! against linear conflict go either way. One concept per file:
//! [`misplaced`], [`manhattan`], [`linear_conflict`], [`corner`],
//! [`gaschnig`], [`xy`].

pub mod corner;
pub mod gaschnig;
pub mod linear_conflict;
pub mod manhattan;
pub mod misplaced;
pub mod xy;

pub use corner::LinearConflictCorner;
pub use gaschnig::Gaschnig;
pub use linear_conflict::LinearConflict;
pub use manhattan::Manhattan;
pub use misplaced::Misplaced;
pub use xy::XY;

use crate::puzzle::Puzzle;
use crate::sliding::Sliding;

/// Goal cell of every tile (the blank, tile `0`, included) of a puzzle.
pub(crate) fn goal_cells(p: &Sliding) -> Vec<usize> {
    let goal = p.goal();
    let mut cells = vec![0; goal.tiles().len()];
    for (cell, &tile) in goal.tiles().iter().enumerate() {
        cells[tile as usize] = cell;
    }
    cells
}

/// The cell the blank came from when a move `m` left it on `new_blank`:
/// the cell of the tile that just slid (`n` wide board). Branch-free, the
/// inverse of [`super::moves`]' slide.
#[inline]
pub(crate) fn moved_from(new_blank: usize, n: usize, m: crate::puzzle::MoveId) -> usize {
    let step = if m < crate::sliding::LEFT { n } else { 1 };
    if m & 1 == 0 { new_blank + step } else { new_blank.wrapping_sub(step) }
}
