//! `solve`: run beam search with a trained oracle over cubes, verify every
//! solution, and write per-instance, per-depth and per-width tables and the
//! scaling and entropy plots under `runs/<name>/solve/<label>/`.

pub mod boards;
pub mod classical;
pub mod distances;
pub mod heuristics;
pub mod testsets;
mod tsv;
pub mod widths;

use crate::csvlog::{Col, write_table};
use crate::cube3::{Cube3Puzzle, Metric, notation};
use crate::folder::{self, IfExists, Output};
use crate::learn::config::DeviceKind;
use crate::learn::inference::NetOracle;
use crate::plot::{Chart, Series, Style};
use crate::search::{BeamConfig, BeamOutcome, Oracle, beam_search};
use crate::statistics::{pearson, quantile};
use anyhow::{Result, bail};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::time::Instant;
use testsets::Instance;

/// EfficientCube on DeepCubeA's 1000 cubes (T4 GPU): `(log2 width, mean
/// QTM length, % optimal, seconds per cube, nodes)`.
pub const EFFICIENTCUBE: [(u32, f64, f64, f64, f64); 12] = [
    (7, 25.18, 5.7, 0.28, 2984.0),
    (8, 24.40, 7.3, 0.49, 5630.0),
    (9, 23.79, 10.7, 1.03, 10800.0),
    (10, 23.30, 14.9, 2.01, 20940.0),
    (11, 22.91, 18.8, 5.52, 40320.0),
    (12, 22.56, 25.8, 10.7, 77610.0),
    (13, 22.22, 33.3, 19.4, 150900.0),
    (14, 21.97, 40.5, 31.4, 295000.0),
    (15, 21.75, 48.1, 62.6, 566000.0),
    (16, 21.55, 56.3, 126.0, 1102000.0),
    (17, 21.41, 62.7, 264.0, 2168000.0),
    (18, 21.26, 69.6, 484.0, 4181000.0),
];

/// Where the cubes come from.
#[derive(Clone, Debug)]
pub enum Source {
    /// One facelet string.
    Facelets(String),
    /// One move sequence from solved.
    Scramble(String),
    /// A built-in set or a TSV file.
    TestSet(String),
    /// `n` cubes from 100-move random walks of a seed.
    Random {
        /// How many.
        n: usize,
        /// Seed.
        seed: u64,
    },
}

/// What `solve` was asked to do.
#[derive(Clone, Debug)]
pub struct SolveOptions {
    /// The trained run.
    pub run_dir: PathBuf,
    /// A checkpoint other than the run's newest.
    pub checkpoint: Option<PathBuf>,
    /// The cubes.
    pub source: Source,
    /// Beam widths, increasing.
    pub widths: Vec<usize>,
    /// Depth limit.
    pub max_depth: usize,
    /// Deduplicate beam states.
    pub dedup: bool,
    /// Metric the caller expects the model to use, if stated.
    pub metric: Option<Metric>,
    /// Output folder name under `solve/` (default from the source).
    pub label: Option<String>,
    /// Replace an existing output folder.
    pub overwrite: bool,
    /// Draw a progress bar.
    pub progress: bool,
    /// For a single cube: double the width after an unsolved search until
    /// this width (0 or any width at most the last one: never).
    pub escalate_to: usize,
    /// Cubes searched at once, each by its own worker thread with its own
    /// copy of the network (1: one at a time).
    pub jobs: usize,
    /// Device that evaluates the network (default: the CPU).
    pub device: Option<DeviceKind>,
}

/// One solved (or not) instance at one width.
struct Row {
    width: usize,
    inst: usize,
    out: BeamOutcome<u128>,
    turns: Option<Vec<crate::cube3::Turn>>,
    elapsed_s: f64,
}

/// A short tag naming one cube state (12 hex digits of a hash of its key),
/// so that single-cube solves of different cubes get different folders.
fn cube_tag(cube: &crate::cube3::Cube3) -> String {
    let h = crate::checksum::fnv1a(&cube.key().to_le_bytes());
    format!("{:012x}", h & 0xffff_ffff_ffff)
}

/// Runs `solve`; returns the output folder.
pub fn run(opts: &SolveOptions) -> Result<PathBuf> {
    let oracle = NetOracle::load(&opts.run_dir, opts.checkpoint.as_deref(), opts.device)?;
    let metric = oracle.config.metric();
    if let Some(m) = opts.metric
        && m != metric
    {
        bail!("the run's model was trained in {metric} ({} moves), but --metric {m} was given", oracle.num_moves());
    }
    let puzzle = Cube3Puzzle::new(metric);
    let (instances, default_label) = match &opts.source {
        Source::Facelets(f) => {
            let inst = testsets::from_facelets(f)?;
            let label = format!("facelets-{}", cube_tag(&inst.cube));
            (vec![inst], label)
        }
        Source::Scramble(s) => {
            let inst = testsets::from_scramble(s)?;
            let label = format!("scramble-{}", cube_tag(&inst.cube));
            (vec![inst], label)
        }
        Source::TestSet(t) => {
            let name = std::path::Path::new(t).file_stem().map_or(t.clone(), |s| s.to_string_lossy().to_string());
            (testsets::load(t)?, name)
        }
        Source::Random { n, seed } => (testsets::random(&puzzle, *n, 100, *seed)?, format!("random-{n}-seed{seed}")),
    };
    let dedup_tag = if opts.dedup { "" } else { "-nodedup" };
    // A label the tool chose for one cube names that cube on this oracle:
    // solving it again replaces the earlier result. Chosen labels and
    // test-set sweeps keep the --overwrite rule.
    let single = matches!(opts.source, Source::Facelets(_) | Source::Scramble(_));
    let if_exists =
        if opts.overwrite || (single && opts.label.is_none()) { IfExists::Replace } else { IfExists::Refuse };
    let label = match &opts.label {
        Some(l) => l.clone(),
        None => {
            let w = match (opts.widths.first(), opts.widths.last()) {
                (Some(a), Some(b)) if a != b => format!("w{}..{}", a.trailing_zeros(), b.trailing_zeros()),
                (Some(a), _) => format!("w{a}"),
                _ => String::new(),
            };
            folder::sanitize(&format!("{default_label}-{w}{dedup_tag}"))
        }
    };
    let output = Output::claim(&opts.run_dir.join("solve"), &label, "--label", if_exists)?;
    let out_dir = output.dir().to_path_buf();

    let total = (instances.len() * opts.widths.len()) as u64;
    let bar = if opts.progress { ProgressBar::new(total) } else { ProgressBar::hidden() };
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} solves, ETA {eta}  {msg}")
            .expect("a valid template")
            .progress_chars("=> "),
    );
    let jobs = opts.jobs.clamp(1, instances.len().max(1));
    // One oracle per worker, cloned from the one loaded above.
    let mut oracles = vec![oracle; jobs];
    let mut rows = Vec::new();
    let mut wall_s = Vec::new();
    let mut widths = opts.widths.clone();
    let mut k = 0;
    while k < widths.len() {
        let width = widths[k];
        k += 1;
        let cfg = BeamConfig { width, max_depth: opts.max_depth, dedup: opts.dedup, prune: true, record_beams: false };
        let t = Instant::now();
        rows.extend(solve_all(&puzzle, &mut oracles, &instances, &cfg, &bar)?);
        wall_s.push(t.elapsed().as_secs_f64());
        // Widen until solved: only for one cube, when asked and when the
        // widths were not given explicitly.
        if k == widths.len()
            && width < opts.escalate_to
            && instances.len() == 1
            && rows.last().is_some_and(|r| r.turns.is_none())
        {
            eprintln!("width {width}: not solved; retrying with width {}", width * 2);
            widths.push(width * 2);
        }
        // Every finished width is on disk before the next starts, so a long
        // sweep that is cut short keeps what it measured.
        if k < widths.len() {
            write_outputs(&out_dir, &instances, &rows, &widths[..k], &wall_s, false)?;
            if !opts.progress && instances.len() > 1 {
                eprintln!("width {width}: done ({} cubes); tables written", instances.len());
            }
        }
    }
    bar.finish_and_clear();
    write_outputs(&out_dir, &instances, &rows, &widths, &wall_s, true)?;
    Ok(output.commit()?)
}

/// Searches every instance at one width, `oracles.len()` at a time, and
/// verifies each solution by replaying it on the sticker model. Rows come
/// back in instance order whatever the number of workers.
fn solve_all(
    puzzle: &Cube3Puzzle,
    oracles: &mut [NetOracle],
    instances: &[Instance],
    cfg: &BeamConfig,
    bar: &ProgressBar,
) -> Result<Vec<Row>> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let work = |oracle: &mut NetOracle| -> Result<Vec<Row>> {
        let mut rows = Vec::new();
        loop {
            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let Some(inst) = instances.get(i) else { return Ok(rows) };
            let t = Instant::now();
            let out = beam_search(puzzle, oracle, &inst.cube, cfg)?;
            let elapsed_s = t.elapsed().as_secs_f64();
            let turns = match &out.solution {
                Some(path) => {
                    let turns: Vec<_> = path.iter().map(|&m| puzzle.turn(m)).collect();
                    let mut check = inst.cube;
                    check.apply_turns(&turns);
                    if !check.is_solved() {
                        bail!(
                            "BUG: the solution found for {} does not solve it: {}",
                            inst.id,
                            notation::format(&turns)
                        );
                    }
                    Some(turns)
                }
                None => None,
            };
            rows.push(Row { width: cfg.width, inst: i, out, turns, elapsed_s });
            bar.inc(1);
        }
    };
    let mut rows: Vec<Row> = if oracles.len() == 1 {
        work(&mut oracles[0])?
    } else {
        let results: Vec<Result<Vec<Row>>> = std::thread::scope(|scope| {
            // Each worker runs its matrix products on a one-thread pool of
            // its own: sharing the global pool, the workers' products queue
            // behind each other (measured: 1.24x with two workers against
            // 1.65x for two processes).
            let handles: Vec<_> = oracles
                .iter_mut()
                .map(|o| {
                    scope.spawn(|| match rayon::ThreadPoolBuilder::new().num_threads(1).build() {
                        Ok(pool) => pool.install(|| work(o)),
                        Err(e) => bail!("starting a solve worker's thread pool: {e}"),
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap_or_else(|_| bail!("a solve worker panicked"))).collect()
        });
        let mut all = Vec::new();
        for r in results {
            all.extend(r?);
        }
        all
    };
    rows.sort_by_key(|r| r.inst);
    Ok(rows)
}

fn write_outputs(
    dir: &std::path::Path,
    instances: &[Instance],
    rows: &[Row],
    widths: &[usize],
    wall_s: &[f64],
    report: bool,
) -> Result<()> {
    let qtm = |r: &Row| r.turns.as_ref().map(|t| notation::qtm_len(t) as u64);
    let mean_entropy = |r: &Row| {
        let d = &r.out.depths;
        d.iter().map(|s| s.entropy).sum::<f64>() / d.len().max(1) as f64
    };
    write_table(
        &dir.join("instances.csv"),
        vec![
            ("width", Col::U64(rows.iter().map(|r| r.width as u64).collect())),
            ("id", Col::Str(rows.iter().map(|r| instances[r.inst].id.clone()).collect())),
            ("solved", Col::Bool(rows.iter().map(|r| r.turns.is_some()).collect())),
            (
                "solution",
                Col::Str(
                    rows.iter().map(|r| r.turns.as_ref().map_or(String::new(), |t| notation::format(t))).collect(),
                ),
            ),
            ("length_qtm", Col::F64(rows.iter().map(|r| qtm(r).map_or(f64::NAN, |v| v as f64)).collect())),
            (
                "length_htm",
                Col::F64(
                    rows.iter().map(|r| r.turns.as_ref().map_or(f64::NAN, |t| notation::htm_len(t) as f64)).collect(),
                ),
            ),
            (
                "optimal_qtm",
                Col::F64(rows.iter().map(|r| instances[r.inst].optimal_qtm.map_or(f64::NAN, f64::from)).collect()),
            ),
            ("nodes", Col::U64(rows.iter().map(|r| r.out.nodes).collect())),
            ("children", Col::U64(rows.iter().map(|r| r.out.children).collect())),
            ("elapsed_ms", Col::F64(rows.iter().map(|r| r.elapsed_s * 1e3).collect())),
            ("mean_beam_entropy", Col::F64(rows.iter().map(mean_entropy).collect())),
            ("start_kl_uniform", Col::F64(rows.iter().map(|r| r.out.start_kl_uniform).collect())),
        ],
    )?;
    let depth_rows: Vec<(&Row, &crate::search::DepthStats)> =
        rows.iter().flat_map(|r| r.out.depths.iter().map(move |d| (r, d))).collect();
    write_table(
        &dir.join("depths.csv"),
        vec![
            ("width", Col::U64(depth_rows.iter().map(|(r, _)| r.width as u64).collect())),
            ("id", Col::Str(depth_rows.iter().map(|(r, _)| instances[r.inst].id.clone()).collect())),
            ("depth", Col::U64(depth_rows.iter().map(|(_, d)| d.depth as u64).collect())),
            ("beam_size", Col::U64(depth_rows.iter().map(|(_, d)| d.beam_size as u64).collect())),
            ("entropy", Col::F64(depth_rows.iter().map(|(_, d)| d.entropy).collect())),
            ("max_log_prob", Col::F64(depth_rows.iter().map(|(_, d)| d.max_log_prob).collect())),
            ("mean_log_prob", Col::F64(depth_rows.iter().map(|(_, d)| d.mean_log_prob).collect())),
            ("mean_policy_entropy", Col::F64(depth_rows.iter().map(|(_, d)| d.mean_policy_entropy).collect())),
            ("kl_previous", Col::F64(depth_rows.iter().map(|(_, d)| d.kl_previous).collect())),
        ],
    )?;

    // One summary row per width.
    let mut s: Vec<[f64; 14]> = Vec::new();
    for (i, &w) in widths.iter().enumerate() {
        let rs: Vec<&Row> = rows.iter().filter(|r| r.width == w).collect();
        let solved: Vec<&&Row> = rs.iter().filter(|r| r.turns.is_some()).collect();
        let lens: Vec<f64> = solved.iter().filter_map(|r| qtm(r)).map(|v| v as f64).collect();
        let with_opt: Vec<(f64, f64)> =
            solved.iter().filter_map(|r| Some((qtm(r)? as f64, f64::from(instances[r.inst].optimal_qtm?)))).collect();
        let times: Vec<f64> = rs.iter().map(|r| r.elapsed_s).collect();
        let evaluated: u64 = rs.iter().map(|r| r.out.evaluated).sum();
        let ent: Vec<f64> = solved.iter().map(|r| mean_entropy(r)).collect();
        let n = rs.len().max(1) as f64;
        let nan_if_empty = |v: f64, k: usize| if k == 0 { f64::NAN } else { v };
        s.push([
            w as f64,
            (w as f64).log2(),
            rs.len() as f64,
            100.0 * solved.len() as f64 / n,
            nan_if_empty(lens.iter().sum::<f64>() / lens.len().max(1) as f64, lens.len()),
            quantile(&lens, 0.5).unwrap_or(f64::NAN),
            nan_if_empty(
                100.0 * with_opt.iter().filter(|(l, o)| l == o).count() as f64 / with_opt.len().max(1) as f64,
                with_opt.len(),
            ),
            nan_if_empty(
                with_opt.iter().map(|(l, o)| l - o).sum::<f64>() / with_opt.len().max(1) as f64,
                with_opt.len(),
            ),
            rs.iter().map(|r| r.out.nodes as f64).sum::<f64>() / n,
            times.iter().sum::<f64>() / n,
            quantile(&times, 0.95).unwrap_or(f64::NAN),
            evaluated as f64 / times.iter().sum::<f64>().max(1e-9),
            pearson(&lens, &ent).unwrap_or(f64::NAN),
            wall_s[i] / n,
        ]);
    }
    let names = [
        "width",
        "log2_width",
        "instances",
        "solved_pct",
        "mean_length_qtm",
        "median_length_qtm",
        "optimal_pct",
        "mean_excess_qtm",
        "mean_nodes",
        "mean_time_s",
        "p95_time_s",
        "states_per_s",
        "entropy_length_pearson",
        "wall_s_per_cube",
    ];
    let cols = |s: &[[f64; 14]]| -> Vec<(&str, Col)> {
        names.iter().enumerate().map(|(j, &name)| (name, Col::F64(s.iter().map(|r| r[j]).collect()))).collect()
    };
    write_table(&dir.join("summary.csv"), cols(&s))?;
    let mut scaling = cols(&s);
    let pub_row = |k: f64| EFFICIENTCUBE.iter().find(|e| f64::from(e.0) == k);
    scaling.push((
        "efficientcube_mean_length",
        Col::F64(s.iter().map(|r| pub_row(r[1]).map_or(f64::NAN, |e| e.1)).collect()),
    ));
    scaling.push((
        "efficientcube_optimal_pct",
        Col::F64(s.iter().map(|r| pub_row(r[1]).map_or(f64::NAN, |e| e.2)).collect()),
    ));
    write_table(&dir.join("scaling.csv"), scaling)?;

    if report && instances.len() == 1 {
        for r in rows {
            match &r.turns {
                Some(t) => println!(
                    "width {}: {} ({} QTM, {} HTM; verified)",
                    r.width,
                    notation::format(t),
                    notation::qtm_len(t),
                    notation::htm_len(t)
                ),
                None => println!("width {}: not solved within depth {}", r.width, r.out.depths.len()),
            }
        }
    }
    for r in s.iter().filter(|_| report) {
        let optimal = if r[6].is_nan() { "optimal n/a".to_string() } else { format!("optimal {:.1}%", r[6]) };
        println!(
            "width {:>7}: solved {:.1}%, mean length {:.2} QTM, {optimal}, {:.0} nodes, {:.3} s/cube (p95 {:.3}; wall {:.3}), {:.0} states/s",
            r[0], r[3], r[4], r[8], r[9], r[10], r[13], r[11]
        );
    }
    plots(dir, rows, &s)
}

fn plots(dir: &std::path::Path, rows: &[Row], s: &[[f64; 14]]) -> Result<()> {
    let p = dir.join("plots");
    let ec_len: Vec<(f64, f64)> = EFFICIENTCUBE.iter().map(|e| (f64::from(e.0), e.1)).collect();
    let ec_opt: Vec<(f64, f64)> = EFFICIENTCUBE.iter().map(|e| (f64::from(e.0), e.2)).collect();
    Chart::new("Solution length against beam width", "log2 beam width", "mean solution length (QTM)")
        .with(Series::new("this oracle", Style::Line, s.iter().map(|r| (r[1], r[4])).collect()))
        .with(Series::new("EfficientCube (published)", Style::Reference, ec_len))
        .save(&p.join("length_vs_width"))?;
    Chart::new("Optimal solutions against beam width", "log2 beam width", "% optimal")
        .with(Series::new("this oracle", Style::Line, s.iter().map(|r| (r[1], r[6])).collect()))
        .with(Series::new("EfficientCube (published)", Style::Reference, ec_opt))
        .save(&p.join("optimal_vs_width"))?;
    Chart { log_y: true, ..Chart::new("Time per cube against beam width", "log2 beam width", "seconds per cube") }
        .with(Series::new("mean", Style::Line, s.iter().map(|r| (r[1], r[9])).collect()))
        .with(Series::new("p95", Style::Line, s.iter().map(|r| (r[1], r[10])).collect()))
        .save(&p.join("time_vs_width"))?;
    if let Some(last) = s.last() {
        let w = last[0] as usize;
        let pts: Vec<(f64, f64)> = rows
            .iter()
            .filter(|r| r.width == w)
            .filter_map(|r| {
                let len = notation::qtm_len(r.turns.as_ref()?) as f64;
                let d = &r.out.depths;
                Some((len, d.iter().map(|x| x.entropy).sum::<f64>() / d.len().max(1) as f64))
            })
            .collect();
        Chart {
            note: Some(format!("Pearson r = {:.3} over {} solved cubes (width {w})", last[12], pts.len())),
            ..Chart::new(
                "Mean beam entropy against solution length",
                "solution length (QTM)",
                "mean beam entropy (nats)",
            )
        }
        .with(Series::new("", Style::Points, pts))
        .save(&p.join("entropy_vs_length"))?;
        let mut chart = Chart::new(format!("Beam entropy by depth (width {w})"), "depth", "beam entropy (nats)");
        for r in rows.iter().filter(|r| r.width == w).take(12) {
            chart.series.push(Series::new(
                "",
                Style::Line,
                r.out.depths.iter().map(|d| (d.depth as f64, d.entropy)).collect(),
            ));
        }
        chart.save(&p.join("entropy_vs_depth"))?;
    }
    Ok(())
}
