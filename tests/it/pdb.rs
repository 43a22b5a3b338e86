//! Additive pattern databases for the sliding puzzle against exact facts:
//! every 8-puzzle state (BFS distances), brute-force abstraction searches,
//! and published optimal lengths of DeepCubeA's and Korf's 15-puzzles.
//!
//! Korf's instances are solved here with the 5-5-5 partition (tables of
//! 524,160 entries, built in a second): the same code as the 7-8 tables,
//! whose 8-tile table (518,918,400 entries, 2 GB, 4–20 minutes to build on
//! 2 cores) belongs in the benchmark that uses it, `cargo bench --bench
//! korf100 -- --h pdb-7-8+r` (all 100 optimal, recorded in
//! `benches/results/`).

use std::collections::{HashMap, VecDeque};

use cube_oracle::heuristics::Heuristic;
use cube_oracle::heuristics::sliding_pdb::{AdditivePdb, Partition};
use cube_oracle::puzzle::{MoveId, Puzzle};
use cube_oracle::search::{DistanceTable, Limits, Status, ida_star};
use cube_oracle::sliding::{Board, Goal, Sliding};

fn tsv(text: &str) -> Vec<(u32, Vec<u8>, usize)> {
    text.lines()
        .skip(1)
        .map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            let tiles = f[1].split_whitespace().map(|t| t.parse().unwrap()).collect();
            (f[0].parse().unwrap(), tiles, f[2].parse().unwrap())
        })
        .collect()
}

fn replays(p: &Sliding, start: &Board, path: &[MoveId]) -> bool {
    cube_oracle::puzzle::replay(p, start, path).is_some_and(|end| p.is_goal(&end))
}

/// Every state of the 8-puzzle for `p`'s goal.
fn all_states(p: &Sliding) -> Vec<Board> {
    let mut seen = std::collections::HashSet::new();
    let mut all = vec![p.goal()];
    seen.insert(p.key(&all[0]));
    let mut i = 0;
    while i < all.len() {
        let s = all[i];
        for m in 0..4 {
            if p.is_applicable(&s, m) {
                let mut c = s;
                p.apply(&mut c, m);
                if seen.insert(p.key(&c)) {
                    all.push(c);
                }
            }
        }
        i += 1;
    }
    all
}

/// The pattern abstraction searched naively: states are (cells of the
/// pattern tiles, blank cell), moves of pattern tiles cost 1 and moves of
/// other tiles 0 (0-1 BFS with a deque); returns the least cost of each
/// placement over blank cells.
fn brute_force_abstraction(n: usize, goal: &Board, cells: &[u8]) -> HashMap<Vec<u8>, u32> {
    let start: (Vec<u8>, u8) = (cells.to_vec(), goal.blank() as u8);
    let mut dist: HashMap<(Vec<u8>, u8), u32> = HashMap::new();
    let mut dq = VecDeque::new();
    dist.insert(start.clone(), 0);
    dq.push_back((start, 0u32));
    while let Some(((pos, blank), d)) = dq.pop_front() {
        if dist[&(pos.clone(), blank)] < d {
            continue;
        }
        let (r, c) = (usize::from(blank) / n, usize::from(blank) % n);
        let mut nbrs = Vec::new();
        if r > 0 {
            nbrs.push(blank - n as u8);
        }
        if r + 1 < n {
            nbrs.push(blank + n as u8);
        }
        if c > 0 {
            nbrs.push(blank - 1);
        }
        if c + 1 < n {
            nbrs.push(blank + 1);
        }
        for nb in nbrs {
            let mut pos2 = pos.clone();
            let cost = match pos2.iter().position(|&q| q == nb) {
                Some(i) => {
                    pos2[i] = blank;
                    1
                }
                None => 0,
            };
            let key = (pos2, nb);
            let nd = d + cost;
            if dist.get(&key).is_none_or(|&old| nd < old) {
                dist.insert(key.clone(), nd);
                if cost == 0 {
                    dq.push_front((key, nd));
                } else {
                    dq.push_back((key, nd));
                }
            }
        }
    }
    let mut best: HashMap<Vec<u8>, u32> = HashMap::new();
    for ((pos, _), d) in dist {
        let e = best.entry(pos).or_insert(d);
        *e = (*e).min(d);
    }
    best
}

#[test]
fn eight_puzzle_pdbs_are_admissible_exact_and_match_brute_force() {
    for goal in [Goal::BlankLast, Goal::BlankFirst] {
        let p = Sliding::new(3, goal.clone()).unwrap();
        let table = DistanceTable::build(&p, 40);
        assert!(table.is_complete() && table.len() == 181_440);
        let states = all_states(&p);
        let h44 = AdditivePdb::new(&p, "4-4", false, None).unwrap();
        let h44r = AdditivePdb::new(&p, "4-4", true, None).unwrap();
        let exact = AdditivePdb::new(&p, "8", false, None).unwrap();
        assert_eq!((h44.name(), h44r.name(), exact.name()), ("pdb-4-4".into(), "pdb-4-4+r".into(), "pdb-8".into()));
        let (mut sum, mut sum_r, mut better) = (0u64, 0u64, 0u32);
        for s in &states {
            let d = u32::from(table.distance(&p, s).unwrap());
            let (a, b) = (h44.estimate(&p, s), h44r.estimate(&p, s));
            assert!(a <= d && b <= d, "{goal}: pdb {a}, reflected {b} > distance {d} on {s}");
            assert!(b >= a);
            // A single pattern holding every tile is the exact distance.
            assert_eq!(exact.estimate(&p, s), d, "{goal}: 8-tile PDB on {s}");
            sum += u64::from(a);
            sum_r += u64::from(b);
            better += u32::from(b > a);
        }
        assert!(better > 10_000, "reflection helps on many states ({better})");
        assert!(sum_r > sum);

        // Each pattern's table equals a brute-force search of its abstraction.
        for (i, pat) in h44.patterns().iter().enumerate() {
            let brute = brute_force_abstraction(3, &p.goal(), pat.cells());
            assert_eq!(brute.len(), pat.entries(), "every placement is reachable");
            for s in &states {
                let placement: Vec<u8> =
                    pat.tiles().iter().map(|&t| s.tiles().iter().position(|&x| x == t).unwrap() as u8).collect();
                assert_eq!(u32::from(h44.pattern_value(i, s)), brute[&placement], "pattern {i} on {s}");
            }
        }
    }
}

#[test]
fn the_incremental_update_matches_recomputation() {
    let p = Sliding::new(4, Goal::BlankLast).unwrap();
    let h = AdditivePdb::new(&p, "5-5-5", false, None).unwrap();
    let mut s = p.goal();
    let mut hv = h.estimate(&p, &s);
    let mut x = 12345u64;
    for _ in 0..20_000 {
        x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        let m = (x >> 60) as MoveId % 4;
        if !p.is_applicable(&s, m) {
            continue;
        }
        p.apply(&mut s, m);
        hv = h.estimate_child(&p, &s, m, hv);
        assert_eq!(hv, h.estimate(&p, &s), "on {s}");
    }
}

#[test]
fn bad_partitions_and_asymmetric_goals_are_refused() {
    let p15 = Sliding::new(4, Goal::BlankFirst).unwrap();
    let e = AdditivePdb::new(&p15, "9-6", false, None).unwrap_err().to_string();
    assert!(e.contains("unknown partition") && e.contains("7-8"), "{e}");
    let e = AdditivePdb::new(&p15, "6-6-6-6", false, None).unwrap_err().to_string();
    assert!(e.contains("n = 5") && e.contains("24-puzzle"), "{e}");
    // The snail goal's blank is off the diagonal and off the corners.
    let snail = Sliding::new(4, Goal::Snail).unwrap();
    let e = AdditivePdb::new(&snail, "5-5-5", false, None).unwrap_err().to_string();
    assert!(e.contains("corner"), "{e}");
    let part = Partition::from_cells(vec![vec![0, 1, 2, 3, 4], vec![5, 6, 7, 8]]);
    let e = AdditivePdb::with_partition(&snail, &part, true, None).unwrap_err().to_string();
    assert!(e.contains("symmetric"), "{e}");
    // Overlapping patterns and the blank's cell.
    let p8 = Sliding::new(3, Goal::BlankLast).unwrap();
    let e = AdditivePdb::with_partition(&p8, &Partition::from_cells(vec![vec![0, 1], vec![1, 2]]), false, None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("listed twice") || e.contains("two patterns"), "{e}");
    let e = AdditivePdb::with_partition(&p8, &Partition::from_cells(vec![vec![7, 8]]), false, None).unwrap_err();
    assert!(format!("{e:#}").contains("blank"), "{e:#}");
}

#[test]
fn deepcubea_15_puzzles_admissible_and_solved_optimally() {
    let p = Sliding::new(4, Goal::BlankLast).unwrap();
    let set = tsv(include_str!("../../data/puzzle15-deepcubea-test-500.tsv"));
    assert_eq!(set.len(), 500);
    let h555 = AdditivePdb::new(&p, "5-5-5", true, None).unwrap();
    let h663 = AdditivePdb::new(&p, "6-6-3", true, None).unwrap();
    let (mut s555, mut s663) = (0u64, 0u64);
    for (id, tiles, optimal) in &set {
        let b = p.board(tiles).unwrap();
        let (a, c) = (h555.estimate(&p, &b), h663.estimate(&p, &b));
        assert!(a as usize <= *optimal && c as usize <= *optimal, "instance {id}: 5-5-5 {a}, 6-6-3 {c} > {optimal}");
        assert_eq!(a as usize % 2, optimal % 2, "additive PDBs keep the parity of the distance");
        s555 += u64::from(a);
        s663 += u64::from(c);
    }
    assert!(s663 > s555, "6-6-3 is the stronger partition on average");
    // IDA* with 6-6-3 (+reflection) solves the shortest instances optimally.
    let mut easy: Vec<_> = set.iter().collect();
    easy.sort_by_key(|(_, _, o)| *o);
    for (id, tiles, optimal) in easy.iter().take(8) {
        let b = p.board(tiles).unwrap();
        let out = ida_star(&p, &h663, &b, Limits::default(), 80);
        assert_eq!(out.status, Status::Solved, "instance {id}");
        assert_eq!(out.path.len(), *optimal, "instance {id}");
        assert!(replays(&p, &b, &out.path));
    }
}

#[test]
fn korf_first_ten_with_5_5_5() {
    let p = Sliding::new(4, Goal::BlankFirst).unwrap();
    let h = AdditivePdb::new(&p, "5-5-5", true, None).unwrap();
    for (id, tiles, optimal) in tsv(include_str!("../../data/puzzle15-korf100.tsv")).iter().take(10) {
        let b = p.board(tiles).unwrap();
        assert!(h.estimate(&p, &b) as usize <= *optimal);
        let out = ida_star(&p, &h, &b, Limits::default(), 90);
        assert_eq!(out.cost(), Some(*optimal), "Korf instance {id}");
        assert!(replays(&p, &b, &out.path));
    }
}
