//! The git revision of a checkout: its commit, with `-dirty` when tracked
//! files differ from it. One function for both of its users: the build
//! script (the revision an executable is built from, its code only) and
//! run metadata (the checkout's revision when a run or a search starts).
//! It uses nothing but the standard library, so that `build.rs` can
//! include it.

/// The files an executable is built from: its revision is `-dirty` only
/// when one of these differs from the commit.
pub const CODE: [&str; 4] = ["build.rs", "Cargo.toml", "Cargo.lock", "src"];

/// The commit of the git checkout around the current directory, with
/// `-dirty` when a tracked file under `paths` (any tracked file when
/// `paths` is empty) differs from it; `unknown` outside a git checkout or
/// where git cannot run.
#[must_use]
pub fn of_checkout(paths: &[&str]) -> String {
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    match git(&["rev-parse", "HEAD"]) {
        Some(rev) if !rev.is_empty() => {
            let mut status = vec!["status", "--porcelain", "--untracked-files=no", "--"];
            status.extend_from_slice(paths);
            let dirty = git(&status).is_some_and(|s| !s.is_empty());
            if dirty { format!("{rev}-dirty") } else { rev }
        }
        _ => "unknown".to_string(),
    }
}
