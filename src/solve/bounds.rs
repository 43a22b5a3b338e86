//! The numeric bounds of `solve`'s arguments, in one place: how many
//! instances one solve takes (`--random`, `--trials`, the rows of a test-set
//! file), how large a test-set file may be, the range of `--max-time-s`,
//! how many workers `--jobs` may start, how deep a search may go
//! (`--max-depth` of the oracle and of the classical methods), and the
//! limits of local search (`--max-steps`, `--max-restarts`,
//! `--max-sideways`). A value out of range is refused with one line that
//! names the flag and the bound, before anything is allocated or started;
//! user values in messages are shortened ([`shorten`]) so that a pasted
//! megabyte is not echoed back.

use super::error::{SolveError, invalid};
pub use crate::folder::{SHOWN_CHARS, shorten};
use crate::local::LocalConfig;
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

/// The deepest `--max-depth` of beam search with an oracle: twice the
/// longest training walk a config allows (`data.scramble_len` ≤ 1000),
/// which is the default depth of a sliding puzzle's run.
pub const MAX_ORACLE_DEPTH: usize = 2000;

/// The deepest `--max-depth` of a classical method. IDA*, IDS and RBFS
/// recurse once per move; their searches run on threads with a
/// [`SEARCH_STACK_BYTES`] stack, over 6 KiB a level at this depth (a level
/// takes a few hundred bytes).
pub const MAX_CLASSICAL_DEPTH: u32 = 10_000;

/// The stack of a classical search thread (reserved address space; only
/// what the recursion uses is touched).
pub const SEARCH_STACK_BYTES: usize = 64 << 20;

/// The most steps of one local-search climb (`--max-steps`).
pub const MAX_LOCAL_STEPS: u64 = 1_000_000_000;

/// The most random restarts after a failed climb (`--max-restarts`).
pub const MAX_RESTARTS: u64 = 1_000_000;

/// The most consecutive sideways moves of a climb (`--max-sideways`); more
/// could never be made within [`MAX_LOCAL_STEPS`].
pub const MAX_SIDEWAYS: u64 = MAX_LOCAL_STEPS;

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

/// `--max-depth` of beam search with an oracle: at most [`MAX_ORACLE_DEPTH`].
///
/// # Errors
/// [`SolveError::Invalid`] naming the flag, the value and the limit.
pub fn oracle_depth(depth: usize) -> Result<usize, SolveError> {
    if (1..=MAX_ORACLE_DEPTH).contains(&depth) {
        return Ok(depth);
    }
    Err(invalid!(
        format!("--max-depth {depth}"),
        "expected 1 to {MAX_ORACLE_DEPTH} moves (at most twice the longest training walk a config allows)"
    ))
}

/// `--max-generated`: at least one node.
///
/// # Errors
/// [`SolveError::Invalid`] for 0, which would stop every instance before it starts.
pub fn max_generated(nodes: u64) -> Result<u64, SolveError> {
    if nodes == 0 {
        return Err(invalid!("--max-generated 0", "expected at least 1 node (0 would stop every instance unsearched)"));
    }
    Ok(nodes)
}

/// `--max-depth` of a classical method: at most [`MAX_CLASSICAL_DEPTH`].
///
/// # Errors
/// [`SolveError::Invalid`] naming the flag, the value and the limit.
pub fn classical_depth(depth: u64) -> Result<u32, SolveError> {
    match u32::try_from(depth) {
        Ok(d) if (1..=MAX_CLASSICAL_DEPTH).contains(&d) => Ok(d),
        _ => Err(invalid!(
            format!("--max-depth {depth}"),
            "expected 1 to {MAX_CLASSICAL_DEPTH} moves (at most the deepest recursion a search thread's stack is \
             sized for)"
        )),
    }
}

/// The limits of a local-search run: `--max-steps` at most
/// [`MAX_LOCAL_STEPS`], `--max-restarts` at most [`MAX_RESTARTS`],
/// `--max-sideways` at most [`MAX_SIDEWAYS`].
///
/// # Errors
/// [`SolveError::Invalid`] naming the first flag out of range and its limit.
pub fn local_limits(config: &LocalConfig) -> Result<(), SolveError> {
    for (flag, value, most, what) in [
        ("--max-steps", config.max_steps, MAX_LOCAL_STEPS, "steps per climb"),
        ("--max-restarts", config.max_restarts, MAX_RESTARTS, "restarts per trial"),
        ("--max-sideways", config.max_sideways, MAX_SIDEWAYS, "consecutive sideways moves"),
    ] {
        if value > most {
            return Err(invalid!(format!("{flag} {value}"), "at most {most} {what}"));
        }
    }
    Ok(())
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
    fn depths_and_local_limits_are_bounded() {
        assert_eq!(oracle_depth(MAX_ORACLE_DEPTH).unwrap(), MAX_ORACLE_DEPTH);
        let e = oracle_depth(usize::MAX).unwrap_err().to_string();
        assert!(e.starts_with(&format!("--max-depth {}: ", usize::MAX)) && e.contains("2000"), "{e}");
        assert_eq!(classical_depth(u64::from(MAX_CLASSICAL_DEPTH)).unwrap(), MAX_CLASSICAL_DEPTH);
        for d in [u64::from(MAX_CLASSICAL_DEPTH) + 1, u64::from(u32::MAX) + 1, u64::MAX] {
            let e = classical_depth(d).unwrap_err().to_string();
            assert!(e.starts_with(&format!("--max-depth {d}: ")) && e.contains("10000"), "{e}");
        }
        let mut c = LocalConfig::new(crate::local::LocalMethod::HillClimbing);
        assert!(local_limits(&c).is_ok());
        c.max_restarts = MAX_RESTARTS + 1;
        assert!(local_limits(&c).unwrap_err().to_string().starts_with("--max-restarts 1000001: at most 1000000"));
        c.max_restarts = 0;
        c.max_sideways = u64::MAX;
        assert!(local_limits(&c).unwrap_err().to_string().contains("at most 1000000000 consecutive"));
    }
}
