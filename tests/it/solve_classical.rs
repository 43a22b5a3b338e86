//! `solve classical <method>` (and `solve distances`) end to end on sliding puzzles and the cube: every
//! optimal method returns the BFS distance, solutions are replayed, limits
//! are reported as limits, and bad requests (unsolvable boards,
//! inadmissible heuristics for optimal methods, unknown names, mismatched
//! goals) are refused before any search with their own message, and flags
//! of other modes by the parser.

use cube_oracle::puzzle::Puzzle;
use cube_oracle::search::DistanceTable;
use cube_oracle::sliding::{Goal, Sliding};
use std::path::PathBuf;

use crate::common::column;

fn out_root(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cube-oracle-classical-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn solve(args: &[&str], out: &PathBuf) -> (i32, String, String) {
    let o = crate::common::command(env!("CARGO_BIN_EXE_solve"))
        .args(args)
        .arg("--out")
        .arg(out)
        .env("CUBE_ORACLE_CACHE", "off")
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).to_string(),
        String::from_utf8_lossy(&o.stderr).to_string(),
    )
}

#[test]
fn every_method_solves_the_lecture_board_and_optimal_ones_match_bfs() {
    let p = Sliding::new(3, Goal::BlankLast).unwrap();
    let board = "2 3 0 / 1 8 6 / 5 7 4";
    let table = DistanceTable::build(&p, 40);
    let d = u32::from(table.distance(&p, &p.parse_board(board).unwrap()).unwrap());
    let out = out_root("lecture");
    for method in ["astar", "idastar", "rbfs", "ids", "bfs", "ucs", "greedy", "beam"] {
        let mut args = vec!["classical", method, "--puzzle", "puzzle8", "--board", board];
        if method == "beam" {
            args.extend(["--heuristic", "manhattan", "--beam-width", "64"]);
        }
        let (code, stdout, err) = solve(&args, &out);
        assert_eq!(code, 0, "{method}: {err}");
        assert!(stdout.contains("verified"), "{method}: {stdout}");
        let dir = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.is_dir() && p.file_name().unwrap().to_string_lossy().contains(&format!("-{method}")))
            .unwrap();
        let len: f64 = column(&dir.join("instances.csv"), "length")[0].parse().unwrap();
        if matches!(method, "greedy" | "beam") {
            assert!(len >= f64::from(d), "{method}: {len} < optimal {d}");
        } else {
            assert_eq!(len, f64::from(d), "{method} is optimal");
        }
        // The written solution replays to the goal.
        let sol = &column(&dir.join("instances.csv"), "solution")[0];
        let mut s = p.parse_board(board).unwrap();
        for name in sol.split_whitespace() {
            let m = cube_oracle::sliding::moves::move_by_name(name).unwrap();
            assert!(p.is_applicable(&s, m));
            p.apply(&mut s, m);
        }
        assert!(p.is_goal(&s), "{method}: {sol}");
        let summary = std::fs::read_to_string(dir.join("summary.csv")).unwrap();
        assert!(summary.starts_with("puzzle,method,heuristic,width,instances,solved_pct"), "{summary}");
    }
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn random_eight_puzzles_optimal_methods_agree_with_the_table() {
    let p = Sliding::new(3, Goal::BlankFirst).unwrap();
    let table = DistanceTable::build(&p, 40);
    let out = out_root("random");
    let mut lengths = Vec::new();
    for (method, h) in [("astar", "linear-conflict"), ("idastar", "manhattan"), ("rbfs", "misplaced")] {
        let (code, _, err) = solve(
            &[
                "classical",
                method,
                "--heuristic",
                h,
                "--puzzle",
                "puzzle8",
                "--goal",
                "blank-first",
                "--random",
                "12",
                "--seed",
                "5",
                "--label",
                method,
            ],
            &out,
        );
        assert_eq!(code, 0, "{err}");
        lengths.push(column(&out.join(method).join("instances.csv"), "length"));
    }
    assert!(lengths.windows(2).all(|w| w[0] == w[1]), "{lengths:?}");
    // The same seed gives the same boards: compare with the exact distances.
    let boards = cube_oracle::solve::boards::random(&p, 12, 5);
    for (b, len) in boards.iter().zip(&lengths[0]) {
        let d = table.distance(&p, &p.board(&b.tiles).unwrap()).unwrap();
        assert_eq!(len.parse::<f64>().unwrap(), f64::from(d));
    }
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn limits_are_reported_and_no_solution_is_claimed() {
    let out = out_root("limits");
    let (code, stdout, err) = solve(
        &["classical", "idastar", "--puzzle", "puzzle15", "--testset", "korf100-10", "--max-generated", "1000"],
        &out,
    );
    assert_eq!(code, 0, "{err}");
    assert!(stdout.contains("solved 0.0% (limit 100.0%)"), "{stdout}");
    let dir = out.join("puzzle15-blank-first-korf100-10-idastar-manhattan");
    assert!(column(&dir.join("instances.csv"), "status").iter().all(|s| s == "limit"));
    assert!(column(&dir.join("instances.csv"), "solution").iter().all(String::is_empty));
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn the_cube_blind_methods_find_optimal_short_solutions() {
    let out = out_root("cube");
    let (code, stdout, err) = solve(&["classical", "ids", "--scramble", "R U F'"], &out);
    assert_eq!(code, 0, "{err}");
    assert!(stdout.contains("(3 moves; verified)"), "{stdout}");
    let (code, stdout, err) = solve(&["classical", "bfs", "--scramble", "R U R' U'", "--metric", "htm"], &out);
    assert_eq!(code, 0, "{err}");
    assert!(stdout.contains("(4 moves; verified)"), "{stdout}");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn the_cube_with_korf_pattern_databases_is_solved_optimally() {
    // A 7-quarter-turn scramble; its optimal length is found by IDA* with
    // the zero heuristic (IDS) and must equal Korf's solver and the generic
    // IDA* with the same tables. The tables come from the tests' cache
    // (`common::pdb_cache`, built once, about 13 s for QTM).
    let out = out_root("korf");
    let scramble = "R U F' D L' B U";
    let run = |extra: &[&str]| -> String {
        let o = crate::common::command(env!("CARGO_BIN_EXE_solve"))
            .args(extra)
            .args(["--scramble", scramble, "--out"])
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{extra:?}: {}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).to_string()
    };
    let ids = run(&["classical", "ids", "--label", "ids"]);
    let korf = run(&["classical", "idastar", "--heuristic", "pdb", "--label", "korf"]);
    let generic = run(&["classical", "idastar", "--heuristic", "pdb-generic", "--label", "generic"]);
    let astar = run(&["classical", "astar", "--heuristic", "pdb", "--label", "astar"]);
    assert!(ids.contains("(7 moves; verified)"), "{ids}");
    for o in [&korf, &generic, &astar] {
        assert!(o.contains("(7 moves; verified)"), "{o}");
    }
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn bad_requests_are_refused_before_search() {
    let out = out_root("bad");
    // A* on the 8-puzzle's solved board, with `extra` arguments.
    let astar8 = |extra: &[&'static str]| {
        let mut v = vec!["classical", "astar", "--puzzle", "puzzle8", "--board", "1 2 3 / 4 5 6 / 7 8 0"];
        v.extend_from_slice(extra);
        v
    };
    let cases: Vec<(Vec<&str>, &str)> = vec![
        // Two tiles swapped: the other parity class.
        (vec!["classical", "astar", "--puzzle", "puzzle8", "--board", "2 1 3 / 4 5 6 / 7 8 0"], "unsolvable"),
        (astar8(&["--heuristic", "2*manhattan"]), "not admissible"),
        (astar8(&["--heuristic", "magic"]), "unknown heuristic"),
        (
            vec!["classical", "astar", "--puzzle", "puzzle15", "--testset", "korf100", "--goal", "blank-last"],
            "blank-first goal",
        ),
        (vec!["classical", "astar", "--puzzle", "puzzle24", "--testset", "korf100"], "4×4"),
        (vec!["classical", "astar", "--puzzle", "puzzle8", "--board", "1 2 3 / 4 5 6 / 7 8 8"], "appears twice"),
        (vec!["classical", "astar", "--puzzle", "puzzle8", "--facelets", "UUU"], "describe cubes"),
        (vec!["classical", "idastar", "--board", "1 2 3 / 4 5 6 / 7 8 0"], "sliding puzzle"),
        (vec!["classical", "idastar", "--scramble", "R", "--heuristic", "manhattan"], "unknown cube heuristic"),
        (
            vec![
                "classical",
                "idastar",
                "--puzzle",
                "puzzle8",
                "--board",
                "1 2 3 / 4 5 6 / 7 8 0",
                "--max-time-s",
                "0",
            ],
            "positive",
        ),
    ];
    for (args, expected) in cases {
        let (code, _, err) = solve(&args, &out);
        assert_eq!(code, 1, "{args:?}: {err}");
        assert!(err.contains(expected), "{args:?}: expected `{expected}` in {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    // Refused by the parser (exit status 2): an unknown method, an unknown
    // puzzle, a heuristic for a blind method, and the old limit aliases.
    let parse_errors: Vec<(Vec<&str>, &str)> = vec![
        (vec!["classical", "dijkstra", "--board", "1 2 3 / 4 5 6 / 7 8 0"], "unrecognized subcommand 'dijkstra'"),
        (vec!["classical", "astar", "--puzzle", "puzzle9", "--board", "1 2 3 / 4 5 6 / 7 8 0"], "N + 1 a square"),
        (
            vec![
                "classical",
                "ids",
                "--puzzle",
                "puzzle8",
                "--board",
                "1 2 3 / 4 5 6 / 7 8 0",
                "--heuristic",
                "manhattan",
            ],
            "unexpected argument '--heuristic'",
        ),
        (astar8(&["--time-limit", "1"]), "unexpected argument '--time-limit'"),
        (astar8(&["--max-nodes", "1000"]), "unexpected argument '--max-nodes'"),
    ];
    for (args, expected) in parse_errors {
        let (code, _, err) = solve(&args, &out);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(expected), "{args:?}: expected `{expected}` in {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    assert!(!out.exists() || std::fs::read_dir(&out).unwrap().next().is_none(), "refused requests write nothing");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn distance_table_reproduces_the_published_eight_puzzle_distribution() {
    let out = out_root("table");
    let (code, stdout, err) = solve(&["distances", "--puzzle", "puzzle8"], &out);
    assert_eq!(code, 0, "{err}");
    assert!(stdout.contains("181440 states (complete), maximum distance 31"), "{stdout}");
    let dir = out.join("puzzle8-distances");
    let ours: Vec<String> = column(&dir.join("distances.csv"), "states");
    let published: Vec<String> = include_str!("../../data/puzzle8-distance-counts.tsv")
        .lines()
        .skip(1)
        .filter(|l| l.starts_with("blank-last\t"))
        .map(|l| l.split('\t').nth(2).unwrap().to_string())
        .collect();
    assert_eq!(ours, published);
    assert!(dir.join("plots/distances.png").exists() && dir.join("plots/distances.svg").exists());
    // The cube needs a bound, and the bound is checked before any memory is used.
    let (code, _, err) = solve(&["distances", "--puzzle", "cube3", "--max-depth", "12"], &out);
    assert_eq!(code, 1);
    assert!(err.contains("at most 7"), "{err}");
    let (code, stdout, err) = solve(&["distances", "--puzzle", "cube3", "--max-depth", "3"], &out);
    assert_eq!(code, 0, "{err}");
    assert!(stdout.contains("counts by distance: 1 12 114 1068"), "{stdout}");
    let _ = std::fs::remove_dir_all(&out);
}
