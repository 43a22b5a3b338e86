//! Facelet strings of the 2×2×2: 24 letters, four per face, faces in
//! URFDLB order, each face read row by row as the 3×3×3's facelet strings
//! are ([`crate::cube3::geometry`]: U seen from above with F below it, D
//! from below with F above it, the side faces from outside with U on top).
//! So the solved cube is `UUUURRRRFFFFDDDDLLLLBBBB`, and sticker `(r, c)`
//! of a face is the 3×3×3's corner sticker `(2r, 2c)`.
//!
//! A letter names a colour: the colour of that face when the cube is solved
//! in the model's orientation (DBL at the down-back-left with D down).
//! Parsing checks, in order: length, letters, colour counts (4 each), that
//! each slot's three stickers form a real corner, that no corner appears
//! twice, and that the twists sum to 0 mod 3 ([`Cube2Error`], slots named
//! as the string is written). A 2×2×2 has no centres to fix its
//! orientation, so a valid string in any of the 24 whole-cube orientations
//! is accepted and turned by the one rotation that brings the DBL piece
//! (colours D, L, B) home with its D sticker down; the 24 orientations of
//! one cube all read as the same position.

use super::corners::{Corners, STICKERS};
use super::error::Cube2Error;
use super::state::Cube2;
use crate::cube3::facelets::read_letters;
use crate::cube3::geometry::FACE_LETTERS;
use std::fmt;
use std::str::FromStr;

/// The text forms of a 2×2×2 position.
impl Cube2 {
    /// Parses and validates a 24-character facelet string in any
    /// orientation (see the module documentation).
    pub fn from_facelets(text: &str) -> Result<Self, Cube2Error> {
        let corners = Corners::from_stickers(&read_letters::<STICKERS>(text)?)?;
        match corners.twist_sum() {
            0 => Ok(Cube2::oriented(&corners)),
            sum => Err(Cube2Error::CornerTwisted { sum }),
        }
    }

    /// The 24-character facelet string (in the model's orientation).
    #[must_use]
    pub fn to_facelets(&self) -> String {
        self.stickers().iter().map(|&c| FACE_LETTERS[c as usize]).collect()
    }
}

impl fmt::Display for Cube2 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_facelets())
    }
}

impl fmt::Debug for Cube2 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Cube2({})", self.to_facelets())
    }
}

impl FromStr for Cube2 {
    type Err = Cube2Error;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::from_facelets(s)
    }
}
