//! Expanding a node, as every classical search does it: each move that is
//! applicable and that the last moves do not make redundant, applied to a
//! copy of the state.

use crate::puzzle::{MoveId, Puzzle, Recent};

/// The children of `state` after the moves `recent`: `(move, child)` in
/// move-id order.
pub fn children<'a, P: Puzzle>(
    puzzle: &'a P,
    state: &'a P::State,
    recent: Recent,
) -> impl Iterator<Item = (MoveId, P::State)> + 'a {
    (0..puzzle.num_moves() as MoveId)
        .filter(move |&m| puzzle.is_applicable(state, m) && !puzzle.is_redundant(recent, m))
        .map(move |m| {
            let mut child = state.clone();
            puzzle.apply(&mut child, m);
            (m, child)
        })
}
