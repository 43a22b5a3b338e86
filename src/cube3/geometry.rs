//! Sticker geometry of the 3×3×3 cube and the move permutations derived
//! from it.
//!
//! Every one of the 54 facelets is given a 3-D position and outward normal
//! (x: L→R, y: D→U, z: B→F, each in {-1, 0, 1}), following the usual URFDLB
//! net: U seen from above with F below it, D seen from below with F above it,
//! the side faces seen from outside with U on top, each read row by row.
//! A clockwise quarter turn of face X is the rotation by −90° about X's
//! outward normal of every sticker in X's layer. The 18 turn permutations
//! are computed from this model at compile time, so no table is typed by
//! hand; the tests compare them with Kociemba's reference facelet strings.

/// Number of stickers (facelets) on the cube.
pub const STICKERS: usize = 54;
/// Number of faces (and colours).
pub const FACES: usize = 6;
/// Number of turns in the half-turn metric: 6 faces × {X, X2, X'}.
pub const TURNS: usize = 18;

/// Face letters in facelet-string order.
pub const FACE_LETTERS: [char; FACES] = ['U', 'R', 'F', 'D', 'L', 'B'];

/// The face opposite each face (`U↔D`, `R↔L`, `F↔B`).
pub const OPPOSITE: [u8; FACES] = [3, 4, 5, 0, 1, 2];

type V3 = [i8; 3];

/// Position and outward normal of facelet `f` (0..54).
const fn sticker(f: usize) -> (V3, V3) {
    let face = f / 9;
    let r = ((f % 9) / 3) as i8;
    let c = (f % 3) as i8;
    match face {
        0 => ([c - 1, 1, r - 1], [0, 1, 0]),   // U: back row first, L→R
        1 => ([1, 1 - r, 1 - c], [1, 0, 0]),   // R: F side on the left
        2 => ([c - 1, 1 - r, 1], [0, 0, 1]),   // F
        3 => ([c - 1, -1, 1 - r], [0, -1, 0]), // D: front row first
        4 => ([-1, 1 - r, c - 1], [-1, 0, 0]), // L: B side on the left
        _ => ([1 - c, 1 - r, -1], [0, 0, -1]), // B: R side on the left
    }
}

const fn face_normal(face: usize) -> V3 {
    sticker(face * 9 + 4).1
}

const fn dot(a: V3, b: V3) -> i8 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Rotation of `v` by −90° about unit axis `n` (clockwise seen from the tip
/// of `n`): `v' = −(n × v) + n (n · v)`.
const fn rotate(n: V3, v: V3) -> V3 {
    let cross = [n[1] * v[2] - n[2] * v[1], n[2] * v[0] - n[0] * v[2], n[0] * v[1] - n[1] * v[0]];
    let d = dot(n, v);
    [-cross[0] + n[0] * d, -cross[1] + n[1] * d, -cross[2] + n[2] * d]
}

const fn find_sticker(pos: V3, normal: V3) -> usize {
    let mut i = 0;
    while i < STICKERS {
        let (p, n) = sticker(i);
        if p[0] == pos[0]
            && p[1] == pos[1]
            && p[2] == pos[2]
            && n[0] == normal[0]
            && n[1] == normal[1]
            && n[2] == normal[2]
        {
            return i;
        }
        i += 1;
    }
    panic!("rotated sticker is not on the cube");
}

/// Gather permutation of one clockwise quarter turn: `new[i] = old[perm[i]]`.
const fn quarter_turn(face: usize) -> [u8; 64] {
    let n = face_normal(face);
    let mut perm = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        perm[i] = i as u8;
        i += 1;
    }
    let mut src = 0;
    while src < STICKERS {
        let (p, nn) = sticker(src);
        if dot(p, n) == 1 {
            let dst = find_sticker(rotate(n, p), rotate(n, nn));
            perm[dst] = src as u8;
        }
        src += 1;
    }
    perm
}

/// `a` then `b` as one gather permutation.
const fn compose(a: &[u8; 64], b: &[u8; 64]) -> [u8; 64] {
    // new[i] = mid[b[i]] = old[a[b[i]]]
    let mut out = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        out[i] = a[b[i] as usize];
        i += 1;
    }
    out
}

const fn build_turns() -> [[u8; 64]; TURNS] {
    let mut table = [[0u8; 64]; TURNS];
    let mut face = 0;
    while face < FACES {
        let q1 = quarter_turn(face);
        let q2 = compose(&q1, &q1);
        let q3 = compose(&q2, &q1);
        table[face * 3] = q1;
        table[face * 3 + 1] = q2;
        table[face * 3 + 2] = q3;
        face += 1;
    }
    table
}

/// Gather permutations of the 18 turns, indexed by turn id
/// `face * 3 + (quarters − 1)`: `new[i] = old[TURN_PERMS[t][i]]`. Entries
/// 54..64 map padding bytes to themselves.
pub static TURN_PERMS: [[u8; 64]; TURNS] = build_turns();

/// Facelets of the 8 corner slots, URF UFL ULB UBR DFR DLF DBL DRB, each
/// listed clockwise starting with its U or D facelet (Kociemba's layout).
pub const CORNER_FACELETS: [[u8; 3]; 8] =
    [[8, 9, 20], [6, 18, 38], [0, 36, 47], [2, 45, 11], [29, 26, 15], [27, 44, 24], [33, 53, 42], [35, 17, 51]];

/// Colours of the 8 corner pieces in the order of [`CORNER_FACELETS`].
pub const CORNER_COLOURS: [[u8; 3]; 8] =
    [[0, 1, 2], [0, 2, 4], [0, 4, 5], [0, 5, 1], [3, 2, 1], [3, 4, 2], [3, 5, 4], [3, 1, 5]];

/// Facelets of the 12 edge slots, UR UF UL UB DR DF DL DB FR FL BL BR.
pub const EDGE_FACELETS: [[u8; 2]; 12] = [
    [5, 10],
    [7, 19],
    [3, 37],
    [1, 46],
    [32, 16],
    [28, 25],
    [30, 43],
    [34, 52],
    [23, 12],
    [21, 41],
    [50, 39],
    [48, 14],
];

/// Colours of the 12 edge pieces in the order of [`EDGE_FACELETS`].
pub const EDGE_COLOURS: [[u8; 2]; 12] =
    [[0, 1], [0, 2], [0, 4], [0, 5], [3, 1], [3, 2], [3, 4], [3, 5], [2, 1], [2, 4], [5, 4], [5, 1]];

/// Names of the corner slots/pieces.
pub const CORNER_NAMES: [&str; 8] = ["URF", "UFL", "ULB", "UBR", "DFR", "DLF", "DBL", "DRB"];
/// Names of the edge slots/pieces.
pub const EDGE_NAMES: [&str; 12] = ["UR", "UF", "UL", "UB", "DR", "DF", "DL", "DB", "FR", "FL", "BL", "BR"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn piece_facelets_share_a_cubie() {
        for f in CORNER_FACELETS {
            let p = sticker(f[0] as usize).0;
            assert!(f.iter().all(|&x| sticker(x as usize).0 == p));
            assert!(p.iter().all(|&c| c != 0));
        }
        for f in EDGE_FACELETS {
            let p = sticker(f[0] as usize).0;
            assert_eq!(sticker(f[1] as usize).0, p);
            assert_eq!(p.iter().filter(|&&c| c == 0).count(), 1);
        }
    }

    #[test]
    fn corner_facelets_are_clockwise() {
        // Clockwise seen from outside the corner means (a × b) · position < 0
        // for consecutive normals a, b (right-hand rule).
        for f in CORNER_FACELETS {
            let (p, a) = sticker(f[0] as usize);
            let b = sticker(f[1] as usize).1;
            let cross = [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
            assert!(dot(cross, p) < 0, "corner {f:?} is not listed clockwise");
        }
    }

    #[test]
    fn turns_are_permutations_fixing_centres_and_padding() {
        for perm in &TURN_PERMS {
            let mut seen = [false; 64];
            for &p in perm {
                assert!(!seen[p as usize]);
                seen[p as usize] = true;
            }
            for face in 0..FACES {
                assert_eq!(perm[face * 9 + 4] as usize, face * 9 + 4);
            }
            for (i, &p) in perm.iter().enumerate().skip(STICKERS) {
                assert_eq!(p as usize, i);
            }
        }
    }
}
