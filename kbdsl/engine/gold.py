"""Gold won during play (RULINGS 27's totals add it to the final scoring): per player, per source.

A source is a card whose `on build` or `on mandatory` trigger paid, or a tile whose action is
`gold N`; the score sheet shows each as a column of its own.
"""

from __future__ import annotations


class Gold:
    """Per-player gold counters."""

    __slots__ = ()  # the attributes live in State's slots

    gold: list[dict[str, int]]

    def _init_gold(self, players: int) -> None:
        self.gold = [{} for _ in range(players)]

    def _copy_gold(self, s: Gold) -> None:
        s.gold = [dict(g) for g in self.gold]

    def pay(self, p: int, source: str, amount: int) -> None:
        if amount:
            self.gold[p][source] = self.gold[p].get(source, 0) + amount
