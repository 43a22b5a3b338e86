//! Best-first search: A* (f = g + h, OPEN/CLOSED with reopening), greedy
//! best-first (f = h) and uniform-cost search (A* with the zero heuristic).
//!
//! Nodes live in an arena; OPEN is a binary heap of `(f, h, insertion
//! order)` and CLOSED maps each state key to the best `g` seen. A node
//! popped with a `g` worse than the best recorded is stale and skipped; a
//! state reached again by a shorter path is reopened (pushed again with the
//! better `g`), so A* stays optimal with admissible but inconsistent
//! heuristics. The goal test is made when a node is expanded, which is what
//! makes A* optimal.
//!
//! [`best_first_within`] adds a depth limit: a node at the limit is tested
//! for the goal but not expanded, so no path longer than the limit is
//! generated or returned, and a search that runs out of nodes within it
//! reports [`Status::Exhausted`], as IDA* does beyond its limit.

use super::expand::children;
use super::outcome::{Limits, SearchOutcome, Status, trace_path};
use crate::heuristics::Heuristic;
use crate::puzzle::{MoveId, Puzzle, Recent};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::time::Instant;

/// Which priority to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Priority {
    /// `f = g + h` (A*; uniform-cost with the zero heuristic).
    AStar,
    /// `f = h` (greedy best-first; not optimal).
    Greedy,
}

struct Node<S> {
    state: S,
    g: u32,
    parent: u32,
    action: MoveId,
    recent: Recent,
}

/// Runs best-first search from `start`.
pub fn best_first<P: Puzzle, H: Heuristic<P>>(
    puzzle: &P,
    h: &H,
    start: &P::State,
    priority: Priority,
    limits: Limits,
) -> SearchOutcome {
    best_first_within(puzzle, h, start, priority, limits, u32::MAX)
}

/// Runs best-first search from `start`, expanding no node at depth
/// `max_depth` or deeper: only paths of at most `max_depth` moves are
/// generated, and [`Status::Exhausted`] means no goal lies within them.
pub fn best_first_within<P: Puzzle, H: Heuristic<P>>(
    puzzle: &P,
    h: &H,
    start: &P::State,
    priority: Priority,
    limits: Limits,
    max_depth: u32,
) -> SearchOutcome {
    let t = Instant::now();
    let mut arena: Vec<Node<P::State>> = Vec::new();
    let mut open: BinaryHeap<(Reverse<u32>, Reverse<u32>, Reverse<u32>)> = BinaryHeap::new();
    let mut best_g: HashMap<P::Key, u32> = HashMap::new();
    let f = |g: u32, hv: u32| match priority {
        Priority::AStar => g + hv,
        Priority::Greedy => hv,
    };
    let h0 = h.estimate(puzzle, start);
    arena.push(Node { state: start.clone(), g: 0, parent: u32::MAX, action: 0, recent: Recent::default() });
    open.push((Reverse(f(0, h0)), Reverse(h0), Reverse(0)));
    best_g.insert(puzzle.key(start), 0);
    let mut out = SearchOutcome::start();
    while let Some((_, _, Reverse(idx))) = open.pop() {
        let (g, key) = (arena[idx as usize].g, puzzle.key(&arena[idx as usize].state));
        if best_g.get(&key).is_some_and(|&b| b < g) {
            continue; // stale entry: a shorter path to this state was found
        }
        if puzzle.is_goal(&arena[idx as usize].state) {
            out.status = Status::Solved;
            out.path = trace_path(idx, |j| (arena[j as usize].parent, arena[j as usize].action));
            break;
        }
        if g >= max_depth {
            continue; // at the depth limit: tested for the goal, not expanded
        }
        if limits.reached(&out, t) {
            out.status = Status::LimitReached;
            break;
        }
        out.expanded += 1;
        let recent = arena[idx as usize].recent;
        let parent = arena[idx as usize].state.clone();
        for (m, child) in children(puzzle, &parent, recent) {
            out.generated += 1;
            let cg = g + 1;
            let ck = puzzle.key(&child);
            if best_g.get(&ck).is_some_and(|&b| b <= cg) {
                continue;
            }
            best_g.insert(ck, cg);
            let hv = h.estimate(puzzle, &child);
            let id = arena.len() as u32;
            arena.push(Node { state: child, g: cg, parent: idx, action: m, recent: recent.push(m) });
            open.push((Reverse(f(cg, hv)), Reverse(hv), Reverse(id)));
        }
        out.peak_nodes = out.peak_nodes.max(arena.len() as u64);
    }
    out.elapsed = t.elapsed();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::heuristics::Zero;
    use crate::heuristics::sliding::Manhattan;
    use crate::search::DistanceTable;
    use crate::sliding::{Goal, Sliding};
    use rand::SeedableRng;
    use rand::rngs::ChaCha8Rng;

    #[test]
    fn a_depth_limit_bounds_every_priority_and_reports_exhausted() {
        let p = Sliding::new(3, Goal::BlankLast).unwrap();
        let table = DistanceTable::build(&p, 40);
        let man = Manhattan::new(&p);
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        for _ in 0..10 {
            let start = p.random_solvable(&mut rng);
            let d = u32::from(table.distance(&p, &start).unwrap());
            if d == 0 {
                continue;
            }
            for limit in [d - 1, d] {
                let runs = [
                    ("A*", best_first_within(&p, &man, &start, Priority::AStar, Limits::default(), limit)),
                    ("greedy", best_first_within(&p, &man, &start, Priority::Greedy, Limits::default(), limit)),
                    ("uniform-cost", best_first_within(&p, &Zero, &start, Priority::AStar, Limits::default(), limit)),
                ];
                for (name, out) in runs {
                    if limit < d {
                        assert_eq!((out.status, out.path.len()), (Status::Exhausted, 0), "{name} within {limit}");
                    } else {
                        // Within the optimal length only optimal paths fit: greedy finds one too.
                        assert_eq!((out.status, out.cost()), (Status::Solved, Some(d as usize)), "{name} within {d}");
                        assert!(crate::puzzle::replay(&p, &start, &out.path).is_some_and(|s| p.is_goal(&s)));
                    }
                }
            }
        }
        let goal = p.goal();
        let at_goal = best_first_within(&p, &man, &goal, Priority::AStar, Limits::default(), 0);
        assert_eq!((at_goal.status, at_goal.cost()), (Status::Solved, Some(0)));
    }
}
