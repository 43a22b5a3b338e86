//! Simulated annealing on a cost to minimise (AIMA's `SIMULATED-ANNEALING`
//! with a geometric schedule): at step `t` the temperature is
//! `T = T₀ · cooling^t`; a uniformly random neighbour is drawn, and taken
//! if it is no worse, else with probability `exp(−Δ/T)` where `Δ > 0` is
//! how much worse it is. The run ends at the goal (for problems with a
//! goal test) or after `max_steps` steps, and returns the current state,
//! not the best one seen.

use super::hill_climbing::Climb;
use super::{LocalConfig, LocalProblem};
use rand::{Rng, RngExt};

/// Simulated annealing from `state` under `cfg.schedule`, for at most
/// `cfg.max_steps` steps.
pub fn anneal<P: LocalProblem, R: Rng + ?Sized>(
    problem: &P,
    state: &mut P::State,
    cfg: &LocalConfig,
    rng: &mut R,
) -> Climb {
    let mut climb = Climb::default();
    let mut temperature = cfg.schedule.temperature;
    while climb.steps < cfg.max_steps {
        let cost = problem.cost(state);
        let n = problem.neighbours(state);
        if problem.is_goal(cost) || n == 0 {
            break;
        }
        let i = rng.random_range(0..n);
        let delta = problem.neighbour_cost(state, i) - cost;
        climb.evaluations += 1;
        // Once the temperature underflows to 0 the exponent is −∞: never.
        if delta <= 0 || rng.random::<f64>() < (-(delta as f64) / temperature).exp() {
            problem.move_to(state, i);
            climb.moves += 1;
            climb.sideways += u64::from(delta == 0);
        }
        temperature *= cfg.schedule.cooling;
        climb.steps += 1;
    }
    climb
}
