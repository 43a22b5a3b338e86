//! Helpers shared by the integration tests: reading one column of a CSV the
//! binaries wrote, a replayed beam-search sweep over 8-puzzle boards
//! held against the exact BFS distance, and the size of the sticks game
//! tree; the pattern-database cache the tests use and the `Command` that
//! points the binaries at it.

use cube_oracle::puzzle::Puzzle;
use cube_oracle::search::{BeamConfig, DistanceTable, Oracle, beam_search};
use cube_oracle::sliding::Sliding;
#[cfg(feature = "learn")]
use cube_oracle::solve::boards::BoardInstance;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The pattern-database cache of the tests: a fixed folder under the
/// system's temporary directory, so that a table is built once per machine
/// and shared by the tests (the files are written atomically), and the
/// user's cache (`~/.cache/cube-oracle`) is never written.
pub fn pdb_cache() -> PathBuf {
    let dir = std::env::temp_dir().join("cube-oracle-tests-pdb-cache");
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    dir
}

/// A `Command` for one of the crate's binaries (`env!("CARGO_BIN_EXE_…")`)
/// with `CUBE_ORACLE_CACHE` set to [`pdb_cache`].
pub fn command(exe: &str) -> Command {
    let mut cmd = Command::new(exe);
    cmd.env("CUBE_ORACLE_CACHE", pdb_cache());
    cmd
}

/// A copy of the shipped run `runs/<name>` (all but its `solve/` results)
/// at `parent/runs/<name>`, for the binaries to solve with: `solve` holds a
/// lock beside the run it reads (`runs/.<name>.lock`), and the tests write
/// nothing into the repository's `runs/`.
pub fn shipped_run_copy(name: &str, parent: &Path) -> PathBuf {
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap_or_else(|e| panic!("{}: {e}", to.display()));
        for entry in std::fs::read_dir(from).unwrap_or_else(|e| panic!("{}: {e}", from.display())) {
            let entry = entry.unwrap();
            let (src, dst) = (entry.path(), to.join(entry.file_name()));
            if entry.file_type().unwrap().is_dir() {
                copy(&src, &dst);
            } else {
                std::fs::copy(&src, &dst).unwrap_or_else(|e| panic!("{}: {e}", src.display()));
            }
        }
    }
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("runs").join(name);
    let to = parent.join("runs").join(name);
    let _ = std::fs::remove_dir_all(&to);
    for entry in std::fs::read_dir(&from).unwrap_or_else(|e| panic!("{}: {e}", from.display())) {
        let entry = entry.unwrap();
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        if entry.file_name() == "solve" {
            continue;
        }
        if entry.file_type().unwrap().is_dir() {
            copy(&src, &dst);
        } else {
            std::fs::create_dir_all(&to).unwrap();
            std::fs::copy(&src, &dst).unwrap_or_else(|e| panic!("{}: {e}", src.display()));
        }
    }
    to
}

/// Runs `solve` with `args` and `--out out`: exit code, stdout, stderr.
#[cfg(feature = "learn")]
pub fn solve_into(args: &[&str], out: &Path) -> (i32, String, String) {
    let o = command(env!("CARGO_BIN_EXE_solve")).args(args).arg("--out").arg(out).output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into(),
        String::from_utf8_lossy(&o.stderr).into(),
    )
}

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
#[cfg(feature = "learn")]
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
