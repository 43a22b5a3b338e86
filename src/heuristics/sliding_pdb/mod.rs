//! Additive disjoint pattern databases for the sliding puzzle (Korf &
//! Felner 2002; Felner, Korf & Hanan 2004).
//!
//! A [`Partition`] splits the goal cells into disjoint patterns; each
//! [`Pattern`] gets a table of the least number of *its own tiles' moves*
//! that bring them home, over every position of the other tiles and the
//! blank, found by a 0-1 BFS of the abstraction ([`pattern`]). Because each
//! move moves exactly one tile, and each tile belongs to at most one
//! pattern, the values of disjoint patterns add without overestimating:
//! [`AdditivePdb`] sums them, and can also take the maximum with the same
//! sum on the board reflected about the main diagonal (`+r`), which is
//! admissible when the goal's blank sits on that diagonal. Tables are
//! cached on disk through [`crate::heuristics::store::load_or_build`].

pub mod partition;
pub mod pattern;

pub use partition::{Partition, names};
pub use pattern::{MAX_TILES, Pattern, permutations, rank_cmp};

use std::path::Path;
use std::sync::Arc;

use crate::heuristics::HeuristicError;

use crate::heuristics::Heuristic;
use crate::heuristics::store::{ByteTable, CacheOutcome};
use crate::puzzle::{MoveId, Puzzle};
use crate::sliding::{Board, DOWN, LEFT, RIGHT, Sliding, UP};

/// Most patterns in one partition.
pub const MAX_PATTERNS: usize = 16;
const NONE: u8 = u8::MAX;

/// The sum of disjoint pattern databases, optionally maxed with the sum on
/// the transposed board: a [`Heuristic`] for [`Sliding`].
#[derive(Clone, Debug)]
pub struct AdditivePdb {
    n: usize,
    name: String,
    reflect: bool,
    patterns: Vec<Pattern>,
    /// Shared, so that clones (one per search thread) are cheap.
    tables: Vec<Arc<ByteTable>>,
    outcomes: Vec<CacheOutcome>,
    /// Per tile: (pattern, index in it), or `NONE`.
    slot: [(u8, u8); 64],
    /// Per tile `t`: the slot of its image under the transpose relabelling.
    rslot: [(u8, u8); 64],
    /// Per cell: the transposed cell.
    transpose: [u8; 64],
}

impl AdditivePdb {
    /// The additive PDB of the named partition (`5-5-5`, `6-6-3`, `7-8` for
    /// n = 4; `6-6-6-6` for n = 5; `4-4`, `8` for n = 3) for puzzle `p`,
    /// with tables loaded from or saved to `cache` (`None`: always build).
    ///
    /// # Errors
    /// An unknown partition or one for another width, a goal whose blank is
    /// not in a corner, reflection with a goal that is not symmetric under
    /// the transpose, or a cache file that cannot be written.
    pub fn new(p: &Sliding, partition: &str, reflect: bool, cache: Option<&Path>) -> Result<Self, HeuristicError> {
        let part = Partition::named(p.n(), partition, p.goal().blank())?;
        Self::with_partition(p, &part, reflect, cache)
    }

    /// The additive PDB of any partition of goal cells.
    ///
    /// # Errors
    /// Overlapping or invalid patterns, reflection with an asymmetric goal,
    /// or a cache file that cannot be written.
    pub fn with_partition(
        p: &Sliding,
        part: &Partition,
        reflect: bool,
        cache: Option<&Path>,
    ) -> Result<Self, HeuristicError> {
        let n = p.n();
        let goal = p.goal();
        let cells = n * n;
        if part.patterns.is_empty() || part.patterns.len() > MAX_PATTERNS {
            return Err(HeuristicError::PartitionSize { got: part.patterns.len(), max: MAX_PATTERNS });
        }
        let mut transpose = [0u8; 64];
        for (c, t) in transpose.iter_mut().enumerate().take(cells) {
            *t = ((c % n) * n + c / n) as u8;
        }
        if reflect && usize::from(transpose[goal.blank()]) != goal.blank() {
            return Err(HeuristicError::NotSymmetric { goal: p.goal_name().to_string(), blank: goal.blank() });
        }
        let mut patterns = Vec::new();
        let mut slot = [(NONE, NONE); 64];
        for (pi, cells_p) in part.patterns.iter().enumerate() {
            let pat = Pattern::new(n, goal.tiles(), cells_p)
                .map_err(|e| HeuristicError::InPartition { partition: part.name.clone(), source: Box::new(e) })?;
            for (i, &t) in pat.tiles().iter().enumerate() {
                if slot[usize::from(t)].0 != NONE {
                    return Err(HeuristicError::Overlap { partition: part.name.clone(), tile: t });
                }
                slot[usize::from(t)] = (pi as u8, i as u8);
            }
            patterns.push(pat);
        }
        // Tile t on cell c appears in the reflected board as σ(t) on T(c),
        // with σ(t) the goal's tile on T(goal cell of t).
        let mut goal_cell = [0usize; 64];
        for (c, &t) in goal.tiles().iter().enumerate() {
            goal_cell[usize::from(t)] = c;
        }
        let mut rslot = [(NONE, NONE); 64];
        for t in 1..cells {
            let sigma = goal.tiles()[usize::from(transpose[goal_cell[t]])];
            rslot[t] = slot[usize::from(sigma)];
        }
        let mut tables = Vec::new();
        let mut outcomes = Vec::new();
        for pat in &patterns {
            let (table, how) = pat.load_or_build(cache)?;
            tables.push(Arc::new(table));
            outcomes.push(how);
        }
        let name = format!("pdb-{}{}", part.name, if reflect { "+r" } else { "" });
        Ok(Self { n, name, reflect, patterns, tables, outcomes, slot, rslot, transpose })
    }

    /// The patterns, in partition order.
    #[must_use]
    pub fn patterns(&self) -> &[Pattern] {
        &self.patterns
    }

    /// How each table was obtained (loaded, or built in how many seconds).
    #[must_use]
    pub fn outcomes(&self) -> &[CacheOutcome] {
        &self.outcomes
    }

    /// Whether the reflected lookup is on.
    #[must_use]
    pub fn reflects(&self) -> bool {
        self.reflect
    }

    /// The value of pattern `i` alone on board `s`.
    #[must_use]
    pub fn pattern_value(&self, i: usize, s: &Board) -> u8 {
        let pat = &self.patterns[i];
        let mut pos = [0u8; MAX_TILES];
        for (c, &t) in s.tiles().iter().enumerate() {
            let (p, j) = self.slot[usize::from(t)];
            if usize::from(p) == i {
                pos[usize::from(j)] = c as u8;
            }
        }
        self.tables[i].get(pat.rank(&pos[..pat.tiles().len()]))
    }

    /// The sum of the pattern values on `s` and, with reflection, on its
    /// transpose: `(plain, reflected)` (reflected is 0 without it).
    #[must_use]
    pub fn sums(&self, s: &Board) -> (u32, u32) {
        let cells = self.n * self.n;
        let mut pos = [[0u8; MAX_TILES]; MAX_PATTERNS];
        let mut rpos = [[0u8; MAX_TILES]; MAX_PATTERNS];
        for (c, &t) in s.tiles().iter().enumerate() {
            let t = usize::from(t);
            let (p, j) = self.slot[t];
            if p != NONE {
                pos[usize::from(p)][usize::from(j)] = c as u8;
            }
            if self.reflect {
                let (p, j) = self.rslot[t];
                if p != NONE {
                    rpos[usize::from(p)][usize::from(j)] = self.transpose[c];
                }
            }
        }
        let mut plain = 0u32;
        let mut refl = 0u32;
        for (i, pat) in self.patterns.iter().enumerate() {
            let k = pat.tiles().len();
            plain += u32::from(self.tables[i].get(rank_cmp(cells, &pos[i][..k])));
            if self.reflect {
                refl += u32::from(self.tables[i].get(rank_cmp(cells, &rpos[i][..k])));
            }
        }
        (plain, refl)
    }
}

impl Heuristic<Sliding> for AdditivePdb {
    fn estimate(&self, _: &Sliding, s: &Board) -> u32 {
        let (a, b) = self.sums(s);
        a.max(b)
    }

    /// Without reflection, only the pattern holding the moved tile changes:
    /// its value is looked up before and after the move and the difference
    /// applied to `parent_h`. With reflection (a maximum, which does not
    /// decompose) the child is evaluated afresh.
    #[inline]
    fn estimate_child(&self, p: &Sliding, child: &Board, m: MoveId, parent_h: u32) -> u32 {
        if self.reflect {
            return self.estimate(p, child);
        }
        let n = self.n;
        let b = child.blank();
        // The blank came from `from`; the tile now there was on `b`.
        let from = match m {
            UP => b + n,
            DOWN => b - n,
            LEFT => b + 1,
            RIGHT => b - 1,
            _ => return self.estimate(p, child),
        };
        let tiles = child.tiles();
        let (pi, j) = self.slot[usize::from(tiles[from])];
        if pi == NONE {
            return parent_h;
        }
        let pi = usize::from(pi);
        let pat = &self.patterns[pi];
        let k = pat.tiles().len();
        let mut pos = [0u8; MAX_TILES];
        for (c, &t) in tiles.iter().enumerate() {
            let (q, i) = self.slot[usize::from(t)];
            if usize::from(q) == pi {
                pos[usize::from(i)] = c as u8;
            }
        }
        let cells = n * n;
        let after = u32::from(self.tables[pi].get(rank_cmp(cells, &pos[..k])));
        pos[usize::from(j)] = b as u8;
        let before = u32::from(self.tables[pi].get(rank_cmp(cells, &pos[..k])));
        parent_h + after - before
    }

    fn name(&self) -> String {
        self.name.clone()
    }

    fn admissible(&self) -> bool {
        true
    }
}
