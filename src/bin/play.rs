//! `play …`: adversarial search on a game position — the sticks game,
//! tic-tac-toe or a Pacman layout — with minimax, αβ, ordered αβ or
//! iterative deepening, printing the value, the best move, the node counts
//! and the time; `--csv` adds a node-count table across depths.
//!
//! Thin entry point: parse arguments and call `cube_oracle::games::play::run`.
//! Errors are printed with their causes and give exit status 1.

use anyhow::Context;
use clap::Parser;
use cube_oracle::games::Method;
use cube_oracle::games::pacman::Eval;
use cube_oracle::games::play::{self, GameKind, PlayOptions};
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
    /// Pacman: a layout file (% wall, . food, o capsule, P Pacman, G ghost), e.g. data/pacman/small.lay.
    #[arg(long)]
    layout: Option<PathBuf>,
    /// Pacman: play with the layout's first K ghosts (default: all of them).
    #[arg(long, value_name = "K")]
    ghosts: Option<usize>,
    /// Pacman: evaluation at the depth limit, ratio (default) or features.
    #[arg(long)]
    eval: Option<String>,
    /// Depth limit in plies (one move of one agent each); default: search to the end of the game (required for pacman).
    #[arg(long)]
    depth: Option<u32>,
    /// Also write a node-count table (every method at depths 1..=D) to this CSV file.
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,
    /// Replace an existing --csv file.
    #[arg(long)]
    overwrite: bool,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let result = (|| -> anyhow::Result<String> {
        let opts = PlayOptions {
            game: args.game.parse::<GameKind>().context("--game")?,
            method: args.method.parse::<Method>().context("--method")?,
            piles: args.piles.clone(),
            board: args.board.clone(),
            layout: args.layout.clone(),
            ghosts: args.ghosts,
            eval: args.eval.as_deref().map(str::parse::<Eval>).transpose().context("--eval")?,
            depth: args.depth,
            csv: args.csv.clone(),
            overwrite: args.overwrite,
        };
        Ok(play::run(&opts)?)
    })();
    match result {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
