//! Heuristics in one place: the [`Heuristic`] trait (an estimate of the
//! distance to the goal, with its admissibility), the combinators, the
//! sliding-puzzle heuristics ([`sliding`]), the additive pattern databases
//! of the sliding puzzle ([`sliding_pdb`]), Korf's cube databases
//! ([`korf`]), and the checksummed table store they share ([`store`]).
//!
//! Heuristics sit between the puzzle models, which know nothing of them, and
//! the searches, which take any heuristic through the trait. No burn.

pub mod error;
pub mod heuristic;
pub mod korf;
pub mod sliding;
pub mod sliding_pdb;
pub mod store;

pub use error::HeuristicError;
pub use heuristic::{Heuristic, MaxOf, Zero};
