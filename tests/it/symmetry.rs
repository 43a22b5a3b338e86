//! The cube's 48 symmetries against known facts: the rotations are the
//! 2×2×2 model's 24 (derived there independently), moves map to moves
//! (a mirror reverses turns), conjugation is a group action and a
//! homomorphism on random sequences in both metrics, and it preserves the
//! exact distance of every state within 5 quarter turns (BFS, 105,046
//! states) and 4 half turns (46,741). The one-hot gather equals encoding
//! the conjugate. The symmetric ensemble leaves an exact (symmetric)
//! oracle unchanged and makes an asymmetric one invariant; `solve
//! --symmetry K` runs end to end, records K and the forwards, and refuses
//! what it cannot do.

use cube_oracle::cube2::corners::{self, Corners};
use cube_oracle::cube3::symmetry::{self, ENSEMBLE_SIZES, ROTATIONS, SYMMETRIES, Symmetry};
use cube_oracle::cube3::{Cube3, Cube3Puzzle, Cubies, Metric, ONE_HOT_LEN, Turn, geometry, notation};
use cube_oracle::information::log_sum_exp;
use cube_oracle::puzzle::{MoveId, Puzzle};
use cube_oracle::search::symmetric::{Mean, SymmetricOracle, Transform};
use cube_oracle::search::{Oracle, OracleError};
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use std::collections::HashMap;
use std::path::PathBuf;

fn random_cubes(n: usize, seed: u64) -> Vec<Cube3> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n).map(|_| Cube3::from_cubies(&Cubies::random(&mut rng))).collect()
}

fn random_turns(metric: Metric, n: usize, rng: &mut ChaCha8Rng) -> Vec<Turn> {
    let turns = metric.turns();
    (0..n).map(|_| turns[rng.random_range(0..turns.len())]).collect()
}

fn then(mut s: Cube3, t: Turn) -> Cube3 {
    s.apply_turn(t);
    s
}

#[test]
fn rotations_are_the_2x2x2_models_rotations_on_the_corners() {
    // The 2×2×2 sticker j is the 3×3×3 corner facelet in the same slot and place.
    let mut to_cube3 = [0usize; corners::STICKERS];
    for (slot, stickers) in corners::CORNER_FACELETS.iter().enumerate() {
        for (k, &j) in stickers.iter().enumerate() {
            to_cube3[j as usize] = geometry::CORNER_FACELETS[slot][k] as usize;
        }
    }
    // Each symmetry moves the solved cube's stickers without renaming colours.
    let on_corners = |s: &Symmetry| {
        let solved = Cube3::SOLVED;
        let moved: [u8; corners::STICKERS] =
            std::array::from_fn(|j| solved.stickers()[s.sticker_gather()[to_cube3[j]] as usize]);
        Corners::from_stickers(&moved).ok().filter(|c| c.twist_sum() == 0)
    };
    let mut ours: Vec<Corners> = symmetry::all()[..ROTATIONS].iter().map(|s| on_corners(s).unwrap()).collect();
    let mut theirs: Vec<Corners> = corners::rotations().to_vec();
    let key = |c: &Corners| (c.cp, c.co);
    ours.sort_by_key(key);
    theirs.sort_by_key(key);
    assert_eq!(ours, theirs);
    // A mirror image has its corners' colours in the wrong turning sense.
    assert!(symmetry::all()[ROTATIONS..].iter().all(|s| on_corners(s).is_none()));
}

#[test]
fn moves_map_to_moves_and_conjugation_is_a_homomorphism() {
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    for metric in [Metric::Qtm, Metric::Htm] {
        let p = Cube3Puzzle::new(metric);
        for s in symmetry::all() {
            let map = s.move_map(metric);
            let mut sorted = map.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..p.num_moves() as MoveId).collect::<Vec<_>>(), "a permutation of the moves");
            for m in 0..p.num_moves() as MoveId {
                assert_eq!(map[p.inverse(m) as usize], p.inverse(map[m as usize]), "inverses map to inverses");
                let (t, u) = (p.turn(m), p.turn(map[m as usize]));
                let q = if s.is_mirror() { 4 - t.quarters() } else { t.quarters() };
                assert_eq!(u.quarters(), q, "a mirror reverses the turning sense");
            }
            assert_eq!(s.conjugate(&Cube3::SOLVED), Cube3::SOLVED);
            let seq = random_turns(metric, 30, &mut rng);
            let mapped: Vec<Turn> = seq.iter().map(|&t| s.turn(t)).collect();
            let mut state = Cube3::SOLVED;
            for &t in &seq {
                let next = then(state, t);
                assert_eq!(s.conjugate(&next), then(s.conjugate(&state), s.turn(t)));
                state = next;
            }
            assert_eq!(s.conjugate(&state), Cube3::from_turns(&mapped));
            let inverse_mapped: Vec<Turn> = notation::invert(&seq).iter().map(|&t| s.turn(t)).collect();
            assert_eq!(inverse_mapped, notation::invert(&mapped), "the map of the inverse is the inverse of the map");
        }
    }
    // The left-right mirror: U ↦ U', R ↦ L', F2 ↦ F2.
    let lr = &symmetry::ensemble(2).unwrap()[1];
    let name = |t: &str| lr.turn(notation::parse(t).unwrap()[0]).name();
    assert_eq!((name("U"), name("R"), name("F2"), name("L'")), ("U'", "L'", "F2", "R"));
}

#[test]
fn conjugation_is_a_group_action() {
    let cubes = random_cubes(4, 7);
    let all = symmetry::all();
    assert_eq!(all.len(), SYMMETRIES);
    for s in &cubes {
        let images: Vec<Cube3> = all.iter().map(|a| a.conjugate(s)).collect();
        for a in all {
            assert_eq!(a.inverse().conjugate(&images[a.index()]), *s);
            for b in all {
                assert_eq!(a.then(b).conjugate(s), b.conjugate(&images[a.index()]));
            }
        }
    }
    // A random cube has no symmetry: its 48 conjugates are distinct.
    let mut keys: Vec<u128> = all.iter().map(|a| a.conjugate(&cubes[0]).key()).collect();
    keys.sort_unstable();
    keys.dedup();
    assert_eq!(keys.len(), SYMMETRIES);
}

#[test]
fn encoding_gather_is_encoding_the_conjugate() {
    let mut enc = vec![0.0f32; ONE_HOT_LEN];
    let mut want = vec![0.0f32; ONE_HOT_LEN];
    for s in random_cubes(20, 3) {
        s.encode_one_hot(&mut enc);
        for a in symmetry::all() {
            a.conjugate(&s).encode_one_hot(&mut want);
            let gather = a.encoding_gather();
            let got: Vec<f32> = gather.iter().map(|&i| enc[i as usize]).collect();
            assert_eq!(got, want, "symmetry {}", a.index());
        }
    }
}

/// Every state within `depth` moves, by BFS, with its exact distance.
fn bfs(metric: Metric, depth: u8) -> (HashMap<u128, u8>, Vec<Cube3>) {
    let p = Cube3Puzzle::new(metric);
    let mut dist = HashMap::from([(Cube3::SOLVED.key(), 0u8)]);
    let mut all = vec![Cube3::SOLVED];
    let mut frontier = vec![Cube3::SOLVED];
    for d in 1..=depth {
        let mut next = Vec::new();
        for s in &frontier {
            for m in 0..p.num_moves() as MoveId {
                let mut c = *s;
                p.apply(&mut c, m);
                if let std::collections::hash_map::Entry::Vacant(e) = dist.entry(c.key()) {
                    e.insert(d);
                    next.push(c);
                }
            }
        }
        all.extend_from_slice(&next);
        frontier = next;
    }
    (dist, all)
}

#[test]
fn conjugation_preserves_the_exact_distance() {
    // OEIS A080602 (QTM: 1, 12, 114, 1068, 10011, 93840) and A080601
    // (HTM: 1, 18, 243, 3240, 43239).
    for (metric, depth, count) in [(Metric::Qtm, 5, 105_046), (Metric::Htm, 4, 46_741)] {
        let (dist, states) = bfs(metric, depth);
        assert_eq!(states.len(), count);
        // Keyed by the stickers themselves, so the conjugate's colours are
        // looked up as computed (no validation on the way).
        let by_stickers: HashMap<&[u8], u8> = states.iter().map(|s| (s.stickers(), dist[&s.key()])).collect();
        for s in &states {
            let d = by_stickers[s.stickers()];
            for a in symmetry::all() {
                let c = a.conjugate_stickers(s);
                assert_eq!(by_stickers.get(&c[..]), Some(&d), "{metric:?} symmetry {}", a.index());
            }
        }
        // The validated conjugate is the same cube.
        for s in states.iter().step_by(101) {
            for a in symmetry::all() {
                assert_eq!(a.conjugate(s).stickers(), a.conjugate_stickers(s));
            }
        }
    }
}

/// The state behind a one-hot row.
fn decode(row: &[f32]) -> Cube3 {
    let stickers: Vec<u8> =
        row.chunks_exact(6).map(|c| c.iter().position(|&x| x == 1.0).expect("one-hot") as u8).collect();
    Cube3::from_cubies(&Cubies::from_stickers(&stickers).expect("a valid cube"))
}

/// An exact oracle: the produced-by move `m` gets weight 1000 when undoing
/// it brings the cube closer to solved (BFS distances), 1 otherwise.
struct DistanceOracle<'a> {
    p: Cube3Puzzle,
    dist: &'a HashMap<u128, u8>,
}

impl Oracle for DistanceOracle<'_> {
    fn kind(&self) -> cube_oracle::search::OracleKind {
        cube_oracle::search::OracleKind::Policy
    }
    fn num_moves(&self) -> usize {
        self.p.num_moves()
    }
    fn predict(&mut self, inputs: &[f32], rows: usize, out: &mut [f32]) -> Result<(), OracleError> {
        let n = self.num_moves();
        for (r, row) in inputs.chunks_exact(ONE_HOT_LEN).take(rows).enumerate() {
            let s = decode(row);
            let here = self.dist.get(&s.key()).copied().unwrap_or(u8::MAX);
            let w: Vec<f64> = (0..n as MoveId)
                .map(|m| {
                    let mut c = s;
                    self.p.apply(&mut c, self.p.inverse(m));
                    if self.dist.get(&c.key()).is_some_and(|&d| d < here) { 1000.0 } else { 1.0 }
                })
                .collect();
            let z: f64 = w.iter().sum();
            for (o, x) in out[r * n..(r + 1) * n].iter_mut().zip(&w) {
                *o = (x / z).ln() as f32;
            }
        }
        Ok(())
    }
}

/// A seeded random linear policy over the one-hot input: no symmetry at all.
struct Linear {
    weights: Vec<f32>,
    moves: usize,
}

impl Linear {
    fn new(moves: usize, seed: u64) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        Self { weights: (0..moves * ONE_HOT_LEN).map(|_| rng.random_range(-1.0f32..1.0)).collect(), moves }
    }
}

impl Oracle for Linear {
    fn kind(&self) -> cube_oracle::search::OracleKind {
        cube_oracle::search::OracleKind::Policy
    }
    fn num_moves(&self) -> usize {
        self.moves
    }
    fn predict(&mut self, inputs: &[f32], rows: usize, out: &mut [f32]) -> Result<(), OracleError> {
        for (r, row) in inputs.chunks_exact(ONE_HOT_LEN).take(rows).enumerate() {
            let logits: Vec<f64> = self
                .weights
                .chunks_exact(ONE_HOT_LEN)
                .map(|w| w.iter().zip(row).map(|(a, b)| f64::from(a * b)).sum())
                .collect();
            let z = log_sum_exp(&logits);
            for (o, l) in out[r * self.moves..(r + 1) * self.moves].iter_mut().zip(&logits) {
                *o = (l - z) as f32;
            }
        }
        Ok(())
    }
}

fn transforms(k: usize, metric: Metric) -> Vec<Transform> {
    symmetry::ensemble(k)
        .unwrap()
        .iter()
        .map(|s| Transform { input: s.encoding_gather(), moves: s.move_map(metric) })
        .collect()
}

fn encode_all(states: &[Cube3]) -> Vec<f32> {
    let mut enc = vec![0.0f32; states.len() * ONE_HOT_LEN];
    for (s, row) in states.iter().zip(enc.chunks_exact_mut(ONE_HOT_LEN)) {
        s.encode_one_hot(row);
    }
    enc
}

fn ask(o: &mut impl Oracle, states: &[Cube3]) -> Vec<f32> {
    let mut out = vec![0.0f32; states.len() * o.num_moves()];
    o.predict(&encode_all(states), states.len(), &mut out).unwrap();
    out
}

#[test]
fn ensemble_leaves_an_exact_oracle_unchanged() {
    let metric = Metric::Qtm;
    let (dist, states) = bfs(metric, 4);
    let p = Cube3Puzzle::new(metric);
    let sample: Vec<Cube3> = states.iter().step_by(97).copied().collect();
    let plain = ask(&mut DistanceOracle { p, dist: &dist }, &sample);
    for mean in [Mean::Arithmetic, Mean::Geometric] {
        let inner = DistanceOracle { p, dist: &dist };
        let mut e = SymmetricOracle::new(inner, transforms(48, metric), mean).unwrap();
        let avg = ask(&mut e, &sample);
        let worst = plain.iter().zip(&avg).map(|(a, b)| (a - b).abs()).fold(0.0f32, f32::max);
        assert!(worst < 1e-4, "{mean:?}: differs by {worst}");
    }
}

#[test]
fn ensemble_of_an_asymmetric_oracle_is_invariant_under_its_group() {
    let cubes = random_cubes(3, 11);
    for metric in [Metric::Qtm, Metric::Htm] {
        let n = metric.num_moves();
        // The inner oracle alone is not invariant (so the checks can fail).
        let s = &symmetry::ensemble(2).unwrap()[1];
        let (a, b) = (ask(&mut Linear::new(n, 5), &cubes[..1]), ask(&mut Linear::new(n, 5), &[s.conjugate(&cubes[0])]));
        let map = s.move_map(metric);
        assert!((0..n).any(|m| (a[m] - b[map[m] as usize]).abs() > 0.1));
        for k in ENSEMBLE_SIZES {
            let group = symmetry::ensemble(k).unwrap();
            let mut e = SymmetricOracle::new(Linear::new(n, 5), transforms(k, metric), Mean::Arithmetic).unwrap();
            let base = ask(&mut e, &cubes);
            let total: f64 = base[..n].iter().map(|&l| f64::from(l).exp()).sum();
            assert!((total - 1.0).abs() < 1e-5);
            for t in &group {
                let conj: Vec<Cube3> = cubes.iter().map(|c| t.conjugate(c)).collect();
                let got = ask(&mut e, &conj);
                let map = t.move_map(metric);
                for r in 0..cubes.len() {
                    for m in 0..n {
                        let (x, y) = (base[r * n + m], got[r * n + map[m] as usize]);
                        assert!((x - y).abs() < 1e-4, "K = {k}, symmetry {}: {x} vs {y}", t.index());
                    }
                }
            }
        }
    }
}

fn solve_cli(args: &[&str]) -> (i32, String) {
    let o = crate::common::command(env!("CARGO_BIN_EXE_solve")).args(args).output().unwrap();
    (o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stderr).to_string())
}

#[test]
fn solve_with_symmetry_records_k_and_forwards_and_refuses_what_it_cannot_do() {
    let out: PathBuf = std::env::temp_dir().join(format!("cube-oracle-symmetry-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let o = out.to_string_lossy().to_string();
    // Copies of the shipped runs, beside (not under) the output folder.
    let runs = std::env::temp_dir().join(format!("cube-oracle-symmetry-runs-{}", std::process::id()));
    let reference = |name: &str| crate::common::shipped_run_copy(name, &runs).to_string_lossy().to_string();
    let cube3 = reference("reference-cube3");
    let args = ["--run", &cube3, "--scramble", "R U F' D", "--beam-width", "8", "--out", &o, "--symmetry", "4"];
    let (code, err) = solve_cli(&args);
    assert_eq!(code, 0, "{err}");
    let folder = std::fs::read_dir(&out).unwrap().next().unwrap().unwrap().path();
    // The run's hash follows: the folder is --out's, not the run's own.
    assert!(folder.to_string_lossy().contains("-w8-sym4-s"), "{}", folder.display());
    let table = |f: &str| -> Vec<HashMap<String, String>> {
        let text = std::fs::read_to_string(folder.join(f)).unwrap();
        let mut lines = text.lines();
        let head: Vec<String> = lines.next().unwrap().split(',').map(String::from).collect();
        lines.map(|l| head.iter().cloned().zip(l.split(',').map(String::from)).collect()).collect()
    };
    let summary = &table("summary.csv")[0];
    assert_eq!(summary["symmetry"], "4");
    let expanded: f64 = summary["mean_expanded"].parse().unwrap();
    assert_eq!(summary["mean_forwards"].parse::<f64>().unwrap(), 4.0 * expanded);
    // The kind and the two symmetry columns follow the core ones directly.
    let head = std::fs::read_to_string(folder.join("summary.csv")).unwrap();
    let core = cube_oracle::solve::record::SUMMARY_COLUMNS.join(",");
    assert!(head.starts_with(&format!("{core},kind,symmetry,mean_forwards,")), "{head}");
    let inst = &table("instances.csv")[0];
    assert_eq!(inst["status"], "solved");
    assert_eq!(expanded, inst["expanded"].parse::<f64>().unwrap(), "one instance");
    let cube2 = reference("reference-cube2");
    // Refused by the library (exit status 1), and by the parser (exit
    // status 2: a count that is not a symmetry group's size, and the flag
    // in a mode without an oracle).
    let counts = "[possible values: 1, 2, 4, 8, 16, 24, 48]";
    let refused: Vec<(Vec<&str>, i32, Vec<&str>)> = vec![
        (
            vec!["--run", &cube2, "--scramble", "R", "--symmetry", "2"],
            1,
            vec!["--symmetry 2: the cube's symmetries apply to cube3"],
        ),
        (
            vec!["--run", &cube3, "--scramble", "R", "--symmetry", "3"],
            2,
            vec!["invalid value '3' for '--symmetry <K>'", counts],
        ),
        (
            vec!["--run", &cube3, "--scramble", "R", "--symmetry", "four"],
            2,
            vec!["invalid value 'four' for '--symmetry <K>'", counts],
        ),
        (vec!["classical", "astar", "--scramble", "R", "--symmetry", "2"], 2, vec!["unexpected argument '--symmetry'"]),
        (
            vec!["local", "hill-climbing", "--problem", "queens8", "--trials", "1", "--symmetry", "2"],
            2,
            vec!["unexpected argument '--symmetry'"],
        ),
    ];
    for (mut args, status, messages) in refused {
        args.extend(["--out", &o]);
        let (code, err) = solve_cli(&args);
        assert_eq!(code, status, "{args:?}: {err}");
        for message in messages {
            assert!(err.contains(message), "{args:?}: {err}");
        }
    }
    let _ = std::fs::remove_dir_all(&out);
    let _ = std::fs::remove_dir_all(&runs);
}
