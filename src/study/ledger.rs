//! The study folder's ledger, `.cube-oracle-study.json`: every file the
//! study wrote there (its tables and plots, each point's `point.csv`) with
//! the checksum of what it wrote, and for each point what its results
//! depend on (the run's identity, the test set's contents).
//!
//! The ledger is the study's proof of ownership. A file is replaced or
//! removed only when it is in the ledger with the checksum it has now; a
//! file of the same name that the study did not write (a user's table, a
//! `point.csv` copied from another point) is refused and named, and left as
//! it is. A point whose recorded dependencies differ from the current ones
//! is unfinished ([`super::Stale::Dependency`]). A study folder that holds
//! study-named files but no ledger (written before ledgers, or by something
//! else) is refused until `study --adopt` records its files as they are.
//!
//! Every change happens under the study folder's lock, so shards that
//! finish points together update the ledger one at a time.

use super::StudyError;
use crate::checksum::fnv1a;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The ledger's file name, in the study's folder.
pub const LEDGER: &str = ".cube-oracle-study.json";

/// The largest ledger read (a study of 10,000 points needs about 3 MB).
const MAX_LEDGER_BYTES: u64 = 64 << 20;

/// The largest file whose checksum is taken (the study's tables and plots
/// are kilobytes to a few megabytes).
const MAX_OWNED_BYTES: u64 = 256 << 20;

/// One file the study wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// FNV-1a of its bytes, hex.
    pub fnv: String,
    /// For a point's table: what its results depend on, in words
    /// ([`super::Point::dependencies`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depends: Option<String>,
}

/// The ledger of one study folder.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Ledger {
    /// Always `study`.
    made_by: String,
    /// Files by their path relative to the study folder (`/`-separated).
    files: BTreeMap<String, Entry>,
    /// The study folder (not serialised).
    #[serde(skip)]
    dir: PathBuf,
}

/// The checksum of the file at `path`, hex; `None` where nothing readable
/// is there.
fn checksum(path: &Path) -> Option<String> {
    let bytes = crate::bounded::read_regular(path, MAX_OWNED_BYTES).ok()?;
    Some(format!("{:016x}", fnv1a(&bytes)))
}

/// Whether `name` (relative to the study folder) is a name the study writes.
fn study_named(rel: &str) -> bool {
    let top = ["points.csv", "fit.csv", "forecasts.csv", "frontier.csv"];
    top.contains(&rel)
        || (rel.starts_with("plots/") && (rel.ends_with(".png") || rel.ends_with(".svg")))
        || (rel.starts_with("included/") && rel.ends_with(".csv"))
        || rel.ends_with(&format!("/{}", super::POINT_FILE))
}

/// Study-named files under `dir` (two levels: tables, `plots/`,
/// `included/`, and each point folder's `point.csv`), relative.
fn study_files(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return found };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        let Ok(kind) = e.file_type() else { continue };
        if kind.is_dir() {
            let Ok(inner) = std::fs::read_dir(e.path()) else { continue };
            for f in inner.flatten() {
                let rel = format!("{name}/{}", f.file_name().to_string_lossy());
                if study_named(&rel) {
                    found.push(rel);
                }
            }
        } else if study_named(&name) {
            found.push(name);
        }
    }
    found.sort();
    found
}

impl Ledger {
    /// The ledger of the study folder `dir`, read-only: empty where the
    /// folder has none.
    ///
    /// # Errors
    /// A ledger that cannot be read or parsed.
    pub fn read(dir: &Path) -> Result<Self, StudyError> {
        let path = dir.join(LEDGER);
        let bad = |message: String| StudyError::Invalid { path: path.clone(), message };
        let mut ledger = match crate::bounded::read_regular(&path, MAX_LEDGER_BYTES) {
            Ok(bytes) => serde_json::from_slice::<Ledger>(&bytes)
                .map_err(|e| bad(format!("not a study ledger ({e}); move it away and run `study --adopt`")))?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ledger::default(),
            Err(e) => return Err(bad(format!("cannot be read: {e}"))),
        };
        if !ledger.files.is_empty() && ledger.made_by != "study" {
            return Err(bad("not a study ledger (`made_by` is not \"study\")".into()));
        }
        ledger.made_by = "study".into();
        ledger.dir = dir.to_path_buf();
        Ok(ledger)
    }

    /// The ledger of `dir` for a study about to write there. A folder
    /// without a ledger but with files of the names the study writes is
    /// refused ([`StudyError::Unledgered`]).
    ///
    /// # Errors
    /// As [`Ledger::read`], or that refusal.
    pub fn for_writing(dir: &Path) -> Result<Self, StudyError> {
        let ledger = Self::read(dir)?;
        if !dir.join(LEDGER).exists() {
            let found = study_files(dir);
            if !found.is_empty() {
                let mut first = found.iter().take(3).cloned().collect::<Vec<_>>().join(", ");
                if found.len() > 3 {
                    first.push_str(", …");
                }
                return Err(StudyError::Unledgered { dir: dir.to_path_buf(), first, count: found.len() });
            }
        }
        Ok(ledger)
    }

    /// `study --adopt`: records every study-named file now in the folder as
    /// the study's, with `depends` for the point tables it names. Returns
    /// how many files were recorded.
    ///
    /// # Errors
    /// A file cannot be read, or the ledger cannot be written.
    pub fn adopt(dir: &Path, depends: &dyn Fn(&str) -> Option<String>) -> Result<usize, StudyError> {
        let mut ledger = Self::read(dir)?;
        let found = study_files(dir);
        for rel in &found {
            let fnv = checksum(&dir.join(rel)).ok_or_else(|| StudyError::Invalid {
                path: dir.join(rel),
                message: "cannot be read as a regular file".into(),
            })?;
            ledger.files.insert(rel.clone(), Entry { fnv, depends: depends(rel) });
        }
        ledger.save()?;
        Ok(found.len())
    }

    /// The path of `path` relative to the study folder, `/`-separated.
    fn rel(&self, path: &Path) -> String {
        path.strip_prefix(&self.dir).unwrap_or(path).to_string_lossy().replace('\\', "/")
    }

    /// Whether the file at `path` is the study's as the ledger knows it:
    /// absent (nothing to protect), or present with the recorded checksum.
    ///
    /// # Errors
    /// [`StudyError::Foreign`] naming the file: present, and not recorded
    /// or with other contents.
    pub fn check(&self, path: &Path) -> Result<(), StudyError> {
        if std::fs::symlink_metadata(path).is_err() {
            return Ok(());
        }
        let rel = self.rel(path);
        let why = match self.files.get(&rel) {
            None => "the study did not write it",
            Some(e) if checksum(path).as_deref() != Some(e.fnv.as_str()) => {
                "its contents are not what the study wrote there"
            }
            Some(_) => return Ok(()),
        };
        Err(StudyError::Foreign { path: path.to_path_buf(), why })
    }

    /// What the point table at `path` was recorded to depend on.
    #[must_use]
    pub fn depends(&self, path: &Path) -> Option<&str> {
        self.files.get(&self.rel(path)).and_then(|e| e.depends.as_deref())
    }

    /// Records the file just written at `path` (with `depends` for a
    /// point's table) and saves the ledger.
    ///
    /// # Errors
    /// The file cannot be read back, or the ledger cannot be written.
    pub fn record(&mut self, path: &Path, depends: Option<String>) -> Result<(), StudyError> {
        let fnv = checksum(path).ok_or_else(|| StudyError::Invalid {
            path: path.to_path_buf(),
            message: "cannot be read back after writing it".into(),
        })?;
        let rel = self.rel(path);
        self.files.insert(rel, Entry { fnv, depends });
        self.save()
    }

    /// After a merge rewrote (or removed) the files at `rels` (relative to
    /// the study folder, each checked with [`Ledger::check`] beforehand):
    /// records those now present, forgets those gone, and saves.
    ///
    /// # Errors
    /// A file cannot be read back, or the ledger cannot be written.
    pub fn settle(&mut self, rels: &[&str]) -> Result<(), StudyError> {
        for rel in rels {
            let path = self.dir.join(rel);
            match checksum(&path) {
                Some(fnv) => {
                    self.files.insert((*rel).to_string(), Entry { fnv, depends: None });
                }
                None => {
                    self.files.remove(*rel);
                }
            }
        }
        self.save()
    }

    /// Removes the study's file at `path`, if one is there, after
    /// [`Ledger::check`]; a file the study did not write is refused.
    ///
    /// # Errors
    /// [`StudyError::Foreign`], or the file or the ledger cannot be
    /// written.
    pub fn remove(&mut self, path: &Path) -> Result<(), StudyError> {
        self.check(path)?;
        if path.is_file() {
            std::fs::remove_file(path)
                .map_err(|e| crate::csvlog::TableError::from(crate::rundir::FileError::at("removing", path)(e)))?;
        }
        if self.files.remove(&self.rel(path)).is_some() {
            self.save()?;
        }
        Ok(())
    }

    /// Writes the ledger atomically.
    fn save(&self) -> Result<(), StudyError> {
        std::fs::create_dir_all(&self.dir)
            .map_err(|e| crate::csvlog::TableError::from(crate::rundir::FileError::at("creating", &self.dir)(e)))?;
        let text = serde_json::to_string_pretty(self).map_err(|e| StudyError::Invalid {
            path: self.dir.join(LEDGER),
            message: format!("cannot be encoded: {e}"),
        })?;
        crate::rundir::write_atomic(&self.dir.join(LEDGER), text.as_bytes())
            .map_err(crate::csvlog::TableError::from)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("ledger-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn only_recorded_files_with_their_recorded_contents_are_the_studys() {
        let dir = scratch("own");
        let mut ledger = Ledger::for_writing(&dir).unwrap();
        let table = dir.join("points.csv");
        ledger.check(&table).unwrap();
        std::fs::write(&table, "a\n1\n").unwrap();
        ledger.record(&table, None).unwrap();
        ledger.check(&table).unwrap();
        // Reloaded, the ledger knows the file.
        let mut again = Ledger::for_writing(&dir).unwrap();
        again.check(&table).unwrap();
        // Edited by someone else: no longer the study's.
        std::fs::write(&table, "a\n2\n").unwrap();
        let e = again.check(&table).unwrap_err().to_string();
        assert!(e.contains("points.csv") && e.contains("not what the study wrote"), "{e}");
        assert!(again.remove(&table).is_err());
        assert_eq!(std::fs::read_to_string(&table).unwrap(), "a\n2\n", "a refused file is left as it is");
        // A file it never wrote.
        let fit = dir.join("fit.csv");
        std::fs::write(&fit, "mine").unwrap();
        let e = again.check(&fit).unwrap_err().to_string();
        assert!(e.contains("fit.csv") && e.contains("did not write"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_folder_with_study_files_and_no_ledger_is_refused_until_adopted() {
        let dir = scratch("adopt");
        std::fs::create_dir_all(dir.join("p1")).unwrap();
        std::fs::write(dir.join("p1/point.csv"), "x").unwrap();
        std::fs::write(dir.join("notes.txt"), "not a study name").unwrap();
        let e = Ledger::for_writing(&dir).unwrap_err().to_string();
        assert!(e.contains("p1/point.csv") && e.contains("--adopt"), "{e}");
        let n = Ledger::adopt(&dir, &|rel| (rel == "p1/point.csv").then(|| "dep".to_string())).unwrap();
        assert_eq!(n, 1);
        let ledger = Ledger::for_writing(&dir).unwrap();
        ledger.check(&dir.join("p1/point.csv")).unwrap();
        assert_eq!(ledger.depends(&dir.join("p1/point.csv")), Some("dep"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
