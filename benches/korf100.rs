//! IDA* with additive pattern databases on Korf's 100 15-puzzles (and a
//! 24-puzzle smoke run), against the published node counts of Korf &
//! Felner 2002 and Felner, Korf & Hanan 2004.
//!
//! ```text
//! cargo bench --bench korf100 -- [--h pdb-7-8+r,pdb-7-8,pdb-6-6-3,pdb-5-5-5] [--h cells:1,2,3/4,5,6+r]
//!                                [--range 1..100] [--puzzle24 korf|deepcubea]
//!                                [--easiest K] [--limit-s 60] [--verbose]
//! ```
//!
//! Tables are loaded from (or built into) the pattern database cache
//! (`CUBE_ORACLE_CACHE`, default `~/.cache/cube-oracle`). Prints one row per
//! heuristic: instances, whether every solution has the published optimal
//! length, nodes generated (total and per instance, with the published
//! average), time (total and per instance) and nodes per second.

use std::time::{Duration, Instant};

use cube_oracle::heuristics::Heuristic;
use cube_oracle::heuristics::sliding_pdb::{AdditivePdb, Partition};
use cube_oracle::heuristics::store::{CacheOutcome, cache_dir};
use cube_oracle::puzzle::Puzzle;
use cube_oracle::search::{Limits, Status, ida_star};
use cube_oracle::sliding::{Goal, Sliding};

const KORF100: &str = include_str!("../data/puzzle15-korf100.tsv");
const KORF50: &str = include_str!("../data/puzzle24-korf50.tsv");
const DEEPCUBEA24: &str = include_str!("../data/puzzle24-deepcubea-test-496.tsv");

/// Published IDA* nodes generated per instance on Korf's 100 (anchors.md).
fn published(h: &str) -> Option<f64> {
    match h {
        "pdb-5-5-5" => Some(3.1e6),
        "pdb-6-6-3" => Some(6.2e5),
        "pdb-7-8" => Some(1.4e5),
        "pdb-7-8+r" => Some(3.7e4),
        _ => None,
    }
}

fn instances(text: &str) -> Vec<(u32, Vec<u8>, usize)> {
    text.lines()
        .skip(1)
        .map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            let tiles = f[1].split_whitespace().map(|t| t.parse().expect("tile")).collect();
            (f[0].parse().expect("id"), tiles, f[2].parse().expect("optimal"))
        })
        .collect()
}

/// `pdb-7-8`, `pdb-7-8+r`, or goal cells such as `cells:1,2,3/4,5,8,9,12,13/6,7,10,11,14,15+r`.
fn heuristic(p: &Sliding, name: &str) -> anyhow::Result<(AdditivePdb, String)> {
    let spec = name.strip_prefix("pdb-").unwrap_or(name);
    let (part, reflect) = match spec.strip_suffix("+r") {
        Some(part) => (part, true),
        None => (spec, false),
    };
    let t = Instant::now();
    let cache = cache_dir();
    let h = match part.strip_prefix("cells:") {
        Some(cells) => {
            let patterns = cells
                .split('/')
                .map(|pat| pat.split(',').map(|c| c.trim().parse::<u8>()).collect::<Result<Vec<_>, _>>())
                .collect::<Result<Vec<_>, _>>()?;
            AdditivePdb::with_partition(p, &Partition::from_cells(patterns), reflect, cache.as_deref())?
        }
        None => AdditivePdb::new(p, part, reflect, cache.as_deref())?,
    };
    let how: Vec<String> = h
        .outcomes()
        .iter()
        .zip(h.patterns())
        .map(|(o, pat)| match o {
            CacheOutcome::Loaded(_) => format!("{}-tile loaded", pat.tiles().len()),
            CacheOutcome::Built { seconds, .. } => format!("{}-tile built {seconds:.1}s", pat.tiles().len()),
        })
        .collect();
    Ok((h, format!("{} ({:.1}s)", how.join(", "), t.elapsed().as_secs_f64())))
}

struct Args {
    heuristics: Vec<String>,
    range: (u32, u32),
    puzzle24: Option<String>,
    easiest: Option<usize>,
    limit: Duration,
    verbose: bool,
}

fn parse_args() -> anyhow::Result<Args> {
    let mut a = Args {
        heuristics: vec!["pdb-7-8+r".into(), "pdb-7-8".into()],
        range: (1, 100),
        puzzle24: None,
        easiest: None,
        limit: Duration::from_secs(60),
        verbose: false,
    };
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    let mut given = false;
    while i < argv.len() {
        let value = || argv.get(i + 1).cloned().ok_or_else(|| anyhow::anyhow!("{} needs a value", argv[i]));
        match argv[i].as_str() {
            "--h" | "--heuristic" => {
                // A list, or one `cells:` spec (whose commas are its own);
                // repeat `--h` for several.
                let v = value()?;
                if !given {
                    a.heuristics.clear();
                    given = true;
                }
                if v.contains("cells:") {
                    a.heuristics.push(v);
                } else {
                    a.heuristics.extend(v.split(',').map(str::to_string));
                }
                i += 1;
            }
            "--range" => {
                let v = value()?;
                let (lo, hi) = v.split_once("..").ok_or_else(|| anyhow::anyhow!("--range wants A..B, got {v}"))?;
                a.range = (lo.parse()?, hi.parse()?);
                i += 1;
            }
            "--puzzle24" => {
                a.puzzle24 = Some(value()?);
                i += 1;
            }
            "--easiest" => {
                a.easiest = Some(value()?.parse()?);
                i += 1;
            }
            "--limit-s" => {
                a.limit = Duration::from_secs_f64(value()?.parse()?);
                i += 1;
            }
            "--verbose" | "-v" => a.verbose = true,
            // `cargo bench` passes `--bench`; ignore it and other flags.
            _ => {}
        }
        i += 1;
    }
    Ok(a)
}

fn korf100(args: &Args) -> anyhow::Result<()> {
    let p = Sliding::new(4, Goal::BlankFirst)?;
    let set: Vec<_> =
        instances(KORF100).into_iter().filter(|(id, _, _)| (args.range.0..=args.range.1).contains(id)).collect();
    println!("Korf's 100 15-puzzles (blank-first goal), instances {}..{}: IDA*", args.range.0, args.range.1);
    println!(
        "{:<12} {:>5} {:>8} {:>15} {:>12} {:>11} {:>9} {:>10} {:>12}  tables",
        "heuristic", "n", "optimal", "generated", "per inst.", "published", "time s", "s/inst.", "nodes/s"
    );
    for name in &args.heuristics {
        let (h, how) = heuristic(&p, name)?;
        let (mut nodes, mut time, mut optimal) = (0u64, Duration::ZERO, 0usize);
        for (id, tiles, opt) in &set {
            let b = p.board(tiles)?;
            let out = ida_star(&p, &h, &b, Limits::default(), 100);
            let ok = out.status == Status::Solved && out.path.len() == *opt;
            optimal += usize::from(ok);
            nodes += out.generated;
            time += out.elapsed;
            if args.verbose || !ok {
                println!(
                    "  #{id}: h0 {} length {:?} (optimal {opt}) generated {} in {:.3}s{}",
                    h.estimate(&p, &b),
                    out.cost(),
                    out.generated,
                    out.elapsed.as_secs_f64(),
                    if ok { "" } else { "  NOT OPTIMAL" }
                );
            }
        }
        let n = set.len().max(1) as f64;
        println!(
            "{:<12} {:>5} {:>8} {:>15} {:>12.3e} {:>11} {:>9.2} {:>10.4} {:>12.3e}  {how}",
            h.name(),
            set.len(),
            if optimal == set.len() { "all".to_string() } else { format!("{optimal}/{}", set.len()) },
            nodes,
            nodes as f64 / n,
            published(&h.name()).map_or("-".to_string(), |v| format!("{v:.1e}")),
            time.as_secs_f64(),
            time.as_secs_f64() / n,
            nodes as f64 / time.as_secs_f64().max(1e-9),
        );
    }
    Ok(())
}

fn puzzle24(args: &Args, which: &str) -> anyhow::Result<()> {
    let (goal, text) = match which {
        "korf" => (Goal::BlankFirst, KORF50),
        "deepcubea" => (Goal::BlankLast, DEEPCUBEA24),
        other => anyhow::bail!("--puzzle24 wants korf or deepcubea, got {other}"),
    };
    let p = Sliding::new(5, goal)?;
    let (h, how) = heuristic(&p, "pdb-6-6-6-6+r")?;
    println!("24-puzzle ({which}, {}), {}; tables: {how}", p.name(), h.name());
    let limits = Limits { max_time: args.limit, ..Limits::default() };
    let (mut solved, mut tried) = (0, 0);
    let mut set: Vec<_> =
        instances(text).into_iter().filter(|(id, _, _)| (args.range.0..=args.range.1).contains(id)).collect();
    if let Some(k) = args.easiest {
        set.sort_by_key(|(id, _, opt)| (*opt, *id));
        set.truncate(k);
    }
    for (id, tiles, opt) in &set {
        let b = p.board(tiles)?;
        let out = ida_star(&p, &h, &b, limits, 200);
        tried += 1;
        let ok = out.status == Status::Solved && out.path.len() == *opt;
        solved += usize::from(ok);
        println!(
            "  #{id}: h0 {} optimal {opt}: {:?} length {:?} generated {} in {:.1}s ({:.3e} nodes/s)",
            h.estimate(&p, &b),
            out.status,
            out.cost(),
            out.generated,
            out.elapsed.as_secs_f64(),
            out.generated as f64 / out.elapsed.as_secs_f64().max(1e-9)
        );
    }
    println!("solved optimally within {:.0}s each: {solved}/{tried}", args.limit.as_secs_f64());
    Ok(())
}

fn main() -> anyhow::Result<()> {
    let args = parse_args()?;
    match &args.puzzle24 {
        Some(which) => puzzle24(&args, which),
        None => korf100(&args),
    }
}
