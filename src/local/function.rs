//! Minimising a black-box function `f(x)` over the integers, the lecture's
//! second local-search example: a state is an integer `x`, the initial
//! state a random integer, the neighbours `x − 1` and `x + 1`, and there is
//! no goal test (the search cannot know it has found the minimum).
//!
//! The lecture gives no particular `f`, so three named functions with
//! known minima stand in for the black box, each showing one feature of
//! the state-space landscape, on the bounded domain
//! [`DOMAIN`] = `−1000..=1000`:
//!
//! - `quadratic`: `(x − 42)²`, one valley; every climb ends at `x = 42`.
//! - `comb`: `|x| + 3·d₂₀(x)`, where `d₂₀(x)` is the distance from `x` to
//!   the nearest multiple of 20: a local minimum at every multiple of 20
//!   (value `|x|`), the global one `f(0) = 0`, whose basin is `−10..=10`.
//! - `shoulder`: `100 − x` for `x ≤ 0`, a flat shoulder `f = 100` on
//!   `0..=50`, then `|150 − x|`: the global minimum `f(150) = 0` lies past
//!   a plateau that only sideways moves cross.

use super::{LocalError, LocalProblem};
use rand::{Rng, RngExt};
use std::ops::RangeInclusive;
use std::str::FromStr;

/// The integers searched.
pub const DOMAIN: RangeInclusive<i64> = -1000..=1000;

/// A named integer function with a known global minimum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntFunction {
    /// `(x − 42)²`: unimodal, minimum 0 at 42.
    Quadratic,
    /// `|x| + 3·d₂₀(x)`: local minima at the multiples of 20, global 0 at 0.
    Comb,
    /// A slope, a flat shoulder on `0..=50`, then a valley: minimum 0 at 150.
    Shoulder,
}

impl IntFunction {
    /// Every function with its name.
    pub const ALL: [(&'static str, Self); 3] =
        [("quadratic", Self::Quadratic), ("comb", Self::Comb), ("shoulder", Self::Shoulder)];

    /// The function's name.
    #[must_use]
    pub fn name(self) -> &'static str {
        Self::ALL.iter().find(|f| f.1 == self).map_or("?", |f| f.0)
    }

    /// `f(x)`.
    #[must_use]
    pub fn value(self, x: i64) -> i64 {
        match self {
            Self::Quadratic => (x - 42) * (x - 42),
            Self::Comb => {
                let m = x.rem_euclid(20);
                x.abs() + 3 * m.min(20 - m)
            }
            Self::Shoulder => match x {
                ..=0 => 100 - x,
                1..=50 => 100,
                _ => (150 - x).abs(),
            },
        }
    }

    /// Where the global minimum lies on [`DOMAIN`] (the unique minimiser).
    #[must_use]
    pub fn argmin(self) -> i64 {
        match self {
            Self::Quadratic => 42,
            Self::Comb => 0,
            Self::Shoulder => 150,
        }
    }

    /// The names, comma-separated as the problem names `function-<name>`.
    #[must_use]
    pub fn problem_names() -> String {
        Self::ALL.iter().map(|f| format!("function-{}", f.0)).collect::<Vec<_>>().join(", ")
    }
}

impl FromStr for IntFunction {
    type Err = LocalError;
    fn from_str(s: &str) -> Result<Self, LocalError> {
        let key = s.trim().to_ascii_lowercase();
        Self::ALL.iter().find(|f| f.0 == key).map(|f| f.1).ok_or_else(|| LocalError::UnknownProblem {
            name: format!("function-{s}"),
            expected: Self::problem_names(),
        })
    }
}

/// Minimising an [`IntFunction`] over [`DOMAIN`] with steps of ±1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FunctionProblem {
    /// The function.
    pub f: IntFunction,
}

/// A state: the integer `x` and `f(x)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Point {
    /// The integer.
    pub x: i64,
    /// `f(x)`.
    pub fx: i64,
}

impl FunctionProblem {
    /// The problem of minimising `f`.
    #[must_use]
    pub fn new(f: IntFunction) -> Self {
        Self { f }
    }

    /// The state at `x`; `None` outside [`DOMAIN`].
    #[must_use]
    pub fn point(&self, x: i64) -> Option<Point> {
        DOMAIN.contains(&x).then(|| Point { x, fx: self.f.value(x) })
    }

    /// The neighbours inside the domain, in the order `x − 1`, `x + 1`.
    fn step(&self, state: &Point, i: usize) -> i64 {
        let down = state.x > *DOMAIN.start();
        match (i, down) {
            (0, true) => state.x - 1,
            _ => state.x + 1,
        }
    }
}

impl LocalProblem for FunctionProblem {
    type State = Point;

    fn name(&self) -> String {
        format!("function-{}", self.f.name())
    }

    fn random_state<R: Rng + ?Sized>(&self, rng: &mut R) -> Point {
        let x = rng.random_range(DOMAIN);
        Point { x, fx: self.f.value(x) }
    }

    fn cost(&self, state: &Point) -> i64 {
        state.fx
    }

    fn recompute_cost(&self, state: &Point) -> i64 {
        self.f.value(state.x)
    }

    fn neighbours(&self, state: &Point) -> usize {
        1 + usize::from(state.x > *DOMAIN.start() && state.x < *DOMAIN.end())
    }

    fn neighbour_cost(&self, state: &Point, i: usize) -> i64 {
        self.f.value(self.step(state, i))
    }

    fn move_to(&self, state: &mut Point, i: usize) {
        let x = self.step(state, i);
        *state = Point { x, fx: self.f.value(x) };
    }

    fn is_goal(&self, _cost: i64) -> bool {
        false
    }

    fn optimum(&self) -> i64 {
        self.f.value(self.f.argmin())
    }

    fn describe(&self, state: &Point) -> String {
        format!("x = {}, f(x) = {}", state.x, state.fx)
    }
}
