//! The exact-truth report: a trained oracle held against exact distances on
//! a puzzle small enough to enumerate (the 2×2×2 cube, 3,674,160
//! positions; the 8-puzzle, 181,440).
//!
//! A breadth-first search from the goal gives every position `s` its true
//! distance `d(s)`. The oracle names the move that produced a state, and
//! beam search undoes it, so an oracle move `m` is *optimal* at `s` when
//! undoing it (applying `m⁻¹`) reaches distance `d(s) − 1`. For every
//! position at distance `d ≥ 1` the report measures the oracle's
//! distribution `p` against the set `O(s)` of optimal moves (`k = |O(s)|`):
//!
//! * `optimal_mass`: `Σ_{m∈O} p(m)`, the probability the oracle gives to
//!   moves that stay on a shortest path;
//! * `top1_optimal_pct`: how often its most probable move is optimal;
//! * `kl_optimal_uniform`: `KL(U_O ‖ p) = −ln k − (1/k) Σ_{m∈O} ln p(m)`,
//!   the divergence of `p` from the uniform distribution over the optimal
//!   moves (0 exactly when `p` is that distribution; finite whenever `p`
//!   gives every optimal move some mass, which a softmax always does).
//!
//! A Q-distance oracle is measured through its Boltzmann policy
//! `p = softmax(−Q)` over the applicable moves (its top-1 move is the
//! `argmin Q` the search prefers); a value oracle has no per-move
//! distribution without evaluating the children, so its four columns are
//! NaN. Both distance kinds add `mean_estimate` and `estimate_rmse`: their
//! estimate of `d(s)` (`V(s)`, or `1 + min Q`) against the truth.
//!
//! Averaged per true distance, these go to `exact.csv` and
//! `plots/exact_by_distance`. Beam search then runs, at the widths asked,
//! on a seeded uniform sample of positions whose optimal lengths are known,
//! through the ordinary sweep, so `instances.csv` and `summary.csv` in the
//! same folder give solved %, optimal % and mean excess by width, every
//! solution replayed; the exact tables join them before the folder is
//! committed, so an interrupted report leaves no partial folder.

use super::error::{SolveError, invalid};
use super::front::{self, FrontEnd, FrontVisitor};
use super::input::Case;
use super::{SolveOptions, sweep};
use crate::csvlog::{Col, write_table};
use crate::learn::inference::NetOracle;
use crate::plot::{Chart, Series, Style};
use crate::puzzle::{MoveId, Puzzle};
use crate::registry::{AnyPuzzle, PuzzleKind};
use crate::search::beam_stats::boltzmann;
use crate::search::kind::MoveDistribution;
use crate::search::{DistanceTable, Oracle, SearchError};
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use std::path::Path;

/// Positions sent to the oracle at once.
const CHUNK: usize = 4096;

/// The oracle against the truth at one true distance.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ByDistance {
    /// The true distance.
    pub distance: usize,
    /// Positions at that distance.
    pub positions: u64,
    /// Mean number of optimal moves.
    pub optimal_moves: f64,
    /// Mean probability mass on optimal moves.
    pub optimal_mass: f64,
    /// Share of positions whose most probable applicable move is optimal, %.
    pub top1_optimal_pct: f64,
    /// Mean `KL(U_O ‖ p)`, nats.
    pub kl_optimal_uniform: f64,
    /// Distance kinds: the mean of the oracle's estimate of `d(s)`
    /// (`V(s)`, or `1 + min_m Q(s, m)` over the applicable moves); NaN for
    /// a policy.
    pub mean_estimate: f64,
    /// Distance kinds: the root mean squared error of that estimate
    /// against `d(s)`; NaN for a policy.
    pub estimate_rmse: f64,
}

/// Runs the report for the run's puzzle; returns the output folder.
///
/// # Errors
/// A puzzle too large to enumerate, an input other than `--random N`, an
/// oracle failure, or an output folder that cannot be written.
pub(super) fn run(opts: &SolveOptions, oracle: NetOracle, trained: &AnyPuzzle) -> Result<super::Solved, SolveError> {
    front::visit(trained.clone(), Report { opts, oracle, kind: trained.kind() })
}

struct Report<'a> {
    opts: &'a SolveOptions,
    oracle: NetOracle,
    kind: PuzzleKind,
}

impl FrontVisitor for Report<'_> {
    type Out = Result<super::Solved, SolveError>;
    fn visit<P: FrontEnd>(self, puzzle: P) -> Self::Out {
        let Report { opts, mut oracle, kind } = self;
        // Enumerable: the puzzle's distance table needs no depth bound.
        if puzzle.table_depth(None).is_err() {
            return Err(invalid!(
                format!("the exact-truth report on {kind}"),
                "it needs a puzzle whose every position fits in memory, such as cube2, puzzle3 or puzzle8"
            ));
        }
        let super::input::Input::Random { n: sample, seed } = opts.input else {
            return Err(invalid!(
                "the exact-truth report with given instances",
                "it draws its own uniform sample of positions; give its size as random N"
            ));
        };
        // The folder is claimed before the pass over every position.
        let label = format!("exact-random-{sample}-seed{seed}");
        let output = super::claim_output(opts, &label, 1)?;
        let (table, layers) = DistanceTable::build_with_layers(&puzzle, u8::MAX);
        let rows = by_distance(&puzzle, &mut oracle, &table, &layers)?;
        let cases = uniform_sample(&layers, sample, seed);
        let more = |dir: &std::path::Path| write(dir, &rows);
        sweep(&puzzle, oracle, (cases, label), opts, None, super::Extras::with(&more, output))
    }
}

/// The oracle's distribution at every position against its optimal moves,
/// averaged per true distance (1 to the diameter).
///
/// # Errors
/// An oracle failure.
pub fn by_distance<P: Puzzle, O: Oracle>(
    puzzle: &P,
    oracle: &mut O,
    table: &DistanceTable<P>,
    layers: &[Vec<P::State>],
) -> Result<Vec<ByDistance>, SolveError> {
    let (moves, width, kind) = (puzzle.num_moves(), puzzle.encoded_len(), oracle.kind());
    let outputs = kind.outputs(moves);
    let inverse: Vec<MoveId> = (0..moves as MoveId).map(|m| puzzle.inverse(m)).collect();
    let mut enc = vec![0.0f32; CHUNK * width];
    let mut lp = vec![0.0f32; CHUNK * outputs];
    let mut out = Vec::new();
    for (d, layer) in layers.iter().enumerate().skip(1) {
        let mut row = ByDistance { distance: d, positions: layer.len() as u64, ..ByDistance::default() };
        let (mut est, mut sq) = (0.0, 0.0);
        for chunk in layer.chunks(CHUNK) {
            let n = chunk.len();
            puzzle.encode_batch(chunk, &mut enc[..n * width]);
            oracle.predict(&enc[..n * width], n, &mut lp[..n * outputs]).map_err(SearchError::from)?;
            for (s, row_out) in chunk.iter().zip(lp.chunks_exact_mut(outputs)) {
                let applicable = |m: usize| puzzle.is_applicable(s, inverse[m]);
                if let Some(e) = kind.estimate_distance(row_out, applicable) {
                    est += e;
                    sq += (e - d as f64).powi(2);
                }
                match kind.move_distribution() {
                    None => continue,
                    Some(MoveDistribution::Boltzmann) => boltzmann(row_out, applicable),
                    Some(MoveDistribution::Itself) => {}
                }
                let lps = &*row_out;
                let is_optimal = |m: usize| {
                    applicable(m) && {
                        let mut c = s.clone();
                        puzzle.apply(&mut c, inverse[m]);
                        table.distance(puzzle, &c).map(usize::from) == Some(d - 1)
                    }
                };
                // Moves are at most 32 (`Scrambler` holds them in a [_; 32]).
                let optimal = (0..moves).filter(|&m| is_optimal(m)).fold(0u32, |bits, m| bits | 1 << m);
                let in_optimal = || (0..moves).filter(move |&m| optimal >> m & 1 == 1);
                let k = f64::from(optimal.count_ones());
                // The move a greedy search would play: never an inapplicable one.
                let best =
                    (0..moves).filter(|&m| applicable(m)).max_by(|&a, &b| lps[a].total_cmp(&lps[b])).unwrap_or(0);
                row.optimal_moves += k;
                row.optimal_mass += in_optimal().map(|m| f64::from(lps[m]).exp()).sum::<f64>();
                row.top1_optimal_pct += f64::from(optimal >> best & 1);
                row.kl_optimal_uniform += -k.ln() - in_optimal().map(|m| f64::from(lps[m])).sum::<f64>() / k;
            }
        }
        let count = row.positions.max(1) as f64;
        let (policy, distance) = (kind.move_distribution().is_some(), kind.is_regression());
        let per = |x: f64, valid: bool| if valid { x / count } else { f64::NAN };
        row.optimal_moves = per(row.optimal_moves, policy);
        row.optimal_mass = per(row.optimal_mass, policy);
        row.top1_optimal_pct = per(100.0 * row.top1_optimal_pct, policy);
        row.kl_optimal_uniform = per(row.kl_optimal_uniform, policy);
        row.mean_estimate = per(est, distance);
        row.estimate_rmse = per(sq, distance).sqrt();
        out.push(row);
    }
    Ok(out)
}

/// `n` positions drawn uniformly without replacement (all of them when `n`
/// is larger), each with its true distance as the optimal length; ids are
/// `d<distance>-<index within its layer>`.
fn uniform_sample<S: Clone>(layers: &[Vec<S>], n: usize, seed: u64) -> Vec<Case<S>> {
    let total: usize = layers.iter().map(Vec::len).sum();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut picks = rand::seq::index::sample(&mut rng, total, n.min(total)).into_vec();
    picks.sort_unstable();
    let mut cases = Vec::with_capacity(picks.len());
    let (mut d, mut before) = (0, 0);
    for i in picks {
        while i >= before + layers[d].len() {
            before += layers[d].len();
            d += 1;
        }
        let j = i - before;
        cases.push(Case { id: format!("d{d}-{j}"), state: layers[d][j].clone(), optimal: Some(d as u32) });
    }
    cases
}

fn write(dir: &Path, rows: &[ByDistance]) -> Result<(), SolveError> {
    let col = |f: fn(&ByDistance) -> f64| Col::F64(rows.iter().map(f).collect());
    write_table(
        &dir.join("exact.csv"),
        vec![
            ("distance", Col::U64(rows.iter().map(|r| r.distance as u64).collect())),
            ("positions", Col::U64(rows.iter().map(|r| r.positions).collect())),
            ("optimal_moves", col(|r| r.optimal_moves)),
            ("optimal_mass", col(|r| r.optimal_mass)),
            ("top1_optimal_pct", col(|r| r.top1_optimal_pct)),
            ("kl_optimal_uniform", col(|r| r.kl_optimal_uniform)),
            ("mean_estimate", col(|r| r.mean_estimate)),
            ("estimate_rmse", col(|r| r.estimate_rmse)),
        ],
    )?;
    let points = |f: fn(&ByDistance) -> f64| rows.iter().map(|r| (r.distance as f64, f(r))).collect();
    if rows.iter().any(|r| r.mean_estimate.is_finite()) {
        Chart::new("The oracle's distance estimate against exact distances", "true distance", "moves")
            .with(Series::new("mean estimate", Style::Line, points(|r| r.mean_estimate)))
            .with(Series::new("RMSE", Style::Line, points(|r| r.estimate_rmse)))
            .with(Series::new("truth", Style::Reference, points(|r| r.distance as f64)))
            .save(&dir.join("plots/exact_estimate_by_distance"))?;
    }
    if rows.iter().all(|r| r.optimal_mass.is_nan()) {
        return Ok(()); // a value oracle: no per-move distribution
    }
    Chart::new("The oracle against exact distances", "true distance", "% of positions / of probability mass")
        .with(Series::new("mass on optimal moves (%)", Style::Line, points(|r| 100.0 * r.optimal_mass)))
        .with(Series::new("top-1 move optimal (%)", Style::Line, points(|r| r.top1_optimal_pct)))
        .save(&dir.join("plots/exact_by_distance"))?;
    Chart::new("Divergence from the uniform over optimal moves", "true distance", "KL(U_O ‖ p), nats")
        .with(Series::new("", Style::Line, points(|r| r.kl_optimal_uniform)))
        .save(&dir.join("plots/exact_kl_by_distance"))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::uniform_sample;

    #[test]
    fn the_sample_is_distinct_seeded_and_labelled_with_its_layer() {
        let layers: Vec<Vec<u32>> = vec![vec![0], vec![10, 11], vec![20, 21, 22, 23]];
        let cases = uniform_sample(&layers, 5, 3);
        assert_eq!(cases.len(), 5);
        let mut states: Vec<u32> = cases.iter().map(|c| c.state).collect();
        states.dedup();
        assert_eq!(states.len(), 5, "drawn without replacement, in layer order");
        for c in &cases {
            let d = (c.state / 10) as usize;
            assert_eq!((c.optimal, c.id.clone()), (Some(d as u32), format!("d{d}-{}", c.state % 10)));
        }
        assert_eq!(uniform_sample(&layers, 5, 3).iter().map(|c| c.state).collect::<Vec<_>>(), states);
        assert_eq!(uniform_sample(&layers, 99, 0).len(), 7, "at most every position");
    }
}
