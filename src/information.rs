//! Entropy and Kullback–Leibler divergence of discrete distributions, in
//! nats.
//!
//! * `H(p) = −Σ p_i ln p_i` (terms with `p_i = 0` contribute 0);
//! * `KL(p ‖ q) = Σ p_i ln(p_i / q_i)`, 0 where `p_i = 0`, and `+∞` where
//!   `p_i > 0 = q_i`.
//!
//! Distributions given as log-probabilities or unnormalised weights are
//! normalised first; the log-sum-exp form keeps tiny path probabilities
//! (products of many move probabilities) from underflowing.

/// Entropy of a probability vector (assumed to sum to 1).
#[must_use]
pub fn entropy(p: &[f64]) -> f64 {
    -p.iter().filter(|&&x| x > 0.0).map(|&x| x * x.ln()).sum::<f64>()
}

/// `KL(p ‖ q)` of two probability vectors of equal length.
#[must_use]
pub fn kl(p: &[f64], q: &[f64]) -> f64 {
    assert_eq!(p.len(), q.len(), "kl: distributions of different lengths");
    let mut total = 0.0;
    for (&a, &b) in p.iter().zip(q) {
        if a > 0.0 {
            if b <= 0.0 {
                return f64::INFINITY;
            }
            total += a * (a / b).ln();
        }
    }
    total
}

/// `KL(p ‖ uniform)` = `ln n − H(p)`.
#[must_use]
pub fn kl_from_uniform(p: &[f64]) -> f64 {
    (p.len() as f64).ln() - entropy(p)
}

/// `ln Σ exp(x_i)`, stable for very negative inputs. `−∞` for an empty slice.
#[must_use]
pub fn log_sum_exp(x: &[f64]) -> f64 {
    let m = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if m == f64::NEG_INFINITY {
        return m;
    }
    m + x.iter().map(|&v| (v - m).exp()).sum::<f64>().ln()
}

/// Normalises log-weights into probabilities (softmax).
#[must_use]
pub fn softmax(log_w: &[f64]) -> Vec<f64> {
    let mut p = Vec::with_capacity(log_w.len());
    softmax_into(log_w, &mut p);
    p
}

/// [`softmax`] into a buffer the caller reuses (cleared first).
pub fn softmax_into(log_w: &[f64], out: &mut Vec<f64>) {
    let z = log_sum_exp(log_w);
    out.clear();
    out.extend(log_w.iter().map(|&v| (v - z).exp()));
}

/// Entropy of the distribution proportional to `exp(log_w)`.
#[must_use]
pub fn entropy_of_log_weights(log_w: &[f64]) -> f64 {
    entropy(&softmax(log_w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_entropy_is_k_ln2() {
        for k in 0..12 {
            let n = 1usize << k;
            let p = vec![1.0 / n as f64; n];
            assert!((entropy(&p) - k as f64 * std::f64::consts::LN_2).abs() < 1e-9);
            assert!(kl_from_uniform(&p).abs() < 1e-9);
        }
    }

    #[test]
    fn kl_of_a_distribution_with_itself_is_zero() {
        let p = [0.1, 0.2, 0.3, 0.4];
        assert_eq!(kl(&p, &p), 0.0);
    }

    #[test]
    fn bernoulli_kl_matches_hand_computation() {
        // 0.5 ln(0.5/0.75) + 0.5 ln(0.5/0.25) = 0.5 ln(4/3) ≈ 0.1438.
        let d = kl(&[0.5, 0.5], &[0.75, 0.25]);
        assert!((d - 0.143_841).abs() < 1e-5, "{d}");
        assert_eq!(kl(&[0.5, 0.5], &[1.0, 0.0]), f64::INFINITY);
    }

    #[test]
    fn log_weights_normalise_without_underflow() {
        let lw = [-2000.0, -2000.0 + 2f64.ln()];
        let p = softmax(&lw);
        assert!((p[0] - 1.0 / 3.0).abs() < 1e-12 && (p[1] - 2.0 / 3.0).abs() < 1e-12);
        assert!((entropy_of_log_weights(&[-1e4; 8]) - 8f64.ln()).abs() < 1e-12);
    }
}
