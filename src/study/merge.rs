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
//!
//! As a cross-check of the law's compute-optimal split (Chinchilla's
//! Approach 2), every compute budget with at least three network sizes gets
//! an iso-FLOP curve: a parabola of the held-out loss in `ln N`, whose
//! minimum is that budget's `N_opt` (`plots/isoflop`). `frontier.csv` sets
//! the two approaches side by side: `N_opt` and `D_opt = C / 6N_opt` at
//! every budget of the grid and at four times the largest, and the
//! exponents `a` of `N_opt ∝ C^a` (Approach 2 by a least-squares line
//! through the curves' minima in log–log, Approach 3 as `β/(α+β)`).

use super::{Study, StudyError, forecast};
use crate::csvlog::{Col, read_columns, read_text_column, write_table};
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
    /// `variants.csv` (absent without a finished variant and its control).
    pub paired: Option<PathBuf>,
}

/// Gathers the finished points of `study` and fits what they allow.
///
/// # Errors
/// A point table or the outputs cannot be read or written, or an output's
/// path holds something other than a regular file.
pub fn merge(study: &Study) -> Result<Merged, StudyError> {
    let dir = study.dir();
    // Its outputs are replaced by renames: never over a FIFO, a link or a folder.
    for table in OUTPUTS {
        super::check_table_path(&dir.join(table))?;
    }
    // Shards that end together merge one after the other, each over every
    // point finished by then.
    let _one_at_a_time = lock_waiting(&dir)?;
    // Only the study's own files are replaced or removed: each output is
    // checked against the ledger before anything is written.
    let mut ledger = super::ledger::Ledger::for_writing(&dir)?;
    for rel in MERGED {
        ledger.check(&dir.join(rel))?;
    }
    let mut header: Option<String> = None;
    let mut body = String::new();
    let mut finished = 0;
    let mut names: Vec<&str> = Vec::new();
    for p in &study.points {
        let path = &p.table;
        if !path.is_file() {
            continue;
        }
        if let Some(why) = super::stale(study, &ledger, p)? {
            eprintln!("left out: point {}: {why}", p.name);
            continue;
        }
        let Ok(text) = crate::bounded::read_regular_text(path, crate::csvlog::MAX_LOG_BYTES) else { continue };
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
        finished += 1;
        names.push(&p.name);
    }
    std::fs::create_dir_all(&dir)
        .map_err(|e| crate::csvlog::TableError::from(crate::rundir::FileError::at("creating", &dir)(e)))?;
    let table = dir.join("points.csv");
    let Some(header) = header else {
        // Nothing finished (any more): tables of earlier points are stale.
        for stale in OUTPUTS {
            super::remove_stale(&dir.join(stale))?;
        }
        ledger.settle(&MERGED)?;
        return Ok(Merged { points: 0, table, fits: None, paired: None });
    };
    write_atomic(&table, format!("{header}\n{body}").as_bytes()).map_err(crate::csvlog::TableError::from)?;
    let paired = super::variants::write(study, &names);
    if matches!(paired, Ok(None)) {
        super::remove_stale(&dir.join(super::variants::FILE))?;
    }
    let fits = fit_all(study, &table);
    // What was written is recorded, even when a later table failed.
    ledger.settle(&MERGED)?;
    Ok(Merged { points: finished, table, paired: paired?, fits: fits? })
}

/// Every file a merge writes or removes, relative to the study's folder.
const MERGED: [&str; 11] = [
    "points.csv",
    "variants.csv",
    "fit.csv",
    "forecasts.csv",
    "frontier.csv",
    "plots/loss-vs-flops.png",
    "plots/loss-vs-flops.svg",
    "plots/isoflop.png",
    "plots/isoflop.svg",
    "plots/frontier.png",
    "plots/frontier.svg",
];

/// The tables a merge writes in the study's folder.
const OUTPUTS: [&str; 5] = ["points.csv", "variants.csv", "fit.csv", "forecasts.csv", "frontier.csv"];

/// How long a merge waits for another one on the same study.
const MERGE_WAIT: std::time::Duration = std::time::Duration::from_secs(600);

/// The study folder's lock, waited for (a merge takes seconds).
pub(super) fn lock_waiting(dir: &std::path::Path) -> Result<crate::folder::FolderLock, StudyError> {
    let start = std::time::Instant::now();
    let mut said = false;
    loop {
        match crate::folder::lock(dir) {
            Ok(lock) => return Ok(lock),
            Err(crate::folder::FolderError::Locked { holder, .. }) if start.elapsed() < MERGE_WAIT => {
                if !said {
                    eprintln!("waiting for {holder}, which is gathering {} too", dir.display());
                    said = true;
                }
                std::thread::sleep(std::time::Duration::from_millis(250));
            }
            Err(e) => return Err(StudyError::Lock(e)),
        }
    }
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
    let columns = ["parameters", "samples", "flops", "held_out_loss", "width", "mean_length", "solved_pct"];
    let c = read_columns(table, &columns)?;
    let (n, d, flops, loss, width, length) = (&c[0], &c[1], &c[2], &c[3], &c[4], &c[5]);
    // The share left unsolved falls towards a floor as the oracle improves:
    // fitted in the same form as the loss and the length.
    let unsolved: Vec<f64> = c[6].iter().map(|s| 100.0 - s).collect();
    let mut rows = Vec::new();
    // The loss once per point, from its first row. A point without a finite
    // loss (none logged, or a diverged run) leaves the loss fits, not the
    // solve-quality ones, and is named.
    let names = read_text_column(table, "point")?;
    let mut seen = std::collections::HashSet::new();
    let once: Vec<usize> = (0..names.len()).filter(|&i| seen.insert(&names[i])).collect();
    let (once, lossless): (Vec<usize>, Vec<usize>) = once.into_iter().partition(|&i| loss[i].is_finite());
    if !lossless.is_empty() {
        let named: Vec<&str> = lossless.iter().map(|&i| names[i].as_str()).collect();
        eprintln!("left out of the loss fits, without a finite held-out loss: {}", named.join(", "));
    }
    let pick = |v: &[f64], idx: &[usize]| idx.iter().map(|&i| v[i]).collect::<Vec<f64>>();
    let seed = 2026;
    let (pn, pd, pc, pl) = (pick(n, &once), pick(d, &once), pick(flops, &once), pick(loss, &once));
    // `fit` needs three levels of each variable (budgets equal to three
    // digits are one): points of one budget alone say nothing of a law in C.
    if let Some(f) = fit::fit(&pn, Some(&pd), &pl) {
        rows.push(two_var("held_out_loss", 0, f, fit::bootstrap(&pn, Some(&pd), &pl, RESAMPLES, seed)));
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
        for (target_name, values) in [("mean_length", length), ("unsolved_pct", &unsolved)] {
            let idx: Vec<usize> = (0..n.len()).filter(|&i| width[i] as u64 == w && values[i].is_finite()).collect();
            let (wc, wv, wn, wd) = (pick(flops, &idx), pick(values, &idx), pick(n, &idx), pick(d, &idx));
            if let Some(f) = fit::fit(&wc, None, &wv) {
                let reach = match (target_name, target) {
                    ("mean_length", Some(t)) => f.law.reaches(t).unwrap_or(f64::NAN),
                    _ => f64::NAN,
                };
                rows.push(one_var(target_name, w, f, fit::bootstrap(&wc, None, &wv, RESAMPLES, seed), reach));
            }
            if let Some(f) = fit::fit(&wn, Some(&wd), &wv) {
                rows.push(two_var(target_name, w, f, fit::bootstrap(&wn, Some(&wd), &wv, RESAMPLES, seed)));
            }
        }
    }
    let dir = study.dir();
    let plot_err = |e: crate::plot::PlotError| StudyError::Invalid { path: dir.clone(), message: e.to_string() };
    loss_chart(&pn, &pc, &pl, loss_c.as_ref()).save(&dir.join("plots").join("loss-vs-flops")).map_err(plot_err)?;
    let curves = iso_flop(&pn, &pc, &pl);
    if !curves.is_empty() {
        iso_flop_chart(&pn, &pc, &pl, &curves).save(&dir.join("plots").join("isoflop")).map_err(plot_err)?;
    }
    let named: Vec<String> = once.iter().map(|&i| names[i].clone()).collect();
    let points = forecast::Points { names: &named, params: &pn, samples: &pd, flops: &pc, loss: &pl };
    forecast::write(&dir, &points)?;
    let law = rows.iter().find(|r| r.target == "held_out_loss" && r.against == "N+D").map(|r| r.fit.law);
    if let Some(chart) = frontier(&dir, &curves, law.as_ref(), &pc, &pn)? {
        chart.save(&dir.join("plots").join("frontier")).map_err(plot_err)?;
    }
    let path = dir.join("fit.csv");
    if rows.is_empty() {
        // No law fits what is finished now: an earlier fit.csv would be stale.
        super::remove_stale(&path)?;
        return Ok(None);
    }
    let col = |f: fn(&Row) -> f64| Col::F64(rows.iter().map(f).collect());
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
            // The exponent of a term fitted to 0 is undetermined: empty.
            ("alpha", col(|r| if r.fit.law.a > 0.0 { r.fit.law.alpha } else { f64::NAN })),
            ("alpha_low", col(|r| r.ci[2].0)),
            ("alpha_high", col(|r| r.ci[2].1)),
            ("b", col(|r| r.fit.law.b)),
            ("beta", col(|r| if r.against == "C" || r.fit.law.b > 0.0 { r.fit.law.beta } else { f64::NAN })),
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

/// A row of a law in `(N, D)`, with its compute-optimal exponent `β/(α+β)`.
fn two_var(target: &str, width: u64, fit: Fit, ci: [(f64, f64); 5]) -> Row {
    let l = fit.law;
    // A term fitted to 0 leaves its exponent, and so the split, undetermined.
    let n_opt_exponent = if l.a > 0.0 && l.b > 0.0 { l.beta / (l.alpha + l.beta) } else { f64::NAN };
    Row { target: target.into(), against: "N+D", width, fit, ci, flops_for_target: f64::NAN, n_opt_exponent }
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

/// One budget's iso-FLOP curve: `loss = c0 + c1·ln N + c2·(ln N)²` over the
/// points trained with (about) `flops`.
#[derive(Clone, Debug)]
struct IsoFlop {
    flops: f64,
    points: usize,
    coef: [f64; 3],
    /// The minimum's `N` (`NaN` where the parabola opens downwards).
    n_opt: f64,
    /// Whether `n_opt` lies within the sizes trained at this budget.
    inside: bool,
    /// `(min, max)` of the sizes trained at this budget.
    range: (f64, f64),
}

/// The iso-FLOP curves of every budget with at least three distinct sizes.
fn iso_flop(params: &[f64], flops: &[f64], loss: &[f64]) -> Vec<IsoFlop> {
    let mut keys: Vec<i64> = flops.iter().map(|&c| fit::level(c)).collect();
    keys.sort_unstable();
    keys.dedup();
    let mut out = Vec::new();
    for key in keys {
        let idx: Vec<usize> =
            (0..flops.len()).filter(|&i| fit::level(flops[i]) == key && loss[i].is_finite()).collect();
        let mut sizes: Vec<f64> = idx.iter().map(|&i| params[i]).collect();
        sizes.sort_by(f64::total_cmp);
        sizes.dedup();
        if sizes.len() < 3 {
            continue;
        }
        let x: Vec<f64> = idx.iter().map(|&i| params[i].ln()).collect();
        let y: Vec<f64> = idx.iter().map(|&i| loss[i]).collect();
        let Some(coef) = parabola(&x, &y) else { continue };
        let n_opt = if coef[2] > 0.0 { (-coef[1] / (2.0 * coef[2])).exp() } else { f64::NAN };
        let range = (sizes[0], sizes[sizes.len() - 1]);
        out.push(IsoFlop {
            flops: idx.iter().map(|&i| flops[i]).sum::<f64>() / idx.len() as f64,
            points: idx.len(),
            coef,
            n_opt,
            inside: n_opt >= range.0 && n_opt <= range.1,
            range,
        });
    }
    out
}

/// Least-squares `y = c0 + c1·x + c2·x²` (normal equations, solved by
/// Cramer's rule on the centred `x`); `None` when the points are degenerate.
fn parabola(x: &[f64], y: &[f64]) -> Option<[f64; 3]> {
    let m = x.iter().sum::<f64>() / x.len() as f64;
    let mut s = [0.0f64; 5];
    let mut t = [0.0f64; 3];
    for (&xi, &yi) in x.iter().zip(y) {
        let u = xi - m;
        let mut p = 1.0;
        for (k, sk) in s.iter_mut().enumerate() {
            *sk += p;
            if k < 3 {
                t[k] += p * yi;
            }
            p *= u;
        }
    }
    let a = [[s[0], s[1], s[2]], [s[1], s[2], s[3]], [s[2], s[3], s[4]]];
    let det = |m: [[f64; 3]; 3]| {
        m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    };
    let d = det(a);
    if d.abs() < 1e-12 * s[0].powi(3).max(1.0) {
        return None;
    }
    let mut c = [0.0; 3];
    for (j, cj) in c.iter_mut().enumerate() {
        let mut aj = a;
        for (row, &tv) in aj.iter_mut().zip(&t) {
            row[j] = tv;
        }
        *cj = det(aj) / d;
    }
    // Back from u = x − m: c0 + c1(x − m) + c2(x − m)².
    Some([c[0] - c[1] * m + c[2] * m * m, c[1] - 2.0 * c[2] * m, c[2]])
}

/// The slope and intercept of the least-squares line `y = a·x + b`.
fn line(x: &[f64], y: &[f64]) -> Option<(f64, f64)> {
    let n = x.len() as f64;
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let sxx: f64 = x.iter().map(|v| (v - mx).powi(2)).sum();
    let sxy: f64 = x.iter().zip(y).map(|(a, b)| (a - mx) * (b - my)).sum();
    (x.len() >= 2 && sxx > 0.0).then(|| (sxy / sxx, my - sxy / sxx * mx))
}

/// `frontier.csv`: the compute-optimal `N` and `D` at every budget of the
/// grid and at four times the largest, by the iso-FLOP minima (Approach 2,
/// only budgets whose minimum lies within the sizes trained) and by the
/// `L(N, D)` law (Approach 3), with each approach's exponent of
/// `N_opt ∝ C^a`.
///
/// Returns the frontier's chart (`N_opt` against `C`, log–log: the iso-FLOP
/// minima, both approaches' lines, and the points trained), when there is a
/// budget.
fn frontier(
    dir: &std::path::Path,
    curves: &[IsoFlop],
    law: Option<&fit::Law>,
    flops: &[f64],
    params: &[f64],
) -> Result<Option<Chart>, StudyError> {
    let path = dir.join("frontier.csv");
    super::check_table_path(&path)?;
    let inside: Vec<&IsoFlop> = curves.iter().filter(|c| c.inside).collect();
    let lx: Vec<f64> = inside.iter().map(|c| c.flops.ln()).collect();
    let ly: Vec<f64> = inside.iter().map(|c| c.n_opt.ln()).collect();
    let approach2 = line(&lx, &ly);
    // Nothing to say about the frontier yet (no iso-FLOP curve, no law):
    // no table of blanks, and none left from an earlier fit.
    if curves.is_empty() && approach2.is_none() && law.is_none() {
        super::remove_stale(&path)?;
        return Ok(None);
    }
    let mut budgets: Vec<f64> = Vec::new();
    for &c in flops {
        if !budgets.iter().any(|&b| fit::level(b) == fit::level(c)) {
            budgets.push(c);
        }
    }
    budgets.sort_by(f64::total_cmp);
    let Some(&largest) = budgets.last() else { return Ok(None) };
    budgets.push(4.0 * largest);
    let mut cols: [Vec<f64>; 7] = Default::default();
    let mut kinds = Vec::new();
    for &c in &budgets {
        let measured = curves.iter().find(|k| fit::level(k.flops) == fit::level(c));
        let n2 = approach2.map_or(f64::NAN, |(a, b)| (a * c.ln() + b).exp());
        let n3 = law.map_or(f64::NAN, |l| l.optimal_split(c).0);
        kinds.push(if c > largest { "prediction" } else { "grid" }.to_string());
        for (col, v) in cols.iter_mut().zip([
            c,
            measured.map_or(f64::NAN, |k| k.n_opt),
            measured.map_or(f64::NAN, |k| k.points as f64),
            n2,
            c / 6.0 / n2,
            n3,
            c / 6.0 / n3,
        ]) {
            col.push(v);
        }
    }
    let rows = budgets.len();
    let [c, n_min, pts, n2, d2, n3, d3] = cols;
    write_table(
        &path,
        vec![
            ("flops", Col::F64(c)),
            ("budget", Col::Str(kinds)),
            ("isoflop_points", Col::F64(pts)),
            ("isoflop_n_opt", Col::F64(n_min)),
            ("approach2_n_opt", Col::F64(n2)),
            ("approach2_d_opt", Col::F64(d2)),
            ("approach2_exponent", Col::F64(vec![approach2.map_or(f64::NAN, |(a, _)| a); rows])),
            ("approach3_n_opt", Col::F64(n3)),
            ("approach3_d_opt", Col::F64(d3)),
            ("approach3_exponent", Col::F64(vec![law.map_or(f64::NAN, |l| l.beta / (l.alpha + l.beta)); rows])),
        ],
    )?;
    let mut chart = Chart::new("Compute-optimal network size", "training FLOPs (6·N·D)", "parameters N");
    chart.log_x = true;
    chart.log_y = true;
    let trained = (0..params.len()).map(|i| (flops[i], params[i])).collect();
    chart = chart.with(Series::new("points trained", Style::Points, trained));
    let minima: Vec<(f64, f64)> = inside.iter().map(|k| (k.flops, k.n_opt)).collect();
    if !minima.is_empty() {
        chart = chart.with(Series::new("iso-FLOP minima", Style::Points, minima));
    }
    let span = |f: &dyn Fn(f64) -> f64| -> Vec<(f64, f64)> {
        let (lo, hi) = (budgets[0], 4.0 * largest);
        (0..=40).map(|i| lo * (hi / lo).powf(f64::from(i) / 40.0)).map(|c| (c, f(c))).filter(|p| p.1 > 0.0).collect()
    };
    if let Some((a, b)) = approach2 {
        chart = chart.with(Series::new(
            format!("Approach 2: N_opt ∝ C^{a:.2}"),
            Style::Guide,
            span(&|c: f64| (a * c.ln() + b).exp()),
        ));
    }
    if let Some(l) = law {
        let a = l.beta / (l.alpha + l.beta);
        chart = chart.with(Series::new(
            format!("Approach 3: N_opt ∝ C^{a:.2}"),
            Style::Guide,
            span(&|c: f64| l.optimal_split(c).0),
        ));
    }
    Ok(Some(chart))
}

/// Held-out loss against `N`, one measured curve and its fitted parabola
/// per compute budget, the minima marked.
fn iso_flop_chart(params: &[f64], flops: &[f64], loss: &[f64], curves: &[IsoFlop]) -> Chart {
    let mut chart = Chart::new("Iso-FLOP curves: held-out loss against network size", "parameters N", "held-out loss");
    chart.log_x = true;
    for k in curves {
        let mut points: Vec<(f64, f64)> = (0..params.len())
            .filter(|&i| fit::level(flops[i]) == fit::level(k.flops))
            .map(|i| (params[i], loss[i]))
            .collect();
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        chart = chart.with(Series::new(format!("C = {:.1e}", k.flops), Style::Measured, points));
        let (lo, hi) = k.range;
        let curve = (0..=30)
            .map(|i| {
                let n = lo * (hi / lo).powf(f64::from(i) / 30.0);
                let x = n.ln();
                (n, k.coef[0] + k.coef[1] * x + k.coef[2] * x * x)
            })
            .collect();
        chart = chart.with(Series::new(format!("fit, N_opt = {:.2e}", k.n_opt), Style::Guide, curve));
    }
    chart
}

#[cfg(test)]
mod tests {
    use super::{fit, iso_flop, line, parabola};

    /// Points of one budget are never fitted as a law in C.
    #[test]
    fn one_budget_is_not_a_spread() {
        let one = [3e13, 3.000_000_1e13, 3e13 * (1.0 + 1e-7), 3e13, 3e13];
        assert_eq!(fit::levels(&one), 1);
        assert!(fit::fit(&one, None, &[5.0, 4.0, 3.0, 2.0, 1.0]).is_none());
        assert_eq!(fit::levels(&[1e13, 3e13, 1e14, 1e14]), 3);
    }

    #[test]
    fn a_parabola_through_exact_points_is_recovered() {
        let x = [1.0, 2.0, 3.0, 4.5];
        let y: Vec<f64> = x.iter().map(|v| 2.0 - 3.0 * v + 0.5 * v * v).collect();
        let c = parabola(&x, &y).unwrap();
        for (got, want) in c.iter().zip([2.0, -3.0, 0.5]) {
            assert!((got - want).abs() < 1e-9, "{c:?}");
        }
        assert!(parabola(&[1.0, 1.0, 1.0], &[1.0, 2.0, 3.0]).is_none());
        assert_eq!(line(&[0.0, 1.0, 2.0], &[1.0, 3.0, 5.0]), Some((2.0, 1.0)));
    }

    /// Losses from a known `L(N, D)` along two budgets: each curve's minimum
    /// lies where the law's own optimum does, within the sizes sampled.
    #[test]
    fn iso_flop_minima_follow_the_law() {
        let law = crate::powerlaw::Law { e: 1.6, a: 400.0, alpha: 0.5, b: 900.0, beta: 0.5 };
        let (mut n, mut c, mut l) = (Vec::new(), Vec::new(), Vec::new());
        for budget in [1e13, 1e14] {
            for k in 0..9 {
                let p = 1e4 * 10f64.powf(f64::from(k) * 0.375);
                n.push(p);
                c.push(budget * (1.0 + 1e-7 * f64::from(k)));
                l.push(law.at(p, budget / 6.0 / p));
            }
        }
        let curves = iso_flop(&n, &c, &l);
        assert_eq!(curves.len(), 2);
        for k in &curves {
            let want = law.optimal_split(k.flops).0;
            assert!(k.inside, "{k:?}");
            assert!((k.n_opt / want).ln().abs() < 0.25, "N_opt {} against the law's {want}", k.n_opt);
        }
    }
}
