//! `solve parberry`: Parberry's real-time algorithm
//! ([`crate::search::parberry`]) on n×n boards of any width `2 ≤ n ≤ 256`,
//! named `--puzzle puzzle<N>` with `N = n² − 1` (`puzzle15`, `puzzle99`,
//! `puzzle9999`; parsed here, since the puzzle registry stops at 8×8).
//!
//! Instances: `--random M --seed S` (uniform among the solvable boards; up
//! to 8×8 the very boards every other method draws for that seed), one
//! `--board "…"` (its width implied by the tile count when `--puzzle` is
//! not given), or for widths up to 8 a `--testset` of
//! [`crate::solve::boards`], whose known optimal lengths give the ratio to
//! optimal. The goal is blank-last; blank-first (Korf's sets) is solved on
//! the board turned half round ([`Grid::half_turn`]) and the moves turned
//! back, with the same length; other goals are refused naming `--goal`.
//! Every solution is replayed on its start board before it is written.
//!
//! Output goes to `<out>/<label>/` like the classical methods:
//! `instances.csv` (the core columns of [`crate::solve::record`], then `n`,
//! `manhattan`, `ratio_to_manhattan`, `bound`, `moves_per_n3`,
//! `greedy_moves`, `exact_moves`, `bfs_routes` and the start `board`) and
//! `summary.csv` (the core columns, then `n`, `mean_manhattan`,
//! `mean_ratio_to_manhattan`, `max_length`, `bound`, `mean_moves_per_n3`,
//! `mean_ratio_to_optimal`). `generated` and `expanded` are 0: the
//! algorithm searches nothing above its 3×3 stage.

use super::error::{SolveError, invalid};
use super::input::{self, Input};
use super::record::{self, Producer, Record};
use crate::csvlog::Col;
use crate::folder::{self, IfExists, Output};
use crate::puzzle::MoveId;
use crate::search::Status;
use crate::search::parberry::{self, Parberry};
use crate::sliding::grid::{GRID_MAX_N, GRID_MIN_N, Grid, opposite};
use crate::sliding::{Goal, MOVE_NAMES};
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use std::path::PathBuf;
use std::time::Instant;

/// The method's name on the command line.
pub const METHOD: &str = "parberry";

/// Solutions up to this many moves are printed for a single board.
const PRINT_MAX_MOVES: usize = 400;

/// The width `n` of `puzzle<N>`, `N = n² − 1`, `2 ≤ n ≤ 256`.
///
/// # Errors
/// [`SolveError::Invalid`] naming the value: not of the form `puzzle<N>`,
/// `N` not of the form `n² − 1`, or a width out of range.
pub fn parse_puzzle(name: &str) -> Result<usize, SolveError> {
    let value = || format!("--puzzle {}", super::bounds::shorten(name));
    let digits = name.trim().strip_prefix("puzzle").filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()));
    let Some(digits) = digits else {
        return Err(invalid!(
            value(),
            "Parberry's algorithm takes puzzle<N> with N = n²−1 tiles (puzzle8, puzzle15, puzzle99, …, puzzle65535)"
        ));
    };
    let tiles: u64 =
        digits.parse().ok().filter(|&t| t < 1 << 32).ok_or_else(|| {
            invalid!(value(), "the width must be in {GRID_MIN_N}..={GRID_MAX_N} (at most puzzle65535)")
        })?;
    let n = (tiles + 1).isqrt();
    if n * n != tiles + 1 {
        return Err(invalid!(
            value(),
            "{tiles} is not n²−1 for any width n (the nearest are puzzle{} and puzzle{})",
            n * n - 1,
            (n + 1) * (n + 1) - 1
        ));
    }
    let n = n as usize;
    if !(GRID_MIN_N..=GRID_MAX_N).contains(&n) {
        return Err(invalid!(value(), "width {n} is out of range {GRID_MIN_N}..={GRID_MAX_N}"));
    }
    Ok(n)
}

/// The goal of `--goal`: blank-last (the default) or blank-first.
///
/// # Errors
/// [`SolveError::Invalid`] naming `--goal` for any other goal; the
/// goal parser's error for text that is no goal.
pub fn parse_goal(text: Option<&str>) -> Result<Goal, SolveError> {
    let Some(goal) = super::input::goal_flag(text)? else { return Ok(Goal::BlankLast) };
    let text = text.unwrap_or_default();
    match goal {
        g @ (Goal::BlankLast | Goal::BlankFirst) => Ok(g),
        other => Err(invalid!(
            format!("--goal {}", super::bounds::shorten(text)),
            "Parberry's algorithm solves for the blank-last goal, and blank-first by turning the board half round; \
             the {} goal is not supported",
            other.name()
        )),
    }
}

/// What a `solve parberry` run was asked to do.
#[derive(Clone, Debug)]
pub struct ParberryOptions {
    /// `--puzzle` (`puzzle<N>`); may be left out with `--board`.
    pub puzzle: Option<String>,
    /// `--goal`: blank-last (default) or blank-first.
    pub goal: Option<String>,
    /// The instances.
    pub input: Input,
    /// Parent folder of the output folder.
    pub out_root: PathBuf,
    /// Output folder name (default from the puzzle and input).
    pub label: Option<String>,
    /// Replace an existing output folder.
    pub overwrite: bool,
    /// Instances solved at once (never more workers than instances).
    pub jobs: usize,
    /// Draw a progress bar.
    pub progress: bool,
}

/// One instance: its start board (in its own goal's frame) and known
/// optimal length.
struct Instance {
    id: String,
    grid: Grid,
    optimal: Option<u32>,
}

/// The result of one instance.
struct Row {
    record: Record,
    manhattan: u64,
    greedy_moves: usize,
    exact_moves: usize,
    bfs_routes: usize,
    board: String,
}

/// The instances, the label they give the folder, the width, and whether
/// their goal is blank-first.
type Loaded = (Vec<Instance>, String, usize, bool);

fn instances(opts: &ParberryOptions, goal: &Goal) -> Result<Loaded, SolveError> {
    let named = opts.puzzle.as_deref().map(parse_puzzle).transpose()?;
    let width = || {
        named.ok_or_else(|| {
            invalid!("solve parberry without --puzzle", "name the board size, e.g. --puzzle puzzle99 for 10×10")
        })
    };
    let max_board = crate::sliding::board::MAX_N;
    match &opts.input {
        Input::Board(text) => {
            let grid = Grid::parse(text, named)?;
            let label =
                format!("board-{:012x}", crate::checksum::fnv1a(grid.to_string().as_bytes()) & 0xffff_ffff_ffff);
            let n = grid.n();
            Ok((vec![Instance { id: "board".into(), grid, optimal: None }], label, n, *goal == Goal::BlankFirst))
        }
        Input::Random { n: count, seed } if width()? > max_board => {
            let n = width()?;
            // Every solution is kept until the tables are written: about
            // 8n³/3 moves of 2 bytes each (twice that for the worst case),
            // besides the boards.
            let per_board = 6 * (n as u64).pow(3) + 4 * (n as u64).pow(2);
            let most = (MAX_KEPT_BYTES / per_board).max(1);
            if *count as u64 > most {
                return Err(invalid!(
                    format!("--random {count} with puzzle{}", n * n - 1),
                    "at most {most} boards of width {n} in one run: their solutions are kept until the tables \
                     are written (about {per_board} bytes a board, {} GiB at most)",
                    MAX_KEPT_BYTES >> 30
                ));
            }
            let mut rng = ChaCha8Rng::seed_from_u64(*seed);
            let mut out = Vec::with_capacity(*count);
            for i in 0..*count {
                let g = Grid::random_solvable(n, &mut rng)?;
                let grid = if *goal == Goal::BlankFirst { g.half_turn() } else { g };
                out.push(Instance { id: format!("random-{i}"), grid, optimal: None });
            }
            Ok((out, format!("random-{count}-seed{seed}"), n, *goal == Goal::BlankFirst))
        }
        Input::TestSet(name) if width()? > max_board => Err(invalid!(
            format!("--testset {} with puzzle{}", super::bounds::shorten(name), width()? * width()? - 1),
            "test sets exist for boards up to 8×8; use --random or --board"
        )),
        Input::Random { .. } | Input::TestSet(_) => {
            let n = width()?;
            // Up to 8×8 the boards of every other method; a built-in set
            // brings its own goal (Korf's: blank-first).
            let (puzzle, (cases, label)) = input::boards(&opts.input, n, opts.goal.as_ref().map(|_| goal))?;
            let set_goal = parse_goal(Some(puzzle.goal_name()))?;
            let out = cases
                .into_iter()
                .map(|c| Instance { id: c.id, grid: Grid::from_board(&c.state), optimal: c.optimal })
                .collect();
            Ok((out, label, n, set_goal == Goal::BlankFirst))
        }
        Input::Facelets(_) | Input::Scramble(_) => Err(invalid!(
            "facelets or a scramble",
            "describe cubes; Parberry's algorithm takes --board, --random or --testset"
        )),
    }
}

/// Solves one instance in the frame of the blank-last goal and checks the
/// moves on the instance's own board and goal.
fn solve_one(solver: &Parberry, inst: &Instance, blank_first: bool) -> Result<Row, SolveError> {
    let framed = if blank_first { inst.grid.half_turn() } else { inst.grid.clone() };
    let clock = Instant::now();
    let sol = solver.solve(&framed)?;
    let elapsed_s = clock.elapsed().as_secs_f64();
    let moves: Vec<MoveId> = if blank_first { sol.moves.iter().map(|&m| opposite(m)).collect() } else { sol.moves };
    let end = inst.grid.replay(&moves)?;
    let goal = if blank_first { Grid::goal(inst.grid.n())?.half_turn() } else { Grid::goal(inst.grid.n())? };
    let solution = moves.iter().map(|&m| MOVE_NAMES[usize::from(m)]).collect::<Vec<_>>().join(" ");
    if end != goal {
        return Err(SolveError::WrongSolution { method: METHOD.into(), id: inst.id.clone(), solution });
    }
    let record = Record {
        width: 0,
        id: inst.id.clone(),
        status: Status::Solved,
        solution,
        length: Some(moves.len()),
        optimal: inst.optimal,
        generated: 0,
        expanded: 0,
        elapsed_s,
        ebf: None,
    };
    Ok(Row {
        record,
        manhattan: framed.manhattan(),
        greedy_moves: sol.greedy_moves,
        exact_moves: sol.exact_moves,
        bfs_routes: sol.bfs_routes,
        board: inst.grid.to_string(),
    })
}

/// The most memory one run's solutions may take (they are written at the end).
const MAX_KEPT_BYTES: u64 = 8 << 30;

/// Runs `solve parberry`; returns the output folder.
///
/// # Errors
/// A bad puzzle name, goal, board or set; an unsolvable board (before any
/// solving); a solution that does not replay (a bug); an output folder
/// that cannot be claimed or written.
pub fn run(opts: &ParberryOptions) -> Result<PathBuf, SolveError> {
    let goal = parse_goal(opts.goal.as_deref())?;
    let if_exists = IfExists::overwrite(opts.overwrite);
    let early = match &opts.label {
        Some(label) => Some(Output::claim(&opts.out_root, label, "--label", if_exists)?),
        None => None,
    };
    let (insts, set_label, n, blank_first) = instances(opts, &goal)?;
    // Every board is checked before any is solved.
    for i in &insts {
        let framed = if blank_first { i.grid.half_turn() } else { i.grid.clone() };
        framed.check_solvable().map_err(|e| {
            let frame = if blank_first { " (blank-first goal: checked on the board turned half round)" } else { "" };
            invalid!(format!("instance {}", i.id), "{e}{frame}")
        })?;
    }
    // The folder is claimed before the solving, which may take hours.
    let puzzle_name =
        if blank_first { format!("puzzle{}-blank-first", n * n - 1) } else { format!("puzzle{}", n * n - 1) };
    let output = match early {
        Some(output) => output,
        None => {
            let label = folder::sanitize(&format!("{puzzle_name}-{set_label}-{METHOD}"));
            Output::claim(&opts.out_root, &label, "--label", if_exists)?
        }
    };
    let solver = Parberry::new();
    let bar = super::progress_bar(opts.progress, insts.len(), "instances");
    let one = |inst: &Instance| {
        let row = solve_one(&solver, inst, blank_first);
        bar.inc(1);
        row
    };
    let jobs = super::bounds::workers(opts.jobs, insts.len());
    let rows: Vec<Row> = if jobs <= 1 {
        insts.iter().map(one).collect::<Result<_, _>>()?
    } else {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(jobs)
            .build()
            .map_err(|e| SolveError::Worker(format!("starting a pool of {jobs} threads: {e}")))?;
        pool.install(|| {
            use rayon::prelude::*;
            insts.par_iter().with_max_len(1).map(one).collect::<Result<_, _>>()
        })?
    };
    bar.finish_and_clear();
    let by = Producer { puzzle: puzzle_name, method: METHOD.into(), heuristic: "none".into() };
    write_outputs(output.dir(), &by, n, &rows)?;
    Ok(output.commit()?)
}

fn mean(v: impl Iterator<Item = f64>) -> f64 {
    let (sum, count) = v.fold((0.0, 0usize), |(s, c), x| (s + x, c + 1));
    if count == 0 { f64::NAN } else { sum / count as f64 }
}

fn write_outputs(dir: &std::path::Path, by: &Producer, n: usize, rows: &[Row]) -> Result<(), SolveError> {
    let records: Vec<Record> = rows.iter().map(|r| r.record.clone()).collect();
    let len = |r: &Row| r.record.length.unwrap_or(0) as f64;
    let ratio = |r: &Row| if r.manhattan == 0 { f64::NAN } else { len(r) / r.manhattan as f64 };
    let n3 = (n as f64).powi(3);
    let bound = parberry::bound(n);
    let count = rows.len();
    record::write_instances(
        &dir.join("instances.csv"),
        by,
        &records,
        vec![
            ("n", Col::U64(vec![n as u64; count])),
            ("manhattan", Col::U64(rows.iter().map(|r| r.manhattan).collect())),
            ("ratio_to_manhattan", Col::F64(rows.iter().map(ratio).collect())),
            ("bound", Col::U64(vec![bound; count])),
            ("moves_per_n3", Col::F64(rows.iter().map(|r| len(r) / n3).collect())),
            ("greedy_moves", Col::U64(rows.iter().map(|r| r.greedy_moves as u64).collect())),
            ("exact_moves", Col::U64(rows.iter().map(|r| r.exact_moves as u64).collect())),
            ("bfs_routes", Col::U64(rows.iter().map(|r| r.bfs_routes as u64).collect())),
            ("board", Col::Str(rows.iter().map(|r| r.board.clone()).collect())),
        ],
    )?;
    let s = record::summarize(0, &records.iter().collect::<Vec<_>>());
    let mean_ratio = mean(rows.iter().map(ratio).filter(|x| !x.is_nan()));
    let mean_opt = mean(rows.iter().filter_map(|r| Some(len(r) / f64::from(r.record.optimal?))));
    let max_length = rows.iter().map(|r| r.record.length.unwrap_or(0) as u64).max().unwrap_or(0);
    record::write_summary(
        &dir.join("summary.csv"),
        by,
        std::slice::from_ref(&s),
        vec![
            ("n", Col::U64(vec![n as u64])),
            ("mean_manhattan", Col::F64(vec![mean(rows.iter().map(|r| r.manhattan as f64))])),
            ("mean_ratio_to_manhattan", Col::F64(vec![mean_ratio])),
            ("max_length", Col::U64(vec![max_length])),
            ("bound", Col::U64(vec![bound])),
            ("mean_moves_per_n3", Col::F64(vec![mean(rows.iter().map(len)) / n3])),
            ("mean_ratio_to_optimal", Col::F64(vec![mean_opt])),
        ],
    )?;
    if let [r] = rows {
        let length = r.record.length.unwrap_or(0);
        if length == 0 {
            crate::say!("{}: already solved (0 moves; verified)", r.record.id);
        } else if length <= PRINT_MAX_MOVES {
            crate::say!("{}: {} ({length} moves; verified)", r.record.id, r.record.solution);
        } else {
            crate::say!("{}: {length} moves (verified; the moves are in instances.csv)", r.record.id);
        }
    }
    crate::say!(
        "{} parberry: {} instances, all solved and verified, mean length {:.1} (max {max_length}, bound 5n³ = {bound}), \
         {:.3} n³, {:.3}× Manhattan, {}, {:.4} s/instance",
        by.puzzle,
        s.instances,
        s.mean_length,
        mean(rows.iter().map(len)) / n3,
        mean_ratio,
        if mean_opt.is_nan() { "optimal n/a".to_string() } else { format!("{mean_opt:.3}× optimal") },
        s.mean_elapsed_s,
    );
    Ok(())
}
