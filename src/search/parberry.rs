//! Parberry's real-time algorithm for the (n²−1)-puzzle (I. Parberry, "A
//! real-time algorithm for the (n²−1)-puzzle", Information Processing
//! Letters 56 (1995) 23–28), on [`Grid`]s of any width `2 ≤ n ≤ 256`.
//!
//! **The algorithm.** Divide and conquer without search: on an n×n board
//! (`n ≥ 4`) put the top row in place tile by tile, then the left column,
//! and go on with the (n−1)×(n−1) board below and to the right of them,
//! never touching a placed tile again; a 3×3 board (or a whole board of
//! width 2 or 3) is solved exactly, by the path down a breadth-first
//! distance table of all 181,440 (or 12) positions, so that last stage is
//! optimal. A column is placed by the same code as a row, on the transposed
//! view of the board ([`View`]).
//!
//! **Placing a line** of `w` tiles at the top of an `h × w` region: the
//! first `w − 2` tiles go straight to their cells, left to right. A tile
//! travels one cell at a time toward its cell; before each step the blank
//! is brought to the cell ahead of it without crossing the tile or a
//! placed tile, then the two swap. Of the (at most two) cells that bring
//! the tile closer, the one the blank reaches in fewer moves is taken, so
//! a diagonal trip alternates and costs 3 moves a cell, a straight one 5.
//! The last two tiles `a` (for cell `w−2`) and `b` (for cell `w−1`) cannot
//! be placed one after the other; `a` goes to the corner `w−1` first, `b`
//! right under it, the blank to `w−2`, and two moves (`R`, `D` in the
//! region's frame) slide both home. If `b` is caught in the pocket at
//! `w−2` beside `a`, a fixed 17-move sequence ([`POCKET_FIX`], found by
//! breadth-first search over the 120 placements of `a`, `b` and the blank in
//! the 3×2 block under them) puts both home instead.
//!
//! **Real time.** Nothing above the 3×3 stage is searched: every blank
//! route is chosen among at most eight paths with one or two turns (the
//! L-shapes and the detours one row or column beside the tile), checked
//! cell by cell, so the work is proportional to the moves made. A
//! breadth-first search over the free cells of the region is kept as a
//! safety net for a route none of those paths serves; [`Solution`]
//! reports how often it ran (`bfs_routes`; zero on every board of the tests
//! and of `docs/parberry.md`).
//!
//! **Bound.** Parberry proves at most 5n³ + O(n²) moves in the worst case
//! (in the form 5n³ − 9n²/2 + O(n) as quoted by Utsunomiya & Asahiro,
//! IJICA 8 (2017) 133–148); [`bound`] is the leading term 5n³, which the
//! paper's bound stays below once n is large. Parberry later showed the
//! mean on random boards is 8n³/3 + O(n²) ("Solving the (n²−1)-puzzle with
//! 8/3 n³ expected moves", Algorithms 8 (2015) 459–465).
//!
//! Every solution is replayed on the start board and must end on the goal
//! before it is returned; a failure there is a bug and reported as
//! [`ParberryError::Internal`], never as a solution.

use crate::puzzle::{MoveId, Puzzle};
use crate::search::DistanceTable;
use crate::sliding::grid::{Grid, GridError};
use crate::sliding::{Board, DOWN, Goal, LEFT, RIGHT, Sliding, UP};
use std::collections::VecDeque;
use thiserror::Error;

/// Why [`Parberry::solve`] returned no solution.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ParberryError {
    /// The board cannot reach the goal (the parity rule it breaks), or a
    /// solution did not replay.
    #[error(transparent)]
    Grid(#[from] GridError),
    /// An internal invariant failed: a bug, never a result.
    #[error("BUG in Parberry's algorithm on a {n}×{n} board: {what}")]
    Internal {
        /// The width.
        n: usize,
        /// What went wrong.
        what: String,
    },
}

/// The leading term of Parberry's worst-case bound, `5n³` moves.
#[must_use]
pub fn bound(n: usize) -> u64 {
    5 * (n as u64).pow(3)
}

/// A solution and where its moves went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    /// The moves (ids `0..4`, `U D L R`, the blank's direction), replayed
    /// to the goal.
    pub moves: Vec<MoveId>,
    /// Moves of the greedy stages (every row and column placed).
    pub greedy_moves: usize,
    /// The block handed to the exact stage (the last 3×3, or the whole
    /// board for `n ≤ 3`), relabelled as a board of its own with the
    /// blank-last goal.
    pub exact_board: Board,
    /// Moves of the exact stage: the optimal length for `exact_board`.
    pub exact_moves: usize,
    /// Blank routes that needed the breadth-first safety net.
    pub bfs_routes: usize,
}

/// The solver: the exact distance tables of the 2×2 and 3×3 puzzles, built
/// once (about 181,000 positions) and shared by every solve.
#[derive(Clone, Debug)]
pub struct Parberry {
    small: Vec<(Sliding, DistanceTable<Sliding>)>,
}

impl Default for Parberry {
    fn default() -> Self {
        Self::new()
    }
}

/// The moves that put `a` and `b` home when `b` sits in the pocket (row 0,
/// column `w−2`), `a` in the corner (row 0, column `w−1`) and the blank
/// under `b`, in the frame of the line's region. Shortest, by
/// breadth-first search over the placements of `a`, `b` and the blank in
/// rows 0–2 of the last two columns (the unit test re-checks it).
pub const POCKET_FIX: [MoveId; 17] =
    [UP, RIGHT, DOWN, DOWN, LEFT, UP, RIGHT, UP, LEFT, DOWN, DOWN, RIGHT, UP, LEFT, UP, RIGHT, DOWN];

type Pos = (usize, usize);

/// A rectangular region of the board seen in its own frame: `h` rows and
/// `w` columns from physical `(r0, c0)`, transposed or not. Placing a
/// column is placing the top row of the transposed region.
#[derive(Clone, Copy, Debug)]
struct View {
    r0: usize,
    c0: usize,
    h: usize,
    w: usize,
    transposed: bool,
}

impl View {
    fn cell(&self, n: usize, (r, c): Pos) -> usize {
        let (pr, pc) = if self.transposed { (self.r0 + c, self.c0 + r) } else { (self.r0 + r, self.c0 + c) };
        pr * n + pc
    }

    fn pos(&self, n: usize, cell: usize) -> Option<Pos> {
        let (pr, pc) = (cell / n, cell % n);
        let (r, c) = if self.transposed {
            (pc.checked_sub(self.c0)?, pr.checked_sub(self.r0)?)
        } else {
            (pr.checked_sub(self.r0)?, pc.checked_sub(self.c0)?)
        };
        (r < self.h && c < self.w).then_some((r, c))
    }

    /// The physical move for a move in this frame.
    fn physical(&self, d: MoveId) -> MoveId {
        if !self.transposed {
            return d;
        }
        match d {
            UP => LEFT,
            DOWN => RIGHT,
            LEFT => UP,
            _ => DOWN,
        }
    }
}

/// The cells of a view the blank may use: all but the first `prefix`
/// cells of row 0 and one more locked cell.
#[derive(Clone, Copy, Debug)]
struct Region {
    view: View,
    prefix: usize,
    locked: Option<Pos>,
}

impl Region {
    fn free(&self, p: Pos) -> bool {
        p.0 < self.view.h && p.1 < self.view.w && !(p.0 == 0 && p.1 < self.prefix) && Some(p) != self.locked
    }
}

/// The direction from `a` to the adjacent `b`.
fn direction(a: Pos, b: Pos) -> MoveId {
    if b.0 < a.0 {
        UP
    } else if b.0 > a.0 {
        DOWN
    } else if b.1 < a.1 {
        LEFT
    } else {
        RIGHT
    }
}

/// The neighbour of `a` one step toward `b` (rows first).
fn toward(a: Pos, b: Pos) -> Pos {
    if a.0 != b.0 {
        if b.0 < a.0 { (a.0 - 1, a.1) } else { (a.0 + 1, a.1) }
    } else if b.1 < a.1 {
        (a.0, a.1 - 1)
    } else {
        (a.0, a.1 + 1)
    }
}

fn distance(a: Pos, b: Pos) -> usize {
    a.0.abs_diff(b.0) + a.1.abs_diff(b.1)
}

/// A blank route: the corners it turns at (at most six), ending at the
/// target, or for the safety net every cell of it.
struct Route {
    corners: [Pos; 6],
    len: usize,
    cells: Vec<Pos>,
    cost: usize,
    bfs: bool,
}

/// The board being solved, with the cell of every tile.
struct Work {
    n: usize,
    tiles: Vec<u16>,
    at: Vec<usize>,
    moves: Vec<MoveId>,
    bfs_routes: usize,
}

impl Work {
    fn new(g: &Grid) -> Self {
        let mut at = vec![0; g.tiles().len()];
        for (cell, &t) in g.tiles().iter().enumerate() {
            at[usize::from(t)] = cell;
        }
        Self { n: g.n(), tiles: g.tiles().to_vec(), at, moves: Vec::new(), bfs_routes: 0 }
    }

    fn bug(&self, what: impl Into<String>) -> ParberryError {
        ParberryError::Internal { n: self.n, what: what.into() }
    }

    /// One physical move of the blank.
    fn step(&mut self, m: MoveId) -> Result<(), ParberryError> {
        let (n, b) = (self.n, self.at[0]);
        let (r, c) = (b / n, b % n);
        let t = match m {
            UP if r > 0 => b - n,
            DOWN if r + 1 < n => b + n,
            LEFT if c > 0 => b - 1,
            RIGHT if c + 1 < n => b + 1,
            _ => return Err(self.bug(format!("move {m} would leave the board (blank at {r},{c})"))),
        };
        let tile = self.tiles[t];
        self.tiles.swap(b, t);
        self.at[usize::from(tile)] = b;
        self.at[0] = t;
        self.moves.push(m);
        Ok(())
    }

    /// Where `tile` is in the frame of `v`.
    fn pos(&self, v: &View, tile: u16) -> Result<Pos, ParberryError> {
        v.pos(self.n, self.at[usize::from(tile)]).ok_or_else(|| self.bug(format!("tile {tile} left the region")))
    }

    /// The tile whose goal is cell `p` of `v`.
    fn tile_for(&self, v: &View, p: Pos) -> u16 {
        (v.cell(self.n, p) + 1) as u16
    }

    /// Whether the straight segment after `a` up to `b` is free and avoids
    /// `obstacle`.
    fn segment_free(reg: &Region, a: Pos, b: Pos, obstacle: Option<Pos>) -> bool {
        let mut p = a;
        while p != b {
            p = toward(p, b);
            if !reg.free(p) || Some(p) == obstacle {
                return false;
            }
        }
        true
    }

    /// The cheapest route of the blank from `from` to `to` among the
    /// paths with at most two turns whose middle leg runs along one of the
    /// rows or columns of the ends or beside `obstacle`; failing those, two
    /// such paths joined at one of the eight cells around `obstacle` (the
    /// way round the tile); failing those, a breadth-first search over the
    /// free cells.
    fn plan(reg: &Region, from: Pos, to: Pos, obstacle: Option<Pos>) -> Option<Route> {
        if let Some(route) = Self::direct(reg, from, to, obstacle) {
            return Some(route);
        }
        if let Some(o) = obstacle {
            let mut best: Option<Route> = None;
            for (dr, dc) in [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)] {
                let (Some(r), Some(c)) = (o.0.checked_add_signed(dr), o.1.checked_add_signed(dc)) else { continue };
                let via = (r, c);
                if via == from || !reg.free(via) {
                    continue;
                }
                if let (Some(a), Some(b)) =
                    (Self::direct(reg, from, via, obstacle), Self::direct(reg, via, to, obstacle))
                    && best.as_ref().is_none_or(|x| a.cost + b.cost < x.cost)
                {
                    let mut corners = a.corners;
                    corners[a.len..a.len + b.len].copy_from_slice(&b.corners[..b.len]);
                    best = Some(Route {
                        corners,
                        len: a.len + b.len,
                        cells: Vec::new(),
                        cost: a.cost + b.cost,
                        bfs: false,
                    });
                }
            }
            if best.is_some() {
                return best;
            }
        }
        Self::bfs(reg, from, to, obstacle)
    }

    /// The cheapest path with at most two turns (see [`Work::plan`]).
    fn direct(reg: &Region, from: Pos, to: Pos, obstacle: Option<Pos>) -> Option<Route> {
        if from == to {
            return Some(Route { corners: [from; 6], len: 0, cells: Vec::new(), cost: 0, bfs: false });
        }
        let beside = |x: usize| [x.checked_sub(1), Some(x + 1)];
        let (orow, ocol) = match obstacle {
            Some((r, c)) => (beside(r), beside(c)),
            None => ([None; 2], [None; 2]),
        };
        // (cost, first corner, second corner), at most eight, no allocation.
        let mut candidates = [(usize::MAX, from, from); 8];
        let mut count = 0;
        let mut add = |k0: Pos, k1: Pos| {
            candidates[count] = (distance(from, k0) + distance(k0, k1) + distance(k1, to), k0, k1);
            count += 1;
        };
        for r in [Some(from.0), Some(to.0), orow[0], orow[1]].into_iter().flatten() {
            add((r, from.1), (r, to.1));
        }
        for c in [Some(from.1), Some(to.1), ocol[0], ocol[1]].into_iter().flatten() {
            add((from.0, c), (to.0, c));
        }
        let candidates = &mut candidates[..count];
        candidates.sort_unstable_by_key(|k| k.0);
        candidates
            .iter()
            .find(|&&(_, k0, k1)| {
                Self::segment_free(reg, from, k0, obstacle)
                    && Self::segment_free(reg, k0, k1, obstacle)
                    && Self::segment_free(reg, k1, to, obstacle)
            })
            .map(|&(cost, k0, k1)| Route {
                corners: [k0, k1, to, to, to, to],
                len: 3,
                cells: Vec::new(),
                cost,
                bfs: false,
            })
    }

    /// Shortest route over the free cells (the safety net).
    fn bfs(reg: &Region, from: Pos, to: Pos, obstacle: Option<Pos>) -> Option<Route> {
        let (h, w) = (reg.view.h, reg.view.w);
        let mut prev: Vec<Option<Pos>> = vec![None; h * w];
        let mut queue = VecDeque::from([from]);
        prev[from.0 * w + from.1] = Some(from);
        while let Some(p) = queue.pop_front() {
            if p == to {
                let mut cells = vec![p];
                let mut q = p;
                while q != from {
                    q = prev[q.0 * w + q.1]?;
                    cells.push(q);
                }
                cells.pop();
                cells.reverse();
                let cost = cells.len();
                return Some(Route { corners: [from; 6], len: 0, cells, cost, bfs: true });
            }
            let next = [
                p.0.checked_sub(1).map(|r| (r, p.1)),
                Some((p.0 + 1, p.1)),
                p.1.checked_sub(1).map(|c| (p.0, c)),
                Some((p.0, p.1 + 1)),
            ];
            for q in next.into_iter().flatten() {
                if reg.free(q) && Some(q) != obstacle && prev[q.0 * w + q.1].is_none() {
                    prev[q.0 * w + q.1] = Some(p);
                    queue.push_back(q);
                }
            }
        }
        None
    }

    /// Walks the blank along `route` (in the frame of `v`).
    fn follow(&mut self, v: &View, route: &Route) -> Result<(), ParberryError> {
        if route.bfs {
            self.bfs_routes += 1;
        }
        for &corner in route.corners[..route.len].iter().chain(&route.cells) {
            let mut b = self.pos(v, 0)?;
            while b != corner {
                let next = toward(b, corner);
                self.step(v.physical(direction(b, next)))?;
                b = next;
            }
        }
        Ok(())
    }

    /// Brings the blank to `to` without crossing `obstacle` or a locked cell.
    fn route(&mut self, reg: &Region, to: Pos, obstacle: Option<Pos>) -> Result<(), ParberryError> {
        let from = self.pos(&reg.view, 0)?;
        let route =
            Self::plan(reg, from, to, obstacle).ok_or_else(|| self.bug(format!("no blank route {from:?} → {to:?}")))?;
        self.follow(&reg.view, &route)
    }

    /// Moves `tile` to `to` one cell at a time, each step toward `to`.
    fn move_tile(&mut self, reg: &Region, tile: u16, to: Pos) -> Result<(), ParberryError> {
        let v = reg.view;
        loop {
            let p = self.pos(&v, tile)?;
            if p == to {
                return Ok(());
            }
            let blank = self.pos(&v, 0)?;
            let vertical = (p.0 != to.0).then(|| if to.0 < p.0 { (p.0 - 1, p.1) } else { (p.0 + 1, p.1) });
            let horizontal = (p.1 != to.1).then(|| if to.1 < p.1 { (p.0, p.1 - 1) } else { (p.0, p.1 + 1) });
            // Ties go to the axis with more cells left to cover.
            let order =
                if p.0.abs_diff(to.0) >= p.1.abs_diff(to.1) { [vertical, horizontal] } else { [horizontal, vertical] };
            let mut best: Option<(Pos, Route)> = None;
            for next in order.into_iter().flatten().filter(|&q| reg.free(q)) {
                if let Some(route) = Self::plan(reg, blank, next, Some(p))
                    && best.as_ref().is_none_or(|(_, b)| route.cost < b.cost)
                {
                    best = Some((next, route));
                }
            }
            let (next, route) =
                best.ok_or_else(|| self.bug(format!("tile {tile} stuck at {p:?} on its way to {to:?}")))?;
            self.follow(&v, &route)?;
            self.step(v.physical(direction(next, p)))?;
        }
    }

    /// Places row 0 of the view's region (its `w` tiles), leaving the blank
    /// below it.
    fn place_line(&mut self, v: View) -> Result<(), ParberryError> {
        let w = v.w;
        for j in 0..w - 2 {
            let reg = Region { view: v, prefix: j, locked: None };
            self.move_tile(&reg, self.tile_for(&v, (0, j)), (0, j))?;
        }
        let (a, b) = (self.tile_for(&v, (0, w - 2)), self.tile_for(&v, (0, w - 1)));
        let (corner, pocket) = ((0, w - 1), (0, w - 2));
        if self.pos(&v, a)? == pocket && self.pos(&v, b)? == corner {
            return Ok(());
        }
        self.move_tile(&Region { view: v, prefix: w - 2, locked: None }, a, corner)?;
        let reg = Region { view: v, prefix: w - 2, locked: Some(corner) };
        if self.pos(&v, 0)? == pocket && self.pos(&v, b)? == (1, w - 2) {
            // The blank is shut in the pocket by `b`: let `b` rise into it.
            self.step(v.physical(DOWN))?;
        }
        if self.pos(&v, b)? == pocket {
            self.route(&reg, (1, w - 2), Some(pocket))?;
            for d in POCKET_FIX {
                self.step(v.physical(d))?;
            }
        } else {
            self.move_tile(&reg, b, (1, w - 1))?;
            self.route(&reg, pocket, Some((1, w - 1)))?;
            self.step(v.physical(RIGHT))?;
            self.step(v.physical(DOWN))?;
        }
        if self.pos(&v, a)? != pocket || self.pos(&v, b)? != corner {
            return Err(self.bug(format!("tiles {a} and {b} did not end in place")));
        }
        Ok(())
    }
}

impl Parberry {
    /// Builds the exact tables of the 2×2 and 3×3 stages.
    #[must_use]
    pub fn new() -> Self {
        let small = [2, 3]
            .into_iter()
            .map(|n| {
                let p = Sliding::new(n, Goal::BlankLast).expect("2 and 3 are valid widths");
                let table = DistanceTable::build(&p, u8::MAX);
                (p, table)
            })
            .collect();
        Self { small }
    }

    /// Solves `start` for the blank-last goal and replays the solution.
    ///
    /// # Errors
    /// [`GridError::Unsolvable`] (as [`ParberryError::Grid`]) for a board in
    /// the other parity class; [`ParberryError::Internal`] for a bug.
    pub fn solve(&self, start: &Grid) -> Result<Solution, ParberryError> {
        start.check_solvable()?;
        let n = start.n();
        let mut work = Work::new(start);
        for k in (4..=n).rev() {
            let o = n - k;
            work.place_line(View { r0: o, c0: o, h: k, w: k, transposed: false })?;
            work.place_line(View { r0: o + 1, c0: o, h: k, w: k - 1, transposed: true })?;
        }
        let greedy_moves = work.moves.len();
        let m = n.min(3);
        let (exact_board, exact_moves) = self.exact_stage(&mut work, n - m, m)?;
        let bfs_routes = work.bfs_routes;
        let moves = work.moves;
        if !start.replay(&moves)?.is_goal() {
            return Err(ParberryError::Internal { n, what: "the solution does not reach the goal".into() });
        }
        Ok(Solution { moves, greedy_moves, exact_board, exact_moves, bfs_routes })
    }

    /// Solves the `m×m` block at `(o, o)` optimally.
    fn exact_stage(&self, work: &mut Work, o: usize, m: usize) -> Result<(Board, usize), ParberryError> {
        let n = work.n;
        let mut tiles = vec![0u8; m * m];
        for r in 0..m {
            for c in 0..m {
                let t = work.tiles[(o + r) * n + o + c];
                if t != 0 {
                    let goal = usize::from(t) - 1;
                    let (gr, gc) = (goal / n, goal % n);
                    if gr < o || gc < o {
                        return Err(work.bug(format!("tile {t} belongs outside the last {m}×{m} block")));
                    }
                    tiles[r * m + c] = ((gr - o) * m + (gc - o) + 1) as u8;
                }
            }
        }
        let board = Board::from_tiles(&tiles).map_err(|e| work.bug(format!("last block: {e}")))?;
        let (puzzle, table) = &self.small[m - 2];
        let mut b = board;
        let mut d = table.distance(puzzle, &b).ok_or_else(|| work.bug("the last block cannot reach its goal"))?;
        let start = d;
        while d > 0 {
            let m = (0..4)
                .find(|&m| {
                    puzzle.is_applicable(&b, m) && {
                        let mut c = b;
                        puzzle.apply(&mut c, m);
                        table.distance(puzzle, &c) == Some(d - 1)
                    }
                })
                .ok_or_else(|| work.bug("the distance table has no way down"))?;
            puzzle.apply(&mut b, m);
            work.step(m)?;
            d -= 1;
        }
        Ok((board, usize::from(start)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pocket_fix_puts_both_tiles_home_from_the_pocket() {
        // Rows 0–2 of the last two columns of a 3-wide region, row 0's
        // first cell locked: `b` in the pocket, `a` in the corner, blank below `b`.
        let v = View { r0: 0, c0: 0, h: 3, w: 3, transposed: false };
        let mut g = Grid::parse("1 3 2 / 4 0 5 / 6 7 8", Some(3)).unwrap();
        for d in POCKET_FIX {
            assert!(g.apply(v.physical(d)));
        }
        assert_eq!(&g.tiles()[..3], &[1, 2, 3], "{g}");
    }
}
