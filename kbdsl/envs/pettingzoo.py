"""A PettingZoo AEC environment of any rule set: `env(rules="base", players=2, **setup)`.

Agents are `player_0` ... in seat order; the agent to act is the seat to move (one seat acts
several times in a row during its turn). Each observation is a dict with `observation` (the
kbdsl.envs.encoding vector, seen by that agent) and `action_mask` (kbdsl.envs.actions). Rewards
come at the end only: the final gold margin, or +1/-1 for a win or loss (`reward="win"`).
`**setup` goes to `Game.new` (sections, cards, options, preset); the seed comes from `reset`.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from kbdsl.envs import render
from kbdsl.envs.episode import Episode
from kbdsl.ruleset import RuleSet


def env(rules: str | RuleSet = "base", players: int = 2, **kwargs: Any) -> AECEnv:
    """The environment wrapped as PettingZoo recommends (illegal actions refused, order checked)."""
    return wrappers.OrderEnforcingWrapper(raw_env(rules, players, **kwargs))


HIGH = 10_000.0  # above any count, turn or gold a game reaches (every value is at least 0)


def observation_space(episode: Episode) -> spaces.Dict:
    """The space of one agent's observation (also that of the Gymnasium environment)."""
    return spaces.Dict(
        {
            "observation": spaces.Box(0.0, HIGH, episode.enc.shape, np.float32),
            "action_mask": spaces.Box(0, 1, (episode.num_actions,), np.int8),
        }
    )


class raw_env(AECEnv):  # noqa: N801  (PettingZoo's naming convention)
    metadata = {"render_modes": ["ansi", "rgb_array"], "name": "kbdsl_v0", "is_parallelizable": False}

    def __init__(
        self,
        rules: str | RuleSet = "base",
        players: int = 2,
        reward: str = "margin",
        render_mode: str | None = None,
        **setup: Any,
    ):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {', '.join(self.metadata['render_modes'])} or None")
        self.episode = Episode(rules, players, reward, **setup)
        self.render_mode = render_mode
        self.possible_agents = [f"player_{p}" for p in range(players)]
        self._seeds = random.Random()
        self._obs_space = observation_space(self.episode)
        self._act_spaces = {a: spaces.Discrete(self.episode.num_actions) for a in self.possible_agents}
        self._obs_spaces = {a: self._obs_space for a in self.possible_agents}  # the same object each time

    def observation_space(self, agent: str) -> spaces.Dict:
        return self._obs_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self._act_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A new game; its seed is `seed`, or else drawn from the stream of the last seed given."""
        if seed is not None:
            self._seeds.seed(seed)
        self.episode.reset(self._seeds.getrandbits(63))
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict] = {a: {} for a in self.agents}
        self.agent_selection = self.agents[self.episode.current]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        p = self.possible_agents.index(agent)
        ep = self.episode
        mask = ep.mask() if p == ep.current and not ep.over else np.zeros(ep.num_actions, np.int8)
        return {"observation": ep.observe(p), "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        ep = self.episode
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        ep.step(action)
        if ep.over:
            self.rewards = dict(zip(self.possible_agents, ep.returns(), strict=True))
            self.terminations = dict.fromkeys(self.agents, True)
            self.agent_selection = agent
        else:
            self.agent_selection = self.agents[ep.current]
        self._accumulate_rewards()

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            return None
        if self.render_mode == "ansi":
            return render.ansi(self.episode.state)
        return render.rgb_array(self.episode.state)

    def close(self) -> None:
        pass
