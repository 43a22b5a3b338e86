//! The solve front end of each puzzle: how its instances are loaded, its
//! default depth limit with an oracle, the second length measure written
//! beside `length`, its symmetric ensemble, its classical heuristics and
//! its distance-table bound. Each puzzle model implements [`FrontEnd`]
//! once, here; [`visit`] is the one `match` that turns the registry's
//! [`AnyPuzzle`] into a concrete model for `solve`'s generic code (oracle
//! beam search, the classical searches and the distance tables all go
//! through it), so a new puzzle is one more `impl` and one more arm, and
//! the compiler names what it lacks.

use super::classical::search::{self as classical, ClassicalOptions, Named, Row};
use super::error::{SolveError, invalid};
use super::heuristics::{sliding_heuristic, sliding_heuristic_unbuilt};
use super::input::{self, Case, Input, Loaded};
use super::{OtherMetric, cube_lengths, cube_symmetries};
use crate::cube2::Cube2Puzzle;
use crate::cube3::{Cube3Puzzle, Metric};
use crate::heuristics::Zero;
use crate::learn::config::TrainConfig;
use crate::puzzle::Puzzle;
use crate::registry::AnyPuzzle;
use crate::search::symmetric::Transform;
use crate::sliding::{Goal, Sliding};
use indicatif::ProgressBar;
use std::path::Path;

/// What `solve` needs of a puzzle beyond the [`Puzzle`] model.
pub trait FrontEnd: Puzzle + Sync + 'static {
    /// The instances `input` names, and the model to search them with
    /// (a sliding test set fixes its own goal: `goal`, when given, must be
    /// that goal; cubes have none).
    ///
    /// # Errors
    /// An input of another puzzle, an unreadable set or instance.
    fn instances(self, input: &Input, goal: Option<&Goal>) -> Result<(Self, Loaded<Self::State>), SolveError>;

    /// Oracle beam search's depth limit without `--max-depth`, for a run
    /// trained as `config` says.
    fn default_max_depth(&self, config: &TrainConfig) -> usize;

    /// The second length measure of solutions, after checking the metric
    /// the caller expects (`wanted`) against the model's; `moves` is the
    /// oracle's output count, for the message.
    ///
    /// # Errors
    /// A metric other than the model's, or any metric for a puzzle with one
    /// move set.
    fn other_metric(&self, wanted: Option<Metric>, moves: usize) -> Result<Option<OtherMetric<'_>>, SolveError>;

    /// The transforms of a symmetric ensemble of `k` members (`None` for
    /// `k = 1`: the network as it is).
    ///
    /// # Errors
    /// `k > 1` for a puzzle without the ensemble, or a `k` it has no set of.
    fn ensemble(&self, k: usize) -> Result<Option<Vec<Transform>>, SolveError>;

    /// The classical search of `cases` with the options' method and
    /// heuristic; the rows (every solution replayed) and the heuristic's
    /// name. `named` is called with that name once the heuristic is built,
    /// before the search starts (the caller claims its output folder there).
    ///
    /// # Errors
    /// An unknown or unsuitable heuristic, a refused limit, a wrong
    /// solution, or what `named` returns.
    fn classical(
        &self,
        opts: &ClassicalOptions,
        cases: &[Case<Self::State>],
        cache: Option<&Path>,
        bar: &ProgressBar,
        named: &mut Named,
    ) -> Result<(Vec<Row>, String), SolveError>;

    /// The depth bound of a distance table: `given`, checked against what
    /// fits in memory, or the default (the whole space where it fits).
    ///
    /// # Errors
    /// No bound for a space too large, or a bound too deep.
    fn table_depth(&self, given: Option<u32>) -> Result<u32, SolveError>;
}

/// Generic `solve` code, called with the concrete puzzle.
pub trait FrontVisitor {
    /// What the visit returns.
    type Out;
    /// Runs with the concrete puzzle.
    fn visit<P: FrontEnd>(self, puzzle: P) -> Self::Out;
}

/// Calls `v` with the concrete model of `puzzle`.
pub fn visit<V: FrontVisitor>(puzzle: AnyPuzzle, v: V) -> V::Out {
    match puzzle {
        AnyPuzzle::Cube3(p) => v.visit(p),
        AnyPuzzle::Cube2(p) => v.visit(p),
        AnyPuzzle::Sliding(p) => v.visit(p),
    }
}

/// The cubes' depth limit with an oracle: 40 moves, beyond God's number
/// (26 QTM and 20 HTM on the 3×3×3, 14 and 11 on the 2×2×2), the limit
/// every shipped cube table was made with.
const CUBE_MAX_DEPTH: usize = 40;

/// Largest distance-table bound on the 3×3×3 in each metric (memory).
const MAX_CUBE_DEPTH_QTM: u32 = 7;
/// See [`MAX_CUBE_DEPTH_QTM`].
const MAX_CUBE_DEPTH_HTM: u32 = 6;
/// Largest distance-table bound on a board of width `n` ≥ 4 (memory): the
/// states within depth d grow about 2.1× a level on the 15-puzzle, 2.3× on
/// the 24-puzzle and 2.6× on the 63-puzzle (about 140 bytes each), so these
/// bounds keep a table near 6 GB or less (the 15-puzzle to 24: about 5.5
/// GB; the 24-puzzle to 21, the 63-puzzle to 18: about 5 GB).
fn max_table_depth(n: usize) -> u32 {
    match n {
        ..=4 => 24,
        5 => 21,
        _ => 18,
    }
}

/// A puzzle's `loaded` instances, after refusing a set whose optimal
/// length contradicts its state ([`input::check_optimal`]).
fn checked<P: Puzzle>(
    puzzle: P,
    loaded: Result<Loaded<P::State>, SolveError>,
) -> Result<(P, Loaded<P::State>), SolveError> {
    let loaded = loaded?;
    input::check_optimal(&puzzle, &loaded.0)?;
    Ok((puzzle, loaded))
}

fn no_ensemble(k: usize, name: &str) -> Result<Option<Vec<Transform>>, SolveError> {
    if k == 1 {
        Ok(None)
    } else {
        Err(invalid!(format!("--symmetry {k}"), "the cube's symmetries apply to cube3 runs; this run solves {name}"))
    }
}

impl FrontEnd for Cube3Puzzle {
    fn instances(self, input: &Input, _: Option<&Goal>) -> Result<(Self, Loaded<Self::State>), SolveError> {
        let loaded = input::cubes(input, &self);
        checked(self, loaded)
    }

    fn default_max_depth(&self, _: &TrainConfig) -> usize {
        CUBE_MAX_DEPTH
    }

    fn other_metric(&self, wanted: Option<Metric>, moves: usize) -> Result<Option<OtherMetric<'_>>, SolveError> {
        cube_lengths(wanted, self.metric, moves, move |m| self.turn(m)).map(Some)
    }

    fn ensemble(&self, k: usize) -> Result<Option<Vec<Transform>>, SolveError> {
        if k == 1 { Ok(None) } else { cube_symmetries(k, self.metric).map(Some) }
    }

    fn classical(
        &self,
        opts: &ClassicalOptions,
        cases: &[Case<Self::State>],
        cache: Option<&Path>,
        bar: &ProgressBar,
        named: &mut Named,
    ) -> Result<(Vec<Row>, String), SolveError> {
        classical::run_cube(opts, &opts.heuristic_spec("pdb"), cache, cases, bar, named)
    }

    fn table_depth(&self, given: Option<u32>) -> Result<u32, SolveError> {
        let metric = self.metric;
        let cap = if metric == Metric::Qtm { MAX_CUBE_DEPTH_QTM } else { MAX_CUBE_DEPTH_HTM };
        match given {
            None => Err(invalid!(
                "a distance table of the cube without a depth bound",
                "give a depth bound (at most {cap} in {metric})"
            )),
            Some(d) if d > cap => {
                Err(invalid!(format!("--max-depth {d}"), "at most {cap} for the cube in {metric} (memory)"))
            }
            Some(d) => Ok(d),
        }
    }
}

impl FrontEnd for Cube2Puzzle {
    fn instances(self, input: &Input, _: Option<&Goal>) -> Result<(Self, Loaded<Self::State>), SolveError> {
        let loaded = input::cube2s(input, &self);
        checked(self, loaded)
    }

    fn other_metric(&self, wanted: Option<Metric>, moves: usize) -> Result<Option<OtherMetric<'_>>, SolveError> {
        cube_lengths(wanted, self.metric, moves, move |m| self.turn(m)).map(Some)
    }

    fn default_max_depth(&self, _: &TrainConfig) -> usize {
        CUBE_MAX_DEPTH
    }

    fn ensemble(&self, k: usize) -> Result<Option<Vec<Transform>>, SolveError> {
        no_ensemble(k, &self.name())
    }

    fn classical(
        &self,
        opts: &ClassicalOptions,
        cases: &[Case<Self::State>],
        _: Option<&Path>,
        bar: &ProgressBar,
        named: &mut Named,
    ) -> Result<(Vec<Row>, String), SolveError> {
        classical::run_cube2(opts, self, &opts.heuristic_spec("bfs-table"), cases, bar, named)
    }

    fn table_depth(&self, given: Option<u32>) -> Result<u32, SolveError> {
        Ok(given.unwrap_or(u32::MAX))
    }
}

impl FrontEnd for Sliding {
    fn instances(self, input: &Input, goal: Option<&Goal>) -> Result<(Self, Loaded<Self::State>), SolveError> {
        let (puzzle, loaded) = input::boards(input, self.n(), goal)?;
        checked(puzzle, Ok(loaded))
    }

    /// Twice the run's longest training walk (EfficientCube's rule: 160 for
    /// the 15-puzzle trained on walks of 80).
    fn default_max_depth(&self, config: &TrainConfig) -> usize {
        2 * config.data.scramble_len.max()
    }

    fn other_metric(&self, wanted: Option<Metric>, _: usize) -> Result<Option<OtherMetric<'_>>, SolveError> {
        match wanted {
            Some(m) => Err(invalid!(
                format!("--metric {m}"),
                "metrics apply to the cube; this run's model solves {}",
                self.name()
            )),
            None => Ok(None),
        }
    }

    fn ensemble(&self, k: usize) -> Result<Option<Vec<Transform>>, SolveError> {
        no_ensemble(k, &self.name())
    }

    fn classical(
        &self,
        opts: &ClassicalOptions,
        cases: &[Case<Self::State>],
        cache: Option<&Path>,
        bar: &ProgressBar,
        named: &mut Named,
    ) -> Result<(Vec<Row>, String), SolveError> {
        let spec = opts.heuristic.clone().unwrap_or_else(|| "manhattan".into());
        // Refused before any pattern database is built (minutes for the larger ones).
        if opts.method.uses_heuristic() {
            classical::check_heuristic(opts.method, sliding_heuristic_unbuilt(self, &spec)?.as_ref())?;
        }
        let h = if opts.method.uses_heuristic() { sliding_heuristic(self, &spec, cache)? } else { Box::new(Zero) };
        classical::check_heuristic(opts.method, h.as_ref())?;
        named(&h.name())?;
        let rows = classical::run_with(opts, self, &h, cases, bar)?;
        Ok((rows, h.name()))
    }

    fn table_depth(&self, given: Option<u32>) -> Result<u32, SolveError> {
        let n = self.n();
        match (n, given) {
            (..=3, d) => Ok(d.unwrap_or(u32::from(u8::MAX))),
            (_, None) => Err(invalid!(
                format!("a distance table of puzzle{} without a depth bound", n * n - 1),
                "the whole space does not fit in memory; give a depth bound (--max-depth, at most {})",
                max_table_depth(n)
            )),
            (_, Some(d)) if d > max_table_depth(n) => Err(invalid!(
                format!("--max-depth {d}"),
                "at most {} for puzzle{} (the states within that depth take about 5 GB)",
                max_table_depth(n),
                n * n - 1
            )),
            (_, Some(d)) => Ok(d),
        }
    }
}
