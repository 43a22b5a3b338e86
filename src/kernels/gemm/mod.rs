//! Matrix products with bf16 operands and f32 accumulation, on the CPU's
//! bf16 matrix units.
//!
//! `C = A·B` where every element of `A` and `B` is first rounded to
//! bfloat16 (round to nearest, ties to even; the products of two bf16
//! values are exact in f32) and the products are summed in f32. Two
//! kernels compute it, chosen at run time by [`Kernel::detect`]: Intel's
//! AMX tiles (`TDPBF16PS`, one instruction multiplies a 16×32 by a 32×16
//! block; [`amx`]) and AVX512-BF16 (`VDPBF16PS`, pairs of products into 16
//! f32 lanes; [`avx512`]). On a CPU with neither, [`Kernel::detect`] says
//! so and the caller keeps its f32 path; `learn::mixed` then rounds the
//! operands and uses the f32 GEMM, which computes the same function.
//!
//! Both kernels read the same packed form, built here from strided f32
//! views. A *pair* is two consecutive-in-`k` bf16 values in one `u32` (the
//! lower `k` in the low half). `A` (m × k) is packed as tiles of 16 rows ×
//! 16 pairs, row-major; `B` (k × n) as tiles of 16 pairs × 16 columns,
//! row-major (the "VNNI" layout). Each tile is 1 KiB; a tile *block*
//! covers 32 values of `k`. Edges are padded with zeros, rows and columns
//! to multiples of 32, `k` to a multiple of 32, so the kernels see only
//! whole 32×32 blocks of `C`. Nothing here knows about burn.

#[cfg(all(target_arch = "x86_64", feature = "bf16-kernels"))]
mod amx;
#[cfg(feature = "bf16-kernels")]
mod avx512;
mod pack;

/// AMX exists on x86-64 only, and is built with the `bf16-kernels` feature.
#[cfg(not(all(target_arch = "x86_64", feature = "bf16-kernels")))]
mod amx {
    pub(super) fn available() -> bool {
        false
    }
    pub(super) fn configure() {}
    pub(super) fn release() {}
    pub(super) unsafe fn block(_: &[u32], _: &[u32], _: &[u32], _: &[u32], _: usize, _: *mut f32, _: usize) {
        unreachable!("AMX is never available off x86-64")
    }
    pub(super) unsafe fn spin(_: u64) -> f64 {
        unreachable!("AMX is never available off x86-64")
    }
}

/// AVX512-BF16 is built with the `bf16-kernels` feature.
#[cfg(not(feature = "bf16-kernels"))]
mod avx512 {
    pub(super) fn available() -> bool {
        false
    }
    pub(super) unsafe fn block(_: &[u32], _: &[u32], _: &[u32], _: &[u32], _: usize, _: *mut f32, _: usize) {
        unreachable!("built without the bf16-kernels feature")
    }
    pub(super) fn outruns_f32() -> bool {
        false
    }
    pub(super) unsafe fn spin(_: u64) -> f64 {
        unreachable!("built without the bf16-kernels feature")
    }
    #[cfg(test)]
    pub(super) unsafe fn spin_f32(_: u64) -> f64 {
        unreachable!("built without the bf16-kernels feature")
    }
}

use rayon::prelude::*;
use std::cell::RefCell;
use std::mem::MaybeUninit;

/// Rows (of `A`) or columns (of `B`) in one tile, and pairs in one tile row.
const TILE: usize = 16;
/// Values of `k` in one tile block (16 pairs).
const BLOCK_K: usize = 32;
/// `u32` pairs in one tile.
const TILE_LEN: usize = TILE * TILE;

/// The bf16 matrix unit a product runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kernel {
    /// Intel AMX (`amx-bf16`), with the tile data state granted by the OS.
    Amx,
    /// AVX512-BF16 (`vdpbf16ps`), as on AMD Zen 4.
    Avx512Bf16,
}

impl Kernel {
    /// The fastest kernel this CPU and OS can run, or `None` (no bf16 unit
    /// faster than the f32 product: the caller keeps the f32 path with
    /// rounded operands, the same function). AMX comes first where both
    /// exist: on the Xeons it is 15× the f32 FMA rate, where `vdpbf16ps`
    /// runs at half the f32 rate (`docs/training.md`), so `avx512-bf16` is
    /// chosen unasked only where it outruns the f32 FMA (AMD's Zen 4 and
    /// Zen 5). `CUBE_ORACLE_BF16_KERNEL` (`amx`, `avx512-bf16` or `none`)
    /// restricts the choice, for measurements and tests, and a unit named
    /// there is taken even where it is slower; a kernel the CPU lacks is
    /// never chosen (and [`Kernel::check_request`] refuses asking for it).
    #[must_use]
    pub fn detect() -> Option<Kernel> {
        let wanted = std::env::var("CUBE_ORACLE_BF16_KERNEL").ok().filter(|w| requested_ok(w));
        let allow = |k: Kernel| wanted.as_deref().is_none_or(|w| w == k.name());
        [Kernel::Amx, Kernel::Avx512Bf16]
            .into_iter()
            .find(|&k| allow(k) && k.runs_here() && (wanted.is_some() || k.outruns_f32()))
    }

    /// Whether the unit computes the bf16 product faster than the f32 FMA
    /// computes it as rounded operands: AMX always; `vdpbf16ps` on AMD.
    #[must_use]
    pub fn outruns_f32(self) -> bool {
        match self {
            Kernel::Amx => true,
            Kernel::Avx512Bf16 => avx512::outruns_f32(),
        }
    }

    /// Checks `CUBE_ORACLE_BF16_KERNEL`: unset, `none`, or a unit this
    /// machine has (`amx`, `avx512-bf16`).
    ///
    /// # Errors
    /// The value, shortened, and the values allowed; or the unit named,
    /// which this CPU (or OS) lacks.
    pub fn check_request() -> Result<(), String> {
        match std::env::var("CUBE_ORACLE_BF16_KERNEL") {
            Err(std::env::VarError::NotPresent) => Ok(()),
            Ok(w) => Self::check_value(&w).and_then(|()| Self::check_present(&w, &Self::all_available())),
            Err(std::env::VarError::NotUnicode(_)) => {
                Err("CUBE_ORACLE_BF16_KERNEL is not UTF-8: use amx, avx512-bf16 or none".to_string())
            }
        }
    }

    /// Checks that the unit `w` names (a valid value) is among `available`:
    /// a request the machine cannot honour is refused, never run on
    /// another unit.
    ///
    /// # Errors
    /// The variable and value, and what the CPU has.
    pub fn check_present(w: &str, available: &[Kernel]) -> Result<(), String> {
        if w == "none" || available.iter().any(|k| k.name() == w) {
            return Ok(());
        }
        let has = if available.is_empty() {
            "none".to_string()
        } else {
            available.iter().map(|k| k.name()).collect::<Vec<_>>().join(", ")
        };
        Err(format!("CUBE_ORACLE_BF16_KERNEL={w}: this CPU has no such unit (bf16 units here: {has})"))
    }

    /// Checks one value of `CUBE_ORACLE_BF16_KERNEL`: `amx`,
    /// `avx512-bf16` or `none`.
    ///
    /// # Errors
    /// The value, shortened, and the values allowed.
    pub fn check_value(w: &str) -> Result<(), String> {
        if requested_ok(w) {
            return Ok(());
        }
        Err(format!(
            "CUBE_ORACLE_BF16_KERNEL={:?} is not a kernel: use amx, avx512-bf16 or none",
            w.chars().take(40).collect::<String>()
        ))
    }

    /// Whether this CPU (and OS) can run the kernel.
    #[must_use]
    pub fn runs_here(self) -> bool {
        match self {
            Kernel::Amx => amx::available(),
            Kernel::Avx512Bf16 => avx512::available(),
        }
    }

    /// Every kernel this machine can run (for tests and benchmarks).
    #[must_use]
    pub fn all_available() -> Vec<Kernel> {
        [Kernel::Amx, Kernel::Avx512Bf16].into_iter().filter(|k| k.runs_here()).collect()
    }

    /// The unit's measured peak in GFLOP/s on `threads` threads:
    /// independent multiply-adds with no memory traffic (for benchmarks,
    /// which quote rates against it).
    ///
    /// # Panics
    /// If this machine lacks the kernel.
    #[must_use]
    pub fn peak_gflops(self, threads: usize) -> f64 {
        assert!(self.runs_here(), "the {} kernel is not available on this machine", self.name());
        let iters: u64 = match self {
            Kernel::Amx => 20_000_000,
            Kernel::Avx512Bf16 => 100_000_000,
        };
        let start = std::time::Instant::now();
        let flops: f64 = std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads)
                .map(|_| {
                    s.spawn(move || match self {
                        Kernel::Amx => {
                            amx::configure();
                            // SAFETY: AMX is available (this kernel was detected) and configured.
                            let f = unsafe { amx::spin(iters) };
                            amx::release();
                            f
                        }
                        // SAFETY: AVX512-BF16 is available (this kernel was detected).
                        Kernel::Avx512Bf16 => unsafe { avx512::spin(iters) },
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap_or(0.0)).sum()
        });
        flops / start.elapsed().as_secs_f64() / 1e9
    }

    /// The name used in logs, `meta.json` and `CUBE_ORACLE_BF16_KERNEL`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Amx => "amx",
            Kernel::Avx512Bf16 => "avx512-bf16",
        }
    }
}

/// Whether `w` is a value `CUBE_ORACLE_BF16_KERNEL` may take.
fn requested_ok(w: &str) -> bool {
    ["amx", "avx512-bf16", "none"].contains(&w)
}

/// A read-only strided view of an f32 matrix: element `(r, c)` is
/// `data[offset + r·row_stride + c·col_stride]`.
#[derive(Debug, Clone, Copy)]
pub struct View<'a> {
    pub data: &'a [f32],
    pub rows: usize,
    pub cols: usize,
    pub offset: usize,
    pub row_stride: isize,
    pub col_stride: isize,
}

impl<'a> View<'a> {
    /// A row-major `rows × cols` matrix.
    #[must_use]
    pub fn row_major(data: &'a [f32], rows: usize, cols: usize) -> Self {
        Self { data, rows, cols, offset: 0, row_stride: cols as isize, col_stride: 1 }
    }

    /// The transpose (a view of the same data).
    #[must_use]
    pub fn t(self) -> Self {
        Self { rows: self.cols, cols: self.rows, row_stride: self.col_stride, col_stride: self.row_stride, ..self }
    }

    fn index(&self, r: usize, c: usize) -> usize {
        (self.offset as isize + r as isize * self.row_stride + c as isize * self.col_stride) as usize
    }

    /// Whether every element of the view lies inside `data`.
    fn in_bounds(&self) -> bool {
        if self.rows == 0 || self.cols == 0 {
            return true;
        }
        let corners = [(0, 0), (self.rows - 1, 0), (0, self.cols - 1), (self.rows - 1, self.cols - 1)];
        corners.iter().all(|&(r, c)| {
            let i = self.offset as isize + r as isize * self.row_stride + c as isize * self.col_stride;
            i >= 0 && (i as usize) < self.data.len()
        })
    }
}

/// `x` rounded to bfloat16 (nearest, ties to even), as its 16 bits: the
/// same bits as `half::bf16::from_f32`, without branches, so that a loop
/// over a slice vectorises. NaNs stay NaNs (quiet); infinities and
/// overflow give infinities.
#[must_use]
#[inline]
pub fn bf16_bits(x: f32) -> u16 {
    let b = x.to_bits();
    let nan = (b & 0x7FFF_FFFF) > 0x7F80_0000;
    // Adding 0x7FFF plus the kept part's lowest bit carries into the kept
    // part exactly when the dropped half is above a tie, or a tie with an
    // odd kept part: ties to even. A finite value's carry can reach the
    // exponent (overflow to infinity) but never the sign.
    let rounded = b.wrapping_add(0x7FFF + ((b >> 16) & 1)) >> 16;
    let quiet = (b >> 16) | 0x0040;
    (if nan { quiet } else { rounded }) as u16
}

/// `x` rounded to bfloat16 and widened back to f32 (exactly).
#[must_use]
pub fn round_bf16(x: f32) -> f32 {
    f32::from_bits(u32::from(bf16_bits(x)) << 16)
}

fn pair(lo: f32, hi: f32) -> u32 {
    u32::from(bf16_bits(lo)) | (u32::from(bf16_bits(hi)) << 16)
}

/// The dimensions a product is padded to.
#[derive(Debug, Clone, Copy)]
struct Shape {
    m: usize,
    n: usize,
    /// Tile blocks along `k` (32 values each).
    blocks: usize,
    /// Row tiles of `A` (even), column tiles of `B` (even).
    row_tiles: usize,
    col_tiles: usize,
}

/// `C = A·B` (`m × n`, row-major) on `kernel`, with both operands rounded
/// to bf16 and f32 sums. Runs on the current rayon pool.
///
/// # Panics
/// If `a.cols != b.rows`, a view reaches outside its data, or this machine
/// lacks `kernel` (its instructions would fault).
#[must_use]
pub fn matmul(kernel: Kernel, a: View<'_>, b: View<'_>) -> Vec<f32> {
    assert!(kernel.runs_here(), "the {} kernel is not available on this machine", kernel.name());
    assert_eq!(a.cols, b.rows, "inner dimensions of a matrix product must agree");
    assert!(a.in_bounds() && b.in_bounds(), "a matrix view reaches outside its data");
    let shape = Shape {
        m: a.rows,
        n: b.cols,
        blocks: a.cols.div_ceil(BLOCK_K),
        row_tiles: 2 * a.rows.div_ceil(2 * TILE),
        col_tiles: 2 * b.cols.div_ceil(2 * TILE),
    };
    let len = shape.m * shape.n;
    if len == 0 {
        return Vec::new();
    }
    // The packed operands reuse this thread's buffers from the last
    // product: a training step makes 21 products of up to 2 MiB each.
    thread_local! {
        static PACKED: RefCell<(Vec<u32>, Vec<u32>)> = const { RefCell::new((Vec::new(), Vec::new())) };
    }
    PACKED.with_borrow_mut(|(packed_a, packed_b)| {
        pack::pack(a, shape.row_tiles, shape.blocks, false, packed_a);
        pack::pack(b.t(), shape.col_tiles, shape.blocks, true, packed_b);
        let mut c = Vec::with_capacity(len);
        multiply(kernel, packed_a, packed_b, shape, &mut c.spare_capacity_mut()[..len]);
        // SAFETY: `multiply` wrote all `len` values (the tasks' blocks
        // cover `C`, each written whole or as its copied edge).
        unsafe { c.set_len(len) };
        c
    })
}

/// Bytes of packed `B` one task keeps in the core's L2 cache while every
/// 32-row block of `A` (its rows of it) passes over it: a quarter of the
/// 2 MiB L2 of the Xeons and Zen 4/5, leaving room for `A`'s panels and
/// the output.
const B_CHUNK_BYTES: usize = 256 * 1024;

/// The output's storage, shared by tasks that write disjoint 32×32 blocks.
#[derive(Clone, Copy)]
struct Out(*mut f32);
// SAFETY: every task writes only its own blocks of `C` (see `multiply`),
// and `multiply` returns only after all of them finished.
unsafe impl Send for Out {}
// SAFETY: as for `Send`.
unsafe impl Sync for Out {}

impl Out {
    /// The address of value `i` of `C`.
    ///
    /// # Safety
    /// `i` lies inside the output.
    unsafe fn at(&self, i: usize) -> *mut f32 {
        // SAFETY: the caller's contract.
        unsafe { self.0.add(i) }
    }
}

/// Multiplies packed operands into `c`. `C` is cut into column chunks
/// whose packed `B` fits [`B_CHUNK_BYTES`] and, where there are few
/// chunks, into row groups; each task multiplies every 32-row block of its
/// rows by every 32-column block of its chunk, so its chunk of `B` is
/// read from memory once and from L2 after that (with one task per 32
/// rows, each task streamed all of `B` from memory: over 2 MiB at batch
/// 2,080, more than L2 holds).
fn multiply(kernel: Kernel, a: &[u32], b: &[u32], shape: Shape, c: &mut [MaybeUninit<f32>]) {
    let panel = shape.blocks * TILE_LEN;
    let (row_pairs, col_pairs) = (shape.row_tiles / 2, shape.col_tiles / 2);
    let chunk_pairs = (B_CHUNK_BYTES / (2 * panel * size_of::<u32>())).max(1);
    let chunks = col_pairs.div_ceil(chunk_pairs);
    // Enough tasks to balance the pool: eight per thread at least.
    let row_groups = (8 * rayon::current_num_threads()).div_ceil(chunks).clamp(1, row_pairs);
    let group_pairs = row_pairs.div_ceil(row_groups);
    let (m, n) = (shape.m, shape.n);
    assert_eq!(c.len(), m * n, "the output holds m × n values");
    let out = Out(c.as_mut_ptr().cast::<f32>());
    (0..chunks * row_groups).into_par_iter().for_each(|task| {
        let (chunk, group) = (task / row_groups, task % row_groups);
        let pairs = chunk * chunk_pairs..((chunk + 1) * chunk_pairs).min(col_pairs);
        let rows = group * group_pairs..((group + 1) * group_pairs).min(row_pairs);
        let mut scratch = [0.0f32; 4 * TILE_LEN];
        if kernel == Kernel::Amx {
            amx::configure();
        }
        for r in rows {
            let a0 = &a[2 * r * panel..(2 * r + 1) * panel];
            let a1 = &a[(2 * r + 1) * panel..(2 * r + 2) * panel];
            let block_rows = (m - r * 2 * TILE).min(2 * TILE);
            for t in pairs.clone() {
                let b0 = &b[2 * t * panel..(2 * t + 1) * panel];
                let b1 = &b[(2 * t + 1) * panel..(2 * t + 2) * panel];
                let cols = (n - t * 2 * TILE).min(2 * TILE);
                let whole = block_rows == 2 * TILE && cols == 2 * TILE;
                let corner = r * 2 * TILE * n + t * 2 * TILE;
                let (dst, ldc) = if whole {
                    // SAFETY: the block's first value lies inside `c`.
                    (unsafe { out.at(corner) }, n)
                } else {
                    (scratch.as_mut_ptr(), 2 * TILE)
                };
                // SAFETY: the operands hold `blocks` whole tiles each
                // (sliced above); the destination has 32 rows of 32 values
                // at row stride `ldc`, inside `c` (`whole`) or the scratch
                // block, and no other task writes this block of `c`; the
                // kernel's CPU features were checked by `Kernel::detect`.
                unsafe {
                    match kernel {
                        Kernel::Amx => amx::block(a0, a1, b0, b1, shape.blocks, dst, ldc),
                        Kernel::Avx512Bf16 => avx512::block(a0, a1, b0, b1, shape.blocks, dst, ldc),
                    }
                }
                if !whole {
                    for row in 0..block_rows {
                        // SAFETY: row `row` of the block, `cols` values from
                        // its corner, lies inside `c` and is this task's.
                        unsafe {
                            std::ptr::copy_nonoverlapping(
                                scratch.as_ptr().add(row * 2 * TILE),
                                out.at(corner + row * n),
                                cols,
                            );
                        }
                    }
                }
            }
        }
        if kernel == Kernel::Amx {
            amx::release();
        }
    });
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// `A·B` over bf16-rounded operands, summed in f64, and the sum of
    /// `|a||b|` per element (the scale of an f32 summation error).
    fn reference(a: View<'_>, b: View<'_>) -> (Vec<f64>, Vec<f64>) {
        let (m, n, k) = (a.rows, b.cols, a.cols);
        let mut c = vec![0.0; m * n];
        let mut scale = vec![0.0; m * n];
        for i in 0..m {
            for j in 0..n {
                for l in 0..k {
                    let x = f64::from(round_bf16(a.data[a.index(i, l)]));
                    let y = f64::from(round_bf16(b.data[b.index(l, j)]));
                    c[i * n + j] += x * y;
                    scale[i * n + j] += (x * y).abs();
                }
            }
        }
        (c, scale)
    }

    fn values(len: usize, seed: u64) -> Vec<f32> {
        let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        (0..len)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                ((s >> 40) as f32 / (1u64 << 24) as f32) * 4.0 - 2.0
            })
            .collect()
    }

    /// Asking for a bf16 unit the machine lacks is refused, never run on
    /// another unit.
    #[test]
    fn a_unit_the_cpu_lacks_is_refused_not_replaced() {
        assert!(Kernel::check_present("none", &[]).is_ok());
        assert!(Kernel::check_present("amx", &[Kernel::Amx]).is_ok());
        let e = Kernel::check_present("amx", &[Kernel::Avx512Bf16]).unwrap_err();
        assert!(e.contains("CUBE_ORACLE_BF16_KERNEL=amx") && e.contains("bf16 units here: avx512-bf16"), "{e}");
        let e = Kernel::check_present("avx512-bf16", &[]).unwrap_err();
        assert!(e.contains("CUBE_ORACLE_BF16_KERNEL=avx512-bf16") && e.contains("bf16 units here: none"), "{e}");
    }

    /// Packing `A` and `B` and multiplying the packed tiles by the
    /// definition gives `A·B` on rounded operands, for every stride
    /// orientation and ragged edges (on every machine: no bf16 unit used).
    #[test]
    fn packing_preserves_the_product() {
        for (m, n, k) in [(37, 45, 70), (64, 64, 64), (5, 33, 31)] {
            let a_data = values(m * k, 1);
            let b_data = values(k * n, 2);
            let views = [
                (View::row_major(&a_data, m, k), View::row_major(&b_data, k, n)),
                (View::row_major(&a_data, k, m).t(), View::row_major(&b_data, n, k).t()),
            ];
            for (a, b) in views {
                let shape = Shape {
                    m,
                    n,
                    blocks: k.div_ceil(BLOCK_K),
                    row_tiles: 2 * m.div_ceil(2 * TILE),
                    col_tiles: 2 * n.div_ceil(2 * TILE),
                };
                let (mut pa, mut pb) = (Vec::new(), Vec::new());
                pack::pack(a, shape.row_tiles, shape.blocks, false, &mut pa);
                pack::pack(b.t(), shape.col_tiles, shape.blocks, true, &mut pb);
                let half = |x: u32| f64::from(f32::from_bits(x << 16));
                let (want, scale) = reference(a, b);
                for i in 0..m {
                    for j in 0..n {
                        let mut sum = 0.0;
                        for blk in 0..shape.blocks {
                            let ta = &pa[((i / TILE) * shape.blocks + blk) * TILE_LEN..][..TILE_LEN];
                            let tb = &pb[((j / TILE) * shape.blocks + blk) * TILE_LEN..][..TILE_LEN];
                            for p in 0..TILE {
                                let x = ta[(i % TILE) * TILE + p];
                                let y = tb[p * TILE + j % TILE];
                                sum += half(x & 0xffff) * half(y & 0xffff) + half(x >> 16) * half(y >> 16);
                            }
                        }
                        let err = (sum - want[i * n + j]).abs();
                        assert!(
                            err <= 1e-9 * scale[i * n + j].max(1.0),
                            "({i}, {j}): {sum} against {}",
                            want[i * n + j]
                        );
                    }
                }
            }
        }
    }

    /// Every bf16 kernel this machine has computes `A·B` on rounded
    /// operands to f32 summation accuracy, whole blocks and ragged edges.
    /// On a CPU with none, the rounded operands' product through the f32
    /// path is checked instead (and said so); a kernel asked for by
    /// `CUBE_ORACLE_TEST_KERNELS` that the CPU lacks fails the test.
    #[test]
    fn kernels_match_the_rounded_product() {
        let kernels = kernels_to_test();
        if kernels.is_empty() {
            eprintln!("no bf16 kernel on this CPU (or built without bf16-kernels): the rounded-f32 path is checked");
            let (m, n, k) = (37, 45, 70);
            let (a_data, b_data) = (values(m * k, 3), values(k * n, 4));
            let round = |v: &[f32]| v.iter().map(|&x| round_bf16(x)).collect::<Vec<_>>();
            let (ra, rb) = (round(&a_data), round(&b_data));
            let (want, scale) = reference(View::row_major(&a_data, m, k), View::row_major(&b_data, k, n));
            for i in 0..m {
                for j in 0..n {
                    let got: f32 = (0..k).map(|p| ra[i * k + p] * rb[p * n + j]).sum();
                    let err = (f64::from(got) - want[i * n + j]).abs();
                    assert!(err <= 2e-6 * scale[i * n + j].max(1e-3), "({i}, {j}): {got}");
                }
            }
        }
        for kernel in kernels {
            for (m, n, k) in [(37, 45, 70), (64, 96, 512), (96, 64, 33), (1, 1, 1)] {
                let a_data = values(m * k, 3);
                let b_data = values(k * n, 4);
                for (a, b) in [
                    (View::row_major(&a_data, m, k), View::row_major(&b_data, k, n)),
                    (View::row_major(&a_data, k, m).t(), View::row_major(&b_data, n, k).t()),
                ] {
                    let got = matmul(kernel, a, b);
                    let (want, scale) = reference(a, b);
                    for (idx, (&g, (&w, &s))) in got.iter().zip(want.iter().zip(&scale)).enumerate() {
                        let err = (f64::from(g) - w).abs();
                        assert!(err <= 2e-6 * s.max(1e-3), "{kernel:?} {m}x{n}x{k} [{idx}]: {g} against {w}");
                    }
                }
            }
        }
    }

    /// The vendor rule of [`Kernel::detect`] held against this core's own
    /// rates: `avx512-bf16` counts as outrunning f32 exactly where a core
    /// runs more multiply-adds per second through `vdpbf16ps` than through
    /// f32 FMAs (twice as many on AMD's Zen 4 and Zen 5, half as many on
    /// Intel's Xeons), and it is chosen unasked only there.
    #[test]
    fn avx512_bf16_is_chosen_unasked_only_where_it_outruns_the_f32_fma() {
        let k = Kernel::Avx512Bf16;
        let asked = std::env::var("CUBE_ORACLE_BF16_KERNEL").is_ok();
        if !k.runs_here() {
            assert_ne!(Kernel::detect(), Some(k));
            eprintln!("no AVX512-BF16 on this CPU: only that it is not chosen is checked");
            return;
        }
        let rate = |f: &dyn Fn() -> f64| {
            let t = std::time::Instant::now();
            let flops = f();
            flops / t.elapsed().as_secs_f64()
        };
        // Each rate is the best of five rounds, the two alternating, so a
        // round that another process preempts does not decide the ratio.
        let (mut bf16, mut f32) = (0.0f64, 0.0f64);
        for _ in 0..5 {
            // SAFETY: AVX512-BF16 (and so AVX-512 F) is available.
            bf16 = bf16.max(rate(&|| unsafe { avx512::spin(4_000_000) }));
            // SAFETY: as above.
            f32 = f32.max(rate(&|| unsafe { avx512::spin_f32(4_000_000) }));
        }
        let ratio = bf16 / f32;
        assert!(
            !(0.8..1.25).contains(&ratio),
            "vdpbf16ps at {ratio:.2}x the f32 FMA's rate: neither clearly faster nor slower"
        );
        assert_eq!(k.outruns_f32(), ratio > 1.0, "vdpbf16ps runs at {ratio:.2}x the f32 FMA's FLOP rate here");
        if !asked && !Kernel::Amx.runs_here() {
            assert_eq!(Kernel::detect() == Some(k), ratio > 1.0, "ratio {ratio:.2}");
        }
    }

    /// The kernels a test checks: those named by `CUBE_ORACLE_TEST_KERNELS`
    /// (comma-separated; a name this CPU cannot run panics with a message),
    /// else every kernel the CPU has.
    pub(crate) fn kernels_to_test() -> Vec<Kernel> {
        let asked = std::env::var("CUBE_ORACLE_TEST_KERNELS").ok();
        kernels_for(asked.as_deref(), &Kernel::all_available()).unwrap_or_else(|why| panic!("{why}"))
    }

    /// The kernels named by `asked` (or all of `have` when nothing is
    /// asked), refusing a name that is no kernel or that `have` lacks.
    fn kernels_for(asked: Option<&str>, have: &[Kernel]) -> Result<Vec<Kernel>, String> {
        let Some(asked) = asked else { return Ok(have.to_vec()) };
        asked
            .split(',')
            .filter(|n| !n.trim().is_empty())
            .map(|name| {
                let name = name.trim();
                let k = [Kernel::Amx, Kernel::Avx512Bf16]
                    .into_iter()
                    .find(|k| k.name() == name)
                    .ok_or_else(|| format!("CUBE_ORACLE_TEST_KERNELS names {name:?}: use amx or avx512-bf16"))?;
                if have.contains(&k) {
                    Ok(k)
                } else {
                    Err(format!(
                        "CUBE_ORACLE_TEST_KERNELS asks for {name}, which this CPU (or this build) cannot run; it has {:?}",
                        have.iter().map(|k| k.name()).collect::<Vec<_>>()
                    ))
                }
            })
            .collect()
    }

    /// A kernel asked for but missing fails the kernel tests, naming it;
    /// nothing asked means every kernel the CPU has (possibly none).
    #[test]
    fn a_kernel_asked_for_but_missing_is_refused() {
        let err = kernels_for(Some("amx"), &[]).unwrap_err();
        assert!(err.contains("asks for amx") && err.contains("cannot run"), "{err}");
        let err = kernels_for(Some("avx512-bf16"), &[Kernel::Amx]).unwrap_err();
        assert!(err.contains("asks for avx512-bf16"), "{err}");
        assert!(kernels_for(Some("vnni"), &[Kernel::Amx]).unwrap_err().contains("\"vnni\""));
        assert_eq!(kernels_for(Some(" amx, "), &[Kernel::Avx512Bf16, Kernel::Amx]), Ok(vec![Kernel::Amx]));
        assert_eq!(kernels_for(None, &[Kernel::Avx512Bf16]), Ok(vec![Kernel::Avx512Bf16]));
        assert_eq!(kernels_for(None, &[]), Ok(vec![]));
    }

    /// The branch-free rounding gives `half`'s bits on every tie and
    /// near-tie of every high half, on a stride through all 2^32 patterns,
    /// and on the special values.
    #[test]
    fn rounding_has_the_bits_of_half() {
        let check = |b: u32| {
            let x = f32::from_bits(b);
            assert_eq!(bf16_bits(x), half::bf16::from_f32(x).to_bits(), "{b:#010x}");
        };
        for high in 0..=0xFFFFu32 {
            for low in [0x0000, 0x0001, 0x7FFF, 0x8000, 0x8001, 0xFFFF] {
                check(high << 16 | low);
            }
        }
        for b in (0..=u32::MAX).step_by(4099) {
            check(b);
        }
        for x in [0.0, -0.0, f32::MAX, f32::MIN, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, f32::MIN_POSITIVE] {
            check(x.to_bits());
        }
    }

    #[test]
    fn rounding_is_to_nearest_even() {
        // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties go to the even 1.
        assert_eq!(round_bf16(1.0 + 1.0 / 256.0), 1.0);
        // 1 + 3·2^-8 is halfway between 1 + 2^-7 and 1 + 2^-6: ties go to 1 + 2^-6.
        assert_eq!(round_bf16(1.0 + 3.0 / 256.0), 1.0 + 1.0 / 64.0);
        assert_eq!(round_bf16(1.0 + 1.0 / 256.0 + 1.0 / 4096.0), 1.0 + 1.0 / 128.0);
        assert!(round_bf16(f32::NAN).is_nan());
        assert_eq!(round_bf16(f32::MAX), f32::INFINITY);
        assert_eq!(round_bf16(-0.0).to_bits(), (-0.0f32).to_bits());
    }
}
