"""Determinisation: full states consistent with what one player can see.

A player's view (`State.view(p)`) hides the other hands, the order of the deck and the seed.
Search bots play on determinisations instead: the cards the player has not seen are dealt at
random to the hidden places, and the copy draws its reshuffles from a fresh seed of its own
(`State.deck_seed`), so even a deck reshuffle during a playout cannot foresee the real one.
Nothing here reads hidden information.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from typing import Any

from kbdsl.bitset import bit_list
from kbdsl.errors import SetupError
from kbdsl.game import Game, State
from kbdsl.seeds import shuffle
from kbdsl.wording import counted


def unseen_cards(game: Game, view: Mapping[str, Any]) -> list[str]:
    """The terrain cards the viewer has not seen: the deck's cards minus the discard pile, the
    removed cards and the cards in hand shown in the view (sorted, so the result names no order)."""
    hands = list(view["hand"])
    if view.get("wild") is not None:  # the viewer plays a card as another terrain: the card is what it holds
        hands[view.get("turn_player", view["current"])] = view["wild"]
    spare = [c for x in view.get("spare") or () for c in x]
    return _unseen(game, [*view["discard"], *view["removed"], *(c for c in [*hands, *spare] if c is not None)])


def unseen_in(state: State, viewer: int) -> list[str]:
    """`unseen_cards(game, state.view(viewer))` without building the view: only the cards the
    view shows are read (the viewer's own hand, the played card behind a wild one, the piles)."""
    hand = state.wild if state.wild is not None and viewer == state.turn_player else state.hand[viewer]
    shown = [c for c in [hand, *state.spare[viewer]] if c is not None]
    return _unseen(state.game, [*state.discard, *state.removed, *shown])


def _unseen(game: Game, seen: list[str]) -> list[str]:
    left = Counter(game.rules.deck)
    left.subtract(seen)
    if min(left.values(), default=0) < 0:
        raise SetupError("the view shows more cards of a terrain than the deck holds")
    return sorted(left.elements())


def determinize(game: Game, view: Mapping[str, Any], rng: random.Random) -> State:
    """A full state agreeing with `view` (of `view['viewer']`), hidden cards dealt by `rng`."""
    data = dict(view)
    spare = view.get("spare")
    hands, extra, data["deck"] = deal(
        view["hand"], spare or [[] for _ in view["hand"]], view["viewer"], unseen_cards(game, view), view["deck"], rng
    )
    data["hand"] = hands
    if spare is not None:
        data["spare"] = extra
    if "wild" in view and view["wild"] is None:  # another player plays a card as another terrain: so does the copy
        _play_as_another(game, data, view.get("turn_player", view["current"]))
    state = State.from_json(data, game)
    state.deck_seed = rng.getrandbits(63)
    return state


def _play_as_another(game: Game, data: dict[str, Any], p: int) -> None:
    """p's dealt card becomes the card played as another terrain (`wild`), as the view says p's is.
    With cards of several terrains, p is dealt one (from the deck if need be) that has the terrain
    of p's mandatory builds this turn (public), played as that terrain (else as its first); without
    them, the card is played as any terrain (here, its own)."""
    hands, deck, faces = data["hand"], data["deck"], game.faces
    if faces:
        saved = (data.get("reaction") or {}).get("saved")  # in a reaction, the turn's player's builds are set aside
        mask = saved["mand_built"] if saved else game.board.mask(data["mandatory_hexes"])
        built = next((game.tables.terrain_at(i) for i in bit_list(mask)), None)
        fits = [c for c in faces if built in faces[c]] or list(faces)
        if hands[p] not in fits:
            k = next((k for k, c in enumerate(deck) if c in fits), None)
            if k is not None:
                deck[k], hands[p] = hands[p], deck[k]
    card = terrain = hands[p]
    if card in faces:
        terrain = built if built in faces[card] else faces[card][0]
    data["wild"], hands[p] = card, terrain


def redeal(state: State, viewer: int | None, unseen: list[str], deck_size: int, rng: random.Random) -> None:
    """Deal `unseen` again at random to the deck and the other players' hands (in place), and
    give the state a fresh seed of its future reshuffles."""
    state.hand, state.spare, state.deck = deal(state.hand, state.spare, viewer, unseen, deck_size, rng)
    state.deck_seed = rng.getrandbits(63)


def deal(
    hands: list[str | None],
    spare: list[list[str | None]],
    viewer: int | None,
    unseen: list[str],
    deck_size: int,
    rng: random.Random,
) -> tuple[list[str | None], list[list[str]], list[str]]:
    """(hands, spare, deck): the viewer's cards kept, `unseen` shuffled into a deck of `deck_size`
    cards and the other players' hands. The view says how many cards each holds beside the played
    one (those players hold a played card too); the others get one card each while cards are left."""
    cards = list(unseen)
    shuffle(rng, cards)
    if len(cards) < deck_size:
        raise SetupError(f"the view's deck holds {counted(deck_size, 'card')}, but only {len(cards)} are unseen")
    hidden = len(cards) - deck_size
    others = [p for p in range(len(hands)) if p != viewer]
    if hidden < sum(1 + len(spare[p]) for p in others if spare[p]):
        raise SetupError(f"the view's hands hold more cards than the {hidden} unseen outside the deck")
    out, extra = list(hands), [list(x) for x in spare]
    for p in sorted(others, key=lambda p: not spare[p]):  # those known to hold cards first
        extra[p] = [cards.pop() for _ in spare[p]]
        hidden -= len(extra[p])
        out[p] = cards.pop() if hidden > 0 else None  # always a card for those holding spare ones
        hidden -= out[p] is not None
    return out, extra, cards
