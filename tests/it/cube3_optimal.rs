//! Korf's optimal solver: coordinates and move tables against the sticker
//! model, the pattern-database BFS against a plain queue BFS, and the full
//! databases of both metrics (built in about 10 s a metric on two cores, or
//! loaded from the tests' cache, `common::pdb_cache`, never the user's): Korf's published
//! corner mean, the corner distributions' deepest levels against the OEIS
//! 2×2×2 counts, admissibility on every state near solved, and optimal
//! solutions for random scrambles whose distance a BFS knows. The tests
//! that need the full tables are named `slow_*` (`--skip slow_` leaves them
//! out of a quick local run; CI runs them).

use cube_oracle::cube3::coord::{Coords, MoveTables, N_CO, N_CP, NT, rank_co, rank_cp};
use cube_oracle::cube3::korf_cube::KorfCube;
use cube_oracle::cube3::{Cube3, Cube3Puzzle, Cubies, Metric};
use cube_oracle::heuristics::Heuristic;
use cube_oracle::heuristics::korf::{KorfPdbs, Pattern, bfs_nibbles};
use cube_oracle::heuristics::store::NibbleTable;
use cube_oracle::puzzle::{MoveId, Puzzle, Recent};
use cube_oracle::search::korf::{KorfError, KorfSolver};
use cube_oracle::search::{Limits, Status, ida_star};
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use std::collections::{HashMap, VecDeque};
use std::sync::OnceLock;

const METRICS: [Metric; 2] = [Metric::Qtm, Metric::Htm];

/// A random walk of `len` non-redundant moves from solved.
fn scramble(metric: Metric, len: usize, rng: &mut ChaCha8Rng) -> Vec<MoveId> {
    let p = Cube3Puzzle::new(metric);
    let mut recent = Recent::default();
    let mut out = Vec::new();
    while out.len() < len {
        let m = rng.random_range(0..p.num_moves() as MoveId);
        if !p.is_redundant(recent, m) {
            out.push(m);
            recent = recent.push(m);
        }
    }
    out
}

#[test]
fn coordinate_cube_matches_the_sticker_cube_move_for_move() {
    let mut rng = ChaCha8Rng::seed_from_u64(2026);
    for metric in METRICS {
        let (k, c) = (KorfCube::new(metric), Cube3Puzzle::new(metric));
        assert_eq!(k.num_moves(), c.num_moves());
        for m in 0..k.num_moves() as MoveId {
            assert_eq!(k.move_name(m), c.move_name(m));
            assert_eq!(k.inverse(m), c.inverse(m));
            for a in 0..k.num_moves() as MoveId {
                for b in 0..k.num_moves() as MoveId {
                    let r = Recent { last: Some(a), before_last: Some(b) };
                    assert_eq!(k.is_redundant(r, m), c.is_redundant(r, m));
                }
            }
        }
        assert!(k.is_goal(&k.goal()));
        for _ in 0..100 {
            let (mut ks, mut cs) = (k.goal(), c.goal());
            for m in scramble(metric, 40, &mut rng) {
                k.apply(&mut ks, m);
                c.apply(&mut cs, m);
                assert_eq!(ks, k.from_cube3(&cs));
                assert_eq!(k.to_cube3(&ks), cs);
                assert_eq!(k.is_goal(&ks), c.is_goal(&cs));
            }
            let mut enc = vec![0f32; k.encoded_len()];
            let mut want = vec![0f32; c.encoded_len()];
            k.encode(&ks, &mut enc);
            c.encode(&cs, &mut want);
            assert_eq!(enc, want);
            let copy = ks;
            k.apply(&mut ks, 3);
            k.undo(&mut ks, 3);
            assert_eq!(ks, copy);
        }
    }
}

#[test]
fn coordinates_round_trip_and_keys_are_exact() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut keys = HashMap::new();
    for _ in 0..2000 {
        let c = Cubies::random(&mut rng);
        let s = Coords::from_cubies(&c);
        assert_eq!(s.to_cubies(), c);
        assert_eq!(Coords::from_cube3(&Cube3::from_cubies(&c)), s);
        assert!((s.cp as usize) < N_CP && (s.co as usize) < N_CO);
        assert!(Pattern::EdgesA.index(&s) < Pattern::EdgesA.len() && Pattern::EdgesB.index(&s) < Pattern::EdgesB.len());
        assert!(Pattern::Corners.index(&s) < Pattern::Corners.len());
        if let Some(old) = keys.insert(s.key(), s) {
            assert_eq!(old, s, "two states share a key");
        }
    }
    assert_eq!(Pattern::Corners.index(&Coords::solved()), 0);
    assert_eq!(Pattern::EdgesA.index(&Coords::solved()), 0);
}

#[test]
fn cache_names_and_fingerprints_separate_metrics_and_patterns() {
    let mut seen = HashMap::new();
    for metric in METRICS {
        for p in Pattern::ALL {
            assert!(seen.insert(p.fingerprint(metric), p.cache_name(metric)).is_none());
        }
    }
    assert_eq!(Pattern::Corners.len(), 88_179_840);
    assert_eq!(Pattern::EdgesA.len(), 42_577_920);
}

/// Plain queue BFS over one coordinate, for comparison.
fn queue_bfs(n: usize, goal: usize, step: impl Fn(usize, usize) -> usize, turns: &[usize]) -> Vec<u8> {
    let mut d = vec![u8::MAX; n];
    d[goal] = 0;
    let mut q = VecDeque::from([goal]);
    while let Some(i) = q.pop_front() {
        for &t in turns {
            let j = step(i, t);
            if d[j] == u8::MAX {
                d[j] = d[i] + 1;
                q.push_back(j);
            }
        }
    }
    d
}

#[test]
fn packed_level_bfs_equals_a_queue_bfs_on_corner_coordinates() {
    let mt = MoveTables::get();
    for metric in METRICS {
        let turns: Vec<usize> = metric.turns().iter().map(|t| t.id() as usize).collect();
        let cases: [(usize, &[u16]); 2] = [(N_CP, &mt.cp), (N_CO, &mt.co)];
        for (n, table) in cases {
            let step = |i: usize, t: usize| table[i * NT + t] as usize;
            let want = queue_bfs(n, 0, step, &turns);
            let (got, counts) = bfs_nibbles(n, 0, "test", |i, out: &mut [usize; NT]| {
                for (o, &t) in out.iter_mut().zip(&turns) {
                    *o = step(i, t);
                }
                turns.len()
            });
            assert_eq!(counts.iter().sum::<u64>(), n as u64);
            for (i, &w) in want.iter().enumerate() {
                assert_eq!(got.get(i), w.min(14), "{metric} n={n} entry {i}");
            }
            assert_eq!(counts.len(), *want.iter().max().unwrap() as usize + 1);
        }
    }
    // Known facts: the corner permutation alone needs at most 8 half turns
    // (and the solved corner orientation is the only 0).
    let turns: Vec<usize> = (0..18).collect();
    let d = queue_bfs(N_CP, 0, |i, t| mt.cp[i * NT + t] as usize, &turns);
    assert_eq!(d.iter().filter(|&&x| x == 0).count(), 1);
    assert_eq!(rank_cp(&[0, 1, 2, 3, 4, 5, 6, 7]), 0);
    assert_eq!(rank_co(&[0; 8]), 0);
}

#[test]
fn odd_sized_tables_and_saturation_keep_the_empty_mark_out() {
    // A path graph 0 - 1 - … - 20 (symmetric neighbours): depths above 14
    // are stored as 14, and no entry is left at the EMPTY mark.
    let n = 21;
    let (t, counts) = bfs_nibbles(n, 0, "path", |i, out: &mut [usize; NT]| {
        let mut k = 0;
        if i > 0 {
            out[k] = i - 1;
            k += 1;
        }
        if i + 1 < n {
            out[k] = i + 1;
            k += 1;
        }
        k
    });
    for i in 0..n {
        assert_eq!(t.get(i), (i as u8).min(14));
        assert_ne!(t.get(i), NibbleTable::EMPTY);
    }
    assert_eq!(counts.iter().sum::<u64>(), n as u64);
    assert_eq!(counts[14], 7);
}

/// A small admissible heuristic (corner permutation, corner orientation),
/// so the generic IDA* can run on `KorfCube` without the full tables.
struct SmallPdbs {
    cp: NibbleTable,
    co: NibbleTable,
}

impl SmallPdbs {
    fn new(metric: Metric) -> Self {
        let mt = MoveTables::get();
        let turns: Vec<usize> = metric.turns().iter().map(|t| t.id() as usize).collect();
        let build = |n: usize, table: &[u16]| {
            bfs_nibbles(n, 0, "small", |i, out: &mut [usize; NT]| {
                for (o, &t) in out.iter_mut().zip(&turns) {
                    *o = table[i * NT + t] as usize;
                }
                turns.len()
            })
            .0
        };
        Self { cp: build(N_CP, &mt.cp), co: build(N_CO, &mt.co) }
    }
}

impl Heuristic<KorfCube> for SmallPdbs {
    fn estimate(&self, _: &KorfCube, s: &Coords) -> u32 {
        u32::from(self.cp.get(s.cp as usize).max(self.co.get(s.co as usize)))
    }
    fn name(&self) -> String {
        "small".into()
    }
    fn admissible(&self) -> bool {
        true
    }
}

/// Exact distances of every state within `depth` of solved.
fn ball(p: &KorfCube, depth: u32) -> HashMap<u128, (Coords, u32)> {
    let mut seen = HashMap::new();
    seen.insert(p.goal().key(), (p.goal(), 0));
    let mut frontier = vec![p.goal()];
    for d in 1..=depth {
        let mut next = Vec::new();
        for s in &frontier {
            for m in 0..p.num_moves() as MoveId {
                let mut c = *s;
                p.apply(&mut c, m);
                if let std::collections::hash_map::Entry::Vacant(e) = seen.entry(c.key()) {
                    e.insert((c, d));
                    next.push(c);
                }
            }
        }
        frontier = next;
    }
    seen
}

#[test]
fn generic_ida_star_on_coordinates_finds_optimal_short_solutions() {
    let mut rng = ChaCha8Rng::seed_from_u64(99);
    for (metric, depth) in [(Metric::Qtm, 5), (Metric::Htm, 4)] {
        let p = KorfCube::new(metric);
        let h = SmallPdbs::new(metric);
        let known = ball(&p, depth);
        for _ in 0..20 {
            let len = rng.random_range(0..=depth as usize);
            let moves = scramble(metric, len, &mut rng);
            let mut cube = Cube3::SOLVED;
            for &m in &moves {
                cube.apply_turn(metric.turn(m));
            }
            let start = p.from_cube3(&cube);
            let want = known[&start.key()].1;
            let out = ida_star(&p, &h, &start, Limits::default(), 26);
            assert_eq!(out.status, Status::Solved);
            assert_eq!(out.path.len() as u32, want, "{metric} scramble {moves:?}");
            cube.apply_turns(&p.turns(&out.path));
            assert!(cube.is_solved());
        }
    }
}

#[test]
fn mismatched_metrics_are_an_error_not_a_panic() {
    // The message names both metrics (`KorfSolver::new` returning it is
    // checked with the full tables below).
    let err = KorfError::MetricMismatch { tables: Metric::Htm, puzzle: Metric::Qtm };
    assert!(err.to_string().contains("htm") && err.to_string().contains("qtm"));
}

// ---- Full pattern databases (slow: minutes and about 1 GiB the first time) ----

fn solver(metric: Metric) -> &'static KorfSolver {
    static QTM: OnceLock<KorfSolver> = OnceLock::new();
    static HTM: OnceLock<KorfSolver> = OnceLock::new();
    let cell = if metric == Metric::Qtm { &QTM } else { &HTM };
    cell.get_or_init(|| {
        KorfSolver::load_or_build(metric, Some(crate::common::pdb_cache().as_path())).expect("pattern databases")
    })
}

#[test]
fn slow_corner_database_matches_korf_1997() {
    let htm = &solver(Metric::Htm).pdbs;
    let corners = &htm.info[0];
    assert_eq!(corners.pattern, Pattern::Corners);
    assert_eq!(corners.histogram.iter().sum::<u64>(), 88_179_840);
    assert_eq!(corners.histogram[15], 0);
    assert_eq!(corners.histogram[0], 1);
    assert_eq!(corners.histogram[1], 18);
    assert_eq!(corners.max(), 11, "{:?}", corners.histogram);
    assert!((corners.mean() - 8.764).abs() < 0.0005, "corner mean {}", corners.mean());
    for info in &htm.info[1..] {
        assert_eq!(info.histogram.iter().sum::<u64>(), 42_577_920);
        assert_eq!(info.histogram[0], 1);
        assert_eq!(info.histogram[15], 0);
    }
    let qtm = &solver(Metric::Qtm).pdbs;
    assert_eq!(qtm.info[0].histogram[1], 12);
    // The corners of the 3×3×3 are the 2×2×2 (one corner fixed) in 24
    // orientations in space. In QTM the deepest levels (10 to 14) hold
    // exactly 24 times the OEIS 2×2×2 counts (A079762), which pins the
    // antipodes independently of this BFS. (In HTM they do not: a half turn
    // of one face is not a half turn of the opposite one plus a rotation
    // at the same cost in every position.) Near solved, corner distances
    // equal whole-cube distances: 1, 12, 114 (QTM) and 1, 18, 243 (HTM).
    let path = format!("{}/data/cube3-distance-counts.tsv", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let c2q: Vec<u64> = text
        .lines()
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .filter(|f| f.len() == 4 && f[0] == "cube2" && f[1] == "qtm")
        .map(|f| f[3].parse().unwrap())
        .collect();
    assert_eq!(c2q.len(), 15);
    assert_eq!(qtm.info[0].max(), 14);
    for (d, (&ours, &cube2)) in qtm.info[0].histogram.iter().zip(&c2q).enumerate().skip(10) {
        assert_eq!(ours, 24 * cube2, "QTM corners at depth {d}");
    }
    assert_eq!(qtm.info[0].histogram[..3], [1, 12, 114]);
    assert_eq!(corners.histogram[..3], [1, 18, 243]);
    // In QTM every corner distance has the corner permutation's parity.
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let t = qtm.table(Pattern::Corners);
    for _ in 0..10_000 {
        let s = Coords::from_cubies(&Cubies::random(&mut rng));
        let cp = s.to_cubies().cp;
        let inversions: u32 = (0..8).map(|i| (i + 1..8).filter(|&j| cp[j] < cp[i]).count() as u32).sum();
        assert_eq!(u32::from(t.get(Pattern::Corners.index(&s))) % 2, inversions % 2);
    }
}

#[test]
fn slow_heuristic_is_admissible_near_solved() {
    for (metric, depth) in [(Metric::Qtm, 6), (Metric::Htm, 5)] {
        let s = solver(metric);
        let known = ball(&s.puzzle, depth);
        let mut exact = 0;
        for (state, d) in known.values() {
            let h = s.pdbs.estimate(&s.puzzle, state);
            assert!(h <= *d, "{metric}: h = {h} > distance {d}");
            exact += usize::from(h == *d);
        }
        assert!(exact * 2 > known.len(), "{metric}: the heuristic is exact on most near states");
    }
}

#[test]
fn slow_ida_star_solutions_are_optimal_and_replay() {
    let mut rng = ChaCha8Rng::seed_from_u64(31);
    for (metric, depth) in [(Metric::Qtm, 6), (Metric::Htm, 5)] {
        let s = solver(metric);
        let known = ball(&s.puzzle, depth);
        for len in 0..=depth as usize + 1 {
            for _ in 0..6 {
                let moves = scramble(metric, len, &mut rng);
                let mut cube = Cube3::SOLVED;
                for &m in &moves {
                    cube.apply_turn(metric.turn(m));
                }
                let start = s.puzzle.from_cube3(&cube);
                // Beyond the ball, a scramble of depth + 1 moves is exactly that far.
                let want = known.get(&start.key()).map_or(depth + 1, |x| x.1);
                for out in [s.solve(&cube, Limits::default()), s.solve_generic(&cube, Limits::default())] {
                    assert_eq!(out.status, Status::Solved);
                    assert_eq!(out.path.len() as u32, want, "{metric} {moves:?}");
                    let mut c = cube;
                    c.apply_turns(&s.puzzle.turns(&out.path));
                    assert!(c.is_solved());
                }
            }
        }
    }
    // Node limits are honoured and reported.
    let s = solver(Metric::Qtm);
    let cube = Cube3::from_cubies(&Cubies::random(&mut rng));
    let out = s.solve(&cube, Limits { max_generated: 100_000, ..Limits::default() });
    assert_eq!(out.status, Status::LimitReached);
    assert!(KorfSolver::new(KorfCube::new(Metric::Htm), s.pdbs.clone()).is_err());
    let _: &KorfPdbs = &s.pdbs;
}

#[test]
fn canonical_pruning_of_the_parallel_search_still_reaches_every_state() {
    // Every state within d moves is reached by a canonical sequence of at
    // most d moves, so the stronger pruning keeps optimality.
    use cube_oracle::search::korf::canonical_masks;
    for (metric, depth) in [(Metric::Qtm, 5), (Metric::Htm, 4)] {
        let p = KorfCube::new(metric);
        let masks = canonical_masks(metric);
        let n = p.num_moves();
        let mut reached = HashMap::new();
        let mut sequences = 0u64;
        let mut stack = vec![(p.goal(), n * (n + 1) + n, 0u32)];
        while let Some((s, hist, d)) = stack.pop() {
            reached.entry(s.key()).or_insert(d);
            sequences += 1;
            if d == depth {
                continue;
            }
            for m in 0..n {
                if masks[hist] & (1 << m) != 0 {
                    let mut c = s;
                    p.apply(&mut c, m as MoveId);
                    stack.push((c, (hist % (n + 1)) * (n + 1) + m, d + 1));
                }
            }
        }
        let known = ball(&p, depth);
        assert_eq!(reached.len(), known.len(), "{metric}");
        assert!(reached.keys().all(|k| known.contains_key(k)));
        // And it prunes more than the generic rules in QTM: 12·11·… would be
        // the count without any pruning.
        if metric == Metric::Qtm {
            assert!(sequences < 150_000, "{sequences} sequences");
        }
    }
}
