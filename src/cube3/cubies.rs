//! The cubie view of a cube, and the validation of sticker states.
//!
//! A sticker state names a real, reachable cube exactly when it can be read
//! as 8 distinct corner pieces and 12 distinct edge pieces whose twists sum
//! to 0 mod 3, whose flips sum to an even number, and whose corner and edge
//! permutations have equal parity. [`Cubies::from_stickers`] reads a state
//! and checks these rules in that order, one distinct [`FaceletError`]
//! variant per rule. Corner slots and pieces follow Kociemba's numbering
//! (URF UFL ULB UBR DFR DLF DBL DRB; edges UR UF UL UB DR DF DL DB FR FL BL
//! BR); a corner's twist is the position of its U/D sticker in its slot's
//! clockwise facelet list, an edge's flip is whether its first colour sits
//! on its slot's second facelet. The rules the 2×2×2 shares (letters,
//! colour counts, corner pieces) are reported as a [`StickerFault`], which
//! each cube's parser turns into its own error type; [`read_corners`] reads
//! the corners of either.

use super::geometry::{
    CORNER_COLOURS, CORNER_FACELETS, CORNER_NAMES, EDGE_COLOURS, EDGE_FACELETS, EDGE_NAMES, FACE_LETTERS,
};
use rand::{Rng, RngExt};
use thiserror::Error;

/// Why a facelet string is not a valid cube. One variant per rule.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FaceletError {
    /// Not 54 characters.
    #[error("a facelet string needs exactly 54 characters, got {len}")]
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
    /// A colour appears other than 9 times.
    #[error("colour {colour} appears {count} times; every colour must appear exactly 9 times")]
    ColourCount {
        /// The colour letter.
        colour: char,
        /// How often it appears.
        count: usize,
    },
    /// The six centres do not carry six distinct colours.
    #[error("the centres (U R F D L B) read {centres}: they must be 6 distinct colours")]
    Centres {
        /// The six centre letters in URFDLB order.
        centres: String,
    },
    /// Three corner stickers that form no real corner piece.
    #[error("the stickers {colours} at corner {slot} form no real corner")]
    NotACorner {
        /// The corner slot, e.g. `URF`.
        slot: &'static str,
        /// The sticker colours, in the slot's clockwise order.
        colours: String,
    },
    /// Two edge stickers that form no real edge piece.
    #[error("the stickers {colours} at edge {slot} form no real edge")]
    NotAnEdge {
        /// The edge slot, e.g. `UR`.
        slot: &'static str,
        /// The sticker colours.
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
    /// Edge flips do not sum to an even number.
    #[error("an edge is flipped: {flips} edges are flipped, but the number must be even")]
    EdgeFlipped {
        /// Number of flipped edges.
        flips: u32,
    },
    /// Corner and edge permutation parities differ.
    #[error("two pieces are swapped: the corner permutation is {corners} but the edge permutation is {edges}")]
    PiecesSwapped {
        /// `even` or `odd`.
        corners: &'static str,
        /// `even` or `odd`.
        edges: &'static str,
    },
}

/// The cube as pieces: which piece sits in each slot, and how it is turned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cubies {
    /// `cp[slot]` = corner piece in corner slot `slot`.
    pub cp: [u8; 8],
    /// `co[slot]` = twist (0..3) of the corner in `slot`.
    pub co: [u8; 8],
    /// `ep[slot]` = edge piece in edge slot `slot`.
    pub ep: [u8; 12],
    /// `eo[slot]` = flip (0..2) of the edge in `slot`.
    pub eo: [u8; 12],
}

fn colour_string(colours: &[u8]) -> String {
    colours.iter().map(|&c| FACE_LETTERS[c as usize]).collect()
}

/// What is wrong with a sticker string under the rules the 3×3×3 and the
/// 2×2×2 share (letters, colour counts, corner pieces). Both parsers
/// report it as their own error type, in the variants of the same names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StickerFault {
    /// Not the puzzle's number of stickers.
    WrongLength {
        /// Characters found.
        len: usize,
    },
    /// A character that is not one of `URFDLB`.
    NotAFace {
        /// The character.
        ch: char,
        /// 1-based position in the string.
        position: usize,
    },
    /// A colour that appears other than once per sticker of a face.
    ColourCount {
        /// The colour letter.
        colour: char,
        /// How often it appears.
        count: usize,
    },
    /// Three stickers that form no real corner piece.
    NotACorner {
        /// The corner slot.
        slot: &'static str,
        /// The sticker colours, in the slot's clockwise order.
        colours: String,
    },
    /// The same corner piece in two slots.
    DuplicatePiece {
        /// The piece name.
        piece: &'static str,
        /// The first slot holding it.
        first: &'static str,
        /// The second slot holding it.
        second: &'static str,
    },
}

/// `impl From<StickerFault>` for an error type that has the variants of
/// [`StickerFault`] under the same names and fields.
macro_rules! from_sticker_fault {
    ($error:ty) => {
        impl From<$crate::cube3::cubies::StickerFault> for $error {
            fn from(e: $crate::cube3::cubies::StickerFault) -> Self {
                use $crate::cube3::cubies::StickerFault as F;
                match e {
                    F::WrongLength { len } => Self::WrongLength { len },
                    F::NotAFace { ch, position } => Self::NotAFace { ch, position },
                    F::ColourCount { colour, count } => Self::ColourCount { colour, count },
                    F::NotACorner { slot, colours } => Self::NotACorner { slot, colours },
                    F::DuplicatePiece { piece, first, second } => Self::DuplicatePiece { piece, first, second },
                }
            }
        }
    };
}
pub(crate) use from_sticker_fault;

from_sticker_fault!(FaceletError);

/// Reads the eight corner slots (Kociemba's order) as eight distinct
/// pieces: `colours(slot)` are the slot's three sticker colours, clockwise
/// from its U/D sticker. Returns `(cp, co)`: the piece in each slot and its
/// twist, the position of the piece's U/D colour in that list.
pub fn read_corners(colours: impl Fn(usize) -> [u8; 3]) -> Result<([u8; 8], [u8; 8]), StickerFault> {
    let (mut cp, mut co) = ([0u8; 8], [0u8; 8]);
    let mut slot_of = [None::<usize>; 8];
    for slot in 0..8 {
        let colours = colours(slot);
        let not_a_corner = || StickerFault::NotACorner { slot: CORNER_NAMES[slot], colours: colour_string(&colours) };
        let twist = colours.iter().position(|&x| x == 0 || x == 3).ok_or_else(not_a_corner)?;
        let read = [colours[twist], colours[(twist + 1) % 3], colours[(twist + 2) % 3]];
        let piece = CORNER_COLOURS.iter().position(|&cc| cc == read).ok_or_else(not_a_corner)?;
        if let Some(first) = slot_of[piece] {
            return Err(StickerFault::DuplicatePiece {
                piece: CORNER_NAMES[piece],
                first: CORNER_NAMES[first],
                second: CORNER_NAMES[slot],
            });
        }
        slot_of[piece] = Some(slot);
        cp[slot] = piece as u8;
        co[slot] = twist as u8;
    }
    Ok((cp, co))
}

/// Parity of a permutation: `true` when odd.
fn is_odd<const N: usize>(p: &[u8; N]) -> bool {
    let mut seen = [false; N];
    let mut transpositions = 0;
    for start in 0..N {
        if seen[start] {
            continue;
        }
        let mut len = 0;
        let mut i = start;
        while !seen[i] {
            seen[i] = true;
            i = p[i] as usize;
            len += 1;
        }
        transpositions += len - 1;
    }
    transpositions % 2 == 1
}

fn parity_name(odd: bool) -> &'static str {
    if odd { "odd" } else { "even" }
}

impl Cubies {
    /// The solved cube.
    pub const SOLVED: Cubies =
        Cubies { cp: [0, 1, 2, 3, 4, 5, 6, 7], co: [0; 8], ep: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], eo: [0; 12] };

    /// Reads 54 sticker colours (0..6, URFDLB, centres already standard)
    /// as pieces, checking every validity rule.
    pub fn from_stickers(f: &[u8]) -> Result<Cubies, FaceletError> {
        let (cp, co) = read_corners(|slot| CORNER_FACELETS[slot].map(|i| f[i as usize]))?;
        let mut c = Cubies { cp, co, ..Cubies::SOLVED };
        let mut edge_at = [None::<usize>; 12];
        for (slot, facelets) in EDGE_FACELETS.iter().enumerate() {
            let colours = facelets.map(|i| f[i as usize]);
            let (piece, flip) = EDGE_COLOURS
                .iter()
                .enumerate()
                .find_map(|(j, ec)| {
                    if *ec == colours {
                        Some((j, 0))
                    } else if ec[0] == colours[1] && ec[1] == colours[0] {
                        Some((j, 1))
                    } else {
                        None
                    }
                })
                .ok_or_else(|| FaceletError::NotAnEdge { slot: EDGE_NAMES[slot], colours: colour_string(&colours) })?;
            if let Some(first) = edge_at[piece] {
                return Err(FaceletError::DuplicatePiece {
                    piece: EDGE_NAMES[piece],
                    first: EDGE_NAMES[first],
                    second: EDGE_NAMES[slot],
                });
            }
            edge_at[piece] = Some(slot);
            c.ep[slot] = piece as u8;
            c.eo[slot] = flip;
        }
        c.check_invariants()?;
        Ok(c)
    }

    /// Checks twist, flip and parity (the pieces are assumed distinct).
    pub fn check_invariants(&self) -> Result<(), FaceletError> {
        let twist: u32 = self.co.iter().map(|&x| u32::from(x)).sum::<u32>() % 3;
        if twist != 0 {
            return Err(FaceletError::CornerTwisted { sum: twist });
        }
        let flips: u32 = self.eo.iter().map(|&x| u32::from(x)).sum();
        if !flips.is_multiple_of(2) {
            return Err(FaceletError::EdgeFlipped { flips });
        }
        let (co, eo) = (is_odd(&self.cp), is_odd(&self.ep));
        if co != eo {
            return Err(FaceletError::PiecesSwapped { corners: parity_name(co), edges: parity_name(eo) });
        }
        Ok(())
    }

    /// The 54 sticker colours (0..6) of this cube, centres included.
    #[must_use]
    pub fn to_stickers(&self) -> [u8; 54] {
        let mut f = [0u8; 54];
        for (i, x) in f.iter_mut().enumerate() {
            *x = (i / 9) as u8;
        }
        for slot in 0..8 {
            let (piece, ori) = (self.cp[slot] as usize, self.co[slot] as usize);
            for k in 0..3 {
                f[CORNER_FACELETS[slot][(k + ori) % 3] as usize] = CORNER_COLOURS[piece][k];
            }
        }
        for slot in 0..12 {
            let (piece, flip) = (self.ep[slot] as usize, self.eo[slot] as usize);
            for k in 0..2 {
                f[EDGE_FACELETS[slot][(k + flip) % 2] as usize] = EDGE_COLOURS[piece][k];
            }
        }
        f
    }

    /// A uniformly random reachable cube (all 4.3·10^19 equally likely).
    pub fn random<R: Rng + ?Sized>(rng: &mut R) -> Cubies {
        let mut c = Cubies::SOLVED;
        shuffle(&mut c.cp, rng);
        shuffle(&mut c.ep, rng);
        if is_odd(&c.cp) != is_odd(&c.ep) {
            c.ep.swap(0, 1);
        }
        let mut twist = 0;
        for x in &mut c.co[..7] {
            *x = rng.random_range(0..3);
            twist += *x;
        }
        c.co[7] = (3 - twist % 3) % 3;
        let mut flips = 0;
        for x in &mut c.eo[..11] {
            *x = rng.random_range(0..2);
            flips += *x;
        }
        c.eo[11] = flips % 2;
        c
    }
}

fn shuffle<R: Rng + ?Sized, T>(v: &mut [T], rng: &mut R) {
    for i in (1..v.len()).rev() {
        let j = rng.random_range(0..=i);
        v.swap(i, j);
    }
}
