//! IDA* (Korf 1985): depth-first iterative deepening on `f = g + h`.
//!
//! Each iteration is a depth-first search that cuts off nodes with
//! `f > threshold`; the next threshold is the smallest `f` that was cut
//! off. The state is changed in place with `apply`/`undo`, so memory is the
//! path only. With the zero heuristic this is depth-first iterative
//! deepening (IDS). Moves that make a redundant sequence (the puzzle's
//! pruning rules, e.g. undoing the previous move) are not generated.

use super::heuristic::Heuristic;
use super::outcome::{Limits, SearchOutcome, Status};
use crate::puzzle::{MoveId, Puzzle, Recent};
use std::time::Instant;

struct Ctx<'a, P: Puzzle, H: Heuristic<P>> {
    puzzle: &'a P,
    h: &'a H,
    limits: Limits,
    start: Instant,
    path: Vec<MoveId>,
    out: SearchOutcome,
}

enum Step {
    Found,
    Limit,
    Next(u32),
}

impl<P: Puzzle, H: Heuristic<P>> Ctx<'_, P, H> {
    fn dfs(&mut self, s: &mut P::State, g: u32, threshold: u32, recent: Recent) -> Step {
        let f = g + self.h.estimate(self.puzzle, s);
        if f > threshold {
            return Step::Next(f);
        }
        if self.puzzle.is_goal(s) {
            return Step::Found;
        }
        if self.out.generated >= self.limits.max_generated
            || (self.out.expanded.is_multiple_of(4096) && self.start.elapsed() >= self.limits.max_time)
        {
            return Step::Limit;
        }
        self.out.expanded += 1;
        let mut next = u32::MAX;
        for m in 0..self.puzzle.num_moves() as MoveId {
            if !self.puzzle.is_applicable(s, m) || self.puzzle.is_redundant(recent, m) {
                continue;
            }
            self.out.generated += 1;
            self.puzzle.apply(s, m);
            self.path.push(m);
            self.out.peak_nodes = self.out.peak_nodes.max(self.path.len() as u64 + 1);
            let r = self.dfs(s, g + 1, threshold, recent.push(m));
            match r {
                Step::Found => return Step::Found,
                Step::Limit => {
                    self.path.pop();
                    self.puzzle.undo(s, m);
                    return Step::Limit;
                }
                Step::Next(t) => next = next.min(t),
            }
            self.path.pop();
            self.puzzle.undo(s, m);
        }
        Step::Next(next)
    }
}

/// Runs IDA* from `start`; `max_depth` bounds the threshold (the search
/// reports `Exhausted` beyond it).
pub fn ida_star<P: Puzzle, H: Heuristic<P>>(
    puzzle: &P,
    h: &H,
    start: &P::State,
    limits: Limits,
    max_depth: u32,
) -> SearchOutcome {
    let t = Instant::now();
    let mut ctx = Ctx { puzzle, h, limits, start: t, path: Vec::new(), out: SearchOutcome::start() };
    let mut s = start.clone();
    let mut threshold = h.estimate(puzzle, start);
    loop {
        if threshold > max_depth {
            break;
        }
        match ctx.dfs(&mut s, 0, threshold, Recent::default()) {
            Step::Found => {
                ctx.out.status = Status::Solved;
                ctx.out.path = std::mem::take(&mut ctx.path);
                break;
            }
            Step::Limit => {
                ctx.out.status = Status::LimitReached;
                break;
            }
            Step::Next(u32::MAX) => break,
            Step::Next(t) => threshold = t,
        }
    }
    ctx.out.elapsed = t.elapsed();
    ctx.out
}
