//! Breadth-first search from the start: the blind optimal baseline for
//! unit-cost puzzles.
//!
//! Nodes are generated level by level from a FIFO queue; a state already
//! seen (CLOSED, by key) is not generated again, and the goal test is made
//! when a node is *generated*, which is safe for BFS because every edge
//! costs 1: the first time the goal appears it is at the smallest depth.
//! Memory grows with the frontier, so BFS is only practical for shallow
//! instances; node and time limits stop it honestly.

use super::expand::children;
use super::outcome::{Limits, SearchOutcome, Status, trace_path};
use crate::puzzle::{MoveId, Puzzle, Recent};
use std::collections::{HashSet, VecDeque};
use std::time::Instant;

struct Node<S> {
    state: S,
    depth: u32,
    parent: u32,
    action: MoveId,
    recent: Recent,
}

fn path_to<S>(arena: &[Node<S>], i: u32) -> Vec<MoveId> {
    trace_path(i, |j| (arena[j as usize].parent, arena[j as usize].action))
}

/// Runs breadth-first search from `start`; depths beyond `max_depth` are
/// not generated.
pub fn breadth_first<P: Puzzle>(puzzle: &P, start: &P::State, limits: Limits, max_depth: u32) -> SearchOutcome {
    let t = Instant::now();
    if puzzle.is_goal(start) {
        return SearchOutcome::goal_at_start(t);
    }
    let mut out = SearchOutcome::start();
    let mut arena =
        vec![Node { state: start.clone(), depth: 0, parent: u32::MAX, action: 0, recent: Recent::default() }];
    let mut seen: HashSet<P::Key> = HashSet::from([puzzle.key(start)]);
    let mut queue = VecDeque::from([0u32]);
    'search: while let Some(idx) = queue.pop_front() {
        if arena[idx as usize].depth >= max_depth {
            continue;
        }
        if limits.reached(&out, t) {
            out.status = Status::LimitReached;
            break;
        }
        out.expanded += 1;
        let (depth, recent) = (arena[idx as usize].depth, arena[idx as usize].recent);
        let parent = arena[idx as usize].state.clone();
        for (m, child) in children(puzzle, &parent, recent) {
            out.generated += 1;
            if !seen.insert(puzzle.key(&child)) {
                continue;
            }
            let goal = puzzle.is_goal(&child);
            let id = arena.len() as u32;
            arena.push(Node { state: child, depth: depth + 1, parent: idx, action: m, recent: recent.push(m) });
            if goal {
                out.status = Status::Solved;
                out.path = path_to(&arena, id);
                break 'search;
            }
            queue.push_back(id);
        }
        out.peak_nodes = out.peak_nodes.max(arena.len() as u64);
    }
    out.peak_nodes = out.peak_nodes.max(arena.len() as u64);
    out.elapsed = t.elapsed();
    out
}
