//! N-queens in the complete-state formulation: one queen per column, a
//! state is the row of each column, a neighbour moves one queen to another
//! row of its column (N·(N−1) neighbours), and the cost `h` is the number
//! of pairs of queens that attack each other, directly or indirectly (the
//! convention of Russell & Norvig's *AIMA*); a goal has `h = 0`.
//!
//! The state keeps how many queens stand on every row, diagonal and
//! anti-diagonal, so a neighbour's `h` is read in O(1) and a move costs
//! O(1): a steepest-ascent step scans all N·(N−1) neighbours in O(N²).
//! [`count_solutions`] counts the goal states by exhaustive backtracking
//! (OEIS A000170), for the tests and for N = 2 and N = 3, which have none
//! and are refused rather than searched.

use super::{LocalError, LocalProblem};
use rand::{Rng, RngExt};

/// The largest board [`Queens::new`] accepts. Memory is O(N), but one
/// steepest-ascent step scans N·(N−1) neighbours and a climb takes on the
/// order of N/2 steps, so N = 1000 is already about 5·10⁸ neighbour reads
/// per climb (seconds); beyond that this formulation is the wrong tool.
pub const MAX_QUEENS: usize = 1000;

/// The largest N [`count_solutions`] counts (365,596 solutions, well
/// under a second; every further queen multiplies the work by about 6).
pub const MAX_COUNTED: usize = 14;

/// The N-queens problem on an N×N board, one queen per column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Queens {
    n: usize,
}

/// A board: the row of the queen in every column, with the line counts
/// that make neighbour costs O(1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueensState {
    /// Row of the queen in each column.
    rows: Vec<u32>,
    /// Queens on each row.
    on_row: Vec<u32>,
    /// Queens on each diagonal `row + column`.
    on_diagonal: Vec<u32>,
    /// Queens on each anti-diagonal `row + N − 1 − column`.
    on_anti: Vec<u32>,
    /// Attacking pairs.
    h: i64,
}

impl QueensState {
    /// The row of the queen in each column.
    #[must_use]
    pub fn rows(&self) -> &[u32] {
        &self.rows
    }
}

/// Whether some placement of `n` non-attacking queens exists: for every
/// `n ≥ 1` except 2 and 3 (a classical result, with explicit constructions
/// for all larger `n`; the tests check it against [`count_solutions`]).
#[must_use]
pub fn has_solution(n: u64) -> bool {
    n >= 1 && n != 2 && n != 3
}

/// Attacking pairs of a board given by its rows, counted pair by pair
/// (O(N²)), independently of the incremental counts.
#[must_use]
pub fn attacking_pairs(rows: &[u32]) -> i64 {
    let mut pairs = 0;
    for (a, &ra) in rows.iter().enumerate() {
        for (b, &rb) in rows.iter().enumerate().skip(a + 1) {
            if ra == rb || (ra as usize).abs_diff(rb as usize) == b - a {
                pairs += 1;
            }
        }
    }
    pairs
}

/// The number of ways to place `n` non-attacking queens on an `n × n`
/// board, by exhaustive backtracking over bit masks (OEIS A000170:
/// 1, 0, 0, 2, 10, 4, 40, 92, 352, 724 for n = 1..10; 1 for n = 0).
///
/// # Errors
/// [`LocalError::CountTooLarge`] for `n >` [`MAX_COUNTED`].
pub fn count_solutions(n: usize) -> Result<u64, LocalError> {
    if n > MAX_COUNTED {
        return Err(LocalError::CountTooLarge { n, max: MAX_COUNTED });
    }
    fn place(full: u32, cols: u32, left: u32, right: u32) -> u64 {
        if cols == full {
            return 1;
        }
        let mut free = full & !(cols | left | right);
        let mut count = 0;
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free ^= bit;
            count += place(full, cols | bit, ((left | bit) << 1) & full, (right | bit) >> 1);
        }
        count
    }
    let full = if n == 0 { 0 } else { u32::MAX >> (32 - n) };
    Ok(place(full, 0, 0, 0))
}

impl Queens {
    /// The problem on an `n × n` board.
    ///
    /// # Errors
    /// `n = 0`, `n = 2` or `n = 3` (no solution: refused, never searched),
    /// or `n >` [`MAX_QUEENS`].
    pub fn new(n: u64) -> Result<Self, LocalError> {
        match n {
            0 => Err(LocalError::QueensTooFew { n }),
            _ if !has_solution(n) => Err(LocalError::NoSolution { n }),
            _ if n > MAX_QUEENS as u64 => Err(LocalError::QueensTooMany { n, max: MAX_QUEENS }),
            _ => Ok(Self { n: n as usize }),
        }
    }

    /// The board size N.
    #[must_use]
    pub fn n(&self) -> usize {
        self.n
    }

    /// The board with the queen of column `c` on row `rows[c]`; `None`
    /// unless there are N rows, each below N.
    #[must_use]
    pub fn state(&self, rows: &[u32]) -> Option<QueensState> {
        let n = self.n;
        if rows.len() != n || rows.iter().any(|&r| r as usize >= n) {
            return None;
        }
        let mut s = QueensState {
            rows: rows.to_vec(),
            on_row: vec![0; n],
            on_diagonal: vec![0; 2 * n - 1],
            on_anti: vec![0; 2 * n - 1],
            h: 0,
        };
        for (c, &r) in rows.iter().enumerate() {
            let r = r as usize;
            // A queen attacks every queen already on its three lines.
            s.h += i64::from(s.on_row[r] + s.on_diagonal[r + c] + s.on_anti[r + n - 1 - c]);
            s.on_row[r] += 1;
            s.on_diagonal[r + c] += 1;
            s.on_anti[r + n - 1 - c] += 1;
        }
        Some(s)
    }

    /// Column and new row of neighbour `i`: column `i / (N−1)`, and the
    /// `(i mod (N−1))`-th row other than the queen's own.
    fn decode(&self, state: &QueensState, i: usize) -> (usize, usize) {
        let c = i / (self.n - 1);
        let k = i % (self.n - 1);
        let r = if k < state.rows[c] as usize { k } else { k + 1 };
        (c, r)
    }

    /// Queens other than the one in column `c` on the three lines through
    /// `(r, c)`, where `r` is that queen's row (`own = 1`) or not (`own = 0`).
    fn others(&self, s: &QueensState, r: usize, c: usize, own: u32) -> i64 {
        let n = self.n;
        i64::from(s.on_row[r] + s.on_diagonal[r + c] + s.on_anti[r + n - 1 - c]) - 3 * i64::from(own)
    }
}

impl LocalProblem for Queens {
    type State = QueensState;

    fn name(&self) -> String {
        format!("queens{}", self.n)
    }

    fn random_state<R: Rng + ?Sized>(&self, rng: &mut R) -> QueensState {
        let rows: Vec<u32> = (0..self.n).map(|_| rng.random_range(0..self.n as u32)).collect();
        self.state(&rows).expect("rows drawn below N")
    }

    fn cost(&self, state: &QueensState) -> i64 {
        state.h
    }

    fn recompute_cost(&self, state: &QueensState) -> i64 {
        attacking_pairs(&state.rows)
    }

    fn neighbours(&self, _state: &QueensState) -> usize {
        self.n * (self.n - 1)
    }

    fn neighbour_cost(&self, state: &QueensState, i: usize) -> i64 {
        let (c, r) = self.decode(state, i);
        let r0 = state.rows[c] as usize;
        state.h - self.others(state, r0, c, 1) + self.others(state, r, c, 0)
    }

    fn move_to(&self, state: &mut QueensState, i: usize) {
        let n = self.n;
        let (c, r) = self.decode(state, i);
        let r0 = state.rows[c] as usize;
        state.h -= self.others(state, r0, c, 1);
        state.on_row[r0] -= 1;
        state.on_diagonal[r0 + c] -= 1;
        state.on_anti[r0 + n - 1 - c] -= 1;
        state.h += self.others(state, r, c, 0);
        state.on_row[r] += 1;
        state.on_diagonal[r + c] += 1;
        state.on_anti[r + n - 1 - c] += 1;
        state.rows[c] = r as u32;
    }

    fn is_goal(&self, cost: i64) -> bool {
        cost == 0
    }

    fn optimum(&self) -> i64 {
        0
    }

    fn describe(&self, state: &QueensState) -> String {
        let rows: Vec<String> = state.rows.iter().map(u32::to_string).collect();
        format!("rows {}", rows.join(" "))
    }
}
