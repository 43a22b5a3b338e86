//! Heuristics: estimates of the distance from a state to the goal.
//!
//! A heuristic is *admissible* when it never exceeds the true distance;
//! optimal searches (A*, IDA*) refuse heuristics that do not declare it.
//! [`MaxOf`] combines several heuristics into their pointwise maximum, and
//! boxed heuristics are heuristics too, so one chosen at run time can be
//! handed to the generic searches.

use crate::puzzle::Puzzle;

/// A distance estimate for states of puzzle `P`.
pub trait Heuristic<P: Puzzle> {
    /// Estimated moves from `s` to the goal.
    fn estimate(&self, puzzle: &P, s: &P::State) -> u32;
    /// The estimate of `child`, reached from a parent whose estimate was
    /// `parent_h` by move `m`. The default recomputes it; heuristics with
    /// an O(1) incremental update (Manhattan distance) override this, and
    /// depth-first searches (IDA*, RBFS, IDS) call it on every child.
    #[inline]
    fn estimate_child(&self, puzzle: &P, child: &P::State, m: crate::puzzle::MoveId, parent_h: u32) -> u32 {
        let _ = (m, parent_h);
        self.estimate(puzzle, child)
    }
    /// The estimate of the child that move `m` would make from `parent`
    /// (estimate `parent_h`), computed *before* the move is applied, or
    /// `None` when the heuristic cannot tell without the child. IDA* asks
    /// this first, so a child beyond the threshold costs no apply/undo;
    /// when `Some`, it must equal what [`Heuristic::estimate_child`] gives.
    #[inline]
    fn estimate_move(&self, puzzle: &P, parent: &P::State, m: crate::puzzle::MoveId, parent_h: u32) -> Option<u32> {
        let _ = (puzzle, parent, m, parent_h);
        None
    }
    /// Short name for tables, e.g. `manhattan`.
    fn name(&self) -> String;
    /// Whether the estimate never exceeds the true distance.
    fn admissible(&self) -> bool;
}

/// The zero heuristic: turns A* into uniform-cost search.
#[derive(Clone, Copy, Debug, Default)]
pub struct Zero;

impl<P: Puzzle> Heuristic<P> for Zero {
    fn estimate(&self, _: &P, _: &P::State) -> u32 {
        0
    }
    fn name(&self) -> String {
        "zero".into()
    }
    fn admissible(&self) -> bool {
        true
    }
}

/// Forwards every method of [`Heuristic`] through a pointer type.
macro_rules! forward_heuristic {
    ($($pointer:ty),*) => {$(
        impl<P: Puzzle, H: Heuristic<P> + ?Sized> Heuristic<P> for $pointer {
            #[inline]
            fn estimate(&self, puzzle: &P, s: &P::State) -> u32 {
                (**self).estimate(puzzle, s)
            }
            #[inline]
            fn estimate_child(&self, puzzle: &P, child: &P::State, m: crate::puzzle::MoveId, parent_h: u32) -> u32 {
                (**self).estimate_child(puzzle, child, m, parent_h)
            }
            #[inline]
            fn estimate_move(
                &self,
                puzzle: &P,
                parent: &P::State,
                m: crate::puzzle::MoveId,
                parent_h: u32,
            ) -> Option<u32> {
                (**self).estimate_move(puzzle, parent, m, parent_h)
            }
            fn name(&self) -> String {
                (**self).name()
            }
            fn admissible(&self) -> bool {
                (**self).admissible()
            }
        }
    )*};
}

// A boxed heuristic is a heuristic (so one chosen at run time can be
// combined or handed to the generic searches), and so is a reference (so
// `&dyn Heuristic<P>` can be handed to them).
forward_heuristic!(Box<H>, &H);

/// The pointwise maximum of several heuristics, named `max(a,b,…)`.
///
/// A maximum of admissible heuristics never exceeds the true distance, so
/// it is admissible exactly when every part is (it claims admissibility
/// only then); a maximum of consistent heuristics is consistent, since the
/// part that attains the maximum at a state already satisfies the triangle
/// inequality there. It dominates each part. The maximum of an empty list
/// is 0.
pub struct MaxOf<P: Puzzle> {
    parts: Vec<Box<dyn Heuristic<P> + Send + Sync>>,
}

impl<P: Puzzle> MaxOf<P> {
    /// The maximum of `parts`.
    #[must_use]
    pub fn new(parts: Vec<Box<dyn Heuristic<P> + Send + Sync>>) -> Self {
        Self { parts }
    }

    /// The combined heuristics.
    #[must_use]
    pub fn parts(&self) -> &[Box<dyn Heuristic<P> + Send + Sync>] {
        &self.parts
    }
}

impl<P: Puzzle> std::fmt::Debug for MaxOf<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "MaxOf({})", Heuristic::<P>::name(self))
    }
}

impl<P: Puzzle> Heuristic<P> for MaxOf<P> {
    fn estimate(&self, puzzle: &P, s: &P::State) -> u32 {
        self.parts.iter().map(|h| h.estimate(puzzle, s)).max().unwrap_or(0)
    }
    fn name(&self) -> String {
        let names: Vec<String> = self.parts.iter().map(|h| h.name()).collect();
        format!("max({})", names.join(","))
    }
    fn admissible(&self) -> bool {
        self.parts.iter().all(|h| h.admissible())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::heuristics::sliding::{Gaschnig, Manhattan};
    use crate::sliding::{Goal, Sliding};

    struct Liar;
    impl Heuristic<Sliding> for Liar {
        fn estimate(&self, _: &Sliding, _: &crate::sliding::Board) -> u32 {
            99
        }
        fn name(&self) -> String {
            "liar".into()
        }
        fn admissible(&self) -> bool {
            false
        }
    }

    #[test]
    fn max_of_takes_the_largest_and_reports_its_parts() {
        let p = Sliding::new(3, Goal::BlankLast).unwrap();
        let b = p.parse_board("2 1 6 / 5 4 3 / 8 7 0").unwrap();
        let h = MaxOf::new(vec![Box::new(Manhattan::new(&p)), Box::new(Gaschnig::new(&p))]);
        assert_eq!(h.name(), "max(manhattan,gaschnig)");
        assert!(h.admissible());
        assert_eq!(h.estimate(&p, &b), 12);
        let with_liar = MaxOf::new(vec![Box::new(Manhattan::new(&p)), Box::new(Liar)]);
        assert!(!with_liar.admissible());
        assert_eq!(with_liar.estimate(&p, &b), 99);
        assert_eq!(MaxOf::<Sliding>::new(Vec::new()).estimate(&p, &b), 0);
    }
}
