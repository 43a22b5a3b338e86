//! A small Pacman game after the Berkeley Pac-Man projects: Pacman (MAX)
//! against k ghosts (MIN, one ply each, in the layout's reading order) on a
//! [`Layout`], with food, capsules and scared ghosts.
//!
//! **Rules.** Pacman moves North, South, East, West (into a cell that is
//! not a wall) or Stops; a ghost moves to an open neighbouring cell and
//! never stops (reversing is allowed, unlike Berkeley's ghosts; a ghost
//! walled in on all four sides stays, as `Stop`). Pacman eats the food or
//! capsule of the cell he enters. A capsule scares every ghost for
//! [`SCARED_TIME`] of its own moves (the timer counts down when that ghost
//! moves; scared ghosts move at full speed here, not Berkeley's half
//! speed). When Pacman and a ghost share a cell after a move of either
//! (Pacman's move checks every ghost, a ghost's move checks that ghost): a
//! scared ghost is eaten and goes back to its start, no longer scared; any
//! other ghost catches Pacman and the game is lost. The game is won when
//! the last food is eaten (capsules need not be).
//!
//! **Score** (Berkeley's): −1 per Pacman move (Stop included), +10 per
//! food, +200 per scared ghost eaten, +500 for the win, −500 for the loss;
//! the utility of a finished game is its score.
//!
//! **Evaluation**: [`Eval`] chooses the ratio or the weighted five-feature
//! sum ([`eval`]). The game tree is infinite (positions repeat), so a
//! search of it needs a depth limit.

pub mod eval;
pub mod layout;

pub use eval::{Eval, Features};
pub use layout::Layout;

use super::error::GameError;
use super::{Game, MAX};
use std::fmt;

/// The most ghosts one game tracks.
pub const MAX_GHOSTS: usize = 8;

/// The deepest search `play` runs on Pacman, in plies: a stated cap, since
/// the game tree is infinite (positions repeat) and no game length bounds
/// it. 1,000 plies are over 100 full rounds even with [`MAX_GHOSTS`]
/// ghosts, far beyond what any search of this tree can finish; the cap
/// keeps the recursion (one stack frame per ply) small.
pub const MAX_DEPTH: u32 = 1000;

/// How many remaining food cells, capsules and ghosts cost one unit of
/// search work ([`Game::work_per_position`]): the evaluation scans them
/// all, so a position on a large board costs more than one on a small one.
pub const CELLS_PER_WORK_UNIT: u64 = 32;

/// How many of its own moves a ghost stays scared after a capsule.
pub const SCARED_TIME: u16 = 40;

/// Points per food eaten.
pub const FOOD_POINTS: i32 = 10;
/// Points per scared ghost eaten.
pub const GHOST_POINTS: i32 = 200;
/// Points for the win.
pub const WIN_POINTS: i32 = 500;
/// Points lost when caught.
pub const LOSE_POINTS: i32 = 500;
/// Points lost per Pacman move.
pub const TIME_PENALTY: i32 = 1;

/// A move of Pacman or of a ghost.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dir {
    /// Up one row.
    North,
    /// Down one row.
    South,
    /// Right one column.
    East,
    /// Left one column.
    West,
    /// Stay.
    Stop,
}

impl Dir {
    /// The four moving directions, in the order moves are listed.
    pub const MOVING: [Dir; 4] = [Dir::North, Dir::South, Dir::East, Dir::West];

    /// `(row, column)` step.
    #[must_use]
    pub fn delta(self) -> (isize, isize) {
        match self {
            Dir::North => (-1, 0),
            Dir::South => (1, 0),
            Dir::East => (0, 1),
            Dir::West => (0, -1),
            Dir::Stop => (0, 0),
        }
    }
}

impl fmt::Display for Dir {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Dir::North => "North",
            Dir::South => "South",
            Dir::East => "East",
            Dir::West => "West",
            Dir::Stop => "Stop",
        })
    }
}

/// How a game stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Still going.
    Playing,
    /// All food eaten.
    Won,
    /// Caught by a ghost.
    Lost,
}

/// Everything a move can change besides food and capsules, copied whole
/// into the undo token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Agents {
    pacman: u16,
    ghosts: [u16; MAX_GHOSTS],
    scared: [u16; MAX_GHOSTS],
    score: i32,
    to_move: u8,
    outcome: Outcome,
}

/// What [`Pacman::undo`](Game::undo) needs: the agents before the move and
/// the food or capsule it ate.
#[derive(Clone, Copy, Debug)]
pub struct PacmanUndo {
    before: Agents,
    food: Option<u16>,
    capsule: Option<u16>,
}

/// A Pacman position: the layout, what is left on it, the agents, the
/// score and the agent to move.
#[derive(Clone, Debug, PartialEq)]
pub struct Pacman {
    layout: Layout,
    eval: Eval,
    num_ghosts: usize,
    food: Vec<bool>,
    food_left: usize,
    capsules: Vec<bool>,
    agents: Agents,
}

impl Pacman {
    /// The start of a game on `layout` with its first `ghosts` ghosts,
    /// scoring cutoffs with `eval`; Pacman to move, score 0.
    ///
    /// # Errors
    /// `ghosts` is 0 or over [`MAX_GHOSTS`], or more than the layout has.
    pub fn new(layout: Layout, ghosts: usize, eval: Eval) -> Result<Self, GameError> {
        if ghosts == 0 || ghosts > MAX_GHOSTS {
            return Err(GameError::GhostsRange { asked: ghosts, max: MAX_GHOSTS });
        }
        if ghosts > layout.ghosts().len() {
            return Err(GameError::GhostsTooMany {
                layout: layout.name().to_string(),
                asked: ghosts,
                available: layout.ghosts().len(),
            });
        }
        let cells = layout.width() * layout.height();
        let mut food = vec![false; cells];
        for &c in layout.food() {
            food[c] = true;
        }
        let mut capsules = vec![false; cells];
        for &c in layout.capsules() {
            capsules[c] = true;
        }
        let mut agents = Agents {
            pacman: layout.pacman() as u16,
            ghosts: [0; MAX_GHOSTS],
            scared: [0; MAX_GHOSTS],
            score: 0,
            to_move: MAX as u8,
            outcome: Outcome::Playing,
        };
        for (slot, &c) in agents.ghosts.iter_mut().zip(&layout.ghosts()[..ghosts]) {
            *slot = c as u16;
        }
        Ok(Self { food_left: layout.food().len(), layout, eval, num_ghosts: ghosts, food, capsules, agents })
    }

    /// The layout.
    #[must_use]
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The evaluation function in use.
    #[must_use]
    pub fn eval(&self) -> Eval {
        self.eval
    }

    /// Uses another evaluation function from now on.
    pub fn set_eval(&mut self, eval: Eval) {
        self.eval = eval;
    }

    /// The score so far.
    #[must_use]
    pub fn score(&self) -> i32 {
        self.agents.score
    }

    /// Won, lost or still playing.
    #[must_use]
    pub fn outcome(&self) -> Outcome {
        self.agents.outcome
    }

    /// Pacman's cell.
    #[must_use]
    pub fn pacman(&self) -> usize {
        usize::from(self.agents.pacman)
    }

    /// The ghosts' cells, in moving order.
    #[must_use]
    pub fn ghosts(&self) -> Vec<usize> {
        self.agents.ghosts[..self.num_ghosts].iter().map(|&g| usize::from(g)).collect()
    }

    /// Each ghost's remaining scared moves (0: not scared).
    #[must_use]
    pub fn scared(&self) -> &[u16] {
        &self.agents.scared[..self.num_ghosts]
    }

    /// Food left.
    #[must_use]
    pub fn food_left(&self) -> usize {
        self.food_left
    }

    /// Whether cell `cell` still has food.
    #[must_use]
    pub fn has_food(&self, cell: usize) -> bool {
        self.food[cell]
    }

    /// The evaluation features of the position.
    #[must_use]
    pub fn features(&self) -> Features {
        let l = &self.layout;
        let p = self.pacman();
        let nearest = |cells: &mut dyn Iterator<Item = usize>| cells.map(|c| l.manhattan(p, c)).min();
        let food_distance = nearest(&mut l.food().iter().copied().filter(|&c| self.food[c])).unwrap_or(0);
        let capsule_distance = nearest(&mut l.capsules().iter().copied().filter(|&c| self.capsules[c])).unwrap_or(0);
        let ghosts = &self.agents.ghosts[..self.num_ghosts];
        let scared = self.scared();
        let cells = |want_scared: Option<bool>| {
            ghosts
                .iter()
                .zip(scared)
                .filter(move |g| want_scared.is_none_or(|w| (*g.1 > 0) == w))
                .map(|g| usize::from(*g.0))
        };
        let any_ghost_distance = nearest(&mut cells(None)).unwrap_or(0);
        let ghost_distance = nearest(&mut cells(Some(false)));
        let scared_ghost_distance = nearest(&mut cells(Some(true)));
        Features {
            score: self.agents.score,
            food_distance,
            capsule_distance,
            any_ghost_distance,
            ghost_distance,
            scared_ghost_distance,
        }
    }

    /// Resolves Pacman meeting ghost `i` on one cell.
    fn collide(&mut self, i: usize) {
        let a = &mut self.agents;
        if a.scared[i] > 0 {
            a.score += GHOST_POINTS;
            a.ghosts[i] = self.layout.ghosts()[i] as u16;
            a.scared[i] = 0;
        } else {
            a.score -= LOSE_POINTS;
            a.outcome = Outcome::Lost;
        }
    }

    fn target(&self, cell: usize, d: Dir) -> Option<usize> {
        let (dr, dc) = d.delta();
        self.layout.step(cell, dr, dc)
    }
}

impl Game for Pacman {
    type Move = Dir;
    type Undo = PacmanUndo;

    fn num_agents(&self) -> usize {
        self.num_ghosts + 1
    }

    fn to_move(&self) -> usize {
        usize::from(self.agents.to_move)
    }

    fn moves(&self, out: &mut Vec<Dir>) {
        out.clear();
        if self.agents.outcome != Outcome::Playing {
            return;
        }
        let agent = self.to_move();
        let cell = if agent == MAX { self.pacman() } else { usize::from(self.agents.ghosts[agent - 1]) };
        out.extend(Dir::MOVING.iter().copied().filter(|&d| self.target(cell, d).is_some()));
        if agent == MAX || out.is_empty() {
            out.push(Dir::Stop);
        }
    }

    fn apply(&mut self, m: Dir) -> PacmanUndo {
        let mut undo = PacmanUndo { before: self.agents, food: None, capsule: None };
        let agent = self.to_move();
        if agent == MAX {
            let p = self.target(self.pacman(), m).unwrap_or(self.pacman());
            self.agents.pacman = p as u16;
            self.agents.score -= TIME_PENALTY;
            if self.food[p] {
                self.food[p] = false;
                self.food_left -= 1;
                self.agents.score += FOOD_POINTS;
                undo.food = Some(p as u16);
                if self.food_left == 0 {
                    self.agents.score += WIN_POINTS;
                    self.agents.outcome = Outcome::Won;
                }
            }
            if self.capsules[p] {
                self.capsules[p] = false;
                undo.capsule = Some(p as u16);
                self.agents.scared[..self.num_ghosts].fill(SCARED_TIME);
            }
            if self.agents.outcome == Outcome::Playing {
                for i in 0..self.num_ghosts {
                    if self.agents.ghosts[i] == self.agents.pacman && self.agents.outcome == Outcome::Playing {
                        self.collide(i);
                    }
                }
            }
        } else {
            let i = agent - 1;
            let g = usize::from(self.agents.ghosts[i]);
            self.agents.ghosts[i] = self.target(g, m).unwrap_or(g) as u16;
            self.agents.scared[i] = self.agents.scared[i].saturating_sub(1);
            if self.agents.ghosts[i] == self.agents.pacman {
                self.collide(i);
            }
        }
        self.agents.to_move = ((agent + 1) % (self.num_ghosts + 1)) as u8;
        undo
    }

    fn undo(&mut self, _m: Dir, token: PacmanUndo) {
        self.agents = token.before;
        if let Some(c) = token.food {
            self.food[usize::from(c)] = true;
            self.food_left += 1;
        }
        if let Some(c) = token.capsule {
            self.capsules[usize::from(c)] = true;
        }
    }

    fn utility(&self) -> Option<f64> {
        (self.agents.outcome != Outcome::Playing).then(|| f64::from(self.agents.score))
    }

    fn evaluate(&self) -> f64 {
        self.features().evaluate(self.eval)
    }

    /// 1 plus a unit per [`CELLS_PER_WORK_UNIT`] of the layout's food
    /// cells, capsules and the ghosts in play: what the evaluation scans.
    fn work_per_position(&self) -> u64 {
        let scanned = self.layout.food().len() + self.layout.capsules().len() + self.num_ghosts;
        1 + scanned as u64 / CELLS_PER_WORK_UNIT
    }
}
