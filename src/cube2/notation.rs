//! Move notation of the 2×2×2: the 3×3×3's Singmaster tokens
//! ([`crate::cube3::notation`]) restricted to the faces the model turns,
//! `U`, `R` and `F`, each as `X`, `X'` or `X2`. A turn of D, L or B is
//! refused with [`NotationError::FaceNotTurned`], naming the token and its
//! position. As on the 3×3×3, `X2` is accepted in either metric (a half
//! turn, the same position as `X X`); the 3×3×3's `to_qtm`, `to_htm`,
//! `invert` and `format` apply unchanged to the parsed turns.

use crate::cube3::Turn;
use crate::cube3::notation::{self, NotationError};

/// The faces the 2×2×2 model turns: the first three of URFDLB.
pub const FACES: u8 = 3;

/// Parses a sequence such as `R U R' U2 F`.
pub fn parse(text: &str) -> Result<Vec<Turn>, NotationError> {
    notation::parse_faces(text, FACES)
}
