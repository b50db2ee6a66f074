"""Assemble board sections into the networkx hex graph (and the graphs of its parts).

Coordinates: every hex is named `row,col` (0-based, row 0 on top, odd-r: odd rows sit
half a hex to the right) on the primary board, and `board:row,col` on any other board
(a detached board has a coordinate space of its own). These names
are the graph's node keys and the notation of moves, scenarios, saves and the CLI.

The graph is the model: node attributes are board, row, col, q, r (axial), terrain,
location, special, buildable, section, sector, line, edge and sides (the named sides of the
edge a hex lies on: top, bottom, left, right; a corner is on two). The bitset tables of the hot
loops derive from it (kbdsl.tables): from the graph of a board's shape, which holds its hexes'
coordinates and adjacency, and from each section's graph, which holds what its hexes hold.
"""

from __future__ import annotations

import re
from collections.abc import Container, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kbdsl.caches import ByOwner, trim
from kbdsl.errors import SetupError
from kbdsl.ruleset import RuleSet
from kbdsl.suggest import did_you_mean
from kbdsl.wording import counted

if TYPE_CHECKING:
    import networkx as nx

    from kbdsl.lang import ast

#: Axial steps of the 6 directions; direction d and d+3 are opposite.
DIRECTIONS = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
_BOARD_RE = re.compile(r"[a-z][a-z0-9_-]*", re.I)  # matched whole: no backtracking
#: Longer typed text is refused before it is looked at (a hex name is a dozen characters).
MAX_HEX_TEXT = 64


@dataclass(frozen=True)
class Placed:
    """A section placed on a board slot, optionally turned by 180 degrees."""

    name: str
    turned: bool = False

    @classmethod
    def parse(cls, text: str) -> Placed:
        name, _, turn = text.partition("@")
        if turn not in ("", "0", "180"):
            raise SetupError(f"section {text!r}: only a turn of 180 degrees exists (write {name}@180)")
        return cls(name.strip(), turn == "180")

    def __str__(self) -> str:
        return f"{self.name}@180" if self.turned else self.name


def hex_name(board: str, row: int, col: int, primary: bool) -> str:
    return f"{row},{col}" if primary else f"{board}:{row},{col}"


def offset_to_axial(row: int, col: int) -> tuple[int, int]:
    return col - (row - (row & 1)) // 2, row


@dataclass(frozen=True)
class Placement:
    """One board of a layout, checked against the rule set: its sections in grid order, whether
    each is turned, whether its sections are sectors, and `shape`, the key of its geometry."""

    board: str
    primary: bool
    sections: tuple[ast.Section, ...]
    turned: tuple[bool, ...]
    sectors: bool
    shape: tuple  # (board, primary, columns of sections, each section's rows and columns, edge)


def placements(rules: RuleSet, layout: Mapping[str, Sequence[Placed]], options: Mapping[str, bool]) -> list[Placement]:
    """The boards of a layout that place sections, in the rule set's order; SetupError names a wrong one."""
    out = []
    for bi, spec in enumerate(rules.boards):
        placed = list(layout.get(spec.name, ()))
        if not placed:
            continue
        rows_n, cols_n = spec.grid
        if len(placed) != rows_n * cols_n:
            raise SetupError(f"board {spec.name!r} takes {counted(rows_n * cols_n, 'section')}, got {len(placed)}")
        names = [p.name for p in placed]
        if len(set(names)) != len(names):
            raise SetupError(f"board {spec.name!r}: each section may be used once, got {', '.join(names)}")
        secs = []
        for p in placed:
            sec = rules.sections.get(p.name)
            if sec is None or (sec.board or rules.primary_board.name) != spec.name:
                allowed = ", ".join(rules.sections_for(spec.name))
                hint = did_you_mean(p.name, rules.sections_for(spec.name))
                raise SetupError(f"no section {p.name!r} for board {spec.name!r} (choose from {allowed}){hint}")
            if p.turned and not spec.turnable:
                raise SetupError(f"sections of board {spec.name!r} cannot be turned")
            secs.append(sec)
        dims = tuple((len(sec.rows), len(sec.rows[0])) for sec in secs)
        shape = (spec.name, bi == 0, cols_n, dims, rules.flag(spec.edge, options))
        turned = tuple(p.turned for p in placed)
        out.append(Placement(spec.name, bi == 0, tuple(secs), turned, rules.flag(spec.sectors, options), shape))
    return out


def assemble(rules: RuleSet, layout: Mapping[str, Sequence[Placed]], options: Mapping[str, bool]) -> nx.Graph:
    """Build the hex graph for sections placed per board (grid order: left to right, top to bottom):
    each hex has the attributes of its cell in the board's shape and those of its section's cell."""
    import networkx as nx  # on first use: commands that only check rules (lint) never build a board

    g = nx.Graph(rules=rules.name, primary=rules.primary_board.name)
    for b in placements(rules, layout, options):
        slots, edges = _geometry(*b.shape)
        nodes = []
        for k, slot in enumerate(slots):
            for (name, shaped), (_, held) in zip(_shape_nodes(b, slot), _section_nodes(rules, b, k, slot), strict=True):
                nodes.append((name, shaped | held))
        g.add_nodes_from(nodes)
        g.add_edges_from(edges)
    return g


def shape_graph(rules: RuleSet, boards: Sequence[Placement]) -> nx.Graph:
    """The boards' hexes with only what their place on the board decides (coordinates, line, edge,
    sides) and their adjacency: the part of `assemble`'s graph that no section changes."""
    import networkx as nx

    g = nx.Graph(rules=rules.name, primary=rules.primary_board.name)
    for b in boards:
        slots, edges = _geometry(*b.shape)
        for slot in slots:
            g.add_nodes_from(_shape_nodes(b, slot))
        g.add_edges_from(edges)
    return g


def section_graph(rules: RuleSet, board: Placement, k: int) -> nx.Graph:
    """The hexes of the k-th section of a board, named as placed there, with only what the section
    holds (section, sector, terrain, location, special, buildable); adjacency is the shape's."""
    import networkx as nx

    g = nx.Graph(rules=rules.name, primary=rules.primary_board.name)
    g.add_nodes_from(_section_nodes(rules, board, k, _geometry(*board.shape)[0][k]))
    return g


def _shape_nodes(board: Placement, slot: tuple) -> list[tuple[str, dict]]:
    return [
        (name, dict(board=board.board, row=row, col=col, line=line, q=q, r=r, edge=on_edge, sides=sides))
        for name, row, col, line, q, r, on_edge, sides in slot
    ]


def _section_nodes(rules: RuleSet, board: Placement, k: int, slot: tuple) -> list[tuple[str, dict]]:
    sec = board.sections[k]
    sector = sec.name if board.sectors else None
    nodes = []
    for cell, (terrain, location, special, buildable) in zip(
        slot, _section_cells(rules, sec, board.turned[k]), strict=True
    ):
        attrs = dict(section=sec.name, sector=sector, terrain=terrain, location=location)
        attrs.update(special=special, buildable=buildable)
        nodes.append((cell[0], attrs))
    return nodes


#: Assembly's two halves, each computed once (bounded caches): where the cells of a board's slots
#: lie (names, coordinates, edge, sides and the graph's edges depend only on the board's shape),
#: and what each section holds (terrain and location of each cell, turned or not).
_GEOMETRY: dict[tuple, tuple] = {}
_CELLS: ByOwner[tuple] = ByOwner()


def _geometry(board: str, primary: bool, cols_n: int, dims: tuple[tuple[int, int], ...], edge: bool) -> tuple:
    """(per slot, per cell in section order: (name, row, col, line, q, r, edge, sides); the edges)."""
    key = (board, primary, cols_n, dims, edge)
    hit = _GEOMETRY.get(key)
    if hit is not None:
        return hit
    slots, axial = [], {}
    for k, (h, w) in enumerate(dims):
        base_r, base_c = (k // cols_n) * h, (k % cols_n) * w
        slot = []
        for lr in range(h):
            for lc in range(w):
                row, col = base_r + lr, base_c + lc
                q, r = offset_to_axial(row, col)
                axial[(q, r)] = hex_name(board, row, col, primary)
                slot.append((row, col, q, r))
        slots.append(slot)
    h, w = dims[-1]
    rows, cols = (len(dims) // cols_n) * h, cols_n * w
    out = []
    for slot in slots:
        cells = []
        for row, col, q, r in slot:
            inside = sum((q + dq, r + dr) in axial for dq, dr in DIRECTIONS)
            sides = _sides(board, primary, row, col, rows, cols) if edge else ()
            line = hex_name(board, row, 0, primary).rsplit(",", 1)[0]
            cells.append((axial[(q, r)], row, col, line, q, r, edge and inside < 6, sides))
        out.append(tuple(cells))
    edges = [
        (name, other)
        for (q, r), name in axial.items()
        for dq, dr in DIRECTIONS[:3]
        if (other := axial.get((q + dq, r + dr)))
    ]
    _GEOMETRY[key] = hit = (tuple(out), tuple(edges))
    trim(_GEOMETRY)
    return hit


def _section_cells(rules: RuleSet, sec, turned: bool) -> tuple:
    """(terrain, location, special, buildable) of each cell of a section placed (turned or not), in
    row order; kept per rule set and section object (the rule set keeps its sections alive)."""
    hit = _CELLS.get(rules, (id(sec), turned))
    if hit is not None:
        return hit
    h, w = len(sec.rows), len(sec.rows[0])
    out = []
    for lr in range(h):
        for lc in range(w):
            sr, sc = (h - 1 - lr, w - 1 - lc) if turned else (lr, lc)
            kind, what = rules.legend[sec.rows[sr][sc].letter]
            terrain = rules.terrains[what] if kind == "terrain" else None
            special = what if kind == "location" or (terrain and "special" in terrain.flags) else None
            buildable = bool(terrain and "buildable" in terrain.flags)
            out.append((what if terrain else None, what if kind == "location" else None, special, buildable))
    return _CELLS.put(rules, (id(sec), turned), tuple(out))


def _sides(board: str, primary: bool, row: int, col: int, rows: int, cols: int) -> tuple[str, ...]:
    """The sides of the board's edge a hex lies on: its first or last row, first or last column."""
    named = (("top", row == 0), ("bottom", row == rows - 1))
    named += (("left", col == 0), ("right", col == cols - 1))
    return tuple(side if primary else f"{board}:{side}" for side, on in named if on)


def parse_hex(text: str, g: Container[str]) -> str:
    """Normalise a typed hex ('3,4', '(3, 4)', 'board:2,3') to its node name, or raise ValueError
    if it is not in `g` (a graph, or any collection of node names such as `Tables.index`).

    Parsed by splitting, in time linear in the text, after a length check: the text may come
    from a stranger over the network."""
    text = str(text)
    found = _split_hex(text) if len(text) <= MAX_HEX_TEXT else None
    if found is None:
        shown = repr(text) if len(text) <= MAX_HEX_TEXT else f"a text of {len(text)} characters"
        raise ValueError(f"{shown} is not a hex (write row,col or board:row,col)")
    board, row, col = found
    name = f"{board}:{row},{col}" if board else f"{row},{col}"
    if name not in g:
        raise ValueError(f"there is no hex {name} on this board")
    return name


def _split_hex(text: str) -> tuple[str | None, int, int] | None:
    """(board or None, row, col) of `[board:] [(] row , col [)]` (a space may stand for the comma)."""
    board, colon, rest = text.partition(":")
    if colon:
        board = board.strip()
        if not _BOARD_RE.fullmatch(board):
            return None
    else:
        board, rest = "", text
    rest = rest.strip()
    rest = rest[1:] if rest.startswith("(") else rest
    rest = rest[:-1] if rest.endswith(")") else rest
    parts = rest.split(",") if "," in rest else rest.split()
    if len(parts) != 2:
        return None
    row, col = (x.strip() for x in parts)
    if not (row.isascii() and row.isdigit() and col.isascii() and col.isdigit()):
        return None
    return board or None, int(row), int(col)
