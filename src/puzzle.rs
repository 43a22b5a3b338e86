//! The [`Puzzle`] trait: the one interface that search, training and the
//! classical baselines see of a puzzle.
//!
//! A `Puzzle` value is a puzzle *definition* (the cube with its move metric,
//! or an n×n sliding board with its goal); states are plain values of the
//! associated [`Puzzle::State`] type. The trait is shaped by its three callers:
//!
//! * batched beam search encodes many states into one caller-owned `f32`
//!   buffer ([`Puzzle::encode_batch`]), so a whole beam becomes one network
//!   batch with no allocation per node;
//! * A*, IDA* and friends apply and undo moves in place ([`Puzzle::apply`],
//!   [`Puzzle::undo`]), never allocating;
//! * duplicate detection uses a compact, hashable [`Puzzle::Key`].
//!
//! Moves are small integers `0..num_moves()`, each with a name and an inverse.
//! Puzzle code never depends on the neural-network stack.

use std::fmt::Debug;
use std::hash::Hash;

/// Index of a move within a puzzle's move set, `0..Puzzle::num_moves()`.
pub type MoveId = u8;

/// The last two moves of a path, used to prune redundant sequences.
///
/// Both the scramble generator and the searches ask
/// [`Puzzle::is_redundant`] whether a move may follow this history.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Recent {
    /// The most recent move, if any.
    pub last: Option<MoveId>,
    /// The move before `last`, if any.
    pub before_last: Option<MoveId>,
}

impl Recent {
    /// The history after making move `m`.
    #[inline]
    #[must_use]
    pub fn push(self, m: MoveId) -> Self {
        Self { last: Some(m), before_last: self.last }
    }
}

/// A puzzle definition: moves, goal test, state encoding and keys.
pub trait Puzzle: Clone + Send + Sync {
    /// One configuration of the puzzle. Cheap to clone (fixed size, no heap).
    type State: Clone + Eq + Hash + Debug + Send + Sync;
    /// A compact exact identity of a state for hash sets and tables.
    type Key: Copy + Eq + Ord + Hash + Debug + Send + Sync;

    /// Short human-readable name, e.g. `cube3-qtm` or `puzzle15`.
    fn name(&self) -> String;

    /// Number of moves in the move set; move ids are `0..num_moves()`.
    fn num_moves(&self) -> usize;

    /// Name of move `m`, e.g. `R'` or `U` (blank goes up).
    fn move_name(&self, m: MoveId) -> &str;

    /// The move that undoes `m`.
    fn inverse(&self, m: MoveId) -> MoveId;

    /// The goal (solved) state.
    fn goal(&self) -> Self::State;

    /// Whether `s` is the goal state.
    fn is_goal(&self, s: &Self::State) -> bool;

    /// Whether `m` can be applied to `s` (a sliding move needs a tile to
    /// slide; every cube move is always applicable).
    #[inline]
    fn is_applicable(&self, _s: &Self::State, _m: MoveId) -> bool {
        true
    }

    /// Applies `m` to `s` in place. `m` must be applicable.
    fn apply(&self, s: &mut Self::State, m: MoveId);

    /// Undoes `m` in place: `apply(s, m); undo(s, m)` leaves `s` unchanged.
    #[inline]
    fn undo(&self, s: &mut Self::State, m: MoveId) {
        self.apply(s, self.inverse(m));
    }

    /// Whether `m` after the moves in `recent` makes a redundant sequence
    /// (e.g. `X X'` on the cube, or undoing the previous slide).
    fn is_redundant(&self, recent: Recent, m: MoveId) -> bool;

    /// Compact exact key of `s`.
    fn key(&self, s: &Self::State) -> Self::Key;

    /// Length of one state's encoding in `f32`s.
    fn encoded_len(&self) -> usize;

    /// Writes the encoding of `s` into `out[..encoded_len()]`, overwriting
    /// every entry (zeros included).
    fn encode(&self, s: &Self::State, out: &mut [f32]);

    /// Encodes `states` back to back into `out`, which must hold exactly
    /// `states.len() * encoded_len()` values.
    fn encode_batch(&self, states: &[Self::State], out: &mut [f32]) {
        let n = self.encoded_len();
        assert_eq!(out.len(), states.len() * n, "encode_batch: buffer size mismatch");
        for (s, chunk) in states.iter().zip(out.chunks_exact_mut(n)) {
            self.encode(s, chunk);
        }
    }
}

/// The state `path` leads to from `start`, or `None` if some move of it is
/// not applicable where it is made (how solutions are replayed).
pub fn replay<P: Puzzle>(puzzle: &P, start: &P::State, path: &[MoveId]) -> Option<P::State> {
    let mut s = start.clone();
    for &m in path {
        if !puzzle.is_applicable(&s, m) {
            return None;
        }
        puzzle.apply(&mut s, m);
    }
    Some(s)
}
