"""The `gdlc` package against facts derived by hand and against itself
across backends: tic-tac-toe's perft counts (9, 72, 504, 3024, 15120 leaves
at depths 1-5), its vocabulary and masks, pickling, wrong arguments, and the
compiled backend agreeing with the interpreter state by state."""

import logging
import os
import pickle
import random
import signal
import threading
import time
import warnings
from pathlib import Path

import numpy as np
import pytest

import gdlc

GAMES = Path(__file__).resolve().parents[2] / "games"
TICTACTOE = GAMES / "tictactoe.kif"

# Tic-tac-toe's leaves at depths 1..5 (no game ends before move 5): 9, 9*8, ...
TICTACTOE_LEAVES = [1, 9, 72, 504, 3024, 15120]


@pytest.fixture(scope="module")
def interpreted():
    return gdlc.load(TICTACTOE, backend="interpreted")


@pytest.fixture(scope="module")
def compiled():
    return gdlc.load(TICTACTOE, backend="compiled")


@pytest.fixture(params=["interpreted", "compiled"])
def game(request):
    return request.getfixturevalue(request.param)


def test_perft_counts_tictactoes_tree(game):
    levels = game.perft(5)
    assert [leaves for _, leaves in levels] == TICTACTOE_LEAVES
    assert [nodes for nodes, _ in levels] == list(np.cumsum(TICTACTOE_LEAVES))


def test_roles_moves_and_the_first_state(game):
    assert game.roles == ["xplayer", "oplayer"]
    s = game.initial_state()
    assert not game.is_terminal(s)
    assert [m.text for m in game.legal_moves(s, "oplayer")] == ["noop"]
    xs = game.legal_moves(s, 0)
    assert sorted(m.text for m in xs) == sorted(f"(mark {i} {j})" for i in (1, 2, 3) for j in (1, 2, 3))
    assert all(m.role == 0 for m in xs)
    assert game.parse_move(0, "( mark 2  2 )") in xs
    # A draw (50) needs a full board: no goal yet.
    assert game.goals(s) == [None, None]


def test_vocabulary_observation_and_mask(game):
    fluents = game.fluent_names()
    assert len(fluents) == 9 * 3 + 2 and fluents == sorted(fluents)
    assert "(control xplayer)" in fluents
    moves = game.move_names(0)
    assert len(moves) == 10 and "noop" in moves
    s = game.initial_state()
    obs = game.observation(s)
    assert obs.dtype == np.bool_ and obs.shape == (29,)
    assert sorted(np.array(fluents)[obs]) == game.fluents(s)
    mask = game.legal_mask(s, 0)
    assert mask.sum() == 9 and not mask[moves.index("noop")]
    assert game.legal_indices(s, 0) == np.flatnonzero(mask).tolist()
    assert game.legal_indices(s, "oplayer") == [moves.index("noop")]
    assert list(np.array(moves)[game.legal_mask(s, 1)]) == ["noop"]
    obs[0] = not obs[0]  # the arrays are the caller's own


def test_apply_batch_next_and_next_state_agree(game):
    s = game.initial_state()
    moves = game.move_names(0)
    joint = [moves.index("(mark 2 2)"), moves.index("noop")]
    by_index = game.apply(s, joint)
    by_move = game.next_state(s, [game.parse_move(0, "(mark 2 2)"), game.parse_move(1, "noop")])
    assert by_index == by_move and hash(by_index) == hash(by_move)
    assert "(cell 2 2 x)" in game.fluents(by_index)
    assert game.batch_next([s, s], [joint, joint]) == [by_index, by_index]


def test_states_and_moves_pickle_and_hash(game):
    s = game.initial_state()
    m = game.legal_moves(s, 0)[3]
    t = game.next_state(s, [m, game.legal_moves(s, 1)[0]])
    t2, m2 = pickle.loads(pickle.dumps((t, m)))
    assert t2 == t and hash(t2) == hash(t) == game.state_hash(t)
    assert m2 == m and m2.text == m.text
    assert {t: 1}[t2] == 1
    assert game.state_from_fluents(game.fluents(t)) == t
    assert pickle.loads(pickle.dumps(game)) is game


def test_both_backends_hash_states_alike(interpreted, compiled):
    s, t = interpreted.initial_state(), compiled.initial_state()
    assert hash(s) == hash(t)
    assert interpreted.fluents(s) == compiled.fluents(t)


def test_compiled_agrees_with_the_interpreter_along_random_playouts(interpreted, compiled):
    rng = random.Random(7)
    for _ in range(20):
        s, t = interpreted.initial_state(), compiled.initial_state()
        while not interpreted.is_terminal(s):
            assert not compiled.is_terminal(t)
            assert interpreted.fluents(s) == compiled.fluents(t)
            assert interpreted.goals(s) == compiled.goals(t)
            joint = []
            for role in range(2):
                texts = sorted(m.text for m in interpreted.legal_moves(s, role))
                assert texts == sorted(m.text for m in compiled.legal_moves(t, role))
                joint.append(rng.choice(texts))
            s = interpreted.next_state(s, [interpreted.parse_move(r, m) for r, m in enumerate(joint)])
            t = compiled.next_state(t, [compiled.parse_move(r, m) for r, m in enumerate(joint)])
        assert compiled.is_terminal(t) and interpreted.goals(s) == compiled.goals(t)


CORPUS = GAMES.parents[1] / "shared" / "games"
BOTH_BACKENDS_GAMES = [GAMES / p for p in sorted(os.listdir(GAMES)) if p.endswith(".kif")] + [
    CORPUS / "connectFourSimultaneous.kif", CORPUS / "checkersTiny.kif"]


@pytest.mark.parametrize("path", BOTH_BACKENDS_GAMES, ids=lambda p: p.stem)
def test_both_backends_play_a_seed_alike(path):
    """Every project game and two corpus games: along a seeded game both
    backends list the same legal moves in the order of `move_names`, reach
    the same states and goals, and `random_playouts` of one seed is the
    same run on both."""
    if not path.exists():
        pytest.skip(f"{path} is absent (../shared beside the checkout)")
    games = [gdlc.load(path, backend=b) for b in ("interpreted", "compiled")]
    names = games[0].move_names(0)
    rng = random.Random(5)
    states = [g.initial_state() for g in games]
    for _ in range(30):
        assert games[0].fluents(states[0]) == games[1].fluents(states[1])
        assert games[0].goals(states[0]) == games[1].goals(states[1])
        if games[0].is_terminal(states[0]):
            assert games[1].is_terminal(states[1])
            break
        joint = []
        for role in range(len(games[0].roles)):
            lists = [[m.text for m in g.legal_moves(s, role)] for g, s in zip(games, states)]
            assert lists[0] == lists[1]
            assert lists[0] == sorted(lists[0], key=names.index)
            joint.append(rng.randrange(len(lists[0])))
        # The same seed picks the same moves on both backends.
        states = [g.next_state(s, [g.legal_moves(s, r)[i] for r, i in enumerate(joint)])
                  for g, s in zip(games, states)]
    runs = [g.random_playouts(40, seed=11, threads=2) for g in games]
    for r in runs:
        del r["seconds"]
    assert runs[0] == runs[1]
    assert runs[0]["playouts"] == 40


def test_random_playouts_count_and_repeat(game):
    r = game.random_playouts(200, seed=3, threads=2)
    assert r["playouts"] == 200 and r["truncated"] == 0
    # A game lasts 5 to 9 moves: 6 to 10 states.
    assert 6 * 200 <= r["states"] <= 10 * 200
    # x's and o's goals add up to 100 in every ending.
    assert sum(r["mean_goals"]) == pytest.approx(100)
    once, again = (game.random_playouts(50, seed=9, threads=1) for _ in range(2))
    del once["seconds"], again["seconds"]
    assert once == again


def test_wrong_arguments_raise(game):
    s = game.initial_state()
    other = gdlc.load(GAMES / "threeplayer.kif", backend="interpreted")
    with pytest.raises(ValueError, match="of another game"):
        game.legal_moves(other.initial_state(), 0)
    with pytest.raises(ValueError, match="one move per role"):
        game.next_state(s, game.legal_moves(s, 0)[:1])
    with pytest.raises(ValueError, match="role"):
        game.next_state(s, [game.legal_moves(s, 1)[0], game.legal_moves(s, 0)[0]])
    with pytest.raises(IndexError):
        game.legal_moves(s, 2)
    with pytest.raises(ValueError, match="no role"):
        game.legal_moves(s, "nobody")
    with pytest.raises(ValueError):
        game.parse_move(0, "(mark 1")
    with pytest.raises(IndexError):
        game.apply(s, [0, 99])
    with pytest.raises(ValueError):
        game.state_from_fluents(["(cell 1"])


def test_illegal_moves_and_moves_in_a_terminal_state_raise(game):
    s = game.initial_state()
    moves = game.move_names(0)
    mark, noop = moves.index("(mark 2 2)"), moves.index("noop")
    # oplayer may only noop while xplayer moves; xplayer may not noop.
    with pytest.raises(ValueError, match=r"role `oplayer` cannot play `\(mark 2 2\)`: it is not a legal"):
        game.apply(s, [mark, mark])
    with pytest.raises(ValueError, match=r"role `xplayer` cannot play `noop`"):
        game.next_state(s, [game.parse_move(0, "noop"), game.parse_move(1, "noop")])
    with pytest.raises(ValueError, match="oplayer"):
        game.batch_next([s], [[mark, mark]])
    t = game.apply(s, [mark, noop])
    # (mark 2 2) is taken now: neither role may mark it again.
    with pytest.raises(ValueError, match=r"`\(mark 2 2\)`: it is not a legal"):
        game.apply(t, [noop, mark])
    end = game.state_from_fluents(
        [f"(cell {i} {j} {'x' if j == 1 else 'b'})" for i in (1, 2, 3) for j in (1, 2, 3)]
        + ["(control oplayer)"])
    assert game.is_terminal(end)
    with pytest.raises(ValueError, match="the state is terminal"):
        game.apply(end, [noop, moves.index("(mark 1 2)")])
    # The unchecked path plays what it is given, for callers that know.
    assert game.apply(s, [mark, mark], checked=False) is not None
    assert game.batch_next([s], [[mark, noop]], checked=False) == [t]


def test_moves_and_fluents_the_game_does_not_have_raise_on_every_backend(game):
    with pytest.raises(ValueError, match=r"no move `\(teleport 9 9\)`"):
        game.parse_move(0, "(teleport 9 9)")
    with pytest.raises(ValueError, match=r"no move `\(mark 4 4\)`"):
        game.parse_move(0, "(mark 4 4)")
    # Both backends name the text they refuse.
    with pytest.raises(ValueError, match=r"^`\(cell 9 9 x\)` is no fluent of this game$"):
        game.state_from_fluents(["(control xplayer)", "(cell 9 9 x)"])
    with pytest.raises(ValueError, match=r"^`\(teleported\)` is no fluent of this game$"):
        game.state_from_fluents(["(teleported)"])
    s = game.state_from_fluents(["(cell 2 2 x)", "(control oplayer)"])
    assert game.fluents(s) == ["(cell 2 2 x)", "(control oplayer)"]


def test_objects_of_another_game_or_backend_raise_value_error_on_both(interpreted, compiled):
    for game, other in ((interpreted, compiled), (compiled, interpreted)):
        state, move = other.initial_state(), other.legal_moves(other.initial_state(), 0)[0]
        for call in (lambda: game.is_terminal(state), lambda: game.fluents(state),
                     lambda: game.legal_moves(state, 0), lambda: game.move_text(move),
                     lambda: game.next_state(game.initial_state(), [move, move])):
            with pytest.raises(ValueError, match="of another game"):
                call()
        with pytest.raises(TypeError, match="expected a gdlc State, not int"):
            game.is_terminal(42)


def test_an_invalid_description_raises_gdl_error_with_its_place():
    text = "(role x)\n(init (p 1))\n(<= (legal x ?m) (true (p ?n)))\n"
    for backend in gdlc.BACKENDS:
        with pytest.raises(gdlc.GdlError) as raised:
            gdlc.load(text, backend=backend)
        e = raised.value
        assert (e.file, e.line) == ("<description>", 3)
        assert "unsafe" in e.text and "?m" in e.text and e.column >= 1


def test_a_descriptions_warnings_reach_python_as_gdl_check_prints_them(tmp_path):
    # `q` is used, never defined, and written `(q)`: two warnings at 3:29.
    text = ("(role x)\n(init (p))\n(<= (legal x go) (true (p)) (q))\n"
            "(<= (next (p)) (does x go))\n(<= terminal (not (true (p))))\n"
            "(<= (goal x 100) (true (p)))\n")
    path = tmp_path / "warned.kif"
    path.write_text(text)
    for backend in ("interpreted", "compiled"):
        with pytest.warns(gdlc.GdlWarning) as caught:
            gdlc.load(path, backend=backend)
        warned = sorted((w.message.code, w.message.line, w.message.column) for w in caught
                        if isinstance(w.message, gdlc.GdlWarning))
        assert warned == [("parenthesised-constant", 3, 29), ("undefined-relation", 3, 29)]
        assert all(w.message.file == str(path) for w in caught)
        assert any("relation `q/0` is never defined" in w.message.text for w in caught)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gdlc.check(GAMES / "tictactoe.kif")
    with pytest.warns(gdlc.GdlWarning, match="undefined-relation"):
        gdlc.check(text)


def test_a_compiled_build_says_what_it_does_and_a_built_game_loads_silently(monkeypatch, caplog):
    # A game no other test compiles, so its first load builds.
    text = ("(role solo)\n(init (lit off))\n(<= (legal solo flip) (true (lit off)))\n"
            "(<= (next (lit on)) (does solo flip))\n(<= terminal (true (lit on)))\n"
            "(<= (goal solo 100) (true (lit on)))\n(<= (goal solo 0) (true (lit off)))\n")
    monkeypatch.setattr(gdlc, "_QUIET_BUILD_SECONDS", 0.0)
    with caplog.at_level(logging.WARNING, logger="gdlc"):
        game = gdlc.load(text, backend="compiled")
    said = [r.getMessage() for r in caplog.records if r.name == "gdlc"]
    assert any("building the compiled reasoner" in m for m in said), said
    assert any(m.startswith("gdlc: built ") for m in said), said
    assert game.roles == ["solo"]
    caplog.clear()
    monkeypatch.setattr(gdlc, "_QUIET_BUILD_SECONDS", 60.0)
    monkeypatch.setattr(gdlc, "_loaded", {})
    with caplog.at_level(logging.WARNING, logger="gdlc"):
        gdlc.load(text, backend="compiled")
    assert [r for r in caplog.records if r.name == "gdlc"] == []


def test_a_missing_file_raises_os_error(tmp_path):
    with pytest.raises(OSError):
        gdlc.load(tmp_path / "missing.kif", backend="interpreted")


def test_auto_without_a_toolchain_interprets_and_says_why(monkeypatch):
    monkeypatch.setenv("CARGO", str(Path(os.devnull) / "no-cargo"))
    gdlc._warned.clear()
    text = TICTACTOE.read_text() + "\n; a description of its own\n"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        game = gdlc.load(text)
    assert game.backend == "interpreted"
    assert any("no Rust toolchain" in str(w.message) for w in caught)


def test_three_roles_play_in_turn():
    game = gdlc.load(GAMES / "threeplayer.kif", backend="interpreted")
    assert len(game.roles) == 3
    levels = game.perft(3)
    assert levels[0] == (1, 1)
    s = game.initial_state()
    movers = [r for r in range(3) if len(game.legal_moves(s, r)) > 1]
    assert movers == [0]


def test_perft_from_a_state_counts_its_subtree(game):
    moves = game.move_names(0)
    centre = game.apply(game.initial_state(), [moves.index("(mark 2 2)"), moves.index("noop")])
    # o has 8 squares left, then x 7.
    assert [leaves for _, leaves in game.perft(2, centre)] == [1, 8, 56]


def test_perft_counts_alike_on_any_number_of_threads(game):
    one = game.perft(6, threads=1)
    # 1 440 games end with x's third mark: (15 120 - 1 440) * 4 positions.
    assert [leaves for _, leaves in one] == TICTACTOE_LEAVES + [54720]
    assert game.perft(6, threads=3) == one


@pytest.fixture
def sigint_raises():
    """SIGINT raises KeyboardInterrupt, whatever the process inherited: a
    background job of a non-interactive shell starts with SIGINT ignored,
    and Python then keeps it ignored (the test would run for hours)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.mark.parametrize("backend", ["interpreted", "compiled"])
def test_ctrl_c_stops_a_long_run_within_a_second_and_the_game_stays_usable(backend, sigint_raises):
    game = gdlc.load(GAMES / "connectfour.kif", backend=backend)
    # Each run would take hours: perft to depth 16, or a billion playouts.
    for run in (lambda: game.perft(16, threads=2),
                lambda: game.random_playouts(10**9, threads=2)):
        ctrl_c = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
        start = time.monotonic()
        ctrl_c.start()
        with pytest.raises(KeyboardInterrupt):
            run()
        ctrl_c.join()
        # Half a second to the signal, then well within a second (the CI
        # machine may be loaded: three).
        assert time.monotonic() - start < 3.5
    # Connect four: 7 columns, 7 replies.
    assert [leaves for _, leaves in game.perft(2)] == [1, 7, 49]
    assert game.random_playouts(10, seed=1, threads=1)["playouts"] == 10
