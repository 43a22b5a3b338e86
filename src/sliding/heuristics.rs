//! Classic admissible heuristics of the sliding puzzle, for any width and
//! goal: misplaced tiles (h1) and Manhattan distance (h2).
//!
//! Both count only tiles, never the blank. Every move changes one tile's
//! position by one cell, so neither overestimates: misplaced tiles is a
//! relaxation where a tile may jump anywhere, Manhattan one where tiles may
//! share cells. Manhattan dominates misplaced tiles (each misplaced tile is
//! at least one cell away).

use super::{Board, Sliding};
use crate::puzzle::Puzzle;
use crate::search::Heuristic;

/// Goal cell of every tile of a puzzle.
fn goal_cells(p: &Sliding) -> Vec<usize> {
    let goal = p.goal();
    let mut cells = vec![0; goal.tiles().len()];
    for (cell, &tile) in goal.tiles().iter().enumerate() {
        cells[tile as usize] = cell;
    }
    cells
}

/// Number of tiles not on their goal cell.
#[derive(Clone, Debug)]
pub struct Misplaced {
    goal: Vec<usize>,
}

impl Misplaced {
    /// The heuristic for puzzle `p`'s goal.
    #[must_use]
    pub fn new(p: &Sliding) -> Self {
        Self { goal: goal_cells(p) }
    }
}

impl Heuristic<Sliding> for Misplaced {
    fn estimate(&self, _: &Sliding, s: &Board) -> u32 {
        s.tiles().iter().enumerate().filter(|&(cell, &t)| t != 0 && self.goal[t as usize] != cell).count() as u32
    }
    fn name(&self) -> String {
        "misplaced".into()
    }
    fn admissible(&self) -> bool {
        true
    }
}

/// Sum over tiles of the grid distance to the goal cell.
#[derive(Clone, Debug)]
pub struct Manhattan {
    /// `table[tile * cells + cell]` = distance of `tile` at `cell` to its goal.
    table: Vec<u8>,
    cells: usize,
}

impl Manhattan {
    /// The heuristic for puzzle `p`'s goal.
    #[must_use]
    pub fn new(p: &Sliding) -> Self {
        let n = p.n();
        let cells = n * n;
        let goal = goal_cells(p);
        let mut table = vec![0u8; cells * cells];
        for tile in 1..cells {
            let (gr, gc) = (goal[tile] / n, goal[tile] % n);
            for cell in 0..cells {
                table[tile * cells + cell] = ((cell / n).abs_diff(gr) + (cell % n).abs_diff(gc)) as u8;
            }
        }
        Self { table, cells }
    }

    /// The change in Manhattan distance when the tile at `from` slides to
    /// `to` (O(1); the incremental update IDA* can use).
    #[must_use]
    pub fn delta(&self, s: &Board, from: usize, to: usize) -> i32 {
        let t = s.tiles()[from] as usize;
        i32::from(self.table[t * self.cells + to]) - i32::from(self.table[t * self.cells + from])
    }
}

impl Heuristic<Sliding> for Manhattan {
    fn estimate(&self, _: &Sliding, s: &Board) -> u32 {
        s.tiles()
            .iter()
            .enumerate()
            .filter(|&(_, &t)| t != 0)
            .map(|(cell, &t)| u32::from(self.table[t as usize * self.cells + cell]))
            .sum()
    }
    fn name(&self) -> String {
        "manhattan".into()
    }
    fn admissible(&self) -> bool {
        true
    }
}

/// Manhattan distance plus linear conflicts (Hansson, Mayer and Yung 1992),
/// in the exact longest-increasing-subsequence form.
///
/// In a row, take the tiles whose goal row is that row, in their current
/// left-to-right order, and their goal columns. Tiles outside a longest
/// increasing subsequence of those columns must leave the row and come
/// back to let the others pass: at least 2 vertical moves each, which
/// Manhattan does not count. Columns are treated the same way with
/// horizontal moves. Row conflicts only add vertical moves and column
/// conflicts only horizontal ones, so the two sums add without double
/// counting, and the heuristic stays admissible; it dominates Manhattan.
#[derive(Clone, Debug)]
pub struct LinearConflict {
    manhattan: Manhattan,
    goal: Vec<usize>,
    n: usize,
}

impl LinearConflict {
    /// The heuristic for puzzle `p`'s goal.
    #[must_use]
    pub fn new(p: &Sliding) -> Self {
        Self { manhattan: Manhattan::new(p), goal: goal_cells(p), n: p.n() }
    }

    /// Tiles that must leave their line, summed over rows and columns.
    #[must_use]
    pub fn conflicts(&self, s: &Board) -> u32 {
        let n = self.n;
        let tiles = s.tiles();
        let mut total = 0;
        let mut seq = [0usize; 8];
        for line in 0..n {
            for by_row in [true, false] {
                let mut k = 0;
                for i in 0..n {
                    let cell = if by_row { line * n + i } else { i * n + line };
                    let t = tiles[cell] as usize;
                    if t == 0 {
                        continue;
                    }
                    let (gr, gc) = (self.goal[t] / n, self.goal[t] % n);
                    if by_row && gr == line {
                        seq[k] = gc;
                        k += 1;
                    } else if !by_row && gc == line {
                        seq[k] = gr;
                        k += 1;
                    }
                }
                total += (k - longest_increasing(&seq[..k])) as u32;
            }
        }
        total
    }
}

/// Length of a longest strictly increasing subsequence (O(k²), k ≤ 8).
fn longest_increasing(seq: &[usize]) -> usize {
    let mut best = [1usize; 8];
    let mut longest = 0;
    for i in 0..seq.len() {
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
        let p = Sliding::new(3, super::super::Goal::BlankLast).unwrap();
        let b = p.parse_board("3 2 1 / 4 5 6 / 7 8 0").unwrap();
        let lc = LinearConflict::new(&p);
        assert_eq!(lc.conflicts(&b), 2);
        assert_eq!(Manhattan::new(&p).estimate(&p, &b), 4);
        assert_eq!(lc.estimate(&p, &b), 8);
    }
}
