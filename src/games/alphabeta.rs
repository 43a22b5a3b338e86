//! αβ pruning (the lecture's fail-soft form): minimax that carries the best
//! value MAX is already sure of (α) and the best value the MIN agents are
//! sure of (β), and stops searching a position's moves once its value can
//! no longer reach the root (`v ≥ β` where MAX moves, `v ≤ α` where MIN
//! moves). It returns the minimax value of the same tree and, searching
//! moves in the same order, the same best move as [`minimax()`](super::minimax());
//! it never visits more nodes. Consecutive MIN levels (several ghosts) need
//! nothing special: each MIN agent lowers β for the ones below it.
//!
//! **Move ordering.** αβ prunes most when the best move comes first (with
//! perfect ordering about `b^(d/2)` leaves instead of `b^d`).
//! [`Ordering::Static`] makes every child of a position, scores it with
//! its utility or the evaluation function, and searches the children best
//! first for the agent to move (ties keep the game's order). Those scores
//! are counted as `probes`. Positions whose children are leaves anyway (one
//! ply before the cutoff) are not reordered: probing them would cost as
//! much as searching them.

use super::Game;
use super::report::{Budget, Counts, Exceeded, SearchReport};
use std::time::Instant;

/// How αβ orders the moves of a position before searching them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ordering {
    /// The game's own move order.
    None,
    /// Best first by a one-ply static score (utility or evaluation).
    Static,
}

/// The αβ search state: counters, per-ply buffers, and for iterative
/// deepening the previous iteration's principal variation (`hint`) and the
/// one being built (`pv`).
pub(crate) struct AlphaBeta<'h, M> {
    pub counts: Counts,
    ordering: Ordering,
    buffers: Vec<Vec<M>>,
    /// Scratch space of [`AlphaBeta::order`] (one for all plies: ordering
    /// finishes before the search goes deeper).
    keyed: Vec<(f64, M)>,
    hint: &'h [M],
    track_pv: bool,
    pv: Vec<Vec<M>>,
}

impl<'h, M: Copy + PartialEq> AlphaBeta<'h, M> {
    /// A search from `game`'s position within `budget` with `ordering`
    /// that tries `hint[ply]` first along the hinted line, and records the
    /// principal variation if `track_pv`.
    pub fn new<G: Game<Move = M>>(game: &G, budget: Budget, ordering: Ordering, hint: &'h [M], track_pv: bool) -> Self {
        Self {
            counts: Counts::root(game, budget),
            ordering,
            buffers: Vec::new(),
            keyed: Vec::new(),
            hint,
            track_pv,
            pv: Vec::new(),
        }
    }

    /// The principal variation found from the root (empty unless tracked).
    pub fn principal_variation(&self) -> &[M] {
        self.pv.first().map_or(&[], Vec::as_slice)
    }

    /// Orders `moves` best first by their one-ply scores for the agent to
    /// move (a stable sort: ties keep the game's order).
    fn order<G: Game<Move = M>>(&mut self, game: &mut G, moves: &mut [M]) {
        let keyed = &mut self.keyed;
        keyed.clear();
        for &m in moves.iter() {
            let token = game.apply(m);
            self.counts.probes += 1;
            let key = game.utility().unwrap_or_else(|| game.evaluate());
            game.undo(m, token);
            keyed.push((key, m));
        }
        if game.max_to_move() {
            keyed.sort_by(|a, b| b.0.total_cmp(&a.0));
        } else {
            keyed.sort_by(|a, b| a.0.total_cmp(&b.0));
        }
        for (slot, &(_, m)) in moves.iter_mut().zip(keyed.iter()) {
            *slot = m;
        }
    }

    /// The fail-soft αβ value of `game` within `(alpha, beta)` and the move
    /// that gave it; `remaining` plies before the cutoff; `on_hint` while
    /// the moves so far follow the hinted line.
    pub fn search<G: Game<Move = M>>(
        &mut self,
        game: &mut G,
        ply: usize,
        remaining: Option<u32>,
        mut alpha: f64,
        mut beta: f64,
        on_hint: bool,
    ) -> (f64, Option<M>) {
        if self.track_pv {
            if self.pv.len() <= ply + 1 {
                self.pv.resize_with(ply + 2, Vec::new);
            }
            self.pv[ply].clear();
        }
        let mut moves = match self.counts.expand(game, &mut self.buffers, ply, remaining) {
            Ok(moves) => moves,
            Err(value) => return (value, None),
        };
        if self.ordering == Ordering::Static && remaining != Some(1) && moves.len() > 1 {
            self.order(game, &mut moves);
        }
        let mut hinted = false;
        if on_hint
            && let Some(h) = self.hint.get(ply)
            && let Some(i) = moves.iter().position(|m| m == h)
        {
            moves[..=i].rotate_right(1);
            hinted = true;
        }
        let max = game.max_to_move();
        let mut best = if max { f64::NEG_INFINITY } else { f64::INFINITY };
        let mut best_move = None;
        for (i, &m) in moves.iter().enumerate() {
            let token = game.apply(m);
            self.counts.nodes += 1;
            let child_hint = hinted && i == 0;
            let (v, _) = self.search(game, ply + 1, remaining.map(|d| d - 1), alpha, beta, child_hint);
            game.undo(m, token);
            if self.counts.stopped {
                break;
            }
            if best_move.is_none() || (max && v > best) || (!max && v < best) {
                best = v;
                best_move = Some(m);
                if self.track_pv {
                    let (head, tail) = self.pv.split_at_mut(ply + 1);
                    head[ply].clear();
                    head[ply].push(m);
                    head[ply].extend_from_slice(&tail[0]);
                }
            }
            if max {
                alpha = alpha.max(best);
                if best >= beta {
                    break;
                }
            } else {
                beta = beta.min(best);
                if best <= alpha {
                    break;
                }
            }
        }
        self.buffers[ply] = moves;
        (best, best_move)
    }
}

/// αβ from `game`'s position, to the end of the game (`depth: None`) or to
/// `depth` plies with the evaluation function at the limit, with the given
/// move ordering. The position is restored before returning. The value is
/// minimax's; with [`Ordering::None`] so is the best move (the first in
/// the game's order that attains the value); with ordering, the best move
/// attains the same value but may be another of equal value.
pub fn alpha_beta<G: Game>(game: &mut G, depth: Option<u32>, ordering: Ordering) -> SearchReport<G::Move> {
    match alpha_beta_within(game, depth, ordering, Budget::UNLIMITED) {
        Ok(report) => report,
        Err(_) => unreachable!("an unlimited budget is never exceeded"),
    }
}

/// [`alpha_beta`] within `budget`: [`Exceeded`] once it has made more
/// positions than that (the position is restored either way).
///
/// # Errors
/// The budget ran out before the search finished.
pub fn alpha_beta_within<G: Game>(
    game: &mut G,
    depth: Option<u32>,
    ordering: Ordering,
    budget: Budget,
) -> Result<SearchReport<G::Move>, Exceeded> {
    let start = Instant::now();
    let mut s = AlphaBeta::new(game, budget, ordering, &[], false);
    let (value, best_move) = s.search(game, 0, depth, f64::NEG_INFINITY, f64::INFINITY, false);
    s.counts.finish(value, best_move, depth, start.elapsed())
}
