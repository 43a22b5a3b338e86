//! `solve --method …`: the classical searches (A*, IDA*, RBFS, IDS, BFS,
//! greedy, uniform-cost, heuristic beam) on the cube and the sliding
//! puzzles, with the same inputs and the same kind of tables as oracle beam
//! search, so learned and classical methods sit side by side.
//!
//! The pieces: [`Method`] and [`PuzzleKind`] (the registry's names) name what to run; the
//! heuristic is chosen by name (see [`crate::solve::heuristics`]); every
//! instance is searched with node and time limits, a path that reaches the
//! limit is reported as `limit`, never as a solution, and every solution is
//! replayed on its start state before it is written. Output goes to
//! `runs/classical/<label>/`: `instances.csv` (one row per instance) and
//! `summary.csv` (one row), with EBF and nodes per second.

use super::boards::{self, BoardInstance};
use super::heuristics::sliding_heuristic;
use super::testsets;
use crate::csvlog::{Col, write_table};
use crate::cube3::coord::Coords;
use crate::cube3::{Cube3Puzzle, Metric};
use crate::folder::{self, IfExists, Output};
use crate::heuristics::{Heuristic, Zero};
use crate::puzzle::Puzzle;
use crate::registry::PuzzleKind;
use crate::search::korf::KorfSolver;
use crate::search::{
    Limits, Priority, SearchOutcome, Status, best_first, breadth_first, heuristic_beam, ida_star, rbfs,
};
use crate::sliding::{Goal, Sliding};
use anyhow::{Result, bail};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::str::FromStr;

/// A search method of `solve --method`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Beam search (with the oracle on the cube by default, or a heuristic).
    Beam,
    /// A* with reopening.
    AStar,
    /// IDA*.
    IdaStar,
    /// Recursive best-first search.
    Rbfs,
    /// Depth-first iterative deepening (IDA* with h = 0).
    Ids,
    /// Breadth-first search.
    Bfs,
    /// Greedy best-first (f = h).
    Greedy,
    /// Uniform-cost search (A* with h = 0).
    Ucs,
}

impl Method {
    /// Every method with its command-line name.
    pub const ALL: [(&'static str, Self); 8] = [
        ("beam", Self::Beam),
        ("astar", Self::AStar),
        ("idastar", Self::IdaStar),
        ("rbfs", Self::Rbfs),
        ("ids", Self::Ids),
        ("bfs", Self::Bfs),
        ("greedy", Self::Greedy),
        ("ucs", Self::Ucs),
    ];

    /// The command-line name.
    #[must_use]
    pub fn name(self) -> &'static str {
        Self::ALL.iter().find(|m| m.1 == self).map_or("?", |m| m.0)
    }

    /// Whether the method promises optimal solutions only when its
    /// heuristic is admissible.
    #[must_use]
    pub fn needs_admissible(self) -> bool {
        matches!(self, Self::AStar | Self::IdaStar | Self::Rbfs)
    }

    /// Whether the method uses a heuristic at all.
    #[must_use]
    pub fn uses_heuristic(self) -> bool {
        !matches!(self, Self::Ids | Self::Bfs | Self::Ucs)
    }

    /// Whether the method's solutions are optimal (given an admissible
    /// heuristic where one is used).
    #[must_use]
    pub fn is_optimal(self) -> bool {
        !matches!(self, Self::Beam | Self::Greedy)
    }
}

impl FromStr for Method {
    type Err = anyhow::Error;
    fn from_str(s: &str) -> Result<Self> {
        let key = s.trim().to_ascii_lowercase().replace(['-', '_', '*'], "");
        let key = match key.as_str() {
            "a" => "astar",
            "ida" => "idastar",
            "dfid" | "iddfs" => "ids",
            other => other,
        }
        .to_string();
        Self::ALL.iter().find(|m| m.0 == key).map(|m| m.1).ok_or_else(|| {
            let names: Vec<&str> = Self::ALL.iter().map(|m| m.0).collect();
            anyhow::anyhow!("--method {s}: unknown method; expected one of {}", names.join(", "))
        })
    }
}

/// Where the instances come from.
#[derive(Clone, Debug)]
pub enum Input {
    /// A built-in set or a TSV file.
    TestSet(String),
    /// One sliding board, e.g. `2 3 0 / 1 8 6 / 5 7 4`.
    Board(String),
    /// One cube as facelets.
    Facelets(String),
    /// One cube as a scramble from solved.
    Scramble(String),
    /// Random instances.
    Random {
        /// How many.
        n: usize,
        /// Seed.
        seed: u64,
    },
}

/// What a classical `solve` run was asked to do.
#[derive(Clone, Debug)]
pub struct ClassicalOptions {
    /// The search method.
    pub method: Method,
    /// The puzzle.
    pub puzzle: PuzzleKind,
    /// Heuristic name (default: `manhattan` for sliding puzzles, `pdb` for the cube).
    pub heuristic: Option<String>,
    /// Sliding goal (`blank-last`, `blank-first`, `snail` or tiles).
    pub goal: Option<String>,
    /// Cube metric.
    pub metric: Metric,
    /// The instances.
    pub input: Input,
    /// Node and time limits per instance.
    pub limits: Limits,
    /// Depth bound (IDA*, RBFS, IDS, BFS, beam).
    pub max_depth: u32,
    /// Beam width (heuristic beam only).
    pub width: usize,
    /// Parent folder of the output folder.
    pub out_root: PathBuf,
    /// Output folder name (default from input, method and heuristic).
    pub label: Option<String>,
    /// Replace an existing output folder.
    pub overwrite: bool,
    /// Draw a progress bar.
    pub progress: bool,
    /// Instances searched at once (each search is single-threaded).
    pub jobs: usize,
}

/// One instance to search.
#[derive(Clone, Debug)]
pub struct Case<S> {
    /// Identifier.
    pub id: String,
    /// Start state.
    pub state: S,
    /// Known optimal length.
    pub optimal: Option<u32>,
}

/// The result of one instance.
#[derive(Clone, Debug)]
pub struct Row {
    /// Identifier.
    pub id: String,
    /// The search's outcome (path, counts, time).
    pub outcome: SearchOutcome,
    /// The solution as move names, replayed and verified.
    pub solution: String,
    /// Known optimal length.
    pub optimal: Option<u32>,
}

/// Runs one method on one start state.
pub fn search<P: Puzzle, H: Heuristic<P>>(
    puzzle: &P,
    h: &H,
    method: Method,
    start: &P::State,
    limits: Limits,
    max_depth: u32,
    width: usize,
) -> SearchOutcome {
    match method {
        Method::AStar => best_first(puzzle, h, start, Priority::AStar, limits),
        Method::Greedy => best_first(puzzle, h, start, Priority::Greedy, limits),
        Method::Ucs => best_first(puzzle, &Zero, start, Priority::AStar, limits),
        Method::IdaStar => ida_star(puzzle, h, start, limits, max_depth),
        Method::Ids => ida_star(puzzle, &Zero, start, limits, max_depth),
        Method::Rbfs => rbfs(puzzle, h, start, limits, max_depth),
        Method::Bfs => breadth_first(puzzle, start, limits, max_depth),
        Method::Beam => heuristic_beam(puzzle, h, start, width, limits, max_depth),
    }
}

/// Searches every case (`jobs` at a time, each single-threaded) and
/// verifies every solution by replaying it. Rows keep the cases' order.
///
/// # Errors
/// A solution that does not reach the goal (a bug, never a result).
#[allow(clippy::too_many_arguments)]
pub fn run_cases<P: Puzzle, H: Heuristic<P> + Sync>(
    puzzle: &P,
    h: &H,
    method: Method,
    cases: &[Case<P::State>],
    limits: Limits,
    max_depth: u32,
    width: usize,
    jobs: usize,
    bar: &ProgressBar,
) -> Result<Vec<Row>> {
    let one = |case: &Case<P::State>| -> Result<Row> {
        let outcome = search(puzzle, h, method, &case.state, limits, max_depth, width);
        let mut names = Vec::new();
        if outcome.status == Status::Solved {
            let mut s = case.state.clone();
            for &m in &outcome.path {
                if !puzzle.is_applicable(&s, m) {
                    bail!("BUG: {} solution for {} makes an inapplicable move", method.name(), case.id);
                }
                puzzle.apply(&mut s, m);
                names.push(puzzle.move_name(m).to_string());
            }
            if !puzzle.is_goal(&s) {
                bail!(
                    "BUG: the {} solution for {} does not reach the goal: {}",
                    method.name(),
                    case.id,
                    names.join(" ")
                );
            }
        }
        bar.inc(1);
        Ok(Row { id: case.id.clone(), outcome, solution: names.join(" "), optimal: case.optimal })
    };
    if jobs <= 1 {
        return cases.iter().map(one).collect();
    }
    let pool = rayon::ThreadPoolBuilder::new().num_threads(jobs).build()?;
    pool.install(|| {
        use rayon::prelude::*;
        cases.par_iter().with_max_len(1).map(one).collect()
    })
}

fn sliding_cases(opts: &ClassicalOptions, n: usize) -> Result<(Sliding, Vec<Case<crate::sliding::Board>>, String)> {
    let asked_goal = match &opts.goal {
        Some(g) => Some(Goal::from_str(g)?),
        None => None,
    };
    let (goal, instances, label): (Goal, Vec<BoardInstance>, String) = match &opts.input {
        Input::TestSet(name) => {
            let set = boards::load(name, n, asked_goal.as_ref().unwrap_or(&Goal::BlankLast))?;
            if let Some(g) = &asked_goal
                && *g != set.goal
            {
                bail!(
                    "test set `{name}` is defined for the {} goal (its optimal lengths refer to it), but --goal {g} was given",
                    set.goal
                );
            }
            let stem = std::path::Path::new(name).file_stem().map_or(name.clone(), |s| s.to_string_lossy().to_string());
            (set.goal, set.instances, stem)
        }
        Input::Board(text) => {
            let goal = asked_goal.unwrap_or_default();
            let p = Sliding::new(n, goal.clone())?;
            let b = p.parse_board(text)?;
            (goal, vec![BoardInstance { id: "board".into(), tiles: b.tiles().to_vec(), optimal: None }], "board".into())
        }
        Input::Random { n: count, seed } => {
            let goal = asked_goal.unwrap_or_default();
            let p = Sliding::new(n, goal.clone())?;
            (goal, boards::random(&p, *count, *seed), format!("random-{count}-seed{seed}"))
        }
        Input::Facelets(_) | Input::Scramble(_) => {
            bail!(
                "--facelets and --scramble describe cubes; use --board or --testset with --puzzle puzzle{}",
                n * n - 1
            )
        }
    };
    let puzzle = Sliding::new(n, goal)?;
    let mut cases = Vec::with_capacity(instances.len());
    for inst in instances {
        let board = puzzle.board(&inst.tiles)?;
        puzzle.check_solvable(&board).map_err(|e| anyhow::anyhow!("instance {}: {e}", inst.id))?;
        cases.push(Case { id: inst.id, state: board, optimal: inst.optimal });
    }
    Ok((puzzle, cases, label))
}

fn cube_cases(opts: &ClassicalOptions) -> Result<(Vec<testsets::Instance>, String)> {
    if opts.goal.is_some() {
        bail!("--goal applies to sliding puzzles; the cube's goal is the solved cube");
    }
    Ok(match &opts.input {
        Input::Facelets(f) => (vec![testsets::from_facelets(f)?], "facelets".into()),
        Input::Scramble(s) => (vec![testsets::from_scramble(s)?], "scramble".into()),
        Input::TestSet(t) => {
            let stem = std::path::Path::new(t).file_stem().map_or(t.clone(), |s| s.to_string_lossy().to_string());
            (testsets::load(t)?, stem)
        }
        Input::Random { n, seed } => {
            (testsets::random(&Cube3Puzzle::new(opts.metric), *n, 100, *seed)?, format!("random-{n}-seed{seed}"))
        }
        Input::Board(_) => bail!("--board describes a sliding puzzle; give --puzzle puzzle8, puzzle15 or puzzle24"),
    })
}

/// Runs the cube instances. Blind methods and `zero` search the sticker
/// cube directly. `pdb` is Korf's heuristic (corner and two 6-edge pattern
/// databases) on the coordinate cube: with `idastar` it runs Korf's
/// cube-specific solver (parallel over the first move, stronger pruning);
/// `pdb-generic` runs the generic single-threaded searches with the same
/// tables. Every solution is replayed on the sticker cube as well.
fn run_cube(
    opts: &ClassicalOptions,
    spec: &str,
    cache: Option<&std::path::Path>,
    instances: &[testsets::Instance],
    bar: &ProgressBar,
) -> Result<(Vec<Row>, String)> {
    let puzzle = Cube3Puzzle::new(opts.metric);
    let optimal = |i: &testsets::Instance| i.optimal_qtm.filter(|_| opts.metric == Metric::Qtm);
    let spec = if opts.method.uses_heuristic() { spec.trim().to_ascii_lowercase() } else { "zero".into() };
    let (rows, name) = match spec.as_str() {
        "zero" => {
            let cases: Vec<Case<crate::cube3::Cube3>> =
                instances.iter().map(|i| Case { id: i.id.clone(), state: i.cube, optimal: optimal(i) }).collect();
            let rows = run_cases(
                &puzzle,
                &Zero,
                opts.method,
                &cases,
                opts.limits,
                opts.max_depth,
                opts.width,
                opts.jobs,
                bar,
            )?;
            (rows, "zero".to_string())
        }
        "pdb" | "korf" | "pdb-generic" => {
            let solver = KorfSolver::load_or_build(opts.metric, cache)?;
            let kp = &solver.puzzle;
            if opts.method == Method::IdaStar && spec != "pdb-generic" {
                let mut rows = Vec::with_capacity(instances.len());
                for i in instances {
                    let outcome = solver.solve(&i.cube, opts.limits);
                    let solution = kp.turns(&outcome.path).iter().map(ToString::to_string).collect::<Vec<_>>();
                    rows.push(Row { id: i.id.clone(), outcome, solution: solution.join(" "), optimal: optimal(i) });
                    bar.inc(1);
                }
                (rows, "pdb".to_string())
            } else {
                check_heuristic(opts.method, &solver.pdbs)?;
                let cases: Vec<Case<Coords>> = instances
                    .iter()
                    .map(|i| Case { id: i.id.clone(), state: kp.from_cube3(&i.cube), optimal: optimal(i) })
                    .collect();
                let rows = run_cases(
                    kp,
                    &solver.pdbs,
                    opts.method,
                    &cases,
                    opts.limits,
                    opts.max_depth,
                    opts.width,
                    opts.jobs,
                    bar,
                )?;
                (rows, if spec == "pdb-generic" { "pdb-generic".to_string() } else { "pdb".to_string() })
            }
        }
        other => bail!(
            "--heuristic {other}: unknown cube heuristic; expected pdb (Korf's corner + two 6-edge pattern databases; \
             with idastar, Korf's parallel solver), pdb-generic (the same tables with the generic searches) or zero"
        ),
    };
    // Replay every solution on the sticker cube, whatever representation searched it.
    for (r, i) in rows.iter().zip(instances) {
        if r.outcome.status == Status::Solved {
            let mut c = i.cube;
            c.apply_turns(&r.outcome.path.iter().map(|&m| puzzle.turn(m)).collect::<Vec<_>>());
            if !c.is_solved() {
                bail!("BUG: the {} solution for {} does not solve the cube: {}", opts.method.name(), i.id, r.solution);
            }
        }
    }
    Ok((rows, name))
}

fn check_heuristic<P: Puzzle, H: Heuristic<P> + ?Sized>(method: Method, h: &H) -> Result<()> {
    if method.needs_admissible() && !h.admissible() {
        bail!(
            "heuristic `{}` is not admissible, so {} could return a non-optimal path as optimal; use an admissible heuristic, or --method greedy or beam",
            h.name(),
            method.name()
        );
    }
    Ok(())
}

/// Runs a classical `solve`; returns the output folder.
pub fn run(opts: &ClassicalOptions) -> Result<PathBuf> {
    if !opts.method.uses_heuristic()
        && let Some(h) = &opts.heuristic
    {
        bail!("--heuristic {h}: method {} does not use a heuristic", opts.method.name());
    }
    if opts.method == Method::Beam && opts.width == 0 {
        bail!("the beam width must be at least 1");
    }
    let if_exists = if opts.overwrite { IfExists::Replace } else { IfExists::Refuse };
    // A label the user chose is claimed (checked and locked) before the
    // possibly long search; a derived one once the heuristic has its name.
    let early = match &opts.label {
        Some(label) => Some(Output::claim(&opts.out_root, label, "--label", if_exists)?),
        None => None,
    };
    let cache = crate::heuristics::store::cache_dir();
    let (rows, set_label, puzzle_name, h_name) = match opts.puzzle {
        PuzzleKind::Sliding(n) => {
            let (puzzle, cases, label) = sliding_cases(opts, n)?;
            let spec = opts.heuristic.clone().unwrap_or_else(|| "manhattan".into());
            let h = if opts.method.uses_heuristic() {
                sliding_heuristic(&puzzle, &spec, cache.as_deref())?
            } else {
                Box::new(Zero)
            };
            check_heuristic(opts.method, h.as_ref())?;
            let bar = progress(opts.progress, cases.len());
            let rows =
                run_cases(&puzzle, &h, opts.method, &cases, opts.limits, opts.max_depth, opts.width, opts.jobs, &bar)?;
            bar.finish_and_clear();
            (rows, label, puzzle.name(), h.name())
        }
        PuzzleKind::Cube3 => {
            let (instances, label) = cube_cases(opts)?;
            let spec = opts.heuristic.clone().unwrap_or_else(|| "pdb".into());
            let bar = progress(opts.progress, instances.len());
            let (rows, h_name) = run_cube(opts, &spec, cache.as_deref(), &instances, &bar)?;
            bar.finish_and_clear();
            (rows, label, Cube3Puzzle::new(opts.metric).name(), h_name)
        }
    };
    let h_label = if opts.method.uses_heuristic() { h_name.clone() } else { "none".into() };
    let label = opts.label.clone().unwrap_or_else(|| {
        let w = if opts.method == Method::Beam { format!("-w{}", opts.width) } else { String::new() };
        folder::sanitize(&format!("{puzzle_name}-{set_label}-{}{w}-{h_label}", opts.method.name()))
    });
    let output = match early {
        Some(output) => output,
        None => Output::claim(&opts.out_root, &label, "--label", if_exists)?,
    };
    write_outputs(output.dir(), opts, &puzzle_name, &h_label, &rows)?;
    Ok(output.commit()?)
}

fn progress(on: bool, total: usize) -> ProgressBar {
    let bar = if on { ProgressBar::new(total as u64) } else { ProgressBar::hidden() };
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} instances, ETA {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar
}

fn status_name(s: Status) -> &'static str {
    match s {
        Status::Solved => "solved",
        Status::LimitReached => "limit",
        Status::Exhausted => "exhausted",
    }
}

/// Summary figures over the rows.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// Instances.
    pub instances: usize,
    /// Share solved (%).
    pub solved_pct: f64,
    /// Share that hit a limit (%).
    pub limit_pct: f64,
    /// Mean solution length over solved instances.
    pub mean_length: f64,
    /// Share of solved instances with a known optimum whose length equals it (%).
    pub optimal_pct: f64,
    /// Mean excess over the known optimum.
    pub mean_excess: f64,
    /// Nodes generated, mean per instance.
    pub mean_generated: f64,
    /// Nodes expanded, mean per instance.
    pub mean_expanded: f64,
    /// Nodes generated in all.
    pub total_generated: u64,
    /// Mean seconds per instance.
    pub mean_time_s: f64,
    /// Seconds in all.
    pub total_time_s: f64,
    /// Nodes generated per second over all instances.
    pub generated_per_s: f64,
    /// Mean effective branching factor over solved instances of depth ≥ 1.
    pub mean_ebf: f64,
}

/// Summarises rows.
#[must_use]
pub fn summarize(rows: &[Row]) -> Summary {
    let n = rows.len().max(1) as f64;
    let solved: Vec<&Row> = rows.iter().filter(|r| r.outcome.status == Status::Solved).collect();
    let lens: Vec<f64> = solved.iter().map(|r| r.outcome.path.len() as f64).collect();
    let with_opt: Vec<(f64, f64)> =
        solved.iter().filter_map(|r| Some((r.outcome.path.len() as f64, f64::from(r.optimal?)))).collect();
    let ebfs: Vec<f64> = solved.iter().filter_map(|r| r.outcome.ebf()).collect();
    let mean = |v: &[f64]| if v.is_empty() { f64::NAN } else { v.iter().sum::<f64>() / v.len() as f64 };
    let total_generated: u64 = rows.iter().map(|r| r.outcome.generated).sum();
    let total_time_s: f64 = rows.iter().map(|r| r.outcome.elapsed.as_secs_f64()).sum();
    Summary {
        instances: rows.len(),
        solved_pct: 100.0 * solved.len() as f64 / n,
        limit_pct: 100.0 * rows.iter().filter(|r| r.outcome.status == Status::LimitReached).count() as f64 / n,
        mean_length: mean(&lens),
        optimal_pct: if with_opt.is_empty() {
            f64::NAN
        } else {
            100.0 * with_opt.iter().filter(|(l, o)| l == o).count() as f64 / with_opt.len() as f64
        },
        mean_excess: mean(&with_opt.iter().map(|(l, o)| l - o).collect::<Vec<_>>()),
        mean_generated: total_generated as f64 / n,
        mean_expanded: rows.iter().map(|r| r.outcome.expanded as f64).sum::<f64>() / n,
        total_generated,
        mean_time_s: total_time_s / n,
        total_time_s,
        generated_per_s: total_generated as f64 / total_time_s.max(1e-9),
        mean_ebf: mean(&ebfs),
    }
}

fn write_outputs(dir: &std::path::Path, opts: &ClassicalOptions, puzzle: &str, h: &str, rows: &[Row]) -> Result<()> {
    let width = if opts.method == Method::Beam { opts.width as u64 } else { 0 };
    let nan = f64::NAN;
    write_table(
        &dir.join("instances.csv"),
        vec![
            ("method", Col::Str(vec![opts.method.name().to_string(); rows.len()])),
            ("heuristic", Col::Str(vec![h.to_string(); rows.len()])),
            ("width", Col::U64(vec![width; rows.len()])),
            ("id", Col::Str(rows.iter().map(|r| r.id.clone()).collect())),
            ("status", Col::Str(rows.iter().map(|r| status_name(r.outcome.status).to_string()).collect())),
            ("solved", Col::Bool(rows.iter().map(|r| r.outcome.status == Status::Solved).collect())),
            ("solution", Col::Str(rows.iter().map(|r| r.solution.clone()).collect())),
            ("length", Col::F64(rows.iter().map(|r| r.outcome.cost().map_or(nan, |c| c as f64)).collect())),
            ("optimal", Col::F64(rows.iter().map(|r| r.optimal.map_or(nan, f64::from)).collect())),
            ("generated", Col::U64(rows.iter().map(|r| r.outcome.generated).collect())),
            ("expanded", Col::U64(rows.iter().map(|r| r.outcome.expanded).collect())),
            ("peak_nodes", Col::U64(rows.iter().map(|r| r.outcome.peak_nodes).collect())),
            ("elapsed_ms", Col::F64(rows.iter().map(|r| r.outcome.elapsed.as_secs_f64() * 1e3).collect())),
            ("ebf", Col::F64(rows.iter().map(|r| r.outcome.ebf().unwrap_or(nan)).collect())),
        ],
    )?;
    let s = summarize(rows);
    write_table(
        &dir.join("summary.csv"),
        vec![
            ("puzzle", Col::Str(vec![puzzle.to_string()])),
            ("method", Col::Str(vec![opts.method.name().to_string()])),
            ("heuristic", Col::Str(vec![h.to_string()])),
            ("width", Col::U64(vec![width])),
            ("instances", Col::U64(vec![s.instances as u64])),
            ("solved_pct", Col::F64(vec![s.solved_pct])),
            ("limit_pct", Col::F64(vec![s.limit_pct])),
            ("mean_length", Col::F64(vec![s.mean_length])),
            ("optimal_pct", Col::F64(vec![s.optimal_pct])),
            ("mean_excess", Col::F64(vec![s.mean_excess])),
            ("mean_generated", Col::F64(vec![s.mean_generated])),
            ("mean_expanded", Col::F64(vec![s.mean_expanded])),
            ("total_generated", Col::U64(vec![s.total_generated])),
            ("mean_time_s", Col::F64(vec![s.mean_time_s])),
            ("total_time_s", Col::F64(vec![s.total_time_s])),
            ("generated_per_s", Col::F64(vec![s.generated_per_s])),
            ("mean_ebf", Col::F64(vec![s.mean_ebf])),
        ],
    )?;
    if rows.len() == 1 {
        let r = &rows[0];
        match r.outcome.status {
            Status::Solved => println!(
                "{}: {} ({} moves; verified)",
                r.id,
                if r.solution.is_empty() { "already solved" } else { &r.solution },
                r.outcome.path.len()
            ),
            Status::LimitReached => println!("{}: limit reached, no solution claimed", r.id),
            Status::Exhausted => println!("{}: no solution within depth {}", r.id, opts.max_depth),
        }
    }
    let opt = if s.optimal_pct.is_nan() { "optimal n/a".to_string() } else { format!("optimal {:.1}%", s.optimal_pct) };
    println!(
        "{puzzle} {} [{h}]: {} instances, solved {:.1}% (limit {:.1}%), mean length {:.2}, {opt}, {:.0} nodes generated/instance ({:.0} expanded), {:.3} s/instance, {:.3e} nodes/s, EBF {:.3}",
        opts.method.name(),
        s.instances,
        s.solved_pct,
        s.limit_pct,
        s.mean_length,
        s.mean_generated,
        s.mean_expanded,
        s.mean_time_s,
        s.generated_per_s,
        s.mean_ebf
    );
    Ok(())
}
