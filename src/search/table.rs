//! BFS lookup tables: exact distances from the goal, the perfect
//! heuristic `h*`.
//!
//! A breadth-first search from the goal over the whole reachable space (or
//! up to a depth) records every state's distance. As a heuristic it is
//! exact where it has an entry, and for states beyond a depth-limited table
//! it returns the table's depth + 1, which is still admissible.

use crate::heuristics::Heuristic;
use crate::puzzle::{MoveId, Puzzle};
use std::collections::HashMap;

/// Distances from the goal.
#[derive(Clone, Debug)]
pub struct DistanceTable<P: Puzzle> {
    dist: HashMap<P::Key, u8>,
    /// Number of states at each distance.
    pub counts: Vec<u64>,
    complete: bool,
}

impl<P: Puzzle> DistanceTable<P> {
    /// BFS from the goal up to `max_depth` (stops early when the space is
    /// exhausted, making the table complete).
    pub fn build(puzzle: &P, max_depth: u8) -> Self {
        Self::bfs(puzzle, max_depth, false).0
    }

    /// [`DistanceTable::build`], also returning the states themselves, one
    /// layer per distance (`layers[d]` holds every state at distance `d`).
    /// For spaces small enough to enumerate.
    pub fn build_with_layers(puzzle: &P, max_depth: u8) -> (Self, Vec<Vec<P::State>>) {
        Self::bfs(puzzle, max_depth, true)
    }

    fn bfs(puzzle: &P, max_depth: u8, keep: bool) -> (Self, Vec<Vec<P::State>>) {
        let goal = puzzle.goal();
        let mut layers = Vec::new();
        let mut dist = HashMap::new();
        dist.insert(puzzle.key(&goal), 0u8);
        let mut frontier = vec![goal];
        let mut counts = vec![1u64];
        let mut complete = false;
        for d in 1..=max_depth {
            let mut next = Vec::new();
            for s in &frontier {
                for m in 0..puzzle.num_moves() as MoveId {
                    if !puzzle.is_applicable(s, m) {
                        continue;
                    }
                    let mut c = s.clone();
                    puzzle.apply(&mut c, m);
                    if let std::collections::hash_map::Entry::Vacant(e) = dist.entry(puzzle.key(&c)) {
                        e.insert(d);
                        next.push(c);
                    }
                }
            }
            if next.is_empty() {
                complete = true;
                break;
            }
            counts.push(next.len() as u64);
            let done = std::mem::replace(&mut frontier, next);
            if keep {
                layers.push(done);
            }
        }
        if keep {
            layers.push(frontier);
        }
        (Self { dist, counts, complete }, layers)
    }

    /// The exact distance of `s`, if the table holds it.
    pub fn distance(&self, puzzle: &P, s: &P::State) -> Option<u8> {
        self.dist.get(&puzzle.key(s)).copied()
    }

    /// Number of states in the table.
    #[must_use]
    pub fn len(&self) -> usize {
        self.dist.len()
    }

    /// Whether the table is empty (never: it holds the goal).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.dist.is_empty()
    }

    /// Whether the BFS exhausted the reachable space.
    #[must_use]
    pub fn is_complete(&self) -> bool {
        self.complete
    }
}

impl<P: Puzzle> Heuristic<P> for DistanceTable<P> {
    fn estimate(&self, puzzle: &P, s: &P::State) -> u32 {
        self.distance(puzzle, s).map_or(self.counts.len() as u32, u32::from)
    }
    fn name(&self) -> String {
        "bfs-table".into()
    }
    fn admissible(&self) -> bool {
        true
    }
}
