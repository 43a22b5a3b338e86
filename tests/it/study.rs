//! `study`: a grid of tiny 2×2×2 runs trained, solved (every solution
//! replayed by `solve`), gathered and fitted; finished points skipped,
//! shards disjoint, named points run alone, bad study files refused with the
//! key named.

use super::common::{column, command};
use std::path::{Path, PathBuf};

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cube-oracle-study-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A study file in `dir` over the shipped 2×2×2 config, its runs under `dir`.
fn study_file(dir: &Path, grid: &str) -> PathBuf {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/cube2-reference.toml");
    let text = format!(
        "[study]\nname = \"s\"\nbase = {base:?}\nout_dir = {dir:?}\n{grid}\n\n[eval]\nrandom = 12\nseed = 3\nbeam_log2 = [5, 7]\n"
    );
    let path = dir.join("study.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn study(args: &[&str]) -> (i32, String, String) {
    let mut cmd = command(env!("CARGO_BIN_EXE_study"));
    cmd.args(args);
    // Only training draws a bar: --list and --fit refuse --no-progress.
    if !args.iter().any(|a| ["--list", "--fit", "--adopt"].contains(a)) {
        cmd.arg("--no-progress");
    }
    let o = cmd.output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into(),
        String::from_utf8_lossy(&o.stderr).into(),
    )
}

fn numbers(path: &Path, name: &str) -> Vec<f64> {
    column(path, name).iter().map(|v| v.parse().unwrap_or(f64::NAN)).collect()
}

#[test]
fn a_study_trains_solves_and_records_each_point_once() {
    let dir = tmp("grid");
    let file = study_file(&dir, "hidden = [[16], [48]]\nsamples = [300000]");
    let cfg = file.to_str().unwrap();
    let (code, out, err) = study(&["--config", cfg]);
    assert_eq!(code, 0, "{out}{err}");
    let points = dir.join("s/points.csv");
    assert_eq!(column(&points, "point").len(), 4, "two points × two widths");
    let (params, samples, flops) =
        (numbers(&points, "parameters"), numbers(&points, "samples"), numbers(&points, "flops"));
    for ((n, d), c) in params.iter().zip(&samples).zip(&flops) {
        assert!((c - 6.0 * n * d).abs() <= 1e-6 * c, "flops {c} is not 6·{n}·{d}");
    }
    for (i, name) in column(&points, "point").iter().enumerate() {
        let run = dir.join("s").join(name);
        let meta: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(run.join("meta.json")).unwrap()).unwrap();
        assert_eq!(meta["parameters"].as_f64().unwrap(), params[i], "{name}: N is the trained network's");
        assert!(meta["samples_done"].as_f64().unwrap() >= samples[i], "{name}: trained on its D samples");
        // The loss is the run's held-out cross-entropy at its last
        // evaluation, over its depths weighted by their states.
        let steps = numbers(&run.join("eval.csv"), "step");
        let states = numbers(&run.join("eval.csv"), "states");
        let ce = numbers(&run.join("eval.csv"), "cross_entropy");
        let last = steps.iter().copied().fold(0.0, f64::max);
        let at_last: Vec<usize> = (0..steps.len()).filter(|&i| steps[i] == last).collect();
        let n: f64 = at_last.iter().map(|&i| states[i]).sum();
        let mean = at_last.iter().map(|&i| states[i] * ce[i]).sum::<f64>() / n;
        assert!((numbers(&points, "held_out_loss")[i] - mean).abs() < 1e-9, "{name}");
    }
    // Every point is scored on the base's held-out walks.
    for name in column(&points, "point") {
        let text = std::fs::read_to_string(dir.join("s").join(name.as_str()).join("config.toml")).unwrap();
        let seed = |key: &str| text.lines().find(|l| l.starts_with(key)).map(|l| l[key.len()..].trim().to_string());
        assert_eq!(seed("eval_seed = "), seed("seed = "), "{name}");
    }
    // The wider network fits the walks better on the same data.
    let loss = numbers(&points, "held_out_loss");
    assert!(loss[2] < loss[0], "48 hidden units should beat 16: {loss:?}");
    // Uniform 2×2×2 positions are at most 14 QTM from solved: a beam of 2^7
    // solves them, each solution replayed by `solve` before it is counted.
    let solved = numbers(&points, "solved_pct");
    let width = numbers(&points, "width");
    for (w, s) in width.iter().zip(&solved) {
        if *w == 128.0 {
            assert!(*s >= 50.0, "solved {s}% at width 128");
        }
    }
    // Run again: every point is finished and skipped, nothing retrained.
    let stamp = |p: &Path| std::fs::metadata(p).unwrap().modified().unwrap();
    let first = dir.join("s").join(column(&points, "point")[0].as_str()).join("point.csv");
    let before = stamp(&first);
    let (code, out, err) = study(&["--config", cfg]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(err.matches("finished before; skipped").count(), 2, "{err}");
    assert_eq!(stamp(&first), before);
    // A run started on another device (as if on a GPU: its saved config
    // says so) and not finished there is skipped, with the flag that
    // resumes it, and the study goes on (or, asked to, resumes it here);
    // once it has finished training there, the study evaluates it here
    // without training it again.
    let run = first.parent().unwrap().to_path_buf();
    let config = run.join("config.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    assert!(text.contains("device = \"cpu\""), "{text}");
    std::fs::write(&config, text.replace("device = \"cpu\"", "device = \"gpu\"")).unwrap();
    let meta = std::fs::read_to_string(run.join("meta.json")).unwrap();
    let unfinished = meta.replace("\"complete\": true", "\"complete\": false");
    assert_ne!(meta, unfinished, "{meta}");
    std::fs::write(run.join("meta.json"), &unfinished).unwrap();
    std::fs::remove_file(&first).unwrap();
    let (code, out, err) = study(&["--config", cfg]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains("started on the gpu, still training: skipped (resume it with --device gpu"), "{err}");
    assert_eq!(err.matches("finished before; skipped").count(), 1, "the other point: {err}");
    assert!(!first.exists());
    // With --switch-device the point resumes here instead: its saved config
    // then names the CPU, its last leg is the CPU's, and it is evaluated.
    let name = run.file_name().unwrap().to_str().unwrap().to_string();
    let (code, out, err) = study(&["--config", cfg, "--point", &name, "--switch-device"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains("switching devices: the run started on the gpu, this leg trains on the cpu"), "{err}");
    assert!(first.is_file(), "evaluated: {err}");
    assert!(std::fs::read_to_string(&config).unwrap().contains("device = \"cpu\""));
    let switched: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("meta.json")).unwrap()).unwrap();
    assert_eq!(switched["complete"], serde_json::Value::Bool(true), "{switched}");
    let legs = switched["legs"].as_array().unwrap();
    assert!(legs.last().unwrap()["device"].as_str().unwrap().starts_with("cpu"), "{switched}");
    // Back to a run that finished training on the GPU, unevaluated.
    std::fs::write(&config, text.replace("device = \"cpu\"", "device = \"gpu\"")).unwrap();
    std::fs::remove_file(&first).unwrap();
    let metrics = std::fs::read_to_string(run.join("metrics.csv")).unwrap();
    std::fs::write(run.join("meta.json"), &meta).unwrap();
    let (code, out, err) = study(&["--config", cfg]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(first.is_file(), "evaluated: {err}");
    assert_eq!(std::fs::read_to_string(run.join("metrics.csv")).unwrap(), metrics, "not trained again");
    std::fs::remove_dir_all(&dir).ok();
}

/// In a build without the GPU backend, `--device gpu` is refused before
/// anything is written, naming the flag and the build feature.
#[cfg(not(feature = "gpu"))]
#[test]
fn device_gpu_without_the_gpu_build_is_refused_before_anything_is_written() {
    let dir = tmp("device");
    let file = study_file(&dir, "hidden = [[8]]\nsamples = [240000]");
    let cfg = file.to_str().unwrap();
    let (code, _, err) = study(&["--config", cfg, "--device", "gpu"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("--device gpu") && err.contains("--features gpu"), "{err}");
    assert!(!dir.join("s").exists(), "nothing is written");
    let (code, _, err) = study(&["--config", cfg, "--device", "gpu", "--fit"]);
    assert_eq!(code, 2, "--device with --fit is a usage error: {err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn every_point_of_a_study_is_scored_on_the_base_seeds_held_out_walks() {
    let dir = tmp("evalseed");
    let file = study_file(&dir, "hidden = [[8]]\nsamples = [240000]\nseeds = [1, 2]");
    let study = cube_oracle::study::Study::load(&file).unwrap();
    let base_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/cube2-reference.toml");
    let base = cube_oracle::learn::config::TrainConfig::load(&base_path).unwrap();
    let seeds: Vec<u64> = study.points.iter().map(|p| p.config.run.seed).collect();
    assert_eq!(seeds, [1, 2]);
    for p in &study.points {
        assert_eq!(p.config.held_out_seed(), base.run.seed, "{}", p.name);
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_finished_point_must_still_follow_from_the_study_file() {
    let dir = tmp("stale");
    let file = study_file(&dir, "hidden = [[8]]\nsamples = [240000]");
    let cfg = file.to_str().unwrap();
    let (code, out, err) = study(&["--config", cfg]);
    assert_eq!(code, 0, "{out}{err}");
    let points = dir.join("s/points.csv");
    let name = column(&points, "point")[0].clone();
    assert_eq!(column(&points, "evaluation")[0], "random 12 seed 3; beam_log2 5 7");
    let run = dir.join("s").join(&name);
    let metrics = std::fs::read_to_string(run.join("metrics.csv")).unwrap();
    // Another [eval]: the point is refused, listed as unfinished and left
    // out of the tables, until --reevaluate evaluates it again (and only that).
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, text.replace("beam_log2 = [5, 7]", "beam_log2 = [5, 6]")).unwrap();
    let (code, _, err) = study(&["--config", cfg]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(&format!("point {name}: evaluated with `random 12 seed 3; beam_log2 5 7`"))
            && err.contains("`random 12 seed 3; beam_log2 5 6`")
            && err.contains("--reevaluate"),
        "{err}"
    );
    let (_, list, _) = study(&["--config", cfg, "--list"]);
    assert!(list.lines().nth(1).unwrap().ends_with(",false"), "{list}");
    let (code, _, err) = study(&["--config", cfg, "--fit"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains(&format!("left out: point {name}")) && err.contains("none of the 1 points"), "{err}");
    assert!(!points.exists(), "no table of a point the study no longer describes");
    let (code, out, err) = study(&["--config", cfg, "--reevaluate"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains("evaluating it again"), "{err}");
    assert_eq!(numbers(&points, "width"), [32.0, 64.0]);
    assert_eq!(std::fs::read_to_string(run.join("metrics.csv")).unwrap(), metrics, "not trained again");
    // Another recipe: the run must be trained again, which the study never
    // does over a finished run.
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/cube2-reference.toml");
    let recipe = std::fs::read_to_string(&base).unwrap();
    assert!(recipe.contains("\nlr = 1e-3\n"));
    let other = dir.join("base.toml");
    std::fs::write(&other, recipe.replace("\nlr = 1e-3\n", "\nlr = 3e-4\n")).unwrap();
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, text.replace(&format!("base = {base:?}"), &format!("base = {other:?}"))).unwrap();
    for extra in [&[][..], &["--reevaluate"]] {
        let (code, _, err) = study(&[&["--config", cfg][..], extra].concat());
        assert_eq!(code, 1, "{err}");
        assert!(err.contains(&format!("point {name}: its run was trained with optim.lr = 0.001")), "{err}");
        assert!(err.contains("3e-4") || err.contains("0.0003"), "{err}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_study_files_are_refused_before_anything_is_written() {
    let dir = tmp("badfile");
    let cases: [(&str, &str, &[&str]); 10] = [
        ("seeds = []", "", &["study.seeds is empty"]),
        ("samples = [450000.7]", "", &["study.samples: 450000.7 must be a whole number of samples from 1 to 1e18"]),
        ("samples = [1e30]", "", &["study.samples: 1e30 must be a whole number"]),
        ("", "random = 12\ntarget_length = nan", &["eval.target_length = NaN: must be a mean solution length"]),
        ("", "random = 12\ntarget_length = -3.0", &["eval.target_length = -3:"]),
        ("", "beam_log2 = [5, 7, 5]", &["eval.beam_log2 lists 5 twice"]),
        ("", "testset = \"deepcubea-100\"\nrandom_ = 1", &["random_"]),
        ("samples = \"1e7\"", "", &["line ", "samples"]),
        ("", "random = 0", &["eval.random = 0", "expected 1 to"]),
        ("", "seed = 4\ntestset = \"deepcubea-100\"", &["eval.seed = 4", "eval.testset"]),
    ];
    for (grid, eval, expected) in cases {
        let mut lines = String::from("hidden = [[8]]");
        for line in [grid, if grid.starts_with("samples") { "" } else { "samples = [240000]" }] {
            if !line.is_empty() {
                lines = format!("{lines}\n{line}");
            }
        }
        let mut text = std::fs::read_to_string(study_file(&dir, "hidden = [[8]]")).unwrap();
        text = text.replace("hidden = [[8]]", &lines);
        if eval.starts_with("beam_log2") {
            text = text.replace("beam_log2 = [5, 7]", eval);
        } else if eval.contains("testset") {
            text = text.replace("random = 12\nseed = 3\n", &format!("{eval}\n"));
        } else if !eval.is_empty() {
            text = text.replace("random = 12", eval);
        }
        let path = dir.join("case.toml");
        std::fs::write(&path, &text).unwrap();
        let (code, _, err) = study(&["--config", path.to_str().unwrap()]);
        assert_eq!(code, 1, "{text}\n{err}");
        assert_eq!(err.lines().count(), 1, "one line: {err}");
        for e in expected {
            assert!(err.contains(e), "{text}\n{err}");
        }
        assert!(!dir.join("s").exists(), "nothing written for\n{text}");
    }
    // A test set of another puzzle is refused before the first point trains.
    let text = std::fs::read_to_string(study_file(&dir, "hidden = [[8]]\nsamples = [240000]")).unwrap();
    let cube3_set = text.replace("random = 12\nseed = 3\n", "testset = \"deepcubea-100\"\n");
    assert_ne!(cube3_set, text);
    std::fs::write(dir.join("case.toml"), cube3_set).unwrap();
    let (code, _, err) = study(&["--config", dir.join("case.toml").to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("eval:") && err.contains("no cube2 test sets") && err.contains("eval.random"), "{err}");
    assert!(!dir.join("s").exists(), "no point trained");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn shards_split_the_grid_and_bad_studies_are_refused() {
    let dir = tmp("shard");
    let file = study_file(&dir, "hidden = [[8], [12]]\nsamples = [240000]");
    let cfg = file.to_str().unwrap();
    let (code, _, err) = study(&["--config", cfg, "--shard", "1/2"]);
    assert_eq!(code, 0, "{err}");
    let list = study(&["--config", cfg, "--list"]).1;
    let finished: Vec<&str> = list.lines().skip(1).map(|l| l.rsplit(',').next().unwrap()).collect();
    assert_eq!(finished, ["false", "true"], "shard 1/2 trains the second point only:\n{list}");
    // --point trains the point it names and nothing else; an unknown name
    // is refused with the name and where the names are listed.
    let first = list.lines().nth(1).unwrap().split(',').next().unwrap().to_string();
    let (code, _, err) = study(&["--config", cfg, "--point", "h9-nosuch"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("--point h9-nosuch") && err.contains("--list"), "{err}");
    let (code, _, err) = study(&["--config", cfg, "--point", &first, "--point", &first]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(err.matches("point 1/1: ").count(), 1, "one point, named twice, trained once:\n{err}");
    assert!(err.contains(&format!("point 1/1: {first} ")), "{err}");
    // Two finished points fit no law: an explicit --fit says so and fails.
    let (code, _, err) = study(&["--config", cfg, "--fit"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("--fit: 2 of 2 points finished, too few"), "{err}");
    assert!(dir.join("s/points.csv").is_file() && !dir.join("s/frontier.csv").exists(), "no table of blanks");
    for (shard, why) in [("2/2", "0 <= k < n"), ("1", "k/n"), ("0/0", "0 <= k < n")] {
        let (code, _, err) = study(&["--config", cfg, "--shard", shard]);
        assert_eq!(code, 1, "--shard {shard}: {err}");
        assert!(err.contains(why), "--shard {shard}: {err}");
    }
    let both = study_file(&dir, "hidden = [[8]]\nsamples = [1e5]\nflops = [1e12]");
    let (code, _, err) = study(&["--config", both.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("study.samples") && err.contains("study.flops"), "{err}");
    // --no-progress with a mode that draws no bar would be ignored: refused.
    for mode in ["--list", "--fit"] {
        let o = command(env!("CARGO_BIN_EXE_study")).args(["--config", cfg, mode, "--no-progress"]).output().unwrap();
        let (code, err) = (o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stderr));
        assert_eq!(code, 2, "{mode}: {err}");
        assert!(err.contains("--no-progress") && err.contains(mode), "{mode}: {err}");
    }
    let unknown = study_file(&dir, "hidden = [[8]]\nsamples = [1e5]\nwidth = 3");
    let (code, _, err) = study(&["--config", unknown.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("width"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn slow_a_nine_point_study_fits_its_loss_law() {
    let dir = tmp("fit");
    // Three values of each of N and D: a law in two variables needs them.
    let file = study_file(&dir, "hidden = [[8], [16], [32]]\nsamples = [240000, 360000, 480000]");
    let (code, out, err) = study(&["--config", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    let fit = dir.join("s/fit.csv");
    let targets = column(&fit, "target");
    let against = column(&fit, "against");
    let row =
        targets.iter().zip(&against).position(|(t, a)| t == "held_out_loss" && a == "N+D").expect("L(N, D) fitted");
    let loss = numbers(&dir.join("s/points.csv"), "held_out_loss");
    let mean = loss.iter().sum::<f64>() / loss.len() as f64;
    let spread = loss.iter().map(|l| (l - mean).abs()).sum::<f64>() / loss.len() as f64;
    let mae = numbers(&fit, "mae")[row];
    assert!(mae < spread, "the law (MAE {mae}) explains the points no better than their mean (MAE {spread})");
    let (lo, hi) = (numbers(&fit, "alpha_low")[row], numbers(&fit, "alpha_high")[row]);
    let alpha = numbers(&fit, "alpha")[row];
    assert!(lo <= hi && alpha > 0.0, "alpha {alpha} [{lo}, {hi}]");
    assert!(dir.join("s/plots/loss-vs-flops.png").is_file());
    // Each budget's points are forecast by the law fitted below it alone.
    let forecasts = dir.join("s/forecasts.csv");
    let (up_to, at) = (numbers(&forecasts, "fitted_up_to_flops"), numbers(&forecasts, "flops"));
    assert!(!at.is_empty() && up_to.iter().zip(&at).all(|(u, c)| c > u), "{up_to:?} {at:?}");
    // With L(N, D) fitted, the frontier (Approach 3's N_opt against C) is drawn.
    assert!(dir.join("s/plots/frontier.png").is_file() && dir.join("s/plots/frontier.svg").is_file());
    // A point without a loss (its log lost, or a diverged run) leaves the
    // loss fits, named, and keeps its place in the solve-quality ones.
    // Its `eval.csv` lost, a point evaluated again records no loss.
    let first = column(&dir.join("s/points.csv"), "point")[0].clone();
    std::fs::remove_file(dir.join("s").join(&first).join("eval.csv")).unwrap();
    std::fs::remove_file(dir.join("s").join(&first).join("point.csv")).unwrap();
    let (code, out, err) = study(&["--config", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains("no held-out loss"), "{err}");
    let (code, out, err) = study(&["--config", file.to_str().unwrap(), "--fit"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains("left out of the loss fits") && err.contains(&first), "{err}");
    let targets = column(&fit, "target");
    let against = column(&fit, "against");
    assert!(targets.iter().zip(&against).any(|(t, a)| t == "held_out_loss" && a == "N+D"), "L(N, D) without it");
    assert!(targets.iter().any(|t| t == "mean_length"), "the solve-quality fits keep it");
    assert!(column(&dir.join("s/points.csv"), "point").contains(&first));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn included_runs_and_extra_points_join_the_study_untrained() {
    let dir = tmp("include");
    // A one-point study trains the run that a second study then includes.
    let first = study_file(&dir, "hidden = [[16]]\nsamples = [240000]");
    let (code, out, err) = study(&["--config", first.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    let trained = std::fs::read_dir(dir.join("s"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.join("meta.json").is_file())
        .expect("the first study's run");
    let run_name = trained.file_name().unwrap().to_str().unwrap().to_string();
    let other = dir.join("other");
    std::fs::create_dir_all(&other).unwrap();
    let second = {
        let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/cube2-reference.toml");
        let text = format!(
            "[study]\nname = \"t\"\nbase = {base:?}\nout_dir = {other:?}\nhidden = [[12]]\nsamples = [200000]\n\
             extra_points = [{{ hidden = [20], flops = 1e11 }}]\ninclude_runs = [{trained:?}]\n\n\
             [eval]\nrandom = 12\nseed = 3\nbeam_log2 = [5, 7]\n"
        );
        let path = other.join("study.toml");
        std::fs::write(&path, text).unwrap();
        path
    };
    let cfg = second.to_str().unwrap();
    let list = study(&["--config", cfg, "--list"]).1;
    assert_eq!(list.lines().count(), 4, "grid point, extra point, included run:\n{list}");
    let extra = list.lines().find(|l| l.starts_with("h20-")).expect("the extra point");
    let flops: f64 = extra.split(',').nth(3).unwrap().parse().unwrap();
    assert!((flops - 1e11).abs() < 1e-3 * 1e11, "{extra}");
    let stamp = |p: &Path| std::fs::metadata(p).unwrap().modified().unwrap();
    let metrics_before = stamp(&trained.join("metrics.csv"));
    let (code, out, err) = study(&["--config", cfg]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(stamp(&trained.join("metrics.csv")), metrics_before, "an included run is never trained");
    assert!(other.join("t/included").join(format!("{run_name}.csv")).is_file());
    let points = other.join("t/points.csv");
    let names = column(&points, "point");
    assert_eq!(names.len(), 6, "three points × two widths: {names:?}");
    // The included run's row is its own: N from its network, D from its
    // config, its held-out loss the same as the first study measured.
    let first_points = dir.join("s/points.csv");
    let row = names.iter().position(|n| *n == run_name).expect("the included run's row");
    for col in ["parameters", "samples", "held_out_loss"] {
        assert_eq!(numbers(&points, col)[row], numbers(&first_points, col)[0], "{col}");
    }
    // Runs of another recipe, unfinished runs and clashing names are refused,
    // each with the rule named.
    let copy = |name: &str| {
        let to = dir.join(name);
        std::fs::create_dir_all(&to).unwrap();
        for f in ["config.toml", "meta.json", "eval.csv"] {
            std::fs::copy(trained.join(f), to.join(f)).unwrap();
        }
        to
    };
    let refused = |run: &Path, why: &str| {
        let text = std::fs::read_to_string(&second).unwrap().replace(&format!("{trained:?}"), &format!("{run:?}"));
        let path = other.join("refused.toml");
        std::fs::write(&path, text).unwrap();
        let (code, _, err) = study(&["--config", path.to_str().unwrap(), "--list"]);
        assert_eq!(code, 1, "{err}");
        assert!(err.contains("study.include_runs[0]") && err.contains(why), "{why}: {err}");
    };
    let lr = copy("lr");
    let text = std::fs::read_to_string(lr.join("config.toml")).unwrap();
    let line = text.lines().find(|l| l.starts_with("lr = ")).unwrap().to_string();
    std::fs::write(lr.join("config.toml"), text.replace(&line, "lr = 0.123")).unwrap();
    refused(&lr, "optim.lr");
    let unfinished = copy("unfinished");
    let meta = std::fs::read_to_string(unfinished.join("meta.json")).unwrap();
    std::fs::write(unfinished.join("meta.json"), meta.replace("\"complete\": true", "\"complete\": false")).unwrap();
    refused(&unfinished, "has not finished training");
    // Another seed is free, but its held-out walks must be the study's.
    let reseeded = copy("reseeded");
    let text = std::fs::read_to_string(reseeded.join("config.toml")).unwrap();
    let line = text.lines().find(|l| l.starts_with("seed = ")).unwrap().to_string();
    let study_seed: u64 = line["seed = ".len()..].trim().parse().unwrap();
    let other_seed = study_seed + 1;
    let text = text.replace(&line, &format!("seed = {other_seed}"));
    let eval_line = text.lines().find(|l| l.starts_with("eval_seed = ")).unwrap().to_string();
    std::fs::write(reseeded.join("config.toml"), text.replace(&eval_line, "")).unwrap();
    refused(&reseeded, &format!("held-out walks are drawn from seed {other_seed}"));
    let text = std::fs::read_to_string(reseeded.join("config.toml")).unwrap();
    let text = text.replace("[train]\n", &format!("[train]\neval_seed = {study_seed}\n"));
    std::fs::write(reseeded.join("config.toml"), text).unwrap();
    let joined = other.join("reseeded.toml");
    let study_text = std::fs::read_to_string(&second).unwrap();
    std::fs::write(&joined, study_text.replace(&format!("{trained:?}"), &format!("{reseeded:?}"))).unwrap();
    let (code, _, err) = study(&["--config", joined.to_str().unwrap(), "--list"]);
    assert_eq!(code, 0, "another seed on the study's held-out walks joins: {err}");
    let twice =
        study_file(&other, "hidden = [[12]]\nsamples = [2e5]\nextra_points = [{ hidden = [12], samples = 2e5 }]");
    let (code, _, err) = study(&["--config", twice.to_str().unwrap(), "--list"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("two points are both named `h12-b1-d2e5-s"), "{err}");
    // A study whose cheapest point is an included run writes its tables in
    // its own folder, never beside the included run (the first study's).
    let own = dir.join("own");
    std::fs::create_dir_all(&own).unwrap();
    let first_table = std::fs::read(&first_points).unwrap();
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/cube2-reference.toml");
    let text = format!(
        "[study]\nname = \"u\"\nbase = {base:?}\nout_dir = {own:?}\nhidden = [[24]]\nsamples = [240000]\n\
         include_runs = [{trained:?}]\n\n[eval]\nrandom = 12\nseed = 3\nbeam_log2 = [5, 7]\n"
    );
    let cheapest = own.join("study.toml");
    std::fs::write(&cheapest, text).unwrap();
    let (_, list, err) = study(&["--config", cheapest.to_str().unwrap(), "--list"]);
    assert!(
        list.lines().nth(1).is_some_and(|l| l.starts_with(&run_name)),
        "the included run is cheapest:\n{list}{err}"
    );
    let (code, out, err) = study(&["--config", cheapest.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(column(&own.join("u/points.csv"), "point").len(), 4, "two points × two widths");
    assert_eq!(std::fs::read(&first_points).unwrap(), first_table, "the first study's table is untouched");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn ctrl_c_while_a_point_is_evaluated_ends_the_study_at_once_and_it_resumes() {
    let dir = tmp("sigint");
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/cube2-reference.toml");
    // One small point whose evaluation (beam search at 2^10 and 2^11) takes
    // seconds, so that Ctrl-C reaches it there, after training.
    let text = format!(
        "[study]\nname = \"s\"\nbase = {base:?}\nout_dir = {dir:?}\nhidden = [[16]]\nsamples = [200000]\n\n\
         [eval]\nrandom = 60\nseed = 3\nbeam_log2 = [10, 11]\n"
    );
    let cfg = dir.join("study.toml");
    std::fs::write(&cfg, text).unwrap();
    let child = command(env!("CARGO_BIN_EXE_study"))
        .args(["--config", cfg.to_str().unwrap(), "--no-progress"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let evaluating = || {
        std::fs::read_dir(dir.join("s"))
            .ok()
            .and_then(|mut e| e.find_map(|e| e.ok().map(|e| e.path()).filter(|p| p.is_dir())))
            .is_some_and(|point| point.join("solve/study-eval").is_dir())
    };
    let started = std::time::Instant::now();
    while !evaluating() {
        assert!(started.elapsed().as_secs() < 300, "no evaluation after 300 s");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let sent = std::time::Instant::now();
    let status = std::process::Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    let waited = sent.elapsed().as_secs_f64();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "Ctrl-C during the evaluation ends the study: {err}");
    assert!(waited < 2.0, "it ends at once, not after the evaluation ({waited:.1} s): {err}");
    let points: Vec<_> = std::fs::read_dir(dir.join("s")).unwrap().flatten().map(|e| e.path()).collect();
    assert!(points.iter().all(|p| !p.join("point.csv").exists()), "the point is not finished");
    // Run again: the trained point is evaluated afresh and finished.
    let (code, out, err) = study(&["--config", cfg.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains("left unfinished by an interrupted run"), "the cut evaluation is kept aside: {err}");
    assert_eq!(numbers(&dir.join("s/points.csv"), "solved_pct").len(), 2, "one row per width");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_killed_study_resumes_its_point_and_ends_as_if_never_stopped() {
    let dir = tmp("kill");
    let grid = "hidden = [[16]]\nsamples = [1400000]";
    // The same one-point study twice: once straight through, once killed
    // (SIGKILL, no chance to save) after its first checkpoint, then resumed.
    let straight = dir.join("straight");
    let killed = dir.join("killed");
    for d in [&straight, &killed] {
        std::fs::create_dir_all(d).unwrap();
    }
    let (a, b) = (study_file(&straight, grid), study_file(&killed, grid));
    let (code, out, err) = study(&["--config", a.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    let mut child = command(env!("CARGO_BIN_EXE_study"))
        .args(["--config", b.to_str().unwrap(), "--no-progress"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // The point's run folder (beside it, the folder's lock file).
    let point = |root: &Path| {
        let mut entries = std::fs::read_dir(root.join("s")).ok()?;
        entries.find_map(|e| e.ok().map(|e| e.path()).filter(|p| p.is_dir()))
    };
    // A complete checkpoint: a `.ckpt` file (a write in progress has a
    // temporary name, and a kill during it leaves nothing to resume).
    let checkpointed = || {
        point(&killed)
            .and_then(|p| std::fs::read_dir(p.join("checkpoints")).ok())
            .is_some_and(|mut e| e.any(|f| f.is_ok_and(|f| f.file_name().to_string_lossy().ends_with(".ckpt"))))
    };
    let started = std::time::Instant::now();
    while !checkpointed() {
        assert!(child.try_wait().unwrap().is_none(), "the study finished before its first checkpoint");
        assert!(started.elapsed().as_secs() < 300, "no checkpoint after 300 s");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let run = point(&killed).unwrap();
    assert!(!run.join("point.csv").exists(), "killed before it finished");
    // A damaged `meta.json` (the earlier legs' history) stops the study,
    // naming the file and `--fresh-logs`...
    std::fs::write(run.join("meta.json"), "{ cut").unwrap();
    let (code, out, err) = study(&["--config", b.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.contains("meta.json") && err.contains("--fresh-logs"), "{err}");
    assert!(!run.join("point.csv").exists(), "nothing was evaluated");
    // ...which `study` takes too, keeping the old file beside the new one.
    let (code, out, err) = study(&["--config", b.to_str().unwrap(), "--fresh-logs"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains("resuming"), "the second invocation resumes the point: {err}");
    let kept = std::fs::read_dir(&run).unwrap().filter_map(Result::ok).any(|e| {
        let name = e.file_name().to_string_lossy().into_owned();
        name.starts_with("meta.json.") && std::fs::read_to_string(e.path()).is_ok_and(|t| t == "{ cut")
    });
    assert!(kept, "the damaged meta.json is kept beside the new one");
    // Same training stream, same weights: the same loss and the same solves.
    let (p, q) = (straight.join("s/points.csv"), killed.join("s/points.csv"));
    for col in ["held_out_loss", "solved_pct", "mean_length", "mean_forwards"] {
        assert_eq!(numbers(&p, col), numbers(&q, col), "{col}");
    }
    // Killed before its first checkpoint was complete (only a write in
    // progress in checkpoints/, or no checkpoints/ yet): nothing to resume,
    // so the point starts again in place and ends the same.
    for partial in [true, false] {
        std::fs::remove_file(run.join("point.csv")).unwrap();
        std::fs::remove_dir_all(run.join("checkpoints")).unwrap();
        // What such a run's `meta.json` says: no step trained yet.
        let meta = run.join("meta.json");
        let mut m: serde_json::Value = serde_json::from_slice(&std::fs::read(&meta).unwrap()).unwrap();
        m["steps_done"] = 0.into();
        m["complete"] = false.into();
        std::fs::write(&meta, m.to_string()).unwrap();
        if partial {
            std::fs::create_dir(run.join("checkpoints")).unwrap();
            std::fs::write(run.join("checkpoints/.step-00000010.ckpt.tmp1"), b"cut").unwrap();
        }
        let (code, out, err) = study(&["--config", b.to_str().unwrap()]);
        assert_eq!(code, 0, "checkpoints/ with a partial write: {partial}: {out}{err}");
        assert!(err.contains("stopped before its first checkpoint: starting it again"), "{err}");
        for col in ["held_out_loss", "solved_pct", "mean_length", "mean_forwards"] {
            assert_eq!(numbers(&p, col), numbers(&q, col), "{col}, partial write {partial}");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_point_folder_study_did_not_make_is_never_replaced() {
    let dir = tmp("foreign");
    let file = study_file(&dir, "hidden = [[16]]\nsamples = [1400000]");
    let (code, out, err) = study(&["--config", file.to_str().unwrap(), "--list"]);
    assert_eq!(code, 0, "{out}{err}");
    let name = out.lines().nth(1).and_then(|l| l.split(',').next()).unwrap().to_string();
    // Someone else's folder where the point's run would go: notes alone,
    // then another tool's config and checkpoint (a PyTorch project's).
    let foreign = dir.join("s").join(&name);
    let files: [&[(&str, &str)]; 2] = [
        &[("notes.txt", "mine")],
        &[("config.toml", "framework = \"torch\"\n"), ("checkpoints/epoch-3.ckpt", "weights")],
    ];
    for files in files {
        let _ = std::fs::remove_dir_all(&foreign);
        for (file, text) in files {
            let path = foreign.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let (code, out, err) = study(&["--config", file.to_str().unwrap()]);
        assert_eq!(code, 1, "{files:?}: {out}{err}");
        assert!(
            err.contains(&format!("point {name}")) && err.contains("study.name") && err.contains("study.out_dir"),
            "{files:?}: the error speaks the study's words: {err}"
        );
        for (file, text) in files {
            assert_eq!(std::fs::read_to_string(foreign.join(file)).unwrap(), *text, "{file} is left as it was");
        }
        let top = files.iter().map(|(f, _)| f.split('/').next().unwrap()).collect::<std::collections::BTreeSet<_>>();
        assert_eq!(std::fs::read_dir(&foreign).unwrap().count(), top.len(), "nothing was added to it");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_study_writes_only_into_what_it_made() {
    let dir = tmp("ledger");
    let file = study_file(&dir, "hidden = [[8]]\nsamples = [240000]");
    let cfg = file.to_str().unwrap();
    let read = |p: &Path| std::fs::read_to_string(p).unwrap();
    // A folder of the study's name holding the user's own tables and plots:
    // neither training nor --fit touches it.
    std::fs::create_dir_all(dir.join("s/plots")).unwrap();
    std::fs::write(dir.join("s/points.csv"), "mine\n").unwrap();
    std::fs::write(dir.join("s/plots/isoflop.png"), "mine").unwrap();
    for args in [&["--config", cfg][..], &["--config", cfg, "--fit"]] {
        let (code, out, err) = study(args);
        assert_eq!(code, 1, "{args:?}: {out}{err}");
        assert!(err.contains("points.csv") && err.contains("no study ledger") && err.contains("--adopt"), "{err}");
        assert_eq!(read(&dir.join("s/points.csv")), "mine\n");
        assert_eq!(read(&dir.join("s/plots/isoflop.png")), "mine");
    }
    assert!(std::fs::read_dir(dir.join("s")).unwrap().count() == 2, "no point was trained");
    std::fs::remove_file(dir.join("s/points.csv")).unwrap();
    std::fs::remove_dir_all(dir.join("s/plots")).unwrap();
    let (code, out, err) = study(&["--config", cfg]);
    assert_eq!(code, 0, "{out}{err}");
    // The user's fit.csv beside the study's tables: one point fits no law,
    // so --fit would remove a fit.csv of its own; it refuses the user's.
    let fit = dir.join("s/fit.csv");
    std::fs::write(&fit, "my fit\n").unwrap();
    let (code, out, err) = study(&["--config", cfg, "--fit"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.contains("fit.csv") && err.contains("the study did not write it"), "{err}");
    assert_eq!(read(&fit), "my fit\n");
    std::fs::remove_file(&fit).unwrap();
    // A point table changed since the study wrote it (or copied from
    // another point) is not the point's: listed unfinished and named, left
    // out of the tables, and never overwritten.
    let name = column(&dir.join("s/points.csv"), "point")[0].clone();
    let table = dir.join("s").join(&name).join("point.csv");
    let edited = read(&table).replace(&name, "another-point");
    std::fs::write(&table, &edited).unwrap();
    let (_, list, err) = study(&["--config", cfg, "--list"]);
    assert!(list.lines().nth(1).unwrap().ends_with(",false"), "{list}");
    assert!(err.contains(&name) && err.contains("not what the study wrote"), "{err}");
    let (code, _, err) = study(&["--config", cfg]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("point.csv") && err.contains("refusing to replace"), "{err}");
    assert_eq!(read(&table), edited);
    // --adopt records the folder as it is: the edited table becomes the study's.
    let (code, out, err) = study(&["--config", cfg, "--adopt"]);
    assert_eq!(code, 0, "{out}{err}");
    let (_, list, _) = study(&["--config", cfg, "--list"]);
    assert!(list.lines().nth(1).unwrap().ends_with(",true"), "{list}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_finished_point_without_checkpoints_is_never_trained_again() {
    let dir = tmp("no-checkpoint");
    let file = study_file(&dir, "hidden = [[8]]\nsamples = [240000]");
    let cfg = file.to_str().unwrap();
    let (code, out, err) = study(&["--config", cfg]);
    assert_eq!(code, 0, "{out}{err}");
    let name = column(&dir.join("s/points.csv"), "point")[0].clone();
    let run = dir.join("s").join(&name);
    // As every shipped point is: trained, its checkpoints left out.
    std::fs::remove_dir_all(run.join("checkpoints")).unwrap();
    std::fs::write(run.join("notes.txt"), "the user's").unwrap();
    let metrics = std::fs::read_to_string(run.join("metrics.csv")).unwrap();
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, text.replace("beam_log2 = [5, 7]", "beam_log2 = [5, 6]")).unwrap();
    let expected = [name.as_str(), "no checkpoint left", "never trains such a run again"];
    let (code, _, err) = study(&["--config", cfg, "--reevaluate"]);
    assert_eq!(code, 1, "{err}");
    assert!(expected.iter().all(|e| err.contains(e)), "{err}");
    // Without its table (unfinished, then) the run is not trained again either.
    std::fs::remove_file(run.join("point.csv")).unwrap();
    let (code, _, err) = study(&["--config", cfg]);
    assert_eq!(code, 1, "{err}");
    assert!(expected.iter().all(|e| err.contains(e)), "{err}");
    assert_eq!(std::fs::read_to_string(run.join("metrics.csv")).unwrap(), metrics, "not trained again");
    assert_eq!(std::fs::read_to_string(run.join("notes.txt")).unwrap(), "the user's");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_point_whose_included_run_was_trained_again_is_unfinished() {
    let dir = tmp("retrained");
    let first = study_file(&dir, "hidden = [[8]]\nsamples = [240000]");
    let (code, out, err) = study(&["--config", first.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    let name = column(&dir.join("s/points.csv"), "point")[0].clone();
    let trained = dir.join("s").join(&name);
    let other = dir.join("other");
    std::fs::create_dir_all(&other).unwrap();
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/cube2-reference.toml");
    let second = other.join("study.toml");
    std::fs::write(
        &second,
        format!(
            "[study]\nname = \"t\"\nbase = {base:?}\nout_dir = {other:?}\nhidden = [[12]]\nsamples = [200000]\n\
             include_runs = [{trained:?}]\n\n[eval]\nrandom = 12\nseed = 3\nbeam_log2 = [5]\n"
        ),
    )
    .unwrap();
    let cfg = second.to_str().unwrap();
    let (code, out, err) = study(&["--config", cfg]);
    assert_eq!(code, 0, "{out}{err}");
    let finished = |list: &str| list.lines().filter(|l| l.ends_with(",true")).count();
    assert_eq!(finished(&study(&["--config", cfg, "--list"]).1), 2);
    // The included run trained again from scratch (the same recipe, budget
    // and seed): another run, whose old results must not count.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let o = command(env!("CARGO_BIN_EXE_train"))
        .args(["--config", trained.join("config.toml").to_str().unwrap(), "--overwrite", "--no-progress"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let (_, list, err) = study(&["--config", cfg, "--list"]);
    assert_eq!(finished(&list), 1, "{list}");
    assert!(err.contains(&name) && err.contains("trained again"), "{err}");
    let (code, _, err) = study(&["--config", cfg]);
    assert_eq!(code, 1, "{err}");
    let (code, out, err) = study(&["--config", cfg, "--reevaluate"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(finished(&study(&["--config", cfg, "--list"]).1), 2);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_test_set_file_is_found_beside_the_study_and_its_edits_unfinish_the_points() {
    let dir = tmp("testset");
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/puzzle8-smoke.toml");
    std::fs::write(dir.join("set.tsv"), "id\ttiles\na\t1 2 3 4 5 6 7 0 8\nb\t1 2 3 4 5 6 0 7 8\n").unwrap();
    let file = dir.join("study.toml");
    std::fs::write(
        &file,
        format!(
            "[study]\nname = \"s\"\nbase = {base:?}\nout_dir = {dir:?}\nhidden = [[16]]\nsamples = [20000]\n\n\
             [eval]\ntestset = \"set.tsv\"\nbeam_log2 = [2]\n"
        ),
    )
    .unwrap();
    let cfg = file.to_str().unwrap();
    // Run from the crate's folder: the set is found beside the study file,
    // as its base config is, not in the working directory.
    let (code, out, err) = study(&["--config", cfg]);
    assert_eq!(code, 0, "{out}{err}");
    let finished = |list: &str| list.lines().nth(1).unwrap().ends_with(",true");
    assert!(finished(&study(&["--config", cfg, "--list"]).1));
    // The same file name, other boards: the point was scored on others.
    std::fs::write(dir.join("set.tsv"), "id\ttiles\na\t1 2 3 4 5 6 7 0 8\nb\t1 2 3 4 0 6 7 5 8\n").unwrap();
    let (_, list, err) = study(&["--config", cfg, "--list"]);
    assert!(!finished(&list), "{list}");
    assert!(err.contains("test set changed") && err.contains("checksum"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn variants_add_points_with_their_keys_set_and_bad_variants_are_refused() {
    let dir = tmp("variants");
    let grid = "hidden = [[48]]\nsamples = [300000]\nkind = \"q-distance\"\nvariants = [\n  \
                { name = \"traj\", set = { \"data.labels\" = \"trajectory-min\", \"data.label_pool\" = 4 } },\n  \
                { name = \"wide\", set = { \"model.hidden\" = [64] } },\n]";
    let file = study_file(&dir, grid);
    let cfg = file.to_str().unwrap();
    let (code, list, err) = study(&["--config", cfg, "--list"]);
    assert_eq!(code, 0, "{err}");
    let names: Vec<&str> = list.lines().skip(1).map(|l| l.split(',').next().unwrap()).collect();
    // The control, and each variant named after it; a variant that sets
    // model.hidden is named after its own shape.
    assert_eq!(names.len(), 3, "{list}");
    assert!(names.iter().any(|n| n.starts_with("h48-") && !n.ends_with("-traj")), "the control: {list}");
    let traj = names.iter().find(|n| n.ends_with("-traj")).expect("a traj point");
    assert!(traj.starts_with("h48-"), "{list}");
    assert!(names.iter().any(|n| n.starts_with("h64-") && n.ends_with("-wide")), "{list}");
    // The variant trains with its keys set: its run's config and meta say so.
    let (code, _, err) = study(&["--config", cfg, "--point", traj]);
    assert_eq!(code, 0, "{err}");
    let run = dir.join("s").join(traj);
    let saved = std::fs::read_to_string(run.join("config.toml")).unwrap();
    assert!(saved.contains("labels = \"trajectory-min\"") && saved.contains("label_pool = 4"), "{saved}");
    let meta: serde_json::Value = serde_json::from_slice(&std::fs::read(run.join("meta.json")).unwrap()).unwrap();
    assert_eq!((meta["labels"].as_str(), meta["label_pool"].as_u64()), (Some("trajectory-min"), Some(4)));
    assert!(run.join("point.csv").is_file(), "evaluated");
    // With its control trained too, variants.csv pairs the two cube by cube:
    // the mean difference of the instances both solved, recomputed here
    // from the two points' per-instance solutions.
    let control = names.iter().find(|n| n.starts_with("h48-") && !n.ends_with("-traj")).unwrap();
    let (code, _, err) = study(&["--config", cfg, "--point", control]);
    assert_eq!(code, 0, "{err}");
    let lengths = |point: &str| -> std::collections::BTreeMap<(String, String), f64> {
        let f = dir.join("s").join(point).join("solve/study-eval/instances.csv");
        let (w, id, ok, len) = (column(&f, "width"), column(&f, "id"), column(&f, "solved"), column(&f, "length"));
        (0..id.len())
            .filter(|&i| ok[i] == "true")
            .map(|i| ((w[i].clone(), id[i].clone()), len[i].parse().unwrap()))
            .collect()
    };
    let (v, c) = (lengths(traj), lengths(control));
    let table = dir.join("s/variants.csv");
    assert!(table.is_file(), "variants.csv written: {err}");
    // One budget fits no law, but --fit has the pairing to give: it succeeds.
    let (code, out, err) = study(&["--config", cfg, "--fit"]);
    assert_eq!(code, 0, "{err}");
    let said = format!("{out}{err}");
    assert!(said.contains("variants paired with their controls") && said.contains("no law to fit yet"), "{said}");
    let widths = column(&table, "width");
    assert_eq!(column(&table, "variant"), ["traj", "traj"], "one row per width");
    for (row, w) in widths.iter().enumerate() {
        let d: Vec<f64> =
            v.iter().filter(|((vw, _), _)| vw == w).filter_map(|(k, lv)| c.get(k).map(|lc| lv - lc)).collect();
        assert_eq!(numbers(&table, "paired_cubes")[row], d.len() as f64);
        let mean = d.iter().sum::<f64>() / d.len() as f64;
        let got = numbers(&table, "difference")[row];
        assert!((got - mean).abs() < 1e-9 || (d.is_empty() && got.is_nan()), "width {w}: {got} vs {mean}");
        let shorter = d.iter().filter(|&&x| x < 0.0).count() as f64;
        assert_eq!(numbers(&table, "shorter")[row], shorter);
    }
    assert!(numbers(&table, "paired_cubes").iter().any(|&n| n > 0.0), "some width pairs solved cubes");
    // Bad variants: each refused in one line naming the variant and the key.
    let cases: [(&str, &[&str]); 7] = [
        ("{ name = \"a\", set = { \"run.seed\" = 3 } }", &["study.variants[0] (a)", "`run.seed`", "study.seeds"]),
        ("{ name = \"a\", set = { \"train.samples\" = 3 } }", &["`train.samples`", "budget"]),
        ("{ name = \"a\", set = { \"data.walkz\" = 3 } }", &["study.variants[0] (a)", "walkz"]),
        ("{ name = \"a\", set = { \"walk\" = 3 } }", &["key `walk`", "section.key"]),
        ("{ name = \"a\", set = { \"dta.walk\" = 3 } }", &["no section `dta`"]),
        ("{ name = \"a/b\", set = { \"data.prune\" = false } }", &["study.variants[0].name `a/b`"]),
        ("{ name = \"a\", set = {} }", &["sets no key"]),
    ];
    for (variant, expected) in cases {
        let bad = study_file(&dir, &format!("hidden = [[8]]\nsamples = [240000]\nvariants = [{variant}]"));
        let (code, _, err) = study(&["--config", bad.to_str().unwrap(), "--list"]);
        assert_eq!(code, 1, "{variant}: {err}");
        assert_eq!(err.lines().count(), 1, "one line: {err}");
        for e in expected {
            assert!(err.contains(e), "{variant}: expected `{e}` in {err}");
        }
    }
    let twice = study_file(
        &dir,
        "hidden = [[8]]\nsamples = [240000]\nvariants = [{ name = \"a\", set = { \"data.prune\" = false } }, \
         { name = \"a\", set = { \"data.prune\" = true } }]",
    );
    let (code, _, err) = study(&["--config", twice.to_str().unwrap(), "--list"]);
    assert_eq!(code, 1);
    assert!(err.contains("both named `a`"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}
