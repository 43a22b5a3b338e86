//! What a user hands the tools and what they may not do with it: inputs
//! that are not regular files (FIFOs, devices) are refused at once instead
//! of hanging or reading without end; a beam too wide for the machine is
//! refused before it is searched; a full disk under a plot is reported in
//! the OS's words; kernel variables are checked whether or not a run reads
//! them; a run nested in another (a fine-tune's `init/`) is locked with it;
//! `--overwrite` replaces only folders that carry the tool's marker.

use super::common::command;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

const TRAIN: &str = env!("CARGO_BIN_EXE_train");
const SOLVE: &str = env!("CARGO_BIN_EXE_solve");
const STUDY: &str = env!("CARGO_BIN_EXE_study");

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cube-oracle-inputs-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.to_string_lossy().as_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0, "mkfifo {}", path.display());
}

/// Runs `bin` in `dir` with `env`, killed after 30 s (a hang fails the
/// test instead of stalling it): exit code (-1 when killed) and stderr.
fn run_within(bin: &str, args: &[&str], dir: &Path, env: &[(&str, &str)]) -> (i32, String) {
    let err_path = dir.join(format!("stderr-{}.txt", Instant::now().elapsed().as_nanos()));
    let mut cmd = command(bin);
    cmd.args(args).current_dir(dir).stdout(Stdio::null()).stderr(std::fs::File::create(&err_path).unwrap());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    let start = Instant::now();
    let code = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status.code().unwrap_or(-1);
        }
        if start.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            let _ = child.wait();
            break -1;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let stderr = std::fs::read_to_string(&err_path).unwrap();
    std::fs::remove_file(err_path).unwrap();
    (code, stderr)
}

/// The smoke config (40 steps) in `dir/smoke.toml`, trained into
/// `dir/runs/smoke`.
fn smoke_run(dir: &Path) -> PathBuf {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/smoke.toml");
    std::fs::copy(base, dir.join("smoke.toml")).unwrap();
    let (code, err) = run_within(TRAIN, &["--config", "smoke.toml", "--no-progress"], dir, &[]);
    assert_eq!(code, 0, "{err}");
    dir.join("runs/smoke")
}

fn assert_one_line_refusal(what: &str, (code, err): (i32, String), expected: &[&str]) {
    assert_eq!(code, 1, "{what}: exit {code} (-1: killed after 30 s): {err}");
    // (A resume says where it resumes from before it reads the logs.)
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error: ")).collect();
    assert_eq!(errors.len(), 1, "{what}: one error line: {err}");
    assert!(err.lines().last() == Some(errors[0]) && !err.contains("panicked"), "{what}: {err}");
    let err = errors[0];
    for e in expected {
        assert!(err.contains(e), "{what}: expected `{e}` in {err}");
    }
}

#[test]
fn inputs_that_are_not_regular_files_are_refused_at_once() {
    let dir = tmp("fifo");
    smoke_run(&dir);
    for name in ["fifo.toml", "fifo.tsv", "fifo.ckpt", "study.toml"] {
        mkfifo(&dir.join(name));
    }
    // A study whose base config is a FIFO.
    std::fs::write(
        dir.join("base-fifo.toml"),
        "[study]\nname = \"s\"\nbase = \"fifo.toml\"\nhidden = [[8]]\nsamples = [1000]\n\n[eval]\nrandom = 1\nbeam_log2 = [2]\n",
    )
    .unwrap();
    let solve = |extra: &[&str]| {
        let mut args = vec!["--run", "runs/smoke", "--beam-log2", "2", "--out", "out"];
        args.extend_from_slice(extra);
        run_within(SOLVE, &args, &dir, &[])
    };
    let fifo = "a FIFO, not a regular file";
    assert_one_line_refusal(
        "train --config FIFO",
        run_within(TRAIN, &["--config", "fifo.toml"], &dir, &[]),
        &["fifo.toml", fifo],
    );
    assert_one_line_refusal(
        "study --config FIFO",
        run_within(STUDY, &["--config", "study.toml"], &dir, &[]),
        &["study.toml", fifo],
    );
    assert_one_line_refusal(
        "study.base FIFO",
        run_within(STUDY, &["--config", "base-fifo.toml", "--list"], &dir, &[]),
        &["study.base", "fifo.toml", fifo],
    );
    assert_one_line_refusal("solve --testset FIFO", solve(&["--testset", "fifo.tsv"]), &["fifo.tsv", fifo]);
    assert_one_line_refusal(
        "solve --checkpoint FIFO",
        solve(&["--random", "1", "--checkpoint", "fifo.ckpt"]),
        &["fifo.ckpt", fifo],
    );
    // An endless device is refused before a byte is read.
    assert_one_line_refusal(
        "solve --checkpoint /dev/zero",
        solve(&["--random", "1", "--checkpoint", "/dev/zero"]),
        &["/dev/zero", "a device, not a regular file"],
    );
    // A run's log replaced by a FIFO stops the resume, naming it.
    let more = std::fs::read_to_string(dir.join("smoke.toml")).unwrap().replace("\nsteps = 40\n", "\nsteps = 60\n");
    std::fs::write(dir.join("more.toml"), more).unwrap();
    std::fs::remove_file(dir.join("runs/smoke/metrics.csv")).unwrap();
    mkfifo(&dir.join("runs/smoke/metrics.csv"));
    assert_one_line_refusal(
        "train --resume with a FIFO for metrics.csv",
        run_within(TRAIN, &["--config", "more.toml", "--resume", "--no-progress"], &dir, &[]),
        &["metrics.csv", fifo],
    );
    assert!(!dir.join("out").exists(), "nothing was solved");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_beam_too_wide_for_the_machine_is_refused_before_the_search() {
    let dir = tmp("wide");
    smoke_run(&dir);
    // 2^24 states a depth, with every depth's links kept for the path, on
    // each of two workers: tens of GiB more than a 24 GiB machine has.
    let args = ["--run", "runs/smoke", "--random", "2", "--beam-log2", "24", "--jobs", "2", "--out", "out"];
    assert_one_line_refusal(
        "solve --beam-log2 24 --jobs 2",
        run_within(SOLVE, &args, &dir, &[]),
        &["a beam of width 16777216 with --jobs 2", "more than this machine's", "GiB"],
    );
    assert!(!dir.join("out").exists(), "nothing was written");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn kernel_variables_are_checked_whether_or_not_the_run_reads_them() {
    let dir = tmp("kernel-env");
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/smoke.toml");
    std::fs::copy(base, dir.join("smoke.toml")).unwrap();
    // The smoke config trains with f32 products: none of these variables
    // chooses anything in it, and each bad value is still refused.
    for (var, value) in [
        ("CUBE_ORACLE_INT8_KERNEL", "turbo"),
        ("CUBE_ORACLE_F32_KERNEL", "turbo"),
        ("CUBE_ORACLE_BF16_KERNEL", "turbo"),
    ] {
        let refused = run_within(TRAIN, &["--config", "smoke.toml", "--no-progress"], &dir, &[(var, value)]);
        assert_one_line_refusal(&format!("train with {var}={value}"), refused, &[var, "turbo"]);
        assert!(!dir.join("runs").join("smoke").exists(), "{var}: nothing was trained");
    }
    smoke_run(&dir);
    let args = ["--run", "runs/smoke", "--random", "1", "--beam-log2", "2", "--out", "out"];
    let refused = run_within(SOLVE, &args, &dir, &[("CUBE_ORACLE_INT8_KERNEL", "turbo")]);
    assert_one_line_refusal(
        "solve (f32) with CUBE_ORACLE_INT8_KERNEL=turbo",
        refused,
        &["CUBE_ORACLE_INT8_KERNEL", "turbo"],
    );
    assert!(!dir.join("out").exists(), "nothing was solved");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_full_disk_under_a_plot_is_reported_in_the_os_words() {
    let dir = tmp("plot-disk");
    smoke_run(&dir);
    // Every file capped at 20,000 bytes: the tables of two cubes fit, a
    // plot does not.
    let mut cmd = command(SOLVE);
    cmd.args(["--run", "runs/smoke", "--random", "2", "--beam-log2", "2", "--out", "out"]).current_dir(&dir);
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let lim = libc::rlimit { rlim_cur: 20_000, rlim_max: 20_000 };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let o = cmd.output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains(".png") && err.contains("File too large (os error 27)"), "{err}");
    for debug in ["Error(", "Custom", "kind:"] {
        assert!(!err.contains(debug), "debug formatting `{debug}` reached the user: {err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The run at `from` copied into `to` (files only, recursively).
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let name = e.file_name();
        if name.to_string_lossy().starts_with('.') {
            continue;
        }
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &to.join(&name));
        } else {
            std::fs::copy(e.path(), to.join(&name)).unwrap();
        }
    }
}

#[test]
fn a_reader_of_a_nested_run_holds_the_run_it_lies_in() {
    let dir = tmp("nested");
    let outer = smoke_run(&dir);
    // A fine-tune's starting weights are a run inside its run: `init/`.
    let scratch = dir.join("scratch");
    copy_dir(&outer, &scratch);
    copy_dir(&scratch, &outer.join("init"));
    assert!(cube_oracle::rundir::is_run(&outer.join("init")));
    // What a `solve --run <outer>/init` holds while it reads.
    let reading = cube_oracle::folder::lock_shared(&outer.join("init")).unwrap();
    let refused = run_within(TRAIN, &["--config", "smoke.toml", "--overwrite", "--no-progress"], &dir, &[]);
    assert_one_line_refusal("train --overwrite of the outer run", refused, &["runs/smoke", "in use"]);
    assert!(outer.join("init/checkpoints").is_dir(), "the nested run is intact");
    drop(reading);
    let (code, err) = run_within(TRAIN, &["--config", "smoke.toml", "--overwrite", "--no-progress"], &dir, &[]);
    assert_eq!(code, 0, "released, the outer run may be replaced: {err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
