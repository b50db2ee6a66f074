"""The random bot: a baseline, and the fuzzer of the turn engine."""

from __future__ import annotations

import random

from kbdsl.errors import KbdslError
from kbdsl.game import State


class RandomBot:
    """Picks uniformly among all legal moves. It needs nothing but the legal moves, which depend
    only on what the player sees, so it skips building a Seat (it runs inside every playout)."""

    name = "random"

    def __init__(self, seed: int | str = 0):
        self.rng = random.Random(seed)

    def choose(self, state: State) -> int:
        actions = state.legal_actions()
        if not actions:
            raise KbdslError("the game is over: there is no move to choose")
        return self.rng.choice(actions)
