//! Search over any [`Puzzle`](crate::puzzle::Puzzle): beam search guided by
//! an oracle, and the classical searches (A*, greedy, uniform-cost, IDA*,
//! IDS, RBFS, BFS and heuristic beam search) guided by heuristics.
//!
//! Search code never depends on the neural-network stack: an [`Oracle`]
//! turns a batch of encoded states into move log-probabilities, and the
//! burn network is only one implementation of it (in `crate::learn::inference`).

pub mod beam;
pub mod beam_stats;
pub mod best_first;
pub mod breadth_first;
pub mod error;
pub mod expand;
pub mod heuristic_beam;
pub mod idastar;
pub mod kind;
pub mod korf;
pub mod oracle;
pub mod outcome;
pub mod parberry;
pub mod rbfs;
pub mod symmetric;
pub mod table;

pub use beam::{BeamConfig, BeamOutcome, DepthStats, beam_search, beam_search_until};
pub use best_first::{Priority, best_first};
pub use breadth_first::breadth_first;
pub use error::{OracleError, SearchError};
pub use heuristic_beam::heuristic_beam;
pub use idastar::ida_star;
pub use oracle::{Oracle, OracleKind};
pub use outcome::{Limits, SearchOutcome, Status, effective_branching_factor};
pub use rbfs::rbfs;
pub use table::DistanceTable;
