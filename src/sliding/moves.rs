//! Moves: the blank slides up, down, left or right.
//!
//! There are four moves, ids `0..4` named `U D L R`, each named by the
//! direction **the blank** travels: `U` moves the blank one row up, which
//! slides the tile above it down into the hole. A move is applicable unless
//! the blank sits on the corresponding border (no `U` from the top row). `U`
//! and `D` undo each other, as do `L` and `R`; the only redundant move after
//! a history is the one that undoes its last move.

use super::board::{Board, MAX_CELLS};
use crate::puzzle::MoveId;

/// The blank moves one row up (the tile above it slides down).
pub const UP: MoveId = 0;
/// The blank moves one row down (the tile below it slides up).
pub const DOWN: MoveId = 1;
/// The blank moves one column left (the tile on its left slides right).
pub const LEFT: MoveId = 2;
/// The blank moves one column right (the tile on its right slides left).
pub const RIGHT: MoveId = 3;
/// Number of moves.
pub const NUM_MOVES: usize = 4;
/// Move names by id.
pub const MOVE_NAMES: [&str; NUM_MOVES] = ["U", "D", "L", "R"];

/// The move undoing `m` (`U`↔`D`, `L`↔`R`); ids `≥ 4` map to themselves.
#[inline]
#[must_use]
pub const fn inverse(m: MoveId) -> MoveId {
    if (m as usize) < NUM_MOVES { m ^ 1 } else { m }
}

/// The move with name `name` (`U`, `D`, `L` or `R`), if any.
#[must_use]
pub fn move_by_name(name: &str) -> Option<MoveId> {
    MOVE_NAMES.iter().position(|&s| s == name).map(|m| m as MoveId)
}

/// For each cell of an `n`-wide board, a bit mask of the moves applicable
/// with the blank there (bit `m` for move `m`).
pub(crate) fn applicability(n: usize) -> [u8; MAX_CELLS] {
    let mut masks = [0u8; MAX_CELLS];
    for (cell, mask) in masks.iter_mut().enumerate().take(n * n) {
        let (row, col) = (cell / n, cell % n);
        *mask = u8::from(row > 0) << UP
            | u8::from(row + 1 < n) << DOWN
            | u8::from(col > 0) << LEFT
            | u8::from(col + 1 < n) << RIGHT;
    }
    masks
}

/// Slides the blank of `board` (width `n`) in direction `m`, in place.
/// Branch-free: the step is `n` for `U`/`D` and 1 for `L`/`R`, subtracted
/// for `U`/`L` (even ids) and added for `D`/`R` (odd ids).
#[inline]
pub(crate) fn slide(board: &mut Board, n: usize, m: MoveId) {
    let blank = board.blank();
    let step = if m < LEFT { n } else { 1 };
    let target = if m & 1 == 0 { blank.wrapping_sub(step) } else { blank + step };
    board.tiles[blank] = board.tiles[target];
    board.tiles[target] = 0;
    board.blank = target as u8;
}
