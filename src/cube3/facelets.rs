//! Facelet strings: the 54-character URFDLB text form of a cube.
//!
//! Stickers are listed U1..U9, R1..R9, F1..F9, D1..D9, L1..L9, B1..B9; each
//! letter names the face whose centre carries that colour (see the module
//! [`super::geometry`] for the reading order of each face). Parsing checks,
//! in order: length, letters, colour counts, distinct centres, then the
//! piece rules of [`super::cubies`]. A string whose centres carry six
//! distinct letters in another arrangement is read by renaming each colour
//! after the face its centre sits on.

use super::cubies::{Cubies, FaceletError, StickerFault};
use super::geometry::{FACE_LETTERS, FACES, STICKERS};
use super::state::{Cube3, ONE_HOT_LEN};
use std::fmt;
use std::str::FromStr;

fn face_index(ch: char) -> Option<u8> {
    FACE_LETTERS.iter().position(|&f| f == ch).map(|i| i as u8)
}

/// Reads a string of `N` face letters as colours 0..6 (URFDLB), checking
/// in order its length, its letters, and that every colour appears
/// `N / 6` times. Surrounding whitespace is ignored.
pub fn read_letters<const N: usize>(text: &str) -> Result<[u8; N], StickerFault> {
    let text = text.trim();
    let len = text.chars().count();
    if len != N {
        return Err(StickerFault::WrongLength { len });
    }
    let mut colours = [0u8; N];
    for (i, ch) in text.chars().enumerate() {
        colours[i] = face_index(ch).ok_or(StickerFault::NotAFace { ch, position: i + 1 })?;
    }
    let mut counts = [0usize; FACES];
    for &c in &colours {
        counts[c as usize] += 1;
    }
    if let Some(c) = (0..FACES).find(|&c| counts[c] != N / FACES) {
        return Err(StickerFault::ColourCount { colour: FACE_LETTERS[c], count: counts[c] });
    }
    Ok(colours)
}

/// Parses and validates a facelet string.
pub fn parse(text: &str) -> Result<Cube3, FaceletError> {
    let mut colours = read_letters::<STICKERS>(text)?;
    let centres: [u8; FACES] = std::array::from_fn(|face| colours[face * 9 + 4]);
    let mut rename = [u8::MAX; FACES];
    for (face, &c) in centres.iter().enumerate() {
        if rename[c as usize] != u8::MAX {
            return Err(FaceletError::Centres { centres: centres.iter().map(|&c| FACE_LETTERS[c as usize]).collect() });
        }
        rename[c as usize] = face as u8;
    }
    for c in &mut colours {
        *c = rename[*c as usize];
    }
    let cubies = Cubies::from_stickers(&colours)?;
    Ok(Cube3::from_cubies(&cubies))
}

/// The 54-character facelet string of `cube`.
#[must_use]
pub fn format(cube: &Cube3) -> String {
    cube.stickers().iter().map(|&c| FACE_LETTERS[c as usize]).collect()
}

/// The text forms of a cube: facelet strings, and the one-hot encoding read
/// back through them.
impl Cube3 {
    /// Parses and validates a 54-character facelet string.
    pub fn from_facelets(text: &str) -> Result<Self, FaceletError> {
        parse(text)
    }

    /// The 54-character facelet string.
    #[must_use]
    pub fn to_facelets(&self) -> String {
        format(self)
    }

    /// Reads a one-hot encoding back (argmax per sticker) and validates it.
    pub fn decode_one_hot(enc: &[f32]) -> Result<Self, FaceletError> {
        if enc.len() != ONE_HOT_LEN {
            return Err(FaceletError::WrongLength { len: enc.len() / 6 });
        }
        let text: String = enc
            .chunks_exact(6)
            .map(|c| {
                let best = (0..6).max_by(|&a, &b| c[a].total_cmp(&c[b])).unwrap_or(0);
                FACE_LETTERS[best]
            })
            .collect();
        Self::from_facelets(&text)
    }
}

impl fmt::Display for Cube3 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_facelets())
    }
}

impl fmt::Debug for Cube3 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Cube3({})", self.to_facelets())
    }
}

impl FromStr for Cube3 {
    type Err = FaceletError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::from_facelets(s)
    }
}
