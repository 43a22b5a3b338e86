//! Iterative deepening: αβ to depth 1, 2, 3, … plies, each iteration
//! searching the previous one's principal variation (its best line) first,
//! and the other moves in the chosen [`Ordering`]. The last iteration's
//! value is plain αβ's at that depth; the cost is the sum over all
//! iterations, which good ordering can bring close to (or below) one
//! unordered search to the final depth. It also leaves an answer for every
//! depth reached, which is what a player under a clock needs — and what a
//! search stopped by its [`Budget`] still has: the iterations it finished.

use super::Game;
use super::alphabeta::{AlphaBeta, Ordering};
use super::report::{Budget, Exceeded, SearchReport};
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
    /// Set when the budget ran out during iteration `iterations.len() + 1`
    /// (whose partial counts are not in `iterations`): the work of all
    /// iterations, the stopped one included.
    pub stopped: Option<Exceeded>,
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
        sum.made = done.iter().map(|r| r.made).sum();
        sum.elapsed = done.iter().map(|r| r.elapsed).sum::<Duration>();
        Some(sum)
    }
}

/// Iterative deepening one iteration at a time (for [`iterative_deepening_within`]
/// and the node-count table, which interleaves it with other searches).
pub(crate) struct Deepener<M> {
    /// The iterations so far.
    pub deepening: Deepening<M>,
    /// Whether the last iteration met no depth limit (deeper ones would
    /// repeat it).
    pub exhausted: bool,
    ordering: Ordering,
}

impl<M: Copy + PartialEq> Deepener<M> {
    pub fn new(ordering: Ordering) -> Self {
        let deepening = Deepening { iterations: Vec::new(), principal_variation: Vec::new(), stopped: None };
        Self { deepening, exhausted: false, ordering }
    }

    /// Runs the next iteration within `budget` and keeps its report and
    /// principal variation; on [`Exceeded`] keeps nothing of it.
    pub fn step<G: Game<Move = M>>(&mut self, game: &mut G, budget: Budget) -> Result<(), Exceeded> {
        let d = &mut self.deepening;
        let depth = d.iterations.len() as u32 + 1;
        let start = Instant::now();
        let mut s = AlphaBeta::new(game, budget, self.ordering, &d.principal_variation, true);
        let (value, best_move) = s.search(game, 0, Some(depth), f64::NEG_INFINITY, f64::INFINITY, true);
        let next_pv = s.principal_variation().to_vec();
        let report = s.counts.finish(value, best_move, Some(depth), start.elapsed())?;
        self.exhausted = report.horizon_leaves == 0;
        d.iterations.push(report);
        d.principal_variation = next_pv;
        Ok(())
    }
}

/// Iterative-deepening αβ from `game`'s position up to `max_depth` plies
/// (`None`: until the game tree is exhausted). It stops early once an
/// iteration meets no depth limit (no horizon leaf): the whole game then
/// fits in the depth, and deeper iterations would repeat it. Without a
/// `max_depth` the game tree must be finite, or this does not return
/// (see [`iterative_deepening_within`]).
/// The position is restored before returning.
pub fn iterative_deepening<G: Game>(game: &mut G, max_depth: Option<u32>, ordering: Ordering) -> Deepening<G::Move> {
    iterative_deepening_within(game, max_depth, ordering, Budget::UNLIMITED)
}

/// [`iterative_deepening`] within `budget`, shared by all its iterations:
/// once an iteration would take the total past it, that iteration is
/// dropped and the search ends with [`Deepening::stopped`] set; the
/// iterations before it are complete (their values are exact for their
/// depths).
pub fn iterative_deepening_within<G: Game>(
    game: &mut G,
    max_depth: Option<u32>,
    ordering: Ordering,
    budget: Budget,
) -> Deepening<G::Move> {
    let mut s = Deepener::new(ordering);
    let (mut made, mut nodes) = (0u64, 0u64);
    let start = Instant::now();
    while !s.exhausted && max_depth.is_none_or(|d| s.deepening.iterations.len() < d as usize) {
        match s.step(game, Budget(budget.0.saturating_sub(made))) {
            Ok(()) => {
                let last = s.deepening.iterations.last().map_or((0, 0), |r| (r.made, r.nodes));
                made = made.saturating_add(last.0);
                nodes = nodes.saturating_add(last.1);
            }
            Err(e) => {
                s.deepening.stopped = Some(Exceeded {
                    budget: budget.0,
                    made: made.saturating_add(e.made),
                    nodes: nodes.saturating_add(e.nodes),
                    elapsed: start.elapsed(),
                });
                break;
            }
        }
    }
    s.deepening
}
