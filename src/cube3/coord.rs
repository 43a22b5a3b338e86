//! Coordinates of the cube and their move tables, for pattern databases and
//! Korf's optimal solver.
//!
//! A cube is four small integers: the corner permutation (Lehmer rank,
//! `0..8!`), the corner orientation (twists of slots 0..7 in base 3,
//! `0..3^7`), and two *edge coordinates*, one for edge pieces 0..6 (UR UF UL
//! UB DR DF) and one for pieces 6..12 (DL DB FR FL BL BR). An edge coordinate
//! is the rank of the six slots its pieces occupy (an arrangement of 6 of 12
//! slots, `0..12!/6!`) times 64 plus the six pieces' flips. The four together
//! determine the cube exactly. Every move table is derived from the sticker
//! model: each of the 18 turns is applied to the solved [`Cube3`] and read
//! back as [`Cubies`]; nothing is typed by hand. Tables are indexed by turn
//! id (`0..18`, HTM order), so both metrics share them.

use super::cubies::Cubies;
use super::state::Cube3;
use super::turn::Turn;
use std::sync::OnceLock;

/// Corner permutations: 8!.
pub const N_CP: usize = 40_320;
/// Corner orientations: 3^7.
pub const N_CO: usize = 2_187;
/// Corner pattern database size: 8!·3^7 = 88,179,840.
pub const N_CORNERS: usize = N_CP * N_CO;
/// Arrangements of 6 edges in 12 slots: 12!/6!.
pub const N_EPOS: usize = 665_280;
/// 6-edge pattern database size: 12!/6!·2^6 = 42,577,920.
pub const N_EDGES6: usize = N_EPOS * 64;
/// Number of turns (HTM move set); tables have this many columns.
pub const NT: usize = 18;

/// A turn as a cubie permutation (gather form: the piece that ends in slot
/// `s` came from slot `cp[s]` and gains twist `co[s]`).
fn turn_cubies(t: Turn) -> Cubies {
    Cube3::from_turns(&[t]).cubies()
}

/// `a` followed by `b` on the cubie level.
#[must_use]
pub fn multiply(a: &Cubies, b: &Cubies) -> Cubies {
    let mut c = Cubies::SOLVED;
    for s in 0..8 {
        let from = b.cp[s] as usize;
        c.cp[s] = a.cp[from];
        c.co[s] = (a.co[from] + b.co[s]) % 3;
    }
    for s in 0..12 {
        let from = b.ep[s] as usize;
        c.ep[s] = a.ep[from];
        c.eo[s] = (a.eo[from] + b.eo[s]) % 2;
    }
    c
}

/// Lehmer rank of a permutation of `0..N` (the identity is 0, the
/// reversal `N! − 1`).
#[must_use]
pub fn rank_perm<const N: usize>(p: &[u8; N]) -> u32 {
    let mut r = 0u32;
    for i in 0..N {
        let smaller = p[i + 1..].iter().filter(|&&x| x < p[i]).count() as u32;
        r = r * (N - i) as u32 + smaller;
    }
    r
}

/// Inverse of [`rank_perm`]. `r < N!`.
#[must_use]
pub fn unrank_perm<const N: usize>(mut r: u32) -> [u8; N] {
    let mut digits = [0u8; N];
    for i in (0..N).rev() {
        let base = (N - i) as u32;
        digits[i] = (r % base) as u8;
        r /= base;
    }
    // Digit i picks the digits[i]-th smallest value not used yet.
    let mut avail: [u8; N] = std::array::from_fn(|i| i as u8);
    let mut p = [0u8; N];
    for i in 0..N {
        let k = digits[i] as usize;
        p[i] = avail[k];
        avail.copy_within(k + 1..N - i, k);
    }
    p
}

/// Lehmer rank of a permutation of `0..8`.
#[must_use]
pub fn rank_cp(cp: &[u8; 8]) -> u16 {
    rank_perm(cp) as u16
}

/// Inverse of [`rank_cp`]. `r < 8!`.
#[must_use]
pub fn unrank_cp(r: u16) -> [u8; 8] {
    unrank_perm(u32::from(r))
}

/// Base-3 rank of the twists of slots 0..7 (slot 7 follows from the sum).
#[must_use]
pub fn rank_co(co: &[u8; 8]) -> u16 {
    co[..7].iter().rev().fold(0u16, |r, &x| r * 3 + u16::from(x))
}

/// Inverse of [`rank_co`]: slot 7's twist makes the sum 0 mod 3.
#[must_use]
pub fn unrank_co(mut r: u16) -> [u8; 8] {
    let mut co = [0u8; 8];
    let mut sum = 0;
    for x in co.iter_mut().take(7) {
        *x = (r % 3) as u8;
        sum += *x;
        r /= 3;
    }
    co[7] = (3 - sum % 3) % 3;
    co
}

/// Rank of six distinct slots (each `< 12`), in order, `0..12!/6!`.
#[must_use]
pub fn rank_epos(slots: &[u8; 6]) -> u32 {
    let mut r = 0u32;
    let mut used = 0u16;
    for (k, &s) in slots.iter().enumerate() {
        let below = (used & ((1u16 << s) - 1)).count_ones();
        r = r * (12 - k as u32) + (u32::from(s) - below);
        used |= 1 << s;
    }
    r
}

/// Inverse of [`rank_epos`]. `r < 12!/6!`.
#[must_use]
pub fn unrank_epos(mut r: u32) -> [u8; 6] {
    let mut digits = [0u32; 6];
    for k in (0..6).rev() {
        let base = 12 - k as u32;
        digits[k] = r % base;
        r /= base;
    }
    let mut used = 0u16;
    let mut slots = [0u8; 6];
    for k in 0..6 {
        // The digits[k]-th unused slot.
        let mut left = digits[k];
        let mut s = 0u8;
        loop {
            if used & (1 << s) == 0 {
                if left == 0 {
                    break;
                }
                left -= 1;
            }
            s += 1;
        }
        slots[k] = s;
        used |= 1 << s;
    }
    slots
}

/// The edge coordinate of pieces `first..first + 6` of `c`.
#[must_use]
pub fn edge_coord(c: &Cubies, first: u8) -> u32 {
    let mut slots = [0u8; 6];
    let mut flips = 0u32;
    for s in 0..12 {
        let p = c.ep[s];
        if (first..first + 6).contains(&p) {
            let j = (p - first) as usize;
            slots[j] = s as u8;
            flips |= u32::from(c.eo[s]) << j;
        }
    }
    rank_epos(&slots) * 64 + flips
}

/// The cube as four coordinates (see the module docs). Equal coordinates
/// mean equal cubes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Coords {
    /// Corner permutation rank, `0..8!`.
    pub cp: u16,
    /// Corner orientation rank, `0..3^7`.
    pub co: u16,
    /// Edge coordinate of pieces 0..6, `0..12!/6!·64`.
    pub ea: u32,
    /// Edge coordinate of pieces 6..12.
    pub eb: u32,
}

impl Coords {
    /// The coordinates of `c`.
    #[must_use]
    pub fn from_cubies(c: &Cubies) -> Self {
        Self { cp: rank_cp(&c.cp), co: rank_co(&c.co), ea: edge_coord(c, 0), eb: edge_coord(c, 6) }
    }

    /// The coordinates of a sticker state.
    #[must_use]
    pub fn from_cube3(c: &Cube3) -> Self {
        Self::from_cubies(&c.cubies())
    }

    /// The solved cube.
    #[must_use]
    pub fn solved() -> Self {
        Self::from_cubies(&Cubies::SOLVED)
    }

    /// The pieces these coordinates describe. Coordinates from
    /// [`Coords::from_cubies`] and move tables always form a valid cube.
    #[must_use]
    pub fn to_cubies(&self) -> Cubies {
        let mut c = Cubies { cp: unrank_cp(self.cp), co: unrank_co(self.co), ep: [0; 12], eo: [0; 12] };
        for (first, e) in [(0u8, self.ea), (6, self.eb)] {
            let slots = unrank_epos(e / 64);
            for (j, &s) in slots.iter().enumerate() {
                c.ep[s as usize] = first + j as u8;
                c.eo[s as usize] = ((e >> j) & 1) as u8;
            }
        }
        c
    }

    /// A 128-bit exact key.
    #[inline]
    #[must_use]
    pub fn key(&self) -> u128 {
        (u128::from(self.cp) << 96) | (u128::from(self.co) << 64) | (u128::from(self.ea) << 32) | u128::from(self.eb)
    }
}

/// Move tables of every coordinate under every turn, `[coordinate][turn]`.
pub struct MoveTables {
    /// Corner permutation: `cp[r * 18 + t]`.
    pub cp: Vec<u16>,
    /// Corner orientation: `co[r * 18 + t]`.
    pub co: Vec<u16>,
    /// Edge slot arrangement `r` under turn `t`, one entry
    /// `edge[r * 18 + t] = new_r << 6 | mask`, where the 6-bit `mask` (one
    /// bit per tracked piece) is XORed into the flips. One table, so one
    /// memory access per edge coordinate.
    pub edge: Vec<u32>,
}

impl MoveTables {
    fn build() -> Self {
        let turns: Vec<Cubies> = Turn::all().map(turn_cubies).collect();
        let mut cp = vec![0u16; N_CP * NT];
        for r in 0..N_CP {
            let c = Cubies { cp: unrank_cp(r as u16), ..Cubies::SOLVED };
            for (t, tc) in turns.iter().enumerate() {
                cp[r * NT + t] = rank_cp(&multiply(&c, tc).cp);
            }
        }
        let mut co = vec![0u16; N_CO * NT];
        for r in 0..N_CO {
            let c = Cubies { co: unrank_co(r as u16), ..Cubies::SOLVED };
            for (t, tc) in turns.iter().enumerate() {
                co[r * NT + t] = rank_co(&multiply(&c, tc).co);
            }
        }
        // Where each slot's piece goes under each turn, and the flip it gains.
        let mut dest = [[0u8; 12]; NT];
        let mut gain = [[0u8; 12]; NT];
        for (t, tc) in turns.iter().enumerate() {
            for s in 0..12 {
                let from = tc.ep[s] as usize;
                dest[t][from] = s as u8;
                gain[t][from] = tc.eo[s];
            }
        }
        let mut edge = vec![0u32; N_EPOS * NT];
        for r in 0..N_EPOS {
            let slots = unrank_epos(r as u32);
            for t in 0..NT {
                let mut moved = [0u8; 6];
                let mut mask = 0u8;
                for (j, &s) in slots.iter().enumerate() {
                    moved[j] = dest[t][s as usize];
                    mask |= gain[t][s as usize] << j;
                }
                edge[r * NT + t] = (rank_epos(&moved) << 6) | u32::from(mask);
            }
        }
        Self { cp, co, edge }
    }

    /// The shared tables, built on first use (well under a second).
    pub fn get() -> &'static MoveTables {
        static TABLES: OnceLock<MoveTables> = OnceLock::new();
        TABLES.get_or_init(MoveTables::build)
    }

    /// Edge coordinate `e` after turn `t`.
    #[inline]
    #[must_use]
    pub fn edge(&self, e: u32, t: usize) -> u32 {
        let v = self.edge[(e >> 6) as usize * NT + t];
        (v & !63) | ((e ^ v) & 63)
    }

    /// Corner index `cp * 3^7 + co` after turn `t`.
    #[inline]
    #[must_use]
    pub fn corner(&self, cp: u16, co: u16, t: usize) -> (u16, u16) {
        (self.cp[cp as usize * NT + t], self.co[co as usize * NT + t])
    }

    /// `c` after turn `t`.
    #[inline]
    #[must_use]
    pub fn apply(&self, c: &Coords, t: usize) -> Coords {
        let (cp, co) = self.corner(c.cp, c.co, t);
        Coords { cp, co, ea: self.edge(c.ea, t), eb: self.edge(c.eb, t) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::ChaCha8Rng;
    use rand::{RngExt, SeedableRng};

    #[test]
    fn ranks_round_trip() {
        for r in (0..N_CP as u16).step_by(7) {
            assert_eq!(rank_cp(&unrank_cp(r)), r);
        }
        for r in 0..N_CO as u16 {
            assert_eq!(rank_co(&unrank_co(r)), r);
        }
        for r in (0..N_EPOS as u32).step_by(13) {
            assert_eq!(rank_epos(&unrank_epos(r)), r);
        }
        assert_eq!(rank_cp(&[0, 1, 2, 3, 4, 5, 6, 7]), 0);
        assert_eq!(rank_cp(&[7, 6, 5, 4, 3, 2, 1, 0]), N_CP as u16 - 1);
        assert_eq!(rank_epos(&[11, 10, 9, 8, 7, 6]), N_EPOS as u32 - 1);
    }

    #[test]
    fn coords_round_trip_random_cubes() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        for _ in 0..500 {
            let c = Cubies::random(&mut rng);
            assert_eq!(Coords::from_cubies(&c).to_cubies(), c);
        }
    }

    #[test]
    fn move_tables_agree_with_sticker_turns() {
        let mt = MoveTables::get();
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        for _ in 0..200 {
            let mut cube = Cube3::SOLVED;
            let mut co = Coords::solved();
            for _ in 0..30 {
                let t = rng.random_range(0..18u8);
                cube.apply_turn(Turn::from_id(t));
                co = mt.apply(&co, t as usize);
                assert_eq!(co, Coords::from_cube3(&cube));
            }
        }
    }
}
