//! `train --config configs/<name>.toml`: train a policy oracle.
//!
//! Thin entry point: parse arguments, load the config, dispatch to
//! `cube_oracle::learn::training::run`. Errors are printed on one line with
//! their causes (`cube_oracle::folder::one_line`) and give exit status 1; an
//! interrupted (Ctrl-C) run exits with 130 after writing a checkpoint.

use clap::Parser;
use cube_oracle::folder::one_line;
use cube_oracle::learn::config::TrainConfig;
use cube_oracle::learn::export;
use cube_oracle::learn::training::{self, TrainOptions};
use cube_oracle::rundir::Existing;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(group(clap::ArgGroup::new("exporting").args(["export", "export_weights"])))]
#[command(
    name = "train",
    version,
    about = "Train a self-supervised oracle: policy, Q-distance or value (see configs/)"
)]
struct Args {
    /// TOML config file.
    #[arg(long, required_unless_present_any = ["export_weights", "export"])]
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
    /// Never draw a progress bar (while training; the exports draw none).
    #[arg(long, conflicts_with_all = ["export_weights", "export"])]
    no_progress: bool,
    /// Instead of training: copy this run directory to --to with its newest
    /// checkpoint stripped of the optimiser state (for solving and shipping).
    #[arg(long, value_name = "RUN_DIR", requires = "to", conflicts_with_all = ["config", "resume", "overwrite", "max_steps", "export"])]
    export_weights: Option<PathBuf>,
    /// Instead of training: write this run's network for other tools into
    /// --to: model.safetensors (f32, PyTorch layout), model.json (the model
    /// card) and check.safetensors (a fixed batch and the network's outputs;
    /// benches/exported_check.py verifies a loader against it).
    #[arg(long, value_name = "RUN_DIR", requires = "to", conflicts_with_all = ["config", "resume", "overwrite", "max_steps"])]
    export: Option<PathBuf>,
    /// Destination directory of --export-weights or --export (must not
    /// exist, nor lie inside the run).
    #[arg(long, value_name = "DIR", requires = "exporting")]
    to: Option<PathBuf>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    if let (Some(run), Some(to)) = (&args.export, &args.to) {
        return match export::export(run, to) {
            Ok(dir) => {
                cube_oracle::say!("{}", dir.display());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {}", one_line(&e));
                ExitCode::FAILURE
            }
        };
    }
    if let (Some(run), Some(to)) = (&args.export_weights, &args.to) {
        return match export::export_weights(run, to) {
            Ok(path) => {
                cube_oracle::say!("{}", path.display());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {}", one_line(&e));
                ExitCode::FAILURE
            }
        };
    }
    let Some(config) = &args.config else { unreachable!("clap requires --config without an export") };
    let result = TrainConfig::load(config).map_err(anyhow::Error::from).and_then(|cfg| {
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
        Ok(training::run(&cfg, &opts)?)
    });
    match result {
        Ok(o) if o.interrupted => ExitCode::from(130),
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", one_line(e.as_ref()));
            ExitCode::FAILURE
        }
    }
}
