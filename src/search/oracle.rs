//! The [`Oracle`] interface: what a learned network tells search, in
//! batches; what each kind of answer means is [`super::kind`].
//!
//! Every kind is trained from reverse random walks: a state reached after
//! `k` moves of a walk from the goal, by move `m`. A **policy** predicts
//! the distribution of `m` (the move that *produced* the state; search
//! applies its inverse). A **Q-distance** oracle predicts, for every move
//! `m`, the distance to the goal of the child reached by undoing `m`
//! (`s·m⁻¹`), regressed on `k − 1` for the walk's own move. A **value**
//! oracle predicts the state's own distance, regressed on `k`.
//! Implementations receive encoded states (the puzzle's own encoding,
//! `rows × encoded_len` floats) and write `rows × outputs` floats, where
//! `outputs` is the move count for a policy or a Q oracle and 1 for a value
//! oracle. Columns are indexed by the *producing* move for both per-move
//! kinds, so search treats them alike.

pub use super::kind::OracleKind;

/// Oracle calls take at most this many rows unless the oracle asks for
/// more ([`Oracle::batch_rows`]), bounding the input buffer.
pub const ORACLE_CHUNK: usize = 4096;

/// A batched oracle over a puzzle's moves.
pub trait Oracle {
    /// Number of moves of the puzzle it was trained on.
    fn num_moves(&self) -> usize;

    /// What the outputs mean: move log-probabilities, Q-distances or values.
    /// Every oracle says which; nothing is assumed.
    fn kind(&self) -> OracleKind;

    /// Writes the predictions for each of the `rows` encoded states in
    /// `inputs` into `out` (`rows × kind().outputs(num_moves())`,
    /// row-major): log-probabilities, Q-distances or values.
    ///
    /// # Errors
    /// When the implementation cannot evaluate the batch (say, a device
    /// error); the search stops with [`super::SearchError::Oracle`].
    fn predict(&mut self, inputs: &[f32], rows: usize, out: &mut [f32]) -> Result<(), super::OracleError>;

    /// The most rows a search should send in one [`Oracle::predict`] call:
    /// [`ORACLE_CHUNK`] unless the oracle answers larger
    /// batches better (a network on a GPU, where each call is a round trip).
    fn batch_rows(&self) -> usize {
        ORACLE_CHUNK
    }
}
