//! Nothing a user types destroys their data, tested on the real binaries:
//! labels are names (the four destructive `--label … --overwrite` cases of
//! issue #17 are refused and delete nothing), an interrupted `--overwrite`
//! keeps the old results, runs and output folders are locked while in use
//! (and a killed holder never blocks), resume keeps the logged history or
//! stops with the file and line, a full disk stops training with a
//! resumable checkpoint, and one-cube solves can be repeated.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cube-oracle-reliability-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run(bin: &str, args: &[&str], dir: &Path) -> (i32, String) {
    let o: Output = Command::new(bin).args(args).current_dir(dir).output().unwrap();
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
        &["--puzzle", "puzzle8", "--method", "astar", "--board", "1 2 3 / 4 5 6 / 7 0 8", "--out", &out_s]
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
    let child = Command::new(SOLVE)
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
    // The next claim of the label tidies the leftover and replaces `keep`.
    let (code, text) = run(
        SOLVE,
        &["--run", &run_s, "--testset", "deepcubea-10", "--beam-log2", "3", "--max-depth", "4", "--label", "keep"]
            .into_iter()
            .chain(["--overwrite"])
            .collect::<Vec<_>>(),
        &dir,
    );
    assert_eq!(code, 0, "{text}");
    assert!(!staging.exists(), "the leftover staging folder is removed");
    assert_ne!(snapshot(&keep), before, "the completed rerun replaced the results");
    let names: Vec<String> = std::fs::read_dir(run_dir.join("solve"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    assert_eq!(names, vec!["keep".to_string()], "no staging folder or lock file is left");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_run_in_use_is_locked_and_a_killed_holder_never_blocks() {
    let dir = tmp("lock");
    let cfg = smoke_config(&dir, "long.toml", 10_000_000);
    let child = Command::new(TRAIN)
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
    let mut cmd = Command::new(TRAIN);
    cmd.args(["--config", &cfg, "--resume", "--no-progress"]).current_dir(&dir);
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let lim = libc::rlimit { rlim_cur: limit, rlim_max: limit };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
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
    let (code, _) = once(&["--label", "mine"]);
    assert_eq!(code, 0);
    let (code, text) = once(&["--label", "mine"]);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("already exists") && text.contains("--overwrite"), "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}
