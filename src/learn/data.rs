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
    Ok(Batch { index, inputs, labels, depths, forward, legal })
}

/// A held-out set: `walks` walks of the longest length and the run's walk
/// kind, every prefix kept (whatever the run's depth distribution), from
/// streams no training batch uses. Each depth `1..=max_len` has exactly
/// `walks` samples.
pub fn held_out<P: Puzzle>(puzzle: &P, spec: &BatchSpec, walks: usize, max_len: usize) -> Result<Batch, ScrambleError> {
    let fixed =
        BatchSpec { length: WalkLength::Fixed(max_len), depths: Depths::AllPrefixes, size: walks * max_len, ..*spec };
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
                    loop {
                        let batch = make_batch(&puzzle, &spec, index);
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
