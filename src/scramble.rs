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
//! Randomness is ChaCha8 keyed by `(seed, stream)`: the same pair always
//! gives the same walks, and different streams are independent, so each
//! worker thread takes its own stream.

use crate::puzzle::{MoveId, Puzzle, Recent};
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use rand_distr::{Distribution, Uniform};
use thiserror::Error;

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
        Ok(Self { puzzle, rng, length, prune })
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

    fn draw_length(&mut self) -> usize {
        match &self.length {
            LengthSampler::Fixed(n) => *n,
            LengthSampler::Range(u) => u.sample(&mut self.rng),
        }
    }

    /// Starts a new walk; iterate it to get its steps in order.
    pub fn walk(&mut self) -> Walk<'_, P> {
        let len = self.draw_length();
        let state = self.puzzle.goal();
        Walk { scrambler: self, state, recent: Recent::default(), depth: 0, len }
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
}

impl<P: Puzzle> Walk<'_, P> {
    /// The number of moves this walk makes.
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
        let m = self.scrambler.next_move(&self.state, self.recent)?;
        self.scrambler.puzzle.apply(&mut self.state, m);
        self.recent = self.recent.push(m);
        self.depth += 1;
        Some(Step { state: self.state.clone(), last_move: m, depth: self.depth })
    }
}
