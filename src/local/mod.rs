//! Local search: the hill-climbing family and simulated
//! annealing over problems with a complete-state formulation, where every
//! state is a candidate solution and the answer is the final state, not a
//! path. Two problems are built in: N-queens with one queen per column
//! ([`queens`]) and minimising a black-box integer function ([`function`]).
//!
//! The searches see a problem only through [`LocalProblem`]: a seeded
//! random initial state, a cost to minimise (queens: `h`, the number of
//! attacking pairs, AIMA's convention), and numbered neighbours whose cost
//! can be read without building them. [`hill_climbing`] holds
//! steepest-ascent and first-choice climbing with a sideways-move limit,
//! [`annealing`] simulated annealing with a geometric schedule, and
//! [`restarts`] the random-restart wrapper and the many-seeded-runs driver
//! shared by all three; [`summary`] turns many runs into rates and means.
//! Nothing here knows about puzzles, oracles or burn.

pub mod annealing;
pub mod error;
pub mod function;
pub mod hill_climbing;
pub mod kind;
pub mod method;
pub mod queens;
pub mod restarts;
pub mod summary;

pub use error::LocalError;
pub use function::{FunctionProblem, IntFunction};
pub use kind::ProblemKind;
pub use method::{LocalConfig, LocalMethod, Schedule};
pub use queens::{Queens, QueensState};
pub use restarts::{RunOutcome, run_many, run_once};
pub use summary::{RunSummary, summarize, wilson_interval};

use rand::Rng;

/// A problem with a complete-state formulation, cost to be minimised.
///
/// Neighbours are numbered `0..neighbours(state)`; the searches read a
/// neighbour's cost with [`neighbour_cost`](Self::neighbour_cost) and move
/// to it with [`move_to`](Self::move_to), so a state is never copied in
/// the inner loop.
pub trait LocalProblem {
    /// A candidate solution (it carries whatever makes costs cheap).
    type State: Clone + std::fmt::Debug;

    /// The problem's name (`queens8`, `function-comb`).
    fn name(&self) -> String;

    /// A random initial state.
    fn random_state<R: Rng + ?Sized>(&self, rng: &mut R) -> Self::State;

    /// The state's cost (kept up to date by [`move_to`](Self::move_to)).
    fn cost(&self, state: &Self::State) -> i64;

    /// The state's cost computed from scratch, for checking a result
    /// independently of the incremental bookkeeping.
    fn recompute_cost(&self, state: &Self::State) -> i64;

    /// How many neighbours the state has.
    fn neighbours(&self, state: &Self::State) -> usize;

    /// The cost of neighbour `i` (`i < neighbours(state)`), without moving.
    fn neighbour_cost(&self, state: &Self::State, i: usize) -> i64;

    /// Moves the state to its neighbour `i`.
    fn move_to(&self, state: &mut Self::State, i: usize);

    /// The goal test on a cost, for problems that have one (queens: no
    /// attacking pair). A black-box function has none: `false`.
    fn is_goal(&self, cost: i64) -> bool;

    /// The known global minimum, by which a run is judged a success.
    fn optimum(&self) -> i64;

    /// The state in words (a queens board's rows, the integer `x`).
    fn describe(&self, state: &Self::State) -> String;
}
