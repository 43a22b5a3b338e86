//! [`Cube2Error`]: why a 24-character sticker string is not a 2×2×2 cube.
//! One variant per rule, checked in this order, with the messages of the
//! 3×3×3's [`crate::cube3::FaceletError`] for the rules the two share.

use thiserror::Error;

/// Why a sticker string is not a valid 2×2×2 cube.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum Cube2Error {
    /// Not 24 characters.
    #[error("a 2×2×2 facelet string needs exactly 24 characters, got {len}")]
    WrongLength {
        /// Characters found.
        len: usize,
    },
    /// A character that is not one of `URFDLB`.
    #[error("character '{ch}' at position {position} is not a face letter (expected one of U R F D L B)")]
    NotAFace {
        /// The character.
        ch: char,
        /// 1-based position in the string.
        position: usize,
    },
    /// A colour appears other than 4 times.
    #[error("colour {colour} appears {count} times; every colour must appear exactly 4 times on a 2×2×2")]
    ColourCount {
        /// The colour letter.
        colour: char,
        /// How often it appears.
        count: usize,
    },
    /// Three stickers that form no real corner piece.
    #[error("the stickers {colours} at corner {slot} form no real corner")]
    NotACorner {
        /// The corner slot, e.g. `URF`, as the string is written.
        slot: &'static str,
        /// The sticker colours, in the slot's clockwise order.
        colours: String,
    },
    /// The same piece occupies two slots.
    #[error("the {piece} piece appears twice (at {first} and at {second})")]
    DuplicatePiece {
        /// The piece name, e.g. `URF`.
        piece: &'static str,
        /// The first slot holding it.
        first: &'static str,
        /// The second slot holding it.
        second: &'static str,
    },
    /// Corner twists do not sum to 0 mod 3.
    #[error("a corner is twisted: the corner twists sum to {sum} mod 3, but must sum to 0")]
    CornerTwisted {
        /// Twist sum mod 3 (1 or 2).
        sum: u32,
    },
}

crate::cube3::cubies::from_sticker_fault!(Cube2Error);
