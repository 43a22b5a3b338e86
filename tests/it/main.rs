//! The integration tests, as one test binary (one link of the crate instead
//! of one per file): each module is a former `tests/<name>.rs`, and `common`
//! holds the helpers they share. Run one module with
//! `cargo test --release --test it <module>::`.

mod common;

mod beam;
mod classical;
mod configs;
mod cube2;
mod cube3;
mod cube3_optimal;
mod fuzz;
mod games;
mod heuristics;
mod inference_precision;
mod local_search;
mod oracle_kinds;
mod parberry;
mod pdb;
mod play;
mod puzzle15;
mod puzzle8;
mod reliability;
mod scramble;
mod sliding;
mod solve;
mod solve_classical;
mod study;
mod symmetry;
mod train;
mod walks;
