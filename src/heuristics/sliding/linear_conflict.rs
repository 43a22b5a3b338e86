//! Linear conflict (Hansson, Mayer and Yung 1992): Manhattan distance plus
//! two moves for every tile that must leave its line to let others pass,
//! in the exact longest-increasing-subsequence form.
//!
//! Take a row and the tiles in it whose goal row is that row (its *group*),
//! in their current left-to-right order. Tiles that never leave the row
//! cannot pass each other, and they end in goal-column order, so the ones
//! that stay form an increasing subsequence of the group's goal columns.
//! At least `k − LIS` of the `k` tiles must therefore leave the row and
//! come back: two vertical moves each that Manhattan (vertical distance 0)
//! does not count. Columns are treated the same way with horizontal moves.
//! Row conflicts only add vertical moves and column conflicts horizontal
//! ones, and every group holds distinct tiles, so all the additions are
//! independent: the sum stays admissible and dominates Manhattan.
//!
//! A move changes Manhattan by ±1 and the conflicts of the two lines the
//! tile leaves and enters by at most one in the opposite direction, so the
//! value changes by exactly ±1 per move: the heuristic is consistent and
//! has the parity of the true distance. The child's value is updated from
//! the parent's by recomputing only those two lines.

use super::{Manhattan, goal_cells, moved_from};
use crate::heuristics::Heuristic;
use crate::puzzle::MoveId;
use crate::sliding::MAX_CELLS;
use crate::sliding::{Board, Sliding};
use crate::sliding::{DOWN, UP};

/// Manhattan distance plus linear conflicts (exact LIS form).
#[derive(Clone, Debug)]
pub struct LinearConflict {
    pub(crate) manhattan: Manhattan,
    /// Goal row of every tile (blank included).
    goal_row: [u8; MAX_CELLS],
    /// Goal column of every tile (blank included).
    goal_col: [u8; MAX_CELLS],
    pub(crate) n: usize,
}

impl LinearConflict {
    /// The heuristic for puzzle `p`'s goal.
    #[must_use]
    pub fn new(p: &Sliding) -> Self {
        let n = p.n();
        let (mut goal_row, mut goal_col) = ([0u8; MAX_CELLS], [0u8; MAX_CELLS]);
        for (tile, &cell) in goal_cells(p).iter().enumerate() {
            goal_row[tile] = (cell / n) as u8;
            goal_col[tile] = (cell % n) as u8;
        }
        Self { manhattan: Manhattan::new(p), goal_row, goal_col, n }
    }

    /// Tiles that must leave their line, summed over rows and columns.
    #[must_use]
    pub fn conflicts(&self, s: &Board) -> u32 {
        let at = |cell: usize| s.tiles[cell & (MAX_CELLS - 1)];
        (0..self.n).map(|line| self.line_conflicts(at, line, true, 0) + self.line_conflicts(at, line, false, 0)).sum()
    }

    /// Conflicts (`k − LIS`) of row `line` (`by_row`) or column `line`,
    /// reading cells through `at`, leaving out the cells whose bit is set
    /// in `skip`.
    #[inline]
    pub(crate) fn line_conflicts(&self, at: impl Fn(usize) -> u8, line: usize, by_row: bool, skip: u64) -> u32 {
        let n = self.n;
        let mut seq = [0u8; 8];
        let mut k = 0;
        for i in 0..n {
            let cell = if by_row { line * n + i } else { i * n + line };
            let t = at(cell);
            if t == 0 || skip >> cell & 1 != 0 {
                continue;
            }
            let t = usize::from(t) & (MAX_CELLS - 1);
            let (home, pos) =
                if by_row { (self.goal_row[t], self.goal_col[t]) } else { (self.goal_col[t], self.goal_row[t]) };
            if usize::from(home) == line {
                seq[k & 7] = pos;
                k += 1;
            }
        }
        (k - longest_increasing(&seq[..k])) as u32
    }
}

/// Length of a longest strictly increasing subsequence (O(k²), k ≤ 8).
pub(crate) fn longest_increasing(seq: &[u8]) -> usize {
    let mut best = [1usize; 8];
    let mut longest = 0;
    for i in 0..seq.len().min(8) {
        for j in 0..i {
            if seq[j] < seq[i] {
                best[i] = best[i].max(best[j] + 1);
            }
        }
        longest = longest.max(best[i]);
    }
    longest
}

impl Heuristic<Sliding> for LinearConflict {
    fn estimate(&self, p: &Sliding, s: &Board) -> u32 {
        self.manhattan.estimate(p, s) + 2 * self.conflicts(s)
    }

    /// Manhattan's O(1) update plus the conflicts of the two lines the
    /// moved tile left and entered (rows for `U`/`D`, columns for `L`/`R`);
    /// the other lines keep their tiles in the same order.
    fn estimate_child(&self, p: &Sliding, child: &Board, m: MoveId, parent_h: u32) -> u32 {
        let n = self.n;
        let from = child.blank();
        let to = moved_from(from, n, m);
        let t = child.tiles[to & (MAX_CELLS - 1)];
        let man = self.manhattan.estimate_child(p, child, m, 0);
        let by_row = m == UP || m == DOWN;
        let (a, b) = if by_row { (from / n, to / n) } else { (from % n, to % n) };
        let now = |cell: usize| child.tiles[cell & (MAX_CELLS - 1)];
        let before = |cell: usize| {
            if cell == from {
                t
            } else if cell == to {
                0
            } else {
                child.tiles[cell & (MAX_CELLS - 1)]
            }
        };
        let after = self.line_conflicts(now, a, by_row, 0) + self.line_conflicts(now, b, by_row, 0);
        let prior = self.line_conflicts(before, a, by_row, 0) + self.line_conflicts(before, b, by_row, 0);
        // `man` is the Manhattan change modulo 2³² (parent value 0).
        parent_h.wrapping_add(man).wrapping_add(2 * after).wrapping_sub(2 * prior)
    }

    fn name(&self) -> String {
        "linear-conflict".into()
    }
    fn admissible(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::puzzle::Puzzle;
    use crate::sliding::Goal;

    #[test]
    fn longest_increasing_subsequences() {
        assert_eq!(longest_increasing(&[]), 0);
        assert_eq!(longest_increasing(&[2, 1, 0]), 1);
        assert_eq!(longest_increasing(&[0, 2, 1, 3]), 3);
    }

    #[test]
    fn a_reversed_row_has_two_conflicts() {
        // 3 2 1 / 4 5 6 / 7 8 0 against blank-last: row 0 holds 3 2 1, all
        // in their goal row; an increasing subsequence keeps one, so two
        // tiles leave: +4 over Manhattan (4).
        let p = Sliding::new(3, Goal::BlankLast).unwrap();
        let b = p.parse_board("3 2 1 / 4 5 6 / 7 8 0").unwrap();
        let lc = LinearConflict::new(&p);
        assert_eq!(lc.conflicts(&b), 2);
        assert_eq!(Manhattan::new(&p).estimate(&p, &b), 4);
        assert_eq!(lc.estimate(&p, &b), 8);
    }

    #[test]
    fn the_incremental_update_matches_recomputation() {
        for n in [3, 4, 5] {
            let p = Sliding::new(n, Goal::Snail).unwrap();
            let lc = LinearConflict::new(&p);
            let mut s = p.goal();
            let mut h = lc.estimate(&p, &s);
            let mut x = 12345u64;
            for _ in 0..5000 {
                x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                let m = (x >> 60) as MoveId % 4;
                if p.is_applicable(&s, m) {
                    p.apply(&mut s, m);
                    h = lc.estimate_child(&p, &s, m, h);
                    assert_eq!(h, lc.estimate(&p, &s), "{s}");
                }
            }
        }
    }
}
