//! What a trained oracle looks like near convergence: the analyses of the
//! reference lecture, computed from plain numbers (no tensors).
//!
//! * **Visits** over the last training steps: how many distinct states the
//!   data touched, the share touched exactly once, and the visit-count
//!   histogram with its power-law exponent `α` (`#states visited c times ∝
//!   c^−α`, least squares on log–log axes).
//! * **Move marginals** `p(m_k)`: the mean predicted distribution and the
//!   label frequencies on the held-out set, against uniform `1/|M|`.
//! * **Certainty**: the distribution of `max_k p(m_k | n)` over held-out
//!   states.
//! * **Cumulative conditional probability** per move: the running mean
//!   `(1/i) Σ_{j≤i} p(m_k | n_j)` over held-out states, which settles at the
//!   move's marginal (1/12 for a uniform oracle in QTM).
//! * **KL**: `KL(marginal ‖ uniform)`; `mean_n KL(onehot(label) ‖ p(·|n))`,
//!   equal to the cross-entropy since a one-hot target has zero entropy; and
//!   `mean_n KL(p_t(·|n) ‖ p_{t−1}(·|n))` between consecutive evaluation
//!   snapshots, a stability signal.

use crate::information::{kl, kl_from_uniform};
use crate::statistics::power_law_exponent;
use ndarray::{Array1, ArrayView2, Axis};
use std::collections::HashMap;

/// Visit statistics of a multiset of state keys.
#[derive(Clone, Debug, PartialEq)]
pub struct Visits {
    /// Samples counted.
    pub samples: u64,
    /// Distinct states among them.
    pub distinct: u64,
    /// States seen exactly once.
    pub once: u64,
    /// `(c, number of states seen exactly c times)`, ascending in `c`.
    pub histogram: Vec<(u64, u64)>,
    /// Fitted power-law exponent, if at least two counts occur.
    pub exponent: Option<f64>,
}

/// Counts how often each key occurs.
pub fn visits<K: std::hash::Hash + Eq>(keys: impl IntoIterator<Item = K>) -> Visits {
    let mut counts: HashMap<K, u64> = HashMap::new();
    let mut samples = 0;
    for k in keys {
        *counts.entry(k).or_insert(0) += 1;
        samples += 1;
    }
    let mut hist: HashMap<u64, u64> = HashMap::new();
    for &c in counts.values() {
        *hist.entry(c).or_insert(0) += 1;
    }
    let mut histogram: Vec<(u64, u64)> = hist.into_iter().collect();
    histogram.sort_unstable();
    let once = histogram.iter().find(|(c, _)| *c == 1).map_or(0, |(_, n)| *n);
    Visits { samples, distinct: counts.len() as u64, once, exponent: power_law_exponent(&histogram), histogram }
}

/// Per-state predicted distributions: a `states × moves` matrix.
#[derive(Clone, Debug)]
pub struct Predictions<'a> {
    probs: ArrayView2<'a, f32>,
}

impl<'a> Predictions<'a> {
    /// The matrix of `probs` read row-major with `moves` columns (a
    /// trailing partial row is ignored).
    #[must_use]
    pub fn new(probs: &'a [f32], moves: usize) -> Self {
        let rows = probs.len() / moves.max(1);
        let probs = ArrayView2::from_shape((rows, moves), &probs[..rows * moves]).expect("rows × moves elements");
        Self { probs }
    }

    /// Number of states.
    #[must_use]
    pub fn rows(&self) -> usize {
        self.probs.nrows()
    }

    /// Mean predicted distribution over the states.
    #[must_use]
    pub fn marginal(&self) -> Vec<f64> {
        let moves = self.probs.ncols();
        self.probs.mapv(f64::from).mean_axis(Axis(0)).map_or_else(|| vec![0.0; moves], |m| m.to_vec())
    }

    /// `max_k p(m_k | n)` for every state.
    #[must_use]
    pub fn certainty(&self) -> Vec<f64> {
        self.probs.rows().into_iter().map(|r| f64::from(r.fold(0.0f32, |a, &b| a.max(b)))).collect()
    }

    /// `KL(marginal ‖ uniform)`.
    #[must_use]
    pub fn kl_marginal_uniform(&self) -> f64 {
        kl_from_uniform(&self.marginal())
    }

    /// Mean `KL(onehot(label) ‖ p)` = mean `−ln p(label)` (the cross-entropy).
    #[must_use]
    pub fn kl_target(&self, labels: &[i64]) -> f64 {
        let n = self.rows().min(labels.len());
        let total: f64 =
            self.probs.rows().into_iter().zip(labels).map(|(r, &l)| -f64::from(r[l as usize]).max(1e-30).ln()).sum();
        total / n.max(1) as f64
    }

    /// Mean over states of `KL(self ‖ previous)`.
    #[must_use]
    pub fn kl_from(&self, previous: &Predictions<'_>) -> f64 {
        let n = self.rows().min(previous.rows());
        let total: f64 = self
            .probs
            .rows()
            .into_iter()
            .zip(previous.probs.rows())
            .map(|(p, q)| kl(&p.mapv(f64::from).to_vec(), &q.mapv(|x| f64::from(x).max(1e-30)).to_vec()))
            .sum();
        total / n.max(1) as f64
    }

    /// Running mean of each move's probability over the first `i` states,
    /// sampled at `points` roughly evenly spaced `i`: `(i, move, value)`.
    #[must_use]
    pub fn cumulative(&self, points: usize) -> Vec<(usize, usize, f64)> {
        let rows = self.rows();
        let every = (rows / points.max(1)).max(1);
        let mut sums = Array1::<f64>::zeros(self.probs.ncols());
        let mut out = Vec::new();
        for (i, row) in self.probs.rows().into_iter().enumerate() {
            sums += &row.mapv(f64::from);
            if (i + 1) % every == 0 || i + 1 == rows {
                out.extend(sums.iter().enumerate().map(|(k, s)| (i + 1, k, s / (i + 1) as f64)));
            }
        }
        out
    }
}

/// Frequencies of each label among `labels`.
#[must_use]
pub fn label_frequencies(labels: &[i64], moves: usize) -> Vec<f64> {
    let mut f = vec![0.0; moves];
    for &l in labels {
        f[l as usize] += 1.0;
    }
    let n = labels.len().max(1) as f64;
    f.iter_mut().for_each(|x| *x /= n);
    f
}

/// A histogram of values in `[0, 1]` with `bins` equal bins: `(bin centre,
/// share of values)`.
#[must_use]
pub fn unit_histogram(values: &[f64], bins: usize) -> Vec<(f64, f64)> {
    let mut h = vec![0u64; bins];
    for &v in values {
        let b = ((v.clamp(0.0, 1.0) * bins as f64) as usize).min(bins - 1);
        h[b] += 1;
    }
    let n = values.len().max(1) as f64;
    h.iter().enumerate().map(|(i, &c)| ((i as f64 + 0.5) / bins as f64, c as f64 / n)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visit_counts_and_histogram() {
        let v = visits([1, 2, 2, 3, 3, 3, 4, 5]);
        assert_eq!((v.samples, v.distinct, v.once), (8, 5, 3));
        assert_eq!(v.histogram, [(1, 3), (2, 1), (3, 1)]);
        assert!(v.exponent.unwrap() > 0.0);
    }

    #[test]
    fn prediction_statistics() {
        let probs = [0.5f32, 0.5, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0];
        let p = Predictions::new(&probs, 2);
        assert_eq!(p.rows(), 4);
        assert_eq!(p.marginal(), [0.375, 0.625]);
        assert_eq!(p.certainty(), [0.5, 1.0, 1.0, 1.0]);
        assert!((p.kl_target(&[0, 1, 0, 1]) - 0.5f64.ln().abs() / 4.0).abs() < 1e-12);
        assert_eq!(p.kl_from(&p), 0.0);
        let c = p.cumulative(4);
        assert_eq!(c.last().unwrap(), &(4, 1, 0.625));
        assert_eq!(label_frequencies(&[0, 1, 1, 1], 2), [0.25, 0.75]);
        assert_eq!(unit_histogram(&[0.0, 0.99, 1.0], 2), [(0.25, 1.0 / 3.0), (0.75, 2.0 / 3.0)]);
    }
}
