//! Hill climbing on a cost to minimise (so "ascent" is descent in cost),
//! after the lecture's loop: move to a better neighbour until none is
//! better. Two ways to choose the move:
//!
//! - [`steepest_ascent`]: read every neighbour's cost and move to a best
//!   one, ties broken uniformly at random (reservoir sampling), as AIMA's
//!   figures for 8-queens assume.
//! - [`first_choice`]: draw neighbours in random order without
//!   replacement (a partial Fisher–Yates shuffle) and take the first that
//!   is better; only a state with no better neighbour is scanned in full.
//!
//! Both may make *sideways* moves: when no neighbour is better but one is
//! as good, it is taken, at most `max_sideways` times in a row (the count
//! starts again after every improving move), which lets the climb cross a
//! shoulder and bounds its wandering on a flat local minimum. Without a
//! better or an allowed equal neighbour the climb stops: at a goal when
//! the problem has a goal test and the cost meets it, else stuck.

use super::{LocalConfig, LocalProblem};
use rand::{Rng, RngExt};

/// What one climb did (the state itself is moved in place).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Climb {
    /// Loop iterations: for hill climbing, the moves made; for annealing,
    /// the steps of the schedule (proposals, taken or not).
    pub steps: u64,
    /// Moves made (equal to `steps` for hill climbing).
    pub moves: u64,
    /// Neighbour costs read.
    pub evaluations: u64,
    /// Sideways moves made (to a neighbour of equal cost).
    pub sideways: u64,
}

/// Tracks consecutive sideways moves against the limit.
struct Sideways {
    limit: u64,
    run: u64,
}

impl Sideways {
    /// Whether one more sideways move is allowed (and counts it).
    fn allow(&mut self) -> bool {
        let ok = self.run < self.limit;
        self.run += u64::from(ok);
        ok
    }
}

/// Steepest-ascent hill climbing from `state` until no move is allowed,
/// the goal is reached or `cfg.max_steps` moves were made.
pub fn steepest_ascent<P: LocalProblem, R: Rng + ?Sized>(
    problem: &P,
    state: &mut P::State,
    cfg: &LocalConfig,
    rng: &mut R,
) -> Climb {
    let mut climb = Climb::default();
    let mut sideways = Sideways { limit: cfg.max_sideways, run: 0 };
    loop {
        let cost = problem.cost(state);
        if problem.is_goal(cost) || climb.steps >= cfg.max_steps {
            return climb;
        }
        let n = problem.neighbours(state);
        let (mut best, mut pick, mut ties) = (i64::MAX, 0, 0u64);
        for i in 0..n {
            let c = problem.neighbour_cost(state, i);
            if c < best {
                (best, pick, ties) = (c, i, 1);
            } else if c == best {
                ties += 1;
                if rng.random_range(0..ties) == 0 {
                    pick = i;
                }
            }
        }
        climb.evaluations += n as u64;
        if n == 0 || best > cost {
            return climb;
        }
        if best == cost {
            if !sideways.allow() {
                return climb;
            }
            climb.sideways += 1;
        } else {
            sideways.run = 0;
        }
        problem.move_to(state, pick);
        climb.steps += 1;
        climb.moves += 1;
    }
}

/// First-choice hill climbing from `state`; `order` is scratch space for
/// the neighbour order, kept between calls so that no step pays for more
/// neighbours than it draws.
pub fn first_choice<P: LocalProblem, R: Rng + ?Sized>(
    problem: &P,
    state: &mut P::State,
    cfg: &LocalConfig,
    rng: &mut R,
    order: &mut Vec<usize>,
) -> Climb {
    let mut climb = Climb::default();
    let mut sideways = Sideways { limit: cfg.max_sideways, run: 0 };
    loop {
        let cost = problem.cost(state);
        if problem.is_goal(cost) || climb.steps >= cfg.max_steps {
            return climb;
        }
        let n = problem.neighbours(state);
        if order.len() != n {
            *order = (0..n).collect();
        }
        // Any arrangement of `order` is a fine start: each draw is uniform
        // over the neighbours not yet drawn in this step.
        let (mut better, mut equal) = (None, None);
        for k in 0..n {
            let j = rng.random_range(k..n);
            order.swap(k, j);
            let i = order[k];
            let c = problem.neighbour_cost(state, i);
            climb.evaluations += 1;
            if c < cost {
                better = Some(i);
                break;
            }
            if c == cost && equal.is_none() {
                equal = Some(i);
            }
        }
        let pick = match (better, equal) {
            (Some(i), _) => {
                sideways.run = 0;
                i
            }
            (None, Some(i)) if sideways.allow() => {
                climb.sideways += 1;
                i
            }
            _ => return climb,
        };
        problem.move_to(state, pick);
        climb.steps += 1;
        climb.moves += 1;
    }
}
