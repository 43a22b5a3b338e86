//! Errors of the sliding-puzzle module.
//!
//! Everything a user can get wrong (a board width outside `2..=8`, a goal or
//! board that is not a permutation of `0..n²`, a malformed tile list, a board
//! that cannot reach the goal, a malformed encoding) is reported as a
//! [`SlidingError`] whose `Display` names the offending value, so a message
//! can be shown to a person as it is.

use thiserror::Error;

use super::parity::Parity;

/// What can go wrong when building, parsing or checking sliding-puzzle
/// boards.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum SlidingError {
    /// The board width is outside `2..=8`.
    #[error("board width {n} is out of range 2..=8")]
    BadWidth {
        /// The rejected width.
        n: usize,
    },
    /// A tile list for a known width has the wrong number of tiles.
    #[error("expected {expected} tiles for a {n}×{n} board, found {found}")]
    WrongCount {
        /// The board width.
        n: usize,
        /// `n * n`.
        expected: usize,
        /// The number of tiles given.
        found: usize,
    },
    /// The width cannot be inferred: the tile count is not a square in `4..=64`.
    #[error("cannot infer the board width: {count} tiles is not a perfect square in 4..=64")]
    NotSquare {
        /// The number of tiles given.
        count: usize,
    },
    /// A `/`-separated row does not hold exactly `n` tiles.
    #[error("row {row} has {found} tiles, expected {n}")]
    RaggedRow {
        /// The 1-based row number.
        row: usize,
        /// The number of tiles in that row.
        found: usize,
        /// The board width.
        n: usize,
    },
    /// A tile number occurs more than once.
    #[error("tile {tile} appears twice")]
    Duplicate {
        /// The repeated tile.
        tile: u8,
    },
    /// A tile number is outside `0..n²`.
    #[error("tile {tile} is out of range 0..={max}")]
    OutOfRange {
        /// The rejected tile number.
        tile: i64,
        /// The largest valid tile, `n * n - 1`.
        max: usize,
    },
    /// A token of a tile list is not an integer.
    #[error("{token:?} is not a tile number")]
    NotANumber {
        /// The offending token.
        token: String,
    },
    /// A goal name is neither a known layout nor a tile list.
    #[error("unknown goal {text:?}: expected blank-last, blank-first, snail or a tile list")]
    UnknownGoal {
        /// The offending text.
        text: String,
    },
    /// A board of one width was given to a puzzle of another.
    #[error("board is {found}×{found} but the puzzle is {n}×{n}")]
    WrongWidth {
        /// The puzzle's width.
        n: usize,
        /// The board's width.
        found: usize,
    },
    /// An encoding to decode has the wrong length.
    #[error("encoding has {found} values, expected {expected}")]
    EncodingLength {
        /// `n⁴`.
        expected: usize,
        /// The length given.
        found: usize,
    },
    /// The board cannot reach the goal: its parity invariant differs.
    #[error("{}", unsolvable_message(*n, *board, *goal))]
    Unsolvable {
        /// The board width.
        n: usize,
        /// The board's invariant (see [`super::solvability`]).
        board: Parity,
        /// The goal's invariant.
        goal: Parity,
    },
}

fn unsolvable_message(n: usize, board: Parity, goal: Parity) -> String {
    if !n.is_multiple_of(2) {
        format!(
            "unsolvable: inversion parity is {board} but the goal's is {goal} \
             (odd board width {n}: parities must match)"
        )
    } else {
        format!(
            "unsolvable: parity of inversions + blank row is {board} but the goal's is {goal} \
             (even board width {n}: parities of inversions + blank row must match)"
        )
    }
}
