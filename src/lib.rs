//! cube-oracle: learned search heuristics for permutation puzzles.
//!
//! The crate is layered, bottom up: exact puzzle models ([`cube3`],
//! [`cube2`], [`sliding`]) behind one [`puzzle::Puzzle`] trait and a seeded
//! [`scramble`] generator; [`heuristics`]; [`search`]; the learning layer
//! ([`learn`]: config, data, model, training, inference); and the
//! [`solve`] front end the binaries call. Puzzle, heuristic and search
//! modules never depend on the neural-network stack, and the build enforces
//! it: without the default features (`--no-default-features`) only those
//! layers are compiled, with neither burn nor polars nor plotters; feature
//! `tables` adds the CSV tables ([`csvlog`], through polars) and `learn`
//! everything above (see `Cargo.toml` and `ARCHITECTURE.md`).

/// `println!` that ignores a closed standard output (a pipe whose reader
/// has gone, as in `solve … | head -1`): every result goes to files, and a
/// console line must never turn into a panic that loses them.
#[macro_export]
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

pub mod bounded;
pub mod checksum;
#[cfg(feature = "tables")]
pub mod csvlog;
pub mod cube2;
pub mod cube3;
pub mod folder;
pub mod games;
pub mod heuristics;
pub mod information;
pub mod kernels;
#[cfg(feature = "learn")]
pub mod learn;
pub mod local;
#[cfg(feature = "learn")]
pub mod plot;
pub mod powerlaw;
pub mod puzzle;
pub mod registry;
pub mod revision;
pub mod rundir;
pub mod scramble;
pub mod search;
pub mod sliding;
#[cfg(feature = "learn")]
pub mod solve;
pub mod statistics;
#[cfg(feature = "learn")]
pub mod study;
