//! Turns of the cube and the two move metrics.
//!
//! A [`Turn`] is a face and a clockwise amount of 1, 2 or 3 quarter turns
//! (`X`, `X2`, `X'`), numbered `face * 3 + quarters − 1` in URFDLB face
//! order. A [`Metric`] picks the move set a puzzle exposes: the
//! quarter-turn metric (12 moves, ids `U U' R R' F F' D D' L L' B B'`) or the
//! half-turn metric (18 moves, ids `U U2 U' R R2 R' …`, equal to turn ids).

use super::geometry::{FACE_LETTERS, OPPOSITE};
use crate::puzzle::{MoveId, Recent};
use std::fmt;

/// One face turn: face (URFDLB index) and clockwise quarter turns (1..=3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Turn(u8);

const TURN_NAMES: [&str; 18] =
    ["U", "U2", "U'", "R", "R2", "R'", "F", "F2", "F'", "D", "D2", "D'", "L", "L2", "L'", "B", "B2", "B'"];

impl Turn {
    /// The turn of `face` (0..6, URFDLB) by `quarters` (1..=3) clockwise.
    ///
    /// # Panics
    /// If `face >= 6` or `quarters` is not 1, 2 or 3 (a programming error).
    #[must_use]
    pub const fn new(face: u8, quarters: u8) -> Self {
        assert!(face < 6 && quarters >= 1 && quarters <= 3, "invalid turn");
        Self(face * 3 + quarters - 1)
    }

    /// The turn with id `id` (0..18).
    #[must_use]
    pub const fn from_id(id: u8) -> Self {
        assert!(id < 18, "turn id out of range");
        Self(id)
    }

    /// Turn id `face * 3 + quarters − 1`, in 0..18.
    #[inline]
    #[must_use]
    pub const fn id(self) -> u8 {
        self.0
    }

    /// Face index 0..6 in URFDLB order.
    #[inline]
    #[must_use]
    pub const fn face(self) -> u8 {
        self.0 / 3
    }

    /// Clockwise quarter turns: 1 (`X`), 2 (`X2`) or 3 (`X'`).
    #[inline]
    #[must_use]
    pub const fn quarters(self) -> u8 {
        self.0 % 3 + 1
    }

    /// The turn that undoes this one.
    #[inline]
    #[must_use]
    pub const fn inverse(self) -> Self {
        Self(self.face() * 3 + (4 - self.quarters()) - 1)
    }

    /// Length in the quarter-turn metric (a half turn counts 2).
    #[inline]
    #[must_use]
    pub const fn qtm_len(self) -> usize {
        if self.quarters() == 2 { 2 } else { 1 }
    }

    /// Singmaster name: `U`, `U2`, `U'`, ….
    #[must_use]
    pub const fn name(self) -> &'static str {
        TURN_NAMES[self.0 as usize]
    }

    /// Whether two turns act on opposite faces (and so commute).
    #[inline]
    #[must_use]
    pub const fn opposite_faces(self, other: Self) -> bool {
        OPPOSITE[self.face() as usize] == other.face()
    }

    /// All 18 turns in id order.
    pub fn all() -> impl Iterator<Item = Turn> {
        (0..18).map(Turn)
    }

    /// Face letter of this turn.
    #[must_use]
    pub const fn face_letter(self) -> char {
        FACE_LETTERS[self.face() as usize]
    }
}

impl fmt::Display for Turn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The move metric: which turns count as one move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Metric {
    /// Quarter-turn metric: 12 moves `X` and `X'`; a half turn costs 2.
    #[default]
    Qtm,
    /// Half-turn metric: 18 moves `X`, `X2`, `X'`, each costing 1.
    Htm,
}

const QTM_TURNS: [Turn; 12] =
    [Turn(0), Turn(2), Turn(3), Turn(5), Turn(6), Turn(8), Turn(9), Turn(11), Turn(12), Turn(14), Turn(15), Turn(17)];
const HTM_TURNS: [Turn; 18] = {
    let mut t = [Turn(0); 18];
    let mut i = 0;
    while i < 18 {
        t[i] = Turn(i as u8);
        i += 1;
    }
    t
};

impl Metric {
    /// The turns of this metric's move set, indexed by move id.
    #[must_use]
    pub fn turns(self) -> &'static [Turn] {
        match self {
            Metric::Qtm => &QTM_TURNS,
            Metric::Htm => &HTM_TURNS,
        }
    }

    /// Number of moves: 12 (QTM) or 18 (HTM).
    #[must_use]
    pub fn num_moves(self) -> usize {
        self.turns().len()
    }

    /// The turn made by move `m`.
    #[inline]
    #[must_use]
    pub fn turn(self, m: MoveId) -> Turn {
        self.turns()[m as usize]
    }

    /// The move id of `t` in this metric, or `None` for a half turn in QTM.
    #[must_use]
    pub fn move_id(self, t: Turn) -> Option<MoveId> {
        match self {
            Metric::Htm => Some(t.id()),
            Metric::Qtm => match t.quarters() {
                1 => Some(t.face() * 2),
                3 => Some(t.face() * 2 + 1),
                _ => None,
            },
        }
    }

    /// Lower-case name, `qtm` or `htm`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Metric::Qtm => "qtm",
            Metric::Htm => "htm",
        }
    }

    /// Whether turn `t` after the turns in `recent` forms a redundant
    /// sequence that the scramble generator and the searches skip.
    ///
    /// QTM (EfficientCube's rules): `X X'`, `X X X`, and `X Y X'` with `Y`
    /// a turn of the face opposite `X`. HTM: two consecutive turns of one
    /// face, and turns of opposite faces in the non-canonical order
    /// (`D` may follow `U`, but `U` may not follow `D`; likewise `L` after
    /// `R` and `B` after `F`).
    #[inline]
    #[must_use]
    pub fn is_redundant(self, recent: Recent, t: Turn) -> bool {
        let Some(last) = recent.last.map(|m| self.turn(m)) else {
            return false;
        };
        match self {
            Metric::Qtm => {
                if t == last.inverse() {
                    return true;
                }
                let Some(before) = recent.before_last.map(|m| self.turn(m)) else {
                    return false;
                };
                (t == last && t == before) || (t == before.inverse() && last.opposite_faces(t))
            }
            Metric::Htm => t.face() == last.face() || (last.opposite_faces(t) && last.face() > t.face()),
        }
    }
}

impl fmt::Display for Metric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverse_is_involution_and_names_match() {
        for t in Turn::all() {
            assert_eq!(t.inverse().inverse(), t);
            assert_eq!(t.inverse().face(), t.face());
            assert_eq!(t.quarters() + t.inverse().quarters(), 4);
            assert!(t.name().starts_with(t.face_letter()));
        }
    }

    #[test]
    fn move_ids_round_trip() {
        for metric in [Metric::Qtm, Metric::Htm] {
            for (m, &t) in metric.turns().iter().enumerate() {
                assert_eq!(metric.move_id(t), Some(m as MoveId));
            }
        }
        assert_eq!(Metric::Qtm.move_id(Turn::new(0, 2)), None);
    }
}
