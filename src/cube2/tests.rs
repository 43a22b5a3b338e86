//! Tests of the 2×2×2 model against facts that do not come from it: the
//! 3×3×3's independent sticker model (its corner stickers), the published
//! order of `R U`, and the OEIS distance counts of the whole space in both
//! metrics (`data/cube3-distance-counts.tsv`, A079761 and A079762), found
//! by a breadth-first search over a flat array indexed by [`Cube2::index`].

use super::*;
use crate::cube3::Cube3;
use crate::cube3::notation::{self as n3, NotationError};
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use std::time::Instant;

const SOLVED: &str = "UUUURRRRFFFFDDDDLLLLBBBB";

/// The 24 corner stickers of a 3×3×3 facelet string: the four corners of
/// each face, in reading order (written out here, not taken from the model).
fn corner_stickers(c: &Cube3) -> String {
    let f: Vec<char> = c.to_facelets().chars().collect();
    (0..6).flat_map(|face| [0, 2, 6, 8].map(|k| f[face * 9 + k])).collect()
}

fn turns(text: &str) -> Vec<Turn> {
    n3::parse(text).unwrap()
}

/// A random sequence of `len` turns of the first `faces` faces.
fn random_turns(rng: &mut ChaCha8Rng, faces: u8, len: usize) -> Vec<Turn> {
    (0..len).map(|_| Turn::new(rng.random_range(0..faces), rng.random_range(1..4))).collect()
}

#[test]
fn moves_are_named_and_undone_by_their_inverses() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    for (metric, names) in [(Metric::Qtm, "U U' R R' F F'"), (Metric::Htm, "U U2 U' R R2 R' F F2 F'")] {
        let p = Cube2Puzzle::new(metric);
        assert_eq!(p.name(), format!("cube2-{metric}"));
        let got: Vec<&str> = (0..p.num_moves() as MoveId).map(|m| p.move_name(m)).collect();
        assert_eq!(got.join(" "), names);
        for _ in 0..50 {
            let s = Cube2::random(&mut rng);
            for m in 0..p.num_moves() as MoveId {
                let mut c = s;
                p.apply(&mut c, m);
                assert_ne!(c, s, "{} moves something", p.move_name(m));
                p.apply(&mut c, p.inverse(m));
                assert_eq!(c, s);
                p.apply(&mut c, m);
                p.undo(&mut c, m);
                assert_eq!(c, s);
            }
        }
    }
}

#[test]
fn quarter_turns_have_order_four() {
    for face in ["U", "R", "F"] {
        let mut c = Cube2::SOLVED;
        for k in 1..=4 {
            c.apply_turn(turns(face)[0]);
            assert_eq!(c.is_solved(), k == 4, "{face}^{k}");
        }
    }
}

/// Smallest k ≥ 1 with `step^k` = identity, by repetition.
fn order<S: PartialEq + Clone>(start: &S, mut step: impl FnMut(&mut S)) -> usize {
    let mut s = start.clone();
    (1..10_000)
        .find(|_| {
            step(&mut s);
            s == *start
        })
        .expect("finite order")
}

#[test]
fn r_u_has_order_15_on_the_corners() {
    // `R U` has order 105 on the 3×3×3 (a classic fact, checked below on
    // the independent sticker model): a 7-cycle of edges and a 5-cycle of
    // corners that twist, 105 = lcm(7, 15). The 2×2×2 sees the corners: 15.
    let ru = turns("R U");
    let on_cube2 = order(&Cube2::SOLVED, |c| ru.iter().for_each(|&t| c.apply_turn(t)));
    assert_eq!(on_cube2, 15);
    // The same order on the corner stickers of the independent 3×3×3 model,
    // and the whole 3×3×3 needs 105.
    let mut c3 = Cube3::SOLVED;
    let on_corners = order(&corner_stickers(&c3), |s| {
        c3.apply_turns(&ru);
        *s = corner_stickers(&c3);
    });
    assert_eq!(on_corners, 15);
    assert_eq!(order(&Cube3::SOLVED, |c| c.apply_turns(&ru)), 105);
    // The commutator R U R' U' has order 6 on both.
    let sexy = turns("R U R' U'");
    assert_eq!(order(&Cube2::SOLVED, |c| sexy.iter().for_each(|&t| c.apply_turn(t))), 6);
    assert_eq!(order(&Cube3::SOLVED, |c| c.apply_turns(&sexy)), 6);
}

#[test]
fn turns_match_the_corners_of_the_3x3x3() {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    assert_eq!(Cube2::SOLVED.to_facelets(), SOLVED);
    assert_eq!(corner_stickers(&Cube3::SOLVED), SOLVED);
    for len in 0..60 {
        let seq = random_turns(&mut rng, 3, len);
        let want = corner_stickers(&Cube3::from_turns(&seq));
        assert_eq!(Cube2::from_turns(&seq).to_facelets(), want, "{}", n3::format(&seq));
    }
}

#[test]
fn index_is_a_bijection_onto_the_range() {
    assert_eq!(Cube2::SOLVED.index(), 0);
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    // States made by turning (not by index) round-trip.
    for len in 0..200 {
        let s = Cube2::from_turns(&random_turns(&mut rng, 3, len));
        let i = s.index();
        assert!(i < N_STATES);
        assert_eq!(Cube2::from_index(i), s);
    }
    // Every index names a distinct state that maps back to it, a real cube
    // with DBL home.
    for i in 0..N_STATES {
        let s = Cube2::from_index(i);
        assert_eq!(s.index(), i);
        let c = s.corners();
        assert_eq!((c.cp[6], c.co[6], c.twist_sum()), (6, 0, 0));
    }
    assert_eq!(Cube2::from_index(N_STATES - 1).index(), N_STATES - 1);
}

#[test]
#[should_panic(expected = "is not below")]
fn an_index_out_of_range_is_a_programming_error() {
    let _ = Cube2::from_index(N_STATES);
}

#[test]
fn random_positions_are_seeded_and_spread() {
    let draw = |seed| {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        (0..70_000).map(|_| Cube2::random(&mut rng)).collect::<Vec<_>>()
    };
    let a = draw(4);
    assert_eq!(a, draw(4));
    assert_ne!(a, draw(5));
    // Each of the 7 movable pieces lands in slot URF about 1/7 of the time,
    // and each twist of URF about 1/3.
    let mut piece = [0usize; 8];
    let mut twist = [0usize; 3];
    for s in &a {
        piece[s.corners().cp[0] as usize] += 1;
        twist[s.corners().co[0] as usize] += 1;
    }
    assert_eq!(piece[6], 0);
    for (p, &k) in piece.iter().enumerate().filter(|&(p, _)| p != 6) {
        assert!((9_500..10_500).contains(&k), "piece {p}: {k}");
    }
    for &k in &twist {
        assert!((22_600..24_100).contains(&k), "{twist:?}");
    }
}

#[test]
fn facelets_round_trip() {
    let mut rng = ChaCha8Rng::seed_from_u64(6);
    for _ in 0..500 {
        let s = Cube2::random(&mut rng);
        let text = s.to_facelets();
        assert_eq!(text.len(), 24);
        assert_eq!(Cube2::from_facelets(&text).unwrap(), s);
        assert_eq!(format!("  {s}\n").parse::<Cube2>().unwrap(), s);
        assert_eq!(format!("{s:?}"), format!("Cube2({text})"));
    }
}

#[test]
fn rotated_solved_cubes_read_as_solved() {
    // Written out: the solved cube turned by y (U face kept, R's colour now
    // in front) and by x2 (upside down).
    for rotated in ["UUUUBBBBRRRRDDDDFFFFLLLL", "DDDDRRRRBBBBUUUULLLLFFFF"] {
        assert!(Cube2::from_facelets(rotated).unwrap().is_solved(), "{rotated}");
    }
    // All 24 orientations, made on the 3×3×3 by opposite-face pairs (on the
    // corners, x = R L', y = U D', z = F B').
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let pairs = [turns("R L'"), turns("U D'"), turns("F B'")];
    let mut strings = std::collections::HashSet::new();
    for _ in 0..400 {
        let mut c = Cube3::SOLVED;
        for _ in 0..rng.random_range(0..6) {
            c.apply_turns(&pairs[rng.random_range(0..3)]);
        }
        let text = corner_stickers(&c);
        assert!(Cube2::from_facelets(&text).unwrap().is_solved(), "{text}");
        strings.insert(text);
    }
    assert_eq!(strings.len(), 24);
}

#[test]
fn every_orientation_of_a_scrambled_cube_reads_the_same() {
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    let pairs = [turns("R L'"), turns("U D'"), turns("F B'")];
    for _ in 0..200 {
        // Scrambled with all six faces on the 3×3×3, then held another way.
        let mut c = Cube3::from_turns(&random_turns(&mut rng, 6, 30));
        let s = Cube2::from_facelets(&corner_stickers(&c)).unwrap();
        for _ in 0..5 {
            c.apply_turns(&pairs[rng.random_range(0..3)]);
            assert_eq!(Cube2::from_facelets(&corner_stickers(&c)).unwrap(), s);
        }
    }
    // D, L and B are U, R and F up to the orientation.
    for (other, own) in [("D", "U"), ("L'", "R'"), ("B2", "F2")] {
        let c = Cube2::from_facelets(&corner_stickers(&Cube3::from_turns(&turns(other)))).unwrap();
        assert_eq!(c, Cube2::from_turns(&turns(own)), "{other}");
    }
}

fn set(s: &str, i: usize, c: char) -> String {
    let mut v: Vec<char> = s.chars().collect();
    v[i] = c;
    v.into_iter().collect()
}

fn swap(s: &str, a: usize, b: usize) -> String {
    let mut v: Vec<char> = s.chars().collect();
    v.swap(a, b);
    v.into_iter().collect()
}

fn facelets(c: &Corners) -> String {
    c.to_stickers().iter().map(|&x| crate::cube3::geometry::FACE_LETTERS[x as usize]).collect()
}

#[test]
fn each_validation_rule_has_its_own_error() {
    let err = |s: &str| Cube2::from_facelets(s).unwrap_err();
    assert_eq!(err(&SOLVED[..23]), Cube2Error::WrongLength { len: 23 });
    assert_eq!(err(&format!("{SOLVED}U")), Cube2Error::WrongLength { len: 25 });
    assert!(err("").to_string().contains("exactly 24 characters, got 0"));

    let e = err(&set(SOLVED, 4, 'X'));
    assert_eq!(e, Cube2Error::NotAFace { ch: 'X', position: 5 });
    assert!(e.to_string().contains("'X' at position 5"));

    let e = err(&set(SOLVED, 0, 'R'));
    assert_eq!(e, Cube2Error::ColourCount { colour: 'U', count: 3 });
    assert!(e.to_string().contains("colour U appears 3 times"));

    // URF's stickers are U4 R1 F2 (3, 4, 9): U and D on one corner.
    let e = err(&swap(SOLVED, 4, 12));
    assert_eq!(e, Cube2Error::NotACorner { slot: "URF", colours: "UDF".into() });
    assert!(e.to_string().contains("at corner URF form no real corner"));
    // A mirror-image corner (U F R, the wrong cyclic order).
    assert!(matches!(err(&swap(SOLVED, 4, 9)), Cube2Error::NotACorner { slot: "URF", .. }));

    // UFL and UBR replaced by a second URF and a second ULB: counts balance.
    let e = err(&facelets(&Corners { cp: [0, 0, 2, 2, 4, 5, 6, 7], co: [0; 8] }));
    assert_eq!(e, Cube2Error::DuplicatePiece { piece: "URF", first: "URF", second: "UFL" });
    assert!(e.to_string().contains("URF piece appears twice"));

    for (k, sum) in [(1, 1), (2, 2)] {
        let mut co = [0; 8];
        co[3] = k;
        let e = err(&facelets(&Corners { co, ..Corners::SOLVED }));
        assert_eq!(e, Cube2Error::CornerTwisted { sum });
        assert!(e.to_string().contains("a corner is twisted"));
    }
    // Twisting a corner of a scrambled cube is caught too, in any orientation.
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    for _ in 0..100 {
        let mut c = Cube2::random(&mut rng).corners();
        let slot = rng.random_range(0..8);
        c.co[slot] = (c.co[slot] + 1) % 3;
        assert!(matches!(err(&facelets(&c)), Cube2Error::CornerTwisted { .. }));
    }
}

#[test]
fn notation_accepts_u_r_f_only() {
    let seq = notation::parse("R U R' U2 F").unwrap();
    assert_eq!(n3::format(&seq), "R U R' U2 F");
    assert_eq!(n3::format(&n3::to_qtm(&seq)), "R U R' U U F");
    assert_eq!(Cube2::from_turns(&seq), Cube2::from_turns(&n3::to_qtm(&seq)));
    let e = notation::parse("R U D F").unwrap_err();
    assert_eq!(e, NotationError::FaceNotTurned { token: "D".into(), index: 3, position: 5, expected: "U R F".into() });
    assert!(e.to_string().contains("expected one of U R F"), "{e}");
    assert!(matches!(notation::parse("R x"), Err(NotationError::UnknownToken { index: 2, .. })));
    for bad in ["L", "B'", "D2"] {
        assert!(matches!(notation::parse(bad), Err(NotationError::FaceNotTurned { .. })), "{bad}");
    }
}

#[test]
#[should_panic(expected = "turns U, R and F only")]
fn turning_d_is_a_programming_error() {
    let mut c = Cube2::SOLVED;
    c.apply_turn(Turn::new(3, 1));
}

#[test]
fn encoding_is_one_hot_per_sticker() {
    let p = Cube2Puzzle::new(Metric::Htm);
    assert_eq!(p.encoded_len(), 144);
    let mut rng = ChaCha8Rng::seed_from_u64(10);
    let states: Vec<Cube2> = (0..5).map(|_| Cube2::random(&mut rng)).collect();
    let mut out = vec![7.0f32; 5 * 144];
    p.encode_batch(&states, &mut out);
    for (s, enc) in states.iter().zip(out.chunks_exact(144)) {
        let read: String = enc
            .chunks_exact(6)
            .map(|c| {
                assert_eq!(c.iter().filter(|&&x| x == 1.0).count(), 1);
                assert_eq!(c.iter().filter(|&&x| x == 0.0).count(), 5);
                crate::cube3::geometry::FACE_LETTERS[c.iter().position(|&x| x == 1.0).unwrap()]
            })
            .collect();
        assert_eq!(read, s.to_facelets());
    }
}

#[test]
fn redundancy_follows_the_cube_rule() {
    let q = Cube2Puzzle::new(Metric::Qtm);
    let (u, ui, r) = (0, 1, 2);
    let after = |ms: &[MoveId]| ms.iter().fold(Recent::default(), |acc, &m| acc.push(m));
    assert!(q.is_redundant(after(&[u]), ui));
    assert!(!q.is_redundant(after(&[u]), u));
    assert!(q.is_redundant(after(&[u, u]), u));
    assert!(!q.is_redundant(after(&[u, u]), r));
    let h = Cube2Puzzle::new(Metric::Htm);
    for m in 0..3 {
        assert!(h.is_redundant(after(&[1]), m), "no U after U");
    }
    for m in 3..9 {
        assert!(!h.is_redundant(after(&[1]), m));
    }
}

/// Positions at each distance from solved: BFS over a flat array indexed by
/// [`Cube2::index`].
fn distance_counts(p: &Cube2Puzzle) -> Vec<u64> {
    let mut dist = vec![u8::MAX; N_STATES as usize];
    dist[Cube2::SOLVED.index() as usize] = 0;
    let mut frontier = vec![Cube2::SOLVED.index()];
    let mut counts = vec![1u64];
    for d in 1u8.. {
        let mut next = Vec::new();
        for &i in &frontier {
            let s = Cube2::from_index(i);
            for m in 0..p.num_moves() as MoveId {
                let mut c = s;
                p.apply(&mut c, m);
                let j = c.index();
                if dist[j as usize] == u8::MAX {
                    dist[j as usize] = d;
                    next.push(j);
                }
            }
        }
        if next.is_empty() {
            break;
        }
        counts.push(next.len() as u64);
        frontier = next;
    }
    counts
}

/// The published counts of `data/cube3-distance-counts.tsv` for cube2.
fn published(metric: Metric) -> Vec<u64> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/data/cube3-distance-counts.tsv");
    let text = std::fs::read_to_string(path).unwrap();
    let rows: Vec<Vec<&str>> = text.lines().skip(1).map(|l| l.split('\t').collect()).collect();
    let mine: Vec<&Vec<&str>> = rows.iter().filter(|r| r[0] == "cube2" && r[1] == metric.name()).collect();
    for (d, r) in mine.iter().enumerate() {
        assert_eq!(r[2].parse::<usize>().unwrap(), d, "depths in order");
    }
    mine.iter().map(|r| r[3].parse().unwrap()).collect()
}

#[test]
fn distance_counts_match_oeis_in_both_metrics() {
    for (metric, depth) in [(Metric::Qtm, 14), (Metric::Htm, 11)] {
        let start = Instant::now();
        let counts = distance_counts(&Cube2Puzzle::new(metric));
        eprintln!("cube2 {metric}: full BFS in {:.2} s", start.elapsed().as_secs_f64());
        assert_eq!(counts, published(metric), "{metric}");
        assert_eq!(counts.len() - 1, depth);
        assert_eq!(counts.iter().sum::<u64>(), u64::from(N_STATES));
    }
}
