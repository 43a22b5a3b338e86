//! The 48 symmetries of the cube (24 whole-cube rotations, each with and
//! without a mirror) as an operation on states, moves and encodings.
//!
//! Nothing here is typed by hand. Each of the 54 stickers is identified by
//! its face and by the set of face layers that contain it, both read off
//! the turn permutations of [`super::geometry`] (a sticker lies in face
//! X's layer when X's quarter turn moves it, or when it is X's centre).
//! A symmetry is a permutation of the six faces that keeps opposite faces
//! opposite (3! axis orders × 2³ signs = 48); it moves the sticker with
//! face `f` and layers `L` to the sticker with face `σ(f)` and layers
//! `σ(L)`. Whether it is a rotation or a reflection is read from what it
//! does to a clockwise turn: a mirror makes it anticlockwise.
//!
//! The conjugate `conj(σ, s)` is the cube `s` carried by `σ` and then
//! recoloured so that each centre shows its own colour again: the sticker
//! at position `i` of colour `c` goes to position `σ(i)` with colour
//! `σ(c)`. It fixes the solved cube, satisfies
//! `conj(σ, s·m) = conj(σ, s)·σ(m)` for every turn `m` (so the distance to
//! solved is unchanged), and is a group action
//! ([`Symmetry::then`], [`Symmetry::inverse`]). On the one-hot encoding it
//! is one fixed permutation of the 324 floats
//! ([`Symmetry::encoding_gather`]), so an oracle can be asked about
//! conjugates without decoding.
//!
//! Table order: index 0 is the identity, 0..24 the rotations, and
//! `24 + i` is rotation `i` followed by the left-right mirror (R ↔ L).
//! [`ensemble`] picks the fixed subgroups that `solve --symmetry K` uses.

use super::cubies::Cubies;
use super::geometry::{FACES, OPPOSITE, STICKERS, TURN_PERMS, TURNS};
use super::state::{Cube3, ONE_HOT_LEN};
use super::turn::{Metric, Turn};
use crate::puzzle::MoveId;
use std::sync::LazyLock;
use thiserror::Error;

/// Number of symmetries of the cube (rotations and reflections).
pub const SYMMETRIES: usize = 48;
/// Number of whole-cube rotations (the first entries of [`all`]).
pub const ROTATIONS: usize = 24;
/// The ensemble sizes [`ensemble`] accepts (the orders of its subgroups).
pub const ENSEMBLE_SIZES: [usize; 7] = [1, 2, 4, 8, 16, 24, 48];

/// An ensemble size that is not one of [`ENSEMBLE_SIZES`].
#[derive(Debug, Error, PartialEq, Eq)]
pub enum SymmetryError {
    /// Text that is not a whole number.
    #[error("symmetry count `{text}`: expected a whole number, one of 1, 2, 4, 8, 16, 24, 48")]
    NotANumber {
        /// The text given.
        text: String,
    },
    /// A number that is not the order of one of the chosen subgroups.
    #[error("symmetry count {count}: must be one of 1, 2, 4, 8, 16, 24, 48 (the orders of the symmetry groups used)")]
    Count {
        /// The count given.
        count: usize,
    },
}

/// One symmetry of the cube: a rotation, or a rotation and a mirror.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symmetry {
    index: u8,
    /// `faces[f]`: the face where face `f` goes (also the new colour of `f`).
    faces: [u8; FACES],
    /// Gather form of the sticker move: position `j` of the image takes the
    /// sticker from position `gather[j]` (padding bytes fixed).
    gather: [u8; 64],
    /// `turns[t]`: the turn id that turn `t` becomes.
    turns: [u8; TURNS],
    mirror: bool,
}

/// Layer bit mask of every sticker: bit `f` when face `f`'s layer holds it.
fn layers() -> [u8; STICKERS] {
    std::array::from_fn(|i| {
        (0..FACES).filter(|&f| TURN_PERMS[f * 3][i] as usize != i || i == f * 9 + 4).fold(0u8, |m, f| m | 1 << f)
    })
}

/// The symmetry moving face `f` to `faces[f]`, with table index `index`.
fn from_faces(faces: [u8; FACES], index: u8, layers: &[u8; STICKERS]) -> Symmetry {
    let map_mask = |mask: u8| (0..FACES).filter(|&f| mask & 1 << f != 0).fold(0u8, |m, f| m | 1 << faces[f]);
    let mut gather: [u8; 64] = std::array::from_fn(|i| i as u8);
    let mut forward = [0u8; STICKERS];
    for i in 0..STICKERS {
        let (face, mask) = (faces[i / 9] as usize, map_mask(layers[i]));
        let j = (face * 9..face * 9 + 9)
            .find(|&j| layers[j] == mask)
            .expect("a symmetry keeping opposite faces opposite maps stickers to stickers");
        gather[j] = i as u8;
        forward[i] = j as u8;
    }
    // Turn t becomes the turn whose permutation is π ∘ P_t ∘ π⁻¹.
    let turns: [u8; TURNS] = std::array::from_fn(|t| {
        let image: Vec<u8> = (0..STICKERS).map(|j| forward[TURN_PERMS[t][gather[j] as usize] as usize]).collect();
        (0..TURNS).find(|&u| TURN_PERMS[u][..STICKERS] == image[..]).expect("a symmetry maps turns to turns") as u8
    });
    let mirror = Turn::from_id(turns[0]).quarters() == 3;
    Symmetry { index, faces, gather, turns, mirror }
}

static TABLE: LazyLock<Vec<Symmetry>> = LazyLock::new(|| {
    let layers = layers();
    let axis = |f: u8| f.min(OPPOSITE[f as usize]);
    let mut maps = Vec::with_capacity(SYMMETRIES);
    for u in 0..FACES as u8 {
        for r in (0..FACES as u8).filter(|&r| axis(r) != axis(u)) {
            for f in (0..FACES as u8).filter(|&f| axis(f) != axis(u) && axis(f) != axis(r)) {
                let o = |x: u8| OPPOSITE[x as usize];
                maps.push([u, r, f, o(u), o(r), o(f)]);
            }
        }
    }
    let rotations: Vec<[u8; FACES]> =
        maps.into_iter().filter(|&m| !from_faces(m, 0, &layers).mirror).collect::<Vec<_>>();
    // The left-right mirror swaps R and L and keeps the other faces.
    let lr = [0u8, 4, 2, 3, 1, 5];
    let mirrored = rotations.iter().map(|m| std::array::from_fn(|f| lr[m[f] as usize]));
    let all: Vec<Symmetry> =
        rotations.iter().copied().chain(mirrored).enumerate().map(|(i, m)| from_faces(m, i as u8, &layers)).collect();
    assert_eq!(all.len(), SYMMETRIES, "the cube has 48 symmetries");
    all
});

/// All 48 symmetries: the identity first, the 24 rotations at 0..24, and
/// at `24 + i` rotation `i` followed by the left-right mirror.
#[must_use]
pub fn all() -> &'static [Symmetry] {
    &TABLE
}

/// The symmetry with face map `faces` (always present: face maps compose).
fn by_faces(faces: [u8; FACES]) -> &'static Symmetry {
    TABLE.iter().find(|s| s.faces == faces).expect("every face map of a symmetry is in the table")
}

impl Symmetry {
    /// Position in [`all`] (0 = identity).
    #[must_use]
    pub fn index(&self) -> usize {
        self.index as usize
    }

    /// Whether this symmetry reverses orientation (includes a mirror).
    #[must_use]
    pub fn is_mirror(&self) -> bool {
        self.mirror
    }

    /// `faces()[f]`: the face that face `f` is carried to, which is also
    /// the colour that colour `f` is renamed to.
    #[must_use]
    pub fn faces(&self) -> [u8; FACES] {
        self.faces
    }

    /// Gather form of the sticker move: sticker position `j` of a
    /// conjugate comes from position `sticker_gather()[j]` of the original.
    #[must_use]
    pub fn sticker_gather(&self) -> &[u8; 64] {
        &self.gather
    }

    /// The turn that `t` becomes: `conj(σ, s·t) = conj(σ, s)·σ(t)`.
    #[must_use]
    pub fn turn(&self, t: Turn) -> Turn {
        Turn::from_id(self.turns[t.id() as usize])
    }

    /// `move_map(metric)[m]`: the move id that move `m` becomes in `metric`.
    #[must_use]
    pub fn move_map(&self, metric: Metric) -> Vec<MoveId> {
        metric
            .turns()
            .iter()
            .map(|&t| metric.move_id(self.turn(t)).expect("symmetries keep quarter turns quarter turns"))
            .collect()
    }

    /// `self` then `other`: `conj(a.then(b), s) = conj(b, conj(a, s))`.
    #[must_use]
    pub fn then(&self, other: &Symmetry) -> &'static Symmetry {
        by_faces(std::array::from_fn(|f| other.faces[self.faces[f] as usize]))
    }

    /// The symmetry that undoes this one.
    #[must_use]
    pub fn inverse(&self) -> &'static Symmetry {
        let mut inv = [0u8; FACES];
        for (f, &g) in self.faces.iter().enumerate() {
            inv[g as usize] = f as u8;
        }
        by_faces(inv)
    }

    /// The conjugate `conj(σ, s)`: `s` carried by the symmetry and
    /// recoloured so that the centres are standard again.
    #[must_use]
    pub fn conjugate(&self, s: &Cube3) -> Cube3 {
        let cubies =
            Cubies::from_stickers(&self.conjugate_stickers(s)).expect("the conjugate of a valid cube is a valid cube");
        Cube3::from_cubies(&cubies)
    }

    /// The 54 sticker colours of [`Symmetry::conjugate`], without the
    /// validation that makes them a [`Cube3`] (for bulk checks).
    #[must_use]
    pub fn conjugate_stickers(&self, s: &Cube3) -> [u8; STICKERS] {
        let old = s.stickers();
        std::array::from_fn(|j| self.faces[old[self.gather[j] as usize] as usize])
    }

    /// The conjugate on the one-hot encoding, as a gather over its 324
    /// floats: `encode(conj(σ, s))[k] = encode(s)[encoding_gather()[k]]`.
    #[must_use]
    pub fn encoding_gather(&self) -> Vec<u32> {
        let mut colour_from = [0usize; FACES];
        for (c, &to) in self.faces.iter().enumerate() {
            colour_from[to as usize] = c;
        }
        (0..ONE_HOT_LEN).map(|k| (6 * self.gather[k / 6] as usize + colour_from[k % 6]) as u32).collect()
    }
}

/// The `count` symmetries that `solve --symmetry count` averages over, the
/// identity first and the rest in table order. Each set is a group (so the
/// averaged oracle is exactly invariant under it), chosen as stabilisers:
///
/// | count | symmetries |
/// |---|---|
/// | 1 | the identity |
/// | 2 | those fixing U and F: the identity and the left-right mirror |
/// | 4 | those fixing U and the F–B axis: adds the front-back mirror and y2 |
/// | 8 | those fixing U: the 4 rotations about U–D and the 4 vertical mirrors |
/// | 16 | those fixing the U–D axis |
/// | 24 | the rotations |
/// | 48 | all |
///
/// # Errors
/// [`SymmetryError::Count`] for any other count.
pub fn ensemble(count: usize) -> Result<Vec<&'static Symmetry>, SymmetryError> {
    const U: u8 = 0;
    const F: u8 = 2;
    const D: u8 = 3;
    const B: u8 = 5;
    let keep: fn(&Symmetry) -> bool = match count {
        1 => |s| s.index == 0,
        2 => |s| s.faces[U as usize] == U && s.faces[F as usize] == F,
        4 => |s| s.faces[U as usize] == U && [F, B].contains(&s.faces[F as usize]),
        8 => |s| s.faces[U as usize] == U,
        16 => |s| [U, D].contains(&s.faces[U as usize]),
        24 => |s| !s.mirror,
        48 => |_| true,
        _ => return Err(SymmetryError::Count { count }),
    };
    Ok(TABLE.iter().filter(|s| keep(s)).collect())
}

/// Reads an ensemble size (`solve --symmetry`): a whole number that
/// [`ensemble`] accepts.
///
/// # Errors
/// [`SymmetryError::NotANumber`] or [`SymmetryError::Count`].
pub fn parse_count(text: &str) -> Result<usize, SymmetryError> {
    let count: usize = text.trim().parse().map_err(|_| SymmetryError::NotANumber { text: text.to_string() })?;
    ensemble(count).map(|_| count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_a_group_of_48_with_24_rotations_first() {
        let t = all();
        assert_eq!(t.len(), SYMMETRIES);
        assert_eq!(t[0].faces, [0, 1, 2, 3, 4, 5]);
        assert!(t[..ROTATIONS].iter().all(|s| !s.is_mirror()) && t[ROTATIONS..].iter().all(Symmetry::is_mirror));
        let mut gathers: Vec<[u8; 64]> = t.iter().map(|s| s.gather).collect();
        gathers.sort_unstable();
        gathers.dedup();
        assert_eq!(gathers.len(), SYMMETRIES);
        for a in t {
            assert_eq!(a.then(a.inverse()).index(), 0);
            for b in t {
                let ab = a.then(b);
                // Composition of the sticker gathers agrees with the face maps.
                let g: [u8; 64] = std::array::from_fn(|j| a.gather[b.gather[j] as usize]);
                assert_eq!(ab.gather, g);
            }
        }
    }

    #[test]
    fn ensembles_are_subgroups_of_the_stated_size() {
        for k in ENSEMBLE_SIZES {
            let e = ensemble(k).unwrap();
            assert_eq!(e.len(), k);
            assert_eq!(e[0].index(), 0);
            for a in &e {
                for b in &e {
                    assert!(e.iter().any(|c| c.index() == a.then(b).index()), "size {k} not closed");
                }
            }
        }
        assert_eq!(ensemble(2).unwrap()[1].faces, [0, 4, 2, 3, 1, 5]);
        for bad in [0, 3, 5, 47, 49, usize::MAX] {
            assert_eq!(ensemble(bad).unwrap_err(), SymmetryError::Count { count: bad });
        }
        assert_eq!(parse_count(" 16 "), Ok(16));
        assert!(matches!(parse_count("x"), Err(SymmetryError::NotANumber { .. })));
    }
}
