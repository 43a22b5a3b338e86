//! [`GameError`]: why a game could not be set up or a search not run. Each
//! variant is one rule; its message names the value (and for layouts the
//! line and column) and the rule it breaks.

use crate::csvlog::TableError;
use std::path::PathBuf;
use thiserror::Error;

/// Why a game, a search request or its table was refused.
#[derive(Debug, Error)]
pub enum GameError {
    /// A game name that is not one of ours.
    #[error("game `{name}`: unknown game; expected one of sticks, tictactoe, pacman")]
    UnknownGame {
        /// The name given.
        name: String,
    },
    /// A search method name that is not one of ours.
    #[error("method `{name}`: unknown method; expected one of {expected}")]
    UnknownMethod {
        /// The name given.
        name: String,
        /// The names accepted.
        expected: String,
    },
    /// An evaluation-function name that is not one of ours.
    #[error("eval `{name}`: unknown evaluation function; expected ratio or features")]
    UnknownEval {
        /// The name given.
        name: String,
    },
    /// A pile that is not a whole number.
    #[error("piles `{text}`: `{item}` is not a whole number of sticks")]
    PileNotNumber {
        /// The whole list.
        text: String,
        /// The item that does not parse.
        item: String,
    },
    /// Too few or too many piles.
    #[error("piles `{text}`: {count} piles; give 1 to {max} pile sizes separated by commas")]
    PileCount {
        /// The whole list.
        text: String,
        /// How many piles were given.
        count: usize,
        /// The most piles allowed.
        max: usize,
    },
    /// A pile larger than the model holds.
    #[error("piles `{text}`: a pile of {value} sticks; a pile holds at most {max}")]
    PileTooLarge {
        /// The whole list.
        text: String,
        /// The pile size as given.
        value: String,
        /// The largest pile allowed.
        max: u32,
    },
    /// A tic-tac-toe board without three rows.
    #[error("board `{text}`: {rows} rows; give 3 rows of 3 cells separated by `/`, e.g. `x.o/.x./..o`")]
    BoardRows {
        /// The board text.
        text: String,
        /// How many rows it has.
        rows: usize,
    },
    /// A tic-tac-toe row without three cells.
    #[error("board `{text}`: row {row} has {cells} cells; every row has 3")]
    BoardRowLength {
        /// The board text.
        text: String,
        /// 1-based row.
        row: usize,
        /// How many cells it has.
        cells: usize,
    },
    /// A tic-tac-toe cell that is not `x`, `o` or `.`.
    #[error("board `{text}`: row {row} column {column}: `{ch}` is not x, o or .")]
    BoardCell {
        /// The board text.
        text: String,
        /// 1-based row.
        row: usize,
        /// 1-based column.
        column: usize,
        /// The character.
        ch: char,
    },
    /// Mark counts that no game reaches (X moves first).
    #[error("board `{text}`: {x} x and {o} o; X moves first, so there are as many x as o or one more")]
    BoardCounts {
        /// The board text.
        text: String,
        /// Number of x.
        x: usize,
        /// Number of o.
        o: usize,
    },
    /// Both players have three in a row.
    #[error("board `{text}`: both x and o have three in a row; the game ends at the first")]
    BoardTwoWinners {
        /// The board text.
        text: String,
    },
    /// A line of three by the player who did not move last.
    #[error("board `{text}`: {winner} has three in a row, but with {x} x and {o} o the last move was not {winner}'s")]
    BoardPlayedOn {
        /// The board text.
        text: String,
        /// `x` or `o`.
        winner: char,
        /// Number of x.
        x: usize,
        /// Number of o.
        o: usize,
    },
    /// A layout file that cannot be read.
    #[error("reading layout {}", path.display())]
    LayoutRead {
        /// The file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// A layout with no rows.
    #[error("layout {layout}: no rows; a layout is lines of % . o P G and spaces")]
    LayoutEmpty {
        /// The file (or `<text>`).
        layout: String,
    },
    /// A character that is not part of the layout format.
    #[error(
        "layout {layout} line {line} column {column}: `{ch}` is not a layout character (% wall, . food, o capsule, P Pacman, G ghost, space)"
    )]
    LayoutChar {
        /// The file (or `<text>`).
        layout: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The character.
        ch: char,
    },
    /// Rows of different lengths.
    #[error("layout {layout} line {line}: {width} columns, but line 1 has {expected}; every row has the same width")]
    LayoutRagged {
        /// The file (or `<text>`).
        layout: String,
        /// 1-based line.
        line: usize,
        /// Its width.
        width: usize,
        /// The first row's width.
        expected: usize,
    },
    /// A layout beyond the size limit.
    #[error("layout {layout}: {rows} rows × {columns} columns; at most {max} of each")]
    LayoutTooLarge {
        /// The file (or `<text>`).
        layout: String,
        /// Rows.
        rows: usize,
        /// Columns.
        columns: usize,
        /// The limit on each.
        max: usize,
    },
    /// Not exactly one Pacman.
    #[error("layout {layout}: {count} Pacman cells (P); a layout has exactly one")]
    LayoutPacman {
        /// The file (or `<text>`).
        layout: String,
        /// How many `P` it has.
        count: usize,
    },
    /// No food: the game would be won before it starts.
    #[error("layout {layout}: no food (.); Pacman wins by eating all food, so a layout needs at least one")]
    LayoutNoFood {
        /// The file (or `<text>`).
        layout: String,
    },
    /// More ghosts asked for than the layout has.
    #[error("ghosts {asked}: layout {layout} has only {available} ghosts (G)")]
    GhostsTooMany {
        /// The file (or `<text>`).
        layout: String,
        /// Ghosts asked for.
        asked: usize,
        /// Ghosts in the layout.
        available: usize,
    },
    /// More ghosts than the search model holds, or none.
    #[error("ghosts {asked}: give 1 to {max} ghosts (each is a MIN agent)")]
    GhostsRange {
        /// Ghosts asked for.
        asked: usize,
        /// The most allowed.
        max: usize,
    },
    /// An option given for a game it does not apply to.
    #[error("{flag} applies to --game {applies_to}, not {game}")]
    FlagNotForGame {
        /// The option.
        flag: &'static str,
        /// The game chosen.
        game: &'static str,
        /// The game it applies to.
        applies_to: &'static str,
    },
    /// An option a game needs and did not get.
    #[error("--game {game} needs {flag}, e.g. {example}")]
    FlagMissing {
        /// The option.
        flag: &'static str,
        /// The game chosen.
        game: &'static str,
        /// An example value.
        example: &'static str,
    },
    /// A depth limit of zero plies.
    #[error("depth 0: a search looks at least one ply ahead")]
    DepthZero,
    /// A game whose tree is infinite, searched without a depth limit.
    #[error("game {game}: the game tree is infinite (positions repeat); give a depth limit")]
    DepthRequired {
        /// The game.
        game: &'static str,
    },
    /// A node-count table where a file already is.
    #[error("{}: the file exists; --overwrite replaces it", path.display())]
    TableExists {
        /// The table's path.
        path: PathBuf,
    },
    /// The node-count table could not be written.
    #[error(transparent)]
    Table(#[from] TableError),
}
