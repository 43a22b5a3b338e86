//! What a game search reports: the value of the root, the best move of the
//! agent to move there, and the work done, counted the same way by every
//! search so that the counts can be set side by side.
//!
//! **Counting.** `nodes` counts every position the search visits, the root
//! included: for minimax without a depth limit that is the size of the full
//! game tree (549,946 for tic-tac-toe). A move that αβ never makes because
//! of a cutoff is not counted. `expanded` counts visited positions whose
//! moves were listed and searched; `leaves` the visited positions scored
//! instead, by [`Game::utility`](super::Game::utility) when terminal or by
//! [`Game::evaluate`](super::Game::evaluate) at the depth limit
//! (`horizon_leaves` of them). `probes` counts children made and scored only
//! to order moves (αβ with ordering); they are not part of `nodes`.
//!
//! **Budget.** A search can be given a budget of positions ([`Budget`]):
//! it counts every position it *makes* — the root, and every legal move
//! listed at an expanded position, whether that child is then searched,
//! probed for ordering or pruned by αβ (listing it is work either way) —
//! weighted by [`Game::work_per_position`](super::Game::work_per_position).
//! For minimax on a game of weight 1 that is exactly `nodes`. A search
//! that would make more stops at once and reports [`Exceeded`] instead of
//! a value.

use super::Game;
use std::time::Duration;

/// The outcome of one game search.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchReport<M> {
    /// The root's value from MAX's view (exact minimax value of the tree
    /// searched, the depth-limited tree when a depth is given).
    pub value: f64,
    /// The move of the agent to move at the root that attains `value`
    /// (MAX's maximum or a MIN agent's minimum); `None` at a terminal root.
    pub best_move: Option<M>,
    /// The depth limit in plies (`None`: to the end of the game).
    pub depth: Option<u32>,
    /// Positions visited, the root included.
    pub nodes: u64,
    /// Positions whose moves were searched.
    pub expanded: u64,
    /// Positions scored without search (terminal, or at the depth limit).
    pub leaves: u64,
    /// Of the leaves, the non-terminal ones scored by the evaluation
    /// function at the depth limit.
    pub horizon_leaves: u64,
    /// Children made and scored only to order moves (not in `nodes`).
    pub probes: u64,
    /// Positions made, weighted: the unit of a [`Budget`] (see the module
    /// documentation).
    pub made: u64,
    /// Wall time.
    pub elapsed: Duration,
}

/// The most positions a search may make (see the module documentation).
/// `Budget::UNLIMITED` never stops a search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget(pub u64);

impl Budget {
    /// No limit.
    pub const UNLIMITED: Budget = Budget(u64::MAX);
}

/// A search stopped by its [`Budget`] before it finished: what it had done
/// by then. It has no value: a partly searched tree has none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exceeded {
    /// The budget.
    pub budget: u64,
    /// Positions made (weighted) when it stopped: more than `budget`.
    pub made: u64,
    /// Positions visited by then.
    pub nodes: u64,
    /// Wall time until it stopped.
    pub elapsed: Duration,
}

/// The counters a search keeps while it runs, and its budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Counts {
    pub nodes: u64,
    pub expanded: u64,
    pub leaves: u64,
    pub horizon_leaves: u64,
    pub probes: u64,
    /// Positions made, weighted by `weight`.
    pub made: u64,
    /// The budget on `made`.
    limit: u64,
    /// What one position made costs.
    weight: u64,
    /// Set once `made` passed `limit`: every search level returns at once.
    pub stopped: bool,
}

impl Counts {
    /// The counters of a search from `game`'s position (the root counted)
    /// within `budget`.
    pub(crate) fn root<G: Game>(game: &G, budget: Budget) -> Self {
        let weight = game.work_per_position().max(1);
        Self {
            nodes: 1,
            expanded: 0,
            leaves: 0,
            horizon_leaves: 0,
            probes: 0,
            made: weight,
            limit: budget.0,
            weight,
            stopped: weight > budget.0,
        }
    }

    /// The report of a search that finished, or what it had done when the
    /// budget stopped it.
    pub(crate) fn finish<M>(
        self,
        value: f64,
        best_move: Option<M>,
        depth: Option<u32>,
        elapsed: Duration,
    ) -> Result<SearchReport<M>, Exceeded> {
        if self.stopped {
            return Err(Exceeded { budget: self.limit, made: self.made, nodes: self.nodes, elapsed });
        }
        Ok(SearchReport::new(value, best_move, depth, self, elapsed))
    }

    /// Where a search stops at `game` without expanding it: a terminal
    /// position scores its utility, the depth limit (`remaining == Some(0)`)
    /// its evaluation; either way it is counted as a leaf. `None` means
    /// the search goes on below.
    fn stop<G: Game>(&mut self, game: &G, remaining: Option<u32>) -> Option<f64> {
        if let Some(u) = game.utility() {
            self.leaves += 1;
            return Some(u);
        }
        if remaining == Some(0) {
            return Some(self.dead_end(game));
        }
        None
    }

    /// The moves to search at `game` (`buffers[ply]`'s storage, counted as
    /// an expansion), or `Err(value)` where the search stops there: see
    /// [`Counts::stop`] and [`Counts::dead_end`].
    pub(crate) fn expand<G: Game>(
        &mut self,
        game: &G,
        buffers: &mut Vec<Vec<G::Move>>,
        ply: usize,
        remaining: Option<u32>,
    ) -> Result<Vec<G::Move>, f64> {
        if self.stopped {
            return Err(0.0);
        }
        if let Some(v) = self.stop(game, remaining) {
            return Err(v);
        }
        let mut moves = take_buffer(buffers, ply);
        game.moves(&mut moves);
        if moves.is_empty() {
            buffers[ply] = moves;
            return Err(self.dead_end(game));
        }
        self.made = self.made.saturating_add((moves.len() as u64).saturating_mul(self.weight));
        if self.made > self.limit {
            // Out of budget: no value below here means anything; the
            // callers see `stopped` and return without looking at it.
            self.stopped = true;
            buffers[ply] = moves;
            return Err(0.0);
        }
        self.expanded += 1;
        Ok(moves)
    }

    /// A position scored by its evaluation rather than expanded (the depth
    /// limit, or a game breaking the contract: no move, not terminal).
    fn dead_end<G: Game>(&mut self, game: &G) -> f64 {
        self.leaves += 1;
        self.horizon_leaves += 1;
        game.evaluate()
    }
}

impl<M> SearchReport<M> {
    pub(crate) fn new(value: f64, best_move: Option<M>, depth: Option<u32>, c: Counts, elapsed: Duration) -> Self {
        Self {
            value,
            best_move,
            depth,
            nodes: c.nodes,
            expanded: c.expanded,
            leaves: c.leaves,
            horizon_leaves: c.horizon_leaves,
            probes: c.probes,
            made: c.made,
            elapsed,
        }
    }
}

/// Takes the move buffer of `ply` out of `buffers` (growing it as needed),
/// so that a recursive search reuses one allocation per ply.
pub(crate) fn take_buffer<T>(buffers: &mut Vec<Vec<T>>, ply: usize) -> Vec<T> {
    if buffers.len() <= ply {
        buffers.resize_with(ply + 1, Vec::new);
    }
    std::mem::take(&mut buffers[ply])
}
