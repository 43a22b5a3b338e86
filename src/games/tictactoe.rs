//! Tic-tac-toe: X (MAX) moves first, O (MIN) second; three in a row wins,
//! a full board without one is a draw. Utility +1 (X wins), −1 (O wins), 0.
//!
//! The full game tree from the empty board has 549,946 nodes (the root
//! included; a game ends at the first line of three or a full board) and
//! 255,168 complete games; 5,478 distinct positions are reachable; the
//! value is 0 (a draw).
//!
//! Evaluation: (lines still open for X − lines still open for O) / 10, a
//! line being open for a player when the other has no mark on it; it lies
//! in (−0.8, 0.8), strictly between the utilities of a loss and a win.
//! Moves are the empty cells in row-major order, printed `r<row>c<column>`
//! (1-based). Boards are read and printed as three rows of `x`, `o`, `.`
//! separated by `/`, e.g. `x.o/.x./..o`.

use super::error::GameError;
use super::{Game, MAX};
use std::fmt;
use std::str::FromStr;

/// The eight lines of three cells (rows, columns, diagonals).
pub const LINES: [[usize; 3]; 8] =
    [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]];

/// The longest game, in plies: one mark per move on nine cells.
pub const LONGEST_GAME: u32 = 9;

/// A move: the cell (0..9, row-major) the player to move marks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cell(pub u8);

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "r{}c{}", self.0 / 3 + 1, self.0 % 3 + 1)
    }
}

/// A mark on the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mark {
    /// X, MAX's mark.
    X,
    /// O, MIN's mark.
    O,
}

/// A tic-tac-toe position (whose turn it is follows from the marks).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TicTacToe {
    cells: [Option<Mark>; 9],
    filled: u8,
}

impl TicTacToe {
    /// The empty board, X to move.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The mark in cell `i` (row-major).
    #[must_use]
    pub fn cell(&self, i: usize) -> Option<Mark> {
        self.cells[i]
    }

    /// The player with three in a row, if any.
    #[must_use]
    pub fn winner(&self) -> Option<Mark> {
        LINES.iter().find_map(|l| {
            let m = self.cells[l[0]]?;
            (self.cells[l[1]] == Some(m) && self.cells[l[2]] == Some(m)).then_some(m)
        })
    }

    /// An upper bound on the rest of the game from here, in plies: the
    /// empty cells (0 once someone has three in a row).
    #[must_use]
    pub fn longest_rest(&self) -> u32 {
        if self.winner().is_some() { 0 } else { 9 - u32::from(self.filled) }
    }

    fn count(&self, mark: Mark) -> usize {
        self.cells.iter().filter(|&&c| c == Some(mark)).count()
    }

    fn open_lines(&self, mark: Mark) -> usize {
        LINES.iter().filter(|l| l.iter().all(|&i| self.cells[i].is_none_or(|c| c == mark))).count()
    }
}

impl FromStr for TicTacToe {
    type Err = GameError;

    /// Three rows of `x`, `o` or `.` (either case) separated by `/`; the
    /// position must arise in a game (X first, play stops at a line).
    fn from_str(text: &str) -> Result<Self, GameError> {
        let rows: Vec<&str> = text.split('/').map(str::trim).collect();
        if rows.len() != 3 {
            return Err(GameError::BoardRows { text: text.to_string(), rows: rows.len() });
        }
        let mut b = TicTacToe::new();
        for (r, row) in rows.iter().enumerate() {
            let cells: Vec<char> = row.chars().collect();
            if cells.len() != 3 {
                return Err(GameError::BoardRowLength { text: text.to_string(), row: r + 1, cells: cells.len() });
            }
            for (c, &ch) in cells.iter().enumerate() {
                b.cells[3 * r + c] = match ch {
                    'x' | 'X' => Some(Mark::X),
                    'o' | 'O' => Some(Mark::O),
                    '.' => None,
                    _ => return Err(GameError::BoardCell { text: text.to_string(), row: r + 1, column: c + 1, ch }),
                };
            }
        }
        let (x, o) = (b.count(Mark::X), b.count(Mark::O));
        if x != o && x != o + 1 {
            return Err(GameError::BoardCounts { text: text.to_string(), x, o });
        }
        let line = |m: Mark| LINES.iter().any(|l| l.iter().all(|&i| b.cells[i] == Some(m)));
        match (line(Mark::X), line(Mark::O)) {
            (true, true) => return Err(GameError::BoardTwoWinners { text: text.to_string() }),
            (true, false) if x != o + 1 => {
                return Err(GameError::BoardPlayedOn { text: text.to_string(), winner: 'x', x, o });
            }
            (false, true) if x != o => {
                return Err(GameError::BoardPlayedOn { text: text.to_string(), winner: 'o', x, o });
            }
            _ => {}
        }
        b.filled = (x + o) as u8;
        Ok(b)
    }
}

impl fmt::Display for TicTacToe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for r in 0..3 {
            if r > 0 {
                f.write_str("/")?;
            }
            for c in 0..3 {
                f.write_str(match self.cells[3 * r + c] {
                    Some(Mark::X) => "x",
                    Some(Mark::O) => "o",
                    None => ".",
                })?;
            }
        }
        Ok(())
    }
}

impl Game for TicTacToe {
    type Move = Cell;
    type Undo = ();

    fn num_agents(&self) -> usize {
        2
    }

    fn to_move(&self) -> usize {
        usize::from(self.filled % 2)
    }

    fn moves(&self, out: &mut Vec<Cell>) {
        out.clear();
        if self.filled == 9 || self.winner().is_some() {
            return;
        }
        out.extend((0..9u8).filter(|&i| self.cells[usize::from(i)].is_none()).map(Cell));
    }

    fn apply(&mut self, m: Cell) {
        self.cells[usize::from(m.0)] = Some(if self.to_move() == MAX { Mark::X } else { Mark::O });
        self.filled += 1;
    }

    fn undo(&mut self, m: Cell, (): ()) {
        self.cells[usize::from(m.0)] = None;
        self.filled -= 1;
    }

    fn utility(&self) -> Option<f64> {
        match self.winner() {
            Some(Mark::X) => Some(1.0),
            Some(Mark::O) => Some(-1.0),
            None if self.filled == 9 => Some(0.0),
            None => None,
        }
    }

    fn evaluate(&self) -> f64 {
        (self.open_lines(Mark::X) as f64 - self.open_lines(Mark::O) as f64) / 10.0
    }
}
