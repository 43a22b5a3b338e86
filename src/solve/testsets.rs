//! Cube instances to solve: built-in test sets (embedded in the binary with
//! their provenance), TSV files, single cubes and random cubes.

use super::error::{SolveError, invalid};
use crate::cube3::{Cube3, Cube3Puzzle, notation};
use crate::puzzle::Puzzle;
use crate::scramble::{Scrambler, WalkLength};

/// One cube to solve.
#[derive(Clone, Debug, PartialEq)]
pub struct Instance {
    /// Identifier within its set.
    pub id: String,
    /// The cube.
    pub cube: Cube3,
    /// Known optimal QTM length, if any.
    pub optimal_qtm: Option<u32>,
}

const DEEPCUBEA: &str = include_str!("../../data/cube3-deepcubea-test-1000.tsv");

/// Built-in sets: `(name, description with provenance)`.
pub const BUILT_IN: [(&str, &str); 3] = [
    (
        "deepcubea",
        "DeepCubeA's 1000 test cubes with optimal QTM lengths (mean 20.637); Agostinelli et al., Nature Machine Intelligence 2019, forestagostinelli/DeepCubeA data/cube3/test; EfficientCube's test set",
    ),
    ("deepcubea-100", "the first 100 cubes of `deepcubea`"),
    ("deepcubea-10", "the first 10 cubes of `deepcubea`"),
];

/// Parses a TSV test set: a header row, then `id, facelets[, optimal_qtm]`.
pub fn parse_tsv(text: &str, source: &str) -> Result<Vec<Instance>, SolveError> {
    let mut out = Vec::new();
    for row in super::tsv::rows(text, source, "facelets", "optimal_qtm")? {
        let cube = Cube3::from_facelets(row.state).map_err(|e| SolveError::Line {
            set: source.into(),
            line: row.line,
            rule: format!("cube {}: {e}", super::bounds::shorten(row.id)),
        })?;
        out.push(Instance { id: row.id.to_string(), cube, optimal_qtm: row.optimal });
    }
    if out.is_empty() {
        return Err(invalid!(source, "holds no cubes"));
    }
    Ok(out)
}

/// A built-in set by name, or a TSV file by path.
pub fn load(name_or_path: &str) -> Result<Vec<Instance>, SolveError> {
    let take = |n: usize| -> Result<Vec<Instance>, SolveError> {
        let mut v = parse_tsv(DEEPCUBEA, "built-in deepcubea")?;
        v.truncate(n);
        Ok(v)
    };
    match name_or_path {
        "deepcubea" => take(1000),
        "deepcubea-100" => take(100),
        "deepcubea-10" => take(10),
        path => {
            let names: Vec<&str> = BUILT_IN.iter().map(|b| b.0).collect();
            parse_tsv(&super::tsv::read_file(path, &names)?, path)
        }
    }
}

/// `n` cubes from `len`-move random walks (pruned) of stream `seed`.
pub fn random(puzzle: &Cube3Puzzle, n: usize, len: usize, seed: u64) -> Result<Vec<Instance>, SolveError> {
    let mut s = Scrambler::new(*puzzle, WalkLength::Fixed(len), true, seed, 1 << 61)?;
    Ok((0..n)
        .map(|i| {
            let cube = s.walk().last().map_or(puzzle.goal(), |st| st.state);
            Instance { id: format!("random-{i}"), cube, optimal_qtm: None }
        })
        .collect())
}

/// One cube given as a move sequence from solved.
pub fn from_scramble(moves: &str) -> Result<Instance, SolveError> {
    let turns = notation::parse(moves)?;
    Ok(Instance { id: "scramble".into(), cube: Cube3::from_turns(&turns), optimal_qtm: None })
}

/// One cube given as a facelet string.
pub fn from_facelets(text: &str) -> Result<Instance, SolveError> {
    Ok(Instance { id: "facelets".into(), cube: Cube3::from_facelets(text)?, optimal_qtm: None })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_sets_and_errors() {
        let all = load("deepcubea").unwrap();
        assert_eq!(all.len(), 1000);
        let mean = all.iter().map(|i| i.optimal_qtm.unwrap() as f64).sum::<f64>() / 1000.0;
        assert!((mean - 20.637).abs() < 1e-9);
        assert_eq!(load("deepcubea-10").unwrap().len(), 10);
        let e = load("no-such-set").unwrap_err().to_string();
        assert!(e.contains("neither a built-in set") && e.contains("deepcubea"), "{e}");
        let e = format!("{:#}", parse_tsv("id\tfacelets\n7\tUUU\n", "x.tsv").unwrap_err());
        assert!(e.contains("x.tsv line 2") && e.contains("54 characters"), "{e}");
    }
}
