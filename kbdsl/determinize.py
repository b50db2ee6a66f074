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
    data["hand"], data["deck"] = deal(view["hand"], view["viewer"], unseen_cards(game, view), view["deck"], rng)
    state = State.from_json(data, game)
    state.game = game.with_seed(rng.getrandbits(63))
    return state


def redeal(state: State, viewer: int | None, unseen: list[str], deck_size: int, rng: random.Random) -> None:
    """Deal `unseen` again at random to the deck and the other players' hands (in place), and
    bind the state to a freshly seeded copy of its game."""
    state.hand, state.deck = deal(state.hand, viewer, unseen, deck_size, rng)
    state.game = state.game.with_seed(rng.getrandbits(63))


def deal(
    hands: list[str | None], viewer: int | None, unseen: list[str], deck_size: int, rng: random.Random
) -> tuple[list[str | None], list[str]]:
    """(hands, deck): the viewer's hand kept, `unseen` shuffled into a deck of `deck_size` cards
    and one card for each of the other players while cards are left."""
    cards = list(unseen)
    rng.shuffle(cards)
    if len(cards) < deck_size:
        raise SetupError(f"the view's deck holds {deck_size} cards, but only {len(cards)} are unseen")
    hidden = len(cards) - deck_size
    out = list(hands)
    for p in range(len(out)):
        if p != viewer:
            out[p] = cards.pop() if hidden > 0 else None
            hidden -= 1
    return out, cards
