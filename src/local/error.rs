//! [`LocalError`]: a local-search request that breaks a rule (a problem
//! name that cannot be read, a queens board with no solution, a method or
//! schedule parameter out of range). Each variant names the value and the
//! rule it fails.

use thiserror::Error;

/// Why a local-search problem or run could not be set up.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum LocalError {
    /// A problem name that is neither `queens<N>` nor `function-<name>`.
    #[error("problem `{name}`: unknown; expected queens<N> (e.g. queens8) or one of {expected}")]
    UnknownProblem {
        /// The name given.
        name: String,
        /// The function problems, comma-separated.
        expected: String,
    },
    /// `queens` followed by something that is not a whole number.
    #[error("problem `{name}`: expected queens<N> with N a whole number, e.g. queens8")]
    QueensName {
        /// The name given.
        name: String,
    },
    /// A board with no columns.
    #[error("queens{n}: the board needs N >= 1 queens")]
    QueensTooFew {
        /// The size given.
        n: u64,
    },
    /// A board size with no solution (2 and 3), refused instead of searched.
    #[error(
        "queens{n}: no placement of {n} non-attacking queens exists (N = 2 and N = 3 have none), so there is nothing to search for"
    )]
    NoSolution {
        /// The size given.
        n: u64,
    },
    /// A board larger than local search here is sized for.
    #[error("queens{n}: at most {max} queens (one hill-climbing step scans N·(N−1) neighbours)")]
    QueensTooMany {
        /// The size given.
        n: u64,
        /// The largest size accepted.
        max: usize,
    },
    /// A board too large for the exhaustive solution count.
    #[error(
        "counting the solutions of queens{n} by backtracking: at most N = {max} (the count grows about 2.5× per queen)"
    )]
    CountTooLarge {
        /// The size given.
        n: usize,
        /// The largest size counted.
        max: usize,
    },
    /// A method name that is not a local-search method.
    #[error("method `{name}`: not a local-search method; expected hill-climbing, first-choice or annealing")]
    UnknownMethod {
        /// The name given.
        name: String,
    },
    /// A start temperature that is not a positive finite number.
    #[error("temperature {value}: the start temperature must be a positive finite number")]
    Temperature {
        /// The value given.
        value: f64,
    },
    /// A cooling factor outside `(0, 1)`.
    #[error("cooling {value}: the geometric cooling factor must lie strictly between 0 and 1")]
    Cooling {
        /// The value given.
        value: f64,
    },
    /// A run count of zero.
    #[error("runs {value}: give at least one run")]
    Runs {
        /// The value given.
        value: usize,
    },
    /// A step limit of zero.
    #[error("max-steps {value}: the step limit must be at least 1")]
    MaxSteps {
        /// The value given.
        value: u64,
    },
}
