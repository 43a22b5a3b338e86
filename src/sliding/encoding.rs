//! The network encoding of a board: one-hot tile by cell.
//!
//! A board of width `n` with `N = n²` cells is encoded as `N * N` floats:
//! for each cell in row-major order, `N` values of which exactly one is `1`,
//! at the index of the tile in that cell (index `0` for the blank). Entry
//! `cell * N + tile` is thus `1`, all others `0`, so `encoded_len = n⁴`.
//! [`Sliding::decode`] inverts it (taking the largest value of each cell).

use super::Sliding;
use super::board::Board;
use super::error::SlidingError;

/// Writes the one-hot encoding of `board` into `out[..N * N]`.
#[inline]
pub(crate) fn encode(board: &Board, out: &mut [f32]) {
    let tiles = board.tiles();
    let cells = tiles.len();
    let out = &mut out[..cells * cells];
    out.fill(0.0);
    for (cell, &tile) in tiles.iter().enumerate() {
        out[cell * cells + usize::from(tile)] = 1.0;
    }
}

impl Sliding {
    /// Reads a board back from its encoding, taking the largest of each
    /// cell's `n²` values as its tile (so a network's per-cell scores decode
    /// too, as long as they name a permutation).
    ///
    /// # Errors
    /// [`SlidingError::EncodingLength`] unless `encoding` has `n⁴` values;
    /// [`SlidingError::Duplicate`] when two cells decode to the same tile.
    pub fn decode(&self, encoding: &[f32]) -> Result<Board, SlidingError> {
        let cells = self.n() * self.n();
        if encoding.len() != cells * cells {
            return Err(SlidingError::EncodingLength { expected: cells * cells, found: encoding.len() });
        }
        let tiles = encoding.chunks_exact(cells).map(|scores| {
            let best = (0..cells).fold(0, |best, t| if scores[t] > scores[best] { t } else { best });
            best as i64
        });
        Board::with_width(self.n(), tiles)
    }
}
