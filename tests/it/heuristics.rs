//! Sliding-puzzle heuristics against exact distances: every admissible
//! heuristic on every 8-puzzle state for three goals, the dominance and
//! consistency the literature proves, Gaschnig against a breadth-first
//! search of its relaxation, incremental updates against recomputation,
//! and every optimal search agreeing with the BFS table with every
//! heuristic.

use cube_oracle::heuristics::MaxOf;
use cube_oracle::heuristics::sliding::{Gaschnig, LinearConflict, LinearConflictCorner, Manhattan, Misplaced, XY};
use cube_oracle::heuristics::{Heuristic, Zero};
use cube_oracle::puzzle::{MoveId, Puzzle, Recent};
use cube_oracle::search::{DistanceTable, Limits, Priority, Status, best_first, ida_star, rbfs};
use cube_oracle::sliding::{Board, Goal, Sliding, SlidingKey};
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use std::collections::HashMap;

/// Every state reachable from the goal, in BFS order, with an index by key.
fn all_states(p: &Sliding) -> (Vec<Board>, HashMap<SlidingKey, usize>) {
    let mut index = HashMap::new();
    let mut all = vec![p.goal()];
    index.insert(p.key(&all[0]), 0);
    let mut i = 0;
    while i < all.len() {
        let s = all[i];
        for m in 0..4 {
            if p.is_applicable(&s, m) {
                let mut c = s;
                p.apply(&mut c, m);
                if let std::collections::hash_map::Entry::Vacant(e) = index.entry(p.key(&c)) {
                    e.insert(all.len());
                    all.push(c);
                }
            }
        }
        i += 1;
    }
    (all, index)
}

/// The heuristics under test, by name, for puzzle `p`.
fn heuristics(p: &Sliding) -> Vec<Box<dyn Heuristic<Sliding> + Send + Sync>> {
    vec![
        Box::new(Misplaced::new(p)),
        Box::new(Manhattan::new(p)),
        Box::new(LinearConflict::new(p)),
        Box::new(LinearConflictCorner::new(p)),
        Box::new(Gaschnig::new(p)),
        Box::new(XY::new(p).unwrap()),
        Box::new(MaxOf::new(vec![
            Box::new(LinearConflictCorner::new(p)),
            Box::new(Gaschnig::new(p)),
            Box::new(XY::new(p).unwrap()),
        ])),
    ]
}

const NAMES: [&str; 7] =
    ["misplaced", "manhattan", "linear-conflict", "linear-conflict+corner", "gaschnig", "xy", "max"];
const MIS: usize = 0;
const MAN: usize = 1;
const LC: usize = 2;
const LCC: usize = 3;
const GAS: usize = 4;
const XYH: usize = 5;
const MAX: usize = 6;

#[test]
fn every_heuristic_is_admissible_with_the_proven_dominance_and_consistency_on_all_8_puzzle_states() {
    for goal in [Goal::BlankLast, Goal::BlankFirst, Goal::Snail] {
        let p = Sliding::new(3, goal.clone()).unwrap();
        let table = DistanceTable::build(&p, 40);
        assert!(table.is_complete());
        let (all, index) = all_states(&p);
        assert_eq!(all.len(), 181_440);
        let hs = heuristics(&p);
        for (h, name) in hs.iter().zip(NAMES) {
            assert!(h.admissible(), "{name}");
            assert_eq!(h.name().split('(').next(), Some(name), "names");
        }
        // values[i][k] = heuristic k on state i.
        let values: Vec<[u32; 7]> = all.iter().map(|s| std::array::from_fn(|k| hs[k].estimate(&p, s))).collect();
        let mut better = [[0usize; 7]; 7]; // better[a][b]: states with h_a > h_b
        for (s, v) in all.iter().zip(&values) {
            let d = u32::from(table.distance(&p, s).unwrap());
            for (k, &h) in v.iter().enumerate() {
                assert!(h <= d, "{} = {h} exceeds the distance {d} on {s} (goal {goal})", NAMES[k]);
            }
            if p.is_goal(s) {
                assert_eq!(v, &[0; 7]);
            }
            for (a, b) in [(MAN, MIS), (LC, MAN), (LCC, LC), (GAS, MIS), (XYH, MAN), (MAX, LCC), (MAX, GAS), (MAX, XYH)]
            {
                assert!(v[a] >= v[b], "{} {} < {} {} on {s} (goal {goal})", NAMES[a], v[a], NAMES[b], v[b]);
            }
            for a in 0..7 {
                for b in 0..7 {
                    better[a][b] += usize::from(v[a] > v[b]);
                }
            }
            for k in [MAN, LC, LCC] {
                assert_eq!(v[k] % 2, d % 2, "{} keeps the parity of the distance", NAMES[k]);
            }
        }
        // Consistency (|h(s) − h(s')| ≤ 1 across every move) where it is a theorem.
        let mut lcc_inconsistent = 0;
        for (i, s) in all.iter().enumerate() {
            for m in 0..4 {
                if p.is_applicable(s, m) {
                    let mut c = *s;
                    p.apply(&mut c, m);
                    let j = index[&p.key(&c)];
                    for k in [MIS, MAN, LC, GAS, XYH] {
                        assert!(values[i][k] <= values[j][k] + 1, "{} inconsistent at {s} -> {c}", NAMES[k]);
                    }
                    lcc_inconsistent += usize::from(values[i][LCC] > values[j][LCC] + 1);
                }
            }
        }
        // The enhancements do something, and the incomparable pairs really are.
        assert!(better[LCC][LC] > 1000, "corner tiles add on {} states", better[LCC][LC]);
        assert!(better[GAS][MAN] > 0 && better[MAN][GAS] > 0, "gaschnig and manhattan are incomparable");
        assert!(better[XYH][MAN] > 10_000, "xy improves on manhattan on {} states", better[XYH][MAN]);
        assert!(better[XYH][LC] > 0 && better[LC][XYH] > 0, "xy and linear conflict are incomparable");
        eprintln!(
            "goal {goal}: lcc>lc {} gas>man {} man>gas {} xy>man {} xy>lc {} lc>xy {} lcc inconsistent edges {lcc_inconsistent}",
            better[LCC][LC], better[GAS][MAN], better[MAN][GAS], better[XYH][MAN], better[XYH][LC], better[LC][XYH]
        );
    }
}

#[test]
fn gaschnig_is_the_exact_length_of_its_relaxation() {
    // BFS over all 9! arrangements (both parities) where the blank may swap
    // with any tile, from the goal; the relaxation is symmetric.
    let p = Sliding::new(3, Goal::Snail).unwrap();
    let gas = Gaschnig::new(&p);
    let pack = |t: &[u8]| t.iter().enumerate().fold(0u64, |k, (i, &x)| k | u64::from(x) << (4 * i));
    let mut dist: HashMap<u64, u8> = HashMap::new();
    let goal = p.goal().tiles().to_vec();
    dist.insert(pack(&goal), 0);
    let mut frontier = vec![goal];
    let mut d = 0;
    while !frontier.is_empty() {
        d += 1;
        let mut next = Vec::new();
        for t in &frontier {
            let b = t.iter().position(|&x| x == 0).unwrap();
            for c in 0..9 {
                if c != b {
                    let mut u = t.clone();
                    u.swap(b, c);
                    if let std::collections::hash_map::Entry::Vacant(e) = dist.entry(pack(&u)) {
                        e.insert(d);
                        next.push(u);
                    }
                }
            }
        }
        frontier = next;
    }
    assert_eq!(dist.len(), 362_880);
    let mut checked = 0;
    for (&key, &d) in &dist {
        let tiles: Vec<u8> = (0..9).map(|i| (key >> (4 * i) & 15) as u8).collect();
        let board = Board::from_tiles(&tiles).unwrap();
        assert_eq!(gas.estimate(&p, &board), u32::from(d), "{board}");
        checked += 1;
    }
    assert_eq!(checked, 362_880);
    // The write-up's example where Gaschnig beats Manhattan.
    let q = Sliding::new(3, Goal::BlankLast).unwrap();
    let b = q.parse_board("2 1 6 / 5 4 3 / 8 7 0").unwrap();
    assert_eq!((Manhattan::new(&q).estimate(&q, &b), Gaschnig::new(&q).estimate(&q, &b)), (8, 12));
}

#[test]
fn incremental_updates_match_recomputation_along_random_walks() {
    let mut rng = ChaCha8Rng::seed_from_u64(55);
    for n in [3, 4, 5] {
        for goal in [Goal::BlankLast, Goal::BlankFirst, Goal::Snail] {
            let p = Sliding::new(n, goal).unwrap();
            let hs: Vec<Box<dyn Heuristic<Sliding>>> = vec![
                Box::new(Manhattan::new(&p)),
                Box::new(LinearConflict::new(&p)),
                Box::new(LinearConflictCorner::new(&p)),
            ];
            for h in &hs {
                let mut s = p.random_solvable(&mut rng);
                let mut value = h.estimate(&p, &s);
                let mut steps = 0;
                while steps < 20_000 {
                    let m = rng.random_range(0..4) as MoveId;
                    if !p.is_applicable(&s, m) {
                        continue;
                    }
                    p.apply(&mut s, m);
                    value = h.estimate_child(&p, &s, m, value);
                    assert_eq!(value, h.estimate(&p, &s), "{} after {steps} moves on {s}", h.name());
                    steps += 1;
                }
            }
        }
    }
}

/// Manhattan without its incremental update.
struct Recomputed(Manhattan);

impl Heuristic<Sliding> for Recomputed {
    fn estimate(&self, p: &Sliding, s: &Board) -> u32 {
        self.0.estimate(p, s)
    }
    fn name(&self) -> String {
        "recomputed".into()
    }
    fn admissible(&self) -> bool {
        true
    }
}

#[test]
fn ida_star_does_the_same_search_with_the_incremental_update() {
    let p = Sliding::new(4, Goal::BlankLast).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(56);
    for _ in 0..6 {
        // 40-move random walks: solvable in well under a second.
        let mut s = p.goal();
        let mut recent = Recent::default();
        let mut k = 0;
        while k < 40 {
            let m = rng.random_range(0..4) as MoveId;
            if p.is_applicable(&s, m) && !p.is_redundant(recent, m) {
                p.apply(&mut s, m);
                recent = recent.push(m);
                k += 1;
            }
        }
        let fast = ida_star(&p, &Manhattan::new(&p), &s, Limits::default(), 80);
        let slow = ida_star(&p, &Recomputed(Manhattan::new(&p)), &s, Limits::default(), 80);
        assert_eq!(fast.status, Status::Solved);
        assert_eq!((fast.generated, fast.expanded, &fast.path), (slow.generated, slow.expanded, &slow.path));
    }
}

#[test]
fn every_optimal_method_agrees_with_the_bfs_table_under_every_heuristic() {
    let p = Sliding::new(3, Goal::BlankLast).unwrap();
    let table = DistanceTable::build(&p, 40);
    let mut hs = heuristics(&p);
    hs.push(Box::new(table.clone()));
    let mut rng = ChaCha8Rng::seed_from_u64(57);
    for _ in 0..12 {
        let start = p.random_solvable(&mut rng);
        let d = table.distance(&p, &start).unwrap() as usize;
        for h in &hs {
            let runs = [
                ("A*", best_first(&p, h, &start, Priority::AStar, Limits::default())),
                ("IDA*", ida_star(&p, h, &start, Limits::default(), 40)),
                ("RBFS", rbfs(&p, h, &start, Limits::default(), 40)),
            ];
            for (method, out) in &runs {
                assert_eq!(out.cost(), Some(d), "{method} with {} on {start}", h.name());
            }
        }
        // IDA* with h* walks the optimal path only: d expansions, the whole
        // path (d + 1 nodes) on the stack at the end.
        let perfect = ida_star(&p, &table, &start, Limits::default(), 40);
        assert_eq!((perfect.expanded, perfect.peak_nodes), (d as u64, d as u64 + 1), "IDA* h* on {start}");
        let ucs = best_first(&p, &Zero, &start, Priority::AStar, Limits::default());
        assert_eq!(ucs.cost(), Some(d), "uniform-cost on {start}");
        if d <= 18 {
            assert_eq!(ida_star(&p, &Zero, &start, Limits::default(), 40).cost(), Some(d), "IDS on {start}");
        }
    }
}
