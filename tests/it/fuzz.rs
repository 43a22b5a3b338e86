//! Seeded property tests over every parser a user reaches: facelet strings
//! (3×3×3 and 2×2×2), move sequences, boards, goals, widths, heuristic
//! expressions (deep nesting included), folder names, configs (mutations
//! of every shipped config), test-set TSVs and checkpoints (byte flips and
//! truncations).
//! Each asserts an `Err` or a valid value, never a panic, and the round
//! trip print → parse where one exists.
//!
//! CI runs a bounded number of cases per property (seconds in all). A long
//! run, whose counts are recorded in `benches/results/fuzz-*.txt`:
//! `CUBE_ORACLE_FUZZ_CASES=1000000 cargo test --release --test it fuzz:: -- --nocapture --test-threads 1`.

use cube_oracle::cube2::{self, Cube2};
use cube_oracle::cube3::{Cube3, facelets, notation};
use cube_oracle::folder;
use cube_oracle::learn::checkpoint;
use cube_oracle::learn::config::TrainConfig;
use cube_oracle::registry::PuzzleKind;
use cube_oracle::sliding::{Board, Goal, Sliding};
use cube_oracle::solve::classical::Method;
use cube_oracle::solve::{boards, heuristics, testsets, widths};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, RngSeed, TestRunner};
use std::path::Path;
use std::str::FromStr;

/// Cases per property: `CUBE_ORACLE_FUZZ_CASES`, default `default`.
fn cases(default: u32) -> u32 {
    std::env::var("CUBE_ORACLE_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// A seeded runner (the same inputs on every run) that keeps no failure file.
fn runner(default_cases: u32, seed: u64) -> TestRunner {
    let config = Config {
        cases: cases(default_cases),
        failure_persistence: None,
        rng_algorithm: RngAlgorithm::ChaCha,
        rng_seed: RngSeed::Fixed(seed),
        max_shrink_iters: 200,
        ..Config::default()
    };
    TestRunner::new(config)
}

/// Runs `test` over `strategy`, then prints how many inputs it saw and how
/// many were accepted (the long run's record).
fn fuzz<S: Strategy>(name: &str, default_cases: u32, seed: u64, strategy: S, test: impl Fn(S::Value) -> bool)
where
    S::Value: std::fmt::Debug,
{
    let seen = std::sync::atomic::AtomicU64::new(0);
    let accepted = std::sync::atomic::AtomicU64::new(0);
    let mut runner = runner(default_cases, seed);
    let result = runner.run(&strategy, |v| {
        seen.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if test(v) {
            accepted.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{name}: {e}");
    }
    println!(
        "fuzz {name}: {} inputs, {} accepted, 0 panics",
        seen.load(std::sync::atomic::Ordering::Relaxed),
        accepted.load(std::sync::atomic::Ordering::Relaxed)
    );
}

/// Text from an alphabet that makes the parser's interesting inputs likely.
fn text_from(alphabet: &'static str, max_len: usize) -> impl Strategy<Value = String> {
    let chars: Vec<char> = alphabet.chars().collect();
    prop::collection::vec(prop::sample::select(chars), 0..max_len).prop_map(|v| v.into_iter().collect())
}

/// `text` with character `i` replaced by `ch` for each edit (appended
/// when `i` is past the end).
fn edit(text: &str, edits: Vec<(usize, char)>) -> String {
    let mut c: Vec<char> = text.chars().collect();
    for (i, ch) in edits {
        if i < c.len() {
            c[i] = ch;
        } else {
            c.push(ch);
        }
    }
    c.into_iter().collect()
}

#[test]
fn facelet_strings() {
    // Mutations of a real cube's facelets, and random strings.
    let real = "BDFDURUURDBRURFBDLBFFLFRLBLULUUDRDFDDLRFLULBFUBRDBRFLB";
    let mutated =
        prop::collection::vec((0usize..60, prop::sample::select("URFDLBx ".chars().collect::<Vec<_>>())), 0..4)
            .prop_map(move |edits| edit(real, edits));
    let strategy = prop_oneof![mutated, text_from("URFDLBurfdlb \n\u{e9}", 60), ".*"];
    fuzz("facelets", 3000, 1, strategy, |text| match facelets::parse(&text) {
        Ok(cube) => {
            let again = facelets::parse(&facelets::format(&cube)).expect("printed facelets parse");
            assert_eq!(again, cube);
            assert_eq!(Cube3::from_str(&cube.to_string()).expect("Display parses"), cube);
            true
        }
        Err(_) => false,
    });
}

#[test]
fn move_sequences() {
    let strategy = prop_oneof![text_from("URFDLBMESxyzurfdlb'2 3()w", 40), ".*"];
    fuzz("singmaster", 3000, 2, strategy, |text| match notation::parse(&text) {
        Ok(turns) => {
            assert_eq!(notation::parse(&notation::format(&turns)).expect("printed moves parse"), turns);
            true
        }
        Err(_) => false,
    });
}

#[test]
fn cube2_facelets_and_moves() {
    // Mutations of a random 2×2×2's stickers, and random strings.
    let edits = prop::collection::vec((0usize..28, prop::sample::select("URFDLBx ".chars().collect::<Vec<_>>())), 0..4);
    let mutated = (0..cube2::N_STATES, edits).prop_map(|(i, edits)| edit(&Cube2::from_index(i).to_facelets(), edits));
    let strategy = prop_oneof![mutated, text_from("URFDLBu \n\u{e9}", 28), ".*"];
    fuzz("cube2-facelets", 3000, 9, strategy, |text| match Cube2::from_facelets(&text) {
        Ok(cube) => {
            assert_eq!(Cube2::from_facelets(&cube.to_facelets()).expect("printed facelets parse"), cube);
            assert_eq!(Cube2::from_index(cube.index()), cube);
            true
        }
        Err(_) => false,
    });
    let strategy = prop_oneof![text_from("URFDLBxurf'2 ", 30), ".*"];
    fuzz("cube2-moves", 3000, 10, strategy, |text| match cube2::notation::parse(&text) {
        Ok(turns) => {
            assert_eq!(cube2::notation::parse(&notation::format(&turns)).expect("printed moves parse"), turns);
            let _ = Cube2::from_turns(&turns);
            true
        }
        Err(_) => false,
    });
}

#[test]
fn boards_and_goals() {
    // Shuffled boards of width 2..=5 (rows as the printer writes them, or
    // one line), sometimes with a tile changed, plus random text.
    let shuffled = (2usize..=5)
        .prop_flat_map(|n| (Just(n), Just((0..n * n).collect::<Vec<usize>>()).prop_shuffle()))
        .prop_flat_map(|(n, tiles)| (Just(n), Just(tiles), prop::bool::ANY, prop::option::of((0usize..25, 0usize..30))))
        .prop_map(|(n, mut tiles, rows, edit)| {
            if let Some((i, v)) = edit {
                tiles[i % (n * n)] = v;
            }
            let row = |r: &[usize]| r.iter().map(usize::to_string).collect::<Vec<_>>().join(" ");
            let sep = if rows { " / " } else { " " };
            tiles.chunks(n).map(row).collect::<Vec<_>>().join(sep)
        });
    let strategy = (
        prop_oneof![3 => shuffled, 1 => text_from("0123456789 /-,\n", 48), 1 => ".*"],
        prop_oneof![Just("blank-last".to_string()), text_from("0123456789 /-abknlst", 30)],
    );
    fuzz("boards", 3000, 3, strategy, |(board, goal)| {
        let b_ok = match Board::from_str(&board) {
            Ok(b) => {
                assert_eq!(Board::from_str(&b.to_string()).expect("printed board parses"), b);
                true
            }
            Err(_) => false,
        };
        if let Ok(g) = Goal::from_str(&goal) {
            assert_eq!(Goal::from_str(&g.to_string()).expect("printed goal parses"), g);
            for n in 2..=4 {
                if let Ok(p) = Sliding::new(n, g.clone()) {
                    let _ = p.parse_board(&board);
                }
            }
        }
        b_ok
    });
}

#[test]
fn widths_puzzles_methods_and_labels() {
    let strategy = (
        prop::option::of(0usize..100_000),
        prop::option::of(prop_oneof![text_from("0123456789.. -", 12), ".*"]),
        prop_oneof![text_from("puzzlecube0123456789", 24), ".*"],
        prop_oneof![text_from("abcdefghijklmnopqrstuvwxyz-*", 10), ".*"],
        prop_oneof![text_from("abc./\\-_+ \u{e9}", 12), ".*"],
    );
    fuzz("widths-puzzles-methods-labels", 3000, 4, strategy, |(w, log2, puzzle, method, label)| {
        let mut ok = false;
        if let Ok(ws) = widths::parse(w, log2.as_deref()) {
            assert!(!ws.is_empty() && ws.windows(2).all(|p| p[0] < p[1]) && ws[0] >= 1, "{ws:?}");
            ok = true;
        }
        if let Ok(p) = PuzzleKind::from_str(&puzzle) {
            assert_eq!(PuzzleKind::from_str(&p.name()).unwrap(), p);
        }
        let _ = Method::from_str(&method);
        match folder::check_name("--label", &label) {
            Ok(()) => {
                assert!(!label.contains('/') && label != "." && label != ".." && !label.is_empty());
                assert_eq!(Path::new(&label).components().count(), 1);
            }
            Err(e) => assert!(e.to_string().starts_with("--label")),
        }
        assert!(folder::check_name("x", &folder::sanitize(&label)).is_ok());
        ok
    });
}

/// A heuristic expression: names, weights, `max(…)` and nesting, plus noise.
fn expression() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("manhattan".to_string()),
        Just("misplaced".to_string()),
        Just("linear-conflict".to_string()),
        Just("gaschnig".to_string()),
        Just("zero".to_string()),
        Just("nope".to_string()),
        text_from("max(,)*0123456789 ", 8),
    ];
    leaf.prop_recursive(6, 64, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(|v| format!("max({})", v.join(","))),
            (
                prop_oneof![Just(0u64), Just(1), Just(2), Just(1000), Just(1001), Just(4_294_967_295), any::<u64>()],
                inner
            )
                .prop_map(|(k, e)| format!("{k}*{e}")),
        ]
    })
}

#[test]
fn heuristic_expressions() {
    let p = Sliding::new(3, Goal::BlankLast).unwrap();
    let board = p.parse_board("8 7 6 / 5 4 3 / 2 1 0").unwrap();
    let deep = (1usize..3000, prop::bool::ANY)
        .prop_map(|(n, max)| if max { "max(".repeat(n) + "zero" + &")".repeat(n) } else { "1*".repeat(n) + "zero" });
    let strategy = prop_oneof![4 => expression(), 1 => deep];
    fuzz("heuristics", 2000, 5, strategy, |spec| match heuristics::sliding_heuristic(&p, &spec, None) {
        Ok(h) => {
            let _ = h.estimate(&p, &board);
            let again = heuristics::sliding_heuristic(&p, &h.name(), None).expect("a heuristic's name parses");
            assert_eq!(again.name(), h.name());
            true
        }
        Err(_) => false,
    });
}

/// Every shipped config's text.
fn shipped_configs() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs");
    let mut texts = Vec::new();
    let mut stack = vec![root];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "toml") {
                texts.push(std::fs::read_to_string(&p).unwrap());
            }
        }
    }
    texts.sort();
    assert!(texts.len() >= 6, "the shipped configs are found");
    texts
}

/// One random edit of a text: drop, duplicate or swap a line, replace a
/// value, insert a key, or overwrite a byte.
#[derive(Clone, Debug)]
enum Edit {
    Drop(usize),
    Duplicate(usize),
    Swap(usize, usize),
    Value(usize, String),
    Insert(usize, String),
    Byte(usize, u8),
}

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    let value = prop_oneof![
        Just("0".to_string()),
        Just("-1".to_string()),
        Just("1e309".to_string()),
        Just("nan".to_string()),
        Just("18446744073709551616".to_string()),
        Just("\"\"".to_string()),
        Just("[]".to_string()),
        Just("\"../x\"".to_string()),
        Just("{ min = 5, max = 2 }".to_string()),
        any::<i64>().prop_map(|v| v.to_string()),
        any::<f64>().prop_map(|v| v.to_string()),
        text_from("abc\"[]{}=.,-0123456789", 10),
    ];
    let edit = prop_oneof![
        (0usize..80).prop_map(Edit::Drop),
        (0usize..80).prop_map(Edit::Duplicate),
        (0usize..80, 0usize..80).prop_map(|(a, b)| Edit::Swap(a, b)),
        (0usize..80, value.clone()).prop_map(|(i, v)| Edit::Value(i, v)),
        (0usize..80, (text_from("abcdefghijklmnopqrstuvwxyz_", 10), value))
            .prop_map(|(i, (k, v))| Edit::Insert(i, format!("{k} = {v}"))),
        (0usize..4000, any::<u8>()).prop_map(|(i, b)| Edit::Byte(i, b)),
    ];
    prop::collection::vec(edit, 1..4)
}

fn apply(text: &str, edits: &[Edit]) -> Vec<u8> {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut bytes_edits = Vec::new();
    for e in edits {
        let n = lines.len().max(1);
        match e {
            Edit::Drop(i) if !lines.is_empty() => {
                lines.remove(i % n);
            }
            Edit::Duplicate(i) if !lines.is_empty() => {
                let l = lines[i % n].clone();
                lines.insert(i % n, l);
            }
            Edit::Swap(a, b) if !lines.is_empty() => lines.swap(a % n, b % n),
            Edit::Value(i, v) if !lines.is_empty() => {
                let l = &mut lines[i % n];
                if let Some((k, _)) = l.split_once('=') {
                    *l = format!("{k}= {v}");
                }
            }
            Edit::Insert(i, kv) => lines.insert(i % (lines.len() + 1), kv.clone()),
            Edit::Byte(i, b) => bytes_edits.push((*i, *b)),
            _ => {}
        }
    }
    let mut bytes = (lines.join("\n") + "\n").into_bytes();
    for (i, b) in bytes_edits {
        if !bytes.is_empty() {
            let at = i % bytes.len();
            bytes[at] = b;
        }
    }
    bytes
}

#[test]
fn config_mutations() {
    let texts = shipped_configs();
    let count = texts.len();
    let strategy = (0..count, edits());
    fuzz("configs", 2000, 6, strategy, |(k, edits)| {
        let bytes = apply(&texts[k], &edits);
        let Ok(text) = String::from_utf8(bytes) else { return false };
        match TrainConfig::parse(&text, Path::new("mutated.toml")) {
            Ok(cfg) => {
                let again = TrainConfig::parse(&cfg.to_toml(), Path::new("resolved.toml")).expect("resolved parses");
                assert_eq!(again, cfg);
                true
            }
            Err(e) => {
                let m = e.to_string();
                assert!(!m.contains('\n') && !m.is_empty(), "one-line message: {m}");
                false
            }
        }
    });
}

#[test]
fn test_set_tsvs() {
    let cubes: String =
        include_str!("../../data/cube3-deepcubea-test-1000.tsv").lines().take(6).collect::<Vec<_>>().join("\n");
    let boards: String = include_str!("../../data/puzzle15-korf100.tsv").lines().take(6).collect::<Vec<_>>().join("\n");
    let strategy = (prop::bool::ANY, edits());
    fuzz("test-set-tsvs", 2000, 7, strategy, |(cube, edits)| {
        let bytes = apply(if cube { &cubes } else { &boards }, &edits);
        let text = String::from_utf8_lossy(&bytes);
        if cube {
            testsets::parse_tsv(&text, "mutated.tsv").is_ok()
        } else {
            boards::parse_tsv(&text, "mutated.tsv", 4).is_ok()
        }
    });
}

#[test]
fn checkpoint_flips_and_truncations() {
    // A real checkpoint: a 4-step smoke run trained here.
    let dir = std::env::temp_dir().join(format!("cube-oracle-fuzz-ckpt-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut cfg = TrainConfig::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/smoke.toml")).unwrap();
    cfg.run.out_dir = dir.clone();
    cfg.model.hidden = vec![8];
    cfg.model.residual_blocks = 0;
    cfg.train.steps = Some(4);
    cfg.train.eval_every = 4;
    cfg.train.checkpoint_every = 4;
    cfg.train.threads = Some(1);
    let opts = cube_oracle::learn::training::TrainOptions::new(cube_oracle::rundir::Existing::Refuse);
    cube_oracle::learn::training::run(&cfg, &opts).unwrap();
    let path = checkpoint::latest(&dir.join("smoke/checkpoints")).unwrap();
    let good = std::fs::read(&path).unwrap();
    let device = cube_oracle::learn::backend::device(cube_oracle::learn::config::DeviceKind::Cpu).unwrap();
    let len = good.len();
    // Flips anywhere, and flips with the checksum repaired (so that the
    // section parser and the model loader see them), and truncations.
    // The input the first long run found: a tensor's dtype byte changed
    // (burn panicked with "Expected float dtype, got U32").
    let mut found = good.clone();
    if found.len() > 372 {
        found[372] = 85;
        let body = found.len() - 8;
        let sum = cube_oracle::checksum::fnv1a(&found[..body]);
        found[body..].copy_from_slice(&sum.to_le_bytes());
        if let Ok(ck) = checkpoint::decode(&found) {
            let _ = cube_oracle::learn::model::model_from_bytes(&cfg, ck.model, &device);
        }
    }
    let strategy = (
        prop::collection::vec((0..len, any::<u8>()), 0..4),
        prop_oneof![8 => Just(len), 1 => 0..=len],
        prop::bool::ANY,
    );
    fuzz("checkpoints", 1000, 8, strategy, |(flips, keep, fix)| {
        let mut bytes = good.clone();
        for (i, b) in flips {
            bytes[i] = b;
        }
        bytes.truncate(keep);
        if fix && bytes.len() >= 8 {
            let body = bytes.len() - 8;
            let sum = cube_oracle::checksum::fnv1a(&bytes[..body]);
            bytes[body..].copy_from_slice(&sum.to_le_bytes());
        }
        match checkpoint::decode(&bytes) {
            Ok(ck) => cube_oracle::learn::model::model_from_bytes(&cfg, ck.model, &device).is_ok(),
            Err(_) => false,
        }
    });
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn local_search_problems_and_methods() {
    use cube_oracle::local::{LocalMethod, ProblemKind, queens};
    let strategy = (
        prop_oneof![text_from("queensfunction-comb0123456789 QX+", 24), "queens[0-9]{0,25}", ".*"],
        prop_oneof![text_from("hill-climbingfirstchoiceannealg_ ", 24), ".*"],
    );
    fuzz("local-search-names", 3000, 15, strategy, |(problem, method)| {
        let mut ok = false;
        match ProblemKind::from_str(&problem) {
            Ok(kind) => {
                assert_eq!(ProblemKind::from_str(&kind.to_string()).unwrap(), kind);
                if let ProblemKind::Queens(q) = kind {
                    assert!(queens::has_solution(q.n() as u64) && q.n() <= queens::MAX_QUEENS, "{problem:?}");
                }
                ok = true;
            }
            Err(e) => assert!(!e.to_string().is_empty()),
        }
        if let Ok(m) = LocalMethod::from_str(&method) {
            assert_eq!(LocalMethod::from_str(m.name()).unwrap(), m);
            ok = true;
        }
        ok
    });
}

#[test]
fn game_piles_boards_and_names() {
    use cube_oracle::games::sticks::Sticks;
    use cube_oracle::games::tictactoe::TicTacToe;
    use cube_oracle::games::{Game, Method, pacman::Eval, play::GameKind};
    let strategy = (
        prop_oneof![text_from("0123456789, -x", 24), "[0-9]{1,4}(,[0-9]{1,4}){0,9}", ".*"],
        prop_oneof![text_from("xo.XO/ q", 14), "[xo.]{3}/[xo.]{3}/[xo.]{3}", ".*"],
        prop_oneof![text_from("sticktaocpmnlhbr-_ ", 14), ".*"],
    );
    fuzz("game-piles-boards-names", 3000, 21, strategy, |(piles, board, name)| {
        let mut ok = false;
        if let Ok(s) = Sticks::from_str(&piles) {
            assert_eq!(Sticks::from_str(&s.to_string()).expect("printed piles parse"), s);
            ok = true;
        }
        if let Ok(b) = TicTacToe::from_str(&board) {
            assert_eq!(TicTacToe::from_str(&b.to_string()).expect("printed board parses"), b);
            let mut moves = Vec::new();
            b.moves(&mut moves);
            assert_eq!(moves.is_empty(), b.utility().is_some(), "{board:?}");
            ok = true;
        }
        if let Ok(g) = GameKind::from_str(&name) {
            assert_eq!(GameKind::from_str(g.name()).unwrap(), g);
        }
        if let Ok(m) = Method::from_str(&name) {
            assert_eq!(Method::from_str(m.name()).unwrap(), m);
        }
        if let Ok(e) = Eval::from_str(&name) {
            assert_eq!(Eval::from_str(&e.to_string()).unwrap(), e);
        }
        ok
    });
}

#[test]
fn pacman_layouts() {
    use cube_oracle::games::Game;
    use cube_oracle::games::pacman::{Eval, Layout, Pacman};
    // Mutations of a real layout, and random text over the layout alphabet.
    let real = "%%%%%%%\n%P . G%\n%.%%%.%\n%o  G.%\n%%%%%%%\n";
    let mutated =
        prop::collection::vec((0usize..45, prop::sample::select("%. oPG\nx\r".chars().collect::<Vec<_>>())), 0..5)
            .prop_map(move |edits| edit(real, edits));
    let strategy = (prop_oneof![mutated, text_from("%. oPG\n", 60), ".*"], 0usize..4);
    fuzz("pacman-layouts", 3000, 22, strategy, |(text, ghosts)| match Layout::parse("<fuzz>", &text) {
        Ok(layout) => {
            assert!(!layout.food().is_empty());
            if let Ok(mut p) = Pacman::new(layout, ghosts, Eval::Features) {
                // Search two plies and check the position is restored.
                let before = p.clone();
                let r = cube_oracle::games::alpha_beta(&mut p, Some(2), cube_oracle::games::Ordering::Static);
                assert!(r.value.is_finite() && r.best_move.is_some());
                assert_eq!(p, before);
                let mut moves = Vec::new();
                p.moves(&mut moves);
                assert!(!moves.is_empty());
            }
            true
        }
        Err(e) => {
            assert!(e.to_string().starts_with("layout <fuzz>"), "{e}");
            false
        }
    });
}

#[test]
fn grids_and_parberry_names() {
    use cube_oracle::search::parberry::Parberry;
    use cube_oracle::sliding::grid::Grid;
    use cube_oracle::solve::parberry::{parse_goal, parse_puzzle};
    // Shuffled boards of width 2..=7 (rows or one line), sometimes with a
    // tile changed, plus random text; every solvable one is solved and its
    // solution replayed.
    let shuffled = (2usize..=7)
        .prop_flat_map(|n| (Just(n), Just((0..n * n).collect::<Vec<usize>>()).prop_shuffle()))
        .prop_flat_map(|(n, tiles)| (Just(n), Just(tiles), prop::bool::ANY, prop::option::of((0usize..49, 0usize..60))))
        .prop_map(|(n, mut tiles, rows, edit)| {
            if let Some((i, v)) = edit {
                tiles[i % (n * n)] = v;
            }
            let row = |r: &[usize]| r.iter().map(usize::to_string).collect::<Vec<_>>().join(" ");
            let sep = if rows { " / " } else { ", " };
            tiles.chunks(n).map(row).collect::<Vec<_>>().join(sep)
        });
    let solver = Parberry::new();
    let strategy = prop_oneof![3 => shuffled, 1 => text_from("0123456789 /-,\n", 48), 1 => ".*"];
    fuzz("grids", 3000, 31, strategy, |text| match Grid::from_str(&text) {
        Ok(g) => {
            assert_eq!(Grid::from_str(&g.to_string()).expect("printed grid parses"), g);
            assert_eq!(Grid::parse(&text, Some(g.n())).expect("same width"), g);
            match solver.solve(&g) {
                Ok(sol) => assert!(g.replay(&sol.moves).expect("legal moves").is_goal()),
                Err(e) => assert!(!g.is_solvable() && e.to_string().contains("unsolvable"), "{e}"),
            }
            true
        }
        Err(_) => false,
    });
    // Puzzle names and goals of `solve parberry`.
    let names = prop_oneof![
        (0u64..300, -1i64..=1).prop_map(|(n, d)| format!("puzzle{}", (n * n) as i64 - 1 + d)),
        (0u64..70_000).prop_map(|t| format!("puzzle{t}")),
        text_from("puzzle0123456789 -", 24),
        ".*"
    ];
    let goals = prop_oneof![text_from("blank-firstlaiu_ 0123/", 16), ".*"];
    fuzz("parberry-names", 3000, 32, (names, goals), |(name, goal)| {
        let _ = parse_goal(Some(&goal));
        match parse_puzzle(&name) {
            Ok(n) => {
                assert!((2..=256).contains(&n));
                assert_eq!(parse_puzzle(&format!("puzzle{}", n * n - 1)).unwrap(), n);
                true
            }
            Err(e) => {
                assert!(e.to_string().starts_with("--puzzle"), "{e}");
                false
            }
        }
    });
}

#[test]
fn symmetry_counts() {
    use cube_oracle::cube3::symmetry::{ENSEMBLE_SIZES, ensemble, parse_count};
    // `solve --symmetry K`: numbers near the accepted sizes, huge numbers,
    // and random text; an accepted K has exactly K symmetries, identity first.
    let strategy = prop_oneof![
        (0usize..60).prop_map(|k| k.to_string()),
        any::<u64>().prop_map(|k| k.to_string()),
        text_from("0124689 +-x.", 8),
        ".*"
    ];
    fuzz("symmetry-counts", 3000, 33, strategy, |text| match parse_count(&text) {
        Ok(k) => {
            assert!(ENSEMBLE_SIZES.contains(&k), "{text:?} gave {k}");
            let chosen = ensemble(k).expect("an accepted count has an ensemble");
            assert_eq!((chosen.len(), chosen[0].index()), (k, 0));
            true
        }
        Err(e) => {
            assert!(e.to_string().starts_with("symmetry count"), "{e}");
            false
        }
    });
}

#[test]
fn walk_kinds_and_depths() {
    use cube_oracle::learn::data::Depths;
    use cube_oracle::scramble::WalkKind;
    // `[data] walk` and `depths`: the accepted names, near misses and random
    // text; an accepted value is one of the documented names, and a refused
    // one gets a one-line message that shows the line with the key.
    let smoke = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/smoke.toml")).unwrap();
    let value = prop_oneof![
        Just("random".to_string()),
        Just("non-backtracking".to_string()),
        Just("all-prefixes".to_string()),
        Just("uniform".to_string()),
        Just("Random".to_string()),
        Just("non_backtracking".to_string()),
        text_from("abcdefgiklmnoprstu-_ ", 18),
    ];
    let strategy = (prop::bool::ANY, value, prop::bool::ANY);
    fuzz("walk-kinds-and-depths", 1500, 34, strategy, |(is_walk, v, quoted)| {
        let key = if is_walk { "walk" } else { "depths" };
        let written = if quoted { format!("{v:?}") } else { v.clone() };
        let text = smoke.replace("prune = true\n", &format!("prune = true\n{key} = {written}\n"));
        match TrainConfig::parse(&text, Path::new("walks.toml")) {
            Ok(cfg) => {
                let names = if is_walk {
                    WalkKind::ALL.map(WalkKind::name).to_vec()
                } else {
                    Depths::ALL.map(Depths::name).to_vec()
                };
                let got = if is_walk { cfg.data.walk.name() } else { cfg.data.depths.name() };
                assert!(names.contains(&v.as_str()) && got == v, "{key} = {written} gave {got}");
                true
            }
            Err(e) => {
                let m = e.to_string();
                assert!(!m.contains('\n') && m.contains(&format!("{key} =")), "{key} = {written}: {m}");
                false
            }
        }
    });
}

// ---------------------------------------------------------------------------
// `solve`'s numeric arguments: `--random` and `--trials` (instance counts),
// `--max-time-s`, `--jobs`, and the shortening of values in messages. Any
// value gives a value within the stated bound or a one-line `Err` that
// names the flag and the bound, never a panic; shown values stay short.
// ---------------------------------------------------------------------------

#[test]
fn solve_numeric_arguments() {
    use cube_oracle::solve::bounds::{self, MAX_INSTANCES, MAX_TIME_S, SHOWN_CHARS};
    use cube_oracle::solve::input::Input;
    let count = prop_oneof![0u64..=3, (MAX_INSTANCES as u64 - 2)..=(MAX_INSTANCES as u64 + 2), any::<u64>()];
    let seconds = prop_oneof![
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(0.0),
        Just(-0.0),
        Just(f64::MIN_POSITIVE),
        Just(MAX_TIME_S),
        Just(f64::MAX),
        any::<f64>(),
        0.0..2.0 * MAX_TIME_S,
    ];
    let jobs = prop_oneof![0usize..=64, any::<usize>()];
    let text = prop_oneof![".*", text_from("0123456789", 400), text_from("x\u{e9}\u{1f600}", 200)];
    let strategy = (count, seconds, jobs, text, any::<u64>());
    fuzz("solve-numeric-arguments", 3000, 35, strategy, |(n, t, j, text, seed)| {
        let mut ok = false;
        for flag in ["--random", "--trials"] {
            match bounds::instance_count(flag, n) {
                Ok(k) => {
                    assert!((1..=MAX_INSTANCES).contains(&k) && k as u64 == n, "{flag} {n} gave {k}");
                    ok = true;
                }
                Err(e) => {
                    let m = e.to_string();
                    assert!(
                        m.starts_with(&format!("{flag} {n}: ")) && m.contains("1000000") && !m.contains('\n'),
                        "{m}"
                    );
                }
            }
        }
        match Input::random(n, seed) {
            Ok(Input::Random { n: k, seed: s }) => assert_eq!((k as u64, s), (n, seed)),
            Ok(other) => panic!("{other:?}"),
            Err(e) => assert!(e.to_string().starts_with("--random ")),
        }
        match bounds::max_time(t) {
            Ok(d) => assert!(t > 0.0 && t <= MAX_TIME_S && (d.as_secs_f64() - t).abs() <= 1e-6 * t.max(1.0), "{t}"),
            Err(e) => {
                let m = e.to_string();
                assert!(!(t > 0.0 && t <= MAX_TIME_S), "{t} refused: {m}");
                assert!(m.starts_with("--max-time-s ") && m.contains("10000000") && m.len() < 160, "{m}");
            }
        }
        match bounds::jobs(j) {
            Ok(k) => assert!(k >= 1 && k <= bounds::max_jobs() && (j == 0 || k == j), "{j} gave {k}"),
            Err(e) => {
                assert!(j > bounds::max_jobs());
                assert!(e.to_string().starts_with(&format!("--jobs {j}: ")), "{e}");
            }
        }
        let shown = bounds::shorten(&text);
        if text.chars().count() <= SHOWN_CHARS {
            assert_eq!(shown, text);
        } else {
            assert!(shown.starts_with(&text.chars().take(SHOWN_CHARS).collect::<String>()) && shown.contains('…'));
            assert!(shown.chars().count() <= SHOWN_CHARS + 24, "{shown}");
        }
        assert!(bounds::show_number(t).len() <= 24, "{t}: {}", bounds::show_number(t));
        ok
    });
}

// ---------------------------------------------------------------------------
// `play`: layout files (mutations of a shipped layout, random text, files
// around the byte limit) read through the bounded reader, and flag values
// (`--depth`, `--max-nodes`, `--ghosts`, piles, boards), each request run
// end to end with a small node budget. Every request gives an answer or a
// one-line error, never a panic; an accepted value is within its bound; a
// finished sticks search has Bouton's value.
// ---------------------------------------------------------------------------

/// A game error as `play` prints it (with its causes): one short line.
fn play_error_line(e: &dyn std::error::Error) -> String {
    let mut line = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        line = format!("{line}: {c}");
        cause = c.source();
    }
    assert!(!line.contains('\n') && line.chars().count() < 400, "{line}");
    line
}

#[test]
fn play_layouts_and_flag_values() {
    use cube_oracle::games::Method;
    use cube_oracle::games::pacman::layout::{Layout, MAX_FILE_BYTES, MAX_SIDE};
    use cube_oracle::games::play::{self, GameKind, PlayOptions, parse_depth, parse_ghosts, parse_max_nodes};
    use cube_oracle::games::sticks::{Sticks, mover_loses};
    let dir = std::env::temp_dir().join(format!("cube-oracle-fuzz-play-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("fuzz.lay");
    let real = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("data/pacman/small.lay")).unwrap();
    let mutated =
        prop::collection::vec((0usize..200, prop::sample::select("%. oPG\nx\r".chars().collect::<Vec<_>>())), 0..6)
            .prop_map(move |edits| edit(&real, edits));
    // Rows of 99 food cells: 100 bytes a row, around the byte limit.
    let near_limit = (MAX_FILE_BYTES as usize - 300..MAX_FILE_BYTES as usize + 300).prop_map(|n| {
        let mut text = format!("P{}G\n", ".".repeat(97)) + &format!("{}\n", ".".repeat(99)).repeat(n / 100);
        text.truncate(n);
        text
    });
    let layout = prop_oneof![3 => mutated, 1 => text_from("%. oPG\n", 120), 1 => near_limit, 1 => ".*"];
    let number = prop_oneof![
        4 => (0u64..=12).prop_map(|n| n.to_string()),
        1 => (0u64..=1100).prop_map(|n| n.to_string()),
        1 => any::<u64>().prop_map(|n| n.to_string()),
        1 => text_from("0123456789 -+_eE.x", 14),
        1 => ".*"
    ];
    let budget = prop_oneof![(1u64..=2000).prop_map(|n| n.to_string()), text_from("0123456789_eE", 8), ".*"];
    let piles = prop_oneof![3 => "[0-6](,[0-6]){0,2}", 1 => "[0-9]{1,3}(,[0-9]{1,3}){0,8}", 1 => text_from("0123456789, x", 12)];
    let board = prop_oneof!["[xo.]{3}/[xo.]{3}/[xo.]{3}", ".*"];
    let strategy = (0usize..3, 0usize..4, layout, number.clone(), budget, number, piles, board, prop::bool::ANY);
    let games = [GameKind::Sticks, GameKind::TicTacToe, GameKind::Pacman];
    fuzz("play-layouts-and-flags", 400, 51, strategy, |(g, m, text, depth, nodes, ghosts, piles, board, deep)| {
        let game = games[g];
        // Flag values: a value within the bound, or a one-line refusal
        // naming the flag.
        let depth = match parse_depth(&depth, game) {
            Ok(d) => {
                assert!(d >= 1 && d <= game.max_depth().0, "{depth:?} gave {d}");
                assert_eq!(depth.trim().parse::<u64>().ok(), Some(u64::from(d)));
                Some(d)
            }
            Err(e) => {
                assert!(play_error_line(&e).starts_with("--depth "), "{e}");
                None
            }
        };
        let max_nodes = match parse_max_nodes(&nodes) {
            Ok(n) => n.clamp(1, 2000),
            Err(e) => {
                assert!(play_error_line(&e).starts_with("--max-nodes `"), "{e}");
                1000
            }
        };
        let ghosts = match parse_ghosts(&ghosts) {
            Ok(k) => Some(k),
            Err(e) => {
                assert!(play_error_line(&e).starts_with("--ghosts `"), "{e}");
                None
            }
        };
        // The layout through the bounded reader where it is a file (Pacman
        // requests, texts near the byte limit), the parser otherwise.
        let near = text.len() as u64 > MAX_FILE_BYTES - 300;
        let read = if game == GameKind::Pacman || near {
            std::fs::write(&file, &text).unwrap();
            Layout::read(&file)
        } else {
            Layout::parse("<fuzz>", &text)
        };
        match read {
            Ok(l) => assert!(text.len() as u64 <= MAX_FILE_BYTES && l.width() <= MAX_SIDE && l.height() <= MAX_SIDE),
            Err(e) => {
                let line = play_error_line(&e);
                assert!(line.starts_with("layout ") || line.starts_with("reading layout "), "{line}");
                if text.len() as u64 > MAX_FILE_BYTES {
                    assert!(line.contains(&format!("more than {MAX_FILE_BYTES} bytes")), "{line}");
                }
            }
        }
        // The whole request, with a small budget.
        let mut opts = PlayOptions::new(game, Method::ALL[m].1);
        opts.max_nodes = max_nodes;
        opts.depth = if deep { None } else { depth };
        match game {
            GameKind::Sticks => opts.piles = Some(piles.clone()),
            GameKind::TicTacToe => opts.board = Some(board),
            GameKind::Pacman => {
                opts.layout = Some(file.clone());
                opts.ghosts = ghosts;
                opts.depth = depth;
            }
        }
        match play::run(&opts) {
            Ok(out) => {
                assert!(out.contains("value: ") && out.contains("best move: "), "{out}");
                if game == GameKind::Sticks && opts.depth.is_none() && !out.contains("partial result") {
                    let s: Sticks = piles.parse().unwrap();
                    let value = if mover_loses(s.piles()) { "value: -1 " } else { "value: 1 " };
                    assert!(out.contains(value), "{piles}: {out}");
                }
                true
            }
            Err(e) => {
                play_error_line(&e);
                false
            }
        }
    });
    std::fs::remove_dir_all(&dir).unwrap();
}

// ---------------------------------------------------------------------------
// `study`: `--shard k/n` values and study files (mutations of every shipped
// study file, random text); and export destinations (`train export* RUN
// --to DIR`). Never a panic; errors are one line; a destination is refused
// exactly when it exists or when the folder made for it (as the kernel
// resolves it, through `..` and symbolic links) lies inside the run.
// ---------------------------------------------------------------------------

#[test]
fn study_shards_and_files() {
    use cube_oracle::study::{self, Study};
    let configs = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs");
    let mut texts = Vec::new();
    for e in std::fs::read_dir(configs.join("study")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "toml") {
            // The base named by its full path, so the study file can be anywhere.
            let t = std::fs::read_to_string(&p).unwrap();
            texts.push(t.replace("base = \"../", &format!("base = \"{}/", configs.display())));
        }
    }
    texts.sort();
    assert!(texts.len() >= 3, "the shipped study files are found");
    let dir = std::env::temp_dir().join(format!("cube-oracle-fuzz-study-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("study.toml");
    let shard = prop_oneof![
        "[0-9]{1,3}/[0-9]{1,3}",
        any::<(u64, u64)>().prop_map(|(k, n)| format!("{k}/{n}")),
        text_from("0123456789/ -+x\n", 12),
        ".*"
    ];
    let strategy = (shard, 0..texts.len(), edits(), prop::bool::weighted(0.1), ".*");
    fuzz("study-shards-and-files", 600, 61, strategy, |(shard, k, edits, random, noise)| {
        let mut ok = false;
        match study::parse_shard(&shard) {
            Ok((k, n)) => {
                assert!(n >= 1 && k < n, "{shard:?} gave {k}/{n}");
                let (a, b) = shard.split_once('/').unwrap();
                assert_eq!((a.trim().parse::<usize>().ok(), b.trim().parse::<usize>().ok()), (Some(k), Some(n)));
                ok = true;
            }
            Err(e) => {
                let line = folder::one_line(&e);
                assert!(line.starts_with("--shard ") && !line.contains('\n') && line.len() < 200, "{line}");
            }
        }
        let bytes = if random { noise.into_bytes() } else { apply(&texts[k], &edits) };
        std::fs::write(&file, &bytes).unwrap();
        match Study::load(&file) {
            Ok(s) => {
                assert!(!s.points.is_empty() && s.points.len() <= 10_000);
                for p in &s.points {
                    assert!(p.config.validate().is_ok() && folder::check_name("point", &p.name).is_ok(), "{}", p.name);
                    assert!(p.samples >= 1 && p.flops().is_finite() && p.flops() > 0.0, "{}", p.name);
                }
                ok = true;
            }
            Err(e) => {
                let line = folder::one_line(&e);
                assert!(!line.is_empty() && !line.contains('\n'), "{line}");
            }
        }
        ok
    });
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Every path under `dir`, symbolic links not followed.
fn tree(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            }
            out.push(e.path());
        }
    }
    out.sort();
    out
}

#[test]
fn export_destinations() {
    use cube_oracle::learn::error::LearnError;
    use cube_oracle::learn::export::check_target;
    use cube_oracle::rundir::is_inside;
    use std::os::unix::fs::symlink;
    let root = std::env::temp_dir().join(format!("cube-oracle-fuzz-export-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let run = root.join("run");
    for d in ["run/sub", "run/solve", "other/deep"] {
        std::fs::create_dir_all(root.join(d)).unwrap();
    }
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("runs/reference-cube2");
    for f in ["config.toml", "meta.json"] {
        std::fs::copy(shipped.join(f), run.join(f)).unwrap();
    }
    // Links at the depth of their targets, so `..` never leaves `root`:
    // to the run, out of it, and from inside it to outside and inside.
    symlink(&run, root.join("link")).unwrap();
    symlink(root.join("other"), root.join("out")).unwrap();
    symlink(root.join("other/deep"), run.join("away")).unwrap();
    symlink(run.join("sub"), run.join("inner")).unwrap();
    // No `.`: `create_dir_all` cannot make `a/.` for a missing `a`, so the
    // oracle below could not tell.
    let parts = vec!["a", "b", "..", "run", "sub", "solve", "link", "out", "other", "deep", "away", "inner"];
    let built = prop::collection::vec(prop::sample::select(parts), 0..7).prop_map(|p| {
        // Drop each `..` that would climb above `root`.
        let mut depth = 0usize;
        let kept: Vec<&str> = p
            .into_iter()
            .filter(|c| match *c {
                ".." if depth == 0 => false,
                ".." => {
                    depth -= 1;
                    true
                }
                _ => {
                    depth += 1;
                    true
                }
            })
            .collect();
        kept.join("/")
    });
    let strategy = prop_oneof![4 => built.prop_map(|p| (true, p)), 1 => ".*".prop_map(|p| (false, p))];
    fuzz("export-destinations", 500, 62, strategy, |(under_root, text)| {
        if !under_root {
            // Any text as a relative or absolute path: an answer, no panic
            // (nothing is created).
            let _ = check_target(&run, Path::new(&text));
            let _ = is_inside(Path::new(&text), &run);
            return false;
        }
        let to = root.join(&text);
        let exists = std::fs::symlink_metadata(&to).is_ok();
        let result = check_target(&run, &to);
        if exists {
            assert!(matches!(result, Err(LearnError::ExportExists { .. })), "{text}: {result:?}");
            return false;
        }
        // Make the destination and ask the kernel where it is.
        let before = tree(&root);
        std::fs::create_dir_all(&to).unwrap_or_else(|e| panic!("{text}: {e}"));
        let inside = to.canonicalize().unwrap().starts_with(run.canonicalize().unwrap());
        let mut made: Vec<_> = tree(&root).into_iter().filter(|p| !before.contains(p)).collect();
        made.sort_by_key(|p| std::cmp::Reverse(p.components().count()));
        for p in made {
            std::fs::remove_dir(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        }
        assert_eq!(is_inside(&to, &run), inside, "{text}");
        match result {
            Err(LearnError::ExportInside { .. }) => assert!(inside, "{text}: refused, but it lies outside the run"),
            Ok(()) => assert!(!inside, "{text}: accepted, but it lies inside the run"),
            Err(e) => panic!("{text}: {e}"),
        }
        !inside
    });
    std::fs::remove_dir_all(&root).unwrap();
}
