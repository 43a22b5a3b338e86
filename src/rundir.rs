//! Run directories and safe file writing.
//!
//! A run owns `runs/<name>/`. Creating a run refuses an existing directory
//! unless the caller asked to resume it or to overwrite it, and only a run
//! `train` made ([`is_run`]: its `config.toml` is a training config, beside
//! train's own `meta.json` or checkpoint) is ever resumed or replaced; overwriting moves
//! the old run aside and deletes it only once the new run has written its
//! first checkpoint, so a failure or a crash before that puts it back. Files that must never be seen
//! half-written (configs, checkpoints, summaries) go through
//! [`write_atomic`]: a temporary file in the same folder, flushed to disk,
//! then renamed over the target.

use std::io::Write;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// A file-system operation that failed, with the path it was applied to.
#[derive(Debug, Error)]
#[error("{action} {}", path.display())]
pub struct FileError {
    /// What was being done, e.g. "creating".
    pub action: &'static str,
    /// The file or folder.
    pub path: PathBuf,
    /// The cause.
    #[source]
    pub source: std::io::Error,
}

impl FileError {
    /// A `map_err` adapter: `std::fs::read(p).map_err(FileError::at("reading", p))`.
    pub fn at(action: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> Self + use<> {
        let path = path.to_path_buf();
        move |source| Self { action, path, source }
    }
}

/// Why a run directory could not be prepared.
#[derive(Debug, Error)]
pub enum RunDirError {
    /// Resuming a run that does not exist.
    #[error("cannot resume: run directory {} does not exist", dir.display())]
    Missing {
        /// The run directory.
        dir: PathBuf,
    },
    /// Starting a run over an existing one without leave.
    #[error(
        "run directory {} already exists; resume it (--resume) or replace it (--overwrite)",
        dir.display()
    )]
    Exists {
        /// The run directory.
        dir: PathBuf,
    },
    /// Resuming a run that stopped before its first checkpoint.
    #[error(
        "cannot resume {}: it stopped before its first checkpoint, so there is nothing to resume; \
         start it again with --overwrite",
        dir.display()
    )]
    NothingToResume {
        /// The run directory.
        dir: PathBuf,
    },
    /// The path exists but is nothing `train` made, so it is never replaced.
    #[error(
        "{} exists but is not a run made by train (no training config.toml beside train's meta.json or \
         a checkpoint); refusing to replace it: choose another run.name or run.out_dir",
        dir.display()
    )]
    NotARun {
        /// The path.
        dir: PathBuf,
    },
    /// A file-system operation failed.
    #[error(transparent)]
    File(#[from] FileError),
}

/// What to do when the run directory already exists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Existing {
    /// Refuse (the default).
    Refuse,
    /// Continue the run from its latest checkpoint.
    Resume,
    /// Delete the old run and start afresh.
    Overwrite,
}

/// The first bytes of every checkpoint file (`learn::checkpoint`).
pub const CHECKPOINT_MAGIC: &[u8; 16] = b"CUBEORACLE-CKPT\0";

/// The most bytes of `config.toml` read to recognise a run (the training
/// config's own cap).
const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// The sections every training config has.
const CONFIG_SECTIONS: [&str; 7] = ["run", "puzzle", "data", "model", "optim", "train", "backend"];
/// Sections a training config may have besides those.
const OPTIONAL_SECTIONS: [&str; 1] = ["finetune"];

/// Whether `dir` is a run that `train` made: its `config.toml` is a
/// training config (TOML with the seven sections of
/// `learn::config::TrainConfig`, `run.name`, `run.seed`, `puzzle.kind` and
/// `model.hidden` among them, and no other but an optional `[finetune]`),
/// beside either a `meta.json` that `train` wrote (JSON recording this
/// crate's version under `crate_versions`) or, when that was lost, a
/// checkpoint of this crate's format in `checkpoints/`. A folder of another tool's (a PyTorch project with its
/// own `config.toml` and `checkpoints/`) is none.
#[must_use]
pub fn is_run(dir: &Path) -> bool {
    is_train_config(dir) && (is_train_meta(dir) || has_our_checkpoint(dir))
}

/// At most `cap` bytes of regular file `path`; `None` if it is larger,
/// not a regular file, or unreadable.
fn read_capped(path: &Path, cap: u64) -> Option<Vec<u8>> {
    use std::io::Read;
    if !std::fs::symlink_metadata(path).ok()?.is_file() {
        return None;
    }
    let mut bytes = Vec::new();
    crate::bounded::open_regular(path).ok()?.take(cap + 1).read_to_end(&mut bytes).ok()?;
    (bytes.len() as u64 <= cap).then_some(bytes)
}

/// At most `cap` bytes of regular file `path` as UTF-8 text; `None` if it
/// is larger, not a regular file, unreadable or not text.
#[must_use]
pub fn read_capped_text(path: &Path, cap: u64) -> Option<String> {
    String::from_utf8(read_capped(path, cap)?).ok()
}

fn is_train_config(dir: &Path) -> bool {
    let Some(bytes) = read_capped(&dir.join("config.toml"), MAX_CONFIG_BYTES) else { return false };
    let Ok(text) = String::from_utf8(bytes) else { return false };
    let Ok(config) = toml::from_str::<toml::Table>(&text) else { return false };
    let has = |section: &str, key: &str, kind: fn(&toml::Value) -> bool| {
        config.get(section).and_then(|s| s.get(key)).is_some_and(kind)
    };
    config.keys().all(|k| CONFIG_SECTIONS.contains(&k.as_str()) || OPTIONAL_SECTIONS.contains(&k.as_str()))
        && CONFIG_SECTIONS.iter().all(|s| config.get(*s).is_some_and(toml::Value::is_table))
        && has("run", "name", toml::Value::is_str)
        && has("run", "seed", toml::Value::is_integer)
        && has("puzzle", "kind", toml::Value::is_str)
        && has("model", "hidden", toml::Value::is_array)
}

fn is_train_meta(dir: &Path) -> bool {
    let Some(bytes) = read_capped(&dir.join("meta.json"), MAX_META_BYTES) else { return false };
    serde_json::from_slice::<serde_json::Value>(&bytes)
        .is_ok_and(|meta| meta["crate_versions"][env!("CARGO_PKG_NAME")].is_string())
}

fn has_our_checkpoint(dir: &Path) -> bool {
    use std::io::Read;
    let Ok(entries) = std::fs::read_dir(dir.join("checkpoints")) else { return false };
    entries.flatten().filter(|e| e.file_name().to_string_lossy().ends_with(".ckpt")).any(|e| {
        let mut head = [0u8; 16];
        crate::bounded::open_regular(&e.path()).and_then(|mut f| f.read_exact(&mut head)).is_ok()
            && &head == CHECKPOINT_MAGIC
    })
}

/// Whether the run in `dir` has a checkpoint to resume from (a finished
/// `checkpoints/*.ckpt`, not a write in progress).
#[must_use]
pub fn has_checkpoint(dir: &Path) -> bool {
    std::fs::read_dir(dir.join("checkpoints"))
        .map(|entries| entries.flatten().any(|e| e.file_name().to_string_lossy().ends_with(".ckpt")))
        .unwrap_or(false)
}

/// A run directory prepared by [`prepare`].
#[derive(Debug)]
pub struct Prepared {
    /// Whether an existing run is resumed.
    pub resumed: bool,
    /// A new run until its first checkpoint ([`Pending::settle`]).
    pub pending: Option<Pending>,
}

/// A new run that has no checkpoint yet, and the old run an overwrite moved
/// aside to a hidden sibling for it. Dropped without [`Pending::settle`]
/// (the new run failed before its first checkpoint), it removes the new
/// run, which could not be resumed, and puts the old one back; so does
/// [`abandon_pending`], for a process about to exit on Ctrl-C.
#[derive(Debug)]
pub struct Pending {
    dir: PathBuf,
    aside: Option<PathBuf>,
    settled: bool,
}

/// The pending runs of this process, for [`abandon_pending`].
static PENDING: std::sync::Mutex<Vec<(PathBuf, Option<PathBuf>)>> = std::sync::Mutex::new(Vec::new());

fn pending_list() -> std::sync::MutexGuard<'static, Vec<(PathBuf, Option<PathBuf>)>> {
    PENDING.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Pending {
    fn new(dir: &Path, aside: Option<PathBuf>) -> Self {
        pending_list().push((dir.to_path_buf(), aside.clone()));
        Pending { dir: dir.to_path_buf(), aside, settled: false }
    }

    /// Whether an overwrite moved an old run aside for this one.
    #[must_use]
    pub fn replaces(&self) -> bool {
        self.aside.is_some()
    }

    /// The new run has a checkpoint: deletes the old run, if any.
    ///
    /// # Errors
    /// The old run could not be removed.
    pub fn settle(mut self) -> Result<(), FileError> {
        self.settled = true;
        forget(&self.dir);
        match &self.aside {
            Some(aside) => std::fs::remove_dir_all(aside).map_err(FileError::at("removing the overwritten run", aside)),
            None => Ok(()),
        }
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        if self.settled {
            return;
        }
        forget(&self.dir);
        restore(&self.dir, self.aside.as_deref());
    }
}

fn forget(dir: &Path) {
    pending_list().retain(|(d, _)| d != dir);
}

/// Removes the new run `dir`, unless it has a checkpoint, and puts the old
/// run `aside` back in its place.
fn restore(dir: &Path, aside: Option<&Path>) {
    if has_checkpoint(dir) {
        return;
    }
    let _ = std::fs::remove_dir_all(dir);
    if let Some(aside) = aside
        && std::fs::rename(aside, dir).is_ok()
    {
        eprintln!("the new run stopped before its first checkpoint: the old {} is restored", dir.display());
    }
}

/// What a process stopped by Ctrl-C does before it exits: every new run of
/// this process without a checkpoint is removed, and the old run an
/// overwrite moved aside for it put back (what [`Pending`]'s drop would
/// have done). A run stopped by a kill is recovered by the next
/// [`prepare`] instead.
pub fn abandon_pending() {
    let runs = std::mem::take(&mut *pending_list());
    for (dir, aside) in runs {
        restore(&dir, aside.as_deref());
    }
}

/// Whether `dir` is a folder with nothing in it (what a new run killed
/// while it set up leaves).
fn is_empty_dir(dir: &Path) -> bool {
    std::fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir())
        && std::fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_none())
}

/// Puts back (or removes) what an overwrite killed before its new run's
/// first checkpoint left: `.<name>.overwritten-<pid>` beside the run.
fn recover_overwrite(dir: &Path) -> Result<(), FileError> {
    let (Some(parent), Some(name)) = (dir.parent(), dir.file_name()) else { return Ok(()) };
    let parent = if parent.as_os_str().is_empty() { Path::new(".") } else { parent };
    let Ok(entries) = std::fs::read_dir(parent) else { return Ok(()) };
    let prefix = format!(".{}.overwritten-", name.to_string_lossy());
    for entry in entries.flatten() {
        // `<pid>` and nothing else: never a file of a run named `<name>.overwritten-…`.
        let file = entry.file_name().to_string_lossy().to_string();
        let ours = file.strip_prefix(&prefix).is_some_and(is_pid);
        if !ours || !entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let aside = entry.path();
        if has_checkpoint(dir) {
            std::fs::remove_dir_all(&aside).map_err(FileError::at("removing the overwritten run", &aside))?;
        } else {
            if dir.exists() {
                std::fs::remove_dir_all(dir).map_err(FileError::at("removing the unfinished run", dir))?;
            }
            std::fs::rename(&aside, dir).map_err(FileError::at("restoring", dir))?;
            eprintln!("an earlier --overwrite stopped before its first checkpoint: {} restored", dir.display());
        }
    }
    Ok(())
}

/// Prepares `dir` for a run (the caller holds its lock). An overwrite moves
/// the old run aside and only deletes it once the new one has a checkpoint
/// ([`Prepared::pending`]); only a run `train` made is ever replaced.
///
/// # Errors
/// [`RunDirError::Missing`] to resume a run that is not there,
/// [`RunDirError::Exists`] to start over one without [`Existing::Overwrite`],
/// [`RunDirError::NotARun`] to overwrite or resume anything that is not a run.
pub fn prepare(dir: &Path, existing: Existing) -> Result<Prepared, RunDirError> {
    recover_overwrite(dir)?;
    let exists = std::fs::symlink_metadata(dir).is_ok();
    let fresh = |aside| Prepared { resumed: false, pending: Some(Pending::new(dir, aside)) };
    match (exists, existing) {
        (false, Existing::Resume) => Err(RunDirError::Missing { dir: dir.to_path_buf() }),
        (false, _) => {
            std::fs::create_dir_all(dir).map_err(FileError::at("creating run directory", dir))?;
            Ok(fresh(None))
        }
        // An empty folder (a new run killed while it set up) holds nothing
        // to lose: a new run takes it.
        (true, Existing::Resume) if is_empty_dir(dir) => Err(RunDirError::NothingToResume { dir: dir.to_path_buf() }),
        (true, _) if is_empty_dir(dir) => Ok(fresh(None)),
        (true, Existing::Refuse) => Err(RunDirError::Exists { dir: dir.to_path_buf() }),
        (true, _) if !is_run(dir) => Err(RunDirError::NotARun { dir: dir.to_path_buf() }),
        (true, Existing::Resume) if !has_checkpoint(dir) => {
            Err(RunDirError::NothingToResume { dir: dir.to_path_buf() })
        }
        (true, Existing::Resume) => Ok(Prepared { resumed: true, pending: None }),
        (true, Existing::Overwrite) => {
            let aside = sibling(dir, ".", &format!(".overwritten-{}", std::process::id()));
            std::fs::rename(dir, &aside).map_err(FileError::at("moving aside", dir))?;
            let prepared = fresh(Some(aside));
            std::fs::create_dir_all(dir).map_err(FileError::at("creating run directory", dir))?;
            Ok(prepared)
        }
    }
}

/// Whether the (not yet existing) path `path` lies inside folder `dir`. The
/// path is resolved one component at a time, through every part that
/// exists, so `..` and symbolic links cannot hide it.
#[must_use]
pub fn is_inside(path: &Path, dir: &Path) -> bool {
    use std::path::Component;
    let Ok(dir) = dir.canonicalize() else { return false };
    let Ok(cwd) = std::env::current_dir() else { return false };
    let mut at = PathBuf::new();
    for part in cwd.join(path).components() {
        match part {
            Component::ParentDir => {
                at.pop();
            }
            Component::CurDir => {}
            other => {
                at.push(other);
                if let Ok(real) = at.canonicalize() {
                    at = real;
                }
            }
        }
    }
    at.starts_with(&dir)
}

/// `path`'s sibling named `<prefix><name of path><suffix>`.
pub(crate) fn sibling(path: &Path, prefix: &str, suffix: &str) -> PathBuf {
    let mut name = std::ffi::OsString::from(prefix);
    name.push(path.file_name().unwrap_or_default());
    name.push(suffix);
    path.with_file_name(name)
}

/// Whether `text` is a process id as the tool writes it into a file name:
/// decimal digits and nothing else.
pub(crate) fn is_pid(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

/// Best effort: syncs the folder that holds `path`, so that a rename into
/// it survives a power cut (not needed against a killed process).
pub(crate) fn sync_parent(path: &Path) {
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if let Ok(dir) = std::fs::File::open(parent) {
        let _ = dir.sync_all();
    }
}

/// Seconds since the Unix epoch (0 if the clock is before it).
#[must_use]
pub fn unix_now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// The most bytes of a run's `meta.json` read (a leg's record is a few
/// hundred bytes).
pub const MAX_META_BYTES: u64 = 16 << 20;

/// Writes `bytes` to `path` atomically: temporary file, fsync, rename.
///
/// # Errors
/// [`FileError`] naming the step that failed.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), FileError> {
    if let Some(parent) = path.parent()
        && !parent.as_os_str().is_empty()
    {
        std::fs::create_dir_all(parent).map_err(FileError::at("creating", parent))?;
    }
    let tmp = sibling(path, "", &format!(".tmp{}", std::process::id()));
    let written = (|| {
        // A new file only: never through a link planted at the temporary's name.
        let _ = std::fs::remove_file(&tmp);
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .map_err(FileError::at("creating", &tmp))?;
        f.write_all(bytes).map_err(FileError::at("writing", &tmp))?;
        f.sync_all().map_err(FileError::at("syncing", &tmp))?;
        std::fs::rename(&tmp, path).map_err(FileError::at("renaming a finished temporary file to", path))?;
        sync_parent(path);
        Ok(())
    })();
    if written.is_err() {
        // A full disk (or any failure) leaves the old file and no partial one.
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// The current git revision of the working directory (with `-dirty` when
/// there are uncommitted changes), or `unknown` outside a git checkout.
#[must_use]
pub fn git_revision() -> String {
    crate::revision::of_checkout(&[])
}

/// The git revision this binary was built from (with `-dirty` when the
/// checkout's code had uncommitted changes), or `unknown` when it was built
/// outside a git checkout. It differs from [`git_revision`] when an
/// executable built earlier runs in a checkout that has moved on.
#[must_use]
pub fn build_revision() -> &'static str {
    env!("CUBE_ORACLE_BUILD_REVISION")
}

/// Versions of the key dependencies, as locked when this binary was built.
#[must_use]
pub fn dependency_versions() -> Vec<(&'static str, &'static str)> {
    env!("CUBE_ORACLE_DEP_VERSIONS")
        .split(',')
        .filter_map(|kv| kv.split_once('='))
        .chain(std::iter::once(("cube-oracle", env!("CARGO_PKG_VERSION"))))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prepare_refuses_resumes_and_overwrites_only_runs() {
        let root = std::env::temp_dir().join(format!("cube-oracle-rundir-{}", std::process::id()));
        let dir = root.join("run");
        let _ = std::fs::remove_dir_all(&root);
        assert!(prepare(&dir, Existing::Resume).unwrap_err().to_string().contains("does not exist"));
        // An empty folder (a new run killed while it set up) holds nothing:
        // a new run or an overwrite takes it; there is nothing to resume.
        for how in [Existing::Refuse, Existing::Overwrite] {
            std::fs::create_dir_all(&dir).unwrap();
            let err = prepare(&dir, Existing::Resume).unwrap_err().to_string();
            assert!(err.contains("stopped before its first checkpoint"), "{err}");
            let p = prepare(&dir, how).unwrap();
            assert!(!p.resumed && p.pending.as_ref().is_some_and(|p| !p.replaces()));
            drop(p);
            assert!(!dir.exists());
        }
        // A new run that fails before its first checkpoint leaves nothing.
        drop(prepare(&dir, Existing::Refuse).unwrap());
        assert!(!dir.exists());
        std::mem::forget(prepare(&dir, Existing::Refuse).unwrap());
        write_atomic(&dir.join("keep.txt"), b"data").unwrap();
        let err = prepare(&dir, Existing::Refuse).unwrap_err().to_string();
        assert!(err.contains("already exists") && err.contains("--resume") && err.contains("--overwrite"));
        // Not a run yet (no config.toml; then another tool's config.toml
        // and checkpoints; then a training config beside another tool's
        // meta.json): neither resumed nor replaced.
        let refused = || {
            for how in [Existing::Resume, Existing::Overwrite] {
                let err = prepare(&dir, how).unwrap_err().to_string();
                assert!(err.contains("not a run made by train"), "{err}");
            }
            assert_eq!(std::fs::read(dir.join("keep.txt")).unwrap(), b"data", "a refused run is left intact");
        };
        refused();
        write_atomic(&dir.join("config.toml"), b"lr = 0.1\nepochs = 3\n").unwrap();
        write_atomic(&dir.join("checkpoints/model.ckpt"), b"PK\x03\x04 a torch zip").unwrap();
        write_atomic(&dir.join("meta.json"), b"{}").unwrap();
        refused();
        write_atomic(&dir.join("config.toml"), include_str!("../configs/smoke.toml").as_bytes()).unwrap();
        refused();
        // train's meta.json, or (when it is lost) one of train's checkpoints.
        write_atomic(&dir.join("checkpoints/step-00000001.ckpt"), CHECKPOINT_MAGIC).unwrap();
        assert!(is_run(&dir));
        std::fs::remove_dir_all(dir.join("checkpoints")).unwrap();
        assert!(!is_run(&dir));
        write_atomic(&dir.join("meta.json"), br#"{"crate_versions": {"cube-oracle": "0.1.0"}, "legs": []}"#).unwrap();
        // A run with no checkpoint yet has nothing to resume: the error says
        // how to start it again.
        let err = prepare(&dir, Existing::Resume).unwrap_err().to_string();
        assert!(err.contains("stopped before its first checkpoint") && err.contains("--overwrite"), "{err}");
        write_atomic(&dir.join("checkpoints/step-00000001.ckpt"), CHECKPOINT_MAGIC).unwrap();
        assert!(prepare(&dir, Existing::Resume).unwrap().resumed);
        // An overwrite that fails before its first checkpoint puts the old run back.
        let p = prepare(&dir, Existing::Overwrite).unwrap();
        assert!(!p.resumed && !dir.join("keep.txt").exists());
        drop(p);
        assert_eq!(std::fs::read(dir.join("keep.txt")).unwrap(), b"data");
        // One killed before it: the next prepare restores the old run.
        let p = prepare(&dir, Existing::Overwrite).unwrap();
        std::mem::forget(p);
        assert!(!dir.join("keep.txt").exists());
        assert!(prepare(&dir, Existing::Resume).unwrap().resumed);
        assert_eq!(std::fs::read(dir.join("keep.txt")).unwrap(), b"data");
        // A settled one is gone for good.
        let p = prepare(&dir, Existing::Overwrite).unwrap();
        p.pending.unwrap().settle().unwrap();
        assert!(!dir.join("keep.txt").exists());
        assert!(std::fs::read_dir(&root).unwrap().count() == 1, "no leftover folders");
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn the_shipped_runs_are_runs() {
        let runs = Path::new(env!("CARGO_MANIFEST_DIR")).join("runs");
        let mut found = 0;
        for entry in std::fs::read_dir(&runs).unwrap().flatten() {
            let dir = entry.path();
            if dir.join("config.toml").exists() {
                assert!(is_run(&dir), "{}", dir.display());
                found += 1;
            }
        }
        assert!(found >= 5, "the shipped runs are found");
        assert!(!is_run(&runs) && !is_run(&runs.join("reference-cube2/checkpoints")));
    }

    #[test]
    fn dependency_versions_are_recorded() {
        let v = dependency_versions();
        assert!(v.iter().any(|(k, ver)| *k == "burn" && ver.starts_with("0.22")));
    }
}
