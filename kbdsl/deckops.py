"""Deck operations of Kingdom Builder cards at set-up: a dealt card that `removes` takes every
terrain card of one terrain out of the terrain deck (a card of several choices showing it too).

The terrain is the one the card names, or one of those it lists drawn by the game's seed (its own
stream, so games whose cards remove nothing draw exactly as before). The card's score reads the
terrain as `terrain(removed)`.
"""

from __future__ import annotations

from collections.abc import Sequence

from kbdsl.ruleset import RuleSet
from kbdsl.seeds import stream


def removals(rules: RuleSet, cards: Sequence[str], seed: int) -> dict[str, str]:
    """Card -> the terrain it takes out of the deck, for the dealt cards that remove one."""
    out: dict[str, str] = {}
    rng = None
    for name in cards:
        choices = rules.cards[name].removes if name in rules.cards else ()
        if len(choices) == 1:
            out[name] = choices[0]
        elif choices:
            rng = rng or stream(seed, "removes")
            out[name] = choices[rng.randrange(len(choices))]
    return out


def deck_without(rules: RuleSet, picks: dict[str, str]) -> tuple[list[str], list[str]]:
    """The unshuffled terrain deck less every card that shows a removed terrain, and those cards
    (they are out of the game from the start)."""
    gone = set(picks.values())
    kept: list[str] = []
    out: list[str] = []
    for card, count in rules.deck.items():
        (out if gone & set(rules.card_terrains(card)) else kept).extend([card] * count)
    return kept, out
