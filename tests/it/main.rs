//! The integration tests, as one test binary (one link of the crate instead
//! of one per file): each module is a former `tests/<name>.rs`, and `common`
//! holds the helpers they share. Run one module with
//! `cargo test --release --test it <module>::`. The modules of the lower
//! layers (puzzles, search, heuristics, games, local search) also build and
//! run without the default features (`cargo test --no-default-features`),
//! with neither burn nor polars; the others need the feature `learn`.

#[cfg_attr(not(feature = "learn"), allow(dead_code, unused_imports))]
mod common;

mod beam;
mod classical;
#[cfg(feature = "learn")]
mod configs;
#[cfg(feature = "learn")]
mod cube2;
mod cube3;
mod cube3_optimal;
#[cfg(feature = "learn")]
mod finetune;
#[cfg(feature = "learn")]
mod fuzz;
mod games;
mod heuristics;
#[cfg(feature = "learn")]
mod inference_precision;
#[cfg(feature = "learn")]
mod inputs;
mod local_search;
#[cfg(feature = "learn")]
mod oracle_kinds;
#[cfg(feature = "learn")]
mod parberry;
mod pdb;
#[cfg(feature = "learn")]
mod play;
#[cfg(feature = "learn")]
mod puzzle15;
#[cfg(feature = "learn")]
mod puzzle8;
#[cfg(feature = "learn")]
mod reliability;
mod scramble;
mod shipped;
mod sliding;
#[cfg(feature = "learn")]
mod solve;
#[cfg(feature = "learn")]
mod solve_classical;
#[cfg(feature = "learn")]
mod study;
#[cfg(feature = "learn")]
mod symmetry;
#[cfg(feature = "learn")]
mod train;
#[cfg(feature = "learn")]
mod walks;
