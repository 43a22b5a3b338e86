//! The TSV layout every test set shares, cubes and boards alike: a header
//! row whose first column is `id`, then one instance per line as
//! `id<TAB>state[<TAB>optimal]`, each id once, blank lines skipped. [`rows`] reads that layout; the callers read the state.
//! A file is read only up to [`MAX_SET_BYTES`] bytes and
//! [`MAX_INSTANCES`] rows; a larger one is refused naming the file and the
//! limit.

use super::bounds::{MAX_INSTANCES, MAX_SET_BYTES, shorten};
use super::error::{SolveError, invalid};
use std::io::Read;
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
/// A first line that is not a header starting with `id` (a file without
/// one would lose its first instance), a line with fewer than two fields,
/// an optimal length that is not a number or an id given twice, naming the
/// source and line; more than [`MAX_INSTANCES`] rows.
pub(crate) fn rows<'a>(text: &'a str, source: &str, layout: &str) -> Result<Vec<Row<'a>>, SolveError> {
    let first = text.lines().next().unwrap_or("");
    let first_field = first.split('\t').next().unwrap_or("").trim_start_matches('\u{feff}').trim();
    if first_field != "id" {
        return Err(SolveError::Line {
            set: source.into(),
            line: 1,
            rule: format!(
                "expected a header naming the columns, `{layout}` with `id` first, not `{}`",
                shorten(&first.chars().take(60).collect::<String>())
            ),
        });
    }
    let mut out = Vec::new();
    let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (k, line) in text.lines().enumerate().skip(1) {
        if line.trim().is_empty() {
            continue;
        }
        if out.len() == MAX_INSTANCES {
            return Err(SolveError::Line {
                set: source.into(),
                line: k + 1,
                rule: format!("more than {MAX_INSTANCES} instances (the most one solve takes)"),
            });
        }
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() < 2 {
            return Err(SolveError::Line { set: source.into(), line: k + 1, rule: format!("expected `{layout}`") });
        }
        let optimal = match f.get(2).map(|s| s.trim()).filter(|s| !s.is_empty()) {
            Some(s) => Some(s.parse().map_err(|_| SolveError::Line {
                set: source.into(),
                line: k + 1,
                rule: format!("optimal length `{}` is not a number", shorten(s)),
            })?),
            None => None,
        };
        if let Some(before) = seen.insert(f[0], k + 1) {
            return Err(SolveError::Line {
                set: source.into(),
                line: k + 1,
                rule: format!("id `{}` is also on line {before}; each instance needs an id of its own", shorten(f[0])),
            });
        }
        out.push(Row { line: k + 1, id: f[0], state: f[1], optimal });
    }
    Ok(out)
}

/// The text of the test-set file `path`, which the caller did not find
/// among its built-in sets (`built_in` names them, for the message).
///
/// # Errors
/// A path that does not exist (the message lists the built-in sets), a
/// file that cannot be read or is not UTF-8 text, or one larger than
/// [`MAX_SET_BYTES`] (refused after reading at most one byte more).
pub(crate) fn read_file(path: &str, built_in: &[&str]) -> Result<String, SolveError> {
    if !Path::new(path).exists() {
        return Err(invalid!(
            format!("test set `{}`", shorten(path)),
            "is neither a built-in set ({}) nor an existing file",
            built_in.join(", ")
        ));
    }
    let too_large = || {
        invalid!(
            format!("test set `{path}`"),
            "is larger than {MAX_SET_BYTES} bytes (256 bytes for each of at most {MAX_INSTANCES} instances)"
        )
    };
    let read = |source| SolveError::Read { path: path.into(), source };
    let file = std::fs::File::open(path).map_err(read)?;
    if file.metadata().is_ok_and(|m| m.is_file() && m.len() > MAX_SET_BYTES) {
        return Err(too_large());
    }
    // Devices and pipes have no length to check: read one byte past the limit.
    let mut bytes = Vec::new();
    file.take(MAX_SET_BYTES + 1).read_to_end(&mut bytes).map_err(read)?;
    if bytes.len() as u64 > MAX_SET_BYTES {
        return Err(too_large());
    }
    String::from_utf8(bytes).map_err(|_| invalid!(format!("test set `{path}`"), "is not UTF-8 text"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_needs_its_header_and_an_id_per_instance() {
        let layout = "id<TAB>state";
        let e = rows("7\tabc\n8\tdef\n", "bare.tsv", layout).err().unwrap().to_string();
        assert!(e.starts_with("bare.tsv line 1: expected a header") && e.contains("`7\tabc`"), "{e}");
        assert_eq!(rows("\u{feff}id\tstate\n7\tabc\n", "bom.tsv", layout).unwrap().len(), 1);
        let e = rows("id\tstate\n7\tabc\n\n7\tdef\n", "twice.tsv", layout).err().unwrap().to_string();
        assert!(e.starts_with("twice.tsv line 4: id `7` is also on line 2"), "{e}");
    }

    #[test]
    fn a_set_holds_at_most_the_most_instances_one_solve_takes() {
        let mut text = String::with_capacity(8 + 12 * (MAX_INSTANCES + 1));
        text.push_str("id\tstate\n");
        for i in 0..MAX_INSTANCES {
            text.push_str(&format!("{i}\tb\n"));
        }
        assert_eq!(rows(&text, "full.tsv", "id<TAB>state").unwrap().len(), MAX_INSTANCES);
        text.push_str("\n\n"); // blank lines are not instances
        assert_eq!(rows(&text, "full.tsv", "id<TAB>state").unwrap().len(), MAX_INSTANCES);
        text.push_str("last\tb\n");
        let e = rows(&text, "big.tsv", "id<TAB>state").err().unwrap().to_string();
        assert!(e.starts_with(&format!("big.tsv line {}: ", MAX_INSTANCES + 4)) && e.contains("1000000"), "{e}");
    }
}
