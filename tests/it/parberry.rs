//! Parberry's real-time algorithm for the (n²−1)-puzzle and the grid model
//! under it, against facts: every solution replays to the goal on seeded
//! random boards for every n = 3 … 30 (and n = 2, and the goal itself);
//! every length is at least the Manhattan distance, of its parity, and
//! within the leading term 5n³ of Parberry's worst-case bound (also on
//! boards built to be far from the goal); the exact 3×3 stage matches
//! IDA*'s optimal length; the grid model agrees with `Board` for n ≤ 8;
//! unsolvable and malformed boards are refused; and `solve parberry`
//! end to end (random 15-puzzles, a 10×10, Korf's blank-first
//! set, bad input).

use cube_oracle::heuristics::Heuristic;
use cube_oracle::heuristics::sliding::Manhattan;
use cube_oracle::puzzle::{MoveId, Puzzle, replay};
use cube_oracle::search::parberry::{Parberry, ParberryError, Solution, bound};
use cube_oracle::search::{DistanceTable, Limits, ida_star};
use cube_oracle::sliding::grid::{Grid, GridError, opposite};
use cube_oracle::sliding::{Board, Goal, MOVE_NAMES, Sliding};
use cube_oracle::solve::boards;
use rand::rngs::ChaCha8Rng;
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

fn solver() -> &'static Parberry {
    static SOLVER: OnceLock<Parberry> = OnceLock::new();
    SOLVER.get_or_init(Parberry::new)
}

/// Checks everything a solution of `g` must satisfy and returns its length.
fn check(g: &Grid, sol: &Solution) -> usize {
    let len = sol.moves.len();
    assert!(g.replay(&sol.moves).unwrap().is_goal(), "does not replay: {g}");
    let h = g.manhattan() as usize;
    assert!(len >= h && (len - h).is_multiple_of(2), "length {len}, Manhattan {h}: {g}");
    assert!((len as u64) <= bound(g.n()), "length {len} > 5n³ = {}: {g}", bound(g.n()));
    assert_eq!(sol.greedy_moves + sol.exact_moves, len);
    assert_eq!(sol.bfs_routes, 0, "a blank route needed the safety net: {g}");
    len
}

/// `g`, with its last two non-blank tiles swapped if it cannot reach the goal.
fn solvable(g: Grid) -> Grid {
    if g.is_solvable() {
        return g;
    }
    let mut t = g.tiles().to_vec();
    let cells: Vec<usize> = (0..t.len()).filter(|&c| t[c] != 0).collect();
    t.swap(cells[cells.len() - 1], cells[cells.len() - 2]);
    let g = Grid::from_tiles(&t).unwrap();
    assert!(g.is_solvable());
    g
}

#[test]
fn every_solution_replays_to_the_goal_for_n_3_to_30() {
    let mut rng = ChaCha8Rng::seed_from_u64(2026);
    for n in 3..=30 {
        let boards = match n {
            3..=10 => 6,
            11..=20 => 3,
            _ => 2,
        };
        for _ in 0..boards {
            let g = Grid::random_solvable(n, &mut rng).unwrap();
            let sol = solver().solve(&g).unwrap();
            check(&g, &sol);
            if n <= 8 {
                // Replayed once more through the other model.
                let p = Sliding::new(n, Goal::BlankLast).unwrap();
                let end = replay(&p, &g.to_board().unwrap(), &sol.moves).expect("legal on Board");
                assert!(p.is_goal(&end));
            }
        }
    }
}

#[test]
fn far_boards_stay_within_five_n_cubed() {
    // Every tile on the half-turn image of its goal cell (the largest
    // Manhattan distance a board can have, n³ − O(n) for even n), and the
    // transposed goal; parity repaired by one swap where needed.
    for n in 3..=30 {
        let cells = n * n;
        let far: Vec<u16> = (0..cells).map(|c| if c == 0 { 0 } else { (cells - c) as u16 }).collect();
        let transposed: Vec<u16> = (0..cells).map(|c| ((c % n) * n + c / n + 1) as u16 % cells as u16).collect();
        for tiles in [far, transposed] {
            let g = solvable(Grid::from_tiles(&tiles).unwrap());
            let len = check(&g, &solver().solve(&g).unwrap());
            assert!(len > 0);
        }
    }
}

#[test]
fn the_smallest_boards_and_the_goal() {
    // All 12 solvable 2×2 boards are solved optimally (the exact stage is
    // the whole board): lengths equal the BFS distances.
    let p = Sliding::new(2, Goal::BlankLast).unwrap();
    let table = DistanceTable::build(&p, 40);
    let mut perm = vec![0u16, 1, 2, 3];
    let mut solvable_boards = 0;
    for _ in 0..24 {
        let g = Grid::from_tiles(&perm).unwrap();
        match solver().solve(&g) {
            Ok(sol) => {
                solvable_boards += 1;
                let d = table.distance(&p, &g.to_board().unwrap()).unwrap();
                assert_eq!(check(&g, &sol), usize::from(d), "{g}");
            }
            Err(ParberryError::Grid(GridError::Unsolvable { n: 2, .. })) => {
                assert!(table.distance(&p, &g.to_board().unwrap()).is_none());
            }
            Err(e) => panic!("{g}: {e}"),
        }
        next_permutation(&mut perm);
    }
    assert_eq!(solvable_boards, 12);
    for n in 2..=40 {
        let sol = solver().solve(&Grid::goal(n).unwrap()).unwrap();
        assert!(sol.moves.is_empty(), "goal of width {n}");
    }
}

fn next_permutation(v: &mut [u16]) {
    let Some(i) = (1..v.len()).rev().find(|&i| v[i - 1] < v[i]) else {
        v.reverse();
        return;
    };
    let j = (i..v.len()).rev().find(|&j| v[j] > v[i - 1]).unwrap();
    v.swap(i - 1, j);
    v[i..].reverse();
}

fn optimal_8_puzzle(b: &Board) -> usize {
    let p = Sliding::new(3, Goal::BlankLast).unwrap();
    let out = ida_star(&p, &Manhattan::new(&p), b, Limits::default(), 40);
    out.cost().unwrap()
}

#[test]
fn the_exact_stage_is_optimal() {
    let p = Sliding::new(3, Goal::BlankLast).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    for _ in 0..40 {
        let b = p.random_solvable(&mut rng);
        let g = Grid::from_board(&b);
        let sol = solver().solve(&g).unwrap();
        assert_eq!(check(&g, &sol), optimal_8_puzzle(&b), "{b}");
        assert_eq!(sol.exact_board, b);
    }
    // On larger boards the last 3×3 block, relabelled, is solved optimally.
    for n in 4..=9 {
        for _ in 0..3 {
            let g = Grid::random_solvable(n, &mut rng).unwrap();
            let sol = solver().solve(&g).unwrap();
            check(&g, &sol);
            assert_eq!(sol.exact_moves, optimal_8_puzzle(&sol.exact_board), "{g}");
            assert!(p.is_solvable(&sol.exact_board));
        }
    }
}

#[test]
fn the_last_two_tiles_of_a_line_come_home_from_every_trap() {
    // 4×4 boards that reach the special cases of the last two tiles of a
    // row or column: `b` already in the pocket beside `a` (row 0: 1 2 4 3;
    // column 0: 1 5 13 9), and the blank shut in the pocket by `b`.
    for text in [
        "1 2 4 3 / 6 5 7 8 / 9 10 11 12 / 13 14 15 0",
        "1 2 3 4 / 5 6 7 8 / 13 10 11 12 / 9 15 14 0",
        "1 2 0 3 / 5 6 4 8 / 9 10 11 12 / 13 14 15 7",
        "1 2 3 4 / 5 6 7 8 / 0 13 11 12 / 9 10 14 15",
        "2 1 4 3 / 5 6 7 8 / 9 10 11 12 / 13 14 15 0",
    ] {
        let g = solvable(text.parse().unwrap());
        check(&g, &solver().solve(&g).unwrap());
    }
    // Every placement of the last two tiles of the first row of a 5×5
    // (the rest shuffled, seeded).
    let mut rng = ChaCha8Rng::seed_from_u64(55);
    for a_cell in 3..25 {
        for b_cell in 3..25 {
            if a_cell == b_cell {
                continue;
            }
            let mut rest: Vec<u16> = (0..25).filter(|&t| t != 4 && t != 5 && !(1..=3).contains(&t)).collect();
            rest.shuffle(&mut rng);
            let mut tiles = vec![1, 2, 3];
            tiles.resize(25, 0);
            let mut it = rest.into_iter();
            for (cell, t) in tiles.iter_mut().enumerate().skip(3) {
                *t = if cell == a_cell {
                    4
                } else if cell == b_cell {
                    5
                } else {
                    it.next().unwrap()
                };
            }
            let g = solvable(Grid::from_tiles(&tiles).unwrap());
            check(&g, &solver().solve(&g).unwrap());
        }
    }
}

#[test]
fn the_grid_model_agrees_with_board_up_to_8x8() {
    for n in 2..=8 {
        let p = Sliding::new(n, Goal::BlankLast).unwrap();
        let h = Manhattan::new(&p);
        // The same seed draws the same solvable boards in both models.
        let (mut r1, mut r2) = (ChaCha8Rng::seed_from_u64(n as u64), ChaCha8Rng::seed_from_u64(n as u64));
        for _ in 0..20 {
            let b = p.random_solvable(&mut r1);
            let g = Grid::random_solvable(n, &mut r2).unwrap();
            assert_eq!(g, Grid::from_board(&b));
            assert_eq!(g.to_board().unwrap(), b);
        }
        let mut rng = ChaCha8Rng::seed_from_u64(100 + n as u64);
        for _ in 0..30 {
            // Any arrangement: solvability, inversions, Manhattan, text.
            let mut tiles: Vec<u8> = (0..(n * n) as u8).collect();
            tiles.shuffle(&mut rng);
            let mut b = Board::from_tiles(&tiles).unwrap();
            let mut g = Grid::from_board(&b);
            assert_eq!(g.is_solvable(), p.is_solvable(&b), "{b}");
            assert_eq!(g.inversions(), b.inversions() as u64);
            assert_eq!(g.manhattan(), u64::from(h.estimate(&p, &b)), "{b}");
            assert_eq!(g.to_string(), b.to_string());
            assert_eq!(g.to_string().parse::<Grid>().unwrap(), g);
            // Moves map to moves, illegal ones included.
            for _ in 0..50 {
                let m: MoveId = rng.random_range(0..4);
                let legal = p.is_applicable(&b, m);
                assert_eq!(g.apply(m), legal, "{} on {b}", MOVE_NAMES[usize::from(m)]);
                if legal {
                    p.apply(&mut b, m);
                }
                assert_eq!(Grid::from_board(&b), g);
            }
        }
    }
    assert!(Grid::goal(9).unwrap().to_board().is_err());
}

#[test]
fn mean_manhattan_of_all_solvable_boards_is_two_thirds_n_cubed_minus_five_thirds_n_plus_one() {
    // Each tile is uniformly placed over the n² cells among the solvable
    // boards, which gives 2n³/3 − 5n/3 + 1: 3 for the 12 boards of the
    // 2×2, 14 for the 181,440 of the 8-puzzle (exhaustively here).
    for (n, boards, mean) in [(2usize, 12u64, 3u64), (3, 181_440, 14)] {
        let mut perm: Vec<u16> = (0..(n * n) as u16).collect();
        let (mut count, mut total) = (0u64, 0u64);
        loop {
            let g = Grid::from_tiles(&perm).unwrap();
            if g.is_solvable() {
                count += 1;
                total += g.manhattan();
            }
            next_permutation(&mut perm);
            if perm.windows(2).all(|w| w[0] < w[1]) {
                break;
            }
        }
        assert_eq!((count, total), (boards, boards * mean), "n = {n}");
    }
}

#[test]
fn unsolvable_and_malformed_boards_are_refused() {
    for n in [2, 3, 4, 10, 101] {
        let mut t = Grid::goal(n).unwrap().tiles().to_vec();
        t.swap(0, 1);
        let g = Grid::from_tiles(&t).unwrap();
        let e = solver().solve(&g).unwrap_err();
        assert!(matches!(e, ParberryError::Grid(GridError::Unsolvable { .. })), "{e:?}");
        let msg = e.to_string();
        assert!(msg.contains("unsolvable") && msg.contains(&format!("width {n}")), "{msg}");
    }
    for (text, needle) in [
        ("1 2 3", "not n²"),
        ("1 2 3 / 4 5 6 / 7 0", "not n²"),
        ("1 2 3 4 / 5 6 7 8 0", "row 1 has 4 tiles, expected 3"),
        ("1 2 x 0", "\"x\" is not a tile number"),
        ("1 1 2 0", "tile 1 appears twice"),
        ("1 2 3 9", "tile 9 is out of range 0..=3"),
        ("-1 2 3 0", "tile -1 is out of range"),
        ("", "0 tiles"),
    ] {
        let e = text.parse::<Grid>().unwrap_err().to_string();
        assert!(e.contains(needle), "{text:?}: {e}");
    }
    assert_eq!(Grid::parse("1 2 3 0", Some(3)).unwrap_err(), GridError::WrongCount { n: 3, expected: 9, found: 4 });
    assert_eq!(Grid::goal(1).unwrap_err(), GridError::BadWidth { n: 1 });
    assert_eq!(Grid::goal(257).unwrap_err(), GridError::BadWidth { n: 257 });
    let mut g = Grid::goal(3).unwrap();
    let e = g.apply_all(&[0, 3]).unwrap_err();
    assert_eq!(e.to_string(), "move 1 (R) is illegal: the blank at row 1, column 2 is on that border");
    assert!(matches!(g.apply_all(&[7]), Err(GridError::UnknownMove { step: 0, id: 7 })));
}

#[test]
fn blank_first_boards_are_solved_by_a_half_turn() {
    // Korf's first ten 15-puzzles (blank-first goal, known optimal lengths).
    let set = boards::load("korf100-10", 4, &Goal::BlankFirst).unwrap();
    let blank_first_goal = Grid::goal(4).unwrap().half_turn();
    for inst in &set.instances {
        let g = Grid::from_tiles(&inst.tiles.iter().map(|&t| u16::from(t)).collect::<Vec<_>>()).unwrap();
        let sol = solver().solve(&g.half_turn()).unwrap();
        let moves: Vec<MoveId> = sol.moves.iter().map(|&m| opposite(m)).collect();
        assert_eq!(g.replay(&moves).unwrap(), blank_first_goal, "{}", inst.id);
        let (len, opt) = (moves.len(), inst.optimal.unwrap() as usize);
        assert!(len >= opt && (len - opt).is_multiple_of(2), "{}: {len} vs optimal {opt}", inst.id);
    }
}

// ---- the binary ----

fn out_root(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cube-oracle-parberry-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

use crate::common::solve_into as solve;

/// The rows of a CSV file as header → value maps (no quoted commas in
/// the columns read here).
fn rows(path: &Path) -> Vec<std::collections::HashMap<String, String>> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Vec<String> = lines.next().unwrap().split(',').map(str::to_string).collect();
    lines.map(|l| header.iter().cloned().zip(l.split(',').map(|v| v.trim_matches('"').to_string())).collect()).collect()
}

fn moves_of(solution: &str) -> Vec<MoveId> {
    solution.split_whitespace().map(|m| MOVE_NAMES.iter().position(|&n| n == m).unwrap() as MoveId).collect()
}

#[test]
fn cli_solves_random_15_puzzles_and_a_10x10_with_replayed_solutions() {
    let out = out_root("random");
    let (code, stdout, err) = solve(&["parberry", "--puzzle", "puzzle15", "--random", "5", "--seed", "1"], &out);
    assert_eq!(code, 0, "{err}");
    assert!(stdout.contains("5 instances, all solved and verified"), "{stdout}");
    let dir = out.join("puzzle15-random-5-seed1-parberry");
    let table = rows(&dir.join("instances.csv"));
    assert_eq!(table.len(), 5);
    // The same boards every other method draws for this seed.
    let same = boards::random(&Sliding::new(4, Goal::BlankLast).unwrap(), 5, 1);
    for (row, inst) in table.iter().zip(&same) {
        let g: Grid = row["board"].parse().unwrap();
        assert_eq!(g.tiles(), inst.tiles.iter().map(|&t| u16::from(t)).collect::<Vec<_>>());
        let moves = moves_of(&row["solution"]);
        assert!(g.replay(&moves).unwrap().is_goal());
        assert_eq!(row["length"], moves.len().to_string());
        assert_eq!(
            (row["puzzle"].as_str(), row["method"].as_str(), row["status"].as_str()),
            ("puzzle15", "parberry", "solved")
        );
        assert_eq!((row["n"].as_str(), row["bound"].as_str()), ("4", "320"));
        assert_eq!(row["manhattan"], g.manhattan().to_string());
    }
    assert!(dir.join("summary.csv").exists());

    let (code, _, err) = solve(&["parberry", "--puzzle", "puzzle99", "--random", "2", "--seed", "3"], &out);
    assert_eq!(code, 0, "{err}");
    for row in rows(&out.join("puzzle99-random-2-seed3-parberry/instances.csv")) {
        let g: Grid = row["board"].parse().unwrap();
        assert_eq!((g.n(), row["n"].as_str()), (10, "10"));
        assert!(g.replay(&moves_of(&row["solution"])).unwrap().is_goal());
    }
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn cli_solves_korf_blank_first_set_and_single_boards() {
    let out = out_root("korf");
    let (code, stdout, err) = solve(&["parberry", "--puzzle", "puzzle15", "--testset", "korf100-10"], &out);
    assert_eq!(code, 0, "{err}");
    assert!(stdout.contains("× optimal"), "{stdout}");
    let goal = Grid::goal(4).unwrap().half_turn();
    let table = rows(&out.join("puzzle15-blank-first-korf100-10-parberry/instances.csv"));
    assert_eq!(table.len(), 10);
    for row in &table {
        assert_eq!(row["puzzle"], "puzzle15-blank-first");
        let g: Grid = row["board"].parse().unwrap();
        assert_eq!(g.replay(&moves_of(&row["solution"])).unwrap(), goal);
        assert!(row["length"].parse::<u32>().unwrap() >= row["optimal"].parse::<u32>().unwrap());
    }
    // One 8-puzzle board, width from the count: the optimal solution.
    let board = "2 3 0 / 1 8 6 / 5 7 4";
    let (code, stdout, err) = solve(&["parberry", "--board", board], &out);
    assert_eq!(code, 0, "{err}");
    let d = optimal_8_puzzle(&board.parse().unwrap());
    assert!(stdout.contains(&format!("({d} moves; verified)")), "{stdout}");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn cli_refuses_bad_input_with_a_message() {
    let out = out_root("bad");
    // Refused by the parser (exit status 2): flags of other modes.
    let parse_errors = [
        (
            vec!["--puzzle", "puzzle15", "--random", "1", "--heuristic", "manhattan"],
            "unexpected argument '--heuristic'",
        ),
        (vec!["--puzzle", "puzzle15", "--facelets", "x"], "unexpected argument '--facelets'"),
        (vec!["--puzzle", "puzzle15", "--random", "1", "--goal", "snail"], "invalid value 'snail' for '--goal"),
    ];
    // Refused by the library (exit status 1) with the rule broken.
    for (args, needle, status) in [
        (vec!["--puzzle", "puzzle10", "--random", "1"], "10 is not n²−1"),
        (vec!["--puzzle", "puzzle66563", "--random", "1"], "width 258 is out of range 2..=256"),
        (vec!["--puzzle", "puzzle99999999999999999999999", "--random", "1"], "--puzzle puzzle99999999999999999999999"),
        (vec!["--puzzle", "cube3", "--random", "1"], "puzzle<N> with N = n²−1"),
        (vec!["--random", "1"], "--puzzle"),
        (vec!["--puzzle", "puzzle8", "--board", "1 2 3 / 4 5 6 / 8 7 0"], "unsolvable"),
        (vec!["--puzzle", "puzzle15", "--board", "1 2 3 / 4 5 6 / 7 8 0"], "expected 16 tiles"),
        (vec!["--puzzle", "puzzle99", "--testset", "korf100"], "test sets exist for boards up to 8×8"),
    ]
    .into_iter()
    .map(|(args, needle)| (args, needle, 1))
    .chain(parse_errors.into_iter().map(|(args, needle)| (args, needle, 2)))
    {
        let mut all = vec!["parberry"];
        all.extend(&args);
        let (code, _, err) = solve(&all, &out);
        assert_eq!(code, status, "{args:?}: {err}");
        assert!(err.contains(needle) && !err.contains("panicked"), "{args:?}: {err}");
    }
    assert!(!out.exists(), "nothing is written for a refused request");
    let _ = std::fs::remove_dir_all(&out);
}
