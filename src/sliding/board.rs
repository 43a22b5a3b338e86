//! Boards and keys: one configuration of an n×n sliding puzzle.
//!
//! A [`Board`] is a fixed-size, `Copy`, heap-free value: the tiles in
//! row-major order (`0` is the blank, cells past `n²` stay `0`), the width
//! `n` and the blank's cell index. A board is only ever built validated (a
//! permutation of `0..n²` with `2 ≤ n ≤ 8`), so moves never need to check it.
//!
//! A [`SlidingKey`] packs the `n²` cells at 6 bits each into 384 bits: an
//! exact, compact identity for hash sets of boards of one width.

use std::fmt;

use super::error::SlidingError;

/// Largest supported board width.
pub const MAX_N: usize = 8;
/// Smallest supported board width.
pub const MIN_N: usize = 2;
/// Cells of the largest board, `MAX_N²`.
pub const MAX_CELLS: usize = MAX_N * MAX_N;

/// One configuration of an n×n sliding puzzle (the [`crate::puzzle::Puzzle`]
/// state of [`super::Sliding`]).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Board {
    pub(crate) tiles: [u8; MAX_CELLS],
    pub(crate) n: u8,
    pub(crate) blank: u8,
}

/// Exact compact key of a [`Board`]: cell `i` occupies bits `6i..6i+6` of
/// the 384-bit little-endian number formed by the six words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SlidingKey(pub [u64; 6]);

impl Board {
    /// Builds a board from row-major tiles (`0` is the blank), inferring the
    /// width from the count.
    ///
    /// # Errors
    /// [`SlidingError::NotSquare`] when the count is not a square in
    /// `4..=64`, or the errors of a malformed permutation
    /// ([`SlidingError::OutOfRange`], [`SlidingError::Duplicate`]).
    pub fn from_tiles(tiles: &[u8]) -> Result<Self, SlidingError> {
        let n = infer_n(tiles.len())?;
        Self::with_width(n, tiles.iter().map(|&t| i64::from(t)))
    }

    /// Builds a board of width `n` from row-major tile numbers, checking the
    /// width, count, range and that no tile repeats.
    pub(crate) fn with_width(n: usize, values: impl ExactSizeIterator<Item = i64>) -> Result<Self, SlidingError> {
        if !(MIN_N..=MAX_N).contains(&n) {
            return Err(SlidingError::BadWidth { n });
        }
        let cells = n * n;
        if values.len() != cells {
            return Err(SlidingError::WrongCount { n, expected: cells, found: values.len() });
        }
        let mut board = Self { tiles: [0; MAX_CELLS], n: n as u8, blank: 0 };
        let mut seen = 0u64;
        for (cell, value) in values.enumerate() {
            let tile = u8::try_from(value)
                .ok()
                .filter(|&t| usize::from(t) < cells)
                .ok_or(SlidingError::OutOfRange { tile: value, max: cells - 1 })?;
            if seen & (1 << tile) != 0 {
                return Err(SlidingError::Duplicate { tile });
            }
            seen |= 1 << tile;
            board.tiles[cell] = tile;
            if tile == 0 {
                board.blank = cell as u8;
            }
        }
        Ok(board)
    }

    /// The board width `n`.
    #[inline]
    #[must_use]
    pub fn n(&self) -> usize {
        usize::from(self.n)
    }

    /// The `n²` tiles in row-major order; `0` is the blank.
    #[inline]
    #[must_use]
    pub fn tiles(&self) -> &[u8] {
        &self.tiles[..self.n() * self.n()]
    }

    /// The blank's cell index (row-major, `row * n + col`).
    #[inline]
    #[must_use]
    pub fn blank(&self) -> usize {
        usize::from(self.blank)
    }

    /// The tile at `(row, col)`, or `None` outside the board.
    #[must_use]
    pub fn get(&self, row: usize, col: usize) -> Option<u8> {
        (row < self.n() && col < self.n()).then(|| self.tiles[row * self.n() + col])
    }

    /// The exact compact key of this board.
    #[must_use]
    pub fn key(&self) -> SlidingKey {
        let mut words = [0u64; 6];
        let mut acc = 0u128;
        let mut bits = 0;
        let mut word = 0;
        for &tile in self.tiles() {
            acc |= u128::from(tile) << bits;
            bits += 6;
            if bits >= 64 {
                words[word] = acc as u64;
                acc >>= 64;
                bits -= 64;
                word += 1;
            }
        }
        if bits > 0 {
            words[word] = acc as u64;
        }
        SlidingKey(words)
    }
}

/// Rows separated by ` / `, tiles by a space: `1 2 3 / 4 5 6 / 7 8 0`, the
/// form [`str::parse`] reads back. The alternate form (`{:#}`) prints one
/// right-aligned row per line with `.` for the blank.
impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.n();
        let width = if n * n > 10 { 2 } else { 1 };
        for (r, row) in self.tiles().chunks_exact(n).enumerate() {
            if r > 0 {
                f.write_str(if f.alternate() { "\n" } else { " / " })?;
            }
            for (c, &tile) in row.iter().enumerate() {
                if c > 0 {
                    f.write_str(" ")?;
                }
                if !f.alternate() {
                    write!(f, "{tile}")?;
                } else if tile == 0 {
                    write!(f, "{:>width$}", ".")?;
                } else {
                    write!(f, "{tile:>width$}")?;
                }
            }
        }
        Ok(())
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Board({}×{}: {self})", self.n, self.n)
    }
}

/// The board width for `count` tiles.
///
/// # Errors
/// [`SlidingError::NotSquare`] unless `count` is a perfect square in `4..=64`.
pub fn infer_n(count: usize) -> Result<usize, SlidingError> {
    (MIN_N..=MAX_N).find(|n| n * n == count).ok_or(SlidingError::NotSquare { count })
}
