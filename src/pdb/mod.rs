//! Pattern databases: dense tables of exact distances in an abstraction of a
//! puzzle, packed in memory and cached on disk.
//!
//! This module holds what every pattern database shares, whatever puzzle it
//! abstracts: the packed tables ([`NibbleTable`], 4 bits an entry, and
//! [`ByteTable`], one byte an entry), the on-disk cache with a checksum
//! ([`load_or_build`]), and the progress bar a long build prints. The tables
//! themselves (which abstraction, how it is ranked, how BFS fills it) live
//! with their puzzles. No burn.

pub mod store;

pub use store::{ByteTable, CacheOutcome, NibbleTable, Packed, build_progress, cache_dir, load_or_build};
