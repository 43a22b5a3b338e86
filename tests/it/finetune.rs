//! Fine-tuning (`[finetune]`): Bellman targets computed from an exact
//! starting network are the true BFS distances of the 8-puzzle; a fine-tune
//! starts from its source's newest weights, keeps them in `init/`, resumes
//! without the source and reproduces the uninterrupted run; mismatched
//! networks, kinds and depth laws are refused with the key named.

use cube_oracle::learn::config::{FinetuneSection, FinetuneTargets, TrainConfig};
use cube_oracle::learn::data::{self, BatchSpec, Depths, Labels};
use cube_oracle::learn::finetune;
use cube_oracle::learn::training::{self, TrainOptions};
use cube_oracle::learn::{checkpoint, config::LengthSpec};
use cube_oracle::puzzle::{MoveId, Puzzle};
use cube_oracle::rundir::Existing;
use cube_oracle::scramble::{WalkKind, WalkLength};
use cube_oracle::search::{DistanceTable, OracleKind};
use cube_oracle::sliding::{Goal, Sliding};
use std::path::{Path, PathBuf};

use crate::common::column;

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cube-oracle-finetune-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn puzzle8_q(out: &Path, name: &str) -> TrainConfig {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/puzzle8-smoke.toml");
    let mut cfg = TrainConfig::load(&path).unwrap();
    cfg.run.out_dir = out.to_path_buf();
    cfg.run.name = name.to_string();
    cfg.model.kind = OracleKind::QDistance;
    cfg.train.threads = Some(1);
    cfg
}

/// A 100-step fine-tune of `source` (in `out`) with `targets`.
fn finetune_of(out: &Path, source: &str, name: &str, targets: FinetuneTargets) -> TrainConfig {
    let mut cfg = puzzle8_q(out, name);
    cfg.run.seed = 7;
    cfg.optim.lr = 3e-4;
    cfg.train.steps = Some(100);
    cfg.train.eval_every = 50;
    cfg.train.checkpoint_every = 50;
    cfg.train.log_every = 10;
    cfg.finetune = Some(FinetuneSection { from: out.join(source), targets });
    cfg
}

fn meta(dir: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(dir.join("meta.json")).unwrap()).unwrap()
}

#[test]
fn bellman_targets_of_an_exact_start_are_the_true_distances() {
    let p = Sliding::new(3, Goal::BlankLast).unwrap();
    let table = DistanceTable::build(&p, 40);
    let dist = |s: &cube_oracle::sliding::Board| f32::from(table.distance(&p, s).unwrap());
    let spec = BatchSpec {
        length: WalkLength::Fixed(30),
        prune: true,
        walk: WalkKind::Random,
        depths: Depths::AllPrefixes,
        size: 2000,
        seed: 3,
        labels: Labels::Walk,
        pool: 1,
    };
    let batch = data::make_batch(&p, &spec, 0).unwrap();
    let mut states = Vec::new();
    data::for_each_sample(&p, &spec, 0, |s, _, _| states.push(*s)).unwrap();
    // The exact Q of every sample: output m is the distance of the state
    // undoing m reaches (a large number where m cannot be undone).
    let moves = p.num_moves();
    let mut q = vec![99.0f32; states.len() * moves];
    for (j, s) in states.iter().enumerate() {
        for m in 0..moves as MoveId {
            if p.is_applicable(s, p.inverse(m)) {
                let mut c = *s;
                p.undo(&mut c, m);
                q[j * moves + usize::from(m)] = dist(&c);
            }
        }
    }
    let at_goal: Vec<bool> = states.iter().map(|s| p.is_goal(s)).collect();
    let b = finetune::bounds(&q, moves, &batch, &at_goal);
    let (mut shorter, mut bounded) = (0, 0);
    for (i, s) in states.iter().enumerate() {
        let k = f32::from(batch.depths[i]);
        let mut child = *s;
        p.undo(&mut child, batch.labels[i] as MoveId);
        if b.back[i].is_finite() {
            // min(walk distance, one exact Bellman step) is the child's distance.
            assert_eq!((k - 1.0).min(b.back[i]), dist(&child), "sample {i} at walk step {k}");
            bounded += 1;
            shorter += usize::from(dist(&child) < k - 1.0);
        }
        if batch.forward[i] >= 0 {
            assert_eq!((k + 1.0).min(b.forward[i]), dist(&states[i + 1]), "the next state of sample {i}");
        }
    }
    // Every sample but a walk cut at the batch's start has a bound, and the
    // walks' detours make many of the true distances shorter than the walk's.
    assert!(bounded >= states.len() - 30, "{bounded} of {} samples bounded", states.len());
    assert!(shorter > states.len() / 4, "only {shorter} of {bounded} targets lowered");
}

#[test]
fn a_finetune_starts_from_its_source_and_resumes_without_it() {
    let out = tmp("start");
    let source = puzzle8_q(&out, "source");
    training::run(&source, &TrainOptions::new(Existing::Refuse)).unwrap();
    let src_ckpt = checkpoint::latest(&out.join("source/checkpoints")).unwrap();

    let walk = finetune_of(&out, "source", "walk", FinetuneTargets::Walk);
    training::run(&walk, &TrainOptions::new(Existing::Refuse)).unwrap();
    let dir = out.join("walk");
    // `init/` holds the source's newest weights, without its optimiser.
    let init = checkpoint::load(&checkpoint::latest(&dir.join("init/checkpoints")).unwrap()).unwrap();
    let src = checkpoint::load(&src_ckpt).unwrap();
    assert_eq!(init.model, src.model);
    assert!(init.optimizer.is_empty());
    assert_eq!(TrainConfig::load(&dir.join("init/config.toml")).unwrap(), source);
    let m = meta(&dir);
    assert_eq!((m["finetune"]["targets"].as_str(), m["finetune"]["start_step"].as_u64()), (Some("walk"), Some(400)));
    let macs = m["forward_macs_per_sample"].as_f64().unwrap();
    assert_eq!(m["flops_per_sample"].as_f64(), Some(6.0 * macs));
    // It starts where the source ended, not from random weights: its first
    // logged loss is far below the source's first.
    let losses = |run: &str| -> Vec<f64> {
        column(&out.join(run).join("metrics.csv"), "loss").iter().map(|v| v.parse().unwrap()).collect()
    };
    let first = |run: &str| losses(run)[0];
    let last = |run: &str| *losses(run).last().unwrap();
    assert!(first("walk") < 0.5 * first("source"), "{} against {}", first("walk"), first("source"));
    assert!(first("walk") < 2.0 * last("source"), "{} against {}", first("walk"), last("source"));

    // A Bellman fine-tune, stopped after 50 steps and resumed once the
    // source is gone, equals the uninterrupted one.
    let whole = finetune_of(&out, "source", "bellman", FinetuneTargets::Bellman);
    training::run(&whole, &TrainOptions::new(Existing::Refuse)).unwrap();
    let m = meta(&out.join("bellman"));
    assert_eq!(m["flops_per_sample"].as_f64(), Some(8.0 * macs));
    let mut legs = finetune_of(&out, "source", "bellman-legs", FinetuneTargets::Bellman);
    let stop = TrainOptions { max_steps_this_leg: Some(50), ..TrainOptions::new(Existing::Refuse) };
    assert!(training::run(&legs, &stop).unwrap().stopped_early);
    std::fs::rename(out.join("source"), out.join("source-moved")).unwrap();
    // Resumed with `finetune.from` naming the moved source: the weights came
    // from the old path, and the run's records keep it.
    let started_from = out.join("source");
    legs.finetune = Some(FinetuneSection { from: out.join("source-moved"), targets: FinetuneTargets::Bellman });
    training::run(&legs, &TrainOptions::new(Existing::Resume)).unwrap();
    let saved = TrainConfig::load(&out.join("bellman-legs/config.toml")).unwrap();
    assert_eq!(saved.finetune.map(|f| f.from), Some(started_from.clone()));
    assert_eq!(meta(&out.join("bellman-legs"))["finetune"]["from"].as_str(), started_from.to_str());
    let loss = |run: &str| column(&out.join(run).join("metrics.csv"), "loss");
    assert_eq!(loss("bellman"), loss("bellman-legs"));
    // Bellman targets only lower the walk's, so its loss differs from the walk fine-tune's.
    assert_ne!(loss("bellman"), loss("walk"));
    // Resuming with other targets is refused.
    legs.finetune = Some(FinetuneSection { from: out.join("source-moved"), targets: FinetuneTargets::Walk });
    let e = training::run(&legs, &TrainOptions::new(Existing::Resume)).unwrap_err().to_string();
    assert!(e.contains("finetune.targets = \"walk\"") && e.contains("finetune.targets = \"bellman\""), "{e}");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn finetunes_that_cannot_work_are_refused_with_the_key_named() {
    let out = tmp("refuse");
    training::run(&puzzle8_q(&out, "source"), &TrainOptions::new(Existing::Refuse)).unwrap();
    // Another network's weights.
    let mut wider = finetune_of(&out, "source", "wider", FinetuneTargets::Walk);
    wider.model.hidden = vec![96];
    let e = training::run(&wider, &TrainOptions::new(Existing::Refuse)).unwrap_err().to_string();
    assert!(e.contains("model.hidden") && e.contains("[128]") && e.contains("[96]"), "{e}");
    // A source that is not there.
    let missing = finetune_of(&out, "nowhere", "missing", FinetuneTargets::Walk);
    let e = training::run(&missing, &TrainOptions::new(Existing::Refuse)).unwrap_err().to_string();
    assert!(e.contains("nowhere") && e.contains("does not exist"), "{e}");
    // Bellman targets need a Q-distance network and whole walks in a batch.
    let mut policy = finetune_of(&out, "source", "policy", FinetuneTargets::Bellman);
    policy.model.kind = OracleKind::Policy;
    let e = policy.validate().unwrap_err().to_string();
    assert!(e.contains("finetune.targets") && e.contains("q-distance"), "{e}");
    let mut uniform = finetune_of(&out, "source", "uniform", FinetuneTargets::Bellman);
    uniform.data.depths = Depths::Uniform;
    uniform.data.scramble_len = LengthSpec::Fixed(20);
    let e = uniform.validate().unwrap_err().to_string();
    assert!(e.contains("finetune.targets") && e.contains("data.depths"), "{e}");
    // A run cannot start from itself.
    let mut own = finetune_of(&out, "source", "own", FinetuneTargets::Walk);
    own.finetune = Some(FinetuneSection { from: own.run_dir(), targets: FinetuneTargets::Walk });
    let e = own.validate().unwrap_err().to_string();
    assert!(e.contains("finetune.from") && e.contains("--resume"), "{e}");
    let _ = std::fs::remove_dir_all(&out);
}
