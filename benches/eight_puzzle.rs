//! 8-puzzle tables from the reference material, reproduced with the
//! generic searches (run with `cargo bench --bench eight_puzzle`; output
//! kept in `benches/results/`).
//!
//! 1. The lecture's worked example `2 3 0 / 1 8 6 / 5 7 4` (goal `1 2 3 /
//!    4 5 6 / 7 8 0`): nodes and expansions of A* with Manhattan, linear
//!    conflict and the BFS lookup table, and IDA* with the table, in the
//!    crate's counting convention and in the lecture's (distinct nodes put
//!    on OPEN ∪ CLOSED, and every node selected from OPEN, the goal
//!    included), under several tie-breaking rules among equal `f`.
//! 2. IDS against A* (misplaced tiles, Manhattan) on random instances
//!    grouped by optimal depth 2, 4, …, 24 (100 per depth, seeded, drawn
//!    uniformly from the states at that depth), as in AIMA's comparison:
//!    mean nodes generated and the effective branching factor of that mean.
//!    IDS twice: the crate's (IDA* with h = 0, which never undoes the last
//!    move) and AIMA's (every move, capped at depth 14 as its cost grows
//!    as ~2.7^d).
//! 3. The notebook's three fixed instances (start `1 2 3 / 4 0 5 / 6 7 8`,
//!    three goals): IDS and RBFS with h = 0, blank distance and Manhattan.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::time::Instant;

use cube_oracle::heuristics::sliding::{LinearConflict, LinearConflictCorner, Manhattan, Misplaced};
use cube_oracle::heuristics::{Heuristic, Zero};
use cube_oracle::puzzle::{MoveId, Puzzle};
use cube_oracle::search::{
    DistanceTable, Limits, Priority, SearchOutcome, Status, best_first, effective_branching_factor, ida_star, rbfs,
};
use cube_oracle::sliding::{Board, Goal, Sliding};
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use rand::seq::IndexedRandom;

/// Tie-breaking among OPEN nodes with equal `f`.
#[derive(Clone, Copy, Debug)]
enum Tie {
    /// Oldest first.
    Fifo,
    /// Newest first.
    Lifo,
    /// Smallest `h` (deepest `g`), then oldest.
    LowHFifo,
    /// Smallest `h`, then newest.
    LowHLifo,
}

/// What the lecture-style A* reports.
struct Lecture {
    /// Distinct states ever put on OPEN (= |OPEN ∪ CLOSED| at the end).
    nodes: usize,
    /// Nodes selected from OPEN and expanded (the goal is selected, not
    /// expanded).
    expanded: usize,
    cost: u32,
}

/// A* as the lecture states it: OPEN ordered by `f` with the given
/// tie-breaking, the goal test on selection, every applicable move
/// generated in the order `order` (the parent too, found in CLOSED),
/// reopening on a shorter `g`.
fn lecture_astar(p: &Sliding, h: &dyn Heuristic<Sliding>, start: &Board, tie: Tie, order: [MoveId; 4]) -> Lecture {
    let mut g_of: HashMap<_, u32> = HashMap::new();
    let mut states: Vec<(Board, u32)> = Vec::new();
    // (f, tie-break key, id); a max-heap, so everything is reversed.
    let mut open: BinaryHeap<(Reverse<u32>, Reverse<u32>, i64, usize)> = BinaryHeap::new();
    let push = |open: &mut BinaryHeap<_>, states: &mut Vec<(Board, u32)>, s: Board, g: u32| {
        let hv = h.estimate(p, &s);
        let id = states.len();
        states.push((s, g));
        let (hk, order) = match tie {
            Tie::Fifo => (0, -(id as i64)),
            Tie::Lifo => (0, id as i64),
            Tie::LowHFifo => (hv, -(id as i64)),
            Tie::LowHLifo => (hv, id as i64),
        };
        open.push((Reverse(g + hv), Reverse(hk), order, id));
    };
    g_of.insert(p.key(start), 0);
    push(&mut open, &mut states, *start, 0);
    let mut expanded = 0;
    while let Some((_, _, _, id)) = open.pop() {
        let (s, g) = states[id];
        if g_of[&p.key(&s)] < g {
            continue;
        }
        if p.is_goal(&s) {
            return Lecture { nodes: g_of.len(), expanded, cost: g };
        }
        expanded += 1;
        for m in order {
            if !p.is_applicable(&s, m) {
                continue;
            }
            let mut c = s;
            p.apply(&mut c, m);
            let k = p.key(&c);
            if g_of.get(&k).is_some_and(|&b| b <= g + 1) {
                continue;
            }
            g_of.insert(k, g + 1);
            push(&mut open, &mut states, c, g + 1);
        }
    }
    Lecture { nodes: g_of.len(), expanded, cost: u32::MAX }
}

/// Every state of `p` by optimal distance (BFS from the goal).
fn layers(p: &Sliding) -> Vec<Vec<Board>> {
    let mut seen = HashMap::new();
    seen.insert(p.key(&p.goal()), ());
    let mut layers = vec![vec![p.goal()]];
    loop {
        let mut next = Vec::new();
        for s in layers.last().unwrap() {
            for m in 0..4 {
                if p.is_applicable(s, m) {
                    let mut c = *s;
                    p.apply(&mut c, m);
                    if seen.insert(p.key(&c), ()).is_none() {
                        next.push(c);
                    }
                }
            }
        }
        if next.is_empty() {
            return layers;
        }
        layers.push(next);
    }
}

fn show(name: &str, out: &SearchOutcome) {
    println!(
        "  {name:<34} cost {:>2}  generated {:>6}  expanded {:>6}  stored {:>6}",
        out.cost().map_or(-1, |c| c as i64),
        out.generated,
        out.expanded,
        out.peak_nodes
    );
}

fn lecture_example() {
    let p = Sliding::new(3, Goal::BlankLast).unwrap();
    let start = p.parse_board("2 3 0 / 1 8 6 / 5 7 4").unwrap();
    let table = DistanceTable::build(&p, 40);
    let (man, lc) = (Manhattan::new(&p), LinearConflict::new(&p));
    println!("== 1. The lecture's example: start {start}, goal {}", p.goal());
    println!(
        "optimal cost (BFS table) {}, h(start): manhattan {}, linear conflict {}",
        table.estimate(&p, &start),
        man.estimate(&p, &start),
        lc.estimate(&p, &start)
    );
    println!("lecture: A* manhattan 271 nodes / 164 expanded; A* linear conflict 198 / 120;");
    println!("         A* lookup table 39 / 21; IDA* lookup table 24 / 24");
    println!("crate convention (generated = children made, start included, duplicates too;");
    println!("expanded = nodes whose children were made, goal excluded; stored = arena size):");
    show("A* manhattan", &best_first(&p, &man, &start, Priority::AStar, Limits::default()));
    show("A* linear conflict", &best_first(&p, &lc, &start, Priority::AStar, Limits::default()));
    show("A* lookup table", &best_first(&p, &table, &start, Priority::AStar, Limits::default()));
    show("IDA* lookup table", &ida_star(&p, &table, &start, Limits::default(), 40));
    show("IDA* manhattan", &ida_star(&p, &man, &start, Limits::default(), 40));
    show("IDA* linear conflict", &ida_star(&p, &lc, &start, Limits::default(), 40));
    println!("lecture convention (nodes = distinct states put on OPEN, i.e. |OPEN ∪ CLOSED| at the end;");
    println!("expanded = nodes selected and expanded, goal excluded), moves in the crate's order U D L R:");
    println!("  {:<20} {:>14} {:>14} {:>14} {:>14}", "heuristic", "fifo", "lifo", "low-h fifo", "low-h lifo");
    let hs: [(&str, &dyn Heuristic<Sliding>); 3] =
        [("manhattan", &man), ("linear conflict", &lc), ("lookup table", &table)];
    const UDLR: [MoveId; 4] = [0, 1, 2, 3];
    for (name, h) in hs {
        let cells: Vec<String> = [Tie::Fifo, Tie::Lifo, Tie::LowHFifo, Tie::LowHLifo]
            .iter()
            .map(|&tie| {
                let r = lecture_astar(&p, h, &start, tie, UDLR);
                assert_eq!(r.cost, table.estimate(&p, &start));
                format!("{}/{}", r.nodes, r.expanded)
            })
            .collect();
        println!("  {name:<20} {:>14} {:>14} {:>14} {:>14}", cells[0], cells[1], cells[2], cells[3]);
    }
    let mut orders = Vec::new();
    for a in 0..4u8 {
        for b in (0..4u8).filter(|&b| b != a) {
            for c in (0..4u8).filter(|&c| c != a && c != b) {
                orders.push([a, b, c, 6 - a - b - c]);
            }
        }
    }
    let mut outcomes = std::collections::BTreeMap::new();
    for order in orders {
        let cells: Vec<String> = hs
            .iter()
            .map(|(_, h)| {
                let r = lecture_astar(&p, *h, &start, Tie::Fifo, order);
                format!("{}/{}", r.nodes, r.expanded)
            })
            .collect();
        *outcomes.entry(cells.join(", ")).or_insert(0) += 1;
    }
    for (cells, count) in outcomes {
        println!("  FIFO ties, {count} of the 24 orders of generating U D L R: {cells}");
    }
    println!("other heuristics, lecture convention, FIFO ties, order U D L R:");
    let pairs = PairConflicts(Manhattan::new(&p), p.goal());
    let lcc = LinearConflictCorner::new(&p);
    let others: [(&str, &dyn Heuristic<Sliding>); 2] = [
        ("linear conflict, every inverted pair +2 (not admissible in general)", &pairs),
        ("linear-conflict+corner", &lcc),
    ];
    for (name, h) in others {
        let r = lecture_astar(&p, h, &start, Tie::Fifo, UDLR);
        println!("  {name:<70} {}/{} (cost {})", r.nodes, r.expanded, r.cost);
    }
    println!();
}

/// IDS as AIMA writes it: depth-limited DFS with limits 0, 1, 2, …, no
/// pruning of the move that undoes the previous one; counts every child
/// made plus the start of each iteration. Returns (depth, nodes).
fn ids_unpruned(p: &Sliding, start: &Board) -> (usize, u64) {
    fn dls(p: &Sliding, s: &mut Board, limit: usize, nodes: &mut u64) -> bool {
        if p.is_goal(s) {
            return true;
        }
        if limit == 0 {
            return false;
        }
        for m in 0..4 {
            if p.is_applicable(s, m) {
                *nodes += 1;
                p.apply(s, m);
                let found = dls(p, s, limit - 1, nodes);
                p.undo(s, m);
                if found {
                    return true;
                }
            }
        }
        false
    }
    let mut nodes = 0;
    for limit in 0.. {
        nodes += 1;
        if dls(p, &mut start.clone(), limit, &mut nodes) {
            return (limit, nodes);
        }
    }
    unreachable!()
}

fn mean(v: &[u64]) -> f64 {
    v.iter().sum::<u64>() as f64 / v.len() as f64
}

fn ids_vs_astar() {
    let p = Sliding::new(3, Goal::BlankLast).unwrap();
    let layers = layers(&p);
    let (mis, man) = (Misplaced::new(&p), Manhattan::new(&p));
    let mut rng = ChaCha8Rng::seed_from_u64(329);
    const PER_DEPTH: usize = 100;
    const IDS_MAX_DEPTH: usize = 24;
    const AIMA_IDS_MAX_DEPTH: usize = 14;
    println!("== 2. IDS vs A* on random 8-puzzles by optimal depth ({PER_DEPTH} per depth, seed 329)");
    println!(
        "mean nodes generated (crate convention) and the EBF b* of that mean; IDS = ida_star with h = 0 (never \
         undoes the last move), up to depth {IDS_MAX_DEPTH}; IDS-all = AIMA's IDS (every move), up to depth \
         {AIMA_IDS_MAX_DEPTH}; h1 = misplaced, h2 = manhattan"
    );
    println!(
        "{:>5} | {:>12} {:>12} {:>12} {:>12} | {:>7} {:>7} {:>7} {:>7} | {:>6}",
        "depth", "IDS-all", "IDS", "A*(h1)", "A*(h2)", "IDS-all", "IDS", "A*(h1)", "A*(h2)", "secs"
    );
    for d in (2..=24).step_by(2) {
        let t = Instant::now();
        let starts: Vec<Board> = layers[d].sample(&mut rng, PER_DEPTH).copied().collect();
        let (mut ids, mut h1, mut h2, mut aima) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for s in &starts {
            if d <= AIMA_IDS_MAX_DEPTH {
                let (depth, nodes) = ids_unpruned(&p, s);
                assert_eq!(depth, d);
                aima.push(nodes);
            }
            if d <= IDS_MAX_DEPTH {
                let out = ida_star(&p, &Zero, s, Limits::default(), 40);
                assert_eq!(out.cost(), Some(d));
                ids.push(out.generated);
            }
            for (h, acc) in [(&mis as &dyn Heuristic<Sliding>, &mut h1), (&man, &mut h2)] {
                let out = best_first(&p, &h, s, Priority::AStar, Limits::default());
                assert_eq!(out.status, Status::Solved);
                assert_eq!(out.cost(), Some(d));
                acc.push(out.generated);
            }
        }
        // N excludes the start, which `generated` counts.
        let ebf = |v: &[u64]| effective_branching_factor(mean(v).round() as u64 - 1, d).unwrap_or(f64::NAN);
        let cells = |v: &[u64]| {
            if v.is_empty() {
                ("—".to_owned(), "—".to_owned())
            } else {
                (format!("{:.0}", mean(v)), format!("{:.2}", ebf(v)))
            }
        };
        let ((ids_n, ids_b), (aima_n, aima_b)) = (cells(&ids), cells(&aima));
        println!(
            "{d:>5} | {aima_n:>12} {ids_n:>12} {:>12.0} {:>12.0} | {aima_b:>7} {ids_b:>7} {:>7.2} {:>7.2} | {:>6.1}",
            mean(&h1),
            mean(&h2),
            ebf(&h1),
            ebf(&h2),
            t.elapsed().as_secs_f64()
        );
    }
    println!();
}

/// Manhattan distance plus 2 for every *pair* of tiles inverted in a line
/// they both belong to (a common textbook variant; it can overestimate
/// when a line holds three mutually inverted tiles).
struct PairConflicts(Manhattan, Board);

impl Heuristic<Sliding> for PairConflicts {
    fn estimate(&self, p: &Sliding, s: &Board) -> u32 {
        let goal = self.1.tiles();
        let home = |t: u8| goal.iter().position(|&x| x == t).unwrap();
        let mut extra = 0;
        for line in 0..3 {
            for by_row in [true, false] {
                let cells: Vec<usize> = (0..3).map(|i| if by_row { line * 3 + i } else { i * 3 + line }).collect();
                let seq: Vec<usize> = cells
                    .iter()
                    .map(|&c| s.tiles()[c])
                    .filter(|&t| t != 0 && if by_row { home(t) / 3 == line } else { home(t) % 3 == line })
                    .map(|t| if by_row { home(t) % 3 } else { home(t) / 3 })
                    .collect();
                for i in 0..seq.len() {
                    for j in i + 1..seq.len() {
                        extra += 2 * u32::from(seq[i] > seq[j]);
                    }
                }
            }
        }
        self.0.estimate(p, s) + extra
    }
    fn name(&self) -> String {
        "linear-conflict-pairs".into()
    }
    fn admissible(&self) -> bool {
        false
    }
}

/// Manhattan distance of the blank alone (the notebook's `h2`).
struct BlankDistance(Board);

impl Heuristic<Sliding> for BlankDistance {
    fn estimate(&self, _: &Sliding, s: &Board) -> u32 {
        let (a, b) = (s.blank(), self.0.blank());
        ((a / 3).abs_diff(b / 3) + (a % 3).abs_diff(b % 3)) as u32
    }
    fn name(&self) -> String {
        "blank-distance".into()
    }
    fn admissible(&self) -> bool {
        true
    }
}

fn notebook() {
    println!("== 3. The notebook's instances: start 1 2 3 / 4 0 5 / 6 7 8 (nodes generated, crate convention)");
    println!(
        "{:<22} {:>28} {:>28} {:>28}",
        "", "goal 1 2 3/4 0 5/6 7 8", "goal 1 2 3/4 5 8/6 0 7", "goal 1 0 3/4 5 8/2 6 7"
    );
    let goals = ["1 2 3 4 0 5 6 7 8", "1 2 3 4 5 8 6 0 7", "1 0 3 4 5 8 2 6 7"];
    let rows = ["IDS", "RBFS h=0", "RBFS blank distance", "RBFS manhattan"];
    for (i, row) in rows.iter().enumerate() {
        print!("{row:<22}");
        for g in goals {
            let goal: Goal = g.parse().unwrap();
            let p = Sliding::new(3, goal).unwrap();
            let start = p.parse_board("1 2 3 / 4 0 5 / 6 7 8").unwrap();
            let out = match i {
                0 => ida_star(&p, &Zero, &start, Limits::default(), 40),
                1 => rbfs(&p, &Zero, &start, Limits::default(), 40),
                2 => rbfs(&p, &BlankDistance(p.goal()), &start, Limits::default(), 40),
                _ => rbfs(&p, &Manhattan::new(&p), &start, Limits::default(), 40),
            };
            let d = out.cost().unwrap();
            let b = out.ebf().map_or("-".to_owned(), |b| format!("{b:.3}"));
            print!(" {:>28}", format!("d={d} N={} b*={b}", out.generated));
        }
        println!();
    }
    println!("notebook (its own counting: children created, root excluded, no pruning of the parent move):");
    println!(
        "  IDS 0/0, 3/43, 11/225850; RBFS h=0 0/0, 3/116, 11/643246; blank 3/51, 11/100046; manhattan 3/9, 11/3944"
    );
}

fn main() {
    let t = Instant::now();
    lecture_example();
    ids_vs_astar();
    notebook();
    println!("total {:.1} s", t.elapsed().as_secs_f64());
}
