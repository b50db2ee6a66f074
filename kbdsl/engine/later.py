"""Delayed modifiers: what an action (`next-turn extra N`, `next-turn ignore adjacent-if-possible`)
changes in its player's next turn: more settlements for the mandatory action, or the first
settlement built free of "adjacent if possible". They add up until that turn starts, which
spends them.
"""

from __future__ import annotations

from typing import Any


class Later:
    """Per player, the modifiers waiting for their next turn: (extra settlements, ignore adjacency)."""

    __slots__ = ()  # the attributes live in State's slots

    later: list[tuple[int, bool] | None]

    def _init_later(self, players: int) -> None:
        self.later = [None] * players

    def _copy_later(self, s: Later) -> None:
        s.later = list(self.later)

    def delay(self, p: int, extra: int, ignore: bool) -> None:
        """Keep a modifier for p's next turn (on top of those already waiting)."""
        was = self.later[p] or (0, False)
        self.later[p] = (was[0] + extra, was[1] or ignore)

    def take_later(self, p: int) -> tuple[int, bool]:
        """The modifiers of p's turn that starts now (spent by it)."""
        mods = self.later[p] or (0, False)
        self.later[p] = None
        return mods

    def later_json(self) -> list[dict[str, Any] | None]:
        return [None if x is None else {"extra": x[0], "ignore": x[1]} for x in self.later]

    def later_from_json(self, data: list | None, players: int) -> None:
        data = data or [None] * players
        if len(data) != players:
            raise ValueError(f"later must have one entry per player ({players})")
        self.later = [None if x is None else (int(x["extra"]), bool(x["ignore"])) for x in data]
