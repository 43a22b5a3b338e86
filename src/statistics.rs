//! Small descriptive statistics used by the diagnostics: Pearson
//! correlation, least-squares lines, power-law fits of count data, and
//! quantiles.

/// Pearson correlation of paired samples; `None` with fewer than two pairs
/// or zero variance.
#[must_use]
pub fn pearson(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len().min(y.len());
    if n < 2 {
        return None;
    }
    let mx = x[..n].iter().sum::<f64>() / n as f64;
    let my = y[..n].iter().sum::<f64>() / n as f64;
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for i in 0..n {
        let (dx, dy) = (x[i] - mx, y[i] - my);
        sxy += dx * dy;
        sxx += dx * dx;
        syy += dy * dy;
    }
    (sxx > 0.0 && syy > 0.0).then(|| sxy / (sxx * syy).sqrt())
}

/// Least-squares line `y = a + b x`: returns `(a, b)`.
#[must_use]
pub fn linear_fit(x: &[f64], y: &[f64]) -> Option<(f64, f64)> {
    let n = x.len().min(y.len());
    if n < 2 {
        return None;
    }
    let mx = x[..n].iter().sum::<f64>() / n as f64;
    let my = y[..n].iter().sum::<f64>() / n as f64;
    let sxx: f64 = x[..n].iter().map(|v| (v - mx).powi(2)).sum();
    if sxx == 0.0 {
        return None;
    }
    let sxy: f64 = x[..n].iter().zip(&y[..n]).map(|(a, b)| (a - mx) * (b - my)).sum();
    let b = sxy / sxx;
    Some((my - b * mx, b))
}

/// Fits `frequency(c) ∝ c^(−α)` to a histogram of visit counts by least
/// squares on log–log axes: `hist` holds `(visit count c, number of states
/// visited exactly c times)`. Returns `α`, or `None` with fewer than two
/// distinct counts.
#[must_use]
pub fn power_law_exponent(hist: &[(u64, u64)]) -> Option<f64> {
    let pts: Vec<(f64, f64)> =
        hist.iter().filter(|&&(c, n)| c > 0 && n > 0).map(|&(c, n)| ((c as f64).ln(), (n as f64).ln())).collect();
    let (x, y): (Vec<f64>, Vec<f64>) = pts.into_iter().unzip();
    linear_fit(&x, &y).map(|(_, b)| -b)
}

/// The `q`-quantile (0..=1) of `v` by linear interpolation; `None` if empty.
#[must_use]
pub fn quantile(v: &[f64], q: f64) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let pos = q.clamp(0.0, 1.0) * (s.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    Some(s[lo] + (s[hi] - s[lo]) * (pos - lo as f64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pearson_of_exact_lines() {
        let x = [1.0, 2.0, 3.0, 4.0];
        assert!((pearson(&x, &[2.0, 4.0, 6.0, 8.0]).unwrap() - 1.0).abs() < 1e-12);
        assert!((pearson(&x, &[8.0, 6.0, 4.0, 2.0]).unwrap() + 1.0).abs() < 1e-12);
        assert_eq!(pearson(&x, &[1.0; 4]), None);
    }

    #[test]
    fn power_law_recovers_its_exponent() {
        let hist: Vec<(u64, u64)> = (1..=10u64).map(|c| (c, (1e6 * (c as f64).powf(-2.5)).round() as u64)).collect();
        let a = power_law_exponent(&hist).unwrap();
        assert!((a - 2.5).abs() < 0.01, "{a}");
    }

    #[test]
    fn quantiles_interpolate() {
        let v = [4.0, 1.0, 3.0, 2.0];
        assert_eq!(quantile(&v, 0.0), Some(1.0));
        assert_eq!(quantile(&v, 1.0), Some(4.0));
        assert_eq!(quantile(&v, 0.5), Some(2.5));
    }
}
