//! [`Grid`]: an n×n sliding-puzzle board of any width `2 ≤ n ≤ 256`, for
//! algorithms that outgrow [`Board`] (whose fixed 64-cell array stops at
//! 8×8), such as Parberry's real-time algorithm on the 9999-puzzle.
//!
//! The goal is the standard blank-last one (`1 2 … n²−1` then the blank;
//! [`Grid::half_turn`] maps the blank-first goal onto it). Tiles are `u16`
//! in row-major order with `0` for the blank, so the widest board, 256×256,
//! numbers its tiles up to 65,535. Moves are the crate's sliding moves
//! (`U D L R`, ids `0..4`, named by the direction the blank travels; see
//! [`super::moves`]); [`Grid::apply`] refuses a move that would push the
//! blank off the board instead of panicking.
//!
//! Solvability uses the invariant of [`super::solvability`]: the parity of
//! the inversions, plus the blank's row for even widths, must equal the
//! goal's. Inversions are counted with a Fenwick tree in O(n² log n), which
//! stays fast on 65,535 tiles. [`Grid::random_solvable`] draws exactly as
//! [`super::Sliding::random_solvable`] does (same shuffle, same parity fix),
//! so for `n ≤ 8` one seed gives the same boards in both models.
//!
//! Text is the crate's board format (`1 2 3 / 4 5 6 / 7 8 0`; `/` between
//! rows is optional, commas may separate tiles); every parse error is a
//! [`GridError`] naming the value and the rule.

use std::fmt;
use std::str::FromStr;

use rand::Rng;
use rand::seq::SliceRandom;
use thiserror::Error;

use super::board::Board;
use super::error::SlidingError;
use super::moves::{DOWN, LEFT, MOVE_NAMES, NUM_MOVES, RIGHT, UP};
use super::parity::Parity;
use crate::puzzle::MoveId;

/// Smallest grid width.
pub const GRID_MIN_N: usize = 2;
/// Largest grid width: the tiles of a 256×256 board, `0..65,536`, fit `u16`.
pub const GRID_MAX_N: usize = 256;

/// What can go wrong when building, parsing, checking or moving a [`Grid`].
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum GridError {
    /// The width is outside `2..=256`.
    #[error("grid width {n} is out of range {GRID_MIN_N}..={GRID_MAX_N}")]
    BadWidth {
        /// The rejected width.
        n: usize,
    },
    /// The width cannot be inferred: the tile count is not `n²` for a
    /// width in range.
    #[error("cannot infer the grid width: {count} tiles is not n² for a width n in {GRID_MIN_N}..={GRID_MAX_N}")]
    NotSquare {
        /// The number of tiles given.
        count: usize,
    },
    /// A tile list for a known width has the wrong number of tiles.
    #[error("expected {expected} tiles for a {n}×{n} grid, found {found}")]
    WrongCount {
        /// The width.
        n: usize,
        /// `n²`.
        expected: usize,
        /// The number of tiles given.
        found: usize,
    },
    /// A `/`-separated row does not hold exactly `n` tiles.
    #[error("row {row} has {found} tiles, expected {n}")]
    RaggedRow {
        /// The 1-based row number.
        row: usize,
        /// The number of tiles in that row.
        found: usize,
        /// The width.
        n: usize,
    },
    /// A token is not an integer.
    #[error("{token:?} is not a tile number")]
    NotANumber {
        /// The offending token.
        token: String,
    },
    /// A tile number is outside `0..n²`.
    #[error("tile {tile} is out of range 0..={max}")]
    OutOfRange {
        /// The rejected tile number.
        tile: i64,
        /// The largest valid tile, `n² − 1`.
        max: usize,
    },
    /// A tile number occurs more than once.
    #[error("tile {tile} appears twice")]
    Duplicate {
        /// The repeated tile.
        tile: u16,
    },
    /// The board cannot reach the blank-last goal.
    #[error("{}", unsolvable_message(*n, *board, *goal))]
    Unsolvable {
        /// The width.
        n: usize,
        /// The board's invariant.
        board: Parity,
        /// The goal's invariant.
        goal: Parity,
    },
    /// A move of a sequence is not a move id (`0..4`).
    #[error("move {step} has id {id}, but move ids are 0..4 (U D L R)")]
    UnknownMove {
        /// 0-based index in the sequence.
        step: usize,
        /// The id.
        id: MoveId,
    },
    /// A move of a sequence pushes the blank off the board.
    #[error("move {step} ({name}) is illegal: the blank at row {row}, column {col} is on that border")]
    IllegalMove {
        /// 0-based index in the sequence.
        step: usize,
        /// The move's name.
        name: &'static str,
        /// The blank's row (0-based).
        row: usize,
        /// The blank's column (0-based).
        col: usize,
    },
}

fn unsolvable_message(n: usize, board: Parity, goal: Parity) -> String {
    if n.is_multiple_of(2) {
        format!(
            "unsolvable: parity of inversions + blank row is {board} but the goal's is {goal} \
             (even board width {n}: parities of inversions + blank row must match)"
        )
    } else {
        format!(
            "unsolvable: inversion parity is {board} but the goal's is {goal} \
             (odd board width {n}: parities must match)"
        )
    }
}

/// One configuration of an n×n sliding puzzle, `2 ≤ n ≤ 256`: tiles in
/// row-major order, `0` the blank. Always a permutation of `0..n²`.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Grid {
    n: usize,
    tiles: Vec<u16>,
    blank: usize,
}

fn check_width(n: usize) -> Result<(), GridError> {
    if (GRID_MIN_N..=GRID_MAX_N).contains(&n) { Ok(()) } else { Err(GridError::BadWidth { n }) }
}

/// The width for `count` tiles.
///
/// # Errors
/// [`GridError::NotSquare`] unless `count = n²` with `2 ≤ n ≤ 256`.
pub fn grid_width(count: usize) -> Result<usize, GridError> {
    let n = count.isqrt();
    if n * n == count && check_width(n).is_ok() { Ok(n) } else { Err(GridError::NotSquare { count }) }
}

impl Grid {
    /// The blank-last goal of width `n`: `1 2 … n²−1 0`.
    ///
    /// # Errors
    /// [`GridError::BadWidth`] for `n` outside `2..=256`.
    pub fn goal(n: usize) -> Result<Self, GridError> {
        check_width(n)?;
        let cells = n * n;
        let mut tiles: Vec<u16> = (1..cells).map(|t| t as u16).collect();
        tiles.push(0);
        Ok(Self { n, tiles, blank: cells - 1 })
    }

    /// A grid of width `n` from row-major tile numbers (`0` the blank).
    ///
    /// # Errors
    /// [`GridError::BadWidth`], [`GridError::WrongCount`],
    /// [`GridError::OutOfRange`] or [`GridError::Duplicate`] unless the
    /// values are a permutation of `0..n²`.
    pub fn from_values(n: usize, values: impl IntoIterator<Item = i64>) -> Result<Self, GridError> {
        check_width(n)?;
        let cells = n * n;
        let values: Vec<i64> = values.into_iter().take(cells + 1).collect();
        if values.len() != cells {
            return Err(GridError::WrongCount { n, expected: cells, found: values.len() });
        }
        let mut seen = vec![false; cells];
        let mut tiles = Vec::with_capacity(cells);
        let mut blank = 0;
        for (cell, value) in values.into_iter().enumerate() {
            let tile = u16::try_from(value)
                .ok()
                .filter(|&t| usize::from(t) < cells)
                .ok_or(GridError::OutOfRange { tile: value, max: cells - 1 })?;
            if std::mem::replace(&mut seen[usize::from(tile)], true) {
                return Err(GridError::Duplicate { tile });
            }
            if tile == 0 {
                blank = cell;
            }
            tiles.push(tile);
        }
        Ok(Self { n, tiles, blank })
    }

    /// A grid from row-major tiles, inferring the width from the count.
    ///
    /// # Errors
    /// [`GridError::NotSquare`] or the errors of [`Grid::from_values`].
    pub fn from_tiles(tiles: &[u16]) -> Result<Self, GridError> {
        Self::from_values(grid_width(tiles.len())?, tiles.iter().map(|&t| i64::from(t)))
    }

    /// Reads a grid of width `n` (or of the width the tile count implies,
    /// when `None`) from text such as `1 2 3 / 4 5 6 / 7 8 0`. Solvability
    /// is not checked ([`Grid::check_solvable`]).
    ///
    /// # Errors
    /// [`GridError::NotANumber`], [`GridError::NotSquare`],
    /// [`GridError::WrongCount`], [`GridError::RaggedRow`] or the errors of
    /// [`Grid::from_values`].
    pub fn parse(text: &str, n: Option<usize>) -> Result<Self, GridError> {
        let mut values = Vec::new();
        let mut rows = Vec::new();
        for row in text.split('/') {
            let before = values.len();
            for token in row.split(|c: char| c.is_whitespace() || c == ',').filter(|t| !t.is_empty()) {
                values.push(token.parse::<i64>().map_err(|_| GridError::NotANumber { token: token.to_owned() })?);
            }
            rows.push(values.len() - before);
        }
        let n = match n {
            Some(n) => {
                check_width(n)?;
                if values.len() != n * n {
                    return Err(GridError::WrongCount { n, expected: n * n, found: values.len() });
                }
                n
            }
            None => grid_width(values.len())?,
        };
        if rows.len() > 1
            && let Some((row, &found)) = rows.iter().enumerate().find(|&(_, &len)| len != n)
        {
            return Err(GridError::RaggedRow { row: row + 1, found, n });
        }
        Self::from_values(n, values)
    }

    /// The width `n`.
    #[must_use]
    pub fn n(&self) -> usize {
        self.n
    }

    /// The `n²` tiles in row-major order; `0` is the blank.
    #[must_use]
    pub fn tiles(&self) -> &[u16] {
        &self.tiles
    }

    /// The blank's cell (`row * n + col`).
    #[must_use]
    pub fn blank(&self) -> usize {
        self.blank
    }

    /// The tile at `(row, col)`, or `None` outside the board.
    #[must_use]
    pub fn get(&self, row: usize, col: usize) -> Option<u16> {
        (row < self.n && col < self.n).then(|| self.tiles[row * self.n + col])
    }

    /// The cell where `tile` belongs in the blank-last goal (`n² − 1` for
    /// the blank).
    #[must_use]
    pub fn goal_cell(&self, tile: u16) -> usize {
        if tile == 0 { self.tiles.len() - 1 } else { usize::from(tile) - 1 }
    }

    /// Whether this is the blank-last goal.
    #[must_use]
    pub fn is_goal(&self) -> bool {
        self.blank == self.tiles.len() - 1 && self.tiles[..self.blank].iter().zip(1..).all(|(&t, i)| t == i)
    }

    /// Whether move `m` keeps the blank on the board.
    #[must_use]
    pub fn is_applicable(&self, m: MoveId) -> bool {
        let (row, col) = (self.blank / self.n, self.blank % self.n);
        match m {
            UP => row > 0,
            DOWN => row + 1 < self.n,
            LEFT => col > 0,
            RIGHT => col + 1 < self.n,
            _ => false,
        }
    }

    /// Slides the blank in direction `m` if that keeps it on the board;
    /// returns whether it moved (an illegal move leaves the grid as it was).
    pub fn apply(&mut self, m: MoveId) -> bool {
        if !self.is_applicable(m) {
            return false;
        }
        let target = match m {
            UP => self.blank - self.n,
            DOWN => self.blank + self.n,
            LEFT => self.blank - 1,
            _ => self.blank + 1,
        };
        self.tiles.swap(self.blank, target);
        self.blank = target;
        true
    }

    /// Applies `moves` in order.
    ///
    /// # Errors
    /// [`GridError::UnknownMove`] or [`GridError::IllegalMove`] at the first
    /// move that is not a legal move; the grid is then left as it was
    /// after the moves before it.
    pub fn apply_all(&mut self, moves: &[MoveId]) -> Result<(), GridError> {
        for (step, &m) in moves.iter().enumerate() {
            if usize::from(m) >= NUM_MOVES {
                return Err(GridError::UnknownMove { step, id: m });
            }
            if !self.apply(m) {
                let (row, col) = (self.blank / self.n, self.blank % self.n);
                return Err(GridError::IllegalMove { step, name: MOVE_NAMES[usize::from(m)], row, col });
            }
        }
        Ok(())
    }

    /// The grid `moves` lead to from this one (the check every solution
    /// passes before it is reported).
    ///
    /// # Errors
    /// As [`Grid::apply_all`].
    pub fn replay(&self, moves: &[MoveId]) -> Result<Self, GridError> {
        let mut g = self.clone();
        g.apply_all(moves)?;
        Ok(g)
    }

    /// Pairs of non-blank tiles out of order in row-major reading, counted
    /// with a Fenwick tree in O(n² log n).
    #[must_use]
    pub fn inversions(&self) -> u64 {
        let size = self.tiles.len();
        let mut tree = vec![0u32; size + 1];
        let mut count = 0u64;
        // Right to left: add how many smaller tiles were already seen.
        for &t in self.tiles.iter().rev().filter(|&&t| t != 0) {
            let mut i = usize::from(t) - 1;
            while i > 0 {
                count += u64::from(tree[i]);
                i &= i - 1;
            }
            let mut i = usize::from(t);
            while i <= size {
                tree[i] += 1;
                i += i & i.wrapping_neg();
            }
        }
        count
    }

    /// The solvability invariant: the parity of the inversions, plus the
    /// blank's row for even widths (see [`super::solvability`]).
    #[must_use]
    pub fn invariant(&self) -> Parity {
        let blank_term = if self.n.is_multiple_of(2) { self.blank / self.n } else { 0 };
        Parity::of(((self.inversions() % 2) as usize + blank_term) % 2)
    }

    /// The invariant of the blank-last goal of width `n`.
    #[must_use]
    pub fn goal_invariant(n: usize) -> Parity {
        Parity::of(if n.is_multiple_of(2) { n - 1 } else { 0 })
    }

    /// Checks that the grid can reach the blank-last goal.
    ///
    /// # Errors
    /// [`GridError::Unsolvable`], saying which parity differs.
    pub fn check_solvable(&self) -> Result<(), GridError> {
        let (board, goal) = (self.invariant(), Self::goal_invariant(self.n));
        if board == goal { Ok(()) } else { Err(GridError::Unsolvable { n: self.n, board, goal }) }
    }

    /// Whether the grid can reach the blank-last goal.
    #[must_use]
    pub fn is_solvable(&self) -> bool {
        self.check_solvable().is_ok()
    }

    /// A grid drawn uniformly from the `n²!/2` that can reach the goal:
    /// a uniform shuffle of the goal, and if that is unsolvable, a swap of
    /// its first two non-blank tiles (a bijection onto the solvable grids
    /// with the same blank cell). The same draws as
    /// [`super::Sliding::random_solvable`] with the blank-last goal.
    ///
    /// # Errors
    /// [`GridError::BadWidth`] for `n` outside `2..=256`.
    pub fn random_solvable<R: Rng + ?Sized>(n: usize, rng: &mut R) -> Result<Self, GridError> {
        let mut g = Self::goal(n)?;
        g.tiles.shuffle(rng);
        g.blank = g.tiles.iter().position(|&t| t == 0).unwrap_or(0);
        if g.invariant() != Self::goal_invariant(n) {
            let mut non_blank = (0..g.tiles.len()).filter(|&c| c != g.blank);
            if let (Some(a), Some(b)) = (non_blank.next(), non_blank.next()) {
                g.tiles.swap(a, b);
            }
        }
        Ok(g)
    }

    /// Sum over the tiles (blank excluded) of the row and column distances
    /// to their goal cells: a lower bound on the moves of any solution, and
    /// of the same parity as every solution's length (each move changes it
    /// by exactly one).
    #[must_use]
    pub fn manhattan(&self) -> u64 {
        let n = self.n;
        self.tiles
            .iter()
            .enumerate()
            .filter(|&(_, &t)| t != 0)
            .map(|(cell, &t)| {
                let goal = usize::from(t) - 1;
                ((cell / n).abs_diff(goal / n) + (cell % n).abs_diff(goal % n)) as u64
            })
            .sum()
    }

    /// The board turned by 180° with tile `t` renamed `n² − t` (the blank
    /// stays the blank). It maps the blank-first goal (`0 1 … n²−1`) to the
    /// blank-last goal and back, and a move `m` on one board to the
    /// opposite move ([`opposite`]) on the other, so a solver for the
    /// blank-last goal also solves blank-first instances, with the same
    /// number of moves. Applying it twice gives the grid back.
    #[must_use]
    pub fn half_turn(&self) -> Self {
        let cells = self.tiles.len();
        // n² − t < n² ≤ 65,536 for t ≥ 1, so it fits u16.
        let tiles: Vec<u16> =
            self.tiles.iter().rev().map(|&t| if t == 0 { 0 } else { (cells - usize::from(t)) as u16 }).collect();
        Self { n: self.n, tiles, blank: self.tiles.len() - 1 - self.blank }
    }

    /// The same position as a [`Board`] (widths up to 8).
    ///
    /// # Errors
    /// [`SlidingError::BadWidth`] for widths above 8.
    pub fn to_board(&self) -> Result<Board, SlidingError> {
        if self.n > super::board::MAX_N {
            return Err(SlidingError::BadWidth { n: self.n });
        }
        let tiles: Vec<u8> = self.tiles.iter().map(|&t| t as u8).collect();
        Board::from_tiles(&tiles)
    }

    /// The same position as a grid.
    #[must_use]
    pub fn from_board(board: &Board) -> Self {
        Self { n: board.n(), tiles: board.tiles().iter().map(|&t| u16::from(t)).collect(), blank: board.blank() }
    }
}

/// The move that slides the blank the opposite way (`U`↔`D`, `L`↔`R`):
/// the move's image under a half turn of the board.
#[must_use]
pub const fn opposite(m: MoveId) -> MoveId {
    match m {
        UP => DOWN,
        DOWN => UP,
        LEFT => RIGHT,
        RIGHT => LEFT,
        other => other,
    }
}

/// Rows separated by ` / `, tiles by a space (`1 2 3 / 4 5 6 / 7 8 0`),
/// the form [`str::parse`] reads back.
impl fmt::Display for Grid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (r, row) in self.tiles.chunks_exact(self.n).enumerate() {
            if r > 0 {
                f.write_str(" / ")?;
            }
            for (c, tile) in row.iter().enumerate() {
                if c > 0 {
                    f.write_str(" ")?;
                }
                write!(f, "{tile}")?;
            }
        }
        Ok(())
    }
}

impl fmt::Debug for Grid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Grid({}×{}: {self})", self.n, self.n)
    }
}

/// Reads a grid, inferring its width from the tile count.
impl FromStr for Grid {
    type Err = GridError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::parse(text, None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn fenwick_inversions_match_the_quadratic_count() {
        let mut rng = rand::rngs::ChaCha8Rng::seed_from_u64(3);
        for n in 2..=9 {
            let g = Grid::random_solvable(n, &mut rng).unwrap();
            let t: Vec<u16> = g.tiles().iter().copied().filter(|&t| t != 0).collect();
            let naive: u64 = (0..t.len()).map(|i| t[i + 1..].iter().filter(|&&b| b < t[i]).count() as u64).sum();
            assert_eq!(g.inversions(), naive, "{g:?}");
        }
    }

    #[test]
    fn half_turn_maps_blank_first_to_blank_last() {
        for n in 2..=6 {
            let blank_first = Grid::from_values(n, (0..(n * n) as i64).collect::<Vec<_>>()).unwrap();
            assert!(blank_first.half_turn().is_goal());
            assert_eq!(blank_first.half_turn().half_turn(), blank_first);
        }
    }
}
