//! `forecasts.csv`: how well the loss law predicts budgets it has not
//! seen. For each compute budget `C_k` among the finished points, the law
//! `L(N, D) = E + A/N^α + B/D^β` is fitted to the points of the smaller
//! budgets alone (when they allow a two-variable fit), and it predicts the
//! held-out loss of every point at `C_k` and above, beside the loss that
//! point measured, and the loss-optimal size at that point's budget. The
//! fits are the same least squares as `fit.csv`'s, so a forecast stated
//! before a budget was trained is recomputed from the committed points every
//! time the study is fitted, and its error is read off rather than argued.

use super::StudyError;
use crate::csvlog::{Col, write_table};
use crate::powerlaw as fit;
use std::path::{Path, PathBuf};

/// The finished points, one entry each (their first row).
pub(super) struct Points<'a> {
    pub names: &'a [String],
    pub params: &'a [f64],
    pub samples: &'a [f64],
    pub flops: &'a [f64],
    pub loss: &'a [f64],
}

/// Writes `dir/forecasts.csv` (removing a stale one when no forecast is
/// possible); returns its path when written.
///
/// # Errors
/// The table cannot be written or removed.
pub(super) fn write(dir: &Path, p: &Points) -> Result<Option<PathBuf>, StudyError> {
    let path = dir.join("forecasts.csv");
    super::check_table_path(&path)?;
    let key = fit::level;
    let mut budgets: Vec<i64> = p.flops.iter().map(|&c| key(c)).collect();
    budgets.sort_unstable();
    budgets.dedup();
    let mut cols: [Vec<f64>; 9] = Default::default();
    let mut names = Vec::new();
    for &cut in budgets.iter().skip(1) {
        let below: Vec<usize> =
            (0..p.names.len()).filter(|&i| key(p.flops[i]) < cut && p.loss[i].is_finite()).collect();
        let pick = |v: &[f64]| below.iter().map(|&i| v[i]).collect::<Vec<f64>>();
        let (n, d, l) = (pick(p.params), pick(p.samples), pick(p.loss));
        // (None below three levels of N or of D.)
        let Some(f) = fit::fit(&n, Some(&d), &l) else { continue };
        let fitted_up_to = below.iter().map(|&i| p.flops[i]).fold(0.0, f64::max);
        for j in (0..p.names.len()).filter(|&j| key(p.flops[j]) >= cut) {
            let predicted = f.law.at(p.params[j], p.samples[j]);
            names.push(p.names[j].clone());
            for (col, v) in cols.iter_mut().zip([
                fitted_up_to,
                below.len() as f64,
                p.params[j],
                p.samples[j],
                p.flops[j],
                p.loss[j],
                predicted,
                predicted - p.loss[j],
                f.law.optimal_split(p.flops[j]).0,
            ]) {
                col.push(v);
            }
        }
    }
    if names.is_empty() {
        super::remove_stale(&path)?;
        return Ok(None);
    }
    let [up_to, used, n, d, c, measured, predicted, error, n_opt] = cols;
    write_table(
        &path,
        vec![
            ("fitted_up_to_flops", Col::F64(up_to)),
            ("fitted_points", Col::U64(used.iter().map(|&v| v as u64).collect())),
            ("point", Col::Str(names)),
            ("parameters", Col::F64(n)),
            ("samples", Col::F64(d)),
            ("flops", Col::F64(c)),
            ("held_out_loss", Col::F64(measured)),
            ("predicted_loss", Col::F64(predicted)),
            ("error", Col::F64(error)),
            ("predicted_n_opt", Col::F64(n_opt)),
        ],
    )?;
    Ok(Some(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Points drawn from a known law are forecast to within float error
    /// from the budgets below them, and each forecast names the fit it came
    /// from.
    #[test]
    fn a_law_forecasts_its_own_larger_budgets() {
        let law = fit::Law { e: 2.0, a: 40.0, alpha: 0.4, b: 300.0, beta: 0.5 };
        let sizes = [1e4, 3e4, 1e5, 3e5];
        let budgets = [1e11, 3e11, 1e12, 3e12];
        let (mut names, mut n, mut d, mut c, mut l) = (vec![], vec![], vec![], vec![], vec![]);
        for &cb in &budgets {
            for &nn in &sizes {
                let dd = cb / 6.0 / nn;
                names.push(format!("n{nn:e}-c{cb:e}"));
                n.push(nn);
                d.push(dd);
                c.push(cb);
                l.push(law.at(nn, dd));
            }
        }
        let dir = std::env::temp_dir().join(format!("cube-oracle-forecast-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = Points { names: &names, params: &n, samples: &d, flops: &c, loss: &l };
        let path = write(&dir, &p).unwrap().expect("forecasts");
        let cols =
            crate::csvlog::read_columns(&path, &["fitted_up_to_flops", "flops", "error", "held_out_loss"]).unwrap();
        // A fit in N and D needs six points: from two budgets (8 points)
        // on, every later point is forecast, by each fit below it.
        assert!(cols[0].iter().all(|&u| u >= 3e11 * 0.999), "{:?}", cols[0]);
        assert_eq!(cols[0].len(), (4 + 4) + 4);
        for ((up, c), (e, l)) in cols[0].iter().zip(&cols[1]).zip(cols[2].iter().zip(&cols[3])) {
            assert!(c > up, "a forecast is of a budget above the fit's");
            assert!(e.abs() < 2e-3 * l, "error {e} at C = {c:e} from fit up to {up:e}");
        }
        std::fs::remove_dir_all(&dir).ok();
    }
}
