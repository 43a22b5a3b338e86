//! The X-Y heuristic (Prieditis 1993, found by the ABSOLVER program): the
//! rows and the columns of the puzzle solved as two separate relaxed
//! puzzles, each exactly, and the two lengths added.
//!
//! **Row relaxation.** Forget the columns: a state is, for every row, the
//! set of tiles in it, and the blank's row. A move swaps the blank with any
//! tile of an adjacent row (the blank need not be next to it); the goal is
//! every tile in its goal row. Only which goal row a tile belongs to
//! matters, so a state reduces to the `n×n` count matrix `C[row][goal
//! row]`. The column relaxation is the same with columns. Both are solved
//! exactly by one breadth-first search from the goal over their abstract
//! states, done once in [`XY::new`] and kept in the struct.
//!
//! **Admissible and consistent.** A real vertical move is a legal move of
//! the row relaxation and leaves the column abstraction unchanged (the tile
//! stays in its column); a horizontal move is the converse. So every real
//! move changes exactly one of the two distances, by at most one: the sum
//! is a lower bound, and consistent. Each row-relaxation move changes one
//! tile's row by one, so the row distance is at least the sum of vertical
//! Manhattan distances, and likewise for columns: X-Y dominates Manhattan.
//! It is incomparable with linear conflict.
//!
//! The tables are small up to `n = 4` (105 abstract states per axis for
//! 3×3, 24,964 for 4×4, built in milliseconds) but explode after: 5×5 has
//! 65,650,495 per axis (over three minutes and gigabytes to build), so
//! construction is refused above [`XY::MAX_N`] = 4.

use super::goal_cells;
use crate::heuristics::Heuristic;
use crate::puzzle::Puzzle;
use crate::sliding::MAX_CELLS;
use crate::sliding::{Board, Sliding};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A multiplicative hasher for the 128-bit abstract-state keys.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    fn write_u128(&mut self, v: u128) {
        self.write_u64(v as u64);
        self.write_u64((v >> 64) as u64);
    }
}

type KeyMap = HashMap<u128, u8, BuildHasherDefault<KeyHasher>>;

/// One axis (rows or columns): the exact distance of every abstract state.
#[derive(Clone, Debug)]
struct Axis {
    n: usize,
    /// `by_row`: lines are rows (otherwise columns).
    by_row: bool,
    /// Goal line of every tile.
    label: [u8; MAX_CELLS],
    dist: KeyMap,
}

impl Axis {
    fn line(&self, cell: usize) -> usize {
        if self.by_row { cell / self.n } else { cell % self.n }
    }

    /// 4-bit count `C[line][label]` at bits `4 (line·n + label)`.
    fn key(&self, s: &Board) -> u128 {
        s.tiles()
            .iter()
            .enumerate()
            .filter(|&(_, &t)| t != 0)
            .map(|(cell, &t)| 1u128 << (4 * (self.line(cell) * self.n + usize::from(self.label[usize::from(t)]))))
            .sum()
    }

    fn build(p: &Sliding, by_row: bool) -> Self {
        let n = p.n();
        let mut label = [0u8; MAX_CELLS];
        for (tile, &cell) in goal_cells(p).iter().enumerate() {
            label[tile] = (if by_row { cell / n } else { cell % n }) as u8;
        }
        let mut axis = Self { n, by_row, label, dist: KeyMap::default() };
        let goal = axis.key(&p.goal());
        axis.dist.insert(goal, 0);
        let count = |key: u128, line: usize, lab: usize| (key >> (4 * (line * n + lab)) & 15) as usize;
        let mut frontier = vec![goal];
        let mut d = 0u8;
        while !frontier.is_empty() {
            d += 1;
            let mut next = Vec::new();
            for &key in &frontier {
                let blank =
                    (0..n).find(|&line| (0..n).map(|lab| count(key, line, lab)).sum::<usize>() < n).unwrap_or(0);
                for other in [blank.wrapping_sub(1), blank + 1] {
                    if other >= n {
                        continue;
                    }
                    for lab in 0..n {
                        if count(key, other, lab) == 0 {
                            continue;
                        }
                        let moved = key - (1u128 << (4 * (other * n + lab))) + (1u128 << (4 * (blank * n + lab)));
                        if let std::collections::hash_map::Entry::Vacant(e) = axis.dist.entry(moved) {
                            e.insert(d);
                            next.push(moved);
                        }
                    }
                }
            }
            frontier = next;
        }
        axis
    }

    fn distance(&self, s: &Board) -> u32 {
        self.dist.get(&self.key(s)).map_or(0, |&d| u32::from(d))
    }
}

/// The X-Y heuristic: exact row relaxation + exact column relaxation.
#[derive(Clone, Debug)]
pub struct XY {
    rows: Axis,
    cols: Axis,
}

impl XY {
    /// The largest width for which the tables are built.
    pub const MAX_N: usize = 4;

    /// The heuristic for puzzle `p`'s goal, with both tables built by
    /// breadth-first search; `None` when `p` is wider than
    /// [`XY::MAX_N`].
    #[must_use]
    pub fn new(p: &Sliding) -> Option<Self> {
        (p.n() <= Self::MAX_N).then(|| Self { rows: Axis::build(p, true), cols: Axis::build(p, false) })
    }

    /// The exact row-relaxation and column-relaxation distances of `s`.
    #[must_use]
    pub fn parts(&self, s: &Board) -> (u32, u32) {
        (self.rows.distance(s), self.cols.distance(s))
    }

    /// Number of abstract states in the row and column tables.
    #[must_use]
    pub fn table_sizes(&self) -> (usize, usize) {
        (self.rows.dist.len(), self.cols.dist.len())
    }
}

impl Heuristic<Sliding> for XY {
    fn estimate(&self, _: &Sliding, s: &Board) -> u32 {
        let (r, c) = self.parts(s);
        r + c
    }
    fn name(&self) -> String {
        "xy".into()
    }
    fn admissible(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sliding::Goal;

    #[test]
    fn the_worked_example() {
        // 8 1 2 / 7 3 6 / 0 5 4: the rows need 6 swaps.
        let p = Sliding::new(3, Goal::BlankLast).unwrap();
        let xy = XY::new(&p).unwrap();
        let b = p.parse_board("8 1 2 / 7 3 6 / 0 5 4").unwrap();
        let (rows, cols) = xy.parts(&b);
        assert_eq!(rows, 6);
        assert!(cols <= 10, "{cols}");
        assert_eq!(xy.parts(&p.goal()), (0, 0));
        assert_eq!(XY::new(&Sliding::new(4, Goal::Snail).unwrap()).unwrap().table_sizes(), (24_964, 24_964));
        assert!(XY::new(&Sliding::new(5, Goal::BlankLast).unwrap()).is_none(), "5×5 tables are refused");
    }
}
