//! Adversarial search: games behind a small [`Game`] trait and
//! the searches of the game lectures — minimax, αβ pruning, depth cutoff
//! with an evaluation function, move ordering and iterative deepening —
//! each reporting how many nodes it made. Knows nothing of burn, the cube
//! or the sliding puzzles.
//!
//! **Agents.** Agent 0 is MAX; agents `1..num_agents()` are MIN and move in
//! turn after MAX, one ply each. A two-player game is the case of one MIN
//! agent; a Pacman position with k ghosts has a MAX level followed by k MIN
//! levels, as the lecture describes. Values are always from MAX's point of
//! view.
//!
//! **Depth.** A depth limit counts plies (levels of the tree, one move of
//! one agent each), as the lecture counts levels; `None` searches to the
//! end of the game. At the limit a non-terminal position is scored by
//! [`Game::evaluate`]; terminal positions always by [`Game::utility`]. With
//! k ghosts, a depth of `k + 1` plies is one full round.
//!
//! Games: [`sticks`] (the lecture's two piles), [`tictactoe`], and
//! [`pacman`] (a grid with food, capsules and k ghosts, with the lecture's
//! two evaluation functions). Searches: [`minimax()`], [`alphabeta`] (with
//! optional move ordering), [`deepening`]; [`method`] names them for the
//! `play` binary, [`play`] runs its requests and [`table`] writes node
//! counts across depths.
//!
//! **Bounds.** Every search has a `_within` form that takes a [`Budget`] of
//! positions and stops with [`Exceeded`] rather than run on; recursion is
//! as deep as the depth limit or the longest line of the game, whichever
//! is shorter, and `play` caps the depth per game ([`play::GameKind::max_depth`]).

pub mod alphabeta;
pub mod deepening;
pub mod error;
pub mod method;
pub mod minimax;
pub mod pacman;
pub mod play;
pub mod report;
pub mod sticks;
#[cfg(feature = "tables")]
pub mod table;
pub mod tictactoe;

pub use alphabeta::{Ordering, alpha_beta, alpha_beta_within};
pub use deepening::{Deepening, iterative_deepening, iterative_deepening_within};
pub use error::GameError;
pub use method::Method;
pub use minimax::{minimax, minimax_within};
pub use report::{Budget, Exceeded, SearchReport};

use std::fmt;

/// The agent that maximises the value (the first to move in every game
/// here).
pub const MAX: usize = 0;

/// A deterministic game of perfect information between agent 0 (MAX) and
/// agents `1..num_agents()` (MIN), changed in place.
///
/// Contract: a position whose [`utility`](Game::utility) is `None` has at
/// least one legal move; [`undo`](Game::undo) with the move and the token
/// that [`apply`](Game::apply) returned restores the position exactly.
pub trait Game {
    /// A move of the agent to move.
    type Move: Copy + PartialEq + fmt::Debug + fmt::Display;
    /// What [`Game::undo`] needs besides the move.
    type Undo;

    /// The number of agents: MAX and the MIN agents (at least 2).
    fn num_agents(&self) -> usize;

    /// The agent to move: [`MAX`] (0) or a MIN agent `1..num_agents()`.
    fn to_move(&self) -> usize;

    /// Clears `out` and fills it with the legal moves of the agent to move,
    /// in the game's fixed order (empty at a terminal position).
    fn moves(&self, out: &mut Vec<Self::Move>);

    /// Makes `m` (a legal move) in place.
    fn apply(&mut self, m: Self::Move) -> Self::Undo;

    /// Takes back `m`, the last move made, with the token `apply` returned.
    fn undo(&mut self, m: Self::Move, token: Self::Undo);

    /// The value of a terminal position from MAX's view; `None` while the
    /// game goes on.
    fn utility(&self) -> Option<f64>;

    /// A static estimate of a non-terminal position's value from MAX's view,
    /// used at a depth cutoff and to order moves. It should lie strictly
    /// between the losing and the winning utilities.
    fn evaluate(&self) -> f64;

    /// What making and scoring one position of this game costs, in units
    /// of the simplest games' positions (at least 1), for a node
    /// [`Budget`]: read once at the root of a search, so it must not be
    /// smaller anywhere below it. The default is 1.
    fn work_per_position(&self) -> u64 {
        1
    }

    /// Whether MAX is to move.
    fn max_to_move(&self) -> bool {
        self.to_move() == MAX
    }
}
