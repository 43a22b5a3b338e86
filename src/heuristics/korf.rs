//! Korf's pattern databases for the cube (Korf 1997), for either move
//! metric: the corner database (8!·3^7 = 88,179,840 entries) and two
//! disjoint 6-edge databases (12!/6!·2^6 = 42,577,920 entries each, edge
//! pieces 0..6 and 6..12), each filled by a breadth-first search from the
//! solved cube over the coordinate move tables of [`KorfCube`] and packed 4
//! bits an entry; each is cached on disk by [`load_or_build`]. The
//! heuristic [`KorfPdbs`] is the maximum of the three lookups, raised by one
//! in QTM when its parity disagrees with the state's (every quarter turn is
//! an odd corner permutation, so a state's QTM distance has its corner
//! parity).

use super::Heuristic;
use super::HeuristicError;
use super::store::{CacheOutcome, NibbleTable, Packed, build_progress, load_or_build};
use crate::checksum::Fnv1a;
use crate::cube3::Metric;
use crate::cube3::coord::{Coords, MoveTables, N_CO, N_CORNERS, N_EDGES6, NT};
use crate::cube3::korf_cube::KorfCube;
use rayon::prelude::*;
use std::path::Path;
use std::sync::atomic::{AtomicU8, Ordering::Relaxed};
use std::time::Instant;

/// Version of the table layout; part of every cache fingerprint.
const FORMAT_VERSION: u32 = 1;

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
    /// [`crate::heuristics::store::cache_dir`]), or builds and saves them. `dir = None`
    /// builds without caching.
    ///
    /// # Errors
    /// When a freshly built table cannot be written to the cache.
    pub fn load_or_build(metric: Metric, dir: Option<&Path>) -> Result<Self, HeuristicError> {
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
    pub(crate) fn prefetch(&self, s: &Coords) {
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
    pub(crate) fn within(&self, s: &Coords, bound: u32) -> Option<u32> {
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
