//! What `play` does, so that the binary only parses arguments: set up the
//! game named by `--game` from its own options (refusing options of other
//! games), run the method, and describe the result in a few lines; with
//! `--csv`, also write the node-count table across depths ([`super::table`]).

use super::error::GameError;
use super::method::Method;
use super::pacman::{Eval, Layout, Pacman};
use super::report::SearchReport;
use super::sticks::Sticks;
use super::tictactoe::TicTacToe;
use super::{Game, MAX, Ordering, iterative_deepening, table};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::str::FromStr;

/// The games `play --game` knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameKind {
    /// [`Sticks`].
    Sticks,
    /// [`TicTacToe`].
    TicTacToe,
    /// [`Pacman`].
    Pacman,
}

impl GameKind {
    /// The name `--game` takes.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            GameKind::Sticks => "sticks",
            GameKind::TicTacToe => "tictactoe",
            GameKind::Pacman => "pacman",
        }
    }
}

impl FromStr for GameKind {
    type Err = GameError;
    fn from_str(s: &str) -> Result<Self, GameError> {
        match s.trim().to_ascii_lowercase().replace(['-', '_'], "").as_str() {
            "sticks" => Ok(GameKind::Sticks),
            "tictactoe" => Ok(GameKind::TicTacToe),
            "pacman" => Ok(GameKind::Pacman),
            _ => Err(GameError::UnknownGame { name: s.to_string() }),
        }
    }
}

/// One `play` request (the binary's options, parsed).
#[derive(Clone, Debug)]
pub struct PlayOptions {
    /// The game.
    pub game: GameKind,
    /// The search method.
    pub method: Method,
    /// Sticks: the piles, e.g. `3,5`.
    pub piles: Option<String>,
    /// Tic-tac-toe: a position, e.g. `x.o/.x./..o` (default: empty board).
    pub board: Option<String>,
    /// Pacman: the layout file.
    pub layout: Option<PathBuf>,
    /// Pacman: how many of the layout's ghosts play (default: all).
    pub ghosts: Option<usize>,
    /// Pacman: the evaluation function (default: ratio).
    pub eval: Option<Eval>,
    /// Depth limit in plies (default: the end of the game; Pacman needs one).
    pub depth: Option<u32>,
    /// Where to write the node-count table across depths.
    pub csv: Option<PathBuf>,
    /// Replace an existing `csv` file.
    pub overwrite: bool,
}

/// Runs the request and returns the text to print.
///
/// # Errors
/// Options of another game, a missing option, a bad pile list, board or
/// layout, a bad ghost count, depth 0, Pacman without a depth, or a table
/// that exists or cannot be written.
pub fn run(opts: &PlayOptions) -> Result<String, GameError> {
    let game = opts.game.name();
    let foreign = |given: bool, flag: &'static str, applies_to: GameKind| {
        if given && opts.game != applies_to {
            Err(GameError::FlagNotForGame { flag, game, applies_to: applies_to.name() })
        } else {
            Ok(())
        }
    };
    foreign(opts.piles.is_some(), "--piles", GameKind::Sticks)?;
    foreign(opts.board.is_some(), "--board", GameKind::TicTacToe)?;
    foreign(opts.layout.is_some(), "--layout", GameKind::Pacman)?;
    foreign(opts.ghosts.is_some(), "--ghosts", GameKind::Pacman)?;
    foreign(opts.eval.is_some(), "--eval", GameKind::Pacman)?;
    if opts.depth == Some(0) {
        return Err(GameError::DepthZero);
    }
    if let Some(path) = &opts.csv
        && path.exists()
        && !opts.overwrite
    {
        return Err(GameError::TableExists { path: path.clone() });
    }
    match opts.game {
        GameKind::Sticks => {
            let piles = opts.piles.as_deref().ok_or(GameError::FlagMissing {
                flag: "--piles",
                game,
                example: "--piles 3,5",
            })?;
            let mut s: Sticks = piles.parse()?;
            let position = s.to_string();
            let full = u32::try_from(s.total()).unwrap_or(u32::MAX).max(1);
            let header = format!("sticks, piles {position}");
            play(&mut s, opts, &header, &position, full)
        }
        GameKind::TicTacToe => {
            let mut b: TicTacToe = match &opts.board {
                Some(text) => text.parse()?,
                None => TicTacToe::new(),
            };
            let position = b.to_string();
            let empty = (0..9).filter(|&i| b.cell(i).is_none()).count() as u32;
            let header = format!("tictactoe, board {position}");
            play(&mut b, opts, &header, &position, empty.max(1))
        }
        GameKind::Pacman => {
            let path = opts.layout.as_deref().ok_or(GameError::FlagMissing {
                flag: "--layout",
                game,
                example: "--layout data/pacman/small.lay",
            })?;
            let layout = Layout::read(path)?;
            let ghosts = opts.ghosts.unwrap_or(layout.ghosts().len());
            let eval = opts.eval.unwrap_or_default();
            let mut p = Pacman::new(layout, ghosts, eval)?;
            let Some(depth) = opts.depth else {
                return Err(GameError::DepthRequired { game: "pacman" });
            };
            let position = format!("{} ghosts={ghosts} eval={eval}", path.display());
            let plural = if ghosts == 1 { "" } else { "s" };
            let header = format!("pacman, layout {}, {ghosts} ghost{plural}, eval {eval}", path.display());
            play(&mut p, opts, &header, &position, depth)
        }
    }
}

/// A value as printed: whole numbers without decimals.
fn value_text(v: f64) -> String {
    if v.is_finite() && v.fract() == 0.0 { format!("{v:.0}") } else { format!("{v:.4}") }
}

fn counts_line<M>(r: &SearchReport<M>) -> String {
    format!(
        "{} (expanded {}, leaves {}, at the depth limit {}, ordering probes {})",
        r.nodes, r.expanded, r.leaves, r.horizon_leaves, r.probes
    )
}

/// Searches `game`, describes the result, and writes the table if asked
/// (depths `1..=opts.depth`, else `1..=csv_depth`).
fn play<G: Game>(
    game: &mut G,
    opts: &PlayOptions,
    header: &str,
    position: &str,
    csv_depth: u32,
) -> Result<String, GameError> {
    let mut out = String::new();
    let mover = if game.to_move() == MAX { "MAX".to_string() } else { format!("MIN agent {}", game.to_move()) };
    let _ = writeln!(out, "game: {header} ({mover} to move)");
    let depth_text = opts.depth.map_or("to the end of the game".to_string(), |d| format!("{d} plies"));
    let _ = writeln!(out, "method: {}, depth: {depth_text}", opts.method);
    let report = if opts.method == Method::Iterative {
        let d = iterative_deepening(game, opts.depth, Ordering::Static);
        for r in &d.iterations {
            let best = r.best_move.map_or("-".to_string(), |m| m.to_string());
            let _ = writeln!(
                out,
                "  depth {}: value {}, best move {best}, nodes {}",
                r.depth.unwrap_or(0),
                value_text(r.value),
                counts_line(r)
            );
        }
        d.total().unwrap_or_else(|| Method::Minimax.run(game, opts.depth))
    } else {
        opts.method.run(game, opts.depth)
    };
    let _ = writeln!(out, "value: {} (from MAX's view)", value_text(report.value));
    let best = report.best_move.map_or("none (the game is over)".to_string(), |m| m.to_string());
    let _ = writeln!(out, "best move: {best}");
    let _ = writeln!(out, "nodes: {}", counts_line(&report));
    let _ = writeln!(out, "time: {:.3} ms", report.elapsed.as_secs_f64() * 1e3);
    if let Some(path) = &opts.csv {
        let max_depth = opts.depth.unwrap_or(csv_depth);
        let methods: Vec<Method> = Method::ALL.iter().map(|m| m.1).collect();
        let rows = table::node_counts(game, &methods, max_depth);
        table::write(path, opts.game.name(), position, &rows, opts.overwrite)?;
        let _ = writeln!(out, "node counts for depths 1..={max_depth}: {}", path.display());
    }
    Ok(out)
}
