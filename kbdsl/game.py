"""Games: a rule set bound to a setup (kbdsl.engine.setup), and its first state.

`Game` is the fixed part (rule set, setup, assembled board, compiled tables); `State`
(kbdsl.engine.state) is one moment of play. Moves are `Move` values; bots may use the faster
integer action codes, which encode the same moves.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import replace

from kbdsl.engine.setup import BaseGame, Setup
from kbdsl.engine.state import State
from kbdsl.moves import Move

__all__ = ["Game", "Setup", "State", "replay"]


class Game(BaseGame):
    """A rule set bound to a setup; `new_state()` is its first moment of play."""

    __slots__ = ()

    def new_state(self) -> State:
        return State.start(self)

    def with_seed(self, seed: int) -> Game:
        """The same game with another seed for future deck shuffles (shares board and tables):
        what a determinised copy of a position plays on, so it cannot foresee the real shuffles."""
        other = copy.copy(self)
        other.setup = replace(self.setup, seed=seed)
        return other


def replay(game: Game, moves: Sequence[Move | dict | str]) -> State:
    """Play moves from the start; raises IllegalMove at the first bad one."""
    s = game.new_state()
    for m in moves:
        s.play(m)
    return s
