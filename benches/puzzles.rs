//! Throughput of the cube model and the scramble pipeline.
//!
//! `cargo bench --bench puzzles`. Figures are recorded in README.md.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use cube_oracle::cube3::geometry::TURN_PERMS;
use cube_oracle::cube3::permute::{self, has_vbmi};
use cube_oracle::cube3::{Cube3, Cube3Puzzle, Cubies, Metric, ONE_HOT_LEN, Turn};
use cube_oracle::puzzle::Puzzle;
use cube_oracle::scramble::{Scrambler, WalkLength};
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use std::hint::black_box;
use std::time::Duration;

const MOVES: usize = 4096;

fn cube_moves(c: &mut Criterion) {
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let turns: Vec<Turn> = (0..MOVES).map(|_| Turn::from_id(rng.random_range(0..18))).collect();
    let mut g = c.benchmark_group("cube3_moves");
    g.throughput(Throughput::Elements(MOVES as u64));
    eprintln!("avx512vbmi detected: {}", has_vbmi());
    g.bench_function("apply_turn (one call per move)", |b| {
        let mut cube = Cube3::SOLVED;
        b.iter(|| {
            for &t in &turns {
                cube.apply_turn(black_box(t));
            }
            black_box(&cube);
        });
    });
    g.bench_function("apply_turns (sequence in a register)", |b| {
        let mut cube = Cube3::SOLVED;
        b.iter(|| {
            cube.apply_turns(black_box(&turns));
            black_box(&cube);
        });
    });
    g.bench_function("portable fallback", |b| {
        let mut state = [0u8; 64];
        state[..54].copy_from_slice(Cube3::SOLVED.stickers());
        b.iter(|| {
            for &t in &turns {
                permute::permute_portable(&mut state, &TURN_PERMS[black_box(t).id() as usize]);
            }
            black_box(&state);
        });
    });
    g.finish();

    let p = Cube3Puzzle::new(Metric::Qtm);
    let perms = p.move_perms();
    let parents: Vec<Cube3> = (0..256).map(|_| Cube3::from_cubies(&Cubies::random(&mut rng))).collect();
    let mut g = c.benchmark_group("cube3_expand");
    g.throughput(Throughput::Elements((parents.len() * perms.len()) as u64));
    g.bench_function("children of 256 states x 12 moves", |b| {
        let mut out = vec![Cube3::SOLVED; parents.len() * perms.len()];
        b.iter(|| {
            for (parent, chunk) in parents.iter().zip(out.chunks_exact_mut(perms.len())) {
                parent.children(&perms, chunk);
            }
            black_box(&out);
        });
    });
    g.finish();
    let mut g = c.benchmark_group("cube3_key");
    g.throughput(Throughput::Elements(parents.len() as u64));
    g.bench_function("key of 256 states", |b| {
        b.iter(|| black_box(&parents).iter().fold(0u128, |acc, s| acc ^ s.key()));
    });
    g.finish();
}

fn encoding(c: &mut Criterion) {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let p = Cube3Puzzle::new(Metric::Qtm);
    let states: Vec<Cube3> = (0..1024).map(|_| Cube3::from_cubies(&Cubies::random(&mut rng))).collect();
    let mut buf = vec![0.0f32; states.len() * ONE_HOT_LEN];
    let mut g = c.benchmark_group("cube3_one_hot");
    g.throughput(Throughput::Elements(states.len() as u64));
    g.bench_function("encode_batch 1024 states", |b| {
        b.iter(|| {
            p.encode_batch(black_box(&states), &mut buf);
            black_box(&buf);
        });
    });
    g.finish();
}

fn scramble(c: &mut Criterion) {
    let p = Cube3Puzzle::new(Metric::Qtm);
    let mut g = c.benchmark_group("scramble");
    const WALKS: usize = 40;
    g.throughput(Throughput::Elements((WALKS * 26) as u64));
    g.bench_function("generate + encode, 40 walks x 26 moves", |b| {
        let mut s = Scrambler::new(p, WalkLength::Fixed(26), true, 7, 0).unwrap();
        let mut buf = vec![0.0f32; WALKS * 26 * ONE_HOT_LEN];
        let mut labels = vec![0u8; WALKS * 26];
        b.iter(|| {
            let mut i = 0;
            for _ in 0..WALKS {
                for step in s.walk() {
                    p.encode(&step.state, &mut buf[i * ONE_HOT_LEN..(i + 1) * ONE_HOT_LEN]);
                    labels[i] = step.last_move;
                    i += 1;
                }
            }
            black_box((&buf, &labels));
        });
    });
    g.bench_function("generate only, 40 walks x 26 moves", |b| {
        let mut s = Scrambler::new(p, WalkLength::Fixed(26), true, 7, 0).unwrap();
        b.iter(|| {
            let mut acc = 0u32;
            for _ in 0..WALKS {
                for step in s.walk() {
                    acc = acc.wrapping_add(u32::from(step.last_move) + u32::from(step.state.stickers()[7]));
                }
            }
            black_box(acc)
        });
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3));
    targets = cube_moves, encoding, scramble
}
criterion_main!(benches);
