//! Tests of the n×n sliding puzzle: breadth-first search against the
//! published 8-puzzle distance counts, solvability against reachability,
//! moves, parsing, encoding, goals and keys.

use std::collections::{HashMap, HashSet};

use cube_oracle::puzzle::{MoveId, Puzzle, Recent};
use cube_oracle::sliding::{Board, DOWN, Goal, LEFT, RIGHT, Sliding, SlidingError, UP, infer_n};
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

const DISTANCE_COUNTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/puzzle8-distance-counts.tsv");

fn sliding(n: usize, goal: Goal) -> Sliding {
    Sliding::new(n, goal).expect("valid puzzle")
}

fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// Breadth-first search from the goal through the `Puzzle` trait: the set of
/// reachable keys and the number of states at each depth.
fn bfs<P: Puzzle>(puzzle: &P) -> (HashSet<P::Key>, Vec<usize>) {
    let goal = puzzle.goal();
    let mut seen = HashSet::from([puzzle.key(&goal)]);
    let mut frontier = vec![goal];
    let mut counts = Vec::new();
    while !frontier.is_empty() {
        counts.push(frontier.len());
        let mut next = Vec::new();
        for state in &frontier {
            for m in 0..puzzle.num_moves() as MoveId {
                if puzzle.is_applicable(state, m) {
                    let mut child = state.clone();
                    puzzle.apply(&mut child, m);
                    if seen.insert(puzzle.key(&child)) {
                        next.push(child);
                    }
                }
            }
        }
        frontier = next;
    }
    (seen, counts)
}

/// Calls `f` on every permutation of `items` (Heap's algorithm).
fn for_each_permutation(items: &mut [u8], f: &mut impl FnMut(&[u8])) {
    let mut c = vec![0; items.len()];
    f(items);
    let mut i = 0;
    while i < items.len() {
        if c[i] < i {
            items.swap(if i % 2 == 0 { 0 } else { c[i] }, i);
            f(items);
            c[i] += 1;
            i = 0;
        } else {
            c[i] = 0;
            i += 1;
        }
    }
}

/// A random walk of `len` applicable moves from `board`.
fn walk(puzzle: &Sliding, mut board: Board, rng: &mut ChaCha8Rng, len: usize) -> Board {
    let mut done = 0;
    while done < len {
        let m = rng.random_range(0..4) as MoveId;
        if puzzle.is_applicable(&board, m) {
            puzzle.apply(&mut board, m);
            done += 1;
        }
    }
    board
}

fn is_permutation(board: &Board) -> bool {
    let mut tiles = board.tiles().to_vec();
    tiles.sort_unstable();
    tiles.iter().enumerate().all(|(i, &t)| usize::from(t) == i) && board.tiles()[board.blank()] == 0
}

/// Swaps the tiles of the first two non-blank cells.
fn swap_two_tiles(puzzle: &Sliding, board: &Board) -> Board {
    let mut tiles = board.tiles().to_vec();
    let cells: Vec<usize> = (0..tiles.len()).filter(|&c| tiles[c] != 0).take(2).collect();
    tiles.swap(cells[0], cells[1]);
    puzzle.board(&tiles).expect("still a permutation")
}

fn all_goals() -> Vec<Goal> {
    vec![Goal::BlankLast, Goal::BlankFirst, Goal::Snail]
}

#[test]
fn bfs_reproduces_8_puzzle_distance_counts() {
    let text = std::fs::read_to_string(DISTANCE_COUNTS).expect("read distance counts");
    let mut expected: HashMap<String, Vec<usize>> = HashMap::new();
    for line in text.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        let fields: Vec<&str> = line.split('\t').collect();
        assert_eq!(fields.len(), 3, "bad line {line:?}");
        let counts = expected.entry(fields[0].to_owned()).or_default();
        assert_eq!(fields[1].parse::<usize>().unwrap(), counts.len(), "depths out of order");
        counts.push(fields[2].parse().unwrap());
    }
    let goals = [
        ("blank-last", Goal::BlankLast),
        ("blank-first", Goal::BlankFirst),
        ("blank-center", "1 2 3 4 0 5 6 7 8".parse().unwrap()),
    ];
    assert_eq!(expected.len(), goals.len(), "goals in the TSV");
    for (name, goal) in goals {
        let (seen, counts) = bfs(&sliding(3, goal));
        assert_eq!(counts, expected[name], "depth counts for {name}");
        assert_eq!(seen.len(), 181_440, "reachable states for {name}");
        assert_eq!(counts.iter().sum::<usize>(), 181_440);
    }
    assert_eq!(expected["blank-last"].len() - 1, 31, "blank-last diameter");
}

#[test]
fn solvability_matches_reachability_on_every_3x3_board() {
    for goal in [Goal::BlankLast, Goal::Snail] {
        let puzzle = sliding(3, goal);
        let (reachable, _) = bfs(&puzzle);
        let mut solvable = 0;
        let mut tiles: Vec<u8> = (0..9).collect();
        for_each_permutation(&mut tiles, &mut |tiles| {
            let board = puzzle.board(tiles).unwrap();
            let ok = puzzle.check_solvable(&board).is_ok();
            assert_eq!(ok, reachable.contains(&puzzle.key(&board)), "{board:?}");
            solvable += usize::from(ok);
        });
        assert_eq!(solvable, 181_440);
    }
}

#[test]
fn solvability_matches_reachability_on_every_2x2_board() {
    for goal in all_goals() {
        let puzzle = sliding(2, goal);
        let (reachable, _) = bfs(&puzzle);
        assert_eq!(reachable.len(), 12);
        let mut boards = 0;
        let mut tiles: Vec<u8> = (0..4).collect();
        for_each_permutation(&mut tiles, &mut |tiles| {
            let board = puzzle.board(tiles).unwrap();
            assert_eq!(puzzle.is_solvable(&board), reachable.contains(&board.key()));
            boards += 1;
        });
        assert_eq!(boards, 24);
    }
}

#[test]
fn walks_stay_solvable_and_swaps_flip_solvability() {
    let mut rng = rng(4);
    let custom: Goal = "3 1 2 0 / 4 5 6 7 / 8 9 10 11 / 12 13 14 15".parse().unwrap();
    for n in 2..=8 {
        let mut goals = all_goals();
        if n == 4 {
            goals.push(custom.clone());
        }
        for goal in goals {
            let puzzle = sliding(n, goal);
            for _ in 0..20 {
                let board = walk(&puzzle, puzzle.goal(), &mut rng, 10 * n * n);
                assert_eq!(puzzle.check_solvable(&board), Ok(()), "{board:?}");
                let swapped = swap_two_tiles(&puzzle, &board);
                assert!(matches!(puzzle.check_solvable(&swapped), Err(SlidingError::Unsolvable { .. })), "{swapped:?}");
                let other = walk(&puzzle, swapped, &mut rng, 50);
                assert!(!puzzle.is_solvable(&other));
                assert!(puzzle.is_solvable(&swap_two_tiles(&puzzle, &other)));
            }
        }
    }
}

#[test]
fn unsolvable_messages_explain_the_parity() {
    let p8 = sliding(3, Goal::BlankLast);
    let err = p8.check_solvable(&p8.parse_board("1 2 3 / 4 5 6 / 8 7 0").unwrap()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "unsolvable: inversion parity is odd but the goal's is even \
         (odd board width 3: parities must match)"
    );
    let p15 = sliding(4, Goal::BlankLast);
    let loyd = p15.parse_board("1 2 3 4 / 5 6 7 8 / 9 10 11 12 / 13 15 14 0").unwrap();
    let message = p15.check_solvable(&loyd).unwrap_err().to_string();
    for part in ["unsolvable", "blank row", "is even", "goal's is odd", "even board width 4"] {
        assert!(message.contains(part), "{message:?} lacks {part:?}");
    }
    let err = p15.check_solvable(&p8.goal()).unwrap_err();
    assert_eq!(err, SlidingError::WrongWidth { n: 4, found: 3 });
    assert_eq!(err.to_string(), "board is 3×3 but the puzzle is 4×4");
}

#[test]
fn random_solvable_boards_are_uniform_and_solvable() {
    let mut rng = rng(12);
    let puzzle = sliding(2, Goal::BlankLast);
    let mut counts: HashMap<Board, usize> = HashMap::new();
    for _ in 0..12_000 {
        *counts.entry(puzzle.random_solvable(&mut rng)).or_default() += 1;
    }
    assert_eq!(counts.len(), 12, "all and only the 12 solvable 2×2 boards");
    for (board, &count) in &counts {
        assert!(puzzle.is_solvable(board));
        assert!((850..=1150).contains(&count), "{board:?} drawn {count} times of ~1000");
    }
    for n in 2..=8 {
        for goal in all_goals() {
            let puzzle = sliding(n, goal);
            let mut blanks = HashSet::new();
            for _ in 0..200 {
                let board = puzzle.random_solvable(&mut rng);
                assert!(is_permutation(&board) && board.n() == n);
                assert_eq!(puzzle.check_solvable(&board), Ok(()));
                blanks.insert(board.blank());
            }
            assert!(blanks.len() > 1, "the blank moves around");
        }
    }
}

#[test]
fn apply_then_undo_restores_the_board() {
    let mut rng = rng(7);
    for n in 2..=8 {
        let puzzle = sliding(n, Goal::BlankLast);
        let mut board = puzzle.random_solvable(&mut rng);
        let start = board;
        let mut path = Vec::new();
        while path.len() < 500 {
            let m = rng.random_range(0..4) as MoveId;
            if !puzzle.is_applicable(&board, m) {
                continue;
            }
            let before = board;
            puzzle.apply(&mut board, m);
            assert_ne!(board, before);
            assert!(is_permutation(&board), "duplicated tiles in {board:?}");
            let mut undone = board;
            puzzle.undo(&mut undone, m);
            assert_eq!(undone, before);
            path.push(m);
        }
        for &m in path.iter().rev() {
            assert!(puzzle.is_applicable(&board, puzzle.inverse(m)));
            puzzle.undo(&mut board, m);
        }
        assert_eq!(board, start);
    }
}

#[test]
fn moves_slide_the_blank_and_respect_borders() {
    for n in 2..=8 {
        let puzzle = sliding(n, Goal::BlankFirst);
        for cell in 0..n * n {
            // The blank-first goal with the blank swapped into `cell`.
            let mut tiles: Vec<u8> = (0..(n * n) as u8).collect();
            tiles.swap(0, cell);
            let board = puzzle.board(&tiles).unwrap();
            assert_eq!(board.blank(), cell);
            let (row, col) = (cell / n, cell % n);
            let expected = [
                (UP, row > 0, cell.wrapping_sub(n)),
                (DOWN, row + 1 < n, cell + n),
                (LEFT, col > 0, cell.wrapping_sub(1)),
                (RIGHT, col + 1 < n, cell + 1),
            ];
            for (m, applicable, target) in expected {
                assert_eq!(puzzle.is_applicable(&board, m), applicable, "n={n} cell={cell} m={m}");
                if applicable {
                    let mut moved = board;
                    puzzle.apply(&mut moved, m);
                    assert_eq!(moved.blank(), target);
                    assert_eq!(moved.tiles()[target], 0);
                    assert_eq!(moved.tiles()[cell], board.tiles()[target]);
                }
            }
            for m in 4..=u8::MAX {
                assert!(!puzzle.is_applicable(&board, m));
            }
        }
    }
}

#[test]
fn move_names_inverses_and_redundancy() {
    let puzzle = sliding(4, Goal::BlankLast);
    assert_eq!(puzzle.num_moves(), 4);
    let names: Vec<&str> = (0..4).map(|m| puzzle.move_name(m)).collect();
    assert_eq!(names, ["U", "D", "L", "R"]);
    assert_eq!([UP, DOWN, LEFT, RIGHT].map(|m| puzzle.inverse(m)), [DOWN, UP, RIGHT, LEFT]);
    for m in 0..4 {
        assert!(!puzzle.is_redundant(Recent::default(), m));
        for last in 0..4 {
            for before in [None, Some(0), Some(1), Some(2), Some(3)] {
                let recent = Recent { last: Some(last), before_last: before };
                assert_eq!(puzzle.is_redundant(recent, m), puzzle.inverse(m) == last);
            }
        }
    }
    // `U` moves the blank up: the tile above it slides down.
    let mut board = puzzle.goal();
    puzzle.apply(&mut board, UP);
    assert_eq!(board.to_string(), "1 2 3 4 / 5 6 7 8 / 9 10 11 0 / 13 14 15 12");
    puzzle.apply(&mut board, LEFT);
    assert_eq!(board.to_string(), "1 2 3 4 / 5 6 7 8 / 9 10 0 11 / 13 14 15 12");
}

#[test]
fn parse_reads_all_separators_and_display_round_trips() {
    let puzzle = sliding(3, Goal::BlankLast);
    let board = puzzle.parse_board("2 3 0 / 1 8 6 / 5 7 4").unwrap();
    assert_eq!(board.tiles(), [2, 3, 0, 1, 8, 6, 5, 7, 4]);
    assert_eq!(board.blank(), 2);
    assert_eq!(board.get(1, 1), Some(8));
    assert_eq!(board.get(3, 0), None);
    for text in ["2,3,0,1,8,6,5,7,4", "2 3 0\n1 8 6\n5 7 4", " 2, 3, 0/1,8,6 /5 7 4 "] {
        assert_eq!(puzzle.parse_board(text), Ok(board), "{text:?}");
    }
    assert_eq!(board.to_string(), "2 3 0 / 1 8 6 / 5 7 4");
    assert_eq!(format!("{board:#}"), "2 3 .\n1 8 6\n5 7 4");
    assert_eq!("2 3 0 1 8 6 5 7 4".parse::<Board>(), Ok(board));
    let mut rng = rng(3);
    for n in 2..=8 {
        let puzzle = sliding(n, Goal::Snail);
        let board = puzzle.random_solvable(&mut rng);
        assert_eq!(puzzle.parse_board(&board.to_string()), Ok(board));
        assert_eq!(board.to_string().parse::<Board>(), Ok(board));
        assert_eq!(Board::from_tiles(board.tiles()), Ok(board));
    }
}

#[test]
fn parse_errors_name_the_offending_value() {
    let puzzle = sliding(3, Goal::BlankLast);
    let cases = [
        ("1 2 3 4 5 6 7 8", "expected 9 tiles for a 3×3 board, found 8"),
        ("1 2 3 4 5 5 7 8 0", "tile 5 appears twice"),
        ("1 2 3 4 5 6 7 9 0", "tile 9 is out of range 0..=8"),
        ("1 2 3 4 5 6 7 -8 0", "tile -8 is out of range 0..=8"),
        ("1 2 3 4 x 6 7 8 0", "\"x\" is not a tile number"),
        ("1 2 3 / 4 5 6 7 / 8 0", "row 2 has 4 tiles, expected 3"),
        ("", "expected 9 tiles for a 3×3 board, found 0"),
    ];
    for (text, message) in cases {
        let err = puzzle.parse_board(text).unwrap_err();
        assert_eq!(err.to_string(), message, "{text:?}");
    }
    assert_eq!(puzzle.parse_board("1 2 3 4 5 5 7 8 0"), Err(SlidingError::Duplicate { tile: 5 }));
    assert_eq!(infer_n(16), Ok(4));
    assert_eq!(infer_n(64), Ok(8));
    for count in [0, 1, 10, 81] {
        let err = infer_n(count).unwrap_err();
        assert_eq!(err, SlidingError::NotSquare { count });
        assert!(err.to_string().contains(&format!("{count} tiles")));
    }
    let err = "1 2 3 4 5 6 7 8 9 0".parse::<Board>().unwrap_err();
    assert!(err.to_string().contains("10 tiles is not a perfect square"), "{err}");
    assert!(Board::from_tiles(&[1, 2, 3]).is_err());
    assert_eq!(puzzle.board(&[1, 2, 3, 0]).unwrap_err().to_string(), "expected 9 tiles for a 3×3 board, found 4");
}

#[test]
fn constructors_reject_bad_widths_and_goals() {
    for n in [0, 1, 9, 100] {
        let err = Sliding::new(n, Goal::BlankLast).unwrap_err();
        assert_eq!(err.to_string(), format!("board width {n} is out of range 2..=8"));
    }
    let bad_goals = [
        (vec![1, 2, 3, 0], "expected 9 tiles for a 3×3 board, found 4"),
        (vec![1, 2, 3, 4, 5, 6, 7, 8, 8], "tile 8 appears twice"),
        (vec![1, 2, 3, 4, 5, 6, 7, 8, 9], "tile 9 is out of range 0..=8"),
    ];
    for (tiles, message) in bad_goals {
        let err = Sliding::new(3, Goal::Custom(tiles)).unwrap_err();
        assert_eq!(err.to_string(), message);
    }
    let err = "blank-lst".parse::<Goal>().unwrap_err();
    assert!(err.to_string().contains("\"blank-lst\""), "{err}");
    assert!(matches!(err, SlidingError::UnknownGoal { .. }));
    let err = "1 2 3 0 y".parse::<Goal>().unwrap_err();
    assert!(err.to_string().contains("\"y\""), "{err}");
}

#[test]
fn encoding_is_one_hot_tile_by_cell() {
    let mut rng = rng(5);
    for n in 2..=8 {
        let puzzle = sliding(n, Goal::BlankLast);
        let cells = n * n;
        assert_eq!(puzzle.encoded_len(), cells * cells);
        let boards: Vec<Board> = (0..3).map(|_| puzzle.random_solvable(&mut rng)).collect();
        let mut out = vec![7.0f32; boards.len() * puzzle.encoded_len()];
        puzzle.encode_batch(&boards, &mut out);
        for (board, enc) in boards.iter().zip(out.chunks_exact(puzzle.encoded_len())) {
            assert_eq!(enc.iter().filter(|&&x| x == 1.0).count(), cells);
            assert_eq!(enc.iter().filter(|&&x| x == 0.0).count(), cells * cells - cells);
            for (cell, &tile) in board.tiles().iter().enumerate() {
                assert_eq!(enc[cell * cells + usize::from(tile)], 1.0);
            }
            assert_eq!(puzzle.decode(enc), Ok(*board));
        }
    }
    let puzzle = sliding(2, Goal::BlankLast);
    assert_eq!(puzzle.decode(&[0.0; 15]), Err(SlidingError::EncodingLength { expected: 16, found: 15 }));
    let err = puzzle.decode(&[1.0, 0.0, 0.0, 0.0].repeat(4)).unwrap_err();
    assert_eq!(err.to_string(), "tile 0 appears twice");
    let scores = [0.1, 0.9, 0.0, 0.0, 0.0, 0.2, 0.7, 0.1, 0.3, 0.0, 0.0, 0.4, 0.6, 0.0, 0.1, 0.2];
    assert_eq!(puzzle.decode(&scores).unwrap().tiles(), [1, 2, 3, 0]);
}

#[test]
fn goal_layouts() {
    let layout = |n, goal: Goal| sliding(n, goal).goal().to_string();
    assert_eq!(layout(3, Goal::BlankLast), "1 2 3 / 4 5 6 / 7 8 0");
    assert_eq!(layout(3, Goal::BlankFirst), "0 1 2 / 3 4 5 / 6 7 8");
    assert_eq!(layout(2, Goal::Snail), "1 2 / 0 3");
    assert_eq!(layout(3, Goal::Snail), "1 2 3 / 8 0 4 / 7 6 5");
    assert_eq!(layout(4, Goal::Snail), "1 2 3 4 / 12 13 14 5 / 11 0 15 6 / 10 9 8 7");
    assert_eq!(layout(5, Goal::Snail), "1 2 3 4 5 / 16 17 18 19 6 / 15 24 0 20 7 / 14 23 22 21 8 / 13 12 11 10 9");
    for n in 2..=8 {
        for goal in all_goals() {
            let puzzle = sliding(n, goal.clone());
            assert!(is_permutation(&puzzle.goal()), "{goal} {n}");
            assert!(puzzle.is_goal(&puzzle.goal()));
            assert_eq!(puzzle.goal_name(), goal.name());
            assert_eq!(goal.to_string().parse::<Goal>(), Ok(goal));
        }
    }
    assert_eq!(Goal::default(), Goal::BlankLast);
    assert_eq!("Blank_First".parse::<Goal>(), Ok(Goal::BlankFirst));
    let custom: Goal = "1 2 3 / 4 0 5 / 6 7 8".parse().unwrap();
    assert_eq!(custom, Goal::Custom(vec![1, 2, 3, 4, 0, 5, 6, 7, 8]));
    assert_eq!(custom.to_string().parse::<Goal>(), Ok(custom.clone()));
    assert_eq!(sliding(3, custom).name(), "puzzle8-custom");
    assert_eq!(sliding(4, Goal::BlankLast).name(), "puzzle15");
    assert_eq!(sliding(3, Goal::Snail).name(), "puzzle8-snail");
}

#[test]
fn keys_are_exact_on_the_largest_board() {
    let mut rng = rng(8);
    let puzzle = sliding(8, Goal::BlankLast);
    let boards: Vec<Board> = (0..2000).map(|_| puzzle.random_solvable(&mut rng)).collect();
    let distinct: HashSet<Board> = boards.iter().copied().collect();
    let keys: HashSet<_> = boards.iter().map(|b| puzzle.key(b)).collect();
    assert_eq!(keys.len(), distinct.len());
    // Every pair of cells, including those straddling key words, matters.
    let goal = puzzle.goal();
    let mut seen = HashSet::from([goal.key()]);
    for a in 0..64 {
        for b in a + 1..64 {
            let mut tiles = goal.tiles().to_vec();
            tiles.swap(a, b);
            let board = puzzle.board(&tiles).unwrap();
            assert!(seen.insert(puzzle.key(&board)), "swap {a} {b}");
        }
    }
    assert_eq!(seen.len(), 1 + 64 * 63 / 2);
}
