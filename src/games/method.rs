//! The search methods by name, one vocabulary for `play --method`, the
//! node-count table's `method` column and the docs.

use super::Game;
use super::alphabeta::{Ordering, alpha_beta_within};
use super::deepening::iterative_deepening_within;
use super::error::GameError;
use super::minimax::minimax_within;
use super::report::{Budget, Exceeded, SearchReport};
use std::fmt;
use std::str::FromStr;

/// A game-search method.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Plain minimax.
    Minimax,
    /// αβ in the game's move order.
    AlphaBeta,
    /// αβ with static move ordering ([`Ordering::Static`]).
    AlphaBetaOrdered,
    /// Iterative-deepening αβ: the previous iteration's best line first,
    /// then static ordering.
    Iterative,
}

impl Method {
    /// Every method, with its name.
    pub const ALL: [(&'static str, Method); 4] = [
        ("minimax", Method::Minimax),
        ("alphabeta", Method::AlphaBeta),
        ("alphabeta-ordered", Method::AlphaBetaOrdered),
        ("iterative", Method::Iterative),
    ];

    /// The method's name (as `--method` takes it).
    #[must_use]
    pub fn name(self) -> &'static str {
        Self::ALL.iter().find(|m| m.1 == self).map_or("?", |m| m.0)
    }

    /// Searches `game` to `depth` plies (`None`: to the end; for
    /// [`Method::Iterative`] until the tree is exhausted, which needs a
    /// finite game). Iterative deepening reports the deepest iteration's
    /// value and move with the counts of all iterations summed.
    pub fn run<G: Game>(self, game: &mut G, depth: Option<u32>) -> SearchReport<G::Move> {
        match self.run_within(game, depth, Budget::UNLIMITED) {
            Ok(report) => report,
            Err(_) => unreachable!("an unlimited budget is never exceeded"),
        }
    }

    /// [`Method::run`] within `budget` (for iterative deepening, shared by
    /// its iterations).
    ///
    /// # Errors
    /// The budget ran out before the search finished (for iterative
    /// deepening: before its last iteration finished).
    pub fn run_within<G: Game>(
        self,
        game: &mut G,
        depth: Option<u32>,
        budget: Budget,
    ) -> Result<SearchReport<G::Move>, Exceeded> {
        match self {
            Method::Minimax => minimax_within(game, depth, budget),
            Method::AlphaBeta => alpha_beta_within(game, depth, Ordering::None, budget),
            Method::AlphaBetaOrdered => alpha_beta_within(game, depth, Ordering::Static, budget),
            Method::Iterative => {
                let d = iterative_deepening_within(game, depth, Ordering::Static, budget);
                if let Some(e) = d.stopped {
                    return Err(e);
                }
                match d.total() {
                    Some(r) => Ok(r),
                    // Depth 0 has no iteration: the evaluation of the root.
                    None => minimax_within(game, depth, budget),
                }
            }
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Method {
    type Err = GameError;
    fn from_str(s: &str) -> Result<Self, GameError> {
        let key = s.trim().to_ascii_lowercase().replace('_', "-");
        let key = match key.as_str() {
            "alpha-beta" | "ab" => "alphabeta",
            "alpha-beta-ordered" | "ordered" => "alphabeta-ordered",
            "id" | "iterative-deepening" => "iterative",
            other => other,
        }
        .to_string();
        Self::ALL.iter().find(|m| m.0 == key).map(|m| m.1).ok_or_else(|| GameError::UnknownMethod {
            name: s.to_string(),
            expected: Self::ALL.iter().map(|m| m.0).collect::<Vec<_>>().join(", "),
        })
    }
}
