"""GDL-II through the package, on both backends: Monty Hall's role `random`
and the door the candidate sees opened (the thesis' Listing 2.4; facts
read off its rules by hand), the refusals, and a GDL game without either."""

from pathlib import Path

import pytest

import gdlc

GAMES = Path(__file__).resolve().parents[2] / "games"
MONTY_HALL = GAMES / "gdl-ii" / "montyhall.kif"


@pytest.fixture(scope="module", params=["interpreted", "compiled"])
def monty_hall(request):
    return gdlc.load(MONTY_HALL, backend=request.param)


def joint(game, state, *texts):
    return [game.parse_move(role, text) for role, text in enumerate(texts)]


def test_random_is_the_second_role_and_the_candidate_sees_the_opened_door(monty_hall):
    g = monty_hall
    assert g.roles == ["candidate", "random"]
    assert g.random_role == 1 and g.has_percepts
    s0 = g.initial_state()
    # Step 1: nothing is opened, nothing seen.
    first = joint(g, s0, "(choose 1)", "(hide_car 2)")
    assert g.percepts(s0, first, "candidate") == []
    s1 = g.next_state(s0, first)
    # Step 2: the host may open 3 only (1 is chosen, 2 hides the car).
    assert [m.text for m in g.legal_moves(s1, "random")] == ["(open_door 3)"]
    second = joint(g, s1, "noop", "(open_door 3)")
    assert g.percepts(s1, second, 0) == ["3"]
    with pytest.raises(ValueError, match="random"):
        g.percepts(s1, second, "random")
    with pytest.raises(ValueError):
        g.percepts(s1, second[:1], 0)


def test_the_perfect_information_adapters_refuse_percepts_by_name():
    from gdlc import openspiel, pettingzoo

    with pytest.raises(NotImplementedError, match="GDL-II percepts"):
        openspiel.register(MONTY_HALL, "monty_hall_gdl", backend="interpreted")
    with pytest.raises(NotImplementedError, match="GDL-II percepts"):
        pettingzoo.env(MONTY_HALL, backend="interpreted")


def test_a_gdl_game_has_no_random_role_and_no_percepts():
    for backend in ["interpreted", "compiled"]:
        g = gdlc.load(GAMES / "tictactoe.kif", backend=backend)
        assert g.random_role is None and not g.has_percepts
        s = g.initial_state()
        j = [g.legal_moves(s, r)[0] for r in range(2)]
        assert g.percepts(s, j, 0) == []
