//! The objective study's table: each variant against the control it varies,
//! cube by cube. For every variant, width and seed that both the variant's
//! and the control's points have finished, the lengths of the instances
//! both solved are paired; a cube's difference is averaged over the seeds,
//! and `variants.csv` gives the mean difference with its 95% interval over
//! cubes, the cubes the variant solves shorter and longer, and the scatter
//! of the per-seed mean differences (the seed scatter the interval is read
//! beside).

use super::{Source, Study, StudyError};
use crate::csvlog::{Col, read_columns, read_text_column, write_table};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The file, in the study's folder.
pub const FILE: &str = "variants.csv";

/// Lengths by `(width, instance id)` of the instances a point solved, and
/// the share of each width it solved.
type Solved = (BTreeMap<(u64, String), f64>, BTreeMap<u64, (u64, u64)>);

fn solved(instances: &Path) -> Result<Solved, StudyError> {
    let c = read_columns(instances, &["width", "length"])?;
    let ok = read_text_column(instances, "solved")?;
    // An instance's id is text: a test set's number or `random-<i>`.
    let ids = read_text_column(instances, "id")?;
    let mut lengths = BTreeMap::new();
    let mut share: BTreeMap<u64, (u64, u64)> = BTreeMap::new();
    for i in 0..ok.len() {
        let w = c[0][i] as u64;
        let e = share.entry(w).or_default();
        e.1 += 1;
        if ok[i] == "true" && c[1][i].is_finite() {
            lengths.insert((w, ids[i].clone()), c[1][i]);
            e.0 += 1;
        }
    }
    Ok((lengths, share))
}

/// A point's per-instance solutions: `<run>/solve/study-eval/instances.csv`.
fn instances(study: &Study, name: &str) -> Option<PathBuf> {
    let p = study.points.iter().find(|p| p.name == name && p.source == Source::Trained)?;
    if !p.table.is_file() {
        return None;
    }
    Some(p.config.run_dir().join("solve").join("study-eval").join("instances.csv")).filter(|f| f.is_file())
}

/// Writes `variants.csv` for a study with variants, over the points that
/// are finished (and not stale: `finished`); returns its path, or `None`
/// when no variant has a finished pair.
///
/// # Errors
/// A point's `instances.csv` cannot be read, or the table cannot be written.
pub fn write(study: &Study, finished: &[&str]) -> Result<Option<PathBuf>, StudyError> {
    #[derive(Default)]
    struct Acc {
        seeds: Vec<u64>,
        per_seed: Vec<f64>,
        by_cube: BTreeMap<String, Vec<f64>>,
        solved: [(u64, u64); 2],
        control_len: Vec<f64>,
        variant_len: Vec<f64>,
    }
    let mut acc: BTreeMap<(String, u64), Acc> = BTreeMap::new();
    for p in &study.points {
        let Some((variant, control)) = &p.variant else { continue };
        if !finished.contains(&p.name.as_str()) || !finished.contains(&control.as_str()) {
            continue;
        }
        let (Some(vi), Some(ci)) = (instances(study, &p.name), instances(study, control)) else { continue };
        let (vl, vs) = solved(&vi)?;
        let (cl, cs) = solved(&ci)?;
        for (&w, &v_share) in &vs {
            let Some(&c_share) = cs.get(&w) else { continue };
            let a = acc.entry((variant.clone(), w)).or_default();
            a.seeds.push(p.config.run.seed);
            a.solved[0].0 += c_share.0;
            a.solved[0].1 += c_share.1;
            a.solved[1].0 += v_share.0;
            a.solved[1].1 += v_share.1;
            let (mut sum, mut n) = (0.0, 0u64);
            for ((_, id), &lv) in vl.iter().filter(|((vw, _), _)| *vw == w) {
                if let Some(&lc) = cl.get(&(w, id.clone())) {
                    a.by_cube.entry(id.clone()).or_default().push(lv - lc);
                    a.control_len.push(lc);
                    a.variant_len.push(lv);
                    sum += lv - lc;
                    n += 1;
                }
            }
            a.per_seed.push(if n > 0 { sum / n as f64 } else { f64::NAN });
        }
    }
    let path = study.dir().join(FILE);
    if acc.is_empty() {
        return Ok(None);
    }
    let mut cols: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    let (mut names, mut seeds) = (Vec::new(), Vec::new());
    let mut widths = Vec::new();
    for ((variant, w), a) in &acc {
        let diffs: Vec<f64> = a.by_cube.values().map(|d| d.iter().sum::<f64>() / d.len() as f64).collect();
        let n = diffs.len() as f64;
        let mean = diffs.iter().sum::<f64>() / n;
        let sd = (diffs.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
        let s = a.per_seed.len() as f64;
        let seed_mean = a.per_seed.iter().sum::<f64>() / s;
        let scatter = if a.per_seed.len() > 1 {
            (a.per_seed.iter().map(|d| (d - seed_mean).powi(2)).sum::<f64>() / (s - 1.0)).sqrt()
        } else {
            f64::NAN
        };
        let avg = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        let pct = |(k, t): (u64, u64)| 100.0 * k as f64 / t as f64;
        names.push(variant.clone());
        widths.push(*w);
        seeds.push(a.seeds.iter().map(u64::to_string).collect::<Vec<_>>().join(" "));
        for (k, v) in [
            ("paired_cubes", n),
            ("control_solved_pct", pct(a.solved[0])),
            ("variant_solved_pct", pct(a.solved[1])),
            ("control_mean_length", avg(&a.control_len)),
            ("variant_mean_length", avg(&a.variant_len)),
            ("difference", mean),
            ("ci95", 1.96 * sd / n.sqrt()),
            ("shorter", diffs.iter().filter(|&&d| d < 0.0).count() as f64),
            ("longer", diffs.iter().filter(|&&d| d > 0.0).count() as f64),
            ("seed_scatter", scatter),
        ] {
            cols.entry(k).or_default().push(v);
        }
    }
    let order = [
        "paired_cubes",
        "control_solved_pct",
        "variant_solved_pct",
        "control_mean_length",
        "variant_mean_length",
        "difference",
        "ci95",
        "shorter",
        "longer",
        "seed_scatter",
    ];
    let mut table = vec![("variant", Col::Str(names)), ("width", Col::U64(widths)), ("seeds", Col::Str(seeds))];
    for k in order {
        let v = cols.remove(k).unwrap_or_default();
        table.push((
            k,
            if ["paired_cubes", "shorter", "longer"].contains(&k) {
                Col::U64(v.iter().map(|&x| x as u64).collect())
            } else {
                Col::F64(v)
            },
        ));
    }
    write_table(&path, table)?;
    Ok(Some(path))
}
