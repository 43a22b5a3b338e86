//! The numeric bounds of `solve`'s arguments, in one place: how many
//! instances one solve takes (`--random`, `--trials`, the rows of a test-set
//! file), how large a test-set file may be, the range of `--max-time-s`,
//! and how many workers `--jobs` may start. A value out of range is
//! refused with one line that names the flag and the bound, before
//! anything is allocated or started; user values in messages are
//! shortened ([`shorten`]) so that a pasted megabyte is not echoed back.

use super::error::{SolveError, invalid};
use std::time::Duration;

/// The most instances one solve takes: `--random N`, local search's
/// `--trials N`, and the instance rows of a test-set file.
pub const MAX_INSTANCES: usize = 1_000_000;

/// The most bytes a test-set file may have: 256 bytes for each of
/// [`MAX_INSTANCES`] rows (a cube row is about 70 bytes, an 8×8 board's
/// under 200).
pub const MAX_SET_BYTES: u64 = 256 * MAX_INSTANCES as u64;

/// The longest `--max-time-s`: ten million seconds (about 116 days).
pub const MAX_TIME_S: f64 = 10_000_000.0;

/// The fewest workers `--jobs` may always ask for, whatever the machine.
pub const MIN_JOBS_LIMIT: usize = 8;

/// Workers per core `--jobs` may ask for.
pub const JOBS_PER_CORE: usize = 4;

/// Characters of a user value shown in a message before it is cut.
pub const SHOWN_CHARS: usize = 40;

/// `text` as shown in a message: whole up to [`SHOWN_CHARS`] characters,
/// else its first [`SHOWN_CHARS`] followed by `…` and the full length.
#[must_use]
pub fn shorten(text: &str) -> String {
    let count = text.chars().count();
    if count <= SHOWN_CHARS {
        return text.to_string();
    }
    let head: String = text.chars().take(SHOWN_CHARS).collect();
    format!("{head}… ({count} characters)")
}

/// A number of seconds as shown in a message: plain where short,
/// scientific where a plain number would be long (`1e300`, not 301 digits).
#[must_use]
pub fn show_number(t: f64) -> String {
    let plain = format!("{t}");
    if plain.len() <= 20 { plain } else { format!("{t:e}") }
}

/// The count of `flag` (`--random`, `--trials`): at least 1, at most
/// [`MAX_INSTANCES`].
///
/// # Errors
/// [`SolveError::Invalid`] naming the flag, the value and the range.
pub fn instance_count(flag: &str, n: u64) -> Result<usize, SolveError> {
    match usize::try_from(n) {
        Ok(k) if (1..=MAX_INSTANCES).contains(&k) => Ok(k),
        _ => Err(invalid!(format!("{flag} {n}"), "expected 1 to {MAX_INSTANCES} (the most instances one solve takes)")),
    }
}

/// `--max-time-s` as a duration: more than 0, at most [`MAX_TIME_S`].
///
/// # Errors
/// [`SolveError::Invalid`] naming the flag, the value and the range
/// (NaN, infinities, zero and negative values included).
pub fn max_time(seconds: f64) -> Result<Duration, SolveError> {
    if seconds.is_finite() && seconds > 0.0 && seconds <= MAX_TIME_S {
        Ok(Duration::from_secs_f64(seconds))
    } else {
        Err(invalid!(
            format!("--max-time-s {}", show_number(seconds)),
            "expected a positive number of seconds, at most {MAX_TIME_S} (about 116 days)"
        ))
    }
}

/// The most workers `--jobs` may start on this machine:
/// [`JOBS_PER_CORE`] per core, at least [`MIN_JOBS_LIMIT`].
#[must_use]
pub fn max_jobs() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    (JOBS_PER_CORE * cores).max(MIN_JOBS_LIMIT)
}

/// `--jobs N` checked against [`max_jobs`].
///
/// # Errors
/// [`SolveError::Invalid`] naming the flag, the value and the limit.
pub fn jobs(n: usize) -> Result<usize, SolveError> {
    let most = max_jobs();
    if n <= most {
        return Ok(n.max(1));
    }
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    Err(invalid!(
        format!("--jobs {n}"),
        "at most {most} workers on this machine ({JOBS_PER_CORE} per core of its {cores}, at least {MIN_JOBS_LIMIT})"
    ))
}

/// The workers to start for `cases` instances when `jobs` were allowed:
/// never more than there are instances, never fewer than one.
#[must_use]
pub fn workers(jobs: usize, cases: usize) -> usize {
    jobs.min(cases).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_refuse_out_of_range_values_in_one_line() {
        assert_eq!(instance_count("--random", 1).unwrap(), 1);
        assert_eq!(instance_count("--random", MAX_INSTANCES as u64).unwrap(), MAX_INSTANCES);
        for n in [0, MAX_INSTANCES as u64 + 1, u64::MAX] {
            let e = instance_count("--random", n).unwrap_err().to_string();
            assert!(e.starts_with(&format!("--random {n}: ")) && e.contains("1000000"), "{e}");
        }
        assert_eq!(max_time(1.5).unwrap(), Duration::from_millis(1500));
        assert!(max_time(MAX_TIME_S).is_ok());
        for t in [0.0, -1.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e300, MAX_TIME_S * 1.0001] {
            let e = max_time(t).unwrap_err().to_string();
            assert!(e.starts_with("--max-time-s ") && e.contains("10000000") && e.len() < 160, "{e}");
        }
        assert!(max_time(1e300).unwrap_err().to_string().starts_with("--max-time-s 1e300: "));
        assert!(max_jobs() >= MIN_JOBS_LIMIT);
        assert_eq!(jobs(max_jobs()).unwrap(), max_jobs());
        let e = jobs(max_jobs() + 1).unwrap_err().to_string();
        assert!(e.starts_with("--jobs ") && e.contains(&max_jobs().to_string()), "{e}");
        assert_eq!((workers(10_000, 1), workers(2, 5), workers(3, 0)), (1, 2, 1));
    }

    #[test]
    fn long_values_are_cut() {
        assert_eq!(shorten("short"), "short");
        let long = "9".repeat(301);
        let s = shorten(&long);
        assert!(s.starts_with(&"9".repeat(SHOWN_CHARS)) && s.ends_with("… (301 characters)"), "{s}");
        assert_eq!(shorten(&"é".repeat(41)).chars().filter(|&c| c == 'é').count(), SHOWN_CHARS);
    }
}
