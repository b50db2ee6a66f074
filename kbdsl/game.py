"""Games: a rule set bound to a setup (kbdsl.engine.setup), and its first state.

`Game` is the fixed part (rule set, setup, assembled board, compiled tables); `State`
(kbdsl.engine.state) is one moment of play. Moves are `Move` values; bots may use the faster
integer action codes, which encode the same moves.
"""

from __future__ import annotations

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
        """The same game with another seed (shares board and tables): a game's new states shuffle
        by it, and a bot's Seat holds the game with seed 0, so it cannot foresee the real deck."""
        other = object.__new__(type(self))  # a shallow copy, slot by slot (copy.copy of slots is slower)
        for name in BaseGame.__slots__:
            setattr(other, name, getattr(self, name))
        other.setup = replace(self.setup, seed=seed)
        return other


def replay(game: Game, moves: Sequence[Move | dict | str]) -> State:
    """Play moves from the start; raises IllegalMove at the first bad one."""
    s = game.new_state()
    for m in moves:
        s.play(m)
    return s
