//! Beam search with an oracle: probability-product for a policy, best
//! estimated distance for a Q-distance or value oracle.
//!
//! The rule that ranks children follows the oracle's [`OracleKind`]:
//! * **policy**: the score of a path is the sum of the log-probabilities
//!   along it (below);
//! * **Q-distance**: a child `s·m⁻¹` of a depth-`g−1` state scores
//!   `−(g + Q(s, m))`, A*-like; each beam state is one oracle row, as for a
//!   policy;
//! * **value**: every distinct child (dedup on) is sent to the oracle and
//!   scores `−(g + V(child))`, so a depth costs up to `moves` rows per beam
//!   state (`forwards` counts them).
//!
//! For the distance kinds, `log_prob`, the beam entropy and KL below are
//! computed from these scores as if they were log-probabilities (a
//! Boltzmann distribution over `−f`), and the policy entropy from a Q
//! oracle's `softmax(−Q)` over the applicable moves; a value oracle has no per-state policy (NaN).
//!
//! A path's score is the product of the oracle's move probabilities along
//! it, kept as a sum of natural-log probabilities. The oracle predicts the
//! move that *produced* a state, so from state `s` the search applies the
//! inverse `a = m⁻¹` of each predicted move `m`, scoring
//! `score(s·a) = score(s) + ln p(m | s)`. At every depth the whole beam goes
//! to the oracle as one batch (in chunks of at most [`Oracle::batch_rows`]
//! rows: [`ORACLE_CHUNK`] on the CPU),
//! every beam state is expanded by every applicable move that does not make
//! a redundant sequence (the scramble generator's rules), and the best
//! `width` candidates form the next beam; with `dedup` on, a candidate whose
//! state is already in the next beam is skipped, so the beam holds distinct
//! states, each with its best score. The search stops at the first depth at
//! which any candidate reaches the goal and returns the highest-scoring such
//! path. Ties are broken by (parent index, move id), so results are
//! deterministic.
//!
//! Diagnostics per depth `d` (after selection; computed in [`super::beam_stats`]):
//! * `entropy`: the entropy of the beam seen as a distribution, path
//!   probabilities normalised over the beam, `H(softmax(scores))` in nats;
//! * `kl_previous`: `KL(P_d ‖ B_{d−1})`, where `B_{d−1}` is the depth-`d−1`
//!   beam distribution and `P_d` is the depth-`d` beam distribution summed
//!   onto the parents its states came from (both live on the depth-`d−1`
//!   beam); NaN at depth 1;
//! * `mean_policy_entropy`: the mean of `H(p(· | s))` over the states
//!   expanded at depth `d`.
//!
//! Per instance, `start_kl_uniform` is `KL(p(· | start) ‖ uniform)`.

use super::SearchError;
use super::beam_stats::{beam_entropy, boltzmann, kl_onto_parents, policy_entropy, softmax_into};
use super::kind::{MoveDistribution, Queries};
use super::oracle::Oracle;
use crate::puzzle::{MoveId, Puzzle, Recent};
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};

pub use super::oracle::ORACLE_CHUNK;
/// Largest beam width accepted (2^24 candidates × 12 moves would not fit in
/// memory on the machines this targets).
pub const MAX_WIDTH: usize = 1 << 24;

/// Bytes a beam search of `width` over a puzzle with `moves` moves, states
/// of `state` bytes and keys of `key` bytes holds at its peak, to depth
/// `max_depth`: the beam and the next one with their scores and histories,
/// every candidate (and, for an oracle that scores children, every child),
/// the duplicate sets at their load factor, the oracle's outputs, and the
/// links of every depth kept for the path. The network's own buffers are
/// bounded by [`ORACLE_CHUNK`] rows and left out.
///
/// ```
/// use cube_oracle::search::beam::memory_bytes;
/// // The cube (64-byte states, 16-byte keys, 12 moves) at 2^18, 60 deep:
/// let bytes = memory_bytes(1 << 18, 60, 12, 64, 16);
/// assert!(bytes > 400 << 20 && bytes < 2 << 30, "{bytes}");
/// // Linear in the width.
/// assert_eq!(memory_bytes(2 << 18, 60, 12, 64, 16), 2 * bytes);
/// ```
#[must_use]
pub fn memory_bytes(width: usize, max_depth: usize, moves: usize, state: usize, key: usize) -> u64 {
    let recent = std::mem::size_of::<Recent>();
    let candidate = std::mem::size_of::<Candidate>();
    let per_state = 2 * (state + 8 + recent)          // this beam and the next
        + moves * (candidate + 4)                       // candidates and outputs
        + moves * (state + candidate)                   // children scored by the oracle
        + 2 * moves * 2 * (key + 8)                     // two duplicate sets, half full
        + max_depth * std::mem::size_of::<(u32, MoveId)>(); // links of every depth
    (width as u64).saturating_mul(per_state as u64)
}

/// Beam-search settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BeamConfig {
    /// Beam width (states kept per depth), `1..=MAX_WIDTH`.
    pub width: usize,
    /// Depth limit; the instance is reported unsolved beyond it.
    pub max_depth: usize,
    /// Keep only distinct states in the beam (best score wins).
    pub dedup: bool,
    /// Skip redundant move sequences (`Puzzle::is_redundant`).
    pub prune: bool,
    /// Record the keys of every beam (for tests and analysis).
    pub record_beams: bool,
}

/// Diagnostics of one depth.
#[derive(Clone, Debug, PartialEq)]
pub struct DepthStats {
    /// Depth (1-based).
    pub depth: usize,
    /// States kept in the beam.
    pub beam_size: usize,
    /// Candidates generated (children of the expanded states).
    pub generated: usize,
    /// Entropy of the normalised beam distribution (nats).
    pub entropy: f64,
    /// Best path log-probability in the beam.
    pub max_log_prob: f64,
    /// Mean path log-probability in the beam.
    pub mean_log_prob: f64,
    /// Mean policy entropy over the expanded states (nats).
    pub mean_policy_entropy: f64,
    /// `KL(P_d ‖ B_{d−1})` (nats); NaN at depth 1.
    pub kl_previous: f64,
}

/// The result of one search.
#[derive(Clone, Debug, PartialEq)]
pub struct BeamOutcome<K> {
    /// The moves from the start to the goal, if found within `max_depth`.
    pub solution: Option<Vec<MoveId>>,
    /// Log-probability of the solution path (0 for an already solved start).
    pub log_prob: f64,
    /// Per-depth diagnostics.
    pub depths: Vec<DepthStats>,
    /// Sum of beam sizes over depths (EfficientCube's node count).
    pub beam_nodes: u64,
    /// Candidates generated, over all depths.
    pub generated: u64,
    /// Beam states expanded, over all depths.
    pub expanded: u64,
    /// Rows sent to the oracle, over all depths: the expanded states for a
    /// policy or Q oracle, every distinct child for a value oracle.
    pub forwards: u64,
    /// `KL(p(· | start) ‖ uniform)` (NaN for a solved start).
    pub start_kl_uniform: f64,
    /// The keys of every beam, when `record_beams` is on.
    pub beams: Vec<Vec<K>>,
}

#[derive(Clone, Copy)]
struct Candidate {
    score: f64,
    parent: u32,
    action: MoveId,
}

/// Runs beam search from `start`: at each depth every kept state is
/// expanded, its children ranked by `oracle`'s answers (path
/// log-probability for a policy; `g + Q` or `g + V`, least first, for the
/// distance kinds), and the best
/// `cfg.width` kept; it stops at the first depth that holds the goal, so
/// with a width that keeps every state the solution is a shortest one.
///
/// # Errors
/// [`SearchError::WidthOutOfRange`] for a width outside `1..=MAX_WIDTH`,
/// [`SearchError::MoveCount`] for an oracle of another move count,
/// [`SearchError::Oracle`] when it fails, [`SearchError::NonFinite`] when
/// it answers a value that is not finite.
///
/// ```
/// use cube_oracle::puzzle::Puzzle;
/// use cube_oracle::search::{BeamConfig, Oracle, OracleError, OracleKind, beam_search};
/// use cube_oracle::sliding::{Goal, Sliding};
///
/// /// A policy that knows nothing: every move equally likely.
/// struct Uniform;
/// impl Oracle for Uniform {
///     fn kind(&self) -> OracleKind {
///         OracleKind::Policy
///     }
///     fn num_moves(&self) -> usize {
///         4
///     }
///     fn predict(&mut self, _: &[f32], _: usize, out: &mut [f32]) -> Result<(), OracleError> {
///         out.fill(0.25f32.ln());
///         Ok(())
///     }
/// }
///
/// let p = Sliding::new(3, Goal::BlankLast).unwrap();
/// let start = p.board(&[1, 2, 3, 4, 5, 6, 0, 7, 8]).unwrap();
/// let cfg = BeamConfig { width: 64, max_depth: 10, dedup: true, prune: true, record_beams: false };
/// let out = beam_search(&p, &mut Uniform, &start, &cfg).unwrap();
/// let path = out.solution.expect("found within 10 moves");
/// assert_eq!(path.len(), 2);
/// let mut s = start;
/// for &m in &path {
///     p.apply(&mut s, m);
/// }
/// assert!(p.is_goal(&s));
/// ```
pub fn beam_search<P: Puzzle, O: Oracle>(
    puzzle: &P,
    oracle: &mut O,
    start: &P::State,
    cfg: &BeamConfig,
) -> Result<BeamOutcome<P::Key>, SearchError> {
    static NEVER: AtomicBool = AtomicBool::new(false);
    beam_search_until(puzzle, oracle, start, cfg, &NEVER)
}

/// [`beam_search`] that gives up with [`SearchError::Stopped`] at the first
/// depth after `stop` is set (another worker's search failed, and the rest
/// of this one would be thrown away).
///
/// # Errors
/// As [`beam_search`], and [`SearchError::Stopped`].
pub fn beam_search_until<P: Puzzle, O: Oracle>(
    puzzle: &P,
    oracle: &mut O,
    start: &P::State,
    cfg: &BeamConfig,
    stop: &AtomicBool,
) -> Result<BeamOutcome<P::Key>, SearchError> {
    if cfg.width == 0 || cfg.width > MAX_WIDTH {
        return Err(SearchError::WidthOutOfRange { width: cfg.width, max: MAX_WIDTH });
    }
    let moves = puzzle.num_moves();
    let kind = oracle.kind();
    if oracle.num_moves() != moves {
        return Err(SearchError::MoveCount { oracle: oracle.num_moves(), puzzle: puzzle.name(), moves });
    }
    let mut out = BeamOutcome {
        solution: None,
        log_prob: 0.0,
        depths: Vec::new(),
        beam_nodes: 0,
        generated: 0,
        expanded: 0,
        forwards: 0,
        start_kl_uniform: f64::NAN,
        beams: Vec::new(),
    };
    if puzzle.is_goal(start) {
        out.solution = Some(Vec::new());
        return Ok(out);
    }
    // pre[a] = the state from which action `a` reaches the goal.
    let goal = puzzle.goal();
    let pre: Vec<Option<P::State>> = (0..moves as MoveId)
        .map(|a| {
            let inv = puzzle.inverse(a);
            puzzle.is_applicable(&goal, inv).then(|| {
                let mut s = goal.clone();
                puzzle.apply(&mut s, inv);
                s
            })
        })
        .collect();
    let inverse: Vec<MoveId> = (0..moves as MoveId).map(|m| puzzle.inverse(m)).collect();
    let width_enc = puzzle.encoded_len();

    let mut beam: Vec<P::State> = vec![start.clone()];
    let mut scores: Vec<f64> = vec![0.0];
    let mut recents: Vec<Recent> = vec![Recent::default()];
    // Every depth's links (parent index, move) in one flat list: depth d's
    // are `links[starts[d - 1]..starts[d]]`, kept for the path.
    let mut links: Vec<(u32, MoveId)> = Vec::new();
    let mut starts: Vec<usize> = vec![0];
    // A value oracle is asked about children, up to `moves` per beam state.
    let chunk = oracle.batch_rows().max(1);
    let rows = match kind.queries() {
        Queries::Children => chunk,
        Queries::States => chunk.min(cfg.width),
    };
    let mut enc = vec![0.0f32; rows * width_enc];
    let mut lp = Vec::<f32>::new();
    let mut cands: Vec<Candidate> = Vec::new();
    let mut seen: HashSet<P::Key> = HashSet::new();
    let mut child_seen: HashSet<P::Key> = HashSet::new();
    let mut children: Vec<P::State> = Vec::new();
    let mut child_cands: Vec<Candidate> = Vec::new();
    // The next beam is built in these and swapped with the current one, so
    // the loop reuses its buffers from depth to depth.
    let mut next: Vec<P::State> = Vec::new();
    let mut next_scores: Vec<f64> = Vec::new();
    let mut next_recents: Vec<Recent> = Vec::new();
    // The diagnostics' buffers: the new beam's probabilities and the
    // previous beam's share of them.
    let mut probs: Vec<f64> = Vec::new();
    let mut onto: Vec<f64> = Vec::new();

    for depth in 1..=cfg.max_depth {
        if stop.load(Ordering::Relaxed) {
            return Err(SearchError::Stopped);
        }
        let n = beam.len();
        out.expanded += n as u64;
        cands.clear();
        let mut best_solved: Option<Candidate> = None;
        // Every applicable child counts as generated, in every kind (a value
        // oracle's duplicates are not sent to it, but they were generated).
        let mut generated = 0usize;
        let mut consider = |c: Candidate, s: &P::State, cands: &mut Vec<Candidate>| {
            if pre[c.action as usize].as_ref() == Some(s) && best_solved.is_none_or(|b| better(&c, &b)) {
                best_solved = Some(c);
            }
            cands.push(c);
        };
        let policy = if kind.queries() == Queries::Children {
            // Every distinct child goes to the oracle, which scores it.
            children.clear();
            child_cands.clear();
            child_seen.clear();
            for (i, (s, recent)) in beam.iter().zip(&recents).enumerate() {
                for &a in &inverse {
                    if !puzzle.is_applicable(s, a) || (cfg.prune && puzzle.is_redundant(*recent, a)) {
                        continue;
                    }
                    generated += 1;
                    let mut child = s.clone();
                    puzzle.apply(&mut child, a);
                    if cfg.dedup && !child_seen.insert(puzzle.key(&child)) {
                        continue;
                    }
                    children.push(child);
                    child_cands.push(Candidate { score: 0.0, parent: i as u32, action: a });
                }
            }
            let c = children.len();
            lp.resize(c, 0.0);
            for start_row in (0..c).step_by(chunk) {
                let end = (start_row + chunk).min(c);
                let rows = end - start_row;
                puzzle.encode_batch(&children[start_row..end], &mut enc[..rows * width_enc]);
                oracle.predict(&enc[..rows * width_enc], rows, &mut lp[start_row..end])?;
            }
            out.forwards += c as u64;
            check_finite(&lp, depth)?;
            for (cand, &v) in child_cands.iter().zip(&lp) {
                let c = Candidate { score: kind.child_score(0.0, depth, f64::from(v)), ..*cand };
                consider(c, &beam[cand.parent as usize], &mut cands);
            }
            None
        } else {
            lp.resize(n * moves, 0.0);
            for start_row in (0..n).step_by(chunk) {
                let end = (start_row + chunk).min(n);
                let rows = end - start_row;
                puzzle.encode_batch(&beam[start_row..end], &mut enc[..rows * width_enc]);
                oracle.predict(&enc[..rows * width_enc], rows, &mut lp[start_row * moves..end * moves])?;
            }
            out.forwards += n as u64;
            check_finite(&lp, depth)?;
            for (i, (s, recent)) in beam.iter().zip(&recents).enumerate() {
                for m in 0..moves {
                    let a = inverse[m];
                    if !puzzle.is_applicable(s, a) || (cfg.prune && puzzle.is_redundant(*recent, a)) {
                        continue;
                    }
                    let x = f64::from(lp[i * moves + m]);
                    let score = kind.child_score(scores[i], depth, x);
                    consider(Candidate { score, parent: i as u32, action: a }, s, &mut cands);
                }
            }
            generated = cands.len();
            // The per-state move distribution the diagnostics describe: the
            // policy itself, or a Q oracle's Boltzmann policy softmax(−Q).
            match kind.move_distribution() {
                Some(MoveDistribution::Boltzmann) => {
                    for (s, row) in beam.iter().zip(lp.chunks_exact_mut(moves)) {
                        boltzmann(row, |m| puzzle.is_applicable(s, inverse[m]));
                    }
                }
                Some(MoveDistribution::Itself) | None => {}
            }
            // (first state's entropy, mean entropy over the beam)
            let mut h = lp[..n * moves].chunks_exact(moves).map(|r| policy_entropy(r.iter().copied()));
            let first = h.next().unwrap_or(f64::NAN);
            let sum = first + h.sum::<f64>();
            Some((first, if n == 0 { f64::NAN } else { sum / n as f64 }))
        };
        if depth == 1 {
            out.start_kl_uniform = policy.map_or(f64::NAN, |(first, _)| (moves as f64).ln() - first);
        }
        let mean_policy_entropy = policy.map_or(f64::NAN, |(_, mean)| mean);
        out.generated += generated as u64;

        // Select the next beam.
        next.clear();
        next_scores.clear();
        next_recents.clear();
        // The path's history keeps every depth's links.
        let level = links.len();
        seen.clear();
        best_first(&mut cands, cfg.width, cfg.dedup, |c| {
            let mut child = beam[c.parent as usize].clone();
            puzzle.apply(&mut child, c.action);
            if cfg.dedup && !seen.insert(puzzle.key(&child)) {
                return false;
            }
            next.push(child);
            next_scores.push(c.score);
            next_recents.push(recents[c.parent as usize].push(c.action));
            links.push((c.parent, c.action));
            true
        });
        if cfg.record_beams {
            out.beams.push(next.iter().map(|s| puzzle.key(s)).collect());
        }

        // Diagnostics of the new beam.
        softmax_into(&next_scores, &mut probs);
        let kl_previous = if depth == 1 {
            f64::NAN
        } else {
            kl_onto_parents(&probs, links[level..].iter().map(|l| l.0), &scores, &mut onto)
        };
        out.depths.push(DepthStats {
            depth,
            beam_size: next.len(),
            generated,
            entropy: beam_entropy(&probs),
            max_log_prob: next_scores.first().copied().unwrap_or(f64::NEG_INFINITY),
            mean_log_prob: next_scores.iter().sum::<f64>() / next_scores.len().max(1) as f64,
            mean_policy_entropy,
            kl_previous,
        });
        out.beam_nodes += next.len() as u64;

        if let Some(b) = best_solved {
            let mut path = vec![b.action];
            let mut idx = b.parent;
            for w in starts.windows(2).rev() {
                let (parent, action) = links[w[0] + idx as usize];
                path.push(action);
                idx = parent;
            }
            path.reverse();
            out.solution = Some(path);
            out.log_prob = b.score;
            return Ok(out);
        }
        if next.is_empty() {
            break;
        }
        starts.push(links.len());
        std::mem::swap(&mut beam, &mut next);
        std::mem::swap(&mut scores, &mut next_scores);
        std::mem::swap(&mut recents, &mut next_recents);
    }
    Ok(out)
}

/// Refuses an oracle output that is NaN or infinite: ranked by
/// `total_cmp`, a NaN would sort by its sign bit, silently first or last.
fn check_finite(outputs: &[f32], depth: usize) -> Result<(), SearchError> {
    match outputs.iter().position(|v| !v.is_finite()) {
        Some(index) => Err(SearchError::NonFinite { value: outputs[index], depth, index }),
        None => Ok(()),
    }
}

/// Offers the candidates to `take` best first, in [`order`], until it
/// has accepted `width` of them (or none is left). `order` is total, so
/// the sequence is unique; only a prefix is sorted: the best `width`
/// (the rest dropped), or with `dedup`, where `take` may refuse some, the
/// best `2 · width`, and the rest only if `take` refuses so many that the
/// prefix runs out.
fn best_first(cands: &mut Vec<Candidate>, width: usize, dedup: bool, mut take: impl FnMut(&Candidate) -> bool) {
    let prefix = if dedup { width.saturating_mul(2) } else { width };
    if cands.len() > prefix {
        cands.select_nth_unstable_by(prefix - 1, order);
        if !dedup {
            cands.truncate(prefix);
        }
    }
    let mut sorted = cands.len().min(prefix);
    cands[..sorted].sort_unstable_by(order);
    let mut taken = 0;
    for at in 0..cands.len() {
        if taken == width {
            break;
        }
        if at == sorted {
            cands[sorted..].sort_unstable_by(order);
            sorted = cands.len();
        }
        taken += usize::from(take(&cands[at]));
    }
}

fn order(a: &Candidate, b: &Candidate) -> std::cmp::Ordering {
    b.score.total_cmp(&a.score).then(a.parent.cmp(&b.parent)).then(a.action.cmp(&b.action))
}

fn better(a: &Candidate, b: &Candidate) -> bool {
    order(a, b) == std::cmp::Ordering::Less
}

#[cfg(test)]
mod tests {
    use super::{Candidate, best_first, order};

    /// Candidates in a scrambled order with tied scores.
    fn candidates(count: usize) -> Vec<Candidate> {
        (0..count)
            .map(|i| {
                let x = (i * 7919) % count;
                Candidate { score: -((x % 13) as f64), parent: (x / 3) as u32, action: (x % 3) as u8 }
            })
            .collect()
    }

    /// The candidates offered are the fully sorted list's, in its order,
    /// until `width` are taken: when nothing is refused, when a few are,
    /// and when so many are refused that the sorted prefix runs out.
    #[test]
    fn best_first_offers_the_sorted_order() {
        for (count, width) in [(100, 10), (100, 40), (100, 60), (7, 10), (1000, 1)] {
            let mut all = candidates(count);
            all.sort_unstable_by(order);
            let key = |c: &Candidate| (c.score.to_bits(), c.parent, c.action);
            for (refuse, dedup) in [(0, false), (0, true), (5, true), (2, true), (1, true)] {
                // Refuse every candidate whose parent is a multiple of `refuse`
                // (none for 0, all for 1: the sorted prefix runs out).
                let refused = |c: &Candidate| refuse > 0 && c.parent.is_multiple_of(refuse);
                let mut want = Vec::new();
                let mut taken = 0;
                for c in &all {
                    if taken == width {
                        break;
                    }
                    want.push(key(c));
                    taken += usize::from(!refused(c));
                }
                let mut cands = candidates(count);
                let mut got = Vec::new();
                best_first(&mut cands, width, dedup, |c| {
                    got.push(key(c));
                    !refused(c)
                });
                assert_eq!(got, want, "{count} candidates, width {width}, refusing parents divisible by {refuse}");
            }
        }
    }
}
