//! Beam search against known facts: with an oracle that ranks a
//! distance-reducing move first it returns optimal paths (cube and
//! 8-puzzle, distances from BFS); dedup keeps beams duplicate-free; depth
//! limits report failure; entropies match hand-computed values.

use cube_oracle::cube3::{Cube3, Cube3Puzzle, Metric};
use cube_oracle::puzzle::{MoveId, Puzzle};
use cube_oracle::scramble::{Scrambler, WalkLength};
use cube_oracle::search::kind::OracleKind;
use cube_oracle::search::{BeamConfig, DistanceTable, Oracle, beam_search};
use cube_oracle::sliding::{Goal, Sliding};

/// An oracle that knows exact distances: it gives the produced-by move `m`
/// probability ∝ 1000 when undoing it (action m⁻¹) gets closer to the goal.
struct DistanceOracle<'a, P: Puzzle> {
    puzzle: P,
    dist: &'a DistanceTable<P>,
    decode: fn(&P, &[f32]) -> P::State,
}

impl<P: Puzzle> Oracle for DistanceOracle<'_, P> {
    fn kind(&self) -> cube_oracle::search::OracleKind {
        cube_oracle::search::OracleKind::Policy
    }
    fn num_moves(&self) -> usize {
        self.puzzle.num_moves()
    }
    fn predict(
        &mut self,
        inputs: &[f32],
        rows: usize,
        out: &mut [f32],
    ) -> Result<(), cube_oracle::search::OracleError> {
        let w = self.puzzle.encoded_len();
        let k = self.puzzle.num_moves();
        for r in 0..rows {
            let s = (self.decode)(&self.puzzle, &inputs[r * w..(r + 1) * w]);
            let here = self.dist.distance(&self.puzzle, &s).unwrap_or(u8::MAX);
            let mut weights = vec![1.0f64; k];
            for (m, wt) in weights.iter_mut().enumerate() {
                let a = self.puzzle.inverse(m as MoveId);
                if self.puzzle.is_applicable(&s, a) {
                    let mut c = s.clone();
                    self.puzzle.apply(&mut c, a);
                    if self.dist.distance(&self.puzzle, &c).is_some_and(|d| d < here) {
                        *wt = 1000.0;
                    }
                }
            }
            let z: f64 = weights.iter().sum();
            for (m, wt) in weights.iter().enumerate() {
                out[r * k + m] = (wt / z).ln() as f32;
            }
        }
        Ok(())
    }
}

/// The same probability for every move.
struct Uniform(usize);

impl Oracle for Uniform {
    fn kind(&self) -> cube_oracle::search::OracleKind {
        cube_oracle::search::OracleKind::Policy
    }
    fn num_moves(&self) -> usize {
        self.0
    }
    fn predict(&mut self, _: &[f32], rows: usize, out: &mut [f32]) -> Result<(), cube_oracle::search::OracleError> {
        out[..rows * self.0].fill(-(self.0 as f32).ln());
        Ok(())
    }
}

/// The same output for every row and move, of any kind, but output
/// `nan_at` of every batch, which is NaN.
struct Constant {
    kind: OracleKind,
    nan_at: Option<usize>,
}

impl Oracle for Constant {
    fn num_moves(&self) -> usize {
        12
    }
    fn kind(&self) -> OracleKind {
        self.kind
    }
    fn predict(&mut self, _: &[f32], rows: usize, out: &mut [f32]) -> Result<(), cube_oracle::search::OracleError> {
        let n = rows * self.kind.outputs(12);
        out[..n].fill(if self.kind == OracleKind::Policy { -(12f32).ln() } else { 5.0 });
        if let Some(at) = self.nan_at.filter(|&at| at < n) {
            out[at] = f32::NAN;
        }
        Ok(())
    }
}

fn cfg(width: usize, max_depth: usize, dedup: bool) -> BeamConfig {
    BeamConfig { width, max_depth, dedup, prune: true, record_beams: true }
}

fn replay<P: Puzzle>(p: &P, start: &P::State, path: &[MoveId]) -> bool {
    let mut s = start.clone();
    for &m in path {
        if !p.is_applicable(&s, m) {
            return false;
        }
        p.apply(&mut s, m);
    }
    p.is_goal(&s)
}

#[test]
fn distance_oracle_gives_optimal_cube_paths() {
    let p = Cube3Puzzle::new(Metric::Qtm);
    let dist = DistanceTable::build(&p, 5);
    let mut oracle = DistanceOracle { puzzle: p, dist: &dist, decode: |_, e| Cube3::decode_one_hot(e).unwrap() };
    let mut s = Scrambler::new(p, WalkLength::Fixed(5), true, 3, 0).unwrap();
    let mut lengths = [0usize; 6];
    for _ in 0..60 {
        let start = s.walk().last().unwrap().state;
        let optimal = dist.distance(&p, &start).unwrap() as usize;
        let out = beam_search(&p, &mut oracle, &start, &cfg(1, 10, true)).unwrap();
        let path = out.solution.expect("solved");
        assert_eq!(path.len(), optimal, "greedy search on exact distances is optimal");
        assert!(replay(&p, &start, &path));
        lengths[optimal] += 1;
    }
    assert!(lengths[5] > 0 && lengths[3] > 0, "{lengths:?}");
}

#[test]
fn distance_oracle_gives_optimal_8_puzzle_paths() {
    let p = Sliding::new(3, Goal::BlankLast).unwrap();
    let dist = DistanceTable::build(&p, 31);
    assert_eq!(dist.len(), 181_440);
    let mut oracle = DistanceOracle { puzzle: p.clone(), dist: &dist, decode: |p, e| p.decode(e).unwrap() };
    let mut rng = <rand::rngs::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(5);
    for _ in 0..30 {
        let start = p.random_solvable(&mut rng);
        let out = beam_search(&p, &mut oracle, &start, &cfg(4, 40, true)).unwrap();
        let path = out.solution.unwrap();
        assert_eq!(path.len(), dist.distance(&p, &start).unwrap() as usize);
        assert!(replay(&p, &start, &path));
    }
}

#[test]
fn dedup_keeps_beams_distinct_and_no_dedup_keeps_duplicates() {
    let p = Cube3Puzzle::new(Metric::Qtm);
    let start = Cube3::from_turns(&cube_oracle::cube3::notation::parse("R U F' L2 D B'").unwrap());
    let with = beam_search(&p, &mut Uniform(12), &start, &cfg(2000, 4, true)).unwrap();
    for beam in &with.beams {
        let set: std::collections::HashSet<_> = beam.iter().collect();
        assert_eq!(set.len(), beam.len(), "duplicate state in a deduplicated beam");
    }
    let without = beam_search(&p, &mut Uniform(12), &start, &cfg(2000, 4, false)).unwrap();
    let dups = without.beams.iter().any(|b| b.iter().collect::<std::collections::HashSet<_>>().len() < b.len());
    assert!(dups, "commuting moves (U D = D U) must give duplicates without dedup");
}

#[test]
fn depth_limit_reports_unsolved_with_diagnostics() {
    let p = Cube3Puzzle::new(Metric::Qtm);
    let start = Cube3::from_turns(&cube_oracle::cube3::notation::parse("R U F' L D B R' U'").unwrap());
    let out = beam_search(&p, &mut Uniform(12), &start, &cfg(1, 3, true)).unwrap();
    assert!(out.solution.is_none());
    assert_eq!(out.depths.len(), 3);
    assert_eq!(out.beam_nodes, 3);
    assert_eq!(out.expanded, 3);
}

#[test]
fn uniform_beam_entropy_is_log_of_its_size() {
    let p = Cube3Puzzle::new(Metric::Qtm);
    let start = Cube3::from_turns(&cube_oracle::cube3::notation::parse("R U F' L D B R' U' F2").unwrap());
    let out = beam_search(&p, &mut Uniform(12), &start, &cfg(4096, 3, true)).unwrap();
    // Depth 1: 12 equally likely children: entropy ln 12.
    assert!((out.depths[0].entropy - 12f64.ln()).abs() < 1e-9);
    assert!(out.depths[0].kl_previous.is_nan());
    for d in &out.depths {
        assert!((d.entropy - (d.beam_size as f64).ln()).abs() < 1e-9, "{d:?}");
        assert!((d.mean_policy_entropy - 12f64.ln()).abs() < 1e-6);
    }
    // Depth 2: 12·11 children (X X' pruned), of which 18 are duplicates
    // (U D = D U for 4 sign pairs on 3 axes, and X X = X' X' on 6 faces):
    // the 114 distinct states at QTM distance 2.
    assert_eq!(out.depths[1].beam_size, 12 * 11 - 18);
    // Without dedup every parent keeps its 11 equally likely children, so
    // the depth-2 beam projected on its parents equals the depth-1 beam.
    let raw = beam_search(&p, &mut Uniform(12), &start, &cfg(4096, 2, false)).unwrap();
    assert_eq!(raw.depths[1].beam_size, 132);
    assert!(raw.depths[1].kl_previous.abs() < 1e-12);
    // With dedup a duplicate goes to the parent ranked first, which skews
    // the projection: KL > 0.
    assert!(out.depths[1].kl_previous > 1e-3);
    assert!(out.start_kl_uniform.abs() < 1e-6);
}

#[test]
fn bad_widths_and_mismatched_oracles_are_refused() {
    let p = Cube3Puzzle::new(Metric::Qtm);
    let e =
        beam_search(&p, &mut Uniform(12), &Cube3::from_turns(&[cube_oracle::cube3::Turn::new(0, 1)]), &cfg(0, 3, true));
    assert!(e.unwrap_err().to_string().contains("out of range"));
    let e = beam_search(&p, &mut Uniform(18), &Cube3::SOLVED, &cfg(4, 3, true));
    assert!(e.unwrap_err().to_string().contains("predicts 18 moves"));
}

#[test]
fn every_kind_counts_every_child_as_generated_at_every_width() {
    let p = Cube3Puzzle::new(Metric::Qtm);
    let start = Cube3::from_turns(&cube_oracle::cube3::notation::parse("R U F' L D B R' U'").unwrap());
    // QTM: 12 children at depth 1, then 11 per state (X X' pruned), whether
    // or not some are duplicates and however few the width keeps; the
    // depths add up to the total.
    for kind in [OracleKind::Policy, OracleKind::QDistance, OracleKind::Value] {
        for (width, dedup) in [(4, false), (4, true), (4096, false), (4096, true)] {
            let out = beam_search(&p, &mut Constant { kind, nan_at: None }, &start, &cfg(width, 3, dedup)).unwrap();
            let at = |d: usize| out.depths[d].generated;
            assert_eq!((at(0), at(1)), (12, 11 * width.min(12)), "{kind:?}, width {width}, dedup {dedup}");
            let total: usize = out.depths.iter().map(|d| d.generated).sum();
            assert_eq!(total as u64, out.generated, "{kind:?}, width {width}, dedup {dedup}");
        }
    }
}

#[test]
fn a_nan_from_the_oracle_stops_the_search_with_an_error() {
    let p = Cube3Puzzle::new(Metric::Qtm);
    let start = Cube3::from_turns(&cube_oracle::cube3::notation::parse("R U F' L D B R' U'").unwrap());
    for kind in [OracleKind::Policy, OracleKind::QDistance, OracleKind::Value] {
        let e = beam_search(&p, &mut Constant { kind, nan_at: Some(5) }, &start, &cfg(64, 8, true)).unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains("returned NaN") && text.contains("depth 1") && text.contains("output 5"),
            "{kind:?}: {text}"
        );
    }
}
