//! Records the locked versions of key dependencies for run metadata.

fn main() {
    println!("cargo:rerun-if-changed=Cargo.lock");
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
