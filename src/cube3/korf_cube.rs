//! [`KorfCube`]: the cube on the coordinate level ([`Coords`]: corner
//! permutation and twist, two sets of six edges) as a [`Puzzle`] whose move
//! ids, names and pruning rules are exactly those of
//! [`Cube3Puzzle`](super::Cube3Puzzle) with the same metric, so a path found
//! on coordinates replays move for move on a [`Cube3`]. Korf's pattern
//! databases (`crate::heuristics::korf`) and solver (`crate::search::korf`)
//! are built on it.

use super::coord::{Coords, MoveTables};
use super::state::{Cube3, ONE_HOT_LEN};
use super::turn::{Metric, Turn};
use crate::puzzle::{MoveId, Puzzle, Recent};
use std::fmt;

/// The cube on the coordinate level, with the move set of one metric.
///
/// Move ids, names, inverses and [`Puzzle::is_redundant`] equal those of
/// [`Cube3Puzzle`](super::Cube3Puzzle) `{ metric }`.
#[derive(Clone, Copy)]
pub struct KorfCube {
    /// The move metric (QTM: 12 moves, HTM: 18).
    pub metric: Metric,
    tables: &'static MoveTables,
    goal: Coords,
}

impl fmt::Debug for KorfCube {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KorfCube").field("metric", &self.metric).finish_non_exhaustive()
    }
}

impl KorfCube {
    /// The coordinate cube with `metric`'s move set (builds the shared move
    /// tables on first use).
    #[must_use]
    pub fn new(metric: Metric) -> Self {
        Self { metric, tables: MoveTables::get(), goal: Coords::solved() }
    }

    /// The coordinates of a sticker state.
    #[must_use]
    pub fn from_cube3(&self, c: &Cube3) -> Coords {
        Coords::from_cube3(c)
    }

    /// The sticker state of coordinates `s`.
    #[must_use]
    pub fn to_cube3(&self, s: &Coords) -> Cube3 {
        Cube3::from_cubies(&s.to_cubies())
    }

    /// The turn made by move `m`.
    #[inline]
    #[must_use]
    pub fn turn(&self, m: MoveId) -> Turn {
        self.moves().turn(m)
    }

    /// The sticker cube with the same move set: move ids, names, inverses
    /// and pruning are delegated to it, so the two cannot drift apart.
    #[inline]
    fn moves(&self) -> super::Cube3Puzzle {
        super::Cube3Puzzle::new(self.metric)
    }

    /// The turns of a path of move ids (to replay on a [`Cube3`]).
    #[must_use]
    pub fn turns(&self, path: &[MoveId]) -> Vec<Turn> {
        path.iter().map(|&m| self.turn(m)).collect()
    }

    /// The shared move tables.
    #[must_use]
    pub fn tables(&self) -> &'static MoveTables {
        self.tables
    }
}

impl Puzzle for KorfCube {
    type State = Coords;
    type Key = u128;

    fn name(&self) -> String {
        format!("cube3-coords-{}", self.metric)
    }

    #[inline]
    fn num_moves(&self) -> usize {
        self.moves().num_moves()
    }

    fn move_name(&self, m: MoveId) -> &str {
        self.turn(m).name()
    }

    #[inline]
    fn inverse(&self, m: MoveId) -> MoveId {
        self.moves().inverse(m)
    }

    fn goal(&self) -> Coords {
        self.goal
    }

    #[inline]
    fn is_goal(&self, s: &Coords) -> bool {
        *s == self.goal
    }

    #[inline]
    fn apply(&self, s: &mut Coords, m: MoveId) {
        *s = self.tables.apply(s, self.turn(m).id() as usize);
    }

    #[inline]
    fn is_redundant(&self, recent: Recent, m: MoveId) -> bool {
        self.moves().is_redundant(recent, m)
    }

    #[inline]
    fn key(&self, s: &Coords) -> u128 {
        s.key()
    }

    fn encoded_len(&self) -> usize {
        ONE_HOT_LEN
    }

    fn encode(&self, s: &Coords, out: &mut [f32]) {
        self.to_cube3(s).encode_one_hot(out);
    }
}
