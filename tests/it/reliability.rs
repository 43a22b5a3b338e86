//! Nothing a user types destroys their data, tested on the real binaries:
//! labels are names (destructive `--label … --overwrite` cases are
//! refused and delete nothing), an interrupted `--overwrite`
//! keeps the old results, runs and output folders are locked while in use
//! (and a killed holder never blocks), resume keeps the logged history or
//! stops with the file and line, a full disk stops training with a
//! resumable checkpoint, and one-cube solves can be repeated.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant};

/// Caps every file `cmd`'s process writes at `bytes` (`RLIMIT_FSIZE`, with
/// `SIGXFSZ` ignored), so a write past it fails with "File too large", as
/// on a full disk.
fn limit_file_size(cmd: &mut std::process::Command, bytes: u64) {
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let lim = libc::rlimit { rlim_cur: bytes, rlim_max: bytes };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cube-oracle-reliability-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run(bin: &str, args: &[&str], dir: &Path) -> (i32, String) {
    let o: Output = crate::common::command(bin).args(args).current_dir(dir).output().unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    (o.status.code().unwrap_or(-1), text)
}

const TRAIN: &str = env!("CARGO_BIN_EXE_train");
const SOLVE: &str = env!("CARGO_BIN_EXE_solve");

/// The smoke config with `steps` steps, written to `dir/<file>`.
fn smoke_config(dir: &Path, file: &str, steps: u64) -> String {
    let base = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/smoke.toml")).unwrap();
    assert!(base.contains("\nsteps = 40\n"), "configs/smoke.toml sets `steps = 40`");
    let text = base.replace("\nsteps = 40\n", &format!("\nsteps = {steps}\n"));
    let path = dir.join(file);
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().to_string()
}

/// Every file under `dir`, with its bytes.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() { stack.push(p) } else { out.push((p.clone(), std::fs::read(&p).unwrap())) }
        }
    }
    out.sort();
    out
}

/// A trained smoke run (40 steps) in `dir/runs/smoke`, with one solve
/// result folder `solve/keep` to protect.
fn smoke_run_with_results(dir: &Path) -> PathBuf {
    let cfg = smoke_config(dir, "smoke.toml", 40);
    let (code, text) = run(TRAIN, &["--config", &cfg, "--no-progress"], dir);
    assert_eq!(code, 0, "{text}");
    let run_dir = dir.join("runs/smoke");
    let run_s = run_dir.to_string_lossy().to_string();
    let (code, text) = run(
        SOLVE,
        &["--run", &run_s, "--testset", "deepcubea-10", "--beam-log2", "2", "--max-depth", "4", "--label", "keep"],
        dir,
    );
    assert_eq!(code, 0, "{text}");
    run_dir
}

#[test]
fn labels_are_names_and_overwrite_never_deletes_what_it_did_not_make() {
    let dir = tmp("labels");
    let run_dir = smoke_run_with_results(&dir);
    let run_s = run_dir.to_string_lossy().to_string();
    let outside = dir.join("unrelated");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("precious.txt"), "keep me").unwrap();
    let before = snapshot(&dir);
    let outside_s = outside.to_string_lossy().to_string();
    for label in ["", "../checkpoints", outside_s.as_str(), "..", "."] {
        let (code, text) = run(
            SOLVE,
            &["--run", &run_s, "--scramble", "R U", "--beam-width", "4", "--label", label, "--overwrite"],
            &dir,
        );
        assert_eq!(code, 1, "--label {label:?}: {text}");
        assert!(text.contains("--label") && text.contains("is not a folder name"), "--label {label:?}: {text}");
        // The lock file of a refused label is never made either: nothing changed.
        assert_eq!(snapshot(&dir), before, "--label {label:?} changed files");
    }
    // Classical outputs follow the same rule.
    let out_s = dir.join("classical").to_string_lossy().to_string();
    let (code, text) = run(
        SOLVE,
        &["classical", "astar", "--puzzle", "puzzle8", "--board", "1 2 3 / 4 5 6 / 7 0 8", "--out", &out_s]
            .into_iter()
            .chain(["--label", "../unrelated", "--overwrite"])
            .collect::<Vec<_>>(),
        &dir,
    );
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("is not a folder name"), "{text}");
    assert_eq!(std::fs::read_to_string(outside.join("precious.txt")).unwrap(), "keep me");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Polls `cond` for up to a minute.
fn wait_for(what: &str, mut cond: impl FnMut() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(start.elapsed() < Duration::from_secs(60), "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn kill(mut child: Child) {
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn an_interrupted_overwrite_keeps_the_old_results_and_leaves_only_whole_files() {
    let dir = tmp("interrupt");
    let run_dir = smoke_run_with_results(&dir);
    let run_s = run_dir.to_string_lossy().to_string();
    let keep = run_dir.join("solve/keep");
    let before = snapshot(&keep);
    // A long sweep replacing `keep`, killed once its first width is on disk.
    let child = crate::common::command(SOLVE)
        .args(["--run", &run_s, "--testset", "deepcubea-10", "--beam-log2", "0..14", "--max-depth", "30"])
        .args(["--label", "keep", "--overwrite"])
        .current_dir(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let staging = run_dir.join("solve").join(format!(".keep.new-{}", child.id()));
    wait_for("the first width's tables and plots", || staging.join("plots/entropy_vs_depth.svg").exists());
    kill(child);
    assert_eq!(snapshot(&keep), before, "the old results are untouched");
    // What the killed sweep left is whole: every CSV has a header and rows of
    // its width, and no temporary file survives.
    // A file being written when the kill came is a temporary `*.tmp<pid>` or
    // `*.partial-<pid>.png` beside the whole ones; nothing reads those.
    let mut whole = 0;
    for (path, bytes) in snapshot(&staging) {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if name.contains(".tmp") || name.contains(".partial-") {
            continue;
        }
        whole += 1;
        if name.ends_with(".csv") {
            let text = String::from_utf8(bytes.clone()).unwrap();
            assert!(text.ends_with('\n'), "{name} is cut short");
            let fields = text.lines().next().unwrap().split(',').count();
            assert!(text.lines().all(|l| l.split(',').count() >= fields), "{name} has a short row");
        }
        if name.ends_with(".svg") {
            assert!(String::from_utf8_lossy(&bytes).trim_end().ends_with("</svg>"), "{name} is cut short");
        }
        if name.ends_with(".png") {
            assert!(bytes.ends_with(&[0xae, 0x42, 0x60, 0x82]), "{name} lacks the PNG end chunk");
        }
    }
    assert!(whole >= 5, "the first width's tables and plots are there");
    let measured = snapshot(&staging);
    // The next claim of the label keeps what the killed sweep measured, as
    // `keep.interrupted`, and replaces `keep`.
    let (code, text) = run(
        SOLVE,
        &["--run", &run_s, "--testset", "deepcubea-10", "--beam-log2", "3", "--max-depth", "4", "--label", "keep"]
            .into_iter()
            .chain(["--overwrite"])
            .collect::<Vec<_>>(),
        &dir,
    );
    assert_eq!(code, 0, "{text}");
    assert!(!staging.exists(), "the leftover staging folder is moved");
    assert!(text.contains("unfinished results are kept in") && text.contains("keep.interrupted"), "{text}");
    let kept = run_dir.join("solve/keep.interrupted");
    let kept_files = snapshot(&kept);
    for (path, bytes) in &measured {
        let name = path.strip_prefix(&staging).unwrap();
        if name.to_string_lossy().ends_with(".csv") {
            let copy = kept_files.iter().find(|(p, _)| *p == kept.join(name)).map(|(_, b)| b);
            assert_eq!(copy, Some(bytes), "{} is kept as it was", name.display());
        }
    }
    assert_ne!(snapshot(&keep), before, "the completed rerun replaced the results");
    let mut names: Vec<String> = std::fs::read_dir(run_dir.join("solve"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    names.sort();
    assert_eq!(
        names,
        vec!["keep".to_string(), "keep.interrupted".to_string()],
        "no staging folder or lock file is left"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_run_in_use_is_locked_and_a_killed_holder_never_blocks() {
    let dir = tmp("lock");
    let cfg = smoke_config(&dir, "long.toml", 10_000_000);
    let child = crate::common::command(TRAIN)
        .args(["--config", &cfg, "--no-progress"])
        .current_dir(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let metrics = dir.join("runs/smoke/metrics.csv");
    let ckpts = dir.join("runs/smoke/checkpoints");
    // A finished checkpoint, not the temporary file it is written to first
    // (`step-N.ckpt.tmpPID` in the same folder).
    wait_for("the first checkpoint", || {
        std::fs::read_dir(&ckpts)
            .is_ok_and(|d| d.filter_map(Result::ok).any(|e| e.file_name().to_string_lossy().ends_with(".ckpt")))
    });
    for extra in [None, Some("--resume"), Some("--overwrite")] {
        let mut args = vec!["--config", cfg.as_str(), "--no-progress"];
        args.extend(extra);
        let (code, text) = run(TRAIN, &args, &dir);
        assert_eq!(code, 1, "{extra:?}: {text}");
        assert!(
            text.contains("in use by another process") && text.contains(&format!("pid {pid}")) && text.contains("UTC"),
            "{extra:?}: {text}"
        );
    }
    assert!(metrics.exists(), "the running run's files are intact");
    // An export reads the run under its shared lock: refused while train
    // holds it, and nothing is exported.
    for flag in ["export-weights", "export"] {
        let (code, text) = run(TRAIN, &[flag, "runs/smoke", "--to", "exported"], &dir);
        assert_eq!(code, 1, "{flag}: {text}");
        assert!(text.contains("in use by another process") && text.contains(&format!("train pid {pid}")), "{text}");
        assert!(!dir.join("exported").exists(), "{flag} wrote files");
    }
    // A solve output folder in use is refused the same way.
    kill(child);
    let (code, text) = run(TRAIN, &["--config", &cfg, "--resume", "--max-steps", "5", "--no-progress"], &dir);
    assert_eq!(code, 0, "a lock left by a killed process does not block: {text}");
    let lock = cube_oracle::folder::lock(&dir.join("runs/smoke/solve/busy")).unwrap();
    let run_s = dir.join("runs/smoke").to_string_lossy().to_string();
    let (code, text) = run(SOLVE, &["--run", &run_s, "--scramble", "R", "--beam-width", "4", "--label", "busy"], &dir);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("in use by another process"), "{text}");
    drop(lock);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The smoke config with `steps` steps in `dir/smoke.toml`, trained to the
/// end in `dir/runs/smoke`; returns the config's path.
fn trained_smoke(dir: &Path, steps: u64) -> String {
    let cfg = smoke_config(dir, "smoke.toml", steps);
    let (code, text) = run(TRAIN, &["--config", &cfg, "--no-progress"], dir);
    assert_eq!(code, 0, "{text}");
    cfg
}

// --- Replace only what the tool made; one lock per run; no silent history
// gaps; checkpoints that know what they are. -------------------------------

/// A classical 8-puzzle solve writing `--out out --label label` (plus
/// `extra`), run in `dir`.
fn classical_into(dir: &Path, out: &str, label: &str, extra: &[&str]) -> (i32, String) {
    let mut args = vec!["classical", "idastar", "--puzzle", "puzzle8", "--board", "1 2 3 / 4 5 6 / 7 0 8"];
    args.extend(["--out", out, "--label", label]);
    args.extend_from_slice(extra);
    run(SOLVE, &args, dir)
}

#[test]
fn overwrite_replaces_only_folders_that_solve_or_train_made() {
    let dir = tmp("ours");
    let run_dir = smoke_run_with_results(&dir);
    let run_s = run_dir.to_string_lossy().to_string();
    let thesis = dir.join("precious_dir");
    std::fs::create_dir_all(&thesis).unwrap();
    std::fs::write(thesis.join("thesis.tex"), "years of work").unwrap();
    std::fs::write(dir.join("notes.txt"), "a file").unwrap();
    // An analysis of the user's that looks like solve's results: a
    // summary.csv beside other tables and plots, but no output marker.
    let analysis = dir.join("analysis");
    std::fs::create_dir_all(analysis.join("plots")).unwrap();
    for (name, text) in [("summary.csv", "width,mean\n1,2\n"), ("mine.csv", "a\n1\n"), ("plots/fig.svg", "<svg/>")] {
        std::fs::write(analysis.join(name), text).unwrap();
    }
    std::fs::write(analysis.join("fig.png"), [0x89, b'P', b'N', b'G']).unwrap();
    let before = snapshot(&dir);
    // A folder of the user's (one that looks like solve's results too), a
    // run's checkpoint folder, a whole run, a file.
    let runs_s = dir.join("runs").to_string_lossy().to_string();
    for (out, label, why) in [
        (".", "precious_dir", "no output marker"),
        (".", "analysis", "no output marker"),
        (run_s.as_str(), "checkpoints", "no output marker"),
        (runs_s.as_str(), "smoke", "it is a training run"),
        (".", "notes.txt", "it is not a folder"),
    ] {
        let (code, text) = classical_into(&dir, out, label, &["--overwrite"]);
        assert_eq!(code, 1, "--out {out} --label {label}: {text}");
        assert!(text.contains("not an output folder that solve made") && text.contains(why), "{label}: {text}");
        assert_eq!(snapshot(&dir), before, "--out {out} --label {label} changed files");
    }
    // train --overwrite of a folder that is not a run.
    let cfg = smoke_config(&dir, "thesis.toml", 40);
    let text =
        std::fs::read_to_string(&cfg).unwrap().replace("name = \"smoke\"", "name = \"precious_dir\"\nout_dir = \".\"");
    std::fs::write(&cfg, text).unwrap();
    let (code, text) = run(TRAIN, &["--config", &cfg, "--overwrite", "--no-progress"], &dir);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("is not a run made by train"), "{text}");
    assert_eq!(std::fs::read_to_string(thesis.join("thesis.tex")).unwrap(), "years of work");
    // What solve made is replaced as before, and carries its marker.
    let (code, text) = classical_into(&dir, ".", "mine", &[]);
    assert_eq!(code, 0, "{text}");
    let (code, text) = classical_into(&dir, ".", "mine", &["--overwrite"]);
    assert_eq!(code, 0, "{text}");
    let marker = std::fs::read_to_string(dir.join("mine").join(cube_oracle::folder::MARKER)).unwrap();
    assert!(marker.contains("state = complete"), "{marker}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Waits until `child` holds the lock of output folder `folder` (its lock
/// file names its pid).
fn wait_for_lock(folder: &Path, pid: u32) {
    let name = format!(".{}.lock", folder.file_name().unwrap().to_string_lossy());
    let lock = folder.with_file_name(name);
    wait_for("the solve's lock", || std::fs::read_to_string(&lock).is_ok_and(|t| t.contains(&format!("pid {pid}"))));
}

#[test]
fn train_and_solve_lock_each_other_out_of_a_run_and_name_the_holder() {
    let dir = tmp("runlock");
    let run_dir = smoke_run_with_results(&dir);
    let run_s = run_dir.to_string_lossy().to_string();
    let cfg = dir.join("smoke.toml").to_string_lossy().to_string();
    // A long sweep writing inside the run.
    let child = crate::common::command(SOLVE)
        .args(["--run", &run_s, "--testset", "deepcubea-10", "--beam-log2", "0..16", "--max-depth", "30"])
        .args(["--label", "sweep"])
        .current_dir(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    wait_for_lock(&run_dir.join("solve/sweep"), pid);
    let before = snapshot(&run_dir.join("checkpoints"));
    for extra in ["--overwrite", "--resume"] {
        let (code, text) = run(TRAIN, &["--config", &cfg, extra, "--no-progress"], &dir);
        assert_eq!(code, 1, "{extra}: {text}");
        assert!(text.contains("in use by another process") && text.contains(&format!("solve pid {pid}")), "{text}");
        assert!(text.contains("solve/sweep"), "the message names the folder being written: {text}");
    }
    assert_eq!(snapshot(&run_dir.join("checkpoints")), before, "the model under the sweep is intact");
    kill(child);
    // A sweep with the run's oracle writing elsewhere holds the run too,
    // and is named by its own stamp (not "holder unknown").
    let elsewhere = dir.join("elsewhere");
    let child = crate::common::command(SOLVE)
        .args(["--run", &run_s, "--testset", "deepcubea-10", "--beam-log2", "0..16", "--max-depth", "30"])
        .args(["--out", &elsewhere.to_string_lossy(), "--label", "far"])
        .current_dir(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    wait_for_lock(&elsewhere.join("far"), pid);
    let (code, text) = run(TRAIN, &["--config", &cfg, "--overwrite", "--no-progress"], &dir);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains(&format!("solve pid {pid}")) && !text.contains("holder unknown"), "{text}");
    kill(child);
    // A classical solve writing deep inside the run (`--out <run>/solve/sub`)
    // takes the run's lock: train is refused, naming it.
    let deep = run_dir.join("solve/sub");
    let child = crate::common::command(SOLVE)
        .args(["classical", "ids", "--puzzle", "puzzle15", "--random", "1", "--seed", "1", "--max-depth", "80"])
        .args(["--out", &deep.to_string_lossy(), "--label", "deep"])
        .current_dir(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    wait_for_lock(&deep.join("deep"), pid);
    let (code, text) = run(TRAIN, &["--config", &cfg, "--overwrite", "--no-progress"], &dir);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("in use by another process") && text.contains(&format!("solve pid {pid}")), "{text}");
    assert_eq!(snapshot(&run_dir.join("checkpoints")), before, "the model under the deep solve is intact");
    kill(child);
    // The other way round: a training run in progress refuses solves on it.
    let long = smoke_config(&dir, "long.toml", 10_000_000);
    let child = crate::common::command(TRAIN)
        .args(["--config", &long, "--overwrite", "--no-progress"])
        .current_dir(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let lock = dir.join("runs/.smoke.lock");
    wait_for("train's lock", || std::fs::read_to_string(&lock).is_ok_and(|t| t.contains(&format!("pid {pid}"))));
    let (code, text) = run(SOLVE, &["--run", &run_s, "--scramble", "R", "--beam-width", "4", "--label", "x"], &dir);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains(&format!("train pid {pid}")), "{text}");
    kill(child);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_interrupted_new_solve_never_blocks_its_label_nor_passes_for_finished() {
    let dir = tmp("fresh");
    let run_dir = smoke_run_with_results(&dir);
    let run_s = run_dir.to_string_lossy().to_string();
    let sweep = run_dir.join("solve/fresh");
    let child = crate::common::command(SOLVE)
        .args(["--run", &run_s, "--testset", "deepcubea-10", "--beam-log2", "0..16", "--max-depth", "30"])
        .args(["--label", "fresh"])
        .current_dir(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for("the first width's plots", || sweep.join("plots/entropy_vs_depth.svg").exists());
    kill(child);
    let marker = std::fs::read_to_string(sweep.join(cube_oracle::folder::MARKER)).unwrap();
    assert!(marker.contains("state = incomplete"), "an interrupted folder is marked so: {marker}");
    let (code, text) = run(
        SOLVE,
        &["--run", &run_s, "--testset", "deepcubea-10", "--beam-log2", "2", "--max-depth", "4", "--label", "fresh"],
        &dir,
    );
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("left unfinished by an interrupted run") && text.contains("fresh.interrupted"), "{text}");
    let kept = run_dir.join("solve/fresh.interrupted");
    assert!(kept.join("plots/entropy_vs_depth.svg").exists(), "the partial results are kept");
    let marker = std::fs::read_to_string(sweep.join(cube_oracle::folder::MARKER)).unwrap();
    assert!(marker.contains("state = complete"), "{marker}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn export_refuses_a_destination_inside_the_run() {
    let dir = tmp("export");
    trained_smoke(&dir, 20);
    let before = snapshot(&dir.join("runs"));
    for to in ["runs/smoke/sub", "runs/smoke/solve/../copy", "./runs/smoke"] {
        let (code, text) = run(TRAIN, &["export-weights", "runs/smoke", "--to", to], &dir);
        assert_eq!(code, 1, "--to {to}: {text}");
        assert!(text.contains("inside the run it copies") || text.contains("already exists"), "--to {to}: {text}");
        assert_eq!(snapshot(&dir.join("runs")), before, "--to {to} wrote files");
    }
    let (code, text) = run(TRAIN, &["export-weights", "runs/smoke", "--to", "exported"], &dir);
    assert_eq!(code, 0, "{text}");
    assert!(dir.join("exported/config.toml").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_leg_stopped_before_its_first_log_says_so_instead_of_printing_nan() {
    let dir = tmp("nolog");
    let cfg = smoke_config(&dir, "smoke.toml", 40);
    // The smoke config logs every 5 steps: 3 steps leave metrics.csv empty.
    let (code, text) = run(TRAIN, &["--config", &cfg, "--max-steps", "3", "--no-progress"], &dir);
    assert_eq!(code, 0, "{text}");
    assert!(steps(&dir.join("runs/smoke/metrics.csv")).is_empty());
    assert!(text.contains("last log   none yet"), "{text}");
    assert!(!text.contains("NaN"), "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn resume_refuses_a_history_that_ends_before_the_checkpoint() {
    let dir = tmp("gap");
    let cfg = smoke_config(&dir, "smoke.toml", 40);
    let (code, text) = run(TRAIN, &["--config", &cfg, "--max-steps", "20", "--no-progress"], &dir);
    assert_eq!(code, 0, "{text}");
    let run_dir = dir.join("runs/smoke");
    let metrics = run_dir.join("metrics.csv");
    let good = std::fs::read_to_string(&metrics).unwrap();
    assert_eq!(steps(&metrics), vec![5, 10, 15, 20]);
    // Cut in the middle of step 15's row, and cleanly after step 10's.
    let at15 = good.find("\n15,").unwrap() + 5;
    let at10 = good.find("\n15,").unwrap() + 1;
    for (cut, shown) in [(at15, "ends at step 10 (its last line is cut off)"), (at10, "ends at step 10,")] {
        std::fs::write(&metrics, &good[..cut]).unwrap();
        let (code, text) = run(TRAIN, &["--config", &cfg, "--resume", "--no-progress"], &dir);
        assert_eq!(code, 1, "{text}");
        assert!(text.contains("metrics.csv") && text.contains(shown) && text.contains("up to step 20"), "{text}");
        assert_eq!(std::fs::read_to_string(&metrics).unwrap(), good[..cut], "the log is left as it was");
    }
    // A refused resume that would also have changed `[train]` leaves the
    // saved config as it was.
    let saved = std::fs::read(run_dir.join("config.toml")).unwrap();
    let longer = smoke_config(&dir, "longer.toml", 60);
    let (code, text) = run(TRAIN, &["--config", &longer, "--resume", "--no-progress"], &dir);
    assert_eq!(code, 1, "{text}");
    assert_eq!(std::fs::read(run_dir.join("config.toml")).unwrap(), saved, "the saved config is untouched");
    std::fs::write(&metrics, &good).unwrap();
    // eval.csv logs one row per depth at each evaluation: cut inside step 20's rows.
    let eval = run_dir.join("eval.csv");
    let eval_good = std::fs::read_to_string(&eval).unwrap();
    let last_row = eval_good.trim_end().rfind('\n').unwrap() + 1;
    std::fs::write(&eval, &eval_good[..last_row]).unwrap();
    let (code, text) = run(TRAIN, &["--config", &cfg, "--resume", "--no-progress"], &dir);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("eval.csv") && text.contains("ends at step 20, with"), "{text}");
    std::fs::write(&eval, &eval_good).unwrap();
    // A missing meta.json would drop the earlier legs.
    let meta = std::fs::read(run_dir.join("meta.json")).unwrap();
    std::fs::remove_file(run_dir.join("meta.json")).unwrap();
    let (code, text) = run(TRAIN, &["--config", &cfg, "--resume", "--no-progress"], &dir);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("meta.json is missing") && text.contains("--fresh-logs"), "{text}");
    std::fs::write(run_dir.join("meta.json"), b"{ not json").unwrap();
    let (code, text) = run(TRAIN, &["--config", &cfg, "--resume", "--fresh-logs", "--no-progress"], &dir);
    assert_eq!(code, 0, "{text}");
    assert_eq!(std::fs::read(run_dir.join("meta.json.before-resume")).unwrap(), b"{ not json");
    assert_ne!(std::fs::read(run_dir.join("meta.json")).unwrap(), meta);
    assert_eq!(steps(&metrics), vec![5, 10, 15, 20, 25, 30, 35, 40], "whole logs were continued");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_resume_may_change_how_often_it_logs_without_a_false_gap() {
    let dir = tmp("cadence");
    let cfg = smoke_config(&dir, "smoke.toml", 40);
    let (code, text) = run(TRAIN, &["--config", &cfg, "--max-steps", "30", "--no-progress"], &dir);
    assert_eq!(code, 0, "{text}");
    let eval = dir.join("runs/smoke/eval.csv");
    let rows = |path: &Path| {
        let mut s = steps(path);
        s.dedup();
        s
    };
    assert_eq!(rows(&eval), vec![20], "evaluated every 20 steps up to the checkpoint at 30");
    // Evaluating every 10 steps from now on would have put a row at 30: the
    // log was written on the old cadence and has no gap.
    let text10 = std::fs::read_to_string(&cfg).unwrap().replace("eval_every = 20", "eval_every = 10");
    let every10 = dir.join("every10.toml");
    std::fs::write(&every10, text10).unwrap();
    let every10 = every10.to_string_lossy().to_string();
    // A real gap is still one: the step-20 rows are gone.
    let good = std::fs::read_to_string(&eval).unwrap();
    std::fs::write(&eval, &good[..good.find('\n').unwrap() + 1]).unwrap();
    let (code, text) = run(TRAIN, &["--config", &every10, "--resume", "--no-progress"], &dir);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("eval.csv") && text.contains("up to step 20"), "{text}");
    std::fs::write(&eval, &good).unwrap();
    let (code, text) = run(TRAIN, &["--config", &every10, "--resume", "--no-progress"], &dir);
    assert_eq!(code, 0, "{text}");
    assert_eq!(rows(&eval), vec![20, 40], "the new cadence from step 30 on");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_checkpoint_of_another_kind_or_seed_is_refused_naming_both_sides() {
    let dir = tmp("foreign");
    let base = smoke_config(&dir, "smoke.toml", 20);
    let text = std::fs::read_to_string(&base).unwrap();
    let variant = |name: &str, from: &str, to: &str| {
        let path = dir.join(format!("{name}.toml"));
        let t = text.replace("name = \"smoke\"", &format!("name = \"{name}\"")).replacen(from, to, 1);
        std::fs::write(&path, t).unwrap();
        let path = path.to_string_lossy().to_string();
        let (code, out) = run(TRAIN, &["--config", &path, "--max-steps", "10", "--no-progress"], &dir);
        assert_eq!(code, 0, "{out}");
        path
    };
    let (code, out) = run(TRAIN, &["--config", &base, "--no-progress"], &dir);
    assert_eq!(code, 0, "{out}");
    let q = variant("q", "[model]\n", "[model]\nkind = \"q-distance\"\n");
    let seeded = variant("seeded", "seed = 1", "seed = 2");
    let policy_ckpt = dir.join("runs/smoke/checkpoints/step-00000020.ckpt");
    for (cfg, name, key) in [(&q, "q", "model.kind"), (&seeded, "seeded", "run.seed")] {
        let ckpts = dir.join("runs").join(name).join("checkpoints");
        std::fs::copy(&policy_ckpt, ckpts.join("step-00000020.ckpt")).unwrap();
        let (code, out) = run(TRAIN, &["--config", cfg, "--resume", "--no-progress"], &dir);
        assert_eq!(code, 1, "{out}");
        assert!(out.contains(&format!("trained with {key} =")) && out.contains("refusing"), "{out}");
        let run_s = dir.join("runs").join(name).to_string_lossy().to_string();
        let (code, out) = run(SOLVE, &["--run", &run_s, "--scramble", "R", "--beam-width", "4"], &dir);
        assert_eq!(code, 1, "{out}");
        assert!(out.contains(&format!("trained with {key} =")), "{out}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn configs_beyond_memory_or_with_unknown_settings_are_refused_before_anything_is_written() {
    let dir = tmp("bounds");
    let base = smoke_config(&dir, "smoke.toml", 20);
    let text = std::fs::read_to_string(&base).unwrap();
    let huge = text
        .replace("hidden = [64]", "hidden = [65536, 65536]")
        .replace("residual_blocks = 1", "residual_blocks = 64")
        .replace("states_per_step = 256", "states_per_step = 1048576");
    std::fs::write(dir.join("huge.toml"), huge).unwrap();
    let (code, out) = run(TRAIN, &["--config", "huge.toml", "--no-progress"], &dir);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("needs about") && out.contains("GiB") && out.contains("model.hidden"), "{out}");
    assert!(!dir.join("runs").exists(), "nothing is written for a refused config");
    // The held-out set counts too: 10⁵ walks of 1000 moves are 10⁸ encoded
    // states (about 136 GiB for the cube), refused before any is made.
    let held_out =
        text.replace("eval_walks = 20", "eval_walks = 100000").replace("scramble_len = 8", "scramble_len = 1000");
    std::fs::write(dir.join("held-out.toml"), held_out).unwrap();
    let (code, out) = run(TRAIN, &["--config", "held-out.toml", "--no-progress"], &dir);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("the held-out set (train.eval_walks 100000") && out.contains("shrink train.eval_walks"),
        "{out}"
    );
    assert!(!dir.join("runs").exists(), "nothing is written for a refused config");
    // A walk length of the wrong shape is refused with the rule.
    std::fs::write(dir.join("len.toml"), text.replace("scramble_len = 8", "scramble_len = -3")).unwrap();
    let (code, out) = run(TRAIN, &["--config", "len.toml", "--no-progress"], &dir);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("an integer ≥ 1, or { min = a, max = b }"), "{out}");
    std::fs::write(dir.join("len.toml"), text.replace("scramble_len = 8", "scramble_len = { min = 2 }")).unwrap();
    let (code, out) = run(TRAIN, &["--config", "len.toml", "--no-progress"], &dir);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("missing field `max`"), "{out}");
    // A broken rule names the file; a long value is shortened.
    let lr = "9".repeat(301);
    std::fs::write(dir.join("bad.toml"), text.replace("states_per_step = 256", "states_per_step = 0")).unwrap();
    let (code, out) = run(TRAIN, &["--config", "bad.toml", "--no-progress"], &dir);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("bad.toml") && out.contains("data.states_per_step"), "{out}");
    std::fs::write(dir.join("lr.toml"), text.replace("lr = 1e-3", &format!("lr = {lr}.0"))).unwrap();
    let (code, out) = run(TRAIN, &["--config", "lr.toml", "--no-progress"], &dir);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("lr.toml") && out.contains("optim.lr") && out.len() < 400, "{out}");
    // An unknown bf16 kernel request is refused, not ignored.
    std::fs::write(dir.join("bf16.toml"), text.replace("device = \"cpu\"", "device = \"cpu\"\nmatmul = \"bf16\""))
        .unwrap();
    let o = crate::common::command(TRAIN)
        .args(["--config", "bf16.toml", "--no-progress"])
        .env("CUBE_ORACLE_BF16_KERNEL", "turbo")
        .current_dir(&dir)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("CUBE_ORACLE_BF16_KERNEL") && out.contains("turbo"), "{out}");
    assert!(!dir.join("runs").exists(), "nothing is written for a refused config");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_failed_overwrite_puts_the_old_run_back() {
    let dir = tmp("restore");
    let cfg = trained_smoke(&dir, 20);
    let before = snapshot(&dir.join("runs"));
    // The new run cannot write a file of more than 200 bytes: its lock file
    // fits, its resolved config does not, so it fails at once.
    let mut cmd = crate::common::command(TRAIN);
    cmd.args(["--config", &cfg, "--overwrite", "--no-progress"]).current_dir(&dir);
    limit_file_size(&mut cmd, 200);
    let o = cmd.output().unwrap();
    let text = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(text.contains("restored"), "{text}");
    assert_eq!(snapshot(&dir.join("runs")), before, "the old run is back, whole");
    std::fs::remove_dir_all(&dir).unwrap();
}

fn steps(path: &Path) -> Vec<u64> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap().parse().unwrap())
        .collect()
}

#[test]
fn resume_keeps_history_or_stops_naming_the_file_and_line() {
    let dir = tmp("history");
    let cfg = smoke_config(&dir, "smoke.toml", 40);
    let (code, text) = run(TRAIN, &["--config", &cfg, "--max-steps", "20", "--no-progress"], &dir);
    assert_eq!(code, 0, "{text}");
    let metrics = dir.join("runs/smoke/metrics.csv");
    let good = std::fs::read(&metrics).unwrap();
    // Rows logged after the checkpoint (as a crash would leave them) are
    // dropped and counted; the rest is kept.
    let mut extra = good.clone();
    extra.extend_from_slice(b"25,1,1,1,1,1,1\n30,1,1,1,1,1,1\n");
    std::fs::write(&metrics, &extra).unwrap();
    let (code, text) = run(TRAIN, &["--config", &cfg, "--resume", "--max-steps", "5", "--no-progress"], &dir);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("metrics.csv: dropped 2 rows logged after the checkpoint's step 20"), "{text}");
    assert_eq!(steps(&metrics), vec![5, 10, 15, 20, 25]);
    // A missing log stops it too.
    std::fs::rename(dir.join("runs/smoke/kl.csv"), dir.join("kl.csv")).unwrap();
    let (code, text) = run(TRAIN, &["--config", &cfg, "--resume", "--no-progress"], &dir);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("kl.csv"), "{text}");
    // One byte that is not UTF-8: the resume stops, naming file and line,
    // and the file is left as it was.
    let mut bad = std::fs::read(&metrics).unwrap();
    let at = bad.iter().position(|&b| b == b'\n').unwrap() + 1 + bad.len() / 4;
    let line = 1 + bad[..at].iter().filter(|&&b| b == b'\n').count();
    bad[at] = 0xff;
    std::fs::write(&metrics, &bad).unwrap();
    let (code, text) = run(TRAIN, &["--config", &cfg, "--resume", "--no-progress"], &dir);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains(&format!("metrics.csv line {line}: not UTF-8")) && text.contains("--fresh-logs"),
        "line {line}: {text}"
    );
    assert_eq!(std::fs::read(&metrics).unwrap(), bad);
    // --fresh-logs starts the unreadable logs afresh and keeps the old files.
    let (code, text) = run(TRAIN, &["--config", &cfg, "--resume", "--fresh-logs", "--no-progress"], &dir);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("started afresh"), "{text}");
    assert_eq!(std::fs::read(dir.join("runs/smoke/metrics.csv.before-resume")).unwrap(), bad);
    assert_eq!(steps(&metrics), vec![30, 35, 40]);
    assert_eq!(steps(&dir.join("runs/smoke/eval.csv")).last(), Some(&40), "readable logs were continued");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_full_disk_stops_training_with_a_clear_error_and_a_resumable_checkpoint() {
    let dir = tmp("full");
    let cfg = smoke_config(&dir, "smoke.toml", 40);
    let (code, text) = run(TRAIN, &["--config", &cfg, "--max-steps", "10", "--no-progress"], &dir);
    assert_eq!(code, 0, "{text}");
    let ckpts = dir.join("runs/smoke/checkpoints");
    let size = std::fs::metadata(ckpts.join("step-00000010.ckpt")).unwrap().len();
    // The next leg may write files of at most half a checkpoint: the logs
    // fit, the checkpoint at step 20 does not (as on a full disk).
    let limit = size / 2;
    let mut cmd = crate::common::command(TRAIN);
    cmd.args(["--config", &cfg, "--resume", "--no-progress"]).current_dir(&dir);
    limit_file_size(&mut cmd, limit);
    let o = cmd.output().unwrap();
    let text = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(text.contains("step-00000020.ckpt") && text.contains("File too large"), "{text}");
    let left: Vec<String> =
        std::fs::read_dir(&ckpts).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().to_string()).collect();
    assert_eq!(left, vec!["step-00000010.ckpt".to_string()], "no partial checkpoint is left");
    let (code, text) = run(TRAIN, &["--config", &cfg, "--resume", "--no-progress"], &dir);
    assert_eq!(code, 0, "{text}");
    assert_eq!(steps(&dir.join("runs/smoke/metrics.csv")), (1..=8).map(|k| 5 * k).collect::<Vec<_>>());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A copy of the folder `from` (files and folders) at `to`.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&src, &dst)
        } else {
            std::fs::copy(&src, &dst).map(|_| ()).unwrap()
        }
    }
}

#[test]
fn the_one_command_solve_can_be_repeated_but_chosen_labels_keep_the_overwrite_rule() {
    let dir = tmp("repeat");
    let run_dir = smoke_run_with_results(&dir);
    let run_s = run_dir.to_string_lossy().to_string();
    let once = |extra: &[&str]| {
        let mut args = vec!["--run", run_s.as_str(), "--scramble", "R U'", "--beam-width", "8", "--max-depth", "4"];
        args.extend_from_slice(extra);
        run(SOLVE, &args, &dir)
    };
    let (code, first) = once(&[]);
    assert_eq!(code, 0, "{first}");
    let (code, second) = once(&[]);
    assert_eq!(code, 0, "the same one-cube solve twice: {second}");
    assert_eq!(first.lines().last(), second.lines().last(), "same folder");
    // Another checkpoint of the run is another oracle: its own folder.
    let ckpt = std::fs::read_dir(run_dir.join("checkpoints")).unwrap().flatten().next().unwrap().path();
    let (code, other) = once(&["--checkpoint", ckpt.to_str().unwrap()]);
    assert_eq!(code, 0, "{other}");
    let folder = |text: &str| text.lines().last().unwrap().trim_start_matches("results in ").to_string();
    assert_ne!(folder(&other), folder(&first), "{other}");
    assert!(Path::new(&folder(&first)).is_dir() || dir.join(folder(&first)).is_dir(), "{first}");
    // Under one --out folder, another run's result of the same cube is
    // kept beside the first run's, not written over it.
    let twin = dir.join("twin");
    copy_dir(&run_dir, &twin);
    let shared = dir.join("shared-out");
    let shared_s = shared.to_string_lossy().to_string();
    let (code, mine) = once(&["--out", &shared_s]);
    assert_eq!(code, 0, "{mine}");
    let twin_s = twin.to_string_lossy().to_string();
    let (code, theirs) = run(
        SOLVE,
        &["--run", &twin_s, "--scramble", "R U'", "--beam-width", "8", "--max-depth", "4", "--out", &shared_s],
        &dir,
    );
    assert_eq!(code, 0, "{theirs}");
    assert_ne!(folder(&mine), folder(&theirs), "{theirs}");
    for text in [&mine, &theirs] {
        assert!(Path::new(&folder(text)).join("instances.csv").is_file(), "both results are kept: {text}");
    }
    let (code, _) = once(&["--label", "mine"]);
    assert_eq!(code, 0);
    let (code, text) = once(&["--label", "mine"]);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("already exists") && text.contains("--overwrite"), "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}

// ---------------------------------------------------------------------------
// `solve`'s numeric bounds and the flags it would ignore: a value out of
// range or a flag the mode would silently drop is refused with one line
// (exit status 1, never a panic or an abort), before anything is started
// or written; a flag that belongs to no option of the mode is refused by
// the parser (exit status 2, naming the flag); `--max-depth` holds for
// every classical method.
// ---------------------------------------------------------------------------

/// `solve args` in `dir`, killed after `limit`: exit status (-1 when killed
/// or signalled), stdout + stderr, stderr alone, and the time it took.
fn solve_within(args: &[&str], dir: &Path, limit: Duration) -> (i32, String, String, Duration) {
    let (out_path, err_path) = (dir.join("stdout.txt"), dir.join("stderr.txt"));
    let start = Instant::now();
    let mut child = crate::common::command(SOLVE)
        .args(args)
        .current_dir(dir)
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .unwrap();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if start.elapsed() > limit {
            kill(child);
            break None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let took = start.elapsed();
    let (stdout, stderr) = (std::fs::read_to_string(out_path).unwrap(), std::fs::read_to_string(err_path).unwrap());
    (status.and_then(|s| s.code()).unwrap_or(-1), format!("{stdout}{stderr}"), stderr, took)
}

/// Asserts a refusal: exit status 1 within 20 s, one short line on stderr
/// that holds every one of `expected`, no panic, nothing written under
/// `out`. Returns that line.
fn assert_refused(args: &[&str], dir: &Path, out: &Path, expected: &[&str]) -> String {
    let (code, text, stderr, took) = solve_within(args, dir, Duration::from_secs(20));
    assert_eq!(code, 1, "{args:?} (after {took:?}): {text}");
    assert_eq!(stderr.lines().count(), 1, "{args:?}: one line, got {stderr}");
    assert!(stderr.starts_with("error: ") && !stderr.contains("panicked"), "{args:?}: {stderr}");
    for e in expected {
        assert!(stderr.contains(e), "{args:?}: expected `{e}` in {stderr}");
    }
    assert!(stderr.len() < 400, "{args:?}: long values are shortened, got {} bytes: {stderr}", stderr.len());
    assert!(!out.exists() || std::fs::read_dir(out).unwrap().next().is_none(), "{args:?} wrote into {out:?}");
    stderr
}

/// Asserts a refusal by the parser: exit status 2 within 20 s, a short
/// message whose first line is clap's `error: …` and holds every one of
/// `expected`, no panic, nothing written under `out`. Returns stderr.
fn assert_parse_refused(args: &[&str], dir: &Path, out: &Path, expected: &[&str]) -> String {
    let (code, text, stderr, took) = solve_within(args, dir, Duration::from_secs(20));
    assert_eq!(code, 2, "{args:?} (after {took:?}): {text}");
    let first = stderr.lines().next().unwrap_or("");
    assert!(first.starts_with("error: ") && !stderr.contains("panicked"), "{args:?}: {stderr}");
    for e in expected {
        assert!(first.contains(e), "{args:?}: expected `{e}` in {first}");
    }
    assert!(stderr.len() < 600, "{args:?}: long values are shortened, got {} bytes: {stderr}", stderr.len());
    assert!(!out.exists() || std::fs::read_dir(out).unwrap().next().is_none(), "{args:?} wrote into {out:?}");
    stderr
}

#[test]
fn a_classical_folder_that_exists_is_refused_before_the_search() {
    let dir = tmp("claim-early");
    let out = dir.join("out");
    let out_s = out.to_string_lossy().to_string();
    // Uninformed search of random 15-puzzle boards takes hours; with a
    // time limit it ends at once and makes the folder.
    let args = ["classical", "bfs", "--puzzle", "puzzle15", "--random", "3", "--seed", "1", "--out", &out_s];
    let (code, text, _, _) =
        solve_within(&[&args[..], &["--max-time-s", "0.05"]].concat(), &dir, Duration::from_secs(60));
    assert_eq!(code, 0, "{text}");
    let (code, text, _, took) = solve_within(&args, &dir, Duration::from_secs(60));
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("already exists") && text.contains("--overwrite"), "{text}");
    assert!(took < Duration::from_secs(20), "refused after {took:?}, not before the search");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn solve_refuses_counts_times_and_jobs_out_of_range_with_one_line() {
    let dir = tmp("solve-bounds");
    let out = dir.join("out");
    let out_s = out.to_string_lossy().to_string();
    let board = "2 3 0 / 1 8 6 / 5 7 4";
    let huge = u64::MAX.to_string();
    // --random: above the stated maximum of 1000000 instances, in every mode
    // that draws instances (the oracle's input is refused before its run loads).
    for n in [huge.as_str(), "1000000000000", "1000001"] {
        for mode in [
            &["classical", "idastar", "--puzzle", "puzzle8"][..],
            &["classical", "astar"],
            &["parberry", "--puzzle", "puzzle99"],
            &["parberry", "--puzzle", "puzzle8"],
            &[],
            &["beam"],
        ] {
            let args = [mode, &["--random", n, "--out", &out_s]].concat();
            let flag = format!("--random {n}");
            assert_refused(&args, &dir, &out, &[flag.as_str(), "1000000"]);
        }
    }
    // --max-time-s: positive and at most 10000000 seconds; a huge value is
    // shown in scientific notation, not as 301 digits.
    for t in ["1e300", "inf", "NaN", "-1", "-inf", "0", "10000001", "1e20"] {
        let flag = format!("--max-time-s={t}");
        let args = ["classical", "astar", "--puzzle", "puzzle8", "--board", board, "--out", &out_s, &flag];
        assert_refused(&args, &dir, &out, &["--max-time-s", "10000000"]);
    }
    assert_refused(
        &["classical", "ids", "--scramble", "R", "--out", &out_s, "--max-time-s", "1e300"],
        &dir,
        &out,
        &["--max-time-s 1e300:"],
    );
    // A negative value as its own word reaches the rule too (not the parser).
    assert_refused(
        &["classical", "ids", "--scramble", "R", "--out", &out_s, "--max-time-s", "-1"],
        &dir,
        &out,
        &["--max-time-s -1", "10000000"],
    );
    // Parberry's solutions are kept until the end: a run whose solutions
    // would not fit in 8 GiB is refused before any board is drawn.
    assert_refused(
        &["parberry", "--puzzle", "puzzle65535", "--random", "1000", "--out", &out_s],
        &dir,
        &out,
        &["--random 1000 with puzzle65535", "at most 85 boards of width 256"],
    );
    // --max-depth 0 and --max-generated 0 would report every instance
    // unsearched: refused, with the range.
    for (mode, most) in [(&["classical", "ids", "--scramble", "R"][..], "10000"), (&["--scramble", "R"], "2000")] {
        assert_refused(&[mode, &["--max-depth", "0", "--out", &out_s]].concat(), &dir, &out, &["--max-depth 0", most]);
    }
    assert_refused(
        &["classical", "astar", "--puzzle", "puzzle8", "--board", board, "--max-generated", "0", "--out", &out_s],
        &dir,
        &out,
        &["--max-generated 0", "at least 1"],
    );
    // --jobs: at most 4 per core (at least 8); 10000 on one instance is refused
    // at once instead of starting 10000 threads.
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    let most = (4 * cores).max(8).to_string();
    for mode in [
        &["classical", "idastar", "--puzzle", "puzzle8", "--board", board][..],
        &["parberry", "--puzzle", "puzzle8", "--board", board],
        &["classical", "astar", "--puzzle", "puzzle8", "--random", "3"],
        &["--scramble", "R"],
        &["exact", "--random", "3"],
    ] {
        let args = [mode, &["--jobs", "10000", "--out", &out_s]].concat();
        assert_refused(&args, &dir, &out, &["--jobs 10000", &most]);
    }
    // --trials (local search): at most 1000000 trials, refused before the first.
    for n in [huge.as_str(), "1000001"] {
        assert_refused(
            &["local", "hill-climbing", "--problem", "queens8", "--trials", n, "--out", &out_s],
            &dir,
            &out,
            &["--trials", "1000000"],
        );
    }
    // The largest --jobs allowed on one instance starts one worker: quick.
    for mode in [&["classical", "idastar"][..], &["parberry"]] {
        let args = [mode, &["--puzzle", "puzzle8", "--board", board, "--jobs", &most, "--out", &out_s]].concat();
        let (code, text, _, took) = solve_within(&args, &dir, Duration::from_secs(20));
        assert_eq!(code, 0, "{args:?}: {text}");
        assert!(text.contains("verified") && took < Duration::from_secs(10), "{args:?} took {took:?}: {text}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn solve_refuses_flags_that_its_mode_would_ignore() {
    let dir = tmp("ignored");
    let out = dir.join("out");
    let out_s = out.to_string_lossy().to_string();
    let board = "2 3 0 / 1 8 6 / 5 7 4";
    let astar8 = ["classical", "astar", "--puzzle", "puzzle8", "--out", &out_s];
    let seed = "--seed applies to --random";
    let cases: Vec<(Vec<&str>, Vec<&str>)> = vec![
        // --seed draws nothing from a given instance or set.
        ([&astar8[..], &["--board", board, "--seed", "7"]].concat(), vec![seed]),
        ([&astar8[..], &["--testset", "missing.tsv", "--seed", "7"]].concat(), vec![seed]),
        (vec!["classical", "ids", "--scramble", "R", "--seed", "0", "--out", &out_s], vec![seed]),
        (vec!["--facelets", "UUU", "--seed", "1", "--out", &out_s], vec![seed]),
        (vec!["parberry", "--puzzle", "puzzle8", "--board", board, "--seed", "3", "--out", &out_s], vec![seed]),
        // --metric is a cube's move set.
        ([&astar8[..], &["--board", board, "--metric", "htm"]].concat(), vec!["--metric", "puzzle8"]),
        ([&astar8[..], &["--random", "2", "--metric", "qtm"]].concat(), vec!["--metric", "puzzle8"]),
        (vec!["distances", "--puzzle", "puzzle8", "--metric", "htm", "--out", &out_s], vec!["--metric"]),
        // A distance table's bound shrinks as the board's branching grows (memory).
        (vec!["distances", "--puzzle", "puzzle24", "--out", &out_s], vec!["--max-depth, at most 21"]),
        (
            vec!["distances", "--puzzle", "puzzle24", "--max-depth", "22", "--out", &out_s],
            vec!["at most 21 for puzzle24"],
        ),
        (
            vec!["distances", "--puzzle", "puzzle63", "--max-depth", "19", "--out", &out_s],
            vec!["at most 18 for puzzle63"],
        ),
        // Korf's solver searches to God's number on every core.
        (
            vec!["classical", "idastar", "--scramble", "R U", "--max-depth", "5", "--out", &out_s],
            vec!["--max-depth 5", "pdb-generic"],
        ),
        (vec!["classical", "idastar", "--scramble", "R U", "--jobs", "2", "--out", &out_s], vec!["--jobs 2"]),
    ];
    for (args, expected) in &cases {
        assert_refused(args, &dir, &out, expected);
    }
    // `solve distances` searches from the goal: no seed, method, heuristic,
    // limits or workers; those flags are not among its options.
    let distances = ["distances", "--puzzle", "puzzle8", "--out", &out_s];
    for extra in [
        &["--seed", "3"][..],
        &["--method", "astar"],
        &["--heuristic", "manhattan"],
        &["--jobs", "2"],
        &["--max-generated", "9"],
    ] {
        let unexpected = format!("unexpected argument '{}'", extra[0]);
        assert_parse_refused(&[&distances[..], extra].concat(), &dir, &out, &[&unexpected]);
    }
    // The same flags where they apply are accepted.
    for args in [
        [&astar8[..], &["--random", "2", "--seed", "7", "--label", "seeded"]].concat(),
        vec!["classical", "bfs", "--scramble", "R U", "--metric", "htm", "--out", &out_s, "--label", "htm"],
        vec!["distances", "--puzzle", "puzzle8", "--max-depth", "5", "--out", &out_s, "--label", "table"],
    ] {
        let (code, text, _, _) = solve_within(&args, &dir, Duration::from_secs(60));
        assert_eq!(code, 0, "{args:?}: {text}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn solve_max_depth_holds_for_every_classical_method() {
    use cube_oracle::search::DistanceTable;
    use cube_oracle::sliding::{Goal, Sliding};
    let dir = tmp("depth");
    let out = dir.join("out");
    let out_s = out.to_string_lossy().to_string();
    let board = "2 3 0 / 1 8 6 / 5 7 4";
    let p = Sliding::new(3, Goal::BlankLast).unwrap();
    let d = DistanceTable::build(&p, 40).distance(&p, &p.parse_board(board).unwrap()).unwrap();
    for method in ["astar", "greedy", "ucs", "idastar", "rbfs", "ids", "bfs"] {
        for depth in [d - 1, d] {
            let (depth_s, label) = (depth.to_string(), format!("{method}-{depth}"));
            let args = [
                "classical",
                method,
                "--puzzle",
                "puzzle8",
                "--board",
                board,
                "--max-depth",
                &depth_s,
                "--out",
                &out_s,
            ];
            let (code, text, _, _) =
                solve_within(&[&args[..], &["--label", &label]].concat(), &dir, Duration::from_secs(60));
            assert_eq!(code, 0, "{method} --max-depth {depth}: {text}");
            let status = std::fs::read_to_string(out.join(&label).join("instances.csv")).unwrap();
            if depth < d {
                assert!(text.contains(&format!("no solution within depth {depth}")), "{method} {depth}: {text}");
                assert!(status.contains(",exhausted,false,"), "{method} {depth}: {status}");
            } else {
                assert!(text.contains(&format!("({d} moves; verified)")), "{method} {depth}: {text}");
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn solve_messages_are_one_line_without_repeated_causes_or_long_echoes() {
    let dir = tmp("messages");
    let out = dir.join("out");
    let out_s = out.to_string_lossy().to_string();
    let long = "x".repeat(5000);
    let digits = format!("1{}", "0".repeat(300));
    let cases: Vec<(Vec<&str>, Vec<&str>)> = vec![
        // The cause once, not "unsolvable: …: unsolvable: …".
        (
            vec!["classical", "astar", "--puzzle", "puzzle8", "--board", "2 1 3 / 4 5 6 / 7 8 0", "--out", &out_s],
            vec!["instance board: unsolvable"],
        ),
        (
            vec!["classical", "astar", "--puzzle", "puzzle8", "--random", "1", "--heuristic", &long, "--out", &out_s],
            vec!["unknown heuristic", "…"],
        ),
        (vec!["classical", "astar", "--board", &long, "--out", &out_s], vec!["describes a sliding puzzle", "…"]),
        (
            vec!["local", "annealing", "--problem", "queens8", "--trials", "1", "--cooling", &digits, "--out", &out_s],
            vec!["--cooling 1e300:"],
        ),
        (
            vec!["local", "first-choice", "--problem", "queens8", "--seed", "18446744073709551615", "--trials", "2"]
                .into_iter()
                .chain(["--out", out_s.as_str()])
                .collect(),
            vec!["--seed 18446744073709551615 with --trials 2:", "seed + i"],
        ),
        (
            vec!["classical", "astar", "--puzzle", "puzzle8", "--random", "2", "--goal", "1 2 3 / 4 5 6 / 7 8 8"]
                .into_iter()
                .chain(["--out", out_s.as_str()])
                .collect(),
            vec!["--goal `1 2 3 / 4 5 6 / 7 8 8`: tile 8 appears twice"],
        ),
        (
            vec!["local", "first-choice", "--problem", "queens8", "--max-steps", "0", "--out", &out_s],
            vec!["--max-steps 0: the step limit must be at least 1"],
        ),
        (
            vec!["classical", "astar", "--puzzle", "puzzle8", "--board", "1 2 3 / 4 5 6 / 7 8 0", "--out", &out_s]
                .into_iter()
                .chain(["--max-time-s", digits.as_str()])
                .collect(),
            vec!["--max-time-s 1e300:"],
        ),
    ];
    for (args, expected) in &cases {
        let stderr = assert_refused(args, &dir, &out, expected);
        assert!(!stderr.contains(&"0".repeat(41)) && !stderr.contains(&"x".repeat(41)), "{stderr}");
        assert!(stderr.matches("unsolvable").count() <= 1, "the cause once: {stderr}");
    }
    // An unknown method and an unknown metric are the parser's refusals
    // (exit status 2); the long value is shortened there too.
    let parse_cases: Vec<(Vec<&str>, Vec<&str>)> = vec![
        (vec!["classical", &long, "--random", "1", "--out", &out_s], vec!["unrecognized subcommand", "…"]),
        (
            vec!["classical", "astar", "--scramble", "R", "--metric", &long, "--out", &out_s],
            vec!["invalid value", "--metric", "…"],
        ),
    ];
    for (args, expected) in &parse_cases {
        let stderr = assert_parse_refused(args, &dir, &out, expected);
        assert!(!stderr.contains(&"x".repeat(41)), "{stderr}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn solve_test_set_files_are_read_within_a_stated_size() {
    let dir = tmp("testset-size");
    let out = dir.join("out");
    let out_s = out.to_string_lossy().to_string();
    // One byte over 256000000 (a sparse file: no disk is used).
    let big = dir.join("big.tsv");
    std::fs::File::create(&big).unwrap().set_len(256_000_001).unwrap();
    let big_s = big.to_string_lossy().to_string();
    assert_refused(
        &["classical", "astar", "--puzzle", "puzzle8", "--testset", &big_s, "--out", &out_s],
        &dir,
        &out,
        &["big.tsv", "256000000"],
    );
    assert_refused(&["classical", "ids", "--testset", &big_s, "--out", &out_s], &dir, &out, &["big.tsv", "256000000"]);
    assert_refused(&["--testset", &big_s, "--out", &out_s], &dir, &out, &["big.tsv", "256000000"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn solve_help_states_every_bound() {
    // Each mode's help states the bounds of the flags it takes.
    let random = "1 to 1000000";
    let jobs = "At most 4 per core of the machine (at least 8 are always allowed)";
    let testset = "at most 256000000 bytes and 1000000 instances";
    let seed = "Seed of --random";
    let oracle_depth = "Depth limit, 1 to 2000";
    let classical_depth = "Depth limit, 1 to 10000 ";
    let generated = "this many nodes (at least 1)";
    let trials = "Seeded trials, 1 to 1000000";
    let restarts = "Random restarts after a failed climb, at most 1000000";
    let steps = "Steps per climb, 1 to 1000000000 (default: annealing 10000, hill climbing 1000000)";
    let sideways = "per climb, at most 1000000000";
    for (mode, bounds) in [
        (&[][..], &[random, jobs, testset, seed, oracle_depth][..]),
        (&["beam"], &[random, jobs, testset, seed, oracle_depth]),
        (&["exact"], &[random, jobs, oracle_depth]),
        (&["classical", "astar"], &[random, jobs, testset, seed, "at most 10000000", classical_depth, generated]),
        (&["classical", "rbfs"], &[random, jobs, testset, seed, classical_depth, generated]),
        (&["parberry"], &[random, jobs, testset, seed]),
        (&["local", "hill-climbing"], &[trials, restarts, steps, sideways]),
        (&["local", "first-choice"], &[trials, restarts, steps, sideways]),
        (&["local", "annealing"], &[trials, restarts, steps]),
    ] {
        let (code, text) = run(SOLVE, &[mode, &["--help"]].concat(), &std::env::temp_dir());
        assert_eq!(code, 0, "{text}");
        let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
        for bound in bounds {
            assert!(flat.contains(bound), "`{bound}` in solve {mode:?} --help:\n{text}");
        }
    }
}

#[test]
fn a_closed_standard_output_never_loses_the_results() {
    let dir = tmp("pipe");
    let out = dir.join("out").to_string_lossy().to_string();
    // A reader that leaves at once, as `solve … | head -0` does.
    let mut child = crate::common::command(SOLVE)
        .args(["classical", "astar", "--puzzle", "puzzle8", "--heuristic", "manhattan", "--random", "20"])
        .args(["--out", &out, "--label", "piped"])
        .current_dir(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let status = child.wait().unwrap();
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert_eq!(status.code(), Some(0), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let marker = std::fs::read_to_string(dir.join("out/piped").join(cube_oracle::folder::MARKER)).unwrap();
    assert!(marker.contains("state = complete"), "{marker}");
    std::fs::remove_dir_all(&dir).unwrap();
}

// ---------------------------------------------------------------------------
// Part 2, continued: `train --overwrite` replaces only what train made (not
// a folder of another tool that happens to hold `config.toml` and
// `checkpoints/`), a failed export leaves nothing, every depth and
// local-search limit has a stated bound, `train`, `study` and `play` print
// one-line errors, and `study` writes its tables only over regular files.
// ---------------------------------------------------------------------------

#[test]
fn train_overwrite_refuses_a_folder_of_another_tool_and_leaves_it_intact() {
    let dir = tmp("foreign-run");
    // A PyTorch project: its own config.toml, checkpoints/ and meta.json.
    let project = dir.join("torch_project");
    std::fs::create_dir_all(project.join("checkpoints")).unwrap();
    std::fs::write(project.join("config.toml"), "lr = 0.1\nepochs = 3\n[model]\nhidden = 512\n").unwrap();
    std::fs::write(project.join("checkpoints/epoch-3.pt"), b"PK\x03\x04 torch weights").unwrap();
    std::fs::write(project.join("meta.json"), r#"{"epoch": 3}"#).unwrap();
    // And one whose config.toml is a training config, but nothing else of train's.
    let copied = dir.join("copied_config");
    std::fs::create_dir_all(copied.join("checkpoints")).unwrap();
    std::fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/smoke.toml"), copied.join("config.toml"))
        .unwrap();
    std::fs::write(copied.join("checkpoints/model.ckpt"), b"not train's checkpoint").unwrap();
    let before = snapshot(&dir);
    let base = std::fs::read_to_string(smoke_config(&dir, "base.toml", 40)).unwrap();
    std::fs::remove_file(dir.join("base.toml")).unwrap();
    for name in ["torch_project", "copied_config"] {
        let cfg = dir.join(format!("{name}.toml"));
        std::fs::write(&cfg, base.replace("name = \"smoke\"", &format!("name = \"{name}\"\nout_dir = \".\""))).unwrap();
        let cfg = cfg.to_string_lossy().to_string();
        for how in ["--overwrite", "--resume"] {
            let (code, text) = run(TRAIN, &["--config", &cfg, how, "--no-progress"], &dir);
            assert_eq!(code, 1, "{name} {how}: {text}");
            assert!(text.contains("is not a run made by train"), "{name} {how}: {text}");
        }
        let (code, text) = run(TRAIN, &["export-weights", name, "--to", "exported"], &dir);
        assert_eq!(code, 1, "{name}: {text}");
        assert!(text.contains("is not a run directory"), "{name}: {text}");
        std::fs::remove_file(&cfg).unwrap();
    }
    assert_eq!(snapshot(&dir), before, "the other tool's folders are intact");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_failed_export_removes_what_it_wrote_and_the_folders_it_made() {
    let dir = tmp("export-fail");
    trained_smoke(&dir, 20);
    let before = snapshot(&dir.join("runs"));
    // Each file the export writes may hold at most 1000 bytes: the lock's
    // stamp fits, the copied logs or the network do not.
    for flag in ["export-weights", "export"] {
        let mut cmd = crate::common::command(TRAIN);
        cmd.args([flag, "runs/smoke", "--to", "nested/deeper/exported"]).current_dir(&dir);
        limit_file_size(&mut cmd, 1000);
        let o = cmd.output().unwrap();
        let text = String::from_utf8_lossy(&o.stderr).to_string();
        assert_eq!(o.status.code(), Some(1), "{flag}: {text}");
        assert!(text.contains("File too large") && text.lines().count() == 1, "{flag}: {text}");
        assert!(!dir.join("nested").exists(), "{flag} left a partial export or the folders it made");
        assert_eq!(snapshot(&dir.join("runs")), before, "{flag} changed the run");
    }
    // --no-progress has nothing to hide in an export: refused, not ignored.
    let (code, text) = run(TRAIN, &["export", "runs/smoke", "--to", "x", "--no-progress"], &dir);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("--no-progress") && text.contains("train export"), "{text}");
    // A parent that was there before stays.
    std::fs::create_dir_all(dir.join("kept")).unwrap();
    let (code, text) = run(TRAIN, &["export-weights", "runs/smoke", "--to", "kept/exported"], &dir);
    assert_eq!(code, 0, "{text}");
    assert!(dir.join("kept/exported/config.toml").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn solve_refuses_depths_and_local_limits_out_of_range_and_a_plateau_climb_ends() {
    let dir = tmp("depth-bounds");
    let out = dir.join("out");
    let out_s = out.to_string_lossy().to_string();
    let board = "2 3 0 / 1 8 6 / 5 7 4";
    let huge = u64::MAX.to_string();
    let hc = ["local", "hill-climbing", "--problem", "queens8", "--out", &out_s];
    let fc = ["local", "first-choice", "--problem", "queens8", "--out", &out_s];
    let anneal = ["local", "annealing", "--problem", "queens8", "--out", &out_s];
    let idastar = ["classical", "idastar", "--puzzle", "puzzle8", "--board", board, "--out", &out_s];
    let cases: Vec<(Vec<&str>, Vec<&str>)> = vec![
        ([&hc[..], &["--max-steps", "1000000001"]].concat(), vec!["--max-steps 1000000001", "1000000000"]),
        ([&anneal[..], &["--max-steps", &huge]].concat(), vec!["--max-steps 18446744073709551615", "1000000000"]),
        ([&hc[..], &["--max-restarts", "1000001"]].concat(), vec!["--max-restarts 1000001", "1000000"]),
        ([&anneal[..], &["--max-restarts", &huge]].concat(), vec!["--max-restarts", "1000000"]),
        ([&fc[..], &["--max-sideways", &huge]].concat(), vec!["--max-sideways", "1000000000"]),
        ([&idastar[..], &["--max-depth", "10001"]].concat(), vec!["--max-depth 10001", "10000"]),
        (
            vec!["classical", "rbfs", "--puzzle", "puzzle8", "--random", "2", "--max-depth", &huge, "--out", &out_s],
            vec!["--max-depth 18446744073709551615", "10000"],
        ),
        (
            vec!["classical", "astar", "--scramble", "R", "--max-depth", "4294967296", "--out", &out_s],
            vec!["--max-depth 4294967296", "10000"],
        ),
        (vec!["--scramble", "R U", "--max-depth", "2001", "--out", &out_s], vec!["--max-depth 2001", "2000"]),
        (vec!["exact", "--random", "3", "--max-depth", &huge, "--out", &out_s], vec!["--max-depth", "2000"]),
    ];
    for (args, expected) in &cases {
        assert_refused(args, &dir, &out, expected);
    }
    // At the bounds, accepted.
    for args in [
        [&idastar[..], &["--max-depth", "10000", "--label", "deepest"]].concat(),
        [&hc[..], &["--max-steps", "1000000000", "--max-restarts", "1000000", "--label", "most"]].concat(),
    ] {
        let (code, text, _, _) = solve_within(&args, &dir, Duration::from_secs(60));
        assert_eq!(code, 0, "{args:?}: {text}");
    }
    // A climb that may wander a plateau for ever (sideways moves without
    // limit) ends at the default step limit of hill climbing.
    let args = [&hc[..], &["--max-sideways", "1000000000", "--trials", "20", "--label", "plateau"]].concat();
    let (code, text, _, took) = solve_within(&args, &dir, Duration::from_secs(20));
    assert_eq!(code, 0, "{args:?} (after {took:?}): {text}");
    assert!(text.contains("max-steps 1000000)"), "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `bin args` in `dir`: exit status and stderr.
fn stderr_of(bin: &str, args: &[&str], dir: &Path) -> (i32, String) {
    let o = crate::common::command(bin).args(args).current_dir(dir).output().unwrap();
    (o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stderr).to_string())
}

#[test]
fn train_study_and_play_print_one_line_errors() {
    let dir = tmp("one-line");
    let configs = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs");
    let long = "x".repeat(5000);
    let base = std::fs::read_to_string(configs.join("smoke.toml")).unwrap();
    std::fs::write(dir.join("long.toml"), base.replace("norm = \"batch\"", &format!("norm = \"{long}\""))).unwrap();
    let study_base = configs.join("cube2-reference.toml");
    let study = |extra: &str| {
        format!(
            "[study]\nname = \"s\"\nbase = {study_base:?}\nout_dir = {dir:?}\nhidden = [[16]]\nsamples = [400000]\n{extra}\n\n[eval]\nrandom = 2\nbeam_log2 = [2]\n"
        )
    };
    std::fs::write(dir.join("study.toml"), study("")).unwrap();
    std::fs::write(dir.join("long-study.toml"), study(&format!("kind = \"{long}\""))).unwrap();
    std::fs::write(dir.join("plain\nfile"), "a file, not a folder").unwrap();
    let play = env!("CARGO_BIN_EXE_play");
    let study_bin = env!("CARGO_BIN_EXE_study");
    let cases: Vec<(&str, Vec<&str>, Vec<&str>)> = vec![
        // A line break in a value the message quotes is folded.
        (TRAIN, vec!["--config", "no\nsuch.toml"], vec!["cannot read config file no such.toml", "os error 2"]),
        // A long value serde echoes in full is shortened.
        (TRAIN, vec!["--config", "long.toml", "--no-progress"], vec!["long.toml", "unknown variant", "…"]),
        (study_bin, vec!["--config", "study.toml", "--shard", "x\ny"], vec!["--shard x y: expected k/n"]),
        (study_bin, vec!["--config", "long-study.toml", "--list"], vec!["study config", "unknown variant", "…"]),
        (
            play,
            vec!["--game", "sticks", "--piles", "3,5", "--csv", "plain\nfile/x.csv"],
            vec!["creating", "plain file"],
        ),
    ];
    for (bin, args, expected) in &cases {
        let (code, stderr) = stderr_of(bin, args, &dir);
        let name = Path::new(bin).file_name().unwrap().to_string_lossy().to_string();
        assert_eq!(code, 1, "{name} {args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{name} {args:?}: one line, got {stderr}");
        assert!(stderr.starts_with("error: ") && !stderr.contains("panicked"), "{name} {args:?}: {stderr}");
        assert!(stderr.len() < 400 && !stderr.contains(&"x".repeat(100)), "{name} {args:?}: {stderr}");
        for e in expected {
            assert!(stderr.contains(e), "{name} {args:?}: expected `{e}` in {stderr}");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn study_tables_are_written_only_over_regular_files() {
    let dir = tmp("study-tables");
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/cube2-reference.toml");
    let text = format!(
        "[study]\nname = \"s\"\nbase = {base:?}\nout_dir = {dir:?}\nhidden = [[16]]\nsamples = [400000]\n\n[eval]\nrandom = 2\nbeam_log2 = [2]\n"
    );
    std::fs::write(dir.join("study.toml"), text).unwrap();
    let folder = dir.join("s");
    std::fs::create_dir_all(&folder).unwrap();
    let fifo = folder.join("points.csv");
    let c = std::ffi::CString::new(fifo.to_string_lossy().as_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0, "mkfifo {}", fifo.display());
    std::fs::write(dir.join("target.csv"), "kept").unwrap();
    let study_bin = env!("CARGO_BIN_EXE_study");
    let (code, stderr) = stderr_of(study_bin, &["--config", "study.toml", "--fit"], &dir);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("points.csv") && stderr.contains("a FIFO, not a regular file"), "{stderr}");
    assert!(std::os::unix::fs::FileTypeExt::is_fifo(&std::fs::symlink_metadata(&fifo).unwrap().file_type()));
    std::fs::remove_file(&fifo).unwrap();
    std::os::unix::fs::symlink(dir.join("target.csv"), folder.join("fit.csv")).unwrap();
    let (code, stderr) = stderr_of(study_bin, &["--config", "study.toml", "--fit"], &dir);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("fit.csv") && stderr.contains("a symbolic link"), "{stderr}");
    assert!(std::fs::symlink_metadata(folder.join("fit.csv")).unwrap().file_type().is_symlink());
    assert_eq!(std::fs::read_to_string(dir.join("target.csv")).unwrap(), "kept");
    assert!(!folder.join("points.csv").exists(), "nothing written");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn solve_refuses_an_unknown_bf16_kernel_request() {
    let dir = tmp("bf16-env");
    let run_dir = crate::common::shipped_run_copy("reference-cube2", &dir);
    let out = dir.join("out");
    let args = ["--run", &run_dir.to_string_lossy(), "--scramble", "R", "--beam-width", "4", "--matmul", "bf16"];
    let o = crate::common::command(SOLVE)
        .args(args)
        .args(["--out", &out.to_string_lossy()])
        .env("CUBE_ORACLE_BF16_KERNEL", "turbo")
        .current_dir(&dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("CUBE_ORACLE_BF16_KERNEL") && stderr.contains("turbo"), "{stderr}");
    assert!(!out.exists() || std::fs::read_dir(&out).unwrap().next().is_none(), "nothing solved");
    // A kernel it knows is taken.
    let o = crate::common::command(SOLVE)
        .args(args)
        .args(["--out", &out.to_string_lossy()])
        .env("CUBE_ORACLE_BF16_KERNEL", "none")
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::remove_dir_all(&dir).unwrap();
}
