"""What the web table says in words: every card and tile in plain English, and refusals.

Sentences come from the parsed rules through `kbdsl.english` (the wording of `kbdsl explain`),
so a custom expansion's cards and tiles get text too, and the page itself names no content. A
refusal is turned from the engine's `Refusal` fields into one sentence in the words of the
rule ("Build on <the card's terrain> hexes, next to your settlements if possible: 3,4 is <its
terrain>."), never in the rule language.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from kbdsl.caches import ByOwner
from kbdsl.engine.explain import Refusal
from kbdsl.english import English
from kbdsl.lang import ast
from kbdsl.ruleset import RuleSet

Json = dict[str, Any]
#: A citation the engine appends to its sentences ("[RULINGS 7]", "[piece x: aura: ...]").
CITED = re.compile(r"\s*\[[^\[\]]*\]$")


_MADE: ByOwner[Json] = ByOwner()


def texts(rules: RuleSet) -> Json:
    """Every card, scoring and tile of a rule set with its title and sentences (the author's text,
    and the engine's reading of the rule), and the mandatory action's sentence; made once per rule set."""
    made = _MADE.get(rules)
    return _MADE.put(rules, (), _texts(rules)) if made is None else made


def _texts(rules: RuleSet) -> Json:
    en = English(rules)

    def card(c: ast.Card) -> Json:
        score = f"Each player scores {en.number(c.score)}." if c.score is not None else ""
        return {"title": c.title, "text": " ".join(c.texts), "rule": _sentence(score)}

    def tile(t: ast.Tile) -> Json:
        action = _sentence(f"{en.action(t.action)}.") if t.action is not None else ""
        return {"title": t.title, "text": " ".join(t.texts), "rule": action}

    mandatory = rules.mandatory[0].decl if rules.mandatory else None
    return {
        "cards": {n: card(c) for n, c in {**rules.cards, **rules.scorings}.items()},
        "tiles": {n: tile(t) for n, t in rules.tiles.items()},
        "mandatory": _sentence(f"{en.action(mandatory)}.") if mandatory is not None else "",
    }


def refusal(rules: RuleSet, why: Refusal) -> Json:
    """The refusal as the page shows it: one plain sentence and the fields it was made from."""
    here = _here(rules, why)
    tile = rules.action_tile.get(why.do)
    what = rules.tiles[tile].title if tile in rules.tiles else "Build"
    if why.kind == "hex" and why.rule is not None and why.rule.target is not None:
        en = English(rules)
        target = _bind_card(why.rule.target, why.card)
        near = ", next to your settlements if possible" if why.rule.adjacent_if_possible else ""
        rule = f"{what} on {_you(en.hexes(target))}{near}"
        if why.fits:
            sentence = f"{rule}: {why.hex} is {here}, but not next to your settlements or blocked."
        else:
            sentence = f"{rule}: {why.hex} is {here}."
    elif why.kind == "occupied":
        rule = f"{what} on an empty hex"
        sentence = f"{rule}: {why.hex} ({here}) is taken."
    else:
        rule = ""
        sentence = _sentence(CITED.sub("", why.reason)) + ("" if why.reason.endswith(".") else ".")
    if why.nearest:
        sentence += f" Nearest you can: {why.nearest}."
    return {
        "text": sentence,
        "rule": rule,
        "hex": why.hex,
        "terrain": why.terrain,
        "location": why.location,
        "card": why.card,
        "nearest": why.nearest,
        "kind": why.kind,
    }


def _here(rules: RuleSet, why: Refusal) -> str:
    """What stands on the refused hex, by title: its terrain or its location."""
    if why.location in rules.tiles:
        return f"a {rules.tiles[why.location].title} location"
    if why.terrain in rules.terrains:
        return rules.terrains[why.terrain].title
    return "off the board"


def _bind_card(node: ast.Expr, card: str | None) -> ast.Expr:
    """The target with the played card's terrain in place of `card` (so it reads "<that terrain> hexes")."""
    if card is None:
        return node
    if isinstance(node, ast.Call):
        if node.name == "terrain" and [getattr(a, "name", None) for a in node.args] == ["card"]:
            return replace(node, args=(ast.Ref(card, pos=node.pos),))
        return replace(node, args=tuple(_bind_card(a, card) for a in node.args))
    if isinstance(node, ast.BoolOp):
        return replace(node, left=_bind_card(node.left, card), right=_bind_card(node.right, card))
    if isinstance(node, ast.Not):
        return replace(node, operand=_bind_card(node.operand, card))
    return node


def _you(text: str) -> str:
    """A phrase of `kbdsl explain` (about "their" pieces) addressed to the player."""
    return re.sub(r"\btheir own\b|\btheir\b", "your", re.sub(r"\bthey played\b", "you played", text))


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text
