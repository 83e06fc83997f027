"""What a new user meets at the Python front door, on games of their own:
for each game given and each backend, the cases of issue 49 tried and
what happened printed as a Markdown table (one row per case, one column
per backend). Run with the Python that has `gdlc` installed (and
OpenSpiel for its row), e.g. after `scripts/python-tests.sh`:

    GDLC_CACHE_DIR=target/python-cache target/python-venv/bin/python \\
        scripts/front-doors.py ../shared/games/knightThrough.kif ...

A case prints `ValueError: ...` (shortened) where the package refuses,
and what it got otherwise.
"""

import os
import random
import signal
import sys
import threading
import time
import warnings

import gdlc

BACKENDS = ("interpreted", "compiled")
SHORT = 90


def short(text):
    text = " ".join(str(text).split())
    return text if len(text) <= SHORT else text[: SHORT - 1] + "…"


def outcome(call):
    try:
        return f"returned {short(call())}"
    except Exception as e:  # the row shows whichever exception it was
        return f"{type(e).__name__}: {short(e)}"


def mover(game, state):
    """A role with a choice in `state` (else role 0)."""
    for role in range(len(game.roles)):
        if len(game.legal_moves(state, role)) > 1:
            return role
    return 0


def illegal_move(game):
    s = game.initial_state()
    role = mover(game, s)
    legal = {m.text for m in game.legal_moves(s, role)}
    wrong = next(i for i, t in enumerate(game.move_names(role)) if t not in legal)
    joint = [game.legal_indices(s, r)[0] for r in range(len(game.roles))]
    joint[role] = wrong
    return outcome(lambda: game.fluents(game.apply(s, joint))[:3])


def terminal_state(game, seed=1):
    rng = random.Random(seed)
    s = game.initial_state()
    while not game.is_terminal(s):
        s = game.next_state(s, [rng.choice(game.legal_moves(s, r)) for r in range(len(game.roles))])
    return s


def move_in_terminal(game):
    s = terminal_state(game)
    joint = [0] * len(game.roles)
    return outcome(lambda: game.fluents(game.apply(s, joint))[:3])


def openspiel_illegal(path, backend):
    try:
        import pyspiel
        import gdlc.openspiel
    except ImportError as e:
        return f"skipped: {e}"
    name = f"front_doors_{abs(hash((path, backend)))}"
    gdlc.openspiel.register(path, name, backend=backend)
    state = pyspiel.load_game(name).new_initial_state()
    legal = set(state.legal_actions())
    wrong = next(a for a in range(state.num_distinct_actions()) if a not in legal)
    before = str(state)
    text = outcome(lambda: state.apply_action(wrong))
    return text + ("; state unchanged" if str(state) == before else "; STATE CHANGED")


def legal_order(games, steps=40, seed=5):
    rng = random.Random(seed)
    states = [g.initial_state() for g in games]
    lists = differ = 0
    for _ in range(steps):
        if games[0].is_terminal(states[0]):
            break
        joint = []
        for role in range(len(games[0].roles)):
            texts = [[m.text for m in g.legal_moves(s, role)] for g, s in zip(games, states)]
            lists += 1
            differ += texts[0] != texts[1]
            joint.append(rng.randrange(len(texts[0])))
        states = [g.next_state(s, [g.legal_moves(s, r)[i] for r, i in enumerate(joint)])
                  for g, s in zip(games, states)]
    return f"{differ} of {lists} legal-move lists differ between the backends"


def seeded_playouts(game):
    r = game.random_playouts(40, seed=3, threads=2)
    return f"states {r['states']}, mean goals {[round(x, 2) for x in r['mean_goals']]}"


def another_game(game, other):
    return outcome(lambda: game.is_terminal(other.initial_state()))


def ctrl_c(game):
    """Seconds from SIGINT to KeyboardInterrupt in a long perft, and
    whether the game still answers afterwards."""
    sent = []

    def interrupt():
        sent.append(time.perf_counter())
        os.kill(os.getpid(), signal.SIGINT)

    # Raise KeyboardInterrupt even where SIGINT was inherited ignored.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    threading.Timer(1.0, interrupt).start()
    try:
        game.perft(40)
        return "perft(40) finished before the signal"
    except KeyboardInterrupt:
        took = time.perf_counter() - sent[0]
    finally:
        signal.signal(signal.SIGINT, previous)
    after = game.perft(1)[-1]
    return f"KeyboardInterrupt {took * 1000:.0f} ms after SIGINT; perft(1) then gives {after}"


def load_warnings(path, backend):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        gdlc.load(path, backend=backend)
    gdl = [w for w in seen if issubclass(w.category, gdlc.GdlWarning)]
    return f"{len(gdl)} GdlWarning(s)" + "".join(f"; {short(w.message)}" for w in gdl[:2])


def rows(path):
    games = [gdlc.load(path, backend=b) for b in BACKENDS]
    other = {b: gdlc.load("(role a) (init p) (legal a m) (<= (next p) (true p)) (<= terminal (true p)) (goal a 100)",
                          backend=b) for b in BACKENDS}
    per_backend = [
        ("illegal move to `apply`", illegal_move),
        ("a move in a terminal state", move_in_terminal),
        ("`random_playouts(40, seed=3, threads=2)`", seeded_playouts),
        ("`parse_move(0, \"(teleport 9 9)\")`", lambda g: outcome(lambda: g.parse_move(0, "(teleport 9 9)"))),
        ("`state_from_fluents([\"(cell 9 9 x)\"])`",
         lambda g: outcome(lambda: g.state_from_fluents(["(cell 9 9 x)"]))),
        ("a state of another game", lambda g: another_game(g, other[g.backend])),
        ("Ctrl-C in `perft(40)`", ctrl_c),
    ]
    for name, case in per_backend:
        yield name, [case(g) for g in games]
    yield "OpenSpiel `apply_action` of an illegal action", [openspiel_illegal(str(path), b) for b in BACKENDS]
    yield "description warnings at `load`", [load_warnings(path, b) for b in BACKENDS]
    yield "legal move order along a seeded game", [legal_order(games)] * 2


def main(paths):
    for path in paths:
        print(f"\n### {os.path.basename(path)}\n")
        print("| case | " + " | ".join(BACKENDS) + " |")
        print("| --- | " + " | ".join("---" for _ in BACKENDS) + " |")
        for name, cells in rows(path):
            print(f"| {name} | " + " | ".join(c.replace("|", "\\|") for c in cells) + " |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
