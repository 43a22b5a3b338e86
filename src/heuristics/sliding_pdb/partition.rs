//! Partitions: disjoint sets of goal cells, named or given cell by cell.
//!
//! The named layouts are defined on the **blank-first** goal geometry (the
//! blank in the top-left corner, cell `c` holding tile `c`), as in Korf &
//! Felner 2002 and Felner, Korf & Hanan 2004, and carried to any goal whose
//! blank is in a corner by the symmetry of the square that takes the
//! top-left corner to the goal's blank (blank-last: the half turn). The
//! pattern tiles are then whatever tiles the goal has on those cells.
//!
//! | n | name | blank-first cells |
//! |---|---|---|
//! | 3 | `4-4` | {1,2,3,4} {5,6,7,8} |
//! | 3 | `8` | all eight (the exact distance) |
//! | 4 | `5-5-5` | {1,2,4,5,8} {3,6,7,10,11} {9,12,13,14,15} |
//! | 4 | `6-6-3` | {1,2,4,5,8,9} {3,6,7,10,11,15} {12,13,14} |
//! | 4 | `7-8` | {1..7} {8..15} |
//! | 5 | `6-6-6-6` | {1,2,5,6,7,12} {3,4,8,9,13,14} {10,11,15,16,20,21} {17,18,19,22,23,24} |

use crate::heuristics::HeuristicError;

/// Named partitions: (n, name, blank-first cells of each pattern).
const NAMED: &[(usize, &str, &[&[u8]])] = &[
    (3, "4-4", &[&[1, 2, 3, 4], &[5, 6, 7, 8]]),
    (3, "8", &[&[1, 2, 3, 4, 5, 6, 7, 8]]),
    (4, "5-5-5", &[&[1, 2, 4, 5, 8], &[3, 6, 7, 10, 11], &[9, 12, 13, 14, 15]]),
    (4, "6-6-3", &[&[1, 2, 4, 5, 8, 9], &[3, 6, 7, 10, 11, 15], &[12, 13, 14]]),
    (4, "7-8", &[&[1, 2, 3, 4, 5, 6, 7], &[8, 9, 10, 11, 12, 13, 14, 15]]),
    (
        5,
        "6-6-6-6",
        &[&[1, 2, 5, 6, 7, 12], &[3, 4, 8, 9, 13, 14], &[10, 11, 15, 16, 20, 21], &[17, 18, 19, 22, 23, 24]],
    ),
];

/// The names of the partitions defined for width `n`.
#[must_use]
pub fn names(n: usize) -> Vec<&'static str> {
    NAMED.iter().filter(|(w, _, _)| *w == n).map(|(_, name, _)| *name).collect()
}

/// A partition of (some of) the goal cells into disjoint patterns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Partition {
    /// Its name (`7-8`, or the pattern sizes for a custom one).
    pub name: String,
    /// Goal cells of each pattern.
    pub patterns: Vec<Vec<u8>>,
}

impl Partition {
    /// The named partition `name` for width `n`, mapped onto a goal whose
    /// blank is on cell `blank`.
    ///
    /// # Errors
    /// An unknown name, a name defined for another width, or a goal whose
    /// blank is not in a corner.
    pub fn named(n: usize, name: &str, blank: usize) -> Result<Self, HeuristicError> {
        let Some((_, _, cells)) = NAMED.iter().find(|(w, nm, _)| *w == n && *nm == name) else {
            let here = names(n);
            if let Some((w, _, _)) = NAMED.iter().find(|(_, nm, _)| *nm == name) {
                return Err(HeuristicError::UnknownPartition(format!(
                    "partition {name} is defined for the {}-puzzle (n = {w}), not for n = {n}; partitions for n = {n}: {}",
                    w * w - 1,
                    if here.is_empty() { "none".to_string() } else { here.join(", ") }
                )));
            }
            return Err(HeuristicError::UnknownPartition(format!(
                "unknown partition {name:?}; partitions for n = {n}: {}",
                if here.is_empty() { "none".to_string() } else { here.join(", ") }
            )));
        };
        let (row, col) = (blank / n, blank % n);
        let corner = |x: usize| x == 0 || x == n - 1;
        if !corner(row) || !corner(col) {
            return Err(HeuristicError::BlankNotInCorner { partition: name.to_string(), blank });
        }
        let map = |c: u8| -> u8 {
            let (r, k) = (usize::from(c) / n, usize::from(c) % n);
            let r = if row == 0 { r } else { n - 1 - r };
            let k = if col == 0 { k } else { n - 1 - k };
            (r * n + k) as u8
        };
        Ok(Self {
            name: name.to_string(),
            patterns: cells.iter().map(|p| p.iter().map(|&c| map(c)).collect()).collect(),
        })
    }

    /// A partition given cell by cell (goal cells, row-major). Its name
    /// lists the pattern sizes, e.g. `4-4`.
    #[must_use]
    pub fn from_cells(patterns: Vec<Vec<u8>>) -> Self {
        let name = patterns.iter().map(|p| p.len().to_string()).collect::<Vec<_>>().join("-");
        Self { name, patterns }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_partitions_cover_every_tile_once() {
        for (n, name, cells) in NAMED {
            let mut all: Vec<u8> = cells.iter().flat_map(|p| p.iter().copied()).collect();
            all.sort_unstable();
            assert_eq!(all, (1..(n * n) as u8).collect::<Vec<_>>(), "{name}");
        }
    }

    #[test]
    fn blank_last_is_the_half_turn() {
        let p = Partition::named(4, "7-8", 15).unwrap();
        assert_eq!(p.patterns[0], [14, 13, 12, 11, 10, 9, 8]);
        assert_eq!(p.patterns[1], [7, 6, 5, 4, 3, 2, 1, 0]);
        let e = Partition::named(4, "6-6-6-6", 0).unwrap_err().to_string();
        assert!(e.contains("n = 5"), "{e}");
        let e = Partition::named(4, "9-6", 0).unwrap_err().to_string();
        assert!(e.contains("unknown") && e.contains("7-8"), "{e}");
        assert!(Partition::named(3, "4-4", 4).is_err());
    }
}
