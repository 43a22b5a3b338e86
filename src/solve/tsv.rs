//! The TSV layout every test set shares, cubes and boards alike: a header
//! row, then one instance per line as `id<TAB>state[<TAB>optimal]`, blank
//! lines skipped. [`rows`] reads that layout; the callers read the state.

use super::error::{SolveError, invalid};
use std::path::Path;

/// One instance line.
pub(crate) struct Row<'a> {
    /// 1-based line number, for messages.
    pub line: usize,
    /// The instance id.
    pub id: &'a str,
    /// The state column, as written.
    pub state: &'a str,
    /// The optimal solution length, when given.
    pub optimal: Option<u32>,
}

/// The instance rows of `text` (`source` names it in messages; `layout`
/// is the expected line, e.g. ``id<TAB>facelets[<TAB>optimal_qtm]``).
///
/// # Errors
/// A line with fewer than two fields or an optimal length that is not a
/// number, naming the source and line.
pub(crate) fn rows<'a>(text: &'a str, source: &str, layout: &str) -> Result<Vec<Row<'a>>, SolveError> {
    let mut out = Vec::new();
    for (k, line) in text.lines().enumerate().skip(1) {
        if line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() < 2 {
            return Err(SolveError::Line { set: source.into(), line: k + 1, rule: format!("expected `{layout}`") });
        }
        let optimal = match f.get(2).map(|s| s.trim()).filter(|s| !s.is_empty()) {
            Some(s) => Some(s.parse().map_err(|_| SolveError::Line {
                set: source.into(),
                line: k + 1,
                rule: format!("optimal length `{s}` is not a number"),
            })?),
            None => None,
        };
        out.push(Row { line: k + 1, id: f[0], state: f[1], optimal });
    }
    Ok(out)
}

/// The text of the test-set file `path`, which the caller did not find
/// among its built-in sets (`built_in` names them, for the message).
///
/// # Errors
/// A path that does not exist (the message lists the built-in sets), or a
/// file that cannot be read.
pub(crate) fn read_file(path: &str, built_in: &[&str]) -> Result<String, SolveError> {
    if !Path::new(path).exists() {
        return Err(invalid!(
            format!("test set `{path}`"),
            "is neither a built-in set ({}) nor an existing file",
            built_in.join(", ")
        ));
    }
    std::fs::read_to_string(path).map_err(|source| SolveError::Read { path: path.into(), source })
}
