//! Every solution the repository ships is replayed: each `instances.csv`
//! and `duplicates.csv` under `runs/` (width laws merged from pieces, the
//! sweeps, the studies' evaluations), on the test set its rows name. A
//! solved row must reach the goal from its instance in exactly `length`
//! moves, never fewer than the instance's optimal length, and that optimal
//! length must be the test set's. A row of a puzzle this test does not know
//! fails it, so a new kind of shipped table cannot go unchecked.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use cube_oracle::cube2::Cube2Puzzle;
use cube_oracle::cube3::{Cube3, Cube3Puzzle, Metric};
use cube_oracle::puzzle::{MoveId, Puzzle, replay};
use cube_oracle::sliding::{Goal, Sliding};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The fields of one CSV line; a field in double quotes may hold commas.
fn fields(line: &str) -> Vec<String> {
    let (mut out, mut cur, mut quoted) = (Vec::new(), String::new(), false);
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// The rows of a CSV table as column → value maps.
fn rows(path: &Path) -> Vec<HashMap<String, String>> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    let header = fields(lines.next().unwrap_or(""));
    lines.map(|l| header.iter().cloned().zip(fields(l)).collect()).collect()
}

/// The instances of a tab-separated test set under `data/`: id → (state column, optimal length).
fn test_set(file: &str, state: &str, optimal: &str) -> HashMap<String, (String, u32)> {
    let text = std::fs::read_to_string(root().join("data").join(file)).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (i, s, o) = (col("id"), col(state), col(optimal));
    lines
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f[i].to_string(), (f[s].to_string(), f[o].parse().unwrap()))
        })
        .collect()
}

/// Every `instances.csv` and `duplicates.csv` below `dir`.
fn tables(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            tables(&path, out);
        } else if matches!(path.file_name().and_then(|n| n.to_str()), Some("instances.csv" | "duplicates.csv")) {
            out.push(path);
        }
    }
}

/// The moves of a solution written with `puzzle`'s move names.
fn moves<P: Puzzle>(puzzle: &P, solution: &str, at: &str) -> Vec<MoveId> {
    let names: HashMap<&str, MoveId> =
        (0..puzzle.num_moves()).map(|m| (puzzle.move_name(m as MoveId), m as MoveId)).collect();
    solution
        .split_whitespace()
        .map(|t| *names.get(t).unwrap_or_else(|| panic!("{at}: `{t}` is not a move of {}", puzzle.name())))
        .collect()
}

/// Checks one solved row: the solution leads from `start` to the goal in
/// `length` moves, no fewer than `optimal`. Returns the number of moves.
fn check<P: Puzzle>(puzzle: &P, start: &P::State, row: &HashMap<String, String>, optimal: u32, at: &str) -> usize {
    let path = moves(puzzle, &row["solution"], at);
    let end = replay(puzzle, start, &path).unwrap_or_else(|| panic!("{at}: a move of the solution is not applicable"));
    assert!(puzzle.is_goal(&end), "{at}: the solution does not reach the goal");
    assert_eq!(row["length"].parse::<usize>().ok(), Some(path.len()), "{at}: `length` is not the solution's");
    assert!(path.len() >= optimal as usize, "{at}: {} moves, optimal {optimal}", path.len());
    path.len()
}

#[test]
fn every_shipped_solution_replays_on_its_test_set() {
    let cube3_set = test_set("cube3-deepcubea-test-1000.tsv", "facelets", "optimal_qtm");
    let puzzle15_set = test_set("puzzle15-deepcubea-test-500.tsv", "tiles", "optimal");
    let cube3 = Cube3Puzzle::new(Metric::Qtm);
    let cube2 = Cube2Puzzle::new(Metric::Qtm);
    let puzzle15 = Sliding::new(4, Goal::BlankLast).unwrap();
    let mut files = Vec::new();
    tables(&root().join("runs"), &mut files);
    files.sort();
    let mut replayed: HashMap<&str, usize> = HashMap::new();
    // The 2×2×2's exact sweeps draw positions of known distance (ids
    // `d<distance>-<index>`): every width's solution of one id must start
    // from the same position.
    let mut cube2_starts: HashMap<String, <Cube2Puzzle as Puzzle>::State> = HashMap::new();
    for file in &files {
        let name = file.strip_prefix(root()).unwrap().display().to_string();
        for (n, row) in rows(file).iter().enumerate() {
            let at = format!("{name} row {} (id {}, width {})", n + 2, row["id"], row["width"]);
            let solved = row["status"] == "solved";
            assert_eq!(solved, row["solved"] == "true", "{at}: `status` and `solved` disagree");
            let puzzle = row["puzzle"].as_str();
            match puzzle {
                "cube3-qtm" => {
                    let (facelets, optimal) =
                        cube3_set.get(&row["id"]).unwrap_or_else(|| panic!("{at}: no such DeepCubeA cube"));
                    assert_eq!(row["optimal"], optimal.to_string(), "{at}: not the test set's optimal length");
                    if solved {
                        let start = Cube3::from_facelets(facelets).unwrap();
                        check(&cube3, &start, row, *optimal, &at);
                    }
                }
                "puzzle15" => {
                    let (tiles, optimal) =
                        puzzle15_set.get(&row["id"]).unwrap_or_else(|| panic!("{at}: no such DeepCubeA board"));
                    assert_eq!(row["optimal"], optimal.to_string(), "{at}: not the test set's optimal length");
                    if solved {
                        let tiles: Vec<u8> = tiles.split_whitespace().map(|t| t.parse().unwrap()).collect();
                        let start = puzzle15.board(&tiles).unwrap();
                        check(&puzzle15, &start, row, *optimal, &at);
                    }
                }
                "cube2-qtm" => {
                    let distance: u32 = row["id"]
                        .strip_prefix('d')
                        .and_then(|r| r.split('-').next())
                        .and_then(|d| d.parse().ok())
                        .unwrap_or_else(|| panic!("{at}: an exact sweep's id is d<distance>-<index>"));
                    assert_eq!(row["optimal"], distance.to_string(), "{at}: optimal is not the id's distance");
                    if solved {
                        // The start is the goal with the solution undone.
                        let path = moves(&cube2, &row["solution"], &at);
                        let mut start = cube2.goal();
                        for &m in path.iter().rev() {
                            cube2.apply(&mut start, cube2.inverse(m));
                        }
                        let first = cube2_starts.entry(row["id"].clone()).or_insert(start);
                        assert_eq!(*first, start, "{at}: another width solved another position of this id");
                        check(&cube2, &start, row, distance, &at);
                    }
                }
                other => panic!("{at}: puzzle `{other}` has no replay here"),
            }
            *replayed
                .entry(match puzzle {
                    "cube3-qtm" => "cube3",
                    "puzzle15" => "puzzle15",
                    _ => "cube2",
                })
                .or_default() += usize::from(solved);
        }
    }
    // The shipped width laws alone hold reference v2's 1000 cubes at
    // 2^7..2^18 and the GPU policy's 100 at 2^11..2^18.
    assert!(replayed["cube3"] >= 12 * 990 + 800, "{replayed:?}");
    assert!(replayed["puzzle15"] >= 500 && replayed["cube2"] >= 1000, "{replayed:?}");
}
