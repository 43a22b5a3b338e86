//! The TSV layout every test set shares, cubes and boards alike: a header
//! row naming the columns, `id`, the state's column and the optimal
//! length's (`facelets` and `optimal_qtm` for cubes, `tiles` and
//! `optimal` for boards), then one instance per line as
//! `id<TAB>state[<TAB>optimal]`, each id once, blank lines skipped.
//! [`rows`] reads that layout; the callers read the state.
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

/// The instance rows of `text` (`source` names it in messages), whose
/// header must be `id<TAB>{state}[<TAB>{optimal}[<TAB>…]]`: the columns
/// after the third are the file's own notes, kept out of the solve, but
/// every one is named in the header, so that no row holds a value the
/// header does not name.
///
/// # Errors
/// A first line that is not such a header (a file without one would lose
/// its first instance; a third column under another name, e.g. an
/// optimal length in another metric, would be read as this one); a line
/// with fewer than two fields or more than the header names; an empty id;
/// an optimal length that is not a whole number of moves; an id given
/// twice; each naming the source and line; more than [`MAX_INSTANCES`]
/// rows.
pub(crate) fn rows<'a>(text: &'a str, source: &str, state: &str, optimal: &str) -> Result<Vec<Row<'a>>, SolveError> {
    let layout = format!("id<TAB>{state}[<TAB>{optimal}]");
    let first = text.lines().next().unwrap_or("").trim_start_matches('\u{feff}');
    let header: Vec<&str> = first.split('\t').map(str::trim).collect();
    let line_err = |line: usize, rule: String| SolveError::Line { set: source.into(), line, rule };
    let wrong = match header.as_slice() {
        [id, ..] if *id != "id" => Some(format!(
            "expected a header naming the columns, `{layout}` with `id` first, not `{}`",
            shorten(&first.chars().take(60).collect::<String>())
        )),
        [_] => Some(format!("the header names no `{state}` column: expected `{layout}`")),
        [_, s, ..] if *s != state => {
            Some(format!("column 2 is `{}`, expected `{state}` (the header must be `{layout}`)", shorten(s)))
        }
        [_, _, o, ..] if *o != optimal => Some(format!(
            "column 3 is `{}`, expected `{optimal}`: only {optimal} lengths are read there (the header must be `{layout}`, \
             further columns after it)",
            shorten(o)
        )),
        _ => None,
    };
    if let Some(rule) = wrong {
        return Err(line_err(1, rule));
    }
    let columns = header.len();
    let mut out = Vec::new();
    let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (k, line) in text.lines().enumerate().skip(1) {
        if line.trim().is_empty() {
            continue;
        }
        if out.len() == MAX_INSTANCES {
            return Err(line_err(k + 1, format!("more than {MAX_INSTANCES} instances (the most one solve takes)")));
        }
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() < 2 {
            return Err(line_err(k + 1, format!("expected `{layout}`")));
        }
        if f.len() > columns {
            return Err(line_err(k + 1, format!("{} fields, but the header names {columns} columns", f.len())));
        }
        let id = f[0].trim();
        if id.is_empty() {
            return Err(line_err(k + 1, "an empty id; each instance needs an id of its own".into()));
        }
        let optimal = match f.get(2).map(|s| s.trim()).filter(|s| !s.is_empty()) {
            Some(s) => Some(s.parse().map_err(|_| {
                line_err(k + 1, format!("{optimal} `{}` is not a whole number of moves (0 or more)", shorten(s)))
            })?),
            None => None,
        };
        if let Some(before) = seen.insert(id, k + 1) {
            return Err(line_err(
                k + 1,
                format!("id `{}` is also on line {before}; each instance needs an id of its own", shorten(id)),
            ));
        }
        out.push(Row { line: k + 1, id, state: f[1], optimal });
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
    // A FIFO or a device is refused before a byte is read (a FIFO would
    // hang the open, a device be read without end).
    let file = crate::bounded::open_regular(Path::new(path)).map_err(read)?;
    if file.metadata().is_ok_and(|m| m.len() > MAX_SET_BYTES) {
        return Err(too_large());
    }
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
        let read = |text: &str| rows(text, "f.tsv", "state", "optimal_qtm").map(|r| r.len()).map_err(|e| e.to_string());
        let e = read("7\tabc\n8\tdef\n").unwrap_err();
        assert!(e.starts_with("f.tsv line 1: expected a header") && e.contains("`7\tabc`"), "{e}");
        assert_eq!(read("\u{feff}id\tstate\n7\tabc\n"), Ok(1));
        let e = read("id\tstate\n7\tabc\n\n7\tdef\n").unwrap_err();
        assert!(e.starts_with("f.tsv line 4: id `7` is also on line 2"), "{e}");
        // The header names what the columns hold, and the rows hold no more.
        let e = read("id\tstate\toptimal_htm\n7\tabc\t5\n").unwrap_err();
        assert!(e.starts_with("f.tsv line 1: column 3 is `optimal_htm`, expected `optimal_qtm`"), "{e}");
        let e = read("id\tfoo\n7\tabc\n").unwrap_err();
        assert!(e.starts_with("f.tsv line 1: column 2 is `foo`, expected `state`"), "{e}");
        let e = read("id\n7\n").unwrap_err();
        assert!(e.contains("names no `state` column"), "{e}");
        let e = read("id\tstate\toptimal_qtm\n7\tabc\t5\textra\n").unwrap_err();
        assert!(e.starts_with("f.tsv line 2: 4 fields, but the header names 3 columns"), "{e}");
        assert_eq!(read("id\tstate\toptimal_qtm\tnote\n7\tabc\t5\tx\n8\tdef\n"), Ok(2), "named notes");
        let e = read("id\tstate\n\tabc\n").unwrap_err();
        assert!(e.starts_with("f.tsv line 2: an empty id"), "{e}");
        for bad in ["-3", "21.5", "x"] {
            let e = read(&format!("id\tstate\toptimal_qtm\n7\tabc\t{bad}\n")).unwrap_err();
            assert!(e.contains(&format!("optimal_qtm `{bad}` is not a whole number of moves")), "{e}");
        }
    }

    #[test]
    fn a_set_holds_at_most_the_most_instances_one_solve_takes() {
        let mut text = String::with_capacity(8 + 12 * (MAX_INSTANCES + 1));
        text.push_str("id\tstate\n");
        for i in 0..MAX_INSTANCES {
            text.push_str(&format!("{i}\tb\n"));
        }
        assert_eq!(rows(&text, "full.tsv", "state", "optimal").unwrap().len(), MAX_INSTANCES);
        text.push_str("\n\n"); // blank lines are not instances
        assert_eq!(rows(&text, "full.tsv", "state", "optimal").unwrap().len(), MAX_INSTANCES);
        text.push_str("last\tb\n");
        let e = rows(&text, "big.tsv", "state", "optimal").err().unwrap().to_string();
        assert!(e.starts_with(&format!("big.tsv line {}: ", MAX_INSTANCES + 4)) && e.contains("1000000"), "{e}");
    }
}
