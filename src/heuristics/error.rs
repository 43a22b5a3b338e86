//! [`HeuristicError`]: why a heuristic could not be built — a pattern or
//! partition that breaks a rule (each variant names the value and the
//! rule), or a pattern-database cache file that could not be written.

use std::path::PathBuf;
use thiserror::Error;

/// A heuristic that cannot be built.
#[derive(Debug, Error)]
pub enum HeuristicError {
    /// A pattern whose goal has the wrong number of tiles.
    #[error("goal has {got} tiles, expected {expected} for n = {n}")]
    GoalSize {
        /// Tiles given.
        got: usize,
        /// `n²`.
        expected: usize,
        /// Board width.
        n: usize,
    },
    /// A pattern with too few or too many cells.
    #[error("a pattern needs 1..={max} cells, got {got}")]
    PatternSize {
        /// Cells given.
        got: usize,
        /// The most allowed.
        max: usize,
    },
    /// A pattern cell off the board.
    #[error("pattern cell {cell} is outside the {n}×{n} board (cells 0..{})", n * n)]
    CellOutside {
        /// The cell.
        cell: u8,
        /// Board width.
        n: usize,
    },
    /// A pattern cell listed twice.
    #[error("pattern cell {0} is listed twice")]
    CellTwice(u8),
    /// A pattern cell holding the goal's blank.
    #[error("pattern cell {0} holds the goal's blank; patterns are sets of tiles")]
    CellIsBlank(u8),
    /// A pattern whose table would not fit the index.
    #[error("a pattern of {cells} cells on a {n}×{n} board is too large: {why}")]
    PatternTooLarge {
        /// Cells in the pattern.
        cells: usize,
        /// Board width.
        n: usize,
        /// Which limit it passes.
        why: String,
    },
    /// A partition with too few or too many patterns.
    #[error("a partition needs 1..={max} patterns, got {got}")]
    PartitionSize {
        /// Patterns given.
        got: usize,
        /// The most allowed.
        max: usize,
    },
    /// Two patterns of an additive partition share a tile.
    #[error("partition {partition}: tile {tile} is in two patterns; additive patterns must be disjoint")]
    Overlap {
        /// The partition.
        partition: String,
        /// The shared tile.
        tile: u8,
    },
    /// A pattern of a named partition breaks a rule.
    #[error("partition {partition}: {source}")]
    InPartition {
        /// The partition.
        partition: String,
        /// What is wrong with its pattern.
        #[source]
        source: Box<HeuristicError>,
    },
    /// A partition name that is not defined for this width.
    #[error("{0}")]
    UnknownPartition(String),
    /// A named partition used with a goal whose blank is not in a corner.
    #[error(
        "partition {partition} is laid out for a goal with the blank in a corner; this goal has it on cell {blank}; give the cells explicitly"
    )]
    BlankNotInCorner {
        /// The partition.
        partition: String,
        /// The goal's blank cell.
        blank: usize,
    },
    /// Reflection asked of a goal that is not symmetric under the transpose.
    #[error(
        "reflection needs a goal that is symmetric under the transpose (its blank on the main diagonal); the {goal} goal has the blank on cell {blank}"
    )]
    NotSymmetric {
        /// The goal's name.
        goal: String,
        /// Its blank cell.
        blank: usize,
    },
    /// A pattern-database cache file or folder that could not be written.
    #[error("{action} {}: {source}", path.display())]
    Cache {
        /// What was being done.
        action: &'static str,
        /// The file or folder.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
}
