"""Final scoring: run the compiled scorers of the game's cards (and always-on scorings)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import reduce
from itertools import repeat
from operator import or_

from kbdsl.caches import ByOwner
from kbdsl.tables import Tables
from kbdsl.expr import Ctx, Fn
from kbdsl.ruleset import RuleSet


def scorer_names(rules: RuleSet, cards: Sequence[str]) -> list[str]:
    """Columns of a score sheet: the game's cards in order, then every always-on scoring."""
    return [*cards, *rules.scorings]


def _nothing(c: Ctx) -> int:
    """The final score of a card that only pays during play."""
    return 0


#: (rules, cards) -> a sheet's columns with the scorer of each: found once per rule set and set of
#: cards, not once a game; bounded above the 720 orders of three cards of ten.
_COLUMNS: ByOwner[tuple[tuple[str, Fn], ...]] = ByOwner(4096)


def columns(rules: RuleSet, cards: Sequence[str]) -> tuple[tuple[str, Fn], ...]:
    """A score sheet's columns (scorer_names), each with its scorer."""
    key = tuple(cards)
    got = _COLUMNS.get(rules, key)
    if got is None:  # (with task cards dealt by sections, most games' set is new)
        names = scorer_names(rules, cards)
        got = _COLUMNS.put(rules, key, tuple(zip(names, map(rules.scorers.get, names, repeat(_nothing)), strict=False)))
    return got


def score(
    rules: RuleSet,
    tables: Tables,
    own: Sequence[int],
    cards: Sequence[str],
    options: Mapping[str, bool],
    occ: int | None = None,
    tiles: Sequence[Sequence] | None = None,
    picks: Mapping[str, str] | None = None,
    nb: Sequence[int] | None = None,
) -> list[dict[str, int]]:
    """Per player, gold per scorer name (cards first, then the always-on scorings); `occ` is every
    occupied hex, neutral pieces included (default: the players' pieces). A card that only pays
    during play scores 0 here. `tiles` (per player, the tiles held) is what held() reads, `picks`
    (card -> the terrain it removed from the deck) what terrain(removed) reads; `nb` (per player,
    the hexes next to their settlements, if the caller keeps them) spares growing them again.
    One context serves every player, so what a scorer finds for all players at once (a rank, the
    areas) is found once a sheet."""
    fns = columns(rules, cards)
    owned = reduce(or_, own, 0)
    ctx = Ctx(tables, list(own), owned if occ is None else occ, dict(options))
    ctx.owned = owned
    ctx.tiles, ctx.picks = list(tiles or ()), dict(picks or {})
    if nb is not None:
        ctx.nb = list(nb)
    sheets = []
    for p in range(len(own)):
        ctx.p = p
        sheets.append({name: fn(ctx) for name, fn in fns})
    return sheets
