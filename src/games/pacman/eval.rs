//! The lecture's two evaluation functions for Pacman, on Manhattan
//! distances (as the lecture defines them; walls are ignored).
//!
//! * [`Eval::Ratio`]: `score + ghost_distance / (food_distance + 1)`, the
//!   lecture's ratio of the distance to the nearest ghost (scared or not)
//!   over the distance to the nearest food plus one. The lecture gives the
//!   ratio alone; we add the game score because the ratio alone gives
//!   Pacman no reason to eat (eating a dot usually makes the nearest
//!   remaining one farther) and is not on the scale of the terminal
//!   utilities (the score, with ±500 for a win or a loss).
//! * [`Eval::Features`]: the weighted five-feature sum `w1·score +
//!   w2·food_distance + w3·capsule_distance + w4·ghost_distance +
//!   w5·scared_ghost_distance` with the weights [`WEIGHTS`]. A ghost counts
//!   for `ghost_distance` while it is not scared and for
//!   `scared_ghost_distance` while it is; both distances are capped at
//!   [`GHOST_HORIZON`] (a ghost farther away neither threatens nor is worth
//!   chasing), and a missing kind of ghost counts as the cap. A missing
//!   food or capsule counts as distance 0.
//!
//! Both stay well inside the terminal utilities' range while the distance
//! terms are small beside 500 (every layout up to [`MAX_SIDE`](super::layout::MAX_SIDE)
//! cells a side).

use crate::games::error::GameError;
use std::fmt;
use std::str::FromStr;

/// `(w1, …, w5)`: score, food, capsule, active ghost, scared ghost.
pub const WEIGHTS: [f64; 5] = [1.0, -1.0, -2.0, 2.0, -2.0];

/// Ghost distances beyond this count as this.
pub const GHOST_HORIZON: u32 = 6;

/// Which evaluation function scores positions at the depth limit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Eval {
    /// `score + ghost_distance / (food_distance + 1)`.
    #[default]
    Ratio,
    /// The weighted five-feature sum.
    Features,
}

impl FromStr for Eval {
    type Err = GameError;
    fn from_str(s: &str) -> Result<Self, GameError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "ratio" => Ok(Eval::Ratio),
            "features" => Ok(Eval::Features),
            _ => Err(GameError::UnknownEval { name: s.to_string() }),
        }
    }
}

impl fmt::Display for Eval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Eval::Ratio => "ratio",
            Eval::Features => "features",
        })
    }
}

/// The features of a position, as the evaluation functions read them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Features {
    /// The game score so far.
    pub score: i32,
    /// Manhattan distance to the nearest food (0 if none is left).
    pub food_distance: u32,
    /// Manhattan distance to the nearest capsule (0 if none is left).
    pub capsule_distance: u32,
    /// Manhattan distance to the nearest ghost, scared or not.
    pub any_ghost_distance: u32,
    /// Manhattan distance to the nearest ghost that is not scared.
    pub ghost_distance: Option<u32>,
    /// Manhattan distance to the nearest scared ghost.
    pub scared_ghost_distance: Option<u32>,
}

impl Features {
    /// The lecture's ratio evaluation, plus the score.
    #[must_use]
    pub fn ratio(&self) -> f64 {
        f64::from(self.score) + f64::from(self.any_ghost_distance) / (f64::from(self.food_distance) + 1.0)
    }

    /// The weighted five-feature sum with [`WEIGHTS`].
    #[must_use]
    pub fn weighted(&self) -> f64 {
        let cap = |d: Option<u32>| f64::from(d.map_or(GHOST_HORIZON, |d| d.min(GHOST_HORIZON)));
        let x = [
            f64::from(self.score),
            f64::from(self.food_distance),
            f64::from(self.capsule_distance),
            cap(self.ghost_distance),
            cap(self.scared_ghost_distance),
        ];
        WEIGHTS.iter().zip(x).map(|(w, x)| w * x).sum()
    }

    /// The value of `eval` on these features.
    #[must_use]
    pub fn evaluate(&self, eval: Eval) -> f64 {
        match eval {
            Eval::Ratio => self.ratio(),
            Eval::Features => self.weighted(),
        }
    }
}
