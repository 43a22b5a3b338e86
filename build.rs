//! Records, for run metadata, the locked versions of key dependencies and
//! the git revision the executables are built from.

#[path = "src/revision.rs"]
mod revision;

fn main() {
    println!("cargo:rerun-if-changed=Cargo.lock");
    build_revision();
    let lock = std::fs::read_to_string("Cargo.lock").unwrap_or_default();
    let wanted = ["burn", "burn-flex", "polars", "plotters", "rand", "rand_distr"];
    let mut found = Vec::new();
    let mut name = None;
    for line in lock.lines() {
        if let Some(n) = line.strip_prefix("name = ") {
            name = Some(n.trim_matches('"').to_string());
        } else if let (Some(v), Some(n)) = (line.strip_prefix("version = "), name.take())
            && wanted.contains(&n.as_str())
            && !found.iter().any(|(m, _): &(String, String)| *m == n)
        {
            found.push((n, v.trim_matches('"').to_string()));
        }
    }
    let joined: Vec<String> = found.iter().map(|(n, v)| format!("{n}={v}")).collect();
    println!("cargo:rustc-env=CUBE_ORACLE_DEP_VERSIONS={}", joined.join(","));
}

/// `CUBE_ORACLE_BUILD_REVISION`: the checkout's commit, with `-dirty` when
/// the code (`revision::CODE`) differs from it, or `unknown` outside a git
/// checkout. The script runs again when the
/// code or the branch's commit changes.
fn build_revision() {
    for path in revision::CODE.into_iter().chain([".git/HEAD", ".git/refs/heads", ".git/packed-refs"]) {
        if std::path::Path::new(path).exists() {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    let revision = revision::of_checkout(&revision::CODE);
    println!("cargo:rustc-env=CUBE_ORACLE_BUILD_REVISION={revision}");
}
