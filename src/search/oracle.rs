//! The [`Oracle`] interface: batched move log-probabilities.
//!
//! An oracle predicts, for a state, the distribution of the move that
//! *produced* it in a reverse random walk from the goal; search applies
//! the inverse of that move. Implementations receive encoded states (the
//! puzzle's own encoding, `rows × encoded_len` floats) and write
//! `rows × moves` natural-log probabilities.

/// A batched policy over moves.
pub trait Oracle {
    /// Number of moves (columns of the output).
    fn num_moves(&self) -> usize;

    /// Writes `ln p(m | state)` for each of the `rows` encoded states in
    /// `inputs` into `out` (`rows × num_moves`, row-major).
    ///
    /// # Errors
    /// When the implementation cannot evaluate the batch (say, a device
    /// error); the search stops with [`super::SearchError::Oracle`].
    fn log_probs(&mut self, inputs: &[f32], rows: usize, out: &mut [f32]) -> Result<(), super::OracleError>;
}
