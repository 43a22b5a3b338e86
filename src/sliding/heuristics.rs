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
