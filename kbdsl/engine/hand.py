"""A hand of several terrain cards to choose from (a tile held at the end of a turn draws more).

The hand's first card is the played one (`hand`); the others (`spare`) are offered beside it until
the player commits: the first build, placement or move of the turn onto a hex whose terrain a card
names plays that card (it becomes `hand`) and the others are out of play for the turn. Until then
an action on `terrain(card)` may choose the hexes of any card of the hand, each card with its own
"adjacent if possible" (the union of the single-card targets). All cards go to the discard pile at
the end of the turn.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from kbdsl.engine.zones import Cards

T = TypeVar("T")


class Hand(Cards):
    """Extra terrain cards in hand, and whether the player to move still chooses between them."""

    spare: list[list[str]]  # per player: cards beside the played one
    choosing: bool  # the player to move has not committed to one card of several yet

    def _init_hand(self, players: int) -> None:
        self.spare = [[] for _ in range(players)]
        self.choosing = False

    def _copy_hand(self, s: Hand) -> None:
        s.spare = [list(x) for x in self.spare]
        s.choosing = self.choosing

    def cards_of(self, p: int) -> list[str]:
        """The cards p may still play this turn (the played one first)."""
        first = [self.hand[p]] if self.hand[p] is not None else []
        return first + self.spare[p] if self.choosing else first

    def over_cards(self, p: int, targets: Callable[[], T], merge: Callable[[T, T], T], empty: T) -> T:
        """`targets()` for each card p may still play, merged: what a card-using action allows."""
        played, out = self.hand[p], empty
        self.choosing = False
        try:
            for card in [played, *self.spare[p]]:
                self.hand[p] = card
                out = merge(out, targets())
        finally:
            self.hand[p], self.choosing = played, True
        return out

    def commit(self, p: int, terrain: str | None) -> None:
        """p plays the card of `terrain` (the hex just chosen); the others are out of play this turn."""
        if self.hand[p] != terrain and terrain in self.spare[p]:
            k = self.spare[p].index(terrain)
            self.spare[p][k], self.hand[p] = self.hand[p], terrain
        self.choosing = False

    def draw_hand(self, p: int, n: int) -> None:
        """The end of p's turn: every card in hand goes to the discard pile, and p draws n cards."""
        self.discard.extend(c for c in self.spare[p] if c is not None)
        self.spare[p] = []
        self.discard_and_draw(p)
        for _ in range(n - 1):
            card = self.draw()
            if card is not None:
                self.spare[p].append(card)
