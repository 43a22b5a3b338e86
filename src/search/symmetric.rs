//! A symmetric ensemble of an oracle: [`SymmetricOracle`] asks the inner
//! oracle about `k` transformed copies of every state in one batch and
//! averages what it says, with the moves mapped back.
//!
//! A [`Transform`] is plain data that the puzzle layer supplies (the cube's
//! symmetries in `crate::cube3::symmetry`); this module knows no puzzle.
//! It is a gather over the encoded floats (`copy[j] = row[input[j]]`, the
//! encoding of the transformed state `σ(s)`) and a map of move ids
//! (`moves[m] = σ(m)`), with `σ(s·m) = σ(s)·σ(m)`. If the oracle says on
//! `σ(s)` that move `σ(m)` produced it, that is its evidence that `m`
//! produced `s`; so the ensemble's `p(m | s)` averages
//! `p(σ(m) | σ(s))` over the `k` transforms. When the transforms form a
//! group the ensemble is exactly invariant under them, whatever the inner
//! oracle; an oracle that already is invariant is left unchanged.
//!
//! Two averages ([`Mean`]): the arithmetic mean of the probabilities (a
//! mixture, `solve --symmetry`'s choice), or the geometric mean (mean of
//! the log-probabilities, renormalised). For the distance kinds (Q and
//! value oracles) the ensemble is the plain mean of the distances, with the
//! same move map for Q.

use super::error::OracleError;
use super::oracle::{Oracle, OracleKind};
use crate::puzzle::MoveId;
use thiserror::Error;

/// One transform of the ensemble, as plain data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transform {
    /// Gather over one encoded row: the transformed state's encoding is
    /// `row[input[j]]` for each `j` (a permutation of `0..len`).
    pub input: Vec<u32>,
    /// `moves[m]`: the move that move `m` becomes (a permutation).
    pub moves: Vec<MoveId>,
}

impl Transform {
    /// Whether this transform changes nothing.
    #[must_use]
    pub fn is_identity(&self) -> bool {
        self.input.iter().enumerate().all(|(j, &i)| i as usize == j)
            && self.moves.iter().enumerate().all(|(m, &n)| n as usize == m)
    }
}

pub use super::kind::Mean;

/// Transforms that cannot form an ensemble.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum TransformError {
    /// No transforms at all.
    #[error("a symmetric ensemble needs at least one transform")]
    Empty,
    /// A move map of the wrong length.
    #[error("transform {index}: its move map has {len} entries but the oracle predicts {moves} moves")]
    MoveCount {
        /// The transform's position.
        index: usize,
        /// Entries of its move map.
        len: usize,
        /// Moves of the inner oracle.
        moves: usize,
    },
    /// An input gather of another length than the first transform's.
    #[error("transform {index}: its input gather has {len} entries but transform 0's has {expected}")]
    InputLength {
        /// The transform's position.
        index: usize,
        /// Entries of its gather.
        len: usize,
        /// Entries of transform 0's gather.
        expected: usize,
    },
    /// A move map or input gather that is not a permutation.
    #[error("transform {index}: its {what} is not a permutation")]
    NotAPermutation {
        /// The transform's position.
        index: usize,
        /// `move map` or `input gather`.
        what: &'static str,
    },
}

fn is_permutation(v: impl Iterator<Item = usize>, len: usize) -> bool {
    let mut seen = vec![false; len];
    for x in v {
        if x >= len || std::mem::replace(&mut seen[x], true) {
            return false;
        }
    }
    seen.iter().all(|&s| s)
}

/// An oracle averaged over `k` transforms of every state (see the module
/// documentation). It evaluates the inner oracle on `k × rows` rows per
/// call.
#[derive(Clone, Debug)]
pub struct SymmetricOracle<O> {
    inner: O,
    transforms: Vec<Transform>,
    mean: Mean,
    /// Whether the only transform is the identity (calls pass through).
    pass_through: bool,
    copies: Vec<f32>,
    lp: Vec<f32>,
}

impl<O: Oracle> SymmetricOracle<O> {
    /// The ensemble of `inner` over `transforms` (the identity should come
    /// first by convention; any set is accepted).
    ///
    /// # Errors
    /// A [`TransformError`] when the transforms are empty, do not fit the
    /// oracle's move count or each other, or are not permutations.
    pub fn new(inner: O, transforms: Vec<Transform>, mean: Mean) -> Result<Self, TransformError> {
        let first = transforms.first().ok_or(TransformError::Empty)?;
        let (len, moves) = (first.input.len(), inner.num_moves());
        for (index, t) in transforms.iter().enumerate() {
            if t.moves.len() != moves {
                return Err(TransformError::MoveCount { index, len: t.moves.len(), moves });
            }
            if t.input.len() != len {
                return Err(TransformError::InputLength { index, len: t.input.len(), expected: len });
            }
            if !is_permutation(t.moves.iter().map(|&m| m as usize), moves) {
                return Err(TransformError::NotAPermutation { index, what: "move map" });
            }
            if !is_permutation(t.input.iter().map(|&i| i as usize), len) {
                return Err(TransformError::NotAPermutation { index, what: "input gather" });
            }
        }
        let pass_through = transforms.len() == 1 && first.is_identity();
        Ok(Self { inner, transforms, mean, pass_through, copies: Vec::new(), lp: Vec::new() })
    }

    /// The number of transforms `k`: inner rows per row asked.
    #[must_use]
    pub fn k(&self) -> usize {
        self.transforms.len()
    }

    /// The averaging rule.
    #[must_use]
    pub fn mean(&self) -> Mean {
        self.mean
    }

    /// The inner oracle.
    #[must_use]
    pub fn inner(&self) -> &O {
        &self.inner
    }
}

impl<O: Oracle> Oracle for SymmetricOracle<O> {
    fn num_moves(&self) -> usize {
        self.inner.num_moves()
    }

    fn kind(&self) -> OracleKind {
        self.inner.kind()
    }

    fn batch_rows(&self) -> usize {
        // Each row becomes one inner row per transform: as many rows as the
        // inner oracle takes, divided among the transforms, but never fewer
        // than the CPU's chunk (the batches of a CPU search stay as they were).
        let inner = self.inner.batch_rows();
        if self.pass_through {
            return inner;
        }
        (inner / self.transforms.len()).max(super::oracle::ORACLE_CHUNK).min(inner)
    }

    fn predict(&mut self, inputs: &[f32], rows: usize, out: &mut [f32]) -> Result<(), OracleError> {
        if self.pass_through {
            return self.inner.predict(inputs, rows, out);
        }
        let kind = self.inner.kind();
        let (k, w) = (self.transforms.len(), self.transforms[0].input.len());
        let n = kind.outputs(self.inner.num_moves());
        if inputs.len() < rows * w {
            return Err(OracleError(format!(
                "symmetric ensemble: {} input floats for {rows} rows of {w}",
                inputs.len()
            )));
        }
        // Row r's copy under transform t is inner row r * k + t.
        self.copies.resize(rows * k * w, 0.0);
        for (r, row) in inputs[..rows * w].chunks_exact(w).enumerate() {
            for (t, tr) in self.transforms.iter().enumerate() {
                let dst = &mut self.copies[(r * k + t) * w..(r * k + t + 1) * w];
                for (d, &i) in dst.iter_mut().zip(&tr.input) {
                    *d = row[i as usize];
                }
            }
        }
        self.lp.resize(rows * k * n, 0.0);
        self.inner.predict(&self.copies, rows * k, &mut self.lp)?;
        let mut terms = vec![0.0f64; k];
        let mut avg = vec![0.0f64; n];
        for r in 0..rows {
            let block = &self.lp[r * k * n..(r + 1) * k * n];
            for (m, a) in avg.iter_mut().enumerate() {
                for (t, (term, tr)) in terms.iter_mut().zip(&self.transforms).enumerate() {
                    *term = f64::from(block[t * n + kind.column(tr.moves[m] as usize)]);
                }
                *a = kind.ensemble_mean(&terms, self.mean);
            }
            let z = kind.ensemble_shift(&avg, self.mean);
            for (o, a) in out[r * n..(r + 1) * n].iter_mut().zip(&avg) {
                *o = (a - z) as f32;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::information::log_sum_exp;

    /// A toy oracle over 2 inputs and 3 moves, far from symmetric:
    /// logits `(2x₀ + x₁, x₀ − x₁, 0)`.
    struct Lopsided;

    impl Oracle for Lopsided {
        fn kind(&self) -> crate::search::OracleKind {
            crate::search::OracleKind::Policy
        }
        fn num_moves(&self) -> usize {
            3
        }
        fn predict(&mut self, inputs: &[f32], rows: usize, out: &mut [f32]) -> Result<(), OracleError> {
            for r in 0..rows {
                let (a, b) = (f64::from(inputs[2 * r]), f64::from(inputs[2 * r + 1]));
                let logits = [2.0 * a + b, a - b, 0.0];
                let z = log_sum_exp(&logits);
                for m in 0..3 {
                    out[3 * r + m] = (logits[m] - z) as f32;
                }
            }
            Ok(())
        }
    }

    /// The group {identity, swap}: swapping the inputs swaps moves 0 and 1.
    fn swap_group() -> Vec<Transform> {
        vec![
            Transform { input: vec![0, 1], moves: vec![0, 1, 2] },
            Transform { input: vec![1, 0], moves: vec![1, 0, 2] },
        ]
    }

    fn ask(o: &mut impl Oracle, x: &[f32]) -> Vec<f32> {
        let mut out = vec![0.0; 3 * x.len() / 2];
        o.predict(x, x.len() / 2, &mut out).unwrap();
        out
    }

    #[test]
    fn ensemble_of_a_group_is_invariant_and_normalised() {
        for mean in [Mean::Arithmetic, Mean::Geometric] {
            let mut e = SymmetricOracle::new(Lopsided, swap_group(), mean).unwrap();
            let x = [0.3f32, -1.2, 2.0, 0.5];
            let swapped = [-1.2f32, 0.3, 0.5, 2.0];
            let (p, q) = (ask(&mut e, &x), ask(&mut e, &swapped));
            for r in 0..2 {
                let total: f64 = p[3 * r..3 * r + 3].iter().map(|&l| f64::from(l).exp()).sum();
                assert!((total - 1.0).abs() < 1e-5, "{mean:?}: sums to {total}");
                // p(m | s) = p(σ(m) | σ(s)).
                for (m, sm) in [(0, 1), (1, 0), (2, 2)] {
                    assert!((p[3 * r + m] - q[3 * r + sm]).abs() < 1e-5, "{mean:?} row {r} move {m}");
                }
            }
            // The inner oracle alone is not invariant, so the test can fail.
            let (a, b) = (ask(&mut Lopsided, &x), ask(&mut Lopsided, &swapped));
            assert!((a[0] - b[1]).abs() > 0.1);
        }
    }

    #[test]
    fn arithmetic_mean_is_the_mixture() {
        let mut e = SymmetricOracle::new(Lopsided, swap_group(), Mean::Arithmetic).unwrap();
        let x = [0.7f32, 0.1];
        let (plain, swapped) = (ask(&mut Lopsided, &x), ask(&mut Lopsided, &[0.1, 0.7]));
        let got = ask(&mut e, &x);
        for (m, sm) in [(0, 1), (1, 0), (2, 2)] {
            let want = 0.5 * (f64::from(plain[m]).exp() + f64::from(swapped[sm]).exp());
            assert!((f64::from(got[m]).exp() - want).abs() < 1e-6);
        }
    }

    /// The same toy as a Q-distance oracle: the outputs are distances.
    struct LopsidedQ;

    impl Oracle for LopsidedQ {
        fn num_moves(&self) -> usize {
            3
        }
        fn kind(&self) -> OracleKind {
            OracleKind::QDistance
        }
        fn predict(&mut self, inputs: &[f32], rows: usize, out: &mut [f32]) -> Result<(), OracleError> {
            Lopsided.predict(inputs, rows, out)
        }
    }

    #[test]
    fn distances_are_averaged_plainly_with_the_move_map() {
        let mut e = SymmetricOracle::new(LopsidedQ, swap_group(), Mean::Arithmetic).unwrap();
        assert_eq!(e.kind(), OracleKind::QDistance);
        let x = [0.7f32, 0.1];
        let (plain, swapped) = (ask(&mut LopsidedQ, &x), ask(&mut LopsidedQ, &[0.1, 0.7]));
        let got = ask(&mut e, &x);
        for (m, sm) in [(0, 1), (1, 0), (2, 2)] {
            assert!((got[m] - 0.5 * (plain[m] + swapped[sm])).abs() < 1e-6, "move {m}");
        }
    }

    #[test]
    fn identity_alone_passes_through_and_bad_transforms_are_refused() {
        let id = vec![Transform { input: vec![0, 1], moves: vec![0, 1, 2] }];
        let mut e = SymmetricOracle::new(Lopsided, id, Mean::Arithmetic).unwrap();
        assert_eq!(ask(&mut e, &[0.2, 0.9]), ask(&mut Lopsided, &[0.2, 0.9]));
        let new = |t: Vec<Transform>| SymmetricOracle::new(Lopsided, t, Mean::Geometric).map(|_| ()).unwrap_err();
        assert_eq!(new(vec![]), TransformError::Empty);
        let t = |input: Vec<u32>, moves: Vec<MoveId>| Transform { input, moves };
        assert_eq!(new(vec![t(vec![0, 1], vec![0, 1])]), TransformError::MoveCount { index: 0, len: 2, moves: 3 });
        assert_eq!(
            new(vec![t(vec![0, 1], vec![0, 1, 2]), t(vec![0], vec![0, 1, 2])]),
            TransformError::InputLength { index: 1, len: 1, expected: 2 }
        );
        assert_eq!(
            new(vec![t(vec![0, 1], vec![0, 0, 2])]),
            TransformError::NotAPermutation { index: 0, what: "move map" }
        );
        assert_eq!(
            new(vec![t(vec![1, 1], vec![0, 1, 2])]),
            TransformError::NotAPermutation { index: 0, what: "input gather" }
        );
    }
}
