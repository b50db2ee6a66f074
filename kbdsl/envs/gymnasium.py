"""A single-agent Gymnasium environment: one seat learns, kbdsl bots play the others.

Importing this module registers `kbdsl/KingdomBuilder-v0`:

    env = gymnasium.make("kbdsl/KingdomBuilder-v0", rules="base", players=3, opponents=["greedy", "random"])

`opponents` names the bots of the other seats in seat order after the agent's, as on the command
line (built-in names, levels or `module:attribute` plug-ins, kbdsl.bots.registry); one name
serves every seat. The observation is the PettingZoo environment's dict (`observation`,
`action_mask`); the mask is in `info["action_mask"]` too. The reward comes at the end (the final
gold margin, or +1/-1 with `reward="win"`); the bots' moves happen inside `step`. An action the
mask forbids changes nothing and costs `illegal_reward` (info["illegal_action"] is then True),
since Gymnasium's checker and unmasked agents step with any action of the space.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from kbdsl.bots.registry import make_bot
from kbdsl.envs import render
from kbdsl.envs.episode import Episode
from kbdsl.envs.pettingzoo import observation_space
from kbdsl.ruleset import RuleSet

ENV_ID = "kbdsl/KingdomBuilder-v0"


class KingdomBuilderEnv(gymnasium.Env):
    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 1}

    def __init__(
        self,
        rules: str | RuleSet = "base",
        players: int = 2,
        opponents: Sequence[str] = ("greedy",),
        seat: int = 0,
        reward: str = "margin",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
        **setup: Any,
    ):
        self.illegal_reward = illegal_reward
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {', '.join(self.metadata['render_modes'])} or None")
        self.episode = Episode(rules, players, reward, **setup)
        if not 0 <= seat < players:
            raise ValueError(f"seat must be 0 to {players - 1}, not {seat}")
        names = list(opponents) * (players - 1) if len(opponents) == 1 else list(opponents)
        if len(names) != players - 1:
            raise ValueError(f"name one opponent, or one for each of the {players - 1} other seats")
        for name in names:
            make_bot(name)  # refuse an unknown name now, not at the first opponent's turn
        self.names, self.seat, self.render_mode = names, seat, render_mode
        self.observation_space = observation_space(self.episode)
        self.action_space = spaces.Discrete(self.episode.num_actions)
        self._seeds = random.Random()
        self._bots: dict[int, Any] = {}

    def _play_others(self) -> None:
        ep = self.episode
        while not ep.over and ep.current != self.seat:
            ep.play_code(self._bots[ep.current].choose(ep.state))

    def _obs(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        ep = self.episode
        mask = ep.mask() if not ep.over else np.zeros(ep.num_actions, np.int8)
        return {"observation": ep.observe(self.seat), "action_mask": mask}, {"action_mask": mask}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None:
            self._seeds.seed(seed)
        game_seed = self._seeds.getrandbits(63)
        self.episode.reset(game_seed)
        others = [s for s in range(self.episode.players) if s != self.seat]
        others.sort(key=lambda s: (s - self.seat) % self.episode.players)
        self._bots = {s: make_bot(name, f"{game_seed}:{s}") for s, name in zip(others, self.names, strict=True)}
        self._play_others()
        return self._obs()

    def step(self, action: int):
        ep = self.episode
        if ep.over:
            raise RuntimeError("the game is over: call reset()")
        if not ep.choice.allows(int(action)):
            obs, info = self._obs()
            return obs, self.illegal_reward, False, False, info | {"illegal_action": True}
        ep.step(action)
        self._play_others()
        obs, info = self._obs()
        reward = ep.returns()[self.seat] if ep.over else 0.0
        return obs, reward, ep.over, False, info

    def render(self):
        if self.render_mode == "ansi":
            return render.ansi(self.episode.state)
        if self.render_mode == "rgb_array":
            return render.rgb_array(self.episode.state)
        return None


if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="kbdsl.envs.gymnasium:KingdomBuilderEnv")
