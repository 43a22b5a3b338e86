//! cube-oracle: learned search heuristics for permutation puzzles.
//!
//! The crate is layered, bottom up: exact puzzle models ([`cube3`],
//! [`cube2`], [`sliding`]) behind one [`puzzle::Puzzle`] trait and a seeded
//! [`scramble`] generator; [`heuristics`]; [`search`]; the learning layer
//! ([`learn`]: config, data, model, training, inference); and the
//! [`solve`] front end the binaries call. Puzzle, heuristic and search
//! modules never depend on the neural-network stack; see `ARCHITECTURE.md`.

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

pub mod checksum;
pub mod csvlog;
pub mod cube2;
pub mod cube3;
pub mod folder;
pub mod games;
pub mod heuristics;
pub mod information;
pub mod learn;
pub mod local;
pub mod plot;
pub mod powerlaw;
pub mod puzzle;
pub mod registry;
pub mod rundir;
pub mod scramble;
pub mod search;
pub mod sliding;
pub mod solve;
pub mod statistics;
pub mod study;
