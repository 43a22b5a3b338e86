//! Sliding-puzzle instances to solve: built-in benchmark sets (embedded with
//! their provenance and goals), TSV files, single boards and random boards.
//!
//! Each built-in set fixes its width and goal, because the published
//! optimal lengths are relative to that goal: Korf's sets use the
//! blank-first goal, DeepCubeA's the blank-last one. Every board is checked
//! for solvability against the goal before any search starts.

use super::error::{SolveError, invalid};
use crate::sliding::{Goal, Sliding};
use rand::SeedableRng;

/// One board to solve.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardInstance {
    /// Identifier within its set.
    pub id: String,
    /// Tiles, row-major, 0 the blank.
    pub tiles: Vec<u8>,
    /// Known optimal length, if any.
    pub optimal: Option<u32>,
}

/// A set of boards of one width and goal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardSet {
    /// Board width.
    pub n: usize,
    /// The goal the optimal lengths refer to.
    pub goal: Goal,
    /// The boards.
    pub instances: Vec<BoardInstance>,
}

const KORF100: &str = include_str!("../../data/puzzle15-korf100.tsv");
const DEEPCUBEA15: &str = include_str!("../../data/puzzle15-deepcubea-test-500.tsv");
const KORF50: &str = include_str!("../../data/puzzle24-korf50.tsv");
const DEEPCUBEA24: &str = include_str!("../../data/puzzle24-deepcubea-test-496.tsv");

/// Built-in sets: `(name, puzzle, description with provenance)`.
pub const BUILT_IN: [(&str, &str, &str); 8] = [
    (
        "korf100",
        "puzzle15",
        "Korf's 100 random 15-puzzles, blank-first goal, optimal mean 53.05; Korf, Artificial Intelligence 1985",
    ),
    ("korf100-10", "puzzle15", "the first 10 instances of `korf100`"),
    (
        "deepcubea15",
        "puzzle15",
        "DeepCubeA's 500 15-puzzle test instances, blank-last goal, optimal mean 52.022; forestagostinelli/DeepCubeA data/puzzle15/test",
    ),
    ("deepcubea15-100", "puzzle15", "the first 100 instances of `deepcubea15`"),
    ("deepcubea15-10", "puzzle15", "the first 10 instances of `deepcubea15`"),
    (
        "korf50",
        "puzzle24",
        "Korf's 50 24-puzzles, blank-first goal, optimal mean 100.78; Korf & Taylor 1996, Korf & Felner 2002",
    ),
    ("korf50-10", "puzzle24", "the first 10 instances of `korf50`"),
    (
        "deepcubea24",
        "puzzle24",
        "DeepCubeA's 496 24-puzzle test instances, blank-last goal, optimal mean 89.41; forestagostinelli/DeepCubeA data/puzzle24/test",
    ),
];

/// Parses a TSV set: a header row, then `id, tiles[, optimal, …]` with the
/// tiles separated by spaces. Every board must have `n²` tiles.
pub fn parse_tsv(text: &str, source: &str, n: usize) -> Result<Vec<BoardInstance>, SolveError> {
    let mut out = Vec::new();
    for row in super::tsv::rows(text, source, "tiles", "optimal")? {
        let line = row.line;
        let tiles: Vec<u8> = row
            .state
            .split_whitespace()
            .map(|t| {
                t.parse::<u8>().map_err(|_| SolveError::Line {
                    set: source.into(),
                    line,
                    rule: format!("tile `{}` is not a number", super::bounds::shorten(t)),
                })
            })
            .collect::<Result<_, _>>()?;
        if tiles.len() != n * n {
            return Err(SolveError::Line {
                set: source.into(),
                line,
                rule: format!("{} tiles, but a {n}×{n} board has {}", tiles.len(), n * n),
            });
        }
        out.push(BoardInstance { id: row.id.to_string(), tiles, optimal: row.optimal });
    }
    if out.is_empty() {
        return Err(invalid!(source, "holds no boards"));
    }
    Ok(out)
}

/// A built-in set by name, or a TSV file (boards of width `n`, goal `goal`).
pub fn load(name_or_path: &str, n: usize, goal: &Goal) -> Result<BoardSet, SolveError> {
    let built_in = |text: &str, name: &str, n: usize, goal: Goal, take: usize| -> Result<BoardSet, SolveError> {
        let mut instances = parse_tsv(text, &format!("built-in {name}"), n)?;
        instances.truncate(take);
        Ok(BoardSet { n, goal, instances })
    };
    let set = match name_or_path {
        "korf100" => built_in(KORF100, "korf100", 4, Goal::BlankFirst, 100)?,
        "korf100-10" => built_in(KORF100, "korf100", 4, Goal::BlankFirst, 10)?,
        "deepcubea15" => built_in(DEEPCUBEA15, "deepcubea15", 4, Goal::BlankLast, 500)?,
        "deepcubea15-100" => built_in(DEEPCUBEA15, "deepcubea15", 4, Goal::BlankLast, 100)?,
        "deepcubea15-10" => built_in(DEEPCUBEA15, "deepcubea15", 4, Goal::BlankLast, 10)?,
        "korf50" => built_in(KORF50, "korf50", 5, Goal::BlankFirst, 50)?,
        "korf50-10" => built_in(KORF50, "korf50", 5, Goal::BlankFirst, 10)?,
        "deepcubea24" => built_in(DEEPCUBEA24, "deepcubea24", 5, Goal::BlankLast, 496)?,
        path => {
            let names: Vec<&str> = BUILT_IN.iter().map(|b| b.0).collect();
            let text = super::tsv::read_file(path, &names)?;
            BoardSet { n, goal: goal.clone(), instances: parse_tsv(&text, path, n)? }
        }
    };
    if set.n != n {
        return Err(invalid!(
            format!("test set `{}`", super::bounds::shorten(name_or_path)),
            "holds {}×{} boards, but the puzzle is {n}×{n}",
            set.n,
            set.n
        ));
    }
    Ok(set)
}

/// `count` boards drawn uniformly among those that can reach the goal.
pub fn random(puzzle: &Sliding, count: usize, seed: u64) -> Vec<BoardInstance> {
    let mut rng = rand::rngs::ChaCha8Rng::seed_from_u64(seed);
    (0..count)
        .map(|i| BoardInstance {
            id: format!("random-{i}"),
            tiles: puzzle.random_solvable(&mut rng).tiles().to_vec(),
            optimal: None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mean_optimal(set: &BoardSet) -> f64 {
        set.instances.iter().map(|i| f64::from(i.optimal.unwrap())).sum::<f64>() / set.instances.len() as f64
    }

    #[test]
    fn built_in_sets_match_their_published_means_and_are_solvable() {
        for (name, n, goal, count, mean) in [
            ("korf100", 4, Goal::BlankFirst, 100, 53.05),
            ("deepcubea15", 4, Goal::BlankLast, 500, 52.022),
            ("korf50", 5, Goal::BlankFirst, 50, 100.78),
            ("deepcubea24", 5, Goal::BlankLast, 496, 89.41),
        ] {
            let set = load(name, n, &Goal::BlankLast).unwrap();
            assert_eq!((set.n, &set.goal, set.instances.len()), (n, &goal, count), "{name}");
            assert!((mean_optimal(&set) - mean).abs() < 0.005, "{name}: {}", mean_optimal(&set));
            let p = Sliding::new(n, goal).unwrap();
            for inst in &set.instances {
                let b = p.board(&inst.tiles).unwrap();
                p.check_solvable(&b).unwrap();
            }
        }
        assert_eq!(load("korf100-10", 4, &Goal::BlankFirst).unwrap().instances.len(), 10);
        let all = load("deepcubea15", 4, &Goal::BlankLast).unwrap();
        for (name, count) in [("deepcubea15-100", 100), ("deepcubea15-10", 10)] {
            let part = load(name, 4, &Goal::BlankLast).unwrap();
            assert_eq!(part.instances.len(), count, "{name}");
            assert!(part.instances.iter().zip(&all.instances).all(|(a, b)| a.id == b.id && a.tiles == b.tiles));
        }
    }

    #[test]
    fn errors_name_the_problem() {
        let e = load("korf100", 5, &Goal::BlankFirst).unwrap_err().to_string();
        assert!(e.contains("4×4") && e.contains("5×5"), "{e}");
        let e = load("no-such-set", 4, &Goal::BlankFirst).unwrap_err().to_string();
        assert!(e.contains("neither a built-in set") && e.contains("korf100"), "{e}");
        let e = format!("{:#}", parse_tsv("id\ttiles\n1\t1 2 x\n", "f.tsv", 2).unwrap_err());
        assert!(e.contains("f.tsv line 2") && e.contains("`x`"), "{e}");
        let e = format!("{:#}", parse_tsv("id\ttiles\n1\t1 2 3\n", "f.tsv", 2).unwrap_err());
        assert!(e.contains("3 tiles"), "{e}");
    }
}
