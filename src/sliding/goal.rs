//! Goals: which arrangement of the tiles counts as solved.
//!
//! The usual goal is blank-last (`1 2 … n²-1` then the blank), but other
//! layouts are in use: blank-first (`0 1 … n²-1`), the snail or spiral layout
//! (tiles `1..n²` placed clockwise in a spiral from the top-left corner, the
//! blank on the spiral's last cell, for 3×3 `1 2 3 / 8 0 4 / 7 6 5`), or any
//! other permutation. Which boards are solvable depends on the goal (see
//! [`super::solvability`]).

use std::fmt;
use std::str::FromStr;

use super::board::{Board, MAX_N, MIN_N};
use super::error::SlidingError;
use super::parse::Tokens;

/// The solved arrangement of a [`super::Sliding`] puzzle.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Goal {
    /// `1 2 … n²-1 0`: tiles in order, blank in the bottom-right corner.
    #[default]
    BlankLast,
    /// `0 1 2 … n²-1`: blank in the top-left corner, then tiles in order.
    BlankFirst,
    /// Tiles `1..n²` clockwise in a spiral from the top-left corner, the
    /// blank on the last cell of the spiral.
    Snail,
    /// Any permutation of `0..n²` in row-major order.
    Custom(Vec<u8>),
}

impl Goal {
    /// The goal's short name: `blank-last`, `blank-first`, `snail` or
    /// `custom`.
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            Self::BlankLast => "blank-last",
            Self::BlankFirst => "blank-first",
            Self::Snail => "snail",
            Self::Custom(_) => "custom",
        }
    }

    /// The goal board of width `n`.
    ///
    /// # Errors
    /// [`SlidingError::BadWidth`] for `n` outside `2..=8`; for a custom goal,
    /// the errors of a tile list that is not a permutation of `0..n²`.
    pub fn board(&self, n: usize) -> Result<Board, SlidingError> {
        if !(MIN_N..=MAX_N).contains(&n) {
            return Err(SlidingError::BadWidth { n });
        }
        let cells = n * n;
        let values: Vec<i64> = match self {
            Self::BlankLast => (1..cells as i64).chain([0]).collect(),
            Self::BlankFirst => (0..cells as i64).collect(),
            Self::Snail => snail(n).into_iter().map(i64::from).collect(),
            Self::Custom(tiles) => tiles.iter().map(|&t| i64::from(t)).collect(),
        };
        Board::with_width(n, values.into_iter())
    }
}

/// The snail layout of width `n` (`2..=8`), row-major.
fn snail(n: usize) -> Vec<u8> {
    let cells = n * n;
    let mut tiles = vec![0u8; cells];
    let (mut top, mut bottom, mut left, mut right) = (0, n, 0, n);
    let mut order = Vec::with_capacity(cells);
    while top < bottom && left < right {
        order.extend((left..right).map(|c| top * n + c));
        top += 1;
        order.extend((top..bottom).map(|r| r * n + right - 1));
        right -= 1;
        if top < bottom {
            order.extend((left..right).rev().map(|c| (bottom - 1) * n + c));
            bottom -= 1;
        }
        if left < right {
            order.extend((top..bottom).rev().map(|r| r * n + left));
            left += 1;
        }
    }
    for (tile, &cell) in (1..).zip(&order[..cells - 1]) {
        tiles[cell] = tile;
    }
    tiles
}

/// Reads `blank-last`, `blank-first`, `snail` (any case, `_` for `-`) or a
/// tile list such as `1 2 3 / 4 0 5 / 6 7 8` (a [`Goal::Custom`], whose width
/// is inferred from the count).
impl FromStr for Goal {
    type Err = SlidingError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let name = text.trim().to_ascii_lowercase().replace('_', "-");
        match name.as_str() {
            "blank-last" => return Ok(Self::BlankLast),
            "blank-first" => return Ok(Self::BlankFirst),
            "snail" | "spiral" => return Ok(Self::Snail),
            _ => {}
        }
        let tokens = Tokens::read(text).map_err(|e| match e {
            SlidingError::NotANumber { .. } if text.split_whitespace().count() == 1 => {
                SlidingError::UnknownGoal { text: text.trim().to_owned() }
            }
            other => other,
        })?;
        let board = tokens.into_board(None)?;
        Ok(Self::Custom(board.tiles().to_vec()))
    }
}

/// The name of a named goal, or the tiles of a custom one separated by
/// spaces (both read back by [`str::parse`]).
impl fmt::Display for Goal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Custom(tiles) => {
                for (i, tile) in tiles.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" ")?;
                    }
                    write!(f, "{tile}")?;
                }
                Ok(())
            }
            named => f.write_str(named.name()),
        }
    }
}
