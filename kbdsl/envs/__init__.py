"""Reinforcement-learning environments: PettingZoo, Gymnasium and OpenSpiel (the `rl` extra).

`kbdsl.envs.encoding` is the one observation layout, `kbdsl.envs.actions` the one action space
and `kbdsl.envs.episode` the game they drive; `pettingzoo`, `gymnasium` and `openspiel` wrap
them in each framework's API (each imports its framework, so import only the one you use).
docs/envs.md describes the encoding.
"""

from kbdsl.envs.encoding import VERSION, Encoding
from kbdsl.envs.episode import Episode

__all__ = ["VERSION", "Encoding", "Episode"]
