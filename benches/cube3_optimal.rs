//! Korf's optimal cube solver, measured: pattern-database build (or load)
//! time per table and metric, cache file sizes, mean table values, IDA*
//! nodes per second (generic single-threaded and the parallel cube-specific
//! search), optimal solutions of random scrambles (10..=16 QTM, and a few in
//! HTM), and the DeepCubeA test cubes whose optimal QTM length is at most 18
//! (in both metrics; only the QTM optima are published, so in HTM the bench
//! checks the length is at most the QTM one).
//!
//! Every instance runs under a time cap (`CUBE_ORACLE_BENCH_SECONDS`,
//! default 600) and reports "limit reached" when it hits it. The metrics
//! run are `CUBE_ORACLE_BENCH_METRICS` (default `qtm,htm`). Tables come
//! from the cache (`CUBE_ORACLE_CACHE`, see `cube_oracle::heuristics::store::cache_dir`)
//! or are built and saved there; an empty cache measures build times.

use cube_oracle::cube3::{Cube3, Cube3Puzzle, Metric};
use cube_oracle::heuristics::korf::Pattern;
use cube_oracle::heuristics::store::{CacheOutcome, cache_dir};
use cube_oracle::puzzle::{MoveId, Puzzle, Recent};
use cube_oracle::search::korf::KorfSolver;
use cube_oracle::search::{Limits, SearchOutcome, Status, ida_star};
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use std::time::Duration;

fn scramble(metric: Metric, len: usize, rng: &mut ChaCha8Rng) -> Cube3 {
    let p = Cube3Puzzle::new(metric);
    let (mut recent, mut cube, mut n) = (Recent::default(), Cube3::SOLVED, 0);
    while n < len {
        let m = rng.random_range(0..p.num_moves() as MoveId);
        if !p.is_redundant(recent, m) {
            p.apply(&mut cube, m);
            recent = recent.push(m);
            n += 1;
        }
    }
    cube
}

fn describe(s: &KorfSolver, cube: &Cube3, out: &SearchOutcome) -> String {
    let rate = out.generated as f64 / out.elapsed.as_secs_f64().max(1e-9);
    let len = match out.status {
        Status::Solved => {
            let mut c = *cube;
            c.apply_turns(&s.puzzle.turns(&out.path));
            assert!(c.is_solved(), "solution does not replay");
            format!("{:>2}", out.path.len())
        }
        Status::LimitReached => "limit reached".into(),
        Status::Exhausted => "exhausted".into(),
    };
    format!(
        "length {len}  nodes {:>14}  {:>9.2} s  {:>6.2} M nodes/s",
        out.generated,
        out.elapsed.as_secs_f64(),
        rate / 1e6
    )
}

fn main() -> anyhow::Result<()> {
    let cap = std::env::var("CUBE_ORACLE_BENCH_SECONDS").ok().and_then(|v| v.parse().ok()).unwrap_or(600u64);
    let metrics = std::env::var("CUBE_ORACLE_BENCH_METRICS").unwrap_or_else(|_| "qtm,htm".into());
    let limits = Limits { max_time: Duration::from_secs(cap), ..Limits::default() };
    let dir = cache_dir();
    println!("# Korf's optimal solver (corner PDB + two 6-edge PDBs, 4 bits/entry)");
    println!("threads {}  cap {cap} s per instance  cache {:?}", rayon::current_num_threads(), dir);
    for metric in [Metric::Qtm, Metric::Htm] {
        if !metrics.contains(metric.name()) {
            continue;
        }
        println!("\n## {metric}\n");
        let s = KorfSolver::load_or_build(metric, dir.as_deref())?;
        for info in &s.pdbs.info {
            let (how, path) = match &info.outcome {
                CacheOutcome::Loaded(p) => ("loaded".to_string(), Some(p.clone())),
                CacheOutcome::Built { seconds, saved, .. } => (format!("built in {seconds:.1} s"), saved.clone()),
            };
            let size = path.and_then(|p| std::fs::metadata(p).ok()).map_or(0, |m| m.len());
            let hist: Vec<String> = info.histogram.iter().take(info.max() as usize + 1).map(u64::to_string).collect();
            println!(
                "table {:<8} entries {:>10}  {how} ({:.1} s total)  file {:.1} MB  mean {:.3}  max {}",
                info.pattern.name(),
                info.pattern.len(),
                info.seconds,
                size as f64 / 1e6,
                info.mean(),
                info.max()
            );
            println!("  distribution {}", hist.join(" "));
        }
        let _ = Pattern::ALL;
        let mut rng = ChaCha8Rng::seed_from_u64(2026);
        let probe_len = if metric == Metric::Qtm { 16 } else { 14 };
        let probe = scramble(metric, probe_len, &mut rng);
        let start = s.puzzle.from_cube3(&probe);
        println!("\nnodes/s on a random {probe_len}-move scramble (h0 = {}):", s.pdbs.h(&start));
        let g = ida_star(&s.puzzle, &s.pdbs, &start, limits, 26);
        println!("  generic ida_star (1 thread)   {}", describe(&s, &probe, &g));
        let p = s.solve(&probe, limits);
        println!("  parallel korf search          {}", describe(&s, &probe, &p));
        println!(
            "  (the parallel search also prunes commuting and X' X' sequences in QTM, so it generates fewer nodes)"
        );

        let lens = if metric == Metric::Qtm { 10..=16 } else { 8..=14 };
        println!("\nrandom scrambles (seed 7), parallel search:");
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for len in lens {
            let cube = scramble(metric, len, &mut rng);
            let h0 = s.pdbs.h(&s.puzzle.from_cube3(&cube));
            let out = s.solve(&cube, limits);
            println!("  scramble {len:>2}  h0 {h0:>2}  {}", describe(&s, &cube, &out));
        }

        {
            println!("\nDeepCubeA test cubes with optimal_qtm <= 18, parallel search in {metric}:");
            let path = concat!(env!("CARGO_MANIFEST_DIR"), "/data/cube3-deepcubea-test-1000.tsv");
            let text = std::fs::read_to_string(path)?;
            let mut rows: Vec<(u32, String, String)> = text
                .lines()
                .skip(1)
                .filter_map(|l| {
                    let f: Vec<&str> = l.split('\t').collect();
                    let opt = f.get(2)?.trim().parse().ok()?;
                    Some((opt, f[0].to_string(), f.get(1)?.to_string()))
                })
                .filter(|r| r.0 <= 18)
                .collect();
            rows.sort();
            let (mut solved, mut total_s) = (0, 0.0);
            for (opt, id, facelets) in &rows {
                let cube = Cube3::from_facelets(facelets).map_err(|e| anyhow::anyhow!("cube {id}: {e}"))?;
                let h0 = s.pdbs.h(&s.puzzle.from_cube3(&cube));
                let out = s.solve(&cube, limits);
                if let Some(len) = out.cost() {
                    // Only QTM optima are published; an HTM optimum is at most the QTM one.
                    let ok = if metric == Metric::Qtm { len as u32 == *opt } else { len as u32 <= *opt };
                    anyhow::ensure!(ok, "cube {id}: {metric} length {len}, known optimal QTM {opt}");
                    solved += 1;
                }
                total_s += out.elapsed.as_secs_f64();
                println!("  id {id:>4}  optimal_qtm {opt}  h0 {h0:>2}  {}", describe(&s, &cube, &out));
            }
            println!("  solved {solved}/{} optimally in {metric}, {total_s:.1} s in all", rows.len());
        }
    }
    Ok(())
}
