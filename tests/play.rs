//! `play` end to end: the printed value, best move and node counts on the
//! sticks game and tic-tac-toe, a Pacman layout, the node-count CSV (and
//! its refusal to overwrite), and every kind of bad input answered with a
//! message naming the option, value and rule, and exit status 1.

use std::path::PathBuf;
use std::process::Command;

fn play(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_play")).args(args).output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).to_string(),
        String::from_utf8_lossy(&o.stderr).to_string(),
    )
}

fn data(path: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(path).display().to_string()
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cube-oracle-play-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// The number after `key` on the line starting with it.
fn number(out: &str, key: &str) -> u64 {
    let line = out.lines().find(|l| l.starts_with(key)).unwrap_or_else(|| panic!("no `{key}` in {out}"));
    line[key.len()..].split_whitespace().next().unwrap().parse().unwrap()
}

/// The fields of a CSV line (double quotes around fields with commas).
fn fields(line: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut quoted = false;
    for ch in line.chars() {
        match ch {
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(String::new()),
            _ => out.last_mut().unwrap().push(ch),
        }
    }
    out
}

#[test]
fn sticks_three_five() {
    let (code, out, err) = play(&["--game", "sticks", "--piles", "3,5", "--method", "minimax"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("value: 1 (from MAX's view)"), "{out}");
    // The only winning move leaves equal piles.
    assert!(out.contains("best move: take 2 from pile 2"), "{out}");
    // The full tree: T(3,5) = 1736 positions by the recurrence in tests/games.rs.
    assert_eq!(number(&out, "nodes:"), 1736);
    assert!(out.contains("time: "), "{out}");
    let (code, ab, _) = play(&["--game", "sticks", "--piles", "3,5", "--method", "alphabeta"]);
    assert_eq!(code, 0);
    assert!(ab.contains("best move: take 2 from pile 2"), "{ab}");
    assert!(number(&ab, "nodes:") < 1736);
    let (code, id, _) = play(&["--game", "sticks", "--piles", "4,4", "--method", "iterative"]);
    assert_eq!(code, 0);
    assert!(id.contains("  depth 1: ") && id.contains("value: -1 (from MAX's view)"), "{id}");
}

#[test]
fn tictactoe_and_pacman() {
    let (code, out, err) = play(&["--game", "tictactoe", "--method", "minimax"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("value: 0 (from MAX's view)"), "{out}");
    assert_eq!(number(&out, "nodes:"), 549_946);
    let (code, out, _) = play(&["--game", "tictactoe", "--board", "xx./oo./...", "--method", "alphabeta-ordered"]);
    assert_eq!(code, 0);
    assert!(out.contains("value: 1 ") && out.contains("best move: r1c3"), "{out}");
    let small = data("data/pacman/small.lay");
    for eval in ["ratio", "features"] {
        let (code, out, err) =
            play(&["--game", "pacman", "--layout", &small, "--ghosts", "2", "--depth", "3", "--eval", eval]);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains("2 ghosts") && out.contains("best move: "), "{out}");
    }
}

#[test]
fn node_count_csv() {
    let csv = temp("sticks.csv");
    let _ = std::fs::remove_file(&csv);
    let path = csv.display().to_string();
    let (code, out, err) = play(&["--game", "sticks", "--piles", "3,5", "--csv", &path]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("node counts for depths 1..=8"), "{out}");
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next().unwrap(),
        "game,position,method,depth,value,best_move,nodes,expanded,leaves,horizon_leaves,probes,time_s"
    );
    let rows: Vec<Vec<String>> = lines.map(fields).collect();
    assert!(rows.iter().all(|r| r.len() == 12 && r[0] == "sticks" && r[1] == "3,5"), "{text}");
    assert_eq!(rows.len(), 4 * 8);
    // Minimax at depth 8 sees the whole game (8 sticks): 1736 nodes, none cut off.
    let full = rows.iter().find(|r| r[2] == "minimax" && r[3] == "8").unwrap();
    assert_eq!((full[4].as_str(), full[6].as_str(), full[9].as_str()), ("1.0", "1736", "0"));
    for r in &rows {
        let minimax = rows.iter().find(|m| m[2] == "minimax" && m[3] == r[3]).unwrap();
        assert_eq!(r[4], minimax[4], "value of {} at depth {}", r[2], r[3]);
        if r[2] == "alphabeta" {
            assert!(r[6].parse::<u64>().unwrap() <= minimax[6].parse::<u64>().unwrap());
        }
    }
    // An existing table is kept unless --overwrite.
    let (code, _, err) = play(&["--game", "sticks", "--piles", "3,5", "--csv", &path]);
    assert_eq!(code, 1);
    assert!(err.contains("the file exists; --overwrite replaces it"), "{err}");
    let (code, _, err) = play(&["--game", "sticks", "--piles", "2,2", "--csv", &path, "--overwrite"]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&csv).unwrap();
    assert!(text.lines().skip(1).all(|l| fields(l)[1] == "2,2"), "{text}");
}

#[test]
fn bad_input_is_named_with_exit_status_1() {
    let bad_layout = temp("bad.lay");
    std::fs::write(&bad_layout, "%%%%\n%P?%\n%%%%\n").unwrap();
    let bad = bad_layout.display().to_string();
    let tiny = data("data/pacman/tiny.lay");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--game", "chess"], "--game: game `chess`: unknown game"),
        (vec!["--game", "sticks", "--piles", "3,x"], "piles `3,x`: `x` is not a whole number"),
        (vec!["--game", "sticks"], "--game sticks needs --piles"),
        (
            vec!["--game", "sticks", "--piles", "3,5", "--method", "negamax"],
            "--method: method `negamax`: unknown method",
        ),
        (vec!["--game", "sticks", "--piles", "3,5", "--depth", "0"], "depth 0"),
        (vec!["--game", "tictactoe", "--piles", "3,5"], "--piles applies to --game sticks, not tictactoe"),
        (vec!["--game", "tictactoe", "--board", "xxx/ooo/..."], "both x and o have three in a row"),
        (vec!["--game", "pacman", "--layout", &bad, "--depth", "2"], "line 2 column 3: `?` is not a layout character"),
        (vec!["--game", "pacman", "--layout", &tiny, "--ghosts", "3", "--depth", "2"], "ghosts 3: layout"),
        (vec!["--game", "pacman", "--layout", "no/such.lay", "--depth", "2"], "reading layout no/such.lay"),
        (vec!["--game", "pacman", "--layout", &tiny], "the game tree is infinite"),
        (vec!["--game", "pacman", "--depth", "2"], "--game pacman needs --layout"),
        (vec!["--game", "pacman", "--layout", &tiny, "--depth", "2", "--eval", "greedy"], "--eval: eval `greedy`"),
    ];
    for (args, message) in cases {
        let (code, out, err) = play(&args);
        assert_eq!(code, 1, "{args:?}: {out}{err}");
        assert!(err.starts_with("error: ") && err.contains(message), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}
