//! Linear conflict with the corner-tiles enhancement (Korf and Taylor
//! 1996): two more moves for a tile next to a corner that sits home while
//! a wrong tile blocks that corner, unless the tile's moves are already
//! counted by a linear conflict.
//!
//! **The rule.** Let `c` be a corner cell whose goal tile `T` is not the
//! blank, holding a tile `X` that is neither `T` nor the blank. Let `a` be
//! a cell next to `c` whose goal tile `A` is not the blank and is on `a`
//! (home). Such an `A` is a *candidate*; a tile next to two corners (3×3
//! edge centres, the 2×2 board) is one candidate, counted at most once.
//! A candidate *qualifies* when removing every candidate from its row
//! group and from its column group leaves both groups' conflict counts
//! (`k − LIS`, see [`super::linear_conflict`]) unchanged. The heuristic is
//! linear conflict + 2 per qualifying candidate.
//!
//! **Why it is admissible.** (1) `A` must move. The blank can reach `c`
//! only through `a` or the corner's other neighbour `a'`. If `A` never
//! left `a`, the blank could enter `c` only from `a'`, pushing `X` to `a'`,
//! and its only way out would be back to `a'`, pushing `X` back: `c` would
//! hold `X` forever and the goal could not be reached. A tile that leaves
//! its goal cell and returns moves at least twice, and its Manhattan
//! distance is 0, so `A` has two moves Manhattan does not count. (With the
//! blank on `c` no bound follows, since `T` may slide in from `a'`; so the
//! rule needs a tile on `c`.) (2) No double counting. Write the solution
//! length as the sum over tiles of each tile's vertical and horizontal
//! moves. Manhattan bounds every tile separately; a line group's conflict
//! argument holds for any subset of the group (tiles that stay in the line
//! keep their order), so the conflict bound can be taken over the group
//! *without* the qualifying tiles `Q`, and it is then a claim about tiles
//! outside `Q` only. Removing tiles never raises `k − LIS`, so for a group
//! that passed the test `conflicts(g ∖ Q) ≥ conflicts(g ∖ candidates) =
//! conflicts(g)`; groups without qualifying tiles keep their own count.
//! Hence the moves of tiles outside `Q` are at least Manhattan + 2·(all
//! conflicts), and each tile of `Q` adds its own two moves. A candidate
//! whose group count drops when it is left out gets nothing: the conflict
//! may be resolved by moving exactly that tile, so its two moves may be
//! the ones already counted (e.g. `3 2 1` in the top row of the 8-puzzle:
//! without `2` the row has one conflict instead of two).
//!
//! The value is always linear conflict plus an even number, so it keeps
//! the parity of the true distance and dominates linear conflict.
//! Consistency is not claimed.

use super::LinearConflict;
use crate::heuristics::Heuristic;
use crate::puzzle::Puzzle;
use crate::sliding::MAX_CELLS;
use crate::sliding::{Board, Sliding};

/// A corner cell, its goal tile, and its neighbours with theirs.
#[derive(Clone, Debug)]
struct Corner {
    cell: usize,
    tile: u8,
    /// `(cell, goal tile)` of the neighbours whose goal tile is not the blank.
    neighbours: Vec<(usize, u8)>,
}

/// Linear conflict plus the corner-tiles enhancement (see the module
/// documentation for the exact rule and its admissibility).
#[derive(Clone, Debug)]
pub struct LinearConflictCorner {
    lc: LinearConflict,
    corners: Vec<Corner>,
}

impl LinearConflictCorner {
    /// The heuristic for puzzle `p`'s goal.
    #[must_use]
    pub fn new(p: &Sliding) -> Self {
        let n = p.n();
        let goal = p.goal();
        let g = goal.tiles();
        let mut corners = Vec::new();
        for (r, c) in [(0, 0), (0, n - 1), (n - 1, 0), (n - 1, n - 1)] {
            let cell = r * n + c;
            if g[cell] == 0 {
                continue;
            }
            let mut neighbours = Vec::new();
            let rn = if r == 0 { 1 } else { r - 1 };
            let cn = if c == 0 { 1 } else { c - 1 };
            for adj in [rn * n + c, r * n + cn] {
                if g[adj] != 0 {
                    neighbours.push((adj, g[adj]));
                }
            }
            corners.push(Corner { cell, tile: g[cell], neighbours });
        }
        Self { lc: LinearConflict::new(p), corners }
    }

    /// Bit mask (by cell) of the corner-adjacent tiles that qualify for the
    /// two extra moves.
    #[must_use]
    pub fn qualifying(&self, s: &Board) -> u64 {
        let tiles = s.tiles();
        let mut candidates = 0u64;
        for corner in &self.corners {
            let x = tiles[corner.cell];
            if x == 0 || x == corner.tile {
                continue;
            }
            for &(adj, a) in &corner.neighbours {
                if tiles[adj] == a {
                    candidates |= 1 << adj;
                }
            }
        }
        if candidates == 0 {
            return 0;
        }
        let n = self.lc.n;
        let at = |cell: usize| s.tiles[cell & (MAX_CELLS - 1)];
        let unchanged = |line: usize, by_row: bool| {
            self.lc.line_conflicts(at, line, by_row, candidates) == self.lc.line_conflicts(at, line, by_row, 0)
        };
        let mut qualifying = 0u64;
        let mut rest = candidates;
        while rest != 0 {
            let cell = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            if unchanged(cell / n, true) && unchanged(cell % n, false) {
                qualifying |= 1 << cell;
            }
        }
        qualifying
    }
}

impl Heuristic<Sliding> for LinearConflictCorner {
    fn estimate(&self, p: &Sliding, s: &Board) -> u32 {
        self.lc.estimate(p, s) + 2 * self.qualifying(s).count_ones()
    }
    fn name(&self) -> String {
        "linear-conflict+corner".into()
    }
    fn admissible(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sliding::Goal;

    #[test]
    fn the_rule_on_hand_made_boards() {
        let p = Sliding::new(3, Goal::BlankLast).unwrap();
        let h = LinearConflictCorner::new(&p);
        let lc = LinearConflict::new(&p);
        let value = |text: &str| {
            let b = p.parse_board(text).unwrap();
            (lc.estimate(&p, &b), h.estimate(&p, &b))
        };
        // 2 and 4 are home, 5 blocks the corner of 1: both must step aside.
        assert_eq!(value("5 2 3 / 4 1 6 / 7 8 0"), (4, 8));
        // The blank on the corner gives nothing (1 slides in from below).
        assert_eq!(value("0 2 3 / 1 5 6 / 4 7 8").1, 4);
        // 3 2 1 in row 0: 2 takes part in the conflict and gets nothing;
        // 4 and 6 (beside the corners of 1 and 3) count.
        let (l, c) = value("3 2 1 / 4 5 6 / 7 8 0");
        assert_eq!(c, l + 4);
    }
}
