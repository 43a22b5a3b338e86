//! One local-search run and many of them. A run is a climb (or an
//! annealing) from a random initial state, repeated from a fresh random
//! state after each failure up to `max_restarts` times (random-restart
//! hill climbing); it keeps the best final state. For a problem with a
//! goal test the restarts stop at the first goal; a black-box function
//! has none, so every restart is used.
//!
//! Run `i` of a seeded batch uses its own ChaCha8 generator seeded with
//! `seed + i`, so any single run is replayed by `--seed seed+i --trials 1`
//! and the batch does not depend on how it is split.

use super::annealing::anneal;
use super::hill_climbing::{Climb, first_choice, steepest_ascent};
use super::{LocalConfig, LocalMethod, LocalProblem};
use rand::rngs::ChaCha8Rng;
use rand::{Rng, SeedableRng};

/// What one run did, all climbs of it together.
#[derive(Clone, Debug, PartialEq)]
pub struct RunOutcome<S> {
    /// The run's seed.
    pub seed: u64,
    /// The best state reached has the known optimal cost.
    pub success: bool,
    /// Steps over all climbs (see [`Climb::steps`]).
    pub steps: u64,
    /// Moves made over all climbs.
    pub moves: u64,
    /// Restarts made (climbs − 1).
    pub restarts: u64,
    /// Objective evaluations: each initial state and each neighbour read.
    pub evaluations: u64,
    /// Sideways moves made.
    pub sideways: u64,
    /// The cost of the first initial state.
    pub initial_cost: i64,
    /// The cost of the best final state.
    pub final_cost: i64,
    /// The best final state.
    pub state: S,
}

impl<S> RunOutcome<S> {
    /// The same figures without the state (for keeping many runs).
    pub fn without_state(self) -> RunOutcome<()> {
        let Self { seed, success, steps, moves, restarts, evaluations, sideways, initial_cost, final_cost, .. } = self;
        RunOutcome { seed, success, steps, moves, restarts, evaluations, sideways, initial_cost, final_cost, state: () }
    }
}

/// One run with its own generator `rng`, tagged with `seed`.
pub fn run_with<P: LocalProblem, R: Rng + ?Sized>(
    problem: &P,
    cfg: &LocalConfig,
    seed: u64,
    rng: &mut R,
) -> RunOutcome<P::State> {
    let mut order = Vec::new();
    let mut total = Climb::default();
    let mut restarts = 0;
    let mut best: Option<P::State> = None;
    let mut initial_cost = 0;
    for attempt in 0..=cfg.max_restarts {
        let mut state = problem.random_state(rng);
        total.evaluations += 1;
        if attempt == 0 {
            initial_cost = problem.cost(&state);
        } else {
            restarts += 1;
        }
        let climb = match cfg.method {
            LocalMethod::HillClimbing => steepest_ascent(problem, &mut state, cfg, rng),
            LocalMethod::FirstChoice => first_choice(problem, &mut state, cfg, rng, &mut order),
            LocalMethod::Annealing => anneal(problem, &mut state, cfg, rng),
        };
        total.steps += climb.steps;
        total.moves += climb.moves;
        total.evaluations += climb.evaluations;
        total.sideways += climb.sideways;
        if best.as_ref().is_none_or(|b| problem.cost(&state) < problem.cost(b)) {
            best = Some(state);
        }
        if best.as_ref().is_some_and(|b| problem.is_goal(problem.cost(b))) {
            break;
        }
    }
    let state = best.expect("at least one climb");
    let final_cost = problem.cost(&state);
    RunOutcome {
        seed,
        success: final_cost == problem.optimum(),
        steps: total.steps,
        moves: total.moves,
        restarts,
        evaluations: total.evaluations,
        sideways: total.sideways,
        initial_cost,
        final_cost,
        state,
    }
}

/// One run from `seed` (a ChaCha8 generator seeded with it).
pub fn run_once<P: LocalProblem>(problem: &P, cfg: &LocalConfig, seed: u64) -> RunOutcome<P::State> {
    run_with(problem, cfg, seed, &mut ChaCha8Rng::seed_from_u64(seed))
}

/// `runs` runs, run `i` from seed `seed + i` (wrapping).
pub fn run_many<P: LocalProblem>(problem: &P, cfg: &LocalConfig, seed: u64, runs: u64) -> Vec<RunOutcome<P::State>> {
    (0..runs).map(|i| run_once(problem, cfg, seed.wrapping_add(i))).collect()
}
