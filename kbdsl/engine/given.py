"""Tiles given from a stock: a tile with `given: CONDITION` lies on no hex; a player takes one the
moment the condition comes true for them as they take a tile (`given: held(shrine) >= 2` is a
bonus for the second tile of a kind). Each player holds at most one of each such kind, and the
stock is the tile's `supply` less the copies players hold. The tile records the hex of the tile
whose taking gave it, and then follows its lifecycle like any other.
"""

from __future__ import annotations

from typing import Any

from kbdsl.engine.tiles import Holdings, Tile, kind_of


class Given(Holdings):
    """The given tiles that come with taking tiles (`Holdings.gain` calls `grant`)."""

    __slots__ = ()  # the attributes live in State's slots

    ctx: Any  # the evaluation context of a player (kbdsl.engine.targets)

    def grant(self, p: int, at: int) -> None:
        """p takes each given tile whose condition now holds for them (one of a kind, while the stock lasts)."""
        g = self.game
        held, c = self.tiles[p], None
        have = set(map(kind_of, held))  # (in C; a tile given below is of a kind not looked at again)
        for kind, when in g.given.items():
            if kind not in have:  # the condition first: it is rarely true, and cheaper than counting the stock
                if c is None:
                    c = self.ctx(p)  # (one context for the conditions, until a tile is taken)
                if when(c) and self.given_left(kind):
                    held.append(Tile(kind, at, False, kind in g.wait_a_turn))
                    c = None

    def given_left(self, kind: str) -> int:
        """Copies of a given tile left in its stock."""
        supply = self.game.rules.tiles[kind].supply or 0
        return supply - sum(1 for ts in self.tiles for x in ts if x.kind == kind)
