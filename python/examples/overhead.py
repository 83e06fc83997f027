"""Random playouts per second through `Game` from Python, one call per
move, against `Game.random_playouts` in Rust (one thread), on one game.

    python examples/overhead.py GAME.kif [SECONDS] [BACKEND]
"""

import random
import sys
import time

import gdlc


def from_python(game, seconds):
    rng = random.Random(0)
    roles = range(len(game.roles))
    playouts, states = 0, 0
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        state = game.initial_state()
        states += 1
        while not game.is_terminal(state):
            joint = [rng.choice(game.legal_moves(state, r)) for r in roles]
            state = game.next_state(state, joint)
            states += 1
        playouts += 1
    return playouts / seconds, states / seconds


def main(path, seconds=10.0, backend="compiled"):
    game = gdlc.load(path, backend=backend)
    print(f"{seconds:g} s of playouts from Python, then five times as many in Rust",
          file=sys.stderr, flush=True)
    py_playouts, py_states = from_python(game, seconds)
    rust = game.random_playouts(max(1, int(py_playouts * seconds * 5)), seed=0, threads=1)
    rust_playouts = rust["playouts"] / rust["seconds"]
    rust_states = rust["states"] / rust["seconds"]
    print(f"{path} ({backend}): from Python {py_playouts:.1f} playouts/s "
          f"({py_states:.0f} states/s); random_playouts in Rust {rust_playouts:.1f} playouts/s "
          f"({rust_states:.0f} states/s); Rust / Python {rust_states / py_states:.1f}x")


if __name__ == "__main__":
    args = sys.argv[1:]
    main(args[0], *(float(a) for a in args[1:2]), *args[2:3])
