//! Run directories and safe file writing.
//!
//! A run owns `runs/<name>/`. Creating a run refuses an existing directory
//! unless the caller asked to resume it or to overwrite it; overwriting
//! first moves the old directory aside and only deletes it once the new one
//! exists, so a crash never leaves neither. Files that must never be seen
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

/// Prepares `dir` for a run. Returns `true` when an existing run is resumed.
///
/// # Errors
/// [`RunDirError::Missing`] to resume a run that is not there,
/// [`RunDirError::Exists`] to start over one without [`Existing::Overwrite`].
pub fn prepare(dir: &Path, existing: Existing) -> Result<bool, RunDirError> {
    let exists = dir.exists();
    match (exists, existing) {
        (false, Existing::Resume) => Err(RunDirError::Missing { dir: dir.to_path_buf() }),
        (false, _) => {
            std::fs::create_dir_all(dir).map_err(FileError::at("creating run directory", dir))?;
            Ok(false)
        }
        (true, Existing::Refuse) => Err(RunDirError::Exists { dir: dir.to_path_buf() }),
        (true, Existing::Resume) => Ok(true),
        (true, Existing::Overwrite) => {
            let aside = sibling(dir, "", ".overwritten");
            if aside.exists() {
                std::fs::remove_dir_all(&aside).map_err(FileError::at("removing", &aside))?;
            }
            std::fs::rename(dir, &aside).map_err(FileError::at("moving aside", dir))?;
            std::fs::create_dir_all(dir).map_err(FileError::at("creating run directory", dir))?;
            std::fs::remove_dir_all(&aside).map_err(FileError::at("removing the old run", &aside))?;
            Ok(false)
        }
    }
}

/// `path`'s sibling named `<prefix><name of path><suffix>`.
pub(crate) fn sibling(path: &Path, prefix: &str, suffix: &str) -> PathBuf {
    let mut name = std::ffi::OsString::from(prefix);
    name.push(path.file_name().unwrap_or_default());
    name.push(suffix);
    path.with_file_name(name)
}

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
        let mut f = std::fs::File::create(&tmp).map_err(FileError::at("creating", &tmp))?;
        f.write_all(bytes).map_err(FileError::at("writing", &tmp))?;
        f.sync_all().map_err(FileError::at("syncing", &tmp))?;
        std::fs::rename(&tmp, path).map_err(FileError::at("renaming a finished temporary file to", path))
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
    let run = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    match run(&["rev-parse", "HEAD"]) {
        Some(rev) if !rev.is_empty() => {
            let dirty = run(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
            if dirty { format!("{rev}-dirty") } else { rev }
        }
        _ => "unknown".to_string(),
    }
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
    fn prepare_refuses_resumes_and_overwrites() {
        let root = std::env::temp_dir().join(format!("cube-oracle-rundir-{}", std::process::id()));
        let dir = root.join("run");
        let _ = std::fs::remove_dir_all(&root);
        assert!(prepare(&dir, Existing::Resume).unwrap_err().to_string().contains("does not exist"));
        assert!(!prepare(&dir, Existing::Refuse).unwrap());
        write_atomic(&dir.join("keep.txt"), b"data").unwrap();
        let err = prepare(&dir, Existing::Refuse).unwrap_err().to_string();
        assert!(err.contains("already exists") && err.contains("--resume") && err.contains("--overwrite"));
        assert_eq!(std::fs::read(dir.join("keep.txt")).unwrap(), b"data", "a refused run leaves the old data intact");
        assert!(prepare(&dir, Existing::Resume).unwrap());
        assert!(!prepare(&dir, Existing::Overwrite).unwrap());
        assert!(!dir.join("keep.txt").exists());
        assert!(std::fs::read_dir(&root).unwrap().count() == 1, "no leftover folders");
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn dependency_versions_are_recorded() {
        let v = dependency_versions();
        assert!(v.iter().any(|(k, ver)| *k == "burn" && ver.starts_with("0.22")));
    }
}
