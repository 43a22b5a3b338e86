//! Beam search guided by a heuristic instead of an oracle.
//!
//! Depth by depth, every state of the beam is expanded by every
//! non-redundant move; children that were in the beam at an earlier depth,
//! or are already among this depth's candidates, are dropped (so the beam
//! never revisits a state), and the `width` candidates with the smallest
//! heuristic value are kept (ties broken by generation order). All states
//! of one depth share `g`, so ordering by `h` is ordering by `f = g + h`.
//! The search stops at the first depth that generates the goal. It is
//! neither complete nor optimal; width 1 is hill climbing without
//! backtracking, and an unbounded width is BFS.
//!
//! Memory is the kept states (at most `width` a depth) and one depth's
//! candidates: a candidate the width drops is forgotten, so it may be
//! generated again later.

use super::expand::children;
use super::outcome::{Limits, SearchOutcome, Status, trace_path};
use crate::heuristics::Heuristic;
use crate::puzzle::{MoveId, Puzzle, Recent};
use std::collections::HashSet;
use std::time::Instant;

struct Node<S> {
    state: S,
    parent: u32,
    action: MoveId,
    recent: Recent,
}

/// Runs heuristic beam search of `width` from `start`, at most `max_depth`
/// levels deep. `width` must be at least 1.
pub fn heuristic_beam<P: Puzzle, H: Heuristic<P> + ?Sized>(
    puzzle: &P,
    h: &H,
    start: &P::State,
    width: usize,
    limits: Limits,
    max_depth: u32,
) -> SearchOutcome {
    let t = Instant::now();
    if puzzle.is_goal(start) {
        return SearchOutcome::goal_at_start(t);
    }
    let mut out = SearchOutcome::start();
    let width = width.max(1);
    // The states kept in the beam at any depth, with their parents.
    let mut arena = vec![Node { state: start.clone(), parent: u32::MAX, action: 0, recent: Recent::default() }];
    // The keys of the kept states and of this depth's candidates.
    let mut seen: HashSet<P::Key> = HashSet::from([puzzle.key(start)]);
    let mut beam = vec![0u32];
    // Whether the width ever dropped a candidate: then running out of
    // states (or depth) proves nothing about the goal's reachability.
    let mut dropped = false;
    let mut candidates: Vec<(u32, Node<P::State>)> = Vec::new();
    for _ in 0..max_depth {
        candidates.clear();
        for &idx in &beam {
            if out.generated >= limits.max_generated || t.elapsed() >= limits.max_time {
                out.status = Status::LimitReached;
                out.elapsed = t.elapsed();
                return out;
            }
            out.expanded += 1;
            let recent = arena[idx as usize].recent;
            let parent = arena[idx as usize].state.clone();
            for (m, child) in children(puzzle, &parent, recent) {
                out.generated += 1;
                if !seen.insert(puzzle.key(&child)) {
                    continue;
                }
                let node = Node { state: child, parent: idx, action: m, recent: recent.push(m) };
                if puzzle.is_goal(&node.state) {
                    let id = arena.len() as u32;
                    arena.push(node);
                    out.status = Status::Solved;
                    out.path = trace_path(id, |j| (arena[j as usize].parent, arena[j as usize].action));
                    out.peak_nodes = out.peak_nodes.max((arena.len() + candidates.len()) as u64);
                    out.elapsed = t.elapsed();
                    return out;
                }
                candidates.push((h.estimate(puzzle, &node.state), node));
            }
        }
        if candidates.is_empty() {
            break;
        }
        out.peak_nodes = out.peak_nodes.max((arena.len() + candidates.len()) as u64);
        // Stable: ties keep their generation order.
        candidates.sort_by_key(|(hv, _)| *hv);
        dropped |= candidates.len() > width;
        for (_, node) in candidates.drain(width.min(candidates.len())..) {
            seen.remove(&puzzle.key(&node.state));
        }
        beam.clear();
        for (_, node) in candidates.drain(..) {
            beam.push(arena.len() as u32);
            arena.push(node);
        }
    }
    // A beam that kept every state searched the whole space within the
    // depth bound; one that dropped some stopped at its width, a limit.
    if dropped {
        out.status = Status::LimitReached;
    }
    out.elapsed = t.elapsed();
    out
}
