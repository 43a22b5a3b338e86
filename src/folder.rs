//! Named output folders: name rules, one advisory lock per folder, and
//! staged replacement.
//!
//! Every folder a tool writes (a run, a solve label, a classical result) is
//! a *name* under a parent folder, never a path: [`check_name`] accepts
//! letters, digits, `-`, `_`, `+` and `.` only (not starting with `.`), so a label cannot point outside
//! its parent or at the parent itself. While a process writes a folder it
//! holds an advisory lock ([`FolderLock`], `std::fs::File::try_lock`, i.e.
//! `flock` on Unix) on the hidden sibling file `.<name>.lock`, which records
//! the holder's pid and start time for the refusal message, and is removed
//! when the holder finishes; the operating system releases the lock when
//! the process ends, however it ends, so a killed process never blocks the
//! next one (its stale file is simply locked again). [`Output`] replaces an
//! existing folder without ever leaving less than there was: the new
//! results are written to a hidden sibling and swapped in by two renames
//! only when the caller [`Output::commit`]s; an interrupted run leaves the
//! old folder untouched, and the next claim of the name cleans up (or, if a
//! crash fell between the two renames, restores) what it left.

use crate::rundir::{FileError, sibling};
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};
use thiserror::Error;

/// A folder could not be named, locked, created or swapped in.
#[derive(Debug, Error)]
pub enum FolderError {
    /// The name is not a plain folder name.
    #[error(
        "{what} {name:?} is not a folder name: use letters, digits, '-', '_', '+' and '.', \
         not starting with '.' (no path separators, no `..`, not empty)"
    )]
    BadName {
        /// The flag or key that gave the name, e.g. `--label`.
        what: String,
        /// The name as given.
        name: String,
    },
    /// Another process holds the folder's lock.
    #[error("{dir} is in use by another process ({holder}); wait for it to finish or stop it")]
    Locked {
        /// The folder.
        dir: PathBuf,
        /// The holder's pid and start time, as it recorded them.
        holder: String,
    },
    /// The folder exists and the caller may not replace it.
    #[error("output folder {dir} already exists; pass --overwrite to replace it or --label to write elsewhere")]
    Exists {
        /// The folder.
        dir: PathBuf,
    },
    /// A file-system operation failed.
    #[error(transparent)]
    File(#[from] FileError),
}

fn io(action: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> FolderError + use<> {
    let at = FileError::at(action, path);
    move |source| at(source).into()
}

/// The characters a folder name may hold.
fn allowed(c: char) -> bool {
    c.is_ascii_alphanumeric() || "-_+.".contains(c)
}

/// Checks that `name` is a plain folder name (see the module docs); `what`
/// names the flag or key it came from, for the message.
///
/// # Errors
/// [`FolderError::BadName`].
pub fn check_name(what: &str, name: &str) -> Result<(), FolderError> {
    let ok = !name.is_empty() && !name.starts_with('.') && name.len() <= 200 && name.chars().all(allowed);
    if ok { Ok(()) } else { Err(FolderError::BadName { what: what.to_string(), name: name.to_string() }) }
}

/// Turns any text into a valid folder name: characters outside the allowed
/// set become `_` (used for names the tool derives, e.g. from a file stem).
#[must_use]
pub fn sanitize(text: &str) -> String {
    let mut s: String = text.chars().take(200).map(|c| if allowed(c) { c } else { '_' }).collect();
    if s.is_empty() || s.starts_with('.') {
        s.insert(0, '_');
    }
    s
}

/// An advisory lock on one folder, held until dropped (or the process
/// ends). Dropping it removes the lock file while still holding the lock;
/// a process that opened the old file meanwhile sees, after locking it,
/// that the path no longer names that file, and starts over.
#[derive(Debug)]
pub struct FolderLock {
    _file: File,
    path: PathBuf,
}

impl Drop for FolderLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Whether `path` still names the open `file` (same device and inode).
fn still_named(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// Takes the lock of folder `dir` (the folder itself need not exist; its
/// parent is created). Never waits.
///
/// # Errors
/// [`FolderError::Locked`] naming the holder, or an I/O error.
pub fn lock(dir: &Path) -> Result<FolderLock, FolderError> {
    let path = sibling(dir, ".", ".lock");
    if let Some(parent) = path.parent()
        && !parent.as_os_str().is_empty()
    {
        std::fs::create_dir_all(parent).map_err(io("creating", parent))?;
    }
    for _ in 0..8 {
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io("opening the lock file", &path))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                let holder = holder.trim();
                let holder = if holder.is_empty() { "holder unknown".to_string() } else { holder.to_string() };
                return Err(FolderError::Locked { dir: dir.to_path_buf(), holder });
            }
            Err(TryLockError::Error(e)) => return Err(io("locking", &path)(e)),
        }
        if !still_named(&file, &path) {
            // The previous holder removed this file as we opened it.
            continue;
        }
        let stamp = format!("pid {}, started {}", std::process::id(), utc_now());
        file.set_len(0).map_err(io("writing", &path))?;
        file.rewind().map_err(io("writing", &path))?;
        file.write_all(stamp.as_bytes()).map_err(io("writing", &path))?;
        return Ok(FolderLock { _file: file, path });
    }
    Err(FolderError::Locked { dir: dir.to_path_buf(), holder: "the lock file keeps changing".to_string() })
}

/// The current time as `YYYY-MM-DD HH:MM:SS UTC`.
#[must_use]
pub fn utc_now() -> String {
    let secs = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC", rem / 3600, rem % 3600 / 60, rem % 60)
}

/// What to do when the output folder already exists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IfExists {
    /// Refuse with [`FolderError::Exists`].
    Refuse,
    /// Write the new results beside the old and swap them in on commit.
    Replace,
}

/// A claimed output folder: locked, and either new or staged beside the
/// folder it will replace.
#[derive(Debug)]
pub struct Output {
    target: PathBuf,
    work: PathBuf,
    committed: bool,
    _lock: FolderLock,
}

impl Output {
    /// Claims folder `name` under `parent` (`what` is the flag that named
    /// it, for messages): checks the name, takes the lock, tidies what an
    /// interrupted earlier claim left, and prepares the folder to write.
    ///
    /// # Errors
    /// A bad name, a lock held by another process, an existing folder with
    /// [`IfExists::Refuse`], or an I/O error.
    pub fn claim(parent: &Path, name: &str, what: &str, if_exists: IfExists) -> Result<Self, FolderError> {
        check_name(what, name)?;
        let target = parent.join(name);
        let lock = lock(&target)?;
        recover(&target)?;
        let work = if target.exists() {
            if if_exists == IfExists::Refuse {
                return Err(FolderError::Exists { dir: target });
            }
            let work = sibling(&target, ".", &format!(".new-{}", std::process::id()));
            std::fs::create_dir_all(&work).map_err(io("creating", &work))?;
            work
        } else {
            std::fs::create_dir_all(&target).map_err(io("creating", &target))?;
            target.clone()
        };
        Ok(Self { target, work, committed: false, _lock: lock })
    }

    /// Where to write the results now: the folder itself when it is new,
    /// else a hidden staging sibling.
    #[must_use]
    pub fn dir(&self) -> &Path {
        &self.work
    }

    /// Swaps staged results in (the old folder is removed only after the
    /// new one is in place); returns the folder. A new folder needs nothing.
    ///
    /// # Errors
    /// An I/O error; the old folder is then still in place or restorable.
    pub fn commit(mut self) -> Result<PathBuf, FolderError> {
        self.committed = true;
        if self.work != self.target {
            let old = sibling(&self.target, ".", &format!(".old-{}", std::process::id()));
            std::fs::rename(&self.target, &old).map_err(io("moving aside", &self.target))?;
            if let Err(e) = std::fs::rename(&self.work, &self.target) {
                let _ = std::fs::rename(&old, &self.target);
                return Err(io("moving the new results to", &self.target)(e));
            }
            std::fs::remove_dir_all(&old).map_err(io("removing the replaced folder", &old))?;
        }
        Ok(self.target.clone())
    }
}

impl Drop for Output {
    /// A claim dropped without a commit (an error) removes its staging
    /// folder (the old folder was never touched), or a new folder it left
    /// empty (`remove_dir` removes nothing else), so a failed run does not
    /// block the label.
    fn drop(&mut self) {
        if self.work != self.target {
            if self.work.exists() {
                let _ = std::fs::remove_dir_all(&self.work);
            }
        } else if !self.committed {
            let _ = std::fs::remove_dir(&self.work);
        }
    }
}

/// Under the lock: restores `.<name>.old-*` if a crash fell between the two
/// renames of a commit (the folder itself is then missing), and removes the
/// staging and old folders that interrupted claims left.
fn recover(target: &Path) -> Result<(), FolderError> {
    let Some(parent) = target.parent() else { return Ok(()) };
    let name = target.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    let Ok(entries) = std::fs::read_dir(if parent.as_os_str().is_empty() { Path::new(".") } else { parent }) else {
        return Ok(());
    };
    let (old, new) = (format!(".{name}.old-"), format!(".{name}.new-"));
    for entry in entries.flatten() {
        let file = entry.file_name().to_string_lossy().to_string();
        let path = parent.join(&file);
        if file.starts_with(&old) && !target.exists() {
            std::fs::rename(&path, target).map_err(io("restoring", target))?;
        } else if file.starts_with(&old) || file.starts_with(&new) {
            std::fs::remove_dir_all(&path).map_err(io("removing the leftover", &path))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(tag: &str) -> PathBuf {
        let root = std::env::temp_dir().join(format!("cube-oracle-folder-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).unwrap();
        root
    }

    #[test]
    fn names_are_plain_folder_names() {
        for ok in ["w10", "deepcubea-w7..10", "a_b.c", "X-1"] {
            assert!(check_name("--label", ok).is_ok(), "{ok}");
        }
        for bad in ["", ".", "..", "../checkpoints", "/tmp/x", "a/b", ".hidden", "a b", "a\\b", "é"] {
            let e = check_name("--label", bad).unwrap_err().to_string();
            assert!(e.starts_with("--label") && e.contains("not a folder name"), "{bad}: {e}");
        }
        for text in ["", "..", "my set", "a/b", ".x"] {
            assert!(check_name("x", &sanitize(text)).is_ok(), "{text} -> {}", sanitize(text));
        }
    }

    #[test]
    fn a_held_lock_refuses_a_second_claim_and_names_the_holder() {
        let root = scratch("lock");
        let held = lock(&root.join("run")).unwrap();
        let e = lock(&root.join("run")).unwrap_err().to_string();
        assert!(e.contains("in use by another process") && e.contains(&format!("pid {}", std::process::id())), "{e}");
        assert!(e.contains("UTC"), "{e}");
        drop(held);
        assert!(!root.join(".run.lock").exists(), "a released lock removes its file");
        let again = lock(&root.join("run"));
        assert!(again.is_ok(), "a released lock is free again");
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn replacing_keeps_the_old_folder_until_commit() {
        let root = scratch("replace");
        let first = Output::claim(&root, "out", "--label", IfExists::Refuse).unwrap();
        std::fs::write(first.dir().join("a.csv"), "old").unwrap();
        assert_eq!(first.commit().unwrap(), root.join("out"));
        let e = Output::claim(&root, "out", "--label", IfExists::Refuse).unwrap_err();
        assert!(matches!(e, FolderError::Exists { .. }));
        // A new claim that fails before writing leaves no empty folder behind.
        drop(Output::claim(&root, "empty", "--label", IfExists::Refuse).unwrap());
        assert!(!root.join("empty").exists());
        // An interrupted replacement (dropped without commit) leaves the old results.
        let second = Output::claim(&root, "out", "--label", IfExists::Replace).unwrap();
        std::fs::write(second.dir().join("a.csv"), "half").unwrap();
        drop(second);
        assert_eq!(std::fs::read_to_string(root.join("out/a.csv")).unwrap(), "old");
        // The next claim tidies the leftover and a committed one swaps in.
        let third = Output::claim(&root, "out", "--label", IfExists::Replace).unwrap();
        std::fs::write(third.dir().join("b.csv"), "new").unwrap();
        third.commit().unwrap();
        assert!(!root.join("out/a.csv").exists());
        assert_eq!(std::fs::read_to_string(root.join("out/b.csv")).unwrap(), "new");
        let names: Vec<String> =
            std::fs::read_dir(&root).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().to_string()).collect();
        assert_eq!(names, vec!["out".to_string()], "no leftovers");
        // A crash between the two renames of a commit is repaired.
        std::fs::rename(root.join("out"), root.join(".out.old-1")).unwrap();
        let fourth = Output::claim(&root, "out", "--label", IfExists::Refuse).unwrap_err();
        assert!(matches!(fourth, FolderError::Exists { .. }));
        assert_eq!(std::fs::read_to_string(root.join("out/b.csv")).unwrap(), "new");
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn utc_dates_are_civil_dates() {
        let now = utc_now();
        assert_eq!(now.len(), "2026-11-23 10:00:00 UTC".len());
        let year: i32 = now[..4].parse().unwrap();
        assert!((2024..2200).contains(&year));
    }
}
