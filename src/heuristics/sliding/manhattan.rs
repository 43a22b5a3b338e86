//! Manhattan distance (h2): the sum over tiles of the grid distance from
//! a tile's cell to its goal cell.
//!
//! It solves the relaxation in which tiles may slide onto occupied cells:
//! each tile then walks its shortest grid path alone. A real move moves one
//! tile by one cell, changing the sum by exactly ±1, so the heuristic is
//! admissible and consistent, and the child's value follows from the
//! parent's in O(1) from the one tile that moved
//! ([`Heuristic::estimate_child`]), which is what depth-first searches use.

use super::{goal_cells, moved_from};
use crate::heuristics::Heuristic;
use crate::puzzle::MoveId;
use crate::sliding::MAX_CELLS;
use crate::sliding::{Board, Sliding};

/// Sum over tiles of the grid distance to the goal cell.
#[derive(Clone, Debug)]
pub struct Manhattan {
    /// `table[tile * 64 + cell]` = distance of `tile` at `cell` to its goal
    /// (0 for the blank). Fixed size and inline (4 KiB, one indirection
    /// less in the search loop), so indices masked to 12 bits need no
    /// bounds check.
    table: [u8; MAX_CELLS * MAX_CELLS],
}

impl Manhattan {
    /// The heuristic for puzzle `p`'s goal.
    #[must_use]
    pub fn new(p: &Sliding) -> Self {
        let n = p.n();
        let cells = n * n;
        let goal = goal_cells(p);
        let mut table = [0u8; MAX_CELLS * MAX_CELLS];
        for tile in 1..cells {
            let (gr, gc) = (goal[tile] / n, goal[tile] % n);
            for cell in 0..cells {
                table[tile * MAX_CELLS + cell] = ((cell / n).abs_diff(gr) + (cell % n).abs_diff(gc)) as u8;
            }
        }
        Self { table }
    }

    /// Distance of `tile` on `cell` to its goal cell.
    #[inline]
    #[must_use]
    pub fn tile_distance(&self, tile: u8, cell: usize) -> u32 {
        u32::from(self.table[(usize::from(tile) & (MAX_CELLS - 1)) << 6 | (cell & (MAX_CELLS - 1))])
    }

    /// The change in Manhattan distance when the tile at `from` slides to
    /// `to` (O(1)).
    #[must_use]
    pub fn delta(&self, s: &Board, from: usize, to: usize) -> i32 {
        let t = s.tiles()[from];
        self.tile_distance(t, to) as i32 - self.tile_distance(t, from) as i32
    }
}

impl Heuristic<Sliding> for Manhattan {
    #[inline]
    fn estimate(&self, _: &Sliding, s: &Board) -> u32 {
        s.tiles().iter().enumerate().map(|(cell, &t)| self.tile_distance(t, cell)).sum()
    }

    /// O(1): the tile that slid went from the child's blank cell to the
    /// parent's blank cell.
    #[inline]
    fn estimate_child(&self, _: &Sliding, child: &Board, m: MoveId, parent_h: u32) -> u32 {
        let from = child.blank();
        let to = moved_from(from, child.n(), m);
        let t = child.tiles[to & (MAX_CELLS - 1)];
        (parent_h + self.tile_distance(t, to)).wrapping_sub(self.tile_distance(t, from))
    }

    /// O(1) before the move: the tile next to the blank in direction `m`
    /// slides onto the blank's cell.
    #[inline]
    fn estimate_move(&self, _: &Sliding, parent: &Board, m: MoveId, parent_h: u32) -> Option<u32> {
        let to = parent.blank();
        let from = moved_from(to, parent.n(), crate::puzzle::MoveId::from(m ^ 1));
        let t = parent.tiles[from & (MAX_CELLS - 1)];
        Some((parent_h + self.tile_distance(t, to)).wrapping_sub(self.tile_distance(t, from)))
    }

    fn name(&self) -> String {
        "manhattan".into()
    }
    fn admissible(&self) -> bool {
        true
    }
}
