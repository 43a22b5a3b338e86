//! IDA* node rate on the 15-puzzle: the generic [`ida_star`] over the
//! `Puzzle` trait with Manhattan distance, on the easiest of Korf's 100
//! instances (goal blank-first), single thread.
//!
//! For each instance it prints the optimal cost found, the nodes generated
//! (ours and Korf's 1985 count), wall and CPU time and the rates, for
//! Manhattan with its O(1) incremental hooks; then the CPU rate of the same
//! search with Manhattan recomputed at every node, and of a hand-written
//! 15-puzzle IDA* that generates exactly the same nodes (the ceiling for
//! this machine). CPU time is read from `/proc/thread-self/schedstat`, so
//! the rates mean "per second on one core" even on a shared machine. Run
//! with `cargo bench --bench sliding_search [-- MAX_KORF_NODES]` (default
//! 30 M: the instances whose 1985 count is below it).

use std::time::Instant;

use cube_oracle::heuristics::Heuristic;
use cube_oracle::heuristics::sliding::Manhattan;
use cube_oracle::puzzle::Puzzle;
use cube_oracle::search::{Limits, ida_star};
use cube_oracle::sliding::{Board, Goal, Sliding};

/// Manhattan without the incremental update: every node is recomputed.
struct Recomputed(Manhattan);

impl Heuristic<Sliding> for Recomputed {
    fn estimate(&self, p: &Sliding, s: &Board) -> u32 {
        self.0.estimate(p, s)
    }
    fn name(&self) -> String {
        "manhattan (recomputed)".into()
    }
    fn admissible(&self) -> bool {
        true
    }
}

/// CPU time this thread has run, from `/proc/thread-self/schedstat` (ns);
/// `None` where the file is missing. On a shared machine this, not the
/// wall clock, is the time the search had a core.
fn cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat").ok()?.split_whitespace().next()?.parse().ok()
}

/// Wall seconds and CPU seconds (CPU = wall when unavailable) of `f`.
fn timed<T>(f: impl FnOnce() -> T) -> (T, f64, f64) {
    let (t, c) = (Instant::now(), cpu_ns());
    let out = f();
    let wall = t.elapsed().as_secs_f64();
    let cpu = match (c, cpu_ns()) {
        (Some(a), Some(b)) => (b - a) as f64 * 1e-9,
        _ => wall,
    };
    (out, wall, cpu)
}

/// A hand-written 15-puzzle IDA* with Manhattan (16-byte board, per-cell
/// neighbour lists, no trait, no counters but one): the ceiling the generic
/// search is compared with. Returns (cost, nodes generated), counting
/// like the generic search (every child of every expanded node, start
/// included, the move undoing the last one never generated).
struct Special {
    dist: [[u8; 16]; 16],
    nbrs: [[u8; 4]; 16],
    count: [u8; 16],
    tiles: [u8; 16],
    nodes: u64,
}

impl Special {
    fn new(goal: &[u8], start: &[u8]) -> Self {
        let mut dist = [[0u8; 16]; 16];
        for (t, row) in dist.iter_mut().enumerate().skip(1) {
            let g = goal.iter().position(|&x| usize::from(x) == t).unwrap();
            for (c, d) in row.iter_mut().enumerate() {
                *d = ((c / 4).abs_diff(g / 4) + (c % 4).abs_diff(g % 4)) as u8;
            }
        }
        let (mut nbrs, mut count) = ([[0u8; 4]; 16], [0u8; 16]);
        for c in 0..16usize {
            for (dr, dc) in [(-1i32, 0i32), (1, 0), (0, -1), (0, 1)] {
                let (r, k) = ((c / 4) as i32 + dr, (c % 4) as i32 + dc);
                if (0..4).contains(&r) && (0..4).contains(&k) {
                    nbrs[c][count[c] as usize] = (r * 4 + k) as u8;
                    count[c] += 1;
                }
            }
        }
        let mut tiles = [0u8; 16];
        tiles.copy_from_slice(start);
        Self { dist, nbrs, count, tiles, nodes: 1 }
    }

    fn dfs(&mut self, blank: usize, prev: usize, g: u32, h: u32, bound: u32) -> u32 {
        if h == 0 {
            return 0;
        }
        let mut next = u32::MAX;
        for i in 0..self.count[blank] as usize {
            let c = self.nbrs[blank][i] as usize;
            if c == prev {
                continue;
            }
            self.nodes += 1;
            let t = self.tiles[c] as usize;
            let hc = h + u32::from(self.dist[t][blank]) - u32::from(self.dist[t][c]);
            let f = g + 1 + hc;
            if f > bound {
                next = next.min(f);
                continue;
            }
            self.tiles[blank] = t as u8;
            self.tiles[c] = 0;
            let r = self.dfs(c, blank, g + 1, hc, bound);
            self.tiles[c] = t as u8;
            self.tiles[blank] = 0;
            if r == 0 {
                return 0;
            }
            next = next.min(r);
        }
        next
    }

    fn solve(&mut self) -> u32 {
        let h: u32 = (0..16).map(|c| u32::from(self.dist[self.tiles[c] as usize][c])).sum();
        let blank = self.tiles.iter().position(|&t| t == 0).unwrap();
        let mut bound = h;
        loop {
            match self.dfs(blank, usize::MAX, 0, h, bound) {
                0 => return bound,
                b => bound = b,
            }
        }
    }
}

fn main() {
    let max_nodes: u64 = std::env::args().skip(1).find_map(|a| a.parse().ok()).unwrap_or(30_000_000);
    let p = Sliding::new(4, Goal::BlankFirst).expect("4x4 blank-first");
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/data/puzzle15-korf100.tsv"))
        .expect("data/puzzle15-korf100.tsv");
    let mut instances = Vec::new();
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let tiles: Vec<u8> = f[1].split_whitespace().map(|t| t.parse().unwrap()).collect();
        let korf: u64 = f[4].parse().unwrap();
        if korf <= max_nodes {
            instances.push((f[0].to_owned(), p.board(&tiles).unwrap(), f[2].parse::<usize>().unwrap(), korf));
        }
    }
    let man = Manhattan::new(&p);
    let slow = Recomputed(Manhattan::new(&p));
    println!("IDA* on the 15-puzzle (Korf's instances with 1985 node count <= {max_nodes}), one thread");
    println!(
        "{:>4} {:>4} {:>12} {:>12} {:>7} {:>7} {:>10} {:>10} {:>10}",
        "id", "cost", "generated", "korf-1985", "wall s", "cpu s", "M/s wall", "M/s cpu", "recomp cpu"
    );
    let (mut nodes, mut wall_s, mut cpu_s, mut slow_nodes, mut slow_cpu) = (0u64, 0f64, 0f64, 0u64, 0f64);
    let (mut special_nodes, mut special_cpu) = (0u64, 0f64);
    for (id, board, optimal, korf) in &instances {
        let (out, wall, cpu) = timed(|| ida_star(&p, &man, board, Limits::default(), 100));
        assert_eq!(out.cost(), Some(*optimal), "instance {id}");
        let (ref_out, _, rcpu) = timed(|| ida_star(&p, &slow, board, Limits::default(), 100));
        assert_eq!(ref_out.generated, out.generated);
        let mut special = Special::new(p.goal().tiles(), board.tiles());
        let (cost, _, scpu) = timed(|| special.solve());
        assert_eq!(cost as usize, *optimal);
        special_nodes += special.nodes;
        special_cpu += scpu;
        let g = out.generated as f64;
        println!(
            "{id:>4} {optimal:>4} {:>12} {korf:>12} {wall:>7.3} {cpu:>7.3} {:>10.1} {:>10.1} {:>10.1}",
            out.generated,
            g / wall / 1e6,
            g / cpu / 1e6,
            g / rcpu / 1e6
        );
        nodes += out.generated;
        wall_s += wall;
        cpu_s += cpu;
        slow_nodes += ref_out.generated;
        slow_cpu += rcpu;
    }
    println!(
        "total: {nodes} nodes; incremental Manhattan {:.1} M nodes/s wall, {:.1} M nodes/s cpu; recomputed {:.1} M nodes/s cpu",
        nodes as f64 / wall_s / 1e6,
        nodes as f64 / cpu_s / 1e6,
        slow_nodes as f64 / slow_cpu / 1e6
    );
    println!(
        "hand-written 15-puzzle IDA* (reference ceiling): {special_nodes} nodes, {:.1} M nodes/s cpu",
        special_nodes as f64 / special_cpu / 1e6
    );
}
