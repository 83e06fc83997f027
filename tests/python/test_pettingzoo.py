"""GDL games as PettingZoo environments pass PettingZoo's own `api_test`,
and a game played through the environment ends as its rules say."""

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
from pettingzoo.test import api_test  # noqa: E402

import gdlc.pettingzoo  # noqa: E402
from test_openspiel import DICE  # noqa: E402

GAMES = Path(__file__).resolve().parents[2] / "games"


@pytest.mark.parametrize("name,backend", [
    ("tictactoe", "interpreted"),
    ("tictactoe", "compiled"),
    ("connectfour", "interpreted"),
    ("simultaneous", "interpreted"),
    ("threeplayer", "interpreted"),
    ("maze", "interpreted"),
])
def test_the_projects_games_pass_api_test(name, backend):
    api_test(gdlc.pettingzoo.env(GAMES / f"{name}.kif", backend=backend), num_cycles=200)


def test_a_game_with_a_random_role_passes_api_test():
    env = gdlc.pettingzoo.env(DICE, backend="interpreted")
    assert env.possible_agents == ["guesser"]
    api_test(env, num_cycles=50)


def test_x_wins_tictactoe_down_a_column():
    env = gdlc.pettingzoo.env(GAMES / "tictactoe.kif", backend="interpreted")
    env.reset(seed=0)
    moves = env.game.move_names(0)
    plays = ["(mark 1 1)", "(mark 1 2)", "(mark 2 1)", "(mark 2 2)", "(mark 3 1)"]
    for i, move in enumerate(plays):
        agent = env.agent_selection
        assert agent == ("xplayer" if i % 2 == 0 else "oplayer")
        mask = env.observe(agent)["action_mask"]
        assert mask[moves.index(move)] == 1 and mask.sum() == 9 - i
        env.step(moves.index(move))
    assert all(env.terminations.values())
    assert env._cumulative_rewards == {"xplayer": 1.0, "oplayer": -1.0}
    with pytest.raises(ValueError):
        env.reset()
        env.step(moves.index("noop"))
    np.testing.assert_array_equal(env.observe("oplayer")["action_mask"], 0)
