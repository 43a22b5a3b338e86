//! `play` end to end: the printed value, best move and node counts on the
//! sticks game and tic-tac-toe, a Pacman layout, the node-count CSV (and
//! its refusal to overwrite), and every kind of bad input answered with a
//! message naming the option, value and rule, and exit status 1; then the
//! bounds: the depth caps, the node budget, tables that end with the game,
//! output paths that are not regular files, layout files read only as far
//! as a layout can go, and one-line error messages.

use crate::common::sticks_tree;
use cube_oracle::games::pacman::layout::MAX_FILE_BYTES;
use cube_oracle::games::pacman::{Eval, Layout, MAX_DEPTH, Pacman};
use cube_oracle::games::play::DEFAULT_MAX_NODES;
use cube_oracle::games::tictactoe::TicTacToe;
use cube_oracle::games::{Game, Ordering, alpha_beta};
use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

fn play(args: &[&str]) -> (i32, String, String) {
    let o = crate::common::command(env!("CARGO_BIN_EXE_play")).args(args).output().unwrap();
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
    let no_ghost_layout = temp("no-ghost.lay");
    std::fs::write(&no_ghost_layout, "%%%%%\n%P..%\n%%%%%\n").unwrap();
    let no_ghost = no_ghost_layout.display().to_string();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--game", "chess"], "--game: game `chess`: unknown game"),
        (vec!["--game", "sticks", "--piles", "3,5", "--overwrite"], "--overwrite applies only with --csv"),
        (vec!["--game", "pacman", "--layout", &no_ghost, "--depth", "2"], "0 ghosts (G); pacman plays 1 to 8"),
        (vec!["--game", "sticks", "--piles", "3,x"], "--piles `3,x`: `x` is not a whole number"),
        (vec!["--game", "sticks"], "--game sticks needs --piles"),
        (
            vec!["--game", "sticks", "--piles", "3,5", "--method", "negamax"],
            "--method: method `negamax`: unknown method",
        ),
        (vec!["--game", "sticks", "--piles", "3,5", "--depth", "0"], "depth 0"),
        (vec!["--game", "tictactoe", "--piles", "3,5"], "--piles applies to --game sticks, not tictactoe"),
        (vec!["--game", "tictactoe", "--board", "xxx/ooo/..."], "both x and o have three in a row"),
        (vec!["--game", "pacman", "--layout", &bad, "--depth", "2"], "line 2 column 3: `?` is not a layout character"),
        (vec!["--game", "pacman", "--layout", &tiny, "--ghosts", "3", "--depth", "2"], "--ghosts 3: layout"),
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

// ---------------------------------------------------------------------------
// Bounds: hostile depths, trees too big for the method, tables past the end
// of the game, output paths that are not regular files, oversized layout
// files, and the shape of every error message. Each run is killed (and the
// test fails) if it takes longer than `LIMIT_S`.
// ---------------------------------------------------------------------------

/// The longest any run of the bounded cases may take.
const LIMIT_S: f64 = 10.0;

/// `play` with `args`, killed if it runs past `LIMIT_S`: exit status (−1
/// for a signal: a stack overflow or an abort), stdout, stderr, seconds.
fn play_bounded(args: &[&str]) -> (i32, String, String, f64) {
    use std::io::Read;
    use std::process::Stdio;
    let start = Instant::now();
    let mut child = crate::common::command(env!("CARGO_BIN_EXE_play"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let read = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            String::from_utf8_lossy(&bytes).to_string()
        })
    };
    let out = read(Box::new(child.stdout.take().unwrap()));
    let err = read(Box::new(child.stderr.take().unwrap()));
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let seconds = start.elapsed().as_secs_f64();
            return (status.code().unwrap_or(-1), out.join().unwrap(), err.join().unwrap(), seconds);
        }
        if start.elapsed().as_secs_f64() > LIMIT_S {
            let _ = child.kill();
            let _ = child.wait();
            panic!("play {args:?} ran past {LIMIT_S} s");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// A refusal: exit status 1, nothing on stdout, one `error:` line without
/// a panic, Debug formatting or a cause said twice. Returns the line.
fn refused(args: &[&str]) -> String {
    let (code, out, err, _) = play_bounded(args);
    assert_eq!(code, 1, "{args:?}: {out}{err}");
    assert!(out.is_empty(), "{args:?}: {out}");
    one_line_error(&err, args);
    err
}

fn one_line_error(err: &str, args: &[&str]) {
    let shown: Vec<String> = args.iter().map(|a| a.chars().take(60).collect()).collect();
    assert!(err.starts_with("error: ") && err.ends_with('\n'), "{shown:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{shown:?}: {err}");
    assert!(err.chars().count() < 400, "{shown:?}: a {}-character message", err.chars().count());
    for debug in ["panicked", "Os {", "kind:", "Custom {", "Error {", "\\\""] {
        assert!(!err.contains(debug), "{shown:?}: {err}");
    }
    let parts: Vec<&str> = err.trim_end().split(": ").collect();
    for (i, p) in parts.iter().enumerate() {
        assert!(!parts[i + 1..].contains(p), "{shown:?}: `{p}` said twice in {err}");
    }
}

/// The tiny layout as the tests search it.
fn tiny_pacman() -> Pacman {
    let layout = Layout::read(std::path::Path::new(&data("data/pacman/tiny.lay"))).unwrap();
    let ghosts = layout.ghosts().len();
    Pacman::new(layout, ghosts, Eval::Ratio).unwrap()
}

/// The number after `key` in `text` (up to the next non-digit).
fn number_after(text: &str, key: &str) -> u32 {
    let at = text.find(key).unwrap_or_else(|| panic!("no `{key}` in {text}")) + key.len();
    text[at..].chars().take_while(char::is_ascii_digit).collect::<String>().parse().unwrap()
}

#[test]
fn deep_pacman_is_refused_over_the_cap_and_stopped_by_the_budget_under_it() {
    let tiny = data("data/pacman/tiny.lay");
    // Over the cap: refused at once, naming --depth and the cap (depth
    // 50,000 overflowed the stack; 1,000 to 20,000 ran for ever).
    for depth in ["50000", "20000", "2000", "1001", "4294967296", "99999999999999999999999"] {
        let err = refused(&["--game", "pacman", "--layout", &tiny, "--depth", depth]);
        assert!(err.contains(&format!("--depth {depth}: pacman searches at most {MAX_DEPTH} plies")), "{err}");
    }
    // At the cap with the default budget: αβ is stopped in bounded time.
    let max = MAX_DEPTH.to_string();
    let err = refused(&["--game", "pacman", "--layout", &tiny, "--depth", &max]);
    let expected = format!("--max-nodes {DEFAULT_MAX_NODES}: alphabeta to depth {MAX_DEPTH} needs more than");
    assert!(err.contains(&expected), "{err}");
    // Iterative deepening to the cap returns the deepest depth the budget
    // finishes, labelled partial, with αβ's value at that depth.
    let (code, out, err, _) = play_bounded(&[
        "--game",
        "pacman",
        "--layout",
        &tiny,
        "--depth",
        &max,
        "--method",
        "iterative",
        "--max-nodes",
        "2e6",
    ]);
    assert_eq!(code, 0, "{err}");
    let stopped = number_after(&out, "partial result: depth ");
    let done = stopped - 1;
    // The stopped depth's own work is reported beside the finished depths'.
    let made = number_after(&out, &format!("stopped depth {stopped}: "));
    assert!(made > 2_000_000, "the stopped depth made more than the budget: {out}");
    assert!((5..MAX_DEPTH).contains(&done), "{out}");
    assert!(out.contains(&format!("the value and move below are depth {done}'s")), "{out}");
    assert!(out.contains(&format!("  depth {done}: ")) && !out.contains(&format!("  depth {stopped}: ")), "{out}");
    let line = out.lines().find(|l| l.starts_with("value: ")).unwrap();
    let printed: f64 = line["value: ".len()..].split_whitespace().next().unwrap().parse().unwrap();
    let mut p = tiny_pacman();
    let exact = alpha_beta(&mut p, Some(done), Ordering::None).value;
    assert!((printed - exact).abs() < 1e-4, "printed {printed}, αβ at depth {done} gives {exact}");
}

#[test]
fn sticks_12_12_minimax_is_stopped_by_the_node_budget() {
    // The full tree is far beyond the default budget: minimax is stopped
    // with the reason, where it used to run for minutes.
    assert!(sticks_tree(12, 12, &mut HashMap::new()) > 100 * DEFAULT_MAX_NODES);
    let err = refused(&["--game", "sticks", "--piles", "12,12", "--method", "minimax"]);
    let expected = format!("--max-nodes {DEFAULT_MAX_NODES}: minimax to the end of the game needs more than");
    assert!(err.contains(&expected) && err.contains("--depth"), "{err}");
    // Ordered αβ fits and finds the game's value: equal piles, the mover loses.
    let (code, out, err, _) = play_bounded(&["--game", "sticks", "--piles", "12,12", "--method", "alphabeta-ordered"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("value: -1 (from MAX's view)"), "{out}");
    // The budget is exact for minimax: the full tic-tac-toe tree is
    // 549,946 positions, all of them made.
    let (code, out, err, _) = play_bounded(&["--game", "tictactoe", "--method", "minimax", "--max-nodes", "549946"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("value: 0 (from MAX's view)"), "{out}");
    assert_eq!(number(&out, "nodes:"), 549_946);
    let err = refused(&["--game", "tictactoe", "--method", "minimax", "--max-nodes", "549_945"]);
    assert!(err.contains("--max-nodes 549945: minimax to the end of the game needs more than 549945"), "{err}");
    for bad in ["0", "x", "-5", "1e30", "1.5e6", ""] {
        let err = refused(&["--game", "tictactoe", "--max-nodes", bad]);
        assert!(err.contains(&format!("--max-nodes `{bad}`: give a whole number")), "{err}");
    }
}

/// The longest line of the game tree from `b`, in plies.
fn longest_line(b: &mut TicTacToe) -> u32 {
    let mut moves = Vec::new();
    b.moves(&mut moves);
    let mut longest = 0;
    for m in moves {
        b.apply(m);
        longest = longest.max(1 + longest_line(b));
        b.undo(m, ());
    }
    longest
}

/// The data rows of a `--csv` table.
fn table_rows(path: &std::path::Path) -> Vec<Vec<String>> {
    std::fs::read_to_string(path).unwrap().lines().skip(1).map(fields).collect()
}

/// Every method has every depth `1..=last` once and nothing deeper.
fn assert_depths(rows: &[Vec<String>], last: u32) {
    assert_eq!(rows.len(), 4 * last as usize, "{rows:?}");
    for method in ["minimax", "alphabeta", "alphabeta-ordered", "iterative"] {
        let depths: Vec<u32> = rows.iter().filter(|r| r[2] == method).map(|r| r[3].parse().unwrap()).collect();
        assert_eq!(depths, (1..=last).collect::<Vec<_>>(), "{method}");
    }
}

#[test]
fn csv_table_stops_at_the_end_of_the_game() {
    // Sticks: every move takes at least one stick, and taking one at a
    // time is a line of the game, so the tree ends at the number of sticks.
    let csv = temp("end-sticks.csv");
    let _ = std::fs::remove_file(&csv);
    let path = csv.display().to_string();
    let piles = [3u32, 5];
    let end: u32 = piles.iter().sum();
    let (code, out, err, _) = play_bounded(&["--game", "sticks", "--piles", "3,5", "--depth", "8000", "--csv", &path]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(&format!("node counts for depths 1..={end} (the game tree ends at depth {end})")), "{out}");
    let rows = table_rows(&csv);
    assert_depths(&rows, end);
    let last = rows.iter().find(|r| r[2] == "minimax" && r[3] == end.to_string()).unwrap();
    assert_eq!((last[4].as_str(), last[9].as_str()), ("1.0", "0"), "the whole game: value +1, no cutoff");
    // Tic-tac-toe from a position: the tree's longest line, searched here.
    let board = "xo./xo./...";
    let end = longest_line(&mut board.parse().unwrap());
    let empty = board.chars().filter(|&c| c == '.').count() as u32;
    assert!(end > 1 && end <= empty);
    std::fs::remove_file(&csv).unwrap();
    let (code, out, err, _) =
        play_bounded(&["--game", "tictactoe", "--board", board, "--depth", "9", "--method", "minimax", "--csv", &path]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(&format!("(the game tree ends at depth {end})")), "{out}");
    assert_depths(&table_rows(&csv), end);
    // The empty board: all nine plies, and its value 0 at the end.
    std::fs::remove_file(&csv).unwrap();
    let (code, _, err, _) = play_bounded(&["--game", "tictactoe", "--depth", "9", "--csv", &path]);
    assert_eq!(code, 0, "{err}");
    let rows = table_rows(&csv);
    assert_depths(&rows, longest_line(&mut TicTacToe::new()));
    // At depth 9 every method has the game's value 0 and (but iterative
    // deepening, whose row sums its iterations) no cutoff.
    let at_9 = rows.iter().filter(|r| r[3] == "9");
    assert!(at_9.clone().all(|r| r[4] == "0.0"), "{rows:?}");
    assert!(at_9.filter(|r| r[2] != "iterative").all(|r| r[9] == "0"), "{rows:?}");
    // Depths past any game are refused, not tabulated.
    let err = refused(&["--game", "tictactoe", "--depth", "1000000", "--csv", &path, "--overwrite"]);
    assert!(err.contains("--depth 1000000: tictactoe searches at most 9 plies"), "{err}");
    let err = refused(&["--game", "sticks", "--piles", "3,5", "--depth", "8001"]);
    assert!(err.contains("--depth 8001: sticks searches at most 8000 plies"), "{err}");
    // Pacman's tree never ends: the table ends before the first depth the
    // budget cannot pay for, and says so.
    std::fs::remove_file(&csv).unwrap();
    let tiny = data("data/pacman/tiny.lay");
    let args = ["--game", "pacman", "--layout", &tiny, "--depth", "1000", "--method", "iterative"];
    let (code, out, err, _) = play_bounded(&[&args[..], &["--max-nodes", "300000", "--csv", &path]].concat());
    assert_eq!(code, 0, "{err}");
    let last = number_after(&out, "node counts for depths 1..=");
    assert!(out.contains(&format!("depth {} not included", last + 1)) && out.contains("--max-nodes 300000"), "{out}");
    assert!(last >= 3, "{out}");
    assert_depths(&table_rows(&csv), last);
    std::fs::remove_file(&csv).unwrap();
}

#[cfg(unix)]
#[test]
fn csv_targets_that_are_not_regular_files_are_refused_and_left_intact() {
    use std::os::unix::fs::{FileTypeExt, symlink};
    let dir = temp("special");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("fifo.csv");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let target = dir.join("target.txt");
    std::fs::write(&target, "keep me\n").unwrap();
    let link = dir.join("link.csv");
    symlink(&target, &link).unwrap();
    let dangling = dir.join("dangling.csv");
    symlink(dir.join("nowhere"), &dangling).unwrap();
    let folder = dir.join("folder.csv");
    std::fs::create_dir(&folder).unwrap();
    let cases =
        [(&fifo, "a FIFO"), (&link, "a symbolic link"), (&dangling, "a symbolic link"), (&folder, "a directory")];
    for (path, kind) in cases {
        let p = path.display().to_string();
        for overwrite in [false, true] {
            let mut args = vec!["--game", "sticks", "--piles", "3,5", "--csv", &p];
            if overwrite {
                args.push("--overwrite");
            }
            let err = refused(&args);
            assert!(err.contains(&format!("{kind}, not a regular file")), "{err}");
        }
    }
    assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo(), "the FIFO was replaced");
    assert_eq!(std::fs::read_link(&link).unwrap(), target);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep me\n");
    assert_eq!(std::fs::read_link(&dangling).unwrap(), dir.join("nowhere"));
    assert!(!dir.join("nowhere").exists());
    assert!(std::fs::symlink_metadata(&folder).unwrap().is_dir());
    let mut names: Vec<String> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().to_string()).collect();
    names.sort();
    assert_eq!(names, ["dangling.csv", "fifo.csv", "folder.csv", "link.csv", "target.txt"], "no file left behind");
    // A regular file keeps today's rule: refused without --overwrite.
    let err = refused(&["--game", "sticks", "--piles", "3,5", "--csv", &target.display().to_string()]);
    assert!(err.contains("the file exists; --overwrite replaces it"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A valid layout of `MAX_SIDE` rows of `MAX_SIDE` cells, CRLF line ends.
fn largest_layout() -> String {
    let side = cube_oracle::games::pacman::layout::MAX_SIDE;
    let mut text = String::new();
    for r in 0..side {
        let row = match r {
            0 => format!("P{}G", ".".repeat(side - 2)),
            _ => ".".repeat(side),
        };
        text.push_str(&row);
        text.push_str("\r\n");
    }
    text
}

#[test]
fn layout_files_are_read_only_as_far_as_a_layout_can_go() {
    // The largest layout the format allows is exactly the byte limit.
    let big = temp("largest.lay");
    let text = largest_layout();
    assert_eq!(text.len() as u64, MAX_FILE_BYTES);
    std::fs::write(&big, &text).unwrap();
    let path = big.display().to_string();
    let (code, out, err, _) = play_bounded(&["--game", "pacman", "--layout", &path, "--depth", "2"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("1 ghost"), "{out}");
    // One byte more (a blank line the parser would skip) is refused unread.
    std::fs::write(&big, format!("{text}\n")).unwrap();
    let err = refused(&["--game", "pacman", "--layout", &path, "--depth", "2"]);
    assert!(err.contains(&format!("more than {MAX_FILE_BYTES} bytes")), "{err}");
    // So is a 1 GiB file (sparse: nothing is on the disk), at once.
    let huge = temp("huge.lay");
    std::fs::File::create(&huge).unwrap().set_len(1 << 30).unwrap();
    let start = Instant::now();
    let err = refused(&["--game", "pacman", "--layout", &huge.display().to_string(), "--depth", "2"]);
    assert!(err.contains(&format!("more than {MAX_FILE_BYTES} bytes")), "{err}");
    assert!(start.elapsed() < Duration::from_secs(2), "{:?}", start.elapsed());
    std::fs::remove_file(&huge).unwrap();
    std::fs::remove_file(&big).unwrap();
    // A directory, or a FIFO (which would block the read for ever).
    let folder = temp("folder.lay");
    std::fs::create_dir_all(&folder).unwrap();
    let err = refused(&["--game", "pacman", "--layout", &folder.display().to_string(), "--depth", "2"]);
    assert!(err.contains("a directory, not a regular file"), "{err}");
    std::fs::remove_dir(&folder).unwrap();
    #[cfg(unix)]
    {
        let fifo = temp("fifo.lay");
        let _ = std::fs::remove_file(&fifo);
        assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        let err = refused(&["--game", "pacman", "--layout", &fifo.display().to_string(), "--depth", "2"]);
        assert!(err.contains("a FIFO, not a regular file"), "{err}");
        std::fs::remove_file(&fifo).unwrap();
    }
}

#[test]
fn error_messages_are_one_short_line() {
    let tiny = data("data/pacman/tiny.lay");
    let cr = temp("cr.lay");
    std::fs::write(&cr, "%%%%%\n%P\r.%\n%%%%%\n").unwrap();
    let cr = cr.display().to_string();
    let long_game = "chess".repeat(1000);
    let long_piles = "3,".repeat(3000);
    let long_item = format!("3,{}", "x".repeat(5000));
    let long_path = format!("/no/{}.lay", "d".repeat(3000));
    let long_depth = "9".repeat(100);
    let sticks = ["--game", "sticks", "--piles", "3,5"];
    let with = |extra: &[&'static str]| [&sticks[..], extra].concat();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--game", &long_game], "--game: game `chesschess"),
        (vec!["--game", "sticks", "--piles", &long_piles], "--piles `3,3,3,"),
        (vec!["--game", "sticks", "--piles", &long_item], "is not a whole number of sticks"),
        (vec!["--game", "tictactoe", "--board", "x..\n.o./..."], "--board `x..\\n.o./...`: 2 rows"),
        (vec!["--game", "sticks", "--piles", "3,5", "--depth", &long_depth], "sticks searches at most 8000 plies"),
        (with(&["--depth", "abc"]), "--depth `abc`: not a whole number of plies"),
        (with(&["--depth", "-1"]), "--depth `-1`: not a whole number of plies"),
        (with(&["--depth", "0"]), "--depth 0: a search looks at least one ply ahead"),
        (vec!["--game", "pacman", "--layout", &tiny, "--depth", "2", "--ghosts", "many"], "--ghosts `many`"),
        (vec!["--game", "pacman", "--layout", &long_path, "--depth", "2"], "reading layout /no/ddd"),
        (vec!["--game", "pacman", "--layout", "no/such.lay", "--depth", "2"], "reading layout no/such.lay: "),
        (vec!["--game", "pacman", "--layout", &cr, "--depth", "2"], "line 2 column 3: `\\r` is not a layout character"),
    ];
    for (args, message) in cases {
        let err = refused(&args);
        assert!(err.contains(message), "{message}: {err}");
        if args.iter().any(|a| a.chars().count() > 1000) {
            assert!(err.contains('…'), "a long value is shortened: {err}");
        }
    }
    std::fs::remove_file(&cr).unwrap();
}
