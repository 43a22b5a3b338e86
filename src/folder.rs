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
//!
//! A shared lock (a `solve` reading a run) also leaves a stamp of its own,
//! `.<name>.lock-reader-<pid>-<k>`, locked while its holder lives, so that
//! the `train` it keeps out can name it. [`enclosing_run`] finds the run an
//! output folder lies in, however deep. The messages of every tool go
//! through [`one_line`]: one line, no repeated cause, long quoted values cut
//! by [`shorten`].

use crate::rundir::{FileError, sibling};
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use thiserror::Error;

/// A folder could not be named, locked, created or swapped in.
#[derive(Debug, Error)]
pub enum FolderError {
    /// The name is not a plain folder name.
    #[error(
        "{what} {name:?} is not a folder name: use 1 to 200 letters, digits, '-', '_', '+' and '.', \
         not starting with '.' (no path separators, no `..`)"
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
    /// The path exists and is something this tool did not make.
    #[error(
        "{} exists and is not an output folder that solve made ({why}); refusing to replace it: \
         choose another --label or --out",
        dir.display()
    )]
    NotOurs {
        /// The path.
        dir: PathBuf,
        /// What it is.
        why: &'static str,
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
/// ends). Dropping an exclusive lock removes the lock file while still
/// holding the lock; a process that opened the old file meanwhile sees,
/// after locking it, that the path no longer names that file, and starts
/// over. A shared lock removes the file only when it can make itself the
/// sole holder.
#[derive(Debug)]
pub struct FolderLock {
    file: File,
    path: PathBuf,
    shared: bool,
    /// A shared holder's own stamp file, locked while it lives.
    stamp: Option<(File, PathBuf)>,
    /// The shared locks of the runs this folder lies in (a fine-tune's
    /// `init/` lies in the fine-tune's run), released after this one.
    outer: Vec<FolderLock>,
}

impl Drop for FolderLock {
    fn drop(&mut self) {
        if let Some((_, stamp)) = &self.stamp {
            let _ = std::fs::remove_file(stamp);
        }
        if !self.shared || self.file.try_lock().is_ok() {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Shared locks taken by this process, numbering their stamp files.
static READERS: AtomicUsize = AtomicUsize::new(0);

/// The part of a reader stamp's file name after `.<name>`.
const READER_TAG: &str = ".lock-reader-";

/// A shared holder's stamp beside folder `dir`: `.<name>.lock-reader-<pid>-<k>`.
fn reader_stamp(dir: &Path) -> PathBuf {
    let k = READERS.fetch_add(1, Ordering::Relaxed);
    sibling(dir, ".", &format!("{READER_TAG}{}-{k}", std::process::id()))
}

/// The reader stamps beside folder `dir` (live or left by a killed holder).
fn reader_stamps(dir: &Path) -> Vec<PathBuf> {
    let (Some(parent), Some(name)) = (dir.parent(), dir.file_name()) else { return Vec::new() };
    let parent = if parent.as_os_str().is_empty() { Path::new(".") } else { parent };
    let prefix = format!(".{}{READER_TAG}", name.to_string_lossy());
    let Ok(entries) = std::fs::read_dir(parent) else { return Vec::new() };
    entries
        .flatten()
        .filter(|e| {
            let file = e.file_name().to_string_lossy().to_string();
            // `<pid>-<k>` and nothing else: never another folder's files.
            file.strip_prefix(&prefix)
                .and_then(|rest| rest.split_once('-'))
                .is_some_and(|(pid, k)| crate::rundir::is_pid(pid) && crate::rundir::is_pid(k))
        })
        .map(|e| parent.join(e.file_name()))
        .collect()
}

/// The live shared holders of folder `dir`, by their stamps.
fn readers_of(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for path in reader_stamps(dir) {
        let Ok(mut file) = File::open(&path) else { continue };
        if matches!(file.try_lock(), Err(TryLockError::WouldBlock)) {
            let mut stamp = String::new();
            let _ = file.read_to_string(&mut stamp);
            if !stamp.trim().is_empty() {
                found.push(stamp.trim().to_string());
            }
        }
    }
    found.sort();
    found
}

/// The `pid N` of a stamp, for telling one holder's several locks apart.
fn stamp_pid(stamp: &str) -> Option<&str> {
    let at = stamp.find("pid ")? + 4;
    let digits = stamp[at..].bytes().take_while(u8::is_ascii_digit).count();
    (digits > 0).then(|| &stamp[at..at + digits])
}

/// Whether `path` still names the open `file` (same device and inode).
fn still_named(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// Takes the exclusive lock of folder `dir` (the folder itself need not
/// exist; its parent is created). Never waits. `train` holds it on its run,
/// `solve` on its output folder.
///
/// # Errors
/// [`FolderError::Locked`] naming the holder (for a run, every `solve`
/// writing under it), or an I/O error.
pub fn lock(dir: &Path) -> Result<FolderLock, FolderError> {
    acquire(dir, false)
}

/// Takes a shared lock of run `dir`: any number of `solve`s (and exports)
/// may hold one while they read the run or write under it, and `train`
/// cannot take its exclusive lock (to resume or overwrite the run)
/// meanwhile, nor they while `train` holds it. Each holder leaves a stamp
/// naming it (program, pid, start), which `train`'s refusal quotes.
///
/// # Errors
/// [`FolderError::Locked`] naming the `train` that holds the run, or an I/O
/// error.
pub fn lock_shared(dir: &Path) -> Result<FolderLock, FolderError> {
    let mut lock = acquire(dir, true)?;
    // A run nested in another (a fine-tune's `init/`) is part of it: its
    // readers hold the outer run too, so that `train` of the outer run
    // cannot replace it while they read.
    if let Some(at) = lexical_absolute(dir) {
        for outer in at.ancestors().skip(1).take(MAX_RUN_DEPTH).filter(|p| crate::rundir::is_run(p)) {
            lock.outer.push(acquire(outer, true)?);
        }
    }
    Ok(lock)
}

fn acquire(given: &Path, shared: bool) -> Result<FolderLock, FolderError> {
    // `.`, `..` or `runs/x/..` name a folder too: lock it by its real name,
    // beside it, as every other spelling of the same folder does.
    let resolved = lexical_absolute(given);
    let dir = resolved.as_deref().unwrap_or(given);
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
        let tried = if shared { file.try_lock_shared() } else { file.try_lock() };
        match tried {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut stamp = String::new();
                let _ = file.read_to_string(&mut stamp);
                let mut holders = Vec::new();
                if !shared {
                    // Each `solve` once: by the folder it writes, else as a reader.
                    holders = writers_under(dir);
                    for reader in readers_of(dir) {
                        let pid = stamp_pid(&reader).map(|p| format!("pid {p},"));
                        if !holders.iter().any(|h| pid.as_ref().is_some_and(|p| h.contains(p.as_str()))) {
                            holders.push(reader);
                        }
                    }
                }
                if holders.is_empty() {
                    let stamp = stamp.trim();
                    holders.push(if stamp.is_empty() { "holder unknown".to_string() } else { stamp.to_string() });
                }
                return Err(FolderError::Locked { dir: given.to_path_buf(), holder: holders.join("; ") });
            }
            Err(TryLockError::Error(e)) => return Err(io("locking", &path)(e)),
        }
        if !still_named(&file, &path) {
            // The previous holder removed this file as we opened it.
            continue;
        }
        let stamp = format!("{} pid {}, started {}", program(), std::process::id(), utc_now());
        if !shared {
            file.set_len(0).map_err(io("writing", &path))?;
            file.rewind().map_err(io("writing", &path))?;
            file.write_all(stamp.as_bytes()).map_err(io("writing", &path))?;
            // No reader lives while this lock is held: their stamps are stale.
            for stale in reader_stamps(dir) {
                let _ = std::fs::remove_file(stale);
            }
            return Ok(FolderLock { file, path, shared, stamp: None, outer: Vec::new() });
        }
        // Best effort: a stamp that cannot be written only costs the name in
        // a refusal message ("holder unknown").
        let stamp_path = reader_stamp(dir);
        let own = (|| -> std::io::Result<File> {
            let mut f = OpenOptions::new().write(true).create(true).truncate(true).open(&stamp_path)?;
            f.try_lock_shared()?;
            f.write_all(stamp.as_bytes())?;
            Ok(f)
        })();
        let stamp = match own {
            Ok(f) => Some((f, stamp_path)),
            Err(_) => {
                let _ = std::fs::remove_file(&stamp_path);
                None
            }
        };
        return Ok(FolderLock { file, path, shared, stamp, outer: Vec::new() });
    }
    Err(FolderError::Locked { dir: given.to_path_buf(), holder: "the lock file keeps changing".to_string() })
}

/// The processes writing output folders directly under `dir` or under
/// `dir/solve` (their locks are held), as "<stamp> (writing <folder>)".
fn writers_under(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for sub in [dir.to_path_buf(), dir.join("solve")] {
        let Ok(entries) = std::fs::read_dir(&sub) else { continue };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().to_string();
            let Some(folder) = name.strip_prefix('.').and_then(|n| n.strip_suffix(".lock")) else { continue };
            let Ok(mut file) = File::open(entry.path()) else { continue };
            if matches!(file.try_lock_shared(), Err(TryLockError::WouldBlock)) {
                let mut stamp = String::new();
                let _ = file.read_to_string(&mut stamp);
                found.push(format!("{} (writing {})", stamp.trim(), sub.join(folder).display()));
            }
        }
    }
    found.sort();
    found
}

/// This program's name (`train`, `solve`, …), for lock stamps.
fn program() -> String {
    std::env::args_os()
        .next()
        .and_then(|a| Path::new(&a).file_stem().map(|s| s.to_string_lossy().to_string()))
        .unwrap_or_else(|| "a process".to_string())
}

/// The current time as `YYYY-MM-DD HH:MM:SS UTC`.
#[must_use]
pub fn utc_now() -> String {
    let secs = crate::rundir::unix_now();
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

impl IfExists {
    /// `--overwrite`'s rule: replace when given, else refuse.
    #[must_use]
    pub fn overwrite(given: bool) -> Self {
        if given { Self::Replace } else { Self::Refuse }
    }
}

/// The marker file every output folder carries: which tool made it and
/// whether it was finished. Only folders with it are ever replaced: a
/// folder of tables and plots without one may be the user's own analysis,
/// however much it looks like `solve`'s.
pub const MARKER: &str = ".cube-oracle-output";

/// What an existing path at an output folder's place is.
enum Found {
    /// A finished output folder of this tool.
    Finished,
    /// An output folder whose writer stopped before finishing it.
    Interrupted,
    /// Anything else, with what it is.
    Foreign(&'static str),
}

fn classify(target: &Path) -> Found {
    let Ok(meta) = std::fs::symlink_metadata(target) else { return Found::Foreign("it cannot be read") };
    if !meta.is_dir() {
        return Found::Foreign(if meta.file_type().is_symlink() {
            "it is a symbolic link"
        } else {
            "it is not a folder"
        });
    }
    if crate::rundir::is_run(target) {
        return Found::Foreign("it is a training run");
    }
    match crate::bounded::read_regular_text(&target.join(MARKER), 4096) {
        Ok(text) if text.lines().any(|l| l == "state = complete") => Found::Finished,
        Ok(_) => Found::Interrupted,
        Err(_) => Found::Foreign("it has no output marker, so it is not a folder this tool is known to have made"),
    }
}

/// Whether `dir` is a finished output folder of this tool (marked
/// complete): one whose plots `solve replot` may redraw.
#[must_use]
pub fn is_finished_output(dir: &Path) -> bool {
    matches!(classify(dir), Found::Finished)
}

fn write_marker(dir: &Path, complete: bool) -> Result<(), FolderError> {
    let state = if complete { "complete" } else { "incomplete" };
    let text = format!("made by = {}\nstate = {state}\nat = {}\n", program(), utc_now());
    Ok(crate::rundir::write_atomic(&dir.join(MARKER), text.as_bytes())?)
}

/// The most folders [`enclosing_run`] looks up from an output folder.
pub const MAX_RUN_DEPTH: usize = 64;

/// The run a folder under `parent` belongs to: the nearest of `parent` and
/// its ancestors (at most [`MAX_RUN_DEPTH`], up to the file-system root)
/// that is a run: `parent` itself (classical results written into a run
/// with `--out`), its parent (`<run>/solve`) or any folder further up
/// (`<run>/solve/sub/…`). The path is made absolute and its `..` resolved
/// first, so `--out sub` from inside a run finds it too.
#[must_use]
pub fn enclosing_run(parent: &Path) -> Option<PathBuf> {
    let at = lexical_absolute(parent)?;
    at.ancestors().take(MAX_RUN_DEPTH).find(|p| crate::rundir::is_run(p)).map(Path::to_path_buf)
}

/// `path` made absolute with its `.` and `..` resolved by name (so that it
/// ends in the folder's own name), or `None` if the working directory is
/// unknown.
fn lexical_absolute(path: &Path) -> Option<PathBuf> {
    let mut at = PathBuf::new();
    for part in std::path::absolute(path).ok()?.components() {
        match part {
            Component::ParentDir => {
                at.pop();
            }
            Component::CurDir => {}
            other => at.push(other),
        }
    }
    Some(at)
}

/// A claimed output folder: locked, and either new or staged beside the
/// folder it will replace.
#[derive(Debug)]
pub struct Output {
    target: PathBuf,
    work: PathBuf,
    committed: bool,
    _lock: FolderLock,
    _run: Option<FolderLock>,
}

impl Output {
    /// Claims folder `name` under `parent` (`what` is the flag that named
    /// it, for messages): checks the name, takes the lock (and a shared lock
    /// of the run it lies in, if any), tidies what an interrupted earlier
    /// claim left, and prepares the folder to write. Only an output folder
    /// of this tool is replaced; one that an interrupted run left unfinished
    /// is kept, renamed `<name>.interrupted` (numbered if taken), and never
    /// blocks the name.
    ///
    /// # Errors
    /// A bad name, a lock held by another process, an existing folder with
    /// [`IfExists::Refuse`], anything at the name that this tool did not
    /// make, or an I/O error.
    pub fn claim(parent: &Path, name: &str, what: &str, if_exists: IfExists) -> Result<Self, FolderError> {
        check_name(what, name)?;
        let target = parent.join(name);
        let run = enclosing_run(parent).map(|r| lock_shared(&r)).transpose()?;
        let lock = lock(&target)?;
        recover(&target)?;
        // An empty folder at the name (made by hand, or left by a tool of
        // an older version killed while it set up) holds nothing to lose.
        if std::fs::symlink_metadata(&target).is_ok_and(|m| m.is_dir())
            && std::fs::read_dir(&target).is_ok_and(|mut e| e.next().is_none())
        {
            std::fs::remove_dir(&target).map_err(io("removing the empty folder", &target))?;
        }
        let found = std::fs::symlink_metadata(&target).is_ok().then(|| classify(&target));
        let work = match found {
            Some(Found::Foreign(why)) => return Err(FolderError::NotOurs { dir: target, why }),
            Some(Found::Finished) if if_exists == IfExists::Refuse => return Err(FolderError::Exists { dir: target }),
            Some(Found::Finished) => {
                let work = sibling(&target, ".", &format!(".new-{}", std::process::id()));
                std::fs::create_dir_all(&work).map_err(io("creating", &work))?;
                work
            }
            Some(Found::Interrupted) | None => {
                if matches!(found, Some(Found::Interrupted)) {
                    let kept = keep_interrupted(&target, &target)?;
                    eprintln!(
                        "{} was left unfinished by an interrupted run: kept as {}",
                        target.display(),
                        kept.display()
                    );
                }
                create_marked(&target)?;
                target.clone()
            }
        };
        if work != target {
            write_marker(&work, false)?;
        }
        Ok(Self { target, work, committed: false, _lock: lock, _run: run })
    }

    /// Where to write the results now: the folder itself when it is new,
    /// else a hidden staging sibling.
    #[must_use]
    pub fn dir(&self) -> &Path {
        &self.work
    }

    /// Marks the results finished and swaps staged ones in (the old folder
    /// is removed only after the new one is in place); returns the folder.
    ///
    /// # Errors
    /// An I/O error; the old folder is then still in place or restorable.
    pub fn commit(mut self) -> Result<PathBuf, FolderError> {
        self.committed = true;
        write_marker(&self.work, true)?;
        if self.work != self.target {
            let old = sibling(&self.target, ".", &format!(".old-{}", std::process::id()));
            std::fs::rename(&self.target, &old).map_err(io("moving aside", &self.target))?;
            if let Err(e) = std::fs::rename(&self.work, &self.target) {
                let _ = std::fs::rename(&old, &self.target);
                return Err(io("moving the new results to", &self.target)(e));
            }
            crate::rundir::sync_parent(&self.target);
            std::fs::remove_dir_all(&old).map_err(io("removing the replaced folder", &old))?;
        }
        Ok(self.target.clone())
    }
}

/// Makes the new output folder `target` with its marker in one step: the
/// folder is made and marked as the hidden sibling `.<name>.new-<pid>`, then
/// renamed into place, so that no kill, at any instant, leaves a folder at
/// `target` without a marker (which the next claim would have to refuse as
/// not its own). A kill before the rename leaves only the sibling, which
/// [`recover`] removes.
fn create_marked(target: &Path) -> Result<(), FolderError> {
    if let Some(parent) = target.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(io("creating", parent))?;
    }
    let staged = sibling(target, ".", &format!(".new-{}", std::process::id()));
    std::fs::create_dir(&staged).map_err(io("creating", &staged))?;
    let made =
        write_marker(&staged, false).and_then(|()| std::fs::rename(&staged, target).map_err(io("creating", target)));
    if made.is_err() {
        let _ = std::fs::remove_dir_all(&staged);
    }
    made?;
    crate::rundir::sync_parent(target);
    Ok(())
}

/// Renames the unfinished output folder `from` (the folder `target` itself,
/// or a staging folder of it) to `<target>.interrupted` (or
/// `<target>.interrupted-2`, …), out of the way of the new one.
fn keep_interrupted(from: &Path, target: &Path) -> Result<PathBuf, FolderError> {
    let mut k = 1;
    loop {
        let tag = if k == 1 { ".interrupted".to_string() } else { format!(".interrupted-{k}") };
        let kept = sibling(target, "", &tag);
        if std::fs::symlink_metadata(&kept).is_err() {
            std::fs::rename(from, &kept).map_err(io("renaming an unfinished folder", from))?;
            return Ok(kept);
        }
        k += 1;
    }
}

/// Whether output folder `dir` holds anything but its marker: results that
/// an unfinished run wrote (a sweep writes each finished width).
fn holds_results(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|mut entries| entries.any(|e| e.is_ok_and(|e| e.file_name() != MARKER)))
}

impl Drop for Output {
    /// A claim dropped without a commit (an error) removes the folder it
    /// made (new, or a staging folder beside the old one, which was never
    /// touched) if it holds nothing but its marker, so a failed run does not
    /// block the label. Results in it are kept: a new folder stays, marked
    /// unfinished; a staging folder becomes `<name>.interrupted`.
    fn drop(&mut self) {
        if self.committed || !self.work.exists() {
            return;
        }
        if holds_results(&self.work) {
            if self.work != self.target
                && let Ok(kept) = keep_interrupted(&self.work, &self.target)
            {
                eprintln!("the unfinished results are kept in {}", kept.display());
            }
        } else {
            // Moved out of the name first, so that a kill here leaves a
            // leftover that the next claim removes, never an unmarked folder.
            let gone = sibling(&self.target, ".", &format!(".new-{}", std::process::id()));
            let at = if self.work == self.target && std::fs::rename(&self.work, &gone).is_ok() {
                gone
            } else {
                self.work.clone()
            };
            let _ = std::fs::remove_file(at.join(MARKER));
            let _ = std::fs::remove_dir(&at);
        }
    }
}

/// Whether `file` is `.<name><tag><pid>`: the exact name a claim of `name`
/// gives its staging (`.new-`) or moved-aside (`.old-`) folder, and never
/// a file of another label (`<name>.new-lr`'s lock is `.<name>.new-lr.lock`).
fn is_leftover(file: &str, name: &str, tag: &str) -> bool {
    file.strip_prefix('.')
        .and_then(|f| f.strip_prefix(name))
        .and_then(|f| f.strip_prefix(tag))
        .is_some_and(crate::rundir::is_pid)
}

/// Under the lock: restores `.<name>.old-<pid>` if a crash fell between the
/// two renames of a commit (the folder itself is then missing), keeps the
/// results of a killed replacement's staging folder `.<name>.new-<pid>` as
/// `<name>.interrupted`, and removes the other leftovers of killed claims.
fn recover(target: &Path) -> Result<(), FolderError> {
    let Some(parent) = target.parent() else { return Ok(()) };
    let name = target.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    let Ok(entries) = std::fs::read_dir(if parent.as_os_str().is_empty() { Path::new(".") } else { parent }) else {
        return Ok(());
    };
    for entry in entries.flatten() {
        let file = entry.file_name().to_string_lossy().to_string();
        let (old, new) = (is_leftover(&file, &name, ".old-"), is_leftover(&file, &name, ".new-"));
        if !(old || new) || !entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let path = parent.join(&file);
        if old && !target.exists() {
            std::fs::rename(&path, target).map_err(io("restoring", target))?;
        } else if new && holds_results(&path) {
            let kept = keep_interrupted(&path, target)?;
            eprintln!("a killed run's unfinished results are kept in {}", kept.display());
        } else {
            std::fs::remove_dir_all(&path).map_err(io("removing the leftover", &path))?;
        }
    }
    Ok(())
}

/// Characters of a user value shown in a message before it is cut.
pub const SHOWN_CHARS: usize = 40;

/// `text` as shown in a message: whole up to [`SHOWN_CHARS`] characters,
/// else its first [`SHOWN_CHARS`] followed by `…` and the full length.
#[must_use]
pub fn shorten(text: &str) -> String {
    let count = text.chars().count();
    if count <= SHOWN_CHARS {
        return text.to_string();
    }
    let head: String = text.chars().take(SHOWN_CHARS).collect();
    format!("{head}… ({count} characters)")
}

/// An error as one line, as every tool prints it: the outermost message
/// first, each cause joined with `: ` unless the text so far already ends
/// with it (a message that includes its cause), line breaks folded into
/// spaces, and every value quoted in backquotes or double quotes that is
/// longer than twice [`SHOWN_CHARS`] characters shortened ([`shorten_quoted`]).
#[must_use]
pub fn one_line(e: &(dyn std::error::Error + 'static)) -> String {
    let mut line = String::new();
    let mut cause = Some(e);
    while let Some(c) = cause {
        let text = c.to_string();
        if !line.ends_with(&text) {
            if !line.is_empty() {
                line.push_str(": ");
            }
            line.push_str(&text);
        }
        cause = c.source();
    }
    let line = line.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" ");
    // Values the layers below quote in full are shortened here.
    shorten_quoted(&line, &['`', '"'])
}

/// `text` with every segment between a pair of the same quote character
/// (of `quotes`) that is longer than twice [`SHOWN_CHARS`] characters
/// shortened by [`shorten`] (a value shortened already is shorter than
/// that, and keeps its length).
#[must_use]
pub fn shorten_quoted(text: &str, quotes: &[char]) -> String {
    let mut out = String::with_capacity(text.len().min(4096));
    let mut rest = text;
    while let Some(i) = rest.find(quotes) {
        let q = rest[i..].chars().next().unwrap_or('`');
        out.push_str(&rest[..i + q.len_utf8()]);
        rest = &rest[i + q.len_utf8()..];
        if let Some(j) = rest.find(q) {
            let inner = &rest[..j];
            if inner.chars().count() > 2 * SHOWN_CHARS {
                out.push_str(&shorten(inner));
            } else {
                out.push_str(inner);
            }
            out.push(q);
            rest = &rest[j + q.len_utf8()..];
        }
    }
    out.push_str(rest);
    out
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
        // An interrupted replacement (dropped without commit) leaves the old
        // results in place and keeps its own, marked unfinished, beside them.
        let second = Output::claim(&root, "out", "--label", IfExists::Replace).unwrap();
        std::fs::write(second.dir().join("a.csv"), "half").unwrap();
        drop(second);
        assert_eq!(std::fs::read_to_string(root.join("out/a.csv")).unwrap(), "old");
        assert_eq!(std::fs::read_to_string(root.join("out.interrupted/a.csv")).unwrap(), "half");
        assert!(matches!(classify(&root.join("out.interrupted")), Found::Interrupted));
        // One that wrote nothing leaves nothing.
        drop(Output::claim(&root, "out", "--label", IfExists::Replace).unwrap());
        // The next claim tidies the leftover and a committed one swaps in.
        let third = Output::claim(&root, "out", "--label", IfExists::Replace).unwrap();
        std::fs::write(third.dir().join("b.csv"), "new").unwrap();
        third.commit().unwrap();
        assert!(!root.join("out/a.csv").exists());
        assert_eq!(std::fs::read_to_string(root.join("out/b.csv")).unwrap(), "new");
        let mut names: Vec<String> =
            std::fs::read_dir(&root).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().to_string()).collect();
        names.sort();
        assert_eq!(names, vec!["out".to_string(), "out.interrupted".to_string()], "no leftovers");
        std::fs::remove_dir_all(root.join("out.interrupted")).unwrap();
        // A crash between the two renames of a commit is repaired.
        std::fs::rename(root.join("out"), root.join(".out.old-1")).unwrap();
        let fourth = Output::claim(&root, "out", "--label", IfExists::Refuse).unwrap_err();
        assert!(matches!(fourth, FolderError::Exists { .. }));
        assert_eq!(std::fs::read_to_string(root.join("out/b.csv")).unwrap(), "new");
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_killed_replacement_keeps_its_results_and_other_labels_files_are_left_alone() {
        let root = scratch("leftovers");
        let out = Output::claim(&root, "out", "--label", IfExists::Refuse).unwrap();
        std::fs::write(out.dir().join("a.csv"), "old").unwrap();
        out.commit().unwrap();
        // What a killed `--overwrite` leaves: a staging folder with a
        // finished width, and one with nothing but its marker.
        for (pid, table) in [(7, Some("width 1")), (8, None)] {
            let staging = root.join(format!(".out.new-{pid}"));
            write_marker(&staging, false).unwrap();
            if let Some(text) = table {
                std::fs::write(staging.join("scaling.csv"), text).unwrap();
            }
        }
        // Files of the labels `out.new-lr` and `out.old-x`, one of them in use.
        let other = Output::claim(&root, "out.new-lr", "--label", IfExists::Refuse).unwrap();
        std::fs::write(root.join(".out.old-x.lock"), "a lock file").unwrap();
        let again = Output::claim(&root, "out", "--label", IfExists::Replace).unwrap();
        assert_eq!(std::fs::read_to_string(root.join("out.interrupted/scaling.csv")).unwrap(), "width 1");
        assert!(!root.join(".out.new-7").exists() && !root.join(".out.new-8").exists());
        assert!(root.join(".out.new-lr.lock").is_file() && root.join(".out.old-x.lock").is_file());
        assert!(other.dir().is_dir() && root.join("out/a.csv").is_file());
        drop((again, other));
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_new_folder_appears_with_its_marker_and_a_kill_before_that_blocks_nothing() {
        let root = scratch("atomic");
        // What a claim killed while it made a new folder leaves: the marked
        // staging sibling, never a folder at the name without a marker.
        write_marker(&root.join(".fresh.new-9"), false).unwrap();
        let out = Output::claim(&root, "fresh", "--label", IfExists::Refuse).unwrap();
        assert!(matches!(classify(&root.join("fresh")), Found::Interrupted), "marked from its first instant");
        assert!(!root.join(".fresh.new-9").exists(), "the killed claim's sibling is removed");
        let staged = root.join(format!(".fresh.new-{}", std::process::id()));
        assert!(!staged.exists(), "the claim's own staging folder became the folder");
        assert_eq!(out.dir(), root.join("fresh"));
        drop(out);
        assert!(
            std::fs::read_dir(&root)
                .unwrap()
                .flatten()
                .all(|e| e.file_name() != "fresh" && !e.file_name().to_string_lossy().starts_with(".fresh.new-")),
            "an unused claim leaves nothing"
        );
        // An empty folder at the name holds nothing to lose: it is taken.
        std::fs::create_dir(root.join("fresh")).unwrap();
        Output::claim(&root, "fresh", "--label", IfExists::Refuse).unwrap().commit().unwrap();
        assert!(is_finished_output(&root.join("fresh")));
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_folder_has_one_lock_however_its_path_is_spelled() {
        let root = scratch("spelling");
        let run = root.join("run");
        std::fs::create_dir_all(&run).unwrap();
        let held = lock(&run).unwrap();
        for spelling in [run.join("."), run.join("sub").join(".."), root.join("x/../run")] {
            let e = lock_shared(&spelling).unwrap_err();
            assert!(matches!(e, FolderError::Locked { .. }), "{}: {e}", spelling.display());
        }
        drop(held);
        let names: Vec<String> =
            std::fs::read_dir(&run).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().to_string()).collect();
        assert!(names.is_empty(), "no lock file inside the folder: {names:?}");
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn shared_holders_are_named_and_runs_are_found_however_deep() {
        let root = scratch("shared");
        let run = root.join("run");
        std::fs::create_dir_all(run.join("checkpoints")).unwrap();
        std::fs::write(run.join("config.toml"), include_str!("../configs/smoke.toml")).unwrap();
        std::fs::write(run.join("meta.json"), r#"{"crate_versions": {"cube-oracle": "0.1.0"}}"#).unwrap();
        let reader = lock_shared(&run).unwrap();
        let e = lock(&run).unwrap_err().to_string();
        assert!(e.contains(&format!("pid {},", std::process::id())) && !e.contains("holder unknown"), "{e}");
        // A second reader in the same process is named once.
        let again = lock_shared(&run).unwrap();
        let e = lock(&run).unwrap_err().to_string();
        assert_eq!(e.matches(&format!("pid {},", std::process::id())).count(), 1, "{e}");
        drop((reader, again));
        assert!(reader_stamps(&run).is_empty(), "a released reader removes its stamp");
        // A stamp left by a killed reader is not a holder, and the next
        // exclusive lock removes it.
        std::fs::write(root.join(".run.lock-reader-1-0"), "solve pid 1, started then").unwrap();
        std::fs::write(root.join(".run.lock-reader-x.lock"), "another folder's").unwrap();
        let held = lock(&run).unwrap();
        assert!(!root.join(".run.lock-reader-1-0").exists() && root.join(".run.lock-reader-x.lock").exists());
        drop(held);
        for deep in ["solve", "solve/sub", "solve/sub/a/b/c", "solve/x/../y"] {
            assert_eq!(enclosing_run(&run.join(deep)), Some(run.clone()), "{deep}");
        }
        assert_eq!(enclosing_run(&root.join("elsewhere")), None);
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn messages_are_one_line_without_repeated_causes_and_long_values_are_cut() {
        assert_eq!(shorten("short"), "short");
        let long = "9".repeat(301);
        let s = shorten(&long);
        assert!(s.starts_with(&"9".repeat(SHOWN_CHARS)) && s.ends_with("… (301 characters)"), "{s}");
        assert_eq!(shorten(&"é".repeat(41)).chars().filter(|&c| c == 'é').count(), SHOWN_CHARS);
        #[derive(Debug)]
        struct Layer(String, Option<Box<Layer>>);
        impl std::fmt::Display for Layer {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }
        impl std::error::Error for Layer {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                self.1.as_deref().map(|l| l as &(dyn std::error::Error + 'static))
            }
        }
        let inner = Layer("unsolvable".into(), None);
        let e = Layer("instance a\nb: unsolvable".into(), Some(Box::new(inner)));
        assert_eq!(one_line(&e), "instance a b: unsolvable");
        let e = Layer(format!("unknown variant `{}`", "x".repeat(500)), None);
        let line = one_line(&e);
        assert!(line.contains("… (500 characters)`") && line.len() < 120, "{line}");
    }

    #[test]
    fn utc_dates_are_civil_dates() {
        let now = utc_now();
        assert_eq!(now.len(), "2026-11-23 10:00:00 UTC".len());
        let year: i32 = now[..4].parse().unwrap();
        assert!((2024..2200).contains(&year));
    }
}
