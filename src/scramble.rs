//! Scramble generator: seeded reverse random walks from the goal.
//!
//! A walk starts at the puzzle's goal and makes `L` random moves, where `L`
//! is fixed or drawn uniformly from an inclusive range. Every prefix is
//! yielded as a [`Step`] `(state, last_move, depth)`: the state after
//! `depth` moves and the move that produced it, whose inverse is the first
//! move of a path back to the goal. This is the self-supervised training
//! signal of the oracles.
//!
//! With pruning on, a move that would make a redundant sequence
//! ([`Puzzle::is_redundant`]: on the cube `X X'`, `X X X`, `X Y X'` with `Y`
//! opposite `X`, and the HTM canonical-order rules; on sliding puzzles
//! undoing the previous slide) is never drawn; the next move is uniform over
//! the remaining applicable moves.
//!
//! The walk kind ([`WalkKind`]) decides how each move is drawn. `random`
//! walks (the default) draw it uniformly as above, so they may come back to
//! a state they already passed (on the cube `R U R' U'` six times is the
//! goal again), and a state's depth can be far above its distance from the
//! goal. `non-backtracking` walks remember the keys ([`Puzzle::key`]) of
//! every state on the walk, the goal included, and draw uniformly among the
//! allowed moves whose child is not one of them; a walk that has no such
//! move (trapped among its own states) ends early, and
//! [`Scrambler::complete_walk`] redraws it until one reaches the asked
//! length.
//!
//! Randomness is ChaCha8 keyed by `(seed, stream)`: the same pair always
//! gives the same walks, and different streams are independent, so each
//! worker thread takes its own stream.

use crate::puzzle::{MoveId, Puzzle, Recent};
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use rand_distr::{Distribution, Uniform};
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Walks that a batch may redraw before giving up: a non-backtracking walk
/// that keeps getting trapped before its length (a length above the number
/// of states, or nearly) is an error, not an endless loop.
pub const MAX_WALK_ATTEMPTS: usize = 10_000;

/// How each move of a walk is chosen (config key `data.walk`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WalkKind {
    /// Uniform over the applicable moves (less the redundant ones when
    /// pruning); the walk may revisit states. The walks of every run before
    /// walk kinds existed.
    #[default]
    Random,
    /// Uniform over the allowed moves whose child is not already on the
    /// walk: a walk never visits a state twice.
    NonBacktracking,
}

impl WalkKind {
    /// Every kind, in the order the docs list them.
    pub const ALL: [WalkKind; 2] = [WalkKind::Random, WalkKind::NonBacktracking];

    /// The name used in configs, `meta.json` and tables.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Random => "random",
            Self::NonBacktracking => "non-backtracking",
        }
    }
}

impl std::fmt::Display for WalkKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// How long each walk is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WalkLength {
    /// Every walk has exactly this many moves.
    Fixed(usize),
    /// Each walk's length is drawn uniformly from `min..=max`.
    Range {
        /// Shortest walk.
        min: usize,
        /// Longest walk.
        max: usize,
    },
}

/// An invalid scramble specification.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ScrambleError {
    /// A walk length below 1.
    #[error("scramble length ({0}) must be >= 1")]
    ZeroLength(usize),
    /// A range whose minimum exceeds its maximum.
    #[error("scramble length range {min}..={max} is empty: min must be <= max")]
    EmptyRange {
        /// The range's minimum.
        min: usize,
        /// The range's maximum.
        max: usize,
    },
    /// Every one of [`MAX_WALK_ATTEMPTS`] walks was trapped among its own
    /// states before reaching the length asked for.
    #[error(
        "no {kind} walk of {length} moves found in {attempts} attempts: every one was trapped among its own \
         states (choose a shorter data.scramble_len or walk = \"random\")"
    )]
    Trapped {
        /// The walk kind.
        kind: WalkKind,
        /// The length asked for.
        length: usize,
        /// Walks tried.
        attempts: usize,
    },
}

/// One prefix of a walk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step<S> {
    /// The state after `depth` moves from the goal.
    pub state: S,
    /// The move that produced `state`.
    pub last_move: MoveId,
    /// Number of moves made from the goal (1-based).
    pub depth: usize,
}

#[derive(Clone, Debug)]
enum LengthSampler {
    Fixed(usize),
    Range(Uniform<usize>),
}

/// A seeded stream of reverse random walks over puzzle `P`.
#[derive(Debug)]
pub struct Scrambler<P: Puzzle> {
    puzzle: P,
    rng: ChaCha8Rng,
    length: LengthSampler,
    prune: bool,
    kind: WalkKind,
}

impl<P: Puzzle> Scrambler<P> {
    /// A scrambler for `puzzle` whose randomness is `(seed, stream)`.
    pub fn new(puzzle: P, length: WalkLength, prune: bool, seed: u64, stream: u64) -> Result<Self, ScrambleError> {
        let length = match length {
            WalkLength::Fixed(0) => return Err(ScrambleError::ZeroLength(0)),
            WalkLength::Fixed(n) => LengthSampler::Fixed(n),
            WalkLength::Range { min: 0, .. } => return Err(ScrambleError::ZeroLength(0)),
            WalkLength::Range { min, max } if min > max => return Err(ScrambleError::EmptyRange { min, max }),
            WalkLength::Range { min, max } => LengthSampler::Range(
                Uniform::new_inclusive(min, max).map_err(|_| ScrambleError::EmptyRange { min, max })?,
            ),
        };
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(stream);
        Ok(Self { puzzle, rng, length, prune, kind: WalkKind::Random })
    }

    /// The same scrambler making walks of `kind` (a new scrambler makes
    /// `random` walks).
    #[must_use]
    pub fn with_walk(mut self, kind: WalkKind) -> Self {
        self.kind = kind;
        self
    }

    /// The kind of walk this scrambler makes.
    pub fn walk_kind(&self) -> WalkKind {
        self.kind
    }

    /// The puzzle being scrambled.
    pub fn puzzle(&self) -> &P {
        &self.puzzle
    }

    /// The random generator (for checkpointing its position).
    pub fn rng(&self) -> &ChaCha8Rng {
        &self.rng
    }

    /// Mutable access to the random generator (for restoring a checkpoint).
    pub fn rng_mut(&mut self) -> &mut ChaCha8Rng {
        &mut self.rng
    }

    /// Draws a walk length from the scrambler's [`WalkLength`].
    pub fn draw_length(&mut self) -> usize {
        match &self.length {
            LengthSampler::Fixed(n) => *n,
            LengthSampler::Range(u) => u.sample(&mut self.rng),
        }
    }

    /// Starts a new walk; iterate it to get its steps in order.
    pub fn walk(&mut self) -> Walk<'_, P> {
        let len = self.draw_length();
        self.walk_of(len)
    }

    /// Starts a new walk of `len` moves (fewer if it is trapped).
    pub fn walk_of(&mut self, len: usize) -> Walk<'_, P> {
        let state = self.puzzle.goal();
        let visited = match self.kind {
            WalkKind::Random => Vec::new(),
            WalkKind::NonBacktracking => vec![self.puzzle.key(&state)],
        };
        Walk { scrambler: self, state, recent: Recent::default(), depth: 0, len, visited }
    }

    /// Replaces `out` with the steps of a walk of exactly `len` moves,
    /// redrawing walks that end early (only a non-backtracking walk can be
    /// trapped on the shipped puzzles).
    ///
    /// # Errors
    /// [`ScrambleError::Trapped`] after [`MAX_WALK_ATTEMPTS`] early ends.
    pub fn complete_walk(&mut self, len: usize, out: &mut Vec<Step<P::State>>) -> Result<(), ScrambleError> {
        for _ in 0..MAX_WALK_ATTEMPTS {
            out.clear();
            out.extend(self.walk_of(len));
            if out.len() == len {
                return Ok(());
            }
        }
        Err(ScrambleError::Trapped { kind: self.kind, length: len, attempts: MAX_WALK_ATTEMPTS })
    }

    /// Draws the next move from `state` after `recent`, or `None` if no
    /// move is allowed (a dead end, impossible for the shipped puzzles).
    pub fn next_move(&mut self, state: &P::State, recent: Recent) -> Option<MoveId> {
        let mut allowed = [0 as MoveId; 32];
        let mut n = 0;
        for m in 0..self.puzzle.num_moves() as MoveId {
            if self.puzzle.is_applicable(state, m) && !(self.prune && self.puzzle.is_redundant(recent, m)) {
                allowed[n] = m;
                n += 1;
            }
        }
        (n > 0).then(|| allowed[self.rng.random_range(0..n)])
    }

    /// Like [`Self::next_move`], less the moves whose child's key is in
    /// `visited` (a linear scan: walks are short).
    pub fn next_new_move(&mut self, state: &P::State, recent: Recent, visited: &[P::Key]) -> Option<MoveId> {
        let mut allowed = [0 as MoveId; 32];
        let mut n = 0;
        let mut child = state.clone();
        for m in 0..self.puzzle.num_moves() as MoveId {
            if self.puzzle.is_applicable(state, m) && !(self.prune && self.puzzle.is_redundant(recent, m)) {
                self.puzzle.apply(&mut child, m);
                let new = !visited.contains(&self.puzzle.key(&child));
                self.puzzle.undo(&mut child, m);
                if new {
                    allowed[n] = m;
                    n += 1;
                }
            }
        }
        (n > 0).then(|| allowed[self.rng.random_range(0..n)])
    }

    /// Appends the steps of one new walk to `out` and returns its length.
    pub fn walk_into(&mut self, out: &mut Vec<Step<P::State>>) -> usize {
        let before = out.len();
        out.extend(self.walk());
        out.len() - before
    }
}

/// The steps of one walk, in order of depth.
pub struct Walk<'a, P: Puzzle> {
    scrambler: &'a mut Scrambler<P>,
    state: P::State,
    recent: Recent,
    depth: usize,
    len: usize,
    /// Keys of the states so far (non-backtracking walks only).
    visited: Vec<P::Key>,
}

impl<P: Puzzle> Walk<'_, P> {
    /// The number of moves this walk makes (a trapped non-backtracking
    /// walk stops before).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the walk makes no move (never, for a valid length).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl<P: Puzzle> Iterator for Walk<'_, P> {
    type Item = Step<P::State>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.depth >= self.len {
            return None;
        }
        let m = match self.scrambler.kind {
            WalkKind::Random => self.scrambler.next_move(&self.state, self.recent)?,
            WalkKind::NonBacktracking => self.scrambler.next_new_move(&self.state, self.recent, &self.visited)?,
        };
        self.scrambler.puzzle.apply(&mut self.state, m);
        if self.scrambler.kind == WalkKind::NonBacktracking {
            self.visited.push(self.scrambler.puzzle.key(&self.state));
        }
        self.recent = self.recent.push(m);
        self.depth += 1;
        Some(Step { state: self.state.clone(), last_move: m, depth: self.depth })
    }
}
