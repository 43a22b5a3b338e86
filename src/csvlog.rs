//! CSV output through polars: append-as-you-go logs and whole tables.
//!
//! A [`CsvLog`] appends rows to a CSV file and flushes after every append,
//! so a running job can be inspected (or plotted by a notebook) at any
//! time. Whole tables are written atomically with [`write_table`]. Columns
//! are built from plain vectors ([`Col`]), so callers never touch polars.

use crate::rundir::write_atomic;
use anyhow::{Context, Result};
use polars::prelude::{Column, CsvWriter, DataFrame, SerWriter};
use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

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
}

fn frame(columns: Vec<(&str, Col)>) -> Result<DataFrame> {
    let cols: Vec<Column> = columns
        .into_iter()
        .map(|(name, c)| match c {
            Col::U64(v) => Column::new(name.into(), v),
            Col::I64(v) => Column::new(name.into(), v),
            Col::F64(v) => {
                Column::new(name.into(), v.into_iter().map(|x| (!x.is_nan()).then_some(x)).collect::<Vec<_>>())
            }
            Col::Str(v) => Column::new(name.into(), v),
            Col::Bool(v) => Column::new(name.into(), v),
        })
        .collect();
    DataFrame::new_infer_height(cols).context("building a table (columns of different lengths?)")
}

fn to_csv(columns: Vec<(&str, Col)>, header: bool) -> Result<Vec<u8>> {
    let mut df = frame(columns)?;
    let mut buf = Vec::new();
    CsvWriter::new(&mut buf).include_header(header).finish(&mut df).context("formatting CSV")?;
    Ok(buf)
}

/// Writes a whole table to `path` atomically.
pub fn write_table(path: &Path, columns: Vec<(&str, Col)>) -> Result<()> {
    let bytes = to_csv(columns, true)?;
    write_atomic(path, &bytes)
}

/// An append-only CSV log.
#[derive(Debug)]
pub struct CsvLog {
    path: PathBuf,
    header: Vec<String>,
}

impl CsvLog {
    /// A log at `path` with `header`. An existing file with the same header
    /// is continued; a missing or empty file is started with the header.
    pub fn open(path: &Path, header: &[&str]) -> Result<Self> {
        let header: Vec<String> = header.iter().map(|s| s.to_string()).collect();
        let existing = std::fs::read_to_string(path).unwrap_or_default();
        match existing.lines().next() {
            None => write_atomic(path, format!("{}\n", header.join(",")).as_bytes())?,
            Some(first) if first == header.join(",") => {}
            Some(first) => anyhow::bail!(
                "{} has header `{first}`, expected `{}`; refusing to mix formats",
                path.display(),
                header.join(",")
            ),
        }
        Ok(Self { path: path.to_path_buf(), header })
    }

    /// Appends rows (every column the same length, in header order) and
    /// flushes them to disk.
    pub fn append(&mut self, columns: Vec<(&str, Col)>) -> Result<()> {
        let names: Vec<&str> = columns.iter().map(|(n, _)| *n).collect();
        anyhow::ensure!(names == self.header, "columns {names:?} do not match the header {:?}", self.header);
        let bytes = to_csv(columns, false)?;
        let mut f = OpenOptions::new()
            .append(true)
            .open(&self.path)
            .with_context(|| format!("opening {}", self.path.display()))?;
        f.write_all(&bytes).with_context(|| format!("appending to {}", self.path.display()))?;
        f.flush()?;
        Ok(())
    }

    /// Drops every row whose first column (a step number) exceeds `step`:
    /// used when a run resumes from a checkpoint older than the log.
    pub fn truncate_after(&mut self, step: u64) -> Result<()> {
        let text = std::fs::read_to_string(&self.path).with_context(|| format!("reading {}", self.path.display()))?;
        let mut kept = String::with_capacity(text.len());
        for (i, line) in text.lines().enumerate() {
            let first = line.split(',').next().unwrap_or("");
            if i == 0 || first.parse::<u64>().is_ok_and(|s| s <= step) {
                kept.push_str(line);
                kept.push('\n');
            }
        }
        write_atomic(&self.path, kept.as_bytes())
    }
}

/// Reads the named columns of a CSV file as `f64` (missing values as NaN).
pub fn read_columns(path: &Path, names: &[&str]) -> Result<Vec<Vec<f64>>> {
    use polars::prelude::{CsvReadOptions, DataType, SerReader};
    let df = CsvReadOptions::default()
        .with_has_header(true)
        .try_into_reader_with_file_path(Some(path.to_path_buf()))
        .and_then(|r| r.finish())
        .with_context(|| format!("reading {}", path.display()))?;
    names
        .iter()
        .map(|&name| {
            let col = df.column(name).with_context(|| format!("{} has no column `{name}`", path.display()))?;
            let col = col
                .cast(&DataType::Float64)
                .with_context(|| format!("column `{name}` of {} is not numeric", path.display()))?;
            Ok(col.f64()?.iter().map(|v| v.unwrap_or(f64::NAN)).collect())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logs_append_truncate_and_refuse_other_headers() {
        let dir = std::env::temp_dir().join(format!("cube-oracle-csv-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let path = dir.join("m.csv");
        let mut log = CsvLog::open(&path, &["step", "loss", "tag"]).unwrap();
        for s in 1..=4u64 {
            log.append(vec![
                ("step", Col::U64(vec![s])),
                ("loss", Col::F64(vec![1.0 / s as f64])),
                ("tag", Col::Str(vec![format!("t{s}")])),
            ])
            .unwrap();
        }
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 5);
        assert_eq!(text.lines().nth(2).unwrap(), "2,0.5,t2");
        log.truncate_after(2).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count(), 3);
        // Reopening with the same header continues the file.
        let mut again = CsvLog::open(&path, &["step", "loss", "tag"]).unwrap();
        again
            .append(vec![
                ("step", Col::U64(vec![3])),
                ("loss", Col::F64(vec![f64::NAN])),
                ("tag", Col::Str(vec!["x".into()])),
            ])
            .unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap().lines().last().unwrap(), "3,,x");
        assert!(CsvLog::open(&path, &["step", "other"]).unwrap_err().to_string().contains("refusing"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
