//! Training-walk kinds and depth distributions: the
//! default reproduces the batches made before they existed (digests taken
//! from that code), non-backtracking walks never revisit a state and give
//! labels closer to the true distance on the 8-puzzle (checked against the
//! complete BFS table), uniform depths pass a chi-square test, the data stay
//! a pure function of `(seed, batch index)`, and bad values are refused.

use cube_oracle::checksum::Fnv1a;
use cube_oracle::cube3::{Cube3Puzzle, Metric};
use cube_oracle::learn::config::TrainConfig;
use cube_oracle::learn::data::{Batch, BatchSpec, BatchStream, Depths, Labels, held_out, make_batch, pool_labels};
use cube_oracle::learn::training::{self, TrainOptions};
use cube_oracle::puzzle::{Puzzle, replay};
use cube_oracle::rundir::Existing;
use cube_oracle::scramble::{ScrambleError, Scrambler, WalkKind, WalkLength};
use cube_oracle::search::DistanceTable;
use cube_oracle::sliding::{Goal, Sliding};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

fn spec(length: WalkLength, prune: bool, walk: WalkKind, depths: Depths, size: usize, seed: u64) -> BatchSpec {
    BatchSpec { length, prune, walk, depths, size, seed, labels: Labels::Walk, pool: 1 }
}

fn feed(h: &mut Fnv1a, b: &Batch) {
    for x in &b.inputs {
        h.update(&x.to_le_bytes());
    }
    for l in &b.labels {
        h.update(&l.to_le_bytes());
    }
    for d in &b.depths {
        h.update(&d.to_le_bytes());
    }
}

/// FNV-1a of the inputs, labels and depths of batches `0..batches`.
fn digest<P: Puzzle>(p: &P, spec: &BatchSpec, batches: u64) -> u64 {
    let mut h = Fnv1a::default();
    for i in 0..batches {
        feed(&mut h, &make_batch(p, spec, i).unwrap());
    }
    h.finish()
}

fn eight() -> Sliding {
    Sliding::new(3, Goal::BlankLast).unwrap()
}

#[test]
fn the_default_reproduces_the_batches_made_before_walk_kinds() {
    // The digests were printed by this same code run against the data
    // layer before `walk` and `depths` existed.
    let (random, all) = (WalkKind::default(), Depths::default());
    assert_eq!((random, all), (WalkKind::Random, Depths::AllPrefixes));
    let cube = Cube3Puzzle::new(Metric::Qtm);
    let htm = Cube3Puzzle::new(Metric::Htm);
    let p8 = eight();
    let a = spec(WalkLength::Fixed(26), true, random, all, 1000, 7);
    let b = spec(WalkLength::Range { min: 1, max: 30 }, false, random, all, 777, 3);
    let c = spec(WalkLength::Range { min: 1, max: 32 }, true, random, all, 512, 1);
    assert_eq!(digest(&cube, &a, 5), 0xe310_bdba_5caf_19ba);
    assert_eq!(digest(&htm, &b, 5), 0xa85c_9358_71c3_bec5);
    assert_eq!(digest(&p8, &c, 5), 0x96e7_fd1b_3969_883f);
    assert_eq!(digest(&p8, &b, 5), 0x0659_0ad0_a132_b3af);
    let mut h = Fnv1a::default();
    feed(&mut h, &held_out(&cube, &a, 50, 26).unwrap());
    feed(&mut h, &held_out(&p8, &c, 40, 32).unwrap());
    assert_eq!(h.finish(), 0x5e00_b326_3395_a959);
    // The digests can fail: the other kind changes them.
    let nb = BatchSpec { walk: WalkKind::NonBacktracking, ..c };
    assert_ne!(digest(&p8, &nb, 5), 0x96e7_fd1b_3969_883f);
    // A config without the keys resolves to the defaults, and writes them.
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/puzzle8-smoke.toml")).unwrap();
    let cfg = TrainConfig::parse(&text, Path::new("puzzle8-smoke.toml")).unwrap();
    assert_eq!((cfg.data.walk, cfg.data.depths), (random, all));
    let resolved = cfg.to_toml();
    assert!(resolved.contains("walk = \"random\"") && resolved.contains("depths = \"all-prefixes\""), "{resolved}");
}

/// Checks `walks` non-backtracking walks of `len` moves: no state twice
/// (the goal included), every step replays; returns the walks' lengths.
fn check_self_avoiding<P: Puzzle>(p: &P, prune: bool, len: usize, walks: usize, seed: u64) -> Vec<usize> {
    let mut s =
        Scrambler::new(p.clone(), WalkLength::Fixed(len), prune, seed, 0).unwrap().with_walk(WalkKind::NonBacktracking);
    let mut lengths = Vec::with_capacity(walks);
    for _ in 0..walks {
        let steps: Vec<_> = s.walk().collect();
        let mut seen = HashSet::from([p.key(&p.goal())]);
        let moves: Vec<u8> = steps.iter().map(|st| st.last_move).collect();
        for (i, st) in steps.iter().enumerate() {
            assert_eq!(st.depth, i + 1);
            assert!(seen.insert(p.key(&st.state)), "state at depth {} seen before on its walk", st.depth);
            assert_eq!(replay(p, &p.goal(), &moves[..=i]).as_ref(), Some(&st.state));
        }
        lengths.push(steps.len());
    }
    lengths
}

/// Whether some of `walks` random walks repeat a state (so the check above
/// can fail).
fn random_walks_repeat<P: Puzzle>(p: &P, prune: bool, len: usize, walks: usize) -> bool {
    let mut s = Scrambler::new(p.clone(), WalkLength::Fixed(len), prune, 1, 0).unwrap();
    (0..walks).any(|_| {
        let mut seen = HashSet::from([p.key(&p.goal())]);
        !s.walk().all(|st| seen.insert(p.key(&st.state)))
    })
}

#[test]
fn non_backtracking_walks_never_repeat_a_state() {
    let cube = Cube3Puzzle::new(Metric::Qtm);
    for prune in [true, false] {
        let lengths = check_self_avoiding(&cube, prune, 26, 2_000, 5);
        assert!(lengths.iter().all(|&l| l == 26), "a cube walk is never trapped in 26 moves");
    }
    assert!(random_walks_repeat(&cube, false, 26, 200));
    let p8 = eight();
    let lengths = check_self_avoiding(&p8, true, 40, 5_000, 6);
    let trapped = lengths.iter().filter(|&&l| l < 40).count();
    println!("8-puzzle: {trapped} of 5000 non-backtracking walks of 40 moves trapped");
    assert!(random_walks_repeat(&p8, true, 40, 200));
}

/// Mean (depth − true distance) and the share of samples at their true
/// distance, over `batches` batches of `spec` on the 8-puzzle.
fn label_quality(p: &Sliding, table: &DistanceTable<Sliding>, spec: &BatchSpec, batches: u64) -> (f64, f64) {
    let (mut excess, mut exact, mut n) = (0u64, 0u64, 0u64);
    for i in 0..batches {
        cube_oracle::learn::data::for_each_sample(p, spec, i, |s, _, depth| {
            let d = usize::from(table.distance(p, s).unwrap());
            assert!(d <= depth && (depth - d) % 2 == 0, "depth {depth} vs distance {d}: a walk is a path");
            excess += (depth - d) as u64;
            exact += u64::from(depth == d);
            n += 1;
        })
        .unwrap();
    }
    (excess as f64 / n as f64, exact as f64 / n as f64)
}

#[test]
fn non_backtracking_labels_are_closer_to_the_true_distance_on_the_8_puzzle() {
    let p8 = eight();
    let table = DistanceTable::build(&p8, 40);
    assert_eq!(table.len(), 181_440);
    // 40,000 walks of 30 moves per kind: the gain over pruned random walks
    // is small (pruning already forbids undoing the last slide, no cycle is
    // shorter than 12 slides, and only about 2% of pruned random walks of 30
    // slides come back to a state), 0.033 to 0.046 of a move over seeds 1 to
    // 3, so the sample is large enough for the margin below.
    let random = spec(WalkLength::Fixed(30), true, WalkKind::Random, Depths::AllPrefixes, 300_000, 1);
    let nb = BatchSpec { walk: WalkKind::NonBacktracking, ..random };
    let unpruned = BatchSpec { prune: false, ..random };
    let (ex_r, eq_r) = label_quality(&p8, &table, &random, 4);
    let (ex_n, eq_n) = label_quality(&p8, &table, &nb, 4);
    let (ex_u, eq_u) = label_quality(&p8, &table, &BatchSpec { size: 30_000, ..unpruned }, 4);
    println!(
        "mean depth - distance, share at distance: random {ex_r:.4} {eq_r:.4}; non-backtracking {ex_n:.4} {eq_n:.4}; \
         random unpruned {ex_u:.4} {eq_u:.4}"
    );
    assert!(ex_n < ex_r - 0.015, "mean excess {ex_n} not clearly below {ex_r}");
    // Against unpruned random walks, which undo a slide a third of the time
    // or more, the gain is large on both measures.
    assert!(ex_n < ex_u / 3.0 && eq_n > 2.0 * eq_u, "unpruned: {ex_u} {eq_u}");
    // The share at the true distance moves by less than its noise against
    // pruned walks (+0.0013, 0, +0.0020 over seeds 1 to 3); it must not drop.
    assert!(eq_n > eq_r - 0.002, "share at true distance {eq_n} fell below {eq_r}");
    // On a sliding puzzle the only pruning rule (never undo the last slide)
    // is implied by never revisiting a state, so pruning changes nothing.
    let nb_unpruned = BatchSpec { prune: false, size: 5_000, ..nb };
    assert_eq!(
        make_batch(&p8, &BatchSpec { size: 5_000, ..nb }, 3).unwrap(),
        make_batch(&p8, &nb_unpruned, 3).unwrap()
    );
}

#[test]
fn trajectory_minimum_labels_lie_between_the_true_distance_and_the_walk_step() {
    let p8 = eight();
    let table = DistanceTable::build(&p8, 40);
    // A pool of 8 batches of 1,000 walks of 30 slides: the 8-puzzle's
    // 181,440 states are few enough that walks meet often.
    let walks = spec(WalkLength::Fixed(30), true, WalkKind::Random, Depths::AllPrefixes, 30_000, 5);
    let traj = BatchSpec { labels: Labels::TrajectoryMin, pool: 8, ..walks };
    let (mut n, mut walk_excess, mut traj_excess, mut lowered) = (0u64, 0u64, 0u64, 0u64);
    let pool = pool_labels(&p8, &traj, 1).unwrap();
    assert_eq!(pool.len(), 8);
    for (b, labels) in pool.iter().enumerate() {
        let mut i = 0;
        cube_oracle::learn::data::for_each_sample(&p8, &traj, 8 + b as u64, |s, _, depth| {
            let d = usize::from(table.distance(&p8, s).unwrap());
            let l = usize::from(labels[i]);
            assert!(d <= l && l <= depth, "distance {d}, label {l}, walk step {depth}");
            // Every label is a path's length: on the 8-puzzle's bipartite
            // graph it has the distance's parity.
            assert_eq!((l - d) % 2, 0, "label {l} at distance {d}");
            walk_excess += (depth - d) as u64;
            traj_excess += (l - d) as u64;
            lowered += u64::from(l < depth);
            n += 1;
            i += 1;
        })
        .unwrap();
        assert_eq!(i, labels.len());
    }
    let (w, t) = (walk_excess as f64 / n as f64, traj_excess as f64 / n as f64);
    println!("mean label - distance: walk {w:.3}, trajectory-min {t:.3}; {lowered} of {n} labels lowered");
    // Pooled walks of 30 slides meet often on so small a puzzle: the labels
    // come much closer to the truth.
    assert!(t < 0.5 * w, "trajectory-min excess {t} not below half the walk's {w}");
    // The batch carries the labels as caps on its targets: its first
    // sample's own output undoes to the goal (0); a later sample's to the
    // walk's previous state, whose true distance the cap never undercuts.
    let batch = make_batch(&p8, &traj, 9).unwrap();
    let bounds = batch.bounds.as_ref().expect("trajectory-min batches carry bounds");
    let labels = &pool[1];
    let mut states = Vec::new();
    cube_oracle::learn::data::for_each_sample(&p8, &traj, 9, |s, _, _| states.push(*s)).unwrap();
    for i in 0..batch.len() {
        if batch.depths[i] == 1 {
            assert_eq!(bounds.back[i], 0.0);
        } else {
            assert_eq!(bounds.back[i], f32::from(labels[i - 1]));
            assert!(bounds.back[i] >= f32::from(table.distance(&p8, &states[i - 1]).unwrap()));
        }
        if batch.forward[i] >= 0 {
            assert_eq!(bounds.forward[i], f32::from(labels[i + 1]));
        } else {
            assert!(bounds.forward[i].is_infinite());
        }
    }
    // The same batch with walk labels: the same samples, no bounds.
    let plain = make_batch(&p8, &walks, 9).unwrap();
    assert!(plain.bounds.is_none());
    assert_eq!((plain.inputs, plain.depths), (batch.inputs.clone(), batch.depths.clone()));
    // A pool is a pure function of (seed, pool index): batch 9 alone is the
    // same as batch 9 made after batch 8 by one worker's cache.
    let mut cache = None;
    cube_oracle::learn::data::make_batch_cached(&p8, &traj, 8, &mut cache).unwrap();
    assert_eq!(cube_oracle::learn::data::make_batch_cached(&p8, &traj, 9, &mut cache).unwrap(), batch);
}

/// The table of docs/training.md ("Walk kinds"): per walk depth, the mean
/// true distance of 8-puzzle samples for each kind, and on the cube the
/// share of pruned random walks that come back to a state of their own walk
/// (the only walks a non-backtracking walk changes).
#[test]
fn label_quality_table() {
    let p8 = eight();
    let table = DistanceTable::build(&p8, 40);
    let (len, walks) = (32, 20_000);
    let kinds = [(true, WalkKind::Random), (true, WalkKind::NonBacktracking), (false, WalkKind::Random)];
    let mut mean = vec![[0f64; 3]; len + 1];
    let mut exact = vec![[0f64; 3]; len + 1];
    for (k, &(prune, walk)) in kinds.iter().enumerate() {
        let s = spec(WalkLength::Fixed(len), prune, walk, Depths::AllPrefixes, walks * len, 77);
        cube_oracle::learn::data::for_each_sample(&p8, &s, 0, |st, _, depth| {
            let d = usize::from(table.distance(&p8, st).unwrap());
            mean[depth][k] += d as f64 / walks as f64;
            exact[depth][k] += f64::from(u8::from(d == depth)) / walks as f64;
        })
        .unwrap();
    }
    println!("| depth | random | non-backtracking | random, prune = false | at distance: random | non-backtracking |");
    println!("|---:|---:|---:|---:|---:|---:|");
    for d in (2..=len).step_by(2) {
        let (m, e) = (mean[d], exact[d]);
        println!("| {d} | {:.2} | {:.2} | {:.2} | {:.3} | {:.3} |", m[0], m[1], m[2], e[0], e[1]);
    }
    // Sanity: depth 1 is always at distance 1, and a walk never ends nearer
    // the goal on average than the unpruned walk.
    assert!(mean[1].iter().all(|&m| (m - 1.0).abs() < 1e-9));
    assert!((2..=len).all(|d| mean[d][0] > mean[d][2] && mean[d][1] > mean[d][2]));

    println!("| puzzle | walk length | walks | walks that revisit a state | samples at a revisited state |");
    println!("|---|---:|---:|---:|---:|");
    for metric in [Metric::Qtm, Metric::Htm] {
        let cube = Cube3Puzzle::new(metric);
        let (len, walks) = (26, 20_000);
        let mut s = Scrambler::new(cube, WalkLength::Fixed(len), true, 78, 0).unwrap();
        let (mut revisiting, mut repeated) = (0usize, 0usize);
        for _ in 0..walks {
            let mut seen = HashSet::from([cube.key(&cube.goal())]);
            let before = repeated;
            for st in s.walk() {
                repeated += usize::from(!seen.insert(cube.key(&st.state)));
            }
            revisiting += usize::from(repeated > before);
        }
        let name = cube.name();
        println!(
            "| {name} | {len} | {walks} | {:.3}% | {:.4}% |",
            100.0 * revisiting as f64 / walks as f64,
            100.0 * repeated as f64 / (walks * len) as f64
        );
    }
    // Trajectory-minimum labels on the cube (QTM): how many of a pool's
    // labels fall below the walk step, and by how much, for the pool the
    // objective study uses (64 batches of 80 walks of 26 moves).
    let cube = Cube3Puzzle::new(Metric::Qtm);
    let s = spec(WalkLength::Fixed(26), true, WalkKind::Random, Depths::AllPrefixes, 2080, 79);
    let traj = BatchSpec { labels: Labels::TrajectoryMin, pool: 64, ..s };
    let (mut n, mut lowered, mut by) = (0usize, 0usize, 0usize);
    for (b, labels) in pool_labels(&cube, &traj, 0).unwrap().iter().enumerate() {
        let mut i = 0;
        cube_oracle::learn::data::for_each_sample(&cube, &traj, b as u64, |_, _, depth| {
            let l = usize::from(labels[i]);
            assert!(l <= depth);
            lowered += usize::from(l < depth);
            by += depth - l;
            n += 1;
            i += 1;
        })
        .unwrap();
    }
    println!("| pool | samples | labels lowered | mean lowering |");
    println!("|---|---:|---:|---:|");
    println!(
        "| cube3-qtm, 64 x 2,080 | {n} | {:.3}% | {:.4} |",
        100.0 * lowered as f64 / n as f64,
        by as f64 / n as f64
    );
}

/// Chi-square statistic of `counts` against a uniform distribution.
fn chi_square(counts: &[u64]) -> f64 {
    let n: u64 = counts.iter().sum();
    let e = n as f64 / counts.len() as f64;
    counts.iter().map(|&c| (c as f64 - e).powi(2) / e).sum()
}

/// Critical value of chi-square with 19 degrees of freedom at p = 0.001.
const CHI2_19_P001: f64 = 43.820;

fn depth_histogram<P: Puzzle>(p: &P, spec: &BatchSpec, lo: usize, hi: usize) -> Vec<u64> {
    let mut counts = vec![0u64; hi - lo + 1];
    for i in 0..4 {
        for &d in &make_batch(p, spec, i).unwrap().depths {
            counts[usize::from(d) - lo] += 1;
        }
    }
    counts
}

#[test]
fn uniform_depths_pass_a_chi_square_test() {
    let cube = Cube3Puzzle::new(Metric::Qtm);
    let p8 = eight();
    for walk in WalkKind::ALL {
        let fixed = spec(WalkLength::Fixed(20), true, walk, Depths::Uniform, 5_000, 8);
        let c = depth_histogram(&cube, &fixed, 1, 20);
        assert!(chi_square(&c) < CHI2_19_P001, "cube {walk}: {c:?}");
        let range = spec(WalkLength::Range { min: 11, max: 30 }, true, walk, Depths::Uniform, 5_000, 9);
        let c = depth_histogram(&p8, &range, 11, 30);
        assert!(chi_square(&c) < CHI2_19_P001, "8-puzzle {walk}: {c:?}");
        // Every prefix of walks of 1..=20 moves is far from uniform.
        let prefixes = spec(WalkLength::Range { min: 1, max: 20 }, true, walk, Depths::AllPrefixes, 5_000, 8);
        let c = depth_histogram(&cube, &prefixes, 1, 20);
        assert!(chi_square(&c) > 10.0 * CHI2_19_P001, "{walk}: {c:?}");
    }
}

fn stream_batches<P: Puzzle + 'static>(p: &P, spec: BatchSpec, start: u64, workers: usize, n: usize) -> Vec<Batch> {
    let mut s = BatchStream::start(p.clone(), spec, start, workers).unwrap();
    (0..n).map(|_| s.next_batch().unwrap()).collect()
}

#[test]
fn data_are_a_pure_function_of_seed_and_index_for_every_kind() {
    let p8 = eight();
    let cube = Cube3Puzzle::new(Metric::Qtm);
    for walk in WalkKind::ALL {
        for depths in Depths::ALL {
            let s = spec(WalkLength::Range { min: 1, max: 32 }, true, walk, depths, 300, 4);
            let one = stream_batches(&p8, s, 5, 1, 6);
            assert_eq!(stream_batches(&p8, s, 5, 3, 6), one, "{walk} {depths}: three workers");
            assert_eq!(stream_batches(&p8, s, 8, 2, 3), one[3..], "{walk} {depths}: resumed at batch 8");
            assert_eq!(make_batch(&p8, &s, 7).unwrap(), one[2]);
            let c = spec(WalkLength::Fixed(26), true, walk, depths, 300, 4);
            assert_eq!(stream_batches(&cube, c, 0, 2, 3), stream_batches(&cube, c, 0, 1, 3));
            assert_ne!(make_batch(&p8, &s, 0).unwrap(), make_batch(&p8, &BatchSpec { seed: 5, ..s }, 0).unwrap());
        }
    }
}

#[test]
fn held_out_sets_keep_every_depth_for_every_kind() {
    let p8 = eight();
    for walk in WalkKind::ALL {
        for depths in Depths::ALL {
            let s = spec(WalkLength::Range { min: 1, max: 40 }, true, walk, depths, 300, 4);
            let set = held_out(&p8, &s, 100, 40).unwrap();
            let mut counts = [0usize; 41];
            for &d in &set.depths {
                counts[usize::from(d)] += 1;
            }
            assert!(counts[1..].iter().all(|&c| c == 100), "{walk} {depths}: {counts:?}");
        }
    }
}

#[test]
fn impossible_walks_are_refused_not_looped() {
    // The 2×2 sliding puzzle has 12 reachable states in one cycle, so no
    // walk visits 13 distinct states.
    let p3 = Sliding::new(2, Goal::BlankLast).unwrap();
    let s = spec(WalkLength::Fixed(12), false, WalkKind::NonBacktracking, Depths::AllPrefixes, 10, 1);
    let e = make_batch(&p3, &s, 0).unwrap_err();
    assert!(matches!(e, ScrambleError::Trapped { length: 12, .. }), "{e:?}");
    assert!(e.to_string().contains("non-backtracking walk of 12 moves"), "{e}");
    assert!(BatchStream::start(p3.clone(), s, 0, 1).is_err());
    // 11 moves go round the cycle once.
    let ok = spec(WalkLength::Fixed(11), false, WalkKind::NonBacktracking, Depths::Uniform, 50, 1);
    assert_eq!(make_batch(&p3, &ok, 0).unwrap().len(), 50);
}

fn with_data(text: &str, lines: &str) -> String {
    text.replace("prune = true\n", &format!("prune = true\n{lines}\n"))
}

#[test]
fn bad_values_are_refused_with_the_key_named() {
    let base = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/smoke.toml")).unwrap();
    for (lines, expected) in [
        ("walk = \"zigzag\"", ["walk = \"zigzag\"", "unknown variant `zigzag`", "`random`", "`non-backtracking`"]),
        (
            "depths = \"gaussian\"",
            ["depths = \"gaussian\"", "unknown variant `gaussian`", "`all-prefixes`", "`uniform`"],
        ),
        ("walk = 3", ["walk = 3", "wanted string", "", ""]),
        ("labels = \"oracle\"", ["labels = \"oracle\"", "unknown variant `oracle`", "`walk`", "`trajectory-min`"]),
        ("labels = \"trajectory-min\"\nlabel_pool = 0", ["`data.label_pool` (0)", "must be in 1..=4096", "", ""]),
        ("label_pool = 8", ["`data.label_pool` (8)", "applies to data.labels = \"trajectory-min\"", "", ""]),
        (
            "labels = \"trajectory-min\"\ndepths = \"uniform\"",
            ["`data.labels` (trajectory-min)", "needs data.depths = \"all-prefixes\"", "", ""],
        ),
        ("labels = \"trajectory-min\"", ["`data.labels` (trajectory-min)", "applies to kind = \"q-distance\"", "", ""]),
    ] {
        let e = TrainConfig::parse(&with_data(&base, lines), Path::new("bad.toml")).unwrap_err().to_string();
        for part in expected {
            assert!(e.contains(part), "{lines}: expected `{part}` in: {e}");
        }
    }
    // The ranking term's weight: finite, in range, and only for a Q network.
    for (lines, expected) in [
        ("rank_weight = nan", ["`model.rank_weight` (NaN)", "must be finite and in [0, 100]"]),
        ("rank_weight = -1.0", ["`model.rank_weight` (-1)", "must be finite and in [0, 100]"]),
        ("rank_weight = 0.5", ["`model.rank_weight` (0.5)", "applies to kind = \"q-distance\""]),
    ] {
        let text = base.replace("[model]\n", &format!("[model]\n{lines}\n"));
        let e = TrainConfig::parse(&text, Path::new("bad.toml")).unwrap_err().to_string();
        for part in expected {
            assert!(e.contains(part), "{lines}: expected `{part}` in: {e}");
        }
    }
    let good = with_data(&base, "walk = \"non-backtracking\"\ndepths = \"uniform\"");
    let cfg = TrainConfig::parse(&good, Path::new("good.toml")).unwrap();
    assert_eq!((cfg.data.walk, cfg.data.depths), (WalkKind::NonBacktracking, Depths::Uniform));
    assert_eq!(TrainConfig::parse(&cfg.to_toml(), Path::new("resolved.toml")).unwrap(), cfg);
    // The binary exits 1 with the same message, no panic.
    let dir = tmp("cli");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad.toml");
    std::fs::write(&path, with_data(&base, "walk = \"zigzag\"")).unwrap();
    let o = crate::common::command(env!("CARGO_BIN_EXE_train"))
        .args(["--config", path.to_str().unwrap(), "--no-progress"])
        .current_dir(&dir)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("unknown variant `zigzag`") && !err.contains("panicked"), "{err}");
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cube-oracle-walks-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn meta_json_records_the_walk_and_a_changed_walk_is_not_resumed() {
    let out = tmp("meta");
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/smoke.toml");
    let mut cfg = TrainConfig::load(&path).unwrap();
    cfg.run.out_dir = out.clone();
    cfg.run.name = "nb".into();
    cfg.train.threads = Some(1);
    cfg.data.walk = WalkKind::NonBacktracking;
    cfg.data.depths = Depths::Uniform;
    let opts = |existing| TrainOptions { max_steps_this_leg: Some(2), ..TrainOptions::new(existing) };
    training::run(&cfg, &opts(Existing::Refuse)).unwrap();
    let dir = out.join("nb");
    let meta: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("meta.json")).unwrap()).unwrap();
    assert_eq!((meta["walk"].as_str(), meta["depths"].as_str()), (Some("non-backtracking"), Some("uniform")));
    let saved = TrainConfig::load(&dir.join("config.toml")).unwrap();
    assert_eq!(saved.data, cfg.data);
    // The refusal names the key and both values.
    for (changed, expected) in [
        (
            TrainConfig {
                data: cube_oracle::learn::config::DataSection { walk: WalkKind::Random, ..cfg.data.clone() },
                ..cfg.clone()
            },
            "the given config has data.walk = \"random\", the run's",
        ),
        (
            TrainConfig {
                data: cube_oracle::learn::config::DataSection { depths: Depths::AllPrefixes, ..cfg.data.clone() },
                ..cfg.clone()
            },
            "has data.depths = \"uniform\"",
        ),
    ] {
        let e = training::run(&changed, &opts(Existing::Resume)).unwrap_err().to_string();
        assert!(e.contains(expected) && e.contains("only the run's length and cadences"), "{e}");
    }
    // Nor may the held-out walks change: another eval_seed or count is
    // refused, while naming the run's own seed leaves them as they were.
    let mut other_walks = cfg.clone();
    other_walks.train.eval_seed = Some(cfg.run.seed + 1);
    let e = training::run(&other_walks, &opts(Existing::Resume)).unwrap_err().to_string();
    assert!(e.contains("train.eval_seed (else run.seed) = 2") && e.contains("held-out set stays the same"), "{e}");
    let mut fewer_walks = cfg.clone();
    fewer_walks.train.eval_walks = 7;
    let e = training::run(&fewer_walks, &opts(Existing::Resume)).unwrap_err().to_string();
    assert!(e.contains("train.eval_walks = 7") && e.contains("train.eval_walks = 20"), "{e}");
    // A run length shorter than the steps done is refused, naming both.
    let mut shorter = cfg.clone();
    shorter.train.steps = Some(1);
    let e = training::run(&shorter, &opts(Existing::Resume)).unwrap_err().to_string();
    assert!(e.contains("it has done 2 steps") && e.contains("make the run 1 steps long"), "{e}");
    // Where the run lives may change (it is found there): another spelling
    // of the same folder resumes.
    let link = tmp("meta-link");
    std::os::unix::fs::symlink(&out, &link).unwrap();
    let mut respelled = cfg.clone();
    respelled.run.out_dir = link.clone();
    let mut same_walks = cfg.clone();
    same_walks.train.eval_seed = Some(cfg.run.seed);
    training::run(&same_walks, &opts(Existing::Resume)).unwrap();
    training::run(&respelled, &opts(Existing::Resume)).unwrap();
    std::fs::remove_file(&link).unwrap();
    // The unchanged config resumes.
    training::run(&cfg, &opts(Existing::Resume)).unwrap();
    let _ = std::fs::remove_dir_all(&out);
}
