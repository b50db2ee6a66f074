"""Positions no play reaches, said at the field that shows it: what `State.from_json` refuses beside the
shape checks of kbdsl.engine.state, and what `State.arrange` refuses of the pieces it is given.

A piece stands only where some action that builds, places or moves its kind may put it
(BaseGame.standable: a settlement never on a terrain no card or tile of the game builds on, nor
on a location hex or a terrain that is not buildable unless a rule says so); a list of hexes names
each hex once; a game is over only after a supply ran out or a whole round passed without a
settlement; and a saved game's pieces come from its moves, unless the position was set up by hand (`"arranged": true`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kbdsl.engine.phases import END, START
from kbdsl.engine.turn import Turn


def misplaced(s: Turn, in_play: bool = True) -> str | None:
    """The first piece standing where no action could put one (naming the field). `in_play`: no action
    of this game (of the tiles its board gives); else of the rule set (what State.arrange asks: a
    scenario may put a settlement where only a tile of another board would)."""
    g = s.game
    kinds_of = [0] * len(s.own)
    for kind, masks in s.kind_own.items():
        for p, m in enumerate(masks):
            kinds_of[p] |= m
            bad = m & ~g.standable(kind, in_play)
            if bad:
                return f"kinds: player {p} has a {kind} on {_hex(s, bad)}, where no action puts one"
    for p, m in enumerate(s.own):
        bad = m & ~kinds_of[p] & ~g.standable(in_play=in_play)
        if bad:
            return f"settlements: player {p} has a {g.rules.piece_kind} on {_hex(s, bad)}, where no action puts one"
    for kind, m in s.neutral.items():
        bad = m & ~g.standable(kind, in_play)
        if bad:
            return f"neutral: a {kind} stands on {_hex(s, bad)}, where no action puts one"
    return None


def impossible_play(s: Turn, data: Mapping[str, Any]) -> str | None:
    """The first thing of a state rebuilt from JSON (its shape already checked) that no play reaches."""
    problem = _twice(s, data) or misplaced(s)
    if problem:
        return problem
    n = len(s.own)
    if s.idle > n or (s.idle == n and not s.over):
        return f"idle_turns must be 0 to {n} (after {n} turns in a row without a new settlement the game is over)"
    if s.over and not s.ending and s.idle < n:
        return "over: a game ends after a supply runs out (ending) or a round without a new settlement (idle_turns)"
    mandatory = s.game.mandatory.count if s.game.mandatory else 0
    if s.mand_left > mandatory and not s.game.delayed:  # (`next-turn extra N` adds to a turn's, spent unseen)
        return f"mandatory_left must be 0 to {mandatory}, the settlements of the mandatory action"
    if data.get("arranged") is True:
        return None  # set up by hand: its pieces and seats need not come from the log
    if arranged(s):
        return 'log: pieces on the board that no move put there (a position set up by hand says "arranged": true)'
    if s.phase in (START, END):  # a phase of grants: its own seat order (kbdsl.engine.grants)
        return None
    if s.turn_player != (s.start_player + s.turn - 1) % n:  # (a reaction's player moves in another's turn)
        seat = s.turn_player
        return f"current: seat {seat} is not to move in turn {s.turn} of a game that seat {s.start_player} began"
    return None


def arranged(s: Turn) -> bool:
    """Whether a state has pieces that its moves did not put there (what `to_json` marks `arranged`)."""
    if s.log:
        return False
    first = type(s).start(s.game)
    return (s.own, s.neutral, s.kind_own) != (first.own, first.neutral, first.kind_own)


def _twice(s: Turn, data: Mapping[str, Any]) -> str | None:
    """A hex named twice in one list, or two names of one hex among a mapping's keys: the rebuilt
    masks hold fewer hexes than the lists name (the names are parsed again only then; the lists'
    lengths are checked before)."""
    own = zip(data["settlements"], s.own, strict=True)
    lists: list[tuple[str, Any, int]] = [("settlements", hs, m) for hs, m in own]
    lists += [("neutral", data["neutral"].get(k, []), m) for k, m in s.neutral.items()]
    kinds = data.get("kinds", {})
    for k, ms in s.kind_own.items():
        lists += [("kinds", hs, m) for hs, m in zip(kinds.get(k) or [[] for _ in ms], ms, strict=True)]
    lists += [("taken", hs, m) for hs, m in zip(data["taken"], s.taken, strict=True)]
    lists.append(("mandatory_hexes", data["mandatory_hexes"], s.mand_built))
    for field, hexes, mask in lists:
        if mask.bit_count() != len(hexes):
            return f"{field}: {_again(s, hexes)} is named twice"
    if len(s.dealt) != len(data["dealt"]):
        return f"dealt: {_again(s, list(data['dealt']))} is named twice"
    supply = data["location_supply"]
    if len({s.game.board.hex(h) for h in supply}) != len(supply):
        return f"location_supply: {_again(s, list(supply))} is named twice"
    return None


def _again(s: Turn, hexes: list[str]) -> str:
    """The first hex a list names a second time (by another spelling, maybe)."""
    named = [s.game.board.hex(h) for h in hexes]
    return next((h for i, h in enumerate(named) if h in named[:i]), "a hex")


def _hex(s: Turn, mask: int) -> str:
    """The first hex of a mask, with what lies there (its terrain, or its location tile)."""
    t = s.game.tables
    i = (mask & -mask).bit_length() - 1
    what = t.location_of[i] or t.terrain_at(i)
    return f"{t.ids[i]} ({what})" if what else t.ids[i]
