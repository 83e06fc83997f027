"""Bad input through Python, as the command line's fuzzer tries it: mutants
of the project's descriptions (a token deleted, replaced, doubled, or the
text cut) loaded and played on both backends. Each either plays or raises
a Python exception (`GdlError` for an invalid description); a Rust panic
would surface as `pyo3_runtime.PanicException`, which is no `Exception`,
and fail the test."""

import random
import re
import warnings
from pathlib import Path

import pytest

import gdlc

GAMES = Path(__file__).resolve().parents[2] / "games"
TOKEN = re.compile(r"\(|\)|[^\s()]+")


def mutants(text, rng, n):
    tokens = list(TOKEN.finditer(text))
    for _ in range(n):
        t = rng.choice(tokens)
        kind = rng.randrange(4)
        if kind == 0:
            yield text[:t.start()] + text[t.end():]
        elif kind == 1:
            yield text[:t.start()] + rng.choice(tokens).group(0) + text[t.end():]
        elif kind == 2:
            yield text[:t.end()] + " " + t.group(0) + text[t.end():]
        else:
            # Cut inside the rules, so that the text is still text, not a path.
            yield text[:max(t.start(), text.index("(") + 1)]


def play(game, rng):
    """A random game of at most 12 joint moves, each checked."""
    state = game.initial_state()
    for _ in range(12):
        if game.is_terminal(state):
            break
        joint = []
        for role in range(len(game.roles)):
            moves = game.legal_indices(state, role)
            if not moves:
                raise ValueError(f"role {role} has no legal move")
            joint.append(rng.choice(moves))
        state = game.apply(state, joint)
    game.goals(state)
    game.fluents(state)


def outcomes(backend, per_game, rng):
    counts = {}
    for path in sorted(GAMES.glob("*.kif")):
        for text in mutants(path.read_text(), rng, per_game):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    play(gdlc.load(text, backend=backend), rng)
                outcome = "played"
            except gdlc.GdlError:
                outcome = "invalid"
            except (ValueError, RuntimeError) as e:
                outcome = type(e).__name__
            counts[outcome] = counts.get(outcome, 0) + 1
    return counts


def test_mutants_play_or_raise_on_the_interpreter():
    counts = outcomes("interpreted", 50, random.Random(11))
    assert sum(counts.values()) == 50 * len(list(GAMES.glob("*.kif")))
    assert counts.get("invalid", 0) > 0 and counts.get("played", 0) > 0, counts


@pytest.mark.parametrize("seed", [3])
def test_mutants_play_or_raise_compiled(seed):
    # Each mutant that loads is a build of its own: a few of them.
    counts = outcomes("compiled", 2, random.Random(seed))
    assert sum(counts.values()) == 2 * len(list(GAMES.glob("*.kif"))), counts
