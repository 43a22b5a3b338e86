//! `study.include_runs`: runs trained outside a study (a shipped reference,
//! a long run on another machine) that belong on its curves because they
//! follow its recipe. Such a run becomes a point only when it has finished
//! training, started from random weights, and differs from the study's base
//! config in nothing but what a grid varies (shape, seed, sample budget) and
//! what does not change the training arithmetic's recipe (names, folders,
//! logging and checkpoint intervals, threads, the backend). The study never
//! trains it; it solves it with the study's fixed evaluation and keeps the
//! result under the study's own folder, `included/<run>.csv`, so the run's
//! folder gains only that solve's output.

use super::{Point, Source};
use crate::learn::config::TrainConfig;
use crate::learn::model::parameter_count;
use crate::registry::AnyPuzzle;
use std::path::Path;

/// Keys that leave a run's training arithmetic alone: a resumed leg may
/// change them, and a point's run may differ from its recipe in them (with
/// the `backend` section).
const NEUTRAL_KEYS: [&str; 5] =
    ["train.eval_every", "train.checkpoint_every", "train.log_every", "train.threads", "train.data_workers"];

/// Keys an included run may set differently from the study's recipe: what a
/// grid varies, and the neutral ones.
const FREE_KEYS: [&str; 13] = [
    "run.name",
    "run.out_dir",
    "run.seed",
    "model.hidden",
    "model.residual_blocks",
    "train.steps",
    "train.samples",
    NEUTRAL_KEYS[0],
    NEUTRAL_KEYS[1],
    NEUTRAL_KEYS[2],
    NEUTRAL_KEYS[3],
    NEUTRAL_KEYS[4],
    // Checked on its own: the held-out walks' seed, resolved.
    "train.eval_seed",
];

/// The included run in folder `dir` as a point of the study whose recipe
/// (base config, with the study's `kind`) is `recipe`.
///
/// # Errors
/// Why the run cannot be a point, in words: unreadable, unfinished,
/// fine-tuned, or of another recipe (naming the first key that differs).
pub(super) fn point(recipe: &TrainConfig, dir: &Path, study_dir: &Path, puzzle: &AnyPuzzle) -> Result<Point, String> {
    let name = dir
        .file_name()
        .and_then(|n| n.to_str())
        .filter(|n| !n.is_empty() && crate::folder::sanitize(n) == *n)
        .ok_or("the folder's name must be a plain folder name")?
        .to_string();
    let mut cfg = TrainConfig::load(&dir.join("config.toml")).map_err(|e| e.to_string())?;
    if let Some(f) = &cfg.finetune {
        return Err(format!("it was fine-tuned from {}; a study's points start from random weights", f.from.display()));
    }
    if let Some((key, here, there)) = difference(recipe, &cfg, &FREE_KEYS) {
        return Err(format!(
            "its `{key}` is {here}, the study's recipe has {there}; only shape, seed, budget, \
             intervals, threads and backend may differ"
        ));
    }
    // The held-out loss is comparable only on the study's held-out walks.
    if cfg.held_out_seed() != recipe.held_out_seed() {
        return Err(format!(
            "its held-out walks are drawn from seed {} (train.eval_seed, else run.seed), the study's from {}: \
             its held-out loss is measured on other states",
            cfg.held_out_seed(),
            recipe.held_out_seed()
        ));
    }
    let meta = super::run_meta(dir)?;
    if !super::trained(&meta) {
        return Err("it has not finished training (meta.json: `complete` is not true); resume it first".into());
    }
    let outputs = cfg.model.kind.outputs(puzzle.num_moves());
    let n = parameter_count(&cfg.model, puzzle.encoded_len(), outputs) as u64;
    if meta["parameters"].as_u64() != Some(n) {
        return Err(format!("meta.json's `parameters` is {}, its config's network has {n}", meta["parameters"]));
    }
    let samples = cfg.train.samples.unwrap_or(cfg.total_steps() * cfg.data.states_per_step as u64);
    cfg.run.out_dir = dir.parent().map(Path::to_path_buf).unwrap_or_default();
    cfg.run.name.clone_from(&name);
    let table = study_dir.join("included").join(format!("{name}.csv"));
    Ok(Point { name, config: cfg, parameters: n, samples, source: Source::Included, table, variant: None })
}

/// The first key (dotted) at which the run of a trained point, as its saved
/// `config.toml` says, departs from the point's config now (outside the
/// neutral keys and the `backend` section), with its value in each: the
/// study (or its base config) was changed after the point had trained.
pub(super) fn retrained(point: &TrainConfig, saved: &TrainConfig) -> Option<(String, String, String)> {
    // The held-out walks' seed resolved: runs from before `train.eval_seed`
    // existed drew them from `run.seed`.
    let mut free = NEUTRAL_KEYS.to_vec();
    free.push("train.eval_seed");
    difference(point, saved, &free).or_else(|| {
        let (was, now) = (saved.held_out_seed(), point.held_out_seed());
        (was != now).then(|| ("train.eval_seed (the held-out walks' seed)".into(), was.to_string(), now.to_string()))
    })
}

/// The first key (dotted) at which `run` departs from `recipe`, outside
/// `free` and the `backend` section, with its value in each.
fn difference(recipe: &TrainConfig, run: &TrainConfig, free: &[&str]) -> Option<(String, String, String)> {
    let free: Vec<&str> = free.iter().copied().chain(["backend"]).collect();
    run.first_difference(recipe, &free)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> TrainConfig {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/cube3-q-long.toml");
        TrainConfig::load(&path).unwrap()
    }

    #[test]
    fn shape_budget_seed_and_backend_are_free_and_the_recipe_is_not() {
        let recipe = base();
        let mut run = recipe.clone();
        run.run.name = "elsewhere".into();
        run.model.hidden = vec![320, 320];
        run.train.samples = Some(1_000);
        run.run.seed = 7;
        run.backend.matmul = crate::learn::config::Matmul::F32;
        assert_eq!(difference(&recipe, &run, &FREE_KEYS), None);
        let mut lr = run.clone();
        lr.optim.lr = 3e-4;
        let (key, here, there) = difference(&recipe, &lr, &FREE_KEYS).expect("the learning rate is the recipe");
        assert_eq!(key, "optim.lr");
        assert_eq!((here.as_str(), there.as_str()), ("0.0003", "0.001"));
        let mut walks = run;
        walks.data.scramble_len = toml::from_str::<TrainConfig>(
            &toml::to_string(&recipe).unwrap().replace("scramble_len = 26", "scramble_len = 20"),
        )
        .unwrap()
        .data
        .scramble_len;
        assert_eq!(difference(&recipe, &walks, &FREE_KEYS).map(|d| d.0).as_deref(), Some("data.scramble_len"));
    }
}
