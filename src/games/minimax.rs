//! Minimax (the lecture's MINIMAX): the value of a position is the largest
//! child value where MAX moves and the smallest where a MIN agent moves;
//! terminal positions score their utility, and with a depth limit the
//! positions at the limit score the evaluation function. Every child of
//! every expanded position is searched, in the game's move order.

use super::Game;
use super::report::{Budget, Counts, Exceeded, SearchReport};
use std::time::Instant;

struct Minimax<M> {
    counts: Counts,
    buffers: Vec<Vec<M>>,
}

impl<M: Copy> Minimax<M> {
    /// The value of `game` and its best move (the first that attains it in
    /// move order); `remaining` plies before the cutoff.
    fn search<G: Game<Move = M>>(&mut self, game: &mut G, ply: usize, remaining: Option<u32>) -> (f64, Option<M>) {
        let moves = match self.counts.expand(game, &mut self.buffers, ply, remaining) {
            Ok(moves) => moves,
            Err(value) => return (value, None),
        };
        let max = game.max_to_move();
        let mut best = if max { f64::NEG_INFINITY } else { f64::INFINITY };
        let mut best_move = None;
        for &m in &moves {
            let token = game.apply(m);
            self.counts.nodes += 1;
            let (v, _) = self.search(game, ply + 1, remaining.map(|d| d - 1));
            game.undo(m, token);
            if self.counts.stopped {
                break;
            }
            if best_move.is_none() || (max && v > best) || (!max && v < best) {
                best = v;
                best_move = Some(m);
            }
        }
        self.buffers[ply] = moves;
        (best, best_move)
    }
}

/// Minimax from `game`'s position, to the end of the game (`depth: None`)
/// or to `depth` plies with the evaluation function at the limit. The
/// position is restored before returning. Ties go to the first move in the
/// game's order.
pub fn minimax<G: Game>(game: &mut G, depth: Option<u32>) -> SearchReport<G::Move> {
    match minimax_within(game, depth, Budget::UNLIMITED) {
        Ok(report) => report,
        Err(_) => unreachable!("an unlimited budget is never exceeded"),
    }
}

/// [`minimax()`] within `budget`: [`Exceeded`] once it has made more
/// positions than that (the position is restored either way).
///
/// # Errors
/// The budget ran out before the search finished.
pub fn minimax_within<G: Game>(
    game: &mut G,
    depth: Option<u32>,
    budget: Budget,
) -> Result<SearchReport<G::Move>, Exceeded> {
    let start = Instant::now();
    let mut s = Minimax { counts: Counts::root(game, budget), buffers: Vec::new() };
    let (value, best_move) = s.search(game, 0, depth);
    s.counts.finish(value, best_move, depth, start.elapsed())
}
