//! `train [run] --config configs/<name>.toml`: train an oracle; `train
//! export` and `train export-weights`: a trained run for other tools and
//! for shipping.
//!
//! Thin entry point: parse arguments into one request of the library
//! (`TrainOptions` and a `TrainConfig`, or an export's two folders) and call
//! `cube_oracle::learn::training::run` or `cube_oracle::learn::export`.
//! Errors are printed on one line with their causes
//! (`cube_oracle::folder::one_line`) and give exit status 1; an interrupted
//! (Ctrl-C) run exits with 130 after writing a checkpoint.

use clap::{Args, Parser, Subcommand};
use cube_oracle::folder::one_line;
use cube_oracle::learn::config::TrainConfig;
use cube_oracle::learn::export;
use cube_oracle::learn::training::{self, TrainOptions};
use cube_oracle::rundir::Existing;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(
    name = "train",
    version,
    about = "Train a self-supervised oracle: policy, Q-distance or value (see configs/); `run` is the \
             default mode",
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
struct Cli {
    /// Without a mode: the flags of `train run`.
    #[command(flatten)]
    run: RunArgs,
    #[command(subcommand)]
    mode: Option<Mode>,
}

/// The modes of `train`.
#[derive(Subcommand, Debug)]
enum Mode {
    /// Train (or resume) the run a config describes (the default mode).
    Run(RunArgs),
    /// Write a run's network for other tools into a new folder.
    ///
    /// The folder holds model.safetensors (f32, PyTorch layout), model.json (the model card)
    /// and check.safetensors (a fixed batch and the network's outputs;
    /// benches/exported_check.py verifies a loader against it).
    Export(ExportArgs),
    /// Copy a run for solving and shipping, without the optimiser state.
    ///
    /// The new folder holds the run's files and its newest checkpoint
    /// stripped of the optimiser state: `solve --run` uses it; training
    /// cannot resume from it.
    ExportWeights(ExportArgs),
}

/// The flags of `train run`.
#[derive(Args, Debug)]
struct RunArgs {
    /// TOML config file.
    #[arg(long, required = true)]
    config: Option<PathBuf>,
    /// Continue the existing run directory from its latest checkpoint.
    #[arg(long, conflicts_with = "overwrite")]
    resume: bool,
    /// Delete an existing run directory of the same name and start afresh.
    #[arg(long)]
    overwrite: bool,
    /// With --resume: start logs that cannot be continued (unreadable or
    /// malformed) afresh, keeping each old file beside it as
    /// `<file>.before-resume`, instead of stopping with an error.
    #[arg(long, requires = "resume")]
    fresh_logs: bool,
    /// With --resume: continue a run that started on another device
    /// (`backend.device`) on the config's device; `meta.json` records the
    /// device of every leg.
    #[arg(long, requires = "resume")]
    switch_device: bool,
    /// Stop after this many steps in this invocation (the run stays resumable).
    #[arg(long, value_name = "N")]
    max_steps: Option<u64>,
    /// Never draw a progress bar.
    #[arg(long)]
    no_progress: bool,
}

/// The arguments of both exports.
#[derive(Args, Debug)]
struct ExportArgs {
    /// The trained run directory.
    #[arg(value_name = "RUN_DIR")]
    run: PathBuf,
    /// Destination directory (must not exist, nor lie inside the run).
    #[arg(long, value_name = "DIR")]
    to: PathBuf,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.mode {
        None => train(&cli.run),
        Some(Mode::Run(args)) => train(&args),
        Some(Mode::Export(e)) => export::export(&e.run, &e.to).map(|dir| say(&dir)).map_err(anyhow::Error::from),
        Some(Mode::ExportWeights(e)) => {
            export::export_weights(&e.run, &e.to).map(|path| say(&path)).map_err(anyhow::Error::from)
        }
    };
    match result {
        Ok(true) => ExitCode::from(130),
        Ok(false) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", one_line(e.as_ref()));
            ExitCode::FAILURE
        }
    }
}

/// Prints an export's path; an export is never interrupted.
fn say(path: &std::path::Path) -> bool {
    cube_oracle::say!("{}", path.display());
    false
}

/// Trains as `args` say; whether the run was interrupted.
fn train(args: &RunArgs) -> anyhow::Result<bool> {
    let Some(config) = &args.config else { unreachable!("clap requires --config for a run") };
    let cfg = TrainConfig::load(config)?;
    let existing = match (args.resume, args.overwrite) {
        (true, _) => Existing::Resume,
        (_, true) => Existing::Overwrite,
        _ => Existing::Refuse,
    };
    let opts = TrainOptions {
        existing,
        command_line: std::env::args().collect::<Vec<_>>().join(" "),
        progress: !args.no_progress && std::io::stderr().is_terminal(),
        max_steps_this_leg: args.max_steps,
        fresh_logs: args.fresh_logs,
        switch_device: args.switch_device,
    };
    Ok(training::run(&cfg, &opts)?.interrupted)
}
