//! `solve …`: solve instances of a trained run's puzzle (the cube or a
//! sliding puzzle) by beam search with its oracle (the default method), or
//! cubes and sliding puzzles with a classical search
//! (`--method astar|idastar|rbfs|ids|bfs|greedy|ucs`, or `beam` with a
//! `--heuristic`).
//!
//! Thin entry point: parse arguments and dispatch to
//! `cube_oracle::solve::run` or `cube_oracle::solve::classical::run`. Errors
//! are printed with their causes and give exit status 1.

use anyhow::Context;
use clap::{ArgGroup, Parser};
use cube_oracle::cube3::Metric;
use cube_oracle::learn::config::DeviceKind;
use cube_oracle::registry::PuzzleKind;
use cube_oracle::search::Limits;
use cube_oracle::solve::classical::{self, ClassicalOptions, Method};
use cube_oracle::solve::distances::{self, TableOptions};
use cube_oracle::solve::input::Input;
use cube_oracle::solve::{self, SolveOptions, widths};
use std::io::IsTerminal;
use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Parser, Debug)]
#[command(
    name = "solve",
    version,
    about = "Solve puzzles by beam search with a trained oracle, or cubes and sliding puzzles with classical search"
)]
#[command(group(ArgGroup::new("input").required(true).args(["facelets", "scramble", "testset", "random", "board", "distance_table"])))]
struct Args {
    /// The trained run directory (its config.toml and newest checkpoint);
    /// default: the shipped oracle, runs/cube3-gpu.
    #[arg(long)]
    run: Option<PathBuf>,
    /// Search method: beam (default), astar, idastar, rbfs, ids, bfs, greedy, ucs.
    #[arg(long, default_value = "beam")]
    method: String,
    /// Puzzle: cube3 (the default for classical methods), cube2, puzzle8, puzzle15, puzzle24; with an oracle, the run's puzzle.
    #[arg(long)]
    puzzle: Option<String>,
    /// Heuristic for classical methods, e.g. manhattan, linear-conflict, pdb-7-8, max(a,b); on cube3: pdb; on cube2: bfs-table.
    #[arg(long)]
    heuristic: Option<String>,
    /// Sliding-puzzle goal for classical methods: blank-last (default), blank-first, snail, or tiles "1 2 3 / 4 5 6 / 7 8 0".
    #[arg(long, allow_hyphen_values = true)]
    goal: Option<String>,
    /// With an oracle on a puzzle small enough to enumerate (cube2, puzzle8): the exact-truth report, the oracle against exact distances at every position, and beam search on --random N uniform positions of known optimal length.
    #[arg(long)]
    exact: bool,
    /// Instead of solving: BFS from the goal of --puzzle, writing the distance distribution (CSV + histogram).
    #[arg(long)]
    distance_table: bool,
    /// One sliding-puzzle board, e.g. "2 3 0 / 1 8 6 / 5 7 4".
    #[arg(long, allow_hyphen_values = true)]
    board: Option<String>,
    /// Classical methods: stop an instance after generating this many nodes.
    #[arg(long, visible_alias = "max-nodes")]
    max_generated: Option<u64>,
    /// Classical methods: stop an instance after this many seconds.
    #[arg(long, visible_alias = "time-limit")]
    max_time_s: Option<f64>,
    /// Use this checkpoint instead of the run's newest.
    #[arg(long)]
    checkpoint: Option<PathBuf>,
    /// One cube as a URFDLB facelet string: 54 characters (cube2: 24, in any orientation).
    #[arg(long)]
    facelets: Option<String>,
    /// One cube as a move sequence from solved, e.g. "R U R' U'" (cube2: U, R and F only).
    #[arg(long)]
    scramble: Option<String>,
    /// A built-in test set (deepcubea, deepcubea-100, deepcubea-10; korf100, korf100-10, deepcubea15, deepcubea15-100, deepcubea15-10, korf50, korf50-10, deepcubea24) or a TSV file.
    #[arg(long)]
    testset: Option<String>,
    /// N random instances (cube3: 100-move random walks; cube2: uniform; boards: uniform among the solvable ones).
    #[arg(long, value_name = "N")]
    random: Option<usize>,
    /// Seed for --random.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Beam width.
    #[arg(long)]
    beam_width: Option<usize>,
    /// Beam width as a power of two, or a sweep `A..B` (inclusive).
    #[arg(long)]
    beam_log2: Option<String>,
    /// Depth limit; deeper instances are reported unsolved (default: with an oracle, 40 on the cube and twice the run's longest training walk otherwise; 200 for classical methods).
    #[arg(long)]
    max_depth: Option<usize>,
    /// Keep duplicate states in the beam (EfficientCube's variant).
    #[arg(long)]
    no_dedup: bool,
    /// Metric the model must have been trained in (qtm or htm).
    #[arg(long)]
    metric: Option<String>,
    /// Output folder name, under --out.
    #[arg(long)]
    label: Option<String>,
    /// Instances searched at once: classical searches use one thread each; beam search gives each worker its own copy of the network.
    #[arg(long, default_value = "1")]
    jobs: NonZeroUsize,
    /// Parent folder of the output folder (default: <run>/solve with an oracle, runs/classical otherwise).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Replace an existing output folder of the same label.
    #[arg(long)]
    overwrite: bool,
    /// Beam search: evaluate the oracle on `cpu` (default) or `gpu` (a build with --features gpu).
    #[arg(long, value_parser = ["cpu", "gpu"])]
    device: Option<String>,
}

/// The oracle `solve` uses without `--run`: the best shipped one (the
/// GPU-trained run of issue #14; see runs/README.md).
const DEFAULT_RUN: &str = "runs/cube3-gpu";

/// Where classical results go without `--out`.
const CLASSICAL_OUT: &str = "runs/classical";

/// The shipped default oracle: `runs/cube3-gpu` in the working directory,
/// else in the source tree this binary was built from.
fn default_run() -> PathBuf {
    let local = PathBuf::from(DEFAULT_RUN);
    if local.exists() {
        return local;
    }
    let built = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(DEFAULT_RUN);
    if built.exists() { built } else { local }
}

fn parse_metric(text: Option<&str>) -> anyhow::Result<Option<Metric>> {
    Ok(match text {
        None => None,
        Some("qtm") => Some(Metric::Qtm),
        Some("htm") => Some(Metric::Htm),
        Some(other) => anyhow::bail!("--metric {other}: expected qtm or htm"),
    })
}

fn main() -> ExitCode {
    let args = Args::parse();
    let result = (|| {
        let method: Method = args.method.parse()?;
        let puzzle: Option<PuzzleKind> = args.puzzle.as_deref().map(str::parse).transpose().context("--puzzle")?;
        let metric = parse_metric(args.metric.as_deref())?;
        if args.distance_table {
            let opts = TableOptions {
                puzzle: puzzle.unwrap_or(PuzzleKind::Cube3),
                goal: args.goal.clone(),
                metric: metric.unwrap_or(Metric::Qtm),
                max_depth: args.max_depth.map(|d| u32::try_from(d).unwrap_or(u32::MAX)),
                out_root: args.out.clone().unwrap_or_else(|| PathBuf::from(CLASSICAL_OUT)),
                label: args.label.clone(),
                overwrite: args.overwrite,
            };
            return Ok(distances::run(&opts)?.0);
        }
        let input = input(&args)?;
        if method == Method::Beam && args.heuristic.is_none() {
            run_oracle(&args, input, puzzle, metric)
        } else {
            run_classical(&args, input, method, puzzle.unwrap_or(PuzzleKind::Cube3), metric)
        }
    })();
    match result {
        Ok(dir) => {
            println!("results in {}", dir.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// The instances named by `--facelets`, `--scramble`, `--board`,
/// `--testset` or `--random` (clap lets exactly one through).
fn input(args: &Args) -> anyhow::Result<Input> {
    Ok(if let Some(f) = &args.facelets {
        Input::Facelets(f.clone())
    } else if let Some(s) = &args.scramble {
        Input::Scramble(s.clone())
    } else if let Some(t) = &args.testset {
        Input::TestSet(t.clone())
    } else if let Some(b) = &args.board {
        Input::Board(b.clone())
    } else {
        match args.random {
            Some(0) => anyhow::bail!("--random 0: give at least one instance"),
            Some(n) => Input::Random { n, seed: args.seed },
            None => anyhow::bail!("give one of --facelets, --scramble, --board, --testset or --random"),
        }
    })
}

fn run_oracle(
    args: &Args,
    input: Input,
    puzzle: Option<PuzzleKind>,
    metric: Option<Metric>,
) -> anyhow::Result<PathBuf> {
    if args.goal.is_some() {
        anyhow::bail!(
            "--goal applies to classical methods; a trained oracle solves for the goal of its run (puzzle.goal in its config.toml)"
        );
    }
    for (given, flag) in
        [(args.max_generated.is_some(), "--max-generated"), (args.max_time_s.is_some(), "--max-time-s")]
    {
        if given {
            anyhow::bail!("{flag} applies to classical methods; oracle beam search is bounded by --max-depth");
        }
    }
    let widths = widths::parse(args.beam_width, args.beam_log2.as_deref())?;
    let single = input.is_single();
    // With no width given, one instance is retried at doubled widths up to 2^14.
    let escalate_to = if single && args.beam_width.is_none() && args.beam_log2.is_none() { 1 << 14 } else { 0 };
    let opts = SolveOptions {
        run_dir: args.run.clone().unwrap_or_else(default_run),
        checkpoint: args.checkpoint.clone(),
        puzzle,
        input,
        widths,
        exact: args.exact,
        max_depth: args.max_depth,
        dedup: !args.no_dedup,
        metric,
        out_root: args.out.clone(),
        label: args.label.clone(),
        overwrite: args.overwrite,
        progress: !single && std::io::stderr().is_terminal(),
        escalate_to,
        jobs: args.jobs.get(),
        device: args.device.as_deref().map(|d| if d == "gpu" { DeviceKind::Gpu } else { DeviceKind::Cpu }),
    };
    Ok(solve::run(&opts)?)
}

fn run_classical(
    args: &Args,
    input: Input,
    method: Method,
    puzzle: PuzzleKind,
    metric: Option<Metric>,
) -> anyhow::Result<PathBuf> {
    for (given, flag) in [
        (args.run.is_some(), "--run"),
        (args.checkpoint.is_some(), "--checkpoint"),
        (args.no_dedup, "--no-dedup"),
        (args.device.is_some(), "--device"),
        (args.exact, "--exact"),
    ] {
        if given {
            anyhow::bail!("{flag} applies to beam search with a trained oracle (--method beam, no --heuristic)");
        }
    }
    let width = if method == Method::Beam {
        let w = widths::parse(args.beam_width, args.beam_log2.as_deref())?;
        if w.len() != 1 {
            anyhow::bail!("heuristic beam search takes one width; give --beam-width W or --beam-log2 K");
        }
        w[0]
    } else {
        if args.beam_width.is_some() || args.beam_log2.is_some() {
            anyhow::bail!("--beam-width / --beam-log2 apply to --method beam only");
        }
        0
    };
    let max_time = match args.max_time_s {
        None => Duration::MAX,
        Some(t) if t.is_finite() && t > 0.0 => Duration::from_secs_f64(t),
        Some(t) => anyhow::bail!("--max-time-s {t}: expected a positive number of seconds"),
    };
    let single = input.is_single();
    let opts = ClassicalOptions {
        method,
        puzzle,
        heuristic: args.heuristic.clone(),
        goal: args.goal.clone(),
        metric: metric.unwrap_or(Metric::Qtm),
        input,
        limits: Limits { max_generated: args.max_generated.unwrap_or(u64::MAX), max_time },
        max_depth: u32::try_from(args.max_depth.unwrap_or(200)).unwrap_or(u32::MAX),
        width,
        out_root: args.out.clone().unwrap_or_else(|| PathBuf::from(CLASSICAL_OUT)),
        jobs: args.jobs.get(),
        label: args.label.clone(),
        overwrite: args.overwrite,
        progress: !single && std::io::stderr().is_terminal(),
    };
    Ok(classical::run(&opts)?)
}
