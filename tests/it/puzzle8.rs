//! The 8-puzzle through the same learning path as the cube: `train` with
//! `configs/puzzle8-smoke.toml` (the puzzle chosen by the registry name
//! `puzzle8`), the run loaded as a search oracle, and beam search with it on
//! random 8-puzzles, every solution replayed and compared with the exact
//! BFS distance of all 181,440 states; then the `solve` binary with that
//! run beside a classical A* on the same boards, both writing the one
//! result schema.

use cube_oracle::learn::config::TrainConfig;
use cube_oracle::learn::inference::NetOracle;
use cube_oracle::learn::training::{self, TrainOptions};
use cube_oracle::rundir::Existing;
use cube_oracle::search::{BeamConfig, DistanceTable};
use cube_oracle::sliding::{Goal, Sliding};
use cube_oracle::solve::boards;
use std::path::Path;

use crate::common;

#[test]
fn a_trained_8_puzzle_oracle_solves_random_boards_near_optimally() {
    let out = std::env::temp_dir().join(format!("cube-oracle-puzzle8-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let mut cfg = TrainConfig::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/puzzle8-smoke.toml")).unwrap();
    cfg.run.out_dir = out.clone();
    cfg.train.threads = Some(1);
    let opts = TrainOptions::new(Existing::Refuse);
    let o = training::run(&cfg, &opts).unwrap();
    assert_eq!(o.step, 400);
    let run = out.join("puzzle8-smoke");
    let mut oracle = NetOracle::load(&run, None, None).unwrap();
    assert_eq!(cube_oracle::search::Oracle::num_moves(&oracle), 4, "the network has one output per slide");

    let p = Sliding::new(3, Goal::BlankLast).unwrap();
    let table = DistanceTable::build(&p, 40);
    let beam = BeamConfig { width: 256, max_depth: 60, dedup: true, prune: true, record_beams: false };
    let instances = boards::random(&p, 100, 7);
    let (solved, optimal, excess) = common::replayed_sweep(&p, &table, &mut oracle, &instances, &beam);
    // Measured with this config and seed (AVX2 EPYC, 2026-11-23): 100 of 100
    // solved, all optimally, after 3.7 s of training; the bounds leave room
    // for floating-point differences between machines.
    assert_eq!(solved, 100, "every board is solved");
    assert!(optimal >= 95, "optimal {optimal} of {solved}");
    assert!(excess < 0.2, "mean excess {excess}");
    println!("8-puzzle oracle at width 256: {solved}/100 solved, {optimal} optimal, mean excess {excess:.2}");
    cli_solves_beside_a_classical_search(&run, &out, &p, &table);
    exact_report_matches_the_truth(&run, &out);
    std::fs::remove_dir_all(&out).unwrap();
}

/// `solve --run` with the 8-puzzle run and `solve classical astar` on the
/// same 20 random boards: the same core columns, the same instances, A* at
/// the exact distance and the oracle at it or an even number of moves above.
fn cli_solves_beside_a_classical_search(run: &Path, out: &Path, p: &Sliding, table: &DistanceTable<Sliding>) {
    let solve = |args: &[&str], label: &str| -> Vec<Vec<String>> {
        let o = crate::common::command(env!("CARGO_BIN_EXE_solve"))
            .args(args)
            .args(["--random", "20", "--seed", "3", "--out", out.to_str().unwrap(), "--label", label])
            .output()
            .unwrap();
        assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
        let text = std::fs::read_to_string(out.join(label).join("instances.csv")).unwrap();
        text.lines().map(|l| l.split(',').map(str::to_string).collect()).collect()
    };
    let run_arg = run.to_str().unwrap();
    let learned = solve(&["--run", run_arg, "--beam-width", "256", "--max-depth", "60"], "oracle");
    let astar = solve(&["classical", "astar", "--puzzle", "puzzle8", "--heuristic", "manhattan"], "astar");
    let core = cube_oracle::solve::record::INSTANCE_COLUMNS;
    for table_rows in [&learned, &astar] {
        assert_eq!(&table_rows[0][..core.len()], core, "both start with the core columns");
        assert_eq!(table_rows.len(), 21);
    }
    let col = |rows: &[Vec<String>], name: &str| -> Vec<String> {
        let j = rows[0].iter().position(|h| h == name).unwrap();
        rows[1..].iter().map(|r| r[j].clone()).collect()
    };
    assert_eq!(col(&learned, "puzzle"), col(&astar, "puzzle"));
    assert_eq!(col(&learned, "id"), col(&astar, "id"));
    assert!(col(&learned, "heuristic").iter().all(|h| h == "oracle:puzzle8-smoke"));
    let boards = boards::random(p, 20, 3);
    for ((b, l), a) in boards.iter().zip(col(&learned, "length")).zip(col(&astar, "length")) {
        let d = usize::from(table.distance(p, &p.board(&b.tiles).unwrap()).unwrap());
        let (l, a): (usize, usize) = (l.parse().unwrap(), a.parse().unwrap());
        assert_eq!(a, d, "A* with Manhattan is optimal");
        assert!(l >= d && (l - d) % 2 == 0, "oracle {l} moves, distance {d}");
    }
    // The run fixes the puzzle: asking it for another is refused.
    let o = crate::common::command(env!("CARGO_BIN_EXE_solve"))
        .args(["--run", run_arg, "--puzzle", "cube3", "--scramble", "R"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("was trained on puzzle8"));
}

/// `solve exact` with the 8-puzzle run: one row per true distance with
/// the BFS counts of `data/puzzle8-distance-counts.tsv`,
/// figures in their ranges, and a beam sample whose optimal lengths are
/// the true distances its ids name.
fn exact_report_matches_the_truth(run: &Path, out: &Path) {
    let o = crate::common::command(env!("CARGO_BIN_EXE_solve"))
        .args(["exact", "--run", run.to_str().unwrap(), "--random", "100", "--beam-log2", "0..6"])
        .args(["--out", out.to_str().unwrap(), "--label", "exact"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let read = |file: &str| -> Vec<Vec<String>> {
        let text = std::fs::read_to_string(out.join("exact").join(file)).unwrap();
        text.lines().map(|l| l.split(',').map(str::to_string).collect()).collect()
    };
    let counts =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("data/puzzle8-distance-counts.tsv"))
            .unwrap();
    let published: Vec<u64> = counts
        .lines()
        .filter(|l| l.starts_with("blank-last\t"))
        .filter_map(|l| l.split('\t').nth(2)?.parse().ok())
        .collect();
    let exact = read("exact.csv");
    assert_eq!(exact.len() - 1, published.len() - 1, "one row per distance 1..=31");
    for (r, &n) in exact[1..].iter().zip(&published[1..]) {
        let f = |j: usize| r[j].parse::<f64>().unwrap();
        assert_eq!(r[1].parse::<u64>().unwrap(), n, "distance {}", r[0]);
        assert!(f(2) >= 1.0 && (0.0..=1.0 + 1e-5).contains(&f(3)) && (0.0..=100.0).contains(&f(4)) && f(5) >= -1e-9);
    }
    let instances = read("instances.csv");
    let col = |name: &str| instances[0].iter().position(|h| h == name).unwrap();
    for r in &instances[1..] {
        let d: &str = r[col("id")].trim_start_matches('d').split('-').next().unwrap();
        assert_eq!(r[col("optimal")], d, "{}", r[col("id")]);
        // A narrow beam may fail (greedy search at width 1 can): then the
        // row has no length; a solved row is never shorter than the optimum.
        let (solved, length) = (r[col("solved")].as_str(), r[col("length")].as_str());
        if solved == "true" {
            let len: usize = length.parse().unwrap_or_else(|_| panic!("{}: solved, length {length:?}", r[col("id")]));
            assert!(len >= d.parse().unwrap(), "{}: {len}", r[col("id")]);
        } else {
            assert_eq!(length, "", "{}: unsolved with a length", r[col("id")]);
        }
    }
    assert_eq!(instances.len() - 1, 7 * 100, "100 positions at 7 widths");
    // The report draws its own sample (it takes no instances), and belongs
    // to the oracle path: the parser refuses both (exit status 2).
    for (args, says) in [
        (
            vec!["exact", "--run", run.to_str().unwrap(), "--random", "3", "--board", "1 2 3 / 4 5 6 / 7 0 8"],
            "unexpected argument '--board'",
        ),
        (
            vec!["classical", "astar", "--puzzle", "puzzle8", "--exact", "--random", "3"],
            "unexpected argument '--exact'",
        ),
        (vec!["--run", run.to_str().unwrap(), "--exact", "--random", "3"], "unexpected argument '--exact'"),
    ] {
        let o = crate::common::command(env!("CARGO_BIN_EXE_solve")).args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.code() == Some(2) && err.contains(says), "{args:?}: {err}");
    }
}

/// A policy that ranks the outputs in a fixed order whatever the board:
/// output 0 first, then 1, 2, 3.
struct FixedOrder;

impl cube_oracle::search::Oracle for FixedOrder {
    fn kind(&self) -> cube_oracle::search::OracleKind {
        cube_oracle::search::OracleKind::Policy
    }
    fn num_moves(&self) -> usize {
        4
    }
    fn predict(&mut self, _: &[f32], rows: usize, out: &mut [f32]) -> Result<(), cube_oracle::search::OracleError> {
        for row in out[..rows * 4].chunks_exact_mut(4) {
            row.copy_from_slice(&[-0.1, -2.5, -3.0, -3.5]);
        }
        Ok(())
    }
}

#[test]
fn the_exact_report_ranks_only_the_moves_a_board_allows() {
    use cube_oracle::puzzle::{MoveId, Puzzle};
    // Output m undoes move m: it is a real option where m's inverse applies.
    // The top-1 move is the first such output, counted against BFS truth.
    let p = Sliding::new(3, Goal::BlankLast).unwrap();
    let (table, layers) = DistanceTable::build_with_layers(&p, u8::MAX);
    let rows = cube_oracle::solve::exact::by_distance(&p, &mut FixedOrder, &table, &layers).unwrap();
    let mut skipped_an_inapplicable_first = false;
    for (row, layer) in rows.iter().zip(layers.iter().skip(1)) {
        let d = row.distance;
        let top1 = layer
            .iter()
            .filter(|s| {
                let applicable = |m: MoveId| p.is_applicable(s, p.inverse(m));
                skipped_an_inapplicable_first |= !applicable(0);
                let best = (0..4).find(|&m| applicable(m)).unwrap();
                let mut c = **s;
                p.apply(&mut c, p.inverse(best));
                table.distance(&p, &c).map(usize::from) == Some(d - 1)
            })
            .count();
        let expected = 100.0 * top1 as f64 / layer.len() as f64;
        assert!((row.top1_optimal_pct - expected).abs() < 1e-9, "distance {d}: {} vs {expected}", row.top1_optimal_pct);
    }
    assert!(skipped_an_inapplicable_first, "some boards do not allow output 0");
}
