//! What `solve` is asked to solve: one [`Input`] (a test set, one cube or
//! board, or random instances) turned into [`Case`]s of the puzzle at hand,
//! with a label for the output folder. Learned and classical methods load
//! their instances here, so both read the same sets the same way.

use super::boards::{self, BoardInstance};
use super::error::{SolveError, invalid};
use super::testsets;
use crate::checksum::fnv1a;
use crate::cube2::{self, Cube2, Cube2Puzzle};
use crate::cube3::{Cube3, Cube3Puzzle, Metric};
use crate::puzzle::Puzzle;
use crate::registry::PuzzleKind;
use crate::sliding::{Board, Goal, Sliding};
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use std::fmt::Debug;
use std::str::FromStr;

/// Where the instances come from.
#[derive(Clone, Debug)]
pub enum Input {
    /// A built-in set or a TSV file.
    TestSet(String),
    /// One sliding board, e.g. `2 3 0 / 1 8 6 / 5 7 4`.
    Board(String),
    /// One cube as a facelet string (54 characters; 24 for the 2×2×2).
    Facelets(String),
    /// One cube as a move sequence from solved.
    Scramble(String),
    /// `n` random instances of stream `seed` (3×3×3: 100-move random
    /// walks; 2×2×2: uniform; boards: uniform among the solvable ones).
    Random {
        /// How many.
        n: usize,
        /// Seed.
        seed: u64,
    },
}

impl Input {
    /// `--random n --seed seed`, with `n` checked against
    /// [`super::bounds::MAX_INSTANCES`].
    ///
    /// # Errors
    /// [`SolveError::Invalid`] naming `--random` for 0 or more than the
    /// most instances one solve takes.
    pub fn random(n: u64, seed: u64) -> Result<Self, SolveError> {
        Ok(Self::Random { n: super::bounds::instance_count("--random", n)?, seed })
    }

    /// Whether the input is one instance given on the command line.
    #[must_use]
    pub fn is_single(&self) -> bool {
        matches!(self, Self::Board(_) | Self::Facelets(_) | Self::Scramble(_))
    }
}

/// One instance to search.
#[derive(Clone, Debug)]
pub struct Case<S> {
    /// Identifier.
    pub id: String,
    /// Start state.
    pub state: S,
    /// Known optimal length in the puzzle's metric.
    pub optimal: Option<u32>,
}

/// Instances and the label they give the output folder: the set's file
/// stem, `random-N-seedS`, or for one instance its kind and a 12-digit tag
/// of its state (so that different cubes get different folders).
pub type Loaded<S> = (Vec<Case<S>>, String);

/// Refuses a set whose optimal length contradicts its state: 0 for a state
/// that is not the goal (no search could match it), or more than 0 for the
/// goal itself.
///
/// # Errors
/// [`SolveError::Invalid`] naming the instance.
pub fn check_optimal<P: Puzzle>(puzzle: &P, cases: &[Case<P::State>]) -> Result<(), SolveError> {
    for c in cases {
        match (c.optimal, puzzle.is_goal(&c.state)) {
            (Some(0), false) => {
                return Err(invalid!(
                    format!("instance {}", super::bounds::shorten(&c.id)),
                    "has optimal length 0 in its set, but it is not the goal: the set is wrong"
                ));
            }
            (Some(n), true) if n > 0 => {
                return Err(invalid!(
                    format!("instance {}", super::bounds::shorten(&c.id)),
                    "is the goal, but its set gives it optimal length {n}: the set is wrong"
                ));
            }
            _ => {}
        }
    }
    Ok(())
}

fn tag<P: Puzzle>(puzzle: &P, s: &P::State) -> String {
    format!("{:012x}", fnv1a(format!("{:?}", puzzle.key(s)).as_bytes()) & 0xffff_ffff_ffff)
}

fn stem(name: &str) -> String {
    std::path::Path::new(name).file_stem().map_or(name.to_string(), |s| s.to_string_lossy().to_string())
}

/// One instance given on the command line, labelled by its kind and state.
fn single<P: Puzzle>(puzzle: &P, kind: &str, case: Case<P::State>) -> Loaded<P::State> {
    let label = format!("{kind}-{}", tag(puzzle, &case.state));
    (vec![case], label)
}

fn random_label(n: usize, seed: u64) -> String {
    format!("random-{n}-seed{seed}")
}

/// The goal `--goal` gives (`None` when it is not given).
///
/// # Errors
/// Text that is no goal, naming the flag and its value.
pub(crate) fn goal_flag(text: Option<&str>) -> Result<Option<Goal>, SolveError> {
    text.map(|t| {
        Goal::from_str(t).map_err(|e| {
            invalid!(format!("--goal `{}`", super::bounds::shorten(t)), "{}", super::error::sliding_message(&e))
        })
    })
    .transpose()
}

/// Refuses a goal for a cube: goals are for sliding puzzles.
pub(crate) fn no_goal(goal: Option<&str>, kind: PuzzleKind) -> Result<(), SolveError> {
    match goal {
        Some(g) => Err(invalid!(
            format!("--goal `{}` for {kind}", super::bounds::shorten(g)),
            "goals apply to sliding puzzles; a cube's goal is the solved cube"
        )),
        None => Ok(()),
    }
}

fn board_for_a_cube(board: &str) -> SolveError {
    invalid!(format!("board `{}`", super::bounds::shorten(board)), "describes a sliding puzzle, not a cube")
}

/// Cube instances. Optimal lengths of test sets are in QTM, so they are
/// kept only for the QTM puzzle.
pub fn cubes(input: &Input, puzzle: &Cube3Puzzle) -> Result<Loaded<Cube3>, SolveError> {
    let qtm = puzzle.metric == Metric::Qtm;
    let case = |i: testsets::Instance| Case { id: i.id, state: i.cube, optimal: i.optimal_qtm.filter(|_| qtm) };
    Ok(match input {
        Input::Facelets(f) => single(puzzle, "facelets", case(testsets::from_facelets(f)?)),
        Input::Scramble(s) => single(puzzle, "scramble", case(testsets::from_scramble(s)?)),
        Input::TestSet(t) => (testsets::load(t)?.into_iter().map(case).collect(), stem(t)),
        Input::Random { n, seed } => {
            (testsets::random(puzzle, *n, 100, *seed)?.into_iter().map(case).collect(), random_label(*n, *seed))
        }
        Input::Board(b) => return Err(board_for_a_cube(b)),
    })
}

/// 2×2×2 instances: one cube by its 24 stickers (any orientation) or by
/// U, R, F moves from solved, or `n` positions drawn uniformly from all
/// 3,674,160 (seeded). There are no 2×2×2 test sets.
pub fn cube2s(input: &Input, puzzle: &Cube2Puzzle) -> Result<Loaded<Cube2>, SolveError> {
    let one = |kind: &str, state| single(puzzle, kind, Case { id: kind.into(), state, optimal: None });
    Ok(match input {
        Input::Facelets(f) => one("facelets", Cube2::from_facelets(f)?),
        Input::Scramble(s) => one("scramble", Cube2::from_turns(&cube2::notation::parse(s)?)),
        Input::Random { n, seed } => {
            let mut rng = ChaCha8Rng::seed_from_u64(*seed);
            let cases = (0..*n)
                .map(|i| Case { id: format!("random-{i}"), state: Cube2::random(&mut rng), optimal: None })
                .collect();
            (cases, random_label(*n, *seed))
        }
        Input::TestSet(t) => {
            return Err(invalid!(
                format!("test set `{}`", super::bounds::shorten(t)),
                "there are no cube2 test sets; use random cubes (solve's --random, a study's eval.random), or solve's \
                 --facelets or --scramble"
            ));
        }
        Input::Board(b) => return Err(board_for_a_cube(b)),
    })
}

/// Sliding-puzzle instances of width `n`. A built-in set fixes its own goal
/// (its optimal lengths refer to it): `goal`, when given, must be that
/// goal. Otherwise the goal is `goal` or blank-last. Every board is checked
/// for solvability before any search starts.
pub fn boards(input: &Input, n: usize, goal: Option<&Goal>) -> Result<(Sliding, Loaded<Board>), SolveError> {
    let (goal, instances, label): (Goal, Vec<BoardInstance>, String) = match input {
        Input::TestSet(name) => {
            let set = boards::load(name, n, goal.unwrap_or(&Goal::BlankLast))?;
            if let Some(g) = goal
                && *g != set.goal
            {
                return Err(invalid!(
                    format!("test set `{}`", super::bounds::shorten(name)),
                    "is defined for the {} goal (its optimal lengths refer to it), but the goal here is {g}",
                    set.goal
                ));
            }
            (set.goal, set.instances, stem(name))
        }
        Input::Board(text) => {
            let goal = goal.cloned().unwrap_or_default();
            let p = Sliding::new(n, goal.clone())?;
            let b = p.parse_board(text)?;
            let label = format!("board-{}", tag(&p, &b));
            (goal, vec![BoardInstance { id: "board".into(), tiles: b.tiles().to_vec(), optimal: None }], label)
        }
        Input::Random { n: count, seed } => {
            let goal = goal.cloned().unwrap_or_default();
            let p = Sliding::new(n, goal.clone())?;
            (goal, boards::random(&p, *count, *seed), random_label(*count, *seed))
        }
        Input::Facelets(_) | Input::Scramble(_) => {
            return Err(invalid!(
                "facelets or a scramble",
                "describe cubes; give a board or a test set of puzzle{}",
                n * n - 1
            ));
        }
    };
    let puzzle = Sliding::new(n, goal)?;
    let mut cases = Vec::with_capacity(instances.len());
    for inst in instances {
        let board = puzzle.board(&inst.tiles)?;
        puzzle.check_solvable(&board).map_err(|source| SolveError::Instance { id: inst.id.clone(), source })?;
        cases.push(Case { id: inst.id, state: board, optimal: inst.optimal });
    }
    Ok((puzzle, (cases, label)))
}
