"""OpenSpiel's MCTS bot against its uniform random bot on GDL games, each
side in turn: win, draw and loss counts of MCTS, and MCTS simulations per
second.

    python examples/openspiel_mcts.py GAME.kif [GAMES_EACH_SIDE] [SIMULATIONS] [BACKEND]
"""

import sys
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts
from open_spiel.python.bots import uniform_random

import gdlc.openspiel


def main(path, games_each_side=20, simulations=1000, backend="compiled"):
    # A compiled game's first build says so on the `gdlc` logger.
    print(f"loading {path} ({backend}), then {2 * games_each_side} games of "
          f"{simulations} simulations a move", file=sys.stderr, flush=True)
    gdlc.openspiel.register(path, "gdl_match", backend=backend)
    game = pyspiel.load_game("gdl_match")
    rng = np.random.RandomState(0)
    counts = {"win": 0, "draw": 0, "loss": 0}
    searches, seconds = 0, 0.0
    for i in range(2 * games_each_side):
        seat = i % 2
        bot = mcts.MCTSBot(game, uct_c=2, max_simulations=simulations,
                           evaluator=mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
        bots = [None, None]
        bots[seat] = bot
        bots[1 - seat] = uniform_random.UniformRandomBot(1 - seat, rng)
        state = game.new_initial_state()
        while not state.is_terminal():
            player = state.current_player()
            start = time.perf_counter()
            action = bots[player].step(state)
            if player == seat:
                seconds += time.perf_counter() - start
                searches += 1
            state.apply_action(action)
        mine, theirs = state.returns()[seat], state.returns()[1 - seat]
        outcome = "win" if mine > theirs else "loss" if mine < theirs else "draw"
        counts[outcome] += 1
        print(f"game {i + 1} of {2 * games_each_side} (MCTS as player {seat}): {outcome}",
              file=sys.stderr, flush=True)
    print(f"{path} ({backend}): MCTS {simulations} simulations against random, "
          f"{games_each_side} games each side: {counts}; "
          f"{searches * simulations / seconds:.0f} simulations/s")


if __name__ == "__main__":
    args = sys.argv[1:]
    main(args[0], *(int(a) for a in args[1:3]), *args[3:4])
