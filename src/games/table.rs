//! The node-count table of `play --csv`: every method at every depth limit
//! `1..=D` on one position, written atomically through
//! [`csvlog`](crate::csvlog). Iterative deepening's row at depth d is what
//! it reports when stopped after iteration d (the counts of iterations
//! 1..=d summed).

use super::alphabeta::Ordering;
use super::error::GameError;
use super::method::Method;
use super::{Game, iterative_deepening};
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

/// Runs every method of `methods` at every depth `1..=max_depth` from
/// `game`'s position (restored afterwards).
pub fn node_counts<G: Game>(game: &mut G, methods: &[Method], max_depth: u32) -> Vec<Row> {
    let mut rows = Vec::new();
    for &method in methods {
        let deepening =
            (method == Method::Iterative).then(|| iterative_deepening(game, Some(max_depth), Ordering::Static));
        for depth in 1..=max_depth {
            let report = match &deepening {
                Some(d) => d.total_to(depth as usize).unwrap_or_else(|| method.run(game, Some(depth))),
                None => method.run(game, Some(depth)),
            };
            rows.push(Row {
                method,
                depth,
                value: report.value,
                best_move: report.best_move.map(|m| m.to_string()).unwrap_or_default(),
                nodes: report.nodes,
                expanded: report.expanded,
                leaves: report.leaves,
                horizon_leaves: report.horizon_leaves,
                probes: report.probes,
                time_s: report.elapsed.as_secs_f64(),
            });
        }
    }
    rows
}

/// Writes `rows` to `path` (atomically), naming the game and position in
/// every row.
///
/// # Errors
/// The file exists and `overwrite` is false, or it cannot be written.
pub fn write(path: &Path, game: &str, position: &str, rows: &[Row], overwrite: bool) -> Result<(), GameError> {
    if path.exists() && !overwrite {
        return Err(GameError::TableExists { path: path.to_path_buf() });
    }
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
