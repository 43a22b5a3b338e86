//! `play …`: adversarial search on a game position — the sticks game,
//! tic-tac-toe or a Pacman layout — with minimax, αβ, ordered αβ or
//! iterative deepening, printing the value, the best move, the node counts
//! and the time; `--csv` adds a node-count table across depths.
//!
//! Thin entry point: parse arguments and call `cube_oracle::games::play::run`.
//! Errors are printed on one line with their causes
//! (`cube_oracle::folder::one_line`) and give exit status 1.

use anyhow::Context;
use clap::Parser;
use cube_oracle::games::Method;
use cube_oracle::games::pacman::Eval;
use cube_oracle::games::play::{self, GameKind, PlayOptions, parse_depth, parse_ghosts, parse_max_nodes};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(
    name = "play",
    version,
    about = "Adversarial search (minimax, alpha-beta, iterative deepening) on sticks, tic-tac-toe and Pacman"
)]
struct Args {
    /// The game: sticks, tictactoe or pacman.
    #[arg(long)]
    game: String,
    /// Search method: minimax, alphabeta (default), alphabeta-ordered, iterative.
    #[arg(long, default_value = "alphabeta")]
    method: String,
    /// Sticks: the pile sizes, e.g. 3,5.
    #[arg(long)]
    piles: Option<String>,
    /// Tic-tac-toe: a position as three rows of x, o, . separated by /, e.g. "x.o/.x./..o" (default: the empty board).
    #[arg(long)]
    board: Option<String>,
    /// Pacman: a layout file (% wall, . food, o capsule, P Pacman, G ghost), e.g. data/pacman/small.lay; at most 100
    /// rows of 100 cells, so a file over 10200 bytes (or not a regular file) is refused unread.
    #[arg(long)]
    layout: Option<PathBuf>,
    /// Pacman: play with the layout's first K ghosts, 1 to 8 (default: all of them).
    #[arg(long, value_name = "K")]
    ghosts: Option<String>,
    /// Pacman: evaluation at the depth limit, ratio (default) or features.
    #[arg(long)]
    eval: Option<String>,
    /// Depth limit in plies (one move of one agent each); default: search to the end of the game (required for
    /// pacman). At most the longest game: 8000 for sticks (8 piles of 1000 sticks), 9 for tic-tac-toe; at most 1000
    /// for pacman (a stated cap: its game tree is infinite). Larger values are refused.
    #[arg(long, value_name = "D", allow_hyphen_values = true)]
    depth: Option<String>,
    /// Node budget: a search stops (with an error, or for iterative with the deepest finished depth, marked partial)
    /// once it has made more than N positions, every move listed counting one whether searched, probed or pruned (a
    /// Pacman position counts 1 + (food + capsules + ghosts)/32). The --csv table's searches share another N.
    /// Digits, 100_000_000 or 1e8.
    #[arg(long, value_name = "N", default_value = "20000000", allow_hyphen_values = true)]
    max_nodes: String,
    /// Also write a node-count table (every method at depths 1..=D) to this CSV file; it stops where the game tree
    /// ends or before the depth that would exceed --max-nodes. A path holding anything but a regular file (a FIFO,
    /// a symbolic link, a device, a directory) is refused.
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,
    /// Replace an existing --csv file (a regular file only); refused without --csv.
    #[arg(long)]
    overwrite: bool,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let result = (|| -> anyhow::Result<String> {
        let game = args.game.parse::<GameKind>().context("--game")?;
        let opts = PlayOptions {
            game,
            method: args.method.parse::<Method>().context("--method")?,
            piles: args.piles.clone(),
            board: args.board.clone(),
            layout: args.layout.clone(),
            ghosts: args.ghosts.as_deref().map(parse_ghosts).transpose()?,
            eval: args.eval.as_deref().map(str::parse::<Eval>).transpose().context("--eval")?,
            depth: args.depth.as_deref().map(|d| parse_depth(d, game)).transpose()?,
            max_nodes: parse_max_nodes(&args.max_nodes)?,
            csv: args.csv.clone(),
            overwrite: args.overwrite,
        };
        Ok(play::run(&opts)?)
    })();
    match result {
        Ok(text) => {
            // A closed standard output (`play … | head -1`) is not an error.
            let _ = std::io::Write::write_all(&mut std::io::stdout(), text.as_bytes());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {}", cube_oracle::folder::one_line(e.as_ref()));
            ExitCode::FAILURE
        }
    }
}
