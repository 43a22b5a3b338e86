//! What each oracle kind learns from a batch of reverse-walk samples, and
//! how well it did: targets, the loss, the count of correctly ranked
//! samples, and the held-out metrics per depth.
//!
//! A sample is a state at step `k` of a walk from the goal, reached by move
//! `m`. A **policy** is trained by cross-entropy to put its mass on `m`
//! (correct: `argmax = m`). A **Q-distance** network's output `m` is
//! regressed on `k − 1`, the walk's distance of the state that undoing `m`
//! reaches (correct: `argmin = m`, the undoing move looks shortest). With
//! `model.forward_targets` (on by default) the walk's next move `m'` adds a
//! second target to the same state: the output `m'⁻¹` (the child the walk
//! went on to) is regressed on `k + 1`. Without it, the outputs of moves
//! that lead away from the goal get almost no targets (a pruned walk rarely
//! steps back), and the network is free to make them look short. With
//! `model.rank_weight = w > 0` a ranking term is added: `w` times the
//! cross-entropy of `softmax(−Q)` on `m`, which asks the undoing child to
//! look shortest among its siblings, as a policy is asked to put its mass
//! on `m`. A **value** network is
//! regressed on `k` (correct: `|V − k| < ½`). Walk steps bound the true
//! distance from above, so the distance kinds learn an upper estimate, as
//! in CayleyPy and EfficientCube's walk-length targets.

use crate::learn::config::{Loss, ModelSection};
use crate::learn::data::Batch;
use crate::learn::data::Bounds;
use crate::learn::error::LearnError;
use crate::search::OracleKind;
use burn::tensor::activation::log_softmax;
use burn::tensor::{Device, Int, Tensor, TensorData};

/// The regression target of a sample at walk step `depth`
/// ([`OracleKind::target`]; a policy has none, and gets the depth).
#[must_use]
pub fn target(kind: OracleKind, depth: u16) -> f32 {
    kind.target(depth).unwrap_or(f32::from(depth))
}

/// The batch loss (a one-element tensor that keeps its graph) and the
/// number of samples ranked correctly by [`OracleKind::is_correct`], the rule the
/// held-out metrics use. `outputs` is the network's `[n, outputs]` result
/// for the batch whose `labels` and `depths` are given.
///
/// # Errors
/// The outputs cannot be read back from the device to count the correct rankings.
///
/// `bounds` (a Bellman fine-tune's, Q-distance only) caps each regression
/// target: the target of sample `i`'s own output becomes
/// `min(k − 1, back[i])`, that of its next move `min(k + 1, forward[i])`.
pub fn loss(
    model: &ModelSection,
    outputs: Tensor<2>,
    batch: Batch,
    bounds: Option<&Bounds>,
    device: &Device,
) -> Result<(Tensor<1>, u64), LearnError> {
    let Batch { labels, depths, forward, legal, .. } = batch;
    let depths = &depths[..];
    let n = labels.len();
    let width = outputs.dims()[1];
    let rows = outputs.clone().detach().into_data().convert::<f32>().try_into_vec::<f32>();
    let rows = rows.map_err(|e| LearnError::Predictions(format!("{e:?}")))?;
    let correct = (0..n)
        .filter(|&i| model.kind.is_correct(&rows[i * width..(i + 1) * width], labels[i], depths[i], legal[i]))
        .count() as u64;
    let y = Tensor::<2, Int>::from_data(TensorData::new(labels, [n, 1]), device);
    let loss = match model.kind {
        OracleKind::Policy => {
            debug_assert!(bounds.is_none(), "the config refuses Bellman targets for a policy");
            log_softmax(outputs, 1).gather(1, y).mean().neg()
        }
        OracleKind::QDistance => {
            let cap = |t: f32, i: usize, side: fn(&Bounds) -> &[f32]| bounds.map_or(t, |b| t.min(side(b)[i]));
            let t: Vec<f32> = depths
                .iter()
                .enumerate()
                .map(|(i, &d)| cap(target(OracleKind::QDistance, d), i, |b| &b.back))
                .collect();
            let t = Tensor::<2>::from_data(TensorData::new(t, [n, 1]), device);
            let back = regression(model.loss(), outputs.clone().gather(1, y.clone()), t);
            // The ranking term: cross-entropy of softmax(−Q) on the undoing
            // move, so that child ranks first among its siblings.
            let w = model.rank_weight();
            let rank = |q: Tensor<2>| (w > 0.0).then(|| log_softmax(q.neg(), 1).gather(1, y).mean().neg() * w);
            if !model.forward_targets() {
                let reg = back.mean();
                return Ok((
                    match rank(outputs) {
                        Some(r) => reg + r,
                        None => reg,
                    },
                    correct,
                ));
            }
            let ranked = rank(outputs.clone());
            // The walk's next state, at depth k + 1, is the child reached by
            // undoing `forward` (where the walk went on).
            let present: Vec<f32> = forward.iter().map(|&f| f32::from(u8::from(f >= 0))).collect();
            let weight = present.iter().sum::<f32>();
            let cols: Vec<i64> = forward.iter().map(|&f| f.max(0)).collect();
            let tf: Vec<f32> =
                depths.iter().enumerate().map(|(i, &d)| cap(f32::from(d) + 1.0, i, |b| &b.forward)).collect();
            let cols = Tensor::<2, Int>::from_data(TensorData::new(cols, [n, 1]), device);
            let mask = Tensor::<2>::from_data(TensorData::new(present, [n, 1]), device);
            let tf = Tensor::<2>::from_data(TensorData::new(tf, [n, 1]), device);
            let fwd = regression(model.loss(), outputs.gather(1, cols), tf) * mask;
            let reg = (back.sum() + fwd.sum()) / (n as f32 + weight);
            match ranked {
                Some(r) => reg + r,
                None => reg,
            }
        }
        OracleKind::Value => {
            debug_assert!(bounds.is_none(), "the config refuses Bellman targets for a value network");
            regression(model.loss(), outputs, targets(OracleKind::Value, depths, device)).mean()
        }
    };
    Ok((loss, correct))
}

fn targets(kind: OracleKind, depths: &[u16], device: &Device) -> Tensor<2> {
    let t: Vec<f32> = depths.iter().map(|&d| target(kind, d)).collect();
    Tensor::<2>::from_data(TensorData::new(t, [depths.len(), 1]), device)
}

/// Per-sample squared error, or Huber loss with δ = 1 (`½d²` within 1,
/// `|d| − ½` beyond), of `pred` against `target` (both `[n, 1]`).
fn regression(loss: Loss, pred: Tensor<2>, target: Tensor<2>) -> Tensor<2> {
    let d = pred - target;
    match loss {
        Loss::Huber => {
            let a = d.abs();
            let inner = a.clone().clamp_max(1.0);
            inner.clone() * inner.clone() * 0.5 + (a - inner)
        }
        // Cross-entropy never reaches here: the config refuses it for the
        // distance kinds.
        Loss::Mse | Loss::CrossEntropy => d.clone() * d,
    }
}

/// Held-out metrics of one depth.
#[derive(Clone, Debug, PartialEq)]
pub struct DepthMetrics {
    /// Walk step.
    pub depth: usize,
    /// Samples at that step.
    pub states: u64,
    /// Share ranked correctly ([`OracleKind::is_correct`]).
    pub accuracy: f64,
    /// Policy: mean `−ln p(label)`. Distance kinds: mean prediction (of
    /// the label's output for a Q network).
    pub mean: f64,
    /// Distance kinds: root mean squared error against [`target`]; NaN for a policy.
    pub rmse: f64,
}

/// Per-depth metrics of `predictions` (`rows × outputs`) on `set`.
#[must_use]
pub fn by_depth(kind: OracleKind, predictions: &[f32], outputs: usize, set: &Batch) -> Vec<DepthMetrics> {
    let max = set.depths.iter().copied().max().map_or(0, usize::from);
    let mut m: Vec<DepthMetrics> =
        (0..=max).map(|depth| DepthMetrics { depth, states: 0, accuracy: 0.0, mean: 0.0, rmse: 0.0 }).collect();
    for (i, (&label, &depth)) in set.labels.iter().zip(&set.depths).enumerate() {
        let row = &predictions[i * outputs..(i + 1) * outputs];
        let d = &mut m[usize::from(depth)];
        d.states += 1;
        d.accuracy += f64::from(u8::from(kind.is_correct(row, label, depth, set.legal[i])));
        let col = kind.column(label as usize);
        let x = f64::from(row[col]);
        match kind.target(depth) {
            // A policy's mean is the cross-entropy, −ln p(label).
            None => d.mean -= x,
            Some(t) => {
                d.mean += x;
                d.rmse += (x - f64::from(t)).powi(2);
            }
        }
    }
    m.retain(|d| d.states > 0);
    for d in &mut m {
        let n = d.states as f64;
        d.accuracy /= n;
        d.mean /= n;
        d.rmse = if kind.is_regression() { (d.rmse / n).sqrt() } else { f64::NAN };
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    fn batch(labels: Vec<i64>, depths: Vec<u16>) -> Batch {
        Batch {
            index: 0,
            inputs: Vec::new(),
            forward: vec![-1; labels.len()],
            legal: vec![u32::MAX; labels.len()],
            bounds: None,
            labels,
            depths,
        }
    }

    fn loss_of(outputs: Vec<f32>, batch: Batch, bounds: Option<&Bounds>) -> f32 {
        loss_with(outputs, batch, bounds, "")
    }

    fn loss_with(outputs: Vec<f32>, batch: Batch, bounds: Option<&Bounds>, extra: &str) -> f32 {
        let device = crate::learn::backend::device(crate::learn::config::DeviceKind::Cpu).unwrap();
        let model: ModelSection = toml::from_str(&format!(
            "kind = \"q-distance\"\nencoding = \"one-hot\"\nhidden = [4]\nresidual_blocks = 0\nnorm = \"none\"\n{extra}"
        ))
        .unwrap();
        let n = batch.len();
        let outputs = Tensor::<2>::from_data(TensorData::new(outputs, [n, 2]), &device);
        loss(&model, outputs, batch, bounds, &device).unwrap().0.into_scalar::<f32>()
    }

    #[test]
    fn bellman_bounds_cap_the_q_targets() {
        // Two samples of one walk, at steps 3 and 4; the walk went on from
        // the first by the move whose inverse is output 1.
        let mut set = batch(vec![0, 1], vec![3, 4]);
        set.forward = vec![1, -1];
        let q = vec![1.0, 2.0, 0.0, 5.0];
        // Walk targets: 2 on output 0 of row 0, 3 on output 1 of row 1, and
        // 4 on output 1 of row 0: (1 + 4 + 4) / 3 samples' targets.
        assert!((loss_of(q.clone(), set.clone(), None) - 3.0).abs() < 1e-6);
        // Bounds lower two of them (to 1.5 and 2.5); an infinite one leaves
        // its target alone: (0.25 + 4 + 0.25) / 3.
        let b = Bounds { back: vec![1.5, f32::INFINITY], forward: vec![2.5, f32::INFINITY] };
        assert!((loss_of(q.clone(), set.clone(), Some(&b)) - 1.5).abs() < 1e-6);
        // A bound above the walk's distance changes nothing.
        let b = Bounds { back: vec![9.0, 9.0], forward: vec![9.0, 9.0] };
        assert!((loss_of(q, set, Some(&b)) - 3.0).abs() < 1e-6);
    }

    #[test]
    fn the_ranking_term_is_the_cross_entropy_of_softmax_minus_q_on_the_undoing_move() {
        // Steps 3 and 4, no next move: regression (1 + 4) / 2 on outputs 0
        // and 1. Ranking: −ln softmax(−[1, 2])₀ = ln(1 + e⁻¹) and
        // −ln softmax(−[0, 5])₁ = 5 + ln(1 + e⁻⁵).
        let set = batch(vec![0, 1], vec![3, 4]);
        let q = vec![1.0, 2.0, 0.0, 5.0];
        let reg = 2.5f64;
        let rank = ((1.0 + (-1.0f64).exp()).ln() + 5.0 + (1.0 + (-5.0f64).exp()).ln()) / 2.0;
        assert!((f64::from(loss_of(q.clone(), set.clone(), None)) - reg).abs() < 1e-6);
        let with = f64::from(loss_with(q.clone(), set.clone(), None, "rank_weight = 0.5"));
        assert!((with - (reg + 0.5 * rank)).abs() < 1e-5, "{with}");
        // Without forward targets the same sum.
        let with = f64::from(loss_with(q, set, None, "rank_weight = 0.5\nforward_targets = false"));
        assert!((with - (reg + 0.5 * rank)).abs() < 1e-5, "{with}");
    }

    #[test]
    fn per_depth_metrics_of_distances() {
        // Two samples at depth 2 (targets 1 for Q), one at depth 3 (target 2).
        let set = batch(vec![0, 1, 0], vec![2, 2, 3]);
        let q = [1.0f32, 5.0, 9.0, 0.0, 4.0, 6.0];
        let m = by_depth(OracleKind::QDistance, &q, 2, &set);
        assert_eq!(m.len(), 2);
        assert_eq!((m[0].depth, m[0].states), (2, 2));
        // Label columns: 1.0 (argmin 0 = label 0, right) and 0.0 (argmin 1 = label 1, right).
        assert_eq!(m[0].accuracy, 1.0);
        assert!((m[0].mean - 0.5).abs() < 1e-12);
        assert!((m[0].rmse - (0.5f64).sqrt()).abs() < 1e-12);
        assert!((m[1].rmse - 2.0).abs() < 1e-12 && m[1].accuracy == 1.0);
        let v = by_depth(OracleKind::Value, &[2.2, 1.0, 3.0], 1, &set);
        assert_eq!(v[0].accuracy, 0.5);
        assert!((v[0].rmse - ((0.04 + 1.0) / 2.0f64).sqrt()).abs() < 1e-6);
    }
}
