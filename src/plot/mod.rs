//! Charts as PNG and SVG, drawn with plotters and an embedded font.
//!
//! A [`Chart`] is a plain description (title, axis labels, log axes,
//! series of lines, points or bars, an optional note); [`Chart::save`]
//! renders it twice, `<stem>.png` and `<stem>.svg`. Text is rasterised
//! with DejaVu Sans compiled into the binary (see `DejaVuSans-LICENSE.txt`),
//! so no system font is needed.

use crate::rundir::{FileError, write_atomic};
use plotters::coord::Shift;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::Once;
use thiserror::Error;

/// Why a chart could not be saved.
#[derive(Debug, Error)]
pub enum PlotError {
    /// plotters could not draw or encode the picture.
    #[error("drawing {}: {message}", path.display())]
    Draw {
        /// The picture being drawn.
        path: PathBuf,
        /// plotters' message (its error type is generic over the backend).
        message: String,
    },
    /// A file-system operation failed.
    #[error(transparent)]
    File(#[from] FileError),
}

fn draw_error<E: std::fmt::Display>(path: &Path) -> impl FnOnce(E) -> PlotError + '_ {
    move |e| PlotError::Draw { path: path.to_path_buf(), message: e.to_string() }
}

const FONT: &[u8] = include_bytes!("DejaVuSans.ttf");
static REGISTER: Once = Once::new();

fn register_font() {
    REGISTER.call_once(|| {
        // The bytes are a valid TrueType font, so registration cannot fail.
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, FONT);
    });
}

/// How a series is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// A polyline through the points.
    Line,
    /// A dashed-looking thin line (reference curves, e.g. published results).
    Reference,
    /// Markers only.
    Points,
    /// A polyline with a marker at every point (a measured curve).
    Measured,
    /// A thin line without markers (a fitted law, a bound such as the
    /// optimal mean).
    Guide,
    /// Vertical bars centred on each x, of the given relative width.
    Bars,
}

/// One data series.
#[derive(Clone, Debug)]
pub struct Series {
    /// Legend label (empty for none).
    pub label: String,
    /// Drawing style.
    pub style: Style,
    /// `(x, y)` points.
    pub points: Vec<(f64, f64)>,
}

impl Series {
    /// A series with a label, style and points.
    pub fn new(label: impl Into<String>, style: Style, points: Vec<(f64, f64)>) -> Self {
        Self { label: label.into(), style, points }
    }
}

/// A 2-D chart description.
#[derive(Clone, Debug, Default)]
pub struct Chart {
    /// Title on top.
    pub title: String,
    /// X-axis label.
    pub x_label: String,
    /// Y-axis label.
    pub y_label: String,
    /// Logarithmic x axis.
    pub log_x: bool,
    /// Logarithmic y axis.
    pub log_y: bool,
    /// Series in drawing order.
    pub series: Vec<Series>,
    /// Text printed in the top-left corner of the plot area.
    pub note: Option<String>,
    /// The x values are base-2 logarithms (of beam widths): ticks at whole
    /// numbers only, labelled `2^k`.
    pub log2_x: bool,
}

const COLOURS: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
];

impl Chart {
    /// Each series' colour, chosen from its label so that a curve (an
    /// oracle, a published table, the optimal mean) has the same colour in
    /// every plot: the palette entry its label hashes to, or the next one
    /// free in this chart. Unlabelled series take the next free colour
    /// from their position; once the palette is used up, colours repeat.
    fn colours(&self) -> Vec<RGBColor> {
        let mut used = [false; COLOURS.len()];
        self.series
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let start = if s.label.is_empty() {
                    i % COLOURS.len()
                } else {
                    crate::checksum::fnv1a(s.label.as_bytes()) as usize % COLOURS.len()
                };
                let pick = (0..COLOURS.len()).map(|k| (start + k) % COLOURS.len()).find(|&k| !used[k]).unwrap_or(start);
                used[pick] = true;
                COLOURS[pick]
            })
            .collect()
    }

    /// A chart with a title and axis labels.
    pub fn new(title: impl Into<String>, x_label: impl Into<String>, y_label: impl Into<String>) -> Self {
        Self { title: title.into(), x_label: x_label.into(), y_label: y_label.into(), ..Self::default() }
    }

    /// Adds a series.
    #[must_use]
    pub fn with(mut self, s: Series) -> Self {
        self.series.push(s);
        self
    }

    /// Writes `<stem>.png` and `<stem>.svg`, each atomically (drawn to a
    /// temporary file or string, then renamed into place), so a killed job
    /// never leaves half a picture.
    ///
    /// # Errors
    /// [`PlotError`] naming the picture or file that failed.
    pub fn save(&self, stem: &Path) -> Result<(), PlotError> {
        register_font();
        if let Some(parent) = stem.parent() {
            std::fs::create_dir_all(parent).map_err(FileError::at("creating", parent))?;
        }
        let png = stem.with_extension("png");
        let svg = stem.with_extension("svg");
        // Drawn in memory and encoded here, then written as every other
        // file is: a failing disk is reported with the OS's words, never
        // as plotters' debug text.
        let (w, h) = (960u32, 640u32);
        let mut rgb = vec![0u8; (w * h * 3) as usize];
        {
            let root = BitMapBackend::with_buffer(&mut rgb, (w, h)).into_drawing_area();
            self.draw(&root).map_err(draw_error(&png))?;
            root.present().map_err(draw_error(&png))?;
        }
        let mut encoded = Vec::new();
        {
            let mut encoder = png::Encoder::new(&mut encoded, w, h);
            encoder.set_color(png::ColorType::Rgb);
            encoder.set_depth(png::BitDepth::Eight);
            // Adaptive row filters: plots are mostly flat colour, which
            // they compress to about half the size of a fixed filter.
            encoder.set_adaptive_filter(png::AdaptiveFilterType::Adaptive);
            encoder.set_compression(png::Compression::Best);
            let mut writer = encoder.write_header().map_err(draw_error(&png))?;
            writer.write_image_data(&rgb).map_err(draw_error(&png))?;
        }
        write_atomic(&png, &encoded)?;
        let mut text = String::new();
        {
            let root = SVGBackend::with_string(&mut text, (960, 640)).into_drawing_area();
            self.draw(&root).map_err(draw_error(&svg))?;
            root.present().map_err(draw_error(&svg))?;
        }
        Ok(write_atomic(&svg, text.as_bytes())?)
    }

    fn bounds(&self) -> ((f64, f64), (f64, f64)) {
        let pts =
            self.series.iter().flat_map(|s| s.points.iter()).filter(|(x, y)| {
                x.is_finite() && y.is_finite() && (!self.log_x || *x > 0.0) && (!self.log_y || *y > 0.0)
            });
        let (mut x0, mut x1, mut y0, mut y1) = (f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY);
        for &(x, y) in pts {
            x0 = x0.min(x);
            x1 = x1.max(x);
            y0 = y0.min(y);
            y1 = y1.max(y);
        }
        if !x0.is_finite() {
            (x0, x1, y0, y1) = (1.0, 2.0, 1.0, 2.0);
        }
        if self.series.iter().any(|s| s.style == Style::Bars) && !self.log_y {
            y0 = y0.min(0.0);
        }
        let pad = |lo: f64, hi: f64, log: bool| {
            if log {
                let (a, b) = (lo.ln(), hi.ln());
                let d = ((b - a) * 0.05).max(0.05);
                ((a - d).exp(), (b + d).exp())
            } else {
                let d = ((hi - lo) * 0.05).max(1e-9 + lo.abs() * 0.05);
                (lo - d, hi + d)
            }
        };
        (pad(x0, x1, self.log_x), pad(y0, y1, self.log_y))
    }

    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        root.fill(&WHITE)?;
        let ((x0, x1), (y0, y1)) = self.bounds();
        let mut builder = ChartBuilder::on(root);
        builder.caption(&self.title, ("sans-serif", 24)).margin(16).x_label_area_size(48).y_label_area_size(72);
        match (self.log_x, self.log_y) {
            (false, false) => self.draw_in(builder.build_cartesian_2d(x0..x1, y0..y1)?, root),
            (true, false) => self.draw_in(builder.build_cartesian_2d((x0..x1).log_scale(), y0..y1)?, root),
            (false, true) => self.draw_in(builder.build_cartesian_2d(x0..x1, (y0..y1).log_scale())?, root),
            (true, true) => self.draw_in(builder.build_cartesian_2d((x0..x1).log_scale(), (y0..y1).log_scale())?, root),
        }
    }

    fn draw_in<'a, DB, X, Y>(
        &self,
        mut chart: ChartContext<'a, DB, Cartesian2d<X, Y>>,
        root: &DrawingArea<DB, Shift>,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>>
    where
        DB: DrawingBackend + 'a,
        X: Ranged<ValueType = f64> + ValueFormatter<f64>,
        Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
    {
        let (xr, _) = (chart.x_range(), chart.y_range());
        // Whole powers of two only, labelled 2^k, on a log2 axis.
        let ticks = (xr.end.floor() - xr.start.ceil()).max(0.0) as usize + 1;
        let pow2 = |v: &f64| if (v - v.round()).abs() < 1e-6 { format!("2^{}", v.round()) } else { String::new() };
        // Large values on a log axis in scientific notation (1e12, 3e12).
        let sci = |v: &f64| if v.abs() >= 1e5 { format!("{v:.0e}") } else { format!("{v}") };
        let mut mesh = chart.configure_mesh();
        if self.log2_x {
            mesh.x_labels(ticks.min(24)).x_label_formatter(&pow2);
        } else if self.log_x {
            mesh.x_label_formatter(&sci);
        }
        if self.log_y {
            mesh.y_label_formatter(&sci);
        }
        mesh.x_desc(&self.x_label)
            .y_desc(&self.y_label)
            .label_style(("sans-serif", 15))
            .axis_desc_style(("sans-serif", 17))
            .light_line_style(WHITE.mix(0.0))
            .draw()?;
        let width = self
            .series
            .iter()
            .filter(|s| s.style == Style::Bars)
            .flat_map(|s| s.points.windows(2).map(|w| (w[1].0 - w[0].0).abs()))
            .fold(f64::INFINITY, f64::min);
        let half = if width.is_finite() { width * 0.4 } else { (xr.end - xr.start) * 0.02 };
        let bars = self.series.iter().filter(|s| s.style == Style::Bars).count().max(1) as f64;
        let mut bar_index = 0.0;
        let colours = self.colours();
        for (s, &colour) in self.series.iter().zip(&colours) {
            let pts: Vec<(f64, f64)> =
                s.points.iter().copied().filter(|(x, y)| x.is_finite() && y.is_finite()).collect();
            if s.style == Style::Reference {
                chart.draw_series(LineSeries::new(pts.iter().copied(), colour.mix(0.5).stroke_width(1)))?;
            }
            let anno = match s.style {
                Style::Line => chart.draw_series(LineSeries::new(pts, colour.stroke_width(2)))?,
                Style::Reference => {
                    chart.draw_series(pts.iter().map(|&p| Circle::new(p, 4, colour.stroke_width(2))))?
                }
                Style::Points => chart.draw_series(pts.iter().map(|&p| Circle::new(p, 3, colour.mix(0.6).filled())))?,
                Style::Measured => {
                    chart.draw_series(LineSeries::new(pts.iter().copied(), colour.stroke_width(2)))?;
                    chart.draw_series(pts.iter().map(|&p| Circle::new(p, 4, colour.filled())))?
                }
                Style::Guide => chart.draw_series(LineSeries::new(pts, colour.mix(0.8).stroke_width(1)))?,
                Style::Bars => {
                    let w = 2.0 * half / bars;
                    let offset = -half + w * bar_index;
                    bar_index += 1.0;
                    chart.draw_series(pts.iter().map(|&(x, y)| {
                        Rectangle::new([(x + offset, 0.0), (x + offset + w, y)], colour.mix(0.7).filled())
                    }))?
                }
            };
            if !s.label.is_empty() {
                anno.label(s.label.clone())
                    .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 18, y + 5)], colour.filled()));
            }
        }
        if self.series.iter().any(|s| !s.label.is_empty()) {
            chart
                .configure_series_labels()
                .label_font(("sans-serif", 15))
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK.mix(0.4))
                .position(SeriesLabelPosition::UpperRight)
                .draw()?;
        }
        if let Some(note) = &self.note {
            root.draw(&Text::new(note.clone(), (100, 56), ("sans-serif", 16).into_font().color(&BLACK)))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charts_render_png_and_svg() {
        let dir = std::env::temp_dir().join(format!("cube-oracle-plot-{}", std::process::id()));
        let stem = dir.join("demo");
        Chart::new("demo", "x", "y")
            .with(Series::new("line", Style::Line, (1..20).map(|i| (i as f64, (i * i) as f64)).collect()))
            .with(Series::new("bars", Style::Bars, (1..20).map(|i| (i as f64, i as f64)).collect()))
            .save(&stem)
            .unwrap();
        let png = std::fs::read(stem.with_extension("png")).unwrap();
        assert_eq!(&png[1..4], b"PNG");
        let svg = std::fs::read_to_string(stem.with_extension("svg")).unwrap();
        assert!(svg.contains("<svg") && svg.contains("demo"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A label keeps its colour from chart to chart whatever else is drawn,
    /// labels in one chart get different colours while the palette lasts,
    /// and any number of unlabelled series can be drawn.
    #[test]
    fn colours_follow_labels_and_never_run_out() {
        let series = |label: &str| Series::new(label, Style::Measured, vec![(1.0, 1.0)]);
        let a = Chart::new("a", "x", "y").with(series("cube3-q-long")).with(series("EfficientCube (published)"));
        let b = Chart::new("b", "x", "y").with(series("EfficientCube (published)")).with(series("cube3-q-long"));
        let (ca, cb) = (a.colours(), b.colours());
        assert_eq!((ca[0], ca[1]), (cb[1], cb[0]));
        assert_ne!(ca[0], ca[1]);
        let mut many = Chart::new("c", "x", "y");
        for _ in 0..3 * COLOURS.len() {
            many.series.push(series(""));
        }
        let c = many.colours();
        assert_eq!(c.len(), 3 * COLOURS.len());
        let distinct: std::collections::HashSet<_> = c[..COLOURS.len()].iter().map(|k| (k.0, k.1, k.2)).collect();
        assert_eq!(distinct.len(), COLOURS.len());
    }

    #[test]
    fn a_log2_axis_is_labelled_in_whole_powers_of_two() {
        let dir = std::env::temp_dir().join(format!("cube-oracle-plot-log2-{}", std::process::id()));
        let stem = dir.join("widths");
        Chart { log2_x: true, ..Chart::new("widths", "beam width", "length") }
            .with(Series::new(
                "measured",
                Style::Measured,
                (7..=12).map(|k| (f64::from(k), 30.0 - f64::from(k))).collect(),
            ))
            .with(Series::new("fitted", Style::Guide, vec![(7.0, 23.5), (12.0, 18.0)]))
            .save(&stem)
            .unwrap();
        let svg = std::fs::read_to_string(stem.with_extension("svg")).unwrap();
        for k in 7..=12 {
            assert!(svg.contains(&format!("2^{k}")), "no tick 2^{k}");
        }
        // No fractional tick such as "7.5" or "2^7.5" on the width axis.
        assert!(!svg.contains("2^7.5") && !svg.contains(">7.5<"), "a fractional width tick");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
