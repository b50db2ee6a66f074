"""Determinisation: full states consistent with what one player can see.

A player's view (`State.view(p)`) hides the other hands, the order of the deck and the seed.
Search bots play on determinisations instead: the cards the player has not seen are dealt at
random to the hidden places, and the copy plays on a game with a fresh seed, so even a deck
reshuffle during a playout cannot foresee the real one. Nothing here reads hidden information.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from typing import Any

from kbdsl.errors import SetupError
from kbdsl.game import Game, State


def unseen_cards(game: Game, view: Mapping[str, Any]) -> list[str]:
    """The terrain cards the viewer has not seen: the deck's cards minus the discard pile, the
    removed cards and the hands shown in the view (sorted, so the result names no order)."""
    left = Counter(game.rules.deck)
    seen = [*view["discard"], *view["removed"], *(h for h in view["hand"] if h is not None)]
    left.subtract(seen)
    if min(left.values(), default=0) < 0:
        raise SetupError("the view shows more cards of a terrain than the deck holds")
    return sorted(left.elements())


def determinize(game: Game, view: Mapping[str, Any], rng: random.Random) -> State:
    """A full state agreeing with `view` (of `view['viewer']`), hidden cards dealt by `rng`."""
    data = dict(view)
    data["deck"] = []
    state = State.from_json(data, game)
    redeal(state, view["viewer"], unseen_cards(game, view), view["deck"], rng)
    return state


def redeal(state: State, viewer: int | None, unseen: list[str], deck_size: int, rng: random.Random) -> None:
    """Deal `unseen` at random to the deck (`deck_size` cards) and to the hands of the players
    other than `viewer` (in place), and bind the state to a freshly seeded copy of its game."""
    cards = list(unseen)
    rng.shuffle(cards)
    hidden = len(cards) - deck_size
    if hidden < 0:
        raise SetupError(f"the view's deck holds {deck_size} cards, but only {len(cards)} are unseen")
    for p in range(state.players):
        if p != viewer:
            state.hand[p] = cards.pop() if hidden > 0 else None
            hidden -= 1
    state.deck = cards
    state.game = state.game.with_seed(rng.getrandbits(63))
