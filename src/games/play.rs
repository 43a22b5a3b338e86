//! What `play` does, so that the binary only parses arguments: set up the
//! game named by `--game` from its own options (refusing options of other
//! games), run the method, and describe the result in a few lines; with
//! `--csv`, also write the node-count table across depths ([`super::table`]).
//!
//! **Bounds**, so that no request overflows the stack or runs unbounded:
//! `--depth` is at most [`GameKind::max_depth`] (the longest game for
//! sticks and tic-tac-toe, [`pacman::MAX_DEPTH`](super::pacman::MAX_DEPTH)
//! for Pacman); every search, and the `--csv` table's searches together,
//! make at most `--max-nodes` positions ([`DEFAULT_MAX_NODES`]; see
//! [`super::report`] for what counts), or stop; the search runs on a
//! thread with a [`SEARCH_STACK_BYTES`] stack, room for the deepest
//! recursion these depths allow; layout files are read only up to
//! [`MAX_FILE_BYTES`](super::pacman::layout::MAX_FILE_BYTES); a `--csv`
//! path holding anything but a regular file is refused.

use super::error::GameError;
use super::method::Method;
use super::pacman::{self, Eval, Layout, Pacman};
use super::report::{Budget, Exceeded, SearchReport};
use super::sticks::{self, Sticks};
#[cfg(feature = "tables")]
use super::table::{self, End};
use super::tictactoe::{self, TicTacToe};
use super::{Game, MAX, Ordering, iterative_deepening_within};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::str::FromStr;

/// The default of `--max-nodes`: the most positions one search (and the
/// `--csv` table's searches together) may make. At the 20–70 million
/// positions per second of these games on one core, a search stopped by it
/// has taken about 0.2–1.5 s, so a whole run (search and table) stays
/// within a few seconds.
pub const DEFAULT_MAX_NODES: u64 = 20_000_000;

/// The stack of the thread that runs the searches: one frame per ply, at
/// most [`sticks::LONGEST_GAME`] + 1 of them, with room to spare even in
/// a debug build (reserved address space; only what is used is touched).
pub const SEARCH_STACK_BYTES: usize = 64 << 20;

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

    /// The largest `--depth` this game takes, in plies, and where that
    /// bound comes from.
    #[must_use]
    pub fn max_depth(self) -> (u32, &'static str) {
        match self {
            GameKind::Sticks => {
                (sticks::LONGEST_GAME, "the longest game: 8 piles of 1000 sticks, at least one stick a move")
            }
            GameKind::TicTacToe => (tictactoe::LONGEST_GAME, "the longest game: one mark a move on 9 cells"),
            GameKind::Pacman => (pacman::MAX_DEPTH, "a stated cap: its game tree is infinite"),
        }
    }
}

/// Digits only (surrounding spaces allowed): the number, or `None` if it
/// overflows `u64`; `Err` if `text` is not a whole number.
fn whole_number(text: &str, flag: &'static str, rule: &'static str) -> Result<Option<u64>, GameError> {
    let t = text.trim();
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        return Err(GameError::FlagValue { flag, value: text.to_string(), rule });
    }
    Ok(t.parse::<u64>().ok())
}

/// `--depth`: a whole number of plies, 1 to `game.max_depth()`.
///
/// # Errors
/// Not a whole number, 0, or over the game's bound.
pub fn parse_depth(text: &str, game: GameKind) -> Result<u32, GameError> {
    let (max, why) = game.max_depth();
    let n = whole_number(text, "--depth", "not a whole number of plies")?;
    match n {
        Some(0) => Err(GameError::DepthZero),
        Some(d) if d <= u64::from(max) => Ok(d as u32),
        _ => Err(GameError::DepthTooLarge { depth: text.trim().to_string(), game: game.name(), max, why }),
    }
}

/// `--max-nodes`: a whole number of positions, at least 1; digits with
/// optional `_` separators (`100_000_000`) or a power of ten (`1e8`).
///
/// # Errors
/// Not such a number, 0, or beyond 2^64 − 1.
pub fn parse_max_nodes(text: &str) -> Result<u64, GameError> {
    const RULE: &str =
        "give a whole number of positions from 1 to 18446744073709551615, e.g. 100000000, 100_000_000 or 1e8";
    let bad = || GameError::FlagValue { flag: "--max-nodes", value: text.to_string(), rule: RULE };
    let t = text.trim().replace('_', "");
    let n = match t.split_once(['e', 'E']) {
        Some((mantissa, exponent)) => {
            let m = whole_number(mantissa, "--max-nodes", RULE).map_err(|_| bad())?.ok_or_else(bad)?;
            let e = whole_number(exponent, "--max-nodes", RULE).map_err(|_| bad())?.ok_or_else(bad)?;
            let e = u32::try_from(e).map_err(|_| bad())?;
            10u64.checked_pow(e).and_then(|p| p.checked_mul(m)).ok_or_else(bad)?
        }
        None => whole_number(&t, "--max-nodes", RULE).map_err(|_| bad())?.ok_or_else(bad)?,
    };
    if n == 0 { Err(bad()) } else { Ok(n) }
}

/// `--ghosts`: a whole number (its range is checked against the layout).
///
/// # Errors
/// Not a whole number, or beyond any ghost count.
pub fn parse_ghosts(text: &str) -> Result<usize, GameError> {
    const RULE: &str = "give a whole number of ghosts, 1 to 8";
    let n = whole_number(text, "--ghosts", RULE)?;
    n.and_then(|n| usize::try_from(n).ok()).filter(|&n| n <= 1000).ok_or(GameError::FlagValue {
        flag: "--ghosts",
        value: text.to_string(),
        rule: RULE,
    })
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
    /// Depth limit in plies, at most [`GameKind::max_depth`] (default: the
    /// end of the game; Pacman needs one).
    pub depth: Option<u32>,
    /// The most positions the search may make, and the table's searches
    /// together ([`DEFAULT_MAX_NODES`] by default).
    pub max_nodes: u64,
    /// Where to write the node-count table across depths.
    pub csv: Option<PathBuf>,
    /// Replace an existing `csv` file (a regular file only).
    pub overwrite: bool,
}

impl PlayOptions {
    /// A request for `game` with `method` and every other option at its
    /// default.
    #[must_use]
    pub fn new(game: GameKind, method: Method) -> Self {
        Self {
            game,
            method,
            piles: None,
            board: None,
            layout: None,
            ghosts: None,
            eval: None,
            depth: None,
            max_nodes: DEFAULT_MAX_NODES,
            csv: None,
            overwrite: false,
        }
    }
}

/// Runs the request and returns the text to print. The searches run on a
/// thread of their own with a [`SEARCH_STACK_BYTES`] stack.
///
/// # Errors
/// Options of another game, a missing option, a bad pile list, board or
/// layout, a bad ghost count, depth 0 or over the game's bound, Pacman
/// without a depth, a search the node budget stopped, or a table path that
/// is not a regular file, exists (without `overwrite`) or cannot be
/// written.
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
    if let Some(depth) = opts.depth {
        parse_depth(&depth.to_string(), opts.game)?;
    }
    if opts.max_nodes == 0 {
        return Err(GameError::FlagValue { flag: "--max-nodes", value: "0".into(), rule: "give at least 1" });
    }
    if opts.overwrite && opts.csv.is_none() {
        return Err(GameError::FlagNeeds { flag: "--overwrite", needs: "--csv", why: "it replaces an existing table" });
    }
    if let Some(path) = &opts.csv {
        #[cfg(feature = "tables")]
        table::check_path(path, opts.overwrite)?;
        #[cfg(not(feature = "tables"))]
        return Err(GameError::FlagValue {
            flag: "--csv",
            value: path.display().to_string(),
            rule: "node-count tables need the cargo feature `tables`",
        });
    }
    set_up_and_play(opts)
}

/// Runs `search` on a thread with a [`SEARCH_STACK_BYTES`] stack.
fn on_search_thread<T: Send>(search: impl FnOnce() -> Result<T, GameError> + Send) -> Result<T, GameError> {
    std::thread::scope(|scope| {
        let thread = std::thread::Builder::new()
            .name("play-search".into())
            .stack_size(SEARCH_STACK_BYTES)
            .spawn_scoped(scope, search)
            .map_err(|source| GameError::Thread { source })?;
        match thread.join() {
            Ok(result) => result,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })
}

/// Sets the game up from its options and plays it (the search on its own
/// thread).
fn set_up_and_play(opts: &PlayOptions) -> Result<String, GameError> {
    let game = opts.game.name();
    match opts.game {
        GameKind::Sticks => {
            let piles = opts.piles.as_deref().ok_or(GameError::FlagMissing {
                flag: "--piles",
                game,
                example: "--piles 3,5",
            })?;
            let mut s: Sticks = piles.parse()?;
            let position = s.to_string();
            let longest = s.longest_rest();
            let header = format!("sticks, piles {position}");
            on_search_thread(|| play(&mut s, opts, &header, &position, longest))
        }
        GameKind::TicTacToe => {
            let mut b: TicTacToe = match &opts.board {
                Some(text) => text.parse()?,
                None => TicTacToe::new(),
            };
            let position = b.to_string();
            let longest = b.longest_rest();
            let header = format!("tictactoe, board {position}");
            on_search_thread(|| play(&mut b, opts, &header, &position, longest))
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
            // Without --ghosts the layout's count is the request: say so.
            let mut p = Pacman::new(layout, ghosts, eval).map_err(|e| match (e, opts.ghosts) {
                (GameError::GhostsRange { asked, max }, None) => {
                    GameError::LayoutGhosts { layout: path.display().to_string(), count: asked, max }
                }
                (e, _) => e,
            })?;
            let Some(depth) = opts.depth else {
                return Err(GameError::DepthRequired { game: "pacman" });
            };
            let position = format!("{} ghosts={ghosts} eval={eval}", path.display());
            let plural = if ghosts == 1 { "" } else { "s" };
            let header = format!("pacman, layout {}, {ghosts} ghost{plural}, eval {eval}", path.display());
            on_search_thread(|| play(&mut p, opts, &header, &position, depth))
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

/// The error of a search `method` to `depth` that `e` stopped.
fn stopped(method: Method, depth: Option<u32>, e: Exceeded) -> GameError {
    GameError::NodeBudget {
        method: method.name(),
        extent: depth.map_or("to the end of the game".to_string(), |d| format!("to depth {d}")),
        budget: e.budget,
        seconds: e.elapsed.as_secs_f64(),
    }
}

/// Searches `game`, describes the result, and writes the table if asked
/// (depths `1..=min(opts.depth, longest)`, `longest` being the longest
/// rest of the game, or the depth asked for where the game is endless).
fn play<G: Game>(
    game: &mut G,
    opts: &PlayOptions,
    header: &str,
    position: &str,
    longest: u32,
) -> Result<String, GameError> {
    #[cfg(not(feature = "tables"))]
    let _ = (position, longest); // only the `--csv` table uses them
    let mut out = String::new();
    let budget = Budget(opts.max_nodes);
    let mover = if game.to_move() == MAX { "MAX".to_string() } else { format!("MIN agent {}", game.to_move()) };
    let _ = writeln!(out, "game: {header} ({mover} to move)");
    let depth_text = opts.depth.map_or("to the end of the game".to_string(), |d| format!("{d} plies"));
    let _ = writeln!(out, "method: {}, depth: {depth_text}", opts.method);
    let report = if opts.method == Method::Iterative {
        let d = iterative_deepening_within(game, opts.depth, Ordering::Static, budget);
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
        match (d.total(), d.stopped) {
            (Some(total), Some(e)) => {
                let done = d.iterations.len();
                let _ = writeln!(
                    out,
                    "partial result: depth {} was stopped when the search passed --max-nodes {} positions; \
                     the value and move below are depth {done}'s, the deepest finished",
                    done + 1,
                    e.budget
                );
                let _ = writeln!(
                    out,
                    "stopped depth {}: {} positions made, {} visited, {:.3} ms (not in the nodes and time below)",
                    done + 1,
                    e.made,
                    e.nodes,
                    e.elapsed.as_secs_f64() * 1e3
                );
                total
            }
            (None, Some(e)) => return Err(stopped(opts.method, Some(1), e)),
            (Some(total), None) => total,
            (None, None) => {
                Method::Minimax.run_within(game, opts.depth, budget).map_err(|e| stopped(opts.method, opts.depth, e))?
            }
        }
    } else {
        opts.method.run_within(game, opts.depth, budget).map_err(|e| stopped(opts.method, opts.depth, e))?
    };
    let _ = writeln!(out, "value: {} (from MAX's view)", value_text(report.value));
    let best = report.best_move.map_or("none (the game is over)".to_string(), |m| m.to_string());
    let _ = writeln!(out, "best move: {best}");
    let _ = writeln!(out, "nodes: {}", counts_line(&report));
    let _ = writeln!(out, "time: {:.3} ms", report.elapsed.as_secs_f64() * 1e3);
    #[cfg(feature = "tables")]
    if let Some(path) = &opts.csv {
        let max_depth = opts.depth.map_or(longest, |d| d.min(longest)).max(1);
        let methods: Vec<Method> = Method::ALL.iter().map(|m| m.1).collect();
        let t = table::node_counts(game, &methods, max_depth, budget);
        table::write(path, opts.game.name(), position, &t.rows, opts.overwrite)?;
        let why = match t.end {
            End::GameOver(d) => format!("the game tree ends at depth {d}"),
            End::DepthLimit(d) => format!("the depth limit {d}"),
            End::Budget { depth, method } => format!(
                "depth {depth} not included: {method} there would take the table past --max-nodes {}",
                opts.max_nodes
            ),
        };
        let _ = match t.last_depth() {
            0 => writeln!(out, "node counts: no depth fits ({why}); header only: {}", path.display()),
            last => writeln!(out, "node counts for depths 1..={last} ({why}): {}", path.display()),
        };
    }
    Ok(out)
}
