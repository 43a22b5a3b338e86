//! IDA* (Korf 1985): depth-first iterative deepening on `f = g + h`.
//!
//! Each iteration is a depth-first search that cuts off nodes with
//! `f > threshold`; the next threshold is the smallest `f` that was cut
//! off. The state is changed in place with `apply`/`undo`, so memory is the
//! path only. With the zero heuristic this is depth-first iterative
//! deepening (IDS). Moves that make a redundant sequence (the puzzle's
//! pruning rules, e.g. undoing the previous move) are not generated.
//!
//! The inner loop is kept tight (on the 15-puzzle with Manhattan distance
//! about 8·10⁷ nodes per CPU-second, some 60 % of a hand-written
//! specialised solver; see `benches/sliding_search.rs`): a child's estimate comes from the parent's
//! in O(1) where the heuristic allows ([`Heuristic::estimate_move`],
//! [`Heuristic::estimate_child`]), children beyond the threshold cost no
//! call, the goal test is skipped where an admissible `h` is positive, and
//! counters stay in registers between descents. Node counts are the same
//! as the plain recursive formulation's.

use super::outcome::{Limits, SearchOutcome, Status};
use crate::heuristics::Heuristic;
use crate::puzzle::{MoveId, Puzzle, Recent};
use std::time::Instant;

struct Ctx<'a, P: Puzzle, H: Heuristic<P>> {
    puzzle: &'a P,
    h: &'a H,
    limits: Limits,
    start: Instant,
    path: Vec<MoveId>,
    out: SearchOutcome,
    /// The heuristic is admissible, so it is 0 on the goal.
    zero_at_goal: bool,
}

enum Step {
    Found,
    Limit,
    Next(u32),
}

impl<P: Puzzle, H: Heuristic<P>> Ctx<'_, P, H> {
    /// Searches below `s`, whose `f = g + h` the caller has checked to be
    /// within `threshold`. Children beyond the threshold are counted as
    /// generated and dropped here without a call (and without applying the
    /// move at all when the heuristic answers [`Heuristic::estimate_move`]);
    /// the smallest such `f` is returned as the next threshold candidate.
    fn dfs(&mut self, s: &mut P::State, g: u32, h: u32, threshold: u32, recent: Recent) -> Step {
        // An admissible heuristic is 0 on the goal: skip the state
        // comparison elsewhere.
        if (h == 0 || !self.zero_at_goal) && self.puzzle.is_goal(s) {
            return Step::Found;
        }
        if self.out.generated >= self.limits.max_generated
            || (self.out.expanded.is_multiple_of(4096) && self.start.elapsed() >= self.limits.max_time)
        {
            return Step::Limit;
        }
        self.out.expanded += 1;
        let mut next = u32::MAX;
        // Children generated here and not yet added to `out.generated`
        // (added before every descent, so the count a descendant sees is
        // exact; kept in a register for children cut off here).
        let mut pending = 0u64;
        let mut any = false;
        for m in 0..self.puzzle.num_moves() as MoveId {
            if !self.puzzle.is_applicable(s, m) || self.puzzle.is_redundant(recent, m) {
                continue;
            }
            pending += 1;
            any = true;
            let hc = if let Some(hc) = self.h.estimate_move(self.puzzle, s, m, h) {
                if g + 1 + hc > threshold {
                    next = next.min(g + 1 + hc);
                    continue;
                }
                self.puzzle.apply(s, m);
                hc
            } else {
                self.puzzle.apply(s, m);
                let hc = self.h.estimate_child(self.puzzle, s, m, h);
                if g + 1 + hc > threshold {
                    next = next.min(g + 1 + hc);
                    self.puzzle.undo(s, m);
                    continue;
                }
                hc
            };
            self.out.generated += pending;
            pending = 0;
            // The child sits at depth g + 1: g + 2 nodes on the stack.
            self.out.peak_nodes = self.out.peak_nodes.max(u64::from(g) + 2);
            self.path.push(m);
            match self.dfs(s, g + 1, hc, threshold, recent.push(m)) {
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
        self.out.generated += pending;
        if any {
            self.out.peak_nodes = self.out.peak_nodes.max(u64::from(g) + 2);
        }
        Step::Next(next)
    }
}

/// Runs IDA* from `start`; `max_depth` bounds the threshold (the search
/// reports `Exhausted` beyond it). With an admissible heuristic the path
/// found is a shortest one.
///
/// ```
/// use cube_oracle::heuristics::sliding::Manhattan;
/// use cube_oracle::puzzle::Puzzle;
/// use cube_oracle::search::{Limits, Status, ida_star};
/// use cube_oracle::sliding::{Goal, Sliding};
///
/// // The 8-puzzle with the blank two cells left of its goal cell: two moves.
/// let p = Sliding::new(3, Goal::BlankLast).unwrap();
/// let start = p.board(&[1, 2, 3, 4, 5, 6, 0, 7, 8]).unwrap();
/// let out = ida_star(&p, &Manhattan::new(&p), &start, Limits::default(), 31);
/// assert_eq!(out.status, Status::Solved);
/// assert_eq!(out.path.len(), 2);
/// let mut s = start;
/// for &m in &out.path {
///     p.apply(&mut s, m);
/// }
/// assert!(p.is_goal(&s));
/// ```
pub fn ida_star<P: Puzzle, H: Heuristic<P>>(
    puzzle: &P,
    h: &H,
    start: &P::State,
    limits: Limits,
    max_depth: u32,
) -> SearchOutcome {
    let t = Instant::now();
    let mut ctx = Ctx {
        puzzle,
        h,
        limits,
        start: t,
        path: Vec::with_capacity(max_depth.min(1 << 16) as usize + 1),
        out: SearchOutcome::start(),
        zero_at_goal: h.admissible(),
    };
    let mut s = start.clone();
    let h0 = h.estimate(puzzle, start);
    let mut threshold = h0;
    loop {
        if threshold > max_depth {
            break;
        }
        match ctx.dfs(&mut s, 0, h0, threshold, Recent::default()) {
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
