//! One additive pattern: a set of goal cells, its k-permutation ranking and
//! its table, filled by a 0-1 breadth-first search of the abstraction.
//!
//! The *pattern tiles* are the goal's tiles on the pattern cells; an
//! abstract state is where those k tiles are (a *placement*, one of
//! `N!/(N-k)!` on `N = n²` cells) plus the blank's connected component of
//! the cells they leave free. Only moves of pattern tiles cost 1; the blank
//! wanders through its component for free, so a state is normalised to
//! (placement, component) and the search space is about the number of
//! placements, not `N` times it. The table keeps, per placement, the least
//! cost over its components, which is what makes values of disjoint
//! patterns add admissibly.
//!
//! Placements are ranked lexicographically as k-permutations: digit `i` is
//! the position of tile `i` among the cells not taken by tiles `0..i`, and
//! the rank is the mixed-radix number `((d₀·(N-1) + d₁)·(N-2) + d₂)…`.
//!
//! The BFS is layered. Each placement has three bit sets over its free
//! cells (bit `j` is the `j`-th free cell), side by side so that touching a
//! successor costs one cache line: `visited`, and the layer being expanded
//! and the next one, which swap roles. A successor marks only the blank's
//! cell; expanding a state floods that cell's component, marks the whole
//! component visited (so no later layer re-enters it through another cell)
//! and merges duplicates of one layer. A placement's value is the first
//! layer it appears in, written while that layer is scanned in order.
//! Layers are scanned in parallel with rayon (one atomic `fetch_or` claims
//! a successor, after a plain load has weeded out most visited ones);
//! flood fills, ranking and unranking are a few bit operations (BMI2
//! `pdep`/`pext` and `popcnt` when the CPU has them), and a successor's
//! rank is recomputed from the moved tile on.

use std::sync::atomic::{AtomicU8, AtomicU16, AtomicU32, AtomicU64, Ordering};

use crate::heuristics::HeuristicError;
use rayon::prelude::*;

use crate::checksum::Fnv1a;
use crate::heuristics::store::{ByteTable, CacheOutcome, build_progress, load_or_build};

/// Version of the table layout and search; part of every cache fingerprint.
pub const FORMAT_VERSION: u32 = 1;

/// Most tiles in one pattern.
pub const MAX_TILES: usize = 12;

/// Largest table (entries) a pattern may have.
pub const MAX_ENTRIES: u64 = 1 << 32;

/// A pattern of a width-`n` puzzle: goal cells and the tiles on them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    n: usize,
    cells: Vec<u8>,
    tiles: Vec<u8>,
    blank: u8,
}

impl Pattern {
    /// The pattern of `cells` (row-major goal cells, in this order) for the
    /// goal `goal` (row-major tiles of a width-`n` board, `0` the blank).
    ///
    /// # Errors
    /// A cell out of range, repeated, or holding the goal's blank; an
    /// empty pattern or one too large to tabulate.
    pub fn new(n: usize, goal: &[u8], cells: &[u8]) -> Result<Self, HeuristicError> {
        let total = n * n;
        if goal.len() != total {
            return Err(HeuristicError::GoalSize { got: goal.len(), expected: total, n });
        }
        if cells.is_empty() || cells.len() > MAX_TILES {
            return Err(HeuristicError::PatternSize { got: cells.len(), max: MAX_TILES });
        }
        let mut seen = 0u64;
        let mut tiles = Vec::with_capacity(cells.len());
        for &c in cells {
            if usize::from(c) >= total {
                return Err(HeuristicError::CellOutside { cell: c, n });
            }
            if seen & (1 << c) != 0 {
                return Err(HeuristicError::CellTwice(c));
            }
            seen |= 1 << c;
            let t = goal[usize::from(c)];
            if t == 0 {
                return Err(HeuristicError::CellIsBlank(c));
            }
            tiles.push(t);
        }
        if total - cells.len() > 32 {
            return Err(HeuristicError::PatternTooLarge {
                cells: cells.len(),
                n,
                why: "it leaves more than 32 free cells".into(),
            });
        }
        let entries = permutations(total, cells.len());
        if entries > MAX_ENTRIES {
            return Err(HeuristicError::PatternTooLarge {
                cells: cells.len(),
                n,
                why: format!("it has {entries} placements, more than {MAX_ENTRIES}"),
            });
        }
        let blank = goal.iter().position(|&t| t == 0).expect("a goal has a blank") as u8;
        Ok(Self { n, cells: cells.to_vec(), tiles, blank })
    }

    /// Board width.
    #[must_use]
    pub fn n(&self) -> usize {
        self.n
    }

    /// The goal cells, in pattern order.
    #[must_use]
    pub fn cells(&self) -> &[u8] {
        &self.cells
    }

    /// The pattern tiles (the goal's tiles on [`Self::cells`]), in order.
    #[must_use]
    pub fn tiles(&self) -> &[u8] {
        &self.tiles
    }

    /// Number of table entries, `N!/(N-k)!`.
    #[must_use]
    pub fn entries(&self) -> usize {
        permutations(self.n * self.n, self.cells.len()) as usize
    }

    /// Hash of everything the table depends on: format version, width,
    /// the goal's blank cell, pattern cells and tiles.
    #[must_use]
    pub fn fingerprint(&self) -> u64 {
        let mut h = Fnv1a::default();
        h.update(b"cube-oracle sliding additive pdb");
        h.update(&FORMAT_VERSION.to_le_bytes());
        h.update(&(self.n as u64).to_le_bytes());
        h.update(&[self.blank, self.cells.len() as u8]);
        h.update(&self.cells);
        h.update(&self.tiles);
        h.finish()
    }

    /// The cache file name (without extension): width, cells and a short
    /// fingerprint.
    #[must_use]
    pub fn cache_name(&self) -> String {
        let cells: Vec<String> = self.cells.iter().map(u8::to_string).collect();
        format!("sliding{}-k{}-c{}-{:08x}", self.n, self.cells.len(), cells.join("."), self.fingerprint() as u32)
    }

    /// Rank of the placement `pos` (`pos[i]` = cell of tile `i`).
    #[inline]
    #[must_use]
    pub fn rank(&self, pos: &[u8]) -> usize {
        rank_cmp(self.n * self.n, pos)
    }

    /// Builds the table by 0-1 BFS (no cache).
    #[must_use]
    pub fn build(&self) -> ByteTable {
        let label = format!("pdb {}-tile n={}", self.cells.len(), self.n);
        let bar = build_progress(&label, self.entries() as u64);
        let values = build_bfs(self, &|k| bar.inc(k));
        bar.finish_and_clear();
        crate::heuristics::store::Packed::from_bytes(values.len(), values).expect("one byte an entry")
    }

    /// Loads the table from `cache` or builds and saves it.
    ///
    /// # Errors
    /// Only a failure to write the cache file.
    pub fn load_or_build(&self, cache: Option<&std::path::Path>) -> Result<(ByteTable, CacheOutcome), HeuristicError> {
        load_or_build(cache, &self.cache_name(), self.fingerprint(), self.entries(), || self.build())
    }
}

/// `N!/(N-k)!`.
#[must_use]
pub fn permutations(cells: usize, k: usize) -> u64 {
    (0..k).map(|i| (cells - i) as u64).product()
}

/// Lexicographic k-permutation rank by comparisons (portable, branch-free):
/// digit `i` = `pos[i]` minus the earlier tiles on smaller cells.
#[inline]
#[must_use]
pub fn rank_cmp(cells: usize, pos: &[u8]) -> usize {
    let mut r = 0usize;
    for i in 0..pos.len() {
        let p = pos[i];
        let mut smaller = 0u8;
        for &q in &pos[..i] {
            smaller += u8::from(q < p);
        }
        r = r * (cells - i) + usize::from(p - smaller);
    }
    r
}

// ---------------------------------------------------------------------------
// Bit tricks: neighbours, flood fill, pdep/pext, popcount.

#[derive(Clone, Copy)]
struct Geometry {
    n: u32,
    all: u64,
    /// Cells not in the last column (may move right).
    not_last: u64,
    /// Cells not in the first column (may move left).
    not_first: u64,
}

impl Geometry {
    fn new(n: usize) -> Self {
        let total = n * n;
        let all = if total == 64 { u64::MAX } else { (1u64 << total) - 1 };
        let (mut not_last, mut not_first) = (0u64, 0u64);
        for c in 0..total {
            if c % n != n - 1 {
                not_last |= 1 << c;
            }
            if c % n != 0 {
                not_first |= 1 << c;
            }
        }
        Self { n: n as u32, all, not_last, not_first }
    }

    #[inline(always)]
    fn neighbours(&self, m: u64) -> u64 {
        (((m & self.not_last) << 1) | ((m & self.not_first) >> 1) | (m << self.n) | (m >> self.n)) & self.all
    }

    #[inline(always)]
    fn flood(&self, seed: u64, allowed: u64) -> u64 {
        let mut cur = seed;
        loop {
            let nx = (cur | self.neighbours(cur)) & allowed;
            if nx == cur {
                return cur;
            }
            cur = nx;
        }
    }
}

/// Bit operations, with or without BMI2/popcnt (chosen once per build).
trait Bits: Copy + Send + Sync + Sized {
    fn pext(x: u64, mask: u64) -> u64;
    fn pdep(x: u64, mask: u64) -> u64;
    fn popcount(x: u64) -> u32;
    /// Runs one chunk of a layer compiled for this instruction set.
    fn run<W: Word>(layer: &Layer<'_, W>, first: usize, values: &mut [u8]) -> (u64, u64);
}

#[derive(Clone, Copy)]
struct Portable;

impl Bits for Portable {
    #[inline(always)]
    fn pext(x: u64, mut mask: u64) -> u64 {
        let (mut out, mut bit) = (0u64, 0u32);
        while mask != 0 {
            let low = mask & mask.wrapping_neg();
            if x & low != 0 {
                out |= 1 << bit;
            }
            bit += 1;
            mask &= mask - 1;
        }
        out
    }
    #[inline(always)]
    fn pdep(mut x: u64, mut mask: u64) -> u64 {
        let mut out = 0u64;
        while mask != 0 {
            let low = mask & mask.wrapping_neg();
            if x & 1 != 0 {
                out |= low;
            }
            x >>= 1;
            mask &= mask - 1;
        }
        out
    }
    #[inline(always)]
    fn popcount(x: u64) -> u32 {
        x.count_ones()
    }
    fn run<W: Word>(layer: &Layer<'_, W>, first: usize, values: &mut [u8]) -> (u64, u64) {
        layer.chunk::<Self>(first, values)
    }
}

#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
struct Bmi2;

#[cfg(target_arch = "x86_64")]
impl Bits for Bmi2 {
    #[inline(always)]
    fn pext(x: u64, mask: u64) -> u64 {
        // SAFETY: only used inside functions compiled with (and selected at
        // run time for) the bmi2 and popcnt features.
        unsafe { core::arch::x86_64::_pext_u64(x, mask) }
    }
    #[inline(always)]
    fn pdep(x: u64, mask: u64) -> u64 {
        // SAFETY: as above.
        unsafe { core::arch::x86_64::_pdep_u64(x, mask) }
    }
    #[inline(always)]
    fn popcount(x: u64) -> u32 {
        x.count_ones()
    }
    fn run<W: Word>(layer: &Layer<'_, W>, first: usize, values: &mut [u8]) -> (u64, u64) {
        // SAFETY: `Bmi2` is chosen only when the CPU has bmi2 and popcnt.
        unsafe { chunk_bmi2(layer, first, values) }
    }
}

// ---------------------------------------------------------------------------
// Per-placement component bit sets of 8, 16 or 32 bits.

trait Word: Copy + Default + Send + Sync + 'static {
    type Atomic: Sync;
    fn atomics(v: &[Self]) -> &[Self::Atomic];
    fn fetch_or(a: &Self::Atomic, v: u32) -> u32;
    fn load(a: &Self::Atomic) -> u32;
    fn store(a: &Self::Atomic, v: u32);
    fn from_u32(v: u32) -> Self;
}

macro_rules! word {
    ($t:ty, $a:ty) => {
        impl Word for $t {
            type Atomic = $a;
            fn atomics(v: &[Self]) -> &[$a] {
                // SAFETY: the atomic type has the same size, alignment and
                // bit validity as the integer; all writes during the shared
                // borrow go through the atomics.
                unsafe { &*(std::ptr::from_ref::<[$t]>(v) as *const [$a]) }
            }
            #[inline(always)]
            fn fetch_or(a: &$a, v: u32) -> u32 {
                u32::from(a.fetch_or(v as $t, Ordering::Relaxed))
            }
            #[inline(always)]
            fn load(a: &$a) -> u32 {
                u32::from(a.load(Ordering::Relaxed))
            }
            #[inline(always)]
            fn store(a: &$a, v: u32) {
                a.store(v as $t, Ordering::Relaxed);
            }
            #[inline(always)]
            fn from_u32(v: u32) -> Self {
                v as $t
            }
        }
    };
}
word!(u8, AtomicU8);
word!(u16, AtomicU16);
word!(u32, AtomicU32);

/// The BFS: returns one byte a placement (255 where unreachable).
fn build_bfs(pattern: &Pattern, progress: &(dyn Fn(u64) + Sync)) -> Vec<u8> {
    let free = pattern.n * pattern.n - pattern.cells.len();
    if free <= 8 {
        build_words::<u8>(pattern, progress)
    } else if free <= 16 {
        build_words::<u16>(pattern, progress)
    } else {
        build_words::<u32>(pattern, progress)
    }
}

fn build_words<W: Word>(pattern: &Pattern, progress: &(dyn Fn(u64) + Sync)) -> Vec<u8> {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("bmi2") && std::arch::is_x86_feature_detected!("popcnt") {
            return build_generic::<W, Bmi2>(pattern, progress);
        }
    }
    build_generic::<W, Portable>(pattern, progress)
}

/// Placements per rayon task.
const CHUNK: usize = 1 << 14;

/// What one BFS layer shares between its tasks.
struct Layer<'a, W: Word> {
    geo: Geometry,
    total: usize,
    k: usize,
    radix: [u32; MAX_TILES],
    /// `⌊(2⁶⁴-1)/radix⌋ + 1`: exact quotients of 32-bit numbers by a high
    /// multiply.
    reciprocal: [u64; MAX_TILES],
    /// Three words a placement, side by side so that a successor costs one
    /// cache line: `[visited, layer A, layer B]`.
    words: &'a [W::Atomic],
    /// Offset of the layer being expanded (1 or 2); the next is `3 - cur`.
    cur: usize,
    /// Per chunk of placements: bit `o - 1` set when layer slot `o` may
    /// hold states there.
    flags: &'a [AtomicU8],
    /// The depth of the layer being expanded.
    depth: u8,
}

impl<W: Word> Layer<'_, W> {
    /// Expands the components of this layer in placements
    /// `first..first + values.len()` (clearing them), and writes the depth
    /// of those reached for the first time into `values`; returns
    /// (components added to the next layer, placements first reached).
    #[inline(always)]
    fn chunk<B: Bits>(&self, first: usize, values: &mut [u8]) -> (u64, u64) {
        let (geo, k, total) = (self.geo, self.k, self.total);
        let next = 3 - self.cur;
        let mut reached = 0u64;
        let mut added = 0u64;
        // Chunks without states in this layer are skipped.
        let ci = first / CHUNK;
        let cur_flag = 1u8 << (self.cur - 1);
        let next_flag = 1u8 << (next - 1);
        if self.flags[ci].load(Ordering::Relaxed) & cur_flag == 0 {
            return (0, 0);
        }
        self.flags[ci].fetch_and(!cur_flag, Ordering::Relaxed);
        // Successors are claimed one placement late, so that their cache
        // lines, prefetched when they were generated, have arrived.
        let mut targets = [[0u32; 4 * MAX_TILES]; 2];
        let mut target_bits = [[0u32; 4 * MAX_TILES]; 2];
        let mut counts = [0usize; 2];
        let mut buf = 0;
        let mut pos = [0u8; MAX_TILES];
        for (j, value) in values.iter_mut().enumerate() {
            let r = first + j;
            let slot = &self.words[3 * r + self.cur];
            let bits = W::load(slot);
            if bits == 0 {
                continue;
            }
            W::store(slot, 0);
            if *value == ByteTable::EMPTY {
                *value = self.depth;
                reached += 1;
            }
            // Unrank (division by multiplication with a reciprocal), and
            // keep the rank and cells of every prefix: a successor moves one
            // tile, so its rank is recomputed from that tile on only.
            let mut digits = [0u32; MAX_TILES];
            let mut rest = r as u64;
            for i in (0..k).rev() {
                let q = ((u128::from(rest) * u128::from(self.reciprocal[i])) >> 64) as u64;
                digits[i] = (rest - q * u64::from(self.radix[i])) as u32;
                rest = q;
            }
            let mut used = 0u64;
            let mut prefix_rank = [0usize; MAX_TILES];
            let mut prefix_used = [0u64; MAX_TILES];
            let mut acc = 0usize;
            for i in 0..k {
                prefix_rank[i] = acc;
                prefix_used[i] = used;
                let cell = B::pdep(1 << digits[i], !used).trailing_zeros();
                pos[i] = cell as u8;
                used |= 1 << cell;
                acc = acc * self.radix[i] as usize + digits[i] as usize;
            }
            let occ = used;
            let free = geo.all & !occ;
            let mut rem = B::pdep(u64::from(bits), free);
            let mut nt = 0;
            let mut whole = 0u64;
            while rem != 0 {
                let comp = geo.flood(rem & rem.wrapping_neg(), free);
                rem &= !comp;
                whole |= comp;
                let border = geo.neighbours(comp) & occ;
                for i in 0..k {
                    let p = pos[i];
                    if border & (1 << p) == 0 {
                        continue;
                    }
                    let mut dests = geo.neighbours(1 << p) & comp;
                    while dests != 0 {
                        let c = dests.trailing_zeros() as u8;
                        dests &= dests - 1;
                        pos[i] = c;
                        // The blank is now on `p`; mark just that cell (its
                        // component is marked whole when it is expanded).
                        let free2 = (free ^ (1 << c)) | (1 << p);
                        let mut r2 = prefix_rank[i];
                        let mut u = prefix_used[i];
                        for (jj, &q) in pos[i..k].iter().enumerate() {
                            let below = B::popcount(u & ((1u64 << q) - 1));
                            r2 = r2 * (total - i - jj) + (u32::from(q) - below) as usize;
                            u |= 1 << q;
                        }
                        targets[buf][nt] = r2 as u32;
                        target_bits[buf][nt] = 1u32 << B::popcount(free2 & ((1u64 << p) - 1));
                        nt += 1;
                        prefetch(self.words.as_ptr().wrapping_add(3 * r2));
                    }
                    pos[i] = p;
                }
            }
            // Every cell of an expanded component is visited, so no later
            // layer enters it again through another cell.
            let all_bits = B::pext(whole, free) as u32;
            if all_bits != bits {
                W::fetch_or(&self.words[3 * r], all_bits);
            }
            counts[buf] = nt;
            buf ^= 1;
            added += self.claim(&targets[buf][..counts[buf]], &target_bits[buf][..counts[buf]], next, next_flag);
            counts[buf] = 0;
        }
        buf ^= 1;
        added += self.claim(&targets[buf][..counts[buf]], &target_bits[buf][..counts[buf]], next, next_flag);
        (added, reached)
    }

    /// Marks the successors `(rank, blank bit)` visited; those not visited
    /// before join the next layer. Returns how many did.
    #[inline(always)]
    fn claim(&self, ranks: &[u32], bits: &[u32], next: usize, next_flag: u8) -> u64 {
        let mut added = 0;
        for (&r2, &b2) in ranks.iter().zip(bits) {
            let r2 = r2 as usize;
            let vis = &self.words[3 * r2];
            // Most successors were seen before: a plain load settles them
            // without a locked instruction.
            if W::load(vis) & b2 != 0 {
                continue;
            }
            if W::fetch_or(vis, b2) & b2 == 0 {
                W::fetch_or(&self.words[3 * r2 + next], b2);
                let flag = &self.flags[r2 / CHUNK];
                if flag.load(Ordering::Relaxed) & next_flag == 0 {
                    flag.fetch_or(next_flag, Ordering::Relaxed);
                }
                added += 1;
            }
        }
        added
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2,popcnt")]
fn chunk_bmi2<W: Word>(layer: &Layer<'_, W>, first: usize, values: &mut [u8]) -> (u64, u64) {
    layer.chunk::<Bmi2>(first, values)
}

fn build_generic<W: Word, B: Bits>(pattern: &Pattern, progress: &(dyn Fn(u64) + Sync)) -> Vec<u8> {
    let n = pattern.n;
    let total = n * n;
    let k = pattern.cells.len();
    let len = pattern.entries();
    let geo = Geometry::new(n);
    let mut radix = [1u32; MAX_TILES];
    let mut reciprocal = [0u64; MAX_TILES];
    for i in 0..k {
        radix[i] = (total - i) as u32;
        reciprocal[i] = u64::MAX / u64::from(radix[i]) + 1;
    }

    let mut values = vec![ByteTable::EMPTY; len];
    let mut store = vec![W::default(); 3 * len];

    // The goal: pattern tiles on their cells, blank in its component.
    let goal_rank = pattern.rank(&pattern.cells);
    let occ: u64 = pattern.cells.iter().fold(0, |m, &c| m | 1 << c);
    let free_cells = geo.all & !occ;
    let comp = geo.flood(1 << pattern.blank, free_cells);
    let bits = W::from_u32(B::pext(comp, free_cells) as u32);
    store[3 * goal_rank] = bits;
    store[3 * goal_rank + 1] = bits;

    let flags: Vec<AtomicU8> = (0..len.div_ceil(CHUNK)).map(|_| AtomicU8::new(0)).collect();
    flags[goal_rank / CHUNK].store(1, Ordering::Relaxed);
    let words = W::atomics(&store);
    let mut depth: u8 = 0;
    let mut cur = 1;
    loop {
        assert!(depth < ByteTable::EMPTY - 1, "pattern database depth overflows a byte");
        let frontier = AtomicU64::new(0);
        let layer = Layer::<W> { geo, total, k, radix, reciprocal, words, flags: &flags, cur, depth };
        values.par_chunks_mut(CHUNK).enumerate().for_each(|(ci, chunk)| {
            let (added, reached) = B::run(&layer, ci * CHUNK, chunk);
            if added > 0 {
                frontier.fetch_add(added, Ordering::Relaxed);
            }
            if reached > 0 {
                progress(reached);
            }
        });
        if frontier.load(Ordering::Relaxed) == 0 {
            break;
        }
        cur = 3 - cur;
        depth += 1;
    }
    values
}

/// Rank with popcount (the build's form of [`rank_cmp`], which it inlines
/// from the moved tile on).
#[cfg(test)]
fn rank_bits<B: Bits>(cells: usize, pos: &[u8]) -> usize {
    let mut r = 0usize;
    let mut used = 0u64;
    for (i, &p) in pos.iter().enumerate() {
        let below = used & ((1u64 << p) - 1);
        r = r * (cells - i) + (u32::from(p) - B::popcount(below)) as usize;
        used |= 1 << p;
    }
    r
}

#[inline(always)]
fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching is a hint and never faults, whatever the address.
    unsafe {
        core::arch::x86_64::_mm_prefetch(p.cast::<i8>(), core::arch::x86_64::_MM_HINT_T0);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_are_a_bijection_and_both_forms_agree() {
        // All 3-permutations of 6 cells.
        let mut seen = vec![false; permutations(6, 3) as usize];
        for a in 0..6u8 {
            for b in (0..6u8).filter(|&b| b != a) {
                for c in (0..6u8).filter(|&c| c != a && c != b) {
                    let pos = [a, b, c];
                    let r = rank_cmp(6, &pos);
                    assert_eq!(r, rank_bits::<Portable>(6, &pos));
                    assert!(!seen[r], "rank {r} twice");
                    seen[r] = true;
                }
            }
        }
        assert!(seen.iter().all(|&s| s));
        assert_eq!(permutations(16, 8), 518_918_400);
    }

    #[test]
    fn portable_bit_tricks() {
        assert_eq!(Portable::pext(0b1011_0110, 0b1111_0000), 0b1011);
        assert_eq!(Portable::pdep(0b101, 0b1011_0000), 0b1001_0000);
        let g = Geometry::new(3);
        // Cell 4 (centre) has neighbours 1, 3, 5, 7.
        assert_eq!(g.neighbours(1 << 4), 0b1010_1010);
        // Cell 2 (top right) has neighbours 1 and 5; no wrap to cell 3.
        assert_eq!(g.neighbours(1 << 2), 0b10_0010);
        assert_eq!(g.flood(1, 0b1_0010_1011), 0b1011);
        assert_eq!(g.flood(1, 0b1_1100_1011), 0b1_1100_1011);
    }
}
