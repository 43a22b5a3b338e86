//! Published results of learned beam search, to set a sweep beside: one
//! width table per puzzle, keyed by the puzzle's name (`cube3-qtm`,
//! `puzzle15`). A sweep of such a puzzle writes `scaling.csv` (its summary
//! with the published figures at equal width) and draws the published curve
//! on its width plots. The tables are EfficientCube's (Takano, TMLR 2023):
//! the cube on DeepCubeA's 1000 test cubes, the 15-puzzle on DeepCubeA's
//! 500 test boards (from the solutions released in its repository,
//! `results/puzzle15`; github.com/kyo-takano/efficientcube).

/// One published width.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PublishedRow {
    /// log2 of the beam width.
    pub beam_log2: u32,
    /// Mean solution length.
    pub mean_length: f64,
    /// Share of solutions of optimal length, %.
    pub optimal_pct: f64,
    /// Seconds per instance on the authors' GPU.
    pub s_per_instance: f64,
}

/// A published width table.
#[derive(Clone, Copy, Debug)]
pub struct Published {
    /// The puzzle's name, as `Puzzle::name` gives it.
    pub puzzle: &'static str,
    /// Who, on which set.
    pub source: &'static str,
    /// The rows, by increasing width.
    pub rows: &'static [PublishedRow],
}

const fn row(beam_log2: u32, mean_length: f64, optimal_pct: f64, s_per_instance: f64) -> PublishedRow {
    PublishedRow { beam_log2, mean_length, optimal_pct, s_per_instance }
}

/// EfficientCube on DeepCubeA's 1000 cubes (QTM, T4 GPU).
pub const EFFICIENTCUBE_CUBE3: Published = Published {
    puzzle: "cube3-qtm",
    source: "EfficientCube (published), DeepCubeA's 1000 cubes",
    rows: &[
        row(7, 25.18, 5.7, 0.28),
        row(8, 24.40, 7.3, 0.49),
        row(9, 23.79, 10.7, 1.03),
        row(10, 23.30, 14.9, 2.01),
        row(11, 22.91, 18.8, 5.52),
        row(12, 22.56, 25.8, 10.7),
        row(13, 22.22, 33.3, 19.4),
        row(14, 21.97, 40.5, 31.4),
        row(15, 21.75, 48.1, 62.6),
        row(16, 21.55, 56.3, 126.0),
        row(17, 21.41, 62.7, 264.0),
        row(18, 21.26, 69.6, 484.0),
    ],
};

/// EfficientCube on DeepCubeA's 500 15-puzzles (blank-last goal).
pub const EFFICIENTCUBE_PUZZLE15: Published = Published {
    puzzle: "puzzle15",
    source: "EfficientCube (published), DeepCubeA's 500 15-puzzles",
    rows: &[
        row(0, 59.47, 8.2, 0.10),
        row(2, 56.17, 19.4, 0.13),
        row(4, 54.01, 40.0, 0.18),
        row(6, 52.97, 63.8, 0.37),
        row(8, 52.45, 81.6, 1.27),
        row(10, 52.24, 90.4, 4.80),
        row(12, 52.13, 95.4, 19.6),
        row(14, 52.05, 99.0, 80.1),
        row(16, 52.022, 100.0, 313.9),
    ],
};

/// The published table for the puzzle named `puzzle`, if there is one.
#[must_use]
pub fn for_puzzle(puzzle: &str) -> Option<&'static Published> {
    [&EFFICIENTCUBE_CUBE3, &EFFICIENTCUBE_PUZZLE15].into_iter().find(|p| p.puzzle == puzzle)
}

impl Published {
    /// The row at beam width `width`, if published.
    #[must_use]
    pub fn at(&self, width: usize) -> Option<&PublishedRow> {
        self.rows.iter().find(|r| 1usize.checked_shl(r.beam_log2) == Some(width))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_found_by_name_and_lengths_fall_with_width_to_the_optimum() {
        assert_eq!(for_puzzle("cube3-qtm").unwrap().at(1024).unwrap().mean_length, 23.30);
        assert_eq!(for_puzzle("puzzle15").unwrap().at(1024).unwrap().optimal_pct, 90.4);
        assert!(for_puzzle("cube3-htm").is_none() && for_puzzle("puzzle15-blank-first").is_none());
        // Wider beams never do worse, and no mean falls below the set's
        // optimal mean (20.637 QTM; 52.022 moves).
        for (table, optimum) in [(&EFFICIENTCUBE_CUBE3, 20.637), (&EFFICIENTCUBE_PUZZLE15, 52.022)] {
            for w in table.rows.windows(2) {
                assert!(w[0].beam_log2 < w[1].beam_log2 && w[0].mean_length >= w[1].mean_length);
                assert!(w[0].optimal_pct <= w[1].optimal_pct);
            }
            assert!(table.rows.iter().all(|r| r.mean_length >= optimum));
        }
    }
}
