"""Terrain cards: the deck, each player's hand, the discard pile, and cards out of the game.

The deck is shuffled by its own streams of the game's seed (kbdsl.seeds, one per reshuffle),
never by global state, so the same seed always deals the same cards.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kbdsl.seeds import shuffle, stream

if TYPE_CHECKING:
    from kbdsl.engine.setup import BaseGame


class Cards:
    """Where the terrain cards are."""

    __slots__ = ()  # the attributes live in State's slots

    game: BaseGame
    deck: list[str]
    discard: list[str]
    removed: list[str]
    reshuffles: int
    deck_seed: int  # the seed of this state's reshuffles: the game's, or a determinisation's own
    hand: list[str | None]

    def _init_cards(self, players: int) -> None:
        self.deck_seed = self.game.setup.seed
        self.deck = list(self.game.deck_cards)
        shuffle(stream(self.deck_seed, "deck:0"), self.deck)
        self.discard, self.removed, self.reshuffles = [], list(self.game.set_aside), 0  # (cards a card removed)
        self.hand = [None] * players
        if not self.game.draw_at_start:  # else each player draws at the start of their turn
            deck = self.deck
            for p in range(players):
                self.hand[p] = deck.pop() if deck else self.draw()  # (draw's common case, inline)

    def _copy_cards(self, s: Cards) -> None:
        s.deck, s.discard, s.removed, s.reshuffles = (
            list(self.deck),
            list(self.discard),
            list(self.removed),
            self.reshuffles,
        )
        s.hand, s.deck_seed = list(self.hand), self.deck_seed

    def draw(self) -> str | None:
        """The top card of the deck (the discard pile is reshuffled into an empty deck; None if both are empty)."""
        if self.deck:
            return self.deck.pop()
        if not self.discard:
            return None
        self.reshuffles += 1
        self.deck, self.discard = self.discard, []
        shuffle(stream(self.deck_seed, f"deck:{self.reshuffles}"), self.deck)
        return self.deck.pop()

    def replace_card(self, p: int) -> None:
        """RULINGS 8: p's card leaves the game and p draws another."""
        self.removed.append(self.hand[p])
        self.hand[p] = self.draw()

    def discard_and_draw(self, p: int) -> None:
        """The end of p's turn: the played card goes to the discard pile, a new one is drawn."""
        if self.hand[p] is not None:
            self.discard.append(self.hand[p])
        self.hand[p] = self.deck.pop() if self.deck else self.draw()  # (draw's common case, inline)
