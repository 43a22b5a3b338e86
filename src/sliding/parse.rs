//! Reading boards from text.
//!
//! A board is written as its tile numbers in row-major order, `0` for the
//! blank, separated by whitespace and/or commas; `/` may separate rows, in
//! which case every row must hold exactly `n` tiles:
//! `2 3 0 / 1 8 6 / 5 7 4`, `2,3,0,1,8,6,5,7,4` and `2 3 0 1 8 6 5 7 4` are
//! the same 3×3 board. The width comes from the puzzle
//! ([`Sliding::parse_board`]) or is inferred from the count ([`infer_n`],
//! `str::parse::<Board>()`). Errors name the offending value (see
//! [`SlidingError`]).

use std::str::FromStr;

use super::Sliding;
use super::board::{Board, infer_n};
use super::error::SlidingError;

/// The numbers of a tile list and the length of each `/`-separated row.
pub(crate) struct Tokens {
    values: Vec<i64>,
    rows: Vec<usize>,
}

impl Tokens {
    /// Splits `text` into numbers, failing on the first non-numeric token.
    pub(crate) fn read(text: &str) -> Result<Self, SlidingError> {
        let mut values = Vec::new();
        let mut rows = Vec::new();
        for row in text.split('/') {
            let before = values.len();
            for token in row.split(|c: char| c.is_whitespace() || c == ',') {
                if token.is_empty() {
                    continue;
                }
                let value = token.parse::<i64>().map_err(|_| SlidingError::NotANumber { token: token.to_owned() })?;
                values.push(value);
            }
            rows.push(values.len() - before);
        }
        Ok(Self { values, rows })
    }

    /// Validates the numbers as a board of width `n` (inferred from the count
    /// when `None`).
    pub(crate) fn into_board(self, n: Option<usize>) -> Result<Board, SlidingError> {
        let count = self.values.len();
        let n = match n {
            Some(n) if n * n != count => {
                return Err(SlidingError::WrongCount { n, expected: n * n, found: count });
            }
            Some(n) => n,
            None => infer_n(count)?,
        };
        if self.rows.len() > 1
            && let Some((row, &found)) = self.rows.iter().enumerate().find(|&(_, &len)| len != n)
        {
            return Err(SlidingError::RaggedRow { row: row + 1, found, n });
        }
        Board::with_width(n, self.values.into_iter())
    }
}

impl Sliding {
    /// Reads a board of this puzzle's width from text such as
    /// `2 3 0 / 1 8 6 / 5 7 4`. Solvability is not checked (see
    /// [`Sliding::check_solvable`]).
    ///
    /// # Errors
    /// [`SlidingError::NotANumber`], [`SlidingError::WrongCount`],
    /// [`SlidingError::RaggedRow`], [`SlidingError::OutOfRange`] or
    /// [`SlidingError::Duplicate`].
    pub fn parse_board(&self, text: &str) -> Result<Board, SlidingError> {
        Tokens::read(text)?.into_board(Some(self.n()))
    }
}

/// Reads a board, inferring its width from the tile count.
impl FromStr for Board {
    type Err = SlidingError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Tokens::read(text)?.into_board(None)
    }
}
