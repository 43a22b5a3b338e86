//! Exactness tests of the cube model against published facts: Kociemba's
//! facelet vectors, the OEIS distance counts, DeepCubeA's test states, and
//! one crafted invalid state per validation rule.

use cube_oracle::cube3::{Cube3, Cube3Puzzle, Cubies, FaceletError, Metric, Turn, notation};
use cube_oracle::puzzle::Puzzle;
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use std::collections::HashSet;

fn read_tsv(name: &str) -> Vec<Vec<String>> {
    let path = format!("{}/data/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines().skip(1).filter(|l| !l.trim().is_empty()).map(|l| l.split('\t').map(str::to_string).collect()).collect()
}

const SOLVED: &str = "UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB";

#[test]
fn solved_cube_prints_and_parses() {
    assert_eq!(Cube3::SOLVED.to_facelets(), SOLVED);
    assert_eq!(Cube3::from_facelets(SOLVED).unwrap(), Cube3::SOLVED);
    assert!(Cube3::SOLVED.is_solved());
}

#[test]
fn kociemba_facelet_vectors_are_reproduced() {
    let rows = read_tsv("cube3-facelet-vectors.tsv");
    assert!(rows.len() >= 20);
    for row in rows {
        let turns = notation::parse(&row[0]).unwrap();
        let cube = Cube3::from_turns(&turns);
        assert_eq!(cube.to_facelets(), row[1], "after {}", row[0]);
        assert_eq!(Cube3::from_facelets(&row[1]).unwrap(), cube);
        // Both metrics agree: the same sequence written in quarter turns.
        assert_eq!(Cube3::from_turns(&notation::to_qtm(&turns)), cube);
        assert_eq!(Cube3::from_turns(&notation::to_htm(&turns)), cube);
    }
}

fn bfs_counts(puzzle: Cube3Puzzle, max_depth: usize) -> Vec<u64> {
    let mut seen: HashSet<u128> = HashSet::new();
    let mut frontier = vec![puzzle.goal()];
    seen.insert(puzzle.key(&frontier[0]));
    let mut counts = vec![1u64];
    for _ in 0..max_depth {
        let mut next = Vec::new();
        for s in &frontier {
            for m in 0..puzzle.num_moves() as u8 {
                let mut c = *s;
                puzzle.apply(&mut c, m);
                if seen.insert(puzzle.key(&c)) {
                    next.push(c);
                }
            }
        }
        counts.push(next.len() as u64);
        frontier = next;
    }
    counts
}

fn published_counts(metric: &str, max_depth: usize) -> Vec<u64> {
    read_tsv("cube3-distance-counts.tsv")
        .into_iter()
        .filter(|r| r[0] == "cube3" && r[1] == metric)
        .filter(|r| r[2].parse::<usize>().unwrap() <= max_depth)
        .map(|r| r[3].parse().unwrap())
        .collect()
}

#[test]
fn bfs_reproduces_qtm_distance_counts_to_depth_6() {
    let expected = published_counts("qtm", 6);
    assert_eq!(expected, [1, 12, 114, 1068, 10011, 93840, 878880]);
    assert_eq!(bfs_counts(Cube3Puzzle::new(Metric::Qtm), 6), expected);
}

#[test]
fn bfs_reproduces_htm_distance_counts_to_depth_5() {
    let expected = published_counts("htm", 5);
    assert_eq!(expected.len(), 6);
    assert_eq!(bfs_counts(Cube3Puzzle::new(Metric::Htm), 5), expected);
}

#[test]
fn all_deepcubea_test_states_are_valid() {
    let rows = read_tsv("cube3-deepcubea-test-1000.tsv");
    assert_eq!(rows.len(), 1000);
    let mut keys = HashSet::new();
    for row in rows {
        let cube = Cube3::from_facelets(&row[1]).unwrap_or_else(|e| panic!("cube {}: {e}", row[0]));
        assert_eq!(cube.to_facelets(), row[1]);
        assert!(!cube.is_solved());
        keys.insert(cube.key());
    }
    assert_eq!(keys.len(), 1000, "the 1000 test cubes are distinct");
}

fn swap(s: &str, a: usize, b: usize) -> String {
    let mut v: Vec<char> = s.chars().collect();
    v.swap(a, b);
    v.into_iter().collect()
}

fn set(s: &str, i: usize, c: char) -> String {
    let mut v: Vec<char> = s.chars().collect();
    v[i] = c;
    v.into_iter().collect()
}

#[test]
fn each_validation_rule_has_its_own_error() {
    let err = |s: &str| Cube3::from_facelets(s).unwrap_err();

    assert_eq!(err(&SOLVED[..53]), FaceletError::WrongLength { len: 53 });
    assert_eq!(err(&format!("{SOLVED}U")), FaceletError::WrongLength { len: 55 });

    assert_eq!(err(&set(SOLVED, 10, 'X')), FaceletError::NotAFace { ch: 'X', position: 11 });

    let e = err(&set(SOLVED, 10, 'U'));
    assert_eq!(e, FaceletError::ColourCount { colour: 'U', count: 10 });
    assert!(e.to_string().contains("colour U appears 10 times"));

    // Swap the R and F centres' colours with stickers so counts stay 9 but
    // two centres read U.
    let two_u_centres = swap(SOLVED, 13, 0);
    assert_eq!(err(&two_u_centres), FaceletError::Centres { centres: "UUFDLB".into() });

    // Opposite colours on one corner: U R D at URF (F3 swapped with D6).
    let e = err(&swap(SOLVED, 20, 32));
    assert_eq!(e, FaceletError::NotACorner { slot: "URF", colours: "URD".into() });
    // A mirror-image corner (colours U L F, in the wrong cyclic order).
    assert!(matches!(err(&swap(SOLVED, 9, 37)), FaceletError::NotACorner { slot: "URF", .. }));

    // U and D on one edge: UR's R sticker swapped with DF's D sticker.
    assert_eq!(err(&swap(SOLVED, 10, 28)), FaceletError::NotAnEdge { slot: "UR", colours: "UD".into() });

    // Corner UFL replaced by a second URF, counts balanced by turning edge
    // UR into a second UL.
    let mut dup = SOLVED.to_string();
    for (i, c) in [(6, 'U'), (18, 'R'), (38, 'F'), (10, 'L')] {
        dup = set(&dup, i, c);
    }
    let e = err(&dup);
    assert_eq!(e, FaceletError::DuplicatePiece { piece: "URF", first: "URF", second: "UFL" });
    assert!(e.to_string().contains("URF piece appears twice"));

    // Twist URF in place: (U9, R1, F3) = (F, U, R).
    let mut twisted = SOLVED.to_string();
    for (i, c) in [(8, 'F'), (9, 'U'), (20, 'R')] {
        twisted = set(&twisted, i, c);
    }
    let e = err(&twisted);
    assert!(matches!(e, FaceletError::CornerTwisted { sum: 1 | 2 }));
    assert!(e.to_string().contains("a corner is twisted"));

    let e = err(&swap(SOLVED, 5, 10));
    assert_eq!(e, FaceletError::EdgeFlipped { flips: 1 });
    assert!(e.to_string().contains("an edge is flipped"));

    // Swap edges UR and UF whole.
    let swapped = swap(&swap(SOLVED, 5, 7), 10, 19);
    let e = err(&swapped);
    assert_eq!(e, FaceletError::PiecesSwapped { corners: "even", edges: "odd" });
    assert!(e.to_string().contains("two pieces are swapped"));
}

#[test]
fn invalid_states_are_rejected_on_scrambled_cubes_too() {
    // The same rules hold away from solved: twist, flip or swap a random cube.
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for _ in 0..200 {
        let c = Cubies::random(&mut rng);
        let good = Cube3::from_cubies(&c);
        assert_eq!(Cube3::from_facelets(&good.to_facelets()).unwrap(), good);
        let mut twisted = c;
        twisted.co[3] = (twisted.co[3] + 1) % 3;
        assert!(matches!(
            Cube3::from_facelets(&Cube3::from_cubies(&twisted).to_facelets()),
            Err(FaceletError::CornerTwisted { .. })
        ));
        let mut flipped = c;
        flipped.eo[5] ^= 1;
        assert!(matches!(
            Cube3::from_facelets(&Cube3::from_cubies(&flipped).to_facelets()),
            Err(FaceletError::EdgeFlipped { .. })
        ));
        let mut swapped = c;
        swapped.cp.swap(0, 7);
        assert!(matches!(
            Cube3::from_facelets(&Cube3::from_cubies(&swapped).to_facelets()),
            Err(FaceletError::PiecesSwapped { .. })
        ));
    }
}

#[test]
fn recoloured_centres_are_renamed() {
    // Rename three colours cyclically (U→R→F→U); the parser renames them
    // back after the colours of the centres and finds the original cube.
    let renamed: String = Cube3::from_turns(&notation::parse("R U F'").unwrap())
        .to_facelets()
        .chars()
        .map(|c| match c {
            'U' => 'R',
            'R' => 'F',
            'F' => 'U',
            o => o,
        })
        .collect();
    assert_eq!(Cube3::from_facelets(&renamed).unwrap(), Cube3::from_turns(&notation::parse("R U F'").unwrap()));
}

fn random_turns(rng: &mut ChaCha8Rng, n: usize) -> Vec<Turn> {
    (0..n).map(|_| Turn::from_id(rng.random_range(0..18))).collect()
}

#[test]
fn random_sequence_then_inverse_is_solved() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    for _ in 0..1000 {
        let len = rng.random_range(1..60);
        let seq = random_turns(&mut rng, len);
        let mut c = Cube3::from_turns(&seq);
        c.apply_turns(&notation::invert(&seq));
        assert!(c.is_solved());
        // One move at a time through the Puzzle trait too.
        let p = Cube3Puzzle::new(Metric::Htm);
        let mut d = Cube3::from_turns(&seq);
        for t in seq.iter().rev() {
            p.undo(&mut d, t.id());
        }
        assert!(d.is_solved());
    }
}

#[test]
fn every_quarter_turn_has_order_four_and_recolours_twelve_stickers() {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    for _ in 0..100 {
        let start = Cube3::from_turns(&random_turns(&mut rng, 30));
        for face in 0..6 {
            let t = Turn::new(face, 1);
            let mut c = start;
            for k in 1..=4 {
                c.apply_turn(t);
                assert_eq!(c == start, k == 4);
            }
        }
    }
    for face in 0..6 {
        let moved = Cube3::from_turns(&[Turn::new(face, 1)])
            .stickers()
            .iter()
            .zip(Cube3::SOLVED.stickers())
            .filter(|(a, b)| a != b)
            .count();
        assert_eq!(moved, 12, "a turn of the solved cube recolours 12 stickers");
    }
}

#[test]
fn one_hot_encoding_round_trips() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let p = Cube3Puzzle::new(Metric::Qtm);
    let mut buf = vec![7.0f32; 324];
    for _ in 0..500 {
        let c = Cube3::from_cubies(&Cubies::random(&mut rng));
        p.encode(&c, &mut buf);
        assert_eq!(buf.iter().filter(|&&x| x == 1.0).count(), 54);
        assert_eq!(buf.iter().filter(|&&x| x == 0.0).count(), 270);
        for (i, &s) in c.stickers().iter().enumerate() {
            assert_eq!(buf[6 * i + s as usize], 1.0);
        }
        assert_eq!(Cube3::decode_one_hot(&buf).unwrap(), c);
    }
    // Batch encoding writes the same rows back to back.
    let states: Vec<Cube3> = (0..5).map(|_| Cube3::from_cubies(&Cubies::random(&mut rng))).collect();
    let mut batch = vec![0.0f32; 5 * 324];
    p.encode_batch(&states, &mut batch);
    for (s, row) in states.iter().zip(batch.chunks_exact(324)) {
        p.encode(s, &mut buf);
        assert_eq!(row, &buf[..]);
    }
}

#[test]
fn keys_identify_states() {
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let cubes: Vec<Cube3> = (0..20_000).map(|_| Cube3::from_cubies(&Cubies::random(&mut rng))).collect();
    let keys: HashSet<u128> = cubes.iter().map(Cube3::key).collect();
    let states: HashSet<Cube3> = cubes.iter().copied().collect();
    assert_eq!(keys.len(), states.len());
    // Pieces round-trip through stickers.
    for c in &cubes[..1000] {
        assert_eq!(Cube3::from_cubies(&c.cubies()), *c);
    }
}

#[test]
fn puzzle_trait_metadata() {
    let q = Cube3Puzzle::new(Metric::Qtm);
    let h = Cube3Puzzle::new(Metric::Htm);
    assert_eq!(q.num_moves(), 12);
    assert_eq!(h.num_moves(), 18);
    let names: Vec<&str> = (0..12).map(|m| q.move_name(m)).collect();
    assert_eq!(names, ["U", "U'", "R", "R'", "F", "F'", "D", "D'", "L", "L'", "B", "B'"]);
    for p in [q, h] {
        for m in 0..p.num_moves() as u8 {
            let mut c = Cube3::SOLVED;
            p.apply(&mut c, m);
            p.apply(&mut c, p.inverse(m));
            assert!(c.is_solved());
            assert_eq!(p.inverse(p.inverse(m)), m);
        }
    }
}
