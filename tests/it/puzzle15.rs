//! The 15-puzzle through the learning path: `train` with
//! `configs/puzzle15-smoke.toml` (seconds), then beam search with the run on
//! shallow scrambles (24-slide reverse walks that never undo a slide), each
//! solution replayed and compared with the optimum that IDA* with the
//! Manhattan distance proves; then the `solve` binary with that run on the
//! same boards written as a test-set file. Last, the shipped value oracle
//! (`runs/reference-puzzle15-value`) on the first DeepCubeA boards.

use cube_oracle::heuristics::sliding::Manhattan;
use cube_oracle::learn::config::TrainConfig;
use cube_oracle::learn::inference::NetOracle;
use cube_oracle::learn::training::{self, TrainOptions};
use cube_oracle::puzzle::{Puzzle, replay};
use cube_oracle::rundir::Existing;
use cube_oracle::scramble::{Scrambler, WalkLength};
use cube_oracle::search::{BeamConfig, Limits, beam_search, ida_star};
use cube_oracle::sliding::{Board, Goal, Sliding};
use cube_oracle::solve::{boards, default_max_depth};
use std::path::Path;

#[test]
fn a_trained_15_puzzle_oracle_solves_shallow_scrambles() {
    let out = std::env::temp_dir().join(format!("cube-oracle-puzzle15-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let mut cfg =
        TrainConfig::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/puzzle15-smoke.toml")).unwrap();
    cfg.run.out_dir = out.clone();
    cfg.train.threads = Some(1);
    let o = training::run(&cfg, &TrainOptions::new(Existing::Refuse)).unwrap();
    assert_eq!(o.step, 300);
    let run = out.join("puzzle15-smoke");
    let mut oracle = NetOracle::load(&run, None, None).unwrap();

    let p = Sliding::new(4, Goal::BlankLast).unwrap();
    let manhattan = Manhattan::new(&p);
    let beam = BeamConfig { width: 64, max_depth: 48, dedup: true, prune: true, record_beams: false };
    let mut walks = Scrambler::new(p.clone(), WalkLength::Fixed(24), true, 11, 0).unwrap();
    let (mut solved, mut optimal, mut excess) = (0, 0, 0);
    let mut tsv = String::from("id\ttiles\toptimal\n");
    let mut lengths = Vec::new();
    for i in 0..30 {
        let start = walks.walk().last().unwrap().state;
        let best = ida_star(&p, &manhattan, &start, Limits::default(), 24).cost().expect("within the walk's 24 slides");
        let tiles: Vec<String> = start.tiles().iter().map(u8::to_string).collect();
        tsv.push_str(&format!("walk{i}\t{}\t{best}\n", tiles.join(" ")));
        let found = beam_search(&p, &mut oracle, &start, &beam).unwrap();
        let Some(path) = found.solution else {
            lengths.push(None);
            continue;
        };
        assert!(replay(&p, &start, &path).is_some_and(|s| p.is_goal(&s)), "walk {i}: the solution does not replay");
        assert!(path.len() >= best && (path.len() - best) % 2 == 0, "walk {i}: {} slides, optimum {best}", path.len());
        solved += 1;
        optimal += usize::from(path.len() == best);
        excess += path.len() - best;
        lengths.push(Some(path.len()));
    }
    // Measured with this config and seed (AVX2 EPYC, 2026-11-23): 30 of 30
    // solved, 28 optimally, 14 slides of excess in all, after about 2 s of
    // training; the bounds leave room for floating-point differences
    // between machines.
    println!("15-puzzle smoke oracle at width 64: {solved}/30 solved, {optimal} optimal, total excess {excess}");
    assert_eq!(solved, 30, "every shallow scramble is solved");
    assert!(optimal >= 20, "optimal {optimal} of 30");

    // The binary, given the same boards as a test-set file: the same ids and
    // optimal lengths in its table, and the same solution lengths as the
    // library's beam search (both deterministic).
    let set = out.join("shallow.tsv");
    std::fs::write(&set, tsv).unwrap();
    let o = crate::common::command(env!("CARGO_BIN_EXE_solve"))
        .args(["--run", run.to_str().unwrap(), "--testset", set.to_str().unwrap(), "--beam-width", "64"])
        .args(["--max-depth", "48", "--out", out.to_str().unwrap(), "--label", "set"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(out.join("set/instances.csv")).unwrap();
    let header: Vec<&str> = text.lines().next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let rows: Vec<Vec<&str>> = text.lines().skip(1).map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 30);
    for (i, (r, len)) in rows.iter().zip(&lengths).enumerate() {
        assert_eq!((r[col("puzzle")], r[col("id")]), ("puzzle15", format!("walk{i}").as_str()));
        assert_eq!(r[col("length")].parse::<usize>().ok(), *len, "walk{i}");
    }
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn the_shipped_value_oracle_solves_deepcubea_boards() {
    // The first DeepCubeA boards with the shipped value oracle
    // (runs/reference-puzzle15-value) at width 64: the checkpoint loads, the
    // run's kind picks the value beam, and every solution replays to the
    // goal at or above the set's optimal length, with its parity.
    // Measured (AVX2 EPYC, 2026-11-23, the sweep in docs/puzzle15.md): 5 of
    // the first 6 optimal, about 3 s of search; the bound leaves room for
    // floating-point differences between machines.
    const BOARDS: usize = 6;
    const MIN_OPTIMAL: usize = 3;
    let run = Path::new(env!("CARGO_MANIFEST_DIR")).join("runs/reference-puzzle15-value");
    let mut oracle = NetOracle::load(&run, None, None).unwrap();
    let p = Sliding::new(4, Goal::BlankLast).unwrap();
    // The depth limit `solve` uses with this run (twice its longest walk).
    let beam = BeamConfig {
        width: 64,
        max_depth: default_max_depth(&oracle.config).unwrap(),
        dedup: true,
        prune: true,
        record_beams: false,
    };
    let set = boards::load("deepcubea15-10", 4, &Goal::BlankLast).unwrap();
    let (mut optimal, mut forwards, mut expanded) = (0, 0, 0);
    for b in set.instances.iter().take(BOARDS) {
        let best = b.optimal.expect("DeepCubeA's set ships optimal lengths") as usize;
        let start = Board::from_tiles(&b.tiles).unwrap();
        let found = beam_search(&p, &mut oracle, &start, &beam).unwrap();
        let path = found.solution.unwrap_or_else(|| panic!("board {}: not solved", b.id));
        assert!(replay(&p, &start, &path).is_some_and(|s| p.is_goal(&s)), "board {}: no replay", b.id);
        assert!(
            path.len() >= best && (path.len() - best).is_multiple_of(2),
            "board {}: {} against {best}",
            b.id,
            path.len()
        );
        optimal += usize::from(path.len() == best);
        forwards += found.forwards;
        expanded += found.expanded;
    }
    // A value search asks the network about children, a policy search about
    // beam states (forwards = expanded): about 2x on the 15-puzzle.
    println!("shipped value oracle at width 64: {optimal}/{BOARDS} optimal, {forwards} forwards, {expanded} expanded");
    assert!(forwards > 3 * expanded / 2, "{forwards} forwards for {expanded} expanded: not the value beam");
    assert!(optimal >= MIN_OPTIMAL, "{optimal} of {BOARDS} optimal");
}
