//! Korf's optimal cube solver (Korf 1997): IDA* guided by the maximum of
//! three pattern databases, for either move metric.
//!
//! [`KorfCube`] is the cube on the coordinate level ([`Coords`]) as a
//! [`Puzzle`] whose move ids, names and pruning rules are exactly those of
//! [`Cube3Puzzle`](super::Cube3Puzzle) with the same metric, so a solution
//! found here replays move for move on a [`Cube3`]. [`KorfPdbs`] holds the
//! corner database (8!·3^7 = 88,179,840 entries) and two disjoint 6-edge
//! databases (12!/6!·2^6 = 42,577,920 entries each, edge pieces 0..6 and
//! 6..12), each filled by a breadth-first search from the solved cube over
//! the coordinate move tables and packed 4 bits an entry. The metrics need
//! different tables; each is cached on disk by [`crate::pdb::load_or_build`].
//! The heuristic is the maximum of the three lookups, raised by one in QTM
//! when its parity disagrees with the state's (every quarter turn is an odd
//! corner permutation, so a state's QTM distance has its corner parity).
//! [`KorfSolver`] bundles both and runs either the generic
//! [`ida_star`](crate::search::ida_star) or a cube-specific IDA* that
//! searches the first-level subtrees in parallel.

use super::coord::{Coords, MoveTables, N_CO, N_CORNERS, N_EDGES6, NT};
use super::state::{Cube3, ONE_HOT_LEN};
use super::turn::{Metric, Turn};
use crate::checksum::Fnv1a;
use crate::pdb::{CacheOutcome, NibbleTable, Packed, build_progress, load_or_build};
use crate::puzzle::{MoveId, Puzzle, Recent};
use crate::search::heuristic::Heuristic;
use crate::search::outcome::{Limits, SearchOutcome, Status};
use anyhow::Result;
use rayon::prelude::*;
use std::fmt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering::Relaxed};
use std::time::Instant;

/// Version of the table layout; part of every cache fingerprint.
const FORMAT_VERSION: u32 = 1;

/// The cube on the coordinate level, with the move set of one metric.
///
/// Move ids, names, inverses and [`Puzzle::is_redundant`] equal those of
/// [`Cube3Puzzle`](super::Cube3Puzzle) `{ metric }`.
#[derive(Clone, Copy)]
pub struct KorfCube {
    /// The move metric (QTM: 12 moves, HTM: 18).
    pub metric: Metric,
    tables: &'static MoveTables,
    goal: Coords,
}

impl fmt::Debug for KorfCube {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KorfCube").field("metric", &self.metric).finish_non_exhaustive()
    }
}

impl KorfCube {
    /// The coordinate cube with `metric`'s move set (builds the shared move
    /// tables on first use).
    #[must_use]
    pub fn new(metric: Metric) -> Self {
        Self { metric, tables: MoveTables::get(), goal: Coords::solved() }
    }

    /// The coordinates of a sticker state.
    #[must_use]
    pub fn from_cube3(&self, c: &Cube3) -> Coords {
        Coords::from_cube3(c)
    }

    /// The sticker state of coordinates `s`.
    #[must_use]
    pub fn to_cube3(&self, s: &Coords) -> Cube3 {
        Cube3::from_cubies(&s.to_cubies())
    }

    /// The turn made by move `m`.
    #[inline]
    #[must_use]
    pub fn turn(&self, m: MoveId) -> Turn {
        self.moves().turn(m)
    }

    /// The sticker cube with the same move set: move ids, names, inverses
    /// and pruning are delegated to it, so the two cannot drift apart.
    #[inline]
    fn moves(&self) -> super::Cube3Puzzle {
        super::Cube3Puzzle::new(self.metric)
    }

    /// The turns of a path of move ids (to replay on a [`Cube3`]).
    #[must_use]
    pub fn turns(&self, path: &[MoveId]) -> Vec<Turn> {
        path.iter().map(|&m| self.turn(m)).collect()
    }

    /// The shared move tables.
    #[must_use]
    pub fn tables(&self) -> &'static MoveTables {
        self.tables
    }
}

impl Puzzle for KorfCube {
    type State = Coords;
    type Key = u128;

    fn name(&self) -> String {
        format!("cube3-coords-{}", self.metric)
    }

    #[inline]
    fn num_moves(&self) -> usize {
        self.moves().num_moves()
    }

    fn move_name(&self, m: MoveId) -> &str {
        self.turn(m).name()
    }

    #[inline]
    fn inverse(&self, m: MoveId) -> MoveId {
        self.moves().inverse(m)
    }

    fn goal(&self) -> Coords {
        self.goal
    }

    #[inline]
    fn is_goal(&self, s: &Coords) -> bool {
        *s == self.goal
    }

    #[inline]
    fn apply(&self, s: &mut Coords, m: MoveId) {
        *s = self.tables.apply(s, self.turn(m).id() as usize);
    }

    #[inline]
    fn is_redundant(&self, recent: Recent, m: MoveId) -> bool {
        self.moves().is_redundant(recent, m)
    }

    #[inline]
    fn key(&self, s: &Coords) -> u128 {
        s.key()
    }

    fn encoded_len(&self) -> usize {
        ONE_HOT_LEN
    }

    fn encode(&self, s: &Coords, out: &mut [f32]) {
        self.to_cube3(s).encode_one_hot(out);
    }
}

/// Which pattern a database abstracts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pattern {
    /// All 8 corners (permutation and orientation): 88,179,840 entries.
    Corners,
    /// Edge pieces 0..6 (UR UF UL UB DR DF): 42,577,920 entries.
    EdgesA,
    /// Edge pieces 6..12 (DL DB FR FL BL BR): 42,577,920 entries.
    EdgesB,
}

impl Pattern {
    /// The three patterns.
    pub const ALL: [Pattern; 3] = [Pattern::Corners, Pattern::EdgesA, Pattern::EdgesB];

    /// Short name: `corners`, `edges-a`, `edges-b`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Pattern::Corners => "corners",
            Pattern::EdgesA => "edges-a",
            Pattern::EdgesB => "edges-b",
        }
    }

    /// Number of entries.
    #[must_use]
    pub fn len(self) -> usize {
        match self {
            Pattern::Corners => N_CORNERS,
            Pattern::EdgesA | Pattern::EdgesB => N_EDGES6,
        }
    }

    /// Always `false` (no pattern is empty); present for the `len` convention.
    #[must_use]
    pub fn is_empty(self) -> bool {
        false
    }

    /// The index of `s` in this pattern's table.
    #[inline]
    #[must_use]
    pub fn index(self, s: &Coords) -> usize {
        match self {
            Pattern::Corners => s.cp as usize * N_CO + s.co as usize,
            Pattern::EdgesA => s.ea as usize,
            Pattern::EdgesB => s.eb as usize,
        }
    }

    /// Cache file name, e.g. `cube3-korf-corners-qtm`.
    #[must_use]
    pub fn cache_name(self, metric: Metric) -> String {
        format!("cube3-korf-{}-{}", self.name(), metric)
    }

    /// Cache fingerprint: metric, pattern, sizes and format version.
    #[must_use]
    pub fn fingerprint(self, metric: Metric) -> u64 {
        let mut h = Fnv1a::default();
        h.update(format!("cube3-korf|{}|{}|{}|v{FORMAT_VERSION}", self.name(), metric, self.len()).as_bytes());
        h.finish()
    }
}

/// Breadth-first search from `goal` over `n` ranked states into a packed
/// 4-bit table. `children(i, out)` writes the ranks of state `i`'s
/// neighbours into `out` and returns how many it wrote; the neighbour
/// relation must be symmetric (a move set closed under inverses), because
/// late levels are filled backwards: an unreached state is put at depth
/// `d + 1` when any neighbour is at depth `d`. Levels are scanned over the
/// packed table, in parallel over chunks (rayon). Distances above 14 do not
/// fit a nibble: states not reached by depth 14 are stored as 14, a lower
/// bound. Returns the table and the number of states at each depth.
pub fn bfs_nibbles<F>(n: usize, goal: usize, label: &str, children: F) -> (NibbleTable, Vec<u64>)
where
    F: Fn(usize, &mut [usize; NT]) -> usize + Sync,
{
    const CHUNK: usize = 1 << 16; // entries, even
    let bytes: Vec<AtomicU8> = (0..n.div_ceil(2)).map(|_| AtomicU8::new(0xff)).collect();
    let get = |i: usize| (bytes[i >> 1].load(Relaxed) >> ((i & 1) << 2)) & 0xf;
    let shift = |i: usize| ((i & 1) << 2) as u8;
    {
        let b = &bytes[goal >> 1];
        b.store(b.load(Relaxed) & !(0xf << shift(goal)), Relaxed);
    }
    let bar = build_progress(label, n as u64);
    bar.inc(1);
    let mut counts = vec![1u64];
    let mut unreached = n as u64 - 1;
    let nchunks = n.div_ceil(CHUNK);
    let mut d = 0u8;
    while unreached > 0 && d < 14 {
        let frontier = counts[d as usize];
        let next = d + 1;
        let backward = frontier.saturating_mul(4) > unreached;
        let found: u64 = (0..nchunks)
            .into_par_iter()
            .map(|c| {
                let (lo, hi) = (c * CHUNK, ((c + 1) * CHUNK).min(n));
                let mut buf = [0usize; NT];
                let mut found = 0u64;
                if backward {
                    let range = lo / 2..hi.div_ceil(2);
                    for (bi, byte) in range.clone().zip(&bytes[range]) {
                        let old = byte.load(Relaxed);
                        let mut new = old;
                        for i in [2 * bi, 2 * bi + 1] {
                            if i >= n || (old >> shift(i)) & 0xf != NibbleTable::EMPTY {
                                continue;
                            }
                            let k = children(i, &mut buf);
                            if buf[..k].iter().any(|&j| get(j) == d) {
                                new = (new & !(0xf << shift(i))) | (next << shift(i));
                                found += 1;
                            }
                        }
                        if new != old {
                            byte.store(new, Relaxed);
                        }
                    }
                } else {
                    let range = lo / 2..hi.div_ceil(2);
                    for (bi, byte) in range.clone().zip(&bytes[range]) {
                        let v = byte.load(Relaxed);
                        if v & 0xf != d && v >> 4 != d {
                            continue;
                        }
                        for i in [2 * bi, 2 * bi + 1] {
                            if i >= n || get(i) != d {
                                continue;
                            }
                            let k = children(i, &mut buf);
                            for &j in &buf[..k] {
                                let b = &bytes[j >> 1];
                                let sh = shift(j);
                                let mut cur = b.load(Relaxed);
                                while (cur >> sh) & 0xf == NibbleTable::EMPTY {
                                    let want = (cur & !(0xf << sh)) | (next << sh);
                                    match b.compare_exchange_weak(cur, want, Relaxed, Relaxed) {
                                        Ok(_) => {
                                            found += 1;
                                            break;
                                        }
                                        Err(x) => cur = x,
                                    }
                                }
                            }
                        }
                    }
                }
                bar.inc(found);
                found
            })
            .sum();
        if found == 0 {
            break;
        }
        counts.push(found);
        unreached -= found;
        d = next;
    }
    if unreached > 0 {
        // Saturate: deeper than 14, stored as the lower bound 14.
        bytes.par_iter().for_each(|b| {
            let v = b.load(Relaxed);
            let lo = if v & 0xf == 0xf { 14 } else { v & 0xf };
            let hi = if v >> 4 == 0xf { 14 } else { v >> 4 };
            b.store(lo | (hi << 4), Relaxed);
        });
        if n % 2 == 1 {
            // The unused high nibble of the last byte stays EMPTY.
            let b = &bytes[n >> 1];
            b.store(b.load(Relaxed) | 0xf0, Relaxed);
        }
        counts.resize(15, 0);
        counts[14] += unreached;
    }
    bar.finish_and_clear();
    let raw: Vec<u8> = bytes.into_iter().map(AtomicU8::into_inner).collect();
    (NibbleTable::from_bytes(n, raw).expect("byte count matches"), counts)
}

/// Builds one pattern database for one metric (no cache).
#[must_use]
pub fn build_pdb(pattern: Pattern, metric: Metric) -> NibbleTable {
    let mt = MoveTables::get();
    let turns: Vec<usize> = metric.turns().iter().map(|t| t.id() as usize).collect();
    let goal = pattern.index(&Coords::solved());
    let label = format!("{} {}", pattern.name(), metric);
    match pattern {
        Pattern::Corners => {
            bfs_nibbles(N_CORNERS, goal, &label, |i, out| {
                let (cp, co) = (i / N_CO * NT, i % N_CO * NT);
                for (o, &t) in out.iter_mut().zip(&turns) {
                    *o = mt.cp[cp + t] as usize * N_CO + mt.co[co + t] as usize;
                }
                turns.len()
            })
            .0
        }
        Pattern::EdgesA | Pattern::EdgesB => {
            bfs_nibbles(N_EDGES6, goal, &label, |i, out| {
                for (o, &t) in out.iter_mut().zip(&turns) {
                    *o = mt.edge(i as u32, t) as usize;
                }
                turns.len()
            })
            .0
        }
    }
}

/// Summary of one loaded or built table.
#[derive(Clone, Debug)]
pub struct TableInfo {
    /// The pattern.
    pub pattern: Pattern,
    /// Where it came from (cache file or BFS, with the build time).
    pub outcome: CacheOutcome,
    /// Seconds to load or build it.
    pub seconds: f64,
    /// Number of entries with each value 0..=15.
    pub histogram: [u64; 16],
}

impl TableInfo {
    /// Mean entry value.
    #[must_use]
    pub fn mean(&self) -> f64 {
        let n: u64 = self.histogram.iter().sum();
        self.histogram.iter().enumerate().map(|(v, &c)| v as f64 * c as f64).sum::<f64>() / n as f64
    }

    /// Largest entry value present.
    #[must_use]
    pub fn max(&self) -> u8 {
        self.histogram.iter().rposition(|&c| c > 0).unwrap_or(0) as u8
    }
}

/// Value counts of a table (in parallel).
#[must_use]
pub fn histogram(t: &NibbleTable) -> [u64; 16] {
    let len = t.len();
    t.bytes()
        .par_chunks(1 << 20)
        .enumerate()
        .map(|(c, chunk)| {
            let mut h = [0u64; 16];
            for (k, &b) in chunk.iter().enumerate() {
                let i = (c << 21) + 2 * k;
                h[(b & 0xf) as usize] += 1;
                if i + 1 < len {
                    h[(b >> 4) as usize] += 1;
                }
            }
            h
        })
        .reduce(
            || [0u64; 16],
            |mut a, b| {
                for (x, y) in a.iter_mut().zip(b) {
                    *x += y;
                }
                a
            },
        )
}

/// The three pattern databases of one metric; the heuristic of [`KorfCube`].
#[derive(Clone, Debug)]
pub struct KorfPdbs {
    /// The metric the tables were built for.
    pub metric: Metric,
    corners: NibbleTable,
    edges_a: NibbleTable,
    edges_b: NibbleTable,
    /// How each table was obtained, in [`Pattern::ALL`] order.
    pub info: Vec<TableInfo>,
}

impl KorfPdbs {
    /// Loads the three tables of `metric` from `dir` (see
    /// [`crate::pdb::cache_dir`]), or builds and saves them. `dir = None`
    /// builds without caching.
    ///
    /// # Errors
    /// When a freshly built table cannot be written to the cache.
    pub fn load_or_build(metric: Metric, dir: Option<&Path>) -> Result<Self> {
        let mut tables = Vec::new();
        let mut info = Vec::new();
        for pattern in Pattern::ALL {
            let t0 = Instant::now();
            let (t, outcome) =
                load_or_build(dir, &pattern.cache_name(metric), pattern.fingerprint(metric), pattern.len(), || {
                    build_pdb(pattern, metric)
                })?;
            let seconds = t0.elapsed().as_secs_f64();
            info.push(TableInfo { pattern, outcome, seconds, histogram: histogram(&t) });
            tables.push(t);
        }
        let edges_b = tables.pop().expect("three tables");
        let edges_a = tables.pop().expect("three tables");
        let corners = tables.pop().expect("three tables");
        Ok(Self { metric, corners, edges_a, edges_b, info })
    }

    /// The table of `pattern`.
    #[must_use]
    pub fn table(&self, pattern: Pattern) -> &NibbleTable {
        match pattern {
            Pattern::Corners => &self.corners,
            Pattern::EdgesA => &self.edges_a,
            Pattern::EdgesB => &self.edges_b,
        }
    }

    /// The heuristic value of `s`: the largest of the three lookups, made
    /// to match the state's parity in QTM.
    #[inline]
    #[must_use]
    pub fn h(&self, s: &Coords) -> u32 {
        let c = self.corners.get(Pattern::Corners.index(s));
        let a = self.edges_a.get(s.ea as usize);
        let b = self.edges_b.get(s.eb as usize);
        let h = c.max(a).max(b);
        let h = if self.metric == Metric::Qtm && (h ^ c) & 1 == 1 { h + 1 } else { h };
        u32::from(h)
    }

    /// Asks the CPU to start loading the three entries of `s`.
    #[inline]
    fn prefetch(&self, s: &Coords) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let c = Pattern::Corners.index(s) >> 1;
            let (a, b) = ((s.ea >> 1) as usize, (s.eb >> 1) as usize);
            // SAFETY: prefetching is a hint and never faults; the
            // addresses are inside the tables anyway.
            unsafe {
                _mm_prefetch::<_MM_HINT_T0>(self.corners.bytes().as_ptr().add(c).cast());
                _mm_prefetch::<_MM_HINT_T0>(self.edges_a.bytes().as_ptr().add(a).cast());
                _mm_prefetch::<_MM_HINT_T0>(self.edges_b.bytes().as_ptr().add(b).cast());
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = s;
    }

    /// Whether `h(s) <= bound`, looking up as few tables as needed.
    #[inline]
    fn within(&self, s: &Coords, bound: u32) -> Option<u32> {
        let c = u32::from(self.corners.get(Pattern::Corners.index(s)));
        if c > bound {
            return None;
        }
        let a = u32::from(self.edges_a.get(s.ea as usize));
        if a > bound {
            return None;
        }
        let b = u32::from(self.edges_b.get(s.eb as usize));
        if b > bound {
            return None;
        }
        let h = c.max(a).max(b);
        let h = if self.metric == Metric::Qtm && (h ^ c) & 1 == 1 { h + 1 } else { h };
        (h <= bound).then_some(h)
    }
}

impl Heuristic<KorfCube> for KorfPdbs {
    #[inline]
    fn estimate(&self, _: &KorfCube, s: &Coords) -> u32 {
        self.h(s)
    }
    fn name(&self) -> String {
        format!("korf-pdb-{}", self.metric)
    }
    fn admissible(&self) -> bool {
        true
    }
}

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
    pub fn load_or_build(metric: Metric, dir: Option<&Path>) -> Result<Self> {
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
        let child = p.tables.apply(start, p.turn(m).id() as usize);
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
                let child = p.tables.apply(s, p.turn(m).id() as usize);
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
