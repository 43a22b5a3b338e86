//! The shipped configs: every training config under `configs/` loads
//! against the typed schema (unknown keys are errors), every study file
//! under `configs/study/` loads with its grid, and the model-size study changes the
//! network and the run name only, with sizes strictly increasing, and each
//! Q-distance or value config differs from its policy twin in the kind only;
//! the long Q run is reference v2 with more samples and bf16 products.

use cube_oracle::learn::config::{Matmul, TrainConfig};
use cube_oracle::learn::model::parameter_count;
use std::path::{Path, PathBuf};

fn toml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            toml_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "toml") {
            out.push(p);
        }
    }
}

#[test]
fn every_shipped_config_loads() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs");
    let mut files = Vec::new();
    toml_files(&root, &mut files);
    // `configs/study/` holds study files (`study --config`), a grid over a
    // training config, not training configs.
    let (studies, configs): (Vec<PathBuf>, Vec<PathBuf>) =
        files.into_iter().partition(|f| f.starts_with(root.join("study")));
    assert!(configs.len() >= 9, "{configs:?}");
    for f in &configs {
        TrainConfig::load(f).unwrap_or_else(|e| panic!("{}: {e:#}", f.display()));
    }
    for f in &studies {
        let study = cube_oracle::study::Study::load(f).unwrap_or_else(|e| panic!("{}: {e:#}", f.display()));
        assert!(!study.points.is_empty(), "{}", f.display());
    }
}

#[test]
fn the_size_study_varies_the_network_only() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/size-study");
    let load = |n: &str| TrainConfig::load(&dir.join(format!("{n}.toml"))).unwrap();
    let sizes: Vec<TrainConfig> = ["xs", "s", "m", "l"].iter().map(|n| load(n)).collect();
    let params: Vec<usize> = sizes.iter().map(|c| parameter_count(&c.model, 324, 12)).collect();
    assert!(params.windows(2).all(|w| w[0] < w[1]), "sizes must grow: {params:?}");
    let reference =
        TrainConfig::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/cube3-reference.toml")).unwrap();
    assert_eq!(sizes[3].model, reference.model, "size l is the reference oracle's network");
    assert_eq!(params[3], 1_491_980);
    for c in &sizes[1..] {
        let mut same = c.clone();
        same.model = sizes[0].model.clone();
        same.run.name = sizes[0].run.name.clone();
        assert_eq!(same, sizes[0], "only [model] and the run name may differ");
    }
}

#[test]
fn the_other_kind_configs_change_only_the_kind() {
    // docs/puzzle15.md compares the two 15-puzzle oracles at equal training
    // samples, and configs/cube3-gpu-q.toml and cube3-gpu-value.toml are the
    // GPU run again as a Q-distance and a value oracle, and
    // configs/cube3-reference-q.toml is the CPU reference (v1) again as a
    // Q-distance oracle (v2's CPU legs): same walks (seed), network,
    // optimiser and budget.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs");
    let pairs = [
        ("puzzle15-reference", "puzzle15-value"),
        ("cube3-gpu", "cube3-gpu-value"),
        ("cube3-gpu", "cube3-gpu-q"),
        ("cube3-reference", "cube3-reference-q"),
    ];
    for (policy, other) in pairs {
        let policy = TrainConfig::load(&dir.join(format!("{policy}.toml"))).unwrap();
        let other = TrainConfig::load(&dir.join(format!("{other}.toml"))).unwrap();
        assert_ne!(policy.model.kind, other.model.kind);
        let mut same = other.clone();
        same.model.kind = policy.model.kind;
        same.model.loss = policy.model.loss;
        same.model.forward_targets = policy.model.forward_targets;
        same.run.name = policy.run.name.clone();
        assert_eq!(same, policy, "{}: only [model] kind (and its loss) and the run name may differ", other.run.name);
    }
}

#[test]
fn the_long_q_run_is_reference_v2_at_four_times_the_samples() {
    // configs/cube3-q-long.toml is reference v2's recipe with 4x the samples
    // and bf16 products: the same walks (seed), network, batch and optimiser.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs");
    let v2 = TrainConfig::load(&dir.join("cube3-reference-q.toml")).unwrap();
    let long = TrainConfig::load(&dir.join("cube3-q-long.toml")).unwrap();
    assert_eq!((long.train.samples, v2.train.samples), (Some(300_000_000), Some(75_000_000)));
    assert_eq!(long.backend.matmul, Matmul::Bf16);
    let mut same = long.clone();
    same.run.name = v2.run.name.clone();
    same.train.samples = v2.train.samples;
    same.backend.matmul = v2.backend.matmul;
    assert_eq!(same, v2, "only the run name, the samples and backend.matmul may differ");
}
