//! [`Parity`]: even or odd, the invariant that decides whether a board can
//! reach a goal (see [`super::solvability`]). Its own module so that the
//! error type can name parities without depending on the solvability code.

use std::fmt;

/// Parity of an integer: the solvability invariant of a board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Parity {
    /// Divisible by two.
    Even,
    /// Not divisible by two.
    Odd,
}

impl Parity {
    /// The parity of `x`.
    #[must_use]
    pub fn of(x: usize) -> Self {
        if x.is_multiple_of(2) { Self::Even } else { Self::Odd }
    }
}

impl fmt::Display for Parity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Even => "even",
            Self::Odd => "odd",
        })
    }
}
