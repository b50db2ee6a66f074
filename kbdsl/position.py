"""A board with settlements on it: the input of scoring and the core of a game state."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from kbdsl.board import Placed, assemble, parse_hex
from kbdsl.caches import ByOwner
from kbdsl.errors import SetupError
from kbdsl.ruleset import RuleSet
from kbdsl.suggest import did_you_mean
from kbdsl.tables import layout_tables

if TYPE_CHECKING:
    import networkx as nx


@dataclass(frozen=True)
class Layout:
    """Which sections lie where: per board, the placed sections in grid order."""

    boards: tuple[tuple[str, tuple[Placed, ...]], ...]

    @classmethod
    def of(cls, rules: RuleSet, spec: Sequence[str] | Mapping[str, Sequence[str]]) -> Layout:
        """From `[a, b@180, c, d]` (the primary board) or `{board: [...], ...}`."""
        items = spec.items() if isinstance(spec, Mapping) else [(rules.primary_board.name, spec)]
        known = {b.name for b in rules.boards}
        out = []
        for board, names in items:
            if board not in known:
                hint = did_you_mean(board, known)
                raise SetupError(f"unknown board {board!r} (the rule set has {', '.join(sorted(known))}){hint}")
            out.append((board, tuple(Placed.parse(n) if isinstance(n, str) else n for n in names)))
        return cls(tuple(out))

    def as_dict(self) -> dict[str, list[Placed]]:
        return {b: list(p) for b, p in self.boards}

    def to_json(self) -> dict[str, list[str]]:
        return {b: [str(p) for p in placed] for b, placed in self.boards}


_BOARDS: ByOwner[Board] = ByOwner(8)


class Board:
    """The hex graph of one layout, with its compiled tables. The tables are composed from cached
    parts (kbdsl.tables.layout_tables); the graph is assembled when first asked for (drawing,
    explaining, the protocol): random games and simulations never need it."""

    def __init__(self, rules: RuleSet, layout: Layout, options: Mapping[str, bool]):
        self.rules = rules
        self.layout = layout
        self.options = dict(options)
        self.tables = layout_tables(rules, layout.as_dict(), self.options)

    @cached_property
    def graph(self) -> nx.Graph:
        return assemble(self.rules, self.layout.as_dict(), self.options)

    @classmethod
    def of(cls, rules: RuleSet, layout: Layout, options: Mapping[str, bool]) -> Board:
        """The board of a layout, shared by every game of it (boards are never changed after
        assembly): a simulation or a ladder on one setup assembles it once."""
        key = (layout, tuple(sorted(options.items())))
        return _BOARDS.get(rules, key) or _BOARDS.put(rules, key, cls(rules, layout, options))

    def hex(self, text: str) -> str:
        """The node name of a typed hex; SetupError names the problem."""
        try:
            return parse_hex(text, self.tables.index)
        except ValueError as e:
            raise SetupError(str(e)) from None

    def index(self, text: str) -> int:
        return self.tables.index[self.hex(text)]

    def mask(self, hexes) -> int:
        m = 0
        for h in hexes:
            m |= 1 << self.index(h)
        return m


def resolve_options(rules: RuleSet, given: Mapping[str, bool] | None) -> dict[str, bool]:
    """The rule set's option defaults, overridden by `given` (unknown names are an error)."""
    options = rules.option_defaults()
    for k, v in (given or {}).items():
        if k not in options:
            known = ", ".join(sorted(options)) or "none"
            raise SetupError(f"unknown rule option {k!r} (the rule set has {known}){did_you_mean(k, options)}")
        options[k] = bool(v)
    return options
