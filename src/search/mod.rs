//! Search over any [`Puzzle`](crate::puzzle::Puzzle), guided by an oracle.
//!
//! Search code never depends on the neural-network stack: an [`Oracle`]
//! turns a batch of encoded states into move log-probabilities, and the
//! burn network is only one implementation of it (in `crate::oracle`).

pub mod beam;
pub mod oracle;

pub use beam::{BeamConfig, BeamOutcome, DepthStats, beam_search};
pub use oracle::Oracle;
