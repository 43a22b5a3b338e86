//! What beam search records about each depth, as array operations.
//!
//! At depth `d` the oracle answers a `states × moves` matrix of move
//! log-probabilities (one row per expanded state); [`policy_entropy`]
//! reduces each row. The beam kept after selection is a distribution
//! over its states, path scores normalised by [`softmax`]; [`kl_onto_parents`]
//! folds it back onto the depth-`d − 1` beam its states came from and
//! compares it with that beam's own distribution. No search state lives
//! here: the functions take plain arrays and are checked against closed
//! forms in the tests below.

use crate::information::{entropy, log_sum_exp};
pub use crate::information::{softmax, softmax_into};

/// `H(p(· | s))` in nats of one state's row of move log-probabilities. A
/// move with probability 0 (log-probability `−∞`) contributes nothing.
#[must_use]
pub fn policy_entropy(log_probs: impl IntoIterator<Item = f32>) -> f64 {
    -log_probs.into_iter().map(|l| f64::from(l).exp() * f64::from(l)).filter(|x| x.is_finite()).sum::<f64>()
}

/// Entropy (nats) of a beam given as normalised probabilities.
#[must_use]
pub fn beam_entropy(probs: &[f64]) -> f64 {
    entropy(probs)
}

/// `KL(P_d ‖ B_{d−1})` in nats: `probs[j]` is the probability of state `j`
/// of the new beam and `parents[j]` the index of the state it came from in
/// the previous beam, whose path scores are `parent_scores`. `P_d` sums the
/// new beam onto those parents; `B_{d−1} = softmax(parent_scores)`. `onto`
/// is scratch space the caller reuses from depth to depth.
#[must_use]
pub fn kl_onto_parents(
    probs: &[f64],
    parents: impl IntoIterator<Item = u32>,
    parent_scores: &[f64],
    onto: &mut Vec<f64>,
) -> f64 {
    onto.clear();
    onto.resize(parent_scores.len(), 0.0);
    for (&p, parent) in probs.iter().zip(parents) {
        onto[parent as usize] += p;
    }
    let z = log_sum_exp(parent_scores);
    onto.iter().zip(parent_scores).filter(|(p, _)| **p > 0.0).map(|(&p, &s)| p * (p.ln() - (s - z))).sum()
}

/// A row of Q-distances → `ln softmax(−Q)` over the moves `applicable`
/// accepts, in place (the others get `−∞`): the move distribution a
/// Q-distance oracle implies, for the diagnostics that need one. Two passes
/// over the row, no allocation (it runs once per beam state).
pub fn boltzmann(q: &mut [f32], applicable: impl Fn(usize) -> bool) {
    let neg = |m: usize, x: f32| if applicable(m) { -f64::from(x) } else { f64::NEG_INFINITY };
    let max = q.iter().enumerate().map(|(m, &x)| neg(m, x)).fold(f64::NEG_INFINITY, f64::max);
    if max == f64::NEG_INFINITY {
        q.fill(f32::NEG_INFINITY);
        return;
    }
    let z = max + q.iter().enumerate().map(|(m, &x)| (neg(m, x) - max).exp()).sum::<f64>().ln();
    for (m, o) in q.iter_mut().enumerate() {
        *o = (neg(m, *o) - z) as f32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_uniform_policy_has_entropy_ln_moves_and_a_sure_one_zero() {
        let third = (1.0f32 / 3.0).ln();
        let h = [[third, third, third], [0.0, f32::NEG_INFINITY, f32::NEG_INFINITY]].map(policy_entropy);
        assert!((h[0] - 3f64.ln()).abs() < 1e-6 && h[1] == 0.0, "{h:?}");
    }

    #[test]
    fn kl_onto_parents_is_zero_when_children_keep_their_parents_mass() {
        // Two parents with probabilities 1/4 and 3/4; the children split
        // each parent's mass, so P_d summed onto the parents is B_{d-1}.
        let parent_scores = [0.25f64.ln(), 0.75f64.ln()];
        let probs = [0.125, 0.125, 0.5, 0.25];
        let mut onto = Vec::new();
        assert!(kl_onto_parents(&probs, [0, 0, 1, 1], &parent_scores, &mut onto).abs() < 1e-12);
        // All mass moved onto the first parent: KL = ln(1 / (1/4)) = ln 4.
        // (The scratch space carries nothing over from the call before.)
        let kl = kl_onto_parents(&[0.5, 0.5], [0, 0], &parent_scores, &mut onto);
        assert!((kl - 4f64.ln()).abs() < 1e-12, "{kl}");
        // Scores are log-weights: shifting them all changes nothing.
        let shifted = parent_scores.map(|s| s - 7.0);
        assert!((kl_onto_parents(&[0.5, 0.5], [0, 0], &shifted, &mut onto) - kl).abs() < 1e-12);
    }

    #[test]
    fn boltzmann_is_log_softmax_of_minus_q_over_the_applicable_moves() {
        // Q = (1, 2, 3), the third move not applicable: ln softmax(−1, −2).
        let mut q = [1.0f32, 2.0, 3.0];
        boltzmann(&mut q, |m| m < 2);
        let z = ((-1f64).exp() + (-2f64).exp()).ln();
        assert!((f64::from(q[0]) - (-1.0 - z)).abs() < 1e-6 && (f64::from(q[1]) - (-2.0 - z)).abs() < 1e-6);
        assert_eq!(q[2], f32::NEG_INFINITY);
        // No applicable move: every entry −∞ (no NaN).
        let mut q = [1.0f32, 2.0];
        boltzmann(&mut q, |_| false);
        assert!(q.iter().all(|&x| x == f32::NEG_INFINITY), "{q:?}");
    }

    #[test]
    fn a_beam_of_equal_scores_has_entropy_ln_width() {
        let probs = softmax(&[-3.0; 8]);
        assert!((beam_entropy(&probs) - 8f64.ln()).abs() < 1e-12);
    }
}
