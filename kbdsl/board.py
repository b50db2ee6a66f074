"""Assemble board sections into the networkx hex graph, and compile fast tables from it.

Coordinates: every hex is named `row,col` (0-based, row 0 on top, odd-r: odd rows sit
half a hex to the right) on the primary board, and `board:row,col` on any other board
(a detached board has a coordinate space of its own). These names
are the graph's node keys and the notation of moves, scenarios, saves and the CLI.

The graph is the model: node attributes are board, row, col, q, r (axial), terrain,
location, special, buildable, section, sector, line, edge and sides (the named sides of the
edge a hex lies on: top, bottom, left, right; a corner is on two). `Tables` is derived from
it once per game and serves the hot loops as int bitsets.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from kbdsl.bitset import bit_list, components, shift_table, shifter
from kbdsl.errors import SetupError
from kbdsl.ruleset import RuleSet
from kbdsl.suggest import did_you_mean

if TYPE_CHECKING:
    import networkx as nx

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


def assemble(rules: RuleSet, layout: Mapping[str, Sequence[Placed]], options: Mapping[str, bool]) -> nx.Graph:
    """Build the hex graph for sections placed per board (grid order: left to right, top to bottom)."""
    import networkx as nx  # on first use: commands that only check rules (lint) never build a board

    g = nx.Graph(rules=rules.name, primary=rules.primary_board.name)
    for bi, spec in enumerate(rules.boards):
        placed = list(layout.get(spec.name, ()))
        if not placed:
            continue
        rows_n, cols_n = spec.grid
        if len(placed) != rows_n * cols_n:
            raise SetupError(f"board {spec.name!r} takes {rows_n * cols_n} section(s), got {len(placed)}")
        names = [p.name for p in placed]
        if len(set(names)) != len(names):
            raise SetupError(f"board {spec.name!r}: each section may be used once, got {', '.join(names)}")
        primary = bi == 0
        sectors = rules.flag(spec.sectors, options)
        edge = rules.flag(spec.edge, options)
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
        slots, edges = _geometry(spec.name, primary, cols_n, dims, edge)
        nodes = []
        for sec, p, slot in zip(secs, placed, slots, strict=True):
            sector = sec.name if sectors else None
            for (name, row, col, line, q, r, on_edge, sides), (terrain, location, special, buildable) in zip(
                slot, _section_cells(rules, sec, p.turned), strict=True
            ):
                attrs = dict(board=spec.name, row=row, col=col, section=sec.name, sector=sector, line=line)
                attrs.update(terrain=terrain, location=location, special=special, buildable=buildable)
                attrs.update(q=q, r=r, edge=on_edge, sides=sides)
                nodes.append((name, attrs))
        g.add_nodes_from(nodes)
        g.add_edges_from(edges)
    return g


#: Assembly's two halves, each computed once (bounded caches): where the cells of a board's slots
#: lie (names, coordinates, edge, sides and the graph's edges depend only on the board's shape),
#: and what each section holds (terrain and location of each cell, turned or not).
_GEOMETRY: dict[tuple, tuple] = {}
_CELLS: dict[tuple[int, bool], tuple] = {}
_KEPT = 64


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
    _trim(_GEOMETRY)
    return hit


def _section_cells(rules: RuleSet, sec, turned: bool) -> tuple:
    """(terrain, location, special, buildable) of each cell of a section placed (turned or not), in
    row order; kept per section object (an entry keeps its section and rule set alive, no YAML)."""
    hit = _CELLS.get((id(sec), turned))
    if hit is not None and hit[0] is sec and hit[1] is rules:
        return hit[2]
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
    _CELLS[(id(sec), turned)] = (sec, rules, tuple(out))
    _trim(_CELLS)
    return tuple(out)


def _trim(cache: dict) -> None:
    while len(cache) > _KEPT:
        del cache[next(iter(cache))]


def _sides(board: str, primary: bool, row: int, col: int, rows: int, cols: int) -> tuple[str, ...]:
    """The sides of the board's edge a hex lies on: its first or last row, first or last column."""
    named = (("top", row == 0), ("bottom", row == rows - 1))
    named += (("left", col == 0), ("right", col == cols - 1))
    return tuple(side if primary else f"{board}:{side}" for side, on in named if on)


def parse_hex(text: str, g: nx.Graph) -> str:
    """Normalise a typed hex ('3,4', '(3, 4)', 'board:2,3') to its node name, or raise ValueError.

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


@dataclass
class Tables:
    """Bitset tables compiled from the graph; index i is the i-th node in `ids`."""

    ids: list[str]
    index: dict[str, int]
    nbr: list[list[int]]
    nbr_mask: list[int]
    steps: list[list[int]]  # steps[d][i]: neighbour of i in direction d, or -1
    terrain: dict[str, int]
    locations: dict[str, int]  # tile name -> its location hexes
    location_of: list[str | None]
    buildable: int
    edge: int
    location: int
    special: int
    all: int
    lines: list[int]
    line_ids: list[str]
    sectors: list[int]
    sector_ids: list[str]
    sides: list[int] = field(default_factory=list)  # each named side of an edge (see `side_ids`)
    side_ids: list[str] = field(default_factory=list)
    fields: list[int] = field(default_factory=list)  # each connected group of one non-special terrain
    cache: dict = field(default_factory=dict)
    n: int = field(init=False)  # number of hexes (a plain attribute: the hot loops read it)

    def __post_init__(self) -> None:
        self.n = len(self.ids)

    @cached_property
    def shifts(self) -> list[Callable[[int], int]]:
        """shifts[d](mask): each hex of mask moved one step in direction d (kbdsl.bitset.shifter),
        made on first use."""
        return [shifter(shift_table(step)) for step in self.steps]

    def names(self, mask: int) -> list[str]:
        return [self.ids[i] for i in bit_list(mask)]

    @classmethod
    def from_graph(cls, g: nx.Graph) -> Tables:
        primary = g.graph.get("primary")
        attrs = dict(g.nodes(data=True))
        ids = sorted(
            attrs, key=lambda n: (attrs[n]["board"] != primary, attrs[n]["board"], attrs[n]["row"], attrs[n]["col"])
        )
        index = {name: i for i, name in enumerate(ids)}
        adj = dict(g.adjacency())
        nbr = [sorted([index[m] for m in adj[name]]) for name in ids]
        nbr_mask = []
        for ns in nbr:
            m = 0
            for j in ns:
                m |= 1 << j
            nbr_mask.append(m)
        # Straight lines follow the graph's own edges: direction d of an edge is its axial difference.
        steps = [[-1] * len(ids) for _ in DIRECTIONS]
        direction = {step: d for d, step in enumerate(DIRECTIONS)}
        axial = [(attrs[name]["q"], attrs[name]["r"]) for name in ids]
        for i, (q, r) in enumerate(axial):
            for j in nbr[i]:
                d = direction.get((axial[j][0] - q, axial[j][1] - r))
                if d is not None:
                    steps[d][i] = j

        def group(attr: str) -> tuple[list[str], list[int]]:
            out: dict[str, int] = {}
            for i, name in enumerate(ids):
                key = attrs[name][attr]
                if key is not None:
                    out[key] = out.get(key, 0) | 1 << i
            return list(out), list(out.values())

        terrain: dict[str, int] = {}
        locations: dict[str, int] = {}
        flags = {"buildable": 0, "edge": 0, "location": 0, "special": 0}
        for i, name in enumerate(ids):
            a = attrs[name]
            bit = 1 << i
            if a["terrain"]:
                terrain[a["terrain"]] = terrain.get(a["terrain"], 0) | bit
            if a["location"]:
                locations[a["location"]] = locations.get(a["location"], 0) | bit
                flags["location"] |= bit
            for f in ("buildable", "edge", "special"):
                if a[f]:
                    flags[f] |= bit
        line_ids, lines = group("line")
        sector_ids, sectors = group("sector")
        side_masks: dict[str, int] = {}
        plain: dict[str, int] = {}  # terrain -> its hexes that are not special
        for i, name in enumerate(ids):
            a = attrs[name]
            for side in a.get("sides", ()):
                side_masks[side] = side_masks.get(side, 0) | 1 << i
            if a["terrain"] and not a["special"]:
                plain[a["terrain"]] = plain.get(a["terrain"], 0) | 1 << i
        fields = [c for m in plain.values() for c in components(m, nbr_mask)]
        return cls(
            ids,
            index,
            nbr,
            nbr_mask,
            steps,
            terrain,
            locations,
            [attrs[n]["location"] for n in ids],
            flags["buildable"],
            flags["edge"],
            flags["location"],
            flags["special"],
            (1 << len(ids)) - 1,
            lines,
            line_ids,
            sectors,
            sector_ids,
            list(side_masks.values()),
            list(side_masks),
            sorted(fields, key=lambda m: m & -m),
        )
