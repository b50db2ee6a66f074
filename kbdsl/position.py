"""A board with settlements on it: the input of scoring and the core of a game state."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kbdsl.board import Placed, Tables, assemble, parse_hex
from kbdsl.errors import SetupError
from kbdsl.ruleset import RuleSet
from kbdsl.suggest import did_you_mean

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


class Board:
    """The assembled hex graph of one layout, with its compiled tables."""

    def __init__(self, rules: RuleSet, layout: Layout, options: Mapping[str, bool]):
        self.rules = rules
        self.layout = layout
        self.graph: nx.Graph = assemble(rules, layout.as_dict(), options)
        self.tables = Tables.from_graph(self.graph)

    def hex(self, text: str) -> str:
        """The node name of a typed hex; SetupError names the problem."""
        try:
            return parse_hex(text, self.graph)
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
