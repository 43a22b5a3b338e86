//! The plots of an oracle sweep, drawn from plain numbers: solution length
//! and % optimal against beam width (with the fitted width law, the
//! published table of the puzzle and the optimal mean), seconds per
//! instance, beam entropy against solution length at the widest width, and
//! beam entropy by depth. A sweep draws them from its rows as it writes its
//! tables; `solve replot DIR` draws them again from a finished folder's
//! `summary.csv`, `instances.csv` and, when present, `depths.csv`, so that
//! plots made by an older version can be redrawn without searching again.

use super::error::{SolveError, invalid};
use super::published::{self, Published, PublishedRow};
use crate::csvlog::read_columns;
use crate::plot::{Chart, PlotError, Series, Style};
use std::path::{Path, PathBuf};

/// One width of a sweep.
#[derive(Clone, Debug)]
pub struct WidthPoint {
    /// The beam width.
    pub width: usize,
    /// Mean solution length over the solved instances.
    pub mean_length: f64,
    /// % of instances solved with a path of optimal length.
    pub optimal_pct: f64,
    /// % of instances solved.
    pub solved_pct: f64,
    /// Mean seconds per instance.
    pub mean_elapsed_s: f64,
    /// 95th percentile of the seconds per instance.
    pub p95_elapsed_s: f64,
    /// Pearson correlation of mean beam entropy and solution length.
    pub pearson: f64,
}

/// One instance at one width.
#[derive(Clone, Debug)]
pub struct InstancePoint {
    /// The beam width.
    pub width: usize,
    /// The solution's length, if solved.
    pub length: Option<f64>,
    /// The known optimal length.
    pub optimal: Option<f64>,
    /// Mean beam entropy over the search's depths.
    pub mean_entropy: f64,
}

/// Everything the plots of one sweep show.
#[derive(Clone, Debug)]
pub struct SweepFigures {
    /// The measured curves' legend name (the oracle's run folder).
    pub oracle: String,
    /// The length unit (`QTM`, `HTM`, `moves`).
    pub units: String,
    /// One point per width, by increasing width.
    pub widths: Vec<WidthPoint>,
    /// One point per instance and width.
    pub instances: Vec<InstancePoint>,
    /// Beam entropy by depth of the first instances at the widest width.
    pub depth_traces: Vec<Vec<(f64, f64)>>,
    /// The puzzle's published width table, if one exists.
    pub reference: Option<&'static Published>,
}

/// Instances whose beam entropy by depth is drawn.
pub const DEPTH_TRACES: usize = 12;

impl SweepFigures {
    /// Draws every plot into `dir` (PNG and SVG each).
    ///
    /// # Errors
    /// A plot could not be drawn or written.
    pub fn draw(&self, dir: &Path) -> Result<(), PlotError> {
        let units = &self.units;
        let log2 = |w: &WidthPoint| (w.width as f64).log2();
        let by_width = |f: fn(&WidthPoint) -> f64| self.widths.iter().map(|w| (log2(w), f(w))).collect::<Vec<_>>();
        let mut length = Chart {
            log2_x: true,
            ..Chart::new("Solution length against beam width", "beam width", format!("mean solution length ({units})"))
        }
        .with(Series::new(self.oracle.clone(), Style::Measured, by_width(|r| r.mean_length)));
        let mut optimal =
            Chart { log2_x: true, ..Chart::new("Optimal solutions against beam width", "beam width", "% optimal") }
                .with(Series::new(self.oracle.clone(), Style::Measured, by_width(|r| r.optimal_pct)));
        if let Some(table) = self.reference {
            let curve = |f: fn(&PublishedRow) -> f64| {
                table.rows.iter().map(|r| (f64::from(r.beam_log2), f(r))).collect::<Vec<_>>()
            };
            let name = "EfficientCube (published)";
            length = length.with(Series::new(name, Style::Reference, curve(|r| r.mean_length)));
            optimal = optimal.with(Series::new(name, Style::Reference, curve(|r| r.optimal_pct)));
        }
        // The fitted width law L(W) = L∞ + a/W^b over the widths where
        // every instance is solved.
        let solved: Vec<&WidthPoint> =
            self.widths.iter().filter(|r| r.solved_pct >= 100.0 && r.mean_length.is_finite()).collect();
        let (ws, ls): (Vec<f64>, Vec<f64>) = solved.iter().map(|r| (r.width as f64, r.mean_length)).unzip();
        if let (Some(f), Some(lo), Some(hi)) = (crate::powerlaw::fit(&ws, None, &ls), solved.first(), solved.last()) {
            let (a, b) = (log2(lo), log2(hi));
            let curve = (0..=40).map(|i| a + (b - a) * f64::from(i) / 40.0).map(|k| (k, f.law.at(k.exp2(), 1.0)));
            let law = format!("L = {:.2} + {:.1}/W^{:.3}", f.law.e, f.law.a, f.law.alpha);
            length = length.with(Series::new(format!("fitted: {law}"), Style::Guide, curve.collect()));
        }
        // The optimal mean, where every instance's optimum is known.
        if let Some(first) = self.widths.first() {
            let at_first: Vec<&InstancePoint> = self.instances.iter().filter(|r| r.width == first.width).collect();
            let known: Vec<f64> = at_first.iter().filter_map(|r| r.optimal).collect();
            if !known.is_empty() && known.len() == at_first.len() {
                let mean = known.iter().sum::<f64>() / known.len() as f64;
                let xs = length.series.iter().flat_map(|c| c.points.iter().map(|p| p.0));
                let (lo, hi) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| (a.min(x), b.max(x)));
                let flat = vec![(lo, mean), (hi, mean)];
                length = length.with(Series::new(format!("optimal mean ({mean:.2})"), Style::Guide, flat));
            }
        }
        length.save(&dir.join("length_vs_width"))?;
        optimal.save(&dir.join("optimal_vs_width"))?;
        Chart {
            log_y: true,
            log2_x: true,
            ..Chart::new("Time per instance against beam width", "beam width", "seconds per instance")
        }
        .with(Series::new("mean", Style::Measured, by_width(|r| r.mean_elapsed_s)))
        .with(Series::new("p95", Style::Measured, by_width(|r| r.p95_elapsed_s)))
        .save(&dir.join("time_vs_width"))?;
        let Some(last) = self.widths.last() else { return Ok(()) };
        let w = last.width;
        let pts: Vec<(f64, f64)> =
            self.instances.iter().filter(|r| r.width == w).filter_map(|r| Some((r.length?, r.mean_entropy))).collect();
        Chart {
            note: Some(format!("Pearson r = {:.3} over {} solved instances (width {w})", last.pearson, pts.len())),
            ..Chart::new(
                "Mean beam entropy against solution length",
                format!("solution length ({units})"),
                "mean beam entropy (nats)",
            )
        }
        .with(Series::new("", Style::Points, pts))
        .save(&dir.join("entropy_vs_length"))?;
        if !self.depth_traces.is_empty() {
            let mut chart = Chart::new(format!("Beam entropy by depth (width {w})"), "depth", "beam entropy (nats)");
            for trace in &self.depth_traces {
                chart.series.push(Series::new("", Style::Line, trace.clone()));
            }
            chart.save(&dir.join("entropy_vs_depth"))?;
        }
        Ok(())
    }

    /// The figures of a finished sweep folder, from its tables.
    ///
    /// # Errors
    /// A folder without an oracle sweep's `summary.csv` and
    /// `instances.csv`, or tables that cannot be read.
    pub fn from_folder(dir: &Path) -> Result<Self, SolveError> {
        let (summary, instances) = (dir.join("summary.csv"), dir.join("instances.csv"));
        let first = first_row(&summary)?;
        let field = |name: &str| first.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
        let heuristic = field("heuristic").unwrap_or_default();
        let Some(oracle) = heuristic.strip_prefix("oracle:") else {
            return Err(invalid!(
                format!("solve replot {}", dir.display()),
                "it redraws the plots of an oracle sweep; this folder's summary.csv names heuristic `{}`",
                crate::folder::shorten(&heuristic)
            ));
        };
        let oracle = match field("matmul").as_deref() {
            None | Some("f32") => oracle.to_string(),
            Some(m) => format!("{oracle} ({m} products)"),
        };
        let puzzle = field("puzzle").unwrap_or_default();
        let cols = ["width", "mean_length", "optimal_pct", "solved_pct", "mean_elapsed_s", "p95_elapsed_s"];
        let s = read_columns(&summary, &cols)?;
        let i = read_columns(&instances, &["width", "length", "optimal", "mean_beam_entropy"])?;
        let instance_points: Vec<InstancePoint> = (0..i[0].len())
            .map(|k| InstancePoint {
                width: i[0][k] as usize,
                length: i[1][k].is_finite().then_some(i[1][k]),
                optimal: i[2][k].is_finite().then_some(i[2][k]),
                mean_entropy: i[3][k],
            })
            .collect();
        let widths = (0..s[0].len())
            .map(|k| {
                let width = s[0][k] as usize;
                let solved: Vec<&InstancePoint> =
                    instance_points.iter().filter(|r| r.width == width && r.length.is_some()).collect();
                let lens: Vec<f64> = solved.iter().filter_map(|r| r.length).collect();
                let ent: Vec<f64> = solved.iter().map(|r| r.mean_entropy).collect();
                WidthPoint {
                    width,
                    mean_length: s[1][k],
                    optimal_pct: s[2][k],
                    solved_pct: s[3][k],
                    mean_elapsed_s: s[4][k],
                    p95_elapsed_s: s[5][k],
                    pearson: crate::statistics::pearson(&lens, &ent).unwrap_or(f64::NAN),
                }
            })
            .collect::<Vec<_>>();
        // The header alone names the second length column (the table was
        // read above; this reads its first line only).
        let mut header = String::new();
        if let Ok(f) = std::fs::File::open(&instances) {
            use std::io::{BufRead, Read};
            let _ = std::io::BufReader::new(f.take(1 << 16)).read_line(&mut header);
        }
        let header = header.trim_end();
        let units = if header.split(',').any(|c| c == "length_htm") {
            "QTM"
        } else if header.split(',').any(|c| c == "length_qtm") {
            "HTM"
        } else {
            "moves"
        };
        let depth_traces = match (dir.join("depths.csv").is_file(), widths.last()) {
            (true, Some(last)) => traces(&dir.join("depths.csv"), last.width)?,
            _ => Vec::new(),
        };
        Ok(Self {
            oracle,
            units: units.into(),
            widths,
            instances: instance_points,
            depth_traces,
            reference: published::for_puzzle(&puzzle),
        })
    }
}

/// The header's names paired with the first data row's values (the
/// columns `replot` reads as text hold no commas or quotes).
fn first_row(path: &Path) -> Result<Vec<(String, String)>, SolveError> {
    let text = crate::rundir::read_capped_text(path, 1 << 20).ok_or_else(|| {
        invalid!(format!("solve replot: {}", path.display()), "no readable sweep table there (at most 1 MiB)")
    })?;
    let mut lines = text.lines();
    let (Some(h), Some(r)) = (lines.next(), lines.next()) else {
        return Err(invalid!(format!("solve replot: {}", path.display()), "the table has no rows"));
    };
    Ok(h.split(',').map(str::to_string).zip(r.split(',').map(|v| v.trim_matches('"').to_string())).collect())
}

/// Beam entropy by depth of the first [`DEPTH_TRACES`] instances at `width`.
fn traces(path: &Path, width: usize) -> Result<Vec<Vec<(f64, f64)>>, SolveError> {
    // Ids are text (`random-3`, `d5-12`), not numbers.
    let d = read_columns(path, &["width", "depth", "entropy"])?;
    let ids = crate::csvlog::read_text_column(path, "id")?;
    let mut out: Vec<(&str, Vec<(f64, f64)>)> = Vec::new();
    let rows = d[0].iter().zip(&ids).zip(d[1].iter().zip(&d[2]));
    for ((_, id), (&depth, &entropy)) in rows.filter(|((w, _), _)| **w as usize == width) {
        if let Some(at) = out.iter().position(|(seen, _)| seen == id) {
            out[at].1.push((depth, entropy));
        } else if out.len() < DEPTH_TRACES {
            out.push((id, vec![(depth, entropy)]));
        }
    }
    Ok(out.into_iter().map(|(_, t)| t).collect())
}

/// `solve replot DIR`: redraws a finished oracle sweep's plots into
/// `DIR/plots/`; returns that folder.
///
/// # Errors
/// See [`SweepFigures::from_folder`]; a plot that cannot be written.
pub fn replot(dir: &Path) -> Result<PathBuf, SolveError> {
    if !dir.exists() {
        return Err(invalid!(format!("solve replot {}", dir.display()), "no such folder"));
    }
    if !crate::folder::is_finished_output(dir) {
        return Err(invalid!(
            format!("solve replot {}", dir.display()),
            "it redraws the plots of a finished solve folder (one whose marker says complete)"
        ));
    }
    // The folder's own lock, and the run's shared one when it is under a run.
    let _lock = crate::folder::lock(dir)?;
    let _run = match dir.parent().and_then(crate::folder::enclosing_run) {
        Some(run) => Some(crate::folder::lock_shared(&run)?),
        None => None,
    };
    let figures = SweepFigures::from_folder(dir)?;
    let out = dir.join("plots");
    std::fs::create_dir_all(&out).map_err(crate::rundir::FileError::at("creating", &out))?;
    figures.draw(&out)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_traces_follow_instances_by_their_text_ids() {
        let dir = std::env::temp_dir().join(format!("cube-oracle-traces-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("depths.csv");
        let mut text = String::from("width,id,depth,entropy\n");
        for id in ["random-0", "random-1"] {
            for depth in 1..=3 {
                text.push_str(&format!("8,{id},{depth},0.5\n4,{id},{depth},0.25\n"));
            }
        }
        std::fs::write(&path, text).unwrap();
        let t = traces(&path, 8).unwrap();
        assert_eq!(t.len(), 2, "one trace per instance: {t:?}");
        assert!(t.iter().all(|trace| trace == &[(1.0, 0.5), (2.0, 0.5), (3.0, 0.5)]), "{t:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
