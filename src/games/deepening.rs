//! Iterative deepening: αβ to depth 1, 2, 3, … plies, each iteration
//! searching the previous one's principal variation (its best line) first,
//! and the other moves in the chosen [`Ordering`]. The last iteration's
//! value is plain αβ's at that depth; the cost is the sum over all
//! iterations, which good ordering can bring close to (or below) one
//! unordered search to the final depth. It also leaves an answer for every
//! depth reached, which is what a player under a clock needs.

use super::Game;
use super::alphabeta::{AlphaBeta, Ordering};
use super::report::SearchReport;
use std::time::{Duration, Instant};

/// The iterations of one iterative-deepening search.
#[derive(Clone, Debug, PartialEq)]
pub struct Deepening<M> {
    /// One report per iteration, depth 1 first (counts of that iteration
    /// alone).
    pub iterations: Vec<SearchReport<M>>,
    /// The last iteration's principal variation: the best move of every
    /// agent in turn from the root.
    pub principal_variation: Vec<M>,
}

impl<M: Copy> Deepening<M> {
    /// The deepest iteration's value and move with the counts and time of
    /// all iterations summed (`None` if there was no iteration).
    #[must_use]
    pub fn total(&self) -> Option<SearchReport<M>> {
        self.total_to(self.iterations.len())
    }

    /// As [`total`](Self::total) for the first `n` iterations: what a
    /// search stopped after depth `n` would have reported.
    #[must_use]
    pub fn total_to(&self, n: usize) -> Option<SearchReport<M>> {
        let done = &self.iterations[..n.min(self.iterations.len())];
        let last = done.last()?;
        let mut sum = last.clone();
        sum.nodes = done.iter().map(|r| r.nodes).sum();
        sum.expanded = done.iter().map(|r| r.expanded).sum();
        sum.leaves = done.iter().map(|r| r.leaves).sum();
        sum.horizon_leaves = done.iter().map(|r| r.horizon_leaves).sum();
        sum.probes = done.iter().map(|r| r.probes).sum();
        sum.elapsed = done.iter().map(|r| r.elapsed).sum::<Duration>();
        Some(sum)
    }
}

/// Iterative-deepening αβ from `game`'s position up to `max_depth` plies
/// (`None`: until the game tree is exhausted). It stops early once an
/// iteration meets no depth limit (no horizon leaf): the whole game then
/// fits in the depth, and deeper iterations would repeat it. Without a
/// `max_depth` the game tree must be finite, or this does not return.
/// The position is restored before returning.
pub fn iterative_deepening<G: Game>(game: &mut G, max_depth: Option<u32>, ordering: Ordering) -> Deepening<G::Move> {
    let mut iterations = Vec::new();
    let mut pv: Vec<G::Move> = Vec::new();
    let mut depth = 1;
    while max_depth.is_none_or(|d| depth <= d) {
        let start = Instant::now();
        let mut s = AlphaBeta::new(ordering, &pv, true);
        let (value, best_move) = s.search(game, 0, Some(depth), f64::NEG_INFINITY, f64::INFINITY, true);
        let next_pv = s.principal_variation().to_vec();
        let report = SearchReport::new(value, best_move, Some(depth), s.counts, start.elapsed());
        let exhausted = report.horizon_leaves == 0;
        iterations.push(report);
        pv = next_pv;
        if exhausted {
            break;
        }
        depth += 1;
    }
    Deepening { iterations, principal_variation: pv }
}
