//! The 2×2×2 end to end: `solve distances --puzzle cube2` against the
//! published distance counts (OEIS A079762, `data/cube3-distance-counts.tsv`),
//! classical `solve` runs whose solutions are optimal and replay to solved
//! from scrambles and from facelet strings in another orientation, refused
//! requests with their messages, and the registry name `cube2` through a
//! training config, a short training run and oracle beam search.

use cube_oracle::cube2::{Cube2, Cube2Puzzle, Metric, notation};
use cube_oracle::cube3::{Cube3, notation as n3};
use cube_oracle::learn::config::TrainConfig;
use cube_oracle::learn::training::{self, TrainOptions};
use cube_oracle::registry::PuzzleKind;
use cube_oracle::rundir::Existing;
use cube_oracle::search::DistanceTable;
use std::path::{Path, PathBuf};

use crate::common::column;

fn out_root(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cube-oracle-cube2-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

use crate::common::solve_into as solve;

/// The published QTM counts of the 2×2×2 by distance.
fn published_qtm() -> Vec<u64> {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("data/cube3-distance-counts.tsv")).unwrap();
    text.lines()
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .filter(|f| f[0] == "cube2" && f[1] == "qtm")
        .map(|f| f[3].parse().unwrap())
        .collect()
}

#[test]
fn the_complete_distance_table_matches_oeis() {
    let out = out_root("table");
    let (code, stdout, err) = solve(&["distances", "--puzzle", "cube2"], &out);
    assert_eq!(code, 0, "{err}");
    assert!(stdout.contains("cube2-qtm: 3674160 states (complete), maximum distance 14"), "{stdout}");
    let dir = out.join("cube2-qtm-distances");
    let states: Vec<u64> = column(&dir.join("distances.csv"), "states").iter().map(|s| s.parse().unwrap()).collect();
    assert_eq!(states, published_qtm());
    assert_eq!(states.len() - 1, 14);
    assert_eq!(states.iter().sum::<u64>(), 3_674_160);
    let cumulative = column(&dir.join("distances.csv"), "cumulative");
    assert_eq!(cumulative.last().unwrap(), "3674160");
    assert!(dir.join("plots").join("distances.png").exists());
    std::fs::remove_dir_all(&out).unwrap();
}

/// The 24 corner stickers of a 3×3×3: the 2×2×2 string of the same cube.
fn corner_stickers(c: &Cube3) -> String {
    let f: Vec<char> = c.to_facelets().chars().collect();
    (0..6).flat_map(|face| [0, 2, 6, 8].map(|k| f[face * 9 + k])).collect()
}

#[test]
fn classical_solutions_are_optimal_and_replay_to_solved() {
    let scramble = "R U F' R2";
    let start = Cube2::from_turns(&notation::parse(scramble).unwrap());
    let p = Cube2Puzzle::new(Metric::Qtm);
    // The scramble is 5 quarter turns, so a table to depth 5 holds it.
    let d = DistanceTable::build(&p, 5).distance(&p, &start).expect("within 5 quarter turns");
    // The same cube held another way (turned by y on the 3×3×3's corners).
    let rotated = corner_stickers(&Cube3::from_turns(&n3::parse(&format!("{scramble} U D'")).unwrap()));
    assert_ne!(rotated, start.to_facelets());
    let out = out_root("classical");
    for (method, input) in [
        ("bfs", ["--scramble", scramble]),
        ("ids", ["--facelets", rotated.as_str()]),
        ("idastar", ["--scramble", scramble]),
    ] {
        let mut args = vec!["classical", method, "--puzzle", "cube2", input[0], input[1], "--label", method];
        if method == "idastar" {
            args.extend(["--heuristic", "zero"]);
        }
        let (code, stdout, err) = solve(&args, &out);
        assert_eq!(code, 0, "{method}: {err}");
        assert!(stdout.contains("verified"), "{stdout}");
        let instances = out.join(method).join("instances.csv");
        let length: f64 = column(&instances, "length")[0].parse().unwrap();
        assert_eq!(length, f64::from(d), "{method} is optimal");
        let solution = &column(&instances, "solution")[0];
        let mut s = start;
        for t in notation::parse(solution).unwrap() {
            s.apply_turn(t);
        }
        assert!(s.is_solved(), "{method}: {solution}");
    }
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn bad_requests_are_refused_with_their_rule() {
    let out = out_root("refused");
    for (args, message) in [
        (vec!["classical", "bfs", "--puzzle", "cube2", "--scramble", "R D"], "move `D` at position 3"),
        (vec!["classical", "bfs", "--puzzle", "cube2", "--facelets", "UUUU"], "exactly 24 characters, got 4"),
        (
            vec!["classical", "bfs", "--puzzle", "cube2", "--facelets", "UUUURRRRFFFFDDDDLLLLBBBU"],
            "colour U appears 5 times",
        ),
        (
            vec!["classical", "astar", "--puzzle", "cube2", "--heuristic", "pdb", "--random", "1"],
            "unknown cube2 heuristic",
        ),
        (vec!["classical", "bfs", "--puzzle", "cube2", "--testset", "deepcubea"], "there are no cube2 test sets"),
        (vec!["distances", "--puzzle", "cube2", "--goal", "snail"], "goals apply to sliding puzzles"),
    ] {
        let (code, _, err) = solve(&args, &out);
        assert_eq!(code, 1, "{args:?}");
        assert!(err.contains(message), "{args:?}: {err}");
    }
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn cube2_trains_and_solves_with_its_oracle() {
    let base = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/smoke.toml")).unwrap();
    let text = base.replace("kind = \"cube3\"", "kind = \"cube2\"").replace("name = \"smoke\"", "name = \"cube2\"");
    let path = Path::new("cube2.toml");
    let err = |t: &str| TrainConfig::parse(t, path).unwrap_err().to_string();
    assert!(err(&text.replace("metric = \"qtm\"\n", "")).contains("is required for cube2"));
    assert!(err(&text.replace("metric = \"qtm\"", "metric = \"qtm\"\ngoal = \"snail\"")).contains("not cube2"));

    let mut cfg = TrainConfig::parse(&text, path).unwrap();
    assert_eq!(cfg.puzzle.kind, PuzzleKind::Cube2);
    let puzzle = cfg.puzzle().unwrap();
    assert_eq!((puzzle.encoded_len(), puzzle.num_moves()), (144, 6));

    let out = out_root("train");
    cfg.run.out_dir = out.clone();
    cfg.train.threads = Some(1);
    let o = training::run(&cfg, &TrainOptions::new(Existing::Refuse)).unwrap();
    assert_eq!(o.step, 40);
    let run = out.join("cube2");
    let run_arg = run.to_str().unwrap();
    let solve_out = out.join("solve");
    let (code, _, err) = solve(&["--run", run_arg, "--scramble", "R U", "--beam-width", "64"], &solve_out);
    assert_eq!(code, 0, "{err}");
    let dir = std::fs::read_dir(&solve_out).unwrap().map(|e| e.unwrap().path()).find(|p| p.is_dir()).unwrap();
    let instances = dir.join("instances.csv");
    assert_eq!(column(&instances, "status"), ["solved"], "a 2-move scramble at width 64");
    assert_eq!(column(&instances, "length_htm").len(), 1);
    let (code, _, err) = solve(&["--run", run_arg, "--scramble", "R", "--metric", "htm"], &solve_out);
    assert_eq!(code, 1);
    assert!(err.contains("trained in qtm (6 moves)"), "{err}");
    std::fs::remove_dir_all(&out).unwrap();
}
