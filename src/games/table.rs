//! The node-count table of `play --csv`: every method at every depth limit
//! `1..=D` on one position, written atomically through
//! [`csvlog`](crate::csvlog). Iterative deepening's row at depth d is what
//! it reports when stopped after iteration d (the counts of iterations
//! 1..=d summed).
//!
//! The table ends early, with no row past it, where the game tree ends:
//! after the first depth at which no method met the depth limit (no
//! horizon leaf; with minimax among the methods, the length of the
//! longest line of the game), since every deeper row would repeat it. It
//! also ends before the first depth at which a method ran out of the
//! table's [`Budget`], which all its searches share ([`End`] says which).

use super::Game;
use super::alphabeta::Ordering;
use super::deepening::Deepener;
use super::error::{GameError, file_kind};
use super::method::Method;
use super::report::{Budget, SearchReport};
use crate::csvlog::{Col, write_table};
use std::path::Path;

/// The table's columns, in order.
pub const COLUMNS: [&str; 12] = [
    "game",
    "position",
    "method",
    "depth",
    "value",
    "best_move",
    "nodes",
    "expanded",
    "leaves",
    "horizon_leaves",
    "probes",
    "time_s",
];

/// One row: one method at one depth limit.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The method.
    pub method: Method,
    /// The depth limit in plies.
    pub depth: u32,
    /// The root's value from MAX's view.
    pub value: f64,
    /// The best move (empty at a terminal root).
    pub best_move: String,
    /// Positions visited, the root included.
    pub nodes: u64,
    /// Positions expanded.
    pub expanded: u64,
    /// Positions scored without search.
    pub leaves: u64,
    /// Of those, scored by the evaluation function at the depth limit.
    pub horizon_leaves: u64,
    /// Children scored only to order moves.
    pub probes: u64,
    /// Wall time in seconds.
    pub time_s: f64,
}

/// Why a table has the depths it has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// At this depth no method met the depth limit: the game tree ends
    /// there.
    GameOver(u32),
    /// The depth limit asked for was reached (the tree goes deeper).
    DepthLimit(u32),
    /// At this depth, `method` ran out of the budget: the table has the
    /// depths before it.
    Budget {
        /// The first depth missing.
        depth: u32,
        /// The method that was stopped.
        method: Method,
    },
}

/// The rows of a table and why it ends where it does.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeCounts {
    /// Method by method, depth by depth.
    pub rows: Vec<Row>,
    /// Why there are no deeper rows.
    pub end: End,
}

impl NodeCounts {
    /// The deepest depth in the table (0 if it has none).
    #[must_use]
    pub fn last_depth(&self) -> u32 {
        self.rows.iter().map(|r| r.depth).max().unwrap_or(0)
    }
}

fn row<M: std::fmt::Display>(method: Method, depth: u32, report: &SearchReport<M>) -> Row {
    Row {
        method,
        depth,
        value: report.value,
        best_move: report.best_move.as_ref().map(ToString::to_string).unwrap_or_default(),
        nodes: report.nodes,
        expanded: report.expanded,
        leaves: report.leaves,
        horizon_leaves: report.horizon_leaves,
        probes: report.probes,
        time_s: report.elapsed.as_secs_f64(),
    }
}

/// Runs every method of `methods` at the depths `1..=max_depth` from
/// `game`'s position (restored afterwards), all searches together within
/// `budget`, depth by depth, up to the end of the game tree or the first
/// depth the budget cannot pay for (see the module documentation). The
/// rows come method by method.
pub fn node_counts<G: Game>(game: &mut G, methods: &[Method], max_depth: u32, budget: Budget) -> NodeCounts {
    let mut rows = Vec::new();
    let mut left = budget.0;
    let mut deepener = Deepener::new(Ordering::Static);
    let mut end = End::DepthLimit(max_depth);
    'depths: for depth in 1..=max_depth {
        // Whether no search at this depth met the depth limit.
        let mut exhausted = true;
        for &method in methods {
            let report = if method == Method::Iterative {
                if !deepener.exhausted && deepener.deepening.iterations.len() < depth as usize {
                    if deepener.step(game, Budget(left)).is_err() {
                        end = End::Budget { depth, method };
                        break 'depths;
                    }
                    let made = deepener.deepening.iterations.last().map_or(0, |r| r.made);
                    left = left.saturating_sub(made);
                }
                // The row sums the iterations; whether the last one met
                // the depth limit is the deepener's.
                exhausted &= deepener.exhausted;
                // Iteration 1 has run (or the table ended above).
                let Some(r) = deepener.deepening.total_to(depth as usize) else { break 'depths };
                r
            } else {
                match method.run_within(game, Some(depth), Budget(left)) {
                    Ok(r) => {
                        left = left.saturating_sub(r.made);
                        exhausted &= r.horizon_leaves == 0;
                        r
                    }
                    Err(_) => {
                        end = End::Budget { depth, method };
                        break 'depths;
                    }
                }
            };
            rows.push(row(method, depth, &report));
        }
        if exhausted {
            end = End::GameOver(depth);
            break;
        }
    }
    // Drop the rows of a depth that not every method finished.
    if let End::Budget { depth, .. } = end {
        rows.retain(|r| r.depth < depth);
    }
    let index = |m: Method| methods.iter().position(|&x| x == m).unwrap_or(usize::MAX);
    rows.sort_by_key(|r| (index(r.method), r.depth));
    NodeCounts { rows, end }
}

/// Refuses a table path where something other than a regular file is
/// (a FIFO, a symbolic link, a device, a directory: never replaced, even
/// with `overwrite`), or a regular file without `overwrite`.
///
/// # Errors
/// [`GameError::TableNotFile`], [`GameError::TableExists`].
pub fn check_path(path: &Path, overwrite: bool) -> Result<(), GameError> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if !meta.file_type().is_file() => {
            Err(GameError::TableNotFile { path: path.to_path_buf(), kind: file_kind(&meta.file_type()) })
        }
        Ok(_) if !overwrite => Err(GameError::TableExists { path: path.to_path_buf() }),
        _ => Ok(()),
    }
}

/// Writes `rows` to `path` (atomically), naming the game and position in
/// every row.
///
/// # Errors
/// Something other than a regular file is at `path`, or a file and
/// `overwrite` is false ([`check_path`]), or it cannot be written.
pub fn write(path: &Path, game: &str, position: &str, rows: &[Row], overwrite: bool) -> Result<(), GameError> {
    check_path(path, overwrite)?;
    let n = rows.len();
    let u = |f: fn(&Row) -> u64| Col::U64(rows.iter().map(f).collect());
    let columns = vec![
        (COLUMNS[0], Col::Str(vec![game.to_string(); n])),
        (COLUMNS[1], Col::Str(vec![position.to_string(); n])),
        (COLUMNS[2], Col::Str(rows.iter().map(|r| r.method.name().to_string()).collect())),
        (COLUMNS[3], u(|r| u64::from(r.depth))),
        (COLUMNS[4], Col::F64(rows.iter().map(|r| r.value).collect())),
        (COLUMNS[5], Col::Str(rows.iter().map(|r| r.best_move.clone()).collect())),
        (COLUMNS[6], u(|r| r.nodes)),
        (COLUMNS[7], u(|r| r.expanded)),
        (COLUMNS[8], u(|r| r.leaves)),
        (COLUMNS[9], u(|r| r.horizon_leaves)),
        (COLUMNS[10], u(|r| r.probes)),
        (COLUMNS[11], Col::F64(rows.iter().map(|r| r.time_s).collect())),
    ];
    write_table(path, columns)?;
    Ok(())
}
