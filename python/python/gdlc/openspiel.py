"""GDL games as OpenSpiel games.

    >>> import gdlc.openspiel, pyspiel
    >>> gdlc.openspiel.register("games/tictactoe.kif", "gdl_tictactoe")
    >>> game = pyspiel.load_game("gdl_tictactoe")

`register` loads the description (`gdlc.load`), plays random playouts to
see its shape, and registers it with pyspiel under `short_name`:

- dynamics: sequential when no surveyed state has two roles choosing
  between moves (the one role with a choice moves; the others' single
  moves are played with it), else simultaneous (pass `dynamics=` to
  choose); a sequential game that meets such a state later raises;
- a role named `random` is OpenSpiel's chance player, its legal moves
  equally likely, and not among the players;
- actions are indices into `Game.move_names()` (the same list for every
  player); returns are goal values mapped from 0..100 to -1..1 (a missing
  goal counts as 0), general-sum;
- observation tensors are `Game.observation` (every fluent, as 0/1), the
  observation string the state's fluents;
- the maximum game length is an estimate, twice the longest surveyed
  playout, unless `max_game_length=` gives it (GDL bounds a game's length
  only by its rules).
"""

import bisect
import random

import numpy as np
import pyspiel

import gdlc

RANDOM_ROLE = "random"


def register(path_or_text, short_name, backend="auto", dynamics=None,
             max_game_length=None, survey_playouts=100, seed=0):
    """Registers the GDL game as the pyspiel game `short_name` and returns
    its `pyspiel.GameType`."""
    gdl = gdlc.load(path_or_text, backend=backend)
    gdlc._perfect_information_only(gdl, "OpenSpiel")
    shape = _survey(gdl, survey_playouts, seed)
    if dynamics is None:
        dynamics = "simultaneous" if shape["simultaneous"] else "sequential"
    if dynamics not in ("sequential", "simultaneous"):
        raise ValueError(f"dynamics must be 'sequential' or 'simultaneous', not {dynamics!r}")
    layout = _Layout(gdl, dynamics == "simultaneous")
    game_type = pyspiel.GameType(
        short_name=short_name,
        long_name=f"GDL game {short_name}",
        dynamics=(pyspiel.GameType.Dynamics.SIMULTANEOUS if layout.simultaneous
                  else pyspiel.GameType.Dynamics.SEQUENTIAL),
        chance_mode=(pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
                     if layout.chance is not None
                     else pyspiel.GameType.ChanceMode.DETERMINISTIC),
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=len(layout.players),
        min_num_players=len(layout.players),
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={},
    )
    game_info = pyspiel.GameInfo(
        num_distinct_actions=len(layout.moves),
        max_chance_outcomes=len(layout.moves) if layout.chance is not None else 0,
        num_players=len(layout.players),
        min_utility=-1.0,
        max_utility=1.0,
        utility_sum=None,
        max_game_length=max_game_length or max(1, 2 * shape["longest"]),
    )

    class GdlGame(pyspiel.Game):
        """The GDL game as a pyspiel game."""

        def __init__(self, params=None):
            super().__init__(game_type, game_info, params or {})

        def new_initial_state(self):
            return GdlState(self, layout, gdl.initial_state())

        def make_py_observer(self, iig_obs_type=None, params=None):
            if iig_obs_type is None or (iig_obs_type.public_info
                                        and not iig_obs_type.perfect_recall):
                return _FluentObserver(gdl)
            from open_spiel.python.observation import IIGObserverForPublicInfoGame
            return IIGObserverForPublicInfoGame(iig_obs_type, params)

    pyspiel.register_game(game_type, GdlGame)
    return game_type


def _survey(gdl, playouts, seed):
    """Random playouts: whether two roles ever choose at once, and the
    longest playout's length."""
    rng = random.Random(seed)
    simultaneous = False
    longest = 0
    roles = range(len(gdl.roles))
    for _ in range(playouts):
        state, length = gdl.initial_state(), 0
        while not gdl.is_terminal(state):
            legal = [gdl.legal_moves(state, r) for r in roles]
            simultaneous |= sum(len(moves) > 1 for moves in legal) > 1
            state = gdl.next_state(state, [rng.choice(moves) for moves in legal])
            length += 1
        longest = max(longest, length)
    return {"simultaneous": simultaneous, "longest": longest}


class _Layout:
    """How the GDL roles map to OpenSpiel's players and actions."""

    def __init__(self, gdl, simultaneous):
        self.gdl = gdl
        self.simultaneous = simultaneous
        roles = [r.lower() for r in gdl.roles]
        self.chance = roles.index(RANDOM_ROLE) if RANDOM_ROLE in roles else None
        self.players = [r for r in range(len(roles)) if r != self.chance]
        self.moves = gdl.move_names(0)

    def legal(self, state, role):
        """The legal actions of `role` in `state`, ascending."""
        return self.gdl.legal_indices(state, role)


class GdlState(pyspiel.State):
    """A state of a registered GDL game."""

    def __init__(self, game, layout, state):
        super().__init__(game)
        self._layout = layout
        self._set(state)

    def _set(self, state):
        gdl, layout = self._layout.gdl, self._layout
        self._state = state
        self._terminal = gdl.is_terminal(state)
        self._legal = ([] if self._terminal
                       else [layout.legal(state, r) for r in range(len(gdl.roles))])
        self._mover = None if self._terminal else self._find_mover()

    def _find_mover(self):
        """The role that moves in a sequential game: the one with a choice,
        else the first player (whose one move is forced)."""
        if self._layout.simultaneous:
            return None
        choosers = [r for r, moves in enumerate(self._legal) if len(moves) > 1]
        if len(choosers) > 1:
            names = ", ".join(self._layout.gdl.roles[r] for r in choosers)
            raise RuntimeError(
                f"roles {names} choose at once in a game registered as sequential: "
                "register it with dynamics='simultaneous'")
        return choosers[0] if choosers else self._layout.players[0]

    def current_player(self):
        if self._terminal:
            return pyspiel.PlayerId.TERMINAL
        layout = self._layout
        if layout.chance is not None and len(self._legal[layout.chance]) > 1:
            if layout.simultaneous and any(
                    len(self._legal[r]) > 1 for r in layout.players):
                raise NotImplementedError(
                    "the random role chooses together with a player: "
                    "OpenSpiel has no simultaneous chance")
            return pyspiel.PlayerId.CHANCE
        if layout.simultaneous:
            return pyspiel.PlayerId.SIMULTANEOUS
        return layout.players.index(self._mover)

    def _role(self, player):
        return self._layout.players[player]

    def _legal_actions(self, player):
        return list(self._legal[self._role(player)])

    def chance_outcomes(self):
        moves = self._legal[self._layout.chance]
        return [(a, 1.0 / len(moves)) for a in moves]

    def _forced(self):
        """Every role's move when it has a single one (else None)."""
        return [moves[0] if len(moves) == 1 else None for moves in self._legal]

    def _apply_action(self, action):
        joint = self._forced()
        mover = self._layout.chance if self.is_chance_node() else self._mover
        self._check(mover, action)
        joint[mover] = action
        self._set(self._layout.gdl.apply(self._state, joint, checked=False))

    def _apply_actions(self, actions):
        joint = self._forced()
        for player, action in enumerate(actions):
            self._check(self._role(player), action)
            joint[self._role(player)] = action
        self._set(self._layout.gdl.apply(self._state, joint, checked=False))

    def _check(self, role, action):
        """Raises ValueError unless `action` is a legal action of `role`
        here (the legal moves are known already: `apply` need not ask the
        reasoner again)."""
        gdl = self._layout.gdl
        if self._terminal:
            raise ValueError(f"role `{gdl.roles[role]}` cannot play action {action}: "
                             "the state is terminal")
        legal = self._legal[role]
        i = bisect.bisect_left(legal, action)
        if i == len(legal) or legal[i] != action:
            text = (self._layout.moves[action]
                    if 0 <= action < len(self._layout.moves) else "no move")
            raise ValueError(f"role `{gdl.roles[role]}` cannot play action {action} "
                             f"(`{text}`): it is not a legal move in this state")

    def _action_to_string(self, player, action):
        return self._layout.moves[action]

    def is_terminal(self):
        return self._terminal

    def returns(self):
        if not self._terminal:
            return [0.0] * len(self._layout.players)
        goals = self._layout.gdl.goals(self._state)
        return [((goals[r] or 0) - 50) / 50 for r in self._layout.players]

    def __str__(self):
        return "\n".join(self._layout.gdl.fluents(self._state))


class _FluentObserver:
    """Observations of a perfect-information GDL game: every fluent."""

    def __init__(self, gdl):
        self._gdl = gdl
        self.tensor = np.zeros(len(gdl.fluent_names()), np.float32)
        self.dict = {"fluents": self.tensor}

    def set_from(self, state, player):
        self.tensor[:] = self._gdl.observation(state._state)

    def string_from(self, state, player):
        return " ".join(self._gdl.fluents(state._state))
