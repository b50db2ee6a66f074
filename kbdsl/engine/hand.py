"""The card zones as the rules state them: a hand of one or several terrain cards.

The turn block's card-zone settings (`hand`, `draw`, `discard`, `identical`;
kbdsl.ruleset.CARD_SETTINGS) say how many cards each player holds, whether the hand is dealt at
setup and filled at the end of the holder's turn or filled at its start, and which cards go to
the discard pile at its end; a tile held at the time may restate them for its holder (the largest
`hand` wins).

A terrain card of several choices (a `terrain-card` declaration) is chosen the same way: while the
player has not committed, each of its terrains is offered as a card of its own, and the first hex
chosen on one of them plays the card as that terrain (`wild` keeps the card itself, which goes to
the discard pile); its choice may build another number of settlements (kbdsl.engine.turn).

The hand's first card is the played one (`hand`); the others (`spare`) are offered beside it until
the player commits: the first build, placement or move of the turn onto a hex whose terrain a card
names plays that card (it becomes `hand`) and the others are out of play for the turn. Until then
an action on `terrain(card)` may choose the hexes of any card of the hand, each card with its own
"adjacent if possible" (the union of the single-card targets). With `identical: any-terrain`, a
hand of two or more cards all of one terrain offers every terrain of the deck instead: the chosen
terrain is then `hand` for the rest of the turn, and `wild` keeps the card played as it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from kbdsl.engine.zones import Cards

T = TypeVar("T")


class Hand(Cards):
    """Extra terrain cards in hand, and whether the player to move still chooses between them."""

    __slots__ = ()  # the attributes live in State's slots

    spare: list[list[str]]  # per player: cards beside the played one
    choosing: bool  # the player to move has not committed to one card of several yet
    wild: str | None  # the card the turn's player plays as another terrain (identical: any-terrain)
    tiles: list  # per player, the tiles held (kbdsl.engine.tiles)
    current: int  # the player to move (kbdsl.engine.turn)
    turn_player: int  # the player whose turn it is: `current` but in a reaction (kbdsl.engine.grants)

    def _init_hand(self, players: int) -> None:
        self.spare = [[] for _ in range(players)]
        self.choosing = False
        self.wild = None
        size = self.game.hand_size
        if size > 1 and not self.game.draw_at_start:  # `_init_cards` dealt each player one card
            for p in range(players):
                self.fill(p, size)

    def _copy_hand(self, s: Hand) -> None:
        s.spare = [list(x) for x in self.spare]
        s.choosing = self.choosing
        s.wild = self.wild

    def cards_of(self, p: int) -> list[str]:
        """The cards p may still play this turn (the played one first)."""
        first = [self.hand[p]] if self.hand[p] is not None else []
        return first + self.spare[p] if self.choosing else first

    def any_terrain(self, p: int) -> bool:
        """Whether p's hand is two or more cards of one terrain that may be played as any terrain."""
        g, played, others = self.game, self.hand[p], self.spare[p]
        if not others or others.count(played) != len(others):  # (one C call: no generator frame)
            return False
        return g.wild or any(x.kind in g.wild_tiles for x in self.tiles[p])

    def card_choices(self, p: int) -> list[str | None]:
        """The cards p may still play, as the terrains they offer (a card of several choices: each
        of its terrains), the played card's first."""
        played, faces, spare = self.hand[p], self.game.faces, self.spare[p]
        if not spare:  # one card (most calls): its terrains, without a comprehension
            return list(faces.get(played, (played,))) if faces else [played]
        cards = list(self.game.rules.deck) if self.any_terrain(p) else [played, *spare]
        if faces:
            return [t for c in cards for t in faces.get(c, (c,))]
        return cards

    def over_cards(self, p: int, targets: Callable[[], T], merge: Callable[[T, T], T], empty: T) -> T:
        """`targets()` for each card p may still play, merged: what a card-using action allows."""
        played, out = self.hand[p], empty
        cards = self.card_choices(p)
        self.choosing = False
        try:
            for card in cards:
                self.hand[p] = card
                out = merge(out, targets())
        finally:
            self.hand[p], self.choosing = played, True
        return out

    def commit(self, p: int, terrain: str | None) -> None:
        """p plays the card of `terrain` (the hex just chosen); the others are out of play this turn."""
        faces = self.game.faces
        if faces:
            for k, card in enumerate([self.hand[p], *self.spare[p]]):
                if terrain in faces.get(card, ()):  # a card of several choices, played as that terrain
                    if k:
                        self.spare[p][k - 1], self.hand[p] = self.hand[p], card
                    self.wild, self.hand[p], self.choosing = card, terrain, False
                    return
        if self.hand[p] != terrain and terrain in self.spare[p]:
            k = self.spare[p].index(terrain)
            self.spare[p][k], self.hand[p] = self.hand[p], terrain
        elif self.hand[p] != terrain and self.any_terrain(p):
            self.wild, self.hand[p] = self.hand[p], terrain
        self.choosing = False

    def played_card(self, p: int) -> str | None:
        """The card p played this turn (the one that stands for another terrain, if any)."""
        if self.wild is not None and p == self.turn_player:  # (a reaction's player to move plays no card)
            return self.wild
        return self.hand[p]

    def replace_card(self, p: int) -> None:
        """RULINGS 8: p's card leaves the game and p draws another."""
        self.hand[p], self.wild = self.played_card(p), None
        super().replace_card(p)
        if self.hand[p] in self.game.faces:  # the new card is one of several choices: choose
            self.choosing = True

    def hand_rules(self, p: int) -> tuple[int, bool]:
        """(hand size, whether unplayed cards stay in hand) for p now: the turn's, restated by the
        tiles p holds (the largest hand wins)."""
        g = self.game
        size, keep, hand_tiles, keep_tiles = g.hand_size, g.keep_unplayed, g.hand_tiles, g.keep_tiles
        for x in self.tiles[p]:
            if x.kind in hand_tiles and hand_tiles[x.kind] > size:
                size = hand_tiles[x.kind]
            if x.kind in keep_tiles:
                keep = keep_tiles[x.kind]
        return size, keep

    def refill(self, p: int) -> None:
        """The end of p's turn: the played card goes to the discard pile, the others too unless the
        rules keep them (`discard: played`), and p draws up to the hand size (unless the rules
        draw at the start of the turn, `draw: start-of-turn`)."""
        size, keep = self.hand_rules(p)
        spare, hand = self.spare[p], self.hand
        if size == 1 and not spare and self.wild is None and not self.game.draw_at_start:
            self.discard_and_draw(p)  # one card, as the plain hand (a tile restating it not held)
            return
        played = hand[p] if self.wild is None else self.played_card(p)  # (played_card's common case)
        self.wild = None
        if not keep:
            self.discard.extend(spare)
            self.spare[p] = spare = []
        if played is not None:
            self.discard.append(played)
        hand[p] = spare.pop(0) if spare else None
        if not self.game.draw_at_start:
            self.fill(p, size)

    def fill(self, p: int, size: int) -> None:
        """p draws until the hand holds `size` cards (or the cards run out)."""
        spare = self.spare[p]
        if self.hand[p] is None:
            self.hand[p] = self.deck.pop() if self.deck else self.draw()  # (draw's common case, inline)
        for _ in range(size - 1 - len(spare)):
            card = self.deck.pop() if self.deck else self.draw()
            if card is not None:
                spare.append(card)
