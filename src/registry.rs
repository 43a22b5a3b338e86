//! The puzzle registry: every puzzle the tools know, under the one name that
//! configs (`puzzle.kind`), flags (`--puzzle`) and output labels use, and
//! the one place that turns a name into a model. [`PuzzleKind`] is the name
//! (`cube3`, `cube2`, `puzzleN`); [`AnyPuzzle`] the model chosen at run time; code
//! that is generic over [`Puzzle`] reaches the concrete model through a
//! [`PuzzleVisitor`]. Adding a puzzle means a model folder, a variant in
//! each of the two enums, and its arm in each `match` below.

use crate::cube2::Cube2Puzzle;
use crate::cube3::{Cube3Puzzle, Metric};
use crate::puzzle::Puzzle;
use crate::sliding::{Goal, Sliding, SlidingError};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;
use thiserror::Error;

/// A puzzle name that is not in the registry.
#[derive(Debug, Error, PartialEq, Eq)]
#[error(
    "unknown puzzle `{0}`: expected cube3, cube2, or puzzleN with N + 1 a square from 4 to 64 (puzzle8, puzzle15, puzzle24, …)"
)]
pub struct UnknownPuzzle(pub String);

/// Which puzzle: the registry's names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum PuzzleKind {
    /// The 3×3×3 cube (`cube3`).
    Cube3,
    /// The 2×2×2 cube (`cube2`).
    Cube2,
    /// The n×n sliding puzzle (`puzzleN`, N = n² − 1), 2 ≤ n ≤ 8.
    Sliding(usize),
}

impl FromStr for PuzzleKind {
    type Err = UnknownPuzzle;
    /// `cube3` (also `cube`), `cube2`, or `puzzleN` with `N + 1` a square: `puzzle8`,
    /// `puzzle15`, `puzzle24`, … up to `puzzle63`.
    fn from_str(s: &str) -> Result<Self, UnknownPuzzle> {
        let t = s.trim().to_ascii_lowercase();
        if t == "cube3" || t == "cube" {
            return Ok(Self::Cube3);
        }
        if t == "cube2" {
            return Ok(Self::Cube2);
        }
        if let Some(num) = t.strip_prefix("puzzle")
            && let Ok(tiles) = num.parse::<usize>()
            && tiles < 64
        {
            let n = ((tiles + 1) as f64).sqrt().round() as usize;
            if n * n == tiles + 1 && (2..=8).contains(&n) {
                return Ok(Self::Sliding(n));
            }
        }
        Err(UnknownPuzzle(s.chars().take(40).collect()))
    }
}

impl TryFrom<String> for PuzzleKind {
    type Error = UnknownPuzzle;
    fn try_from(s: String) -> Result<Self, UnknownPuzzle> {
        s.parse()
    }
}

impl From<PuzzleKind> for String {
    fn from(k: PuzzleKind) -> String {
        k.name()
    }
}

impl fmt::Display for PuzzleKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

impl PuzzleKind {
    /// Whether the puzzle has more than one move metric (`puzzle.metric`,
    /// `--metric`): the cubes (quarter and half turns).
    #[must_use]
    pub fn has_metric(self) -> bool {
        match self {
            Self::Cube3 | Self::Cube2 => true,
            Self::Sliding(_) => false,
        }
    }

    /// Whether the puzzle's goal can be chosen (`puzzle.goal`, `--goal`):
    /// the sliding puzzles.
    #[must_use]
    pub fn has_goal(self) -> bool {
        match self {
            Self::Cube3 | Self::Cube2 => false,
            Self::Sliding(_) => true,
        }
    }

    /// `cube3`, `cube2` or `puzzleN`.
    #[must_use]
    pub fn name(self) -> String {
        match self {
            Self::Cube3 => "cube3".into(),
            Self::Cube2 => "cube2".into(),
            Self::Sliding(n) => format!("puzzle{}", n * n - 1),
        }
    }
}

/// A puzzle model chosen at run time.
#[derive(Clone, Debug)]
pub enum AnyPuzzle {
    /// The cube in one move metric.
    Cube3(Cube3Puzzle),
    /// The 2×2×2 in one move metric.
    Cube2(Cube2Puzzle),
    /// A sliding puzzle with its goal.
    Sliding(Sliding),
}

/// Code that is generic over the puzzle, called with the concrete model.
pub trait PuzzleVisitor {
    /// What the visit returns.
    type Out;
    /// Runs with the concrete puzzle.
    fn visit<P: Puzzle + 'static>(self, puzzle: P) -> Self::Out;
}

impl AnyPuzzle {
    /// The model for `kind`: the 3×3×3 or 2×2×2 cube in `metric`, or a sliding puzzle with
    /// `goal` (blank-last when `None`).
    ///
    /// # Errors
    /// A goal that does not fit the board.
    pub fn new(kind: PuzzleKind, metric: Metric, goal: Option<&Goal>) -> Result<Self, SlidingError> {
        Ok(match kind {
            PuzzleKind::Cube3 => Self::Cube3(Cube3Puzzle::new(metric)),
            PuzzleKind::Cube2 => Self::Cube2(Cube2Puzzle::new(metric)),
            PuzzleKind::Sliding(n) => Self::Sliding(Sliding::new(n, goal.cloned().unwrap_or_default())?),
        })
    }

    /// Calls `v` with the concrete model.
    pub fn visit<V: PuzzleVisitor>(&self, v: V) -> V::Out {
        match self {
            Self::Cube3(p) => v.visit(*p),
            Self::Cube2(p) => v.visit(*p),
            Self::Sliding(p) => v.visit(p.clone()),
        }
    }

    /// Floats in one state's encoding (the network's input width).
    #[must_use]
    pub fn encoded_len(&self) -> usize {
        match self {
            Self::Cube3(p) => p.encoded_len(),
            Self::Cube2(p) => p.encoded_len(),
            Self::Sliding(p) => p.encoded_len(),
        }
    }

    /// Number of moves (the network's output width).
    #[must_use]
    pub fn num_moves(&self) -> usize {
        match self {
            Self::Cube3(p) => p.num_moves(),
            Self::Cube2(p) => p.num_moves(),
            Self::Sliding(p) => p.num_moves(),
        }
    }

    /// The registry name of this puzzle.
    #[must_use]
    pub fn kind(&self) -> PuzzleKind {
        match self {
            Self::Cube3(_) => PuzzleKind::Cube3,
            Self::Cube2(_) => PuzzleKind::Cube2,
            Self::Sliding(p) => PuzzleKind::Sliding(p.n()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_models_have_their_sizes() {
        for (name, kind, inputs, moves) in [
            ("cube3", PuzzleKind::Cube3, 324, 12),
            ("cube2", PuzzleKind::Cube2, 144, 6),
            ("puzzle8", PuzzleKind::Sliding(3), 81, 4),
        ] {
            assert_eq!(name.parse::<PuzzleKind>().unwrap(), kind);
            assert_eq!(kind.name(), name);
            let p = AnyPuzzle::new(kind, Metric::Qtm, None).unwrap();
            assert_eq!((p.encoded_len(), p.num_moves(), p.kind()), (inputs, moves, kind));
        }
        assert_eq!("puzzle15".parse::<PuzzleKind>().unwrap(), PuzzleKind::Sliding(4));
        let htm = AnyPuzzle::new(PuzzleKind::Cube2, Metric::Htm, None).unwrap();
        assert_eq!((htm.num_moves(), htm.kind().name()), (9, "cube2".to_string()));
        for bad in ["puzzle7", "puzzle18446744073709551615", "cube4", ""] {
            assert!(bad.parse::<PuzzleKind>().unwrap_err().to_string().contains("expected cube3, cube2, or puzzleN"));
        }
    }
}
