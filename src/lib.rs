//! cube-oracle: learned search heuristics for permutation puzzles.
//!
//! The crate is layered: exact puzzle models ([`cube3`], [`sliding`]) behind
//! one [`puzzle::Puzzle`] trait, a seeded [`scramble`] generator that makes
//! the self-supervised training data, and (in later layers) search and
//! learning code. Puzzle and search modules never depend on the neural
//! network stack; see `ARCHITECTURE.md`.

pub mod backend;
pub mod checksum;
pub mod config;
pub mod csvlog;
pub mod cube3;
pub mod data;
pub mod folder;
pub mod heuristics;
pub mod information;
pub mod model;
pub mod oracle;
pub mod plot;
pub mod puzzle;
pub mod rundir;
pub mod scramble;
pub mod search;
pub mod sliding;
pub mod solve;
pub mod statistics;
pub mod train;
