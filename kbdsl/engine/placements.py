"""Markers put on the board at set-up (`setup` declarations), at random from the game's seed.

A marker is a terrain of the rule set: a marked hex is of that terrain too, beside its own (a hex
that is two kinds at once), so every expression reads it as
`terrain(marker)`. A game with markers gets its own copy of the board's tables with the marker
terrains added after the printed ones (`terrain_at` still names the printed terrain first).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from kbdsl.bitset import bit_list
from kbdsl.expr import Ctx
from kbdsl.position import Board
from kbdsl.ruleset import RuleSet
from kbdsl.seeds import stream
from kbdsl.tables import Tables


def mark(rules: RuleSet, board: Board, seed: int, options: Mapping[str, bool]) -> tuple[dict[str, int], Tables]:
    """The hexes each marker terrain gets in a game of this seed, and the tables with them. The
    placements are made in declaration order, each seeing the markers put before it; a section
    (or board) with fewer free hexes than the count gets as many as it has."""
    t = board.tables
    rng = stream(seed, "placements")
    marks: dict[str, int] = {}
    for decl, on, settings in rules.placements:
        tables = _with_marks(t, marks)
        allowed = on(Ctx(tables, [0], 0, dict(options)))
        taken = 0
        for m in marks.values():
            taken |= m
        allowed &= ~taken
        per_section = settings.resolve(options)["per"] == "section"
        for area in _areas(board, per_section, decl.sections):
            hexes = bit_list(allowed & area)
            for i in rng.sample(hexes, min(decl.count, len(hexes))):
                marks[decl.marker] = marks.get(decl.marker, 0) | 1 << i
    return marks, _with_marks(t, marks)


def _areas(board: Board, per_section: bool, named: tuple[str, ...]) -> list[int]:
    """The hexes of each section in play that is a sector (those named, if any), in board order;
    or the whole board. (From the tables: random games never assemble the board's graph.)"""
    t = board.tables
    if not per_section:
        return [t.all]
    return [m for sec, m in zip(t.sector_ids, t.sectors, strict=True) if not named or sec in named]


def _with_marks(t: Tables, marks: dict[str, int]) -> Tables:
    """Tables whose terrains include the markers (a fresh cache: board-only values change)."""
    if not marks:
        return t
    terrain = dict(t.terrain)
    for name, m in marks.items():
        terrain[name] = terrain.pop(name, 0) | m
    return dataclasses.replace(t, terrain=terrain, cache={})
