//! Sliding-puzzle move throughput: in-place slides per second on the
//! 15-puzzle, replaying a precomputed random walk of applicable,
//! non-undoing moves.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use cube_oracle::puzzle::{MoveId, Puzzle, Recent};
use cube_oracle::sliding::{Goal, Sliding};
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

const WALK_LEN: usize = 100_000;

/// A random walk from the goal that never undoes its previous move.
fn walk(puzzle: &Sliding, len: usize) -> Vec<MoveId> {
    let mut rng = ChaCha8Rng::seed_from_u64(15);
    let mut board = puzzle.goal();
    let mut recent = Recent::default();
    let mut moves = Vec::with_capacity(len);
    while moves.len() < len {
        let m = rng.random_range(0..puzzle.num_moves()) as MoveId;
        if puzzle.is_applicable(&board, m) && !puzzle.is_redundant(recent, m) {
            puzzle.apply(&mut board, m);
            recent = recent.push(m);
            moves.push(m);
        }
    }
    moves
}

fn slides(c: &mut Criterion) {
    let puzzle = Sliding::new(4, Goal::BlankLast).expect("4×4 is a valid width");
    let moves = walk(&puzzle, WALK_LEN);
    let mut group = c.benchmark_group("sliding");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .throughput(Throughput::Elements(moves.len() as u64));
    group.bench_function("puzzle15_apply", |b| {
        b.iter(|| {
            let mut board = puzzle.goal();
            for &m in black_box(&moves) {
                puzzle.apply(&mut board, m);
            }
            black_box(board)
        });
    });
    group.finish();
}

criterion_group!(benches, slides);
criterion_main!(benches);
