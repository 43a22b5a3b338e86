//! Pacman layouts in the text format of the Berkeley Pac-Man projects:
//! one character per cell, `%` wall, `.` food, `o` capsule, `P` Pacman,
//! `G` ghost, space for an empty cell; every row the same width. Cells
//! beyond the border count as walls. Ghosts are numbered in reading order
//! (top row first, left to right), which is the order in which they move.

use crate::games::error::{GameError, file_kind};
use std::io::Read;
use std::path::Path;

/// The largest number of rows, and of columns, of a layout.
pub const MAX_SIDE: usize = 100;

/// The largest layout file [`Layout::read`] reads: [`MAX_SIDE`] rows of
/// [`MAX_SIDE`] one-byte cells, each row ended by `\r\n` (10,200 bytes).
/// Every layout the format allows fits; a longer file is refused without
/// reading further.
pub const MAX_FILE_BYTES: u64 = (MAX_SIDE * (MAX_SIDE + 2)) as u64;

/// A parsed layout: the walls and where food, capsules and agents start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    name: String,
    width: usize,
    height: usize,
    walls: Vec<bool>,
    food: Vec<usize>,
    capsules: Vec<usize>,
    pacman: usize,
    ghosts: Vec<usize>,
}

impl Layout {
    /// Parses `text`; `name` (a file name, or `<text>`) goes into errors.
    ///
    /// # Errors
    /// No rows, a character outside the format, rows of different widths,
    /// more than [`MAX_SIDE`] rows or columns, not exactly one `P`, no
    /// food; the message names the line and column where there is one.
    pub fn parse(name: &str, text: &str) -> Result<Self, GameError> {
        let layout = name.to_string();
        let mut lines: Vec<&str> = text.lines().collect();
        while lines.last().is_some_and(|l| l.is_empty()) {
            lines.pop();
        }
        if lines.is_empty() {
            return Err(GameError::LayoutEmpty { layout });
        }
        let width = lines[0].chars().count();
        let height = lines.len();
        if width > MAX_SIDE || height > MAX_SIDE {
            return Err(GameError::LayoutTooLarge { layout, rows: height, columns: width, max: MAX_SIDE });
        }
        let mut out = Layout {
            name: layout.clone(),
            width,
            height,
            walls: vec![false; width * height],
            food: Vec::new(),
            capsules: Vec::new(),
            pacman: 0,
            ghosts: Vec::new(),
        };
        let mut pacmen = 0;
        for (r, line) in lines.iter().enumerate() {
            let w = line.chars().count();
            if w != width {
                return Err(GameError::LayoutRagged { layout, line: r + 1, width: w, expected: width });
            }
            for (c, ch) in line.chars().enumerate() {
                let cell = r * width + c;
                match ch {
                    '%' => out.walls[cell] = true,
                    '.' => out.food.push(cell),
                    'o' => out.capsules.push(cell),
                    'P' => {
                        pacmen += 1;
                        out.pacman = cell;
                    }
                    'G' => out.ghosts.push(cell),
                    ' ' => {}
                    _ => return Err(GameError::LayoutChar { layout, line: r + 1, column: c + 1, ch }),
                }
            }
        }
        if pacmen != 1 {
            return Err(GameError::LayoutPacman { layout, count: pacmen });
        }
        if out.food.is_empty() {
            return Err(GameError::LayoutNoFood { layout });
        }
        Ok(out)
    }

    /// Reads and parses the layout file at `path`, reading at most
    /// [`MAX_FILE_BYTES`] + 1 bytes.
    ///
    /// # Errors
    /// The file cannot be read, is not a regular file (a FIFO would block,
    /// a device never end), is longer than [`MAX_FILE_BYTES`], is not
    /// UTF-8, or [`Layout::parse`] refuses it.
    pub fn read(path: &Path) -> Result<Self, GameError> {
        let read_error = |source| GameError::LayoutRead { path: path.to_path_buf(), source };
        let not_file =
            |t: &std::fs::FileType| GameError::LayoutNotFile { path: path.to_path_buf(), kind: file_kind(t) };
        let meta = std::fs::metadata(path).map_err(read_error)?;
        if !meta.is_file() {
            return Err(not_file(&meta.file_type()));
        }
        // Opened without blocking (a FIFO swapped in since would block the
        // open) and checked again on the handle itself.
        let mut options = std::fs::OpenOptions::new();
        options.read(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
        let file = options.open(path).map_err(read_error)?;
        let meta = file.metadata().map_err(read_error)?;
        if !meta.is_file() {
            return Err(not_file(&meta.file_type()));
        }
        let mut bytes = Vec::new();
        file.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes).map_err(read_error)?;
        if bytes.len() as u64 > MAX_FILE_BYTES {
            return Err(GameError::LayoutFileTooLarge { path: path.to_path_buf(), max: MAX_FILE_BYTES });
        }
        let text = String::from_utf8(bytes)
            .map_err(|e| GameError::LayoutNotUtf8 { path: path.to_path_buf(), offset: e.utf8_error().valid_up_to() })?;
        Self::parse(&path.display().to_string(), &text)
    }

    /// The file name (or `<text>`) the layout came from.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Columns.
    #[must_use]
    pub fn width(&self) -> usize {
        self.width
    }

    /// Rows.
    #[must_use]
    pub fn height(&self) -> usize {
        self.height
    }

    /// Whether cell `cell` (row-major) is a wall.
    #[must_use]
    pub fn is_wall(&self, cell: usize) -> bool {
        self.walls[cell]
    }

    /// The cells that start with food, in reading order.
    #[must_use]
    pub fn food(&self) -> &[usize] {
        &self.food
    }

    /// The cells that start with a capsule, in reading order.
    #[must_use]
    pub fn capsules(&self) -> &[usize] {
        &self.capsules
    }

    /// Pacman's starting cell.
    #[must_use]
    pub fn pacman(&self) -> usize {
        self.pacman
    }

    /// The ghosts' starting cells, in reading order.
    #[must_use]
    pub fn ghosts(&self) -> &[usize] {
        &self.ghosts
    }

    /// `(row, column)` of a cell.
    #[must_use]
    pub fn row_col(&self, cell: usize) -> (usize, usize) {
        (cell / self.width, cell % self.width)
    }

    /// The Manhattan distance between two cells.
    #[must_use]
    pub fn manhattan(&self, a: usize, b: usize) -> u32 {
        let (ra, ca) = self.row_col(a);
        let (rb, cb) = self.row_col(b);
        (ra.abs_diff(rb) + ca.abs_diff(cb)) as u32
    }

    /// The cell one step from `cell` in direction `(dr, dc)`, if it is
    /// inside the layout and not a wall.
    #[must_use]
    pub fn step(&self, cell: usize, dr: isize, dc: isize) -> Option<usize> {
        let (r, c) = self.row_col(cell);
        let r = r.checked_add_signed(dr).filter(|&r| r < self.height)?;
        let c = c.checked_add_signed(dc).filter(|&c| c < self.width)?;
        let next = r * self.width + c;
        (!self.walls[next]).then_some(next)
    }
}
