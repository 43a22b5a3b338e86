//! `study --fit`: every finished point's `point.csv` gathered into the
//! study's `points.csv`, and the laws of [`crate::powerlaw`] fitted to them into
//! `fit.csv`, one row per fitted quantity:
//!
//! - `held_out_loss` against `(N, D)`: `E + A/N^α + B/D^β`, with the
//!   compute-optimal split `N_opt ∝ C^(β/(α+β))` of `C = 6·N·D`;
//! - `held_out_loss` against `C`: `E + A/C^α`;
//! - `mean_length` at each evaluated width against `C`, and against
//!   `(N, D)`, with the compute at which the length law reaches
//!   `eval.target_length` when the study names one.
//!
//! Each row carries bootstrap 95 % intervals of `E`, `α` and `β` and the
//! mean absolute residual; `plots/loss-vs-flops` draws the points and the
//! fitted `L(C)`.

use super::{POINT_FILE, Study, StudyError};
use crate::csvlog::{Col, read_columns, write_table};
use crate::plot::{Chart, Series, Style};
use crate::powerlaw::{self as fit, Fit};
use crate::rundir::write_atomic;
use std::path::PathBuf;

/// Bootstrap resamples per fit.
const RESAMPLES: usize = 200;

/// What `--fit` wrote.
#[derive(Clone, Debug)]
pub struct Merged {
    /// Finished points found.
    pub points: usize,
    /// `points.csv`.
    pub table: PathBuf,
    /// `fit.csv` (absent with too few points to fit anything).
    pub fits: Option<PathBuf>,
}

/// Gathers the finished points of `study` and fits what they allow.
///
/// # Errors
/// A point table or the outputs cannot be read or written.
pub fn merge(study: &Study) -> Result<Merged, StudyError> {
    let dir = study.dir();
    let mut header: Option<String> = None;
    let mut body = String::new();
    let mut points = 0;
    for p in &study.points {
        let path = p.config.run_dir().join(POINT_FILE);
        let Ok(text) = std::fs::read_to_string(&path) else { continue };
        let mut lines = text.lines();
        let Some(h) = lines.next() else { continue };
        match &header {
            None => header = Some(h.to_string()),
            Some(first) if first != h => {
                eprintln!("skipping {}: its columns differ from the other points'", path.display());
                continue;
            }
            Some(_) => {}
        }
        for line in lines.filter(|l| !l.is_empty()) {
            body.push_str(line);
            body.push('\n');
        }
        points += 1;
    }
    std::fs::create_dir_all(&dir)
        .map_err(|e| crate::csvlog::TableError::from(crate::rundir::FileError::at("creating", &dir)(e)))?;
    let table = dir.join("points.csv");
    let Some(header) = header else {
        return Ok(Merged { points: 0, table, fits: None });
    };
    write_atomic(&table, format!("{header}\n{body}").as_bytes()).map_err(crate::csvlog::TableError::from)?;
    let fits = fit_all(study, &table)?;
    Ok(Merged { points, table, fits })
}

/// One row of `fit.csv`.
struct Row {
    target: String,
    against: &'static str,
    width: u64,
    fit: Fit,
    ci: [(f64, f64); 5],
    flops_for_target: f64,
    n_opt_exponent: f64,
}

fn fit_all(study: &Study, table: &std::path::Path) -> Result<Option<PathBuf>, StudyError> {
    let names = ["parameters", "samples", "flops", "held_out_loss", "width", "mean_length"];
    let c = read_columns(table, &names)?;
    let (n, d, flops, loss, width, length) = (&c[0], &c[1], &c[2], &c[3], &c[4], &c[5]);
    let mut rows = Vec::new();
    // The loss once per point: the rows of its narrowest width.
    let narrowest = width.iter().copied().fold(f64::INFINITY, f64::min);
    let once: Vec<usize> = (0..n.len()).filter(|&i| width[i] == narrowest).collect();
    let pick = |v: &[f64], idx: &[usize]| idx.iter().map(|&i| v[i]).collect::<Vec<f64>>();
    let seed = 2026;
    let (pn, pd, pc, pl) = (pick(n, &once), pick(d, &once), pick(flops, &once), pick(loss, &once));
    if let Some(f) = fit::fit(&pn, Some(&pd), &pl) {
        let l = f.law;
        rows.push(Row {
            target: "held_out_loss".into(),
            against: "N+D",
            width: 0,
            fit: f,
            ci: fit::bootstrap(&pn, Some(&pd), &pl, RESAMPLES, seed),
            flops_for_target: f64::NAN,
            n_opt_exponent: l.beta / (l.alpha + l.beta),
        });
    }
    let loss_c = fit::fit(&pc, None, &pl);
    if let Some(f) = loss_c {
        rows.push(one_var("held_out_loss", 0, f, fit::bootstrap(&pc, None, &pl, RESAMPLES, seed), f64::NAN));
    }
    let mut widths: Vec<u64> = width.iter().map(|&w| w as u64).collect();
    widths.sort_unstable();
    widths.dedup();
    let target = study.config.eval.target_length;
    for w in widths {
        let idx: Vec<usize> = (0..n.len()).filter(|&i| width[i] as u64 == w && length[i].is_finite()).collect();
        let (wc, wl, wn, wd) = (pick(flops, &idx), pick(length, &idx), pick(n, &idx), pick(d, &idx));
        if let Some(f) = fit::fit(&wc, None, &wl) {
            let reach = target.and_then(|t| f.law.reaches(t)).unwrap_or(f64::NAN);
            rows.push(one_var("mean_length", w, f, fit::bootstrap(&wc, None, &wl, RESAMPLES, seed), reach));
        }
        if let Some(f) = fit::fit(&wn, Some(&wd), &wl) {
            let l = f.law;
            rows.push(Row {
                target: "mean_length".into(),
                against: "N+D",
                width: w,
                fit: f,
                ci: fit::bootstrap(&wn, Some(&wd), &wl, RESAMPLES, seed),
                flops_for_target: f64::NAN,
                n_opt_exponent: l.beta / (l.alpha + l.beta),
            });
        }
    }
    let dir = study.dir();
    loss_chart(&pn, &pc, &pl, loss_c.as_ref())
        .save(&dir.join("plots").join("loss-vs-flops"))
        .map_err(|e| StudyError::Invalid { path: dir.clone(), message: e.to_string() })?;
    if rows.is_empty() {
        return Ok(None);
    }
    let col = |f: fn(&Row) -> f64| Col::F64(rows.iter().map(f).collect());
    let path = dir.join("fit.csv");
    write_table(
        &path,
        vec![
            ("target", Col::Str(rows.iter().map(|r| r.target.clone()).collect())),
            ("against", Col::Str(rows.iter().map(|r| r.against.to_string()).collect())),
            ("width", Col::U64(rows.iter().map(|r| r.width).collect())),
            ("points", Col::U64(rows.iter().map(|r| r.fit.points as u64).collect())),
            ("e", col(|r| r.fit.law.e)),
            ("e_low", col(|r| r.ci[0].0)),
            ("e_high", col(|r| r.ci[0].1)),
            ("a", col(|r| r.fit.law.a)),
            ("alpha", col(|r| r.fit.law.alpha)),
            ("alpha_low", col(|r| r.ci[2].0)),
            ("alpha_high", col(|r| r.ci[2].1)),
            ("b", col(|r| r.fit.law.b)),
            ("beta", col(|r| r.fit.law.beta)),
            ("beta_low", col(|r| r.ci[4].0)),
            ("beta_high", col(|r| r.ci[4].1)),
            ("mae", col(|r| r.fit.mae)),
            ("n_opt_exponent", col(|r| r.n_opt_exponent)),
            ("flops_for_target", col(|r| r.flops_for_target)),
        ],
    )?;
    Ok(Some(path))
}

fn one_var(target: &str, width: u64, fit: Fit, ci: [(f64, f64); 5], reach: f64) -> Row {
    Row { target: target.into(), against: "C", width, fit, ci, flops_for_target: reach, n_opt_exponent: f64::NAN }
}

fn loss_chart(params: &[f64], flops: &[f64], loss: &[f64], law: Option<&Fit>) -> Chart {
    let mut chart = Chart::new("Held-out loss against training compute", "training FLOPs (6·N·D)", "held-out loss");
    chart.log_x = true;
    // One curve per network size N, its points in order of compute.
    let mut sizes: Vec<f64> = params.to_vec();
    sizes.sort_by(f64::total_cmp);
    sizes.dedup();
    for n in sizes {
        let mut points: Vec<(f64, f64)> =
            (0..params.len()).filter(|&i| params[i] == n).map(|i| (flops[i], loss[i])).collect();
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        chart = chart.with(Series::new(format!("N = {n:.2e}"), Style::Measured, points));
    }
    if let Some(f) = law {
        let (lo, hi) = flops.iter().fold((f64::INFINITY, 0.0f64), |(a, b), &v| (a.min(v), b.max(v)));
        let curve = (0..=40)
            .map(|i| {
                let x = lo * (hi / lo).powf(f64::from(i) / 40.0);
                (x, f.law.at(x, 1.0))
            })
            .collect();
        chart.note = Some(format!("L = {:.3} + {:.3e}/C^{:.3}", f.law.e, f.law.a, f.law.alpha));
        chart = chart.with(Series::new("fitted L(C)", Style::Guide, curve));
    }
    chart
}
