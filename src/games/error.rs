//! [`GameError`]: why a game could not be set up or a search not run. Each
//! variant is one rule; its message names the value (and for layouts the
//! line and column) and the rule it breaks, on one line: values the user
//! typed are shown through [`shown`] (control characters escaped, long
//! values cut to [`SHOWN_CHARS`] characters and `…`).

#[cfg(feature = "tables")]
use crate::csvlog::TableError;
use std::fs::FileType;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// How many characters of a value the user gave an error message repeats.
pub const SHOWN_CHARS: usize = 40;

/// `value` as an error message shows it: at most [`SHOWN_CHARS`]
/// characters (then `…`), control characters (line breaks included)
/// escaped, so that the message stays one short line.
#[must_use]
pub fn shown(value: &str) -> String {
    let mut out = String::new();
    for (i, ch) in value.chars().enumerate() {
        if i == SHOWN_CHARS {
            out.push('…');
            break;
        }
        if ch.is_control() {
            out.extend(ch.escape_default());
        } else {
            out.push(ch);
        }
    }
    out
}

/// A path as an error message shows it (see [`shown`]).
#[must_use]
pub fn shown_path(path: &Path) -> String {
    shown(&path.display().to_string())
}

/// A character as an error message shows it (control characters escaped).
fn shown_char(ch: &char) -> String {
    shown(&ch.to_string())
}

/// What a file that is not a regular file is, in words.
#[must_use]
pub fn file_kind(t: &FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_block_device() || t.is_char_device() {
            return "a device";
        }
    }
    if t.is_dir() {
        "a directory"
    } else if t.is_symlink() {
        "a symbolic link"
    } else if t.is_file() {
        "a regular file"
    } else {
        "not a regular file"
    }
}

/// Why a game, a search request or its table was refused.
#[derive(Debug, Error)]
pub enum GameError {
    /// A game name that is not one of ours.
    #[error("game `{}`: unknown game; expected one of sticks, tictactoe, pacman", shown(name))]
    UnknownGame {
        /// The name given.
        name: String,
    },
    /// A search method name that is not one of ours.
    #[error("method `{}`: unknown method; expected one of {expected}", shown(name))]
    UnknownMethod {
        /// The name given.
        name: String,
        /// The names accepted.
        expected: String,
    },
    /// An evaluation-function name that is not one of ours.
    #[error("eval `{}`: unknown evaluation function; expected ratio or features", shown(name))]
    UnknownEval {
        /// The name given.
        name: String,
    },
    /// A pile that is not a whole number.
    #[error("--piles `{}`: `{}` is not a whole number of sticks", shown(text), shown(item))]
    PileNotNumber {
        /// The whole list.
        text: String,
        /// The item that does not parse.
        item: String,
    },
    /// Too few or too many piles.
    #[error("--piles `{}`: {count} piles; give 1 to {max} pile sizes separated by commas", shown(text))]
    PileCount {
        /// The whole list.
        text: String,
        /// How many piles were given.
        count: usize,
        /// The most piles allowed.
        max: usize,
    },
    /// A pile larger than the model holds.
    #[error("--piles `{}`: a pile of {} sticks; a pile holds at most {max}", shown(text), shown(value))]
    PileTooLarge {
        /// The whole list.
        text: String,
        /// The pile size as given.
        value: String,
        /// The largest pile allowed.
        max: u32,
    },
    /// A tic-tac-toe board without three rows.
    #[error("--board `{}`: {rows} rows; give 3 rows of 3 cells separated by `/`, e.g. `x.o/.x./..o`", shown(text))]
    BoardRows {
        /// The board text.
        text: String,
        /// How many rows it has.
        rows: usize,
    },
    /// A tic-tac-toe row without three cells.
    #[error("--board `{}`: row {row} has {cells} cells; every row has 3", shown(text))]
    BoardRowLength {
        /// The board text.
        text: String,
        /// 1-based row.
        row: usize,
        /// How many cells it has.
        cells: usize,
    },
    /// A tic-tac-toe cell that is not `x`, `o` or `.`.
    #[error("--board `{}`: row {row} column {column}: `{}` is not x, o or .", shown(text), shown_char(ch))]
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
    #[error("--board `{}`: {x} x and {o} o; X moves first, so there are as many x as o or one more", shown(text))]
    BoardCounts {
        /// The board text.
        text: String,
        /// Number of x.
        x: usize,
        /// Number of o.
        o: usize,
    },
    /// Both players have three in a row.
    #[error("--board `{}`: both x and o have three in a row; the game ends at the first", shown(text))]
    BoardTwoWinners {
        /// The board text.
        text: String,
    },
    /// A line of three by the player who did not move last.
    #[error(
        "--board `{}`: {winner} has three in a row, but with {x} x and {o} o the last move was not {winner}'s",
        shown(text)
    )]
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
    #[error("reading layout {}", shown_path(path))]
    LayoutRead {
        /// The file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// A layout path that is not a regular file.
    #[error("layout {}: {kind}, not a regular file; give a layout file", shown_path(path))]
    LayoutNotFile {
        /// The path.
        path: PathBuf,
        /// What it is instead, in words.
        kind: &'static str,
    },
    /// A layout file longer than any layout can be.
    #[error(
        "layout {}: more than {max} bytes; a layout has at most 100 rows of 100 cells, so the file was not read further",
        shown_path(path)
    )]
    LayoutFileTooLarge {
        /// The file.
        path: PathBuf,
        /// The most bytes a layout file may have.
        max: u64,
    },
    /// A layout file that is not UTF-8 text.
    #[error("layout {}: byte {offset} is not UTF-8 text; a layout is lines of % . o P G and spaces", shown_path(path))]
    LayoutNotUtf8 {
        /// The file.
        path: PathBuf,
        /// 0-based offset of the first byte that is not UTF-8.
        offset: usize,
    },
    /// A layout with no rows.
    #[error("layout {}: no rows; a layout is lines of % . o P G and spaces", shown(layout))]
    LayoutEmpty {
        /// The file (or `<text>`).
        layout: String,
    },
    /// A character that is not part of the layout format.
    #[error(
        "layout {} line {line} column {column}: `{}` is not a layout character (% wall, . food, o capsule, P Pacman, G ghost, space)",
        shown(layout),
        shown_char(ch)
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
    #[error(
        "layout {} line {line}: {width} columns, but line 1 has {expected}; every row has the same width",
        shown(layout)
    )]
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
    #[error("layout {}: {rows} rows × {columns} columns; at most {max} of each", shown(layout))]
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
    #[error("layout {}: {count} Pacman cells (P); a layout has exactly one", shown(layout))]
    LayoutPacman {
        /// The file (or `<text>`).
        layout: String,
        /// How many `P` it has.
        count: usize,
    },
    /// No food: the game would be won before it starts.
    #[error("layout {}: no food (.); Pacman wins by eating all food, so a layout needs at least one", shown(layout))]
    LayoutNoFood {
        /// The file (or `<text>`).
        layout: String,
    },
    /// More ghosts asked for than the layout has.
    #[error("--ghosts {asked}: layout {} has only {available} ghosts (G)", shown(layout))]
    GhostsTooMany {
        /// The file (or `<text>`).
        layout: String,
        /// Ghosts asked for.
        asked: usize,
        /// Ghosts in the layout.
        available: usize,
    },
    /// More ghosts than the search model holds, or none.
    #[error("--ghosts {asked}: give 1 to {max} ghosts (each is a MIN agent)")]
    GhostsRange {
        /// Ghosts asked for.
        asked: usize,
        /// The most allowed.
        max: usize,
    },
    /// A layout whose ghosts pacman cannot play without `--ghosts`.
    #[error(
        "layout {}: {count} ghosts (G); pacman plays 1 to {max} (with more, choose how many with --ghosts)",
        shown(layout)
    )]
    LayoutGhosts {
        /// The file.
        layout: String,
        /// Ghosts in the layout.
        count: usize,
        /// The most allowed.
        max: usize,
    },
    /// An option that only means something beside another one.
    #[error("{flag} applies only with {needs} ({why})")]
    FlagNeeds {
        /// The option.
        flag: &'static str,
        /// The option it needs.
        needs: &'static str,
        /// What it does there.
        why: &'static str,
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
    #[error("--depth 0: a search looks at least one ply ahead")]
    DepthZero,
    /// An option value that is not what the option takes.
    #[error("{flag} `{}`: {rule}", shown(value))]
    FlagValue {
        /// The option.
        flag: &'static str,
        /// The value given.
        value: String,
        /// What the option takes.
        rule: &'static str,
    },
    /// A depth limit beyond the game's bound.
    #[error("--depth {}: {game} searches at most {max} plies ({why})", shown(depth))]
    DepthTooLarge {
        /// The depth as given.
        depth: String,
        /// The game.
        game: &'static str,
        /// The largest depth allowed.
        max: u32,
        /// Where the bound comes from.
        why: &'static str,
    },
    /// A search stopped by the node budget before it finished.
    #[error(
        "--max-nodes {budget}: {method} {extent} needs more than {budget} positions and was stopped after {seconds:.1} s; \
         give a smaller --depth, a pruning method (alphabeta-ordered, or iterative for the deepest answer the budget allows), \
         or a larger --max-nodes"
    )]
    NodeBudget {
        /// The method's name.
        method: &'static str,
        /// How deep it searched, in words.
        extent: String,
        /// The budget.
        budget: u64,
        /// Wall time until it stopped.
        seconds: f64,
    },
    /// The search thread could not be started.
    #[error("starting the search thread")]
    Thread {
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// A game whose tree is infinite, searched without a depth limit.
    #[error("game {game}: the game tree is infinite (positions repeat); give a depth limit")]
    DepthRequired {
        /// The game.
        game: &'static str,
    },
    /// A node-count table where a file already is.
    #[error("{}: the file exists; --overwrite replaces it", shown_path(path))]
    TableExists {
        /// The table's path.
        path: PathBuf,
    },
    /// A node-count table path where something other than a regular file
    /// is (never replaced, even with `--overwrite`).
    #[error("--csv {}: {kind}, not a regular file; give the path of a new or a regular file", shown_path(path))]
    TableNotFile {
        /// The table's path.
        path: PathBuf,
        /// What is there, in words.
        kind: &'static str,
    },
    /// The node-count table could not be written.
    #[cfg(feature = "tables")]
    #[error(transparent)]
    Table(#[from] TableError),
}
