//! Classical searches on the 8-puzzle against exact BFS distances: every
//! optimal method finds the optimal cost, heuristics are admissible with
//! the stated dominance, greedy paths replay, and limits are honoured.

use cube_oracle::heuristics::sliding::{LinearConflict, Manhattan, Misplaced};
use cube_oracle::heuristics::{Heuristic, Zero};
use cube_oracle::puzzle::{MoveId, Puzzle};
use cube_oracle::search::{DistanceTable, Limits, Priority, Status, best_first, heuristic_beam, ida_star, rbfs};
use cube_oracle::sliding::{Board, Goal, Sliding, SlidingKey};
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use std::collections::HashMap;

fn bfs(p: &Sliding) -> (HashMap<SlidingKey, u8>, Vec<Board>) {
    let mut dist = HashMap::new();
    let mut all = vec![p.goal()];
    dist.insert(p.key(&all[0]), 0u8);
    let mut i = 0;
    while i < all.len() {
        let s = all[i];
        let d = dist[&p.key(&s)];
        for m in 0..4 {
            if p.is_applicable(&s, m) {
                let mut c = s;
                p.apply(&mut c, m);
                if let std::collections::hash_map::Entry::Vacant(e) = dist.entry(p.key(&c)) {
                    e.insert(d + 1);
                    all.push(c);
                }
            }
        }
        i += 1;
    }
    (dist, all)
}

fn replays(p: &Sliding, start: &Board, path: &[MoveId]) -> bool {
    cube_oracle::puzzle::replay(p, start, path).is_some_and(|end| p.is_goal(&end))
}

#[test]
fn every_optimal_method_finds_the_bfs_distance() {
    let p = Sliding::new(3, Goal::BlankLast).unwrap();
    let (dist, _) = bfs(&p);
    let (man, mis, lc) = (Manhattan::new(&p), Misplaced::new(&p), LinearConflict::new(&p));
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    for _ in 0..25 {
        let start = p.random_solvable(&mut rng);
        let d = dist[&p.key(&start)] as usize;
        let runs = [
            ("A* manhattan", best_first(&p, &man, &start, Priority::AStar, Limits::default())),
            ("A* misplaced", best_first(&p, &mis, &start, Priority::AStar, Limits::default())),
            ("uniform-cost", best_first(&p, &Zero, &start, Priority::AStar, Limits::default())),
            ("IDA* manhattan", ida_star(&p, &man, &start, Limits::default(), 40)),
            ("RBFS manhattan", rbfs(&p, &man, &start, Limits::default(), 40)),
            ("IDA* linear conflict", ida_star(&p, &lc, &start, Limits::default(), 40)),
        ];
        for (name, out) in &runs {
            assert_eq!(out.status, Status::Solved, "{name}");
            assert_eq!(out.cost(), Some(d), "{name} on {start}");
            assert!(replays(&p, &start, &out.path), "{name}");
            assert!(out.expanded <= out.generated);
        }
        // Better heuristics do less work.
        assert!(runs[0].1.expanded <= runs[1].1.expanded && runs[1].1.expanded <= runs[2].1.expanded);
        let greedy = best_first(&p, &man, &start, Priority::Greedy, Limits::default());
        assert_eq!(greedy.status, Status::Solved);
        assert!(greedy.path.len() >= d && replays(&p, &start, &greedy.path));
    }
    // IDS (IDA* with h = 0) on shallower instances.
    let (_, all) = bfs(&p);
    for start in all.iter().filter(|s| (10..=14).contains(&dist[&p.key(s)])).step_by(997).take(8) {
        let out = ida_star(&p, &Zero, start, Limits::default(), 40);
        assert_eq!(out.cost(), Some(dist[&p.key(start)] as usize));
    }
}

#[test]
fn heuristics_are_admissible_and_dominance_holds_on_every_state() {
    for goal in [Goal::BlankLast, Goal::BlankFirst, Goal::Snail] {
        let p = Sliding::new(3, goal).unwrap();
        let (dist, all) = bfs(&p);
        assert_eq!(all.len(), 181_440);
        let (man, mis, lc) = (Manhattan::new(&p), Misplaced::new(&p), LinearConflict::new(&p));
        let (mut strict, mut lc_better) = (0, 0);
        for s in &all {
            let (h1, h2, h3, d) =
                (mis.estimate(&p, s), man.estimate(&p, s), lc.estimate(&p, s), u32::from(dist[&p.key(s)]));
            assert!(
                h1 <= h2 && h2 <= h3 && h3 <= d,
                "misplaced {h1} <= manhattan {h2} <= linear conflict {h3} <= distance {d} fails on {s}"
            );
            assert_eq!(h3 % 2, d % 2, "every heuristic here has the parity of the distance");
            strict += usize::from(h1 < h2);
            lc_better += usize::from(h2 < h3);
        }
        assert!(strict > 100_000, "Manhattan is strictly better on most states");
        assert!(lc_better > 10_000, "linear conflict improves on Manhattan on many states ({lc_better})");
    }
}

#[test]
fn manhattan_incremental_update_matches_recomputation() {
    let p = Sliding::new(4, Goal::BlankLast).unwrap();
    let man = Manhattan::new(&p);
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let mut s = p.random_solvable(&mut rng);
    for step in 0..2000u32 {
        let m = (step.wrapping_mul(2_654_435_761) >> 7) as u8 % 4;
        if !p.is_applicable(&s, m) {
            continue;
        }
        let blank = s.blank();
        let before = man.estimate(&p, &s) as i32;
        let mut c = s;
        p.apply(&mut c, m);
        // The tile that moved went from the new blank cell to the old one.
        assert_eq!(before + man.delta(&s, c.blank(), blank), man.estimate(&p, &c) as i32);
        s = c;
    }
}

#[test]
fn limits_are_reported_as_limits_not_solutions() {
    let p = Sliding::new(3, Goal::BlankLast).unwrap();
    let start = p.parse_board("8 6 7 / 2 5 4 / 3 0 1").unwrap(); // 31 moves from the goal
    let lim = Limits { max_generated: 500, ..Limits::default() };
    for out in [best_first(&p, &Zero, &start, Priority::AStar, lim), ida_star(&p, &Zero, &start, lim, 40)] {
        assert_eq!(out.status, Status::LimitReached);
        assert!(out.path.is_empty() && out.cost().is_none());
        assert!(out.generated <= 500 + 4);
    }
    let shallow = ida_star(&p, &Manhattan::new(&p), &start, Limits::default(), 20);
    assert_eq!(shallow.status, Status::Exhausted, "no path within the depth bound");
}

#[test]
fn the_bfs_table_is_the_perfect_heuristic() {
    let p = Sliding::new(3, Goal::BlankLast).unwrap();
    let table = DistanceTable::build(&p, 40);
    assert!(table.is_complete());
    assert_eq!(table.len(), 181_440);
    assert_eq!(table.counts.len(), 32, "depths 0..=31");
    let mut rng = ChaCha8Rng::seed_from_u64(10);
    for _ in 0..20 {
        let start = p.random_solvable(&mut rng);
        let d = table.distance(&p, &start).unwrap() as u64;
        let out = best_first(&p, &table, &start, Priority::AStar, Limits::default());
        assert_eq!(out.cost(), Some(d as usize));
        assert_eq!(out.expanded, d, "with h* A* expands only the solution path");
        let ida = ida_star(&p, &table, &start, Limits::default(), 40);
        assert_eq!(ida.expanded, d);
    }
    // A depth-limited table stays admissible beyond its depth.
    let shallow = DistanceTable::build(&p, 10);
    assert!(!shallow.is_complete());
    for _ in 0..200 {
        let s = p.random_solvable(&mut rng);
        assert!(shallow.estimate(&p, &s) <= u32::from(table.distance(&p, &s).unwrap()));
    }
}

#[test]
fn the_effective_branching_factor_counts_the_start_once() {
    // One move from the goal: A* makes the start and its 3 children, and a
    // tree of depth 1 holding those 4 nodes branches 3 ways.
    let p = Sliding::new(3, Goal::BlankLast).unwrap();
    let start = p.parse_board("1 2 3 / 4 5 6 / 7 0 8").unwrap();
    let out = best_first(&p, &Manhattan::new(&p), &start, Priority::AStar, Limits::default());
    assert_eq!((out.cost(), out.generated), (Some(1), 4));
    assert!((out.ebf().unwrap() - 3.0).abs() < 1e-9, "{:?}", out.ebf());
}

#[test]
fn a_heuristic_beam_that_dropped_states_never_claims_the_space_exhausted() {
    let p = Sliding::new(3, Goal::BlankLast).unwrap();
    let (dist, _) = bfs(&p);
    let mut rng = ChaCha8Rng::seed_from_u64(21);
    let mut unsolved = 0;
    for _ in 0..200 {
        let start = p.random_solvable(&mut rng);
        let d = dist[&p.key(&start)] as u32;
        let out = heuristic_beam(&p, &Misplaced::new(&p), &start, 1, Limits::default(), d + 2);
        if out.status != Status::Solved {
            unsolved += 1;
            // A goal lies within the depth bound: nothing was exhausted.
            assert_eq!(out.status, Status::LimitReached, "{start:?}");
        }
    }
    assert!(unsolved > 0, "width 1 must miss some boards");
}

#[test]
fn a_heuristic_beam_holds_its_kept_states_and_one_depth_of_candidates() {
    // Width 64 on the cube (QTM) for 8 depths: at most 64 kept states a
    // depth and 64 × 11 candidates (no move undoes the last) at a time,
    // far fewer than the children made (which it used to hold, all).
    use cube_oracle::cube3::{Cube3Puzzle, Metric};
    let p = Cube3Puzzle::new(Metric::Qtm);
    let mut start = p.goal();
    for m in [0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9, 11, 0, 4, 8, 2] {
        p.apply(&mut start, m);
    }
    let (width, depth) = (64u64, 8u32);
    let out = heuristic_beam(&p, &Zero, &start, width as usize, Limits::default(), depth);
    assert_eq!(out.status, Status::LimitReached);
    let bound = 1 + width * u64::from(depth) + 11 * width;
    assert!(out.peak_nodes <= bound && out.generated > 3 * bound, "{} held, {} made", out.peak_nodes, out.generated);
    // With a width no depth fills, it is breadth-first search: the goal
    // is found at its true distance.
    let (dist, _) = bfs(&Sliding::new(3, Goal::BlankLast).unwrap());
    let p8 = Sliding::new(3, Goal::BlankLast).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(6);
    for _ in 0..20 {
        let b = p8.random_solvable(&mut rng);
        let out = heuristic_beam(&p8, &Zero, &b, 1 << 20, Limits::default(), 40);
        assert_eq!(out.status, Status::Solved);
        assert_eq!(out.path.len(), usize::from(dist[&p8.key(&b)]));
    }
}
