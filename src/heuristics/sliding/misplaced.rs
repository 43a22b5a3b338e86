//! Misplaced tiles (h1): the number of tiles off their goal cell.
//!
//! It solves the relaxation in which a tile may jump to any cell in one
//! move: every misplaced tile needs exactly one jump. A real move changes
//! one tile's cell, so the count changes by at most one per move: the
//! heuristic is admissible and consistent.

use super::goal_cells;
use crate::heuristics::Heuristic;
use crate::sliding::{Board, Sliding};

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
