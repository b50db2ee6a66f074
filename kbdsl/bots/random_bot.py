"""The random bot: a baseline, and the fuzzer of the turn engine."""

from __future__ import annotations

import random

from kbdsl.game import State


class RandomBot:
    """Picks uniformly among all legal moves. It needs nothing but the legal moves, which depend
    only on what the player sees, so it skips building a Seat (it runs inside every playout)."""

    name = "random"

    def __init__(self, seed: int | str = 0):
        self.rng = random.Random(seed)

    def choose(self, state: State) -> int:
        """Uniform over legal_actions(), drawn without listing them (State.sample_action); raises
        KbdslError when the game is over."""
        return state.sample_action(self.rng)
