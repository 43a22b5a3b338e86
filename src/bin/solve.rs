//! `solve --run runs/<name> …`: solve cubes with a trained oracle.
//!
//! Thin entry point: parse arguments and dispatch to
//! `cube_oracle::solve::run`. Errors are printed with their causes and give
//! exit status 1.

use clap::{ArgGroup, Parser};
use cube_oracle::cube3::Metric;
use cube_oracle::solve::{self, SolveOptions, Source, widths};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(name = "solve", version, about = "Solve cubes by beam search with a trained oracle")]
#[command(group(ArgGroup::new("input").required(true).args(["facelets", "scramble", "testset", "random"])))]
struct Args {
    /// The trained run directory (uses its config.toml and newest checkpoint).
    #[arg(long)]
    run: PathBuf,
    /// Use this checkpoint instead of the run's newest.
    #[arg(long)]
    checkpoint: Option<PathBuf>,
    /// One cube as a 54-character URFDLB facelet string.
    #[arg(long)]
    facelets: Option<String>,
    /// One cube as a move sequence from solved, e.g. "R U R' U'".
    #[arg(long)]
    scramble: Option<String>,
    /// A built-in test set (deepcubea, deepcubea-100, deepcubea-10) or a TSV file.
    #[arg(long)]
    testset: Option<String>,
    /// N random cubes (100-move random walks).
    #[arg(long, value_name = "N")]
    random: Option<usize>,
    /// Seed for --random.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Beam width.
    #[arg(long)]
    beam_width: Option<usize>,
    /// Beam width as a power of two, or a sweep `A..B` (inclusive).
    #[arg(long)]
    beam_log2: Option<String>,
    /// Depth limit; deeper instances are reported unsolved.
    #[arg(long, default_value_t = 40)]
    max_depth: usize,
    /// Keep duplicate states in the beam (EfficientCube's variant).
    #[arg(long)]
    no_dedup: bool,
    /// Metric the model must have been trained in (qtm or htm).
    #[arg(long)]
    metric: Option<String>,
    /// Output folder name under runs/<name>/solve/.
    #[arg(long)]
    label: Option<String>,
    /// Replace an existing output folder of the same label.
    #[arg(long)]
    overwrite: bool,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let result = (|| {
        let widths = widths::parse(args.beam_width, args.beam_log2.as_deref())?;
        let metric = match args.metric.as_deref() {
            None => None,
            Some("qtm") => Some(Metric::Qtm),
            Some("htm") => Some(Metric::Htm),
            Some(other) => anyhow::bail!("--metric {other}: expected qtm or htm"),
        };
        let source = if let Some(f) = &args.facelets {
            Source::Facelets(f.clone())
        } else if let Some(s) = &args.scramble {
            Source::Scramble(s.clone())
        } else if let Some(t) = &args.testset {
            Source::TestSet(t.clone())
        } else {
            match args.random {
                Some(0) => anyhow::bail!("--random 0: give at least one cube"),
                Some(n) => Source::Random { n, seed: args.seed },
                None => unreachable!("clap requires one input"),
            }
        };
        let single = matches!(source, Source::Facelets(_) | Source::Scramble(_));
        let opts = SolveOptions {
            run_dir: args.run.clone(),
            checkpoint: args.checkpoint.clone(),
            source,
            widths,
            max_depth: args.max_depth,
            dedup: !args.no_dedup,
            metric,
            label: args.label.clone(),
            overwrite: args.overwrite,
            progress: !single && std::io::stderr().is_terminal(),
        };
        solve::run(&opts)
    })();
    match result {
        Ok(dir) => {
            println!("results in {}", dir.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
