//! What a classical search reports: the path and its cost, the work done
//! (nodes generated and expanded, peak nodes held, time), the effective
//! branching factor, and why it stopped.

use crate::puzzle::MoveId;
use std::time::{Duration, Instant};

/// Why a search stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// A path to the goal was found.
    Solved,
    /// The node or time limit was reached first; no path is claimed.
    LimitReached,
    /// The whole reachable space (within any depth bound) holds no goal.
    Exhausted,
}

/// Node and time limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Stop after generating this many nodes.
    pub max_generated: u64,
    /// Stop after this much time.
    pub max_time: Duration,
}

impl Limits {
    /// Whether a search must stop now: it has generated the most nodes
    /// allowed, or its time is up (the clock is read every 1024 expansions).
    #[must_use]
    pub fn reached(&self, out: &SearchOutcome, start: Instant) -> bool {
        out.generated >= self.max_generated || (out.expanded.is_multiple_of(1024) && start.elapsed() >= self.max_time)
    }
}

impl Default for Limits {
    fn default() -> Self {
        Self { max_generated: u64::MAX, max_time: Duration::MAX }
    }
}

/// The result of a classical search.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchOutcome {
    /// Why it stopped.
    pub status: Status,
    /// The moves from the start to the goal (when solved).
    pub path: Vec<MoveId>,
    /// Nodes generated (children created, the start included).
    pub generated: u64,
    /// Nodes expanded (their children generated).
    pub expanded: u64,
    /// Most nodes held in memory at once (OPEN + CLOSED, or the stack).
    pub peak_nodes: u64,
    /// Wall time.
    pub elapsed: Duration,
}

impl SearchOutcome {
    /// A search that has generated only its start node and found nothing yet.
    #[must_use]
    pub fn start() -> Self {
        Self {
            status: Status::Exhausted,
            path: Vec::new(),
            generated: 1,
            expanded: 0,
            peak_nodes: 1,
            elapsed: Duration::ZERO,
        }
    }

    /// A search whose start is the goal: solved with the empty path, timed
    /// from `since`.
    #[must_use]
    pub fn goal_at_start(since: Instant) -> Self {
        Self { status: Status::Solved, elapsed: since.elapsed(), ..Self::start() }
    }

    /// The solution length (when solved).
    #[must_use]
    pub fn cost(&self) -> Option<usize> {
        (self.status == Status::Solved).then_some(self.path.len())
    }

    /// Effective branching factor `b*` with `N + 1 = 1 + b* + … + b*^d`,
    /// `N` the nodes generated besides the start (which `generated` counts)
    /// and `d` the solution depth.
    #[must_use]
    pub fn ebf(&self) -> Option<f64> {
        effective_branching_factor(self.generated.saturating_sub(1), self.cost()?)
    }
}

/// The moves from the root to node `i` of a search tree kept as an arena:
/// `link(j)` gives node `j`'s parent (`u32::MAX` at the root) and the move
/// that made it.
pub fn trace_path(mut i: u32, link: impl Fn(u32) -> (u32, MoveId)) -> Vec<MoveId> {
    let mut path = Vec::new();
    loop {
        let (parent, action) = link(i);
        if parent == u32::MAX {
            break;
        }
        path.push(action);
        i = parent;
    }
    path.reverse();
    path
}

/// Solves `N + 1 = 1 + b + b² + … + b^d` for `b` by bisection. `None` for
/// `d = 0`.
#[must_use]
pub fn effective_branching_factor(nodes: u64, depth: usize) -> Option<f64> {
    if depth == 0 {
        return None;
    }
    let target = nodes as f64 + 1.0;
    let total = |b: f64| (0..=depth).map(|i| b.powi(i as i32)).sum::<f64>();
    let (mut lo, mut hi) = (0.0f64, nodes.max(1) as f64 + 1.0);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if total(mid) < target { lo = mid } else { hi = mid }
    }
    Some(0.5 * (lo + hi))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ebf_matches_its_definition() {
        // AIMA's example: 52 nodes at depth 5 give b* = 1.92.
        let b = effective_branching_factor(52, 5).unwrap();
        assert!((b - 1.92).abs() < 0.005, "{b}");
        // A complete binary tree of depth 3 has 2 + 4 + 8 = 14 nodes besides the root.
        assert!((effective_branching_factor(14, 3).unwrap() - 2.0).abs() < 1e-9);
        assert_eq!(effective_branching_factor(10, 0), None);
    }
}
