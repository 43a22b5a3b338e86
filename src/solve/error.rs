//! [`SolveError`]: why `solve` could not run or finish. A request that
//! breaks a rule is [`SolveError::Invalid`], which names the value and the
//! rule it breaks; the errors of the layers below (puzzle parsing, search,
//! heuristics, output folders) pass through with their own types.

use crate::csvlog::TableError;
use crate::cube2::Cube2Error;
use crate::cube3::FaceletError;
use crate::cube3::notation::NotationError;
use crate::folder::FolderError;
use crate::folder::shorten;
use crate::heuristics::HeuristicError;
use crate::learn::config::ConfigError;
use crate::learn::error::LearnError;
use crate::plot::PlotError;
use crate::registry::UnknownPuzzle;
use crate::rundir::FileError;
use crate::scramble::ScrambleError;
use crate::search::SearchError;
use crate::sliding::SlidingError;
use crate::sliding::grid::GridError;
use std::path::PathBuf;
use thiserror::Error;

/// Why `solve` failed.
#[derive(Debug, Error)]
pub enum SolveError {
    /// A value that breaks a rule.
    #[error("{value}: {rule}")]
    Invalid {
        /// The value, with what it is (e.g. ``heuristic `max(a` ``).
        value: String,
        /// The rule it breaks.
        rule: String,
    },
    /// A line of a test set that cannot be read.
    #[error("{set} line {line}: {rule}")]
    Line {
        /// The set (file path or built-in name).
        set: String,
        /// 1-based line number.
        line: usize,
        /// What is wrong with it.
        rule: String,
    },
    /// A test-set file that cannot be read.
    #[error("reading test set {}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// One instance of a set that cannot be solved (e.g. a board of the
    /// wrong parity).
    #[error("instance {}", shorten(.id))]
    Instance {
        /// The instance.
        id: String,
        /// Why.
        #[source]
        source: SlidingError,
    },
    /// A solution that does not replay to the goal: a bug, never a result.
    #[error("BUG: the {method} solution for {id} does not reach the goal: {solution}")]
    WrongSolution {
        /// The method.
        method: String,
        /// The instance.
        id: String,
        /// The moves.
        solution: String,
    },
    /// A replayed solution shorter than the optimal length the instance's
    /// set gives: the set's optimal column is wrong.
    #[error(
        "instance {}: a replayed solution of {length} moves is shorter than the optimal length the test set gives \
         ({optimal}); the set's optimal column is wrong (or in another metric)",
        shorten(.id)
    )]
    BelowOptimal {
        /// The instance.
        id: String,
        /// The solution's length.
        length: usize,
        /// The set's optimal length.
        optimal: u32,
    },
    /// A worker thread that could not start or that panicked.
    #[error("solve worker: {0}")]
    Worker(String),
    /// Cube facelets that describe no cube.
    #[error(transparent)]
    Facelets(#[from] FaceletError),
    /// 2×2×2 facelets that describe no cube.
    #[error(transparent)]
    Cube2(#[from] Cube2Error),
    /// A move sequence that cannot be read.
    #[error(transparent)]
    Notation(#[from] NotationError),
    /// A sliding-puzzle board, goal or width that breaks a rule (the
    /// offending text shown short and in backquotes).
    #[error("{}", sliding_message(.0))]
    Sliding(SlidingError),
    /// Random instances that cannot be drawn.
    #[error(transparent)]
    Scramble(#[from] ScrambleError),
    /// A puzzle name not in the registry.
    #[error(transparent)]
    Puzzle(#[from] UnknownPuzzle),
    /// The search failed.
    #[error(transparent)]
    Search(#[from] SearchError),
    /// A heuristic could not be built.
    #[error(transparent)]
    Heuristic(#[from] HeuristicError),
    /// The output folder could not be claimed or committed.
    #[error(transparent)]
    Folder(#[from] FolderError),
    /// The run's config cannot be used.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The oracle could not be loaded.
    #[error(transparent)]
    Learn(#[from] LearnError),
    /// Symmetric-ensemble transforms that do not fit the oracle (a bug).
    #[error(transparent)]
    Ensemble(#[from] crate::search::symmetric::TransformError),
    /// A table could not be written.
    #[error(transparent)]
    Table(#[from] TableError),
    /// A plot could not be saved.
    #[error(transparent)]
    Plot(#[from] PlotError),
    /// A local-search problem, method or limit that breaks a rule.
    #[error(transparent)]
    Local(#[from] crate::local::LocalError),
    /// A board of any width (`solve parberry`) that breaks a rule (the
    /// offending text shown short and in backquotes).
    #[error("{}", grid_message(.0))]
    Grid(GridError),
    /// Parberry's algorithm failed (an unsolvable board, or a bug).
    #[error(transparent)]
    Parberry(#[from] crate::search::parberry::ParberryError),
    /// A file-system operation failed.
    #[error(transparent)]
    File(#[from] FileError),
}

impl From<SlidingError> for SolveError {
    fn from(e: SlidingError) -> Self {
        Self::Sliding(e)
    }
}

impl From<GridError> for SolveError {
    fn from(e: GridError) -> Self {
        Self::Grid(e)
    }
}

/// A sliding error's message, with a user's token or goal text shown in
/// backquotes and shortened (the error itself shows it in full, quoted as
/// Rust debug text).
pub(super) fn sliding_message(e: &SlidingError) -> String {
    match e {
        SlidingError::NotANumber { token } => format!("`{}` is not a tile number", shorten(token)),
        SlidingError::UnknownGoal { text } => {
            format!("unknown goal `{}`: expected blank-last, blank-first, snail or a tile list", shorten(text))
        }
        other => other.to_string(),
    }
}

/// [`sliding_message`] for boards of any width.
fn grid_message(e: &GridError) -> String {
    match e {
        GridError::NotANumber { token } => format!("`{}` is not a tile number", shorten(token)),
        other => other.to_string(),
    }
}

/// [`SolveError::Invalid`] from a value and a rule (`format!` arguments).
macro_rules! invalid {
    ($value:expr, $($rule:tt)+) => {
        $crate::solve::error::SolveError::Invalid { value: $value.to_string(), rule: format!($($rule)+) }
    };
}
pub(crate) use invalid;
