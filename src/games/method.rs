//! The search methods by name, one vocabulary for `play --method`, the
//! node-count table's `method` column and the docs.

use super::Game;
use super::alphabeta::{Ordering, alpha_beta};
use super::deepening::iterative_deepening;
use super::error::GameError;
use super::minimax::minimax;
use super::report::SearchReport;
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
        match self {
            Method::Minimax => minimax(game, depth),
            Method::AlphaBeta => alpha_beta(game, depth, Ordering::None),
            Method::AlphaBetaOrdered => alpha_beta(game, depth, Ordering::Static),
            Method::Iterative => match iterative_deepening(game, depth, Ordering::Static).total() {
                Some(r) => r,
                // Depth 0 has no iteration: the evaluation of the root.
                None => minimax(game, depth),
            },
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
