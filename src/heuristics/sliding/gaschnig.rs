//! Gaschnig's heuristic (1979): the exact solution length of the
//! relaxation in which any tile may jump into the blank's cell from
//! anywhere (a swap of the blank with any tile).
//!
//! **Exact value.** Follow the permutation that sends each cell to the goal
//! cell of the tile on it. In the cycle that holds the blank every swap
//! can put one tile home, so a cycle of `L` cells costs `L − 1` swaps. A
//! cycle of `L ≥ 2` misplaced tiles without the blank costs `L + 1`: one
//! swap brings the blank into it, placing no tile (the tile it displaces
//! goes to the blank's cell, not home), and `L` swaps then place its `L`
//! tiles; no swap places more than one tile. So the value is the number of misplaced
//! tiles plus the number of cycles of length ≥ 2 that do not contain the
//! blank. (A test checks it against a breadth-first search of the relaxed
//! puzzle on every 3×3 arrangement.)
//!
//! A real move is one such swap, so the heuristic is admissible and
//! consistent. It never falls below misplaced tiles and sometimes exceeds
//! Manhattan distance (e.g. `2 1 6 / 5 4 3 / 8 7 0`, where Manhattan and
//! misplaced both count 8 and Gaschnig 12), but Manhattan is usually larger.

use super::goal_cells;
use crate::heuristics::Heuristic;
use crate::sliding::MAX_CELLS;
use crate::sliding::{Board, Sliding};

/// Swaps with the blank needed to sort the board (Gaschnig's relaxation).
#[derive(Clone, Debug)]
pub struct Gaschnig {
    /// Goal cell of every tile (blank included).
    goal: [u8; MAX_CELLS],
}

impl Gaschnig {
    /// The heuristic for puzzle `p`'s goal.
    #[must_use]
    pub fn new(p: &Sliding) -> Self {
        let mut goal = [0u8; MAX_CELLS];
        for (tile, &cell) in goal_cells(p).iter().enumerate() {
            goal[tile] = cell as u8;
        }
        Self { goal }
    }
}

impl Heuristic<Sliding> for Gaschnig {
    fn estimate(&self, _: &Sliding, s: &Board) -> u32 {
        let tiles = s.tiles();
        let target = |cell: usize| usize::from(self.goal[usize::from(tiles[cell]) & (MAX_CELLS - 1)]);
        let mut seen = 0u64;
        let (mut misplaced, mut cycles) = (0, 0);
        for start in 0..tiles.len() {
            if seen >> start & 1 != 0 || target(start) == start {
                continue;
            }
            let (mut cell, mut has_blank) = (start, false);
            while seen >> cell & 1 == 0 {
                seen |= 1 << cell;
                if tiles[cell] == 0 {
                    has_blank = true;
                } else {
                    misplaced += 1;
                }
                cell = target(cell);
            }
            cycles += u32::from(!has_blank);
        }
        misplaced + cycles
    }
    fn name(&self) -> String {
        "gaschnig".into()
    }
    fn admissible(&self) -> bool {
        true
    }
}
