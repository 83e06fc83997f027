"""GDL games registered with OpenSpiel pass OpenSpiel's own checks
(`pyspiel.random_sim_test`), take the shape their rules give them
(sequential or simultaneous, players, chance), and OpenSpiel's MCTS bot
plays them."""

from pathlib import Path

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import gdlc.openspiel  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
GAMES = ROOT / "games"
CORPUS = ROOT.parent / "shared" / "games"

# name, dynamics, players, backend
PROJECT_GAMES = [
    ("tictactoe", "SEQUENTIAL", 2, "interpreted"),
    ("connectfour", "SEQUENTIAL", 2, "interpreted"),
    ("breakthrough", "SEQUENTIAL", 2, "compiled"),
    ("simultaneous", "SIMULTANEOUS", 2, "interpreted"),
    ("threeplayer", "SEQUENTIAL", 3, "interpreted"),
    ("maze", "SEQUENTIAL", 1, "interpreted"),
]

CORPUS_GAMES = [
    ("ticTacToe", "SEQUENTIAL", 2, "interpreted"),
    ("connectFour", "SEQUENTIAL", 2, "interpreted"),
    ("chess", "SEQUENTIAL", 2, "compiled"),
    ("roshambo2", "SIMULTANEOUS", 2, "interpreted"),
    ("connectFourSimultaneous", "SIMULTANEOUS", 2, "interpreted"),
    ("gt_prisoner", "SIMULTANEOUS", 2, "interpreted"),
    ("3pConnectFour", "SEQUENTIAL", 3, "interpreted"),
    ("tictactoe_3player", "SEQUENTIAL", 3, "interpreted"),
    ("pentago", "SEQUENTIAL", 2, "compiled"),
    ("dotsAndBoxes", "SEQUENTIAL", 2, "interpreted"),
    ("checkersTiny", "SEQUENTIAL", 2, "interpreted"),
    ("nim1", "SEQUENTIAL", 2, "interpreted"),
    ("hanoi", "SEQUENTIAL", 1, "interpreted"),
]

# A die of three faces thrown by `random`, then the player guesses it:
# 100 for a right guess.
DICE = """
(role random) (role guesser)
(init (phase throw))
(face 1) (face 2) (face 3)
(<= (legal random (throw ?f)) (true (phase throw)) (face ?f))
(<= (legal random noop) (true (phase guess)))
(<= (legal guesser noop) (true (phase throw)))
(<= (legal guesser (guess ?f)) (true (phase guess)) (face ?f))
(<= (next (thrown ?f)) (does random (throw ?f)))
(<= (next (thrown ?f)) (true (thrown ?f)))
(<= (next (phase guess)) (true (phase throw)))
(<= (next (guessed ?f)) (does guesser (guess ?f)))
(<= terminal (true (guessed ?f)))
(<= (goal guesser 100) (true (guessed ?f)) (true (thrown ?f)))
(<= (goal guesser 0) (true (guessed ?f)) (not (true (thrown ?f))))
(goal random 0)
"""


def check(path, short_name, dynamics, players, backend):
    game_type = gdlc.openspiel.register(path, short_name, backend=backend,
                                        survey_playouts=30)
    game = pyspiel.load_game(short_name)
    assert game_type.dynamics == getattr(pyspiel.GameType.Dynamics, dynamics)
    assert game.num_players() == players
    pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)


@pytest.mark.parametrize("name,dynamics,players,backend", PROJECT_GAMES)
def test_the_projects_games_pass_random_sim_test(name, dynamics, players, backend):
    check(GAMES / f"{name}.kif", f"gdl_project_{name}", dynamics, players, backend)


@pytest.mark.parametrize("name,dynamics,players,backend", CORPUS_GAMES)
def test_corpus_games_pass_random_sim_test(name, dynamics, players, backend):
    if not CORPUS.is_dir():
        pytest.skip(f"the corpus is not at {CORPUS} (../shared beside the checkout)")
    check(CORPUS / f"{name}.kif", f"gdl_corpus_{name}", dynamics, players, backend)


def test_random_is_the_chance_player():
    gdlc.openspiel.register(DICE, "gdl_dice", backend="interpreted")
    game = pyspiel.load_game("gdl_dice")
    assert game.num_players() == 1
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    state = game.new_initial_state()
    assert state.is_chance_node()
    outcomes = state.chance_outcomes()
    assert [state.action_to_string(pyspiel.PlayerId.CHANCE, a) for a, _ in outcomes] == [
        "(throw 1)", "(throw 2)", "(throw 3)"]
    assert [p for _, p in outcomes] == pytest.approx([1 / 3] * 3)
    state.apply_action(outcomes[1][0])
    assert state.current_player() == 0
    names = [state.action_to_string(0, a) for a in state.legal_actions()]
    assert names == ["(guess 1)", "(guess 2)", "(guess 3)"]
    right = state.child(state.legal_actions()[1])
    wrong = state.child(state.legal_actions()[0])
    assert right.returns() == [1.0] and wrong.returns() == [-1.0]
    pyspiel.random_sim_test(game, num_sims=10, serialize=False, verbose=False)


def test_an_illegal_action_raises_and_leaves_the_state_as_it_was():
    gdlc.openspiel.register(GAMES / "tictactoe.kif", "gdl_illegal_tictactoe", backend="interpreted")
    game = pyspiel.load_game("gdl_illegal_tictactoe")
    state = game.new_initial_state()
    legal = state.legal_actions()
    illegal = next(a for a in range(game.num_distinct_actions()) if a not in legal)
    before = str(state)
    with pytest.raises(ValueError, match="xplayer.*not a legal move"):
        state.apply_action(illegal)
    assert str(state) == before and state.legal_actions() == legal
    state.apply_action(legal[4])
    assert state.current_player() == 1


def test_observations_are_the_fluents():
    gdlc.openspiel.register(GAMES / "tictactoe.kif", "gdl_obs_tictactoe", backend="interpreted")
    game = pyspiel.load_game("gdl_obs_tictactoe")
    state = game.new_initial_state()
    tensor = np.array(state.observation_tensor(0))
    # Nine blank cells and x in control.
    assert tensor.shape == (29,) and tensor.sum() == 10
    assert "(control xplayer)" in state.observation_string(0)


def test_mcts_never_loses_tictactoe_to_a_random_player():
    from open_spiel.python.algorithms import mcts
    from open_spiel.python.bots import uniform_random

    gdlc.openspiel.register(GAMES / "tictactoe.kif", "gdl_mcts_tictactoe", backend="compiled")
    game = pyspiel.load_game("gdl_mcts_tictactoe")
    for seed in range(4):
        rng = np.random.RandomState(seed)
        bot = mcts.MCTSBot(game, uct_c=2, max_simulations=300,
                           evaluator=mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
        opponent = uniform_random.UniformRandomBot(1 - seed % 2, rng)
        bots = [bot, opponent] if seed % 2 == 0 else [opponent, bot]
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(bots[state.current_player()].step(state))
        assert state.returns()[seed % 2] >= 0, f"seed {seed}: {state}"
