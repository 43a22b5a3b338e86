//! `meta.json` of an oracle sweep's folder: what produced its tables, so
//! that a timing or a length can be traced to a machine, a build and a
//! network. It names the command line, the git revision, the run and the
//! checkpoint searched with, the device (the CPU's model, family, model
//! number and SIMD flags, or the GPU adapter) and what computed the
//! products (the compiled kernel, its precision and unit), the search's
//! settings, and the wall time of each width finished. It is written when
//! the sweep starts (`complete: false`), again after each width, and a
//! last time with `complete: true`, so a sweep cut short still says what
//! it was.

use crate::learn::backend;
use crate::learn::inference::NetOracle;
use crate::rundir::{build_revision, dependency_versions, git_revision, unix_now, write_atomic};
use crate::search::Oracle;
use crate::solve::SolveOptions;
use crate::solve::error::SolveError;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// The file's name in the sweep's folder.
pub const META_FILE: &str = "meta.json";

/// A sweep's `meta.json`, kept up to date as its widths finish.
pub(super) struct SweepMeta {
    path: PathBuf,
    value: Value,
}

/// Describes the sweep `opts` asks for with `oracle` (before any symmetric
/// ensemble of `symmetry` transforms wraps it), searching `instances`
/// instances to at most `max_depth` moves.
pub(super) fn describe(
    opts: &SolveOptions,
    oracle: &NetOracle,
    instances: usize,
    max_depth: usize,
    symmetry: usize,
) -> Value {
    let versions: serde_json::Map<String, Value> =
        dependency_versions().into_iter().map(|(k, v)| (k.to_string(), json!(v))).collect();
    json!({
        "command_line": std::env::args().collect::<Vec<_>>().join(" "),
        "git_revision": git_revision(),
        "build_revision": build_revision(),
        "versions": versions,
        "run": opts.run_dir,
        "checkpoint": oracle.checkpoint,
        "kind": oracle.kind().name(),
        "device": backend::describe(oracle.device_kind()),
        "matmul": oracle.matmul().name(),
        "products": oracle.products(),
        "jobs": opts.jobs.clamp(1, instances.max(1)),
        "symmetry": symmetry,
        "dedup": opts.dedup,
        "max_depth": max_depth,
        "instances": instances,
        "widths": opts.widths,
        "wall_s": Vec::<f64>::new(),
        "started_unix": unix_now(),
        "complete": false,
    })
}

impl SweepMeta {
    /// Writes `value` ([`describe`]) into folder `dir`.
    ///
    /// # Errors
    /// The file cannot be written.
    pub(super) fn start(dir: &Path, value: Value) -> Result<Self, SolveError> {
        let meta = Self { path: dir.join(META_FILE), value };
        meta.write()?;
        Ok(meta)
    }

    /// Records the widths searched so far (they may grow when an unsolved
    /// instance escalates) with each one's wall time, and whether the sweep
    /// is complete; writes the file.
    ///
    /// # Errors
    /// The file cannot be written.
    pub(super) fn update(&mut self, widths: &[usize], wall_s: &[f64], complete: bool) -> Result<(), SolveError> {
        self.value["widths"] = json!(widths);
        self.value["wall_s"] = json!(wall_s);
        self.value["updated_unix"] = json!(unix_now());
        self.value["complete"] = json!(complete);
        self.write()
    }

    fn write(&self) -> Result<(), SolveError> {
        Ok(write_atomic(&self.path, format!("{:#}", self.value).as_bytes())?)
    }
}
