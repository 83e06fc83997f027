//! Perft and flat Monte-Carlo on every game of the project, with the
//! compiled reasoner (default strategy, ground evaluated in full, and
//! relational) and with the reference interpreter: `cargo bench -p
//! gdlc-benches`. Throughput is in tree nodes (perft) and states
//! (Monte-Carlo), so the backends compare directly.
//!
//! One iteration takes 1 to 50 ms with either backend: the whole tree of
//! the two smallest games is counted several times per iteration.

use criterion::{
    criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput,
};
use gdl_runtime::report::MC_MAX_LENGTH;
use gdl_runtime::{flat_monte_carlo, perft, McBudget, Reasoner};
use gdlc::interp::Interpreter;
use gdlc_benches::{
    breakthrough, breakthrough_ground, breakthrough_relational, connectfour, connectfour_ground,
    connectfour_relational, description, simultaneous, simultaneous_ground,
    simultaneous_relational, threeplayer, threeplayer_ground, threeplayer_relational, tictactoe,
    tictactoe_ground, tictactoe_relational,
};
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

/// Benchmarks `work` on the game `name` with its compiled reasoners (the
/// default strategy, ground evaluated in full, and relational) and with
/// the interpreter.
fn game<D: Reasoner, G: Reasoner, R: Reasoner>(
    c: &mut Criterion,
    name: &str,
    (default, ground, relational): (D, G, R),
    work: Work,
) {
    let interpreted =
        Interpreter::from_path(&description(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut group = c.benchmark_group(name);
    group.sampling_mode(SamplingMode::Flat);
    backend(&mut group, "compiled", default, &work);
    backend(&mut group, "ground", ground, &work);
    backend(&mut group, "relational", relational, &work);
    backend(&mut group, "interpreted", interpreted, &work);
    group.finish();
}

/// Adds one backend's perft and flat Monte-Carlo to `group`, each with its
/// own throughput (tree nodes, states).
fn backend<R: Reasoner>(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    backend: &str,
    mut reasoner: R,
    work: &Work,
) {
    let Work {
        depth,
        passes,
        playouts,
    } = *work;
    let nodes = perft(&mut reasoner, depth)
        .expect("perft")
        .last()
        .map_or(0, |l| l.nodes);
    group.throughput(Throughput::Elements(nodes * passes));
    group.bench_function(
        BenchmarkId::new(format!("perft/{backend}"), format!("{depth}x{passes}")),
        |b| {
            b.iter(|| {
                for _ in 0..passes {
                    perft(&mut reasoner, black_box(depth)).expect("perft");
                }
            })
        },
    );
    let budget = McBudget::Playouts(playouts);
    let states = flat_monte_carlo(&mut reasoner, budget, SEED, MC_MAX_LENGTH, &mut |_| {})
        .expect("mc")
        .states;
    group.throughput(Throughput::Elements(states));
    group.bench_function(BenchmarkId::new(format!("mc/{backend}"), playouts), |b| {
        b.iter(|| {
            flat_monte_carlo(
                &mut reasoner,
                black_box(budget),
                SEED,
                MC_MAX_LENGTH,
                &mut |_| {},
            )
        })
    });
}

fn reasoners(c: &mut Criterion) {
    let work = |depth, passes, playouts| Work {
        depth,
        passes,
        playouts,
    };
    game(
        c,
        "tictactoe",
        (
            tictactoe::Game::new(),
            tictactoe_ground::Game::new(),
            tictactoe_relational::Game::new(),
        ),
        work(5, 1, 300),
    );
    game(
        c,
        "connectfour",
        (
            connectfour::Game::new(),
            connectfour_ground::Game::new(),
            connectfour_relational::Game::new(),
        ),
        work(5, 1, 20),
    );
    game(
        c,
        "breakthrough",
        (
            breakthrough::Game::new(),
            breakthrough_ground::Game::new(),
            breakthrough_relational::Game::new(),
        ),
        work(3, 1, 5),
    );
    // The whole trees: 658 and 20 nodes.
    game(
        c,
        "simultaneous",
        (
            simultaneous::Game::new(),
            simultaneous_ground::Game::new(),
            simultaneous_relational::Game::new(),
        ),
        work(3, 100, 2000),
    );
    game(
        c,
        "threeplayer",
        (
            threeplayer::Game::new(),
            threeplayer_ground::Game::new(),
            threeplayer_relational::Game::new(),
        ),
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
