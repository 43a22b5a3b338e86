//! Korf's optimal cube solver: IDA* over the coordinate cube
//! ([`KorfCube`]) guided by Korf's pattern databases ([`KorfPdbs`]), either
//! through the generic [`ida_star`](crate::search::ida_star) or a
//! cube-specific IDA* that searches the first-level subtrees in parallel
//! with stronger commutation pruning. Solutions are move ids of
//! [`Cube3Puzzle`](crate::cube3::Cube3Puzzle) with the same metric.

use crate::cube3::coord::{Coords, NT};
use crate::cube3::korf_cube::KorfCube;
use crate::cube3::{Cube3, Metric};
use crate::heuristics::HeuristicError;
use crate::heuristics::korf::KorfPdbs;
use crate::puzzle::{MoveId, Puzzle};
use crate::search::outcome::{Limits, SearchOutcome, Status};
use rayon::prelude::*;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::Instant;

/// Why a cube cannot be solved by a [`KorfSolver`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KorfError {
    /// The tables were built for the other metric.
    #[error("the pattern databases are for {tables}, but the puzzle uses {puzzle}")]
    MetricMismatch {
        /// The tables' metric.
        tables: Metric,
        /// The puzzle's metric.
        puzzle: Metric,
    },
}

/// Korf's solver for one metric: the coordinate cube and its databases.
#[derive(Clone, Debug)]
pub struct KorfSolver {
    /// The coordinate cube.
    pub puzzle: KorfCube,
    /// The pattern databases (also the heuristic).
    pub pdbs: KorfPdbs,
}

/// God's number in `metric`: no optimal solution is longer.
#[must_use]
pub fn gods_number(metric: Metric) -> u32 {
    match metric {
        Metric::Qtm => 26,
        Metric::Htm => 20,
    }
}

impl KorfSolver {
    /// Loads or builds the databases of `metric` (see
    /// [`KorfPdbs::load_or_build`]).
    ///
    /// # Errors
    /// When a freshly built table cannot be written to the cache.
    pub fn load_or_build(metric: Metric, dir: Option<&Path>) -> Result<Self, HeuristicError> {
        Ok(Self { puzzle: KorfCube::new(metric), pdbs: KorfPdbs::load_or_build(metric, dir)? })
    }

    /// A solver from a puzzle and databases of the same metric.
    ///
    /// # Errors
    /// [`KorfError::MetricMismatch`] when the metrics differ.
    pub fn new(puzzle: KorfCube, pdbs: KorfPdbs) -> Result<Self, KorfError> {
        if puzzle.metric != pdbs.metric {
            return Err(KorfError::MetricMismatch { tables: pdbs.metric, puzzle: puzzle.metric });
        }
        Ok(Self { puzzle, pdbs })
    }

    /// Solves `cube` optimally with the generic single-threaded
    /// [`ida_star`](crate::search::ida_star). The path holds move ids of
    /// this metric, valid for [`Cube3Puzzle`](super::Cube3Puzzle) too.
    #[must_use]
    pub fn solve_generic(&self, cube: &Cube3, limits: Limits) -> SearchOutcome {
        let start = self.puzzle.from_cube3(cube);
        crate::search::ida_star(&self.puzzle, &self.pdbs, &start, limits, gods_number(self.puzzle.metric))
    }

    /// Solves `cube` optimally with a cube-specific IDA*. Unlike the
    /// generic one, each iteration searches the root's subtrees in parallel
    /// (rayon), makes all children of a node before looking any up (with
    /// prefetches, so their memory accesses overlap), evaluates the three
    /// tables lazily, skips QTM thresholds of the wrong parity, and prunes
    /// with [`canonical_masks`] (in QTM stronger than
    /// [`Puzzle::is_redundant`], about 3 times fewer nodes). The solution
    /// length is optimal; which optimal path is returned may depend on
    /// thread timing. Node counts are generated children, as in the generic
    /// search; limits are checked every 4096 nodes per thread.
    #[must_use]
    pub fn solve(&self, cube: &Cube3, limits: Limits) -> SearchOutcome {
        self.solve_coords(&self.puzzle.from_cube3(cube), limits)
    }

    /// [`KorfSolver::solve`] from coordinates.
    #[must_use]
    pub fn solve_coords(&self, start: &Coords, limits: Limits) -> SearchOutcome {
        let t0 = Instant::now();
        let mut out = SearchOutcome::start();
        let h0 = self.pdbs.h(start);
        let max_depth = gods_number(self.puzzle.metric);
        if self.puzzle.is_goal(start) {
            out.status = Status::Solved;
            out.elapsed = t0.elapsed();
            return out;
        }
        let generated = AtomicU64::new(1);
        let expanded = AtomicU64::new(0);
        let mut threshold = h0;
        let qtm = self.puzzle.metric == Metric::Qtm;
        let allowed = canonical_masks(self.puzzle.metric);
        while threshold <= max_depth {
            let stop = AtomicBool::new(false);
            let moves: Vec<MoveId> = (0..self.puzzle.num_moves() as MoveId).collect();
            expanded.fetch_add(1, Relaxed);
            let results: Vec<(Step, Vec<MoveId>)> = moves
                .par_iter()
                .map(|&m| {
                    let mut w = Worker {
                        solver: self,
                        threshold,
                        limits,
                        t0,
                        stop: &stop,
                        generated: &generated,
                        expanded: &expanded,
                        local_gen: 0,
                        local_exp: 0,
                        path: vec![m],
                        allowed: &allowed,
                    };
                    let r = w.root_child(start, m);
                    w.flush();
                    (r, w.path)
                })
                .collect();
            let mut next = u32::MAX;
            let mut limit = false;
            for (r, path) in results {
                match r {
                    Step::Found => {
                        out.status = Status::Solved;
                        out.path = path;
                        break;
                    }
                    Step::Limit => limit = true,
                    Step::Next(t) => next = next.min(t),
                }
            }
            if out.status == Status::Solved {
                break;
            }
            if limit {
                out.status = Status::LimitReached;
                break;
            }
            if next == u32::MAX {
                break;
            }
            threshold = next;
            if qtm && (threshold ^ h0) & 1 == 1 {
                threshold += 1;
            }
        }
        out.generated = generated.load(Relaxed);
        out.expanded = expanded.load(Relaxed);
        out.peak_nodes = u64::from(threshold.min(max_depth)) + 1;
        out.elapsed = t0.elapsed();
        out
    }
}

/// Index of the history "`before`, then `last`" (`None`: no move) in the
/// table of [`canonical_masks`].
#[inline]
fn history(num_moves: usize, before: Option<MoveId>, last: MoveId) -> usize {
    before.map_or(num_moves, usize::from) * (num_moves + 1) + usize::from(last)
}

/// For every history of two moves (ids, or `num_moves` for none), the
/// bit set of moves the cube-specific search may make next.
///
/// HTM: the same rules as [`Metric::is_redundant`] (no two turns of one
/// face; opposite faces only in the order U before D, R before L, F before
/// B), which already admit one sequence per canonical form. QTM: stronger
/// than [`Metric::is_redundant`], still keeping one optimal sequence of
/// every position: within a run of turns about one axis the lower face
/// comes first, a face turns at most twice in a row, and a half turn is
/// written `X X` (never `X' X'`). Any optimal sequence can be rewritten
/// into this form at the same length, so optimality is kept while
/// commuting duplicates (`U D` = `D U`) are searched once.
#[must_use]
pub fn canonical_masks(metric: Metric) -> Vec<u32> {
    let n = metric.num_moves();
    let mut masks = vec![0u32; (n + 1) * (n + 1)];
    for b in 0..=n {
        for l in 0..=n {
            let before = (b < n).then(|| metric.turn(b as MoveId));
            let last = (l < n).then(|| metric.turn(l as MoveId));
            let mut mask = 0u32;
            for m in 0..n {
                let t = metric.turn(m as MoveId);
                let ok = match (metric, last) {
                    (_, None) => true,
                    (Metric::Htm, Some(l)) => !(t.face() == l.face() || (l.opposite_faces(t) && l.face() > t.face())),
                    (Metric::Qtm, Some(l)) => {
                        if t.face() == l.face() {
                            t == l && t.quarters() == 1 && before != Some(l)
                        } else {
                            !(l.opposite_faces(t) && l.face() > t.face())
                        }
                    }
                };
                if ok {
                    mask |= 1 << m;
                }
            }
            masks[b * (n + 1) + l] = mask;
        }
    }
    masks
}

enum Step {
    Found,
    Limit,
    Next(u32),
}

struct Worker<'a> {
    solver: &'a KorfSolver,
    threshold: u32,
    limits: Limits,
    t0: Instant,
    stop: &'a AtomicBool,
    generated: &'a AtomicU64,
    expanded: &'a AtomicU64,
    local_gen: u64,
    local_exp: u64,
    path: Vec<MoveId>,
    allowed: &'a [u32],
}

impl Worker<'_> {
    fn flush(&mut self) {
        self.generated.fetch_add(self.local_gen, Relaxed);
        self.expanded.fetch_add(self.local_exp, Relaxed);
        self.local_gen = 0;
        self.local_exp = 0;
    }

    /// Flushes counters; whether to stop (limit hit or solution found).
    fn check(&mut self) -> bool {
        self.flush();
        if self.stop.load(Relaxed) {
            return true;
        }
        let over =
            self.generated.load(Relaxed) >= self.limits.max_generated || self.t0.elapsed() >= self.limits.max_time;
        if over {
            self.stop.store(true, Relaxed);
        }
        over
    }

    fn root_child(&mut self, start: &Coords, m: MoveId) -> Step {
        let p = &self.solver.puzzle;
        let child = p.tables().apply(start, p.turn(m).id() as usize);
        self.local_gen += 1;
        match self.solver.pdbs.within(&child, self.threshold - 1) {
            None => Step::Next(1 + self.solver.pdbs.h(&child)),
            Some(h) => self.dfs(&child, 1, h, history(self.solver.puzzle.num_moves(), None, m)),
        }
    }

    fn dfs(&mut self, s: &Coords, g: u32, h: u32, hist: usize) -> Step {
        if h == 0 && self.solver.puzzle.is_goal(s) {
            self.stop.store(true, Relaxed);
            return Step::Found;
        }
        if self.local_gen >= 4096 && self.check() {
            return Step::Limit;
        }
        if g >= self.threshold {
            return Step::Next(self.threshold + 1);
        }
        self.local_exp += 1;
        let p = &self.solver.puzzle;
        let bound = self.threshold - g - 1;
        let mut next = u32::MAX;
        let n = p.num_moves();
        let mask = self.allowed[hist];
        // Make every child first and prefetch its table entries, so the
        // memory accesses of all children overlap.
        let mut kids = [(0 as MoveId, *s); NT];
        let mut k = 0;
        for m in 0..n as MoveId {
            if mask & (1 << m) != 0 {
                let child = p.tables().apply(s, p.turn(m).id() as usize);
                self.solver.pdbs.prefetch(&child);
                kids[k] = (m, child);
                k += 1;
            }
        }
        self.local_gen += k as u64;
        for &(m, child) in &kids[..k] {
            match self.solver.pdbs.within(&child, bound) {
                // A lower bound of the child's f (lazy lookups), at least
                // threshold + 1: a valid next threshold.
                None => next = next.min(self.threshold + 1),
                Some(hc) => {
                    self.path.push(m);
                    match self.dfs(&child, g + 1, hc, history(n, Some((hist % (n + 1)) as MoveId), m)) {
                        Step::Found => return Step::Found,
                        Step::Limit => return Step::Limit,
                        Step::Next(t) => next = next.min(t),
                    }
                    self.path.pop();
                }
            }
        }
        Step::Next(next)
    }
}
