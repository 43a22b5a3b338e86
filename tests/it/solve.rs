//! `solve` end to end: a model trained here on depth <= 3 solves every cube
//! within 3 quarter turns of solved (each solution replayed); the CLI
//! writes every table and plot and reports unsolved cubes; bad input gets
//! its own message and exit status 1.

use cube_oracle::cube3::{Cube3, Cube3Puzzle, Metric};
use cube_oracle::learn::config::{LengthSpec, TrainConfig};
use cube_oracle::learn::inference::NetOracle;
use cube_oracle::learn::training::{self, TrainOptions};
use cube_oracle::puzzle::Puzzle;
use cube_oracle::rundir::Existing;
use cube_oracle::search::{BeamConfig, beam_search};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// A model trained once per test process on walks of depth 1..=3.
fn shallow_run() -> &'static PathBuf {
    static RUN: OnceLock<PathBuf> = OnceLock::new();
    RUN.get_or_init(|| {
        let out = std::env::temp_dir().join(format!("cube-oracle-solve-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&out);
        let mut cfg = TrainConfig::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/smoke.toml")).unwrap();
        cfg.run.out_dir = out.clone();
        cfg.run.name = "shallow".into();
        cfg.data.scramble_len = LengthSpec::Range { min: 1, max: 3 };
        cfg.model.hidden = vec![256];
        cfg.optim.lr = 3e-3;
        cfg.train.steps = Some(300);
        cfg.train.eval_every = 300;
        cfg.train.checkpoint_every = 300;
        cfg.train.threads = Some(1);
        let opts = TrainOptions::new(Existing::Refuse);
        training::run(&cfg, &opts).unwrap();
        out.join("shallow")
    })
}

#[test]
fn every_cube_within_three_quarter_turns_is_solved_and_verified() {
    let p = Cube3Puzzle::new(Metric::Qtm);
    // All states at distance 1..=3 (BFS: 12 + 114 + 1068).
    let mut seen: HashSet<u128> = HashSet::from([Cube3::SOLVED.key()]);
    let mut frontier = vec![Cube3::SOLVED];
    let mut states = Vec::new();
    for _ in 0..3 {
        let mut next = Vec::new();
        for s in &frontier {
            for m in 0..12 {
                let mut c = *s;
                p.apply(&mut c, m);
                if seen.insert(c.key()) {
                    next.push(c);
                }
            }
        }
        states.extend_from_slice(&next);
        frontier = next;
    }
    assert_eq!(states.len(), 12 + 114 + 1068);
    let mut oracle = NetOracle::load(shallow_run(), None, None).unwrap();
    let cfg = BeamConfig { width: 64, max_depth: 6, dedup: true, prune: true, record_beams: false };
    for s in &states {
        let out = beam_search(&p, &mut oracle, s, &cfg).unwrap();
        let path = out.solution.unwrap_or_else(|| panic!("unsolved: {s}"));
        let mut c = *s;
        for &m in &path {
            p.apply(&mut c, m);
        }
        assert!(c.is_solved(), "solution does not replay for {s}");
    }
}

fn solve_cli(args: &[&str]) -> (i32, String, String) {
    let o = crate::common::command(env!("CARGO_BIN_EXE_solve")).args(args).output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).to_string(),
        String::from_utf8_lossy(&o.stderr).to_string(),
    )
}

#[test]
fn cli_writes_every_file_and_reports_unsolved_cubes() {
    let run = shallow_run().to_str().unwrap().to_string();
    let (code, out, err) =
        solve_cli(&["--run", &run, "--testset", "deepcubea-10", "--beam-log2", "2..3", "--max-depth", "4"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("width       4:") && out.contains("width       8:"), "{out}");
    let dir = shallow_run().join("solve/deepcubea-10-w2..3");
    let inst = std::fs::read_to_string(dir.join("instances.csv")).unwrap();
    let core = cube_oracle::solve::record::INSTANCE_COLUMNS.join(",");
    assert!(
        inst.starts_with(&format!("{core},length_htm,beam_nodes,forwards,mean_beam_entropy,start_kl_uniform\n")),
        "{inst}"
    );
    assert_eq!(inst.lines().count(), 1 + 2 * 10, "every instance at every width, solved or not");
    assert!(
        inst.lines().skip(1).all(|l| l.contains(",exhausted,false,")),
        "DeepCubeA cubes are >= 16 moves deep: none solves within depth 4"
    );
    for f in ["depths.csv", "summary.csv", "scaling.csv"] {
        assert!(dir.join(f).exists(), "{f}");
    }
    // meta.json says what produced the tables: the command, the checkpoint,
    // this machine's CPU, what computed the products, each width's time.
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("meta.json")).unwrap()).unwrap();
    assert_eq!(meta["complete"], true);
    assert_eq!(meta["widths"], serde_json::json!([4, 8]));
    assert_eq!(meta["wall_s"].as_array().map(Vec::len), Some(2), "{meta}");
    assert_eq!(meta["instances"], 10);
    assert!(meta["command_line"].as_str().unwrap().contains("--testset deepcubea-10"), "{meta}");
    assert!(Path::new(meta["checkpoint"].as_str().unwrap()).is_file(), "{meta}");
    assert!(meta["products"].as_str().unwrap().starts_with("f32 on "), "{meta}");
    // The executable's build revision, as the library built with it says.
    assert_eq!(meta["build_revision"], cube_oracle::rundir::build_revision(), "{meta}");
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap();
    let model = cpuinfo.lines().find(|l| l.starts_with("model name")).and_then(|l| l.split(':').nth(1)).unwrap().trim();
    let device = meta["device"].as_str().unwrap();
    assert!(device.starts_with("cpu: ") && device.contains(model), "{device} names not {model}");
    assert!(std::fs::read_to_string(dir.join("depths.csv")).unwrap().starts_with(
        "width,id,depth,beam_size,generated,entropy,max_log_prob,mean_log_prob,mean_policy_entropy,kl_previous"
    ));
    for p in ["length_vs_width", "optimal_vs_width", "time_vs_width", "entropy_vs_length", "entropy_vs_depth"] {
        assert!(
            dir.join("plots").join(format!("{p}.png")).exists() && dir.join("plots").join(format!("{p}.svg")).exists(),
            "{p}"
        );
    }
    // A single cube prints its verified solution in both metrics.
    let (code, out, err) = solve_cli(&["--run", &run, "--scramble", "R U F'", "--beam-width", "32"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("QTM") && out.contains("HTM; verified"), "{out}");
    // The same one-cube solve again replaces its own automatic folder; a
    // label the user chose is not clobbered.
    let (code, _, err) = solve_cli(&["--run", &run, "--scramble", "R U F'", "--beam-width", "32"]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = solve_cli(&["--run", &run, "--scramble", "R U F'", "--beam-width", "32", "--label", "x"]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = solve_cli(&["--run", &run, "--scramble", "R U F'", "--beam-width", "32", "--label", "x"]);
    assert_eq!(code, 1);
    assert!(err.contains("already exists") && err.contains("--overwrite"), "{err}");
}

#[test]
fn cli_rejects_bad_input_with_specific_messages() {
    let run = shallow_run().to_str().unwrap().to_string();
    let junk = std::env::temp_dir().join(format!("cube-oracle-junk-{}.ckpt", std::process::id()));
    std::fs::write(&junk, b"not a checkpoint").unwrap();
    let twisted = "UUUUUUUUFURRRRRRRRFFRFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB";
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--run", &run, "--facelets", "UUU"], "exactly 54 characters, got 3"),
        (vec!["--run", &run, "--facelets", twisted], "a corner is twisted"),
        (vec!["--run", &run, "--scramble", "R U X"], "unknown move `X`"),
        (vec!["--run", "no/such/run", "--scramble", "R"], "no/such/run is not a run directory: it does not exist"),
        (vec!["--run", "Cargo.toml", "--scramble", "R"], "Cargo.toml is not a run directory: it is a file"),
        (vec!["--run", "src", "--scramble", "R"], "src is not a run directory: it has no config.toml"),
        (vec!["--run", &run, "--scramble", "R", "--label", "../checkpoints"], "is not a folder name"),
        (
            vec!["classical", "astar", "--puzzle", "puzzle8", "--board", "-1 2 3 / 4 5 6 / 7 8 0"],
            "tile -1 is out of range",
        ),
        (
            vec!["classical", "astar", "--puzzle", "puzzle8", "--heuristic", "4294967295*manhattan", "--random", "1"],
            "above the largest weight, 1000",
        ),
        (vec!["--run", &run, "--testset", "missing.tsv"], "neither a built-in set"),
        (vec!["--run", &run, "--scramble", "R", "--beam-width", "0"], "at least 1"),
        (vec!["--run", &run, "--scramble", "R", "--beam-log2", "25"], "exceeds the maximum"),
        (vec!["--run", &run, "--scramble", "R", "--beam-log2", "10..7"], "range is empty"),
        (vec!["--run", &run, "--scramble", "R", "--metric", "htm"], "trained in qtm"),
        (
            vec!["--run", &run, "--scramble", "R", "--device", "gpu"],
            "--device gpu: the GPU needs a binary built with `--features gpu`",
        ),
        (
            vec!["--run", &run, "--scramble", "R", "--checkpoint", junk.to_str().unwrap()],
            "not a cube-oracle checkpoint",
        ),
    ];
    for (args, expected) in cases {
        let (code, _, err) = solve_cli(&args);
        assert_eq!(code, 1, "{args:?}: {err}");
        assert!(err.contains(expected), "{args:?}: expected `{expected}` in {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    // Argument-level errors come from clap, with its exit status 2: a bad
    // value, an unknown puzzle, and a flag of another mode.
    let parse_errors: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--run", &run, "--scramble", "R", "--jobs", "0"], "invalid value '0' for '--jobs"),
        (
            vec!["classical", "astar", "--puzzle", "puzzle18446744073709551615", "--board", "1 2 3 / 4 5 6 / 7 8 0"],
            "expected cube3, cube2, or puzzleN",
        ),
        (
            vec!["classical", "astar", "--puzzle", "puzzle8", "--board", "1 2 3 / 4 5 6 / 7 8 0", "--device", "cpu"],
            "unexpected argument '--device'",
        ),
    ];
    for (args, expected) in parse_errors {
        let (code, _, err) = solve_cli(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(expected), "{args:?}: expected `{expected}` in {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    std::fs::remove_file(junk).unwrap();
}

#[test]
fn without_run_the_shipped_default_oracle_solves_a_deepcubea_cube() {
    // The first DeepCubeA test cube (optimal length known), solved with the
    // defaults a new user gets: no --run, width 2^10.
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("data/cube3-deepcubea-test-1000.tsv"))
            .unwrap();
    let facelets = text.lines().nth(1).unwrap().split('\t').nth(1).unwrap().to_string();
    // As a user in the repository's root gets it (`runs/cube3-q-long` in the
    // working directory), in a copy: nothing is written into the repository.
    let cwd = std::env::temp_dir().join(format!("cube-oracle-solve-default-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&cwd);
    crate::common::shipped_run_copy("cube3-q-long", &cwd);
    let o = crate::common::command(env!("CARGO_BIN_EXE_solve"))
        .args(["--facelets", &facelets, "--label", "default"])
        .current_dir(&cwd)
        .output()
        .unwrap();
    let (code, out, err) =
        (o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    let written = cwd.join("runs/cube3-q-long/solve/default/instances.csv");
    let heuristic = written.exists().then(|| crate::common::column(&written, "heuristic"));
    let _ = std::fs::remove_dir_all(&cwd);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("width 1024:") && out.contains("HTM; verified"), "{out}");
    assert_eq!(heuristic, Some(vec!["oracle:cube3-q-long".to_string()]), "the shipped run solved it");
}

#[test]
fn one_cube_without_a_width_is_retried_at_doubled_widths_up_to_2_14() {
    // A DeepCubeA cube is at least 16 moves deep, so with --max-depth 4 no
    // width solves it: the widths 2^10 … 2^14 are each tried once, then it stops.
    let run = shallow_run().to_str().unwrap().to_string();
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("data/cube3-deepcubea-test-1000.tsv"))
            .unwrap();
    let facelets = text.lines().nth(2).unwrap().split('\t').nth(1).unwrap().to_string();
    let (code, out, err) =
        solve_cli(&["--run", &run, "--facelets", &facelets, "--max-depth", "4", "--label", "escalate"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("width 1024: not solved; retrying with width 2048"), "{err}");
    assert!(!err.contains("retrying with width 32768"), "{err}");
    assert!(out.contains("width 16384: not solved"), "{out}");
    let inst = std::fs::read_to_string(shallow_run().join("solve/escalate/instances.csv")).unwrap();
    let widths: Vec<&str> = inst.lines().skip(1).map(|l| l.split(',').nth(3).unwrap()).collect();
    assert_eq!(widths, ["1024", "2048", "4096", "8192", "16384"]);
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(shallow_run().join("solve/escalate/meta.json")).unwrap())
            .unwrap();
    assert_eq!(meta["widths"], serde_json::json!([1024, 2048, 4096, 8192, 16384]), "the widths actually searched");
    assert_eq!(meta["wall_s"].as_array().map(Vec::len), Some(5));
    // An explicit width is never widened.
    let (code, _, err) = solve_cli(&["--run", &run, "--facelets", &facelets, "--max-depth", "4", "--beam-width", "8"]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("retrying"), "{err}");
}

#[test]
fn parallel_workers_give_the_same_solutions_as_one() {
    // Twelve cubes 3 quarter turns from solved, written as a TSV test set.
    let p = Cube3Puzzle::new(Metric::Qtm);
    let mut tsv = String::from("id\tfacelets\n");
    for i in 0..12u8 {
        let mut c = Cube3::SOLVED;
        for m in [i, (i + 3) % 12, (i + 7) % 12] {
            p.apply(&mut c, m);
        }
        tsv.push_str(&format!("c{i}\t{}\n", c.to_facelets()));
    }
    let set = shallow_run().join("three-turns.tsv");
    std::fs::write(&set, tsv).unwrap();
    let run = shallow_run().to_str().unwrap().to_string();
    let solve = |jobs: &str| -> String {
        let label = format!("jobs{jobs}");
        let (code, _, err) = solve_cli(&[
            "--run",
            &run,
            "--testset",
            set.to_str().unwrap(),
            "--beam-log2",
            "4..5",
            "--max-depth",
            "5",
            "--jobs",
            jobs,
            "--label",
            &label,
        ]);
        assert_eq!(code, 0, "{err}");
        let dir = shallow_run().join("solve").join(&label);
        let summary = std::fs::read_to_string(dir.join("summary.csv")).unwrap();
        assert!(summary.lines().next().unwrap().ends_with(",wall_s_per_instance,matmul"), "{summary}");
        // Everything up to the timings: width, id, status, solution, lengths, node counts.
        let inst = std::fs::read_to_string(dir.join("instances.csv")).unwrap();
        inst.lines().map(|l| l.split(',').take(12).collect::<Vec<_>>().join(",") + "\n").collect()
    };
    let one = solve("1");
    assert_eq!(one.lines().count(), 1 + 2 * 12);
    assert!(one.lines().skip(1).all(|l| l.contains(",true,")), "every 3-turn cube is solved:\n{one}");
    assert_eq!(solve("3"), one, "three workers must find exactly the solutions one finds, in instance order");
}

/// A test set whose optimal column cannot be right is refused: a third
/// column under another name (e.g. half-turn lengths) before anything is
/// searched, and an optimal length longer than a replayed solution when
/// the solution is found, with nothing written for that width.
#[test]
fn a_test_set_with_wrong_optimal_lengths_is_refused() {
    let run = shallow_run().to_str().unwrap().to_string();
    let solved = Cube3::SOLVED.to_facelets();
    let set = |name: &str, text: String| {
        let path = shallow_run().join(name);
        std::fs::write(&path, text).unwrap();
        path.to_string_lossy().to_string()
    };
    let htm = set("htm.tsv", format!("id\tfacelets\toptimal_htm\nc\t{solved}\t5\n"));
    let (code, _, err) = solve_cli(&["--run", &run, "--testset", &htm, "--beam-width", "4", "--label", "htm"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("line 1: column 3 is `optimal_htm`, expected `optimal_qtm`"), "{err}");
    assert!(!shallow_run().join("solve/htm").exists());
    // The goal with a length, a scrambled cube with none: refused as read.
    let r = Cube3::from_turns(&cube_oracle::cube3::notation::parse("R").unwrap()).to_facelets();
    for (label, row, expected) in [
        (
            "seven",
            format!("solved\t{solved}\t7"),
            "instance solved: is the goal, but its set gives it optimal length 7",
        ),
        ("zero", format!("r\t{r}\t0"), "instance r: has optimal length 0 in its set, but it is not the goal"),
    ] {
        let path = set(&format!("{label}.tsv"), format!("id\tfacelets\toptimal_qtm\n{row}\n"));
        let (code, _, err) = solve_cli(&["--run", &run, "--testset", &path, "--beam-width", "4", "--label", label]);
        assert_eq!(code, 1, "{err}");
        assert!(err.contains(expected), "{err}");
        assert!(!shallow_run().join("solve").join(label).exists());
    }
    // One quarter turn given 3 moves: the replayed solution proves the set wrong.
    let three = set("three.tsv", format!("id\tfacelets\toptimal_qtm\nr\t{r}\t3\n"));
    let (code, _, err) = solve_cli(&["--run", &run, "--testset", &three, "--beam-width", "4", "--label", "three"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("instance r: a replayed solution of 1 moves is shorter than the optimal length"), "{err}");
    assert!(!shallow_run().join("solve/three/instances.csv").exists());
}

/// `solve replot` redraws a shipped sweep's plots from its tables: the
/// length plot names the oracle, EfficientCube's table and the optimal
/// mean of DeepCubeA's 1000 cubes (20.637, shown as 20.64), on 2^k ticks;
/// a folder that is not a finished oracle sweep is refused, naming the rule.
#[test]
fn replot_redraws_a_shipped_sweep_from_its_tables() {
    let root = std::env::temp_dir().join(format!("cube-oracle-replot-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("runs/cube3-q-long/solve/deepcubea-w7..10");
    let dir = root.join("sweep");
    std::fs::create_dir_all(&dir).unwrap();
    // The tables and the marker that says `solve` finished the folder.
    for table in ["instances.csv", "summary.csv", "scaling.csv", cube_oracle::folder::MARKER] {
        std::fs::copy(from.join(table), dir.join(table)).unwrap();
    }
    let solve = |args: &[&Path]| {
        let o = crate::common::command(env!("CARGO_BIN_EXE_solve")).arg("replot").args(args).output().unwrap();
        (o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stderr).to_string())
    };
    // The shipped folder keeps no depths.csv; given one, the traces of the
    // widest width are drawn too.
    let mut depths = String::from("width,id,depth,entropy\n");
    for id in 0..3 {
        for depth in 0..5 {
            depths.push_str(&format!("1024,{id},{depth},{}\n", f64::from(depth) * 0.5));
        }
    }
    std::fs::write(dir.join("depths.csv"), depths).unwrap();
    let (code, err) = solve(&[&dir]);
    assert_eq!(code, 0, "{err}");
    for plot in ["length_vs_width", "optimal_vs_width", "time_vs_width", "entropy_vs_length", "entropy_vs_depth"] {
        for ext in ["png", "svg"] {
            let len = std::fs::metadata(dir.join("plots").join(format!("{plot}.{ext}"))).map_or(0, |m| m.len());
            assert!(len > 1000, "{plot}.{ext}: {len} bytes");
        }
    }
    let svg = std::fs::read_to_string(dir.join("plots/length_vs_width.svg")).unwrap();
    for label in ["cube3-q-long", "EfficientCube (published)", "optimal mean (20.64)", "2^10"] {
        assert!(svg.contains(label), "the length plot has no `{label}`");
    }
    assert!(!svg.contains("this oracle") && !svg.contains(">8.0<"), "the old legend or decimal ticks remain");
    // Some cubes stay unsolved at every width from 2^7 to 2^10 (99.6% at
    // 2^10), and the width law is fitted only where all are solved.
    assert!(!svg.contains("fitted"), "a width law fitted over partly solved widths");
    // Refused: an unfinished folder, and a classical sweep (no oracle).
    std::fs::write(dir.join(".cube-oracle-output"), "made by = solve\nstate = incomplete\n").unwrap();
    let (code, err) = solve(&[&dir]);
    assert!(code == 1 && err.contains("finished solve folder"), "{code}: {err}");
    std::fs::write(dir.join(".cube-oracle-output"), "made by = solve\nstate = complete\n").unwrap();
    let summary = std::fs::read_to_string(dir.join("summary.csv")).unwrap();
    std::fs::write(dir.join("summary.csv"), summary.replace("oracle:cube3-q-long", "manhattan")).unwrap();
    let (code, err) = solve(&[&dir]);
    assert!(code == 1 && err.contains("plots of an oracle sweep") && err.contains("manhattan"), "{code}: {err}");
    let (code, err) = solve(&[&root.join("nowhere")]);
    assert!(code == 1 && err.contains("nowhere: no such folder"), "{code}: {err}");
    let _ = std::fs::remove_dir_all(&root);
}

/// The library's sweep returns what it wrote: each width's summary is
/// `summary.csv`'s row, each record `instances.csv`'s, and every solution
/// it reports replays to solved.
#[test]
fn a_sweep_returns_the_rows_it_writes_and_its_solutions_replay() {
    use cube_oracle::csvlog::read_columns;
    use cube_oracle::solve::{SolveOptions, input::Input};
    let out = std::env::temp_dir().join(format!("cube-oracle-solve-typed-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let opts = SolveOptions {
        run_dir: shallow_run().clone(),
        checkpoint: None,
        puzzle: None,
        input: Input::Scramble("R U F'".into()),
        widths: vec![4, 16],
        exact: false,
        max_depth: Some(6),
        dedup: true,
        metric: None,
        out_root: Some(out.clone()),
        label: Some("typed".into()),
        overwrite: false,
        progress: false,
        escalate_to: 0,
        jobs: 1,
        device: None,
        matmul: cube_oracle::learn::config::Matmul::F32,
        symmetry: 1,
        kind: None,
    };
    let solved = cube_oracle::solve::run(&opts).unwrap();
    assert_eq!(solved.dir, out.join("typed"));
    let cols = ["width", "instances", "solved_pct", "mean_length", "mean_forwards"];
    let table = read_columns(&solved.dir.join("summary.csv"), &cols).unwrap();
    assert_eq!(solved.widths.len(), 2);
    for (i, w) in solved.widths.iter().enumerate() {
        let s = &w.summary;
        let same = |a: f64, b: f64| (a.is_nan() && b.is_nan()) || (a - b).abs() <= 1e-9 * b.abs().max(1.0);
        assert_eq!((s.width as f64, s.instances as f64), (table[0][i], table[1][i]));
        assert!(same(s.solved_pct, table[2][i]) && same(s.mean_length, table[3][i]), "{s:?}");
        assert!(same(w.mean_forwards, table[4][i]) && w.mean_forwards > 0.0, "{w:?}");
    }
    assert_eq!(solved.records.iter().map(|r| r.width).collect::<Vec<_>>(), [4, 16]);
    let written = std::fs::read_to_string(solved.dir.join("instances.csv")).unwrap();
    assert_eq!(written.lines().count(), 1 + solved.records.len());
    // The model was trained on walks of up to 3 turns: it solves this one,
    // and every solution it returns undoes the scramble.
    let parse = |t: &str| cube_oracle::cube3::notation::parse(t).unwrap();
    for r in &solved.records {
        assert_eq!(r.length, Some(3), "{r:?}");
        let mut c = Cube3::from_turns(&parse("R U F'"));
        c.apply_turns(&parse(&r.solution));
        assert!(c.is_solved(), "{} does not undo R U F'", r.solution);
        assert!(written.contains(&r.solution));
    }
    std::fs::remove_dir_all(&out).unwrap();
}
