"""GDL games as PettingZoo AEC environments.

    >>> import gdlc.pettingzoo
    >>> env = gdlc.pettingzoo.env("games/tictactoe.kif")
    >>> env.reset(seed=1)

Each role is an agent (a role named `random` excepted: the environment
draws its moves uniformly, from the seed `reset` was given). In every
state the roles with a choice between moves act, one after the other in
role order (in a turn-taking game, the one role whose turn it is; in a
simultaneous-move game, every role with a choice; when no role has one,
the first agent takes its single move); once each has chosen, the joint
move is played, the roles without a choice making their one move.

Actions are indices into `Game.move_names()` (one list for every agent);
an observation is a dict of `observation` (every fluent as 0/1, over
`Game.fluent_names()`) and `action_mask` (the acting agent's legal moves;
all zeros for an agent not acting). At the end each agent is rewarded its
goal value mapped from 0..100 to -1..1 (a missing goal counts as 0).
"""

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

import gdlc
from gdlc.openspiel import RANDOM_ROLE


def env(path_or_text, backend="auto", render_mode=None):
    """The AEC environment of a GDL game (`gdlc.load(path_or_text, backend)`)."""
    game = gdlc.load(path_or_text, backend=backend)
    gdlc._perfect_information_only(game, "PettingZoo")
    return GdlEnv(game, render_mode=render_mode)


class GdlEnv(AECEnv):
    """A GDL game as a PettingZoo AEC environment."""

    metadata = {"render_modes": ["ansi"], "name": "gdl_v0", "is_parallelizable": False}

    def __init__(self, game, render_mode=None):
        super().__init__()
        self.game = game
        self.render_mode = render_mode
        roles = [r.lower() for r in game.roles]
        self._chance = roles.index(RANDOM_ROLE) if RANDOM_ROLE in roles else None
        self._roles = [r for r in range(len(roles)) if r != self._chance]
        self.possible_agents = [game.roles[r] for r in self._roles]
        n_fluents, n_moves = len(game.fluent_names()), len(game.move_names(0))
        self.observation_spaces = {
            a: spaces.Dict({
                "observation": spaces.Box(0, 1, (n_fluents,), np.int8),
                "action_mask": spaces.Box(0, 1, (n_moves,), np.int8),
            })
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(n_moves) for a in self.possible_agents}
        self._rng = np.random.default_rng()

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed=None, options=None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._enter(self.game.initial_state())

    def _enter(self, state):
        """Makes `state` current: its masks, and who acts in it."""
        game = self.game
        self.state = state
        if game.is_terminal(state):
            goals = game.goals(state)
            for agent, role in zip(self.possible_agents, self._roles):
                self.rewards[agent] = ((goals[role] or 0) - 50) / 50
            self.terminations = dict.fromkeys(self.agents, True)
            self._masks = {}
            self._acting = []
        else:
            self._masks = {r: game.legal_mask(state, r) for r in range(len(game.roles))}
            self._acting = [r for r in self._roles if self._masks[r].sum() > 1]
            self._acting = self._acting or self._roles[:1]
        self._chosen = {}
        self.agent_selection = (self.game.roles[self._acting[0]] if self._acting
                                else self.agents[0])

    def observe(self, agent):
        mask = np.zeros(self.action_spaces[agent].n, np.int8)
        role = self.game.roles.index(agent)
        if agent == self.agent_selection and role in self._masks:
            mask[:] = self._masks[role]
        return {"observation": self.game.observation(self.state).astype(np.int8),
                "action_mask": mask}

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        role = self.game.roles.index(agent)
        if not self._masks[role][action]:
            raise ValueError(f"{agent}: action {action} is not legal here")
        self._cumulative_rewards[agent] = 0.0
        self._chosen[role] = int(action)
        waiting = [r for r in self._acting if r not in self._chosen]
        if waiting:
            self.agent_selection = self.game.roles[waiting[0]]
            return
        joint = [self._chosen.get(r) for r in range(len(self.game.roles))]
        for r, move in enumerate(joint):
            if move is None:
                legal = np.flatnonzero(self._masks[r])
                joint[r] = int(legal[0] if len(legal) == 1 else self._rng.choice(legal))
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._enter(self.game.apply(self.state, joint, checked=False))
        self._accumulate_rewards()

    def render(self):
        if self.render_mode == "ansi":
            return "\n".join(self.game.fluents(self.state))
        return None

    def close(self):
        pass
