//! Perft and flat Monte-Carlo on every game of the project, with the
//! compiled reasoner and with the reference interpreter: `cargo bench -p
//! gdlc-benches`. Throughput is in tree nodes (perft) and states
//! (Monte-Carlo), so the two backends compare directly.
//!
//! One iteration takes 1 to 50 ms with either backend: the whole tree of
//! the two smallest games is counted several times per iteration.

use criterion::{
    criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput,
};
use gdl_runtime::report::MC_MAX_LENGTH;
use gdl_runtime::{flat_monte_carlo, perft, McBudget, Reasoner};
use gdlc::interp::Interpreter;
use gdlc_benches::{breakthrough, connectfour, description, simultaneous, threeplayer, tictactoe};
use std::hint::black_box;
use std::time::Duration;

/// The seed of every Monte-Carlo iteration.
const SEED: u64 = 0;

/// What one iteration does with a game.
struct Work {
    /// The perft depth.
    depth: u32,
    /// Perft passes per iteration.
    passes: u64,
    /// Flat Monte-Carlo playouts per iteration.
    playouts: u64,
}

/// Benchmarks `work` on the game `name` with its compiled reasoner and
/// with the interpreter.
fn game<R: Reasoner>(c: &mut Criterion, name: &str, compiled: R, work: Work) {
    let interpreted =
        Interpreter::from_path(&description(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    backends(c, name, compiled, interpreted, &work);
}

fn backends<A: Reasoner, B: Reasoner>(
    c: &mut Criterion,
    name: &str,
    mut compiled: A,
    mut interpreted: B,
    work: &Work,
) {
    let Work {
        depth,
        passes,
        playouts,
    } = *work;
    let nodes = perft(&mut compiled, depth)
        .expect("perft")
        .last()
        .map_or(0, |l| l.nodes);
    let mut group = c.benchmark_group(format!("{name}/perft"));
    group.sampling_mode(SamplingMode::Flat);
    group.throughput(Throughput::Elements(nodes * passes));
    let id = |backend| BenchmarkId::new(backend, format!("{depth}x{passes}"));
    group.bench_function(id("compiled"), |b| {
        b.iter(|| {
            for _ in 0..passes {
                perft(&mut compiled, black_box(depth)).expect("perft");
            }
        })
    });
    group.bench_function(id("interpreted"), |b| {
        b.iter(|| {
            for _ in 0..passes {
                perft(&mut interpreted, black_box(depth)).expect("perft");
            }
        })
    });
    group.finish();

    let budget = McBudget::Playouts(playouts);
    let states = flat_monte_carlo(&mut compiled, budget, SEED, MC_MAX_LENGTH, &mut |_| {})
        .expect("mc")
        .states;
    let mut group = c.benchmark_group(format!("{name}/mc"));
    group.sampling_mode(SamplingMode::Flat);
    group.throughput(Throughput::Elements(states));
    group.bench_function(BenchmarkId::new("compiled", playouts), |b| {
        b.iter(|| {
            flat_monte_carlo(
                &mut compiled,
                black_box(budget),
                SEED,
                MC_MAX_LENGTH,
                &mut |_| {},
            )
        })
    });
    group.bench_function(BenchmarkId::new("interpreted", playouts), |b| {
        b.iter(|| {
            flat_monte_carlo(
                &mut interpreted,
                black_box(budget),
                SEED,
                MC_MAX_LENGTH,
                &mut |_| {},
            )
        })
    });
    group.finish();
}

fn reasoners(c: &mut Criterion) {
    let work = |depth, passes, playouts| Work {
        depth,
        passes,
        playouts,
    };
    game(c, "tictactoe", tictactoe::Game::new(), work(5, 1, 300));
    game(c, "connectfour", connectfour::Game::new(), work(5, 1, 20));
    game(c, "breakthrough", breakthrough::Game::new(), work(3, 1, 5));
    // The whole trees: 658 and 20 nodes.
    game(
        c,
        "simultaneous",
        simultaneous::Game::new(),
        work(3, 100, 2000),
    );
    game(
        c,
        "threeplayer",
        threeplayer::Game::new(),
        work(5, 1000, 2000),
    );
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = reasoners
}
criterion_main!(benches);
