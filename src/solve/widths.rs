//! Beam widths from the command line: `--beam-width W`, `--beam-log2 K` or
//! a sweep `--beam-log2 A..B` (inclusive). Widths are checked before any
//! memory is allocated.

use super::bounds::shorten;
use super::error::{SolveError, invalid};
use crate::search::beam::MAX_WIDTH;

/// Largest accepted `log2` width.
pub const MAX_LOG2: u32 = MAX_WIDTH.trailing_zeros();

/// Widths to run, in increasing order.
pub fn parse(width: Option<usize>, log2: Option<&str>) -> Result<Vec<usize>, SolveError> {
    match (width, log2) {
        (Some(w), Some(k)) => {
            Err(invalid!(format!("beam width {w} and log2 width {}", shorten(k)), "give one, not both"))
        }
        (Some(0), None) => Err(invalid!("beam width 0", "the beam width must be at least 1")),
        (Some(w), None) if w > MAX_WIDTH => Err(invalid!(
            format!("beam width {w}"),
            "exceeds the maximum {MAX_WIDTH} (2^{MAX_LOG2}); larger beams do not fit in memory"
        )),
        (Some(w), None) => Ok(vec![w]),
        (None, None) => Ok(vec![1 << 10]),
        (None, Some(text)) => {
            let (a, b) = match text.split_once("..") {
                Some((a, b)) => (parse_k(a, text)?, parse_k(b, text)?),
                None => {
                    let k = parse_k(text, text)?;
                    (k, k)
                }
            };
            if a > b {
                return Err(invalid!(
                    format!("log2 beam widths {}", shorten(text)),
                    "the range is empty ({a} > {b}); write it as low..high"
                ));
            }
            Ok((a..=b).map(|k| 1usize << k).collect())
        }
    }
}

fn parse_k(s: &str, whole: &str) -> Result<u32, SolveError> {
    let value = || format!("log2 beam widths {}", shorten(whole));
    let k: u32 = s.trim().parse().map_err(|_| invalid!(value(), "`{}` is not a whole number", shorten(s)))?;
    if k > MAX_LOG2 {
        return Err(invalid!(
            value(),
            "2^{k} exceeds the maximum width 2^{MAX_LOG2}; larger beams do not fit in memory"
        ));
    }
    Ok(k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_parse_and_bad_ones_are_refused() {
        assert_eq!(parse(None, Some("7..10")).unwrap(), [128, 256, 512, 1024]);
        assert_eq!(parse(None, Some("3")).unwrap(), [8]);
        assert_eq!(parse(Some(100), None).unwrap(), [100]);
        assert_eq!(parse(None, None).unwrap(), [1024]);
        assert!(parse(Some(0), None).unwrap_err().to_string().contains("at least 1"));
        assert!(parse(None, Some("10..7")).unwrap_err().to_string().contains("range is empty"));
        assert!(parse(None, Some("25")).unwrap_err().to_string().contains("exceeds the maximum"));
        assert!(parse(None, Some("x")).unwrap_err().to_string().contains("not a whole number"));
        assert!(parse(Some(4), Some("3")).is_err());
    }
}
