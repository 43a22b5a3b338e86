//! Helpers shared by the integration tests: reading one column of a CSV the
//! binaries wrote, a replayed beam-search sweep over 8-puzzle boards
//! held against the exact BFS distance, and the size of the sticks game
//! tree. Each test crate compiles this module
//! and uses a subset of it, hence the `dead_code` allowance.
#![allow(dead_code)]

use cube_oracle::puzzle::Puzzle;
use cube_oracle::search::{BeamConfig, DistanceTable, Oracle, beam_search};
use cube_oracle::sliding::Sliding;
use cube_oracle::solve::boards::BoardInstance;
use std::collections::HashMap;
use std::path::Path;

/// Column `name` of a CSV file, as strings (surrounding quotes removed).
pub fn column(path: &Path, name: &str) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let j = header.iter().position(|h| *h == name).unwrap_or_else(|| panic!("no column {name} in {header:?}"));
    lines.map(|l| l.split(',').nth(j).unwrap_or("").trim_matches('"').to_string()).collect()
}

/// Beam-searches every board with `cfg`; asserts that each solution replays
/// to the goal and has the parity of the board's true distance and is no
/// shorter; returns (solved, optimal, mean excess over the optimum).
pub fn replayed_sweep<O: Oracle>(
    p: &Sliding,
    table: &DistanceTable<Sliding>,
    oracle: &mut O,
    boards: &[BoardInstance],
    cfg: &BeamConfig,
) -> (usize, usize, f64) {
    let (mut solved, mut optimal, mut excess) = (0, 0, 0usize);
    for inst in boards {
        let board = p.board(&inst.tiles).unwrap();
        let d = usize::from(table.distance(p, &board).unwrap());
        let Some(path) = beam_search(p, oracle, &board, cfg).unwrap().solution else { continue };
        let mut s = board;
        for &m in &path {
            p.apply(&mut s, m);
        }
        assert!(p.is_goal(&s), "the solution of {} does not reach the goal", inst.id);
        assert!(path.len() >= d && (path.len() - d) % 2 == 0, "{}: {} moves, distance {d}", inst.id, path.len());
        solved += 1;
        optimal += usize::from(path.len() == d);
        excess += path.len() - d;
    }
    (solved, optimal, excess as f64 / solved.max(1) as f64)
}

/// Nodes of the full sticks game tree from `(a, b)`, by the recurrence
/// T(a, b) = 1 + Σ_{i<a} T(i, b) + Σ_{j<b} T(a, j).
pub fn sticks_tree(a: u32, b: u32, memo: &mut HashMap<(u32, u32), u64>) -> u64 {
    if let Some(&t) = memo.get(&(a, b)) {
        return t;
    }
    let t =
        1 + (0..a).map(|i| sticks_tree(i, b, memo)).sum::<u64>() + (0..b).map(|j| sticks_tree(a, j, memo)).sum::<u64>();
    memo.insert((a, b), t);
    t
}
