//! End-to-end tests of `train`: the smoke run writes every file with the
//! right headers, a depth-1–2 model learns depth-1 states, resuming equals
//! an uninterrupted run, and bad input gives specific errors.

use cube_oracle::learn::config::{LengthSpec, Matmul, Ops, TrainConfig};
use cube_oracle::learn::training::{self, TrainOptions};
use cube_oracle::rundir::Existing;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::column;

fn smoke(out: &Path, name: &str) -> TrainConfig {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/smoke.toml");
    let mut cfg = TrainConfig::load(&path).unwrap();
    cfg.run.out_dir = out.to_path_buf();
    cfg.run.name = name.to_string();
    cfg.train.threads = Some(1);
    cfg
}

fn opts(existing: Existing, max_steps: Option<u64>) -> TrainOptions {
    TrainOptions { max_steps_this_leg: max_steps, ..TrainOptions::new(existing) }
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cube-oracle-train-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn header(path: &Path) -> String {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .next()
        .unwrap()
        .to_string()
}

#[test]
fn smoke_run_writes_every_file() {
    let out = tmp("smoke");
    let cfg = smoke(&out, "smoke");
    let o = training::run(&cfg, &opts(Existing::Refuse, None)).unwrap();
    assert_eq!((o.step, o.stopped_early), (40, false));
    let dir = out.join("smoke");
    assert_eq!(header(&dir.join("metrics.csv")), "step,samples,elapsed_s,lr,loss,accuracy,samples_per_s");
    assert_eq!(header(&dir.join("eval.csv")), "step,depth,states,accuracy,cross_entropy");
    assert_eq!(
        header(&dir.join("kl.csv")),
        "step,cross_entropy,kl_target_prediction,kl_marginal_uniform,kl_previous_snapshot"
    );
    assert_eq!(column(&dir.join("metrics.csv"), "step").len(), 8, "a row every 5 steps");
    assert_eq!(column(&dir.join("eval.csv"), "depth").len(), 2 * 8, "8 depths at 2 evaluations");
    // The resolved config round-trips and equals what was run.
    assert_eq!(TrainConfig::load(&dir.join("config.toml")).unwrap(), cfg);
    let meta: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("meta.json")).unwrap()).unwrap();
    for key in [
        "git_revision",
        "build_revision",
        "command_line",
        "seed",
        "backend",
        "device",
        "crate_versions",
        "samples_done",
    ] {
        assert!(meta.get(key).is_some(), "meta.json lacks {key}");
    }
    // The executable's own revision: this checkout's commit, `-dirty` when
    // its code differs from it (the test runs in a git checkout).
    let git = |args: &[&str]| {
        let out =
            std::process::Command::new("git").args(args).current_dir(env!("CARGO_MANIFEST_DIR")).output().unwrap();
        assert!(out.status.success(), "git {args:?} failed: the tests run in a git checkout");
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    };
    let head = git(&["rev-parse", "HEAD"]);
    let mut status = vec!["status", "--porcelain", "--untracked-files=no", "--"];
    status.extend(cube_oracle::revision::CODE);
    let code = git(&status);
    let want = if code.is_empty() { head } else { format!("{head}-dirty") };
    assert_eq!(meta["build_revision"], want.as_str());
    assert_eq!(meta["legs"][0]["build_revision"], want.as_str());
    assert_eq!(meta["samples_done"], 40 * 256);
    assert_eq!(meta["complete"], true);
    assert!(dir.join("checkpoints").join("step-00000040.ckpt").exists());
    for f in ["visits.csv", "marginals.csv", "certainty.csv", "cumulative.csv", "summary.json"] {
        assert!(dir.join("diagnostics").join(f).exists(), "diagnostics/{f}");
    }
    assert_eq!(header(&dir.join("diagnostics/visits.csv")), "visit_count,states");
    assert_eq!(header(&dir.join("diagnostics/marginals.csv")), "move,predicted,label_frequency,uniform");
    for p in ["cross_entropy", "accuracy", "kl", "eval_by_depth", "visits", "marginals", "certainty", "cumulative"] {
        for ext in ["png", "svg"] {
            let f = dir.join("plots").join(format!("{p}.{ext}"));
            assert!(std::fs::metadata(&f).map(|m| m.len() > 1000).unwrap_or(false), "{}", f.display());
        }
    }
    // The KL of a one-hot target equals the cross-entropy.
    let ce = column(&dir.join("kl.csv"), "cross_entropy");
    let klt = column(&dir.join("kl.csv"), "kl_target_prediction");
    for (a, b) in ce.iter().zip(&klt) {
        let (a, b): (f64, f64) = (a.parse().unwrap(), b.parse().unwrap());
        assert!((a - b).abs() < 1e-6 * a.abs().max(1.0));
    }
    // Training lowered the loss below uniform guessing (ln 12 = 2.48).
    let loss: Vec<f64> = column(&dir.join("metrics.csv"), "loss").iter().map(|s| s.parse().unwrap()).collect();
    assert!(loss.last().unwrap() < &2.3, "loss {loss:?}");
    std::fs::remove_dir_all(&out).unwrap();
}

/// In f32 and with bf16 products (`backend.matmul`, on this machine's bf16
/// unit or as rounded f32 operands), a depth-1–2 model learns depth 1.
#[test]
fn shallow_training_learns_depth_one_exactly() {
    let out = tmp("depth1");
    for matmul in [Matmul::F32, Matmul::Bf16] {
        let name = format!("depth1-{}", matmul.name());
        let mut cfg = smoke(&out, &name);
        cfg.data.scramble_len = LengthSpec::Range { min: 1, max: 2 };
        cfg.model.hidden = vec![128];
        cfg.optim.lr = 3e-3;
        cfg.train.steps = Some(150);
        cfg.train.eval_every = 150;
        cfg.train.checkpoint_every = 150;
        cfg.backend.matmul = matmul;
        training::run(&cfg, &opts(Existing::Refuse, None)).unwrap();
        let eval = out.join(&name).join("eval.csv");
        let depth = column(&eval, "depth");
        let acc = column(&eval, "accuracy");
        let d1: f64 = acc[depth.iter().position(|d| d == "1").unwrap()].parse().unwrap();
        assert!(d1 >= 0.95, "{name}: depth-1 accuracy {d1}");
        let meta: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join(&name).join("meta.json")).unwrap()).unwrap();
        assert!(meta["matmul"].as_str().unwrap().starts_with(matmul.name()), "{name}: {}", meta["matmul"]);
    }
    std::fs::remove_dir_all(&out).unwrap();
}

/// A seeded run on the project's fused kernels (`backend.ops = "fused"`,
/// the default) follows the same run on burn's own operations step by
/// step: the logged losses agree to 1e-3 relative over 60 steps of f32
/// products (only the order of f32 sums differs), and `meta.json` names
/// the operations each ran.
#[test]
fn the_fused_step_follows_burns_own_operations() {
    let out = tmp("ops");
    let mut losses = Vec::new();
    for ops in [Ops::Fused, Ops::Burn] {
        let name = format!("ops-{}", ops.name());
        let mut cfg = smoke(&out, &name);
        cfg.train.steps = Some(60);
        cfg.train.log_every = 5;
        cfg.backend.ops = Some(ops);
        training::run(&cfg, &opts(Existing::Refuse, None)).unwrap();
        let loss: Vec<f64> =
            column(&out.join(&name).join("metrics.csv"), "loss").iter().map(|s| s.parse().unwrap()).collect();
        losses.push(loss);
        let meta: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join(&name).join("meta.json")).unwrap()).unwrap();
        assert!(meta["ops"].as_str().unwrap().starts_with(ops.name()), "{name}: {}", meta["ops"]);
    }
    assert_eq!(losses[0].len(), 12);
    for (step, (a, b)) in losses[0].iter().zip(&losses[1]).enumerate() {
        assert!((a - b).abs() <= 1e-3 * b.abs(), "log {step}: fused {a}, burn {b}");
    }
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn resuming_gives_the_same_metrics_as_an_uninterrupted_run() {
    let out = tmp("resume");
    let whole = smoke(&out, "whole");
    training::run(&whole, &opts(Existing::Refuse, None)).unwrap();
    let legs = smoke(&out, "legs");
    let first = training::run(&legs, &opts(Existing::Refuse, Some(17))).unwrap();
    assert_eq!((first.step, first.stopped_early), (17, true));
    // The most steps a leg can be asked for: the rest of the run, no overflow.
    let second = training::run(&legs, &opts(Existing::Resume, Some(u64::MAX))).unwrap();
    assert_eq!((second.step, second.stopped_early, second.interrupted), (40, false, false));
    for (file, cols) in [
        ("metrics.csv", &["step", "samples", "lr", "loss", "accuracy"][..]),
        ("eval.csv", &["step", "depth", "accuracy", "cross_entropy"][..]),
        ("kl.csv", &["step", "cross_entropy", "kl_marginal_uniform", "kl_previous_snapshot"][..]),
    ] {
        for c in cols {
            assert_eq!(
                column(&out.join("whole").join(file), c),
                column(&out.join("legs").join(file), c),
                "{file}: {c}"
            );
        }
    }
    // meta.json has one entry per leg, each with the steps it covered.
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("legs").join("meta.json")).unwrap()).unwrap();
    let spans: Vec<(u64, u64)> = meta["legs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["started_at_step"].as_u64().unwrap(), l["ended_at_step"].as_u64().unwrap()))
        .collect();
    assert_eq!(spans, [(0, 17), (17, 40)], "{meta:#}");
    // Each leg names its arithmetic: products and tensor precision.
    for leg in meta["legs"].as_array().unwrap() {
        assert_eq!((leg["matmul"].as_str(), leg["precision"].as_str()), (Some("f32"), Some("f32")), "{leg:#}");
    }
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn extending_a_warmup_cosine_run_says_where_its_learning_rate_moves() {
    let dir = tmp("extend");
    std::fs::create_dir_all(&dir).unwrap();
    let base = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/smoke.toml")).unwrap();
    assert!(base.contains("schedule = \"constant\"") && base.contains("steps = 40"));
    let cosine =
        base.replace("schedule = \"constant\"", "schedule = \"warmup-cosine\"\nwarmup_steps = 5\nmin_lr = 1e-5");
    std::fs::write(dir.join("a.toml"), &cosine).unwrap();
    std::fs::write(dir.join("b.toml"), cosine.replace("steps = 40", "steps = 80")).unwrap();
    let (code, err) = train_cli(&["--config", "a.toml", "--max-steps", "20", "--no-progress"], &dir);
    assert_eq!(code, 0, "{err}");
    let (code, err) = train_cli(&["--config", "b.toml", "--resume", "--max-steps", "1", "--no-progress"], &dir);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("length changed from 40 to 80 steps") && err.contains("at step 20 is now"), "{err}");
    // A constant schedule does not move: nothing to say.
    std::fs::write(dir.join("c.toml"), base.replace("name = \"smoke\"", "name = \"flat\"")).unwrap();
    std::fs::write(
        dir.join("d.toml"),
        base.replace("name = \"smoke\"", "name = \"flat\"").replace("steps = 40", "steps = 80"),
    )
    .unwrap();
    let (code, err) = train_cli(&["--config", "c.toml", "--max-steps", "20", "--no-progress"], &dir);
    assert_eq!(code, 0, "{err}");
    let (code, err) = train_cli(&["--config", "d.toml", "--resume", "--max-steps", "1", "--no-progress"], &dir);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("length changed"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

fn train_cli(args: &[&str], dir: &Path) -> (i32, String) {
    let o = crate::common::command(env!("CARGO_BIN_EXE_train")).args(args).current_dir(dir).output().unwrap();
    (o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stderr).to_string())
}

#[test]
fn bad_configs_and_existing_runs_are_refused() {
    let dir = tmp("cli");
    std::fs::create_dir_all(&dir).unwrap();
    let base = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/smoke.toml")).unwrap();
    let cases: [(&str, String, &str); 15] = [
        ("no-metric", base.replace("metric = \"qtm\"\n", ""), "`puzzle.metric` (missing) is required for cube3"),
        (
            "sliding-metric",
            base.replace("kind = \"cube3\"", "kind = \"puzzle8\""),
            "`puzzle.metric` (qtm) applies to the cube only",
        ),
        ("bad-kind", base.replace("kind = \"cube3\"", "kind = \"cube4\""), "unknown puzzle `cube4`"),
        ("unknown-key", base.replace("prune = true", "prune = true\nprun = false"), "unknown field `prun`"),
        ("wrong-type", base.replace("seed = 1", "seed = \"one\""), "seed"),
        ("zero-len", base.replace("scramble_len = 8", "scramble_len = 0"), "`data.scramble_len` (0) must be >= 1"),
        ("bad-lr", base.replace("lr = 1e-3", "lr = -1.0"), "`optim.lr` (-1) must be in (0, 10]"),
        ("missing-key", base.replace("weight_decay = 0.0\n", ""), "missing field `weight_decay`"),
        ("gpu", base.replace("device = \"cpu\"", "device = \"gpu\""), "--features gpu"),
        (
            "cpu-f16",
            base.replace("device = \"cpu\"", "device = \"cpu\"\nprecision = \"f16\""),
            "`backend.precision` (f16) must be \"f32\" on the CPU",
        ),
        (
            "gpu-f16-matmul",
            base.replace("device = \"cpu\"", "device = \"gpu\"\nprecision = \"f16\"\nmatmul = \"bf16\""),
            "`backend.matmul` (bf16) needs backend.precision = \"f32\"",
        ),
        (
            "bad-matmul",
            base.replace("device = \"cpu\"", "device = \"cpu\"\nmatmul = \"f16\""),
            "unknown variant `f16`, expected one of `f32`, `bf16`, `int8`",
        ),
        (
            "gpu-fused-ops",
            base.replace("device = \"cpu\"", "device = \"gpu\"\nops = \"fused\""),
            "`backend.ops` (fused) is the CPU's",
        ),
        (
            "bad-ops",
            base.replace("device = \"cpu\"", "device = \"cpu\"\nops = \"warp\""),
            "unknown variant `warp`, expected `fused` or `burn`",
        ),
        (
            "int8-matmul",
            base.replace("device = \"cpu\"", "device = \"cpu\"\nmatmul = \"int8\""),
            "`backend.matmul` (int8) is for search only (solve --matmul int8)",
        ),
    ];
    for (name, text, expected) in cases {
        let path = dir.join(format!("{name}.toml"));
        std::fs::write(&path, text.replace("name = \"smoke\"", &format!("name = \"{name}\""))).unwrap();
        let (code, err) = train_cli(&["--config", path.to_str().unwrap(), "--no-progress"], &dir);
        assert_eq!(code, 1, "{name}: {err}");
        assert!(err.contains(expected), "{name}: expected `{expected}` in: {err}");
        assert!(!err.contains("panicked"), "{name}: {err}");
    }
    let (code, err) = train_cli(&["--config", "does-not-exist.toml"], &dir);
    assert_eq!(code, 1);
    assert!(err.contains("cannot read config file does-not-exist.toml"), "{err}");

    // An existing run is never clobbered silently.
    let good = dir.join("good.toml");
    std::fs::write(&good, base.replace("steps = 40", "steps = 2").replace("name = \"smoke\"", "name = \"good\""))
        .unwrap();
    let (code, err) = train_cli(&["--config", good.to_str().unwrap(), "--no-progress"], &dir);
    assert_eq!(code, 0, "{err}");
    let metrics = std::fs::read(dir.join("runs/good/metrics.csv")).unwrap();
    let (code, err) = train_cli(&["--config", good.to_str().unwrap(), "--no-progress"], &dir);
    assert_eq!(code, 1);
    assert!(err.contains("already exists") && err.contains("--resume") && err.contains("--overwrite"), "{err}");
    assert_eq!(std::fs::read(dir.join("runs/good/metrics.csv")).unwrap(), metrics);
    // A corrupt checkpoint is reported, not loaded.
    let ck = dir.join("runs/good/checkpoints/step-00000002.ckpt");
    let mut bytes = std::fs::read(&ck).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0xff;
    std::fs::write(&ck, bytes).unwrap();
    let longer = dir.join("longer.toml");
    std::fs::write(&longer, base.replace("steps = 40", "steps = 4").replace("name = \"smoke\"", "name = \"good\""))
        .unwrap();
    let (code, err) = train_cli(&["--config", longer.to_str().unwrap(), "--resume", "--no-progress"], &dir);
    assert_eq!(code, 1);
    assert!(err.contains("checksum mismatch") && err.contains("no older checkpoint is intact"), "{err}");
    // With an older intact checkpoint, the message names it, and moving the
    // damaged one aside resumes from it; a killed write's leftover goes.
    let two = |steps: u64| {
        base.replace("steps = 40", &format!("steps = {steps}"))
            .replace("checkpoint_every = 20", "checkpoint_every = 2")
            .replace("name = \"smoke\"", "name = \"two\"")
    };
    std::fs::write(dir.join("two.toml"), two(4)).unwrap();
    std::fs::write(dir.join("two-longer.toml"), two(6)).unwrap();
    let (code, err) = train_cli(&["--config", "two.toml", "--no-progress"], &dir);
    assert_eq!(code, 0, "{err}");
    let ckpts = dir.join("runs/two/checkpoints");
    let newest = ckpts.join("step-00000004.ckpt");
    let bytes = std::fs::read(&newest).unwrap();
    std::fs::write(&newest, &bytes[..bytes.len() / 2]).unwrap();
    std::fs::write(ckpts.join("step-00000006.ckpt.tmp4242"), &bytes[..100]).unwrap();
    let resume = ["--config", "two-longer.toml", "--resume", "--no-progress"];
    let (code, err) = train_cli(&resume, &dir);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("step-00000004.ckpt: it is unusable") && err.contains("step-00000002.ckpt is intact"),
        "{err}"
    );
    assert!(err.contains("removed 1 unfinished checkpoint file") && !ckpts.join("step-00000006.ckpt.tmp4242").exists());
    std::fs::rename(&newest, dir.join("step-00000004.ckpt.damaged")).unwrap();
    let (code, err) = train_cli(&resume, &dir);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("from step 2"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn exported_weights_solve_the_same_but_never_resume() {
    let dir = tmp("export");
    std::fs::create_dir_all(&dir).unwrap();
    let base = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/smoke.toml")).unwrap();
    let cfg = dir.join("e.toml");
    std::fs::write(&cfg, base.replace("steps = 40", "steps = 20").replace("name = \"smoke\"", "name = \"e\"")).unwrap();
    let (code, err) = train_cli(&["--config", cfg.to_str().unwrap(), "--no-progress"], &dir);
    assert_eq!(code, 0, "{err}");
    let (code, err) = train_cli(&["export-weights", "runs/e", "--to", "exported"], &dir);
    assert_eq!(code, 0, "{err}");

    // The export keeps the model, loop state and snapshot, drops the
    // optimiser, and copies the run's other files.
    let full = cube_oracle::learn::checkpoint::load(&dir.join("runs/e/checkpoints/step-00000020.ckpt")).unwrap();
    let lean = cube_oracle::learn::checkpoint::load(&dir.join("exported/checkpoints/step-00000020.ckpt")).unwrap();
    assert_eq!(
        (lean.model == full.model, lean.state == full.state, lean.snapshot == full.snapshot),
        (true, true, true)
    );
    assert!(!full.optimizer.is_empty() && lean.optimizer.is_empty());
    for f in ["config.toml", "meta.json", "metrics.csv", "eval.csv", "kl.csv"] {
        assert_eq!(
            std::fs::read(dir.join("runs/e").join(f)).unwrap(),
            std::fs::read(dir.join("exported").join(f)).unwrap()
        );
    }

    // Both directories give the same search result.
    let solve = |run: &str| {
        let o = crate::common::command(env!("CARGO_BIN_EXE_solve"))
            .args(["--run", run, "--scramble", "R U F' L", "--beam-log2", "4", "--max-depth", "8", "--label", "x"])
            .current_dir(&dir)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        std::fs::read_to_string(dir.join(run).join("solve/x/instances.csv")).unwrap()
    };
    // Every core column up to the timings, but `heuristic` (it names the run).
    let drop_times = |s: String| {
        s.lines()
            .map(|l| l.split(',').take(12).enumerate().filter(|(i, _)| *i != 2).map(|(_, f)| f.to_string()).collect())
            .collect::<Vec<Vec<String>>>()
    };
    assert_eq!(drop_times(solve("runs/e")), drop_times(solve("exported")));

    // A weights-only checkpoint cannot continue training, and an export
    // never replaces an existing directory.
    std::fs::copy(
        dir.join("exported/checkpoints/step-00000020.ckpt"),
        dir.join("runs/e/checkpoints/step-00000021.ckpt"),
    )
    .unwrap();
    let longer = dir.join("longer.toml");
    std::fs::write(&longer, base.replace("steps = 40", "steps = 30").replace("name = \"smoke\"", "name = \"e\""))
        .unwrap();
    let (code, err) = train_cli(&["--config", longer.to_str().unwrap(), "--resume", "--no-progress"], &dir);
    assert_eq!(code, 1);
    assert!(err.contains("holds the weights only"), "{err}");
    let (code, err) = train_cli(&["export-weights", "runs/e", "--to", "exported"], &dir);
    assert_eq!(code, 1);
    assert!(err.contains("already exists"), "{err}");
    let (code, err) = train_cli(&["export-weights", "nowhere", "--to", "x2"], &dir);
    assert_eq!(code, 1);
    assert!(err.contains("not a run directory"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn ctrl_c_writes_a_checkpoint_and_the_run_resumes() {
    let dir = tmp("sigint");
    std::fs::create_dir_all(&dir).unwrap();
    let base = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/smoke.toml")).unwrap();
    let long = dir.join("long.toml");
    std::fs::write(&long, base.replace("steps = 40", "steps = 1000000").replace("name = \"smoke\"", "name = \"long\""))
        .unwrap();
    // With --max-steps too: a leg cut by Ctrl-C still exits 130, not as a
    // leg that ran its steps.
    let child = crate::common::command(env!("CARGO_BIN_EXE_train"))
        .args(["--config", long.to_str().unwrap(), "--no-progress", "--max-steps", "900000"])
        .current_dir(&dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let metrics = dir.join("runs/long/metrics.csv");
    let started = std::time::Instant::now();
    while std::fs::read_to_string(&metrics).map_or(0, |t| t.lines().count()) < 3 {
        assert!(started.elapsed().as_secs() < 60, "training never started");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let status = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(err.contains("stopping at the next step") && err.contains("checkpoint written"), "{err}");
    let ckpts: Vec<_> = std::fs::read_dir(dir.join("runs/long/checkpoints")).unwrap().collect();
    assert!(!ckpts.is_empty());
    // The interrupted run continues from where it stopped.
    let short = dir.join("short.toml");
    let stopped: u64 = {
        let name = ckpts.iter().map(|e| e.as_ref().unwrap().file_name().into_string().unwrap()).max().unwrap();
        name.trim_start_matches("step-").trim_end_matches(".ckpt").parse().unwrap()
    };
    std::fs::write(
        &short,
        base.replace("steps = 40", &format!("steps = {}", stopped + 3)).replace("name = \"smoke\"", "name = \"long\""),
    )
    .unwrap();
    let (code, err) = train_cli(&["--config", short.to_str().unwrap(), "--resume", "--no-progress"], &dir);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains(&format!("from step {stopped}")), "{err}");
    // Ctrl-C in an --overwrite before the new run's first checkpoint calls
    // the overwrite off: the finished run is put back, not deleted for a
    // one-step stub.
    let finished = dir.join("runs/long/checkpoints").join(format!("step-{:08}.ckpt", stopped + 3));
    let finished_bytes = std::fs::read(&finished).unwrap();
    let replace = dir.join("replace.toml");
    std::fs::write(
        &replace,
        std::fs::read_to_string(&long).unwrap().replace("checkpoint_every = 20", "checkpoint_every = 100000"),
    )
    .unwrap();
    let child = crate::common::command(env!("CARGO_BIN_EXE_train"))
        .args(["--config", replace.to_str().unwrap(), "--no-progress", "--overwrite"])
        .current_dir(&dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    // The new run's log, not the old one's: the old run is aside while it trains.
    while finished.exists() || std::fs::read_to_string(&metrics).map_or(0, |t| t.lines().count()) < 3 {
        assert!(started.elapsed().as_secs() < 60, "the new run never started");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap().success());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(err.contains("--overwrite called off") && err.contains("the old runs/long is restored"), "{err}");
    assert_eq!(std::fs::read(&finished).unwrap(), finished_bytes, "the finished run is back, whole");
    let names: Vec<String> =
        std::fs::read_dir(dir.join("runs")).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into()).collect();
    assert!(!names.iter().any(|n| n.contains("overwritten")), "nothing left aside: {names:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The plain forward pass of an exported network, from its tensors alone:
/// Linear → ReLU → BatchNorm (running statistics) layers, residual blocks
/// `x + second(first(x))`, a linear head; PyTorch's weight layout.
fn exported_forward(
    t: &std::collections::HashMap<String, (Vec<usize>, Vec<f32>)>,
    eps: f32,
    x: &[f32],
    rows: usize,
) -> Vec<f32> {
    let linear = |p: &str, x: &[f32]| -> Vec<f32> {
        let (shape, w) = &t[&format!("{p}.weight")];
        let (out, inp) = (shape[0], shape[1]);
        let b = &t[&format!("{p}.bias")].1;
        (0..rows)
            .flat_map(|r| (0..out).map(move |o| (r, o)))
            .map(|(r, o)| b[o] + (0..inp).map(|i| w[o * inp + i] * x[r * inp + i]).sum::<f32>())
            .collect()
    };
    let dense = |p: &str, x: &[f32]| -> Vec<f32> {
        let y: Vec<f32> = linear(&format!("{p}.linear"), x).into_iter().map(|v| v.max(0.0)).collect();
        let n = |s: &str| &t[&format!("{p}.norm.{s}")].1;
        let (g, b, m, v) = (n("weight"), n("bias"), n("running_mean"), n("running_var"));
        let c = g.len();
        y.iter().enumerate().map(|(k, &y)| (y - m[k % c]) / (v[k % c] + eps).sqrt() * g[k % c] + b[k % c]).collect()
    };
    let mut h = x.to_vec();
    for i in 0.. {
        if !t.contains_key(&format!("trunk.{i}.linear.weight")) {
            break;
        }
        h = dense(&format!("trunk.{i}"), &h);
    }
    for i in 0.. {
        if !t.contains_key(&format!("blocks.{i}.first.linear.weight")) {
            break;
        }
        let y = dense(&format!("blocks.{i}.second"), &dense(&format!("blocks.{i}.first"), &h));
        h = h.iter().zip(&y).map(|(a, b)| a + b).collect();
    }
    linear("head", &h)
}

#[test]
fn an_exported_network_reproduces_the_crate_from_its_safetensors_alone() {
    use cube_oracle::kernels::weights::read_safetensors;
    use cube_oracle::learn::export::CHECK_ROWS;
    use cube_oracle::search::Oracle;
    let dir = tmp("safetensors");
    std::fs::create_dir_all(&dir).unwrap();
    let base = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/smoke.toml")).unwrap();
    let cfg = dir.join("s.toml");
    std::fs::write(&cfg, base.replace("steps = 40", "steps = 20").replace("name = \"smoke\"", "name = \"s\"")).unwrap();
    let (code, err) = train_cli(&["--config", cfg.to_str().unwrap(), "--no-progress"], &dir);
    assert_eq!(code, 0, "{err}");
    let (code, err) = train_cli(&["export", "runs/s", "--to", "runs/s/inside"], &dir);
    assert_eq!(code, 1, "an export into the run is refused: {err}");
    let (code, err) = train_cli(&["export", "runs/s", "--to", "out"], &dir);
    assert_eq!(code, 0, "{err}");

    let read = |f: &str| read_safetensors(&std::fs::read(dir.join("out").join(f)).unwrap()).unwrap();
    let model: std::collections::HashMap<_, _> =
        read("model.safetensors").into_iter().map(|t| (t.name, (t.shape, t.data))).collect();
    let check = read("check.safetensors");
    let card: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("out/model.json")).unwrap()).unwrap();
    assert_eq!(card["kind"], "policy");
    assert_eq!(card["moves"].as_array().unwrap().len(), 12);
    // Every trainable tensor is there (the running statistics are not parameters).
    let trainable: usize = model.iter().filter(|(n, _)| !n.contains(".running_")).map(|(_, (_, d))| d.len()).sum();
    assert_eq!(card["parameters"].as_u64(), Some(trainable as u64));
    let inputs = &check[0].data;
    let eps = card["architecture"]["batch_norm_epsilon"].as_f64().unwrap() as f32;
    // The check outputs are the crate's network on the check inputs …
    let mut oracle = cube_oracle::learn::inference::NetOracle::load(&dir.join("runs/s"), None, None).unwrap();
    let mut lp = vec![0.0f32; CHECK_ROWS * 12];
    oracle.predict(inputs, CHECK_ROWS, &mut lp).unwrap();
    for (r, row) in check[1].data.chunks_exact(12).enumerate() {
        let z = row.iter().map(|&v| f64::from(v).exp()).sum::<f64>().ln();
        for (m, &v) in row.iter().enumerate() {
            assert!((f64::from(v) - z - f64::from(lp[r * 12 + m])).abs() < 1e-4, "row {r} move {m}");
        }
    }
    // … and the exported tensors alone reproduce them.
    let plain = exported_forward(&model, eps, inputs, CHECK_ROWS);
    let diff = plain.iter().zip(&check[1].data).map(|(a, b)| (a - b).abs()).fold(0.0f32, f32::max);
    assert!(diff <= 1e-4, "largest difference {diff}");
    std::fs::remove_dir_all(&dir).unwrap();
}
