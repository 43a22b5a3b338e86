//! Names of the local-search problems, as `solve local … --problem` takes them:
//! `queens<N>` (N-queens on an N×N board) and `function-<name>` (one of
//! the integer functions of [`super::function`]). Parsing checks the
//! board size, so `queens0`, `queens2` and `queens3` are refused here,
//! before any search.

use super::LocalError;
use super::function::IntFunction;
use super::queens::Queens;
use std::fmt;
use std::str::FromStr;

/// A local-search problem by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProblemKind {
    /// N-queens (a size that has solutions and is at most
    /// [`super::queens::MAX_QUEENS`]).
    Queens(Queens),
    /// Minimising an integer function.
    Function(IntFunction),
}

impl FromStr for ProblemKind {
    type Err = LocalError;
    fn from_str(s: &str) -> Result<Self, LocalError> {
        let key = s.trim().to_ascii_lowercase();
        if let Some(digits) = key.strip_prefix("queens") {
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return Err(LocalError::QueensName { name: s.to_string() });
            }
            // All digits: only an overflow can fail, and that is too many.
            let n = digits.parse::<u64>().unwrap_or(u64::MAX);
            return Ok(Self::Queens(Queens::new(n)?));
        }
        if let Some(f) = key.strip_prefix("function-") {
            return Ok(Self::Function(f.parse()?));
        }
        Err(LocalError::UnknownProblem { name: s.to_string(), expected: IntFunction::problem_names() })
    }
}

impl fmt::Display for ProblemKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Queens(q) => write!(f, "queens{}", q.n()),
            Self::Function(g) => write!(f, "function-{}", g.name()),
        }
    }
}
