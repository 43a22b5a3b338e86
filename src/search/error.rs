//! [`SearchError`]: why a search could not run — settings out of range, an
//! oracle that does not fit the puzzle, or an oracle that failed to answer.

use thiserror::Error;

/// An oracle that could not answer a query (its implementation says why).
#[derive(Debug, Error)]
#[error("{0}")]
pub struct OracleError(pub String);

/// A search that could not run.
#[derive(Debug, Error)]
pub enum SearchError {
    /// A beam width outside `1..=max`.
    #[error("beam width {width} is out of range 1..={max}")]
    WidthOutOfRange {
        /// The width asked for.
        width: usize,
        /// The largest width accepted.
        max: usize,
    },
    /// An oracle with another number of moves than the puzzle.
    #[error("the oracle predicts {oracle} moves but {puzzle} has {moves}")]
    MoveCount {
        /// The oracle's outputs per state.
        oracle: usize,
        /// The puzzle's name.
        puzzle: String,
        /// The puzzle's moves.
        moves: usize,
    },
    /// Stopped between depths because another search of the same sweep
    /// failed ([`super::beam::beam_search_until`]).
    #[error("stopped: another search of the sweep failed")]
    Stopped,
    /// The oracle failed.
    #[error("the oracle failed: {0}")]
    Oracle(#[from] OracleError),
    /// The oracle returned NaN or an infinity, which no ranking can use.
    #[error(
        "the oracle returned {value} for a state at depth {depth} (output {index} of that depth): \
         its weights are broken or its arithmetic overflowed, so no beam can be ranked"
    )]
    NonFinite {
        /// The value returned.
        value: f32,
        /// The search depth of the batch.
        depth: usize,
        /// The output's index among that depth's outputs.
        index: usize,
    },
}
