//! Recursive best-first search (Korf 1993): best-first order in linear
//! memory.
//!
//! RBFS explores the child with the lowest backed-up `f` while its `f`
//! stays within the best alternative elsewhere in the tree; when it
//! exceeds it, the subtree is forgotten and its best `f` is backed up to
//! the parent, so the subtree can be re-entered later. Children inherit
//! their parent's backed-up `f` when it is larger (`f(c) = max(g(c) +
//! h(c), F(parent))`). With an admissible heuristic the first goal found is
//! optimal. Memory is `O(b·d)`: one list of children per level.

use super::outcome::{Limits, SearchOutcome, Status};
use crate::heuristics::Heuristic;
use crate::puzzle::{MoveId, Puzzle, Recent};
use std::time::Instant;

struct Ctx<'a, P: Puzzle, H: Heuristic<P>> {
    puzzle: &'a P,
    h: &'a H,
    limits: Limits,
    start: Instant,
    max_depth: u32,
    path: Vec<MoveId>,
    out: SearchOutcome,
}

enum Found {
    Yes,
    No(u32),
    Limit,
}

impl<P: Puzzle, H: Heuristic<P>> Ctx<'_, P, H> {
    fn rbfs(&mut self, s: &P::State, g: u32, f_node: u32, bound: u32, recent: Recent) -> Found {
        if self.puzzle.is_goal(s) {
            return Found::Yes;
        }
        if g >= self.max_depth {
            return Found::No(u32::MAX);
        }
        if self.out.generated >= self.limits.max_generated
            || (self.out.expanded.is_multiple_of(4096) && self.start.elapsed() >= self.limits.max_time)
        {
            return Found::Limit;
        }
        self.out.expanded += 1;
        let mut kids: Vec<(u32, MoveId, P::State)> = Vec::new();
        for m in 0..self.puzzle.num_moves() as MoveId {
            if !self.puzzle.is_applicable(s, m) || self.puzzle.is_redundant(recent, m) {
                continue;
            }
            let mut c = s.clone();
            self.puzzle.apply(&mut c, m);
            self.out.generated += 1;
            let f = (g + 1 + self.h.estimate(self.puzzle, &c)).max(f_node);
            kids.push((f, m, c));
        }
        if kids.is_empty() {
            return Found::No(u32::MAX);
        }
        self.out.peak_nodes =
            self.out.peak_nodes.max(self.path.len() as u64 * self.puzzle.num_moves() as u64 + kids.len() as u64);
        loop {
            kids.sort_by_key(|k| (k.0, k.1));
            let best_f = kids[0].0;
            if best_f > bound {
                return Found::No(best_f);
            }
            let alternative = kids.get(1).map_or(u32::MAX, |k| k.0);
            let (_, m, child) = kids[0].clone();
            self.path.push(m);
            match self.rbfs(&child, g + 1, best_f, bound.min(alternative), recent.push(m)) {
                Found::Yes => return Found::Yes,
                Found::Limit => return Found::Limit,
                Found::No(f) => {
                    self.path.pop();
                    kids[0].0 = f;
                }
            }
        }
    }
}

/// Runs RBFS from `start`; paths longer than `max_depth` are not explored.
pub fn rbfs<P: Puzzle, H: Heuristic<P>>(
    puzzle: &P,
    h: &H,
    start: &P::State,
    limits: Limits,
    max_depth: u32,
) -> SearchOutcome {
    let t = Instant::now();
    let mut ctx = Ctx { puzzle, h, limits, start: t, max_depth, path: Vec::new(), out: SearchOutcome::start() };
    let f0 = h.estimate(puzzle, start);
    match ctx.rbfs(start, 0, f0, u32::MAX - 1, Recent::default()) {
        Found::Yes => {
            ctx.out.status = Status::Solved;
            ctx.out.path = std::mem::take(&mut ctx.path);
        }
        Found::Limit => ctx.out.status = Status::LimitReached,
        Found::No(_) => ctx.out.status = Status::Exhausted,
    }
    ctx.out.elapsed = t.elapsed();
    ctx.out
}
