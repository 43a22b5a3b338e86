//! `solve …`: solve instances of a trained run's puzzle (the cube or a
//! sliding puzzle) by beam search with its oracle (the default method), or
//! cubes and sliding puzzles with a classical search
//! (`--method astar|idastar|rbfs|ids|bfs|greedy|ucs`, or `beam` with a
//! `--heuristic`).
//!
//! Local search runs on `--puzzle queens<N>` or `function-<name>`
//! (`--method hill-climbing|first-choice|annealing`, `--runs N`).
//! `--method parberry` runs Parberry's real-time algorithm on
//! `--puzzle puzzle<N>` boards of any width up to 256
//! (`cube_oracle::solve::parberry::run`).
//!
//! Thin entry point: parse arguments and dispatch to
//! `cube_oracle::solve::run`, `cube_oracle::solve::classical::run` or
//! `cube_oracle::solve::local::run`. Errors
//! are printed with their causes and give exit status 1.
//!
//! [`check_request`] is the one place where the numeric bounds of the
//! flags (`cube_oracle::solve::bounds`) are checked and where a flag the
//! chosen mode would silently ignore is refused.

use anyhow::Context;
use clap::{ArgGroup, Parser};
use cube_oracle::cube3::{Metric, symmetry};
use cube_oracle::learn::config::DeviceKind;
use cube_oracle::local::{LocalConfig, LocalMethod, ProblemKind};
use cube_oracle::registry::PuzzleKind;
use cube_oracle::search::Limits;
use cube_oracle::search::OracleKind;
use cube_oracle::solve::classical::{self, ClassicalOptions, Method};
use cube_oracle::solve::distances::{self, TableOptions};
use cube_oracle::solve::input::Input;
use cube_oracle::solve::local::{self as local_search, LocalOptions};
use cube_oracle::solve::parberry::{self, ParberryOptions};
use cube_oracle::solve::{self, SolveOptions, bounds, widths};
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
#[command(group(ArgGroup::new("input").required(true).args(["facelets", "scramble", "testset", "random", "board", "distance_table", "runs"])))]
struct Args {
    /// The trained run directory (its config.toml and newest checkpoint);
    /// default: the shipped oracle, runs/cube3-q-long.
    #[arg(long)]
    run: Option<PathBuf>,
    /// Search method: beam (default), astar, idastar, rbfs, ids, bfs, greedy, ucs; local search: hill-climbing, first-choice, annealing; parberry (sliding puzzles of any width up to 256).
    #[arg(long)]
    method: Option<String>,
    /// Puzzle: cube3 (the default for classical methods), cube2, puzzle8, puzzle15, puzzle24; with an oracle, the run's puzzle; local search: queens<N>, function-quadratic, function-comb, function-shoulder.
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
    /// Classical methods: stop an instance after this many seconds (more than 0, at most 10000000, about 116 days).
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
    /// A built-in test set (deepcubea, deepcubea-100, deepcubea-10; korf100, korf100-10, deepcubea15, deepcubea15-100, deepcubea15-10, korf50, korf50-10, deepcubea24) or a TSV file (at most 256000000 bytes and 1000000 instances).
    #[arg(long)]
    testset: Option<String>,
    /// N random instances, 1 to 1000000 (cube3: 100-move random walks; cube2: uniform; boards: uniform among the solvable ones).
    #[arg(long, value_name = "N")]
    random: Option<u64>,
    /// Seed for --random (local search: seed of the first of --runs); default 0. Refused with --board, --facelets, --scramble, --testset and --distance-table, which draw nothing.
    #[arg(long)]
    seed: Option<u64>,
    /// Beam width.
    #[arg(long)]
    beam_width: Option<usize>,
    /// Beam width as a power of two, or a sweep `A..B` (inclusive).
    #[arg(long)]
    beam_log2: Option<String>,
    /// Depth limit of every method: no longer path is searched, deeper instances are reported unsolved (default: with an oracle, 40 on the cube and twice the run's longest training walk otherwise; 200 for idastar, rbfs, ids, bfs and heuristic beam; none for astar, greedy and ucs; Korf's solver, idastar with pdb on cube3, always searches to God's number).
    #[arg(long)]
    max_depth: Option<usize>,
    /// Keep duplicate states in the beam (EfficientCube's variant).
    #[arg(long)]
    no_dedup: bool,
    /// Cube metric (qtm or htm): the one the model must have been trained in, or the move set of classical methods on the cubes; refused for sliding puzzles.
    #[arg(long)]
    metric: Option<String>,
    /// Output folder name, under --out.
    #[arg(long)]
    label: Option<String>,
    /// Instances searched at once (default 1): classical searches use one thread each; beam search gives each worker its own copy of the network. At most 4 per core of the machine (at least 8 are always allowed); never more workers than instances are started.
    #[arg(long)]
    jobs: Option<NonZeroUsize>,
    /// Parent folder of the output folder (default: <run>/solve with an oracle, runs/classical otherwise).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Replace an existing output folder of the same label.
    #[arg(long)]
    overwrite: bool,
    /// Beam search: evaluate the oracle on `cpu` (default) or `gpu` (a build with --features gpu).
    #[arg(long, value_parser = ["cpu", "gpu"])]
    device: Option<String>,
    /// Oracle beam search on cube3 runs: average the network over K of the cube's symmetries (1 = off, 2, 4, 8, 16, 24, 48; K forwards per state; docs/symmetry.md).
    #[arg(long, value_name = "K")]
    symmetry: Option<String>,
    /// Oracle beam search: the oracle kind you expect the run to be (policy, q-distance, value); a run of another kind is refused. The search always follows the run's model.kind.
    #[arg(long)]
    kind: Option<String>,
    /// Local search (--puzzle queens<N> or function-<name>): this many seeded runs (1 to 1000000), run i from seed --seed + i.
    #[arg(long, value_name = "N")]
    runs: Option<u64>,
    /// Hill climbing: most consecutive sideways moves (to an equal neighbour) per climb (default 0).
    #[arg(long)]
    max_sideways: Option<u64>,
    /// Local search: random restarts after a failed climb (default 0).
    #[arg(long)]
    max_restarts: Option<u64>,
    /// Local search: steps per climb (annealing: default 10000; hill climbing: no limit).
    #[arg(long)]
    max_steps: Option<u64>,
    /// Annealing: start temperature T0 (default 2).
    #[arg(long)]
    temperature: Option<f64>,
    /// Annealing: geometric cooling factor per step, T = T0 * cooling^t (default 0.999).
    #[arg(long)]
    cooling: Option<f64>,
}

/// The oracle `solve` uses without `--run`: the best shipped one (reference
/// v2 of issue #13, a Q-distance oracle; see runs/README.md).
const DEFAULT_RUN: &str = "runs/cube3-q-long";

/// Where classical results go without `--out`.
const CLASSICAL_OUT: &str = "runs/classical";

/// The shipped default oracle: `runs/cube3-q-long` in the working directory,
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
        Some(other) => anyhow::bail!("--metric {}: expected qtm or htm", bounds::shorten(other)),
    })
}

/// What `solve` was asked to do, decided from `--puzzle`, `--method`,
/// `--heuristic` and `--distance-table`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Local search on `--puzzle queens<N>` or `function-<name>`.
    Local,
    /// `--method parberry`.
    Parberry,
    /// `--distance-table`.
    Table,
    /// Beam search with a trained oracle.
    Oracle,
    /// A classical method.
    Classical(Method),
}

/// The method name given, or the default `beam`.
fn method_name(args: &Args) -> &str {
    args.method.as_deref().unwrap_or("beam")
}

/// The mode of the request (an unknown method name is refused here).
fn mode(args: &Args) -> anyhow::Result<Mode> {
    if args.puzzle.as_deref().is_some_and(ProblemKind::claims) {
        return Ok(Mode::Local);
    }
    if parberry::is_method(method_name(args)) {
        return Ok(Mode::Parberry);
    }
    let method: Method = method_name(args).parse()?;
    Ok(if args.distance_table {
        Mode::Table
    } else if method == Method::Beam && args.heuristic.is_none() {
        Mode::Oracle
    } else {
        Mode::Classical(method)
    })
}

/// The one place where the numeric bounds of the flags are checked and
/// where a flag that `mode` would ignore is refused, each with one line
/// naming the flag and why. (Flags of another mode altogether are refused
/// where that mode starts: [`run_local`], [`run_parberry`], [`run_oracle`]
/// and [`run_classical`].)
fn check_request(args: &Args, mode: Mode) -> anyhow::Result<()> {
    if mode != Mode::Local
        && let Some(flag) = local_flag(args)
    {
        anyhow::bail!("{flag} applies to local search (--puzzle queens<N> or function-<name>)");
    }
    if let Some(jobs) = args.jobs {
        bounds::jobs(jobs.get())?;
    }
    // `--random`, `--runs` and `--max-time-s` are checked where they are
    // read (`Input::random`, `solve::local::run`, `run_classical`).
    if args.seed.is_some() && args.random.is_none() && mode != Mode::Local {
        let given = first_given(&[
            (args.board.is_some(), "--board"),
            (args.facelets.is_some(), "--facelets"),
            (args.scramble.is_some(), "--scramble"),
            (args.testset.is_some(), "--testset"),
            (args.distance_table, "--distance-table"),
        ]);
        if let Some(input) = given {
            anyhow::bail!("--seed applies to --random (and local search's --runs); {input} draws nothing at random");
        }
    }
    if args.metric.is_some()
        && matches!(mode, Mode::Classical(_) | Mode::Table)
        && let Some(Ok(PuzzleKind::Sliding(n))) = args.puzzle.as_deref().map(str::parse::<PuzzleKind>)
    {
        anyhow::bail!(
            "--metric applies to the cubes (cube3, cube2); puzzle{} has one move set (the blank's four moves)",
            n * n - 1
        );
    }
    if mode == Mode::Table {
        let mut ignored = search_flags(args);
        ignored.retain(|&(_, flag)| !matches!(flag, "--distance-table" | "--max-depth" | "--metric"));
        ignored.extend([(args.method.is_some(), "--method"), (args.jobs.is_some_and(|j| j.get() != 1), "--jobs")]);
        if let Some(flag) = first_given(&ignored) {
            anyhow::bail!(
                "{flag} does not apply to --distance-table (a breadth-first search from the goal of --puzzle; \
                 it takes --goal, --metric, --max-depth and the output flags)"
            );
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let args = match Args::try_parse() {
        Ok(args) => args,
        // Help and version are printed as they are; clap's own errors (exit
        // status 2) with any long value the user typed shortened.
        Err(e) if !e.use_stderr() => e.exit(),
        Err(e) => {
            eprint!("{}", shorten_quoted(&e.render().to_string(), &['\'', '`', '"']));
            return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
        }
    };
    let result = (|| {
        let mode = mode(&args)?;
        check_request(&args, mode)?;
        let puzzle = || -> anyhow::Result<Option<PuzzleKind>> {
            args.puzzle.as_deref().map(str::parse).transpose().context("--puzzle")
        };
        match mode {
            Mode::Local => run_local(&args),
            Mode::Parberry => run_parberry(&args),
            Mode::Table => {
                let opts = TableOptions {
                    puzzle: puzzle()?.unwrap_or(PuzzleKind::Cube3),
                    goal: args.goal.clone(),
                    metric: parse_metric(args.metric.as_deref())?.unwrap_or(Metric::Qtm),
                    max_depth: args.max_depth.map(|d| u32::try_from(d).unwrap_or(u32::MAX)),
                    out_root: args.out.clone().unwrap_or_else(|| PathBuf::from(CLASSICAL_OUT)),
                    label: args.label.clone(),
                    overwrite: args.overwrite,
                };
                Ok(distances::run(&opts)?.0)
            }
            Mode::Oracle => {
                let (puzzle, metric) = (puzzle()?, parse_metric(args.metric.as_deref())?);
                run_oracle(&args, input(&args)?, puzzle, metric)
            }
            Mode::Classical(method) => {
                let (puzzle, metric) = (puzzle()?, parse_metric(args.metric.as_deref())?);
                run_classical(&args, input(&args)?, method, puzzle.unwrap_or(PuzzleKind::Cube3), metric)
            }
        }
    })();
    match result {
        Ok(dir) => {
            cube_oracle::say!("results in {}", dir.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {}", one_line(&e));
            ExitCode::FAILURE
        }
    }
}

/// An error as one line, outermost context first: each cause joined with
/// `: ` unless the text so far already ends with it (a message that
/// includes its cause), line breaks folded into spaces.
fn one_line(e: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if line.ends_with(&text) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&text);
    }
    let line = line.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" ");
    // Values the layers below quote in full are shortened here.
    shorten_quoted(&line, &['`', '"'])
}

/// `text` with every segment between a pair of the same quote character
/// (of `quotes`) that is longer than twice [`bounds::SHOWN_CHARS`]
/// characters shortened by [`bounds::shorten`] (a value shortened already
/// is shorter than that, and keeps its length).
fn shorten_quoted(text: &str, quotes: &[char]) -> String {
    let mut out = String::with_capacity(text.len().min(4096));
    let mut rest = text;
    while let Some(i) = rest.find(quotes) {
        let q = rest[i..].chars().next().unwrap_or('`');
        out.push_str(&rest[..i + q.len_utf8()]);
        rest = &rest[i + q.len_utf8()..];
        if let Some(j) = rest.find(q) {
            let inner = &rest[..j];
            if inner.chars().count() > 2 * bounds::SHOWN_CHARS {
                out.push_str(&bounds::shorten(inner));
            } else {
                out.push_str(inner);
            }
            out.push(q);
            rest = &rest[j + q.len_utf8()..];
        }
    }
    out.push_str(rest);
    out
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
            Some(n) => Input::random(n, args.seed.unwrap_or(0))?,
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
    let symmetry = args.symmetry.as_deref().map(symmetry::parse_count).transpose().context("--symmetry")?.unwrap_or(1);
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
        jobs: jobs(args),
        device: args.device.as_deref().map(|d| if d == "gpu" { DeviceKind::Gpu } else { DeviceKind::Cpu }),
        symmetry,
        kind: args
            .kind
            .as_deref()
            .map(str::parse::<OracleKind>)
            .transpose()
            .map_err(|e| anyhow::anyhow!("--kind: {e}"))?,
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
        (args.symmetry.is_some(), "--symmetry"),
        (args.kind.is_some(), "--kind"),
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
    let max_time = args.max_time_s.map(bounds::max_time).transpose()?.unwrap_or(Duration::MAX);
    let single = input.is_single();
    let opts = ClassicalOptions {
        method,
        puzzle,
        heuristic: args.heuristic.clone(),
        goal: args.goal.clone(),
        metric: metric.unwrap_or(Metric::Qtm),
        input,
        limits: Limits { max_generated: args.max_generated.unwrap_or(u64::MAX), max_time },
        max_depth: args.max_depth.map(|d| u32::try_from(d).unwrap_or(u32::MAX)),
        width,
        out_root: args.out.clone().unwrap_or_else(|| PathBuf::from(CLASSICAL_OUT)),
        jobs: jobs(args),
        label: args.label.clone(),
        overwrite: args.overwrite,
        progress: !single && std::io::stderr().is_terminal(),
    };
    Ok(classical::run(&opts)?)
}

/// `--jobs`, 1 when not given.
fn jobs(args: &Args) -> usize {
    args.jobs.map_or(1, NonZeroUsize::get)
}

/// The first flag of local search given, if any (refused elsewhere).
fn local_flag(args: &Args) -> Option<&'static str> {
    first_given(&[
        (args.runs.is_some(), "--runs"),
        (args.max_sideways.is_some(), "--max-sideways"),
        (args.max_restarts.is_some(), "--max-restarts"),
        (args.max_steps.is_some(), "--max-steps"),
        (args.temperature.is_some(), "--temperature"),
        (args.cooling.is_some(), "--cooling"),
    ])
}

/// The flags of oracle and classical search, with whether each was given:
/// neither local search nor Parberry's algorithm takes any of them.
fn search_flags(args: &Args) -> Vec<(bool, &'static str)> {
    vec![
        (args.run.is_some(), "--run"),
        (args.checkpoint.is_some(), "--checkpoint"),
        (args.heuristic.is_some(), "--heuristic"),
        (args.exact, "--exact"),
        (args.distance_table, "--distance-table"),
        (args.max_generated.is_some(), "--max-generated"),
        (args.max_time_s.is_some(), "--max-time-s"),
        (args.beam_width.is_some(), "--beam-width"),
        (args.beam_log2.is_some(), "--beam-log2"),
        (args.max_depth.is_some(), "--max-depth"),
        (args.no_dedup, "--no-dedup"),
        (args.metric.is_some(), "--metric"),
        (args.device.is_some(), "--device"),
        (args.symmetry.is_some(), "--symmetry"),
        (args.kind.is_some(), "--kind"),
    ]
}

/// The first flag of `flags` that was given.
fn first_given(flags: &[(bool, &'static str)]) -> Option<&'static str> {
    flags.iter().find_map(|&(given, flag)| given.then_some(flag))
}

/// `--puzzle queens<N>` or `function-<name>`: seeded local-search runs.
fn run_local(args: &Args) -> anyhow::Result<PathBuf> {
    let problem: ProblemKind = args.puzzle.as_deref().unwrap_or_default().parse().context("--puzzle")?;
    let mut misplaced = search_flags(args);
    misplaced.extend([
        (args.goal.is_some(), "--goal"),
        (args.board.is_some(), "--board"),
        (args.facelets.is_some(), "--facelets"),
        (args.scramble.is_some(), "--scramble"),
        (args.testset.is_some(), "--testset"),
        (args.random.is_some(), "--random"),
        (args.jobs.is_some_and(|j| j.get() != 1), "--jobs"),
    ]);
    if let Some(flag) = first_given(&misplaced) {
        anyhow::bail!(
            "{flag} does not apply to local search on {problem} (it takes --runs, --seed, --method and the limits)"
        );
    }
    let method: LocalMethod = method_name(args).parse().with_context(|| match &args.method {
        None => "--method beam (the default)".to_string(),
        Some(m) => format!("--method {}", bounds::shorten(m)),
    })?;
    let annealing = method == LocalMethod::Annealing;
    for (given, flag, applies) in [
        (args.max_sideways.is_some() && annealing, "--max-sideways", "hill-climbing and first-choice"),
        (args.temperature.is_some() && !annealing, "--temperature", "annealing"),
        (args.cooling.is_some() && !annealing, "--cooling", "annealing"),
    ] {
        if given {
            anyhow::bail!("{flag} applies to --method {applies} only");
        }
    }
    let mut config = LocalConfig::new(method);
    config.max_sideways = args.max_sideways.unwrap_or(0);
    config.max_restarts = args.max_restarts.unwrap_or(0);
    config.max_steps = args.max_steps.unwrap_or(config.max_steps);
    config.schedule.temperature = args.temperature.unwrap_or(config.schedule.temperature);
    config.schedule.cooling = args.cooling.unwrap_or(config.schedule.cooling);
    let opts = LocalOptions {
        problem,
        config,
        runs: args.runs.unwrap_or(1),
        seed: args.seed.unwrap_or(0),
        out_root: args.out.clone().unwrap_or_else(|| PathBuf::from(CLASSICAL_OUT)),
        label: args.label.clone(),
        overwrite: args.overwrite,
    };
    Ok(local_search::run(&opts)?.0)
}

/// `--method parberry`: Parberry's real-time algorithm on `--puzzle
/// puzzle<N>` boards of any width up to 256.
fn run_parberry(args: &Args) -> anyhow::Result<PathBuf> {
    if let Some(flag) = first_given(&search_flags(args)) {
        anyhow::bail!(
            "{flag} does not apply to --method parberry (it takes --puzzle, --goal, --board, --random, --testset)"
        );
    }
    let input = input(args)?;
    let opts = ParberryOptions {
        puzzle: args.puzzle.clone(),
        goal: args.goal.clone(),
        progress: !input.is_single() && std::io::stderr().is_terminal(),
        input,
        out_root: args.out.clone().unwrap_or_else(|| PathBuf::from(CLASSICAL_OUT)),
        label: args.label.clone(),
        overwrite: args.overwrite,
        jobs: jobs(args),
    };
    Ok(parberry::run(&opts)?)
}
