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
            Err(invalid!(format!("--beam-width {w} and --beam-log2 {}", shorten(k)), "give one, not both"))
        }
        (Some(0), None) => Err(invalid!("--beam-width 0", "the beam width must be at least 1")),
        (Some(w), None) if w > MAX_WIDTH => Err(invalid!(
            format!("--beam-width {w}"),
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
                    format!("--beam-log2 {}", shorten(text)),
                    "the range is empty ({a} > {b}); write it as low..high"
                ));
            }
            Ok((a..=b).map(|k| 1usize << k).collect())
        }
    }
}

fn parse_k(s: &str, whole: &str) -> Result<u32, SolveError> {
    let value = || format!("--beam-log2 {}", shorten(whole));
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
        // Each refusal names the flag and the value.
        let refused = |w, k| parse(w, k).unwrap_err().to_string();
        assert!(refused(Some(0), None).contains("--beam-width 0") && refused(Some(0), None).contains("at least 1"));
        assert!(refused(None, Some("10..7")).contains("--beam-log2 10..7: the range is empty"));
        assert!(refused(None, Some("25")).contains("--beam-log2 25: 2^25 exceeds the maximum"));
        assert!(refused(None, Some("x")).contains("--beam-log2 x: `x` is not a whole number"));
        assert!(refused(Some(4), Some("3")).contains("--beam-width 4 and --beam-log2 3"));
    }
}
