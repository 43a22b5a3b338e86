//! Power laws fitted to a study's points, with bootstrap uncertainty.
//!
//! The model-and-data law `L(N, D) = E + A/N^α + B/D^β` (Chinchilla's
//! Approach 3) and the one-variable law `y(x) = E + A/x^α` (solution length
//! against compute, loss against compute) are fitted by variable projection:
//! for fixed exponents the law is linear in its coefficients, which are
//! solved exactly by non-negative least squares; the exponents are found
//! by a grid search refined twice around the best cell. Least squares on
//! the values themselves (not their logarithms): the values here are
//! cross-entropies and move counts of similar size, and a grid over the
//! exponents has no starting point to get wrong. Uncertainty comes from
//! resampling the points with replacement ([`bootstrap`]).

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

/// A fitted law: `E + A/x₁^α (+ B/x₂^β)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Law {
    /// The irreducible term.
    pub e: f64,
    /// The first term's coefficient.
    pub a: f64,
    /// The first term's exponent.
    pub alpha: f64,
    /// The second term's coefficient (0 for a one-variable law).
    pub b: f64,
    /// The second term's exponent (0 for a one-variable law).
    pub beta: f64,
}

impl Law {
    /// The law's value at `(x1, x2)` (`x2` is ignored by a one-variable law).
    #[must_use]
    pub fn at(&self, x1: f64, x2: f64) -> f64 {
        let second = if self.b == 0.0 { 0.0 } else { self.b * x2.powf(-self.beta) };
        self.e + self.a * x1.powf(-self.alpha) + second
    }

    /// The compute-optimal split of `c = 6·N·D` training FLOPs for a
    /// two-variable law `L(N, D)`: `(N_opt, D_opt)`, where the derivative of
    /// the law along `N·D = c/6` vanishes.
    #[must_use]
    pub fn optimal_split(&self, c: f64) -> (f64, f64) {
        if !(self.a > 0.0 && self.b > 0.0) {
            // A term fitted to 0 leaves its exponent undetermined: no split.
            return (f64::NAN, f64::NAN);
        }
        let s = self.alpha + self.beta;
        let g = (self.alpha * self.a / (self.beta * self.b)).powf(1.0 / s);
        let n = g * (c / 6.0).powf(self.beta / s);
        (n, c / 6.0 / n)
    }

    /// The `x` at which a one-variable law, falling with `x`, reaches `y`;
    /// `None` when `y` is at or below its floor `E`.
    #[must_use]
    pub fn reaches(&self, y: f64) -> Option<f64> {
        (y > self.e && self.a > 0.0).then(|| (self.a / (y - self.e)).powf(1.0 / self.alpha))
    }
}

/// A fit: the law, its mean absolute residual and its point count.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fit {
    /// The fitted law.
    pub law: Law,
    /// Mean absolute residual over the points.
    pub mae: f64,
    /// Points fitted.
    pub points: usize,
}

/// The exponents searched: from 0.01 to 2.5.
const EXPONENTS: (f64, f64) = (0.01, 2.5);

/// The level of a positive `x`: values equal to three significant digits
/// share one (a study's budgets: `D = C/6N` rounds up to whole samples).
#[must_use]
pub fn level(x: f64) -> i64 {
    (x.log10() * 1000.0).round() as i64
}

/// How many different [`level`]s `v` holds.
#[must_use]
pub fn levels(v: &[f64]) -> usize {
    let mut keys: Vec<i64> = v.iter().map(|&x| level(x)).collect();
    keys.sort_unstable();
    keys.dedup();
    keys.len()
}

/// Fits `y = E + A/x₁^α + B/x₂^β` (with `x2 = None`: `y = E + A/x₁^α`),
/// every coefficient at least 0; `None` with fewer points than the law has
/// parameters plus one, fewer than three [`levels`] of a variable (through
/// two, `E + A/x^α` passes exactly for every α, which no fit can tell
/// apart), or a non-positive `x`.
#[must_use]
pub fn fit(x1: &[f64], x2: Option<&[f64]>, y: &[f64]) -> Option<Fit> {
    let params = if x2.is_some() { 5 } else { 3 };
    if y.len() < params + 1 || x1.len() != y.len() || x2.is_some_and(|x| x.len() != y.len()) {
        return None;
    }
    if levels(x1) < 3 || x2.is_some_and(|x| levels(x) < 3) {
        return None;
    }
    if x1.iter().chain(x2.unwrap_or(&[])).any(|&x| !(x > 0.0 && x.is_finite())) || y.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let ln1: Vec<f64> = x1.iter().map(|x| x.ln()).collect();
    let ln2: Option<Vec<f64>> = x2.map(|x| x.iter().map(|v| v.ln()).collect());
    let sse_at = |alpha: f64, beta: f64| -> (f64, [f64; 3]) {
        let cols: Vec<[f64; 3]> = (0..y.len())
            .map(|i| {
                let t2 = ln2.as_ref().map_or(0.0, |l| (-beta * l[i]).exp());
                [1.0, (-alpha * ln1[i]).exp(), t2]
            })
            .collect();
        nnls3(&cols, y, ln2.is_some())
    };
    // Grid search over the exponents, then two refinements around the best.
    let (lo, hi) = EXPONENTS;
    let two = ln2.is_some();
    let search = |best: &mut (f64, f64, f64, [f64; 3]), a_range: (f64, f64), b_range: (f64, f64), cells: usize| {
        for i in 0..=cells {
            let alpha = a_range.0 + (a_range.1 - a_range.0) * i as f64 / cells as f64;
            for j in 0..=if two { cells } else { 0 } {
                let beta = if two { b_range.0 + (b_range.1 - b_range.0) * j as f64 / cells as f64 } else { 0.0 };
                let (sse, c) = sse_at(alpha, beta);
                if sse < best.0 {
                    *best = (sse, alpha, beta, c);
                }
            }
        }
    };
    let mut best = (f64::INFINITY, 0.0, 0.0, [0.0; 3]);
    search(&mut best, (lo, hi), (lo, hi), 50);
    for step in [(hi - lo) / 50.0, (hi - lo) / 500.0] {
        let (a0, b0) = (best.1, best.2);
        search(&mut best, ((a0 - step).max(lo), (a0 + step).min(hi)), ((b0 - step).max(lo), (b0 + step).min(hi)), 20);
    }
    let (_, alpha, beta, [e, a, b]) = best;
    let law = if two { Law { e, a, alpha, b, beta } } else { Law { e, a, alpha, b: 0.0, beta: 0.0 } };
    let x2v = |i: usize| x2.map_or(1.0, |x| x[i]);
    let mae = (0..y.len()).map(|i| (law.at(x1[i], x2v(i)) - y[i]).abs()).sum::<f64>() / y.len() as f64;
    Some(Fit { law, mae, points: y.len() })
}

/// Non-negative least squares of `y ≈ Σ c_k col_k` over the three columns
/// (the third used only when `third`): every subset of free coefficients
/// is solved by its normal equations, and the best one whose solution is
/// non-negative is kept (exact for three unknowns). Returns the sum of
/// squared residuals and the coefficients.
fn nnls3(cols: &[[f64; 3]], y: &[f64], third: bool) -> (f64, [f64; 3]) {
    let used = if third { 3 } else { 2 };
    let mut best = (y.iter().map(|v| v * v).sum::<f64>(), [0.0; 3]);
    for mask in 1u32..(1 << used) {
        let idx: Vec<usize> = (0..used).filter(|k| mask >> k & 1 == 1).collect();
        let m = idx.len();
        let mut ata = [[0.0f64; 3]; 3];
        let mut aty = [0.0f64; 3];
        for (row, &v) in cols.iter().zip(y) {
            for (p, &i) in idx.iter().enumerate() {
                aty[p] += row[i] * v;
                for (q, &j) in idx.iter().enumerate() {
                    ata[p][q] += row[i] * row[j];
                }
            }
        }
        let Some(sol) = solve_small(ata, aty, m) else { continue };
        if sol[..m].iter().any(|&c| c < 0.0) {
            continue;
        }
        let mut c = [0.0; 3];
        for (p, &i) in idx.iter().enumerate() {
            c[i] = sol[p];
        }
        let sse = cols
            .iter()
            .zip(y)
            .map(|(row, &v)| {
                let r = v - (c[0] * row[0] + c[1] * row[1] + c[2] * row[2]);
                r * r
            })
            .sum::<f64>();
        if sse < best.0 {
            best = (sse, c);
        }
    }
    best
}

/// Gaussian elimination with partial pivoting on the leading `m × m` block;
/// `None` when it is singular.
fn solve_small(mut a: [[f64; 3]; 3], mut b: [f64; 3], m: usize) -> Option<[f64; 3]> {
    let scale = (0..m).map(|i| a[i][i].abs()).fold(0.0, f64::max).max(f64::MIN_POSITIVE);
    for col in 0..m {
        let pivot = (col..m).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[pivot][col].abs() <= 1e-13 * scale {
            return None;
        }
        a.swap(col, pivot);
        b.swap(col, pivot);
        for row in col + 1..m {
            let f = a[row][col] / a[col][col];
            let pivot_row = a[col];
            for (v, p) in a[row].iter_mut().zip(pivot_row).take(m).skip(col) {
                *v -= f * p;
            }
            b[row] -= f * b[col];
        }
    }
    let mut x = [0.0; 3];
    for row in (0..m).rev() {
        let s: f64 = (row + 1..m).map(|k| a[row][k] * x[k]).sum();
        x[row] = (b[row] - s) / a[row][row];
    }
    Some(x)
}

/// Percentile bootstrap: `resamples` fits of the points drawn with
/// replacement (seeded; a draw that [`fit`] refuses, say one with fewer
/// than three levels of a variable, counts as not fitted), each law's
/// parameters in the order `E, A, α, B, β`;
/// returns the 2.5 % and 97.5 % quantiles of each (NaN where fewer than
/// half the resamples could be fitted).
#[must_use]
pub fn bootstrap(x1: &[f64], x2: Option<&[f64]>, y: &[f64], resamples: usize, seed: u64) -> [(f64, f64); 5] {
    let mut rng = StdRng::seed_from_u64(seed);
    let n = y.len();
    let mut draws: [Vec<f64>; 5] = Default::default();
    for _ in 0..resamples {
        let pick: Vec<usize> = (0..n).map(|_| rng.random_range(0..n.max(1))).collect();
        let take = |v: &[f64]| pick.iter().map(|&i| v[i]).collect::<Vec<f64>>();
        let r2 = x2.map(take);
        if let Some(f) = fit(&take(x1), r2.as_deref(), &take(y)) {
            let l = f.law;
            for (d, v) in draws.iter_mut().zip([l.e, l.a, l.alpha, l.b, l.beta]) {
                d.push(v);
            }
        }
    }
    draws.map(|mut d| {
        if d.len() * 2 < resamples.max(1) {
            return (f64::NAN, f64::NAN);
        }
        d.sort_by(f64::total_cmp);
        let q = |p: f64| d[((d.len() - 1) as f64 * p).round() as usize];
        (q(0.025), q(0.975))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Takano's fitted law for the 3×3×3 cube (kyo-takano/chinchilla,
    /// cross-entropy, half-turn metric).
    const TAKANO: Law = Law { e: 1.6204, a: 1116.76, alpha: 0.6492, b: 92697.0, beta: 0.7105 };

    fn grid() -> (Vec<f64>, Vec<f64>) {
        let mut n = Vec::new();
        let mut d = Vec::new();
        for &np in &[1e5, 3e5, 1e6, 3e6] {
            for &dp in &[1e7, 3e7, 1e8, 3e8] {
                n.push(np);
                d.push(dp);
            }
        }
        (n, d)
    }

    #[test]
    fn the_fit_recovers_takanos_law_from_its_own_values() {
        let (n, d) = grid();
        let y: Vec<f64> = n.iter().zip(&d).map(|(&a, &b)| TAKANO.at(a, b)).collect();
        let f = fit(&n, Some(&d), &y).expect("16 points fit");
        assert!((f.law.alpha - TAKANO.alpha).abs() < 0.01, "{:?}", f.law);
        assert!((f.law.beta - TAKANO.beta).abs() < 0.01, "{:?}", f.law);
        assert!((f.law.e - TAKANO.e).abs() < 0.01, "{:?}", f.law);
        assert!(f.mae < 1e-3, "{}", f.mae);
    }

    #[test]
    fn takanos_law_puts_reference_v2_near_its_compute_optimal_frontier() {
        // 1.5M parameters × 3·10⁸ samples ≈ 2.7·10¹⁵ FLOPs.
        let c = 6.0 * 1.5e6 * 3e8;
        let (n, d) = TAKANO.optimal_split(c);
        assert!((6.0 * n * d / c - 1.0).abs() < 1e-9);
        assert!(n > 0.5e6 && n < 4e6, "N_opt {n:e}");
        // Along the iso-FLOP line, the optimum is no worse than its neighbours.
        let at = |nn: f64| TAKANO.at(nn, c / 6.0 / nn);
        assert!(at(n) <= at(n * 1.1) && at(n) <= at(n / 1.1));
    }

    #[test]
    fn a_one_variable_law_is_fitted_and_inverted() {
        let law = Law { e: 21.0, a: 60.0, alpha: 0.35, b: 0.0, beta: 0.0 };
        let x: Vec<f64> = (7..=15).map(|k| f64::from(1u32 << k)).collect();
        let y: Vec<f64> = x.iter().map(|&v| law.at(v, 1.0)).collect();
        let f = fit(&x, None, &y).expect("9 points fit");
        assert!((f.law.alpha - 0.35).abs() < 0.01 && (f.law.e - 21.0).abs() < 0.05, "{:?}", f.law);
        let w = f.law.reaches(23.0).expect("23 is above the floor");
        assert!((law.at(w, 1.0) - 23.0).abs() < 0.02, "{w}");
        assert_eq!(f.law.reaches(20.0), None);
    }

    #[test]
    fn bootstrap_intervals_hold_the_true_exponents_under_noise() {
        let (n, d) = grid();
        let mut rng = StdRng::seed_from_u64(7);
        let y: Vec<f64> =
            n.iter().zip(&d).map(|(&a, &b)| TAKANO.at(a, b) * (1.0 + 0.002 * (rng.random::<f64>() - 0.5))).collect();
        let ci = bootstrap(&n, Some(&d), &y, 60, 1);
        assert!(ci[2].0 <= TAKANO.alpha && TAKANO.alpha <= ci[2].1, "alpha CI {:?}", ci[2]);
        assert!(ci[4].0 <= TAKANO.beta && TAKANO.beta <= ci[4].1, "beta CI {:?}", ci[4]);
    }

    #[test]
    fn too_few_points_or_bad_values_are_not_fitted() {
        assert!(fit(&[1.0, 2.0, 3.0], None, &[1.0, 2.0, 3.0]).is_none());
        assert!(fit(&[1.0, 2.0, 0.0, 4.0], None, &[1.0, 2.0, 3.0, 4.0]).is_none());
        // Two levels of x, however many points: every α passes through them.
        assert!(fit(&[1.0, 1.0, 2.0, 2.0, 2.0], None, &[3.0, 3.1, 2.0, 2.1, 2.0]).is_none());
        let (n, d) = grid();
        let two: Vec<f64> = d.iter().map(|&v| if v < 5e7 { 1e7 } else { 1e8 }).collect();
        let y: Vec<f64> = n.iter().zip(&two).map(|(&a, &b)| TAKANO.at(a, b)).collect();
        assert!(fit(&n, Some(&two), &y).is_none(), "two levels of D");
        assert_eq!(levels(&[3e13, 3e13 * (1.0 + 1e-7), 1e14, 3e14]), 3);
    }

    #[test]
    fn bootstrap_draws_that_lose_a_level_do_not_widen_the_interval() {
        // Nine points on three levels of x: a resample misses a level about
        // one time in thirteen, and such a draw fits any α. Refused, they
        // leave an interval around the true exponent.
        let law = Law { e: 20.0, a: 40.0, alpha: 0.42, b: 0.0, beta: 0.0 };
        let mut rng = StdRng::seed_from_u64(3);
        let x: Vec<f64> = [1e13, 1e14, 1e15].iter().flat_map(|&v| [v, v, v]).collect();
        let y: Vec<f64> =
            x.iter().map(|&v| law.at(v.powf(0.1), 1.0) * (1.0 + 0.001 * (rng.random::<f64>() - 0.5))).collect();
        let xs: Vec<f64> = x.iter().map(|v| v.powf(0.1)).collect();
        let ci = bootstrap(&xs, None, &y, 400, 5);
        assert!(0.3 < ci[2].0 && ci[2].1 < 0.55, "alpha CI {:?}", ci[2]);
        // A law whose second term fits to 0 has no compute-optimal split.
        let flat = Law { e: 1.0, a: 2.0, alpha: 0.3, b: 0.0, beta: 0.5 };
        assert!(flat.optimal_split(1e15).0.is_nan());
    }
}
