//! `solve --matmul bf16`: a Q-distance cube oracle trained here for
//! seconds searches the same seeded cubes with f32 and with bf16 products
//! (every solution replayed by `solve`): the same share is solved, the
//! mean length is within a small tolerance of f32's, the kernel that ran is
//! named on one line, and `summary.csv` records the choice in its last
//! column; bf16 also serves each `--jobs` worker and the symmetric
//! ensemble, and its rounded-f32 fallback solves as the kernel does. The
//! same for int8 products in the compiled network.

use cube_oracle::cube3::{Cube3, Cube3Puzzle, Metric};
use cube_oracle::learn::config::{LengthSpec, TrainConfig};
use cube_oracle::learn::inference::Bf16Route;
use cube_oracle::learn::training::{self, TrainOptions};
use cube_oracle::puzzle::Puzzle;
use cube_oracle::rundir::Existing;
use cube_oracle::search::OracleKind;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The cubes searched.
const CUBES: usize = 24;

/// A Q-distance oracle trained on walks of 1..=8 quarter turns (seed 1).
fn trained_run(out: &Path) -> PathBuf {
    let mut cfg = TrainConfig::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/smoke.toml")).unwrap();
    cfg.run.out_dir = out.to_path_buf();
    cfg.run.name = "q".into();
    cfg.model.kind = OracleKind::QDistance;
    cfg.data.scramble_len = LengthSpec::Range { min: 1, max: 8 };
    cfg.model.hidden = vec![256];
    cfg.optim.lr = 3e-3;
    cfg.train.steps = Some(800);
    cfg.train.eval_every = 800;
    cfg.train.checkpoint_every = 800;
    cfg.train.threads = Some(1);
    training::run(&cfg, &TrainOptions::new(Existing::Refuse)).unwrap();
    out.join("q")
}

/// `CUBES` cubes 6 to 8 quarter turns from solved, from a fixed linear
/// congruential sequence of moves, as a TSV test set.
fn cubes(path: &Path) {
    let p = Cube3Puzzle::new(Metric::Qtm);
    let mut x: u64 = 12345;
    let mut tsv = String::from("id\tfacelets\n");
    for i in 0..CUBES {
        let mut c = Cube3::SOLVED;
        for _ in 0..6 + i % 3 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            p.apply(&mut c, ((x >> 33) % 12) as u8);
        }
        tsv.push_str(&format!("c{i}\t{}\n", c.to_facelets()));
    }
    std::fs::write(path, tsv).unwrap();
}

/// One CSV as rows of named fields.
fn table(path: &Path) -> Vec<HashMap<String, String>> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    let head: Vec<String> = lines.next().unwrap().split(',').map(String::from).collect();
    lines.map(|l| head.iter().cloned().zip(l.split(',').map(String::from)).collect()).collect()
}

/// What one `solve` reported.
struct Solved {
    stderr: String,
    header: String,
    summary: HashMap<String, String>,
    /// Per cube, its solution's length (`None`: unsolved).
    lengths: Vec<Option<f64>>,
    /// Per cube, its solution's moves (empty: unsolved).
    solutions: Vec<String>,
}

impl Solved {
    fn solved_share(&self) -> f64 {
        self.lengths.iter().filter(|l| l.is_some()).count() as f64 / self.lengths.len() as f64
    }

    fn mean_length(&self) -> f64 {
        let l: Vec<f64> = self.lengths.iter().flatten().copied().collect();
        l.iter().sum::<f64>() / l.len().max(1) as f64
    }
}

/// `solve beam` at 2^6 with `extra` flags, the kernel variables unset but
/// for `kernels` (`[(variable, value)]`).
fn solve(run: &Path, set: &Path, out: &Path, label: &str, extra: &[&str], kernels: &[(&str, &str)]) -> Solved {
    let mut cmd = crate::common::command(env!("CARGO_BIN_EXE_solve"));
    cmd.args(["beam", "--run", run.to_str().unwrap(), "--testset", set.to_str().unwrap()]);
    cmd.args(["--beam-log2", "6", "--max-depth", "10", "--out", out.to_str().unwrap(), "--label", label]);
    cmd.args(extra);
    cmd.env_remove("CUBE_ORACLE_BF16_KERNEL").env_remove("CUBE_ORACLE_F32_KERNEL");
    for (var, value) in kernels {
        cmd.env(var, value);
    }
    let o = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(0), "solve {extra:?}: {stderr}");
    let dir = out.join(label);
    let header = std::fs::read_to_string(dir.join("summary.csv")).unwrap().lines().next().unwrap().to_string();
    let mut summary = table(&dir.join("summary.csv"));
    assert_eq!(summary.len(), 1, "one width");
    let rows = table(&dir.join("instances.csv"));
    assert_eq!(rows.len(), CUBES);
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(r["id"], format!("c{i}"), "instances in order");
    }
    let lengths = rows.iter().map(|r| (r["status"] == "solved").then(|| r["length"].parse::<f64>().unwrap())).collect();
    let solutions = rows.iter().map(|r| r["solution"].clone()).collect();
    Solved { stderr, header, summary: summary.remove(0), lengths, solutions }
}

/// `solve beam` of one cube with `extra` flags and `CUBE_ORACLE_F32_KERNEL`
/// set to `kernel`, which must be refused: exit code 1, one line on
/// standard error (returned), nothing written.
fn refused(run: &Path, out: &Path, extra: &[&str], env: &[(&str, &str)]) -> String {
    let o = crate::common::command(env!("CARGO_BIN_EXE_solve"))
        .args(["beam", "--run", run.to_str().unwrap(), "--scramble", "R U", "--beam-width", "4"])
        .args(extra)
        .args(["--out", out.join("refused").to_str().unwrap()])
        .env_remove("CUBE_ORACLE_INT8_KERNEL")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(!out.join("refused").exists(), "nothing solved");
    err
}

/// A fresh temporary folder named after `name`, with the trained run, the
/// cubes' test set and the folder for `solve`'s outputs in it.
fn setup(name: &str) -> (PathBuf, PathBuf, PathBuf, PathBuf) {
    let out = std::env::temp_dir().join(format!("cube-oracle-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let run = trained_run(&out);
    let set = out.join("cubes.tsv");
    cubes(&set);
    let results = out.join("solve");
    (out, run, set, results)
}

#[test]
fn bf16_products_solve_as_f32_does() {
    let (out, run, set, results) = setup("inference-precision");

    // A kernel asked for by the environment is checked, or the test fails.
    let asked = std::env::var("CUBE_ORACLE_BF16_KERNEL").ok();
    if let Some(k) = asked.as_deref().filter(|&k| k != "none") {
        let have: Vec<&str> = cube_oracle::kernels::gemm::Kernel::all_available().iter().map(|k| k.name()).collect();
        assert!(have.contains(&k), "asked to check the {k} bf16 kernel, which this CPU lacks (it has {have:?})");
    }
    let bf16_env: Vec<(&str, &str)> = asked.as_deref().map(|k| ("CUBE_ORACLE_BF16_KERNEL", k)).into_iter().collect();
    let f32 = solve(&run, &set, &results, "f32", &["--matmul", "f32"], &[]);
    let bf16 = solve(&run, &set, &results, "bf16", &["--matmul", "bf16"], &bf16_env);
    // f32 is the default, and says nothing about bf16.
    let default = solve(&run, &set, &results, "default", &[], &[]);
    assert!(!f32.stderr.contains("bf16 products") && !default.stderr.contains("bf16 products"), "{}", f32.stderr);
    assert_eq!(default.lengths, f32.lengths, "the default is f32");

    // Where the products run is named (this CPU's bf16 unit, rounded operands where it has none).
    let route = Bf16Route::resolve_from(None, asked.as_deref()).expect("a route").describe();
    assert!(bf16.stderr.contains(&format!("bf16 products on {route}\n")), "{}", bf16.stderr);
    // The choice is the last column of summary.csv, after the core and the oracle's own.
    let core = cube_oracle::solve::record::SUMMARY_COLUMNS.join(",");
    for (s, want) in [(&f32, "f32"), (&bf16, "bf16"), (&default, "f32")] {
        assert!(s.header.starts_with(&format!("{core},kind,symmetry,")), "{}", s.header);
        assert!(s.header.ends_with(",wall_s_per_instance,matmul"), "{}", s.header);
        assert_eq!(s.summary["matmul"], want);
    }

    // The trained oracle solves these cubes in either precision, by
    // nearly the same paths.
    assert!(f32.solved_share() >= 0.75, "f32 solved {:?}", f32.lengths);
    assert_eq!(bf16.solved_share(), f32.solved_share(), "bf16 {:?} against f32 {:?}", bf16.lengths, f32.lengths);
    let (a, b) = (f32.mean_length(), bf16.mean_length());
    eprintln!(
        "solved: f32 {:.3}, bf16 {:.3}; mean length: f32 {a:.3}, bf16 {b:.3}",
        f32.solved_share(),
        bf16.solved_share()
    );
    assert!((a - b).abs() <= 0.25, "mean length: f32 {a}, bf16 {b}");
    assert_eq!(bf16.summary["solved_pct"], f32.summary["solved_pct"]);

    // Two workers, each with its copy of the bf16 network, and a symmetric
    // ensemble of four over it.
    let sym =
        solve(&run, &set, &results, "bf16-sym", &["--matmul", "bf16", "--jobs", "2", "--symmetry", "4"], &bf16_env);
    assert_eq!((sym.summary["matmul"].as_str(), sym.summary["symmetry"].as_str()), ("bf16", "4"));
    assert!(sym.solved_share() >= f32.solved_share() - 0.05, "ensemble: {:?}", sym.lengths);
    let two = solve(&run, &set, &results, "bf16-jobs2", &["--matmul", "bf16", "--jobs", "2"], &bf16_env);
    assert_eq!(two.lengths, bf16.lengths, "two bf16 workers find what one finds");

    // The fallback of a CPU without a bf16 unit: operands rounded, f32 products.
    let rounded =
        solve(&run, &set, &results, "bf16-rounded", &["--matmul", "bf16"], &[("CUBE_ORACLE_BF16_KERNEL", "none")]);
    let route = Bf16Route::resolve_from(None, Some("none")).expect("a route").describe();
    assert!(route.contains("rounded"), "{route}");
    assert!(rounded.stderr.contains(&format!("bf16 products on {route}\n")), "{}", rounded.stderr);
    assert_eq!(rounded.solved_share(), bf16.solved_share());
    let c = rounded.mean_length();
    eprintln!(
        "rounded f32: solved {:.3}, mean length {c:.3}; ensemble: solved {:.3}",
        rounded.solved_share(),
        sym.solved_share()
    );
    assert!((c - b).abs() <= 0.25, "mean length: rounded f32 {c}, bf16 kernel {b}");
    let _ = std::fs::remove_dir_all(&out);
}

/// bf16 products find the same path to every cube wherever they run:
/// the compiled network on each kernel this CPU runs (the bf16 unit's
/// `vdpbf16ps` on avx512, rounded operands in the f32 products on avx2
/// and in the portable code) and burn's operations on rounded operands
/// compute one function up to the order of f32 sums, which moves no
/// choice of these beams. A kernel `CUBE_ORACLE_F32_KERNEL` asks for is
/// checked, or the test fails where the CPU lacks it.
#[test]
fn bf16_products_find_the_same_paths_on_every_kernel() {
    use cube_oracle::kernels::compiled::kernel::Kernel;
    let (out, run, set, results) = setup("bf16-paths");
    let have: Vec<&str> = Kernel::ALL.into_iter().filter(|k| k.available()).map(|k| k.name()).collect();
    if let Ok(k) = std::env::var("CUBE_ORACLE_F32_KERNEL") {
        assert!(have.contains(&k.as_str()) || k == "burn", "asked to check the {k} kernel, which this CPU lacks");
    }
    let bf16 = ["--matmul", "bf16"];
    let burn = solve(
        &run,
        &set,
        &results,
        "burn",
        &bf16,
        &[("CUBE_ORACLE_F32_KERNEL", "burn"), ("CUBE_ORACLE_BF16_KERNEL", "none")],
    );
    assert!(burn.stderr.contains("bf16 products on burn (rounded f32)\n"), "{}", burn.stderr);
    assert!(burn.solved_share() >= 0.75, "burn solved {:?}", burn.lengths);
    for k in have {
        let s = solve(&run, &set, &results, k, &bf16, &[("CUBE_ORACLE_F32_KERNEL", k)]);
        let route = Bf16Route::resolve_from(Some(k), None).expect("a route").describe();
        assert!(s.stderr.contains(&format!("bf16 products on {route}\n")), "{k}: {}", s.stderr);
        assert_eq!(s.solutions, burn.solutions, "{k} against burn's rounded operands");
        assert_eq!(s.summary["matmul"], "bf16");
    }
    let _ = std::fs::remove_dir_all(&out);
}

/// `solve --matmul int8`: the compiled network with integer products
/// solves the seeded cubes as f32 does (the same share, the mean length
/// within 0.25), names its kernel on one line and records `int8` in
/// `summary.csv`; two workers find what one finds (each row is quantised
/// on its own, so a batch's company changes nothing), the symmetric
/// ensemble runs on it, the portable code solves as the AVX2 kernel does
/// (the same integer sums), and burn's path, which has no integer
/// products, is refused in one line. A kernel `CUBE_ORACLE_F32_KERNEL`
/// asks for is checked, or the test fails where the CPU lacks it; so are
/// AMX tiles where `CUBE_ORACLE_INT8_KERNEL=amx` asks for them.
#[test]
fn int8_products_solve_as_f32_does() {
    use cube_oracle::kernels::compiled::{int8, kernel::Kernel};
    let (out, run, set, results) = setup("int8-products");
    let have: Vec<&str> = Kernel::ALL.into_iter().filter(|k| k.available()).map(|k| k.name()).collect();
    let asked = std::env::var("CUBE_ORACLE_F32_KERNEL").ok().filter(|k| k != "burn");
    if let Some(k) = asked.as_deref() {
        assert!(have.contains(&k), "asked to check the {k} kernel, which this CPU lacks (it has {have:?})");
    }
    // The kernel the children run: the one asked for, else the best (burn's path, asked for here, is refused below).
    let f32_kernel = asked
        .as_deref()
        .map_or(Kernel::best(), |k| Kernel::ALL.into_iter().find(|c| c.name() == k).expect("a kernel named above"));
    // What multiplies the integers: CUBE_ORACLE_INT8_KERNEL's unit (AMX tiles, asked for, must exist);
    // unset, the vector instructions are checked here (the default's choice is the library's tests').
    let unit = int8::requested_unit(f32_kernel).unwrap_or_else(|why| panic!("{why}")).unwrap_or(int8::Unit::Vector);
    let kernel = int8::unit_name(f32_kernel, unit);
    let unit_var = if unit == int8::Unit::AmxTiles { "amx" } else { "vector" };
    let mut env: Vec<(&str, &str)> = asked.as_deref().map(|k| ("CUBE_ORACLE_F32_KERNEL", k)).into_iter().collect();
    env.push(("CUBE_ORACLE_INT8_KERNEL", unit_var));
    let f32 = solve(&run, &set, &results, "f32", &["--matmul", "f32"], &env);
    let int8 = solve(&run, &set, &results, "int8", &["--matmul", "int8"], &env);
    assert!(!f32.stderr.contains("int8 products"), "{}", f32.stderr);
    assert!(int8.stderr.contains(&format!("int8 products on {kernel}\n")), "{}", int8.stderr);
    assert_eq!(int8.summary["matmul"], "int8");

    assert!(f32.solved_share() >= 0.75, "f32 solved {:?}", f32.lengths);
    assert_eq!(int8.solved_share(), f32.solved_share(), "int8 {:?} against f32 {:?}", int8.lengths, f32.lengths);
    let (a, b) = (f32.mean_length(), int8.mean_length());
    eprintln!("mean length: f32 {a:.3}, int8 {b:.3}");
    assert!((a - b).abs() <= 0.25, "mean length: f32 {a}, int8 {b}");

    let two = solve(&run, &set, &results, "int8-jobs2", &["--matmul", "int8", "--jobs", "2"], &env);
    assert_eq!(two.lengths, int8.lengths, "two int8 workers find what one finds");
    let sym = solve(&run, &set, &results, "int8-sym", &["--matmul", "int8", "--symmetry", "4"], &env);
    assert_eq!((sym.summary["matmul"].as_str(), sym.summary["symmetry"].as_str()), ("int8", "4"));
    assert!(sym.solved_share() >= f32.solved_share() - 0.05, "ensemble: {:?}", sym.lengths);
    for k in have {
        // AMX tiles, if asked for, run inside the avx512 kernel only.
        let env = [
            ("CUBE_ORACLE_F32_KERNEL", k),
            ("CUBE_ORACLE_INT8_KERNEL", if k == "avx512" { unit_var } else { "vector" }),
        ];
        let s = solve(&run, &set, &results, &format!("int8-{k}"), &["--matmul", "int8"], &env);
        assert_eq!(s.solved_share(), int8.solved_share(), "{k}");
        assert!((s.mean_length() - b).abs() <= 0.1, "{k}: mean length {} against {b}", s.mean_length());
    }

    let err = refused(&run, &out, &["--matmul", "int8"], &[("CUBE_ORACLE_F32_KERNEL", "burn")]);
    assert!(err.contains("CUBE_ORACLE_F32_KERNEL=burn"), "{err}");
    let err = refused(&run, &out, &["--matmul", "int8"], &[("CUBE_ORACLE_INT8_KERNEL", "tiles")]);
    assert!(err.contains("CUBE_ORACLE_INT8_KERNEL=\"tiles\" is not a unit"), "{err}");
    if !int8::Unit::AmxTiles.available() {
        let err = refused(&run, &out, &["--matmul", "int8"], &[("CUBE_ORACLE_INT8_KERNEL", "amx")]);
        assert!(err.contains("CUBE_ORACLE_INT8_KERNEL=amx"), "{err}");
    }
    let _ = std::fs::remove_dir_all(&out);
}

/// The compiled f32 network (each kernel this CPU runs) and burn's own
/// operations find the same path to every cube: their forwards differ by
/// float rounding only (sums in another order), which moves no choice of
/// these beams. A kernel `CUBE_ORACLE_F32_KERNEL` asks for is checked, or
/// the test fails where the CPU lacks it.
#[test]
fn compiled_kernels_find_the_paths_burn_finds() {
    let (out, run, set, results) = setup("compiled-paths");
    let f32_env = |k: &'static str| [("CUBE_ORACLE_F32_KERNEL", k)];
    let burn = solve(&run, &set, &results, "burn", &[], &f32_env("burn"));
    assert!(burn.solved_share() >= 0.75, "burn solved {:?}", burn.lengths);
    let mut kernels: Vec<&str> = cube_oracle::kernels::compiled::kernel::Kernel::ALL
        .into_iter()
        .filter(|k| k.available())
        .map(|k| k.name())
        .collect();
    if let Ok(k) = std::env::var("CUBE_ORACLE_F32_KERNEL") {
        assert!(
            kernels.contains(&k.as_str()) || k == "burn",
            "asked to check the {k} f32 kernel, which this CPU lacks"
        );
    }
    assert!(kernels.contains(&"portable"));
    let default = solve(&run, &set, &results, "default", &[], &[]);
    kernels.sort_unstable();
    for k in kernels {
        let s = solve(&run, &set, &results, k, &[], &f32_env(k));
        assert_eq!(s.solutions, burn.solutions, "{k} against burn");
        assert_eq!(s.summary["matmul"], "f32");
    }
    assert_eq!(default.solutions, burn.solutions, "the default kernel against burn");
    // An unknown kernel is refused in one line, naming the variable.
    let err = refused(&run, &out, &[], &[("CUBE_ORACLE_F32_KERNEL", "turbo")]);
    assert!(err.contains("CUBE_ORACLE_F32_KERNEL") && err.contains("turbo"), "{err}");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn bad_matmul_values_are_refused() {
    let o = crate::common::command(env!("CARGO_BIN_EXE_solve"))
        .args(["beam", "--matmul", "f16", "--scramble", "R U"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("[possible values: f32, bf16, int8]"), "{err}");
    // The flag belongs to the oracle's modes only.
    let o = crate::common::command(env!("CARGO_BIN_EXE_solve"))
        .args(["classical", "bfs", "--matmul", "bf16", "--scramble", "R"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
}
