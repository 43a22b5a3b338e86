//! Packed distance tables and their checksummed disk cache.
//!
//! A table is a dense array indexed by a pattern's rank. [`NibbleTable`]
//! stores 4 bits an entry (values 0..=14; 15 marks "not yet reached" while a
//! BFS fills it), [`ByteTable`] one byte (0..=254; 255 is the mark).
//!
//! [`load_or_build`] looks for `<dir>/<name>.pdb`. The file records a magic
//! number, the entry width, the entry count, a *fingerprint* (a hash of
//! everything the table depends on: puzzle size, goal, pattern, metric,
//! format version) and the name, then the payload, then an FNV-1a checksum of
//! all of it. A file whose checksum, size, width or fingerprint does not
//! match is reported as corrupt or stale and rebuilt, never trusted. Files
//! are written to a temporary sibling, synced and renamed into place, so a
//! reader never sees half a table.

use super::HeuristicError;
use crate::checksum::Fnv1a;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const MAGIC: &[u8; 8] = b"COPDB\x01\0\0";

/// A packed table that can be cached: a fixed entry width, a length, and
/// its raw bytes.
pub trait Packed: Sized {
    /// Bits per entry (4 or 8).
    const BITS: u8;
    /// Number of entries.
    fn len(&self) -> usize;
    /// Whether the table has no entries.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The packed bytes.
    fn bytes(&self) -> &[u8];
    /// Rebuilds a table of `len` entries from its packed bytes; `None` when
    /// the byte count does not fit `len`.
    fn from_bytes(len: usize, bytes: Vec<u8>) -> Option<Self>;
}

/// 4 bits an entry, two entries a byte (entry `i` in the low nibble of byte
/// `i / 2` when `i` is even).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NibbleTable {
    len: usize,
    data: Vec<u8>,
}

impl NibbleTable {
    /// The "not yet reached" mark.
    pub const EMPTY: u8 = 15;

    /// A table of `len` entries, all [`Self::EMPTY`].
    #[must_use]
    pub fn new(len: usize) -> Self {
        Self { len, data: vec![0xff; len.div_ceil(2)] }
    }

    /// Entry `i`.
    #[inline]
    #[must_use]
    pub fn get(&self, i: usize) -> u8 {
        (self.data[i >> 1] >> ((i & 1) << 2)) & 0xf
    }

    /// Sets entry `i` to `v` (`v < 16`).
    #[inline]
    pub fn set(&mut self, i: usize, v: u8) {
        debug_assert!(v < 16);
        let shift = (i & 1) << 2;
        let b = &mut self.data[i >> 1];
        *b = (*b & !(0xf << shift)) | (v << shift);
    }
}

impl Packed for NibbleTable {
    const BITS: u8 = 4;
    fn len(&self) -> usize {
        self.len
    }
    fn bytes(&self) -> &[u8] {
        &self.data
    }
    fn from_bytes(len: usize, bytes: Vec<u8>) -> Option<Self> {
        (bytes.len() == len.div_ceil(2)).then_some(Self { len, data: bytes })
    }
}

/// One byte an entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ByteTable {
    data: Vec<u8>,
}

impl ByteTable {
    /// The "not yet reached" mark.
    pub const EMPTY: u8 = 255;

    /// A table of `len` entries, all [`Self::EMPTY`].
    #[must_use]
    pub fn new(len: usize) -> Self {
        Self { data: vec![Self::EMPTY; len] }
    }

    /// Entry `i`.
    #[inline]
    #[must_use]
    pub fn get(&self, i: usize) -> u8 {
        self.data[i]
    }

    /// Sets entry `i`.
    #[inline]
    pub fn set(&mut self, i: usize, v: u8) {
        self.data[i] = v;
    }

    /// All entries.
    #[must_use]
    pub fn as_slice(&self) -> &[u8] {
        &self.data
    }

    /// All entries, mutably (for parallel fills).
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        &mut self.data
    }
}

impl Packed for ByteTable {
    const BITS: u8 = 8;
    fn len(&self) -> usize {
        self.data.len()
    }
    fn bytes(&self) -> &[u8] {
        &self.data
    }
    fn from_bytes(len: usize, bytes: Vec<u8>) -> Option<Self> {
        (bytes.len() == len).then_some(Self { data: bytes })
    }
}

/// Where the table came from.
#[derive(Clone, Debug, PartialEq)]
pub enum CacheOutcome {
    /// Read from this cache file, checksum verified.
    Loaded(PathBuf),
    /// Built by BFS; saved to the path when caching was on; `reason` says
    /// why no cached copy was used (absent, corrupt, stale, caching off).
    Built { seconds: f64, saved: Option<PathBuf>, reason: String },
}

/// The cache directory: `$CUBE_ORACLE_CACHE` if set (the value `off`
/// disables caching), else `$XDG_CACHE_HOME/cube-oracle`, else
/// `$HOME/.cache/cube-oracle`. `None` when caching is off or no home is known.
#[must_use]
pub fn cache_dir() -> Option<PathBuf> {
    if let Some(v) = std::env::var_os("CUBE_ORACLE_CACHE") {
        return (v != "off" && !v.is_empty()).then(|| PathBuf::from(v));
    }
    if let Some(x) = std::env::var_os("XDG_CACHE_HOME").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(x).join("cube-oracle"));
    }
    std::env::var_os("HOME").filter(|v| !v.is_empty()).map(|h| PathBuf::from(h).join(".cache").join("cube-oracle"))
}

/// A progress bar for a table build of `total` steps on stderr; it draws
/// only on a terminal and never when `CUBE_ORACLE_NO_PROGRESS` is set.
#[must_use]
pub fn build_progress(label: &str, total: u64) -> ProgressBar {
    if std::env::var_os("CUBE_ORACLE_NO_PROGRESS").is_some() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} ({elapsed}, eta {eta})")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.set_message(label.to_string());
    bar.enable_steady_tick(Duration::from_millis(250));
    bar
}

/// Loads table `name` (with `len` entries and this `fingerprint`) from
/// `dir`, or builds it with `build` and saves it there. With `dir = None`
/// nothing is read or written. A cache file that fails any check is
/// rebuilt and overwritten, and the reason is returned (and printed on
/// stderr).
///
/// # Errors
/// Only a failure to *write* the cache file; a bad cache file is never an
/// error, it is rebuilt.
pub fn load_or_build<T: Packed>(
    dir: Option<&Path>,
    name: &str,
    fingerprint: u64,
    len: usize,
    build: impl FnOnce() -> T,
) -> Result<(T, CacheOutcome), HeuristicError> {
    let reason = match dir {
        None => "caching is off".to_string(),
        Some(d) => {
            let path = d.join(format!("{name}.pdb"));
            match read(&path, name, fingerprint, len) {
                Ok(t) => return Ok((t, CacheOutcome::Loaded(path))),
                Err(why) => {
                    if path.exists() {
                        eprintln!("pattern database cache {}: {why}; rebuilding", path.display());
                    }
                    why
                }
            }
        }
    };
    let t0 = Instant::now();
    let table = build();
    let seconds = t0.elapsed().as_secs_f64();
    assert_eq!(table.len(), len, "pattern database {name}: built {} entries, expected {len}", table.len());
    let saved = match dir {
        None => None,
        Some(d) => {
            let path = d.join(format!("{name}.pdb"));
            write(&path, name, fingerprint, &table)?;
            Some(path)
        }
    };
    Ok((table, CacheOutcome::Built { seconds, saved, reason }))
}

fn header(name: &str, bits: u8, len: usize, fingerprint: u64) -> Vec<u8> {
    let mut h = Vec::with_capacity(40 + name.len());
    h.extend_from_slice(MAGIC);
    h.extend_from_slice(&[bits, 0, 0, 0, 0, 0, 0, 0]);
    h.extend_from_slice(&(len as u64).to_le_bytes());
    h.extend_from_slice(&fingerprint.to_le_bytes());
    h.extend_from_slice(&(name.len() as u64).to_le_bytes());
    h.extend_from_slice(name.as_bytes());
    h
}

fn read<T: Packed>(path: &Path, name: &str, fingerprint: u64, len: usize) -> Result<T, String> {
    let mut f = std::fs::File::open(path).map_err(|e| format!("not readable ({e})"))?;
    let mut bytes = Vec::new();
    f.read_to_end(&mut bytes).map_err(|e| format!("not readable ({e})"))?;
    let expected = header(name, T::BITS, len, fingerprint);
    if bytes.len() < expected.len() + 8 || &bytes[..8] != MAGIC {
        return Err("not a pattern database file (corrupt or truncated)".into());
    }
    let body = bytes.len() - 8;
    let stored = u64::from_le_bytes(bytes[body..].try_into().map_err(|_| "truncated")?);
    let mut h = Fnv1a::default();
    h.update(&bytes[..body]);
    if h.finish() != stored {
        return Err("checksum mismatch (corrupt or truncated)".into());
    }
    if bytes[..expected.len()] != expected[..] {
        return Err("stale: built for another table, size or format".into());
    }
    bytes.truncate(body);
    bytes.drain(..expected.len());
    T::from_bytes(len, bytes).ok_or_else(|| "payload size does not match the entry count".into())
}

fn write<T: Packed>(path: &Path, name: &str, fingerprint: u64, table: &T) -> Result<(), HeuristicError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|source| HeuristicError::Cache {
        action: "creating the cache directory",
        path: dir.to_path_buf(),
        source,
    })?;
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let head = header(name, T::BITS, table.len(), fingerprint);
    let mut h = Fnv1a::default();
    h.update(&head);
    h.update(table.bytes());
    let result = (|| -> std::io::Result<()> {
        let mut f = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
        f.write_all(&head)?;
        f.write_all(table.bytes())?;
        f.write_all(&h.finish().to_le_bytes())?;
        f.into_inner().map_err(std::io::IntoInnerError::into_error)?.sync_all()
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(HeuristicError::Cache { action: "writing the pattern database cache", path: tmp, source: e });
    }
    std::fs::rename(&tmp, path).map_err(|source| HeuristicError::Cache {
        action: "renaming the finished cache file onto",
        path: path.to_path_buf(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmpdir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("cube-oracle-pdb-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn nibbles_pack_two_entries_a_byte() {
        let mut t = NibbleTable::new(5);
        assert_eq!(t.bytes().len(), 3);
        assert!((0..5).all(|i| t.get(i) == NibbleTable::EMPTY));
        for i in 0..5 {
            t.set(i, i as u8 * 3);
        }
        assert_eq!((0..5).map(|i| t.get(i)).collect::<Vec<_>>(), [0, 3, 6, 9, 12]);
        assert_eq!(t.bytes()[0], 0x30);
    }

    #[test]
    fn cache_round_trip_and_corrupt_or_stale_files_are_rebuilt() {
        let dir = tmpdir("cache");
        let make = || {
            let mut t = NibbleTable::new(1001);
            (0..1001).for_each(|i| t.set(i, (i % 15) as u8));
            t
        };
        let (a, how) = load_or_build(Some(&dir), "toy", 7, 1001, make).unwrap();
        assert!(matches!(how, CacheOutcome::Built { saved: Some(_), .. }), "{how:?}");
        let (b, how) = load_or_build(Some(&dir), "toy", 7, 1001, || panic!("must load, not build")).unwrap();
        assert_eq!(a, b);
        assert!(matches!(how, CacheOutcome::Loaded(_)));

        // Another fingerprint (another goal, pattern or metric) is stale.
        let (_, how) = load_or_build(Some(&dir), "toy", 8, 1001, make).unwrap();
        let CacheOutcome::Built { reason, .. } = how else { panic!("stale cache was trusted") };
        assert!(reason.contains("stale"), "{reason}");

        // Flip one payload bit: the checksum catches it and the table is rebuilt.
        let path = dir.join("toy.pdb");
        let mut bytes = std::fs::read(&path).unwrap();
        let mid = bytes.len() / 2;
        bytes[mid] ^= 4;
        std::fs::write(&path, &bytes).unwrap();
        let (c, how) = load_or_build(Some(&dir), "toy", 8, 1001, make).unwrap();
        let CacheOutcome::Built { reason, .. } = how else { panic!("corrupt cache was trusted") };
        assert!(reason.contains("checksum"), "{reason}");
        assert_eq!(c, a);

        // Truncated file.
        std::fs::write(&path, &bytes[..20]).unwrap();
        let (_, how) = load_or_build(Some(&dir), "toy", 8, 1001, make).unwrap();
        assert!(matches!(how, CacheOutcome::Built { .. }));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
