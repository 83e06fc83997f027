"""Perft and playouts over Ray (a local cluster of two worker CPUs) count
what one process counts."""

from pathlib import Path

import pytest

ray = pytest.importorskip("ray")

import gdlc  # noqa: E402
import gdlc.ray  # noqa: E402

GAMES = Path(__file__).resolve().parents[2] / "games"


@pytest.fixture(scope="module")
def cluster():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.mark.parametrize("name,depth,split", [
    ("tictactoe", 6, 2),
    ("tictactoe", 9, None),
    ("connectfour", 5, 3),
    ("threeplayer", 8, 1),
])
def test_perft_over_ray_counts_what_one_process_counts(cluster, name, depth, split):
    game = gdlc.load(GAMES / f"{name}.kif", backend="interpreted")
    spread = gdlc.ray.perft(GAMES / f"{name}.kif", depth, split_depth=split,
                            backend="interpreted")
    assert spread == game.perft(depth)


def test_playouts_over_ray_add_up(cluster):
    r = gdlc.ray.random_playouts(GAMES / "tictactoe.kif", 101, seed=5, backend="interpreted")
    assert r["playouts"] == 101 and r["truncated"] == 0
    assert 6 * 101 <= r["states"] <= 10 * 101
    assert sum(r["mean_goals"]) == pytest.approx(100)
