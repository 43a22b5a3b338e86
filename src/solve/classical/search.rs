//! The classical searches of `solve classical`, per puzzle: the method
//! ([`Method`]), the request ([`ClassicalOptions`]), one instance's search
//! ([`search`]) and a set's ([`run_cases`]), with every solution replayed
//! before it becomes a [`Row`]. The puzzle front ends
//! ([`crate::solve::front`]) call these; the command that writes the
//! tables is the parent module.

use crate::cube2::{Cube2, Cube2Puzzle};
use crate::cube3::coord::Coords;
use crate::cube3::{Cube3, Cube3Puzzle, Metric};
use crate::heuristics::{Heuristic, Zero};
use crate::puzzle::{MoveId, Puzzle, replay};
use crate::registry::PuzzleKind;
use crate::search::best_first::best_first_within;
use crate::search::korf::{KorfSolver, gods_number};
use crate::search::{
    DistanceTable, Limits, Priority, SearchOutcome, Status, breadth_first, heuristic_beam, ida_star, rbfs,
};
use crate::solve::bounds;
use crate::solve::error::{SolveError, invalid};
use crate::solve::input::{Case, Input};
use crate::solve::record::Record;
use indicatif::ProgressBar;
use std::path::PathBuf;
use std::str::FromStr;

/// A search method of `solve classical`.
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

    /// The depth limit of `--max-depth D` (`given`), or the method's
    /// default without one: none for the best-first searches (A*, greedy,
    /// uniform-cost), which are bounded by their node and time limits,
    /// and [`DEFAULT_MAX_DEPTH`] for the others.
    #[must_use]
    pub fn depth_limit(self, given: Option<u32>) -> u32 {
        match given {
            Some(d) => d,
            None if matches!(self, Self::AStar | Self::Greedy | Self::Ucs) => u32::MAX,
            None => DEFAULT_MAX_DEPTH,
        }
    }
}

/// The depth limit of IDA*, RBFS, IDS, BFS and beam search when
/// `--max-depth` is not given.
pub const DEFAULT_MAX_DEPTH: u32 = 200;

impl FromStr for Method {
    type Err = SolveError;
    fn from_str(s: &str) -> Result<Self, SolveError> {
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
            invalid!(format!("method {}", bounds::shorten(s)), "unknown method; expected one of {}", names.join(", "))
        })
    }
}

/// What a classical `solve` run was asked to do.
#[derive(Clone, Debug)]
pub struct ClassicalOptions {
    /// The search method.
    pub method: Method,
    /// The puzzle.
    pub puzzle: PuzzleKind,
    /// Heuristic name (default: `manhattan` for sliding puzzles, `pdb` for
    /// the 3×3×3, `bfs-table` for the 2×2×2).
    pub heuristic: Option<String>,
    /// Sliding goal (`blank-last`, `blank-first`, `snail` or tiles).
    pub goal: Option<String>,
    /// Cube metric.
    pub metric: Metric,
    /// The instances.
    pub input: Input,
    /// Node and time limits per instance.
    pub limits: Limits,
    /// Depth limit of every method (`None`: [`Method::depth_limit`]'s
    /// default).
    pub max_depth: Option<u32>,
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
    /// Instances searched at once (each search is single-threaded; never
    /// more workers than instances are started).
    pub jobs: usize,
}

impl ClassicalOptions {
    /// The cube heuristic to use, in lower case: `zero` for methods that
    /// use none, else the one named or `default`.
    pub(in crate::solve) fn heuristic_spec(&self, default: &str) -> String {
        match &self.heuristic {
            _ if !self.method.uses_heuristic() => "zero".into(),
            Some(h) => h.trim().to_ascii_lowercase(),
            None => default.into(),
        }
    }
}

/// Called with a classical search's heuristic name before the search.
pub type Named<'a> = dyn FnMut(&str) -> Result<(), SolveError> + 'a;

/// The result of one instance: its record and the search's peak memory.
#[derive(Clone, Debug)]
pub struct Row {
    /// The instance's row of the result schema.
    pub record: Record,
    /// Most nodes held at once.
    pub peak_nodes: u64,
    /// The solution's moves (empty when unsolved).
    pub path: Vec<MoveId>,
}

impl Row {
    fn new(id: &str, outcome: &SearchOutcome, solution: String, optimal: Option<u32>, width: usize) -> Self {
        let record = Record {
            width,
            id: id.to_string(),
            status: outcome.status,
            solution,
            length: outcome.cost(),
            optimal,
            generated: outcome.generated,
            expanded: outcome.expanded,
            elapsed_s: outcome.elapsed.as_secs_f64(),
            ebf: outcome.ebf(),
        };
        Self { record, peak_nodes: outcome.peak_nodes, path: outcome.path.clone() }
    }
}

/// Runs one method on one start state; no path longer than `max_depth`
/// is searched or returned.
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
        Method::AStar => best_first_within(puzzle, h, start, Priority::AStar, limits, max_depth),
        Method::Greedy => best_first_within(puzzle, h, start, Priority::Greedy, limits, max_depth),
        Method::Ucs => best_first_within(puzzle, &Zero, start, Priority::AStar, limits, max_depth),
        Method::IdaStar => ida_star(puzzle, h, start, limits, max_depth),
        Method::Ids => ida_star(puzzle, &Zero, start, limits, max_depth),
        Method::Rbfs => rbfs(puzzle, h, start, limits, max_depth),
        Method::Bfs => breadth_first(puzzle, start, limits, max_depth),
        Method::Beam => heuristic_beam(puzzle, h, start, width, limits, max_depth),
    }
}

/// Searches every case (`jobs` at a time, each single-threaded; at most
/// one worker per case) and verifies every solution by replaying it. Rows
/// keep the cases' order.
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
) -> Result<Vec<Row>, SolveError> {
    let one = |case: &Case<P::State>| -> Result<Row, SolveError> {
        let outcome = search(puzzle, h, method, &case.state, limits, max_depth, width);
        let mut names = Vec::new();
        if outcome.status == Status::Solved {
            names = outcome.path.iter().map(|&m| puzzle.move_name(m).to_string()).collect();
            if !replay(puzzle, &case.state, &outcome.path).is_some_and(|s| puzzle.is_goal(&s)) {
                return Err(SolveError::WrongSolution {
                    method: method.name().into(),
                    id: case.id.clone(),
                    solution: names.join(" "),
                });
            }
        }
        bar.inc(1);
        Ok(Row::new(&case.id, &outcome, names.join(" "), case.optimal, if method == Method::Beam { width } else { 0 }))
    };
    // IDA*, IDS and RBFS recurse once per move: every search runs on a
    // thread with a stack sized for the deepest `--max-depth` allowed
    // (one worker too, rather than on the main thread's 8 MiB).
    let jobs = bounds::workers(jobs, cases.len());
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .stack_size(bounds::SEARCH_STACK_BYTES)
        .build()
        .map_err(|e| SolveError::Worker(format!("starting a pool of {jobs} threads: {e}")))?;
    pool.install(|| {
        use rayon::prelude::*;
        cases.par_iter().with_max_len(1).map(one).collect()
    })
}

/// [`run_cases`] with the options' method, limits, depth, width and jobs.
pub(in crate::solve) fn run_with<P: Puzzle, H: Heuristic<P> + Sync>(
    opts: &ClassicalOptions,
    puzzle: &P,
    h: &H,
    cases: &[Case<P::State>],
    bar: &ProgressBar,
) -> Result<Vec<Row>, SolveError> {
    let depth = opts.method.depth_limit(opts.max_depth);
    run_cases(puzzle, h, opts.method, cases, opts.limits, depth, opts.width, opts.jobs, bar)
}

/// Runs the cube instances. Blind methods and `zero` search the sticker
/// cube directly. `pdb` is Korf's heuristic (corner and two 6-edge pattern
/// databases) on the coordinate cube: with `idastar` it runs Korf's
/// cube-specific solver (parallel over the first move, stronger pruning);
/// `pdb-generic` runs the generic single-threaded searches with the same
/// tables. Every solution is replayed on the sticker cube as well.
pub(in crate::solve) fn run_cube(
    opts: &ClassicalOptions,
    spec: &str,
    cache: Option<&std::path::Path>,
    cases: &[Case<Cube3>],
    bar: &ProgressBar,
    named: &mut Named,
) -> Result<(Vec<Row>, String), SolveError> {
    let puzzle = Cube3Puzzle::new(opts.metric);
    let (rows, name) = match spec {
        "zero" => {
            named("zero")?;
            (run_with(opts, &puzzle, &Zero, cases, bar)?, "zero".to_string())
        }
        "pdb" | "korf" | "pdb-generic" => {
            let korf = opts.method == Method::IdaStar && spec != "pdb-generic";
            if korf {
                korf_applies(opts)?;
            }
            let solver = KorfSolver::load_or_build(opts.metric, cache)?;
            let kp = &solver.puzzle;
            let name = if spec == "pdb-generic" { "pdb-generic" } else { "pdb" };
            if !korf {
                check_heuristic(opts.method, &solver.pdbs)?;
            }
            named(name)?;
            if korf {
                let mut rows = Vec::with_capacity(cases.len());
                for c in cases {
                    let outcome = solver.solve(&c.state, opts.limits);
                    let solution = kp.turns(&outcome.path).iter().map(ToString::to_string).collect::<Vec<_>>();
                    rows.push(Row::new(&c.id, &outcome, solution.join(" "), c.optimal, 0));
                    bar.inc(1);
                }
                (rows, name.to_string())
            } else {
                let coords: Vec<Case<Coords>> = cases
                    .iter()
                    .map(|c| Case { id: c.id.clone(), state: kp.from_cube3(&c.state), optimal: c.optimal })
                    .collect();
                (run_with(opts, kp, &solver.pdbs, &coords, bar)?, name.to_string())
            }
        }
        other => {
            return Err(invalid!(
                format!("--heuristic {}", bounds::shorten(other)),
                "unknown cube heuristic; expected pdb (Korf's corner + two 6-edge pattern databases; \
                 with idastar, Korf's parallel solver), pdb-generic (the same tables with the generic searches) or zero"
            ));
        }
    };
    // Replay every solution on the sticker cube, whatever representation searched it.
    for (r, c) in rows.iter().zip(cases) {
        if r.record.status == Status::Solved && !replay(&puzzle, &c.state, &r.path).is_some_and(|s| s.is_solved()) {
            return Err(SolveError::WrongSolution {
                method: opts.method.name().into(),
                id: c.id.clone(),
                solution: r.record.solution.clone(),
            });
        }
    }
    Ok((rows, name))
}

/// Runs the 2×2×2 instances with `zero`, or with `bfs-table`: the exact
/// distances of every position from a complete breadth-first search (the
/// whole space fits; built in seconds), the perfect heuristic h*.
pub(in crate::solve) fn run_cube2(
    opts: &ClassicalOptions,
    puzzle: &Cube2Puzzle,
    spec: &str,
    cases: &[Case<Cube2>],
    bar: &ProgressBar,
    named: &mut Named,
) -> Result<(Vec<Row>, String), SolveError> {
    match spec {
        "zero" => {
            named("zero")?;
            Ok((run_with(opts, puzzle, &Zero, cases, bar)?, "zero".into()))
        }
        "bfs-table" | "table" => {
            let table = DistanceTable::build(puzzle, u8::MAX);
            named(&table.name())?;
            Ok((run_with(opts, puzzle, &table, cases, bar)?, table.name()))
        }
        other => Err(invalid!(
            format!("--heuristic {}", bounds::shorten(other)),
            "unknown cube2 heuristic; expected bfs-table (exact distances from a complete BFS) or zero"
        )),
    }
}

/// Refuses what Korf's solver (`idastar` with `pdb` on the cube) would
/// ignore: a depth limit below God's number (it always searches to it) and
/// more than one worker (it already searches one cube on every core).
fn korf_applies(opts: &ClassicalOptions) -> Result<(), SolveError> {
    let gods = gods_number(opts.metric);
    if let Some(d) = opts.max_depth.filter(|&d| d < gods) {
        return Err(invalid!(
            format!("--max-depth {d}"),
            "Korf's solver (idastar with pdb on cube3) always searches to God's number ({gods} in {}); \
             use --heuristic pdb-generic for a depth-limited search",
            opts.metric
        ));
    }
    if opts.jobs > 1 {
        return Err(invalid!(
            format!("--jobs {}", opts.jobs),
            "Korf's solver (idastar with pdb on cube3) already searches each cube on every core; \
             leave --jobs out, or use --heuristic pdb-generic for one cube per worker"
        ));
    }
    Ok(())
}

pub(in crate::solve) fn check_heuristic<P: Puzzle, H: Heuristic<P> + ?Sized>(
    method: Method,
    h: &H,
) -> Result<(), SolveError> {
    if method.needs_admissible() && !h.admissible() {
        return Err(invalid!(
            format!("--heuristic `{}`", h.name()),
            "is not admissible, so {} could return a non-optimal path as optimal; use an admissible heuristic, or the method greedy or beam",
            method.name()
        ));
    }
    Ok(())
}
