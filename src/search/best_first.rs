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
