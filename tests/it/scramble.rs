//! Scramble generator tests: pruning rules checked independently over 10^6
//! moves (for both walk kinds), label balance by a chi-square test,
//! determinism and streams. Walk kinds in depth: `tests/it/walks.rs`.

use cube_oracle::cube3::{Cube3, Cube3Puzzle, Metric, Turn};
use cube_oracle::puzzle::Puzzle;
use cube_oracle::scramble::{ScrambleError, Scrambler, WalkKind, WalkLength};

fn cube(metric: Metric) -> Cube3Puzzle {
    Cube3Puzzle::new(metric)
}

/// Collects the turn sequences of `walks` walks.
fn walks(metric: Metric, prune: bool, len: WalkLength, n: usize, seed: u64, stream: u64) -> Vec<Vec<Turn>> {
    let p = cube(metric);
    let mut s = Scrambler::new(p, len, prune, seed, stream).unwrap();
    (0..n).map(|_| s.walk().map(|st| p.turn(st.last_move)).collect()).collect()
}

/// The forbidden patterns, written out independently of the library.
fn qtm_violation(w: &[Turn]) -> Option<String> {
    for i in 1..w.len() {
        let (a, b) = (w[i - 1], w[i]);
        if a.face() == b.face() && a.quarters() + b.quarters() == 4 {
            return Some(format!("X X' at {i}: {a} {b}"));
        }
        if i >= 2 {
            let z = w[i - 2];
            if z == a && a == b {
                return Some(format!("X X X at {i}"));
            }
            let opposite = |x: Turn, y: Turn| x.face() != y.face() && x.face() % 3 == y.face() % 3;
            if z.face() == b.face() && z.quarters() + b.quarters() == 4 && opposite(z, a) {
                return Some(format!("X Y X' at {i}: {z} {a} {b}"));
            }
        }
    }
    None
}

fn htm_violation(w: &[Turn]) -> Option<String> {
    for i in 1..w.len() {
        let (a, b) = (w[i - 1], w[i]);
        if a.face() == b.face() {
            return Some(format!("same face twice at {i}: {a} {b}"));
        }
        // Opposite faces only in the order U D, R L, F B.
        if a.face() % 3 == b.face() % 3 && a.face() > b.face() {
            return Some(format!("opposite faces out of order at {i}: {a} {b}"));
        }
    }
    None
}

#[test]
fn qtm_walks_never_contain_pruned_patterns_over_a_million_moves() {
    let ws = walks(Metric::Qtm, true, WalkLength::Fixed(26), 40_000, 11, 0);
    let moves: usize = ws.iter().map(Vec::len).sum();
    assert!(moves >= 1_000_000);
    for w in &ws {
        assert!(w.iter().all(|t| t.quarters() != 2), "QTM walks use quarter turns only");
        if let Some(v) = qtm_violation(w) {
            panic!("pruned pattern {v}");
        }
    }
    // Without pruning the same patterns do occur, so the check can fail.
    let raw = walks(Metric::Qtm, false, WalkLength::Fixed(26), 2_000, 11, 0);
    assert!(raw.iter().any(|w| qtm_violation(w).is_some()));
}

#[test]
fn htm_walks_never_contain_pruned_patterns_over_a_million_moves() {
    let ws = walks(Metric::Htm, true, WalkLength::Range { min: 1, max: 30 }, 70_000, 12, 0);
    let moves: usize = ws.iter().map(Vec::len).sum();
    assert!(moves >= 1_000_000);
    for w in &ws {
        if let Some(v) = htm_violation(w) {
            panic!("pruned pattern {v}");
        }
    }
    let raw = walks(Metric::Htm, false, WalkLength::Fixed(20), 2_000, 12, 0);
    assert!(raw.iter().any(|w| htm_violation(w).is_some()));
}

/// Chi-square statistic of `counts` against a uniform distribution.
fn chi_square(counts: &[u64]) -> f64 {
    let n: u64 = counts.iter().sum();
    let e = n as f64 / counts.len() as f64;
    counts.iter().map(|&c| (c as f64 - e).powi(2) / e).sum()
}

/// Critical value of chi-square with 11 degrees of freedom at p = 0.001.
const CHI2_11_P001: f64 = 31.264;

#[test]
fn last_move_labels_are_uniform() {
    // One label per walk (the last step of a walk of random length), so the
    // samples are independent as the test assumes.
    for prune in [true, false] {
        let p = cube(Metric::Qtm);
        let mut s = Scrambler::new(p, WalkLength::Range { min: 1, max: 26 }, prune, 99, 3).unwrap();
        let mut counts = [0u64; 12];
        for _ in 0..120_000 {
            let last = s.walk().last().unwrap();
            counts[last.last_move as usize] += 1;
        }
        let chi2 = chi_square(&counts);
        assert!(chi2 < CHI2_11_P001, "prune={prune}: chi2 = {chi2:.2} for {counts:?}");
    }
    // The test can fail: a label 6% rarer than the others is rejected.
    let biased = [10_000u64, 10_000, 10_000, 10_000, 10_000, 10_000, 10_000, 10_000, 10_000, 10_000, 10_000, 9_400];
    assert!(chi_square(&biased) > CHI2_11_P001);
}

#[test]
fn steps_are_consistent_prefixes() {
    let p = cube(Metric::Qtm);
    let mut s = Scrambler::new(p, WalkLength::Range { min: 3, max: 9 }, true, 5, 0).unwrap();
    let mut lengths = std::collections::BTreeSet::new();
    for _ in 0..2_000 {
        let mut replay = Cube3::SOLVED;
        let steps: Vec<_> = s.walk().collect();
        assert!((3..=9).contains(&steps.len()));
        lengths.insert(steps.len());
        for (i, st) in steps.iter().enumerate() {
            assert_eq!(st.depth, i + 1);
            p.apply(&mut replay, st.last_move);
            assert_eq!(replay, st.state);
        }
    }
    assert_eq!(lengths.into_iter().collect::<Vec<_>>(), (3..=9).collect::<Vec<_>>());
}

#[test]
fn seeds_and_streams_are_reproducible_and_independent() {
    let a = walks(Metric::Qtm, true, WalkLength::Fixed(26), 50, 42, 0);
    let b = walks(Metric::Qtm, true, WalkLength::Fixed(26), 50, 42, 0);
    let c = walks(Metric::Qtm, true, WalkLength::Fixed(26), 50, 42, 1);
    let d = walks(Metric::Qtm, true, WalkLength::Fixed(26), 50, 43, 0);
    assert_eq!(a, b);
    assert_ne!(a, c);
    assert_ne!(a, d);
    assert_ne!(c, d);
}

#[test]
fn bad_lengths_are_refused() {
    let p = cube(Metric::Qtm);
    let e = Scrambler::new(p, WalkLength::Fixed(0), true, 0, 0).unwrap_err();
    assert_eq!(e, ScrambleError::ZeroLength(0));
    assert!(e.to_string().contains("must be >= 1"));
    let e = Scrambler::new(p, WalkLength::Range { min: 10, max: 7 }, true, 0, 0).unwrap_err();
    assert_eq!(e, ScrambleError::EmptyRange { min: 10, max: 7 });
    assert!(e.to_string().contains("10..=7"));
}

#[test]
fn non_backtracking_walks_keep_the_pruning_rules() {
    let p = cube(Metric::Qtm);
    let s = Scrambler::new(p, WalkLength::Fixed(26), true, 13, 0).unwrap();
    assert_eq!(s.walk_kind(), WalkKind::Random, "a new scrambler makes today's walks");
    let mut s = s.with_walk(WalkKind::NonBacktracking);
    for _ in 0..4_000 {
        let w: Vec<Turn> = s.walk().map(|st| p.turn(st.last_move)).collect();
        assert_eq!(w.len(), 26);
        if let Some(v) = qtm_violation(&w) {
            panic!("pruned pattern {v} in a non-backtracking walk");
        }
    }
    let p = cube(Metric::Htm);
    let mut s = Scrambler::new(p, WalkLength::Fixed(20), true, 14, 0).unwrap().with_walk(WalkKind::NonBacktracking);
    for _ in 0..4_000 {
        let w: Vec<Turn> = s.walk().map(|st| p.turn(st.last_move)).collect();
        if let Some(v) = htm_violation(&w) {
            panic!("pruned pattern {v} in a non-backtracking walk");
        }
    }
}
