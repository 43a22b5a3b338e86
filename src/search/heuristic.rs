//! Heuristics: estimates of the distance from a state to the goal.
//!
//! A heuristic is *admissible* when it never exceeds the true distance;
//! optimal searches (A*, IDA*) refuse heuristics that do not declare it.

use crate::puzzle::Puzzle;

/// A distance estimate for states of puzzle `P`.
pub trait Heuristic<P: Puzzle> {
    /// Estimated moves from `s` to the goal.
    fn estimate(&self, puzzle: &P, s: &P::State) -> u32;
    /// Short name for tables, e.g. `manhattan`.
    fn name(&self) -> String;
    /// Whether the estimate never exceeds the true distance.
    fn admissible(&self) -> bool;
}

/// The zero heuristic: turns A* into uniform-cost search.
#[derive(Clone, Copy, Debug, Default)]
pub struct Zero;

impl<P: Puzzle> Heuristic<P> for Zero {
    fn estimate(&self, _: &P, _: &P::State) -> u32 {
        0
    }
    fn name(&self) -> String {
        "zero".into()
    }
    fn admissible(&self) -> bool {
        true
    }
}
