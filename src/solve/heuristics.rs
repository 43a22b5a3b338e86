//! Heuristics by name, as `solve --heuristic` spells them.
//!
//! A name resolves to a boxed [`Heuristic`] for the chosen puzzle: `zero`,
//! `misplaced`, `manhattan`, `linear-conflict`, `linear-conflict+corner`,
//! `gaschnig`, `xy` (see [`crate::heuristics::sliding`]), the additive
//! pattern databases `pdb-5-5-5`, `pdb-6-6-3`, `pdb-7-8`, `pdb-6-6-6-6`
//! (append `+r` for the max with the reflected lookup; see
//! [`crate::heuristics::sliding_pdb`]), the pointwise maximum `max(a,b,…)` of any of
//! them, and the weighted `K*name` (not admissible for `K > 1`). Boxed
//! heuristics are heuristics themselves, so the generic searches take them
//! as they are.

use super::error::{SolveError, invalid};
use crate::heuristics::HeuristicError;
use crate::heuristics::MaxOf;
use crate::heuristics::sliding::{Gaschnig, LinearConflict, LinearConflictCorner, Manhattan, Misplaced, XY};
use crate::heuristics::sliding_pdb::{AdditivePdb, Partition, names};
use crate::heuristics::{Heuristic, Zero};
use crate::puzzle::Puzzle;
use crate::sliding::Sliding;
use std::path::Path;

/// A heuristic chosen at run time.
pub type BoxedHeuristic<P> = Box<dyn Heuristic<P> + Send + Sync>;

/// `k` times another heuristic: the weighted heuristic of weighted A*,
/// not admissible for `k > 1` (optimal methods refuse it).
pub struct Scaled<P: Puzzle> {
    /// The weight.
    pub k: u32,
    /// The heuristic weighted.
    pub inner: BoxedHeuristic<P>,
}

impl<P: Puzzle> Heuristic<P> for Scaled<P> {
    fn estimate(&self, puzzle: &P, s: &P::State) -> u32 {
        self.k.saturating_mul(self.inner.estimate(puzzle, s))
    }
    fn name(&self) -> String {
        format!("{}*{}", self.k, self.inner.name())
    }
    fn admissible(&self) -> bool {
        self.k <= 1 && self.inner.admissible()
    }
}

/// Names `solve --heuristic` accepts for sliding puzzles.
pub const SLIDING_NAMES: &str = "zero, misplaced, manhattan, linear-conflict, linear-conflict+corner, gaschnig, xy, \
     pdb-<partition>[+r], max(a,b,...), K*name";

/// Deepest nesting of `max(…)` and `K*…` accepted (a guard against
/// unbounded recursion on hostile input; real expressions use two or three).
pub const MAX_NESTING: usize = 32;
/// Largest weight `K` of `K*name`.
pub const MAX_WEIGHT: u32 = 1000;

/// Splits `a,b(c,d),e` at the commas outside parentheses.
fn split_top_level(text: &str) -> Vec<&str> {
    let (mut depth, mut start, mut parts) = (0i32, 0usize, Vec::new());
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

/// The sliding-puzzle heuristic called `spec` for puzzle `p`; pattern
/// databases are loaded from (or built into) `cache`.
///
/// # Errors
/// An unknown name (the message lists the known ones), a malformed
/// `max(…)` or weight, a partition that does not fit the board, or a
/// reflected lookup for a goal that is not symmetric.
pub fn sliding_heuristic(p: &Sliding, spec: &str, cache: Option<&Path>) -> Result<BoxedHeuristic<Sliding>, SolveError> {
    parse_nested(p, spec, spec, Tables::Build(cache), 0)
}

/// The heuristic `spec` names, parsed and checked with its pattern
/// databases left unbuilt (each estimates 0): what a request can be
/// refused for (a name, a partition, admissibility) is known before
/// minutes of table building. Its name and admissibility are the built
/// heuristic's.
///
/// # Errors
/// As [`sliding_heuristic`], but for the building of the tables.
pub fn sliding_heuristic_unbuilt(p: &Sliding, spec: &str) -> Result<BoxedHeuristic<Sliding>, SolveError> {
    parse_nested(p, spec, spec, Tables::Unbuilt, 0)
}

/// Whether the pattern databases a heuristic names are built (from `cache`
/// when given) or left out.
#[derive(Clone, Copy)]
enum Tables<'a> {
    Build(Option<&'a Path>),
    Unbuilt,
}

/// A pattern database named but not built ([`sliding_heuristic_unbuilt`]).
struct Unbuilt(String);

impl Heuristic<Sliding> for Unbuilt {
    fn estimate(&self, _: &Sliding, _: &<Sliding as Puzzle>::State) -> u32 {
        0
    }
    fn name(&self) -> String {
        self.0.clone()
    }
    fn admissible(&self) -> bool {
        true
    }
}

fn parse_nested(
    p: &Sliding,
    whole: &str,
    spec: &str,
    cache: Tables<'_>,
    depth: usize,
) -> Result<BoxedHeuristic<Sliding>, SolveError> {
    if depth > MAX_NESTING {
        return Err(invalid!(
            format!("--heuristic {}", super::bounds::shorten(whole)),
            "nested more than {MAX_NESTING} levels deep (max(…) and K*… inside each other)"
        ));
    }
    let value = || format!("--heuristic {}", super::bounds::shorten(spec));
    let name = spec.trim().to_ascii_lowercase();
    if let Some(inner) = name.strip_prefix("max(") {
        let Some(inner) = inner.strip_suffix(')') else { return Err(invalid!(value(), "`max(` has no closing `)`")) };
        let parts = split_top_level(inner);
        if parts.iter().any(|s| s.trim().is_empty()) {
            return Err(invalid!(value(), "max() needs a comma-separated list of heuristics"));
        }
        let parts =
            parts.into_iter().map(|s| parse_nested(p, whole, s, cache, depth + 1)).collect::<Result<Vec<_>, _>>()?;
        return Ok(Box::new(MaxOf::new(parts)));
    }
    if let Some((k, rest)) = name.split_once('*') {
        let k = k.trim();
        let weight = match k.parse::<u32>() {
            Ok(w) if w <= MAX_WEIGHT => w,
            Ok(_) => {
                return Err(invalid!(
                    value(),
                    "weight `{}` is above the largest weight, {MAX_WEIGHT}",
                    super::bounds::shorten(k)
                ));
            }
            Err(_) if !k.is_empty() && k.chars().all(|c| c.is_ascii_digit()) => {
                return Err(invalid!(
                    value(),
                    "weight `{}` is above the largest weight, {MAX_WEIGHT}",
                    super::bounds::shorten(k)
                ));
            }
            Err(_) => return Err(invalid!(value(), "weight `{}` is not a whole number", super::bounds::shorten(k))),
        };
        return Ok(Box::new(Scaled { k: weight, inner: parse_nested(p, whole, rest, cache, depth + 1)? }));
    }
    if let Some(partition) = name.strip_prefix("pdb-") {
        let (partition, reflect) = match partition.strip_suffix("+r") {
            Some(base) => (base, true),
            None => (partition, false),
        };
        if let Err(e) = Partition::named(p.n(), partition, p.goal().blank()) {
            let why = match e {
                HeuristicError::BlankNotInCorner { blank, .. } => format!(
                    "its tables are laid out for a goal with the blank in a corner; the goal here has it on cell {blank}"
                ),
                _ => {
                    let known: Vec<String> = names(p.n()).iter().map(|s| format!("pdb-{s}")).collect();
                    let known = if known.is_empty() { "none".to_string() } else { known.join(", ") };
                    format!("no partition `{}` for {}; known: {known}", super::bounds::shorten(partition), p.name())
                }
            };
            return Err(invalid!(value(), "{why}"));
        }
        return Ok(match cache {
            Tables::Build(cache) => Box::new(AdditivePdb::new(p, partition, reflect, cache)?),
            Tables::Unbuilt => Box::new(Unbuilt(format!("pdb-{partition}{}", if reflect { "+r" } else { "" }))),
        });
    }
    Ok(match name.as_str() {
        "zero" => Box::new(Zero),
        "misplaced" | "h1" => Box::new(Misplaced::new(p)),
        "manhattan" | "h2" => Box::new(Manhattan::new(p)),
        "linear-conflict" | "lc" => Box::new(LinearConflict::new(p)),
        "linear-conflict+corner" | "corner" | "lc+corner" => Box::new(LinearConflictCorner::new(p)),
        "gaschnig" => Box::new(Gaschnig::new(p)),
        "xy" | "x-y" => match XY::new(p) {
            Some(h) => Box::new(h),
            None => {
                return Err(invalid!(
                    value(),
                    "the X-Y heuristic's tables are built for boards up to {n}×{n} only",
                    n = XY::MAX_N
                ));
            }
        },
        _ => return Err(invalid!(value(), "unknown heuristic for {}; expected one of {SLIDING_NAMES}", p.name())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sliding::Goal;

    #[test]
    fn names_resolve_and_combinators_compose() {
        let p = Sliding::new(3, Goal::BlankLast).unwrap();
        let b = p.parse_board("8 7 6 / 5 4 3 / 2 1 0").unwrap();
        let h = sliding_heuristic(&p, "max(misplaced, 2*manhattan, max(gaschnig,zero))", None).unwrap();
        assert_eq!(h.name(), "max(misplaced,2*manhattan,max(gaschnig,zero))");
        assert!(!h.admissible(), "a weight above 1 makes the max inadmissible");
        let manhattan = Manhattan::new(&p).estimate(&p, &b);
        assert_eq!(h.estimate(&p, &b), 2 * manhattan);
        assert!(sliding_heuristic(&p, "max(manhattan,linear-conflict)", None).unwrap().admissible());
        for bad in ["max(manhattan", "max()", "3x*manhattan", "nope"] {
            assert!(sliding_heuristic(&p, bad, None).is_err(), "{bad}");
        }
        for deep in ["max(".repeat(2000) + "zero" + &")".repeat(2000), "1*".repeat(2000) + "zero"] {
            let e = sliding_heuristic(&p, &deep, None).err().unwrap().to_string();
            assert!(e.contains("nested more than 32 levels"), "{e}");
        }
        assert!(sliding_heuristic(&p, &("max(".repeat(32) + "zero" + &")".repeat(32)), None).is_ok());
        for big in ["4294967295*manhattan", "99999999999999999999*zero", "1001*zero"] {
            let e = sliding_heuristic(&p, big, None).err().unwrap().to_string();
            assert!(e.contains("above the largest weight, 1000"), "{e}");
        }
        let e = sliding_heuristic(&p, "pdb-7-8", None).err().unwrap().to_string();
        assert!(e.contains("no partition `7-8` for puzzle8"), "{e}");
    }

    #[test]
    fn requests_are_checked_before_any_table_is_built() {
        // The 15-puzzle's 7-8 tables take minutes to build; unbuilt, the
        // weighted heuristic is known inadmissible at once, under its own name.
        let p15 = Sliding::new(4, Goal::BlankLast).unwrap();
        let h = sliding_heuristic_unbuilt(&p15, "max(2*pdb-7-8, manhattan)").unwrap();
        assert_eq!(h.name(), "max(2*pdb-7-8,manhattan)");
        assert!(!h.admissible());
        assert!(sliding_heuristic_unbuilt(&p15, "max(pdb-7-8+r, manhattan)").unwrap().admissible());
        // A named partition with a goal whose blank is not in a corner says so.
        let snail = Sliding::new(4, Goal::Snail).unwrap();
        let e = sliding_heuristic_unbuilt(&snail, "pdb-7-8").err().unwrap().to_string();
        assert!(e.contains("--heuristic pdb-7-8") && e.contains("blank in a corner") && e.contains("on cell"), "{e}");
        let e = sliding_heuristic_unbuilt(&p15, "pdb-9-6").err().unwrap().to_string();
        assert!(e.contains("no partition `9-6` for puzzle15; known: pdb-5-5-5, pdb-6-6-3, pdb-7-8"), "{e}");
    }
}
