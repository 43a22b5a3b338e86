//! Training batches: encoded reverse-random-walk samples, made in
//! background threads.
//!
//! Batch `i` of a run is a pure function of `(seed, i)`: it is filled with
//! the prefixes of consecutive walks drawn from scramble stream `i`, the
//! last walk cut short when the batch is full. So the data depend neither on
//! the number of worker threads nor on where a run was resumed: a resumed
//! run asks for batch `step` and gets exactly what the uninterrupted run
//! got. Worker `w` of `W` makes batches `start + w, start + w + W, …` and
//! hands them over through a bounded channel; the consumer takes them round
//! robin, so they arrive in order while the next ones are being made.
//!
//! Which samples a walk gives is the depth distribution ([`Depths`]):
//! `all-prefixes` (the default) takes every prefix as above, so a batch
//! holds whole walks; `uniform` takes one sample per walk, its last state,
//! from a walk whose length is drawn uniformly (from `1..=n` for
//! `scramble_len = n`, from `min..=max` for a range), so every depth is
//! equally common whatever the walk kind. Walks of the `non-backtracking`
//! kind that are trapped before their length are redrawn at the same length
//! ([`Scrambler::complete_walk`]), so a batch's depths follow the same law
//! for both kinds; `random` walks with `all-prefixes` keep exactly the
//! batches made before walk kinds existed.
//!
//! What a sample's regression targets are is the label rule ([`Labels`]):
//! `walk` (the default) uses the walk's step, an upper bound on the true
//! distance; `trajectory-min` makes the bound tighter without a network.
//! Batches are grouped into pools of `pool` consecutive batches; within a
//! pool, identical states anywhere are collapsed to their smallest label,
//! and along each walk a state's label is at most one more than its
//! neighbour's on the walk (either side, the goal counting 0), repeated
//! until nothing changes ([`pool_labels`]). Each label is still a path
//! length to the goal, so it never falls below the true distance nor above
//! the walk step. The pool is a pure function of `(seed, pool index)`, so
//! batch `i` stays a pure function of `(seed, i)`.

use crate::puzzle::Puzzle;
use crate::scramble::{ScrambleError, Scrambler, Step, WalkKind, WalkLength};
use rand_distr::{Distribution, Uniform};
use serde::{Deserialize, Serialize};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::JoinHandle;

/// Stream ids at or above this are reserved for held-out sets.
pub const HELD_OUT_STREAM_BASE: u64 = 1 << 62;

/// Which samples a walk contributes (config key `data.depths`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Depths {
    /// Every prefix of every walk: depth `d` is as common as walks of at
    /// least `d` moves.
    #[default]
    AllPrefixes,
    /// One sample per walk, at a depth drawn uniformly from the walk
    /// lengths (`1..=n`, or `min..=max` for a range).
    Uniform,
}

impl Depths {
    /// Every distribution, in the order the docs list them.
    pub const ALL: [Depths; 2] = [Depths::AllPrefixes, Depths::Uniform];

    /// The name used in configs, `meta.json` and tables.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::AllPrefixes => "all-prefixes",
            Self::Uniform => "uniform",
        }
    }
}

impl std::fmt::Display for Depths {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What a sample's distance labels are (config key `data.labels`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Labels {
    /// The walk's step.
    #[default]
    Walk,
    /// The walk's step, lowered by identical states of a pool of batches
    /// and propagated along each walk ([`pool_labels`]).
    TrajectoryMin,
}

impl Labels {
    /// The name used in configs, `meta.json` and tables.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Walk => "walk",
            Self::TrajectoryMin => "trajectory-min",
        }
    }
}

impl std::fmt::Display for Labels {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Per-sample caps on a batch's regression targets (`f32::INFINITY` where
/// there is none): from trajectory-minimum labels, or a Bellman fine-tune's
/// starting network.
#[derive(Clone, Debug, PartialEq)]
pub struct Bounds {
    /// On the target of the sample's own output (the walk's step back).
    pub back: Vec<f32>,
    /// On the target of the walk's next move (`Batch::forward`).
    pub forward: Vec<f32>,
}

impl Bounds {
    /// The smaller of two bounds, sample by sample.
    #[must_use]
    pub fn min(mut self, other: &Bounds) -> Bounds {
        for (a, b) in self.back.iter_mut().zip(&other.back) {
            *a = a.min(*b);
        }
        for (a, b) in self.forward.iter_mut().zip(&other.forward) {
            *a = a.min(*b);
        }
        self
    }
}

/// What a batch is made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BatchSpec {
    /// Walk length.
    pub length: WalkLength,
    /// Whether redundant sequences are pruned.
    pub prune: bool,
    /// How each move of a walk is drawn.
    pub walk: WalkKind,
    /// Which samples each walk gives.
    pub depths: Depths,
    /// Samples per batch.
    pub size: usize,
    /// Run seed.
    pub seed: u64,
    /// Which distances the targets are.
    pub labels: Labels,
    /// Batches per pool of trajectory-minimum labels (unused by `walk`).
    pub pool: usize,
}

/// One batch of samples, row-major.
#[derive(Clone, Debug, PartialEq)]
pub struct Batch {
    /// Batch index (the training step it is for).
    pub index: u64,
    /// `size × encoded_len` encoded states.
    pub inputs: Vec<f32>,
    /// The move that produced each state (the target class).
    pub labels: Vec<i64>,
    /// Depth of each state in its walk (1-based).
    pub depths: Vec<u16>,
    /// For each state, the inverse of the walk's *next* move when the next
    /// sample continues the same walk (so undoing it from the next state
    /// gives this one), else −1. A Q-distance network learns from it that
    /// the child reached by the next move is at walk depth `depth + 1`.
    pub forward: Vec<i64>,
    /// For each state, bit `m` set when output `m` is a real option: the
    /// inverse of move `m` (the move that undoes it) is applicable (every
    /// move of the cubes; two to four slides of a sliding puzzle). Ranking
    /// rules look only at these outputs.
    pub legal: Vec<u32>,
    /// With trajectory-minimum labels, the caps they put on the targets:
    /// `back` the label of the state that undoing the sample's move reaches
    /// (the walk's previous state, 0 for the goal), `forward` that of the
    /// walk's next state. `None` with walk labels.
    pub bounds: Option<Bounds>,
}

impl Batch {
    /// Number of samples.
    #[must_use]
    pub fn len(&self) -> usize {
        self.labels.len()
    }

    /// Whether the batch is empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }
}

/// Calls `f(state, last_move, depth)` for each of the `spec.size` samples of
/// batch `index`, in order.
pub fn for_each_sample<P: Puzzle>(
    puzzle: &P,
    spec: &BatchSpec,
    index: u64,
    mut f: impl FnMut(&P::State, u8, usize),
) -> Result<(), ScrambleError> {
    let mut s = Scrambler::new(puzzle.clone(), spec.length, spec.prune, spec.seed, index)?.with_walk(spec.walk);
    let mut n = 0;
    let mut steps: Vec<Step<P::State>> = Vec::new();
    match (spec.depths, spec.walk) {
        // The batches made before walk kinds existed, move for move.
        (Depths::AllPrefixes, WalkKind::Random) => {
            while n < spec.size {
                for step in s.walk() {
                    f(&step.state, step.last_move, step.depth);
                    n += 1;
                    if n == spec.size {
                        break;
                    }
                }
            }
        }
        (Depths::AllPrefixes, _) => {
            while n < spec.size {
                let len = s.draw_length();
                s.complete_walk(len, &mut steps)?;
                for step in steps.iter().take(spec.size - n) {
                    f(&step.state, step.last_move, step.depth);
                    n += 1;
                }
            }
        }
        (Depths::Uniform, _) => {
            let (lo, hi) = match spec.length {
                WalkLength::Fixed(len) => (1, len),
                WalkLength::Range { min, max } => (min, max),
            };
            let depth = Uniform::new_inclusive(lo, hi).map_err(|_| ScrambleError::EmptyRange { min: lo, max: hi })?;
            while n < spec.size {
                let len = depth.sample(s.rng_mut());
                s.complete_walk(len, &mut steps)?;
                if let Some(step) = steps.last() {
                    f(&step.state, step.last_move, step.depth);
                }
                n += 1;
            }
        }
    }
    Ok(())
}

/// Makes batch `index` (encoded) in the calling thread.
pub fn make_batch<P: Puzzle>(puzzle: &P, spec: &BatchSpec, index: u64) -> Result<Batch, ScrambleError> {
    make_batch_cached(puzzle, spec, index, &mut None)
}

/// The trajectory-minimum labels of one pool, kept by a data worker for
/// the pool's next batches.
#[derive(Clone, Debug)]
pub struct PoolCache {
    pool: u64,
    labels: Vec<Vec<u16>>,
}

/// [`make_batch`], reusing the labels of the pool `cache` holds (and
/// keeping the new pool's there).
pub fn make_batch_cached<P: Puzzle>(
    puzzle: &P,
    spec: &BatchSpec,
    index: u64,
    cache: &mut Option<PoolCache>,
) -> Result<Batch, ScrambleError> {
    let width = puzzle.encoded_len();
    let mut inputs = vec![0.0f32; spec.size * width];
    let mut labels = Vec::with_capacity(spec.size);
    let mut depths = Vec::with_capacity(spec.size);
    let mut forward = Vec::with_capacity(spec.size);
    let mut legal = Vec::with_capacity(spec.size);
    let mut last_depth = 0;
    let moves = puzzle.num_moves().min(32) as u8;
    for_each_sample(puzzle, spec, index, |state, m, depth| {
        let row = labels.len();
        puzzle.encode(state, &mut inputs[row * width..(row + 1) * width]);
        // With every prefix kept, a walk's depths run 1, 2, 3, …: one more
        // than the previous sample's means the same walk went on, by move
        // `m`. (Uniform depths give one sample per walk: never.)
        if spec.depths == Depths::AllPrefixes && row > 0 && depth == last_depth + 1 {
            forward[row - 1] = i64::from(puzzle.inverse(m));
        }
        last_depth = depth;
        labels.push(i64::from(m));
        depths.push(depth.min(u16::MAX as usize) as u16);
        forward.push(-1);
        // Output m is about undoing m, i.e. applying its inverse.
        legal.push((0..moves).filter(|&m| puzzle.is_applicable(state, puzzle.inverse(m))).fold(0, |b, m| b | 1 << m));
    })?;
    let bounds = match spec.labels {
        Labels::Walk => None,
        Labels::TrajectoryMin => {
            let pool_size = spec.pool.max(1) as u64;
            let pool = index / pool_size;
            if cache.as_ref().is_none_or(|c| c.pool != pool) {
                *cache = Some(PoolCache { pool, labels: pool_labels(puzzle, spec, pool)? });
            }
            let own = &cache.as_ref().expect("filled above").labels[(index % pool_size) as usize];
            let n = own.len();
            // A walk's first sample undoes to the goal; a later one to the
            // sample before it, whose walk went on (`forward`) to it.
            let back = (0..n)
                .map(|i| match depths[i] {
                    0 | 1 => 0.0,
                    _ if i > 0 && forward[i - 1] >= 0 => f32::from(own[i - 1]),
                    _ => f32::INFINITY,
                })
                .collect();
            let forward = (0..n)
                .map(|i| if forward[i] >= 0 && i + 1 < n { f32::from(own[i + 1]) } else { f32::INFINITY })
                .collect();
            Some(Bounds { back, forward })
        }
    };
    Ok(Batch { index, inputs, labels, depths, forward, legal, bounds })
}

/// The trajectory-minimum label of every sample of pool `pool` (batches
/// `pool·spec.pool ..` of `spec.pool` batches), batch by batch in sample
/// order: each sample's walk step, lowered until nothing changes by (1)
/// the smallest label of any identical state in the pool (the goal's is
/// 0) and (2) one more than the label of the sample's neighbour on its
/// walk, before or after it.
/// Every label is the length of some path to the goal, so it lies between
/// the true distance and the walk step. Needs every prefix of each walk
/// (`depths = all-prefixes`): uniform depths give no walk to propagate on,
/// and the labels are then the walk steps, collapsed.
///
/// # Errors
/// A walk of the pool could not be made ([`for_each_sample`]).
pub fn pool_labels<P: Puzzle>(puzzle: &P, spec: &BatchSpec, pool: u64) -> Result<Vec<Vec<u16>>, ScrambleError> {
    use std::collections::HashMap;
    let per = spec.pool.max(1);
    let mut keys = Vec::with_capacity(per * spec.size);
    let mut label: Vec<u16> = Vec::with_capacity(per * spec.size);
    // Whether sample i continues the walk of sample i − 1.
    let mut continues: Vec<bool> = Vec::with_capacity(per * spec.size);
    let mut ends = Vec::with_capacity(per);
    for b in 0..per as u64 {
        let mut last = 0;
        let first = label.len();
        for_each_sample(puzzle, spec, pool * per as u64 + b, |state, _, depth| {
            keys.push(puzzle.key(state));
            continues.push(label.len() > first && spec.depths == Depths::AllPrefixes && depth == last + 1);
            label.push(depth.min(u16::MAX as usize) as u16);
            last = depth;
        })?;
        ends.push(label.len());
    }
    let goal = puzzle.key(&puzzle.goal());
    let mut least: HashMap<P::Key, u16> = HashMap::with_capacity(label.len());
    loop {
        let before = label.clone();
        least.clear();
        least.insert(goal, 0);
        for (k, &l) in keys.iter().zip(&label) {
            let e = least.entry(*k).or_insert(l);
            *e = (*e).min(l);
        }
        for (k, l) in keys.iter().zip(label.iter_mut()) {
            *l = least[k];
        }
        for i in 1..label.len() {
            if continues[i] {
                label[i] = label[i].min(label[i - 1].saturating_add(1));
            }
        }
        for i in (1..label.len()).rev() {
            if continues[i] {
                label[i - 1] = label[i - 1].min(label[i].saturating_add(1));
            }
        }
        if label == before {
            break;
        }
    }
    let mut out = Vec::with_capacity(per);
    let mut start = 0;
    for end in ends {
        out.push(label[start..end].to_vec());
        start = end;
    }
    Ok(out)
}

/// A held-out set: `walks` walks of the longest length and the run's walk
/// kind, every prefix kept (whatever the run's depth distribution), from
/// streams no training batch uses. Each depth `1..=max_len` has exactly
/// `walks` samples.
pub fn held_out<P: Puzzle>(puzzle: &P, spec: &BatchSpec, walks: usize, max_len: usize) -> Result<Batch, ScrambleError> {
    // Held-out targets are the walk steps whatever the run's labels, so
    // that every run's held-out loss is measured against the same targets.
    let fixed = BatchSpec {
        length: WalkLength::Fixed(max_len),
        depths: Depths::AllPrefixes,
        size: walks * max_len,
        labels: Labels::Walk,
        ..*spec
    };
    let mut b = make_batch(puzzle, &fixed, HELD_OUT_STREAM_BASE)?;
    b.index = HELD_OUT_STREAM_BASE;
    Ok(b)
}

/// Batches `start, start + 1, …` made by background workers.
pub struct BatchStream {
    receivers: Vec<Receiver<Result<Batch, ScrambleError>>>,
    workers: Vec<JoinHandle<()>>,
    next: u64,
    start: u64,
}

impl BatchStream {
    /// Starts `workers` threads producing batches from index `start` on.
    pub fn start<P: Puzzle + 'static>(
        puzzle: P,
        spec: BatchSpec,
        start: u64,
        workers: usize,
    ) -> Result<Self, ScrambleError> {
        // Fail now, in the caller, on a bad spec.
        Scrambler::new(puzzle.clone(), spec.length, spec.prune, spec.seed, 0)?;
        // A spec whose walks cannot be completed fails here, not in a worker.
        for_each_sample(&puzzle, &BatchSpec { size: spec.size.min(64), ..spec }, start, |_, _, _| {})?;
        let workers = workers.max(1);
        let mut receivers = Vec::with_capacity(workers);
        let mut handles = Vec::with_capacity(workers);
        for w in 0..workers {
            let (tx, rx): (SyncSender<Result<Batch, ScrambleError>>, Receiver<_>) = sync_channel(2);
            let puzzle = puzzle.clone();
            let handle = std::thread::Builder::new()
                .name(format!("batches-{w}"))
                .spawn(move || {
                    let mut index = start + w as u64;
                    let mut cache = None;
                    loop {
                        let batch = make_batch_cached(&puzzle, &spec, index, &mut cache);
                        let failed = batch.is_err();
                        // A failure is passed on, then the worker stops.
                        if tx.send(batch).is_err() || failed {
                            return; // the consumer is gone
                        }
                        index += workers as u64;
                    }
                })
                .expect("spawning a data thread");
            receivers.push(rx);
            handles.push(handle);
        }
        Ok(Self { receivers, workers: handles, next: start, start })
    }

    /// The next batch, in index order.
    ///
    /// # Errors
    /// The walks of this batch could not be made (a walk that trapped
    /// itself), as [`make_batch`] says.
    pub fn next_batch(&mut self) -> Result<Batch, ScrambleError> {
        let w = ((self.next - self.start) % self.receivers.len() as u64) as usize;
        // A worker only stops after sending its error, or when the stream is dropped.
        let batch = self.receivers[w].recv().unwrap_or_else(|_| unreachable!("a data worker stopped silently"))?;
        debug_assert_eq!(batch.index, self.next);
        self.next += 1;
        Ok(batch)
    }
}

impl Drop for BatchStream {
    fn drop(&mut self) {
        // Dropping the receivers makes every blocked `send` fail, so the
        // workers return.
        self.receivers.clear();
        for h in self.workers.drain(..) {
            let _ = h.join();
        }
    }
}
