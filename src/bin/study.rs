//! `study --config configs/study/<name>.toml [--shard k/n | --point NAME] [--device D] [--reevaluate] [--fresh-logs] [--fit | --adopt]`: train
//! and evaluate the points of a scaling study (`cube_oracle::study`), each
//! an ordinary resumable run under `runs/<study>/`; `--fit` gathers the
//! finished points into `points.csv` and fits the laws into `fit.csv`.
//!
//! Thin entry point: errors are printed on one line with their causes
//! (`cube_oracle::folder::one_line`) and give exit status 1; an interrupted
//! (Ctrl-C) point exits with 130, resumable.

use clap::Parser;
use cube_oracle::learn::config::DeviceKind;
use cube_oracle::study::{self, PointOptions, PointState, Study};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(name = "study", version, about = "Train and evaluate a scaling study's grid of runs; fit its laws")]
struct Args {
    /// The study file (configs/study/*.toml).
    #[arg(long)]
    config: PathBuf,
    /// Run only shard k of n (every n-th point from the k-th, 0 <= k < n),
    /// e.g. a job array's task index.
    #[arg(long, value_name = "k/n", conflicts_with = "list")]
    shard: Option<String>,
    /// Run only this point, as `--list` names it (repeatable; in the order
    /// given), e.g. to put one point ahead of the rest of its shard.
    #[arg(long = "point", value_name = "NAME", conflicts_with_all = ["shard", "list"])]
    point: Vec<String>,
    /// Train the study's points on the CPU or (a build with --features gpu)
    /// the GPU, with f32 products there; a run keeps the device it started
    /// on (see --switch-device). Evaluation is always on the CPU.
    #[arg(long, value_enum, conflicts_with_all = ["fit", "list"])]
    device: Option<DeviceKind>,
    /// Resume points whose runs started on another device on this one
    /// (the CPU, or `--device`'s) instead of skipping them; each point's
    /// `meta.json` records the device of every leg.
    #[arg(long, conflicts_with_all = ["fit", "list"])]
    switch_device: bool,
    /// Evaluate again the finished points that were evaluated with another
    /// `[eval]` than the study's now (without it they are refused, and
    /// left out of the fits).
    #[arg(long, conflicts_with_all = ["fit", "list"])]
    reevaluate: bool,
    /// Resume a point whose `meta.json` or training logs cannot be read
    /// with those files started afresh (the old ones are kept beside them)
    /// instead of refusing it.
    #[arg(long, conflicts_with_all = ["fit", "list"])]
    fresh_logs: bool,
    /// Only gather the finished points and fit the laws; train nothing.
    #[arg(long, conflicts_with_all = ["shard", "point", "list"])]
    fit: bool,
    /// Only list the points (name, parameters, samples, FLOPs, finished).
    #[arg(long)]
    list: bool,
    /// Record the files now in the study's folder (its tables, plots and
    /// points' `point.csv`) as the study's own, in its ledger: for a
    /// folder written before studies kept one. Check the files first: the
    /// study will replace them.
    #[arg(long, conflicts_with_all = ["shard", "point", "list", "fit", "device", "switch_device", "reevaluate", "fresh_logs", "no_progress"])]
    adopt: bool,
    /// Never draw a progress bar (while points train; --fit and --list
    /// draw none).
    #[arg(long, conflicts_with_all = ["fit", "list"])]
    no_progress: bool,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {}", cube_oracle::folder::one_line(e.as_ref()));
            ExitCode::FAILURE
        }
    }
}

fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let mut study = Study::load(&args.config)?;
    if let Some(device) = args.device {
        study.on_device(device)?;
    }
    if args.adopt {
        let dir = study.dir();
        let depends = |rel: &str| {
            study
                .points
                .iter()
                .find(|p| p.table.strip_prefix(&dir).is_ok_and(|r| r.to_string_lossy() == rel))
                .map(|p| study.dependencies(p))
        };
        let n = study::Ledger::adopt(&dir, &depends)?;
        cube_oracle::say!("{}: {n} files recorded as the study's in {}", dir.display(), study::ledger::LEDGER);
        return Ok(ExitCode::SUCCESS);
    }
    if args.list {
        // `finished`: evaluated, and still what the study file says; a
        // stale point is named on standard error.
        // A folder without a ledger lists as unfinished, and says why once.
        let ledger = match study::Ledger::for_writing(&study.dir()) {
            Err(e @ study::StudyError::Unledgered { .. }) => {
                eprintln!("{}", cube_oracle::folder::one_line(&e));
                study::Ledger::read(&study.dir())?
            }
            other => other?,
        };
        cube_oracle::say!("point,parameters,samples,flops,finished");
        for p in &study.points {
            let stale = study::stale(&study, &ledger, p)?;
            if let Some(why) = &stale {
                eprintln!("point {}: {why}", p.name);
            }
            let done = p.table.is_file() && stale.is_none();
            cube_oracle::say!("{},{},{},{:.3e},{done}", p.name, p.parameters, p.samples, p.flops());
        }
        return Ok(ExitCode::SUCCESS);
    }
    if !args.fit {
        let progress = !args.no_progress && std::io::stderr().is_terminal();
        let points = if args.point.is_empty() {
            let (k, n) = args.shard.as_deref().map(study::parse_shard).transpose()?.unwrap_or((0, 1));
            study.shard(k, n)
        } else {
            study.named(&args.point)?
        };
        for (i, p) in points.iter().enumerate() {
            eprintln!(
                "point {}/{}: {} ({} parameters, {} samples)",
                i + 1,
                points.len(),
                p.name,
                p.parameters,
                p.samples
            );
            let opts = PointOptions {
                progress,
                switch_device: args.switch_device,
                reevaluate: args.reevaluate,
                fresh_logs: args.fresh_logs,
            };
            match study::run_point(&study, p, opts)? {
                PointState::Skipped => eprintln!("  finished before; skipped"),
                PointState::Done => eprintln!("  done: {}", p.table.display()),
                PointState::OtherDevice(d) => {
                    let d = d.name();
                    eprintln!(
                        "  started on the {d}, still training: skipped (resume it with --device {d}, or here with --switch-device)"
                    );
                }
                PointState::Stopped => {
                    eprintln!("  interrupted; run the same command to resume");
                    return Ok(ExitCode::from(130));
                }
            }
        }
    }
    let merged = study::merge::merge(&study)?;
    if merged.points > 0 {
        cube_oracle::say!("{} of {} points finished: {}", merged.points, study.points.len(), merged.table.display());
    }
    let too_few = "a law in C needs 4 finished points over at least 3 budgets, a law in N and D 6 over at least \
                   3 sizes and 3 sample counts";
    if let Some(p) = &merged.paired {
        cube_oracle::say!("variants paired with their controls: {}", p.display());
    }
    match merged.fits {
        Some(f) => cube_oracle::say!("fits: {}", f.display()),
        // A study of variants at one budget has no law to fit: its table
        // is the pairing.
        None if merged.paired.is_some() => cube_oracle::say!("no law to fit yet ({too_few})"),
        None if args.fit && merged.points == 0 => {
            anyhow::bail!("--fit: none of the {} points is finished; nothing to gather", study.points.len())
        }
        // Asked for a fit, and none is possible: an error, not a silent pass.
        None if args.fit => anyhow::bail!(
            "--fit: {} of {} points finished, too few to fit anything ({too_few}); {} written",
            merged.points,
            study.points.len(),
            merged.table.display()
        ),
        None => cube_oracle::say!("too few finished points to fit a law yet ({too_few})"),
    }
    Ok(ExitCode::SUCCESS)
}
