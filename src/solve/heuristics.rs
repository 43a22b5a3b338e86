//! Heuristics by name, as `solve --heuristic` spells them.
//!
//! A name resolves to a boxed [`Heuristic`] for the chosen puzzle:
//! `zero`, `misplaced`, `manhattan`, `linear-conflict` and the others of
//! [`crate::sliding::heuristics`], the additive pattern databases `pdb-…`,
//! and `max(a,b,…)` of any of them. [`DynHeuristic`] lets the generic
//! searches run with a heuristic chosen at run time.

use crate::puzzle::{MoveId, Puzzle};
use crate::search::{Heuristic, Zero};
use crate::sliding::Sliding;
use crate::sliding::heuristics::{LinearConflict, Manhattan, Misplaced};
use anyhow::{Result, bail};
use std::path::Path;

/// A heuristic chosen at run time, behind a reference.
pub struct DynHeuristic<'a, P: Puzzle>(pub &'a (dyn Heuristic<P> + Send + Sync));

impl<P: Puzzle> Heuristic<P> for DynHeuristic<'_, P> {
    #[inline]
    fn estimate(&self, puzzle: &P, s: &P::State) -> u32 {
        self.0.estimate(puzzle, s)
    }
    #[inline]
    fn estimate_child(&self, puzzle: &P, child: &P::State, m: MoveId, parent_h: u32) -> u32 {
        self.0.estimate_child(puzzle, child, m, parent_h)
    }
    fn name(&self) -> String {
        self.0.name()
    }
    fn admissible(&self) -> bool {
        self.0.admissible()
    }
}

/// `k` times another heuristic: the weighted heuristic of weighted A*,
/// not admissible for `k > 1` (optimal methods refuse it).
pub struct Scaled<H> {
    /// The weight.
    pub k: u32,
    /// The heuristic weighted.
    pub inner: H,
}

impl<P: Puzzle, H: Heuristic<P>> Heuristic<P> for Scaled<H> {
    fn estimate(&self, puzzle: &P, s: &P::State) -> u32 {
        self.k * self.inner.estimate(puzzle, s)
    }
    fn name(&self) -> String {
        format!("{}*{}", self.k, self.inner.name())
    }
    fn admissible(&self) -> bool {
        self.k <= 1 && self.inner.admissible()
    }
}

/// An owned boxed heuristic (so boxes can be nested in combinators).
pub struct BoxedHeuristic<P: Puzzle>(pub Box<dyn Heuristic<P> + Send + Sync>);

impl<P: Puzzle> Heuristic<P> for BoxedHeuristic<P> {
    #[inline]
    fn estimate(&self, puzzle: &P, s: &P::State) -> u32 {
        self.0.estimate(puzzle, s)
    }
    #[inline]
    fn estimate_child(&self, puzzle: &P, child: &P::State, m: MoveId, parent_h: u32) -> u32 {
        self.0.estimate_child(puzzle, child, m, parent_h)
    }
    fn name(&self) -> String {
        self.0.name()
    }
    fn admissible(&self) -> bool {
        self.0.admissible()
    }
}

/// Names `solve --heuristic` accepts for sliding puzzles.
pub const SLIDING_NAMES: &str = "zero, misplaced, manhattan, linear-conflict, K*NAME (weighted, K an integer)";

/// The sliding-puzzle heuristic called `spec` for puzzle `p`; pattern
/// databases are loaded from (or built into) `cache`.
///
/// # Errors
/// An unknown name (the message lists the known ones).
pub fn sliding_heuristic(
    p: &Sliding,
    spec: &str,
    cache: Option<&Path>,
) -> Result<Box<dyn Heuristic<Sliding> + Send + Sync>> {
    let name = spec.trim().to_ascii_lowercase();
    if let Some((k, rest)) = name.split_once('*') {
        let k: u32 =
            k.trim().parse().map_err(|_| anyhow::anyhow!("--heuristic {spec}: weight `{k}` is not a whole number"))?;
        let inner = sliding_heuristic(p, rest, cache)?;
        return Ok(Box::new(Scaled { k, inner: BoxedHeuristic(inner) }));
    }
    Ok(match name.as_str() {
        "zero" => Box::new(Zero),
        "misplaced" | "h1" => Box::new(Misplaced::new(p)),
        "manhattan" | "h2" => Box::new(Manhattan::new(p)),
        "linear-conflict" | "lc" => Box::new(LinearConflict::new(p)),
        _ => bail!("--heuristic {spec}: unknown heuristic for {}; expected one of {SLIDING_NAMES}", p.name()),
    })
}
