//! `solve [MODE] …`: one subcommand per mode, each taking only the flags
//! that act in it (clap refuses every other flag):
//!
//! - `beam` (the default when no mode is named): beam search with a trained
//!   run's oracle (`cube_oracle::solve::run`);
//! - `exact`: the exact-truth report of a run on a puzzle small enough to
//!   enumerate (cube2, puzzle8);
//! - `classical <METHOD>`: A*, IDA*, RBFS, IDS, BFS, greedy, uniform-cost
//!   or heuristic beam search (`cube_oracle::solve::classical::run`);
//! - `parberry`: Parberry's real-time algorithm on sliding boards of any
//!   width up to 256;
//! - `local <METHOD>`: seeded local-search trials on n-queens and the test
//!   functions;
//! - `distances`: the distance distribution of a puzzle by BFS from its goal;
//! - `replot`: the plots of finished oracle sweeps, redrawn from their tables.
//!
//! Thin entry point: the arguments are parsed once into [`Cli`], resolved
//! into one library request in [`main`]'s single `match`, and run. Errors
//! are printed on one line with their causes and give exit status 1.

use anyhow::Context;
use clap::{Args, Parser, Subcommand, ValueEnum};
use cube_oracle::cube3::{Metric, symmetry};
use cube_oracle::folder;
use cube_oracle::learn::config::{DeviceKind, Matmul};
use cube_oracle::local::{LocalConfig, LocalMethod, ProblemKind};
use cube_oracle::registry::PuzzleKind;
use cube_oracle::search::{Limits, OracleKind};
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
    about = "Solve puzzles: beam search with a trained oracle (the default mode), or a classical, \
             local or real-time search",
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
struct Cli {
    #[command(subcommand)]
    mode: Option<Mode>,
    /// Without a mode: the flags of `solve beam`.
    #[command(flatten)]
    beam: BeamArgs,
}

/// The modes of `solve`.
#[derive(Subcommand, Debug)]
enum Mode {
    /// Beam search with a trained oracle (the default mode).
    Beam(BeamArgs),
    /// A run's oracle against exact distances at every position of cube2 or
    /// puzzle8, and beam search on uniform positions of known optimal length.
    Exact(ExactArgs),
    /// Classical search on the cubes and sliding puzzles.
    Classical {
        #[command(subcommand)]
        method: ClassicalMethod,
    },
    /// Parberry's real-time algorithm on sliding boards (widths 2 to 256).
    Parberry(ParberryArgs),
    /// Seeded local-search trials on n-queens and test functions.
    Local {
        #[command(subcommand)]
        method: LocalCmd,
    },
    /// The distance distribution of a puzzle, by BFS from its goal.
    Distances(DistanceArgs),
    /// Redraw the plots of finished oracle sweeps from their tables.
    Replot(ReplotArgs),
}

/// `solve replot`.
#[derive(Args, Debug)]
struct ReplotArgs {
    /// Finished oracle-sweep folders (`runs/<run>/solve/<label>`), each
    /// redrawn into its `plots/`.
    #[arg(required = true, value_name = "FOLDER")]
    folders: Vec<PathBuf>,
}

/// The classical methods.
#[derive(Subcommand, Debug)]
enum ClassicalMethod {
    /// A* with reopening (optimal with an admissible heuristic).
    Astar(Informed),
    /// IDA* (optimal with an admissible heuristic).
    Idastar(Informed),
    /// Recursive best-first search (optimal with an admissible heuristic).
    Rbfs(Informed),
    /// Greedy best-first search (f = h).
    Greedy(Informed),
    /// Beam search ranked by a heuristic.
    Beam(HeuristicBeam),
    /// Depth-first iterative deepening.
    Ids(ClassicalArgs),
    /// Breadth-first search.
    Bfs(ClassicalArgs),
    /// Uniform-cost search.
    Ucs(ClassicalArgs),
}

/// The local-search methods.
#[derive(Subcommand, Debug)]
enum LocalCmd {
    /// Steepest-ascent hill climbing.
    HillClimbing(Climb),
    /// First-choice hill climbing.
    FirstChoice(Climb),
    /// Simulated annealing.
    Annealing(Anneal),
}

/// Where results go.
#[derive(Args, Debug)]
struct OutputArgs {
    /// Parent folder of the output folder (default: <run>/solve with an
    /// oracle, runs/classical otherwise).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Output folder name, under --out.
    #[arg(long)]
    label: Option<String>,
    /// Replace an existing output folder of the same label.
    #[arg(long)]
    overwrite: bool,
}

/// The instances: exactly one source.
#[derive(Args, Debug)]
#[group(id = "instances", required = true, multiple = false)]
struct Instances {
    /// One cube as a URFDLB facelet string (54 letters; cube2: 24).
    #[arg(long)]
    facelets: Option<String>,
    /// One cube as moves from solved, e.g. "R U R' U'" (cube2: U, R, F).
    #[arg(long)]
    scramble: Option<String>,
    /// One sliding board, e.g. "2 3 0 / 1 8 6 / 5 7 4".
    #[arg(long, allow_hyphen_values = true)]
    board: Option<String>,
    /// A built-in test set (deepcubea, deepcubea-100, deepcubea-10, korf100,
    /// deepcubea15, korf50, deepcubea24, …) or a TSV file (at most 256000000
    /// bytes and 1000000 instances).
    #[arg(long)]
    testset: Option<String>,
    /// N random instances, 1 to 1000000.
    #[arg(long, value_name = "N")]
    random: Option<u64>,
}

/// Sliding-board instances: exactly one source.
#[derive(Args, Debug)]
#[group(id = "instances", required = true, multiple = false)]
struct Boards {
    /// One board, e.g. "2 3 0 / 1 8 6 / 5 7 4" (any width 2 to 256).
    #[arg(long, allow_hyphen_values = true)]
    board: Option<String>,
    /// A built-in sliding test set (korf100, deepcubea15, …) or a TSV file
    /// (at most 256000000 bytes and 1000000 instances).
    #[arg(long)]
    testset: Option<String>,
    /// N random solvable boards, 1 to 1000000.
    #[arg(long, value_name = "N")]
    random: Option<u64>,
}

/// Beam widths.
#[derive(Args, Debug)]
struct Widths {
    /// Beam width.
    #[arg(long, conflicts_with = "beam_log2")]
    beam_width: Option<usize>,
    /// Beam width as a power of two, or an inclusive sweep `A..B`.
    #[arg(long, value_name = "K|A..B")]
    beam_log2: Option<String>,
}

/// The trained oracle and how it searches.
#[derive(Args, Debug)]
struct OracleArgs {
    /// The trained run directory (default: the shipped runs/cube3-q-long).
    #[arg(long)]
    run: Option<PathBuf>,
    /// Use this checkpoint instead of the run's newest.
    #[arg(long)]
    checkpoint: Option<PathBuf>,
    /// The oracle kind you expect the run to be; a run of another kind is refused.
    #[arg(long, value_enum)]
    kind: Option<OracleKind>,
    /// Evaluate the network on the CPU or (a build with --features gpu) the GPU.
    #[arg(long, value_enum, default_value_t = DeviceKind::Cpu)]
    device: DeviceKind,
    /// The hidden layers' products on the CPU: f32; bf16 operands with f32 sums (on AVX512-BF16 or AMX where the CPU has either, else rounded operands at f32 speed), as `backend.matmul` in training; or int8 (8-bit weights, 7-bit activations, exact integer sums; about twice the f32 rate on AVX2).
    #[arg(long, value_enum, default_value_t = Matmul::F32)]
    matmul: Matmul,
    #[command(flatten)]
    widths: Widths,
    /// Depth limit, 1 to 2000 (default: 40 on the cubes, twice the run's
    /// longest training walk on sliding puzzles).
    #[arg(long)]
    max_depth: Option<usize>,
    /// Keep duplicate states in the beam (EfficientCube's variant).
    #[arg(long)]
    no_dedup: bool,
    /// Instances searched at once, each worker with its own network copy. At most 4 per core of the machine (at least 8 are always allowed).
    #[arg(long, default_value = "1")]
    jobs: NonZeroUsize,
}

/// `solve beam`.
#[derive(Args, Debug)]
struct BeamArgs {
    #[command(flatten)]
    oracle: OracleArgs,
    #[command(flatten)]
    instances: Instances,
    /// Seed of --random.
    #[arg(long)]
    seed: Option<u64>,
    /// The puzzle you expect the run to solve; a run of another is refused.
    #[arg(long, value_parser = puzzle_kind)]
    puzzle: Option<PuzzleKind>,
    /// The cube metric you expect the run to be trained in; lengths are
    /// also reported in the other one.
    #[arg(long, value_enum)]
    metric: Option<Metric>,
    /// Cube runs: average the network over K of the cube's symmetries (K forwards per state).
    #[arg(long, value_name = "K", value_parser = ["1", "2", "4", "8", "16", "24", "48"], default_value = "1")]
    symmetry: String,
    #[command(flatten)]
    output: OutputArgs,
}

/// `solve exact`.
#[derive(Args, Debug)]
struct ExactArgs {
    #[command(flatten)]
    oracle: OracleArgs,
    /// Uniform positions searched, 1 to 1000000.
    #[arg(long, value_name = "N", required = true)]
    random: u64,
    /// Seed of the sample.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    #[command(flatten)]
    output: OutputArgs,
}

/// What every classical method takes.
#[derive(Args, Debug)]
struct ClassicalArgs {
    /// The puzzle: cube3, cube2, or puzzle<N> (puzzle8, puzzle15, puzzle24, …).
    #[arg(long, value_parser = puzzle_kind, default_value = "cube3")]
    puzzle: PuzzleKind,
    /// Cube move set (the cubes only).
    #[arg(long, value_enum)]
    metric: Option<Metric>,
    /// Sliding goal: blank-last (default), blank-first, snail, or tiles "1 2 3 / 4 5 6 / 7 8 0".
    #[arg(long, allow_hyphen_values = true)]
    goal: Option<String>,
    #[command(flatten)]
    instances: Instances,
    /// Seed of --random.
    #[arg(long)]
    seed: Option<u64>,
    /// Stop an instance after generating this many nodes (at least 1).
    #[arg(long)]
    max_generated: Option<u64>,
    /// Stop an instance after this many seconds (at most 10000000).
    #[arg(long, allow_negative_numbers = true)]
    max_time_s: Option<f64>,
    /// Depth limit, 1 to 10000 (default: none for astar, greedy and ucs; 200 otherwise).
    #[arg(long)]
    max_depth: Option<usize>,
    /// Instances searched at once, one thread each. At most 4 per core of the machine (at least 8 are always allowed).
    #[arg(long, default_value = "1")]
    jobs: NonZeroUsize,
    #[command(flatten)]
    output: OutputArgs,
}

/// A classical method with a heuristic.
#[derive(Args, Debug)]
struct Informed {
    #[command(flatten)]
    common: ClassicalArgs,
    /// Heuristic: manhattan, linear-conflict, pdb-7-8, max(a,b), …; cube3: pdb; cube2: bfs-table.
    #[arg(long)]
    heuristic: Option<String>,
}

/// Heuristic beam search.
#[derive(Args, Debug)]
struct HeuristicBeam {
    #[command(flatten)]
    informed: Informed,
    /// Beam width.
    #[arg(long, conflicts_with = "beam_log2")]
    beam_width: Option<usize>,
    /// Beam width as a power of two.
    #[arg(long, value_name = "K")]
    beam_log2: Option<String>,
}

/// `solve parberry`.
#[derive(Args, Debug)]
struct ParberryArgs {
    /// The puzzle, puzzle<N> (any width 2 to 256); may be left out with --board.
    #[arg(long)]
    puzzle: Option<String>,
    /// Goal (default: blank-last; a built-in set brings its own).
    #[arg(long, value_enum)]
    goal: Option<ParberryGoal>,
    #[command(flatten)]
    boards: Boards,
    /// Seed of --random.
    #[arg(long)]
    seed: Option<u64>,
    /// Boards solved at once, one thread each. At most 4 per core of the machine (at least 8 are always allowed).
    #[arg(long, default_value = "1")]
    jobs: NonZeroUsize,
    #[command(flatten)]
    output: OutputArgs,
}

/// What every local-search method takes.
#[derive(Args, Debug)]
struct LocalArgs {
    /// The problem: queens<N>, function-quadratic, function-comb or function-shoulder.
    #[arg(long, required = true)]
    problem: String,
    /// Seeded trials, 1 to 1000000; trial i starts from seed --seed + i.
    #[arg(long, value_name = "N", default_value_t = 1)]
    trials: u64,
    /// Seed of the first trial.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Random restarts after a failed climb, at most 1000000.
    #[arg(long, default_value_t = 0)]
    max_restarts: u64,
    /// Steps per climb, 1 to 1000000000 (default: annealing 10000, hill climbing 1000000).
    #[arg(long)]
    max_steps: Option<u64>,
    #[command(flatten)]
    output: OutputArgs,
}

/// Hill climbing (steepest ascent or first choice).
#[derive(Args, Debug)]
struct Climb {
    #[command(flatten)]
    common: LocalArgs,
    /// Most consecutive sideways moves (to an equal neighbour) per climb, at most 1000000000.
    #[arg(long, default_value_t = 0)]
    max_sideways: u64,
}

/// Simulated annealing.
#[derive(Args, Debug)]
struct Anneal {
    #[command(flatten)]
    common: LocalArgs,
    /// Start temperature T0.
    #[arg(long, default_value_t = 2.0)]
    temperature: f64,
    /// Geometric cooling factor per step, T = T0 * cooling^t.
    #[arg(long, default_value_t = 0.999)]
    cooling: f64,
}

/// `solve distances`.
#[derive(Args, Debug)]
struct DistanceArgs {
    /// The puzzle: cube3, cube2, or puzzle<N>.
    #[arg(long, value_parser = puzzle_kind, default_value = "cube3")]
    puzzle: PuzzleKind,
    /// Sliding goal: blank-last (default), blank-first, snail, or tiles.
    #[arg(long, allow_hyphen_values = true)]
    goal: Option<String>,
    /// Cube move set (the cubes only).
    #[arg(long, value_enum)]
    metric: Option<Metric>,
    /// Depth bound (needed beyond cube2 and 3×3 boards).
    #[arg(long)]
    max_depth: Option<u32>,
    #[command(flatten)]
    output: OutputArgs,
}

/// `solve parberry --goal`: the two goals Parberry's algorithm solves for.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum ParberryGoal {
    /// Tiles in order, the blank last.
    BlankLast,
    /// The blank first (Korf's sets), solved by turning the board half round.
    BlankFirst,
}

impl ParberryGoal {
    /// The goal's name as `parberry::parse_goal` reads it.
    fn name(self) -> &'static str {
        match self {
            Self::BlankLast => "blank-last",
            Self::BlankFirst => "blank-first",
        }
    }
}

/// `--puzzle`: cube3, cube2 or puzzle<N>.
fn puzzle_kind(text: &str) -> Result<PuzzleKind, String> {
    text.parse().map_err(|e: cube_oracle::registry::UnknownPuzzle| e.to_string())
}

/// Where results without an oracle go without `--out`.
const CLASSICAL_OUT: &str = "runs/classical";

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // Help and version are printed as they are; clap's own errors (exit
        // status 2) with any long value the user typed shortened.
        Err(e) if !e.use_stderr() => e.exit(),
        Err(e) => {
            eprint!("{}", folder::shorten_quoted(&e.render().to_string(), &['\'', '`', '"']));
            return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
        }
    };
    match run(cli) {
        Ok(dir) => {
            cube_oracle::say!("results in {}", dir.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {}", folder::one_line(e.as_ref()));
            ExitCode::FAILURE
        }
    }
}

/// The one place where the parsed mode becomes a library request.
fn run(cli: Cli) -> anyhow::Result<PathBuf> {
    match cli.mode {
        None => beam(cli.beam),
        Some(Mode::Beam(args)) => beam(args),
        Some(Mode::Exact(args)) => exact(args),
        Some(Mode::Classical { method }) => {
            let (method, informed, width) = match method {
                ClassicalMethod::Astar(a) => (Method::AStar, a, None),
                ClassicalMethod::Idastar(a) => (Method::IdaStar, a, None),
                ClassicalMethod::Rbfs(a) => (Method::Rbfs, a, None),
                ClassicalMethod::Greedy(a) => (Method::Greedy, a, None),
                ClassicalMethod::Beam(b) => (Method::Beam, b.informed, Some((b.beam_width, b.beam_log2))),
                ClassicalMethod::Ids(common) => (Method::Ids, Informed { common, heuristic: None }, None),
                ClassicalMethod::Bfs(common) => (Method::Bfs, Informed { common, heuristic: None }, None),
                ClassicalMethod::Ucs(common) => (Method::Ucs, Informed { common, heuristic: None }, None),
            };
            classical_search(method, informed, width)
        }
        Some(Mode::Parberry(args)) => {
            let input = boards(args.boards, args.seed)?;
            let opts = ParberryOptions {
                puzzle: args.puzzle,
                goal: args.goal.map(|g| g.name().to_string()),
                progress: !input.is_single() && std::io::stderr().is_terminal(),
                input,
                out_root: out_or_default(args.output.out),
                label: args.output.label,
                overwrite: args.output.overwrite,
                jobs: jobs(args.jobs)?,
            };
            Ok(parberry::run(&opts)?)
        }
        Some(Mode::Local { method }) => {
            let (method, common, climb, anneal) = match method {
                LocalCmd::HillClimbing(c) => (LocalMethod::HillClimbing, c.common, Some(c.max_sideways), None),
                LocalCmd::FirstChoice(c) => (LocalMethod::FirstChoice, c.common, Some(c.max_sideways), None),
                LocalCmd::Annealing(a) => (LocalMethod::Annealing, a.common, None, Some((a.temperature, a.cooling))),
            };
            let problem: ProblemKind = common.problem.parse().context("--problem")?;
            let mut config = LocalConfig::new(method);
            config.max_sideways = climb.unwrap_or(0);
            config.max_restarts = common.max_restarts;
            config.max_steps = common.max_steps.unwrap_or(config.max_steps);
            if let Some((temperature, cooling)) = anneal {
                config.schedule.temperature = temperature;
                config.schedule.cooling = cooling;
            }
            let opts = LocalOptions {
                problem,
                config,
                trials: common.trials,
                seed: common.seed,
                out_root: out_or_default(common.output.out),
                label: common.output.label,
                overwrite: common.output.overwrite,
            };
            Ok(local_search::run(&opts)?.0)
        }
        Some(Mode::Replot(args)) => {
            let mut last = PathBuf::new();
            for dir in &args.folders {
                last = cube_oracle::solve::figures::replot(dir)?;
                cube_oracle::say!("redrawn: {}", last.display());
            }
            Ok(last)
        }
        Some(Mode::Distances(args)) => {
            let metric = cube_metric(args.metric, args.puzzle)?;
            let opts = TableOptions {
                puzzle: args.puzzle,
                goal: args.goal,
                metric,
                max_depth: args.max_depth,
                out_root: out_or_default(args.output.out),
                label: args.output.label,
                overwrite: args.output.overwrite,
            };
            Ok(distances::run(&opts)?.0)
        }
    }
}

/// `solve beam` (and `solve` with no mode).
fn beam(args: BeamArgs) -> anyhow::Result<PathBuf> {
    let input = instances(args.instances, args.seed)?;
    let symmetry = symmetry::parse_count(&args.symmetry).context("--symmetry")?;
    let widths_given = args.oracle.widths.beam_width.is_some() || args.oracle.widths.beam_log2.is_some();
    let mut opts = oracle_options(args.oracle, input, args.output)?;
    opts.puzzle = args.puzzle;
    opts.metric = args.metric;
    opts.symmetry = symmetry;
    opts.escalate_to = solve::escalation(&opts.input, widths_given);
    run_oracle(&opts)
}

/// `solve exact`.
fn exact(args: ExactArgs) -> anyhow::Result<PathBuf> {
    let input = Input::random(args.random, args.seed)?;
    let mut opts = oracle_options(args.oracle, input, args.output)?;
    opts.exact = true;
    run_oracle(&opts)
}

/// Runs an oracle search (the library says where bf16 products run).
fn run_oracle(opts: &SolveOptions) -> anyhow::Result<PathBuf> {
    Ok(solve::run(opts)?.dir)
}

/// The request of oracle beam search shared by `beam` and `exact`.
fn oracle_options(args: OracleArgs, input: Input, output: OutputArgs) -> anyhow::Result<SolveOptions> {
    let widths = widths::parse(args.widths.beam_width, args.widths.beam_log2.as_deref())?;
    Ok(SolveOptions {
        run_dir: args.run.unwrap_or_else(solve::default_run),
        checkpoint: args.checkpoint,
        puzzle: None,
        progress: !input.is_single() && std::io::stderr().is_terminal(),
        input,
        widths,
        exact: false,
        max_depth: args.max_depth,
        dedup: !args.no_dedup,
        metric: None,
        out_root: output.out,
        label: output.label,
        overwrite: output.overwrite,
        escalate_to: 0,
        jobs: jobs(args.jobs)?,
        device: Some(args.device),
        matmul: args.matmul,
        symmetry: 1,
        kind: args.kind,
    })
}

/// `solve classical <METHOD>`.
fn classical_search(
    method: Method,
    informed: Informed,
    width: Option<(Option<usize>, Option<String>)>,
) -> anyhow::Result<PathBuf> {
    let Informed { common: args, heuristic } = informed;
    let width = match width {
        None => 0,
        Some((w, log2)) => {
            let w = widths::parse(w, log2.as_deref())?;
            anyhow::ensure!(
                w.len() == 1,
                "heuristic beam search takes one width; give --beam-width W or --beam-log2 K"
            );
            w[0]
        }
    };
    let max_time = args.max_time_s.map(bounds::max_time).transpose()?.unwrap_or(Duration::MAX);
    let input = instances(args.instances, args.seed)?;
    let opts = ClassicalOptions {
        method,
        puzzle: args.puzzle,
        heuristic,
        goal: args.goal,
        metric: cube_metric(args.metric, args.puzzle)?,
        progress: !input.is_single() && std::io::stderr().is_terminal(),
        input,
        limits: Limits {
            max_generated: args.max_generated.map(bounds::max_generated).transpose()?.unwrap_or(u64::MAX),
            max_time,
        },
        max_depth: args.max_depth.map(|d| bounds::classical_depth(u64::try_from(d).unwrap_or(u64::MAX))).transpose()?,
        width,
        out_root: out_or_default(args.output.out),
        jobs: jobs(args.jobs)?,
        label: args.output.label,
        overwrite: args.output.overwrite,
    };
    Ok(classical::run(&opts)?)
}

/// `--metric` of a puzzle (default QTM); refused for sliding puzzles,
/// which have one move set.
fn cube_metric(metric: Option<Metric>, puzzle: PuzzleKind) -> anyhow::Result<Metric> {
    if metric.is_some() && !puzzle.has_metric() {
        anyhow::bail!("--metric applies to the cubes (cube3, cube2); {puzzle} has one move set");
    }
    Ok(metric.unwrap_or(Metric::Qtm))
}

/// The instances named by exactly one source (clap lets one through).
fn instances(given: Instances, seed: Option<u64>) -> anyhow::Result<Input> {
    let Instances { facelets, scramble, board, testset, random } = given;
    if seed.is_some() && random.is_none() {
        anyhow::bail!("--seed applies to --random; the instances given are drawn from nothing at random");
    }
    Ok(match (facelets, scramble, board, testset, random) {
        (Some(f), ..) => Input::Facelets(f),
        (_, Some(s), ..) => Input::Scramble(s),
        (_, _, Some(b), ..) => Input::Board(b),
        (_, _, _, Some(t), _) => Input::TestSet(t),
        (_, _, _, _, Some(n)) => Input::random(n, seed.unwrap_or(0))?,
        _ => anyhow::bail!("give one of --facelets, --scramble, --board, --testset or --random"),
    })
}

/// Sliding-board instances (Parberry's algorithm).
fn boards(given: Boards, seed: Option<u64>) -> anyhow::Result<Input> {
    let Boards { board, testset, random } = given;
    instances(Instances { facelets: None, scramble: None, board, testset, random }, seed)
}

/// `--jobs`, within [`bounds::jobs`].
fn jobs(jobs: NonZeroUsize) -> anyhow::Result<usize> {
    bounds::jobs(jobs.get())?;
    Ok(jobs.get())
}

fn out_or_default(out: Option<PathBuf>) -> PathBuf {
    out.unwrap_or_else(|| PathBuf::from(CLASSICAL_OUT))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;
    use clap::error::ErrorKind;
    use std::collections::BTreeSet;

    /// Every mode as its subcommand path (`[]` is `solve` with no mode),
    /// with the command that parses it.
    fn modes() -> Vec<(Vec<String>, clap::Command)> {
        fn walk(path: Vec<String>, cmd: &clap::Command, out: &mut Vec<(Vec<String>, clap::Command)>) {
            // A command with subcommands that also takes flags (the top
            // level) is a mode of its own.
            if !cmd.has_subcommands() || cmd.get_arguments().any(|a| a.get_long().is_some_and(|l| l != "help")) {
                out.push((path.clone(), cmd.clone()));
            }
            for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
                let mut p = path.clone();
                p.push(sub.get_name().to_string());
                walk(p, sub, out);
            }
        }
        let mut out = Vec::new();
        walk(Vec::new(), &Cli::command(), &mut out);
        out
    }

    fn flags(cmd: &clap::Command) -> BTreeSet<String> {
        cmd.get_arguments().filter_map(|a| a.get_long()).map(str::to_string).collect()
    }

    #[test]
    fn every_flag_of_another_mode_is_refused_by_the_parser() {
        let modes = modes();
        // solve, beam, exact, 8 classical methods, parberry, 3 local methods, distances, replot.
        assert_eq!(modes.len(), 17, "{:?}", modes.iter().map(|m| m.0.join(" ")).collect::<Vec<_>>());
        let all: BTreeSet<String> = modes.iter().flat_map(|(_, c)| flags(c)).collect();
        let mut checked = 0;
        for (path, cmd) in &modes {
            let own = flags(cmd);
            for flag in all.difference(&own) {
                let mut argv = vec!["solve".to_string()];
                argv.extend(path.iter().cloned());
                argv.extend([format!("--{flag}"), "1".to_string()]);
                let err = Cli::try_parse_from(&argv).expect_err(&argv.join(" "));
                assert_eq!(err.kind(), ErrorKind::UnknownArgument, "{}: {err}", argv.join(" "));
                checked += 1;
            }
        }
        assert!(checked > 200, "only {checked} foreign flags checked");
    }

    #[test]
    fn a_mode_named_after_top_level_flags_is_refused() {
        let err = Cli::try_parse_from(["solve", "--testset", "deepcubea-10", "classical", "bfs", "--random", "1"])
            .expect_err("flags of the default mode before another mode");
        assert_eq!(err.kind(), ErrorKind::ArgumentConflict, "{err}");
    }

    #[test]
    fn the_one_command_solve_needs_no_mode() {
        let cli =
            Cli::try_parse_from(["solve", "--facelets", "UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB"])
                .expect("solve --facelets parses as beam search");
        assert!(cli.mode.is_none());
        assert!(cli.beam.instances.facelets.is_some());
    }

    #[test]
    fn closed_sets_of_choices_are_listed_in_help() {
        let mut cmd = Cli::command();
        let beam = cmd.find_subcommand_mut("beam").expect("beam mode").render_help().to_string();
        for values in ["policy, q-distance, value", "cpu, gpu", "qtm, htm", "1, 2, 4, 8, 16, 24, 48"] {
            assert!(beam.contains(values), "`solve beam --help` does not list {values}:\n{beam}");
        }
    }

    #[test]
    fn every_mode_has_a_short_help() {
        for (path, mut cmd) in modes() {
            let help = cmd.render_help().to_string();
            let lines = help.lines().count();
            let most = if path.is_empty() { 40 } else { 30 };
            assert!(lines <= most, "`solve {} --help` has {lines} lines:\n{help}", path.join(" "));
        }
    }

    #[test]
    fn the_instance_sources_exclude_each_other_and_seed_needs_random() {
        for argv in [
            &["solve", "--facelets", "x", "--testset", "deepcubea-10"][..],
            &["solve", "classical", "astar", "--scramble", "R", "--board", "1 0 / 2 3"],
            &["solve", "parberry", "--board", "1 2 3 / 4 5 6 / 7 8 0", "--random", "4"],
        ] {
            assert!(Cli::try_parse_from(argv).is_err(), "{}", argv.join(" "));
        }
        let Cli { mode: Some(Mode::Classical { method: ClassicalMethod::Astar(a) }), .. } =
            Cli::try_parse_from(["solve", "classical", "astar", "--testset", "korf100", "--seed", "3"])
                .expect("parses")
        else {
            panic!("not classical astar");
        };
        let err = instances(a.common.instances, a.common.seed).expect_err("--seed without --random");
        assert!(err.to_string().contains("--seed applies to --random"), "{err}");
    }
}
