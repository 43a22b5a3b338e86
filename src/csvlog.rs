//! CSV output through polars: append-as-you-go logs and whole tables.
//!
//! A [`CsvLog`] appends rows to a CSV file and flushes after every append,
//! so a running job can be inspected (or plotted by a notebook) at any
//! time. Whole tables are written atomically with [`write_table`]. Columns
//! are built from plain vectors ([`Col`]), so callers never touch polars.

use crate::rundir::{FileError, write_atomic};
use polars::prelude::{Column, CsvWriter, DataFrame, PolarsError, SerWriter};
use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Why a table or log could not be written or read.
#[derive(Debug, Error)]
pub enum TableError {
    /// A new log where a file already is.
    #[error("{} already exists; a new run does not write over an old log", path.display())]
    Exists {
        /// The log.
        path: PathBuf,
    },
    /// A line of a log that cannot be continued.
    #[error("{} line {line}: {rule}", path.display())]
    Line {
        /// The log.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong with it.
        rule: String,
    },
    /// A log that ends before the step its run's checkpoint says it reached.
    #[error(
        "{} ends at {last}, but the run's checkpoint logged rows up to step {expected}: resuming would leave \
         a gap in its history",
        path.display()
    )]
    Gap {
        /// The log.
        path: PathBuf,
        /// Where the file's rows end, in words.
        last: String,
        /// The step of the last row the log should hold.
        expected: u64,
    },
    /// Rows whose columns are not the log's header.
    #[error("columns {columns:?} do not match the header {header:?}")]
    Columns {
        /// The columns given.
        columns: Vec<String>,
        /// The log's header.
        header: Vec<String>,
    },
    /// A column that a reader needs and the file lacks, or that is not numeric.
    #[error("{}: column `{column}` {rule}", path.display())]
    Column {
        /// The file.
        path: PathBuf,
        /// The column.
        column: String,
        /// What is wrong with it.
        rule: &'static str,
    },
    /// polars could not build, format or parse the table.
    #[error("{action}")]
    Polars {
        /// What was being done.
        action: String,
        /// The cause.
        #[source]
        source: PolarsError,
    },
    /// A file-system operation failed.
    #[error(transparent)]
    File(#[from] FileError),
}

type Result<T, E = TableError> = std::result::Result<T, E>;

fn polars(action: impl Into<String>) -> impl FnOnce(PolarsError) -> TableError {
    move |source| TableError::Polars { action: action.into(), source }
}

/// One column of values.
#[derive(Clone, Debug, PartialEq)]
pub enum Col {
    /// Unsigned integers.
    U64(Vec<u64>),
    /// Signed integers.
    I64(Vec<i64>),
    /// Floats (written with full precision; NaN as an empty field).
    F64(Vec<f64>),
    /// Text.
    Str(Vec<String>),
    /// Booleans.
    Bool(Vec<bool>),
    /// Unsigned integers that may be missing (an empty field).
    OptU64(Vec<Option<u64>>),
}

fn frame(columns: Vec<(&str, Col)>) -> Result<DataFrame> {
    let cols: Vec<Column> = columns
        .into_iter()
        .map(|(name, c)| match c {
            Col::U64(v) => Column::new(name.into(), v),
            Col::I64(v) => Column::new(name.into(), v),
            Col::OptU64(v) => Column::new(name.into(), v),
            Col::F64(v) => {
                Column::new(name.into(), v.into_iter().map(|x| (!x.is_nan()).then_some(x)).collect::<Vec<_>>())
            }
            Col::Str(v) => Column::new(name.into(), v),
            Col::Bool(v) => Column::new(name.into(), v),
        })
        .collect();
    DataFrame::new_infer_height(cols).map_err(polars("building a table (columns of different lengths?)"))
}

fn to_csv(columns: Vec<(&str, Col)>, header: bool) -> Result<Vec<u8>> {
    let mut df = frame(columns)?;
    let mut buf = Vec::new();
    CsvWriter::new(&mut buf).include_header(header).finish(&mut df).map_err(polars("formatting CSV"))?;
    Ok(buf)
}

/// Writes a whole table to `path` atomically.
pub fn write_table(path: &Path, columns: Vec<(&str, Col)>) -> Result<()> {
    let bytes = to_csv(columns, true)?;
    Ok(write_atomic(path, &bytes)?)
}

/// An append-only CSV log.
#[derive(Debug)]
pub struct CsvLog {
    path: PathBuf,
    header: Vec<String>,
}

/// What [`CsvLog::resume`] dropped.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Resumed {
    /// Rows logged after the checkpoint's step.
    pub after: usize,
    /// The start of a last line cut off in the middle (no final newline).
    pub torn: Option<String>,
}

impl CsvLog {
    /// A new log at `path` with `header` (a file already there is an error:
    /// a new run never writes over an old log).
    pub fn create(path: &Path, header: &[&str]) -> Result<Self> {
        if path.exists() {
            return Err(TableError::Exists { path: path.to_path_buf() });
        }
        write_atomic(path, format!("{}\n", header.join(",")).as_bytes())?;
        Ok(Self { path: path.to_path_buf(), header: header.iter().map(|s| s.to_string()).collect() })
    }

    /// Continues the log at `path` for a run resumed at step `step`: rows
    /// logged after `step` (written before a crash, and about to be logged
    /// again) are dropped, and so is a torn last line (no final newline).
    /// `expected` is the step of the last rows the log must still hold and
    /// how many rows each logged step has (`None`: no rows yet); a log that
    /// ends before that step, or with fewer rows of it, is refused before
    /// anything is written.
    /// Returns the log and what was dropped.
    ///
    /// # Errors
    /// The file cannot be read, is not UTF-8, has another header, has a row
    /// whose first field is not a step number, or ends before `expected`:
    /// the message names the file (and line). Nothing is written then.
    pub fn resume(path: &Path, header: &[&str], step: u64, expected: Option<(u64, usize)>) -> Result<(Self, Resumed)> {
        let bytes = crate::bounded::read_regular(path, MAX_LOG_BYTES).map_err(FileError::at("reading", path))?;
        let line_error = |line: usize, rule: String| TableError::Line { path: path.to_path_buf(), line, rule };
        let text = match std::str::from_utf8(&bytes) {
            Ok(t) => t,
            Err(e) => {
                let line = 1 + bytes[..e.valid_up_to()].iter().filter(|&&b| b == b'\n').count();
                return Err(line_error(line, "not UTF-8 text".into()));
            }
        };
        let expected_header = header.join(",");
        let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
        let mut resumed = Resumed::default();
        if lines.last().is_some_and(|l| !l.ends_with('\n')) && lines.len() > 1 {
            let torn = lines.pop().unwrap_or_default();
            resumed.torn = Some(torn.chars().take(40).collect());
        }
        match lines.first().map(|l| l.trim_end_matches(['\n', '\r'])) {
            Some(first) if first == expected_header => {}
            Some(first) => {
                let first: String = first.chars().take(200).collect();
                return Err(line_error(
                    1,
                    format!("header `{first}`, expected `{expected_header}`; refusing to mix formats"),
                ));
            }
            None => {
                return Err(line_error(1, format!("the file is empty (expected the header `{expected_header}`)")));
            }
        }
        let mut kept = String::with_capacity(text.len());
        kept.push_str(&expected_header);
        kept.push('\n');
        // Rows per logged step, in order: (step, rows).
        let mut groups: Vec<(u64, usize)> = Vec::new();
        for (i, line) in lines.iter().enumerate().skip(1) {
            let line = line.trim_end_matches(['\n', '\r']);
            let first = line.split(',').next().unwrap_or("");
            let Ok(row_step) = first.parse::<u64>() else {
                return Err(line_error(
                    i + 1,
                    format!(
                        "`{}` is not a step number ({} rows follow the header)",
                        first.chars().take(40).collect::<String>(),
                        lines.len() - 1
                    ),
                ));
            };
            if row_step <= step {
                kept.push_str(line);
                kept.push('\n');
                match groups.last_mut() {
                    Some((s, n)) if *s == row_step => *n += 1,
                    _ => groups.push((row_step, 1)),
                }
            } else {
                resumed.after += 1;
            }
        }
        let torn = if resumed.torn.is_some() { " (its last line is cut off)" } else { "" };
        let gap =
            |last: String| TableError::Gap { path: path.to_path_buf(), last, expected: expected.map_or(0, |(s, _)| s) };
        if let Some((expected, rows)) = expected {
            match groups.last() {
                None => return Err(gap(format!("its header{torn}"))),
                Some(&(last, _)) if last < expected => return Err(gap(format!("step {last}{torn}"))),
                Some(&(last, n)) if n < rows => {
                    return Err(gap(format!("step {last}, with {n} of its {rows} rows{torn}")));
                }
                _ => {}
            }
        }
        if kept.len() != text.len() {
            write_atomic(path, kept.as_bytes())?;
        }
        let log = Self { path: path.to_path_buf(), header: header.iter().map(|s| s.to_string()).collect() };
        Ok((log, resumed))
    }

    /// Starts the log at `path` afresh, keeping the old file (if any) beside
    /// it as `<file>.before-resume` (numbered if that exists too). Returns
    /// the log and where the old file went.
    pub fn restart(path: &Path, header: &[&str]) -> Result<(Self, Option<PathBuf>)> {
        let mut kept = None;
        if path.exists() {
            let mut aside = PathBuf::from(format!("{}.before-resume", path.display()));
            let mut k = 1;
            while aside.exists() {
                k += 1;
                aside = PathBuf::from(format!("{}.before-resume{k}", path.display()));
            }
            std::fs::rename(path, &aside).map_err(FileError::at("moving aside", path))?;
            kept = Some(aside);
        }
        Ok((Self::create(path, header)?, kept))
    }

    /// Appends rows (every column the same length, in header order) and
    /// flushes them to disk.
    pub fn append(&mut self, columns: Vec<(&str, Col)>) -> Result<()> {
        let names: Vec<&str> = columns.iter().map(|(n, _)| *n).collect();
        if names != self.header {
            return Err(TableError::Columns {
                columns: names.iter().map(|s| s.to_string()).collect(),
                header: self.header.clone(),
            });
        }
        let bytes = to_csv(columns, false)?;
        let mut f = OpenOptions::new().append(true).open(&self.path).map_err(FileError::at("opening", &self.path))?;
        f.write_all(&bytes).map_err(FileError::at("appending to", &self.path))?;
        f.flush().map_err(FileError::at("flushing", &self.path))?;
        Ok(())
    }

    /// Puts the rows appended so far on the disk, not only in the page
    /// cache (before a checkpoint that must never outlive them).
    pub fn sync(&self) -> Result<()> {
        let f = OpenOptions::new().append(true).open(&self.path).map_err(FileError::at("opening", &self.path))?;
        f.sync_data().map_err(FileError::at("syncing", &self.path))?;
        Ok(())
    }
}

/// The largest log or table read (a run's `metrics.csv` is a few MB; the
/// largest merged width-law table about 100 MB).
pub const MAX_LOG_BYTES: u64 = 1 << 30;

/// A CSV file with a header, read whole (a regular file of at most
/// [`MAX_LOG_BYTES`]: a FIFO or a device is refused before it is read).
fn read_frame(path: &Path) -> Result<DataFrame> {
    use polars::prelude::{CsvReadOptions, SerReader};
    let bytes = crate::bounded::read_regular(path, MAX_LOG_BYTES).map_err(FileError::at("reading", path))?;
    // Column types from every row, not the first 100: a text column whose
    // first rows look like numbers (`hidden` = 512 before 512x512) stays text.
    CsvReadOptions::default()
        .with_has_header(true)
        .with_infer_schema_length(None)
        .into_reader_with_file_handle(std::io::Cursor::new(bytes))
        .finish()
        .map_err(polars(format!("reading {}", path.display())))
}

/// Reads the named columns of a CSV file as `f64` (missing values as NaN).
pub fn read_columns(path: &Path, names: &[&str]) -> Result<Vec<Vec<f64>>> {
    use polars::prelude::DataType;
    let df = read_frame(path)?;
    let column = |column: &str, rule| TableError::Column { path: path.to_path_buf(), column: column.into(), rule };
    names
        .iter()
        .map(|&name| {
            let col = df.column(name).map_err(|_| column(name, "is missing"))?;
            let col = col.cast(&DataType::Float64).map_err(|_| column(name, "is not numeric"))?;
            let col = col.f64().map_err(|_| column(name, "is not numeric"))?;
            Ok(col.iter().map(|v| v.unwrap_or(f64::NAN)).collect())
        })
        .collect()
}

/// Reads the named column of a CSV file as text (missing values empty).
pub fn read_text_column(path: &Path, name: &str) -> Result<Vec<String>> {
    use polars::prelude::DataType;
    let df = read_frame(path)?;
    let column = |rule| TableError::Column { path: path.to_path_buf(), column: name.into(), rule };
    let col = df.column(name).map_err(|_| column("is missing"))?;
    let col = col.cast(&DataType::String).map_err(|_| column("is not text"))?;
    let col = col.str().map_err(|_| column("is not text"))?;
    Ok(col.iter().map(|v| v.unwrap_or_default().to_string()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("cube-oracle-csv-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn rows(log: &mut CsvLog, steps: std::ops::RangeInclusive<u64>) {
        for s in steps {
            log.append(vec![
                ("step", Col::U64(vec![s])),
                ("loss", Col::F64(vec![1.0 / s as f64])),
                ("tag", Col::Str(vec![format!("t{s}")])),
            ])
            .unwrap();
        }
    }

    const H: [&str; 3] = ["step", "loss", "tag"];

    #[test]
    fn logs_append_resume_to_the_checkpoint_and_refuse_other_headers() {
        let dir = scratch("log");
        let path = dir.join("m.csv");
        let mut log = CsvLog::create(&path, &H).unwrap();
        rows(&mut log, 1..=4);
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 5);
        assert_eq!(text.lines().nth(2).unwrap(), "2,0.5,t2");
        assert!(CsvLog::create(&path, &H).is_err(), "a new log never replaces an old one");
        // Resuming at step 2 drops the two rows logged after it.
        let (mut again, dropped) = CsvLog::resume(&path, &H, 2, Some((2, 1))).unwrap();
        assert_eq!(dropped, Resumed { after: 2, torn: None });
        assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count(), 3);
        again
            .append(vec![
                ("step", Col::U64(vec![3])),
                ("loss", Col::F64(vec![f64::NAN])),
                ("tag", Col::Str(vec!["x".into()])),
            ])
            .unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap().lines().last().unwrap(), "3,,x");
        let e = CsvLog::resume(&path, &["step", "other"], 3, Some((3, 1))).unwrap_err().to_string();
        assert!(e.contains("line 1") && e.contains("refusing"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn resume_never_discards_history_it_cannot_read() {
        let dir = scratch("bad");
        let path = dir.join("m.csv");
        let mut log = CsvLog::create(&path, &H).unwrap();
        rows(&mut log, 1..=5);
        let good = std::fs::read(&path).unwrap();
        // One non-UTF-8 byte on line 4.
        let mut bad = good.clone();
        let at = good.iter().enumerate().filter(|(_, b)| **b == b'\n').nth(2).unwrap().0 + 3;
        bad[at] = 0xff;
        std::fs::write(&path, &bad).unwrap();
        let e = CsvLog::resume(&path, &H, 5, Some((5, 1))).unwrap_err().to_string();
        assert!(e.contains("line 4") && e.contains("not UTF-8"), "{e}");
        assert_eq!(std::fs::read(&path).unwrap(), bad, "the unreadable log is left as it was");
        // A row that is not a step.
        std::fs::write(&path, b"step,loss,tag\n1,1,t1\nxx,2,t2\n").unwrap();
        let e = CsvLog::resume(&path, &H, 5, Some((5, 1))).unwrap_err().to_string();
        assert!(e.contains("line 3") && e.contains("`xx` is not a step number"), "{e}");
        // A missing log.
        std::fs::remove_file(&path).unwrap();
        assert!(CsvLog::resume(&path, &H, 5, Some((5, 1))).unwrap_err().to_string().contains("reading"));
        // Starting afresh keeps the old file beside the new one.
        std::fs::write(&path, &bad).unwrap();
        let (_, kept) = CsvLog::restart(&path, &H).unwrap();
        let kept = kept.unwrap();
        assert_eq!(std::fs::read(&kept).unwrap(), bad);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "step,loss,tag\n");
        // A torn last line (a crash inside a write) is dropped and counted.
        std::fs::write(&path, b"step,loss,tag\n1,1,t1\n2,0.5,t").unwrap();
        let (_, dropped) = CsvLog::resume(&path, &H, 5, Some((1, 1))).unwrap();
        assert_eq!(dropped, Resumed { after: 0, torn: Some("2,0.5,t".into()) });
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "step,loss,tag\n1,1,t1\n");
        // A log that ends before the checkpoint's last row is refused, and left as it was.
        std::fs::write(&path, b"step,loss,tag\n1,1,t1\n2,0.5,t").unwrap();
        let e = CsvLog::resume(&path, &H, 5, Some((5, 1))).unwrap_err().to_string();
        assert!(e.contains("ends at step 1 (its last line is cut off)") && e.contains("up to step 5"), "{e}");
        assert_eq!(std::fs::read(&path).unwrap(), b"step,loss,tag\n1,1,t1\n2,0.5,t");
        // As is one whose last step has fewer rows than each step logs (per-depth logs).
        std::fs::write(&path, b"step,loss,tag\n1,1,a\n1,1,b\n2,1,a\n").unwrap();
        let e = CsvLog::resume(&path, &H, 2, Some((2, 2))).unwrap_err().to_string();
        assert!(e.contains("ends at step 2, with 1 of its 2 rows"), "{e}");
        // A clean cut is refused too.
        std::fs::write(&path, b"step,loss,tag\n1,1,t1\n").unwrap();
        let e = CsvLog::resume(&path, &H, 5, Some((5, 1))).unwrap_err().to_string();
        assert!(e.contains("ends at step 1,"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
